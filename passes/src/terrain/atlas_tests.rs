//! GPU tests of the atlas terrain tiers against the `static-chunks`
//! baseline: image parity on every named view of `seams-holes` (seams, holes,
//! cliffs) and of a top-down view over holes, both multi-draw variants of
//! `gpu-cull`, the GPU cull's kept set against its CPU reference on named
//! views of `seams-holes` and `elwynn-dense`, the per-frame upload
//! counters, and the streaming builds' pools over slides out and back.
//!
//! Set `SWARD_TEST_IMAGES=DIR` to keep the rendered PNGs; run with
//! `--nocapture` to see the measured differences.

use crate::testkit::Offscreen;

use glam::Vec3;
use sward_engine::gpu_or_skip;
use sward_engine::graph::{FrameReport, RenderGraph};
use sward_engine::{Camera, Capability, GpuContext};
use sward_scenes::{Scene, World};

use super::gpu::TerrainUniforms;
use super::gpu_cull::cull::{boundary_margin, cull_reference, TerrainCullUniforms};
use super::gpu_cull::MdiVariant;
use super::testutil::cliff_world;
use super::{AtlasInstanced, GpuCullTerrain, StaticChunks};
use crate::atlas::HeightAtlas;
use crate::frame::{camera_from_pose, Frame, FrameView, RenderSettings};
use crate::technique::ResidencyChange;

const SIZE: [u32; 2] = [256, 160];

fn seams() -> &'static Scene {
    crate::testkit::preset("seams-holes")
}

#[allow(clippy::large_enum_variant)] // a handful per test, moved rarely
enum Tier {
    Static(StaticChunks),
    Atlas(AtlasInstanced),
    Culled(Box<GpuCullTerrain>),
}

impl Tier {
    fn record<'a>(&'a mut self, frame: Frame<'a>, g: &mut RenderGraph<'a>) {
        match self {
            Tier::Static(x) => x.record(frame, g),
            Tier::Atlas(x) => x.record(frame, g),
            Tier::Culled(x) => x.as_mut().record(frame, g),
        }
    }
}

/// Renders one frame of `tier` and reads the image back.
fn render(
    gpu: &GpuContext,
    tier: &mut Tier,
    camera: Camera,
    settings: RenderSettings,
    name: &str,
) -> (Vec<u8>, FrameReport) {
    let view = FrameView::new(camera, SIZE, 1, 0.0, settings);
    let mut off = Offscreen::for_view(gpu, &view);
    let report = off.frame(gpu, |g, targets| {
        tier.record(Frame::new(gpu, &view, targets), g)
    });
    let image = off.image(gpu);
    crate::testkit::keep(&image, &format!("terrain-{name}"));
    (image.into_raw(), report)
}

/// A SIZE image from its raw RGBA bytes.
fn sized_image(raw: &[u8]) -> image::RgbaImage {
    image::RgbaImage::from_raw(SIZE[0], SIZE[1], raw.to_vec()).expect("a SIZE image")
}

/// RMSE over RGB (0..255) and the fraction of pixels differing by more than
/// 16 levels in some channel.
fn diff(a: &[u8], b: &[u8]) -> (f64, f64) {
    let d = crate::testkit::diff(&sized_image(a), &sized_image(b), 16);
    (d.rmse, d.differing)
}

/// Pixels whose colour differs at all between two SIZE images (raw RGBA).
fn differing_pixels(a: &[u8], b: &[u8]) -> u64 {
    crate::testkit::differing_pixels(&sized_image(a), &sized_image(b))
}

/// The Hi-Z pyramid the culled `tier` built on its last frame, read back.
fn pyramid(gpu: &GpuContext, tier: &Tier) -> Vec<crate::hiz::Level> {
    let Tier::Culled(t) = tier else {
        unreachable!("only the culled tier builds a pyramid")
    };
    crate::testkit::read_pyramid(gpu, t.hiz().expect("pyramid made")).1
}

/// Whether the device can run the terrain's GPU cull (compute, storage
/// buffers in the vertex stage); where it cannot, `test` is skipped with one
/// line, or fails under `SWARD_REQUIRE_GPU=1`.
fn can_cull(gpu: &GpuContext, test: &str) -> bool {
    let needed = [Capability::Compute, Capability::VertexStorage];
    sward_engine::testing::has_capabilities(gpu, test, &needed)
}

fn background_pixels(img: &[u8], clear: [u8; 3]) -> usize {
    img.chunks_exact(4)
        .filter(|p| p[..3].iter().zip(clear).all(|(a, b)| a.abs_diff(b) <= 2))
        .count()
}

