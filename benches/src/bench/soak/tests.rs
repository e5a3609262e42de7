//! Soak tests: the samples, the refusals, the window's cycle, and a short
//! soak of every terrain and grass tier whose wgpu objects must come back
//! to the warm-up's.

use super::*;

#[test]
fn short_soak_reports_memory_after_every_slide() {
    let Some(_gpu) = sward_engine::testing::gpu() else {
        return;
    };
    let report = run_soak(&SoakOptions::new(3, Some("static-batch".into()))).expect("soak runs");
    assert_eq!(report.samples.len(), 3, "one tier, three slides");
    for (k, s) in report.samples.iter().enumerate() {
        assert_eq!(s.slide, k as u32 + 1);
        assert_eq!((s.tiles_loaded, s.tiles_evicted), (3, 3), "{s:?}");
        assert!(s.gpu_memory_bytes > 0);
        let w = s.wgpu.expect("wgpu-core counts");
        assert!(
            w.handles.buffers > 0 && w.device.buffers >= w.handles.buffers,
            "{w:?}"
        );
        if cfg!(target_os = "linux") {
            assert!(s.rss_bytes.is_some_and(|b| b > 0));
        }
    }
    // The same window size after every slide holds the same GPU memory
    // within the placement count's variation: no slide adds a window.
    let first = report.samples[0].gpu_memory_bytes as f64;
    for s in &report.samples {
        let r = s.gpu_memory_bytes as f64 / first;
        assert!((0.5..2.0).contains(&r), "{r}");
    }
    // Three slides are too few to check growth after the warm-up; the
    // summary says so instead of passing quietly.
    assert!(report.summary.tiers.is_empty());
    assert_eq!(report.summary.unchecked.len(), 1, "{:?}", report.summary);
    let text = soak_text(&report);
    assert!(
        text.contains("rss MiB") && text.contains("not checked"),
        "{text}"
    );
}

#[test]
fn soak_refuses_worlds_resident_whole_zero_slides_and_a_bad_bound() {
    let o = |preset: &str, slides| SoakOptions {
        preset: preset.into(),
        ..SoakOptions::new(slides, None)
    };
    let e = run_soak(&o("continent", 0)).expect_err("zero slides");
    assert!(e.to_string().contains("--slides"), "{e}");
    let e = run_soak(&o("seams-holes", 3)).expect_err("resident whole");
    assert!(e.to_string().contains("larger than"), "{e}");
    let e = run_soak(&SoakOptions {
        max_growth_mib: -1.0,
        ..o("continent", 3)
    })
    .expect_err("negative bound");
    assert!(e.to_string().contains("--max-growth"), "{e}");
}

#[test]
fn slides_go_out_and_back() {
    let v: Vec<i32> = (1..=7).map(offset).collect();
    assert_eq!(v, [1, 2, 3, 2, 1, 0, 1]);
    // The window is back at the same tiles every PERIOD slides.
    assert!((1..=30).all(|k| offset(k) == offset(k + PERIOD)));
}

/// Every terrain and grass tier the device runs is soaked (the baseline
/// brings `static-batch` and `static-chunks`); after the warm-up, the
/// objects wgpu holds (handles and device objects, buffer and texture
/// bytes) and sward's GPU accounting must be the same at the last slide
/// as at the reference slide with the same window. RSS is not asserted
/// here: other tests of this binary allocate in the same process.
#[test]
fn every_tier_holds_the_same_wgpu_objects_after_a_short_soak() {
    // Held for the soak's length: no other GPU test of this binary runs
    // meanwhile (the soak makes its own device).
    let Some(gpu) = sward_engine::testing::gpu() else {
        return;
    };
    let caps = &gpu.caps;
    let tiers = "legacy-cpu+atlas-instanced,gpu-cull+gpu-cull,camera-grid+clipmap";
    // One slide of warm-up (the first slide fills what is made once), then
    // one full cycle back to the same window: 7 slides per combination.
    let report = run_soak(&SoakOptions {
        warmup: 1,
        ..SoakOptions::new(1 + PERIOD, Some(tiers.into()))
    })
    .expect("soak runs");
    for entry in sward_passes::technique::registry() {
        if !caps.missing(entry.requires).is_empty() {
            continue;
        }
        let covered = report.summary.tiers.iter().any(|t| {
            let (grass, terrain) = t.tier.split_once('+').unwrap_or((&t.tier, ""));
            match entry.subsystem {
                sward_passes::technique::Subsystem::Grass => grass == entry.name,
                sward_passes::technique::Subsystem::Terrain => terrain == entry.name,
            }
        });
        assert!(
            covered,
            "{:?} {} is not soaked",
            entry.subsystem, entry.name
        );
    }
    let kept: Vec<String> = report
        .summary
        .failures()
        .into_iter()
        .filter(|f| !f.contains("rss_bytes") && !f.contains("live_heap_bytes"))
        .collect();
    assert!(kept.is_empty(), "objects kept alive:\n{}", kept.join("\n"));
    for t in &report.summary.tiers {
        assert_eq!((t.reference_slide, t.last_slide), (1, 7), "{}", t.tier);
        assert!(
            t.figures.iter().any(|g| g.figure == "wgpu.device.buffers"),
            "{}: no wgpu counts",
            t.tier
        );
    }
}
