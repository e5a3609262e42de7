//! GPU objects of grass `gpu-cull`: the `grass.cull` compute pipeline and
//! its bind group layout, the draw's group 2 layout (descriptors, patch
//! table, height atlas) and the render pipelines, one per
//! [`MaterialState`] exactly as static-batch picks them
//! ([`material_pipeline_desc`]), but with only the shared model vertex
//! buffer as vertex input (instances come from the descriptor buffer).

use std::collections::HashMap;

use sward_engine::bind::{self, Slot};
use sward_engine::GpuContext;

use super::super::draw::ModelStates;
use super::super::gpu::vertex_layouts;
use super::super::material::MaterialState;
use super::super::models::GrassModels;
use crate::atlas::HeightAtlas;
use crate::error::PassError;
use crate::frame::FrameView;

/// Name of the cull pass.
pub const PASS_CULL: &str = "grass.cull";
/// Name of the transfer pass that copies the last cull's counts into the
/// readback ring (recorded every [`READBACK_EVERY`] frames).
pub const PASS_READBACK: &str = "grass.readback";
/// Frames between two count readbacks.
pub const READBACK_EVERY: u64 = 4;
/// Workgroup size of `cull_entries`.
pub const CULL_WORKGROUP: u32 = 64;

/// The compute pipelines of `grass.cull`.
pub struct CullPipelines {
    /// Group 0: uniforms, entries, models, args, counts.
    pub layout: wgpu::BindGroupLayout,
    /// `reset`: zeroes the counts (and the args for the plain multi-draw).
    pub reset: wgpu::ComputePipeline,
    /// `cull_entries`: one invocation per entry.
    pub cull: wgpu::ComputePipeline,
}

/// Builds [`CullPipelines`].
pub fn cull_pipelines(device: &wgpu::Device) -> Result<CullPipelines, PassError> {
    let shader =
        crate::error::create_shader(device, sward_wgsl::modules::GRASS_CULL, "grass.gpu-cull")?;
    let layout = bind::layout(
        device,
        PASS_CULL,
        &bind::entries(
            wgpu::ShaderStages::COMPUTE,
            &[
                Slot::Uniform,      // 0 cull (uniforms)
                Slot::STORAGE_READ, // 1 entries
                Slot::STORAGE_READ, // 2 models
                Slot::STORAGE_RW,   // 3 args
                Slot::STORAGE_RW,   // 4 counts
            ],
        ),
    );
    let pipeline_layout = bind::pipeline_layout(device, PASS_CULL, &[&layout]);
    let pipeline = |entry: &str| {
        bind::compute_pipeline_with(device, PASS_CULL, &pipeline_layout, &shader, entry)
    };
    Ok(CullPipelines {
        reset: pipeline("reset"),
        cull: pipeline("cull_entries"),
        layout,
    })
}

/// Group 2 of the draw: descriptors (0), patch table (1), height atlas
/// (2..=5), visible to `vs` (the vertex stage; compute for the root probe
/// and the per-instance cull).
pub fn draw_group_layout(device: &wgpu::Device, vs: wgpu::ShaderStages) -> wgpu::BindGroupLayout {
    let mut entries = bind::entries(vs, &[Slot::STORAGE_READ, Slot::STORAGE_READ]);
    entries.extend(HeightAtlas::layout_entries(2, vs));
    bind::layout(device, "grass.gpu-cull.roots", &entries)
}

/// The draw's group 2: [`draw_group_layout`] for the vertex stage, the cull
/// uniforms (7, the LOD fade) and with `instances` the per-instance cull's
/// visible list (6, `vs_visible`).
pub fn root_group_layout(
    device: &wgpu::Device,
    vs: wgpu::ShaderStages,
    instances: bool,
) -> wgpu::BindGroupLayout {
    let mut entries = bind::entries(vs, &[Slot::STORAGE_READ, Slot::STORAGE_READ]);
    entries.extend(HeightAtlas::layout_entries(2, vs));
    entries.push(bind::entry(7, vs, Slot::Uniform));
    if instances {
        entries.push(bind::entry(6, vs, Slot::STORAGE_READ));
    }
    bind::layout(device, "grass.gpu-cull.draw", &entries)
}

/// The compute pipelines of `grass.cull` with `cull=instance`.
pub struct InstancePipelines {
    /// Group 0 of `cull_instances`: uniforms, entries, models, state,
    /// visible list.
    pub layout: wgpu::BindGroupLayout,
    /// Group 0 of `cull_patches`: uniforms, entries, models, state, the
    /// dispatch.
    pub patch_layout: wgpu::BindGroupLayout,
    /// Group 1: the Hi-Z pyramid (a 1x1 stand-in with occlusion off).
    pub hiz: wgpu::BindGroupLayout,
    /// Group 2: [`draw_group_layout`] for compute.
    pub roots: wgpu::BindGroupLayout,
    /// `cull_patches`: one invocation per entry, survivors to the list.
    pub patches: wgpu::ComputePipeline,
    /// `cull_instances`: one workgroup per surviving entry, without and
    /// with the occlusion test (the shader's `OCCLUSION` constant).
    pub instances: wgpu::ComputePipeline,
    /// `cull_instances` testing against the Hi-Z pyramid.
    pub instances_occluded: wgpu::ComputePipeline,
}

