//! The `client-3.3.5` policy: the 3.3.5 client's detail-doodad (ground
//! effect) routine.
//!
//! Source: zeruth/FrozenClient, `src/world/map/DetailDoodad.cpp`
//! (`DetailDoodad::CreateInstance`, the port of the 3.3.5a client's
//! `FUN_007d3390`) with its constants in `src/world/map/DetailDoodad.hpp`,
//! the density setting in `src/world/CWorldParam.cpp` and the chunk indices
//! in `src/world/map/CMapChunk.hpp`. Written here from a reading of those
//! files; no code is taken from them. Assumptions where the source is unsure
//! or silent are listed in docs/techniques/client-placement.md ("The 3.3.5
//! routine") and marked `ASSUMPTION` / `TODO` below.
//!
//! Per MCNK, one [`ClientRng`] (the same `CRandom::uint32` over a `CRndSeed`
//! as 1.12: the port draws from `tempest/Random.hpp`, the typhoon library
//! the 1.12 generator comes from) seeded with `(globalChunkY << 16) |
//! globalChunkX`. Then two passes:
//!
//! 1. `groundEffectDensity` cell picks (setting default 16; the client only
//!    accepts 16..=256), each two draws: `col = draw & 7`, then
//!    `row = draw & 7`.
//! 2. For pick `i` in order: a cell in a hole, whose predTex layer is
//!    missing, or whose layer names no GroundEffectTexture record is skipped
//!    without drawing (so is a noEffectDoodad cell: ASSUMPTION, see below).
//!    Otherwise the effect's four slots are dealt into a 16-entry bag
//!    ([`deal_bag`]) and `density` doodads are tried (stored density, 0
//!    meaning 8, no cap). For doodad `n`: two signed draws `ja`, `jb`
//!    (always); the bag entry `(n + i) & 15`; an empty entry places nothing
//!    and draws nothing more. The point is `u = (ja + 1) / 2` along the
//!    columns, `v = (jb + 1) / 2` along the rows; the fan triangle under it
//!    is chosen by the cell's two diagonals, and a triangle whose unit
//!    normal has `z < 0.4` (steeper than about 66.4 degrees) places nothing
//!    and draws nothing more. Otherwise two more draws:
//!    `rotation = (s + 1) * pi` (in `[0, 2 pi]`), then
//!    `scale = s * 0.33 + 1` (in `[0.67, 1.33]`). A dangling entry (a doodad
//!    id no GroundEffectDoodad record has) has made all its draws and places
//!    nothing.
//!
//! Heights are the exact fan height of the cell ([`Mcnk::height_in_cell`]).
//! [`Placement::seed`](super::Placement::seed) is a hash of (MCNK, pick, doodad index), outside the
//! client's stream, as in the 1.12 policy.

use super::client::mcnk_seed;
use super::client_rng::ClientRng;
use super::{cell_effect_with, emit, Drawn, MarginKind, Origin, PlacementStats, Sink};
use crate::effects::{ResolvedEffect, ResolvedEffects};
use crate::rng::hash_words;
use crate::world::height::{cell_indices, FanTriangle};
use crate::world::{ChunkCoord, Mcnk};

/// Default `groundEffectDensity` (the CVar's registered default).
pub const DEFAULT_GROUND_EFFECT_DENSITY: u32 = 16;
/// The smallest `groundEffectDensity` the client's setter accepts.
pub const MIN_GROUND_EFFECT_DENSITY: u32 = 16;
/// The largest `groundEffectDensity` the client's setter accepts.
pub const MAX_GROUND_EFFECT_DENSITY: u32 = 256;
/// `groundEffectDist`'s default and the fade distance the routine's shader
/// constants are built around, in yards (= world units).
pub const CLIENT_335_GRASS_DISTANCE: f32 = 70.0;
/// Where the 3.3.5 client's distance fade starts: solid to 85% of the
/// distance, gone at 100%.
pub const CLIENT_335_FADE_START: f32 = CLIENT_335_GRASS_DISTANCE * 0.85;
/// The smallest unit-normal z a triangle may have and still carry a doodad.
pub const MIN_NORMAL_Z: f32 = 0.4;
/// Entries in the doodad bag.
pub const BAG_SIZE: usize = 16;
/// How far the deal steps through the bag per entry (coprime to 16, so 16
/// deals visit every entry once).
pub const BAG_STEP: u32 = 13;

