//! What `sward scale` writes: `scale.json` (the [`ScaleReport`], schema
//! `sward-scale/1`), `scale.md` (one table: per scale and grass tier, GPU
//! memory in total and per placement, uploads per frame and per tile
//! change, VS and CS invocations, instances drawn, refusals and what a
//! tier leaves out) and `scale_memory.svg` (GPU memory per placement
//! against placements on a logarithmic axis, one line per tier, styled as
//! the report's charts: [`crate::charts::style`]).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use plotters::prelude::*;

use super::scale::{ScaleReport, ScaleRow};
use super::BenchError;
use crate::charts::draw::{self, LegendEntry, Swatch};
use crate::charts::style::Palette;
use crate::charts::{render_svg, Rendered};
use crate::markdown::{bytes, count};

/// The report's JSON file.
pub const SCALE_JSON: &str = "scale.json";
/// The report's table.
pub const SCALE_MD: &str = "scale.md";
/// The memory-per-placement chart.
pub const SCALE_SVG: &str = "scale_memory.svg";

fn note(row: &ScaleRow, key: &str) -> Option<f64> {
    row.notes.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
}

/// What a row's tier leaves out or runs short of, in words.
fn notes_text(row: &ScaleRow, binding: u64) -> String {
    if let Some(why) = &row.refused {
        return format!("refused: {why}");
    }
    let mut out = Vec::new();
    if let (Some(thinned), Some(expected)) = (
        note(row, "grid_placements_thinned"),
        note(row, "grid_placements_expected"),
    ) {
        let k = note(row, "grid_candidates_per_slot").unwrap_or(0.0);
        if thinned > 0.0 {
            out.push(format!(
                "{} of {} expected placements thinned ({:.1}%; {k} candidates per slot)",
                count(thinned as u64),
                count(expected as u64),
                100.0 * thinned / expected.max(1.0)
            ));
        } else {
            out.push(format!("none thinned ({k} candidates per slot)"));
        }
    }
    if let Some(o) = note(row, "grid_overflow_blades").filter(|o| *o > 0.0) {
        out.push(format!("{} blades overflowed the list", count(o as u64)));
    }
    if let Some(d) = note(row, "gpu_cull.descriptor_bytes") {
        out.push(format!(
            "descriptors {} of the {} storage binding ({:.0}%)",
            bytes(d as u64),
            bytes(binding),
            100.0 * d / binding.max(1) as f64
        ));
    }
    if row.tile_change_in_place == Some(false) {
        out.push("a tile change rebuilds it".into());
    }
    if let Some(why) = &row.tile_change_refused {
        out.push(format!("streaming build refused: {why}"));
    }
    out.join("; ")
}

/// `scale.md`.
pub fn scale_markdown(r: &ScaleReport) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# sward scale: grass tiers as the placements grow\n");
    let _ = writeln!(
        md,
        "Adapter {}; {}x{}, {}x MSAA; {} measured frames after {} warm-up at view `{}`, \
         terrain off. Per-frame figures are medians. Memory is the tier's GPU memory, the \
         shared detail models it draws ({}) included. A tile change is one tile of the \
         window evicted and made resident again in a streaming build. VS and CS \
         invocations are the grass passes' pipeline statistics (absent without them).\n",
        r.adapter,
        r.size[0],
        r.size[1],
        r.msaa,
        r.frames,
        r.warmup,
        r.view,
        bytes(r.models_gpu_memory_bytes)
    );
    md.push_str(
        "| scale | placements | tier | grass GPU memory | per placement | uploaded per frame \
         | uploaded per tile change | VS invocations | CS invocations | instances drawn | notes |\n",
    );
    md.push_str("|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|---|\n");
    let opt = |v: Option<u64>| v.map_or_else(|| "-".to_owned(), count);
    for row in &r.rows {
        let notes = notes_text(row, r.max_storage_binding).replace('|', "\\|");
        if row.refused.is_some() {
            let _ = writeln!(
                md,
                "| {} | {} | {} | - | - | - | - | - | - | - | {notes} |",
                row.scale,
                count(row.placements),
                row.tier
            );
            continue;
        }
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {:.1} B | {} | {} | {} | {} | {} | {notes} |",
            row.scale,
            count(row.placements),
            row.tier,
            bytes(row.gpu_memory_bytes),
            row.bytes_per_placement,
            bytes(row.bytes_uploaded_per_frame),
            row.bytes_per_tile_change.map_or_else(|| "-".into(), bytes),
            opt(row.vs_invocations),
            opt(row.cs_invocations),
            count(row.instances_drawn),
        );
    }
    let _ = writeln!(md, "\n![GPU memory per placement]({SCALE_SVG})");
    md
}

