//! Choosing the world in a data source: which maps it has ([`list_maps`],
//! `sward maps`) and which map and tile the resident window centres on
//! ([`WorldSelection`], the `--map`, `--at` and `--tile` options).
//!
//! Maps are found by name: a map `NAME` is a WDT at
//! `World\Maps\NAME\NAME.wdt`. Candidate names come from the loose
//! `World/Maps` folders, from `DBFilesClient\Map.dbc` (its second field is
//! the map's directory name; wowdev wiki "Map.dbc") and from the archives'
//! `(listfile)`s; a candidate is a map when its WDT is present.

use std::collections::BTreeMap;

pub use super::paths::MAP_DBC;
use super::paths::{find_path, wdt_path, MAPS_DIR};
use super::source::DataSource;
use super::{dbc, FormatError};
use crate::world::coords::{self, TileCoord};

/// One map of a data source (`sward maps`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MapInfo {
    /// Directory name (what `--map` takes).
    pub name: String,
    /// ADT tiles its WDT lists.
    pub tiles: usize,
    /// Map.dbc record id, when Map.dbc lists it.
    pub id: Option<u32>,
    /// Map.dbc name (first locale), when Map.dbc lists it.
    pub title: Option<String>,
    /// Where the WDT was read from.
    pub wdt: String,
    /// The data's client version (the same for every map; `--client` or
    /// [`super::version::detect_client`]); `None` when nothing tells.
    pub client: Option<super::version::ClientVersion>,
}

/// Map.dbc records: directory name -> (id, title). Absent table: empty.
fn map_dbc(src: &DataSource) -> Result<BTreeMap<String, (u32, Option<String>)>, FormatError> {
    let Some(f) = src.read(MAP_DBC)? else {
        return Ok(BTreeMap::new());
    };
    let t = dbc::read_dbc(&f.bytes, &f.name)?;
    if t.field_count < 2 {
        return Err(FormatError::Malformed {
            file: f.name,
            chunk: "WDBC header".into(),
            offset: 8,
            reason: format!("{} fields (Map.dbc has at least 2)", t.field_count),
        });
    }
    // 3.3.5's Map.dbc (66 fields) has Flags before PVP, so its name is
    // field 5; 1.12's has it at field 4.
    let name_field = if t.field_count >= 66 { 5 } else { 4 };
    let mut out = BTreeMap::new();
    for rec in 0..t.record_count as usize {
        let Some(dir) = t.string(t.field(rec, 1)).filter(|d| !d.is_empty()) else {
            continue;
        };
        let title = (name_field < t.field_count as usize)
            .then(|| t.string(t.field(rec, name_field)))
            .flatten()
            .filter(|s| !s.is_empty())
            .map(str::to_owned);
        out.insert(dir.to_ascii_lowercase(), (t.field(rec, 0), title));
    }
    Ok(out)
}

/// Candidate map names (case as found), lower-cased key -> name.
fn candidates(src: &DataSource) -> Result<BTreeMap<String, String>, FormatError> {
    let mut names = BTreeMap::new();
    if let Some(maps_dir) = find_path(src.root(), MAPS_DIR) {
        if let Ok(rd) = std::fs::read_dir(&maps_dir) {
            for e in rd.flatten().filter(|e| e.path().is_dir()) {
                let n = e.file_name().to_string_lossy().into_owned();
                names.entry(n.to_ascii_lowercase()).or_insert(n);
            }
        }
    }
    for name in src.listed_names() {
        let parts: Vec<&str> = name.split('\\').collect();
        if let [w, m, dir, file] = parts.as_slice() {
            if w.eq_ignore_ascii_case("world")
                && m.eq_ignore_ascii_case("maps")
                && file.eq_ignore_ascii_case(&format!("{dir}.wdt"))
            {
                names
                    .entry(dir.to_ascii_lowercase())
                    .or_insert_with(|| dir.to_string());
            }
        }
    }
    Ok(names)
}

/// The names of the maps in `src` (those whose WDT is present), sorted.
pub fn map_names(src: &DataSource) -> Result<Vec<String>, FormatError> {
    let mut names = candidates(src)?;
    for (key, (_, _)) in map_dbc(src)? {
        names.entry(key.clone()).or_insert(key);
    }
    let mut out: Vec<String> = names
        .into_values()
        .filter(|n| src.contains(&wdt_path(n)))
        .collect();
    out.sort_by_key(|n| n.to_ascii_lowercase());
    Ok(out)
}

/// Every map of `src` with its tile count and Map.dbc id and name.
pub fn list_maps(src: &DataSource) -> Result<Vec<MapInfo>, FormatError> {
    let dbc = map_dbc(src)?;
    let client = super::version::client_version(src)?.version;
    let mut names = candidates(src)?;
    for key in dbc.keys() {
        names.entry(key.clone()).or_insert_with(|| key.clone());
    }
    // Map.dbc spells directory names as the client does; prefer that.
    let mut out = Vec::new();
    for (key, name) in names {
        let Some(f) = src.read(&wdt_path(&name))? else {
            continue;
        };
        let info = super::wdt::read_wdt(&f.bytes, &f.name)?;
        let (id, title) = dbc
            .get(&key)
            .map_or((None, None), |(id, t)| (Some(*id), t.clone()));
        out.push(MapInfo {
            name,
            tiles: info.tiles.len(),
            id,
            title,
            wdt: f.name,
            client,
        });
    }
    Ok(out)
}

