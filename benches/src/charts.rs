//! SVG charts written beside `report.md`, drawn with plotters' SVG backend (text is
//! emitted as SVG `<text>`, so no font files are needed):
//! - `frame_times.svg`: per tier, CPU and GPU frame time medians (bars) with p95 ticks;
//! - `gpu_passes.svg`: per tier, the GPU pass medians stacked into one bar;
//! - `frame_series_cpu.svg` / `frame_series_thread.svg` / `frame_series_gpu.svg`:
//!   frame time along the camera path (wall clock, the render thread's own CPU
//!   time, GPU), one line per tier; frames where the world window slid are
//!   marked with grey vertical lines.
//!
//! Tiers run down the vertical axis (horizontal bars) so long combination names
//! such as `camera-grid+atlas-instanced` stay readable. Charts with no data to show
//! (e.g. no GPU timestamps) are skipped, not drawn empty.

use std::error::Error as StdError;
use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::report::Report;

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

/// Which clock a frame-series chart draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeriesClock {
    /// CPU frame time, wall clock.
    Wall,
    /// CPU frame time in the render thread's own CPU clock.
    Thread,
    /// GPU frame time (untimed frames break the line).
    Gpu,
}

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

type DrawResult = Result<(), Box<dyn StdError>>;

const WIDTH: u32 = 960;
const FONT: &str = "sans-serif";
const CPU_COLOR: RGBColor = RGBColor(0x3b, 0x6e, 0xa8);
const GPU_COLOR: RGBColor = RGBColor(0xe0, 0x8a, 0x2c);
/// Grid lines are opaque greys rather than translucent black: some SVG renderers
/// ignore `opacity` and would draw the grid solid black.
const LIGHT_GRID: RGBColor = RGBColor(0xf2, 0xf2, 0xf2);
const BOLD_GRID: RGBColor = RGBColor(0xd0, 0xd0, 0xd0);
/// Series colours (the "tab10" set: distinct and readable on white).
const PALETTE: [RGBColor; 10] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x7f, 0x7f, 0x7f),
    RGBColor(0xbc, 0xbd, 0x22),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// Colour of series `i` (cycles after ten).
fn series_color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Height of a horizontal bar chart with `n` tiers.
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

/// Renders one chart into an SVG string.
fn render_svg(
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend, plotters::coord::Shift>) -> DrawResult,
) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        draw(&root).map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// The tier names, top to bottom, and a label formatter for the tier axis
/// (tier `i` sits at `y = n - 1 - i`).
fn tier_labels(report: &Report) -> Vec<String> {
    report.runs.iter().map(|r| r.tier.to_string()).collect()
}

/// Tier positions are integers in hundredths of a tier (plotters only formats key
/// points of integer axes): tier `i` is centred at `TIER * (n - 1 - i)`.
const TIER: i32 = 100;

fn tier_y(n: usize, i: usize) -> i32 {
    TIER * (n - 1 - i) as i32
}

/// The tier axis: one key point (label) per tier centre.
fn tier_axis(
    n: usize,
) -> plotters::coord::combinators::WithKeyPoints<plotters::coord::types::RangedCoordi32> {
    let top = TIER * n as i32 - TIER / 2;
    (-TIER / 2..top).with_key_points((0..n).map(|i| tier_y(n, i)).collect())
}

