//! The atlas's CPU bookkeeping, sized for what a window change does: a tile
//! comes and goes with its 256 MCNKs at once, so slots are held per tile
//! ([`ChunkSlots`]: one map look-up finds a tile's 256 slots) and free slots
//! are a bit set handed out lowest first ([`FreeSlots`]). A tile change on
//! the render thread then costs a few hundred array writes instead of 768
//! hashed look-ups and 512 ordered-set operations.

use std::collections::HashMap;

use sward_scenes::world::coords::{ChunkCoord, TileCoord, TILE_CHUNKS};

/// MCNKs per tile.
pub(crate) const CHUNKS_PER_TILE: usize = (TILE_CHUNKS * TILE_CHUNKS) as usize;

/// A tile's MCNK without a slot.
const NO_SLOT: u32 = u32::MAX;

/// One tile's slots, MCNK `(x, y)` of the tile at `y * 16 + x`.
struct TileSlots {
    slots: Box<[u32; CHUNKS_PER_TILE]>,
    held: u32,
}

/// The slots of one tile's MCNKs ([`ChunkSlots::tile`]), for callers that
/// look up all of a tile's MCNKs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileSlotMap([Option<u32>; CHUNKS_PER_TILE]);

impl TileSlotMap {
    /// The slot of `chunk` (an MCNK of this tile), if it has one.
    pub fn of(&self, chunk: ChunkCoord) -> Option<u32> {
        self.0[local(chunk)]
    }

    /// MCNKs of the tile holding a slot.
    pub fn held(&self) -> usize {
        self.0.iter().flatten().count()
    }

    /// The slot of MCNK `(x, y)` of the tile, if it has one.
    pub fn at(&self, x: u32, y: u32) -> Option<u32> {
        self.0[(y * TILE_CHUNKS + x) as usize]
    }
}

/// The slot of every resident MCNK, grouped by tile.
#[derive(Default)]
pub(crate) struct ChunkSlots {
    tiles: HashMap<TileCoord, TileSlots>,
    live: usize,
}

fn local(c: ChunkCoord) -> usize {
    let (x, y) = c.index_in_tile();
    (y * TILE_CHUNKS + x) as usize
}

impl ChunkSlots {
    /// The slot of `chunk`, if it has one.
    pub(crate) fn get(&self, chunk: ChunkCoord) -> Option<u32> {
        let s = self.tiles.get(&chunk.tile())?.slots[local(chunk)];
        (s != NO_SLOT).then_some(s)
    }

    /// Gives `chunk` slot `slot`; its previous slot, if it had one.
    pub(crate) fn insert(&mut self, chunk: ChunkCoord, slot: u32) -> Option<u32> {
        debug_assert_ne!(slot, NO_SLOT);
        let t = self.tiles.entry(chunk.tile()).or_insert_with(|| TileSlots {
            slots: Box::new([NO_SLOT; CHUNKS_PER_TILE]),
            held: 0,
        });
        let old = std::mem::replace(&mut t.slots[local(chunk)], slot);
        if old == NO_SLOT {
            t.held += 1;
            self.live += 1;
            None
        } else {
            Some(old)
        }
    }

    /// Takes `chunk`'s slot away; the slot it had.
    pub(crate) fn remove(&mut self, chunk: ChunkCoord) -> Option<u32> {
        let tile = chunk.tile();
        let t = self.tiles.get_mut(&tile)?;
        let old = std::mem::replace(&mut t.slots[local(chunk)], NO_SLOT);
        if old == NO_SLOT {
            return None;
        }
        t.held -= 1;
        self.live -= 1;
        if t.held == 0 {
            self.tiles.remove(&tile);
        }
        Some(old)
    }

    /// Takes every slot of `tile` away: (MCNK, slot) of each it held, in
    /// MCNK order (row-major in the tile).
    pub(crate) fn remove_tile(&mut self, tile: TileCoord) -> Vec<(ChunkCoord, u32)> {
        let Some(t) = self.tiles.remove(&tile) else {
            return Vec::new();
        };
        self.live -= t.held as usize;
        t.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| **s != NO_SLOT)
            .map(|(i, s)| {
                let (x, y) = (i as u32 % TILE_CHUNKS, i as u32 / TILE_CHUNKS);
                (ChunkCoord::from_tile(tile, x, y), *s)
            })
            .collect()
    }

    /// The slots of `tile`'s MCNKs.
    pub(crate) fn tile(&self, tile: TileCoord) -> TileSlotMap {
        TileSlotMap(match self.tiles.get(&tile) {
            Some(t) => t.slots.map(|s| (s != NO_SLOT).then_some(s)),
            None => [None; CHUNKS_PER_TILE],
        })
    }

    /// MCNKs holding a slot.
    pub(crate) fn len(&self) -> usize {
        self.live
    }
}

