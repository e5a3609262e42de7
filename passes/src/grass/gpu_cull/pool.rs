//! Where each resident tile of grass `gpu-cull` lives in the tier's GPU
//! buffers, so tiles can be added and dropped in place.
//!
//! Three pools, each in fixed-size units, so tiles of any size come and go
//! without fragmentation (any free unit serves any tile; nothing is ever
//! compacted or moved):
//!
//! - descriptors: pages of [`Pools::desc_page`] descriptors ([`PagePool`]);
//!   a tile takes as many pages as its placements need, anywhere in the
//!   buffer;
//! - entries: pages of [`Pools::entry_page`] (patch, model) entries; the
//!   tail of a tile's last page holds [`FREE_ENTRY`]s the cull rejects;
//! - patch table rows: one block of [`Pools::patch_block`] rows per tile
//!   slot (a tile has at most that many patches).
//!
//! [`place_descriptors`] and [`place_entries`] turn a tile's own
//! [`PatchSet`] (indices from 0) into what the pools hold: descriptors
//! renumbered onto the tile's patch block (written page after page), entries
//! split where a page ends (the pieces share the entry's bounds, so
//! the cull keeps or drops them together). New units come from the lowest
//! free index; a pool that runs out grows (the caller reallocates and
//! copies the GPU buffer), so the high-water mark of a long soak is the
//! most ever resident at once.

use std::collections::BTreeSet;

use super::descriptor::GrassDescriptor;
use super::patches::{PatchEntry, PatchSet};

/// An entry slot no tile holds: the cull rejects it (model out of range)
/// and it draws nothing.
pub const FREE_ENTRY: PatchEntry = PatchEntry {
    bounds_min: [0.0; 3],
    first: 0,
    bounds_max: [0.0; 3],
    count: 0,
    model: u32::MAX,
    patch_index: 0,
    _pad: [0; 2],
};

/// Fixed-size units (pages or slots) handed out lowest index first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PagePool {
    /// Units the buffer holds.
    capacity: u32,
    /// Free units below `capacity`.
    free: BTreeSet<u32>,
}

impl PagePool {
    /// A pool of `capacity` free units.
    pub fn new(capacity: u32) -> Self {
        PagePool {
            capacity,
            free: (0..capacity).collect(),
        }
    }

    /// Units the pool holds.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Units in use.
    pub fn used(&self) -> u32 {
        self.capacity - self.free.len() as u32
    }

    /// Whether `n` more units fit without growing.
    pub fn fits(&self, n: u32) -> bool {
        self.free.len() as u32 >= n
    }

    /// Grows the pool to `capacity` units (never shrinks).
    pub fn grow(&mut self, capacity: u32) {
        self.free.extend(self.capacity..capacity);
        self.capacity = self.capacity.max(capacity);
    }

    /// Takes the `n` lowest free units, or `None` (nothing taken) when
    /// fewer are free.
    pub fn alloc(&mut self, n: u32) -> Option<Vec<u32>> {
        if !self.fits(n) {
            return None;
        }
        Some((0..n).filter_map(|_| self.free.pop_first()).collect())
    }

    /// Takes unit `unit` if it is free; whether it was.
    pub fn take(&mut self, unit: u32) -> bool {
        self.free.remove(&unit)
    }

    /// Gives `units` back.
    pub fn release(&mut self, units: &[u32]) {
        for &u in units {
            debug_assert!(u < self.capacity && !self.free.contains(&u));
            self.free.insert(u);
        }
    }

    /// One past the highest unit in use (0 when none is).
    pub fn high_water(&self) -> u32 {
        let mut top = self.capacity;
        for &f in self.free.iter().rev() {
            if f + 1 == top {
                top = f;
            } else {
                break;
            }
        }
        top
    }
}

/// Unit sizes of the three pools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pools {
    /// Descriptors per descriptor page.
    pub desc_page: u32,
    /// Entries per entry page.
    pub entry_page: u32,
    /// Patch table rows per tile slot.
    pub patch_block: u32,
}

impl Pools {
    /// Descriptor pages a tile of `descriptors` placements takes.
    pub fn desc_pages(&self, descriptors: usize) -> u32 {
        (descriptors as u64).div_ceil(u64::from(self.desc_page)) as u32
    }

