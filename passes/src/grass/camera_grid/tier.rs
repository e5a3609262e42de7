//! [`CameraGrid`], the `camera-grid` grass tier: builds the resident grid
//! data once (while the world streams, over the whole source's index
//! window, then updated per tile by [`CameraGrid::set_tile`]: atlas slots,
//! the palette of resident effects, 64 control words per MCNK, fallback
//! batches). What a frame records is in [`super::record`], the report's
//! facts in [`super::report`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Mutex;
use sward_engine::bind;

use glam::Vec4;

use sward_engine::GpuContext;
use sward_scenes::effects::ResolvedEffects;
use sward_scenes::placement::Policy;
use sward_scenes::{DetailModel, Placements, World};

use super::blade::BladeInputs;
use super::effects::{EffectTable, TileControl};
use super::fallback::{fallback_models, Fallback};
use super::gpu::{GridUniform, POLICY_ROTATION, POLICY_WEIGHTED};
use super::params::{camera_slot, candidates_for, GridMode, GridParams, MAX_CANDIDATES};
use super::pipelines::CompactPipelines;
use super::resources::{CompactSizes, GridResources, ARGS_WORDS};
use crate::atlas::HeightAtlas;
use crate::error::PassError;
use crate::frame::FrameView;
use crate::grass::gpu::GRASS_FRAME_BYTES;
use crate::grass::material::MaterialState;
use crate::grass::models::GrassModels;
use crate::grass::static_batch::uniform_buffer;
use sward_engine::lagged::LaggedReadback;

pub use super::pipelines::{PASS_COMPACT, PASS_OFFSETS, PASS_READBACK, PASS_SCATTER};

/// Frames between two readbacks of the compacted counts.
pub const READBACK_EVERY: u64 = 4;

/// What the tier needs from the scene.
#[derive(Clone, Copy)]
pub struct GridScene<'s> {
    /// Resident world.
    pub world: &'s World,
    /// Detail models (CPU side: bones, bounds).
    pub models: &'s [DetailModel],
    /// Resolved ground effects.
    pub effects: &'s ResolvedEffects,
    /// The placement policy whose per-cell rules the control data encodes.
    pub policy: &'s Policy,
    /// Authoritative placements (only the fallback models' are used).
    pub placements: &'s Placements,
}

/// The `camera-grid` tier.
pub struct CameraGrid {
    pub(super) params: GridParams,
    pub(super) mode: GridMode,
    pub(super) candidates: u32,
    pub(super) res: GridResources,
    pub(super) policy_code: u32,
    pub(super) grid_models: Vec<usize>,
    pub(super) fallback: Fallback,
    pub(super) fallback_list: Vec<usize>,
    pub(super) frame_uniform: wgpu::Buffer,
    pub(super) frame_bind_group: wgpu::BindGroup,
    pub(super) shader: wgpu::ShaderModule,
    pub(super) pipeline_layout: wgpu::PipelineLayout,
    pub(super) pipelines: HashMap<(MaterialState, GridMode), wgpu::RenderPipeline>,
    pub(super) states: Vec<(usize, MaterialState)>,
    pub(super) state_key: Option<(u32, bool)>,
    pub(super) compute: Option<CompactPipelines>,
    pub(super) compute_layout: wgpu::BindGroupLayout,
    pub(super) bounds: [f32; 2],
    pub(super) last_uniform: Option<GridUniform>,
    pub(super) readback: Mutex<LaggedReadback>,
    pub(super) frame: u64,
    /// The largest overflow of the compacted list read back this run.
    pub(super) overflow_max: AtomicU64,
    /// Whether the overflow has been warned about.
    pub(super) overflow_warned: AtomicBool,
    /// GPU memory besides the fallback's buffers.
    pub(super) bytes: u64,
    /// Whether the atlas and control texture reach over a streaming
    /// window's source (tiles then change in place).
    pub(super) streaming: bool,
    /// The tile workers' preparer of a streaming build.
    pub(super) preparer: Option<crate::technique::SharedPreparer>,
}

/// What `camera-grid` derives from one streamed tile on the tile workers:
/// its height-atlas tiles, its MCNKs' control blocks (effects by the tile's
/// own index, given palette slots when the tile is placed) and its
/// fallback models' instance batches.
pub struct GridTile {
    atlas: crate::atlas::AtlasTile,
    control: TileControl,
    fallback: Option<Vec<super::fallback::FallbackBatch>>,
}

