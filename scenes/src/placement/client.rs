//! The `client` policy: the 1.12 client's detail-doodad routine
//! (`CMapChunk::CreateDetailDoodads`), draw for draw.
//!
//! Per MCNK one [`ClientRng`] is seeded with
//! `(globalChunkY << 16) | globalChunkX`. Then two passes:
//!
//! 1. `frillDensity` cell picks (clamped to `[1, 256]`), each two draws:
//!    `col = draw & 7`, then `row = draw & 7`. Cells may repeat.
//! 2. For pick `k` in order: a cell in noEffectDoodad or a hole, or whose
//!    predTex layer is missing or has no effect, is skipped without drawing.
//!    Otherwise `density` doodads (stored density, 0 meaning 8, no cap); for
//!    doodad `n` the routine draws two signed values `rx`, `ry` (always),
//!    takes slot `(n + k) & 3` (a cell picked twice therefore rotates its
//!    slots), and only when that slot holds a doodad draws `scale = s * 0.1 +
//!    1.0` and then `yaw = s * pi` (also when the slot names a doodad the
//!    GroundEffectDoodad table lacks: a dangling slot makes its draws and
//!    places nothing). The in-cell position is `u = (rx + 1) /
//!    2` along the columns and `v = (ry + 1) / 2` along the rows; the height
//!    is the exact fan height of the cell at `(u, v)`.
//!
//! Everything the client computes (picks, slot, `u`, `v`, scale, yaw) is
//! computed here in f32 the same way. The per-placement [`Placement::seed`](super::Placement::seed)
//! (wind phase, colour variation) is not part of the client's stream: it is a
//! hash of (MCNK, pick, doodad index). Sources and their trust:
//! docs/techniques/client-placement.md.

use super::client_rng::ClientRng;
use super::{cell_effect, emit, Drawn, Origin, PlacementStats, Sink};
use crate::effects::ResolvedEffects;
use crate::rng::hash_words;
use crate::world::{ChunkCoord, Mcnk};

/// `scale = s * SCALE_JITTER + 1` (in `[0.9, 1.1]`).
pub const SCALE_JITTER: f32 = 0.1;
/// Default `frillDensity` (the client's CVar default; its world-detail
/// setting writes 16, 32 or 48).
pub const DEFAULT_FRILL_DENSITY: u32 = 16;
/// The largest `frillDensity` the client accepts (its setter clamps to
/// `[1, 256]`).
pub const MAX_FRILL_DENSITY: u32 = 256;
/// The client's detail-doodad draw distance in yards (= world units).
pub const CLIENT_GRASS_DISTANCE: f32 = 70.0;

/// Parameters of the client policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientParams {
    /// Cell picks per MCNK (`frillDensity`); used clamped to `[1, 256]`.
    pub frill_density: u32,
}

impl Default for ClientParams {
    fn default() -> Self {
        Self {
            frill_density: DEFAULT_FRILL_DENSITY,
        }
    }
}

impl ClientParams {
    /// The pick count the routine uses: `frill_density` clamped to `[1, 256]`.
    pub fn picks(&self) -> u32 {
        self.frill_density.clamp(1, MAX_FRILL_DENSITY)
    }
}

/// The generator seed of an MCNK: `(globalChunkY << 16) | globalChunkX`.
pub fn mcnk_seed(chunk: ChunkCoord) -> u32 {
    (chunk.y << 16) | (chunk.x & 0xFFFF)
}

/// The cell picks of pass 1, `(row, col)` in draw order, and the generator
/// positioned after them.
pub fn cell_picks(chunk: ChunkCoord, params: &ClientParams) -> (Vec<(u32, u32)>, ClientRng) {
    let mut rng = ClientRng::new(mcnk_seed(chunk));
    let picks = (0..params.picks())
        .map(|_| {
            let col = rng.next_u32() & 7;
            let row = rng.next_u32() & 7;
            (row, col)
        })
        .collect();
    (picks, rng)
}

const SALT_SEED: u32 = 0xc11e_0001;

/// The per-placement seed: a hash of the placement's identity, independent
/// of the client's stream.
pub fn placement_seed(chunk: ChunkCoord, pick: u32, n: u32) -> u32 {
    hash_words(&[chunk.x, chunk.y, pick, n, SALT_SEED])
}

pub(crate) fn place<S: Sink>(
    chunk: ChunkCoord,
    mcnk: &Mcnk,
    effects: &ResolvedEffects,
    params: &ClientParams,
    stats: &mut PlacementStats,
    sink: &mut S,
) {
    let (picks, mut rng) = cell_picks(chunk, params);
    for (pick, &(row, col)) in (0u32..).zip(&picks) {
        let Some((_, effect)) = cell_effect(mcnk, row, col, effects, stats) else {
            continue;
        };
        stats.cells_placed += 1;
        for n in 0..effect.client_density() {
            let rx = rng.next_signed();
            let ry = rng.next_signed();
            let slot = (n.wrapping_add(pick) & 3) as usize;
            let Some(model) = effect.slots[slot] else {
                if effect.dangling[slot] {
                    // The slot holds a doodad id, so the client draws its
                    // scale and yaw; the id names no record: nothing drawn.
                    rng.next_signed();
                    rng.next_signed();
                    stats.dangling_slots += 1;
                } else {
                    stats.empty_slots += 1;
                }
                continue;
            };
            let scale = rng.next_signed() * SCALE_JITTER + 1.0;
            let yaw = rng.next_signed() * std::f32::consts::PI;
            emit(
                stats,
                sink,
                mcnk,
                model,
                Drawn {
                    u: (rx + 1.0) * 0.5,
                    v: (ry + 1.0) * 0.5,
                    yaw,
                    scale,
                    seed: placement_seed(chunk, pick, n),
                },
                Origin {
                    pick,
                    n,
                    row,
                    col,
                    slot: slot as u32,
                    doodad: effect.doodads[slot],
                },
            );
        }
    }
}
