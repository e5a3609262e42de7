//! GPU image tests of `static-chunks`: top-down views rendered with a black
//! clear colour and no fog, checked along the projected MCNK/ADT seam lines
//! (no background pixels = no cracks) and inside projected hole cells
//! (background = holes honoured); MSAA 4 agrees with MSAA 1; counters.
//!
//! Set `SWARD_TEST_IMAGES=DIR` to keep the rendered PNGs.

use crate::testkit::Offscreen;
use glam::{Mat4, Vec3};
use sward_engine::gpu_or_skip;
use sward_engine::graph::FrameReport;
use sward_engine::{Camera, GpuContext};
use sward_scenes::world::coords::{grid_to_world, world_to_grid, TileCoord, CHUNK_CELLS};
use sward_scenes::{Preset, TileSource, World};

use super::gpu::TerrainUniforms;
use super::testutil::{cliff_world, CLIFF_TILE};
use super::{StaticChunks, PASS_DRAW};
use crate::frame::{Frame, FrameView, RenderSettings};

const SIZE: [u32; 2] = [256, 160];

/// A read-back RGBA8 image (row-major, `SIZE`).
struct Shot(Vec<u8>);

impl Shot {
    fn rgb(&self, x: u32, y: u32) -> [u8; 3] {
        let i = 4 * (y * SIZE[0] + x) as usize;
        [self.0[i], self.0[i + 1], self.0[i + 2]]
    }

    fn pixels(&self) -> impl Iterator<Item = [u8; 3]> + '_ {
        self.0.chunks_exact(4).map(|p| [p[0], p[1], p[2]])
    }

    fn lit_pixels(&self) -> usize {
        self.pixels().filter(|p| !is_black(*p)).count()
    }
}

fn is_black(p: [u8; 3]) -> bool {
    u32::from(p[0]) + u32::from(p[1]) + u32::from(p[2]) <= 6
}

/// Settings with a black clear colour, fog pushed out of sight and no
/// distance culling.
fn black_settings() -> RenderSettings {
    RenderSettings {
        fog_color: [0.0; 3],
        fog_range: [1.0e6, 2.0e6],
        terrain_distance: 1.0e5,
        ..RenderSettings::default()
    }
}

fn render(
    gpu: &GpuContext,
    terrain: &mut StaticChunks,
    camera: Camera,
    samples: u32,
    name: &str,
) -> (Shot, FrameReport, FrameView) {
    let view = FrameView::new(camera, SIZE, samples, 0.0, black_settings());
    let mut off = Offscreen::for_view(gpu, &view);
    let report = off.frame(gpu, |g, targets| {
        terrain.record(Frame::new(gpu, &view, targets), g)
    });
    let image = off.image(gpu);
    crate::testkit::keep(&image, &format!("terrain-{name}-msaa{samples}"));
    (Shot(image.into_raw()), report, view)
}

/// A camera straight above world `(x, y)`, `above` units over the highest
/// terrain within `radius`.
fn top_down(world: &World, x: f64, y: f64, radius: f64, above: f32) -> Camera {
    let mut top = f32::NEG_INFINITY;
    for i in -8..=8 {
        for j in -8..=8 {
            let (px, py) = (x + radius * i as f64 / 8.0, y + radius * j as f64 / 8.0);
            if let Some(h) = world.height_at(px, py) {
                top = top.max(h);
            }
        }
    }
    Camera {
        eye: Vec3::new(x as f32, y as f32, top + above),
        yaw_deg: 0.0,
        pitch_deg: -90.0,
        fov_y_deg: 60.0,
        near: 0.5,
        far: 2000.0,
    }
}

fn project(vp: Mat4, p: Vec3) -> Option<[f32; 2]> {
    let c = vp * p.extend(1.0);
    (c.w > 0.0).then(|| {
        [
            (c.x / c.w * 0.5 + 0.5) * SIZE[0] as f32,
            (0.5 - c.y / c.w * 0.5) * SIZE[1] as f32,
        ]
    })
}

fn is_background(img: &Shot, x: u32, y: u32) -> bool {
    is_black(img.rgb(x, y))
}

