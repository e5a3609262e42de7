//! The parity tests on data the presets do not have: a stress tile that
//! hits every skip reason with dangling and empty slots and cliffs, and the
//! real 3.3.5 tile Azeroth 42,29 (`SWARD_REAL_DATA`).

use super::*;
use sward_engine::gpu_or_skip;

/// Ground effects that exercise what the preset tables do not: a dangling
/// slot (a doodad id the doodad table lacks), empty slots (one with a stored
/// weight, which the 3.3.5 bag deals), an effect with no slot and no weight,
/// zero weights, weights summing below and above 16, density 0 (8) and a
/// density above the per-cell cap.
fn stress_effects() -> (ResolvedEffects, usize) {
    let models = elwynn_models();
    let paths: Vec<&str> = models.iter().map(|m| m.path.as_str()).collect();
    let doodads = models
        .iter()
        .enumerate()
        .map(|(i, m)| GroundEffectDoodad {
            id: i as u32 + 1,
            model: m.path.clone(),
            flags: 0,
        })
        .collect();
    let rec = |id, doodads, weights, density| GroundEffectTexture {
        id,
        doodads,
        weights,
        density,
        ..Default::default()
    };
    let textures = vec![
        rec(1, [1, 999, 3, 0], [6, 5, 0, 5], 6),
        rec(2, [4, 5, 6, 7], [3, 1, 0, 0], 0),
        rec(3, [0, 0, 0, 0], [0, 0, 0, 0], 5),
        rec(4, [8, 9, 998, 10], [40, 30, 20, 10], 30),
        rec(5, [11, 0, 12, 0], [1, 0, 1, 0], 3),
    ];
    let effects =
        GroundEffects::new(GroundEffectLayout::Wotlk335, textures, doodads).expect("stress tables");
    (effects.resolve(&paths).expect("resolve"), models.len())
}

/// A tile derived from the Elwynn centre tile whose MCNKs hit every skip
/// reason and carry cliffs: each MCNK's layers name the stress effects, some
/// an unknown id or none; noEffectDoodad bits, holes and predTex layers past
/// the MCNK's layers vary with the MCNK; every third MCNK has a cliff.
fn stress_tile() -> World {
    let preset = Preset::by_name("elwynn-client").expect("preset");
    let mut tile = preset
        .source()
        .load(preset.centre())
        .expect("the centre tile generates");
    for (i, m) in tile.mcnks.iter_mut().enumerate() {
        let k = i as u32;
        let ids = [1, 2, 3, 4, 5, 77_777, 0];
        for (j, l) in m.layers.iter_mut().enumerate() {
            l.effect_id = ids[(i + j * 3) % ids.len()];
        }
        for row in 0..8 {
            for col in 0..8 {
                let h = sward_scenes::rng::hash32(k * 64 + row * 8 + col);
                m.header.pred_tex.set(row, col, h & 3);
                m.header.no_effect_doodad.set(row, col, h % 11 == 0);
            }
        }
        m.header.holes_low_res = if i % 5 == 0 { 0x0421 } else { 0 };
        if i % 3 == 0 {
            for row in 0..9 {
                for col in 4..9 {
                    m.heights[outer_index(row, col)] += 40.0 + (row * col) as f32;
                }
            }
        }
    }
    let mut world = World::new("placement-stress");
    world.insert(Arc::new(tile)).expect("a valid tile");
    world
}

