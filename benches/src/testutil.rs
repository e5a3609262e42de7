//! Test fixtures shared by the unit tests: scratch directories and a small but
//! complete report built through the real assembly path.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::assemble::{build_comparisons, build_run, tests::scaled_samples};
use crate::report::{AdapterInfo, ImageDiff, Report, SceneInfo, TierPair, SCHEMA};

/// A fresh, empty scratch directory unique to this process and call.
pub(crate) fn test_dir(name: &str) -> PathBuf {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "sward-benches-test-{}-{name}-{n}",
        std::process::id()
    ));
    // A leftover from a crashed run of the same pid is stale; start empty.
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create test dir");
    dir
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
        },
        config: BTreeMap::from([("indirect_validation".to_owned(), false.into())]),
        runs,
        comparisons,
    }
}
