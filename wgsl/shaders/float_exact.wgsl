// Rust mirror: sward_passes::grass::placement_gpu::cpu::f32_rounded (the
// identity: Rust rounds every f32 operation and never fuses); CPU reference:
// Rust's own f32 arithmetic; parity: passes/src/grass/placement_gpu/tests.rs
// (the placement parity tests, bit-exact decisions and positions).
//
// Float steps in the order and rounding the CPU takes them. SPIR-V drivers
// may contract `a * b + c` into one fused multiply-add (one rounding instead
// of two) and may reassociate float expressions; either can move a result by
// an ulp and flip a decision near its threshold. `f32_rounded(x)` passes x
// through an integer XOR with `float_fence`, a zero the compiler cannot see
// (an entry point stores it from a uniform before any float work), so x is
// materialised as a rounded f32 and no later operation can fuse with, or
// reorder across, the operation that produced it. A module that never sets
// the fence still gets the same values (the XOR with 0 is the identity); it
// only loses the guarantee.

var<private> float_fence: u32;

// Sets the fence from a uniform's zero word (call first in an entry point).
fn float_fence_set(zero: u32) {
    float_fence = zero;
}

// x, rounded to f32 and opaque to algebraic rewriting and contraction.
fn f32_rounded(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ float_fence);
}
