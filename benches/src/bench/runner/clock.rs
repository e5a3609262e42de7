//! One measured frame's clocks (wall, render-thread CPU, allocations) and
//! how a frame's report and its lagged GPU times become a [`FrameSample`].

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use sward_engine::cpu_clock::ThreadTimer;

use crate::assemble::{FrameCounters, FrameSample, RunSamples};
use crate::work::FrameAllocs;

/// Where a measured frame starts: the wall clock, the render thread's CPU
/// clock and its allocation counts.
pub(super) struct FrameClock {
    pub(super) wall: Instant,
    pub(super) thread: ThreadTimer,
    allocs: Option<sward_profiling::alloc::AllocCounts>,
}

/// What a [`FrameClock`] measured.
pub(super) struct FrameTimes {
    wall_ms: f64,
    thread_ms: Option<f64>,
    allocs: Option<FrameAllocs>,
}

impl FrameClock {
    pub(super) fn start() -> Self {
        FrameClock {
            allocs: sward_profiling::alloc::thread_counts(),
            thread: ThreadTimer::start(),
            wall: Instant::now(),
        }
    }

    pub(super) fn finish(&self) -> FrameTimes {
        let wall_ms = self.wall.elapsed().as_secs_f64() * 1e3;
        let thread_ms = self.thread.elapsed_ms();
        let allocs = match (self.allocs, sward_profiling::alloc::thread_counts()) {
            (Some(a), Some(b)) => {
                let d = b.since(a);
                Some(FrameAllocs {
                    count: d.count,
                    bytes: d.bytes,
                })
            }
            _ => None,
        };
        FrameTimes {
            wall_ms,
            thread_ms,
            allocs,
        }
    }
}

/// One measured frame's sample: its CPU time (wall and thread) and
/// allocations, the graph's per-pass CPU times plus `sections` (named CPU
/// work outside the graph; `thread_sections` the same in thread time), its
/// counters.
pub(super) fn sample_of(
    report: &sward_engine::graph::FrameReport,
    measured: FrameTimes,
    sections: Vec<(String, f64)>,
    thread_sections: Vec<(String, f64)>,
) -> FrameSample {
    FrameSample {
        cpu_frame_ms: measured.wall_ms,
        cpu_thread_frame_ms: measured.thread_ms,
        allocs: measured.allocs,
        gpu_work: None,
        cpu_thread_pass_ms: report
            .passes
            .iter()
            .filter_map(|p| Some((p.name.clone(), p.cpu_thread_ms?)))
            .chain(thread_sections)
            .collect(),
        cpu_pass_ms: report
            .passes
            .iter()
            .map(|p| (p.name.clone(), p.cpu_ms))
            .chain(sections)
            .collect(),
        gpu_frame_ms: None,
        gpu_pass_ms: BTreeMap::new(),
        counters: FrameCounters {
            draw_calls: report.counters.draw_calls,
            instances_submitted: report.counters.instances_submitted,
            instances_drawn: report.counters.instances_drawn,
            triangles: report.counters.triangles,
            bytes_uploaded: report.counters.bytes_uploaded,
        },
    }
}

pub(super) fn attach_gpu_times(
    samples: &mut RunSamples,
    by_frame: &HashMap<u64, usize>,
    times: sward_engine::graph::GpuFrameTimes,
) {
    if let Some(&i) = by_frame.get(&times.frame) {
        let sample = &mut samples.frames[i];
        for p in &times.passes {
            *sample.gpu_pass_ms.entry(p.name.clone()).or_insert(0.0) += p.ms();
        }
        if let Some(work) = times.work {
            let mut per_pass: BTreeMap<String, sward_engine::graph::PipelineStats> =
                BTreeMap::new();
            for w in work {
                *per_pass.entry(w.name).or_default() += w.stats;
            }
            sample.gpu_work = Some(per_pass);
        }
    }
}
