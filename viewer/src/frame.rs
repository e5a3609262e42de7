//! One frame of the viewer: pumping window events (into egui first, then the
//! camera and the shortcut keys), running due script actions, laying out the
//! overlay, recording the scene and the present pass into one render graph,
//! presenting, and feeding statistics and the profiler; plus screenshots and
//! captures.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use sward_engine::graph::RenderGraph;
use sward_passes::renderer::{SceneData, SceneRenderer, TargetIds};
use sward_passes::FrameView;
use sward_scenes::presets::Scene;
use winit::event::{ElementState, WindowEvent};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::platform::pump_events::{EventLoopExtPumpEvents, PumpStatus};

use crate::app::Viewer;
use crate::error::ViewerError;
use crate::present::Overlay;
use crate::script::Action;
use crate::state::Request;

/// Default output path under `out/viewer/` for a request without a file name.
fn default_path(kind: &str, frame: u64, ext: &str) -> PathBuf {
    PathBuf::from("out/viewer").join(format!("{kind}-{frame:06}.{ext}"))
}

impl Viewer {
    /// Handles every queued window event (non-blocking).
    pub(crate) fn pump_events(&mut self) {
        if let PumpStatus::Exit(_) = self
            .event_loop
            .pump_app_events(Some(Duration::ZERO), &mut self.shell)
        {
            self.shell.exit = true;
        }
        if self.shell.exit {
            self.state.quit = true;
        }
        for event in std::mem::take(&mut self.shell.events) {
            let used = self
                .egui_state
                .on_window_event(&self.window, &event)
                .consumed;
            match event {
                WindowEvent::CloseRequested => self.state.quit = true,
                WindowEvent::Resized(size) => {
                    self.presenter.resize(&self.gpu, [size.width, size.height]);
                }
                WindowEvent::Focused(false) => self.input.release_all(),
                WindowEvent::CursorMoved { position, .. } => {
                    self.input.cursor([position.x, position.y]);
                }
                WindowEvent::MouseInput { state, button, .. }
                    if !used || state == ElementState::Released =>
                {
                    self.input.button(button, state);
                }
                WindowEvent::KeyboardInput { event, .. } => {
                    let PhysicalKey::Code(code) = event.physical_key else {
                        continue;
                    };
                    if used && event.state == ElementState::Pressed {
                        continue;
                    }
                    self.input.key(code, event.state);
                    if event.state == ElementState::Pressed && !event.repeat {
                        self.shortcut(code);
                    }
                }
                _ => {}
            }
        }
    }

    fn shortcut(&mut self, code: KeyCode) {
        let digits = [
            KeyCode::Digit1,
            KeyCode::Digit2,
            KeyCode::Digit3,
            KeyCode::Digit4,
            KeyCode::Digit5,
            KeyCode::Digit6,
            KeyCode::Digit7,
            KeyCode::Digit8,
            KeyCode::Digit9,
        ];
        match code {
            KeyCode::Escape => self.state.quit = true,
            KeyCode::F1 => self.state.panel = !self.state.panel,
            KeyCode::F9 => self.state.requests.push(Request::Capture(None)),
            KeyCode::F12 => self.state.requests.push(Request::Screenshot(None)),
            KeyCode::KeyP => self.profiler.open = !self.profiler.open,
            KeyCode::KeyG => self.state.walk = !self.state.walk,
            KeyCode::KeyV => self.state.vsync = !self.state.vsync,
            other => {
                if let Some(i) = digits.iter().position(|d| *d == other) {
                    self.state.requests.push(Request::View(i));
                }
            }
        }
    }

    /// Applies the script's actions due on this frame, once (a scene loop that
    /// restarts before the frame is drawn does not repeat them).
    pub(crate) fn run_script(&mut self) {
        if self.script_ran == Some(self.frame) {
            return;
        }
        self.script_ran = Some(self.frame);
        let due: Vec<Action> = self.script.due(self.frame).cloned().collect();
        for action in due {
            let s = &mut self.state;
            match action {
                Action::Tiers(c) => s.want_tiers(c),
                Action::Grass(g) => {
                    let terrain = s.wanted.combo.terrain.clone();
                    s.want_tiers(sward_passes::TierCombo::new(g, terrain))
                }
                Action::Terrain(t) => {
                    let grass = s.wanted.combo.grass.clone();
                    s.want_tiers(sward_passes::TierCombo::new(grass, t))
                }
                Action::ViewName(n) => s.requests.push(Request::ViewName(n)),
                Action::ViewIndex(i) => s.requests.push(Request::View(i - 1)),
                Action::Capture(p) => s.requests.push(Request::Capture(Some(p))),
                Action::Screenshot(p) => s.requests.push(Request::Screenshot(Some(p))),
                Action::Panel(on) => s.panel = on,
                Action::Profiler(on) => self.profiler.open = on,
                Action::Walk(on) => s.walk = on,
                Action::Msaa(n) => s.wanted.msaa = n,
                Action::Vsync(on) => s.vsync = on,
                Action::Pin => s.pin(),
                Action::Advance(d) => self.camera.advance(d),
                Action::ResetStats => self.stats.reset_summary(),
                Action::Density(d) => s.want_density(d),
            }
        }
    }

