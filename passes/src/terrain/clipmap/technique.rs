//! The `clipmap` tier as the registry and the renderer see it: its
//! parameters ([`ENTRY`]: `block`, `distance`, `pixel_error`, `refine`,
//! `occlusion`) and the [`crate::technique::Technique`] impl, which hands
//! each call to the [`Clipmap`] method that does the work (the technique
//! itself is described in `setup.rs`).

use std::collections::BTreeMap;

use sward_engine::graph::RenderGraph;
use sward_engine::GpuContext;

use super::layout::DEFAULT_BLOCK;
use super::lod;
use super::state::{Clipmap, Occlusion};
use super::TECHNIQUE;
use crate::error::PassError;
use crate::technique::{RecordInputs, Residency, ResidencyChange};

/// The `block` parameter of `clipmap`.
const BLOCK_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "block",
    kind: crate::technique::ParamKind::IntChoice {
        values: &[16, 32, 64],
        default: DEFAULT_BLOCK as i64,
    },
    description: "quads per side of a level block (each level is 4 blocks wide plus fix-up strips)",
};

/// The `distance` parameter of `clipmap`: the view distance the levels are
/// sized for (0, the default: the frame's terrain distance, i.e. what
/// `--view-distance` sets).
const DISTANCE_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "distance",
    kind: crate::technique::ParamKind::Float {
        min: 0.0,
        max: 50_000.0,
        default: 0.0,
    },
    description: "view distance in world units the levels reach (the bench scales the fog with it); 0: the frame's terrain distance (--view-distance)",
};

/// The `pixel_error` parameter of `clipmap`: the screen-space error bound
/// under which a ring block is drawn at half resolution.
const PIXEL_ERROR_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "pixel_error",
    kind: crate::technique::ParamKind::Float {
        min: 0.0,
        max: 64.0,
        default: lod::DEFAULT_PIXEL_ERROR,
    },
    description: "draw a ring block at half resolution when that moves its surface by at most this many pixels (estimated from the far grid); 0: every block at full resolution",
};

/// The `refine` parameter of `clipmap`: the height error bound over which
/// a tile of a coarse level is drawn on the finer lattice.
const REFINE_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "refine",
    kind: crate::technique::ParamKind::Float {
        min: 0.0,
        max: 1000.0,
        // The accuracy target's bound.
        default: super::refine::BOUND,
    },
    description: "draw a 4 x 4-quad tile of a coarse level on the next finer level's lattice where the level's own surface misses the exact heights by more than this many world units (flagged when the levels are built, and on a worker thread after the resident world changes; 2 meets the accuracy target); 0: never",
};

/// The `occlusion` parameter of `clipmap`.
const OCCLUSION_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "occlusion",
    kind: crate::technique::ParamKind::Choice {
        values: &["off", "on", "auto"],
        default: "off",
    },
    description: "two-phase Hi-Z occlusion of blocks and sub-blocks (boxes from per-tile height ranges): test against last frame's pyramid, draw, rebuild it, re-test the rejected against this frame's; auto runs it only while it hides at least 20% of the parts it tests",
};

/// The `distance` parameter as an optional view distance; values between 0
/// and 100 units are refused (a level-0 ring alone reaches 133 units).
fn distance_of(params: &crate::technique::Params) -> Result<Option<f32>, PassError> {
    let d = params.float(&DISTANCE_PARAM);
    if d == 0.0 {
        Ok(None)
    } else if d < 100.0 {
        Err(PassError::InvalidParams {
            technique: TECHNIQUE,
            reason: format!(
                "distance={d}: use 0 (the frame's terrain distance) or at least 100 world units"
            ),
        })
    } else {
        Ok(Some(d as f32))
    }
}

/// Registry entry of terrain `clipmap`.
pub const ENTRY: crate::technique::TechniqueEntry = crate::technique::TechniqueEntry {
    subsystem: crate::technique::Subsystem::Terrain,
    name: "clipmap",
    summary: "geometry clipmaps: nested camera-centred rings, level 0 exact, holes and MCNK seams preserved",
    params: &[
        BLOCK_PARAM,
        DISTANCE_PARAM,
        PIXEL_ERROR_PARAM,
        REFINE_PARAM,
        OCCLUSION_PARAM,
    ],
    requires: &[
        sward_engine::Capability::R32FloatTexture,
        sward_engine::Capability::VertexStorage,
        sward_engine::Capability::Compute,
        sward_engine::Capability::MultiDrawIndirect,
    ],
    fallback: Some("gpu-cull"),
    build: |i, params| {
        let block = params.int(&BLOCK_PARAM) as u32;
        let distance = distance_of(params)?;
        let occlusion = match params.text(&OCCLUSION_PARAM) {
            "on" => Occlusion::On,
            "auto" => Occlusion::Auto,
            _ => Occlusion::Off,
        };
        let mut clipmap = Clipmap::build(
            i.gpu,
            i.scene.world,
            block,
            distance,
            i.scene.atlas_reach(),
            occlusion,
            i.texture_upload,
        )?;
        clipmap.set_pixel_error(params.float(&PIXEL_ERROR_PARAM));
        clipmap.set_refine(params.float(&REFINE_PARAM));
        Ok(Box::new(clipmap))
    },
};

