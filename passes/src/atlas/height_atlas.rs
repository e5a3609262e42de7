//! [`HeightAtlas`]: the GPU side of the exact height/normal atlas for one
//! world window: the R32Float height and RGBA8 snorm normal textures (one
//! 17x9 tile per MCNK), the per-MCNK record buffer and the R32Uint
//! chunk-index texture, plus bind group entries that any technique can place
//! in its own bind group.

use crate::atlas::layout::TILE_TEXELS;

use sward_engine::GpuContext;
use sward_scenes::world::coords::{ChunkCoord, TileCoord};
use sward_scenes::world::{AdtTile, Mcnk, World};

use super::layout::{
    height_tile, normal_tile, AtlasChunkGpu, AtlasLayout, IndexWindow, NO_CHUNK, TECHNIQUE, TILE_H,
    TILE_W,
};
use super::slots::{ChunkSlots, FreeSlots, TileSlotMap};
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
    /// CPU copy of the record buffer, one per slot up to the highest slot
    /// ever used; free slots hold [`AtlasChunkGpu::EMPTY`].
    records: Vec<AtlasChunkGpu>,
    /// The slot of every resident MCNK, held per tile.
    slots: ChunkSlots,
    /// Free slots below `records.len()`, handed out lowest first.
    free: FreeSlots,
    /// Empty records, as many as the longest run blanked so far (kept, so
    /// an eviction allocates nothing).
    blank: Vec<AtlasChunkGpu>,
    window: IndexWindow,
    gpu_bytes: u64,
}

/// How far a streaming atlas must reach: the index window of every MCNK
/// that may ever become resident and the most MCNKs resident at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtlasReach {
    /// The chunk-index window (global MCNK coordinates).
    pub window: IndexWindow,
    /// Slots to allocate (MCNKs resident at once, at most).
    pub capacity: usize,
}

fn texture(
    device: &wgpu::Device,
    label: &str,
    size: [u32; 2],
    format: wgpu::TextureFormat,
) -> wgpu::Texture {
    device.create_texture(&sampled_texture(label, size, format))
}

/// A 2D texture of `size` texels, one mip, that shaders sample and the
/// queue writes: the atlas's and the clipmap's lookup textures.
pub(crate) fn sampled_texture(
    label: &str,
    size: [u32; 2],
    format: wgpu::TextureFormat,
) -> wgpu::TextureDescriptor<'_> {
    wgpu::TextureDescriptor {
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
    }
}

/// The `size` texels of mip 0 of 2D `texture` at `origin`, as a copy
/// destination and extent.
pub(crate) fn region(
    texture: &wgpu::Texture,
    origin: [u32; 2],
    size: [u32; 2],
) -> (wgpu::TexelCopyTextureInfo<'_>, wgpu::Extent3d) {
    (
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
        wgpu::Extent3d {
            width: size[0],
            height: size[1],
            depth_or_array_layers: 1,
        },
    )
}

/// Writes `data` (tightly packed rows of `texel_bytes`-byte texels) into
/// the `size` texels of 2D `texture` at `origin`.
pub(crate) fn write_region(
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
    origin: [u32; 2],
    size: [u32; 2],
    texel_bytes: u32,
    data: &[u8],
) {
    let (destination, extent) = region(texture, origin, size);
    queue.write_texture(
        destination,
        data,
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(size[0] * texel_bytes),
            rows_per_image: Some(size[1]),
        },
        extent,
    );
}

/// [`write_region`] with the next submission, through the context's
/// staging belt ([`GpuContext::write_texture_staged`]): for the writes of a
/// residency change on the render thread.
pub(crate) fn write_region_staged(
    gpu: &GpuContext,
    label: &str,
    texture: &wgpu::Texture,
    origin: [u32; 2],
    size: [u32; 2],
    texel_bytes: u32,
    data: &[u8],
) {
    let (destination, extent) = region(texture, origin, size);
    gpu.write_texture_staged(label, destination, data, size[0] * texel_bytes, extent);
}

