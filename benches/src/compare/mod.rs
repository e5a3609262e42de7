//! `sward compare BEFORE AFTER`: two bench reports of one setup (two
//! builds, or one build twice) set side by side, run by run.
//!
//! Runs are matched by where they were measured (camera path or view) and
//! their tier combination with its parameters. For each matched run:
//! - every counter ([`crate::figures::run_counters`]: the run's counters,
//!   allocations per frame and each pass's GPU work) before and after; a
//!   counter is exact on one driver, so any difference is a change, named by
//!   its pass;
//! - the CPU wall, render-thread and GPU frame times as after/before ratios
//!   with a confidence interval and a verdict ([`interval`]);
//! - the two screenshots diffed ([`crate::imagediff`]).
//!
//! Reports of different schemas, presets, sizes, MSAA or frame counts do
//! not compare like for like and are refused, naming the mismatch; other
//! differences (drivers, settings) are warnings.

pub mod interval;
mod load;
mod render;
mod write;

pub use interval::{RatioInterval, Verdict};
pub use load::{load_pair, Side};
pub use render::{headline_text, markdown};
pub use write::{write_compare_dir, CompareFiles, COMPARE_JSON, COMPARE_MD};

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::figures::run_counters;
use crate::report::{AdapterInfo, Report, Run, TierPair};

/// Schema tag of `compare.json`.
pub const COMPARE_SCHEMA: &str = "sward-compare/1";

/// Why two reports cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// A report could not be read or is not a valid report.
    #[error("{side} {path}: {message}")]
    Read {
        /// `before` or `after`.
        side: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The reports were measured under different conditions.
    #[error("the reports differ in {what}: before {before}, after {after}; {why}")]
    Mismatch {
        /// Which setting.
        what: &'static str,
        /// Its value in BEFORE.
        before: String,
        /// Its value in AFTER.
        after: String,
        /// Why that refuses the comparison.
        why: &'static str,
    },
    /// No run of one report matches a run of the other.
    #[error("no run of before matches a run of after (before: {before}; after: {after})")]
    NothingInCommon {
        /// BEFORE's runs.
        before: String,
        /// AFTER's runs.
        after: String,
    },
    /// Writing the output folder failed.
    #[error("{what} {path}: {message}")]
    Write {
        /// What was being written.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

/// One report's identity in the comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportSummary {
    /// The report folder.
    pub dir: String,
    /// The binary's version.
    pub sward_version: String,
    /// The adapter (driver included).
    pub adapter: AdapterInfo,
}

/// A counter before and after.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CounterChange {
    /// Figure name (`instances_drawn`, `grass.draw.vs_invocations`).
    pub figure: String,
    /// The pass it belongs to, absent for the run's own counters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass: Option<String>,
    /// Value in BEFORE (absent: the counter or pass was not there).
    pub before: Option<u64>,
    /// Value in AFTER.
    pub after: Option<u64>,
    /// Whether this is a change (exact counters: any difference).
    pub changed: bool,
}

/// A timer before and after.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimerChange {
    /// `cpu_frame_ms`, `cpu_frame_thread_ms` or `gpu_frame_ms`.
    pub figure: String,
    /// BEFORE's median (ms).
    pub before_ms: f64,
    /// AFTER's median (ms).
    pub after_ms: f64,
    /// The ratio, interval and verdict; absent without per-frame samples.
    pub interval: Option<RatioInterval>,
}

impl TimerChange {
    /// The verdict (undecided without an interval).
    pub fn verdict(&self) -> Verdict {
        self.interval.map_or(Verdict::Undecided, |i| i.verdict)
    }
}

/// The two screenshots of a run compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageChange {
    /// Pixels whose R, G or B differ at all.
    pub pixels_changed: u64,
    /// Pixels whose largest channel difference exceeds 8 levels (the
    /// report's `differing_pixels_fraction` rule), as a count.
    pub differing_pixels: u64,
    /// RMSE over R, G and B, 0..255.
    pub rmse: f64,
    /// The diff image's file name in the output folder, when any pixel changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_image: Option<String>,
}