impl crate::technique::Technique for Clipmap {
    fn record<'a>(&'a mut self, inputs: RecordInputs<'a>, graph: &mut RenderGraph<'a>) {
        let scene = inputs.scene;
        Clipmap::record(self, inputs.frame, graph, scene.world, scene.far);
    }

    fn gpu_memory_bytes(&self) -> u64 {
        Clipmap::gpu_memory_bytes(self)
    }

    fn facts(&self, _scene: &crate::technique::SceneData<'_>) -> BTreeMap<String, f64> {
        Clipmap::facts(self)
    }

    fn read_back_facts(&self, gpu: &GpuContext) -> BTreeMap<String, f64> {
        self.level_facts(gpu)
    }

    fn view_distance(&self) -> Option<f32> {
        Clipmap::view_distance(self)
    }

    fn residency_changed(
        &mut self,
        inputs: &crate::technique::BuildInputs<'_>,
        changes: &[ResidencyChange],
        prepared: &mut crate::technique::PreparedTiles,
    ) -> Result<Residency, PassError> {
        self.apply_residency(
            inputs.gpu,
            inputs.scene.world,
            inputs.scene.atlas_reach(),
            changes,
            prepared,
        )
    }

    fn begin_run(&mut self) {
        if let Some(g) = self.cull.occlusion.as_mut().and_then(|o| o.gate.as_mut()) {
            g.restart_counts();
        }
        self.rebakes = 0;
        self.rebake_ms_max = 0.0;
    }

    fn settle(&mut self, gpu: &GpuContext) {
        // The running bake, then the queued one.
        while self.pending_bake.is_some() {
            self.poll_rebake(gpu, true);
        }
    }

    fn tile_preparer(&self) -> Option<crate::technique::SharedPreparer> {
        self.reach
            .is_some()
            .then(crate::terrain::TerrainTile::preparer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::FrameView;
    use crate::technique::{Subsystem, Tier, TierCombo};

    fn distance(text: &str) -> Result<Option<f32>, PassError> {
        let tier = Tier::parse(Subsystem::Terrain, text).expect("parses");
        distance_of(tier.params())
    }

    /// `clipmap:distance=N` sizes the levels for `N` units whatever the
    /// frame's terrain distance; the default follows the frame; nonsense is
    /// refused with the parameter named.
    #[test]
    fn distance_parameter_sizes_the_levels() {
        assert_eq!(distance("clipmap").expect("default"), None);
        assert_eq!(
            distance("clipmap:distance=8000").expect("8000"),
            Some(8000.0)
        );
        let err = distance("clipmap:distance=50").expect_err("too short");
        assert!(err.to_string().contains("distance=50"), "{err}");
        assert!(Tier::parse(Subsystem::Terrain, "clipmap:distance=-1").is_err());
        assert!(Tier::parse(Subsystem::Terrain, "clipmap:distance=1e9").is_err());
        // Two distances are two tiers of one bench run.
        let combos = TierCombo::parse_list("off+clipmap:distance=1000,off+clipmap:distance=8000")
            .expect("list");
        assert_eq!(combos.len(), 2);
        assert_ne!(combos[0], combos[1]);

        let Some(gpu) = sward_engine::testing::gpu() else {
            return;
        };
        let world = crate::terrain::testutil::cliff_world();
        let frame = |d: f32| {
            let settings = crate::frame::RenderSettings {
                terrain_distance: d,
                ..Default::default()
            };
            FrameView::new(Default::default(), [64, 64], 1, 0.0, settings)
        };
        let follow = Clipmap::with_options(&gpu, &world, 32, None).expect("builds");
        assert_eq!(follow.view_distance(), None);
        assert_eq!(follow.config_for(&frame(1000.0)).levels, 4);
        assert_eq!(follow.config_for(&frame(8000.0)).levels, 7);
        let far = Clipmap::with_options(&gpu, &world, 32, Some(8000.0)).expect("builds");
        assert_eq!(far.view_distance(), Some(8000.0));
        assert_eq!(far.config_for(&frame(1000.0)).levels, 7);
        let bad = Clipmap::with_options(&gpu, &world, 32, Some(f32::NAN));
        assert!(bad.is_err());
    }
}
