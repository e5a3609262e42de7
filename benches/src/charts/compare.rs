//! The charts of `sward compare`, drawn the way the report's are (legend
//! beside the plot, passes in their own colours):
//! - `compare_timers.svg`: per run, each timer's after/before ratio as a
//!   point with its interval, a line at 1 (no change);
//! - `compare_passes.svg`: per run, the GPU pass medians of before and
//!   after stacked in two bars, one above the other.

use std::path::Path;

use plotters::prelude::*;

use crate::compare::BuildComparison;
use crate::report::Report;

use super::draw::{self, LegendEntry, Swatch};
use super::style::{Palette, Pattern, Style};
use super::{
    axis_max, bar_height, pass_legend, pass_names, pass_styles, render_svg, row_frame, row_y,
    stacked_passes, write_svg, Chart, ChartError, Rendered, CPU_COLOR, GPU_COLOR, REFERENCE_GREY,
    THREAD_COLOR,
};

/// Timer ratios with intervals.
pub const COMPARE_TIMERS_SVG: &str = "compare_timers.svg";
/// GPU passes before and after.
pub const COMPARE_PASSES_SVG: &str = "compare_passes.svg";

/// The timers, their names in the legend and their colours.
const TIMERS: [(&str, &str, RGBColor); 3] = [
    ("cpu_frame_ms", "CPU frame (wall)", CPU_COLOR),
    ("cpu_frame_thread_ms", "render thread", THREAD_COLOR),
    ("gpu_frame_ms", "GPU frame", GPU_COLOR),
];

/// `compare_timers.svg`: every run's timer ratios with their intervals.
pub fn compare_timers_svg(c: &BuildComparison) -> Result<Rendered, String> {
    let names: Vec<String> = c.runs.iter().map(|r| r.tier.to_string()).collect();
    let n = names.len();
    let intervals = c
        .runs
        .iter()
        .flat_map(|r| r.timers.iter().filter_map(|t| t.interval));
    let lo = intervals.clone().map(|i| i.low).fold(1.0, f64::min);
    let hi = intervals.map(|i| i.high).fold(1.0, f64::max);
    let pad = 0.05 * (hi - lo).max(0.1);
    render_svg(bar_height(n), TIMERS.len() + 1, |plot, side| {
        let chart = row_frame(
            plot,
            "After / before per run (point: ratio of medians; bar: interval)",
            &names,
            (lo - pad).max(0.0)..hi + pad,
            "after / before",
        )?;
        let mut palette = Palette::new();
        let styles: Vec<Style> = TIMERS
            .iter()
            .map(|t| palette.fixed(t.2, Pattern::Solid))
            .collect();
        let one = palette.fixed(REFERENCE_GREY, Pattern::Dashed);
        let top = row_y(n, 0) + 50;
        draw::line(
            plot,
            &[
                chart.backend_coord(&(1.0, -50)),
                chart.backend_coord(&(1.0, top)),
            ],
            one,
            1,
        )?;
        for (i, run) in c.runs.iter().enumerate() {
            for (k, (figure, _, _)) in TIMERS.iter().enumerate() {
                let Some(iv) = run
                    .timers
                    .iter()
                    .find(|t| t.figure == *figure)
                    .and_then(|t| t.interval)
                else {
                    continue;
                };
                let y = row_y(n, i) + 24 - 24 * k as i32;
                let (x0, x1) = (
                    chart.backend_coord(&(iv.low, y)).0,
                    chart.backend_coord(&(iv.high, y)).0,
                );
                draw::marker(plot, chart.backend_coord(&(iv.ratio, y)), x0, x1, styles[k])?;
            }
        }
        let mut legend: Vec<LegendEntry> = TIMERS
            .iter()
            .zip(&styles)
            .map(|(t, s)| LegendEntry::new(t.1, *s, Swatch::Marker))
            .collect();
        legend.push(LegendEntry::new("1: no change", one, Swatch::Line));
        draw::legend(side, "timer", &legend)?;
        Ok(legend)
    })
}

/// `compare_passes.svg`: before and after GPU pass medians of every run.
pub fn compare_passes_svg(
    c: &BuildComparison,
    before: &Report,
    after: &Report,
) -> Result<Rendered, String> {
    let passes = pass_names([before, after]);
    let mut names = Vec::new();
    let mut rows = Vec::new();
    for run in &c.runs {
        for (side, report) in [("before", before), ("after", after)] {
            if let Some(r) = report.run(&run.tier) {
                names.push(format!("{} {side}", run.tier));
                rows.push(&r.gpu_pass_ms);
            }
        }
    }
    let n = names.len();
    let max = rows
        .iter()
        .map(|m| m.values().map(|s| s.median).sum::<f64>())
        .fold(0.0, f64::max);
    render_svg(100 + 30 * n as u32, passes.len(), |plot, side| {
        let chart = row_frame(
            plot,
            "GPU time per pass, before and after (median, stacked)",
            &names,
            0.0..axis_max(max),
            "ms",
        )?;
        let styles = pass_styles(&passes);
        let at = |x: f64, y: i32| chart.backend_coord(&(x, y));
        for (i, pass_ms) in rows.iter().enumerate() {
            stacked_passes(plot, &at, &passes, &styles, pass_ms, row_y(n, i), 36)?;
        }
        pass_legend(side, &passes, &styles)
    })
}

/// Writes the charts a comparison has data for into `dir`.
pub fn write_compare_charts(
    c: &BuildComparison,
    before: &Report,
    after: &Report,
    dir: &Path,
) -> Result<Vec<Chart>, ChartError> {
    let mut written = Vec::new();
    if c.runs
        .iter()
        .any(|r| r.timers.iter().any(|t| t.interval.is_some()))
    {
        write_svg(dir, COMPARE_TIMERS_SVG, compare_timers_svg(c))?;
        written.push(Chart {
            file: COMPARE_TIMERS_SVG.to_owned(),
            title: "Timer ratios with their intervals".to_owned(),
        });
    }
    let has_passes = [before, after]
        .iter()
        .any(|r| r.runs.iter().any(|run| !run.gpu_pass_ms.is_empty()));
    if has_passes {
        write_svg(
            dir,
            COMPARE_PASSES_SVG,
            compare_passes_svg(c, before, after),
        )?;
        written.push(Chart {
            file: COMPARE_PASSES_SVG.to_owned(),
            title: "GPU time per pass, before and after".to_owned(),
        });
    }
    Ok(written)
}
