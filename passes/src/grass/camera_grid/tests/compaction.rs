//! The compaction against its CPU reference: each model's region of the
//! compacted list starts where the prefix sum of the drawn counts says,
//! holds only that model's blades of the CPU mirror, each once; a list
//! forced smaller than what a frame keeps overflows by the excess, which is
//! read back and reported, and draws exactly its capacity.

use std::collections::HashMap;

use sward_engine::gpu_or_skip;
use sward_engine::GpuContext;

use super::*;
use crate::grass::camera_grid::blade::grid_blade;
use crate::grass::camera_grid::compaction::{census, regions, Census};
use crate::grass::camera_grid::params::instance_slot;
use crate::grass::camera_grid::resources::{ARGS_WORDS, REGION_WORDS};

/// What the last frame left in the compaction buffers.
pub(super) struct ReadBack {
    /// Drawn count per model (the indirect records' second words).
    pub kept: Vec<u32>,
    /// First record of each model's region.
    pub offsets: Vec<u32>,
    /// Blades that found no room.
    pub overflow: u32,
    /// Each record's root bits and scale bits, in list order.
    pub records: Vec<([u32; 3], u32)>,
}

/// Reads the compaction buffers of `grid` back (after a frame).
pub(super) fn read_back(gpu: &GpuContext, grid: &CameraGrid, model_count: usize) -> ReadBack {
    let c = grid.resources().compact.as_ref().expect("compact mode");
    let words = |b: &wgpu::Buffer| -> Vec<u32> {
        let bytes =
            sward_engine::targets::read_buffer(&gpu.device, &gpu.queue, b, b.size()).unwrap();
        bytemuck::pod_collect_to_vec(&bytes)
    };
    let args = words(&c.args);
    let regions = words(&c.regions);
    assert_eq!(regions.len() as u64, model_count as u64 * REGION_WORDS);
    let list = words(&c.list);
    ReadBack {
        kept: (0..model_count)
            .map(|m| args[m * ARGS_WORDS as usize + 1])
            .collect(),
        offsets: regions[model_count..2 * model_count].to_vec(),
        overflow: args[model_count * ARGS_WORDS as usize],
        records: list
            .chunks_exact(8)
            .map(|r| ([r[0], r[1], r[2]], r[3]))
            .collect(),
    }
}

/// The CPU mirror's blade of every drawn candidate under the grid's last
/// uniform, by root bits (a root names its candidate), and its census.
fn mirror(
    grid: &CameraGrid,
    world: &sward_scenes::World,
) -> (HashMap<[u32; 3], (u32, u32)>, Census) {
    let u = grid.last_uniform.expect("a frame was recorded");
    let inputs = grid.blade_inputs(world, &u);
    let mut by_root = HashMap::new();
    for n in 0..u.side * u.side * u.candidates {
        let (i, j, k) = instance_slot(n, u.camera_slot, u.side, u.candidates);
        let b = grid_blade(&inputs, i, j, k);
        if b.status == Status::Drawn {
            by_root.insert(b.root.map(f32::to_bits), (b.model, b.scale.to_bits()));
        }
    }
    (by_root, census(&inputs, &u))
}

/// Every record of each model's region is a distinct blade of the CPU
/// mirror of that model, with its scale.
fn check_regions(rb: &ReadBack, by_root: &HashMap<[u32; 3], (u32, u32)>) -> u64 {
    let mut seen = std::collections::HashSet::new();
    let mut checked = 0;
    for (m, (&offset, &kept)) in rb.offsets.iter().zip(&rb.kept).enumerate() {
        // A region past the end of a full list draws nothing.
        if kept == 0 {
            continue;
        }
        for r in &rb.records[offset as usize..(offset + kept) as usize] {
            let Some(&(model, scale)) = by_root.get(&r.0) else {
                panic!("model {m}: record {r:?} is no blade of the CPU mirror");
            };
            assert_eq!(
                model, m as u32,
                "a blade of model {model} in model {m}'s region"
            );
            assert_eq!(scale, r.1, "scale of the blade at {:?}", r.0);
            assert!(seen.insert(r.0), "blade {:?} written twice", r.0);
            checked += 1;
        }
    }
    checked
}

