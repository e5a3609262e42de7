//! Tests of both placement policies: determinism, suppression, counts.

use std::sync::Arc;

use super::*;
use crate::effects::{GroundEffectDoodad, GroundEffectLayout, GroundEffectTexture, GroundEffects};
use crate::world::{coords, hole_mask_for_cell, AdtTile, AlphaMap, Layer, TileCoord, World};

const GRASS: u32 = 1;
const MODELS: usize = 2;

fn effects(density: u32) -> ResolvedEffects {
    let tex = GroundEffectTexture {
        id: GRASS,
        doodads: [11, 12, 0, 0],
        weights: [3, 1, 0, 0],
        density,
        ..Default::default()
    };
    let doodads = vec![
        GroundEffectDoodad {
            id: 11,
            model: "A.mdl".into(),
            flags: 0,
        },
        GroundEffectDoodad {
            id: 12,
            model: "B.mdl".into(),
            flags: 0,
        },
    ];
    let fx = GroundEffects::new(GroundEffectLayout::Wotlk335, vec![tex], doodads).expect("tables");
    fx.resolve(&["World\\NoDXT\\Detail\\A.m2", "World\\NoDXT\\Detail\\B.m2"])
        .expect("resolved")
}

fn hills(gx: f64, gy: f64) -> f32 {
    (10.0 * (gx * 0.05).sin() * (gy * 0.07).cos()) as f32 + 50.0
}

/// Layer 0 grows grass; layer 1 is an effect-less road, opaque where it is
/// the predicted layer. In MCNK 0: row 0 is road, row 1 suppressed by
/// noEffectDoodad, the (4..6, 4..6) block a hole, cell (7, 7) names layer 3
/// (invalid: only two layers).
fn tile(coord: TileCoord) -> AdtTile {
    let mut t = AdtTile::from_height_fn(
        coord,
        vec!["grass.blp".into(), "road.blp".into()],
        &hills,
        |_, _| {
            vec![
                Layer {
                    texture_id: 0,
                    flags: 0,
                    effect_id: GRASS,
                    alpha: None,
                },
                Layer {
                    texture_id: 1,
                    flags: 0,
                    effect_id: 0,
                    alpha: Some(AlphaMap::filled(0)),
                },
            ]
        },
    );
    let m = &mut t.mcnks[0];
    let mut road = AlphaMap::filled(0);
    for c in 0..64 {
        for r in 0..8 {
            road.0[r * 64 + c] = 255;
        }
    }
    m.layers[1].alpha = Some(road);
    for col in 0..8 {
        m.header.pred_tex.set(0, col, 1);
        m.header.no_effect_doodad.set(1, col, true);
    }
    m.header.holes_low_res = hole_mask_for_cell(4, 4);
    m.header.pred_tex.set(7, 7, 3);
    t
}

fn world(coords: &[(u32, u32)]) -> World {
    let mut w = World::new("T");
    for &(x, y) in coords {
        w.insert(Arc::new(tile(TileCoord::new(x, y))))
            .expect("tile");
    }
    w
}

fn per_cell() -> Policy {
    Policy::PerCell(PerCellParams::default())
}

fn client() -> Policy {
    Policy::Client(ClientParams::default())
}

#[test]
fn both_policies_are_deterministic_and_order_independent() {
    let fx = effects(6);
    for policy in [per_cell(), client()] {
        let a = Placements::build_world(
            &world(&[(10, 10), (11, 10), (10, 11)]),
            &fx,
            MODELS,
            &policy,
        );
        let b = Placements::build_world(
            &world(&[(10, 11), (11, 10), (10, 10)]),
            &fx,
            MODELS,
            &policy,
        );
        assert_eq!(a, b, "{}", policy.name());
        assert!(a.0.len() > 1000);
        // A tile alone produces exactly its slice of the window.
        let (alone, _) =
            Placements::build_tile(&tile(TileCoord::new(11, 10)), &fx, MODELS, &policy);
        let chunk0 = crate::world::ChunkCoord::from_tile(TileCoord::new(11, 10), 0, 0);
        let first =
            a.0.groups
                .iter()
                .position(|g| g.chunk == chunk0)
                .expect("tile 11,10 present");
        let g = a.0.groups[first];
        assert_eq!(
            &a.0.items[g.start as usize..g.start as usize + alone.len()],
            alone.items.as_slice()
        );
    }
}

#[test]
fn nothing_grows_in_suppressed_holes_roads_or_invalid_cells() {
    let fx = effects(6);
    let w = world(&[(10, 10)]);
    for policy in [
        per_cell(),
        client(),
        Policy::Client(ClientParams { frill_density: 400 }),
    ] {
        let (p, stats) = Placements::build_world(&w, &fx, MODELS, &policy);
        let chunk0 = crate::world::ChunkCoord::from_tile(TileCoord::new(10, 10), 0, 0);
        let mut in_chunk0 = 0;
        for g in p.groups.iter().filter(|g| g.chunk == chunk0) {
            for it in p.group_items(g) {
                let loc =
                    coords::locate(it.position[0] as f64, it.position[1] as f64).expect("in world");
                let (r, c) = (loc.cell.row, loc.cell.col);
                assert!(r > 1, "{} placed in road/suppressed row {r}", policy.name());
                assert!(
                    !((4..6).contains(&r) && (4..6).contains(&c)),
                    "{} placed in the hole",
                    policy.name()
                );
                assert!(
                    (r, c) != (7, 7),
                    "{} placed in the invalid-layer cell",
                    policy.name()
                );
                in_chunk0 += 1;
            }
        }
        assert!(in_chunk0 > 0);
        if let Policy::PerCell(_) = policy {
            assert_eq!(stats.cells_no_effect, 8, "road row");
            assert_eq!(stats.cells_no_effect_doodad, 8);
            assert_eq!(stats.cells_hole, 4);
            assert_eq!(stats.cells_invalid_layer, 1);
        } else if policy == Policy::Client(ClientParams { frill_density: 400 }) {
            // 400 draws over 64 cells visit every skipped kind in MCNK 0.
            assert!(
                stats.cells_no_effect_doodad > 0
                    && stats.cells_hole > 0
                    && stats.cells_invalid_layer > 0
            );
            assert!(stats.cells_no_effect > 0);
        }
    }
}