/// Runs of consecutive values of sorted `slots` that do not cross a
/// multiple of `row` (an atlas row of tiles), as half-open ranges.
fn slot_runs(slots: &[u32], row: u32) -> Vec<std::ops::Range<u32>> {
    let mut out: Vec<std::ops::Range<u32>> = Vec::new();
    for &s in slots {
        match out.last_mut() {
            Some(r) if r.end == s && s % row != 0 => r.end = s + 1,
            _ => out.push(s..s + 1),
        }
    }
    out
}

/// One streamed tile's height and normal tiles, in MCNK order: what
/// [`HeightAtlas::set_tile_prepared`] copies into the slots it picks. It
/// depends on the tile alone, so the tile workers build it.
pub struct AtlasTile {
    #[allow(clippy::type_complexity)]
    tiles: Vec<(Box<[f32; TILE_TEXELS]>, Box<[u8; TILE_TEXELS * 4]>)>,
    /// The same tiles in a staging buffer ([`Self::staged`]).
    staged: Option<StagedStrip>,
    /// The tile's coordinate and each MCNK's record, its atlas tile still
    /// unset (placement sets it from the slot); `None` when an MCNK fails
    /// the record's checks (placement then builds the records itself, and
    /// reports that MCNK's error).
    records: Option<(TileCoord, Vec<AtlasChunkGpu>)>,
}

/// A tile's height and normal tiles staged side by side, MCNK `k` at
/// columns `k * TILE_W ..`: a strip of heights rows (R32Float) followed by
/// one of normal rows (RGBA8), `STRIP_TILES` tiles wide, so a run of
/// consecutive MCNKs landing in consecutive slots is one recorded copy per
/// texture.
struct StagedStrip {
    bytes: crate::technique::StagedBytes,
    count: usize,
}

/// MCNK tiles per staged strip row: a tile's 256 MCNKs, which also makes
/// a row's bytes (256 x 17 x 4) a multiple of the 256-byte copy pitch.
const STRIP_TILES: usize = 256;
/// Bytes per row of a staged strip.
const STRIP_ROW_BYTES: usize = STRIP_TILES * TILE_W as usize * 4;

impl AtlasTile {
    /// The height and normal tiles of every MCNK of `t`.
    pub fn prepare(t: &AdtTile) -> Self {
        Self {
            tiles: t
                .mcnks
                .iter()
                .map(|m| (Box::new(height_tile(m)), Box::new(normal_tile(m))))
                .collect(),
            staged: None,
            records: t
                .mcnks
                .iter()
                .map(|m| AtlasChunkGpu::new(m.chunk_coord(t.coord), m, [0, 0]))
                .collect::<Result<Vec<_>, _>>()
                .ok()
                .map(|r| (t.coord, r)),
        }
    }

    /// The same tiles moved into a staging buffer of `device` (on the worker
    /// that prepared them), so placing them costs the render thread one
    /// recorded copy per run of slots instead of assembling and writing
    /// them. A tile of more than [`STRIP_TILES`] MCNKs stays in memory.
    pub fn staged(self, device: &wgpu::Device) -> Self {
        if self.staged.is_some() || self.tiles.len() > STRIP_TILES {
            return self;
        }
        let rows = TILE_H as usize;
        let strip = STRIP_ROW_BYTES * rows;
        let mut bytes = vec![0u8; strip * 2];
        let w = TILE_W as usize;
        for (k, (h, n)) in self.tiles.iter().enumerate() {
            for r in 0..rows {
                let at = r * STRIP_ROW_BYTES + k * w * 4;
                let src = r * w;
                bytes[at..at + w * 4].copy_from_slice(bytemuck::cast_slice(&h[src..src + w]));
                bytes[strip + at..strip + at + w * 4].copy_from_slice(&n[src * 4..(src + w) * 4]);
            }
        }
        let count = self.tiles.len();
        Self {
            tiles: Vec::new(),
            staged: Some(StagedStrip {
                bytes: crate::technique::StagedBytes::new(device, "atlas.tile_staging", &bytes),
                count,
            }),
            records: self.records,
        }
    }

