//! The CPU reference transform of a placement ([`instance_matrix`]), the
//! per-placement model lookup shared by both tiers ([`placement_models`]) and
//! the conservative culling sphere of an instance ([`cull_sphere`]).
//!
//! A placement becomes the column-major mat4 `T(position) * Rz(yaw) * S(scale)`:
//! model space is Z-up with the root at the origin, so the root lands on the
//! exact terrain height stored in the placement.

use glam::{Mat4, Quat, Vec3};
use sward_scenes::Placement;
use sward_scenes::Placements;

use crate::error::PassError;

/// Bytes of one instance (a column-major `mat4x4<f32>`).
pub const INSTANCE_BYTES: u64 = 64;

/// The world transform of `p`: translate to its position, rotate by its yaw
/// about +Z, scale uniformly.
pub fn instance_matrix(p: &Placement) -> Mat4 {
    Mat4::from_scale_rotation_translation(
        Vec3::splat(p.scale),
        Quat::from_rotation_z(p.yaw),
        Vec3::from_array(p.position),
    )
}

/// The model index of every placement of `placements`, in item order,
/// checking each group against `model_count` and the item range.
pub fn placement_models(
    placements: &Placements,
    model_count: usize,
) -> Result<Vec<u16>, PassError> {
    let mut models = vec![u16::MAX; placements.items.len()];
    for (i, g) in placements.groups.iter().enumerate() {
        let what = || format!("placement group {i} (MCNK {}, {})", g.chunk.x, g.chunk.y);
        if g.model as usize >= model_count {
            return Err(PassError::InvalidInput {
                technique: "grass",
                what: what(),
                reason: format!("model {} but only {model_count} models are loaded", g.model),
            });
        }
        let Some(slots) = models.get_mut(g.range()) else {
            return Err(PassError::InvalidInput {
                technique: "grass",
                what: what(),
                reason: format!(
                    "items {:?} outside the {} placements",
                    g.range(),
                    placements.items.len()
                ),
            });
        };
        slots.fill(g.model);
    }
    if let Some(i) = models.iter().position(|&m| m == u16::MAX) {
        return Err(PassError::InvalidInput {
            technique: "grass",
            what: format!("placement {i}"),
            reason: "belongs to no placement group".into(),
        });
    }
    Ok(models)
}

/// Culling sphere of an instance of a model whose bounds reach `model_radius`
/// from its origin, swaying at most `sway` units: centred on the placement,
/// radius scaled by the placement scale plus the sway.
pub fn cull_sphere(p: &Placement, model_radius: f32, sway: f32) -> (Vec3, f32) {
    (Vec3::from_array(p.position), model_radius * p.scale + sway)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sward_scenes::placement::PlacementGroup;
    use sward_scenes::ChunkCoord;

    fn placement(x: f32, yaw: f32, scale: f32) -> Placement {
        Placement {
            position: [x, -20.0, 31.5],
            yaw,
            scale,
            seed: 7,
        }
    }

    #[test]
    fn matrix_places_rotates_and_scales_model_vertices() {
        let p = placement(-8500.25, 0.7, 1.08);
        let m = instance_matrix(&p);
        for v in [[0.3f32, -0.1, 0.45], [0.0, 0.0, 0.0], [-0.2, 0.25, 1.5]] {
            // Independent reference: rotate about Z by hand, scale, translate.
            let (s, c) = p.yaw.sin_cos();
            let expect = [
                p.position[0] + p.scale * (c * v[0] - s * v[1]),
                p.position[1] + p.scale * (s * v[0] + c * v[1]),
                p.position[2] + p.scale * v[2],
            ];
            let got = m.transform_point3(Vec3::from_array(v));
            for k in 0..3 {
                assert!(
                    (got[k] - expect[k]).abs() < 2e-3,
                    "{v:?}: {got} vs {expect:?}"
                );
            }
        }
        // Column 3 is the root position (what the shader fades and phases by).
        assert_eq!(m.w_axis.truncate(), Vec3::from_array(p.position));
    }

    fn group(model: u16, start: u32, count: u32) -> PlacementGroup {
        PlacementGroup {
            chunk: ChunkCoord { x: 512, y: 770 },
            model,
            start,
            count,
        }
    }

    #[test]
    fn models_come_from_groups_and_bad_groups_are_named() {
        let items = vec![placement(0.0, 0.0, 1.0); 5];
        let ok = Placements {
            items: items.clone(),
            groups: vec![group(2, 0, 3), group(0, 3, 2)],
        };
        assert_eq!(placement_models(&ok, 3).unwrap(), vec![2, 2, 2, 0, 0]);
        let bad_model = Placements {
            items: items.clone(),
            groups: vec![group(9, 0, 5)],
        };
        let err = placement_models(&bad_model, 3).unwrap_err().to_string();
        assert!(
            err.contains("MCNK 512, 770") && err.contains("model 9"),
            "{err}"
        );
        let bad_range = Placements {
            items: items.clone(),
            groups: vec![group(0, 3, 7)],
        };
        assert!(placement_models(&bad_range, 3).is_err());
        let orphan = Placements {
            items,
            groups: vec![group(0, 0, 4)],
        };
        assert!(placement_models(&orphan, 3)
            .unwrap_err()
            .to_string()
            .contains("placement 4"));
    }
}
