//! The GPU test harness every technique test of this crate renders through:
//! an offscreen target and a graph executor that run frames of any
//! technique's passes ([`Offscreen`]), one image comparison ([`diff`]), one
//! place that keeps rendered images for a person to look at ([`keep`],
//! `SWARD_TEST_IMAGES=DIR`), and presets built once per test binary
//! ([`preset`]), and the real 3.3.5 tile where the real client files are
//! ([`real_335_tile`]). The shared device and capability checks come from
//! `sward_engine::testing` (`gpu()`, `has_capabilities`: a test that needs a
//! capability the device lacks is skipped with one line, or fails under
//! `SWARD_REQUIRE_GPU=1`).
//!
//! A frame is recorded by a closure that gets the graph and the target
//! handles, so a test drives a technique exactly as the renderer does
//! (`tier.record(Frame::new(gpu, &view, targets), g, models)`), and several techniques
//! can share one frame (terrain first, grass over its depth):
//!
//! ```ignore
//! let mut off = Offscreen::for_view(gpu, &view);
//! for _ in 0..frames {
//!     off.frame(gpu, |g, targets| tier.record(Frame::new(gpu, &view, targets), g, models));
//! }
//! let image = off.image(gpu);
//! ```

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use sward_engine::graph::{FrameReport, GraphExecutor, RenderGraph};
use sward_engine::targets::OffscreenTarget;
use sward_engine::GpuContext;
use sward_scenes::{Preset, Scene};

use crate::frame::{FrameView, PassTargets};

/// An offscreen colour (+ MSAA resolve) and depth target with its own graph
/// executor; frames rendered into it keep the executor's state (pooled
/// transients, GPU timers) from one to the next, as the renderer's do.
pub(crate) struct Offscreen {
    target: OffscreenTarget,
    executor: GraphExecutor,
}

impl Offscreen {
    /// A `size` target with `samples` samples per pixel (1 or 4).
    pub(crate) fn new(gpu: &GpuContext, size: [u32; 2], samples: u32) -> Self {
        let target = OffscreenTarget::new(&gpu.device, size[0], size[1], samples)
            .unwrap_or_else(|e| panic!("test target {size:?} x{samples}: {e}"));
        let executor = GraphExecutor::new(gpu).unwrap_or_else(|e| panic!("test executor: {e}"));
        Offscreen { target, executor }
    }

    /// A target of the view's size and sample count.
    pub(crate) fn for_view(gpu: &GpuContext, view: &FrameView) -> Self {
        Self::new(gpu, view.size, view.sample_count)
    }

    /// Runs one frame whose passes `record` adds (`targets` say to clear
    /// colour and depth first), waits for the device, and returns the
    /// frame's report. A graph or wgpu error fails the test with its
    /// message.
    pub(crate) fn frame<'a>(
        &mut self,
        gpu: &'a GpuContext,
        record: impl FnOnce(&mut RenderGraph<'a>, PassTargets),
    ) -> FrameReport {
        let mut g = RenderGraph::new();
        let targets = PassTargets {
            color: g.import_texture("target.color", self.target.render_color()),
            resolve: self
                .target
                .resolve_color()
                .map(|t| g.import_texture("target.resolve", t)),
            depth: g.import_texture("target.depth", &self.target.depth),
            clear: true,
        };
        record(&mut g, targets);
        let report = self
            .executor
            .execute(gpu, g)
            .unwrap_or_else(|e| panic!("test frame: {e}"));
        gpu.wait_idle();
        report
    }

    /// The (resolved) colour of the last frame.
    pub(crate) fn image(&self, gpu: &GpuContext) -> image::RgbaImage {
        self.target
            .read_color(&gpu.device, &gpu.queue)
            .unwrap_or_else(|e| panic!("reading the test target back: {e}"))
    }

    /// The executor (GPU times: `flush`).
    pub(crate) fn executor(&mut self) -> &mut GraphExecutor {
        &mut self.executor
    }
}

/// How two images of one size differ, over RGB.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ImageDiff {
    /// Root mean square of the channel differences, 0..255.
    pub rmse: f64,
    /// Fraction of pixels with a channel differing by more than the threshold.
    pub differing: f64,
}

/// `a` against `b` (same size), counting pixels whose largest channel
/// difference exceeds `threshold` (0..255).
pub(crate) fn diff(a: &image::RgbaImage, b: &image::RgbaImage, threshold: u8) -> ImageDiff {
    assert_eq!(
        a.dimensions(),
        b.dimensions(),
        "compared images differ in size"
    );
    let (rmse, differing) =
        sward_engine::targets::rgb_difference(a.as_raw(), b.as_raw(), threshold)
            .expect("images of one size");
    ImageDiff { rmse, differing }
}

