//! GPU parity of the `height_atlas` WGSL snippet against the CPU height
//! reference on the `seams-holes` preset (2x2 ADTs: 1,024 MCNKs with seams,
//! cliffs and holes): every MCVT vertex of every MCNK plus random points in
//! all four fan triangles of many cells, evaluated by the
//! `probe_height_atlas` compute probe. A deliberately wrong snippet (bilinear
//! interpolation of the four corners) must fail the same check.
//!
//! Run with `--nocapture` to see the measured maximum errors.

use sward_engine::bind::{self, Slot};
use sward_engine::gpu_or_skip;
use sward_engine::testing::probe_buffers;
use sward_engine::GpuContext;
use sward_scenes::rng::Rng32;
use sward_scenes::world::height::cell_height;
use sward_scenes::{Scene, World};
use sward_wgsl::{modules, Module};

use super::cpu::{atlas_lattice_world, atlas_split_local};
use super::{AtlasTile, HeightAtlas, NO_CHUNK};

/// Largest allowed |GPU - CPU| of relative heights (world units).
const HEIGHT_TOLERANCE: f32 = 1e-4;

fn scene() -> &'static Scene {
    crate::testkit::preset("seams-holes")
}

/// Probe input (WGSL `ProbeIn`).
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct ProbeIn {
    local: [f32; 2],
    window_cell: [f32; 2],
    slot: u32,
    _pad: u32,
    lattice: [u32; 2],
}

/// Probe output (WGSL `ProbeOut`).
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct ProbeOut {
    normal: [f32; 3],
    height: f32,
    found_slot: u32,
    found_height: f32,
    lattice_world: [f32; 2],
}

/// The probe points: every MCVT vertex of every MCNK, then `random_per_chunk`
/// points per MCNK spread over the four fan triangles of random cells.
fn probe_points(world: &World, atlas: &HeightAtlas, random_per_chunk: usize) -> Vec<ProbeIn> {
    let window = atlas.window();
    let mut rng = Rng32::new(0x5eed);
    let mut out = Vec::new();
    for (chunk, _) in world.mcnks() {
        let slot = atlas
            .slot_of(chunk)
            .expect("every resident MCNK has a slot");
        let off = [
            ((chunk.x - window.origin[0]) * 8) as f32,
            ((chunk.y - window.origin[1]) * 8) as f32,
        ];
        let mut push = |lx: f32, ly: f32| {
            out.push(ProbeIn {
                local: [lx, ly],
                window_cell: [off[0] + lx, off[1] + ly],
                slot,
                _pad: 0,
                lattice: [
                    chunk.x * 16 + (lx * 2.0).round() as u32,
                    chunk.y * 16 + (ly * 2.0).round() as u32,
                ],
            })
        };
        for r in 0..9 {
            for c in 0..9 {
                push(c as f32, r as f32);
            }
        }
        for r in 0..8 {
            for c in 0..8 {
                push(c as f32 + 0.5, r as f32 + 0.5);
            }
        }
        for k in 0..random_per_chunk {
            let (row, col) = ((rng.next_u32() % 8) as f32, (rng.next_u32() % 8) as f32);
            // A random point of the triangle `k % 4` (top, right, bottom, left).
            let (a, b) = (rng.next_f32(), rng.next_f32());
            let (a, b) = if a + b > 1.0 {
                (1.0 - a, 1.0 - b)
            } else {
                (a, b)
            };
            // Barycentric over (corner0, corner1, centre).
            let corners = [
                [(0.0, 0.0), (1.0, 0.0)],
                [(1.0, 0.0), (1.0, 1.0)],
                [(1.0, 1.0), (0.0, 1.0)],
                [(0.0, 1.0), (0.0, 0.0)],
            ][k % 4];
            let w0 = 1.0 - a - b;
            let u = w0 * corners[0].0 + a * corners[1].0 + b * 0.5;
            let v = w0 * corners[0].1 + a * corners[1].1 + b * 0.5;
            push(col + u, row + v);
        }
    }
    out
}

