//! A whole world as a directory laid out like extracted client archives:
//! [`export_data_dir`] writes one, [`load_data_dir`] / [`load_map`] read one.
//!
//! ```text
//! DIR/World/Maps/<Map>/<Map>.wdt
//! DIR/World/Maps/<Map>/<Map>_<x>_<y>.adt        one per WDT MAIN entry
//! DIR/DBFilesClient/GroundEffectTexture.dbc
//! DIR/DBFilesClient/GroundEffectDoodad.dbc
//! DIR/World/NoDXT/Detail/<Model>.m2            archive path with '\' -> '/'
//! DIR/World/NoDXT/Detail/<Model>.blp           the model's texture
//! ```
//!
//! Path components are matched case-insensitively when reading, as extracted
//! client files come in mixed case. The loader reads every model that a
//! GroundEffectTexture record reaches (in GroundEffectDoodad order, each
//! path once) and fails, naming the file, if one is missing or bad.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{adt, blp, dbc, m2, wdt, FormatError};
use crate::effects::{
    normalize_model_path, EffectError, GroundEffectLayout, GroundEffects, ResolvedEffects,
};
use crate::models::DetailModel;
use crate::world::{AdtTile, TileCoord, World};

/// GroundEffectTexture table path inside a data directory.
pub const TEXTURE_DBC: &str = "DBFilesClient/GroundEffectTexture.dbc";
/// GroundEffectDoodad table path inside a data directory.
pub const DOODAD_DBC: &str = "DBFilesClient/GroundEffectDoodad.dbc";
/// Directory holding one folder per map.
pub const MAPS_DIR: &str = "World/Maps";

/// A world with its ground effects and detail models, as loaded from files.
#[derive(Clone, Debug)]
pub struct DataSet {
    /// The terrain.
    pub world: World,
    /// Both ground-effect tables.
    pub effects: GroundEffects,
    /// Detail models, in GroundEffectDoodad order.
    pub models: Vec<DetailModel>,
}

impl DataSet {
    /// The models' archive paths, in model-index order.
    pub fn model_paths(&self) -> Vec<&str> {
        self.models.iter().map(|m| m.path.as_str()).collect()
    }

    /// Effects resolved against this set's models (what placement takes).
    pub fn resolve_effects(&self) -> Result<ResolvedEffects, EffectError> {
        self.effects.resolve(&self.model_paths())
    }
}

/// What [`export_data_dir`] wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportSummary {
    /// Every file written, in writing order.
    pub files: Vec<PathBuf>,
    /// Total bytes written.
    pub bytes: u64,
}

/// The file an archive path (`World\NoDXT\Detail\X.m2`) maps to under `dir`.
pub fn archive_to_path(dir: &Path, archive: &str) -> PathBuf {
    archive
        .split(['\\', '/'])
        .filter(|c| !c.is_empty())
        .fold(dir.to_path_buf(), |p, c| p.join(c))
}

/// The texture path sward stores for a model path (`.m2` -> `.blp`).
pub fn texture_archive_path(model_path: &str) -> String {
    let stem = model_path
        .rsplit_once('.')
        .map_or(model_path, |(stem, _)| stem);
    format!("{stem}.blp")
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> FormatError + '_ {
    move |source| FormatError::Io {
        file: path.display().to_string(),
        source,
    }
}

fn put(summary: &mut ExportSummary, path: PathBuf, bytes: &[u8]) -> Result<(), FormatError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io_err(parent))?;
    }
    std::fs::write(&path, bytes).map_err(io_err(&path))?;
    summary.bytes += bytes.len() as u64;
    summary.files.push(path);
    Ok(())
}

