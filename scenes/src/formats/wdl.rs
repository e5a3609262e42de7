//! WDL files: the map's low-resolution heights, which the client draws as
//! the far terrain beyond the loaded ADTs (`World\Maps\<Map>\<Map>.wdl`).
//!
//! Layout (wowdev wiki "WDL/v18"):
//!
//! * MVER: u32 18.
//! * MWMO, MWID, MODF (optional, low-detail WMO silhouettes; sward writes them
//!   empty and skips them, like any other chunk before MAOF).
//! * MAOF: 64 x 64 u32, row-major `[y][x]` (tile row, then column, like the
//!   WDT's MAIN): the absolute file offset of the tile's MARE chunk header,
//!   0 where the tile has no data.
//! * At each offset, MARE: 545 i16, first the 17 x 17 outer points row-major,
//!   then the 16 x 16 inner points row-major. Outer point `(r, c)` sits on the
//!   MCNK corner grid (1/16 tile apart), inner point `(r, c)` at the centre of
//!   MCNK `(index_x = c, index_y = r)`. Rows run like ADT rows (X decreasing),
//!   columns like ADT columns (Y decreasing); see [`crate::world::coords`].
//! * Right after a MARE, optionally MAHO: 16 u16, one per MCNK row `r`, bit
//!   `c` for MCNK column `c`. The wiki says the chunk "may be left out if the
//!   data is supposed to be 0", so 0 (the default) must mean "no hole" and a
//!   set bit marks the MCNK as a hole in the far terrain.
//!
//! Heights are absolute world heights (the MCNK base plus MCVT), rounded to
//! whole units. [`Wdl::height_at`] is the far-terrain height sward derives
//! from them.

use std::fmt;

use super::bytes::{tag_name, Out, Reader};
use super::FormatError;
use crate::world::coords::{self, TileCoord, CHUNK_CELLS, TILE_CHUNKS, WORLD_CELLS, WORLD_TILES};
use crate::world::height::fan_interpolate;
use crate::world::World;

/// The WDL version sward reads and writes.
pub const VERSION: u32 = 18;
/// Outer points per tile axis (MCNK corners, 16 + 1).
pub const OUTER: usize = 17;
/// Inner points per tile axis (MCNK centres).
pub const INNER: usize = 16;
/// Heights in one MARE chunk.
pub const MARE_VALUES: usize = OUTER * OUTER + INNER * INNER;
/// Size of MARE data in bytes.
pub const MARE_SIZE: usize = MARE_VALUES * 2;
/// Size of MAHO data in bytes.
pub const MAHO_SIZE: usize = INNER * 2;
const MAOF_ENTRIES: usize = (WORLD_TILES * WORLD_TILES) as usize;
const MAOF_SIZE: usize = MAOF_ENTRIES * 4;
/// Grid cells per WDL step (one MCNK).
const STEP: f64 = CHUNK_CELLS as f64;
/// Grid cells per tile.
const TILE_CELLS: f64 = (TILE_CHUNKS * CHUNK_CELLS) as f64;

/// The low-resolution heights of one tile (one MARE and its MAHO).
#[derive(Clone, PartialEq, Eq)]
pub struct WdlTile {
    /// Outer points `[row][col]` on the MCNK corner grid.
    pub outer: [[i16; OUTER]; OUTER],
    /// Inner points `[row][col]` at MCNK centres.
    pub inner: [[i16; INNER]; INNER],
    /// MAHO: per MCNK row, bit = column set where the MCNK is a hole;
    /// `None` when the file has no MAHO after this MARE.
    pub holes: Option<[u16; INNER]>,
}

impl fmt::Debug for WdlTile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (lo, hi) = self.range();
        write!(
            f,
            "WdlTile(heights {lo}..={hi}, {} holes)",
            self.hole_count()
        )
    }
}

impl WdlTile {
    /// A tile with every height `h` and no MAHO.
    pub fn flat(h: i16) -> Self {
        Self {
            outer: [[h; OUTER]; OUTER],
            inner: [[h; INNER]; INNER],
            holes: None,
        }
    }

