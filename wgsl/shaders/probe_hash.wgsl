// Rust mirror: sward_wgsl::cpu::hash; parity test in engine/tests/it/probes.rs
// (output per input: pcg_hash, hash2(x, x * 7 + 3), bits of hash_unit).

//! import hash

@group(0) @binding(0) var<storage, read> inputs: array<u32>;
@group(0) @binding(1) var<storage, read_write> outputs: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&inputs)) {
        return;
    }
    let x = inputs[i];
    outputs[3u * i] = pcg_hash(x);
    outputs[3u * i + 1u] = hash2(x, x * 7u + 3u);
    outputs[3u * i + 2u] = bitcast<u32>(hash_unit(pcg_hash(x)));
}