    /// Jumps to views the keys, panel or script asked for.
    pub(crate) fn take_view_requests(&mut self, scene: &sward_scenes::Scene) {
        let requests = std::mem::take(&mut self.state.requests);
        for r in requests {
            let pose = match &r {
                Request::View(i) => scene.views.get(*i),
                Request::ViewName(n) => scene.view(n),
                _ => {
                    self.state.requests.push(r);
                    continue;
                }
            };
            match pose {
                Some(p) => self.camera.set_pose(p),
                None => self.state.message(format!("preset has no view {r:?}")),
            }
        }
    }

    /// Lays out the overlay (or only drains its input when nothing is shown).
    fn layout_overlay(&mut self) -> Option<Overlay> {
        let raw = self.egui_state.take_egui_input(&self.window);
        if !self.state.panel && !self.profiler.open {
            return None;
        }
        puffin::profile_scope!("viewer.ui");
        let adapter = format!("{} ({})", self.gpu.summary.name, self.gpu.summary.backend);
        let present_mode = format!("{:?}", self.presenter.present_mode());
        let mut profiler_open = self.profiler.open;
        let profiler_frames = self.profiler.frames();
        let (state, stats, profiler) = (&mut self.state, &self.stats, &mut self.profiler);
        let output = self.egui_ctx.run(raw, |ctx| {
            if state.panel {
                crate::ui::panel(
                    ctx,
                    state,
                    stats,
                    crate::ui::PanelInfo {
                        adapter: &adapter,
                        present_mode: present_mode.clone(),
                        presets: sward_scenes::Preset::names(),
                        profiler_open: &mut profiler_open,
                        profiler_frames,
                    },
                );
                profiler.open = profiler_open;
            }
            profiler.window(ctx);
        });
        self.egui_state
            .handle_platform_output(&self.window, output.platform_output);
        let jobs = self
            .egui_ctx
            .tessellate(output.shapes, output.pixels_per_point);
        self.presenter
            .update_textures(&self.gpu, &output.textures_delta);
        self.presenter.free_textures(&output.textures_delta);
        Some(Overlay {
            jobs,
            pixels_per_point: output.pixels_per_point,
        })
    }

    /// Draws one frame: overlay layout, scene + present graph, present, stats.
    pub(crate) fn draw(
        &mut self,
        renderer: &mut SceneRenderer,
        scene: &Scene,
    ) -> Result<(), ViewerError> {
        let frame_start = Instant::now();
        let interval = self
            .last_frame
            .map(|t| frame_start.duration_since(t).as_secs_f64() * 1e3);
        self.last_frame = Some(frame_start);
        let overlay = self.layout_overlay();
        let ui_ms = frame_start.elapsed().as_secs_f64() * 1e3;
        let Some(surface) = self.presenter.acquire(&self.gpu) else {
            return Ok(());
        };
        let config = self.state.config.clone();
        let time_s = self.started.elapsed().as_secs_f32();
        let view = FrameView::new(
            self.camera.camera(&config.settings),
            [self.target.width, self.target.height],
            self.target.samples,
            time_s,
            config.settings,
        );
        let mut graph = RenderGraph::new();
        let ids = TargetIds::import(&mut graph, &self.target);
        let t0 = Instant::now();
        renderer.record(
            &self.gpu,
            SceneData::from_scene(scene),
            &mut graph,
            &view,
            ids,
        );
        let record_ms = t0.elapsed().as_secs_f64() * 1e3;
        let surface_id = graph.import_texture("viewer.surface", &surface.texture);
        let scene_color = ids.resolve.unwrap_or(ids.color);
        self.presenter
            .record(&mut graph, scene_color, surface_id, overlay.as_ref());
        let report = self.executor.execute(&self.gpu, graph)?;
        self.window.pre_present_notify();
        surface.present();

        let label = config.label();
        self.stats
            .push_cpu(&report, record_ms, ui_ms, interval, &label);
        let names: Vec<String> = report.passes.iter().map(|p| p.name.clone()).collect();
        if names != self.pass_names {
            self.stats.retain_passes(&names);
            self.pass_names = names;
        }
        for times in self.executor.poll_gpu_times(&self.gpu) {
            self.stats.push_gpu(&times);
            self.profiler.report_gpu(&times, puffin::now_ns());
        }
        self.profiler.new_frame();
        self.frame += 1;
        self.take_file_requests()
    }

    /// Writes the screenshots and captures asked for during this frame.
    fn take_file_requests(&mut self) -> Result<(), ViewerError> {
        for r in std::mem::take(&mut self.state.requests) {
            match r {
                Request::Screenshot(path) => self.screenshot(path)?,
                Request::Capture(path) => {
                    let path =
                        path.unwrap_or_else(|| default_path("capture", self.frame, "puffin"));
                    let n = self.profiler.save_capture(&path)?;
                    self.state
                        .message(format!("wrote {n} puffin frames to {}", path.display()));
                }
                other => self.state.requests.push(other),
            }
        }
        Ok(())
    }

    /// Writes the scene image of the last frame (without the overlay) as PNG.
    pub(crate) fn screenshot(&mut self, path: Option<PathBuf>) -> Result<(), ViewerError> {
        let path = path.unwrap_or_else(|| default_path("shot", self.frame, "png"));
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| ViewerError::Write {
                path: path.clone(),
                message: e.to_string(),
            })?;
        }
        let image = self.target.read_color(&self.gpu.device, &self.gpu.queue)?;
        sward_engine::targets::write_png(&image, &path)?;
        self.state
            .message(format!("wrote screenshot {}", path.display()));
        Ok(())
    }
}
