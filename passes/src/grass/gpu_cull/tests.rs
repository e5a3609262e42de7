//! GPU tests of grass `gpu-cull` (small targets, terrain off, black fog):
//! the cull keeps exactly the CPU reference's entries on every named view of
//! `elwynn-dense` and `seams-holes` (both multi-draw variants), descriptor
//! roots land on the CPU height reference, the image matches static-batch,
//! a frame uploads its two uniform blocks and nothing else, an empty window
//! draws nothing, no grass shows over hole or noEffectDoodad cells, and tiles
//! placed into (and evicted from) the streaming pools draw what a whole-window
//! build draws.

use std::collections::{BTreeSet, HashMap};

use glam::Vec3;
use sward_engine::bind::{self, Slot};
use sward_engine::gpu_or_skip;
use sward_engine::graph::FrameReport;
use sward_engine::GpuContext;
use sward_scenes::Scene;

use super::build::reach_of;
use super::cull::{cpu_cull, cull_models, entry_margin, GrassCull, GRASS_CULL_BYTES};
use super::descriptor::{unpack, GrassDescriptor};
use super::instances::{cpu_cull_instances, State};
use super::patches::{PatchSet, PatchSize};
use super::{CullMode, DistanceLod, GpuCull, GpuCullOptions, MultiDraw};
use crate::atlas::HeightAtlas;
use crate::frame::{camera_from_pose, Frame, FrameView, PassTargets, RenderSettings};
use crate::grass::gpu::GRASS_FRAME_BYTES;
use crate::grass::{GrassModels, StaticBatch};

use crate::testkit::{preset, Offscreen};

#[path = "tests_placed.rs"]
mod placed;

#[path = "tests_change.rs"]
mod change;

/// Black fog and clear: every lit pixel is grass. Wind on (the cull grows
/// bounds by the sway), so the parity covers it.
fn settings() -> RenderSettings {
    RenderSettings {
        fog_color: [0.0, 0.0, 0.0],
        ..RenderSettings::default()
    }
}

/// The frame of `scene`'s named view `name` at `size` with `samples` MSAA
/// and the tests' [`settings`].
fn view_at(scene: &Scene, name: &str, size: [u32; 2], samples: u32) -> FrameView {
    pose_view(scene.view(name).expect("named view"), size, samples)
}

/// The frame at `pose` (see [`view_at`]).
fn pose_view(pose: &sward_scenes::presets::ViewPose, size: [u32; 2], samples: u32) -> FrameView {
    let s = settings();
    FrameView::new(camera_from_pose(pose, &s), size, samples, 0.5, s)
}

/// The `ground-yaw0` frame of `scene` at `size` with `samples`, under the
/// tests' [`settings`] with the wind off: a still picture two tiers draw
/// alike.
fn still_ground_view(scene: &Scene, size: [u32; 2], samples: u32) -> FrameView {
    let pose = scene
        .view("ground-yaw0")
        .expect("the scene has ground-yaw0");
    let s = RenderSettings {
        wind: false,
        ..settings()
    };
    FrameView::new(camera_from_pose(pose, &s), size, samples, 0.5, s)
}

/// A GPU buffer read back as words of `T`.
fn read_words<T: bytemuck::Pod>(gpu: &GpuContext, b: &wgpu::Buffer) -> Vec<T> {
    let bytes = sward_engine::targets::read_buffer(&gpu.device, &gpu.queue, b, b.size())
        .expect("read back");
    bytemuck::pod_collect_to_vec(&bytes)
}

/// Which model each descriptor of `set` belongs to.
fn model_of(set: &PatchSet) -> HashMap<u32, u32> {
    set.entries
        .iter()
        .flat_map(|e| (e.first..e.first + e.count).map(move |d| (d, e.model)))
        .collect()
}

/// The tier a test renders.
enum Drawer<'t> {
    Static(&'t mut StaticBatch),
    Cull(&'t mut GpuCull),
    /// Terrain (static-chunks) first, then the cull over its depth.
    OverTerrain(&'t mut crate::terrain::StaticChunks, &'t mut GpuCull),
    /// GPU-culled terrain first (with occlusion, it publishes its pyramid),
    /// then the cull.
    OverCulledTerrain(&'t mut crate::terrain::GpuCullTerrain, &'t mut GpuCull),
}

/// Renders `frames` frames of `drawer` into a target of `view.size` and
/// reads the image back; returns it with the last frame's report.
fn render(
    gpu: &GpuContext,
    models: &GrassModels,
    drawer: &mut Drawer<'_>,
    view: &FrameView,
    frames: u32,
) -> (image::RgbaImage, FrameReport) {
    let mut off = Offscreen::for_view(gpu, view);
    let mut report = None;
    for _ in 0..frames.max(1) {
        report = Some(off.frame(gpu, |g, targets| match &mut *drawer {
            Drawer::Static(t) => t.record(Frame::new(gpu, view, targets), g, models),
            Drawer::Cull(t) => t.record(Frame::new(gpu, view, targets), g, models),
            Drawer::OverTerrain(terrain, t) => {
                terrain.record(Frame::new(gpu, view, targets), g);
                let after = PassTargets {
                    clear: false,
                    ..targets
                };
                t.record(Frame::new(gpu, view, after), g, models);
            }
            Drawer::OverCulledTerrain(terrain, t) => {
                terrain.record(Frame::new(gpu, view, targets), g);
                let after = PassTargets {
                    clear: false,
                    ..targets
                };
                t.record(Frame::new(gpu, view, after), g, models);
            }
        }));
    }
    (off.image(gpu), report.expect("at least one frame"))
}

fn tier(
    gpu: &GpuContext,
    models: &GrassModels,
    scene: &Scene,
    atlas: &HeightAtlas,
    patch: PatchSize,
    multi_draw: MultiDraw,
) -> GpuCull {
    let options = GpuCullOptions {
        patch,
        multi_draw: Some(multi_draw),
        cull: CullMode::Patch,
        ..GpuCullOptions::default()
    };
    build_with(gpu, models, scene, atlas, options)
}

/// The entries the GPU kept, from the compacted args (`first_instance` names
/// the entry) and the per-model counts; checks the plain variant's tails are
/// zero and that the GPU's instance counts add up.
fn gpu_kept(gpu: &GpuContext, t: &GpuCull, set: &PatchSet) -> BTreeSet<u32> {
    let (args, counts) = t.cull_output().expect("patch culling");
    let read = |b: &wgpu::Buffer| {
        let bytes = sward_engine::targets::read_buffer(&gpu.device, &gpu.queue, b, b.size());
        bytemuck::pod_collect_to_vec::<u8, u32>(&bytes.unwrap())
    };
    let (args, counts) = (read(args), read(counts));
    let by_first: HashMap<u32, u32> = set
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.first, i as u32))
        .collect();
    let n = t.model_regions().len();
    let mut kept = BTreeSet::new();
    for (m, region) in t.model_regions().iter().enumerate() {
        let count = counts[m];
        assert!(
            count <= region.end - region.start,
            "model {m}: {count} draws"
        );
        let mut instances = 0;
        for slot in region.start..region.end {
            let a = &args[slot as usize * 5..slot as usize * 5 + 5];
            if slot - region.start >= count {
                if t.multi_draw() == MultiDraw::Plain {
                    assert_eq!(a, [0; 5], "plain multi-draw: slot {slot} past the count");
                }
                continue;
            }
            let e = by_first[&a[4]];
            let entry = &set.entries[e as usize];
            assert_eq!(entry.model as usize, m);
            assert_eq!(a[1], entry.count);
            instances += a[1];
            assert!(kept.insert(e), "entry {e} drawn twice");
        }
        assert_eq!(counts[n + m], instances, "model {m} instance count");
    }
    kept
}

