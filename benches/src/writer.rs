//! Writing a report directory so that nothing half-written passes for a report.
//!
//! [`ensure_writable_dir`] checks `--out` before any GPU work starts. A
//! [`ReportStaging`] then collects every file (screenshots during the runs; charts,
//! `report.md` and `report.json` at the end) in a hidden staging directory inside
//! `--out`. [`ReportStaging::commit`] validates the report, removes any previous
//! `report.json`, renames the other files into place and renames `report.json`
//! last: a directory holds a `report.json` only once everything it names is there.
//! A staging that is dropped without commit (error, panic) deletes itself.

use std::path::{Path, PathBuf};

use crate::charts::{write_charts, Chart, ChartError};
use crate::markdown;
use crate::report::Report;
use crate::validate::validate_report;

/// File name of the machine-readable report.
pub const REPORT_JSON: &str = "report.json";
/// File name of the human-readable report.
pub const REPORT_MD: &str = "report.md";
/// Prefix of staging directory names (hidden, inside the output directory).
const STAGING_PREFIX: &str = ".sward-report-staging-";

/// Why a report directory could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The output path exists but is a file.
    #[error("output path {path} exists and is not a directory")]
    NotADirectory {
        /// The `--out` path.
        path: PathBuf,
    },
    /// The output directory cannot be created or written to.
    #[error("output directory {path} is not writable: {source}")]
    NotWritable {
        /// The `--out` path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A file operation inside the output directory failed.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The report could not be serialised.
    #[error("cannot serialise the report: {0}")]
    Serialize(#[from] serde_json::Error),
    /// The report breaks schema `sward-bench/1`; it is not written.
    #[error("refusing to write an invalid report:\n  {}", .problems.join("\n  "))]
    Invalid {
        /// Every problem the validator found.
        problems: Vec<String>,
    },
    /// A run names a screenshot that was never written into the staging directory.
    #[error("run {tier} names screenshot {file}, which is not in {dir}")]
    MissingImage {
        /// The run's tier combination.
        tier: String,
        /// The screenshot file name.
        file: String,
        /// The staging directory.
        dir: PathBuf,
    },
    /// A chart could not be drawn or written.
    #[error(transparent)]
    Chart(#[from] ChartError),
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> WriteError + '_ {
    move |source| WriteError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Creates `path` if needed and proves it writable by creating and deleting a
/// probe file. Call it before any expensive work so a bad `--out` fails at once.
pub fn ensure_writable_dir(path: &Path) -> Result<(), WriteError> {
    if path.exists() && !path.is_dir() {
        return Err(WriteError::NotADirectory {
            path: path.to_owned(),
        });
    }
    let not_writable = |source| WriteError::NotWritable {
        path: path.to_owned(),
        source,
    };
    std::fs::create_dir_all(path).map_err(not_writable)?;
    let probe = path.join(format!(".sward-write-probe-{}", std::process::id()));
    std::fs::write(&probe, b"probe").map_err(not_writable)?;
    std::fs::remove_file(&probe).map_err(not_writable)?;
    Ok(())
}

/// Files of a committed report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommittedReport {
    /// The report directory.
    pub dir: PathBuf,
    /// `DIR/report.json`.
    pub json: PathBuf,
    /// `DIR/report.md`.
    pub markdown: PathBuf,
    /// Charts written beside the report.
    pub charts: Vec<Chart>,
}

/// A report being assembled in a hidden directory inside the output directory.
#[derive(Debug)]
pub struct ReportStaging {
    out: PathBuf,
    staging: PathBuf,
    committed: bool,
}

impl ReportStaging {
    /// Checks `out` is writable and creates a fresh staging directory inside it.
    pub fn begin(out: &Path) -> Result<Self, WriteError> {
        ensure_writable_dir(out)?;
        let staging = out.join(format!("{STAGING_PREFIX}{}", std::process::id()));
        if staging.exists() {
            std::fs::remove_dir_all(&staging).map_err(io_err(&staging))?;
        }
        std::fs::create_dir(&staging).map_err(io_err(&staging))?;
        Ok(Self {
            out: out.to_owned(),
            staging,
            committed: false,
        })
    }

    /// The staging directory: write screenshots here under the names the runs give.
    pub fn dir(&self) -> &Path {
        &self.staging
    }

    /// The final report directory.
    pub fn out(&self) -> &Path {
        &self.out
    }

    /// Validates `report`, writes charts, `report.md` and `report.json` and moves
    /// everything into the output directory, `report.json` last.
    pub fn commit(mut self, report: &Report) -> Result<CommittedReport, WriteError> {
        let value = serde_json::to_value(report)?;
        validate_report(&value).map_err(|problems| WriteError::Invalid { problems })?;
        for run in &report.runs {
            if let Some(file) = &run.image {
                if !self.staging.join(file).is_file() {
                    return Err(WriteError::MissingImage {
                        tier: run.tier.to_string(),
                        file: file.clone(),
                        dir: self.staging.clone(),
                    });
                }
            }
        }
        let charts = write_charts(report, &self.staging)?;
        let md_path = self.staging.join(REPORT_MD);
        std::fs::write(&md_path, markdown::render(report, &charts)).map_err(io_err(&md_path))?;
        let json_path = self.staging.join(REPORT_JSON);
        let mut json = serde_json::to_string_pretty(&value)?;
        json.push('\n');
        std::fs::write(&json_path, json).map_err(io_err(&json_path))?;

        // An older report.json must not vouch for files that are being replaced.
        let final_json = self.out.join(REPORT_JSON);
        if final_json.exists() {
            std::fs::remove_file(&final_json).map_err(io_err(&final_json))?;
        }
        let entries = std::fs::read_dir(&self.staging).map_err(io_err(&self.staging))?;
        for entry in entries {
            let entry = entry.map_err(io_err(&self.staging))?;
            let name = entry.file_name();
            if name == REPORT_JSON {
                continue;
            }
            let target = self.out.join(&name);
            std::fs::rename(entry.path(), &target).map_err(io_err(&target))?;
        }
        std::fs::rename(&json_path, &final_json).map_err(io_err(&final_json))?;
        std::fs::remove_dir(&self.staging).map_err(io_err(&self.staging))?;
        self.committed = true;
        Ok(CommittedReport {
            dir: self.out.clone(),
            json: final_json,
            markdown: self.out.join(REPORT_MD),
            charts,
        })
    }
}

impl Drop for ReportStaging {
    fn drop(&mut self) {
        if !self.committed {
            // Best effort: a leftover hidden directory is harmless, never a report.
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

/// Writes a report without screenshots (or whose screenshots are already staged
/// elsewhere): [`ReportStaging::begin`] followed by [`ReportStaging::commit`].
pub fn write_report_dir(out: &Path, report: &Report) -> Result<CommittedReport, WriteError> {
    ReportStaging::begin(out)?.commit(report)
}

/// Reads and validates `DIR/report.json`.
pub fn read_report_dir(dir: &Path) -> Result<Report, WriteError> {
    let path = dir.join(REPORT_JSON);
    let text = std::fs::read_to_string(&path).map_err(io_err(&path))?;
    let value: serde_json::Value = serde_json::from_str(&text)?;
    validate_report(&value).map_err(|problems| WriteError::Invalid { problems })?;
    Ok(serde_json::from_value(value)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::sample_report;

    fn stage_images(staging: &ReportStaging, report: &Report) {
        for run in &report.runs {
            if let Some(file) = &run.image {
                let img = image::RgbaImage::from_pixel(4, 4, image::Rgba([9, 99, 199, 255]));
                img.save(staging.dir().join(file)).unwrap();
            }
        }
    }

    #[test]
    fn commit_moves_everything_into_place_and_round_trips() {
        let out = crate::test_dir("writer").join("nested/out");
        let report = sample_report();
        let staging = ReportStaging::begin(&out).unwrap();
        stage_images(&staging, &report);
        let staging_dir = staging.dir().to_owned();
        let done = staging.commit(&report).unwrap();
        assert!(!staging_dir.exists(), "staging dir left behind");
        assert_eq!(read_report_dir(&out).unwrap(), report);
        let md = std::fs::read_to_string(&done.markdown).unwrap();
        assert!(md.contains("## Headline"));
        for c in &done.charts {
            assert!(out.join(&c.file).is_file(), "{} missing", c.file);
        }
        for run in &report.runs {
            assert!(out.join(run.image.as_ref().unwrap()).is_file());
        }
    }

    #[test]
    fn invalid_reports_and_missing_images_are_not_written() {
        let out = crate::test_dir("writer-invalid");
        let mut report = sample_report();
        report.comparisons[0].cpu_frame_ratio = Some(123.0);
        let staging = ReportStaging::begin(&out).unwrap();
        stage_images(&staging, &report);
        let err = staging.commit(&report).unwrap_err();
        assert!(matches!(err, WriteError::Invalid { .. }), "{err}");
        assert!(!out.join(REPORT_JSON).exists());

        let report = sample_report();
        let err = ReportStaging::begin(&out)
            .unwrap()
            .commit(&report)
            .unwrap_err();
        assert!(err.to_string().contains(".png"), "{err}");
        assert!(!out.join(REPORT_JSON).exists());
        // Dropped stagings clean up after themselves.
        let left: Vec<_> = std::fs::read_dir(&out).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn unwritable_output_paths_are_named_in_the_error() {
        let dir = crate::test_dir("writer-unwritable");
        let file = dir.join("a-file");
        std::fs::write(&file, b"x").unwrap();
        let err = ensure_writable_dir(&file).unwrap_err();
        assert!(err.to_string().contains("a-file"), "{err}");
        // A directory below a file can never be created.
        let below = file.join("sub");
        let err = ensure_writable_dir(&below).unwrap_err();
        assert!(matches!(err, WriteError::NotWritable { .. }), "{err}");
        assert!(err.to_string().contains("a-file/sub"), "{err}");
    }
}
