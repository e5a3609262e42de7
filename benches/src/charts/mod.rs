//! SVG charts written beside `report.md` (and `compare.md`), drawn with
//! plotters' SVG backend (text is emitted as SVG `<text>`, so no font files
//! are needed):
//! - `frame_times.svg`: per tier, CPU and GPU frame time medians (bars) with p95 ticks;
//! - `gpu_passes.svg`: per tier, the GPU pass medians stacked into one bar;
//! - `frame_series_cpu.svg` / `frame_series_thread.svg` / `frame_series_gpu.svg`:
//!   frame time along the camera path (wall clock, the render thread's own CPU
//!   time, GPU): one line per tier, or one small panel per tier once there
//!   are more than [`series::SMALL_MULTIPLES_AFTER`] tiers; frames where the
//!   world window slid are marked with grey vertical lines;
//! - for `sward compare`, `compare_timers.svg` and `compare_passes.svg`
//!   ([`compare`]).
//!
//! Every series has a colour and pattern no other series of its chart shares
//! ([`style`]: passes in their subsystem's hue family, the same pass the same
//! colour in every chart); legends sit in a panel beside the plot, never over
//! the data ([`draw`]). Tiers run down the vertical axis (horizontal bars) so
//! long combination names such as `camera-grid+atlas-instanced` stay
//! readable. Charts with no data to show (e.g. no GPU timestamps) are skipped,
//! not drawn empty.

pub mod compare;
pub mod draw;
pub mod series;
pub mod style;

use std::path::{Path, PathBuf};

use plotters::coord::combinators::WithKeyPoints;
use plotters::coord::types::{RangedCoordf64, RangedCoordi32};
use plotters::prelude::*;

use crate::report::Report;
use draw::{Area, DrawResult, LegendEntry, Swatch, LEGEND_WIDTH};
use style::{Palette, Pattern};

pub use compare::write_compare_charts;
pub use series::{frame_series_svg, SeriesClock};

/// CPU/GPU frame time bars.
pub const FRAME_TIMES_SVG: &str = "frame_times.svg";
/// Stacked GPU pass bars.
pub const GPU_PASSES_SVG: &str = "gpu_passes.svg";
/// CPU frame time along the camera path.
pub const FRAME_SERIES_CPU_SVG: &str = "frame_series_cpu.svg";
/// Render-thread CPU time along the camera path.
pub const FRAME_SERIES_THREAD_SVG: &str = "frame_series_thread.svg";
/// GPU frame time along the camera path.
pub const FRAME_SERIES_GPU_SVG: &str = "frame_series_gpu.svg";

/// A chart file written beside the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chart {
    /// File name, relative to the report directory.
    pub file: String,
    /// Human-readable title (used as the link text in `report.md`).
    pub title: String,
}

/// Why a chart could not be produced.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// plotters failed to lay out or draw the chart.
    #[error("cannot draw chart {chart}: {message}")]
    Draw {
        /// Chart file name.
        chart: String,
        /// plotters' error.
        message: String,
    },
    /// The SVG file could not be written.
    #[error("cannot write chart {path}: {source}")]
    Write {
        /// Target file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// A drawn chart: the SVG text and the legend it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// The SVG document.
    pub svg: String,
    /// The legend entries, in the order drawn.
    pub legend: Vec<LegendEntry>,
}

/// Width of the plot, left of the legend panel.
const WIDTH: u32 = 960;
pub(crate) const FONT: &str = "sans-serif";
const CPU_COLOR: RGBColor = RGBColor(0x3b, 0x6e, 0xa8);
const GPU_COLOR: RGBColor = RGBColor(0xe0, 0x8a, 0x2c);
const THREAD_COLOR: RGBColor = RGBColor(0x2a, 0x9d, 0x8f);
/// Grid lines are opaque greys rather than translucent black: some SVG renderers
/// ignore `opacity` and would draw the grid solid black.
const LIGHT_GRID: RGBColor = RGBColor(0xf2, 0xf2, 0xf2);
const BOLD_GRID: RGBColor = RGBColor(0xd0, 0xd0, 0xd0);
const REFERENCE_GREY: RGBColor = RGBColor(150, 150, 150);

/// Height of a horizontal bar chart with `n` rows.
fn bar_height(n: usize) -> u32 {
    140 + 44 * n as u32
}