/// The three tiers (and the plain multi-draw variant where the device also
/// has the count one) over `world`.
fn tiers(gpu: &GpuContext, world: &World) -> Vec<(&'static str, Tier)> {
    // One atlas for the atlas tiers, as the renderer shares one; their bind
    // groups keep its resources alive.
    let atlas = HeightAtlas::new(gpu, world).unwrap_or_else(|e| panic!("{e}"));
    let mut out = vec![
        (
            "static-chunks",
            Tier::Static(StaticChunks::new(gpu, world).unwrap_or_else(|e| panic!("{e}"))),
        ),
        (
            "atlas-instanced",
            Tier::Atlas(AtlasInstanced::new(gpu, world, &atlas).unwrap_or_else(|e| panic!("{e}"))),
        ),
    ];
    if gpu.caps.has(Capability::Compute) && gpu.caps.has(Capability::VertexStorage) {
        let best = MdiVariant::for_device(gpu);
        out.push((
            "gpu-cull",
            Tier::Culled(Box::new(
                GpuCullTerrain::with_variant(gpu, world, &atlas, best)
                    .unwrap_or_else(|e| panic!("{e}")),
            )),
        ));
        if best == MdiVariant::Count {
            out.push((
                "gpu-cull-plain",
                Tier::Culled(Box::new(
                    GpuCullTerrain::with_variant(gpu, world, &atlas, MdiVariant::Plain)
                        .unwrap_or_else(|e| panic!("{e}")),
                )),
            ));
        }
    }
    out
}

/// Every named view of `seams-holes` (default look: sun, fog, sky clear)
/// renders like `static-chunks` in every atlas tier.
#[test]
fn atlas_tiers_match_static_chunks_on_named_views() {
    let gpu = gpu_or_skip!();
    let scene = seams();
    let settings = RenderSettings::default();
    let mut tiers = tiers(&gpu, scene.world());
    assert!(tiers.len() >= 3, "gpu-cull not runnable on this device");
    assert!(scene.views.len() >= 4);
    for pose in &scene.views {
        let camera = camera_from_pose(pose, &settings);
        let mut images = Vec::new();
        for (name, tier) in tiers.iter_mut() {
            let (img, _) = render(
                &gpu,
                tier,
                camera,
                settings,
                &format!("{name}-{}", pose.name),
            );
            images.push((*name, img));
        }
        let (_, base) = &images[0];
        for (name, img) in &images[1..] {
            let (rmse, frac) = diff(base, img);
            println!(
                "{} vs static-chunks, view {}: rmse {rmse:.3}, pixels > 16 levels {:.4}%",
                name,
                pose.name,
                frac * 100.0
            );
            assert!(
                rmse < 2.0 && frac < 0.005,
                "{name} on {}: rmse {rmse}, differing {frac}",
                pose.name
            );
        }
        // Both multi-draw variants draw the same triangles.
        if let [.., (_, a), (_, b)] = &images[..] {
            if images.len() == 4 {
                assert_eq!(a, b, "count and plain multi-draw differ on {}", pose.name);
            }
        }
    }
}

/// Straight down over MCNK (3, 5) of the cliff world, whose two hole blocks
/// must show the clear colour in every tier, like in `static-chunks`.
#[test]
fn holes_are_collapsed_like_the_baseline_leaves_them_out() {
    let gpu = gpu_or_skip!();
    let world = cliff_world();
    let chunk =
        sward_scenes::world::coords::ChunkCoord::from_tile(super::testutil::CLIFF_TILE, 3, 5);
    let [ox, oy] = chunk.origin();
    let m = world.mcnk(chunk).expect("resident");
    let size = sward_scenes::world::coords::CHUNK_SIZE as f32;
    let camera = Camera {
        eye: Vec3::new(
            ox as f32 - size / 2.0,
            oy as f32 - size / 2.0,
            m.header.position[2] + 120.0,
        ),
        yaw_deg: 0.0,
        pitch_deg: -90.0,
        fov_y_deg: 60.0,
        near: 0.5,
        far: 2000.0,
    };
    let settings = RenderSettings {
        fog_color: [0.0; 3],
        fog_range: [1.0e6, 2.0e6],
        terrain_distance: 1.0e5,
        ..RenderSettings::default()
    };
    let mut images = Vec::new();
    for (name, mut tier) in tiers(&gpu, &world) {
        let (img, _) = render(&gpu, &mut tier, camera, settings, &format!("{name}-holes"));
        images.push((name, img));
    }
    let holes = background_pixels(&images[0].1, [0, 0, 0]);
    assert!(holes > 100, "static-chunks shows {holes} hole pixels");
    for (name, img) in &images[1..] {
        let (rmse, frac) = diff(&images[0].1, img);
        let bg = background_pixels(img, [0, 0, 0]);
        println!("{name} top-down over holes: {bg} hole pixels (static {holes}), rmse {rmse:.3}");
        assert!(
            bg.abs_diff(holes) <= holes / 50 + 4,
            "{name}: {bg} hole pixels vs {holes}"
        );
        assert!(
            rmse < 2.0 && frac < 0.005,
            "{name}: rmse {rmse}, differing {frac}"
        );
    }
}

