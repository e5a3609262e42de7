//! What the GPU generator reads, built on the CPU: the effect table
//! ([`EffectTable`], one [`PlaceEffectGpu`] per ground effect), the per-MCNK
//! record ([`place_chunk`]: global coordinate, atlas slot, holes, stored
//! position, predTex, noEffectDoodad, the layers' effects as table indices),
//! the per-cell coverage block `per-cell` needs ([`cell_cover`]: the alpha
//! maps stay on the CPU), the parameters of a policy ([`params`]) and an
//! upper bound of an MCNK's placements ([`capacity_bound`]) that sizes the
//! output.
//!
//! The table is indexed by the slots of a window palette of effects
//! (`crate::grass::palette::EffectPalette`): a record's layer names its
//! effect's palette slot, so a 3.3.5 table of 24,982 records becomes the few
//! dozen effects the resident tiles use, and a tile change rewrites only the
//! slots the palette answers as changed ([`EffectTable::apply`]).

use std::collections::HashMap;

use sward_scenes::effects::{ResolvedEffect, ResolvedEffects};
use sward_scenes::world::{ChunkCoord, Mcnk};
use sward_scenes::{AdtTile, Policy};

use super::gpu::{
    PlaceChunkGpu, PlaceEffectGpu, PlaceParamsGpu, COVER_WORDS, LAYER_NONE, LAYER_NO_EFFECT,
    LAYER_UNKNOWN, MAX_ATLAS_SLOT, MAX_EFFECTS, MAX_MODELS, SLOT_DANGLING, SLOT_EMPTY,
};
use super::PlacementGpuError;
use crate::grass::palette::{EffectPalette, SlotChange};

/// The ground effects as the generator reads them: entry `slot` is the
/// effect a window palette ([`EffectPalette`]) holds at that slot, so a
/// record's layer names an effect by its palette slot; and each known effect
/// id's slot. A palette slot that is free, or holds an id the
/// GroundEffectTexture table lacks (records name that one `LAYER_UNKNOWN`),
/// has an entry with every slot empty.
#[derive(Clone, Debug, Default)]
pub struct EffectTable {
    entries: Vec<PlaceEffectGpu>,
    index: HashMap<u32, u16>,
}

/// The entry of a free or unknown palette slot: no model, no density.
const NO_EFFECT: PlaceEffectGpu = PlaceEffectGpu {
    doodads: [0; 4],
    weights: [0; 4],
    stored_weights: [0; 4],
    models: [
        SLOT_EMPTY as u32 | (SLOT_EMPTY as u32) << 16,
        SLOT_EMPTY as u32 | (SLOT_EMPTY as u32) << 16,
    ],
    density: 0,
    client_density: 0,
};

/// The generator's entry of resolved effect `e`.
fn effect_entry(e: &ResolvedEffect) -> Result<PlaceEffectGpu, PlacementGpuError> {
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
    Ok(PlaceEffectGpu {
        doodads: e.doodads,
        weights: e.weights,
        stored_weights: e.stored_weights,
        models: [
            u32::from(models[0]) | u32::from(models[1]) << 16,
            u32::from(models[2]) | u32::from(models[3]) << 16,
        ],
        density: e.density,
        client_density: e.client_density(),
    })
}

impl EffectTable {
    /// A palette of at most [`MAX_EFFECTS`] slots (what a record's 16-bit
    /// layer field can name).
    pub fn palette() -> EffectPalette {
        EffectPalette::new(MAX_EFFECTS)
    }

