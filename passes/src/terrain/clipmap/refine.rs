//! Local refinement of coarse levels: which tiles are drawn on the finer
//! lattice, and the CPU model of what they draw (the WGSL mirrors are
//! `clip_refine_weight`, `clip_sample`, `clip_surface` and `clip_refined` in
//! `clipmap_level.wgsl`; the cull's `part_refine` picks the parts).
//!
//! A level of spacing `s` draws the surface with linear quads of side `s`;
//! where a quad straddles a cliff narrower than itself no choice of vertex
//! heights brings it within a few units of the exact surface (see the
//! accuracy notes in docs/techniques/clipmap.md). Refinement draws such
//! places of level `l >= 1` at the finer level's spacing instead:
//!
//! * **Tiles.** Level `l` is cut into world-aligned tiles of [`TILE`] x
//!   [`TILE`] quads (tile `(A, B)` holds the quads `[4A, 4A + 4) x [4B, 4B +
//!   4)` of the level's global lattice, the same cut as the cull's height
//!   tiles). A tile is *flagged* when the level's own (unmorphed,
//!   prefiltered) surface over it misses `World::height_at` by more than the
//!   bound at any of `sub x sub` points per quad. The lattice and the texel
//!   values do not depend on the camera, so the flags are a property of the
//!   resident world: [`RefineMask::bake`] computes them once per residency.
//! * **Refined heights.** Over a flagged tile the level is drawn on the
//!   finer lattice (level `l - 1`'s vertices, its diagonals), a vertex `x`
//!   at `r(x) h_f(x) + (1 - r(x)) S(x)` before the geomorph, where `h_f` is
//!   level `l - 1`'s prefiltered texel value at `x` (the exact surface for
//!   `l = 1`) and `S` is the level's own (morphed) surface at `x`. The
//!   geomorph then blends `h_f` towards `S` with the level's weight at `x`,
//!   so at the outer boundary (weight 1) the refined surface is the coarser
//!   level's, as an unrefined one is.
//! * **No cracks.** `r(x) = 1` only when every tile whose closure holds `x`
//!   is flagged; elsewhere the refined vertex lies on `S`, i.e. on the
//!   edges an unrefined neighbour draws. Because the finer lattice's
//!   diagonals nest inside the coarse ones, a refined quad whose vertices
//!   all have `r = 0` draws exactly the coarse surface: whether a quad of an
//!   unflagged tile is drawn coarse or finely does not change the picture.
//! * **The finer level.** Level `l - 1`'s outer band morphs towards what
//!   level `l` draws: at a vertex with `r = 1` that is `h_f`, its own texel,
//!   so there it does not morph at all ([`morphed`]), and its outer edge
//!   meets the refined tile vertex for vertex (level `l`'s weight is 0 that
//!   close to its hole). Elsewhere it morphs as without refinement.
//! * **The resident edge.** Tiles beyond the resident world have nothing to
//!   compare with; one that touches a flagged resident tile is flagged too,
//!   so the resident tile's vertices on the edge keep `r = 1` (the error is
//!   measured against the resident world only).

use sward_scenes::world::coords::grid_to_world;
use sward_scenes::World;

use super::gpu::FillJob;
use super::layout::{morph_weight_at, ClipmapConfig, MAX_LEVELS};
use super::mesh::{main_diagonal, quad_height};
use super::source::TerrainSampler;
use super::store::LevelStore;

/// Quads per refinement tile side (as the cull's height tiles).
pub const TILE: i64 = 4;

/// The refinement bound (world units) the accuracy figures use and the
/// `clipmap` tier's `refine` parameter defaults to: the largest height
/// error a coarse level may draw outside its morph band before its tile is
/// drawn on the finer lattice.
pub const BOUND: f64 = 2.0;

/// Flags of one level's tiles over the resident world.
#[derive(Debug, Clone, Default)]
struct LevelMask {
    /// First tile `(A, B)` of the rectangle.
    origin: [i64; 2],
    /// Tiles per side.
    size: [i64; 2],
    /// Row-major flags.
    flags: Vec<bool>,
    /// Row-major, for flagged tiles: how far the finer level's texels at
    /// the tile's finer-lattice vertices lie from the level's own surface
    /// there (the cull widens a refined part's height range by it).
    slack: Vec<f32>,
    /// The flagged tiles `(A, B)`.
    flagged: Vec<[i64; 2]>,
}

impl LevelMask {
    /// Lists the flagged tiles again (after the flags changed).
    fn relist(&mut self) {
        self.flagged = self
            .flags
            .iter()
            .enumerate()
            .filter(|(_, f)| **f)
            .map(|(k, _)| {
                let k = k as i64;
                [
                    self.origin[0] + k % self.size[0],
                    self.origin[1] + k / self.size[0],
                ]
            })
            .collect();
    }
}

impl LevelMask {
    fn get(&self, a: i64, b: i64) -> bool {
        let (x, y) = (a - self.origin[0], b - self.origin[1]);
        if x < 0 || y < 0 || x >= self.size[0] || y >= self.size[1] {
            return false;
        }
        self.flags[(y * self.size[0] + x) as usize]
    }
}

