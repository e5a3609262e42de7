//! Test fixtures shared by the unit tests: scratch directories and a small but
//! complete report built through the real assembly path.

use std::collections::BTreeMap;
use std::path::PathBuf;

use sward_engine::graph::PipelineStats;
use sward_passes::technique::ParamValue;

use crate::assemble::{build_comparisons, build_run, tests::scaled_samples, RunSamples};
use crate::report::{AdapterInfo, ImageDiff, Report, Run, SceneInfo, TierPair, SCHEMA};
use crate::work::FrameAllocs;

/// A fresh, empty scratch directory unique to this process and call.
pub(crate) fn test_dir(name: &str) -> PathBuf {
    sward_engine::testing::scratch_dir("benches", name)
}

/// Three runs (baseline, a faster and a slower tier) with their comparisons.
pub(crate) fn sample_report() -> Report {
    let tiers = [
        (TierPair::new("gpu-cull", "gpu-cull"), 0.4),
        (TierPair::baseline(), 1.0),
        (TierPair::new("legacy-cpu", "static-chunks"), 2.5),
    ];
    let runs: Vec<_> = tiers
        .iter()
        .map(|(t, k)| build_run(&scaled_samples(t.clone(), *k)).expect("fixture run"))
        .collect();
    let diffs = BTreeMap::from([(
        tiers[0].0.clone(),
        ImageDiff {
            rmse: 2.0,
            differing_pixels_fraction: 0.003,
        },
    )]);
    report_of(runs, &diffs)
}

/// Samples whose frames also carry GPU work per pass, render-thread times
/// and allocations, all scaled by `k` (the counters exactly, the times with
/// a pose pattern along the frames).
pub(crate) fn work_samples(tier: TierPair, k: f64, passes: &[&str]) -> RunSamples {
    let mut s = scaled_samples(tier, k);
    for (i, f) in s.frames.iter_mut().enumerate() {
        let work: BTreeMap<String, PipelineStats> = passes
            .iter()
            .enumerate()
            .map(|(p, name)| {
                let base = 1000 * (p as u64 + 1);
                let v = (base as f64 * k) as u64;
                (
                    (*name).to_owned(),
                    PipelineStats::from_values([
                        v,
                        v / 2,
                        v / 3,
                        4 * v,
                        if name.contains("cull") { v } else { 0 },
                    ]),
                )
            })
            .collect();
        f.gpu_work = Some(work);
        f.cpu_thread_frame_ms = Some(f.cpu_frame_ms * 0.8);
        f.allocs = Some(FrameAllocs {
            count: 100 + (k * 10.0) as u64 + (i % 2) as u64,
            bytes: 50_000,
        });
        f.counters.instances_drawn = (7000.0 * k) as u64;
        f.counters.instances_submitted = 465_576;
        f.counters.bytes_uploaded = (300.0 * k) as u64;
    }
    s
}

/// Every GPU pass the fixture runs draw (known passes of both subsystems,
/// two unknown ones, and the frame's clear).
pub(crate) const FIXTURE_PASSES: [&str; 12] = [
    "grass.cull",
    "grass.draw",
    "grass.grid.compact",
    "grass.hiz",
    "grass.experimental.a",
    "grass.experimental.b",
    "terrain.cull",
    "terrain.cull.readback",
    "terrain.draw",
    "terrain.clipmap",
    "terrain.hiz",
    "frame.clear",
];

/// A report of `n` runs (baseline first, then every grass x terrain
/// combination, then parameter variants of `gpu-cull`), each with GPU work,
/// thread times and allocations: the fixture of the chart and compare tests.
pub(crate) fn many_runs_report(n: usize) -> Report {
    let grass = [
        "static-batch",
        "legacy-cpu",
        "gpu-cull",
        "camera-grid",
        "off",
    ];
    let terrain = [
        "static-chunks",
        "atlas-instanced",
        "gpu-cull",
        "clipmap",
        "off",
    ];
    let mut tiers = vec![TierPair::baseline()];
    for g in grass {
        for t in terrain {
            let pair = TierPair::new(g, t);
            if !(pair.is_baseline() || (g == "off" && t == "off")) {
                tiers.push(pair);
            }
        }
    }
    for occlusion in ["on", "auto", "off"] {
        let mut pair = TierPair::new("gpu-cull", "gpu-cull");
        pair.params
            .grass
            .insert("occlusion".into(), ParamValue::Text(occlusion.into()));
        pair.label = format!("gpu-cull:occlusion={occlusion}+gpu-cull");
        tiers.push(pair);
    }
    assert!(n <= tiers.len(), "at most {} fixture runs", tiers.len());
    let runs: Vec<Run> = tiers
        .into_iter()
        .take(n)
        .enumerate()
        .map(|(i, t)| {
            let passes: Vec<&str> = FIXTURE_PASSES
                .iter()
                .copied()
                .filter(|p| {
                    (t.grass != "off" || !p.starts_with("grass."))
                        && (t.terrain != "off" || !p.starts_with("terrain."))
                })
                .collect();
            build_run(&work_samples(t, 0.5 + 0.1 * i as f64, &passes)).expect("fixture run")
        })
        .collect();
    report_of(runs, &BTreeMap::new())
}

/// A report around `runs`, with their comparisons.
pub(crate) fn report_of(runs: Vec<Run>, diffs: &BTreeMap<TierPair, ImageDiff>) -> Report {
    let comparisons = build_comparisons(&runs, diffs).expect("fixture comparisons");
    Report {
        schema: SCHEMA.to_owned(),
        sward_version: "0.1.0".to_owned(),
        preset: "elwynn-dense".to_owned(),
        adapter: AdapterInfo {
            name: "llvmpipe (LLVM 19, 256 bits)".to_owned(),
            backend: "vulkan".to_owned(),
            device_type: "Cpu".to_owned(),
            driver: "llvmpipe".to_owned(),
        },
        size: [640, 360],
        msaa: 4,
        frames: 9,
        warmup: 2,
        scene: SceneInfo {
            adts: 9,
            mcnks: 2304,
            placements: 465_524,
            models: 14,
            triangles_terrain: 589_824,
            missing_models: 0,
            placeholder_models: 0,
            placeholder_placements: 0,
            absent_tiles: 0,
            client: None,
            textures: None,
        },
        config: BTreeMap::from([("indirect_validation".to_owned(), false.into())]),
        runs,
        comparisons,
        refused: Vec::new(),
    }
}
