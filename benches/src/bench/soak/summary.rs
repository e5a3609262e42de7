//! The soak's verdict: for each tier combination, how much each figure of
//! its samples grew per slide after the warm-up, against a stated bound.
//!
//! The window visits the same tiles every [`PERIOD`] slides, so the figures
//! that depend on which tiles are resident (sward's GPU accounting, wgpu's
//! object counts) are compared between two slides with the same window: the
//! *reference* (the first slide after the warm-up at the last slide's
//! position, at least one period before it) and the last. Bounds:
//!
//! - **wgpu's objects** (handles the application holds, objects wgpu's
//!   device layer holds, the bytes of its buffers and textures) and
//!   **sward's GPU accounting**: unchanged. The same window holds the same
//!   tiles; the techniques size their pools once and reuse freed slots, so
//!   one object more after a hundred slides is one kept alive by something.
//! - **RSS and the live heap**: at most `max_growth_mib` MiB per slide
//!   (default [`DEFAULT_MAX_GROWTH_MIB`], the target of the soak's issue),
//!   the least-squares slope over the slides from the reference to the
//!   last. Both move by allocator decisions (the C allocator's arenas, the
//!   driver's caches), so they get a slope bound instead of equality. RSS
//!   wanders by some 20 MiB around a flat level on lavapipe, so its slope
//!   is checked only over at least [`RSS_MIN_SPAN`] slides (flat runs then
//!   measure -0.01 to +0.19 MiB per slide, docs/streaming.md; over 36
//!   slides one measured +0.30); one evicted tile kept alive is several MiB.
//! - **wgpu's device memory blocks**: reported, not checked: its allocator
//!   frees or keeps empty blocks by its own policy.
//!
//! Every figure carries its growth per slide, so a further bound (on an
//! early slide against a late one, say) is one more comparison of the same
//! rows.

use super::sample::WgpuObjects;
use super::SoakSample;

/// Slides after which the window is back at the same tiles (see `offset`).
pub const PERIOD: u32 = 6;

/// Slides before the growth is measured, by default.
pub const DEFAULT_WARMUP: u32 = 20;

/// Default bound on RSS and live-heap growth, MiB per slide.
pub const DEFAULT_MAX_GROWTH_MIB: f64 = 0.25;

/// Slides from the reference to the last below which RSS is reported but
/// not checked: its slope over fewer is within its wander.
pub const RSS_MIN_SPAN: u32 = 120;

const MIB: f64 = 1024.0 * 1024.0;

/// What a figure may do between the reference slide and the last.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "per_slide")]
pub enum Bound {
    /// The same value at both slides.
    Unchanged,
    /// A least-squares slope of at most this much per slide (the figure's
    /// unit).
    PerSlide(f64),
    /// Reported only.
    Reported,
}

/// One figure's growth in one tier combination's soak.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Growth {
    /// The figure: `rss_bytes`, `live_heap_bytes`, `gpu_memory_bytes`,
    /// `wgpu.handles.buffers`, `wgpu.device.bind_groups`,
    /// `wgpu.buffer_memory`, ...
    pub figure: String,
    /// Its value after the reference slide.
    pub at_reference: f64,
    /// Its value after the last slide.
    pub last: f64,
    /// `last - at_reference`.
    pub change: f64,
    /// Least-squares slope over the slides from the reference to the last.
    pub per_slide: f64,
    /// The bound it is checked against.
    pub bound: Bound,
    /// Whether it kept the bound.
    pub within: bool,
}

/// The growth of every figure in one tier combination's soak.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TierGrowth {
    /// The tier combination.
    pub tier: String,
    /// The slide compared with the last (same window, after the warm-up).
    pub reference_slide: u32,
    /// The last slide.
    pub last_slide: u32,
    /// One row per figure.
    pub figures: Vec<Growth>,
}

/// A soak's verdict.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SoakSummary {
    /// Slides before the growth is measured.
    pub warmup: u32,
    /// The bound on RSS and live-heap growth, MiB per slide.
    pub max_growth_mib: f64,
    /// Per tier combination with enough slides.
    pub tiers: Vec<TierGrowth>,
    /// What was not checked (a combination with too few slides, RSS over
    /// too short a span), with why.
    pub unchecked: Vec<String>,
}

impl SoakSummary {
    /// Every figure over its bound, as `tier: figure ...` lines.
    pub fn failures(&self) -> Vec<String> {
        let mut out = Vec::new();
        for t in &self.tiers {
            for g in t.figures.iter().filter(|g| !g.within) {
                out.push(format!(
                    "{}: {} went from {} after slide {} to {} after slide {} ({} per slide; bound: {})",
                    t.tier,
                    g.figure,
                    value(&g.figure, g.at_reference),
                    t.reference_slide,
                    value(&g.figure, g.last),
                    t.last_slide,
                    value(&g.figure, g.per_slide),
                    bound_text(&g.figure, g.bound),
                ));
            }
        }
        out
    }
}

