//! GPU resources of `camera-grid` that do not change per frame: the height
//! atlas, the control texture and effect table (written when MCNKs load or
//! unload, never per frame), the uniform buffers, the compaction buffers, and
//! the group 2 bind groups.

use wgpu::util::DeviceExt;

use sward_engine::GpuContext;
use sward_scenes::world::{ChunkCoord, Mcnk};

use super::control::{mcnk_words, ControlData, EffectTable};
use super::gpu::{group2_layout, GridDraw, GridUniform, DRAW_STRIDE};
use crate::atlas::HeightAtlas;
use crate::error::PassError;
use sward_scenes::effects::ResolvedEffects;
use sward_scenes::placement::Policy;

/// Indexed indirect argument words per model.
pub const ARGS_WORDS: u64 = 5;

/// Bytes of one compacted instance record (WGSL `GridInstance`: root and
/// scale, rotation and wind origin, derived once by the compaction).
pub const GRID_INSTANCE_BYTES: u64 = 32;

/// Compaction buffers: the per-model candidate lists and indirect args.
pub struct CompactBuffers {
    /// `model_count * candidates_total` candidate indices.
    pub list: wgpu::Buffer,
    /// `model_count` indexed indirect records (5 words each).
    pub args: wgpu::Buffer,
    /// What `args` is reset to every frame (instance counts 0).
    pub args_reset: Vec<u32>,
}

/// The resident, frame-invariant resources.
pub struct GridResources {
    /// The exact height atlas of the window.
    pub atlas: HeightAtlas,
    /// CPU copy of the control texture.
    pub control: ControlData,
    /// The effect table.
    pub table: EffectTable,
    control_texture: wgpu::Texture,
    effects_buffer: wgpu::Buffer,
    /// Per-frame [`GridUniform`].
    pub uniform: wgpu::Buffer,
    /// Per-model [`GridDraw`] records at [`DRAW_STRIDE`].
    pub draws: wgpu::Buffer,
    /// Compaction buffers (compact mode only).
    pub compact: Option<CompactBuffers>,
    /// Group 2 for the draw.
    pub render_group: wgpu::BindGroup,
    /// Group 2 for the compaction (compact mode only).
    pub compute_group: Option<wgpu::BindGroup>,
    bytes: u64,
}

/// Bytes of one [`GridUniform`].
pub const UNIFORM_BYTES: u64 = std::mem::size_of::<GridUniform>() as u64;

