//! CPU mirrors of the GPU placement generator's own number helpers (same
//! names as in `placement_types.wgsl`, `placement_axis.wgsl` and
//! `placement_rng.wgsl`): the world axis of an in-cell offset
//! ([`place_axis`]: the f64 expression of `Mcnk::local_to_world` itself,
//! which the WGSL evaluates on integers), `coverage / 255` from integers
//! ([`coverage_unit`], reference: the f32 division) and the high word of a
//! 64-bit product ([`mul_hi`], reference: u64 arithmetic). The tests compare
//! each mirror with its reference over every input or millions of samples;
//! the GPU probe then compares the WGSL with the mirrors.
//!
//! Everything else the generator computes has its reference in the scenes
//! crate already (the client generator, the policies, `sward_scenes::rng`).

/// WGSL `f32_rounded`: the identity (Rust rounds every f32 operation on its
/// own and never contracts a multiply and an add).
pub fn f32_rounded(x: f32) -> f32 {
    x
}

/// WGSL `place_axis`: `p0 - (cell + t) * UNIT_SIZE` evaluated in f64 and
/// rounded to f32, the expression `Mcnk::local_to_world` and the policies
/// use (the WGSL evaluates the same roundings on integers).
pub fn place_axis(p0: f32, cell: u32, t: f32) -> f32 {
    (f64::from(p0) - (f64::from(cell) + f64::from(t)) * UNIT_SIZE) as f32
}

/// WGSL `coverage_unit`: `c / 255` rounded to the nearest f32, from the
/// repeating binary expansion of `c / 255` (`c`'s 8 bits over and over).
pub fn coverage_unit(c: u32) -> f32 {
    if c == 0 {
        return 0.0;
    }
    if c >= 255 {
        return 1.0;
    }
    let m = c.wrapping_mul(0x0101_0101);
    let lz = m.leading_zeros();
    let top = m << lz;
    let kept = (top >> 8) + ((top >> 7) & 1);
    kept as f32 * (2.0f32).powi(-24 - lz as i32)
}

/// WGSL `mul_hi`: the high 32 bits of `a * b`, from 16-bit halves.
pub fn mul_hi(a: u32, b: u32) -> u32 {
    let (a_lo, a_hi, b_lo, b_hi) = (a & 0xFFFF, a >> 16, b & 0xFFFF, b >> 16);
    let t = a_hi * b_lo + ((a_lo * b_lo) >> 16);
    let w = (t & 0xFFFF) + a_lo * b_hi;
    a_hi * b_hi + (t >> 16) + (w >> 16)
}

use sward_scenes::world::coords::UNIT_SIZE;

#[cfg(test)]
mod tests {
    use super::*;
    use sward_scenes::rng::Rng32;

    #[test]
    fn coverage_unit_is_the_rounded_division_for_every_byte() {
        for c in 0..=255u32 {
            assert_eq!(
                coverage_unit(c).to_bits(),
                (c as f32 / 255.0).to_bits(),
                "coverage {c}"
            );
        }
    }

    #[test]
    fn mul_hi_is_the_u64_product() {
        let mut rng = Rng32::new(5);
        let edge = [0, 1, 2, 0xFFFF, 0x1_0000, 0xFFFF_FFFF, 0x8000_0000];
        for &a in &edge {
            for &b in &edge {
                assert_eq!(mul_hi(a, b), ((a as u64 * b as u64) >> 32) as u32);
            }
        }
        for _ in 0..1_000_000 {
            let (a, b) = (rng.next_u32(), rng.next_u32());
            assert_eq!(
                mul_hi(a, b),
                ((a as u64 * b as u64) >> 32) as u32,
                "{a} {b}"
            );
        }
    }
}
