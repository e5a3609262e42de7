//! Tests of both placement policies: determinism, suppression, counts.

use std::sync::Arc;

use super::*;
use crate::effects::fixtures::{lettered_doodads, MODEL_PATHS};
use crate::effects::{GroundEffectLayout, GroundEffectTexture, GroundEffects};
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
    let fx = GroundEffects::new(GroundEffectLayout::Wotlk335, vec![tex], lettered_doodads(2))
        .expect("tables");
    fx.resolve(&MODEL_PATHS[..2]).expect("resolved")
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

/// The generator against the reference implementation: whoa's typhoon
/// (`whoahq/typhoon`, `tempest/random/CRandom.cpp` and `CRndSeed.cpp` at
/// commit c6ee931) compiled with g++ outside this repository, printing the
/// first eight `CRandom::uint32` values after `CRndSeed(seed)` and the
/// 100,000th value for one seed.
#[test]
fn client_rng_matches_the_reference_generator() {
    use super::client_rng::{signed_unit, ClientRng, NOISE};
    let cases: [(u32, [u32; 8]); 5] = [
        (
            0,
            [
                0x16BE8AA9, 0xBA39C860, 0xB1DFD560, 0x6BBD62DF, 0x900F3784, 0xDE0646CE, 0x9C1C3A62,
                0x084305AD,
            ],
        ),
        (
            1,
            [
                0x3E34D164, 0xEC6567FE, 0xDF4C9BCC, 0x2E14327A, 0x765A1BBF, 0xE3CCED03, 0x05B949C3,
                0x31D0D414,
            ],
        ),
        (
            0x0030_0020,
            [
                0x9ED0F801, 0x3F55A3AA, 0x3186D589, 0xF6FA3E5E, 0x90767232, 0xB9A544BB, 0x2E3E0A91,
                0x1BA7947F,
            ],
        ),
        (
            // MCNK (519, 773): tile (32, 48), MCNK (7, 5).
            0x0305_0207,
            [
                0x0D932F21, 0xC475C3F0, 0x298C57F6, 0xBA8793CC, 0x7F14C661, 0xE08744E7, 0xBFD88FB8,
                0x09B4A488,
            ],
        ),
        (
            u32::MAX,
            [
                0x6C19B47A, 0x7295D588, 0x38340EC2, 0x6831CA7F, 0x541A8A9B, 0xC80CC730, 0x6050780F,
                0x96EC3CBD,
            ],
        ),
    ];
    for (seed, want) in cases {
        let mut r = ClientRng::new(seed);
        let got: [u32; 8] = std::array::from_fn(|_| r.next_u32());
        assert_eq!(got, want, "seed {seed:#x}");
    }
    let mut r = ClientRng::new(0x0030_0020);
    let last = (0..100_000).map(|_| r.next_u32()).last();
    assert_eq!(last, Some(0x9E2D_F506));
    // The table is a permutation of 0..=255 starting 8e 14 27 99.
    let mut seen = [false; 256];
    NOISE.iter().for_each(|&b| seen[b as usize] = true);
    assert!(seen.iter().all(|&s| s));
    assert_eq!(NOISE[..4], [0x8e, 0x14, 0x27, 0x99]);
    // Float conversion: mantissa -> f in [1, 2); sign set: 2 - f, clear: f - 2.
    assert_eq!(signed_unit(0x0000_0000), -1.0);
    assert_eq!(signed_unit(0x8000_0000), 1.0);
    assert_eq!(signed_unit(0x0040_0000), -0.5);
    assert_eq!(signed_unit(0x8040_0000), 0.5);
    assert_eq!(signed_unit(0x7FFF_FFFF), -f32::EPSILON);
}

