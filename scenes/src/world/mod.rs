//! The in-memory world model: a sparse map of ADT tiles, each a 16x16 grid of
//! MCNKs mirroring the ADT v18 fields sward uses (header maps, MCVT, MCNR,
//! MCLY, MCAL). Coordinates are documented in [`coords`]; the exact height
//! reference lives in [`height`].
//!
//! Field orientation (all maps are indexed `[row][col]`, row = X decreasing,
//! col = Y decreasing, see [`coords`]):
//!
//! * `holes_low_res` (u16, header 0x3C): bit `(row / 2) * 4 + col / 2` removes
//!   a 2x2-cell block.
//! * predTex (16 bytes, header 0x40): one little-endian u16 per row; the layer
//!   of cell `(row, col)` is `(row_u16 >> (2 * col)) & 3`.
//! * noEffectDoodad (8 bytes, header 0x50): one byte per row; cell `(row, col)`
//!   is suppressed when bit `col` of byte `row` is set.
//! * MCVT: 145 heights relative to `position.z`, 9 outer + 8 inner per row for
//!   8 rows, then 9 outer.
//! * MCNR: 145 normals in the same order, `i8` per axis with 127 = 1.0, stored
//!   here in world axes `[x, y, z]` (z up).
//! * MCAL: one 64x64 `u8` alpha map per layer above 0, row-major, rows and
//!   columns oriented like the cells (texel `(r, c)` covers cell `(r / 8, c / 8)`).

mod build;
pub mod coords;
pub mod height;
#[cfg(test)]
mod tests;

use std::sync::Arc;

pub use build::mcvt_vertex_grid;
pub use coords::{CellCoord, ChunkCoord, GridLocation, TileCoord};

/// Heights (and normals) per MCNK: 9x9 outer plus 8x8 inner vertices.
pub const MCVT_COUNT: usize = 145;
/// MCNKs per ADT tile.
pub const TILE_MCNKS: usize = 256;
/// Side of an MCAL alpha map in texels.
pub const ALPHA_SIZE: usize = 64;
/// Texels in one MCAL alpha map.
pub const ALPHA_TEXELS: usize = ALPHA_SIZE * ALPHA_SIZE;
/// Most texture layers an MCNK can carry.
pub const MAX_LAYERS: usize = 4;
/// Effect id values that mean "no ground effect".
pub const EFFECT_NONE: [u32; 2] = [0, u32::MAX];

/// The 8x8 predicted-texture map: the MCLY layer index of each cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PredTex(pub [u16; 8]);

impl PredTex {
    /// The layer index (0..4) of cell `(row, col)`.
    pub fn layer(&self, row: u32, col: u32) -> u32 {
        ((self.0[row as usize & 7] >> (2 * (col & 7))) & 3) as u32
    }

    /// Sets the layer index of cell `(row, col)` (only the low 2 bits are kept).
    pub fn set(&mut self, row: u32, col: u32, layer: u32) {
        let shift = 2 * (col & 7);
        let r = &mut self.0[row as usize & 7];
        *r = (*r & !(3 << shift)) | (((layer & 3) as u16) << shift);
    }

    /// Decodes the 16 header bytes at 0x40 (little-endian u16 per row).
    pub fn from_bytes(bytes: [u8; 16]) -> Self {
        Self(std::array::from_fn(|r| {
            u16::from_le_bytes([bytes[2 * r], bytes[2 * r + 1]])
        }))
    }

