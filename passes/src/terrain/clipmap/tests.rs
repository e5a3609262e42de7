//! Tests of the clipmap tier that need the pieces together: the GPU level
//! sampling against its CPU mirror (compute probe), finest-level parity with
//! `height_at`, the per-level height error, a top-down render of a cliff
//! world with no cracks along any level boundary and holes shown, and an
//! image comparison with `static-chunks` near the camera, and levels updated
//! in place through tile residency changes against a fresh build.
//!
//! Set `SWARD_TEST_IMAGES=DIR` to keep the rendered PNGs.

use crate::testkit::Offscreen;
use glam::Vec3;
use sward_engine::bind::compute_pipeline_auto;
use sward_engine::gpu_or_skip;
use sward_engine::targets::read_buffer;
use sward_engine::testing::probe_buffers;
use sward_engine::{Camera, GpuContext};
use sward_scenes::world::coords::{grid_to_world, world_to_grid};
use sward_scenes::World;
use wgpu::util::DeviceExt;

use super::accuracy::{height_error, height_error_refined};
use super::gpu::{params_bytes, ClipmapParams};
use super::layout::{camera_level0, morph_weight, place_levels, ClipmapConfig, PieceKind};
use super::refine::RefineMask;
use super::source::TerrainSampler;
use super::store::{LevelFilter, LevelStore};
use super::Clipmap;
use crate::frame::{Frame, FrameView, RenderSettings};
use crate::terrain::testutil::cliff_world;
use crate::terrain::StaticChunks;

/// Eye over the middle of MCNK 85 of the cliff world (holes at MCNK 83 are
/// within sight, the cliff 30 cells away).
fn focus(world: &World) -> (f64, f64) {
    let (c, _) = world.mcnks().nth(83).expect("MCNK");
    let [x, y] = c.origin();
    (x - 16.0, y - 16.0)
}

fn store_for(world: &World, cfg: ClipmapConfig, eye: (f64, f64)) -> (LevelStore, ClipmapParams) {
    let cam0 = camera_level0(eye.0, eye.1);
    let mut store = LevelStore::new(cfg);
    store.update(&place_levels(&cfg, cam0), &TerrainSampler::new(world, None));
    (store, ClipmapParams::new(&cfg, cam0))
}

/// Level-0 vertices away from the morph band are the exact reference, and
/// level 0 as drawn is the exact surface (the diagonals reproduce the fan);
/// coarser levels get worse but stay bounded.
#[test]
fn finest_level_is_exact_and_errors_grow_with_level() {
    let world = cliff_world();
    let cfg = ClipmapConfig {
        block: 8,
        levels: 4,
    };
    let eye = focus(&world);
    let (store, params) = store_for(&world, cfg, eye);
    let places = place_levels(&cfg, camera_level0(eye.0, eye.1));
    let o = places[0].origin;
    let f = cfg.footprint();
    let mut checked = 0;
    for j in o[1]..=o[1] + f {
        for i in o[0]..=o[0] + f {
            if morph_weight(&cfg, 0, params.cam(0), i, j) > 0.0 {
                continue;
            }
            let (x, y) = grid_to_world(i as f64 / 2.0, j as f64 / 2.0);
            let exact = world.height_at(x, y).expect("resident");
            assert_eq!(
                store.clip_sample(0, params.cam(0), i, j)[0],
                exact,
                "vertex ({i}, {j})"
            );
            checked += 1;
        }
    }
    assert!(checked > 500);
    let err = height_error(&store, &places, &params, &world, None, 3);
    assert_eq!(err.len(), 4);
    assert!(err.iter().all(|e| e.samples > 1000), "{err:?}");
    // Level 0's only error is its outer morph band, which blends towards
    // level 1: bounded by level 1's error.
    assert!(err[0].rms < err[1].rms, "{err:?}");
    assert!(err[1].max < err[3].max, "{err:?}");
    // Outside its morph band level 0 is the exact surface.
    assert!(err[0].max_unmorphed < 1e-4, "{:?}", err[0]);
    assert!(err[1].max_unmorphed > 1e-3, "{:?}", err[1]);
    // Without the morph band, level 0 is exact everywhere it is drawn.
    let exact_cfg = ClipmapConfig {
        block: 8,
        levels: 1,
    };
    let (s1, p1) = store_for(&world, exact_cfg, eye);
    let e1 = height_error(
        &s1,
        &place_levels(&exact_cfg, camera_level0(eye.0, eye.1)),
        &p1,
        &world,
        None,
        4,
    );
    assert!(e1[0].max < 1e-4, "level 0 alone: {:?}", e1[0]);
}

/// Per-level error over the cliff world for eyes at several distances from
/// the cliff (so every level's own area spans it), block 8, 4 levels: the
/// largest `max_unmorphed` and `rms` over the eyes, per level.
fn cliff_errors(filter: LevelFilter) -> Vec<(f64, f64)> {
    cliff_errors_refined(filter, 0.0)
}

/// [`cliff_errors`] with the tiles whose error exceeds `bound` drawn on the
/// finer lattice (`bound <= 0`: none).
fn cliff_errors_refined(filter: LevelFilter, bound: f64) -> Vec<(f64, f64)> {
    let world = cliff_world();
    let cfg = ClipmapConfig {
        block: 8,
        levels: 4,
    };
    let sampler = TerrainSampler::new(&world, None);
    let (mask, _) = RefineMask::bake(&sampler, &cfg, bound, 4);
    let mut worst = vec![(0.0f64, 0.0f64); cfg.levels as usize];
    for gx in [3872.0, 3886.0, 3894.0, 3899.5, 3905.0, 3914.0, 3930.0] {
        let (x, y) = grid_to_world(gx, 5184.3);
        let cam0 = camera_level0(x, y);
        let places = place_levels(&cfg, cam0);
        let mut store = LevelStore::with_filter(cfg, filter);
        store.update(&places, &sampler);
        let params = ClipmapParams::new(&cfg, cam0);
        let refine = (bound > 0.0).then_some((&mask, &sampler));
        for e in height_error_refined(&store, &places, &params, &world, None, 4, refine) {
            let w = &mut worst[e.level as usize];
            *w = (w.0.max(e.max_unmorphed), w.1.max(e.rms));
        }
    }
    worst
}

/// The prefiltered levels (point sample + binomial average of the
/// interpolation residuals at the finer lattice) are closer to the exact
/// surface than point samples at every coarse level of the cliff world, in
/// max error outside the morph band and in RMS; level 0 stays exact.
#[test]
fn prefiltered_levels_beat_point_samples() {
    let point = cliff_errors(LevelFilter::Point);
    let filtered = cliff_errors(LevelFilter::Residual);
    eprintln!("point    (max unmorphed, rms) per level: {point:?}");
    eprintln!("filtered (max unmorphed, rms) per level: {filtered:?}");
    // Level 0 is exact outside its band (f32 heights of a 70-unit cliff).
    assert!(filtered[0].0 < 1e-3, "level 0 exact: {filtered:?}");
    // Level 0 is not filtered (its RMS differs: its band blends to level 1).
    assert_eq!(point[0].0, filtered[0].0, "level 0 is not filtered");
    for l in 1..point.len() {
        assert!(
            filtered[l].0 < point[l].0,
            "level {l}: max {} vs point {}",
            filtered[l].0,
            point[l].0
        );
        assert!(
            filtered[l].1 < point[l].1,
            "level {l}: rms {} vs point {}",
            filtered[l].1,
            point[l].1
        );
    }
}

/// With the tiles whose error exceeds 2 units drawn on the finer lattice,
/// every level of the cliff world stays within 2 units of the exact
/// surface outside the morph bands (level 3 misses it by far without), and
/// a bound no tile exceeds changes nothing.
#[test]
fn refinement_meets_the_bound_over_the_cliff() {
    let plain = cliff_errors(LevelFilter::Residual);
    let refined = cliff_errors_refined(LevelFilter::Residual, 2.0);
    eprintln!("plain   (max unmorphed, rms) per level: {plain:?}");
    eprintln!("refined (max unmorphed, rms) per level: {refined:?}");
    assert!(plain[3].0 > 4.0, "{plain:?}");
    for (l, (r, p)) in refined.iter().zip(&plain).enumerate() {
        assert!(r.0 <= 2.0, "level {l}: {r:?}");
        assert!(r.1 <= p.1 + 1e-9, "level {l}: rms {r:?} vs {p:?}");
    }
    assert_eq!(cliff_errors_refined(LevelFilter::Residual, 1e6), plain);
}

