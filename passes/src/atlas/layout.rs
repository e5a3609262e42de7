//! CPU side of the exact height/normal atlas: where each MCNK's 17x9 tile
//! sits ([`AtlasLayout`]), the texel packing of MCVT and MCNR into a tile
//! ([`height_tile`], [`normal_tile`]), the per-MCNK record shared with WGSL
//! ([`AtlasChunkGpu`]) and the chunk-index window ([`IndexWindow`]).

use sward_scenes::world::coords::{ChunkCoord, TileCoord, CHUNK_SIZE};
use sward_scenes::world::height::{inner_index, outer_index};
use sward_scenes::world::Mcnk;

use crate::error::PassError;

/// Texels per tile row (9 outer + 8 inner).
pub const TILE_W: u32 = 17;
/// Texel rows per tile (9 outer rows; row 8 has no inner vertices).
pub const TILE_H: u32 = 9;
/// Texels per tile.
pub const TILE_TEXELS: usize = (TILE_W * TILE_H) as usize;
/// Value of the chunk-index texture where no MCNK is resident (WGSL
/// `ATLAS_NO_CHUNK`).
pub const NO_CHUNK: u32 = u32::MAX;
/// Technique name used in atlas errors.
pub const TECHNIQUE: &str = "terrain.atlas";
/// Largest distance (world units) between an MCNK's stored position and the
/// grid corner its coordinate implies (same rule as `static-chunks`).
pub const POSITION_TOLERANCE: f64 = 0.05;

/// Placement of the tiles in the atlas: a near-square grid of `cols x rows`
/// tiles; slot `s` is tile `(s % cols, s / cols)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtlasLayout {
    /// Tiles per atlas row.
    pub cols: u32,
    /// Tile rows.
    pub rows: u32,
}

impl AtlasLayout {
    /// A layout with room for `tiles` tiles (at least one). For the 48x48
    /// MCNKs of a 3x3 ADT window this is 48x48 tiles = 816x432 texels.
    pub fn for_tiles(tiles: usize) -> Self {
        let tiles = tiles.max(1) as u32;
        let cols = (tiles as f64).sqrt().ceil() as u32;
        AtlasLayout {
            cols,
            rows: tiles.div_ceil(cols),
        }
    }

    /// Number of tiles the layout holds.
    pub fn capacity(&self) -> u32 {
        self.cols * self.rows
    }

    /// Atlas size in texels.
    pub fn size(&self) -> [u32; 2] {
        [self.cols * TILE_W, self.rows * TILE_H]
    }

    /// Tile coordinate of slot `slot`.
    pub fn tile(&self, slot: u32) -> [u32; 2] {
        [slot % self.cols, slot / self.cols]
    }

    /// First (top-left) texel of slot `slot`'s tile.
    pub fn tile_texel(&self, slot: u32) -> [u32; 2] {
        let [x, y] = self.tile(slot);
        [x * TILE_W, y * TILE_H]
    }
}

/// Texel index inside a tile of MCVT/MCNR entry `i` (file order): outer
/// `(r, c)` goes to texel `(c, r)`, inner `(r, c)` to texel `(9 + c, r)`.
/// Since MCVT stores 17 values per row, this is the identity: entry `i`
/// lands on texel `i` of the row-major 17x9 tile.
pub const fn texel_of_mcvt(i: usize) -> usize {
    i
}

/// The R32Float height tile of `m`: the 145 MCVT values unchanged (relative
/// to the base Z) in row-major 17x9 texel order, the 8 unused texels zero.
pub fn height_tile(m: &Mcnk) -> [f32; TILE_TEXELS] {
    let mut out = [0.0; TILE_TEXELS];
    for (i, h) in m.heights.iter().enumerate() {
        out[texel_of_mcvt(i)] = *h;
    }
    out
}

/// The RGBA8 snorm normal tile of `m`: MCNR (world axes, 127 = 1.0) with
/// w = 0, same texels as [`height_tile`], unused texels zero. Bytes in
/// row-major 17x9 texel order, four per texel.
pub fn normal_tile(m: &Mcnk) -> [u8; TILE_TEXELS * 4] {
    let mut out = [0u8; TILE_TEXELS * 4];
    for (i, n) in m.normals.iter().enumerate() {
        let t = texel_of_mcvt(i) * 4;
        for k in 0..3 {
            out[t + k] = n[k] as u8;
        }
    }
    out
}

