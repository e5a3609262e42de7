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

use super::patches::PatchSize;
use crate::grass::placement_gpu::gpu::COVER_WORDS;
use crate::grass::placement_gpu::records::cell_cover;

/// MCNK records per tile slot.
pub const TILE_MCNKS: u32 = 256;

/// A scale no policy exceeds: `client` draws 0.9..1.1, `client-3.3.5`
/// 0.67..1.33, `per-cell` 0.9..1.1 (the bounds are grown by the model
/// radius times this).
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

/// What a tile's records need besides its atlas slot and palette slots,
/// computed on a tile worker ([`RecordConfig::prepare`]).
pub struct PreparedRecords {
    /// Per MCNK (row-major in the tile): its bounds, `patch_index` the
    /// patch's index in the tile's block of rows (`NO_RECORD`: no MCNK).
    pub(super) bounds: Vec<PlaceBoundsGpu>,
    /// `per-cell`: the coverage blocks (`COVER_WORDS` per MCNK).
    pub(super) cover: Vec<u32>,
    /// Per MCNK: [`mcnk_bound`].
    pub(super) caps: Vec<u64>,
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
}

impl RecordConfig {
    /// The bounds, coverage blocks and placement bounds of `tile` at `coord`.
    pub fn prepare(&self, coord: TileCoord, tile: &AdtTile) -> PreparedRecords {
        let side = 16 / self.patch.chunks();
        let per_cell = matches!(self.policy, Policy::PerCell(_));
        let mut out = PreparedRecords {
            bounds: vec![FREE_BOUNDS; TILE_MCNKS as usize],
            cover: if per_cell {
                vec![0u32; TILE_MCNKS as usize * COVER_WORDS]
            } else {
                Vec::new()
            },
            caps: Vec::with_capacity(tile.mcnks.len()),
        };
        for m in &tile.mcnks {
            let chunk = m.chunk_coord(coord);
            let (ix, iy) = (chunk.x % 16, chunk.y % 16);
            let i = (iy * 16 + ix) as usize;
            if per_cell {
                out.cover[i * COVER_WORDS..(i + 1) * COVER_WORDS].copy_from_slice(&cell_cover(m));
            }
            let local = (iy / self.patch.chunks()) * side + ix / self.patch.chunks();
            out.bounds[i] = self.mcnk_bounds(chunk, m, local);
            out.caps.push(mcnk_bound(&self.policy, m, &self.effects));
        }
        out
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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::grass::placement_gpu::records::{capacity_bound, EffectTable};
    use crate::testkit::preset;

    #[test]
    fn bounds_layout_matches_wgsl() {
        let (_, module) =
            sward_wgsl::compose_and_validate(sward_wgsl::modules::GRASS_PLACE_SINK).unwrap();
        sward_wgsl::check_layout!(
            &module,
            "PlaceBounds",
            PlaceBoundsGpu {
                bounds_min,
                patch_index,
                bounds_max,
                sway_height
            }
        )
        .unwrap();
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
}
