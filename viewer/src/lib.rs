//! `sward run`: the interactive viewer. A winit window with a wgpu surface
//! draws the preset through the same [`sward_passes::renderer::SceneRenderer`]
//! and render graph as the bench, with an egui panel for live tier switches,
//! render toggles, counters, per-pass CPU/GPU times and an A/B comparison, and
//! puffin's flamegraph with the GPU timestamp scopes on thread "GPU".
//!
//! - [`app`]: setup, the scene loop (preset switches, world-window slides) and
//!   applying what the user asked for; [`frame`]: events and one frame.
//! - [`camera`]: input and the free-fly / ground-walk camera.
//! - [`ui`]: the panel; [`profiler`]: the flamegraph window and captures.
//! - [`present`]: surface, present pass and the egui renderer.
//! - [`state`], [`stats`]: what is drawn and what it costs.
//! - [`script`]: scripted actions for unattended runs (`--script`).
//!
//! - [`cli`]: `sward run`'s arguments.
//!
//! Start with [`run`].

pub mod app;
pub mod camera;
pub mod cli;
pub mod error;
pub mod frame;
pub mod present;
pub mod profiler;
pub mod script;
pub mod shell;
pub mod state;
pub mod stats;
pub mod ui;

use std::path::PathBuf;

pub use app::run;
pub use error::ViewerError;

/// Options of `sward run`.
#[derive(Debug, Clone)]
pub struct ViewerOptions {
    /// Preset to open.
    pub preset: String,
    /// Initial tier combination (`GRASS` or `GRASS+TERRAIN`); default the baseline.
    pub tier: Option<String>,
    /// Named view to start at (default: the preset's first).
    pub view: Option<String>,
    /// Window size in pixels.
    pub size: [u32; 2],
    /// MSAA sample count (1 or 4).
    pub msaa: u32,
    /// Present without waiting for vertical blank.
    pub no_vsync: bool,
    /// Start with the panel hidden (F1 shows it).
    pub no_panel: bool,
    /// Start with the flamegraph window open.
    pub profiler: bool,
    /// Exit after this many frames.
    pub frames: Option<u64>,
    /// Write the last frame's scene image here as PNG.
    pub screenshot: Option<PathBuf>,
    /// Scripted actions (see [`script`]).
    pub script: Option<String>,
    /// Adapter selector (as `sward info`).
    pub adapter: Option<String>,
    /// Where the world comes from and how it is read (`--data` and the
    /// other data options), and the client routines' density setting
    /// (`--density`; `None` keeps the preset's; the panel changes it live).
    pub data: sward_scenes::formats::DataOptions,
}

impl Default for ViewerOptions {
    fn default() -> Self {
        ViewerOptions {
            preset: "elwynn-dense".into(),
            tier: None,
            view: None,
            size: [1280, 720],
            msaa: 4,
            no_vsync: false,
            no_panel: false,
            profiler: false,
            frames: None,
            screenshot: None,
            script: None,
            adapter: None,
            data: Default::default(),
        }
    }
}
