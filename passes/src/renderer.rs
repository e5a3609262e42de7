//! The scene renderer: a small composer over the technique registry. It
//! builds each requested tier (technique + parameters) once from the resident
//! world through its registry entry, keeps what it built for later switches,
//! and records a frame's passes in order (terrain, then grass) with the right
//! clear/resolve duties. The bench, `sward shot`, `sward capture` and the
//! viewer all draw through this one type, so every tier is measured the same way.

use sward_engine::graph::{RenderGraph, TextureId};
use sward_engine::{GpuContext, OffscreenTarget};
use sward_scenes::effects::ResolvedEffects;
use sward_scenes::placement::{Placements, Policy};
use sward_scenes::{DetailModel, TileSource, World};

use std::collections::{BTreeMap, HashMap};

use crate::error::PassError;
use crate::frame::{FrameView, PassTargets};
use crate::grass::{GrassModels, TextureUpload, TextureUploadStats};
use crate::technique::{BuildInputs, RecordInputs, Technique, Tier, TierCombo};

/// What the renderer draws: the resident world window and its grass.
#[derive(Clone, Copy)]
pub struct SceneData<'s> {
    /// The resident world (the 3x3 ADT window, or the whole preset when smaller).
    pub world: &'s World,
    /// Detail doodad models, indexed by placement model id.
    pub models: &'s [DetailModel],
    /// Grass placements of the resident window.
    pub placements: &'s Placements,
    /// Resolved ground effects (`camera-grid` resolves models from them).
    pub effects: &'s ResolvedEffects,
    /// The placement policy (`camera-grid` encodes its per-cell rules).
    pub policy: &'s Policy,
    /// Where terrain beyond the resident window comes from (`clipmap`'s
    /// distant levels use its `coarse_height`).
    pub far: Option<&'s dyn TileSource>,
}

impl<'s> SceneData<'s> {
    /// The resident window of a built scene (preset or data directory).
    pub fn from_scene(scene: &'s sward_scenes::presets::Scene) -> Self {
        SceneData {
            world: scene.world(),
            models: &scene.models,
            placements: &scene.placements,
            effects: &scene.resolved,
            policy: scene.policy(),
            far: Some(scene.source.as_ref()),
        }
    }
}

/// Graph handles of an imported [`OffscreenTarget`].
#[derive(Debug, Clone, Copy)]
pub struct TargetIds {
    /// Where passes render colour (multisampled under MSAA).
    pub color: TextureId,
    /// Single-sample resolve target under MSAA.
    pub resolve: Option<TextureId>,
    /// Depth.
    pub depth: TextureId,
}

impl TargetIds {
    /// Imports `target` into `graph`.
    pub fn import(graph: &mut RenderGraph<'_>, target: &OffscreenTarget) -> Self {
        let color = graph.import_texture("target.color", target.render_color());
        let resolve = target
            .resolve_color()
            .map(|t| graph.import_texture("target.resolve", t));
        let depth = graph.import_texture("target.depth", &target.depth);
        TargetIds {
            color,
            resolve,
            depth,
        }
    }
}

/// Draws a [`SceneData`] with any tier combination the device runs.
pub struct SceneRenderer<'s> {
    scene: SceneData<'s>,
    combo: TierCombo,
    texture_upload: TextureUpload,
    models: Option<GrassModels>,
    grass: HashMap<Tier, Box<dyn Technique>>,
    terrain: HashMap<Tier, Box<dyn Technique>>,
}

impl<'s> SceneRenderer<'s> {
    /// A renderer for `scene` that draws nothing until [`Self::set_tiers`].
    pub fn new(scene: SceneData<'s>) -> Self {
        SceneRenderer {
            scene,
            combo: TierCombo::new(
                Tier::off(crate::technique::Subsystem::Grass),
                Tier::off(crate::technique::Subsystem::Terrain),
            ),
            texture_upload: TextureUpload::Auto,
            models: None,
            grass: HashMap::new(),
            terrain: HashMap::new(),
        }
    }

    /// Uploads BC detail textures as `upload` says (default
    /// [`TextureUpload::Auto`]); takes effect when the models are uploaded,
    /// by the first [`Self::set_tiers`].
    pub fn with_texture_upload(mut self, upload: TextureUpload) -> Self {
        self.texture_upload = upload;
        self
    }

    /// How many detail textures went to the GPU each way (`None` before the
    /// first [`Self::set_tiers`] uploads them).
    pub fn texture_stats(&self) -> Option<TextureUploadStats> {
        self.models.as_ref().map(GrassModels::texture_stats)
    }

