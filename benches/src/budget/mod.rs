//! Performance budgets: `sward bench --budget FILE` runs the benches a
//! budget file names and checks figures of named runs against bounds,
//! failing (non-zero exit) with every bound that does not hold.
//!
//! The file is TOML:
//!
//! ```toml
//! [budget]
//! driver = "llvmpipe Mesa 22.3.6"  # counter bounds hold on this driver
//! size = "320x180"                 # the bench conditions the bounds were set at
//! frames = 4
//! warmup = 2
//! msaa = 4                         # optional, default 4
//!
//! ["elwynn-dense/default/gpu-cull+static-chunks"]
//! instances_drawn = { vs = "legacy-cpu+static-chunks", max = 1.02 }
//! "grass.vs_invocations / instances_drawn" = { max = 14.5 }
//! bytes_uploaded = { max = 1024 }
//! ```
//!
//! A run is named `PRESET/WHERE/TIERS`: a preset, where its frames were
//! measured (`default`: the preset's camera path; a view name, as `--view`
//! takes it; `path:NAME`, as `--path`), and one tier combination in the
//! `--tiers` spelling. Each key of a run's table is a figure of
//! [`crate::figures`], or two divided (`A / B`, both of the same run); its
//! bound is `max` and/or `min`, and `vs` (another run: a `TIERS` of the same
//! preset and place, or a full `PRESET/WHERE/TIERS`) divides the value by
//! the same figure of that run. Counters (and figures built on one) are
//! exact per driver: on an adapter whose driver does not contain `driver`
//! their bounds are skipped with a warning, never passed in silence. Timer
//! ratios and image figures are checked on any driver.

mod check;
mod parse;
mod run;

pub use check::{check, BoundResult, BudgetOutcome, Status};
pub use parse::parse_budget;
pub use run::{read_budget, run_budget, BudgetRun, BUDGET_JSON, BUDGET_MD};

use std::path::PathBuf;

use crate::figures::{Figure, FigureClass, FigureError};
use crate::report::{Report, Run, TierPair};

/// Why a budget file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum BudgetError {
    /// The file could not be read.
    #[error("budget {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not TOML.
    #[error("budget {path}: not TOML: {message}")]
    Toml {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// A table or key does not follow the budget format.
    #[error("budget {path}: {at}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Where in the file (`[budget].size`, `["elwynn-dense/..."].instances_drawn`).
        at: String,
        /// What is wrong and what is valid.
        message: String,
    },
}

/// Where a run's frames were measured.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum At {
    /// The preset's own camera path (no `--view`, no `--path`).
    Default,
    /// Every frame at a named view (`--view NAME`).
    View(String),
    /// A named camera path (`--path NAME`).
    Path(String),
}

impl std::fmt::Display for At {
    /// The spelling of a run name.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Default => f.write_str("default"),
            At::View(v) => f.write_str(v),
            At::Path(p) => write!(f, "path:{p}"),
        }
    }
}

impl At {
    /// A folder name for the report of this place.
    pub fn slug(&self) -> String {
        match self {
            At::Default => "default".into(),
            At::View(v) => format!("view-{v}"),
            At::Path(p) => format!("path-{p}"),
        }
    }
}

/// A named run: `PRESET/WHERE/TIERS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunName {
    /// The preset.
    pub preset: String,
    /// Where.
    pub at: At,
    /// The tier combination (its full parameter set).
    pub tier: TierPair,
}

impl RunName {
    /// The bench (preset and place) this run belongs to.
    pub fn group(&self) -> (String, At) {
        (self.preset.clone(), self.at.clone())
    }

    /// This run in `report`, matched by tiers and parameters.
    pub fn find<'r>(&self, report: &'r Report) -> Option<&'r Run> {
        report.runs.iter().find(|r| {
            r.tier.grass == self.tier.grass
                && r.tier.terrain == self.tier.terrain
                && r.tier.params == self.tier.params
        })
    }
}