/// A 1 x 1 refinement index with nothing refined.
fn empty_refine_index(gpu: &GpuContext) -> wgpu::Texture {
    gpu.device.create_texture_with_data(
        &gpu.queue,
        &wgpu::TextureDescriptor {
            label: Some("terrain.clipmap.probe_refine"),
            size: wgpu::Extent3d {
                width: 1,
                height: 1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rg32Uint,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        &[0; 8],
    )
}

/// Runs `probe_clipmap.wgsl` over `inputs` (level, i, j, mode) with the
/// level texture array `levels`, the refinement index `index` and `params`.
fn run_probe(
    gpu: &GpuContext,
    levels: &wgpu::TextureView,
    index: &wgpu::TextureView,
    params: &ClipmapParams,
    inputs: &[[i32; 4]],
) -> Vec<[f32; 4]> {
    let device = &gpu.device;
    let shader = sward_engine::shader::create_shader(device, sward_wgsl::modules::PROBE_CLIPMAP)
        .unwrap_or_else(|e| panic!("{e}"));
    let pipeline = compute_pipeline_auto(device, "terrain.clipmap.probe", &shader, "main");
    let [uniform, input, output] = probe_buffers(
        gpu,
        "terrain.clipmap.probe",
        &params_bytes(params),
        bytemuck::cast_slice(inputs),
        (inputs.len() * 16) as u64,
    );
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("terrain.clipmap.probe"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(levels),
            },
            wgpu::BindGroupEntry {
                binding: 4,
                resource: wgpu::BindingResource::TextureView(index),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: input.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: output.as_entire_binding(),
            },
        ],
    });
    let workgroups = (inputs.len() as u32).div_ceil(64);
    let bytes = sward_engine::testing::run_probe(gpu, &pipeline, &[&bind], workgroups, &output);
    bytemuck::cast_slice(&bytes).to_vec()
}

/// The vertex stage's `clip_sample` (run by the probe) equals the CPU mirror
/// for vertices inside, across and beyond the morph band of every level.
#[test]
fn gpu_level_sampling_matches_cpu() {
    gpu_or_skip!(gpu);
    let device = &gpu.device;
    let world = cliff_world();
    let cfg = ClipmapConfig {
        block: 8,
        levels: 3,
    };
    let eye = focus(&world);
    let (store, params) = store_for(&world, cfg, eye);
    let places = place_levels(&cfg, camera_level0(eye.0, eye.1));
    let n = cfg.texels();
    let levels = device.create_texture_with_data(
        &gpu.queue,
        &wgpu::TextureDescriptor {
            label: Some("terrain.clipmap.probe_levels"),
            size: wgpu::Extent3d {
                width: n,
                height: n,
                depth_or_array_layers: cfg.levels,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba32Float,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        &(0..cfg.levels)
            .flat_map(|l| bytemuck::cast_slice::<_, u8>(&store.level(l).texels).to_vec())
            .collect::<Vec<u8>>(),
    );
    let mut inputs = Vec::new();
    for (l, p) in places.iter().enumerate() {
        for j in (0..=cfg.footprint()).step_by(3) {
            for i in 0..=cfg.footprint() {
                inputs.push([
                    l as i32,
                    (p.origin[0] + i) as i32,
                    (p.origin[1] + j) as i32,
                    0,
                ]);
            }
        }
    }
    let view = levels.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..Default::default()
    });
    let index = empty_refine_index(gpu);
    let out = run_probe(
        gpu,
        &view,
        &index.create_view(&Default::default()),
        &params,
        &inputs,
    );
    let mut morphed = 0;
    for (x, got) in inputs.iter().zip(out) {
        let (l, i, j) = (x[0] as u32, i64::from(x[1]), i64::from(x[2]));
        let want = store.clip_sample(l, params.cam(l), i, j);
        if want != store.texel(l, i, j) {
            morphed += 1;
        }
        for k in 0..4 {
            assert!(
                (got[k] - want[k]).abs() <= 1e-5 * want[k].abs().max(1.0),
                "level {l} vertex ({i}, {j}) component {k}: GPU {} CPU {}",
                got[k],
                want[k]
            );
        }
    }
    assert!(
        morphed > 50,
        "the probe covered the morph bands ({morphed})"
    );
}

const SIZE: [u32; 2] = [256, 160];

fn black_settings(distance: f32) -> RenderSettings {
    RenderSettings {
        fog_color: [0.0; 3],
        fog_range: [1.0e6, 2.0e6],
        terrain_distance: distance,
        ..RenderSettings::default()
    }
}

/// The technique a test renders with.
enum Tech<'t> {
    Clip(&'t mut Clipmap, &'t World),
    /// A clipmap with the far source of a streaming scene.
    Stream(&'t mut Clipmap, &'t World, &'t dyn sward_scenes::TileSource),
    Static(&'t mut StaticChunks),
}

/// Renders `camera` with `tech`, returns RGBA8 pixels and the view.
fn render<'t>(
    gpu: &'t GpuContext,
    camera: Camera,
    settings: RenderSettings,
    name: &str,
    tech: Tech<'t>,
) -> (Vec<u8>, FrameView) {
    let view = FrameView::new(camera, SIZE, 1, 0.0, settings);
    let mut off = Offscreen::for_view(gpu, &view);
    off.frame(gpu, |g, targets| match tech {
        Tech::Clip(c, world) => c.record(Frame::new(gpu, &view, targets), g, world, None),
        Tech::Stream(c, world, far) => {
            c.record(Frame::new(gpu, &view, targets), g, world, Some(far))
        }
        Tech::Static(s) => s.record(Frame::new(gpu, &view, targets), g),
    });
    let image = off.image(gpu);
    crate::testkit::keep(&image, &format!("clipmap-{name}"));
    (image.into_raw(), view)
}

fn px(img: &[u8], x: u32, y: u32) -> [u8; 3] {
    let i = 4 * (y * SIZE[0] + x) as usize;
    [img[i], img[i + 1], img[i + 2]]
}

fn is_black(p: [u8; 3]) -> bool {
    p.iter().map(|&c| u32::from(c)).sum::<u32>() <= 6
}

fn project(view: &FrameView, p: Vec3) -> Option<[u32; 2]> {
    let c = view.view_proj * p.extend(1.0);
    if c.w <= 0.0 {
        return None;
    }
    let x = (c.x / c.w * 0.5 + 0.5) * SIZE[0] as f32;
    let y = (0.5 - c.y / c.w * 0.5) * SIZE[1] as f32;
    (x >= 2.0 && y >= 2.0 && x < SIZE[0] as f32 - 2.0 && y < SIZE[1] as f32 - 2.0)
        .then_some([x as u32, y as u32])
}

