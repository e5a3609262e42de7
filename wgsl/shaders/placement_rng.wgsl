// Rust mirror: sward_scenes::rng (hash32, hash_words, unit_f32, Rng32::next_u32,
// next_f32, range_f32, below) and sward_passes::grass::placement_gpu::cpu::mul_hi;
// CPU reference: sward_scenes::rng; parity: passes/src/grass/placement_gpu/tests.rs
// (the probe's hashes and streams, and every per-cell placement test).
//
// sward's own deterministic numbers, which the `per-cell` policy and the
// client policies' per-placement seeds use. `Rng32` is the PCG-style stream
// of `hash.wgsl`'s `pcg_hash`: its k-th output is `pcg_hash(LCG^k(seed))`,
// so the state here is the value the next output hashes (the CPU holds it one
// LCG step ahead; the outputs are the same).

//! import hash, float_exact

// Wellons' `lowbias32` integer hash (CPU `hash32`).
fn hash32(v: u32) -> u32 {
    var x = v;
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    x ^= x >> 16u;
    return x;
}

// The fold of `hash_words`: its start value and one step.
const HASH_WORDS_START: u32 = 0x9e3779b9u;

fn hash_fold(h: u32, w: u32) -> u32 {
    return hash32(h ^ (w + 0x632be5abu));
}

// `hash_words(&[a, b, c, d])`.
fn hash_words4(a: u32, b: u32, c: u32, d: u32) -> u32 {
    return hash_fold(hash_fold(hash_fold(hash_fold(HASH_WORDS_START, a), b), c), d);
}

// `hash_words(&[a, b, c, d, e])`.
fn hash_words5(a: u32, b: u32, c: u32, d: u32, e: u32) -> u32 {
    return hash_fold(hash_words4(a, b, c, d), e);
}

// The high 32 bits of the 64-bit product a * b (CPU: `(a as u64 * b as u64) >> 32`).
fn mul_hi(a: u32, b: u32) -> u32 {
    let a_lo = a & 0xffffu;
    let a_hi = a >> 16u;
    let b_lo = b & 0xffffu;
    let b_hi = b >> 16u;
    let t = a_hi * b_lo + ((a_lo * b_lo) >> 16u);
    let w = (t & 0xffffu) + a_lo * b_hi;
    return a_hi * b_hi + (t >> 16u) + (w >> 16u);
}

struct Rng32 {
    // The value the next output hashes.
    state: u32,
}

fn rng32_new(seed: u32) -> Rng32 {
    return Rng32(seed);
}

fn rng32_next_u32(rng: ptr<function, Rng32>) -> u32 {
    let out = pcg_hash((*rng).state);
    (*rng).state = (*rng).state * 747796405u + 2891336453u;
    return out;
}

// Uniform in [0, 1) from the top 24 bits (exact; CPU `unit_f32`).
fn rng32_next_f32(rng: ptr<function, Rng32>) -> f32 {
    return hash_unit(rng32_next_u32(rng));
}

// Uniform in [lo, hi): lo + (hi - lo) * x with the product rounded before
// the sum, as the CPU computes it.
fn rng32_range_f32(rng: ptr<function, Rng32>, lo: f32, hi: f32) -> f32 {
    let x = rng32_next_f32(rng);
    return lo + f32_rounded(f32_rounded(hi - lo) * x);
}

// Uniform integer in [0, n) (0 for n = 0).
fn rng32_below(rng: ptr<function, Rng32>, n: u32) -> u32 {
    return mul_hi(rng32_next_u32(rng), n);
}
