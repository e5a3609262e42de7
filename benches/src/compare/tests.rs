//! `sward compare` on synthetic reports: a report against itself changes
//! nothing; a deliberate change is named with its pass; mismatched reports
//! are refused naming the mismatch; screenshots are diffed and the output
//! folder written.

use std::path::{Path, PathBuf};

use super::*;
use crate::testutil::many_runs_report;
use sward_passes::technique::ParamValue;

fn side(report: Report) -> Side {
    Side {
        dir: PathBuf::from("."),
        report,
    }
}

/// Writes `report` as `dir/report.json` with a 4x4 screenshot per run, the
/// pixel at (1, 2) coloured `pixel`.
fn write_report(dir: &Path, report: &Report, pixel: [u8; 4]) -> Side {
    std::fs::create_dir_all(dir).unwrap();
    for run in &report.runs {
        let mut img = image::RgbaImage::from_pixel(4, 4, image::Rgba([40, 90, 40, 255]));
        img.put_pixel(1, 2, image::Rgba(pixel));
        img.save(dir.join(run.image.as_ref().unwrap())).unwrap();
    }
    std::fs::write(
        dir.join("report.json"),
        serde_json::to_string(report).unwrap(),
    )
    .unwrap();
    Side {
        dir: dir.to_owned(),
        report: report.clone(),
    }
}

