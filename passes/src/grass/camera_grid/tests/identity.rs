//! Model and material identity: the grid's per-model mix follows the
//! authoritative per-cell placement, every model is drawn with its own
//! texture, and the direct and compacted modes draw the same picture.

use sward_engine::gpu_or_skip;
use sward_engine::GpuContext;
use sward_scenes::world::coords::world_to_grid;
use sward_scenes::DetailModel;

use super::*;
use crate::grass::camera_grid::GridMode;
use crate::grass::material::{RENDER_FLAG_TWO_SIDED, RENDER_FLAG_UNFOGGED, RENDER_FLAG_UNLIT};

#[test]
fn model_shares_follow_the_per_cell_policy() {
    gpu_or_skip!(gpu);
    let scene = elwynn();
    let models = GrassModels::new(gpu, &scene.models).unwrap();
    let grid = build_grid(gpu, &models, scene);
    let camera = camera_at(scene, "ground-yaw0");
    let u = grid.uniform(
        &FrameView::new(camera, [64, 64], 1, 0.0, settings()),
        models.len(),
    );
    let n = models.len();
    let mut grid_counts = vec![0u64; n];
    for p in probe(gpu, &grid, &u) {
        if p.blade.status == Status::Drawn {
            grid_counts[p.blade.model as usize] += 1;
        }
    }
    // Authoritative placements inside the same square of the slot frame.
    let s = f64::from(u.spacing_cells);
    let half = i64::from(u.side / 2);
    let lo = [
        (i64::from(u.camera_slot[0]) - half) as f64 * s,
        (i64::from(u.camera_slot[1]) - half) as f64 * s,
    ];
    let hi = [lo[0] + f64::from(u.side) * s, lo[1] + f64::from(u.side) * s];
    let mut auth = vec![0u64; n];
    for g in &scene.placements().groups {
        for p in scene.placements().group_items(g) {
            let (gx, gy) = world_to_grid(f64::from(p.position[0]), f64::from(p.position[1]));
            if gx >= lo[0] && gx < hi[0] && gy >= lo[1] && gy < hi[1] {
                auth[g.model as usize] += 1;
            }
        }
    }
    let (gt, at) = (
        grid_counts.iter().sum::<u64>() as f64,
        auth.iter().sum::<u64>() as f64,
    );
    eprintln!("blades {gt} vs placements {at}");
    assert!(at > 20_000.0, "too few placements in the square: {at}");
    assert!(
        (gt - at).abs() / at < 0.03,
        "blades {gt} vs placements {at}"
    );
    for m in 0..n {
        let (g, a) = (grid_counts[m] as f64 / gt, auth[m] as f64 / at);
        eprintln!("{:>10}: grid {g:.4} placement {a:.4}", scene.models[m].name);
        assert!(
            (g - a).abs() < 0.006 + 0.05 * a,
            "model {m} ({}): grid share {g:.4} vs placement {a:.4}",
            scene.models[m].name
        );
    }
}

/// Fourteen well separated, saturated colours.
fn palette(n: usize) -> Vec<[u8; 3]> {
    (0..n)
        .map(|i| {
            let h = i as f32 / n as f32 * 6.0;
            let x = 1.0 - (h % 2.0 - 1.0).abs();
            let (r, g, b) = match h as u32 {
                0 => (1.0, x, 0.0),
                1 => (x, 1.0, 0.0),
                2 => (0.0, 1.0, x),
                3 => (0.0, x, 1.0),
                4 => (x, 0.0, 1.0),
                _ => (1.0, 0.0, x),
            };
            let v = if i % 2 == 0 { 1.0 } else { 0.6 };
            [
                (r * v * 255.0) as u8,
                (g * v * 255.0) as u8,
                (b * v * 255.0) as u8,
            ]
        })
        .collect()
}

/// The models with solid, unlit, unfogged textures of `colors` (alpha kept).
fn coloured(models: &[DetailModel], colors: &[[u8; 3]]) -> Vec<DetailModel> {
    models
        .iter()
        .zip(colors)
        .map(|(m, c)| {
            let mut m = m.clone();
            let mut mips = m.texture.decode_rgba().expect("texture decodes");
            for level in &mut mips {
                for px in level.chunks_exact_mut(4) {
                    px[..3].copy_from_slice(c);
                }
            }
            m.texture.pixels = sward_scenes::TexturePixels::Rgba8(mips);
            m.render_flags = RENDER_FLAG_TWO_SIDED | RENDER_FLAG_UNLIT | RENDER_FLAG_UNFOGGED;
            m
        })
        .collect()
}

