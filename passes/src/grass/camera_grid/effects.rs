//! The effects `camera-grid`'s control words index: the resident window's
//! ground effects at their [`EffectPalette`] slots ([`EffectTable`]), never
//! the whole GroundEffectTexture table, so a client table of any size works
//! (a 3.3.5 table has 24,982 records; the control word's 12 bits index at
//! most [`MAX_EFFECTS`] resident ones).
//!
//! A tile's control blocks are built without the palette ([`TileControl`]:
//! on a tile worker while the world streams), their effect fields holding
//! the index into the tile's own list of effect ids; when the tile is
//! placed on the render thread, the palette gives those ids their slots
//! ([`EffectTable::set_tile`]) and [`TileControl::resolved`] rewrites the
//! fields to the slots.

use std::collections::HashMap;

use sward_scenes::effects::ResolvedEffects;
use sward_scenes::placement::Policy;
use sward_scenes::{AdtTile, TileCoord};

use super::gpu::{GridEffectGpu, NO_MODEL};
use super::word::{mcnk_words, set_word_effect, word_effect, Reason, MAX_EFFECTS};
use crate::error::PassError;
use crate::grass::palette::{EffectPalette, SlotChange};

/// The record of a free slot: no model, no weight (grows nothing).
pub const BLANK_EFFECT: GridEffectGpu = GridEffectGpu {
    models: [NO_MODEL; 4],
    weights: [0; 4],
    total: 0,
    density: 0,
    pad0: 0,
    pad1: 0,
};

/// The resident window's effects: GPU records by palette slot.
#[derive(Debug, Clone)]
pub struct EffectTable {
    /// GPU records by slot ([`BLANK_EFFECT`] for a free slot); as long as
    /// the slots taken so far.
    pub records: Vec<GridEffectGpu>,
    palette: EffectPalette,
}

impl EffectTable {
    /// An empty table for the effects of `effects`: as many slots as the
    /// table has effects, at most [`MAX_EFFECTS`] (at least 1).
    pub fn new(effects: &ResolvedEffects) -> Self {
        EffectTable {
            records: Vec::new(),
            palette: EffectPalette::new(effects.effects.len().clamp(1, MAX_EFFECTS)),
        }
    }

    /// The slot of effect id `id`, if a resident tile uses it.
    pub fn index_of(&self, id: u32) -> Option<u16> {
        self.palette.slot(id).and_then(|s| u16::try_from(s).ok())
    }

    /// Slots the GPU array holds ([`MAX_EFFECTS`] at most).
    pub fn capacity(&self) -> usize {
        self.palette.capacity()
    }

    /// The palette (which effect is at which slot).
    pub fn palette(&self) -> &EffectPalette {
        &self.palette
    }

    /// Tile `tile` is resident using effect ids `ids` (empty: evicted).
    /// Effects new to the window take slots and get their records; effects
    /// no resident tile uses any more free theirs. Answers the slots whose
    /// record changed. More than the capacity of distinct resident effects
    /// is an error naming the count, and changes nothing.
    pub fn set_tile(
        &mut self,
        tile: TileCoord,
        ids: &[u32],
        effects: &ResolvedEffects,
    ) -> Result<Vec<SlotChange>, PassError> {
        let changes = self
            .palette
            .set_tile(tile, ids.iter().copied())
            .map_err(|e| PassError::InvalidInput {
                technique: "grass.camera-grid",
                what: "resident ground effects".into(),
                reason: format!("{e} (the control word's effect index has 12 bits)"),
            })?;
        for c in &changes {
            let at = c.slot as usize;
            if self.records.len() <= at {
                self.records.resize(at + 1, BLANK_EFFECT);
            }
            self.records[at] = c
                .effect
                .and_then(|id| effects.get(id))
                .map_or(BLANK_EFFECT, GridEffectGpu::new);
        }
        Ok(changes)
    }
}

/// One tile's control blocks with effect fields indexing [`Self::ids`]
/// (the tile's own effects), before the palette gives them slots.
#[derive(Debug, Clone, Default)]
pub struct TileControl {
    /// The distinct effect ids the tile's growing cells use.
    pub ids: Vec<u32>,
    /// Per MCNK `(ix, iy)` at `iy * 16 + ix` its 64 words (`None`: not
    /// resident).
    pub words: Vec<Option<[u32; 64]>>,
}

impl TileControl {
    /// The control blocks of tile `tile`'s 256 MCNKs from its resident
    /// ones, `t` (`None`: the tile is not resident, every block empty).
    pub fn build(
        t: Option<&AdtTile>,
        tile: TileCoord,
        effects: &ResolvedEffects,
        policy: &Policy,
    ) -> Self {
        let mut ids = Vec::new();
        let mut local: HashMap<u32, u16> = HashMap::new();
        let mut words = vec![None; 256];
        for m in t.map_or(&[][..], |t| &t.mcnks[..]) {
            let (ix, iy) = m.chunk_coord(tile).index_in_tile();
            let mut index = |id: u32| {
                Some(*local.entry(id).or_insert_with(|| {
                    ids.push(id);
                    (ids.len() - 1) as u16
                }))
            };
            words[(iy * 16 + ix) as usize] = Some(mcnk_words(m, effects, policy, &mut index));
        }
        TileControl { ids, words }
    }

