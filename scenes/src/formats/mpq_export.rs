//! Client-shaped MPQ archives of an export (`sward export --mpq`): the files
//! of [`super::data_dir::export_files`] split the way a 1.12 client splits
//! its data, under `DIR/Data`:
//!
//! | archive | holds |
//! |---|---|
//! | `dbc.MPQ` | `DBFilesClient\*.dbc` |
//! | `terrain.MPQ` | `World\Maps\...` (WDT, WDL, ADTs) |
//! | `model.MPQ` | `*.m2` (and `*.skin`) |
//! | `texture.MPQ` | `*.blp` |
//!
//! The archives are written with wow-mpq's `ArchiveBuilder` (MPQ format 1,
//! zlib-compressed files, a generated `(listfile)`), which StormLib reads
//! too. Pointing `--data` at `DIR` loads the export back.

use std::path::{Path, PathBuf};

use super::data_dir::{export_files, ExportSummary};
use super::source::archive_path;
use super::FormatError;
use crate::effects::{GroundEffectLayout, GroundEffects};
use crate::models::DetailModel;
use crate::world::World;

/// Files of one archive: (archive path, bytes).
pub type ArchiveFiles = Vec<(String, Vec<u8>)>;

/// The 1.12 archive a file belongs in, by its archive path.
pub fn archive_for(path: &str) -> &'static str {
    let l = path.to_ascii_lowercase().replace('/', "\\");
    if l.starts_with("dbfilesclient\\") {
        "dbc.MPQ"
    } else if l.starts_with("world\\maps\\") {
        "terrain.MPQ"
    } else if l.ends_with(".m2") || l.ends_with(".skin") {
        "model.MPQ"
    } else if l.ends_with(".blp") {
        "texture.MPQ"
    } else {
        "misc.MPQ"
    }
}

/// Writes `files` (archive path, bytes) into the MPQ archive `path`.
pub fn write_archive(path: &Path, files: &[(String, Vec<u8>)]) -> Result<u64, FormatError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|source| FormatError::Io {
            file: parent.display().to_string(),
            source,
        })?;
    }
    let mut b = wow_mpq::ArchiveBuilder::new();
    for (name, bytes) in files {
        b = b.add_file_data(bytes.clone(), &archive_path(name));
    }
    b.build(path).map_err(|e| FormatError::Unwritable {
        what: path.display().to_string(),
        reason: e.to_string(),
    })?;
    std::fs::metadata(path)
        .map(|m| m.len())
        .map_err(|source| FormatError::Io {
            file: path.display().to_string(),
            source,
        })
}

/// Writes the export of `world`, `effects` and `models` as `DIR/Data/*.MPQ`
/// (see the module documentation). `summary.files` lists the archives.
pub fn export_mpq(
    dir: &Path,
    world: &World,
    effects: &GroundEffects,
    models: &[DetailModel],
    layout: Option<GroundEffectLayout>,
) -> Result<ExportSummary, FormatError> {
    let files = export_files(world, effects, models, layout)?;
    let mut groups: Vec<(&'static str, ArchiveFiles)> = Vec::new();
    for (name, bytes) in files {
        let a = archive_for(&name);
        match groups.iter_mut().find(|(n, _)| *n == a) {
            Some((_, v)) => v.push((name, bytes)),
            None => groups.push((a, vec![(name, bytes)])),
        }
    }
    let mut s = ExportSummary::default();
    let data = dir.join("Data");
    for (name, files) in &groups {
        let path: PathBuf = data.join(name);
        s.bytes += write_archive(&path, files)?;
        s.files.push(path);
    }
    Ok(s)
}
