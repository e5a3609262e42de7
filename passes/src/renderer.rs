//! The scene renderer facade: owns one instance of each technique that the
//! current tier combination needs, builds them lazily from the resident world,
//! and records a frame's passes in order (terrain, then grass) with the right
//! clear/resolve duties. The bench, `sward shot`, `sward capture` and the
//! viewer all draw through this one type, so every tier is measured the same way.

use sward_engine::graph::{RenderGraph, TextureId};
use sward_engine::tiers::{GrassTier, TerrainTier, TierCombo};
use sward_engine::{GpuContext, OffscreenTarget};
use sward_scenes::effects::ResolvedEffects;
use sward_scenes::placement::{Placements, Policy};
use sward_scenes::{DetailModel, TileSource, World};

use crate::atlas::HeightAtlas;
use crate::error::PassError;
use crate::frame::{FrameView, PassTargets};
use crate::grass::camera_grid::{CameraGrid, GridMode, GridParams, GridScene};
use crate::grass::gpu_cull::{GpuCull, GpuCullOptions, PatchSize};
use crate::grass::{GrassModels, LegacyCpu, StaticBatch};
use crate::terrain::clipmap::Clipmap;
use crate::terrain::{AtlasInstanced, GpuCullTerrain, StaticChunks};

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

/// Draws a [`SceneData`] with any supported tier combination.
pub struct SceneRenderer<'s> {
    scene: SceneData<'s>,
    combo: TierCombo,
    terrain_static: Option<StaticChunks>,
    terrain_atlas: Option<AtlasInstanced>,
    terrain_gpu_cull: Option<GpuCullTerrain>,
    terrain_clipmap: Option<Clipmap>,
    grass_models: Option<GrassModels>,
    grass_static: Option<StaticBatch>,
    grass_legacy: Option<LegacyCpu>,
    grass_gpu_cull: Option<GpuCull>,
    gpu_cull_options: Option<GpuCullOptions>,
    height_atlas: Option<HeightAtlas>,
    grass_grid: Option<CameraGrid>,
    grid_params: GridParams,
}

impl<'s> SceneRenderer<'s> {
    /// A renderer for `scene` that draws nothing until [`Self::set_tiers`].
    pub fn new(scene: SceneData<'s>) -> Self {
        SceneRenderer {
            scene,
            combo: TierCombo {
                grass: GrassTier::Off,
                terrain: TerrainTier::Off,
            },
            terrain_static: None,
            terrain_atlas: None,
            terrain_gpu_cull: None,
            terrain_clipmap: None,
            grass_models: None,
            grass_static: None,
            grass_legacy: None,
            grass_gpu_cull: None,
            gpu_cull_options: None,
            height_atlas: None,
            grass_grid: None,
            grid_params: GridParams {
                mode: GridMode::from_env(),
                ..GridParams::default()
            },
        }
    }

    /// Sets the `camera-grid` parameters (default: the 181 x 181 grid, mode from
    /// `SWARD_CAMERA_GRID_MODE`); a built grid is rebuilt on next use.
    pub fn set_grid_params(&mut self, params: GridParams) {
        if params != self.grid_params {
            self.grid_params = params;
            self.grass_grid = None;
        }
    }

    /// Sets the `gpu-cull` options (default: patch size from
    /// `SWARD_GRASS_PATCH`, the best multi-draw of the device); a built tier
    /// is rebuilt on next use.
    pub fn set_gpu_cull_options(&mut self, options: GpuCullOptions) {
        if self.gpu_cull_options != Some(options) {
            self.gpu_cull_options = Some(options);
            self.grass_gpu_cull = None;
        }
    }

    /// The combination in use.
    pub fn tiers(&self) -> TierCombo {
        self.combo
    }

