//! Per-instance culling of grass `gpu-cull` (`cull=instance`, the default):
//! after the patch test, every clump of a surviving (patch, model) entry is
//! tested on its own, so what is drawn is the exact visible set legacy-cpu
//! computes on the CPU, not whole patches.
//!
//! `grass.cull` runs two dispatches of `grass_cull_instances.wgsl`:
//! `cull_patches` (one invocation per entry, the same patch test as
//! `cull=patch`) appends survivors to a list and counts one workgroup per
//! survivor into an indirect dispatch; `cull_instances` (one workgroup per
//! surviving entry) tests each clump's root (its atlas height) against the
//! draw distance, the frustum and the distance LOD, and compacts the
//! survivors' descriptor indices into their model's region of the visible
//! list. The draw is then one `draw_indexed_indirect` per model whose
//! `instance_count` the compaction accumulated; the vertex stage reads its
//! descriptor through the visible list (`vs_visible`).
//!
//! Nothing is reset by a dispatch: the CPU writes the small [`State`] header
//! (survivor and occluded counts, one draw per model with zero instances)
//! and the dispatch args (their own buffer: a buffer read as dispatch args
//! may not be bound for writing in that dispatch) with the frame's
//! uniforms, so the pass records two dispatches in all.

use std::ops::Range;

use glam::Vec3;
use sward_scenes::World;

use super::cull::{instance_visible, CullModel, GrassCull};
use super::descriptor::unpack;
use super::patches::PatchSet;

/// Word offsets and sizes of the `grass.cull.state` buffer (mirrors the
/// constants of `grass_cull_instances.wgsl`).
pub struct State;

impl State {
    /// Number of surviving entries.
    pub const SURVIVORS: usize = 0;
    /// Clumps the occlusion test dropped.
    pub const OCCLUDED: usize = 1;
    /// First word of the per-model `DrawIndexedIndirectArgs`.
    pub const ARGS: usize = 8;
    /// Words per draw.
    pub const ARGS_WORDS: usize = 5;

    /// Words of the header the CPU writes each frame for `models` models.
    pub fn header_words(models: usize) -> usize {
        Self::ARGS + Self::ARGS_WORDS * models
    }

    /// Words of the whole buffer: the header and the survivor list.
    pub fn words(models: usize, entries: usize) -> usize {
        Self::header_words(models) + entries
    }

    /// Byte offset of model `m`'s indirect draw.
    pub fn args_offset(m: usize) -> u64 {
        ((Self::ARGS + Self::ARGS_WORDS * m) * 4) as u64
    }

    /// The `cull_instances` dispatch as the frame starts: no workgroups.
    pub const DISPATCH: [u32; 3] = [0, 1, 1];

    /// The header as the frame starts: no survivors, none occluded, and per
    /// model its indexed draw with zero instances starting at its region of
    /// the visible list.
    pub fn initial(models: &[CullModel]) -> Vec<u32> {
        let mut words = vec![0; Self::ARGS];
        for m in models {
            words.extend_from_slice(&[
                m.index_count,
                0,
                m.first_index,
                m.base_vertex as u32,
                m.visible_base,
            ]);
        }
        words
    }

    /// Instances drawn per model, from a copy of the header.
    pub fn instances(header: &[u32], models: usize) -> Vec<u32> {
        (0..models)
            .map(|m| {
                header
                    .get(Self::ARGS + Self::ARGS_WORDS * m + 1)
                    .copied()
                    .unwrap_or(0)
            })
            .collect()
    }
}

/// Sets each model's `visible_base` (its region of the visible list, sized by
/// its resident clumps) and returns the regions.
pub fn visible_regions(set: &PatchSet, models: &mut [CullModel]) -> Vec<Range<u32>> {
    let mut regions = Vec::with_capacity(models.len());
    let mut next = 0u32;
    for (m, model) in models.iter_mut().enumerate() {
        let clumps: u32 = set
            .model_entries
            .get(m)
            .map(|r| {
                set.entries[r.start as usize..r.end as usize]
                    .iter()
                    .map(|e| e.count)
                    .sum()
            })
            .unwrap_or(0);
        model.visible_base = next;
        regions.push(next..next + clumps);
        next += clumps;
    }
    regions
}

/// A clump as the CPU reference sees it: root (Z from `world`), scale,
/// seed; `None` where no terrain lies under it (the GPU never draws those).
pub fn clump_root(set: &PatchSet, world: &World, descriptor: u32) -> Option<(Vec3, f32, u32)> {
    let d = set.descriptors.get(descriptor as usize)?;
    let frame = set.frames.get(d.patch_index as usize)?;
    let u = unpack(d, frame);
    let z = world.height_at(f64::from(u.xy[0]), f64::from(u.xy[1]))?;
    Some((Vec3::new(u.xy[0], u.xy[1], z), u.scale, u.seed))
}

/// Whether a clump passes the per-instance test and the LOD (mirrors WGSL
/// `clump_kept`).
pub fn clump_kept(root: Vec3, scale: f32, seed: u32, model: &CullModel, c: &GrassCull) -> bool {
    let sway = model.sway_height * c.sway_amplitude;
    if !instance_visible(root, model.radius * scale, sway, c) {
        return false;
    }
    c.lod().fade(seed, root.distance(c.eye())) > 0.0
}

