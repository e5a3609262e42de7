//! Screen-space error LOD of clipmap ring blocks.
//!
//! A clipmap spends about the same number of triangles on every ring, so the
//! triangles in view grow by one ring per doubling of the view distance. A
//! far ring, seen from near the ground, is mostly smooth at its own scale:
//! what matters is how far a block's surface moves on screen if it is drawn
//! at half resolution. A block of level `l` drawn from its even vertices
//! only (the next coarser level's vertex positions, its own texels) differs
//! from the full-resolution block by at most `e`, the largest interpolation
//! residual of its odd vertices (edge midpoints against their edge, quad
//! centres against either diagonal). Seen from a horizontal distance `d` (a
//! lower bound of the real distance), a vertical error `e` covers at most
//! `e * focal_px / d` pixels. When that is within the tier's `pixel_error`,
//! the block is drawn at half resolution (a quarter of its triangles;
//! [`super::layout::level_pieces_lod`] stitches its neighbours).
//!
//! The residuals are estimated on the CPU from the far grid ([`FarGrid`]: a
//! height every 4 cells, on which every vertex of level 3 and coarser lies),
//! per half-resolution quad of a level's window, when the level moves (a
//! level `l` moves every `2 s_l`: level 3 about every 33 units of camera
//! travel, coarser levels more rarely). Levels finer than [`MIN_LEVEL`] are
//! never decimated: their vertices are not far-grid samples, and they are
//! the rings closest to the camera. The estimate uses point samples; the
//! drawn texels are prefiltered (`TerrainSampler::prefiltered`), which moves
//! a texel by a fraction of the finer level's residual.

use super::fill::{FarGrid, FAR_STEP};
use super::layout::ClipmapConfig;

/// Finest level that may be drawn at half resolution: its vertices (every
/// `2^l / 2` cells) are far-grid samples (every [`FAR_STEP`] cells).
pub const MIN_LEVEL: u32 = 3;

/// Default `pixel_error` of the `clipmap` tier: a ring is drawn at half
/// resolution when that moves its surface by at most this many pixels.
pub const DEFAULT_PIXEL_ERROR: f64 = 1.0;

/// Interpolation residuals of one level's window: per half-resolution quad
/// (two level quads a side, from the window's origin), the largest residual
/// of its odd vertices.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelErrors {
    /// Window origin (level units) the residuals were estimated for.
    pub origin: [i64; 2],
    /// Half-resolution quads per side.
    side: usize,
    /// Row-major residuals (world units).
    residual: Vec<f32>,
}

impl LevelErrors {
    /// Estimates level `level`'s residuals over its window at `origin` from
    /// far-grid point samples (clamped to the grid's edge). `None` for levels
    /// finer than [`MIN_LEVEL`].
    pub fn estimate(
        far: &FarGrid,
        cfg: &ClipmapConfig,
        level: u32,
        origin: [i64; 2],
    ) -> Option<Self> {
        if level < MIN_LEVEL {
            return None;
        }
        // Level-l vertex I is at 2^(l-1) cells, far sample k at origin + 4 k
        // cells: I maps to sample I * 2^(l-3) - origin / 4.
        let per = 1i64 << (level - MIN_LEVEL);
        let base = [0, 1].map(|a| (far.origin[a] / FAR_STEP).round() as i64);
        let size = far.size.map(i64::from);
        let h = |i: i64, j: i64| -> f32 {
            let x = (i * per - base[0]).clamp(0, size[0] - 1);
            let y = (j * per - base[1]).clamp(0, size[1] - 1);
            far.heights[(y * size[0] + x) as usize]
        };
        let side = (cfg.footprint() / 2) as usize;
        let mut residual = Vec::with_capacity(side * side);
        for b in 0..side as i64 {
            for a in 0..side as i64 {
                let (i, j) = (origin[0] + 2 * a, origin[1] + 2 * b);
                let c = [h(i, j), h(i + 2, j), h(i, j + 2), h(i + 2, j + 2)];
                let mid = |p: f32, q: f32| 0.5 * (p + q);
                let centre = h(i + 1, j + 1);
                let r = [
                    h(i + 1, j) - mid(c[0], c[1]),
                    h(i, j + 1) - mid(c[0], c[2]),
                    h(i + 2, j + 1) - mid(c[1], c[3]),
                    h(i + 1, j + 2) - mid(c[2], c[3]),
                    centre - mid(c[0], c[3]),
                    centre - mid(c[1], c[2]),
                ];
                residual.push(r.iter().fold(0.0f32, |w, r| w.max(r.abs())));
            }
        }
        Some(LevelErrors {
            origin,
            side,
            residual,
        })
    }

    /// Largest residual of the `w x h`-quad piece at `offset` (level quads
    /// from the window's origin, even).
    pub fn piece_error(&self, offset: [i64; 2], quads: [i64; 2]) -> f32 {
        let lo = offset.map(|o| (o / 2).max(0) as usize);
        let hi = [0, 1].map(|a| (((offset[a] + quads[a]) / 2) as usize).min(self.side));
        let mut worst = 0.0f32;
        for b in lo[1]..hi[1] {
            for a in lo[0]..hi[0] {
                worst = worst.max(self.residual[b * self.side + a]);
            }
        }
        worst
    }
}

