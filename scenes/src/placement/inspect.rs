//! `sward inspect placements`: every placement of chosen MCNKs of one tile,
//! in the order the policy generates them, with where it came from.

use super::{place_mcnk, Origin, Placement, PlacementStats, Policy, Sink};
use crate::effects::ResolvedEffects;
use crate::world::coords::TILE_CHUNKS;
use crate::world::{AdtTile, TileCoord};

/// One placement as `inspect placements` reports it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PlacementRecord {
    /// MCNK `(index_x, index_y)` inside the tile.
    pub mcnk: [u32; 2],
    /// Client: cell pick index. Per-cell: attempt index inside the cell.
    pub pick: u32,
    /// Client: doodad index within the pick. Per-cell: 0.
    pub n: u32,
    /// Cell `(x, y)` = (column, row) inside the MCNK.
    pub cell: [u32; 2],
    /// Effect slot (0..4).
    pub slot: u32,
    /// The slot's GroundEffectDoodad key.
    pub doodad: u32,
    /// Detail model path.
    pub model: String,
    /// World position (x, y, z).
    pub position: [f32; 3],
    /// Rotation about +Z in radians.
    pub yaw: f32,
    /// Uniform scale.
    pub scale: f32,
}

/// Errors of [`inspect_placements`].
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    /// An MCNK index is outside the tile.
    #[error("MCNK {x},{y} is outside the tile: indices are 0..{n} each")]
    McnkOutOfRange {
        /// index_x asked for.
        x: u32,
        /// index_y asked for.
        y: u32,
        /// MCNKs per tile side.
        n: u32,
    },
    /// The tile lacks an MCNK it should have.
    #[error("tile {},{} has no MCNK {x},{y}", tile.x, tile.y)]
    MissingMcnk {
        /// The tile.
        tile: TileCoord,
        /// index_x.
        x: u32,
        /// index_y.
        y: u32,
    },
    /// The tile is not part of the scene's world, or failed to load.
    #[error("tile {},{}: {reason}", tile.x, tile.y)]
    Tile {
        /// The tile.
        tile: TileCoord,
        /// Why it is unavailable.
        reason: String,
    },
}

struct Records<'a> {
    mcnk: [u32; 2],
    models: &'a [&'a str],
    out: Vec<PlacementRecord>,
}

impl Sink for Records<'_> {
    const WANTS_PLACEMENTS: bool = true;
    fn push(&mut self, model: u16, p: Placement, o: Origin) {
        self.out.push(PlacementRecord {
            mcnk: self.mcnk,
            pick: o.pick,
            n: o.n,
            cell: [o.col, o.row],
            slot: o.slot,
            doodad: o.doodad,
            model: self
                .models
                .get(model as usize)
                .map_or_else(|| format!("model #{model}"), |m| (*m).to_owned()),
            position: p.position,
            yaw: p.yaw,
            scale: p.scale,
        });
    }
}

/// The placements of MCNKs `mcnks` (`(index_x, index_y)`; every MCNK of the
/// tile, row by row, when empty) of `tile` under `policy`, in generation
/// order. `models` are the detail model paths (placement model index =
/// index there).
pub fn inspect_placements(
    tile: &AdtTile,
    effects: &ResolvedEffects,
    models: &[&str],
    policy: &Policy,
    mcnks: &[(u32, u32)],
) -> Result<Vec<PlacementRecord>, InspectError> {
    let all: Vec<(u32, u32)>;
    let list = if mcnks.is_empty() {
        all = (0..TILE_CHUNKS)
            .flat_map(|y| (0..TILE_CHUNKS).map(move |x| (x, y)))
            .collect();
        &all
    } else {
        mcnks
    };
    let mut sink = Records {
        mcnk: [0; 2],
        models,
        out: Vec::new(),
    };
    for &(x, y) in list {
        if x >= TILE_CHUNKS || y >= TILE_CHUNKS {
            return Err(InspectError::McnkOutOfRange {
                x,
                y,
                n: TILE_CHUNKS,
            });
        }
        let m = tile.mcnk(x, y).ok_or(InspectError::MissingMcnk {
            tile: tile.coord,
            x,
            y,
        })?;
        sink.mcnk = [x, y];
        let mut stats = PlacementStats::new(models.len());
        place_mcnk(
            m.chunk_coord(tile.coord),
            m,
            effects,
            policy,
            &mut stats,
            &mut sink,
        );
    }
    Ok(sink.out)
}

/// The records as a readable table.
pub fn records_text(records: &[PlacementRecord]) -> String {
    use std::fmt::Write;
    let mut s = format!(
        "{:>5} {:>4} {:>3} {:>4} {:>4} {:>10}  {:<32} {:>11} {:>11} {:>9} {:>8} {:>6}\n",
        "mcnk", "pick", "n", "cell", "slot", "doodad", "model", "x", "y", "z", "yaw", "scale"
    );
    for r in records {
        let model = r.model.rsplit('\\').next().unwrap_or(&r.model);
        let _ = writeln!(
            s,
            "{:>5} {:>4} {:>3} {:>4} {:>4} {:>10}  {:<32} {:>11.4} {:>11.4} {:>9.4} {:>8.5} {:>6.4}",
            format!("{},{}", r.mcnk[0], r.mcnk[1]),
            r.pick,
            r.n,
            format!("{},{}", r.cell[0], r.cell[1]),
            r.slot,
            r.doodad,
            model,
            r.position[0],
            r.position[1],
            r.position[2],
            r.yaw,
            r.scale
        );
    }
    let _ = writeln!(s, "{} placements", records.len());
    s
}
