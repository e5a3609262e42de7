//! Viewer setup and the scene loop: opens the window, the GPU context and the
//! surface, builds the preset, and runs frames until the user quits, picks
//! another preset or another client density setting (the scene is rebuilt;
//! for a density the camera stays where it is). A world larger than the resident
//! window streams while the camera moves: worker threads load tiles, the
//! frame applies finished ones within its budget and the techniques update
//! through their residency hooks; the message line shows each step.

use std::sync::Arc;
use std::time::Instant;

use sward_engine::graph::GraphExecutor;
use sward_engine::{GpuContext, GpuOptions, OffscreenTarget};
use sward_passes::renderer::{SceneData, SceneRenderer};
use sward_passes::technique::ResidencyChange;
use sward_passes::RenderSettings;
use sward_passes::TierCombo;
use sward_scenes::formats::DataOptions;
use sward_scenes::presets::{open_preset, Preset, Scene};
use sward_scenes::streaming::{StreamConfig, Streamer};
use winit::event_loop::EventLoop;
use winit::window::Window;

use crate::camera::{FlyCamera, InputState, MoveMode};
use crate::error::ViewerError;
use crate::present::Presenter;
use crate::profiler::Profiler;
use crate::script::Script;
use crate::shell::Shell;
use crate::state::{Config, ViewerState};
use crate::stats::FrameStats;
use crate::ViewerOptions;

/// Why a scene's frame loop ended.
pub(crate) enum SceneExit {
    /// The user (or `--frames`) ended the run.
    Quit,
    /// Another preset was picked.
    Preset(String),
    /// Another density setting was picked (placements rebuilt, camera kept).
    Density(u32),
}

/// Worker-thread streaming for worlds larger than the resident window
/// (`continent`); `None` for worlds that are resident whole.
fn streamer_for(scene: &Scene) -> Option<Streamer> {
    (scene.adts > scene.window.tiles().len())
        .then(|| Streamer::new(&scene.window, StreamConfig::default()))
}

/// Everything that outlives one scene.
pub struct Viewer {
    pub(crate) opts: ViewerOptions,
    pub(crate) event_loop: EventLoop<()>,
    pub(crate) shell: Shell,
    pub(crate) window: Arc<Window>,
    pub(crate) gpu: GpuContext,
    pub(crate) presenter: Presenter,
    pub(crate) egui_ctx: egui::Context,
    pub(crate) egui_state: egui_winit::State,
    pub(crate) target: OffscreenTarget,
    pub(crate) executor: GraphExecutor,
    pub(crate) state: ViewerState,
    pub(crate) stats: FrameStats,
    pub(crate) profiler: Profiler,
    pub(crate) camera: FlyCamera,
    pub(crate) input: InputState,
    pub(crate) script: Script,
    /// Frames drawn so far (all scenes).
    pub(crate) frame: u64,
    /// The frame whose script actions already ran.
    pub(crate) script_ran: Option<u64>,
    pub(crate) started: Instant,
    pub(crate) last_frame: Option<Instant>,
    /// Pass names of the last frame (the table keeps only these).
    pub(crate) pass_names: Vec<String>,
}

/// Preset `name`'s world, or the world `data` names placed with the
/// preset's policy, at the client density setting `density` when given (an
/// error for a `per-cell` preset): the resolver every command shares.
fn build_scene(name: &str, data: &DataOptions, density: Option<u32>) -> Result<Scene, ViewerError> {
    let opts = DataOptions {
        density,
        ..data.clone()
    };
    Ok(open_preset(name, &opts)?.scene(&opts)?)
}

