//! Drawing with a [`Style`]: patterned lines and bars in pixel space, and
//! the legend, which always sits in its own panel beside the plot so it
//! never covers data.

use std::error::Error as StdError;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::style::{Pattern, Style};
use super::FONT;

/// A drawing result (plotters' errors are boxed).
pub type DrawResult = Result<(), Box<dyn StdError>>;
/// A drawing area in pixels.
pub type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Width of the legend panel to the right of a plot.
pub const LEGEND_WIDTH: u32 = 280;
/// Height of one legend row.
const LEGEND_ROW: i32 = 18;

/// What a legend entry's swatch looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Swatch {
    /// A short line (frame series, reference lines).
    Line,
    /// A small bar (bar charts).
    Bar,
    /// A point with an interval (compare's timers).
    Marker,
}

/// One entry of a chart's legend: what a reader matches to the data.
#[derive(Debug, Clone, PartialEq)]
pub struct LegendEntry {
    /// The series' name.
    pub label: String,
    /// Its colour and pattern.
    pub style: Style,
    /// Its swatch.
    pub swatch: Swatch,
}

impl LegendEntry {
    /// An entry.
    pub fn new(label: impl Into<String>, style: Style, swatch: Swatch) -> Self {
        Self {
            label: label.into(),
            style,
            swatch,
        }
    }
}

/// The on/off lengths (pixels) of a line pattern; empty for solid.
fn dashes(pattern: Pattern) -> &'static [f64] {
    match pattern {
        Pattern::Dashed => &[8.0, 5.0],
        Pattern::Dotted => &[2.0, 4.0],
        Pattern::LongDash => &[16.0, 6.0],
        Pattern::DashDot => &[10.0, 4.0, 2.0, 4.0],
        Pattern::Solid | Pattern::Hatched | Pattern::Outlined => &[],
    }
}

/// The visible pieces of a polyline drawn with `pattern`, in pixels.
pub fn dash_segments(points: &[(i32, i32)], pattern: Pattern) -> Vec<Vec<(i32, i32)>> {
    let dash = dashes(pattern);
    if dash.is_empty() || points.len() < 2 {
        return vec![points.to_vec()];
    }
    let mut out = Vec::new();
    let (mut k, mut left) = (0usize, dash[0]);
    let mut current: Vec<(i32, i32)> = vec![points[0]];
    for w in points.windows(2) {
        let (a, b) = (
            (f64::from(w[0].0), f64::from(w[0].1)),
            (f64::from(w[1].0), f64::from(w[1].1)),
        );
        let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
        let mut at = 0.0;
        while len - at > left {
            at += left;
            let p = (a.0 + (b.0 - a.0) * at / len, a.1 + (b.1 - a.1) * at / len);
            let p = (p.0.round() as i32, p.1.round() as i32);
            if k % 2 == 0 {
                current.push(p);
                out.push(std::mem::take(&mut current));
            } else {
                current = vec![p];
            }
            k = (k + 1) % dash.len();
            left = dash[k];
        }
        left -= len - at;
        if k % 2 == 0 {
            current.push(w[1]);
        }
    }
    if k % 2 == 0 && current.len() > 1 {
        out.push(current);
    }
    out
}

/// `p` (in the backend's pixels, as a chart's `backend_coord` gives them)
/// relative to `area`'s corner.
fn local(area: &Area, p: (i32, i32)) -> (i32, i32) {
    let base = area.get_base_pixel();
    (p.0 - base.0, p.1 - base.1)
}

/// `p` relative to `area`'s corner in the backend's pixels.
fn absolute(area: &Area, p: (i32, i32)) -> (i32, i32) {
    let base = area.get_base_pixel();
    (p.0 + base.0, p.1 + base.1)
}

/// A polyline with `style`'s colour and pattern; points in the backend's
/// pixels (a chart's `backend_coord`), drawn into `area`.
pub fn line(area: &Area, points: &[(i32, i32)], style: Style, width: u32) -> DrawResult {
    let points: Vec<(i32, i32)> = points.iter().map(|p| local(area, *p)).collect();
    for piece in dash_segments(&points, style.pattern) {
        if piece.len() > 1 {
            area.draw(&PathElement::new(piece, style.color.stroke_width(width)))?;
        }
    }
    Ok(())
}

