//! Profiling plumbing shared by the bench and the viewer:
//! - [`puffin_bridge`]: GPU timestamp scopes as a puffin "GPU" thread, `.puffin`
//!   files, and [`puffin_bridge::report_gpu_frame`] for one frame's passes;
//! - [`clock`]: aligning the GPU timestamp clock with puffin's clock.

#![warn(missing_docs)]

pub mod clock;
pub mod puffin_bridge;

/// A fresh, empty scratch directory unique to this process and call (tests).
#[cfg(test)]
pub(crate) fn test_dir(name: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "sward-profiling-test-{}-{name}-{n}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create test dir");
    dir
}
