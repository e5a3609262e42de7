//! The grass-control data of `camera-grid`, built from the world and the
//! placement policy's per-cell rules (never from placements, never per
//! frame): one `u32` control word per terrain cell (8x8 per MCNK) over the
//! atlas index window. The effects the words name are the resident window's
//! ([`super::effects`]).
//!
//! Control word (WGSL `camera_grid`): bits 0..3 the [`Reason`] (0 = the cell
//! grows grass), bits 4..15 the effect's slot in the [`EffectTable`] (the
//! resident window's palette), bits 16..31 the *expected* number of
//! placements the policy makes in the cell, in 1/256:
//!
//! - `per-cell`: `clumps(coverage, density) * density_scale` (the policy
//!   resolves the fraction with a per-cell hash, so this is its expectation);
//!   cells below the coverage minimum or under a road layer are suppressed
//!   with their own reasons.
//! - `client`: `frill_density / 64 * density` (each of the `frill_density`
//!   cell draws hits a given cell with probability 1/64).
//!
//! Shared with both policies: noEffectDoodad, holes, a predTex layer without
//! an (known, non-empty) effect suppress the cell. Cells of the window whose
//! MCNK is not resident read [`Reason::Outside`].

use sward_scenes::effects::ResolvedEffects;
use sward_scenes::placement::Policy;
use sward_scenes::world::{ChunkCoord, World};

use super::effects::{EffectTable, TileControl};
use super::word::{word_expected, Reason, OUTSIDE_WORD};
use crate::atlas::IndexWindow;
use crate::error::PassError;

/// Control words over an index window: `8 * size` cells per axis, row-major
/// (`y * width + x`), the CPU copy of the control texture.
#[derive(Debug, Clone)]
pub struct ControlData {
    /// The MCNK window covered (the atlas index window).
    pub window: IndexWindow,
    /// Width in cells (`8 * window.size[0]`).
    pub width: u32,
    /// Height in cells.
    pub height: u32,
    /// The words.
    pub words: Vec<u32>,
}

impl ControlData {
    /// Every cell of `window` marked not resident.
    pub fn empty(window: IndexWindow) -> Self {
        let (width, height) = (window.size[0] * 8, window.size[1] * 8);
        ControlData {
            window,
            width,
            height,
            words: vec![OUTSIDE_WORD; (width * height) as usize],
        }
    }

    /// The control data of every resident MCNK of `world` over `window`,
    /// each resident tile's effects made resident in `table` (tiles in
    /// row-major order, so the slots do not depend on anything else).
    pub fn build(
        world: &World,
        window: IndexWindow,
        effects: &ResolvedEffects,
        table: &mut EffectTable,
        policy: &Policy,
    ) -> Result<Self, PassError> {
        let mut data = ControlData::empty(window);
        for t in world.tiles() {
            let control = TileControl::build(Some(t), t.coord, effects, policy);
            table.set_tile(t.coord, &control.ids, effects)?;
            data.set_tile(t.coord, &control.resolved(table));
        }
        Ok(data)
    }

    /// Writes tile `tile`'s 16x16 MCNK blocks (`blocks[iy * 16 + ix]`;
    /// `None`: not resident); answers the texel rectangle written
    /// (`[lo, hi)`), `None` when no MCNK of the tile is in the window.
    pub fn set_tile(
        &mut self,
        tile: sward_scenes::TileCoord,
        blocks: &[Option<[u32; 64]>],
    ) -> Option<([u32; 2], [u32; 2])> {
        let mut lo = [u32::MAX; 2];
        let mut hi = [0u32; 2];
        for iy in 0..16u32 {
            for ix in 0..16u32 {
                let chunk = ChunkCoord::from_tile(tile, ix, iy);
                let w = blocks.get((iy * 16 + ix) as usize).and_then(Option::as_ref);
                if let Some([x0, y0]) = self.set_chunk(chunk, w) {
                    lo = [lo[0].min(x0), lo[1].min(y0)];
                    hi = [hi[0].max(x0 + 8), hi[1].max(y0 + 8)];
                }
            }
        }
        (lo[0] < hi[0] && lo[1] < hi[1]).then_some((lo, hi))
    }

    /// Writes the 64 words of `chunk` (or marks it not resident); returns the
    /// first texel of its 8x8 block, or `None` outside the window.
    pub fn set_chunk(&mut self, chunk: ChunkCoord, words: Option<&[u32; 64]>) -> Option<[u32; 2]> {
        let [tx, ty] = self.window.texel(chunk)?;
        let (x0, y0) = (tx * 8, ty * 8);
        for r in 0..8 {
            for c in 0..8 {
                let at = ((y0 + r) * self.width + x0 + c) as usize;
                self.words[at] = words.map_or(OUTSIDE_WORD, |w| w[(r * 8 + c) as usize]);
            }
        }
        Some([x0, y0])
    }