/// Which map of a data source to show and where (the `--map`, `--at` and
/// `--tile` command-line options).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorldSelection {
    /// Map directory name; `None` = the only map.
    pub map: Option<String>,
    /// World `(x, y)` the resident window centres on (its tile).
    pub at: Option<[f64; 2]>,
    /// Tile the resident window centres on.
    pub tile: Option<TileCoord>,
}

/// Parses `X,Y` as two numbers.
pub fn parse_xy(s: &str) -> Result<[f64; 2], String> {
    parse_pair(s, "two numbers", |f: &f64| f.is_finite())
}

/// Parses `X,Y` as two `T`s that `valid` accepts; the error names `what`
/// they should be.
fn parse_pair<T: std::str::FromStr>(
    s: &str,
    what: &str,
    valid: impl Fn(&T) -> bool,
) -> Result<[T; 2], String> {
    let (x, y) = s
        .split_once(',')
        .ok_or_else(|| format!("expected X,Y, got {s:?}"))?;
    let num = |v: &str| {
        v.trim()
            .parse::<T>()
            .ok()
            .filter(&valid)
            .ok_or_else(|| format!("expected X,Y ({what}), got {s:?}"))
    };
    Ok([num(x)?, num(y)?])
}

/// Parses `X,Y` as a tile coordinate on the 64x64 grid.
pub fn parse_tile(s: &str) -> Result<TileCoord, String> {
    let [x, y] = parse_pair(s, "two tile indices 0..63", |_: &u32| true)?;
    let t = TileCoord::new(x, y);
    if !t.is_valid() {
        return Err(format!("tile {s:?} is outside the 64x64 grid"));
    }
    Ok(t)
}

/// The tile to centre on for `sel` among `tiles` (map `map`'s WDT tiles);
/// `default` when neither `at` nor `tile` is set. A point or tile that the
/// map does not have is an error naming the map and its extent.
pub fn centre_tile(
    sel: &WorldSelection,
    map: &str,
    tiles: &[TileCoord],
    default: TileCoord,
) -> Result<TileCoord, String> {
    let extent = || {
        let xs = tiles.iter().map(|t| t.x);
        let ys = tiles.iter().map(|t| t.y);
        match (xs.clone().min(), xs.max(), ys.clone().min(), ys.max()) {
            (Some(x0), Some(x1), Some(y0), Some(y1)) => {
                format!("{} tiles, x {x0}..={x1}, y {y0}..={y1}", tiles.len())
            }
            _ => "no tiles".into(),
        }
    };
    let t = match (sel.at, sel.tile) {
        (Some(_), Some(_)) => return Err("give --at or --tile, not both".into()),
        (Some([x, y]), None) => {
            let t = coords::tile_at(x, y)
                .ok_or_else(|| format!("point ({x}, {y}) is outside the world grid"))?;
            if !tiles.contains(&t) {
                return Err(format!(
                    "point ({x}, {y}) is on tile ({}, {}), which map {map} does not have ({})",
                    t.x,
                    t.y,
                    extent()
                ));
            }
            t
        }
        (None, Some(t)) => {
            if !tiles.contains(&t) {
                return Err(format!(
                    "map {map} has no tile ({}, {}) ({})",
                    t.x,
                    t.y,
                    extent()
                ));
            }
            t
        }
        (None, None) => default,
    };
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selections_parse_and_points_outside_the_map_are_errors() {
        assert_eq!(parse_xy(" -8949.9, -132.5").expect("xy"), [-8949.9, -132.5]);
        assert!(parse_xy("1;2").is_err());
        assert!(parse_xy("1,nan").is_err());
        assert_eq!(parse_tile("32,48").expect("tile"), TileCoord::new(32, 48));
        assert!(parse_tile("64,0").expect_err("off grid").contains("64x64"));
        let tiles = [TileCoord::new(32, 48), TileCoord::new(33, 48)];
        let d = tiles[0];
        let sel = |at: Option<[f64; 2]>, tile: Option<TileCoord>| WorldSelection {
            map: None,
            at,
            tile,
        };
        assert_eq!(centre_tile(&sel(None, None), "M", &tiles, d), Ok(d));
        let c = coords::tile_centre(tiles[1]);
        assert_eq!(
            centre_tile(&sel(Some(c), None), "M", &tiles, d),
            Ok(tiles[1])
        );
        assert_eq!(
            centre_tile(&sel(None, Some(tiles[1])), "M", &tiles, d),
            Ok(tiles[1])
        );
        let far = coords::tile_centre(TileCoord::new(10, 10));
        let e = centre_tile(&sel(Some(far), None), "M", &tiles, d).expect_err("outside");
        assert!(
            e.contains("map M does not have") && e.contains("x 32..=33"),
            "{e}"
        );
        let e = centre_tile(&sel(None, Some(TileCoord::new(1, 1))), "M", &tiles, d)
            .expect_err("outside");
        assert!(e.contains("no tile (1, 1)"), "{e}");
        let e = centre_tile(&sel(Some([1e9, 0.0]), None), "M", &tiles, d).expect_err("grid");
        assert!(e.contains("outside the world"), "{e}");
        assert!(centre_tile(&sel(Some(c), Some(d)), "M", &tiles, d).is_err());
    }
}