/// `frame_times.svg`: CPU and GPU frame time medians per tier, p95 as a tick.
pub fn frame_times_svg(report: &Report) -> Result<String, String> {
    let names = tier_labels(report);
    let n = names.len();
    let max = report
        .runs
        .iter()
        .flat_map(|r| [Some(r.cpu_frame_ms.p95), r.gpu_frame_ms.map(|g| g.p95)])
        .flatten()
        .fold(0.0, f64::max);
    render_svg((WIDTH, bar_height(n)), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption("Frame time per tier (median, p95 tick)", (FONT, 20))
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(230)
            .build_cartesian_2d(0.0..axis_max(max), tier_axis(n))?;
        chart
            .configure_mesh()
            .light_line_style(LIGHT_GRID)
            .bold_line_style(BOLD_GRID)
            .disable_y_mesh()
            .x_desc("ms")
            .y_label_formatter(&|y| label_at(&names, *y))
            .draw()?;
        let bars = |offset: i32, pick: &dyn Fn(usize) -> Option<(f64, f64)>| {
            (0..n)
                .filter_map(|i| pick(i).map(|v| (i, v)))
                .map(move |(i, (median, _))| {
                    let y = tier_y(n, i) + offset;
                    Rectangle::new(
                        [(0.0, y - 17), (median, y + 17)],
                        offset_color(offset).filled(),
                    )
                })
                .collect::<Vec<_>>()
        };
        let cpu = |i: usize| {
            Some((
                report.runs[i].cpu_frame_ms.median,
                report.runs[i].cpu_frame_ms.p95,
            ))
        };
        let gpu = |i: usize| report.runs[i].gpu_frame_ms.map(|g| (g.median, g.p95));
        chart
            .draw_series(bars(20, &cpu))?
            .label("CPU frame")
            .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], CPU_COLOR.filled()));
        chart
            .draw_series(bars(-20, &gpu))?
            .label("GPU frame")
            .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], GPU_COLOR.filled()));
        let ticks = (0..n).flat_map(|i| {
            [(20, cpu(i)), (-20, gpu(i))]
                .into_iter()
                .filter_map(move |(off, v)| {
                    let (_, p95) = v?;
                    let y = tier_y(n, i) + off;
                    Some(PathElement::new(
                        vec![(p95, y - 20), (p95, y + 20)],
                        BLACK.stroke_width(2),
                    ))
                })
        });
        chart.draw_series(ticks)?;
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
        Ok(())
    })
}

fn offset_color(offset: i32) -> RGBColor {
    if offset > 0 {
        CPU_COLOR
    } else {
        GPU_COLOR
    }
}

/// The tier name at axis position `y`, empty between tiers.
fn label_at(names: &[String], y: i32) -> String {
    let n = names.len();
    if y < 0 || y % TIER != 0 || (y / TIER) as usize >= n {
        return String::new();
    }
    names[n - 1 - (y / TIER) as usize].clone()
}

/// Every GPU pass name in the report, sorted.
fn pass_names(report: &Report) -> Vec<&str> {
    let mut names: Vec<&str> = report
        .runs
        .iter()
        .flat_map(|r| r.gpu_pass_ms.keys().map(String::as_str))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// `gpu_passes.svg`: per tier, the GPU pass medians stacked left to right.
pub fn gpu_passes_svg(report: &Report) -> Result<String, String> {
    let names = tier_labels(report);
    let passes = pass_names(report);
    let n = names.len();
    let max = report
        .runs
        .iter()
        .map(|r| r.gpu_pass_ms.values().map(|s| s.median).sum::<f64>())
        .fold(0.0, f64::max);
    render_svg(
        (WIDTH, bar_height(n) + 20 * passes.len() as u32 / 2),
        |root| {
            let mut chart = ChartBuilder::on(root)
                .caption("GPU time per pass (median, stacked)", (FONT, 20))
                .margin(12)
                .x_label_area_size(48)
                .y_label_area_size(230)
                .build_cartesian_2d(0.0..axis_max(max), tier_axis(n))?;
            chart
                .configure_mesh()
                .light_line_style(LIGHT_GRID)
                .bold_line_style(BOLD_GRID)
                .disable_y_mesh()
                .x_desc("ms")
                .y_label_formatter(&|y| label_at(&names, *y))
                .draw()?;
            for (p, pass) in passes.iter().enumerate() {
                let color = series_color(p);
                let rects = report.runs.iter().enumerate().filter_map(|(i, run)| {
                    let s = run.gpu_pass_ms.get(*pass)?;
                    // Start where the earlier passes (in name order) of this tier end.
                    let start: f64 = passes[..p]
                        .iter()
                        .filter_map(|q| run.gpu_pass_ms.get(*q))
                        .map(|s| s.median)
                        .sum();
                    let y = tier_y(n, i);
                    Some(Rectangle::new(
                        [(start, y - 30), (start + s.median, y + 30)],
                        color.filled(),
                    ))
                });
                chart
                    .draw_series(rects)?
                    .label(*pass)
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                    });
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()?;
            Ok(())
        },
    )
}

