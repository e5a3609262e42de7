//! The GPU splat resources every terrain tier shades with (the
//! `terrain_shade` WGSL snippet): the MCAL alpha atlas (one 64x64 RGBA8 tile
//! per MCNK slot), the procedural layer texture array with mips, their
//! samplers and the per-MCNK [`TerrainChunkGpu`] records. Bind group entries
//! sit at bindings `1..=5`, after the tier's uniforms at 0.
//!
//! Built whole ([`SplatGpu::new`]), records follow the slot order of
//! `World::mcnks()` and alpha tiles are packed in that order. Built for a
//! streaming world ([`SplatGpu::streaming`]), the record buffer is a pool of
//! slots the caller assigns and the alpha atlas is a grid of `k x k` blocks
//! of 16x16 MCNK tiles, one block per resident ADT tile;
//! [`SplatGpu::set_tile`] writes or frees one tile's block and records in
//! place. Tile `(x, y)` takes block `(x mod k, y mod k)` when free, so an
//! MCNK lands on the same atlas texels whatever happened before (the
//! resident tiles of a square window of side `k` never share a block):
//! sampling is bit-identical to a fresh build of the same world.

use std::collections::HashMap;
use sward_engine::bind::{self, Slot};

use sward_engine::GpuContext;
use sward_scenes::formats::TextureUpload;
use sward_scenes::world::coords::{TileCoord, TILE_CHUNKS};
use sward_scenes::world::{AdtTile, Mcnk};
use sward_scenes::World;
use wgpu::util::DeviceExt;

use super::gpu::TerrainChunkGpu;
use super::splat::{alpha_tile, texture_bytes, AlphaAtlasLayout, LayerKind};
use super::tileset_gpu::{
    world_has_tilesets, TilesetArrays, TilesetStats, STREAMING_TILESET_LAYERS,
};
use super::TECHNIQUE;
use crate::error::PassError;

/// First binding of the splat resources in a terrain bind group.
pub const SPLAT_FIRST_BINDING: u32 = 1;

/// Alpha atlas, layer textures, samplers and per-MCNK splat records.
pub struct SplatGpu {
    records: wgpu::Buffer,
    alpha_texture: wgpu::Texture,
    /// The streaming block grid (`None` when built whole).
    blocks: Option<AlphaBlocks>,
    alpha_view: wgpu::TextureView,
    /// The layer texture arrays (procedural layers and the tiles' own).
    tileset: TilesetArrays,
    alpha_sampler: wgpu::Sampler,
    layer_sampler: wgpu::Sampler,
    gpu_bytes: u64,
}

/// The alpha atlas of a streaming world: `k x k` blocks of 16x16 MCNK
/// tiles, one per resident ADT tile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlphaBlocks {
    /// Blocks per side.
    k: u32,
    /// The tile each block holds (row-major `by * k + bx`).
    owner: Vec<Option<TileCoord>>,
    /// The block of each resident tile.
    block_of: HashMap<TileCoord, u32>,
}

impl AlphaBlocks {
    /// Room for `tiles` tiles at once: the smallest `k` with `k * k >= tiles`.
    pub fn new(tiles: usize) -> Self {
        let mut k = (tiles.max(1) as f64).sqrt() as u32;
        while (k as usize) * (k as usize) < tiles.max(1) {
            k += 1;
        }
        AlphaBlocks {
            k,
            owner: vec![None; (k * k) as usize],
            block_of: HashMap::new(),
        }
    }

    /// Blocks per side.
    pub fn side(&self) -> u32 {
        self.k
    }

    /// The block of `tile`: the one it holds, else its own block
    /// `(x mod k, y mod k)` when free, else the lowest free block; `None`
    /// when every block is taken.
    pub fn assign(&mut self, tile: TileCoord) -> Option<u32> {
        if let Some(&b) = self.block_of.get(&tile) {
            return Some(b);
        }
        let own = (tile.y % self.k) * self.k + tile.x % self.k;
        let b = if self.owner[own as usize].is_none() {
            own
        } else {
            self.owner.iter().position(Option::is_none)? as u32
        };
        self.owner[b as usize] = Some(tile);
        self.block_of.insert(tile, b);
        Some(b)
    }

    /// Frees the block of `tile`, if it has one.
    pub fn release(&mut self, tile: TileCoord) -> Option<u32> {
        let b = self.block_of.remove(&tile)?;
        self.owner[b as usize] = None;
        Some(b)
    }

