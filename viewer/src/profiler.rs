//! The in-app profiler: puffin's flamegraph (puffin_egui) in a window, fed
//! with the CPU scopes of every thread and the render graph's GPU timestamp
//! scopes on puffin thread "GPU" (through `sward_profiling::puffin_bridge`,
//! shifted onto puffin's clock), and `.puffin` captures of what it holds.

use std::path::Path;

use puffin_egui::GlobalProfilerUi;
use sward_engine::graph::GpuFrameTimes;
use sward_profiling::puffin_bridge::{self, ClockAlignment};

use crate::error::ViewerError;

/// The flamegraph window and the GPU-scope bridge.
pub struct Profiler {
    ui: GlobalProfilerUi,
    align: Option<ClockAlignment>,
    /// Whether the flamegraph window is shown.
    pub open: bool,
}

impl Profiler {
    /// Turns puffin's scopes on and starts collecting frames.
    pub fn new(open: bool) -> Self {
        puffin::set_scopes_on(true);
        Profiler {
            ui: GlobalProfilerUi::default(),
            // lavapipe stamps with CLOCK_MONOTONIC: an exact alignment where it works.
            align: ClockAlignment::monotonic_gpu().ok(),
            open,
        }
    }

    /// Ends the current puffin frame (call once per viewer frame).
    pub fn new_frame(&self) {
        puffin::GlobalProfiler::lock().new_frame();
    }

    /// Reports one frame's GPU pass times as scopes of thread "GPU" (the
    /// bench's bridge: `puffin_bridge::report_gpu_frame`). `seen_ns`
    /// is when the CPU saw them complete (puffin clock), the fallback anchor
    /// when the GPU clock is not the CPU's monotonic clock.
    pub fn report_gpu(&mut self, times: &GpuFrameTimes, seen_ns: i64) {
        puffin_bridge::report_gpu_frame(times, &mut self.align, seen_ns);
    }

    /// Frames the flamegraph holds (what a capture would contain).
    pub fn frames(&self) -> usize {
        self.ui.global_frame_view().lock().recent_frames().count()
    }

    /// Writes the frames held so far as a `.puffin` file.
    pub fn save_capture(&self, path: &Path) -> Result<usize, ViewerError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| ViewerError::Write {
                path: path.to_owned(),
                message: e.to_string(),
            })?;
        }
        let view = self.ui.global_frame_view().lock();
        let frames = view.recent_frames().count();
        puffin_bridge::write_capture(&view, path).map_err(|e| ViewerError::Write {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        Ok(frames)
    }

    /// Draws the flamegraph window when open (its close button closes it).
    pub fn window(&mut self, ctx: &egui::Context) {
        if self.open {
            puffin::profile_scope!("viewer.profiler_ui");
            let mut open = true;
            // First placement: the upper part of the area the panel leaves free.
            let free = ctx.available_rect().shrink(8.0);
            let area = egui::Rect::from_min_size(
                free.min,
                egui::vec2(free.width(), (free.height() * 0.6).max(200.0)),
            );
            egui::Window::new("Profiler (CPU threads + GPU timestamps)")
                .default_rect(area)
                .open(&mut open)
                .show(ctx, |ui| self.ui.ui(ui));
            self.open = open;
        }
    }
}