#[test]
fn gpu_keeps_the_cpu_reference_entries() {
    gpu_or_skip!(gpu);
    for (name, patch, multi_draw) in [
        ("elwynn-dense", PatchSize::Mcnk, MultiDraw::Count),
        ("seams-holes", PatchSize::Block2, MultiDraw::Plain),
        ("seams-holes", PatchSize::Block4, MultiDraw::Count),
    ] {
        if multi_draw == MultiDraw::Count
            && !sward_engine::testing::has_capabilities(
                gpu,
                "the count variant",
                &[sward_engine::Capability::MultiDrawIndirectCount],
            )
        {
            continue;
        }
        let scene = preset(name);
        let models = GrassModels::new(gpu, &scene.models).unwrap();
        let atlas = HeightAtlas::new(gpu, scene.world()).unwrap();
        let mut t = tier(gpu, &models, scene, &atlas, patch, multi_draw);
        let reach = reach_of(&models);
        let set = PatchSet::build(scene.world(), scene.placements(), &reach, patch).unwrap();
        assert_eq!(set.entries.len() as u32, t.entry_count());
        let cm = cull_models(&set, &models);
        for pose in &scene.views {
            let v = pose_view(pose, [64, 40], 1);
            let _ = render(gpu, &models, &mut Drawer::Cull(&mut t), &v, 1);
            let gpu_set = gpu_kept(gpu, &t, &set);
            let c = GrassCull::new(
                &v,
                t.entry_count(),
                models.len() as u32,
                multi_draw == MultiDraw::Plain,
            );
            let cpu_set: BTreeSet<u32> = cpu_cull(&set, &cm, &c).into_iter().collect();
            // Entries within a millimetre of a plane or the draw circle may
            // round either way on another ALU; none may differ otherwise.
            let unsure = |e: &u32| {
                let entry = &set.entries[*e as usize];
                let sway = cm[entry.model as usize].sway_height * c.sway_amplitude;
                entry_margin(entry, sway, &c) < 1e-3
            };
            let differ: Vec<u32> = gpu_set
                .symmetric_difference(&cpu_set)
                .copied()
                .filter(|e| !unsure(e))
                .collect();
            eprintln!(
                "{name} {} ({}, {}): {} of {} entries kept",
                pose.name,
                patch.name(),
                multi_draw.name(),
                gpu_set.len(),
                set.entries.len()
            );
            assert!(
                differ.is_empty(),
                "{name} {}: entries {differ:?} differ",
                pose.name
            );
            assert!(!cpu_set.is_empty() && cpu_set.len() < set.entries.len());
        }
    }
}

#[test]
fn roots_land_on_the_cpu_height_reference() {
    gpu_or_skip!(gpu);
    let (scene, models) = crate::grass::tests::scene_and_models(gpu);
    let atlas = HeightAtlas::new(gpu, scene.world()).unwrap();
    let reach = reach_of(&models);
    let patch = PatchSize::Block4;
    let set = PatchSet::build(scene.world(), scene.placements(), &reach, patch).unwrap();
    let t = tier(gpu, &models, scene, &atlas, patch, MultiDraw::Plain);
    let roots = probe_roots(gpu, &t, &atlas);
    let stored: Vec<GrassDescriptor> = bytemuck::pod_collect_to_vec(
        &sward_engine::targets::read_buffer(
            &gpu.device,
            &gpu.queue,
            t.descriptor_buffer(),
            t.descriptor_buffer().size(),
        )
        .unwrap(),
    );
    assert_eq!(&stored[..set.descriptors.len()], &set.descriptors[..]);
    let mut worst = [0.0f32; 3];
    for (d, r) in set.descriptors.iter().zip(&roots) {
        let u = unpack(d, &set.frames[d.patch_index as usize]);
        assert_eq!(r[0][3], 1.0, "root found on the atlas");
        let z = scene
            .world()
            .height_at(f64::from(u.xy[0]), f64::from(u.xy[1]))
            .unwrap();
        worst[0] = worst[0].max((r[0][0] - u.xy[0]).abs().max((r[0][1] - u.xy[1]).abs()));
        worst[1] = worst[1].max((r[0][2] - z).abs());
        worst[2] = worst[2].max((r[1][0] - u.yaw).abs().max((r[1][1] - u.scale).abs()));
    }
    eprintln!(
        "root errors: xy {} z {} yaw/scale {}",
        worst[0], worst[1], worst[2]
    );
    assert!(
        worst[0] < 2e-3 && worst[1] < 2e-3 && worst[2] < 1e-5,
        "{worst:?}"
    );
    // And the roots stand where the placements were (quantisation only).
    let mut moved = 0.0f32;
    for (src, r) in set.sources.iter().zip(&roots) {
        let p = Vec3::from_array(scene.placements().items[*src as usize].position);
        moved = moved.max(p.distance(Vec3::new(r[0][0], r[0][1], r[0][2])));
    }
    assert!(moved < 0.01, "a root moved {moved} from its placement");
}

/// Runs `probe_grass_root` over every descriptor of `t`: per descriptor
/// `[(x, y, z, found), (yaw, scale, 0, 0)]`.
fn probe_roots(gpu: &GpuContext, t: &GpuCull, atlas: &HeightAtlas) -> Vec<[[f32; 4]; 2]> {
    let device = &gpu.device;
    let shader =
        sward_engine::shader::create_shader(device, sward_wgsl::modules::PROBE_GRASS_ROOT).unwrap();
    let empty = bind::layout(device, "probe.empty", &[]);
    let cs = wgpu::ShaderStages::COMPUTE;
    let group2 = super::draw::draw_group_layout(device, cs);
    let out_layout = bind::layout(device, "probe.out", &bind::entries(cs, &[Slot::STORAGE_RW]));
    let pipeline = bind::compute_pipeline(
        device,
        "probe.grass_root",
        &[&empty, &empty, &group2, &out_layout],
        &shader,
        "probe",
    );
    let n = t.instance_count();
    let out = sward_engine::testing::probe_output(gpu, "probe.roots", n * 32);
    let mut roots = vec![
        (0, t.descriptor_buffer().as_entire_binding()),
        (1, t.patch_buffer().as_entire_binding()),
    ];
    roots.extend(super::groups::atlas_at(atlas, 2));
    let g2 = bind::group_at(device, "probe.grass_root", &group2, &roots);
    let g3 = bind::group(device, "probe.out", &out_layout, &[out.as_entire_binding()]);
    let g0 = bind::group(device, "probe.empty", &empty, &[]);
    let groups = [&g0, &g0, &g2, &g3];
    let bytes =
        sward_engine::testing::run_probe(gpu, &pipeline, &groups, (n as u32).div_ceil(64), &out);
    let flat: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(&bytes);
    flat.chunks_exact(2).map(|c| [c[0], c[1]]).collect()
}