/// Per-MCNK record of the atlas (WGSL `AtlasChunk` in `height_atlas.wgsl`),
/// indexed by the MCNK's slot.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct AtlasChunkGpu {
    /// Global MCNK coordinate `[x, y]`.
    pub chunk: [u32; 2],
    /// Atlas tile coordinate (first texel = tile * (17, 9)).
    pub tile: [u32; 2],
    /// Smallest corner of the MCNK's bounds (all 145 vertices, holes included).
    pub bounds_min: [f32; 3],
    /// MCNK base Z (MCVT values are relative to it).
    pub base_z: f32,
    /// Largest corner of the bounds.
    pub bounds_max: [f32; 3],
    /// `holes_low_res` (16 bits used).
    pub holes: u32,
}

impl AtlasChunkGpu {
    /// The record of a free slot: no MCNK ([`NO_CHUNK`]), every hole set,
    /// and bounds so far away that every distance and frustum test rejects
    /// them.
    pub const EMPTY: AtlasChunkGpu = AtlasChunkGpu {
        chunk: [NO_CHUNK, NO_CHUNK],
        tile: [0, 0],
        bounds_min: [-1.0e30, -1.0e30, -1.0e30],
        base_z: 0.0,
        bounds_max: [-1.0e30, -1.0e30, -1.0e30],
        holes: 0xFFFF,
    };

    /// The record of MCNK `m` (global coordinate `chunk`) in tile `tile`.
    /// Checks the stored position against the grid and that heights are
    /// finite; errors name the MCNK.
    pub fn new(chunk: ChunkCoord, m: &Mcnk, tile: [u32; 2]) -> Result<Self, PassError> {
        let what = || format!("MCNK ({}, {})", chunk.x, chunk.y);
        let [ox, oy] = chunk.origin();
        let p = m.header.position;
        let off = (p[0] as f64 - ox).abs().max((p[1] as f64 - oy).abs());
        if off.is_nan() || off > POSITION_TOLERANCE {
            return Err(PassError::InvalidInput {
                technique: TECHNIQUE,
                what: what(),
                reason: format!(
                    "stored position ({}, {}) is {off:.3} units from its grid corner ({ox:.3}, {oy:.3})",
                    p[0], p[1]
                ),
            });
        }
        if !p[2].is_finite() || !m.heights.iter().all(|h| h.is_finite()) {
            return Err(PassError::InvalidInput {
                technique: TECHNIQUE,
                what: what(),
                reason: "non-finite base height or MCVT height".into(),
            });
        }
        let (lo, hi) = m
            .heights
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), h| {
                (lo.min(p[2] + h), hi.max(p[2] + h))
            });
        Ok(AtlasChunkGpu {
            chunk: [chunk.x, chunk.y],
            tile,
            bounds_min: [(ox - CHUNK_SIZE) as f32, (oy - CHUNK_SIZE) as f32, lo],
            base_z: p[2],
            bounds_max: [ox as f32, oy as f32, hi],
            holes: u32::from(m.header.holes_low_res),
        })
    }

    /// The global MCNK coordinate.
    pub fn coord(&self) -> ChunkCoord {
        ChunkCoord {
            x: self.chunk[0],
            y: self.chunk[1],
        }
    }
}

/// The chunk-index window: the rectangle of global MCNK coordinates the
/// R32Uint index texture covers (one texel per MCNK, value = slot or
/// [`NO_CHUNK`]). Shaders pass grid positions relative to `origin` (in cells)
/// to `atlas_slot_at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexWindow {
    /// Global MCNK coordinate of the window's first texel.
    pub origin: [u32; 2],
    /// Window size in MCNKs (at least 1x1).
    pub size: [u32; 2],
}

impl IndexWindow {
    /// The smallest window holding every coordinate of `chunks` (1x1 at the
    /// world origin when empty).
    pub fn covering(chunks: impl IntoIterator<Item = ChunkCoord>) -> Self {
        let mut lo = [u32::MAX; 2];
        let mut hi = [0u32; 2];
        let mut any = false;
        for c in chunks {
            any = true;
            lo = [lo[0].min(c.x), lo[1].min(c.y)];
            hi = [hi[0].max(c.x), hi[1].max(c.y)];
        }
        if !any {
            return IndexWindow {
                origin: [0, 0],
                size: [1, 1],
            };
        }
        IndexWindow {
            origin: lo,
            size: [hi[0] - lo[0] + 1, hi[1] - lo[1] + 1],
        }
    }

    /// The window covering the tiles from `lo` to `hi` (inclusive).
    pub fn of_tiles(lo: TileCoord, hi: TileCoord) -> Self {
        IndexWindow {
            origin: [lo.x * 16, lo.y * 16],
            size: [(hi.x - lo.x + 1) * 16, (hi.y - lo.y + 1) * 16],
        }
    }

    /// Whether every texel of `other` lies inside this window.
    pub fn contains(&self, other: &IndexWindow) -> bool {
        other.origin[0] >= self.origin[0]
            && other.origin[1] >= self.origin[1]
            && other.origin[0] + other.size[0] <= self.origin[0] + self.size[0]
            && other.origin[1] + other.size[1] <= self.origin[1] + self.size[1]
    }

