//! Terrain splatting data: the MCAL alpha atlas (one 64x64 RGBA8 tile per
//! MCNK, R/G/B = alpha of MCLY layers 1/2/3) and the procedurally drawn layer
//! textures (grass, meadow, dirt/road, rock: tinted tileable value noise) in
//! one sRGB texture array with full mip chains.

use sward_scenes::world::{Mcnk, ALPHA_SIZE, ALPHA_TEXELS, MAX_LAYERS};

/// Side of a layer texture in texels.
pub const LAYER_SIZE: u32 = 256;

/// The kind of ground a layer texture draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerKind {
    /// Short green grass.
    Grass = 0,
    /// Lighter grass with flower specks.
    Meadow = 1,
    /// Dirt road.
    Dirt = 2,
    /// Grey rock.
    Rock = 3,
}

/// Every kind, in texture-array order.
pub const LAYER_KINDS: [LayerKind; 4] = [
    LayerKind::Grass,
    LayerKind::Meadow,
    LayerKind::Dirt,
    LayerKind::Rock,
];

impl LayerKind {
    /// The kind a texture file name suggests (`...Grass...`, `...Dirt...`);
    /// names without a known word fall back to `texture_id % 4`.
    pub fn from_texture(name: &str, texture_id: u32) -> LayerKind {
        let n = name.to_ascii_lowercase();
        let has = |words: &[&str]| words.iter().any(|w| n.contains(w));
        if has(&["rock", "cliff", "stone", "mountain"]) {
            LayerKind::Rock
        } else if has(&["dirt", "road", "path", "mud", "sand"]) {
            LayerKind::Dirt
        } else if has(&["flower", "meadow", "bush", "fern"]) {
            LayerKind::Meadow
        } else if has(&["grass"]) {
            LayerKind::Grass
        } else {
            LAYER_KINDS[(texture_id % 4) as usize]
        }
    }

    /// Base tint (linear RGB) and noise contrast.
    fn tint(self) -> ([f32; 3], f32) {
        match self {
            LayerKind::Grass => ([0.10, 0.24, 0.05], 0.45),
            LayerKind::Meadow => ([0.17, 0.30, 0.07], 0.40),
            LayerKind::Dirt => ([0.30, 0.20, 0.11], 0.35),
            LayerKind::Rock => ([0.26, 0.26, 0.27], 0.55),
        }
    }
}

/// Placement of the MCNK alpha tiles in one 2D atlas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlphaAtlasLayout {
    /// Tiles per atlas row.
    pub cols: u32,
    /// Tile rows.
    pub rows: u32,
}

impl AlphaAtlasLayout {
    /// A near-square layout for `tiles` tiles (at least one).
    pub fn for_tiles(tiles: usize) -> Self {
        let tiles = tiles.max(1) as u32;
        let cols = (tiles as f64).sqrt().ceil() as u32;
        AlphaAtlasLayout {
            cols,
            rows: tiles.div_ceil(cols),
        }
    }

    /// Atlas size in texels.
    pub fn size(&self) -> [u32; 2] {
        [self.cols * ALPHA_SIZE as u32, self.rows * ALPHA_SIZE as u32]
    }

    /// Top-left texel of tile `slot`.
    pub fn tile_texel(&self, slot: u32) -> [u32; 2] {
        [
            (slot % self.cols) * ALPHA_SIZE as u32,
            (slot / self.cols) * ALPHA_SIZE as u32,
        ]
    }

    /// Atlas UV origin of tile `slot` and the UV size of one tile.
    pub fn tile_uv(&self, slot: u32) -> ([f32; 2], f32) {
        let [w, h] = self.size();
        let [x, y] = self.tile_texel(slot);
        debug_assert_eq!(w / self.cols, h / self.rows);
        (
            [x as f32 / w as f32, y as f32 / h as f32],
            ALPHA_SIZE as f32 / w as f32,
        )
    }
}

