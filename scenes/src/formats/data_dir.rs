//! A whole world as files laid out like the client's: [`export_data_dir`]
//! writes a directory of loose files, [`load_data_dir`] / [`load_map`] read
//! one from a [`DataSource`] (loose files, a client install's MPQ archives,
//! or both).
//!
//! ```text
//! DIR/World/Maps/<Map>/<Map>.wdt
//! DIR/World/Maps/<Map>/<Map>.wdl                far heights (optional when reading)
//! DIR/World/Maps/<Map>/<Map>_<x>_<y>.adt        one per WDT MAIN entry
//! DIR/DBFilesClient/Map.dbc                    one record: the map
//! DIR/DBFilesClient/GroundEffectTexture.dbc
//! DIR/DBFilesClient/GroundEffectDoodad.dbc
//! DIR/World/NoDXT/Detail/<Model>.m2            archive path with '\' -> '/'
//! DIR/World/NoDXT/Detail/<Model>.blp           the model's texture
//! ```
//!
//! Path components are matched case-insensitively when reading, as extracted
//! client files come in mixed case. The loader reads every model that a
//! GroundEffectTexture record reaches (in GroundEffectDoodad order, each
//! path once). A map without a WDL loads without far heights; a WDL that is
//! present but malformed is an error naming it. A model (or its texture, or its `.skin`) that is absent from
//! the data is not fatal: one warning names the file and the effects that
//! use it, its doodad slots are emptied and [`DataSet::missing`] lists it. A
//! file that is present but malformed is an error naming it. The
//! GroundEffectTexture layout follows the data's client version where the
//! table's shape allows ([`super::version`]). A doodad slot
//! naming no GroundEffectDoodad record is a dangling reference: one warning
//! counts them, and they draw nothing ([`GroundEffects::dangling_doodads`]).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use super::paths::{find_path, wdl_path, wdt_path, DOODAD_DBC, MAPS_DIR, TEXTURE_DBC};
use super::source::DataSource;
use super::{adt, blp, dbc, m2, wdl, wdt, FormatError};
use crate::effects::{
    normalize_model_path, EffectError, GroundEffectLayout, GroundEffects, ResolvedEffects,
};
use crate::models::DetailModel;
use crate::world::{AdtTile, TileCoord, TileTexture, World};

/// A world with its ground effects and detail models, as loaded from files.
#[derive(Clone, Debug)]
pub struct DataSet {
    /// The terrain.
    pub world: World,
    /// The map's WDL (far heights), when the data has one.
    pub wdl: Option<wdl::Wdl>,
    /// Both ground-effect tables.
    pub effects: GroundEffects,
    /// Detail models, in GroundEffectDoodad order.
    pub models: Vec<DetailModel>,
    /// Models an effect names that the data lacks (their slots are empty).
    pub missing: Vec<MissingModel>,
}

/// A detail model that a ground effect names but the data does not have.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MissingModel {
    /// The model's archive path.
    pub model: String,
    /// The missing file (the model, its `.skin` or its texture).
    pub file: String,
    /// GroundEffectDoodad ids with this model.
    pub doodads: Vec<u32>,
    /// GroundEffectTexture ids whose slots named those doodads.
    pub effects: Vec<u32>,
    /// The model index of its placeholder ([`placeholder_model`]) when
    /// placeholders are on ([`super::DataOptions::placeholders`]); `None`:
    /// its doodads are skipped.
    pub placeholder: Option<u16>,
}

impl std::fmt::Display for MissingModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
        write!(f, "missing {} (model {}", self.file, self.model)?;
        write!(
            f,
            ", GroundEffectDoodad {}, used by ground effect {}); {}",
            ids(&self.doodads),
            ids(&self.effects),
            if self.placeholder.is_some() {
                "drawn as a placeholder"
            } else {
                "its doodad is skipped"
            }
        )
    }
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

/// The Map table written with an export (one record, id 0, the map).
pub const MAP_DBC: &str = "DBFilesClient/Map.dbc";

