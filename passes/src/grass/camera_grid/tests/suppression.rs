//! Suppression: no generated blade in a hole, a noEffectDoodad cell or
//! outside the resident window (checked on the probe's blades against the
//! world data), and no grass pixel where such cells project to the screen
//! (the grass baseline's probe points, seams-holes).

use sward_engine::gpu_or_skip;
use sward_scenes::world::coords::{locate, UNIT_SIZE};

use super::*;
use crate::grass::camera_grid::blade::{candidate_key, salt, stream};
use crate::grass::tests::suppressed::{assert_no_grass_over_probes, probes_on_screen};
use crate::grass::tests::{scene as seams, H, W};
use sward_scenes::world::ChunkCoord;

#[test]
fn no_blade_in_suppressed_cells_or_outside_the_window() {
    gpu_or_skip!(gpu);
    let scene = seams();
    let world = scene.world();
    let models = GrassModels::new(gpu, &scene.models).unwrap();
    let grid = build_grid(gpu, &models, scene);
    // One camera in the middle, one near a corner of the window so that a
    // good part of the grid lies outside it.
    let window = grid.resources().control.window;
    let corner = glam::Vec3::new(
        (sward_scenes::world::coords::ORIGIN - f64::from(window.origin[1]) * 8.0 * UNIT_SIZE - 60.0)
            as f32,
        (sward_scenes::world::coords::ORIGIN - f64::from(window.origin[0]) * 8.0 * UNIT_SIZE - 60.0)
            as f32,
        100.0,
    );
    let middle = camera_at(scene, "ground-yaw0").eye;
    let (mut drawn, mut outside, mut near_suppressed) = (0, 0, 0);
    for eye in [middle, corner] {
        let camera = Camera {
            eye,
            ..Camera::default()
        };
        let u = grid.uniform(
            &FrameView::new(camera, [64, 64], 1, 0.0, settings()),
            models.len(),
        );
        for p in probe(gpu, &grid, &u) {
            let b = p.blade;
            if b.status == Status::Outside {
                outside += 1;
            }
            if b.status != Status::Drawn {
                continue;
            }
            drawn += 1;
            let (x, y) = (f64::from(b.root[0]), f64::from(b.root[1]));
            let loc = locate(x, y).expect("blade inside the world");
            // Skip roots within float noise of a cell border.
            if [loc.u, loc.v].iter().any(|t| *t < 2e-3 || *t > 1.0 - 2e-3) {
                continue;
            }
            let Some(m) = world.mcnk(loc.chunk) else {
                panic!("blade at ({x}, {y}) outside the resident window");
            };
            let (r, c) = (loc.cell.row, loc.cell.col);
            assert!(!m.header.is_hole(r, c), "blade in a hole at ({x}, {y})");
            assert!(
                !m.header.no_effect_doodad.is_set(r, c),
                "blade in a noEffectDoodad cell at ({x}, {y})"
            );
            // Blades next to suppressed cells: the check is not vacuous.
            let neighbour_suppressed = (r > 0 && m.header.is_hole(r - 1, c))
                || (c > 0 && m.header.no_effect_doodad.is_set(r, c - 1));
            near_suppressed += usize::from(neighbour_suppressed);
            // The root sits on the exact terrain.
            let z = world.height_at(x, y).unwrap();
            assert!(
                (z - b.root[2]).abs() < 0.02,
                "root z {} vs terrain {z}",
                b.root[2]
            );
        }
    }
    eprintln!(
        "{drawn} blades, {outside} candidates outside, {near_suppressed} next to suppressed cells"
    );
    assert!(drawn > 10_000 && outside > 10_000 && near_suppressed > 50);
}

#[test]
fn no_grid_grass_over_holes_or_no_effect_cells() {
    gpu_or_skip!(gpu);
    let (scene, models) = crate::grass::tests::scene_and_models(gpu);
    let (camera, on_screen) = probes_on_screen(scene);
    assert!(on_screen.len() >= 20, "only {} probes", on_screen.len());
    let mut grid = build_grid(gpu, &models, scene);
    for samples in [4, 1] {
        let view = FrameView::new(camera, [W, H], samples, 0.5, settings());
        let (image, _) = render(gpu, &models, &mut grid, &view);
        crate::grass::tests::save(&image, &format!("grid-topdown-msaa{samples}"));
        assert_no_grass_over_probes(&image, &on_screen, &format!("camera-grid {samples}x"));
    }
}

#[test]
fn unloading_an_mcnk_clears_its_blades_and_reloading_restores_them() {
    gpu_or_skip!(gpu);
    let scene = seams();
    let world = scene.world();
    let models = GrassModels::new(gpu, &scene.models).unwrap();
    let mut grid = build_grid(gpu, &models, scene);
    let camera = camera_at(scene, "ground-yaw0");
    let u = grid.uniform(
        &FrameView::new(camera, [64, 64], 1, 0.0, settings()),
        models.len(),
    );
    // The MCNK of a candidate, from the same f32 slot maths as the shader.
    let chunk_of = |p: &Probed| {
        let (i, j, k) = p.slot;
        let key = candidate_key(i, j, k);
        let x = (i as f32 + stream(key, salt::JITTER_X)) * u.spacing_cells;
        let y = (j as f32 + stream(key, salt::JITTER_Y)) * u.spacing_cells;
        Some(ChunkCoord {
            x: (x.floor() as u32) / 8,
            y: (y.floor() as u32) / 8,
        })
    };
    let before = probe(gpu, &grid, &u);
    // The MCNK under the camera's slot with the most blades.
    let mut per_chunk = std::collections::HashMap::new();
    for p in before.iter().filter(|p| p.blade.status == Status::Drawn) {
        if let Some(c) = chunk_of(p) {
            *per_chunk.entry(c).or_insert(0u32) += 1;
        }
    }
    let (&chunk, &count) = per_chunk
        .iter()
        .max_by_key(|(c, n)| (**n, c.x, c.y))
        .unwrap();
    assert!(count > 20, "{count} blades in the busiest MCNK");
    let (effects, policy) = (&scene.resolved, scene.policy());
    assert!(grid
        .resources_mut()
        .update_chunk(&gpu.queue, chunk, None, effects, policy));
    let unloaded = probe(gpu, &grid, &u);
    for (a, b) in before.iter().zip(&unloaded) {
        let inside = chunk_of(a) == Some(chunk);
        if inside && a.blade.status == Status::Drawn {
            assert_ne!(
                b.blade.status,
                Status::Drawn,
                "blade left in the unloaded MCNK"
            );
        } else if !inside {
            assert_eq!(a, b, "a blade outside the unloaded MCNK changed");
        }
    }
    let mcnk = world.mcnk(chunk).unwrap();
    assert!(grid
        .resources_mut()
        .update_chunk(&gpu.queue, chunk, Some(mcnk), effects, policy));
    assert_eq!(
        probe(gpu, &grid, &u),
        before,
        "reloading did not restore the blades"
    );
}