/// `scale_memory.svg`: bytes per placement against placements, per tier,
/// drawn as the report's charts are (each tier in its own hue, the legend
/// beside the plot).
fn memory_svg(r: &ScaleReport) -> Result<Rendered, String> {
    let mut tiers: Vec<&str> = Vec::new();
    for row in r.rows.iter().filter(|r| r.refused.is_none()) {
        if !tiers.contains(&row.tier.as_str()) {
            tiers.push(&row.tier);
        }
    }
    let points = |t: &str| -> Vec<(f64, f64)> {
        r.rows
            .iter()
            .filter(|row| row.tier == t && row.refused.is_none() && row.placements > 0)
            .map(|row| (row.placements as f64, row.bytes_per_placement.max(0.01)))
            .collect()
    };
    let all: Vec<(f64, f64)> = tiers.iter().flat_map(|t| points(t)).collect();
    let span = |f: fn(&(f64, f64)) -> f64| {
        let lo = all.iter().map(f).fold(f64::INFINITY, f64::min);
        let hi = all.iter().map(f).fold(0.0, f64::max);
        if lo.is_finite() && hi > 0.0 {
            (lo / 1.5)..(hi * 1.5)
        } else {
            1.0..10.0
        }
    };
    let xs = span(|p| p.0);
    let ys = 0.0..all.iter().map(|p| p.1).fold(1.0, f64::max) * 1.15;
    // The grass tiers' own hues, as in the report's charts.
    let mut palette = Palette::new();
    let legend: Vec<LegendEntry> = tiers
        .iter()
        .map(|t| LegendEntry::new(*t, palette.run_line(t, "static-chunks"), Swatch::Line))
        .collect();
    render_svg(540, legend.len(), |plot, side| {
        let mut chart = ChartBuilder::on(plot)
            .caption(
                "Grass GPU memory per placement (bytes) against placements",
                ("sans-serif", 20),
            )
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(72)
            .build_cartesian_2d(xs.log_scale(), ys)?;
        chart
            .configure_mesh()
            .light_line_style(RGBColor(0xf2, 0xf2, 0xf2))
            .bold_line_style(RGBColor(0xd0, 0xd0, 0xd0))
            .x_desc("placements in the resident window")
            .y_desc("bytes per placement")
            .x_label_formatter(&|x| count(x.round() as u64))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()?;
        for (i, (t, entry)) in tiers.iter().zip(&legend).enumerate() {
            let pts = points(t);
            let px: Vec<(i32, i32)> = pts.iter().map(|p| chart.backend_coord(p)).collect();
            draw::line(plot, &px, entry.style, 2)?;
            // Markers shrink series by series and alternate open and filled,
            // so tiers with equal figures (legacy-cpu and static-batch hold
            // the same bytes) stay visible under one another.
            let radius = 8u32.saturating_sub(2 * i as u32).max(3);
            let color = entry.style.color;
            let style = if i % 2 == 0 {
                color.stroke_width(2)
            } else {
                color.filled()
            };
            chart.draw_series(pts.into_iter().map(|p| Circle::new(p, radius, style)))?;
        }
        draw::legend(side, "grass tier", &legend)?;
        Ok(legend)
    })
}

