// Rust mirror: sward_wgsl::cpu::hash (pcg_hash, hash2, hash_unit); parity test in
// engine/tests/it/probes.rs.
//
// Integer hashes for procedural jitter. PCG output permutation (Jarzynski &
// Olano 2020, "Hash Functions for GPU Rendering").

fn pcg_hash(v: u32) -> u32 {
    let state = v * 747796405u + 2891336453u;
    let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

// Hash of two integers (e.g. a grid cell).
fn hash2(x: u32, y: u32) -> u32 {
    return pcg_hash(x ^ pcg_hash(y));
}

// Uniform float in [0, 1) from the top 24 bits of a hash (exact in f32).
fn hash_unit(h: u32) -> f32 {
    return f32(h >> 8u) * (1.0 / 16777216.0);
}
