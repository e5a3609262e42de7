//! The tail of a run in the render thread's CPU time: the frames over
//! [`TAIL_FACTOR`] times the median frame (the flight's p99 bound), each with
//! what its named sections took beyond their usual time. A hitch list names
//! one section of frames over [`crate::stats::hitch_limit`]; the tail says which sections
//! made a frame slow when the p99 is what is being decided: a window change
//! shows up as `streaming.techniques` and the `frame.submit` that carried its
//! copies, a busier view as the draw passes and `frame.submit`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::stats::{parent_section, Stats};

/// A frame is in the tail when its thread time is over this many medians.
pub const TAIL_FACTOR: f64 = 1.5;
/// Frames listed per run, slowest first.
pub const TAIL_MAX: usize = 10;
/// Smallest excess (ms) a section must have to be listed.
pub const EXCESS_MIN_MS: f64 = 0.01;

/// One frame of a run's tail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TailFrame {
    /// Measured-frame index.
    pub frame: u32,
    /// The frame's render-thread CPU time (ms).
    pub thread_ms: f64,
    /// That time over the run's median.
    pub of_median: f64,
    /// Per named section (and `frame.other`, the time outside every named
    /// section), its time in this frame minus its median over the run's
    /// frames (a section a frame lacks counts 0 there), where that is at least
    /// [`EXCESS_MIN_MS`]; ms.
    pub excess_ms: BTreeMap<String, f64>,
}

/// The median of `values` (`None` when empty or not all finite and >= 0).
fn median(values: &[f64]) -> Option<f64> {
    Stats::from_samples(values).ok().map(|s| s.median)
}

/// The tail of a run: `frame_ms[i]` is frame `i`'s thread time, `sections[i]`
/// its named sections in thread time.
pub fn tail_frames(frame_ms: &[f64], sections: &[BTreeMap<String, f64>]) -> Vec<TailFrame> {
    let Some(med) = median(frame_ms) else {
        return Vec::new();
    };
    // Each frame's sections, with `frame.other` and without parts.
    let named: Vec<BTreeMap<&str, f64>> = frame_ms
        .iter()
        .enumerate()
        .map(|(i, &total)| {
            let mut m: BTreeMap<&str, f64> = sections
                .get(i)
                .into_iter()
                .flatten()
                .filter(|(n, _)| parent_section(n).is_none())
                .map(|(n, &ms)| (n.as_str(), ms))
                .collect();
            let sum: f64 = m.values().sum();
            m.insert("frame.other", (total - sum).max(0.0));
            m
        })
        .collect();
    let mut usual: BTreeMap<&str, f64> = BTreeMap::new();
    for name in named.iter().flat_map(|m| m.keys()) {
        if usual.contains_key(name) {
            continue;
        }
        let values: Vec<f64> = named
            .iter()
            .map(|m| m.get(name).copied().unwrap_or(0.0))
            .collect();
        usual.insert(name, median(&values).unwrap_or(0.0));
    }
    let mut tail: Vec<TailFrame> = frame_ms
        .iter()
        .enumerate()
        .filter(|(_, &t)| med > 0.0 && t > TAIL_FACTOR * med)
        .map(|(i, &t)| TailFrame {
            frame: i as u32,
            thread_ms: t,
            of_median: t / med,
            excess_ms: named[i]
                .iter()
                .map(|(n, ms)| (n.to_string(), ms - usual.get(n).copied().unwrap_or(0.0)))
                .filter(|(_, e)| *e >= EXCESS_MIN_MS)
                .collect(),
        })
        .collect();
    tail.sort_by(|a, b| b.thread_ms.total_cmp(&a.thread_ms));
    tail.truncate(TAIL_MAX);
    tail
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
    }

    #[test]
    fn the_tail_lists_slow_frames_with_what_their_sections_added() {
        // Median frame 1.0 ms: submit 0.5, draw 0.3, 0.2 elsewhere.
        let mut frames = vec![1.0; 9];
        let mut sections = vec![secs(&[("frame.submit", 0.5), ("grass.draw", 0.3)]); 9];
        // Frame 3: a window change (streaming 0.4 and its parts, submit +0.3).
        frames[3] = 1.7;
        sections[3] = secs(&[
            ("frame.submit", 0.8),
            ("grass.draw", 0.3),
            ("streaming.techniques", 0.4),
            ("streaming.techniques.grass", 0.4),
        ]);
        // Frame 6: slow outside every named section.
        frames[6] = 1.6;
        // Frame 7: slower, but not over 1.5 medians.
        frames[7] = 1.4;
        let tail = tail_frames(&frames, &sections);
        assert_eq!(tail.len(), 2, "{tail:?}");
        assert_eq!(tail[0].frame, 3);
        assert!((tail[0].of_median - 1.7).abs() < 1e-9);
        let e = &tail[0].excess_ms;
        assert!((e["frame.submit"] - 0.3).abs() < 1e-9, "{e:?}");
        assert!((e["streaming.techniques"] - 0.4).abs() < 1e-9, "{e:?}");
        assert!(!e.contains_key("grass.draw"), "{e:?}");
        assert!(
            !e.contains_key("streaming.techniques.grass"),
            "parts are not listed"
        );
        assert!(!e.contains_key("frame.other"), "{e:?}");
        assert_eq!(tail[1].frame, 6);
        assert_eq!(
            tail[1].excess_ms.keys().collect::<Vec<_>>(),
            ["frame.other"]
        );
        assert!((tail[1].excess_ms["frame.other"] - 0.6).abs() < 1e-9);
    }

    #[test]
    fn an_even_run_has_no_tail_and_the_list_is_bounded() {
        let sections = vec![BTreeMap::new(); 40];
        assert!(tail_frames(&[2.0; 40], &sections).is_empty());
        assert!(tail_frames(&[], &[]).is_empty());
        let mut frames = vec![1.0; 40];
        for f in frames.iter_mut().skip(20) {
            *f = 4.0;
        }
        // Median: the mean of the middle pair, 2.5; every 4.0 frame is
        // over 1.5 x 2.5, but only TAIL_MAX of them are listed.
        let tail = tail_frames(&frames, &sections);
        assert_eq!(tail.len(), TAIL_MAX);
        assert!(tail
            .iter()
            .all(|t| t.thread_ms == 4.0 && t.of_median == 1.6));
    }
}
