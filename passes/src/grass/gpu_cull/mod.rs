//! Grass `gpu-cull` ([`GpuCull`]): compact per-placement descriptors grouped
//! into patches of 1x1, 2x2 or 4x4 MCNKs, culled per (patch, model) on the
//! GPU, drawn with multi-draw-indirect; the ground height comes from the
//! exact height atlas in the vertex shader.
//!
//! Built once per world window ([`GpuCull::new`]): the [`patches::PatchSet`]
//! (16-byte [`descriptor::GrassDescriptor`]s, one [`patches::PatchEntry`] per
//! patch and model with conservative bounds), uploaded once. Per frame
//! ([`GpuCull::record`]) the CPU writes two uniform blocks and records two
//! passes whose cost does not depend on the number of placements or patches:
//!
//! 1. `grass.cull` (compute, [`cull`]): a `reset` dispatch zeroes the counts
//!    (and the indirect args, when the plain multi-draw consumes them); then
//!    one invocation per (patch, model) entry tests the draw distance and the
//!    frustum and appends the entry's indexed draw to its model's region of
//!    the args (atomic compaction).
//! 2. `grass.draw`: per model, one `multi_draw_indexed_indirect_count` (count
//!    from the cull) or, without that capability, `multi_draw_indexed_indirect`
//!    over the region's zeroed tail; materials, fade, wind and alpha are the
//!    shared `grass_surface` with the pipeline state static-batch uses.
//!
//! Every few frames a `grass.readback` transfer pass first copies the counts
//! the previous cull left into a readback ring (`sward_engine::lagged`), which feeds
//! the `instances_drawn` / `triangles` counters a few frames late.
//!
//! Modules: [`descriptor`] (packing), [`patches`] (grouping, bounds, patch
//! size), [`cull`] (CPU reference of the cull), [`draw`] (pipelines),
//! `record` (the passes), `tests`: GPU tests
//! (cull parity, roots, image parity with static-batch, uploads).

pub mod cull;
pub mod descriptor;
pub mod draw;
pub mod patches;
mod record;

pub use patches::PatchSize;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::ops::Range;

use wgpu::util::DeviceExt;

use sward_engine::{Capability, GpuContext};
use sward_scenes::{Placements, World};

use self::cull::{cull_models, GRASS_CULL_BYTES};
use self::descriptor::DESCRIPTOR_BYTES;
use self::draw::{cull_pipelines, draw_group_layout, CullPipelines, DrawPipelines, CULL_WORKGROUP};
use self::patches::{ModelReach, PatchSet};
use super::gpu::GRASS_FRAME_BYTES;
use super::models::GrassModels;
use super::static_batch::uniform_buffer;
use crate::atlas::HeightAtlas;
use crate::error::PassError;
use sward_engine::lagged::LaggedReadback;

/// Which multi-draw call consumes the cull's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MultiDraw {
    /// `multi_draw_indexed_indirect_count`: the GPU count bounds the draws.
    Count,
    /// `multi_draw_indexed_indirect`: every slot of a model's region is
    /// drawn; slots past the survivors hold zeroed args.
    Plain,
}

impl MultiDraw {
    /// The wgpu call's name (reported in the bench's per-run facts).
    pub fn name(self) -> &'static str {
        match self {
            MultiDraw::Count => "multi_draw_indexed_indirect_count",
            MultiDraw::Plain => "multi_draw_indexed_indirect",
        }
    }
}

/// Construction options of [`GpuCull`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GpuCullOptions {
    /// Patch size.
    pub patch: PatchSize,
    /// Force a multi-draw variant (`None`: the count variant where the
    /// device has `Capability::MultiDrawIndirectCount`).
    pub multi_draw: Option<MultiDraw>,
}

