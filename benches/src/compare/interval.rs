//! The confidence interval of a timer's after/before ratio and the verdict
//! drawn from it.
//!
//! Method: a paired percentile bootstrap of the ratio of medians. Both
//! reports measured the same frames in the same order (the same camera
//! poses: the compare refuses reports with different frame counts, paths or
//! views), so frame `i` of one run is paired with frame `i` of the other and
//! a resample draws frame indices, with replacement, once for both sides.
//! The statistic is `median(after[idx]) / median(before[idx])` (the median
//! rule of the report: the mean of the two middle values for an even count);
//! [`BOOTSTRAP_RESAMPLES`] resamples from a generator seeded by the run and
//! the figure's name give the same interval on every call. The interval is
//! the central [`CONFIDENCE`] share of the resampled ratios.
//!
//! Verdict (criterion's rule): an interval that contains 1.0 is "no change";
//! one that excludes 1.0 but lies within `1 +- NOISE` is "no change" too
//! (real but too small to matter); otherwise "faster" (the interval is
//! below 1) or "slower" (above 1).
//!
//! The interval covers frame-to-frame noise inside each run only: a machine
//! that is busier during one report than during the other moves every run,
//! which is why counters decide first.

use serde::{Deserialize, Serialize};

/// Resamples of the bootstrap.
pub const BOOTSTRAP_RESAMPLES: usize = 2000;
/// Share of the resampled ratios the interval holds.
pub const CONFIDENCE: f64 = 0.95;
/// Changes whose whole interval lies within `1 +- NOISE` are "no change".
pub const NOISE: f64 = 0.02;

/// What a timer's interval says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The interval lies below 1 (and not within the noise band).
    Faster,
    /// The interval lies above 1 (and not within the noise band).
    Slower,
    /// The interval holds 1, or lies within the noise band.
    NoChange,
    /// No per-frame samples on one side: no interval, no verdict.
    Undecided,
}

impl Verdict {
    /// The word the tables print.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoChange => "no change",
            Verdict::Undecided => "undecided",
        }
    }
}

/// A ratio with its interval and verdict.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatioInterval {
    /// `median(after) / median(before)` over every paired frame.
    pub ratio: f64,
    /// Lower end of the interval.
    pub low: f64,
    /// Upper end of the interval.
    pub high: f64,
    /// What the interval says.
    pub verdict: Verdict,
    /// Frames paired (present on both sides).
    pub frames: usize,
}

/// SplitMix64: a small, well-mixed generator; the bootstrap only needs
/// reproducible, unbiased indices.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform index below `n` (`n` > 0; Lemire's multiply-shift, whose
    /// bias is below 2^-40 for the frame counts a bench has).
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
}

