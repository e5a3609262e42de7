//! CPU mirror of the `height_atlas` WGSL snippet (same names and argument
//! order), reading a packed 17x9 tile exactly like the shader reads the
//! atlas. It delegates the fan maths to the scenes reference
//! (`sward_scenes::world::height`), so a test that compares this mirror with
//! `Mcnk::height_local` checks the packing, and the GPU probe test checks the
//! WGSL against both.

use sward_scenes::world::height::{fan_interpolate, fan_weights};

use super::layout::{TILE_TEXELS, TILE_W};

/// One unpacked tile: 17x9 relative heights in texel order.
pub type HeightTile = [f32; TILE_TEXELS];

/// Texel index of outer vertex `(row, col)` inside a tile (WGSL `atlas_outer_texel`).
pub fn atlas_outer_texel(row: u32, col: u32) -> usize {
    (row * TILE_W + col) as usize
}

/// Texel index of the centre of cell `(row, col)` (WGSL `atlas_inner_texel`).
pub fn atlas_inner_texel(row: u32, col: u32) -> usize {
    (row * TILE_W + 9 + col) as usize
}

/// The fan interpolation of `[tl, tr, bl, br, centre]` at `(u, v)` (WGSL `fan_height`).
pub fn fan_height(values: [f32; 5], u: f32, v: f32) -> f32 {
    fan_interpolate(values, u, v)
}

/// Cell and in-cell position of local `(lx, ly)`, clamped to the MCNK
/// (WGSL `atlas_split_local`).
pub fn atlas_split_local(lx: f32, ly: f32) -> (u32, u32, f32, f32) {
    let x = if lx.is_finite() {
        lx.clamp(0.0, 8.0)
    } else {
        0.0
    };
    let y = if ly.is_finite() {
        ly.clamp(0.0, 8.0)
    } else {
        0.0
    };
    let col = (x.floor() as u32).min(7);
    let row = (y.floor() as u32).min(7);
    (row, col, x - col as f32, y - row as f32)
}

/// Relative height in cell `(row, col)` at `(u, v)` (WGSL `height_atlas_cell`).
pub fn height_atlas_cell(tile: &HeightTile, row: u32, col: u32, u: f32, v: f32) -> f32 {
    let values = [
        tile[atlas_outer_texel(row, col)],
        tile[atlas_outer_texel(row, col + 1)],
        tile[atlas_outer_texel(row + 1, col)],
        tile[atlas_outer_texel(row + 1, col + 1)],
        tile[atlas_inner_texel(row, col)],
    ];
    fan_height(values, u, v)
}

/// Relative height at local `(lx, ly)` (WGSL `height_atlas_local`).
pub fn height_atlas_local(tile: &HeightTile, lx: f32, ly: f32) -> f32 {
    let (row, col, u, v) = atlas_split_local(lx, ly);
    height_atlas_cell(tile, row, col, u, v)
}

/// Fan-interpolated, normalised normal of a packed RGBA8 snorm tile at local
/// `(lx, ly)` (WGSL `normal_atlas_local`).
pub fn normal_atlas_local(tile: &[u8; TILE_TEXELS * 4], lx: f32, ly: f32) -> [f32; 3] {
    let (row, col, u, v) = atlas_split_local(lx, ly);
    let (_, w) = fan_weights(u, v);
    let texels = [
        atlas_outer_texel(row, col),
        atlas_outer_texel(row, col + 1),
        atlas_outer_texel(row + 1, col),
        atlas_outer_texel(row + 1, col + 1),
        atlas_inner_texel(row, col),
    ];
    let mut n = [0.0f32; 3];
    for (wi, t) in w.iter().zip(texels) {
        for (k, a) in n.iter_mut().enumerate() {
            *a += wi * (tile[t * 4 + k] as i8 as f32 / 127.0).max(-1.0);
        }
    }
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if len > 0.0 {
        n.map(|c| c / len)
    } else {
        [0.0, 0.0, 1.0]
    }
}

