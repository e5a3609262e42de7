//! Construction of a [`GpuCull`]: a whole-window build packed exactly
//! ([`GpuCull::new`]) or an empty streaming tier with pools of a given
//! capacity ([`GpuCull::empty`]); the pool, uniform and compaction buffers,
//! the cull and draw pipelines, and the device limits they must fit.

use std::collections::BTreeMap;

use sward_engine::lagged::LaggedReadback;
use sward_engine::{Capability, GpuContext};
use sward_scenes::{Placements, TileCoord, World};

use super::cull::{CullModel, GRASS_CULL_BYTES};
use super::descriptor::DESCRIPTOR_BYTES;
use super::draw::{
    cull_pipelines, instance_pipelines, root_group_layout, DrawPipelines, CULL_WORKGROUP,
};
use super::groups::{draw_group, instance_groups, no_hiz_group, patch_group};
use super::patches::{ModelReach, PatchSet};
use super::pool::{PagePool, Pools};
use super::{
    gate, instances, Capacity, Compaction, CullMode, GpuCull, GpuCullOptions, MultiDraw, PatchSize,
    ARGS_BYTES, DESC_PAGE, ENTRY_BYTES, ENTRY_PAGE, PATCH_BYTES,
};
use crate::atlas::HeightAtlas;
use crate::error::PassError;
use crate::grass::models::GrassModels;
use crate::grass::static_batch::uniform_buffer;

/// The key of the one pseudo-tile a whole-window build ([`GpuCull::new`])
/// places everything under.
const WHOLE: TileCoord = TileCoord {
    x: u32::MAX,
    y: u32::MAX,
};

pub(super) fn pool_buffer(
    gpu: &GpuContext,
    label: &str,
    bytes: u64,
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    // Bindings need a non-empty buffer; keep at least 64 bytes.
    gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes.max(64).next_multiple_of(4),
        usage,
        mapped_at_creation: false,
    })
}

fn too_big(what: &str, needed: u64, limit: u64) -> PassError {
    PassError::DeviceLimit {
        technique: "grass.gpu-cull",
        what: what.into(),
        needed,
        limit,
    }
}

impl GpuCull {
    /// Builds the patches of `placements` (the resident window of `world`)
    /// and uploads them with the cull and draw state, packed with nothing
    /// between them (one pseudo-tile filling each pool exactly). `atlas`
    /// must be the height atlas of the same window.
    pub fn new(
        gpu: &GpuContext,
        models: &GrassModels,
        world: &World,
        placements: &Placements,
        atlas: &HeightAtlas,
        options: GpuCullOptions,
    ) -> Result<Self, PassError> {
        let set = PatchSet::build(world, placements, &reach_of(models), options.patch)?;
        let pools = Pools {
            desc_page: (set.descriptors.len() as u32).max(1),
            entry_page: (set.entries.len() as u32).max(1),
            patch_block: (set.patch_count() as u32).max(1),
        };
        let capacity = Capacity {
            desc_pages: 1,
            entry_pages: 1,
            slots: 1,
        };
        let mut t = Self::empty(gpu, models, atlas, options, pools, capacity)?;
        t.insert(gpu, WHOLE, &set, atlas, None)?;
        t.commit(gpu, models);
        // The pools' writes are staged for the next submission: sent now, so
        // the built cull holds its world for any submission that follows.
        gpu.flush_copies();
        Ok(t)
    }

    /// The pool unit sizes of a streaming tier with patches of `patch`.
    pub fn streaming_pools(patch: PatchSize) -> Pools {
        let side = 16 / patch.chunks();
        Pools {
            desc_page: DESC_PAGE,
            entry_page: ENTRY_PAGE,
            patch_block: side * side,
        }
    }