/// FNV-1a of `text`: the seed of a figure's bootstrap.
pub fn seed_of(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The median of `v` (sorted in place; not empty): the report's rule.
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// The after/before ratio of paired per-frame samples with its interval;
/// `None` when no frame has a positive finite value on both sides.
pub fn paired_ratio(
    before: &[Option<f64>],
    after: &[Option<f64>],
    seed: u64,
) -> Option<RatioInterval> {
    let pairs: Vec<(f64, f64)> = before
        .iter()
        .zip(after)
        .filter_map(|(b, a)| Some(((*b)?, (*a)?)))
        .filter(|(b, a)| b.is_finite() && a.is_finite() && *b >= 0.0 && *a >= 0.0)
        .collect();
    let n = pairs.len();
    let mut b: Vec<f64> = pairs.iter().map(|p| p.0).collect();
    let mut a: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    if n == 0 {
        return None;
    }
    let (mb, ma) = (median(&mut b), median(&mut a));
    if mb <= 0.0 {
        return None;
    }
    let ratio = ma / mb;
    let mut rng = SplitMix64(seed);
    let mut ratios = Vec::with_capacity(BOOTSTRAP_RESAMPLES);
    let (mut rb, mut ra) = (vec![0.0; n], vec![0.0; n]);
    for _ in 0..BOOTSTRAP_RESAMPLES {
        for k in 0..n {
            let i = rng.below(n);
            rb[k] = pairs[i].0;
            ra[k] = pairs[i].1;
        }
        let den = median(&mut rb);
        if den > 0.0 {
            ratios.push(median(&mut ra) / den);
        }
    }
    if ratios.is_empty() {
        return None;
    }
    ratios.sort_by(f64::total_cmp);
    let tail = (1.0 - CONFIDENCE) / 2.0;
    let at = |q: f64| {
        let h = (ratios.len() - 1) as f64 * q;
        let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
        ratios[lo] + (h - lo as f64) * (ratios[hi] - ratios[lo])
    };
    let (low, high) = (at(tail), at(1.0 - tail));
    Some(RatioInterval {
        ratio,
        low,
        high,
        verdict: verdict(low, high),
        frames: n,
    })
}

/// The verdict of an interval `[low, high]` (see the module docs).
pub fn verdict(low: f64, high: f64) -> Verdict {
    let holds_one = low <= 1.0 && high >= 1.0;
    let within_noise = low >= 1.0 - NOISE && high <= 1.0 + NOISE;
    if holds_one || within_noise {
        Verdict::NoChange
    } else if high < 1.0 {
        Verdict::Faster
    } else {
        Verdict::Slower
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn some(v: &[f64]) -> Vec<Option<f64>> {
        v.iter().copied().map(Some).collect()
    }

    /// A noisy series: a pose-dependent base times jitter of up to +-10 %.
    fn series(n: usize, scale: f64, salt: u64) -> Vec<Option<f64>> {
        let mut rng = SplitMix64(salt);
        (0..n)
            .map(|i| {
                let pose = 1.0 + (i % 7) as f64 * 0.3;
                let jitter = 0.9 + 0.2 * (rng.next() % 1000) as f64 / 1000.0;
                Some(scale * pose * jitter)
            })
            .collect()
    }

    #[test]
    fn identical_runs_give_one_and_no_change() {
        let s = series(24, 2.0, 1);
        let r = paired_ratio(&s, &s, 7).unwrap();
        assert_eq!((r.ratio, r.low, r.high), (1.0, 1.0, 1.0));
        assert_eq!(r.verdict, Verdict::NoChange);
        assert_eq!(r.frames, 24);
    }

    #[test]
    fn a_doubled_timer_is_slower_and_a_halved_one_faster() {
        let before = series(24, 2.0, 1);
        let slow = series(24, 4.0, 2);
        let r = paired_ratio(&before, &slow, 7).unwrap();
        assert!(
            r.low > 1.5 && r.high < 2.7 && r.low <= r.ratio && r.ratio <= r.high,
            "{r:?}"
        );
        assert_eq!(r.verdict, Verdict::Slower);
        let fast = series(24, 1.0, 3);
        assert_eq!(
            paired_ratio(&before, &fast, 7).unwrap().verdict,
            Verdict::Faster
        );
    }

    #[test]
    fn jitter_alone_keeps_one_inside_the_interval() {
        // Same scale, different jitter: the pose pattern is paired away.
        let r = paired_ratio(&series(24, 2.0, 1), &series(24, 2.0, 9), 7).unwrap();
        assert!(r.low <= 1.0 && r.high >= 1.0, "{r:?}");
        assert_eq!(r.verdict, Verdict::NoChange);
    }

    #[test]
    fn the_same_seed_gives_the_same_interval_and_gaps_are_skipped() {
        let (b, a) = (series(24, 2.0, 1), series(24, 2.2, 5));
        assert_eq!(paired_ratio(&b, &a, 11), paired_ratio(&b, &a, 11));
        let mut gappy = a.clone();
        gappy[3] = None;
        assert_eq!(paired_ratio(&b, &gappy, 11).unwrap().frames, 23);
        assert_eq!(paired_ratio(&some(&[]), &some(&[]), 1), None);
        assert_eq!(paired_ratio(&some(&[0.0]), &some(&[1.0]), 1), None);
    }

    #[test]
    fn verdicts_follow_the_rule() {
        assert_eq!(verdict(0.9, 1.1), Verdict::NoChange);
        assert_eq!(verdict(1.005, 1.015), Verdict::NoChange);
        assert_eq!(verdict(1.01, 1.05), Verdict::Slower);
        assert_eq!(verdict(0.5, 0.97), Verdict::Faster);
    }
}