#[test]
fn compacted_regions_hold_each_models_blades_once() {
    gpu_or_skip!(gpu);
    let (scene, models) = crate::grass::tests::scene_and_models(gpu);
    let view = ground_view(scene, [128, 80], 1);
    let mut grid = build_grid(gpu, &models, scene);
    let capacity = grid.resources().compact.as_ref().unwrap().capacity;
    assert_eq!(capacity, grid.candidates_total());
    render_frames(gpu, &models, &mut grid, &view, 2);
    let rb = read_back(gpu, &grid, models.len());
    let (by_root, cpu) = mirror(&grid, scene.world());
    // The regions are the CPU reference's layout of the GPU's counts.
    let layout = regions(&rb.kept, capacity);
    assert_eq!(rb.offsets, layout.offsets);
    assert_eq!(rb.kept, layout.kept);
    assert_eq!(rb.overflow, 0);
    let total: u64 = rb.kept.iter().map(|&k| u64::from(k)).sum();
    eprintln!("GPU kept {total}, CPU mirror {} ({:?})", cpu.kept, rb.kept);
    assert!(cpu.kept > 1_000);
    // Float noise on the frustum planes may flip a handful of borderline blades.
    assert!(total.abs_diff(cpu.kept) <= 3, "{total} vs {}", cpu.kept);
    for (m, (&g, &c)) in rb.kept.iter().zip(&cpu.per_model).enumerate() {
        assert!(g.abs_diff(c) <= 3, "model {m}: GPU {g}, CPU {c}");
    }
    assert_eq!(check_regions(&rb, &by_root), total);
}

#[test]
fn a_list_too_small_overflows_and_reports_it() {
    gpu_or_skip!(gpu);
    let (scene, models) = crate::grass::tests::scene_and_models(gpu);
    let view = ground_view(scene, [128, 80], 1);
    let mut full = build_grid(gpu, &models, scene);
    render_frames(gpu, &models, &mut full, &view, 1);
    // The same view keeps the same blades: their counts per model.
    let counts = read_back(gpu, &full, models.len()).kept;
    let want: u32 = counts.iter().sum();
    let capacity = want / 3;
    let params = GridParams {
        list_capacity: Some(capacity),
        ..GridParams::default()
    };
    let mut grid = CameraGrid::new(gpu, &models, grid_scene(scene), params).unwrap();
    // The readback is copied on frame 1 and read two frames later.
    let (_, report) = render_frames(gpu, &models, &mut grid, &view, 6);
    let rb = read_back(gpu, &grid, models.len());
    let drawn: u32 = rb.kept.iter().sum();
    eprintln!(
        "capacity {capacity}: drew {drawn}, overflow {}",
        rb.overflow
    );
    assert_eq!(drawn, capacity);
    // The CPU reference's layout of the same counts: the first regions
    // fill the list, the one crossing its end is cut, the rest draw nothing.
    let layout = regions(&counts, capacity);
    assert_eq!(rb.kept, layout.kept);
    assert_eq!(rb.offsets, layout.offsets);
    assert_eq!(rb.overflow, layout.overflow);
    assert_eq!(rb.overflow, want - capacity);
    let (by_root, _) = mirror(&grid, scene.world());
    assert_eq!(check_regions(&rb, &by_root), u64::from(capacity));
    // Reported: the draws count what they drew, the facts the overflow.
    let draw = report.pass("grass.draw").unwrap().counters;
    assert_eq!(draw.instances_drawn, u64::from(capacity));
    let facts = grid.facts(scene.world());
    assert_eq!(facts["grid_overflow_blades"], f64::from(want - capacity));
    assert_eq!(facts["grid_list_capacity"], f64::from(capacity));
    assert_eq!(grid.overflow_blades(), u64::from(want - capacity));
    // A fresh run starts counting again.
    grid.begin_run();
    assert_eq!(grid.overflow_blades(), 0);
}