/// An independent model of the routine's draw sequence for the test fixture
/// (slots 0 and 1 filled, 2 and 3 empty; `skip` says which cells place
/// nothing): `(pick, n, row, col, slot, u, v, scale, yaw)` per placement.
#[allow(clippy::type_complexity)]
fn model_stream(
    chunk: crate::world::ChunkCoord,
    frill: u32,
    density: u32,
    skip: impl Fn(u32, u32) -> bool,
) -> Vec<(u32, u32, u32, u32, u32, f32, f32, f32, f32)> {
    use super::client_rng::ClientRng;
    let mut r = ClientRng::new((chunk.y << 16) | chunk.x);
    let mut picks = Vec::new();
    for _ in 0..frill {
        let col = r.next_u32() & 7;
        let row = r.next_u32() & 7;
        picks.push((row, col));
    }
    let mut out = Vec::new();
    for (k, &(row, col)) in picks.iter().enumerate() {
        if skip(row, col) {
            continue;
        }
        for n in 0..density {
            let rx = r.next_signed();
            let ry = r.next_signed();
            let slot = (n + k as u32) % 4;
            if slot >= 2 {
                continue;
            }
            let scale = r.next_signed() * 0.1 + 1.0;
            let yaw = r.next_signed() * std::f32::consts::PI;
            out.push((
                k as u32,
                n,
                row,
                col,
                slot,
                (rx + 1.0) / 2.0,
                (ry + 1.0) / 2.0,
                scale,
                yaw,
            ));
        }
    }
    out
}

fn records_of(
    t: &AdtTile,
    fx: &ResolvedEffects,
    policy: &Policy,
    mcnk: (u32, u32),
) -> Vec<PlacementRecord> {
    inspect_placements(t, fx, &["A", "B"], policy, &[mcnk]).expect("inspect")
}

/// Two passes (all picks first), slot `(n + pick) & 3`, rx/ry drawn even for
/// an empty slot, scale before yaw, and suppressed cells (road layer,
/// noEffectDoodad, hole, missing layer) drawing nothing: the routine's
/// output equals the model stream draw for draw.
#[test]
fn client_routine_follows_the_draw_order() {
    let t = tile(TileCoord::new(10, 10));
    for density in [4, 7] {
        let fx = effects(density);
        for frill in [16, 48] {
            let policy = Policy::Client(ClientParams {
                frill_density: frill,
            });
            // MCNK 0 has every kind of suppressed cell; MCNK (3, 2) none.
            for (mcnk, skip_any) in [((0, 0), true), ((3, 2), false)] {
                let chunk = crate::world::ChunkCoord::from_tile(t.coord, mcnk.0, mcnk.1);
                let skip = |row: u32, col: u32| {
                    skip_any
                        && (row <= 1
                            || ((4..6).contains(&row) && (4..6).contains(&col))
                            || (row, col) == (7, 7))
                };
                let want = model_stream(chunk, frill, density, skip);
                let got = records_of(&t, &fx, &policy, mcnk);
                assert_eq!(
                    got.len(),
                    want.len(),
                    "density {density} frill {frill} {mcnk:?}"
                );
                let m = t.mcnk(mcnk.0, mcnk.1).expect("mcnk");
                for (g, w) in got.iter().zip(&want) {
                    let (pick, n, row, col, slot, u, v, scale, yaw) = *w;
                    assert_eq!((g.pick, g.n, g.cell, g.slot), (pick, n, [col, row], slot));
                    assert_eq!(g.doodad, [11, 12][slot as usize]);
                    assert_eq!(g.model, ["A", "B"][slot as usize]);
                    assert_eq!((g.scale, g.yaw), (scale, yaw), "bit-exact scale and yaw");
                    let (x, y) = m.local_to_world(
                        f64::from(col) + f64::from(u),
                        f64::from(row) + f64::from(v),
                    );
                    assert_eq!(
                        g.position,
                        [x as f32, y as f32, m.height_in_cell(row, col, u, v)]
                    );
                }
            }
        }
    }
}

