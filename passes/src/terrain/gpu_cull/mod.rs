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
//! The cull runs over the atlas slots handed out so far
//! ([`HeightAtlas::slot_count`](crate::atlas::HeightAtlas::slot_count)),
//! live or free: a free slot's record is
//! [`AtlasChunkGpu::EMPTY`](crate::atlas::AtlasChunkGpu::EMPTY), whose far-away bounds every frustum and
//! distance test rejects. For a streaming world the args buffers are sized
//! for the atlas capacity and a residency change only updates one tile of
//! the splat data in place ([`GpuCullTerrain::set_tile`]). The atlas is
//! given, not owned: the renderer's shared one
//! ([`crate::technique::SharedResources`]), which it updates once per tile
//! change for every technique that binds it.
//!
//! - [`cull`]: uniforms, the indirect record and the CPU reference cull.

pub mod cull;
pub mod occlusion;

use std::sync::Mutex;

use sward_engine::bind::{self, Slot};
use sward_engine::graph::{BufferId, RenderGraph};
use sward_engine::lagged::{add_copy_pass, LaggedReadback};
use sward_engine::targets::read_buffer;
use sward_engine::{Capability, GpuContext};
use sward_scenes::formats::TextureUpload;
use sward_scenes::world::coords::TileCoord;
use sward_scenes::World;

use self::cull::{DrawIndexedArgs, TerrainCullUniforms};
use super::atlas_draw::{AtlasDraw, Feed};
use super::gpu::TerrainUniforms;
use super::template::TEMPLATE_TRIANGLES;
use super::PASS_DRAW;
use crate::atlas::{AtlasReach, HeightAtlas};
use crate::error::PassError;
use crate::frame::{Frame, FrameView, PassTargets};

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
    /// The atlas records (a handle on the given atlas's buffer), which the
    /// cull and the occlusion cull bind.
    atlas_records: wgpu::Buffer,
    /// Resident MCNKs in the atlas (as of the build or the last tile change).
    resident: usize,
    variant: MdiVariant,
    /// Atlas slots handed out (live or free): what the cull iterates and
    /// where the phase-two region of the args starts.
    chunk_count: u32,
    /// Slots the args regions and the rejected list have room for.
    capacity: u32,
    cull_pipeline: wgpu::ComputePipeline,
    cull_bind: wgpu::BindGroup,
    cull_uniforms: wgpu::Buffer,
    /// Phase-one draws from 0; with occlusion, phase-two draws from
    /// `chunk_count`.
    args: wgpu::Buffer,
    /// Draw counts: phase one, phase two, occluded MCNKs, unused.
    count: wgpu::Buffer,
    readback: Mutex<LaggedReadback>,
    /// Frames recorded (paces the readback).
    frame: u64,
    /// Phase-one draws, phase-two draws and occluded MCNKs of a recent frame.
    last_counts: Option<[u32; 3]>,
    occlusion: Option<Occlusion>,
}

/// Two-phase occlusion state ([`occlusion`]).
struct Occlusion {
    hiz: crate::hiz::HiZ,
    uniforms: wgpu::Buffer,
    rejected: wgpu::Buffer,
    bind: wgpu::BindGroup,
    hiz_layout: wgpu::BindGroupLayout,
    /// Group 1 over the pyramid (remade with it).
    hiz_group: Option<wgpu::BindGroup>,
    /// Phase one against last frame's pyramid, and (`PREVIOUS` off) the
    /// frame after a new pyramid, which only culls by frustum and distance.
    phase_one: wgpu::ComputePipeline,
    phase_one_fresh: wgpu::ComputePipeline,
    phase_two: wgpu::ComputePipeline,
    /// Whether the pyramid holds last frame's depth.
    previous: bool,
}

impl GpuCullTerrain {
    /// Builds the technique for `world` with the best multi-draw variant the
    /// device has.
    pub fn new(gpu: &GpuContext, world: &World, atlas: &HeightAtlas) -> Result<Self, PassError> {
        Self::with_variant(gpu, world, atlas, MdiVariant::for_device(gpu))
    }

