// Rust mirror: sward_passes::terrain::gpu_cull::occlusion (uniforms, the
// state layout, pipelines); CPU reference: occlusion::phases_reference;
// parity test `terrain::atlas_tests::terrain_occlusion_phases_match_the_cpu_reference`.
//
// Terrain `gpu-cull` with `occlusion=on`: two-phase Hi-Z culling of MCNKs.
//   phase_one  one invocation per atlas slot (free slots hold EMPTY records,
//              which the frustum and distance tests reject): the frustum and distance
//              test of `terrain.cull`, then its box against LAST frame's
//              pyramid (projected with this frame's view): visible MCNKs
//              become phase-one draws, hidden ones go to the rejected list.
//              The terrain drawn in phase one then builds this frame's
//              pyramid (`terrain.hiz`).
//   phase_two  one invocation per rejected MCNK: its box against THIS
//              frame's pyramid; the visible ones become phase-two draws
//              (what last frame's depth hid wrongly after a camera move),
//              the rest are counted as occluded.
// The occlusion test runs in every invocation (outside the divergent
// branches): lavapipe (Mesa 22.3) mis-reads mip levels in textureLoad under
// a partial invocation mask. Whether phase one tests at all (the pyramid
// holds last frame's depth) is the pipeline constant PREVIOUS, one
// pipeline each, not a uniform flag (see sward_wgsl::uniform_branches).

//! import terrain_cull_types, hiz_test

struct TerrainOcclusion {
    view_proj: mat4x4<f32>,
    // target size in pixels (xy), pyramid levels (z), 1 when the pyramid
    // holds last frame's depth (w; the CPU reference's input; the shader
    // reads it as the pipeline constant PREVIOUS)
    hiz: vec4<f32>,
}

// Whether the pyramid holds last frame's depth (phase one tests nothing
// otherwise): the Rust side builds phase_one with each value.
override PREVIOUS: bool = true;

// `args` (binding 2): phase-one draws from 0, phase-two draws from
// `chunk_count`.
// counts[0]: phase-one draws, [1]: phase-two draws, [2]: occluded MCNKs
@group(0) @binding(3) var<storage, read_write> counts: array<atomic<u32>, 4>;
@group(0) @binding(4) var<uniform> occlusion: TerrainOcclusion;
// rejected[0]: how many; then their slots
@group(0) @binding(5) var<storage, read_write> rejected: array<atomic<u32>>;
@group(1) @binding(0) var pyramid: texture_2d<f32>;

fn hidden(bmin: vec3<f32>, bmax: vec3<f32>) -> bool {
    return hiz_box_occluded(pyramid, occlusion.view_proj, occlusion.hiz.xy, u32(occlusion.hiz.z), bmin, bmax);
}

@compute @workgroup_size(64)
fn phase_one(@builtin(global_invocation_id) id: vec3<u32>) {
    let slot = min(id.x, max(cull.chunk_count, 1u) - 1u);
    let c = atlas_chunks[slot];
    let in_view = id.x < cull.chunk_count
        && frustum_aabb_visible(cull.frustum, c.bounds_min, c.bounds_max)
        && nearest_distance(cull.eye, c.bounds_min, c.bounds_max) <= cull.max_distance;
    var occluded = false;
    if (PREVIOUS) {
        occluded = hidden(c.bounds_min, c.bounds_max);
    }
    if (!in_view) {
        return;
    }
    if (occluded) {
        let r = atomicAdd(&rejected[0], 1u);
        atomicStore(&rejected[r + 1u], slot);
        return;
    }
    let k = atomicAdd(&counts[0], 1u);
    args[k] = DrawIndexedArgs(cull.index_count, 1u, 0u, 0, slot);
}

@compute @workgroup_size(64)
fn phase_two(@builtin(global_invocation_id) id: vec3<u32>) {
    let n = atomicLoad(&rejected[0]);
    let i = min(id.x, max(n, 1u) - 1u);
    let slot = min(atomicLoad(&rejected[i + 1u]), max(cull.chunk_count, 1u) - 1u);
    let c = atlas_chunks[slot];
    let occluded = hidden(c.bounds_min, c.bounds_max);
    if (id.x >= n) {
        return;
    }
    if (occluded) {
        atomicAdd(&counts[2], 1u);
        return;
    }
    let k = atomicAdd(&counts[1], 1u);
    args[cull.chunk_count + k] = DrawIndexedArgs(cull.index_count, 1u, 0u, 0, slot);
}
