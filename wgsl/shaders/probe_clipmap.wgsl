// Rust mirror: sward_passes::terrain::clipmap::store::LevelStore::clip_sample
// and refine::{morphed, refined_height} (CPU references); parity tests in
// passes/src/terrain/clipmap/tests.rs. Per input vec4<i32> (level, i, j,
// mode): mode 0, out = clip_sample(level, i, j); mode 1, out =
// clip_refined(level, (i, j)) (finer-lattice vertex).

//! import clipmap_level

@group(0) @binding(0) var<uniform> params: ClipmapParams;
@group(0) @binding(1) var levels: texture_2d_array<f32>;
@group(0) @binding(2) var<storage, read> inputs: array<vec4<i32>>;
@group(0) @binding(3) var<storage, read_write> outputs: array<vec4<f32>>;
@group(0) @binding(4) var refine_index: texture_2d<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if (k >= arrayLength(&inputs)) {
        return;
    }
    let x = inputs[k];
    if (x.w == 1) {
        outputs[k] = clip_refined(levels, refine_index, params, u32(x.x), x.yz);
    } else {
        outputs[k] = clip_sample(levels, params, u32(x.x), x.y, x.z);
    }
}
