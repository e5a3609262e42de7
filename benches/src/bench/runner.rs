//! The bench loop: one GPU context, one preset, every combination measured in
//! turn with the same camera path, then screenshots, diffs and the report.

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use indicatif::ProgressBar;
use sward_engine::cpu_clock::ThreadTimer;
use sward_engine::graph::{GraphExecutor, RenderGraph};
use sward_engine::{Caps, GpuContext, OffscreenTarget};
use sward_passes::grass::{TextureUpload, TextureUploadStats};
use sward_passes::renderer::{SceneData, SceneRenderer, TargetIds};
use sward_passes::technique::{cap_combo, default_bench_combos, TierCombo};
use sward_passes::{camera_from_pose, FrameView, RenderSettings};
use sward_scenes::presets::{CameraPath, Scene, ViewPose};

use super::{BenchError, BenchOptions, BenchPlan};
use crate::assemble::RunSamples;
use crate::report::{SceneInfo, TierPair};

mod clock;
mod streaming;

use clock::{attach_gpu_times, sample_of, FrameClock};

/// Fixed animation step of measured frames (seconds), so every combination sees
/// the same wind phases.
const FRAME_DT: f32 = 1.0 / 60.0;

/// The combinations to run, baseline first, each capped to the device
/// (one warning per capped tier) and kept once per distinct parameter set.
pub(crate) fn choose_combos(
    plan: &BenchPlan,
    caps: &Caps,
) -> Result<(Vec<TierCombo>, Vec<String>), BenchError> {
    let baseline = TierCombo::baseline();
    let (_, base_warnings) = cap_combo(caps, &baseline);
    if !base_warnings.is_empty() {
        return Err(BenchError::Usage(format!(
            "this device cannot run the {baseline} baseline: {}",
            base_warnings.join("; ")
        )));
    }
    let mut warnings = Vec::new();
    let mut out = vec![baseline];
    let wanted = match &plan.requested {
        Some(list) => list.clone(),
        None => default_bench_combos(caps),
    };
    for combo in wanted {
        let (capped, w) = cap_combo(caps, &combo);
        for w in w {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        if !out.contains(&capped) {
            out.push(capped);
        }
    }
    Ok((out, warnings))
}

/// Where a run's frames are measured.
pub(super) struct Measured {
    /// One pose per measured frame.
    pub(super) poses: Vec<ViewPose>,
    /// The view the screenshot takes.
    pub(super) shot_view: ViewPose,
    /// The report fact naming it: `("path", name)` or `("view", name)`.
    pub(super) at: (&'static str, String),
}

/// The poses the measured frames use, the view the screenshot takes, and
/// what the report's facts call it (`("path", name)` or `("view", name)`):
/// the preset's camera path (or the one `--path` names), or with `--view`
/// every frame at that named view (which the screenshot then shows too).
pub(super) fn measured_poses(
    scene: &Scene,
    opts: &BenchOptions,
    frames: u32,
    shot_view: ViewPose,
) -> Result<Measured, BenchError> {
    if let Some(name) = &opts.view {
        let view = scene.pick_view(Some(name))?;
        let poses = vec![view.clone(); frames as usize];
        return Ok(Measured {
            poses,
            shot_view: view.clone(),
            at: ("view", name.clone()),
        });
    }
    let path = match opts.path.as_deref() {
        None => &scene.path,
        Some(name) => scene.camera_path(name).ok_or_else(|| {
            let names: Vec<&str> = scene.camera_paths().map(|p| p.name.as_str()).collect();
            BenchError::Usage(if names.is_empty() {
                format!(
                    "--path `{name}`: preset `{}` has no camera paths",
                    scene.name
                )
            } else {
                format!(
                    "--path `{name}`: preset `{}` has no such camera path; paths: {}",
                    scene.name,
                    names.join(", ")
                )
            })
        })?,
    };
    Ok(Measured {
        poses: path_poses(scene, path, frames),
        shot_view,
        at: ("path", path.name.clone()),
    })
}

/// `frames` poses evenly spaced along `path` (one of the scene's).
pub(crate) fn path_poses(scene: &Scene, path: &CameraPath, frames: u32) -> Vec<ViewPose> {
    let duration = path.duration();
    (0..frames)
        .map(|i| {
            let t = duration * i as f32 / (frames.max(2) - 1) as f32;
            path.sample(t).unwrap_or_else(|| scene.views[0].clone())
        })
        .collect()
}

pub(super) fn scene_info(scene: &Scene) -> SceneInfo {
    let world = scene.world();
    let mut mcnks = 0u32;
    let mut triangles = 0u64;
    for tile in world.tiles() {
        for chunk in tile.mcnks.iter() {
            mcnks += 1;
            let open = (0..8u32)
                .flat_map(|r| (0..8u32).map(move |c| (r, c)))
                .filter(|&(r, c)| !chunk.header.is_hole(r, c))
                .count();
            triangles += 4 * open as u64;
        }
    }
    SceneInfo {
        adts: world.tiles().len() as u32,
        mcnks,
        placements: scene.stats.placements,
        models: scene.models.len() as u32,
        triangles_terrain: triangles,
        missing_models: scene.missing_models.len() as u32,
        placeholder_models: scene.placeholder_models().len() as u32,
        placeholder_placements: scene.placeholder_placements(),
        absent_tiles: scene.absent_tiles().len() as u32,
        client: scene.client.clone(),
        textures: None,
    }
}

/// What a run leaves for the report besides its frames.
pub(super) struct Finished {
    pub(super) gpu_memory_bytes: u64,
    pub(super) facts: BTreeMap<String, f64>,
    pub(super) texture_stats: Option<TextureUploadStats>,
}

impl Finished {
    pub(super) fn of(renderer: &SceneRenderer, scene: &Scene) -> Self {
        let mut facts = with_scene_facts(renderer.facts(&SceneData::from_scene(scene)), scene);
        facts.extend(crate::memory::grass_memory_facts(
            renderer.grass_gpu_memory_bytes(),
            scene.stats.placements,
        ));
        Finished {
            gpu_memory_bytes: renderer.gpu_memory_bytes(),
            facts,
            texture_stats: renderer.texture_stats(),
        }
    }

    /// With the facts `renderer` reads back from its last frame, the
    /// screenshot's (the clipmap's work per level, for the one view every
    /// run of the bench shares).
    pub(super) fn with_read_back(mut self, gpu: &GpuContext, renderer: &SceneRenderer) -> Self {
        self.facts.extend(renderer.read_back_facts(gpu));
        self
    }
}

/// A run's technique facts plus the scene's own (`scene.dangling_doodads`,
/// `scene.dangling_effects`, `scene.missing_models`: what the data names but
/// does not have, drawn as nothing as the client does).
fn with_scene_facts(mut facts: BTreeMap<String, f64>, scene: &Scene) -> BTreeMap<String, f64> {
    facts.extend(scene.facts());
    facts
}

/// A renderer for `scene`'s resident window with `combo` built, and how
/// long building took (ms).
pub(crate) fn build_renderer(
    gpu: &GpuContext,
    scene: &Scene,
    combo: &TierCombo,
    upload: TextureUpload,
    tier: &str,
) -> Result<(SceneRenderer, f64), BenchError> {
    let t0 = Instant::now();
    let mut renderer = SceneRenderer::new().with_texture_upload(upload);
    renderer
        .set_tiers(gpu, SceneData::from_scene(scene), combo)
        .map_err(|source| build_error(tier, source))?;
    Ok((renderer, t0.elapsed().as_secs_f64() * 1e3))
}

/// A tier that could not be built: [`BenchError::Refused`] when it refuses
/// the scene or the device (invalid input, a device limit, a missing
/// capability), which the bench reports and goes past; any other failure
/// stops the bench.
pub(crate) fn build_error(tier: &str, source: sward_passes::PassError) -> BenchError {
    use sward_passes::PassError as E;
    match source {
        E::InvalidInput { .. } | E::DeviceLimit { .. } | E::MissingCapability { .. } => {
            BenchError::Refused {
                tier: tier.to_owned(),
                source,
            }
        }
        source => BenchError::Pass {
            tier: tier.to_owned(),
            source,
        },
    }
}

/// `result`, or `Ok(false)` after recording a refused non-baseline tier in
/// `refused` (with a warning): the caller goes on with the next tier.
pub(super) fn or_refused(
    result: Result<(), BenchError>,
    tier: &TierPair,
    refused: &mut Vec<crate::report::Refusal>,
) -> Result<bool, BenchError> {
    match result {
        Ok(()) => Ok(true),
        Err(BenchError::Refused { source, .. }) if !tier.is_baseline() => {
            log::warn!("tier {tier} refused, not measured: {source}");
            refused.push(crate::report::Refusal {
                tier: tier.clone(),
                reason: source.to_string(),
            });
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

/// A streaming error at `pose`, naming it.
fn at_pose(pose: &ViewPose, e: sward_scenes::window::WindowError) -> BenchError {
    let [x, y, _] = pose.eye;
    BenchError::Usage(format!(
        "camera path `{}` at ({x:.0}, {y:.0}): {e}",
        pose.name
    ))
}

/// Slides `scene`'s window to the tile under `pose` (an error names the pose).
fn follow(
    scene: &mut Scene,
    pose: &ViewPose,
) -> Result<Option<sward_scenes::window::WindowSlide>, BenchError> {
    let [x, y, _] = pose.eye.map(f64::from);
    scene.follow(x, y).map_err(|e| {
        BenchError::Usage(format!(
            "camera path `{}` at ({x:.0}, {y:.0}): {e}",
            pose.name
        ))
    })
}

/// What every frame of a run shares.
pub(crate) struct Frame<'f> {
    gpu: &'f GpuContext,
    executor: &'f mut GraphExecutor,
    target: &'f OffscreenTarget,
    settings: RenderSettings,
    plan: &'f BenchPlan,
    /// CPU ms the last [`Self::render`] spent building the graph (the
    /// techniques' `record`, outside their pass closures).
    record_ms: f64,
    /// The same in the render thread's own CPU time.
    record_thread_ms: Option<f64>,
}

impl<'f> Frame<'f> {
    /// Borrowed state for rendering frames of one plan.
    pub(crate) fn new(
        gpu: &'f GpuContext,
        executor: &'f mut GraphExecutor,
        target: &'f OffscreenTarget,
        settings: RenderSettings,
        plan: &'f BenchPlan,
    ) -> Self {
        Frame {
            gpu,
            executor,
            target,
            settings,
            plan,
            record_ms: 0.0,
            record_thread_ms: None,
        }
    }

    /// The plan the frames follow.
    pub(crate) fn plan(&self) -> &BenchPlan {
        self.plan
    }

    /// The device.
    pub(crate) fn gpu(&self) -> &GpuContext {
        self.gpu
    }

    /// GPU times (and work counters) of frames that finished, without
    /// waiting.
    pub(crate) fn poll_gpu_times(&mut self) -> Vec<sward_engine::graph::GpuFrameTimes> {
        self.executor.poll_gpu_times(self.gpu)
    }

    /// Waits for every submitted frame and answers their GPU times.
    pub(crate) fn flush(&mut self) -> Vec<sward_engine::graph::GpuFrameTimes> {
        self.executor.flush(self.gpu)
    }

    /// Warm-up, then the measured frames along `poses`.
    pub(in crate::bench) fn measure(
        &mut self,
        renderer: &mut SceneRenderer,
        scene: &Scene,
        poses: &[ViewPose],
        samples: &mut RunSamples,
        bar: &ProgressBar,
    ) -> Result<(), BenchError> {
        let tier = samples.tier.to_string();
        for i in 0..self.plan.warmup {
            self.render(renderer, scene, &poses[0], i as f32 * FRAME_DT, &tier)?;
            bar.inc(1);
        }
        self.executor.flush(self.gpu);
        let mut by_frame = HashMap::new();
        for (i, pose) in poses.iter().enumerate() {
            let clock = FrameClock::start();
            let report = self.render(renderer, scene, pose, i as f32 * FRAME_DT, &tier)?;
            let measured = clock.finish();
            // Serialise frames: the next frame's CPU work must not overlap this
            // frame's GPU work, or per-pass CPU times would absorb driver waits.
            self.gpu.wait_idle();
            by_frame.insert(report.frame, samples.frames.len());
            samples.frames.push(sample_of(
                &report,
                measured,
                self.frame_sections(&report),
                self.frame_thread_sections(&report),
            ));
            for times in self.executor.poll_gpu_times(self.gpu) {
                attach_gpu_times(samples, &by_frame, times);
            }
            bar.inc(1);
        }
        for times in self.executor.flush(self.gpu) {
            attach_gpu_times(samples, &by_frame, times);
        }
        Ok(())
    }

    /// Records and submits one frame.
    pub(crate) fn render(
        &mut self,
        renderer: &mut SceneRenderer,
        scene: &Scene,
        pose: &ViewPose,
        time_s: f32,
        tier: &str,
    ) -> Result<sward_engine::graph::FrameReport, BenchError> {
        puffin::GlobalProfiler::lock().new_frame();
        let view = FrameView::new(
            camera_from_pose(pose, &self.settings),
            self.plan.size,
            self.plan.msaa,
            time_s,
            self.settings,
        );
        let started = std::time::Instant::now();
        let started_thread = ThreadTimer::start();
        let mut graph = RenderGraph::new();
        let ids = TargetIds::import(&mut graph, self.target);
        renderer.record(
            self.gpu,
            SceneData::from_scene(scene),
            &mut graph,
            &view,
            ids,
        );
        self.record_ms = started.elapsed().as_secs_f64() * 1e3;
        self.record_thread_ms = started_thread.elapsed_ms();
        self.executor
            .execute(self.gpu, graph)
            .map_err(|source| BenchError::Graph {
                tier: tier.to_owned(),
                source,
            })
    }

    /// The last frame's named CPU work outside its passes: building the
    /// graph (`frame.record`) and the executor's own steps.
    fn frame_sections(&self, report: &sward_engine::graph::FrameReport) -> Vec<(String, f64)> {
        std::iter::once(("frame.record", self.record_ms))
            .chain(report.overhead)
            .map(|(name, ms)| (name.to_owned(), ms))
            .collect()
    }

    /// [`Self::frame_sections`] in the render thread's own CPU time (the
    /// sections the platform's thread clock measured).
    fn frame_thread_sections(
        &self,
        report: &sward_engine::graph::FrameReport,
    ) -> Vec<(String, f64)> {
        std::iter::once(("frame.record", self.record_thread_ms))
            .chain(
                report
                    .overhead
                    .iter()
                    .zip(report.overhead_thread_ms)
                    .map(|((name, _), ms)| (*name, ms)),
            )
            .filter_map(|(name, ms)| Some((name.to_owned(), ms?)))
            .collect()
    }

    /// Renders `pose` at time 0 and reads the resolved colour back.
    pub(crate) fn screenshot(
        &mut self,
        renderer: &mut SceneRenderer,
        scene: &Scene,
        pose: &ViewPose,
    ) -> Result<image::RgbaImage, BenchError> {
        let tier = renderer.tiers().to_string();
        self.render(renderer, scene, pose, 0.0, &tier)?;
        self.executor.flush(self.gpu);
        self.target
            .read_color(&self.gpu.device, &self.gpu.queue)
            .map_err(|e| BenchError::Image {
                what: format!("reading back {tier}"),
                message: e.to_string(),
            })
    }
}

#[cfg(test)]
mod refusal_tests {
    use super::*;
    use sward_passes::PassError;

    fn invalid() -> PassError {
        PassError::InvalidInput {
            technique: "grass.camera-grid",
            what: "ground effect table".into(),
            reason: "24982 effects; the control word indexes at most 4096".into(),
        }
    }

    #[test]
    fn a_refusing_tier_is_recorded_and_passed_while_other_failures_stop_the_bench() {
        let tier = TierPair::new("camera-grid", "static-chunks");
        let mut refused = Vec::new();
        // Invalid input, a device limit or a missing capability: refused.
        let e = build_error(&tier.to_string(), invalid());
        assert!(matches!(e, BenchError::Refused { .. }), "{e}");
        assert!(!or_refused(Err(e), &tier, &mut refused).expect("passed"));
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0].tier, tier);
        assert!(refused[0].reason.contains("4096"), "{}", refused[0].reason);
        assert!(or_refused(Ok(()), &tier, &mut refused).expect("ok"));
        // The baseline refusing stops the bench: nothing to compare with.
        let base = TierPair::baseline();
        let e = build_error(&base.to_string(), invalid());
        assert!(or_refused(Err(e), &base, &mut refused).is_err());
        // Other failures (a shader that does not compile) stop it too.
        let e = build_error(
            &tier.to_string(),
            PassError::InvalidParams {
                technique: "grass.camera-grid",
                reason: "x".into(),
            },
        );
        assert!(matches!(e, BenchError::Pass { .. }));
        assert!(or_refused(Err(e), &tier, &mut refused).is_err());
        assert_eq!(refused.len(), 1);
    }
}
