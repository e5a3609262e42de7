//! Residency of a [`GpuCull`]: tiles written into and freed from the
//! pools ([`GpuCull::set_tile`]), pools that run out grown on the GPU,
//! tiles' patch sets prepared off the render thread ([`PreparedPatches`],
//! their descriptors staged for the tile's own slot), and
//! [`GpuCull::commit`], which publishes the resident tiles to the cull.

use sward_engine::GpuContext;
use sward_scenes::{Placements, TileCoord, World};

use super::build::{indirect_usage, pool_buffer};
use super::cull::CullModel;
use super::descriptor::DESCRIPTOR_BYTES;
use super::patches::{ModelReach, PatchSet};
use super::pool::{self, Pools};
use super::{
    instances, Compaction, GpuCull, PatchSize, TileAlloc, ARGS_BYTES, ENTRY_BYTES, PATCH_BYTES,
};
use crate::atlas::HeightAtlas;
use crate::error::PassError;
use crate::grass::models::GrassModels;
use crate::runs::consecutive_runs;

/// A larger copy of `old` (its contents copied on the GPU).
fn regrow(gpu: &GpuContext, old: &wgpu::Buffer, label: &str, bytes: u64) -> wgpu::Buffer {
    let new = pool_buffer(gpu, label, bytes, old.usage());
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("grass.gpu-cull.grow"),
        });
    encoder.copy_buffer_to_buffer(old, 0, &new, 0, old.size().min(new.size()));
    // After the copies recorded into `old` (staged descriptor pages of
    // tiles placed earlier in this change).
    gpu.submit([encoder.finish()]);
    new
}

/// Units a pool of `capacity` grows to when `needed` more than `used` are
/// asked for: at least a quarter more, so growth stays rare.
fn grown(capacity: u32, used: u32, needed: u32) -> u32 {
    (used + needed).max(capacity + capacity.div_ceil(4))
}

impl GpuCull {
    /// Makes tile `tile` resident with `placements` (replacing it if it
    /// was), or evicts it when `placements` is `None`: its patches are
    /// built and written into free pages of the pools (which grow, on the
    /// GPU, when full). Returns the bytes written; [`Self::commit`] then
    /// publishes the change to the cull. `world` must hold the tile's MCNKs.
    pub fn set_tile(
        &mut self,
        gpu: &GpuContext,
        world: &World,
        tile: TileCoord,
        placements: Option<&Placements>,
        atlas: &HeightAtlas,
    ) -> Result<u64, PassError> {
        self.set_tile_prepared(gpu, world, tile, placements, atlas, None)
    }

    /// [`Self::set_tile`] with the tile's patch set built beforehand (by the
    /// technique's tile preparer, on a worker thread); `None` builds it here.
    pub fn set_tile_prepared(
        &mut self,
        gpu: &GpuContext,
        world: &World,
        tile: TileCoord,
        placements: Option<&Placements>,
        atlas: &HeightAtlas,
        prepared: Option<PreparedPatches>,
    ) -> Result<u64, PassError> {
        let mut bytes = self.remove(gpu, tile);
        if let Some(p) = placements.filter(|p| !p.is_empty()) {
            let prepared = match prepared {
                Some(prepared) => prepared,
                None => {
                    PreparedPatches::unstaged(PatchSet::build(world, p, &self.reach, self.patch)?)
                }
            };
            bytes += self.insert(gpu, tile, &prepared.set, atlas, prepared.staged.as_ref())?;
        }
        Ok(bytes)
    }

    /// What building a tile's patch set needs (model reach, patch size),
    /// for a preparer that runs on another thread.
    pub fn patch_config(&self) -> (Vec<ModelReach>, PatchSize) {
        (self.reach.clone(), self.patch)
    }

    /// What staging a tile's descriptors needs ([`PreparedPatches::staged`]):
    /// the pool units and the tile slots.
    pub fn staging_config(&self) -> (Pools, u32) {
        (self.pools, self.slot_pool.capacity())
    }

