//! Cross-format tests: ADT write/read/write byte identity and value
//! equality, ground-effect tables in every layout, the data directory round
//! trip against a preset's placements, the inspect report, and a
//! deterministic mutation corpus that every reader must survive.

use std::path::PathBuf;

use super::*;
use crate::effects::{GroundEffectDoodad, GroundEffectLayout, GroundEffectTexture, GroundEffects};
use crate::rng::{hash_words, unit_f32, Rng32};
use crate::world::coords::TileCoord;
use crate::world::{AdtTile, AlphaMap, Layer, NoEffectDoodad, PredTex, ALPHA_TEXELS};

mod archives;
mod mutate;
mod options;
mod realdata;
mod subchunks;

/// A tile exercising every modelled field: 0..4 layers, alpha maps, header
/// maps, holes, flags and rough heights.
pub(super) fn sample_tile(coord: TileCoord, seed: u32) -> AdtTile {
    let height = |gx: f64, gy: f64| {
        let h = hash_words(&[(gx * 2.0) as u32, (gy * 2.0) as u32, seed]);
        20.0 + 15.0 * unit_f32(h) + (gx * 0.01) as f32
    };
    let textures = [
        "tileset\\a.blp",
        "tileset\\b.blp",
        "tileset\\c.blp",
        "x.blp",
    ]
    .map(String::from)
    .to_vec();
    let mut rng = Rng32::new(seed);
    let mut tile = AdtTile::from_height_fn(coord, textures, &height, |ix, iy| {
        let n = ((ix + iy) % 5).min(4) as usize;
        (0..n)
            .map(|k| Layer {
                texture_id: k as u32,
                flags: if k == 0 { 0 } else { 0x100 | (k as u32) },
                effect_id: [0, 7, u32::MAX, 9][k],
                alpha: (k > 0).then(|| {
                    let mut a = AlphaMap::filled(0);
                    for (i, t) in a.0.iter_mut().enumerate() {
                        *t = (hash_words(&[i as u32, ix, iy, k as u32]) & 0xFF) as u8;
                    }
                    a
                }),
            })
            .collect()
    });
    for m in &mut tile.mcnks {
        m.header.flags = rng.next_u32() & 0x8003;
        m.header.holes_low_res = (rng.next_u32() & 0xFFFF) as u16 & 0x0421;
        let r = rng.next_u32();
        m.header.pred_tex = PredTex(std::array::from_fn(|i| {
            (r.rotate_left(i as u32 * 3) & 0xFFFF) as u16
        }));
        m.header.no_effect_doodad = NoEffectDoodad(std::array::from_fn(|i| (r >> i) as u8));
        m.normals[3] = [-127, 5, 127];
    }
    tile
}

pub(super) fn sample_effects() -> GroundEffects {
    let doodads = crate::models::ELWYNN_MODEL_NAMES
        .iter()
        .enumerate()
        .map(|(i, n)| GroundEffectDoodad {
            id: 100 + i as u32,
            model: format!("{n}.mdl"),
            flags: i as u32 % 2,
        })
        .collect();
    let textures = (0..3)
        .map(|k| GroundEffectTexture {
            id: 7 + k,
            doodads: [100 + k, 103 + k, 0, 106 + k],
            weights: [5, 3, 0, 1 + k],
            density: 4 + k,
            terrain_type: k,
            ..Default::default()
        })
        .collect();
    GroundEffects::new(GroundEffectLayout::Wotlk335, textures, doodads).expect("valid tables")
}

/// A fresh empty directory under the system temp dir.
pub(super) fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sward-formats-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

