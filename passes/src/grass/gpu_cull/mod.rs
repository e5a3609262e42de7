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
pub mod instances;
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
pub use self::cull::{DistanceLod, GrassLod};
use self::descriptor::DESCRIPTOR_BYTES;
use self::draw::{
    cull_pipelines, instance_pipelines, root_group_layout, CullPipelines, DrawPipelines,
    InstancePipelines, CULL_WORKGROUP,
};
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

/// What the cull tests and draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CullMode {
    /// Whole (patch, model) entries: one indirect draw per visible entry.
    Patch,
    /// Every clump of a visible entry ([`instances`]): one indirect draw
    /// per model over the compacted visible list.
    #[default]
    Instance,
}

impl CullMode {
    /// The `cull` parameter's value.
    pub fn name(self) -> &'static str {
        match self {
            CullMode::Patch => "patch",
            CullMode::Instance => "instance",
        }
    }
}

/// Construction options of [`GpuCull`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GpuCullOptions {
    /// Patch size.
    pub patch: PatchSize,
    /// Force a multi-draw variant (`None`: the count variant where the
    /// device has `Capability::MultiDrawIndirectCount`); patch culling only.
    pub multi_draw: Option<MultiDraw>,
    /// Patch or per-instance culling.
    pub cull: CullMode,
    /// Distance LOD (per-instance culling only).
    pub lod: DistanceLod,
    /// Hi-Z occlusion of clumps by the terrain drawn before them
    /// (per-instance culling only).
    pub occlusion: bool,
}

/// The cull's outputs and compute state, by [`CullMode`].
#[allow(clippy::large_enum_variant)] // one per technique instance, never in a collection
enum Compaction {
    /// One indirect draw per visible entry.
    Patches {
        args: wgpu::Buffer,
        counts: wgpu::Buffer,
        pipelines: CullPipelines,
        bind_group: wgpu::BindGroup,
    },
    /// One indirect draw per model over the visible list.
    Instances {
        /// Counts, per-model draws, survivor list ([`instances::State`]).
        state: wgpu::Buffer,
        /// The indirect dispatch of `cull_instances`.
        dispatch: wgpu::Buffer,
        /// Group 0 of `cull_patches` (with `dispatch`).
        patch_group: wgpu::BindGroup,
        /// Descriptor indices of the visible clumps, model after model.
        visible: wgpu::Buffer,
        /// The state header each frame starts from (written with the uniforms).
        initial: Vec<u32>,
        /// Each model's region of `visible`.
        regions: Vec<Range<u32>>,
        pipelines: InstancePipelines,
        bind_group: wgpu::BindGroup,
        roots_group: wgpu::BindGroup,
        /// Group 1 with occlusion off: a 1x1 stand-in pyramid.
        no_hiz_group: wgpu::BindGroup,
        /// With occlusion on: the pyramid and its group 1 (remade with it).
        hiz: Option<(crate::hiz::HiZ, Option<wgpu::BindGroup>)>,
    },
}

