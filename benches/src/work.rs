//! The figures that decide a comparison where timers cannot: the GPU work
//! counters of every pass (pipeline statistics), the render thread's own
//! CPU time and its heap allocations per frame.
//!
//! Counters are exact for one driver (the same frame gives the same
//! counts), so a ratio of counters between two tiers in one report means
//! the same on every run; timers on a shared machine do not. The report
//! keeps both side by side.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sward_engine::graph::PipelineStats;

use crate::stats::counter_median;

/// The per-frame median and max of each pipeline counter (each counter on
/// its own: the median of one may come from another frame than another's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CounterStats {
    /// Per-counter median over the frames (lower middle for an even count,
    /// so always a value some frame had).
    pub median: PipelineStats,
    /// Per-counter largest value.
    pub max: PipelineStats,
}

impl CounterStats {
    /// Summarises `frames` (none: all zero).
    pub fn from_frames(frames: &[PipelineStats]) -> Self {
        let per = |i: usize| -> (u64, u64) {
            let v: Vec<u64> = frames.iter().map(|f| f.values()[i]).collect();
            (
                counter_median(&v).unwrap_or(0),
                v.iter().copied().max().unwrap_or(0),
            )
        };
        let all: [(u64, u64); 5] = std::array::from_fn(per);
        CounterStats {
            median: PipelineStats::from_values(all.map(|(m, _)| m)),
            max: PipelineStats::from_values(all.map(|(_, x)| x)),
        }
    }
}

/// GPU work of one run: per pass and summed per subsystem.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuWork {
    /// Measured frames whose counters were read back (the statistics are
    /// over these).
    pub frames: u32,
    /// Per pass name, over the counted frames in which it ran.
    pub per_pass: BTreeMap<String, CounterStats>,
    /// Summed per frame over the passes of `grass.*`, of `terrain.*`, and
    /// over every pass (`frame`).
    pub per_subsystem: BTreeMap<String, CounterStats>,
}

/// The subsystems [`GpuWork::per_subsystem`] sums, with their pass prefix.
pub const SUBSYSTEMS: [(&str, &str); 3] =
    [("grass", "grass."), ("terrain", "terrain."), ("frame", "")];

impl GpuWork {
    /// The run's GPU work from each frame's per-pass counters (`None` where
    /// a frame was not counted); `None` when no frame was.
    pub fn from_frames(frames: &[Option<&BTreeMap<String, PipelineStats>>]) -> Option<Self> {
        let counted: Vec<&BTreeMap<String, PipelineStats>> =
            frames.iter().flatten().copied().collect();
        if counted.is_empty() {
            return None;
        }
        let mut per_pass: BTreeMap<String, Vec<PipelineStats>> = BTreeMap::new();
        for f in &counted {
            for (name, s) in f.iter() {
                per_pass.entry(name.clone()).or_default().push(*s);
            }
        }
        let per_subsystem = SUBSYSTEMS
            .iter()
            .map(|(name, prefix)| {
                let sums: Vec<PipelineStats> = counted
                    .iter()
                    .map(|f| {
                        f.iter()
                            .filter(|(n, _)| n.starts_with(prefix))
                            .map(|(_, s)| *s)
                            .sum()
                    })
                    .collect();
                ((*name).to_owned(), CounterStats::from_frames(&sums))
            })
            .collect();
        Some(GpuWork {
            frames: counted.len() as u32,
            per_pass: per_pass
                .into_iter()
                .map(|(n, v)| (n, CounterStats::from_frames(&v)))
                .collect(),
            per_subsystem,
        })
    }

    /// The median counters of subsystem `name` (`grass`, `terrain`, `frame`).
    pub fn median(&self, name: &str) -> Option<PipelineStats> {
        self.per_subsystem.get(name).map(|s| s.median)
    }
}