    /// Entries `set` becomes once split at page ends (what [`place_entries`]
    /// returns).
    pub fn entry_count(&self, set: &PatchSet) -> usize {
        let s = self.desc_page;
        set.entries
            .iter()
            .map(|e| {
                if e.count == 0 {
                    return 0;
                }
                ((e.first + e.count - 1) / s - e.first / s + 1) as usize
            })
            .sum()
    }

    /// Entry pages `entries` entries take.
    pub fn entry_pages(&self, entries: usize) -> u32 {
        (entries as u64).div_ceil(u64::from(self.entry_page)) as u32
    }
}

/// The slot a streamed tile prefers in a pool of `slots` tile slots: its
/// coordinate modulo the side `k` of the largest `k x k` square of slots.
/// The resident tiles of a streaming window lie in a square of that side,
/// so they never compete for one; a tile whose slot is taken anyway gets
/// the lowest free one. Known before the tile is placed, it lets a worker
/// renumber the tile's descriptors ([`place_descriptors`]) in advance.
pub fn own_slot(tile: sward_scenes::TileCoord, slots: u32) -> u32 {
    let mut k = (f64::from(slots.max(1))).sqrt() as u32;
    while k * k > slots {
        k -= 1;
    }
    while (k + 1) * (k + 1) <= slots {
        k += 1;
    }
    (tile.y % k) * k + tile.x % k
}

/// `set`'s descriptors (a tile's, patch indices from 0) renumbered onto the
/// patch block of tile slot `slot`, in order: what the tile's descriptor
/// pages hold, page after page.
pub fn place_descriptors(set: &PatchSet, pools: &Pools, slot: u32) -> Vec<GrassDescriptor> {
    let patch_base = slot * pools.patch_block;
    debug_assert!(set.patch_count() as u32 <= pools.patch_block);
    set.descriptors
        .iter()
        .map(|d| GrassDescriptor {
            patch_index: patch_base + d.patch_index,
            ..*d
        })
        .collect()
}

