//! Tests of the presets: registry, counts, views, window slides.

use std::sync::OnceLock;

use super::*;

/// Built once and shared: terrain generation dominates test time.
fn built(name: &'static str) -> &'static Scene {
    static ELWYNN: OnceLock<Scene> = OnceLock::new();
    static SEAMS: OnceLock<Scene> = OnceLock::new();
    let cell = if name == "elwynn-dense" {
        &ELWYNN
    } else {
        &SEAMS
    };
    cell.get_or_init(|| {
        Preset::by_name(name)
            .and_then(|p| p.build())
            .expect("preset builds")
    })
}

#[test]
fn registry_lists_and_rejects_names() {
    assert_eq!(Preset::names()[0], "elwynn-dense");
    assert_eq!(Preset::all().len(), Preset::names().len());
    let err = Preset::by_name("nope").expect_err("unknown");
    let msg = err.to_string();
    assert!(
        msg.contains("nope") && msg.contains("elwynn-dense") && msg.contains("scale-16"),
        "{msg}"
    );
}

#[test]
fn elwynn_dense_hits_the_checkpoint() {
    let scene = built("elwynn-dense");
    assert_eq!(scene.world().mcnk_count(), 2304);
    assert_eq!(scene.models.len(), 14);
    let n = scene.placements.len() as f64;
    let target = ELWYNN_TARGET_PLACEMENTS as f64;
    eprintln!("elwynn-dense: {n} placements, stats {:?}", scene.stats);
    assert!(
        (n - target).abs() / target < 0.02,
        "{n} placements, want {target} +/- 2%"
    );
    assert!(
        scene.stats.per_model.iter().all(|&c| c > 0),
        "all 14 models used"
    );
    assert_eq!(scene.stats.cells_invalid_layer, 0);
    let st = &scene.stats;
    for kind in [st.cells_no_effect_doodad, st.cells_hole, st.cells_no_effect] {
        assert!(kind > 0, "roads, holes and rock all appear: {st:?}");
    }
}

#[test]
fn summaries_match_builds_and_scale_presets_scale() {
    let all = Preset::summaries().expect("summaries");
    let get = |n: &str| all.iter().find(|s| s.name == n).expect("listed").clone();
    let dense = get("elwynn-dense");
    assert_eq!(
        (dense.adts, dense.mcnks, dense.resident_mcnks, dense.models),
        (9, 2304, 2304, 14)
    );
    let seams = built("seams-holes");
    assert_eq!(get("seams-holes").placements, seams.placements.len() as u64);
    assert_eq!(seams.world().tile_count(), 4);
    assert!(
        seams.stats.cells_hole > 200,
        "seams-holes has many holes: {:?}",
        seams.stats
    );
    let flowers: u64 = ["ElwFlo01", "ElwFlo02", "ElwFlo03", "ElwFlo04"]
        .iter()
        .filter_map(|n| seams.models.iter().position(|m| m.name == *n))
        .map(|i| seams.stats.per_model[i])
        .sum();
    let share = flowers as f64 / seams.placements.len() as f64;
    assert!(share > 0.0 && share < 0.1, "sparse flowers: {share}");
    let cont = get("continent");
    assert_eq!(
        (cont.adts, cont.mcnks, cont.resident_mcnks),
        (256, 65_536, 2304)
    );
    assert_eq!(
        cont.placements, dense.placements,
        "same terrain, same resident window"
    );
    for (name, factor) in [
        ("scale-0.25", 0.25),
        ("scale-1", 1.0),
        ("scale-4", 4.0),
        ("scale-16", 16.0),
    ] {
        let ratio = get(name).placements as f64 / dense.placements as f64;
        assert!(
            (ratio - factor).abs() / factor < 0.03,
            "{name}: ratio {ratio}"
        );
    }
    let client = get("elwynn-client");
    assert!(
        client.placements > 50_000 && client.placements < dense.placements,
        "{client:?}"
    );
}

#[test]
fn views_and_walk_path_cross_an_adt_border() {
    for name in ["elwynn-dense", "seams-holes"] {
        let scene = built(name);
        for v in ["ground-yaw0", "ground-yaw90", "aerial"] {
            let view = scene
                .view(v)
                .unwrap_or_else(|| panic!("{name} lacks view {v}"));
            let ground = scene
                .world()
                .height_at(view.eye[0] as f64, view.eye[1] as f64);
            assert!(
                ground.is_some_and(|g| view.eye[2] > g),
                "{name}/{v} is above ground"
            );
        }
        let k = &scene.path.keyframes;
        assert!(k.len() > 10);
        let tile = |kf: &Keyframe| coords::tile_at(kf.eye[0] as f64, kf.eye[1] as f64);
        assert_ne!(
            tile(&k[0]),
            tile(&k[k.len() - 1]),
            "{name} walk crosses an ADT border"
        );
        assert!(k.windows(2).all(|w| w[1].t > w[0].t));
    }
}

#[test]
fn window_slides_reuse_tiles_and_keep_placements() {
    let mut scene = Preset::by_name("continent")
        .and_then(|p| p.build())
        .expect("builds");
    let before = scene.placements.clone();
    let keep = TileCoord::new(32, 47);
    let kept = scene
        .window
        .tile_placements(keep)
        .cloned()
        .expect("resident");
    // Step one tile towards +X (row 48 -> 47).
    let [x, y] = coords::tile_centre(TileCoord::new(32, 47));
    let slide = scene.follow(x, y).expect("loads").expect("slides");
    assert_eq!((slide.loaded.len(), slide.reused, slide.dropped), (3, 6, 3));
    assert!(slide.ms > 0.0 && slide.bytes > 0);
    assert!(Arc::ptr_eq(
        &kept,
        scene.window.tile_placements(keep).expect("still resident")
    ));
    assert_eq!(scene.world().mcnk_count(), 2304);
    assert_eq!(
        scene.follow(x + 10.0, y).expect("ok"),
        None,
        "same tile: no slide"
    );
    // A freshly loaded tile places exactly what an independent build does.
    let fresh = slide.loaded[0];
    let alone = scene.source.load(fresh).expect("tile");
    let (p, _) = Placements::build_tile(&alone, &scene.resolved, 14, scene.policy());
    assert_eq!(
        scene.window.tile_placements(fresh).map(|a| a.as_ref()),
        Some(&p)
    );
    // Back home: byte-identical to the first build.
    let [x, y] = coords::tile_centre(CENTRE);
    scene.follow(x, y).expect("loads").expect("slides");
    assert_eq!(scene.placements, before);
}