/// Runs the viewer until the window closes or `--frames` frames are drawn.
pub fn run(opts: ViewerOptions) -> Result<(), ViewerError> {
    let script = Script::parse(opts.script.as_deref().unwrap_or(""))?;
    let combo: TierCombo = match &opts.tier {
        Some(t) => t
            .parse()
            .map_err(|e| ViewerError::Usage(format!("--tier `{t}`: {e}")))?,
        None => TierCombo::baseline(),
    };
    if opts.msaa != 1 && opts.msaa != 4 {
        return Err(ViewerError::Usage(format!(
            "--msaa {} is not supported: use 1 or 4",
            opts.msaa
        )));
    }
    let started = Instant::now();
    let mut scene = build_scene(&opts.preset, &opts.data, opts.data.density)?;
    log::info!(
        "viewer: built preset {} in {:.0} ms",
        scene.name,
        started.elapsed().as_secs_f64() * 1e3
    );
    let (event_loop, shell, window) = Shell::open(&opts)?;
    let gpu = GpuContext::new(&GpuOptions {
        adapter: opts.adapter.clone(),
        ..GpuOptions::default()
    })?;
    let presenter = Presenter::new(&gpu, window.clone(), !opts.no_vsync)?;
    let egui_ctx = egui::Context::default();
    let egui_state = egui_winit::State::new(
        egui_ctx.clone(),
        egui::ViewportId::ROOT,
        &window,
        Some(window.scale_factor() as f32),
        None,
        Some(gpu.device.limits().max_texture_dimension_2d as usize),
    );
    let (msaa, warning) = gpu.caps.cap_msaa(opts.msaa);
    let [w, h] = presenter.size();
    let target = OffscreenTarget::new(&gpu.device, w, h, msaa)?;
    let executor = GraphExecutor::new(&gpu)?;
    let config = Config {
        combo: TierCombo::baseline(),
        settings: RenderSettings::default().with_grass(scene.grass),
        msaa,
    };
    let mut state = ViewerState::new(
        gpu.caps.clone(),
        &scene.name,
        config,
        !opts.no_vsync,
        !opts.no_panel,
    );
    if let Some(w) = warning {
        state.message(w);
    }
    state.want_tiers(combo);
    state.config.combo = state.wanted.combo.clone();
    state.density = scene.policy().density();
    state.wanted_density = state.density;
    let camera = start_camera(&scene, opts.view.as_deref(), opts.data.dir.is_some())?;
    state.views = scene.views.iter().map(|v| v.name.clone()).collect();
    let profiler = Profiler::new(opts.profiler);
    let mut viewer = Viewer {
        opts,
        event_loop,
        shell,
        window,
        gpu,
        presenter,
        egui_ctx,
        egui_state,
        target,
        executor,
        state,
        stats: FrameStats::new(),
        profiler,
        camera,
        input: InputState::default(),
        script,
        frame: 0,
        script_ran: None,
        started,
        last_frame: None,
        pass_names: Vec::new(),
    };
    let mut streamer = streamer_for(&scene);
    loop {
        match viewer.run_scene(&mut scene, streamer.as_mut())? {
            SceneExit::Quit => break,
            SceneExit::Density(d) => {
                let t0 = Instant::now();
                drop(streamer.take());
                // The preset's name: a data scene is named after its map.
                scene = build_scene(&viewer.opts.preset, &viewer.opts.data, Some(d))?;
                streamer = streamer_for(&scene);
                viewer.state.density = Some(d);
                viewer.state.message(format!(
                    "density {d}: {} placements, scene rebuilt in {:.0} ms",
                    scene.stats.placements,
                    t0.elapsed().as_secs_f64() * 1e3
                ));
            }
            SceneExit::Preset(name) => {
                let t0 = Instant::now();
                drop(streamer.take());
                // The density setting carries over to another client preset.
                let density = viewer.state.wanted_density.filter(|_| {
                    Preset::by_name(&name).is_ok_and(|p| p.policy().density().is_some())
                });
                scene = build_scene(&name, &viewer.opts.data, density)?;
                viewer.opts.preset.clone_from(&name);
                viewer.state.density = scene.policy().density();
                viewer.state.wanted_density = viewer.state.density;
                streamer = streamer_for(&scene);
                let grass = viewer.state.config.settings.with_grass(scene.grass);
                viewer.state.config.settings = grass;
                viewer.camera = start_camera(&scene, None, viewer.opts.data.dir.is_some())?;
                viewer.state.preset = scene.name.clone();
                viewer.state.views = scene.views.iter().map(|v| v.name.clone()).collect();
                viewer.state.message(format!(
                    "preset {} built in {:.0} ms",
                    scene.name,
                    t0.elapsed().as_secs_f64() * 1e3
                ));
            }
        }
    }
    viewer.executor.flush(&viewer.gpu);
    println!("sward run: {}", viewer.stats.summary_line());
    Ok(())
}

