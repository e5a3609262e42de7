//! Ground-effect placement: turns MCNK data + resolved ground effects into
//! detail-doodad placements, with three named policies:
//!
//! * [`Policy::Client`] ([`client`]): the 1.12 client's detail-doodad
//!   routine, draw for draw with the client's own generator
//!   ([`client_rng`]): `frillDensity` random cell picks per MCNK, then
//!   `density` doodads per pick, slot `(n + pick) & 3`.
//! * [`Policy::Client335`] ([`client335`]): the 3.3.5 client's routine,
//!   same generator: `groundEffectDensity` cell picks, an effect's slots
//!   dealt into a 16-entry bag by their weights, no doodad on triangles too
//!   steep to stand on. Scenes of 3.3.5 data placed with [`Policy::Client`]
//!   run it instead ([`crate::formats::load_scene_from`]).
//! * [`Policy::PerCell`] ([`per_cell`]): sward's per-cell builder (every
//!   cell, MCAL coverage, `clumps = min(max(1, ceil(cov/255 *
//!   min(density, 24))), 12)`, weighted model choice).
//!
//! All are pure functions of one MCNK's data and its global coordinate, so a
//! tile's placements do not depend on which other tiles are loaded, in which
//! order, or where the window is. None places anything in a
//! noEffectDoodad cell, a hole, or a cell whose predTex layer has no effect;
//! a predTex layer `>= n_layers` is counted in [`PlacementStats`] and skipped.
//!
//! Output ([`Placements`]) is sorted by tile (row, column), MCNK (row-major
//! inside the tile) and model; each (MCNK, model) run is a
//! [`PlacementGroup`], so both the per-MCNK and the per-model views are cheap.

pub mod client;
pub mod client335;
pub mod client_rng;
mod density;
mod inspect;
pub mod per_cell;
mod stats;
mod trace;

use std::ops::Range;

pub use client::ClientParams;
pub use client335::Client335Params;
pub use density::{DensityError, DENSITY_RANGE};
pub use inspect::{inspect_placements, records_text, InspectError, PlacementRecord};
pub use per_cell::PerCellParams;
pub use stats::PlacementStats;
pub use trace::{trace_mcnk, Margins, Traced};

use crate::effects::{ResolvedEffect, ResolvedEffects};
use crate::world::{AdtTile, ChunkCoord, Mcnk, World};

/// One placed detail doodad (`#[repr(C)]`, 24 bytes, bytemuck-castable).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Placement {
    /// World position; z is the exact terrain height ([`World::height_at`]).
    pub position: [f32; 3],
    /// Rotation about +Z in radians: in `[-pi, pi]` (`client-3.3.5`: in
    /// `[0, 2 pi]`).
    pub yaw: f32,
    /// Uniform scale: in `[0.9, 1.1]` (`client-3.3.5`: in `[0.67, 1.33]`).
    pub scale: f32,
    /// Per-placement seed (wind phase, variation).
    pub seed: u32,
}

/// A run of placements of one model inside one MCNK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlacementGroup {
    /// The MCNK.
    pub chunk: ChunkCoord,
    /// Detail model index.
    pub model: u16,
    /// First placement in [`Placements::items`].
    pub start: u32,
    /// Number of placements.
    pub count: u32,
}

impl PlacementGroup {
    /// The index range of this group in [`Placements::items`].
    pub fn range(&self) -> Range<usize> {
        self.start as usize..(self.start + self.count) as usize
    }
}

/// Placements grouped by MCNK then model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Placements {
    /// Every placement, in group order.
    pub items: Vec<Placement>,
    /// (MCNK, model) runs, sorted by tile, MCNK and model.
    pub groups: Vec<PlacementGroup>,
}

/// Placement policy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Policy {
    /// The client's detail-doodad routine (1.12's).
    Client(ClientParams),
    /// The 3.3.5 client's detail-doodad routine.
    Client335(Client335Params),
    /// sward's own per-cell builder (one jittered attempt per cell).
    PerCell(PerCellParams),
}

