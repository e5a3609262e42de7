//! The CPU side of the level textures: one `N x N` texel mirror per level,
//! toroidally addressed (`texel = (I mod N, J mod N)`), updated incrementally
//! when a level moves (only the columns and rows that entered the window are
//! sampled and reported dirty), plus the CPU reference of the vertex stage's
//! sampling (`clip_sample`, `clip_coarse` in `clipmap_level.wgsl`).
//!
//! Level 0 holds the exact surface sampled at its vertices (MCVT outer,
//! centre and mid-edge vertices): `World::height_at` bit for bit. Levels
//! `l >= 1` are prefiltered from the surface at the finer lattice (the
//! finer level's vertex positions) by [`TerrainSampler::prefiltered`]: the
//! point sample plus the binomial average of the interpolation residuals
//! around it, which removes the chord bias of point sampling; a level still
//! never needs the finer one to be resident (the finer lattice is sampled
//! from the same sources). [`LevelFilter::Point`] keeps the plain point
//! samples as the reference the filter is measured against.

use std::ops::Range;

use super::layout::{morph_weight, ClipmapConfig, LevelPlacement};
use super::source::TerrainSampler;

/// One level's texels and where they are.
#[derive(Debug, Clone)]
pub struct LevelTexels {
    /// Min corner of the texel window in level units (`None`: never filled).
    pub origin: Option<[i64; 2]>,
    /// `N * N` texels, row-major by texture y (`J mod N`).
    pub texels: Vec<[f32; 4]>,
    /// Lowest and highest height held.
    pub z_range: [f32; 2],
}

/// Texture regions a level update wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirtyRegion {
    /// Level (array layer).
    pub level: u32,
    /// Texel x range (columns), full height.
    pub columns: Vec<Range<u32>>,
    /// Texel y range (rows), full width.
    pub rows: Vec<Range<u32>>,
}

/// How the texels of levels >= 1 are made from the surface (level 0 is
/// always the exact point sample).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LevelFilter {
    /// Point samples of the surface at the level's vertices (kept as the
    /// reference the prefilter is measured against).
    Point,
    /// Point sample plus the binomial average of the interpolation
    /// residuals at the finer lattice ([`TerrainSampler::prefiltered`]).
    #[default]
    Residual,
}

/// Every level's texels.
#[derive(Debug, Clone)]
pub struct LevelStore {
    cfg: ClipmapConfig,
    filter: LevelFilter,
    n: i64,
    levels: Vec<LevelTexels>,
    /// Texels sampled by the last update (diagnostics and tests).
    pub last_sampled: usize,
}

fn wrap(v: i64, n: i64) -> usize {
    v.rem_euclid(n) as usize
}

/// Contiguous runs of texel indices.
fn runs(mut xs: Vec<u32>) -> Vec<Range<u32>> {
    xs.sort_unstable();
    xs.dedup();
    let mut out: Vec<Range<u32>> = Vec::new();
    for x in xs {
        match out.last_mut() {
            Some(r) if r.end == x => r.end += 1,
            _ => out.push(x..x + 1),
        }
    }
    out
}

impl LevelStore {
    /// Empty levels for `cfg`, prefiltered ([`LevelFilter::Residual`]).
    pub fn new(cfg: ClipmapConfig) -> Self {
        Self::with_filter(cfg, LevelFilter::default())
    }