/// For named views (plus each turned by 45-degree steps), the MCNKs the GPU
/// cull keeps are exactly the CPU reference's; a disagreement is only
/// accepted for a box within 1e-3 units of a culling boundary (f32 ties).
#[test]
fn gpu_cull_keeps_exactly_the_cpu_reference() {
    let gpu = gpu_or_skip!();
    if !can_cull(&gpu, "gpu_cull_keeps_exactly_the_cpu_reference") {
        return;
    }
    let (mut checked, mut partial) = (0, 0);
    for scene in [seams(), crate::testkit::preset("elwynn-dense")] {
        let world = scene.world();
        let atlas = HeightAtlas::new(&gpu, world).unwrap_or_else(|e| panic!("{e}"));
        let mut tier = GpuCullTerrain::new(&gpu, world, &atlas).unwrap_or_else(|e| panic!("{e}"));
        for (k, pose) in scene.views.iter().enumerate() {
            for (turn, distance) in [(0.0, 1000.0), (45.0, 300.0), (135.0, 120.0)] {
                let settings = RenderSettings {
                    terrain_distance: distance,
                    ..RenderSettings::default()
                };
                let mut camera = camera_from_pose(pose, &settings);
                camera.yaw_deg += turn;
                let view = FrameView::new(camera, SIZE, 1, 0.0, settings);
                let mut t = Tier::Culled(Box::new(tier));
                render(
                    &gpu,
                    &mut t,
                    camera,
                    settings,
                    &format!("cull-{}-{k}", scene.name),
                );
                let Tier::Culled(back) = t else {
                    unreachable!()
                };
                tier = *back;
                let kept = tier.read_kept(&gpu).unwrap_or_else(|e| panic!("{e}"));
                let want = cull_reference(atlas.records(), &view.frustum, view.eye(), distance);
                let diff: Vec<u32> = kept
                    .iter()
                    .filter(|s| want.binary_search(s).is_err())
                    .chain(want.iter().filter(|s| kept.binary_search(s).is_err()))
                    .copied()
                    .collect();
                for s in &diff {
                    let margin = boundary_margin(
                        &atlas.records()[*s as usize],
                        &view.frustum,
                        view.eye(),
                        distance,
                    );
                    assert!(
                        margin < 1e-3,
                        "{} view {} turn {turn}: slot {s} differs (margin {margin})",
                        scene.name,
                        pose.name
                    );
                }
                if !want.is_empty() && want.len() < tier.chunk_count() {
                    partial += 1;
                }
                println!(
                    "{} view {} turn {turn} distance {distance}: GPU kept {}, CPU reference {}, {} f32 ties",
                    scene.name,
                    pose.name,
                    kept.len(),
                    want.len(),
                    diff.len()
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 21);
    assert!(
        partial * 4 >= checked * 3,
        "only {partial} of {checked} cases keep a proper subset"
    );
}

/// `gpu-cull` uploads uniforms only, whatever it keeps; `atlas-instanced`
/// uploads its uniforms plus 32 bytes per drawn MCNK.
#[test]
fn per_frame_uploads() {
    let gpu = gpu_or_skip!();
    let scene = seams();
    let settings = RenderSettings::default();
    let uniforms = TerrainUniforms::size();
    for (name, mut tier) in tiers(&gpu, scene.world()).into_iter().skip(1) {
        let mut uploads = Vec::new();
        for pose in &scene.views {
            let camera = camera_from_pose(pose, &settings);
            let (_, report) = render(
                &gpu,
                &mut tier,
                camera,
                settings,
                &format!("uploads-{name}"),
            );
            let c = report.counters;
            uploads.push((c.bytes_uploaded, c.instances_drawn, c.draw_calls));
        }
        for (bytes, drawn, calls) in &uploads {
            match &tier {
                Tier::Atlas(_) => {
                    assert_eq!(*bytes, uniforms + 32 * drawn, "{name}");
                    assert_eq!(*calls, 1);
                }
                Tier::Culled(_) => {
                    let cull = std::mem::size_of::<TerrainCullUniforms>() as u64;
                    assert_eq!(*bytes, uniforms + cull, "{name}");
                }
                Tier::Static(_) => {}
            }
        }
        println!("{name}: (bytes uploaded, instances drawn, draw calls) per view {uploads:?}");
    }
}

#[test]
fn terrain_occlusion_phases_match_the_cpu_reference() {
    use super::gpu_cull::occlusion::phases_reference;
    let gpu = gpu_or_skip!();
    if !can_cull(&gpu, "terrain_occlusion_phases_match_the_cpu_reference") {
        return;
    }
    let elwynn = crate::testkit::preset("elwynn-dense");
    let world = elwynn.world();
    let best = MdiVariant::for_device(&gpu);
    let atlas = HeightAtlas::new(&gpu, world).unwrap_or_else(|e| panic!("{e}"));
    let mut on = Tier::Culled(Box::new(
        GpuCullTerrain::with_occlusion(&gpu, world, &atlas, best).unwrap_or_else(|e| panic!("{e}")),
    ));
    let mut off = Tier::Culled(Box::new(
        GpuCullTerrain::with_variant(&gpu, world, &atlas, best).unwrap_or_else(|e| panic!("{e}")),
    ));
    assert!(elwynn.view("behind-ridge").is_some());
    let mut hidden_behind_ridge = 0;
    for pose in &elwynn.views {
        let settings = RenderSettings::default();
        let camera = camera_from_pose(pose, &settings);
        let view = FrameView::new(camera, SIZE, 1, 0.0, settings);
        let name = format!("occlusion-{}", pose.name);
        // Frame one leaves its pyramid for frame two's phase one.
        render(&gpu, &mut on, camera, settings, &name);
        let previous = pyramid(&gpu, &on);
        let (a, report) = render(&gpu, &mut on, camera, settings, &name);
        assert!(report.pass(super::gpu_cull::occlusion::PASS_HIZ).is_some());
        let current = pyramid(&gpu, &on);
        let Tier::Culled(t) = &on else { unreachable!() };
        let (one, two, hidden) = t.read_phases(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let want = phases_reference(atlas.records(), &view, Some(&previous), &current);
        let (b, _) = render(&gpu, &mut off, camera, settings, &format!("{name}-off"));
        let (rmse, _) = diff(&a, &b);
        let differing = differing_pixels(&a, &b);
        println!(
            "{}: phase one {} (CPU {}), phase two {} (CPU {}), occluded {hidden} (CPU {}); image rmse {rmse:.3}, {differing} pixels differ",
            pose.name,
            one.len(),
            want.one.len(),
            two.len(),
            want.two.len(),
            want.occluded.len()
        );
        assert_eq!(one, want.one, "{}: phase one", pose.name);
        assert_eq!(two, want.two, "{}: phase two", pose.name);
        assert_eq!(
            hidden as usize,
            want.occluded.len(),
            "{}: occluded",
            pose.name
        );
        // Occlusion leaves out only what the pyramid hides: not one pixel
        // changes.
        assert_eq!(
            differing, 0,
            "{}: occlusion changed the image (rmse {rmse}, {differing} pixels differ)",
            pose.name
        );
        if pose.name == "behind-ridge" {
            hidden_behind_ridge = hidden;
        }
    }
    assert!(hidden_behind_ridge > 0, "the ridge hides no MCNK");
    // A camera cut: last frame's pyramid is from another view, so phase one
    // wrongly hides MCNKs that phase two then draws; the image is unchanged.
    let mut phase_two_drew = 0;
    for (from, to) in [("behind-ridge", "ground-yaw0"), ("aerial", "behind-ridge")] {
        let settings = RenderSettings::default();
        let cam_from = camera_from_pose(elwynn.view(from).unwrap(), &settings);
        let cam_to = camera_from_pose(elwynn.view(to).unwrap(), &settings);
        render(&gpu, &mut on, cam_from, settings, "cut-from");
        let previous = pyramid(&gpu, &on);
        let (a, _) = render(&gpu, &mut on, cam_to, settings, &format!("cut-{from}-{to}"));
        let current = pyramid(&gpu, &on);
        let Tier::Culled(t) = &on else { unreachable!() };
        let (one, two, hidden) = t.read_phases(&gpu).unwrap_or_else(|e| panic!("{e}"));
        let view = FrameView::new(cam_to, SIZE, 1, 0.0, settings);
        let want = phases_reference(atlas.records(), &view, Some(&previous), &current);
        let (b, _) = render(&gpu, &mut off, cam_to, settings, "cut-off");
        let (rmse, _) = diff(&a, &b);
        let differing = differing_pixels(&a, &b);
        println!(
            "cut {from} -> {to}: phase one {}, phase two {} (CPU {}), occluded {hidden}; image rmse {rmse:.3}, {differing} pixels differ",
            one.len(),
            two.len(),
            want.two.len()
        );
        assert_eq!(
            (one, two.clone()),
            (want.one, want.two),
            "cut {from} -> {to}"
        );
        assert_eq!(hidden as usize, want.occluded.len());
        assert_eq!(
            differing, 0,
            "cut {from} -> {to}: rmse {rmse}, {differing} pixels differ"
        );
        phase_two_drew += two.len();
    }
    assert!(phase_two_drew > 0, "no camera cut needed phase two");
}

/// The streaming builds follow tile changes in place: after sliding the
/// `continent` window out and back, `static-chunks` holds the same
/// triangles, MCNKs and memory as a fresh streaming build of the same world
/// (its pools neither grow nor leak), and the atlas tiers keep their memory
/// and count the same resident MCNKs.
#[test]
fn streaming_builds_follow_slides_without_growth() {
    let gpu = gpu_or_skip!();
    let mut scene = crate::testkit::continent();
    let data = crate::technique::SceneData::from_scene(&scene);
    let reach = data.atlas_reach().expect("continent streams");
    let max_tiles = data.max_resident_tiles;
    let reach = Some((reach, max_tiles));
    let mut chunks = StaticChunks::streaming(&gpu, scene.world(), max_tiles, Default::default())
        .unwrap_or_else(|e| panic!("{e}"));
    // The atlas the renderer would share, updated before the tier.
    let mut height = HeightAtlas::with_reach(&gpu, scene.world(), reach.map(|(r, _)| r))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut atlas =
        AtlasInstanced::with_reach(&gpu, scene.world(), &height, reach, Default::default())
            .unwrap_or_else(|e| panic!("{e}"));
    let memory = (
        chunks.gpu_memory_bytes(),
        atlas.gpu_memory_bytes(),
        height.gpu_memory_bytes(),
    );
    let triangles = chunks.triangle_count();
    let start = scene.window.centre();
    for to in [start.offset(1, 1).expect("wide"), start] {
        let changes = crate::streaming_tests::slide(&mut scene, to);
        let evicts = |c: &ResidencyChange| matches!(c, ResidencyChange::TileEvicted(_));
        assert!(changes.iter().any(evicts));
        // Evicted tiles first, then the tiles made resident.
        for change in &changes {
            let (ResidencyChange::TileEvicted(t) | ResidencyChange::TileResident(t)) = change
            else {
                unreachable!("a slide changes whole tiles: {change:?}");
            };
            let world = scene.world();
            assert!(chunks.set_tile(&gpu, world, *t).expect("valid").is_some());
            // The atlas, then the tier, take the tile prepared as the
            // workers would.
            let (tiles, splat) = super::TerrainTile::into_parts(
                world.tile(*t).map(|a| super::TerrainTile::prepare(*t, a)),
            );
            assert!(height
                .set_tile_prepared(&gpu, world, *t, tiles.as_ref())
                .expect("valid")
                .is_some());
            assert!(atlas
                .set_tile(&gpu, world, &height, *t, splat)
                .expect("valid")
                .is_some());
        }
        let fresh = StaticChunks::streaming(&gpu, scene.world(), max_tiles, Default::default())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(chunks.triangle_count(), fresh.triangle_count(), "{to:?}");
        assert_eq!(chunks.chunk_count(), fresh.chunk_count(), "{to:?}");
        assert_eq!(
            chunks.gpu_memory_bytes(),
            fresh.gpu_memory_bytes(),
            "{to:?}"
        );
        assert_eq!(height.chunk_count(), scene.world().mcnk_count(), "{to:?}");
        assert_eq!(atlas.gpu_memory_bytes(), memory.1, "{to:?}");
        assert_eq!(height.gpu_memory_bytes(), memory.2, "{to:?}");
    }
    // Home again: exactly where it started.
    assert_eq!(chunks.triangle_count(), triangles);
    assert_eq!(chunks.gpu_memory_bytes(), memory.0);
}
