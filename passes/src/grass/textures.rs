//! Detail textures on the GPU: RGBA8 textures upload as `Rgba8UnormSrgb`;
//! textures stored as BC blocks (DXT1/3/5 BLPs) upload as
//! `Bc1RgbaUnormSrgb`/`Bc2RgbaUnormSrgb`/`Bc3RgbaUnormSrgb` (sRGB like the
//! RGBA8 path, so both sample the same colours) when the device has
//! [`Capability::TextureCompressionBc`], and are decoded to RGBA8 on the CPU
//! otherwise. Which way each texture went is recorded ([`UploadedAs`],
//! [`TextureUploadStats`]) and logged, never chosen silently;
//! [`TextureUpload::ForceDecode`] forces the CPU path.

use sward_engine::{Capability, GpuContext};
use sward_scenes::{BcFormat, BcMips, DetailTexture, TexturePixels};

/// How textures stored as BC blocks reach the GPU: one of the command
/// line's data options ([`sward_scenes::formats::DataOptions`]).
pub use sward_scenes::formats::TextureUpload;

/// Why a texture stored as BC blocks was decoded on the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecodeReason {
    /// [`TextureUpload::ForceDecode`] was asked for.
    Forced,
    /// The device lacks `texture-compression-bc`.
    NoBcSupport,
    /// Level 0 is not a whole number of 4x4 blocks (a side below 4), which
    /// a BC texture must be.
    NotBlockAligned,
    /// A DXT1 texture without alpha uses the three-colour blocks' index 3,
    /// opaque black in the file but transparent on a `Bc1Rgba*` texture.
    OpaqueBc1Transparency,
}

impl DecodeReason {
    /// A readable reason.
    pub fn text(self) -> &'static str {
        match self {
            DecodeReason::Forced => "CPU decoding was asked for",
            DecodeReason::NoBcSupport => "the device lacks texture-compression-bc",
            DecodeReason::NotBlockAligned => "a side is below one 4x4 block",
            DecodeReason::OpaqueBc1Transparency => {
                "DXT1 without alpha uses the transparent index a BC1 texture would show"
            }
        }
    }
}

/// What one detail texture went to the GPU as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UploadedAs {
    /// Stored and uploaded as RGBA8.
    Rgba8,
    /// BC blocks uploaded as a BC texture.
    Bc(BcFormat),
    /// BC blocks decoded to RGBA8 on the CPU, and why.
    Decoded(BcFormat, DecodeReason),
}

/// How many detail textures went each way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TextureUploadStats {
    /// Uploaded as BC blocks.
    pub bc: u32,
    /// Stored as BC blocks but decoded to RGBA8 on the CPU.
    pub decoded: u32,
    /// Stored as RGBA8 (procedural textures, BGRA and palettized BLPs,
    /// DXT BLPs with missing mip levels).
    pub rgba: u32,
}

impl TextureUploadStats {
    /// Counts `way`.
    pub fn add(&mut self, way: UploadedAs) {
        match way {
            UploadedAs::Rgba8 => self.rgba += 1,
            UploadedAs::Bc(_) => self.bc += 1,
            UploadedAs::Decoded(..) => self.decoded += 1,
        }
    }
}

/// The GPU format a BC block format samples as (sRGB, like the RGBA8 path).
pub fn bc_texture_format(format: BcFormat) -> wgpu::TextureFormat {
    match format {
        BcFormat::Bc1 | BcFormat::Bc1Opaque => wgpu::TextureFormat::Bc1RgbaUnormSrgb,
        BcFormat::Bc2 => wgpu::TextureFormat::Bc2RgbaUnormSrgb,
        BcFormat::Bc3 => wgpu::TextureFormat::Bc3RgbaUnormSrgb,
    }
}