    /// Switches to `combo`, building what it needs on first use. The combo must
    /// already be capped to the device (see `Caps::cap_combo`); a tier that this
    /// build of sward does not implement yet is an error, never a silent swap.
    pub fn set_tiers(&mut self, gpu: &GpuContext, combo: TierCombo) -> Result<(), PassError> {
        match combo.terrain {
            TerrainTier::Off => {}
            TerrainTier::StaticChunks => {
                if self.terrain_static.is_none() {
                    self.terrain_static = Some(StaticChunks::new(gpu, self.scene.world)?);
                }
            }
            TerrainTier::AtlasInstanced => {
                if self.terrain_atlas.is_none() {
                    self.terrain_atlas = Some(AtlasInstanced::new(gpu, self.scene.world)?);
                }
            }
            TerrainTier::GpuCull => {
                if self.terrain_gpu_cull.is_none() {
                    self.terrain_gpu_cull = Some(GpuCullTerrain::new(gpu, self.scene.world)?);
                }
            }
            TerrainTier::Clipmap => {
                if self.terrain_clipmap.is_none() {
                    self.terrain_clipmap = Some(Clipmap::new(gpu, self.scene.world)?);
                }
            }
        }
        if combo.grass != GrassTier::Off && self.grass_models.is_none() {
            self.grass_models = Some(GrassModels::new(gpu, self.scene.models)?);
        }
        let SceneRenderer {
            scene,
            grass_models,
            grass_static,
            grass_legacy,
            grass_grid,
            grid_params,
            grass_gpu_cull,
            gpu_cull_options,
            height_atlas,
            ..
        } = self;
        match (combo.grass, grass_models.as_ref()) {
            (GrassTier::Off, _) => {}
            (GrassTier::StaticBatch, Some(models)) => {
                if grass_static.is_none() {
                    *grass_static = Some(StaticBatch::new(gpu, models, scene.placements)?);
                }
            }
            (GrassTier::LegacyCpu, Some(models)) => {
                if grass_legacy.is_none() {
                    *grass_legacy = Some(LegacyCpu::new(gpu, models, scene.placements)?);
                }
            }
            (GrassTier::GpuCull, Some(models)) => {
                if grass_gpu_cull.is_none() {
                    if height_atlas.is_none() {
                        *height_atlas = Some(HeightAtlas::new(gpu, scene.world)?);
                    }
                    let options = match gpu_cull_options {
                        Some(o) => *o,
                        None => GpuCullOptions {
                            patch: PatchSize::from_env()?,
                            multi_draw: None,
                        },
                    };
                    if let Some(atlas) = height_atlas.as_ref() {
                        *grass_gpu_cull = Some(GpuCull::new(
                            gpu,
                            models,
                            scene.world,
                            scene.placements,
                            atlas,
                            options,
                        )?);
                    }
                }
            }
            (GrassTier::CameraGrid, Some(models)) => {
                if grass_grid.is_none() {
                    let grid_scene = GridScene {
                        world: scene.world,
                        models: scene.models,
                        effects: scene.effects,
                        policy: scene.policy,
                        placements: scene.placements,
                    };
                    *grass_grid = Some(CameraGrid::new(gpu, models, grid_scene, *grid_params)?);
                }
            }
            (other, _) => return Err(PassError::TierNotBuilt(other.to_string())),
        }
        self.combo = combo;
        Ok(())
    }

    /// GPU memory held by the current combination's resources (bytes).
    pub fn gpu_memory_bytes(&self) -> u64 {
        let mut total = 0;
        if self.combo.terrain == TerrainTier::StaticChunks {
            total += self
                .terrain_static
                .as_ref()
                .map_or(0, |t| t.gpu_memory_bytes());
        }
        total += match self.combo.terrain {
            TerrainTier::AtlasInstanced => self
                .terrain_atlas
                .as_ref()
                .map_or(0, |t| t.gpu_memory_bytes()),
            TerrainTier::GpuCull => self
                .terrain_gpu_cull
                .as_ref()
                .map_or(0, |t| t.gpu_memory_bytes()),
            TerrainTier::Clipmap => self
                .terrain_clipmap
                .as_ref()
                .map_or(0, |t| t.gpu_memory_bytes()),
            _ => 0,
        };
        match self.combo.grass {
            GrassTier::StaticBatch => {
                total += self
                    .grass_static
                    .as_ref()
                    .map_or(0, |g| g.gpu_memory_bytes());
            }
            GrassTier::LegacyCpu => {
                total += self
                    .grass_legacy
                    .as_ref()
                    .map_or(0, |g| g.gpu_memory_bytes());
            }
            GrassTier::CameraGrid => {
                total += self.grass_grid.as_ref().map_or(0, |g| g.gpu_memory_bytes());
            }
            GrassTier::GpuCull => {
                total += self
                    .grass_gpu_cull
                    .as_ref()
                    .map_or(0, |g| g.gpu_memory_bytes());
                total += self
                    .height_atlas
                    .as_ref()
                    .map_or(0, |a| a.gpu_memory_bytes());
            }
            _ => {}
        }
        total
    }

    /// Tier-specific facts of the current combination for the bench report
    /// (`camera-grid`: grid configuration, candidates evaluated, blades;
    /// grass `gpu-cull`: patch size, patches, entries, which multi-draw ran;
    /// terrain `gpu-cull`: which multi-draw ran, MCNKs kept lately).
    pub fn facts(&self) -> std::collections::BTreeMap<String, f64> {
        let mut facts = self.grass_facts();
        if let (TerrainTier::GpuCull, Some(t)) = (self.combo.terrain, &self.terrain_gpu_cull) {
            facts.extend(t.facts());
        }
        if let (TerrainTier::Clipmap, Some(t)) = (self.combo.terrain, &self.terrain_clipmap) {
            facts.extend(t.facts());
        }
        facts
    }

    /// The grass tier's part of [`Self::facts`].
    fn grass_facts(&self) -> std::collections::BTreeMap<String, f64> {
        match (self.combo.grass, &self.grass_grid) {
            (GrassTier::CameraGrid, Some(g)) => g.facts(self.scene.world),
            (GrassTier::GpuCull, _) => self
                .grass_gpu_cull
                .as_ref()
                .map(GpuCull::facts)
                .unwrap_or_default(),
            _ => Default::default(),
        }
    }

