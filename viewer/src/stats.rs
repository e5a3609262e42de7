//! Frame statistics: per-frame CPU/GPU times of the scene and the overlay, a
//! per-pass table of recent medians, a short history for the plot, rolling
//! medians per configuration for the A/B comparison, and the summary printed
//! when a `--frames` run exits.

use std::collections::{BTreeMap, HashMap, VecDeque};

use sward_engine::graph::{Counters, FrameReport, GpuFrameTimes, PipelineStats};

/// Frames kept for the plot and the per-pass medians.
pub const HISTORY: usize = 240;
/// Frames in each A/B rolling median.
pub const AB_WINDOW: usize = 120;
/// Pass name prefix of the viewer's own passes (not part of the scene's time).
pub const VIEWER_PREFIX: &str = "viewer.";

/// Median of `values` (0 for none).
pub fn median(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// A bounded queue of recent samples.
#[derive(Debug, Clone, Default)]
pub struct Rolling {
    values: VecDeque<f64>,
    cap: usize,
}

impl Rolling {
    /// Keeps the last `cap` samples.
    pub fn new(cap: usize) -> Self {
        Rolling {
            values: VecDeque::with_capacity(cap),
            cap: cap.max(1),
        }
    }

    /// Adds a sample, dropping the oldest beyond the capacity.
    pub fn push(&mut self, v: f64) {
        if self.values.len() == self.cap {
            self.values.pop_front();
        }
        self.values.push_back(v);
    }

    /// Median of the kept samples.
    pub fn median(&self) -> f64 {
        median(self.values.iter().copied())
    }

    /// Samples kept.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no sample is kept.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The samples, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = f64> + '_ {
        self.values.iter().copied()
    }
}

/// CPU and GPU rolling medians of one configuration.
#[derive(Debug, Clone)]
pub struct AbSide {
    /// Scene CPU ms per frame.
    pub cpu: Rolling,
    /// Scene GPU ms per frame.
    pub gpu: Rolling,
}

impl Default for AbSide {
    fn default() -> Self {
        AbSide {
            cpu: Rolling::new(AB_WINDOW),
            gpu: Rolling::new(AB_WINDOW),
        }
    }
}

/// Recent per-pass times (ms).
#[derive(Debug, Clone)]
pub struct PassTimes {
    /// CPU recording time.
    pub cpu: Rolling,
    /// GPU time (timestamp queries).
    pub gpu: Rolling,
}

impl Default for PassTimes {
    fn default() -> Self {
        PassTimes {
            cpu: Rolling::new(HISTORY),
            gpu: Rolling::new(HISTORY),
        }
    }
}

/// Everything the panel and the exit summary show.
#[derive(Debug, Default)]
pub struct FrameStats {
    /// Wall time between frame starts.
    pub interval: Rolling,
    /// Scene CPU: the renderer's `record` plus its passes' recording time.
    pub cpu_scene: Rolling,
    /// Scene GPU: the sum of the scene passes' GPU times.
    pub gpu_scene: Rolling,
    /// Overlay CPU: egui layout + tessellation + its pass recording.
    pub cpu_ui: Rolling,
    /// Overlay + present GPU time.
    pub gpu_ui: Rolling,
    /// Per pass, by name.
    pub passes: BTreeMap<String, PassTimes>,
    /// Counters of the last frame.
    pub counters: Counters,
    /// GPU work counters (pipeline statistics) of the last frame whose
    /// counters came back: the frame number and the scene's sum (the
    /// overlay's passes left out); `None` before any, or without the
    /// device feature.
    pub work: Option<(u64, PipelineStats)>,
    /// Rolling medians per configuration label (A/B).
    pub ab: HashMap<String, AbSide>,
    /// Frame number of each pending GPU result -> configuration label then.
    labels: VecDeque<(u64, String)>,
    /// Frames since the last statistics reset (exit summary).
    summary: Summary,
}

/// Samples since the last reset, for the exit summary (unbounded).
#[derive(Debug, Default, Clone)]
struct Summary {
    interval: Vec<f64>,
    cpu_scene: Vec<f64>,
    gpu_scene: Vec<f64>,
    cpu_ui: Vec<f64>,
    gpu_ui: Vec<f64>,
}

impl FrameStats {
    /// Empty statistics with the history capacity set.
    pub fn new() -> Self {
        FrameStats {
            interval: Rolling::new(HISTORY),
            cpu_scene: Rolling::new(HISTORY),
            gpu_scene: Rolling::new(HISTORY),
            cpu_ui: Rolling::new(HISTORY),
            gpu_ui: Rolling::new(HISTORY),
            ..Default::default()
        }
    }

    /// Records the CPU side of a frame: `record_ms` is the time the renderer
    /// took to add its passes, `ui_ms` the overlay's layout and tessellation,
    /// `label` the configuration the frame ran with.
    pub fn push_cpu(
        &mut self,
        report: &FrameReport,
        record_ms: f64,
        ui_ms: f64,
        interval_ms: Option<f64>,
        label: &str,
    ) {
        let (mut scene, mut ui) = (record_ms, ui_ms);
        for p in &report.passes {
            if p.name.starts_with(VIEWER_PREFIX) {
                ui += p.cpu_ms;
            } else {
                scene += p.cpu_ms;
            }
            self.passes
                .entry(p.name.clone())
                .or_default()
                .cpu
                .push(p.cpu_ms);
        }
        self.cpu_scene.push(scene);
        self.cpu_ui.push(ui);
        self.summary.cpu_scene.push(scene);
        self.summary.cpu_ui.push(ui);
        if let Some(ms) = interval_ms {
            self.interval.push(ms);
            self.summary.interval.push(ms);
        }
        self.counters = report.counters;
        self.ab.entry(label.to_owned()).or_default().cpu.push(scene);
        self.labels.push_back((report.frame, label.to_owned()));
        while self.labels.len() > 64 {
            self.labels.pop_front();
        }
    }

