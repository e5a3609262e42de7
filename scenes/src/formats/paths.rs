//! Where the client keeps things inside a data directory: the maps folder,
//! each map's WDT and WDL paths, and finding a relative path on a
//! case-sensitive file system the way the case-insensitive client does.

use std::path::{Path, PathBuf};

/// Directory holding one folder per map.
pub const MAPS_DIR: &str = "World/Maps";

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