impl std::fmt::Display for RunName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}/{}", self.preset, self.at, self.tier)
    }
}

/// A figure, or two figures of one run divided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expr {
    /// The figure (numerator).
    pub figure: Figure,
    /// The divisor, if any.
    pub per: Option<Figure>,
}

impl Expr {
    /// Counter when any figure in it is one (its bound is then driver-exact).
    pub fn class(&self) -> FigureClass {
        let classes = std::iter::once(&self.figure)
            .chain(self.per.as_ref())
            .map(Figure::class);
        let mut worst = FigureClass::Image;
        for c in classes {
            match c {
                FigureClass::Counter => return FigureClass::Counter,
                FigureClass::Timer => worst = FigureClass::Timer,
                FigureClass::Image => {}
            }
        }
        worst
    }

    /// The value in `run` of `report`; a zero divisor is an error.
    pub fn value(&self, report: &Report, run: &Run) -> Result<f64, String> {
        let err = |e: FigureError| e.to_string();
        let v = self.figure.value(report, run).map_err(err)?;
        match &self.per {
            None => Ok(v),
            Some(per) => {
                let d = per.value(report, run).map_err(err)?;
                if d == 0.0 {
                    Err(format!("{per} is 0 in run {}: no ratio", run.tier))
                } else {
                    Ok(v / d)
                }
            }
        }
    }
}

impl std::fmt::Display for Expr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.per {
            None => write!(f, "{}", self.figure),
            Some(per) => write!(f, "{} / {per}", self.figure),
        }
    }
}

/// One bound of a budget file.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    /// The run it holds for.
    pub run: RunName,
    /// The figure.
    pub expr: Expr,
    /// Divide by the same figure of this run.
    pub vs: Option<RunName>,
    /// Lowest allowed value.
    pub min: Option<f64>,
    /// Highest allowed value.
    pub max: Option<f64>,
}

impl Bound {
    /// `grass.vs_invocations / instances_drawn vs legacy-cpu+static-chunks`.
    pub fn figure_text(&self) -> String {
        match &self.vs {
            None => self.expr.to_string(),
            Some(vs) if vs.group() == self.run.group() => format!("{} vs {}", self.expr, vs.tier),
            Some(vs) => format!("{} vs {vs}", self.expr),
        }
    }

    /// `<= 1.02`, `>= 0.5`, `0.5..=2`.
    pub fn bound_text(&self) -> String {
        match (self.min, self.max) {
            (Some(lo), Some(hi)) => format!("{lo}..={hi}"),
            (Some(lo), None) => format!(">= {lo}"),
            (None, Some(hi)) => format!("<= {hi}"),
            (None, None) => "none".into(),
        }
    }
}

/// A parsed budget file.
#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    /// The file.
    pub path: PathBuf,
    /// Counter bounds hold on adapters whose driver contains this.
    pub driver: String,
    /// Render size.
    pub size: [u32; 2],
    /// Measured frames per run.
    pub frames: u32,
    /// Warm-up frames per run.
    pub warmup: u32,
    /// MSAA samples.
    pub msaa: u32,
    /// Every bound, in file order.
    pub bounds: Vec<Bound>,
}

impl Budget {
    /// The benches to run: per preset and place, the tier combinations its
    /// bounds name (their own runs and the `vs` runs), in file order.
    pub fn groups(&self) -> Vec<((String, At), Vec<TierPair>)> {
        let mut out: Vec<((String, At), Vec<TierPair>)> = Vec::new();
        let runs = self
            .bounds
            .iter()
            .flat_map(|b| std::iter::once(&b.run).chain(b.vs.as_ref()));
        for run in runs {
            let key = run.group();
            let i = match out.iter().position(|(k, _)| *k == key) {
                Some(i) => i,
                None => {
                    out.push((key, Vec::new()));
                    out.len() - 1
                }
            };
            if !out[i].1.contains(&run.tier) {
                out[i].1.push(run.tier.clone());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;
