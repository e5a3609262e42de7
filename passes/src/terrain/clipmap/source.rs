//! Where clipmap level texels come from: the authoritative resident world
//! (`World::height_at` / `normal_at`, the exact MCVT fan and MCNR), and beyond
//! the resident window the tile source's cheap `coarse_height` (for the
//! procedural presets: the generator itself, which is what MCVT stores at
//! vertices; for data loaded with `--data`: the map's WDL, the far heights
//! the client draws, when the data has one), with a normal from central
//! differences. Where neither answers,
//! the nearest resident edge is extended.

use sward_scenes::world::coords::{grid_to_world, CHUNK_CELLS, UNIT_SIZE};
use sward_scenes::{TileSource, World};

/// Samples `(height, normal.xyz)` at global grid positions.
#[derive(Clone, Copy)]
pub struct TerrainSampler<'a> {
    world: &'a World,
    far: Option<&'a dyn TileSource>,
    /// Resident chunk rectangle in grid cells: `[gx0, gx1, gy0, gy1]`.
    rect: Option<[f64; 4]>,
}

/// Step (cells) of the central differences for distant normals.
const NORMAL_STEP: f64 = 0.25;

impl<'a> TerrainSampler<'a> {
    /// A sampler over `world`, falling back to `far` outside it.
    pub fn new(world: &'a World, far: Option<&'a dyn TileSource>) -> Self {
        let cells = f64::from(CHUNK_CELLS);
        let rect = world.mcnks().fold(None, |r: Option<[f64; 4]>, (c, _)| {
            let (x0, y0) = (f64::from(c.x) * cells, f64::from(c.y) * cells);
            let b = [x0, x0 + cells, y0, y0 + cells];
            Some(match r {
                None => b,
                Some(r) => [
                    r[0].min(b[0]),
                    r[1].max(b[1]),
                    r[2].min(b[2]),
                    r[3].max(b[3]),
                ],
            })
        });
        TerrainSampler { world, far, rect }
    }

