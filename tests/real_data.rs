//! The `--data` path end to end on real client files, through the `sward`
//! binary as a user runs it: `maps`, `bench --quick`, `shot` and `inspect
//! placements` on the 3.3.5 tile Azeroth 42,29 (whose tileset BLPs and
//! detail models the folder does not hold: placeholders, counted),
//! `camera-grid` there (bench and shot), the same
//! tile with real BLPs put under its MTEX names (sampled, DXT as BC and
//! decoded), the 1.12 tables with an older doodad table (dangling doodads
//! reported), and an exported preset read back through `--data`.
//!
//! The real files come from the folder `SWARD_REAL_DATA` names (CI:
//! `../shared/realdata`; relative to the working directory, then to the
//! workspace root; `sward_scenes::testing::real_data`). Without it the real-data tests print one line and pass;
//! `SWARD_REQUIRE_REAL_DATA=1` (CI) makes that a failure. The files are
//! never copied into the repository: the tests link them into temporary
//! folders.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sward_scenes::testing::real_data;

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Runs `sward ARGS`, failing the test with its output unless it succeeds.
fn sward(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_sward"))
        .args(args)
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("run sward");
    assert!(
        out.status.success(),
        "sward {}: {}\n{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn link(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().expect("parent")).expect("dirs");
    #[cfg(unix)]
    std::os::unix::fs::symlink(from, to).expect("link");
    #[cfg(not(unix))]
    std::fs::copy(from, to).expect("copy");
}

/// A loose data folder with tile 42,29 and the Azeroth WDT (687 tiles, one
/// present) and, from `tables`, GroundEffectTexture, GroundEffectDoodad and
/// Map (`None`: the 3.3.5 tables).
fn tile_folder(real: &Path, name: &str, tables: Option<[PathBuf; 3]>) -> PathBuf {
    let d = tmp(name);
    let maps = real.join("client-335/World/Maps/Azeroth");
    for f in ["Azeroth.wdt", "Azeroth_42_29.adt"] {
        link(&maps.join(f), &d.join("World/Maps/Azeroth").join(f));
    }
    let dbc = real.join("client-335/DBFilesClient");
    let [tex, doo, map] = tables.unwrap_or_else(|| {
        [
            dbc.join("GroundEffectTexture.dbc"),
            dbc.join("GroundEffectDoodad.dbc"),
            dbc.join("Map.dbc"),
        ]
    });
    for (file, to) in [
        (tex, "GroundEffectTexture.dbc"),
        (doo, "GroundEffectDoodad.dbc"),
        (map, "Map.dbc"),
    ] {
        link(&file, &d.join("DBFilesClient").join(to));
    }
    d
}

/// The MTEX names of an ADT, in order.
fn mtex(adt: &Path) -> Vec<String> {
    let b = std::fs::read(adt).expect("adt");
    let mut i = 0;
    while i + 8 <= b.len() {
        let size = u32::from_le_bytes([b[i + 4], b[i + 5], b[i + 6], b[i + 7]]) as usize;
        if &b[i..i + 4] == b"XETM" {
            return b[i + 8..i + 8 + size]
                .split(|&c| c == 0)
                .filter(|n| !n.is_empty())
                .map(|n| String::from_utf8_lossy(n).into_owned())
                .collect();
        }
        i += 8 + size;
    }
    panic!("{} has no MTEX", adt.display());
}

fn report(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("report.json")).expect("report.json");
    serde_json::from_str(&text).expect("report json")
}

/// Asserts that `report`'s scene read its data as client `version` (a
/// prefix: "3.3.5", "1.12").
fn assert_client(report: &serde_json::Value, version: &str) {
    assert!(
        report["scene"]["client"]
            .as_str()
            .is_some_and(|c| c.starts_with(version)),
        "{}",
        report["scene"]
    );
}

fn fact(report: &serde_json::Value, key: &str) -> f64 {
    report["runs"][0]["extra"][key]
        .as_f64()
        .unwrap_or_else(|| panic!("fact {key} missing: {}", report["runs"][0]["extra"]))
}

