//! Turning raw per-frame measurements into report entries: [`RunSamples`] in,
//! [`Run`] and [`Comparison`] out.
//!
//! Grass figures are the per-frame sums over passes whose name starts with
//! `grass.`, terrain figures over `terrain.`; pass names are expected to be the
//! render graph's flat pass labels (not nested), so sums never double count.
//! Ratios are always computed here from the runs' medians, never copied.

use std::collections::BTreeMap;

use crate::report::{Comparison, FrameSeries, ImageDiff, Run, Streaming, TierPair};
use crate::stats::{count_hitches, counter_median, find_hitches, Hitch, Stats, StatsError};
use crate::work::{work_ratios, AllocStats, FrameAllocs, GpuWork};
use sward_engine::graph::PipelineStats;

/// Prefix of grass pass names.
pub const GRASS_PREFIX: &str = "grass.";
/// Prefix of terrain pass names.
pub const TERRAIN_PREFIX: &str = "terrain.";

/// Why measurements could not be turned into a report entry.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AssembleError {
    /// A run recorded no measured frames.
    #[error("run {tier}: no measured frames")]
    NoFrames {
        /// The run.
        tier: String,
    },
    /// A figure could not be summarised (e.g. a NaN sample).
    #[error("run {tier}: {what}: {source}")]
    BadSamples {
        /// The run.
        tier: String,
        /// Which figure (e.g. `gpu pass grass.cull`).
        what: String,
        /// The underlying problem.
        source: StatsError,
    },
    /// A time was negative (a timer wrapped or was read out of order).
    #[error("run {tier}: frame {frame}: {what} is negative ({value} ms)")]
    NegativeTime {
        /// The run.
        tier: String,
        /// Measured-frame index.
        frame: usize,
        /// Which figure.
        what: String,
        /// The offending value.
        value: f64,
    },
    /// Comparisons need the `static-batch` + `static-chunks` run.
    #[error("no baseline run (static-batch+static-chunks) among the runs")]
    NoBaseline,
    /// The same combination was measured twice; comparisons would be ambiguous.
    #[error("run {tier} appears more than once")]
    DuplicateRun {
        /// The repeated combination.
        tier: String,
    },
}

/// Counters of one frame, as the engine counted them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameCounters {
    /// Draw calls issued (an indirect multi-draw counts its submitted draws).
    pub draw_calls: u64,
    /// Instances submitted before culling.
    pub instances_submitted: u64,
    /// Instances drawn after culling.
    pub instances_drawn: u64,
    /// Triangles drawn.
    pub triangles: u64,
    /// Bytes uploaded from CPU to GPU.
    pub bytes_uploaded: u64,
}

/// Everything measured in one frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrameSample {
    /// CPU time of the whole frame (ms).
    pub cpu_frame_ms: f64,
    /// CPU time per pass name (ms).
    pub cpu_pass_ms: BTreeMap<String, f64>,
    /// GPU time of the whole frame (ms) when measured directly; when `None` it is
    /// the sum of `gpu_pass_ms` (if that is non-empty).
    pub gpu_frame_ms: Option<f64>,
    /// GPU time per pass name (ms); empty when this frame's timestamps were not read.
    pub gpu_pass_ms: BTreeMap<String, f64>,
    /// The frame's counters.
    pub counters: FrameCounters,
    /// The render thread's own CPU time for the frame (its thread clock,
    /// ms); `None` where the platform has none.
    pub cpu_thread_frame_ms: Option<f64>,
    /// The render thread's CPU time per pass and named section (ms), the
    /// same names as `cpu_pass_ms`.
    pub cpu_thread_pass_ms: BTreeMap<String, f64>,
    /// GPU work counters per pass; `None` where this frame was not counted.
    pub gpu_work: Option<BTreeMap<String, PipelineStats>>,
    /// The render thread's heap allocations during the frame; `None`
    /// without the counting allocator.
    pub allocs: Option<FrameAllocs>,
}

impl FrameSample {
    /// GPU frame time: measured, or the sum of the timed passes; `None` if untimed.
    pub fn gpu_frame(&self) -> Option<f64> {
        self.gpu_frame_ms
            .or_else(|| (!self.gpu_pass_ms.is_empty()).then(|| self.gpu_pass_ms.values().sum()))
    }
}

