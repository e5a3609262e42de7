//! Client installs as data: a preset exported into MPQ archives (written by
//! wow-mpq, and by StormLib's `smpq` when it is installed) loads back to the
//! preset's terrain and placements, a patch archive overrides a tile in the
//! client's order, a missing model is reported, and corrupt archives and
//! files are errors naming the archive and the file.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use super::temp_dir;
use crate::formats::data_dir::{adt_path, export_files};
use crate::formats::mpq_export::{archive_for, export_mpq, write_archive};
use crate::formats::{adt, load_scene, DataSource, FormatError};
use crate::presets::{Preset, Scene};
use crate::world::AdtTile;

fn preset() -> Scene {
    Preset::by_name("seams-holes")
        .expect("preset")
        .build()
        .expect("scene")
}

/// `tile` with every height raised by 25 units.
fn raised(tile: &AdtTile) -> AdtTile {
    let mut t = tile.clone();
    for m in &mut t.mcnks {
        m.header.position[2] += 25.0;
    }
    t
}

fn assert_same_world(got: &Scene, want: &Scene, patched: Option<&AdtTile>) {
    assert_eq!(got.window.tiles(), want.window.tiles());
    for t in want.world().tiles() {
        let loaded = got.world().tile(t.coord).expect("tile loaded");
        // The data's tiles carry the tileset BLPs the export wrote (the
        // preset's procedural textures); the rest is the exported tile.
        assert_eq!(loaded.tileset.len(), loaded.textures.len());
        assert!(loaded
            .tileset
            .iter()
            .all(|x| matches!(x, crate::world::TileTexture::Loaded(_))));
        let loaded = &AdtTile {
            tileset: Vec::new(),
            ..(**loaded).clone()
        };
        match patched {
            Some(p) if p.coord == t.coord => {
                assert!(*loaded == *p, "patched tile {:?} wins", p.coord)
            }
            _ => assert!(*loaded == **t, "tile {:?} as exported", t.coord),
        }
    }
    if patched.is_none() {
        assert!(got.placements() == want.placements(), "same placements");
    }
    assert!(!got.placements().is_empty());
    assert!(got.missing_models.is_empty());
}

