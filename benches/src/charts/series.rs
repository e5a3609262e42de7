//! Frame time along the camera path: one line per run in one plot for a
//! few runs; small multiples (one panel per run, a shared value axis, the
//! baseline run drawn faintly in every panel for reference) beyond
//! [`SMALL_MULTIPLES_AFTER`] runs, where 24 lines in one plot would hide
//! each other.

use plotters::prelude::*;

use crate::report::Report;

use super::draw::{self, Area, LegendEntry, Swatch};
use super::style::{Palette, Pattern, Style};
use super::{axis_max, render_svg, Rendered, BOLD_GRID, FONT, LIGHT_GRID, REFERENCE_GREY};

/// More runs than this are drawn as small multiples.
pub const SMALL_MULTIPLES_AFTER: usize = 5;
/// Panels per row of the small multiples.
const COLUMNS: u32 = 4;
/// Height of one panel.
const PANEL_HEIGHT: u32 = 180;
/// The faint line of the baseline run in every panel.
const BASELINE_REFERENCE: RGBColor = RGBColor(0xc8, 0xc8, 0xc8);

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

/// One run's points (measured frame, ms); a `None` breaks the line.
struct Series {
    label: String,
    baseline: bool,
    style: Style,
    points: Vec<Option<(f64, f64)>>,
}

fn points(report: &Report, clock: SeriesClock) -> Vec<Series> {
    let mut palette = Palette::new();
    // The slide marks and the baseline reference take their styles first.
    palette.fixed(REFERENCE_GREY, Pattern::Dashed);
    palette.fixed(BASELINE_REFERENCE, Pattern::Solid);
    report
        .runs
        .iter()
        .filter_map(|r| {
            let s = r.frame_series.as_ref()?;
            let points: Vec<Option<(f64, f64)>> = match clock {
                SeriesClock::Gpu => s
                    .gpu_frame_ms
                    .iter()
                    .enumerate()
                    .map(|(i, v)| v.map(|v| (i as f64, v)))
                    .collect(),
                SeriesClock::Wall => s
                    .cpu_frame_ms
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| Some((i as f64, v)))
                    .collect(),
                SeriesClock::Thread => s
                    .cpu_frame_thread_ms
                    .iter()
                    .flatten()
                    .enumerate()
                    .map(|(i, &v)| Some((i as f64, v)))
                    .collect(),
            };
            if points.iter().all(Option::is_none) {
                return None;
            }
            Some(Series {
                label: r.tier.to_string(),
                baseline: r.tier.is_baseline(),
                style: palette.run_line(&r.tier.grass, &r.tier.terrain),
                points,
            })
        })
        .collect()
}

/// The unbroken stretches of a series, in data coordinates.
fn stretches(points: &[Option<(f64, f64)>]) -> Vec<Vec<(f64, f64)>> {
    let mut out = vec![Vec::new()];
    for p in points {
        match p {
            Some(p) => out.last_mut().expect("never empty").push(*p),
            None => out.push(Vec::new()),
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// Slide frames of every run, sorted and unique.
fn slides(report: &Report) -> Vec<u32> {
    let mut slides: Vec<u32> = report
        .runs
        .iter()
        .filter_map(|r| r.streaming.as_ref())
        .flat_map(|s| s.slide_frames.iter().copied())
        .collect();
    slides.sort_unstable();
    slides.dedup();
    slides
}

fn caption(clock: SeriesClock) -> &'static str {
    match clock {
        SeriesClock::Wall => "CPU frame time along the camera path",
        SeriesClock::Thread => "Render-thread CPU time along the camera path",
        SeriesClock::Gpu => "GPU frame time along the camera path",
    }
}

/// One plot: axes, slide marks and `lines` drawn in `area`.
#[expect(
    clippy::too_many_arguments,
    reason = "one plot's frame, scale and contents: a struct would only name them again"
)]
fn panel(
    area: &Area,
    title: &str,
    title_size: u32,
    max_x: f64,
    max_y: f64,
    slides: &[u32],
    lines: &[(&Series, Style, u32)],
    compact: bool,
) -> draw::DrawResult {
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(title, (FONT, title_size))
        .margin(if compact { 6 } else { 12 });
    builder.x_label_area_size(if compact { 22 } else { 48 });
    builder.y_label_area_size(if compact { 40 } else { 56 });
    let mut chart = builder.build_cartesian_2d(0.0..max_x, 0.0..max_y)?;
    let mut mesh = chart.configure_mesh();
    mesh.light_line_style(LIGHT_GRID).bold_line_style(BOLD_GRID);
    if compact {
        mesh.x_labels(4).y_labels(4).label_style((FONT, 10));
    } else {
        mesh.x_desc("measured frame").y_desc("ms");
    }
    mesh.draw()?;
    let slide_style = Style {
        color: REFERENCE_GREY,
        pattern: Pattern::Dashed,
    };
    for &f in slides {
        let x = f64::from(f);
        draw::line(
            area,
            &[
                chart.backend_coord(&(x, 0.0)),
                chart.backend_coord(&(x, max_y)),
            ],
            slide_style,
            1,
        )?;
    }
    for (series, style, width) in lines {
        for stretch in stretches(&series.points) {
            let px: Vec<(i32, i32)> = stretch.iter().map(|p| chart.backend_coord(p)).collect();
            draw::line(area, &px, *style, *width)?;
        }
    }
    Ok(())
}

