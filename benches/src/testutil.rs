//! Test fixtures shared by the unit tests: scratch directories and a small but
//! complete report built through the real assembly path.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::assemble::{build_comparisons, build_run, tests::scaled_samples};
use crate::report::{AdapterInfo, ImageDiff, Report, SceneInfo, TierPair, SCHEMA};

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
    let comparisons = build_comparisons(&runs, &diffs).expect("fixture comparisons");
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
