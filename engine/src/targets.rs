//! Offscreen render targets (sRGB colour with optional 4x MSAA and resolve,
//! reverse-Z depth), texture readback into `image::RgbaImage` and PNG writing.
//!
//! Depth convention for the whole engine: REVERSE-Z. Clear to [`DEPTH_CLEAR`]
//! (0.0 = infinitely far) and test with [`DEPTH_COMPARE`] (`Greater`).

use std::path::Path;

/// Colour format of offscreen targets.
pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// Depth format of offscreen targets.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Depth clear value under reverse-Z (far plane).
pub const DEPTH_CLEAR: f32 = 0.0;
/// Depth comparison under reverse-Z (nearer is greater).
pub const DEPTH_COMPARE: wgpu::CompareFunction = wgpu::CompareFunction::Greater;

/// Errors of targets and readback.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    /// A size with a zero side or beyond the device limit.
    #[error("target size {width}x{height} is invalid (each side must be 1..={max})")]
    BadSize {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
        /// Device limit.
        max: u32,
    },
    /// A size that is not `WIDTHxHEIGHT`.
    #[error("size `{0}` is not WIDTHxHEIGHT (e.g. 1280x720)")]
    BadSizeSyntax(String),
    /// MSAA other than 1 or 4.
    #[error("MSAA sample count {0} is not supported (use 1 or 4)")]
    BadSampleCount(u32),
    /// A texture format readback does not handle.
    #[error("readback of {0:?} is not supported (only 4-byte RGBA8 formats)")]
    UnsupportedFormat(wgpu::TextureFormat),
    /// Mapping the readback buffer failed.
    #[error("mapping the readback buffer failed: {0}")]
    Map(String),
    /// Writing the PNG failed.
    #[error("writing {path}: {source}")]
    Png {
        /// Output path.
        path: String,
        /// Reason.
        source: image::ImageError,
    },
}

/// An offscreen colour + depth target. With `samples == 4` rendering goes to
/// the multisampled `msaa_color` and resolves into `color`; with 1 it goes to
/// `color` directly. Depth always has `samples` samples.
pub struct OffscreenTarget {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// MSAA sample count (1 or 4).
    pub samples: u32,
    /// Single-sample colour (the resolve target under MSAA); readable back.
    pub color: wgpu::Texture,
    /// Multisampled colour when `samples > 1`.
    pub msaa_color: Option<wgpu::Texture>,
    /// Depth buffer (`DEPTH_FORMAT`, `samples` samples).
    pub depth: wgpu::Texture,
}

impl OffscreenTarget {
    /// Creates a target of `width` x `height` with `samples` (1 or 4) samples.
    pub fn new(
        device: &wgpu::Device,
        width: u32,
        height: u32,
        samples: u32,
    ) -> Result<Self, TargetError> {
        let max = device.limits().max_texture_dimension_2d;
        if width == 0 || height == 0 || width > max || height > max {
            return Err(TargetError::BadSize { width, height, max });
        }
        if samples != 1 && samples != 4 {
            return Err(TargetError::BadSampleCount(samples));
        }
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let tex = |label: &str, format, sample_count, usage| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let color = tex(
            "target.color",
            COLOR_FORMAT,
            1,
            wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::TEXTURE_BINDING,
        );
        let msaa_color = (samples > 1).then(|| {
            tex(
                "target.color_msaa",
                COLOR_FORMAT,
                samples,
                wgpu::TextureUsages::RENDER_ATTACHMENT,
            )
        });
        let depth = tex(
            "target.depth",
            DEPTH_FORMAT,
            samples,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
        );
        Ok(OffscreenTarget {
            width,
            height,
            samples,
            color,
            msaa_color,
            depth,
        })
    }

    /// The texture rendering writes to: the MSAA colour if any, else `color`.
    pub fn render_color(&self) -> &wgpu::Texture {
        self.msaa_color.as_ref().unwrap_or(&self.color)
    }

    /// The resolve target for colour attachments (`Some(color)` under MSAA).
    pub fn resolve_color(&self) -> Option<&wgpu::Texture> {
        self.msaa_color.as_ref().map(|_| &self.color)
    }

