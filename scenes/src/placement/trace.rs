//! One MCNK's placements with where each came from, its counters and the
//! margins of its float decisions: what the GPU generator's parity tests
//! compare against (`sward_passes::grass::placement_gpu`).
//!
//! A margin is the signed distance of a decision's value to its threshold
//! (see [`Margins`]). A different rounding of the same formula on another
//! device (a fused multiply-add, a less exact square root) can only flip a
//! decision whose margin is within that rounding's error, so the smallest
//! margin over a test's MCNKs says how close the test came to a flip.

use super::{place_mcnk, MarginKind, Origin, Placement, PlacementStats, Policy, Sink};
use crate::effects::ResolvedEffects;
use crate::world::{ChunkCoord, Mcnk};

/// One placement with its origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Traced {
    /// Detail model index.
    pub model: u16,
    /// The placement.
    pub placement: Placement,
    /// Pick, doodad index, cell, slot and doodad key.
    pub origin: Origin,
}

/// The smallest absolute margin of each float decision over the traced
/// MCNKs (`f32::INFINITY` where a policy never took that decision).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Margins {
    /// `client-3.3.5`: `|nz - 0.4|` of the slope limit (the unit normal's
    /// z from a square root and a division).
    pub slope: f32,
    /// `client-3.3.5`: `|oy - ox|`, the fan triangle's main-diagonal test.
    pub diagonal: f32,
    /// `client-3.3.5`: `|(ox - cell) + oy|`, the anti-diagonal test.
    pub anti_diagonal: f32,
    /// `per-cell`: distance of `scaled + frac` to the nearest integer (the
    /// attempt count's `floor`).
    pub attempts: f32,
    /// Decisions seen (all kinds).
    pub decisions: u64,
}

impl Default for Margins {
    fn default() -> Self {
        Self {
            slope: f32::INFINITY,
            diagonal: f32::INFINITY,
            anti_diagonal: f32::INFINITY,
            attempts: f32::INFINITY,
            decisions: 0,
        }
    }
}

impl Margins {
    /// The smaller margins of `self` and `other`.
    pub fn min(self, other: Self) -> Self {
        Self {
            slope: self.slope.min(other.slope),
            diagonal: self.diagonal.min(other.diagonal),
            anti_diagonal: self.anti_diagonal.min(other.anti_diagonal),
            attempts: self.attempts.min(other.attempts),
            decisions: self.decisions + other.decisions,
        }
    }

    fn record(&mut self, kind: MarginKind, value: f32) {
        self.decisions += 1;
        let m = value.abs();
        let slot = match kind {
            MarginKind::Slope => &mut self.slope,
            MarginKind::Diagonal => &mut self.diagonal,
            MarginKind::AntiDiagonal => &mut self.anti_diagonal,
            MarginKind::Attempts => &mut self.attempts,
        };
        *slot = slot.min(m);
    }
}

struct Trace {
    out: Vec<Traced>,
    margins: Margins,
}

impl Sink for Trace {
    const WANTS_PLACEMENTS: bool = true;
    fn push(&mut self, model: u16, placement: Placement, origin: Origin) {
        self.out.push(Traced {
            model,
            placement,
            origin,
        });
    }
    fn margin(&mut self, kind: MarginKind, value: f32) {
        self.margins.record(kind, value);
    }
}

/// The placements of MCNK `mcnk` (global coordinate `chunk`) under
/// `policy`, in generation order, with the MCNK's counters and decision
/// margins. `model_count` sizes the per-model counters.
pub fn trace_mcnk(
    chunk: ChunkCoord,
    mcnk: &Mcnk,
    effects: &ResolvedEffects,
    model_count: usize,
    policy: &Policy,
) -> (Vec<Traced>, PlacementStats, Margins) {
    let mut stats = PlacementStats::new(model_count);
    let mut sink = Trace {
        out: Vec::new(),
        margins: Margins::default(),
    };
    place_mcnk(chunk, mcnk, effects, policy, &mut stats, &mut sink);
    (sink.out, stats, sink.margins)
}