    /// All 545 values in file order.
    pub fn values(&self) -> impl Iterator<Item = i16> + '_ {
        self.outer
            .iter()
            .flatten()
            .chain(self.inner.iter().flatten())
            .copied()
    }

    /// Smallest and largest height.
    pub fn range(&self) -> (i16, i16) {
        self.values()
            .fold((i16::MAX, i16::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)))
    }

    /// Whether MCNK `(index_x, index_y)` is marked as a hole.
    pub fn is_hole(&self, index_x: u32, index_y: u32) -> bool {
        self.holes.is_some_and(|h| {
            index_x < INNER as u32
                && index_y < INNER as u32
                && (h[index_y as usize] >> index_x) & 1 != 0
        })
    }

    /// Number of MCNKs marked as holes.
    pub fn hole_count(&self) -> u32 {
        self.holes
            .map_or(0, |h| h.iter().map(|r| r.count_ones()).sum())
    }

    /// Height at tile-local `(lx, ly)` in MCNKs from the tile's origin
    /// corner (`lx` column direction, `ly` row direction), both clamped to
    /// `[0, 16]`.
    ///
    /// Each MCNK square is split into four triangles fanned around its inner
    /// point, exactly like the MCVT fan of [`crate::world::height`] one level
    /// up. This uses all 545 values (bilinear interpolation over the outer
    /// grid would ignore the 256 inner ones), reproduces every stored value
    /// exactly at its grid point, and is continuous across MCNK and tile
    /// borders. Where the terrain is itself a fan of planes at that scale, it
    /// reproduces it; elsewhere it is the natural low-resolution analogue of
    /// the ADT surface.
    pub fn height_local(&self, lx: f64, ly: f64) -> f32 {
        let clamp = |v: f64| {
            if v.is_finite() {
                v.clamp(0.0, 16.0)
            } else {
                0.0
            }
        };
        let (lx, ly) = (clamp(lx), clamp(ly));
        let c = (lx.floor() as usize).min(INNER - 1);
        let r = (ly.floor() as usize).min(INNER - 1);
        let values = [
            self.outer[r][c],
            self.outer[r][c + 1],
            self.outer[r + 1][c],
            self.outer[r + 1][c + 1],
            self.inner[r][c],
        ]
        .map(f32::from);
        fan_interpolate(values, (lx - c as f64) as f32, (ly - r as f64) as f32)
    }

    /// The tile computed from the exact heights of `world` (see
    /// [`Wdl::from_world`]); `None` when `tile` is not resident.
    pub fn from_world(world: &World, tile: TileCoord) -> Result<Option<Self>, FormatError> {
        let Some(adt) = world.tile(tile) else {
            return Ok(None);
        };
        let (gx0, gy0) = (
            f64::from(tile.x) * TILE_CELLS,
            f64::from(tile.y) * TILE_CELLS,
        );
        let sample = |lx: f64, ly: f64| -> Result<i16, FormatError> {
            // The far edge of tile 63 lies on the world border, which
            // `locate` excludes: sample a hair inside.
            let edge = f64::from(WORLD_CELLS) - 1e-7;
            let (x, y) =
                coords::grid_to_world((gx0 + lx * STEP).min(edge), (gy0 + ly * STEP).min(edge));
            let h = world
                .height_at(x, y)
                .ok_or_else(|| FormatError::Unwritable {
                    what: format!("WDL of map {}", world.name),
                    reason: format!(
                        "no height at ({x:.3}, {y:.3}) of tile ({}, {})",
                        tile.x, tile.y
                    ),
                })?;
            Ok(quantize(h))
        };
        let mut t = Self::flat(0);
        for r in 0..OUTER {
            for c in 0..OUTER {
                t.outer[r][c] = sample(c as f64, r as f64)?;
            }
        }
        for r in 0..INNER {
            for c in 0..INNER {
                t.inner[r][c] = sample(c as f64 + 0.5, r as f64 + 0.5)?;
            }
        }
        let mut holes = [0u16; INNER];
        for m in &adt.mcnks {
            if m.header.holes_low_res == u16::MAX {
                holes[m.header.index_y as usize] |= 1 << m.header.index_x;
            }
        }
        t.holes = Some(holes);
        Ok(Some(t))
    }
}