/// Runs the probe composed with `height_atlas` = `snippet`.
fn run_probe(
    gpu: &GpuContext,
    atlas: &HeightAtlas,
    snippet: Module,
    points: &[ProbeIn],
) -> Vec<ProbeOut> {
    let device = &gpu.device;
    let library: Vec<Module> = modules::ALL
        .iter()
        .map(|m| if m.name == snippet.name { snippet } else { *m })
        .collect();
    let source = sward_wgsl::link::compose_with(modules::PROBE_HEIGHT_ATLAS, &library)
        .unwrap_or_else(|e| panic!("{e}"));
    sward_wgsl::validate_source(&source).unwrap_or_else(|e| panic!("{e}"));
    let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("terrain.atlas.probe"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    // The uniform, the atlas at 1..=4, the points and the results.
    let cs = wgpu::ShaderStages::COMPUTE;
    let mut entries = vec![bind::entry(0, cs, Slot::Uniform)];
    entries.extend(HeightAtlas::layout_entries(1, cs));
    entries.extend([
        bind::entry(5, cs, Slot::STORAGE_READ),
        bind::entry(6, cs, Slot::STORAGE_RW),
    ]);
    let bind_layout = bind::layout(device, "terrain.atlas.probe", &entries);
    let pipeline = bind::compute_pipeline(
        device,
        "terrain.atlas.probe",
        &[&bind_layout],
        &shader,
        "main",
    );
    let w = atlas.window();
    let size = (points.len() * std::mem::size_of::<ProbeOut>()) as u64;
    let [uniform, input, output] = probe_buffers(
        gpu,
        "terrain.atlas.probe",
        bytemuck::cast_slice(&[w.origin[0], w.origin[1], 0, 0]),
        bytemuck::cast_slice(points),
        size,
    );
    let entry = |binding, resource| wgpu::BindGroupEntry { binding, resource };
    let mut bind_entries = vec![entry(0, uniform.as_entire_binding())];
    bind_entries.extend(atlas.bind_entries(1));
    bind_entries.extend([
        entry(5, input.as_entire_binding()),
        entry(6, output.as_entire_binding()),
    ]);
    let group = bind::group_of(device, "terrain.atlas.probe", &bind_layout, &bind_entries);
    // Stay under the per-dimension workgroup limit with a 2D dispatch is
    // unnecessary here: the probe sizes stay far below 65,535 groups.
    let groups = (points.len() as u32).div_ceil(64);
    let bytes = sward_engine::testing::run_probe(gpu, &pipeline, &[&group], groups, &output);
    bytemuck::cast_slice(&bytes).to_vec()
}

/// Errors of one probe run against the CPU reference.
#[derive(Debug, Default)]
struct Errors {
    height: f32,
    normal: f32,
    lookup_height: f32,
    lookup_misses: usize,
    lattice_ulps: u32,
    points: usize,
}

fn compare(world: &World, atlas: &HeightAtlas, points: &[ProbeIn], out: &[ProbeOut]) -> Errors {
    let mcnks: std::collections::HashMap<u32, _> = world
        .mcnks()
        .map(|(c, m)| (atlas.slot_of(c).expect("resident MCNKs have slots"), m))
        .collect();
    let mut e = Errors::default();
    for (p, o) in points.iter().zip(out) {
        let m = mcnks[&p.slot];
        let [lx, ly] = p.local;
        let (row, col, u, v) = atlas_split_local(lx, ly);
        let want = cell_height(&m.heights, row, col, u, v);
        e.height = e.height.max((o.height - want).abs());
        let n = m.normal_local(lx as f64, ly as f64);
        for (got, want) in o.normal.iter().zip(n) {
            e.normal = e.normal.max((got - want).abs());
        }
        // The lookup: points strictly inside the MCNK must find it.
        let interior = lx > 0.0 && lx < 8.0 && ly > 0.0 && ly < 8.0;
        if interior {
            if o.found_slot != p.slot {
                e.lookup_misses += 1;
            } else {
                let abs = m.header.position[2] + want;
                e.lookup_height = e.lookup_height.max((o.found_height - abs).abs());
            }
        }
        let want = atlas_lattice_world(p.lattice);
        for (g, w) in o.lattice_world.iter().zip(want) {
            // In ulps of the value's magnitude (at least 1 unit: near the
            // zero crossing an absolute 1.2e-7 counts as one ulp).
            let ulp = w.abs().max(1.0) * f32::EPSILON;
            e.lattice_ulps = e.lattice_ulps.max(((g - w).abs() / ulp).ceil() as u32);
        }
        e.points += 1;
    }
    e
}

#[test]
fn gpu_height_atlas_matches_the_cpu_reference() {
    let gpu = gpu_or_skip!();
    let world = scene().world();
    let atlas = HeightAtlas::new(&gpu, world).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(atlas.chunk_count(), world.mcnk_count());
    assert!(
        world.mcnks().any(|(_, m)| m.header.holes_low_res != 0),
        "preset has holes"
    );
    let points = probe_points(world, &atlas, 48);
    let out = run_probe(&gpu, &atlas, modules::HEIGHT_ATLAS, &points);
    let e = compare(world, &atlas, &points, &out);
    println!(
        "height atlas parity (seams-holes, {} MCNKs, {} points): max |GPU - CPU| relative height {:.3e} units, normal {:.3e}, lookup abs height {:.3e}, lattice xy {} ulp",
        world.mcnk_count(),
        e.points,
        e.height,
        e.normal,
        e.lookup_height,
        e.lattice_ulps
    );
    assert!(
        e.lattice_ulps <= 1,
        "lattice world xy off by {} ulp",
        e.lattice_ulps
    );
    assert!(e.points > 150_000, "{} points", e.points);
    assert!(e.height < HEIGHT_TOLERANCE, "max height error {}", e.height);
    assert!(e.normal < 1e-4, "max normal error {}", e.normal);
    assert_eq!(e.lookup_misses, 0, "chunk-index lookups that missed");
    // Window-relative f32 positions round to ~2^-16 cells; on the steepest
    // cliffs that moves the height by well under a millimetre.
    assert!(
        e.lookup_height < 5e-3,
        "lookup height error {}",
        e.lookup_height
    );
    // Outside the window the lookup finds nothing.
    let outside = ProbeIn {
        local: [1.0, 1.0],
        window_cell: [-3.0, 5.0],
        slot: 0,
        _pad: 0,
        lattice: [0, 0],
    };
    let o = run_probe(&gpu, &atlas, modules::HEIGHT_ATLAS, &[outside]);
    assert_eq!(o[0].found_slot, NO_CHUNK);
}

/// The same check must catch a snippet that interpolates the four corners
/// bilinearly (the classic mistake: MCNK cells are four-triangle fans, not bilinear
/// patches).
#[test]
fn bilinear_snippet_fails_the_parity_check() {
    let gpu = gpu_or_skip!();
    let source = modules::HEIGHT_ATLAS.source;
    let start = source
        .find("fn fan_height(")
        .expect("fan_height in the snippet");
    let end = start + source[start..].find("\n}\n").expect("end of fan_height") + 3;
    let bilinear = "fn fan_height(values: array<f32, 5>, u: f32, v: f32) -> f32 {\n    \
                    return mix(mix(values[0], values[1], u), mix(values[2], values[3], u), v);\n}\n";
    let wrong: &'static str =
        Box::leak(format!("{}{}{}", &source[..start], bilinear, &source[end..]).into_boxed_str());
    assert_ne!(wrong, source);
    let world = scene().world();
    let atlas = HeightAtlas::new(&gpu, world).unwrap_or_else(|e| panic!("{e}"));
    let points = probe_points(world, &atlas, 8);
    let snippet = Module {
        name: modules::HEIGHT_ATLAS.name,
        source: wrong,
    };
    let e = compare(
        world,
        &atlas,
        &points,
        &run_probe(&gpu, &atlas, snippet, &points),
    );
    println!(
        "bilinear snippet: max |GPU - CPU| relative height {:.3e} units",
        e.height
    );
    assert!(
        e.height > 100.0 * HEIGHT_TOLERANCE,
        "bilinear error {} went unnoticed",
        e.height
    );
}

/// Streaming one MCNK into a live atlas: the slot serves the new MCNK's
/// heights, the index finds it there and no longer finds the slot's previous
/// MCNK; bad slots and MCNKs outside the window are refused.
#[test]
fn upload_chunk_replaces_a_slot() {
    let gpu = gpu_or_skip!();
    let world = scene().world();
    let mut atlas = HeightAtlas::new(&gpu, world).unwrap_or_else(|e| panic!("{e}"));
    let mcnks: Vec<_> = world.mcnks().collect();
    let (old_chunk, _) = mcnks[5];
    let (new_chunk, new_m) = mcnks[300];
    assert_ne!(old_chunk, new_chunk);
    atlas
        .upload_chunk(&gpu.queue, 5, new_chunk, new_m)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(atlas.slot_of(new_chunk), Some(5));
    assert_eq!(atlas.slot_of(old_chunk), None);
    let w = atlas.window();
    let point = |chunk: sward_scenes::ChunkCoord, lx: f32, ly: f32| ProbeIn {
        local: [lx, ly],
        window_cell: [
            ((chunk.x - w.origin[0]) * 8) as f32 + lx,
            ((chunk.y - w.origin[1]) * 8) as f32 + ly,
        ],
        slot: 5,
        _pad: 0,
        lattice: [0, 0],
    };
    let points = [point(new_chunk, 2.3, 5.6), point(old_chunk, 4.5, 4.5)];
    let out = run_probe(&gpu, &atlas, modules::HEIGHT_ATLAS, &points);
    let (row, col, u, v) = atlas_split_local(2.3, 5.6);
    let want = cell_height(&new_m.heights, row, col, u, v);
    assert!(
        (out[0].height - want).abs() < HEIGHT_TOLERANCE,
        "{} vs {want}",
        out[0].height
    );
    assert_eq!(out[0].found_slot, 5);
    assert_eq!(
        out[1].found_slot, NO_CHUNK,
        "the replaced MCNK is still indexed"
    );
    let cap = atlas.layout().capacity();
    assert!(atlas
        .upload_chunk(&gpu.queue, cap, new_chunk, new_m)
        .is_err());
    let outside = sward_scenes::ChunkCoord {
        x: w.origin[0] + w.size[0],
        y: w.origin[1],
    };
    let err = atlas
        .upload_chunk(&gpu.queue, 1, outside, new_m)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(&format!("MCNK ({}, {})", outside.x, outside.y)),
        "{err}"
    );
}