/// The RGBA8 alpha tile of `m`: texel `(r, c)` at byte `4 * (r * 64 + c)`,
/// channels R/G/B = MCAL alpha of layers 1/2/3 (0 where absent), A = 255.
pub fn alpha_tile(m: &Mcnk) -> Vec<u8> {
    let mut out = vec![0u8; ALPHA_TEXELS * 4];
    for px in out.chunks_exact_mut(4) {
        px[3] = 255;
    }
    for (ch, layer) in m.layers.iter().enumerate().skip(1).take(MAX_LAYERS - 1) {
        if let Some(a) = &layer.alpha {
            for (i, &v) in a.0.iter().enumerate() {
                out[4 * i + ch - 1] = v;
            }
        }
    }
    out
}

fn srgb_encode(l: f32) -> u8 {
    let l = l.clamp(0.0, 1.0);
    let s = if l <= 0.003_130_8 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0).round() as u8
}

fn srgb_decode(s: u8) -> f32 {
    let s = s as f32 / 255.0;
    if s <= 0.040_45 {
        s / 12.92
    } else {
        ((s + 0.055) / 1.055).powf(2.4)
    }
}

fn hash(x: u32, y: u32, seed: u32) -> f32 {
    let mut h =
        x.wrapping_mul(0x8da6_b343) ^ y.wrapping_mul(0xd816_3841) ^ seed.wrapping_mul(0xcb1a_b31f);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2c1b_3c6d);
    h ^= h >> 12;
    (h & 0xffff) as f32 / 65535.0
}

/// Tileable value noise with `period` lattice cells across the texture.
fn value_noise(u: f32, v: f32, period: u32, seed: u32) -> f32 {
    let (x, y) = (u * period as f32, v * period as f32);
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let (sx, sy) = (fx * fx * (3.0 - 2.0 * fx), fy * fy * (3.0 - 2.0 * fy));
    let wrap = |i: f32| (i as i64).rem_euclid(period as i64) as u32;
    let (xa, xb, ya, yb) = (wrap(x0), wrap(x0 + 1.0), wrap(y0), wrap(y0 + 1.0));
    let top = hash(xa, ya, seed) + (hash(xb, ya, seed) - hash(xa, ya, seed)) * sx;
    let bottom = hash(xa, yb, seed) + (hash(xb, yb, seed) - hash(xa, yb, seed)) * sx;
    top + (bottom - top) * sy
}

/// Mip 0 of a layer texture: `size` x `size` sRGB RGBA8, tileable.
pub fn layer_texture(kind: LayerKind, size: u32) -> Vec<u8> {
    let (tint, contrast) = kind.tint();
    let seed = kind as u32 + 1;
    let mut out = Vec::with_capacity((size * size * 4) as usize);
    for y in 0..size {
        for x in 0..size {
            let (u, v) = (x as f32 / size as f32, y as f32 / size as f32);
            let n = 0.5 * value_noise(u, v, 8, seed)
                + 0.3 * value_noise(u, v, 32, seed ^ 0x51)
                + 0.2 * value_noise(u, v, 128, seed ^ 0xa3);
            let mut k = 1.0 + contrast * (n - 0.5) * 2.0;
            let mut rgb = tint.map(|c| c * k);
            // Specks: flowers on the meadow, pebbles on dirt.
            let speck = hash(x, y, seed ^ 0x77);
            if kind == LayerKind::Meadow && speck > 0.985 {
                rgb = [0.75, 0.70, 0.20];
            } else if kind == LayerKind::Dirt && speck > 0.97 {
                k = 1.6;
                rgb = tint.map(|c| c * k);
            }
            out.extend(rgb.map(srgb_encode));
            out.push(255);
        }
    }
    out
}

/// The full mip chain of a square sRGB RGBA8 image (mip 0 first), each level
/// a 2x2 box filter of the previous one in linear space.
pub fn mip_chain(level0: Vec<u8>, size: u32) -> Vec<Vec<u8>> {
    let mut levels = vec![level0];
    let mut s = size;
    while s > 1 {
        let prev = &levels[levels.len() - 1];
        let n = s / 2;
        let mut next = Vec::with_capacity((n * n * 4) as usize);
        for y in 0..n {
            for x in 0..n {
                for ch in 0..4 {
                    let at = |dx: u32, dy: u32| {
                        prev[(((2 * y + dy) * s + 2 * x + dx) * 4 + ch) as usize]
                    };
                    if ch == 3 {
                        let sum: u32 = [at(0, 0), at(1, 0), at(0, 1), at(1, 1)]
                            .iter()
                            .map(|&a| a as u32)
                            .sum();
                        next.push((sum / 4) as u8);
                    } else {
                        let sum: f32 = [at(0, 0), at(1, 0), at(0, 1), at(1, 1)]
                            .into_iter()
                            .map(srgb_decode)
                            .sum();
                        next.push(srgb_encode(sum / 4.0));
                    }
                }
            }
        }
        levels.push(next);
        s = n;
    }
    levels
}

