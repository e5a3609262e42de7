//! What the GPU generator reads, built on the CPU: the effect table
//! ([`EffectTable`], one [`PlaceEffectGpu`] per ground effect), the per-MCNK
//! record ([`place_chunk`]: global coordinate, atlas slot, holes, stored
//! position, predTex, noEffectDoodad, the layers' effects as table indices),
//! the per-cell coverage block `per-cell` needs ([`cell_cover`]: the alpha
//! maps stay on the CPU), the parameters of a policy ([`params`]) and an
//! upper bound of an MCNK's placements ([`capacity_bound`]) that sizes the
//! output.
//!
//! Phase one builds the table from the scene's resolved effects, indexed in
//! table order; the window palette of effects (issue 43) can replace it:
//! records only need an index per layer into whatever table is bound.

use std::collections::HashMap;

use sward_scenes::effects::ResolvedEffects;
use sward_scenes::world::{ChunkCoord, Mcnk};
use sward_scenes::Policy;

use super::gpu::{
    PlaceChunkGpu, PlaceEffectGpu, PlaceParamsGpu, COVER_WORDS, LAYER_NONE, LAYER_NO_EFFECT,
    LAYER_UNKNOWN, MAX_ATLAS_SLOT, MAX_EFFECTS, MAX_MODELS, SLOT_DANGLING, SLOT_EMPTY,
};
use super::PlacementGpuError;

/// The ground effects as the generator reads them, and each effect id's
/// index there.
#[derive(Clone, Debug, Default)]
pub struct EffectTable {
    entries: Vec<PlaceEffectGpu>,
    index: HashMap<u32, u16>,
}

impl EffectTable {
    /// Every effect of `effects`, in table order. Fails when the table or
    /// a model index does not fit the record's 16-bit fields.
    pub fn from_resolved(effects: &ResolvedEffects) -> Result<Self, PlacementGpuError> {
        if effects.effects.len() > MAX_EFFECTS {
            return Err(PlacementGpuError::Input {
                what: "effect table".into(),
                reason: format!(
                    "{} ground effects; a record's layer names at most {MAX_EFFECTS}",
                    effects.effects.len()
                ),
            });
        }
        let mut entries = Vec::with_capacity(effects.effects.len());
        let mut index = HashMap::with_capacity(effects.effects.len());
        for (i, e) in effects.effects.iter().enumerate() {
            let mut models = [0u16; 4];
            for (k, m) in models.iter_mut().enumerate() {
                *m = match e.slots[k] {
                    Some(model) if usize::from(model) >= MAX_MODELS => {
                        return Err(PlacementGpuError::Input {
                            what: format!("ground effect {}", e.id),
                            reason: format!("model index {model} beyond {MAX_MODELS}"),
                        })
                    }
                    Some(model) => model,
                    None if e.dangling[k] => SLOT_DANGLING,
                    None => SLOT_EMPTY,
                };
            }
            entries.push(PlaceEffectGpu {
                doodads: e.doodads,
                weights: e.weights,
                stored_weights: e.stored_weights,
                models: [
                    u32::from(models[0]) | u32::from(models[1]) << 16,
                    u32::from(models[2]) | u32::from(models[3]) << 16,
                ],
                density: e.density,
                client_density: e.client_density(),
            });
            index.insert(e.id, i as u16);
        }
        Ok(Self { entries, index })
    }

    /// The table index of effect id `id`.
    pub fn index_of(&self, id: u32) -> Option<u16> {
        self.index.get(&id).copied()
    }

    /// The entries, in index order.
    pub fn entries(&self) -> &[PlaceEffectGpu] {
        &self.entries
    }

    /// The entry of effect id `id`.
    pub fn get(&self, id: u32) -> Option<&PlaceEffectGpu> {
        self.index_of(id).map(|i| &self.entries[usize::from(i)])
    }
}

/// The record of MCNK `m` (global coordinate `chunk`) whose heights sit in
/// height-atlas slot `slot`, its layers' effects as indices into `table`.
pub fn place_chunk(
    chunk: ChunkCoord,
    m: &Mcnk,
    slot: u32,
    table: &EffectTable,
) -> Result<PlaceChunkGpu, PlacementGpuError> {
    let what = || format!("MCNK ({}, {})", chunk.x, chunk.y);
    if chunk.x > 0xFFFF || chunk.y > 0xFFFF || slot > MAX_ATLAS_SLOT {
        return Err(PlacementGpuError::Input {
            what: what(),
            reason: format!("coordinate or atlas slot {slot} does not fit 16 bits"),
        });
    }
    if m.layers.len() > 4 {
        return Err(PlacementGpuError::Input {
            what: what(),
            reason: format!("{} texture layers (at most 4)", m.layers.len()),
        });
    }
    let h = &m.header;
    let rows = h.pred_tex.0;
    let no_effect = h.no_effect_doodad.to_u64();
    let mut layers = [LAYER_NONE; 4];
    for (code, l) in layers.iter_mut().zip(&m.layers) {
        *code = match l.effect() {
            None => LAYER_NO_EFFECT,
            Some(id) => table.index_of(id).unwrap_or(LAYER_UNKNOWN),
        };
    }
    let pair = |a: u16, b: u16| u32::from(a) | u32::from(b) << 16;
    Ok(PlaceChunkGpu {
        chunk: chunk.x | chunk.y << 16,
        slot_holes: slot | u32::from(h.holes_low_res) << 16,
        origin: [h.position[0], h.position[1]],
        pred_tex: [
            pair(rows[0], rows[1]),
            pair(rows[2], rows[3]),
            pair(rows[4], rows[5]),
            pair(rows[6], rows[7]),
        ],
        no_effect: [no_effect as u32, (no_effect >> 32) as u32],
        layers: [pair(layers[0], layers[1]), pair(layers[2], layers[3])],
    })
}