#[test]
fn image_matches_static_batch_and_uploads_uniforms_only() {
    gpu_or_skip!(gpu);
    let (scene, models) = crate::grass::tests::scene_and_models(gpu);
    let atlas = HeightAtlas::new(gpu, scene.world()).unwrap();
    let mut st = StaticBatch::new(gpu, &models, scene.placements()).unwrap();
    let size = [256, 160];
    let variants = [MultiDraw::Count, MultiDraw::Plain]
        .into_iter()
        .filter(|m| {
            *m == MultiDraw::Plain
                || gpu
                    .caps
                    .has(sward_engine::Capability::MultiDrawIndirectCount)
        });
    for multi_draw in variants {
        let mut t = tier(gpu, &models, scene, &atlas, PatchSize::Block2, multi_draw);
        for samples in [4, 1] {
            let v = still_ground_view(scene, size, samples);
            let (a, _) = render(gpu, &models, &mut Drawer::Static(&mut st), &v, 1);
            let (b, report) = render(gpu, &models, &mut Drawer::Cull(&mut t), &v, 4);
            let (rmse, differing) = crate::grass::tests::image_diff(&a, &b);
            let lit = b.pixels().filter(|p| p[0].max(p[1]).max(p[2]) > 12).count();
            eprintln!(
                "{} msaa {samples}: rmse {rmse:.4}, differing {differing:.4}, lit {lit}",
                multi_draw.name()
            );
            save(&b, &format!("gpu-cull-{}-msaa{samples}", multi_draw.name()));
            assert!(
                lit as f64 > 0.05 * f64::from(size[0] * size[1]),
                "too little grass"
            );
            assert!(
                rmse < 0.02 && differing < 0.01,
                "rmse {rmse}, differing {differing}"
            );
            for state in t.material_states() {
                assert_eq!(state.alpha_to_coverage, samples == 4);
            }
            // Uniforms (and the count variant's zeroed counts) only,
            // whatever the scene size.
            let counts_reset = match multi_draw {
                MultiDraw::Count => 8 * models.len() as u64,
                MultiDraw::Plain => 0,
            };
            assert_eq!(
                report.counters.bytes_uploaded,
                GRASS_FRAME_BYTES + GRASS_CULL_BYTES + counts_reset
            );
            assert_eq!(t.bytes_per_frame(), report.counters.bytes_uploaded);
            let draw = report.pass("grass.draw").expect("grass.draw ran").counters;
            assert_eq!(draw.draw_calls, u64::from(t.entry_count()));
            assert_eq!(draw.instances_submitted, scene.placements().len() as u64);
            // Read back a few frames late (the camera stands still): what the
            // GPU kept, not everything.
            let set = PatchSet::build(
                scene.world(),
                scene.placements(),
                &reach_of(&models),
                PatchSize::Block2,
            )
            .unwrap();
            let kept: u64 = gpu_kept(gpu, &t, &set)
                .iter()
                .map(|e| u64::from(set.entries[*e as usize].count))
                .sum();
            assert_eq!(draw.instances_drawn, kept);
            assert!(kept > 0 && kept < draw.instances_submitted);
            // Four frames: the readback ran on the first only.
            let names: Vec<&str> = report.passes.iter().map(|p| p.name.as_str()).collect();
            assert_eq!(names, ["grass.cull", "grass.draw"]);
        }
    }
}

/// Keeps `image` as `$SWARD_TEST_IMAGES/grass-NAME.png` when that is set.
fn save(image: &image::RgbaImage, name: &str) {
    crate::testkit::keep(image, &format!("grass-{name}"));
}

#[test]
fn an_empty_window_draws_nothing() {
    gpu_or_skip!(gpu);
    let (scene, models) = crate::grass::tests::scene_and_models(gpu);
    let atlas = HeightAtlas::new(gpu, scene.world()).unwrap();
    let empty = sward_scenes::Placements::default();
    let options = GpuCullOptions::default();
    let mut t = GpuCull::new(gpu, &models, scene.world(), &empty, &atlas, options).unwrap();
    assert_eq!((t.entry_count(), t.patch_count()), (0, 0));
    let v = pose_view(&scene.views[0], [64, 40], 1);
    let (image, report) = render(gpu, &models, &mut Drawer::Cull(&mut t), &v, 3);
    assert!(image.pixels().all(|p| p[0].max(p[1]).max(p[2]) <= 12));
    let draw = report.pass("grass.draw").unwrap().counters;
    assert_eq!(
        (draw.draw_calls, draw.instances_drawn, draw.triangles),
        (0, 0, 0)
    );
    assert_eq!(report.counters.bytes_uploaded, t.bytes_per_frame());
}

#[test]
fn no_grass_over_holes_or_no_effect_cells() {
    use crate::grass::tests::suppressed::{assert_no_grass_over_probes, probes_on_screen};
    use crate::grass::tests::{H, W};
    gpu_or_skip!(gpu);
    let (scene, models) = crate::grass::tests::scene_and_models(gpu);
    let atlas = HeightAtlas::new(gpu, scene.world()).unwrap();
    let (camera, on_screen) = probes_on_screen(scene);
    assert!(
        on_screen.len() >= 20,
        "{} probes on screen",
        on_screen.len()
    );
    let mut t = tier(
        gpu,
        &models,
        scene,
        &atlas,
        PatchSize::Mcnk,
        MultiDraw::Plain,
    );
    for samples in [4, 1] {
        let s = crate::grass::tests::settings();
        let v = FrameView::new(camera, [W, H], samples, 0.5, s);
        let (image, _) = render(gpu, &models, &mut Drawer::Cull(&mut t), &v, 1);
        save(&image, &format!("gpu-cull-topdown-msaa{samples}"));
        assert_no_grass_over_probes(&image, &on_screen, &format!("gpu-cull {samples}x"));
    }
}

/// The `cull=instance` tier of `scene` with `patch` and `lod`.
fn instance_tier(
    gpu: &GpuContext,
    models: &GrassModels,
    scene: &Scene,
    atlas: &HeightAtlas,
    patch: PatchSize,
    lod: DistanceLod,
) -> GpuCull {
    let options = GpuCullOptions {
        patch,
        cull: CullMode::Instance,
        lod,
        ..GpuCullOptions::default()
    };
    build_with(gpu, models, scene, atlas, options)
}

/// The gpu-cull tier of `scene`'s placements with `options`.
fn build_with(
    gpu: &GpuContext,
    models: &GrassModels,
    scene: &Scene,
    atlas: &HeightAtlas,
    options: GpuCullOptions,
) -> GpuCull {
    GpuCull::new(
        gpu,
        models,
        scene.world(),
        scene.placements(),
        atlas,
        options,
    )
    .unwrap()
}