    /// Encodes the 16 header bytes.
    pub fn to_bytes(&self) -> [u8; 16] {
        let mut out = [0u8; 16];
        for (r, v) in self.0.iter().enumerate() {
            out[2 * r..2 * r + 2].copy_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// All 64 layer indices as `[row][col]`.
    pub fn to_grid(&self) -> [[u32; 8]; 8] {
        std::array::from_fn(|r| std::array::from_fn(|c| self.layer(r as u32, c as u32)))
    }
}

/// The 8x8 noEffectDoodad suppression map: one byte per row, bit = column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct NoEffectDoodad(pub [u8; 8]);

impl NoEffectDoodad {
    /// Whether ground-effect doodads are suppressed in cell `(row, col)`.
    pub fn is_set(&self, row: u32, col: u32) -> bool {
        (self.0[row as usize & 7] >> (col & 7)) & 1 != 0
    }

    /// Sets or clears the suppression bit of cell `(row, col)`.
    pub fn set(&mut self, row: u32, col: u32, on: bool) {
        let bit = 1u8 << (col & 7);
        let r = &mut self.0[row as usize & 7];
        *r = if on { *r | bit } else { *r & !bit };
    }

    /// The map as the 64-bit value the header stores (little-endian bytes).
    pub fn to_u64(&self) -> u64 {
        u64::from_le_bytes(self.0)
    }

    /// All 64 bits as `[row][col]`.
    pub fn to_grid(&self) -> [[bool; 8]; 8] {
        std::array::from_fn(|r| std::array::from_fn(|c| self.is_set(r as u32, c as u32)))
    }
}

/// Whether `holes_low_res` removes cell `(row, col)` (bit `(row/2)*4 + col/2`).
pub fn hole_bit(holes_low_res: u16, row: u32, col: u32) -> bool {
    (holes_low_res >> ((row / 2) * 4 + col / 2)) & 1 != 0
}

/// The `holes_low_res` bit that covers cell `(row, col)`.
pub fn hole_mask_for_cell(row: u32, col: u32) -> u16 {
    1 << ((row / 2) * 4 + col / 2)
}

/// The MCNK header fields sward uses (the ADT v18 128-byte header holds more).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct McnkHeader {
    /// MCNK flags as stored.
    pub flags: u32,
    /// Column of the MCNK inside its tile, 0..16 (Y decreases as it grows).
    pub index_x: u32,
    /// Row of the MCNK inside its tile, 0..16 (X decreases as it grows).
    pub index_y: u32,
    /// Position as stored: (x, y) of the origin corner and z = base height.
    pub position: [f32; 3],
    /// Low-resolution hole mask (16 bits, one per 2x2-cell block).
    pub holes_low_res: u16,
    /// Per-cell predicted texture layer.
    pub pred_tex: PredTex,
    /// Per-cell ground-effect suppression.
    pub no_effect_doodad: NoEffectDoodad,
}

impl McnkHeader {
    /// Whether cell `(row, col)` is a hole.
    pub fn is_hole(&self, row: u32, col: u32) -> bool {
        hole_bit(self.holes_low_res, row, col)
    }
}

/// One MCAL alpha map: 64x64 `u8`, row-major `[row][col]`.
#[derive(Clone, PartialEq, Eq)]
pub struct AlphaMap(pub Box<[u8; ALPHA_TEXELS]>);

impl AlphaMap {
    /// A map filled with one value.
    pub fn filled(value: u8) -> Self {
        Self(Box::new([value; ALPHA_TEXELS]))
    }

    /// The texel at `(row, col)` (both masked to 0..64).
    pub fn get(&self, row: usize, col: usize) -> u8 {
        self.0[(row & 63) * ALPHA_SIZE + (col & 63)]
    }
}

impl std::fmt::Debug for AlphaMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sum: u64 = self.0.iter().map(|&a| a as u64).sum();
        write!(f, "AlphaMap(mean {:.1})", sum as f64 / ALPHA_TEXELS as f64)
    }
}

/// One MCLY texture layer and its MCAL alpha.
#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    /// Index into the tile's texture list (MTEX).
    pub texture_id: u32,
    /// MCLY flags as stored.
    pub flags: u32,
    /// GroundEffectTexture id; 0 or 0xFFFFFFFF mean none.
    pub effect_id: u32,
    /// MCAL alpha; `None` for layer 0, which is implicitly opaque.
    pub alpha: Option<AlphaMap>,
}

