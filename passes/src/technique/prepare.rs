//! Per-tile preparation off the render thread.
//!
//! A streamed tile costs each technique two kinds of work: deriving its data
//! from the tile (meshes, height and normal tiles, patch sets, GPU-ready byte
//! blocks, buffers created with their contents), which depends on the tile
//! alone, and placing that data in the technique's live resources (slots,
//! pools, index texels, culling groups), which depends on what is resident.
//! A technique that splits the two offers a [`TilePreparer`] for the first:
//! the streamer's worker threads run it as soon as a tile is loaded, and the
//! render thread's [`crate::technique::Technique::residency_changed`] only
//! places the finished result ([`PreparedTiles::take`]). A tile that arrives
//! without a result (a synchronous slide, a preparer set after the tile was
//! loaded) is prepared by the same function on the render thread, so both
//! paths produce identical resources; the count of each is reported.

use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

use sward_scenes::world::{AdtTile, TileCoord};
use sward_scenes::Placements;

use crate::error::PassError;

/// What a [`TilePreparer`] gets, on a worker thread.
#[derive(Clone, Copy)]
pub struct PrepareInputs<'a> {
    /// The device, for buffers created with their data off the render
    /// thread (`wgpu::Device` may be used from any thread).
    pub device: &'a wgpu::Device,
    /// The tile's coordinate.
    pub coord: TileCoord,
    /// The tile (shared: a preparer that needs a [`sward_scenes::World`]
    /// can hold it in a one-tile world without copying it).
    pub tile: &'a Arc<AdtTile>,
    /// Its placements.
    pub placements: &'a Placements,
}

/// A technique's per-tile preparation: a function of the tile alone and of
/// the technique's configuration (never of what is resident), so it can run
/// on any thread, before the tile is applied.
pub trait TilePreparer: Send + Sync {
    /// Prepares one tile. The result is handed back, unchanged, to the
    /// technique that made this preparer.
    fn prepare(&self, inputs: &PrepareInputs<'_>) -> Result<Box<dyn Any + Send>, PassError>;
}

/// One technique's prepared tiles for one residency change.
#[derive(Default)]
pub struct PreparedTiles {
    tiles: HashMap<TileCoord, Result<Box<dyn Any + Send>, PassError>>,
    taken: u32,
    missed: u32,
    garbage: Vec<Box<dyn Any + Send>>,
}

impl std::fmt::Debug for PreparedTiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedTiles")
            .field("tiles", &self.tiles.keys().collect::<Vec<_>>())
            .field("taken", &self.taken)
            .field("missed", &self.missed)
            .finish()
    }
}

impl PreparedTiles {
    /// No prepared tiles (every tile is prepared where it is applied).
    pub fn none() -> Self {
        Self::default()
    }

    /// Adds `tile`'s result.
    pub fn insert(&mut self, tile: TileCoord, result: Result<Box<dyn Any + Send>, PassError>) {
        self.tiles.insert(tile, result);
    }

    /// Takes `tile`'s prepared result if there is one of type `T`; a
    /// preparation that failed on the worker is returned as its error (the
    /// tile's data is bad whichever thread looks at it). `Ok(None)` means
    /// the caller prepares the tile itself (counted in [`Self::missed`]).
    pub fn take<T: Any>(&mut self, tile: TileCoord) -> Result<Option<T>, PassError> {
        match self.tiles.remove(&tile) {
            Some(Ok(value)) => match value.downcast::<T>() {
                Ok(v) => {
                    self.taken += 1;
                    Ok(Some(*v))
                }
                Err(_) => {
                    self.missed += 1;
                    Ok(None)
                }
            },
            Some(Err(e)) => Err(e),
            None => {
                self.missed += 1;
                Ok(None)
            }
        }
    }

    /// [`Self::take`] for a tile `world` holds; nothing (and no miss) for
    /// an evicted one.
    pub fn take_resident<T: Any>(
        &mut self,
        world: &sward_scenes::World,
        tile: TileCoord,
    ) -> Result<Option<T>, PassError> {
        if world.tile(tile).is_some() {
            self.take(tile)
        } else {
            Ok(None)
        }
    }

    /// Hands what an evicted or replaced tile held (its GPU buffers, CPU
    /// copies) to the composer, which frees it off the render thread:
    /// releasing a tile's buffers unmaps megabytes, milliseconds a frame
    /// should not pay.
    pub fn discard<T: Any + Send>(&mut self, value: T) {
        self.garbage.push(Box::new(value));
    }

    /// What [`Self::discard`] collected.
    pub fn take_garbage(&mut self) -> Vec<Box<dyn Any + Send>> {
        std::mem::take(&mut self.garbage)
    }

    /// Tiles whose prepared result was used.
    pub fn taken(&self) -> u32 {
        self.taken
    }

    /// Tiles the technique asked for and had to prepare itself.
    pub fn missed(&self) -> u32 {
        self.missed
    }
}

/// Bytes written into a host-visible buffer (`MAP_WRITE | COPY_SRC`,
/// mapped at creation) on a worker thread, for the render thread to copy
/// into a live resource with one recorded copy instead of a queue write:
/// the megabytes a queue write would copy into wgpu's staging memory on
/// the render thread are copied on the worker instead.
#[derive(Debug)]
pub struct StagedBytes {
    buffer: wgpu::Buffer,
    len: u64,
}

impl StagedBytes {
    /// Stages `bytes` (padded to the copy alignment).
    pub fn new(device: &wgpu::Device, label: &str, bytes: &[u8]) -> Self {
        let len = bytes.len() as u64;
        let size = len
            .next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT)
            .max(wgpu::COPY_BUFFER_ALIGNMENT);
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: true,
        });
        buffer.slice(..).get_mapped_range_mut()[..bytes.len()].copy_from_slice(bytes);
        buffer.unmap();
        Self { buffer, len }
    }

    /// The staging buffer (copy source).
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// Bytes staged (without the padding).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether nothing was staged.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A shareable preparer.
pub type SharedPreparer = Arc<dyn TilePreparer>;

/// A [`TilePreparer`] from a function of the inputs returning `T`.
pub struct FnPreparer<F>(pub F);

impl<F, T> TilePreparer for FnPreparer<F>
where
    F: Fn(&PrepareInputs<'_>) -> Result<T, PassError> + Send + Sync,
    T: Any + Send,
{
    fn prepare(&self, inputs: &PrepareInputs<'_>) -> Result<Box<dyn Any + Send>, PassError> {
        (self.0)(inputs).map(|v| Box::new(v) as Box<dyn Any + Send>)
    }
}