#[test]
fn exported_archives_load_like_the_preset_and_a_patch_wins() {
    let scene = preset();
    let dir = temp_dir("mpq-export");
    let summary =
        export_mpq(&dir, scene.world(), &scene.effects, &scene.models, None).expect("export");
    let names: Vec<String> = summary
        .files
        .iter()
        .map(|f| f.file_name().expect("name").to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        ["terrain.MPQ", "dbc.MPQ", "model.MPQ", "texture.MPQ"]
    );
    let loaded = load_scene(&dir, None, *scene.policy()).expect("load");
    assert_same_world(&loaded, &scene, None);
    assert_eq!(loaded.models, scene.models);
    // The WDL travels in terrain.MPQ and is read back from it.
    let want = crate::formats::wdl::Wdl::from_world(scene.world()).expect("wdl");
    assert_eq!(loaded.far_heights.as_deref(), Some(&want));
    // The maps listing finds the map through Map.dbc, inside the archives.
    let src = DataSource::open(&dir).expect("open");
    let maps = crate::formats::list_maps(&src).expect("maps");
    assert_eq!(maps.len(), 1);
    assert_eq!(maps[0].name, scene.world().name);
    assert_eq!(maps[0].tiles, scene.world().tile_count());
    assert_eq!(maps[0].id, Some(0));
    assert!(maps[0].wdt.contains("terrain.MPQ:"), "{}", maps[0].wdt);
    // An unknown map and a tile the map lacks are errors that say so.
    let sel = |map: &str, tile| crate::formats::WorldSelection {
        map: Some(map.to_owned()),
        at: None,
        tile,
    };
    let src = Arc::new(src);
    let e =
        crate::formats::load_scene_from(Arc::clone(&src), &sel("Nowhere", None), *scene.policy())
            .expect_err("no such map");
    assert!(e.to_string().contains("Nowhere"), "{e}");
    let off = Some(crate::world::coords::TileCoord::new(0, 0));
    let e = crate::formats::load_scene_from(
        Arc::clone(&src),
        &sel(&scene.world().name, off),
        *scene.policy(),
    )
    .expect_err("off the map");
    assert!(e.to_string().contains("has no tile (0, 0)"), "{e}");
    drop(src);

    // patch.MPQ overrides one ADT; patch-2.MPQ overrides it again and wins.
    let first = scene.world().tiles()[0].clone();
    let older = raised(&first);
    let newer = raised(&older);
    let adt = adt_path(&scene.world().name, first.coord);
    let data = dir.join("Data");
    write_archive(
        &data.join("patch.MPQ"),
        &[(adt.clone(), adt::write_adt(&older).expect("adt"))],
    )
    .expect("patch");
    let loaded = load_scene(&dir, None, *scene.policy()).expect("load patched");
    assert_same_world(&loaded, &scene, Some(&older));
    write_archive(
        &data.join("patch-2.MPQ"),
        &[(adt.clone(), adt::write_adt(&newer).expect("adt"))],
    )
    .expect("patch-2");
    let loaded = load_scene(&dir, None, *scene.policy()).expect("load patched");
    assert_same_world(&loaded, &scene, Some(&newer));
    assert_eq!(loaded.placements().len(), scene.placements().len());
    let src = DataSource::open(&dir).expect("open");
    let f = src.require(&adt).expect("adt");
    assert!(f.name.contains("patch-2.MPQ:World\\Maps"), "{}", f.name);

    // A loose file overrides every archive.
    let loose = crate::formats::data_dir::archive_to_path(&dir, &adt);
    std::fs::create_dir_all(loose.parent().expect("parent")).expect("mkdir");
    std::fs::write(&loose, adt::write_adt(&first).expect("adt")).expect("write");
    let loaded = load_scene(&dir, None, *scene.policy()).expect("load loose");
    assert_same_world(&loaded, &scene, None);

    // A corrupt file inside an archive names the archive and the file.
    write_archive(
        &data.join("patch-3.MPQ"),
        &[(adt.clone(), b"MVERjunk".to_vec())],
    )
    .expect("patch-3");
    std::fs::remove_file(&loose).expect("rm");
    let e = load_scene(&dir, None, *scene.policy()).expect_err("corrupt adt");
    let msg = e.to_string();
    assert!(msg.contains("patch-3.MPQ") && msg.contains(".adt"), "{msg}");
    // A corrupt archive is an error naming it.
    std::fs::write(data.join("patch-3.MPQ"), vec![0x5Au8; 4096]).expect("write");
    let e = DataSource::open(&dir).expect_err("corrupt archive");
    assert!(matches!(e, FormatError::ArchiveOpen { .. }), "{e}");
    assert!(e.to_string().contains("patch-3.MPQ"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_model_missing_from_the_archives_is_reported_and_drawn_as_a_placeholder() {
    let scene = preset();
    let dir = temp_dir("mpq-missing");
    let files = export_files(scene.world(), &scene.effects, &scene.models, None).expect("files");
    // A model that has placements in the preset.
    let gone_index = scene.placements().groups[0].model as usize;
    let gone_model = &scene.models[gone_index];
    let gone = gone_model.path.replace('\\', "/");
    let mut groups: std::collections::BTreeMap<&str, Vec<(String, Vec<u8>)>> = Default::default();
    for (name, bytes) in files.into_iter().filter(|(n, _)| *n != gone) {
        groups
            .entry(archive_for(&name))
            .or_default()
            .push((name, bytes));
    }
    for (a, files) in &groups {
        write_archive(&dir.join("Data").join(a), files).expect("archive");
    }
    let loaded = load_scene(&dir, None, *scene.policy()).expect("load");
    assert_eq!(loaded.missing_models.len(), 1);
    let m = &loaded.missing_models[0];
    assert_eq!(m.model, gone_model.path);
    assert!(!m.effects.is_empty() && !m.doodads.is_empty());
    assert!(m.to_string().contains(&gone_model.path), "{m}");
    // The model is not loaded; a placeholder of the same path stands in
    // (the last model), sized like the models it shares an effect with, and
    // its doodads are placed with it, as many as the preset placed.
    assert_eq!(loaded.models.len(), scene.models.len());
    let p = usize::from(m.placeholder.expect("a placeholder"));
    assert_eq!(p, loaded.models.len() - 1);
    assert_eq!(loaded.models[p].path, gone_model.path);
    assert_eq!(loaded.models[p].triangles(), 4);
    assert!(loaded.models[p].height > 0.2 && loaded.models[p].height < 1.7);
    assert!(m.to_string().contains("placeholder"), "{m}");
    let facts = loaded.facts();
    assert_eq!(facts["scene.placeholder_models"], 1.0);
    let want = scene.placements().per_model_counts(scene.models.len())[gone_index];
    assert!(want > 0);
    assert_eq!(facts["scene.placeholder_placements"], want as f64);
    assert_eq!(loaded.placements().len(), scene.placements().len());
    assert!(loaded
        .placements()
        .groups
        .iter()
        .all(|g| (g.model as usize) < loaded.models.len()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether StormLib's `smpq` can be run; when it cannot, the caller skips
/// (one printed line) unless `SWARD_REQUIRE_GPU=1` (CI) makes that a failure.
fn have_smpq() -> bool {
    let ok = Command::new("smpq")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("SWARD_REQUIRE_GPU").as_deref() != Ok("1"),
            "smpq (StormLib's archiver) is required when SWARD_REQUIRE_GPU=1"
        );
        eprintln!("skipping: smpq (StormLib's archiver) is not installed");
    }
    ok
}

/// Builds `archive` with smpq from `files`, staged as loose files in `stage`
/// (smpq stores the relative paths it is given).
fn smpq(archive: &Path, stage: &Path, files: &[(String, Vec<u8>)]) {
    let _ = std::fs::remove_dir_all(stage);
    let mut names = Vec::new();
    for (name, bytes) in files {
        let p = crate::formats::data_dir::archive_to_path(stage, name);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, bytes).expect("stage");
        names.push(name.replace('\\', "/"));
    }
    std::fs::create_dir_all(archive.parent().expect("parent")).expect("mkdir");
    let out = Command::new("smpq")
        .current_dir(stage)
        .args(["-c", "-q", "-M", "1"])
        .arg(archive)
        .args(&names)
        .output()
        .expect("run smpq");
    assert!(
        out.status.success(),
        "smpq failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn stormlib_archives_in_a_335_layout_load_with_locale_patches_last() {
    if !have_smpq() {
        return;
    }
    let scene = preset();
    let dir = temp_dir("stormlib");
    let stage = dir.join("stage");
    let data = dir.join("client").join("Data");
    let files = export_files(scene.world(), &scene.effects, &scene.models, None).expect("files");
    // 3.3.5 names: everything in common.MPQ (format 1, as StormLib writes it).
    smpq(&data.join("common.MPQ"), &stage, &files);
    let loaded = load_scene(&dir.join("client"), None, *scene.policy()).expect("load");
    assert_same_world(&loaded, &scene, None);
    assert_eq!(loaded.models, scene.models);

    let first = scene.world().tiles()[0].clone();
    let older = raised(&first);
    let newer = raised(&older);
    let adt = adt_path(&scene.world().name, first.coord);
    // A locale patch outranks every patch of Data, whatever its number.
    smpq(
        &data.join("enUS").join("patch-enUS.MPQ"),
        &stage,
        &[(adt.clone(), adt::write_adt(&newer).expect("adt"))],
    );
    smpq(
        &data.join("patch-3.MPQ"),
        &stage,
        &[(adt.clone(), adt::write_adt(&older).expect("adt"))],
    );
    let src = Arc::new(DataSource::open(&dir.join("client")).expect("open"));
    assert_eq!(src.locale(), Some("enUS"));
    let order: Vec<String> = src
        .archives()
        .iter()
        .map(|p| p.file_name().expect("n").to_string_lossy().into_owned())
        .collect();
    assert_eq!(order, ["common.MPQ", "patch-3.MPQ", "patch-enUS.MPQ"]);
    let loaded = crate::formats::load_scene_from(
        src,
        &crate::formats::WorldSelection::default(),
        *scene.policy(),
    )
    .expect("load patched");
    assert_same_world(&loaded, &scene, Some(&newer));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Corrupt archives (truncated, bits flipped, header and table fields
/// overwritten) give errors naming the archive, or read data that the
/// format readers then check; never a panic.
#[test]
fn corrupt_archives_are_errors_naming_the_archive() {
    use crate::rng::Rng32;
    let scene = preset();
    let files = export_files(scene.world(), &scene.effects, &scene.models, None).expect("files");
    let wdt = files
        .iter()
        .find(|(n, _)| n.ends_with(".wdt"))
        .expect("wdt")
        .clone();
    let dir = temp_dir("mpq-corrupt");
    let archive = dir.join("Data").join("terrain.MPQ");
    write_archive(&archive, std::slice::from_ref(&wdt)).expect("archive");
    let good = std::fs::read(&archive).expect("read");
    let mut rng = Rng32::new(99);
    let (mut refused, mut cases) = (0, 0);
    for i in 0..300 {
        let mut d = good.clone();
        match rng.below(3) {
            0 => d.truncate(rng.below(d.len() as u32) as usize),
            1 => {
                for _ in 0..1 + rng.below(6) {
                    let at = rng.below(d.len() as u32) as usize;
                    d[at] ^= 1 << rng.below(8);
                }
            }
            _ => {
                // The 32-byte header's fields, then anywhere.
                let at = if i % 2 == 0 {
                    4 * rng.below(8) as usize
                } else {
                    rng.below(d.len() as u32 - 4) as usize
                };
                let v = [0, 1, u32::MAX, 0x7FFF_FFFF, d.len() as u32, rng.next_u32()]
                    [rng.below(6) as usize];
                d[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        std::fs::write(&archive, &d).expect("write");
        cases += 1;
        let result = std::panic::catch_unwind(|| {
            let src = DataSource::open(&dir)?;
            let f = src.require(&wdt.0)?;
            crate::formats::wdt::read_wdt(&f.bytes, &f.name).map(drop)
        })
        .unwrap_or_else(|_| panic!("case {i} panicked"));
        if let Err(e) = result {
            refused += 1;
            let msg = e.to_string();
            assert!(
                msg.contains("terrain.MPQ") || msg.contains("missing file"),
                "case {i}: {msg}"
            );
        }
    }
    assert!(refused > cases / 3, "{refused} of {cases} refused");
    let _ = std::fs::remove_dir_all(&dir);
}
