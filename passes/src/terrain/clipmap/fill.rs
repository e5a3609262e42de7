//! Level updates in compute (`clipmap_fill.wgsl`): when a level moves, the
//! strips that entered its window become jobs ([`level_jobs`]) and a compute
//! pass fills their texels from the exact height/normal atlas
//! ([`crate::atlas::HeightAtlas`]) where an MCNK is resident and from the
//! far-height grid ([`FarGrid`], baked once from the tile source's far
//! heights and uploaded when the level set changes) elsewhere, prefiltering
//! levels >= 1 exactly like [`super::source::TerrainSampler::prefiltered`]
//! does from its sources. The CPU's per-frame work is the level placement,
//! at most two jobs per level that moved and a 32-byte uniform. When tiles
//! become resident or are evicted, [`region_job`] turns each changed tile's
//! cell rectangle into one job per level re-filling the window texels that
//! read it; for a streaming clipmap the far grid covers every tile the
//! source has ([`far_extent_of`]) and is baked from the far source alone, so
//! no texel depends on the resident set except through the atlas.
//!
//! [`FillReference`] is the CPU mirror of the shader (same lookups, same
//! f32 operations in the same order); `gpu_fill_matches_cpu_reference`
//! compares the two over every texel of every level, after a fresh fill and
//! after incremental moves.

use std::collections::HashMap;

use sward_scenes::window::WindowError;
use sward_scenes::world::coords::{ChunkCoord, CHUNK_CELLS, UNIT_SIZE};
use sward_scenes::{AdtTile, TileCoord, TileSource, World};

pub use super::gpu::FillJob;
use super::layout::ClipmapConfig;
use super::refine::RefineMask;
use super::source::TerrainSampler;
use crate::atlas::cpu::{height_atlas_local, normal_atlas_local, HeightTile};
use crate::atlas::layout::{height_tile, normal_tile, TILE_TEXELS};
use crate::atlas::IndexWindow;

/// Cells between far-grid samples: one WDL inner/outer point spacing (half
/// an MCNK), so level 3 and coarser vertices land on far samples.
pub const FAR_STEP: f64 = 4.0;
/// Cells per side of the whole map (64 ADTs of 128 cells).
const MAP_CELLS: f64 = 64.0 * 128.0;
/// Step (cells) of the central differences of far normals (WGSL `FILL_NORMAL_STEP`).
const NORMAL_STEP: f32 = 0.25;

/// Uniforms of the fill pass (WGSL `FillParams`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FillParams {
    /// Global MCNK coordinate of the chunk index texture's texel (0, 0).
    pub window_origin: [u32; 2],
    /// Grid position (cells) of far texel (0, 0).
    pub far_origin: [f32; 2],
    /// Far texels per side.
    pub far_size: [u32; 2],
    /// Cells between far texels.
    pub far_step: f32,
    /// Texels per level side (N).
    pub texels: u32,
    /// Levels in use.
    pub levels: u32,
    _pad: [u32; 3],
    /// Per level: its rectangle in the refinement index
    /// ([`super::refine::RefineGpu::rects`]), for the texels' flags.
    pub refine: [[i32; 4]; super::layout::MAX_LEVELS as usize],
}

/// The jobs that bring `level` from window `old` (min corner, level units;
/// `None`: never filled) to `new`, with `n` texels per side: the whole
/// window, or the columns that entered (full height) and the rows that
/// entered (over the kept columns only). Empty when the level did not move.
pub fn level_jobs(level: u32, old: Option<[i64; 2]>, new: [i64; 2], n: i64) -> Vec<FillJob> {
    let job = |i0: i64, j0: i64, w: i64, h: i64| FillJob {
        origin: [i0 as i32, j0 as i32],
        size: [w as u32, h as u32],
        level,
        dest: [0; 3],
    };
    let Some(old) = old.filter(|o| (new[0] - o[0]).abs() < n && (new[1] - o[1]).abs() < n) else {
        return vec![job(new[0], new[1], n, n)];
    };
    if old == new {
        return Vec::new();
    }
    // Entering range along one axis: [a, b).
    let entering = |nw: i64, od: i64| {
        if nw > od {
            (od + n, nw + n)
        } else {
            (nw, od)
        }
    };
    let mut out = Vec::new();
    let (c0, c1) = entering(new[0], old[0]);
    if c1 > c0 {
        out.push(job(c0, new[1], c1 - c0, n));
    }
    let (r0, r1) = entering(new[1], old[1]);
    let (k0, k1) = (new[0].max(old[0]), (new[0] + n).min(old[0] + n));
    if r1 > r0 && k1 > k0 {
        out.push(job(k0, r0, k1 - k0, r1 - r0));
    }
    out
}

