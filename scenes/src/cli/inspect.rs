//! `sward inspect`: game files parsed with the loader's own readers and
//! summarised as text or JSON, and the placements of MCNKs of one tile
//! (on the CPU here; on the GPU through the [`GpuPlacements`] the binary
//! hands in, as that work lives in the renderer's crate).

use crate::formats::{inspect_adt, inspect_files, DataOptions};
use crate::placement::{records_text, PlacementRecord};
use crate::presets::{open_preset, Scene};
use crate::world::coords::TileCoord;

use super::{open_source, write_stdout, CliError, DensityArg};

/// Generates the placements of MCNKs `mcnks` (all when empty) of `tile` of
/// `scene` on the GPU (`inspect placements --gpu`).
pub type GpuPlacements<'a> =
    &'a dyn Fn(
        &Scene,
        TileCoord,
        &[(u32, u32)],
    ) -> Result<Vec<PlacementRecord>, Box<dyn std::error::Error + Send + Sync>>;

/// What `sward inspect` reads.
#[derive(clap::Subcommand, Debug)]
pub enum InspectCommand {
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

impl InspectCommand {
    /// Whether this command takes `--tile` as a tile of the preset's own
    /// world when there is no `--data` (`inspect placements`).
    pub fn takes_tile_of_preset(&self) -> bool {
        matches!(self, InspectCommand::Placements { .. })
    }
}

/// A report as one line of JSON or as its text.
fn report<R: serde::Serialize>(
    r: &R,
    text: impl FnOnce(&R) -> String,
    json: bool,
) -> Result<String, CliError> {
    Ok(if json {
        serde_json::to_string(r)? + "\n"
    } else {
        text(r)
    })
}

/// Runs `sward inspect WHAT`: files are read from disk or, failing that,
/// from the data `opts` names; `tile` is the global `--tile` (the tile
/// whose placements are listed); `gpu` generates placements for `--gpu`.
pub fn run_inspect(
    what: InspectCommand,
    opts: &DataOptions,
    tile: Option<&str>,
    gpu: GpuPlacements<'_>,
) -> Result<(), CliError> {
    let src = open_source(opts)?;
    let read = |file: &str| inspect_files::read_input(src.as_ref(), file);
    let text = match what {
        InspectCommand::Adt {
            file,
            json,
            height_at,
        } => {
            let f = read(&file)?;
            let r = inspect_adt(&f.bytes, &f.name)?;
            match height_at {
                Some(xy) => {
                    let parsed = xy.split_once(',').and_then(|(x, y)| {
                        Some((x.trim().parse::<f64>().ok()?, y.trim().parse::<f64>().ok()?))
                    });
                    let Some((x, y)) = parsed else {
                        return Err(CliError::Usage(format!(
                            "--height-at expects X,Y (two numbers), got {xy:?}"
                        )));
                    };
                    serde_json::to_string(&r.height_at(x, y)?)? + "\n"
                }
                None => report(&r, |r| r.text(), json)?,
            }
        }
        InspectCommand::Wdt { file, json } => report(
            &inspect_files::inspect_wdt(&read(&file)?)?,
            |r| r.text(),
            json,
        )?,
        InspectCommand::Wdl { file, json } => report(
            &inspect_files::inspect_wdl(&read(&file)?)?,
            |r| r.text(),
            json,
        )?,
        InspectCommand::Dbc { file, json } => report(
            &inspect_files::inspect_dbc(&read(&file)?)?,
            |r| r.text(),
            json,
        )?,
        InspectCommand::M2 { file, json } => {
            let f = read(&file)?;
            let r = inspect_files::inspect_m2(&f, |skin| {
                // Beside the file on disk, else inside --data.
                let beside = std::path::Path::new(&file)
                    .with_file_name(skin.rsplit(['\\', '/']).next().unwrap_or(skin));
                if std::path::Path::new(&file).is_file() && beside.is_file() {
                    return inspect_files::read_input(None, &beside.to_string_lossy()).map(Some);
                }
                match &src {
                    Some(s) => s.read(skin),
                    None => Ok(None),
                }
            })?;
            report(&r, |r| r.text(), json)?
        }
        InspectCommand::Blp { file, json } => report(
            &inspect_files::inspect_blp(&read(&file)?)?,
            |r| r.text(),
            json,
        )?,
        InspectCommand::Placements {
            preset,
            mcnk,
            json,
            gpu: on_gpu,
            density,
        } => {
            let opts = DataOptions {
                density: density.density,
                ..opts.clone()
            };
            placements(&preset, &mcnk, json, on_gpu, &opts, tile, gpu)?
        }
    };
    write_stdout(&text)
}

/// `inspect placements`: the records of MCNKs `mcnk` of tile `tile`.
fn placements(
    preset_name: &str,
    mcnk: &[String],
    json: bool,
    on_gpu: bool,
    opts: &DataOptions,
    tile: Option<&str>,
    gpu: GpuPlacements<'_>,
) -> Result<String, CliError> {
    let tile = tile.map(|t| parse_pair("--tile", t)).transpose()?;
    if let Some((tx, ty)) = tile {
        if tx >= 64 || ty >= 64 {
            return Err(CliError::Usage(format!(
                "--tile {tx},{ty}: tile coordinates are 0..64 each"
            )));
        }
    }
    let mcnks = mcnk
        .iter()
        .map(|m| parse_pair("--mcnk", m))
        .collect::<Result<Vec<_>, _>>()?;
    let preset = open_preset(preset_name, opts)?;
    let scene = preset.scene(opts)?;
    let Some((tx, ty)) = tile else {
        let tiles: Vec<String> = scene
            .world()
            .tiles()
            .iter()
            .map(|t| format!("{},{}", t.coord.x, t.coord.y))
            .collect();
        return Err(CliError::Usage(format!(
            "`inspect placements` needs --tile X,Y (the tile of the MCNKs; {} has {})",
            if opts.dir.is_some() {
                "the data's window"
            } else {
                preset_name
            },
            tiles.join(" ")
        )));
    };
    let tile = TileCoord::new(tx, ty);
    let records = if on_gpu {
        gpu(&scene, tile, &mcnks).map_err(CliError::Other)?
    } else {
        scene.inspect_placements(tile, &mcnks)?
    };
    Ok(if json {
        serde_json::to_string_pretty(&records)? + "\n"
    } else {
        format!(
            "{} placement, tile {tx},{ty}\n{}",
            scene.policy().name(),
            records_text(&records)
        )
    })
}

/// Parses `A,B` as two unsigned integers for option `what`.
fn parse_pair(what: &str, text: &str) -> Result<(u32, u32), CliError> {
    text.split_once(',')
        .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)))
        .ok_or_else(|| {
            CliError::Usage(format!(
                "{what} expects two non-negative integers as A,B, got {text:?}"
            ))
        })
}
