//! Checking a budget's bounds against the reports of its runs: pure data
//! in, a result per bound out.

use std::fmt::Write as _;

use serde::Serialize;

use super::{At, Bound, Budget, RunName};
use crate::figures::FigureClass;
use crate::report::{Report, Run};

/// What became of one bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The figure is within its bound.
    Pass,
    /// The figure is outside its bound, or could not be computed.
    Fail,
    /// A counter bound on another driver than the file names.
    Skip,
}

/// One bound checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoundResult {
    /// The run (`PRESET/WHERE/TIERS`).
    pub run: String,
    /// The figure (`instances_drawn vs legacy-cpu+static-chunks`).
    pub figure: String,
    /// The bound (`<= 1.02`).
    pub bound: String,
    /// The figure's value, when it could be computed.
    pub value: Option<f64>,
    /// The outcome.
    pub status: Status,
    /// Why it failed or was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Every bound of a budget checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BudgetOutcome {
    /// The budget file.
    pub file: String,
    /// The driver its counter bounds hold on.
    pub driver: String,
    /// One result per bound, in the file's order.
    pub results: Vec<BoundResult>,
    /// Warnings (counter bounds skipped on another driver).
    pub warnings: Vec<String>,
}

impl BudgetOutcome {
    /// The bounds that failed.
    pub fn failures(&self) -> impl Iterator<Item = &BoundResult> {
        self.results.iter().filter(|r| r.status == Status::Fail)
    }

    /// Counts of passed, failed and skipped bounds.
    pub fn counts(&self) -> (usize, usize, usize) {
        let n = |s| self.results.iter().filter(|r| r.status == s).count();
        (n(Status::Pass), n(Status::Fail), n(Status::Skip))
    }

    /// One line per bound, the warnings, and a total.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for r in &self.results {
            let word = match r.status {
                Status::Pass => "pass",
                Status::Fail => "FAIL",
                Status::Skip => "skip",
            };
            let value = r.value.map_or_else(|| "-".to_owned(), show);
            let _ = write!(
                out,
                "{word}  {}  {} = {value} (bound {})",
                r.run, r.figure, r.bound
            );
            if let Some(note) = &r.note {
                let _ = write!(out, ": {note}");
            }
            out.push('\n');
        }
        for w in &self.warnings {
            let _ = writeln!(out, "warning: {w}");
        }
        let (pass, fail, skip) = self.counts();
        let _ = writeln!(
            out,
            "budget {}: {} bounds, {pass} passed, {fail} failed, {skip} skipped",
            self.file,
            self.results.len()
        );
        out
    }

    /// The results as a markdown table (`OUT/budget.md`): one row per
    /// bound with its figure, bound and outcome (`pass` only where the
    /// check passed), then the warnings and the totals. `|` in a cell is
    /// escaped.
    pub fn markdown(&self) -> String {
        let cell = |s: &str| s.replace('|', "\\|");
        let mut md =
            String::from("| run | figure | value | bound | result |\n|---|---|--:|---|---|\n");
        for r in &self.results {
            let word = match r.status {
                Status::Pass => "pass",
                Status::Fail => "**FAIL**",
                Status::Skip => "skipped",
            };
            let value = r.value.map_or_else(|| "-".to_owned(), show);
            let note = r
                .note
                .as_ref()
                .map(|n| format!(": {}", cell(n)))
                .unwrap_or_default();
            let _ = writeln!(
                md,
                "| `{}` | `{}` | {value} | {} | {word}{note} |",
                cell(&r.run),
                cell(&r.figure),
                cell(&r.bound)
            );
        }
        for w in &self.warnings {
            let _ = write!(md, "\nWarning: {}\n", cell(w));
        }
        let (pass, fail, skip) = self.counts();
        let _ = write!(
            md,
            "\n{} bounds of `{}` (counters for driver `{}`): {pass} passed, {fail} failed, \
             {skip} skipped.\n",
            self.results.len(),
            self.file,
            self.driver
        );
        md
    }

    /// Every failed bound with its figure and bound, one per line (the error
    /// `sward bench --budget` exits with).
    pub fn failure_text(&self) -> String {
        self.failures()
            .map(|r| {
                let value = r.value.map_or_else(|| "not computed".to_owned(), show);
                let note = r
                    .note
                    .as_ref()
                    .map(|n| format!(" ({n})"))
                    .unwrap_or_default();
                format!("{} {} = {value}, bound {}{note}", r.run, r.figure, r.bound)
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// A value with as many digits as it needs: counts whole, ratios to 4 places.
fn show(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.4}")
    }
}

/// The run a name stands for in the reports, or why there is none.
fn locate<'r>(
    reports: &'r [((String, At), Report)],
    name: &RunName,
) -> Result<(&'r Report, &'r Run), String> {
    let report = reports
        .iter()
        .find(|(k, _)| *k == name.group())
        .map(|(_, r)| r)
        .ok_or_else(|| format!("no report of {}/{}", name.preset, name.at))?;
    if let Some(run) = name.find(report) {
        return Ok((report, run));
    }
    match report
        .refused
        .iter()
        .find(|r| r.tier.grass == name.tier.grass && r.tier.terrain == name.tier.terrain)
    {
        Some(r) => Err(format!("run {name} was refused: {}", r.reason)),
        None => Err(format!(
            "run {name} is not in its report (a tier capped on this device?)"
        )),
    }
}