/// Raw measurements of one tier combination.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSamples {
    /// Which combination was measured.
    pub tier: TierPair,
    /// Measured frames, in camera-path order (warm-up excluded).
    pub frames: Vec<FrameSample>,
    /// GPU memory held by the run's resources (bytes).
    pub gpu_memory_bytes: u64,
    /// Screenshot file name, relative to the report directory.
    pub image: Option<String>,
    /// Run-specific settings and notes, copied into [`Run::extra`].
    pub extra: BTreeMap<String, serde_json::Value>,
    /// What streaming the world did, for runs that moved the window.
    pub streaming: Option<Streaming>,
}

impl RunSamples {
    /// An empty set of samples for `tier`.
    pub fn new(tier: TierPair) -> Self {
        Self {
            tier,
            frames: Vec::new(),
            gpu_memory_bytes: 0,
            image: None,
            extra: BTreeMap::new(),
            streaming: None,
        }
    }
}

/// Sum of the passes in `passes` whose names start with `prefix`.
fn prefixed_sum(passes: &BTreeMap<String, f64>, prefix: &str) -> f64 {
    passes
        .iter()
        .filter(|(name, _)| name.starts_with(prefix))
        .map(|(_, ms)| ms)
        .sum()
}

/// Builds a report [`Run`] from one combination's samples.
pub fn build_run(samples: &RunSamples) -> Result<Run, AssembleError> {
    let tier = &samples.tier;
    if samples.frames.is_empty() {
        return Err(AssembleError::NoFrames {
            tier: tier.to_string(),
        });
    }
    check_non_negative(samples)?;
    let stats = |what: &str, values: &[f64]| {
        Stats::from_samples(values).map_err(|source| AssembleError::BadSamples {
            tier: tier.to_string(),
            what: what.to_owned(),
            source,
        })
    };
    let optional_stats = |what: &str, values: &[f64]| {
        if values.is_empty() {
            Ok(None)
        } else {
            stats(what, values).map(Some)
        }
    };

    let frames = &samples.frames;
    let cpu_frame: Vec<f64> = frames.iter().map(|f| f.cpu_frame_ms).collect();
    let cpu_grass: Vec<f64> = frames
        .iter()
        .map(|f| prefixed_sum(&f.cpu_pass_ms, GRASS_PREFIX))
        .collect();
    let cpu_terrain: Vec<f64> = frames
        .iter()
        .map(|f| prefixed_sum(&f.cpu_pass_ms, TERRAIN_PREFIX))
        .collect();

    // GPU figures only over frames whose timestamps were read.
    let timed: Vec<&FrameSample> = frames.iter().filter(|f| f.gpu_frame().is_some()).collect();
    let gpu_frame: Vec<f64> = timed.iter().filter_map(|f| f.gpu_frame()).collect();
    let gpu_grass: Vec<f64> = timed
        .iter()
        .map(|f| prefixed_sum(&f.gpu_pass_ms, GRASS_PREFIX))
        .collect();
    let gpu_terrain: Vec<f64> = timed
        .iter()
        .map(|f| prefixed_sum(&f.gpu_pass_ms, TERRAIN_PREFIX))
        .collect();

    // Each pass over the frames in which it ran (was timed).
    let per_pass = |pick: fn(&FrameSample) -> &BTreeMap<String, f64>, what: &str| {
        let mut values: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        for frame in frames {
            for (name, &ms) in pick(frame) {
                values.entry(name.as_str()).or_default().push(ms);
            }
        }
        values
            .into_iter()
            .map(|(name, v)| Ok((name.to_owned(), stats(&format!("{what} {name}"), &v)?)))
            .collect::<Result<BTreeMap<_, _>, AssembleError>>()
    };
    let gpu_pass_ms = per_pass(|f| &f.gpu_pass_ms, "gpu pass")?;
    let cpu_pass_ms = per_pass(|f| &f.cpu_pass_ms, "cpu pass")?;
    let cpu_pass_thread_ms = per_pass(|f| &f.cpu_thread_pass_ms, "cpu thread pass")?;
    // Thread CPU time only where every frame has it (a platform has the
    // clock or not).
    let thread_frame: Option<Vec<f64>> = frames.iter().map(|f| f.cpu_thread_frame_ms).collect();
    let cpu_frame_thread_ms = match &thread_frame {
        Some(t) => Some(stats("cpu thread frame", t)?),
        None => None,
    };
    let sections_of = |pick: fn(&FrameSample) -> &BTreeMap<String, f64>| {
        frames
            .iter()
            .map(|f| pick(f).iter().map(|(n, &ms)| (n.clone(), ms)).collect())
            .collect::<Vec<Vec<(String, f64)>>>()
    };
    let thread_hitch_list = thread_frame
        .as_ref()
        .map(|t| find_hitches(t, &sections_of(|f| &f.cpu_thread_pass_ms)))
        .unwrap_or_default();
    let thread_tail = thread_frame
        .as_ref()
        .map(|t| {
            let sections: Vec<BTreeMap<String, f64>> = frames
                .iter()
                .map(|f| f.cpu_thread_pass_ms.clone())
                .collect();
            crate::tail::tail_frames(t, &sections)
        })
        .unwrap_or_default();
    let mut hitch_list = find_hitches(&cpu_frame, &sections_of(|f| &f.cpu_pass_ms));
    if thread_frame.is_some() {
        label_hitches(&mut hitch_list, &thread_hitch_list);
    }

    let counter = |pick: fn(&FrameCounters) -> u64| {
        let values: Vec<u64> = frames.iter().map(|f| pick(&f.counters)).collect();
        counter_median(&values).unwrap_or(0)
    };

    Ok(Run {
        tier: tier.clone(),
        cpu_frame_ms: stats("cpu frame", &cpu_frame)?,
        cpu_grass_ms: stats("cpu grass", &cpu_grass)?,
        cpu_terrain_ms: stats("cpu terrain", &cpu_terrain)?,
        gpu_frame_ms: optional_stats("gpu frame", &gpu_frame)?,
        gpu_grass_ms: optional_stats("gpu grass", &gpu_grass)?,
        gpu_terrain_ms: optional_stats("gpu terrain", &gpu_terrain)?,
        gpu_pass_ms,
        cpu_pass_ms,
        draw_calls: counter(|c| c.draw_calls),
        instances_submitted: counter(|c| c.instances_submitted),
        instances_drawn: counter(|c| c.instances_drawn),
        triangles: counter(|c| c.triangles),
        bytes_uploaded: counter(|c| c.bytes_uploaded),
        gpu_memory_bytes: samples.gpu_memory_bytes,
        hitches: count_hitches(&cpu_frame),
        image: samples.image.clone(),
        frame_series: Some(FrameSeries {
            cpu_frame_ms: cpu_frame,
            gpu_frame_ms: frames.iter().map(FrameSample::gpu_frame).collect(),
            cpu_frame_thread_ms: thread_frame.clone(),
        }),
        extra: samples.extra.clone(),
        hitch_list,
        streaming: samples.streaming.clone(),
        cpu_frame_thread_ms,
        cpu_pass_thread_ms,
        thread_hitch_list,
        thread_tail,
        gpu_work: GpuWork::from_frames(
            &frames
                .iter()
                .map(|f| f.gpu_work.as_ref())
                .collect::<Vec<_>>(),
        ),
        allocs_per_frame: AllocStats::from_frames(
            &frames.iter().map(|f| f.allocs).collect::<Vec<_>>(),
        ),
    })
}

