//! Procedural terrain: rolling hills with a few cliffs, meandering roads,
//! flower/fern patches and holes, generated tile by tile from a seed (no
//! files), so large worlds can be produced lazily.
//!
//! Layers per MCNK (only those with any coverage are kept, in this order):
//! grass (effect: one of two grass mixes by region), meadow (flowers or ferns
//! by region, alpha-blended patches), road (no effect) and rock (no effect,
//! on steep slopes). predTex holds the dominant layer of each cell (by splat
//! weight at the cell centre); road cells also get their noEffectDoodad bit.

use super::noise::{fbm, smoothstep, value};
use crate::rng::{hash_words, unit_f32};
use crate::world::coords::{ChunkCoord, TileCoord, CHUNK_CELLS};
use crate::world::{hole_mask_for_cell, AdtTile, AlphaMap, Layer, Mcnk, ALPHA_SIZE};

/// Ground effect ids the generator assigns (see `super::effects_table`).
pub mod effect_ids {
    /// Meadow grass mix.
    pub const GRASS_MEADOW: u32 = 101;
    /// Forest-edge grass mix.
    pub const GRASS_FOREST: u32 = 102;
    /// Flowers.
    pub const FLOWERS: u32 = 103;
    /// Ferns and undergrowth.
    pub const FERNS: u32 = 104;
}

/// Texture names of the four layers (MTEX).
pub const TEXTURES: [&str; 4] = [
    "Tileset\\Elwynn\\ElwynnGrassBase.blp",
    "Tileset\\Elwynn\\ElwynnFlowerBase.blp",
    "Tileset\\Elwynn\\ElwynnDirtBase.blp",
    "Tileset\\Elwynn\\ElwynnRockBase.blp",
];

/// Parameters of the generator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TerrainParams {
    /// Seed of every noise field.
    pub seed: u32,
    /// Height of the rolling hills (units).
    pub hill_height: f32,
    /// Height of cliff steps (units; 0 = none).
    pub cliff_height: f32,
    /// Fraction of the area covered by cliff bands (0..1, roughly).
    pub cliff_rate: f32,
    /// Spacing of the road grid in cells (roads in both directions).
    pub road_spacing: f64,
    /// Fraction of MCNKs with a hole block.
    pub hole_rate: f32,
    /// Noise threshold above which meadow patches appear (higher = sparser).
    pub meadow_threshold: f32,
    /// The meadow layer effect in flower regions and fern regions.
    pub meadow_effects: [u32; 2],
}

impl TerrainParams {
    /// Elwynn-like: rolling hills, roads, few cliffs and holes.
    pub fn elwynn(seed: u32) -> Self {
        Self {
            seed,
            hill_height: 38.0,
            cliff_height: 22.0,
            cliff_rate: 0.06,
            road_spacing: 384.0,
            hole_rate: 0.015,
            meadow_threshold: 0.58,
            meadow_effects: [effect_ids::FLOWERS, effect_ids::FERNS],
        }
    }

    /// Seams and holes: more cliffs and holes, sparse flowers only.
    pub fn seams(seed: u32) -> Self {
        Self {
            cliff_height: 30.0,
            cliff_rate: 0.2,
            hole_rate: 0.12,
            meadow_threshold: 0.68,
            meadow_effects: [effect_ids::FLOWERS, effect_ids::FLOWERS],
            ..Self::elwynn(seed)
        }
    }

    /// Absolute height at global grid coordinates (cells).
    pub fn height(&self, gx: f64, gy: f64) -> f32 {
        let hills = fbm(self.seed, gx, gy, 160.0) * self.hill_height;
        let detail = fbm(self.seed ^ 0x51, gx, gy, 20.0) * 3.0;
        let band = value(self.seed ^ 0xc1f, gx / 45.0, gy / 45.0);
        let t = 1.0 - self.cliff_rate;
        let cliff = smoothstep(t, t + 0.02, band) * self.cliff_height;
        20.0 + hills + detail + cliff
    }

    /// Builds tile `coord`.
    pub fn tile(&self, coord: TileCoord) -> AdtTile {
        let textures = TEXTURES.iter().map(|s| (*s).to_owned()).collect();
        let h = |gx: f64, gy: f64| self.height(gx, gy);
        let mut tile = AdtTile::from_height_fn(coord, textures, &h, |_, _| Vec::new());
        for m in &mut tile.mcnks {
            let chunk = m.chunk_coord(coord);
            self.paint(chunk, m);
        }
        tile
    }

