//! How far the drawn clipmap surface is from the exact MCVT surface: for each
//! level, the surface it draws over its own area (its ring, or all of level 0)
//! is reconstructed on the CPU exactly as the GPU draws it (morphed vertex
//! heights from [`LevelStore::clip_sample`], the meshes' diagonals, linear
//! interpolation) and compared with `World::height_at` at sample points
//! inside each quad. Points in holes, outside the resident world or outside
//! the frustum (when one is given) are skipped.

use sward_engine::Frustum;
use sward_scenes::world::coords::grid_to_world;
use sward_scenes::World;

use super::gpu::ClipmapParams;
use super::layout::{morph_weight, ClipmapConfig, LevelPlacement};
use super::mesh::main_diagonal;
pub use super::mesh::quad_height;
use super::refine::{exact_height, morphed, refined_quad_height, RefineMask};
use super::source::TerrainSampler;
use super::store::LevelStore;

/// Height error of one level.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LevelError {
    /// Level.
    pub level: u32,
    /// Sample points compared.
    pub samples: u64,
    /// Largest |drawn - exact| (world units).
    pub max: f64,
    /// Root mean square of drawn - exact.
    pub rms: f64,
    /// Largest |drawn - exact| over quads outside the geomorph band (all
    /// four corners unmorphed): the level's own interpolation error.
    pub max_unmorphed: f64,
}

/// Max and RMS error per level for the levels `store` holds at `places`,
/// with `sub x sub` sample points per quad.
pub fn height_error(
    store: &LevelStore,
    places: &[LevelPlacement],
    params: &ClipmapParams,
    world: &World,
    frustum: Option<&Frustum>,
    sub: u32,
) -> Vec<LevelError> {
    height_error_refined(store, places, params, world, frustum, sub, None)
}

/// [`height_error`] with the quads of the tiles `refine` flags drawn on the
/// finer lattice ([`super::refine`]; the sampler gives the finer level's
/// texels).
pub fn height_error_refined(
    store: &LevelStore,
    places: &[LevelPlacement],
    params: &ClipmapParams,
    world: &World,
    frustum: Option<&Frustum>,
    sub: u32,
    refine: Option<(&RefineMask, &TerrainSampler)>,
) -> Vec<LevelError> {
    let cfg: ClipmapConfig = *store.config();
    let f = cfg.footprint();
    let sub = sub.max(1);
    let mut out = Vec::new();
    for (l, place) in places.iter().enumerate().take(cfg.levels as usize) {
        let l = l as u32;
        let cam = params.cam(l);
        let scale = f64::from(1u32 << l) * 0.5; // level units -> cells
        let finer = (l > 0).then(|| places[l as usize - 1].origin);
        let (mut n, mut max, mut sq, mut own) = (0u64, 0f64, 0f64, 0f64);
        for qj in place.origin[1]..place.origin[1] + f {
            for qi in place.origin[0]..place.origin[0] + f {
                if let Some(fo) = finer {
                    let (fi, fj) = (2 * qi - fo[0], 2 * qj - fo[1]);
                    if (0..f).contains(&fi) && (0..f).contains(&fj) {
                        continue;
                    }
                }
                let h = [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(di, dj)| match refine {
                    Some((mask, _)) => morphed(mask, store, l, cam, qi + di, qj + dj),
                    None => store.clip_sample(l, cam, qi + di, qj + dj)[0],
                });
                let main = main_diagonal(qi, qj);
                let refined = refine.filter(|(m, _)| l > 0 && m.quad_flagged(l, qi, qj));
                let morphed = [(0, 0), (1, 0), (0, 1), (1, 1)]
                    .iter()
                    .any(|(di, dj)| morph_weight(&cfg, l, cam, qi + di, qj + dj) > 0.0);
                for sj in 0..sub {
                    for si in 0..sub {
                        let u = (f64::from(si) + 0.5) / f64::from(sub);
                        let v = (f64::from(sj) + 0.5) / f64::from(sub);
                        let (gx, gy) = ((qi as f64 + u) * scale, (qj as f64 + v) * scale);
                        let Some(exact) = exact_height(world, gx, gy) else {
                            continue;
                        };
                        let (x, y) = grid_to_world(gx, gy);
                        let drawn = match refined {
                            Some((mask, sampler)) => {
                                refined_quad_height(mask, store, sampler, l, cam, (qi, qj), (u, v))
                            }
                            None => quad_height(h, main, u, v),
                        };
                        if let Some(fr) = frustum {
                            let p = glam::Vec3::new(x as f32, y as f32, drawn as f32);
                            if !fr.sphere_visible(p, 0.0) {
                                continue;
                            }
                        }
                        let e = drawn - exact;
                        n += 1;
                        max = max.max(e.abs());
                        if !morphed {
                            own = own.max(e.abs());
                        }
                        sq += e * e;
                    }
                }
            }
        }
        out.push(LevelError {
            level: l,
            samples: n,
            max,
            rms: if n > 0 { (sq / n as f64).sqrt() } else { 0.0 },
            max_unmorphed: own,
        });
    }
    out
}