/// A set of free slots, handed out lowest first: one bit per slot.
#[derive(Default)]
pub(crate) struct FreeSlots {
    words: Vec<u64>,
    /// No word below this one has a bit set.
    low: usize,
    len: usize,
}

impl FreeSlots {
    /// Adds `slot`; whether it was not in the set.
    pub(crate) fn insert(&mut self, slot: u32) -> bool {
        let (w, bit) = (slot as usize / 64, 1u64 << (slot % 64));
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        if self.words[w] & bit != 0 {
            return false;
        }
        self.words[w] |= bit;
        self.low = self.low.min(w);
        self.len += 1;
        true
    }

    /// Removes `slot`; whether it was in the set.
    pub(crate) fn remove(&mut self, slot: u32) -> bool {
        let (w, bit) = (slot as usize / 64, 1u64 << (slot % 64));
        match self.words.get_mut(w) {
            Some(word) if *word & bit != 0 => {
                *word &= !bit;
                self.len -= 1;
                true
            }
            _ => false,
        }
    }

    /// Removes and returns the lowest slot in the set.
    pub(crate) fn pop_first(&mut self) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        while self.words[self.low] == 0 {
            self.low += 1;
        }
        let word = &mut self.words[self.low];
        let bit = word.trailing_zeros();
        *word &= *word - 1;
        self.len -= 1;
        Some(self.low as u32 * 64 + bit)
    }

    /// Slots in the set.
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The bit set hands out and holds exactly what an ordered set would,
    /// over a long mixed sequence (lowest first, duplicates refused).
    #[test]
    fn free_slots_behave_like_an_ordered_set() {
        let mut fast = FreeSlots::default();
        let mut model = BTreeSet::new();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for step in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let slot = (state % 700) as u32;
            match state % 5 {
                0 | 1 => assert_eq!(fast.insert(slot), model.insert(slot), "{step}"),
                2 => assert_eq!(fast.remove(slot), model.remove(&slot), "{step}"),
                _ => assert_eq!(fast.pop_first(), model.pop_first(), "{step}"),
            }
            assert_eq!(fast.len(), model.len());
        }
        while let Some(s) = model.pop_first() {
            assert_eq!(fast.pop_first(), Some(s));
        }
        assert_eq!(fast.pop_first(), None);
    }

    #[test]
    fn chunk_slots_keep_slots_per_tile() {
        let t = TileCoord::new(30, 41);
        let u = TileCoord::new(31, 41);
        let mut s = ChunkSlots::default();
        assert_eq!(s.insert(ChunkCoord::from_tile(t, 3, 2), 7), None);
        assert_eq!(s.insert(ChunkCoord::from_tile(t, 0, 15), 9), None);
        assert_eq!(s.insert(ChunkCoord::from_tile(u, 0, 0), 1), None);
        assert_eq!(s.insert(ChunkCoord::from_tile(t, 3, 2), 8), Some(7));
        assert_eq!(s.len(), 3);
        assert_eq!(s.get(ChunkCoord::from_tile(t, 3, 2)), Some(8));
        assert_eq!(s.get(ChunkCoord::from_tile(t, 2, 3)), None);
        let slots = s.tile(t);
        assert_eq!(slots.at(3, 2), Some(8));
        assert_eq!(slots.of(ChunkCoord::from_tile(t, 0, 15)), Some(9));
        assert_eq!(slots.at(2, 3), None);
        assert_eq!(slots.held(), 2);
        assert_eq!(s.tile(u).held(), 1);
        assert_eq!(s.tile(TileCoord::new(0, 0)).held(), 0);
        assert_eq!(
            s.remove_tile(t),
            vec![
                (ChunkCoord::from_tile(t, 3, 2), 8),
                (ChunkCoord::from_tile(t, 0, 15), 9)
            ]
        );
        assert_eq!(s.len(), 1);
        assert!(s.remove_tile(t).is_empty());
        assert_eq!(s.remove(ChunkCoord::from_tile(u, 0, 0)), Some(1));
        assert_eq!(s.remove(ChunkCoord::from_tile(u, 0, 0)), None);
        assert_eq!(s.len(), 0);
    }
}
