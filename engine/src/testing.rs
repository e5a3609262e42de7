//! Shared headless GPU context for tests.
//!
//! `gpu()` returns `None` (the test skips, saying so) when no adapter exists,
//! unless `SWARD_REQUIRE_GPU=1`, in which case a missing adapter is a test
//! failure: CI sets it so GPU tests can never be skipped silently.

use std::sync::OnceLock;

use crate::context::{GpuContext, GpuOptions};

/// The process-wide test context, created on first use.
pub fn gpu() -> Option<&'static GpuContext> {
    static GPU: OnceLock<Option<GpuContext>> = OnceLock::new();
    let ctx = GPU.get_or_init(|| match GpuContext::new(&GpuOptions::default()) {
        Ok(ctx) => Some(ctx),
        Err(e) => {
            if require_gpu() {
                panic!("SWARD_REQUIRE_GPU=1 but no GPU context could be created: {e}");
            }
            eprintln!("skipping GPU test: {e}");
            None
        }
    });
    if ctx.is_none() && require_gpu() {
        panic!(
            "SWARD_REQUIRE_GPU=1 but no GPU context could be created (see the first failing test)"
        );
    }
    ctx.as_ref()
}

/// Whether `SWARD_REQUIRE_GPU` is set to something other than `0` or empty.
pub fn require_gpu() -> bool {
    std::env::var("SWARD_REQUIRE_GPU").is_ok_and(|v| !v.is_empty() && v != "0")
}