/// A height rounded to the nearest whole unit (halves away from zero) and
/// clamped to the i16 range, as MARE stores it.
pub fn quantize(h: f32) -> i16 {
    h.round().clamp(f32::from(i16::MIN), f32::from(i16::MAX)) as i16
}

/// A parsed WDL: one optional [`WdlTile`] per slot of the 64 x 64 grid.
#[derive(Clone, PartialEq, Eq)]
pub struct Wdl {
    tiles: Vec<Option<Box<WdlTile>>>,
}

impl Default for Wdl {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Wdl({} tiles)", self.tile_count())
    }
}

impl Wdl {
    /// A WDL without any tile data.
    pub fn new() -> Self {
        Self {
            tiles: vec![None; MAOF_ENTRIES],
        }
    }

    /// The WDL of every resident tile of `world`: each outer and inner point
    /// is the exact height ([`World::height_at`]) at that position, rounded
    /// and clamped by [`quantize`] (so it is within 0.5 of the exact height
    /// unless clamped); an MCNK whose low-resolution hole mask removes all
    /// 16 blocks is a MAHO hole (partial holes are not representable at
    /// this resolution and are left out). Every tile gets a MAHO.
    pub fn from_world(world: &World) -> Result<Self, FormatError> {
        let mut wdl = Self::new();
        for t in world.tiles() {
            if let Some(tile) = WdlTile::from_world(world, t.coord)? {
                wdl.set(t.coord, Some(tile));
            }
        }
        Ok(wdl)
    }

    /// The data of `tile`, if any.
    pub fn tile(&self, tile: TileCoord) -> Option<&WdlTile> {
        if !tile.is_valid() {
            return None;
        }
        self.tiles[tile.index()].as_deref()
    }

    /// Sets (or with `None` clears) the data of `tile`; tiles off the grid
    /// are ignored.
    pub fn set(&mut self, tile: TileCoord, data: Option<WdlTile>) {
        if tile.is_valid() {
            self.tiles[tile.index()] = data.map(Box::new);
        }
    }

    /// Tiles with data, sorted by (row, column).
    pub fn tiles(&self) -> impl Iterator<Item = (TileCoord, &WdlTile)> + '_ {
        self.tiles.iter().enumerate().filter_map(|(i, t)| {
            let i = i as u32;
            t.as_deref()
                .map(|t| (TileCoord::new(i % WORLD_TILES, i / WORLD_TILES), t))
        })
    }

    /// Number of tiles with data.
    pub fn tile_count(&self) -> usize {
        self.tiles.iter().filter(|t| t.is_some()).count()
    }

    /// Far-terrain height at global grid `(gx, gy)` (cells from the origin
    /// corner, see [`crate::world::coords`]), interpolated on the tile's
    /// grid by [`WdlTile::height_local`]; `None` outside the world or where
    /// no tile has data. A point on a tile border with data on one side only
    /// is answered by that side. Holes do not remove the surface (compare
    /// [`WdlTile::is_hole`]), like [`World::height_at`].
    pub fn height_at_grid(&self, gx: f64, gy: f64) -> Option<f32> {
        let limit = f64::from(WORLD_CELLS);
        if !(gx >= 0.0 && gx <= limit && gy >= 0.0 && gy <= limit) {
            return None;
        }
        let (tx, ty) = (gx / TILE_CELLS, gy / TILE_CELLS);
        let cand = |t: f64| {
            let f = t.floor();
            // Also the tile before when the point is on (or within a hair of)
            // its far edge.
            let near = (t - f) * TILE_CELLS < 1e-6 && f >= 1.0;
            [Some(f), near.then_some(f - 1.0)]
        };
        for ty in cand(ty).into_iter().flatten() {
            for tx in cand(tx).into_iter().flatten() {
                if tx >= f64::from(WORLD_TILES) || ty >= f64::from(WORLD_TILES) {
                    continue;
                }
                let coord = TileCoord::new(tx as u32, ty as u32);
                if let Some(t) = self.tile(coord) {
                    return Some(t.height_local(
                        (gx - tx * TILE_CELLS) / STEP,
                        (gy - ty * TILE_CELLS) / STEP,
                    ));
                }
            }
        }
        None
    }

    /// Far-terrain height at world `(x, y)` (see [`Wdl::height_at_grid`]).
    pub fn height_at(&self, x: f64, y: f64) -> Option<f32> {
        let (gx, gy) = coords::world_to_grid(x, y);
        self.height_at_grid(gx, gy)
    }

    /// Global grid position `(gx, gy)` of outer point `(row, col)` of `tile`.
    pub fn outer_grid(tile: TileCoord, row: usize, col: usize) -> (f64, f64) {
        (
            f64::from(tile.x) * TILE_CELLS + col as f64 * STEP,
            f64::from(tile.y) * TILE_CELLS + row as f64 * STEP,
        )
    }

    /// Global grid position `(gx, gy)` of inner point `(row, col)` of `tile`.
    pub fn inner_grid(tile: TileCoord, row: usize, col: usize) -> (f64, f64) {
        let (gx, gy) = Self::outer_grid(tile, row, col);
        (gx + STEP / 2.0, gy + STEP / 2.0)
    }
}

