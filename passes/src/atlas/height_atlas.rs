//! [`HeightAtlas`]: the GPU side of the exact height/normal atlas for one
//! world window: the R32Float height and RGBA8 snorm normal textures (one
//! 17x9 tile per MCNK), the per-MCNK record buffer and the R32Uint
//! chunk-index texture, plus bind group entries that any technique can place
//! in its own bind group.

use std::collections::HashMap;

use sward_engine::GpuContext;
use sward_scenes::world::coords::ChunkCoord;
use sward_scenes::world::{Mcnk, World};

use super::layout::{
    height_tile, normal_tile, AtlasChunkGpu, AtlasLayout, IndexWindow, NO_CHUNK, TECHNIQUE, TILE_H,
    TILE_W,
};
use crate::error::PassError;

/// The atlas of one world window (see the module docs of [`crate::atlas`]).
pub struct HeightAtlas {
    layout: AtlasLayout,
    heights: wgpu::Texture,
    heights_view: wgpu::TextureView,
    normals: wgpu::Texture,
    normals_view: wgpu::TextureView,
    index: wgpu::Texture,
    index_view: wgpu::TextureView,
    chunk_buffer: wgpu::Buffer,
    records: Vec<AtlasChunkGpu>,
    slots: HashMap<ChunkCoord, u32>,
    window: IndexWindow,
    gpu_bytes: u64,
}

fn texture(
    device: &wgpu::Device,
    label: &str,
    size: [u32; 2],
    format: wgpu::TextureFormat,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: size[0],
            height: size[1],
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    })
}

fn write_region(
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
    origin: [u32; 2],
    size: [u32; 2],
    texel_bytes: u32,
    data: &[u8],
) {
    queue.write_texture(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d {
                x: origin[0],
                y: origin[1],
                z: 0,
            },
            aspect: wgpu::TextureAspect::All,
        },
        data,
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(size[0] * texel_bytes),
            rows_per_image: Some(size[1]),
        },
        wgpu::Extent3d {
            width: size[0],
            height: size[1],
            depth_or_array_layers: 1,
        },
    );
}

impl HeightAtlas {
    /// Allocates the atlas for every resident MCNK of `world` and uploads
    /// them. Slots follow `world.mcnks()` order (tiles by row then column,
    /// MCNKs row-major), the same order `static-chunks` uses. Fails on an
    /// MCNK whose position does not match its grid coordinate, on non-finite
    /// heights, or when the atlas exceeds the device's texture size.
    pub fn new(gpu: &GpuContext, world: &World) -> Result<Self, PassError> {
        let device = &gpu.device;
        let count = world.mcnk_count();
        let layout = AtlasLayout::for_tiles(count);
        let size = layout.size();
        let max_dim = device.limits().max_texture_dimension_2d;
        let window = IndexWindow::covering(world.mcnks().map(|(c, _)| c));
        let needed = size[0].max(size[1]).max(window.size[0]).max(window.size[1]);
        if needed > max_dim {
            return Err(PassError::DeviceLimit {
                technique: TECHNIQUE,
                what: format!("height atlas for {count} MCNKs (side in texels)"),
                needed: u64::from(needed),
                limit: u64::from(max_dim),
            });
        }
        let heights = texture(
            device,
            "terrain.atlas.heights",
            size,
            wgpu::TextureFormat::R32Float,
        );
        let normals = texture(
            device,
            "terrain.atlas.normals",
            size,
            wgpu::TextureFormat::Rgba8Snorm,
        );
        let index = texture(
            device,
            "terrain.atlas.index",
            window.size,
            wgpu::TextureFormat::R32Uint,
        );
        let record_count = layout.capacity() as usize;
        let chunk_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain.atlas.chunks"),
            size: (record_count * std::mem::size_of::<AtlasChunkGpu>()) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let texels = u64::from(size[0]) * u64::from(size[1]);
        let gpu_bytes = texels * 4 * 2
            + u64::from(window.size[0]) * u64::from(window.size[1]) * 4
            + chunk_buffer.size();
        let mut atlas = HeightAtlas {
            layout,
            heights_view: heights.create_view(&Default::default()),
            heights,
            normals_view: normals.create_view(&Default::default()),
            normals,
            index_view: index.create_view(&Default::default()),
            index,
            chunk_buffer,
            records: Vec::with_capacity(count),
            slots: HashMap::with_capacity(count),
            window,
            gpu_bytes,
        };
        for (slot, (chunk, m)) in world.mcnks().enumerate() {
            let record = AtlasChunkGpu::new(chunk, m, layout.tile(slot as u32))?;
            atlas.write_tiles(&gpu.queue, slot as u32, m);
            atlas.records.push(record);
            atlas.slots.insert(chunk, slot as u32);
        }
        // Records and the index in one write each (unused slots zeroed).
        let mut all = atlas.records.clone();
        all.resize(record_count, bytemuck::Zeroable::zeroed());
        gpu.queue
            .write_buffer(&atlas.chunk_buffer, 0, bytemuck::cast_slice(&all));
        let mut table = vec![NO_CHUNK; (window.size[0] * window.size[1]) as usize];
        for (slot, r) in atlas.records.iter().enumerate() {
            if let Some([x, y]) = window.texel(r.coord()) {
                table[(y * window.size[0] + x) as usize] = slot as u32;
            }
        }
        write_region(
            &gpu.queue,
            &atlas.index,
            [0, 0],
            window.size,
            4,
            bytemuck::cast_slice(&table),
        );
        Ok(atlas)
    }