/// Each median counter of `run` over the baseline's, keyed
/// `subsystem.counter` (`grass.vs_invocations`, `frame.fs_invocations`, ...);
/// a counter the baseline did not do (0) has no ratio.
pub fn work_ratios(run: &GpuWork, base: &GpuWork) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for (sub, _) in SUBSYSTEMS {
        let (Some(t), Some(b)) = (run.median(sub), base.median(sub)) else {
            continue;
        };
        for (i, (counter, _)) in PipelineStats::NAMES.iter().enumerate() {
            let (t, b) = (t.values()[i], b.values()[i]);
            if b > 0 {
                out.insert(format!("{sub}.{counter}"), t as f64 / b as f64);
            }
        }
    }
    out
}

/// The render thread's heap allocations in one frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameAllocs {
    /// Allocation calls.
    pub count: u64,
    /// Bytes asked for.
    pub bytes: u64,
}

/// The render thread's allocations per frame over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllocStats {
    /// Allocations per frame, median.
    pub count_median: u64,
    /// Allocations per frame, largest.
    pub count_max: u64,
    /// Bytes allocated per frame, median.
    pub bytes_median: u64,
    /// Bytes allocated per frame, largest.
    pub bytes_max: u64,
}

impl AllocStats {
    /// Summarises the frames that were counted; `None` when none was (the
    /// counting allocator is not installed).
    pub fn from_frames(frames: &[Option<FrameAllocs>]) -> Option<Self> {
        let counted: Vec<FrameAllocs> = frames.iter().flatten().copied().collect();
        if counted.is_empty() {
            return None;
        }
        let count: Vec<u64> = counted.iter().map(|a| a.count).collect();
        let bytes: Vec<u64> = counted.iter().map(|a| a.bytes).collect();
        Some(AllocStats {
            count_median: counter_median(&count).unwrap_or(0),
            count_max: count.iter().copied().max().unwrap_or(0),
            bytes_median: counter_median(&bytes).unwrap_or(0),
            bytes_max: bytes.iter().copied().max().unwrap_or(0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(v: [u64; 5]) -> PipelineStats {
        PipelineStats::from_values(v)
    }

    #[test]
    fn subsystems_sum_their_passes_per_frame_and_ratios_divide_medians() {
        let frame = |grass_vs: u64| {
            BTreeMap::from([
                ("grass.draw".to_owned(), stats([grass_vs, 10, 9, 100, 0])),
                ("grass.cull".to_owned(), stats([0, 0, 0, 0, 64])),
                ("terrain.draw".to_owned(), stats([30, 20, 20, 400, 0])),
            ])
        };
        let (a, b, c) = (frame(6), frame(12), frame(9));
        let work = GpuWork::from_frames(&[Some(&a), None, Some(&b), Some(&c)]).unwrap();
        assert_eq!(work.frames, 3);
        assert_eq!(work.median("grass").unwrap().values(), [9, 10, 9, 100, 64]);
        assert_eq!(work.per_subsystem["grass"].max.vs_invocations, 12);
        assert_eq!(work.median("frame").unwrap().vs_invocations, 39);
        assert_eq!(work.per_pass["terrain.draw"].median.fs_invocations, 400);

        let half = GpuWork::from_frames(&[Some(&frame(3))]).unwrap();
        let r = work_ratios(&half, &work);
        assert_eq!(r["grass.vs_invocations"], 3.0 / 9.0);
        assert_eq!(r["terrain.fs_invocations"], 1.0);
        // The baseline's terrain ran no compute: no ratio against zero.
        assert!(!r.contains_key("terrain.cs_invocations"));
        assert_eq!(GpuWork::from_frames(&[None, None]), None);
    }

    #[test]
    fn allocations_are_summarised_over_counted_frames_only() {
        let f = |count, bytes| Some(FrameAllocs { count, bytes });
        let s = AllocStats::from_frames(&[f(3, 300), None, f(1, 100), f(7, 50)]).unwrap();
        assert_eq!((s.count_median, s.count_max), (3, 7));
        assert_eq!((s.bytes_median, s.bytes_max), (100, 300));
        assert_eq!(AllocStats::from_frames(&[None]), None);
    }
}
