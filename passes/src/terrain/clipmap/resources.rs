//! The clipmap's GPU objects and how they are made: the level set's
//! textures and bind groups ([`LevelGpu`]), the compute fill's and the
//! cull's pipelines, buffers and layouts ([`FillState`], [`CullState`]), the
//! draw pass's bind group layout and render pipelines, and the sampled
//! textures built from texels (far grid, chunk index, refinement index).
//! Only creation lives here; what the passes do with them is `record.rs`
//! and `draw.rs`.

use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

use glam::IVec2;
use sward_engine::bind::{self, Slot};
use sward_engine::lagged::LaggedReadback;
use sward_engine::GpuContext;
use sward_scenes::World;
use wgpu::util::DeviceExt;
use wgpu::ShaderStages as S;

use super::cull::{
    kinds, reset_args, CullUniforms, ZTiles, MAX_FRAME_PIECES_PER_LEVEL, MAX_REJECTED,
};
use super::fill::FillJob;
use super::gpu::ClipInstance;
use super::layout::{ClipmapConfig, MAX_LEVELS};
use super::mesh::ClipmapMeshes;
use super::refine::RefineGpu;
use super::state::{
    Clipmap, CullOcclusion, CullState, FillState, Occlusion, AUTO_MIN_HIDDEN, MAX_JOBS, NO_CHUNK,
    VERTEX_ENTRIES,
};
use super::{PASS, PASS_CULL, PASS_FILL, PASS_HIZ, TECHNIQUE};
use crate::atlas::HeightAtlas;
use crate::error::PassError;
use crate::terrain::splat_gpu::SplatGpu;
use crate::terrain::StaticChunks;

impl CullState {
    pub(super) fn new(
        device: &wgpu::Device,
        block: u32,
        meshes: &ClipmapMeshes,
        instances: &wgpu::Buffer,
        multi: bool,
        occlusion: Occlusion,
    ) -> Result<Self, PassError> {
        let shader =
            crate::error::create_shader(device, sward_wgsl::modules::CLIPMAP_CULL, TECHNIQUE)?;
        // Group 0: uniforms, kind table, pieces (read); draw args,
        // instances, rejected parts (written).
        let bind_layout = bind::layout(
            device,
            PASS_CULL,
            &bind::entries(
                S::COMPUTE,
                &[
                    Slot::Uniform,
                    Slot::STORAGE_READ,
                    Slot::STORAGE_READ,
                    Slot::STORAGE_RW,
                    Slot::STORAGE_RW,
                    Slot::STORAGE_RW,
                ],
            ),
        );
        // Group 1: the level texels, the height tiles, the refinement index.
        let levels_layout = bind::layout(
            device,
            "terrain.clipmap.cull.levels",
            &bind::entries(S::COMPUTE, &[LEVEL_TEXELS, Slot::STORAGE_RW, INDEX]),
        );
        // Entry point `entry` of the cull shader over bind groups `groups`.
        let pipeline_for = |groups: &[&wgpu::BindGroupLayout], entry: &str| {
            bind::compute_pipeline(device, PASS_CULL, groups, &shader, entry)
        };
        let pipeline = pipeline_for(&[&bind_layout, &levels_layout], "main");
        let ztiles_pipeline = pipeline_for(&[&bind_layout, &levels_layout], "ztiles_main");
        let occlusion = if occlusion != Occlusion::Off {
            let hiz_layout = crate::hiz::pyramid_layout(device, "terrain.clipmap.cull.hiz");
            let groups = [&bind_layout, &levels_layout, &hiz_layout];
            let layout = bind::pipeline_layout(device, PASS_CULL, &groups);
            let [phase_one_fresh, phase_one] = bind::compute_pipelines_flagged(
                device,
                PASS_CULL,
                &layout,
                &shader,
                "phase_one",
                "PREVIOUS",
            );
            Some(CullOcclusion {
                hiz: crate::hiz::HiZ::new(device, PASS_HIZ)?,
                phase_one,
                phase_one_fresh,
                phase_two: pipeline_for(&groups, "phase_two"),
                hiz_layout,
                hiz_group: None,
                previous: false,
                gate: (occlusion == Occlusion::Auto).then(|| {
                    crate::occlusion_gate::OcclusionGate::with_min_hidden(AUTO_MIN_HIDDEN)
                }),
            })
        } else {
            None
        };
        let rejected = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain.clipmap.cull.rejected"),
            size: if occlusion.is_some() {
                MAX_REJECTED * 16
            } else {
                16
            },
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain.clipmap.cull.uniforms"),
            size: std::mem::size_of::<CullUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let kind_table = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("terrain.clipmap.cull.kinds"),
            contents: bytemuck::cast_slice(&kinds(block)),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let pieces = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain.clipmap.cull.pieces"),
            size: u64::from(MAX_LEVELS * MAX_FRAME_PIECES_PER_LEVEL) * 16,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let reset = reset_args(meshes, multi);
        let args = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("terrain.clipmap.args"),
            contents: bytemuck::cast_slice(&reset),
            usage: wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
        });
        let bind = bind::buffer_group(
            device,
            PASS_CULL,
            &bind_layout,
            &[&uniforms, &kind_table, &pieces, &args, instances, &rejected],
        );
        let readback = LaggedReadback::new(device, "terrain.clipmap.args_readback", args.size());
        Ok(CullState {
            pipeline,
            ztiles_pipeline,
            bind,
            levels_layout,
            uniforms,
            pieces,
            args,
            reset,
            rejected,
            occlusion,
            multi,
            readback: Mutex::new(readback),
            frame: 0,
            counts: None,
            occluded: None,
            frame_pieces: Vec::new(),
            frame_pieces_stale: AtomicBool::new(true),
        })
    }
}

