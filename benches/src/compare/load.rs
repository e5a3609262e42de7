//! Reading the two reports of a comparison (a bench folder or its
//! `report.json`) and their screenshots.

use std::path::{Path, PathBuf};

use crate::imagediff::{self, ImageDiffError};
use crate::report::{Report, Run, SCHEMA};
use crate::validate::validate_report;
use crate::writer::REPORT_JSON;

use super::{CompareError, ImageChange, ReportSummary};

/// One side of a comparison: a validated report and its folder.
#[derive(Debug, Clone)]
pub struct Side {
    /// The folder holding `report.json` and the screenshots.
    pub dir: PathBuf,
    /// The report.
    pub report: Report,
}

impl Side {
    /// What the comparison records about this report.
    pub fn summary(&self) -> ReportSummary {
        ReportSummary {
            dir: self.dir.display().to_string(),
            sward_version: self.report.sward_version.clone(),
            adapter: self.report.adapter.clone(),
        }
    }

    /// A screenshot of this report by its file name.
    fn image(&self, file: &str) -> PathBuf {
        self.dir.join(file)
    }
}

/// The file behind an argument: a folder's `report.json`, or the file.
fn json_path(arg: &Path) -> PathBuf {
    if arg.is_dir() {
        arg.join(REPORT_JSON)
    } else {
        arg.to_owned()
    }
}

/// Reads one argument as raw JSON.
fn read_value(
    side: &'static str,
    arg: &Path,
) -> Result<(PathBuf, serde_json::Value), CompareError> {
    let path = json_path(arg);
    let err = |message: String| CompareError::Read {
        side,
        path: path.clone(),
        message,
    };
    let text = std::fs::read_to_string(&path).map_err(|e| {
        err(if arg.is_dir() {
            format!("no report in this folder ({e}); give a `sward bench` output folder or its report.json")
        } else {
            e.to_string()
        })
    })?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| err(format!("not JSON: {e}")))?;
    Ok((path, value))
}

/// The `schema` field of a raw report, or a description of what is there.
fn schema_of(v: &serde_json::Value) -> String {
    match v.get("schema") {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => format!("{other} (not a string)"),
        None => "none (no `schema` field)".into(),
    }
}

/// Validates and decodes one side whose schema is known to be [`SCHEMA`].
fn decode(
    side: &'static str,
    path: PathBuf,
    value: serde_json::Value,
) -> Result<Side, CompareError> {
    let err = |message: String| CompareError::Read {
        side,
        path: path.clone(),
        message,
    };
    validate_report(&value)
        .map_err(|problems| err(format!("not a valid report:\n  {}", problems.join("\n  "))))?;
    let report: Report = serde_json::from_value(value).map_err(|e| err(e.to_string()))?;
    let dir = path
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_owned);
    Ok(Side { dir, report })
}

/// Reads BEFORE and AFTER (folders or `report.json` files). Different
/// schemas are refused before either is validated, naming both.
pub fn load_pair(before: &Path, after: &Path) -> Result<(Side, Side), CompareError> {
    let (pb, vb) = read_value("before", before)?;
    let (pa, va) = read_value("after", after)?;
    let (sb, sa) = (schema_of(&vb), schema_of(&va));
    if sb != sa {
        return Err(CompareError::Mismatch {
            what: "schema",
            before: sb,
            after: sa,
            why: "their fields mean different things",
        });
    }
    if sb != SCHEMA {
        return Err(CompareError::Read {
            side: "before",
            path: pb,
            message: format!("schema {sb}: this sward reads {SCHEMA}"),
        });
    }
    Ok((decode("before", pb, vb)?, decode("after", pa, va)?))
}

/// The two screenshots of a matched run compared, or why they were not.
pub(super) fn image_change(
    before: &Side,
    rb: &Run,
    after: &Side,
    ra: &Run,
) -> Result<ImageChange, String> {
    let (Some(fb), Some(fa)) = (&rb.image, &ra.image) else {
        return Err("a report has no screenshot for this run".into());
    };
    let show = |e: ImageDiffError| e.to_string();
    let a = imagediff::load_rgba(&before.image(fb)).map_err(show)?;
    let b = imagediff::load_rgba(&after.image(fa)).map_err(show)?;
    let changed = imagediff::diff_images_with_threshold(&a, &b, 0).map_err(show)?;
    let differing = imagediff::diff_images(&a, &b).map_err(show)?;
    let pixels = f64::from(a.width()) * f64::from(a.height());
    Ok(ImageChange {
        pixels_changed: (changed.differing_pixels_fraction * pixels).round() as u64,
        differing_pixels: (differing.differing_pixels_fraction * pixels).round() as u64,
        rmse: changed.rmse,
        diff_image: None,
    })
}

/// Screenshot paths of a matched run in both reports.
pub(super) fn image_paths(
    before: &Side,
    rb: &Run,
    after: &Side,
    ra: &Run,
) -> Option<(PathBuf, PathBuf)> {
    Some((
        before.image(rb.image.as_ref()?),
        after.image(ra.image.as_ref()?),
    ))
}
