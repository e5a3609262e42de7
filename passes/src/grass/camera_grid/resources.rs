//! GPU resources of `camera-grid` that do not change per frame: the height
//! atlas, the control texture and the resident effects' records (written
//! when tiles become resident or are evicted, never per frame), the uniform
//! buffers, the compaction buffers, and the group 2 bind groups.

use wgpu::util::DeviceExt;

use sward_engine::GpuContext;
use sward_scenes::world::{ChunkCoord, Mcnk};

use super::control::ControlData;
use super::effects::{EffectTable, TileControl, BLANK_EFFECT};
use super::gpu::{group2_layout, GridDraw, GridEffectGpu, GridUniform, DRAW_STRIDE};
use super::word::mcnk_words;
use crate::atlas::HeightAtlas;
use crate::error::PassError;
use sward_scenes::effects::ResolvedEffects;
use sward_scenes::placement::Policy;

/// Indexed indirect argument words per model.
pub const ARGS_WORDS: u64 = 5;

/// Bytes of one compacted instance record (WGSL `GridInstance`: root and
/// scale, rotation and wind origin, derived once by the compaction).
pub const GRID_INSTANCE_BYTES: u64 = 32;

/// Bytes of one candidate's tag (the model the evaluation kept it for).
pub const TAG_BYTES: u64 = 4;

/// Words per model of the regions buffer: this frame's count, the region's
/// first record, the scatter's cursor.
pub const REGION_WORDS: u64 = 3;

/// What the compaction buffers are sized by.
#[derive(Debug, Clone)]
pub struct CompactSizes {
    /// Candidates evaluated per frame (`side^2 * candidates`): one tag each.
    pub candidates: u32,
    /// Records the compacted list holds (the candidates, unless a test
    /// forces fewer to overflow it).
    pub capacity: u32,
    /// The indirect arguments' initial words (index count, 0, first index,
    /// base vertex, 0 per model); the offsets pass writes only the counts.
    pub args: Vec<u32>,
}

/// Compaction buffers. A frame evaluates every candidate once and tags the
/// kept ones with their model, counting per model (`grass.grid.compact`);
/// one workgroup lays the models' regions out from those counts
/// (`grass.grid.offsets`: an exclusive prefix sum, clamped to the list's
/// capacity, the excess counted as overflow); the tagged candidates are then
/// written into their model's region (`grass.grid.scatter`). The list holds
/// one record per drawn blade, not one per model and candidate.
pub struct CompactBuffers {
    /// `capacity` instance records, the models' regions one after another.
    pub list: wgpu::Buffer,
    /// One [`TAG_BYTES`] tag per candidate.
    pub tags: wgpu::Buffer,
    /// [`REGION_WORDS`] words per model: counts, then offsets, then cursors.
    pub regions: wgpu::Buffer,
    /// `model_count` indexed indirect records (5 words each), then the
    /// frame's overflow (blades that found no room in the list).
    pub args: wgpu::Buffer,
    /// Records the list holds.
    pub capacity: u32,
}

