//! The `client` policy: the client's detail-doodad routine as described by
//! public reverse engineering of the client (the MCNK/MCLY data it reads is
//! documented on the wowdev wiki, "ADT/v18").
//!
//! Per MCNK one generator is seeded with `(globalChunkY << 16) | globalChunkX`.
//! It draws `frill_density` cells as `(col, row) = (rng & 7, rng & 7)` (cells
//! may repeat); a cell in noEffectDoodad or a hole, or whose predTex layer has
//! no effect, is skipped. Otherwise it places `density` doodads, doodad `n`
//! using slot `(n + cellIndex) & 3` (an empty slot places nothing), each at a
//! uniform position in the cell with its height from the four-triangle fan,
//! scale uniform in 0.9..1.1 and yaw uniform in -pi..pi.
//!
//! The client's own generator is not public; sward uses [`Rng32`], so the
//! *rules* match the client while the exact random stream does not.

use super::{cell_effect, emit, Placement, PlacementStats, Sink};
use crate::effects::ResolvedEffects;
use crate::rng::Rng32;
use crate::world::{ChunkCoord, Mcnk};

/// Default `frillDensity` (the client's graphics settings offer 16/32/48).
pub const DEFAULT_FRILL_DENSITY: u32 = 16;

/// Parameters of the client policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientParams {
    /// Cells drawn per MCNK.
    pub frill_density: u32,
}

impl Default for ClientParams {
    fn default() -> Self {
        Self {
            frill_density: DEFAULT_FRILL_DENSITY,
        }
    }
}

/// The generator seed of an MCNK: `(globalChunkY << 16) | globalChunkX`.
pub fn mcnk_seed(chunk: ChunkCoord) -> u32 {
    (chunk.y << 16) | chunk.x
}

pub(crate) fn place<S: Sink>(
    chunk: ChunkCoord,
    mcnk: &Mcnk,
    effects: &ResolvedEffects,
    params: &ClientParams,
    stats: &mut PlacementStats,
    sink: &mut S,
) {
    let mut rng = Rng32::new(mcnk_seed(chunk));
    for _ in 0..params.frill_density {
        let col = rng.next_u32() & 7;
        let row = rng.next_u32() & 7;
        let Some((_, effect)) = cell_effect(mcnk, row, col, effects, stats) else {
            continue;
        };
        stats.cells_placed += 1;
        let cell_index = row * 8 + col;
        for n in 0..effect.density {
            let Some(model) = effect.slots[((n + cell_index) & 3) as usize] else {
                stats.empty_slots += 1;
                continue;
            };
            let u = rng.next_f32();
            let v = rng.next_f32();
            let yaw = rng.range_f32(-std::f32::consts::PI, std::f32::consts::PI);
            let scale = rng.range_f32(0.9, 1.1);
            let seed = rng.next_u32();
            let position = if S::WANTS_PLACEMENTS {
                let (x, y) = mcnk.local_to_world(col as f64 + u as f64, row as f64 + v as f64);
                [x as f32, y as f32, mcnk.height_in_cell(row, col, u, v)]
            } else {
                [0.0; 3]
            };
            emit(
                stats,
                sink,
                model,
                Placement {
                    position,
                    yaw,
                    scale,
                    seed,
                },
            );
        }
    }
}
