//! The report behind `sward inspect adt`: every MCNK's header fields, layers,
//! predTex / noEffectDoodad grids and MCVT heights ([`AdtReport`], serialised
//! as the CLI's JSON contract), a readable text summary, and the exact height
//! at a world point through the world height reference.

use std::fmt::Write as _;
use std::sync::Arc;

use super::FormatError;
use crate::world::coords::TileCoord;
use crate::world::{AdtTile, World};

/// One MCLY layer in the report.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LayerReport {
    /// MTEX index.
    pub texture_id: u32,
    /// MCLY flags as stored.
    pub flags: u32,
    /// GroundEffectTexture id as stored.
    pub effect_id: u32,
}

/// One MCNK in the report.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct McnkReport {
    /// Column in the tile.
    pub index_x: u32,
    /// Row in the tile.
    pub index_y: u32,
    /// Header flags.
    pub flags: u32,
    /// Low-resolution hole mask.
    pub holes_low_res: u16,
    /// Position as stored (x, y, z).
    pub position: [f32; 3],
    /// Texture layers.
    pub layers: Vec<LayerReport>,
    /// Layer index per cell, `[row][col]`.
    pub pred_tex: [[u32; 8]; 8],
    /// Suppression per cell, `[row][col]`.
    pub no_effect_doodad: [[bool; 8]; 8],
    /// The 145 MCVT values in file order.
    pub heights: Vec<f32>,
    /// Where the header locates the sub-chunks (offsets from the MCNK's
    /// tag, sizes of the data read).
    pub sub_chunks: super::adt::McnkLayout,
}

/// `sward inspect adt FILE --json`: `{"file", "mcnks": [...]}`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct AdtReport {
    /// The file as given.
    pub file: String,
    /// MCNKs in file (row-major) order.
    pub mcnks: Vec<McnkReport>,
    /// The parsed tile (not serialised), for height queries.
    #[serde(skip)]
    pub tile: Arc<AdtTile>,
}

/// `sward inspect adt FILE --height-at X,Y`: `{"x", "y", "height"}`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct HeightReport {
    /// World X as given.
    pub x: f64,
    /// World Y as given.
    pub y: f64,
    /// Exact terrain height there.
    pub height: f32,
}

/// The tile coordinate in an ADT file name `Map_x_y.adt`, if it has one.
pub fn tile_from_file_name(file: &str) -> Option<TileCoord> {
    let name = std::path::Path::new(file).file_stem()?.to_str()?;
    let mut parts = name.rsplitn(3, '_');
    let y = parts.next()?.parse().ok()?;
    let x = parts.next()?.parse().ok()?;
    parts.next()?;
    let c = TileCoord::new(x, y);
    c.is_valid().then_some(c)
}

/// Parses `data` (the contents of `file`) and builds its report. The tile
/// coordinate comes from the file name when it has the `Map_x_y.adt` form,
/// otherwise from the MCNK positions.
pub fn inspect_adt(data: &[u8], file: &str) -> Result<AdtReport, FormatError> {
    let (tile, layouts) =
        super::adt::read_adt_layouts(data, file, tile_from_file_name(file), None)?;
    let mcnks = tile
        .mcnks
        .iter()
        .zip(layouts)
        .map(|(m, sub_chunks)| McnkReport {
            index_x: m.header.index_x,
            index_y: m.header.index_y,
            flags: m.header.flags,
            holes_low_res: m.header.holes_low_res,
            position: m.header.position,
            layers: m
                .layers
                .iter()
                .map(|l| LayerReport {
                    texture_id: l.texture_id,
                    flags: l.flags,
                    effect_id: l.effect_id,
                })
                .collect(),
            pred_tex: m.header.pred_tex.to_grid(),
            no_effect_doodad: m.header.no_effect_doodad.to_grid(),
            heights: m.heights.to_vec(),
            sub_chunks,
        })
        .collect();
    Ok(AdtReport {
        file: file.to_owned(),
        mcnks,
        tile: Arc::new(tile),
    })
}

impl AdtReport {
    /// The exact height at world `(x, y)` (the coordinates MCNK positions
    /// use), or an error naming the tile when the point is outside it.
    pub fn height_at(&self, x: f64, y: f64) -> Result<HeightReport, FormatError> {
        let mut world = World::new("inspect");
        world
            .insert(self.tile.clone())
            .map_err(|source| FormatError::World {
                file: self.file.clone(),
                source,
            })?;
        let height = world.height_at(x, y).ok_or_else(|| FormatError::Query {
            file: self.file.clone(),
            reason: format!(
                "point ({x}, {y}) is outside tile ({}, {})",
                self.tile.coord.x, self.tile.coord.y
            ),
        })?;
        Ok(HeightReport { x, y, height })
    }

    /// A readable multi-line summary.
    pub fn text(&self) -> String {
        let t = &self.tile;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{}: ADT tile ({}, {}), {} MCNKs, {} textures",
            self.file,
            t.coord.x,
            t.coord.y,
            self.mcnks.len(),
            t.textures.len()
        );
        for (i, name) in t.textures.iter().enumerate() {
            let _ = writeln!(s, "  texture {i}: {name}");
        }
        let holes = self.mcnks.iter().filter(|m| m.holes_low_res != 0).count();
        let suppressed: usize = self
            .mcnks
            .iter()
            .map(|m| m.no_effect_doodad.iter().flatten().filter(|&&b| b).count())
            .sum();
        let (lo, hi) = t
            .mcnks
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), m| {
                m.heights.iter().fold((lo, hi), |(lo, hi), h| {
                    let a = m.header.position[2] + h;
                    (lo.min(a), hi.max(a))
                })
            });
        let _ = writeln!(
            s,
            "  heights {lo:.2} .. {hi:.2}; {holes} MCNKs with holes; {suppressed} noEffectDoodad cells"
        );
        for m in &self.mcnks {
            let layers: Vec<String> = m
                .layers
                .iter()
                .map(|l| {
                    format!(
                        "tex {} fx {} flags {:#x}",
                        l.texture_id, l.effect_id, l.flags
                    )
                })
                .collect();
            let _ = writeln!(
                s,
                "  MCNK ({:2}, {:2}) pos ({:.3}, {:.3}, {:.3}) flags {:#x} holes {:#06x} layers [{}]",
                m.index_x,
                m.index_y,
                m.position[0],
                m.position[1],
                m.position[2],
                m.flags,
                m.holes_low_res,
                layers.join("; ")
            );
        }
        s
    }
}
