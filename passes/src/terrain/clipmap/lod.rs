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
//! a texel by a fraction of the finer level's residual. The far grid holds
//! the resident world's exact heights, except in a streaming scene, where it
//! comes from the far source alone: exact for the procedural presets (their
//! generator is the MCVT at these vertices), a map's WDL for `--data`, which
//! is smoother than the ADTs it summarises, so there the bound is
//! approximate over resident tiles.

use super::fill::{FarGrid, FAR_STEP};
use super::layout::{ring_block_offsets, ClipmapConfig};

/// Finest level that may be drawn at half resolution: its vertices (every
/// `2^l / 2` cells) are far-grid samples (every [`FAR_STEP`] cells).
pub const MIN_LEVEL: u32 = 3;

/// Default `pixel_error` of the `clipmap` tier: a ring block is drawn at
/// half resolution when that moves its surface by at most this many pixels.
pub const DEFAULT_PIXEL_ERROR: f64 = 1.0;

/// Interpolation residuals of one level's window: per half-resolution quad
/// (two level quads a side), the largest residual of its odd vertices, kept
/// toroidally like the level texels (a move computes only the quads that
/// entered the window), and the largest per ring block.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelErrors {
    level: u32,
    /// Window origin (level units) the residuals are for (`None`: none yet).
    origin: Option<[i64; 2]>,
    /// Block size `t` (level quads).
    block: i64,
    /// Half-resolution quads per side (`F / 2`).
    side: i64,
    /// Residuals (world units) of half quad `(A, B)` (absolute: level
    /// vertex `(2A, 2B)` is its min corner) at `(B mod side, A mod side)`.
    residual: Vec<f32>,
    /// Largest residual of each ring block, by offset inside the window.
    blocks: Vec<([i64; 2], f32)>,
}

impl LevelErrors {
    /// Residuals of level `level` of `cfg` (nothing estimated yet); `None`
    /// for levels finer than [`MIN_LEVEL`].
    pub fn new(cfg: &ClipmapConfig, level: u32) -> Option<Self> {
        if level < MIN_LEVEL {
            return None;
        }
        let side = cfg.footprint() / 2;
        Some(LevelErrors {
            level,
            origin: None,
            block: i64::from(cfg.block),
            side,
            residual: vec![0.0; (side * side) as usize],
            blocks: Vec::new(),
        })
    }

    /// Brings the residuals to the window at `origin` from far-grid point
    /// samples (clamped to the grid's edge): only the half quads that entered
    /// the window since the last update are estimated. Returns how many were.
    pub fn update(&mut self, far: &FarGrid, origin: [i64; 2]) -> usize {
        if self.origin == Some(origin) {
            return 0;
        }
        // Level-l vertex I is at 2^(l-1) cells, far sample k at origin + 4 k
        // cells: I maps to sample I * 2^(l-3) - origin / 4.
        let per = 1i64 << (self.level - MIN_LEVEL);
        let base = [0, 1].map(|a| (far.origin[a] / FAR_STEP).round() as i64);
        let size = far.size.map(i64::from);
        let h = |i: i64, j: i64| -> f32 {
            let x = (i * per - base[0]).clamp(0, size[0] - 1);
            let y = (j * per - base[1]).clamp(0, size[1] - 1);
            far.heights[(y * size[0] + x) as usize]
        };
        let side = self.side;
        let lo = [origin[0] / 2, origin[1] / 2];
        let old = self.origin.map(|o| [o[0] / 2, o[1] / 2]);
        let mut estimated = 0;
        for b in lo[1]..lo[1] + side {
            // The columns of this row that entered the window: all of them
            // in a new row, else those outside the old window's columns.
            let entering: [std::ops::Range<i64>; 2] = match old {
                Some(o) if (o[1]..o[1] + side).contains(&b) => {
                    let keep = lo[0].max(o[0])..(lo[0] + side).min(o[0] + side);
                    if keep.is_empty() {
                        [lo[0]..lo[0] + side, 0..0]
                    } else {
                        [lo[0]..keep.start, keep.end..lo[0] + side]
                    }
                }
                _ => [lo[0]..lo[0] + side, 0..0],
            };
            let row = b.rem_euclid(side) * side;
            for a in entering.into_iter().flatten() {
                let (i, j) = (2 * a, 2 * b);
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
                self.residual[(row + a.rem_euclid(side)) as usize] =
                    r.iter().fold(0.0f32, |w, r| w.max(r.abs()));
                estimated += 1;
            }
        }
        self.origin = Some(origin);
        let t = self.block;
        // Only ring blocks are ever drawn at half resolution (the levels
        // estimated here are never the finest).
        self.blocks = ring_block_offsets(t, false)
            .map(|off| (off, self.piece_error(off, [t, t])))
            .collect();
        estimated
    }

    /// Window origin the residuals are for (`None` before the first update).
    pub fn origin(&self) -> Option<[i64; 2]> {
        self.origin
    }

    /// Largest residual of the block at `offset` inside the window (as of
    /// the last update); `None` for an offset that is not a ring block's.
    pub fn block_error(&self, offset: [i64; 2]) -> Option<f32> {
        self.blocks
            .iter()
            .find(|(o, _)| *o == offset)
            .map(|(_, e)| *e)
    }

