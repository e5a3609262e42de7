//! Profiling plumbing shared by the bench and the viewer:
//! - [`puffin_bridge`]: GPU timestamp scopes as a puffin "GPU" thread, `.puffin`
//!   files, and [`puffin_bridge::report_gpu_frame`] for one frame's passes;
//! - [`clock`]: aligning the GPU timestamp clock with puffin's clock;
//! - [`alloc`]: a counting global allocator (allocations per thread, live heap).

#![warn(missing_docs)]

pub mod alloc;
pub mod clock;
pub mod puffin_bridge;

/// A fresh, empty scratch directory unique to this process and call (tests).
#[cfg(test)]
pub(crate) fn test_dir(name: &str) -> std::path::PathBuf {
    sward_engine::testing::scratch_dir("profiling", name)
}
