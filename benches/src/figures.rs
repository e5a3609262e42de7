//! The figures of one run, by name: the vocabulary `sward compare` lists
//! counters in and `sward bench --budget` bounds.
//!
//! A name is one of:
//! - a run counter: `draw_calls`, `instances_submitted`, `instances_drawn`,
//!   `triangles`, `bytes_uploaded`, `gpu_memory_bytes`;
//! - an allocation figure: `allocs.count`, `allocs.bytes` (per-frame
//!   medians), `allocs.count_max`;
//! - a GPU work counter `SCOPE.COUNTER`: `SCOPE` a subsystem sum (`grass`,
//!   `terrain`, `frame`) or a pass (`grass.draw`, `terrain.cull`), `COUNTER`
//!   one of `vs_invocations`, `clipper_invocations`, `clipper_primitives`,
//!   `fs_invocations`, `cs_invocations` (per-frame medians);
//! - a timer ratio against the report's baseline run, measured in the same
//!   process: `cpu_frame_ratio`, `thread_ratio`, `gpu_frame_ratio`,
//!   `cpu_grass_ratio`, `gpu_grass_ratio`; or the run's own tail,
//!   `thread_p99_ratio` (render-thread p99 over its median);
//! - the screenshot against the baseline's: `image_rmse`, `image_differing`
//!   (fraction of pixels);
//! - a numeric fact of the run's `extra`: `fact.NAME`
//!   (`fact.clipmap_refine_unmet`).
//!
//! Counters, allocations and facts are [`FigureClass::Counter`]: exact for
//! one driver, so a bound on them holds on the driver it was set on only.
//! Timer ratios and image figures hold on any driver.

use sward_engine::graph::PipelineStats;

use crate::report::{Comparison, Report, Run};
use crate::work::SUBSYSTEMS;

/// Run counters: name and meaning.
pub const RUN_COUNTERS: [(&str, &str); 6] = [
    ("draw_calls", "draw calls per frame (median)"),
    (
        "instances_submitted",
        "instances submitted per frame, before culling (median)",
    ),
    (
        "instances_drawn",
        "instances drawn per frame, after culling (median)",
    ),
    ("triangles", "triangles drawn per frame (median)"),
    (
        "bytes_uploaded",
        "bytes uploaded CPU -> GPU per frame (median)",
    ),
    (
        "gpu_memory_bytes",
        "GPU memory the run's buffers and textures hold",
    ),
];

/// Allocation figures: name and meaning.
pub const ALLOC_FIGURES: [(&str, &str); 3] = [
    (
        "allocs.count",
        "render-thread allocations per frame (median)",
    ),
    (
        "allocs.bytes",
        "render-thread bytes allocated per frame (median)",
    ),
    (
        "allocs.count_max",
        "render-thread allocations in the busiest frame",
    ),
];

/// Timer ratios: name and meaning.
pub const RATIO_FIGURES: [(&str, &str); 6] = [
    (
        "cpu_frame_ratio",
        "CPU frame wall time over the baseline run's (medians)",
    ),
    (
        "thread_ratio",
        "render-thread CPU time over the baseline run's (medians)",
    ),
    (
        "gpu_frame_ratio",
        "GPU frame time over the baseline run's (medians)",
    ),
    (
        "cpu_grass_ratio",
        "CPU time of grass.* passes over the baseline run's",
    ),
    (
        "gpu_grass_ratio",
        "GPU time of grass.* passes over the baseline run's",
    ),
    (
        "thread_p99_ratio",
        "the run's render-thread p99 over its median",
    ),
];

/// Image figures: name and meaning.
pub const IMAGE_FIGURES: [(&str, &str); 2] = [
    (
        "image_rmse",
        "RMSE of the screenshot against the baseline's (0..255)",
    ),
    (
        "image_differing",
        "fraction of pixels differing from the baseline's by more than 8 levels",
    ),
];

/// Prefix of a numeric fact of the run's `extra`.
pub const FACT_PREFIX: &str = "fact.";

/// Whether a bound on a figure holds on one driver only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FigureClass {
    /// Exact for one driver: counters, allocations, facts.
    Counter,
    /// A timer ratio measured in one process: any driver.
    Timer,
    /// A screenshot difference: any driver.
    Image,
}

/// A parsed figure name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Figure {
    /// One of [`RUN_COUNTERS`] (its index).
    Run(usize),
    /// One of [`ALLOC_FIGURES`] (its index).
    Alloc(usize),
    /// A GPU work counter of a subsystem sum or a pass.
    Work {
        /// `grass`, `terrain`, `frame` or a pass name.
        scope: String,
        /// Index into [`PipelineStats::NAMES`].
        counter: usize,
    },
    /// One of [`RATIO_FIGURES`] (its index).
    Ratio(usize),
    /// One of [`IMAGE_FIGURES`] (its index).
    Image(usize),
    /// A numeric fact of the run's `extra`.
    Fact(String),
}

