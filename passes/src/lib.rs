//! sward's rendering techniques. Each technique is a struct that owns its GPU
//! resources and adds its passes to the frame's render graph with a
//! `record(&mut self, frame, graph)` method; every GPU formula has its
//! CPU reference beside it.
//!
//! - [`frame`]: per-frame view, settings and target handles shared by all passes.
//! - [`technique`]: the technique interface, its registry, and tier names with
//!   typed parameters (`--tiers`, `sward tiers`, the report, the viewer).
//! - [`renderer`]: the composer that draws a scene with any tier combination.
//! - [`atlas`]: the exact height/normal atlas shared by the GPU terrain and grass tiers.
//! - [`terrain`], [`grass`]: the techniques.
//! - [`cli`]: the `info`, `tiers` and `clipmap-errors` commands.

pub mod atlas;
pub mod cli;
pub mod error;
pub mod frame;
pub mod grass;
pub mod hiz;
pub mod occlusion_gate;
pub mod renderer;
mod runs;
pub mod technique;
pub mod terrain;

#[cfg(test)]
mod shared_atlas_tests;
#[cfg(test)]
mod streaming_tests;
/// The test binary counts its allocations per thread (the tile-change
/// measurement reads them).
#[cfg(test)]
#[global_allocator]
static ALLOC: sward_profiling::alloc::CountingAlloc = sward_profiling::alloc::CountingAlloc;
#[cfg(test)]
pub(crate) mod testkit;

pub use error::PassError;
pub use frame::{camera_from_pose, Frame, FrameView, PassTargets, RenderSettings};
pub use technique::{Subsystem, Tier, TierCombo, TierParseError};
