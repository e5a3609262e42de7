//! [`CameraGrid`], the `camera-grid` grass tier: builds the resident grid
//! data once (while the world streams, over the whole source's index
//! window, then updated per tile by [`CameraGrid::set_tile`]: atlas slots,
//! 64 control words per MCNK, fallback batches) and, every frame, writes
//! one uniform block and
//! draws each grid model once (direct), or runs the compaction pre-pass and
//! draws each model with one indexed indirect draw (compact). Multi-bone
//! models are drawn by the instanced fallback in the same pass.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use sward_engine::bind;

use glam::Vec4;

use sward_engine::graph::RenderGraph;
use sward_engine::GpuContext;
use sward_scenes::effects::ResolvedEffects;
use sward_scenes::placement::Policy;
use sward_scenes::{DetailModel, Placements, World};

use super::blade::{grid_blade, BladeInputs, Status};
use super::fallback::{fallback_models, Fallback};
use super::gpu::{GridUniform, DRAW_STRIDE, POLICY_ROTATION, POLICY_WEIGHTED};
use super::params::{
    camera_slot, candidates_for, instance_slot, GridMode, GridParams, MAX_CANDIDATES,
};
use super::resources::{GridResources, ARGS_WORDS, UNIFORM_BYTES};
use crate::atlas::HeightAtlas;
use crate::error::PassError;
use crate::frame::{FrameView, PassTargets};
use crate::grass::draw::add_draw_pass;
use crate::grass::gpu::{GrassFrame, GRASS_FRAME_BYTES};
use crate::grass::material::{material_pipeline_desc, MaterialState};
use crate::grass::models::GrassModels;
use crate::grass::static_batch::uniform_buffer;
use sward_engine::lagged::LaggedReadback;

/// Name of the compaction pass.
pub const PASS_COMPACT: &str = "grass.grid.compact";
/// Name of the transfer pass copying the indirect args for readback.
pub const PASS_READBACK: &str = "grass.grid.readback";
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
    params: GridParams,
    mode: GridMode,
    candidates: u32,
    res: GridResources,
    policy_code: u32,
    grid_models: Vec<usize>,
    fallback: Fallback,
    fallback_list: Vec<usize>,
    frame_uniform: wgpu::Buffer,
    frame_bind_group: wgpu::BindGroup,
    shader: wgpu::ShaderModule,
    pipeline_layout: wgpu::PipelineLayout,
    pipelines: HashMap<(MaterialState, GridMode), wgpu::RenderPipeline>,
    states: Vec<(usize, MaterialState)>,
    state_key: Option<(u32, bool)>,
    compute: Option<(wgpu::ComputePipeline, wgpu::BindGroup)>,
    compute_layout: wgpu::BindGroupLayout,
    bounds: [f32; 2],
    last_uniform: Option<GridUniform>,
    readback: Mutex<LaggedReadback>,
    frame: u64,
    /// GPU memory besides the fallback's buffers.
    bytes: u64,
    /// Whether the atlas and control texture reach over a streaming
    /// window's source (tiles then change in place).
    streaming: bool,
    /// The tile workers' preparer of a streaming build.
    preparer: Option<crate::technique::SharedPreparer>,
}

fn shader_error(source: sward_wgsl::ShaderError) -> PassError {
    PassError::Shader {
        technique: "grass.camera-grid",
        source,
    }
}

/// What `camera-grid` derives from one streamed tile on the tile workers:
/// its height-atlas tiles, its MCNKs' control blocks and its fallback
/// models' instance batches.
pub struct GridTile {
    atlas: crate::atlas::AtlasTile,
    /// Per MCNK `(ix, iy)` at `iy * 16 + ix`; `None`: not resident.
    words: Vec<Option<[u32; 64]>>,
    fallback: Option<Vec<super::fallback::FallbackBatch>>,
}