    /// MCNK tiles held.
    fn len(&self) -> usize {
        self.staged.as_ref().map_or(self.tiles.len(), |s| s.count)
    }
}

impl HeightAtlas {
    /// Allocates the atlas for every resident MCNK of `world` and uploads
    /// them. Slots follow `world.mcnks()` order (tiles by row then column,
    /// MCNKs row-major), the same order `static-chunks` uses. Fails on an
    /// MCNK whose position does not match its grid coordinate, on non-finite
    /// heights, or when the atlas exceeds the device's texture size.
    pub fn new(gpu: &GpuContext, world: &World) -> Result<Self, PassError> {
        Self::with_reach(gpu, world, None)
    }

    /// Like [`Self::new`], but with room for streaming when `reach` is
    /// given: the index covers `reach.window` and the atlas has
    /// `reach.capacity` slots (at least the resident MCNKs), so tiles can
    /// be made resident and evicted in place ([`Self::set_tile`]).
    pub fn with_reach(
        gpu: &GpuContext,
        world: &World,
        reach: Option<AtlasReach>,
    ) -> Result<Self, PassError> {
        let device = &gpu.device;
        let count = world.mcnk_count();
        let resident = IndexWindow::covering(world.mcnks().map(|(c, _)| c));
        let (window, capacity) = match reach {
            Some(r) if count == 0 || r.window.contains(&resident) => {
                (r.window, r.capacity.max(count))
            }
            _ => (resident, count),
        };
        let layout = AtlasLayout::for_tiles(capacity);
        let size = layout.size();
        let max_dim = device.limits().max_texture_dimension_2d;
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
            slots: ChunkSlots::default(),
            free: FreeSlots::default(),
            blank: Vec::new(),
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
        all.resize(record_count, AtlasChunkGpu::EMPTY);
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
            .filter(|c| *c != chunk && self.slots.get(*c) == Some(slot));
        if let Some(prev) = previous {
            self.slots.remove(prev);
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
            self.records.resize(s + 1, AtlasChunkGpu::EMPTY);
        }
        self.records[s] = record;
        self.free.remove(slot);
        // An MCNK moved from another slot is only reachable at the new one.
        self.slots.insert(chunk, slot);
        Ok(())
    }

    /// Makes tile `tile` of `world` resident (replacing its MCNKs if it
    /// was) or, when `world` no longer has it, evicts its MCNKs: their
    /// slots go back to the free list and their index texels to
    /// [`NO_CHUNK`]. New MCNKs take the lowest free slots. Returns the
    /// bytes written to the GPU, or `Ok(None)` when the atlas has no room
    /// for the tile (the caller then rebuilds with a larger reach); the
    /// atlas is unchanged in that case.
    pub fn set_tile(
        &mut self,
        gpu: &GpuContext,
        world: &World,
        tile: TileCoord,
    ) -> Result<Option<u64>, PassError> {
        self.set_tile_prepared(gpu, world, tile, None)
    }

