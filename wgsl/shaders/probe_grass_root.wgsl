// Rust mirror: the root parity test in sward_passes::grass::gpu_cull::tests;
// CPU references: grass::gpu_cull::descriptor::unpack and World::height_at.
//
// Writes `grass_root` of every descriptor (what the gpu-cull vertex stage
// places each clump at): (x, y, z, found) and (yaw, scale, 0, 0).

//! import grass_gpu_cull

@group(3) @binding(0) var<storage, read_write> probe_roots: array<vec4<f32>>;

@compute @workgroup_size(64)
fn probe(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&grass_descriptors) || 2u * i + 1u >= arrayLength(&probe_roots)) {
        return;
    }
    let r = grass_root(i);
    probe_roots[2u * i] = vec4<f32>(r.position, select(0.0, 1.0, r.found));
    probe_roots[2u * i + 1u] = vec4<f32>(r.yaw, r.scale, 0.0, 0.0);
}