/// One cell's side in world units as the client holds it in f32
/// (`4.1666665`).
const CELL_SIZE: f32 = f32::from_bits(0x4085_5555);
/// Half a cell (`2.0833333`): the jitter's half extent.
const CELL_HALF: f32 = f32::from_bits(0x4005_5555);
/// `rotation = (s + 1) * ROTATION_HALF`.
const ROTATION_HALF: f32 = std::f32::consts::PI;
/// `scale = s * SCALE_JITTER + 1`.
pub const SCALE_JITTER: f32 = 0.33;

/// Parameters of the 3.3.5 client policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Client335Params {
    /// Cell picks per MCNK (`groundEffectDensity`); used clamped to
    /// `[16, 256]`.
    pub ground_effect_density: u32,
}

impl Default for Client335Params {
    fn default() -> Self {
        Self {
            ground_effect_density: DEFAULT_GROUND_EFFECT_DENSITY,
        }
    }
}

impl Client335Params {
    /// The pick count the routine uses: `ground_effect_density` clamped to
    /// `[16, 256]`, the values the client's setting can hold (its setter
    /// refuses anything else and keeps the old value).
    pub fn picks(&self) -> u32 {
        self.ground_effect_density
            .clamp(MIN_GROUND_EFFECT_DENSITY, MAX_GROUND_EFFECT_DENSITY)
    }
}

/// The effect's slots dealt into the 16-entry bag, as slot indices (0..4).
///
/// Slot `k` is dealt `weights[k]` times (the stored weight, read as the
/// client's signed int: a weight that is negative there deals nothing), each
/// deal writing entry `(13 * d) & 15` where `d` counts the deals so far, so
/// the slots interleave. While fewer than 16 deals have been made, the
/// remaining ones go round-robin over all four slots (slot `d & 3`, empty
/// slots included). More than 16 deals overwrite earlier entries.
pub fn deal_bag(stored_weights: [u32; 4]) -> [u8; BAG_SIZE] {
    let mut bag = [0u8; BAG_SIZE];
    let mut dealt: u32 = 0;
    for (k, &w) in stored_weights.iter().enumerate() {
        let deals = (w as i32).max(0) as u32;
        // After 16 consecutive deals of one slot every entry holds it and
        // further deals change nothing but the count.
        for _ in 0..deals.min(BAG_SIZE as u32) {
            bag[(dealt.wrapping_mul(BAG_STEP) & 15) as usize] = k as u8;
            dealt = dealt.wrapping_add(1);
        }
        dealt = dealt.wrapping_add(deals.saturating_sub(BAG_SIZE as u32));
    }
    while dealt < BAG_SIZE as u32 {
        bag[(dealt.wrapping_mul(BAG_STEP) & 15) as usize] = (dealt & 3) as u8;
        dealt += 1;
    }
    bag
}

/// The fan triangle the client picks for an in-cell offset `(ox, oy)` in
/// world units (`ox` along the columns, `oy` along the rows), with its own
/// f32 comparisons: below the main diagonal (`oy < ox`) and past the
/// anti-diagonal (`ox + oy > cell`).
pub fn client_triangle(ox: f32, oy: f32) -> FanTriangle {
    let below = oy - ox < 0.0;
    let past = (ox - CELL_SIZE) + oy > 0.0;
    match (below, past) {
        (false, false) => FanTriangle::Left,
        (true, false) => FanTriangle::Top,
        (false, true) => FanTriangle::Bottom,
        (true, true) => FanTriangle::Right,
    }
}

/// The z of the unit upward normal of fan triangle `tri` of cell `(row,
/// col)`: the plane through the cell's centre vertex and the triangle's two
/// corners, as the client builds it.
pub fn triangle_normal_z(mcnk: &Mcnk, row: u32, col: u32, tri: FanTriangle) -> f32 {
    let [tl, tr, bl, br, m] = cell_indices(row as usize, col as usize).map(|i| mcnk.heights[i]);
    let s = CELL_SIZE;
    // (column offset, row offset, height): the handedness does not change
    // |n.z| / |n|.
    let p = |u: f32, v: f32, h: f32| [u * s, v * s, h];
    let (a, b) = match tri {
        FanTriangle::Top => (p(0.0, 0.0, tl), p(1.0, 0.0, tr)),
        FanTriangle::Right => (p(1.0, 0.0, tr), p(1.0, 1.0, br)),
        FanTriangle::Bottom => (p(1.0, 1.0, br), p(0.0, 1.0, bl)),
        FanTriangle::Left => (p(0.0, 1.0, bl), p(0.0, 0.0, tl)),
    };
    let c = p(0.5, 0.5, m);
    let e1 = [a[0] - c[0], a[1] - c[1], a[2] - c[2]];
    let e2 = [b[0] - c[0], b[1] - c[1], b[2] - c[2]];
    let n = [
        e1[1] * e2[2] - e1[2] * e2[1],
        e1[2] * e2[0] - e1[0] * e2[2],
        e1[0] * e2[1] - e1[1] * e2[0],
    ];
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if len == 0.0 {
        0.0
    } else {
        n[2].abs() / len
    }
}

