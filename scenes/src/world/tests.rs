//! Tests of the world model: header bit orientation, holes, and the exact
//! height reference.

use std::sync::Arc;

use super::coords::{self, ChunkCoord, TileCoord, UNIT_SIZE};
use super::height::{cell_indices, fan_weights, FanTriangle};
use super::*;
use crate::rng::{hash_words, unit_f32, Rng32};

/// Height from a hash of the vertex's grid identity (rough, so a wrong
/// vertex or triangle shows), identical for MCNKs sharing an edge.
fn rough(gx: f64, gy: f64) -> f32 {
    let (ix, iy) = (
        (gx * 2.0).round() as i64 as u32,
        (gy * 2.0).round() as i64 as u32,
    );
    40.0 + 30.0 * unit_f32(hash_words(&[ix, iy]))
}

fn world_2x2() -> World {
    let mut w = World::new("Test");
    for (x, y) in [(30, 40), (31, 40), (30, 41), (31, 41)] {
        let tile = AdtTile::from_height_fn(TileCoord::new(x, y), vec![], &rough, |_, _| vec![]);
        w.insert(Arc::new(tile)).expect("valid tile");
    }
    w
}

#[test]
fn pred_tex_and_no_effect_doodad_bit_orientation() {
    // Hand-built header bytes: row 2 u16 = 0b11_10_01_00 << 0 (cols 0..3 = 0,1,2,3),
    // row 7 col 7 = layer 2; noEffectDoodad row 1 bit 6, row 7 bit 0.
    let mut bytes = [0u8; 16];
    bytes[4..6].copy_from_slice(&0b1110_0100u16.to_le_bytes());
    bytes[14..16].copy_from_slice(&(2u16 << 14).to_le_bytes());
    let pred = PredTex::from_bytes(bytes);
    assert_eq!([0, 1, 2, 3].map(|c| pred.layer(2, c)), [0, 1, 2, 3]);
    assert_eq!(pred.layer(7, 7), 2);
    assert_eq!(pred.layer(7, 6), 0);
    assert_eq!(pred.layer(3, 0), 0);
    assert_eq!(pred.to_bytes(), bytes);
    assert_eq!(pred.to_grid()[2][3], 3);

    let ned = NoEffectDoodad([0, 1 << 6, 0, 0, 0, 0, 0, 1]);
    assert!(ned.is_set(1, 6) && ned.is_set(7, 0));
    assert!(!ned.is_set(6, 1) && !ned.is_set(0, 7) && !ned.is_set(1, 5));
    assert_eq!(ned.to_grid().iter().flatten().filter(|&&b| b).count(), 2);
    assert_eq!(ned.to_u64(), (1u64 << (8 + 6)) | (1u64 << 56));

    let mut built = PredTex::default();
    built.set(5, 4, 3);
    built.set(5, 4, 1);
    assert_eq!(built.0[5], 1 << 8);
    let mut n2 = NoEffectDoodad::default();
    n2.set(3, 2, true);
    assert_eq!(n2.0[3], 4);
    n2.set(3, 2, false);
    assert_eq!(n2, NoEffectDoodad::default());
}

#[test]
fn hole_bits_cover_two_by_two_blocks() {
    // Bit 6 = block row 1 (cell rows 2..3), block col 2 (cell cols 4..5).
    let holes = 1u16 << 6;
    for row in 0..8 {
        for col in 0..8 {
            let expect = (2..4).contains(&row) && (4..6).contains(&col);
            assert_eq!(hole_bit(holes, row, col), expect, "cell ({row}, {col})");
        }
    }
    assert_eq!(hole_mask_for_cell(3, 5), holes);
    assert_eq!(hole_mask_for_cell(7, 7), 1 << 15);
}