fn load(path: &Path) -> image::RgbaImage {
    image::open(path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
        .to_rgba8()
}

/// Pixels of the terrain's missing-texture checker: magenta (lit and
/// fogged, so red and blue well above green) or the black between.
fn checker_pixels(img: &image::RgbaImage) -> usize {
    img.pixels()
        .filter(|p| {
            let [r, g, b, _] = p.0;
            r > 120 && b > 120 && g < r / 2 && g < b / 2
        })
        .count()
}

/// (pixels that differ, largest channel difference).
fn diff(a: &image::RgbaImage, b: &image::RgbaImage) -> (usize, u8) {
    assert_eq!(a.dimensions(), b.dimensions());
    let mut n = 0;
    let mut max = 0;
    for (p, q) in a.pixels().zip(b.pixels()) {
        let d = (0..3).map(|i| p.0[i].abs_diff(q.0[i])).max().unwrap_or(0);
        n += usize::from(d > 0);
        max = max.max(d);
    }
    (n, max)
}

const TILE: [&str; 4] = ["--map", "Azeroth", "--tile", "42,29"];

/// `sward --data DATA` on tile 42,29 of Azeroth: `bench --preset
/// elwynn-client --quick --tiers TIERS [OPTIONS] --out DIR`, and its report.
fn bench_tile(data: &str, tiers: &str, options: &[&str], dir: &Path) -> serde_json::Value {
    let out_dir = dir.to_str().expect("utf-8");
    let mut args = vec!["--data", data];
    args.extend(TILE);
    args.extend(["bench", "--preset", "elwynn-client", "--quick"]);
    args.extend(["--tiers", tiers]);
    args.extend(options);
    args.extend(["--out", out_dir]);
    sward(&args);
    report(dir)
}

/// `sward [GLOBAL] shot --preset elwynn-client --view VIEW [OPTIONS] --out
/// PNG`, and the image.
fn shot(global: &[&str], view: &str, options: &[&str], png: &Path) -> image::RgbaImage {
    let p = png.to_str().expect("utf-8");
    let mut args = global.to_vec();
    args.extend(["shot", "--preset", "elwynn-client", "--view", view]);
    args.extend(options);
    args.extend(["--out", p]);
    sward(&args);
    load(png)
}

/// [`shot`] with `--data DATA [GLOBAL]` on tile 42,29 of Azeroth.
fn shot_tile(
    data: &str,
    global: &[&str],
    view: &str,
    options: &[&str],
    png: &Path,
) -> image::RgbaImage {
    let mut args = vec!["--data", data];
    args.extend(global);
    args.extend(TILE);
    shot(&args, view, options, png)
}

#[test]
fn real_335_tile_lists_benches_shoots_and_inspects_with_placeholders() {
    let Some(real) = real_data("real_335_tile_lists_benches_shoots_and_inspects_with_placeholders")
    else {
        return;
    };
    let client = real.join("client-335");
    let data = client.to_str().expect("utf-8 path");
    // maps: both maps, with their names, and the version.
    let out = sward(&["--data", data, "maps"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("client 3.3.5"), "{text}");
    assert!(
        text.contains("Azeroth") && text.contains("Eastern Kingdoms"),
        "{text}"
    );
    assert!(
        text.contains("PVPZone01") && text.contains("Alterac Valley"),
        "{text}"
    );

    // bench --quick: the 3.3.5 routine, placeholders for every model and
    // tileset texture, the eight absent neighbours counted.
    let dir = tmp("real-335-bench");
    let r = bench_tile(data, "gpu-cull", &[], &dir);
    assert_client(&r, "3.3.5");
    assert_eq!(r["config"]["placement_policy"], "client-3.3.5");
    assert_eq!(r["scene"]["adts"], 1);
    assert_eq!(r["scene"]["absent_tiles"], 8);
    let placements = r["scene"]["placements"].as_u64().expect("placements");
    assert!(placements > 0);
    assert!(r["scene"]["placeholder_models"].as_u64() > Some(0));
    assert_eq!(
        r["scene"]["placeholder_placements"].as_u64(),
        Some(placements)
    );
    assert_eq!(fact(&r, "scene.tileset_placeholders"), 16.0);
    assert_eq!(fact(&r, "scene.tileset_textures"), 0.0);
    assert_eq!(fact(&r, "terrain.tileset_placeholders"), 16.0);
    assert_eq!(r["runs"].as_array().map(Vec::len), Some(2));
    assert!(r["runs"][1]["instances_drawn"].as_u64() > Some(0));

    // shot: the terrain is the checker; at the `grass-aerial` view the
    // placeholders are drawn (the picture with grass differs from the one
    // without), and with --placeholders off there is no grass to draw.
    let shot = |name: &str, tier: &str, placeholders: &str| {
        let global = ["--placeholders", placeholders];
        shot_tile(
            data,
            &global,
            "grass-aerial",
            &["--tier", tier],
            &dir.join(name),
        )
    };
    let grass = shot("grass.png", "static-batch+static-chunks", "on");
    let bare = shot("bare.png", "off+static-chunks", "on");
    let skipped = shot("skipped.png", "static-batch+static-chunks", "off");
    let total = (grass.width() * grass.height()) as usize;
    assert!(
        checker_pixels(&bare) > total / 10,
        "{} checker pixels of {total}",
        checker_pixels(&bare)
    );
    assert!(diff(&grass, &bare).0 > 100, "the placeholders drew nothing");
    let bare_off = shot("bare-off.png", "off+static-chunks", "off");
    assert_eq!(
        diff(&skipped, &bare_off).0,
        0,
        "grass drawn with placeholders off"
    );

    // inspect placements: the tile's placements, placeholders named.
    let mut args = vec!["--data", data];
    args.extend(TILE);
    args.extend([
        "inspect",
        "placements",
        "--preset",
        "elwynn-client",
        "--mcnk",
        "8,8",
    ]);
    let out = sward(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().count() > 1, "{text}");
    // The GPU generator lists the same placements, to the byte, at the
    // default density and at 48 (the JSON keeps every float's bits).
    args.push("--gpu");
    assert_eq!(
        String::from_utf8_lossy(&sward(&args).stdout),
        text,
        "inspect placements --gpu"
    );
    args.extend(["--json", "--density", "48"]);
    let gpu = sward(&args);
    args.retain(|a| *a != "--gpu");
    let cpu = sward(&args);
    assert!(cpu.stdout.len() > text.len(), "density 48 places more");
    assert_eq!(
        String::from_utf8_lossy(&gpu.stdout),
        String::from_utf8_lossy(&cpu.stdout),
        "inspect placements --gpu --json --density 48"
    );
}

/// camera-grid on the real tile: the 3.3.5 table's 24,982 effects do not
/// refuse it (its control words index the window's palette: the few the
/// tile uses), with and without the clipmap; its shots draw the
/// placeholders where the tile grows grass, and nothing with them off.
#[test]
fn real_335_tile_runs_camera_grid() {
    let Some(real) = real_data("real_335_tile_runs_camera_grid") else {
        return;
    };
    let client = real.join("client-335");
    let data = client.to_str().expect("utf-8 path");
    let dir = tmp("real-335-camera-grid");
    let r = bench_tile(data, "camera-grid,camera-grid+clipmap", &[], &dir);
    assert!(
        r["refused"].as_array().is_none_or(Vec::is_empty),
        "refused: {}",
        r["refused"]
    );
    let runs = r["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 3, "the baseline and both camera-grid runs");
    let placements = r["scene"]["placements"].as_u64().expect("placements");
    assert_eq!(
        r["scene"]["placeholder_placements"].as_u64(),
        Some(placements)
    );
    for run in &runs[1..] {
        assert_eq!(run["tier"]["grass"], "camera-grid");
        let fact = |k: &str| {
            run["extra"][k]
                .as_f64()
                .unwrap_or_else(|| panic!("{k} missing: {}", run["extra"]))
        };
        // The tile's layers name 20 ground effects; the palette holds the
        // ones its growing cells use, in a table of 24,982.
        let resident = fact("grid_effects_resident");
        assert!((1.0..=20.0).contains(&resident), "{resident}");
        assert_eq!(fact("grid_effects_capacity"), 4096.0);
        assert_eq!(fact("grid_overflow_blades"), 0.0);
        assert_eq!(fact("scene.placeholder_placements"), placements as f64);
        assert!(fact("grid_blades_in_frustum") > 0.0);
        assert!(fact("grass.bytes_per_placement") > 0.0);
    }
    // shot: the placeholders are drawn where the tile grows grass; with
    // --placeholders off camera-grid draws nothing.
    let shot = |name: &str, tier: &str, placeholders: &str| {
        let global = ["--placeholders", placeholders];
        shot_tile(data, &global, "grass", &["--tier", tier], &dir.join(name))
    };
    let grid = shot("grid.png", "camera-grid", "on");
    let bare = shot("bare.png", "off+static-chunks", "on");
    assert!(
        diff(&grid, &bare).0 > 100,
        "camera-grid drew no placeholder"
    );
    let skipped = shot("grid-off.png", "camera-grid", "off");
    let bare_off = shot("bare-off.png", "off+static-chunks", "off");
    assert_eq!(
        diff(&skipped, &bare_off).0,
        0,
        "grass drawn with placeholders off"
    );
}

#[test]
fn real_blps_under_the_tiles_mtex_names_are_sampled_as_bc_and_decoded() {
    let Some(real) =
        real_data("real_blps_under_the_tiles_mtex_names_are_sampled_as_bc_and_decoded")
    else {
        return;
    };
    let folder = tile_folder(&real, "real-335-tilesets", None);
    let names = mtex(&real.join("client-335/World/Maps/Azeroth/Azeroth_42_29.adt"));
    assert_eq!(names.len(), 16);
    let blps = [
        "dxt1a", "dxt3", "dxt5", "pala0", "pala1", "pala4", "pala8", "raw",
    ];
    for (i, name) in names.iter().enumerate() {
        let to = name.split('\\').fold(folder.clone(), |p, c| p.join(c));
        link(
            &real
                .join("textures")
                .join(format!("{}.blp", blps[i % blps.len()])),
            &to,
        );
    }
    let data = folder.to_str().expect("utf-8");
    let mut images = Vec::new();
    for upload in ["auto", "decode"] {
        let dir = tmp(&format!("real-335-tilesets-{upload}"));
        let upload_option = ["--texture-upload", upload];
        let r = bench_tile(data, "gpu-cull", &upload_option, &dir);
        assert_eq!(fact(&r, "scene.tileset_textures"), 16.0);
        assert_eq!(fact(&r, "terrain.tileset_placeholders"), 0.0);
        // dxt3 (256) and dxt5 (512) are DXT with whole chains from 256:
        // BC where the device samples it; dxt1a (16x16) is decoded and
        // resampled; the palettized and raw files are RGBA8.
        let (bc, decoded) = (
            fact(&r, "terrain.tileset_bc"),
            fact(&r, "terrain.tileset_decoded"),
        );
        assert_eq!(bc + decoded, 6.0);
        assert_eq!(fact(&r, "terrain.tileset_rgba"), 10.0);
        if upload == "decode" {
            assert_eq!(bc, 0.0);
        }
        let png = dir.join("shot.png");
        images.push(shot_tile(data, &[], "aerial", &upload_option, &png));
    }
    let total = (images[0].width() * images[0].height()) as usize;
    // The real textures, not the checker.
    assert!(checker_pixels(&images[0]) < total / 100);
    // BC sampling and CPU decoding agree to a few levels.
    let (n, max) = diff(&images[0], &images[1]);
    assert!(
        max <= 8 && n < total / 10,
        "{n} pixels differ, by up to {max}"
    );
}

#[test]
fn real_112_tables_with_an_older_doodad_table_load_with_dangling_doodads() {
    let Some(real) =
        real_data("real_112_tables_with_an_older_doodad_table_load_with_dangling_doodads")
    else {
        return;
    };
    let d112 = real.join("dbc-112");
    let folder = tile_folder(
        &real,
        "real-112-tables",
        Some([
            d112.join("GroundEffectTexture.dbc"),
            d112.join("GroundEffectDoodad-older-build.dbc"),
            d112.join("Map.dbc"),
        ]),
    );
    let dir = tmp("real-112-bench");
    let r = bench_tile(folder.to_str().expect("utf-8"), "gpu-cull", &[], &dir);
    assert_client(&r, "1.12");
    assert_eq!(r["config"]["placement_policy"], "client");
    assert!(fact(&r, "scene.dangling_doodads") > 0.0);
}

#[test]
fn an_exported_preset_read_back_through_data_draws_the_presets_image() {
    let dir = tmp("export-round-trip");
    let export = dir.join("export");
    sward(&[
        "export",
        "--preset",
        "elwynn-client",
        "--out",
        export.to_str().expect("utf-8"),
    ]);
    assert!(export.join("Tileset/Elwynn/ElwynnGrassBase.blp").is_file());
    let a = shot(&[], "aerial", &[], &dir.join("preset.png"));
    let data = ["--data", export.to_str().expect("utf-8")];
    let b = shot(&data, "aerial", &[], &dir.join("data.png"));
    let total = (a.width() * a.height()) as usize;
    let (n, max) = diff(&a, &b);
    // The same texels: only the gradient-sampling path of data textures
    // may round differently (measured: 1,590 of 921,600 pixels by 1).
    assert!(
        max <= 2 && n < total / 100,
        "{n} pixels differ, by up to {max}"
    );
}