/// Every file of an export as (archive path with `/`, bytes), in writing
/// order: WDT, WDL (from the world's exact heights, see
/// [`wdl::Wdl::from_world`]), ADTs, Map.dbc, both ground-effect tables, then each model
/// and its texture. GroundEffectTexture is written in `layout` (default: the
/// effects' own layout). Every doodad an effect names must have its model
/// in `models`.
pub fn export_files(
    world: &World,
    effects: &GroundEffects,
    models: &[DetailModel],
    layout: Option<GroundEffectLayout>,
) -> Result<Vec<(String, Vec<u8>)>, FormatError> {
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
    let mut out = Vec::new();
    let map_dir = format!("{MAPS_DIR}/{name}");
    let tiles: Vec<TileCoord> = world.tiles().iter().map(|t| t.coord).collect();
    let wdt_bytes = wdt::write_wdt(&tiles, wdt::MPHD_BIG_ALPHA)?;
    out.push((format!("{map_dir}/{name}.wdt"), wdt_bytes));
    let far = wdl::Wdl::from_world(world)?;
    out.push((format!("{map_dir}/{name}.wdl"), wdl::write_wdl(&far)));
    for t in world.tiles() {
        let file = format!("{map_dir}/{name}_{}_{}.adt", t.coord.x, t.coord.y);
        out.push((file, adt::write_adt(t)?));
    }
    out.push((MAP_DBC.into(), dbc::write_map_dbc(&[(0, name)])?));
    let layout = layout.unwrap_or(effects.layout);
    out.push((
        TEXTURE_DBC.into(),
        dbc::write_ground_effect_texture(effects, layout),
    ));
    out.push((
        DOODAD_DBC.into(),
        dbc::write_ground_effect_doodad(&effects.doodads)?,
    ));
    for m in models {
        let tex = texture_archive_path(&m.path);
        out.push((m.path.replace('\\', "/"), m2::write_m2(m, &tex)?));
        out.push((tex.replace('\\', "/"), blp::write_blp(&m.texture)?));
    }
    out.extend(tileset_files(world)?);
    Ok(out)
}

/// Writes `world`, `effects` and `models` under `dir` as loose files (see
/// [`export_files`]).
pub fn export_data_dir(
    dir: &Path,
    world: &World,
    effects: &GroundEffects,
    models: &[DetailModel],
    layout: Option<GroundEffectLayout>,
) -> Result<ExportSummary, FormatError> {
    let mut s = ExportSummary::default();
    for (rel, bytes) in export_files(world, effects, models, layout)? {
        put(&mut s, archive_to_path(dir, &rel), &bytes)?;
    }
    Ok(s)
}

/// Reads the WDL of map `name`: `None` when the data has none, an error
/// naming the file when it is malformed.
pub fn read_map_wdl(src: &DataSource, name: &str) -> Result<Option<wdl::Wdl>, FormatError> {
    match src.read(&wdl_path(name))? {
        Some(f) => wdl::read_wdl(&f.bytes, &f.name).map(Some),
        None => Ok(None),
    }
}

/// The ADT path of tile `t` of map `name`.
pub fn adt_path(name: &str, t: TileCoord) -> String {
    format!("World\\Maps\\{name}\\{name}_{}_{}.adt", t.x, t.y)
}

/// The name of the only map in `src` (see [`super::maps::list_maps`]); an
/// error when there is none or several.
pub fn single_map(src: &DataSource) -> Result<String, FormatError> {
    let dd = || src.root().display().to_string();
    let maps = super::maps::map_names(src)?;
    match maps.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(FormatError::DataDir {
            dir: dd(),
            reason: format!("no map with a WDT under {MAPS_DIR}"),
        }),
        many => Err(FormatError::DataDir {
            dir: dd(),
            reason: format!(
                "{} maps ({}); choose one with --map",
                many.len(),
                many.join(", ")
            ),
        }),
    }
}

/// Loads the only map of `dir` (see [`load_map`]).
pub fn load_data_dir(dir: &Path) -> Result<DataSet, FormatError> {
    let src = DataSource::open(dir)?;
    let name = single_map(&src)?;
    load_map_from(&src, &name)
}

/// Reads the WDT of map `name`: the tiles it lists.
pub fn read_map_wdt(src: &DataSource, name: &str) -> Result<wdt::WdtInfo, FormatError> {
    let f = src.require(&wdt_path(name))?;
    wdt::read_wdt(&f.bytes, &f.name)
}

/// Reads the ADT of tile `t` of map `name`. `big_alpha` is the WDT's MPHD
/// big-alpha flag (8-bit alpha maps); `None` infers the alpha depth from
/// the sizes.
pub fn read_map_tile(
    src: &DataSource,
    name: &str,
    t: TileCoord,
    big_alpha: Option<bool>,
) -> Result<AdtTile, FormatError> {
    let f = src.require(&adt_path(name, t))?;
    adt::read_adt_with(&f.bytes, &f.name, Some(t), big_alpha)
}