/// The per-level error table of one named view of a scene.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ViewErrors {
    /// The view's name.
    pub view: String,
    /// Levels in use (for the view distance).
    pub levels: u32,
    /// Block size `t`.
    pub block: u32,
    /// Per level, with prefiltered levels and the tiles over the 2-unit
    /// refinement bound drawn on the finer lattice (what the tier draws by
    /// default, `clipmap:refine=2`).
    pub refined: Vec<LevelErrorRow>,
    /// Per level, with prefiltered levels and no refinement
    /// (`clipmap:refine=0`).
    pub prefiltered: Vec<LevelErrorRow>,
    /// Per level, with point-sampled levels (for comparison).
    pub point: Vec<LevelErrorRow>,
}

/// [`LevelError`] with the level's spacing, for printing and JSON.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LevelErrorRow {
    /// Level.
    pub level: u32,
    /// Vertex spacing in world units.
    pub spacing: f64,
    /// Sample points compared.
    pub samples: u64,
    /// Largest |drawn - exact| (world units).
    pub max: f64,
    /// Root mean square of drawn - exact.
    pub rms: f64,
    /// Largest error outside the geomorph band.
    pub max_outside_band: f64,
}

impl From<LevelError> for LevelErrorRow {
    fn from(e: LevelError) -> Self {
        LevelErrorRow {
            level: e.level,
            spacing: super::layout::level_spacing(e.level),
            samples: e.samples,
            max: e.max,
            rms: e.rms,
            max_outside_band: e.max_unmorphed,
        }
    }
}

/// The error tables of the default clipmap (block 32, levels for the
/// default 1000-unit view distance) at every named view of `scene`, with
/// 4 x 4 sample points per quad inside a 960x540 frustum: what
/// `sward clipmap-errors` prints and docs/techniques/clipmap.md tabulates.
pub fn view_error_tables(scene: &sward_scenes::Scene) -> Vec<ViewErrors> {
    use super::layout::{camera_level0, place_levels, DEFAULT_BLOCK};
    use super::store::LevelFilter;
    let settings = crate::frame::RenderSettings::default();
    let cfg = ClipmapConfig::for_distance(DEFAULT_BLOCK, settings.terrain_distance);
    let sampler = TerrainSampler::new(scene.world(), Some(scene.source.as_ref()));
    let (mask, _) = RefineMask::bake(&sampler, &cfg, super::refine::BOUND, 4);
    scene
        .views
        .iter()
        .map(|pose| {
            let camera = crate::frame::camera_from_pose(pose, &settings);
            let view = crate::frame::FrameView::new(camera, [960, 540], 1, 0.0, settings);
            let cam0 = camera_level0(f64::from(pose.eye[0]), f64::from(pose.eye[1]));
            let places = place_levels(&cfg, cam0);
            let params = ClipmapParams::new(&cfg, cam0);
            let errors = |filter, refine: bool| -> Vec<LevelErrorRow> {
                let mut store = LevelStore::with_filter(cfg, filter);
                store.update(&places, &sampler);
                height_error_refined(
                    &store,
                    &places,
                    &params,
                    scene.world(),
                    Some(&view.frustum),
                    4,
                    refine.then_some((&mask, &sampler)),
                )
                .into_iter()
                .map(LevelErrorRow::from)
                .collect()
            };
            ViewErrors {
                view: pose.name.clone(),
                levels: cfg.levels,
                block: cfg.block,
                refined: errors(LevelFilter::Residual, true),
                prefiltered: errors(LevelFilter::Residual, false),
                point: errors(LevelFilter::Point, false),
            }
        })
        .collect()
}

/// `tables` as markdown, one table per view (prefiltered and refined as
/// the tier's default `clipmap:refine=2` draws them; the max outside the
/// band without refinement and with point samples in brackets), as the
/// docs show them.
pub fn error_tables_markdown(scene: &str, tables: &[ViewErrors]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    for t in tables {
        let _ = writeln!(
            s,
            "`{scene}`, view `{}` ({} levels, block {}):\n",
            t.view, t.levels, t.block
        );
        s.push_str(
            "| level | spacing | samples | max error | RMS error | max outside the morph band (unrefined; point samples) |\n",
        );
        s.push_str("|---|---|---|---|---|---|\n");
        for ((e, u), p) in t.refined.iter().zip(&t.prefiltered).zip(&t.point) {
            let _ = writeln!(
                s,
                "| {} | {:.3} | {} | {:.4} | {:.4} | {:.4} ({:.4}; {:.4}) |",
                e.level,
                e.spacing,
                e.samples,
                e.max,
                e.rms,
                e.max_outside_band,
                u.max_outside_band,
                p.max_outside_band
            );
        }
        s.push('\n');
    }
    s
}