    /// Resident terrain triangles of the static-chunk path (holes excluded).
    pub fn terrain_triangles(&self) -> Option<u64> {
        self.terrain_static.as_ref().map(|t| t.triangle_count())
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
        let terrain_on = self.combo.terrain != TerrainTier::Off;
        let grass_on = self.combo.grass != GrassTier::Off;
        let duty = |clear: bool, last: bool| PassTargets {
            color: targets.color,
            depth: targets.depth,
            resolve: if last { targets.resolve } else { None },
            clear,
        };
        if !terrain_on && !grass_on {
            let (color_load, depth_load) = duty(true, true).load_ops(&view.settings);
            graph
                .add_render_pass("frame.clear")
                .color(targets.color, color_load, targets.resolve)
                .depth(targets.depth, depth_load, wgpu::StoreOp::Store)
                .record(|_| {});
            return;
        }
        let SceneRenderer {
            combo,
            terrain_static,
            terrain_atlas,
            terrain_gpu_cull,
            terrain_clipmap,
            grass_models,
            grass_static,
            grass_legacy,
            grass_grid,
            grass_gpu_cull,
            scene,
            ..
        } = self;
        if let (TerrainTier::StaticChunks, Some(t)) = (combo.terrain, terrain_static.as_mut()) {
            t.record(gpu, graph, view, duty(true, !grass_on));
        }
        match (combo.terrain, terrain_atlas, terrain_gpu_cull) {
            (TerrainTier::AtlasInstanced, Some(t), _) => {
                t.record(gpu, graph, view, duty(true, !grass_on));
            }
            (TerrainTier::GpuCull, _, Some(t)) => t.record(gpu, graph, view, duty(true, !grass_on)),
            _ => {}
        }
        if let (TerrainTier::Clipmap, Some(t)) = (combo.terrain, terrain_clipmap.as_mut()) {
            t.record(
                gpu,
                graph,
                view,
                duty(true, !grass_on),
                scene.world,
                scene.far,
            );
        }
        let (Some(models), true) = (grass_models.as_ref(), grass_on) else {
            return;
        };
        let grass_targets = duty(!terrain_on, true);
        match combo.grass {
            GrassTier::StaticBatch => {
                if let Some(g) = grass_static.as_mut() {
                    g.record(gpu, graph, view, grass_targets, models);
                }
            }
            GrassTier::LegacyCpu => {
                if let Some(g) = grass_legacy.as_mut() {
                    g.record(gpu, graph, view, grass_targets, models);
                }
            }
            GrassTier::CameraGrid => {
                if let Some(g) = grass_grid.as_mut() {
                    g.record(gpu, graph, view, grass_targets, models);
                }
            }
            GrassTier::GpuCull => {
                if let Some(g) = grass_gpu_cull.as_mut() {
                    g.record(gpu, graph, view, grass_targets, models);
                }
            }
            _ => {}
        }
    }
}

/// Whether this build can draw `combo` (tiers of later issues are not built yet).
pub fn implemented(combo: TierCombo) -> bool {
    let grass = matches!(
        combo.grass,
        GrassTier::Off
            | GrassTier::StaticBatch
            | GrassTier::LegacyCpu
            | GrassTier::GpuCull
            | GrassTier::CameraGrid
    );
    let terrain = matches!(
        combo.terrain,
        TerrainTier::Off
            | TerrainTier::StaticChunks
            | TerrainTier::AtlasInstanced
            | TerrainTier::GpuCull
            | TerrainTier::Clipmap
    );
    grass && terrain && !(combo.grass == GrassTier::Off && combo.terrain == TerrainTier::Off)
}

/// The implemented tiers, for error messages.
pub fn implemented_tiers() -> String {
    let grass: Vec<&str> = GrassTier::ALL
        .into_iter()
        .filter(|g| implemented(TierCombo::new(*g, TerrainTier::StaticChunks)))
        .map(|g| g.name())
        .collect();
    let terrain: Vec<&str> = TerrainTier::ALL
        .into_iter()
        .filter(|t| implemented(TierCombo::new(GrassTier::StaticBatch, *t)))
        .map(|t| t.name())
        .collect();
    format!("grass {}; terrain {}", grass.join(", "), terrain.join(", "))
}

/// Combinations with one subsystem off, which isolate each subsystem's cost:
/// grass alone over a cleared target, and terrain alone.
pub fn single_subsystem_combos() -> Vec<TierCombo> {
    let mut out = Vec::new();
    for g in GrassTier::ALL.into_iter().filter(|g| *g != GrassTier::Off) {
        out.push(TierCombo::new(g, TerrainTier::Off));
    }
    for t in TerrainTier::ALL
        .into_iter()
        .filter(|t| *t != TerrainTier::Off)
    {
        out.push(TierCombo::new(GrassTier::Off, t));
    }
    out
}