/// The `gpu-cull` grass tier (see the module docs).
pub struct GpuCull {
    patch: PatchSize,
    multi_draw: MultiDraw,
    patch_count: usize,
    entry_count: u32,
    model_count: u32,
    /// Entries (draw slots) per model: the range of its args region.
    model_entries: Vec<Range<u32>>,
    descriptors: wgpu::Buffer,
    patches: wgpu::Buffer,
    args: wgpu::Buffer,
    counts: wgpu::Buffer,
    cull_uniform: wgpu::Buffer,
    frame_uniform: wgpu::Buffer,
    cull_pipelines: CullPipelines,
    cull_bind_group: wgpu::BindGroup,
    frame_bind_group: wgpu::BindGroup,
    draw_bind_group: wgpu::BindGroup,
    pipelines: DrawPipelines,
    readback: std::sync::Mutex<LaggedReadback>,
    /// Frames recorded (paces the readback).
    frame: u64,
    /// Resident instances of each model.
    model_instances: Vec<u64>,
    instances: u64,
    bytes: u64,
}

/// Bytes of one `DrawIndexedIndirectArgs`.
const ARGS_BYTES: u64 = 20;

fn storage_buffer(
    gpu: &GpuContext,
    label: &str,
    contents: &[u8],
    extra: wgpu::BufferUsages,
) -> wgpu::Buffer {
    // Bindings need a non-empty buffer; keep at least 16 bytes.
    let mut padded;
    let contents = if contents.len() < 16 {
        padded = contents.to_vec();
        padded.resize(16, 0);
        &padded[..]
    } else {
        contents
    };
    gpu.device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents,
            usage: wgpu::BufferUsages::STORAGE | extra,
        })
}

fn bind(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}

fn check_limits(gpu: &GpuContext, set: &PatchSet) -> Result<(), PassError> {
    let limits = gpu.device.limits();
    let binding = u64::from(limits.max_storage_buffer_binding_size);
    let descriptor_bytes = set.descriptors.len() as u64 * DESCRIPTOR_BYTES;
    let too_big = |what: &str, needed: u64, limit: u64| PassError::DeviceLimit {
        technique: "grass.gpu-cull",
        what: what.into(),
        needed,
        limit,
    };
    if descriptor_bytes > binding {
        return Err(too_big(
            "descriptor buffer (bytes)",
            descriptor_bytes,
            binding,
        ));
    }
    let groups = (set.entries.len() as u64).div_ceil(u64::from(CULL_WORKGROUP));
    let max_groups = u64::from(limits.max_compute_workgroups_per_dimension);
    if groups > max_groups {
        return Err(too_big("cull workgroups", groups, max_groups));
    }
    Ok(())
}

