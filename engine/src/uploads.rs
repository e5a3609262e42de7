//! Work recorded between frames and sent with the next submission
//! ([`PendingUploads`]): copies from data staged elsewhere (a tile worker's
//! host-visible buffer) and small writes into live buffers and textures
//! through a staging belt.
//!
//! A `queue.write_buffer` / `write_texture` makes wgpu create a staging
//! buffer of its own (on Vulkan a buffer, a memory allocation, a bind and a
//! map) and destroy it once the GPU is done. A residency change makes a
//! dozen such writes per technique, so on the render thread the belt
//! ([`wgpu::util::StagingBelt`]) does them instead: writes are sub-allocated
//! from a few reused host-visible chunks and copied by commands recorded into
//! the one pending encoder, in recording order with the other pending copies.

use std::num::NonZeroU64;

/// Bytes per staging chunk: larger than a tile's usual writes (records,
/// index blocks, entry pages), so a residency change fills one chunk.
const CHUNK_BYTES: u64 = 256 * 1024;

/// What the next submission sends ahead of its own commands.
pub(crate) struct PendingUploads {
    encoder: Option<wgpu::CommandEncoder>,
    belt: wgpu::util::StagingBelt,
}

impl Default for PendingUploads {
    fn default() -> Self {
        Self {
            encoder: None,
            belt: wgpu::util::StagingBelt::new(CHUNK_BYTES),
        }
    }
}

/// The pending encoder in `slot` (opened on first use after a submission).
fn open<'e>(
    slot: &'e mut Option<wgpu::CommandEncoder>,
    device: &wgpu::Device,
) -> &'e mut wgpu::CommandEncoder {
    slot.get_or_insert_with(|| {
        device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("copies"),
        })
    })
}

impl PendingUploads {
    /// Records `record`'s commands into the pending encoder, in a debug
    /// group named `label`.
    pub(crate) fn record(
        &mut self,
        device: &wgpu::Device,
        label: &str,
        record: impl FnOnce(&mut wgpu::CommandEncoder),
    ) {
        let encoder = open(&mut self.encoder, device);
        encoder.push_debug_group(label);
        record(encoder);
        encoder.pop_debug_group();
    }

    /// Records a write of `data` into `target` at `offset` through the belt.
    /// `offset` and `data.len()` must be multiples of 4 (wgpu's copy
    /// alignment); empty data writes nothing.
    pub(crate) fn write_buffer(
        &mut self,
        device: &wgpu::Device,
        label: &str,
        target: &wgpu::Buffer,
        offset: u64,
        data: &[u8],
    ) {
        let Some(size) = NonZeroU64::new(data.len() as u64) else {
            return;
        };
        debug_assert!(offset % wgpu::COPY_BUFFER_ALIGNMENT == 0);
        debug_assert!(size.get() % wgpu::COPY_BUFFER_ALIGNMENT == 0);
        let encoder = open(&mut self.encoder, device);
        encoder.push_debug_group(label);
        self.belt
            .write_buffer(encoder, target, offset, size, device)
            .copy_from_slice(data);
        encoder.pop_debug_group();
    }

    /// Records a write of `data` (rows of `row_bytes`, `rows` of them, one
    /// layer) into `destination` through the belt, the rows laid out at
    /// wgpu's copy pitch.
    pub(crate) fn write_texture(
        &mut self,
        device: &wgpu::Device,
        label: &str,
        destination: wgpu::TexelCopyTextureInfo<'_>,
        data: &[u8],
        row_bytes: u32,
        size: wgpu::Extent3d,
    ) {
        let rows = size.height * size.depth_or_array_layers;
        let pitch = row_bytes.next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let Some(bytes) = NonZeroU64::new(u64::from(pitch) * u64::from(rows)) else {
            return;
        };
        debug_assert!(data.len() as u64 >= u64::from(row_bytes) * u64::from(rows));
        let encoder = open(&mut self.encoder, device);
        encoder.push_debug_group(label);
        // Texel-block and map alignment: a pitch-aligned offset serves both.
        let align = NonZeroU64::new(u64::from(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)).expect("256");
        let slice = self.belt.allocate(bytes, align, device);
        {
            let mut view = slice.get_mapped_range_mut();
            let (w, p) = (row_bytes as usize, pitch as usize);
            for (r, row) in data.chunks_exact(w).take(rows as usize).enumerate() {
                view[r * p..r * p + w].copy_from_slice(row);
            }
        }
        let buffer = slice.buffer();
        let offset = slice.offset();
        encoder.copy_buffer_to_texture(
            wgpu::TexelCopyBufferInfo {
                buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset,
                    bytes_per_row: Some(pitch),
                    rows_per_image: Some(size.height),
                },
            },
            destination,
            size,
        );
        encoder.pop_debug_group();
    }

    /// The pending commands, finished, for the next submission; the belt's
    /// chunks are closed for it (call [`Self::after_submit`] once it is
    /// submitted).
    pub(crate) fn take(&mut self) -> Option<wgpu::CommandBuffer> {
        self.belt.finish();
        self.encoder.take().map(wgpu::CommandEncoder::finish)
    }

    /// After the submission that carried [`Self::take`]'s commands: the
    /// belt's chunks come back for reuse once the GPU is done with them.
    pub(crate) fn after_submit(&mut self) {
        self.belt.recall();
    }
}