/// Builds [`InstancePipelines`].
pub fn instance_pipelines(device: &wgpu::Device) -> Result<InstancePipelines, PassError> {
    let shader = crate::error::create_shader(
        device,
        sward_wgsl::modules::GRASS_CULL_INSTANCES,
        "grass.gpu-cull",
    )?;
    let cs = wgpu::ShaderStages::COMPUTE;
    let layout = bind::layout(
        device,
        PASS_CULL,
        &bind::entries(
            cs,
            &[
                Slot::Uniform,      // 0 cull (uniforms)
                Slot::STORAGE_READ, // 1 entries
                Slot::STORAGE_READ, // 2 models
                Slot::STORAGE_RW,   // 3 state
                Slot::STORAGE_RW,   // 4 visible
            ],
        ),
    );
    let patch_layout = bind::layout(
        device,
        PASS_CULL,
        &[
            bind::entry(0, cs, Slot::Uniform),      // cull (uniforms)
            bind::entry(1, cs, Slot::STORAGE_READ), // entries
            bind::entry(2, cs, Slot::STORAGE_READ), // models
            bind::entry(3, cs, Slot::STORAGE_RW),   // state
            bind::entry(5, cs, Slot::STORAGE_RW),   // dispatch
        ],
    );
    let hiz = crate::hiz::pyramid_layout(device, "grass.cull.hiz");
    let roots = draw_group_layout(device, cs);
    let pipeline_layout = bind::pipeline_layout(device, PASS_CULL, &[&layout, &hiz, &roots]);
    let patch_pipeline_layout = bind::pipeline_layout(device, PASS_CULL, &[&patch_layout]);
    let pipeline = |layout: &wgpu::PipelineLayout, entry: &str| {
        bind::compute_pipeline_with(device, PASS_CULL, layout, &shader, entry)
    };
    let [instances, instances_occluded] = bind::compute_pipelines_flagged(
        device,
        PASS_CULL,
        &pipeline_layout,
        &shader,
        "cull_instances",
        "OCCLUSION",
    );
    Ok(InstancePipelines {
        patches: pipeline(&patch_pipeline_layout, "cull_patches"),
        instances,
        instances_occluded,
        layout,
        patch_layout,
        hiz,
        roots,
    })
}

/// Render pipelines of `grass_gpu_cull.wgsl`, one per material state, and
/// the state each model draws with for the current sample count / ATOC.
pub struct DrawPipelines {
    shader: wgpu::ShaderModule,
    entry: &'static str,
    layout: wgpu::PipelineLayout,
    pipelines: HashMap<MaterialState, wgpu::RenderPipeline>,
    states: ModelStates,
}

impl DrawPipelines {
    /// The shader and pipeline layout (groups: frame, model, `group2`);
    /// `entry` is the vertex entry point (`vs_main`, or `vs_visible` after
    /// the per-instance cull).
    pub fn new(
        device: &wgpu::Device,
        models: &GrassModels,
        group2: &wgpu::BindGroupLayout,
        entry: &'static str,
    ) -> Result<Self, PassError> {
        let shader = crate::error::create_shader(
            device,
            sward_wgsl::modules::GRASS_GPU_CULL,
            "grass.gpu-cull",
        )?;
        let layout = bind::pipeline_layout(
            device,
            "grass.gpu-cull.draw",
            &[&models.frame_layout, &models.model_layout, group2],
        );
        Ok(DrawPipelines {
            shader,
            entry,
            layout,
            pipelines: HashMap::new(),
            states: ModelStates::default(),
        })
    }

    /// Picks every model's state for `view` (as static-batch does) and builds
    /// missing pipelines; a no-op while sample count and ATOC are unchanged.
    pub fn prepare(&mut self, gpu: &GpuContext, models: &GrassModels, view: &FrameView) {
        if !self.states.update(models, view) {
            return;
        }
        for state in self.states.states() {
            if !self.pipelines.contains_key(state) {
                let p = build_pipeline(&gpu.device, &self.layout, &self.shader, self.entry, state);
                self.pipelines.insert(*state, p);
            }
        }
    }

    /// The state of each model (after [`Self::prepare`]).
    pub fn states(&self) -> &[MaterialState] {
        self.states.states()
    }

    /// The pipeline of model `model`, if prepared.
    pub fn for_model(&self, model: usize) -> Option<&wgpu::RenderPipeline> {
        self.states().get(model).and_then(|s| self.pipelines.get(s))
    }
}

/// The pipeline of `state`: all fixed-function state from the material,
/// vertex input = the shared `DetailVertex` buffer only.
fn build_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    shader: &wgpu::ShaderModule,
    entry: &str,
    state: &MaterialState,
) -> wgpu::RenderPipeline {
    let [vertices, _] = vertex_layouts();
    crate::grass::gpu::material_pipeline(
        device,
        "grass.draw",
        layout,
        shader,
        entry,
        &[vertices],
        state,
    )
}