impl GpuCull {
    /// Builds the patches of `placements` (the resident window of `world`)
    /// and uploads them with the cull and draw state. `atlas` must be the
    /// height atlas of the same window.
    pub fn new(
        gpu: &GpuContext,
        models: &GrassModels,
        world: &World,
        placements: &Placements,
        atlas: &HeightAtlas,
        options: GpuCullOptions,
    ) -> Result<Self, PassError> {
        let device = &gpu.device;
        let reach: Vec<ModelReach> = models
            .models
            .iter()
            .map(|m| ModelReach {
                radius: m.radius,
                sway_height: m.height,
            })
            .collect();
        let set = PatchSet::build(world, placements, &reach, options.patch)?;
        check_limits(gpu, &set)?;
        let multi_draw =
            options
                .multi_draw
                .unwrap_or(if gpu.caps.has(Capability::MultiDrawIndirectCount) {
                    MultiDraw::Count
                } else {
                    MultiDraw::Plain
                });
        let none = wgpu::BufferUsages::empty();
        let descriptors = storage_buffer(
            gpu,
            "grass.descriptors",
            bytemuck::cast_slice(&set.descriptors),
            wgpu::BufferUsages::COPY_SRC,
        );
        let patch_table = set.patch_table(atlas.window().origin);
        let patches = storage_buffer(
            gpu,
            "grass.patches",
            bytemuck::cast_slice(&patch_table),
            none,
        );
        let entries = storage_buffer(
            gpu,
            "grass.entries",
            bytemuck::cast_slice(&set.entries),
            none,
        );
        let cull_model_table = cull_models(&set, models);
        let model_instances: Vec<u64> = set
            .model_entries
            .iter()
            .map(|r| {
                set.entries[r.start as usize..r.end as usize]
                    .iter()
                    .map(|e| u64::from(e.count))
                    .sum()
            })
            .collect();
        let cull_model_buffer = storage_buffer(
            gpu,
            "grass.cull_models",
            bytemuck::cast_slice(&cull_model_table),
            none,
        );
        let indirect = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::INDIRECT
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let args = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("grass.args"),
            size: (set.entries.len() as u64 * ARGS_BYTES).max(ARGS_BYTES),
            usage: indirect,
            mapped_at_creation: false,
        });
        let counts_size = (2 * models.len() as u64 * 4).max(16);
        let counts = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("grass.counts"),
            size: counts_size,
            usage: indirect,
            mapped_at_creation: false,
        });
        let cull_uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("grass.cull.uniforms"),
            size: GRASS_CULL_BYTES,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let frame_uniform = uniform_buffer(gpu);
        let cull_pipelines = cull_pipelines(device)?;
        let cull_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(draw::PASS_CULL),
            layout: &cull_pipelines.layout,
            entries: &[
                bind(0, &cull_uniform),
                bind(1, &entries),
                bind(2, &cull_model_buffer),
                bind(3, &args),
                bind(4, &counts),
            ],
        });
        let group2 = draw_group_layout(device, wgpu::ShaderStages::VERTEX);
        let [a0, a1, a2, a3] = atlas.bind_entries(2);
        let draw_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("grass.gpu-cull.draw"),
            layout: &group2,
            entries: &[bind(0, &descriptors), bind(1, &patches), a0, a1, a2, a3],
        });
        let pipelines = DrawPipelines::new(device, models, &group2)?;
        let frame_bind_group = models.frame_bind_group(device, &frame_uniform);
        let readback = LaggedReadback::new(device, "grass.cull.readback", counts_size);
        let bytes = [
            &descriptors,
            &patches,
            &entries,
            &cull_model_buffer,
            &args,
            &counts,
            &cull_uniform,
            &frame_uniform,
        ]
        .iter()
        .map(|b| b.size())
        .sum::<u64>()
            + readback.bytes()
            + models.gpu_memory_bytes();
        Ok(GpuCull {
            patch: options.patch,
            multi_draw,
            patch_count: set.patch_count(),
            entry_count: set.entries.len() as u32,
            model_count: models.len() as u32,
            model_entries: set.model_entries,
            descriptors,
            patches,
            args,
            counts,
            cull_uniform,
            frame_uniform,
            cull_pipelines,
            frame: 0,
            cull_bind_group,
            frame_bind_group,
            draw_bind_group,
            pipelines,
            readback: std::sync::Mutex::new(readback),
            model_instances,
            instances: placements.len() as u64,
            bytes,
        })
    }

    /// Patch size in use.
    pub fn patch_size(&self) -> PatchSize {
        self.patch
    }

    /// The multi-draw variant in use.
    pub fn multi_draw(&self) -> MultiDraw {
        self.multi_draw
    }

    /// Number of patches holding grass.
    pub fn patch_count(&self) -> usize {
        self.patch_count
    }

    /// Number of (patch, model) entries: the cull's invocations and the
    /// largest number of draws per frame.
    pub fn entry_count(&self) -> u32 {
        self.entry_count
    }

    /// Resident instances (all placements of the window).
    pub fn instance_count(&self) -> u64 {
        self.instances
    }

    /// The pipeline state each model was last drawn with.
    pub fn material_states(&self) -> &[super::MaterialState] {
        self.pipelines.states()
    }

    /// The descriptor buffer (tests read it back).
    pub fn descriptor_buffer(&self) -> &wgpu::Buffer {
        &self.descriptors
    }

    /// The patch table buffer (`GrassPatchGpu` rows).
    pub fn patch_buffer(&self) -> &wgpu::Buffer {
        &self.patches
    }

    /// The indirect args and count buffers the last cull wrote (tests).
    pub fn cull_output(&self) -> (&wgpu::Buffer, &wgpu::Buffer) {
        (&self.args, &self.counts)
    }

    /// Draw slots (entries) of each model: its region of the args buffer.
    pub fn model_regions(&self) -> &[Range<u32>] {
        &self.model_entries
    }

    /// Bytes the CPU uploads per frame: the two uniform blocks.
    pub fn bytes_per_frame(&self) -> u64 {
        GRASS_FRAME_BYTES + GRASS_CULL_BYTES
    }

    /// Facts for the bench report: `gpu_cull.patch_mcnks` (MCNKs per patch
    /// side), `gpu_cull.patches`, `gpu_cull.entries` (draw slots),
    /// `gpu_cull.multi_draw_count` (1: `multi_draw_indexed_indirect_count`
    /// ran, 0: `multi_draw_indexed_indirect` over zeroed args),
    /// `gpu_cull.descriptor_bytes`.
    pub fn facts(&self) -> BTreeMap<String, f64> {
        let mut f = BTreeMap::new();
        let mut put = |k: &str, v: f64| {
            f.insert(format!("gpu_cull.{k}"), v);
        };
        put("patch_mcnks", f64::from(self.patch.chunks()));
        put("patches", self.patch_count as f64);
        put("entries", f64::from(self.entry_count));
        put(
            "multi_draw_count",
            f64::from(u8::from(self.multi_draw == MultiDraw::Count)),
        );
        put(
            "descriptor_bytes",
            (self.instances * DESCRIPTOR_BYTES) as f64,
        );
        f
    }

    /// GPU memory of every buffer of the tier, the readback ring and the
    /// shared models (the height atlas is counted by its owner).
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.bytes
    }
}

