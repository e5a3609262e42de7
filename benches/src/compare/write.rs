//! The output folder of `sward compare --out DIR`: `compare.json`,
//! `compare.md`, a diff image per run whose screenshot changed, and the
//! before/after charts.

use std::path::{Path, PathBuf};

use crate::charts::{write_compare_charts, Chart};
use crate::imagediff;
use crate::writer::ensure_writable_dir;

use super::load::image_paths;
use super::{render, BuildComparison, CompareError, Side};

/// File name of the machine-readable comparison.
pub const COMPARE_JSON: &str = "compare.json";
/// File name of the readable comparison.
pub const COMPARE_MD: &str = "compare.md";

/// What [`write_compare_dir`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompareFiles {
    /// `DIR/compare.json`.
    pub json: PathBuf,
    /// `DIR/compare.md`.
    pub markdown: PathBuf,
    /// Diff images written (file names in DIR).
    pub diff_images: Vec<String>,
    /// Charts written.
    pub charts: Vec<Chart>,
}

fn write_err<'p>(what: &'static str, path: &'p Path) -> impl FnOnce(String) -> CompareError + 'p {
    move |message| CompareError::Write {
        what,
        path: path.to_owned(),
        message,
    }
}

/// Writes the comparison into `out`: diff images first (their names go
/// into the comparison), then the charts, `compare.md` and `compare.json`.
pub fn write_compare_dir(
    out: &Path,
    before: &Side,
    after: &Side,
    c: &mut BuildComparison,
) -> Result<CompareFiles, CompareError> {
    ensure_writable_dir(out).map_err(|e| write_err("output folder", out)(e.to_string()))?;
    let mut diff_images = Vec::new();
    for run in &mut c.runs {
        let Some(image) = run.image.as_mut().filter(|i| i.pixels_changed > 0) else {
            continue;
        };
        let (Some(rb), Some(ra)) = (before.report.run(&run.tier), after.report.run(&run.tier))
        else {
            continue;
        };
        let Some((pb, pa)) = image_paths(before, rb, after, ra) else {
            continue;
        };
        let visual = imagediff::load_rgba(&pb)
            .and_then(|b| imagediff::diff_visual(&b, &imagediff::load_rgba(&pa)?))
            .map_err(|e| write_err("diff image of", &pa)(e.to_string()))?;
        let file = format!("diff-{}.png", run.tier.file_stem());
        let path = out.join(&file);
        visual
            .save(&path)
            .map_err(|e| write_err("diff image", &path)(e.to_string()))?;
        image.diff_image = Some(file.clone());
        diff_images.push(file);
    }
    let charts = write_compare_charts(c, &before.report, &after.report, out)
        .map_err(|e| write_err("charts in", out)(e.to_string()))?;
    let markdown = out.join(super::COMPARE_MD);
    std::fs::write(&markdown, render::markdown(c, &charts))
        .map_err(|e| write_err("file", &markdown)(e.to_string()))?;
    let json = out.join(super::COMPARE_JSON);
    let mut text =
        serde_json::to_string_pretty(c).map_err(|e| write_err("file", &json)(e.to_string()))?;
    text.push('\n');
    std::fs::write(&json, text).map_err(|e| write_err("file", &json)(e.to_string()))?;
    Ok(CompareFiles {
        json,
        markdown,
        diff_images,
        charts,
    })
}