/// The cell picks of pass 1, `(row, col)` in draw order, and the generator
/// positioned after them.
pub fn cell_picks(chunk: ChunkCoord, params: &Client335Params) -> (Vec<(u32, u32)>, ClientRng) {
    // ASSUMPTION: the port seeds with `m_indexX << 16 | m_indexY`, its
    // CMapChunk.hpp naming m_indexX the map-wide index along world X (the
    // tile-row direction): the global MCNK row, as 1.12's seed has it.
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

const SALT_SEED: u32 = 0xc335_0001;

/// The per-placement seed: a hash of the placement's identity, independent
/// of the client's stream.
pub fn placement_seed(chunk: ChunkCoord, pick: u32, n: u32) -> u32 {
    hash_words(&[chunk.x, chunk.y, pick, n, SALT_SEED])
}

/// Whether slot `k` of `effect` is empty (the client's doodad id 0): neither
/// a model nor a dangling id.
fn slot_empty(effect: &ResolvedEffect, k: usize) -> bool {
    effect.slots[k].is_none() && !effect.dangling[k]
}

pub(crate) fn place<S: Sink>(
    chunk: ChunkCoord,
    mcnk: &Mcnk,
    effects: &ResolvedEffects,
    params: &Client335Params,
    stats: &mut PlacementStats,
    sink: &mut S,
) {
    let (picks, mut rng) = cell_picks(chunk, params);
    for (pick, &(row, col)) in (0u32..).zip(&picks) {
        // ASSUMPTION: noEffectDoodad skips the cell without drawing (as in
        // 1.12). TODO: the port reads a bit per column of the 64-bit field
        // this bitmap lives in ("predTex") that overrides the layer choice;
        // what it selects instead is not established, so the predTex layer
        // (the low-quality texture map) stands and a set bit suppresses.
        // The source skips only a missing record, so an effect whose slots
        // are all empty still makes its draws.
        let Some((_, effect)) = cell_effect_with(mcnk, row, col, effects, stats, false) else {
            continue;
        };
        stats.cells_placed += 1;
        let bag = deal_bag(effect.stored_weights);
        for n in 0..effect.client_density() {
            let ja = rng.next_signed();
            let jb = rng.next_signed();
            let slot = bag[(n.wrapping_add(pick) & 15) as usize] as usize;
            if slot_empty(effect, slot) {
                stats.empty_slots += 1;
                continue;
            }
            let ox = ja * CELL_HALF + CELL_HALF;
            let oy = jb * CELL_HALF + CELL_HALF;
            sink.margin(MarginKind::Diagonal, oy - ox);
            sink.margin(MarginKind::AntiDiagonal, (ox - CELL_SIZE) + oy);
            let nz = triangle_normal_z(mcnk, row, col, client_triangle(ox, oy));
            sink.margin(MarginKind::Slope, nz - MIN_NORMAL_Z);
            if nz < MIN_NORMAL_Z || nz == 0.0 {
                stats.steep_slopes += 1;
                continue;
            }
            let yaw = (rng.next_signed() + 1.0) * ROTATION_HALF;
            let scale = rng.next_signed() * SCALE_JITTER + 1.0;
            let Some(model) = effect.slots[slot] else {
                // ASSUMPTION: a dangling id makes its draws and places
                // nothing (the port would not scatter the MCNK at all: its
                // readiness check waits for a model no record names).
                stats.dangling_slots += 1;
                continue;
            };
            emit(
                stats,
                sink,
                mcnk,
                model,
                Drawn {
                    u: (ja + 1.0) * 0.5,
                    v: (jb + 1.0) * 0.5,
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