/// Serialises `wdl`: MVER 18, empty MWMO/MWID/MODF, MAOF, then per tile with
/// data (row-major) its MARE and, when it has one, its MAHO.
pub fn write_wdl(wdl: &Wdl) -> Vec<u8> {
    let mut o = Out::default();
    o.chunk(b"MVER", |o| o.u32(VERSION));
    o.chunk(b"MWMO", |_| {});
    o.chunk(b"MWID", |_| {});
    o.chunk(b"MODF", |_| {});
    let maof = o.chunk(b"MAOF", |o| o.zeros(MAOF_SIZE)) + 8;
    for (coord, t) in wdl.tiles() {
        let at = o.pos();
        o.patch_u32(maof + 4 * coord.index(), super::bytes::u32_of(at));
        o.chunk(b"MARE", |o| {
            for v in t.values() {
                o.bytes(&v.to_le_bytes());
            }
        });
        if let Some(h) = t.holes {
            o.chunk(b"MAHO", |o| h.iter().for_each(|&m| o.u16(m)));
        }
    }
    o.buf
}

/// Parses a WDL: MVER 18, chunks up to MAOF (others skipped), then the MARE
/// (and optional MAHO) each non-zero MAOF entry points at. Every offset and
/// size is checked; an error names the file, the chunk and the offset.
pub fn read_wdl(data: &[u8], file: &str) -> Result<Wdl, FormatError> {
    let r = Reader::new(data, file);
    let mver = r.expect_chunk("file", 0, b"MVER")?;
    if mver.size < 4 {
        return Err(r.err("MVER", mver.offset, format!("size {} < 4", mver.size)));
    }
    let version = r.u32("MVER", mver.data)?;
    if version != VERSION {
        return Err(FormatError::Unsupported {
            file: file.to_owned(),
            what: format!("WDL version {version} (only {VERSION} is read)"),
        });
    }
    let mut at = mver.end();
    let maof = loop {
        if at >= r.len() {
            return Err(r.err("file", at, "no MAOF chunk"));
        }
        let c = r.chunk_at("file", at)?;
        if &c.tag == b"MAOF" {
            break c;
        }
        at = c.end();
    };
    if maof.size < MAOF_SIZE {
        return Err(r.err(
            "MAOF",
            maof.offset,
            format!("size {} < {MAOF_SIZE} (64 x 64 offsets)", maof.size),
        ));
    }
    let mut wdl = Wdl::new();
    for i in 0..MAOF_ENTRIES {
        let entry = maof.data + 4 * i;
        let off = r.u32("MAOF", entry)? as usize;
        if off == 0 {
            continue;
        }
        let coord = TileCoord::new(i as u32 % WORLD_TILES, i as u32 / WORLD_TILES);
        let what = format!("MAOF entry {entry:#x} (tile {}, {})", coord.x, coord.y);
        if off >= r.len() {
            return Err(r.err(
                "MAOF",
                entry,
                format!(
                    "offset {off:#x} of tile ({}, {}) is past the end of the file ({:#x})",
                    coord.x,
                    coord.y,
                    r.len()
                ),
            ));
        }
        let mare = r.expect_chunk(&what, off, b"MARE")?;
        if mare.size != MARE_SIZE {
            return Err(r.err(
                "MARE",
                mare.offset,
                format!(
                    "size {} of tile ({}, {}) is not {MARE_SIZE} ({MARE_VALUES} heights)",
                    mare.size, coord.x, coord.y
                ),
            ));
        }
        let b = r.bytes("MARE", mare.data, MARE_SIZE)?;
        let v = |k: usize| i16::from_le_bytes([b[2 * k], b[2 * k + 1]]);
        let mut t = WdlTile::flat(0);
        for (k, h) in t.outer.iter_mut().flatten().enumerate() {
            *h = v(k);
        }
        for (k, h) in t.inner.iter_mut().flatten().enumerate() {
            *h = v(OUTER * OUTER + k);
        }
        let next = mare.end();
        if next + 8 <= r.len() {
            let raw: [u8; 4] = r.array("MARE", next)?;
            if tag_name([raw[3], raw[2], raw[1], raw[0]]) == "MAHO" {
                let maho = r.chunk_at("MAHO", next)?;
                if maho.size != MAHO_SIZE {
                    return Err(r.err(
                        "MAHO",
                        maho.offset,
                        format!(
                            "size {} of tile ({}, {}) is not {MAHO_SIZE} (16 row masks)",
                            maho.size, coord.x, coord.y
                        ),
                    ));
                }
                let mut h = [0u16; INNER];
                for (k, m) in h.iter_mut().enumerate() {
                    *m = r.u16("MAHO", maho.data + 2 * k)?;
                }
                t.holes = Some(h);
            }
        }
        wdl.set(coord, Some(t));
    }
    Ok(wdl)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tile whose values encode their position, with a MAHO.
    fn patterned(seed: i16) -> WdlTile {
        let mut t = WdlTile::flat(0);
        for r in 0..OUTER {
            for c in 0..OUTER {
                t.outer[r][c] = seed + (r * 100 + c) as i16;
            }
        }
        for r in 0..INNER {
            for c in 0..INNER {
                t.inner[r][c] = -seed - (r * 100 + c) as i16;
            }
        }
        let mut h = [0u16; INNER];
        h[3] = 0b1010;
        t.holes = Some(h);
        t
    }

    fn sample_wdl() -> Wdl {
        let mut w = Wdl::new();
        w.set(TileCoord::new(31, 49), Some(patterned(7)));
        let mut plain = patterned(-3000);
        plain.holes = None;
        w.set(TileCoord::new(32, 48), Some(plain));
        w.set(TileCoord::new(63, 63), Some(WdlTile::flat(i16::MIN)));
        w
    }

    #[test]
    fn round_trips_tiles_heights_and_holes() {
        let w = sample_wdl();
        let bytes = write_wdl(&w);
        let back = read_wdl(&bytes, "t.wdl").expect("read");
        assert_eq!(back, w);
        assert_eq!(back.tile_count(), 3);
        assert_eq!(
            back.tiles().map(|(c, _)| c).collect::<Vec<_>>(),
            vec![
                TileCoord::new(32, 48),
                TileCoord::new(31, 49),
                TileCoord::new(63, 63)
            ]
        );
        assert_eq!(write_wdl(&back), bytes);
        let t = back.tile(TileCoord::new(31, 49)).expect("tile");
        assert!(t.is_hole(1, 3) && t.is_hole(3, 3) && !t.is_hole(0, 3));
        assert_eq!(t.hole_count(), 2);
        assert!(back
            .tile(TileCoord::new(32, 48))
            .expect("t")
            .holes
            .is_none());
        assert!(back.tile(TileCoord::new(0, 0)).is_none());
    }

    #[test]
    fn known_bytes_and_offsets() {
        let mut w = Wdl::new();
        let mut t = WdlTile::flat(0);
        t.outer[0][1] = 0x1234;
        t.inner[15][15] = -2;
        let mut holes = [0u16; INNER];
        holes[15] = 0x8001;
        t.holes = Some(holes);
        w.set(TileCoord::new(5, 2), Some(t));
        let b = write_wdl(&w);
        // MVER (12) + three empty chunks (24) + MAOF header (8).
        let maof = 12 + 24 + 8;
        assert_eq!(&b[12..16], b"OMWM");
        assert_eq!(&b[maof - 8..maof - 4], b"FOAM");
        let mare = maof + MAOF_SIZE;
        // Row-major [y][x]: entry (x=5, y=2) is number 2 * 64 + 5.
        let entry = maof + 4 * (2 * 64 + 5);
        assert_eq!(b[entry..entry + 4], (mare as u32).to_le_bytes());
        assert_eq!(&b[mare..mare + 4], b"ERAM");
        assert_eq!(b[mare + 4..mare + 8], (MARE_SIZE as u32).to_le_bytes());
        assert_eq!(b[mare + 10..mare + 12], 0x1234i16.to_le_bytes());
        let last = mare + 8 + MARE_SIZE - 2;
        assert_eq!(b[last..last + 2], (-2i16).to_le_bytes());
        let maho = mare + 8 + MARE_SIZE;
        assert_eq!(&b[maho..maho + 4], b"OHAM");
        assert_eq!(b[maho + 8 + 30..], 0x8001u16.to_le_bytes());
        assert_eq!(b.len(), maho + 8 + MAHO_SIZE);
    }

    #[test]
    fn height_at_hits_grid_values_and_fans_between() {
        let mut w = Wdl::new();
        let tile = TileCoord::new(10, 20);
        let mut t = WdlTile::flat(0);
        t.outer[2][3] = 10;
        t.outer[2][4] = 20;
        t.outer[3][3] = 30;
        t.outer[3][4] = 40;
        t.inner[2][3] = 100;
        t.outer[16][16] = -7;
        w.set(tile, Some(t));
        let at = |g: (f64, f64)| w.height_at_grid(g.0, g.1).expect("inside");
        assert_eq!(at(Wdl::outer_grid(tile, 2, 3)), 10.0);
        assert_eq!(at(Wdl::outer_grid(tile, 3, 4)), 40.0);
        assert_eq!(at(Wdl::inner_grid(tile, 2, 3)), 100.0);
        // The far corner (on the border with tiles that have no data).
        assert_eq!(at(Wdl::outer_grid(tile, 16, 16)), -7.0);
        // Middle of the top edge of MCNK (3, 2): half tl, half tr.
        let (gx, gy) = Wdl::outer_grid(tile, 2, 3);
        assert_eq!(at((gx + 4.0, gy)), 15.0);
        // Half way to the centre along the diagonal, (u, v) = (0.25, 0.25):
        // the fan weighs tl 0.5, tr 0 and the centre 0.5.
        assert_eq!(at((gx + 2.0, gy + 2.0)), 55.0);
        // World coordinates agree with grid coordinates.
        let (x, y) = coords::grid_to_world(gx, gy);
        assert_eq!(w.height_at(x, y), Some(10.0));
        assert_eq!(w.height_at_grid(0.0, 0.0), None);
        assert_eq!(w.height_at_grid(-1.0, 5.0), None);
        assert_eq!(w.height_at_grid(f64::NAN, 5.0), None);
    }

    #[test]
    fn quantize_rounds_and_clamps() {
        assert_eq!(quantize(1.49), 1);
        assert_eq!(quantize(1.5), 2);
        assert_eq!(quantize(-2.5), -3);
        assert_eq!(quantize(40000.0), i16::MAX);
        assert_eq!(quantize(-1e9), i16::MIN);
    }

    fn err(bytes: &[u8]) -> String {
        read_wdl(bytes, "Map.wdl").expect_err("refused").to_string()
    }

    #[test]
    fn bad_files_are_errors_naming_chunk_and_offset() {
        let mut w = Wdl::new();
        w.set(TileCoord::new(1, 0), Some(patterned(1)));
        let good = write_wdl(&w);
        let maof = 12 + 24 + 8;
        let mare = maof + MAOF_SIZE;
        // Truncated inside the MARE.
        let e = err(&good[..mare + 100]);
        assert!(
            e.contains("Map.wdl") && e.contains(&format!("MARE at offset {mare:#x}")),
            "{e}"
        );
        // Truncated inside MAOF.
        let e = err(&good[..maof + 10]);
        assert!(e.contains("MAOF") && e.contains("0x24"), "{e}");
        // Offset past the end.
        let mut bad = good.clone();
        bad[maof + 4..maof + 8].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
        let e = err(&bad);
        assert!(e.contains("MAOF") && e.contains("past the end"), "{e}");
        // Offset pointing at something that is not a MARE.
        let mut bad = good.clone();
        bad[maof + 4..maof + 8].copy_from_slice(&12u32.to_le_bytes());
        let e = err(&bad);
        assert!(
            e.contains("MAOF entry 0x30 (tile 1, 0) at offset 0xc")
                && e.contains("expected chunk MARE but found MWMO"),
            "{e}"
        );
        // Wrong MARE size.
        let mut bad = good.clone();
        bad[mare + 4..mare + 8].copy_from_slice(&1000u32.to_le_bytes());
        let e = err(&bad);
        assert!(
            e.contains("MARE at offset") && e.contains("size 1000"),
            "{e}"
        );
        // Wrong MAHO size.
        let mut bad = good.clone();
        let maho = mare + 8 + MARE_SIZE;
        bad[maho + 4..maho + 8].copy_from_slice(&4u32.to_le_bytes());
        let e = err(&bad);
        assert!(e.contains(&format!("MAHO at offset {maho:#x}")), "{e}");
        // No MAOF at all.
        let e = err(&good[..36]);
        assert!(e.contains("no MAOF"), "{e}");
        // Other versions and non-WDL files.
        let mut bad = good.clone();
        bad[8] = 19;
        assert!(err(&bad).contains("version 19"));
        assert!(err(b"MPQ\x1a").contains("Map.wdl"));
        assert!(err(&[]).contains("Map.wdl"));
        // A MARE followed by the next tile's MARE has no MAHO.
        let mut two = Wdl::new();
        let mut a = patterned(1);
        a.holes = None;
        two.set(TileCoord::new(0, 0), Some(a.clone()));
        two.set(TileCoord::new(1, 0), Some(a));
        assert_eq!(read_wdl(&write_wdl(&two), "t.wdl").expect("read"), two);
    }

    #[test]
    fn from_world_samples_exact_heights_and_full_holes() {
        let coord = TileCoord::new(30, 40);
        let h = |gx: f64, gy: f64| (gx * 0.37 + gy * 0.11).sin() as f32 * 40.0 + 0.3 * gy as f32;
        let mut tile = crate::world::AdtTile::from_height_fn(coord, vec![], &h, |_, _| Vec::new());
        tile.mcnks[17].header.holes_low_res = u16::MAX; // (1, 1): a full hole
        tile.mcnks[18].header.holes_low_res = 0x0001; // (2, 1): partial, not representable
        let mut world = World::new("T");
        world.insert(std::sync::Arc::new(tile)).expect("insert");
        let wdl = Wdl::from_world(&world).expect("wdl");
        let t = wdl.tile(coord).expect("tile");
        assert!(t.is_hole(1, 1) && !t.is_hole(2, 1));
        assert_eq!(t.hole_count(), 1);
        for r in 0..OUTER {
            for c in 0..OUTER {
                let (gx, gy) = Wdl::outer_grid(coord, r, c);
                let (x, y) = coords::grid_to_world(gx, gy);
                let exact = world.height_at(x, y).expect("resident");
                let d = (f32::from(t.outer[r][c]) - exact).abs();
                assert!(d <= 0.5, "outer ({r}, {c}): {} vs {exact}", t.outer[r][c]);
                assert_eq!(wdl.height_at_grid(gx, gy), Some(f32::from(t.outer[r][c])));
            }
        }
        for r in 0..INNER {
            for c in 0..INNER {
                let (gx, gy) = Wdl::inner_grid(coord, r, c);
                let (x, y) = coords::grid_to_world(gx, gy);
                let exact = world.height_at(x, y).expect("resident");
                assert!((f32::from(t.inner[r][c]) - exact).abs() <= 0.5);
            }
        }
        // Heights vary, so a transposed grid would fail the checks above.
        let (lo, hi) = t.range();
        assert!(hi - lo > 20, "{lo}..{hi}");
    }
}