/// Checks seams and holes of one view; returns (seam pixels, hole pixels) checked.
fn check_view(world: &World, img: &Shot, view: &FrameView, name: &str) -> (usize, usize) {
    let vp = view.view_proj;
    let eye = view.eye();
    // World units per pixel at the ground (top-down).
    let units_per_px = {
        let z = world.height_at(eye.x as f64, eye.y as f64).unwrap_or(0.0);
        2.0 * (eye.z - z) * (view.camera.fov_y_deg.to_radians() * 0.5).tan() / SIZE[1] as f32
    };
    let margin = 3.0 * f64::from(units_per_px);
    let hole_near = |x: f64, y: f64| {
        [
            (-1.0, -1.0),
            (-1.0, 1.0),
            (1.0, -1.0),
            (1.0, 1.0),
            (0.0, 0.0),
        ]
        .iter()
        .any(|(dx, dy)| world.is_hole(x + dx * margin, y + dy * margin) != Some(false))
    };
    let (gx0, gy0) = world_to_grid(eye.x as f64, eye.y as f64);
    let reach =
        1.2 * f64::from(units_per_px) * SIZE[0] as f64 / sward_scenes::world::coords::UNIT_SIZE;
    let step = 0.25 * f64::from(units_per_px) / sward_scenes::world::coords::UNIT_SIZE;
    let cells = f64::from(CHUNK_CELLS);
    let mut seam_px = 0;
    let mut cracks = Vec::new();
    // Seam lines: constant gx (column seams) and constant gy (row seams).
    for axis in 0..2 {
        let (fixed0, along0) = if axis == 0 { (gx0, gy0) } else { (gy0, gx0) };
        let first = ((fixed0 - reach) / cells).ceil() as i64;
        let last = ((fixed0 + reach) / cells).floor() as i64;
        for k in first..=last {
            let fixed = k as f64 * cells;
            let mut t = along0 - reach;
            while t < along0 + reach {
                let (gx, gy) = if axis == 0 { (fixed, t) } else { (t, fixed) };
                t += step;
                let (x, y) = grid_to_world(gx, gy);
                let Some(z) = world.height_at(x, y) else {
                    continue;
                };
                if hole_near(x, y) {
                    continue;
                }
                let Some([px, py]) = project(vp, Vec3::new(x as f32, y as f32, z)) else {
                    continue;
                };
                if px < 2.0 || py < 2.0 || px > SIZE[0] as f32 - 3.0 || py > SIZE[1] as f32 - 3.0 {
                    continue;
                }
                for (ox, oy) in [
                    (-1, -1),
                    (0, -1),
                    (1, -1),
                    (-1, 0),
                    (0, 0),
                    (1, 0),
                    (-1, 1),
                    (0, 1),
                    (1, 1),
                ] {
                    let (ix, iy) = ((px as i32 + ox) as u32, (py as i32 + oy) as u32);
                    seam_px += 1;
                    if is_background(img, ix, iy) {
                        cracks.push((ix, iy, x, y));
                    }
                }
            }
        }
    }
    assert!(
        cracks.is_empty(),
        "{name}: {} background pixels on seams, first {:?}",
        cracks.len(),
        &cracks[..cracks.len().min(5)]
    );
    // Holes: points well inside hole cells show the background.
    let mut hole_px = 0;
    let first = |g: f64| (g - reach).floor() as i64;
    for cy in first(gy0)..=(gy0 + reach).ceil() as i64 {
        for cx in first(gx0)..=(gx0 + reach).ceil() as i64 {
            let (x, y) = grid_to_world(cx as f64 + 0.5, cy as f64 + 0.5);
            if world.is_hole(x, y) != Some(true) {
                continue;
            }
            for (u, v) in [(0.5, 0.5), (0.3, 0.3), (0.7, 0.3), (0.3, 0.7), (0.7, 0.7)] {
                let (x, y) = grid_to_world(cx as f64 + u, cy as f64 + v);
                let Some(z) = world.height_at(x, y) else {
                    continue;
                };
                let Some([px, py]) = project(vp, Vec3::new(x as f32, y as f32, z)) else {
                    continue;
                };
                if px < 0.0 || py < 0.0 || px >= SIZE[0] as f32 || py >= SIZE[1] as f32 {
                    continue;
                }
                // Skip points whose hole is narrower than a few pixels around them.
                if ![(-1.0, 0.0), (1.0, 0.0), (0.0, -1.0), (0.0, 1.0)]
                    .iter()
                    .all(|(dx, dy)| world.is_hole(x + dx * margin, y + dy * margin) == Some(true))
                {
                    continue;
                }
                hole_px += 1;
                assert!(
                    is_background(img, px as u32, py as u32),
                    "{name}: hole cell ({cx}, {cy}) drawn at pixel ({px}, {py})"
                );
            }
        }
    }
    (seam_px, hole_px)
}

