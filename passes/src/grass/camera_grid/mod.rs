//! Grass `camera-grid`: an immutable camera-centred slot grid whose instance
//! index maps to an integer *world* slot, hashed into jitter, yaw, scale,
//! phase and a model pick, thinned and suppressed by a grass-control texture
//! built from the placement policy's per-cell rules, so the blades match the
//! authoritative placement in distribution, model mix and suppression
//! without uploading any instance data.
//!
//! - [`params`]: grid configuration and maths (camera slot, instance -> slot).
//! - [`control`]: control words per terrain cell.
//! - [`effects`]: the resident window's effects at their palette slots
//!   (the control word's effect index), and a tile's control blocks before
//!   the palette gives its effects slots.
//! - [`blade`]: CPU mirror of the `camera_grid` WGSL snippet.
//! - [`compaction`]: CPU reference of the compaction (which candidates are
//!   kept, where each model's region of the list starts, overflow).
//! - [`gpu`]: WGSL struct mirrors and bind group layouts.
//! - [`resources`]: the resident GPU resources (atlas, control, buffers).
//! - [`fallback`]: the instanced fallback of multi-bone models.
//! - [`tier`]: [`CameraGrid`], the tier, its construction and residency.
//! - [`record`]: what a frame records (direct or compacted drawing);
//!   [`pipelines`]: the compaction's pipelines and pass names.
//! - `report`: the bench report's facts.
//! - [`word`]: the per-cell control word and one MCNK's words.
//!
//! Streaming: when the world streams, the atlas and the control texture
//! cover every tile of the source; a tile made resident or evicted updates
//! its MCNKs' atlas slots and control blocks and its fallback batches in
//! place ([`CameraGrid::set_tile`]), and the palette of resident effects
//! follows them (effects new to the window take slots, effects no resident
//! tile uses free theirs); the grid itself and its candidate count are
//! fixed at build.
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
pub mod compaction;
pub mod control;
pub mod effects;
pub mod fallback;
pub mod gpu;
pub mod params;
pub mod pipelines;
pub mod record;
mod report;
pub mod resources;
pub mod tier;
pub mod word;

#[cfg(test)]
mod tests;

pub use params::{GridMode, GridParams};
pub use tier::{CameraGrid, GridScene};

/// The `spacing` parameter of `camera-grid`.
pub const SPACING_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "spacing",
    kind: crate::technique::ParamKind::Float {
        min: 1.0,
        max: 10.0,
        default: params::DEFAULT_SPACING as f64,
    },
    description: "slot spacing in world units (the grid is sized to cover the grass draw distance)",
};

/// The `mode` parameter of `camera-grid`.
pub const MODE_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "mode",
    kind: crate::technique::ParamKind::Choice {
        values: &["compact", "direct"],
        default: "compact",
    },
    description: "compact: a compute pre-pass compacts visible blades per model; direct: every candidate drawn, rejects collapse in the vertex shader",
};

/// Registry entry of grass `camera-grid`.
pub const ENTRY: crate::technique::TechniqueEntry = crate::technique::TechniqueEntry {
    subsystem: crate::technique::Subsystem::Grass,
    name: "camera-grid",
    summary: "a camera-centred slot grid resolving each doodad's model/material identity from a grass-control texture",
    params: &[SPACING_PARAM, MODE_PARAM],
    requires: &[
        sward_engine::Capability::VertexStorage,
        sward_engine::Capability::R32FloatTexture,
    ],
    fallback: Some("gpu-cull"),
    build: |i, p| {
        let mut params = GridParams::for_distance(
            crate::frame::RenderSettings::default().grass_distance,
            p.float(&SPACING_PARAM) as f32,
        );
        params.mode = match p.text(&MODE_PARAM) {
            "direct" => GridMode::Direct,
            _ => GridMode::Compact,
        };
        let scene = GridScene {
            world: i.scene.world,
            models: i.scene.models,
            effects: i.scene.effects,
            policy: i.scene.policy,
            placements: i.scene.placements.all(),
        };
        let reach = i.scene.atlas_reach();
        let models = crate::grass::GrassModels::shared(i.resources)?;
        Ok(Box::new(CameraGrid::with_reach(
            i.gpu, models, scene, params, reach,
        )?))
    },
};

impl crate::technique::Technique for CameraGrid {
    fn record<'a>(
        &'a mut self,
        inputs: crate::technique::RecordInputs<'a>,
        graph: &mut sward_engine::graph::RenderGraph<'a>,
    ) {
        let models = crate::grass::GrassModels::recorded(inputs.resources);
        CameraGrid::record(self, inputs.frame, graph, models);
    }

    fn gpu_memory_bytes(&self) -> u64 {
        CameraGrid::gpu_memory_bytes(self)
    }

    fn facts(
        &self,
        scene: &crate::technique::SceneData<'_>,
    ) -> std::collections::BTreeMap<String, f64> {
        CameraGrid::facts(self, scene.world)
    }

    fn begin_run(&mut self) {
        CameraGrid::begin_run(self);
    }

    fn tile_preparer(&self) -> Option<crate::technique::SharedPreparer> {
        CameraGrid::tile_preparer(self)
    }

    /// Per tile in place ([`CameraGrid::set_tile`]) while streaming; a
    /// whole-window build, chunk-level changes or a full atlas rebuild.
    fn residency_changed(
        &mut self,
        inputs: &crate::technique::BuildInputs<'_>,
        changes: &[crate::technique::ResidencyChange],
        prepared: &mut crate::technique::PreparedTiles,
    ) -> Result<crate::technique::Residency, crate::error::PassError> {
        if !self.is_streaming() {
            return Ok(crate::technique::Residency::Rebuild);
        }
        let s = &inputs.scene;
        let models = crate::grass::GrassModels::shared(inputs.resources)?;
        let mut released = Vec::new();
        let answer =
            crate::technique::apply_prepared(changes, prepared, s.world, |t, tile_prep| {
                // The old batches are released off the render thread.
                if let Some(old) = self.take_fallback_tile(t) {
                    released.push(old);
                }
                let p = s.placements.tile(t);
                // Only the fallback models' placements are used, and only
                // when there are fallback models.
                let p = p.as_deref().filter(|_| !self.fallback_models().is_empty());
                let scene = GridScene {
                    world: s.world,
                    models: s.models,
                    effects: s.effects,
                    policy: s.policy,
                    placements: p.unwrap_or(&EMPTY),
                };
                self.set_tile(inputs.gpu, models, scene, t, p, tile_prep)
            });
        prepared.discard(released);
        answer
    }
}

/// No placements (a [`GridScene`] for a per-tile update).
static EMPTY: sward_scenes::Placements = sward_scenes::Placements {
    items: Vec::new(),
    groups: Vec::new(),
};