    /// Drops `tile`'s pages: its entry slots become [`pool::FREE_ENTRY`]s.
    fn remove(&mut self, gpu: &GpuContext, tile: TileCoord) -> u64 {
        let Some(old) = self.tiles.remove(&tile) else {
            return 0;
        };
        let page = self.pools.entry_page as usize;
        let page_bytes = u64::from(self.pools.entry_page) * ENTRY_BYTES;
        let longest = consecutive_runs(&old.entry_pages).map(|r| r.len()).max();
        let free = vec![pool::FREE_ENTRY; longest.unwrap_or(0) * page];
        for run in consecutive_runs(&old.entry_pages) {
            gpu.write_buffer_staged(
                "grass.entries",
                &self.entries,
                u64::from(old.entry_pages[run.start]) * page_bytes,
                bytemuck::cast_slice(&free[..run.len() * page]),
            );
        }
        self.desc_pool.release(&old.desc_pages);
        self.entry_pool.release(&old.entry_pages);
        self.slot_pool.release(&[old.slot]);
        old.entry_pages.len() as u64 * page_bytes
    }

    /// Writes `set` (tile `tile`'s, indices from 0) into free pages; with
    /// `staged` descriptors (numbered for a slot) and that slot free, the
    /// tile takes the slot and its descriptor pages are copied from the
    /// staging buffer with the next frame instead of written.
    pub(super) fn insert(
        &mut self,
        gpu: &GpuContext,
        tile: TileCoord,
        set: &PatchSet,
        atlas: &HeightAtlas,
        staged: Option<&StagedPatches>,
    ) -> Result<u64, PassError> {
        if set.patch_count() as u32 > self.pools.patch_block {
            return Err(PassError::InvalidInput {
                technique: "grass.gpu-cull",
                what: format!("tile ({}, {})", tile.x, tile.y),
                reason: format!(
                    "{} patches, more than a tile slot's {}",
                    set.patch_count(),
                    self.pools.patch_block
                ),
            });
        }
        let desc_pages = self.pools.desc_pages(set.descriptors.len());
        let entry_count = self.pools.entry_count(set);
        let entry_pages = self.pools.entry_pages(entry_count);
        self.reserve(gpu, desc_pages, entry_pages, atlas)?;
        let own = staged.filter(|s| {
            s.descriptors.len() == set.descriptors.len() as u64 * DESCRIPTOR_BYTES
                && self.slot_pool.take(s.slot)
        });
        // A tile placed without staged descriptors (a world built whole,
        // the render-thread mode) takes its own slot too where it is free,
        // so that the tiles streamed in later find theirs free.
        let slot = match own {
            Some(s) => s.slot,
            None => {
                let mine = pool::own_slot(tile, self.slot_pool.capacity());
                if staged.is_none() && self.slot_pool.take(mine) {
                    mine
                } else {
                    self.slot_pool.alloc(1).expect("reserved")[0]
                }
            }
        };
        let desc = self.desc_pool.alloc(desc_pages).expect("reserved");
        let entry = self.entry_pool.alloc(entry_pages).expect("reserved");
        let mut bytes = 0;
        let desc_page_bytes = u64::from(self.pools.desc_page) * DESCRIPTOR_BYTES;
        match own {
            Some(s) => bytes += self.copy_staged_pages(gpu, &s.descriptors, &desc),
            None => {
                let descriptors = pool::place_descriptors(set, &self.pools, slot);
                let pages = descriptors.chunks(self.pools.desc_page as usize);
                for (page, list) in desc.iter().zip(pages) {
                    let data: &[u8] = bytemuck::cast_slice(list);
                    let at = u64::from(*page) * desc_page_bytes;
                    gpu.write_buffer_staged("grass.descriptors", &self.descriptors, at, data);
                    bytes += data.len() as u64;
                }
            }
        }
        let entries = pool::place_entries(set, &self.pools, slot, &desc);
        let rows = set.patch_table(self.window_origin);
        if !rows.is_empty() {
            let data: &[u8] = bytemuck::cast_slice(&rows);
            let offset = u64::from(slot * self.pools.patch_block) * PATCH_BYTES;
            gpu.write_buffer_staged("grass.patches", &self.patches, offset, data);
            bytes += data.len() as u64;
        }
        let models = self.model_count as usize;
        let mut model_entries = vec![0u32; models];
        let mut model_descs = vec![0u32; models];
        for e in &entries {
            model_entries[e.model as usize] += 1;
            model_descs[e.model as usize] += e.count;
        }
        // The entries, the last page's tail free, in one write per run of
        // consecutive pages.
        let page = self.pools.entry_page as usize;
        let entry_page_bytes = u64::from(self.pools.entry_page) * ENTRY_BYTES;
        let mut padded = entries;
        padded.resize(entry.len() * page, pool::FREE_ENTRY);
        for run in consecutive_runs(&entry) {
            let data: &[u8] = bytemuck::cast_slice(&padded[run.start * page..run.end * page]);
            let at = u64::from(entry[run.start]) * entry_page_bytes;
            gpu.write_buffer_staged("grass.entries", &self.entries, at, data);
            bytes += data.len() as u64;
        }
        self.tiles.insert(
            tile,
            TileAlloc {
                slot,
                desc_pages: desc,
                entry_pages: entry,
                patches: set.patch_count(),
                model_entries,
                model_descs,
            },
        );
        Ok(bytes)
    }

