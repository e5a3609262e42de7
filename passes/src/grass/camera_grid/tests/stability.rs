//! The GPU generator equals its CPU mirror, and a world slot's blades do not
//! depend on where the camera is or which window is resident.

use std::collections::HashMap;

use glam::Vec3;
use sward_engine::gpu_or_skip;
use sward_scenes::world::coords::{tile_centre, TILE_SIZE, UNIT_SIZE};

use super::*;
use crate::grass::camera_grid::blade::grid_blade;
use crate::grass::camera_grid::params::instance_slot;

fn view_at(eye: Vec3) -> FrameView {
    let camera = Camera {
        eye,
        ..Camera::default()
    };
    FrameView::new(camera, [64, 64], 1, 0.0, settings())
}

#[test]
fn gpu_blades_match_the_cpu_mirror() {
    gpu_or_skip!(gpu);
    let (scene, models) = crate::grass::tests::scene_and_models(gpu);
    let grid = build_grid(gpu, &models, scene);
    let eye = camera_at(scene, "ground-yaw0").eye;
    let u = grid.uniform(&view_at(eye), models.len());
    let probed = probe(gpu, &grid, &u);
    let inp = grid.blade_inputs(scene.world(), &u);
    let (mut drawn, mut statuses) = (0, HashMap::new());
    let mut max_xy = 0.0f32;
    let mut max_z = 0.0f32;
    for (n, p) in probed.iter().enumerate() {
        let (i, j, k) = instance_slot(n as u32, u.camera_slot, u.side, u.candidates);
        assert_eq!(p.slot, (i, j, k));
        let cpu = grid_blade(&inp, i, j, k);
        let g = p.blade;
        *statuses.entry(g.status).or_insert(0) += 1;
        assert_eq!(
            (g.status, g.model, g.control, g.cell_index),
            (cpu.status, cpu.model, cpu.control, cpu.cell_index),
            "candidate {n} ({i}, {j}, {k})"
        );
        assert!((g.yaw - cpu.yaw).abs() < 1e-5 && (g.scale - cpu.scale).abs() < 1e-6);
        assert!((g.phase - cpu.phase).abs() < 1e-6);
        max_xy = max_xy
            .max((g.root[0] - cpu.root[0]).abs())
            .max((g.root[1] - cpu.root[1]).abs());
        if cpu.status != Status::Outside {
            max_z = max_z.max((g.root[2] - cpu.root[2]).abs());
        }
        drawn += usize::from(g.status == Status::Drawn);
    }
    eprintln!("statuses {statuses:?}; max |dxy| {max_xy}, max |dz| {max_z}");
    assert!(drawn > 5_000, "only {drawn} blades");
    assert!(max_xy < 4e-3 && max_z < 1e-3, "xy {max_xy} z {max_z}");
    for s in [Status::Suppressed, Status::Thinned] {
        assert!(
            statuses.get(&s).copied().unwrap_or(0) > 0,
            "no {s:?} candidates"
        );
    }
}

type Slots = HashMap<(i32, i32, u32), Blade>;

fn slots(probed: &[Probed]) -> Slots {
    probed
        .iter()
        .filter(|p| p.blade.status != Status::Outside)
        .map(|p| (p.slot, p.blade))
        .collect()
}

/// Every world slot present (resident) in both evaluations holds the same
/// blade, bit for bit; returns how many were compared and how many drawn.
fn compare(a: &Slots, b: &Slots, what: &str) -> (usize, usize) {
    let (mut common, mut drawn) = (0, 0);
    for (slot, x) in a {
        let Some(y) = b.get(slot) else {
            continue;
        };
        common += 1;
        drawn += usize::from(x.status == Status::Drawn);
        assert_eq!(x, y, "{what}: world slot {slot:?} changed");
    }
    (common, drawn)
}

#[test]
fn blades_are_stable_across_camera_moves() {
    gpu_or_skip!(gpu);
    let scene = elwynn();
    let models = GrassModels::new(gpu, &scene.models).unwrap();
    let grid = build_grid(gpu, &models, scene);
    let eye = camera_at(scene, "ground-yaw0").eye;
    let u0 = grid.uniform(&view_at(eye), models.len());
    let a = slots(&probe(gpu, &grid, &u0));
    // One terrain cell along each axis, and a sub-slot nudge.
    let unit = UNIT_SIZE as f32;
    for (dx, dy) in [(unit, 0.0), (0.0, -unit), (0.3, 0.2)] {
        let u1 = grid.uniform(&view_at(eye + Vec3::new(dx, dy, 0.0)), models.len());
        let b = slots(&probe(gpu, &grid, &u1));
        let (common, drawn) = compare(&a, &b, &format!("camera moved ({dx}, {dy})"));
        eprintln!(
            "camera ({dx}, {dy}): slot {:?} -> {:?}, {common} common candidates, {drawn} drawn",
            u0.camera_slot, u1.camera_slot
        );
        assert!(common > 50_000 && drawn > 10_000, "{common} / {drawn}");
    }
}

#[test]
fn blades_are_stable_across_a_window_slide() {
    gpu_or_skip!(gpu);
    let mut scene = crate::testkit::continent();
    let models = GrassModels::new(gpu, &scene.models).unwrap();
    // Camera 40 units inside the centre tile's -X border.
    let centre = scene.window.centre();
    let [cx, cy] = tile_centre(centre);
    let x = cx - TILE_SIZE * 0.5 + 40.0;
    let z = scene.world().height_at(x, cy).unwrap_or(0.0) + 2.0;
    let eye = Vec3::new(x as f32, cy as f32, z);
    let before = build_grid(gpu, &models, &scene);
    let u = before.uniform(&view_at(eye), models.len());
    let a = slots(&probe(gpu, &before, &u));
    // Step across the border: the window slides one tile.
    let slide = scene
        .follow(x - 80.0, cy)
        .unwrap()
        .expect("the window slides");
    assert!(!slide.loaded.is_empty() && slide.dropped > 0);
    let after = build_grid(gpu, &models, &scene);
    assert_ne!(
        before.resources().control.window.origin,
        after.resources().control.window.origin
    );
    let b = slots(&probe(
        gpu,
        &after,
        &after.uniform(&view_at(eye), models.len()),
    ));
    let (common, drawn) = compare(&a, &b, "window slide, same camera");
    eprintln!("window slide: {common} common resident candidates, {drawn} drawn");
    assert!(common > 20_000 && drawn > 5_000, "{common} / {drawn}");
    // Both windows together cover the whole grid here: nothing is lost.
    let union: std::collections::HashSet<_> = a.keys().chain(b.keys()).collect();
    assert_eq!(union.len() as u32, u.side * u.side * u.candidates);
    // And after the camera followed.
    let moved = eye + Vec3::new(-80.0, 0.0, 0.0);
    let c = slots(&probe(
        gpu,
        &after,
        &after.uniform(&view_at(moved), models.len()),
    ));
    let (common, _) = compare(&a, &c, "window slide, camera moved");
    assert!(common > 20_000, "{common}");
}
