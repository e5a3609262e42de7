//! Patches of grass `gpu-cull` (immutable patch batches): the resident placements grouped by square blocks of MCNKs
//! ([`PatchSize`]: 1x1, 2x2 or 4x4), then by model, packed into
//! [`GrassDescriptor`]s, with one [`PatchEntry`] per (patch, model) holding
//! its descriptor range and conservative bounds. Built once per resident
//! tile while the world streams (then placed into the tier's pools by
//! [`super::pool::place_descriptors`] and
//! [`super::pool::place_entries`]), or once for a whole window.
//!
//! Bounds of an entry: the XY extent of its decoded roots and the terrain
//! Z range (MCVT min/max) of the MCNKs they stand on, grown on every side by
//! the model's origin-centred radius times the entry's largest scale. Wind
//! sway depends on per-frame settings, so the cull adds it each frame (see
//! [`super::cull`]).

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use sward_scenes::world::coords::{ChunkCoord, CHUNK_SIZE};
use sward_scenes::{Placements, World};

use super::descriptor::{pack, GrassDescriptor, PatchFrame};
use crate::error::PassError;
use crate::grass::instance::placement_models;

const TECHNIQUE: &str = "grass.gpu-cull";

/// Side of a patch in MCNKs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PatchSize {
    /// One MCNK per patch.
    Mcnk,
    /// 2x2 MCNKs per patch.
    #[default]
    Block2,
    /// 4x4 MCNKs per patch.
    Block4,
}

impl PatchSize {
    /// Every size, smallest first.
    pub const ALL: [PatchSize; 3] = [PatchSize::Mcnk, PatchSize::Block2, PatchSize::Block4];

    /// MCNKs per patch side.
    pub fn chunks(self) -> u32 {
        match self {
            PatchSize::Mcnk => 1,
            PatchSize::Block2 => 2,
            PatchSize::Block4 => 4,
        }
    }

    /// Name used in reports (`mcnk`, `2x2`, `4x4`).
    pub fn name(self) -> &'static str {
        match self {
            PatchSize::Mcnk => "mcnk",
            PatchSize::Block2 => "2x2",
            PatchSize::Block4 => "4x4",
        }
    }

    /// Parses a name or a side (`1`, `2`, `4`).
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "1" | "1x1" | "mcnk" => Some(PatchSize::Mcnk),
            "2" | "2x2" => Some(PatchSize::Block2),
            "4" | "4x4" => Some(PatchSize::Block4),
            _ => None,
        }
    }
}

/// How far a model reaches from its root, for bounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelReach {
    /// Radius of the origin-centred sphere holding the model (scale 1).
    pub radius: f32,
    /// Height wind amplitude scales by (sway = amplitude x this, world units).
    pub sway_height: f32,
}

/// One (patch, model) draw: mirrors WGSL `PatchEntry` (48 bytes; checked).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PatchEntry {
    /// Minimum corner of the bounds (before wind sway).
    pub bounds_min: [f32; 3],
    /// First descriptor (the draw's `first_instance`).
    pub first: u32,
    /// Maximum corner of the bounds (before wind sway).
    pub bounds_max: [f32; 3],
    /// Number of descriptors (the draw's `instance_count`).
    pub count: u32,
    /// Model index.
    pub model: u32,
    /// Patch index.
    pub patch_index: u32,
    /// Padding to 16 bytes.
    pub _pad: [u32; 2],
}

/// Everything `gpu-cull` uploads once per window.
#[derive(Debug, Clone, PartialEq)]
pub struct PatchSet {
    /// Patch size used.
    pub size: PatchSize,
    /// Frame of each patch (descriptor coordinates), by patch index.
    pub frames: Vec<PatchFrame>,
    /// Grid key `(x, y)` of each patch (global MCNK coordinate / side).
    pub keys: Vec<[u32; 2]>,
    /// Descriptors, grouped by patch, then model.
    pub descriptors: Vec<GrassDescriptor>,
    /// Index in `Placements::items` of each descriptor's placement.
    pub sources: Vec<u32>,
    /// Entries, grouped by model (model-major), then patch.
    pub entries: Vec<PatchEntry>,
    /// Range of [`Self::entries`] of each model.
    pub model_entries: Vec<Range<u32>>,
}

fn invalid(what: String, reason: String) -> PassError {
    PassError::InvalidInput {
        technique: TECHNIQUE,
        what,
        reason,
    }
}

/// Terrain Z range of an MCNK: base Z plus its MCVT min and max.
fn chunk_z_range(world: &World, chunk: ChunkCoord) -> Result<[f32; 2], PassError> {
    let m = world.mcnk(chunk).ok_or_else(|| {
        invalid(
            format!("MCNK ({}, {})", chunk.x, chunk.y),
            "has placements but is not resident".into(),
        )
    })?;
    let base = m.header.position[2];
    let (lo, hi) = m
        .heights
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), h| {
            (lo.min(*h), hi.max(*h))
        });
    Ok([base + lo, base + hi])
}

