//! The per-MCNK data of grass `gpu-cull:placement=gpu` a tile worker can
//! build ([`RecordConfig::prepare`]): each MCNK's bounds ([`PlaceBoundsGpu`],
//! the cull's test), `per-cell`'s coverage blocks, and each MCNK's
//! placement bound ([`mcnk_bound`]), which sizes the generated buffers. The
//! render thread adds what needs its slots (`super::generated`).

use std::sync::Arc;

use sward_scenes::effects::ResolvedEffects;
use sward_scenes::world::coords::{ChunkCoord, CHUNK_SIZE};
use sward_scenes::world::Mcnk;
use sward_scenes::{AdtTile, Policy, TileCoord};

use super::patches::{patch_frame, patch_row, GrassPatchGpu, PatchSize};
use crate::error::PassError;
use crate::grass::placement_gpu::gpu::{PlaceChunkGpu, COVER_WORDS, LAYER_UNKNOWN, MAX_ATLAS_SLOT};
use crate::grass::placement_gpu::records::{cell_cover, place_chunk_coded, tile_effects};
use crate::grass::placement_gpu::PlacementGpuError;

/// MCNK records per tile slot.
pub const TILE_MCNKS: u32 = 256;

/// A scale no policy exceeds: `client` draws 0.9..1.1, `client-3.3.5`
/// 0.67..1.33, `per-cell` 0.9..1.1 (the bounds are grown by the model
/// radius times this; `Policy::max_scale` of every policy is checked
/// against it).
pub const MAX_POLICY_SCALE: f32 = 1.5;
/// `patch_index` of a free record.
pub(super) const NO_RECORD: u32 = u32::MAX;

/// An MCNK's bounds, patch-table row and largest model sway height (mirrors
/// WGSL `PlaceBounds`, 32 bytes; layout checked).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PlaceBoundsGpu {
    /// Minimum corner (before wind sway).
    pub bounds_min: [f32; 3],
    /// Row of the patch table its descriptors are packed in, or `u32::MAX`
    /// (a free record).
    pub patch_index: u32,
    /// Maximum corner (before wind sway).
    pub bounds_max: [f32; 3],
    /// The largest sway height of the models.
    pub sway_height: f32,
}

pub(super) const FREE_BOUNDS: PlaceBoundsGpu = PlaceBoundsGpu {
    bounds_min: [0.0; 3],
    patch_index: NO_RECORD,
    bounds_max: [0.0; 3],
    sway_height: 0.0,
};

/// The most placements `policy` makes in MCNK `m`: for `per-cell`, per
/// cell whose predTex layer has an effect, the clump count the CPU
/// computes from that cell's coverage and the effect's density, scaled,
/// plus one (the hashed fraction); for the client routines the picks times
/// the densest effect of its layers (as [`capacity_bound`](crate::grass::placement_gpu::records::capacity_bound)).
pub fn mcnk_bound(policy: &Policy, m: &Mcnk, effects: &ResolvedEffects) -> u64 {
    let effect = |layer: usize| {
        m.layers
            .get(layer)
            .and_then(|l| l.effect())
            .and_then(|id| effects.get(id))
    };
    let densest = || {
        (0..m.layers.len())
            .filter_map(effect)
            .map(|e| u64::from(e.client_density()))
            .max()
            .unwrap_or(0)
    };
    let c = match policy {
        Policy::Client(c) => return u64::from(c.picks()) * densest(),
        Policy::Client335(c) => return u64::from(c.picks()) * densest(),
        Policy::PerCell(c) => c,
    };
    let mut total = 0u64;
    for row in 0..8u32 {
        for col in 0..8u32 {
            let layer = m.header.pred_tex.layer(row, col) as usize;
            let Some(e) = effect(layer) else {
                continue;
            };
            let coverage = m.layer_weight(layer, row as usize * 8 + 4, col as usize * 8 + 4);
            let base = sward_scenes::placement::per_cell::clumps(
                coverage,
                e.density,
                c.density_cap,
                c.max_clumps,
            );
            total += (base as f32 * c.density_scale.max(0.0)).floor() as u64 + 1;
        }
    }
    total
}

/// A tile's records, bounds, coverage, patch rows and placement bounds,
/// computed on a tile worker ([`RecordConfig::prepare`]). What needs the
/// render thread's state is left as placeholders that
/// [`PreparedRecords::resolve`] fills: each record's height-atlas slot
/// (0) and its layers' palette slots (tile-local indices into
/// [`Self::effects`]).
pub struct PreparedRecords {
    /// Per MCNK (row-major in the tile): its record, atlas slot 0 and each
    /// layer with an effect naming it by its index in `effects`.
    pub(super) records: Vec<PlaceChunkGpu>,
    /// The distinct ground-effect ids the tile's layers name, ascending.
    pub(super) effects: Vec<u32>,
    /// Per MCNK (row-major in the tile): its bounds, `patch_index` the
    /// patch's index in the tile's block of rows (`NO_RECORD`: no MCNK).
    pub(super) bounds: Vec<PlaceBoundsGpu>,
    /// `per-cell`: the coverage blocks (`COVER_WORDS` per MCNK).
    pub(super) cover: Vec<u32>,
    /// Per MCNK: [`mcnk_bound`], largest first.
    pub(super) caps: Vec<u64>,
    /// The tile's patch-table rows.
    pub(super) rows: Vec<GrassPatchGpu>,
}