    /// The blocks with each growing cell's effect field set to its effect's
    /// slot in `table` (the tile's ids must be resident there: call
    /// [`EffectTable::set_tile`] first; a cell whose effect is not reads
    /// [`Reason::NoEffect`]).
    pub fn resolved(&self, table: &EffectTable) -> Vec<Option<[u32; 64]>> {
        let slots: Vec<Option<u16>> = self.ids.iter().map(|&id| table.index_of(id)).collect();
        self.words
            .iter()
            .map(|block| {
                block.map(|mut b| {
                    for w in &mut b {
                        if Reason::of(*w) == Reason::Grows {
                            *w = match slots.get(word_effect(*w) as usize).copied().flatten() {
                                Some(slot) => set_word_effect(*w, slot),
                                None => Reason::NoEffect as u32,
                            };
                        }
                    }
                    b
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grass::camera_grid::word::word_expected;
    use sward_scenes::Preset;

    /// A tile's local words resolve to the same cells, expectations and
    /// effects as words built against the table directly.
    #[test]
    fn resolved_tile_words_equal_words_built_with_the_slots() {
        let scene = Preset::by_name("seams-holes").unwrap().build().unwrap();
        let world = scene.world();
        let mut table = EffectTable::new(&scene.resolved);
        for t in world.tiles() {
            let c = TileControl::build(Some(t), t.coord, &scene.resolved, scene.policy());
            assert!(!c.ids.is_empty());
            table.set_tile(t.coord, &c.ids, &scene.resolved).unwrap();
            let resolved = c.resolved(&table);
            for m in &t.mcnks {
                let (ix, iy) = m.chunk_coord(t.coord).index_in_tile();
                let direct = mcnk_words(m, &scene.resolved, scene.policy(), &mut |id| {
                    table.index_of(id)
                });
                assert_eq!(resolved[(iy * 16 + ix) as usize], Some(direct));
                for w in direct.iter().filter(|w| Reason::of(**w) == Reason::Grows) {
                    let slot = word_effect(*w);
                    let id = table.palette().effect(slot).unwrap();
                    assert_eq!(
                        table.records[slot as usize],
                        GridEffectGpu::new(scene.resolved.get(id).unwrap())
                    );
                    assert!(word_expected(*w) > 0.0);
                }
            }
        }
        // Evicting every tile frees every slot and blanks its record.
        for t in world.tiles() {
            let freed = table.set_tile(t.coord, &[], &scene.resolved).unwrap();
            assert!(freed.iter().all(|c| c.effect.is_none()));
        }
        assert!(table.palette().is_empty());
        assert!(table.records.iter().all(|r| *r == BLANK_EFFECT));
    }

    /// Effect ids far above the control word's 4,096: the palette gives
    /// them small slots, so the word holds them.
    #[test]
    fn ids_above_the_word_range_take_small_slots() {
        let scene = Preset::by_name("seams-holes").unwrap().build().unwrap();
        let mut textures = scene.effects.textures.clone();
        for t in &mut textures {
            t.id += 20_000;
        }
        let effects = sward_scenes::effects::GroundEffects::new(
            scene.effects.layout,
            textures,
            scene.effects.doodads.clone(),
        )
        .unwrap();
        let paths: Vec<&str> = scene.models.iter().map(|m| m.path.as_str()).collect();
        let resolved = effects.resolve(&paths).unwrap();
        let mut world_tile = (**scene.world().tiles()[0]).clone();
        for m in &mut world_tile.mcnks {
            for l in &mut m.layers {
                if l.effect().is_some() {
                    l.effect_id += 20_000;
                }
            }
        }
        let c = TileControl::build(
            Some(&world_tile),
            world_tile.coord,
            &resolved,
            scene.policy(),
        );
        assert!(c.ids.iter().all(|&id| id > 20_000), "{:?}", c.ids);
        let mut table = EffectTable::new(&resolved);
        table.set_tile(world_tile.coord, &c.ids, &resolved).unwrap();
        let words: Vec<u32> = c.resolved(&table).into_iter().flatten().flatten().collect();
        let growing: Vec<u32> = words
            .iter()
            .copied()
            .filter(|w| Reason::of(*w) == Reason::Grows)
            .collect();
        assert!(!growing.is_empty());
        assert!(growing
            .iter()
            .all(|w| (word_effect(*w) as usize) < c.ids.len()));
    }
}