/// One run matched in both reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunChange {
    /// `path NAME` or `view NAME`.
    pub at: String,
    /// The tier combination with its parameters.
    pub tier: TierPair,
    /// Every counter, before and after.
    pub counters: Vec<CounterChange>,
    /// CPU wall, render-thread and GPU frame times.
    pub timers: Vec<TimerChange>,
    /// The screenshots; absent when either report has none for the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageChange>,
    /// Why the screenshots were not compared, when they were not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_note: Option<String>,
}

impl RunChange {
    /// The counters that changed.
    pub fn changed(&self) -> impl Iterator<Item = &CounterChange> {
        self.counters.iter().filter(|c| c.changed)
    }
}

/// The method behind the timer intervals, recorded with every comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Method {
    /// In words.
    pub interval: String,
    /// Confidence of the interval.
    pub confidence: f64,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Half-width of the band around 1 within which a change is "no change".
    pub noise: f64,
}

/// Totals over the matched runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// Runs matched.
    pub runs: usize,
    /// Counters that changed, over all runs.
    pub counters_changed: usize,
    /// Runs with at least one changed counter.
    pub runs_with_counter_changes: usize,
    /// Timer verdicts "faster".
    pub timers_faster: usize,
    /// Timer verdicts "slower".
    pub timers_slower: usize,
    /// Timer verdicts "no change".
    pub timers_no_change: usize,
    /// Runs whose screenshots differ in any pixel.
    pub images_changed: usize,
}

/// Two reports of one setup compared run by run (`compare.json`); not to
/// be confused with a report's own [`crate::report::Comparison`] of a tier
/// against the baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuildComparison {
    /// Always [`COMPARE_SCHEMA`].
    pub schema: String,
    /// The preset both reports rendered.
    pub preset: String,
    /// Render size.
    pub size: [u32; 2],
    /// MSAA samples.
    pub msaa: u32,
    /// Measured frames per run.
    pub frames: u32,
    /// BEFORE.
    pub before: ReportSummary,
    /// AFTER.
    pub after: ReportSummary,
    /// How the timer intervals were computed.
    pub method: Method,
    /// Differences that do not refuse the comparison but colour it.
    pub warnings: Vec<String>,
    /// The matched runs, in AFTER's order.
    pub runs: Vec<RunChange>,
    /// Runs only BEFORE has.
    pub only_before: Vec<String>,
    /// Runs only AFTER has.
    pub only_after: Vec<String>,
    /// Totals.
    pub totals: Totals,
}

/// Where a run was measured: `path NAME`, `view NAME`, or `-`.
pub fn run_at(run: &Run) -> String {
    for key in ["view", "path"] {
        if let Some(name) = run.extra.get(key).and_then(|v| v.as_str()) {
            return format!("{key} {name}");
        }
    }
    "-".to_owned()
}

/// Refuses reports measured under different conditions.
fn check_conditions(b: &Report, a: &Report) -> Result<(), CompareError> {
    let mismatch = |what, before: String, after: String, why| {
        Err(CompareError::Mismatch {
            what,
            before,
            after,
            why,
        })
    };
    if b.schema != a.schema {
        return mismatch(
            "schema",
            b.schema.clone(),
            a.schema.clone(),
            "their fields mean different things",
        );
    }
    if b.preset != a.preset {
        return mismatch(
            "preset",
            b.preset.clone(),
            a.preset.clone(),
            "they rendered different worlds",
        );
    }
    if b.size != a.size {
        let s = |s: [u32; 2]| format!("{}x{}", s[0], s[1]);
        return mismatch(
            "size",
            s(b.size),
            s(a.size),
            "every pixel figure scales with the size",
        );
    }
    if b.msaa != a.msaa {
        return mismatch(
            "msaa",
            b.msaa.to_string(),
            a.msaa.to_string(),
            "MSAA changes the work of every draw",
        );
    }
    if b.frames != a.frames {
        return mismatch(
            "measured frames",
            b.frames.to_string(),
            a.frames.to_string(),
            "the camera poses along a path depend on the frame count, so frames would not pair",
        );
    }
    Ok(())
}

