//! GPU tests of the instanced grass tiers on the `seams-holes` preset, with
//! small targets (256x160), terrain off and black fog/clear so that every lit
//! pixel is grass. Shared helpers here; [`tiers`]: both tiers show grass,
//! agree, count honestly, hold the reference matrices, cut at the draw
//! distance and sway; [`suppressed`]: no grass where hole or noEffectDoodad
//! cells project to the screen; [`textures`]: DXT textures uploaded as BC
//! blocks or decoded on the CPU sample the same texels.
//!
//! Set `SWARD_TEST_IMAGES=DIR` to keep the rendered PNGs.

pub(crate) mod suppressed;
mod textures;
mod tiers;
mod work;

use glam::Vec3;
use sward_engine::graph::FrameReport;
use sward_engine::{Camera, GpuContext};
use sward_scenes::Scene;

use super::{GrassModels, LegacyCpu, StaticBatch};
use crate::frame::{Frame, FrameView, RenderSettings};
use crate::testkit::Offscreen;

pub(crate) const W: u32 = 256;
pub(crate) const H: u32 = 160;

pub(crate) fn scene() -> &'static Scene {
    crate::testkit::preset("seams-holes")
}

/// The `seams-holes` scene and its grass models: where most grass tests
/// begin.
pub(crate) fn scene_and_models(gpu: &GpuContext) -> (&'static Scene, GrassModels) {
    let scene = scene();
    let models = GrassModels::new(gpu, &scene.models)
        .unwrap_or_else(|e| panic!("the seams-holes grass models: {e}"));
    (scene, models)
}

/// Black fog (also the clear colour), wind off: every non-black pixel is grass.
pub(crate) fn settings() -> RenderSettings {
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

/// A view of `camera` at the test size with `samples` and `settings` at `time_s`.
fn view(camera: Camera, samples: u32, settings: RenderSettings, time_s: f32) -> FrameView {
    FrameView::new(camera, [W, H], samples, time_s, settings)
}

/// Renders `frames` frames of `tier` (at least one) and reads the last back.
fn render(
    gpu: &GpuContext,
    models: &GrassModels,
    tier: &mut Tier,
    view: &FrameView,
    frames: u32,
) -> Shot {
    let mut off = Offscreen::for_view(gpu, view);
    let mut report = None;
    for _ in 0..frames.max(1) {
        report = Some(off.frame(gpu, |g, targets| match &mut *tier {
            Tier::Static(t) => t.record(Frame::new(gpu, view, targets), g, models),
            Tier::Legacy(t) => t.record(Frame::new(gpu, view, targets), g, models),
        }));
    }
    Shot {
        image: off.image(gpu),
        report: report.expect("at least one frame"),
    }
}

/// Writes `image` as `$SWARD_TEST_IMAGES/grass-NAME.png` when that is set.
pub(crate) fn save(image: &image::RgbaImage, name: &str) {
    crate::testkit::keep(image, &format!("grass-{name}"));
}

pub(crate) fn is_grass(p: &image::Rgba<u8>) -> bool {
    p[0].max(p[1]).max(p[2]) > 12
}

pub(crate) fn grass_fraction(image: &image::RgbaImage) -> f64 {
    image.pixels().filter(|p| is_grass(p)).count() as f64 / f64::from(W * H)
}

/// (rmse over RGB in 0..1, pixels whose colour differs at all).
pub(crate) fn exact_diff(a: &image::RgbaImage, b: &image::RgbaImage) -> (f64, u64) {
    let d = crate::testkit::diff(a, b, 0);
    (d.rmse / 255.0, crate::testkit::differing_pixels(a, b))
}

/// (rmse over RGB in 0..1, fraction of pixels differing by more than 8/255).
pub(crate) fn image_diff(a: &image::RgbaImage, b: &image::RgbaImage) -> (f64, f64) {
    let d = crate::testkit::diff(a, b, 8);
    (d.rmse / 255.0, d.differing)
}

pub(crate) fn ground_camera(scene: &Scene) -> Camera {
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
        Tier::Static(StaticBatch::new(gpu, models, scene.placements()).unwrap()),
        Tier::Legacy(LegacyCpu::new(gpu, models, scene.placements()).unwrap()),
    ]
}