    /// The word of global cell `(gx, gy)` (grid cells from the map origin),
    /// [`OUTSIDE_WORD`] outside the window.
    pub fn word_at(&self, gx: i64, gy: i64) -> u32 {
        let x = gx - i64::from(self.window.origin[0]) * 8;
        let y = gy - i64::from(self.window.origin[1]) * 8;
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            return OUTSIDE_WORD;
        }
        self.words[(y as u64 * u64::from(self.width) + x as u64) as usize]
    }

    /// The largest expected placements per cell.
    pub fn max_expected(&self) -> f32 {
        self.words
            .iter()
            .filter(|&&w| Reason::of(w) == Reason::Grows)
            .map(|&w| word_expected(w))
            .fold(0.0, f32::max)
    }

    /// The placements the policy expects over every growing cell, and how
    /// many of them a grid of `candidates` per slot at `spacing_cells`
    /// cannot make: a cell keeps each candidate with probability
    /// `expected * spacing_cells^2 / candidates` capped at 1, so it makes at
    /// most `candidates / spacing_cells^2` blades, and the rest of its
    /// expectation is thinned.
    pub fn placements_thinned(&self, candidates: u32, spacing_cells: f64) -> (f64, f64) {
        let most = f64::from(candidates) / (spacing_cells * spacing_cells);
        let (mut expected, mut thinned) = (0.0, 0.0);
        for &w in &self.words {
            if Reason::of(w) == Reason::Grows {
                let e = f64::from(word_expected(w));
                expected += e;
                thinned += (e - most).max(0.0);
            }
        }
        (expected, thinned)
    }

    /// Cells per reason.
    pub fn reason_counts(&self) -> std::collections::BTreeMap<Reason, u64> {
        let mut out = std::collections::BTreeMap::new();
        for &w in &self.words {
            *out.entry(Reason::of(w)).or_insert(0) += 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grass::camera_grid::word::*;
    use sward_scenes::Preset;

    #[test]
    fn the_streaming_bound_covers_every_cell() {
        for name in ["seams-holes", "elwynn-client"] {
            let scene = Preset::by_name(name).unwrap().build().unwrap();
            let mut table = EffectTable::new(&scene.resolved);
            let window = IndexWindow::covering(scene.world().mcnks().map(|(c, _)| c));
            let data = ControlData::build(
                scene.world(),
                window,
                &scene.resolved,
                &mut table,
                scene.policy(),
            )
            .unwrap();
            let bound = max_expected_bound(&scene.resolved, scene.policy());
            assert!(data.max_expected() > 0.0);
            assert!(
                bound >= data.max_expected(),
                "{name}: {bound} < {}",
                data.max_expected()
            );
        }
    }

    #[test]
    fn words_round_trip() {
        let w = grow_word(37, 3.8416);
        assert_eq!(Reason::of(w), Reason::Grows);
        assert_eq!(word_effect(w), 37);
        assert!((word_expected(w) - 3.8416).abs() <= 0.5 / DENSITY_SCALE);
        assert_eq!(word_expected(grow_word(1, 1e6)), 65535.0 / DENSITY_SCALE);
        for r in [Reason::Hole, Reason::Road, Reason::Outside] {
            assert_eq!(Reason::of(r as u32), r);
        }
    }

    /// Every placement of the authoritative policy lies in a growing cell
    /// whose effect can produce its model, and the expected counts add up to
    /// the placements made (statistically).
    #[test]
    fn control_agrees_with_the_per_cell_policy() {
        let scene = Preset::by_name("seams-holes").unwrap().build().unwrap();
        let world = scene.world();
        let window = IndexWindow::covering(world.mcnks().map(|(c, _)| c));
        let mut table = EffectTable::new(&scene.resolved);
        let data =
            ControlData::build(world, window, &scene.resolved, &mut table, scene.policy()).unwrap();
        let counts = data.reason_counts();
        assert!(
            counts.get(&Reason::Hole).copied().unwrap_or(0) > 0,
            "{counts:?}"
        );
        assert!(counts.get(&Reason::NoEffectDoodad).copied().unwrap_or(0) > 0);
        let mut expected = 0.0f64;
        for &w in &data.words {
            if Reason::of(w) == Reason::Grows {
                expected += f64::from(word_expected(w));
            }
        }
        let placed = scene.placements().len() as f64;
        assert!(placed > 1000.0);
        assert!(
            (expected - placed).abs() < 4.0 * placed.sqrt() + 0.002 * placed,
            "expected {expected} vs placed {placed}"
        );
        use sward_scenes::world::coords::world_to_grid;
        for g in &scene.placements().groups {
            for p in scene.placements().group_items(g) {
                let (gx, gy) = world_to_grid(f64::from(p.position[0]), f64::from(p.position[1]));
                // Placements sit strictly inside their cell; nudge off borders.
                let w = data.word_at(gx.floor() as i64, gy.floor() as i64);
                let near_border = (gx - gx.round()).abs() < 1e-3 || (gy - gy.round()).abs() < 1e-3;
                if near_border {
                    continue;
                }
                assert_eq!(
                    Reason::of(w),
                    Reason::Grows,
                    "placement at {:?}",
                    p.position
                );
                let e = &table.records[word_effect(w) as usize];
                assert!(
                    e.models.contains(&u32::from(g.model)),
                    "model {} not in effect {e:?}",
                    g.model
                );
            }
        }
    }

    #[test]
    fn unloading_a_chunk_marks_it_outside() {
        let scene = Preset::by_name("seams-holes").unwrap().build().unwrap();
        let world = scene.world();
        let window = IndexWindow::covering(world.mcnks().map(|(c, _)| c));
        let mut table = EffectTable::new(&scene.resolved);
        let mut data =
            ControlData::build(world, window, &scene.resolved, &mut table, scene.policy()).unwrap();
        let before = data.words.clone();
        let (chunk, _) = world.mcnks().nth(17).unwrap();
        let [x0, y0] = data.set_chunk(chunk, None).unwrap();
        let changed: Vec<usize> = (0..before.len())
            .filter(|&i| before[i] != data.words[i])
            .collect();
        assert!(!changed.is_empty());
        for i in changed {
            let (x, y) = (i as u32 % data.width, i as u32 / data.width);
            assert!((x0..x0 + 8).contains(&x) && (y0..y0 + 8).contains(&y));
        }
        assert!(data.words[(y0 * data.width + x0) as usize] == OUTSIDE_WORD);
        assert_eq!(data.set_chunk(ChunkCoord { x: 0, y: 0 }, None), None);
    }
}