/// Writes `scale.json`, `scale.md` and `scale_memory.svg` into `dir`
/// (created as needed); answers the path of `scale.md`.
pub fn write_scale(r: &ScaleReport, dir: &Path) -> Result<PathBuf, BenchError> {
    let out = |e: String| BenchError::Out(dir.to_path_buf(), e);
    std::fs::create_dir_all(dir).map_err(|e| out(e.to_string()))?;
    let json = serde_json::to_string_pretty(r).map_err(|e| out(e.to_string()))?;
    std::fs::write(dir.join(SCALE_JSON), json).map_err(|e| out(e.to_string()))?;
    let svg = memory_svg(r)
        .map_err(|e| out(format!("{SCALE_SVG}: {e}")))?
        .svg;
    std::fs::write(dir.join(SCALE_SVG), svg).map_err(|e| out(e.to_string()))?;
    let md = dir.join(SCALE_MD);
    std::fs::write(&md, scale_markdown(r)).map_err(|e| out(e.to_string()))?;
    Ok(md)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The report the tests read: lavapipe's figures around `rows`.
    fn report(rows: Vec<ScaleRow>) -> ScaleReport {
        ScaleReport {
            schema: crate::bench::SCALE_SCHEMA.into(),
            adapter: "llvmpipe".into(),
            max_storage_binding: 134_217_728,
            size: [960, 540],
            msaa: 4,
            frames: 5,
            warmup: 4,
            view: "ground-yaw0".into(),
            models_gpu_memory_bytes: 2048,
            rows,
        }
    }

    fn row(scale: f64, tier: &str, bytes: u64, placements: u64) -> ScaleRow {
        ScaleRow {
            scale,
            preset: format!("scale-{scale}"),
            placements,
            tier: tier.into(),
            refused: None,
            gpu_memory_bytes: bytes,
            bytes_per_placement: bytes as f64 / placements as f64,
            bytes_uploaded_per_frame: 480,
            bytes_per_tile_change: Some(1024),
            tile_change_in_place: Some(true),
            tile_change_refused: None,
            vs_invocations: Some(96_920),
            cs_invocations: Some(131_328),
            instances_drawn: 7_195,
            notes: vec![
                ("grid_placements_thinned".into(), 10.0),
                ("grid_placements_expected".into(), 100.0),
                ("grid_candidates_per_slot".into(), 16.0),
            ],
        }
    }

    #[test]
    fn every_tier_of_the_chart_has_its_own_colour_and_pattern() {
        let mut rows = Vec::new();
        for tier in [
            "legacy-cpu",
            "static-batch",
            "gpu-cull",
            "camera-grid",
            "gpu-cull:occlusion=on",
        ] {
            rows.push(row(1.0, tier, 6_000_000, 465_576));
            rows.push(row(16.0, tier, 24_000_000, 7_449_458));
        }
        let r = report(rows);
        let chart = memory_svg(&r).unwrap();
        assert_eq!(chart.legend.len(), 5);
        for (i, e) in chart.legend.iter().enumerate() {
            assert!(
                chart.legend[i + 1..]
                    .iter()
                    .all(|o| o.style.key() != e.style.key()),
                "{} shares its style",
                e.label
            );
            assert!(
                chart
                    .svg
                    .contains(&crate::charts::style::css(e.style.color)),
                "{}",
                e.label
            );
        }
    }

    #[test]
    fn the_table_and_the_chart_show_every_row() {
        let mut refused = row(16.0, "gpu-cull", 0, 7_449_458);
        refused.refused = Some("descriptors | too big".into());
        let r = report(vec![
            row(1.0, "camera-grid", 6_209_184, 465_576),
            row(16.0, "camera-grid", 24_000_000, 7_449_458),
            refused,
        ]);
        let md = scale_markdown(&r);
        assert!(
            md.contains("| 1 | 465,576 | camera-grid | 5.9 MiB | 13.3 B |"),
            "{md}"
        );
        assert!(
            md.contains("10 of 100 expected placements thinned (10.0%"),
            "{md}"
        );
        assert!(md.contains("refused: descriptors \\| too big"), "{md}");
        let chart = memory_svg(&r).unwrap();
        assert!(chart.svg.contains("camera-grid") && !chart.svg.contains("gpu-cull"));
        assert_eq!(chart.legend.len(), 1);
        let dir = crate::test_dir("scale-text");
        let md_path = write_scale(&r, &dir).unwrap();
        let back: ScaleReport =
            serde_json::from_str(&std::fs::read_to_string(dir.join(SCALE_JSON)).unwrap()).unwrap();
        assert_eq!(back, r);
        assert!(md_path.ends_with(SCALE_MD) && dir.join(SCALE_SVG).is_file());
    }
}