/// Marks each wall-clock hitch `work` when the same frame is also a hitch
/// in the render thread's CPU time (it did more work), `wait` when it is
/// not (it waited: for a core, the driver, a lock).
fn label_hitches(wall: &mut [Hitch], thread: &[Hitch]) {
    for h in wall {
        let work = thread.iter().any(|t| t.frame == h.frame);
        h.kind = Some(if work { "work" } else { "wait" }.to_owned());
    }
}

/// Rejects negative times, naming the frame and figure.
fn check_non_negative(samples: &RunSamples) -> Result<(), AssembleError> {
    for (frame, f) in samples.frames.iter().enumerate() {
        let named = std::iter::once(("cpu frame".to_owned(), f.cpu_frame_ms))
            .chain(f.gpu_frame_ms.map(|v| ("gpu frame".to_owned(), v)))
            .chain(
                f.cpu_pass_ms
                    .iter()
                    .map(|(n, &v)| (format!("cpu pass {n}"), v)),
            )
            .chain(
                f.gpu_pass_ms
                    .iter()
                    .map(|(n, &v)| (format!("gpu pass {n}"), v)),
            );
        for (what, value) in named {
            if value < 0.0 {
                return Err(AssembleError::NegativeTime {
                    tier: samples.tier.to_string(),
                    frame,
                    what,
                    value,
                });
            }
        }
    }
    Ok(())
}

