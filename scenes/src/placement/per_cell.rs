//! The `per-cell` policy: sward's per-cell builder.
//!
//! Every cell of every MCNK is considered. After the shared checks
//! (noEffectDoodad, hole, predTex layer, effect) the cell's coverage is the
//! splat weight of its predTex layer at the MCAL texel under the cell centre
//! ([`Mcnk::layer_weight`]). A cell is skipped when that coverage is below
//! `coverage_min` or when an effect-less layer (a road) weighs at least
//! `road_coverage_min` there. Otherwise
//!
//! ```text
//! clumps = min(max(1, ceil(coverage / 255 * min(density, 24))), 12)
//! ```
//!
//! attempts are made (scaled by `density_scale`, with the fractional part
//! resolved by a per-cell hash so totals scale smoothly). Attempt `a` of cell
//! `c` of MCNK `(gx, gy)` seeds its own generator with
//! `hash(gx, gy, c, a)`, draws a uniform position in the cell, a model from
//! the effect's four slots by weight, yaw, scale (0.9..1.1) and a phase seed.

use super::{cell_effect, emit, Drawn, MarginKind, Origin, PlacementStats, Sink};
use crate::effects::{ResolvedEffects, MAX_DENSITY};
use crate::rng::{hash_words, unit_f32, Rng32};
use crate::world::{ChunkCoord, Mcnk};

/// A placement's uniform scale is drawn in `[SCALE_RANGE[0], SCALE_RANGE[1])`.
pub const SCALE_RANGE: [f32; 2] = [0.9, 1.1];
/// Parameters of the per-cell policy (defaults: sward's constants).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerCellParams {
    /// Coverage (0..=255) below which a cell grows nothing (default: 32).
    pub coverage_min: u8,
    /// Weight of an effect-less layer at which it suppresses grass (default: 24).
    pub road_coverage_min: u8,
    /// Density cap applied before the clump formula (default: 24).
    pub density_cap: u32,
    /// Most clumps per cell before scaling (default: 12).
    pub max_clumps: u32,
    /// Multiplier on the clump count (1.0 = the formula as is).
    pub density_scale: f32,
}

impl Default for PerCellParams {
    fn default() -> Self {
        Self {
            coverage_min: 32,
            road_coverage_min: 24,
            density_cap: MAX_DENSITY,
            max_clumps: 12,
            density_scale: 1.0,
        }
    }
}

/// The clump formula for one cell.
pub fn clumps(coverage: u8, density: u32, density_cap: u32, max_clumps: u32) -> u32 {
    let want = (coverage as f32 / 255.0 * density.min(density_cap) as f32).ceil() as u32;
    want.max(1).min(max_clumps)
}

const SALT_CELL: u32 = 0x5eed_0001;
const SALT_ATTEMPT: u32 = 0x5eed_0002;

pub(crate) fn place<S: Sink>(
    chunk: ChunkCoord,
    mcnk: &Mcnk,
    effects: &ResolvedEffects,
    params: &PerCellParams,
    stats: &mut PlacementStats,
    sink: &mut S,
) {
    for row in 0..8u32 {
        for col in 0..8u32 {
            let Some((layer, effect)) = cell_effect(mcnk, row, col, effects, stats) else {
                continue;
            };
            let (tr, tc) = (row as usize * 8 + 4, col as usize * 8 + 4);
            let coverage = mcnk.layer_weight(layer, tr, tc);
            if coverage < params.coverage_min {
                stats.cells_low_coverage += 1;
                continue;
            }
            let road = mcnk
                .layers
                .iter()
                .enumerate()
                .filter(|(i, l)| *i != layer && l.effect().is_none())
                .any(|(i, _)| mcnk.layer_weight(i, tr, tc) >= params.road_coverage_min);
            if road {
                stats.cells_road += 1;
                continue;
            }
            let cell_index = row * 8 + col;
            let base = clumps(
                coverage,
                effect.density,
                params.density_cap,
                params.max_clumps,
            );
            let scaled = base as f32 * params.density_scale;
            let frac = unit_f32(hash_words(&[chunk.x, chunk.y, cell_index, SALT_CELL]));
            let sum = scaled + frac;
            sink.margin(MarginKind::Attempts, sum - sum.round());
            let attempts = sum.floor() as u32;
            if attempts == 0 {
                continue;
            }
            stats.cells_placed += 1;
            let total = effect.total_weight();
            for a in 0..attempts {
                let mut rng =
                    Rng32::new(hash_words(&[chunk.x, chunk.y, cell_index, a, SALT_ATTEMPT]));
                let u = rng.next_f32();
                let v = rng.next_f32();
                let pick = rng.below(total);
                let yaw = rng.range_f32(-std::f32::consts::PI, std::f32::consts::PI);
                let scale = rng.range_f32(SCALE_RANGE[0], SCALE_RANGE[1]);
                let seed = rng.next_u32();
                let Some((slot, model)) = effect
                    .pick_weighted_slot(pick)
                    .and_then(|i| Some((i, effect.slots[i]?)))
                else {
                    match effect.pick_weighted_slot(pick) {
                        Some(i) if effect.dangling[i] => stats.dangling_slots += 1,
                        _ => stats.empty_slots += 1,
                    }
                    continue;
                };
                emit(
                    stats,
                    sink,
                    mcnk,
                    model,
                    Drawn {
                        u,
                        v,
                        yaw,
                        scale,
                        seed,
                    },
                    Origin {
                        pick: a,
                        n: 0,
                        row,
                        col,
                        slot: slot as u32,
                        doodad: effect.doodads[slot],
                    },
                );
            }
        }
    }
}
