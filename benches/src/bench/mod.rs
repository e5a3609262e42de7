//! `sward bench`: runs tier combinations side by side on one preset, in one
//! process, and writes the `sward-bench/1` report.
//!
//! Order of work: validate every argument and the output directory before the
//! GPU is touched; build the preset once; for each combination (baseline
//! first) warm up, measure frames along the preset's camera path, take the
//! screenshot at the preset's first view; then diff every screenshot against
//! the baseline's and commit the report directory in one step.

mod oneoff;
mod options;
mod run;
mod runner;
mod scale;
mod scale_text;
pub mod soak;

pub use oneoff::{capture, shot, OneOffOptions};
pub use options::{BenchOptions, BenchPlan, StreamMode, StreamPace};
pub use run::{run_bench, BenchOutcome};
pub use scale::{
    parse_scales, parse_size_arg, run_scale, ScaleOptions, ScaleReport, ScaleRow, DEFAULT_SCALES,
    SCALE_SCHEMA,
};
pub use scale_text::{scale_markdown, write_scale, SCALE_JSON, SCALE_MD, SCALE_SVG};
pub use soak::{rss_bytes, run_soak, soak_text, SoakOptions, SoakReport, SoakSample};

use std::path::PathBuf;

/// Why a bench could not start or finish.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A bad argument (preset, tier, size, msaa, counts).
    #[error("{0}")]
    Usage(String),
    /// The preset, the `--data` world or a named view could not be opened
    /// (the resolver every command shares).
    #[error(transparent)]
    Scene(#[from] sward_scenes::presets::SceneError),
    /// No usable GPU.
    #[error(transparent)]
    Gpu(#[from] sward_engine::ContextError),
    /// A renderer could not be built for a tier.
    #[error("tier {tier}: {source}")]
    Pass {
        /// The tier combination.
        tier: String,
        /// Why.
        source: sward_passes::PassError,
    },
    /// A tier refused the scene or the device (an input it cannot hold, a
    /// limit or capability it lacks): the bench records it in the report's
    /// `refused` list and measures the other tiers.
    #[error("tier {tier} refused: {source}")]
    Refused {
        /// The tier combination.
        tier: String,
        /// Why.
        source: sward_passes::PassError,
    },
    /// The frame graph was rejected or wgpu failed while running it.
    #[error("tier {tier}: {source}")]
    Graph {
        /// The tier combination.
        tier: String,
        /// Why.
        source: sward_engine::GraphError,
    },
    /// Reading back or writing an image failed.
    #[error("{what}: {message}")]
    Image {
        /// What was being done.
        what: String,
        /// Why.
        message: String,
    },
    /// Turning samples into report entries failed.
    #[error(transparent)]
    Assemble(#[from] crate::assemble::AssembleError),
    /// Writing the report failed.
    #[error(transparent)]
    Write(#[from] crate::writer::WriteError),
    /// The output directory.
    #[error("output directory {0}: {1}")]
    Out(PathBuf, String),
    /// A budget file that cannot be used (`--budget`).
    #[error(transparent)]
    Budget(#[from] crate::budget::BudgetError),
    /// Bounds of a budget failed (`--budget`): each with its figure and bound.
    #[error("budget {file}: {failed} of {total} bounds failed: {bounds}")]
    BudgetFailed {
        /// The budget file.
        file: String,
        /// Bounds that failed.
        failed: usize,
        /// Bounds checked.
        total: usize,
        /// Every failed bound: run, figure, value and bound.
        bounds: String,
    },
}

#[cfg(test)]
mod tests;