/// Warnings: different drivers, settings or warm-up.
fn warnings(b: &Report, a: &Report) -> Vec<String> {
    let mut out = Vec::new();
    if b.adapter != a.adapter {
        out.push(format!(
            "different drivers: before {} ({}), after {} ({}); counters are exact per driver, so counter changes may be the driver's",
            b.adapter.name, b.adapter.driver, a.adapter.name, a.adapter.driver
        ));
    }
    if b.warmup != a.warmup {
        out.push(format!(
            "warm-up frames differ: before {}, after {}",
            b.warmup, a.warmup
        ));
    }
    let keys: std::collections::BTreeSet<&String> =
        b.config.keys().chain(a.config.keys()).collect();
    for key in keys {
        let (vb, va) = (b.config.get(key), a.config.get(key));
        if vb != va {
            let show =
                |v: Option<&serde_json::Value>| v.map_or("absent".to_owned(), |v| v.to_string());
            out.push(format!(
                "setting {key} differs: before {}, after {}",
                show(vb),
                show(va)
            ));
        }
    }
    if b.scene != a.scene {
        out.push(
            "the scene sections differ (placements, models or textures): the world itself changed"
                .into(),
        );
    }
    out
}

/// Counters of both runs side by side, in AFTER's order then BEFORE's extras.
fn counter_changes(b: &Run, a: &Run) -> Vec<CounterChange> {
    let before: BTreeMap<String, crate::figures::CounterValue> = run_counters(b)
        .into_iter()
        .map(|c| (c.figure.clone(), c))
        .collect();
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for c in run_counters(a) {
        let old = before.get(&c.figure);
        let changed = match old {
            None => true,
            Some(o) => {
                let diff = o.value.abs_diff(c.value) as f64;
                diff > c.tolerance * (o.value.max(c.value) as f64)
            }
        };
        seen.insert(c.figure.clone());
        out.push(CounterChange {
            figure: c.figure,
            pass: c.pass,
            before: old.map(|o| o.value),
            after: Some(c.value),
            changed,
        });
    }
    for (name, o) in before {
        if !seen.contains(&name) {
            out.push(CounterChange {
                figure: name,
                pass: o.pass,
                before: Some(o.value),
                after: None,
                changed: true,
            });
        }
    }
    out
}

/// The three frame timers of both runs.
fn timer_changes(b: &Run, a: &Run, seed: &str) -> Vec<TimerChange> {
    let series = |r: &Run, which: usize| -> Option<Vec<Option<f64>>> {
        let s = r.frame_series.as_ref()?;
        Some(match which {
            0 => s.cpu_frame_ms.iter().copied().map(Some).collect(),
            1 => s
                .cpu_frame_thread_ms
                .as_ref()?
                .iter()
                .copied()
                .map(Some)
                .collect(),
            _ => s.gpu_frame_ms.clone(),
        })
    };
    let medians = |r: &Run| {
        [
            Some(r.cpu_frame_ms.median),
            r.cpu_frame_thread_ms.map(|s| s.median),
            r.gpu_frame_ms.map(|s| s.median),
        ]
    };
    let (mb, ma) = (medians(b), medians(a));
    ["cpu_frame_ms", "cpu_frame_thread_ms", "gpu_frame_ms"]
        .iter()
        .enumerate()
        .filter_map(|(i, name)| {
            let (before_ms, after_ms) = (mb[i]?, ma[i]?);
            let interval = match (series(b, i), series(a, i)) {
                (Some(sb), Some(sa)) => {
                    interval::paired_ratio(&sb, &sa, interval::seed_of(&format!("{seed}/{name}")))
                }
                _ => None,
            };
            Some(TimerChange {
                figure: (*name).to_owned(),
                before_ms,
                after_ms,
                interval,
            })
        })
        .collect()
}