/// High part of the map origin (WGSL `ATLAS_ORIGIN_HI`, 2184533 / 128).
pub const ATLAS_ORIGIN_HI: f32 = 17066.664;
/// Low part of the map origin (WGSL `ATLAS_ORIGIN_LO`, 1 / 384).
pub const ATLAS_ORIGIN_LO: f32 = (1.0f64 / 384.0) as f32;
/// High part of half a cell (WGSL `ATLAS_HALF_UNIT_HI`, 267 / 128).
pub const ATLAS_HALF_UNIT_HI: f32 = 2.085_937_5;
/// Low part of half a cell (WGSL `ATLAS_HALF_UNIT_LO`, -1 / 384).
pub const ATLAS_HALF_UNIT_LO: f32 = (-1.0f64 / 384.0) as f32;

/// World `(x, y)` of the lattice point at global half-cell coordinates `h`
/// (WGSL `atlas_lattice_world`): `x = ORIGIN - h[1] * UNIT / 2`,
/// `y = ORIGIN - h[0] * UNIT / 2`, evaluated with split constants.
pub fn atlas_lattice_world(h: [u32; 2]) -> [f32; 2] {
    let g = [h[1] as f32, h[0] as f32];
    g.map(|g| {
        (ATLAS_ORIGIN_HI - g * ATLAS_HALF_UNIT_HI) + (ATLAS_ORIGIN_LO - g * ATLAS_HALF_UNIT_LO)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atlas::layout::{height_tile, normal_tile};
    use crate::terrain::testutil::cliff_world;
    use sward_scenes::rng::Rng32;

    /// The packed tile read through the mirror gives exactly the scenes
    /// reference (same f32 operations), on vertices and random points.
    #[test]
    fn packed_tile_mirror_equals_the_reference() {
        let world = cliff_world();
        let mut rng = Rng32::new(11);
        let mut checked = 0;
        for (_, m) in world.mcnks().step_by(7) {
            let tile = height_tile(m);
            let normals = normal_tile(m);
            let base = m.header.position[2];
            for k in 0..200 {
                let (lx, ly) = if k < 81 {
                    ((k % 9) as f32, (k / 9) as f32)
                } else {
                    (rng.next_f32() * 8.0, rng.next_f32() * 8.0)
                };
                let want = m.height_local(lx as f64, ly as f64) - base;
                let got = height_atlas_local(&tile, lx, ly);
                assert!(
                    (got - want).abs() <= 1e-5 * want.abs().max(1.0),
                    "({lx}, {ly}): {got} vs {want}"
                );
                let nw = m.normal_local(lx as f64, ly as f64);
                let ng = normal_atlas_local(&normals, lx, ly);
                for c in 0..3 {
                    assert!((nw[c] - ng[c]).abs() < 1e-5);
                }
                checked += 1;
            }
        }
        assert!(checked > 5000);
    }

    /// The split constants are what they claim, and every lattice point of
    /// the world lands within one ulp of the exactly rounded f64 value
    /// (almost always exactly on it).
    #[test]
    fn lattice_world_is_exactly_rounded() {
        use sward_scenes::world::coords::{ORIGIN, UNIT_SIZE};
        assert_eq!(ATLAS_ORIGIN_HI as f64, 2_184_533.0 / 128.0);
        assert_eq!(ATLAS_HALF_UNIT_HI as f64, 267.0 / 128.0);
        assert_eq!(ATLAS_ORIGIN_LO, (ORIGIN - 2_184_533.0 / 128.0) as f32);
        assert_eq!(ATLAS_HALF_UNIT_LO, (UNIT_SIZE / 2.0 - 267.0 / 128.0) as f32);
        let mut off = 0;
        for g in 0..=16_384u32 {
            let [x, _] = atlas_lattice_world([0, g]);
            let exact = (ORIGIN - g as f64 * UNIT_SIZE / 2.0) as f32;
            // Within one ulp (near the zero crossing: within 1e-5 units).
            let ulp = (exact.abs() * f32::EPSILON).max(1e-5);
            assert!((x - exact).abs() <= ulp, "g {g}: {x} vs {exact}");
            if x != exact {
                off += 1;
            }
        }
        assert!(off < 200, "{off} of 16385 lattice lines one ulp off");
    }
}