#[test]
fn stress_records_cover_every_skip_reason_and_dangling_slots() {
    let gpu = gpu_or_skip!();
    let (resolved, model_count) = stress_effects();
    let world = stress_tile();
    let bench = Bench::new(&gpu, &world, &resolved, model_count);
    let mcnks: Vec<ChunkCoord> = world.tiles()[0]
        .mcnks
        .iter()
        .step_by(5)
        .map(|m| m.chunk_coord(world.tiles()[0].coord))
        .collect();
    let per_cell = *Preset::by_name("elwynn-dense").expect("preset").policy();
    let mut totals = ChunkStatsGpu::default();
    for policy in [
        per_cell,
        Policy::Client(Default::default()),
        Policy::Client335(Default::default()),
    ] {
        let right = generator(&gpu, &policy);
        let wrong = wrong_generator(&gpu, &policy);
        let densities: &[Option<u32>] = match policy.density() {
            Some(_) => &[Some(16), Some(48), Some(256)],
            None => &[None],
        };
        for &d in densities {
            let p = d.map_or(policy, |d| policy.with_density(d).expect("density"));
            let label = format!("stress tile, {} density {d:?}", p.name());
            let parity = check(&gpu, &bench, &right, &wrong, &label, &p, &mcnks);
            add_totals(&mut totals, &parity.totals);
        }
    }
    let t = totals;
    for (what, n) in [
        ("noEffectDoodad", t.cells_no_effect_doodad),
        ("hole", t.cells_hole),
        ("missing layer", t.cells_invalid_layer),
        ("effect-less layer", t.cells_no_effect),
        ("unknown effect", t.cells_unknown_effect),
        ("empty effect", t.cells_empty_effect),
        ("empty slot", t.empty_slots),
        ("dangling slot", t.dangling_slots),
        ("steep triangle", t.steep_slopes),
        ("low coverage", t.cells_low_coverage),
    ] {
        assert!(n > 0, "the stress tile never hit: {what}");
    }
}

#[test]
fn real_335_tile_matches_the_cpu_at_16_48_and_256() {
    let gpu = gpu_or_skip!();
    let Some(scene) =
        crate::testkit::real_335_tile("real_335_tile_matches_the_cpu_at_16_48_and_256")
    else {
        return;
    };
    assert_eq!(scene.policy().name(), "client-3.3.5");
    let world = scene.world();
    let tile = world.tile(TileCoord::new(42, 29)).expect("tile 42,29");
    let bench = Bench::new(&gpu, world, &scene.resolved, scene.models.len());
    let mcnks: Vec<ChunkCoord> = tile
        .mcnks
        .iter()
        .map(|m| m.chunk_coord(tile.coord))
        .collect();
    let policy = *scene.policy();
    let right = generator(&gpu, &policy);
    let wrong = wrong_generator(&gpu, &policy);
    for d in [16, 48, 256] {
        let p = policy.with_density(d).expect("density");
        let label = format!("real 3.3.5 Azeroth 42,29, density {d}");
        let parity = check(&gpu, &bench, &right, &wrong, &label, &p, &mcnks);
        if d == 16 {
            assert_eq!(parity.placements as u64, scene.stats.placements);
        }
    }
}

/// `sward inspect placements --gpu` lists exactly what the CPU lists
/// (same records, same order, same bits) and refuses what it refuses.
#[test]
fn inspect_gpu_lists_what_inspect_lists() {
    let gpu = gpu_or_skip!();
    let scene = crate::testkit::preset("elwynn-client");
    let tile = TileCoord::new(32, 48);
    let mcnks = [(0, 0), (5, 7), (15, 15), (5, 7)];
    let cpu = scene.inspect_placements(tile, &mcnks).expect("cpu");
    let gpu_list = super::super::inspect_placements_gpu(&gpu, scene, tile, &mcnks).expect("gpu");
    assert!(cpu.len() > 100, "{} placements", cpu.len());
    assert_eq!(gpu_list, cpu);
    for (bad, expect) in [
        (vec![(16, 0)], "outside the tile"),
        (vec![(0, 99)], "outside the tile"),
    ] {
        let err = super::super::inspect_placements_gpu(&gpu, scene, tile, &bad)
            .expect_err("out of range")
            .to_string();
        assert!(err.contains(expect), "{err}");
    }
    let err = super::super::inspect_placements_gpu(&gpu, scene, TileCoord::new(1, 1), &[])
        .expect_err("a tile outside the preset")
        .to_string();
    assert!(err.contains("tile 1,1"), "{err}");
}
