//! No grass where suppressed cells (holes, noEffectDoodad) project to the
//! screen: probe points inside those cells, far enough from any cell that
//! may hold grass that no clump rooted there can reach their pixel (the view
//! ray is marched while it is low enough for a clump to touch it), must stay
//! background. A negative control plants one clump in such a cell and checks
//! that the probes see it.

use glam::{Mat4, Vec3};
use sward_engine::gpu_or_skip;
use sward_scenes::world::coords::{CellCoord, UNIT_SIZE};

use super::*;

/// A world point inside a suppressed cell, far enough from the cell border
/// that no clump rooted outside the cell can cover its pixel.
pub(crate) struct Probe {
    pub(crate) point: Vec3,
    pub(crate) what: String,
}

/// Suppressed cells (holes, noEffectDoodad) of the MCNK with the most of
/// them among MCNKs that have grass, and a top-down camera above it.
pub(crate) fn suppressed_probes(scene: &Scene) -> (Camera, Vec<Probe>) {
    let world = scene.world();
    let mut grass_per_chunk = std::collections::HashMap::new();
    for g in &scene.placements().groups {
        *grass_per_chunk.entry(g.chunk).or_insert(0u32) += g.count;
    }
    let suppressed = |m: &sward_scenes::Mcnk, r, c| {
        m.header.is_hole(r, c) || m.header.no_effect_doodad.is_set(r, c)
    };
    let (chunk, mcnk) = world
        .mcnks()
        .max_by_key(|(c, m)| {
            // Many suppressed cells with much grass around them.
            let n = (0..64).filter(|i| suppressed(m, i / 8, i % 8)).count() as u32;
            (
                n.min(12) * grass_per_chunk.get(c).copied().unwrap_or(0),
                (c.x, c.y),
            )
        })
        .expect("seams-holes has grass");
    let pos = mcnk.header.position;
    let centre = [
        pos[0] as f64 - 4.0 * UNIT_SIZE,
        pos[1] as f64 - 4.0 * UNIT_SIZE,
    ];
    let mut zmax = f32::MIN;
    for i in 0..=16 {
        for j in 0..=16 {
            let (x, y) = (
                pos[0] as f64 - i as f64 * UNIT_SIZE * 0.5,
                pos[1] as f64 - j as f64 * UNIT_SIZE * 0.5,
            );
            if let Some(z) = world.height_at(x - 1e-3, y - 1e-3) {
                zmax = zmax.max(z);
            }
        }
    }
    // Oblique (vertical blades are invisible from straight above), narrow
    // field of view so a pixel is small on the ground.
    let (fov_y_deg, pitch_deg, distance) = (35.0f32, -55.0f32, 60.0f32);
    let mut camera = Camera {
        yaw_deg: 0.0,
        pitch_deg,
        fov_y_deg,
        near: 0.5,
        ..Camera::default()
    };
    let target = Vec3::new(
        centre[0] as f32,
        centre[1] as f32,
        world.height_at(centre[0], centre[1]).unwrap_or(zmax),
    );
    camera.eye = target - camera.forward() * distance;
    let eye = camera.eye;

    // Reach of any clump (placement scale <= 1.1): horizontal radius and top.
    let reach = scene
        .models
        .iter()
        .map(|m| {
            let x = m.bounds.min[0].abs().max(m.bounds.max[0].abs());
            let y = m.bounds.min[1].abs().max(m.bounds.max[1].abs());
            x.hypot(y)
        })
        .fold(0.0f32, f32::max)
        * 1.1;
    let tall = scene
        .models
        .iter()
        .map(|m| m.bounds.max[2])
        .fold(0.0f32, f32::max)
        * 1.1;
    let pixel = 2.0 * distance * (fov_y_deg * 0.5).to_radians().tan() / H as f32;
    // Distance from (x, y) to the nearest cell that may hold grass (cells
    // outside this MCNK count as grass).
    let free_distance = |x: f64, y: f64| -> f32 {
        let mut best = f64::MAX;
        for r in -1i32..=8 {
            for c in -1i32..=8 {
                let inside = (0..8).contains(&r) && (0..8).contains(&c);
                if inside && suppressed(mcnk, r as u32, c as u32) {
                    continue;
                }
                let x_max = pos[0] as f64 - r as f64 * UNIT_SIZE;
                let y_max = pos[1] as f64 - c as f64 * UNIT_SIZE;
                let dx = (x_max - UNIT_SIZE - x).max(x - x_max).max(0.0);
                let dy = (y_max - UNIT_SIZE - y).max(y - y_max).max(0.0);
                best = best.min(dx.hypot(dy));
            }
        }
        best as f32
    };
    let mut probes = Vec::new();
    for r in 0..8 {
        for c in 0..8 {
            if !suppressed(mcnk, r, c) {
                continue;
            }
            let what = format!(
                "MCNK ({}, {}) cell ({r}, {c}) {}",
                chunk.x,
                chunk.y,
                if mcnk.header.is_hole(r, c) {
                    "hole"
                } else {
                    "noEffectDoodad"
                }
            );
            let [x0, x1, y0, y1] = CellCoord { row: r, col: c }.rect(pos);
            for i in 0..8 {
                for j in 0..8 {
                    let x = x0 + (i as f64 + 0.5) / 8.0 * (x1 - x0);
                    let y = y0 + (j as f64 + 0.5) / 8.0 * (y1 - y0);
                    let Some(z) = world.height_at(x, y) else {
                        continue;
                    };
                    let p = Vec3::new(x as f32, y as f32, z);
                    // March towards the eye while the ray is low enough for a
                    // clump to reach it: every step must be clear of grass cells.
                    let dir = (eye - p).normalize();
                    let mut clear = free_distance(x, y) > reach + 3.0 * pixel;
                    let mut t = 0.0;
                    while clear && p.z + dir.z * t < zmax + tall {
                        t += 0.1;
                        let q = p + dir * t;
                        let ground = world.height_at(q.x as f64, q.y as f64).unwrap_or(zmax);
                        if q.z - ground <= tall {
                            clear = free_distance(q.x as f64, q.y as f64) > reach + 3.0 * pixel;
                        }
                    }
                    if clear {
                        probes.push(Probe {
                            point: p,
                            what: what.clone(),
                        });
                    }
                }
            }
        }
    }
    (camera, probes)
}