/// The job that re-fills the texels of `level` (window min corner `origin`,
/// `n` texels per side) whose values read grid points inside the cells
/// `rect` (`[x0, y0, x1, y1]`, global grid cells, bounds included): a
/// texel of vertex `(I, J)` reads points within one level unit of
/// `(I, J)` (its prefilter neighbours), so the vertex range is grown by two
/// level units (one more for rounding) and clipped to the window. `None`
/// when the rectangle does not reach the window. Re-filling a texel whose
/// sources did not change writes the value it already holds.
pub fn region_job(level: u32, origin: [i64; 2], n: i64, rect: [i64; 4]) -> Option<FillJob> {
    // Level units per cell: 2 / 2^level.
    let unit = 1i64 << level;
    let lo = [0, 1].map(|k| (2 * rect[k]).div_euclid(unit) - 2);
    let hi = [0, 1].map(|k| -(-2 * rect[k + 2]).div_euclid(unit) + 2);
    vertex_job(level, origin, n, lo, hi)
}

/// The job that re-fills the vertices `lo ..= hi` of `level` (window min
/// corner `origin`, `n` texels per side), clipped to the window; `None`
/// when they do not reach it.
pub fn vertex_job(
    level: u32,
    origin: [i64; 2],
    n: i64,
    lo: [i64; 2],
    hi: [i64; 2],
) -> Option<FillJob> {
    let a = [0, 1].map(|k| lo[k].max(origin[k]));
    let b = [0, 1].map(|k| hi[k].min(origin[k] + n - 1));
    if a[0] > b[0] || a[1] > b[1] {
        return None;
    }
    Some(FillJob {
        origin: [a[0] as i32, a[1] as i32],
        size: [(b[0] - a[0] + 1) as u32, (b[1] - a[1] + 1) as u32],
        level,
        dest: [0; 3],
    })
}

/// Far heights on a regular grid of [`FAR_STEP`] cells, baked from a
/// [`TerrainSampler`]'s height (resident world, else the tile source's far
/// height, else the extended resident edge), read bilinearly.
#[derive(Debug, Clone)]
pub struct FarGrid {
    /// Grid position (cells) of sample (0, 0).
    pub origin: [f64; 2],
    /// Samples per side.
    pub size: [u32; 2],
    /// Heights, row-major (`y * size.x + x`).
    pub heights: Vec<f32>,
    /// Lowest and highest height.
    pub range: [f32; 2],
}

impl FarGrid {
    /// Bakes the grid over the cells `lo ..= hi` (snapped outwards to
    /// [`FAR_STEP`], clamped to the map).
    pub fn bake(sampler: &TerrainSampler, lo: [f64; 2], hi: [f64; 2]) -> Self {
        let snap_lo = |v: f64| ((v / FAR_STEP).floor() * FAR_STEP).clamp(0.0, MAP_CELLS);
        let snap_hi = |v: f64| ((v / FAR_STEP).ceil() * FAR_STEP).clamp(0.0, MAP_CELLS);
        let origin = [snap_lo(lo[0]), snap_lo(lo[1])];
        let end = [snap_hi(hi[0]), snap_hi(hi[1])];
        let size = [0, 1].map(|k| (((end[k] - origin[k]) / FAR_STEP) as u32 + 1).max(2));
        let mut heights = Vec::with_capacity((size[0] * size[1]) as usize);
        for y in 0..size[1] {
            for x in 0..size[0] {
                let g = [
                    origin[0] + f64::from(x) * FAR_STEP,
                    origin[1] + f64::from(y) * FAR_STEP,
                ];
                heights.push(sampler.height(g[0], g[1]));
            }
        }
        let range = heights
            .iter()
            .fold([f32::INFINITY, f32::NEG_INFINITY], |r, h| {
                [r[0].min(*h), r[1].max(*h)]
            });
        FarGrid {
            origin,
            size,
            heights,
            range,
        }
    }

    fn at(&self, x: i32, y: i32) -> f32 {
        self.heights[(y as u32 * self.size[0] + x as u32) as usize]
    }