/// Why a figure name or value is not usable.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FigureError {
    /// Not a name of the vocabulary.
    #[error("unknown figure `{name}`; valid: {}", valid_names())]
    Unknown {
        /// The name given.
        name: String,
    },
    /// The run does not hold the figure (why is in `reason`).
    #[error("{figure} is absent in run {run}: {reason}")]
    Absent {
        /// The figure.
        figure: String,
        /// The run.
        run: String,
        /// Why.
        reason: String,
    },
}

/// The valid names, for error messages: every fixed name and the patterns.
pub fn valid_names() -> String {
    let fixed = RUN_COUNTERS
        .iter()
        .chain(&ALLOC_FIGURES)
        .chain(&RATIO_FIGURES)
        .chain(&IMAGE_FIGURES)
        .map(|(n, _)| *n);
    let counters: Vec<&str> = PipelineStats::NAMES.iter().map(|(n, _)| *n).collect();
    let mut all: Vec<String> = fixed.map(str::to_owned).collect();
    all.push(format!(
        "SCOPE.COUNTER (SCOPE grass, terrain, frame or a pass such as grass.draw; COUNTER {})",
        counters.join(", ")
    ));
    all.push(format!(
        "{FACT_PREFIX}NAME (a numeric fact of the run's extra)"
    ));
    all.join(", ")
}

fn index_of(table: &[(&str, &str)], name: &str) -> Option<usize> {
    table.iter().position(|(n, _)| *n == name)
}

impl Figure {
    /// Parses a figure name; an unknown one is an error listing the valid names.
    pub fn parse(name: &str) -> Result<Self, FigureError> {
        let name = name.trim();
        if let Some(i) = index_of(&RUN_COUNTERS, name) {
            return Ok(Figure::Run(i));
        }
        if let Some(i) = index_of(&ALLOC_FIGURES, name) {
            return Ok(Figure::Alloc(i));
        }
        if let Some(i) = index_of(&RATIO_FIGURES, name) {
            return Ok(Figure::Ratio(i));
        }
        if let Some(i) = index_of(&IMAGE_FIGURES, name) {
            return Ok(Figure::Image(i));
        }
        if let Some(fact) = name.strip_prefix(FACT_PREFIX) {
            if !fact.is_empty() {
                return Ok(Figure::Fact(fact.to_owned()));
            }
        }
        if let Some((scope, counter)) = name.rsplit_once('.') {
            if let Some(counter) = PipelineStats::NAMES.iter().position(|(n, _)| *n == counter) {
                if !scope.is_empty() {
                    return Ok(Figure::Work {
                        scope: scope.to_owned(),
                        counter,
                    });
                }
            }
        }
        Err(FigureError::Unknown {
            name: name.to_owned(),
        })
    }

    /// Whether bounds on this figure hold on one driver only.
    pub fn class(&self) -> FigureClass {
        match self {
            Figure::Run(_) | Figure::Alloc(_) | Figure::Work { .. } | Figure::Fact(_) => {
                FigureClass::Counter
            }
            Figure::Ratio(_) => FigureClass::Timer,
            Figure::Image(_) => FigureClass::Image,
        }
    }