impl PreparedRecords {
    /// Fills in what the render thread owns: each record's height-atlas
    /// slot (`slot_at(x, y)` for MCNK `(x, y)` of the tile) and its layers' effect-table indices
    /// (`codes[k]` for the tile's effect `k`, [`Self::effects`]), and
    /// makes each bounds' `patch_index` global (`first_row`, the tile's
    /// first patch-table row).
    pub(super) fn resolve(
        &mut self,
        coord: TileCoord,
        slot_at: impl Fn(u32, u32) -> Option<u32>,
        codes: &[u16],
        first_row: u32,
    ) -> Result<(), PassError> {
        let local = |half: u32| -> u32 {
            match codes.get(half as usize) {
                Some(&c) => u32::from(c),
                None => half,
            }
        };
        for (i, (r, b)) in self.records.iter_mut().zip(&mut self.bounds).enumerate() {
            if b.patch_index == NO_RECORD {
                continue;
            }
            let (x, y) = (i as u32 % 16, i as u32 / 16);
            let slot = slot_at(x, y)
                .filter(|s| *s <= MAX_ATLAS_SLOT)
                .ok_or_else(|| PassError::InvalidInput {
                    technique: "grass.gpu-cull",
                    what: format!("MCNK ({}, {})", coord.x * 16 + x, coord.y * 16 + y),
                    reason: "not in the height atlas, or beyond a record's 16-bit atlas slot"
                        .into(),
                })?;
            r.slot_holes |= slot;
            for w in &mut r.layers {
                *w = local(*w & 0xFFFF) | local(*w >> 16) << 16;
            }
            b.patch_index += first_row;
        }
        Ok(())
    }
}

/// What preparing a tile's records needs (cheap to clone to a worker).
#[derive(Clone)]
pub struct RecordConfig {
    pub(super) policy: Policy,
    pub(super) effects: Arc<ResolvedEffects>,
    pub(super) patch: PatchSize,
    /// Largest model radius times [`MAX_POLICY_SCALE`].
    pub(super) reach: f32,
    /// Largest model sway height.
    pub(super) sway_height: f32,
    /// The height atlas's index window origin (the patch rows' grid frame).
    pub(super) window_origin: [u32; 2],
}

impl RecordConfig {
    /// The records (with placeholders, see [`PreparedRecords`]), bounds,
    /// coverage blocks, patch rows and placement bounds of `tile` at
    /// `coord`.
    pub fn prepare(&self, coord: TileCoord, tile: &AdtTile) -> Result<PreparedRecords, PassError> {
        let side = 16 / self.patch.chunks();
        let per_cell = matches!(self.policy, Policy::PerCell(_));
        let mut effects: Vec<u32> = tile_effects(tile).collect();
        effects.sort_unstable();
        effects.dedup();
        let mut out = PreparedRecords {
            records: vec![PlaceChunkGpu::default(); TILE_MCNKS as usize],
            bounds: vec![FREE_BOUNDS; TILE_MCNKS as usize],
            cover: if per_cell {
                vec![0u32; TILE_MCNKS as usize * COVER_WORDS]
            } else {
                Vec::new()
            },
            caps: Vec::with_capacity(tile.mcnks.len()),
            rows: Vec::with_capacity((side * side) as usize),
            effects,
        };
        for m in &tile.mcnks {
            let chunk = m.chunk_coord(coord);
            let (ix, iy) = (chunk.x % 16, chunk.y % 16);
            let i = (iy * 16 + ix) as usize;
            // Layers name their effect by its index in the tile's list
            // (fewer than LAYER_UNKNOWN: at most 4 per MCNK).
            let effects = &out.effects;
            out.records[i] = place_chunk_coded(chunk, m, 0, |id| {
                effects
                    .binary_search(&id)
                    .map_or(LAYER_UNKNOWN, |k| k as u16)
            })
            .map_err(gpu_error)?;
            if per_cell {
                out.cover[i * COVER_WORDS..(i + 1) * COVER_WORDS].copy_from_slice(&cell_cover(m));
            }
            let local = (iy / self.patch.chunks()) * side + ix / self.patch.chunks();
            out.bounds[i] = self.mcnk_bounds(chunk, m, local);
            out.caps.push(mcnk_bound(&self.policy, m, &self.effects));
        }
        out.caps.sort_unstable_by(|a, b| b.cmp(a));
        let base_key = [coord.x * side, coord.y * side];
        out.rows.extend((0..side * side).map(|k| {
            let key = [base_key[0] + k % side, base_key[1] + k / side];
            patch_row(
                &patch_frame(key, self.patch),
                key,
                self.patch,
                self.window_origin,
            )
        }));
        Ok(out)
    }