    /// A tier holding no tile yet, with pools of `pools` units and
    /// `capacity`; tiles come with [`Self::set_tile`], and
    /// [`Self::commit`] publishes them.
    pub fn empty(
        gpu: &GpuContext,
        models: &GrassModels,
        atlas: &HeightAtlas,
        options: GpuCullOptions,
        pools: Pools,
        capacity: Capacity,
    ) -> Result<Self, PassError> {
        let device = &gpu.device;
        let multi_draw =
            options
                .multi_draw
                .unwrap_or(if gpu.caps.has(Capability::MultiDrawIndirectCount) {
                    MultiDraw::Count
                } else {
                    MultiDraw::Plain
                });
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
        let storage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let desc_slots = u64::from(capacity.desc_pages) * u64::from(pools.desc_page);
        let entry_slots = u64::from(capacity.entry_pages) * u64::from(pools.entry_page);
        // The descriptor pool is one storage binding: refused here, before
        // a bind group over it would fail wgpu's validation.
        let binding = u64::from(device.limits().max_storage_buffer_binding_size);
        if desc_slots * DESCRIPTOR_BYTES > binding {
            return Err(too_big(
                "descriptor buffer (bytes)",
                desc_slots * DESCRIPTOR_BYTES,
                binding,
            ));
        }
        let descriptors = pool_buffer(
            gpu,
            "grass.descriptors",
            desc_slots * DESCRIPTOR_BYTES,
            storage,
        );
        let patches = pool_buffer(
            gpu,
            "grass.patches",
            u64::from(capacity.slots * pools.patch_block) * PATCH_BYTES,
            storage,
        );
        let entries = pool_buffer(gpu, "grass.entries", entry_slots * ENTRY_BYTES, storage);
        let cull_models = pool_buffer(
            gpu,
            "grass.cull_models",
            models.len() as u64 * std::mem::size_of::<CullModel>() as u64,
            storage,
        );
        let cull_uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("grass.cull.uniforms"),
            size: GRASS_CULL_BYTES,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let frame_uniform = uniform_buffer(gpu);
        let group2 = root_group_layout(device, wgpu::ShaderStages::VERTEX, instance_mode);
        let (compaction, readback_size) = if instance_mode {
            let header = instances::State::header_words(models.len());
            let state = Self::state_buffer(gpu, models.len(), entry_slots);
            let visible = Self::visible_buffer(gpu, desc_slots);
            let dispatch = pool_buffer(gpu, "grass.cull.dispatch", 16, indirect_usage());
            let pipelines = instance_pipelines(device)?;
            let no_hiz_group = no_hiz_group(device, &pipelines);
            let hiz = if options.occlusion {
                Some((crate::hiz::HiZ::new(device, crate::hiz::PASS_HIZ)?, None))
            } else {
                None
            };
            let [patch_group, bind_group, roots_group] = instance_groups(
                device,
                &pipelines,
                [
                    &cull_uniform,
                    &entries,
                    &cull_models,
                    &state,
                    &dispatch,
                    &visible,
                ],
                [&descriptors, &patches],
                atlas,
            );
            let compaction = Compaction::Instances {
                state,
                dispatch,
                patch_group,
                visible,
                initial: Vec::new(),
                regions: Vec::new(),
                pipelines,
                bind_group,
                roots_group,
                no_hiz_group,
                hiz,
                shared_hiz: None,
            };
            (compaction, header as u64 * 4)
        } else {
            let args = pool_buffer(
                gpu,
                "grass.args",
                entry_slots * ARGS_BYTES,
                indirect_usage(),
            );
            let counts_size = (2 * models.len() as u64 * 4).max(16);
            let counts = pool_buffer(gpu, "grass.counts", counts_size, indirect_usage());
            let pipelines = cull_pipelines(device)?;
            let bind_group = patch_group(
                device,
                &pipelines,
                [&cull_uniform, &entries, &cull_models, &args, &counts],
            );
            let compaction = Compaction::Patches {
                args,
                counts,
                pipelines,
                bind_group,
            };
            (compaction, counts_size)
        };
        let visible = match &compaction {
            Compaction::Instances { visible, .. } => Some(visible),
            Compaction::Patches { .. } => None,
        };
        let draw_bind_group = draw_group(
            device,
            &group2,
            [&descriptors, &patches],
            atlas,
            visible,
            &cull_uniform,
        );
        let entry = if instance_mode {
            "vs_visible"
        } else {
            "vs_main"
        };
        let pipelines = DrawPipelines::new(device, models, &group2, entry)?;
        let frame_bind_group = models.frame_bind_group(device, &frame_uniform);
        let readback = LaggedReadback::new(device, "grass.cull.readback", readback_size);
        let t = GpuCull {
            patch: options.patch,
            multi_draw,
            lod: options.lod,
            max_groups: device.limits().max_compute_workgroups_per_dimension,
            reach: reach_of(models),
            window_origin: atlas.window().origin,
            pools,
            desc_pool: PagePool::new(capacity.desc_pages),
            entry_pool: PagePool::new(capacity.entry_pages),
            slot_pool: PagePool::new(capacity.slots),
            tiles: BTreeMap::new(),
            patch_count: 0,
            entry_count: 0,
            entry_slots: 0,
            model_count: models.len() as u32,
            model_entries: vec![0..0; models.len()],
            descriptors,
            patches,
            entries,
            cull_models,
            compaction,
            cull_uniform,
            frame_uniform,
            frame_bind_group,
            group2,
            draw_bind_group,
            pipelines,
            readback: std::sync::Mutex::new(readback),
            readback_size,
            frame: 0,
            warned_no_occluder: false,
            terrain_pyramid_frames: 0,
            gate: (options.occlusion && options.occlusion_auto).then(gate::OcclusionGate::default),
            model_instances: vec![0; models.len()],
            instances: 0,
            models_bytes: models.gpu_memory_bytes(),
            generated: None,
        };
        t.check_limits(gpu)?;
        Ok(t)
    }