    /// [`Self::with_variant`] with two-phase Hi-Z occlusion culling on.
    pub fn with_occlusion(
        gpu: &GpuContext,
        world: &World,
        atlas: &HeightAtlas,
        variant: MdiVariant,
    ) -> Result<Self, PassError> {
        Self::with_reach(gpu, world, atlas, None, variant, true, TextureUpload::Auto)
    }

    /// The technique over `atlas` (built for `world` with `reach`'s atlas
    /// reach) with `variant`, occlusion on or off, and for a streaming
    /// world (`reach`: the atlas reach and the most tiles resident at once)
    /// room for every tile that may become resident, so [`Self::set_tile`]
    /// follows residency in place. DXT tileset textures go to the GPU as
    /// `upload` says.
    pub fn with_reach(
        gpu: &GpuContext,
        world: &World,
        atlas: &HeightAtlas,
        reach: Option<(AtlasReach, usize)>,
        variant: MdiVariant,
        occlusion: bool,
        upload: TextureUpload,
    ) -> Result<Self, PassError> {
        let mut t = Self::build(gpu, world, atlas, reach, variant, upload)?;
        if occlusion {
            t.occlusion = Some(t.build_occlusion(gpu)?);
        }
        Ok(t)
    }

    /// Streaming builds: makes tile `tile` of `world` resident in the
    /// splat data (replacing it if it was) or evicts it when `world` no
    /// longer has it, after `atlas` did (its owner updates it first); the
    /// cull then covers the atlas's slots. `splat` is the tile's alpha block
    /// prepared on a worker. The occlusion pyramid's history starts over, as
    /// in a fresh build; the lagged counters carry on (the previous world's
    /// until the next readback). Returns the bytes written, or `Ok(None)`
    /// when this was built whole or has no room.
    pub fn set_tile(
        &mut self,
        gpu: &GpuContext,
        world: &World,
        atlas: &HeightAtlas,
        tile: TileCoord,
        splat: Option<super::splat_gpu::SplatTile>,
    ) -> Result<Option<u64>, PassError> {
        let Some(bytes) = self.draw.set_tile(gpu, world, atlas, tile, splat)? else {
            return Ok(None);
        };
        let slots = atlas.slot_count() as u32;
        if slots > self.capacity {
            return Ok(None);
        }
        self.chunk_count = slots;
        self.resident = atlas.chunk_count();
        if let Some(o) = self.occlusion.as_mut() {
            o.previous = false;
        }
        Ok(Some(bytes))
    }

    fn build_occlusion(&self, gpu: &GpuContext) -> Result<Occlusion, PassError> {
        let device = &gpu.device;
        let shader = crate::error::create_shader(
            device,
            sward_wgsl::modules::TERRAIN_CULL_OCCLUSION,
            TECHNIQUE,
        )?;
        // Cull uniforms, chunk records, draw args, draw count, occlusion
        // uniforms, rejected chunk list.
        let layout0 = bind::layout(
            device,
            "terrain.cull.occlusion",
            &bind::entries(
                wgpu::ShaderStages::COMPUTE,
                &[
                    Slot::Uniform,
                    Slot::STORAGE_READ,
                    Slot::STORAGE_RW,
                    Slot::STORAGE_RW,
                    Slot::Uniform,
                    Slot::STORAGE_RW,
                ],
            ),
        );
        let hiz_layout = crate::hiz::pyramid_layout(device, "terrain.cull.hiz");
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain.cull.occlusion.uniforms"),
            size: std::mem::size_of::<occlusion::TerrainOcclusion>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let rejected = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain.cull.rejected"),
            size: (u64::from(self.capacity) + 1) * 4,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind = bind::buffer_group(
            device,
            "terrain.cull.occlusion",
            &layout0,
            &[
                &self.cull_uniforms,
                &self.atlas_records,
                &self.args,
                &self.count,
                &uniforms,
                &rejected,
            ],
        );
        let layout =
            bind::pipeline_layout(device, "terrain.cull.occlusion", &[&layout0, &hiz_layout]);
        let pipeline = |entry_point: &str| {
            bind::compute_pipeline_with(device, PASS_CULL, &layout, &shader, entry_point)
        };
        let [phase_one_fresh, phase_one] = bind::compute_pipelines_flagged(
            device,
            PASS_CULL,
            &layout,
            &shader,
            "phase_one",
            "PREVIOUS",
        );
        Ok(Occlusion {
            hiz: crate::hiz::HiZ::new(device, occlusion::PASS_HIZ)?,
            uniforms,
            rejected,
            bind,
            hiz_layout,
            hiz_group: None,
            phase_one,
            phase_one_fresh,
            phase_two: pipeline("phase_two"),
            previous: false,
        })
    }