/// The descriptors the per-instance cull drew (each model's region of the
/// visible list up to its draw's instance count); checks each lies in its
/// model's region, none twice, and the draws start at their regions.
fn gpu_visible(gpu: &GpuContext, t: &GpuCull, set: &PatchSet) -> BTreeSet<u32> {
    let (state, visible, regions) = t.instance_output().expect("instance culling");
    let (state, visible) = (
        read_words::<u32>(gpu, state),
        read_words::<u32>(gpu, visible),
    );
    let model_of = model_of(set);
    let counts = State::instances(&state, regions.len());
    let mut kept = BTreeSet::new();
    for (m, region) in regions.iter().enumerate() {
        let draw = &state[State::ARGS + State::ARGS_WORDS * m..][..State::ARGS_WORDS];
        assert_eq!(draw[4], region.start, "model {m}: first instance");
        assert!(
            counts[m] <= region.end - region.start,
            "model {m} overflows"
        );
        for &d in &visible[region.start as usize..(region.start + counts[m]) as usize] {
            assert_eq!(
                model_of[&d], m as u32,
                "descriptor {d} in model {m}'s region"
            );
            assert!(kept.insert(d), "descriptor {d} drawn twice");
        }
    }
    kept
}

#[test]
fn gpu_instance_cull_keeps_the_cpu_reference_clumps() {
    use super::cull::instance_margin;
    use super::instances::clump_root;
    gpu_or_skip!(gpu);
    let thinned = DistanceLod {
        start: 0.3,
        floor: 0.3,
    };
    for (name, patch, lod) in [
        ("elwynn-dense", PatchSize::Block2, DistanceLod::default()),
        ("elwynn-dense", PatchSize::Block4, thinned),
        ("seams-holes", PatchSize::Mcnk, DistanceLod::default()),
    ] {
        let scene = preset(name);
        let models = GrassModels::new(gpu, &scene.models).unwrap();
        let atlas = HeightAtlas::new(gpu, scene.world()).unwrap();
        let mut t = instance_tier(gpu, &models, scene, &atlas, patch, lod);
        let set =
            PatchSet::build(scene.world(), scene.placements(), &reach_of(&models), patch).unwrap();
        let mut cm = cull_models(&set, &models);
        super::instances::visible_regions(&set, &mut cm);
        for pose in &scene.views {
            let v = pose_view(pose, [64, 40], 1);
            let s = &v.settings;
            let _ = render(gpu, &models, &mut Drawer::Cull(&mut t), &v, 1);
            let gpu_set = gpu_visible(gpu, &t, &set);
            let c = GrassCull::new(&v, t.entry_count(), models.len() as u32, false)
                .with_instances(65_535, lod.at(s.grass_distance));
            let cpu_set: BTreeSet<u32> = cpu_cull_instances(&set, &cm, scene.world(), &c, None)
                .into_iter()
                .collect();
            // Roots agree to about 2 mm (the root parity test): a clump that
            // close to a plane, the draw circle or its LOD threshold may go
            // either way; none may differ otherwise.
            let unsure = |d: &u32| {
                let e = set
                    .entries
                    .iter()
                    .find(|e| (e.first..e.first + e.count).contains(d))
                    .unwrap();
                let m = &cm[e.model as usize];
                clump_root(&set, scene.world(), *d).is_none_or(|(root, scale, seed)| {
                    let sway = m.sway_height * c.sway_amplitude;
                    instance_margin(root, m.radius * scale, sway, seed, &c) < 1e-2
                })
            };
            let differ: Vec<u32> = gpu_set
                .symmetric_difference(&cpu_set)
                .copied()
                .filter(|d| !unsure(d))
                .collect();
            // The exact visible set: legacy-cpu's per-clump test on the
            // placements themselves (before descriptor quantisation).
            let exact = scene
                .placements()
                .groups
                .iter()
                .flat_map(|g| {
                    let model = &models.models[usize::from(g.model)];
                    scene.placements().items[g.range()]
                        .iter()
                        .map(move |p| (p, model))
                })
                .filter(|(p, model)| {
                    let root = Vec3::from_array(p.position);
                    let sway = crate::grass::wind::max_sway(s, model.height);
                    root.distance(v.eye()) <= s.grass_distance
                        && v.frustum
                            .sphere_visible(root, model.radius * p.scale + sway)
                })
                .count();
            eprintln!(
                "{name} {} ({}, lod floor {}): {} clumps drawn, CPU reference {}, exact {exact}",
                pose.name,
                patch.name(),
                lod.floor,
                gpu_set.len(),
                cpu_set.len(),
            );
            assert!(
                differ.is_empty(),
                "{name} {}: {} clumps differ, e.g. {:?}",
                pose.name,
                differ.len(),
                &differ[..differ.len().min(8)]
            );
            if !lod.is_on() {
                // Quantised roots only: within 1% of the exact set.
                let (a, b) = (gpu_set.len() as f64, exact as f64);
                assert!(
                    (a - b).abs() <= 0.01 * b + 2.0,
                    "{name} {}: {a} drawn against {b} exactly visible",
                    pose.name
                );
            } else if exact > 200 {
                assert!(gpu_set.len() < exact, "the LOD thinned nothing");
            }
        }
    }
}

