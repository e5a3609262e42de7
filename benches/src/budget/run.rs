//! `sward bench --budget FILE`: one bench per preset and place the file
//! names (under `OUT/PRESET/PLACE/`), then every bound checked and the
//! results written to `OUT/budget.json` and, as a table, `OUT/budget.md`.

use std::path::{Path, PathBuf};

use super::{check, parse_budget, Budget, BudgetError, BudgetOutcome};
use crate::bench::{run_bench, BenchError, BenchOptions};
use crate::writer::ensure_writable_dir;

/// File name of the results beside the reports.
pub const BUDGET_JSON: &str = "budget.json";

/// File name of the results as a markdown table (docs/results.md's).
pub const BUDGET_MD: &str = "budget.md";

/// What a budget run did.
#[derive(Debug, Clone)]
pub struct BudgetRun {
    /// The checked bounds.
    pub outcome: BudgetOutcome,
    /// Each bench's headline table, with its report folder.
    pub headlines: String,
    /// `OUT/budget.json`.
    pub json: PathBuf,
}

impl BudgetRun {
    /// `Ok` when no bound failed; otherwise the error naming every failed
    /// bound with its figure and bound.
    pub fn verdict(&self) -> Result<(), BenchError> {
        let (_, failed, _) = self.outcome.counts();
        if failed == 0 {
            return Ok(());
        }
        Err(BenchError::BudgetFailed {
            file: self.outcome.file.clone(),
            failed,
            total: self.outcome.results.len(),
            bounds: self.outcome.failure_text(),
        })
    }
}

/// Reads and parses a budget file.
pub fn read_budget(path: &Path) -> Result<Budget, BudgetError> {
    let text = std::fs::read_to_string(path).map_err(|source| BudgetError::Read {
        path: path.to_owned(),
        source,
    })?;
    parse_budget(path, &text)
}

/// Runs the benches `file` needs with the settings of `base` that a budget
/// leaves open (adapter, output folder, indirect validation, texture
/// upload), checks every bound and writes `budget.json` and `budget.md`
/// into `base.out`.
/// A bound that fails is not an error here: see [`BudgetRun::verdict`].
pub fn run_budget(file: &Path, base: &BenchOptions) -> Result<BudgetRun, BenchError> {
    let budget = read_budget(file)?;
    if base.data.dir.is_some() {
        return Err(BenchError::Usage(
            "--budget names presets; --data is not used with it".into(),
        ));
    }
    ensure_writable_dir(&base.out)?;
    let size = format!("{}x{}", budget.size[0], budget.size[1]);
    let mut reports = Vec::new();
    let mut headlines = String::new();
    for ((preset, at), tiers) in budget.groups() {
        let labels: Vec<String> = tiers.iter().map(ToString::to_string).collect();
        let (view, path) = match &at {
            super::At::Default => (None, None),
            super::At::View(v) => (Some(v.clone()), None),
            super::At::Path(p) => (None, Some(p.clone())),
        };
        let opts = BenchOptions {
            preset: Some(preset.clone()),
            tiers: Some(labels.join(",")),
            frames: Some(budget.frames),
            warmup: Some(budget.warmup),
            size: Some(size.clone()),
            msaa: Some(budget.msaa),
            quick: false,
            out: base.out.join(&preset).join(at.slug()),
            view,
            path,
            ..base.clone()
        };
        let outcome = run_bench(&opts)?;
        headlines.push_str(&format!(
            "{preset}/{at} ({}):\n{}",
            outcome.dir.display(),
            outcome.headline
        ));
        reports.push(((preset, at), outcome.report));
    }
    let outcome = check(&budget, &reports);
    let json = base.out.join(BUDGET_JSON);
    let text = serde_json::to_string_pretty(&outcome)
        .map_err(|e| BenchError::Out(json.clone(), e.to_string()))?;
    std::fs::write(&json, text + "\n").map_err(|e| BenchError::Out(json.clone(), e.to_string()))?;
    let md = base.out.join(BUDGET_MD);
    std::fs::write(&md, outcome.markdown())
        .map_err(|e| BenchError::Out(md.clone(), e.to_string()))?;
    Ok(BudgetRun {
        outcome,
        headlines,
        json,
    })
}
