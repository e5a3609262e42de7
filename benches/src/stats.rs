//! Summary statistics of per-frame samples: the `{median, p95, min, max, mean}`
//! object of the report, hitch counting and the median of integer counters.
//!
//! Percentiles use linear interpolation between closest ranks (the method numpy
//! calls `linear` and spreadsheets call `PERCENTILE.INC`): for sorted samples
//! `x[0..n]` and a fraction `q`, take `h = (n - 1) * q` and return
//! `x[floor(h)] + (h - floor(h)) * (x[floor(h) + 1] - x[floor(h)])`. The median is
//! the same rule at `q = 0.5`, so for an even count it is the mean of the two middle
//! samples. A single sample is its own median, p95, min, max and mean.

use serde::{Deserialize, Serialize};

/// Why a set of samples could not be summarised.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// No samples at all: there is no honest median of nothing.
    #[error("no samples to summarise")]
    Empty,
    /// A sample is NaN or infinite (a broken timer or a division by zero upstream).
    #[error("sample {index} is not a finite number ({value})")]
    NonFinite {
        /// Position of the offending sample in the input.
        index: usize,
        /// The offending value.
        value: f64,
    },
}

/// Summary of one measured quantity over the measured frames (milliseconds for times).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Middle value (mean of the two middle samples for an even count).
    pub median: f64,
    /// 95th percentile, linear interpolation between closest ranks.
    pub p95: f64,
    /// 99th percentile, same rule (absent in reports written before it was
    /// recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99: Option<f64>,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
}

impl Stats {
    /// Summarises `samples`; an empty slice or a non-finite sample is an error.
    pub fn from_samples(samples: &[f64]) -> Result<Self, StatsError> {
        if samples.is_empty() {
            return Err(StatsError::Empty);
        }
        if let Some((index, &value)) = samples.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(StatsError::NonFinite { index, value });
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let sum: f64 = sorted.iter().sum();
        Ok(Self {
            median: percentile_sorted(&sorted, 0.5),
            p95: percentile_sorted(&sorted, 0.95),
            p99: Some(percentile_sorted(&sorted, 0.99)),
            min: sorted[0],
            max: sorted[sorted.len() - 1],
            mean: sum / sorted.len() as f64,
        })
    }
}

/// Percentile `q` (0..=1) of already sorted, non-empty samples, linear interpolation
/// between closest ranks (see the module docs).
fn percentile_sorted(sorted: &[f64], q: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * q.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    let frac = h - lo as f64;
    sorted[lo] + frac * (sorted[hi] - sorted[lo])
}

/// How many times the run's median a frame must exceed to be a hitch.
pub const HITCH_FACTOR: f64 = 2.0;

/// Extra milliseconds over the median a frame must also exceed to be a
/// hitch (so noise around a sub-millisecond median is not one).
pub const HITCH_MARGIN_MS: f64 = 4.0;

/// The one definition of a hitch, shared by the report (`hitches`,
/// `hitch_list`, `thread_hitch_list`), its markdown and the tests: a frame
/// strictly slower than this bound, given the run's median frame time.
pub fn hitch_limit(median_ms: f64) -> f64 {
    (HITCH_FACTOR * median_ms).max(median_ms + HITCH_MARGIN_MS)
}

/// [`hitch_limit`] in words, as the report's markdown states it.
pub fn hitch_definition() -> String {
    format!(
        "frames slower than {HITCH_FACTOR} times the median frame and than the median + \
         {HITCH_MARGIN_MS} ms"
    )
}

/// Number of hitches (frames over [`hitch_limit`] of the run's median):
/// the length of [`find_hitches`]'s list for the same frames.
///
/// Returns 0 for an empty slice: there are no frames, so none hitched.
pub fn count_hitches(frame_ms: &[f64]) -> u32 {
    let Ok(stats) = Stats::from_samples(frame_ms) else {
        return 0;
    };
    let limit = hitch_limit(stats.median);
    frame_ms.iter().filter(|&&t| t > limit).count() as u32
}

/// A frame that hitched (over [`hitch_limit`] of the run's median), with
/// the largest named section of that frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hitch {
    /// Measured-frame index.
    pub frame: u32,
    /// The frame's CPU time (ms).
    pub cpu_frame_ms: f64,
    /// The largest named CPU section of the frame (a pass, a streaming step,
    /// or `frame.other` for time outside every named section).
    pub section: String,
    /// That section's CPU time (ms).
    pub section_ms: f64,
    /// `work` when the frame is also over the bound in the render thread's
    /// own CPU time, `wait` when only its wall time is (absent without a
    /// thread clock, and in thread-time hitch lists).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// Sections whose time is split into parts named `<section>.<part>` in the