/// Focal length in pixels of a `height`-pixel view with vertical field of
/// view `fov_y_deg`.
pub fn focal_px(height: u32, fov_y_deg: f32) -> f64 {
    f64::from(height) * 0.5 / (f64::from(fov_y_deg).to_radians() * 0.5).tan()
}

/// Pixels a vertical error of `error` units seen from a horizontal
/// distance of at least `distance` units covers at most.
pub fn error_pixels(error: f32, distance: f64, focal_px: f64) -> f64 {
    f64::from(error) * focal_px / distance.max(1e-6)
}

/// Whether a ring block of level `level` with residual `error`, at least
/// `distance` units from the eye horizontally, is drawn at half resolution:
/// its error covers at most `pixel_error` pixels (`pixel_error` 0 never
/// decimates; levels finer than [`MIN_LEVEL`] never are).
pub fn decimate(level: u32, error: f32, distance: f64, focal_px: f64, pixel_error: f64) -> bool {
    level >= MIN_LEVEL
        && pixel_error > 0.0
        && error_pixels(error, distance, focal_px) <= pixel_error
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(f: impl Fn(f64, f64) -> f32) -> FarGrid {
        let size = [300u32, 300];
        let origin = [64.0, 128.0];
        let mut heights = Vec::new();
        for y in 0..size[1] {
            for x in 0..size[0] {
                heights.push(f(
                    origin[0] + 4.0 * f64::from(x),
                    origin[1] + 4.0 * f64::from(y),
                ));
            }
        }
        FarGrid {
            origin,
            size,
            heights,
            range: [0.0, 0.0],
        }
    }

    /// A plane has no residual at any level; a spike gives its own residual
    /// to the quads that hold it as an odd vertex, half of it to those that
    /// hold it as a corner, and nothing at a level whose vertices miss it.
    #[test]
    fn residuals_of_planes_vanish_and_spikes_count() {
        let cfg = ClipmapConfig {
            block: 8,
            levels: 6,
        };
        let quads = [34, 34];
        let plane = grid(|x, y| (0.25 * x - 0.5 * y + 3.0) as f32);
        // Level 3 vertex I is at 4 I cells: the window starts at cell (80, 160).
        let origin3 = [20, 40];
        let e = LevelErrors::estimate(&plane, &cfg, 3, origin3).expect("level 3");
        assert_eq!(e.piece_error([0, 0], quads), 0.0);
        let e5 = LevelErrors::estimate(&plane, &cfg, 5, [6, 10]).expect("level 5");
        assert_eq!(e5.piece_error([0, 0], quads), 0.0);
        assert!(LevelErrors::estimate(&plane, &cfg, 2, origin3).is_none());
        // A 6-unit spike at level-3 vertex (25, 45) = cell (100, 180): the
        // centre of the half-resolution quad at (4, 4) (offset 2 a, 2 b).
        let spike = grid(|x, y| if (x, y) == (100.0, 180.0) { 6.0 } else { 0.0 });
        let e = LevelErrors::estimate(&spike, &cfg, 3, origin3).expect("level 3");
        assert!((e.piece_error([0, 0], quads) - 6.0).abs() < 1e-6);
        assert!((e.piece_error([4, 4], [2, 2]) - 6.0).abs() < 1e-6);
        assert_eq!(e.piece_error([0, 0], [4, 34]), 0.0, "quads left of it");
        assert_eq!(e.piece_error([6, 0], [8, 34]), 0.0, "quads right of it");
        // On an even vertex (24, 44) = cell (96, 176), the corner of four
        // quads: their odd neighbours are off by half of it.
        let even = grid(|x, y| if (x, y) == (96.0, 176.0) { 6.0 } else { 0.0 });
        let e = LevelErrors::estimate(&even, &cfg, 3, origin3).expect("level 3");
        assert!((e.piece_error([0, 0], quads) - 3.0).abs() < 1e-6);
        assert!((e.piece_error([2, 2], [2, 2]) - 3.0).abs() < 1e-6);
        assert!((e.piece_error([4, 4], [2, 2]) - 3.0).abs() < 1e-6);
        assert_eq!(e.piece_error([8, 8], [8, 8]), 0.0);
        // Level 5 (vertices every 16 cells, window from cell (96, 160)) does
        // not sample the spike at cell (100, 180).
        let e5 = LevelErrors::estimate(&spike, &cfg, 5, [6, 10]).expect("level 5");
        assert_eq!(e5.piece_error([0, 0], quads), 0.0);
    }

    #[test]
    fn decision_follows_the_pixel_bound() {
        let focal = focal_px(540, 60.0);
        assert!((focal - 467.65).abs() < 0.01, "{focal}");
        // 1 unit at 1000 units covers 0.47 px.
        let px = error_pixels(1.0, 1000.0, focal);
        assert!((px - 0.46765).abs() < 1e-4, "{px}");
        assert!(decimate(4, 2.0, 1000.0, focal, 1.0));
        assert!(!decimate(4, 2.2, 1000.0, focal, 1.0));
        assert!(decimate(4, 2.2, 1100.0, focal, 1.0), "farther");
        assert!(decimate(4, 4.0, 1000.0, focal, 2.0), "looser bound");
        assert!(!decimate(4, 0.0, 1000.0, focal, 0.0), "0 disables");
        assert!(!decimate(2, 0.0, 1000.0, focal, 100.0), "fine levels never");
    }
}
