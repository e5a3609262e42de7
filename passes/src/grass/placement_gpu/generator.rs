//! The `grass.place` compute pass: its pipeline (one per policy, from
//! `placement_generate.wgsl`), its two bind group layouts (group 0: the
//! generator's buffers; group 1: the height atlas) and the buffers of one
//! generation ([`Generation`]); [`PlacementGenerator::generate`] runs one
//! generation on its own submission and reads the placements back (inspect
//! and the parity tests).
//!
//! Phase two (grass `gpu-cull:placement=gpu`) records [`PlacementGenerator::dispatch`]
//! inside a graph pass instead, with the records of the MCNKs it keeps, and
//! reads `placed` on the GPU.

use sward_engine::bind::{self, Slot};
use sward_engine::{Capability, GpuContext};
use sward_scenes::Policy;
use wgpu::util::DeviceExt;

use super::gpu::{ChunkStatsGpu, PlaceChunkGpu, PlaceParamsGpu, PlacedGpu, WORKGROUP};
use super::records::{params, EffectTable};
use super::PlacementGpuError;
use crate::atlas::HeightAtlas;
use crate::error::PassError;

/// Name of the generation pass (its label, puffin and GPU scope).
pub const PASS_PLACE: &str = "grass.place";

/// The WGSL entry point that runs `policy`.
pub fn entry_point(policy: &Policy) -> &'static str {
    match policy {
        Policy::Client(_) => "generate_client",
        Policy::Client335(_) => "generate_client335",
        Policy::PerCell(_) => "generate_per_cell",
    }
}

/// The generation pipeline of one policy and its bind group layouts.
pub struct PlacementGenerator {
    policy: Policy,
    layout: wgpu::BindGroupLayout,
    atlas_layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
}

/// What one generation reads: the policy (of the generator's kind: its
/// parameters, such as the density setting, may differ), records (one per
/// MCNK), the per-cell coverage blocks (`per-cell` only; empty otherwise),
/// the effect table and the output's room.
pub struct GenerationInputs<'a> {
    /// The policy with its parameters.
    pub policy: &'a Policy,
    /// One record per MCNK to generate.
    pub records: &'a [PlaceChunkGpu],
    /// `COVER_WORDS` words per record for `per-cell`; may be empty for the
    /// client routines.
    pub cover: &'a [u32],
    /// The effect table the records index.
    pub effects: &'a EffectTable,
    /// Placements the output holds (an upper bound of what is generated).
    pub capacity: u32,
}

/// The buffers and group 0 of one generation.
pub struct Generation {
    /// `placed`: the generated placements.
    pub placed: wgpu::Buffer,
    /// `place_counts`: the placement count (first word).
    pub counts: wgpu::Buffer,
    /// `place_stats`: per-record counters.
    pub stats: wgpu::Buffer,
    /// Group 0 over the generation's buffers.
    pub group: wgpu::BindGroup,
    /// Records generated.
    pub record_count: u32,
    /// Room in `placed`.
    pub capacity: u32,
    _inputs: [wgpu::Buffer; 4],
}

/// A generation read back: the placements (in the order the GPU wrote
/// them), the per-record counters and the placement count.
#[derive(Debug, Clone, Default)]
pub struct Generated {
    /// Generated placements, any order (each carries its record, pick, n).
    pub placements: Vec<PlacedGpu>,
    /// Counters per record, in record order.
    pub stats: Vec<ChunkStatsGpu>,
}

fn storage_init(device: &wgpu::Device, label: &str, bytes: &[u8]) -> wgpu::Buffer {
    // A binding needs at least 4 bytes; an empty list binds a zero word.
    let zero = [0u8; 16];
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: if bytes.is_empty() { &zero } else { bytes },
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
    })
}

