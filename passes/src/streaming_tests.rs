//! Streaming parity over the whole registry: a technique that followed the
//! resident world through its residency hook
//! ([`crate::technique::Technique::residency_changed`]) draws exactly what the
//! same technique built from scratch for the same resident world draws, on
//! the way out and on the way back (tiles evicted and made resident again),
//! and no registered technique falls back to a rebuild.

use std::sync::Arc;

use glam::Vec3;
use sward_engine::gpu_or_skip;
use sward_engine::graph::Counters;
use sward_engine::{Camera, GpuContext};
use sward_scenes::world::coords::{self, TileCoord};
use sward_scenes::Scene;

use crate::frame::{FrameView, RenderSettings};
use crate::renderer::{SceneData, SceneRenderer, TargetIds};
use crate::technique::{cap_combo, registry, ResidencyChange, Subsystem, Tier, TierCombo};

const W: u32 = 96;
const H: u32 = 64;

/// Every registered technique with the other subsystem off, and grass
/// `gpu-cull:placement=gpu` (its tiles come as records, prepared on the
/// tile workers and resolved on the render thread).
fn combos(gpu: &GpuContext) -> Vec<TierCombo> {
    registry()
        .iter()
        .map(|e| (e.subsystem, e.name.to_owned()))
        .chain([(Subsystem::Grass, "gpu-cull:placement=gpu".to_owned())])
        .map(|(subsystem, name)| {
            // Default parameters: the clipmap's include local refinement,
            // whose tiles are flagged again after the resident world changed.
            let tier = Tier::parse(subsystem, &name).expect("registered names parse");
            let combo = match subsystem {
                Subsystem::Grass => TierCombo::new(tier, Tier::off(Subsystem::Terrain)),
                Subsystem::Terrain => TierCombo::new(Tier::off(Subsystem::Grass), tier),
            };
            let (capped, warnings) = cap_combo(&gpu.caps, &combo);
            assert!(
                warnings.is_empty() || !sward_engine::testing::require_gpu(),
                "{combo}: {warnings:?}"
            );
            capped
        })
        .collect()
}

/// A camera at the centre of `tile`, 40 units up, looking along +x and down.
pub(crate) fn view_over(scene: &Scene, tile: TileCoord) -> FrameView {
    let [x, y] = coords::tile_centre(tile);
    let z = scene.world().height_at(x, y).unwrap_or(0.0) + 40.0;
    let settings = RenderSettings {
        wind: false,
        ..RenderSettings::default()
    }
    .with_grass(scene.grass);
    let camera = Camera {
        eye: Vec3::new(x as f32, y as f32, z),
        yaw_deg: 30.0,
        pitch_deg: -20.0,
        ..Camera::default()
    };
    FrameView::new(camera, [W, H], 1, 0.0, settings)
}

/// Frames [`shot`] renders: enough for the GPU-culled tiers' lagged counts
/// (read back every 4 frames, available a frame or two later) to be of the
/// world drawn now, whatever their readback's phase.
const SHOT_FRAMES: usize = 12;

/// Renders [`SHOT_FRAMES`] frames of `renderer` at `view` (waiting for the
/// GPU after each, as the bench does); the last frame's image and counters.
pub(crate) fn shot(
    gpu: &GpuContext,
    renderer: &mut SceneRenderer,
    scene: &Scene,
    view: &FrameView,
) -> (image::RgbaImage, Counters) {
    let mut off = crate::testkit::Offscreen::for_view(gpu, view);
    let mut counters = Counters::default();
    for _ in 0..SHOT_FRAMES {
        let report = off.frame(gpu, |graph, t| {
            let ids = TargetIds {
                color: t.color,
                resolve: t.resolve,
                depth: t.depth,
            };
            renderer.record(gpu, SceneData::from_scene(scene), graph, view, ids);
        });
        counters = report.counters;
    }
    off.executor().flush(gpu);
    (off.image(gpu), counters)
}

/// A renderer of `combo` built for `scene` as it is now.
pub(crate) fn build_renderer(gpu: &GpuContext, scene: &Scene, combo: &TierCombo) -> SceneRenderer {
    let mut r = SceneRenderer::new();
    r.set_tiers(gpu, SceneData::from_scene(scene), combo)
        .unwrap_or_else(|e| panic!("{combo}: {e}"));
    r
}