impl PatchSet {
    /// Groups `placements` of the resident `world` into patches of `size`.
    /// `reach[m]` bounds model `m`; every placement's model must have one.
    pub fn build(
        world: &World,
        placements: &Placements,
        reach: &[ModelReach],
        size: PatchSize,
    ) -> Result<Self, PassError> {
        placement_models(placements, reach.len())?;
        let n = size.chunks();
        // patch key (y, x) -> model -> group indices.
        let mut by_patch: BTreeMap<(u32, u32), BTreeMap<u16, Vec<usize>>> = BTreeMap::new();
        for (gi, g) in placements.groups.iter().enumerate() {
            by_patch
                .entry((g.chunk.y / n, g.chunk.x / n))
                .or_default()
                .entry(g.model)
                .or_default()
                .push(gi);
        }
        let mut z_cache: HashMap<ChunkCoord, [f32; 2]> = HashMap::new();
        let mut set = PatchSet {
            size,
            frames: Vec::with_capacity(by_patch.len()),
            keys: Vec::with_capacity(by_patch.len()),
            descriptors: Vec::with_capacity(placements.len()),
            sources: Vec::with_capacity(placements.len()),
            entries: Vec::new(),
            model_entries: Vec::new(),
        };
        let mut per_model: Vec<Vec<PatchEntry>> = vec![Vec::new(); reach.len()];
        for (patch, ((ky, kx), models)) in by_patch.into_iter().enumerate() {
            let patch = patch as u32;
            let frame = patch_frame([kx, ky], size);
            set.frames.push(frame);
            set.keys.push([kx, ky]);
            for (model, groups) in models {
                let first = set.descriptors.len() as u32;
                let mut lo = [f32::INFINITY; 3];
                let mut hi = [f32::NEG_INFINITY; 3];
                let mut max_scale = 0.0f32;
                for gi in groups {
                    let g = &placements.groups[gi];
                    let z = match z_cache.get(&g.chunk) {
                        Some(z) => *z,
                        None => {
                            let z = chunk_z_range(world, g.chunk)?;
                            z_cache.insert(g.chunk, z);
                            z
                        }
                    };
                    lo[2] = lo[2].min(z[0]);
                    hi[2] = hi[2].max(z[1]);
                    for (i, p) in placements.group_items(g).iter().enumerate() {
                        let xy = [p.position[0], p.position[1]];
                        let d = pack(&frame, patch, xy, p.yaw, p.scale, p.seed).map_err(|e| {
                            invalid(
                                format!(
                                    "placement {} (MCNK {}, {})",
                                    g.start as usize + i,
                                    g.chunk.x,
                                    g.chunk.y
                                ),
                                e.to_string(),
                            )
                        })?;
                        let u = super::descriptor::unpack(&d, &frame);
                        for k in 0..2 {
                            lo[k] = lo[k].min(u.xy[k]);
                            hi[k] = hi[k].max(u.xy[k]);
                        }
                        max_scale = max_scale.max(u.scale);
                        set.descriptors.push(d);
                        set.sources.push(g.start + i as u32);
                    }
                }
                let count = set.descriptors.len() as u32 - first;
                if count == 0 {
                    continue;
                }
                let r = reach[model as usize].radius * max_scale;
                per_model[model as usize].push(PatchEntry {
                    bounds_min: lo.map(|v| v - r),
                    first,
                    bounds_max: hi.map(|v| v + r),
                    count,
                    model: u32::from(model),
                    patch_index: patch,
                    _pad: [0; 2],
                });
            }
        }
        for list in per_model {
            let start = set.entries.len() as u32;
            set.entries.extend(list);
            set.model_entries.push(start..set.entries.len() as u32);
        }
        Ok(set)
    }

    /// Number of patches.
    pub fn patch_count(&self) -> usize {
        self.frames.len()
    }

    /// The patch table the vertex shader reads, with grid frames relative to
    /// the atlas index window `window_origin` (global MCNK coordinate of its
    /// first texel; see `crate::atlas::IndexWindow`).
    pub fn patch_table(&self, window_origin: [u32; 2]) -> Vec<GrassPatchGpu> {
        self.frames
            .iter()
            .zip(&self.keys)
            .map(|(f, k)| patch_row(f, *k, self.size, window_origin))
            .collect()
    }
}

/// The frame of the patch of grid key `key` (global MCNK coordinate / side)
/// with patches of `size`: what its descriptors are packed relative to.
pub fn patch_frame(key: [u32; 2], size: PatchSize) -> PatchFrame {
    let n = size.chunks();
    let extent = f64::from(n) * CHUNK_SIZE;
    let [ox, oy] = ChunkCoord {
        x: key[0] * n,
        y: key[1] * n,
    }
    .origin();
    PatchFrame {
        min: [(ox - extent) as f32, (oy - extent) as f32],
        extent: extent as f32,
    }
}