impl Policy {
    /// The policy's name (`client`, `client-3.3.5` or `per-cell`).
    pub fn name(&self) -> &'static str {
        match self {
            Self::Client(_) => "client",
            Self::Client335(_) => "client-3.3.5",
            Self::PerCell(_) => "per-cell",
        }
    }

    /// The largest uniform scale the policy can give a placement: the
    /// client routines' `s * SCALE_JITTER + 1` at the largest `s` their
    /// draw gives (`client_rng::signed_unit` is at most 1, reached at a
    /// mantissa of 0), `per-cell`'s range's upper end. What a bound grown by
    /// the models' radius must allow for.
    pub fn max_scale(&self) -> f32 {
        let s = client_rng::signed_unit(0x8000_0000);
        match self {
            Self::Client(_) => s * client::SCALE_JITTER + 1.0,
            Self::Client335(_) => s * client335::SCALE_JITTER + 1.0,
            Self::PerCell(_) => per_cell::SCALE_RANGE[1],
        }
    }
}

/// Where a placement came from inside its MCNK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    /// Client: the cell pick index. Per-cell: the attempt index in the cell.
    pub pick: u32,
    /// Client: the doodad index within the pick. Per-cell: 0.
    pub n: u32,
    /// Cell row (0..8).
    pub row: u32,
    /// Cell column (0..8).
    pub col: u32,
    /// The effect slot (0..4) the model came from.
    pub slot: u32,
    /// The slot's GroundEffectDoodad key.
    pub doodad: u32,
}

/// Receives the placements of one MCNK from a policy.
pub(crate) trait Sink {
    /// Whether positions are needed (false: only count).
    const WANTS_PLACEMENTS: bool;
    /// One placement of `model`.
    fn push(&mut self, model: u16, p: Placement, origin: Origin);
    /// A float decision the policy took, with its signed distance to the
    /// threshold (see [`Margins`]); only the trace of the GPU parity tests
    /// records them.
    fn margin(&mut self, _kind: MarginKind, _value: f32) {}
}

/// The float decisions a policy takes whose outcome a different rounding
/// could flip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MarginKind {
    /// `client-3.3.5`: a triangle's unit-normal z minus the 0.4 limit.
    Slope,
    /// `client-3.3.5`: `oy - ox`, the main-diagonal test of the fan triangle.
    Diagonal,
    /// `client-3.3.5`: `(ox - cell) + oy`, the anti-diagonal test.
    AntiDiagonal,
    /// `per-cell`: `scaled + frac` minus the integer below it (the attempt
    /// count's `floor`).
    Attempts,
}

struct Collect<'a>(&'a mut Vec<(u16, Placement)>);

impl Sink for Collect<'_> {
    const WANTS_PLACEMENTS: bool = true;
    fn push(&mut self, model: u16, p: Placement, _: Origin) {
        self.0.push((model, p));
    }
}

struct Count;

impl Sink for Count {
    const WANTS_PLACEMENTS: bool = false;
    fn push(&mut self, _: u16, _: Placement, _: Origin) {}
}

/// The shared cell checks: suppression, hole, predTex layer, effect. Counts
/// the reason when the cell is skipped.
pub(crate) fn cell_effect<'e>(
    mcnk: &Mcnk,
    row: u32,
    col: u32,
    effects: &'e ResolvedEffects,
    stats: &mut PlacementStats,
) -> Option<(usize, &'e ResolvedEffect)> {
    cell_effect_with(mcnk, row, col, effects, stats, true)
}

/// [`cell_effect`], with the skip of an effect that has no usable slot
/// optional (`skip_empty`; the 3.3.5 routine keeps such a cell and draws).
pub(crate) fn cell_effect_with<'e>(
    mcnk: &Mcnk,
    row: u32,
    col: u32,
    effects: &'e ResolvedEffects,
    stats: &mut PlacementStats,
    skip_empty: bool,
) -> Option<(usize, &'e ResolvedEffect)> {
    stats.cells_visited += 1;
    let h = &mcnk.header;
    if h.no_effect_doodad.is_set(row, col) {
        stats.cells_no_effect_doodad += 1;
        return None;
    }
    if h.is_hole(row, col) {
        stats.cells_hole += 1;
        return None;
    }
    let layer = h.pred_tex.layer(row, col) as usize;
    let Some(l) = mcnk.layers.get(layer) else {
        stats.cells_invalid_layer += 1;
        return None;
    };
    let Some(id) = l.effect() else {
        stats.cells_no_effect += 1;
        return None;
    };
    let Some(e) = effects.get(id) else {
        stats.cells_unknown_effect += 1;
        return None;
    };
    if skip_empty && e.total_weight() == 0 && e.slots.iter().all(Option::is_none) {
        stats.cells_empty_effect += 1;
        return None;
    }
    Some((layer, e))
}