#[test]
fn instance_cull_image_matches_static_batch_and_lod_thins_far_grass() {
    gpu_or_skip!(gpu);
    let (scene, models) = crate::grass::tests::scene_and_models(gpu);
    let atlas = HeightAtlas::new(gpu, scene.world()).unwrap();
    let mut st = StaticBatch::new(gpu, &models, scene.placements()).unwrap();
    let v = still_ground_view(scene, [256, 160], 4);
    let (reference, _) = render(gpu, &models, &mut Drawer::Static(&mut st), &v, 1);
    let mut t = instance_tier(
        gpu,
        &models,
        scene,
        &atlas,
        PatchSize::Block2,
        DistanceLod::default(),
    );
    let (full, report) = render(gpu, &models, &mut Drawer::Cull(&mut t), &v, 4);
    save(&full, "gpu-cull-instance-msaa4");
    let (rmse, differing) = crate::grass::tests::image_diff(&reference, &full);
    eprintln!("instance cull vs static-batch: rmse {rmse:.4}, differing {differing:.4}");
    assert!(
        rmse < 0.02 && differing < 0.01,
        "rmse {rmse}, differing {differing}"
    );
    // One indirect draw per model; uniforms and the state header uploaded.
    let draw = report.pass("grass.draw").expect("grass.draw ran").counters;
    let drawn_models = t.model_regions().iter().filter(|r| !r.is_empty()).count();
    assert_eq!(draw.draw_calls, drawn_models as u64);
    let header = 4 * State::header_words(models.len()) as u64 + 12;
    assert_eq!(
        report.counters.bytes_uploaded,
        GRASS_FRAME_BYTES + GRASS_CULL_BYTES + header
    );
    assert_eq!(t.bytes_per_frame(), report.counters.bytes_uploaded);
    let set = PatchSet::build(
        scene.world(),
        scene.placements(),
        &reach_of(&models),
        PatchSize::Block2,
    )
    .unwrap();
    let drawn = gpu_visible(gpu, &t, &set).len() as u64;
    assert_eq!(draw.instances_drawn, drawn, "read back a few frames late");
    // The LOD draws fewer clumps; the near field (lower half of the image)
    // stays as it was, the far field loses grass.
    let lod = DistanceLod {
        start: 0.2,
        floor: 0.2,
    };
    let mut thin = instance_tier(gpu, &models, scene, &atlas, PatchSize::Block2, lod);
    let (image, report) = render(gpu, &models, &mut Drawer::Cull(&mut thin), &v, 4);
    save(&image, "gpu-cull-instance-lod-msaa4");
    let thinned = report.pass("grass.draw").unwrap().counters.instances_drawn;
    eprintln!("LOD floor 0.2 from 0.2: {thinned} clumps drawn of {drawn}");
    assert!(thinned < drawn * 3 / 4, "{thinned} of {drawn}");
    let lit = |img: &image::RgbaImage| {
        img.pixels()
            .filter(|p| p[0].max(p[1]).max(p[2]) > 12)
            .count()
    };
    assert!(
        lit(&image) < lit(&full),
        "thinning leaves less grass on screen"
    );
    assert!(lit(&image) > lit(&full) / 4, "but not nothing");
    // Off by default, and refused with patch culling.
    let err = GpuCull::new(
        gpu,
        &models,
        scene.world(),
        scene.placements(),
        &atlas,
        GpuCullOptions {
            cull: CullMode::Patch,
            lod,
            ..GpuCullOptions::default()
        },
    )
    .err()
    .expect("LOD with patch culling is refused");
    assert!(err.to_string().contains("cull=instance"), "{err}");
}

/// What the occlusion tests share: `elwynn-dense`, its models and atlas,
/// the per-instance tier with occlusion (`on`) and without (`off`), its
/// patch set and cull models (the CPU reference's inputs).
struct OcclusionFixture {
    scene: &'static Scene,
    models: GrassModels,
    on: GpuCull,
    off: GpuCull,
    set: PatchSet,
    cm: Vec<super::cull::CullModel>,
}

impl OcclusionFixture {
    fn new(gpu: &GpuContext) -> Self {
        let scene = preset("elwynn-dense");
        let models = GrassModels::new(gpu, &scene.models).unwrap();
        let atlas = HeightAtlas::new(gpu, scene.world()).unwrap();
        let patch = PatchSize::Block2;
        let options = GpuCullOptions {
            patch,
            occlusion: true,
            ..GpuCullOptions::default()
        };
        let on = build_with(gpu, &models, scene, &atlas, options);
        let off = instance_tier(gpu, &models, scene, &atlas, patch, DistanceLod::default());
        assert!(on.occlusion_on() && !off.occlusion_on());
        let set =
            PatchSet::build(scene.world(), scene.placements(), &reach_of(&models), patch).unwrap();
        let mut cm = cull_models(&set, &models);
        super::instances::visible_regions(&set, &mut cm);
        OcclusionFixture {
            scene,
            models,
            on,
            off,
            set,
            cm,
        }
    }

    /// The test view of `pose`: 160x100, 4x MSAA, no wind, grey fog.
    fn view(pose: &sward_scenes::presets::ViewPose) -> FrameView {
        let s = RenderSettings {
            wind: false,
            fog_color: [0.55, 0.62, 0.70],
            ..RenderSettings::default()
        };
        FrameView::new(camera_from_pose(pose, &s), [160, 100], 4, 0.5, s)
    }

    /// [`occlusion_sets`] of `on`'s last frame at `v` against `levels`.
    fn sets(
        &self,
        gpu: &GpuContext,
        v: &FrameView,
        levels: &[crate::hiz::Level],
        pixels: [u32; 2],
    ) -> OcclusionSets {
        occlusion_sets(
            gpu,
            self.scene,
            &self.models,
            &self.set,
            &self.cm,
            &self.on,
            v,
            levels,
            pixels,
        )
    }
}

/// One frame's occlusion parity: what the GPU drew and what the CPU
/// reference keeps over the pyramid the cull read.
struct OcclusionSets {
    /// The cull's uniforms of the frame.
    cull: GrassCull,
    /// The GPU's visible set.
    gpu: BTreeSet<u32>,
    /// `cpu_cull_instances` over the pyramid.
    cpu: BTreeSet<u32>,
    /// The CPU reference without occlusion (in range and in view).
    unoccluded: BTreeSet<u32>,
    /// Clumps in one set and not the other, except those within 1 cm of a
    /// cull boundary or whose occlusion verdict is within rounding.
    differ: Vec<u32>,
}

impl OcclusionSets {
    /// Clumps the occlusion test hid (in range and in view, but not kept).
    fn hidden(&self) -> usize {
        self.unoccluded.len() - self.cpu.len().min(self.unoccluded.len())
    }

    /// What every occlusion test asserts at view `name`: the GPU kept the
    /// CPU reference's clumps (boundary cases excused), occlusion only
    /// removed clumps, and the image (`rmse`, and `differing` pixels
    /// against the one without occlusion) did not change in a single
    /// pixel: a clump the test hides covers no sample the terrain does not,
    /// so drawing it or not is the same picture on any driver. Prints the
    /// counts.
    fn assert_parity(&self, name: &str, (rmse, differing): (f64, u64)) {
        let (hidden, range) = (self.hidden(), self.unoccluded.len());
        eprintln!(
            "{name}: {hidden} of {range} in-range visible clumps occluded ({:.1}%), GPU drew {}; \
             image rmse {rmse:.4}, {differing} pixels differ",
            100.0 * hidden as f64 / range.max(1) as f64,
            self.gpu.len()
        );
        // (Before the cull ran the test outside its divergent branch,
        // lavapipe mis-read mip levels for up to 6% of the survivors.)
        assert!(
            self.differ.is_empty(),
            "{name}: {} clumps differ from the CPU reference",
            self.differ.len()
        );
        assert!(
            self.gpu.is_subset(&self.unoccluded),
            "occlusion only removes clumps"
        );
        assert_eq!(
            differing, 0,
            "{name}: occlusion changed the image: rmse {rmse}, {differing} pixels differ"
        );
    }
}