    /// Largest residual of the `w x h`-quad piece at `offset` (level quads
    /// from the window's origin, even), clipped to the window.
    pub fn piece_error(&self, offset: [i64; 2], quads: [i64; 2]) -> f32 {
        let Some(origin) = self.origin else {
            return 0.0;
        };
        let side = self.side;
        let lo = offset.map(|o| (o / 2).clamp(0, side));
        let hi = [0, 1].map(|a| ((offset[a] + quads[a]) / 2).clamp(0, side));
        let first_col = (origin[0] / 2 + lo[0]).rem_euclid(side);
        let mut worst = 0.0f32;
        for b in lo[1]..hi[1] {
            let row = &self.residual[((origin[1] / 2 + b).rem_euclid(side) * side) as usize..]
                [..side as usize];
            let mut col = first_col;
            for _ in lo[0]..hi[0] {
                worst = worst.max(row[col as usize]);
                col += 1;
                if col == side {
                    col = 0;
                }
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

    fn estimate(far: &FarGrid, cfg: &ClipmapConfig, level: u32, origin: [i64; 2]) -> LevelErrors {
        let mut e = LevelErrors::new(cfg, level).expect("coarse enough");
        e.update(far, origin);
        e
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
        let e = estimate(&plane, &cfg, 3, origin3);
        assert_eq!(e.piece_error([0, 0], quads), 0.0);
        let e5 = estimate(&plane, &cfg, 5, [6, 10]);
        assert_eq!(e5.piece_error([0, 0], quads), 0.0);
        assert!(LevelErrors::new(&cfg, 2).is_none());
        // A 6-unit spike at level-3 vertex (25, 45) = cell (100, 180): the
        // centre of the half-resolution quad at (4, 4) (offset 2 a, 2 b).
        let spike = grid(|x, y| if (x, y) == (100.0, 180.0) { 6.0 } else { 0.0 });
        let e = estimate(&spike, &cfg, 3, origin3);
        assert!((e.piece_error([0, 0], quads) - 6.0).abs() < 1e-6);
        assert!((e.piece_error([4, 4], [2, 2]) - 6.0).abs() < 1e-6);
        assert_eq!(e.piece_error([0, 0], [4, 34]), 0.0, "quads left of it");
        assert_eq!(e.piece_error([6, 0], [8, 34]), 0.0, "quads right of it");
        assert!((e.block_error([0, 0]).expect("block") - 6.0).abs() < 1e-6);
        assert_eq!(e.block_error([8, 0]), Some(0.0));
        assert_eq!(e.block_error([3, 0]), None, "not a block");
        // On an even vertex (24, 44) = cell (96, 176), the corner of four
        // quads: their odd neighbours are off by half of it.
        let even = grid(|x, y| if (x, y) == (96.0, 176.0) { 6.0 } else { 0.0 });
        let e = estimate(&even, &cfg, 3, origin3);
        assert!((e.piece_error([0, 0], quads) - 3.0).abs() < 1e-6);
        assert!((e.piece_error([2, 2], [2, 2]) - 3.0).abs() < 1e-6);
        assert!((e.piece_error([4, 4], [2, 2]) - 3.0).abs() < 1e-6);
        assert_eq!(e.piece_error([8, 8], [8, 8]), 0.0);
        // Level 5 (vertices every 16 cells, window from cell (96, 160)) does
        // not sample the spike at cell (100, 180).
        let e5 = estimate(&spike, &cfg, 5, [6, 10]);
        assert_eq!(e5.piece_error([0, 0], quads), 0.0);
    }

    /// Moving the window estimates only the half quads that entered it and
    /// ends with the same residuals as a fresh estimate, for small, large
    /// and diagonal moves.
    #[test]
    fn toroidal_update_matches_a_fresh_estimate() {
        let cfg = ClipmapConfig {
            block: 8,
            levels: 6,
        };
        let rough = grid(|x, y| {
            ((x * 0.37).sin() * 9.0 + (y * 0.11).cos() * 4.0 + (x * y * 1e-4).sin()) as f32
        });
        let mut moving = estimate(&rough, &cfg, 4, [20, 40]);
        for (step, to) in [[22, 40], [22, 44], [16, 38], [60, 90], [62, 92]]
            .into_iter()
            .enumerate()
        {
            let from = moving.origin().expect("estimated");
            let n = moving.update(&rough, to);
            let side = cfg.footprint() / 2;
            let (da, db) = (((to[0] - from[0]) / 2).abs(), ((to[1] - from[1]) / 2).abs());
            let entered = side * side - (side - da).max(0) * (side - db).max(0);
            assert_eq!(n as i64, entered, "move {step}");
            let fresh = estimate(&rough, &cfg, 4, to);
            for y in (0..cfg.footprint()).step_by(2) {
                for x in (0..cfg.footprint()).step_by(2) {
                    assert_eq!(
                        moving.piece_error([x, y], [2, 2]),
                        fresh.piece_error([x, y], [2, 2]),
                        "move {step}, quad ({x}, {y})"
                    );
                }
            }
            assert_eq!(moving.blocks, fresh.blocks, "move {step}");
        }
        assert_eq!(
            moving.update(&rough, [62, 92]),
            0,
            "no move, nothing estimated"
        );
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
