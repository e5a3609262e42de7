//! World coordinates: the mapping between WoW world positions (as stored in
//! MCNK headers) and the tile / MCNK / cell grid.
//!
//! # Convention
//!
//! sward uses the world coordinates the ADT v18 MCNK `position` field stores:
//! `x` and `y` horizontal, `z` up (z is the MCNK base height). The map origin
//! corner is at `x = y = ORIGIN = 32 * TILE_SIZE` (17066.666); indices grow
//! *away* from it:
//!
//! * going down the rows (tile row `TileCoord::y`, MCNK `index_y`, cell row,
//!   MCVT row) **X decreases**;
//! * going across the columns (tile column `TileCoord::x`, MCNK `index_x`,
//!   cell column, MCVT column) **Y decreases**.
//!
//! So for tile `(tx, ty)` (the ADT file `Map_tx_ty.adt`) and MCNK
//! `(index_x, index_y)`:
//!
//! ```text
//! mcnk.position.x = ORIGIN - ty * TILE_SIZE - index_y * CHUNK_SIZE
//! mcnk.position.y = ORIGIN - tx * TILE_SIZE - index_x * CHUNK_SIZE
//! MCVT outer vertex (r, c): x = position.x - r * UNIT_SIZE, y = position.y - c * UNIT_SIZE
//! MCVT inner vertex (r, c): x = position.x - (r + 0.5) * UNIT_SIZE, y = position.y - (c + 0.5) * UNIT_SIZE
//! ```
//!
//! The position stored in an MCNK is therefore its corner with the largest X
//! and Y. The *grid* coordinates used throughout sward are measured in cells
//! from the origin corner: `gx = (ORIGIN - y) / UNIT_SIZE` (column direction)
//! and `gy = (ORIGIN - x) / UNIT_SIZE` (row direction), both in `[0, 8192)`
//! inside the world. A point exactly on a boundary belongs to the cell / MCNK /
//! tile with the larger index (lower X or Y). Inside a cell, `u` runs along the
//! column direction and `v` along the row direction, both in `[0, 1)`.
//!
//! Conversions are done in `f64` so that positions far from the origin keep
//! sub-millimetre precision.

/// ADT tiles per world axis.
pub const WORLD_TILES: u32 = 64;
/// MCNKs per ADT axis.
pub const TILE_CHUNKS: u32 = 16;
/// Cells per MCNK axis.
pub const CHUNK_CELLS: u32 = 8;
/// MCNKs per world axis.
pub const WORLD_CHUNKS: u32 = WORLD_TILES * TILE_CHUNKS;
/// Cells per world axis.
pub const WORLD_CELLS: u32 = WORLD_CHUNKS * CHUNK_CELLS;
/// Side of an ADT tile in world units (1600 / 3).
pub const TILE_SIZE: f64 = 1600.0 / 3.0;
/// Side of an MCNK in world units.
pub const CHUNK_SIZE: f64 = TILE_SIZE / TILE_CHUNKS as f64;
/// Side of a cell (MCVT unit) in world units.
pub const UNIT_SIZE: f64 = CHUNK_SIZE / CHUNK_CELLS as f64;
/// World X and Y of the map origin corner (`32 * TILE_SIZE`).
pub const ORIGIN: f64 = 32.0 * TILE_SIZE;

/// An ADT tile: `x` is the column (first number in `Map_x_y.adt`), `y` the row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct TileCoord {
    /// Tile column, 0..64; Y decreases as it grows.
    pub x: u32,
    /// Tile row, 0..64; X decreases as it grows.
    pub y: u32,
}

impl TileCoord {
    /// A tile coordinate (no range check; see [`TileCoord::is_valid`]).
    pub const fn new(x: u32, y: u32) -> Self {
        Self { x, y }
    }

    /// Whether the tile lies inside the 64x64 world grid.
    pub fn is_valid(self) -> bool {
        self.x < WORLD_TILES && self.y < WORLD_TILES
    }

    /// Row-major index in the 64x64 grid (`y * 64 + x`).
    pub fn index(self) -> usize {
        (self.y * WORLD_TILES + self.x) as usize
    }

