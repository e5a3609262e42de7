//! Terrain `gpu-cull`: the `terrain.cull` compute pass tests every resident
//! MCNK's conservative bounds (atlas record) against the frustum and the
//! draw distance and compacts the survivors with an atomic counter into
//! indexed indirect draws of the immutable template (first instance = atlas
//! slot); `terrain.draw` then draws them with one
//! `multi_draw_indexed_indirect_count` where the device has
//! [`Capability::MultiDrawIndirectCount`], otherwise with
//! `multi_draw_indexed_indirect` over all resident entries of an args buffer
//! cleared every frame (culled entries stay zero-instance draws). The vertex
//! stage is the `atlas-instanced` one reading the atlas record from storage.
//!
//! Per-frame CPU work does not grow with MCNKs: two small uniform writes, a
//! buffer clear, one dispatch, one multi-draw. The number of kept MCNKs is
//! read back a few frames late through a non-blocking map (counters only).
//!
//! - [`cull`]: uniforms, the indirect record and the CPU reference cull.

pub mod cull;

use std::sync::Mutex;

use sward_engine::graph::RenderGraph;
use sward_engine::lagged::LaggedReadback;
use sward_engine::targets::read_buffer;
use sward_engine::{Capability, GpuContext};
use sward_scenes::World;

use self::cull::{DrawIndexedArgs, TerrainCullUniforms};
use super::atlas_draw::{AtlasDraw, Feed};
use super::gpu::TerrainUniforms;
use super::template::TEMPLATE_TRIANGLES;
use super::PASS_DRAW;
use crate::atlas::AtlasChunkGpu;
use crate::error::PassError;
use crate::frame::{FrameView, PassTargets};

/// Technique name used in errors.
pub const TECHNIQUE: &str = "terrain.gpu-cull";
/// Name of the compute pass (also its puffin and GPU timestamp scope).
pub const PASS_CULL: &str = "terrain.cull";
/// Name of the pass that resets the counter (and, without the count
/// variant, the args).
pub const PASS_CLEAR: &str = "terrain.cull.clear";
/// Name of the pass that copies the counter for the lagged readback.
pub const PASS_READBACK: &str = "terrain.cull.readback";

/// Which multi-draw call draws the culled MCNKs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MdiVariant {
    /// `multi_draw_indexed_indirect_count`: the GPU counter is the draw count.
    Count,
    /// `multi_draw_indexed_indirect` over every resident entry; entries past
    /// the counter stay zeroed (zero-instance draws).
    Plain,
}

impl MdiVariant {
    /// The best variant `gpu` supports.
    pub fn for_device(gpu: &GpuContext) -> Self {
        if gpu.caps.has(Capability::MultiDrawIndirectCount) {
            MdiVariant::Count
        } else {
            MdiVariant::Plain
        }
    }

    /// Name used in reports (`multi_draw_indexed_indirect_count` / `multi_draw_indexed_indirect`).
    pub fn name(self) -> &'static str {
        match self {
            MdiVariant::Count => "multi_draw_indexed_indirect_count",
            MdiVariant::Plain => "multi_draw_indexed_indirect",
        }
    }
}

/// The `gpu-cull` terrain technique (see the module docs).
pub struct GpuCullTerrain {
    draw: AtlasDraw,
    variant: MdiVariant,
    chunk_count: u32,
    cull_pipeline: wgpu::ComputePipeline,
    cull_bind: wgpu::BindGroup,
    cull_uniforms: wgpu::Buffer,
    args: wgpu::Buffer,
    count: wgpu::Buffer,
    readback: Mutex<LaggedReadback>,
    /// Frames recorded (paces the readback).
    frame: u64,
    last_kept: Option<u32>,
}

impl GpuCullTerrain {
    /// Builds the technique for `world` with the best multi-draw variant the
    /// device has.
    pub fn new(gpu: &GpuContext, world: &World) -> Result<Self, PassError> {
        Self::with_variant(gpu, world, MdiVariant::for_device(gpu))
    }