#[test]
fn height_is_exact_at_every_mcvt_vertex() {
    let w = world_2x2();
    for (chunk, m) in w.mcnks().step_by(37) {
        for i in 0..MCVT_COUNT {
            // The vertex position relative to the stored (f32) MCNK position.
            let (gx, gy) = mcvt_vertex_grid(chunk, i);
            let (lx, ly) = (gx - chunk.x as f64 * 8.0, gy - chunk.y as f64 * 8.0);
            let (x, y) = m.local_to_world(lx, ly);
            let h = w.height_at(x, y).unwrap_or_else(|| {
                panic!(
                    "{chunk:?} vertex {i} at {:?} not resident",
                    coords::world_to_grid(x, y)
                )
            });
            let want = m.header.position[2] + m.heights[i];
            // Bit-exact in local coordinates (the weights are exactly 0 and 1) ...
            assert_eq!(m.height_local(lx, ly), want, "{chunk:?} vertex {i} (local)");
            // ... and exact up to the f32 rounding of stored MCNK positions
            // (~2e-4 units here, times a slope of up to ~15) in world ones.
            assert!(
                (h - want).abs() < 5e-3,
                "{chunk:?} vertex {i}: {h} vs {want}"
            );
        }
    }
}

/// Height of the plane through three 3D points, at (px, py).
fn plane_height(a: [f64; 3], b: [f64; 3], c: [f64; 3], px: f64, py: f64) -> f64 {
    let (e1, e2) = (
        [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
        [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
    );
    let n = [
        e1[1] * e2[2] - e1[2] * e2[1],
        e1[2] * e2[0] - e1[0] * e2[2],
        e1[0] * e2[1] - e1[1] * e2[0],
    ];
    a[2] - (n[0] * (px - a[0]) + n[1] * (py - a[1])) / n[2]
}

#[test]
fn random_points_match_the_containing_triangle_plane() {
    let w = world_2x2();
    let mut rng = Rng32::new(42);
    let mut hits = [0u32; 4];
    for _ in 0..4000 {
        let chunk = ChunkCoord {
            x: 480 + rng.below(32),
            y: 640 + rng.below(32),
        };
        let m = w.mcnk(chunk).expect("resident");
        let (row, col) = (rng.below(8) as usize, rng.below(8) as usize);
        let (u, v) = (rng.next_f32() as f64, rng.next_f32() as f64);
        let idx = cell_indices(row, col);
        let vert = |k: usize, du: f64, dv: f64| {
            let (x, y) = m.local_to_world(col as f64 + du, row as f64 + dv);
            [x, y, (m.header.position[2] + m.heights[idx[k]]) as f64]
        };
        let [tl, tr, bl, br, mid] = [
            vert(0, 0., 0.),
            vert(1, 1., 0.),
            vert(2, 0., 1.),
            vert(3, 1., 1.),
            vert(4, 0.5, 0.5),
        ];
        let (tri, _) = fan_weights(u as f32, v as f32);
        let (a, b) = match tri {
            FanTriangle::Top => (tl, tr),
            FanTriangle::Right => (tr, br),
            FanTriangle::Bottom => (br, bl),
            FanTriangle::Left => (bl, tl),
        };
        hits[tri as usize] += 1;
        let (x, y) = m.local_to_world(col as f64 + u, row as f64 + v);
        let want = plane_height(a, b, mid, x, y);
        let got = w.height_at(x, y).expect("resident") as f64;
        assert!(
            (got - want).abs() < 2e-3,
            "{chunk:?} cell ({row},{col}) uv ({u},{v}) {tri:?}: {got} vs {want}"
        );
    }
    assert!(
        hits.iter().all(|&h| h > 800),
        "every triangle sampled: {hits:?}"
    );
}

#[test]
fn height_is_continuous_across_cell_mcnk_and_adt_borders() {
    let w = world_2x2();
    let eps = 1e-4;
    // The max slope of `rough` is 30 units over half a cell.
    let tol = (30.0 / (UNIT_SIZE * 0.5) * eps * 4.0) as f32 + 1e-3;
    let mut rng = Rng32::new(9);
    // Tiles cover gx 3840..4096 and gy 5120..5376. Offsets 5, 8 and 128 from
    // the corner are a cell border, an MCNK border and the ADT border.
    for offset in [5.0, 8.0, 128.0] {
        for _ in 0..200 {
            let t = rng.next_f32() as f64 * 250.0;
            let pairs = [
                (
                    (3840.0 + offset - eps, 5120.0 + t),
                    (3840.0 + offset + eps, 5120.0 + t),
                ),
                (
                    (3840.0 + t, 5120.0 + offset - eps),
                    (3840.0 + t, 5120.0 + offset + eps),
                ),
            ];
            for (a, b) in pairs {
                let (x0, y0) = coords::grid_to_world(a.0, a.1);
                let (x1, y1) = coords::grid_to_world(b.0, b.1);
                let h0 = w.height_at(x0, y0).unwrap_or(f32::NAN);
                let h1 = w.height_at(x1, y1).unwrap_or(f32::NAN);
                assert!((h0 - h1).abs() < tol, "grid {a:?} vs {b:?}: {h0} vs {h1}");
            }
        }
    }
}

#[test]
fn outside_the_world_or_resident_tiles_is_none() {
    let w = world_2x2();
    let [x, y] = coords::tile_centre(TileCoord::new(30, 40));
    assert!(w.height_at(x, y).is_some());
    let [x, y] = coords::tile_centre(TileCoord::new(29, 40));
    assert_eq!(w.height_at(x, y), None);
    assert_eq!(w.is_hole(x, y), None);
    assert_eq!(w.height_at(coords::ORIGIN + 5.0, 0.0), None);
    assert_eq!(w.height_at(f64::NAN, 0.0), None);
}

#[test]
fn holes_keep_height_and_report_is_hole() {
    let mut w = World::new("Holes");
    let mut tile = AdtTile::from_height_fn(TileCoord::new(10, 10), vec![], &rough, |_, _| vec![]);
    tile.mcnks[17].header.holes_low_res = hole_mask_for_cell(6, 1);
    w.insert(Arc::new(tile)).expect("valid");
    let chunk = ChunkCoord::from_tile(TileCoord::new(10, 10), 1, 1);
    let m = w.mcnk(chunk).expect("resident");
    for (row, col, hole) in [(6, 1, true), (7, 0, true), (6, 2, false), (5, 1, false)] {
        let (x, y) = m.local_to_world(col as f64 + 0.5, row as f64 + 0.5);
        assert_eq!(w.is_hole(x, y), Some(hole), "cell ({row}, {col})");
        assert!(w.height_at(x, y).is_some_and(f32::is_finite));
    }
}

#[test]
fn normals_point_up_and_follow_the_slope() {
    let slope = |gx: f64, _gy: f64| (gx * 0.5) as f32; // rises with gx, i.e. towards -y
    let mut w = World::new("Slope");
    w.insert(Arc::new(AdtTile::from_height_fn(
        TileCoord::new(5, 5),
        vec![],
        &slope,
        |_, _| vec![],
    )))
    .expect("ok");
    let [x, y] = coords::tile_centre(TileCoord::new(5, 5));
    let n = w.normal_at(x, y).expect("resident");
    // Height rises towards -y, so the normal leans towards +y.
    assert!(n[2] > 0.9 && n[1] > 0.05 && n[0].abs() < 0.02, "{n:?}");
    let (_, m) = w.locate(x, y).expect("resident");
    let (lx, ly) = m.world_to_local(x, y);
    let f = m.face_normal_local(lx, ly);
    assert!(
        (f[1] - n[1]).abs() < 0.02 && (f[2] - n[2]).abs() < 0.02,
        "{f:?} vs {n:?}"
    );
}

#[test]
fn world_rejects_bad_tiles_and_duplicates() {
    let mut w = world_2x2();
    let dup = AdtTile::from_height_fn(TileCoord::new(30, 40), vec![], &rough, |_, _| vec![]);
    assert!(matches!(
        w.insert(Arc::new(dup)),
        Err(WorldError::DuplicateTile(_))
    ));
    let mut short = AdtTile::from_height_fn(TileCoord::new(1, 1), vec![], &rough, |_, _| vec![]);
    short.mcnks.pop();
    assert!(matches!(
        w.insert(Arc::new(short)),
        Err(WorldError::InvalidTile { .. })
    ));
    // A bad MCNK is named by its tile and index (the label is formatted
    // only for the failing one).
    let mut bad = AdtTile::from_height_fn(TileCoord::new(2, 3), vec![], &rough, |_, _| vec![]);
    bad.mcnks[37].heights[5] = f32::NAN;
    let err = w.insert(Arc::new(bad)).expect_err("NaN height").to_string();
    assert!(
        err.contains("tile (2, 3) MCNK 37") && err.contains("non-finite"),
        "{err}"
    );
    assert!(w.remove(TileCoord::new(30, 40)).is_some());
    assert_eq!(w.tile_count(), 3);
    let [x, y] = coords::tile_centre(TileCoord::new(31, 41));
    assert!(
        w.height_at(x, y).is_some(),
        "slot of the moved tile still resolves"
    );
}