/// Checks the rectangle edges of `rects` (`(level, origin, [w, h])` in level
/// units) for background pixels: 8 points per level quad along every edge,
/// at the exact surface height, skipping points within 2.5 units of a hole
/// or off the resident world or the image. Returns the points checked and
/// the background pixels found next to them, as `(index in rects, x, y)`.
fn background_on_edges(
    world: &World,
    view: &FrameView,
    img: &[u8],
    rects: &[(u32, [i64; 2], [i64; 2])],
) -> (usize, Vec<(usize, u32, u32)>) {
    let (mut checked, mut cracks) = (0, Vec::new());
    for (r, &(level, origin, [w, h])) in rects.iter().enumerate() {
        let s = f64::from(1u32 << level) * 0.5;
        for k in 0..=(8 * w.max(h)) {
            let e = k as f64 / 8.0;
            for (i, j) in [(0.0, e), (w as f64, e), (e, 0.0), (e, h as f64)] {
                if i > w as f64 || j > h as f64 {
                    continue;
                }
                let (gx, gy) = ((origin[0] as f64 + i) * s, (origin[1] as f64 + j) * s);
                let (x, y) = grid_to_world(gx, gy);
                let margin = 2.5;
                let near_hole = [
                    (-1.0, -1.0),
                    (1.0, 1.0),
                    (-1.0, 1.0),
                    (1.0, -1.0),
                    (0.0, 0.0),
                ]
                .iter()
                .any(|(dx, dy)| world.is_hole(x + dx * margin, y + dy * margin) != Some(false));
                let Some(z) = world.height_at(x, y) else {
                    continue;
                };
                if near_hole {
                    continue;
                }
                let Some([sx, sy]) = project(view, Vec3::new(x as f32, y as f32, z)) else {
                    continue;
                };
                checked += 1;
                for (ox, oy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    if is_black(px(img, sx + ox - 1, sy + oy - 1)) {
                        cracks.push((r, sx, sy));
                    }
                }
            }
        }
    }
    (checked, cracks)
}

/// Top-down over a cliff world with four levels in view: no background pixel
/// next to any level's outer boundary (no cracks where levels meet), hole
/// cells show the background, and every level draws.
#[test]
fn levels_meet_without_cracks_and_holes_show() {
    gpu_or_skip!(gpu);
    let world = cliff_world();
    let mut clipmap = Clipmap::with_block(gpu, &world, 8).unwrap_or_else(|e| panic!("{e}"));
    let (fx, fy) = focus(&world);
    let ground = world.height_at(fx, fy).expect("resident");
    let camera = Camera {
        eye: Vec3::new(fx as f32, fy as f32, ground + 170.0),
        yaw_deg: 0.0,
        pitch_deg: -90.0,
        fov_y_deg: 60.0,
        near: 0.5,
        far: 2000.0,
    };
    let settings = black_settings(250.0);
    let (img, view) = render(
        gpu,
        camera,
        settings,
        "top-down",
        Tech::Clip(&mut clipmap, &world),
    );
    let stats = clipmap.stats().clone();
    assert_eq!(stats.levels, 4, "{stats:?}");
    let drawn = clipmap.read_drawn(gpu).len();
    // Instances: a block is drawn as sub-blocks, each culled on its own.
    let parts: usize = clipmap
        .listed_pieces()
        .iter()
        .map(|p| super::cull::parts(8, p).len())
        .sum();
    assert!(
        drawn > 0 && drawn < parts,
        "{drawn} of {parts} parts, {stats:?}"
    );
    let cfg = ClipmapConfig {
        block: 8,
        levels: 4,
    };
    let places = place_levels(&cfg, camera_level0(fx, fy));
    let f = cfg.footprint();
    let rects: Vec<_> = places
        .iter()
        .enumerate()
        .take(3)
        .map(|(l, p)| (l as u32, p.origin, [f, f]))
        .collect();
    let (checked, cracks) = background_on_edges(&world, &view, &img, &rects);
    assert!(checked > 300, "boundary points in view: {checked}");
    assert!(
        cracks.is_empty(),
        "{} background pixels on level boundaries, e.g. {:?}",
        cracks.len(),
        &cracks[..cracks.len().min(5)]
    );
    // Holes: centres of hole cells are background.
    let mut holes = 0;
    for (c, m) in world.mcnks() {
        for row in 0..8 {
            for col in 0..8 {
                if !m.header.is_hole(row, col) {
                    continue;
                }
                let [ox, oy] = c.origin();
                let (gx, gy) = world_to_grid(ox, oy);
                let (x, y) = grid_to_world(gx + f64::from(col) + 0.5, gy + f64::from(row) + 0.5);
                let z = world.height_at(x, y).expect("resident");
                if let Some([sx, sy]) = project(&view, Vec3::new(x as f32, y as f32, z)) {
                    assert!(
                        is_black(px(&img, sx, sy)),
                        "hole cell ({row}, {col}) of {c:?} drawn"
                    );
                    holes += 1;
                }
            }
        }
    }
    assert!(holes >= 4, "hole cells in view: {holes}");
}

/// Half-resolution ring blocks next to full-resolution ones (a checkerboard
/// of blocks on levels 1 and 2, forced whatever their error): top-down over
/// the cliff world, no background pixel along any edge of any piece of
/// those levels (stitched edges, hole seams, the coarser level's boundary),
/// fewer triangles than the full-resolution clipmap, and nearly the same
/// picture.
#[test]
fn half_resolution_blocks_meet_their_neighbours_without_cracks() {
    gpu_or_skip!(gpu);
    let world = cliff_world();
    let (fx, fy) = focus(&world);
    let ground = world.height_at(fx, fy).expect("resident");
    let camera = Camera {
        eye: Vec3::new(fx as f32, fy as f32, ground + 120.0),
        yaw_deg: 30.0,
        pitch_deg: -70.0,
        fov_y_deg: 60.0,
        near: 0.5,
        far: 2000.0,
    };
    let settings = black_settings(250.0);
    // Forced half blocks ignore the refinement's veto (a stitched part is
    // never refined), so both sides draw unrefined.
    let mut full = Clipmap::with_block(gpu, &world, 8).unwrap_or_else(|e| panic!("{e}"));
    full.set_pixel_error(0.0);
    full.set_refine(0.0);
    let (img_full, _) = render(
        gpu,
        camera,
        settings,
        "half-full",
        Tech::Clip(&mut full, &world),
    );
    let mut clipmap = Clipmap::with_block(gpu, &world, 8).unwrap_or_else(|e| panic!("{e}"));
    clipmap.set_refine(0.0);
    clipmap.force_half_blocks(|level, off| {
        (1..=2).contains(&level) && (off[0] / 8 + off[1] / 8) % 2 == 0
    });
    let (img, view) = render(
        gpu,
        camera,
        settings,
        "half",
        Tech::Clip(&mut clipmap, &world),
    );
    let listed = clipmap.listed_pieces();
    let half = listed
        .iter()
        .filter(|p| p.kind == PieceKind::Block2)
        .count();
    let stitched = listed.iter().filter(|p| p.stitch != 0).count();
    assert!(
        half >= 8 && stitched >= 8,
        "half blocks {half}, stitched pieces {stitched}"
    );
    // Triangles from the lagged readback: render until it arrives.
    for _ in 0..12 {
        render(
            gpu,
            camera,
            settings,
            "half-more",
            Tech::Clip(&mut clipmap, &world),
        );
        render(
            gpu,
            camera,
            settings,
            "half-full-more",
            Tech::Clip(&mut full, &world),
        );
    }
    let (t_half, t_full) = (clipmap.stats().triangles, full.stats().triangles);
    assert!(t_half < t_full, "half {t_half} vs full {t_full} triangles");
    // Every drawn part's edges, the sub-blocks' inner ones included.
    let pieces: Vec<_> = listed
        .iter()
        .filter(|p| (1..=2).contains(&p.level) && !p.kind.is_seam())
        .flat_map(|p| super::cull::parts(8, p))
        .collect();
    let rects: Vec<_> = pieces
        .iter()
        .map(|p| (p.level, p.origin, p.quads))
        .collect();
    let (checked, cracks) = background_on_edges(&world, &view, &img, &rects);
    let cracks: Vec<_> = cracks
        .into_iter()
        .map(|(r, x, y)| (pieces[r].level, pieces[r].kind, x, y))
        .collect();
    assert!(checked > 1000, "edge points in view: {checked}");
    assert!(
        cracks.is_empty(),
        "{} background pixels on piece edges, e.g. {:?}",
        cracks.len(),
        &cracks[..cracks.len().min(5)]
    );
    let (rmse, differing) =
        sward_engine::targets::rgb_difference(&img, &img_full, 24).expect("one size");
    eprintln!(
        "half vs full: rmse {rmse:.2}, {:.2}% off by more than 24",
        differing * 100.0
    );
    assert!(
        rmse < 8.0 && differing < 0.05,
        "half vs full resolution: rmse {rmse}, {differing}"
    );
}