/// Pixels of `a` and `b` (same size) whose colour differs at all: what a
/// test asserts is zero where the docs call two pictures identical.
pub(crate) fn differing_pixels(a: &image::RgbaImage, b: &image::RgbaImage) -> u64 {
    let d = diff(a, b, 0);
    (d.differing * f64::from(a.width()) * f64::from(a.height())).round() as u64
}

/// Keeps `image` as `$SWARD_TEST_IMAGES/NAME.png` when that is set.
pub(crate) fn keep(image: &image::RgbaImage, name: &str) {
    sward_engine::testing::keep_image(image, name);
}

/// The preset `name`, built once per test binary and shared by every test
/// that asks for it (presets are deterministic, and tests only read them).
pub(crate) fn preset(name: &str) -> &'static Scene {
    static SCENES: OnceLock<Mutex<HashMap<String, &'static Scene>>> = OnceLock::new();
    let map = SCENES.get_or_init(Default::default);
    // Built under the lock: two tests asking for one preset build it once.
    let mut map = map.lock().unwrap_or_else(|e| e.into_inner());
    map.entry(name.to_owned()).or_insert_with(|| {
        let scene = Preset::by_name(name)
            .and_then(|p| p.build())
            .unwrap_or_else(|e| panic!("preset `{name}`: {e}"));
        Box::leak(Box::new(scene))
    })
}

/// The pyramid `hiz` built on its last frame, read back level by level,
/// with the target size (pixels) it covers.
pub(crate) fn read_pyramid(
    gpu: &GpuContext,
    hiz: &crate::hiz::HiZ,
) -> ([u32; 2], Vec<crate::hiz::Level>) {
    let (pixels, size, _) = hiz.shape().expect("a pyramid was made");
    let texture = hiz.texture().expect("a pyramid was made");
    let levels = crate::hiz::read_levels(&gpu.device, &gpu.queue, texture, size);
    (pixels, levels)
}

/// The `continent` preset built anew, for a test that slides its window
/// (the scenes [`preset`] shares are read-only).
pub(crate) fn continent() -> Scene {
    Preset::by_name("continent")
        .and_then(|p| p.build())
        .unwrap_or_else(|e| panic!("preset `continent`: {e}"))
}

/// The real 3.3.5 tile Azeroth 42,29 (the folder from
/// [`sward_scenes::testing::real_data`]) placed with the client policy (the
/// 3.3.5 routine), its models placeholders; `None` (the test passes, saying
/// so in one line naming `test`) without `SWARD_REAL_DATA`, a failure under
/// `SWARD_REQUIRE_REAL_DATA=1`.
pub(crate) fn real_335_tile(test: &str) -> Option<Scene> {
    let client = sward_scenes::testing::real_data(test)?.join("client-335");
    let src = sward_scenes::formats::DataSource::open(&client)
        .unwrap_or_else(|e| panic!("{}: {e}", client.display()));
    let sel = sward_scenes::formats::WorldSelection {
        map: Some("Azeroth".into()),
        at: None,
        tile: Some(sward_scenes::TileCoord::new(42, 29)),
    };
    let policy = sward_scenes::Policy::Client(Default::default());
    let scene = sward_scenes::formats::load_scene_from(std::sync::Arc::new(src), &sel, policy)
        .unwrap_or_else(|e| panic!("the real 3.3.5 tile loads: {e}"));
    Some(scene)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_counts_pixels_over_the_threshold_and_presets_are_built_once() {
        let a = image::RgbaImage::from_pixel(4, 2, image::Rgba([10, 10, 10, 255]));
        let mut b = a.clone();
        b.put_pixel(0, 0, image::Rgba([30, 10, 10, 255]));
        b.put_pixel(1, 0, image::Rgba([15, 10, 10, 255]));
        let d = diff(&a, &b, 8);
        assert_eq!(d.differing, 1.0 / 8.0, "only the 20-level pixel is over 8");
        let want = ((20.0f64 * 20.0 + 5.0 * 5.0) / 24.0).sqrt();
        assert!((d.rmse - want).abs() < 1e-9, "{} vs {want}", d.rmse);
        assert_eq!(diff(&a, &a, 0).rmse, 0.0);
        // Exact: any change of any colour channel counts, alpha does not.
        assert_eq!(differing_pixels(&a, &b), 2);
        assert_eq!(differing_pixels(&a, &a), 0);
        let mut c = a.clone();
        c.put_pixel(3, 1, image::Rgba([10, 10, 11, 255]));
        assert_eq!(differing_pixels(&a, &c), 1);
        let one = preset("seams-holes") as *const Scene;
        let two = preset("seams-holes") as *const Scene;
        assert_eq!(one, two, "a preset is built once and shared");
    }
}