/// The patch table row of the patch of grid key `key` and frame `f`, its
/// grid frame relative to the atlas index window `window_origin`.
pub fn patch_row(
    f: &PatchFrame,
    key: [u32; 2],
    size: PatchSize,
    window_origin: [u32; 2],
) -> GrassPatchGpu {
    let n = i64::from(size.chunks());
    // Local (0, 0) is the patch's minimum X and Y: its largest column and
    // row (global MCNK (k + 1) * n), in cells.
    let corner =
        |key: u32, origin: u32| (8 * ((i64::from(key) + 1) * n - i64::from(origin))) as f32;
    GrassPatchGpu {
        world: [f.min[0], f.min[1], f.extent, 0.0],
        grid: [
            corner(key[0], window_origin[0]),
            corner(key[1], window_origin[1]),
            (8 * n) as f32,
            0.0,
        ],
    }
}

/// One row of the patch table (mirrors WGSL `GrassPatch`, 32 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GrassPatchGpu {
    /// `(min_x, min_y, extent, 0)` in world units.
    pub world: [f32; 4],
    /// Grid column and row of local (0, 0) relative to the index window,
    /// cells per patch side, 0.
    pub grid: [f32; 4],
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grass::gpu_cull::descriptor::unpack;
    use sward_scenes::Preset;

    fn reach() -> Vec<ModelReach> {
        (0..14)
            .map(|m| ModelReach {
                radius: 0.3 + 0.1 * m as f32,
                sway_height: 0.5,
            })
            .collect()
    }

    #[test]
    fn patch_size_parses_names_and_sides() {
        for s in PatchSize::ALL {
            assert_eq!(PatchSize::parse(s.name()), Some(s));
            assert_eq!(PatchSize::parse(&s.chunks().to_string()), Some(s));
        }
        assert_eq!(PatchSize::parse("3"), None);
    }

    #[test]
    fn every_placement_lands_in_one_entry_inside_its_bounds() {
        let scene = Preset::by_name("seams-holes").unwrap().build().unwrap();
        let world = scene.world();
        let reach = reach();
        let mut entry_counts = Vec::new();
        for size in PatchSize::ALL {
            let set = PatchSet::build(world, scene.placements(), &reach, size).unwrap();
            assert_eq!(set.descriptors.len(), scene.placements().len());
            // Entries tile the descriptor array exactly once.
            let mut covered = vec![0u8; set.descriptors.len()];
            for (m, range) in set.model_entries.iter().enumerate() {
                for e in &set.entries[range.start as usize..range.end as usize] {
                    assert_eq!(e.model as usize, m, "entries are model-major");
                    assert!(e.count > 0);
                    let frame = &set.frames[e.patch_index as usize];
                    for d in &set.descriptors[e.first as usize..(e.first + e.count) as usize] {
                        assert_eq!(d.patch_index, e.patch_index);
                        let u = unpack(d, frame);
                        let r = reach[m].radius * u.scale;
                        for k in 0..2 {
                            assert!(u.xy[k] - r >= e.bounds_min[k] - 1e-3);
                            assert!(u.xy[k] + r <= e.bounds_max[k] + 1e-3);
                        }
                        let z = world
                            .height_at(f64::from(u.xy[0]), f64::from(u.xy[1]))
                            .unwrap();
                        assert!(z - r >= e.bounds_min[2] - 1e-3 && z + r <= e.bounds_max[2] + 1e-3);
                    }
                    covered[e.first as usize..(e.first + e.count) as usize]
                        .iter_mut()
                        .for_each(|c| *c += 1);
                }
            }
            assert!(covered.iter().all(|&c| c == 1));
            // Patches hold MCNKs of one block only.
            let side = size.chunks();
            for (pi, key) in set.keys.iter().enumerate() {
                let f = set.frames[pi];
                let [ox, oy] = ChunkCoord {
                    x: key[0] * side,
                    y: key[1] * side,
                }
                .origin();
                assert!((f64::from(f.min[0] + f.extent) - ox).abs() < 1e-2);
                assert!((f64::from(f.min[1] + f.extent) - oy).abs() < 1e-2);
            }
            entry_counts.push((set.patch_count(), set.entries.len()));
        }
        // Bigger patches: fewer patches and fewer entries.
        assert!(entry_counts[0].0 > entry_counts[1].0 && entry_counts[1].0 > entry_counts[2].0);
        assert!(entry_counts[0].1 > entry_counts[1].1 && entry_counts[1].1 > entry_counts[2].1);
    }

    #[test]
    fn placements_of_a_missing_mcnk_are_an_error() {
        let scene = Preset::by_name("seams-holes").unwrap().build().unwrap();
        let empty = World::new("empty");
        let err = PatchSet::build(&empty, scene.placements(), &reach(), PatchSize::Mcnk)
            .unwrap_err()
            .to_string();
        assert!(err.contains("not resident"), "{err}");
        let too_few = &reach()[..1];
        assert!(
            PatchSet::build(scene.world(), scene.placements(), too_few, PatchSize::Mcnk).is_err()
        );
    }
}