/// The `gpu-cull` grass tier (see the module docs).
pub struct GpuCull {
    patch: PatchSize,
    multi_draw: MultiDraw,
    lod: DistanceLod,
    /// Most workgroups of one dispatch (the per-instance pass's cap).
    max_groups: u32,
    patch_count: usize,
    entry_count: u32,
    model_count: u32,
    /// Entries (draw slots) per model: the range of its args region.
    model_entries: Vec<Range<u32>>,
    descriptors: wgpu::Buffer,
    patches: wgpu::Buffer,
    compaction: Compaction,
    cull_uniform: wgpu::Buffer,
    frame_uniform: wgpu::Buffer,
    frame_bind_group: wgpu::BindGroup,
    draw_bind_group: wgpu::BindGroup,
    pipelines: DrawPipelines,
    readback: std::sync::Mutex<LaggedReadback>,
    /// Frames recorded (paces the readback).
    frame: u64,
    /// Whether the "occlusion without terrain" warning was logged.
    warned_no_occluder: bool,
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
        let mut cull_model_table = cull_models(&set, models);
        let regions = instances::visible_regions(&set, &mut cull_model_table);
        let model_instances: Vec<u64> =
            regions.iter().map(|r| u64::from(r.end - r.start)).collect();
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
        let cull_uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("grass.cull.uniforms"),
            size: GRASS_CULL_BYTES,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let frame_uniform = uniform_buffer(gpu);
        let instance_mode = options.cull == CullMode::Instance;
        if options.occlusion && !instance_mode {
            return Err(PassError::InvalidParams {
                technique: "grass.gpu-cull",
                reason: "occlusion tests each clump in the per-instance pass: use it with cull=instance, not cull=patch".into(),
            });
        }
        if options.lod.is_on() && !instance_mode {
            return Err(PassError::InvalidParams {
                technique: "grass.gpu-cull",
                reason: "the distance LOD thins clumps in the per-instance pass: use it with cull=instance, not cull=patch".into(),
            });
        }
        let group2 = root_group_layout(device, wgpu::ShaderStages::VERTEX, instance_mode);
        let [a0, a1, a2, a3] = atlas.bind_entries(2);
        let (compaction, readback_size, draw_bind_group) = if instance_mode {
            let header = instances::State::header_words(models.len());
            let words = instances::State::words(models.len(), set.entries.len());
            let state = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("grass.cull.state"),
                size: (words as u64 * 4).max(16),
                usage: indirect,
                mapped_at_creation: false,
            });
            let visible = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("grass.visible"),
                size: (placements.len() as u64 * 4).max(16),
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let dispatch = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("grass.cull.dispatch"),
                size: 16,
                usage: indirect,
                mapped_at_creation: false,
            });
            let pipelines = instance_pipelines(device)?;
            let patch_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(draw::PASS_CULL),
                layout: &pipelines.patch_layout,
                entries: &[
                    bind(0, &cull_uniform),
                    bind(1, &entries),
                    bind(2, &cull_model_buffer),
                    bind(3, &state),
                    bind(5, &dispatch),
                ],
            });
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(draw::PASS_CULL),
                layout: &pipelines.layout,
                entries: &[
                    bind(0, &cull_uniform),
                    bind(1, &entries),
                    bind(2, &cull_model_buffer),
                    bind(3, &state),
                    bind(4, &visible),
                ],
            });
            let stand_in = device.create_texture(&wgpu::TextureDescriptor {
                label: Some("grass.hiz.off"),
                size: wgpu::Extent3d {
                    width: 1,
                    height: 1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: crate::hiz::HIZ_FORMAT,
                usage: wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            });
            let no_hiz_group = crate::hiz::pyramid_group(
                device,
                &pipelines.hiz,
                &stand_in.create_view(&Default::default()),
            );
            let hiz = if options.occlusion {
                Some((crate::hiz::HiZ::new(device, crate::hiz::PASS_HIZ)?, None))
            } else {
                None
            };
            let [c0, c1, c2, c3] = atlas.bind_entries(2);
            let roots_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("grass.cull.roots"),
                layout: &pipelines.roots,
                entries: &[bind(0, &descriptors), bind(1, &patches), c0, c1, c2, c3],
            });
            let draw_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("grass.gpu-cull.draw"),
                layout: &group2,
                entries: &[
                    bind(0, &descriptors),
                    bind(1, &patches),
                    a0,
                    a1,
                    a2,
                    a3,
                    bind(6, &visible),
                    bind(7, &cull_uniform),
                ],
            });
            let compaction = Compaction::Instances {
                state,
                dispatch,
                patch_group,
                visible,
                initial: instances::State::initial(&cull_model_table),
                regions,
                pipelines,
                bind_group,
                roots_group,
                no_hiz_group,
                hiz,
            };
            (compaction, header as u64 * 4, draw_bind_group)
        } else {
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
            let pipelines = cull_pipelines(device)?;
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(draw::PASS_CULL),
                layout: &pipelines.layout,
                entries: &[
                    bind(0, &cull_uniform),
                    bind(1, &entries),
                    bind(2, &cull_model_buffer),
                    bind(3, &args),
                    bind(4, &counts),
                ],
            });
            let draw_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("grass.gpu-cull.draw"),
                layout: &group2,
                entries: &[
                    bind(0, &descriptors),
                    bind(1, &patches),
                    a0,
                    a1,
                    a2,
                    a3,
                    bind(7, &cull_uniform),
                ],
            });
            let compaction = Compaction::Patches {
                args,
                counts,
                pipelines,
                bind_group,
            };
            (compaction, counts_size, draw_bind_group)
        };
        let entry = if instance_mode {
            "vs_visible"
        } else {
            "vs_main"
        };
        let pipelines = DrawPipelines::new(device, models, &group2, entry)?;
        let frame_bind_group = models.frame_bind_group(device, &frame_uniform);
        let readback = LaggedReadback::new(device, "grass.cull.readback", readback_size);
        let compaction_buffers: Vec<&wgpu::Buffer> = match &compaction {
            Compaction::Patches { args, counts, .. } => vec![args, counts],
            Compaction::Instances {
                state,
                visible,
                dispatch,
                ..
            } => vec![state, visible, dispatch],
        };
        let bytes = [
            &descriptors,
            &patches,
            &entries,
            &cull_model_buffer,
            &cull_uniform,
            &frame_uniform,
        ]
        .iter()
        .chain(compaction_buffers.iter())
        .map(|b| b.size())
        .sum::<u64>()
            + readback.bytes()
            + models.gpu_memory_bytes();
        Ok(GpuCull {
            patch: options.patch,
            multi_draw,
            lod: options.lod,
            max_groups: device.limits().max_compute_workgroups_per_dimension,
            patch_count: set.patch_count(),
            entry_count: set.entries.len() as u32,
            model_count: models.len() as u32,
            model_entries: set.model_entries,
            descriptors,
            patches,
            compaction,
            cull_uniform,
            frame_uniform,
            frame: 0,
            warned_no_occluder: false,
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

    /// Patch or per-instance culling.
    pub fn cull_mode(&self) -> CullMode {
        match self.compaction {
            Compaction::Patches { .. } => CullMode::Patch,
            Compaction::Instances { .. } => CullMode::Instance,
        }
    }

    /// The distance LOD in use.
    pub fn lod(&self) -> DistanceLod {
        self.lod
    }

    /// Whether clumps are tested against a Hi-Z pyramid of the terrain.
    pub fn occlusion_on(&self) -> bool {
        matches!(&self.compaction, Compaction::Instances { hiz: Some(_), .. })
    }

    /// The Hi-Z pyramid, with occlusion on and after a frame (tests).
    pub fn hiz(&self) -> Option<&crate::hiz::HiZ> {
        match &self.compaction {
            Compaction::Instances {
                hiz: Some((h, _)), ..
            } => Some(h),
            _ => None,
        }
    }

    /// Patch culling: the indirect args and count buffers the last cull
    /// wrote (tests).
    pub fn cull_output(&self) -> Option<(&wgpu::Buffer, &wgpu::Buffer)> {
        match &self.compaction {
            Compaction::Patches { args, counts, .. } => Some((args, counts)),
            Compaction::Instances { .. } => None,
        }
    }

    /// Per-instance culling: the state buffer (its header holds the per-model
    /// draws), the visible list and each model's region of it (tests).
    pub fn instance_output(&self) -> Option<(&wgpu::Buffer, &wgpu::Buffer, &[Range<u32>])> {
        match &self.compaction {
            Compaction::Instances {
                state,
                visible,
                regions,
                ..
            } => Some((state, visible, regions)),
            Compaction::Patches { .. } => None,
        }
    }

    /// Draw slots (entries) of each model: its region of the args buffer.
    pub fn model_regions(&self) -> &[Range<u32>] {
        &self.model_entries
    }

    /// Bytes the CPU uploads per frame: the two uniform blocks, plus the
    /// per-instance state header or the count variant's zeroed counts.
    pub fn bytes_per_frame(&self) -> u64 {
        let reset = match &self.compaction {
            Compaction::Instances { initial, .. } => 4 * initial.len() as u64 + 12,
            Compaction::Patches { .. } if self.multi_draw == MultiDraw::Count => {
                8 * u64::from(self.model_count)
            }
            Compaction::Patches { .. } => 0,
        };
        GRASS_FRAME_BYTES + GRASS_CULL_BYTES + reset
    }

    /// Facts for the bench report: `gpu_cull.patch_mcnks` (MCNKs per patch
    /// side), `gpu_cull.patches`, `gpu_cull.entries` (draw slots),
    /// `gpu_cull.multi_draw_count` (1: `multi_draw_indexed_indirect_count`
    /// ran, 0: `multi_draw_indexed_indirect` over zeroed args; patch culling),
    /// `gpu_cull.instance_cull` (1: per-instance culling, one
    /// `draw_indexed_indirect` per model), `gpu_cull.lod_floor` and
    /// `gpu_cull.lod_start` (1 and the start: LOD off),
    /// `gpu_cull.descriptor_bytes`.
    pub fn facts(&self) -> BTreeMap<String, f64> {
        let mut f = BTreeMap::new();
        let mut put = |k: &str, v: f64| {
            f.insert(format!("gpu_cull.{k}"), v);
        };
        put("patch_mcnks", f64::from(self.patch.chunks()));
        put("patches", self.patch_count as f64);
        put("entries", f64::from(self.entry_count));
        let instance = self.cull_mode() == CullMode::Instance;
        put(
            "multi_draw_count",
            f64::from(u8::from(!instance && self.multi_draw == MultiDraw::Count)),
        );
        put("instance_cull", f64::from(u8::from(instance)));
        put("occlusion", f64::from(u8::from(self.occlusion_on())));
        if let Some(n) = self.occluded_lately() {
            put("occluded", n as f64);
        }
        put("lod_floor", f64::from(self.lod.floor));
        put("lod_start", f64::from(self.lod.start));
        put(
            "descriptor_bytes",
            (self.instances * DESCRIPTOR_BYTES) as f64,
        );
        f
    }

    /// GPU memory of every buffer of the tier, the readback ring and the
    /// shared models (the height atlas is counted by its owner).
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.bytes + self.hiz().map_or(0, crate::hiz::HiZ::gpu_memory_bytes)
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

/// The `cull` parameter of grass `gpu-cull`.
pub const CULL_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "cull",
    kind: crate::technique::ParamKind::Choice {
        values: &["instance", "patch"],
        default: "instance",
    },
    description: "instance: test every clump of a visible patch and draw the compacted survivors (one draw per model); patch: draw whole visible patches",
};

/// The `lod-floor` parameter of grass `gpu-cull`.
pub const LOD_FLOOR_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "lod-floor",
    kind: crate::technique::ParamKind::Float {
        min: 0.0,
        max: 1.0,
        default: 1.0,
    },
    description: "distance LOD: share of clumps kept at the draw distance (1 = off); each clump's own hash decides, fading out before it drops (cull=instance)",
};

