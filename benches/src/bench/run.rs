//! `sward bench` from start to report, step by step ([`run_bench`]):
//! validate the options, set up the device and the scene, measure every
//! combination in turn ([`Bench::measure_all`]: warm-up, measured frames
//! and screenshot each), diff the screenshots against the baseline's, and
//! commit the report with how the bench ran ([`report_config`]). The frame
//! loop itself is [`super::runner`]'s.

use std::collections::BTreeMap;
use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressStyle};
use sward_engine::graph::GraphExecutor;
use sward_engine::{GpuContext, GpuOptions, OffscreenTarget};
use sward_passes::grass::TextureUploadStats;
use sward_passes::renderer::{SceneData, SceneRenderer};
use sward_passes::technique::TierCombo;
use sward_passes::RenderSettings;
use sward_scenes::presets::Scene;

use super::runner::{
    build_error, choose_combos, measured_poses, or_refused, scene_info, Finished, Frame, Measured,
};
use super::{BenchError, BenchOptions, BenchPlan};
use crate::assemble::{build_comparisons, build_run, RunSamples};
use crate::imagediff::diff_images;
use crate::report::{
    AdapterInfo, Report, SceneInfo, TextureCounts, TierPair, CONFIG_INDIRECT_VALIDATION,
    CONFIG_TEXTURE_UPLOAD, SCHEMA,
};
use crate::writer::{ensure_writable_dir, ReportStaging};

/// What a finished bench produced.
#[derive(Debug)]
pub struct BenchOutcome {
    /// Report directory.
    pub dir: PathBuf,
    /// The report as written.
    pub report: Report,
    /// Plain-text headline table for the terminal.
    pub headline: String,
    /// Tier capping warnings (each once).
    pub warnings: Vec<String>,
}

/// Runs the bench described by `opts`: validate, set up the device and the
/// scene, measure every combination, diff the screenshots against the
/// baseline's, and commit the report.
pub fn run_bench(opts: &BenchOptions) -> Result<BenchOutcome, BenchError> {
    // The tile workers time their jobs on their own thread CPU clock.
    sward_scenes::streaming::set_thread_clock(sward_engine::cpu_clock::thread_cpu_ns);
    let plan = opts.plan()?;
    ensure_writable_dir(&plan.out)?;
    let gpu = GpuContext::new(&GpuOptions {
        adapter: opts.adapter.clone(),
        validate_indirect_calls: opts.indirect_validation,
        ..GpuOptions::default()
    })?;
    let (combos, warnings) = choose_combos(&plan, &gpu.caps)?;
    for w in &warnings {
        log::warn!("{w}");
        eprintln!("warning: {w}");
    }
    let mut scene = plan.preset.scene(&opts.data)?;
    let shot_view = scene.pick_view(None)?.clone();
    let staging = ReportStaging::begin(&plan.out)?;
    let target = OffscreenTarget::new(&gpu.device, plan.size[0], plan.size[1], plan.msaa)
        .map_err(|e| BenchError::Usage(format!("--size/--msaa: {e}")))?;
    let mut executor = GraphExecutor::new(&gpu).map_err(|source| BenchError::Graph {
        tier: "setup".into(),
        source,
    })?;
    let settings = bench_settings(&scene, opts.view_distance)?;
    let measured = measured_poses(&scene, opts, plan.frames, shot_view)?;
    let mut bench = Bench {
        gpu: &gpu,
        target: &target,
        settings,
        plan: &plan,
        opts,
        measured: &measured,
        staging: &staging,
        out: Collected::default(),
    };
    bench.measure_all(&mut executor, &mut scene, &combos)?;
    let Collected {
        runs,
        images,
        texture_stats,
        refused,
    } = bench.out;
    let diffs = diff_against_baseline(&images)?;
    let comparisons = build_comparisons(&runs, &diffs)?;
    let config = report_config(opts, &plan, &executor, &scene, &settings, &warnings);
    let report = Report {
        schema: SCHEMA.to_owned(),
        sward_version: env!("CARGO_PKG_VERSION").to_owned(),
        preset: scene.name.clone(),
        adapter: AdapterInfo {
            name: gpu.summary.name.clone(),
            backend: gpu.summary.backend.clone(),
            device_type: gpu.summary.device_type.clone(),
            driver: format!("{} {}", gpu.summary.driver, gpu.summary.driver_info)
                .trim()
                .to_owned(),
        },
        size: plan.size,
        msaa: plan.msaa,
        frames: plan.frames,
        warmup: plan.warmup,
        scene: SceneInfo {
            textures: texture_stats.map(|t: TextureUploadStats| TextureCounts {
                bc: t.bc,
                decoded: t.decoded,
                rgba: t.rgba,
            }),
            ..scene_info(&scene)
        },
        config,
        runs,
        comparisons,
        refused,
    };
    let committed = staging.commit(&report)?;
    let headline = crate::markdown::headline_text(&report);
    Ok(BenchOutcome {
        dir: committed.dir,
        report,
        headline,
        warnings,
    })
}

