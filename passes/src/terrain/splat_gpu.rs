//! The GPU splat resources every terrain tier shades with (the
//! `terrain_shade` WGSL snippet): the MCAL alpha atlas (one 64x64 RGBA8 tile
//! per MCNK slot), the procedural layer texture array with mips, their
//! samplers and the per-MCNK [`TerrainChunkGpu`] records, in the slot order
//! of `World::mcnks()`. Bind group entries sit at bindings `1..=5`, after the
//! tier's uniforms at 0.

use sward_engine::GpuContext;
use sward_scenes::World;
use wgpu::util::DeviceExt;

use super::gpu::TerrainChunkGpu;
use super::splat::{
    alpha_tile, layer_texture, mip_chain, mip_count, AlphaAtlasLayout, LayerKind, LAYER_KINDS,
    LAYER_SIZE,
};
use super::TECHNIQUE;
use crate::error::PassError;

/// First binding of the splat resources in a terrain bind group.
pub const SPLAT_FIRST_BINDING: u32 = 1;

/// Alpha atlas, layer textures, samplers and per-MCNK splat records.
pub struct SplatGpu {
    records: wgpu::Buffer,
    alpha_view: wgpu::TextureView,
    layer_view: wgpu::TextureView,
    alpha_sampler: wgpu::Sampler,
    layer_sampler: wgpu::Sampler,
    gpu_bytes: u64,
}

/// Bytes of a texture with `mips` levels and `layers` layers.
pub fn texture_bytes(size: [u32; 2], mips: u32, layers: u32, texel: u64) -> u64 {
    (0..mips)
        .map(|m| u64::from((size[0] >> m).max(1)) * u64::from((size[1] >> m).max(1)))
        .sum::<u64>()
        * u64::from(layers)
        * texel
}