/// Which tiles of which level are drawn on the finer lattice.
#[derive(Debug, Clone, Default)]
pub struct RefineMask {
    /// Error bound (world units) a tile must exceed to be flagged.
    pub bound: f64,
    /// Per level (index = level; level 0 never refines, its entry is empty).
    levels: Vec<LevelMask>,
}

/// Counts of a bake.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RefineCounts {
    /// Tiles examined (over every level >= 1).
    pub tiles: u64,
    /// Tiles flagged.
    pub flagged: u64,
    /// Flagged resident tiles over which the finer level's surface itself
    /// still misses the exact heights by more than the bound (one step of
    /// refinement is not enough there).
    pub unmet: u64,
}

impl RefineMask {
    /// Flags, for levels `1..cfg.levels`, every tile over the resident world
    /// whose unrefined surface (prefiltered texels from `sampler`, the
    /// meshes' diagonals) misses `World::height_at` by more than `bound` at
    /// one of `sub x sub` points per quad (holes skipped). `bound <= 0`
    /// flags nothing. Samples on every core ([`Self::bake_on`]).
    pub fn bake(
        sampler: &TerrainSampler,
        cfg: &ClipmapConfig,
        bound: f64,
        sub: u32,
    ) -> (Self, RefineCounts) {
        Self::bake_on(sampler, cfg, bound, sub, cores())
    }

    /// [`Self::bake`] on `threads` threads (one for a bake in the
    /// background, leaving the other cores to the frame).
    pub fn bake_on(
        sampler: &TerrainSampler,
        cfg: &ClipmapConfig,
        bound: f64,
        sub: u32,
        threads: usize,
    ) -> (Self, RefineCounts) {
        let world = sampler.world();
        let mut mask = RefineMask {
            bound,
            levels: vec![LevelMask::default(); cfg.levels as usize],
        };
        let mut counts = RefineCounts::default();
        let Some([x0, y0, x1, y1]) = resident_cells(world) else {
            return (mask, counts);
        };
        if bound <= 0.0 {
            return (mask, counts);
        }
        let sub = sub.max(1);
        for l in 1..cfg.levels {
            let scale = f64::from(1u32 << l) * 0.5; // level units -> cells

            // Tiles whose quads overlap the resident cells, and one more
            // around them.
            let quad = |c: f64| (c / scale).floor() as i64;
            let a0 = quad(x0).div_euclid(TILE) - 1;
            let b0 = quad(y0).div_euclid(TILE) - 1;
            let a1 = (quad(x1) - 1).div_euclid(TILE) + 1;
            let b1 = (quad(y1) - 1).div_euclid(TILE) + 1;
            let size = [a1 - a0 + 1, b1 - b0 + 1];
            // Texel heights of the rectangle's vertices, computed once.
            let (vi0, vj0) = (a0 * TILE, b0 * TILE);
            let vw = size[0] * TILE + 1;
            let vh = size[1] * TILE + 1;
            let texels = par_map((vw * vh) as usize, threads, |k| {
                let (i, j) = (k as i64 % vw, k as i64 / vw);
                sampler.prefiltered_height(l, vi0 + i, vj0 + j)
            });
            let texel = |i: i64, j: i64| texels[((j - vj0) * vw + (i - vi0)) as usize];
            // Per tile: its largest error, and whether it holds a resident
            // point at all.
            let tiles = par_map((size[0] * size[1]) as usize, threads, |k| {
                let (a, b) = (a0 + k as i64 % size[0], b0 + k as i64 / size[0]);
                let mut worst = 0.0f64;
                let mut compared = false;
                for qj in b * TILE..(b + 1) * TILE {
                    for qi in a * TILE..(a + 1) * TILE {
                        let h = [(0, 0), (1, 0), (0, 1), (1, 1)]
                            .map(|(di, dj)| texel(qi + di, qj + dj));
                        let main = main_diagonal(qi, qj);
                        for_points(sub, |u, v| {
                            let (gx, gy) = ((qi as f64 + u) * scale, (qj as f64 + v) * scale);
                            if let Some(exact) = exact_height(world, gx, gy) {
                                let e = quad_height(h, main, u, v) - exact;
                                worst = worst.max(e.abs());
                                compared = true;
                            }
                        });
                    }
                }
                (worst, compared)
            });
            let flags: Vec<bool> = tiles.iter().map(|&(worst, _)| worst > bound).collect();
            let resident: Vec<bool> = tiles.iter().map(|&(_, compared)| compared).collect();
            // Beyond the resident world: flagged next to a flagged tile.
            let at = |x: i64, y: i64| (y * size[0] + x) as usize;
            let grown: Vec<bool> = (0..size[1])
                .flat_map(|y| (0..size[0]).map(move |x| (x, y)))
                .map(|(x, y)| {
                    if resident[at(x, y)] {
                        return flags[at(x, y)];
                    }
                    (-1..=1).any(|dy| {
                        (-1..=1).any(|dx| {
                            let (nx, ny) = (x + dx, y + dy);
                            (0..size[0]).contains(&nx)
                                && (0..size[1]).contains(&ny)
                                && resident[at(nx, ny)]
                                && flags[at(nx, ny)]
                        })
                    })
                })
                .collect();
            let flags = grown;
            // The refined heights' distance from the level's own surface.
            let own = |fi: i64, fj: i64| {
                let (ci, cj) = (fi.div_euclid(2), fj.div_euclid(2));
                let t = |a: i64, b: i64| f64::from(texel(a, b));
                match (fi.rem_euclid(2), fj.rem_euclid(2)) {
                    (0, 0) => t(ci, cj),
                    (1, 0) => 0.5 * (t(ci, cj) + t(ci + 1, cj)),
                    (0, _) => 0.5 * (t(ci, cj) + t(ci, cj + 1)),
                    _ if main_diagonal(ci, cj) => 0.5 * (t(ci, cj) + t(ci + 1, cj + 1)),
                    _ => 0.5 * (t(ci + 1, cj) + t(ci, cj + 1)),
                }
            };
            let slack = (0..size[1])
                .flat_map(|y| (0..size[0]).map(move |x| (x, y)))
                .map(|(x, y)| {
                    if !flags[at(x, y)] {
                        return 0.0;
                    }
                    let (fa, fb) = (2 * TILE * (a0 + x), 2 * TILE * (b0 + y));
                    let mut most = 0.0f64;
                    for fj in fb..=fb + 2 * TILE {
                        for fi in fa..=fa + 2 * TILE {
                            let finer = f64::from(sampler.prefiltered_height(l - 1, fi, fj));
                            most = most.max((finer - own(fi, fj)).abs());
                        }
                    }
                    // A little over, for the f32 rounding of the GPU's values.
                    (most * 1.001 + 1e-3) as f32
                })
                .collect();
            // Flagged resident tiles the finer lattice does not bring within
            // the bound either (its surface: the finer level's texels).
            let half = scale * 0.5;
            for (k, _) in flags
                .iter()
                .enumerate()
                .filter(|(k, f)| **f && resident[*k])
            {
                let (x, y) = (k as i64 % size[0], k as i64 / size[0]);
                let (fa, fb) = (2 * TILE * (a0 + x), 2 * TILE * (b0 + y));
                let mut worst = 0.0f64;
                for fj in fb..fb + 2 * TILE {
                    for fi in fa..fa + 2 * TILE {
                        let h = [(0, 0), (1, 0), (0, 1), (1, 1)]
                            .map(|(di, dj)| sampler.prefiltered_height(l - 1, fi + di, fj + dj));
                        let main = main_diagonal(fi, fj);
                        for_points(sub, |u, v| {
                            let (gx, gy) = ((fi as f64 + u) * half, (fj as f64 + v) * half);
                            if let Some(exact) = exact_height(world, gx, gy) {
                                worst = worst.max((quad_height(h, main, u, v) - exact).abs());
                            }
                        });
                    }
                }
                counts.unmet += u64::from(worst > bound);
            }
            counts.tiles += flags.len() as u64;
            counts.flagged += flags.iter().filter(|&&f| f).count() as u64;
            let mut level = LevelMask {
                origin: [a0, b0],
                size,
                flags,
                slack,
                flagged: Vec::new(),
            };
            level.relist();
            mask.levels[l as usize] = level;
        }
        (mask, counts)
    }