    /// [`Self::set_tile`] with the tile's height and normal tiles prepared
    /// beforehand ([`AtlasTile::prepare`], on a worker thread); `None`
    /// prepares them here.
    pub fn set_tile_prepared(
        &mut self,
        gpu: &GpuContext,
        world: &World,
        tile: TileCoord,
        prepared: Option<&AtlasTile>,
    ) -> Result<Option<u64>, PassError> {
        let incoming = world.tile(tile);
        let needed = incoming.map_or(0, |t| t.mcnks.len());
        // The tile's slots are held together: the cost of a change does not
        // grow with the window.
        let held_count = self.slots.tile(tile).held();
        let unused = self.layout.capacity() as usize - self.records.len();
        if needed > self.free.len() + held_count + unused {
            return Ok(None);
        }
        if let Some(t) = incoming {
            for m in &t.mcnks {
                if self.window.texel(m.chunk_coord(tile)).is_none() {
                    return Ok(None);
                }
            }
        }
        // Evict: free the slots, blank their records (one write per run of
        // consecutive slots) and their index texels (one block write below).
        let record_bytes = std::mem::size_of::<AtlasChunkGpu>() as u64;
        let mut bytes = 0u64;
        let held = self.slots.remove_tile(tile);
        let mut freed: Vec<u32> = held.iter().map(|(_, s)| *s).collect();
        freed.sort_unstable();
        for slot in &freed {
            self.records[*slot as usize] = AtlasChunkGpu::EMPTY;
            self.free.insert(*slot);
        }
        for run in slot_runs(&freed, u32::MAX) {
            if self.blank.len() < run.len() {
                self.blank.resize(run.len(), AtlasChunkGpu::EMPTY);
            }
            gpu.write_buffer_staged(
                "atlas.records",
                &self.chunk_buffer,
                u64::from(run.start) * record_bytes,
                bytemuck::cast_slice(&self.blank[..run.len()]),
            );
            bytes += record_bytes * run.len() as u64;
        }
        let Some(t) = incoming else {
            if !held.is_empty() {
                bytes += self.write_index_block(gpu, tile);
            }
            return Ok(Some(bytes));
        };
        // Resident: the lowest free slots, then one write per run of
        // consecutive slots in one atlas row (heights and normals), one per
        // run of records and one block of index texels for the tile.
        let inline;
        let prepared = match prepared.filter(|p| p.len() == t.mcnks.len()) {
            Some(p) => p,
            None => {
                inline = AtlasTile::prepare(t);
                &inline
            }
        };
        let mut placed: Vec<(u32, ChunkCoord, &Mcnk, usize)> = Vec::with_capacity(t.mcnks.len());
        for (i, m) in t.mcnks.iter().enumerate() {
            let slot = match self.free.pop_first() {
                Some(s) => s,
                None => {
                    self.records.push(AtlasChunkGpu::EMPTY);
                    self.records.len() as u32 - 1
                }
            };
            placed.push((slot, m.chunk_coord(tile), m, i));
        }
        placed.sort_unstable_by_key(|p| p.0);
        // The records the worker checked and built, or built here.
        let built = prepared
            .records
            .as_ref()
            .filter(|(coord, r)| *coord == tile && r.len() == t.mcnks.len())
            .map(|(_, r)| r);
        for (slot, chunk, m, k) in &placed {
            let at = self.layout.tile(*slot);
            self.records[*slot as usize] = match built {
                Some(r) => AtlasChunkGpu { tile: at, ..r[*k] },
                None => AtlasChunkGpu::new(*chunk, m, at)?,
            };
        }
        let slots: Vec<u32> = placed.iter().map(|p| p.0).collect();
        match &prepared.staged {
            Some(staged) => bytes += self.copy_staged(gpu, staged, &placed),
            None => bytes += self.write_runs(gpu, prepared, &placed, &slots),
        }
        for run in slot_runs(&slots, u32::MAX) {
            let records = &self.records[run.start as usize..run.end as usize];
            gpu.write_buffer_staged(
                "atlas.records",
                &self.chunk_buffer,
                u64::from(run.start) * record_bytes,
                bytemuck::cast_slice(records),
            );
            bytes += record_bytes * run.len() as u64;
        }
        for (slot, chunk, _, _) in &placed {
            self.slots.insert(*chunk, *slot);
        }
        bytes += self.write_index_block(gpu, tile);
        Ok(Some(bytes))
    }