    /// Alpha atlas tile index (in an [`AlphaAtlasLayout`] of `16 k` columns)
    /// of MCNK `(ix, iy)` of a tile in block `block`.
    pub fn atlas_tile(&self, block: u32, ix: u32, iy: u32) -> u32 {
        let cols = self.k * TILE_CHUNKS;
        let (bx, by) = (block % self.k, block / self.k);
        (by * TILE_CHUNKS + iy) * cols + bx * TILE_CHUNKS + ix
    }

    /// The atlas layout: `16 k x 16 k` MCNK tiles.
    pub fn layout(&self) -> AlphaAtlasLayout {
        AlphaAtlasLayout {
            cols: self.k * TILE_CHUNKS,
            rows: self.k * TILE_CHUNKS,
        }
    }
}

/// The splat record of `m` (MCNK of `tile`) whose alpha tile is atlas tile
/// `alpha_slot` of `atlas`, with `codes[i]` the layer code of the tile's
/// MTEX entry `i` ([`TilesetArrays::acquire_tile`]); fails on more than
/// four MCLY layers.
fn chunk_record(
    tile: &AdtTile,
    m: &Mcnk,
    atlas: &AlphaAtlasLayout,
    alpha_slot: u32,
    codes: &[u32],
) -> Result<TerrainChunkGpu, PassError> {
    if m.layers.len() > 4 {
        let coord = m.chunk_coord(tile.coord);
        return Err(PassError::InvalidInput {
            technique: TECHNIQUE,
            what: format!("MCNK ({}, {})", coord.x, coord.y),
            reason: format!("{} MCLY layers (1..=4 supported)", m.layers.len()),
        });
    }
    let mut textures = [0u32; 4];
    for (k, layer) in m.layers.iter().enumerate() {
        textures[k] = match codes.get(layer.texture_id as usize) {
            Some(&code) => code,
            // An MCLY naming no MTEX entry: the procedural layer by index.
            None => LayerKind::by_index(layer.texture_id) as u32,
        };
    }
    let (alpha_origin, alpha_scale) = atlas.tile_uv(alpha_slot);
    Ok(TerrainChunkGpu {
        alpha_origin,
        alpha_scale,
        // No MCLY at all draws layer texture 0 alone.
        layer_count: m.layers.len().max(1) as u32,
        textures,
    })
}