    /// Texel of MCNK `chunk` in the index texture, if inside the window.
    pub fn texel(&self, chunk: ChunkCoord) -> Option<[u32; 2]> {
        let x = chunk.x.checked_sub(self.origin[0])?;
        let y = chunk.y.checked_sub(self.origin[1])?;
        (x < self.size[0] && y < self.size[1]).then_some([x, y])
    }
}

/// Index of MCVT outer vertex `(row, col)` (re-exported for template builders).
pub const fn outer(row: usize, col: usize) -> usize {
    outer_index(row, col)
}

/// Index of MCVT inner vertex `(row, col)`.
pub const fn inner(row: usize, col: usize) -> usize {
    inner_index(row, col)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::testutil::cliff_world;

    #[test]
    fn tiles_hold_mcvt_unchanged_and_unused_texels_are_zero() {
        let world = cliff_world();
        let (_, m) = world.mcnks().nth(40).expect("MCNK");
        let h = height_tile(m);
        let n = normal_tile(m);
        for r in 0..9 {
            for c in 0..9 {
                assert_eq!(h[r * 17 + c], m.heights[outer(r, c)]);
                assert_eq!(n[(r * 17 + c) * 4] as i8, m.normals[outer(r, c)][0]);
            }
        }
        for r in 0..8 {
            for c in 0..8 {
                assert_eq!(h[r * 17 + 9 + c], m.heights[inner(r, c)]);
                assert_eq!(n[(r * 17 + 9 + c) * 4 + 2] as i8, m.normals[inner(r, c)][2]);
            }
        }
        for c in 9..17 {
            assert_eq!(h[8 * 17 + c], 0.0);
            assert_eq!(&n[(8 * 17 + c) * 4..(8 * 17 + c) * 4 + 4], &[0; 4]);
        }
        assert!(n.chunks_exact(4).all(|t| t[3] == 0));
    }

    #[test]
    fn layout_fits_the_reference_window_and_tiles_do_not_overlap() {
        assert_eq!(AtlasLayout::for_tiles(2304).size(), [816, 432]);
        for n in [1usize, 3, 256, 1024, 2304] {
            let l = AtlasLayout::for_tiles(n);
            assert!(l.capacity() as usize >= n);
            let [w, h] = l.size();
            let mut seen = std::collections::HashSet::new();
            for s in 0..n as u32 {
                let [x, y] = l.tile_texel(s);
                assert!(x + TILE_W <= w && y + TILE_H <= h);
                assert!(seen.insert((x, y)));
            }
        }
    }

    #[test]
    fn records_bound_the_mcnk_and_reject_bad_input() {
        let world = cliff_world();
        let (chunk, m) = world.mcnks().nth(77).expect("MCNK");
        let r = AtlasChunkGpu::new(chunk, m, [3, 4]).expect("valid");
        assert_eq!(r.coord(), chunk);
        for (i, h) in m.heights.iter().enumerate() {
            let z = r.base_z + h;
            assert!(z >= r.bounds_min[2] && z <= r.bounds_max[2], "vertex {i}");
        }
        assert!((r.bounds_max[0] - r.bounds_min[0] - CHUNK_SIZE as f32).abs() < 1e-2);
        let mut bad = m.clone();
        bad.header.position[1] -= 1.0;
        let err = AtlasChunkGpu::new(chunk, &bad, [0, 0])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!("MCNK ({}, {})", chunk.x, chunk.y)),
            "{err}"
        );
        bad = m.clone();
        bad.heights[3] = f32::INFINITY;
        assert!(AtlasChunkGpu::new(chunk, &bad, [0, 0]).is_err());
    }

    #[test]
    fn chunk_record_matches_wgsl() {
        sward_wgsl::assert_layouts!(
            sward_wgsl::modules::PROBE_HEIGHT_ATLAS,
            "AtlasChunk" => AtlasChunkGpu { chunk, tile, bounds_min, base_z, bounds_max, holes },
        );
    }

    #[test]
    fn index_window_covers_and_locates() {
        let cs = [ChunkCoord { x: 10, y: 20 }, ChunkCoord { x: 13, y: 18 }];
        let w = IndexWindow::covering(cs);
        assert_eq!(w.origin, [10, 18]);
        assert_eq!(w.size, [4, 3]);
        assert_eq!(w.texel(cs[0]), Some([0, 2]));
        assert_eq!(w.texel(ChunkCoord { x: 9, y: 20 }), None);
        assert_eq!(w.texel(ChunkCoord { x: 14, y: 20 }), None);
        assert_eq!(IndexWindow::covering([]).size, [1, 1]);
    }
}