    /// The resident world.
    pub fn world(&self) -> &'a World {
        self.world
    }

    /// `(height, nx, ny, nz)` at global grid `(gx, gy)` (cells).
    pub fn sample(&self, gx: f64, gy: f64) -> [f32; 4] {
        let (x, y) = grid_to_world(gx, gy);
        if let (Some(h), Some(n)) = (self.world.height_at(x, y), self.world.normal_at(x, y)) {
            return [h, n[0], n[1], n[2]];
        }
        if let Some(far) = self.far {
            if let Some(h) = far.coarse_height(gx, gy) {
                let n = self.far_normal(far, gx, gy, h);
                return [h, n[0], n[1], n[2]];
            }
        }
        match self.rect {
            Some([x0, x1, y0, y1]) => {
                let eps = 1e-6;
                let (cx, cy) = (gx.clamp(x0, x1 - eps), gy.clamp(y0, y1 - eps));
                let (x, y) = grid_to_world(cx, cy);
                match (self.world.height_at(x, y), self.world.normal_at(x, y)) {
                    (Some(h), Some(n)) => [h, n[0], n[1], n[2]],
                    _ => [0.0, 0.0, 0.0, 1.0],
                }
            }
            None => [0.0, 0.0, 0.0, 1.0],
        }
    }

    /// Height alone at global grid `(gx, gy)`, with the same precedence as
    /// [`Self::sample`] (resident, far source, extended resident edge).
    pub fn height(&self, gx: f64, gy: f64) -> f32 {
        let (x, y) = grid_to_world(gx, gy);
        if let Some(h) = self.world.height_at(x, y) {
            return h;
        }
        if let Some(h) = self.far.and_then(|far| far.coarse_height(gx, gy)) {
            return h;
        }
        self.sample(gx, gy)[0]
    }

    /// Prefiltered `(height, normal.xyz)` of vertex `(i, j)` of clipmap level
    /// `level` (`level` >= 1; level 0 is [`Self::sample`], exact).
    ///
    /// The height is the point sample corrected by the binomial
    /// `[1 2 1] x [1 2 1] / 16` average of the *interpolation residuals* at
    /// the eight finer-lattice points around the vertex (the finer level's
    /// vertices: the four edge midpoints, weight 2/16, and the four quad
    /// diagonal midpoints, weight 1/16): `h = p + K * (f - C(p))`, where
    /// `f` is the authoritative surface there and `C(p)` what this level's
    /// mesh draws there from the point samples (edge midpoint, or the
    /// midpoint of the diagonal the mesh draws: [`super::store::LevelStore::coarse`]).
    /// A plain low-pass (`K * f`) flattens crests and cliff edges and
    /// raises the level's max error; correcting by the residual removes the
    /// chord bias of point sampling instead (a convex crest no longer sits
    /// entirely below the surface). The normal stays the point sample's.
    pub fn prefiltered(&self, level: u32, i: i64, j: i64) -> [f32; 4] {
        let scale = f64::from(1u32 << level) * 0.5; // level units -> cells
        let centre = self.sample(i as f64 * scale, j as f64 * scale);
        if level == 0 {
            return centre;
        }
        let h = self.corrected(level, i, j, centre[0]);
        [h, centre[1], centre[2], centre[3]]
    }

    /// The height of [`Self::prefiltered`] alone (bit for bit; no normal
    /// is sampled).
    pub fn prefiltered_height(&self, level: u32, i: i64, j: i64) -> f32 {
        let scale = f64::from(1u32 << level) * 0.5;
        let centre = self.height(i as f64 * scale, j as f64 * scale);
        if level == 0 {
            return centre;
        }
        self.corrected(level, i, j, centre)
    }

    /// The point sample `centre` of vertex `(i, j)` of `level` corrected by
    /// the residual average of [`Self::prefiltered`].
    fn corrected(&self, level: u32, i: i64, j: i64, centre: f32) -> f32 {
        // Half-steps of the level (the finer lattice), in cells.
        let half = f64::from(1u32 << level) * 0.25;
        let f = |a: i64, b: i64| {
            f64::from(self.height((2 * i + a) as f64 * half, (2 * j + b) as f64 * half))
        };
        let p0 = f64::from(centre);
        // Point samples of the neighbouring level vertices (offsets in level units).
        let p = |di: i64, dj: i64| {
            if di == 0 && dj == 0 {
                p0
            } else {
                f(2 * di, 2 * dj)
            }
        };
        let mut correction = 0.0;
        for (di, dj) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
            let drawn = 0.5 * (p0 + p(di, dj));
            correction += 2.0 * (f(di, dj) - drawn);
        }
        for (di, dj) in [(-1, -1), (1, -1), (-1, 1), (1, 1)] {
            let (qi, qj) = (i + di.min(0), j + dj.min(0));
            let (a, b) = (qi - i, qj - j); // quad min corner relative to (i, j)
            let drawn = if super::mesh::main_diagonal(qi, qj) {
                0.5 * (p(a, b) + p(a + 1, b + 1))
            } else {
                0.5 * (p(a + 1, b) + p(a, b + 1))
            };
            correction += f(di, dj) - drawn;
        }
        (p0 + correction / 16.0) as f32
    }

    /// Normal from central differences of the far source (`h` at the centre
    /// stands in for a missing neighbour).
    fn far_normal(&self, far: &dyn TileSource, gx: f64, gy: f64, h: f32) -> [f32; 3] {
        let e = NORMAL_STEP;
        let at = |x: f64, y: f64| f64::from(far.coarse_height(x, y).unwrap_or(h));
        let hgx = (at(gx + e, gy) - at(gx - e, gy)) / (2.0 * e * UNIT_SIZE);
        let hgy = (at(gx, gy + e) - at(gx, gy - e)) / (2.0 * e * UNIT_SIZE);
        // x = O - gy * unit, y = O - gx * unit: the normal is (hgy, hgx, 1).
        let len = (hgx * hgx + hgy * hgy + 1.0).sqrt();
        [(hgy / len) as f32, (hgx / len) as f32, (1.0 / len) as f32]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sward_scenes::world::coords::world_to_grid;
    use sward_scenes::Preset;

    #[test]
    fn resident_is_exact_and_far_comes_from_the_source() {
        let preset = Preset::by_name("seams-holes").expect("preset");
        let source = preset.source();
        let scene = preset.build().expect("builds");
        let world = scene.world();
        let sampler = TerrainSampler::new(world, Some(&source));
        let (m_chunk, m) = world.mcnks().nth(300).expect("MCNK");
        let (x, y) = m.local_to_world(2.5, 3.25);
        let (gx, gy) = world_to_grid(x, y);
        let s = sampler.sample(gx, gy);
        assert_eq!(Some(s[0]), world.height_at(x, y), "MCNK {m_chunk:?}");
        // The generator agrees with MCVT at a resident vertex (what makes it a
        // valid far source) ...
        let [ox, oy] = m_chunk.origin();
        let (gx, gy) = world_to_grid(ox, oy);
        let far = source.coarse_height(gx + 3.0, gy + 5.0).expect("inside");
        let (vx, vy) = grid_to_world(gx + 3.0, gy + 5.0);
        let exact = world.height_at(vx, vy).expect("resident");
        assert!((far - exact).abs() < 1e-3, "{far} vs {exact}");
        // ... and without a far source the resident edge is extended.
        let alone = TerrainSampler::new(world, None);
        let outside = alone.sample(gx - 4000.0, gy);
        assert!(outside[0].is_finite() && outside[3] > 0.0);
    }

    /// Data loaded from an export carries the WDL written from the world;
    /// the far source the renderer hands the clipmap (`SceneData::far`)
    /// answers its stored values at every WDL grid point outside the
    /// resident world, which are the exact heights rounded to whole units
    /// (|diff| <= 0.5; between grid points the WDL fan adds interpolation
    /// error, which is not bounded here).
    #[test]
    fn far_levels_of_exported_data_sample_its_wdl() {
        use sward_scenes::formats::wdl::{Wdl, INNER, OUTER};
        let preset = Preset::by_name("seams-holes").expect("preset");
        let scene = preset.build().expect("builds");
        let dir = sward_engine::testing::scratch_dir("clipmap", "wdl");
        sward_scenes::formats::export_data_dir(
            &dir,
            scene.world(),
            &scene.effects,
            &scene.models,
            None,
        )
        .expect("export");
        let loaded = sward_scenes::formats::load_scene(&dir, None, *scene.policy()).expect("loads");
        let wdl = loaded.far_heights.clone().expect("the export has a WDL");
        let data = crate::technique::SceneData::from_scene(&loaded);
        // Only one tile resident: the others come from the far source.
        let tiles = scene.world().tiles();
        let mut resident = World::new("partial");
        resident.insert(tiles[0].clone()).expect("insert");
        let sampler = TerrainSampler::new(&resident, data.far);
        let mut checked = 0;
        for t in &tiles[1..] {
            let w = wdl.tile(t.coord).expect("WDL tile");
            let outer = (0..OUTER * OUTER).map(|k| {
                let (r, c) = (k / OUTER, k % OUTER);
                (Wdl::outer_grid(t.coord, r, c), w.outer[r][c])
            });
            let inner = (0..INNER * INNER).map(|k| {
                let (r, c) = (k / INNER, k % INNER);
                (Wdl::inner_grid(t.coord, r, c), w.inner[r][c])
            });
            for ((gx, gy), v) in outer.chain(inner) {
                let (x, y) = grid_to_world(gx, gy);
                if resident.height_at(x, y).is_some() {
                    continue; // shared border: the resident world answers
                }
                let got = sampler.sample(gx, gy);
                assert_eq!(got[0], f32::from(v), "grid ({gx}, {gy})");
                let exact = scene.world().height_at(x, y).expect("exported");
                assert!((got[0] - exact).abs() <= 0.5, "{} vs {exact}", got[0]);
                assert!(got[3] > 0.0, "normal points up");
                checked += 1;
            }
        }
        assert!(checked > 1500, "{checked} grid points checked");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