impl Layer {
    /// The ground effect of this layer, or `None` when it has none.
    pub fn effect(&self) -> Option<u32> {
        (!EFFECT_NONE.contains(&self.effect_id)).then_some(self.effect_id)
    }
}

/// One MCNK: header, MCVT, MCNR and layers.
#[derive(Clone, Debug, PartialEq)]
pub struct Mcnk {
    /// Header fields.
    pub header: McnkHeader,
    /// MCVT: 145 heights relative to `header.position[2]`, file order.
    pub heights: [f32; MCVT_COUNT],
    /// MCNR: 145 normals, world axes, 127 = 1.0, file order.
    pub normals: [[i8; 3]; MCVT_COUNT],
    /// MCLY layers (at most four) with their MCAL maps.
    pub layers: Vec<Layer>,
}

impl Mcnk {
    /// Number of texture layers (`n_layers` in the header).
    pub fn n_layers(&self) -> u32 {
        self.layers.len() as u32
    }

    /// The global coordinate of this MCNK inside `tile`.
    pub fn chunk_coord(&self, tile: TileCoord) -> ChunkCoord {
        ChunkCoord::from_tile(tile, self.header.index_x, self.header.index_y)
    }

    /// Effective splat weight (0..=255) of layer `layer` at MCAL texel
    /// `(row, col)`: layers blend in order, so layer k weighs
    /// `a_k * prod_{j>k} (1 - a_j)`, layer 0 having `a_0 = 1`.
    pub fn layer_weight(&self, layer: usize, row: usize, col: usize) -> u8 {
        let alpha = |l: &Layer| l.alpha.as_ref().map_or(255u32, |a| a.get(row, col) as u32);
        let Some(own) = self.layers.get(layer) else {
            return 0;
        };
        let mut w = if layer == 0 { 255 } else { alpha(own) };
        for upper in self.layers.iter().skip(layer + 1) {
            w = w * (255 - alpha(upper)) / 255;
        }
        w as u8
    }

    /// Checks the invariants the renderers rely on; `what` names the MCNK.
    pub fn validate(&self, what: &str) -> Result<(), WorldError> {
        let bad = |reason: String| {
            Err(WorldError::InvalidMcnk {
                what: what.to_owned(),
                reason,
            })
        };
        if self.header.index_x >= coords::TILE_CHUNKS || self.header.index_y >= coords::TILE_CHUNKS
        {
            return bad(format!(
                "index ({}, {}) out of range",
                self.header.index_x, self.header.index_y
            ));
        }
        if self.layers.len() > MAX_LAYERS {
            return bad(format!(
                "{} layers (at most {MAX_LAYERS})",
                self.layers.len()
            ));
        }
        if let Some(i) = self.layers.iter().skip(1).position(|l| l.alpha.is_none()) {
            return bad(format!("layer {} has no alpha map", i + 1));
        }
        if !self.heights.iter().all(|h| h.is_finite())
            || !self.header.position.iter().all(|p| p.is_finite())
        {
            return bad("non-finite height or position".to_owned());
        }
        Ok(())
    }
}

/// One ADT tile: 256 MCNKs in row-major order (`index_y * 16 + index_x`).
#[derive(Clone, Debug, PartialEq)]
pub struct AdtTile {
    /// Where the tile sits in the 64x64 grid.
    pub coord: TileCoord,
    /// Texture file names (MTEX); MCLY `texture_id` indexes this list.
    pub textures: Vec<String>,
    /// The 256 MCNKs, `mcnks[index_y * 16 + index_x]`.
    pub mcnks: Vec<Mcnk>,
    /// The tileset texture behind each MTEX name, parallel to `textures`
    /// when the tile came from data that holds textures (a data source
    /// fills it while loading the tile); empty for a procedural tile, whose
    /// terrain draws sward's procedural layer textures.
    pub tileset: Vec<TileTexture>,
}