fn output(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: size.max(16),
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

impl PlacementGenerator {
    /// The pipeline of `policy`'s kind on `gpu` (needs compute).
    pub fn new(gpu: &GpuContext, policy: &Policy) -> Result<Self, PlacementGpuError> {
        let shader = crate::error::create_shader(
            &gpu.device,
            sward_wgsl::modules::PLACEMENT_GENERATE,
            PASS_PLACE,
        )?;
        Self::with_shader(gpu, policy, shader)
    }

    /// [`Self::new`] with the generation module composed from `library`
    /// (modules replaced by deliberately wrong variants: the parity tests
    /// show they fail).
    #[cfg(test)]
    pub(crate) fn with_library(
        gpu: &GpuContext,
        policy: &Policy,
        library: &[sward_wgsl::Module],
    ) -> Result<Self, PlacementGpuError> {
        let shader_error = PassError::shader(PASS_PLACE);
        let source =
            sward_wgsl::link::compose_with(sward_wgsl::modules::PLACEMENT_GENERATE, library)
                .map_err(|e| shader_error(e.into()))?;
        sward_wgsl::validate_source(&source).map_err(shader_error)?;
        let shader = gpu
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("placement_generate (test variant)"),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            });
        Self::with_shader(gpu, policy, shader)
    }

    fn with_shader(
        gpu: &GpuContext,
        policy: &Policy,
        shader: wgpu::ShaderModule,
    ) -> Result<Self, PlacementGpuError> {
        if !gpu.caps.has(Capability::Compute) {
            return Err(PassError::MissingCapability {
                technique: PASS_PLACE,
                what: "placement generation".into(),
                capability: Capability::Compute,
            }
            .into());
        }
        let device = &gpu.device;
        let layout = bind::layout(
            device,
            PASS_PLACE,
            &bind::entries(
                wgpu::ShaderStages::COMPUTE,
                &[
                    Slot::STORAGE_READ, // 0 params (storage, not uniform: see placement_io.wgsl)
                    Slot::STORAGE_READ, // 1 records
                    Slot::STORAGE_READ, // 2 effects
                    Slot::STORAGE_READ, // 3 cover
                    Slot::STORAGE_RW,   // 4 placed
                    Slot::STORAGE_RW,   // 5 counts
                    Slot::STORAGE_RW,   // 6 stats
                ],
            ),
        );
        let atlas_layout = bind::layout(
            device,
            "grass.place.atlas",
            &HeightAtlas::layout_entries(0, wgpu::ShaderStages::COMPUTE),
        );
        let pipeline = bind::compute_pipeline(
            device,
            PASS_PLACE,
            &[&layout, &atlas_layout],
            &shader,
            entry_point(policy),
        );
        Ok(Self {
            policy: *policy,
            layout,
            atlas_layout,
            pipeline,
        })
    }

    /// The policy this generator runs.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Group 1 over `atlas` (the records' slots index it).
    pub fn atlas_group(&self, device: &wgpu::Device, atlas: &HeightAtlas) -> wgpu::BindGroup {
        bind::group_of(
            device,
            "grass.place.atlas",
            &self.atlas_layout,
            &atlas.bind_entries(0),
        )
    }

    /// The buffers and group 0 of a generation of `inputs`.
    pub fn generation(
        &self,
        device: &wgpu::Device,
        inputs: &GenerationInputs<'_>,
    ) -> Result<Generation, PlacementGpuError> {
        let record_count =
            u32::try_from(inputs.records.len()).map_err(|_| PlacementGpuError::Input {
                what: "records".into(),
                reason: format!("{} records", inputs.records.len()),
            })?;
        let placed_bytes = u64::from(inputs.capacity) * std::mem::size_of::<PlacedGpu>() as u64;
        let limit = device.limits().max_storage_buffer_binding_size;
        if placed_bytes > u64::from(limit) {
            return Err(PassError::DeviceLimit {
                technique: PASS_PLACE,
                what: format!(
                    "room for {} placements of {record_count} MCNKs (generate fewer MCNKs at once)",
                    inputs.capacity
                ),
                needed: placed_bytes,
                limit: u64::from(limit),
            }
            .into());
        }
        if entry_point(inputs.policy) != entry_point(&self.policy) {
            return Err(PlacementGpuError::Input {
                what: "generation".into(),
                reason: format!(
                    "`{}` placement asked of the `{}` generator",
                    inputs.policy.name(),
                    self.policy.name()
                ),
            });
        }
        let params: PlaceParamsGpu = params(inputs.policy, record_count, inputs.capacity);
        let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("grass.place.params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let records = storage_init(
            device,
            "grass.place.records",
            bytemuck::cast_slice(inputs.records),
        );
        let effects = storage_init(
            device,
            "grass.place.effects",
            bytemuck::cast_slice(inputs.effects.entries()),
        );
        let cover = storage_init(
            device,
            "grass.place.cover",
            bytemuck::cast_slice(inputs.cover),
        );
        let placed = output(device, "grass.place.placed", placed_bytes);
        let counts = output(device, "grass.place.counts", 16);
        let stats = output(
            device,
            "grass.place.stats",
            u64::from(record_count) * std::mem::size_of::<ChunkStatsGpu>() as u64,
        );
        let group = bind::buffer_group(
            device,
            PASS_PLACE,
            &self.layout,
            &[
                &uniform, &records, &effects, &cover, &placed, &counts, &stats,
            ],
        );
        Ok(Generation {
            placed,
            counts,
            stats,
            group,
            record_count,
            capacity: inputs.capacity,
            _inputs: [uniform, records, effects, cover],
        })
    }

    /// Records the generation's dispatch into `pass` (the counts must be
    /// zero: a new [`Generation`]'s are).
    pub fn dispatch(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        generation: &Generation,
        atlas_group: &wgpu::BindGroup,
    ) {
        if generation.record_count == 0 {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &generation.group, &[]);
        pass.set_bind_group(1, atlas_group, &[]);
        pass.dispatch_workgroups(generation.record_count.div_ceil(WORKGROUP), 1, 1);
    }

    /// Generates `inputs` over `atlas` on its own submission and reads the
    /// result back (blocking). More placements than `inputs.capacity` is an
    /// error (the capacity is meant to be an upper bound).
    pub fn generate(
        &self,
        gpu: &GpuContext,
        atlas: &HeightAtlas,
        inputs: &GenerationInputs<'_>,
    ) -> Result<Generated, PlacementGpuError> {
        let device = &gpu.device;
        let generation = self.generation(device, inputs)?;
        let atlas_group = self.atlas_group(device, atlas);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some(PASS_PLACE),
        });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(PASS_PLACE),
                timestamp_writes: None,
            });
            self.dispatch(&mut pass, &generation, &atlas_group);
        }
        gpu.queue.submit([encoder.finish()]);
        let read = |buffer: &wgpu::Buffer, size: u64| {
            sward_engine::targets::read_buffer(device, &gpu.queue, buffer, size)
                .map_err(|e| PlacementGpuError::Readback(e.to_string()))
        };
        let count_bytes = read(&generation.counts, 4)?;
        let count = u32::from_le_bytes([
            count_bytes[0],
            count_bytes[1],
            count_bytes[2],
            count_bytes[3],
        ]);
        if count > generation.capacity {
            return Err(PlacementGpuError::Capacity {
                generated: count,
                capacity: generation.capacity,
            });
        }
        let placed_size = u64::from(count) * std::mem::size_of::<PlacedGpu>() as u64;
        let placements = if count == 0 {
            Vec::new()
        } else {
            bytemuck::pod_collect_to_vec(&read(&generation.placed, placed_size)?)
        };
        let stats_size =
            u64::from(generation.record_count) * std::mem::size_of::<ChunkStatsGpu>() as u64;
        let stats = if generation.record_count == 0 {
            Vec::new()
        } else {
            bytemuck::pod_collect_to_vec(&read(&generation.stats, stats_size)?)
        };
        Ok(Generated { placements, stats })
    }
}