impl FillState {
    pub(super) fn new(device: &wgpu::Device) -> Result<Self, PassError> {
        let shader =
            crate::error::create_shader(device, sward_wgsl::modules::CLIPMAP_FILL, TECHNIQUE)?;
        // Uniforms, jobs, the far grid, the level texels (written); then
        // the height atlas (4..=7) and the refinement index.
        let mut entries = bind::entries(
            S::COMPUTE,
            &[
                Slot::Uniform,
                Slot::STORAGE_READ,
                Slot::float_texture(wgpu::TextureViewDimension::D2, false),
                Slot::StorageTexture {
                    format: wgpu::TextureFormat::Rgba32Float,
                    access: wgpu::StorageTextureAccess::WriteOnly,
                    dim: wgpu::TextureViewDimension::D2Array,
                },
            ],
        );
        entries.extend(HeightAtlas::layout_entries(4, S::COMPUTE));
        entries.push(bind::entry(8, S::COMPUTE, INDEX));
        let bind_layout = bind::layout(device, PASS_FILL, &entries);
        let pipeline = bind::compute_pipeline(device, PASS_FILL, &[&bind_layout], &shader, "main");
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain.clipmap.fill.params"),
            size: std::mem::size_of::<super::fill::FillParams>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let jobs = jobs_buffer(device, MAX_JOBS);
        Ok(FillState {
            pipeline,
            bind_layout,
            params,
            jobs,
            origins: Vec::new(),
            regions: Vec::new(),
            flag_rects: Vec::new(),
            filled: 0,
            pool_pending: false,
        })
    }
}