    /// Builds the technique with a given multi-draw variant (tests compare
    /// both); `Count` on a device without it is an error.
    pub fn with_variant(
        gpu: &GpuContext,
        world: &World,
        variant: MdiVariant,
    ) -> Result<Self, PassError> {
        let device = &gpu.device;
        if variant == MdiVariant::Count && !gpu.caps.has(Capability::MultiDrawIndirectCount) {
            return Err(PassError::DeviceLimit {
                technique: TECHNIQUE,
                what: "multi_draw_indexed_indirect_count support".into(),
                needed: 1,
                limit: 0,
            });
        }
        log::info!("{TECHNIQUE}: drawing with {}", variant.name());
        let draw = AtlasDraw::new(gpu, world, Feed::Culled, TECHNIQUE)?;
        let chunk_count = draw.atlas.chunk_count() as u32;
        let args_size =
            (u64::from(chunk_count.max(1))) * std::mem::size_of::<DrawIndexedArgs>() as u64;
        let indirect = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::INDIRECT
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC;
        let args = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain.cull.args"),
            size: args_size,
            usage: indirect,
            mapped_at_creation: false,
        });
        let count = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain.cull.count"),
            size: 4,
            usage: indirect,
            mapped_at_creation: false,
        });
        let readback = LaggedReadback::new(device, "terrain.cull.count_readback", 4);
        let cull_uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain.cull.uniforms"),
            size: std::mem::size_of::<TerrainCullUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let shader = sward_engine::shader::create_shader(device, sward_wgsl::modules::TERRAIN_CULL)
            .map_err(|source| PassError::Shader {
                technique: TECHNIQUE,
                source,
            })?;
        let cs = wgpu::ShaderStages::COMPUTE;
        let buffer_entry = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: cs,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let storage = |read_only| wgpu::BufferBindingType::Storage { read_only };
        let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(PASS_CULL),
            entries: &[
                buffer_entry(0, wgpu::BufferBindingType::Uniform),
                buffer_entry(1, storage(true)),
                buffer_entry(2, storage(false)),
                buffer_entry(3, storage(false)),
            ],
        });
        fn entry(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
            wgpu::BindGroupEntry {
                binding,
                resource: buffer.as_entire_binding(),
            }
        }
        let cull_bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(PASS_CULL),
            layout: &bind_layout,
            entries: &[
                entry(0, &cull_uniforms),
                entry(1, draw.atlas.chunk_buffer()),
                entry(2, &args),
                entry(3, &count),
            ],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(PASS_CULL),
            bind_group_layouts: &[&bind_layout],
            push_constant_ranges: &[],
        });
        let cull_pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(PASS_CULL),
            layout: Some(&layout),
            module: &shader,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        Ok(GpuCullTerrain {
            draw,
            variant,
            chunk_count,
            cull_pipeline,
            cull_bind,
            cull_uniforms,
            args,
            count,
            readback: Mutex::new(readback),
            frame: 0,
            last_kept: None,
        })
    }

    /// The multi-draw variant this instance draws with.
    pub fn variant(&self) -> MdiVariant {
        self.variant
    }

    /// Resident MCNKs.
    pub fn chunk_count(&self) -> usize {
        self.chunk_count as usize
    }

    /// The atlas records (slot order): the bounds the cull tests.
    pub fn records(&self) -> &[AtlasChunkGpu] {
        self.draw.atlas.records()
    }

    /// Kept MCNKs of a recent frame (read back a few frames late), if known.
    pub fn last_kept(&self) -> Option<u32> {
        self.last_kept
    }

    /// Adds `terrain.cull.clear`, `terrain.cull`, (sometimes)
    /// `terrain.cull.readback` and `terrain.draw`.
    pub fn record<'a>(
        &'a mut self,
        gpu: &'a GpuContext,
        graph: &mut RenderGraph<'a>,
        view: &FrameView,
        targets: PassTargets,
    ) {
        self.draw.ensure_pipeline(&gpu.device, view.sample_count);
        self.frame += 1;
        let frame = self.frame;
        let mut copy_now = false;
        if let Ok(readback) = self.readback.get_mut() {
            readback.poll(frame);
            if let Some(&[kept, ..]) = readback.latest() {
                self.last_kept = Some(kept);
            }
            copy_now = readback.has_free_slot();
        }
        let view = *view;
        let this: &'a Self = self;
        let args = graph.import_buffer("terrain.cull.args", &this.args);
        let count = graph.import_buffer("terrain.cull.count", &this.count);
        graph
            .add_transfer_pass(PASS_CLEAR)
            .write(args)
            .write(count)
            .record(move |ctx| {
                ctx.encoder.clear_buffer(&this.count, 0, None);
                if this.variant == MdiVariant::Plain {
                    ctx.encoder.clear_buffer(&this.args, 0, None);
                }
            });
        graph
            .add_compute_pass(PASS_CULL)
            .read_write(args)
            .read_write(count)
            .needs(Capability::Compute)
            .record(move |ctx| {
                let u = TerrainCullUniforms::new(
                    view.frustum,
                    view.eye(),
                    view.settings.terrain_distance,
                    this.chunk_count,
                );
                let bytes = bytemuck::bytes_of(&u);
                ctx.queue.write_buffer(&this.cull_uniforms, 0, bytes);
                ctx.counters.bytes_uploaded += bytes.len() as u64;
                ctx.pass.set_pipeline(&this.cull_pipeline);
                ctx.pass.set_bind_group(0, &this.cull_bind, &[]);
                ctx.pass
                    .dispatch_workgroups(this.chunk_count.div_ceil(64).max(1), 1, 1);
                ctx.counters.instances_submitted += u64::from(this.chunk_count);
            });
        if copy_now {
            graph
                .add_transfer_pass(PASS_READBACK)
                .read(count)
                .record(move |ctx| {
                    if let Ok(mut readback) = this.readback.lock() {
                        readback.copy(ctx.encoder, &this.count, frame);
                    }
                });
        }
        let (color_load, depth_load) = targets.load_ops(&view.settings);
        let mut pass = graph
            .add_render_pass(PASS_DRAW)
            .read(args)
            .read(count)
            .needs(Capability::MultiDrawIndirect)
            .needs(Capability::IndirectFirstInstance)
            .needs(Capability::VertexStorage);
        if this.variant == MdiVariant::Count {
            pass = pass.needs(Capability::MultiDrawIndirectCount);
        }
        pass.color(targets.color, color_load, targets.resolve)
            .depth(targets.depth, depth_load, wgpu::StoreOp::Store)
            .record(move |ctx| {
                let Some(pipeline) = this.draw.pipeline(ctx.sample_count) else {
                    log::error!("{PASS_DRAW}: no pipeline for {} samples", ctx.sample_count);
                    return;
                };
                let bytes = TerrainUniforms::from_view(&view).to_bytes();
                ctx.queue.write_buffer(&this.draw.uniforms, 0, &bytes);
                ctx.counters.bytes_uploaded += bytes.len() as u64;
                if this.chunk_count == 0 {
                    return;
                }
                this.draw.bind(&mut ctx.pass, pipeline);
                match this.variant {
                    MdiVariant::Count => ctx.pass.multi_draw_indexed_indirect_count(
                        &this.args,
                        0,
                        &this.count,
                        0,
                        this.chunk_count,
                    ),
                    MdiVariant::Plain => {
                        ctx.pass
                            .multi_draw_indexed_indirect(&this.args, 0, this.chunk_count)
                    }
                }
                // Draw commands: every resident entry for the plain variant;
                // the (lagged) kept count for the count variant.
                let kept = this.last_kept.unwrap_or(this.chunk_count);
                ctx.counters.draw_calls += u64::from(match this.variant {
                    MdiVariant::Count => kept,
                    MdiVariant::Plain => this.chunk_count,
                });
                ctx.counters.instances_drawn += u64::from(kept);
                ctx.counters.triangles += u64::from(kept) * u64::from(TEMPLATE_TRIANGLES);
            });
    }

    /// Facts for the bench report: `terrain_mdi_count` (1 when
    /// `multi_draw_indexed_indirect_count` ran, 0 for the plain multi-draw),
    /// `terrain_mcnks_resident` and, once read back, `terrain_mcnks_kept`.
    pub fn facts(&self) -> std::collections::BTreeMap<String, f64> {
        let mut f = std::collections::BTreeMap::new();
        f.insert(
            "terrain_mdi_count".to_owned(),
            f64::from(u8::from(self.variant == MdiVariant::Count)),
        );
        f.insert(
            "terrain_mcnks_resident".to_owned(),
            f64::from(self.chunk_count),
        );
        if let Some(k) = self.last_kept {
            f.insert("terrain_mcnks_kept".to_owned(), f64::from(k));
        }
        f
    }

    /// Reads back the slots kept by the last executed `terrain.cull`, sorted
    /// (blocking; for tests and tools).
    pub fn read_kept(
        &self,
        gpu: &GpuContext,
    ) -> Result<Vec<u32>, sward_engine::targets::TargetError> {
        let count_bytes = read_buffer(&gpu.device, &gpu.queue, &self.count, 4)?;
        let n = u32::from_le_bytes([
            count_bytes[0],
            count_bytes[1],
            count_bytes[2],
            count_bytes[3],
        ])
        .min(self.chunk_count);
        if n == 0 {
            return Ok(Vec::new());
        }
        let size = u64::from(n) * std::mem::size_of::<DrawIndexedArgs>() as u64;
        let bytes = read_buffer(&gpu.device, &gpu.queue, &self.args, size)?;
        let args: &[DrawIndexedArgs] = bytemuck::cast_slice(&bytes);
        let mut slots: Vec<u32> = args.iter().map(|a| a.first_instance).collect();
        slots.sort_unstable();
        Ok(slots)
    }

    /// Bytes of GPU memory (atlas, splat data, template, uniforms, args, counter).
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.draw.gpu_memory_bytes()
            + self.args.size()
            + self.count.size()
            + self.readback.lock().map_or(0, |r| r.bytes())
            + self.cull_uniforms.size()
    }
}