/// A cell picked twice gets doodads from rotated slots: doodad `n` of pick
/// `k` uses slot `(n + k) & 3`, not a slot fixed by the cell. With slots 0
/// and 1 filled and density 4, the doodad indices that place are {0, 1},
/// {3, 0}, {2, 3} or {1, 2} by `k & 3`; a slot fixed per cell would place
/// the same indices at every pick of the cell.
#[test]
fn a_cell_picked_twice_rotates_its_slots() {
    let t = tile(TileCoord::new(10, 10));
    let fx = effects(4);
    let policy = Policy::Client(ClientParams { frill_density: 48 });
    let got = records_of(&t, &fx, &policy, (3, 2));
    let mut by_cell: std::collections::HashMap<[u32; 2], Vec<(u32, Vec<u32>)>> = Default::default();
    for r in &got {
        assert_eq!(r.slot, (r.n + r.pick) & 3);
        let picks = by_cell.entry(r.cell).or_default();
        match picks.last_mut() {
            Some((k, ns)) if *k == r.pick => ns.push(r.n),
            _ => picks.push((r.pick, vec![r.n])),
        }
    }
    let mut rotated = 0;
    for picks in by_cell.values().filter(|p| p.len() > 1) {
        let (k0, n0) = &picks[0];
        for (k1, n1) in &picks[1..] {
            let mut a = n0.clone();
            let mut b = n1.clone();
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(
                a != b,
                (k1 - k0) % 4 != 0,
                "picks {k0} and {k1} of one cell"
            );
            rotated += usize::from(a != b);
        }
    }
    assert!(rotated > 0, "48 picks over 64 cells repeat some cell");
}

#[test]
fn client_density_is_uncapped_and_frill_density_clamped() {
    let mut t = tile(TileCoord::new(10, 10));
    for m in &mut t.mcnks {
        m.header.pred_tex = Default::default();
        m.header.holes_low_res = 0;
        m.header.no_effect_doodad = Default::default();
    }
    // Density 40 (per-cell caps at 24): 20 of 40 slots filled per pick.
    let (p, stats) = Placements::build_tile(&t, &effects(40), MODELS, &client());
    assert_eq!(p.len(), 256 * 16 * 20);
    assert_eq!(stats.empty_slots, 256 * 16 * 20);
    for (frill, picks) in [(0, 1), (1, 1), (256, 256), (400, 256)] {
        let policy = Policy::Client(ClientParams {
            frill_density: frill,
        });
        let stats = Placements::count_tile(&t, &effects(4), MODELS, &policy);
        assert_eq!(stats.cells_visited, 256 * picks, "frillDensity {frill}");
    }
}

/// The per-placement seed is a hash of (MCNK, pick, doodad), not a draw:
/// placements keep their seed when other picks change.
#[test]
fn client_seed_hashes_the_placement_identity() {
    let t = tile(TileCoord::new(10, 10));
    let fx = effects(4);
    let (p, _) = Placements::build_tile(&t, &fx, MODELS, &client());
    let chunk = crate::world::ChunkCoord::from_tile(t.coord, 3, 2);
    let recs = records_of(&t, &fx, &client(), (3, 2));
    let g = p
        .groups
        .iter()
        .find(|g| g.chunk == chunk && g.model == 0)
        .expect("group");
    let first_a = recs.iter().find(|r| r.slot == 0).expect("slot 0 placed");
    let item = p.group_items(g)[0];
    assert_eq!(item.position, first_a.position);
    assert_eq!(
        item.seed,
        client::placement_seed(chunk, first_a.pick, first_a.n)
    );
    let seeds: std::collections::HashSet<u32> = p.items.iter().map(|i| i.seed).collect();
    assert!(seeds.len() as f64 > p.len() as f64 * 0.999);
}

#[test]
fn inspect_rejects_bad_mcnks() {
    let t = tile(TileCoord::new(10, 10));
    let e = inspect_placements(&t, &effects(4), &["A", "B"], &client(), &[(16, 0)])
        .expect_err("out of range");
    assert!(
        e.to_string().contains("MCNK 16,0 is outside the tile"),
        "{e}"
    );
    let all = inspect_placements(&t, &effects(4), &["A", "B"], &per_cell(), &[]).expect("all");
    let (p, _) = Placements::build_tile(&t, &effects(4), MODELS, &per_cell());
    assert_eq!(all.len(), p.len());
}

