//! `sward` command line: parses arguments and dispatches to the crates.
//!
//! Every command's real work lives in a library crate (`sward_engine`,
//! `sward_scenes`, `sward_passes`, `sward_benches`); this file only turns the
//! command line into calls and errors into a non-zero exit with a clear message.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::{Parser, Subcommand};
use sward_benches::bench::{BenchOptions, OneOffOptions, StreamMode, StreamPace};
use sward_passes::grass::TextureUpload;

/// GPU-driven terrain and grass renderer research engine.
#[derive(Parser, Debug)]
#[command(name = "sward", version, about, long_about = None)]
struct Cli {
    /// Adapter to use: a case-insensitive substring of the adapter name, or an index
    /// from `sward info`. `WGPU_BACKEND` selects the backends
    /// (default: Vulkan, Metal, DX12).
    #[arg(long, global = true)]
    adapter: Option<String>,
    /// Load the world from game data instead of generating the preset: a WoW
    /// 1.12 or 3.3.5 client install (DIR/Data/*.MPQ, read in the client's
    /// patch order), a directory of loose ADT/WDT/WDL/DBC/M2/BLP files (as written
    /// by `sward export`), or both (loose files win). The preset still chooses
    /// the placement policy. See docs/real-data.md.
    #[arg(long, global = true, value_name = "DIR")]
    data: Option<PathBuf>,
    /// With --data: the map to load (a WDT under World\Maps\NAME\; `sward
    /// maps` lists them). Default: the only map.
    #[arg(long, global = true, value_name = "NAME")]
    map: Option<String>,
    /// With --data: centre the resident window on the tile holding world
    /// point X,Y.
    #[arg(long, global = true, value_name = "X,Y", allow_hyphen_values = true)]
    at: Option<String>,
    /// With --data: centre the resident window on ADT tile X,Y (the numbers
    /// of Map_X_Y.adt).
    #[arg(long, global = true, value_name = "X,Y")]
    tile: Option<String>,
    /// With --data: the client version the data is read as (1.12 or 3.3.5;
    /// 0.5.3 for the alpha's tables). Default: decided from the data
    /// (Map.dbc's field count, the archives' names); `sward maps` says which.
    #[arg(long, global = true, value_name = "VERSION")]
    client: Option<String>,
    /// With --data: draw a detail model the data lacks as a placeholder (a
    /// yellow checkered cross, counted as scene.placeholder_models in a
    /// report) or skip its doodads (off).
    #[arg(long, global = true, value_name = "on|off", default_value = "on", value_parser = ["on", "off"])]
    placeholders: String,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print adapter, backend, features, limits and tier caps.
    Info {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List every tier with its parameters (default, valid values,
    /// description), required capabilities and fallback.
    Tiers {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print the clipmap's per-level height error against the exact MCVT
    /// surface at every named view of a preset (default clipmap: block 32,
    /// levels for 1000 units, prefiltered and refined as the default
    /// `clipmap:refine=2` draws them; without refinement (`refine=0`) and
    /// with point samples in brackets).
    ClipmapErrors {
        #[arg(long, default_value = "elwynn-dense")]
        preset: String,
        /// Print JSON instead of markdown tables.
        #[arg(long)]
        json: bool,
    },
    /// List scene presets with their ADTs, MCNKs, placements and models.
    Presets {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Run tier combinations side by side and write a report.
    Bench(BenchArgs),
    /// Compare two bench reports (output folders or their report.json) run
    /// by run: every counter (exact: any difference is a change, named by
    /// pass), CPU, render-thread and GPU frame times as after/before ratios
    /// with 95% intervals and a verdict, screenshots diffed. Writes
    /// compare.md, compare.json, diff images and charts to --out.
    Compare {
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
    },
    /// Slide the world window back and forth N times per tier combination,
    /// printing what the process holds after every slide (resident memory,
    /// live heap, sward's GPU memory, wgpu's objects) and each figure's
    /// growth per slide after a warm-up; exits non-zero when one grows past
    /// its bound.
    Soak {
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
        #[arg(long, default_value_t = sward_benches::bench::soak::DEFAULT_WARMUP)]
        warmup: u32,
        /// Bound on resident-memory and live-heap growth, MiB per slide
        /// (wgpu's objects and sward's GPU accounting must not change).
        #[arg(long, default_value_t = sward_benches::bench::soak::DEFAULT_MAX_GROWTH_MIB)]
        max_growth: f64,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Measure every grass tier on worlds of growing placements (the
    /// `scale-*` presets): GPU memory in total and per placement, uploads
    /// per frame and per tile change, VS and CS invocations, instances
    /// drawn, refusals. Writes scale.json, scale.md and scale_memory.svg.
    Scale {
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
        /// Image size as WxH.
        #[arg(long, default_value = "960x540")]
        size: String,
        /// MSAA sample count: 1 or 4.
        #[arg(long, default_value_t = 4)]
        msaa: u32,
        #[arg(long, default_value = "scale")]
        out: PathBuf,
        /// Print the JSON report instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Write a puffin capture of N frames of one tier combination.
    Capture {
        #[arg(long)]
        preset: String,
        #[arg(long)]
        tier: String,
        #[arg(long, default_value_t = 60)]
        frames: u32,
        /// Image size as WxH.
        #[arg(long, default_value = "960x540")]
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
    },
    /// Render one view of one tier combination to PNG.
    Shot {
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
    },
    /// Interactive viewer (opens a window). See docs/viewer.md for keys and `--script`.
    Run(RunArgs),
    /// Write a preset as ADT/WDT/WDL/DBC/M2/BLP files.
    Export {
        #[arg(long)]
        preset: String,
        #[arg(long)]
        out: PathBuf,
        /// Write client-shaped MPQ archives (OUT/Data/dbc.MPQ, terrain.MPQ,
        /// model.MPQ, texture.MPQ) instead of loose files.
        #[arg(long)]
        mpq: bool,
    },
    /// List the maps of --data: WDT tile counts, Map.dbc ids and names.
    Maps {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Inspect game files.
    Inspect {
        #[command(subcommand)]
        what: InspectCommand,
    },
}

#[derive(clap::Args, Debug)]
struct BenchArgs {
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

/// `--texture-upload` also for the terrain's tileset textures (splats read
/// it when they are built); returns it for the detail textures.
fn tileset_upload(upload: TextureUpload) -> TextureUpload {
    sward_passes::terrain::tileset_gpu::set_upload(upload);
    upload
}

/// `--density`, shared by bench, shot, capture, run and inspect placements.
#[derive(clap::Args, Debug)]
struct DensityArg {
    /// The client routines' density setting, picks per MCNK, for every tier
    /// of the run: 1.12 frillDensity (the client's settings write 16, 32 or
    /// 48) or 3.3.5 groundEffectDensity, 16..=256. An error for a preset
    /// placed per-cell. Default: the client's default, 16.
    #[arg(long, value_name = "N")]
    density: Option<u32>,
}

/// `--texture-upload`, shared by bench, shot and capture.
#[derive(clap::Args, Debug)]
struct TextureUploadArg {
    /// How DXT (BLP) detail and tileset textures reach the GPU: `auto`
    /// uploads BC blocks where the device has texture-compression-bc and
    /// decodes on the CPU otherwise; `decode` always decodes on the CPU.
    #[arg(long = "texture-upload", default_value = "auto", value_name = "auto|decode", value_parser = TextureUpload::parse)]
    texture_upload: TextureUpload,
}

#[derive(clap::Args, Debug)]
struct RunArgs {
    #[arg(long, default_value = "elwynn-dense")]
    preset: String,
    /// Initial tier combination, GRASS or GRASS+TERRAIN.
    #[arg(long)]
    tier: Option<String>,
    /// Named view to start at (default: the preset's first).
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

#[derive(Subcommand, Debug)]
enum InspectCommand {
    /// Parse an ADT and print its MCNK headers. FILE is a file, or with
    /// --data a path inside the data ('World\Maps\Azeroth\Azeroth_32_48.adt').
    Adt {
        file: String,
        #[arg(long)]
        json: bool,
        /// Print the interpolated height at world X,Y.
        #[arg(long, value_name = "X,Y", allow_hyphen_values = true)]
        height_at: Option<String>,
    },
    /// Parse a WDT: MPHD flags and the tiles it lists.
    Wdt {
        file: String,
        #[arg(long)]
        json: bool,
    },
    /// Parse a WDL (far heights): tiles with data, height range, holes.
    Wdl {
        file: String,
        #[arg(long)]
        json: bool,
    },
    /// Parse a WDBC table: counts and the first records.
    Dbc {
        file: String,
        #[arg(long)]
        json: bool,
    },
    /// Parse an M2 (version 264 with its 00.skin file).
    M2 {
        file: String,
        #[arg(long)]
        json: bool,
    },
    /// Parse and decode a BLP2 texture.
    Blp {
        file: String,
        #[arg(long)]
        json: bool,
    },
    /// List the placements of MCNKs of one tile in generation order (with
    /// --data, of the directory's files placed with the preset's policy).
    Placements {
        /// Preset: its world (or --data's), placement policy and tables.
        #[arg(long)]
        preset: String,
        /// MCNK index_x,index_y inside the tile (0..16 each); repeatable.
        /// Default: every MCNK of the tile.
        #[arg(long, value_name = "I,J")]
        mcnk: Vec<String>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Generate the placements on the GPU (the `grass.place` compute
        /// pass) and list what it wrote, read back, in the same format.
        #[arg(long)]
        gpu: bool,
        #[command(flatten)]
        density: DensityArg,
    },
}

/// Parses `A,B` as two unsigned integers for option `what`.
fn parse_pair(what: &str, text: &str) -> Result<(u32, u32)> {
    text.split_once(',')
        .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)))
        .ok_or_else(|| {
            anyhow::anyhow!("{what} expects two non-negative integers as A,B, got {text:?}")
        })
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

/// `sward tiers` as text: one block per technique.
fn tiers_text(list: &[sward_passes::technique::TechniqueDescription]) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for t in list {
        let _ = writeln!(s, "{} {}: {}", t.subsystem, t.name, t.summary);
        for p in &t.params {
            let _ = writeln!(
                s,
                "    :{}={} ({}; valid {}): {}",
                p.name, p.default, p.kind, p.valid, p.description
            );
        }
        if !t.requires.is_empty() {
            let caps: Vec<&str> = t.requires.iter().map(|c| c.name()).collect();
            let _ = writeln!(
                s,
                "    needs {}; falls back to {}",
                caps.join(", "),
                t.fallback.unwrap_or("nothing")
            );
        }
    }
    s.push_str(
        "`off` switches a subsystem off. Syntax: --tiers 'GRASS[:k=v...][+TERRAIN[:k=v...]],...'\n",
    );
    s
}

fn one_off(
    preset: String,
    tier: String,
    size: &str,
    msaa: u32,
    adapter: Option<String>,
    data: Option<PathBuf>,
    density: Option<u32>,
) -> Result<OneOffOptions> {
    let (w, h) =
        sward_engine::targets::parse_size(size).map_err(|e| anyhow::anyhow!("--size: {e}"))?;
    Ok(OneOffOptions {
        preset,
        tier,
        size: [w, h],
        msaa,
        adapter,
        data,
        texture_upload: TextureUpload::Auto,
        density,
    })
}

/// The --data source, opened for commands that read files from it.
fn data_source(data: &Option<PathBuf>) -> Result<Option<sward_scenes::formats::DataSource>> {
    Ok(match data {
        Some(dir) => Some(sward_scenes::formats::DataSource::open(dir)?),
        None => None,
    })
}

/// Prints an inspect report as one line of JSON or as its text.
macro_rules! print_report {
    ($report:expr, $json:expr) => {{
        let r = $report;
        if $json {
            println!("{}", serde_json::to_string(&r)?);
        } else {
            print!("{}", r.text());
        }
        Ok(())
    }};
}

fn run(cli: Cli) -> Result<()> {
    use sward_scenes::formats::{inspect_files, maps};
    // `inspect placements` takes --tile without --data: the tile of the
    // preset's own world whose placements are listed.
    let tile_of_preset = matches!(
        cli.command,
        Command::Inspect {
            what: InspectCommand::Placements { .. }
        }
    ) && cli.data.is_none();
    if cli.map.is_some() || cli.at.is_some() || (cli.tile.is_some() && !tile_of_preset) {
        if cli.data.is_none() {
            bail!("--map, --at and --tile choose the world of --data DIR; give --data");
        }
        let at = cli
            .at
            .as_deref()
            .map(maps::parse_xy)
            .transpose()
            .map_err(|e| anyhow::anyhow!("--at: {e}"))?;
        let tile = cli
            .tile
            .as_deref()
            .map(maps::parse_tile)
            .transpose()
            .map_err(|e| anyhow::anyhow!("--tile: {e}"))?;
        maps::set_default_selection(maps::WorldSelection {
            map: cli.map.clone(),
            at,
            tile,
        });
    }
    if let Some(v) = cli.client.as_deref() {
        if cli.data.is_none() {
            bail!("--client says which client wrote --data DIR; give --data");
        }
        let v = sward_scenes::formats::ClientVersion::parse(v)
            .map_err(|e| anyhow::anyhow!("--client: {e}"))?;
        sward_scenes::formats::version::set_client_override(Some(v));
    }
    sward_scenes::formats::data_dir::set_placeholders(cli.placeholders == "on");
    match cli.command {
        Command::Info { json } => {
            let opts = sward_engine::GpuOptions {
                adapter: cli.adapter,
                ..Default::default()
            };
            let info = sward_engine::info::InfoReport::gather(
                &opts,
                sward_passes::technique::tier_support,
            )?;
            let client = match data_source(&cli.data)? {
                Some(src) => Some((
                    src.root().display().to_string(),
                    sward_scenes::formats::client_version(&src)?,
                )),
                None => None,
            };
            let text = if json {
                let mut v = serde_json::to_value(&info)?;
                if let (Some((dir, c)), Some(obj)) = (&client, v.as_object_mut()) {
                    obj.insert(
                        "data".into(),
                        serde_json::json!({ "dir": dir, "client": c.version, "reason": c.reason }),
                    );
                }
                serde_json::to_string_pretty(&v)? + "\n"
            } else {
                let mut t = info.to_text();
                if let Some((dir, c)) = &client {
                    t.push_str(&format!("data: {dir}, client {c}\n"));
                }
                t
            };
            // A closed pipe (`sward info | head`) is an error, not a panic.
            std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes())?;
            Ok(())
        }
        Command::Tiers { json } => {
            let list = sward_passes::technique::describe();
            let text = if json {
                serde_json::to_string_pretty(&list)? + "\n"
            } else {
                tiers_text(&list)
            };
            std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes())?;
            Ok(())
        }
        Command::ClipmapErrors { preset, json } => {
            let scene = sward_scenes::Preset::by_name(&preset)?.build()?;
            let tables = sward_passes::terrain::clipmap::accuracy::view_error_tables(&scene);
            let text = if json {
                serde_json::to_string_pretty(&tables)? + "\n"
            } else {
                sward_passes::terrain::clipmap::accuracy::error_tables_markdown(&preset, &tables)
            };
            std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes())?;
            Ok(())
        }
        Command::Presets { json } => {
            let list = sward_scenes::Preset::summaries()?;
            if json {
                println!("{}", serde_json::to_string_pretty(&list)?);
            } else {
                println!(
                    "{:<14} {:>5} {:>7} {:>10} {:>6}  description",
                    "preset", "adts", "mcnks", "placements", "models"
                );
                for p in &list {
                    println!(
                        "{:<14} {:>5} {:>7} {:>10} {:>6}  {} ({} placement)",
                        p.name, p.adts, p.mcnks, p.placements, p.models, p.description, p.policy
                    );
                }
            }
            Ok(())
        }
        Command::Soak {
            preset,
            slides,
            tiers,
            warmup,
            max_growth,
            json,
        } => {
            let report = sward_benches::bench::run_soak(&sward_benches::bench::SoakOptions {
                preset,
                slides,
                tiers,
                adapter: cli.adapter,
                warmup,
                max_growth_mib: max_growth,
            })?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", sward_benches::bench::soak_text(&report));
            }
            let failures = report.summary.failures();
            if !failures.is_empty() {
                bail!(
                    "soak: {} figure(s) grew past their bound after the warm-up:\n  {}",
                    failures.len(),
                    failures.join("\n  ")
                );
            }
            Ok(())
        }
        Command::Scale {
            scales,
            tiers,
            frames,
            warmup,
            size,
            msaa,
            out,
            json,
        } => {
            let report = sward_benches::bench::run_scale(&sward_benches::bench::ScaleOptions {
                scales: sward_benches::bench::parse_scales(&scales)?,
                tiers,
                frames,
                warmup,
                size: sward_benches::bench::parse_size_arg(&size)?,
                msaa,
                out: out.clone(),
                adapter: cli.adapter,
            })?;
            let md = sward_benches::bench::write_scale(&report, &out)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", sward_benches::bench::scale_markdown(&report));
                println!("report: {}", md.display());
            }
            Ok(())
        }
        Command::Bench(args) => {
            let opts = BenchOptions {
                preset: Some(args.preset),
                tiers: args.tiers,
                frames: args.frames,
                warmup: args.warmup,
                size: args.size,
                msaa: args.msaa,
                quick: args.quick,
                out: args.out,
                adapter: cli.adapter,
                indirect_validation: args.indirect_validation,
                data: cli.data,
                view_distance: args.view_distance,
                view: args.view,
                path: args.path,
                stream: args.stream,
                stream_pace: args.stream_pace,
                stream_config: sward_scenes::streaming::StreamConfig {
                    radius: args.stream_radius,
                    budget: sward_scenes::streaming::ApplyBudget {
                        cpu_ms: args.stream_budget_ms,
                        tiles: args.stream_tiles_per_frame,
                        ..Default::default()
                    },
                    ..Default::default()
                },
                texture_upload: tileset_upload(args.textures.texture_upload),
                density: args.density.density,
            };
            if let Some(file) = args.budget {
                let run = sward_benches::budget::run_budget(&file, &opts)?;
                print!("{}{}", run.headlines, run.outcome.text());
                println!("results: {}", run.json.display());
                run.verdict()?;
                return Ok(());
            }
            let outcome = sward_benches::bench::run_bench(&opts)?;
            print!("{}", outcome.headline);
            println!("report: {}", outcome.dir.join("report.md").display());
            Ok(())
        }
        Command::Compare {
            before,
            after,
            out,
            json,
        } => {
            let text = sward_benches::compare::run_compare(&before, &after, &out, json)?;
            std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes())?;
            Ok(())
        }
        Command::Capture {
            preset,
            tier,
            frames,
            size,
            msaa,
            out,
            textures,
            density,
        } => {
            let opts = one_off(
                preset,
                tier,
                &size,
                msaa,
                cli.adapter,
                cli.data,
                density.density,
            )?;
            let opts = OneOffOptions {
                texture_upload: tileset_upload(textures.texture_upload),
                ..opts
            };
            let n = sward_benches::bench::capture(&opts, frames, &out)?;
            println!("wrote {n} frames to {}", out.display());
            Ok(())
        }
        Command::Shot {
            preset,
            tier,
            view,
            size,
            msaa,
            out,
            textures: _,
            density,
        } if preset == "test-pattern" => {
            // The test pattern has no tiers or views; still reject a malformed --tier.
            let _: sward_passes::TierCombo = tier.parse()?;
            if density.density.is_some() {
                bail!("--density sets the client placement routines' picks; the test pattern places no grass");
            }
            let _ = view;
            let (width, height) = sward_engine::targets::parse_size(&size)?;
            let opts = sward_engine::GpuOptions {
                adapter: cli.adapter,
                ..Default::default()
            };
            let gpu = sward_engine::GpuContext::new(&opts)?;
            let shot = sward_engine::test_scene::render_test_pattern(&gpu, width, height, msaa, 3)?;
            for warning in &shot.warnings {
                eprintln!("warning: {warning}");
            }
            sward_engine::targets::write_png(&shot.image, &out)?;
            print!("{}", shot.timing_table());
            println!("wrote {}", out.display());
            Ok(())
        }
        Command::Shot {
            preset,
            tier,
            view,
            size,
            msaa,
            out,
            textures,
            density,
        } => {
            let opts = one_off(
                preset,
                tier,
                &size,
                msaa,
                cli.adapter,
                cli.data,
                density.density,
            )?;
            let opts = OneOffOptions {
                texture_upload: tileset_upload(textures.texture_upload),
                ..opts
            };
            let path = sward_benches::bench::shot(&opts, view.as_deref(), &out)?;
            println!("wrote {}", path.display());
            Ok(())
        }
        Command::Run(args) => {
            let (w, h) = sward_engine::targets::parse_size(&args.size)
                .map_err(|e| anyhow::anyhow!("--size: {e}"))?;
            sward_viewer::run(sward_viewer::ViewerOptions {
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
                adapter: cli.adapter,
                data: cli.data,
                density: args.density.density,
            })?;
            Ok(())
        }
        Command::Export { preset, out, mpq } => {
            let scene = sward_scenes::presets::Preset::by_name(&preset)?.build()?;
            let export = if mpq {
                sward_scenes::formats::export_mpq
            } else {
                sward_scenes::formats::export_data_dir
            };
            let summary = export(&out, scene.world(), &scene.effects, &scene.models, None)?;
            println!(
                "wrote {} files ({} bytes) of preset {preset} under {}",
                summary.files.len(),
                summary.bytes,
                out.display()
            );
            Ok(())
        }
        Command::Maps { json } => {
            let Some(src) = data_source(&cli.data)? else {
                bail!("`sward maps` lists the maps of --data DIR; give --data");
            };
            let list = sward_scenes::formats::list_maps(&src)?;
            let text = if json {
                serde_json::to_string_pretty(&list)? + "\n"
            } else {
                use std::fmt::Write as _;
                let mut t = format!("client {}\n", sward_scenes::formats::client_version(&src)?);
                let _ = writeln!(t, "{:<24} {:>5} {:>5}  name", "map", "tiles", "id");
                for m in &list {
                    let id = m.id.map_or("-".to_owned(), |i| i.to_string());
                    let _ = writeln!(
                        t,
                        "{:<24} {:>5} {:>5}  {}",
                        m.name,
                        m.tiles,
                        id,
                        m.title.as_deref().unwrap_or("")
                    );
                }
                if list.is_empty() {
                    t.push_str("(no map: no World\\Maps\\NAME\\NAME.wdt found)\n");
                }
                t
            };
            // A closed pipe (`sward maps | head -1`) is an error, not a panic.
            std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes())?;
            Ok(())
        }
        Command::Inspect { what } => {
            let src = data_source(&cli.data)?;
            let read = |file: &str| inspect_files::read_input(src.as_ref(), file);
            match what {
                InspectCommand::Adt {
                    file,
                    json,
                    height_at,
                } => {
                    let f = read(&file)?;
                    let report = sward_scenes::formats::inspect_adt(&f.bytes, &f.name)?;
                    if let Some(xy) = height_at {
                        let parsed = xy.split_once(',').and_then(|(x, y)| {
                            Some((x.trim().parse::<f64>().ok()?, y.trim().parse::<f64>().ok()?))
                        });
                        let Some((x, y)) = parsed else {
                            bail!("--height-at expects X,Y (two numbers), got {xy:?}")
                        };
                        println!("{}", serde_json::to_string(&report.height_at(x, y)?)?);
                        Ok(())
                    } else {
                        print_report!(report, json)
                    }
                }
                InspectCommand::Wdt { file, json } => {
                    print_report!(inspect_files::inspect_wdt(&read(&file)?)?, json)
                }
                InspectCommand::Wdl { file, json } => {
                    print_report!(inspect_files::inspect_wdl(&read(&file)?)?, json)
                }
                InspectCommand::Dbc { file, json } => {
                    print_report!(inspect_files::inspect_dbc(&read(&file)?)?, json)
                }
                InspectCommand::M2 { file, json } => {
                    let f = read(&file)?;
                    let r = inspect_files::inspect_m2(&f, |skin| {
                        // Beside the file on disk, else inside --data.
                        let beside = std::path::Path::new(&file)
                            .with_file_name(skin.rsplit(['\\', '/']).next().unwrap_or(skin));
                        if std::path::Path::new(&file).is_file() && beside.is_file() {
                            return inspect_files::read_input(None, &beside.to_string_lossy())
                                .map(Some);
                        }
                        match &src {
                            Some(s) => s.read(skin),
                            None => Ok(None),
                        }
                    })?;
                    print_report!(r, json)
                }
                InspectCommand::Blp { file, json } => {
                    print_report!(inspect_files::inspect_blp(&read(&file)?)?, json)
                }
                InspectCommand::Placements {
                    preset,
                    mcnk,
                    json,
                    gpu,
                    density,
                } => {
                    let tile = cli
                        .tile
                        .as_deref()
                        .map(|t| parse_pair("--tile", t))
                        .transpose()?;
                    if let Some((tx, ty)) = tile {
                        if tx >= 64 || ty >= 64 {
                            bail!("--tile {tx},{ty}: tile coordinates are 0..64 each");
                        }
                    }
                    let mcnks = mcnk
                        .iter()
                        .map(|m| parse_pair("--mcnk", m))
                        .collect::<Result<Vec<_>>>()?;
                    let preset_name = preset;
                    let preset = sward_scenes::presets::Preset::by_name(&preset_name)?
                        .with_density_opt(density.density)
                        .map_err(|e| anyhow::anyhow!("--density: preset `{preset_name}`: {e}"))?;
                    let scene = match &cli.data {
                        None => preset.build()?,
                        Some(dir) => {
                            sward_scenes::formats::load_scene(dir, None, *preset.policy())?
                        }
                    };
                    let Some((tx, ty)) = tile else {
                        let tiles: Vec<String> = scene
                            .world()
                            .tiles()
                            .iter()
                            .map(|t| format!("{},{}", t.coord.x, t.coord.y))
                            .collect();
                        bail!(
                            "`inspect placements` needs --tile X,Y (the tile of the MCNKs; {} has {})",
                            if cli.data.is_some() { "the data's window" } else { preset_name.as_str() },
                            tiles.join(" ")
                        );
                    };
                    let tile = sward_scenes::TileCoord::new(tx, ty);
                    let records = if gpu {
                        let ctx = sward_engine::GpuContext::new(&sward_engine::GpuOptions {
                            adapter: cli.adapter,
                            ..Default::default()
                        })
                        .map_err(|e| {
                            anyhow::anyhow!(
                                "inspect placements --gpu generates the placements on a GPU \
                                 device, and none could be opened: {e}"
                            )
                        })?;
                        sward_passes::grass::placement_gpu::inspect_placements_gpu(
                            &ctx, &scene, tile, &mcnks,
                        )?
                    } else {
                        scene.inspect_placements(tile, &mcnks)?
                    };
                    let text = if json {
                        serde_json::to_string_pretty(&records)? + "\n"
                    } else {
                        format!(
                            "{} placement, tile {tx},{ty}\n{}",
                            scene.policy().name(),
                            sward_scenes::placement::records_text(&records)
                        )
                    };
                    std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes())?;
                    Ok(())
                }
            }
        }
    }
}