/// Writes `world`, `effects` and `models` under `dir`. GroundEffectTexture
/// is written in `layout` (default: the effects' own layout). Every doodad
/// an effect names must have its model in `models`.
pub fn export_data_dir(
    dir: &Path,
    world: &World,
    effects: &GroundEffects,
    models: &[DetailModel],
    layout: Option<GroundEffectLayout>,
) -> Result<ExportSummary, FormatError> {
    let name = &world.name;
    if name.is_empty() || name.contains(['/', '\\', '\0']) || name.starts_with('.') {
        return Err(FormatError::Unwritable {
            what: "world".into(),
            reason: format!("map name {name:?} is not a file name"),
        });
    }
    let paths: Vec<&str> = models.iter().map(|m| m.path.as_str()).collect();
    effects
        .resolve(&paths)
        .map_err(|e| FormatError::Unwritable {
            what: "ground effects".into(),
            reason: e.to_string(),
        })?;
    let mut s = ExportSummary::default();
    let map_dir = dir.join(MAPS_DIR).join(name);
    let tiles: Vec<TileCoord> = world.tiles().iter().map(|t| t.coord).collect();
    let wdt_bytes = wdt::write_wdt(&tiles, wdt::MPHD_BIG_ALPHA)?;
    put(&mut s, map_dir.join(format!("{name}.wdt")), &wdt_bytes)?;
    for t in world.tiles() {
        let bytes = adt::write_adt(t)?;
        let file = format!("{name}_{}_{}.adt", t.coord.x, t.coord.y);
        put(&mut s, map_dir.join(file), &bytes)?;
    }
    let layout = layout.unwrap_or(effects.layout);
    put(
        &mut s,
        dir.join(TEXTURE_DBC),
        &dbc::write_ground_effect_texture(effects, layout),
    )?;
    put(
        &mut s,
        dir.join(DOODAD_DBC),
        &dbc::write_ground_effect_doodad(&effects.doodads)?,
    )?;
    for m in models {
        let tex = texture_archive_path(&m.path);
        put(
            &mut s,
            archive_to_path(dir, &m.path),
            &m2::write_m2(m, &tex)?,
        )?;
        put(
            &mut s,
            archive_to_path(dir, &tex),
            &blp::write_blp(&m.texture)?,
        )?;
    }
    Ok(s)
}

/// Finds `rel` (components split on `/` or `\`) under `dir`, matching each
/// component case-insensitively when the exact name is absent.
pub fn find_path(dir: &Path, rel: &str) -> Option<PathBuf> {
    let mut at = dir.to_path_buf();
    for comp in rel.split(['\\', '/']).filter(|c| !c.is_empty()) {
        let exact = at.join(comp);
        if exact.exists() {
            at = exact;
            continue;
        }
        let found = std::fs::read_dir(&at)
            .ok()?
            .flatten()
            .find(|e| e.file_name().to_string_lossy().eq_ignore_ascii_case(comp))?;
        at = found.path();
    }
    Some(at)
}

fn read_file(dir: &Path, rel: &str) -> Result<(Vec<u8>, String), FormatError> {
    let path = find_path(dir, rel).ok_or_else(|| FormatError::DataDir {
        dir: dir.display().to_string(),
        reason: format!("missing file {rel}"),
    })?;
    let bytes = std::fs::read(&path).map_err(io_err(&path))?;
    Ok((bytes, path.display().to_string()))
}

/// The name of the only map under `dir/World/Maps` (a folder holding
/// `<name>/<name>.wdt`); an error when there is none or several.
pub fn single_map(dir: &Path) -> Result<String, FormatError> {
    let dd = || dir.display().to_string();
    let maps_dir = find_path(dir, MAPS_DIR).ok_or_else(|| FormatError::DataDir {
        dir: dd(),
        reason: format!("no {MAPS_DIR} directory"),
    })?;
    let mut maps: Vec<String> = std::fs::read_dir(&maps_dir)
        .map_err(io_err(&maps_dir))?
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| find_path(&maps_dir, &format!("{n}/{n}.wdt")).is_some())
        .collect();
    maps.sort();
    match maps.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(FormatError::DataDir {
            dir: dd(),
            reason: format!("no map with a WDT under {MAPS_DIR}"),
        }),
        many => Err(FormatError::DataDir {
            dir: dd(),
            reason: format!("several maps ({}); name one", many.join(", ")),
        }),
    }
}