impl GridTile {
    /// The control blocks of tile `tile`'s 256 MCNKs from its resident
    /// ones, `t` (`None`: the tile is not resident, every block empty).
    fn words(
        t: Option<&sward_scenes::AdtTile>,
        tile: sward_scenes::TileCoord,
        effects: &ResolvedEffects,
        table: &super::control::EffectTable,
        policy: &sward_scenes::Policy,
    ) -> Vec<Option<[u32; 64]>> {
        let mut words = vec![None; 256];
        for m in t.map_or(&[][..], |t| &t.mcnks[..]) {
            let (ix, iy) = m.chunk_coord(tile).index_in_tile();
            words[(iy * 16 + ix) as usize] =
                Some(super::control::mcnk_words(m, effects, table, policy));
        }
        words
    }
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
            Some(_) => super::control::max_expected_bound(scene.effects, &table, scene.policy),
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
        let mut pickable = vec![false; models.len()];
        for e in &table.records {
            for (&m, &w) in e.models.iter().zip(&e.weights) {
                let rotation = policy_code == POLICY_ROTATION;
                if let Some(p) = pickable.get_mut(m as usize) {
                    *p |= w > 0 || rotation;
                }
            }
        }
        let grid_models: Vec<usize> = (0..models.len())
            .filter(|m| pickable[*m] && !fallback_list.contains(m))
            .collect();
        let (render_layout, compute_layout) = GridResources::layouts(device);
        let compact_total = (mode == GridMode::Compact).then_some(total);
        let mut res = GridResources::new(
            gpu,
            atlas,
            control,
            table,
            models.len(),
            compact_total,
            &render_layout,
            (mode == GridMode::Compact).then_some(&compute_layout),
        )?;
        if let Some(c) = res.compact.as_mut() {
            c.args_reset = models
                .models
                .iter()
                .flat_map(|m| [m.index_count, 0, m.first_index, m.base_vertex as u32, 0])
                .collect();
        }
        let shader =
            sward_engine::shader::create_shader(device, sward_wgsl::modules::GRASS_CAMERA_GRID)
                .map_err(shader_error)?;
        let pipeline_layout = bind::pipeline_layout(
            device,
            "grass.grid.draw",
            &[&models.frame_layout, &models.model_layout, &render_layout],
        );
        let compute = match (mode, res.compute_group.is_some()) {
            (GridMode::Compact, true) => {
                let module = sward_engine::shader::create_shader(
                    device,
                    sward_wgsl::modules::GRASS_CAMERA_GRID_COMPACT,
                )
                .map_err(shader_error)?;
                // The compaction reads only group 2; groups 0 and 1 stay empty.
                let empty = bind::layout(device, "grass.grid.empty", &[]);
                let layout = bind::pipeline_layout(
                    device,
                    "grass.grid.compact",
                    &[&empty, &empty, &compute_layout],
                );
                let pipeline =
                    bind::compute_pipeline_with(device, PASS_COMPACT, &layout, &module, "compact");
                let empty_group = bind::group(device, "grass.grid.empty", &empty, &[]);
                Some((pipeline, empty_group))
            }
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
        let readback = LaggedReadback::new(
            device,
            "grass.grid.readback",
            models.len().max(1) as u64 * ARGS_WORDS * 4,
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
        let (atlas, words, batches) = match prepared {
            Some(p) => (Some(p.atlas), Some(p.words), p.fallback),
            None => (None, None, None),
        };
        let Some(mut bytes) =
            self.res
                .atlas
                .set_tile_prepared(gpu, scene.world, tile, atlas.as_ref())?
        else {
            return Ok(None);
        };
        let words = match words {
            Some(w) => w,
            None => GridTile::words(
                scene.world.tile(tile).map(|t| &**t),
                tile,
                scene.effects,
                &self.res.table,
                scene.policy,
            ),
        };
        bytes += self.res.set_tile_words(gpu, tile, &words);
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
        let (effects, policy, table) = (effects.clone(), *policy, self.res.table.clone());
        let fallback = self.fallback.models().to_vec();
        std::sync::Arc::new(crate::technique::FnPreparer(
            move |i: &crate::technique::PrepareInputs<'_>| {
                let t = i.tile;
                let words = GridTile::words(Some(t), i.coord, &effects, &table, &policy);
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
                    words,
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

    fn prepare(&mut self, gpu: &GpuContext, models: &GrassModels, view: &FrameView) {
        let key = (view.sample_count, view.settings.alpha_to_coverage);
        self.fallback.prepare(gpu, models, view);
        if self.state_key == Some(key) {
            return;
        }
        self.states.clear();
        for &m in &self.grid_models {
            let state = material_pipeline_desc(&models.models[m].material, key.0, key.1);
            let entry = match self.mode {
                GridMode::Direct => "vs_direct",
                GridMode::Compact => "vs_compact",
            };
            let (shader, layout) = (&self.shader, &self.pipeline_layout);
            self.pipelines
                .entry((state, self.mode))
                .or_insert_with(|| build_pipeline(&gpu.device, layout, shader, &state, entry));
            self.states.push((m, state));
        }
        // Depth-resolved materials first, blended after (stable).
        self.states
            .sort_by_key(|(m, _)| !models.models[*m].material.blend.is_depth_resolved());
        self.state_key = Some(key);
    }

    /// Adds the frame's passes: `grass.grid.compact` (compact mode) and
    /// `grass.draw` (one draw per grid model, plus fallback batches).
    pub fn record<'a>(
        &'a mut self,
        gpu: &'a GpuContext,
        graph: &mut RenderGraph<'a>,
        view: &FrameView,
        targets: PassTargets,
        models: &'a GrassModels,
    ) {
        self.prepare(gpu, models, view);
        let uniform = self.uniform(view, models.len());
        self.last_uniform = Some(uniform);
        let frame_no = self.frame;
        self.frame += 1;
        // Never on the first frame: no compaction has filled the args yet.
        let readback_now = frame_no % READBACK_EVERY == 1;
        let this: &'a CameraGrid = self;
        let frame = GrassFrame::new(view);
        let frame_id = graph.import_buffer("grass.uniforms", &this.frame_uniform);
        let grid_id = graph.import_buffer("grass.grid.uniform", &this.res.uniform);
        let frame_group =
            graph.import_bind_group("grass.frame", &this.frame_bind_group, &[frame_id.into()]);
        let mut reads = vec![frame_id, grid_id];
        let mut render_binds = vec![grid_id.into()];
        let mut compacted = None;
        let total = this.candidates_total();
        if let (Some((pipeline, empty)), Some(c), Some(group)) =
            (&this.compute, &this.res.compact, &this.res.compute_group)
        {
            let args = graph.import_buffer("grass.grid.args", &c.args);
            let list = graph.import_buffer("grass.grid.compacted", &c.list);
            let group = graph.import_bind_group(
                "grass.grid.compute",
                group,
                &[grid_id.into(), list.into(), args.into()],
            );
            let empty = graph.import_bind_group("grass.grid.empty", empty, &[]);
            graph
                .add_compute_pass(PASS_COMPACT)
                .needs(sward_engine::Capability::Compute)
                .read(grid_id)
                .write(args)
                .write(list)
                .record(move |ctx| {
                    ctx.queue.write_buffer(
                        ctx.res.buffer(grid_id),
                        0,
                        bytemuck::bytes_of(&uniform),
                    );
                    ctx.queue.write_buffer(
                        ctx.res.buffer(args),
                        0,
                        bytemuck::cast_slice(&c.args_reset),
                    );
                    // Collect finished readbacks, start mapping submitted copies.
                    if let Ok(mut readback) = this.readback.lock() {
                        readback.poll(frame_no);
                    }
                    ctx.counters.bytes_uploaded += UNIFORM_BYTES + c.args_reset.len() as u64 * 4;
                    ctx.pass.set_pipeline(pipeline);
                    let empty = ctx.res.bind_group(empty);
                    ctx.pass.set_bind_group(0, empty, &[]);
                    ctx.pass.set_bind_group(1, empty, &[]);
                    ctx.pass.set_bind_group(2, ctx.res.bind_group(group), &[]);
                    let groups = total.div_ceil(64);
                    let (x, y) = if groups > 65_535 {
                        (65_535, groups.div_ceil(65_535))
                    } else {
                        (groups, 1)
                    };
                    ctx.pass.dispatch_workgroups(x, y, 1);
                    ctx.counters.instances_submitted += u64::from(total);
                });
            if readback_now {
                graph
                    .add_transfer_pass(PASS_READBACK)
                    .read(args)
                    .record(move |ctx| {
                        if let Ok(mut readback) = this.readback.lock() {
                            readback.copy(ctx.encoder, ctx.res.buffer(args), frame_no);
                        }
                    });
            }
            reads.push(args);
            reads.push(list);
            render_binds.push(list.into());
            compacted = Some(args);
        }
        let render_group =
            graph.import_bind_group("grass.grid.render", &this.res.render_group, &render_binds);
        add_draw_pass(graph, view, targets, &reads, move |ctx| {
            ctx.queue
                .write_buffer(ctx.res.buffer(frame_id), 0, bytemuck::bytes_of(&frame));
            ctx.counters.bytes_uploaded += GRASS_FRAME_BYTES;
            if this.mode == GridMode::Direct {
                ctx.queue
                    .write_buffer(ctx.res.buffer(grid_id), 0, bytemuck::bytes_of(&uniform));
                ctx.counters.bytes_uploaded += UNIFORM_BYTES;
            }
            let frame_group = ctx.res.bind_group(frame_group);
            let render_group = ctx.res.bind_group(render_group);
            let args = compacted.map(|id| ctx.res.buffer(id));
            let c = this.fallback.draw(&mut ctx.pass, models, frame_group);
            *ctx.counters += c;
            ctx.counters.instances_submitted += this.fallback.instances();
            // Instances the compacted draws drew, read back a few frames late
            // (nothing is known before the first readback arrives).
            let latest = this
                .readback
                .lock()
                .ok()
                .and_then(|r| r.latest().map(<[u32]>::to_vec));
            let pass = &mut ctx.pass;
            pass.set_bind_group(0, frame_group, &[]);
            pass.set_vertex_buffer(0, models.vertex_buffer.slice(..));
            pass.set_index_buffer(models.index_buffer.slice(..), wgpu::IndexFormat::Uint16);
            for (m, state) in &this.states {
                let Some(pipeline) = this.pipelines.get(&(*state, this.mode)) else {
                    continue;
                };
                let model = &models.models[*m];
                pass.set_pipeline(pipeline);
                pass.set_bind_group(1, &model.bind_group, &[]);
                pass.set_bind_group(2, render_group, &[(*m as u64 * DRAW_STRIDE) as u32]);
                match (args, this.mode) {
                    (Some(args), GridMode::Compact) => {
                        pass.draw_indexed_indirect(args, *m as u64 * ARGS_WORDS * 4);
                        let drawn = latest
                            .as_ref()
                            .and_then(|a| a.get(*m * ARGS_WORDS as usize + 1))
                            .map_or(0, |&n| u64::from(n));
                        ctx.counters.instances_drawn += drawn;
                        ctx.counters.triangles += drawn * model.triangles;
                    }
                    _ => {
                        let first = model.first_index;
                        pass.draw_indexed(
                            first..first + model.index_count,
                            model.base_vertex,
                            0..total,
                        );
                        ctx.counters.instances_submitted += u64::from(total);
                        ctx.counters.instances_drawn += u64::from(total);
                        ctx.counters.triangles += u64::from(total) * model.triangles;
                    }
                }
                ctx.counters.draw_calls += 1;
            }
        });
    }

    /// Facts for the bench report: configuration, and from the CPU mirror
    /// at the last recorded view the candidates evaluated, blades in range
    /// and (compact mode) blades the compaction keeps.
    pub fn facts(&self, world: &World) -> BTreeMap<String, f64> {
        let mut f = BTreeMap::new();
        f.insert("grid_side".into(), f64::from(self.params.side));
        f.insert("grid_spacing".into(), f64::from(self.params.spacing));
        f.insert(
            "grid_candidates_per_slot".into(),
            f64::from(self.candidates),
        );
        f.insert(
            "grid_compact".into(),
            f64::from(u8::from(self.mode == GridMode::Compact)),
        );
        f.insert("grid_models".into(), self.grid_models.len() as f64);
        f.insert(
            "grid_fallback_models".into(),
            self.fallback_list.len() as f64,
        );
        let total = self.candidates_total();
        f.insert("grid_candidates_per_draw".into(), f64::from(total));
        f.insert(
            "grid_candidates_evaluated".into(),
            f64::from(total)
                * match self.mode {
                    GridMode::Direct => self.grid_models.len() as f64,
                    GridMode::Compact => 1.0,
                },
        );
        if let Some(u) = &self.last_uniform {
            let inp = self.blade_inputs(world, u);
            let eye = glam::Vec3::new(u.eye.x, u.eye.y, u.eye.z);
            let frustum = sward_engine::Frustum { planes: u.frustum };
            let (mut drawn, mut in_range, mut visible) = (0u64, 0u64, 0u64);
            for n in 0..total {
                let (i, j, k) = instance_slot(n, u.camera_slot, u.side, u.candidates);
                let b = grid_blade(&inp, i, j, k);
                if b.status != Status::Drawn {
                    continue;
                }
                drawn += 1;
                let root = glam::Vec3::from_array(b.root);
                if root.distance(eye) >= u.eye.w {
                    continue;
                }
                in_range += 1;
                let radius = u.bounds.x * b.scale + u.bounds.y;
                visible += u64::from(frustum.sphere_visible(root, radius));
            }
            f.insert("grid_blades_generated".into(), drawn as f64);
            f.insert("grid_blades_in_range".into(), in_range as f64);
            f.insert("grid_blades_in_frustum".into(), visible as f64);
        }
        f
    }
}

fn build_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    shader: &wgpu::ShaderModule,
    state: &MaterialState,
    vertex_entry: &str,
) -> wgpu::RenderPipeline {
    let [vertices, _] = crate::grass::gpu::vertex_layouts();
    crate::grass::gpu::material_pipeline(
        device,
        "grass.grid.draw",
        layout,
        shader,
        vertex_entry,
        &[vertices],
        state,
    )
}
