//! The control word of `camera-grid` (WGSL `camera_grid`): one `u32` per
//! terrain cell (8x8 per MCNK) saying whether and how much grass it grows,
//! and the words of one MCNK ([`mcnk_words`]) computed from the terrain, the
//! resolved effects and the placement policy's per-cell rules. Bits 0..3
//! are the [`Reason`] (0 = the cell grows grass), bits 4..15 the effect's
//! slot in the effect table (the resident window's palette,
//! [`super::effects`]), bits 16..31 the *expected* number of placements the
//! policy makes in the cell, in 1/256. [`super::control`] lays the words
//! out over the atlas index window.

use sward_scenes::effects::{ResolvedEffect, ResolvedEffects};
use sward_scenes::placement::per_cell::clumps;
use sward_scenes::placement::Policy;
use sward_scenes::world::Mcnk;

/// Why a cell grows nothing (bits 0..3 of the control word).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u32)]
pub enum Reason {
    /// The cell grows grass.
    Grows = 0,
    /// Not resident (outside the loaded MCNKs).
    Outside = 1,
    /// noEffectDoodad bit set.
    NoEffectDoodad = 2,
    /// Terrain hole.
    Hole = 3,
    /// An effect-less (road) layer covers the cell (per-cell policy).
    Road = 4,
    /// Coverage of the cell's layer below the minimum (per-cell policy).
    LowCoverage = 5,
    /// The predTex layer has no (known, usable) effect.
    NoEffect = 6,
}

impl Reason {
    /// The reason encoded in bits 0..3 of `word` (unknown codes read as outside).
    pub fn of(word: u32) -> Reason {
        match word & REASON_MASK {
            0 => Reason::Grows,
            2 => Reason::NoEffectDoodad,
            3 => Reason::Hole,
            4 => Reason::Road,
            5 => Reason::LowCoverage,
            6 => Reason::NoEffect,
            _ => Reason::Outside,
        }
    }
}

const REASON_MASK: u32 = 0xf;
const EFFECT_SHIFT: u32 = 4;
const EFFECT_MASK: u32 = 0xfff;
const DENSITY_SHIFT: u32 = 16;
/// Fixed-point scale of the expected placements (WGSL `GRID_DENSITY_SCALE`).
pub const DENSITY_SCALE: f32 = 256.0;
/// Most effects the control word can index.
pub const MAX_EFFECTS: usize = EFFECT_MASK as usize + 1;
/// Control word of a cell with no data (not resident).
pub const OUTSIDE_WORD: u32 = Reason::Outside as u32;

/// Encodes a growing cell: effect table index and expected placements
/// (rounded to 1/256, saturating at 255.996).
pub fn grow_word(effect: u16, expected: f32) -> u32 {
    let fixed = (expected.max(0.0) * DENSITY_SCALE).round().min(65535.0) as u32;
    (fixed << DENSITY_SHIFT) | ((u32::from(effect) & EFFECT_MASK) << EFFECT_SHIFT)
}

/// Effect table index of a control word.
pub fn word_effect(word: u32) -> u32 {
    (word >> EFFECT_SHIFT) & EFFECT_MASK
}

/// Expected placements per cell of a control word.
pub fn word_expected(word: u32) -> f32 {
    (word >> DENSITY_SHIFT) as f32 / DENSITY_SCALE
}

/// `word` with its effect index set to `effect` (a growing cell's word).
pub fn set_word_effect(word: u32, effect: u16) -> u32 {
    (word & !(EFFECT_MASK << EFFECT_SHIFT)) | ((u32::from(effect) & EFFECT_MASK) << EFFECT_SHIFT)
}

/// The control word of cell `(row, col)` of `mcnk` under `policy`; `index`
/// gives a growing cell's effect id its index (the palette slot, or a
/// tile-local index, see [`super::effects::TileControl`]), `None` grows
/// nothing.
pub fn cell_word(
    mcnk: &Mcnk,
    row: u32,
    col: u32,
    effects: &ResolvedEffects,
    policy: &Policy,
    index: &mut dyn FnMut(u32) -> Option<u16>,
) -> u32 {
    let h = &mcnk.header;
    if h.no_effect_doodad.is_set(row, col) {
        return Reason::NoEffectDoodad as u32;
    }
    if h.is_hole(row, col) {
        return Reason::Hole as u32;
    }
    let layer = h.pred_tex.layer(row, col) as usize;
    let usable = |e: &ResolvedEffect| e.total_weight() > 0 || e.slots.iter().any(Option::is_some);
    let Some(effect) = mcnk
        .layers
        .get(layer)
        .and_then(|l| l.effect())
        .and_then(|id| effects.get(id))
        .filter(|e| usable(e))
    else {
        return Reason::NoEffect as u32;
    };
    let mut grow = |expected: f32| match index(effect.id) {
        Some(i) => grow_word(i, expected),
        None => Reason::NoEffect as u32,
    };
    match policy {
        Policy::PerCell(p) => {
            let (tr, tc) = (row as usize * 8 + 4, col as usize * 8 + 4);
            let coverage = mcnk.layer_weight(layer, tr, tc);
            if coverage < p.coverage_min {
                return Reason::LowCoverage as u32;
            }
            let road = mcnk
                .layers
                .iter()
                .enumerate()
                .filter(|(i, l)| *i != layer && l.effect().is_none())
                .any(|(i, _)| mcnk.layer_weight(i, tr, tc) >= p.road_coverage_min);
            if road {
                return Reason::Road as u32;
            }
            let base = clumps(coverage, effect.density, p.density_cap, p.max_clumps);
            grow(base as f32 * p.density_scale)
        }
        Policy::Client(p) => grow(p.frill_density as f32 / 64.0 * effect.density as f32),
        Policy::Client335(p) => grow(p.picks() as f32 / 64.0 * effect.density as f32),
    }
}

/// An upper bound of the expected placements of any cell under `policy`
/// (the densest usable effect at full coverage), whatever the terrain: what
/// a streaming grid sizes its candidates by, so that count does not depend
/// on which tiles happen to be resident.
pub fn max_expected_bound(effects: &ResolvedEffects, policy: &Policy) -> f32 {
    let usable = |e: &ResolvedEffect| e.total_weight() > 0 || e.slots.iter().any(Option::is_some);
    effects
        .effects
        .iter()
        .filter(|e| usable(e))
        .map(|e| {
            let expected = match policy {
                Policy::PerCell(p) => {
                    clumps(255, e.density, p.density_cap, p.max_clumps) as f32 * p.density_scale
                }
                Policy::Client(p) => p.frill_density as f32 / 64.0 * e.density as f32,
                Policy::Client335(p) => p.picks() as f32 / 64.0 * e.density as f32,
            };
            word_expected(grow_word(0, expected))
        })
        .fold(0.0, f32::max)
}

/// The 64 control words of `mcnk`, `[row * 8 + col]` (`index` as in
/// [`cell_word`]).
pub fn mcnk_words(
    mcnk: &Mcnk,
    effects: &ResolvedEffects,
    policy: &Policy,
    index: &mut dyn FnMut(u32) -> Option<u16>,
) -> [u32; 64] {
    std::array::from_fn(|i| {
        let (row, col) = (i as u32 / 8, i as u32 % 8);
        cell_word(mcnk, row, col, effects, policy, index)
    })
}
