//! Late, non-blocking readback of small GPU buffers (counts written by
//! culling passes) into the CPU: [`LaggedReadback`]. A frame records a copy
//! of the buffer into a free slot of a small ring of mappable buffers; a later
//! frame maps the slot, and a frame after that reads it. Nothing ever waits
//! on the GPU: a slot is only read once its map callback has fired (the device
//! is polled by whoever waits for frames, e.g. the bench or the viewer). The
//! figures are therefore those of a frame a few frames back. Every technique
//! that reads counts back uses this one type, and records the copy with
//! [`add_copy_pass`].

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use crate::graph::{BufferId, RenderGraph};

/// Slots in the ring.
const SLOTS: usize = 4;

const FREE: u8 = 0;
const COPIED: u8 = 1;
const MAPPING: u8 = 2;
const READY: u8 = 3;

struct Slot {
    buffer: wgpu::Buffer,
    state: Arc<AtomicU8>,
    /// Frame whose commands hold the copy into this slot.
    copied_in: u64,
}

/// Adds the transfer pass `name` that copies the graph buffer `counts` into
/// a free slot of `readback` in frame `frame` ([`LaggedReadback::copy`]; a
/// poisoned lock skips the copy, as a full ring does).
pub fn add_copy_pass<'a>(
    graph: &mut RenderGraph<'a>,
    name: &str,
    readback: &'a Mutex<LaggedReadback>,
    counts: BufferId,
    frame: u64,
) {
    graph
        .add_transfer_pass(name)
        .read(counts)
        .record(move |ctx| {
            if let Ok(mut readback) = readback.lock() {
                readback.copy(ctx.encoder, ctx.res.buffer(counts), frame);
            }
        });
}

/// The ring of readback buffers and the latest words read.
pub struct LaggedReadback {
    slots: Vec<Slot>,
    /// The newest words read and the frame that copied them.
    latest: Option<(u64, Vec<u32>)>,
    size: u64,
}

impl LaggedReadback {
    /// A ring for a buffer of `size` bytes (a multiple of 4: read as `u32`s);
    /// `label` names the ring's buffers.
    pub fn new(device: &wgpu::Device, label: &str, size: u64) -> Self {
        let slots = (0..SLOTS)
            .map(|_| Slot {
                buffer: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
                state: Arc::new(AtomicU8::new(FREE)),
                copied_in: 0,
            })
            .collect();
        LaggedReadback {
            slots,
            latest: None,
            size,
        }
    }

    /// Reads slots whose map completed, and starts mapping slots whose copy
    /// was recorded by a frame before `frame` (so it has been submitted).
    pub fn poll(&mut self, frame: u64) {
        for slot in &self.slots {
            match slot.state.load(Ordering::Acquire) {
                READY => {
                    // Slots may complete out of order: keep the newest copy.
                    if self
                        .latest
                        .as_ref()
                        .is_none_or(|(f, _)| *f < slot.copied_in)
                    {
                        let view = slot.buffer.slice(..).get_mapped_range();
                        self.latest = Some((slot.copied_in, bytemuck::pod_collect_to_vec(&view)));
                    }
                    slot.buffer.unmap();
                    slot.state.store(FREE, Ordering::Release);
                }
                COPIED if slot.copied_in < frame => {
                    slot.state.store(MAPPING, Ordering::Release);
                    let state = slot.state.clone();
                    slot.buffer
                        .slice(..)
                        .map_async(wgpu::MapMode::Read, move |r| {
                            state.store(if r.is_ok() { READY } else { FREE }, Ordering::Release);
                        });
                }
                _ => {}
            }
        }
    }

    /// Records, in frame `frame`, a copy of `counts` into a free slot, if
    /// any (else these counts are simply not read back).
    pub fn copy(&mut self, encoder: &mut wgpu::CommandEncoder, counts: &wgpu::Buffer, frame: u64) {
        let size = self.size;
        if let Some(slot) = self
            .slots
            .iter_mut()
            .find(|s| s.state.load(Ordering::Acquire) == FREE)
        {
            encoder.copy_buffer_to_buffer(counts, 0, &slot.buffer, 0, size);
            slot.copied_in = frame;
            slot.state.store(COPIED, Ordering::Release);
        }
    }

    /// Whether a copy recorded now would find a free slot.
    pub fn has_free_slot(&self) -> bool {
        self.slots
            .iter()
            .any(|s| s.state.load(Ordering::Acquire) == FREE)
    }

    /// The most recent counts read back, if any arrived yet.
    pub fn latest(&self) -> Option<&[u32]> {
        self.latest.as_ref().map(|(_, w)| w.as_slice())
    }

    /// The frame (as given to [`Self::copy`]) whose counts [`Self::latest`] holds.
    pub fn latest_frame(&self) -> Option<u64> {
        self.latest.as_ref().map(|(f, _)| *f)
    }

    /// GPU memory of the ring.
    pub fn bytes(&self) -> u64 {
        self.size * SLOTS as u64
    }
}