/// A bar (corners in the backend's pixels) with `style`: filled, hatched
/// or outlined.
pub fn bar(area: &Area, a: (i32, i32), b: (i32, i32), style: Style) -> DrawResult {
    let (a, b) = (local(area, a), local(area, b));
    let (x0, x1) = (a.0.min(b.0), a.0.max(b.0));
    let (y0, y1) = (a.1.min(b.1), a.1.max(b.1));
    match style.pattern {
        Pattern::Hatched => {
            area.draw(&Rectangle::new([(x0, y0), (x1, y1)], WHITE.filled()))?;
            // Diagonals every 6 px, clipped to the bar.
            let mut c = x0 - (y1 - y0);
            while c < x1 {
                let (mut p, mut q) = ((c, y1), (c + (y1 - y0), y0));
                if p.0 < x0 {
                    p = (x0, y1 - (x0 - p.0));
                }
                if q.0 > x1 {
                    q = (x1, y0 + (q.0 - x1));
                }
                if p.0 < q.0 {
                    area.draw(&PathElement::new(vec![p, q], style.color.stroke_width(2)))?;
                }
                c += 6;
            }
            area.draw(&Rectangle::new(
                [(x0, y0), (x1, y1)],
                style.color.stroke_width(1),
            ))?;
        }
        Pattern::Outlined => {
            area.draw(&Rectangle::new([(x0, y0), (x1, y1)], WHITE.filled()))?;
            area.draw(&Rectangle::new(
                [(x0 + 1, y0 + 1), (x1 - 1, y1 - 1)],
                style.color.stroke_width(3),
            ))?;
        }
        _ => {
            area.draw(&Rectangle::new([(x0, y0), (x1, y1)], style.color.filled()))?;
        }
    }
    Ok(())
}

/// A point with a horizontal interval (the backend's pixels).
pub fn marker(area: &Area, at: (i32, i32), from_x: i32, to_x: i32, style: Style) -> DrawResult {
    line(area, &[(from_x, at.1), (to_x, at.1)], style, 2)?;
    let at = local(area, at);
    let (from_x, to_x) = (local(area, (from_x, 0)).0, local(area, (to_x, 0)).0);
    for x in [from_x, to_x] {
        area.draw(&PathElement::new(
            vec![(x, at.1 - 4), (x, at.1 + 4)],
            style.color.stroke_width(2),
        ))?;
    }
    area.draw(&Circle::new(at, 4, style.color.filled()))?;
    Ok(())
}

/// Height a legend of `n` entries needs.
pub fn legend_height(n: usize) -> u32 {
    40 + LEGEND_ROW as u32 * n as u32
}

/// Draws `entries` top to bottom in `area` (the panel beside the plot).
pub fn legend(area: &Area, title: &str, entries: &[LegendEntry]) -> DrawResult {
    area.draw(&Text::new(
        title.to_owned(),
        (8, 14),
        (FONT, 14).into_font().color(&BLACK),
    ))?;
    for (i, e) in entries.iter().enumerate() {
        let y = 38 + LEGEND_ROW * i as i32;
        let at = |x: i32, y: i32| absolute(area, (x, y));
        match e.swatch {
            Swatch::Line => line(area, &[at(8, y), at(40, y)], e.style, 2)?,
            Swatch::Bar => bar(area, at(8, y - 6), at(40, y + 6), e.style)?,
            Swatch::Marker => marker(area, at(24, y), at(10, y).0, at(38, y).0, e.style)?,
        }
        area.draw(&Text::new(
            e.label.clone(),
            (48, y - 7),
            (FONT, 12).into_font().color(&BLACK),
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dashes_cut_a_line_into_on_pieces_of_the_pattern() {
        let solid = dash_segments(&[(0, 0), (100, 0)], Pattern::Solid);
        assert_eq!(solid, vec![vec![(0, 0), (100, 0)]]);
        let d = dash_segments(&[(0, 0), (26, 0)], Pattern::Dashed);
        // 8 on, 5 off, 8 on, 5 off: two dashes.
        assert_eq!(d, vec![vec![(0, 0), (8, 0)], vec![(13, 0), (21, 0)]]);
        // A dash that turns a corner keeps both halves in one piece.
        let bend = dash_segments(&[(0, 0), (4, 0), (4, 10)], Pattern::Dashed);
        assert_eq!(bend[0], vec![(0, 0), (4, 0), (4, 4)]);
    }
}