/// The render settings of every run: the scene's grass range, and
/// `--view-distance` (fog scaled) when given.
fn bench_settings(scene: &Scene, view_distance: Option<f32>) -> Result<RenderSettings, BenchError> {
    let base = RenderSettings::default().with_grass(scene.grass);
    match view_distance {
        None => Ok(base),
        Some(d) if d.is_finite() && d > 0.0 => Ok(base.with_view_distance(d)),
        Some(d) => Err(BenchError::Usage(format!(
            "--view-distance {d}: must be a positive number of world units"
        ))),
    }
}

/// What the runs of a bench left for the report.
#[derive(Default)]
struct Collected {
    runs: Vec<crate::report::Run>,
    images: BTreeMap<TierPair, image::RgbaImage>,
    texture_stats: Option<TextureUploadStats>,
    refused: Vec<crate::report::Refusal>,
}

/// One bench's fixed parts while its combinations are measured in turn.
struct Bench<'b> {
    gpu: &'b GpuContext,
    target: &'b OffscreenTarget,
    settings: RenderSettings,
    plan: &'b BenchPlan,
    opts: &'b BenchOptions,
    measured: &'b Measured,
    staging: &'b ReportStaging,
    out: Collected,
}

impl Bench<'_> {
    /// Measures every combination (baseline first), each with its warm-up,
    /// measured frames and screenshot; a combination that refuses the
    /// scene or the device is recorded and passed. A camera path named by
    /// `--path` that leaves the resident window moves it, as the viewer
    /// does; without `--path` the window stays put.
    fn measure_all(
        &mut self,
        executor: &mut GraphExecutor,
        scene: &mut Scene,
        combos: &[TierCombo],
    ) -> Result<(), BenchError> {
        let streams = self.opts.path.is_some() && scene.adts > scene.window.tiles().len();
        let per_run = u64::from(self.plan.warmup + self.plan.frames + 1);
        let bar = ProgressBar::new(per_run * combos.len() as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        if streams {
            for combo in combos {
                self.measure_streaming(executor, scene, combo, &bar, per_run)?;
            }
        } else {
            let data = SceneData::from_scene(scene);
            let mut renderer =
                SceneRenderer::new().with_texture_upload(self.opts.data.texture_upload);
            for combo in combos {
                let tier = TierPair::of(combo);
                bar.set_message(tier.to_string());
                let built = renderer
                    .set_tiers(self.gpu, data, combo)
                    .map_err(|source| build_error(&tier.to_string(), source));
                if !or_refused(built, &tier, &mut self.out.refused)? {
                    bar.inc(per_run);
                    continue;
                }
                // A terrain tier with its own view distance
                // (`clipmap:distance=N`) overrides `--view-distance` for its run.
                let settings = renderer.settings_for(self.settings);
                renderer.begin_run();
                let mut frame = Frame::new(self.gpu, executor, self.target, settings, self.plan);
                let mut samples = RunSamples::new(tier.clone());
                frame.measure(
                    &mut renderer,
                    scene,
                    &self.measured.poses,
                    &mut samples,
                    &bar,
                )?;
                let image = frame.screenshot(&mut renderer, scene, &self.measured.shot_view)?;
                bar.inc(1);
                let done = Finished::of(&renderer, scene).with_read_back(self.gpu, &renderer);
                self.finish(samples, image, done)?;
            }
        }
        bar.finish_and_clear();
        Ok(())
    }

    /// One combination along a streaming camera path (its own renderer,
    /// rebuilt or updated as tiles come and go).
    fn measure_streaming(
        &mut self,
        executor: &mut GraphExecutor,
        scene: &mut Scene,
        combo: &TierCombo,
        bar: &ProgressBar,
        per_run: u64,
    ) -> Result<(), BenchError> {
        let tier = TierPair::of(combo);
        bar.set_message(tier.to_string());
        let mut frame = Frame::new(self.gpu, executor, self.target, self.settings, self.plan);
        let mut samples = RunSamples::new(tier.clone());
        let measured = frame.measure_streaming(
            scene,
            combo,
            self.opts.data.texture_upload,
            self.opts.stream,
            self.opts.stream_pace,
            self.opts.stream_config,
            &self.measured.poses,
            &self.measured.shot_view,
            &mut samples,
            bar,
        );
        let (image, done) = match measured {
            Ok(m) => m,
            Err(e) => {
                or_refused(Err(e), &tier, &mut self.out.refused)?;
                bar.inc(per_run);
                return Ok(());
            }
        };
        bar.inc(1);
        self.finish(samples, image, done)
    }

    /// Writes a run's screenshot into the staged report and keeps the run
    /// with its memory, facts and where it was measured.
    fn finish(
        &mut self,
        mut samples: RunSamples,
        image: image::RgbaImage,
        done: Finished,
    ) -> Result<(), BenchError> {
        let tier = samples.tier.clone();
        let file = format!("{}.png", tier.file_stem());
        image
            .save(self.staging.dir().join(&file))
            .map_err(|e| BenchError::Image {
                what: format!("writing {file}"),
                message: e.to_string(),
            })?;
        samples.image = Some(file);
        samples.gpu_memory_bytes = done.gpu_memory_bytes;
        for (key, value) in done.facts {
            samples.extra.insert(key, value.into());
        }
        let (key, name) = &self.measured.at;
        samples.extra.insert((*key).into(), name.clone().into());
        samples.extra.insert(
            "screenshot_view".into(),
            self.measured.shot_view.name.clone().into(),
        );
        self.out.runs.push(build_run(&samples)?);
        self.out.images.insert(tier, image);
        self.out.texture_stats = done.texture_stats.or(self.out.texture_stats);
        Ok(())
    }
}