    /// World (x, y) of the tile's origin corner (largest X and Y).
    pub fn origin(self) -> [f64; 2] {
        [
            ORIGIN - self.y as f64 * TILE_SIZE,
            ORIGIN - self.x as f64 * TILE_SIZE,
        ]
    }

    /// The tile offset by `(dx, dy)` tiles, or `None` outside the world.
    pub fn offset(self, dx: i32, dy: i32) -> Option<Self> {
        let x = self.x as i64 + dx as i64;
        let y = self.y as i64 + dy as i64;
        let range = 0..WORLD_TILES as i64;
        (range.contains(&x) && range.contains(&y)).then(|| Self::new(x as u32, y as u32))
    }
}

/// A global MCNK coordinate: `x = tile.x * 16 + index_x`, `y = tile.y * 16 + index_y`.
/// This is the "world identity" that seeds placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct ChunkCoord {
    /// Global MCNK column, 0..1024 (`globalChunkX`).
    pub x: u32,
    /// Global MCNK row, 0..1024 (`globalChunkY`).
    pub y: u32,
}

impl ChunkCoord {
    /// The global coordinate of MCNK `(index_x, index_y)` of `tile`.
    pub fn from_tile(tile: TileCoord, index_x: u32, index_y: u32) -> Self {
        Self {
            x: tile.x * TILE_CHUNKS + index_x,
            y: tile.y * TILE_CHUNKS + index_y,
        }
    }

    /// The tile holding this MCNK.
    pub fn tile(self) -> TileCoord {
        TileCoord::new(self.x / TILE_CHUNKS, self.y / TILE_CHUNKS)
    }

    /// `(index_x, index_y)` of this MCNK inside its tile.
    pub fn index_in_tile(self) -> (u32, u32) {
        (self.x % TILE_CHUNKS, self.y % TILE_CHUNKS)
    }

    /// The MCNK `position` (x, y) this chunk has in a well-formed ADT: its
    /// origin corner (largest X and Y).
    pub fn origin(self) -> [f64; 2] {
        [
            ORIGIN - self.y as f64 * CHUNK_SIZE,
            ORIGIN - self.x as f64 * CHUNK_SIZE,
        ]
    }
}

/// A cell inside an MCNK: `row` (X decreasing) and `col` (Y decreasing), 0..8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CellCoord {
    /// Cell row (predTex / noEffectDoodad row), 0..8.
    pub row: u32,
    /// Cell column (bit / 2-bit field within a row), 0..8.
    pub col: u32,
}

impl CellCoord {
    /// Row-major cell index `row * 8 + col` (the client's `cellIndex`).
    pub fn index(self) -> u32 {
        self.row * CHUNK_CELLS + self.col
    }

    /// World rectangle of this cell inside the MCNK whose stored position is
    /// `mcnk_pos`: `[x_min, x_max, y_min, y_max]`.
    pub fn rect(self, mcnk_pos: [f32; 3]) -> [f64; 4] {
        let x_max = mcnk_pos[0] as f64 - self.row as f64 * UNIT_SIZE;
        let y_max = mcnk_pos[1] as f64 - self.col as f64 * UNIT_SIZE;
        [x_max - UNIT_SIZE, x_max, y_max - UNIT_SIZE, y_max]
    }
}

/// Where a world position falls in the grid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridLocation {
    /// The ADT tile.
    pub tile: TileCoord,
    /// The MCNK (global coordinate).
    pub chunk: ChunkCoord,
    /// The cell inside the MCNK.
    pub cell: CellCoord,
    /// Position inside the cell along the column direction (Y decreasing), [0, 1).
    pub u: f64,
    /// Position inside the cell along the row direction (X decreasing), [0, 1).
    pub v: f64,
}

/// Grid coordinates `(gx, gy)` in cells from the origin corner for world `(x, y)`.
pub fn world_to_grid(x: f64, y: f64) -> (f64, f64) {
    ((ORIGIN - y) / UNIT_SIZE, (ORIGIN - x) / UNIT_SIZE)
}

/// World `(x, y)` of grid coordinates `(gx, gy)` (inverse of [`world_to_grid`]).
pub fn grid_to_world(gx: f64, gy: f64) -> (f64, f64) {
    (ORIGIN - gy * UNIT_SIZE, ORIGIN - gx * UNIT_SIZE)
}