/// Writes the RGBA8 alpha tile of `m` at atlas tile `alpha_slot`.
fn write_alpha(
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
    atlas: &AlphaAtlasLayout,
    alpha_slot: u32,
    m: &Mcnk,
) {
    let [tx, ty] = atlas.tile_texel(alpha_slot);
    queue.write_texture(
        wgpu::TexelCopyTextureInfo {
            texture,
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

fn alpha_texture(
    device: &wgpu::Device,
    atlas: &AlphaAtlasLayout,
    mcnks: usize,
) -> Result<wgpu::Texture, PassError> {
    let [aw, ah] = atlas.size();
    let max_dim = device.limits().max_texture_dimension_2d;
    if aw.max(ah) > max_dim {
        return Err(PassError::DeviceLimit {
            technique: TECHNIQUE,
            what: format!("alpha atlas for {mcnks} MCNKs (side in texels)"),
            needed: u64::from(aw.max(ah)),
            limit: u64::from(max_dim),
        });
    }
    Ok(device.create_texture(&crate::atlas::sampled_texture(
        "terrain.alpha_atlas",
        [aw, ah],
        wgpu::TextureFormat::Rgba8Unorm,
    )))
}

/// One streamed tile's alpha block, ready to upload: its 16x16 MCNKs'
/// 64x64 RGBA alpha tiles in one 1024x1024 image (what
/// [`SplatGpu::set_tile_prepared`] writes into the tile's block). It
/// depends on the tile alone, so the tile workers build it.
pub struct SplatTile {
    image: AlphaBlock,
}

/// Where a prepared alpha block's bytes are.
enum AlphaBlock {
    /// In memory: applying writes them with a queue write.
    Host(Vec<u8>),
    /// In a staging buffer filled on the worker: applying records a copy.
    Staged(crate::technique::StagedBytes),
}

impl SplatTile {
    /// Texels per side of a tile's alpha block.
    const SIDE: usize = (TILE_CHUNKS * 64) as usize;

    /// The alpha block of tile `t` (coordinate `tile`).
    pub fn prepare(tile: TileCoord, t: &AdtTile) -> Self {
        let side = Self::SIDE;
        let mut image = vec![0u8; side * side * 4];
        for m in &t.mcnks {
            let (ix, iy) = m.chunk_coord(tile).index_in_tile();
            let alpha = alpha_tile(m);
            for (row, src) in alpha.chunks_exact(64 * 4).enumerate() {
                let at = ((iy as usize * 64 + row) * side + ix as usize * 64) * 4;
                image[at..at + 64 * 4].copy_from_slice(src);
            }
        }
        Self {
            image: AlphaBlock::Host(image),
        }
    }

    /// The same block moved into a staging buffer of `device` (on the
    /// worker that prepared it), so applying it costs the render thread a
    /// recorded copy instead of a 4 MiB queue write.
    pub fn staged(self, device: &wgpu::Device) -> Self {
        match self.image {
            AlphaBlock::Host(bytes) => Self {
                image: AlphaBlock::Staged(crate::technique::StagedBytes::new(
                    device,
                    "terrain.splat_alpha_staging",
                    &bytes,
                )),
            },
            staged => Self { image: staged },
        }
    }
}

impl SplatGpu {
    /// Uploads the alpha tile and splat record of every resident MCNK of
    /// `world` (slot = position in `world.mcnks()`), and the layer textures
    /// (DXT tileset textures as `upload` says).
    pub fn new(gpu: &GpuContext, world: &World, upload: TextureUpload) -> Result<Self, PassError> {
        let atlas = AlphaAtlasLayout::for_tiles(world.mcnk_count());
        let alpha = alpha_texture(&gpu.device, &atlas, world.mcnk_count())?;
        let mut records = Vec::with_capacity(world.mcnk_count());
        // Exactly as many data layers per array as distinct textures of the
        // world go to it.
        let bc = TilesetArrays::samples_bc(gpu, upload);
        let mut distinct = std::collections::HashMap::new();
        for t in world.tiles() {
            for (name, tex) in t.textures.iter().zip(&t.tileset) {
                if let sward_scenes::world::TileTexture::Loaded(tex) = tex {
                    let key = name.replace('/', "\\").to_ascii_lowercase();
                    distinct.insert(key, TilesetArrays::target(tex, bc));
                }
            }
        }
        let mut layers = [0u32; 4];
        for a in distinct.values() {
            layers[a.index()] += 1;
        }
        let mut tileset = TilesetArrays::new(gpu, world_has_tilesets(world), layers, upload);
        for tile in world.tiles() {
            let codes = tileset.acquire_tile(gpu, tile.coord, tile);
            for m in &tile.mcnks {
                let slot = records.len() as u32;
                records.push(chunk_record(tile, m, &atlas, slot, &codes)?);
                write_alpha(&gpu.queue, &alpha, &atlas, slot, m);
            }
        }
        if records.is_empty() {
            // Keep the storage binding non-empty for an empty world.
            records.push(TerrainChunkGpu {
                alpha_origin: [0.0; 2],
                alpha_scale: 0.0,
                layer_count: 1,
                textures: [0; 4],
            });
        }
        let records = gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("terrain.chunk_records"),
                contents: bytemuck::cast_slice(&records),
                usage: wgpu::BufferUsages::STORAGE,
            });
        Ok(Self::finish(gpu, records, alpha, &atlas, None, tileset))
    }

    /// Empty splat resources for a streaming world: a record pool of
    /// `slots` slots and an alpha atlas with one block per tile for
    /// `max_tiles` tiles at once. Fill them with [`Self::set_tile`].
    /// `world`'s tiles tell whether the data carries tileset textures (then
    /// [`STREAMING_TILESET_LAYERS`] layers per array are reserved; DXT
    /// tileset textures go as `upload` says).
    pub fn streaming(
        gpu: &GpuContext,
        world: &World,
        max_tiles: usize,
        slots: usize,
        upload: TextureUpload,
    ) -> Result<Self, PassError> {
        let blocks = AlphaBlocks::new(max_tiles);
        let atlas = blocks.layout();
        let alpha = alpha_texture(&gpu.device, &atlas, max_tiles * 256)?;
        let records = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("terrain.chunk_records"),
            size: (slots.max(1) * std::mem::size_of::<TerrainChunkGpu>()) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let tileset = TilesetArrays::new(
            gpu,
            world_has_tilesets(world),
            [STREAMING_TILESET_LAYERS; 4],
            upload,
        );
        Ok(Self::finish(
            gpu,
            records,
            alpha,
            &atlas,
            Some(blocks),
            tileset,
        ))
    }

    fn finish(
        gpu: &GpuContext,
        records: wgpu::Buffer,
        alpha: wgpu::Texture,
        atlas: &AlphaAtlasLayout,
        blocks: Option<AlphaBlocks>,
        tileset: TilesetArrays,
    ) -> Self {
        let device = &gpu.device;
        let gpu_bytes =
            texture_bytes(atlas.size(), 1, 1, 4) + tileset.gpu_memory_bytes() + records.size();
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
        SplatGpu {
            records,
            alpha_view: alpha.create_view(&Default::default()),
            alpha_texture: alpha,
            blocks,
            tileset,
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
        }
    }

    /// Whether this was built by [`Self::streaming`] (tiles can change).
    pub fn is_streaming(&self) -> bool {
        self.blocks.is_some()
    }

    /// Streaming only: makes tile `tile` of `world` resident (replacing it
    /// if it was) with the record of `tile.mcnks[i]` at slot `slots[i]`, or,
    /// when `world` no longer has it, frees its alpha block (its records
    /// stay as they are: nothing draws a freed slot). Returns the bytes
    /// written, or `Ok(None)` when this was built whole, has no free block
    /// or a slot lies beyond the pool (nothing changed then).
    pub fn set_tile(
        &mut self,
        gpu: &GpuContext,
        world: &World,
        tile: TileCoord,
        slots: &[u32],
    ) -> Result<Option<u64>, PassError> {
        self.set_tile_prepared(gpu, world, tile, slots, None)
    }

    /// [`Self::set_tile`] with the tile's alpha block prepared beforehand
    /// ([`SplatTile::prepare`], on a worker thread); `None` prepares it here.
    pub fn set_tile_prepared(
        &mut self,
        gpu: &GpuContext,
        world: &World,
        tile: TileCoord,
        slots: &[u32],
        prepared: Option<SplatTile>,
    ) -> Result<Option<u64>, PassError> {
        let pool = self.records.size() / std::mem::size_of::<TerrainChunkGpu>() as u64;
        let Some(blocks) = self.blocks.as_mut() else {
            return Ok(None);
        };
        let Some(t) = world.tile(tile) else {
            blocks.release(tile);
            self.tileset.release_tile(tile);
            return Ok(Some(0));
        };
        if slots.len() < t.mcnks.len() || slots.iter().any(|&s| u64::from(s) >= pool) {
            return Ok(None);
        }
        let Some(block) = blocks.assign(tile) else {
            return Ok(None);
        };
        let atlas = blocks.layout();
        let codes = self.tileset.acquire_tile(gpu, tile, t);
        let mut records = Vec::with_capacity(t.mcnks.len());
        for m in &t.mcnks {
            let (ix, iy) = m.chunk_coord(tile).index_in_tile();
            let a = blocks.atlas_tile(block, ix, iy);
            match chunk_record(t, m, &atlas, a, &codes) {
                Ok(r) => records.push(r),
                Err(e) => {
                    blocks.release(tile);
                    self.tileset.release_tile(tile);
                    return Err(e);
                }
            }
        }
        // The tile's alpha tiles in one upload of its whole block.
        let side = SplatTile::SIDE as u32;
        let image = match prepared {
            Some(p) => p.image,
            None => SplatTile::prepare(tile, t).image,
        };
        let [bx, by] = atlas.tile_texel(blocks.atlas_tile(block, 0, 0));
        let (destination, size) = crate::atlas::region(&self.alpha_texture, [bx, by], [side, side]);
        let layout = wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(side * 4),
            rows_per_image: Some(side),
        };
        let mut bytes = match &image {
            AlphaBlock::Host(image) => {
                gpu.queue.write_texture(destination, image, layout, size);
                image.len() as u64
            }
            AlphaBlock::Staged(staged) => {
                gpu.record_copies("terrain.splat_alpha_copy", |encoder| {
                    encoder.copy_buffer_to_texture(
                        wgpu::TexelCopyBufferInfo {
                            buffer: staged.buffer(),
                            layout,
                        },
                        destination,
                        size,
                    );
                });
                staged.len()
            }
        };
        // Records in one write per run of consecutive slots, with the next
        // submission.
        let record_size = std::mem::size_of::<TerrainChunkGpu>() as u64;
        for run in crate::runs::consecutive_runs(&slots[..records.len()]) {
            let data: &[u8] = bytemuck::cast_slice(&records[run.clone()]);
            gpu.write_buffer_staged(
                "terrain.splat_records",
                &self.records,
                u64::from(slots[run.start]) * record_size,
                data,
            );
            bytes += data.len() as u64;
        }
        Ok(Some(bytes))
    }

    /// Bytes of GPU memory held (alpha atlas, layer textures with mips, records).
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.gpu_bytes
    }

    /// How the tiles' own tileset textures went to the GPU.
    pub fn tileset_stats(&self) -> TilesetStats {
        self.tileset.stats()
    }

    /// The pipeline constants of the terrain shaders (`TILESET_BC`).
    pub fn shader_constants(&self) -> Vec<(&'static str, f64)> {
        self.tileset.shader_constants()
    }

    /// The splat's facts for a report: `terrain.tileset_bc`,
    /// `terrain.tileset_decoded`, `terrain.tileset_rgba`,
    /// `terrain.tileset_resampled`, `terrain.tileset_placeholders`,
    /// `terrain.tileset_over_capacity` (distinct resident textures).
    pub fn facts(&self) -> Vec<(String, f64)> {
        let s = self.tileset.stats();
        [
            ("bc", s.bc),
            ("decoded", s.decoded),
            ("rgba", s.rgba),
            ("resampled", s.resampled),
            ("placeholders", s.placeholders),
            ("over_capacity", s.over_capacity),
        ]
        .into_iter()
        .map(|(k, v)| (format!("terrain.tileset_{k}"), f64::from(v)))
        .collect()
    }

    /// Layout entries at bindings 1..=5 (records, alpha atlas, RGBA8 layer
    /// array, alpha sampler, layer sampler) and 20..=22 (the BC1, BC2 and
    /// BC3 tileset arrays), all fragment-stage.
    pub fn layout_entries() -> [wgpu::BindGroupLayoutEntry; 8] {
        let fs = wgpu::ShaderStages::FRAGMENT;
        [
            bind::entry(1, fs, Slot::STORAGE_READ),
            bind::entry(2, fs, Slot::texture_2d()),
            bind::entry(3, fs, Slot::texture_2d_array()),
            bind::entry(4, fs, Slot::SAMPLER),
            bind::entry(5, fs, Slot::SAMPLER),
            bind::entry(20, fs, Slot::texture_2d_array()),
            bind::entry(21, fs, Slot::texture_2d_array()),
            bind::entry(22, fs, Slot::texture_2d_array()),
        ]
    }

    /// Bind group entries matching [`Self::layout_entries`].
    pub fn bind_entries(&self) -> [wgpu::BindGroupEntry<'_>; 8] {
        use wgpu::BindingResource::{Sampler, TextureView};
        let views = self.tileset.views();
        let entry = |binding, resource| wgpu::BindGroupEntry { binding, resource };
        [
            entry(1, self.records.as_entire_binding()),
            entry(2, TextureView(&self.alpha_view)),
            entry(3, TextureView(&views[0])),
            entry(4, Sampler(&self.alpha_sampler)),
            entry(5, Sampler(&self.layer_sampler)),
            entry(20, TextureView(&views[1])),
            entry(21, TextureView(&views[2])),
            entry(22, TextureView(&views[3])),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha_blocks_follow_the_tile_modulo_k_and_are_reused() {
        let mut b = AlphaBlocks::new(25);
        assert_eq!(b.side(), 5);
        assert_eq!(AlphaBlocks::new(26).side(), 6);
        assert_eq!(AlphaBlocks::new(0).side(), 1);
        // A 5x5 window anywhere: every tile gets its own block (x%5, y%5).
        for y in 30..35 {
            for x in 31..36 {
                let t = TileCoord::new(x, y);
                assert_eq!(b.assign(t), Some((y % 5) * 5 + x % 5));
                assert_eq!(b.assign(t), Some((y % 5) * 5 + x % 5), "kept");
            }
        }
        assert_eq!(b.assign(TileCoord::new(36, 30)), None, "full");
        // Slide one column: the evicted column's blocks go to the new one,
        // at the same modulo position.
        for y in 30..35 {
            assert_eq!(b.release(TileCoord::new(31, y)), Some((y % 5) * 5 + 1));
        }
        assert_eq!(b.release(TileCoord::new(31, 30)), None);
        for y in 30..35 {
            assert_eq!(b.assign(TileCoord::new(36, y)), Some((y % 5) * 5 + 1));
        }
        // A collision (same modulo position) falls back to the lowest free block.
        let mut c = AlphaBlocks::new(4);
        assert_eq!(c.assign(TileCoord::new(0, 0)), Some(0));
        assert_eq!(c.assign(TileCoord::new(2, 0)), Some(1));
        assert_eq!(c.assign(TileCoord::new(1, 0)), Some(2));
        // Atlas tiles of a block do not overlap other blocks.
        let l = b.layout();
        assert_eq!(l.size(), [5 * 1024, 5 * 1024]);
        let mut seen = std::collections::HashSet::new();
        for block in 0..25 {
            for iy in 0..16 {
                for ix in 0..16 {
                    let a = b.atlas_tile(block, ix, iy);
                    assert!(a < l.cols * l.rows);
                    assert!(seen.insert(a));
                }
            }
        }
    }
}