    /// Whether two-phase occlusion culling is on.
    pub fn occlusion_on(&self) -> bool {
        self.occlusion.is_some()
    }

    /// The Hi-Z pyramid (occlusion on, after a frame; tests).
    pub fn hiz(&self) -> Option<&crate::hiz::HiZ> {
        self.occlusion.as_ref().map(|o| &o.hiz)
    }

    /// Builds the technique with a given multi-draw variant (tests compare
    /// both); `Count` on a device without it is an error.
    pub fn with_variant(
        gpu: &GpuContext,
        world: &World,
        atlas: &HeightAtlas,
        variant: MdiVariant,
    ) -> Result<Self, PassError> {
        Self::with_reach(gpu, world, atlas, None, variant, false, TextureUpload::Auto)
    }

    fn build(
        gpu: &GpuContext,
        world: &World,
        atlas: &HeightAtlas,
        reach: Option<(AtlasReach, usize)>,
        variant: MdiVariant,
        upload: TextureUpload,
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
        let draw = AtlasDraw::new(gpu, world, atlas, reach, Feed::Culled, TECHNIQUE, upload)?;
        let chunk_count = atlas.slot_count() as u32;
        let capacity = if reach.is_some() {
            atlas.layout().capacity().max(chunk_count)
        } else {
            chunk_count
        };
        // Two regions: phase one, and phase two of the occlusion cull.
        let args_size =
            2 * (u64::from(capacity.max(1))) * std::mem::size_of::<DrawIndexedArgs>() as u64;
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
            size: 16,
            usage: indirect,
            mapped_at_creation: false,
        });
        let readback = LaggedReadback::new(device, "terrain.cull.count_readback", 16);
        let cull_uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain.cull.uniforms"),
            size: std::mem::size_of::<TerrainCullUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let shader =
            crate::error::create_shader(device, sward_wgsl::modules::TERRAIN_CULL, TECHNIQUE)?;
        // Cull uniforms, chunk records, draw args, draw count.
        let bind_layout = bind::layout(
            device,
            PASS_CULL,
            &bind::entries(
                wgpu::ShaderStages::COMPUTE,
                &[
                    Slot::Uniform,
                    Slot::STORAGE_READ,
                    Slot::STORAGE_RW,
                    Slot::STORAGE_RW,
                ],
            ),
        );
        let cull_bind = bind::group(
            device,
            PASS_CULL,
            &bind_layout,
            &[
                cull_uniforms.as_entire_binding(),
                atlas.chunk_buffer().as_entire_binding(),
                args.as_entire_binding(),
                count.as_entire_binding(),
            ],
        );
        let cull_pipeline =
            bind::compute_pipeline(device, PASS_CULL, &[&bind_layout], &shader, "main");
        Ok(GpuCullTerrain {
            draw,
            atlas_records: atlas.chunk_buffer().clone(),
            resident: atlas.chunk_count(),
            variant,
            chunk_count,
            capacity,
            cull_pipeline,
            cull_bind,
            cull_uniforms,
            args,
            count,
            readback: Mutex::new(readback),
            frame: 0,
            last_counts: None,
            occlusion: None,
        })
    }

    /// The multi-draw variant this instance draws with.
    pub fn variant(&self) -> MdiVariant {
        self.variant
    }

    /// Resident MCNKs.
    pub fn chunk_count(&self) -> usize {
        self.resident
    }

    /// Kept MCNKs of a recent frame (read back a few frames late), if known.
    pub fn last_kept(&self) -> Option<u32> {
        self.last_counts.map(|[one, two, _]| one + two)
    }

    /// MCNKs the occlusion cull hid in a recent frame (read back late).
    pub fn last_occluded(&self) -> Option<u32> {
        self.occlusion.as_ref()?;
        self.last_counts.map(|[_, _, hidden]| hidden)
    }

    /// Adds `terrain.cull.clear`, `terrain.cull`, (sometimes)
    /// `terrain.cull.readback` and `terrain.draw`.
    pub fn record<'a>(&'a mut self, frame: Frame<'a>, graph: &mut RenderGraph<'a>) {
        let Frame { gpu, view, targets } = frame;
        self.draw.ensure_pipeline(&gpu.device, view.sample_count);
        self.frame += 1;
        let frame = self.frame;
        let mut copy_now = false;
        if let Ok(readback) = self.readback.get_mut() {
            readback.poll(frame);
            if let Some(&[one, two, hidden, ..]) = readback.latest() {
                self.last_counts = Some([one, two, hidden]);
            }
            copy_now = readback.has_free_slot();
        }
        // Occlusion: the pyramid for this target (a new one holds nothing
        // of last frame yet).
        if let Some(o) = self.occlusion.as_mut() {
            if o.hiz
                .ensure_group(&gpu.device, view.size, &o.hiz_layout, &mut o.hiz_group)
            {
                o.previous = false;
            }
        }
        let view = *view;
        let previous = self.occlusion.as_ref().is_some_and(|o| o.previous);
        if let Some(o) = self.occlusion.as_mut() {
            o.previous = true;
        }
        let this: &'a Self = self;
        let args = graph.import_buffer("terrain.cull.args", &this.args);
        let count = graph.import_buffer("terrain.cull.count", &this.count);
        let cull_uniforms = graph.import_buffer("terrain.cull.uniforms", &this.cull_uniforms);
        let occlusion = this.occlusion.as_ref().filter(|o| o.hiz_group.is_some());
        // With occlusion: (the object, its rejected list, its uniforms,
        // group 0 over them, group 1 over the pyramid, the pyramid).
        let occ = occlusion.and_then(|o| {
            let pyramid = o.hiz.import(graph)?;
            let rejected = graph.import_buffer("terrain.cull.rejected", &o.rejected);
            let uniforms = graph.import_buffer("terrain.cull.occlusion.uniforms", &o.uniforms);
            let bind = graph.import_bind_group(
                "terrain.cull.occlusion",
                &o.bind,
                &[
                    cull_uniforms.into(),
                    args.into(),
                    count.into(),
                    uniforms.into(),
                    rejected.into(),
                ],
            );
            let hiz = graph.import_bind_group(
                "terrain.cull.hiz",
                o.hiz_group.as_ref()?,
                &[pyramid.into()],
            );
            Some((o, rejected, uniforms, bind, hiz, pyramid))
        });
        let cull_bind = graph.import_bind_group(
            "terrain.cull.group",
            &this.cull_bind,
            &[cull_uniforms.into(), args.into(), count.into()],
        );
        let mut clear = graph.add_transfer_pass(PASS_CLEAR).write(args).write(count);
        if let Some((_, r, ..)) = occ {
            clear = clear.write(r);
        }
        clear.record(move |ctx| {
            ctx.encoder.clear_buffer(ctx.res.buffer(count), 0, None);
            if this.variant == MdiVariant::Plain {
                ctx.encoder.clear_buffer(ctx.res.buffer(args), 0, None);
            }
            if let Some((_, r, ..)) = occ {
                ctx.encoder.clear_buffer(ctx.res.buffer(r), 0, Some(4));
            }
        });
        let mut cull = graph
            .add_compute_pass(PASS_CULL)
            .read(cull_uniforms)
            .read_write(args)
            .read_write(count)
            .needs(Capability::Compute);
        if let Some((_, r, u, _, _, p)) = occ {
            cull = cull.read_write(r).read(u).read(p);
        }
        cull.record(move |ctx| {
            let u = TerrainCullUniforms::new(
                view.frustum,
                view.eye(),
                view.settings.terrain_distance,
                this.chunk_count,
            );
            let bytes = bytemuck::bytes_of(&u);
            ctx.queue
                .write_buffer(ctx.res.buffer(cull_uniforms), 0, bytes);
            ctx.counters.bytes_uploaded += bytes.len() as u64;
            ctx.counters.instances_submitted += this.chunk_count() as u64;
            let groups = this.chunk_count.div_ceil(64).max(1);
            match occ {
                Some((o, _, uniforms, bind, hiz, _)) => {
                    let (pixels, _, levels) = o.hiz.shape().unwrap_or(([1, 1], [1, 1], 1));
                    let ou = occlusion::TerrainOcclusion {
                        view_proj: view.view_proj.to_cols_array_2d(),
                        hiz: [
                            pixels[0] as f32,
                            pixels[1] as f32,
                            levels as f32,
                            f32::from(u8::from(previous)),
                        ],
                    };
                    let bytes = bytemuck::bytes_of(&ou);
                    ctx.queue.write_buffer(ctx.res.buffer(uniforms), 0, bytes);
                    ctx.counters.bytes_uploaded += bytes.len() as u64;
                    ctx.pass.set_pipeline(if previous {
                        &o.phase_one
                    } else {
                        &o.phase_one_fresh
                    });
                    ctx.pass.set_bind_group(0, ctx.res.bind_group(bind), &[]);
                    ctx.pass.set_bind_group(1, ctx.res.bind_group(hiz), &[]);
                    ctx.pass.dispatch_workgroups(groups, 1, 1);
                }
                None => {
                    ctx.pass.set_pipeline(&this.cull_pipeline);
                    ctx.pass
                        .set_bind_group(0, ctx.res.bind_group(cull_bind), &[]);
                    ctx.pass.dispatch_workgroups(groups, 1, 1);
                }
            }
        });
        let (uniforms, group) = this.draw.import(graph);
        let draw_ids = DrawIds {
            args,
            count,
            uniforms,
            group,
        };
        self::record_draw(this, graph, &view, targets, draw_ids, 0);
        if let Some((o, r, u, bind, hiz, current)) = occ {
            let after = PassTargets {
                clear: false,
                ..targets
            };
            o.hiz
                .record_into(graph, current, targets.depth, view.sample_count);
            // Later passes (grass occlusion) may test against it: it holds
            // this frame's terrain except what phase two adds, so a test
            // against it can only hide less than one after phase two.
            graph.publish_texture(crate::hiz::TERRAIN_PYRAMID, current);
            graph
                .add_compute_pass(occlusion::PASS_CULL_TWO)
                .read(cull_uniforms)
                .read(u)
                .read_write(args)
                .read_write(count)
                .read(r)
                .read(current)
                .needs(Capability::Compute)
                .record(move |ctx| {
                    ctx.pass.set_pipeline(&o.phase_two);
                    ctx.pass.set_bind_group(0, ctx.res.bind_group(bind), &[]);
                    ctx.pass.set_bind_group(1, ctx.res.bind_group(hiz), &[]);
                    ctx.pass
                        .dispatch_workgroups(this.chunk_count.div_ceil(64).max(1), 1, 1);
                });
            self::record_draw(this, graph, &view, after, draw_ids, 1);
        }
        if copy_now {
            add_copy_pass(graph, PASS_READBACK, &this.readback, count, frame);
        }
    }

    /// Facts for the bench report: `terrain_mdi_count` (1 when
    /// `multi_draw_indexed_indirect_count` ran, 0 for the plain multi-draw),
    /// `terrain_mcnks_resident` and, once read back, `terrain_mcnks_kept`.
    pub fn facts(&self) -> std::collections::BTreeMap<String, f64> {
        let mut f: std::collections::BTreeMap<String, f64> =
            self.draw.splat_facts().into_iter().collect();
        f.insert(
            "terrain_mdi_count".to_owned(),
            f64::from(u8::from(self.variant == MdiVariant::Count)),
        );
        f.insert(
            "terrain_mcnks_resident".to_owned(),
            self.chunk_count() as f64,
        );
        if let Some(k) = self.last_kept() {
            f.insert("terrain_mcnks_kept".to_owned(), f64::from(k));
        }
        f.insert(
            "terrain_occlusion".to_owned(),
            f64::from(u8::from(self.occlusion_on())),
        );
        if let (Some(hidden), Some([_, two, _])) = (self.last_occluded(), self.last_counts) {
            f.insert("terrain_mcnks_occluded".to_owned(), f64::from(hidden));
            f.insert("terrain_mcnks_phase_two".to_owned(), f64::from(two));
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

    /// Reads back what the last frame's two phases drew (sorted slots of
    /// phase one and phase two) and how many MCNKs they hid (blocking; tests).
    pub fn read_phases(
        &self,
        gpu: &GpuContext,
    ) -> Result<(Vec<u32>, Vec<u32>, u32), sward_engine::targets::TargetError> {
        let words: Vec<u32> =
            bytemuck::pod_collect_to_vec(&read_buffer(&gpu.device, &gpu.queue, &self.count, 16)?);
        let args: Vec<DrawIndexedArgs> = bytemuck::pod_collect_to_vec(&read_buffer(
            &gpu.device,
            &gpu.queue,
            &self.args,
            self.args.size(),
        )?);
        let n = self.chunk_count as usize;
        let region = |start: usize, count: u32| {
            let mut slots: Vec<u32> = args[start..start + (count as usize).min(n)]
                .iter()
                .map(|a| a.first_instance)
                .collect();
            slots.sort_unstable();
            slots
        };
        Ok((region(0, words[0]), region(n, words[1]), words[2]))
    }

    /// Bytes of GPU memory (atlas, splat data, template, uniforms, args,
    /// counters, and the occlusion pyramid and lists).
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.draw.gpu_memory_bytes()
            + self.args.size()
            + self.count.size()
            + self.readback.lock().map_or(0, |r| r.bytes())
            + self.cull_uniforms.size()
            + self.occlusion.as_ref().map_or(0, |o| {
                o.hiz.gpu_memory_bytes() + o.uniforms.size() + o.rejected.size()
            })
    }
}

