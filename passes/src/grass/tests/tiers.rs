//! Tier tests: both tiers show grass and agree, counters, reference
//! matrices in the instance buffers, the GPU draw-distance cut, wind.

use glam::{Mat4, Vec3};
use sward_engine::gpu_or_skip;

use super::*;
use crate::grass::gpu::GRASS_FRAME_BYTES;
use crate::grass::instance::{instance_matrix, INSTANCE_BYTES};

#[test]
fn both_tiers_show_grass_agree_and_count_honestly() {
    gpu_or_skip!(gpu);
    let (scene, models) = scene_and_models(gpu);
    let camera = ground_camera(scene);
    let total = scene.placements().len() as u64;
    let [mut st, mut legacy] = tiers(gpu, &models, scene);
    for samples in [4, 1] {
        let v = view(camera, samples, settings(), 0.5);
        let a = render(gpu, &models, &mut st, &v, 2);
        let b = render(gpu, &models, &mut legacy, &v, 2);
        save(&a.image, &format!("ground-static-batch-msaa{samples}"));
        save(&b.image, &format!("ground-legacy-cpu-msaa{samples}"));
        let (fa, fb) = (grass_fraction(&a.image), grass_fraction(&b.image));
        let (rmse, differing) = exact_diff(&a.image, &b.image);
        eprintln!(
            "msaa {samples}: grass fraction static {fa:.3} legacy {fb:.3}; rmse {rmse:.4}, {differing} pixels differ"
        );
        assert!(fa > 0.05 && fb > 0.05, "too little grass: {fa} / {fb}");
        // The same shader draws the same matrices in the same order; the
        // clumps legacy-cpu leaves out are out of view: the same picture.
        assert_eq!(
            differing, 0,
            "tiers disagree: rmse {rmse}, {differing} pixels differ"
        );

        // The pipelines really drawn with: Elwynn models are two-sided alpha key.
        for t in [&st, &legacy] {
            let states = match t {
                Tier::Static(s) => s.material_states(),
                Tier::Legacy(l) => l.material_states(),
            };
            assert_eq!(states.len(), models.len());
            for state in states {
                assert_eq!(state.alpha_to_coverage, samples == 4, "{state:?}");
                assert_eq!(state.discards, samples == 1, "{state:?}");
                assert!(state.depth_write && state.blend.is_none() && state.cull_mode.is_none());
            }
        }

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
            .flat_map(|m| s.model_buffers(m).into_iter().map(move |(_, _, n)| (m, n)))
            .map(|(m, n)| u64::from(n) * models.models[m].triangles)
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
    // Memory: one mat4 per resident placement (static) or per placement slot
    // of the dynamic buffer (legacy), plus uniforms and the shared models.
    let shared = GRASS_FRAME_BYTES + models.gpu_memory_bytes();
    let (Tier::Static(s), Tier::Legacy(l)) = (&st, &legacy) else {
        unreachable!()
    };
    assert_eq!(s.gpu_memory_bytes(), total * INSTANCE_BYTES + shared);
    assert_eq!(l.gpu_memory_bytes(), total * INSTANCE_BYTES + shared);
}

#[test]
fn instance_buffers_hold_the_reference_matrices() {
    gpu_or_skip!(gpu);
    let (scene, models) = scene_and_models(gpu);
    let (items, ranges) = scene.placements().model_major(models.len());
    let [st, mut legacy] = tiers(gpu, &models, scene);
    let Tier::Static(s) = &st else { unreachable!() };
    let mut checked = 0;
    for (m, range) in ranges.iter().enumerate() {
        // One buffer per tile that has the model, in window order: together
        // they hold the model's instances in placement order.
        let buffers = s.model_buffers(m);
        assert_eq!(buffers.is_empty(), range.is_empty());
        let count: u32 = buffers.iter().map(|(_, _, n)| n).sum();
        assert_eq!(count as usize, range.len());
        let mut gpu_mats: Vec<Mat4> = Vec::new();
        for (buffer, offset, n) in buffers {
            let bytes =
                sward_engine::targets::read_buffer(&gpu.device, &gpu.queue, buffer, buffer.size())
                    .unwrap();
            let end = offset as usize + n as usize * INSTANCE_BYTES as usize;
            gpu_mats.extend(bytemuck::pod_collect_to_vec::<u8, Mat4>(
                &bytes[offset as usize..end],
            ));
        }
        for (p, g) in items[range.clone()].iter().zip(&gpu_mats) {
            assert_eq!(*g, instance_matrix(p));
            checked += 1;
        }
    }
    assert_eq!(checked, items.len());

    // legacy-cpu: after a frame its dynamic buffer starts with the visible
    // matrices, model after model, in placement order.
    let camera = ground_camera(scene);
    let v = view(camera, 1, settings(), 0.5);
    let shot = render(gpu, &models, &mut legacy, &v, 1);
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
    let view = v;
    let mut expect = Vec::new();
    for (m, range) in ranges.iter().enumerate() {
        for p in &items[range.clone()] {
            let mm = &models.models[m];
            let sway = crate::grass::wind::max_sway(&view.settings, mm.height);
            let (c, r) = crate::grass::instance::cull_sphere(p, mm.radius, sway);
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

#[test]
fn static_batch_cuts_at_the_draw_distance_on_the_gpu() {
    gpu_or_skip!(gpu);
    let (scene, models) = scene_and_models(gpu);
    let [mut st, _] = tiers(gpu, &models, scene);
    let ground = ground_camera(scene);
    // Straight up from the ground view, looking down at the same field.
    let lifted = |height: f32| Camera {
        eye: ground.eye + Vec3::Z * height,
        pitch_deg: -60.0,
        ..ground
    };
    let near = render(
        gpu,
        &models,
        &mut st,
        &view(lifted(120.0), 4, settings(), 0.5),
        1,
    );
    let far = render(
        gpu,
        &models,
        &mut st,
        &view(lifted(240.0), 4, settings(), 0.5),
        1,
    );
    save(&near.image, "lifted-120");
    save(&far.image, "lifted-240");
    // Every instance is submitted in both, but beyond 220 units nothing shows.
    for shot in [&near, &far] {
        let c = shot.report.pass("grass.draw").unwrap().counters;
        assert_eq!(c.instances_submitted, scene.placements().len() as u64);
    }
    let (fnear, ffar) = (grass_fraction(&near.image), grass_fraction(&far.image));
    eprintln!("grass at 120 units up: {fnear:.4}, at 240 units up: {ffar:.4}");
    assert!(fnear > 0.01, "no grass seen from 120 units");
    assert_eq!(ffar, 0.0, "grass drawn beyond the 220-unit draw distance");
}

#[test]
fn wind_moves_clumps_only_when_enabled() {
    gpu_or_skip!(gpu);
    let (scene, models) = scene_and_models(gpu);
    let [mut st, _] = tiers(gpu, &models, scene);
    let camera = ground_camera(scene);
    let windy = RenderSettings {
        wind: true,
        ..settings()
    };
    let shot = |st: &mut Tier, s: RenderSettings, t: f32| {
        render(gpu, &models, st, &view(camera, 4, s, t), 1).image
    };
    let (calm0, calm1) = (
        shot(&mut st, settings(), 0.0),
        shot(&mut st, settings(), 0.9),
    );
    let (windy0, windy1) = (shot(&mut st, windy, 0.0), shot(&mut st, windy, 0.9));
    save(&windy1, "ground-windy");
    assert_eq!(
        image_diff(&calm0, &calm1),
        (0.0, 0.0),
        "no wind, yet frames differ"
    );
    let (rmse, differing) = image_diff(&windy0, &windy1);
    eprintln!("wind over 0.9 s: rmse {rmse:.4}, differing {differing:.4}");
    assert!(
        differing > 0.002,
        "wind does not move the grass ({differing})"
    );
    // Roots are anchored: the amount of grass on screen barely changes.
    let (f0, f1) = (grass_fraction(&windy0), grass_fraction(&windy1));
    assert!((f0 - f1).abs() < 0.1 * f0, "coverage {f0} -> {f1}");
}

#[test]
fn grass_draws_over_terrain_after_it() {
    gpu_or_skip!(gpu);
    let (scene, models) = scene_and_models(gpu);
    let mut terrain = crate::terrain::StaticChunks::new(gpu, scene.world()).unwrap();
    let [mut st, _] = tiers(gpu, &models, scene);
    let Tier::Static(st) = &mut st else {
        unreachable!()
    };
    let v = view(
        ground_camera(scene),
        4,
        RenderSettings {
            wind: false,
            ..RenderSettings::default()
        },
        0.5,
    );
    let mut off = crate::testkit::Offscreen::new(gpu, [W, H], 4);
    let mut shoot = |with_grass: bool| {
        let report = off.frame(gpu, |g, t| {
            let duty = |clear, last: bool| crate::frame::PassTargets {
                resolve: if last { t.resolve } else { None },
                clear,
                ..t
            };
            terrain.record(Frame::new(gpu, &v, duty(true, !with_grass)), g);
            if with_grass {
                st.record(Frame::new(gpu, &v, duty(false, true)), g, &models);
            }
        });
        (off.image(gpu), report)
    };
    let (bare, _) = shoot(false);
    let (grassy, report) = shoot(true);
    save(&bare, "terrain-only");
    save(&grassy, "terrain-and-grass");
    let names: Vec<&str> = report.passes.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["terrain.draw", "grass.draw"]);
    let (_, differing) = image_diff(&bare, &grassy);
    eprintln!("grass changes {differing:.3} of the terrain image");
    assert!(
        differing > 0.03,
        "grass barely visible over terrain ({differing})"
    );
}

#[test]
fn empty_placements_draw_nothing_and_bad_models_are_named() {
    gpu_or_skip!(gpu);
    let (scene, models) = scene_and_models(gpu);
    let empty = sward_scenes::Placements::default();
    let camera = ground_camera(scene);
    for mut tier in [
        Tier::Static(StaticBatch::new(gpu, &models, &empty).unwrap()),
        Tier::Legacy(LegacyCpu::new(gpu, &models, &empty).unwrap()),
    ] {
        let shot = render(
            gpu,
            &models,
            &mut tier,
            &view(camera, 4, settings(), 0.5),
            1,
        );
        let c = shot.report.counters;
        assert_eq!(
            (c.draw_calls, c.instances_submitted, c.triangles),
            (0, 0, 0),
            "{}",
            tier.name()
        );
        assert_eq!(
            grass_fraction(&shot.image),
            0.0,
            "{} drew something",
            tier.name()
        );
    }
    let mut broken = scene.models[3].clone();
    broken.indices.push(9999);
    broken.indices.extend([0, 0]);
    let err = GrassModels::new(gpu, &[scene.models[0].clone(), broken])
        .err()
        .expect("an out-of-range index is rejected")
        .to_string();
    assert!(
        err.contains(&scene.models[3].name) && err.contains("9999"),
        "{err}"
    );
}
