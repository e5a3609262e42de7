//! The measuring commands' arguments and what each runs: `bench`
//! ([`BenchArgs`]), `compare`, `soak`, `scale`, `capture` and `shot`. The
//! binary flattens the shared groups (the data options, `--density`,
//! `--texture-upload`, [`ImageArgs`]) and dispatches here with the global
//! `--adapter` and the [`DataOptions`] the command line built.

use std::path::PathBuf;

use sward_scenes::cli::{DensityArg, TextureUploadArg};
use sward_scenes::formats::DataOptions;
use sward_scenes::streaming::{ApplyBudget, StreamConfig};

use crate::bench::{self, BenchError, BenchOptions, OneOffOptions, StreamMode, StreamPace};

/// Why a measuring command failed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The bench, its options or its run.
    #[error(transparent)]
    Bench(#[from] BenchError),
    /// A compare of two reports.
    #[error(transparent)]
    Compare(#[from] crate::compare::CompareError),
    /// A soak whose figures grew past their bound, or a malformed option.
    #[error("{0}")]
    Failed(String),
    /// The test pattern of `shot --preset test-pattern`.
    #[error(transparent)]
    TestPattern(#[from] sward_engine::test_scene::SceneError),
    /// A tier list.
    #[error(transparent)]
    Tier(#[from] sward_passes::technique::TierParseError),
    /// A size.
    #[error(transparent)]
    Target(#[from] sward_engine::targets::TargetError),
    /// No GPU.
    #[error(transparent)]
    Gpu(#[from] sward_engine::ContextError),
    /// Writing JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// Writing to standard output.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Image size and MSAA of `capture` and `scale`.
#[derive(clap::Args, Debug, Clone)]
pub struct ImageArgs {
    /// Image size as WxH.
    #[arg(long, default_value = "960x540")]
    size: String,
    /// MSAA sample count: 1 or 4.
    #[arg(long, default_value_t = 4)]
    msaa: u32,
}

/// `sward bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    #[arg(long, default_value = "elwynn-dense")]
    preset: String,
    /// Comma-separated tier combinations, each GRASS or GRASS+TERRAIN.
    #[arg(long)]
    tiers: Option<String>,
    #[arg(long)]
    frames: Option<u32>,
    #[arg(long)]
    warmup: Option<u32>,
    /// Render size as WxH.
    #[arg(long)]
    size: Option<String>,
    /// MSAA sample count: 1 or 4.
    #[arg(long)]
    msaa: Option<u32>,
    /// Reduced configuration for CI and first runs.
    #[arg(long)]
    quick: bool,
    #[arg(long, default_value = "out/bench")]
    out: PathBuf,
    /// Keep wgpu's injected validation of indirect draw arguments on (off by
    /// default so GPU-driven tiers are timed without it; the report says which).
    #[arg(long)]
    indirect_validation: bool,
    /// Terrain view distance in world units (default 1000); fog distances
    /// scale with it.
    #[arg(long)]
    view_distance: Option<f32>,
    /// Measure every frame at this named view of the preset (as `sward shot
    /// --view` names them) instead of along its camera path.
    #[arg(long, value_name = "NAME")]
    view: Option<String>,
    /// Fly this named camera path of the preset (default: its walk);
    /// `continent` has `flight`, which moves the world window.
    #[arg(long, value_name = "NAME")]
    path: Option<String>,
    /// How `--path` streams the world: `workers` loads tiles on worker
    /// threads and applies them within a per-frame budget; `render-thread`
    /// loads them on the render thread when the camera enters a tile.
    #[arg(long, default_value = "workers", value_name = "workers|render-thread", value_parser = StreamMode::parse)]
    stream: StreamMode,
    /// With `--stream workers`: `keep-up` waits before each measured frame,
    /// outside its time, until the workers have finished the tiles around
    /// the camera (every tier then streams the same tiles; the wait is
    /// reported); `free` gives them only the frames' wall time (a fast tier
    /// outruns them and flies over tiles not resident yet).
    #[arg(long, default_value = "keep-up", value_name = "keep-up|free", value_parser = StreamPace::parse)]
    stream_pace: StreamPace,
    /// Resident tiles around the camera's tile with `--stream workers`
    /// (1 = 3x3; a tile is evicted one ring further out).
    #[arg(long, default_value_t = 1, value_name = "N")]
    stream_radius: u32,
    /// Render-thread milliseconds per frame for applying finished tiles.
    #[arg(long, default_value_t = 4.0, value_name = "MS")]
    stream_budget_ms: f64,
    /// Tile changes per frame at most: finished tiles made resident, then
    /// far tiles evicted with what is left (each change costs the
    /// techniques' per-tile updates on the render thread).
    #[arg(long, default_value_t = 1, value_name = "N")]
    stream_tiles_per_frame: u32,
    #[command(flatten)]
    textures: TextureUploadArg,
    /// Check the bounds of a budget file (TOML, e.g. budgets/lavapipe.toml):
    /// run the benches it names (its presets, places, tiers, size and
    /// frames; reports under --out), then exit non-zero naming every bound
    /// that fails. See docs/reading-a-report.md#budgets.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["preset", "tiers", "frames", "warmup", "size", "msaa", "quick", "view", "path"])]
    budget: Option<PathBuf>,
    #[command(flatten)]
    density: DensityArg,
}

impl BenchArgs {
    /// The bench these flags ask for, with the global `--adapter` and data
    /// options.
    pub fn options(self, adapter: Option<String>, data: &DataOptions) -> BenchOptions {
        BenchOptions {
            preset: Some(self.preset),
            tiers: self.tiers,
            frames: self.frames,
            warmup: self.warmup,
            size: self.size,
            msaa: self.msaa,
            quick: self.quick,
            out: self.out,
            adapter,
            indirect_validation: self.indirect_validation,
            data: DataOptions {
                density: self.density.density,
                texture_upload: self.textures.texture_upload,
                ..data.clone()
            },
            view_distance: self.view_distance,
            view: self.view,
            path: self.path,
            stream: self.stream,
            stream_pace: self.stream_pace,
            stream_config: StreamConfig {
                radius: self.stream_radius,
                budget: ApplyBudget {
                    cpu_ms: self.stream_budget_ms,
                    tiles: self.stream_tiles_per_frame,
                    ..Default::default()
                },
                ..Default::default()
            },
        }
    }
}

/// Runs `sward bench` (or with `--budget` the benches of a budget file and
/// its bounds), printing the headline and where the report is.
pub fn run_bench(
    args: BenchArgs,
    adapter: Option<String>,
    data: &DataOptions,
) -> Result<(), CliError> {
    let budget = args.budget.clone();
    let opts = args.options(adapter, data);
    if let Some(file) = budget {
        let run = crate::budget::run_budget(&file, &opts)?;
        print!("{}{}", run.headlines, run.outcome.text());
        println!("results: {}", run.json.display());
        run.verdict()?;
        return Ok(());
    }
    let outcome = bench::run_bench(&opts)?;
    print!("{}", outcome.headline);
    println!("report: {}", outcome.dir.join("report.md").display());
    Ok(())
}

/// `sward compare`.
#[derive(clap::Args, Debug)]
pub struct CompareArgs {
    /// The report before the change.
    before: PathBuf,
    /// The report after the change.
    after: PathBuf,
    /// Folder for compare.md, compare.json, diff images and charts.
    #[arg(long, default_value = "out/compare")]
    out: PathBuf,
    /// Print compare.json instead of the headline.
    #[arg(long)]
    json: bool,
}

/// Compares two bench reports and prints the headline (or the JSON).
pub fn run_compare(args: &CompareArgs) -> Result<(), CliError> {
    let text = crate::compare::run_compare(&args.before, &args.after, &args.out, args.json)?;
    write_stdout(&text)
}

/// `sward soak`.
#[derive(clap::Args, Debug)]
pub struct SoakArgs {
    #[arg(long, default_value = "continent")]
    preset: String,
    /// Window slides per tier combination.
    #[arg(long)]
    slides: u32,
    /// Comma-separated tier combinations (the baseline always runs).
    #[arg(long)]
    tiers: Option<String>,
    /// Slides before growth is measured (growth is checked with at
    /// least this + 6 slides).
    #[arg(long, default_value_t = bench::soak::DEFAULT_WARMUP)]
    warmup: u32,
    /// Bound on resident-memory and live-heap growth, MiB per slide
    /// (wgpu's objects and sward's GPU accounting must not change).
    #[arg(long, default_value_t = bench::soak::DEFAULT_MAX_GROWTH_MIB)]
    max_growth: f64,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs the soak, prints its table (or JSON) and fails naming every figure
/// that grew past its bound.
pub fn run_soak(args: SoakArgs, adapter: Option<String>) -> Result<(), CliError> {
    let report = bench::run_soak(&bench::SoakOptions {
        preset: args.preset,
        slides: args.slides,
        tiers: args.tiers,
        adapter,
        warmup: args.warmup,
        max_growth_mib: args.max_growth,
    })?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", bench::soak_text(&report));
    }
    let failures = report.summary.failures();
    if !failures.is_empty() {
        return Err(CliError::Failed(format!(
            "soak: {} figure(s) grew past their bound after the warm-up:\n  {}",
            failures.len(),
            failures.join("\n  ")
        )));
    }
    Ok(())
}

/// `sward scale`.
#[derive(clap::Args, Debug)]
pub struct ScaleArgs {
    /// Comma-separated placement scale factors of elwynn-dense.
    #[arg(long, default_value = "0.25,1,4,16")]
    scales: String,
    /// Comma-separated grass tiers with parameters (each runs with
    /// terrain off); default every grass tier.
    #[arg(long)]
    tiers: Option<String>,
    /// Measured frames per tier and scale.
    #[arg(long, default_value_t = 5)]
    frames: u32,
    /// Warm-up frames per tier and scale.
    #[arg(long, default_value_t = 4)]
    warmup: u32,
    #[command(flatten)]
    image: ImageArgs,
    #[arg(long, default_value = "scale")]
    out: PathBuf,
    /// Print the JSON report instead of the table.
    #[arg(long)]
    json: bool,
}

/// Runs the scale measurement, writes its files and prints the table (or
/// JSON).
pub fn run_scale(args: ScaleArgs, adapter: Option<String>) -> Result<(), CliError> {
    let report = bench::run_scale(&bench::ScaleOptions {
        scales: bench::parse_scales(&args.scales)?,
        tiers: args.tiers,
        frames: args.frames,
        warmup: args.warmup,
        size: bench::parse_size_arg(&args.image.size)?,
        msaa: args.image.msaa,
        out: args.out.clone(),
        adapter,
    })?;
    let md = bench::write_scale(&report, &args.out)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", bench::scale_markdown(&report));
        println!("report: {}", md.display());
    }
    Ok(())
}

/// `sward capture`.
#[derive(clap::Args, Debug)]
pub struct CaptureArgs {
    #[arg(long)]
    preset: String,
    #[arg(long)]
    tier: String,
    #[arg(long, default_value_t = 60)]
    frames: u32,
    #[command(flatten)]
    image: ImageArgs,
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    textures: TextureUploadArg,
    #[command(flatten)]
    density: DensityArg,
}

/// Writes a puffin capture of the frames along the scene's path.
pub fn run_capture(
    args: CaptureArgs,
    adapter: Option<String>,
    data: &DataOptions,
) -> Result<(), CliError> {
    let opts = one_off(
        args.preset,
        args.tier,
        &args.image.size,
        args.image.msaa,
        adapter,
        data,
        args.textures,
        args.density,
    )?;
    let n = bench::capture(&opts, args.frames, &args.out)?;
    println!("wrote {n} frames to {}", args.out.display());
    Ok(())
}

/// `sward shot`.
#[derive(clap::Args, Debug)]
pub struct ShotArgs {
    #[arg(long)]
    preset: String,
    #[arg(long, default_value = "static-batch+static-chunks")]
    tier: String,
    /// Named view of the preset (defaults to its first view).
    #[arg(long)]
    view: Option<String>,
    /// Image size as WxH.
    #[arg(long, default_value = "1280x720")]
    size: String,
    /// MSAA sample count: 1 or 4.
    #[arg(long, default_value_t = 4)]
    msaa: u32,
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    textures: TextureUploadArg,
    #[command(flatten)]
    density: DensityArg,
}

/// Renders one view of one combination to PNG (or the engine's test
/// pattern for `--preset test-pattern`).
pub fn run_shot(
    args: ShotArgs,
    adapter: Option<String>,
    data: &DataOptions,
) -> Result<(), CliError> {
    if args.preset == "test-pattern" {
        return test_pattern(&args, adapter);
    }
    let opts = one_off(
        args.preset,
        args.tier,
        &args.size,
        args.msaa,
        adapter,
        data,
        args.textures,
        args.density,
    )?;
    let path = bench::shot(&opts, args.view.as_deref(), &args.out)?;
    println!("wrote {}", path.display());
    Ok(())
}

/// `shot --preset test-pattern`: the engine's own scene, no tiers or views.
fn test_pattern(args: &ShotArgs, adapter: Option<String>) -> Result<(), CliError> {
    // Still reject a malformed --tier.
    let _: sward_passes::TierCombo = args.tier.parse()?;
    if args.density.density.is_some() {
        return Err(CliError::Failed(
            "--density sets the client placement routines' picks; the test pattern places no grass"
                .into(),
        ));
    }
    let (width, height) = sward_engine::targets::parse_size(&args.size)?;
    let gpu = sward_engine::GpuContext::new(&sward_engine::GpuOptions {
        adapter,
        ..Default::default()
    })?;
    let shot = sward_engine::test_scene::render_test_pattern(&gpu, width, height, args.msaa, 3)?;
    for warning in &shot.warnings {
        eprintln!("warning: {warning}");
    }
    sward_engine::targets::write_png(&shot.image, &args.out)?;
    print!("{}", shot.timing_table());
    println!("wrote {}", args.out.display());
    Ok(())
}

/// The options of a one-off render (`shot`, `capture`).
#[allow(clippy::too_many_arguments)]
fn one_off(
    preset: String,
    tier: String,
    size: &str,
    msaa: u32,
    adapter: Option<String>,
    data: &DataOptions,
    textures: TextureUploadArg,
    density: DensityArg,
) -> Result<OneOffOptions, CliError> {
    Ok(OneOffOptions {
        preset,
        tier,
        size: bench::parse_size_arg(size)?,
        msaa,
        adapter,
        data: DataOptions {
            density: density.density,
            texture_upload: textures.texture_upload,
            ..data.clone()
        },
    })
}

/// Writes `text` to standard output; a closed pipe is an error, not a panic.
fn write_stdout(text: &str) -> Result<(), CliError> {
    std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes())?;
    Ok(())
}
