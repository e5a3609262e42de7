//! Budget files read and checked against synthetic reports: every mistake
//! in a file is an error naming it; an exceeded bound fails naming the
//! run, the figure, its value and the bound; counter bounds on another
//! driver are skipped with a warning.

use std::path::Path;

use super::*;
use crate::testutil::many_runs_report;

const HEAD: &str = "[budget]\ndriver = \"llvmpipe\"\nsize = \"320x180\"\nframes = 4\n";

fn parse(body: &str) -> Result<Budget, BudgetError> {
    parse_budget(Path::new("b.toml"), &format!("{HEAD}{body}"))
}

fn err(body: &str) -> String {
    parse(body).unwrap_err().to_string()
}

/// The fixture report as the bench at `elwynn-dense/default` and at
/// `elwynn-dense/behind-ridge`.
fn reports() -> Vec<((String, At), Report)> {
    let r = many_runs_report(12);
    vec![
        (("elwynn-dense".into(), At::Default), r.clone()),
        (("elwynn-dense".into(), At::View("behind-ridge".into())), r),
    ]
}

#[test]
fn a_budget_file_reads_into_bounds_and_benches() {
    let b = parse(
        r#"
["elwynn-dense/default/gpu-cull+static-chunks"]
instances_drawn = { vs = "legacy-cpu+static-chunks", max = 1.1 }
"grass.vs_invocations / instances_drawn" = { min = 1, max = 15.5 }

["elwynn-dense/behind-ridge/gpu-cull:occlusion=on+gpu-cull"]
"grass.vs_invocations" = { vs = "gpu-cull+gpu-cull", max = 0.5 }

["scale-16/default/gpu-cull+off"]
"allocs.count" = { vs = "scale-0.25/default/gpu-cull+off", max = 1 }
"#,
    )
    .unwrap();
    assert_eq!(
        (b.driver.as_str(), b.size, b.frames, b.warmup, b.msaa),
        ("llvmpipe", [320, 180], 4, 2, 4)
    );
    assert_eq!(b.bounds.len(), 4);
    let texts: Vec<String> = b
        .bounds
        .iter()
        .map(|x| format!("{} {} {}", x.run, x.figure_text(), x.bound_text()))
        .collect();
    assert!(texts.contains(&"elwynn-dense/default/gpu-cull+static-chunks instances_drawn vs legacy-cpu+static-chunks <= 1.1".to_owned()), "{texts:?}");
    assert!(texts.contains(&"elwynn-dense/default/gpu-cull+static-chunks grass.vs_invocations / instances_drawn 1..=15.5".to_owned()), "{texts:?}");
    assert!(
        texts.contains(
            &"scale-16/default/gpu-cull+off allocs.count vs scale-0.25/default/gpu-cull+off <= 1"
                .to_owned()
        ),
        "{texts:?}"
    );
    let groups: Vec<String> = b
        .groups()
        .iter()
        .map(|((p, at), tiers)| {
            format!(
                "{p}/{at}: {}",
                tiers
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            )
        })
        .collect();
    assert_eq!(
        groups,
        [
            "elwynn-dense/default: gpu-cull+static-chunks,legacy-cpu+static-chunks",
            "elwynn-dense/behind-ridge: gpu-cull:occlusion=on+gpu-cull,gpu-cull+gpu-cull",
            "scale-16/default: gpu-cull+off",
            "scale-0.25/default: gpu-cull+off",
        ]
    );
}