    /// Reads the single-sample colour back into an image (blocks).
    pub fn read_color(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<image::RgbaImage, TargetError> {
        read_texture_rgba8(device, queue, &self.color)
    }
}

/// Parses `WIDTHxHEIGHT` (e.g. `1280x720`); both sides must be positive.
pub fn parse_size(s: &str) -> Result<(u32, u32), TargetError> {
    let bad = || TargetError::BadSizeSyntax(s.to_owned());
    let (w, h) = s.trim().split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    if w == 0 || h == 0 {
        return Err(bad());
    }
    Ok((w, h))
}

/// Bytes per row of a readback copy: `unpadded` rounded up to 256.
pub fn padded_bytes_per_row(unpadded: u32) -> u32 {
    let align = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    unpadded.div_ceil(align) * align
}

/// Reads mip 0 of a single-sample RGBA8 (or BGRA8, swizzled) texture into an image. Blocks.
pub fn read_texture_rgba8(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
) -> Result<image::RgbaImage, TargetError> {
    let format = texture.format();
    let bgra = match format {
        wgpu::TextureFormat::Rgba8Unorm | wgpu::TextureFormat::Rgba8UnormSrgb => false,
        wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb => true,
        other => return Err(TargetError::UnsupportedFormat(other)),
    };
    let (width, height) = (texture.width(), texture.height());
    let row = width * 4;
    let padded = padded_bytes_per_row(row);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("target.readback"),
        size: u64::from(padded) * u64::from(height),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("target.readback"),
    });
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded),
                rows_per_image: Some(height),
            },
        },
        texture.size(),
    );
    queue.submit([encoder.finish()]);
    let bytes = map_read(device, &buffer)?;
    let mut pixels = Vec::with_capacity((row * height) as usize);
    for y in 0..height as usize {
        let start = y * padded as usize;
        pixels.extend_from_slice(&bytes[start..start + row as usize]);
    }
    if bgra {
        for px in pixels.chunks_exact_mut(4) {
            px.swap(0, 2);
        }
    }
    image::RgbaImage::from_raw(width, height, pixels)
        .ok_or_else(|| TargetError::Map("pixel count does not match the image size".into()))
}

/// Maps a `MAP_READ` buffer, waits, and returns a copy of its contents.
pub fn map_read(device: &wgpu::Device, buffer: &wgpu::Buffer) -> Result<Vec<u8>, TargetError> {
    let slice = buffer.slice(..);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| TargetError::Map(e.to_string()))?;
    rx.recv()
        .map_err(|e| TargetError::Map(e.to_string()))?
        .map_err(|e| TargetError::Map(e.to_string()))?;
    let data = slice.get_mapped_range().to_vec();
    buffer.unmap();
    Ok(data)
}

/// Copies `size` bytes at the start of `src` (needs `COPY_SRC`) into a fresh
/// buffer and reads them back. Blocks.
pub fn read_buffer(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    src: &wgpu::Buffer,
    size: u64,
) -> Result<Vec<u8>, TargetError> {
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback.buffer"),
        size,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("readback.buffer"),
    });
    encoder.copy_buffer_to_buffer(src, 0, &staging, 0, size);
    queue.submit([encoder.finish()]);
    map_read(device, &staging)
}

/// Writes an image as PNG, creating parent directories.
pub fn write_png(image: &image::RgbaImage, path: &Path) -> Result<(), TargetError> {
    let err = |source| TargetError::Png {
        path: path.display().to_string(),
        source,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| err(image::ImageError::IoError(e)))?;
    }
    image
        .save_with_format(path, image::ImageFormat::Png)
        .map_err(err)
}

/// The difference of two RGBA8 images given as raw bytes: the RMSE over the
/// R, G and B channels (in 0..255 levels) and the fraction of pixels where some
/// R/G/B channel differs by more than `threshold` levels. `None` when the
/// lengths differ or the images are empty. The one image difference of sward:
/// the bench report and the technique tests all use it.
pub fn rgb_difference(a: &[u8], b: &[u8], threshold: u8) -> Option<(f64, f64)> {
    if a.len() != b.len() || a.len() < 4 {
        return None;
    }
    let (mut sum_sq, mut differing) = (0u64, 0u64);
    for (pa, pb) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        let mut worst = 0u8;
        for c in 0..3 {
            let d = pa[c].abs_diff(pb[c]);
            worst = worst.max(d);
            sum_sq += u64::from(d) * u64::from(d);
        }
        differing += u64::from(worst > threshold);
    }
    let pixels = (a.len() / 4) as f64;
    Some((
        (sum_sq as f64 / (3.0 * pixels)).sqrt(),
        differing as f64 / pixels,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("1280x720").unwrap(), (1280, 720));
        assert_eq!(parse_size(" 64X32 ").unwrap(), (64, 32));
        for bad in ["1280", "0x5", "ax5", "5x", "-1x4"] {
            assert!(
                matches!(parse_size(bad), Err(TargetError::BadSizeSyntax(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn rows_pad_to_256() {
        assert_eq!(padded_bytes_per_row(4), 256);
        assert_eq!(padded_bytes_per_row(256), 256);
        assert_eq!(padded_bytes_per_row(257), 512);
        assert_eq!(padded_bytes_per_row(1280 * 4), 5120);
    }
}