/// `frame_series_*.svg`: frame time along the camera path in the clock
/// `clock` says.
pub fn frame_series_svg(report: &Report, clock: SeriesClock) -> Result<Rendered, String> {
    let series = points(report, clock);
    let all = series.iter().flat_map(|s| s.points.iter().flatten());
    let max_x = all.clone().map(|p| p.0).fold(1.0, f64::max);
    let max_y = axis_max(all.map(|p| p.1).fold(0.0, f64::max));
    let slides = slides(report);
    let slide_entry = LegendEntry::new(
        "window slide",
        Style {
            color: REFERENCE_GREY,
            pattern: Pattern::Dashed,
        },
        Swatch::Line,
    );
    if series.len() <= SMALL_MULTIPLES_AFTER {
        let mut legend: Vec<LegendEntry> = series
            .iter()
            .map(|s| LegendEntry::new(s.label.clone(), s.style, Swatch::Line))
            .collect();
        if !slides.is_empty() {
            legend.push(slide_entry);
        }
        return render_svg(480, legend.len(), |plot, side| {
            let lines: Vec<(&Series, Style, u32)> =
                series.iter().map(|s| (s, s.style, 2)).collect();
            panel(
                plot,
                caption(clock),
                20,
                max_x,
                max_y,
                &slides,
                &lines,
                false,
            )?;
            draw::legend(side, "tier", &legend)?;
            Ok(legend)
        });
    }
    let rows = (series.len() as u32).div_ceil(COLUMNS);
    let reference = series.iter().find(|s| s.baseline);
    let mut legend = Vec::new();
    if let Some(r) = reference {
        legend.push(LegendEntry::new(
            format!("{} (in every panel)", r.label),
            Style {
                color: BASELINE_REFERENCE,
                pattern: Pattern::Solid,
            },
            Swatch::Line,
        ));
    }
    if !slides.is_empty() {
        legend.push(slide_entry);
    }
    render_svg(40 + rows * PANEL_HEIGHT, legend.len(), |plot, side| {
        let (title, grid) = plot.split_vertically(40);
        title.draw(&Text::new(
            format!("{} (one panel per tier, shared ms axis)", caption(clock)),
            (12, 10),
            (FONT, 20).into_font().color(&BLACK),
        ))?;
        let panels = grid.split_evenly((rows as usize, COLUMNS as usize));
        for (s, area) in series.iter().zip(&panels) {
            let mut lines = Vec::new();
            if let Some(r) = reference.filter(|r| !s.baseline && r.label != s.label) {
                let faint = Style {
                    color: BASELINE_REFERENCE,
                    pattern: Pattern::Solid,
                };
                lines.push((r, faint, 1));
            }
            lines.push((s, s.style, 2));
            panel(area, &s.label, 13, max_x, max_y, &slides, &lines, true)?;
        }
        draw::legend(side, "reference", &legend)?;
        Ok(legend)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_split_a_series_into_stretches() {
        let p = [
            Some((0.0, 1.0)),
            Some((1.0, 2.0)),
            None,
            Some((3.0, 1.0)),
            None,
        ];
        assert_eq!(
            stretches(&p),
            vec![vec![(0.0, 1.0), (1.0, 2.0)], vec![(3.0, 1.0)]]
        );
    }

    #[test]
    fn many_runs_become_one_panel_each_and_few_share_a_plot() {
        let report = crate::testutil::many_runs_report(12);
        let r = frame_series_svg(&report, SeriesClock::Wall).unwrap();
        assert!(r.svg.contains("one panel per tier"));
        for run in &report.runs {
            assert!(
                r.svg.contains(&run.tier.to_string()),
                "{} has no panel",
                run.tier
            );
        }
        // The legend lists the references, not the 12 runs (their panels are titled).
        assert!(r.legend.len() <= 2, "{:?}", r.legend);
        let few = crate::testutil::many_runs_report(3);
        let r = frame_series_svg(&few, SeriesClock::Wall).unwrap();
        assert!(!r.svg.contains("one panel per tier"));
        assert_eq!(r.legend.len(), 3);
    }
}