#[test]
fn per_cell_counts_follow_the_clump_formula() {
    for density in [0, 3, 6, 20, 40] {
        let fx = effects(density);
        let (p, stats) = Placements::build_world(&world(&[(10, 10)]), &fx, MODELS, &per_cell());
        // 256 MCNKs x 64 cells, minus chunk 0's 8 + 8 + 4 + 1 skipped cells,
        // each at full coverage: clumps = min(effective density, 12).
        let eff = crate::effects::effective_density(density);
        let per_cell = eff.min(12) as usize;
        assert_eq!(p.len(), (256 * 64 - 21) * per_cell, "density {density}");
        assert_eq!(stats.placements as usize, p.len());
        assert_eq!(stats.per_model.iter().sum::<u64>() as usize, p.len());
    }
    assert_eq!(
        [0, 16, 32, 128, 255].map(|c| per_cell::clumps(c, 8, 24, 12)),
        [1, 1, 2, 5, 8]
    );
    assert_eq!(per_cell::clumps(255, 40, 24, 12), 12);
}

#[test]
fn per_cell_scale_multiplies_and_weights_hold() {
    let fx = effects(4);
    let w = world(&[(10, 10)]);
    let scaled = Policy::PerCell(PerCellParams {
        density_scale: 2.5,
        ..Default::default()
    });
    let (one, _) = Placements::build_world(&w, &fx, MODELS, &per_cell());
    let (more, _) = Placements::build_world(&w, &fx, MODELS, &scaled);
    let ratio = more.len() as f64 / one.len() as f64;
    assert!((ratio - 2.5).abs() < 0.05, "{ratio}");
    // Weights 3:1 between the two slots.
    let counts = one.per_model_counts(MODELS);
    let share = counts[0] as f64 / one.len() as f64;
    assert!((share - 0.75).abs() < 0.02, "{counts:?}");
}

#[test]
fn client_places_density_per_picked_cell() {
    let fx = effects(4);
    let mut t = tile(TileCoord::new(10, 10));
    // Make every MCNK fully valid; slots 0 and 1 filled, 2 and 3 empty.
    for m in &mut t.mcnks {
        m.header = crate::world::McnkHeader {
            pred_tex: Default::default(),
            holes_low_res: 0,
            ..m.header
        };
        m.header.no_effect_doodad = Default::default();
    }
    let (p, stats) = Placements::build_tile(&t, &fx, MODELS, &client());
    // Doodad n of a picked cell uses slot (n + cellIndex) & 3; with density 4
    // every slot is used once, so slots 0 and 1 place 2 of the 4.
    assert_eq!(stats.cells_placed, 256 * 16);
    assert_eq!(p.len(), 256 * 16 * 2);
    assert_eq!(stats.empty_slots, 256 * 16 * 2);
    assert_eq!(
        client::mcnk_seed(crate::world::ChunkCoord { x: 5, y: 9 }),
        (9 << 16) | 5
    );
}

#[test]
fn placements_sit_on_the_exact_surface_with_valid_ranges() {
    let fx = effects(6);
    let w = world(&[(10, 10)]);
    for policy in [per_cell(), client()] {
        let (p, _) = Placements::build_world(&w, &fx, MODELS, &policy);
        for it in p.items.iter().step_by(7) {
            let h = w
                .height_at(it.position[0] as f64, it.position[1] as f64)
                .expect("resident");
            assert!(
                (h - it.position[2]).abs() < 2e-3,
                "{} vs {}",
                h,
                it.position[2]
            );
            assert!((0.9..1.1).contains(&it.scale));
            assert!((-std::f32::consts::PI..std::f32::consts::PI).contains(&it.yaw));
        }
    }
}

#[test]
fn count_matches_build_and_views_agree() {
    let fx = effects(6);
    let t = tile(TileCoord::new(10, 10));
    for policy in [per_cell(), client()] {
        let (p, stats) = Placements::build_tile(&t, &fx, MODELS, &policy);
        assert_eq!(Placements::count_tile(&t, &fx, MODELS, &policy), stats);
        let (items, ranges) = p.model_major(MODELS);
        assert_eq!(items.len(), p.len());
        for (m, r) in ranges.iter().enumerate() {
            assert_eq!(r.len() as u64, stats.per_model[m]);
        }
        assert_eq!(p.by_chunk().count(), 256);
        assert!(p
            .groups
            .windows(2)
            .all(|w| (w[0].chunk.y, w[0].chunk.x, w[0].model)
                < (w[1].chunk.y, w[1].chunk.x, w[1].model)));
    }
}
