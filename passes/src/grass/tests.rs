//! GPU tests of the instanced grass tiers on the `seams-holes` preset: both
//! tiers show grass, none where hole or noEffectDoodad cells project to the
//! screen, `legacy-cpu` and `static-batch` images agree, static-batch uploads
//! only its uniforms, and the instance buffers hold the reference matrices.
//! Small targets (256x160), terrain off, black fog/clear so every lit pixel
//! is grass. Images go to `target/grass-tests/` for inspection.

use std::sync::OnceLock;

use glam::{Mat4, Vec3};
use sward_engine::graph::{FrameReport, GraphExecutor, RenderGraph};
use sward_engine::{Camera, GpuContext, OffscreenTarget};
use sward_scenes::world::coords::{CellCoord, UNIT_SIZE};
use sward_scenes::{Preset, Scene};

use super::gpu::GRASS_FRAME_BYTES;
use super::instance::{instance_matrix, INSTANCE_BYTES};
use super::{GrassModels, LegacyCpu, StaticBatch};
use crate::frame::{FrameView, PassTargets, RenderSettings};

const W: u32 = 256;
const H: u32 = 160;

fn scene() -> &'static Scene {
    static SCENE: OnceLock<Scene> = OnceLock::new();
    SCENE.get_or_init(|| {
        Preset::by_name("seams-holes")
            .and_then(|p| p.build())
            .expect("seams-holes builds")
    })
}

/// Black fog (also the clear colour), wind off: every non-black pixel is grass.
fn settings() -> RenderSettings {
    RenderSettings {
        wind: false,
        fog_color: [0.0, 0.0, 0.0],
        ..RenderSettings::default()
    }
}

enum Tier {
    Static(StaticBatch),
    Legacy(LegacyCpu),
}

impl Tier {
    fn name(&self) -> &'static str {
        match self {
            Tier::Static(_) => "static-batch",
            Tier::Legacy(_) => "legacy-cpu",
        }
    }
}

struct Shot {
    image: image::RgbaImage,
    report: FrameReport,
}

fn render(
    gpu: &GpuContext,
    models: &GrassModels,
    tier: &mut Tier,
    camera: Camera,
    samples: u32,
    frames: u32,
) -> Shot {
    let target = OffscreenTarget::new(&gpu.device, W, H, samples).unwrap();
    let mut executor = GraphExecutor::new(gpu).unwrap();
    let view = FrameView::new(camera, [W, H], samples, 0.5, settings());
    let mut report = None;
    for _ in 0..frames.max(1) {
        let mut g = RenderGraph::new();
        let targets = PassTargets {
            color: g.import_texture("target.color", target.render_color()),
            resolve: target
                .resolve_color()
                .map(|t| g.import_texture("target.resolve", t)),
            depth: g.import_texture("target.depth", &target.depth),
            clear: true,
        };
        match tier {
            Tier::Static(t) => t.record(gpu, &mut g, &view, targets, models),
            Tier::Legacy(t) => t.record(gpu, &mut g, &view, targets, models),
        }
        report = Some(executor.execute(gpu, g).unwrap());
    }
    let image = target.read_color(&gpu.device, &gpu.queue).unwrap();
    Shot {
        image,
        report: report.unwrap(),
    }
}

fn save(image: &image::RgbaImage, name: &str) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/grass-tests");
    let _ = sward_engine::targets::write_png(image, &dir.join(format!("{name}.png")));
}

fn is_grass(p: &image::Rgba<u8>) -> bool {
    p[0].max(p[1]).max(p[2]) > 12
}

fn grass_fraction(image: &image::RgbaImage) -> f64 {
    image.pixels().filter(|p| is_grass(p)).count() as f64 / f64::from(W * H)
}

/// (rmse over RGB in 0..1, fraction of pixels differing by more than 8/255).
fn image_diff(a: &image::RgbaImage, b: &image::RgbaImage) -> (f64, f64) {
    let (mut sq, mut differing) = (0.0f64, 0usize);
    for (pa, pb) in a.pixels().zip(b.pixels()) {
        let mut max = 0;
        for c in 0..3 {
            let d = (f64::from(pa[c]) - f64::from(pb[c])) / 255.0;
            sq += d * d;
            max = max.max(pa[c].abs_diff(pb[c]));
        }
        differing += usize::from(max > 8);
    }
    let n = f64::from(W * H);
    ((sq / (3.0 * n)).sqrt(), differing as f64 / n)
}