/// Registry entry of terrain `gpu-cull`.
pub const ENTRY: crate::technique::TechniqueEntry = crate::technique::TechniqueEntry {
    subsystem: crate::technique::Subsystem::Terrain,
    name: "gpu-cull",
    summary: "compute culling of MCNKs (distance + frustum) and multi-draw-indirect of the atlas template",
    params: &[crate::technique::MULTI_DRAW],
    requires: crate::technique::GPU_CULL_CAPABILITIES,
    fallback: Some("atlas-instanced"),
    build: |i, params| {
        let variant = if crate::technique::count_variant(i.gpu, TECHNIQUE, params)? {
            MdiVariant::Count
        } else {
            MdiVariant::Plain
        };
        Ok(Box::new(GpuCullTerrain::with_variant(
            i.gpu,
            i.scene.world,
            variant,
        )?))
    },
};

impl crate::technique::Technique for GpuCullTerrain {
    fn record<'a>(
        &'a mut self,
        inputs: crate::technique::RecordInputs<'a>,
        graph: &mut RenderGraph<'a>,
        view: &FrameView,
        targets: PassTargets,
    ) {
        GpuCullTerrain::record(self, inputs.gpu, graph, view, targets);
    }

    fn gpu_memory_bytes(&self) -> u64 {
        GpuCullTerrain::gpu_memory_bytes(self)
    }

    fn facts(
        &self,
        _scene: &crate::renderer::SceneData<'_>,
    ) -> std::collections::BTreeMap<String, f64> {
        GpuCullTerrain::facts(self)
    }
}
