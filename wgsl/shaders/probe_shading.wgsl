// Rust mirror: sward_passes::terrain::shading (fog_factor, sun_lighting);
// parity test in passes/src/terrain/shading.rs. Per input vec4 (normal.xyz,
// dist): out vec4 = (sun_lighting(normal, sun).rgb, fog_factor(dist, 100, 300)).

//! import fog, lighting

struct ProbeParams {
    sun_dir: vec4<f32>,
}

@group(0) @binding(0) var<uniform> params: ProbeParams;
@group(0) @binding(1) var<storage, read> inputs: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> outputs: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&inputs)) {
        return;
    }
    let x = inputs[i];
    outputs[i] = vec4<f32>(sun_lighting(x.xyz, params.sun_dir.xyz), fog_factor(x.w, 100.0, 300.0));
}
