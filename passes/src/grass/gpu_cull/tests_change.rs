//! What a tile change costs grass `gpu-cull` on the render thread, step by
//! step: `tile_change_steps` (ignored: a measurement, not a check; run it
//! with `cargo test --release -p sward-passes --lib tile_change_steps --
//! --ignored --nocapture`) slides the `continent` window one tile out and
//! back N times with each `placement` value, the tiles prepared on another
//! thread as the tile workers do, and reports per change the grass part of
//! [`crate::renderer::ResidencyReport::applied_ms_by`], the render thread's
//! allocations, and the median time of every puffin scope inside the change.

use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};

use sward_engine::gpu_or_skip;
use sward_engine::GpuContext;

use crate::renderer::{SceneData, SceneRenderer};
use crate::streaming_tests::{prepare_off_thread, slide};
use crate::technique::{Subsystem, Tier, TierCombo};

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One `placement` value: per change (3 tiles out, 3 in) the grass ms, the
/// allocations, and per puffin scope its per-change total (ms).
fn measure(gpu: &GpuContext, placement: &str, slides: usize) {
    let mut scene = crate::testkit::continent();
    let grass =
        Tier::parse(Subsystem::Grass, &format!("gpu-cull:placement={placement}")).expect("tier");
    let combo = TierCombo::new(grass, Tier::off(Subsystem::Terrain));
    let mut renderer = SceneRenderer::new();
    renderer
        .set_tiers(gpu, SceneData::from_scene(&scene), &combo)
        .expect("built");
    let home = scene.window.centre();
    let away = home.offset(1, 0).expect("continent is wide");
    let capture = sward_profiling::puffin_bridge::Capture::start();
    let thread = std::thread::current().name().unwrap_or("main").to_owned();
    let (mut ms, mut allocs, mut bytes) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..slides * 2 {
        let to = if i % 2 == 0 { away } else { home };
        let changes = slide(&mut scene, to);
        let prepared = prepare_off_thread(gpu, &renderer, &scene, &changes);
        puffin::GlobalProfiler::lock().new_frame();
        let before = sward_profiling::alloc::thread_counts();
        let report = renderer
            .residency_changed(gpu, SceneData::from_scene(&scene), &changes, prepared)
            .expect("applied");
        let after = sward_profiling::alloc::thread_counts();
        puffin::GlobalProfiler::lock().new_frame();
        gpu.flush_copies();
        assert!(report.rebuilt.is_empty());
        let grass: f64 = report
            .applied_ms_by
            .iter()
            .filter(|(s, _)| *s == "grass")
            .map(|(_, ms)| ms)
            .sum();
        // The first slides warm the staging belt and the pools.
        if i >= 2 {
            ms.push(grass);
            if let (Some(b), Some(a)) = (before, after) {
                let d = a.since(b);
                allocs.push(d.count as f64);
                bytes.push(d.bytes as f64);
            }
        }
    }
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let path = std::env::temp_dir().join(format!("sward-tile-change-{stamp}.puffin"));
    capture.write(&path).expect("capture written");
    let summary = sward_profiling::puffin_bridge::read_capture(&path).expect("capture read");
    let _ = std::fs::remove_file(&path);
    // Per frame (one change) and scope name: the scope's total.
    let mut per: BTreeMap<(String, usize), BTreeMap<u64, f64>> = BTreeMap::new();
    for s in summary.scopes.iter().filter(|s| s.thread == thread) {
        *per.entry((s.name.clone(), s.depth))
            .or_default()
            .entry(s.frame_index)
            .or_default() += (s.end_ns - s.start_ns) as f64 * 1e-6;
    }
    let n = ms.len();
    eprintln!(
        "placement={placement}: {n} changes of 3+3 tiles; grass median {:.3} ms, max {:.3} ms; allocations median {} ({} bytes)",
        median(&mut ms.clone()),
        ms.iter().copied().fold(0.0, f64::max),
        median(&mut allocs),
        median(&mut bytes),
    );
    for ((name, depth), frames) in &per {
        let mut v: Vec<f64> = frames.values().copied().collect();
        eprintln!(
            "  {:indent$}{name}: median {:.4} ms per change, max {:.4} ({} changes)",
            "",
            median(&mut v),
            v.iter().copied().fold(0.0, f64::max),
            v.len(),
            indent = depth * 2
        );
    }
}

#[test]
#[ignore = "a measurement: run with --ignored --nocapture, in release"]
fn tile_change_steps() {
    gpu_or_skip!(gpu);
    let slides = std::env::var("SWARD_SLIDES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    for placement in ["descriptors", "gpu"] {
        measure(gpu, placement, slides);
    }
}