    /// A palette over `tiles` (the effect ids their MCNK layers name) and
    /// the table of its slots: what one generation over those tiles binds.
    pub fn for_tiles<'t>(
        tiles: impl IntoIterator<Item = &'t AdtTile>,
        effects: &ResolvedEffects,
    ) -> Result<(EffectPalette, Self), PlacementGpuError> {
        let mut palette = Self::palette();
        for t in tiles {
            palette.set_tile(t.coord, tile_effects(t))?;
        }
        let table = Self::from_palette(&palette, effects)?;
        Ok((palette, table))
    }

    /// The table of every slot `palette` has used, effects resolved from
    /// `effects`.
    pub fn from_palette(
        palette: &EffectPalette,
        effects: &ResolvedEffects,
    ) -> Result<Self, PlacementGpuError> {
        let mut table = Self::default();
        let changes: Vec<SlotChange> = (0..palette.slots_used() as u32)
            .map(|slot| SlotChange {
                slot,
                effect: palette.effect(slot),
            })
            .collect();
        table.apply(&changes, effects)?;
        Ok(table)
    }

    /// Rewrites the entries of the slots a palette answered as changed (a
    /// tile made resident or evicted); returns the slots rewritten, for a
    /// technique that keeps the table on the GPU.
    pub fn apply(
        &mut self,
        changes: &[SlotChange],
        effects: &ResolvedEffects,
    ) -> Result<Vec<u32>, PlacementGpuError> {
        let mut written = Vec::with_capacity(changes.len());
        for c in changes {
            let slot = c.slot as usize;
            if slot >= MAX_EFFECTS {
                return Err(PlacementGpuError::Input {
                    what: "effect table".into(),
                    reason: format!("palette slot {slot}; a record names at most {MAX_EFFECTS}"),
                });
            }
            if self.entries.len() <= slot {
                self.entries.resize(slot + 1, NO_EFFECT);
            }
            self.index.retain(|_, s| usize::from(*s) != slot);
            self.entries[slot] = match c.effect.and_then(|id| effects.get(id)) {
                Some(e) => {
                    self.index.insert(e.id, slot as u16);
                    effect_entry(e)?
                }
                None => NO_EFFECT,
            };
            written.push(c.slot);
        }
        Ok(written)
    }

    /// The slot of known effect id `id` (`None` for an id the palette does
    /// not hold or the GroundEffectTexture table lacks).
    pub fn index_of(&self, id: u32) -> Option<u16> {
        self.index.get(&id).copied()
    }

    /// The entries, in slot order.
    pub fn entries(&self) -> &[PlaceEffectGpu] {
        &self.entries
    }

    /// The entry of effect id `id`.
    pub fn get(&self, id: u32) -> Option<&PlaceEffectGpu> {
        self.index_of(id).map(|i| &self.entries[usize::from(i)])
    }
}

/// The ground-effect ids `tile`'s MCNK layers name (with repeats).
pub fn tile_effects(tile: &AdtTile) -> impl Iterator<Item = u32> + '_ {
    tile.mcnks
        .iter()
        .flat_map(|m| m.layers.iter().filter_map(|l| l.effect()))
}

/// The record of MCNK `m` (global coordinate `chunk`) whose heights sit in
/// height-atlas slot `slot`, its layers' effects as indices into `table`.
pub fn place_chunk(
    chunk: ChunkCoord,
    m: &Mcnk,
    slot: u32,
    table: &EffectTable,
) -> Result<PlaceChunkGpu, PlacementGpuError> {
    place_chunk_coded(chunk, m, slot, |id| {
        table.index_of(id).unwrap_or(LAYER_UNKNOWN)
    })
}