/// The `lod-start` parameter of grass `gpu-cull`.
pub const LOD_START_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "lod-start",
    kind: crate::technique::ParamKind::Float {
        min: 0.0,
        max: 0.95,
        default: 0.5,
    },
    description: "distance LOD: where thinning starts, as a fraction of the grass draw distance",
};

/// The `occlusion` parameter of grass `gpu-cull`.
pub const OCCLUSION_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "occlusion",
    kind: crate::technique::ParamKind::Choice {
        values: &["off", "on"],
        default: "off",
    },
    description: "Hi-Z occlusion: drop clumps the terrain drawn before them hides (a farthest-depth pyramid of this frame's terrain; cull=instance)",
};

/// Registry entry of grass `gpu-cull`.
pub const ENTRY: crate::technique::TechniqueEntry = crate::technique::TechniqueEntry {
    subsystem: crate::technique::Subsystem::Grass,
    name: "gpu-cull",
    summary: "compact per-placement descriptors in patches, compute patch culling, multi-draw-indirect, Z from the height atlas",
    params: &[
        PATCH_PARAM,
        CULL_PARAM,
        LOD_FLOOR_PARAM,
        LOD_START_PARAM,
        OCCLUSION_PARAM,
        crate::technique::MULTI_DRAW,
    ],
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
        let cull = match params.text(&CULL_PARAM) {
            "patch" => CullMode::Patch,
            _ => CullMode::Instance,
        };
        let lod = DistanceLod {
            start: params.float(&LOD_START_PARAM) as f32,
            floor: params.float(&LOD_FLOOR_PARAM) as f32,
        };
        let atlas = HeightAtlas::new(i.gpu, i.scene.world)?;
        let cull = GpuCull::new(
            i.gpu,
            i.models,
            i.scene.world,
            i.scene.placements.all(),
            &atlas,
            GpuCullOptions {
                patch,
                multi_draw,
                cull,
                lod,
                occlusion: params.text(&OCCLUSION_PARAM) == "on",
            },
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