fn within(b: &Bound, v: f64) -> bool {
    b.min.is_none_or(|lo| v >= lo) && b.max.is_none_or(|hi| v <= hi)
}

/// Checks every bound of `budget` against `reports` (one per preset and place).
pub fn check(budget: &Budget, reports: &[((String, At), Report)]) -> BudgetOutcome {
    let mut warnings = Vec::new();
    let mut results = Vec::new();
    for b in &budget.bounds {
        let mut result = BoundResult {
            run: b.run.to_string(),
            figure: b.figure_text(),
            bound: b.bound_text(),
            value: None,
            status: Status::Fail,
            note: None,
        };
        let value = (|| -> Result<(f64, &str), String> {
            let (report, run) = locate(reports, &b.run)?;
            let mut drivers = vec![report.adapter.driver.as_str()];
            let v = b.expr.value(report, run)?;
            let v = match &b.vs {
                None => v,
                Some(vs) => {
                    let (vr, vrun) = locate(reports, vs)?;
                    drivers.push(vr.adapter.driver.as_str());
                    let d = b.expr.value(vr, vrun)?;
                    if d == 0.0 {
                        return Err(format!("{} is 0 in {vs}: no ratio", b.expr));
                    }
                    v / d
                }
            };
            let other = drivers
                .into_iter()
                .find(|d| !d.contains(&budget.driver))
                .unwrap_or("");
            Ok((v, other))
        })();
        match value {
            Err(note) => result.note = Some(note),
            Ok((v, other_driver)) => {
                result.value = Some(v);
                if b.expr.class() == FigureClass::Counter && !other_driver.is_empty() {
                    result.status = Status::Skip;
                    result.note = Some(format!(
                        "counter bound for driver `{}`, measured on `{other_driver}`",
                        budget.driver
                    ));
                } else if within(b, v) {
                    result.status = Status::Pass;
                } else {
                    result.note = Some("out of bounds".into());
                }
            }
        }
        results.push(result);
    }
    let skipped = results.iter().filter(|r| r.status == Status::Skip).count();
    if skipped > 0 {
        warnings.push(format!(
            "{skipped} counter bounds skipped: they hold on driver `{}` and these reports ran on another (counters are exact per driver); set a budget file for this driver",
            budget.driver
        ));
    }
    BudgetOutcome {
        file: budget.path.display().to_string(),
        driver: budget.driver.clone(),
        results,
        warnings,
    }
}
