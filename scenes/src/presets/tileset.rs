//! sward's procedural tileset textures: the layer textures a preset's
//! terrain draws (grass, meadow, dirt/road, rock: tinted tileable value
//! noise, sRGB RGBA8 with full mip chains), chosen by words in the MTEX
//! name. They are what `sward export` writes as the preset's tileset BLPs,
//! so an exported preset read back through `--data` samples the same
//! texels.

use crate::models::{box_mips, DetailTexture};

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
            LayerKind::by_index(texture_id)
        }
    }

    /// The kind of a texture with no name to go by: `texture_id % 4`.
    pub fn by_index(texture_id: u32) -> LayerKind {
        LAYER_KINDS[(texture_id % 4) as usize]
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
    box_mips(level0, size, |ch, t| {
        if ch == 3 {
            let sum: u32 = t.iter().map(|&a| a as u32).sum();
            (sum / 4) as u8
        } else {
            let sum: f32 = t.into_iter().map(srgb_decode).sum();
            srgb_encode(sum / 4.0)
        }
    })
}

/// Mip levels of a `size` texture (down to 1x1).
pub fn mip_count(size: u32) -> u32 {
    32 - size.max(1).leading_zeros()
}

/// The procedural tileset texture of MTEX entry `name` (index
/// `texture_id`): [`layer_texture`] of its [`LayerKind`] with its full mip
/// chain, `LAYER_SIZE` square.
pub fn procedural_tileset(name: &str, texture_id: u32) -> DetailTexture {
    let kind = LayerKind::from_texture(name, texture_id);
    DetailTexture::rgba(
        LAYER_SIZE,
        LAYER_SIZE,
        mip_chain(layer_texture(kind, LAYER_SIZE), LAYER_SIZE),
    )
}