    /// The figure's value in `run` of `report`; absent figures are an error
    /// saying why (no pipeline statistics, no such pass, no baseline ratio).
    pub fn value(&self, report: &Report, run: &Run) -> Result<f64, FigureError> {
        let absent = |reason: String| FigureError::Absent {
            figure: self.to_string(),
            run: run.tier.to_string(),
            reason,
        };
        match self {
            Figure::Run(i) => Ok(run_counter(run, *i) as f64),
            Figure::Alloc(i) => {
                let a = run.allocs_per_frame.ok_or_else(|| {
                    absent("the report has no allocation counts (counting allocator absent)".into())
                })?;
                Ok([a.count_median, a.bytes_median, a.count_max][*i] as f64)
            }
            Figure::Work { scope, counter } => {
                let work = run.gpu_work.as_ref().ok_or_else(|| {
                    absent("the adapter had no pipeline statistics queries".into())
                })?;
                let stats = if SUBSYSTEMS.iter().any(|(s, _)| s == scope) {
                    work.per_subsystem.get(scope.as_str())
                } else {
                    work.per_pass.get(scope.as_str())
                };
                let stats = stats.ok_or_else(|| {
                    let passes: Vec<&str> = work.per_pass.keys().map(String::as_str).collect();
                    absent(format!(
                        "no pass `{scope}` in its GPU work (passes: {}; subsystems: grass, terrain, frame)",
                        passes.join(", ")
                    ))
                })?;
                Ok(stats.median.values()[*counter] as f64)
            }
            Figure::Ratio(5) => {
                let t = run
                    .cpu_frame_thread_ms
                    .as_ref()
                    .ok_or_else(|| absent("the run has no render-thread clock".into()))?;
                let p99 = t
                    .p99
                    .ok_or_else(|| absent("the report predates p99".into()))?;
                if t.median > 0.0 {
                    Ok(p99 / t.median)
                } else {
                    Err(absent("its median render-thread time is 0".into()))
                }
            }
            Figure::Ratio(i) => {
                let c = comparison(report, run).ok_or_else(|| {
                    absent("it is the baseline (ratios are against the baseline)".into())
                })?;
                [
                    c.cpu_frame_ratio,
                    c.cpu_frame_thread_ratio,
                    c.gpu_frame_ratio,
                    c.cpu_grass_ratio,
                    c.gpu_grass_ratio,
                ][*i]
                    .ok_or_else(|| absent("the baseline's figure is zero or missing".into()))
            }
            Figure::Image(i) => {
                let c = comparison(report, run).ok_or_else(|| {
                    absent("it is the baseline (images are compared with the baseline's)".into())
                })?;
                let d = c
                    .image_diff
                    .ok_or_else(|| absent("the report has no screenshots".into()))?;
                Ok([d.rmse, d.differing_pixels_fraction][*i])
            }
            Figure::Fact(name) => {
                let v = run.extra.get(name.as_str()).ok_or_else(|| {
                    let numeric: Vec<&str> = run
                        .extra
                        .iter()
                        .filter(|(_, v)| v.is_number())
                        .map(|(k, _)| k.as_str())
                        .collect();
                    if numeric.is_empty() {
                        absent(format!("no fact `{name}` (the run has no numeric facts)"))
                    } else {
                        absent(format!("no fact `{name}` (facts: {})", numeric.join(", ")))
                    }
                })?;
                v.as_f64()
                    .ok_or_else(|| absent(format!("fact `{name}` is {v}, not a number")))
            }
        }
    }
}

impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Figure::Run(i) => f.write_str(RUN_COUNTERS[*i].0),
            Figure::Alloc(i) => f.write_str(ALLOC_FIGURES[*i].0),
            Figure::Work { scope, counter } => {
                write!(f, "{scope}.{}", PipelineStats::NAMES[*counter].0)
            }
            Figure::Ratio(i) => f.write_str(RATIO_FIGURES[*i].0),
            Figure::Image(i) => f.write_str(IMAGE_FIGURES[*i].0),
            Figure::Fact(name) => write!(f, "{FACT_PREFIX}{name}"),
        }
    }
}

/// Run counter `i` of [`RUN_COUNTERS`].
fn run_counter(run: &Run, i: usize) -> u64 {
    [
        run.draw_calls,
        run.instances_submitted,
        run.instances_drawn,
        run.triangles,
        run.bytes_uploaded,
        run.gpu_memory_bytes,
    ][i]
}

/// The comparison of `run` against its report's baseline (none for the baseline).
fn comparison<'r>(report: &'r Report, run: &Run) -> Option<&'r Comparison> {
    report.comparisons.iter().find(|c| c.tier == run.tier)
}

/// One counter of a run as `sward compare` lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct CounterValue {
    /// Figure name (`instances_drawn`, `grass.draw.vs_invocations`).
    pub figure: String,
    /// The pass it belongs to (`None` for the run's own counters).
    pub pass: Option<String>,
    /// Its value.
    pub value: u64,
    /// Relative difference up to which two values count as equal: 0 for the
    /// GPU's exact counters, [`ALLOC_TOLERANCE`] for allocations.
    pub tolerance: f64,
}

/// Relative tolerance on the allocation figures. They are not exact
/// between processes: two default-bench reports of one build differed by
/// 24 to 96 bytes of ~200 KB per frame (formatted paths and numbers), and
/// two budget runs at `scale-16` by one allocation of 186 (whether a frame
/// found a read-back ready moves a callback's allocation).
pub const ALLOC_TOLERANCE: f64 = 0.01;