/// A slot naming a doodad the GroundEffectDoodad table lacks keeps its
/// draws: under the client policy every other slot's placements are exactly
/// those of the table where that slot names a real doodad; the dangling
/// slot places nothing and is counted.
#[test]
fn a_dangling_slot_keeps_its_draws_and_places_nothing() {
    let doodads = lettered_doodads(3);
    let models = MODEL_PATHS;
    let table = |third: u32| {
        let tex = GroundEffectTexture {
            id: GRASS,
            doodads: [11, 12, third, u32::MAX],
            weights: [1, 1, 1, 0],
            density: 6,
            ..Default::default()
        };
        GroundEffects::new(GroundEffectLayout::Classic1121, vec![tex], doodads.clone())
            .expect("tables")
    };
    let dangling = table(99);
    assert_eq!(dangling.dangling_doodads(), vec![(GRASS, 99)]);
    let full = table(13).resolve(&models).expect("resolved");
    let dang = dangling.resolve(&models).expect("a dangling slot resolves");
    let e = dang.get(GRASS).expect("effect");
    assert_eq!(e.dangling, [false, false, true, false]);
    assert_eq!((e.slots[2], e.weights[2]), (None, 1));
    let t = tile(TileCoord::new(10, 10));
    let (a, sa) = Placements::build_tile(&t, &full, 3, &client());
    let (b, sb) = Placements::build_tile(&t, &dang, 3, &client());
    let without_c = |p: &Placements| -> Vec<(u16, Vec<Placement>)> {
        p.groups
            .iter()
            .filter(|g| g.model != 2)
            .map(|g| (g.model, p.items[g.range()].to_vec()))
            .collect()
    };
    assert!(sa.per_model[2] > 0);
    assert_eq!(without_c(&a), without_c(&b));
    assert_eq!(sb.per_model[2], 0);
    assert_eq!(sb.dangling_slots, sa.per_model[2]);
    assert_eq!(sb.empty_slots, sa.empty_slots);
    // Per-cell: the dangling slot is picked by its weight and places nothing.
    let (_, sc) = Placements::build_tile(&t, &dang, 3, &per_cell());
    assert!(sc.dangling_slots > 0 && sc.per_model[2] == 0, "{sc:?}");
}

// ---- client-3.3.5 ----

fn client335() -> Policy {
    Policy::Client335(Client335Params::default())
}

/// A tile of `tile`'s layers and `height`, with every MCNK fully valid (no
/// road, suppression, hole or invalid layer).
fn clean_tile(height: &impl Fn(f64, f64) -> f32) -> AdtTile {
    let mut t = AdtTile::from_height_fn(
        TileCoord::new(10, 10),
        vec!["grass.blp".into()],
        height,
        |_, _| {
            vec![Layer {
                texture_id: 0,
                flags: 0,
                effect_id: GRASS,
                alpha: None,
            }]
        },
    );
    for m in &mut t.mcnks {
        m.header.pred_tex = Default::default();
        m.header.holes_low_res = 0;
        m.header.no_effect_doodad = Default::default();
    }
    t
}

/// The bag as the source deals it, worked by hand: deal `d` writes entry
/// `13 * d mod 16`, slot `k` dealt `weight[k]` times in slot order, then
/// round-robin `d & 3` (empty slots included) until 16 deals.
#[test]
fn client335_bag_deal_follows_the_weights_as_the_source_deals_them() {
    use super::client335::deal_bag;
    let counts = |w: [u32; 4]| {
        let mut c = [0u32; 4];
        deal_bag(w).iter().for_each(|&s| c[s as usize] += 1);
        c
    };
    // Weights filling the bag exactly are its shares.
    assert_eq!(counts([8, 8, 0, 0]), [8, 8, 0, 0]);
    assert_eq!(counts([12, 4, 0, 0]), [12, 4, 0, 0]);
    assert_eq!(counts([4, 4, 4, 4]), [4, 4, 4, 4]);
    // Fewer deals than 16: the rest go round-robin over all four slots, so
    // [1, 1, 0, 0] is the same as no weights at all (4 each, the two empty
    // slots holding half the bag), and [3, 1, 0, 0] gives 6/4/3/3.
    assert_eq!(counts([1, 1, 0, 0]), [4, 4, 4, 4]);
    assert_eq!(counts([0, 0, 0, 0]), [4, 4, 4, 4]);
    assert_eq!(
        deal_bag([3, 1, 0, 0]),
        [0, 1, 2, 3, 0, 1, 2, 1, 0, 1, 0, 3, 0, 0, 2, 3]
    );
    assert_eq!(
        deal_bag([0; 4]),
        [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]
    );
    // Interleaved: deals 0..8 of slot 0 land on entries 0, 13, 10, 7, 4, 1, 14, 11.
    let b = deal_bag([8, 8, 0, 0]);
    for (e, &s) in b.iter().enumerate() {
        assert_eq!(s, u8::from(![0, 13, 10, 7, 4, 1, 14, 11].contains(&e)));
    }
    // More than 16 deals overwrite: the last slot dealt 16 times owns all.
    assert_eq!(counts([20, 0, 0, 0]), [16, 0, 0, 0]);
    assert_eq!(counts([16, 16, 0, 0]), [0, 16, 0, 0]);
    assert_eq!(counts([17, 1, 0, 0]), [15, 1, 0, 0]);
    // A weight negative as the client's int deals nothing.
    assert_eq!(counts([u32::MAX, 0, 0, 0]), [4, 4, 4, 4]);
}

