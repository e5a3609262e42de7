//! Cheap deterministic value noise for procedural terrain.

use crate::rng::{hash32, unit_f32};

/// Smooth value noise in `[0, 1)` at `(x, y)`, lattice spacing 1, seeded.
pub fn value(seed: u32, x: f64, y: f64) -> f32 {
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = ((x - x0) as f32, (y - y0) as f32);
    let (ix, iy) = (x0 as i64 as u32, y0 as i64 as u32);
    let h = |dx: u32, dy: u32| {
        let (x, y) = (ix.wrapping_add(dx), iy.wrapping_add(dy));
        unit_f32(hash32(
            x.wrapping_mul(0x8da6_b343) ^ y.wrapping_mul(0xd816_3841) ^ seed,
        ))
    };
    let s = |t: f32| t * t * (3.0 - 2.0 * t);
    let (sx, sy) = (s(fx), s(fy));
    let top = h(0, 0) + (h(1, 0) - h(0, 0)) * sx;
    let bottom = h(0, 1) + (h(1, 1) - h(0, 1)) * sx;
    top + (bottom - top) * sy
}

/// Three octaves of [`value`] noise in `[0, 1)`, base period `period`.
pub fn fbm(seed: u32, x: f64, y: f64, period: f64) -> f32 {
    let mut sum = 0.0;
    let mut amp = 0.5;
    let mut f = 1.0 / period;
    for o in 0..3 {
        sum += amp * value(seed.wrapping_add(o * 101), x * f, y * f);
        amp *= 0.5;
        f *= 2.0;
    }
    sum / 0.875
}

/// Hermite step from `a` to `b`.
pub fn smoothstep(a: f32, b: f32, x: f32) -> f32 {
    let t = ((x - a) / (b - a)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}