#[test]
fn chunks_the_client_ships_but_sward_does_not_use_are_skipped() {
    use super::bytes::{Out, Reader};
    let tile = sample_tile(TileCoord::new(31, 49), 5);
    let bytes = write_adt(&tile).expect("write");
    let chunks = Reader::new(&bytes, "t.adt").chunks(0).expect("chunks");
    let last = chunks
        .iter()
        .rev()
        .find(|c| &c.tag == b"MCNK")
        .expect("an MCNK");
    assert_eq!(last.end(), bytes.len(), "the last MCNK ends the file");
    // Shadow map, vertex colours, old liquid and sound emitters inside the
    // last MCNK (its size grows to hold them) ...
    let mut extra = Out::default();
    extra.chunk(b"MCSH", |o| o.zeros(512));
    extra.chunk(b"MCCV", |o| o.zeros(145 * 4));
    extra.chunk(b"MCLQ", |o| o.zeros(0x2D4));
    extra.chunk(b"MCSE", |o| o.zeros(0x1C));
    let mut file = bytes.clone();
    file.extend_from_slice(&extra.buf);
    let size = (last.size + extra.buf.len()) as u32;
    file[last.offset + 4..last.offset + 8].copy_from_slice(&size.to_le_bytes());
    // ... and 3.x water, flight bounds and the doodad / WMO tables after it.
    let mut top = Out::default();
    top.chunk(b"MH2O", |o| o.zeros(256 * 12));
    top.chunk(b"MFBO", |o| o.zeros(36));
    top.chunk(b"MMDX", |o| o.bytes(b"World\\x.m2\0"));
    top.chunk(b"MMID", |o| o.u32(0));
    top.chunk(b"MWMO", |_| {});
    top.chunk(b"MWID", |_| {});
    top.chunk(b"MDDF", |o| o.zeros(36));
    top.chunk(b"MODF", |_| {});
    file.extend_from_slice(&top.buf);
    let back = read_adt(&file, "Azeroth_31_49.adt", Some(tile.coord)).expect("read");
    assert_eq!(back, tile);
}

#[test]
fn adt_round_trips_byte_for_byte_and_value_for_value() {
    let tile = sample_tile(TileCoord::new(31, 49), 3);
    let bytes = write_adt(&tile).expect("write");
    let back = read_adt(&bytes, "Azeroth_31_49.adt", Some(tile.coord)).expect("read");
    assert_eq!(back, tile);
    assert_eq!(write_adt(&back).expect("rewrite"), bytes);
    let derived = read_adt(&bytes, "anon.adt", None).expect("read without coord");
    assert_eq!(derived.coord, tile.coord);
    let wrong = read_adt(&bytes, "Azeroth_30_49.adt", Some(TileCoord::new(30, 49)));
    assert!(
        matches!(wrong, Err(FormatError::Malformed { .. })),
        "{wrong:?}"
    );
}

#[test]
fn adt_offsets_follow_v18() {
    let tile = sample_tile(TileCoord::new(32, 48), 5);
    let bytes = write_adt(&tile).expect("write");
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"));
    assert_eq!(&bytes[0..4], b"REVM");
    assert_eq!(u32_at(8), 18);
    assert_eq!(&bytes[12..16], b"RDHM");
    let mhdr_data = 20;
    let mcin = mhdr_data + u32_at(mhdr_data + 4) as usize;
    assert_eq!(&bytes[mcin..mcin + 4], b"NICM");
    let mtex = mhdr_data + u32_at(mhdr_data + 8) as usize;
    assert_eq!(&bytes[mtex..mtex + 4], b"XETM");
    // MCNK 37 = (index_x 5, index_y 2).
    let m = &tile.mcnks[37];
    let ofs = u32_at(mcin + 8 + 37 * 16) as usize;
    assert_eq!(&bytes[ofs..ofs + 4], b"KNCM");
    assert_eq!(
        u32_at(mcin + 8 + 37 * 16 + 4) as usize,
        u32_at(ofs + 4) as usize + 8
    );
    let h = ofs + 8;
    assert_eq!((u32_at(h + 4), u32_at(h + 8)), (5, 2));
    assert_eq!(u32_at(h + 0x0C), m.n_layers());
    assert_eq!(
        u16::from_le_bytes([bytes[h + 0x3C], bytes[h + 0x3D]]),
        m.header.holes_low_res
    );
    assert_eq!(&bytes[h + 0x40..h + 0x50], &m.header.pred_tex.to_bytes());
    assert_eq!(&bytes[h + 0x50..h + 0x58], &m.header.no_effect_doodad.0);
    assert_eq!(
        f32::from_le_bytes(bytes[h + 0x68..h + 0x6C].try_into().expect("f32")),
        m.header.position[0]
    );
    assert_eq!(u32_at(h + 0x14), 0x88);
    assert_eq!(&bytes[ofs + 0x88..ofs + 0x8C], b"TVCM");
    let nrm = ofs + u32_at(h + 0x18) as usize;
    assert_eq!(&bytes[nrm..nrm + 4], b"RNCM");
    assert_eq!(u32_at(nrm + 4), 435);
    let mcly = ofs + u32_at(h + 0x1C) as usize;
    assert_eq!(&bytes[mcly..mcly + 4], b"YLCM");
    for (k, l) in m.layers.iter().enumerate() {
        assert_eq!(u32_at(mcly + 8 + 16 * k + 0x0C), l.effect_id);
    }
    let mcal = ofs + u32_at(h + 0x24) as usize;
    assert_eq!(&bytes[mcal..mcal + 4], b"LACM");
    assert_eq!(
        u32_at(h + 0x28) as usize,
        8 + ALPHA_TEXELS * (m.layers.len() - 1)
    );
}