#[test]
fn client335_picks_follow_the_ground_effect_density() {
    let t = clean_tile(&hills);
    let fx = effects(4);
    for (setting, picks) in [
        (0, 16),
        (16, 16),
        (17, 17),
        (100, 100),
        (256, 256),
        (400, 256),
    ] {
        let policy = Policy::Client335(Client335Params {
            ground_effect_density: setting,
        });
        let stats = Placements::count_tile(&t, &fx, MODELS, &policy);
        assert_eq!(
            stats.cells_visited,
            256 * picks,
            "groundEffectDensity {setting}"
        );
        assert_eq!(stats.cells_placed, 256 * picks);
        // Density 4 from bag entries (n + i) & 15 of [0 1 2 3 0 1 2 1 0 1 0
        // 3 0 0 2 3]: slots 0 and 1 hold 10 of the 16 entries.
        assert_eq!(stats.placements + stats.empty_slots, 256 * picks * 4);
    }
    assert_eq!(Client335Params::default().picks(), 16);
}

/// An independent model of the 3.3.5 draw stream for the fixture (slots 0
/// and 1 filled, weights [3, 1, 0, 0], gentle terrain so no triangle is too
/// steep): `(pick, n, row, col, slot, u, v, yaw, scale)` per placement.
#[allow(clippy::type_complexity)]
fn model_stream_335(
    chunk: crate::world::ChunkCoord,
    picks: u32,
    density: u32,
    skip: impl Fn(u32, u32) -> bool,
) -> Vec<(u32, u32, u32, u32, u32, f32, f32, f32, f32)> {
    use super::client_rng::ClientRng;
    const BAG: [u32; 16] = [0, 1, 2, 3, 0, 1, 2, 1, 0, 1, 0, 3, 0, 0, 2, 3];
    let mut r = ClientRng::new((chunk.y << 16) | chunk.x);
    let cells: Vec<(u32, u32)> = (0..picks)
        .map(|_| {
            let col = r.next_u32() & 7;
            let row = r.next_u32() & 7;
            (row, col)
        })
        .collect();
    let mut out = Vec::new();
    for (k, &(row, col)) in cells.iter().enumerate() {
        if skip(row, col) {
            continue;
        }
        for n in 0..density {
            let ja = r.next_signed();
            let jb = r.next_signed();
            let slot = BAG[(n as usize + k) % 16];
            if slot >= 2 {
                continue;
            }
            let yaw = (r.next_signed() + 1.0) * std::f32::consts::PI;
            let scale = r.next_signed() * 0.33 + 1.0;
            out.push((
                k as u32,
                n,
                row,
                col,
                slot,
                (ja + 1.0) / 2.0,
                (jb + 1.0) / 2.0,
                yaw,
                scale,
            ));
        }
    }
    out
}

