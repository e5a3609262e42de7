//! The command line's pieces that belong to the world data: the argument
//! groups every command shares ([`DataArgs`], the global `--data`, `--map`,
//! `--at`, `--tile`, `--client`, `--placeholders`; [`DensityArg`];
//! [`TextureUploadArg`]), each turned into one [`DataOptions`] value, and
//! the commands that only read data (`presets`, `export`, `maps`,
//! `inspect`: [`run_presets`], [`run_export`], [`run_maps`],
//! [`inspect::run_inspect`]).
//!
//! The binary flattens these groups into its parser and dispatches; what a
//! command does lives here, beside the code that does it.

pub mod inspect;

use std::path::PathBuf;

use crate::formats::{self, maps, ClientVersion, DataOptions, DataSource, TextureUpload};
use crate::presets::Preset;

pub use inspect::{run_inspect, GpuPlacements, InspectCommand};

/// Why a data command failed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A malformed or misplaced option.
    #[error("{0}")]
    Usage(String),
    /// A data file or directory.
    #[error(transparent)]
    Format(#[from] formats::FormatError),
    /// A preset.
    #[error(transparent)]
    Preset(#[from] crate::presets::PresetError),
    /// Opening the command's scene.
    #[error(transparent)]
    Scene(#[from] crate::presets::SceneError),
    /// Listing placements.
    #[error(transparent)]
    Inspect(#[from] crate::placement::InspectError),
    /// Writing JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// Writing to standard output (a closed pipe is an error, not a panic).
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// Work another crate did for a command of this one (the GPU placements).
    #[error(transparent)]
    Other(Box<dyn std::error::Error + Send + Sync>),
}

/// The global data options (`--data`, `--map`, `--at`, `--tile`,
/// `--client`, `--placeholders`).
#[derive(clap::Args, Debug, Clone)]
pub struct DataArgs {
    /// Load the world from game data instead of generating the preset: a WoW
    /// 1.12 or 3.3.5 client install (DIR/Data/*.MPQ, read in the client's
    /// patch order), a directory of loose ADT/WDT/WDL/DBC/M2/BLP files (as written
    /// by `sward export`), or both (loose files win). The preset still chooses
    /// the placement policy. See docs/real-data.md.
    #[arg(long, global = true, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// With --data: the map to load (a WDT under World\Maps\NAME\; `sward
    /// maps` lists them). Default: the only map.
    #[arg(long, global = true, value_name = "NAME")]
    pub map: Option<String>,
    /// With --data: centre the resident window on the tile holding world
    /// point X,Y.
    #[arg(long, global = true, value_name = "X,Y", allow_hyphen_values = true)]
    pub at: Option<String>,
    /// With --data: centre the resident window on ADT tile X,Y (the numbers
    /// of Map_X_Y.adt).
    #[arg(long, global = true, value_name = "X,Y")]
    pub tile: Option<String>,
    /// With --data: the client version the data is read as (1.12 or 3.3.5;
    /// 0.5.3 for the alpha's tables). Default: decided from the data
    /// (Map.dbc's field count, the archives' names); `sward maps` says which.
    #[arg(long, global = true, value_name = "VERSION")]
    pub client: Option<String>,
    /// With --data: draw a detail model the data lacks as a placeholder (a
    /// yellow checkered cross, counted as scene.placeholder_models in a
    /// report) or skip its doodads (off).
    #[arg(long, global = true, value_name = "on|off", default_value = "on", value_parser = ["on", "off"])]
    pub placeholders: String,
}

impl DataArgs {
    /// The options these flags give. `tile_of_preset`: the command takes
    /// `--tile` without `--data` as a tile of the preset's own world
    /// (`inspect placements`), so it chooses no data window then. An error
    /// names a flag that needs `--data` without it, or a malformed value.
    pub fn options(&self, tile_of_preset: bool) -> Result<DataOptions, CliError> {
        let mut opts = DataOptions {
            dir: self.data.clone(),
            placeholders: self.placeholders == "on",
            ..DataOptions::default()
        };
        let tile_chooses = self.tile.is_some() && !(tile_of_preset && self.data.is_none());
        if self.map.is_some() || self.at.is_some() || tile_chooses {
            if self.data.is_none() {
                return Err(CliError::Usage(
                    "--map, --at and --tile choose the world of --data DIR; give --data".into(),
                ));
            }
            opts.selection = maps::WorldSelection {
                map: self.map.clone(),
                at: parsed_flag("--at", self.at.as_deref(), maps::parse_xy)?,
                tile: parsed_flag("--tile", self.tile.as_deref(), maps::parse_tile)?,
            };
        }
        if let Some(v) = self.client.as_deref() {
            if self.data.is_none() {
                return Err(CliError::Usage(
                    "--client says which client wrote --data DIR; give --data".into(),
                ));
            }
            opts.client = Some(
                ClientVersion::parse(v).map_err(|e| CliError::Usage(format!("--client: {e}")))?,
            );
        }
        Ok(opts)
    }
}

/// `value`, when given, parsed by `parse`; a bad value is a usage error
/// naming `flag`.
fn parsed_flag<T>(
    flag: &str,
    value: Option<&str>,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Option<T>, CliError> {
    value
        .map(parse)
        .transpose()
        .map_err(|e| CliError::Usage(format!("{flag}: {e}")))
}

/// `--density`, shared by bench, shot, capture, run and inspect placements.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct DensityArg {
    /// The client routines' density setting, picks per MCNK, for every tier
    /// of the run: 1.12 frillDensity (the client's settings write 16, 32 or
    /// 48) or 3.3.5 groundEffectDensity, 16..=256. An error for a preset
    /// placed per-cell. Default: the client's default, 16.
    #[arg(long, value_name = "N")]
    pub density: Option<u32>,
}

/// `--texture-upload`, shared by bench, shot and capture.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct TextureUploadArg {
    /// How DXT (BLP) detail and tileset textures reach the GPU: `auto`
    /// uploads BC blocks where the device has texture-compression-bc and
    /// decodes on the CPU otherwise; `decode` always decodes on the CPU.
    #[arg(long = "texture-upload", default_value = "auto", value_name = "auto|decode", value_parser = TextureUpload::parse)]
    pub texture_upload: TextureUpload,
}

/// `sward presets`.
#[derive(clap::Args, Debug)]
pub struct PresetsArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Lists the presets with their ADTs, MCNKs, placements and models.
pub fn run_presets(args: &PresetsArgs) -> Result<(), CliError> {
    let list = Preset::summaries()?;
    let text = if args.json {
        serde_json::to_string_pretty(&list)? + "\n"
    } else {
        use std::fmt::Write as _;
        let mut t = format!(
            "{:<14} {:>5} {:>7} {:>10} {:>6}  description\n",
            "preset", "adts", "mcnks", "placements", "models"
        );
        for p in &list {
            let _ = writeln!(
                t,
                "{:<14} {:>5} {:>7} {:>10} {:>6}  {} ({} placement)",
                p.name, p.adts, p.mcnks, p.placements, p.models, p.description, p.policy
            );
        }
        t
    };
    write_stdout(&text)
}

/// `sward export`.
#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    #[arg(long)]
    pub preset: String,
    #[arg(long)]
    pub out: PathBuf,
    /// Write client-shaped MPQ archives (OUT/Data/dbc.MPQ, terrain.MPQ,
    /// model.MPQ, texture.MPQ) instead of loose files.
    #[arg(long)]
    pub mpq: bool,
}

/// Writes the preset's world as client files.
pub fn run_export(args: &ExportArgs) -> Result<(), CliError> {
    let scene = Preset::by_name(&args.preset)?.build()?;
    let export = if args.mpq {
        formats::export_mpq
    } else {
        formats::export_data_dir
    };
    let summary = export(
        &args.out,
        scene.world(),
        &scene.effects,
        &scene.models,
        None,
    )?;
    write_stdout(&format!(
        "wrote {} files ({} bytes) of preset {} under {}\n",
        summary.files.len(),
        summary.bytes,
        args.preset,
        args.out.display()
    ))
}

/// `sward maps`.
#[derive(clap::Args, Debug)]
pub struct MapsArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Lists the maps of the data `opts` names.
pub fn run_maps(args: &MapsArgs, opts: &DataOptions) -> Result<(), CliError> {
    let Some(src) = opts.open_source()? else {
        return Err(CliError::Usage(
            "`sward maps` lists the maps of --data DIR; give --data".into(),
        ));
    };
    let list = formats::list_maps(&src)?;
    let text = if args.json {
        serde_json::to_string_pretty(&list)? + "\n"
    } else {
        use std::fmt::Write as _;
        let mut t = format!("client {}\n", formats::client_version(&src)?);
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
    write_stdout(&text)
}

/// The data's directory and client version, for `sward info`: `None`
/// without `--data`.
pub fn data_client(
    opts: &DataOptions,
) -> Result<Option<(String, formats::ClientDetection)>, CliError> {
    Ok(match opts.open_source()? {
        Some(src) => Some((
            src.root().display().to_string(),
            formats::client_version(&src)?,
        )),
        None => None,
    })
}

/// Writes `text` to standard output; a closed pipe (`sward maps | head -1`)
/// is an error, not a panic.
pub fn write_stdout(text: &str) -> Result<(), CliError> {
    std::io::Write::write_all(&mut std::io::stdout(), text.as_bytes())?;
    Ok(())
}

/// Opens the source `opts` names, for commands that read files from it.
fn open_source(opts: &DataOptions) -> Result<Option<DataSource>, CliError> {
    Ok(opts.open_source()?)
}