/// Near the camera the clipmap draws the same picture as `static-chunks`
/// (same surface, normals, splat, light): mean colour difference small.
#[test]
fn matches_static_chunks_near_the_camera() {
    gpu_or_skip!(gpu);
    let world = cliff_world();
    let (fx, fy) = focus(&world);
    let ground = world.height_at(fx, fy).expect("resident");
    let camera = Camera {
        eye: Vec3::new(fx as f32, fy as f32, ground + 6.0),
        yaw_deg: 30.0,
        pitch_deg: -35.0,
        fov_y_deg: 60.0,
        near: 0.25,
        far: 1000.0,
    };
    let settings = RenderSettings {
        fog_color: [0.0; 3],
        terrain_distance: 250.0,
        ..RenderSettings::default()
    };
    let mut clipmap = Clipmap::with_block(gpu, &world, 16).unwrap_or_else(|e| panic!("{e}"));
    let (a, _) = render(
        gpu,
        camera,
        settings,
        "near-clipmap",
        Tech::Clip(&mut clipmap, &world),
    );
    let mut chunks = StaticChunks::new(gpu, &world).unwrap_or_else(|e| panic!("{e}"));
    let (b, _) = render(
        gpu,
        camera,
        settings,
        "near-static",
        Tech::Static(&mut chunks),
    );
    let (mut sum, mut n, mut far_off) = (0u64, 0u64, 0u64);
    // The lower half of the image is the ground near the camera.
    for y in SIZE[1] / 2..SIZE[1] {
        for x in 0..SIZE[0] {
            let (p, q) = (px(&a, x, y), px(&b, x, y));
            let d: u32 = (0..3)
                .map(|k| u32::from(p[k].abs_diff(q[k])))
                .max()
                .unwrap_or(0);
            sum += u64::from(d);
            n += 1;
            far_off += u64::from(d > 24);
        }
    }
    let mean = sum as f64 / n as f64;
    assert!(mean < 3.0, "mean channel difference {mean:.2}");
    assert!(
        (far_off as f64) < 0.02 * n as f64,
        "{far_off} of {n} pixels differ by more than 24"
    );
}

/// The tables `sward clipmap-errors` prints for docs/techniques/clipmap.md:
/// one per named view, every level, level 0 exact outside its band.
#[test]
fn error_tables_cover_every_view_with_an_exact_finest_level() {
    let scene = crate::testkit::preset("seams-holes");
    let tables = super::accuracy::view_error_tables(scene);
    assert_eq!(tables.len(), scene.views.len());
    for t in &tables {
        assert_eq!(t.prefiltered.len(), t.levels as usize, "{}", t.view);
        assert_eq!(t.point.len(), t.levels as usize, "{}", t.view);
        let level0 = &t.prefiltered[0];
        assert!(level0.samples > 0, "{}: level 0 has samples", t.view);
        // Exact up to the f32 rounding of the vertex heights (hundreds of
        // units, ~1e-5 relative); level 1's own error is already ~1e-2.
        assert!(
            level0.max_outside_band < 5e-3,
            "{}: level 0 is the exact surface outside its band ({})",
            t.view,
            level0.max_outside_band
        );
        assert_eq!(t.point[0].max_outside_band, level0.max_outside_band);
    }
    let text = super::accuracy::error_tables_markdown("seams-holes", &tables);
    assert_eq!(
        text.matches("| level | spacing |").count(),
        tables.len(),
        "one table per view"
    );
}

/// Reads every layer of the level texture back: `[level][J mod N][I mod N]`.
fn read_levels(
    gpu: &GpuContext,
    texture: &wgpu::Texture,
    cfg: ClipmapConfig,
) -> Vec<Vec<[f32; 4]>> {
    let n = cfg.texels();
    let row = (n * 16).div_ceil(256) * 256;
    let size = u64::from(row * n * cfg.levels);
    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("levels.readback"),
        size,
        usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    enc.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: Some(n),
            },
        },
        wgpu::Extent3d {
            width: n,
            height: n,
            depth_or_array_layers: cfg.levels,
        },
    );
    gpu.queue.submit([enc.finish()]);
    let bytes =
        read_buffer(&gpu.device, &gpu.queue, &buffer, size).unwrap_or_else(|e| panic!("{e}"));
    (0..cfg.levels)
        .map(|l| {
            (0..n)
                .flat_map(|y| {
                    let at = ((l * n + y) * row) as usize;
                    let texels: &[[f32; 4]] =
                        bytemuck::cast_slice(&bytes[at..at + (n * 16) as usize]);
                    texels.to_vec()
                })
                .collect()
        })
        .collect()
}

/// The compute fill (`clipmap_fill.wgsl`) equals its CPU reference
/// (`fill::FillReference`) at every texel of every level, after the first
/// frame (whole windows) and after the camera moved (incremental strips,
/// levels moving by different amounts); resident level-0 texels are the
/// exact `height_at`; the far grid answers outside the resident world.
#[test]
fn gpu_fill_matches_cpu_reference() {
    gpu_or_skip!(gpu);
    let world = cliff_world();
    let mut clipmap = Clipmap::with_block(gpu, &world, 8).unwrap_or_else(|e| panic!("{e}"));
    clipmap.set_refine(super::refine::BOUND);
    let cfg = ClipmapConfig {
        block: 8,
        levels: 4,
    };
    let (fx, fy) = focus(&world);
    let mut filled = Vec::new();
    for (k, (dx, dy)) in [(0.0, 0.0), (9.3, -4.1), (-30.0, 61.7)]
        .into_iter()
        .enumerate()
    {
        let (x, y) = (fx + dx, fy + dy);
        let ground = world.height_at(x, y).expect("resident");
        let camera = Camera {
            eye: Vec3::new(x as f32, y as f32, ground + 170.0),
            yaw_deg: 0.0,
            pitch_deg: -90.0,
            fov_y_deg: 60.0,
            near: 0.5,
            far: 2000.0,
        };
        render(
            gpu,
            camera,
            black_settings(250.0),
            &format!("fill-{k}"),
            Tech::Clip(&mut clipmap, &world),
        );
        let stats = clipmap.stats();
        assert_eq!(stats.levels, 4);
        filled.push(stats.texels_filled);
        let (texture, far) = clipmap.level_texture().expect("levels");
        let got = read_levels(gpu, texture, cfg);
        let reference = super::fill::FillReference::new(&world, far);
        let places = place_levels(&cfg, camera_level0(x, y));
        let n = i64::from(cfg.texels());
        // The CPU level store the accuracy figures use (f64 prefilter over
        // `TerrainSampler`): the same filter, so resident texels agree.
        let mut store = LevelStore::new(cfg);
        store.update(&places, &TerrainSampler::new(&world, None));
        let mask = clipmap.refine_mask().expect("levels");
        let (mut resident, mut outside, mut same_filter, mut flagged) = (0, 0, 0, 0);
        for (l, place) in places.iter().enumerate() {
            for j in place.origin[1]..place.origin[1] + n {
                for i in place.origin[0]..place.origin[0] + n {
                    // With the flag "the coarser level draws this vertex
                    // refined" in the sign of the normal's z.
                    let want = super::fill::stored_texel(
                        reference.texel(l as u32, i as i32, j as i32),
                        mask,
                        l as u32,
                        i,
                        j,
                    );
                    let g = got[l][(j.rem_euclid(n) * n + i.rem_euclid(n)) as usize];
                    let flag = super::fill::texel_flagged(g);
                    assert_eq!(
                        flag,
                        super::fill::texel_flagged(want),
                        "frame {k} level {l} vertex ({i}, {j}): flag"
                    );
                    flagged += usize::from(flag);
                    for c in 0..4 {
                        assert!(
                            (g[c] - want[c]).abs() <= 2e-5 * want[c].abs().max(1.0),
                            "frame {k} level {l} vertex ({i}, {j}) component {c}: GPU {} CPU {}",
                            g[c],
                            want[c]
                        );
                    }
                    let s = f64::from(1u32 << l) * 0.5;
                    let (wx, wy) = grid_to_world(i as f64 * s, j as f64 * s);
                    let inside = [-2.0, 2.0].iter().all(|d: &f64| {
                        let (ax, ay) = grid_to_world((i as f64 + d) * s, (j as f64 + d) * s);
                        world.height_at(ax, ay).is_some()
                    });
                    if inside {
                        let c = store.texel(l as u32, i, j)[0];
                        assert!(
                            (g[0] - c).abs() <= 1e-4 * c.abs().max(1.0),
                            "level {l} ({i}, {j}): GPU {} vs CPU store {c}",
                            g[0]
                        );
                        same_filter += 1;
                    }
                    match world.height_at(wx, wy) {
                        Some(h) if l == 0 => {
                            // The fill evaluates the fan at the exact local
                            // lattice position; `height_at` goes through f64
                            // world coordinates, which moves the point by
                            // ~1e-6 cells: equal to f32 precision.
                            assert!(
                                (g[0] - h).abs() <= 1e-5 * h.abs().max(1.0),
                                "level 0 ({i}, {j}): {} vs {h}",
                                g[0]
                            );
                            resident += 1;
                        }
                        None => outside += 1,
                        _ => {}
                    }
                }
            }
        }
        assert!(
            resident > 1000,
            "level-0 resident texels checked: {resident}"
        );
        assert!(outside > 200, "texels from the far grid checked: {outside}");
        assert!(
            same_filter > 2000,
            "texels compared with the store: {same_filter}"
        );
        assert!(flagged > 100, "texels under refined tiles: {flagged}");
    }
    let full = 4 * u64::from(cfg.texels() * cfg.texels());
    // The first frame also fills the refinement pool: 8 x 8 texels per
    // refined tile.
    let pool = clipmap
        .refine_mask()
        .map_or(0, |m| m.flagged_count() as u64)
        * 64;
    assert!(pool > 0, "the cliff world refines some tiles");
    assert_eq!(filled[0], full + pool, "first frame fills every texel");
    assert!(
        filled[1] > 0 && filled[1] < full / 4,
        "a small move fills strips: {filled:?}"
    );
}