/// Reads one detail model with its texture. `Ok(Err(file))` when a file it
/// needs is absent from the data.
fn read_model(src: &DataSource, path: &str) -> Result<Result<DetailModel, String>, FormatError> {
    let Some(f) = src.read(path)? else {
        return Ok(Err(super::source::archive_path(path)));
    };
    let m = match m2::read_m2_with_skin(&f.bytes, &f.name, path, |p| src.read(p))? {
        Ok(m) => m,
        Err(skin) => return Ok(Err(skin)),
    };
    let tex_name = m
        .textures
        .first()
        .cloned()
        .ok_or_else(|| FormatError::Malformed {
            file: f.name.clone(),
            chunk: "M2 textures".into(),
            offset: 0,
            reason: "model has no texture".into(),
        })?;
    let Some(t) = src.read(&tex_name)? else {
        return Ok(Err(super::source::archive_path(&tex_name)));
    };
    let texture = blp::read_blp(&t.bytes, &t.name)?;
    Ok(Ok(m.into_detail_model(
        &f.name,
        path.to_owned(),
        texture,
    )?))
}

/// Reads both ground-effect tables and every detail model they reach, and
/// checks that the effects resolve against those models. Models absent from
/// the data are reported in one warning with their count (each at info
/// level) and drawn as placeholders ([`placeholder_model`], sized like the
/// models that share an effect with them; the default) or, with
/// placeholders off ([`load_effects_and_models_with`]), their slots are
/// emptied.
pub fn load_effects_and_models(
    src: &DataSource,
) -> Result<(GroundEffects, Vec<DetailModel>, Vec<MissingModel>), FormatError> {
    load_effects_and_models_with(src, true)
}

/// [`load_effects_and_models`] with placeholders on or off
/// (`with_placeholders`, the command line's `--placeholders`).
pub fn load_effects_and_models_with(
    src: &DataSource,
    with_placeholders: bool,
) -> Result<(GroundEffects, Vec<DetailModel>, Vec<MissingModel>), FormatError> {
    let tex = src.require(TEXTURE_DBC)?;
    let doo = src.require(DOODAD_DBC)?;
    let client = super::version::client_version(src)?;
    log::info!("{}: client {client}", src.root().display());
    let prefer = client.version.map(|v| v.ground_effect_layout());
    let mut effects =
        dbc::read_ground_effects_as(&tex.bytes, &tex.name, &doo.bytes, &doo.name, prefer)?;
    if let Some(v) = client
        .version
        .filter(|v| v.ground_effect_layout() != effects.layout)
    {
        log::info!(
            "{}: {} is in the {} layout, not client {v}'s (client {client})",
            src.root().display(),
            tex.name,
            effects.layout.name()
        );
    }
    let dangling = effects.dangling_doodads();
    if !dangling.is_empty() {
        let mut ids: Vec<u32> = dangling.iter().map(|&(_, d)| d).collect();
        ids.sort_unstable();
        ids.dedup();
        let shown: Vec<String> = ids.iter().take(8).map(u32::to_string).collect();
        log::warn!(
            "{}: {} doodad slots of {} name no record of {} ({} ids: {}{}); as in the client they draw nothing",
            src.root().display(),
            dangling.len(),
            tex.name,
            doo.name,
            ids.len(),
            shown.join(", "),
            if ids.len() > shown.len() { ", ..." } else { "" }
        );
    }
    let used: HashSet<u32> = effects
        .textures
        .iter()
        .flat_map(|t| t.doodads)
        .filter(|&d| !effects.slot_is_empty(d))
        .collect();
    let mut seen = HashSet::new();
    let mut models = Vec::new();
    let mut missing: Vec<MissingModel> = Vec::new();
    for d in effects.doodads.iter().filter(|d| used.contains(&d.id)) {
        let path = normalize_model_path(&d.model);
        if !seen.insert(path.to_ascii_lowercase()) {
            if let Some(m) = missing
                .iter_mut()
                .find(|m| m.model.eq_ignore_ascii_case(&path))
            {
                m.doodads.push(d.id);
            }
            continue;
        }
        match read_model(src, &path)? {
            Ok(m) => models.push(m),
            Err(file) => missing.push(MissingModel {
                model: path,
                file,
                doodads: vec![d.id],
                effects: Vec::new(),
                placeholder: None,
            }),
        }
    }
    for m in &mut missing {
        for t in &mut effects.textures {
            if t.doodads.iter().any(|slot| m.doodads.contains(slot)) && !m.effects.contains(&t.id) {
                m.effects.push(t.id);
            }
        }
        if with_placeholders {
            let height = shared_effect_height(&effects, &models, m);
            m.placeholder = Some(models.len() as u16);
            models.push(crate::models::placeholder_model(&m.model, height));
        } else {
            for t in &mut effects.textures {
                for slot in &mut t.doodads {
                    if m.doodads.contains(slot) {
                        // 0xFFFFFFFF is empty in every version (0 is a
                        // doodad in 1.12, whose slots name internal ids).
                        *slot = u32::MAX;
                    }
                }
            }
        }
        log::info!("{}: {m}", src.root().display());
    }
    if !missing.is_empty() {
        let shown: Vec<&str> = missing
            .iter()
            .take(4)
            .map(|m| m.model.rsplit(['\\', '/']).next().unwrap_or(&m.model))
            .collect();
        log::warn!(
            "{}: {} detail models the ground effects name are missing ({}{}); {} (RUST_LOG=info lists each)",
            src.root().display(),
            missing.len(),
            shown.join(", "),
            if missing.len() > shown.len() {
                format!(", {} more", missing.len() - shown.len())
            } else {
                String::new()
            },
            if with_placeholders {
                "drawn as placeholders, yellow checkered crosses (--placeholders off skips them)"
            } else {
                "their doodads are skipped (--placeholders off)"
            }
        );
    }
    let paths: Vec<&str> = models.iter().map(|m| m.path.as_str()).collect();
    effects
        .resolve(&paths)
        .map_err(|source| FormatError::Effects {
            file: tex.name.clone(),
            source,
        })?;
    Ok((effects, models, missing))
}

