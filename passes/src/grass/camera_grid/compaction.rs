//! CPU reference of `camera-grid`'s compaction
//! (`grass_camera_grid_compact.wgsl`): which candidates a frame keeps
//! ([`kept`]: drawn, within the draw distance, and in the frustum with the
//! conservative sphere), and how the models' regions of the compacted list
//! are laid out from the per-model counts ([`regions`]: an exclusive prefix
//! sum clamped to the list's capacity, the excess counted as overflow).
//!
//! The list holds one record per kept blade, the regions one after another
//! in model order, so its size is bounded by the candidates evaluated, not
//! by models x candidates; the GPU tests compare the GPU's counts, offsets,
//! overflow and each region's records with these.

use super::blade::{grid_blade, Blade, BladeInputs, Status};
use super::gpu::GridUniform;
use super::params::instance_slot;

/// Where each model's records go in the compacted list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Regions {
    /// First record of each model's region.
    pub offsets: Vec<u32>,
    /// Records of each model drawn (its count, less what found no room).
    pub kept: Vec<u32>,
    /// Blades counted that the list had no room for.
    pub overflow: u32,
}

/// The regions of models with `counts` kept blades in a list of
/// `capacity` records (WGSL `offsets`).
pub fn regions(counts: &[u32], capacity: u32) -> Regions {
    let mut offsets = Vec::with_capacity(counts.len());
    let mut kept = Vec::with_capacity(counts.len());
    let mut offset = 0u32;
    for &count in counts {
        offsets.push(offset);
        kept.push(count.min(capacity.saturating_sub(offset)));
        offset += count;
    }
    Regions {
        offsets,
        kept,
        overflow: offset.saturating_sub(capacity),
    }
}

/// Whether the compaction keeps blade `b` under `u` (WGSL `grid_visible`
/// after the drawn test).
pub fn visible(u: &GridUniform, b: &Blade) -> bool {
    let eye = glam::Vec3::new(u.eye.x, u.eye.y, u.eye.z);
    let root = glam::Vec3::from_array(b.root);
    if root.distance(eye) >= u.eye.w {
        return false;
    }
    if u.frustum_cull == 0 {
        return true;
    }
    let frustum = sward_engine::Frustum { planes: u.frustum };
    frustum.sphere_visible(root, u.bounds.x * b.scale + u.bounds.y)
}

/// What the CPU mirror makes of every candidate under `u`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Census {
    /// Candidates that are blades (drawn status).
    pub generated: u64,
    /// Of those, within the draw distance.
    pub in_range: u64,
    /// Of those, kept by the frustum test too (the compaction's count).
    pub kept: u64,
    /// Kept blades per model (`model_count` entries).
    pub per_model: Vec<u32>,
}

/// The candidates of `u` the compaction keeps, in instance order, with
/// their blades.
pub fn kept(inputs: &BladeInputs<'_>, u: &GridUniform) -> Vec<(u32, Blade)> {
    let total = u.side * u.side * u.candidates;
    (0..total)
        .filter_map(|n| {
            let (i, j, k) = instance_slot(n, u.camera_slot, u.side, u.candidates);
            let b = grid_blade(inputs, i, j, k);
            (b.status == Status::Drawn && visible(u, &b)).then_some((n, b))
        })
        .collect()
}

/// Counts of the CPU mirror's blades under `u`: generated, in range, kept,
/// and kept per model.
pub fn census(inputs: &BladeInputs<'_>, u: &GridUniform) -> Census {
    let total = u.side * u.side * u.candidates;
    let eye = glam::Vec3::new(u.eye.x, u.eye.y, u.eye.z);
    let mut c = Census {
        per_model: vec![0; u.model_count as usize],
        ..Census::default()
    };
    for n in 0..total {
        let (i, j, k) = instance_slot(n, u.camera_slot, u.side, u.candidates);
        let b = grid_blade(inputs, i, j, k);
        if b.status != Status::Drawn {
            continue;
        }
        c.generated += 1;
        if glam::Vec3::from_array(b.root).distance(eye) >= u.eye.w {
            continue;
        }
        c.in_range += 1;
        if visible(u, &b) {
            c.kept += 1;
            if let Some(m) = c.per_model.get_mut(b.model as usize) {
                *m += 1;
            }
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_follow_one_another_and_clamp_at_the_capacity() {
        assert_eq!(
            regions(&[3, 0, 5, 2], 100),
            Regions {
                offsets: vec![0, 3, 3, 8],
                kept: vec![3, 0, 5, 2],
                overflow: 0
            }
        );
        // Capacity 6: model 2 keeps 3 of its 5, model 3 none.
        assert_eq!(
            regions(&[3, 0, 5, 2], 6),
            Regions {
                offsets: vec![0, 3, 3, 8],
                kept: vec![3, 0, 3, 0],
                overflow: 4
            }
        );
        assert_eq!(regions(&[], 0).overflow, 0);
        assert_eq!(regions(&[7], 0).kept, vec![0]);
    }
}