/// Upper end of a value axis: a little above the largest value, never empty.
fn axis_max(max: f64) -> f64 {
    if max > 0.0 && max.is_finite() {
        max * 1.1
    } else {
        1.0
    }
}

/// Renders one chart into an SVG string: `draw` gets the plot area (left)
/// and the legend panel (right) and returns the legend it drew.
pub(crate) fn render_svg(
    plot_height: u32,
    legend_rows: usize,
    draw: impl FnOnce(&Area, &Area) -> Result<Vec<LegendEntry>, Box<dyn std::error::Error>>,
) -> Result<Rendered, String> {
    let height = plot_height.max(draw::legend_height(legend_rows));
    let mut svg = String::new();
    let legend;
    {
        let root =
            SVGBackend::with_string(&mut svg, (WIDTH + LEGEND_WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (plot, side) = root.split_horizontally(WIDTH);
        legend = draw(&plot, &side).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(Rendered { svg, legend })
}

/// Tier positions are integers in hundredths of a row (plotters only formats key
/// points of integer axes): row `i` is centred at `ROW * (n - 1 - i)`.
const ROW: i32 = 100;

fn row_y(n: usize, i: usize) -> i32 {
    ROW * (n - 1 - i) as i32
}

/// The row axis: one key point (label) per row centre.
fn row_axis(n: usize) -> WithKeyPoints<RangedCoordi32> {
    let top = ROW * n as i32 - ROW / 2;
    (-ROW / 2..top).with_key_points((0..n).map(|i| row_y(n, i)).collect())
}

/// The row name at axis position `y`, empty between rows.
fn label_at(names: &[String], y: i32) -> String {
    let n = names.len();
    if y < 0 || y % ROW != 0 || (y / ROW) as usize >= n {
        return String::new();
    }
    names[n - 1 - (y / ROW) as usize].clone()
}

/// A chart of horizontal bars: a value axis across, one row per name down.
type RowChart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, WithKeyPoints<RangedCoordi32>>>;

/// A horizontal-bar chart's frame: caption, value axis (`x_desc`), one
/// labelled row per name, values from `min` to `max`. Returns the chart to
/// draw into.
fn row_frame<'a, 'b>(
    plot: &'a Area<'b>,
    caption: &str,
    names: &'a [String],
    range: std::ops::Range<f64>,
    x_desc: &str,
) -> Result<RowChart<'a, 'b>, Box<dyn std::error::Error>> {
    let n = names.len();
    let mut chart = ChartBuilder::on(plot)
        .caption(caption, (FONT, 20))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(250)
        .build_cartesian_2d(range, row_axis(n))?;
    chart
        .configure_mesh()
        .light_line_style(LIGHT_GRID)
        .bold_line_style(BOLD_GRID)
        .disable_y_mesh()
        .x_desc(x_desc)
        .y_label_formatter(&|y| label_at(names, *y))
        .draw()?;
    Ok(chart)
}

/// `frame_times.svg`: CPU and GPU frame time medians per tier, p95 as a tick.
pub fn frame_times_svg(report: &Report) -> Result<Rendered, String> {
    let names: Vec<String> = report.runs.iter().map(|r| r.tier.to_string()).collect();
    let n = names.len();
    let max = report
        .runs
        .iter()
        .flat_map(|r| [Some(r.cpu_frame_ms.p95), r.gpu_frame_ms.map(|g| g.p95)])
        .flatten()
        .fold(0.0, f64::max);
    render_svg(bar_height(n), 3, |plot, side| {
        let chart = row_frame(
            plot,
            "Frame time per tier (median, p95 tick)",
            &names,
            0.0..axis_max(max),
            "ms",
        )?;
        let mut palette = Palette::new();
        let cpu = palette.fixed(CPU_COLOR, Pattern::Solid);
        let gpu = palette.fixed(GPU_COLOR, Pattern::Solid);
        let tick = palette.fixed(BLACK, Pattern::Solid);
        for (i, run) in report.runs.iter().enumerate() {
            let bars = [
                (20, Some(run.cpu_frame_ms), cpu),
                (-20, run.gpu_frame_ms, gpu),
            ];
            for (offset, stats, style) in bars {
                let Some(s) = stats else { continue };
                let y = row_y(n, i) + offset;
                let a = chart.backend_coord(&(0.0, y - 17));
                let b = chart.backend_coord(&(s.median, y + 17));
                draw::bar(plot, a, b, style)?;
                let (t0, t1) = (
                    chart.backend_coord(&(s.p95, y - 20)),
                    chart.backend_coord(&(s.p95, y + 20)),
                );
                draw::line(plot, &[t0, t1], tick, 2)?;
            }
        }
        let legend = vec![
            LegendEntry::new("CPU frame", cpu, Swatch::Bar),
            LegendEntry::new("GPU frame", gpu, Swatch::Bar),
            LegendEntry::new("p95", tick, Swatch::Line),
        ];
        draw::legend(side, "series", &legend)?;
        Ok(legend)
    })
}

/// Every GPU pass name of `reports`, sorted.
fn pass_names<'r>(reports: impl IntoIterator<Item = &'r Report>) -> Vec<String> {
    let mut names: Vec<String> = reports
        .into_iter()
        .flat_map(|r| r.runs.iter().flat_map(|r| r.gpu_pass_ms.keys().cloned()))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The bar styles of `passes`, handed out in name order (stable: a pass's
/// colour is its name's, see [`style`]).
fn pass_styles(passes: &[String]) -> Vec<style::Style> {
    let mut palette = Palette::new();
    passes.iter().map(|p| palette.pass_bar(p)).collect()
}

/// Draws the legend of the pass bars (one bar swatch per pass of `passes`,
/// in `styles`) in `side` and returns its entries.
fn pass_legend(
    side: &Area,
    passes: &[String],
    styles: &[style::Style],
) -> Result<Vec<LegendEntry>, Box<dyn std::error::Error>> {
    let legend: Vec<LegendEntry> = passes
        .iter()
        .zip(styles)
        .map(|(p, s)| LegendEntry::new(p.clone(), *s, Swatch::Bar))
        .collect();
    draw::legend(side, "GPU pass", &legend)?;
    Ok(legend)
}

/// Draws the GPU pass medians of `pass_ms` stacked left to right (passes in
/// name order) in row `y` of a bar chart.
fn stacked_passes<C>(
    plot: &Area,
    chart: &C,
    passes: &[String],
    styles: &[style::Style],
    pass_ms: &std::collections::BTreeMap<String, crate::stats::Stats>,
    y: i32,
    half: i32,
) -> DrawResult
where
    C: Fn(f64, i32) -> (i32, i32),
{
    let mut start = 0.0;
    for (pass, style) in passes.iter().zip(styles) {
        if let Some(s) = pass_ms.get(pass) {
            draw::bar(
                plot,
                chart(start, y - half),
                chart(start + s.median, y + half),
                *style,
            )?;
            start += s.median;
        }
    }
    Ok(())
}

/// `gpu_passes.svg`: per tier, the GPU pass medians stacked left to right.
pub fn gpu_passes_svg(report: &Report) -> Result<Rendered, String> {
    let names: Vec<String> = report.runs.iter().map(|r| r.tier.to_string()).collect();
    let passes = pass_names([report]);
    let n = names.len();
    let max = report
        .runs
        .iter()
        .map(|r| r.gpu_pass_ms.values().map(|s| s.median).sum::<f64>())
        .fold(0.0, f64::max);
    render_svg(bar_height(n), passes.len(), |plot, side| {
        let chart = row_frame(
            plot,
            "GPU time per pass (median, stacked)",
            &names,
            0.0..axis_max(max),
            "ms",
        )?;
        let styles = pass_styles(&passes);
        let at = |x: f64, y: i32| chart.backend_coord(&(x, y));
        for (i, run) in report.runs.iter().enumerate() {
            stacked_passes(
                plot,
                &at,
                &passes,
                &styles,
                &run.gpu_pass_ms,
                row_y(n, i),
                30,
            )?;
        }
        pass_legend(side, &passes, &styles)
    })
}

/// Draws one chart of a report.
type Renderer = fn(&Report) -> Result<Rendered, String>;

/// The charts a report has data for: file, title and renderer.
fn plan(report: &Report) -> Vec<(&'static str, &'static str, Renderer)> {
    let has_gpu = report.runs.iter().any(|r| r.gpu_frame_ms.is_some());
    let has_passes = report.runs.iter().any(|r| !r.gpu_pass_ms.is_empty());
    let has_series = report.runs.iter().any(|r| r.frame_series.is_some());
    let has_thread_series = report.runs.iter().any(|r| {
        r.frame_series
            .as_ref()
            .is_some_and(|s| s.cpu_frame_thread_ms.is_some())
    });
    let all: [(bool, &str, &str, Renderer); 5] = [
        (
            !report.runs.is_empty(),
            FRAME_TIMES_SVG,
            "CPU and GPU frame time per tier",
            frame_times_svg,
        ),
        (
            has_passes,
            GPU_PASSES_SVG,
            "GPU time per pass",
            gpu_passes_svg,
        ),
        (
            has_series,
            FRAME_SERIES_CPU_SVG,
            "CPU frame time along the camera path",
            |r| frame_series_svg(r, SeriesClock::Wall),
        ),
        (
            has_thread_series,
            FRAME_SERIES_THREAD_SVG,
            "Render-thread CPU time along the camera path",
            |r| frame_series_svg(r, SeriesClock::Thread),
        ),
        (
            has_series && has_gpu,
            FRAME_SERIES_GPU_SVG,
            "GPU frame time along the camera path",
            |r| frame_series_svg(r, SeriesClock::Gpu),
        ),
    ];
    all.into_iter()
        .filter(|c| c.0)
        .map(|(_, f, t, r)| (f, t, r))
        .collect()
}

/// Writes `rendered` as `dir/file`.
fn write_svg(dir: &Path, file: &str, rendered: Result<Rendered, String>) -> Result<(), ChartError> {
    let svg = rendered
        .map_err(|message| ChartError::Draw {
            chart: file.to_owned(),
            message,
        })?
        .svg;
    let path = dir.join(file);
    std::fs::write(&path, svg).map_err(|source| ChartError::Write { path, source })
}

/// Writes every chart that has data into `dir`; returns the charts written.
pub fn write_charts(report: &Report, dir: &Path) -> Result<Vec<Chart>, ChartError> {
    let mut written = Vec::new();
    for (file, title, render) in plan(report) {
        write_svg(dir, file, render(report))?;
        written.push(Chart {
            file: file.to_owned(),
            title: title.to_owned(),
        });
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{many_runs_report, sample_report};

    #[test]
    fn frame_time_chart_names_every_tier_and_draws_bars() {
        let report = sample_report();
        let svg = frame_times_svg(&report).unwrap().svg;
        assert!(svg.starts_with("<svg"), "{}", &svg[..80.min(svg.len())]);
        for run in &report.runs {
            assert!(
                svg.contains(&run.tier.to_string()),
                "tier {} missing",
                run.tier
            );
        }
        // Two bars (CPU + GPU) per tier, plus background, legend swatches.
        assert!(svg.matches("<rect").count() >= 2 * report.runs.len());
    }

    #[test]
    fn pass_chart_has_a_legend_entry_per_pass() {
        let r = gpu_passes_svg(&sample_report()).unwrap();
        for pass in ["grass.cull", "grass.draw", "terrain.draw"] {
            assert!(r.svg.contains(pass), "{pass} missing");
            assert!(
                r.legend.iter().any(|e| e.label == pass),
                "{pass} not in the legend"
            );
        }
    }

    /// Every chart of a report with many runs and passes (some of them
    /// unknown passes whose names hash to one shade): no two legend entries
    /// share a colour and pattern, and each entry's label and colour are in
    /// the SVG.
    #[test]
    fn no_two_legend_entries_of_any_chart_share_colour_and_pattern() {
        for runs in [3, 24] {
            let report = many_runs_report(runs);
            let rendered: Vec<(&str, Rendered)> = plan(&report)
                .into_iter()
                .map(|(f, _, r)| (f, r(&report).unwrap()))
                .collect();
            assert_eq!(rendered.len(), 5, "every chart has data");
            let (before, after) = (report.clone(), many_runs_report(runs));
            let c = crate::compare::compare(
                &crate::compare::Side {
                    dir: ".".into(),
                    report: before.clone(),
                },
                &crate::compare::Side {
                    dir: ".".into(),
                    report: after.clone(),
                },
            )
            .unwrap();
            let compare = [
                ("compare_timers", compare::compare_timers_svg(&c).unwrap()),
                (
                    "compare_passes",
                    compare::compare_passes_svg(&c, &before, &after).unwrap(),
                ),
            ];
            for (file, r) in rendered
                .iter()
                .map(|(f, r)| (*f, r))
                .chain(compare.iter().map(|(f, r)| (*f, r)))
            {
                assert!(!r.legend.is_empty(), "{file}: no legend");
                for (i, e) in r.legend.iter().enumerate() {
                    for other in &r.legend[i + 1..] {
                        assert!(
                            e.style.key() != other.style.key(),
                            "{file}: {} and {} share {:?}",
                            e.label,
                            other.label,
                            e.style
                        );
                    }
                    assert!(
                        r.svg.contains(&e.label.replace('&', "&amp;")),
                        "{file}: label {} not drawn",
                        e.label
                    );
                    assert!(
                        r.svg.contains(&style::css(e.style.color)),
                        "{file}: colour of {} not drawn",
                        e.label
                    );
                }
            }
        }
    }

    /// The lines of a few runs in one plot have unique styles too.
    #[test]
    fn runs_in_one_plot_have_unique_styles() {
        let report = many_runs_report(5);
        let r = frame_series_svg(&report, SeriesClock::Wall).unwrap();
        assert_eq!(r.legend.len(), 5);
        let keys: std::collections::BTreeSet<_> = r.legend.iter().map(|e| e.style.key()).collect();
        assert_eq!(keys.len(), 5);
    }

    #[test]
    fn a_pass_is_the_same_colour_in_every_chart_and_report() {
        let a = gpu_passes_svg(&sample_report()).unwrap();
        let b = gpu_passes_svg(&many_runs_report(24)).unwrap();
        let colour =
            |r: &Rendered, p: &str| r.legend.iter().find(|e| e.label == p).map(|e| e.style);
        for pass in ["grass.draw", "grass.cull", "terrain.draw"] {
            assert_eq!(colour(&a, pass), colour(&b, pass), "{pass}");
            assert_eq!(colour(&a, pass).unwrap().color, style::pass_color(pass));
        }
    }

    #[test]
    fn write_charts_writes_non_empty_svg_files() {
        let dir = crate::test_dir("charts");
        let report = sample_report();
        let charts = write_charts(&report, &dir).unwrap();
        let files: Vec<&str> = charts.iter().map(|c| c.file.as_str()).collect();
        assert_eq!(
            files,
            [
                FRAME_TIMES_SVG,
                GPU_PASSES_SVG,
                FRAME_SERIES_CPU_SVG,
                FRAME_SERIES_GPU_SVG
            ]
        );
        for c in &charts {
            let text = std::fs::read_to_string(dir.join(&c.file)).unwrap();
            assert!(
                text.len() > 500 && text.contains("</svg>"),
                "{} too small",
                c.file
            );
        }
        let series = std::fs::read_to_string(dir.join(FRAME_SERIES_CPU_SVG)).unwrap();
        assert!(series.matches("<polyline").count() >= report.runs.len());
    }

    #[test]
    fn thread_series_chart_is_written_only_with_thread_times() {
        let mut report = sample_report();
        let dir = crate::test_dir("charts-thread");
        let files = |r: &Report| -> Vec<String> {
            write_charts(r, &dir)
                .unwrap()
                .into_iter()
                .map(|c| c.file)
                .collect()
        };
        assert!(!files(&report).iter().any(|f| f == FRAME_SERIES_THREAD_SVG));
        for run in &mut report.runs {
            let s = run.frame_series.as_mut().expect("fixture series");
            s.cpu_frame_thread_ms = Some(s.cpu_frame_ms.iter().map(|v| v * 0.5).collect());
        }
        assert!(files(&report).iter().any(|f| f == FRAME_SERIES_THREAD_SVG));
        let svg = std::fs::read_to_string(dir.join(FRAME_SERIES_THREAD_SVG)).unwrap();
        assert!(svg.contains("Render-thread CPU time"));
        assert!(svg.matches("<polyline").count() >= report.runs.len());
    }

    #[test]
    fn charts_without_gpu_data_are_skipped() {
        let mut report = sample_report();
        for run in &mut report.runs {
            run.gpu_frame_ms = None;
            run.gpu_pass_ms.clear();
        }
        let dir = crate::test_dir("charts-nogpu");
        let files: Vec<String> = write_charts(&report, &dir)
            .unwrap()
            .into_iter()
            .map(|c| c.file)
            .collect();
        assert_eq!(files, [FRAME_TIMES_SVG, FRAME_SERIES_CPU_SVG]);
    }
}