/// Every checked figure of a sample, with its bound (RSS and heap per
/// slide in bytes; `rss` is RSS's).
fn figures(s: &SoakSample, max_bytes: f64, rss: Bound) -> Vec<(String, Option<f64>, Bound)> {
    let mut out = vec![
        ("rss_bytes".to_owned(), s.rss_bytes.map(|b| b as f64), rss),
        (
            "live_heap_bytes".to_owned(),
            s.live_heap_bytes.map(|b| b as f64),
            Bound::PerSlide(max_bytes),
        ),
        (
            "gpu_memory_bytes".to_owned(),
            Some(s.gpu_memory_bytes as f64),
            Bound::Unchanged,
        ),
    ];
    let w = s.wgpu.as_ref();
    let pick = |f: fn(&WgpuObjects) -> u64| w.map(|w| f(w) as f64);
    for (name, count) in w.map(|w| w.handles).unwrap_or_default().named() {
        out.push((
            format!("wgpu.handles.{name}"),
            w.map(|_| count as f64),
            Bound::Unchanged,
        ));
    }
    for (name, count) in w.map(|w| w.device).unwrap_or_default().named() {
        out.push((
            format!("wgpu.device.{name}"),
            w.map(|_| count as f64),
            Bound::Unchanged,
        ));
    }
    out.push((
        "wgpu.buffer_memory".into(),
        pick(|w| w.buffer_memory),
        Bound::Unchanged,
    ));
    out.push((
        "wgpu.texture_memory".into(),
        pick(|w| w.texture_memory),
        Bound::Unchanged,
    ));
    out.push((
        "wgpu.memory_blocks".into(),
        pick(|w| w.memory_blocks),
        Bound::Reported,
    ));
    out
}

/// Least-squares slope of `points` (x, y); 0 for fewer than two.
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    if points.len() < 2 {
        return 0.0;
    }
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx == 0.0 {
        0.0
    } else {
        sxy / sxx
    }
}

/// The reference slide for a soak of `last` slides after `warmup`: the
/// first slide from the warm-up on with the last slide's window, at least
/// one [`PERIOD`] before it.
pub fn reference_slide(warmup: u32, last: u32) -> Option<u32> {
    let first = warmup.max(1);
    let span = last.checked_sub(first)?;
    if span < PERIOD {
        return None;
    }
    Some(first + span % PERIOD)
}

/// Summarises `samples` (every tier combination's, in order).
pub fn summarise(samples: &[SoakSample], warmup: u32, max_growth_mib: f64) -> SoakSummary {
    let mut tiers: Vec<&str> = Vec::new();
    for s in samples {
        if !tiers.contains(&s.tier.as_str()) {
            tiers.push(&s.tier);
        }
    }
    let max_bytes = max_growth_mib * MIB;
    let mut summary = SoakSummary {
        warmup,
        max_growth_mib,
        tiers: Vec::new(),
        unchecked: Vec::new(),
    };
    for tier in tiers {
        let own: Vec<&SoakSample> = samples.iter().filter(|s| s.tier == tier).collect();
        let last = own.iter().map(|s| s.slide).max().unwrap_or(0);
        let Some(reference) = reference_slide(warmup, last) else {
            summary.unchecked.push(format!(
                "{tier}: {last} slides; the check needs at least {} (a warm-up of {warmup}, \
                 then {PERIOD} slides to come back to the same window)",
                warmup.max(1) + PERIOD
            ));
            continue;
        };
        let window: Vec<&SoakSample> = own
            .iter()
            .copied()
            .filter(|s| s.slide >= reference)
            .collect();
        let (Some(at_ref), Some(at_last)) = (
            window.iter().find(|s| s.slide == reference),
            window.iter().find(|s| s.slide == last),
        ) else {
            continue;
        };
        let rss = if last - reference >= RSS_MIN_SPAN {
            Bound::PerSlide(max_bytes)
        } else {
            summary.unchecked.push(format!(
                "{tier}: rss_bytes reported, not checked: {} slides from the reference, \
                 the RSS check needs {RSS_MIN_SPAN} (RSS wanders around its level)",
                last - reference
            ));
            Bound::Reported
        };
        let rows_ref = figures(at_ref, max_bytes, rss);
        let rows_last = figures(at_last, max_bytes, rss);
        let mut out = Vec::new();
        for (i, (figure, first, bound)) in rows_ref.into_iter().enumerate() {
            let (Some(first), Some(end)) = (first, rows_last[i].1) else {
                continue;
            };
            let points: Vec<(f64, f64)> = window
                .iter()
                .filter_map(|s| Some((f64::from(s.slide), figures(s, max_bytes, rss)[i].1?)))
                .collect();
            let per_slide = slope(&points);
            let change = end - first;
            let within = match bound {
                Bound::Unchanged => change == 0.0,
                Bound::PerSlide(max) => per_slide <= max,
                Bound::Reported => true,
            };
            out.push(Growth {
                figure,
                at_reference: first,
                last: end,
                change,
                per_slide,
                bound,
                within,
            });
        }
        summary.tiers.push(TierGrowth {
            tier: tier.to_owned(),
            reference_slide: reference,
            last_slide: last,
            figures: out,
        });
    }
    summary
}

