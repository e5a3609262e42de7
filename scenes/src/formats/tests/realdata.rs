//! Real client files: every reader against files the game's own tools
//! wrote (public test fixtures; see docs/real-data.md, "The real-data
//! tests"). The folder comes from `SWARD_REAL_DATA` through
//! [`crate::testing::real_data`] (relative paths are
//! taken from the working directory, then from the workspace root); when it
//! is unset each test prints one line and passes, unless
//! `SWARD_REQUIRE_REAL_DATA=1`, which makes that a failure (CI). The files
//! are never copied into the repository; the temporary data folders below
//! link to them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::temp_dir;
use crate::effects::GroundEffectLayout;
use crate::formats::data_dir::{load_effects_and_models_with, DOODAD_DBC, MAP_DBC, TEXTURE_DBC};
use crate::formats::source::DataFile;
use crate::formats::version::{detect_client, ClientVersion};
use crate::formats::{
    adt, dbc, inspect_adt, inspect_files, list_maps, load_scene_from, wdt, DataSource, FormatError,
    WorldSelection,
};
use crate::placement::{ClientParams, Policy};
use crate::testing::real_data;
use crate::world::coords::TileCoord;

fn file(path: &Path) -> DataFile {
    DataFile {
        bytes: std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
        name: path.display().to_string(),
    }
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Reads one real file with the reader for its kind; `Err` carries the
/// reader's error.
fn inspect(path: &Path) -> Result<String, FormatError> {
    let f = file(path);
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    Ok(match ext.as_str() {
        "wdt" => inspect_files::inspect_wdt(&f)?.text(),
        "adt" => inspect_adt(&f.bytes, &f.name)?.text(),
        "dbc" => inspect_files::inspect_dbc(&f)?.text(),
        "m2" => inspect_files::inspect_m2(&f, |skin| {
            let name = skin.rsplit(['\\', '/']).next().unwrap_or(skin);
            let beside = path.with_file_name(name);
            Ok(beside.is_file().then(|| file(&beside)))
        })?
        .text(),
        "blp" => {
            let r = inspect_files::inspect_blp(&f)?;
            assert!(!r.levels.is_empty(), "{}", f.name);
            for l in &r.levels {
                assert!(
                    l.mean_rgba.iter().all(|&m| (0.0..=255.0).contains(&m)),
                    "{} mip {}: mean {:?}",
                    f.name,
                    l.level,
                    l.mean_rgba
                );
            }
            r.text()
        }
        // Read with their model; the README is not client data.
        "skin" | "md" => String::new(),
        other => panic!("{}: no reader for .{other}", f.name),
    })
}

#[test]
fn every_real_file_is_read() {
    let Some(dir) = real_data("every_real_file_is_read") else {
        return;
    };
    let mut all = Vec::new();
    files_under(&dir, &mut all);
    let mut read = 0;
    for p in &all {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        match (name.as_deref(), inspect(p)) {
            // Only its second view (creature01.skin) exists: the clear
            // error names the first.
            (Some("creature.m2"), Err(e)) => {
                assert!(
                    e.to_string().contains("missing skin file")
                        && e.to_string().contains("creature00.skin"),
                    "{e}"
                );
            }
            (Some("creature.m2"), Ok(t)) => panic!("creature.m2 read without creature00.skin: {t}"),
            (_, Err(e)) => panic!("{}: {e}", p.display()),
            (_, Ok(_)) => read += 1,
        }
    }
    assert!(read >= 25, "only {read} of {} files read", all.len());
    // pala0.blp: a palettized texture without alpha is opaque at every level.
    let r = inspect_files::inspect_blp(&file(&dir.join("textures/pala0.blp"))).expect("pala0");
    assert!(
        r.levels
            .iter()
            .all(|l| l.mean_rgba[3] == 255.0 && l.min_alpha == 255),
        "{r:?}"
    );
    // The two WDTs.
    for (map, tiles) in [("Azeroth", 687), ("PVPZone01", 35)] {
        let w = inspect_files::inspect_wdt(&file(
            &dir.join(format!("client-335/World/Maps/{map}/{map}.wdt")),
        ))
        .expect("wdt");
        assert_eq!((w.tiles.len(), w.flags), (tiles, 0), "{map}");
    }
}

/// Azeroth 42,29 (3.3.5): its MCNK facts as the README of the files lists
/// them, read through the JSON `sward inspect adt --json` prints.
#[test]
fn the_335_tile_has_its_mcnk_facts() {
    let Some(dir) = real_data("the_335_tile_has_its_mcnk_facts") else {
        return;
    };
    let f = file(&dir.join("client-335/World/Maps/Azeroth/Azeroth_42_29.adt"));
    let report = inspect_adt(&f.bytes, "Azeroth_42_29.adt").expect("inspect");
    let json: serde_json::Value =
        serde_json::from_str(&serde_json::to_string(&report).expect("json")).expect("parse");
    let mcnks = json["mcnks"].as_array().expect("mcnks");
    assert_eq!(mcnks.len(), 256);
    assert_eq!(report.tile.textures.len(), 16);
    let mut layer_counts = BTreeSet::new();
    let mut effects = BTreeSet::new();
    let mut holes = Vec::new();
    for (m, tile_m) in mcnks.iter().zip(&report.tile.mcnks) {
        let layers = m["layers"].as_array().expect("layers");
        layer_counts.insert(layers.len());
        for l in layers {
            let id = l["effect_id"].as_u64().expect("effect id");
            if id != 0 {
                effects.insert(id);
            }
        }
        let h = m["holes_low_res"].as_u64().expect("holes");
        if h != 0 {
            holes.push((m["index_x"].as_u64(), m["index_y"].as_u64(), h));
        }
        // The JSON is the parsed tile.
        assert_eq!(layers.len(), tile_m.layers.len());
        let heights: Vec<f32> = m["heights"]
            .as_array()
            .expect("heights")
            .iter()
            .map(|v| v.as_f64().expect("height") as f32)
            .collect();
        assert_eq!(heights, tile_m.heights.to_vec());
        // Sub-chunks through the header: MCNR's 435 bytes (13 padding
        // bytes follow), a 512-byte MCSH, water in MH2O (no MCLQ), MCAL's
        // extent sizeAlpha less its header.
        let sub = &m["sub_chunks"];
        assert_eq!(sub["mcvt"]["offset"], 0x88);
        assert_eq!(sub["mcnr"]["size"], 435);
        assert_eq!(
            sub["mcly"]["offset"].as_u64(),
            sub["mcnr"]["offset"].as_u64().map(|o| o + 8 + 435 + 13)
        );
        assert_eq!(sub["mcsh"]["size"], 512);
        assert!(sub["mclq"].is_null());
        let maps = layers.len().saturating_sub(1) as u64;
        if maps > 0 {
            assert_eq!(
                sub["mcal"]["size"].as_u64(),
                Some(2048 * maps),
                "4-bit maps"
            );
        }
    }
    assert_eq!(layer_counts, BTreeSet::from([1, 2, 3, 4]));
    assert_eq!(effects.len(), 20, "{effects:?}");
    assert_eq!(holes, vec![(Some(11), Some(7), 0xA000)]);
    // The WDT's flags (0: 4-bit maps) give the same tile as inferring the
    // depth from the sizes.
    let (with_wdt, _) = adt::read_adt_layouts(
        &f.bytes,
        "Azeroth_42_29.adt",
        Some(TileCoord::new(42, 29)),
        Some(false),
    )
    .expect("with the WDT's alpha depth");
    assert_eq!(with_wdt, *report.tile);
    // Alterac Valley 34,30: old-style MCLQ (size field 0, sizeLiquid 812)
    // in 16 MCNKs, 142 MCNKs without layers.
    let f = file(&dir.join("client-335/World/Maps/PVPZone01/PVPZone01_34_30.adt"));
    let (tile, layouts) =
        adt::read_adt_layouts(&f.bytes, "PVPZone01_34_30.adt", None, Some(false)).expect("pvpzone");
    assert_eq!(tile.coord, TileCoord::new(34, 30));
    let liquid: Vec<u32> = layouts
        .iter()
        .filter_map(|l| l.mclq)
        .map(|s| s.size)
        .collect();
    assert_eq!(liquid, vec![804; 16]);
    assert_eq!(
        tile.mcnks.iter().filter(|m| m.layers.is_empty()).count(),
        142
    );
}

/// The 3.3.5 tables: the version comes from Map.dbc (66 fields), both maps
/// are listed with their names, and GroundEffectTexture reads in 3.3.5a's
/// layout (its shape alone fits 0.5.3's too).
#[test]
fn the_335_tables_read_as_335() {
    let Some(dir) = real_data("the_335_tables_read_as_335") else {
        return;
    };
    let root = dir.join("client-335");
    let src = DataSource::open(&root).expect("open");
    let c = detect_client(&src).expect("detect");
    assert_eq!(c.version, Some(ClientVersion::Wotlk335), "{c}");
    assert!(c.reason.contains("66 fields"), "{c}");
    let maps = list_maps(&src).expect("maps");
    let names: BTreeMap<&str, (usize, Option<&str>)> = maps
        .iter()
        .map(|m| (m.name.as_str(), (m.tiles, m.title.as_deref())))
        .collect();
    assert_eq!(names.len(), 2, "{maps:?}");
    assert_eq!(names["Azeroth"].0, 687);
    assert_eq!(names["PVPZone01"].0, 35);
    assert!(names.values().all(|(_, t)| t.is_some()), "{maps:?}");
    let tex = file(&root.join(TEXTURE_DBC));
    let doo = file(&root.join(DOODAD_DBC));
    let plain = dbc::read_ground_effects(&tex.bytes, &tex.name, &doo.bytes, &doo.name);
    assert!(
        plain
            .as_ref()
            .is_err_and(|e| e.to_string().contains("ambiguous")),
        "without the version the 11-field shape fits two layouts: {plain:?}"
    );
    let fx = dbc::read_ground_effects_as(
        &tex.bytes,
        &tex.name,
        &doo.bytes,
        &doo.name,
        c.version.map(ClientVersion::ground_effect_layout),
    )
    .expect("3.3.5 tables");
    assert_eq!(fx.layout, GroundEffectLayout::Wotlk335);
    assert_eq!((fx.textures.len(), fx.doodads.len()), (24_982, 580));
    assert!(fx.dangling_doodads().is_empty());
    // Id 453 names doodads 103, 106, 108, 107 in 3.3.5.
    assert_eq!(
        fx.texture(453).map(|t| t.doodads),
        Some([103, 106, 108, 107])
    );
    // The loader takes the version from the data: every model is absent
    // from these files, so each is reported missing and drawn as a
    // placeholder (or skipped with placeholders off), and the tables load.
    let (fx, models, missing) = load_effects_and_models_with(&src, true).expect("load");
    assert_eq!(fx.layout, GroundEffectLayout::Wotlk335);
    assert!(!missing.is_empty());
    assert_eq!(models.len(), missing.len());
    assert!(missing
        .iter()
        .enumerate()
        .all(|(i, m)| m.placeholder == Some(i as u16) && models[i].path == m.model));
    let (_, models, missing) = load_effects_and_models_with(&src, false).expect("load");
    assert!(models.is_empty() && !missing.is_empty());
}

/// A loose data folder in a temporary directory: `links` are (archive path,
/// real file) pairs, linked (copied where links are not available).
fn data_folder(name: &str, links: &[(&str, PathBuf)]) -> PathBuf {
    let d = temp_dir(name);
    for (rel, real) in links {
        let to = d.join(rel);
        std::fs::create_dir_all(to.parent().expect("parent")).expect("dir");
        #[cfg(unix)]
        let linked = std::os::unix::fs::symlink(real, &to).is_ok();
        #[cfg(not(unix))]
        let linked = false;
        if !linked {
            std::fs::copy(real, &to).expect("copy");
        }
    }
    d
}

/// The 1.12 texture table with the older build's doodad table: 171 of its
/// 2,745 doodad slots name internal ids that table lacks (59 ids). They are
/// dangling, not a refusal: the tables load, the count is reported, and a
/// scene of the real 3.3.5 tile over them loads, its layers naming effects
/// the 1.12 table lacks counted too.
#[test]
fn the_112_tables_load_with_their_dangling_doodads_counted() {
    let Some(dir) = real_data("the_112_tables_load_with_their_dangling_doodads_counted") else {
        return;
    };
    let d112 = dir.join("dbc-112");
    let tex = file(&d112.join("GroundEffectTexture.dbc"));
    let doo = file(&d112.join("GroundEffectDoodad-older-build.dbc"));
    let fx = dbc::read_ground_effects(&tex.bytes, &tex.name, &doo.bytes, &doo.name)
        .expect("1.12 tables with the older doodad table");
    assert_eq!(fx.layout, GroundEffectLayout::Classic1121);
    let dangling = fx.dangling_doodads();
    let ids: BTreeSet<u32> = dangling.iter().map(|&(_, d)| d).collect();
    assert_eq!((dangling.len(), ids.len()), (171, 59));
    // Id 453 names doodads 102, 116, 107, 106 in 1.12.
    assert_eq!(
        fx.texture(453).map(|t| t.doodads),
        Some([102, 116, 107, 106])
    );
    // Every dangling slot resolves as dangling: weight kept, no model.
    let paths: Vec<String> = fx.doodads.iter().map(|d| d.model_path()).collect();
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    let resolved = fx.resolve(&paths).expect("resolves");
    let (effect, doodad) = dangling[0];
    let e = resolved.get(effect).expect("effect");
    let slot = e.doodads.iter().position(|&v| v == doodad).expect("slot");
    assert!(e.dangling[slot] && e.slots[slot].is_none() && e.weights[slot] == 1);

    // A scene: the real tile 42,29 and the 1.12 tables, under a WDT that
    // lists that tile only (the files hold no neighbours).
    let adt = dir.join("client-335/World/Maps/Azeroth/Azeroth_42_29.adt");
    let folder = data_folder(
        "realdata-112",
        &[
            ("World/Maps/Azeroth/Azeroth_42_29.adt", adt),
            (TEXTURE_DBC, d112.join("GroundEffectTexture.dbc")),
            (DOODAD_DBC, d112.join("GroundEffectDoodad-older-build.dbc")),
            (MAP_DBC, d112.join("Map.dbc")),
        ],
    );
    let wdt = wdt::write_wdt(&[TileCoord::new(42, 29)], 0).expect("wdt");
    std::fs::write(folder.join("World/Maps/Azeroth/Azeroth.wdt"), wdt).expect("write wdt");
    let src = Arc::new(DataSource::open(&folder).expect("open"));
    let c = detect_client(&src).expect("detect");
    assert_eq!(c.version, Some(ClientVersion::Classic112), "{c}");
    let sel = WorldSelection {
        map: Some("Azeroth".into()),
        tile: Some(TileCoord::new(42, 29)),
        ..WorldSelection::default()
    };
    let scene = load_scene_from(src, &sel, Policy::Client(ClientParams::default()))
        .expect("the 1.12 tables load");
    assert_eq!(scene.world().tiles().len(), 1);
    assert_eq!(scene.dangling_doodads(), 171);
    let (layers, effect_ids) = scene.dangling_effects();
    let facts = scene.facts();
    assert_eq!(facts["scene.dangling_doodads"], 171.0);
    assert_eq!(facts["scene.dangling_effects"], layers as f64);
    assert!(facts["scene.missing_models"] > 0.0);
    println!(
        "1.12 tables on Azeroth 42,29: {} dangling doodad slots, {layers} layers naming {} unknown effects",
        scene.dangling_doodads(),
        effect_ids.len()
    );
    let _ = std::fs::remove_dir_all(&folder);
}

/// The 3.3.5 tile placed with the client policy runs the 3.3.5 client's
/// routine, and the scene (so the bench report) names it.
#[test]
fn the_335_data_runs_the_335_routine() {
    let Some(dir) = real_data("the_335_data_runs_the_335_routine") else {
        return;
    };
    // The real tile 42,29 and the 3.3.5 tables under a WDT that lists that
    // tile only (the files hold no neighbours).
    let root = dir.join("client-335");
    let folder = data_folder(
        "realdata-335-routine",
        &[
            (
                "World/Maps/Azeroth/Azeroth_42_29.adt",
                root.join("World/Maps/Azeroth/Azeroth_42_29.adt"),
            ),
            (TEXTURE_DBC, root.join(TEXTURE_DBC)),
            (DOODAD_DBC, root.join(DOODAD_DBC)),
            (MAP_DBC, root.join(MAP_DBC)),
        ],
    );
    let wdt = wdt::write_wdt(&[TileCoord::new(42, 29)], 0).expect("wdt");
    std::fs::write(folder.join("World/Maps/Azeroth/Azeroth.wdt"), wdt).expect("write wdt");
    let src = Arc::new(DataSource::open(&folder).expect("open"));
    let sel = WorldSelection {
        map: Some("Azeroth".into()),
        tile: Some(TileCoord::new(42, 29)),
        ..WorldSelection::default()
    };
    let scene = load_scene_from(src, &sel, Policy::Client(ClientParams::default()))
        .expect("the 3.3.5 data loads");
    assert_eq!(scene.policy().name(), "client-3.3.5");
    assert_eq!(scene.grass, crate::presets::GrassRange::CLIENT_335);
    let s = &scene.stats;
    assert_eq!(s.cells_visited, s.mcnks * 16, "{s:?}");
    println!(
        "3.3.5 Azeroth 42,29 window: {} MCNKs, {} placements, {} steep, {} empty, {} dangling",
        s.mcnks, s.placements, s.steep_slopes, s.empty_slots, s.dangling_slots
    );
    let _ = std::fs::remove_dir_all(&folder);
}