fn ground_camera(scene: &Scene) -> Camera {
    let v = scene
        .view("ground-yaw0")
        .expect("seams-holes has ground-yaw0");
    Camera {
        eye: Vec3::from_array(v.eye),
        yaw_deg: v.yaw_deg,
        pitch_deg: v.pitch_deg,
        ..Camera::default()
    }
}

fn tiers(gpu: &GpuContext, models: &GrassModels, scene: &Scene) -> [Tier; 2] {
    [
        Tier::Static(StaticBatch::new(gpu, models, &scene.placements).unwrap()),
        Tier::Legacy(LegacyCpu::new(gpu, models, &scene.placements).unwrap()),
    ]
}

#[test]
fn both_tiers_show_grass_agree_and_count_honestly() {
    let Some(lock) = sward_engine::testing::gpu() else {
        return;
    };
    let gpu: &GpuContext = &lock;
    let scene = scene();
    let models = GrassModels::new(gpu, &scene.models).unwrap();
    let camera = ground_camera(scene);
    let total = scene.placements.len() as u64;
    let [mut st, mut legacy] = tiers(gpu, &models, scene);
    for samples in [4, 1] {
        let a = render(gpu, &models, &mut st, camera, samples, 2);
        let b = render(gpu, &models, &mut legacy, camera, samples, 2);
        save(&a.image, &format!("ground-static-batch-msaa{samples}"));
        save(&b.image, &format!("ground-legacy-cpu-msaa{samples}"));
        let (fa, fb) = (grass_fraction(&a.image), grass_fraction(&b.image));
        let (rmse, differing) = image_diff(&a.image, &b.image);
        eprintln!(
            "msaa {samples}: grass fraction static {fa:.3} legacy {fb:.3}; rmse {rmse:.4}, differing {differing:.4}"
        );
        assert!(fa > 0.05 && fb > 0.05, "too little grass: {fa} / {fb}");
        assert!(
            rmse < 0.02 && differing < 0.01,
            "tiers disagree: rmse {rmse}, differing {differing}"
        );

        // static-batch: every resident instance, one draw per model batch, uniforms only.
        let draw = a
            .report
            .pass("grass.draw")
            .expect("grass.draw ran")
            .counters;
        let Tier::Static(s) = &st else { unreachable!() };
        assert_eq!(draw.instances_submitted, total);
        assert_eq!(draw.instances_drawn, total);
        assert_eq!(draw.draw_calls, s.batch_count() as u64);
        assert_eq!(a.report.counters.bytes_uploaded, GRASS_FRAME_BYTES);
        let tri: u64 = (0..models.len())
            .filter_map(|m| {
                s.model_buffer(m)
                    .map(|(_, n)| u64::from(n) * models.models[m].triangles)
            })
            .sum();
        assert_eq!(draw.triangles, tri);

        // legacy-cpu: only the visible clumps, uploaded as matrices + uniforms.
        let up = b
            .report
            .pass("grass.upload")
            .expect("grass.upload ran")
            .counters;
        let ldraw = b
            .report
            .pass("grass.draw")
            .expect("grass.draw ran")
            .counters;
        assert!(ldraw.instances_submitted > 0 && ldraw.instances_submitted < total);
        assert_eq!(
            up.bytes_uploaded,
            ldraw.instances_submitted * INSTANCE_BYTES + GRASS_FRAME_BYTES
        );
        assert!(ldraw.draw_calls <= models.len() as u64);
    }
}