/// Streamed tiles placed from a staging buffer ([`AtlasTile::staged`]: one
/// recorded copy per run of slots, submitted with the next frame) with the
/// records a worker built leave the atlas exactly as tiles built and written
/// in place do, through evictions and slot reuse, and both match the CPU
/// reference.
#[test]
fn staged_tiles_place_exactly_what_written_tiles_place() {
    use crate::technique::ResidencyChange;
    let gpu = gpu_or_skip!();
    let mut scene = crate::testkit::continent();
    let reach = crate::technique::SceneData::from_scene(&scene)
        .atlas_reach()
        .expect("continent streams");
    let mut written =
        HeightAtlas::with_reach(&gpu, scene.world(), Some(reach)).unwrap_or_else(|e| panic!("{e}"));
    let mut staged =
        HeightAtlas::with_reach(&gpu, scene.world(), Some(reach)).unwrap_or_else(|e| panic!("{e}"));
    let start = scene.window.centre();
    for to in [
        start.offset(1, 1).expect("wide"),
        start.offset(2, 0).expect("wide"),
        start,
    ] {
        let changes = crate::streaming_tests::slide(&mut scene, to);
        let world = scene.world();
        for change in &changes {
            let t = match change {
                ResidencyChange::TileEvicted(t) | ResidencyChange::TileResident(t) => t,
                other => panic!("a slide changes whole tiles, not {other:?}"),
            };
            // Written: everything built in place (records included);
            // staged: the worker's tiles and records.
            let copy = world
                .tile(*t)
                .map(|a| AtlasTile::prepare(a).staged(&gpu.device));
            assert!(written
                .set_tile_prepared(&gpu, world, *t, None)
                .expect("valid")
                .is_some());
            assert!(staged
                .set_tile_prepared(&gpu, world, *t, copy.as_ref())
                .expect("valid")
                .is_some());
        }
        // The probe submits on its own: the recorded copies go first.
        gpu.flush_copies();
        for chunk in world.mcnks().map(|(c, _)| c) {
            assert_eq!(written.slot_of(chunk), staged.slot_of(chunk), "{chunk:?}");
        }
        assert_eq!(written.records(), staged.records(), "{to:?}");
        let points = probe_points(world, &written, 2);
        let want = run_probe(&gpu, &written, modules::HEIGHT_ATLAS, &points);
        let got = run_probe(&gpu, &staged, modules::HEIGHT_ATLAS, &points);
        assert_eq!(
            bytemuck::cast_slice::<ProbeOut, u8>(&got),
            bytemuck::cast_slice::<ProbeOut, u8>(&want),
            "{to:?}: staged atlas differs from the written one"
        );
        let e = compare(world, &staged, &points, &got);
        assert!(
            e.height < HEIGHT_TOLERANCE,
            "{to:?}: height error {}",
            e.height
        );
        assert_eq!(e.lookup_misses, 0, "{to:?}");
    }
}
