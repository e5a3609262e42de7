// Rust mirror: the occlusion probe test in sward_passes::hiz::tests; CPU
// reference: hiz::sphere_test.
//
// Runs `hiz_sphere_test` on a list of spheres (xyz centre, w radius) and
// writes each result (nearest, far, level, on screen).

//! import hiz_test

struct ProbeHiz {
    view_proj: mat4x4<f32>,
    // level 0 size (xy), level count (z)
    shape: vec4<f32>,
}

@group(0) @binding(0) var probe_pyramid: texture_2d<f32>;
@group(0) @binding(1) var<uniform> probe: ProbeHiz;
@group(0) @binding(2) var<storage, read> probe_spheres: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> probe_out: array<vec4<f32>>;

@compute @workgroup_size(64)
fn probe_main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&probe_spheres)) {
        return;
    }
    let s = probe_spheres[i];
    probe_out[i] = hiz_sphere_test(probe_pyramid, probe.view_proj, probe.shape.xy, u32(probe.shape.z), s.xyz, s.w);
}