/// The graph handles a terrain draw pass reaches: the cull's outputs, the
/// draw uniforms and group 0 over them.
#[derive(Clone, Copy)]
struct DrawIds {
    args: BufferId,
    count: BufferId,
    uniforms: BufferId,
    group: sward_engine::graph::BindGroupId,
}

/// Adds the draw of phase `phase` (0: `terrain.draw`, the only one without
/// occlusion; 1: `terrain.draw.two`, over the phase-two region).
fn record_draw<'a>(
    this: &'a GpuCullTerrain,
    graph: &mut RenderGraph<'a>,
    view: &FrameView,
    targets: PassTargets,
    ids: DrawIds,
    phase: u32,
) {
    let DrawIds {
        args,
        count,
        uniforms,
        group,
    } = ids;
    let view = *view;
    let (color_load, depth_load) = targets.load_ops(&view.settings);
    let name = if phase == 0 {
        PASS_DRAW
    } else {
        occlusion::PASS_DRAW_TWO
    };
    let mut pass = graph
        .add_render_pass(name)
        .read(args)
        .read(count)
        .read(uniforms)
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
                log::error!("{name}: no pipeline for {} samples", ctx.sample_count);
                return;
            };
            if phase == 0 {
                let bytes = TerrainUniforms::from_view(&view).to_bytes();
                ctx.queue.write_buffer(ctx.res.buffer(uniforms), 0, &bytes);
                ctx.counters.bytes_uploaded += bytes.len() as u64;
            }
            if this.chunk_count == 0 {
                return;
            }
            this.draw
                .bind(&mut ctx.pass, pipeline, ctx.res.bind_group(group));
            let (args, count) = (ctx.res.buffer(args), ctx.res.buffer(count));
            let offset = u64::from(phase)
                * u64::from(this.chunk_count)
                * std::mem::size_of::<DrawIndexedArgs>() as u64;
            match this.variant {
                MdiVariant::Count => ctx.pass.multi_draw_indexed_indirect_count(
                    args,
                    offset,
                    count,
                    u64::from(phase) * 4,
                    this.chunk_count,
                ),
                MdiVariant::Plain => {
                    ctx.pass
                        .multi_draw_indexed_indirect(args, offset, this.chunk_count)
                }
            }
            // Draw commands: every entry of the region for the plain
            // variant; the (lagged) kept count for the count variant.
            let kept = match this.last_counts {
                Some(c) => c[phase as usize],
                None if phase == 0 => this.chunk_count() as u32,
                None => 0,
            };
            ctx.counters.draw_calls += u64::from(match this.variant {
                MdiVariant::Count => kept,
                MdiVariant::Plain => this.chunk_count,
            });
            ctx.counters.instances_drawn += u64::from(kept);
            ctx.counters.triangles += u64::from(kept) * u64::from(TEMPLATE_TRIANGLES);
        });
}