/// `tier / baseline`, or `None` when either is absent or the baseline is not a
/// positive finite number (a ratio against zero says nothing).
pub fn ratio(tier: Option<f64>, baseline: Option<f64>) -> Option<f64> {
    let (t, b) = (tier?, baseline?);
    (b > 0.0 && b.is_finite() && t.is_finite()).then(|| t / b)
}

/// Compares every non-baseline run with the baseline run.
///
/// `diffs` holds the screenshot difference of each tier against the baseline's
/// screenshot (computed with [`crate::imagediff`]); a tier without one gets `null`.
pub fn build_comparisons(
    runs: &[Run],
    diffs: &BTreeMap<TierPair, ImageDiff>,
) -> Result<Vec<Comparison>, AssembleError> {
    for (i, run) in runs.iter().enumerate() {
        if runs[..i].iter().any(|r| r.tier == run.tier) {
            return Err(AssembleError::DuplicateRun {
                tier: run.tier.to_string(),
            });
        }
    }
    let base = runs
        .iter()
        .find(|r| r.tier.is_baseline())
        .ok_or(AssembleError::NoBaseline)?;
    let median = |s: Option<&crate::stats::Stats>| s.map(|s| s.median);
    Ok(runs
        .iter()
        .filter(|r| !r.tier.is_baseline())
        .map(|run| Comparison {
            tier: run.tier.clone(),
            baseline: base.tier.clone(),
            cpu_frame_ratio: ratio(
                Some(run.cpu_frame_ms.median),
                Some(base.cpu_frame_ms.median),
            ),
            cpu_grass_ratio: ratio(
                Some(run.cpu_grass_ms.median),
                Some(base.cpu_grass_ms.median),
            ),
            gpu_frame_ratio: ratio(
                median(run.gpu_frame_ms.as_ref()),
                median(base.gpu_frame_ms.as_ref()),
            ),
            gpu_grass_ratio: ratio(
                median(run.gpu_grass_ms.as_ref()),
                median(base.gpu_grass_ms.as_ref()),
            ),
            cpu_frame_thread_ratio: ratio(
                median(run.cpu_frame_thread_ms.as_ref()),
                median(base.cpu_frame_thread_ms.as_ref()),
            ),
            gpu_work_ratios: match (&run.gpu_work, &base.gpu_work) {
                (Some(r), Some(b)) => work_ratios(r, b),
                _ => BTreeMap::new(),
            },
            image_diff: diffs.get(&run.tier).copied(),
        })
        .collect())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A frame with the given CPU/GPU pass times; GPU frame time derived from passes.
    pub(crate) fn frame(cpu_frame: f64, cpu: &[(&str, f64)], gpu: &[(&str, f64)]) -> FrameSample {
        FrameSample {
            cpu_frame_ms: cpu_frame,
            cpu_pass_ms: cpu.iter().map(|&(n, v)| (n.to_owned(), v)).collect(),
            gpu_frame_ms: None,
            gpu_pass_ms: gpu.iter().map(|&(n, v)| (n.to_owned(), v)).collect(),
            counters: FrameCounters::default(),
            ..Default::default()
        }
    }

    /// Samples of `tier` whose frames scale a fixed pattern by `k`.
    pub(crate) fn scaled_samples(tier: TierPair, k: f64) -> RunSamples {
        let mut s = RunSamples::new(tier);
        for i in 0..9 {
            let j = 1.0 + 0.1 * i as f64;
            let mut f = frame(
                10.0 * k * j,
                &[("grass.draw", 2.0 * k * j), ("terrain.draw", 3.0 * j)],
                &[
                    ("grass.cull", 0.5 * k * j),
                    ("grass.draw", 1.5 * k * j),
                    ("terrain.draw", 4.0 * j),
                ],
            );
            f.counters.draw_calls = 14 + i as u64;
            s.frames.push(f);
        }
        s.image = Some(format!("{}.png", s.tier));
        s
    }

    #[test]
    fn build_run_sums_prefixed_passes_per_frame() {
        let mut s = RunSamples::new(TierPair::baseline());
        s.frames.push(frame(
            10.0,
            &[
                ("grass.a", 1.0),
                ("grass.b", 2.0),
                ("terrain.x", 4.0),
                ("present", 9.0),
            ],
            &[
                ("grass.cull", 0.25),
                ("terrain.draw", 0.5),
                ("grassy", 100.0),
            ],
        ));
        let run = build_run(&s).unwrap();
        assert_eq!(run.cpu_grass_ms.median, 3.0);
        assert_eq!(run.cpu_terrain_ms.median, 4.0);
        assert_eq!(run.gpu_grass_ms.unwrap().median, 0.25);
        assert_eq!(run.gpu_terrain_ms.unwrap().median, 0.5);
        // No explicit GPU frame time: the sum of every timed pass.
        assert_eq!(run.gpu_frame_ms.unwrap().median, 100.75);
        assert_eq!(run.gpu_pass_ms.len(), 3);
        assert_eq!(run.cpu_pass_ms.len(), 4);
        assert_eq!(run.cpu_pass_ms["present"].median, 9.0);
    }

    /// Per-pass CPU figures are over the frames in which the pass ran (a
    /// step of every 8th frame is not diluted by the others).
    #[test]
    fn cpu_pass_figures_cover_the_frames_a_pass_ran_in() {
        let mut s = RunSamples::new(TierPair::baseline());
        for i in 0..8 {
            let mut cpu = vec![("terrain.draw", 1.0 + f64::from(i))];
            if i % 4 == 0 {
                cpu.push(("terrain.readback", 5.0));
            }
            s.frames.push(frame(10.0, &cpu, &[]));
        }
        let run = build_run(&s).unwrap();
        assert_eq!(run.cpu_pass_ms["terrain.readback"].median, 5.0);
        assert_eq!(run.cpu_pass_ms["terrain.draw"].median, 4.5);
        let mut report = crate::testutil::sample_report();
        report.runs = vec![run];
        let md = crate::markdown::render(&report, &[]);
        assert!(md.contains("## CPU time per pass and frame step"), "{md}");
        assert!(md.contains("| terrain.readback | 5.000 (5.000) |"), "{md}");
    }

    #[test]
    fn untimed_frames_are_left_out_of_gpu_figures() {
        let mut s = RunSamples::new(TierPair::new("gpu-cull", "static-chunks"));
        s.frames.push(frame(10.0, &[], &[("grass.draw", 2.0)]));
        s.frames.push(frame(10.0, &[], &[]));
        s.frames.push(frame(10.0, &[], &[("grass.draw", 4.0)]));
        let run = build_run(&s).unwrap();
        assert_eq!(run.gpu_frame_ms.unwrap().median, 3.0);
        let series = run.frame_series.unwrap();
        assert_eq!(series.gpu_frame_ms, vec![Some(2.0), None, Some(4.0)]);

        let mut none = RunSamples::new(TierPair::baseline());
        none.frames.push(frame(5.0, &[], &[]));
        let run = build_run(&none).unwrap();
        assert!(run.gpu_frame_ms.is_none() && run.gpu_grass_ms.is_none());
    }

    #[test]
    fn the_frame_series_carries_thread_times_only_where_every_frame_has_them() {
        let mut s = RunSamples::new(TierPair::baseline());
        for (wall, thread) in [(4.0, 1.0), (9.0, 1.5), (5.0, 3.0)] {
            let mut f = frame(wall, &[], &[]);
            f.cpu_thread_frame_ms = Some(thread);
            s.frames.push(f);
        }
        let series = build_run(&s).unwrap().frame_series.unwrap();
        assert_eq!(series.cpu_frame_ms, vec![4.0, 9.0, 5.0]);
        assert_eq!(series.cpu_frame_thread_ms, Some(vec![1.0, 1.5, 3.0]));
        s.frames[1].cpu_thread_frame_ms = None;
        let run = build_run(&s).unwrap();
        assert!(run.cpu_frame_thread_ms.is_none());
        assert_eq!(run.frame_series.unwrap().cpu_frame_thread_ms, None);
    }

    #[test]
    fn build_run_rejects_empty_negative_and_nan_input() {
        let empty = RunSamples::new(TierPair::baseline());
        assert!(matches!(
            build_run(&empty),
            Err(AssembleError::NoFrames { .. })
        ));
        let mut neg = RunSamples::new(TierPair::baseline());
        neg.frames.push(frame(1.0, &[], &[("grass.cull", -0.5)]));
        let err = build_run(&neg).unwrap_err();
        assert!(err.to_string().contains("grass.cull"), "{err}");
        let mut nan = RunSamples::new(TierPair::baseline());
        nan.frames.push(frame(f64::NAN, &[], &[]));
        assert!(matches!(
            build_run(&nan),
            Err(AssembleError::BadSamples { .. })
        ));
    }

    #[test]
    fn counters_and_hitches_come_from_the_frames() {
        let mut s = scaled_samples(TierPair::baseline(), 1.0);
        s.frames[4].cpu_frame_ms = 1000.0;
        let run = build_run(&s).unwrap();
        assert_eq!(run.draw_calls, 18); // 14..=22, middle is 18
        assert_eq!(run.hitches, 1);
        // Frames of a sub-4-ms median: one over twice the median but not
        // over the median + the margin is a hitch in neither the count nor
        // the list (one rule for both).
        let mut s = scaled_samples(TierPair::baseline(), 0.1);
        let median = build_run(&s).unwrap().cpu_frame_ms.median;
        assert!(median < crate::stats::HITCH_MARGIN_MS, "{median}");
        s.frames[4].cpu_frame_ms = 1000.0;
        s.frames[2].cpu_frame_ms = crate::stats::hitch_limit(median) - 0.01;
        assert!(s.frames[2].cpu_frame_ms > 2.0 * median);
        let run = build_run(&s).unwrap();
        assert_eq!(run.hitches, 1);
        assert_eq!(run.hitch_list.len(), 1);
        assert_eq!(run.hitch_list[0].frame, 4);
    }

    #[test]
    fn comparisons_divide_medians_against_the_baseline() {
        let base = build_run(&scaled_samples(TierPair::baseline(), 1.0)).unwrap();
        let fast_tier = TierPair::new("gpu-cull", "static-chunks");
        let fast = build_run(&scaled_samples(fast_tier.clone(), 0.25)).unwrap();
        let diff = ImageDiff {
            rmse: 1.5,
            differing_pixels_fraction: 0.01,
        };
        let diffs = BTreeMap::from([(fast_tier.clone(), diff)]);
        let comps = build_comparisons(&[fast.clone(), base.clone()], &diffs).unwrap();
        assert_eq!(comps.len(), 1);
        let c = &comps[0];
        assert_eq!(c.tier, fast_tier);
        assert_eq!(c.baseline, TierPair::baseline());
        let expect = |a: f64, b: f64| a / b;
        assert_eq!(
            c.cpu_frame_ratio,
            Some(expect(fast.cpu_frame_ms.median, base.cpu_frame_ms.median))
        );
        assert!((c.cpu_grass_ratio.unwrap() - 0.25).abs() < 1e-12);
        assert!((c.gpu_grass_ratio.unwrap() - 0.25).abs() < 1e-12);
        // GPU frame: grass scales, terrain does not -> between 0.25 and 1.
        let g = c.gpu_frame_ratio.unwrap();
        assert!(g > 0.25 && g < 1.0, "{g}");
        assert_eq!(c.image_diff, Some(diff));
    }

    #[test]
    fn ratios_against_zero_or_missing_baselines_are_null() {
        assert_eq!(ratio(Some(1.0), Some(0.0)), None);
        assert_eq!(ratio(Some(1.0), None), None);
        assert_eq!(ratio(None, Some(2.0)), None);
        assert_eq!(ratio(Some(1.0), Some(4.0)), Some(0.25));
        let mut base = RunSamples::new(TierPair::baseline());
        base.frames.push(frame(4.0, &[], &[]));
        let mut off = RunSamples::new(TierPair::new("off", "static-chunks"));
        off.frames.push(frame(2.0, &[], &[]));
        let runs = [build_run(&base).unwrap(), build_run(&off).unwrap()];
        let c = &build_comparisons(&runs, &BTreeMap::new()).unwrap()[0];
        assert_eq!(c.cpu_frame_ratio, Some(0.5));
        assert_eq!(c.cpu_grass_ratio, None);
        assert_eq!(c.gpu_frame_ratio, None);
        assert_eq!(c.image_diff, None);
    }

    #[test]
    fn comparisons_need_one_baseline_and_unique_runs() {
        let other = build_run(&scaled_samples(
            TierPair::new("legacy-cpu", "static-chunks"),
            2.0,
        ))
        .unwrap();
        assert_eq!(
            build_comparisons(std::slice::from_ref(&other), &BTreeMap::new()),
            Err(AssembleError::NoBaseline)
        );
        let base = build_run(&scaled_samples(TierPair::baseline(), 1.0)).unwrap();
        assert!(matches!(
            build_comparisons(&[base, other.clone(), other], &BTreeMap::new()),
            Err(AssembleError::DuplicateRun { .. })
        ));
    }
}