/// Asserts that `renderer` draws at `view` what a fresh build of its tiers
/// for `scene` draws: the same instances, triangles and image. `case` opens
/// every message. Returns the image.
pub(crate) fn assert_draws_like_a_fresh_build(
    gpu: &GpuContext,
    renderer: &mut SceneRenderer,
    scene: &Scene,
    view: &FrameView,
    case: &str,
) -> image::RgbaImage {
    let (image, counters) = shot(gpu, renderer, scene, view);
    let mut fresh = build_renderer(gpu, scene, &renderer.tiers().clone());
    let (want, want_counters) = shot(gpu, &mut fresh, scene, view);
    assert_eq!(
        counters.instances_drawn, want_counters.instances_drawn,
        "{case}: instances drawn"
    );
    assert_eq!(
        counters.triangles, want_counters.triangles,
        "{case}: triangles"
    );
    let (rmse, differing) =
        sward_engine::targets::rgb_difference(image.as_raw(), want.as_raw(), 0).expect("same size");
    assert!(
        image == want,
        "{case}: image differs from a fresh build (rmse {rmse}, {differing} of pixels)"
    );
    image
}

/// Moves the window's centre to `to`; the residency changes (evictions first).
pub(crate) fn slide(scene: &mut Scene, to: TileCoord) -> Vec<ResidencyChange> {
    let before = scene.window.tiles();
    let [x, y] = coords::tile_centre(to);
    let slide = scene.follow(x, y).expect("slide").expect("window moved");
    let evicted: Vec<TileCoord> = before
        .into_iter()
        .filter(|t| !scene.window.is_resident(*t))
        .collect();
    ResidencyChange::of_tiles(&evicted, &slide.loaded)
}

/// What the streamer's workers would hand over for `changes`: the
/// renderer's tile preparer run, on another thread, on every tile made
/// resident.
pub(crate) fn prepare_off_thread(
    gpu: &GpuContext,
    renderer: &SceneRenderer,
    scene: &Scene,
    changes: &[ResidencyChange],
) -> Vec<(TileCoord, Box<dyn std::any::Any + Send>)> {
    let Some(preparer) = renderer.tile_preparer(gpu) else {
        return Vec::new();
    };
    let jobs: Vec<_> = changes
        .iter()
        .filter_map(|c| match c {
            ResidencyChange::TileResident(t) => Some(*t),
            _ => None,
        })
        .map(|t| {
            let tile = Arc::clone(scene.window.tile(t).expect("resident"));
            let placements = Arc::clone(scene.window.tile_placements(t).expect("resident"));
            (t, tile, placements)
        })
        .collect();
    std::thread::spawn(move || {
        jobs.into_iter()
            .map(|(t, tile, placements)| (t, preparer.prepare(t, &tile, &placements)))
            .collect()
    })
    .join()
    .expect("the preparing thread")
}

#[test]
fn residency_updates_draw_what_a_fresh_build_draws_for_every_tier() {
    gpu_or_skip!(gpu);
    let mut scene = crate::testkit::continent();
    let start = scene.window.centre();
    let combos = combos(gpu);
    let mut renderers: Vec<SceneRenderer> = combos
        .iter()
        .map(|c| build_renderer(gpu, &scene, c))
        .collect();
    // Out one tile, then diagonally (five tiles change), then back home:
    // the last step makes evicted tiles resident again.
    let steps = [
        start.offset(1, 0).expect("continent is wide"),
        start.offset(2, 1).expect("continent is wide"),
        start,
    ];
    for to in steps {
        let changes = slide(&mut scene, to);
        assert!(!changes.is_empty());
        let view = view_over(&scene, to);
        for (combo, renderer) in combos.iter().zip(&mut renderers) {
            // The per-tile work is prepared as the tile workers would.
            let prepared = prepare_off_thread(gpu, renderer, &scene, &changes);
            let report = renderer
                .residency_changed(gpu, SceneData::from_scene(&scene), &changes, prepared)
                .unwrap_or_else(|e| panic!("{combo} at {to:?}: {e}"));
            assert_eq!(
                report.prepared_inline, 0,
                "{combo}: every technique with a preparer used the worker's result"
            );
            for name in report.rebuilt.iter().chain(&report.applied) {
                assert!(
                    combo.to_string().contains(name.as_str()),
                    "{combo}: report names {name}"
                );
            }
            // Every registered technique updates in place: none is rebuilt.
            assert!(
                report.rebuilt.is_empty() && report.applied.len() == 1,
                "{combo} at {to:?}: rebuilt {:?}, applied {:?}",
                report.rebuilt,
                report.applied
            );
            // The per-part times name the one subsystem drawn (after the
            // renderer's shared height atlas, where the technique binds it)
            // and add up to the total.
            let subsystem = if combo.grass.is_off() {
                "terrain"
            } else {
                "grass"
            };
            let mut want_parts = Vec::new();
            if renderer.height_atlas().is_some() {
                want_parts.push("atlas");
            }
            want_parts.push(subsystem);
            assert_eq!(
                report
                    .applied_ms_by
                    .iter()
                    .map(|(s, _)| *s)
                    .collect::<Vec<_>>(),
                want_parts,
                "{combo}"
            );
            let parts: f64 = report.applied_ms_by.iter().map(|(_, ms)| ms).sum();
            assert!((parts - report.applied_ms).abs() < 1e-9, "{combo}");
            // Work a technique left to a worker thread (the clipmap's
            // refinement bake) lands before the comparison.
            renderer.settle(gpu);
            let case = format!("{combo} at {to:?}");
            let image = assert_draws_like_a_fresh_build(gpu, renderer, &scene, &view, &case);
            let name = combo.to_string().replace('+', "_");
            sward_engine::testing::keep_image(
                &image,
                &format!("streaming-{name}-{}-{}", to.x, to.y),
            );
        }
    }
}