    /// Layers, alpha maps, predTex, noEffectDoodad and holes of one MCNK.
    fn paint(&self, chunk: ChunkCoord, m: &mut Mcnk) {
        let cells = CHUNK_CELLS as f64;
        let (gx0, gy0) = (chunk.x as f64 * cells, chunk.y as f64 * cells);
        let region = value(self.seed ^ 0x7e, gx0 / 48.0, gy0 / 48.0);
        let grass = if region < 0.55 {
            effect_ids::GRASS_MEADOW
        } else {
            effect_ids::GRASS_FOREST
        };
        let meadow = self.meadow_effects[usize::from(region >= 0.5)];
        // Coarse 9x9 fields, upsampled per texel.
        let mut meadow9 = [0f32; 81];
        let mut rock9 = [0f32; 81];
        for r in 0..9 {
            for c in 0..9 {
                let n = fbm(self.seed ^ 0xf10, gx0 + c as f64, gy0 + r as f64, 14.0);
                meadow9[r * 9 + c] =
                    smoothstep(self.meadow_threshold, self.meadow_threshold + 0.12, n);
                let nz = m.normals[r * 17 + c][2] as f32 / 127.0;
                rock9[r * 9 + c] = smoothstep(0.84, 0.70, nz);
            }
        }
        let texel = ALPHA_SIZE as f64 / cells;
        let mut meadow_a = AlphaMap::filled(0);
        let mut road_a = AlphaMap::filled(0);
        let mut rock_a = AlphaMap::filled(0);
        let along: [f64; ALPHA_SIZE] = std::array::from_fn(|t| (t as f64 + 0.5) / texel);
        let roads = RoadWobble::new(self, gx0, gy0, &along);
        for (tr, &fr) in along.iter().enumerate() {
            for (tc, &fc) in along.iter().enumerate() {
                let i = tr * ALPHA_SIZE + tc;
                meadow_a.0[i] = to_u8(bilinear(&meadow9, fc, fr));
                rock_a.0[i] = to_u8(bilinear(&rock9, fc, fr));
                let d = roads.distance(self.road_spacing, gx0 + fc, gy0 + fr, tc, tr);
                road_a.0[i] = to_u8(smoothstep(1.9, 1.1, d));
            }
        }
        let mut layers = vec![Layer {
            texture_id: 0,
            flags: 0,
            effect_id: grass,
            alpha: None,
        }];
        for (tex, effect, a) in [(1, meadow, meadow_a), (2, 0, road_a), (3, 0, rock_a)] {
            if a.0.iter().any(|&v| v > 0) {
                layers.push(Layer {
                    texture_id: tex,
                    flags: 0x100,
                    effect_id: effect,
                    alpha: Some(a),
                });
            }
        }
        m.layers = layers;
        let road_layer = m.layers.iter().position(|l| l.texture_id == 2);
        for row in 0..8u32 {
            for col in 0..8u32 {
                let (tr, tc) = (row as usize * 8 + 4, col as usize * 8 + 4);
                let best = (0..m.layers.len())
                    .max_by_key(|&l| (m.layer_weight(l, tr, tc), l))
                    .unwrap_or(0);
                m.header.pred_tex.set(row, col, best as u32);
                let on_road = road_layer.is_some_and(|l| m.layer_weight(l, tr, tc) >= 64);
                m.header.no_effect_doodad.set(row, col, on_road);
            }
        }
        let hole = hash_words(&[self.seed, chunk.x, chunk.y, 0x401e]);
        if unit_f32(hole) < self.hole_rate {
            let bit = hash_words(&[hole, 1]) % 16;
            m.header.holes_low_res = hole_mask_for_cell((bit / 4) * 2, (bit % 4) * 2);
        }
    }
}

/// Road centrelines: a grid of roads every `road_spacing` cells in both
/// directions, each wobbling sideways. The wobble of one MCNK's 64 texel
/// columns and rows is computed once.
struct RoadWobble {
    /// Sideways offset of the along-gx roads at each texel column.
    y_at_col: [f64; ALPHA_SIZE],
    /// Sideways offset of the along-gy roads at each texel row.
    x_at_row: [f64; ALPHA_SIZE],
}

impl RoadWobble {
    fn new(_p: &TerrainParams, gx0: f64, gy0: f64, along: &[f64; ALPHA_SIZE]) -> Self {
        Self {
            y_at_col: along.map(|f| 18.0 * ((gx0 + f) / 70.0).sin()),
            x_at_row: along.map(|f| 14.0 * ((gy0 + f) / 55.0).sin()),
        }
    }

    /// Distance in cells from `(gx, gy)` (texel `(col, row)`) to the nearest
    /// road centreline.
    fn distance(&self, s: f64, gx: f64, gy: f64, col: usize, row: usize) -> f32 {
        let dy = (gy - s * 0.5 - self.y_at_col[col]).rem_euclid(s);
        let dx = (gx - s * 0.37 - self.x_at_row[row]).rem_euclid(s);
        dy.min(s - dy).min(dx.min(s - dx)) as f32
    }
}

fn to_u8(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// Bilinear sample of a 9x9 vertex field at fractional (col, row) in 0..8.
fn bilinear(f: &[f32; 81], c: f64, r: f64) -> f32 {
    let (c0, r0) = ((c.floor() as usize).min(7), (r.floor() as usize).min(7));
    let (fc, fr) = ((c - c0 as f64) as f32, (r - r0 as f64) as f32);
    let at = |r: usize, c: usize| f[r * 9 + c];
    let top = at(r0, c0) + (at(r0, c0 + 1) - at(r0, c0)) * fc;
    let bottom = at(r0 + 1, c0) + (at(r0 + 1, c0 + 1) - at(r0 + 1, c0)) * fc;
    top + (bottom - top) * fr
}