/// `v` in the figure's unit: MiB for bytes, a plain number otherwise.
fn value(figure: &str, v: f64) -> String {
    if figure.ends_with("_bytes") || figure.ends_with("_memory") {
        format!("{:.3} MiB", v / MIB)
    } else if v.fract() == 0.0 {
        format!("{v}")
    } else {
        format!("{v:.3}")
    }
}

fn bound_text(figure: &str, b: Bound) -> String {
    match b {
        Bound::Unchanged => "unchanged".into(),
        Bound::PerSlide(max) => format!("<= {} per slide", value(figure, max)),
        Bound::Reported => "reported".into(),
    }
}

/// The summary as text: one block per tier combination.
pub fn summary_text(s: &SoakSummary) -> String {
    let mut out = format!(
        "\ngrowth after a warm-up of {} slides, compared at the same window \
         (RSS and live heap: at most {} MiB per slide; wgpu's objects and sward's GPU \
         accounting: unchanged)\n",
        s.warmup, s.max_growth_mib
    );
    for t in &s.tiers {
        out.push_str(&format!(
            "{}: slide {} -> {}\n  {:<28} {:>14} {:>14} {:>14} {:>14}  {:<22} {}\n",
            t.tier,
            t.reference_slide,
            t.last_slide,
            "figure",
            format!("after {}", t.reference_slide),
            format!("after {}", t.last_slide),
            "change",
            "per slide",
            "bound",
            "verdict"
        ));
        for g in &t.figures {
            out.push_str(&format!(
                "  {:<28} {:>14} {:>14} {:>14} {:>14}  {:<22} {}\n",
                g.figure,
                value(&g.figure, g.at_reference),
                value(&g.figure, g.last),
                value(&g.figure, g.change),
                value(&g.figure, g.per_slide),
                bound_text(&g.figure, g.bound),
                if g.within { "ok" } else { "OVER" }
            ));
        }
    }
    for u in &s.unchecked {
        out.push_str(&format!("not checked: {u}\n"));
    }
    out
}

