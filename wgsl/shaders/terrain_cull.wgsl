// Rust mirror: sward_passes::terrain::gpu_cull::cull (TerrainCullUniforms,
// DrawIndexedArgs, and the CPU reference `cull_reference`, which applies
// terrain::cull::chunk_visible: the same frustum AABB test as `frustum` and
// the same nearest-point distance).
//
// Terrain `gpu-cull`, pass `terrain.cull`: one invocation per atlas slot
// (`chunk_count` = slots handed out, live or free) tests its conservative
// bounds (atlas record) against the frustum and the draw distance; a free
// slot's record (EMPTY: bounds far away) fails both tests; survivors are compacted with an atomic counter into
// indexed indirect draws of the template whose first instance is the MCNK's
// atlas slot. The counter doubles as the draw count of
// multi_draw_indexed_indirect_count; without that feature the args buffer is
// cleared first and all entries are drawn (culled ones have zero instances).

//! import terrain_cull_types

@group(0) @binding(3) var<storage, read_write> draw_count: atomic<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let slot = id.x;
    if (slot >= cull.chunk_count) {
        return;
    }
    let c = atlas_chunks[slot];
    if (!frustum_aabb_visible(cull.frustum, c.bounds_min, c.bounds_max)) {
        return;
    }
    if (nearest_distance(cull.eye, c.bounds_min, c.bounds_max) > cull.max_distance) {
        return;
    }
    let k = atomicAdd(&draw_count, 1u);
    args[k] = DrawIndexedArgs(cull.index_count, 1u, 0u, 0, slot);
}