/// The height a placeholder for `m` takes: the median height of the
/// loaded models that share a ground effect with it, otherwise
/// [`crate::models::PLACEHOLDER_HEIGHT`].
fn shared_effect_height(effects: &GroundEffects, models: &[DetailModel], m: &MissingModel) -> f32 {
    let mut heights: Vec<f32> = effects
        .textures
        .iter()
        .filter(|t| m.effects.contains(&t.id))
        .flat_map(|t| t.doodads)
        .filter(|d| !effects.slot_is_empty(*d) && !m.doodads.contains(d))
        .filter_map(|d| effects.doodad(d))
        .filter_map(|d| {
            let path = normalize_model_path(&d.model);
            models.iter().find(|x| x.path.eq_ignore_ascii_case(&path))
        })
        .map(|x| x.height)
        .collect();
    if heights.is_empty() {
        return crate::models::PLACEHOLDER_HEIGHT;
    }
    heights.sort_by(f32::total_cmp);
    heights[heights.len() / 2]
}

/// The tileset BLPs of `world`'s MTEX names, each once (names compared
/// case-insensitively, first spelling kept): a texture the tile loaded from
/// data is written as it was read; a procedural tile's is sward's
/// procedural layer texture of that name (uncompressed BLP2 with its whole
/// mip chain, so reading it back samples the same texels); a missing one
/// is not written.
fn tileset_files(world: &World) -> Result<Vec<(String, Vec<u8>)>, FormatError> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for t in world.tiles() {
        for (id, name) in (0u32..).zip(&t.textures) {
            let path = super::source::archive_path(name);
            if !seen.insert(path.to_ascii_lowercase()) {
                continue;
            }
            let bytes = match t.tile_texture(id) {
                TileTexture::Loaded(tex) => blp::write_blp(tex)?,
                TileTexture::Procedural => {
                    blp::write_blp(&crate::presets::tileset::procedural_tileset(name, id))?
                }
                TileTexture::Missing(_) => continue,
            };
            out.push((path.replace('\\', "/"), bytes));
        }
    }
    Ok(out)
}

/// Loads map `name` of the data at `dir` (see [`load_map_from`]).
pub fn load_map(dir: &Path, name: &str) -> Result<DataSet, FormatError> {
    load_map_from(&DataSource::open(dir)?, name)
}

/// Loads map `name` from `src`: its WDT, its WDL when present, every ADT
/// the WDT lists, both
/// ground-effect tables and every model they reach, each with its texture.
pub fn load_map_from(src: &DataSource, name: &str) -> Result<DataSet, FormatError> {
    let info = read_map_wdt(src, name)?;
    let big_alpha = Some(info.flags & wdt::MPHD_BIG_ALPHA != 0);
    let mut world = World::new(name);
    for t in &info.tiles {
        let tile = read_map_tile(src, name, *t, big_alpha)?;
        world
            .insert(Arc::new(tile))
            .map_err(|source| FormatError::World {
                file: adt_path(name, *t),
                source,
            })?;
    }
    let wdl = read_map_wdl(src, name)?;
    let (effects, models, missing) = load_effects_and_models(src)?;
    Ok(DataSet {
        world,
        wdl,
        effects,
        models,
        missing,
    })
}