/// The summary as one markdown table, a row per tier combination: the
/// live heap, sward's GPU memory and RSS after the reference slide and
/// after the last (with the change in percent, the figure the results page
/// bounds at 5 %), whether wgpu's objects came back, and the verdict on
/// every bound.
pub fn summary_markdown(s: &SoakSummary) -> String {
    let mut out = String::from(
        "| tier | slides | live heap MiB | GPU memory MiB | RSS MiB | wgpu objects and memory | verdict |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for t in &s.tiers {
        let row = |figure: &str| t.figures.iter().find(|g| g.figure == figure);
        let mib = |figure: &str| {
            row(figure).map_or_else(
                || "-".to_owned(),
                |g| {
                    let pct = if g.at_reference == 0.0 {
                        0.0
                    } else {
                        100.0 * g.change / g.at_reference
                    };
                    format!(
                        "{:.1} -> {:.1} ({pct:+.1} %)",
                        g.at_reference / MIB,
                        g.last / MIB
                    )
                },
            )
        };
        let wgpu: Vec<&Growth> = t
            .figures
            .iter()
            .filter(|g| g.figure.starts_with("wgpu.") && g.bound == Bound::Unchanged)
            .collect();
        let moved = wgpu.iter().filter(|g| g.change != 0.0).count();
        let wgpu_cell = if wgpu.is_empty() {
            "-".to_owned()
        } else if moved == 0 {
            format!("{} figures unchanged", wgpu.len())
        } else {
            format!("{moved} of {} changed", wgpu.len())
        };
        let over: Vec<&str> = t
            .figures
            .iter()
            .filter(|g| !g.within)
            .map(|g| g.figure.as_str())
            .collect();
        let verdict = if over.is_empty() {
            "every bound held".to_owned()
        } else {
            format!("**over**: {}", over.join(", "))
        };
        out.push_str(&format!(
            "| {} | {} -> {} | {} | {} | {} | {wgpu_cell} | {verdict} |\n",
            t.tier,
            t.reference_slide,
            t.last_slide,
            mib("live_heap_bytes"),
            mib("gpu_memory_bytes"),
            mib("rss_bytes"),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::sample::{ObjectCounts, WgpuObjects};
    use super::*;

    fn sample(tier: &str, slide: u32, rss_mib: f64, buffers: u64) -> SoakSample {
        let counts = ObjectCounts {
            buffers,
            ..Default::default()
        };
        SoakSample {
            tier: tier.into(),
            slide,
            centre: [0, 0],
            tiles_loaded: 3,
            tiles_evicted: 3,
            rss_bytes: Some((rss_mib * MIB) as u64),
            live_heap_bytes: Some(1 << 20),
            gpu_memory_bytes: 1000 + u64::from(slide % PERIOD),
            wgpu: Some(WgpuObjects {
                handles: counts,
                device: counts,
                ..Default::default()
            }),
        }
    }

    #[test]
    fn the_reference_is_the_last_slides_window_after_the_warmup() {
        assert_eq!(reference_slide(20, 160), Some(22));
        assert_eq!(reference_slide(20, 26), Some(20));
        assert_eq!(reference_slide(20, 25), None);
        assert_eq!(reference_slide(0, 12), Some(6));
        for (w, last) in [(20, 160), (4, 22), (0, 7)] {
            let r = reference_slide(w, last).unwrap();
            assert!(r >= w.max(1) && last - r >= PERIOD && (last - r) % PERIOD == 0);
        }
    }

    #[test]
    fn flat_figures_pass_and_growth_past_a_bound_fails_naming_it() {
        // A flat tier: RSS jitters, counts and accounting repeat per window.
        let mut samples: Vec<SoakSample> = (1..=160)
            .map(|k| sample("flat", k, 400.0 + f64::from(k % 3), 50))
            .collect();
        // A leaking tier: 1 MiB and one buffer more per slide.
        samples
            .extend((1..=160).map(|k| sample("leak", k, 400.0 + f64::from(k), 50 + u64::from(k))));
        let s = summarise(&samples, 20, DEFAULT_MAX_GROWTH_MIB);
        assert_eq!(s.tiers.len(), 2);
        let flat = &s.tiers[0];
        assert_eq!((flat.reference_slide, flat.last_slide), (22, 160));
        assert!(flat.figures.iter().all(|g| g.within), "{:?}", flat.figures);
        let gpu = flat
            .figures
            .iter()
            .find(|g| g.figure == "gpu_memory_bytes")
            .unwrap();
        assert_eq!(gpu.change, 0.0, "same window, same accounting");
        let failures = s.failures();
        assert!(
            failures.iter().all(|f| f.starts_with("leak: ")),
            "{failures:?}"
        );
        for figure in ["rss_bytes", "wgpu.handles.buffers", "wgpu.device.buffers"] {
            assert!(
                failures.iter().any(|f| f.contains(figure)),
                "{figure} not named in {failures:?}"
            );
        }
        let rss = s.tiers[1]
            .figures
            .iter()
            .find(|g| g.figure == "rss_bytes")
            .unwrap();
        assert!(
            (rss.per_slide / MIB - 1.0).abs() < 1e-6,
            "{}",
            rss.per_slide
        );
        assert!(summary_text(&s).contains("OVER"));
        let md = summary_markdown(&s);
        assert!(md.contains("| **over**: "), "{md}");
    }

    #[test]
    fn too_few_slides_are_reported_unchecked() {
        let samples: Vec<SoakSample> = (1..=3).map(|k| sample("short", k, 400.0, 5)).collect();
        let s = summarise(&samples, 20, DEFAULT_MAX_GROWTH_MIB);
        assert!(s.tiers.is_empty());
        assert!(s.failures().is_empty());
        assert!(s.unchecked[0].contains("at least 26"), "{:?}", s.unchecked);
    }

    #[test]
    fn rss_over_a_short_span_is_reported_not_checked() {
        // 60 slides: 38 from the reference, too few for RSS's slope; the
        // exact figures are still checked.
        let samples: Vec<SoakSample> = (1..=60)
            .map(|k| sample("short", k, 400.0 + f64::from(k), 5 + u64::from(k / 59)))
            .collect();
        let s = summarise(&samples, 20, DEFAULT_MAX_GROWTH_MIB);
        let rss = s.tiers[0]
            .figures
            .iter()
            .find(|g| g.figure == "rss_bytes")
            .unwrap();
        assert_eq!((rss.bound, rss.within), (Bound::Reported, true));
        assert!(
            s.unchecked.iter().any(|u| u.contains("rss_bytes reported")),
            "{:?}",
            s.unchecked
        );
        let failures = s.failures();
        assert_eq!(failures.len(), 2, "{failures:?}");
        assert!(
            failures.iter().all(|f| f.contains(".buffers")),
            "{failures:?}"
        );
    }
}