#[test]
fn every_mistake_in_a_budget_file_is_named() {
    let run = "[\"elwynn-dense/default/gpu-cull\"]\n";
    let cases = [
        (
            format!("{run}instance_drawn = {{ max = 1 }}"),
            vec![
                "instance_drawn",
                "unknown figure",
                "instances_drawn",
                "SCOPE.COUNTER",
            ],
        ),
        (
            format!("{run}\"grass.vs_invocations / drawn\" = {{ max = 1 }}"),
            vec!["unknown figure `drawn`"],
        ),
        (
            format!("{run}instances_drawn = {{ maximum = 1 }}"),
            vec!["unknown key `maximum`", "max, min, vs"],
        ),
        (
            format!("{run}instances_drawn = {{ vs = \"legacy-cpu\" }}"),
            vec!["no bound"],
        ),
        (
            format!("{run}instances_drawn = {{ min = 3, max = 1 }}"),
            vec!["min 3 is above max 1"],
        ),
        (
            format!("{run}instances_drawn = {{ max = \"1\" }}"),
            vec!["max: expected a number, found the string \"1\""],
        ),
        (
            format!("{run}instances_drawn = 5"),
            vec!["expected a table such as { max = 100 }, found 5"],
        ),
        (
            format!("{run}instances_drawn = {{ vs = \"nope\", max = 1 }}"),
            vec![".vs", "tiers `nope`"],
        ),
        (
            "[\"elwynn-dense/gpu-cull\"]\ninstances_drawn = { max = 1 }".into(),
            vec!["is not a run name", "PRESET/WHERE/TIERS"],
        ),
        (
            "[\"elwynn-sparse/default/gpu-cull\"]\ninstances_drawn = { max = 1 }".into(),
            vec!["elwynn-sparse", "elwynn-dense"],
        ),
        (
            "[\"elwynn-dense/default/off+off\"]\ninstances_drawn = { max = 1 }".into(),
            vec!["draw nothing"],
        ),
        (
            "[\"elwynn-dense/path:/gpu-cull\"]\ninstances_drawn = { max = 1 }".into(),
            vec!["names no path"],
        ),
        (
            "[\"elwynn-dense/default/gpu-cull\"]\n".into(),
            vec!["no bounds"],
        ),
        ("".into(), vec!["no run tables"]),
    ];
    for (body, expect) in cases {
        let e = err(&body);
        for part in expect {
            assert!(e.contains(part), "`{part}` missing in: {e}\n(for {body})");
        }
        assert!(e.starts_with("budget b.toml: "), "{e}");
    }
    let settings = [
        (
            "[budget]\ndriver = \"x\"\nsize = \"320x180\"\nframes = 4\nfps = 3\n",
            "[budget].fps: unknown setting; valid: driver, size, frames, warmup, msaa",
        ),
        (
            "[budget]\nsize = \"320x180\"\nframes = 4\n",
            "[budget].driver: missing",
        ),
        (
            "[budget]\ndriver = \"x\"\nsize = \"320\"\nframes = 4\n",
            "[budget].size",
        ),
        (
            "[budget]\ndriver = \"x\"\nsize = \"320x180\"\nframes = 0\n",
            "at least 1",
        ),
        (
            "[budget]\ndriver = \"x\"\nsize = \"320x180\"\nframes = 4\nmsaa = 2\n",
            "2: use 1 or 4",
        ),
        ("x = 1\n", "[budget]: missing"),
        ("[budget\n", "not TOML"),
    ];
    for (text, expect) in settings {
        let e = parse_budget(Path::new("b.toml"), text)
            .unwrap_err()
            .to_string();
        assert!(e.contains(expect), "`{expect}` missing in: {e}");
    }
}

