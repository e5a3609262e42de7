//! The window palette of ground effects: which GroundEffectTexture ids the
//! resident tiles use, each given a small, stable *slot* index, so that a
//! technique indexes a GPU array of the resident window's effects instead
//! of the whole table (a 3.3.5 client's table has 24,982 records; a 3x3
//! window of its tiles uses a few dozen).
//!
//! The palette is CPU bookkeeping only and knows no technique: each tile
//! made resident hands in the ids its MCNK layers name
//! ([`EffectPalette::set_tile`]), an evicted tile is removed
//! ([`EffectPalette::remove_tile`]). An effect is reference-counted by the
//! resident tiles that use it; it keeps its slot while any of them stays
//! resident, and its slot is freed for the next new effect when the last
//! one leaves (the lowest free slot is taken first, so slots stay dense).
//! Every call answers the slots whose effect changed ([`SlotChange`]), so
//! a technique rewrites only those entries of its own GPU record array.
//! More distinct resident effects than the capacity is an error naming the
//! count ([`PaletteError::Full`]), and leaves the palette as it was.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use sward_scenes::TileCoord;

/// The palette is full: the resident tiles would use more distinct ground
/// effects than a slot index can name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PaletteError {
    /// More distinct effects than slots.
    #[error(
        "tile ({tile_x}, {tile_y}) would make {needed} distinct ground effects resident; \
         the palette holds at most {capacity}"
    )]
    Full {
        /// The tile whose arrival overflowed the palette (x).
        tile_x: u32,
        /// The tile whose arrival overflowed the palette (y).
        tile_y: u32,
        /// Distinct effects the resident tiles would use.
        needed: usize,
        /// Slots the palette has.
        capacity: usize,
    },
}

/// One slot whose content changed: the effect it now holds, or `None` when
/// it was freed. A technique rewrites its GPU record `slot`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct SlotChange {
    /// The slot index.
    pub slot: u32,
    /// The GroundEffectTexture id it holds now (`None`: free).
    pub effect: Option<u32>,
}

/// An effect held by a slot, with the number of resident tiles using it.
#[derive(Debug, Clone, Copy)]
struct Held {
    effect: u32,
    tiles: u32,
}

/// The ground effects of the resident window, each at a stable slot.
#[derive(Debug, Clone)]
pub struct EffectPalette {
    capacity: usize,
    /// Slot -> effect held (`None`: free). Never longer than `capacity`.
    slots: Vec<Option<Held>>,
    /// Effect id -> slot.
    index: HashMap<u32, u32>,
    /// Free slots below `slots.len()`, lowest first.
    free: BTreeSet<u32>,
    /// The distinct effects each resident tile uses (sorted).
    tiles: HashMap<TileCoord, Vec<u32>>,
}

impl EffectPalette {
    /// An empty palette of at most `capacity` slots.
    pub fn new(capacity: usize) -> Self {
        EffectPalette {
            capacity,
            slots: Vec::new(),
            index: HashMap::new(),
            free: BTreeSet::new(),
            tiles: HashMap::new(),
        }
    }

    /// Tile `tile` is resident and uses `effects` (any order, repeats
    /// allowed; a tile already resident has its set replaced). Effects new
    /// to the window take slots, effects no resident tile uses any more
    /// free theirs; the answer lists every slot whose effect changed, in
    /// slot order. With more distinct effects than the capacity nothing
    /// changes and the error names the count.
    pub fn set_tile(
        &mut self,
        tile: TileCoord,
        effects: impl IntoIterator<Item = u32>,
    ) -> Result<Vec<SlotChange>, PaletteError> {
        let new: Vec<u32> = effects
            .into_iter()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let old = self.tiles.get(&tile).cloned().unwrap_or_default();
        // Effects whose last user is this tile and that it no longer uses.
        let dropped: Vec<u32> = old
            .iter()
            .copied()
            .filter(|e| new.binary_search(e).is_err() && self.users(*e) == 1)
            .collect();
        let added: Vec<u32> = new
            .iter()
            .copied()
            .filter(|e| !self.index.contains_key(e))
            .collect();
        let needed = self.index.len() - dropped.len() + added.len();
        if needed > self.capacity {
            return Err(PaletteError::Full {
                tile_x: tile.x,
                tile_y: tile.y,
                needed,
                capacity: self.capacity,
            });
        }
        let mut changes = BTreeMap::new();
        for &e in &old {
            if new.binary_search(&e).is_err() {
                self.release(e, &mut changes);
            }
        }
        for &e in &new {
            if old.binary_search(&e).is_err() {
                self.acquire(e, &mut changes);
            }
        }
        if new.is_empty() {
            self.tiles.remove(&tile);
        } else {
            self.tiles.insert(tile, new);
        }
        Ok(into_changes(changes))
    }

    /// Tile `tile` was evicted: effects no other resident tile uses free
    /// their slots (listed in the answer). A tile that was not resident
    /// changes nothing.
    pub fn remove_tile(&mut self, tile: TileCoord) -> Vec<SlotChange> {
        let mut changes = BTreeMap::new();
        for e in self.tiles.remove(&tile).unwrap_or_default() {
            self.release(e, &mut changes);
        }
        into_changes(changes)
    }