/// The chunk index texture (Rg32Uint: atlas slot, holes_low_res) over the
/// atlas's index window (the resident MCNKs' bounding rectangle, or the
/// streaming reach); the slot is the MCNK's height-atlas slot, which is also
/// its [`SplatGpu`] slot.
pub(super) fn chunk_index_texture(
    gpu: &GpuContext,
    world: &World,
    atlas: &HeightAtlas,
) -> Result<(wgpu::Texture, IVec2, IVec2), PassError> {
    let window = atlas.window();
    let (origin, size) = (window.origin, window.size);
    let max = gpu.device.limits().max_texture_dimension_2d;
    if size[0].max(size[1]) > max {
        return Err(PassError::DeviceLimit {
            technique: TECHNIQUE,
            what: "chunk index texture side (MCNKs)".into(),
            needed: u64::from(size[0].max(size[1])),
            limit: u64::from(max),
        });
    }
    let mut texels = vec![[NO_CHUNK, 0u32]; (size[0] * size[1]) as usize];
    for (c, m) in world.mcnks() {
        if let (Some([x, y]), Some(slot)) = (window.texel(c), atlas.slot_of(c)) {
            texels[(y * size[0] + x) as usize] = [slot, u32::from(m.header.holes_low_res)];
        }
    }
    let texture = data_texture(
        gpu,
        "terrain.clipmap.chunk_index",
        size,
        wgpu::TextureFormat::Rg32Uint,
        bytemuck::cast_slice(&texels),
    );
    Ok((
        texture,
        IVec2::new(origin[0] as i32, origin[1] as i32),
        IVec2::new(size[0] as i32, size[1] as i32),
    ))
}

/// The draw pass's group: uniforms, the splat resources (1..=5), the level
/// texels, the chunk index and the refinement index.
pub(super) fn bind_group_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let mut entries = vec![bind::entry(0, S::VERTEX | S::FRAGMENT, Slot::Uniform)];
    entries.extend(SplatGpu::layout_entries());
    entries.push(bind::entry(6, S::VERTEX, LEVEL_TEXELS));
    entries.push(bind::entry(7, S::FRAGMENT, INDEX));
    entries.push(bind::entry(8, S::VERTEX, INDEX));
    bind::layout(device, PASS, &entries)
}

/// The fill's job list with room for `jobs` jobs.
pub(super) fn jobs_buffer(device: &wgpu::Device, jobs: usize) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("terrain.clipmap.fill.jobs"),
        size: (jobs * std::mem::size_of::<FillJob>()) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// The level texture array (`Rgba32Float`, `texels` per side, `layers`
/// layers: the levels', then the refinement pool's) and its 2D-array view
/// (every layer).
pub(super) fn levels_texture(
    device: &wgpu::Device,
    texels: u32,
    layers: u32,
) -> (wgpu::Texture, wgpu::TextureView) {
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("terrain.clipmap.levels"),
        size: wgpu::Extent3d {
            width: texels,
            height: texels,
            depth_or_array_layers: layers,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba32Float,
        usage: wgpu::TextureUsages::TEXTURE_BINDING
            | wgpu::TextureUsages::STORAGE_BINDING
            | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = texture.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..Default::default()
    });
    (texture, view)
}

