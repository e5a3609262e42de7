//! End-to-end checks of the bench, shot and capture on the real (software)
//! device: the quick bench's report validates and its ratios are recomputed
//! from its runs; a capture carries CPU pass scopes and the GPU thread.

use std::path::PathBuf;

use super::*;
use crate::validate::validate_report;
use sward_profiling::puffin_bridge::{read_capture, GPU_THREAD_NAME};

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sward-bench-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn quick_bench_writes_a_valid_report_with_computed_ratios() {
    // Holding the shared test GPU keeps other GPU tests off the rasteriser meanwhile.
    let Some(_gpu) = sward_engine::testing::gpu() else {
        return;
    };
    let out = out_dir("quick");
    let opts = BenchOptions {
        preset: Some("seams-holes".into()),
        tiers: Some("legacy-cpu".into()),
        frames: Some(3),
        warmup: Some(1),
        quick: true,
        out: out.clone(),
        ..BenchOptions::default()
    };
    let outcome = run_bench(&opts).expect("quick bench runs");
    let text = std::fs::read_to_string(out.join("report.json")).expect("report.json written");
    let value: serde_json::Value = serde_json::from_str(&text).expect("report.json parses");
    validate_report(&value).unwrap_or_else(|errs| panic!("invalid report: {errs:#?}"));
    let runs = value["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 2, "baseline + legacy-cpu");
    assert_eq!(value["runs"][0]["tier"]["grass"], "static-batch");
    // Ratios are recomputed from the runs' medians, not copied.
    let base = &runs[0];
    let legacy = &runs[1];
    let cmp = &value["comparisons"][0];
    let expect = legacy["cpu_grass_ms"]["median"].as_f64().unwrap()
        / base["cpu_grass_ms"]["median"].as_f64().unwrap();
    let got = cmp["cpu_grass_ratio"].as_f64().unwrap();
    assert!(
        (got - expect).abs() <= 1e-9 * expect.abs().max(1.0),
        "{got} vs {expect}"
    );
    // static-batch uploads uniforms only; legacy-cpu uploads matrices every frame.
    let base_bytes = base["bytes_uploaded"].as_u64().unwrap();
    let legacy_bytes = legacy["bytes_uploaded"].as_u64().unwrap();
    assert!(
        base_bytes < 1024,
        "static-batch uploaded {base_bytes} bytes per frame"
    );
    assert!(
        legacy_bytes > base_bytes + 64 * 16,
        "legacy-cpu uploaded {legacy_bytes} bytes"
    );
    // Screenshots exist and legacy-cpu looks like the baseline.
    for run in runs {
        let image = run["image"].as_str().expect("image name");
        assert!(out.join(image).is_file(), "{image} missing");
    }
    let rmse = cmp["image_diff"]["rmse"].as_f64().unwrap();
    assert!(
        rmse < 8.0,
        "legacy-cpu differs from static-batch: rmse {rmse}"
    );
    assert!(out.join("report.md").is_file());
    assert!(outcome.headline.contains("legacy-cpu+static-chunks"));
    // The preset's procedural textures are RGBA8: counted as such, none BC
    // or decoded, under the default `auto` upload.
    assert_eq!(value["config"]["texture_upload"], "auto");
    let models = value["scene"]["models"].as_u64().expect("models");
    let textures = &value["scene"]["textures"];
    assert_eq!(
        (
            textures["bc"].as_u64(),
            textures["decoded"].as_u64(),
            textures["rgba"].as_u64()
        ),
        (Some(0), Some(0), Some(models)),
        "{textures}"
    );
    let md = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(
        md.contains(&format!(
            "0 uploaded as BC, 0 decoded on the CPU, {models} RGBA8 (texture upload auto)"
        )),
        "report.md lacks the texture row"
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn every_combination_runs_without_wgpu_validation_errors_and_sweeps_keep_their_parameters() {
    let Some(gpu) = sward_engine::testing::gpu() else {
        return;
    };
    // Every registered grass x terrain pair and each tier alone (default
    // parameters), plus a parameter sweep, with wgpu's own validation of
    // indirect draws on: a validation error anywhere fails the bench.
    let mut tiers: Vec<String> = sward_passes::technique::default_bench_combos(&gpu.caps)
        .iter()
        .map(ToString::to_string)
        .collect();
    tiers.extend(["gpu-cull:patch=1", "gpu-cull:patch=4"].map(String::from));
    let out = out_dir("matrix");
    let opts = BenchOptions {
        preset: Some("seams-holes".into()),
        tiers: Some(tiers.join(",")),
        frames: Some(2),
        warmup: Some(1),
        size: Some("96x64".into()),
        quick: true,
        indirect_validation: true,
        out: out.clone(),
        ..BenchOptions::default()
    };
    let outcome = run_bench(&opts).expect("every combination runs with indirect validation");
    let text = std::fs::read_to_string(out.join("report.json")).expect("report.json written");
    let value: serde_json::Value = serde_json::from_str(&text).expect("report.json parses");
    validate_report(&value).unwrap_or_else(|errs| panic!("invalid report: {errs:#?}"));
    let runs = value["runs"].as_array().expect("runs");
    // The baseline is in the default list too, so it is not run twice.
    assert_eq!(runs.len(), tiers.len(), "{:?}", outcome.report.runs.len());
    let patches: Vec<i64> = runs
        .iter()
        .filter(|r| r["tier"]["grass"] == "gpu-cull" && r["tier"]["terrain"] == "static-chunks")
        .map(|r| {
            r["tier"]["params"]["grass"]["patch"]
                .as_i64()
                .expect("patch recorded")
        })
        .collect();
    assert_eq!(patches, [2, 1, 4], "default first, then the sweep");
    let _ = std::fs::remove_dir_all(&out);
}

/// `sward scale` on `scale-0.25`: each tier's memory, per placement,
/// per-frame counters and its tile change in place; camera-grid's work is
/// two invocations per candidate plus the offsets workgroup.
#[test]
fn scale_measures_each_tier_and_its_tile_change() {
    let Some(_gpu) = sward_engine::testing::gpu() else {
        return;
    };
    let out = out_dir("scale");
    let r = run_scale(&ScaleOptions {
        scales: vec![0.25],
        tiers: Some("static-batch,camera-grid".into()),
        frames: 2,
        warmup: 4,
        size: [160, 90],
        msaa: 1,
        out: out.clone(),
        adapter: None,
    })
    .expect("scale runs");
    assert_eq!(r.schema, SCALE_SCHEMA);
    assert_eq!(r.rows.len(), 2);
    for row in &r.rows {
        assert_eq!(row.preset, "scale-0.25");
        assert!(row.refused.is_none(), "{row:?}");
        assert!(row.placements > 100_000);
        assert!(row.gpu_memory_bytes > r.models_gpu_memory_bytes);
        let per = row.gpu_memory_bytes as f64 / row.placements as f64;
        assert!((row.bytes_per_placement - per).abs() < 1e-9);
        assert_eq!(row.tile_change_in_place, Some(true), "{row:?}");
        assert!(row.bytes_per_tile_change > Some(0));
        assert!(row.instances_drawn > 0);
    }
    let (batch, grid) = (&r.rows[0], &r.rows[1]);
    assert_eq!(batch.tier, "static-batch");
    // static-batch draws every placement, with no compute.
    assert_eq!(batch.instances_drawn, batch.placements);
    assert!(batch.cs_invocations.is_none_or(|cs| cs == 0));
    assert_eq!(grid.tier, "camera-grid");
    let note = |k: &str| grid.notes.iter().find(|(n, _)| n == k).map(|(_, v)| *v);
    assert_eq!(note("grid_placements_thinned"), Some(0.0));
    let candidates = 181u64 * 181 * note("grid_candidates_per_slot").unwrap() as u64;
    if let Some(cs) = grid.cs_invocations {
        assert_eq!(cs, 2 * candidates.div_ceil(64) * 64 + 256);
    }
    let md = write_scale(&r, &out).expect("written");
    let text = std::fs::read_to_string(md).unwrap();
    assert!(
        text.contains("| 0.25 |") && text.contains("camera-grid"),
        "{text}"
    );
}

#[test]
fn bench_rejects_unwritable_output_before_gpu_work() {
    let file = std::env::temp_dir().join(format!("sward-bench-test-{}-file", std::process::id()));
    std::fs::write(&file, b"not a directory").unwrap();
    let opts = BenchOptions {
        quick: true,
        out: file.join("sub"),
        ..BenchOptions::default()
    };
    let err = run_bench(&opts).expect_err("a file is no directory");
    assert!(err.to_string().contains("sward-bench-test"), "{err}");
    let _ = std::fs::remove_file(&file);
}

#[test]
fn bench_refuses_off_plus_off_and_bad_parameters_before_any_gpu_work() {
    for (tiers, expect) in [
        ("off+off", "draws nothing"),
        ("gpu-cull:patch=3", "1, 2, 4"),
        ("gpu-cull:nope=1", "valid parameters: patch"),
    ] {
        let out = out_dir("refused");
        let opts = BenchOptions {
            preset: Some("seams-holes".into()),
            tiers: Some(tiers.into()),
            quick: true,
            out: out.clone(),
            ..BenchOptions::default()
        };
        let err = run_bench(&opts).expect_err(tiers);
        assert!(err.to_string().contains(expect), "{tiers}: {err}");
        assert!(
            !out.join("report.json").exists(),
            "no report for a refused bench"
        );
    }
}

#[test]
fn density_sets_the_client_picks_and_bad_values_are_refused_before_gpu_work() {
    let plan = |preset: &str, density| {
        BenchOptions {
            preset: Some(preset.into()),
            data: sward_scenes::formats::DataOptions {
                density,
                ..Default::default()
            },
            quick: true,
            ..BenchOptions::default()
        }
        .plan()
    };
    let p = plan("elwynn-client", Some(48)).expect("a client preset takes a density");
    assert_eq!(p.preset.policy().density(), Some(48));
    assert_eq!(
        plan("elwynn-client", None)
            .unwrap()
            .preset
            .policy()
            .density(),
        Some(16)
    );
    for (preset, density, expect) in [
        ("elwynn-client", 8, "16..=256"),
        ("elwynn-client", 257, "16..=256"),
        ("elwynn-dense", 32, "per-cell"),
    ] {
        let err = plan(preset, Some(density)).expect_err(preset).to_string();
        assert!(err.contains("--density") && err.contains(expect), "{err}");
    }
    let opts = OneOffOptions {
        preset: "seams-holes".into(),
        tier: "static-batch".into(),
        size: [16, 16],
        msaa: 1,
        adapter: None,
        data: sward_scenes::formats::DataOptions {
            density: Some(16),
            ..Default::default()
        },
    };
    let err = shot(&opts, None, &out_dir("density").join("x.png")).expect_err("per-cell");
    assert!(err.to_string().contains("per-cell"), "{err}");
}

#[test]
fn shot_and_capture_write_files() {
    let Some(_gpu) = sward_engine::testing::gpu() else {
        return;
    };
    let out = out_dir("oneoff");
    std::fs::create_dir_all(&out).unwrap();
    let opts = OneOffOptions {
        preset: "seams-holes".into(),
        tier: "static-batch+static-chunks".into(),
        size: [160, 96],
        msaa: 4,
        adapter: None,
        data: Default::default(),
    };
    let png = shot(&opts, None, &out.join("shot.png")).expect("shot");
    let img = image::open(&png).expect("png readable").to_rgba8();
    assert_eq!(img.dimensions(), (160, 96));
    let err = shot(&opts, Some("no-such-view"), &out.join("x.png")).expect_err("unknown view");
    assert!(err.to_string().contains("views:"), "{err}");

    let path = out.join("cap.puffin");
    let frames = capture(&opts, 3, &path).expect("capture");
    assert!(frames >= 3, "{frames} frames captured");
    let summary = read_capture(&path).expect("capture parses");
    let gpu_scopes = summary.scope_names(GPU_THREAD_NAME);
    assert!(
        gpu_scopes.contains("grass.draw"),
        "GPU scopes: {gpu_scopes:?}"
    );
    assert!(
        gpu_scopes.contains("terrain.draw"),
        "GPU scopes: {gpu_scopes:?}"
    );
    let cpu_pass = summary
        .scopes
        .iter()
        .any(|s| s.thread != GPU_THREAD_NAME && s.name == "grass.draw");
    assert!(cpu_pass, "no CPU scope for grass.draw in the capture");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn data_dir_errors_name_the_directory() {
    let preset = sward_scenes::presets::Preset::by_name("seams-holes").unwrap();
    let dir = std::env::temp_dir().join(format!("sward-bench-test-{}-nodata", std::process::id()));
    let err = preset
        .scene(&sward_scenes::formats::DataOptions::for_dir(&dir))
        .expect_err("no such directory");
    let text = err.to_string();
    assert!(
        text.starts_with("--data ") && text.contains("nodata"),
        "{text}"
    );
}

#[test]
fn shot_and_capture_honour_data_with_the_presets_views() {
    let Some(_gpu) = sward_engine::testing::gpu() else {
        return;
    };
    let out = out_dir("oneoff-data");
    let data = out.join("data");
    let preset = sward_scenes::presets::Preset::by_name("seams-holes").unwrap();
    let scene = preset.build().unwrap();
    sward_scenes::formats::export_data_dir(
        &data,
        scene.world(),
        &scene.effects,
        &scene.models,
        None,
    )
    .expect("export");
    let opts = |data: Option<PathBuf>| OneOffOptions {
        preset: "seams-holes".into(),
        tier: "gpu-cull".into(),
        size: [160, 96],
        msaa: 4,
        adapter: None,
        data: sward_scenes::formats::DataOptions {
            dir: data,
            ..Default::default()
        },
    };
    let from_preset = shot(&opts(None), Some("aerial"), &out.join("preset.png")).unwrap();
    let from_data = shot(
        &opts(Some(data.clone())),
        Some("aerial"),
        &out.join("data.png"),
    )
    .unwrap();
    let a = image::open(&from_preset).unwrap().to_rgba8();
    let b = image::open(&from_data).unwrap().to_rgba8();
    let diff = crate::imagediff::diff_images(&a, &b).expect("same size");
    assert!(
        diff.rmse < 1.0,
        "the exported world's shot differs from the preset's: {diff:?}"
    );
    let frames = capture(&opts(Some(data)), 2, &out.join("cap.puffin")).expect("capture");
    assert!(frames >= 2);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bench_at_a_named_view_measures_there_and_unknown_names_list_the_choices() {
    let Some(_gpu) = sward_engine::testing::gpu() else {
        return;
    };
    let opts = |view: Option<&str>, path: Option<&str>, out: PathBuf| BenchOptions {
        preset: Some("seams-holes".into()),
        tiers: Some("legacy-cpu".into()),
        frames: Some(2),
        warmup: Some(1),
        size: Some("96x64".into()),
        quick: true,
        view: view.map(str::to_owned),
        path: path.map(str::to_owned),
        out,
        ..BenchOptions::default()
    };
    let out = out_dir("view");
    let err = run_bench(&opts(Some("nope"), None, out.clone())).expect_err("unknown view");
    assert!(err.to_string().contains("aerial"), "{err}");
    let err = run_bench(&opts(None, Some("flight"), out.clone())).expect_err("unknown path");
    assert!(err.to_string().contains("paths: walk"), "{err}");
    let err = run_bench(&opts(Some("aerial"), Some("walk"), out.clone())).expect_err("both");
    assert!(err.to_string().contains("exclude"), "{err}");
    run_bench(&opts(Some("aerial"), None, out.clone())).expect("bench at a view");
    let text = std::fs::read_to_string(out.join("report.json")).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    for run in value["runs"].as_array().unwrap() {
        assert_eq!(run["extra"]["view"], "aerial", "{run}");
        assert_eq!(run["extra"]["screenshot_view"], "aerial");
        assert!(run["extra"].get("path").is_none());
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bench_along_the_flight_moves_the_window_and_reports_streaming() {
    let Some(_gpu) = sward_engine::testing::gpu() else {
        return;
    };
    // Two frames: the flight's start and its end, one tile row over, so
    // the second frame enters another tile.
    let opts = |stream: StreamMode, out: PathBuf| BenchOptions {
        preset: Some("continent".into()),
        tiers: Some("static-batch".into()),
        frames: Some(2),
        warmup: Some(0),
        size: Some("64x48".into()),
        quick: true,
        path: Some("flight".into()),
        stream,
        out,
        ..BenchOptions::default()
    };
    // On the render thread the window slides in that frame: 3 tiles in, 3 out.
    let out = out_dir("flight");
    let outcome = run_bench(&opts(StreamMode::RenderThread, out.clone())).expect("bench");
    let text = std::fs::read_to_string(out.join("report.json")).expect("report.json");
    let value: serde_json::Value = serde_json::from_str(&text).expect("parses");
    validate_report(&value).unwrap_or_else(|errs| panic!("invalid report: {errs:#?}"));
    let run = &outcome.report.runs[0];
    assert_eq!(run.extra["path"], "flight");
    let s = run.streaming.as_ref().expect("streaming section");
    assert_eq!(s.mode, "render-thread");
    assert_eq!(
        (s.slides, s.changes, s.tiles_loaded, s.tiles_evicted),
        (1, 1, 3, 3),
        "{s:?}"
    );
    assert_eq!(s.slide_frames, [1]);
    assert!(s.tile_bytes > 0 && s.bytes_uploaded > 0 && s.max_frame_ms > 0.0);
    assert!(run.cpu_frame_ms.p99.is_some());
    let md = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(
        md.contains("## Streaming"),
        "report.md lacks the streaming table"
    );
    // The screenshot is taken back at the preset's first view.
    assert_eq!(run.extra["screenshot_view"], "ground-yaw0");
    let _ = std::fs::remove_dir_all(&out);

    // With workers kept up (the default pace) the camera enters the tile
    // in frame 1 with its three new tiles finished: the budget applies one
    // that frame (hysteresis evicts nothing yet), so frame 1 still misses
    // two.
    let out = out_dir("flight-workers");
    let outcome = run_bench(&opts(StreamMode::Workers, out.clone())).expect("bench");
    let text = std::fs::read_to_string(out.join("report.json")).expect("report.json");
    let value: serde_json::Value = serde_json::from_str(&text).expect("parses");
    validate_report(&value).unwrap_or_else(|errs| panic!("invalid report: {errs:#?}"));
    let s = outcome.report.runs[0]
        .streaming
        .as_ref()
        .expect("streaming");
    assert_eq!((s.mode.as_str(), s.slides), ("workers", 1), "{s:?}");
    assert_eq!(s.pace, "keep-up");
    assert_eq!(s.slide_frames, [1]);
    assert_eq!(
        (s.tiles_loaded, s.tiles_evicted, s.frames_missing_tiles),
        (1, 0, 1),
        "{s:?}"
    );
    assert!(s.worker_wait_ms >= s.max_worker_wait_ms && s.max_worker_wait_ms >= 0.0);
    let md = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(md.contains("| workers (keep-up) |"), "{md}");
    let _ = std::fs::remove_dir_all(&out);

    // Free pace: whether the new tiles are finished by frame 1 depends on
    // the workers, so only the slide and the bounds are fixed.
    let out = out_dir("flight-free");
    let free = BenchOptions {
        stream_pace: StreamPace::Free,
        ..opts(StreamMode::Workers, out.clone())
    };
    let outcome = run_bench(&free).expect("bench");
    let s = outcome.report.runs[0]
        .streaming
        .as_ref()
        .expect("streaming");
    assert_eq!((s.pace.as_str(), s.slides), ("free", 1), "{s:?}");
    assert!(s.tiles_loaded <= 1 && s.tiles_evicted == 0, "{s:?}");
    assert_eq!(
        s.frames_missing_tiles, 1,
        "frame 1 misses at least two tiles: {s:?}"
    );
    assert_eq!((s.worker_wait_ms, s.max_worker_wait_ms), (0.0, 0.0));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_budget_runs_its_benches_and_an_exceeded_bound_fails_naming_it() {
    let Some(gpu) = sward_engine::testing::gpu() else {
        return;
    };
    let out = out_dir("budget");
    std::fs::create_dir_all(&out).unwrap();
    let file = out.join("b.toml");
    let budget = format!(
        r#"[budget]
driver = "{}"
size = "96x64"
frames = 2
warmup = 1

["seams-holes/default/gpu-cull+off"]
instances_drawn = {{ min = 1 }}
draw_calls = {{ max = 0 }}
image_rmse = {{ max = 255 }}
"#,
        gpu.summary.driver
    );
    std::fs::write(&file, budget).unwrap();
    let opts = BenchOptions {
        out: out.join("reports"),
        ..BenchOptions::default()
    };
    let run = crate::budget::run_budget(&file, &opts).expect("the budget's bench runs");
    assert_eq!(run.outcome.counts(), (2, 1, 0), "{}", run.outcome.text());
    let report = out.join("reports/seams-holes/default/report.json");
    assert!(report.is_file(), "{} missing", report.display());
    assert!(run.json.is_file());
    let draws = run.outcome.results[1].value.expect("draw calls counted");
    assert!(draws >= 1.0);
    let e = run.verdict().unwrap_err().to_string();
    let expect = format!(
        "1 of 3 bounds failed: seams-holes/default/gpu-cull+off draw_calls = {draws}, bound <= 0"
    );
    assert!(e.contains(&expect), "{e}");
    // A budget file that names no valid figure fails before any GPU work.
    std::fs::write(&file, "[budget]\ndriver = \"x\"\nsize = \"96x64\"\nframes = 2\n[\"seams-holes/default/gpu-cull\"]\ndraws = { max = 1 }\n").unwrap();
    let e = crate::budget::run_budget(&file, &opts)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown figure `draws`") && e.contains("draw_calls"),
        "{e}"
    );
}

/// Two benches of one build compare as "no change" in every counter (they
/// are exact), and a deliberate change (camera-grid's slot spacing halved:
/// four times the slots, as a build whose default changed would draw) is
/// named with its pass.
#[test]
fn compare_sees_no_change_between_two_benches_and_names_the_pass_of_a_real_change() {
    let Some(_gpu) = sward_engine::testing::gpu() else {
        return;
    };
    let bench = |name: &str, tiers: &str| {
        let out = out_dir(name);
        run_bench(&BenchOptions {
            preset: Some("seams-holes".into()),
            tiers: Some(tiers.into()),
            frames: Some(3),
            warmup: Some(1),
            size: Some("160x90".into()),
            out: out.clone(),
            ..BenchOptions::default()
        })
        .expect("bench runs");
        out
    };
    let (a, b) = (bench("cmp-a", "camera-grid"), bench("cmp-b", "camera-grid"));
    let changed = bench("cmp-c", "camera-grid:spacing=1.25");
    // Record the changed run under the default's name, as a build whose
    // default spacing changed would.
    let path = changed.join("report.json");
    let mut report: crate::report::Report =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let default = crate::writer::read_report_dir(&a).unwrap().runs[1]
        .tier
        .clone();
    let old = report.runs[1].tier.clone();
    report.runs[1].tier = default.clone();
    for c in report.comparisons.iter_mut().filter(|c| c.tier == old) {
        c.tier = default.clone();
    }
    std::fs::write(&path, serde_json::to_string(&report).unwrap()).unwrap();

    let (sa, sb) = crate::compare::load_pair(&a, &b).unwrap();
    let same = crate::compare::compare(&sa, &sb).unwrap();
    let text = crate::compare::headline_text(&same);
    assert_eq!(same.runs.len(), 2, "{text}");
    assert_eq!(same.totals.counters_changed, 0, "{text}");
    assert!(text.contains("counters: no change in 2 runs"), "{text}");
    for run in &same.runs {
        assert!(run.counters.len() > 10, "{} counters", run.counters.len());
    }

    let (sa, sc) = crate::compare::load_pair(&a, &changed).unwrap();
    let diff = crate::compare::compare(&sa, &sc).unwrap();
    let text = crate::compare::headline_text(&diff);
    let base = diff.runs.iter().find(|r| r.tier.is_baseline()).unwrap();
    assert_eq!(base.changed().count(), 0, "{text}");
    let grid = diff.runs.iter().find(|r| r.tier == default).unwrap();
    let passes: Vec<&str> = grid.changed().filter_map(|c| c.pass.as_deref()).collect();
    assert!(passes.iter().any(|p| p.starts_with("grass.")), "{text}");
    assert!(text.contains("camera-grid+static-chunks [grass."), "{text}");
}
