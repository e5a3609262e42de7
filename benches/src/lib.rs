//! The A/B bench of sward: the crate a reader opens first to see how every
//! technique is measured against the static-batch baseline.
//!
//! The [`bench`] module drives the GPU (`sward bench`, `shot`, `capture`); the
//! rest is plain data in, files out:
//! - [`assemble`]: per-frame [`RunSamples`] -> report [`Run`]s and [`Comparison`]s;
//! - [`stats`]: median / p95 / p99 / min / max / mean and hitch counting;
//! - [`work`]: GPU work counters, render-thread CPU time and allocations;
//! - [`report`]: the `report.json` model, schema `sward-bench/1`;
//! - [`validate`]: schema and ratio checks on a raw `report.json`;
//! - [`imagediff`]: screenshot differences against the baseline;
//! - [`markdown`]: `report.md` and the terminal headline table;
//! - [`memory`]: grass GPU memory per placement (facts, `report.md` section);
//! - [`numbers`]: how every table writes counts and byte sizes;
//! - [`charts`]: SVG charts beside the report;
//! - [`writer`]: staging and committing a report directory;
//! - [`figures`]: the figures of a run by name (counters, ratios, facts);
//! - [`compare`]: `sward compare`, two reports before and after;
//! - [`budget`]: `sward bench --budget`, bounds on named runs' figures;
//! - [`cli`]: the measuring commands' arguments and what each runs.
//!
//! GPU timestamp scopes reach puffin through `sward_profiling`, which the
//! viewer shares.

#![warn(missing_docs)]

pub mod assemble;
pub mod bench;
pub mod budget;
pub mod charts;
pub mod cli;
pub mod compare;
pub mod figures;
pub mod imagediff;
pub mod markdown;
pub mod memory;
pub mod numbers;
pub mod report;
pub mod stats;
pub mod tail;
pub mod validate;
pub mod work;
pub mod writer;

#[cfg(test)]
pub(crate) mod testutil;

pub use assemble::{build_comparisons, build_run, FrameCounters, FrameSample, RunSamples};
pub use report::{Comparison, ImageDiff, Report, Run, TierPair};
pub use stats::Stats;
pub use validate::validate_report;

#[cfg(test)]
pub(crate) use testutil::test_dir;