    /// The slot of effect `effect`, if a resident tile uses it.
    pub fn slot(&self, effect: u32) -> Option<u32> {
        self.index.get(&effect).copied()
    }

    /// The effect slot `slot` holds (`None`: free or beyond the used slots).
    pub fn effect(&self, slot: u32) -> Option<u32> {
        self.slots
            .get(slot as usize)
            .copied()
            .flatten()
            .map(|h| h.effect)
    }

    /// Distinct effects the resident tiles use.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether no resident tile uses an effect.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The most slots the palette has.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Slots ever taken (the highest slot in use so far, plus one): how many
    /// entries a GPU record array needs to hold every slot.
    pub fn slots_used(&self) -> usize {
        self.slots.len()
    }

    /// `(slot, effect)` of every slot in use, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(s, h)| h.map(|h| (s as u32, h.effect)))
    }

    /// Resident tiles using `effect`.
    fn users(&self, effect: u32) -> u32 {
        self.slot(effect)
            .and_then(|s| self.slots[s as usize])
            .map_or(0, |h| h.tiles)
    }

    fn acquire(&mut self, effect: u32, changes: &mut BTreeMap<u32, Option<u32>>) {
        if let Some(&s) = self.index.get(&effect) {
            if let Some(h) = self.slots[s as usize].as_mut() {
                h.tiles += 1;
            }
            return;
        }
        let s = match self.free.pop_first() {
            Some(s) => s,
            None => {
                self.slots.push(None);
                (self.slots.len() - 1) as u32
            }
        };
        self.slots[s as usize] = Some(Held { effect, tiles: 1 });
        self.index.insert(effect, s);
        changes.insert(s, Some(effect));
    }

    fn release(&mut self, effect: u32, changes: &mut BTreeMap<u32, Option<u32>>) {
        let Some(&s) = self.index.get(&effect) else {
            return;
        };
        let Some(h) = self.slots[s as usize].as_mut() else {
            return;
        };
        h.tiles -= 1;
        if h.tiles == 0 {
            self.slots[s as usize] = None;
            self.index.remove(&effect);
            self.free.insert(s);
            changes.insert(s, None);
        }
    }
}