#[test]
fn a_report_against_itself_changes_nothing() {
    let r = many_runs_report(8);
    let c = compare(&side(r.clone()), &side(r)).unwrap();
    assert_eq!(c.runs.len(), 8);
    assert_eq!(c.totals.counters_changed, 0);
    assert_eq!(c.totals.timers_faster + c.totals.timers_slower, 0);
    for run in &c.runs {
        assert!(run.counters.len() > 20, "{} counters", run.counters.len());
        assert_eq!(run.timers.len(), 3);
        for t in &run.timers {
            let i = t.interval.unwrap();
            assert!(i.low <= 1.0 && i.high >= 1.0, "{t:?}");
            assert_eq!(i.verdict, Verdict::NoChange);
        }
    }
    let text = headline_text(&c);
    assert!(text.matches("no change").count() >= 8 * 4, "{text}");
    assert!(text.contains("counters: no change in 8 runs"), "{text}");
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn a_doubled_pass_is_named_with_its_pass_and_a_slower_timer() {
    let before = many_runs_report(6);
    let mut after = before.clone();
    let run = after
        .runs
        .iter_mut()
        .find(|r| r.tier.to_string() == "legacy-cpu+static-chunks")
        .unwrap();
    let work = run.gpu_work.as_mut().unwrap();
    let draw = work.per_pass.get_mut("grass.draw").unwrap();
    draw.median.vs_invocations *= 2;
    let series = run.frame_series.as_mut().unwrap();
    for v in series.gpu_frame_ms.iter_mut().flatten() {
        *v *= 2.0;
    }
    let c = compare(&side(before), &side(after)).unwrap();
    assert_eq!(c.totals.counters_changed, 1);
    assert_eq!(c.totals.runs_with_counter_changes, 1);
    let changed = c.runs.iter().find(|r| r.changed().count() == 1).unwrap();
    assert_eq!(changed.tier.to_string(), "legacy-cpu+static-chunks");
    let ch = changed.changed().next().unwrap();
    assert_eq!(ch.pass.as_deref(), Some("grass.draw"));
    assert_eq!(ch.figure, "grass.draw.vs_invocations");
    assert_eq!(ch.after, ch.before.map(|b| 2 * b));
    let gpu = changed
        .timers
        .iter()
        .find(|t| t.figure == "gpu_frame_ms")
        .unwrap();
    assert_eq!(gpu.verdict(), Verdict::Slower);
    assert!((gpu.interval.unwrap().ratio - 2.0).abs() < 1e-9);
    let text = headline_text(&c);
    let line = format!(
        "legacy-cpu+static-chunks [grass.draw] vs_invocations: {} -> {} (2.00x)",
        crate::markdown::count(ch.before.unwrap()),
        crate::markdown::count(ch.after.unwrap())
    );
    assert!(text.contains(&line), "{line} missing in\n{text}");
    assert!(text.contains("1 changed in 1 of 6 runs"), "{text}");
    let md = markdown(&c, &[]);
    assert!(
        md.contains("| legacy-cpu+static-chunks | grass.draw | vs_invocations |"),
        "{md}"
    );
}

#[test]
fn a_pass_that_appears_or_goes_is_a_change() {
    let before = many_runs_report(3);
    let mut after = before.clone();
    let work = after.runs[1].gpu_work.as_mut().unwrap();
    let hiz = work.per_pass.remove("grass.hiz").unwrap();
    work.per_pass.insert("grass.hiz2".into(), hiz);
    let c = compare(&side(before), &side(after)).unwrap();
    let gone: Vec<&CounterChange> = c.runs[1].changed().collect();
    assert_eq!(gone.len(), 10, "five counters gone, five new");
    assert!(gone
        .iter()
        .any(|g| g.figure == "grass.hiz.vs_invocations" && g.after.is_none()));
    assert!(gone
        .iter()
        .any(|g| g.figure == "grass.hiz2.cs_invocations" && g.before.is_none()));
}

#[test]
fn allocations_change_beyond_one_percent_only() {
    let before = many_runs_report(2);
    let mut after = before.clone();
    let a = after.runs[1].allocs_per_frame.as_mut().unwrap();
    a.bytes_median += 24;
    a.count_median += 1;
    let c = compare(&side(before.clone()), &side(after.clone())).unwrap();
    assert_eq!(c.totals.counters_changed, 0, "{}", headline_text(&c));
    after.runs[1]
        .allocs_per_frame
        .as_mut()
        .unwrap()
        .count_median += 4;
    let c = compare(&side(before), &side(after)).unwrap();
    let ch: Vec<&str> = c.runs[1].changed().map(|c| c.figure.as_str()).collect();
    assert_eq!(ch, ["allocs.count"]);
}

#[test]
fn mismatched_reports_are_refused_naming_the_mismatch() {
    let r = many_runs_report(2);
    type Change = fn(&mut Report);
    let cases: [(Change, &str); 4] = [
        (
            |r| r.preset = "scale-16".into(),
            "preset: before elwynn-dense, after scale-16",
        ),
        (
            |r| r.size = [320, 180],
            "size: before 640x360, after 320x180",
        ),
        (|r| r.msaa = 1, "msaa: before 4, after 1"),
        (|r| r.frames = 24, "measured frames: before 9, after 24"),
    ];
    for (change, expect) in cases {
        let mut after = r.clone();
        change(&mut after);
        let e = compare(&side(r.clone()), &side(after))
            .unwrap_err()
            .to_string();
        assert!(e.contains(expect), "{e}");
    }
}

#[test]
fn different_schemas_and_non_reports_are_clear_errors() {
    let dir = crate::test_dir("compare-schema");
    let r = many_runs_report(2);
    let b = write_report(&dir.join("b"), &r, [0, 0, 0, 255]);
    let mut v = serde_json::to_value(&r).unwrap();
    v["schema"] = "sward-bench/2".into();
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("a/report.json"), v.to_string()).unwrap();
    let e = load::load_pair(&b.dir, &dir.join("a"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("schema: before sward-bench/1, after sward-bench/2"),
        "{e}"
    );
    let e = load::load_pair(&b.dir, &dir.join("nowhere"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("after") && e.contains("nowhere"), "{e}");
    std::fs::write(dir.join("a/report.json"), "{").unwrap();
    let e = load::load_pair(&b.dir, &dir.join("a/report.json"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("not JSON"), "{e}");
    // A folder is read through its report.json, and both spellings agree.
    let (x, y) = load::load_pair(&b.dir, &b.dir.join("report.json")).unwrap();
    assert_eq!(x.report, y.report);
}

#[test]
fn different_drivers_and_settings_are_warnings_naming_both() {
    let r = many_runs_report(2);
    let mut after = r.clone();
    after.adapter.driver = "radv Mesa 25.0".into();
    after
        .config
        .insert("indirect_validation".into(), true.into());
    let c = compare(&side(r), &side(after)).unwrap();
    assert!(
        c.warnings.iter().any(|w| w.contains("different drivers")
            && w.contains("llvmpipe")
            && w.contains("radv Mesa 25.0")),
        "{:?}",
        c.warnings
    );
    assert!(
        c.warnings
            .iter()
            .any(|w| w.contains("indirect_validation differs: before false, after true")),
        "{:?}",
        c.warnings
    );
}

#[test]
fn runs_are_matched_by_tier_and_place_and_unmatched_ones_listed() {
    let r = many_runs_report(4);
    let mut after = r.clone();
    after.runs.truncate(3);
    let c = compare(&side(r.clone()), &side(after)).unwrap();
    assert_eq!(c.runs.len(), 3);
    assert_eq!(c.only_before.len(), 1);
    // Runs measured at another view match nothing.
    let mut elsewhere = r.clone();
    for run in &mut elsewhere.runs {
        run.extra.insert("view".into(), "behind-ridge".into());
    }
    let e = compare(&side(r), &side(elsewhere)).unwrap_err().to_string();
    assert!(
        e.contains("no run of before matches") && e.contains("view behind-ridge"),
        "{e}"
    );
}

#[test]
fn timers_that_all_move_without_a_counter_change_warn_of_load() {
    let r = many_runs_report(6);
    let mut after = r.clone();
    for run in &mut after.runs {
        for v in &mut run.frame_series.as_mut().unwrap().cpu_frame_ms {
            *v *= 1.5;
        }
    }
    let c = compare(&side(r), &side(after)).unwrap();
    assert_eq!(c.totals.timers_slower, 6);
    assert!(
        c.warnings
            .iter()
            .any(|w| w.starts_with("cpu_frame_ms: 6 of 6 runs") && w.contains("load")),
        "{:?}",
        c.warnings
    );
}

#[test]
fn screenshots_are_diffed_and_the_output_folder_holds_everything() {
    let dir = crate::test_dir("compare-images");
    let r = many_runs_report(3);
    let b = write_report(&dir.join("before"), &r, [40, 90, 40, 255]);
    let a = write_report(&dir.join("after"), &r, [41, 90, 200, 255]);
    let (b, a) = load::load_pair(&b.dir, &a.dir).unwrap();
    let mut c = compare(&b, &a).unwrap();
    for run in &c.runs {
        let i = run.image.as_ref().unwrap();
        assert_eq!(
            (i.pixels_changed, i.differing_pixels),
            (1, 1),
            "{}",
            run.tier
        );
        assert!((i.rmse - (1.0f64 + 160.0 * 160.0).sqrt() / (3.0f64 * 16.0).sqrt()).abs() < 1e-9);
    }
    assert!(headline_text(&c).contains("images: 3 of 3 runs differ"));
    let out = dir.join("out");
    let files = write_compare_dir(&out, &b, &a, &mut c).unwrap();
    assert_eq!(files.diff_images.len(), 3);
    for f in &files.diff_images {
        assert!(out.join(f).is_file(), "{f}");
    }
    let md = std::fs::read_to_string(&files.markdown).unwrap();
    assert!(md.contains("(diff-static-batch+static-chunks.png)"), "{md}");
    assert!(
        md.contains("compare_timers.svg") && md.contains("compare_passes.svg"),
        "{md}"
    );
    let json: BuildComparison =
        serde_json::from_str(&std::fs::read_to_string(&files.json).unwrap()).unwrap();
    assert_eq!(json, c);
    assert_eq!(json.schema, COMPARE_SCHEMA);
    // Identical screenshots: no diff image.
    let same = write_report(&dir.join("same"), &r, [40, 90, 40, 255]);
    let (b, s) = load::load_pair(&b.dir, &same.dir).unwrap();
    let mut c = compare(&b, &s).unwrap();
    assert!(c
        .runs
        .iter()
        .all(|r| r.image.as_ref().unwrap().pixels_changed == 0));
    let files = write_compare_dir(&dir.join("out-same"), &b, &s, &mut c).unwrap();
    assert!(files.diff_images.is_empty());
}

#[test]
fn a_parameter_added_at_its_default_still_pairs_the_run_and_is_named() {
    let before = many_runs_report(27);
    let mut after = before.clone();
    let gains = |t: &TierPair| t.grass == "gpu-cull";
    let mut gained = 0;
    for run in after.runs.iter_mut().filter(|r| gains(&r.tier)) {
        run.tier
            .params
            .grass
            .insert("placement".into(), ParamValue::Text("descriptors".into()));
        gained += 1;
    }
    assert!(gained >= 5, "{gained} gpu-cull runs");
    let c = compare(&side(before.clone()), &side(after.clone())).unwrap();
    assert_eq!(c.runs.len(), before.runs.len());
    assert!(c.only_before.is_empty() && c.only_after.is_empty(), "{c:?}");
    assert_eq!(c.totals.counters_changed, 0);
    let notes: Vec<&String> = c
        .warnings
        .iter()
        .filter(|w| w.contains("grass `placement=descriptors` only after"))
        .collect();
    assert_eq!(notes.len(), gained, "{:?}", c.warnings);

    // A parameter both sides know with different values is another run,
    // even when the spelling is the same.
    let mut changed = after.clone();
    for run in changed.runs.iter_mut().filter(|r| gains(&r.tier)) {
        run.tier
            .params
            .grass
            .insert("placement".into(), ParamValue::Text("gpu".into()));
    }
    let c = compare(&side(after), &side(changed)).unwrap();
    assert_eq!(c.only_after.len(), gained, "{:?}", c.only_after);
    assert_eq!(c.only_before.len(), gained);

    // A changed spelling (a parameter away from its default) is not paired.
    let mut spelled = before.clone();
    for run in spelled.runs.iter_mut().filter(|r| gains(&r.tier)) {
        run.tier
            .params
            .grass
            .insert("placement".into(), ParamValue::Text("gpu".into()));
        run.tier.label = format!("gpu-cull:placement=gpu+{}", run.tier.terrain);
    }
    let c = compare(&side(before), &side(spelled)).unwrap();
    assert_eq!(c.only_after.len(), gained, "{:?}", c.only_after);
}