/// Mip levels of a `size` texture (down to 1x1).
pub fn mip_count(size: u32) -> u32 {
    32 - size.max(1).leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sward_scenes::world::{AlphaMap, Layer};

    #[test]
    fn atlas_tiles_do_not_overlap_and_fit() {
        for n in [1usize, 2, 5, 1024, 2304] {
            let l = AlphaAtlasLayout::for_tiles(n);
            assert!((l.cols * l.rows) as usize >= n);
            let [w, h] = l.size();
            let mut seen = std::collections::HashSet::new();
            for s in 0..n as u32 {
                let [x, y] = l.tile_texel(s);
                assert!(x + 64 <= w && y + 64 <= h);
                assert!(seen.insert((x, y)));
                let (uv, scale) = l.tile_uv(s);
                assert_eq!(uv, [x as f32 / w as f32, y as f32 / h as f32]);
                assert_eq!(scale, 64.0 / w as f32);
            }
        }
        assert_eq!(AlphaAtlasLayout::for_tiles(2304).size(), [3072, 3072]);
    }

    #[test]
    fn alpha_tile_packs_layers_in_channels() {
        let mut a1 = AlphaMap::filled(0);
        a1.0[5 * 64 + 9] = 200;
        let layer = |id, alpha| Layer {
            texture_id: id,
            flags: 0,
            effect_id: 0,
            alpha,
        };
        let m = sward_scenes::world::Mcnk {
            layers: vec![
                layer(0, None),
                layer(1, Some(a1)),
                layer(2, Some(AlphaMap::filled(7))),
            ],
            ..crate::terrain::testutil::cliff_world()
                .mcnks()
                .next()
                .expect("MCNK")
                .1
                .clone()
        };
        let t = alpha_tile(&m);
        let i = 4 * (5 * 64 + 9);
        assert_eq!(&t[i..i + 4], &[200, 7, 0, 255]);
        assert_eq!(&t[0..4], &[0, 7, 0, 255]);
    }

    #[test]
    fn layer_textures_tile_differ_and_mip_down_to_one_texel() {
        let size = 64;
        let mut means = Vec::new();
        for kind in LAYER_KINDS {
            let t = layer_texture(kind, size);
            // Tileable: opposite edges are close (value noise is periodic).
            let px = |x: u32, y: u32| t[((y * size + x) * 4) as usize] as i32;
            let step = |a: u32, b: u32| (0..size).map(|y| (px(a, y) - px(b, y)).abs()).sum::<i32>();
            let (wrap, inner) = (step(0, size - 1), step(size / 2 - 1, size / 2));
            assert!(
                wrap <= 2 * inner + 64,
                "{kind:?}: wrap seam {wrap} vs interior {inner}"
            );
            let mips = mip_chain(t, size);
            assert_eq!(mips.len() as u32, mip_count(size));
            assert_eq!(mips.last().map(Vec::len), Some(4));
            means.push(mips[mips.len() - 1].clone());
        }
        for i in 0..means.len() {
            for j in i + 1..means.len() {
                assert_ne!(
                    means[i][..3],
                    means[j][..3],
                    "kinds {i} and {j} look the same"
                );
            }
        }
        assert_eq!(
            LayerKind::from_texture("Tileset\\Elwynn\\ElwynnRockBase.blp", 0),
            LayerKind::Rock
        );
        assert_eq!(
            LayerKind::from_texture("Tileset\\Elwynn\\ElwynnDirtBase.blp", 0),
            LayerKind::Dirt
        );
        assert_eq!(LayerKind::from_texture("x.blp", 5), LayerKind::Meadow);
    }
}