fn into_changes(changes: BTreeMap<u32, Option<u32>>) -> Vec<SlotChange> {
    changes
        .into_iter()
        .map(|(slot, effect)| SlotChange { slot, effect })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(x: u32, y: u32) -> TileCoord {
        TileCoord { x, y }
    }

    fn change(slot: u32, effect: Option<u32>) -> SlotChange {
        SlotChange { slot, effect }
    }

    /// The palette's own invariants: the index and the slots agree, every
    /// held effect is counted once per resident tile using it, free slots
    /// are exactly the empty ones.
    fn check(p: &EffectPalette) {
        for (s, e) in p.iter() {
            assert_eq!(p.slot(e), Some(s));
            let users = p.tiles.values().filter(|v| v.contains(&e)).count() as u32;
            assert_eq!(p.users(e), users, "effect {e}");
        }
        assert_eq!(p.iter().count(), p.len());
        let empty: BTreeSet<u32> = (0..p.slots_used() as u32)
            .filter(|&s| p.effect(s).is_none())
            .collect();
        assert_eq!(empty, p.free);
        assert!(p.slots_used() <= p.capacity());
    }

    #[test]
    fn ids_far_above_the_capacity_get_small_dense_slots() {
        let mut p = EffectPalette::new(4096);
        let ids = [24_981, 1_000_000, u32::MAX - 1, 4096, 4097];
        let changes = p
            .set_tile(t(42, 29), ids.iter().copied().chain(ids))
            .unwrap();
        // Sorted ids take slots 0.. in order; repeats count once.
        assert_eq!(
            changes,
            vec![
                change(0, Some(4096)),
                change(1, Some(4097)),
                change(2, Some(24_981)),
                change(3, Some(1_000_000)),
                change(4, Some(u32::MAX - 1)),
            ]
        );
        assert_eq!(p.slot(u32::MAX - 1), Some(4));
        assert_eq!(p.effect(2), Some(24_981));
        assert_eq!(p.slot(7), None);
        assert_eq!((p.len(), p.slots_used()), (5, 5));
        check(&p);
    }

    #[test]
    fn effects_enter_and_leave_with_the_tiles_that_use_them() {
        let mut p = EffectPalette::new(4096);
        p.set_tile(t(1, 1), [10, 20, 30]).unwrap();
        // A second tile sharing 20 and 30 adds only 40.
        assert_eq!(
            p.set_tile(t(2, 1), [20, 30, 40]).unwrap(),
            vec![change(3, Some(40))]
        );
        // Slots stay where they were while an effect stays resident.
        assert_eq!(
            (p.slot(10), p.slot(20), p.slot(30)),
            (Some(0), Some(1), Some(2))
        );
        check(&p);
        // Tile (1, 1) leaves: only 10 was its alone.
        assert_eq!(p.remove_tile(t(1, 1)), vec![change(0, None)]);
        assert_eq!(
            (p.slot(20), p.slot(30), p.slot(40)),
            (Some(1), Some(2), Some(3))
        );
        check(&p);
        // Leaving twice, or a tile never resident, changes nothing.
        assert!(p.remove_tile(t(1, 1)).is_empty());
        assert!(p.remove_tile(t(9, 9)).is_empty());
        // The last user leaves: every slot is freed.
        assert_eq!(
            p.remove_tile(t(2, 1)),
            vec![change(1, None), change(2, None), change(3, None)]
        );
        assert!(p.is_empty());
        check(&p);
    }

    #[test]
    fn freed_slots_are_reused_lowest_first() {
        let mut p = EffectPalette::new(4096);
        p.set_tile(t(0, 0), [100, 101, 102, 103]).unwrap();
        p.set_tile(t(0, 1), [103]).unwrap();
        p.remove_tile(t(0, 0));
        // 103 stays at slot 3; slots 0..3 are free.
        assert_eq!(p.slot(103), Some(3));
        assert_eq!(
            p.set_tile(t(5, 5), [7_000, 6_000]).unwrap(),
            vec![change(0, Some(6_000)), change(1, Some(7_000))]
        );
        assert_eq!(p.slots_used(), 4);
        check(&p);
        // Replacing a tile's set: the effect it drops frees its slot and the
        // new one takes it in the same answer (one change for that slot).
        assert_eq!(
            p.set_tile(t(5, 5), [6_000, 8_000]).unwrap(),
            vec![change(1, Some(8_000))]
        );
        assert_eq!(p.effect(1), Some(8_000));
        assert_eq!(p.slot(7_000), None);
        check(&p);
        // An empty set is an eviction.
        assert_eq!(
            p.set_tile(t(5, 5), []).unwrap(),
            vec![change(0, None), change(1, None)]
        );
        check(&p);
    }

    #[test]
    fn more_effects_than_the_capacity_is_an_error_naming_the_count() {
        let mut p = EffectPalette::new(4);
        p.set_tile(t(3, 4), [1, 2, 3]).unwrap();
        let before = p.clone();
        let err = p.set_tile(t(3, 5), [3, 4, 5]).unwrap_err();
        assert_eq!(
            err,
            PaletteError::Full {
                tile_x: 3,
                tile_y: 5,
                needed: 5,
                capacity: 4
            }
        );
        let text = err.to_string();
        assert!(
            text.contains("5 distinct") && text.contains("at most 4"),
            "{text}"
        );
        // Nothing changed.
        assert_eq!(
            p.iter().collect::<Vec<_>>(),
            before.iter().collect::<Vec<_>>()
        );
        assert!(!p.tiles.contains_key(&t(3, 5)));
        check(&p);
        // After the first tile leaves, the second fits exactly.
        p.remove_tile(t(3, 4));
        p.set_tile(t(3, 5), [3, 4, 5, 6]).unwrap();
        assert_eq!(p.len(), 4);
        check(&p);
        // Replacing a tile's set counts what it drops: {3,4,5,6} -> {7,8,9,10}.
        p.set_tile(t(3, 5), [7, 8, 9, 10]).unwrap();
        assert_eq!(p.len(), 4);
        check(&p);
    }

    /// A window sliding over a random world: the palette always holds
    /// exactly the union of the resident tiles' effects, and an effect that
    /// a tile resident before and after a slide uses keeps its slot.
    #[test]
    fn a_sliding_window_holds_exactly_the_resident_effects() {
        let effects_of = |x: u32, y: u32| -> Vec<u32> {
            let h = sward_wgsl::cpu::hash::hash2(x, y);
            (0..(h % 6)).map(|i| 5_000 + (h >> (i * 3)) % 40).collect()
        };
        let mut p = EffectPalette::new(4096);
        let mut resident: BTreeSet<(u32, u32)> = BTreeSet::new();
        for step in 0..40u32 {
            let (cx, cy) = (10 + step / 2, 20 + step % 7);
            let window: BTreeSet<(u32, u32)> = (cx - 1..=cx + 1)
                .flat_map(|x| (cy - 1..=cy + 1).map(move |y| (x, y)))
                .collect();
            let before: HashMap<u32, u32> = p.iter().map(|(s, e)| (e, s)).collect();
            // Effects of tiles resident before and after the slide.
            let kept: BTreeSet<u32> = resident
                .intersection(&window)
                .flat_map(|&(x, y)| effects_of(x, y))
                .collect();
            for &(x, y) in resident.difference(&window) {
                p.remove_tile(t(x, y));
            }
            for &(x, y) in window.difference(&resident) {
                p.set_tile(t(x, y), effects_of(x, y)).unwrap();
            }
            resident = window;
            let union: BTreeSet<u32> = resident
                .iter()
                .flat_map(|&(x, y)| effects_of(x, y))
                .collect();
            let held: BTreeSet<u32> = p.iter().map(|(_, e)| e).collect();
            assert_eq!(held, union, "step {step}");
            for (e, s) in before {
                if kept.contains(&e) {
                    assert_eq!(p.slot(e), Some(s), "effect {e} moved at step {step}");
                }
            }
            check(&p);
        }
    }
}