/// The `occlusion` parameter of terrain `gpu-cull`.
pub const OCCLUSION_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "occlusion",
    kind: crate::technique::ParamKind::Choice {
        values: &["off", "on"],
        default: "off",
    },
    description: "two-phase Hi-Z occlusion of MCNKs: test against last frame's pyramid, draw, rebuild it, re-test the rejected against this frame's",
};

/// Registry entry of terrain `gpu-cull`.
pub const ENTRY: crate::technique::TechniqueEntry = crate::technique::TechniqueEntry {
    subsystem: crate::technique::Subsystem::Terrain,
    name: "gpu-cull",
    summary: "compute culling of MCNKs (distance + frustum) and multi-draw-indirect of the atlas template",
    params: &[crate::technique::MULTI_DRAW, OCCLUSION_PARAM],
    requires: crate::technique::GPU_CULL_CAPABILITIES,
    fallback: Some("atlas-instanced"),
    build: |i, params| {
        let variant = if crate::technique::count_variant(i.gpu, TECHNIQUE, params)? {
            MdiVariant::Count
        } else {
            MdiVariant::Plain
        };
        let reach = i.scene.atlas_reach().map(|r| (r, i.scene.max_resident_tiles));
        let atlas = i.shared.height_atlas_for(i.gpu, &i.scene)?;
        Ok(Box::new(GpuCullTerrain::with_reach(
            i.gpu,
            i.scene.world,
            atlas,
            reach,
            variant,
            params.text(&OCCLUSION_PARAM) == "on",
            i.texture_upload,
        )?))
    },
};

impl super::tiled::TiledTerrain for GpuCullTerrain {
    type Tile = super::splat_gpu::SplatTile;

    fn draw<'a>(&'a mut self, frame: Frame<'a>, graph: &mut RenderGraph<'a>) {
        self.record(frame, graph);
    }

    fn memory_bytes(&self) -> u64 {
        self.gpu_memory_bytes()
    }

    fn report_facts(&self) -> std::collections::BTreeMap<String, f64> {
        self.facts()
    }

    fn place_tile(
        &mut self,
        gpu: &GpuContext,
        shared: &crate::technique::SharedResources,
        world: &World,
        tile: TileCoord,
        prepared: Option<super::splat_gpu::SplatTile>,
    ) -> Result<Option<u64>, PassError> {
        let atlas = shared.bound_height_atlas(TECHNIQUE)?;
        self.set_tile(gpu, world, atlas, tile, prepared)
    }

    fn binds_height_atlas(&self) -> bool {
        true
    }

    fn preparer(&self) -> Option<crate::technique::SharedPreparer> {
        self.draw.tile_preparer()
    }
}