/// same frame (`streaming.techniques.terrain` and `.grass`): a part is not
/// added to the frame's named time a second time, and a hitch whose largest
/// section is one of these is named by its largest part.
pub const SECTIONS_WITH_PARTS: &[&str] = &["streaming.techniques"];

/// The section `name` is a part of, if it is one.
pub(crate) fn parent_section(name: &str) -> Option<&'static str> {
    SECTIONS_WITH_PARTS.iter().copied().find(|p| {
        name.strip_prefix(p)
            .is_some_and(|rest| rest.starts_with('.'))
    })
}

/// The hitches of a run: frames over [`hitch_limit`] of its median, each
/// named by its largest section
/// (`sections[i]` are frame `i`'s named CPU sections; the rest of the
/// frame's time counts as `frame.other`; parts of a section, see
/// [`SECTIONS_WITH_PARTS`], name it but are not counted twice).
pub fn find_hitches(frame_ms: &[f64], sections: &[Vec<(String, f64)>]) -> Vec<Hitch> {
    let Ok(stats) = Stats::from_samples(frame_ms) else {
        return Vec::new();
    };
    let limit = hitch_limit(stats.median);
    frame_ms
        .iter()
        .enumerate()
        .filter(|(_, &t)| t > limit)
        .map(|(i, &t)| {
            let named = sections.get(i).map(Vec::as_slice).unwrap_or_default();
            let whole = || named.iter().filter(|(n, _)| parent_section(n).is_none());
            let other = t - whole().map(|(_, ms)| ms).sum::<f64>();
            let (mut section, mut section_ms) = whole()
                .cloned()
                .chain(std::iter::once(("frame.other".to_owned(), other.max(0.0))))
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap_or_default();
            if let Some((part, ms)) = named
                .iter()
                .filter(|(n, _)| parent_section(n) == Some(section.as_str()))
                .max_by(|a, b| a.1.total_cmp(&b.1))
            {
                (section, section_ms) = (part.clone(), *ms);
            }
            Hitch {
                frame: i as u32,
                cpu_frame_ms: t,
                section,
                section_ms,
                kind: None,
            }
        })
        .collect()
}