/// Two passes, bag entry `(n + pick) & 15`, the jitter drawn even for an
/// empty entry, rotation before scale, suppressed cells drawing nothing:
/// the routine equals the model stream draw for draw.
#[test]
fn client335_routine_follows_the_draw_order() {
    let t = tile(TileCoord::new(10, 10));
    for density in [4, 7, 20] {
        let fx = effects(density);
        for picks in [16, 48] {
            let policy = Policy::Client335(Client335Params {
                ground_effect_density: picks,
            });
            for (mcnk, skip_any) in [((0, 0), true), ((3, 2), false)] {
                let chunk = crate::world::ChunkCoord::from_tile(t.coord, mcnk.0, mcnk.1);
                let skip = |row: u32, col: u32| {
                    skip_any
                        && (row <= 1
                            || ((4..6).contains(&row) && (4..6).contains(&col))
                            || (row, col) == (7, 7))
                };
                let want = model_stream_335(chunk, picks, density, skip);
                let got = records_of(&t, &fx, &policy, mcnk);
                assert!(!want.is_empty());
                assert_eq!(
                    got.len(),
                    want.len(),
                    "density {density} picks {picks} {mcnk:?}"
                );
                let m = t.mcnk(mcnk.0, mcnk.1).expect("mcnk");
                for (g, w) in got.iter().zip(&want) {
                    let (pick, n, row, col, slot, u, v, yaw, scale) = *w;
                    assert_eq!((g.pick, g.n, g.cell, g.slot), (pick, n, [col, row], slot));
                    assert_eq!(g.doodad, [11, 12][slot as usize]);
                    assert_eq!((g.yaw, g.scale), (yaw, scale), "bit-exact yaw and scale");
                    assert!((0.0..=std::f32::consts::TAU).contains(&g.yaw));
                    assert!((0.67..=1.33).contains(&g.scale));
                    let (x, y) = m.local_to_world(
                        f64::from(col) + f64::from(u),
                        f64::from(row) + f64::from(v),
                    );
                    assert_eq!(
                        g.position,
                        [x as f32, y as f32, m.height_in_cell(row, col, u, v)]
                    );
                }
            }
        }
    }
}

#[test]
fn client335_skips_steep_triangles_and_places_on_flat_ones() {
    use super::client335::{client_triangle, triangle_normal_z, MIN_NORMAL_Z};
    let fx = effects(8);
    // Flat: nothing is steep, every filled bag entry places.
    let flat = clean_tile(&|_, _| 40.0);
    let (p, s) = Placements::build_tile(&flat, &fx, MODELS, &client335());
    assert_eq!(s.steep_slopes, 0);
    assert!(!p.is_empty());
    assert_eq!(s.placements + s.empty_slots, 256 * 16 * 8);
    // A cliff of 12 yards per cell (unit normal z ~ 0.33): nothing places,
    // and each filled entry is counted steep instead.
    let cliff = clean_tile(&|gx, _| (gx * 12.0) as f32);
    let (p, c) = Placements::build_tile(&cliff, &fx, MODELS, &client335());
    assert!(p.is_empty());
    assert_eq!(c.steep_slopes, s.placements);
    assert_eq!(c.empty_slots, s.empty_slots);
    // A slope of 8 yards per cell (z ~ 0.46) still carries grass.
    let slope = clean_tile(&|gx, _| (gx * 8.0) as f32);
    let (_, sl) = Placements::build_tile(&slope, &fx, MODELS, &client335());
    assert_eq!((sl.steep_slopes, sl.placements), (0, s.placements));
    // Mixed: a slope growing along the rows. Every placement stands on a
    // triangle at least 0.4 up, and some triangles are refused.
    let bowl = |_: f64, gy: f64| {
        let y = gy - 10.0 * 128.0;
        (y * y * 0.1) as f32
    };
    let mixed = clean_tile(&bowl);
    let (p, m) = Placements::build_tile(&mixed, &fx, MODELS, &client335());
    assert!(m.steep_slopes > 0 && m.placements > 0, "{m:?}");
    assert_eq!(m.steep_slopes + m.placements, s.placements);
    let mut world = World::new("T");
    world.insert(Arc::new(mixed)).expect("tile");
    for it in &p.items {
        let (loc, mcnk) = world
            .locate(it.position[0] as f64, it.position[1] as f64)
            .expect("resident");
        let (lx, ly) = mcnk.world_to_local(it.position[0] as f64, it.position[1] as f64);
        let n = mcnk.face_normal_local(lx, ly);
        assert!(n[2] >= MIN_NORMAL_Z - 1e-3, "{n:?} at {loc:?}");
    }
    // The triangle choice and the normal: a plane tilted 12 yards per cell
    // along the columns has z = 1 / sqrt(1 + (12 / 4.1667)^2) in every
    // triangle; the diagonals split the cell into the four fan triangles.
    let m0 = &cliff.mcnks[0];
    let want = 1.0 / (1.0 + (12.0 / crate::world::coords::UNIT_SIZE).powi(2)).sqrt();
    use crate::world::height::FanTriangle::*;
    for tri in [Top, Right, Bottom, Left] {
        let z = triangle_normal_z(m0, 3, 4, tri) as f64;
        assert!((z - want).abs() < 1e-4, "{tri:?} {z} {want}");
    }
    let s = 4.166_666_5_f32;
    assert_eq!(client_triangle(0.3 * s, 0.1 * s), Top);
    assert_eq!(client_triangle(0.9 * s, 0.4 * s), Right);
    assert_eq!(client_triangle(0.6 * s, 0.9 * s), Bottom);
    assert_eq!(client_triangle(0.1 * s, 0.3 * s), Left);
}