impl SplatGpu {
    /// Uploads the alpha tile and splat record of every resident MCNK of
    /// `world` (slot = position in `world.mcnks()`), and the layer textures.
    pub fn new(gpu: &GpuContext, world: &World) -> Result<Self, PassError> {
        let device = &gpu.device;
        let atlas = AlphaAtlasLayout::for_tiles(world.mcnk_count());
        let [aw, ah] = atlas.size();
        let max_dim = device.limits().max_texture_dimension_2d;
        if aw.max(ah) > max_dim {
            return Err(PassError::DeviceLimit {
                technique: TECHNIQUE,
                what: format!(
                    "alpha atlas for {} MCNKs (side in texels)",
                    world.mcnk_count()
                ),
                needed: u64::from(aw.max(ah)),
                limit: u64::from(max_dim),
            });
        }
        let alpha_texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("terrain.alpha_atlas"),
            size: wgpu::Extent3d {
                width: aw,
                height: ah,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let mut gpu_bytes = texture_bytes([aw, ah], 1, 1, 4);
        let mut records = Vec::with_capacity(world.mcnk_count());
        for tile in world.tiles() {
            for m in &tile.mcnks {
                let coord = m.chunk_coord(tile.coord);
                let slot = records.len() as u32;
                if m.layers.len() > 4 {
                    return Err(PassError::InvalidInput {
                        technique: TECHNIQUE,
                        what: format!("MCNK ({}, {})", coord.x, coord.y),
                        reason: format!("{} MCLY layers (1..=4 supported)", m.layers.len()),
                    });
                }
                let mut textures = [0u32; 4];
                for (k, layer) in m.layers.iter().enumerate() {
                    let name = tile
                        .textures
                        .get(layer.texture_id as usize)
                        .map_or("", String::as_str);
                    textures[k] = LayerKind::from_texture(name, layer.texture_id) as u32;
                }
                let (alpha_origin, alpha_scale) = atlas.tile_uv(slot);
                records.push(TerrainChunkGpu {
                    alpha_origin,
                    alpha_scale,
                    // No MCLY at all draws layer texture 0 alone.
                    layer_count: m.layers.len().max(1) as u32,
                    textures,
                });
                let [tx, ty] = atlas.tile_texel(slot);
                gpu.queue.write_texture(
                    wgpu::TexelCopyTextureInfo {
                        texture: &alpha_texture,
                        mip_level: 0,
                        origin: wgpu::Origin3d { x: tx, y: ty, z: 0 },
                        aspect: wgpu::TextureAspect::All,
                    },
                    &alpha_tile(m),
                    wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(64 * 4),
                        rows_per_image: Some(64),
                    },
                    wgpu::Extent3d {
                        width: 64,
                        height: 64,
                        depth_or_array_layers: 1,
                    },
                );
            }
        }
        let layer_texture = create_layer_array(gpu);
        gpu_bytes += texture_bytes(
            [LAYER_SIZE; 2],
            mip_count(LAYER_SIZE),
            LAYER_KINDS.len() as u32,
            4,
        );
        if records.is_empty() {
            // Keep the storage binding non-empty for an empty world.
            records.push(TerrainChunkGpu {
                alpha_origin: [0.0; 2],
                alpha_scale: 0.0,
                layer_count: 1,
                textures: [0; 4],
            });
        }
        let records = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("terrain.chunk_records"),
            contents: bytemuck::cast_slice(&records),
            usage: wgpu::BufferUsages::STORAGE,
        });
        gpu_bytes += records.size();
        let sampler = |label, filter, address| {
            device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some(label),
                address_mode_u: address,
                address_mode_v: address,
                mag_filter: filter,
                min_filter: filter,
                mipmap_filter: filter,
                ..Default::default()
            })
        };
        Ok(SplatGpu {
            records,
            alpha_view: alpha_texture.create_view(&Default::default()),
            layer_view: layer_texture.create_view(&wgpu::TextureViewDescriptor {
                dimension: Some(wgpu::TextureViewDimension::D2Array),
                ..Default::default()
            }),
            alpha_sampler: sampler(
                "terrain.alpha_sampler",
                wgpu::FilterMode::Linear,
                wgpu::AddressMode::ClampToEdge,
            ),
            layer_sampler: sampler(
                "terrain.layer_sampler",
                wgpu::FilterMode::Linear,
                wgpu::AddressMode::Repeat,
            ),
            gpu_bytes,
        })
    }

    /// Bytes of GPU memory held (alpha atlas, layer textures with mips, records).
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.gpu_bytes
    }

    /// Layout entries at bindings 1..=5 (records, alpha atlas, layer array,
    /// alpha sampler, layer sampler), all fragment-stage.
    pub fn layout_entries() -> [wgpu::BindGroupLayoutEntry; 5] {
        let fs = wgpu::ShaderStages::FRAGMENT;
        let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: fs,
            ty,
            count: None,
        };
        let texture = |view_dimension| wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: true },
            view_dimension,
            multisampled: false,
        };
        let filtering = wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering);
        [
            entry(
                1,
                wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: true },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
            ),
            entry(2, texture(wgpu::TextureViewDimension::D2)),
            entry(3, texture(wgpu::TextureViewDimension::D2Array)),
            entry(4, filtering),
            entry(5, filtering),
        ]
    }

    /// Bind group entries matching [`Self::layout_entries`].
    pub fn bind_entries(&self) -> [wgpu::BindGroupEntry<'_>; 5] {
        [
            wgpu::BindGroupEntry {
                binding: 1,
                resource: self.records.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::TextureView(&self.alpha_view),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: wgpu::BindingResource::TextureView(&self.layer_view),
            },
            wgpu::BindGroupEntry {
                binding: 4,
                resource: wgpu::BindingResource::Sampler(&self.alpha_sampler),
            },
            wgpu::BindGroupEntry {
                binding: 5,
                resource: wgpu::BindingResource::Sampler(&self.layer_sampler),
            },
        ]
    }
}

/// The layer texture array: one procedurally drawn texture per [`LayerKind`],
/// sRGB, full mip chain.
fn create_layer_array(gpu: &GpuContext) -> wgpu::Texture {
    let mips = mip_count(LAYER_SIZE);
    let texture = gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("terrain.layer_textures"),
        size: wgpu::Extent3d {
            width: LAYER_SIZE,
            height: LAYER_SIZE,
            depth_or_array_layers: LAYER_KINDS.len() as u32,
        },
        mip_level_count: mips,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8UnormSrgb,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    for (layer, kind) in LAYER_KINDS.iter().enumerate() {
        for (level, data) in mip_chain(layer_texture(*kind, LAYER_SIZE), LAYER_SIZE)
            .iter()
            .enumerate()
        {
            let side = (LAYER_SIZE >> level).max(1);
            gpu.queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &texture,
                    mip_level: level as u32,
                    origin: wgpu::Origin3d {
                        x: 0,
                        y: 0,
                        z: layer as u32,
                    },
                    aspect: wgpu::TextureAspect::All,
                },
                data,
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(side * 4),
                    rows_per_image: Some(side),
                },
                wgpu::Extent3d {
                    width: side,
                    height: side,
                    depth_or_array_layers: 1,
                },
            );
        }
    }
    texture
}
