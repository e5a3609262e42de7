// Rust mirror: sward_passes::terrain::gpu_cull::cull (TerrainCullUniforms,
// layout test `structs_match_wgsl`); CPU reference: terrain::cull::
// chunk_visible (the same frustum AABB test and nearest-point distance).
//
// What both terrain cull shaders (`terrain_cull`, `terrain_cull_occlusion`)
// share: their uniforms, their first three bindings (the uniforms, the atlas
// records whose bounds they test, the indexed draws they write) and the
// distance test.

//! import frustum, height_atlas, draw_indexed_args

struct TerrainCullUniforms {
    frustum: Frustum,
    eye: vec3<f32>,
    max_distance: f32,
    chunk_count: u32,
    index_count: u32,
    _pad: vec2<u32>,
}

@group(0) @binding(0) var<uniform> cull: TerrainCullUniforms;
@group(0) @binding(1) var<storage, read> atlas_chunks: array<AtlasChunk>;
@group(0) @binding(2) var<storage, read_write> args: array<DrawIndexedArgs>;

// Distance from `p` to the nearest point of the box (0 inside).
fn nearest_distance(p: vec3<f32>, bmin: vec3<f32>, bmax: vec3<f32>) -> f32 {
    return length(max(max(bmin - p, p - bmax), vec3<f32>(0.0)));
}