/// The models the grid draws: those a resident effect can pick (by weight,
/// or any filled slot under the rotation rule), less the fallback's.
fn grid_models_of(
    table: &EffectTable,
    policy_code: u32,
    fallback: &[usize],
    model_count: usize,
) -> Vec<usize> {
    let mut pickable = vec![false; model_count];
    for (slot, _) in table.palette().iter() {
        let e = &table.records[slot as usize];
        for (&m, &w) in e.models.iter().zip(&e.weights) {
            if let Some(p) = pickable.get_mut(m as usize) {
                *p |= w > 0 || policy_code == POLICY_ROTATION;
            }
        }
    }
    (0..model_count)
        .filter(|m| pickable[*m] && !fallback.contains(m))
        .collect()
}

impl CameraGrid {
    /// Builds the tier for `scene` with `params` (validated). Compact mode on
    /// a device without compute falls back to direct with a warning.
    pub fn new(
        gpu: &GpuContext,
        models: &GrassModels,
        scene: GridScene<'_>,
        params: GridParams,
    ) -> Result<Self, PassError> {
        Self::with_reach(gpu, models, scene, params, None)
    }

    /// Like [`Self::new`]; with `reach` (a streaming window) the height
    /// atlas and the control texture cover every tile of the source, so
    /// tiles change in place ([`Self::set_tile`]).
    pub fn with_reach(
        gpu: &GpuContext,
        models: &GrassModels,
        scene: GridScene<'_>,
        params: GridParams,
        reach: Option<crate::atlas::AtlasReach>,
    ) -> Result<Self, PassError> {
        params.validate()?;
        let device = &gpu.device;
        let mut mode = params.mode;
        if mode == GridMode::Compact && !gpu.caps.has(sward_engine::Capability::Compute) {
            log::warn!("grass.camera-grid: no compute on this device; drawing in direct mode");
            mode = GridMode::Direct;
        }
        let atlas = HeightAtlas::with_reach(gpu, scene.world, reach)?;
        let (control, table) =
            GridResources::control_for(scene.world, &atlas, scene.effects, scene.policy)?;
        let spacing_cells = params.spacing_cells();
        // Streaming: sized by what any cell may need, so the count (and
        // the blades) do not depend on the tiles resident at build.
        let max_expected = match reach {
            Some(_) => super::word::max_expected_bound(scene.effects, scene.policy),
            None => control.max_expected(),
        };
        let need = candidates_for(f64::from(max_expected), spacing_cells);
        let candidates = match params.candidates {
            Some(k) => k,
            None if need > MAX_CANDIDATES => {
                log::warn!(
                    "grass.camera-grid: the densest cell needs {need} candidates per slot; \
                     capped at {MAX_CANDIDATES}, denser cells are thinned"
                );
                MAX_CANDIDATES
            }
            None => need,
        };
        let total = params.side * params.side * candidates;
        let policy_code = match scene.policy {
            Policy::PerCell(_) => POLICY_WEIGHTED,
            Policy::Client(_) => POLICY_ROTATION,
            // The 3.3.5 bag follows the slot weights.
            Policy::Client335(_) => POLICY_WEIGHTED,
        };
        let fallback_list = fallback_models(scene.models);
        let fallback = Fallback::new(gpu, &fallback_list, scene.placements, models.len())?;
        let grid_models = grid_models_of(&table, policy_code, &fallback_list, models.len());
        let (render_layout, compute_layout) = GridResources::layouts(device);
        let compact = (mode == GridMode::Compact).then(|| CompactSizes {
            candidates: total,
            capacity: params.list_capacity.unwrap_or(total),
            args: models
                .models
                .iter()
                .flat_map(|m| [m.index_count, 0, m.first_index, m.base_vertex as u32, 0])
                .collect(),
        });
        let res = GridResources::new(
            gpu,
            atlas,
            control,
            table,
            models.len(),
            compact,
            &render_layout,
            (mode == GridMode::Compact).then_some(&compute_layout),
        )?;
        let shader = crate::error::create_shader(
            device,
            sward_wgsl::modules::GRASS_CAMERA_GRID,
            "grass.camera-grid",
        )?;
        let pipeline_layout = bind::pipeline_layout(
            device,
            "grass.grid.draw",
            &[&models.frame_layout, &models.model_layout, &render_layout],
        );
        let compute = match (mode, res.compute_group.is_some()) {
            (GridMode::Compact, true) => Some(CompactPipelines::new(device, &compute_layout)?),
            _ => None,
        };
        let frame_uniform = uniform_buffer(gpu);
        let frame_bind_group = models.frame_bind_group(device, &frame_uniform);
        let radius = scene
            .models
            .iter()
            .map(|m| m.bounds.radius_from_origin())
            .fold(0.0f32, f32::max);
        let height = scene
            .models
            .iter()
            .map(|m| m.bounds.max[2] - m.bounds.min[2])
            .fold(0.0f32, f32::max);
        // The indirect records and the overflow word after them.
        let readback = LaggedReadback::new(
            device,
            "grass.grid.readback",
            models.len().max(1) as u64 * ARGS_WORDS * 4 + 4,
        );
        let bytes = readback.bytes()
            + res.gpu_memory_bytes()
            + GRASS_FRAME_BYTES
            + models.gpu_memory_bytes();
        log::info!(
            "grass.camera-grid: {side}x{side} slots at {sp} units, {candidates} candidates per slot \
             ({total} per draw), {} grid models, {} fallback models, {} mode",
            grid_models.len(),
            fallback_list.len(),
            mode.name(),
            side = params.side,
            sp = params.spacing,
        );
        Ok(CameraGrid {
            params,
            mode,
            candidates,
            res,
            policy_code,
            grid_models,
            fallback,
            fallback_list,
            frame_uniform,
            frame_bind_group,
            shader,
            pipeline_layout,
            pipelines: HashMap::new(),
            states: Vec::new(),
            state_key: None,
            compute,
            compute_layout,
            bounds: [radius * 1.1, height * 1.1],
            last_uniform: None,
            readback: Mutex::new(readback),
            frame: 0,
            overflow_max: AtomicU64::new(0),
            overflow_warned: AtomicBool::new(false),
            bytes,
            streaming: reach.is_some(),
            preparer: None,
        })
        .map(|mut this: Self| {
            if this.streaming {
                this.preparer = Some(this.make_preparer(scene.effects, scene.policy, models.len()));
            }
            this
        })
    }