    /// Empty levels for `cfg` made with `filter`.
    pub fn with_filter(cfg: ClipmapConfig, filter: LevelFilter) -> Self {
        let n = i64::from(cfg.texels());
        let empty = LevelTexels {
            origin: None,
            texels: vec![[0.0, 0.0, 0.0, 1.0]; (n * n) as usize],
            z_range: [0.0, 0.0],
        };
        LevelStore {
            cfg,
            filter,
            n,
            levels: vec![empty; cfg.levels as usize],
            last_sampled: 0,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ClipmapConfig {
        &self.cfg
    }

    /// The texels of `level`.
    pub fn level(&self, level: u32) -> &LevelTexels {
        &self.levels[level as usize]
    }

    /// Moves every level to its placement, sampling the texels that entered
    /// its window; returns the texture regions to upload.
    pub fn update(
        &mut self,
        places: &[LevelPlacement],
        sampler: &TerrainSampler,
    ) -> Vec<DirtyRegion> {
        let n = self.n;
        let mut dirty = Vec::new();
        self.last_sampled = 0;
        for (l, (lvl, place)) in self.levels.iter_mut().zip(places).enumerate() {
            let new = place.origin;
            if lvl.origin == Some(new) {
                continue;
            }
            let filter = self.filter;
            let fill = |i: i64, j: i64, texels: &mut Vec<[f32; 4]>| {
                texels[wrap(j, n) * n as usize + wrap(i, n)] = match filter {
                    LevelFilter::Point => {
                        let scale = f64::from(1u32 << l) * 0.5; // level units -> cells
                        sampler.sample(i as f64 * scale, j as f64 * scale)
                    }
                    LevelFilter::Residual => sampler.prefiltered(l as u32, i, j),
                };
            };
            let (cols, rows): (Vec<i64>, Vec<i64>);
            let keep_i: Range<i64>;
            match lvl.origin {
                Some(old) if (new[0] - old[0]).abs() < n && (new[1] - old[1]).abs() < n => {
                    let inside = |v: i64, o: i64| v >= o && v < o + n;
                    cols = (new[0]..new[0] + n)
                        .filter(|&i| !inside(i, old[0]))
                        .collect();
                    rows = (new[1]..new[1] + n)
                        .filter(|&j| !inside(j, old[1]))
                        .collect();
                    keep_i = new[0].max(old[0])..(new[0] + n).min(old[0] + n);
                }
                _ => {
                    cols = (new[0]..new[0] + n).collect();
                    rows = Vec::new();
                    keep_i = 0..0;
                }
            }
            for &i in &cols {
                for j in new[1]..new[1] + n {
                    fill(i, j, &mut lvl.texels);
                }
            }
            for &j in &rows {
                for i in keep_i.clone() {
                    fill(i, j, &mut lvl.texels);
                }
            }
            self.last_sampled += cols.len() * n as usize + rows.len() * keep_i.clone().count();
            lvl.origin = Some(new);
            lvl.z_range = lvl
                .texels
                .iter()
                .fold([f32::INFINITY, f32::NEG_INFINITY], |r, t| {
                    [r[0].min(t[0]), r[1].max(t[0])]
                });
            dirty.push(DirtyRegion {
                level: l as u32,
                columns: runs(cols.iter().map(|&i| wrap(i, n) as u32).collect()),
                rows: runs(rows.iter().map(|&j| wrap(j, n) as u32).collect()),
            });
        }
        dirty
    }

    /// Raw texel of `level` at its vertex `(i, j)` (WGSL `clip_texel`).
    pub fn texel(&self, level: u32, i: i64, j: i64) -> [f32; 4] {
        let n = self.n;
        self.levels[level as usize].texels[wrap(j, n) * n as usize + wrap(i, n)]
    }

    /// Coarse level `level` at finer vertex `(i, j)` (WGSL `clip_coarse`).
    pub fn coarse(&self, level: u32, i: i64, j: i64) -> [f32; 4] {
        let (ci, cj) = (i.div_euclid(2), j.div_euclid(2));
        let (oi, oj) = (i.rem_euclid(2), j.rem_euclid(2));
        let t = |a: i64, b: i64| self.texel(level, a, b);
        let half = |a: [f32; 4], b: [f32; 4]| std::array::from_fn(|k| 0.5 * (a[k] + b[k]));
        let a = t(ci, cj);
        match (oi, oj) {
            (0, 0) => a,
            (1, 0) => half(a, t(ci + 1, cj)),
            (0, _) => half(a, t(ci, cj + 1)),
            _ if (ci + cj).rem_euclid(2) == 0 => half(a, t(ci + 1, cj + 1)),
            _ => half(t(ci + 1, cj), t(ci, cj + 1)),
        }
    }

    /// Morphed `(height, normal)` of vertex `(i, j)` of `level` for a camera
    /// at `cam_l` in level units (WGSL `clip_sample`).
    pub fn clip_sample(&self, level: u32, cam_l: [f32; 2], i: i64, j: i64) -> [f32; 4] {
        let fine = self.texel(level, i, j);
        let a = morph_weight(&self.cfg, level, cam_l, i, j);
        if a <= 0.0 {
            return fine;
        }
        let c = self.coarse(level + 1, i, j);
        std::array::from_fn(|k| (1.0 - a) * fine[k] + a * c[k])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::clipmap::layout::place_levels;
    use crate::terrain::testutil::cliff_world;
    use sward_scenes::world::coords::world_to_grid;

    /// Moving the camera re-samples only the entering columns/rows, and the
    /// result equals a fresh fill at the new position.
    #[test]
    fn toroidal_update_matches_a_fresh_fill() {
        let world = cliff_world();
        let sampler = TerrainSampler::new(&world, None);
        let cfg = ClipmapConfig {
            block: 8,
            levels: 3,
        };
        let (m_chunk, _) = world.mcnks().nth(120).expect("MCNK");
        let [x, y] = m_chunk.origin();
        let (gx, gy) = world_to_grid(x, y);
        let cam = |dx: f64, dy: f64| [2.0 * (gx + dx), 2.0 * (gy + dy)];
        let mut moving = LevelStore::new(cfg);
        moving.update(&place_levels(&cfg, cam(0.0, 0.0)), &sampler);
        let full = moving.last_sampled;
        assert_eq!(full, 3 * (cfg.texels() * cfg.texels()) as usize);
        let places = place_levels(&cfg, cam(3.1, -1.7));
        let dirty = moving.update(&places, &sampler);
        assert!(moving.last_sampled > 0 && moving.last_sampled < full / 4);
        assert!(dirty
            .iter()
            .all(|d| d.columns.len() <= 2 && d.rows.len() <= 2));
        let mut fresh = LevelStore::new(cfg);
        fresh.update(&places, &sampler);
        for l in 0..3 {
            assert_eq!(moving.level(l).texels, fresh.level(l).texels, "level {l}");
            assert_eq!(moving.level(l).z_range, fresh.level(l).z_range);
        }
        // Level-0 texels are the exact reference at their vertex.
        let o = places[0].origin;
        for (i, j) in [(o[0], o[1]), (o[0] + 5, o[1] + 8), (o[0] + 33, o[1] + 1)] {
            let (x, y) = sward_scenes::world::coords::grid_to_world(i as f64 / 2.0, j as f64 / 2.0);
            assert_eq!(Some(moving.texel(0, i, j)[0]), world.height_at(x, y));
        }
    }

    #[test]
    fn coarse_values_lie_on_coarse_edges() {
        let world = cliff_world();
        let sampler = TerrainSampler::new(&world, None);
        let cfg = ClipmapConfig {
            block: 8,
            levels: 2,
        };
        let (m_chunk, _) = world.mcnks().nth(77).expect("MCNK");
        let [x, y] = m_chunk.origin();
        let (gx, gy) = world_to_grid(x, y);
        let mut s = LevelStore::new(cfg);
        s.update(&place_levels(&cfg, [2.0 * gx, 2.0 * gy]), &sampler);
        let (ci, cj) = ((gx as i64) + 2, (gy as i64) + 3);
        let (a, b) = (s.texel(1, ci, cj)[0], s.texel(1, ci + 1, cj)[0]);
        assert_eq!(s.coarse(1, 2 * ci, 2 * cj)[0], a);
        assert_eq!(s.coarse(1, 2 * ci + 1, 2 * cj)[0], 0.5 * (a + b));
    }
}