/// The unpaired run of `before` that `ra` is measured against, with a note
/// when they were paired by their `--tiers` spelling rather than exactly.
///
/// A tier that gained a parameter in a later build (or lost one) records it
/// on one side only: `gpu-cull` before, `gpu-cull` with `placement=descriptors`
/// after. Such runs are the same combination when the tier names and the
/// `--tiers` spelling (which names only parameters away from their defaults)
/// agree and every parameter both sides know has the same value: the
/// one-sided parameter was then at its default in its own build. The note
/// names the parameter so a reader sees the pairing was not exact.
fn match_before(before: &[Run], paired: &[bool], ra: &Run) -> Option<(usize, Option<String>)> {
    let at = run_at(ra);
    let free = |i: &usize| !paired[*i] && run_at(&before[*i]) == at;
    if let Some(i) = (0..before.len())
        .filter(free)
        .find(|&i| before[i].tier == ra.tier)
    {
        return Some((i, None));
    }
    (0..before.len())
        .filter(free)
        .find_map(|i| one_sided_params(&before[i].tier, &ra.tier).map(|note| (i, Some(note))))
}

/// When `b` and `a` are one combination whose parameter sets differ only by
/// parameters one side lacks, says which (`None` otherwise).
fn one_sided_params(b: &TierPair, a: &TierPair) -> Option<String> {
    if (&b.grass, &b.terrain, b.to_string()) != (&a.grass, &a.terrain, a.to_string()) {
        return None;
    }
    let mut only = Vec::new();
    for (side, pb, pa) in [
        ("grass", &b.params.grass, &a.params.grass),
        ("terrain", &b.params.terrain, &a.params.terrain),
    ] {
        for (name, v) in pb {
            match pa.get(name) {
                Some(w) if w != v => return None,
                Some(_) => {}
                None => only.push(format!("{side} `{name}={v}` only before")),
            }
        }
        for (name, v) in pa {
            if !pb.contains_key(name) {
                only.push(format!("{side} `{name}={v}` only after"));
            }
        }
    }
    (!only.is_empty()).then(|| {
        format!(
            "`{a}` paired by its --tiers spelling: parameter {} (at its default in its own build)",
            only.join(", ")
        )
    })
}