pub(crate) fn project(view_proj: Mat4, p: Vec3) -> Option<(u32, u32)> {
    let clip = view_proj * p.extend(1.0);
    if clip.w <= 0.0 {
        return None;
    }
    let ndc = clip.truncate() / clip.w;
    let x = (ndc.x * 0.5 + 0.5) * W as f32;
    let y = (0.5 - ndc.y * 0.5) * H as f32;
    ((0.0..W as f32).contains(&x) && (0.0..H as f32).contains(&y)).then_some((x as u32, y as u32))
}

/// Probe points with their pixel in a `W`x`H` image.
pub(crate) type OnScreen = Vec<(Probe, (u32, u32))>;

/// The top-down camera of [`suppressed_probes`] and the probe points it
/// sees.
pub(crate) fn probes_on_screen(scene: &Scene) -> (Camera, OnScreen) {
    let (camera, probes) = suppressed_probes(scene);
    let view_proj = camera.view_proj(W as f32 / H as f32);
    let on_screen = probes
        .into_iter()
        .filter_map(|p| project(view_proj, p.point).map(|px| (p, px)))
        .collect();
    (camera, on_screen)
}

/// The probes of `on_screen` that `image` shows grass on, each named with
/// its pixel.
pub(crate) fn covered(image: &image::RgbaImage, on_screen: &OnScreen) -> Vec<String> {
    on_screen
        .iter()
        .filter(|(_, (x, y))| is_grass(image.get_pixel(*x, *y)))
        .map(|(p, px)| format!("{} at pixel {px:?}", p.what))
        .collect()
}

/// Asserts that `image`, drawn from the camera of [`probes_on_screen`],
/// shows grass around the suppressed cells and none on their probe points;
/// `what` (the tier and its sample count) opens every message.
pub(crate) fn assert_no_grass_over_probes(
    image: &image::RgbaImage,
    on_screen: &OnScreen,
    what: &str,
) {
    let frac = grass_fraction(image);
    assert!(frac > 0.005, "{what}: only {frac} grass around the cells");
    let bad = covered(image, on_screen);
    eprintln!(
        "{what}: grass {frac:.3}, {} probes in suppressed cells, {} covered",
        on_screen.len(),
        bad.len()
    );
    assert!(
        bad.is_empty(),
        "{what}: grass over suppressed cells: {bad:?}"
    );
}

#[test]
fn no_grass_over_holes_or_no_effect_cells() {
    gpu_or_skip!(gpu);
    let (scene, models) = scene_and_models(gpu);
    let (camera, on_screen) = probes_on_screen(scene);
    assert!(
        on_screen.len() >= 20,
        "only {} probe points in suppressed cells",
        on_screen.len()
    );
    for mut tier in tiers(gpu, &models, scene) {
        for samples in [4, 1] {
            let shot = render(
                gpu,
                &models,
                &mut tier,
                &view(camera, samples, settings(), 0.5),
                1,
            );
            save(
                &shot.image,
                &format!("topdown-{}-msaa{samples}", tier.name()),
            );
            let what = format!("{} {samples}x", tier.name());
            assert_no_grass_over_probes(&shot.image, &on_screen, &what);
        }
    }
}

#[test]
fn a_clump_planted_in_a_suppressed_cell_is_caught() {
    gpu_or_skip!(gpu);
    let (scene, models) = scene_and_models(gpu);
    let (camera, on_screen) = probes_on_screen(scene);
    let (planted, _) = on_screen
        .get(on_screen.len() / 2)
        .expect("probe points on screen");
    // The densest grass model, standing on the probe point.
    let mut placements = (**scene.placements()).clone();
    let model = (0..models.len())
        .max_by_key(|&m| models.models[m].triangles)
        .unwrap_or(0);
    let chunk = placements.groups[0].chunk;
    placements.items.push(sward_scenes::Placement {
        position: planted.point.to_array(),
        yaw: 0.3,
        scale: 1.1,
        seed: 1,
    });
    placements
        .groups
        .push(sward_scenes::placement::PlacementGroup {
            chunk,
            model: model as u16,
            start: placements.items.len() as u32 - 1,
            count: 1,
        });
    let mut tier = Tier::Static(StaticBatch::new(gpu, &models, &placements).unwrap());
    let shot = render(
        gpu,
        &models,
        &mut tier,
        &view(camera, 4, settings(), 0.5),
        1,
    );
    save(&shot.image, "topdown-planted");
    assert!(
        !covered(&shot.image, &on_screen).is_empty(),
        "a clump standing in {} went unnoticed",
        planted.what
    );
}