    /// Records the copies of a tile's staged descriptors into its pages
    /// `pages` (one copy per run of consecutive pages), sent with the next
    /// frame; the bytes copied.
    fn copy_staged_pages(
        &self,
        gpu: &GpuContext,
        staged: &crate::technique::StagedBytes,
        pages: &[u32],
    ) -> u64 {
        let page_bytes = u64::from(self.pools.desc_page) * DESCRIPTOR_BYTES;
        gpu.record_copies("grass.descriptors_copy", |encoder| {
            for run in consecutive_runs(pages) {
                let from = run.start as u64 * page_bytes;
                let len = (staged.len() - from).min(run.len() as u64 * page_bytes);
                encoder.copy_buffer_to_buffer(
                    staged.buffer(),
                    from,
                    &self.descriptors,
                    u64::from(pages[run.start]) * page_bytes,
                    len,
                );
            }
        });
        staged.len()
    }

    /// Makes room for a tile of `desc_pages` descriptor pages and
    /// `entry_pages` entry pages: pools that lack it grow (their buffers
    /// copied into larger ones on the GPU, the bind groups remade).
    fn reserve(
        &mut self,
        gpu: &GpuContext,
        desc_pages: u32,
        entry_pages: u32,
        atlas: &HeightAtlas,
    ) -> Result<(), PassError> {
        let mut regrown = false;
        if !self.slot_pool.fits(1) {
            let p = &mut self.slot_pool;
            p.grow(grown(p.capacity(), p.used(), 1));
            let rows = u64::from(p.capacity() * self.pools.patch_block);
            self.patches = regrow(gpu, &self.patches, "grass.patches", rows * PATCH_BYTES);
            regrown = true;
        }
        if !self.desc_pool.fits(desc_pages) {
            let p = &mut self.desc_pool;
            p.grow(grown(p.capacity(), p.used(), desc_pages));
            let slots = u64::from(p.capacity()) * u64::from(self.pools.desc_page);
            self.descriptors = regrow(
                gpu,
                &self.descriptors,
                "grass.descriptors",
                slots * DESCRIPTOR_BYTES,
            );
            if let Compaction::Instances { visible, .. } = &mut self.compaction {
                *visible = Self::visible_buffer(gpu, slots);
            }
            regrown = true;
        }
        if !self.entry_pool.fits(entry_pages) {
            let p = &mut self.entry_pool;
            p.grow(grown(p.capacity(), p.used(), entry_pages));
            let slots = u64::from(p.capacity()) * u64::from(self.pools.entry_page);
            self.entries = regrow(gpu, &self.entries, "grass.entries", slots * ENTRY_BYTES);
            match &mut self.compaction {
                Compaction::Instances { state, .. } => {
                    *state = Self::state_buffer(gpu, self.model_count as usize, slots);
                }
                Compaction::Patches { args, .. } => {
                    *args = pool_buffer(gpu, "grass.args", slots * ARGS_BYTES, indirect_usage());
                }
            }
            regrown = true;
        }
        if regrown {
            self.check_limits(gpu)?;
            self.rebind(gpu, atlas);
        }
        Ok(())
    }