    /// Whether tile `(a, b)` of `level` is flagged.
    pub fn flagged(&self, level: u32, a: i64, b: i64) -> bool {
        self.levels.get(level as usize).is_some_and(|m| m.get(a, b))
    }

    /// Whether no tile of any level is flagged.
    pub fn is_empty(&self) -> bool {
        self.levels.iter().all(|m| m.flagged.is_empty())
    }

    /// A mask (tests) flagging `flagged` (tiles `(A, B)` in `0..8`) of
    /// `level` and nothing else.
    #[cfg(test)]
    pub(crate) fn with_flags(level: u32, flagged: &[(i64, i64)]) -> RefineMask {
        let mut m = RefineMask {
            bound: 1.0,
            levels: vec![LevelMask::default(); level as usize + 1],
        };
        m.levels[level as usize] = LevelMask {
            origin: [0, 0],
            size: [8, 8],
            flags: (0..64).map(|k| flagged.contains(&(k % 8, k / 8))).collect(),
            slack: vec![0.0; 64],
            flagged: Vec::new(),
        };
        m.levels[level as usize].relist();
        m
    }

    /// Cell rectangles (`[x0, y0, x1, y1]`, global grid cells, bounds
    /// included) of the tiles flagged in `self` or in `other` but not in
    /// both. A texel's flag (the coarser level's `r` at its vertex, see
    /// [`Self::weight`]) reads only the tiles whose closure holds the
    /// vertex, so every texel whose flag differs between the two masks lies
    /// in one of these rectangles.
    pub fn changed_cells(&self, other: &RefineMask) -> Vec<[i64; 4]> {
        self.changed_tiles(other)
            .into_iter()
            .map(|(l, ta, tb)| {
                // Cells per tile side: TILE level quads of 2^l / 2 cells.
                let side = TILE << (l - 1);
                [ta * side, tb * side, (ta + 1) * side, (tb + 1) * side]
            })
            .collect()
    }