#[test]
fn client335_skips_holes_suppressed_and_invalid_cells_and_is_deterministic() {
    let fx = effects(6);
    let policy = Policy::Client335(Client335Params {
        ground_effect_density: 256,
    });
    let w = world(&[(10, 10)]);
    let (p, stats) = Placements::build_world(&w, &fx, MODELS, &policy);
    let chunk0 = crate::world::ChunkCoord::from_tile(TileCoord::new(10, 10), 0, 0);
    let mut in_chunk0 = 0;
    for g in p.groups.iter().filter(|g| g.chunk == chunk0) {
        for it in p.group_items(g) {
            let loc = coords::locate(it.position[0] as f64, it.position[1] as f64).expect("in");
            let (r, c) = (loc.cell.row, loc.cell.col);
            assert!(r > 1, "placed in road/suppressed row {r}");
            assert!(
                !((4..6).contains(&r) && (4..6).contains(&c)),
                "placed in the hole"
            );
            assert!((r, c) != (7, 7), "placed in the invalid-layer cell");
            in_chunk0 += 1;
        }
    }
    assert!(in_chunk0 > 0);
    assert!(
        stats.cells_no_effect_doodad > 0
            && stats.cells_hole > 0
            && stats.cells_invalid_layer > 0
            && stats.cells_no_effect > 0,
        "{stats:?}"
    );
    // Determinism: the same world in another order, and a tile alone.
    let a = Placements::build_world(&world(&[(10, 10), (11, 10)]), &fx, MODELS, &policy);
    let b = Placements::build_world(&world(&[(11, 10), (10, 10)]), &fx, MODELS, &policy);
    assert_eq!(a, b);
    let (alone, _) = Placements::build_tile(&tile(TileCoord::new(10, 10)), &fx, MODELS, &policy);
    assert_eq!(alone, p);
    assert_eq!(
        Placements::count_tile(&tile(TileCoord::new(10, 10)), &fx, MODELS, &policy),
        stats
    );
    // The stream is the MCNK's own: two MCNKs of the same data (a flat
    // tile) but different coordinates place differently; the 1.12 and 3.3.5
    // routines differ on the same MCNK.
    let flat = clean_tile(&|_, _| 40.0);
    let (p, _) = Placements::build_tile(&flat, &fx, MODELS, &policy);
    let rel = |chunk: crate::world::ChunkCoord| -> Vec<[f32; 2]> {
        let m = flat.mcnk(chunk.x % 16, chunk.y % 16).expect("mcnk");
        p.groups
            .iter()
            .filter(|g| g.chunk == chunk)
            .flat_map(|g| p.group_items(g))
            .map(|it| {
                [
                    it.position[0] - m.header.position[0],
                    it.position[1] - m.header.position[1],
                ]
            })
            .collect()
    };
    let c = |x, y| crate::world::ChunkCoord::from_tile(flat.coord, x, y);
    assert_ne!(rel(c(0, 0)), rel(c(1, 0)));
    let (q, _) = Placements::build_tile(&flat, &fx, MODELS, &client());
    assert_ne!(p, q);
}