/// The per-cell coverage block of `m` (WGSL `place_cover`): a 64-bit mask of
/// the cells with an effect-less layer besides their predTex layer, then
/// per cell the coverage of its predTex layer at the cell's centre texel
/// (bits 0..8) and the largest weight of such an effect-less layer there
/// (bits 8..16), the values `per_cell::place` compares with its minimums.
pub fn cell_cover(m: &Mcnk) -> [u32; COVER_WORDS] {
    let mut out = [0u32; COVER_WORDS];
    for row in 0..8u32 {
        for col in 0..8u32 {
            let cell = (row * 8 + col) as usize;
            let layer = m.header.pred_tex.layer(row, col) as usize;
            let (tr, tc) = (row as usize * 8 + 4, col as usize * 8 + 4);
            let coverage = u32::from(m.layer_weight(layer, tr, tc));
            let mut road: Option<u32> = None;
            for (i, l) in m.layers.iter().enumerate() {
                if i != layer && l.effect().is_none() {
                    let w = u32::from(m.layer_weight(i, tr, tc));
                    road = Some(road.map_or(w, |r| r.max(w)));
                }
            }
            if road.is_some() {
                out[cell / 32] |= 1 << (cell % 32);
            }
            let bits = coverage | road.unwrap_or(0) << 8;
            out[2 + cell / 2] |= bits << (16 * (cell % 2));
        }
    }
    out
}

/// The generator's parameters for `policy` over `record_count` records with
/// room for `capacity` placements.
pub fn params(policy: &Policy, record_count: u32, capacity: u32) -> PlaceParamsGpu {
    let mut p = PlaceParamsGpu {
        record_count,
        capacity,
        ..Default::default()
    };
    match policy {
        Policy::Client(c) => p.picks = c.picks(),
        Policy::Client335(c) => p.picks = c.picks(),
        Policy::PerCell(c) => {
            p.coverage_min = u32::from(c.coverage_min);
            p.road_min = u32::from(c.road_coverage_min);
            p.density_cap = c.density_cap;
            p.max_clumps = c.max_clumps;
            p.density_scale = c.density_scale;
        }
    }
    p
}

/// The most placements `policy` can make in MCNK `m`: the picks times the
/// largest density of its layers' effects (client routines), or 64 cells
/// times the largest scaled clump count (`per-cell`).
pub fn capacity_bound(policy: &Policy, m: &Mcnk, table: &EffectTable) -> u64 {
    let densest = m
        .layers
        .iter()
        .filter_map(|l| table.get(l.effect()?))
        .map(|e| u64::from(e.client_density))
        .max()
        .unwrap_or(0);
    match policy {
        Policy::Client(c) => u64::from(c.picks()) * densest,
        Policy::Client335(c) => u64::from(c.picks()) * densest,
        Policy::PerCell(c) => {
            let per_cell = (c.max_clumps as f32 * c.density_scale.max(0.0)).ceil() as u64 + 1;
            64 * per_cell
        }
    }
}

/// The records of a list of MCNKs, their coverage blocks and the output room
/// they need: everything of a [`super::GenerationInputs`] but the table.
#[derive(Clone, Debug, Default)]
pub struct McnkBatch {
    /// One record per MCNK, in list order.
    pub records: Vec<PlaceChunkGpu>,
    /// [`COVER_WORDS`] words per record (`per-cell`; empty otherwise).
    pub cover: Vec<u32>,
    /// The sum of the MCNKs' [`capacity_bound`]s.
    pub capacity: u64,
}

impl McnkBatch {
    /// The batch of `mcnks` (global coordinate and MCNK) placed with
    /// `policy`, each MCNK's heights at its slot of `atlas`.
    pub fn new<'m>(
        policy: &Policy,
        mcnks: impl IntoIterator<Item = (ChunkCoord, &'m Mcnk)>,
        atlas: &crate::atlas::HeightAtlas,
        table: &EffectTable,
    ) -> Result<Self, PlacementGpuError> {
        let mut out = Self::default();
        for (chunk, m) in mcnks {
            let slot = atlas
                .slot_of(chunk)
                .ok_or_else(|| PlacementGpuError::Input {
                    what: format!("MCNK ({}, {})", chunk.x, chunk.y),
                    reason: "not in the height atlas".into(),
                })?;
            out.records.push(place_chunk(chunk, m, slot, table)?);
            if matches!(policy, Policy::PerCell(_)) {
                out.cover.extend_from_slice(&cell_cover(m));
            }
            out.capacity += capacity_bound(policy, m, table);
        }
        Ok(out)
    }
}