    /// Assembles and writes the in-memory tiles of `prepared`, one write
    /// per run of consecutive slots in one atlas row and texture; the bytes
    /// written. `placed` is (slot, chunk, MCNK, MCNK index), sorted by slot.
    fn write_runs(
        &self,
        gpu: &GpuContext,
        prepared: &AtlasTile,
        placed: &[(u32, ChunkCoord, &Mcnk, usize)],
        slots: &[u32],
    ) -> u64 {
        let mut bytes = 0;
        let mut at = 0;
        for run in slot_runs(slots, self.layout.cols) {
            let n = run.len();
            let chunk_run = &placed[at..at + n];
            at += n;
            let width = TILE_W * n as u32;
            let mut heights = vec![0f32; (width * TILE_H) as usize];
            let mut normals = vec![0u8; (width * TILE_H * 4) as usize];
            for (i, (_, _, _, k)) in chunk_run.iter().enumerate() {
                let (h, nm) = &prepared.tiles[*k];
                for r in 0..TILE_H as usize {
                    let dst = r * width as usize + i * TILE_W as usize;
                    let src = r * TILE_W as usize;
                    heights[dst..dst + TILE_W as usize]
                        .copy_from_slice(&h[src..src + TILE_W as usize]);
                    normals[dst * 4..(dst + TILE_W as usize) * 4]
                        .copy_from_slice(&nm[src * 4..(src + TILE_W as usize) * 4]);
                }
            }
            let origin = self.layout.tile_texel(run.start);
            write_region_staged(
                gpu,
                "atlas.heights",
                &self.heights,
                origin,
                [width, TILE_H],
                4,
                bytemuck::cast_slice(&heights),
            );
            write_region_staged(
                gpu,
                "atlas.normals",
                &self.normals,
                origin,
                [width, TILE_H],
                4,
                &normals,
            );
            bytes += (width * TILE_H * 8) as u64;
        }
        bytes
    }

    /// Records one copy per texture for each run of consecutive slots
    /// (within one atlas row) holding consecutive MCNKs of `staged`, for
    /// the next frame to submit ([`GpuContext::record_copies`]); the bytes
    /// copied. `placed` is (slot, chunk, MCNK, MCNK index), sorted by slot.
    fn copy_staged(
        &self,
        gpu: &GpuContext,
        staged: &StagedStrip,
        placed: &[(u32, ChunkCoord, &Mcnk, usize)],
    ) -> u64 {
        let mut bytes = 0;
        gpu.record_copies("atlas.tile_copy", |encoder| {
            bytes = self.record_runs(encoder, staged, placed);
        });
        bytes
    }

    /// The copies of [`Self::copy_staged`], recorded into `encoder`.
    fn record_runs(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        staged: &StagedStrip,
        placed: &[(u32, ChunkCoord, &Mcnk, usize)],
    ) -> u64 {
        let strip = (STRIP_ROW_BYTES * TILE_H as usize) as u64;
        let mut bytes = 0;
        let mut start = 0;
        while start < placed.len() {
            let (slot0, k0) = (placed[start].0, placed[start].3);
            let mut end = start + 1;
            while end < placed.len()
                && placed[end].0 == slot0 + (end - start) as u32
                && placed[end].0 % self.layout.cols != 0
                && placed[end].3 == k0 + (end - start)
            {
                end += 1;
            }
            let width = TILE_W * (end - start) as u32;
            let origin = self.layout.tile_texel(slot0);
            for (texture, base) in [(&self.heights, 0), (&self.normals, strip)] {
                let (destination, extent) = region(texture, origin, [width, TILE_H]);
                encoder.copy_buffer_to_texture(
                    wgpu::TexelCopyBufferInfo {
                        buffer: staged.bytes.buffer(),
                        layout: wgpu::TexelCopyBufferLayout {
                            offset: base + (k0 * TILE_W as usize * 4) as u64,
                            bytes_per_row: Some(STRIP_ROW_BYTES as u32),
                            rows_per_image: Some(TILE_H),
                        },
                    },
                    destination,
                    extent,
                );
            }
            bytes += u64::from(width * TILE_H * 8);
            start = end;
        }
        bytes
    }

