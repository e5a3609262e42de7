//! `sward run`: the viewer's arguments ([`RunArgs`]) and their start
//! ([`run_viewer`]), with the global `--adapter` and data options.

use std::path::PathBuf;

use sward_scenes::cli::DensityArg;
use sward_scenes::formats::DataOptions;

use crate::{ViewerError, ViewerOptions};

/// `sward run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    #[arg(long, default_value = "elwynn-dense")]
    preset: String,
    /// Initial tier combination, GRASS or GRASS+TERRAIN.
    #[arg(long)]
    tier: Option<String>,
    /// Named view to start at (default: the preset's first; with --data,
    /// `grass`, where the centre tile's grass grows most).
    #[arg(long)]
    view: Option<String>,
    /// Window size as WxH.
    #[arg(long, default_value = "1280x720")]
    size: String,
    /// MSAA sample count: 1 or 4.
    #[arg(long, default_value_t = 4)]
    msaa: u32,
    /// Present without vsync (Immediate/Mailbox instead of Fifo).
    #[arg(long)]
    no_vsync: bool,
    /// Start with the panel hidden (F1 toggles it).
    #[arg(long)]
    no_panel: bool,
    /// Start with the flamegraph window open.
    #[arg(long)]
    profiler: bool,
    /// Exit after N frames.
    #[arg(long)]
    frames: Option<u64>,
    /// Write the last frame's scene image as PNG (with --frames).
    #[arg(long)]
    screenshot: Option<PathBuf>,
    /// Scripted actions, e.g. "tier=legacy-cpu@10,capture=/tmp/x.puffin@20".
    #[arg(long)]
    script: Option<String>,
    #[command(flatten)]
    density: DensityArg,
}

/// Opens the viewer as `args` say, on the adapter `adapter` names, with
/// the world `data` names.
pub fn run_viewer(
    args: RunArgs,
    adapter: Option<String>,
    data: &DataOptions,
) -> Result<(), ViewerError> {
    let (w, h) = sward_engine::targets::parse_size(&args.size)
        .map_err(|e| ViewerError::Usage(format!("--size: {e}")))?;
    crate::run(ViewerOptions {
        preset: args.preset,
        tier: args.tier,
        view: args.view,
        size: [w, h],
        msaa: args.msaa,
        no_vsync: args.no_vsync,
        no_panel: args.no_panel,
        profiler: args.profiler,
        frames: args.frames,
        screenshot: args.screenshot,
        script: args.script,
        adapter,
        data: DataOptions {
            density: args.density.density,
            ..data.clone()
        },
    })
}