/// Records one placement in the stats and the sink.
/// What a policy drew for one placement: its point (u, v) inside the
/// origin's cell, its yaw, scale and seed.
pub(crate) struct Drawn {
    pub u: f32,
    pub v: f32,
    pub yaw: f32,
    pub scale: f32,
    pub seed: u32,
}

/// Emits one placement of `model` standing at `drawn`'s (u, v) of
/// `origin`'s cell: x and y from [`Mcnk::local_to_world`], z the exact
/// in-cell height ([`Mcnk::height_in_cell`]); a sink that only counts gets
/// a zero position.
pub(crate) fn emit<S: Sink>(
    stats: &mut PlacementStats,
    sink: &mut S,
    mcnk: &Mcnk,
    model: u16,
    drawn: Drawn,
    origin: Origin,
) {
    let Drawn {
        u,
        v,
        yaw,
        scale,
        seed,
    } = drawn;
    let (row, col) = (origin.row, origin.col);
    let position = if S::WANTS_PLACEMENTS {
        let (x, y) =
            mcnk.local_to_world(f64::from(col) + f64::from(u), f64::from(row) + f64::from(v));
        [x as f32, y as f32, mcnk.height_in_cell(row, col, u, v)]
    } else {
        [0.0; 3]
    };
    stats.placements += 1;
    if let Some(c) = stats.per_model.get_mut(model as usize) {
        *c += 1;
    }
    let p = Placement {
        position,
        yaw,
        scale,
        seed,
    };
    sink.push(model, p, origin);
}

pub(crate) fn place_mcnk<S: Sink>(
    chunk: ChunkCoord,
    mcnk: &Mcnk,
    effects: &ResolvedEffects,
    policy: &Policy,
    stats: &mut PlacementStats,
    sink: &mut S,
) {
    stats.mcnks += 1;
    match policy {
        Policy::Client(p) => client::place(chunk, mcnk, effects, p, stats, sink),
        Policy::Client335(p) => client335::place(chunk, mcnk, effects, p, stats, sink),
        Policy::PerCell(p) => per_cell::place(chunk, mcnk, effects, p, stats, sink),
    }
}

impl Placements {
    /// Builds the placements of one tile with `policy`. `model_count` is the
    /// number of detail models (indices in `effects` are below it).
    pub fn build_tile(
        tile: &AdtTile,
        effects: &ResolvedEffects,
        model_count: usize,
        policy: &Policy,
    ) -> (Self, PlacementStats) {
        let mut out = Self::default();
        let mut stats = PlacementStats::new(model_count);
        let mut scratch = Vec::new();
        let mut counts = vec![0u32; model_count];
        for m in &tile.mcnks {
            let chunk = m.chunk_coord(tile.coord);
            scratch.clear();
            place_mcnk(
                chunk,
                m,
                effects,
                policy,
                &mut stats,
                &mut Collect(&mut scratch),
            );
            out.append_mcnk(chunk, &scratch, &mut counts);
        }
        (out, stats)
    }

    /// Counts what [`Placements::build_tile`] would place, without computing
    /// positions (fast; used by `sward presets`).
    pub fn count_tile(
        tile: &AdtTile,
        effects: &ResolvedEffects,
        model_count: usize,
        policy: &Policy,
    ) -> PlacementStats {
        let mut stats = PlacementStats::new(model_count);
        for m in &tile.mcnks {
            place_mcnk(
                m.chunk_coord(tile.coord),
                m,
                effects,
                policy,
                &mut stats,
                &mut Count,
            );
        }
        stats
    }