/// Every counter of `run` that `sward compare` sets side by side: the run
/// counters, allocations per frame (medians) and each pass's GPU work.
pub fn run_counters(run: &Run) -> Vec<CounterValue> {
    let mut out: Vec<CounterValue> = RUN_COUNTERS
        .iter()
        .enumerate()
        .map(|(i, (name, _))| CounterValue {
            figure: (*name).to_owned(),
            pass: None,
            value: run_counter(run, i),
            tolerance: 0.0,
        })
        .collect();
    if let Some(a) = run.allocs_per_frame {
        out.push(CounterValue {
            figure: ALLOC_FIGURES[0].0.to_owned(),
            pass: None,
            value: a.count_median,
            tolerance: ALLOC_TOLERANCE,
        });
        out.push(CounterValue {
            figure: ALLOC_FIGURES[1].0.to_owned(),
            pass: None,
            value: a.bytes_median,
            tolerance: ALLOC_TOLERANCE,
        });
    }
    if let Some(work) = &run.gpu_work {
        for (pass, stats) in &work.per_pass {
            for (i, (counter, _)) in PipelineStats::NAMES.iter().enumerate() {
                out.push(CounterValue {
                    figure: format!("{pass}.{counter}"),
                    pass: Some(pass.clone()),
                    value: stats.median.values()[i],
                    tolerance: 0.0,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::sample_report;

    #[test]
    fn names_parse_to_their_kind_and_print_back() {
        for name in [
            "instances_drawn",
            "allocs.count",
            "grass.vs_invocations",
            "grass.grid.compact.cs_invocations",
            "thread_ratio",
            "image_rmse",
            "fact.clipmap_refine_unmet",
        ] {
            assert_eq!(Figure::parse(name).unwrap().to_string(), name);
        }
        assert_eq!(
            Figure::parse("thread_ratio").unwrap().class(),
            FigureClass::Timer
        );
        assert_eq!(
            Figure::parse("image_rmse").unwrap().class(),
            FigureClass::Image
        );
        assert_eq!(
            Figure::parse("terrain.draw.fs_invocations").unwrap(),
            Figure::Work {
                scope: "terrain.draw".into(),
                counter: 3
            }
        );
    }

    #[test]
    fn unknown_names_list_the_valid_ones() {
        for bad in [
            "instance_drawn",
            "grass.vs_invocation",
            ".vs_invocations",
            "fact.",
        ] {
            let e = Figure::parse(bad).unwrap_err().to_string();
            assert!(e.contains(bad), "{e}");
            assert!(
                e.contains("instances_drawn") && e.contains("SCOPE.COUNTER") && e.contains("fact."),
                "{e}"
            );
        }
    }

    #[test]
    fn values_come_from_the_run_and_absent_ones_say_why() {
        let report = crate::testutil::many_runs_report(3);
        let run = &report.runs[1];
        let v = |n: &str| Figure::parse(n).unwrap().value(&report, run);
        assert_eq!(v("instances_drawn").unwrap(), run.instances_drawn as f64);
        let work = run.gpu_work.as_ref().unwrap();
        assert_eq!(
            v("grass.draw.fs_invocations").unwrap(),
            work.per_pass["grass.draw"].median.fs_invocations as f64
        );
        assert_eq!(
            v("grass.vs_invocations").unwrap(),
            work.per_subsystem["grass"].median.vs_invocations as f64
        );
        assert_eq!(
            v("allocs.count").unwrap(),
            run.allocs_per_frame.unwrap().count_median as f64
        );
        let c = report
            .comparisons
            .iter()
            .find(|c| c.tier == run.tier)
            .unwrap();
        assert_eq!(v("cpu_frame_ratio").unwrap(), c.cpu_frame_ratio.unwrap());
        assert_eq!(
            v("thread_ratio").unwrap(),
            c.cpu_frame_thread_ratio.unwrap()
        );
        let e = v("grass.nope.vs_invocations").unwrap_err().to_string();
        assert!(
            e.contains("no pass `grass.nope`") && e.contains("grass.draw"),
            "{e}"
        );
        let e = v("fact.nope").unwrap_err().to_string();
        assert!(e.contains("no fact `nope`"), "{e}");
        let e = v("image_rmse").unwrap_err().to_string();
        assert!(e.contains("no screenshots"), "{e}");
        let base = report.baseline().unwrap();
        let e = Figure::parse("thread_ratio")
            .unwrap()
            .value(&report, base)
            .unwrap_err()
            .to_string();
        assert!(e.contains("baseline"), "{e}");
        // The sample report has screenshots diffed, no GPU work.
        let sample = sample_report();
        let run = &sample.runs[0];
        let v = |n: &str| Figure::parse(n).unwrap().value(&sample, run);
        assert_eq!(v("image_rmse").unwrap(), 2.0);
        let e = v("grass.vs_invocations").unwrap_err().to_string();
        assert!(e.contains("no pipeline statistics"), "{e}");
    }
}