fn colour_census(image: &image::RgbaImage, colors: &[[u8; 3]]) -> (Vec<u64>, u64, u64) {
    let (mut per, mut lit, mut other) = (vec![0u64; colors.len()], 0, 0);
    for p in image.pixels() {
        if p[0].max(p[1]).max(p[2]) <= 12 {
            continue;
        }
        lit += 1;
        let hit = colors
            .iter()
            .position(|c| (0..3).all(|k| c[k].abs_diff(p[k]) <= 3));
        match hit {
            Some(m) => per[m] += 1,
            None => other += 1,
        }
    }
    (per, lit, other)
}

/// A camera looking down at the spot of the window where the rarest model
/// is most common within 30 units (found with the CPU mirror), so that one
/// frame shows every model.
fn colourful_spot(gpu: &GpuContext, models: &GrassModels, scene: &sward_scenes::Scene) -> Camera {
    use crate::grass::camera_grid::blade::grid_blade;
    use sward_scenes::world::coords::CHUNK_SIZE;
    let grid = small_grid(gpu, models, scene, 3, GridMode::Compact);
    let world = scene.world();
    let probe_view = FrameView::new(Camera::default(), [8, 8], 1, 0.0, settings());
    let u = grid.uniform(&probe_view, models.len());
    let inp = grid.blade_inputs(world, &u);
    let s = f64::from(u.spacing_cells);
    let reach = (30.0 / 2.5) as i32;
    let mut best = (0u64, [0.0f64; 2]);
    for (chunk, _) in world.mcnks().step_by(2) {
        let [ox, oy] = chunk.origin();
        let (cx, cy) = (ox - CHUNK_SIZE * 0.5, oy - CHUNK_SIZE * 0.5);
        let [ci, cj] = crate::grass::camera_grid::params::camera_slot(cx, cy, s);
        let mut per = vec![0u64; models.len()];
        for di in -reach..=reach {
            for dj in -reach..=reach {
                for k in 0..u.candidates {
                    let b = grid_blade(&inp, ci + di, cj + dj, k);
                    if b.status == Status::Drawn {
                        per[b.model as usize] += 1;
                    }
                }
            }
        }
        let rarest = per.iter().copied().min().unwrap_or(0);
        if rarest > best.0 {
            best = (rarest, [cx, cy]);
        }
    }
    assert!(best.0 > 0, "no spot shows every model");
    let [x, y] = best.1;
    let z = world.height_at(x, y).unwrap_or(0.0);
    let mut camera = Camera {
        yaw_deg: 0.0,
        pitch_deg: -60.0,
        ..Camera::default()
    };
    let target = glam::Vec3::new(x as f32, y as f32, z);
    camera.eye = target - camera.forward() * 55.0;
    camera
}

#[test]
fn each_model_draws_with_its_own_texture() {
    gpu_or_skip!(gpu);
    let scene = elwynn();
    let colors = palette(scene.models.len());
    let detail = coloured(&scene.models, &colors);
    let models = GrassModels::new(gpu, &detail).unwrap();
    let camera = colourful_spot(gpu, &models, scene);
    let view = FrameView::new(camera, [640, 400], 1, 0.0, settings());
    for mode in [GridMode::Compact, GridMode::Direct] {
        let mut grid = small_grid(gpu, &models, scene, 81, mode);
        let (image, report) = render(gpu, &models, &mut grid, &view);
        crate::grass::tests::save(&image, &format!("grid-colours-{}", mode.name()));
        let (per, lit, other) = colour_census(&image, &colors);
        eprintln!(
            "{}: {lit} grass pixels, {other} off-palette, per model {per:?}",
            mode.name()
        );
        assert!(lit > 5_000, "{} grass pixels", lit);
        // Unlit, unfogged, no MSAA: every grass pixel is one model's colour.
        assert!(
            other * 200 < lit,
            "{other} of {lit} pixels are no model's colour"
        );
        for (m, &count) in per.iter().enumerate() {
            assert!(
                count >= 3,
                "{}: model {m} ({}) shows in {count} pixels",
                mode.name(),
                scene.models[m].name
            );
        }
        let draw = report.pass("grass.draw").expect("grass.draw ran").counters;
        assert_eq!(draw.draw_calls, grid.grid_models().len() as u64);
        assert_eq!(grid.grid_models().len(), scene.models.len());
    }
}

