//! CPU mirrors of the GPU placement generator's own number helpers (same
//! names as in `placement_types.wgsl` / `placement_rng.wgsl`): the world axis
//! of an in-cell offset ([`place_axis`], whose reference is the f64
//! `Mcnk::local_to_world`), `coverage / 255` from integers
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

/// High part of a cell's side (WGSL `PLACE_UNIT_HI`, 133 / 32: 8 significant bits).
pub const PLACE_UNIT_HI: f32 = 4.15625;
/// Middle part (WGSL `PLACE_UNIT_LO`, 85 / 8192: 7 significant bits).
pub const PLACE_UNIT_LO: f32 = 0.010_375_976_562_5;
/// The rest, 1 / 24576 rounded (WGSL `PLACE_UNIT_LO2`); `HI + LO + LO2` is
/// 25/6, a cell's side.
pub const PLACE_UNIT_LO2: f32 = (1.0f64 / 24576.0) as f32;

/// WGSL `place_two_sum`: `(s, e)` with `s + e = a + b` exactly.
pub fn place_two_sum(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// WGSL `place_axis`: `p0 - (cell + t) * UNIT` for `t` in `[0, 1]` a
/// multiple of 2^-24: `t` split at 2^-12 so that the product's four large
/// parts are exact, subtracted with their rounding errors kept (two-sum),
/// only the last sum rounding.
pub fn place_axis(p0: f32, cell: u32, t: f32) -> f32 {
    let a = (t * 4096.0).floor() * 0.000_244_140_625;
    let b = t - a;
    let th = cell as f32 + a;
    let (mut s, mut err) = place_two_sum(p0, -(th * PLACE_UNIT_HI));
    for part in [b * PLACE_UNIT_HI, th * PLACE_UNIT_LO, b * PLACE_UNIT_LO] {
        let (s2, e) = place_two_sum(s, -part);
        s = s2;
        err += e;
    }
    err -= th * PLACE_UNIT_LO2 + b * PLACE_UNIT_LO2;
    s + err
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

#[cfg(test)]
mod tests {
    use super::*;
    use sward_scenes::rng::Rng32;
    use sward_scenes::world::coords::{ChunkCoord, UNIT_SIZE};

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

    /// The split constants add up to a cell, and the f32 axis equals the
    /// f64 reference rounded once for offsets on the 2^-24 grid, at MCNK
    /// corners all over the world (the reference's `local_to_world` is
    /// `p0 - (col + u) * UNIT_SIZE` in f64): in all but about 15 in a
    /// million, which are one ulp (or 1e-10 units near zero) off. Those are
    /// ties: with `t = k / 2^24` and `k` a multiple of 3 the exact value
    /// `p0 - (cell + t) * 25/6` can lie exactly on a rounding midpoint, and
    /// then the reference's own f64 rounding error picks the side.
    #[test]
    fn place_axis_is_the_f64_reference_rounded() {
        assert_eq!(PLACE_UNIT_HI as f64, 133.0 / 32.0);
        assert_eq!(PLACE_UNIT_LO as f64, 85.0 / 8192.0);
        assert_eq!(133.0 / 32.0 + 85.0 / 8192.0 + 1.0 / 24576.0, 25.0f64 / 6.0);
        assert!((25.0 / 6.0 - UNIT_SIZE).abs() < 1e-15);
        let mut rng = Rng32::new(0xa415);
        let (mut checked, mut off) = (0u64, 0u64);
        for _ in 0..2_000_000 {
            let g = rng.below(1024);
            let p0 = ChunkCoord { x: g, y: g }.origin()[0] as f32;
            let cell = rng.below(8);
            // Offsets as the policies make them: (d + 1) / 2 of a signed
            // draw, or a 24-bit unit; with the ends.
            let t = match rng.below(4) {
                0 => (rng.next_u32() >> 8) as f32 / 16_777_216.0,
                1 => sward_scenes::placement::client_rng::signed_unit(rng.next_u32()) * 0.5 + 0.5,
                2 => [0.0, 1.0, 0.5, 2.0f32.powi(-24)][rng.below(4) as usize],
                _ => (sward_scenes::placement::client_rng::signed_unit(rng.next_u32()) + 1.0) * 0.5,
            };
            let want = (p0 as f64 - (cell as f64 + t as f64) * UNIT_SIZE) as f32;
            let got = place_axis(p0, cell, t);
            checked += 1;
            if got != want {
                off += 1;
                // One ulp, or 1e-8 units where the result is near zero (its
                // f32 ulp there is far below the split constant's error).
                let ulp = (want.abs() * f32::EPSILON).max(1e-10);
                assert!(
                    (got - want).abs() <= ulp,
                    "{p0} {cell} {t}: {got} vs {want}"
                );
            }
        }
        println!("place_axis: {off} of {checked} off the f64 reference");
        assert!(off * 20_000 < checked, "{off} of {checked} one ulp off");
    }
}