#[test]
fn instance_buffers_hold_the_reference_matrices() {
    let Some(lock) = sward_engine::testing::gpu() else {
        return;
    };
    let gpu: &GpuContext = &lock;
    let scene = scene();
    let models = GrassModels::new(gpu, &scene.models).unwrap();
    let (items, ranges) = scene.placements.model_major(models.len());
    let [st, mut legacy] = tiers(gpu, &models, scene);
    let Tier::Static(s) = &st else { unreachable!() };
    let mut checked = 0;
    for (m, range) in ranges.iter().enumerate() {
        let Some((buffer, count)) = s.model_buffer(m) else {
            assert!(range.is_empty());
            continue;
        };
        assert_eq!(count as usize, range.len());
        let bytes =
            sward_engine::targets::read_buffer(&gpu.device, &gpu.queue, buffer, buffer.size())
                .unwrap();
        let gpu_mats: Vec<Mat4> = bytemuck::pod_collect_to_vec(&bytes);
        for (p, g) in items[range.clone()].iter().zip(&gpu_mats) {
            assert_eq!(*g, instance_matrix(p));
            checked += 1;
        }
    }
    assert_eq!(checked, items.len());

    // legacy-cpu: after a frame its dynamic buffer starts with the visible
    // matrices, model after model, in placement order.
    let camera = ground_camera(scene);
    let shot = render(gpu, &models, &mut legacy, camera, 1, 1);
    let visible = shot
        .report
        .pass("grass.draw")
        .unwrap()
        .counters
        .instances_submitted as usize;
    let Tier::Legacy(l) = &legacy else {
        unreachable!()
    };
    let bytes = sward_engine::targets::read_buffer(
        &gpu.device,
        &gpu.queue,
        l.instance_buffer(),
        (visible as u64 * INSTANCE_BYTES).max(INSTANCE_BYTES),
    )
    .unwrap();
    let gpu_mats: Vec<Mat4> = bytemuck::pod_collect_to_vec(&bytes);
    let view = FrameView::new(camera, [W, H], 1, 0.5, settings());
    let mut expect = Vec::new();
    for (m, range) in ranges.iter().enumerate() {
        for p in &items[range.clone()] {
            let mm = &models.models[m];
            let sway = super::wind::max_sway(&view.settings, mm.height);
            let (c, r) = super::instance::cull_sphere(p, mm.radius, sway);
            let near =
                Vec3::from_array(p.position).distance(view.eye()) <= view.settings.grass_distance;
            if near && view.frustum.sphere_visible(c, r) {
                expect.push(instance_matrix(p));
            }
        }
    }
    assert_eq!(expect.len(), visible);
    assert!(visible > 0);
    assert_eq!(&gpu_mats[..visible], &expect[..]);
    drop(st);
}

/// A world point inside a suppressed cell, far enough from the cell border
/// that no clump rooted outside the cell can cover its pixel.
struct Probe {
    point: Vec3,
    what: String,
}

/// Suppressed cells (holes, noEffectDoodad) of the MCNK with the most of
/// them among MCNKs that have grass, and a top-down camera above it.
fn suppressed_probes(scene: &Scene) -> (Camera, Vec<Probe>) {
    let world = scene.world();
    let mut grass_per_chunk = std::collections::HashMap::new();
    for g in &scene.placements.groups {
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

fn project(view_proj: Mat4, p: Vec3) -> Option<(u32, u32)> {
    let clip = view_proj * p.extend(1.0);
    if clip.w <= 0.0 {
        return None;
    }
    let ndc = clip.truncate() / clip.w;
    let x = (ndc.x * 0.5 + 0.5) * W as f32;
    let y = (0.5 - ndc.y * 0.5) * H as f32;
    ((0.0..W as f32).contains(&x) && (0.0..H as f32).contains(&y)).then_some((x as u32, y as u32))
}

#[test]
fn no_grass_over_holes_or_no_effect_cells() {
    let Some(lock) = sward_engine::testing::gpu() else {
        return;
    };
    let gpu: &GpuContext = &lock;
    let scene = scene();
    let models = GrassModels::new(gpu, &scene.models).unwrap();
    let (camera, probes) = suppressed_probes(scene);
    let view_proj = camera.view_proj(W as f32 / H as f32);
    let on_screen: Vec<_> = probes
        .iter()
        .filter_map(|p| project(view_proj, p.point).map(|px| (p, px)))
        .collect();
    assert!(
        on_screen.len() >= 20,
        "only {} probe points in suppressed cells",
        on_screen.len()
    );
    for mut tier in tiers(gpu, &models, scene) {
        for samples in [4, 1] {
            let shot = render(gpu, &models, &mut tier, camera, samples, 1);
            save(
                &shot.image,
                &format!("topdown-{}-msaa{samples}", tier.name()),
            );
            let frac = grass_fraction(&shot.image);
            assert!(
                frac > 0.005,
                "{} {samples}x: only {frac} grass around the cells",
                tier.name()
            );
            let bad: Vec<_> = on_screen
                .iter()
                .filter(|(_, (x, y))| is_grass(shot.image.get_pixel(*x, *y)))
                .map(|(p, px)| format!("{} at pixel {px:?}", p.what))
                .collect();
            eprintln!(
                "{} {samples}x: grass {frac:.3}, {} probes in suppressed cells, {} covered",
                tier.name(),
                on_screen.len(),
                bad.len()
            );
            assert!(
                bad.is_empty(),
                "{} {samples}x: grass over suppressed cells: {bad:?}",
                tier.name()
            );
        }
    }
}