    /// Publishes the resident tiles to the cull: each model's args region
    /// and visible-list region (prefix sums of its live entries and
    /// clumps, in model order), the per-model table (one small write), the
    /// counts, and the dispatch extent. Work and bytes depend on the number
    /// of models and resident tiles, not on placements. The lagged count
    /// readback carries on: until its next result the reported counts are
    /// the previous resident world's (as lagged counts always are a few
    /// frames old), never the all-instances upper bound of a fresh build.
    /// Returns the bytes written.
    pub fn commit(&mut self, gpu: &GpuContext, models: &GrassModels) -> u64 {
        let n = self.model_count as usize;
        let mut entries = vec![0u32; n];
        let mut descs = vec![0u32; n];
        self.patch_count = 0;
        for t in self.tiles.values() {
            self.patch_count += t.patches;
            for m in 0..n {
                entries[m] += t.model_entries[m];
                descs[m] += t.model_descs[m];
            }
        }
        let prefix = |counts: &[u32]| {
            let mut next = 0u32;
            counts
                .iter()
                .map(|&c| {
                    let r = next..next + c;
                    next += c;
                    r
                })
                .collect::<Vec<_>>()
        };
        self.model_entries = prefix(&entries);
        let regions = prefix(&descs);
        self.entry_count = entries.iter().sum();
        self.entry_slots = self.entry_pool.high_water() * self.pools.entry_page;
        self.instances = descs.iter().map(|&d| u64::from(d)).sum();
        self.model_instances = descs.iter().map(|&d| u64::from(d)).collect();
        let table: Vec<CullModel> = models
            .models
            .iter()
            .zip(self.model_entries.iter().zip(&regions))
            .map(|(m, (args, visible))| CullModel {
                index_count: m.index_count,
                first_index: m.first_index,
                base_vertex: m.base_vertex,
                args_base: args.start,
                sway_height: m.height,
                radius: m.radius,
                visible_base: visible.start,
                _pad: 0,
            })
            .collect();
        if let Compaction::Instances {
            initial,
            regions: r,
            ..
        } = &mut self.compaction
        {
            *initial = instances::State::initial(&table);
            *r = regions;
        }
        let data: &[u8] = bytemuck::cast_slice(&table);
        if !data.is_empty() {
            gpu.write_buffer_staged("grass.cull_models", &self.cull_models, 0, data);
        }
        data.len() as u64
    }
}

/// A tile's patch set prepared off the render thread, with its
/// descriptors, when staged, already numbered for the tile's own slot
/// ([`pool::own_slot`]).
pub struct PreparedPatches {
    /// The patch set (entries and patch rows are placed from it).
    pub set: PatchSet,
    staged: Option<StagedPatches>,
}

/// A tile's descriptors numbered for tile slot `slot`, in a staging buffer.
pub(super) struct StagedPatches {
    slot: u32,
    descriptors: crate::technique::StagedBytes,
}

impl PreparedPatches {
    /// `set` with its descriptors staged on `device` for tile `tile`'s own
    /// slot among `slots` (pool units `pools`): placing it then copies
    /// them with the next frame when that slot is free (it is, unless the
    /// resident tiles outgrow a square of slots).
    pub fn staged(
        device: &wgpu::Device,
        tile: TileCoord,
        set: PatchSet,
        pools: &Pools,
        slots: u32,
    ) -> Self {
        let slot = pool::own_slot(tile, slots);
        let descriptors = pool::place_descriptors(&set, pools, slot);
        let descriptors = crate::technique::StagedBytes::new(
            device,
            "grass.descriptors_staging",
            bytemuck::cast_slice(&descriptors),
        );
        Self {
            set,
            staged: Some(StagedPatches { slot, descriptors }),
        }
    }

    /// `set` alone: its descriptors are written when it is placed.
    pub fn unstaged(set: PatchSet) -> Self {
        Self { set, staged: None }
    }
}
