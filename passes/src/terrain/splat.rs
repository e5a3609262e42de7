//! Terrain splatting data: the MCAL alpha atlas (one 64x64 RGBA8 tile per
//! MCNK, R/G/B = alpha of MCLY layers 1/2/3) and the procedurally drawn layer
//! textures (grass, meadow, dirt/road, rock: tinted tileable value noise) in
//! one sRGB texture array with full mip chains.

pub use sward_scenes::presets::tileset::{
    layer_texture, mip_chain, mip_count, LayerKind, LAYER_KINDS, LAYER_SIZE,
};
use sward_scenes::world::{Mcnk, ALPHA_SIZE, ALPHA_TEXELS, MAX_LAYERS};

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

/// Bytes of a texture with `mips` levels and `layers` layers.
pub fn texture_bytes(size: [u32; 2], mips: u32, layers: u32, texel: u64) -> u64 {
    (0..mips)
        .map(|m| u64::from((size[0] >> m).max(1)) * u64::from((size[1] >> m).max(1)))
        .sum::<u64>()
        * u64::from(layers)
        * texel
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