/// Mid-slide: the worker streamer applies one finished tile per frame, so
/// while the camera crosses into the next tile the window holds some of the
/// new tiles and not others. At every frame that changed the world, the
/// renderer updated in place draws what a fresh build on that (partial)
/// world draws: tiles not yet resident are absent whole, resident ones
/// complete, whatever the order they arrived in.
#[test]
fn mid_slide_frames_draw_what_a_fresh_build_of_the_partial_world_draws() {
    use sward_scenes::streaming::{StreamConfig, Streamer};
    gpu_or_skip!(gpu);
    let mut scene = crate::testkit::continent();
    let combos: Vec<TierCombo> = ["static-batch+static-chunks", "gpu-cull+gpu-cull"]
        .iter()
        .map(|s| {
            let c = TierCombo::parse_list(s).expect("parses").remove(0);
            cap_combo(&gpu.caps, &c).0
        })
        .collect();
    let config = StreamConfig::default();
    scene.max_resident_tiles = config.max_resident_tiles();
    let mut streamer = Streamer::new(&scene.window, config);
    let start = scene.window.centre();
    let [x0, y0] = coords::tile_centre(start);
    scene
        .stream(&mut streamer, x0, y0, true)
        .expect("first load");
    let mut renderers: Vec<SceneRenderer> = combos
        .iter()
        .map(|c| build_renderer(gpu, &scene, c))
        .collect();
    let to = start.offset(1, 0).expect("continent is wide");
    let [x1, y1] = coords::tile_centre(to);
    let mut partial_frames = 0;
    let mut check = |scene: &Scene, step: &sward_scenes::streaming::StreamStep| {
        let changes = ResidencyChange::of_tiles(&step.evicted, &step.applied);
        let view = view_over(scene, to);
        for (combo, renderer) in combos.iter().zip(&mut renderers) {
            let report = renderer
                .residency_changed(gpu, SceneData::from_scene(scene), &changes, Vec::new())
                .unwrap_or_else(|e| panic!("{combo}: {e}"));
            assert!(
                report.rebuilt.is_empty(),
                "{combo}: rebuilt {:?}",
                report.rebuilt
            );
            let case = format!("{combo}, mid-slide");
            assert_draws_like_a_fresh_build(gpu, renderer, scene, &view, &case);
        }
    };
    // Walk into the next tile and stream frame by frame (waiting for the
    // workers between frames) until the new square is resident; whatever
    // is still missing after that many frames arrives in one blocking step.
    for _ in 0..1500 {
        let step = scene.stream(&mut streamer, x1, y1, false).expect("stream");
        if step.changed() {
            assert!(step.applied.len() <= 1, "one tile per frame: {step:?}");
            partial_frames += usize::from(step.missing > 0);
            check(&scene, &step);
        } else if step.missing == 0 {
            break;
        } else {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    let last = scene.stream(&mut streamer, x1, y1, true).expect("stream");
    if last.changed() {
        check(&scene, &last);
    }
    assert!(partial_frames > 0, "no frame saw a partially loaded square");
    assert!(
        scene
            .window
            .tiles()
            .iter()
            .filter(|t| t.x.abs_diff(to.x) <= 1 && t.y.abs_diff(to.y) <= 1)
            .count()
            == 9,
        "the new square is resident in the end"
    );
}