    /// Bilinear height at grid `g` (cells), clamped to the grid (WGSL `far_height`).
    pub fn height(&self, g: [f32; 2]) -> f32 {
        let last = [(self.size[0] - 1) as f32, (self.size[1] - 1) as f32];
        let step = FAR_STEP as f32;
        let origin = [self.origin[0] as f32, self.origin[1] as f32];
        let t = [0, 1].map(|k| ((g[k] - origin[k]) / step).clamp(0.0, last[k]));
        let c0 = [0, 1].map(|k| t[k].floor().min((last[k] - 1.0).max(0.0)));
        let f = [t[0] - c0[0], t[1] - c0[1]];
        let i0 = [c0[0] as i32, c0[1] as i32];
        let i1 = [0, 1].map(|k| (i0[k] + 1).min(self.size[k] as i32 - 1));
        let (h00, h10) = (self.at(i0[0], i0[1]), self.at(i1[0], i0[1]));
        let (h01, h11) = (self.at(i0[0], i1[1]), self.at(i1[0], i1[1]));
        let a = h00 * (1.0 - f[0]) + h10 * f[0];
        let b = h01 * (1.0 - f[0]) + h11 * f[0];
        a * (1.0 - f[1]) + b * f[1]
    }

    /// Shader uniforms for this grid, the atlas window `window` and `cfg`.
    pub fn params(&self, window: IndexWindow, cfg: &ClipmapConfig) -> FillParams {
        FillParams {
            window_origin: window.origin,
            far_origin: [self.origin[0] as f32, self.origin[1] as f32],
            far_size: self.size,
            far_step: FAR_STEP as f32,
            texels: cfg.texels(),
            levels: cfg.levels,
            _pad: [0; 3],
            refine: [[0; 4]; super::layout::MAX_LEVELS as usize],
        }
    }
}

/// The far grid answers far heights as a tile source does: the refinement
/// bake reads beyond the resident world what the fill reads there (it has
/// no tiles to load).
impl TileSource for FarGrid {
    fn contains(&self, _coord: TileCoord) -> bool {
        false
    }

    fn load(&self, coord: TileCoord) -> Result<AdtTile, WindowError> {
        Err(WindowError::Load {
            tile: coord,
            reason: "the clipmap's far grid holds heights only, no tiles".into(),
        })
    }

    fn tile_count(&self) -> usize {
        0
    }

    fn coarse_height(&self, gx: f64, gy: f64) -> Option<f32> {
        Some(self.height([gx as f32, gy as f32]))
    }
}

/// The cells `[lo, hi]` a clipmap of `cfg` may cover while the camera stays
/// over the resident world: the resident rectangle grown by the outermost
/// level's reach plus two MCNKs, no wider than `max_texels` far samples per
/// side (the device's texture size limit; the third value says whether that
/// limit shrank the extent around the resident centre).
pub fn far_extent(
    world: &World,
    cfg: &ClipmapConfig,
    max_texels: u32,
) -> ([f64; 2], [f64; 2], bool) {
    let cells = f64::from(CHUNK_CELLS);
    let rect = super::refine::resident_cells(world);
    let [x0, y0, x1, y1] = rect.unwrap_or([0.0, 0.0, cells, cells]);
    let grow = cfg.reach(cfg.levels - 1) / UNIT_SIZE + 2.0 * cells;
    clamp_extent([x0 - grow, y0 - grow], [x1 + grow, y1 + grow], max_texels)
}

/// The cells `[lo, hi]` of the far grid of a streaming clipmap: the whole
/// index window `window` (every tile the source has), whatever is resident,
/// no wider than `max_texels` far samples per side (as [`far_extent`]).
/// Beyond it the grid's edge values extend.
pub fn far_extent_of(window: IndexWindow, max_texels: u32) -> ([f64; 2], [f64; 2], bool) {
    let cells = f64::from(CHUNK_CELLS);
    let lo = [0, 1].map(|k| f64::from(window.origin[k]) * cells);
    let hi = [0, 1].map(|k| f64::from(window.origin[k] + window.size[k]) * cells);
    clamp_extent(lo, hi, max_texels)
}

/// `[lo, hi]` shrunk around its centre to at most `max_texels` far samples
/// per side; the third value says whether it was.
fn clamp_extent(mut lo: [f64; 2], mut hi: [f64; 2], max_texels: u32) -> ([f64; 2], [f64; 2], bool) {
    // Snapping outwards adds up to two samples per side.
    let widest = f64::from(max_texels.max(4) - 3) * FAR_STEP;
    let mut clamped = false;
    for k in 0..2 {
        if hi[k] - lo[k] > widest {
            let centre = 0.5 * (lo[k] + hi[k]);
            lo[k] = centre - 0.5 * widest;
            hi[k] = centre + 0.5 * widest;
            clamped = true;
        }
    }
    (lo, hi, clamped)
}