#[test]
fn cliff_world_has_no_seam_cracks_and_shows_holes() {
    gpu_or_skip!(gpu);
    let world = cliff_world();
    let mut terrain = StaticChunks::new(gpu, &world).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(terrain.chunk_count(), 256);
    assert_eq!(terrain.triangle_count(), (256 * 64 - 8) * 4);
    // Centre on the holed MCNK (3, 5) of the tile.
    let (x, y) = grid_to_world(
        (CLIFF_TILE.x * 128 + 3 * 8 + 4) as f64,
        (CLIFF_TILE.y * 128 + 5 * 8 + 4) as f64,
    );
    let camera = top_down(&world, x, y, 40.0, 50.0);
    let (img, report, view) = render(gpu, &mut terrain, camera, 1, "cliff");
    let (seams, holes) = check_view(&world, &img, &view, "cliff");
    assert!(
        seams > 2000 && holes >= 8,
        "checked {seams} seam and {holes} hole pixels"
    );
    // Counters: one draw and one instance per visible MCNK, uniforms uploaded.
    let c = report
        .pass(PASS_DRAW)
        .map(|p| p.counters)
        .unwrap_or_else(|| panic!("no {PASS_DRAW}"));
    let visible = terrain.last_visible();
    assert!(
        !visible.is_empty() && visible.len() < 256,
        "{} visible",
        visible.len()
    );
    assert_eq!(c.draw_calls, visible.len() as u64);
    assert_eq!(c.instances_drawn, visible.len() as u64);
    assert_eq!(c.bytes_uploaded, TerrainUniforms::size());
    let holed = visible
        .iter()
        .any(|v| v.x == CLIFF_TILE.x * 16 + 3 && v.y == CLIFF_TILE.y * 16 + 5);
    assert!(holed);
    assert_eq!(c.triangles, visible.len() as u64 * 256 - 8 * 4);
    // MSAA 4 resolves to nearly the same image.
    let (img4, _, _) = render(gpu, &mut terrain, camera, 4, "cliff");
    let diff: f64 = img
        .pixels()
        .zip(img4.pixels())
        .map(|(a, b)| {
            (0..3)
                .map(|k| (f64::from(a[k]) - f64::from(b[k])).abs())
                .sum::<f64>()
        })
        .sum::<f64>()
        / (img.pixels().count() as f64 * 3.0);
    assert!(diff < 4.0, "mean channel difference MSAA 1 vs 4: {diff}");
    let lit = img.lit_pixels();
    assert!(
        lit > img.pixels().count() * 3 / 4,
        "only {lit} terrain pixels"
    );
}