/// The GPU cull keeps exactly the pieces its CPU reference
/// (`cull::Part::visible`: frustum box test and horizontal fog distance)
/// keeps, for a ground view with a short fog (both tests cull something),
/// skipping pieces within 0.05 units of a decision; every kept piece lands in
/// its own kind's draw.
#[test]
fn gpu_cull_matches_cpu_reference() {
    gpu_or_skip!(gpu);
    let world = cliff_world();
    let mut clipmap = Clipmap::with_block(gpu, &world, 8).unwrap_or_else(|e| panic!("{e}"));
    clipmap.set_refine(super::refine::BOUND);
    let mut single = Clipmap::with_block(gpu, &world, 8).unwrap_or_else(|e| panic!("{e}"));
    single.set_refine(super::refine::BOUND);
    single.use_single_draws();
    let cfg = ClipmapConfig {
        block: 8,
        levels: 4,
    };
    let (fx, fy) = focus(&world);
    let mut listings = Vec::new();
    let mut all_refined = 0;
    // The eye moves between views, so the levels move while their lists
    // of pieces (kept relative to each level's corner) may stay.
    for (k, yaw) in [0.0f32, 70.0, 200.0].into_iter().enumerate() {
        let (ex, ey) = (fx + 9.0 * k as f64, fy - 6.0 * k as f64);
        let ground = world.height_at(ex, ey).expect("resident");
        let camera = Camera {
            eye: Vec3::new(ex as f32, ey as f32, ground + 6.0),
            yaw_deg: yaw,
            pitch_deg: -10.0,
            fov_y_deg: 60.0,
            near: 0.5,
            far: 2000.0,
        };
        let settings = RenderSettings {
            fog_range: [60.0, 160.0],
            ..black_settings(250.0)
        };
        let (img, view) = render(
            gpu,
            camera,
            settings,
            &format!("cull-{k}"),
            Tech::Clip(&mut clipmap, &world),
        );
        // One indirect draw per kind draws the same picture.
        let (img_single, _) = render(
            gpu,
            camera,
            settings,
            &format!("cull-single-{k}"),
            Tech::Clip(&mut single, &world),
        );
        assert!(
            img == img_single,
            "view {k}: multi-draw and single draws differ"
        );
        // The height tiles the cull read: the CPU reduction of the level
        // texels as they are on the GPU, for every level (those the fill did
        // not touch this frame kept theirs).
        let ztiles = clipmap.read_ztiles(gpu).expect("levels");
        let places = place_levels(&cfg, camera_level0(ex, ey));
        let (texture, _) = clipmap.level_texture().expect("levels");
        let texels = read_levels(gpu, texture, cfg);
        let n = i64::from(cfg.texels());
        let origins: Vec<_> = places.iter().map(|p| p.origin).collect();
        let cpu_tiles = super::cull::ZTiles::compute(&cfg, &origins, |l, x, y| {
            texels[l as usize][(y * n + x) as usize][0]
        });
        assert!(ztiles == cpu_tiles, "view {k}: GPU height tiles differ");
        // The heights of every texel of every level.
        let world_z = texels.iter().flatten().fold([f32::MAX, f32::MIN], |r, t| {
            [r[0].min(t[0]), r[1].max(t[0])]
        });
        let drawn = clipmap.read_drawn(gpu);
        // What the technique listed (half-resolution blocks included): the
        // same pieces as the layout's, kind for kind once half blocks count
        // as blocks and edge seams are left out.
        let pieces = clipmap.listed_pieces();
        listings.push((places.clone(), clipmap.listing_version()));
        let mut layout: Vec<_> = (0..cfg.levels)
            .flat_map(|l| super::layout::level_pieces(&cfg, l, &places[l as usize]))
            .map(|p| (p.level, p.origin, p.kind))
            .collect();
        let mut as_full: Vec<_> = pieces
            .iter()
            .filter(|p| !matches!(p.kind, PieceKind::EdgeSeamI | PieceKind::EdgeSeamJ))
            .map(|p| {
                let kind = if p.kind == PieceKind::Block2 {
                    PieceKind::Block
                } else {
                    p.kind
                };
                (p.level, p.origin, kind)
            })
            .collect();
        layout.sort();
        as_full.sort();
        assert_eq!(as_full, layout, "view {k}");
        // Per part (a block is culled and drawn as sub-blocks).
        let parts: Vec<_> = pieces
            .iter()
            .flat_map(|p| super::cull::parts(8, p))
            .collect();
        let mut refined = 0;
        let (mut kept, mut culled_frustum, mut culled_fog) = (0, 0, 0);
        let mut split_kept = 0;
        let mut tighter = 0;
        let mask = clipmap.refine_mask().expect("levels").clone();
        for p in &parts {
            let eye = view.eye();
            // Over refined tiles the part is drawn by its refined kind, its
            // height range grown by their slack.
            let (p, slack) = p.refine(&mask);
            refined += usize::from(p.kind.is_refined());
            let p = &p;
            let z = ztiles.part_range(p);
            let z = [z[0] - slack, z[1] + slack];
            tighter += usize::from(z[1] - z[0] < 0.5 * (world_z[1] - world_z[0]));
            let want = p.visible(z, &view.frustum, eye, 160.0);
            if p.margin(z, &view.frustum, eye, 160.0) < 0.05 {
                continue;
            }
            let key = p.instance();
            let got = drawn
                .iter()
                .filter(|(kind, q)| *kind == p.kind && *q == key)
                .count();
            assert_eq!(got, usize::from(want), "view {k}: {p:?}");
            if want {
                kept += 1;
                split_kept += usize::from(p.quads != p.kind.quads(8));
            } else if p.visible(z, &view.frustum, eye, f32::MAX) {
                culled_fog += 1;
            } else {
                culled_frustum += 1;
            }
        }
        all_refined += refined;
        assert!(
            kept > 0 && culled_frustum > 0 && culled_fog > 0 && split_kept > 0,
            "view {k}: kept {kept} ({split_kept} sub-blocks), frustum {culled_frustum}, fog {culled_fog}"
        );
        assert!(drawn.len() <= parts.len());
        assert!(
            tighter > parts.len() / 2,
            "view {k}: {tighter} of {} parts",
            parts.len()
        );
    }
    assert!(all_refined > 0, "no part over a refined tile");
    // At least one move kept every level's list and only moved the levels.
    assert!(
        listings
            .windows(2)
            .any(|w| w[0].0 != w[1].0 && w[0].1 == w[1].1),
        "no view reused the listing: {:?}",
        listings.iter().map(|l| l.1).collect::<Vec<_>>()
    );
}