    /// The tiles `(level, A, B)` flagged in `self` or in `other` but not in
    /// both.
    pub fn changed_tiles(&self, other: &RefineMask) -> Vec<(u32, i64, i64)> {
        let levels = self.levels.len().max(other.levels.len());
        let mut out = Vec::new();
        for l in 1..levels {
            for (a, b) in [(self, other), (other, self)] {
                let Some(m) = a.levels.get(l) else {
                    continue;
                };
                for &[ta, tb] in &m.flagged {
                    if !b.flagged(l as u32, ta, tb) {
                        out.push((l as u32, ta, tb));
                    }
                }
            }
        }
        out
    }

    /// Tiles flagged over every level.
    pub fn flagged_count(&self) -> usize {
        self.levels
            .iter()
            .map(|m| m.flags.iter().filter(|&&f| f).count())
            .sum()
    }

    /// Keeps the first `max` flagged tiles (by level, then row), clears the
    /// others' flags; returns how many were cleared.
    pub fn limit(&mut self, max: usize) -> usize {
        let mut kept = 0;
        let mut dropped = 0;
        for m in &mut self.levels {
            for (f, s) in m.flags.iter_mut().zip(&mut m.slack) {
                if *f {
                    if kept < max {
                        kept += 1;
                    } else {
                        *f = false;
                        *s = 0.0;
                        dropped += 1;
                    }
                }
            }
            m.relist();
        }
        dropped
    }

    /// Slack of tile `(a, b)` of `level` (0 when not flagged).
    pub fn slack(&self, level: u32, a: i64, b: i64) -> f32 {
        let Some(m) = self.levels.get(level as usize) else {
            return 0.0;
        };
        let (x, y) = (a - m.origin[0], b - m.origin[1]);
        if x < 0 || y < 0 || x >= m.size[0] || y >= m.size[1] {
            return 0.0;
        }
        m.slack[(y * m.size[0] + x) as usize]
    }

    /// Whether any flagged tile of `level` holds a quad of the rectangle
    /// `lo .. hi` (level units): a walk over the level's flagged tiles, for
    /// large rectangles ([`Self::rect`] walks the rectangle's tiles).
    pub fn any_flagged(&self, level: u32, lo: [i64; 2], hi: [i64; 2]) -> bool {
        let Some(m) = self.levels.get(level as usize) else {
            return false;
        };
        let [along_a, along_b] = tile_span(lo, hi);
        m.flagged
            .iter()
            .any(|[a, b]| along_a.contains(a) && along_b.contains(b))
    }

    /// Whether any flagged tile of `level` holds a quad of the rectangle
    /// `lo .. hi` (level units), and the largest slack of those.
    pub fn rect(&self, level: u32, lo: [i64; 2], hi: [i64; 2]) -> Option<f32> {
        let mut out: Option<f32> = None;
        let [along_a, along_b] = tile_span(lo, hi);
        for b in along_b {
            for a in along_a.clone() {
                if self.flagged(level, a, b) {
                    let s = self.slack(level, a, b);
                    out = Some(out.map_or(s, |o| o.max(s)));
                }
            }
        }
        out
    }

    /// The GPU form of the mask for levels of `cfg`: the index texture,
    /// each level's rectangle in it, and the fill jobs that write each
    /// flagged tile's finer-level texels into its pool slot (array layers
    /// after the levels', [`SLOT`] x [`SLOT`] texels per slot).
    pub fn gpu(&self, cfg: &ClipmapConfig) -> RefineGpu {
        let per_row = slots_per_row(cfg);
        let per_page = per_row * per_row;
        let width = self
            .levels
            .iter()
            .map(|m| m.size[0])
            .max()
            .unwrap_or(0)
            .max(1) as u32;
        let mut rects = [[0i32; 4]; MAX_LEVELS as usize];
        let mut index = Vec::new();
        let mut jobs = Vec::new();
        let mut row = 0u32;
        let mut slot = 0u32;
        for (l, m) in self.levels.iter().enumerate().take(cfg.levels as usize) {
            if m.flags.iter().all(|f| !f) || l == 0 {
                continue;
            }
            rects[l] = [
                m.origin[0] as i32,
                m.origin[1] as i32,
                (m.size[0] as i32) | ((m.size[1] as i32) << 16),
                row as i32,
            ];
            for y in 0..m.size[1] {
                let mut line = vec![[0u32; 2]; width as usize];
                for x in 0..m.size[0] {
                    let k = (y * m.size[0] + x) as usize;
                    if !m.flags[k] {
                        continue;
                    }
                    line[x as usize] = [slot + 1, m.slack[k].to_bits()];
                    let page = slot / per_page;
                    let s = slot % per_page;
                    let (a, b) = (m.origin[0] + x, m.origin[1] + y);
                    jobs.push(FillJob {
                        origin: [(2 * TILE * a) as i32, (2 * TILE * b) as i32],
                        size: [SLOT as u32; 2],
                        level: l as u32 - 1,
                        dest: [
                            cfg.levels + page,
                            (s % per_row) * SLOT as u32,
                            (s / per_row) * SLOT as u32,
                        ],
                    });
                    slot += 1;
                }
                index.extend(line);
            }
            row += m.size[1] as u32;
        }
        let size = if index.is_empty() {
            index.push([0; 2]);
            [1, 1]
        } else {
            [width, row]
        };
        RefineGpu {
            size,
            index,
            rects,
            jobs,
            pages: slot.div_ceil(per_page),
        }
    }