/// The resident, frame-invariant resources.
pub struct GridResources {
    /// The exact height atlas of the window.
    pub atlas: HeightAtlas,
    /// CPU copy of the control texture.
    pub control: ControlData,
    /// The resident effects, by palette slot.
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
    /// Builds everything for `world` under `policy`; `compact` sizes the
    /// compaction buffers (`Some` only in compact mode).
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
        compact: Option<CompactSizes>,
        render_layout: &wgpu::BindGroupLayout,
        compute_layout: Option<&wgpu::BindGroupLayout>,
    ) -> Result<Self, PassError> {
        let device = &gpu.device;
        let control_texture = device.create_texture(&crate::atlas::sampled_texture(
            "grass.grid.control",
            [control.width, control.height],
            wgpu::TextureFormat::R32Uint,
        ));
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
        // Every slot the palette can give, free ones blank.
        let mut records = table.records.clone();
        records.resize(table.capacity().max(records.len()), BLANK_EFFECT);
        let effects_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("grass.grid.effects"),
            contents: bytemuck::cast_slice(&records),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        });
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("grass.grid.uniform"),
            size: UNIFORM_BYTES,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut draw_bytes = vec![0u8; model_count.max(1) * DRAW_STRIDE as usize];
        for m in 0..model_count {
            let d = GridDraw {
                model: m as u32,
                pad0: 0,
                pad1: 0,
                pad2: 0,
            };
            let at = m * DRAW_STRIDE as usize;
            draw_bytes[at..at + 16].copy_from_slice(bytemuck::bytes_of(&d));
        }
        let draws = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("grass.grid.draws"),
            contents: &draw_bytes,
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let compact = match compact {
            Some(sizes) => Some(compact_buffers(gpu, model_count, &sizes)?),
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
            regions: &'b wgpu::Buffer,
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
                wgpu::BindGroupEntry {
                    binding: 10,
                    resource: regions.as_entire_binding(),
                },
            ];
            e.extend(atlas.bind_entries(6));
            e
        }
        let (list, regions) = compact
            .as_ref()
            .map_or((&dummy, &dummy), |c| (&c.list, &c.regions));
        let mut render_entries = common(
            &uniform,
            &control_view,
            &effects_buffer,
            list,
            regions,
            &atlas,
        );
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
                let mut entries = common(
                    &uniform,
                    &control_view,
                    &effects_buffer,
                    &c.list,
                    &c.regions,
                    &atlas,
                );
                entries.push(wgpu::BindGroupEntry {
                    binding: 5,
                    resource: c.args.as_entire_binding(),
                });
                entries.push(wgpu::BindGroupEntry {
                    binding: 11,
                    resource: c.tags.as_entire_binding(),
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
            + compact.as_ref().map_or(0, CompactBuffers::bytes);
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
    /// texels (CPU copy and texture). Its effects keep their palette slots
    /// (its tile stays resident; an effect the palette does not hold grows
    /// nothing). Outside the window nothing changes and `false` is returned.
    pub fn update_chunk(
        &mut self,
        queue: &wgpu::Queue,
        chunk: ChunkCoord,
        mcnk: Option<&Mcnk>,
        effects: &ResolvedEffects,
        policy: &Policy,
    ) -> bool {
        let table = &self.table;
        let words = mcnk.map(|m| mcnk_words(m, effects, policy, &mut |id| table.index_of(id)));
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

    /// Tile `tile` made resident or evicted (`control` from
    /// [`TileControl::build`]; an evicted tile's has no ids and no blocks):
    /// the palette takes its effects (new ones get slots and their records
    /// are written, ones no resident tile uses any more are freed), then its
    /// 16x16 MCNK blocks are rewritten with those slots, CPU copy and
    /// texture, in one write of the tile's block (the MCNKs inside the
    /// window only). Returns the bytes written; more distinct resident
    /// effects than the palette holds is an error naming the count.
    pub fn set_tile_control(
        &mut self,
        gpu: &GpuContext,
        tile: sward_scenes::TileCoord,
        control: &TileControl,
        effects: &ResolvedEffects,
    ) -> Result<u64, PassError> {
        let changes = self.table.set_tile(tile, &control.ids, effects)?;
        let slots: Vec<u32> = changes.iter().map(|c| c.slot).collect();
        let mut bytes = 0;
        for run in crate::runs::consecutive_runs(&slots) {
            let first = slots[run.start] as usize;
            let records: &[GridEffectGpu] = &self.table.records[first..first + run.len()];
            gpu.write_buffer_staged(
                "grass.grid.effects",
                &self.effects_buffer,
                first as u64 * std::mem::size_of::<GridEffectGpu>() as u64,
                bytemuck::cast_slice(records),
            );
            bytes += std::mem::size_of_val(records) as u64;
        }
        let blocks = control.resolved(&self.table);
        Ok(bytes + self.set_tile_words(gpu, tile, &blocks))
    }

    /// Tile `tile`'s 16x16 MCNK blocks loaded or unloaded at once: `words[iy *
    /// 16 + ix]` is MCNK `(ix, iy)`'s control block (`None`: not
    /// resident), effects already at their palette slots. Rewrites the CPU
    /// copy and the texture in one write of the tile's block (the MCNKs
    /// inside the window only). Returns the bytes written.
    fn set_tile_words(
        &mut self,
        gpu: &sward_engine::GpuContext,
        tile: sward_scenes::TileCoord,
        words: &[Option<[u32; 64]>],
    ) -> u64 {
        let Some((lo, hi)) = self.control.set_tile(tile, words) else {
            return 0;
        };
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

    /// Builds the control data of `world` (convenience for constructors):
    /// every resident tile's effects made resident in a new palette.
    pub fn control_for(
        world: &sward_scenes::World,
        atlas: &HeightAtlas,
        effects: &ResolvedEffects,
        policy: &Policy,
    ) -> Result<(ControlData, EffectTable), PassError> {
        let mut table = EffectTable::new(effects);
        let control = ControlData::build(world, atlas.window(), effects, &mut table, policy)?;
        Ok((control, table))
    }
}

impl CompactBuffers {
    /// GPU bytes of the compaction buffers.
    pub fn bytes(&self) -> u64 {
        self.list.size() + self.tags.size() + self.regions.size() + self.args.size()
    }
}

/// A storage buffer of `size` bytes, or the device-limit error naming it,
/// the size, the limit and `lowers` (what makes it smaller).
fn storage_buffer(
    device: &wgpu::Device,
    label: &'static str,
    size: u64,
    usage: wgpu::BufferUsages,
    lowers: &str,
) -> Result<wgpu::Buffer, PassError> {
    let limit = u64::from(device.limits().max_storage_buffer_binding_size)
        .min(device.limits().max_buffer_size);
    if size > limit {
        return Err(PassError::DeviceLimit {
            technique: "grass",
            what: format!("camera-grid buffer `{label}` ({lowers})"),
            needed: size,
            limit,
        });
    }
    Ok(device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::STORAGE | usage,
        mapped_at_creation: false,
    }))
}

fn compact_buffers(
    gpu: &GpuContext,
    model_count: usize,
    sizes: &CompactSizes,
) -> Result<CompactBuffers, PassError> {
    let device = &gpu.device;
    let models = model_count.max(1) as u64;
    let fewer = "32 bytes per grid candidate, slots x candidates per slot; \
                 a larger camera-grid:spacing gives fewer slots";
    let list = storage_buffer(
        device,
        "grass.grid.compacted",
        (u64::from(sizes.capacity) * GRID_INSTANCE_BYTES).max(GRID_INSTANCE_BYTES),
        wgpu::BufferUsages::COPY_SRC,
        fewer,
    )?;
    let tags = storage_buffer(
        device,
        "grass.grid.tags",
        (u64::from(sizes.candidates) * TAG_BYTES).max(TAG_BYTES),
        wgpu::BufferUsages::empty(),
        "4 bytes per grid candidate; a larger camera-grid:spacing gives fewer slots",
    )?;
    let regions = storage_buffer(
        device,
        "grass.grid.regions",
        models * REGION_WORDS * 4,
        wgpu::BufferUsages::COPY_SRC,
        "12 bytes per detail model",
    )?;
    let mut args = sizes.args.clone();
    args.resize((models * ARGS_WORDS) as usize, 0);
    // The overflow word.
    args.push(0);
    let args = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("grass.grid.args"),
        contents: bytemuck::cast_slice(&args),
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::INDIRECT
            | wgpu::BufferUsages::COPY_SRC,
    });
    Ok(CompactBuffers {
        list,
        tags,
        regions,
        args,
        capacity: sizes.capacity,
    })
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