/// Which way `t` goes to a device with `gpu`'s features under `mode`.
pub fn choose(gpu: &GpuContext, t: &DetailTexture, mode: TextureUpload) -> UploadedAs {
    let TexturePixels::Bc(bc) = &t.pixels else {
        return UploadedAs::Rgba8;
    };
    let device_bc = gpu.caps.has(Capability::TextureCompressionBc)
        && gpu
            .device
            .features()
            .contains(wgpu::Features::TEXTURE_COMPRESSION_BC);
    let reason = if mode == TextureUpload::ForceDecode {
        DecodeReason::Forced
    } else if !device_bc {
        DecodeReason::NoBcSupport
    } else if t.width % 4 != 0 || t.height % 4 != 0 {
        DecodeReason::NotBlockAligned
    } else if !bc.gpu_samples_exactly() {
        DecodeReason::OpaqueBc1Transparency
    } else {
        return UploadedAs::Bc(bc.format);
    };
    UploadedAs::Decoded(bc.format, reason)
}

/// Creates `t`'s texture the way [`choose`] says and writes every mip level;
/// returns the texture, the way it went and its bytes on the GPU.
pub fn upload(
    gpu: &GpuContext,
    label: &str,
    t: &DetailTexture,
    mode: TextureUpload,
) -> Result<(wgpu::Texture, UploadedAs, u64), String> {
    let way = choose(gpu, t, mode);
    let (texture, bytes) = match (&t.pixels, way) {
        (TexturePixels::Bc(bc), UploadedAs::Bc(_)) => upload_bc(gpu, label, t, bc),
        (TexturePixels::Rgba8(mips), _) => upload_rgba(gpu, label, t, mips),
        (TexturePixels::Bc(_), _) => upload_rgba(gpu, label, t, &t.decode_rgba()?),
    };
    Ok((texture, way, bytes))
}

fn create(
    gpu: &GpuContext,
    label: &str,
    t: &DetailTexture,
    format: wgpu::TextureFormat,
) -> wgpu::Texture {
    gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: t.width,
            height: t.height,
            depth_or_array_layers: 1,
        },
        mip_level_count: t.mip_count() as u32,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    })
}

fn upload_rgba(
    gpu: &GpuContext,
    label: &str,
    t: &DetailTexture,
    mips: &[Vec<u8>],
) -> (wgpu::Texture, u64) {
    let texture = create(gpu, label, t, wgpu::TextureFormat::Rgba8UnormSrgb);
    for (level, data) in mips.iter().enumerate() {
        let (w, h) = t.mip_size(level as u32);
        write_level(gpu, &texture, level as u32, data, w * 4, h, [w, h]);
    }
    (texture, mips.iter().map(|l| l.len() as u64).sum())
}

/// Every level, down to 1x1, is written as whole 4x4 blocks: the copy covers
/// the level's physical size (its size rounded up to the block), which is
/// what wgpu requires of block-compressed copies.
fn upload_bc(
    gpu: &GpuContext,
    label: &str,
    t: &DetailTexture,
    bc: &BcMips,
) -> (wgpu::Texture, u64) {
    let texture = create(gpu, label, t, bc_texture_format(bc.format));
    let block = bc.format.block_bytes() as u32;
    for (level, data) in bc.mips.iter().enumerate() {
        let (w, h) = t.mip_size(level as u32);
        let (bw, bh) = (w.div_ceil(4), h.div_ceil(4));
        write_level(
            gpu,
            &texture,
            level as u32,
            data,
            bw * block,
            bh,
            [bw * 4, bh * 4],
        );
    }
    (texture, bc.mips.iter().map(|l| l.len() as u64).sum())
}

fn write_level(
    gpu: &GpuContext,
    texture: &wgpu::Texture,
    level: u32,
    data: &[u8],
    bytes_per_row: u32,
    rows: u32,
    [width, height]: [u32; 2],
) {
    gpu.queue.write_texture(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: level,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
        data,
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(bytes_per_row),
            rows_per_image: Some(rows),
        },
        wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
    );
}