/// `set`'s entries (a tile's, indices from 0) renumbered onto descriptor
/// `pages` and the patch block of tile slot `slot`: global descriptor and
/// patch indices, split at page ends, before padding to whole entry pages.
pub fn place_entries(set: &PatchSet, pools: &Pools, slot: u32, pages: &[u32]) -> Vec<PatchEntry> {
    let s = pools.desc_page;
    let patch_base = slot * pools.patch_block;
    debug_assert_eq!(pages.len() as u32, pools.desc_pages(set.descriptors.len()));
    let global = |i: u32| pages[(i / s) as usize] * s + i % s;
    let mut entries = Vec::with_capacity(set.entries.len());
    for e in &set.entries {
        let end = e.first + e.count;
        let mut i = e.first;
        while i < end {
            let piece_end = end.min((i / s + 1) * s);
            entries.push(PatchEntry {
                first: global(i),
                count: piece_end - i,
                patch_index: patch_base + e.patch_index,
                ..*e
            });
            i = piece_end;
        }
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::super::descriptor::unpack;
    use super::super::patches::{ModelReach, PatchSize};
    use super::*;
    use sward_scenes::Preset;

    /// Tiles of any k x k square of a pool with k x k (or a few more)
    /// slots get distinct own slots, all inside the pool.
    #[test]
    fn own_slots_of_a_square_of_tiles_are_distinct() {
        use sward_scenes::TileCoord;
        for (slots, k) in [(25u32, 5u32), (26, 5), (9, 3), (4, 2), (1, 1)] {
            for (x0, y0) in [(30u32, 46u32), (31, 47), (0, 0)] {
                let mut seen = BTreeSet::new();
                for y in y0..y0 + k {
                    for x in x0..x0 + k {
                        let s = own_slot(TileCoord { x, y }, slots);
                        assert!(s < slots, "slot {s} of {slots}");
                        assert!(seen.insert(s), "{slots} slots: ({x}, {y}) shares slot {s}");
                    }
                }
            }
        }
    }

    #[test]
    fn pages_come_lowest_first_and_go_back() {
        let mut p = PagePool::new(4);
        assert_eq!(p.alloc(2), Some(vec![0, 1]));
        assert_eq!(p.alloc(1), Some(vec![2]));
        assert_eq!(p.high_water(), 3);
        p.release(&[0, 1]);
        assert_eq!(p.high_water(), 3);
        assert_eq!(p.alloc(3), Some(vec![0, 1, 3]));
        assert_eq!(p.alloc(1), None, "full: nothing taken");
        assert_eq!(p.used(), 4);
        p.grow(6);
        assert_eq!(p.alloc(2), Some(vec![4, 5]));
        p.release(&[5, 4, 3, 2]);
        assert_eq!(p.high_water(), 2);
        p.release(&[0, 1]);
        assert_eq!((p.high_water(), p.used()), (0, 0));
    }

    #[test]
    fn a_long_soak_reuses_the_same_units() {
        // Tiles of different sizes coming and going in a sliding window
        // never need more units than the most resident at once.
        let sizes = [3u32, 7, 1, 5, 2, 6, 4];
        let mut p = PagePool::new(0);
        let mut held: std::collections::VecDeque<Vec<u32>> = Default::default();
        let mut most = 0;
        for step in 0..200 {
            if held.len() == 3 {
                let old = held.pop_front().unwrap();
                p.release(&old);
            }
            let n = sizes[step % sizes.len()];
            if !p.fits(n) {
                p.grow(p.used() + n);
            }
            held.push_back(p.alloc(n).unwrap());
            most = most.max(held.iter().map(Vec::len).sum::<usize>() as u32);
        }
        assert_eq!(p.capacity(), most, "grown to the peak only");
    }

    #[test]
    fn placing_renumbers_and_splits_entries_at_page_ends() {
        let scene = Preset::by_name("seams-holes").unwrap().build().unwrap();
        let reach: Vec<ModelReach> = (0..scene.models.len())
            .map(|_| ModelReach {
                radius: 1.0,
                sway_height: 0.5,
            })
            .collect();
        let set =
            PatchSet::build(scene.world(), scene.placements(), &reach, PatchSize::Block2).unwrap();
        let pools = Pools {
            desc_page: 100,
            entry_page: 16,
            patch_block: set.patch_count() as u32 + 3,
        };
        let n = pools.desc_pages(set.descriptors.len());
        // Pages out of order, with gaps.
        let pages: Vec<u32> = (0..n).map(|i| 2 * (n - i)).collect();
        let descriptors = place_descriptors(&set, &pools, 2);
        let entries = place_entries(&set, &pools, 2, &pages);
        assert_eq!(entries.len(), pools.entry_count(&set));
        assert!(entries.len() > set.entries.len(), "some entries split");
        let s = pools.desc_page;
        // Descriptor `g` of the pool: page `g / s` holds the tile's page
        // at that position of `pages`.
        let lookup = |g: u32| {
            let page = pages.iter().position(|&p| p == g / s).unwrap() as u32;
            &descriptors[(page * s + g % s) as usize]
        };
        // Every local descriptor appears once, in its entry's model, with
        // its patch moved into slot 2's block.
        let mut seen = vec![0u8; set.descriptors.len()];
        for e in &entries {
            assert!(e.count > 0 && e.first % s + e.count <= s, "inside one page");
            for g in e.first..e.first + e.count {
                let local = pages.iter().position(|&p| p == g / s).unwrap() as u32 * s + g % s;
                seen[local as usize] += 1;
                let d = lookup(g);
                let original = &set.descriptors[local as usize];
                assert_eq!(d.patch_index, original.patch_index + 2 * pools.patch_block);
                assert_eq!(d.patch_index, e.patch_index);
                let frame = &set.frames[original.patch_index as usize];
                assert_eq!(unpack(d, frame).xy, unpack(original, frame).xy);
            }
        }
        assert!(seen.iter().all(|&c| c == 1));
        // One page holding everything: the set itself.
        let whole = Pools {
            desc_page: set.descriptors.len() as u32,
            entry_page: set.entries.len() as u32,
            patch_block: set.patch_count() as u32,
        };
        assert_eq!(place_entries(&set, &whole, 0, &[0]), set.entries);
        assert_eq!(place_descriptors(&set, &whole, 0), set.descriptors);
    }
}