/// Loads the only map under `dir/World/Maps` (see [`load_map`]).
pub fn load_data_dir(dir: &Path) -> Result<DataSet, FormatError> {
    load_map(dir, &single_map(dir)?)
}

/// Reads the WDT of map `name`: the tiles it lists.
pub fn read_map_wdt(dir: &Path, name: &str) -> Result<wdt::WdtInfo, FormatError> {
    let (bytes, file) = read_file(dir, &format!("{MAPS_DIR}/{name}/{name}.wdt"))?;
    wdt::read_wdt(&bytes, &file)
}

/// Reads the ADT of tile `t` of map `name`.
pub fn read_map_tile(dir: &Path, name: &str, t: TileCoord) -> Result<AdtTile, FormatError> {
    let rel = format!("{MAPS_DIR}/{name}/{name}_{}_{}.adt", t.x, t.y);
    let (bytes, file) = read_file(dir, &rel)?;
    adt::read_adt(&bytes, &file, Some(t))
}

/// Reads both ground-effect tables and every detail model they reach, and
/// checks that the effects resolve against those models.
pub fn load_effects_and_models(
    dir: &Path,
) -> Result<(GroundEffects, Vec<DetailModel>), FormatError> {
    let (tex, tex_file) = read_file(dir, TEXTURE_DBC)?;
    let (doo, doo_file) = read_file(dir, DOODAD_DBC)?;
    let effects = dbc::read_ground_effects(&tex, &tex_file, &doo, &doo_file)?;
    let used: HashSet<u32> = effects
        .textures
        .iter()
        .flat_map(|t| t.doodads)
        .filter(|&d| !effects.slot_is_empty(d))
        .collect();
    let mut seen = HashSet::new();
    let mut models = Vec::new();
    for d in effects.doodads.iter().filter(|d| used.contains(&d.id)) {
        let path = normalize_model_path(&d.model);
        if !seen.insert(path.to_ascii_lowercase()) {
            continue;
        }
        let (bytes, file) = read_file(dir, &path)?;
        let m = m2::read_m2(&bytes, &file)?;
        let tex_name = m
            .textures
            .first()
            .cloned()
            .ok_or_else(|| FormatError::Malformed {
                file: file.clone(),
                chunk: "M2 textures".into(),
                offset: 0x5C,
                reason: "model has no texture".into(),
            })?;
        let (tbytes, tfile) = read_file(dir, &tex_name)?;
        let texture = blp::read_blp(&tbytes, &tfile)?;
        models.push(m.into_detail_model(&file, path, texture)?);
    }
    let paths: Vec<&str> = models.iter().map(|m| m.path.as_str()).collect();
    effects
        .resolve(&paths)
        .map_err(|source| FormatError::Effects {
            file: format!("{}/{TEXTURE_DBC}", dir.display()),
            source,
        })?;
    Ok((effects, models))
}

/// Loads map `name` from `dir`: its WDT, every ADT the WDT lists, both
/// ground-effect tables and every model they reach, each with its texture.
pub fn load_map(dir: &Path, name: &str) -> Result<DataSet, FormatError> {
    let info = read_map_wdt(dir, name)?;
    let mut world = World::new(name);
    for t in &info.tiles {
        let tile = read_map_tile(dir, name, *t)?;
        world
            .insert(Arc::new(tile))
            .map_err(|source| FormatError::World {
                file: format!("{MAPS_DIR}/{name}/{name}_{}_{}.adt", t.x, t.y),
                source,
            })?;
    }
    let (effects, models) = load_effects_and_models(dir)?;
    Ok(DataSet {
        world,
        effects,
        models,
    })
}