    fn write_tiles(&self, queue: &wgpu::Queue, slot: u32, m: &Mcnk) {
        let origin = self.layout.tile_texel(slot);
        let h = height_tile(m);
        write_region(
            queue,
            &self.heights,
            origin,
            [TILE_W, TILE_H],
            4,
            bytemuck::cast_slice(&h),
        );
        write_region(
            queue,
            &self.normals,
            origin,
            [TILE_W, TILE_H],
            4,
            &normal_tile(m),
        );
    }

    /// Uploads (or replaces) MCNK `m` with global coordinate `chunk` into
    /// `slot`: one height tile, one normal tile, its record and its index
    /// texel. For streaming into a live atlas; `chunk` must lie inside the
    /// index window and `slot` below the capacity. The MCNK the slot held
    /// before, if another, is removed from the index.
    pub fn upload_chunk(
        &mut self,
        queue: &wgpu::Queue,
        slot: u32,
        chunk: ChunkCoord,
        m: &Mcnk,
    ) -> Result<(), PassError> {
        let what = || format!("MCNK ({}, {})", chunk.x, chunk.y);
        if slot >= self.layout.capacity() {
            return Err(PassError::InvalidInput {
                technique: TECHNIQUE,
                what: what(),
                reason: format!(
                    "slot {slot} beyond the atlas capacity {}",
                    self.layout.capacity()
                ),
            });
        }
        let Some(texel) = self.window.texel(chunk) else {
            return Err(PassError::InvalidInput {
                technique: TECHNIQUE,
                what: what(),
                reason: format!("outside the index window {:?}", self.window),
            });
        };
        let record = AtlasChunkGpu::new(chunk, m, self.layout.tile(slot))?;
        // The MCNK this slot held before (if another one) leaves the index.
        let s = slot as usize;
        let previous = self
            .records
            .get(s)
            .map(AtlasChunkGpu::coord)
            .filter(|c| *c != chunk && self.slots.get(c) == Some(&slot));
        if let Some(prev) = previous {
            self.slots.remove(&prev);
            if let Some(t) = self.window.texel(prev) {
                write_region(queue, &self.index, t, [1, 1], 4, &NO_CHUNK.to_le_bytes());
            }
        }
        self.write_tiles(queue, slot, m);
        queue.write_buffer(
            &self.chunk_buffer,
            u64::from(slot) * std::mem::size_of::<AtlasChunkGpu>() as u64,
            bytemuck::bytes_of(&record),
        );
        write_region(queue, &self.index, texel, [1, 1], 4, &slot.to_le_bytes());
        if s >= self.records.len() {
            self.records.resize(s + 1, bytemuck::Zeroable::zeroed());
        }
        self.records[s] = record;
        // An MCNK moved from another slot is only reachable at the new one.
        self.slots.insert(chunk, slot);
        Ok(())
    }

    /// The tile placement.
    pub fn layout(&self) -> AtlasLayout {
        self.layout
    }

    /// The chunk-index window (shaders need its origin).
    pub fn window(&self) -> IndexWindow {
        self.window
    }

    /// Resident MCNKs (slots `0..chunk_count()` are in use).
    pub fn chunk_count(&self) -> usize {
        self.records.len()
    }

    /// Per-MCNK records in slot order (the CPU copy of the record buffer).
    pub fn records(&self) -> &[AtlasChunkGpu] {
        &self.records
    }

    /// The slot of MCNK `chunk`, if resident.
    pub fn slot_of(&self, chunk: ChunkCoord) -> Option<u32> {
        self.slots.get(&chunk).copied()
    }

    /// The R32Float height atlas view.
    pub fn heights_view(&self) -> &wgpu::TextureView {
        &self.heights_view
    }

    /// The RGBA8 snorm normal atlas view.
    pub fn normals_view(&self) -> &wgpu::TextureView {
        &self.normals_view
    }

    /// The R32Uint chunk-index view (one texel per MCNK of [`Self::window`]).
    pub fn index_view(&self) -> &wgpu::TextureView {
        &self.index_view
    }

    /// The storage buffer of [`AtlasChunkGpu`] records (WGSL `array<AtlasChunk>`).
    pub fn chunk_buffer(&self) -> &wgpu::Buffer {
        &self.chunk_buffer
    }

    /// Bytes of GPU memory the atlas holds.
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.gpu_bytes
    }

    /// Bind group layout entries at bindings `first..first + 4`: records
    /// (read-only storage), heights (`texture_2d<f32>`), normals
    /// (`texture_2d<f32>`), chunk index (`texture_2d<u32>`). Storage in a
    /// vertex stage needs `Capability::VertexStorage`.
    pub fn layout_entries(
        first: u32,
        visibility: wgpu::ShaderStages,
    ) -> [wgpu::BindGroupLayoutEntry; 4] {
        let tex = |binding, sample_type| wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty: wgpu::BindingType::Texture {
                sample_type,
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        };
        let float = wgpu::TextureSampleType::Float { filterable: false };
        [
            wgpu::BindGroupLayoutEntry {
                binding: first,
                visibility,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: true },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            },
            tex(first + 1, float),
            tex(first + 2, float),
            tex(first + 3, wgpu::TextureSampleType::Uint),
        ]
    }

    /// Bind group entries matching [`Self::layout_entries`] at `first`.
    pub fn bind_entries(&self, first: u32) -> [wgpu::BindGroupEntry<'_>; 4] {
        [
            wgpu::BindGroupEntry {
                binding: first,
                resource: self.chunk_buffer.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: first + 1,
                resource: wgpu::BindingResource::TextureView(&self.heights_view),
            },
            wgpu::BindGroupEntry {
                binding: first + 2,
                resource: wgpu::BindingResource::TextureView(&self.normals_view),
            },
            wgpu::BindGroupEntry {
                binding: first + 3,
                resource: wgpu::BindingResource::TextureView(&self.index_view),
            },
        ]
    }
}