    /// Builds the placements of every resident tile of `world`, in tile order.
    pub fn build_world(
        world: &World,
        effects: &ResolvedEffects,
        model_count: usize,
        policy: &Policy,
    ) -> (Self, PlacementStats) {
        let parts: Vec<_> = world
            .tiles()
            .into_iter()
            .map(|t| Self::build_tile(t, effects, model_count, policy))
            .collect();
        let stats = parts
            .iter()
            .fold(PlacementStats::new(model_count), |mut s, (_, p)| {
                s.add(p);
                s
            });
        (Self::concat(parts.iter().map(|(p, _)| p)), stats)
    }

    /// Sorts one MCNK's placements by model (stable counting sort) and
    /// appends them as groups.
    fn append_mcnk(&mut self, chunk: ChunkCoord, scratch: &[(u16, Placement)], counts: &mut [u32]) {
        counts.iter_mut().for_each(|c| *c = 0);
        for (m, _) in scratch {
            counts[*m as usize] += 1;
        }
        let base = self.items.len();
        let mut offsets = Vec::with_capacity(counts.len());
        let mut acc = base as u32;
        for (model, &c) in counts.iter().enumerate() {
            offsets.push(acc);
            if c > 0 {
                self.groups.push(PlacementGroup {
                    chunk,
                    model: model as u16,
                    start: acc,
                    count: c,
                });
            }
            acc += c;
        }
        self.items
            .resize(base + scratch.len(), Placement::default());
        for (m, p) in scratch {
            let slot = &mut offsets[*m as usize];
            self.items[*slot as usize] = *p;
            *slot += 1;
        }
    }

    /// Concatenates per-tile placements (given in tile order) into one set,
    /// rebasing group starts.
    pub fn concat<'a>(parts: impl IntoIterator<Item = &'a Placements>) -> Self {
        let mut out = Self::default();
        for p in parts {
            let base = out.items.len() as u32;
            out.items.extend_from_slice(&p.items);
            out.groups.extend(p.groups.iter().map(|g| PlacementGroup {
                start: g.start + base,
                ..*g
            }));
        }
        out
    }

    /// Number of placements.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there are no placements.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The placements of one group.
    pub fn group_items(&self, g: &PlacementGroup) -> &[Placement] {
        &self.items[g.range()]
    }

    /// Groups per MCNK: `(chunk, groups of that chunk)` in order.
    pub fn by_chunk(&self) -> impl Iterator<Item = (ChunkCoord, &[PlacementGroup])> + '_ {
        self.groups
            .chunk_by(|a, b| a.chunk == b.chunk)
            .map(|g| (g[0].chunk, g))
    }

    /// Indices into [`Placements::groups`] per model (`model_count` lists).
    pub fn groups_by_model(&self, model_count: usize) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); model_count];
        for (i, g) in self.groups.iter().enumerate() {
            if let Some(list) = out.get_mut(g.model as usize) {
                list.push(i as u32);
            }
        }
        out
    }

    /// Placements regrouped contiguously per model (the static-batch layout):
    /// the items and each model's range in them.
    pub fn model_major(&self, model_count: usize) -> (Vec<Placement>, Vec<Range<usize>>) {
        let by_model = self.groups_by_model(model_count);
        let mut items = Vec::with_capacity(self.items.len());
        let mut ranges = Vec::with_capacity(model_count);
        for list in by_model {
            let start = items.len();
            for gi in list {
                items.extend_from_slice(self.group_items(&self.groups[gi as usize]));
            }
            ranges.push(start..items.len());
        }
        (items, ranges)
    }

    /// Placements per model.
    pub fn per_model_counts(&self, model_count: usize) -> Vec<u64> {
        let mut out = vec![0u64; model_count];
        for g in &self.groups {
            if let Some(c) = out.get_mut(g.model as usize) {
                *c += g.count as u64;
            }
        }
        out
    }

    /// Bytes of placement data held.
    pub fn bytes(&self) -> usize {
        self.items.len() * std::mem::size_of::<Placement>()
            + self.groups.len() * std::mem::size_of::<PlacementGroup>()
    }
}

#[cfg(test)]
mod tests;