/// The camera at the scene's view `name` (default: a data scene's `grass`
/// view, a preset's first view; see [`Scene::start_view`]).
fn start_camera(scene: &Scene, name: Option<&str>, data: bool) -> Result<FlyCamera, ViewerError> {
    Ok(FlyCamera::from_pose(scene.start_view(name, data)?))
}

impl Viewer {
    /// Frames of one scene; the renderer lives as long as the scene, and
    /// a streaming world updates both in place every frame.
    fn run_scene(
        &mut self,
        scene: &mut Scene,
        mut streamer: Option<&mut Streamer>,
    ) -> Result<SceneExit, ViewerError> {
        let t0 = Instant::now();
        let mut renderer = SceneRenderer::new().with_texture_upload(self.opts.data.texture_upload);
        let combo = self.state.config.combo.clone();
        let pass_err = |source| ViewerError::Pass {
            tier: combo.to_string(),
            source,
        };
        renderer
            .set_tiers(&self.gpu, SceneData::from_scene(scene), &combo)
            .map_err(pass_err)?;
        let built_ms = t0.elapsed().as_secs_f64() * 1e3;
        self.state
            .message(format!("{combo} built in {built_ms:.0} ms"));
        self.adopt_view_distance(&renderer);
        let mut prepared_for: Option<TierCombo> = None;
        loop {
            self.pump_events();
            self.run_script();
            if self.state.quit {
                return Ok(SceneExit::Quit);
            }
            if self.state.wanted_preset != self.state.preset {
                return Ok(SceneExit::Preset(self.state.wanted_preset.clone()));
            }
            if let Some(d) = self
                .state
                .wanted_density
                .filter(|d| Some(*d) != self.state.density)
            {
                return Ok(SceneExit::Density(d));
            }
            self.apply_wanted(&mut renderer, scene)?;
            self.take_view_requests(scene);
            let now = Instant::now();
            let dt = self
                .last_frame
                .map_or(0.0, |t| now.duration_since(t).as_secs_f32().min(0.25));
            self.camera.mode = if self.state.walk {
                MoveMode::Walk
            } else {
                MoveMode::Fly
            };
            let world = scene.world();
            self.camera
                .update(&mut self.input, dt, |x, y| world.height_at(x, y));
            let eye = self.camera.eye;
            let (x, y) = (f64::from(eye.x), f64::from(eye.y));
            if let Some(s) = streamer.as_deref_mut() {
                // The techniques' per-tile work runs on the tile workers,
                // for the combination drawn now.
                if prepared_for.as_ref() != Some(&self.state.config.combo) {
                    s.set_preparer(renderer.tile_preparer(&self.gpu));
                    prepared_for = Some(self.state.config.combo.clone());
                }
                self.stream(&mut renderer, scene, s, x, y)?;
            }
            self.draw(&mut renderer, scene)?;
            if self.opts.frames.is_some_and(|n| self.frame >= n) {
                if let Some(path) = self.opts.screenshot.clone() {
                    self.screenshot(Some(path))?;
                }
                return Ok(SceneExit::Quit);
            }
        }
    }