/// A slot naming a doodad GroundEffectDoodad lacks keeps its draws under
/// client-3.3.5: the other slots' placements are those of the table where
/// it names a real doodad; it places nothing and is counted.
#[test]
fn client335_dangling_slot_keeps_the_stream() {
    let doodads = lettered_doodads(3);
    let models = MODEL_PATHS;
    let table = |third: u32| {
        let tex = GroundEffectTexture {
            id: GRASS,
            doodads: [11, 12, third, 0],
            weights: [5, 3, 4, 0],
            density: 9,
            ..Default::default()
        };
        GroundEffects::new(GroundEffectLayout::Wotlk335, vec![tex], doodads.clone())
            .expect("tables")
    };
    let full = table(13).resolve(&models).expect("resolved");
    let dang = table(99)
        .resolve(&models)
        .expect("a dangling slot resolves");
    assert_eq!(
        dang.get(GRASS).expect("e").dangling,
        [false, false, true, false]
    );
    let t = tile(TileCoord::new(10, 10));
    let (a, sa) = Placements::build_tile(&t, &full, 3, &client335());
    let (b, sb) = Placements::build_tile(&t, &dang, 3, &client335());
    let without_c = |p: &Placements| -> Vec<(u16, Vec<Placement>)> {
        p.groups
            .iter()
            .filter(|g| g.model != 2)
            .map(|g| (g.model, p.items[g.range()].to_vec()))
            .collect()
    };
    assert!(sa.per_model[0] > 0 && sa.per_model[1] > 0 && sa.per_model[2] > 0);
    assert_eq!(without_c(&a), without_c(&b));
    assert_eq!(sb.per_model[2], 0);
    assert_eq!(sb.dangling_slots, sa.per_model[2]);
    assert_eq!(sa.dangling_slots, 0);
    assert_eq!(sb.empty_slots, sa.empty_slots);
    // An effect whose slots are all empty is not skipped: it draws and
    // places nothing (the source skips only a missing record).
    let empty = GroundEffects::new(
        GroundEffectLayout::Wotlk335,
        vec![GroundEffectTexture {
            id: GRASS,
            doodads: [0; 4],
            weights: [1, 0, 0, 0],
            density: 3,
            ..Default::default()
        }],
        doodads.clone(),
    )
    .expect("tables")
    .resolve(&models)
    .expect("resolved");
    let s = Placements::count_tile(&clean_tile(&hills), &empty, 3, &client335());
    assert_eq!((s.placements, s.cells_empty_effect), (0, 0));
    assert_eq!(s.empty_slots, 256 * 16 * 3);
}

/// `Policy::max_scale` bounds every scale a policy can draw: the client
/// routines' signed unit over every mantissa with either sign (the only
/// bits it reads) never exceeds 1, so `s * jitter + 1` never exceeds the
/// bound; `per-cell`'s range draws stay below its upper end.
#[test]
fn max_scale_bounds_every_drawable_scale() {
    use super::client_rng::signed_unit;
    let (client, client335) = (
        Policy::Client(ClientParams::default()),
        Policy::Client335(Client335Params::default()),
    );
    let mut largest = 0.0f32;
    for mantissa in 0..1u32 << 23 {
        for sign in [0, 0x8000_0000] {
            largest = largest.max(signed_unit(mantissa | sign));
        }
    }
    assert_eq!(largest, 1.0);
    assert_eq!(
        client.max_scale(),
        largest * super::client::SCALE_JITTER + 1.0
    );
    assert_eq!(
        client335.max_scale(),
        largest * super::client335::SCALE_JITTER + 1.0
    );
    let per_cell = Policy::PerCell(PerCellParams::default());
    let mut rng = crate::rng::Rng32::new(7);
    let [lo, hi] = super::per_cell::SCALE_RANGE;
    for _ in 0..100_000 {
        assert!(rng.range_f32(lo, hi) <= per_cell.max_scale());
    }
}