    /// Whether the level-`level` quad with min corner `(qi, qj)` lies in a
    /// flagged tile.
    pub fn quad_flagged(&self, level: u32, qi: i64, qj: i64) -> bool {
        self.flagged(level, qi.div_euclid(TILE), qj.div_euclid(TILE))
    }

    /// `r(x)` of the finer-lattice vertex `(fi, fj)` (level `level - 1`
    /// units) of `level`: whether every tile whose closure holds it is
    /// flagged.
    pub fn weight(&self, level: u32, fi: i64, fj: i64) -> bool {
        // Tiles are 2 * TILE fine units wide; a vertex on a tile edge
        // touches the tiles on both sides.
        let w = 2 * TILE;
        let span = |v: i64| {
            let t = v.div_euclid(w);
            if v.rem_euclid(w) == 0 {
                t - 1..=t
            } else {
                t..=t
            }
        };
        span(fi).all(|a| span(fj).all(|b| self.flagged(level, a, b)))
    }
}

/// The finer level's vertices `lo ..= hi` (level `level - 1` units) that
/// carry the flags tile `(a, b)` of `level` sets: the tile's closure on the
/// finer lattice.
pub fn tile_flag_vertices(level: u32, a: i64, b: i64) -> (u32, [i64; 2], [i64; 2]) {
    let w = 2 * TILE;
    (level - 1, [a * w, b * w], [(a + 1) * w, (b + 1) * w])
}

/// Texels per side of a pool slot: a tile's finer-lattice vertices but its
/// last row and column (which are the next tile's first).
pub const SLOT: i64 = 2 * TILE;

/// Pool slots per row of a page (a level-sized array layer) for `cfg`.
pub fn slots_per_row(cfg: &ClipmapConfig) -> u32 {
    (cfg.texels() / SLOT as u32).max(1)
}

/// Pool slots per page for `cfg`.
pub fn slots_per_page(cfg: &ClipmapConfig) -> usize {
    (slots_per_row(cfg) as usize).pow(2)
}

/// The tiles `(A, B)` holding a quad of the rectangle `lo .. hi` (level
/// units; an empty rectangle counts as its first quad).
fn tile_span(lo: [i64; 2], hi: [i64; 2]) -> [std::ops::RangeInclusive<i64>; 2] {
    [0, 1].map(|k| lo[k].div_euclid(TILE)..=(hi[k] - 1).max(lo[k]).div_euclid(TILE))
}

/// The refinement data the GPU reads ([`RefineMask::gpu`]).
#[derive(Debug, Clone, PartialEq)]
pub struct RefineGpu {
    /// `Rg32Uint` texels, row-major: slot + 1 (0: not refined) and the
    /// slack's bits, each level's rectangle below the previous one's.
    pub index: Vec<[u32; 2]>,
    /// Index texture width and height (at least 1 x 1).
    pub size: [u32; 2],
    /// Per level (WGSL `ClipmapParams::refine`): first tile (A, B), tiles
    /// along A and B (bits 0-15 and 16-31), first row; zero: none.
    pub rects: [[i32; 4]; MAX_LEVELS as usize],
    /// Fill jobs writing the pool slots.
    pub jobs: Vec<FillJob>,
    /// Pool pages (array layers after the levels').
    pub pages: u32,
}

/// The resident MCNKs' bounding rectangle in grid cells `[x0, y0, x1, y1]`.
pub fn resident_cells(world: &World) -> Option<[f64; 4]> {
    let cells = f64::from(sward_scenes::world::coords::CHUNK_CELLS);
    world.mcnks().fold(None, |r: Option<[f64; 4]>, (c, _)| {
        let (x0, y0) = (f64::from(c.x) * cells, f64::from(c.y) * cells);
        Some(match r {
            None => [x0, y0, x0 + cells, y0 + cells],
            Some(r) => [
                r[0].min(x0),
                r[1].min(y0),
                r[2].max(x0 + cells),
                r[3].max(y0 + cells),
            ],
        })
    })
}

/// The machine's cores (at least 1).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |p| p.get())
}