/// The `patch` parameter of grass `gpu-cull`.
pub const PATCH_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "patch",
    kind: crate::technique::ParamKind::IntChoice {
        values: &[1, 2, 4],
        default: 2,
    },
    description: "patch side in MCNKs: the cull's unit (1x1, 2x2 or 4x4 MCNKs per patch)",
};

/// Registry entry of grass `gpu-cull`.
pub const ENTRY: crate::technique::TechniqueEntry = crate::technique::TechniqueEntry {
    subsystem: crate::technique::Subsystem::Grass,
    name: "gpu-cull",
    summary: "compact per-placement descriptors in patches, compute patch culling, multi-draw-indirect, Z from the height atlas",
    params: &[PATCH_PARAM, crate::technique::MULTI_DRAW],
    requires: crate::technique::GPU_CULL_CAPABILITIES,
    fallback: Some("static-batch"),
    build: |i, params| Ok(Box::new(GpuCullTier::new(i, params)?)),
};

/// Grass `gpu-cull` as a registered technique: the cull with the height
/// atlas its descriptors take Z from.
pub struct GpuCullTier {
    atlas: HeightAtlas,
    cull: GpuCull,
}

impl GpuCullTier {
    fn new(
        i: &crate::technique::BuildInputs<'_>,
        params: &crate::technique::Params,
    ) -> Result<Self, PassError> {
        let patch = match params.int(&PATCH_PARAM) {
            1 => PatchSize::Mcnk,
            4 => PatchSize::Block4,
            _ => PatchSize::Block2,
        };
        let multi_draw = Some(
            if crate::technique::count_variant(i.gpu, "grass.gpu-cull", params)? {
                MultiDraw::Count
            } else {
                MultiDraw::Plain
            },
        );
        let atlas = HeightAtlas::new(i.gpu, i.scene.world)?;
        let cull = GpuCull::new(
            i.gpu,
            i.models,
            i.scene.world,
            i.scene.placements,
            &atlas,
            GpuCullOptions { patch, multi_draw },
        )?;
        Ok(GpuCullTier { atlas, cull })
    }
}

impl crate::technique::Technique for GpuCullTier {
    fn record<'a>(
        &'a mut self,
        inputs: crate::technique::RecordInputs<'a>,
        graph: &mut sward_engine::graph::RenderGraph<'a>,
        view: &crate::frame::FrameView,
        targets: crate::frame::PassTargets,
    ) {
        self.cull
            .record(inputs.gpu, graph, view, targets, inputs.models);
    }

    fn gpu_memory_bytes(&self) -> u64 {
        self.cull.gpu_memory_bytes() + self.atlas.gpu_memory_bytes()
    }

    fn facts(&self, _scene: &crate::renderer::SceneData<'_>) -> BTreeMap<String, f64> {
        self.cull.facts()
    }
}