/// Compares two loaded reports. Screenshots are read from their folders.
pub fn compare(before: &Side, after: &Side) -> Result<BuildComparison, CompareError> {
    let (b, a) = (&before.report, &after.report);
    check_conditions(b, a)?;
    let mut runs = Vec::new();
    let mut only_after = Vec::new();
    let mut paired = vec![false; b.runs.len()];
    let mut parameter_notes = std::collections::BTreeSet::new();
    for ra in &a.runs {
        let Some((i, note)) = match_before(&b.runs, &paired, ra) else {
            only_after.push(format!("{} at {}", ra.tier, run_at(ra)));
            continue;
        };
        paired[i] = true;
        parameter_notes.extend(note);
        let rb = &b.runs[i];
        let at = run_at(ra);
        let (image, image_note) = match load::image_change(before, rb, after, ra) {
            Ok(i) => (Some(i), None),
            Err(note) => (None, Some(note)),
        };
        runs.push(RunChange {
            counters: counter_changes(rb, ra),
            timers: timer_changes(rb, ra, &format!("{at}/{}", ra.tier)),
            image,
            image_note,
            at,
            tier: ra.tier.clone(),
        });
    }
    let only_before: Vec<String> = b
        .runs
        .iter()
        .zip(&paired)
        .filter(|(_, p)| !**p)
        .map(|(r, _)| format!("{} at {}", r.tier, run_at(r)))
        .collect();
    if runs.is_empty() {
        let list = |r: &Report| {
            r.runs
                .iter()
                .map(|x| format!("{} at {}", x.tier, run_at(x)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(CompareError::NothingInCommon {
            before: list(b),
            after: list(a),
        });
    }
    let mut warnings = warnings(b, a);
    warnings.extend(parameter_notes);
    warnings.extend(load_drift(&runs));
    let totals = totals(&runs);
    Ok(BuildComparison {
        schema: COMPARE_SCHEMA.to_owned(),
        preset: a.preset.clone(),
        size: a.size,
        msaa: a.msaa,
        frames: a.frames,
        before: before.summary(),
        after: after.summary(),
        method: Method {
            interval: "paired percentile bootstrap of the ratio of medians over the per-frame samples (frame i of both runs is the same camera pose), seeded per run and figure".into(),
            confidence: interval::CONFIDENCE,
            resamples: interval::BOOTSTRAP_RESAMPLES,
            noise: interval::NOISE,
        },
        warnings,
        runs,
        only_before,
        only_after,
        totals,
    })
}

/// `sward compare BEFORE AFTER [--out DIR] [--json]`: reads both reports,
/// compares them, writes `DIR` and returns what the terminal shows (the
/// headline and where the files are, or with `json` the comparison itself).
pub fn run_compare(
    before: &std::path::Path,
    after: &std::path::Path,
    out: &std::path::Path,
    json: bool,
) -> Result<String, CompareError> {
    let (b, a) = load_pair(before, after)?;
    let mut c = compare(&b, &a)?;
    let files = write_compare_dir(out, &b, &a, &mut c)?;
    if json {
        let mut text = serde_json::to_string_pretty(&c).map_err(|e| CompareError::Write {
            what: "JSON of",
            path: files.json.clone(),
            message: e.to_string(),
        })?;
        text.push('\n');
        Ok(text)
    } else {
        Ok(format!(
            "{}comparison: {}\n",
            headline_text(&c),
            files.markdown.display()
        ))
    }
}

/// A warning when timers moved the same way in most runs whose counters
/// did not change at all: the machine's load, not the build, is then the
/// likely cause.
fn load_drift(runs: &[RunChange]) -> Vec<String> {
    let steady: Vec<&RunChange> = runs
        .iter()
        .filter(|r| r.changed().next().is_none())
        .collect();
    let mut out = Vec::new();
    if steady.len() < 3 {
        return out;
    }
    for figure in ["cpu_frame_ms", "cpu_frame_thread_ms", "gpu_frame_ms"] {
        let verdicts: Vec<(Verdict, f64)> = steady
            .iter()
            .filter_map(|r| r.timers.iter().find(|t| t.figure == figure))
            .filter_map(|t| t.interval.map(|i| (i.verdict, i.ratio)))
            .collect();
        for v in [Verdict::Faster, Verdict::Slower] {
            let mut moved: Vec<f64> = verdicts
                .iter()
                .filter(|(x, _)| *x == v)
                .map(|(_, r)| *r)
                .collect();
            if moved.len() * 2 > verdicts.len() {
                moved.sort_by(f64::total_cmp);
                out.push(format!(
                    "{figure}: {} of {} runs whose counters did not change are {} (median ratio {:.2}): the machine's load probably differed between the reports; rerun both back to back before trusting timer verdicts",
                    moved.len(),
                    verdicts.len(),
                    v.word(),
                    moved[moved.len() / 2]
                ));
            }
        }
    }
    out
}

fn totals(runs: &[RunChange]) -> Totals {
    let mut t = Totals {
        runs: runs.len(),
        ..Totals::default()
    };
    for r in runs {
        let changed = r.changed().count();
        t.counters_changed += changed;
        t.runs_with_counter_changes += usize::from(changed > 0);
        for timer in &r.timers {
            match timer.verdict() {
                Verdict::Faster => t.timers_faster += 1,
                Verdict::Slower => t.timers_slower += 1,
                Verdict::NoChange => t.timers_no_change += 1,
                Verdict::Undecided => {}
            }
        }
        t.images_changed += usize::from(r.image.as_ref().is_some_and(|i| i.pixels_changed > 0));
    }
    t
}

#[cfg(test)]
mod tests;
