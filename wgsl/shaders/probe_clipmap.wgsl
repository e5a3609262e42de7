// Rust mirror: sward_passes::terrain::clipmap::sample::clip_sample (CPU
// reference); parity test in passes/src/terrain/clipmap/tests.rs. Per input
// vec4<i32> (level, i, j, _): out vec4 = clip_sample(level, i, j).

//! import clipmap_level

@group(0) @binding(0) var<uniform> params: ClipmapParams;
@group(0) @binding(1) var levels: texture_2d_array<f32>;
@group(0) @binding(2) var<storage, read> inputs: array<vec4<i32>>;
@group(0) @binding(3) var<storage, read_write> outputs: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if (k >= arrayLength(&inputs)) {
        return;
    }
    let x = inputs[k];
    outputs[k] = clip_sample(levels, params, u32(x.x), x.y, x.z);
}