/// Streaming: after tiles were evicted and made resident in place, every
/// texel of every level (the kept ones that read a changed tile re-filled
/// by the compute fill) equals what a clipmap built from scratch for the new
/// resident world fills, and the cull's height range is the fresh one.
#[test]
fn levels_after_residency_changes_equal_a_fresh_build() {
    use crate::technique::SceneData;
    use crate::technique::{Residency, ResidencyChange};
    use sward_scenes::world::coords::tile_centre;
    gpu_or_skip!(gpu);
    let mut scene = crate::testkit::continent();
    let reach = SceneData::from_scene(&scene).atlas_reach();
    assert!(reach.is_some(), "continent streams");
    let home = scene.window.centre();
    let [x, y] = tile_centre(home);
    let ground = scene.world().height_at(x, y).expect("resident");
    // Fixed camera over the home tile: the levels do not move, so only the
    // re-fill of changed regions can bring them up to date.
    let camera = Camera {
        eye: Vec3::new(x as f32, y as f32, ground + 300.0),
        yaw_deg: 0.0,
        pitch_deg: -60.0,
        fov_y_deg: 60.0,
        near: 0.5,
        far: 4000.0,
    };
    let settings = black_settings(3000.0);
    let mut clipmap =
        Clipmap::with_reach(gpu, scene.world(), 16, None, reach).unwrap_or_else(|e| panic!("{e}"));
    // With local refinement: the texels carry its flags, which change with
    // the resident world.
    clipmap.set_refine(super::refine::BOUND);
    let far = scene.source.clone();
    render(
        gpu,
        camera,
        settings,
        "stream-before",
        Tech::Stream(&mut clipmap, scene.world(), far.as_ref()),
    );
    let cfg = clipmap.config_for(&FrameView::new(camera, SIZE, 1, 0.0, settings));
    let before = read_levels(gpu, clipmap.level_texture().expect("levels").0, cfg);
    // Out two tiles (evicting and loading), then one back (a tile evicted
    // before becomes resident again).
    for (step, to) in [home.offset(2, 1), home.offset(1, 1)]
        .into_iter()
        .enumerate()
    {
        let to = to.expect("continent is wide");
        let resident = scene.window.tiles();
        let [tx, ty] = tile_centre(to);
        let slide = scene.follow(tx, ty).expect("slide").expect("moved");
        let changes: Vec<_> = resident
            .into_iter()
            .filter(|t| !scene.window.is_resident(*t))
            .map(ResidencyChange::TileEvicted)
            .chain(
                slide
                    .loaded
                    .iter()
                    .map(|t| ResidencyChange::TileResident(*t)),
            )
            .collect();
        let answer = clipmap
            .apply_residency(
                gpu,
                scene.world(),
                reach,
                &changes,
                &mut crate::technique::PreparedTiles::none(),
            )
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            matches!(answer, Residency::Applied { bytes_uploaded } if bytes_uploaded > 0),
            "{answer:?}"
        );
        // The refined tiles are flagged again on a worker thread; the frame
        // after it landed re-fills the texels whose flag changed.
        let flagged_before = clipmap.refine_mask().expect("levels").clone();
        crate::technique::Technique::settle(&mut clipmap, gpu);
        assert_eq!(
            clipmap.facts()["clipmap_refine_rebakes"],
            (step + 1) as f64,
            "one re-bake put in place per change"
        );
        let flagged_after = clipmap.refine_mask().expect("levels");
        assert!(
            !flagged_before.changed_cells(flagged_after).is_empty(),
            "step {step}: the change moves refined tiles"
        );
        render(
            gpu,
            camera,
            settings,
            &format!("stream-{step}"),
            Tech::Stream(&mut clipmap, scene.world(), far.as_ref()),
        );
        let got = read_levels(gpu, clipmap.level_texture().expect("levels").0, cfg);
        let mut fresh = Clipmap::with_reach(gpu, scene.world(), 16, None, reach)
            .unwrap_or_else(|e| panic!("{e}"));
        fresh.set_refine(super::refine::BOUND);
        render(
            gpu,
            camera,
            settings,
            &format!("stream-{step}-fresh"),
            Tech::Stream(&mut fresh, scene.world(), far.as_ref()),
        );
        let want = read_levels(gpu, fresh.level_texture().expect("levels").0, cfg);
        for (l, (g, w)) in got.iter().zip(&want).enumerate() {
            let wrong = g.iter().zip(w).filter(|(a, b)| a != b).count();
            assert_eq!(
                wrong, 0,
                "step {step} level {l}: texels differ from a fresh build"
            );
        }
        let changed: usize = got
            .iter()
            .zip(&before)
            .map(|(g, b)| g.iter().zip(b).filter(|(a, b)| a != b).count())
            .sum();
        assert!(changed > 0, "step {step}: the changes re-filled texels");
    }
}

/// A camera on the cliff world's row `5184.3` (grid cells) at column `from`,
/// `up` units above the ground, looking towards column `to` at `pitch`
/// degrees (the cliff stands at column 3900, its high side beyond).
fn cliff_pose(world: &World, from: f64, to: f64, up: f32, pitch: f32) -> Camera {
    let (ex, ey) = grid_to_world(from, 5184.3);
    let (tx, ty) = grid_to_world(to, 5184.3);
    let ground = world.height_at(ex, ey).expect("resident");
    Camera {
        eye: Vec3::new(ex as f32, ey as f32, ground + up),
        yaw_deg: (ty - ey).atan2(tx - ex).to_degrees() as f32,
        pitch_deg: pitch,
        fov_y_deg: 60.0,
        near: 0.5,
        far: 2000.0,
    }
}