/// `f(k)` for `k` in `0..n`, in order, split over `threads` threads (the
/// bake samples millions of points on a large resident world).
fn par_map<T: Send>(n: usize, threads: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = threads.clamp(1, 16).min(n.max(1));
    if threads <= 1 {
        return (0..n).map(f).collect();
    }
    let chunk = n.div_ceil(threads);
    std::thread::scope(|s| {
        let f = &f;
        let parts: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    (t * chunk..((t + 1) * chunk).min(n))
                        .map(f)
                        .collect::<Vec<T>>()
                })
            })
            .collect();
        parts
            .into_iter()
            .flat_map(|p| p.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// `f(u, v)` at the `sub x sub` cell-centred points of a unit quad.
fn for_points(sub: u32, mut f: impl FnMut(f64, f64)) {
    for sj in 0..sub {
        for si in 0..sub {
            let u = (f64::from(si) + 0.5) / f64::from(sub);
            let v = (f64::from(sj) + 0.5) / f64::from(sub);
            f(u, v);
        }
    }
}

/// `World::height_at` at grid `(gx, gy)` cells, `None` in holes and outside
/// the resident world.
pub(super) fn exact_height(world: &World, gx: f64, gy: f64) -> Option<f64> {
    let (x, y) = grid_to_world(gx, gy);
    // `World::is_hole` and `World::height_at` with one look-up.
    let (at, mcnk) = world.locate(x, y)?;
    if mcnk.header.is_hole(at.cell.row, at.cell.col) {
        return None;
    }
    Some(f64::from(mcnk.height_at_world(x, y)))
}

/// The surface `level` draws at finer-lattice vertex `(fi, fj)` (level
/// `level - 1` units) from the morphed vertex heights of `store`: the vertex
/// itself, an edge midpoint, or the midpoint of the diagonal the meshes draw
/// (`S(x)` above).
pub fn level_surface(
    mask: &RefineMask,
    store: &LevelStore,
    level: u32,
    cam_l: [f32; 2],
    fi: i64,
    fj: i64,
) -> f32 {
    let (ci, cj) = (fi.div_euclid(2), fj.div_euclid(2));
    let s = |a: i64, b: i64| morphed(mask, store, level, cam_l, a, b);
    let a = s(ci, cj);
    match (fi.rem_euclid(2), fj.rem_euclid(2)) {
        (0, 0) => a,
        (1, 0) => 0.5 * (a + s(ci + 1, cj)),
        (0, _) => 0.5 * (a + s(ci, cj + 1)),
        _ if main_diagonal(ci, cj) => 0.5 * (a + s(ci + 1, cj + 1)),
        _ => 0.5 * (s(ci + 1, cj) + s(ci, cj + 1)),
    }
}

/// The morphed height of vertex `(i, j)` of `level` when the coarser level
/// may be refined: where that level draws this vertex on its finer lattice
/// (`r = 1` there) its surface at the vertex is this level's own texel, so
/// the vertex does not morph; elsewhere it morphs towards the coarser
/// level's surface as without refinement (`LevelStore::clip_sample`).
pub fn morphed(
    mask: &RefineMask,
    store: &LevelStore,
    level: u32,
    cam_l: [f32; 2],
    i: i64,
    j: i64,
) -> f32 {
    if mask.weight(level + 1, i, j) {
        store.texel(level, i, j)[0]
    } else {
        store.clip_sample(level, cam_l, i, j)[0]
    }
}

/// What a refined level draws at its finer-lattice vertex `(fi, fj)`:
/// `r h_f + (1 - r) S` geomorphed towards `S` (see the module docs).
/// `finer` is the finer level's texel value there (`h_f`).
#[allow(clippy::too_many_arguments)]
pub fn refined_height(
    mask: &RefineMask,
    store: &LevelStore,
    level: u32,
    cam_l: [f32; 2],
    fi: i64,
    fj: i64,
    finer: f32,
) -> f32 {
    let surface = level_surface(mask, store, level, cam_l, fi, fj);
    if !mask.weight(level, fi, fj) {
        return surface;
    }
    let a = morph_weight_at(
        store.config(),
        level,
        cam_l,
        fi as f32 * 0.5,
        fj as f32 * 0.5,
    );
    (1.0 - a) * finer + a * surface
}

/// Height drawn at in-quad `(u, v)` of the flagged level-`level` quad
/// `(qi, qj)`: the finer quad holding the point, with its vertices'
/// [`refined_height`] and the finer lattice's diagonal.
#[allow(clippy::too_many_arguments)]
pub fn refined_quad_height(
    mask: &RefineMask,
    store: &LevelStore,
    sampler: &TerrainSampler,
    level: u32,
    cam_l: [f32; 2],
    (qi, qj): (i64, i64),
    (u, v): (f64, f64),
) -> f64 {
    let (hu, hv) = (2.0 * u, 2.0 * v);
    let (oi, oj) = (hu.floor().min(1.0) as i64, hv.floor().min(1.0) as i64);
    let (fi, fj) = (2 * qi + oi, 2 * qj + oj);
    let h = [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(di, dj)| {
        let (x, y) = (fi + di, fj + dj);
        let finer = sampler.prefiltered_height(level - 1, x, y);
        refined_height(mask, store, level, cam_l, x, y, finer)
    });
    quad_height(h, main_diagonal(fi, fj), hu - oi as f64, hv - oj as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::clipmap::gpu::ClipmapParams;
    use crate::terrain::clipmap::layout::{camera_level0, place_levels};
    use crate::terrain::testutil::cliff_world;

    fn mask_with(level: u32, flagged: &[(i64, i64)]) -> RefineMask {
        RefineMask::with_flags(level, flagged)
    }

    /// The changed cells (and the changed tiles' flag vertices) cover every
    /// vertex whose `r` differs between two masks.
    #[test]
    fn changed_cells_hold_every_vertex_whose_weight_changed() {
        let a = mask_with(2, &[(1, 1), (2, 1), (5, 5)]);
        let b = mask_with(2, &[(1, 1), (3, 1), (5, 5)]);
        let cells = a.changed_cells(&b);
        // Tiles (2, 1) and (3, 1) of level 2: 8 cells per side.
        assert_eq!(cells.len(), 2);
        assert!(cells.contains(&[16, 8, 24, 16]) && cells.contains(&[24, 8, 32, 16]));
        assert!(a.changed_cells(&a).is_empty());
        // Level-1 texels (the finer lattice of level 2, one cell apart at
        // level 1: 2^1 / 2).
        let w = 2 * TILE;
        let mut differing = 0;
        for fj in -2..8 * w + 2 {
            for fi in -2..8 * w + 2 {
                if a.weight(2, fi, fj) != b.weight(2, fi, fj) {
                    differing += 1;
                    let (x, y) = (fi, fj);
                    assert!(
                        cells
                            .iter()
                            .any(|c| (c[0]..=c[2]).contains(&x) && (c[1]..=c[3]).contains(&y)),
                        "({fi}, {fj})"
                    );
                    // The same vertices as level-1 vertex rectangles.
                    assert!(
                        a.changed_tiles(&b).iter().any(|&(l, ta, tb)| {
                            let (fl, lo, hi) = tile_flag_vertices(l, ta, tb);
                            fl == 1
                                && (lo[0]..=hi[0]).contains(&fi)
                                && (lo[1]..=hi[1]).contains(&fj)
                        }),
                        "({fi}, {fj}) in a tile's flag vertices"
                    );
                }
            }
        }
        assert!(differing > 0);
    }

    /// `r = 1` exactly at vertices whose every touching tile is flagged.
    #[test]
    fn weight_needs_every_touching_tile() {
        let m = mask_with(2, &[(1, 1), (2, 1)]);
        let w = 2 * TILE;
        // Inside tile (1, 1).
        assert!(m.weight(2, w + 3, w + 3));
        // On the edge between the two flagged tiles.
        assert!(m.weight(2, 2 * w, w + 3));
        // On the edge towards the unflagged tile (1, 0).
        assert!(!m.weight(2, w + 3, w));
        // Corner shared with unflagged tiles.
        assert!(!m.weight(2, w, w));
        // Other levels have no flags.
        assert!(!m.weight(1, w + 3, w + 3));
        // Rectangles (level quads): the walk over the flagged tiles and the
        // walk over the rectangle's tiles agree.
        for (lo, hi, want) in [
            ([4, 4], [8, 8], true),
            ([0, 0], [4, 4], false),
            ([11, 7], [13, 9], true),
            ([12, 0], [40, 4], false),
            ([-20, -20], [5, 5], true),
        ] {
            assert_eq!(m.any_flagged(2, lo, hi), want, "{lo:?} {hi:?}");
            assert_eq!(m.rect(2, lo, hi).is_some(), want, "{lo:?} {hi:?}");
        }
    }

    /// Over the cliff world with a 2-unit bound the coarsest level's tiles
    /// along the cliff are flagged (the waves flag a few more), most tiles
    /// are not, and tiles beyond the world are flagged only next to a
    /// flagged one; no bound flags nothing.
    #[test]
    fn bake_flags_the_tiles_over_the_cliff() {
        let world = cliff_world();
        let sampler = TerrainSampler::new(&world, None);
        let cfg = ClipmapConfig {
            block: 8,
            levels: 4,
        };
        let (mask, counts) = RefineMask::bake(&sampler, &cfg, 2.0, 4);
        assert!(counts.flagged > 0, "{counts:?}");
        assert!(counts.flagged * 4 < counts.tiles, "{counts:?}");
        // The finer level's surface meets the bound over every flagged tile
        // of this world (its cliff is wider than a level-2 quad).
        assert_eq!(counts.unmet, 0, "{counts:?}");
        // Level 3: quads of 4 cells, tiles of 16; the cliff is at x = 3900
        // cells, in the tiles starting at 3888; the world is one ADT of
        // 128 x 128 cells.
        let l3 = &mask.levels[3];
        let [x0, y0, x1, y1] = resident_cells(&world).expect("resident");
        let cells = |t: i64| (t * TILE * 4) as f64;
        let mut along = 0;
        for b in 0..l3.size[1] {
            for a in 0..l3.size[0] {
                let (x, y) = (cells(l3.origin[0] + a), cells(l3.origin[1] + b));
                let inside = x >= x0 && x < x1 && y >= y0 && y < y1;
                let flagged = l3.flags[(b * l3.size[0] + a) as usize];
                if inside && x == 3888.0 {
                    assert!(flagged, "tile at ({x}, {y})");
                    along += 1;
                }
                if !inside {
                    let next = (-1..=1).any(|da: i64| {
                        (-1..=1).any(|db: i64| {
                            let (na, nb) = (a + da, b + db);
                            let (nx, ny) = (cells(l3.origin[0] + na), cells(l3.origin[1] + nb));
                            nx >= x0
                                && nx < x1
                                && ny >= y0
                                && ny < y1
                                && mask.flagged(3, l3.origin[0] + na, l3.origin[1] + nb)
                        })
                    });
                    assert_eq!(flagged, next, "outside tile at ({x}, {y})");
                }
            }
        }
        assert_eq!(along, 8);
        let (none, c) = RefineMask::bake(&sampler, &cfg, 0.0, 4);
        assert_eq!(c.flagged, 0);
        assert!(!none.quad_flagged(3, 975, 1296));
    }

    /// A refined vertex with `r = 0` lies on the level's own surface; at the
    /// outer boundary (weight 1) even an `r = 1` vertex does; and the finer
    /// level's outer edge (fully morphed) meets the refined level vertex for
    /// vertex, with or without `r`.
    #[test]
    fn refined_vertices_meet_unrefined_neighbours_and_both_levels() {
        let world = cliff_world();
        let sampler = TerrainSampler::new(&world, None);
        let cfg = ClipmapConfig {
            block: 8,
            levels: 4,
        };
        let (x, y) = grid_to_world(3899.5, 5184.3);
        let cam0 = camera_level0(x, y);
        let places = place_levels(&cfg, cam0);
        let mut store = LevelStore::new(cfg);
        store.update(&places, &sampler);
        let params = ClipmapParams::new(&cfg, cam0);
        let level = 2;
        let o = places[level as usize].origin;
        let f = cfg.footprint();
        // Flag a checkerboard of tiles around the level.
        let side = f / TILE + 3;
        let mut mask = mask_with(level, &[]);
        mask.levels[level as usize] = LevelMask {
            origin: [o[0].div_euclid(TILE) - 1, o[1].div_euclid(TILE) - 1],
            size: [side, side],
            flags: (0..side * side)
                .map(|k| (k % side) / 2 % 2 == (k / side) / 2 % 2)
                .collect(),
            slack: vec![0.0; (side * side) as usize],
            flagged: Vec::new(),
        };
        mask.levels[level as usize].relist();
        let cam = params.cam(level);
        let (mut r0, mut r1, mut outer) = (0, 0, 0);
        for fj in 2 * o[1]..=2 * (o[1] + f) {
            for fi in 2 * o[0]..=2 * (o[0] + f) {
                let finer = sampler.prefiltered_height(level - 1, fi, fj);
                let h = refined_height(&mask, &store, level, cam, fi, fj, finer);
                let s = level_surface(&mask, &store, level, cam, fi, fj);
                let on_outer = fi == 2 * o[0]
                    || fi == 2 * (o[0] + f)
                    || fj == 2 * o[1]
                    || fj == 2 * (o[1] + f);
                if on_outer {
                    assert_eq!(h, s, "outer boundary ({fi}, {fj})");
                    outer += 1;
                }
                if mask.weight(level, fi, fj) {
                    r1 += 1;
                } else {
                    assert_eq!(h, s, "r = 0 at ({fi}, {fj})");
                    r0 += 1;
                }
            }
        }
        assert!(outer > 100 && r0 > 500 && r1 > 500, "{outer} {r0} {r1}");
        // The finer level's outer edge at weight 1 equals the refined
        // level's height at every one of its vertices.
        let fo = places[level as usize - 1].origin;
        let fcam = params.cam(level - 1);
        let mut edge = 0;
        for k in 0..=f {
            for (i, j) in [
                (fo[0] + k, fo[1]),
                (fo[0] + k, fo[1] + f),
                (fo[0], fo[1] + k),
                (fo[0] + f, fo[1] + k),
            ] {
                let drawn_finer = if mask.weight(level, i, j) {
                    morphed(&mask, &store, level - 1, fcam, i, j)
                } else {
                    // Unrefined: the coarse surface, as `clip_sample` at weight 1.
                    store.clip_sample(level - 1, fcam, i, j)[0]
                };
                let finer = sampler.prefiltered_height(level - 1, i, j);
                let coarse = refined_height(&mask, &store, level, cam, i, j, finer);
                assert!(
                    (drawn_finer - coarse).abs() <= 1e-4 * coarse.abs().max(1.0),
                    "({i}, {j}): {drawn_finer} vs {coarse}"
                );
                edge += 1;
            }
        }
        assert!(edge > 100);
    }
}