/// [`OcclusionSets`] of `on`'s last frame at view `v`, tested against
/// `levels` (a pyramid built from a target of `pixels`).
#[allow(clippy::too_many_arguments)]
fn occlusion_sets(
    gpu: &GpuContext,
    scene: &Scene,
    models: &GrassModels,
    set: &PatchSet,
    cm: &[super::cull::CullModel],
    on: &GpuCull,
    v: &FrameView,
    levels: &[crate::hiz::Level],
    pixels: [u32; 2],
) -> OcclusionSets {
    use super::cull::instance_margin;
    use super::instances::clump_root;
    let s = v.settings;
    let c = GrassCull::new(v, on.entry_count(), models.len() as u32, false)
        .with_instances(65_535, DistanceLod::default().at(s.grass_distance))
        .with_occlusion(pixels, levels.len() as u32);
    let gpu_set = gpu_visible(gpu, on, set);
    let cpu_set: BTreeSet<u32> = cpu_cull_instances(set, cm, scene.world(), &c, Some(levels))
        .into_iter()
        .collect();
    let unoccluded: BTreeSet<u32> = cpu_cull_instances(set, cm, scene.world(), &c, None)
        .into_iter()
        .collect();
    let view_proj = glam::Mat4::from_cols_array_2d(&c.view_proj);
    let unsure = |d: &u32| {
        let e = set
            .entries
            .iter()
            .find(|e| (e.first..e.first + e.count).contains(d))
            .unwrap();
        let m = &cm[e.model as usize];
        clump_root(set, scene.world(), *d).is_none_or(|(root, scale, seed)| {
            let sway = m.sway_height * c.sway_amplitude;
            instance_margin(root, m.radius * scale, sway, seed, &c) < 1e-2
                || crate::hiz::occlusion_unsure(
                    levels,
                    pixels,
                    view_proj,
                    v.eye(),
                    root,
                    m.radius * scale + sway,
                )
        })
    };
    let differ = gpu_set
        .symmetric_difference(&cpu_set)
        .copied()
        .filter(|d| !unsure(d))
        .collect();
    OcclusionSets {
        cull: c,
        gpu: gpu_set,
        cpu: cpu_set,
        unoccluded,
        differ,
    }
}

#[test]
fn occlusion_keeps_the_cpu_reference_clumps_and_the_image() {
    use super::instances::clump_root;
    gpu_or_skip!(gpu);
    let mut f = OcclusionFixture::new(gpu);
    let scene = f.scene;
    let mut terrain = crate::terrain::StaticChunks::new(gpu, scene.world()).unwrap();
    assert!(
        scene.view("behind-ridge").is_some(),
        "the occlusion view exists"
    );
    let mut hidden_share = 0.0;
    for pose in &scene.views {
        let v = OcclusionFixture::view(pose);
        let (a, _) = render(
            gpu,
            &f.models,
            &mut Drawer::OverTerrain(&mut terrain, &mut f.off),
            &v,
            1,
        );
        let (b, report) = render(
            gpu,
            &f.models,
            &mut Drawer::OverTerrain(&mut terrain, &mut f.on),
            &v,
            2,
        );
        assert!(
            report.pass(crate::hiz::PASS_HIZ).is_some(),
            "the pyramid was built"
        );
        save(&b, &format!("gpu-cull-occlusion-{}", pose.name));
        let (rmse, differing) = crate::grass::tests::exact_diff(&a, &b);
        // The CPU reference over the pyramid the GPU built.
        let (pixels, levels) = crate::testkit::read_pyramid(gpu, f.on.hiz().unwrap());
        // Every level above 0 is the CPU reduction of the one below.
        for k in 1..levels.len() {
            assert_eq!(
                crate::hiz::reduce_level(&levels[k - 1]),
                levels[k],
                "level {k}"
            );
        }
        let sets = f.sets(gpu, &v, &levels, pixels);
        let c = &sets.cull;
        let view_proj = glam::Mat4::from_cols_array_2d(&c.view_proj);
        // The GPU occlusion test itself, probed on every in-range clump's
        // sphere, equals the CPU reference over the same pyramid.
        let spheres: Vec<[f32; 4]> = sets
            .unoccluded
            .iter()
            .filter_map(|d| {
                let e = f
                    .set
                    .entries
                    .iter()
                    .find(|e| (e.first..e.first + e.count).contains(d))?;
                let m = &f.cm[e.model as usize];
                let (root, scale, _) = clump_root(&f.set, scene.world(), *d)?;
                let r = m.radius * scale + m.sway_height * c.sway_amplitude;
                Some([root.x, root.y, root.z, r])
            })
            .collect();
        let probed = crate::hiz::probe_sphere_tests(
            &gpu.device,
            &gpu.queue,
            f.on.hiz().unwrap(),
            view_proj,
            &spheres,
        );
        let mut verdicts_differ = 0;
        for (s4, g) in spheres.iter().zip(&probed) {
            let centre = glam::Vec3::new(s4[0], s4[1], s4[2]);
            let cpu = crate::hiz::sphere_test(&levels, pixels, view_proj, centre, s4[3]);
            assert_eq!(
                (g[2], g[3]),
                (cpu[2], cpu[3]),
                "level and screen test of {s4:?}"
            );
            // The rectangle's edge may round to the next texel on another
            // ALU (so `far` may differ); the depths and the verdicts agree.
            assert!(
                (g[0] - cpu[0]).abs() <= 1e-5 * cpu[0].abs().max(1e-3),
                "{s4:?}: GPU {g:?}, CPU {cpu:?}"
            );
            let flip = (g[3] > 0.5 && g[0] < g[1]) != (cpu[3] > 0.5 && cpu[0] < cpu[1]);
            verdicts_differ += usize::from(flip);
        }
        // (Before `hiz_test` passed its level as a uniform loop counter,
        // lavapipe flipped about 1% of these verdicts.)
        assert_eq!(
            verdicts_differ,
            0,
            "{verdicts_differ} of {} probed verdicts differ",
            spheres.len()
        );
        sets.assert_parity(&pose.name, (rmse, differing));
        if pose.name == "behind-ridge" {
            hidden_share = sets.hidden() as f64 / sets.unoccluded.len().max(1) as f64;
        }
    }
    assert!(
        hidden_share > 0.3,
        "behind-ridge hides {hidden_share} of the grass"
    );
}

