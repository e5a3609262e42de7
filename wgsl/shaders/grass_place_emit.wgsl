// Rust mirror: sward_passes::grass::gpu_cull::generated (composes the
// policies with this module in `placement_emit`'s place); CPU reference:
// grass::gpu_cull::patches::PatchSet::build (each placement packed into a
// descriptor of its patch, grouped by model); parity: grass::gpu_cull::tests
// (generated descriptors equal the CPU's).
//
// `place_emit` of grass `gpu-cull:placement=gpu` (see `grass_place_sink`):
// while counting, one more placement of its model; while writing, its
// descriptor at its model's next slot. Same signature as `placement_emit`'s.

//! import grass_place_sink

fn place_emit(p: Placed, st: ptr<function, ChunkStats>) {
    (*st).placements += 1u;
    let k = sink_kind(p.model);
    if (k >= PLACE_MCNK_MODELS) {
        // More models than an MCNK's layers can name: never, counted.
        atomicAdd(&place_cull_counts.overflow, 1u);
        return;
    }
    if (!sink_writing) {
        sink_count(k);
        return;
    }
    place_out[sink_take(k)] = sink_descriptor(p, sink_patch);
}