/// One resident MCNK as the shader sees it.
struct RefChunk {
    base_z: f32,
    heights: HeightTile,
    normals: [u8; TILE_TEXELS * 4],
}

/// CPU mirror of `clipmap_fill.wgsl` over the resident `world` and `far`.
pub struct FillReference<'a> {
    window: IndexWindow,
    chunks: HashMap<ChunkCoord, RefChunk>,
    far: &'a FarGrid,
}

impl<'a> FillReference<'a> {
    /// The reference for `world` (its atlas window) and `far`.
    pub fn new(world: &World, far: &'a FarGrid) -> Self {
        let chunks = world
            .mcnks()
            .map(|(c, m)| {
                (
                    c,
                    RefChunk {
                        base_z: m.header.position[2],
                        heights: height_tile(m),
                        normals: normal_tile(m),
                    },
                )
            })
            .collect();
        FillReference {
            window: IndexWindow::covering(world.mcnks().map(|(c, _)| c)),
            chunks,
            far,
        }
    }

    /// The resident MCNK under grid `g` and its local position (WGSL `fill_slot`).
    fn chunk(&self, g: [f32; 2]) -> Option<(&RefChunk, [f32; 2])> {
        let o = self.window.origin;
        let cell = [g[0] - o[0] as f32 * 8.0, g[1] - o[1] as f32 * 8.0];
        let c = [(cell[0] / 8.0).floor(), (cell[1] / 8.0).floor()];
        if c[0] < 0.0
            || c[1] < 0.0
            || c[0] >= self.window.size[0] as f32
            || c[1] >= self.window.size[1] as f32
        {
            return None;
        }
        let coord = ChunkCoord {
            x: o[0] + c[0] as u32,
            y: o[1] + c[1] as u32,
        };
        let chunk = self.chunks.get(&coord)?;
        let l = [g[0] - coord.x as f32 * 8.0, g[1] - coord.y as f32 * 8.0];
        Some((chunk, l))
    }

    /// Height at grid `g` (WGSL `fill_height`).
    pub fn height(&self, g: [f32; 2]) -> f32 {
        match self.chunk(g) {
            Some((c, l)) => c.base_z + height_atlas_local(&c.heights, l[0], l[1]),
            None => self.far.height(g),
        }
    }

    /// `(height, normal)` at grid `g` (WGSL `fill_sample`).
    pub fn sample(&self, g: [f32; 2]) -> [f32; 4] {
        if let Some((c, l)) = self.chunk(g) {
            let h = c.base_z + height_atlas_local(&c.heights, l[0], l[1]);
            let n = normal_atlas_local(&c.normals, l[0], l[1]);
            return [h, n[0], n[1], n[2]];
        }
        let far = |x: f32, y: f32| self.far.height([x, y]);
        let h = far(g[0], g[1]);
        let e = NORMAL_STEP;
        let unit = UNIT_SIZE as f32;
        let hgx = (far(g[0] + e, g[1]) - far(g[0] - e, g[1])) / (2.0 * e * unit);
        let hgy = (far(g[0], g[1] + e) - far(g[0], g[1] - e)) / (2.0 * e * unit);
        let len = (hgx * hgx + hgy * hgy + 1.0).sqrt();
        [h, hgy / len, hgx / len, 1.0 / len]
    }

    /// Texel of vertex `(i, j)` of `level` (WGSL `fill_texel`).
    pub fn texel(&self, level: u32, i: i32, j: i32) -> [f32; 4] {
        let scale = (1u32 << level) as f32 * 0.5;
        let centre = self.sample([i as f32 * scale, j as f32 * scale]);
        if level == 0 {
            return centre;
        }
        let half = scale * 0.5;
        let p0 = centre[0];
        let point =
            |di: i32, dj: i32| self.height([(i + di) as f32 * scale, (j + dj) as f32 * scale]);
        let finer = |di: i32, dj: i32| {
            self.height([(2 * i + di) as f32 * half, (2 * j + dj) as f32 * half])
        };
        let mut corr = 0.0f32;
        for (di, dj) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
            let drawn = 0.5 * (p0 + point(di, dj));
            corr += 2.0 * (finer(di, dj) - drawn);
        }
        for (di, dj) in [(-1, -1), (1, -1), (-1, 1), (1, 1)] {
            let (a, b) = (di.min(0), dj.min(0));
            let drawn = if (i + a + j + b) & 1 == 0 {
                0.5 * (point(a, b) + point(a + 1, b + 1))
            } else {
                0.5 * (point(a + 1, b) + point(a, b + 1))
            };
            corr += finer(di, dj) - drawn;
        }
        [p0 + corr / 16.0, centre[1], centre[2], centre[3]]
    }
}

