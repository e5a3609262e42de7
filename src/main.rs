//! `sward` command line: parses arguments and dispatches to the crates.
//!
//! Each command's arguments and its run live with the crate that does the
//! work (`sward_scenes::cli`: presets, export, maps, inspect and the shared
//! data options; `sward_passes::cli`: info, tiers, clipmap-errors;
//! `sward_benches::cli`: bench, compare, soak, scale, capture, shot;
//! `sward_viewer::cli`: run). This file builds the one
//! [`sward_scenes::formats::DataOptions`] value the global options give,
//! hands it to the command, and turns errors into a non-zero exit with a
//! clear message.

use clap::{Parser, Subcommand};
use sward_benches::cli as benches;
use sward_passes::cli as passes;
use sward_scenes::cli::{self as scenes, DataArgs, InspectCommand};
use sward_viewer::cli as viewer;

/// GPU-driven terrain and grass renderer research engine.
#[derive(Parser, Debug)]
#[command(name = "sward", version, about, long_about = None)]
struct Cli {
    /// Adapter to use: a case-insensitive substring of the adapter name, or an index
    /// from `sward info`. `WGPU_BACKEND` selects the backends
    /// (default: Vulkan, Metal, DX12).
    #[arg(long, global = true)]
    adapter: Option<String>,
    #[command(flatten)]
    data: DataArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print adapter, backend, features, limits and tier caps.
    Info(passes::JsonArg),
    /// List every tier with its parameters (default, valid values,
    /// description), required capabilities and fallback.
    Tiers(passes::JsonArg),
    /// Print the clipmap's per-level height error against the exact MCVT
    /// surface at every named view of a preset (default clipmap: block 32,
    /// levels for 1000 units, prefiltered and refined as the default
    /// `clipmap:refine=2` draws them; without refinement (`refine=0`) and
    /// with point samples in brackets).
    ClipmapErrors(passes::ClipmapErrorsArgs),
    /// List scene presets with their ADTs, MCNKs, placements and models.
    Presets(scenes::PresetsArgs),
    /// Run tier combinations side by side and write a report.
    Bench(benches::BenchArgs),
    /// Compare two bench reports (output folders or their report.json) run
    /// by run: every counter (exact: any difference is a change, named by
    /// pass), CPU, render-thread and GPU frame times as after/before ratios
    /// with 95% intervals and a verdict, screenshots diffed. Writes
    /// compare.md, compare.json, diff images and charts to --out.
    Compare(benches::CompareArgs),
    /// Slide the world window back and forth N times per tier combination,
    /// printing what the process holds after every slide (resident memory,
    /// live heap, sward's GPU memory, wgpu's objects) and each figure's
    /// growth per slide after a warm-up; exits non-zero when one grows past
    /// its bound.
    Soak(benches::SoakArgs),
    /// Measure every grass tier on worlds of growing placements (the
    /// `scale-*` presets): GPU memory in total and per placement, uploads
    /// per frame and per tile change, VS and CS invocations, instances
    /// drawn, refusals. Writes scale.json, scale.md and scale_memory.svg.
    Scale(benches::ScaleArgs),
    /// Write a puffin capture of N frames of one tier combination.
    Capture(benches::CaptureArgs),
    /// Render one view of one tier combination to PNG.
    Shot(benches::ShotArgs),
    /// Interactive viewer (opens a window). See docs/viewer.md for keys and `--script`.
    Run(viewer::RunArgs),
    /// Write a preset as ADT/WDT/WDL/DBC/M2/BLP files.
    Export(scenes::ExportArgs),
    /// List the maps of --data: WDT tile counts, Map.dbc ids and names.
    Maps(scenes::MapsArgs),
    /// Inspect game files.
    Inspect {
        #[command(subcommand)]
        what: InspectCommand,
    },
}

/// Counts allocations per thread and the live heap, for the bench's
/// allocations per frame and the soak's heap growth.
#[global_allocator]
static ALLOC: sward_profiling::alloc::CountingAlloc = sward_profiling::alloc::CountingAlloc;

fn main() {
    env_logger::Builder::from_env(
        env_logger::Env::default().default_filter_or("warn,wgpu_hal=error"),
    )
    .init();
    let cli = Cli::parse();
    if let Err(err) = run(cli) {
        eprintln!("error: {}", error_chain(&err));
        std::process::exit(1);
    }
}

/// The error and its causes on one line. Many of our error messages already
/// quote their source; a cause whose text is already there is not repeated.
fn error_chain(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let part = cause.to_string();
        if !text.contains(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
    }
    text
}

/// Builds the data options once and runs the command with them.
fn run(cli: Cli) -> anyhow::Result<()> {
    // `inspect placements` takes --tile without --data: the tile of the
    // preset's own world whose placements are listed.
    let tile_of_preset =
        matches!(&cli.command, Command::Inspect { what } if what.takes_tile_of_preset());
    let data = cli.data.options(tile_of_preset)?;
    let adapter = cli.adapter;
    match cli.command {
        Command::Info(args) => passes::run_info(&args, adapter, &data)?,
        Command::Tiers(args) => passes::run_tiers(&args)?,
        Command::ClipmapErrors(args) => passes::run_clipmap_errors(&args)?,
        Command::Presets(args) => scenes::run_presets(&args)?,
        Command::Bench(args) => benches::run_bench(args, adapter, &data)?,
        Command::Compare(args) => benches::run_compare(&args)?,
        Command::Soak(args) => benches::run_soak(args, adapter)?,
        Command::Scale(args) => benches::run_scale(args, adapter)?,
        Command::Capture(args) => benches::run_capture(args, adapter, &data)?,
        Command::Shot(args) => benches::run_shot(args, adapter, &data)?,
        Command::Run(args) => viewer::run_viewer(args, adapter, &data)?,
        Command::Export(args) => scenes::run_export(&args)?,
        Command::Maps(args) => scenes::run_maps(&args, &data)?,
        Command::Inspect { what } => {
            let tile = cli.data.tile.as_deref();
            scenes::run_inspect(what, &data, tile, &|scene, t, mcnks| {
                passes::placements_on_gpu(adapter.clone(), scene, t, mcnks)
            })?
        }
    }
    Ok(())
}