/// CPU reference of `cull=instance`: the descriptor indices the GPU draws,
/// in ascending order (the patch test, then the per-clump test and LOD,
/// then, with `pyramid`, occlusion against it: its levels, level 0 first,
/// built from a target of `c.hiz` pixels).
pub fn cpu_cull_instances(
    set: &PatchSet,
    models: &[CullModel],
    world: &World,
    c: &GrassCull,
    pyramid: Option<&[crate::hiz::Level]>,
) -> Vec<u32> {
    let pixels = [c.hiz[0] as u32, c.hiz[1] as u32];
    let mut kept = Vec::new();
    let view_proj = glam::Mat4::from_cols_array_2d(&c.view_proj);
    for i in super::cull::cpu_cull(set, models, c) {
        let e = &set.entries[i as usize];
        let model = &models[e.model as usize];
        let sway = model.sway_height * c.sway_amplitude;
        for d in e.first..e.first + e.count {
            if let Some((root, scale, seed)) = clump_root(set, world, d) {
                if !clump_kept(root, scale, seed, model, c) {
                    continue;
                }
                let hidden = pyramid.is_some_and(|levels| {
                    crate::hiz::sphere_occluded(
                        levels,
                        pixels,
                        view_proj,
                        root,
                        model.radius * scale + sway,
                    )
                });
                if !hidden {
                    kept.push(d);
                }
            }
        }
    }
    kept.sort_unstable();
    kept
}

#[cfg(test)]
mod tests {
    use super::super::cull::GrassLod;
    use super::*;

    fn cull_at_origin(lod: GrassLod) -> GrassCull {
        GrassCull {
            sway_amplitude: 0.0,
            ..super::super::cull::tests::cull_for(Vec3::ZERO, 0.0, 100.0)
        }
        .with_instances(65_535, lod)
    }

    fn model(radius: f32) -> CullModel {
        CullModel {
            radius,
            ..CullModel::default()
        }
    }

    #[test]
    fn a_clump_is_tested_by_its_own_sphere_and_distance() {
        let c = cull_at_origin(GrassLod::OFF);
        let m = model(1.0);
        assert!(clump_kept(Vec3::new(50.0, 0.0, 0.0), 1.0, 1, &m, &c));
        assert!(!clump_kept(Vec3::new(-50.0, 0.0, 0.0), 1.0, 1, &m, &c));
        // The draw distance is measured from the root, not the sphere.
        assert!(!clump_kept(Vec3::new(100.5, 0.0, 0.0), 4.0, 1, &m, &c));
        // Beside the view (side planes pass y = +-55.4 at x = 60 for aspect
        // 1.6): the clump's scale grows its sphere back into view.
        let beside = Vec3::new(60.0, 57.0, 0.0);
        assert!(!clump_kept(beside, 1.0, 1, &m, &c));
        assert!(clump_kept(beside, 8.0, 1, &m, &c));
    }

    #[test]
    fn lod_thins_by_a_fixed_per_clump_threshold() {
        let lod = GrassLod {
            start: 20.0,
            end: 80.0,
            floor: 0.25,
        };
        assert!((lod.density(10.0) - 1.1).abs() < 1e-6);
        assert!((lod.density(50.0) - 0.675).abs() < 1e-6);
        assert_eq!(lod.density(200.0), 0.25);
        assert!(!GrassLod::OFF.is_on() && lod.is_on());
        // Up to the start every clump is drawn whole; off, always.
        for s in 0..1000u32 {
            assert_eq!(lod.fade(s, 20.0), 1.0);
            assert_eq!(GrassLod::OFF.fade(s, 1.0e4), 1.0);
        }
        let c = cull_at_origin(lod);
        let m = model(0.5);
        // Near: everything; far: about the floor's share, decided per seed.
        let kept_at = |x: f32| {
            (0..4000u32)
                .filter(|&s| clump_kept(Vec3::new(x, 0.0, 0.0), 1.0, s, &m, &c))
                .count()
        };
        assert_eq!(kept_at(15.0), 4000);
        let far = kept_at(90.0);
        assert!(
            (800..1200).contains(&far),
            "{far} of 4000 kept at the floor"
        );
        // Monotonic in distance for every clump: moving away only drops.
        for s in 0..500u32 {
            let mut was = true;
            for x in (0..100).map(|i| i as f32) {
                let now = clump_kept(Vec3::new(x, 0.0, 0.0), 1.0, s, &m, &c);
                assert!(was || !now, "seed {s} reappears at {x}");
                was = now;
            }
        }
    }

    #[test]
    fn state_header_starts_each_model_at_its_region() {
        let models = [
            CullModel {
                index_count: 36,
                first_index: 0,
                base_vertex: 0,
                visible_base: 0,
                ..CullModel::default()
            },
            CullModel {
                index_count: 12,
                first_index: 36,
                base_vertex: 24,
                visible_base: 700,
                ..CullModel::default()
            },
        ];
        let h = State::initial(&models);
        assert_eq!(h.len(), State::header_words(2));
        assert_eq!(&h[..8], &[0; 8]);
        assert_eq!(&h[13..18], &[12, 0, 36, 24, 700]);
        assert_eq!(State::args_offset(1), 52);
        let mut copy = h.clone();
        copy[14] = 5;
        assert_eq!(State::instances(&copy, 2), vec![0, 5]);
    }
}