impl GridResources {
    /// Builds everything for `world` under `policy`; `candidates_total` sizes
    /// the compaction lists (`Some` only in compact mode).
    #[expect(
        clippy::too_many_arguments,
        reason = "one constructor for all resident grid data"
    )]
    pub fn new(
        gpu: &GpuContext,
        atlas: HeightAtlas,
        control: ControlData,
        table: EffectTable,
        model_count: usize,
        candidates_total: Option<u32>,
        render_layout: &wgpu::BindGroupLayout,
        compute_layout: Option<&wgpu::BindGroupLayout>,
    ) -> Result<Self, PassError> {
        let device = &gpu.device;
        let control_texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("grass.grid.control"),
            size: wgpu::Extent3d {
                width: control.width,
                height: control.height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::R32Uint,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let max = device.limits().max_texture_dimension_2d;
        if control.width > max || control.height > max {
            return Err(PassError::DeviceLimit {
                technique: "grass",
                what: "camera-grid control texture side".into(),
                needed: u64::from(control.width.max(control.height)),
                limit: u64::from(max),
            });
        }
        write_words(
            &gpu.queue,
            &control_texture,
            [0, 0],
            [control.width, control.height],
            &control.words,
        );
        let mut records = table.records.clone();
        if records.is_empty() {
            records.push(bytemuck::Zeroable::zeroed());
        }
        let effects_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("grass.grid.effects"),
            contents: bytemuck::cast_slice(&records),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("grass.grid.uniform"),
            size: UNIFORM_BYTES,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let total = u64::from(candidates_total.unwrap_or(0));
        let mut draw_bytes = vec![0u8; model_count.max(1) * DRAW_STRIDE as usize];
        for m in 0..model_count {
            let d = GridDraw {
                model: m as u32,
                region: (m as u64 * total).min(u64::from(u32::MAX)) as u32,
                pad0: 0,
                pad1: 0,
            };
            let at = m * DRAW_STRIDE as usize;
            draw_bytes[at..at + 16].copy_from_slice(bytemuck::bytes_of(&d));
        }
        let draws = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("grass.grid.draws"),
            contents: &draw_bytes,
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let compact = match candidates_total {
            Some(total) => {
                let list_bytes =
                    (model_count.max(1) as u64 * u64::from(total) * GRID_INSTANCE_BYTES).max(32);
                if list_bytes > device.limits().max_storage_buffer_binding_size as u64 {
                    return Err(PassError::DeviceLimit {
                        technique: "grass",
                        what: "camera-grid compacted lists".into(),
                        needed: list_bytes,
                        limit: device.limits().max_storage_buffer_binding_size as u64,
                    });
                }
                let list = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("grass.grid.compacted"),
                    size: list_bytes,
                    usage: wgpu::BufferUsages::STORAGE,
                    mapped_at_creation: false,
                });
                let args = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("grass.grid.args"),
                    size: model_count.max(1) as u64 * ARGS_WORDS * 4,
                    usage: wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::INDIRECT
                        | wgpu::BufferUsages::COPY_DST
                        | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                });
                Some(CompactBuffers {
                    list,
                    args,
                    args_reset: Vec::new(),
                })
            }
            None => None,
        };
        let dummy = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("grass.grid.no-list"),
            size: GRID_INSTANCE_BYTES,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let control_view = control_texture.create_view(&Default::default());
        fn common<'b>(
            uniform: &'b wgpu::Buffer,
            control_view: &'b wgpu::TextureView,
            effects_buffer: &'b wgpu::Buffer,
            list: &'b wgpu::Buffer,
            atlas: &'b HeightAtlas,
        ) -> Vec<wgpu::BindGroupEntry<'b>> {
            let mut e = vec![
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: uniform.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::TextureView(control_view),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: effects_buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: list.as_entire_binding(),
                },
            ];
            e.extend(atlas.bind_entries(6));
            e
        }
        let list = compact.as_ref().map_or(&dummy, |c| &c.list);
        let mut render_entries = common(&uniform, &control_view, &effects_buffer, list, &atlas);
        render_entries.push(wgpu::BindGroupEntry {
            binding: 1,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &draws,
                offset: 0,
                size: wgpu::BufferSize::new(16),
            }),
        });
        let render_group = sward_engine::bind::group_of(
            device,
            "grass.grid.render",
            render_layout,
            &render_entries,
        );
        let compute_group = match (compute_layout, compact.as_ref()) {
            (Some(layout), Some(c)) => {
                let mut entries = common(&uniform, &control_view, &effects_buffer, &c.list, &atlas);
                entries.push(wgpu::BindGroupEntry {
                    binding: 5,
                    resource: c.args.as_entire_binding(),
                });
                Some(sward_engine::bind::group_of(
                    device,
                    "grass.grid.compute",
                    layout,
                    &entries,
                ))
            }
            _ => None,
        };
        let bytes = atlas.gpu_memory_bytes()
            + u64::from(control.width) * u64::from(control.height) * 4
            + effects_buffer.size()
            + UNIFORM_BYTES
            + draws.size()
            + compact
                .as_ref()
                .map_or(0, |c| c.list.size() + c.args.size());
        Ok(GridResources {
            atlas,
            control,
            table,
            control_texture,
            effects_buffer,
            uniform,
            draws,
            compact,
            render_group,
            compute_group,
            bytes,
        })
    }

    /// The render and compute group 2 layouts.
    pub fn layouts(device: &wgpu::Device) -> (wgpu::BindGroupLayout, wgpu::BindGroupLayout) {
        (group2_layout(device, false), group2_layout(device, true))
    }

    /// An MCNK loaded (`Some`) or unloaded (`None`): rewrites its 64 control
    /// texels (CPU copy and texture). Outside the window nothing changes and
    /// `false` is returned.
    pub fn update_chunk(
        &mut self,
        queue: &wgpu::Queue,
        chunk: ChunkCoord,
        mcnk: Option<&Mcnk>,
        effects: &ResolvedEffects,
        policy: &Policy,
    ) -> bool {
        let words = mcnk.map(|m| mcnk_words(m, effects, &self.table, policy));
        let Some(origin) = self.control.set_chunk(chunk, words.as_ref()) else {
            return false;
        };
        let block: Vec<u32> = (0..64)
            .map(|i| {
                let (r, c) = (i / 8, i % 8);
                self.control.words[((origin[1] + r) * self.control.width + origin[0] + c) as usize]
            })
            .collect();
        write_words(queue, &self.control_texture, origin, [8, 8], &block);
        true
    }

    /// Tile `tile`'s 16x16 MCNKs loaded or unloaded at once: `words[iy *
    /// 16 + ix]` is MCNK `(ix, iy)`'s control block (`None`: not
    /// resident). Rewrites the CPU copy and the texture in one write of
    /// the tile's block (the MCNKs inside the window only). Returns the
    /// bytes written.
    pub fn set_tile_words(
        &mut self,
        gpu: &sward_engine::GpuContext,
        tile: sward_scenes::TileCoord,
        words: &[Option<[u32; 64]>],
    ) -> u64 {
        let mut lo = [u32::MAX; 2];
        let mut hi = [0u32; 2];
        for iy in 0..16u32 {
            for ix in 0..16u32 {
                let chunk = ChunkCoord::from_tile(tile, ix, iy);
                let w = words.get((iy * 16 + ix) as usize).and_then(Option::as_ref);
                if let Some([x0, y0]) = self.control.set_chunk(chunk, w) {
                    lo = [lo[0].min(x0), lo[1].min(y0)];
                    hi = [hi[0].max(x0 + 8), hi[1].max(y0 + 8)];
                }
            }
        }
        if lo[0] >= hi[0] || lo[1] >= hi[1] {
            return 0;
        }
        let size = [hi[0] - lo[0], hi[1] - lo[1]];
        let mut block = Vec::with_capacity((size[0] * size[1]) as usize);
        for y in lo[1]..hi[1] {
            let at = (y * self.control.width + lo[0]) as usize;
            block.extend_from_slice(&self.control.words[at..at + size[0] as usize]);
        }
        crate::atlas::write_region_staged(
            gpu,
            "grass.grid.control",
            &self.control_texture,
            lo,
            size,
            4,
            bytemuck::cast_slice(&block),
        );
        block.len() as u64 * 4
    }

    /// GPU memory of these resources.
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.bytes
    }

    /// The effect table buffer.
    pub fn effects_buffer(&self) -> &wgpu::Buffer {
        &self.effects_buffer
    }

    /// Builds the control data of `world` (convenience for constructors).
    pub fn control_for(
        world: &sward_scenes::World,
        atlas: &HeightAtlas,
        effects: &ResolvedEffects,
        policy: &Policy,
    ) -> Result<(ControlData, EffectTable), PassError> {
        let table = EffectTable::new(effects)?;
        let control = ControlData::build(world, atlas.window(), effects, &table, policy);
        Ok((control, table))
    }
}

fn write_words(
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
    origin: [u32; 2],
    size: [u32; 2],
    words: &[u32],
) {
    crate::atlas::write_region(queue, texture, origin, size, 4, bytemuck::cast_slice(words));
}