/// [`place_chunk`] with each layer's effect id coded by `code` (the
/// effect-table index, or any code the caller resolves later; the
/// `LAYER_NONE` and `LAYER_NO_EFFECT` codes are this function's).
pub fn place_chunk_coded(
    chunk: ChunkCoord,
    m: &Mcnk,
    slot: u32,
    code: impl Fn(u32) -> u16,
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
    for (slot_code, l) in layers.iter_mut().zip(&m.layers) {
        *slot_code = match l.effect() {
            None => LAYER_NO_EFFECT,
            Some(id) => code(id),
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

#[cfg(test)]
mod tests {
    use super::*;
    use sward_scenes::models::elwynn_models;
    use sward_scenes::presets::{preset_effects, terrain::effect_ids, Preset};
    use sward_scenes::TileSource;

    fn resolved() -> ResolvedEffects {
        let models = elwynn_models();
        let paths: Vec<&str> = models.iter().map(|m| m.path.as_str()).collect();
        preset_effects()
            .and_then(|e| e.resolve(&paths))
            .expect("effects")
    }

    /// Slots follow the palette's answers: a known effect gets its entry and
    /// index, an unknown id an empty entry and no index, a freed slot is
    /// emptied and a reused one rewritten.
    #[test]
    fn the_table_follows_the_palette_slots() {
        let effects = resolved();
        let mut table = EffectTable::default();
        let change = |slot, effect| SlotChange { slot, effect };
        let written = table
            .apply(
                &[
                    change(0, Some(effect_ids::GRASS_MEADOW)),
                    change(1, Some(99_999)),
                ],
                &effects,
            )
            .expect("apply");
        assert_eq!(written, [0, 1]);
        assert_eq!(table.index_of(effect_ids::GRASS_MEADOW), Some(0));
        assert_eq!(table.index_of(99_999), None);
        assert_eq!(table.entries()[1], NO_EFFECT);
        let meadow = effects.get(effect_ids::GRASS_MEADOW).expect("meadow");
        assert_eq!(table.entries()[0].stored_weights, meadow.stored_weights);
        assert_eq!(table.entries()[0].client_density, meadow.client_density());
        table.apply(&[change(0, None)], &effects).expect("free");
        assert_eq!(table.index_of(effect_ids::GRASS_MEADOW), None);
        assert_eq!(table.entries()[0], NO_EFFECT);
        table
            .apply(&[change(0, Some(effect_ids::FERNS))], &effects)
            .expect("reuse");
        assert_eq!(table.index_of(effect_ids::FERNS), Some(0));
        let err = table
            .apply(
                &[change(MAX_EFFECTS as u32, Some(effect_ids::FERNS))],
                &effects,
            )
            .expect_err("beyond a record's reach");
        assert!(err.to_string().contains("palette slot"), "{err}");
    }

    /// A record names each layer's effect by its palette slot, and the
    /// header fields pack as the WGSL decodes them.
    #[test]
    fn records_name_layers_by_palette_slot() {
        let preset = Preset::by_name("elwynn-client").expect("preset");
        let tile = preset.source().load(preset.centre()).expect("tile");
        let effects = resolved();
        let (palette, table) = EffectTable::for_tiles([&tile], &effects).expect("table");
        assert!(
            palette.len() >= 2 && palette.len() <= 4,
            "{}",
            palette.len()
        );
        let mut m = tile.mcnks[17].clone();
        let chunk = m.chunk_coord(tile.coord);
        while m.layers.len() < 3 {
            let last = m.layers[m.layers.len() - 1].clone();
            m.layers.push(last);
        }
        m.layers.truncate(3);
        m.layers[1].effect_id = 77_777;
        m.layers[2].effect_id = 0;
        let r = place_chunk(chunk, &m, 1234, &table).expect("record");
        let code = |k: usize| ((r.layers[k / 2] >> (16 * (k % 2))) & 0xFFFF) as u16;
        let first = m.layers[0].effect().expect("layer 0 has an effect");
        assert_eq!(Some(code(0)), table.index_of(first));
        assert_eq!(code(1), LAYER_UNKNOWN);
        assert_eq!(code(2), LAYER_NO_EFFECT);
        assert_eq!(code(3), LAYER_NONE);
        assert_eq!(r.chunk, chunk.x | chunk.y << 16);
        assert_eq!(r.slot_holes & 0xFFFF, 1234);
        assert_eq!(r.slot_holes >> 16, u32::from(m.header.holes_low_res));
        for row in 0..8u32 {
            for col in 0..8u32 {
                let half = (r.pred_tex[row as usize / 2] >> (16 * (row % 2))) & 0xFFFF;
                assert_eq!((half >> (2 * col)) & 3, m.header.pred_tex.layer(row, col));
                let bit = (r.no_effect[row as usize / 4] >> (8 * (row % 4) + col)) & 1;
                assert_eq!(bit != 0, m.header.no_effect_doodad.is_set(row, col));
            }
        }
        assert!(place_chunk(chunk, &m, 0x1_0000, &table).is_err());
    }
}