/// `frame_series_*.svg`: frame time along the camera path, one line per tier,
/// in the clock `clock` says.
pub fn frame_series_svg(report: &Report, clock: SeriesClock) -> Result<String, String> {
    let series: Vec<(String, Vec<(f64, f64)>)> = report
        .runs
        .iter()
        .filter_map(|r| {
            let s = r.frame_series.as_ref()?;
            let points: Vec<(f64, f64)> = match clock {
                SeriesClock::Gpu => s
                    .gpu_frame_ms
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| v.map(|v| (i as f64, v)))
                    .collect(),
                SeriesClock::Wall => s
                    .cpu_frame_ms
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| (i as f64, v))
                    .collect(),
                SeriesClock::Thread => s
                    .cpu_frame_thread_ms
                    .iter()
                    .flatten()
                    .enumerate()
                    .map(|(i, &v)| (i as f64, v))
                    .collect(),
            };
            (!points.is_empty()).then(|| (r.tier.to_string(), points))
        })
        .collect();
    let max_x = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.0))
        .fold(1.0, f64::max);
    let max_y = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .fold(0.0, f64::max);
    let caption = match clock {
        SeriesClock::Wall => "CPU frame time along the camera path",
        SeriesClock::Thread => "Render-thread CPU time along the camera path",
        SeriesClock::Gpu => "GPU frame time along the camera path",
    };
    render_svg((WIDTH, 480), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(caption, (FONT, 20))
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(56)
            .build_cartesian_2d(0.0..max_x, 0.0..axis_max(max_y))?;
        chart
            .configure_mesh()
            .light_line_style(LIGHT_GRID)
            .bold_line_style(BOLD_GRID)
            .x_desc("measured frame")
            .y_desc("ms")
            .draw()?;
        let mut slides: Vec<u32> = report
            .runs
            .iter()
            .filter_map(|r| r.streaming.as_ref())
            .flat_map(|s| s.slide_frames.iter().copied())
            .collect();
        slides.sort_unstable();
        slides.dedup();
        let top = axis_max(max_y);
        for (k, &f) in slides.iter().enumerate() {
            let x = f64::from(f);
            let line = chart.draw_series(std::iter::once(PathElement::new(
                vec![(x, 0.0), (x, top)],
                RGBColor(150, 150, 150).stroke_width(1),
            )))?;
            if k == 0 {
                line.label("window slide").legend(|(x, y)| {
                    PathElement::new(vec![(x, y), (x + 14, y)], RGBColor(150, 150, 150))
                });
            }
        }
        for (k, (name, points)) in series.iter().enumerate() {
            let color = series_color(k);
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    color.stroke_width(2),
                ))?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 14, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
        Ok(())
    })
}

/// Draws one chart of a report into an SVG string.
type Renderer = fn(&Report) -> Result<String, String>;

/// Writes every chart that has data into `dir`; returns the charts written.
pub fn write_charts(report: &Report, dir: &Path) -> Result<Vec<Chart>, ChartError> {
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
    let plan = all
        .into_iter()
        .filter(|c| c.0)
        .map(|(_, f, t, r)| (f, t, r));
    let mut written = Vec::new();
    for (file, title, render) in plan {
        let svg = render(report).map_err(|message| ChartError::Draw {
            chart: file.to_owned(),
            message,
        })?;
        let path = dir.join(file);
        std::fs::write(&path, svg).map_err(|source| ChartError::Write { path, source })?;
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
    use crate::testutil::sample_report;

    #[test]
    fn frame_time_chart_names_every_tier_and_draws_bars() {
        let report = sample_report();
        let svg = frame_times_svg(&report).unwrap();
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
        let svg = gpu_passes_svg(&sample_report()).unwrap();
        for pass in ["grass.cull", "grass.draw", "terrain.draw"] {
            assert!(svg.contains(pass), "{pass} missing");
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