    /// Takes tile `tile`'s fallback batches out, to be freed elsewhere.
    pub fn take_fallback_tile(
        &mut self,
        tile: sward_scenes::TileCoord,
    ) -> Option<Vec<super::fallback::FallbackBatch>> {
        self.fallback.take_tile(tile)
    }

    /// The tile workers' preparer of a streaming build: each tile's atlas
    /// tiles, control blocks and fallback batches ([`GridTile`]).
    pub fn tile_preparer(&self) -> Option<crate::technique::SharedPreparer> {
        self.preparer.clone()
    }

    /// Whether tiles change in place ([`Self::with_reach`] with a reach).
    pub fn is_streaming(&self) -> bool {
        self.streaming
    }

    /// Tile `tile` of `scene` became resident (replaced if it was) or, when
    /// `scene.world` no longer has it, was evicted: the atlas takes or
    /// frees its MCNKs, its 256 MCNKs' control blocks are rewritten (not
    /// resident ones as outside), and its fallback batches are made or
    /// dropped. Work proportional to the tile. Returns the bytes uploaded,
    /// or `None` when the atlas has no room (rebuild then).
    pub fn set_tile(
        &mut self,
        gpu: &GpuContext,
        models: &GrassModels,
        scene: GridScene<'_>,
        tile: sward_scenes::TileCoord,
        placements: Option<&Placements>,
        prepared: Option<GridTile>,
    ) -> Result<Option<u64>, PassError> {
        let (atlas, control, batches) = match prepared {
            Some(p) => (Some(p.atlas), Some(p.control), p.fallback),
            None => (None, None, None),
        };
        let Some(mut bytes) =
            self.res
                .atlas
                .set_tile_prepared(gpu, scene.world, tile, atlas.as_ref())?
        else {
            return Ok(None);
        };
        let control = match control {
            Some(c) => c,
            None => TileControl::build(
                scene.world.tile(tile).map(|t| &**t),
                tile,
                scene.effects,
                scene.policy,
            ),
        };
        bytes += self
            .res
            .set_tile_control(gpu, tile, &control, scene.effects)?;
        let grid_models = grid_models_of(
            &self.res.table,
            self.policy_code,
            &self.fallback_list,
            models.len(),
        );
        if grid_models != self.grid_models {
            // The draw list follows the resident effects' models.
            self.grid_models = grid_models;
            self.state_key = None;
        }
        bytes += self
            .fallback
            .set_tile(gpu, tile, placements, models.len(), batches)?;
        // The lagged counts carry on: the previous world's until the next
        // readback, never the all-candidates upper bound of a fresh build.
        Ok(Some(bytes))
    }