    /// The combination in use.
    pub fn tiers(&self) -> &TierCombo {
        &self.combo
    }

    /// Switches to `combo`, building (through the registry) each tier it
    /// names that was not built before. The combo must already be capped to
    /// the device (see [`crate::technique::cap_combo`]); a technique that
    /// cannot be built is an error, never a silent swap.
    pub fn set_tiers(&mut self, gpu: &GpuContext, combo: &TierCombo) -> Result<(), PassError> {
        if self.models.is_none() {
            self.models = Some(GrassModels::with_upload(
                gpu,
                self.scene.models,
                self.texture_upload,
            )?);
        }
        let models = self.models.as_ref().expect("built above");
        let inputs = BuildInputs {
            gpu,
            scene: self.scene,
            models,
        };
        for (tier, built) in [
            (&combo.terrain, &mut self.terrain),
            (&combo.grass, &mut self.grass),
        ] {
            if let (Some(entry), false) = (tier.entry(), built.contains_key(tier)) {
                built.insert(tier.clone(), (entry.build)(&inputs, tier.params())?);
            }
        }
        self.combo = combo.clone();
        Ok(())
    }

    fn current(&self) -> impl Iterator<Item = &dyn Technique> {
        [
            self.terrain.get(&self.combo.terrain),
            self.grass.get(&self.combo.grass),
        ]
        .into_iter()
        .flatten()
        .map(|t| t.as_ref())
    }

    /// GPU memory held by the shared detail models (bytes; 0 before the
    /// first [`Self::set_tiers`] uploads them).
    pub fn models_gpu_memory_bytes(&self) -> u64 {
        self.models
            .as_ref()
            .map_or(0, GrassModels::gpu_memory_bytes)
    }

    /// GPU memory held by the current combination's resources (bytes).
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.current().map(|t| t.gpu_memory_bytes()).sum()
    }

    /// Technique-specific facts of the current combination for the bench
    /// report (`camera-grid`: grid configuration, candidates, blades; grass
    /// `gpu-cull`: patch size, patches, entries, which multi-draw ran;
    /// terrain `gpu-cull`: which multi-draw ran, MCNKs kept lately; clipmap:
    /// levels and pieces).
    pub fn facts(&self) -> BTreeMap<String, f64> {
        let mut facts = BTreeMap::new();
        for t in self.current() {
            facts.extend(t.facts(&self.scene));
        }
        facts
    }

    /// Resident terrain triangles (holes excluded) from any built technique
    /// that knows them exactly (the static-chunk path).
    pub fn terrain_triangles(&self) -> Option<u64> {
        self.terrain.values().find_map(|t| t.terrain_triangles())
    }

    /// The view distance the active terrain tier asks for (see
    /// [`Technique::view_distance`]), if any.
    pub fn view_distance(&self) -> Option<f32> {
        self.terrain
            .get(&self.combo.terrain)
            .and_then(|t| t.view_distance())
    }

    /// Adds this frame's passes: terrain first (it clears), grass last (it
    /// resolves MSAA). With both subsystems off a `frame.clear` pass clears.
    pub fn record<'a>(
        &'a mut self,
        gpu: &'a GpuContext,
        graph: &mut RenderGraph<'a>,
        view: &FrameView,
        targets: TargetIds,
    ) {
        let duty = |clear: bool, last: bool| PassTargets {
            color: targets.color,
            depth: targets.depth,
            resolve: if last { targets.resolve } else { None },
            clear,
        };
        let SceneRenderer {
            scene,
            combo,
            models,
            grass,
            terrain,
            ..
        } = self;
        let terrain = terrain.get_mut(&combo.terrain);
        let grass = grass.get_mut(&combo.grass);
        let (Some(models), false) = (models.as_ref(), terrain.is_none() && grass.is_none()) else {
            let (color_load, depth_load) = duty(true, true).load_ops(&view.settings);
            graph
                .add_render_pass("frame.clear")
                .color(targets.color, color_load, targets.resolve)
                .depth(targets.depth, depth_load, wgpu::StoreOp::Store)
                .record(|_| {});
            return;
        };
        let inputs = RecordInputs {
            gpu,
            scene: *scene,
            models,
        };
        let grass_on = grass.is_some();
        let terrain_on = terrain.is_some();
        if let Some(t) = terrain {
            t.record(inputs, graph, view, duty(true, !grass_on));
        }
        if let Some(g) = grass {
            g.record(inputs, graph, view, duty(!terrain_on, true));
        }
    }
}