    /// One streaming step with the camera at `(x, y)`: applies finished
    /// tiles within the budget, updates the techniques through their
    /// residency hooks and says what happened on the message line.
    fn stream(
        &mut self,
        renderer: &mut SceneRenderer,
        scene: &mut Scene,
        streamer: &mut Streamer,
        x: f64,
        y: f64,
    ) -> Result<(), ViewerError> {
        let queued = streamer.queue_depth();
        let step = scene.stream(streamer, x, y, false)?;
        if step.changed() {
            let changes = ResidencyChange::of_tiles(&step.evicted, &step.applied);
            let (prepared, _) = streamer.take_prepared();
            let combo = self.state.config.combo.to_string();
            let r = renderer
                .residency_changed(&self.gpu, SceneData::from_scene(scene), &changes, prepared)
                .map_err(|source| ViewerError::Pass {
                    tier: combo,
                    source,
                })?;
            self.state.message(format!(
                "streaming: {} tiles applied, {} evicted; render thread {:.1} ms tiles + {:.1} ms \
                 techniques ({} updated in place, {} rebuilt; {} tile preparations done on workers, \
                 {} here); {} of the window loading, {} queued",
                step.applied.len(),
                step.evicted.len(),
                step.ms,
                r.applied_ms + r.rebuild_ms,
                r.applied.len(),
                r.rebuilt.len(),
                r.prepared_off_thread,
                r.prepared_inline,
                step.missing,
                step.queue_depth
            ));
        } else if streamer.queue_depth() != queued {
            self.state.message(format!(
                "streaming: {} tiles queued on workers",
                streamer.queue_depth()
            ));
        }
        Ok(())
    }

    /// A terrain tier with its own view distance (`clipmap:distance=N`):
    /// the terrain distance and fog follow it, as in `sward bench` and
    /// `sward shot` (the panel's slider can move it afterwards).
    fn adopt_view_distance(&mut self, renderer: &SceneRenderer) {
        let Some(d) = renderer.view_distance() else {
            return;
        };
        if self.state.wanted.settings.terrain_distance != d {
            self.state.wanted.settings = renderer.settings_for(self.state.wanted.settings);
            self.state.config.settings = self.state.wanted.settings;
            self.state.message(format!(
                "terrain distance {d:.0} (set by the terrain tier; fog scaled with it)"
            ));
        }
    }

    /// Applies what the panel, keys or script asked for since the last frame.
    fn apply_wanted(
        &mut self,
        renderer: &mut SceneRenderer,
        scene: &Scene,
    ) -> Result<(), ViewerError> {
        let wanted = self.state.wanted.clone();
        if wanted.combo != self.state.config.combo {
            let t0 = Instant::now();
            match renderer.set_tiers(&self.gpu, SceneData::from_scene(scene), &wanted.combo) {
                Ok(()) => {
                    self.state.config.combo = wanted.combo.clone();
                    self.state.message(format!(
                        "switched to {} in {:.0} ms",
                        wanted.combo,
                        t0.elapsed().as_secs_f64() * 1e3
                    ));
                    self.adopt_view_distance(renderer);
                }
                Err(e) => {
                    self.state.wanted.combo = self.state.config.combo.clone();
                    self.state
                        .message(format!("cannot switch to {}: {e}", wanted.combo));
                }
            }
        }
        if wanted.msaa != self.state.config.msaa {
            let [w, h] = self.presenter.size();
            self.target = OffscreenTarget::new(&self.gpu.device, w, h, wanted.msaa)?;
            self.state.config.msaa = wanted.msaa;
        }
        self.state.config.settings = wanted.settings;
        if self.state.vsync != self.presenter.vsync() {
            self.presenter.set_vsync(&self.gpu, self.state.vsync);
            self.state
                .message(format!("present mode {:?}", self.presenter.present_mode()));
        }
        let size = self.presenter.size();
        if size != [self.target.width, self.target.height] {
            self.target =
                OffscreenTarget::new(&self.gpu.device, size[0], size[1], self.state.config.msaa)?;
        }
        Ok(())
    }
}