    /// Rewrites the index texels of `tile`'s 16x16 MCNKs (inside the index
    /// window) from the slot map in one write; the bytes written.
    fn write_index_block(&self, gpu: &GpuContext, tile: TileCoord) -> u64 {
        let first = ChunkCoord::from_tile(tile, 0, 0);
        let Some(origin) = self.window.texel(first) else {
            // A tile the window does not cover has no index texels.
            return 0;
        };
        let w = 16.min(self.window.size[0] - origin[0]);
        let h = 16.min(self.window.size[1] - origin[1]);
        let slots = self.slots.tile(tile);
        let mut block = vec![NO_CHUNK; (w * h) as usize];
        for y in 0..h {
            for x in 0..w {
                if let Some(s) = slots.at(x, y) {
                    block[(y * w + x) as usize] = s;
                }
            }
        }
        write_region_staged(
            gpu,
            "atlas.index",
            &self.index,
            origin,
            [w, h],
            4,
            bytemuck::cast_slice(&block),
        );
        u64::from(w * h) * 4
    }

    /// Whether slot `slot` holds a resident MCNK.
    pub fn is_live(&self, slot: u32) -> bool {
        self.records
            .get(slot as usize)
            .is_some_and(|r| r.chunk[0] != NO_CHUNK && self.slots.get(r.coord()) == Some(slot))
    }

    /// The tile placement.
    pub fn layout(&self) -> AtlasLayout {
        self.layout
    }

    /// The chunk-index window (shaders need its origin).
    pub fn window(&self) -> IndexWindow {
        self.window
    }

    /// Resident MCNKs. Built from scratch, slots `0..chunk_count()` are in
    /// use; after streaming changes, free slots may lie in between (see
    /// [`Self::is_live`] and [`Self::slot_count`]).
    pub fn chunk_count(&self) -> usize {
        self.slots.len()
    }

    /// Slots handed out so far (live or free): the length of
    /// [`Self::records`].
    pub fn slot_count(&self) -> usize {
        self.records.len()
    }

    /// Per-slot records in slot order (the CPU copy of the record buffer;
    /// free slots hold [`AtlasChunkGpu::EMPTY`]).
    pub fn records(&self) -> &[AtlasChunkGpu] {
        &self.records
    }

    /// The slot of MCNK `chunk`, if resident.
    pub fn slot_of(&self, chunk: ChunkCoord) -> Option<u32> {
        self.slots.get(chunk)
    }

    /// The slots of `tile`'s MCNKs: one look-up for a whole tile.
    pub fn tile_slots(&self, tile: TileCoord) -> TileSlotMap {
        self.slots.tile(tile)
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
        use sward_engine::bind::{entry, Slot};
        let float = Slot::float_texture(wgpu::TextureViewDimension::D2, false);
        [
            entry(first, visibility, Slot::STORAGE_READ),
            entry(first + 1, visibility, float),
            entry(first + 2, visibility, float),
            entry(
                first + 3,
                visibility,
                Slot::uint_texture(wgpu::TextureViewDimension::D2),
            ),
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

#[cfg(test)]
mod run_tests {
    use super::slot_runs;

    #[test]
    fn slot_runs_split_at_gaps_and_atlas_rows() {
        assert_eq!(slot_runs(&[], 4), vec![]);
        assert_eq!(
            slot_runs(&[0, 1, 2, 5, 6, 9], u32::MAX),
            vec![0..3, 5..7, 9..10]
        );
        // Rows of 4 tiles: 3 -> 4 crosses a row, 7 -> 8 too.
        assert_eq!(slot_runs(&[2, 3, 4, 5, 6, 7, 8], 4), vec![2..4, 4..8, 8..9]);
    }
}