    /// Records GPU times that came back for an earlier frame.
    pub fn push_gpu(&mut self, times: &GpuFrameTimes) {
        let (mut scene, mut ui) = (0.0, 0.0);
        for p in &times.passes {
            if p.name.starts_with(VIEWER_PREFIX) {
                ui += p.ms();
            } else {
                scene += p.ms();
            }
            self.passes
                .entry(p.name.clone())
                .or_default()
                .gpu
                .push(p.ms());
        }
        if let Some(work) = &times.work {
            let scene: PipelineStats = work
                .iter()
                .filter(|w| !w.name.starts_with(VIEWER_PREFIX))
                .map(|w| w.stats)
                .sum();
            self.work = Some((times.frame, scene));
        }
        self.gpu_scene.push(scene);
        self.gpu_ui.push(ui);
        self.summary.gpu_scene.push(scene);
        self.summary.gpu_ui.push(ui);
        let label = self
            .labels
            .iter()
            .find(|(f, _)| *f == times.frame)
            .map(|(_, l)| l.clone());
        if let Some(label) = label {
            self.ab.entry(label).or_default().gpu.push(scene);
        }
    }

    /// Forgets pass rows that no longer run (after a tier switch).
    pub fn retain_passes(&mut self, names: &[String]) {
        self.passes.retain(|k, _| names.contains(k));
    }

    /// Restarts the exit summary.
    pub fn reset_summary(&mut self) {
        self.summary = Summary::default();
    }

    /// The exit summary: medians since the last reset.
    pub fn summary_line(&self) -> String {
        let s = &self.summary;
        format!(
            "frames {} | frame interval {:.2} ms | scene CPU {:.2} ms, GPU {:.2} ms | \
             overlay CPU {:.2} ms, GPU {:.2} ms (medians)",
            s.cpu_scene.len(),
            median(s.interval.iter().copied()),
            median(s.cpu_scene.iter().copied()),
            median(s.gpu_scene.iter().copied()),
            median(s.cpu_ui.iter().copied()),
            median(s.gpu_ui.iter().copied()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sward_engine::graph::{GpuPassTime, PassReport};

    #[test]
    fn median_and_rolling_window() {
        assert_eq!(median([3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median([4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(std::iter::empty()), 0.0);
        let mut r = Rolling::new(3);
        for v in [10.0, 1.0, 2.0, 3.0] {
            r.push(v);
        }
        assert_eq!(r.len(), 3);
        assert_eq!(r.median(), 2.0, "the oldest sample (10) was dropped");
    }

    fn report(frame: u64, passes: &[(&str, f64)]) -> FrameReport {
        FrameReport {
            frame,
            passes: passes
                .iter()
                .map(|(n, ms)| PassReport {
                    name: (*n).to_owned(),
                    cpu_ms: *ms,
                    cpu_thread_ms: Some(*ms),
                    counters: Counters::default(),
                })
                .collect(),
            cpu_ms: 0.0,
            cpu_thread_ms: Some(0.0),
            overhead: Default::default(),
            overhead_thread_ms: Default::default(),
            counters: Counters::default(),
        }
    }

    fn gpu(frame: u64, passes: &[(&str, u64)]) -> GpuFrameTimes {
        GpuFrameTimes {
            frame,
            passes: passes
                .iter()
                .map(|(n, us)| GpuPassTime {
                    name: (*n).to_owned(),
                    start_ns: 1_000,
                    end_ns: 1_000 + us * 1_000,
                })
                .collect(),
            work: None,
        }
    }

    #[test]
    fn scene_and_overlay_times_are_split_and_gpu_results_find_their_label() {
        let mut s = FrameStats::new();
        let passes = [
            ("terrain.draw", 1.0),
            ("grass.draw", 2.0),
            ("viewer.present", 0.5),
        ];
        s.push_cpu(&report(7, &passes), 0.25, 3.0, Some(16.0), "A");
        s.push_cpu(&report(8, &passes), 0.25, 3.0, Some(16.0), "B");
        assert_eq!(s.cpu_scene.median(), 3.25);
        assert_eq!(s.cpu_ui.median(), 3.5);
        // The GPU result of frame 7 arrives later, while B is running.
        s.push_gpu(&gpu(7, &[("terrain.draw", 400), ("viewer.present", 100)]));
        assert_eq!(s.ab["A"].gpu.median(), 0.4);
        assert!(s.ab["B"].gpu.is_empty());
        assert_eq!(s.gpu_ui.median(), 0.1);
        assert_eq!(s.passes["grass.draw"].cpu.median(), 2.0);
        s.retain_passes(&["terrain.draw".to_owned()]);
        assert_eq!(s.passes.len(), 1);
        assert!(
            s.summary_line().contains("scene CPU 3.25 ms"),
            "{}",
            s.summary_line()
        );
        s.reset_summary();
        assert!(s.summary_line().starts_with("frames 0"));
    }
}