/// Locates world `(x, y)` on the global grid; `None` outside the 64x64 world
/// or for non-finite input. Uses the ideal grid, not stored MCNK positions.
pub fn locate(x: f64, y: f64) -> Option<GridLocation> {
    let (gx, gy) = world_to_grid(x, y);
    let limit = WORLD_CELLS as f64;
    if !(gx >= 0.0 && gx < limit && gy >= 0.0 && gy < limit) {
        return None;
    }
    let cx = gx.floor() as u32;
    let cy = gy.floor() as u32;
    let chunk = ChunkCoord {
        x: cx / CHUNK_CELLS,
        y: cy / CHUNK_CELLS,
    };
    Some(GridLocation {
        tile: chunk.tile(),
        chunk,
        cell: CellCoord {
            row: cy % CHUNK_CELLS,
            col: cx % CHUNK_CELLS,
        },
        u: gx - cx as f64,
        v: gy - cy as f64,
    })
}

/// The tile containing world `(x, y)`, or `None` outside the world.
pub fn tile_at(x: f64, y: f64) -> Option<TileCoord> {
    locate(x, y).map(|l| l.tile)
}

/// World `(x, y)` of the centre of a tile.
pub fn tile_centre(tile: TileCoord) -> [f64; 2] {
    let [x, y] = tile.origin();
    [x - TILE_SIZE * 0.5, y - TILE_SIZE * 0.5]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_decrease_x_and_columns_decrease_y() {
        let tile = TileCoord::new(32, 48);
        let a = ChunkCoord::from_tile(tile, 0, 0).origin();
        let down = ChunkCoord::from_tile(tile, 0, 1).origin();
        let across = ChunkCoord::from_tile(tile, 1, 0).origin();
        assert!((a[0] - down[0] - CHUNK_SIZE).abs() < 1e-9 && a[1] == down[1]);
        assert!((a[1] - across[1] - CHUNK_SIZE).abs() < 1e-9 && a[0] == across[0]);
        assert_eq!(a, tile.origin());
    }

    #[test]
    fn locate_round_trips_cells_and_uv() {
        let chunk = ChunkCoord::from_tile(TileCoord::new(31, 49), 5, 11);
        let [ox, oy] = chunk.origin();
        // Cell row 3 (x direction), col 6 (y direction), u = 0.25, v = 0.75.
        let x = ox - (3.0 + 0.75) * UNIT_SIZE;
        let y = oy - (6.0 + 0.25) * UNIT_SIZE;
        let loc = locate(x, y).expect("inside the world");
        assert_eq!(loc.chunk, chunk);
        assert_eq!(loc.tile, TileCoord::new(31, 49));
        assert_eq!(loc.cell, CellCoord { row: 3, col: 6 });
        assert!((loc.u - 0.25).abs() < 1e-6 && (loc.v - 0.75).abs() < 1e-6);
        let (gx, gy) = world_to_grid(x, y);
        let (bx, by) = grid_to_world(gx, gy);
        assert!((bx - x).abs() < 1e-9 && (by - y).abs() < 1e-9);
    }

    #[test]
    fn outside_world_is_none() {
        assert!(locate(ORIGIN + 1.0, 0.0).is_none());
        assert!(locate(0.0, -ORIGIN - 1.0).is_none());
        assert!(locate(f64::NAN, 0.0).is_none());
        assert!(locate(ORIGIN - 0.001, ORIGIN - 0.001).is_some());
        assert_eq!(TileCoord::new(63, 0).offset(1, 0), None);
        assert_eq!(
            TileCoord::new(3, 4).offset(-1, 1),
            Some(TileCoord::new(2, 5))
        );
    }

    #[test]
    fn cell_rect_matches_grid() {
        let chunk = ChunkCoord { x: 500, y: 700 };
        let [ox, oy] = chunk.origin();
        let rect = CellCoord { row: 2, col: 7 }.rect([ox as f32, oy as f32, 0.0]);
        let loc = locate((rect[0] + rect[1]) / 2.0, (rect[2] + rect[3]) / 2.0).expect("inside");
        assert_eq!(loc.chunk, chunk);
        assert_eq!(loc.cell, CellCoord { row: 2, col: 7 });
    }
}