#[test]
fn ground_effect_tables_round_trip_in_every_layout() {
    let fx = sample_effects();
    let doodad = dbc::write_ground_effect_doodad(&fx.doodads).expect("doodads");
    for layout in GroundEffectLayout::ALL {
        let tex = dbc::write_ground_effect_texture(&fx, layout);
        let back = dbc::read_ground_effects(&tex, "GET.dbc", &doodad, "GED.dbc").expect("read");
        assert_eq!(back.layout, layout);
        assert_eq!(back.doodads, fx.doodads);
        for (a, b) in back.textures.iter().zip(&fx.textures) {
            assert_eq!((a.id, a.doodads, a.density), (b.id, b.doodads, b.density));
        }
        assert_eq!(dbc::write_ground_effect_texture(&back, layout), tex);
    }
    let t = dbc::read_dbc(&doodad, "GED.dbc").expect("dbc");
    assert_eq!((t.field_count, t.record_count), (3, 14));
    assert_eq!(t.string(t.field(2, 1)), Some("ElwGra03.mdl"));
}

#[test]
fn unknown_layouts_and_bad_headers_are_named_errors() {
    let fx = sample_effects();
    let doodad = dbc::write_ground_effect_doodad(&fx.doodads).expect("doodads");
    let mut nine = b"WDBC".to_vec();
    for v in [1u32, 9, 36, 1] {
        nine.extend(v.to_le_bytes());
    }
    nine.extend([0u8; 37]);
    let e = dbc::read_ground_effects(&nine, "GET.dbc", &doodad, "GED.dbc").expect_err("9 fields");
    assert!(
        e.to_string().contains("GET.dbc") && e.to_string().contains("unknown"),
        "{e}"
    );
    let mut bad = nine.clone();
    bad[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = dbc::read_dbc(&bad, "GET.dbc").expect_err("absurd count");
    assert!(matches!(e, FormatError::Malformed { offset: 4, .. }), "{e}");
    bad[0] = b'X';
    assert!(dbc::read_dbc(&bad, "GET.dbc").is_err());
    // An 11-field table that reads as both 0.5.3 and 3.3.5a is refused.
    let ids = [1u32, 11, 12];
    let small: Vec<GroundEffectDoodad> = ids
        .iter()
        .map(|&id| GroundEffectDoodad {
            id,
            model: format!("M{id}.mdl"),
            flags: 0,
        })
        .collect();
    let small = dbc::write_ground_effect_doodad(&small).expect("doodads");
    let mut both = b"WDBC".to_vec();
    for v in [1u32, 11, 44, 1, 1, 11, 12, 11, 12, 11, 12, 11, 12, 8, 1] {
        both.extend(v.to_le_bytes());
    }
    both.push(0);
    let e = dbc::read_ground_effects(&both, "GET.dbc", &small, "GED.dbc").expect_err("ambiguous");
    assert!(e.to_string().contains("ambiguous"), "{e}");
    // GroundEffectDoodad as 1.12.1's (id, internal id, path): keyed by the
    // internal id, the value GroundEffectTexture slots hold.
    let mut three = b"WDBC".to_vec();
    for v in [1u32, 3, 12, 10, 5, 77, 1] {
        three.extend(v.to_le_bytes());
    }
    three.extend(b"\0Gra.mdx\0\0");
    let d = dbc::read_ground_effect_doodad(&three, "GED.dbc").expect("3-field form");
    assert_eq!(
        (d[0].id, d[0].model.as_str(), d[0].flags),
        (77, "Gra.mdx", 0)
    );
}

#[test]
fn inspect_report_matches_the_tile_and_answers_heights() {
    let tile = sample_tile(TileCoord::new(32, 48), 9);
    let bytes = write_adt(&tile).expect("write");
    let report = inspect_adt(&bytes, "out/Azeroth_32_48.adt").expect("inspect");
    assert_eq!(report.mcnks.len(), 256);
    let (r, m) = (&report.mcnks[17], &tile.mcnks[17]);
    assert_eq!((r.index_x, r.index_y), (1, 1));
    assert_eq!(r.heights, m.heights.to_vec());
    assert_eq!(r.pred_tex[3][5], m.header.pred_tex.layer(3, 5));
    assert_eq!(
        r.no_effect_doodad[6][2],
        m.header.no_effect_doodad.is_set(6, 2)
    );
    assert_eq!(r.layers.len(), m.layers.len());
    let json = serde_json::to_value(&report).expect("json");
    assert_eq!(json["file"], "out/Azeroth_32_48.adt");
    let keys: Vec<&str> = json["mcnks"][0]
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    for k in [
        "index_x",
        "index_y",
        "flags",
        "holes_low_res",
        "position",
        "layers",
        "pred_tex",
        "no_effect_doodad",
        "heights",
    ] {
        assert!(keys.contains(&k), "{k} missing from {keys:?}");
    }
    assert_eq!(
        json["mcnks"][17]["heights"].as_array().map(Vec::len),
        Some(145)
    );
    // Height at an inner vertex of MCNK 17 equals base + MCVT value.
    let p = m.header.position;
    let unit = crate::world::coords::UNIT_SIZE;
    let (x, y) = (p[0] as f64 - 2.5 * unit, p[1] as f64 - 4.5 * unit);
    let h = report.height_at(x, y).expect("inside");
    let want = p[2] + m.heights[crate::world::height::inner_index(2, 4)];
    assert!((h.height - want).abs() < 1e-3, "{} vs {want}", h.height);
    assert!(report.height_at(0.0, 0.0).is_err());
    assert!(report.text().contains("MCNK ( 1,  1)"));
}

#[test]
fn preset_exports_and_loads_to_the_same_placements() {
    let scene = crate::presets::Preset::by_name("seams-holes")
        .expect("preset")
        .build()
        .expect("scene");
    let dir = temp_dir("seams");
    let summary =
        export_data_dir(&dir, scene.world(), &scene.effects, &scene.models, None).expect("export");
    assert!(summary
        .files
        .iter()
        .any(|f| f.ends_with("World/Maps/Azeroth/Azeroth.wdt")));
    let set = load_data_dir(&dir).expect("load");
    assert_eq!(set.world.tile_count(), scene.world().tile_count());
    for t in scene.world().tiles() {
        let got = set.world.tile(t.coord).expect("tile loaded");
        assert_eq!(**got, **t);
    }
    assert_eq!(set.models, scene.models);
    assert_eq!(set.effects, scene.effects);
    let resolved = set.resolve_effects().expect("resolves");
    let (placements, _) = crate::placement::Placements::build_world(
        &set.world,
        &resolved,
        set.models.len(),
        scene.policy(),
    );
    assert!(!placements.is_empty());
    assert_eq!(placements, **scene.placements());
    // The streamed scene over the same files matches the preset's window.
    let streamed = load_scene(&dir, None, *scene.policy()).expect("scene");
    assert_eq!(streamed.window.tiles(), scene.window.tiles());
    assert_eq!(streamed.placements(), scene.placements());
    assert!(!streamed.views.is_empty());
    // `inspect placements` over the files lists what it lists over the
    // preset, for this policy and for the client routine.
    let tile = scene.window.tiles()[0];
    assert_eq!(
        streamed.inspect_placements(tile, &[(2, 3)]).expect("files"),
        scene.inspect_placements(tile, &[(2, 3)]).expect("preset")
    );
    let client = crate::placement::Policy::Client(Default::default());
    let streamed = load_scene(&dir, None, client).expect("client scene");
    assert_eq!(streamed.grass, crate::presets::GrassRange::CLIENT);
    let paths: Vec<&str> = scene.models.iter().map(|m| m.path.as_str()).collect();
    let t = scene.world().tile(tile).expect("resident");
    let want = crate::placement::inspect_placements(t, &scene.resolved, &paths, &client, &[])
        .expect("preset");
    assert!(!want.is_empty());
    assert_eq!(streamed.inspect_placements(tile, &[]).expect("files"), want);
    // Upper-case file names load too (case-insensitive lookup).
    let m2 = crate::formats::data_dir::archive_to_path(&dir, &scene.models[0].path);
    let upper = m2.with_file_name(
        m2.file_name()
            .expect("name")
            .to_string_lossy()
            .to_uppercase(),
    );
    std::fs::rename(&m2, &upper).expect("rename");
    assert!(load_data_dir(&dir).is_ok());
    std::fs::remove_file(&upper).expect("remove");
    // A missing model is reported and drawn as a placeholder, not fatal;
    // with placeholders off its doodads are skipped.
    let set = load_data_dir(&dir).expect("loads without the model");
    assert_eq!(set.missing.len(), 1);
    let miss = &set.missing[0];
    assert!(miss.model.ends_with("ElwGra01.m2"), "{}", miss.model);
    assert_eq!(miss.file, miss.model);
    assert!(!miss.effects.is_empty());
    assert!(miss.to_string().contains("ElwGra01"), "{miss}");
    assert_eq!(set.models.len(), scene.models.len());
    assert_eq!(miss.placeholder, Some((set.models.len() - 1) as u16));
    let src = crate::formats::DataSource::open(&dir).expect("open");
    let (effects, models, missing) =
        crate::formats::data_dir::load_effects_and_models_with(&src, false).expect("off");
    assert_eq!(models.len(), scene.models.len() - 1);
    assert_eq!(missing.len(), 1);
    assert_eq!(missing[0].placeholder, None);
    assert!(missing[0].to_string().contains("skipped"), "{}", missing[0]);
    assert!(effects
        .textures
        .iter()
        .all(|t| !t.doodads.iter().any(|d| missing[0].doodads.contains(d))));
    let streamed = load_scene(&dir, None, *scene.policy()).expect("scene");
    assert_eq!(streamed.missing_models, set.missing);
    assert!(!streamed.placements().is_empty());
    // A model that is present but corrupt is an error naming it.
    std::fs::write(&m2, b"MD20junk").expect("write");
    let e = load_data_dir(&dir).expect_err("corrupt model");
    assert!(e.to_string().contains("ElwGra01"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Checks every WDL grid point of every tile of `world`: `far` answers the
/// stored value exactly, and that value is the exact height rounded
/// (|diff| <= 0.5; the sampled terrain stays far inside the i16 range).
fn assert_far_heights_match(
    world: &crate::World,
    wdl: &wdl::Wdl,
    far: impl Fn(f64, f64) -> Option<f32>,
) -> usize {
    use crate::world::coords::grid_to_world;
    let mut n = 0;
    for t in world.tiles() {
        let w = wdl.tile(t.coord).expect("every exported tile has WDL data");
        let outer = (0..wdl::OUTER * wdl::OUTER).map(|k| {
            let (r, c) = (k / wdl::OUTER, k % wdl::OUTER);
            (wdl::Wdl::outer_grid(t.coord, r, c), w.outer[r][c])
        });
        let inner = (0..wdl::INNER * wdl::INNER).map(|k| {
            let (r, c) = (k / wdl::INNER, k % wdl::INNER);
            (wdl::Wdl::inner_grid(t.coord, r, c), w.inner[r][c])
        });
        for ((gx, gy), v) in outer.chain(inner) {
            let got = far(gx, gy).expect("far height inside the WDL");
            let (x, y) = grid_to_world(gx, gy);
            let exact = world.height_at(x, y).expect("exported tile");
            // Points on a border shared with another tile read that tile's
            // copy, which holds the same rounded height.
            assert_eq!(got, f32::from(v), "grid ({gx}, {gy}) of tile {:?}", t.coord);
            assert!((got - exact).abs() <= 0.5, "{got} vs exact {exact}");
            n += 1;
        }
    }
    n
}

#[test]
fn export_writes_a_wdl_that_loading_uses_for_far_heights() {
    let scene = crate::presets::Preset::by_name("seams-holes")
        .expect("preset")
        .build()
        .expect("scene");
    // One MCNK that is a hole throughout (a MAHO hole) besides the preset's
    // partial holes (not representable in a WDL).
    let mut world = scene.world().clone();
    let first = world.tiles()[0].coord;
    let mut tile = (*world.remove(first).expect("tile")).clone();
    tile.mcnks[5 * 16 + 9].header.holes_low_res = u16::MAX;
    world.insert(std::sync::Arc::new(tile)).expect("insert");
    let dir = temp_dir("wdl");
    let summary =
        export_data_dir(&dir, &world, &scene.effects, &scene.models, None).expect("export");
    let wdl_file = dir.join("World/Maps/Azeroth/Azeroth.wdl");
    assert!(summary.files.contains(&wdl_file));
    let set = load_data_dir(&dir).expect("load");
    let far = set.wdl.as_ref().expect("WDL loaded");
    assert_eq!(far.tile_count(), world.tile_count());
    let holes: Vec<_> = far
        .tiles()
        .flat_map(|(c, t)| {
            (0..256u32)
                .filter(|i| t.is_hole(i % 16, i / 16))
                .map(move |i| (c, i % 16, i / 16))
        })
        .collect();
    assert_eq!(holes, vec![(first, 9, 5)]);
    let n = assert_far_heights_match(&world, far, |gx, gy| far.height_at_grid(gx, gy));
    assert_eq!(n, world.tile_count() * wdl::MARE_VALUES);
    // The streamed scene exposes it and its source answers far heights
    // from it (what the clipmap's distant levels sample).
    let streamed = load_scene(&dir, None, *scene.policy()).expect("scene");
    assert_eq!(streamed.far_heights.as_deref(), Some(far));
    assert_far_heights_match(&world, far, |gx, gy| streamed.source.coarse_height(gx, gy));
    // Without a WDL the map still loads, without far heights.
    let bytes = std::fs::read(&wdl_file).expect("read");
    std::fs::remove_file(&wdl_file).expect("remove");
    assert!(load_data_dir(&dir).expect("loads").wdl.is_none());
    let streamed = load_scene(&dir, None, *scene.policy()).expect("scene");
    assert!(streamed.far_heights.is_none());
    let (gx, gy) = wdl::Wdl::inner_grid(first, 3, 3);
    assert_eq!(streamed.source.coarse_height(gx, gy), None);
    // A corrupt WDL is an error naming it.
    std::fs::write(&wdl_file, &bytes[..bytes.len() / 2]).expect("write");
    let e = load_data_dir(&dir).expect_err("corrupt WDL");
    assert!(e.to_string().contains("Azeroth.wdl"), "{e}");
    let e = load_scene(&dir, None, *scene.policy()).expect_err("corrupt WDL");
    assert!(e.to_string().contains("Azeroth.wdl"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
