//! sward's engine: the headless GPU context and its capabilities, the
//! per-frame render graph with its transient pool
//! and profiling scopes, offscreen targets and readback, and the camera.
//!
//! Start with [`GpuContext::new`], build a [`graph::RenderGraph`] each frame
//! and run it with a [`graph::GraphExecutor`].

pub mod bind;
pub mod camera;
pub mod caps;
pub mod context;
pub mod cpu_clock;
pub mod graph;
pub mod info;
pub mod lagged;
pub mod shader;
pub mod targets;
pub mod test_scene;
pub mod testing;
mod uploads;

pub use camera::{Camera, Frustum};
pub use caps::{Capability, Caps};
pub use context::{AdapterSummary, ContextError, GpuContext, GpuOptions};
pub use graph::{GraphError, GraphExecutor, RenderGraph};
pub use targets::{OffscreenTarget, COLOR_FORMAT, DEPTH_CLEAR, DEPTH_COMPARE, DEPTH_FORMAT};
