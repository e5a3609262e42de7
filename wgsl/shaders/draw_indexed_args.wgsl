// Rust mirror: sward_passes::terrain::gpu_cull::cull::DrawIndexedArgs (layout
// test `structs_match_wgsl` there), the layout of wgpu's
// DrawIndexedIndirectArgs.
//
// One indexed indirect draw, as the cull passes of terrain and grass
// `gpu-cull` write it.

struct DrawIndexedArgs {
    index_count: u32,
    instance_count: u32,
    first_index: u32,
    base_vertex: i32,
    first_instance: u32,
}