/// The cull's height tiles ([`ZTiles`]) of every level of `cfg`.
pub(super) fn ztiles_buffer(device: &wgpu::Device, cfg: &ClipmapConfig) -> wgpu::Buffer {
    let tiles = ZTiles::side(cfg) as u64;
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("terrain.clipmap.cull.ztiles"),
        size: u64::from(cfg.levels) * tiles * tiles * 8,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

/// The refinement index texture of `refine` (`Rg32Uint`).
pub(super) fn refine_index_texture(gpu: &GpuContext, refine: &RefineGpu) -> wgpu::Texture {
    data_texture(
        gpu,
        "terrain.clipmap.refine_index",
        refine.size,
        wgpu::TextureFormat::Rg32Uint,
        bytemuck::cast_slice(&refine.index),
    )
}

/// A `size[0] x size[1]` 2D texture of `format` the shaders read, holding
/// `texels` (rows of `size[0]` texels from the first): the far grid, the
/// chunk index and the refinement index.
pub(super) fn data_texture(
    gpu: &GpuContext,
    label: &str,
    size: [u32; 2],
    format: wgpu::TextureFormat,
    texels: &[u8],
) -> wgpu::Texture {
    gpu.device.create_texture_with_data(
        &gpu.queue,
        &crate::atlas::sampled_texture(label, size, format),
        wgpu::util::TextureDataOrder::LayerMajor,
        texels,
    )
}

/// The level texture array as the shaders bind it (read with `textureLoad`).
pub(super) const LEVEL_TEXELS: Slot =
    Slot::float_texture(wgpu::TextureViewDimension::D2Array, false);

/// A 2D `u32` texture: the chunk and refinement indices.
pub(super) const INDEX: Slot = Slot::uint_texture(wgpu::TextureViewDimension::D2);

impl Clipmap {
    pub(super) fn pipeline_for(&mut self, device: &wgpu::Device, samples: u32) {
        if self.pipelines.contains_key(&samples) {
            return;
        }
        let constants = self.splat.shader_constants();
        let pipelines = VERTEX_ENTRIES
            .iter()
            .map(|entry| {
                StaticChunks::build_pipeline(
                    device,
                    PASS,
                    &self.layout,
                    &self.shader,
                    (
                        entry,
                        &[
                            wgpu::VertexBufferLayout {
                                array_stride: 4,
                                step_mode: wgpu::VertexStepMode::Vertex,
                                attributes: &wgpu::vertex_attr_array![0 => Uint16x2],
                            },
                            wgpu::VertexBufferLayout {
                                array_stride: std::mem::size_of::<ClipInstance>() as u64,
                                step_mode: wgpu::VertexStepMode::Instance,
                                attributes: &wgpu::vertex_attr_array![1 => Sint32x4],
                            },
                        ],
                    ),
                    samples,
                    &constants,
                )
            })
            .collect();
        self.pipelines.insert(samples, pipelines);
    }

    /// The draw pass's bind group over the level texture array `levels`
    /// and the refinement index `refine`.
    pub(super) fn draw_bind_group(
        &self,
        device: &wgpu::Device,
        levels: &wgpu::TextureView,
        refine: &wgpu::TextureView,
    ) -> wgpu::BindGroup {
        let mut resources = vec![(0, self.uniforms.as_entire_binding())];
        // 1..=5: the splat records, alpha atlas, layer array and samplers.
        resources.extend(self.splat.bind_entries().map(|e| (e.binding, e.resource)));
        resources.extend([
            (6, wgpu::BindingResource::TextureView(levels)),
            (7, wgpu::BindingResource::TextureView(&self.chunk_index)),
            (8, wgpu::BindingResource::TextureView(refine)),
        ]);
        bind::group_at(device, PASS, &self.bind_layout, &resources)
    }

    /// The cull's group 1: the level texels, the height tiles and the
    /// refinement index.
    pub(super) fn cull_bind_group(
        &self,
        device: &wgpu::Device,
        levels: &wgpu::TextureView,
        ztiles: &wgpu::Buffer,
        refine: &wgpu::TextureView,
    ) -> wgpu::BindGroup {
        bind::group(
            device,
            "terrain.clipmap.cull.levels",
            &self.cull.levels_layout,
            &[
                wgpu::BindingResource::TextureView(levels),
                ztiles.as_entire_binding(),
                wgpu::BindingResource::TextureView(refine),
            ],
        )
    }

    /// The fill's bind group: its uniforms and jobs, the far grid `far`,
    /// the level texture `levels` (written), the height atlas and the
    /// refinement index `refine`.
    pub(super) fn fill_bind_group(
        &self,
        device: &wgpu::Device,
        far: &wgpu::TextureView,
        levels: &wgpu::TextureView,
        refine: &wgpu::TextureView,
    ) -> wgpu::BindGroup {
        let mut resources = vec![
            (0, self.fill.params.as_entire_binding()),
            (1, self.fill.jobs.as_entire_binding()),
            (2, wgpu::BindingResource::TextureView(far)),
            (3, wgpu::BindingResource::TextureView(levels)),
        ];
        // 4..=7: the height atlas's records, heights, normals and index.
        resources.extend(self.atlas.bind_entries(4).map(|e| (e.binding, e.resource)));
        resources.push((8, wgpu::BindingResource::TextureView(refine)));
        bind::group_at(device, PASS_FILL, &self.fill.bind_layout, &resources)
    }
}