/// Two-phase occlusion (`occlusion=on`) at the foot of the cliff world's
/// 70-unit cliff, looking at it: three frames at one pose (the first has
/// no pyramid yet). Once the pyramid is steady, the parts drawn (both
/// phases) are exactly the parts in view whose boxes the CPU reference
/// finds visible in it ([`super::cull::Part::occluded`] with the read-back
/// height tiles), some are hidden, and every frame's image is the one
/// without occlusion.
#[test]
fn occlusion_draws_the_parts_the_cpu_reference_finds_visible() {
    gpu_or_skip!(gpu);
    let world = cliff_world();
    let mut plain = Clipmap::with_block(gpu, &world, 8).unwrap_or_else(|e| panic!("{e}"));
    let mut occ = Clipmap::build(
        gpu,
        &world,
        8,
        None,
        None,
        super::Occlusion::On,
        Default::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let camera = cliff_pose(&world, 3884.0, 3930.0, 2.0, 4.0);
    let settings = black_settings(250.0);
    let (want, _) = render(
        gpu,
        camera,
        settings,
        "occlusion-off",
        Tech::Clip(&mut plain, &world),
    );
    let mut pyramids = Vec::new();
    let mut last = None;
    for f in 0..3 {
        let (img, view) = render(
            gpu,
            camera,
            settings,
            &format!("occlusion-{f}"),
            Tech::Clip(&mut occ, &world),
        );
        assert!(
            img == want,
            "frame {f}: the image differs from occlusion off"
        );
        let hiz = occ.hiz().expect("occlusion on");
        let (_, size, _) = hiz.shape().expect("pyramid");
        let texture = hiz.texture().expect("pyramid");
        pyramids.push(crate::hiz::read_levels(
            &gpu.device,
            &gpu.queue,
            texture,
            size,
        ));
        last = Some(view);
    }
    let view = last.expect("three frames");
    assert!(pyramids[1] == pyramids[2], "the pyramid is not steady");
    let [rejected, hidden] = occ.read_occluded(gpu);
    assert!(
        hidden > 0 && rejected >= hidden,
        "rejected {rejected}, hidden {hidden}"
    );
    let ztiles = occ.read_ztiles(gpu).expect("levels");
    let drawn = occ.read_drawn(gpu);
    let levels = &pyramids[2];
    let (eye, vp) = (view.eye(), view.view_proj);
    let pixels = view.size;
    let parts: Vec<_> = occ
        .listed_pieces()
        .iter()
        .flat_map(|p| super::cull::parts(8, p))
        .collect();
    let (mut shown, mut occluded, mut skipped) = (0, 0, 0);
    for p in &parts {
        let z = ztiles.part_range(p);
        let distance = settings.fog_range[1];
        if !p.visible(z, &view.frustum, eye, distance) {
            continue;
        }
        let hide = p.occluded(z, levels, pixels, vp);
        // Skip boxes on the test's boundary (another ALU may round the
        // projection the other way): moving them by a thousandth of their
        // distance flips the answer.
        let (min, max) = p.bounds(z);
        let step = 1.0e-3 * ((min + max) * 0.5).distance(eye);
        let unsure = [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X, -Vec3::Y, -Vec3::Z]
            .iter()
            .any(|&m| {
                let d = m * step;
                crate::hiz::box_occluded(levels, pixels, vp, min + d, max + d) != hide
            });
        if unsure || p.margin(z, &view.frustum, eye, distance) < 0.05 {
            skipped += 1;
            continue;
        }
        let key = p.instance();
        let got = drawn
            .iter()
            .filter(|(kind, q)| *kind == p.kind && *q == key)
            .count();
        assert_eq!(
            got,
            usize::from(!hide),
            "{p:?} (hidden by the reference: {hide})"
        );
        if hide {
            occluded += 1;
        } else {
            shown += 1;
        }
    }
    assert!(
        shown > 0 && occluded > 0 && skipped < shown + occluded,
        "shown {shown}, occluded {occluded}, skipped {skipped}"
    );
    // A turn: phase one tests against the pyramid of the pose before, and
    // phase two draws what that pyramid hid wrongly. With the multi-draw and
    // with one indirect draw per kind, the image is the one without
    // occlusion.
    let turned = Camera {
        yaw_deg: camera.yaw_deg + 35.0,
        ..camera
    };
    let mut single = Clipmap::build(
        gpu,
        &world,
        8,
        None,
        None,
        super::Occlusion::On,
        Default::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    single.use_single_draws();
    for f in 0..2 {
        render(
            gpu,
            camera,
            settings,
            &format!("occlusion-single-{f}"),
            Tech::Clip(&mut single, &world),
        );
    }
    let (want, _) = render(
        gpu,
        turned,
        settings,
        "turned-off",
        Tech::Clip(&mut plain, &world),
    );
    for (name, tech) in [("multi", &mut occ), ("single", &mut single)] {
        let (img, _) = render(
            gpu,
            turned,
            settings,
            &format!("turned-{name}"),
            Tech::Clip(tech, &world),
        );
        assert!(
            img == want,
            "{name}: the turned image differs from occlusion off"
        );
        let [_, two] = tech.read_phase_counts(gpu);
        assert!(two > 0, "{name}: phase two drew nothing after the turn");
    }
}

/// `occlusion=auto` over 40 frames at each of two poses of the cliff world:
/// at the foot of the cliff, where the test hides a third of the parts in
/// view, it runs every frame; looking down from the plateau away from the
/// cliff, where terrain hides no terrain, it rests most frames. Every
/// frame's image is the one without occlusion.
#[test]
fn occlusion_auto_rests_where_nothing_is_hidden() {
    gpu_or_skip!(gpu);
    let world = cliff_world();
    let mut plain = Clipmap::with_block(gpu, &world, 8).unwrap_or_else(|e| panic!("{e}"));
    let settings = black_settings(250.0);
    let frames = 40u64;
    let mut ran = Vec::new();
    for (name, camera) in [
        ("cliff", cliff_pose(&world, 3884.0, 3930.0, 2.0, 4.0)),
        ("plateau", cliff_pose(&world, 3920.0, 3960.0, 120.0, -55.0)),
    ] {
        let mut auto = Clipmap::build(
            gpu,
            &world,
            8,
            None,
            None,
            super::Occlusion::Auto,
            Default::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let (want, _) = render(gpu, camera, settings, name, Tech::Clip(&mut plain, &world));
        for f in 0..frames {
            let (img, _) = render(
                gpu,
                camera,
                settings,
                &format!("auto-{name}"),
                Tech::Clip(&mut auto, &world),
            );
            assert!(
                img == want,
                "{name}, frame {f}: the image differs from occlusion off"
            );
        }
        let (r, n) = auto.occlusion_frames().expect("auto has a gate");
        assert_eq!(n, frames, "{name}");
        ran.push(r);
    }
    assert_eq!(ran[0], frames, "at the cliff the test keeps running");
    assert!(
        ran[1] < frames / 2,
        "looking down it rests: ran {} of {frames}",
        ran[1]
    );
}

/// The vertex stage's refinement (run by the probe over the clipmap's own
/// level texture, refinement pool and index after a frame over the cliff)
/// is the CPU model: `clip_refined` at every finer-lattice vertex of the
/// refined tiles inside each level's window, and `clip_sample` (which does
/// not morph where the coarser level is refined) at every vertex of the
/// finer levels' morph bands; within 1e-4 relative (the GPU's texels are
/// the f32 fill, the model's the f64 prefilter), where the prefilter reads
/// resident terrain only.
#[test]
fn gpu_refined_heights_match_the_cpu_model() {
    use super::refine::{morphed, refined_height};
    gpu_or_skip!(gpu);
    let world = cliff_world();
    let (ex, ey) = grid_to_world(3899.5, 5184.3);
    let ground = world.height_at(ex, ey).expect("resident");
    let camera = Camera {
        eye: Vec3::new(ex as f32, ey as f32, ground + 6.0),
        yaw_deg: 0.0,
        pitch_deg: -10.0,
        fov_y_deg: 60.0,
        near: 0.5,
        far: 2000.0,
    };
    let mut clipmap = Clipmap::with_block(gpu, &world, 8).unwrap_or_else(|e| panic!("{e}"));
    clipmap.set_refine(super::refine::BOUND);
    render(
        gpu,
        camera,
        black_settings(250.0),
        "refine-probe",
        Tech::Clip(&mut clipmap, &world),
    );
    let cfg = ClipmapConfig {
        block: 8,
        levels: 4,
    };
    assert_eq!(clipmap.stats().levels, 4);
    let sampler = TerrainSampler::new(&world, None);
    let cam0 = camera_level0(camera.eye.x as f64, camera.eye.y as f64);
    let places = place_levels(&cfg, cam0);
    let mut store = LevelStore::new(cfg);
    store.update(&places, &sampler);
    let mask = clipmap.refine_mask().expect("levels").clone();
    let (index, rects) = clipmap.refine_gpu().expect("levels");
    let mut params = ClipmapParams::new(&cfg, cam0);
    params.refine = rects.map(glam::IVec4::from_array);
    let f = cfg.footprint();
    // Whether the prefilter of `level`'s vertex `(i, j)` reads resident
    // terrain only.
    let resident = |level: u32, i: i64, j: i64| {
        let s = f64::from(1u32 << level) * 0.5;
        [-2.0, 2.0].iter().all(|d: &f64| {
            [-2.0, 2.0].iter().all(|e: &f64| {
                let (x, y) = grid_to_world((i as f64 + d) * s, (j as f64 + e) * s);
                world.height_at(x, y).is_some()
            })
        })
    };
    let mut inputs = Vec::new();
    for l in 1..cfg.levels {
        let o = places[l as usize].origin;
        for fj in 2 * o[1]..=2 * (o[1] + f) {
            for fi in 2 * o[0]..=2 * (o[0] + f) {
                if mask.quad_flagged(l, fi.div_euclid(2), fj.div_euclid(2))
                    && resident(l - 1, fi, fj)
                {
                    inputs.push([l as i32, fi as i32, fj as i32, 1]);
                }
            }
        }
    }
    let refined_inputs = inputs.len();
    for l in 0..cfg.levels - 1 {
        let o = places[l as usize].origin;
        for j in o[1]..=o[1] + f {
            for i in o[0]..=o[0] + f {
                if morph_weight(&cfg, l, params.cam(l), i, j) > 0.0 && resident(l + 1, i / 2, j / 2)
                {
                    inputs.push([l as i32, i as i32, j as i32, 0]);
                }
            }
        }
    }
    assert!(refined_inputs > 500, "refined vertices: {refined_inputs}");
    let view = index.create_view(&Default::default());
    let (levels, _) = clipmap.level_texture().expect("levels");
    let levels = levels.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..Default::default()
    });
    let out = run_probe(gpu, &levels, &view, &params, &inputs);
    let (mut r1, mut still) = (0, 0);
    for (x, got) in inputs.iter().zip(&out) {
        let (l, i, j) = (x[0] as u32, i64::from(x[1]), i64::from(x[2]));
        let cam = params.cam(l);
        let want = if x[3] == 1 {
            r1 += usize::from(mask.weight(l, i, j));
            let finer = sampler.prefiltered_height(l - 1, i, j);
            refined_height(&mask, &store, l, cam, i, j, finer)
        } else {
            still += usize::from(mask.weight(l + 1, i, j));
            morphed(&mask, &store, l, cam, i, j)
        };
        assert!(
            (got[0] - want).abs() <= 1e-4 * want.abs().max(1.0),
            "level {l} vertex ({i}, {j}) mode {}: GPU {} CPU {want}",
            x[3],
            got[0]
        );
    }
    assert!(r1 > 200 && still > 20, "r = 1: {r1}, unmorphed: {still}");
}

/// Top-down over the cliff, where level 3's tiles along the cliff are drawn
/// on the finer lattice: no background pixel along any level boundary or
/// any edge of any refined part, refined parts drawn, and the picture
/// differs from the unrefined one.
#[test]
fn refined_parts_meet_their_neighbours_without_cracks() {
    gpu_or_skip!(gpu);
    let world = cliff_world();
    let (ex, ey) = grid_to_world(3899.5, 5184.3);
    let ground = world.height_at(ex, ey).expect("resident");
    let camera = Camera {
        eye: Vec3::new(ex as f32, ey as f32, ground + 420.0),
        yaw_deg: 0.0,
        pitch_deg: -90.0,
        fov_y_deg: 60.0,
        near: 0.5,
        far: 2000.0,
    };
    let settings = black_settings(250.0);
    let mut clipmap = Clipmap::with_block(gpu, &world, 8).unwrap_or_else(|e| panic!("{e}"));
    clipmap.set_refine(super::refine::BOUND);
    let (img, view) = render(
        gpu,
        camera,
        settings,
        "refined-top-down",
        Tech::Clip(&mut clipmap, &world),
    );
    let mut plain = Clipmap::with_block(gpu, &world, 8).unwrap_or_else(|e| panic!("{e}"));
    plain.set_refine(0.0);
    let (img_plain, _) = render(
        gpu,
        camera,
        settings,
        "refined-top-down-plain",
        Tech::Clip(&mut plain, &world),
    );
    let cfg = ClipmapConfig {
        block: 8,
        levels: 4,
    };
    let places = place_levels(&cfg, camera_level0(ex, ey));
    let f = cfg.footprint();
    let mut rects: Vec<_> = places
        .iter()
        .enumerate()
        .take(3)
        .map(|(l, p)| (l as u32, p.origin, [f, f]))
        .collect();
    let levels = rects.len();
    let refined: Vec<_> = clipmap
        .read_drawn(gpu)
        .into_iter()
        .filter(|(kind, _)| kind.is_refined())
        .map(|(kind, inst)| {
            let q = kind.mesh_quads(8);
            (
                (inst[2] & 0xff) as u32,
                [i64::from(inst[0]), i64::from(inst[1])],
                q,
            )
        })
        .collect();
    assert!(refined.len() >= 4, "refined parts drawn: {}", refined.len());
    rects.extend(&refined);
    let (checked, cracks) = background_on_edges(&world, &view, &img, &rects);
    assert!(checked > 1000, "edge points in view: {checked}");
    assert!(
        cracks.is_empty(),
        "{} background pixels on edges ({levels} level boundaries first), e.g. {:?}",
        cracks.len(),
        &cracks[..cracks.len().min(5)]
    );
    // Refinement changes the picture (the tiles it refines cover the
    // cliff and, at level 3, the waves' crests).
    let differ = img
        .chunks_exact(4)
        .zip(img_plain.chunks_exact(4))
        .filter(|(a, b)| a[..3] != b[..3])
        .count();
    assert!(differ > 100, "refinement changed {differ} pixels");
}

/// The per-level work read back from the cull ([`Clipmap::level_work`])
/// adds up to the draw pass's pipeline statistics of the same frame:
/// triangles to its clipper invocations and distinct mesh vertices to its
/// vertex invocations. Counts of llvmpipe (lavapipe), which shades each
/// vertex of an instance once and clips every triangle it is given; a
/// hardware GPU's vertex cache re-shades some vertices and may cull
/// triangles before the clipper, so the test skips there, saying so.
#[test]
fn level_work_adds_up_to_the_frames_pipeline_statistics() {
    gpu_or_skip!(gpu);
    if !sward_engine::testing::has_capabilities(
        gpu,
        "GPU work counters",
        &[sward_engine::Capability::PipelineStatistics],
    ) || !sward_engine::testing::requires_driver(
        gpu,
        "the clipmap's distinct vertices as vertex invocations",
        &["llvmpipe"],
    ) {
        return;
    }
    let world = cliff_world();
    let mut clipmap = Clipmap::with_block(gpu, &world, 8).unwrap_or_else(|e| panic!("{e}"));
    let (fx, fy) = focus(&world);
    let ground = world.height_at(fx, fy).expect("resident");
    let camera = Camera {
        eye: Vec3::new(fx as f32, fy as f32, ground + 40.0),
        yaw_deg: 30.0,
        pitch_deg: -20.0,
        fov_y_deg: 60.0,
        near: 0.5,
        far: 4000.0,
    };
    let view = FrameView::new(camera, SIZE, 1, 0.0, black_settings(1500.0));
    let mut off = Offscreen::for_view(gpu, &view);
    let mut last = 0;
    for _ in 0..2 {
        last = off
            .frame(gpu, |g, targets| {
                clipmap.record(Frame::new(gpu, &view, targets), g, &world, None)
            })
            .frame;
    }
    let work = off
        .executor()
        .flush(gpu)
        .into_iter()
        .find(|t| t.frame == last)
        .and_then(|t| t.work)
        .expect("the last frame's counters");
    let draw = work
        .iter()
        .find(|w| w.name == super::PASS)
        .expect("the draw pass has counters")
        .stats;
    let levels = clipmap.level_work(gpu);
    assert_eq!(
        levels.len(),
        clipmap.stats().levels as usize,
        "one entry per level: {levels:?}"
    );
    let drawing = levels.iter().filter(|l| l.parts > 0).count();
    assert!(drawing > 1, "more than one level draws: {levels:?}");
    let triangles: u64 = levels.iter().map(|l| l.triangles).sum();
    let vertices: u64 = levels.iter().map(|l| l.vertices).sum();
    assert_eq!(
        triangles, draw.clipper_invocations,
        "levels' triangles against the clipper invocations ({levels:?}, {draw:?})"
    );
    assert_eq!(
        vertices, draw.vs_invocations,
        "levels' distinct vertices against the vertex invocations ({levels:?}, {draw:?})"
    );
}