/// What a tile's MTEX entry draws.
#[derive(Clone, Debug, PartialEq)]
pub enum TileTexture {
    /// sward's procedural layer texture chosen by the name
    /// ([`crate::presets::tileset::procedural_tileset`]).
    Procedural,
    /// The BLP the data holds under that name (shared by every tile that
    /// names it).
    Loaded(Arc<crate::models::DetailTexture>),
    /// The data lacks the file or it cannot be read (the reason): drawn as
    /// a checker placeholder and counted.
    Missing(Arc<str>),
}

impl AdtTile {
    /// What MTEX entry `texture_id` draws ([`TileTexture::Procedural`] for
    /// a tile without data textures or an index past the list).
    pub fn tile_texture(&self, texture_id: u32) -> &TileTexture {
        self.tileset
            .get(texture_id as usize)
            .unwrap_or(&TileTexture::Procedural)
    }
}

impl AdtTile {
    /// The MCNK at `(index_x, index_y)`.
    pub fn mcnk(&self, index_x: u32, index_y: u32) -> Option<&Mcnk> {
        if index_x >= coords::TILE_CHUNKS || index_y >= coords::TILE_CHUNKS {
            return None;
        }
        self.mcnks
            .get((index_y * coords::TILE_CHUNKS + index_x) as usize)
    }

    /// Checks that the tile has 256 MCNKs stored in row-major order and that
    /// each is valid.
    pub fn validate(&self) -> Result<(), WorldError> {
        if self.mcnks.len() != TILE_MCNKS {
            return Err(WorldError::InvalidTile {
                tile: self.coord,
                reason: format!("{} MCNKs (expected {TILE_MCNKS})", self.mcnks.len()),
            });
        }
        for (i, m) in self.mcnks.iter().enumerate() {
            // The MCNK's label only for one that fails: this runs for every
            // tile made resident, on the render thread, and formatting 256
            // labels cost more than the checks.
            if m.validate("").is_err() {
                m.validate(&format!(
                    "tile ({}, {}) MCNK {i}",
                    self.coord.x, self.coord.y
                ))?;
            }
            if (m.header.index_y * coords::TILE_CHUNKS + m.header.index_x) as usize != i {
                return Err(WorldError::InvalidTile {
                    tile: self.coord,
                    reason: format!(
                        "MCNK {i} stores index ({}, {})",
                        m.header.index_x, m.header.index_y
                    ),
                });
            }
        }
        Ok(())
    }
}

/// Errors of the world model.
#[derive(Debug, thiserror::Error)]
pub enum WorldError {
    /// An MCNK breaks an invariant.
    #[error("invalid MCNK {what}: {reason}")]
    InvalidMcnk {
        /// Which MCNK.
        what: String,
        /// What is wrong.
        reason: String,
    },
    /// A tile breaks an invariant.
    #[error("invalid ADT tile ({}, {}): {reason}", tile.x, tile.y)]
    InvalidTile {
        /// Which tile.
        tile: TileCoord,
        /// What is wrong.
        reason: String,
    },
    /// Two tiles claim the same grid slot.
    #[error("ADT tile ({}, {}) is present twice", .0.x, .0.y)]
    DuplicateTile(TileCoord),
}

/// A tile that passed [`AdtTile::validate`] and lies on the 64x64 grid:
/// [`World::insert_valid`] takes it without checking it again, so the check
/// runs where the tile was loaded (a streaming worker) and not on the thread
/// that makes it resident.
#[derive(Clone, Debug)]
pub struct ValidTile(Arc<AdtTile>);

impl ValidTile {
    /// Checks `tile` (grid coordinate, then [`AdtTile::validate`]).
    pub fn new(tile: Arc<AdtTile>) -> Result<Self, WorldError> {
        if !tile.coord.is_valid() {
            return Err(WorldError::InvalidTile {
                tile: tile.coord,
                reason: "outside the 64x64 grid".into(),
            });
        }
        tile.validate()?;
        Ok(Self(tile))
    }