    /// A preparer for the tile workers: a tile's atlas tiles, control
    /// blocks and fallback batches ([`GridTile`]). `effects` and `policy`
    /// are the scene's (the preparer keeps its own copies).
    fn make_preparer(
        &self,
        effects: &ResolvedEffects,
        policy: &sward_scenes::Policy,
        model_count: usize,
    ) -> crate::technique::SharedPreparer {
        let (effects, policy) = (effects.clone(), *policy);
        let fallback = self.fallback.models().to_vec();
        std::sync::Arc::new(crate::technique::FnPreparer(
            move |i: &crate::technique::PrepareInputs<'_>| {
                let t = i.tile;
                let control = TileControl::build(Some(t), i.coord, &effects, &policy);
                let fallback = if fallback.is_empty() || i.placements.is_empty() {
                    None
                } else {
                    Some(super::fallback::batches(
                        i.device,
                        &fallback,
                        i.placements,
                        model_count,
                    )?)
                };
                Ok(GridTile {
                    atlas: crate::atlas::AtlasTile::prepare(t).staged(i.device),
                    control,
                    fallback,
                })
            },
        ))
    }

    /// Candidates evaluated per draw (`side^2 * candidates`).
    pub fn candidates_total(&self) -> u32 {
        self.params.side * self.params.side * self.candidates
    }

    /// Candidates per slot in use.
    pub fn candidates(&self) -> u32 {
        self.candidates
    }

    /// The drawing mode in use.
    pub fn mode(&self) -> GridMode {
        self.mode
    }

    /// The grid parameters.
    pub fn params(&self) -> &GridParams {
        &self.params
    }

    /// Models drawn by the grid (pickable, not in the fallback).
    pub fn grid_models(&self) -> &[usize] {
        &self.grid_models
    }

    /// Models drawn by the instanced fallback.
    pub fn fallback_models(&self) -> &[usize] {
        &self.fallback_list
    }

    /// The resident resources (control data, atlas, effect table).
    pub fn resources(&self) -> &GridResources {
        &self.res
    }

    /// Mutable resources (per-MCNK control updates).
    pub fn resources_mut(&mut self) -> &mut GridResources {
        &mut self.res
    }

    /// The compute flavour of group 2 and its bind group (compact mode), for
    /// probes that evaluate the grid with the tier's own resources.
    pub fn compute_group(&self) -> Option<(&wgpu::BindGroupLayout, &wgpu::BindGroup)> {
        self.res
            .compute_group
            .as_ref()
            .map(|g| (&self.compute_layout, g))
    }

    /// The (model, pipeline state) pairs last drawn with.
    pub fn material_states(&self) -> &[(usize, MaterialState)] {
        &self.states
    }

    /// GPU memory of the tier (resources, uniforms, shared models, fallback).
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.bytes + self.fallback.gpu_memory_bytes()
    }

    /// The grid uniforms for `view`.
    pub fn uniform(&self, view: &FrameView, model_count: usize) -> GridUniform {
        let eye = view.eye();
        let spacing_cells = self.params.spacing_cells();
        let s = &view.settings;
        let origin = self.res.control.window.origin;
        GridUniform {
            camera_slot: camera_slot(f64::from(eye.x), f64::from(eye.y), spacing_cells),
            chunk_origin: [origin[0] as i32, origin[1] as i32],
            side: self.params.side,
            candidates: self.candidates,
            spacing_cells: spacing_cells as f32,
            keep_scale: (spacing_cells * spacing_cells / f64::from(self.candidates)) as f32,
            phase_spread: self.params.phase_spread,
            policy: self.policy_code,
            model_count: model_count as u32,
            frustum_cull: u32::from(self.params.frustum_cull),
            eye: eye.extend(s.grass_distance),
            bounds: Vec4::new(self.bounds[0], self.bounds[1] * s.wind_amplitude, 0.0, 0.0),
            wind_phase: Vec4::new(s.wind_phase[0], s.wind_phase[1], 0.0, 0.0),
            frustum: view.frustum.planes,
        }
    }

    /// The CPU mirror's inputs for this tier.
    pub fn blade_inputs<'a>(&'a self, world: &'a World, u: &GridUniform) -> BladeInputs<'a> {
        BladeInputs {
            spacing_cells: u.spacing_cells,
            keep_scale: u.keep_scale,
            phase_spread: u.phase_spread,
            policy: u.policy,
            model_count: u.model_count,
            control: &self.res.control,
            effects: &self.res.table.records,
            world,
        }
    }
}