/// With GPU-culled terrain that tests occlusion too, grass tests against the
/// pyramid the terrain published (built after its first phase) and builds
/// none of its own; the clumps it keeps are the CPU reference's over that
/// pyramid, and the image is the one without grass occlusion.
#[test]
fn occlusion_reuses_the_terrain_pyramid() {
    gpu_or_skip!(gpu);
    let mut f = OcclusionFixture::new(gpu);
    let scene = f.scene;
    let variant = crate::terrain::gpu_cull::MdiVariant::for_device(gpu);
    // The terrain over its own atlas (the renderer would share one).
    let atlas = HeightAtlas::new(gpu, scene.world()).unwrap();
    let mut terrain =
        crate::terrain::GpuCullTerrain::with_occlusion(gpu, scene.world(), &atlas, variant)
            .unwrap();
    let mut hidden_behind_ridge = 0;
    for pose in &scene.views {
        let v = OcclusionFixture::view(pose);
        let (a, _) = render(
            gpu,
            &f.models,
            &mut Drawer::OverCulledTerrain(&mut terrain, &mut f.off),
            &v,
            2,
        );
        let before = f.on.terrain_pyramid_frames();
        let (b, report) = render(
            gpu,
            &f.models,
            &mut Drawer::OverCulledTerrain(&mut terrain, &mut f.on),
            &v,
            2,
        );
        assert!(
            report
                .pass(crate::terrain::gpu_cull::occlusion::PASS_HIZ)
                .is_some(),
            "the terrain built its pyramid"
        );
        assert!(
            report.pass(crate::hiz::PASS_HIZ).is_none(),
            "grass built a pyramid of its own"
        );
        assert_eq!(f.on.terrain_pyramid_frames(), before + 2);
        assert!(f.on.hiz().and_then(|h| h.shape()).is_none());
        let hiz = terrain.hiz().expect("the terrain's pyramid");
        let (pixels, levels) = crate::testkit::read_pyramid(gpu, hiz);
        let sets = f.sets(gpu, &v, &levels, pixels);
        sets.assert_parity(&pose.name, crate::grass::tests::exact_diff(&a, &b));
        if pose.name == "behind-ridge" {
            hidden_behind_ridge = sets.hidden();
        }
    }
    assert!(
        hidden_behind_ridge > 0,
        "the terrain's pyramid hides grass behind the ridge"
    );
    // A new measured run counts its own frames.
    let key = "gpu_cull.occlusion_terrain_pyramid_frames";
    assert_eq!(
        f.on.facts().get(key),
        Some(&(2.0 * scene.views.len() as f64))
    );
    f.on.begin_run();
    assert_eq!(f.on.facts().get(key), Some(&0.0));
}

/// What the pooled-placement tests share: `seams-holes`, its models and
/// atlas, the whole window packed at once (the reference), and small pool
/// units (tiles span many pages, entries split at page ends).
struct PoolFixture {
    scene: &'static Scene,
    models: GrassModels,
    atlas: HeightAtlas,
    whole: GpuCull,
    pools: super::pool::Pools,
    options: GpuCullOptions,
}

impl PoolFixture {
    fn new(gpu: &GpuContext) -> Self {
        let (scene, models) = crate::grass::tests::scene_and_models(gpu);
        let atlas = HeightAtlas::new(gpu, scene.world()).unwrap();
        let patch = PatchSize::Block2;
        let whole = instance_tier(gpu, &models, scene, &atlas, patch, DistanceLod::default());
        let pools = super::pool::Pools {
            desc_page: 256,
            entry_page: 16,
            patch_block: 64,
        };
        let options = GpuCullOptions {
            patch,
            cull: CullMode::Instance,
            ..GpuCullOptions::default()
        };
        PoolFixture {
            scene,
            models,
            atlas,
            whole,
            pools,
            options,
        }
    }

    /// An empty cull with the fixture's pool units and `capacity`.
    fn empty(&self, gpu: &GpuContext, capacity: super::Capacity) -> GpuCull {
        GpuCull::empty(
            gpu,
            &self.models,
            &self.atlas,
            self.options,
            self.pools,
            capacity,
        )
        .unwrap()
    }

    /// `pooled` draws the same instances and image as the whole window.
    fn assert_draws_like_whole(&mut self, gpu: &GpuContext, pooled: &mut GpuCull, name: &str) {
        assert_eq!(pooled.instance_count(), self.whole.instance_count());
        let v = still_ground_view(self.scene, [128, 80], 1);
        let models = &self.models;
        let (want, want_report) = render(gpu, models, &mut Drawer::Cull(&mut self.whole), &v, 4);
        let (got, report) = render(gpu, models, &mut Drawer::Cull(pooled), &v, 4);
        save(&got, name);
        let drawn = |r: &FrameReport| r.pass("grass.draw").unwrap().counters.instances_drawn;
        assert_eq!(drawn(&report), drawn(&want_report));
        assert!(drawn(&report) > 0);
        let (rmse, differing) = crate::grass::tests::image_diff(&want, &got);
        assert!(differing == 0.0, "rmse {rmse}, differing {differing}");
    }
}

/// Pools whose descriptors would exceed the device's storage binding are a
/// device-limit error naming the buffer, not a wgpu validation panic when
/// the bind group over them is made (a streaming build sized for one tile
/// more than a dense window).
#[test]
fn pools_over_the_storage_binding_are_refused() {
    use super::Capacity;
    gpu_or_skip!(gpu);
    let f = PoolFixture::new(gpu);
    let binding = u64::from(gpu.device.limits().max_storage_buffer_binding_size);
    let page = super::descriptor::DESCRIPTOR_BYTES * u64::from(f.pools.desc_page);
    let capacity = Capacity {
        desc_pages: (binding / page + 1) as u32,
        entry_pages: 1,
        slots: 1,
    };
    let err = GpuCull::empty(gpu, &f.models, &f.atlas, f.options, f.pools, capacity)
        .err()
        .expect("refused");
    assert!(
        matches!(err, crate::error::PassError::DeviceLimit { needed, limit, .. }
            if needed > limit && limit == binding),
        "{err}"
    );
    assert!(err.to_string().contains("descriptor buffer"), "{err}");
}

#[test]
fn tiles_placed_in_pools_draw_what_the_whole_window_draws() {
    use super::Capacity;
    gpu_or_skip!(gpu);
    let mut f = PoolFixture::new(gpu);
    let (scene, world) = (f.scene, f.scene.world());
    // Pools of one unit: every pool grows on the way.
    let one = Capacity {
        desc_pages: 1,
        entry_pages: 1,
        slots: 1,
    };
    let mut pooled = f.empty(gpu, one);
    let (atlas, models, whole) = (&f.atlas, &f.models, &f.whole);
    let source = crate::renderer::PlacementSource::Merged(scene.placements());
    let tiles: Vec<_> = world.tiles().iter().map(|t| t.coord).collect();
    assert!(tiles.len() > 1);
    let set_tile = |t: &mut GpuCull, tile, resident: bool| {
        let p = resident.then(|| source.tile(tile)).flatten();
        t.set_tile(gpu, world, tile, p.as_deref(), atlas).unwrap();
        t.commit(gpu, models);
    };
    for &tile in &tiles {
        set_tile(&mut pooled, tile, true);
    }
    assert_eq!(pooled.instance_count(), whole.instance_count());
    assert!(pooled.entry_count() > whole.entry_count(), "entries split");
    // Out and back a few times: the pools reuse their pages.
    let first = source.tile(tiles[0]).unwrap().len() as u64;
    let mut capacities = Vec::new();
    for _ in 0..3 {
        set_tile(&mut pooled, tiles[0], false);
        assert_eq!(pooled.instance_count(), whole.instance_count() - first);
        set_tile(&mut pooled, tiles[1], false);
        set_tile(&mut pooled, tiles[0], true);
        set_tile(&mut pooled, tiles[1], true);
        capacities.push((pooled.capacity(), pooled.gpu_memory_bytes()));
    }
    assert!(
        capacities.windows(2).all(|w| w[0] == w[1]),
        "{capacities:?}"
    );
    f.assert_draws_like_whole(gpu, &mut pooled, "gpu-cull-pooled");
}