/// Every screenshot diffed against the baseline's (none without one).
fn diff_against_baseline(
    images: &BTreeMap<TierPair, image::RgbaImage>,
) -> Result<BTreeMap<TierPair, crate::report::ImageDiff>, BenchError> {
    let mut diffs = BTreeMap::new();
    let Some(base) = images.get(&TierPair::baseline()) else {
        return Ok(diffs);
    };
    for (tier, img) in images {
        if !tier.is_baseline() {
            let d = diff_images(img, base).map_err(|e| BenchError::Image {
                what: format!("diffing {tier} against the baseline"),
                message: e.to_string(),
            })?;
            diffs.insert(tier.clone(), d);
        }
    }
    Ok(diffs)
}

/// The report's `config`: how the bench ran (indirect validation,
/// timestamps, texture upload, placement, data, distances, tier caps).
fn report_config(
    opts: &BenchOptions,
    plan: &BenchPlan,
    executor: &GraphExecutor,
    scene: &Scene,
    settings: &RenderSettings,
    warnings: &[String],
) -> BTreeMap<String, serde_json::Value> {
    let mut config = BTreeMap::new();
    config.insert(
        CONFIG_INDIRECT_VALIDATION.to_owned(),
        opts.indirect_validation.into(),
    );
    config.insert(
        "timestamps".to_owned(),
        executor.timestamps_enabled().into(),
    );
    config.insert(
        CONFIG_TEXTURE_UPLOAD.to_owned(),
        opts.data.texture_upload.name().into(),
    );
    config.insert("frames_serialised".to_owned(), true.into());
    config.insert("quick".to_owned(), plan.quick.into());
    config.insert("placement_policy".to_owned(), scene.policy().name().into());
    if let Some(d) = scene.policy().density() {
        config.insert("placement_density".to_owned(), d.into());
    }
    if let Some(dir) = &opts.data.dir {
        config.insert("data_dir".to_owned(), dir.display().to_string().into());
    }
    config.insert(
        "view_distance".to_owned(),
        f64::from(settings.terrain_distance).into(),
    );
    config.insert(
        "grass_distance".to_owned(),
        f64::from(settings.grass_distance).into(),
    );
    if !warnings.is_empty() {
        config.insert("tier_caps".to_owned(), warnings.to_vec().into());
    }
    config
}
