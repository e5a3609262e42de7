//! Where the client keeps things inside a data directory: the maps folder,
//! each map's WDT and WDL paths, the tables sward reads, and finding a
//! relative path on a case-sensitive file system the way the
//! case-insensitive client does. Every reader of the data takes its paths
//! from here, so none of them imports another for a name.

use std::path::{Path, PathBuf};

/// Directory holding one folder per map.
pub const MAPS_DIR: &str = "World/Maps";

/// The map table (map directory names, ids and titles).
pub const MAP_DBC: &str = "DBFilesClient\\Map.dbc";
/// GroundEffectTexture table path inside a data directory.
pub const TEXTURE_DBC: &str = "DBFilesClient/GroundEffectTexture.dbc";
/// GroundEffectDoodad table path inside a data directory.
pub const DOODAD_DBC: &str = "DBFilesClient/GroundEffectDoodad.dbc";

/// Finds `rel` (components split on `/` or `\\`) under `dir`, matching each
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

/// The WDT path of map `name`.
pub fn wdt_path(name: &str) -> String {
    format!("World\\Maps\\{name}\\{name}.wdt")
}

/// The WDL path of map `name`.
pub fn wdl_path(name: &str) -> String {
    format!("World\\Maps\\{name}\\{name}.wdl")
}