/// A world of preset `name`'s tiles at `offsets` from its centre tile (no
/// placements), and that centre.
fn preset_tiles(name: &str, offsets: &[(i32, i32)]) -> (World, TileCoord) {
    let preset = Preset::by_name(name).unwrap_or_else(|e| panic!("{e}"));
    let source = preset.source();
    let c = preset.centre();
    let mut world = World::new(name);
    for &(dx, dy) in offsets {
        let t = c
            .offset(dx, dy)
            .unwrap_or_else(|| panic!("{name}: no tile at {dx},{dy}"));
        let tile = source.load(t).unwrap_or_else(|e| panic!("{e}"));
        world
            .insert(std::sync::Arc::new(tile))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    (world, c)
}

#[test]
fn seams_holes_preset_has_no_cracks_at_the_adt_corner() {
    gpu_or_skip!(gpu);
    let (world, c) = preset_tiles("seams-holes", &[(0, 0), (1, 0), (0, 1), (1, 1)]);
    let mut terrain = StaticChunks::new(gpu, &world).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(terrain.chunk_count(), 1024);
    // The corner where the four ADTs meet.
    let [x, y] = TileCoord::new(c.x + 1, c.y + 1).origin();
    let camera = top_down(&world, x, y, 50.0, 60.0);
    let (img, _, view) = render(gpu, &mut terrain, camera, 1, "seams-corner");
    let (seams, mut holes) = check_view(&world, &img, &view, "seams-corner");
    assert!(seams > 2000, "checked {seams} seam pixels");
    // Over the holed MCNK nearest to the corner.
    let (gx, gy) = world_to_grid(x, y);
    let holed = world
        .mcnks()
        .filter(|(_, m)| m.header.holes_low_res != 0)
        .min_by_key(|(ch, _)| {
            let d =
                (f64::from(ch.x) * 8.0 + 4.0 - gx).abs() + (f64::from(ch.y) * 8.0 + 4.0 - gy).abs();
            d as i64
        })
        .map(|(ch, _)| ch)
        .unwrap_or_else(|| panic!("seams-holes has no holes"));
    let (hx, hy) = grid_to_world(
        f64::from(holed.x) * 8.0 + 4.0,
        f64::from(holed.y) * 8.0 + 4.0,
    );
    let camera = top_down(&world, hx, hy, 40.0, 50.0);
    let (img, _, view) = render(gpu, &mut terrain, camera, 1, "seams-hole");
    let (seams2, holes2) = check_view(&world, &img, &view, "seams-hole");
    holes += holes2;
    assert!(
        seams2 > 1000 && holes >= 4,
        "checked {seams2} seam and {holes} hole pixels"
    );
    // An oblique MSAA view for the eye (kept with SWARD_TEST_IMAGES).
    let oblique = Camera {
        eye: Vec3::new(x as f32 + 60.0, y as f32 + 60.0, camera.eye.z + 20.0),
        yaw_deg: 225.0,
        pitch_deg: -25.0,
        ..camera
    };
    let (img, _, _) = render(gpu, &mut terrain, oblique, 4, "seams-oblique");
    let lit = img.lit_pixels();
    assert!(
        lit > img.pixels().count() / 3,
        "oblique view shows {lit} terrain pixels"
    );
}

fn srgb_to_linear(s: u8) -> f32 {
    let s = f32::from(s) / 255.0;
    if s <= 0.040_45 {
        s / 12.92
    } else {
        ((s + 0.055) / 1.055).powf(2.4)
    }
}

fn linear_to_srgb(l: f32) -> f32 {
    let l = l.clamp(0.0, 1.0);
    255.0
        * if l <= 0.003_130_8 {
            l * 12.92
        } else {
            1.055 * l.powf(1.0 / 2.4) - 0.055
        }
}

/// Splat parity: a flat tile whose MCNKs carry 1..=4 layers with constant
/// alphas, seen from so high that the layer textures sample their 1x1 mip.
/// Each MCNK's centre pixel must equal the CPU reference: the scenes
/// crate's `layer_weight` blend of the layers' mean colours, times
/// `sun_lighting` of the up normal.
#[test]
fn splat_blend_and_lighting_match_the_cpu_reference() {
    use super::shading::sun_lighting;
    use super::splat::{layer_texture, mip_chain, LayerKind, LAYER_SIZE};
    use sward_scenes::presets::terrain::TEXTURES;
    use sward_scenes::world::{AdtTile, AlphaMap, Layer};

    gpu_or_skip!(gpu);
    let tile_coord = TileCoord::new(20, 21);
    let layers = |ix: u32, iy: u32| {
        let n = 1 + ((ix + 3 * iy) % 4) as usize;
        (0..n)
            .map(|k| Layer {
                texture_id: k as u32,
                flags: 0,
                effect_id: 0,
                alpha: (k > 0)
                    .then(|| AlphaMap::filled(((ix * 37 + iy * 91 + k as u32 * 53) % 256) as u8)),
            })
            .collect()
    };
    let textures = TEXTURES.iter().map(|s| (*s).to_owned()).collect();
    let tile = AdtTile::from_height_fn(tile_coord, textures, &|_, _| 12.0, layers);
    let mut world = World::new("flat");
    world
        .insert(std::sync::Arc::new(tile))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut terrain = StaticChunks::new(gpu, &world).unwrap_or_else(|e| panic!("{e}"));
    let [ox, oy] = tile_coord.origin();
    let half = sward_scenes::world::coords::TILE_SIZE * 0.5;
    let mut camera = top_down(&world, ox - half, oy - half, 10.0, 1500.0);
    camera.far = 5000.0;
    let (img, _, view) = render(gpu, &mut terrain, camera, 1, "splat");
    let settings = black_settings();
    let light = sun_lighting(Vec3::Z, Vec3::from(settings.sun_dir));
    let tile = world.tile(tile_coord).unwrap_or_else(|| panic!("tile"));
    // Mean (1x1 mip) colour of each layer texture, linear.
    let means: Vec<Vec3> = TEXTURES
        .iter()
        .enumerate()
        .map(|(id, name)| {
            let kind = LayerKind::from_texture(name, id as u32);
            let mips = mip_chain(layer_texture(kind, LAYER_SIZE), LAYER_SIZE);
            let t = mips.last().map_or(&[0u8; 4][..], Vec::as_slice);
            Vec3::new(
                srgb_to_linear(t[0]),
                srgb_to_linear(t[1]),
                srgb_to_linear(t[2]),
            )
        })
        .collect();
    let mut checked = 0;
    let mut worst = 0.0f32;
    for m in &tile.mcnks {
        let (cx, cy) = (m.header.position[0] as f64, m.header.position[1] as f64);
        let chunk = sward_scenes::world::coords::CHUNK_SIZE;
        let centre = Vec3::new((cx - chunk * 0.5) as f32, (cy - chunk * 0.5) as f32, 12.0);
        let Some([px, py]) = project(view.view_proj, centre) else {
            continue;
        };
        if px < 1.0 || py < 1.0 || px > SIZE[0] as f32 - 1.0 || py > SIZE[1] as f32 - 1.0 {
            continue;
        }
        let mut expected = Vec3::ZERO;
        for (k, layer) in m.layers.iter().enumerate() {
            let w = f32::from(m.layer_weight(k, 32, 32)) / 255.0;
            expected += means[layer.texture_id as usize] * w;
        }
        let expected = (expected * light).to_array().map(linear_to_srgb);
        let got = img.rgb(px as u32, py as u32);
        for c in 0..3 {
            let d = (f32::from(got[c]) - expected[c]).abs();
            worst = worst.max(d);
            assert!(
                d <= 4.0,
                "MCNK {:?} layers {}: got {got:?}, expected {expected:?}",
                (m.header.index_x, m.header.index_y),
                m.layers.len()
            );
        }
        checked += 1;
    }
    assert!(checked >= 100, "only {checked} MCNK centres on screen");
    eprintln!("splat parity: {checked} MCNKs, worst channel difference {worst:.2}");
}

/// The reference window (the 3x3 `elwynn-dense` tiles, no placements): every
/// MCNK resident, the resident triangles exactly those outside hole cells,
/// and an aerial and a ground view that draw some MCNKs but not all. Its
/// costs are measured by `sward bench` (docs/techniques/terrain.md).
#[test]
fn elwynn_window_holds_every_mcnk_without_its_holes() {
    gpu_or_skip!(gpu);
    let square: Vec<(i32, i32)> = (-1..=1)
        .flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)))
        .collect();
    let (world, c) = preset_tiles("elwynn-dense", &square);
    let mut terrain = StaticChunks::new(gpu, &world).unwrap_or_else(|e| panic!("{e}"));
    let holes: u64 = world
        .mcnks()
        .map(|(_, m)| (0..64).filter(|i| m.header.is_hole(i / 8, i % 8)).count() as u64)
        .sum();
    assert_eq!(terrain.chunk_count(), 2304);
    assert_eq!(terrain.triangle_count(), 4 * (2304 * 64 - holes));
    let [fx, fy] = sward_scenes::world::coords::tile_centre(c);
    let z = world.height_at(fx, fy).unwrap_or(0.0);
    let views = [
        (
            "aerial",
            Vec3::new((fx - 160.0) as f32, fy as f32, z + 140.0),
            -38.0,
        ),
        ("ground", Vec3::new(fx as f32, fy as f32, z + 1.8), -8.0),
    ];
    for (name, eye, pitch) in views {
        let camera = Camera {
            eye,
            yaw_deg: 0.0,
            pitch_deg: pitch,
            fov_y_deg: 60.0,
            near: 0.25,
            far: 1100.0,
        };
        let view = FrameView::new(camera, SIZE, 1, 0.0, RenderSettings::default());
        let mut off = Offscreen::for_view(gpu, &view);
        let report = off.frame(gpu, |g, targets| {
            terrain.record(Frame::new(gpu, &view, targets), g)
        });
        crate::testkit::keep(&off.image(gpu), &format!("terrain-elwynn-{name}"));
        let counters = report.counters;
        assert!(
            counters.draw_calls > 0 && counters.draw_calls < 2304,
            "{name}: the CPU cull keeps some MCNKs, not all: {counters:?}"
        );
    }
}