/// Tiles placed without staged descriptors (a world built whole) take their
/// own slots where free, as streamed tiles do, so a tile streamed in later
/// finds its own slot free instead of held by one of the first tiles (which
/// cost the render thread its descriptors written again, 0.3 ms a tile).
#[test]
fn tiles_placed_without_staging_take_their_own_slots() {
    use super::pool::own_slot;
    use super::Capacity;
    gpu_or_skip!(gpu);
    let mut f = PoolFixture::new(gpu);
    let (scene, world) = (f.scene, f.scene.world());
    let tiles: Vec<_> = world.tiles().iter().map(|t| t.coord).collect();
    // Room for a 4x4 square of tiles: the 3x3 window's own slots differ
    // from the lowest slots for most of its tiles.
    let slots = 16;
    let capacity = Capacity {
        desc_pages: 1,
        entry_pages: 1,
        slots,
    };
    let mut pooled = f.empty(gpu, capacity);
    let source = crate::renderer::PlacementSource::Merged(scene.placements());
    for &tile in &tiles {
        let p = source.tile(tile);
        pooled
            .set_tile(gpu, world, tile, p.as_deref(), &f.atlas)
            .unwrap();
        pooled.commit(gpu, &f.models);
    }
    let own: Vec<u32> = tiles.iter().map(|t| own_slot(*t, slots)).collect();
    assert!(
        own.iter().enumerate().any(|(i, s)| *s != i as u32),
        "the fixture must tell own slots from lowest slots: {own:?}"
    );
    for (tile, want) in tiles.iter().zip(&own) {
        assert_eq!(pooled.tiles[tile].slot, *want, "{tile:?}");
    }
    f.assert_draws_like_whole(gpu, &mut pooled, "gpu-cull-own-slots");
}

/// Descriptors staged on a worker for the tile's own slot
/// (`PreparedPatches::staged`) land where they belong through pool growth
/// (copies recorded for a pool go out before it is copied into a larger
/// one): every tile takes its own slot, its pages hold its descriptors
/// numbered for that slot, and the pooled cull draws what the whole window
/// draws.
#[test]
fn staged_descriptors_land_in_their_pages_through_pool_growth() {
    use super::descriptor::DESCRIPTOR_BYTES;
    use super::pool::{own_slot, place_descriptors};
    use super::{Capacity, PreparedPatches};
    gpu_or_skip!(gpu);
    let mut f = PoolFixture::new(gpu);
    let (scene, world, pools) = (f.scene, f.scene.world(), f.pools);
    let tiles: Vec<_> = world.tiles().iter().map(|t| t.coord).collect();
    let slots = tiles.len() as u32;
    // One descriptor and entry page to start with: both pools grow while
    // tiles with staged copies are being placed.
    let capacity = Capacity {
        desc_pages: 1,
        entry_pages: 1,
        slots,
    };
    let mut staged = f.empty(gpu, capacity);
    let (reach, patch) = staged.patch_config();
    let source = crate::renderer::PlacementSource::Merged(scene.placements());
    let set_of = |tile| {
        let p = source.tile(tile).expect("every tile has grass");
        PatchSet::build(world, &p, &reach, patch).unwrap()
    };
    for &tile in &tiles {
        let p = source.tile(tile);
        let prepared = PreparedPatches::staged(&gpu.device, tile, set_of(tile), &pools, slots);
        staged
            .set_tile_prepared(gpu, world, tile, p.as_deref(), &f.atlas, Some(prepared))
            .unwrap();
        staged.commit(gpu, &f.models);
    }
    assert!(staged.capacity().desc_pages > 1, "the descriptor pool grew");
    let size = staged.descriptors.size();
    gpu.flush_copies();
    let bytes =
        sward_engine::targets::read_buffer(&gpu.device, &gpu.queue, &staged.descriptors, size)
            .expect("descriptors read back");
    let page_bytes = (pools.desc_page as u64 * DESCRIPTOR_BYTES) as usize;
    for &tile in &tiles {
        let alloc = &staged.tiles[&tile];
        assert_eq!(
            alloc.slot,
            own_slot(tile, slots),
            "{tile:?} took its own slot"
        );
        let want = place_descriptors(&set_of(tile), &pools, alloc.slot);
        let want: &[u8] = bytemuck::cast_slice(&want);
        for (k, page) in alloc.desc_pages.iter().enumerate() {
            let from = k * page_bytes;
            let len = (want.len() - from).min(page_bytes);
            let at = *page as usize * page_bytes;
            assert!(
                bytes[at..at + len] == want[from..from + len],
                "{tile:?}: page {page} differs from its staged descriptors"
            );
        }
    }
    f.assert_draws_like_whole(gpu, &mut staged, "gpu-cull-staged");
}

#[test]
fn occlusion_auto_rests_where_little_is_hidden_and_draws_what_off_draws() {
    gpu_or_skip!(gpu);
    let scene = preset("elwynn-dense");
    let models = GrassModels::new(gpu, &scene.models).unwrap();
    let atlas = HeightAtlas::new(gpu, scene.world()).unwrap();
    let mut terrain = crate::terrain::StaticChunks::new(gpu, scene.world()).unwrap();
    let patch = PatchSize::Block2;
    let auto = GpuCullOptions {
        patch,
        occlusion: true,
        occlusion_auto: true,
        ..GpuCullOptions::default()
    };
    let mut off = instance_tier(gpu, &models, scene, &atlas, patch, DistanceLod::default());
    let s = RenderSettings {
        wind: false,
        ..RenderSettings::default()
    };
    let (mut rested, mut kept_on) = (Vec::new(), Vec::new());
    for pose in &scene.views {
        let v = FrameView::new(camera_from_pose(pose, &s), [160, 100], 4, 0.5, s);
        let mut tier = build_with(gpu, &models, scene, &atlas, auto);
        let frames = 40;
        let (image, _) = render(
            gpu,
            &models,
            &mut Drawer::OverTerrain(&mut terrain, &mut tier),
            &v,
            frames,
        );
        let (want, _) = render(
            gpu,
            &models,
            &mut Drawer::OverTerrain(&mut terrain, &mut off),
            &v,
            1,
        );
        let (rmse, differing) = crate::grass::tests::exact_diff(&want, &image);
        assert_eq!(
            differing, 0,
            "{}: occlusion=auto changed the image: rmse {rmse}, {differing} pixels differ",
            pose.name
        );
        let gate = tier.gate.as_ref().expect("auto has a gate");
        assert_eq!(gate.frames, u64::from(frames));
        eprintln!(
            "{}: the test ran in {} of {} frames",
            pose.name, gate.ran_frames, gate.frames
        );
        if gate.ran_frames < gate.frames {
            rested.push(pose.name.clone());
        } else {
            kept_on.push(pose.name.clone());
        }
    }
    assert!(
        kept_on.iter().any(|n| n == "behind-ridge"),
        "where the terrain hides most clumps the test keeps running (rested: {rested:?})"
    );
    assert!(
        !rested.is_empty(),
        "some open view lets the test rest (kept on: {kept_on:?})"
    );
}