/// A texel of `level` as the fill stores it: `texel` with the flag "the
/// next coarser level draws this vertex refined" ([`RefineMask::weight`]
/// of `level + 1` at `(i, j)`) in the sign bit of its normal's z, which is
/// positive on a height field (WGSL `clip_with_flag`). The draw reads the
/// flag from the texel its vertex loads anyway, instead of looking the
/// refinement index up per vertex.
pub fn stored_texel(texel: [f32; 4], mask: &RefineMask, level: u32, i: i64, j: i64) -> [f32; 4] {
    let flag = if mask.weight(level + 1, i, j) {
        SIGN
    } else {
        0
    };
    let z = f32::from_bits(texel[3].abs().to_bits() | flag);
    [texel[0], texel[1], texel[2], z]
}

/// Whether a stored texel carries the flag of [`stored_texel`] (WGSL
/// `clip_refine_flagged`).
pub fn texel_flagged(texel: [f32; 4]) -> bool {
    texel[3].to_bits() & SIGN != 0
}

/// The sign bit of an `f32`.
const SIGN: u32 = 1 << 31;

#[cfg(test)]
mod tests {
    use super::*;

    /// The fill's uniforms and jobs lie where naga puts the WGSL members.
    #[test]
    fn fill_structs_match_wgsl() {
        use std::mem::{offset_of, size_of};
        let (_, module) = sward_wgsl::compose_and_validate(sward_wgsl::modules::CLIPMAP_FILL)
            .unwrap_or_else(|e| panic!("clipmap_fill.wgsl: {e}"));
        sward_wgsl::check_layout(
            &module,
            "FillParams",
            size_of::<FillParams>(),
            &[
                ("window_origin", offset_of!(FillParams, window_origin)),
                ("far_origin", offset_of!(FillParams, far_origin)),
                ("far_size", offset_of!(FillParams, far_size)),
                ("far_step", offset_of!(FillParams, far_step)),
                ("texels", offset_of!(FillParams, texels)),
                ("levels", offset_of!(FillParams, levels)),
                ("refine", offset_of!(FillParams, refine)),
            ],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        // `dest` is the WGSL `dest_layer` followed by `dest` (x, y).
        let dest = offset_of!(FillJob, dest);
        sward_wgsl::check_layout(
            &module,
            "FillJob",
            size_of::<FillJob>(),
            &[
                ("origin", offset_of!(FillJob, origin)),
                ("size", offset_of!(FillJob, size)),
                ("level", offset_of!(FillJob, level)),
                ("dest_layer", dest),
                ("dest", dest + 4),
            ],
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }

    /// The flag rides in the sign bit of the normal's z and nothing else
    /// of the texel changes: set where the next coarser level's weight is
    /// 1, clear elsewhere, also for a (corrupt) negative or zero z.
    #[test]
    fn stored_texels_flag_the_refined_vertices() {
        let mask = RefineMask::with_flags(2, &[(0, 0)]);
        let t = [12.5, 0.25, -0.5, 0.75];
        for (i, j) in [(1, 1), (4, 7), (8, 3), (0, 0), (-1, 2), (9, 1), (3, 8)] {
            let s = stored_texel(t, &mask, 1, i, j);
            assert_eq!(texel_flagged(s), mask.weight(2, i, j), "({i}, {j})");
            assert_eq!([s[0], s[1], s[2], s[3].abs()], t, "({i}, {j})");
        }
        assert!(texel_flagged(stored_texel(t, &mask, 1, 3, 5)));
        assert!(!texel_flagged(stored_texel(t, &mask, 1, 0, 5)));
        // Level 2's coarser level does not exist: never flagged.
        assert!(!texel_flagged(stored_texel(t, &mask, 2, 3, 5)));
        for z in [-0.0f32, -0.3] {
            let s = stored_texel([1.0, 0.0, 0.0, z], &mask, 1, 0, 5);
            assert!(!texel_flagged(s), "z = {z}");
            assert_eq!(s[3], z.abs());
        }
    }

    /// Jobs cover exactly the texels that entered the window, once each.
    #[test]
    fn jobs_cover_the_entering_texels_once() {
        let n = 20i64;
        let cases: [(Option<[i64; 2]>, [i64; 2]); 6] = [
            (None, [4, -6]),
            (Some([0, 0]), [0, 0]),
            (Some([0, 0]), [2, 0]),
            (Some([0, 0]), [-2, 4]),
            (Some([10, 10]), [6, 14]),
            (Some([0, 0]), [40, 0]),
        ];
        for (old, new) in cases {
            let jobs = level_jobs(3, old, new, n);
            let mut seen = HashMap::new();
            for job in &jobs {
                assert_eq!(job.level, 3);
                for dj in 0..i64::from(job.size[1]) {
                    for di in 0..i64::from(job.size[0]) {
                        let v = (i64::from(job.origin[0]) + di, i64::from(job.origin[1]) + dj);
                        *seen.entry(v).or_insert(0) += 1;
                    }
                }
            }
            let inside = |v: (i64, i64), o: [i64; 2]| {
                v.0 >= o[0] && v.0 < o[0] + n && v.1 >= o[1] && v.1 < o[1] + n
            };
            for j in new[1]..new[1] + n {
                for i in new[0]..new[0] + n {
                    let kept = old.is_some_and(|o| inside((i, j), o));
                    let want = usize::from(!kept);
                    assert_eq!(
                        seen.get(&(i, j)).copied().unwrap_or(0),
                        want,
                        "{old:?} -> {new:?} vertex ({i}, {j})"
                    );
                }
            }
            assert!(seen.keys().all(|&v| inside(v, new)), "{old:?} -> {new:?}");
        }
    }

    /// A region job covers every texel of the window whose prefilter
    /// footprint (one level unit around the vertex) touches the rectangle,
    /// and nothing outside the window.
    #[test]
    fn region_jobs_cover_the_texels_reading_the_rectangle() {
        let n = 40i64;
        let rect = [128i64, 256, 256, 384];
        for level in 0..6u32 {
            let scale = f64::from(1u32 << level) * 0.5;
            for origin in [[200i64, 480], [-30, 10], [0, 0], [5000, 5000]] {
                let job = region_job(level, origin, n, rect);
                let covered = |i: i64, j: i64| {
                    job.is_some_and(|jb| {
                        let (i0, j0) = (i64::from(jb.origin[0]), i64::from(jb.origin[1]));
                        i >= i0
                            && j >= j0
                            && i < i0 + i64::from(jb.size[0])
                            && j < j0 + i64::from(jb.size[1])
                    })
                };
                if let Some(jb) = job {
                    assert_eq!(jb.level, level);
                    let (i0, j0) = (i64::from(jb.origin[0]), i64::from(jb.origin[1]));
                    assert!(i0 >= origin[0] && j0 >= origin[1]);
                    assert!(i0 + i64::from(jb.size[0]) <= origin[0] + n);
                    assert!(j0 + i64::from(jb.size[1]) <= origin[1] + n);
                }
                for j in origin[1]..origin[1] + n {
                    for i in origin[0]..origin[0] + n {
                        let reads = |v: i64, k: usize| {
                            (v - 1) as f64 * scale <= rect[k + 2] as f64
                                && (v + 1) as f64 * scale >= rect[k] as f64
                        };
                        if reads(i, 0) && reads(j, 1) {
                            assert!(covered(i, j), "level {level} {origin:?} ({i}, {j})");
                        }
                    }
                }
            }
        }
    }

    /// The far grid never exceeds the texture size it is given, and covers
    /// the outermost level's reach when the limit allows.
    #[test]
    fn far_extent_respects_the_texture_limit() {
        let world = crate::terrain::testutil::cliff_world();
        let sampler = TerrainSampler::new(&world, None);
        let cfg = ClipmapConfig::for_distance(32, 8000.0);
        let (lo, hi, clamped) = far_extent(&world, &cfg, 8192);
        assert!(!clamped);
        assert!(hi[0] - lo[0] > 2.0 * cfg.reach(cfg.levels - 1) / UNIT_SIZE);
        let (lo, hi, clamped) = far_extent(&world, &cfg, 300);
        assert!(clamped);
        let grid = FarGrid::bake(&sampler, lo, hi);
        assert!(
            grid.size[0] <= 300 && grid.size[1] <= 300,
            "{:?}",
            grid.size
        );
    }
}