    pub(super) fn state_buffer(gpu: &GpuContext, models: usize, entry_slots: u64) -> wgpu::Buffer {
        let words = instances::State::words(models, entry_slots as usize);
        pool_buffer(gpu, "grass.cull.state", words as u64 * 4, indirect_usage())
    }

    pub(super) fn visible_buffer(gpu: &GpuContext, desc_slots: u64) -> wgpu::Buffer {
        pool_buffer(
            gpu,
            "grass.visible",
            desc_slots * 4,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        )
    }

    pub(super) fn check_limits(&self, gpu: &GpuContext) -> Result<(), PassError> {
        let limits = gpu.device.limits();
        let binding = u64::from(limits.max_storage_buffer_binding_size);
        let descriptor_bytes = self.descriptors.size();
        if descriptor_bytes > binding {
            return Err(too_big(
                "descriptor buffer (bytes)",
                descriptor_bytes,
                binding,
            ));
        }
        let slots = u64::from(self.entry_pool.capacity()) * u64::from(self.pools.entry_page);
        let groups = slots.div_ceil(u64::from(CULL_WORKGROUP));
        let max_groups = u64::from(limits.max_compute_workgroups_per_dimension);
        if groups > max_groups {
            return Err(too_big("cull workgroups", groups, max_groups));
        }
        Ok(())
    }
}

/// Each model's reach (radius, sway height) for the patch bounds.
pub(super) fn reach_of(models: &GrassModels) -> Vec<ModelReach> {
    models
        .models
        .iter()
        .map(|m| ModelReach {
            radius: m.radius,
            sway_height: m.height,
        })
        .collect()
}

pub(super) fn indirect_usage() -> wgpu::BufferUsages {
    wgpu::BufferUsages::STORAGE
        | wgpu::BufferUsages::INDIRECT
        | wgpu::BufferUsages::COPY_SRC
        | wgpu::BufferUsages::COPY_DST
}
