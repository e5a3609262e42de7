//! Pool of transient graph resources, reused across frames.
//!
//! Keyed by (name, descriptor): a graph that declares the same transients every
//! frame gets the same textures and buffers back, with stable debug labels.
//! Entries unused for [`ResourcePool::EVICT_AFTER`] frames are dropped.

use std::collections::HashMap;

use super::{BufferDesc, TextureDesc};

struct Entry<T> {
    item: T,
    last_used: u64,
}

type TextureKey = (String, TextureDesc);
type BufferKey = (String, BufferDesc);
type PooledTexture = (wgpu::Texture, wgpu::TextureView);

/// Transient textures and buffers kept between frames.
#[derive(Default)]
pub struct ResourcePool {
    textures: HashMap<TextureKey, Vec<Entry<PooledTexture>>>,
    buffers: HashMap<BufferKey, Vec<Entry<wgpu::Buffer>>>,
    taken_textures: Vec<(TextureKey, PooledTexture)>,
    taken_buffers: Vec<(BufferKey, wgpu::Buffer)>,
    created: u64,
    frame: u64,
}

impl ResourcePool {
    /// Frames an unused pooled resource survives.
    pub const EVICT_AFTER: u64 = 8;

    /// How many resources the pool has created in total (tests use it to see reuse).
    pub fn created(&self) -> u64 {
        self.created
    }

    /// Number of resources currently held (free between frames).
    pub fn len(&self) -> usize {
        self.textures.values().map(Vec::len).sum::<usize>()
            + self.buffers.values().map(Vec::len).sum::<usize>()
    }

    /// Whether the pool holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Takes a texture matching `name`/`desc`, creating it if none is free.
    pub fn take_texture(
        &mut self,
        device: &wgpu::Device,
        name: &str,
        desc: TextureDesc,
    ) -> (wgpu::Texture, wgpu::TextureView) {
        let key = (name.to_owned(), desc);
        let item = match self.textures.get_mut(&key).and_then(Vec::pop) {
            Some(e) => e.item,
            None => {
                self.created += 1;
                let texture = device.create_texture(&wgpu::TextureDescriptor {
                    label: Some(name),
                    size: wgpu::Extent3d {
                        width: desc.size[0],
                        height: desc.size[1],
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: desc.mip_level_count,
                    sample_count: desc.sample_count,
                    dimension: wgpu::TextureDimension::D2,
                    format: desc.format,
                    usage: desc.usage,
                    view_formats: &[],
                });
                let view = texture.create_view(&wgpu::TextureViewDescriptor {
                    label: Some(name),
                    ..Default::default()
                });
                (texture, view)
            }
        };
        self.taken_textures.push((key, item.clone()));
        item
    }

    /// Takes a buffer matching `name`/`desc`, creating it if none is free.
    pub fn take_buffer(
        &mut self,
        device: &wgpu::Device,
        name: &str,
        desc: BufferDesc,
    ) -> wgpu::Buffer {
        let key = (name.to_owned(), desc);
        let buffer = match self.buffers.get_mut(&key).and_then(Vec::pop) {
            Some(e) => e.item,
            None => {
                self.created += 1;
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(name),
                    size: desc.size,
                    usage: desc.usage,
                    mapped_at_creation: false,
                })
            }
        };
        self.taken_buffers.push((key, buffer.clone()));
        buffer
    }

    /// Returns everything taken this frame and evicts stale entries.
    pub fn end_frame(&mut self) {
        let frame = self.frame;
        for (key, item) in self.taken_textures.drain(..) {
            self.textures.entry(key).or_default().push(Entry {
                item,
                last_used: frame,
            });
        }
        for (key, item) in self.taken_buffers.drain(..) {
            self.buffers.entry(key).or_default().push(Entry {
                item,
                last_used: frame,
            });
        }
        let keep = |last: u64| frame.saturating_sub(last) < Self::EVICT_AFTER;
        self.textures.retain(|_, v| {
            v.retain(|e| keep(e.last_used));
            !v.is_empty()
        });
        self.buffers.retain(|_, v| {
            v.retain(|e| keep(e.last_used));
            !v.is_empty()
        });
        self.frame += 1;
    }
}