    /// The tile.
    pub fn tile(&self) -> &Arc<AdtTile> {
        &self.0
    }

    /// The tile, giving up the proof.
    pub fn into_tile(self) -> Arc<AdtTile> {
        self.0
    }
}

impl std::ops::Deref for ValidTile {
    type Target = Arc<AdtTile>;

    fn deref(&self) -> &Arc<AdtTile> {
        &self.0
    }
}

/// A sparse world: the resident ADT tiles, with O(1) lookup by grid slot.
#[derive(Clone, Debug, Default)]
pub struct World {
    /// Map name (used in file names, e.g. `Azeroth`).
    pub name: String,
    tiles: Vec<Arc<AdtTile>>,
    slots: Vec<u32>,
}

const NO_SLOT: u32 = u32::MAX;

impl World {
    /// An empty world.
    pub fn new(name: impl Into<String>) -> Self {
        let slots = vec![NO_SLOT; (coords::WORLD_TILES * coords::WORLD_TILES) as usize];
        Self {
            name: name.into(),
            tiles: Vec::new(),
            slots,
        }
    }

    /// Adds a tile after validating it; a tile may be present only once.
    pub fn insert(&mut self, tile: Arc<AdtTile>) -> Result<(), WorldError> {
        self.insert_valid(ValidTile::new(tile)?)
    }

    /// Adds a tile validated beforehand; a tile may be present only once.
    pub fn insert_valid(&mut self, tile: ValidTile) -> Result<(), WorldError> {
        let tile = tile.into_tile();
        let slot = &mut self.slots[tile.coord.index()];
        if *slot != NO_SLOT {
            return Err(WorldError::DuplicateTile(tile.coord));
        }
        *slot = self.tiles.len() as u32;
        self.tiles.push(tile);
        Ok(())
    }

    /// Removes a tile, returning it.
    pub fn remove(&mut self, coord: TileCoord) -> Option<Arc<AdtTile>> {
        if !coord.is_valid() {
            return None;
        }
        let slot = std::mem::replace(&mut self.slots[coord.index()], NO_SLOT);
        if slot == NO_SLOT {
            return None;
        }
        let tile = self.tiles.swap_remove(slot as usize);
        if let Some(moved) = self.tiles.get(slot as usize) {
            self.slots[moved.coord.index()] = slot;
        }
        Some(tile)
    }

    /// The tile at `coord`, if resident.
    pub fn tile(&self, coord: TileCoord) -> Option<&Arc<AdtTile>> {
        if !coord.is_valid() {
            return None;
        }
        let slot = self.slots[coord.index()];
        self.tiles.get(slot as usize)
    }

    /// Resident tiles sorted by (row, column).
    pub fn tiles(&self) -> Vec<&Arc<AdtTile>> {
        let mut v: Vec<_> = self.tiles.iter().collect();
        v.sort_by_key(|t| (t.coord.y, t.coord.x));
        v
    }

    /// Number of resident tiles.
    pub fn tile_count(&self) -> usize {
        self.tiles.len()
    }

    /// Number of resident MCNKs.
    pub fn mcnk_count(&self) -> usize {
        self.tiles.iter().map(|t| t.mcnks.len()).sum()
    }

    /// The MCNK with global coordinate `chunk`, if its tile is resident.
    pub fn mcnk(&self, chunk: ChunkCoord) -> Option<&Mcnk> {
        let (ix, iy) = chunk.index_in_tile();
        self.tile(chunk.tile())?.mcnk(ix, iy)
    }

    /// Every resident MCNK with its global coordinate, sorted by tile then
    /// by row-major index inside the tile.
    pub fn mcnks(&self) -> impl Iterator<Item = (ChunkCoord, &Mcnk)> + '_ {
        self.tiles()
            .into_iter()
            .flat_map(|t| t.mcnks.iter().map(move |m| (m.chunk_coord(t.coord), m)))
    }
}
