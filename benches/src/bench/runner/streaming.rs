//! The measured frames of a run along a camera path that moves the world
//! window: each frame's streaming step (tiles applied and evicted, the
//! techniques updated in place) timed beside the frame itself.

use std::collections::HashMap;

use indicatif::ProgressBar;
use sward_engine::cpu_clock::ThreadTimer;
use sward_passes::grass::TextureUpload;
use sward_passes::renderer::SceneData;
use sward_passes::technique::{ResidencyChange, TierCombo};
use sward_scenes::presets::{Scene, ViewPose};
use sward_scenes::streaming::{StreamConfig, Streamer};
use sward_scenes::world::coords;

use super::clock::{attach_gpu_times, sample_of, FrameClock};
use super::{at_pose, build_renderer, follow, with_scene_facts, Finished, Frame, FRAME_DT};
use crate::assemble::RunSamples;
use crate::bench::{BenchError, StreamMode, StreamPace};
use crate::report::Streaming;

impl Frame<'_> {
    /// Warm-up, then the measured frames along `poses`, streaming the
    /// world as `mode` says. [`StreamMode::RenderThread`]: when a pose
    /// leaves the window's centre tile the window slides on the render
    /// thread (`Scene::follow`). [`StreamMode::Workers`]: a [`Streamer`]
    /// loads tiles on worker threads and the render thread applies finished
    /// ones within its budget. Either way the frame that changed the world
    /// then updates every technique through its residency hook
    /// ([`SceneRenderer::residency_changed`]: in place, or rebuilt where a
    /// technique cannot); the costs land in that frame as the
    /// `streaming.load` (render thread) or `streaming.apply` (workers) and
    /// `streaming.techniques` (with its parts `streaming.techniques.atlas`,
    /// the renderer's shared height atlas, `.terrain` and `.grass`) /
    /// `streaming.rebuild` sections. Then the
    /// window goes back to the screenshot view's tile for the screenshot.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::bench) fn measure_streaming(
        &mut self,
        scene: &mut Scene,
        combo: &TierCombo,
        upload: TextureUpload,
        mode: StreamMode,
        pace: StreamPace,
        config: StreamConfig,
        poses: &[ViewPose],
        shot: &ViewPose,
        samples: &mut RunSamples,
        bar: &ProgressBar,
    ) -> Result<(image::RgbaImage, Finished), BenchError> {
        let tier = samples.tier.to_string();
        let gpu = self.gpu;

        scene.max_resident_tiles = match mode {
            StreamMode::Workers => config.max_resident_tiles(),
            StreamMode::RenderThread => scene.window.tiles().len(),
        };
        // Unmeasured: the window starts at the path's first tile, loaded.
        follow(scene, &poses[0])?;
        let mut streamer = match mode {
            StreamMode::Workers => {
                let mut s = Streamer::new(&scene.window, config);
                let [x, y, _] = poses[0].eye.map(f64::from);
                scene
                    .stream(&mut s, x, y, true)
                    .map_err(|e| at_pose(&poses[0], e))?;
                Some(s)
            }
            StreamMode::RenderThread => None,
        };
        let mut stream = Streaming {
            mode: mode.name().into(),
            radius: match mode {
                StreamMode::Workers => config.radius,
                StreamMode::RenderThread => scene.window.radius(),
            },
            slides: 0,
            changes: 0,
            tiles_loaded: 0,
            tiles_evicted: 0,
            tile_bytes: 0,
            bytes_uploaded: 0,
            max_frame_ms: 0.0,
            max_load_ms: 0.0,
            max_queue_depth: 0,
            techniques_applied: 0,
            techniques_rebuilt: 0,
            max_technique_ms: 0.0,
            prepared_off_thread: 0,
            prepared_inline: 0,
            prepare_worker_ms: 0.0,
            slide_frames: Vec::new(),
            pace: match mode {
                StreamMode::Workers => pace.name().into(),
                StreamMode::RenderThread => String::new(),
            },
            worker_wait_ms: 0.0,
            max_worker_wait_ms: 0.0,
            frames_missing_tiles: 0,
            max_frame_thread_ms: None,
            worker_tile_ms: None,
            worker_tile_thread_ms: None,
        };
        let mut worker_tiles = Vec::new();
        let (mut renderer, _) = build_renderer(gpu, scene, combo, upload, &tier)?;
        // A terrain tier with its own view distance sets it for this run.
        self.settings = renderer.settings_for(self.settings);
        // The techniques' per-tile preparation runs on the tile workers.
        if let Some(s) = streamer.as_mut() {
            s.set_preparer(renderer.tile_preparer(gpu));
        }
        for w in 0..self.plan.warmup {
            self.render(&mut renderer, scene, &poses[0], w as f32 * FRAME_DT, &tier)?;
            bar.inc(1);
        }
        self.executor.flush(self.gpu);
        let mut by_frame = HashMap::new();
        let mut centre = coords::tile_at(f64::from(poses[0].eye[0]), f64::from(poses[0].eye[1]))
            .unwrap_or_else(|| scene.window.centre());
        for (i, pose) in poses.iter().enumerate() {
            let [x, y, _] = pose.eye.map(f64::from);
            // Keeping up: the workers finish this frame's resident square
            // before the frame starts (the wait is not the frame's time).
            if let (Some(s), StreamPace::KeepUp) = (streamer.as_mut(), pace) {
                let waited = s
                    .wait_ready(&scene.window, x, y)
                    .map_err(|e| at_pose(pose, e))?;
                stream.worker_wait_ms += waited;
                stream.max_worker_wait_ms = stream.max_worker_wait_ms.max(waited);
            }
            let clock = FrameClock::start();
            let started = clock.wall;
            if let Some(tile) = coords::tile_at(x, y).filter(|t| *t != centre) {
                centre = tile;
                stream.slides += 1;
                stream.slide_frames.push(i as u32);
            }
            // This frame's streaming step: what changed in the resident world.
            let (section, changes, prepared) = match streamer.as_mut() {
                None => {
                    let before = scene.window.tiles();
                    match follow(scene, pose)? {
                        Some(slide) => {
                            stream.tiles_loaded += slide.loaded.len() as u32;
                            stream.tiles_evicted += slide.dropped as u32;
                            stream.tile_bytes += slide.bytes as u64;
                            let evicted: Vec<_> = before
                                .into_iter()
                                .filter(|t| !scene.window.is_resident(*t))
                                .collect();
                            (
                                "streaming.load",
                                ResidencyChange::of_tiles(&evicted, &slide.loaded),
                                Vec::new(),
                            )
                        }
                        None => ("streaming.load", Vec::new(), Vec::new()),
                    }
                }
                Some(s) => {
                    let step = scene.stream(s, x, y, false).map_err(|e| at_pose(pose, e))?;
                    stream.tiles_loaded += step.applied.len() as u32;
                    stream.tiles_evicted += step.evicted.len() as u32;
                    stream.tile_bytes += step.bytes;
                    stream.max_queue_depth = stream.max_queue_depth.max(step.queue_depth as u32);
                    stream.frames_missing_tiles += u32::from(step.missing > 0);
                    worker_tiles.extend(step.worker_tiles.iter().copied());
                    let (prepared, worker_ms) = s.take_prepared();
                    stream.prepare_worker_ms += worker_ms;
                    (
                        "streaming.apply",
                        ResidencyChange::of_tiles(&step.evicted, &step.applied),
                        prepared,
                    )
                }
            };
            let mut sections = Vec::new();
            let mut thread_sections = Vec::new();
            if !changes.is_empty() {
                let load_ms = started.elapsed().as_secs_f64() * 1e3;
                let load_thread_ms = clock.thread.elapsed_ms();
                stream.max_load_ms = stream.max_load_ms.max(load_ms);
                stream.changes += 1;
                let techniques_thread = ThreadTimer::start();
                let r = renderer
                    .residency_changed(gpu, SceneData::from_scene(scene), &changes, prepared)
                    .map_err(|source| BenchError::Pass {
                        tier: tier.clone(),
                        source,
                    })?;
                if let (Some(load), Some(techniques)) =
                    (load_thread_ms, techniques_thread.elapsed_ms())
                {
                    thread_sections.push((section.to_owned(), load));
                    thread_sections.push(("streaming.techniques".to_owned(), techniques));
                    let max = stream.max_frame_thread_ms.get_or_insert(0.0);
                    *max = max.max(load + techniques);
                }
                stream.techniques_applied += r.applied.len() as u32;
                stream.techniques_rebuilt += r.rebuilt.len() as u32;
                stream.prepared_off_thread += r.prepared_off_thread;
                stream.prepared_inline += r.prepared_inline;
                stream.bytes_uploaded += r.bytes_uploaded;
                let technique_ms = r.applied_ms + r.rebuild_ms;
                stream.max_technique_ms = stream.max_technique_ms.max(technique_ms);
                stream.max_frame_ms = stream.max_frame_ms.max(load_ms + technique_ms);
                sections.push((section.to_owned(), load_ms));
                sections.push(("streaming.techniques".to_owned(), r.applied_ms));
                for (subsystem, ms) in &r.applied_ms_by {
                    sections.push((format!("streaming.techniques.{subsystem}"), *ms));
                }
                if !r.rebuilt.is_empty() {
                    sections.push(("streaming.rebuild".to_owned(), r.rebuild_ms));
                }
            }
            let report = self.render(&mut renderer, scene, pose, i as f32 * FRAME_DT, &tier)?;
            let measured = clock.finish();
            sections.extend(self.frame_sections(&report));
            thread_sections.extend(self.frame_thread_sections(&report));
            self.gpu.wait_idle();
            by_frame.insert(report.frame, samples.frames.len());
            samples
                .frames
                .push(sample_of(&report, measured, sections, thread_sections));
            for times in self.executor.poll_gpu_times(self.gpu) {
                attach_gpu_times(samples, &by_frame, times);
            }
            bar.inc(1);
        }
        for times in self.executor.flush(self.gpu) {
            attach_gpu_times(samples, &by_frame, times);
        }
        let wall: Vec<f64> = worker_tiles.iter().map(|w| w.wall_ms).collect();
        let thread: Option<Vec<f64>> = worker_tiles.iter().map(|w| w.thread_ms).collect();
        stream.worker_tile_ms = crate::stats::Stats::from_samples(&wall).ok();
        stream.worker_tile_thread_ms =
            thread.and_then(|t| crate::stats::Stats::from_samples(&t).ok());
        samples.streaming = Some(stream);
        drop(streamer);
        // The run's facts are the measured renderer's (counts over the
        // frames it streamed, such as the clipmap's refinement re-bakes),
        // not those of the renderer built for the screenshot below.
        let facts = with_scene_facts(renderer.facts(&SceneData::from_scene(scene)), scene);
        // Unmeasured: back to the screenshot view's tile, as a 3x3 window.
        follow(scene, shot)?;
        for t in scene.window.tiles() {
            let c = scene.window.centre();
            if t.x.abs_diff(c.x) > 1 || t.y.abs_diff(c.y) > 1 {
                scene.window.evict(t);
            }
        }
        scene.stats = scene.window.stats();
        let (mut renderer, _) = build_renderer(gpu, scene, combo, upload, &tier)?;
        let image = self.screenshot(&mut renderer, scene, shot)?;
        let done = Finished {
            facts,
            ..Finished::of(&renderer, scene)
        };
        Ok((image, done.with_read_back(gpu, &renderer)))
    }
}