#[test]
fn bounds_that_hold_pass_and_an_exceeded_bound_fails_naming_it() {
    let r = many_runs_report(12);
    let legacy = &r.runs[r
        .runs
        .iter()
        .position(|x| x.tier.to_string() == "legacy-cpu+static-chunks")
        .unwrap()];
    let drawn = legacy.instances_drawn;
    let b = parse(&format!(
        r#"
["elwynn-dense/default/legacy-cpu+static-chunks"]
instances_drawn = {{ max = {drawn} }}
"grass.vs_invocations / instances_drawn" = {{ max = 1000 }}
bytes_uploaded = {{ max = 10 }}
thread_ratio = {{ min = 0.1, max = 10 }}

["elwynn-dense/behind-ridge/static-batch+atlas-instanced"]
"grass.draw.vs_invocations" = {{ vs = "static-batch+static-chunks", max = 1.5 }}
"#
    ))
    .unwrap();
    let out = check(&b, &reports());
    let (pass, fail, skip) = out.counts();
    assert_eq!((pass, fail, skip), (4, 1, 0), "{}", out.text());
    let failed: Vec<&BoundResult> = out.failures().collect();
    assert_eq!(failed[0].figure, "bytes_uploaded");
    assert_eq!(failed[0].bound, "<= 10");
    let e = BudgetRun {
        outcome: out.clone(),
        headlines: String::new(),
        json: "budget.json".into(),
    }
    .verdict()
    .unwrap_err()
    .to_string();
    let bytes = legacy.bytes_uploaded;
    assert!(
        e.contains(&format!("1 of 5 bounds failed: elwynn-dense/default/legacy-cpu+static-chunks bytes_uploaded = {bytes}, bound <= 10")),
        "{e}"
    );
    assert!(
        out.text()
            .contains("FAIL  elwynn-dense/default/legacy-cpu+static-chunks  bytes_uploaded"),
        "{}",
        out.text()
    );
    // The markdown table (docs/results.md's) says the same, one row a bound.
    let md = out.markdown();
    assert!(
        md.contains(&format!(
            "| `elwynn-dense/default/legacy-cpu+static-chunks` | `bytes_uploaded` | {bytes} | <= 10 | **FAIL**"
        )),
        "{md}"
    );
    assert_eq!(md.matches("| pass |").count(), 4, "{md}");
    assert!(md.contains("5 bounds of"), "{md}");
    // The vs bound divides by the other run's same figure.
    let vs = out
        .results
        .iter()
        .find(|x| x.figure.contains(" vs "))
        .unwrap();
    let work = |t: &str| {
        let run = r.runs.iter().find(|x| x.tier.to_string() == t).unwrap();
        run.gpu_work.as_ref().unwrap().per_pass["grass.draw"]
            .median
            .vs_invocations as f64
    };
    assert_eq!(
        vs.value,
        Some(work("static-batch+atlas-instanced") / work("static-batch+static-chunks"))
    );
}

#[test]
fn counter_bounds_on_another_driver_are_skipped_with_a_warning_and_timers_still_checked() {
    let b = parse(
        r#"
["elwynn-dense/default/legacy-cpu+static-chunks"]
instances_drawn = { max = 1 }
thread_ratio = { max = 0.01 }
"#,
    )
    .unwrap();
    let mut reports = reports();
    for (_, r) in &mut reports {
        r.adapter.driver = "radv Mesa 25".into();
    }
    let out = check(&b, &reports);
    assert_eq!(out.counts(), (0, 1, 1), "{}", out.text());
    let skip = out
        .results
        .iter()
        .find(|x| x.status == Status::Skip)
        .unwrap();
    assert_eq!(skip.figure, "instances_drawn");
    assert!(skip.note.as_ref().unwrap().contains("radv Mesa 25"));
    assert!(
        out.warnings[0].contains("1 counter bounds skipped")
            && out.warnings[0].contains("`llvmpipe`"),
        "{:?}",
        out.warnings
    );
}

#[test]
fn figures_a_run_lacks_fail_with_the_reason() {
    let b = parse(
        r#"
["elwynn-dense/default/camera-grid+clipmap"]
instances_drawn = { max = 1e9 }

["elwynn-dense/default/static-batch+static-chunks"]
thread_ratio = { max = 2 }
"grass.nope.vs_invocations" = { max = 1 }
"instances_drawn / fact.grid_side" = { max = 1 }

["elwynn-dense/aerial/static-batch+off"]
draw_calls = { max = 1 }
"#,
    )
    .unwrap();
    let mut reports = reports();
    reports[0].1.refused.push(crate::report::Refusal {
        tier: crate::report::TierPair::new("camera-grid", "clipmap"),
        reason: "234830848 bytes over the binding limit".into(),
    });
    let out = check(&b, &reports);
    assert_eq!(out.counts(), (0, 5, 0), "{}", out.text());
    let notes: Vec<String> = out
        .results
        .iter()
        .map(|x| x.note.clone().unwrap_or_default())
        .collect();
    assert!(
        notes[0].contains("was refused: 234830848 bytes"),
        "{notes:?}"
    );
    assert!(
        notes[4].contains("no report of elwynn-dense/aerial"),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("it is the baseline")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("no pass `grass.nope`")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("no fact `grid_side`")),
        "{notes:?}"
    );
}