    /// The bounds of MCNK `m` at `chunk` (patch `local` of its tile): its
    /// square and terrain Z range (base Z plus the MCVT extremes) grown by
    /// the reach.
    fn mcnk_bounds(&self, chunk: ChunkCoord, m: &Mcnk, local: u32) -> PlaceBoundsGpu {
        let [ox, oy] = chunk.origin();
        let base = m.header.position[2];
        let (lo, hi) = m
            .heights
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), h| {
                (lo.min(*h), hi.max(*h))
            });
        // A root may sit on the square's edge (f32 rounding): a little more.
        let r = self.reach + 0.01;
        PlaceBoundsGpu {
            bounds_min: [
                (ox - CHUNK_SIZE) as f32 - r,
                (oy - CHUNK_SIZE) as f32 - r,
                base + lo - r,
            ],
            patch_index: local,
            bounds_max: [ox as f32 + r, oy as f32 + r, base + hi + r],
            sway_height: self.sway_height,
        }
    }
}

/// A GPU-placement error as the technique's error (a pass error stays one).
pub(super) fn gpu_error(e: PlacementGpuError) -> PassError {
    match e {
        PlacementGpuError::Pass(p) => p,
        other => PassError::InvalidInput {
            technique: "grass.gpu-cull",
            what: "GPU placement".into(),
            reason: other.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::grass::placement_gpu::records::{capacity_bound, EffectTable};
    use crate::testkit::preset;

    #[test]
    fn bounds_layout_matches_wgsl() {
        sward_wgsl::assert_layouts!(
            sward_wgsl::modules::GRASS_PLACE_SINK,
            "PlaceBounds" => PlaceBoundsGpu { bounds_min, patch_index, bounds_max, sway_height },
        );
    }

    /// The bound that sizes the generated buffers holds every MCNK's
    /// placements (the CPU policy's), and is tighter than the generic one
    /// for `per-cell`.
    #[test]
    fn mcnk_bounds_hold_every_mcnks_placements() {
        for name in ["elwynn-dense", "elwynn-client", "seams-holes", "scale-4"] {
            let scene = preset(name);
            let (_, table) = EffectTable::for_tiles(
                scene.world().tiles().iter().map(|t| &***t),
                &scene.resolved,
            )
            .expect("table");
            let mut placed: HashMap<ChunkCoord, u64> = HashMap::new();
            for g in &scene.placements().groups {
                *placed.entry(g.chunk).or_default() += u64::from(g.count);
            }
            let (mut bound, mut generic, mut count, mut tightest) = (0, 0, 0, f64::MAX);
            for tile in scene.world().tiles() {
                for m in &tile.mcnks {
                    let chunk = m.chunk_coord(tile.coord);
                    let n = placed.get(&chunk).copied().unwrap_or(0);
                    let b = mcnk_bound(scene.policy(), m, &scene.resolved);
                    assert!(
                        b >= n,
                        "{name} MCNK ({}, {}): {n} placed, bound {b}",
                        chunk.x,
                        chunk.y
                    );
                    if n > 0 {
                        tightest = tightest.min(b as f64 / n as f64);
                    }
                    bound += b;
                    generic += capacity_bound(scene.policy(), m, &table);
                    count += n;
                }
            }
            eprintln!("{name}: {count} placed, bound {bound} (generic {generic}), tightest MCNK {tightest:.3}");
            assert!(bound <= generic);
        }
    }

    /// The records' configuration the tests build `scene` with.
    fn config_of(scene: &sward_scenes::Scene) -> RecordConfig {
        RecordConfig {
            policy: *scene.policy(),
            effects: scene.resolved.clone(),
            patch: PatchSize::Block2,
            reach: 1.0,
            sway_height: 0.5,
            window_origin: [0, 0],
        }
    }

    /// A tile's records as a worker prepares them and the render thread
    /// resolves them (atlas slots, palette slots, patch rows) equal the
    /// records packed whole from the palette's table (`place_chunk`), on
    /// presets of every policy; resolving with a wrong effect map differs.
    #[test]
    fn prepared_records_resolve_to_the_packed_records() {
        use crate::grass::placement_gpu::records::place_chunk;
        let mut wrong_caught = 0;
        for name in ["elwynn-dense", "elwynn-client", "seams-holes"] {
            let scene = preset(name);
            let tiles = scene.world().tiles();
            let (_, table) = EffectTable::for_tiles(tiles.iter().map(|t| &***t), &scene.resolved)
                .expect("table");
            let config = config_of(scene);
            let slot_at = |x: u32, y: u32| Some(300 + y * 16 + x);
            for (k, tile) in tiles.iter().enumerate() {
                let prepared = || config.prepare(tile.coord, tile).expect("prepared");
                let mut p = prepared();
                let codes: Vec<u16> = p
                    .effects
                    .iter()
                    .map(|id| table.index_of(*id).unwrap_or(LAYER_UNKNOWN))
                    .collect();
                let first_row = k as u32 * 64;
                p.resolve(tile.coord, slot_at, &codes, first_row)
                    .expect("resolved");
                assert_eq!(p.records.len(), 256);
                for m in &tile.mcnks {
                    let chunk = m.chunk_coord(tile.coord);
                    let (x, y) = (chunk.x % 16, chunk.y % 16);
                    let i = (y * 16 + x) as usize;
                    let want = place_chunk(chunk, m, 300 + y * 16 + x, &table).expect("packed");
                    assert_eq!(p.records[i], want, "{name} MCNK ({}, {})", chunk.x, chunk.y);
                    let local = (y / 2) * 8 + x / 2;
                    assert_eq!(p.bounds[i].patch_index, first_row + local);
                }
                let mut caps = p.caps.clone();
                caps.sort_unstable_by(|a, b| b.cmp(a));
                assert_eq!(p.caps, caps, "largest first");
                // The effect map reversed: a tile with two effects or more
                // gets other palette slots.
                if codes.len() > 1 && codes.first() != codes.last() {
                    let mut wrong = prepared();
                    let reversed: Vec<u16> = codes.iter().rev().copied().collect();
                    wrong
                        .resolve(tile.coord, slot_at, &reversed, first_row)
                        .expect("resolved");
                    assert_ne!(wrong.records, p.records, "{name}: a wrong map is caught");
                    wrong_caught += 1;
                }
            }
        }
        assert!(wrong_caught > 0, "some tile has two effects");
    }

    /// An MCNK whose atlas slot is missing is an error naming it.
    #[test]
    fn a_missing_atlas_slot_is_an_error() {
        let scene = preset("elwynn-client");
        let tile = &scene.world().tiles()[0];
        let config = config_of(scene);
        let mut p = config.prepare(tile.coord, tile).expect("prepared");
        let codes = vec![0u16; p.effects.len()];
        let e = p
            .resolve(
                tile.coord,
                |x, y| ((x, y) != (3, 5)).then_some(1),
                &codes,
                0,
            )
            .expect_err("missing slot");
        assert!(e.to_string().contains("not in the height atlas"), "{e}");
    }

    /// The placement bounds kept sorted by merging tiles in and removing
    /// them equal a full sort after every change.
    #[test]
    fn merged_bounds_equal_a_full_sort() {
        use super::super::generated::{merge_sorted, remove_sorted};
        let mut state = 0x9e37_79b9u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        let (mut sorted, mut scratch) = (Vec::new(), Vec::new());
        let mut tiles: Vec<Vec<u64>> = Vec::new();
        for step in 0..400 {
            if tiles.len() > 6 || (step % 3 == 2 && !tiles.is_empty()) {
                let t = tiles.remove(next() as usize % tiles.len());
                remove_sorted(&mut sorted, &t, &mut scratch);
            } else {
                let mut t: Vec<u64> = (0..1 + next() % 40)
                    .map(|_| u64::from(next() % 50))
                    .collect();
                t.sort_unstable_by(|a, b| b.cmp(a));
                merge_sorted(&mut sorted, &t, &mut scratch);
                tiles.push(t);
            }
            let mut want: Vec<u64> = tiles.iter().flatten().copied().collect();
            want.sort_unstable_by(|a, b| b.cmp(a));
            assert_eq!(sorted, want, "step {step}");
        }
    }

    /// The bounds grow by the model radius times [`MAX_POLICY_SCALE`]: no
    /// policy may draw a larger scale (a new policy has to be listed here:
    /// the match below stops compiling without it).
    #[test]
    fn max_policy_scale_holds_every_policy() {
        use sward_scenes::placement::{Client335Params, ClientParams, PerCellParams};
        let policies = [
            Policy::Client(ClientParams::default()),
            Policy::Client335(Client335Params::default()),
            Policy::PerCell(PerCellParams::default()),
        ];
        for p in &policies {
            match p {
                Policy::Client(_) | Policy::Client335(_) | Policy::PerCell(_) => {}
            }
            assert!(
                p.max_scale() <= MAX_POLICY_SCALE,
                "{}: scale up to {}, bounds grown for {MAX_POLICY_SCALE}",
                p.name(),
                p.max_scale()
            );
        }
    }
}