/// Median of an integer per-frame counter.
///
/// For an even count this is the lower of the two middle values, so the reported
/// figure is always a value some frame actually had (a draw count of 12.5 would be
/// a value no frame produced). `None` for an empty slice.
pub fn counter_median(values: &[u64]) -> Option<u64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    Some(sorted[(sorted.len() - 1) / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn odd_count_median_is_the_middle_sample_regardless_of_order() {
        let s = Stats::from_samples(&[5.0, 1.0, 3.0]).unwrap();
        assert!(close(s.median, 3.0));
        assert!(close(s.min, 1.0));
        assert!(close(s.max, 5.0));
        assert!(close(s.mean, 3.0));
    }

    #[test]
    fn even_count_median_averages_the_two_middle_samples() {
        let s = Stats::from_samples(&[4.0, 1.0, 2.0, 10.0]).unwrap();
        assert!(close(s.median, 3.0), "{}", s.median);
        assert!(close(s.mean, 4.25));
    }

    #[test]
    fn p95_interpolates_between_closest_ranks() {
        // 0..=20: h = 20 * 0.95 = 19 exactly -> sample 19.
        let samples: Vec<f64> = (0..=20).map(f64::from).collect();
        assert!(close(Stats::from_samples(&samples).unwrap().p95, 19.0));
        // 1..=10: h = 9 * 0.95 = 8.55 -> 9 + 0.55 * (10 - 9) = 9.55.
        let samples: Vec<f64> = (1..=10).map(f64::from).collect();
        let s = Stats::from_samples(&samples).unwrap();
        assert!(close(s.p95, 9.55), "{}", s.p95);
        assert!(close(s.median, 5.5));
    }

    #[test]
    fn single_sample_is_every_statistic() {
        let s = Stats::from_samples(&[7.5]).unwrap();
        assert_eq!(
            s,
            Stats {
                median: 7.5,
                p95: 7.5,
                p99: Some(7.5),
                min: 7.5,
                max: 7.5,
                mean: 7.5
            }
        );
    }

    #[test]
    fn hitches_need_twice_the_median_and_four_ms_more() {
        // Median 10: the limit is max(20, 14) = 20.
        let frames = [10.0, 10.0, 10.0, 19.0, 30.0, 10.0];
        let sections: Vec<Vec<(String, f64)>> = frames
            .iter()
            .map(|&t| {
                if t > 25.0 {
                    vec![("streaming.load".into(), 22.0), ("grass.draw".into(), 1.0)]
                } else {
                    vec![("grass.draw".into(), t / 2.0)]
                }
            })
            .collect();
        let h = find_hitches(&frames, &sections);
        assert_eq!(h.len(), 1);
        assert_eq!((h[0].frame, h[0].section.as_str()), (4, "streaming.load"));
        assert!(close(h[0].section_ms, 22.0));
        // Median 1: 2x is 2 ms, but a hitch also needs 5 ms.
        let small = [1.0, 1.0, 1.0, 3.0, 6.0];
        let h = find_hitches(&small, &[]);
        assert_eq!(h.iter().map(|h| h.frame).collect::<Vec<_>>(), [4]);
        assert_eq!(h[0].section, "frame.other");
        assert!(find_hitches(&[], &[]).is_empty());
    }

    /// A section's parts (`streaming.techniques.grass`) name a hitch whose
    /// largest section is their whole, and are not counted twice against
    /// the frame's unnamed time.
    #[test]
    fn hitches_name_the_largest_part_and_count_parts_once() {
        let part = |n: &str, ms: f64| (n.to_owned(), ms);
        let frames = [1.0, 1.0, 1.0, 30.0, 30.0];
        let mut sections = vec![Vec::new(); 3];
        // 25 ms of placing, 20 of it grass: named by the grass part.
        sections.push(vec![
            part("streaming.techniques", 25.0),
            part("streaming.techniques.terrain", 5.0),
            part("streaming.techniques.grass", 20.0),
            part("grass.draw", 1.0),
        ]);
        // 12 ms of placing in a 30 ms frame: 18 ms are outside every
        // section (counting the parts again would leave 6).
        sections.push(vec![
            part("streaming.techniques", 12.0),
            part("streaming.techniques.terrain", 6.0),
            part("streaming.techniques.grass", 6.0),
        ]);
        let h = find_hitches(&frames, &sections);
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].section, "streaming.techniques.grass");
        assert!(close(h[0].section_ms, 20.0));
        assert_eq!(h[1].section, "frame.other");
        assert!(close(h[1].section_ms, 18.0));
    }

    #[test]
    fn p99_lies_between_p95_and_max() {
        let v: Vec<f64> = (0..200).map(f64::from).collect();
        let s = Stats::from_samples(&v).unwrap();
        let p99 = s.p99.expect("p99");
        assert!(s.p95 <= p99 && p99 <= s.max);
        assert!(close(p99, 199.0 * 0.99));
    }

    #[test]
    fn empty_and_non_finite_inputs_are_errors_not_nan() {
        assert_eq!(Stats::from_samples(&[]), Err(StatsError::Empty));
        match Stats::from_samples(&[1.0, f64::NAN]) {
            Err(StatsError::NonFinite { index: 1, .. }) => {}
            other => panic!("expected NonFinite at 1, got {other:?}"),
        }
        assert!(Stats::from_samples(&[f64::INFINITY]).is_err());
    }

    #[test]
    fn the_hitch_count_is_the_hitch_list_by_one_rule() {
        // median 10: the bound is max(20, 14) = 20; 20 is not a hitch (not
        // strictly slower), 20.5 and 50 are.
        let frames = [10.0, 10.0, 10.0, 9.0, 11.0, 20.0, 20.5, 50.0, 10.0];
        assert_eq!(hitch_limit(10.0), 20.0);
        assert_eq!(count_hitches(&frames), 2);
        // median 1: 3 ms is over twice the median but not over median + 4 ms,
        // so it is a hitch in neither the count nor the list.
        let small = [1.0, 1.0, 1.0, 3.0, 6.0];
        assert_eq!(hitch_limit(1.0), 5.0);
        for f in [&frames[..], &small[..], &[1.0, 1.0, 1.0][..], &[][..]] {
            assert_eq!(
                count_hitches(f) as usize,
                find_hitches(f, &[]).len(),
                "{f:?}"
            );
        }
        assert_eq!(count_hitches(&small), 1);
        assert_eq!(count_hitches(&[]), 0);
        let words = hitch_definition();
        assert!(
            words.contains("2 times the median") && words.contains("median + 4 ms"),
            "{words}"
        );
    }

    #[test]
    fn counter_median_is_a_value_that_occurred() {
        assert_eq!(counter_median(&[3, 1, 2]), Some(2));
        assert_eq!(counter_median(&[4, 1, 3, 2]), Some(2));
        assert_eq!(counter_median(&[]), None);
    }
}