#[test]
fn direct_and_compact_modes_draw_the_same_frame() {
    gpu_or_skip!(gpu);
    let (scene, models) = crate::grass::tests::scene_and_models(gpu);
    let view = ground_view(scene, [256, 160], 4);
    let mut compact = small_grid(gpu, &models, scene, 61, GridMode::Compact);
    let mut direct = small_grid(gpu, &models, scene, 61, GridMode::Direct);
    let (a, ra) = render(gpu, &models, &mut compact, &view);
    let (b, rb) = render(gpu, &models, &mut direct, &view);
    crate::grass::tests::save(&a, "grid-compact");
    crate::grass::tests::save(&b, "grid-direct");
    let frac = crate::grass::tests::grass_fraction(&a);
    let (rmse, differing) = crate::grass::tests::image_diff(&a, &b);
    eprintln!("grass {frac:.3}; compact vs direct rmse {rmse:.4}, differing {differing:.4}");
    assert!(frac > 0.05, "too little grass: {frac}");
    assert!(
        rmse < 0.01 && differing < 0.005,
        "modes disagree: {rmse} / {differing}"
    );
    // Compaction evaluates every candidate once; direct once per model draw.
    let total = u64::from(compact.candidates_total());
    let c = ra
        .pass(super::super::tier::PASS_COMPACT)
        .expect("compaction ran")
        .counters;
    assert_eq!(c.instances_submitted, total);
    let d = rb.pass("grass.draw").unwrap().counters;
    assert_eq!(
        d.instances_submitted,
        total * direct.grid_models().len() as u64
    );
    assert!(rb.pass(super::super::tier::PASS_COMPACT).is_none());
}

#[test]
fn compacted_counts_match_the_cpu_mirror() {
    gpu_or_skip!(gpu);
    let (scene, models) = crate::grass::tests::scene_and_models(gpu);
    let view = ground_view(scene, [128, 80], 1);
    let mut grid = build_grid(gpu, &models, scene);
    // The readback is copied on frame 1 and read two frames later.
    let (_, report) = render_frames(gpu, &models, &mut grid, &view, 6);
    let draw = report.pass("grass.draw").expect("grass.draw ran").counters;
    let facts = grid.facts(scene.world());
    let visible = facts["grid_blades_in_frustum"] as u64;
    let in_range = facts["grid_blades_in_range"] as u64;
    eprintln!(
        "drawn (GPU) {}, in frustum (CPU) {visible}, in range {in_range}",
        draw.instances_drawn
    );
    assert!(visible > 1_000 && visible < in_range);
    // Float noise on the frustum planes may flip a handful of borderline blades.
    assert!(
        draw.instances_drawn.abs_diff(visible) <= 3,
        "GPU compacted {} blades, the CPU mirror keeps {visible}",
        draw.instances_drawn
    );
    assert_eq!(draw.draw_calls, grid.grid_models().len() as u64);
}

#[test]
fn a_two_bone_model_is_drawn_by_the_instanced_fallback() {
    gpu_or_skip!(gpu);
    let scene = crate::grass::tests::scene();
    let colors = palette(scene.models.len());
    let mut detail = coloured(&scene.models, &colors);
    // The most placed model gets a second bone on its upper vertices.
    let counts = scene.placements().per_model_counts(detail.len());
    let (two, _) = counts.iter().enumerate().max_by_key(|(_, n)| **n).unwrap();
    let top = detail[two].bounds.max[2] * 0.5;
    detail[two].bones = 2;
    for v in &mut detail[two].vertices {
        v.bone = u32::from(v.position[2] > top);
    }
    let models = GrassModels::new(gpu, &detail).unwrap();
    let grid_scene = GridScene {
        models: &detail,
        ..grid_scene(scene)
    };
    let params = GridParams {
        side: 61,
        ..GridParams::default()
    };
    let mut grid = CameraGrid::new(gpu, &models, grid_scene, params).unwrap();
    assert_eq!(grid.fallback_models(), &[two]);
    assert!(!grid.grid_models().contains(&two));
    let view = ground_view(scene, [256, 160], 1);
    let (image, report) = render(gpu, &models, &mut grid, &view);
    crate::grass::tests::save(&image, "grid-fallback");
    let draw = report.pass("grass.draw").expect("grass.draw ran").counters;
    // One instanced batch of the authoritative placements plus the grid draws.
    assert_eq!(draw.draw_calls, grid.grid_models().len() as u64 + 1);
    assert!(draw.instances_submitted >= counts[two]);
    let (per, _, other) = colour_census(&image, &colors);
    assert!(other == 0, "{other} off-palette pixels");
    assert!(
        per[two] > 20,
        "the fallback model shows in {} pixels",
        per[two]
    );
}
