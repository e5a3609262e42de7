// Rust mirror: sward_passes::grass::placement_gpu::generator (the pipelines,
// bind groups and dispatch of `grass.place`); CPU reference:
// sward_scenes::placement (`place_mcnk` per policy); parity:
// passes/src/grass/placement_gpu/tests.rs.
//
// The placement generation pass: one invocation per MCNK record, one entry
// point per policy (the pipeline of the scene's policy is the one built).
// Each writes the MCNK's placements to `placed` (any order: each carries its
// record, pick and draw index) and its counters to `place_stats`.

//! import placement_client, placement_client335, placement_per_cell

const PLACE_WORKGROUP: u32 = 64u;

@compute @workgroup_size(64)
fn generate_client(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= place_params.record_count) {
        return;
    }
    float_fence_set(place_params.fence);
    place_stats[id.x] = place_client(id.x);
}

@compute @workgroup_size(64)
fn generate_client335(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= place_params.record_count) {
        return;
    }
    float_fence_set(place_params.fence);
    place_stats[id.x] = place_client335(id.x);
}

@compute @workgroup_size(64)
fn generate_per_cell(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= place_params.record_count) {
        return;
    }
    float_fence_set(place_params.fence);
    place_stats[id.x] = place_per_cell(id.x);
}
