//! Building MCNKs and tiles from a height function over global grid
//! coordinates (used by the procedural presets and by tests).

use super::coords::{ChunkCoord, TileCoord, CHUNK_CELLS, TILE_CHUNKS, UNIT_SIZE};
use super::{AdtTile, Layer, Mcnk, McnkHeader, MCVT_COUNT};

/// Global grid coordinates `(gx, gy)` (cells from the origin corner) of MCVT
/// vertex `i` of MCNK `chunk`.
pub fn mcvt_vertex_grid(chunk: ChunkCoord, i: usize) -> (f64, f64) {
    let (row, rem) = (i / 17, i % 17);
    let (r, c) = if rem < 9 {
        (row as f64, rem as f64)
    } else {
        (row as f64 + 0.5, (rem - 9) as f64 + 0.5)
    };
    let cells = CHUNK_CELLS as f64;
    (chunk.x as f64 * cells + c, chunk.y as f64 * cells + r)
}

impl Mcnk {
    /// An MCNK of tile `tile` at `(index_x, index_y)` whose surface samples
    /// `height(gx, gy)` (absolute height at global grid coordinates) at each
    /// MCVT vertex. The base height is the lowest sample; MCNR comes from
    /// central differences of `height`. Layers are set to `layers` and the
    /// header maps left empty.
    pub fn from_height_fn(
        tile: TileCoord,
        index_x: u32,
        index_y: u32,
        height: &impl Fn(f64, f64) -> f32,
        layers: Vec<Layer>,
    ) -> Self {
        let chunk = ChunkCoord::from_tile(tile, index_x, index_y);
        let mut abs = [0.0f32; MCVT_COUNT];
        let mut normals = [[0i8; 3]; MCVT_COUNT];
        for (i, (h, n)) in abs.iter_mut().zip(normals.iter_mut()).enumerate() {
            let (gx, gy) = mcvt_vertex_grid(chunk, i);
            *h = height(gx, gy);
            let e = 0.25;
            let hgx = (height(gx + e, gy) - height(gx - e, gy)) as f64 / (2.0 * e * UNIT_SIZE);
            let hgy = (height(gx, gy + e) - height(gx, gy - e)) as f64 / (2.0 * e * UNIT_SIZE);
            // x = ORIGIN - gy * unit and y = ORIGIN - gx * unit, so dh/dx = -hgy, dh/dy = -hgx;
            // the surface normal (-dh/dx, -dh/dy, 1) is (hgy, hgx, 1).
            let len = (hgx * hgx + hgy * hgy + 1.0).sqrt();
            *n = [hgy / len, hgx / len, 1.0 / len]
                .map(|c| (c * 127.0).round().clamp(-127.0, 127.0) as i8);
        }
        let base = abs.iter().copied().fold(f32::INFINITY, f32::min);
        let [ox, oy] = chunk.origin();
        Self {
            header: McnkHeader {
                index_x,
                index_y,
                position: [ox as f32, oy as f32, base],
                ..McnkHeader::default()
            },
            heights: abs.map(|h| h - base),
            normals,
            layers,
        }
    }
}

impl AdtTile {
    /// A tile whose 256 MCNKs come from [`Mcnk::from_height_fn`], each with
    /// the layers `layers(index_x, index_y)` returns.
    pub fn from_height_fn(
        coord: TileCoord,
        textures: Vec<String>,
        height: &impl Fn(f64, f64) -> f32,
        mut layers: impl FnMut(u32, u32) -> Vec<Layer>,
    ) -> Self {
        let mut mcnks = Vec::with_capacity((TILE_CHUNKS * TILE_CHUNKS) as usize);
        for iy in 0..TILE_CHUNKS {
            for ix in 0..TILE_CHUNKS {
                mcnks.push(Mcnk::from_height_fn(coord, ix, iy, height, layers(ix, iy)));
            }
        }
        Self {
            coord,
            textures,
            mcnks,
            tileset: Vec::new(),
        }
    }
}
