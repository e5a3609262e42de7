// Rust mirror: sward_passes::grass::gpu_cull::generated (the pipelines,
// bind groups and dispatches of `grass.place` in `gpu-cull:placement=gpu`);
// CPU references: sward_scenes::placement (each policy), grass::gpu_cull::
// patches::PatchSet::build (packing and grouping by model); parity:
// grass::gpu_cull::tests (generated descriptors equal the CPU's; images,
// instances drawn and vertex invocations of both placement values equal).
//
// Grass `gpu-cull:placement=gpu`, pass `grass.place`: one invocation per
// resident MCNK record (`cull_generate_*`, one entry point per policy: the
// scene's is built), then `place_regions` (one invocation) lays the models'
// regions of the visible list out from what was generated. Composed with
// `grass_place_emit` in `placement_emit`'s place (see
// sward_passes::grass::gpu_cull::generated); composed on its own (the
// library test) it validates with the readback emitter.

//! import grass_place_sink, placement_client, placement_client335, placement_per_cell

@compute @workgroup_size(64)
fn cull_generate_client(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= place_params.record_count) {
        return;
    }
    float_fence_set(place_params.fence);
    if (!sink_begin(id.x)) {
        return;
    }
    _ = place_client(id.x);
    if (!sink_reserve(id.x)) {
        return;
    }
    _ = place_client(id.x);
    sink_finish();
}

@compute @workgroup_size(64)
fn cull_generate_client335(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= place_params.record_count) {
        return;
    }
    float_fence_set(place_params.fence);
    if (!sink_begin(id.x)) {
        return;
    }
    _ = place_client335(id.x);
    if (!sink_reserve(id.x)) {
        return;
    }
    _ = place_client335(id.x);
    sink_finish();
}

@compute @workgroup_size(64)
fn cull_generate_per_cell(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= place_params.record_count) {
        return;
    }
    float_fence_set(place_params.fence);
    if (!sink_begin(id.x)) {
        return;
    }
    _ = place_per_cell(id.x);
    if (!sink_reserve(id.x)) {
        return;
    }
    _ = place_per_cell(id.x);
    sink_finish();
}

// Each model's region of the visible list starts where the previous
// model's generated placements end: written to the per-model table the
// per-instance cull compacts into and to the first instance of the model's
// indirect draw. The frame's MCNKs kept, placements generated and
// overflows go to words 2, 3 and 4 of the state header.
@compute @workgroup_size(1)
fn place_regions() {
    var base = 0u;
    let n = min(place_cull_counts.model_count, arrayLength(&place_models));
    for (var m = 0u; m < n; m++) {
        place_models[m].visible_base = base;
        atomicStore(&place_state[PLACE_STATE_ARGS + PLACE_ARGS_WORDS * m + 4u], base);
        base += atomicLoad(&place_cull_counts.per_model[m]);
    }
    // What the frame generated, in the state header the readback copies.
    atomicStore(&place_state[2u], atomicLoad(&place_cull_counts.mcnks));
    atomicStore(&place_state[3u], atomicLoad(&place_cull_counts.placements));
    atomicStore(&place_state[4u], atomicLoad(&place_cull_counts.overflow));
}
