//! The viewer's error type: every way `sward run` can fail, each naming what
//! failed (window, surface, scene, renderer, script, file) so the CLI can print
//! one clear line.

use std::path::PathBuf;

/// Why the viewer could not start or had to stop.
#[derive(Debug, thiserror::Error)]
pub enum ViewerError {
    /// A command-line option or script action is malformed.
    #[error("{0}")]
    Usage(String),
    /// The windowing system could not be reached or the window not created.
    #[error("window: {0}")]
    Window(String),
    /// No GPU context.
    #[error(transparent)]
    Context(#[from] sward_engine::ContextError),
    /// The window surface could not be created or configured.
    #[error("surface: {0}")]
    Surface(String),
    /// The preset, the `--data` world or a named view could not be opened
    /// (the resolver every command shares).
    #[error(transparent)]
    Scene(#[from] sward_scenes::presets::SceneError),
    /// The world window could not follow the camera.
    #[error("world window: {0}")]
    WorldWindow(#[from] sward_scenes::window::WindowError),
    /// A technique could not be built for a tier combination.
    #[error("tier `{tier}`: {source}")]
    Pass {
        /// The combination.
        tier: String,
        /// Why.
        source: sward_passes::PassError,
    },
    /// The render graph rejected a frame or could not be set up.
    #[error("render graph: {0}")]
    Graph(#[from] sward_engine::GraphError),
    /// A shader failed to compose or validate.
    #[error("shader: {0}")]
    Shader(String),
    /// Render target or readback failure.
    #[error("render target: {0}")]
    Target(#[from] sward_engine::targets::TargetError),
    /// A file (screenshot, capture) could not be written.
    #[error("writing {path}: {message}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
}
