//! Grass `camera-grid`: an immutable camera-centred slot grid whose instance
//! index maps to an integer *world* slot, hashed into jitter, yaw, scale,
//! phase and a model pick, thinned and suppressed by a grass-control texture
//! built from the placement policy's per-cell rules, so the blades match the
//! authoritative placement in distribution, model mix and suppression
//! without uploading any instance data.
//!
//! - [`params`]: grid configuration and maths (camera slot, instance -> slot).
//! - [`control`]: control words per terrain cell and the effect table.
//! - [`blade`]: CPU mirror of the `camera_grid` WGSL snippet.
//! - [`gpu`]: WGSL struct mirrors and bind group layouts.
//! - [`resources`]: the resident GPU resources (atlas, control, buffers).
//! - [`fallback`]: the instanced fallback of multi-bone models.
//! - [`tier`]: [`CameraGrid`], the tier (direct or compacted drawing).
//!
//! Density: with `E` the policy's expected placements in a terrain cell of
//! area `A_c`, slots of area `A_s` and `K` candidates per slot at uniform
//! positions, a candidate is kept with probability `p = E * A_s / (A_c * K)`
//! (`keep_scale * E`, with `keep_scale = spacing_cells^2 / K`). The expected
//! blades in the cell are then `(A_c / A_s) * K * p = E`, and the model is
//! picked with the effect's weights, so per-model expectations match the
//! policy's too. `K` is the smallest count keeping `p <= 1` in the densest
//! cell ([`params::candidates_for`]).

pub mod blade;
pub mod control;
pub mod fallback;
pub mod gpu;
pub mod params;
pub mod resources;
pub mod tier;

#[cfg(test)]
mod tests;

pub use params::{GridMode, GridParams};
pub use tier::{CameraGrid, GridScene};
