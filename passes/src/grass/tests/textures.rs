//! Detail textures stored as BC blocks (DXT1/DXT3/DXT5 BLPs): uploaded as
//! BC textures where the device has `texture-compression-bc`, decoded to
//! RGBA8 on the CPU otherwise or when asked; both ways a shader reads back
//! the texels the CPU decoder gives, on every mip level (down to 1x1, which
//! is still one 4x4 block).

use sward_engine::gpu_or_skip;
use sward_engine::{Capability, Caps, GpuContext};
use sward_scenes::formats::blp;
use sward_scenes::models::elwynn_models;
use sward_scenes::{BcFormat, BcMips, DetailModel, DetailTexture, TexturePixels};

use crate::grass::textures::{DecodeReason, TextureUpload, UploadedAs};
use crate::grass::GrassModels;

/// Level-0 side of the test textures: levels 8x8 (4 blocks), 4x4, 2x2 and
/// 1x1 (one block each).
const SIZE: u32 = 8;

/// Largest difference per channel (unorm8; colour compared sRGB-encoded, the
/// way it is stored) allowed between a GPU's BC decoder and the CPU's: BC1-3
/// only require interpolated palette entries to be close, and decoders round
/// them (and the 5/6-bit endpoint expansion) differently.
const BC_TOLERANCE: u8 = 2;

/// Largest difference for RGBA8 textures: the sRGB-to-linear conversion on
/// the GPU and back on the CPU.
const RGBA_TOLERANCE: u8 = 1;

/// Random blocks of `format` (xorshift from `rng`). BC1 opaque blocks keep
/// `c0 > c1` (the four-colour mode, which a GPU BC1 texture samples the way
/// the file means).
fn blocks(format: BcFormat, n: usize, rng: &mut u32) -> Vec<u8> {
    let mut next = || {
        *rng ^= *rng << 13;
        *rng ^= *rng >> 17;
        *rng ^= *rng << 5;
        *rng
    };
    let mut out = Vec::new();
    for _ in 0..n {
        if format.block_bytes() == 16 {
            out.extend_from_slice(&next().to_le_bytes());
            out.extend_from_slice(&next().to_le_bytes());
        }
        let (mut c0, mut c1) = (next() as u16, next() as u16);
        if format == BcFormat::Bc1Opaque {
            (c0, c1) = (c0.max(c1), c0.min(c1));
            if c0 == c1 {
                c0 = c0.saturating_add(1);
                c1 = c0 - 1;
            }
        }
        out.extend_from_slice(&c0.to_le_bytes());
        out.extend_from_slice(&c1.to_le_bytes());
        out.extend_from_slice(&next().to_le_bytes());
    }
    out
}

/// An 8x8 texture of random `format` blocks, written as a DXT BLP and read
/// back (so the reader's BC path is what is uploaded).
fn dxt_texture(format: BcFormat, salt: u32) -> DetailTexture {
    dxt_texture_sized(format, salt, SIZE)
}

/// A `size x size` texture of random `format` blocks through a DXT BLP.
fn dxt_texture_sized(format: BcFormat, salt: u32, size: u32) -> DetailTexture {
    let mut rng = salt | 1;
    let mips = (0..DetailTexture::full_mip_count(size, size))
        .map(|l| {
            let side = (size >> l).max(1);
            blocks(
                format,
                format.level_bytes(side, side) / format.block_bytes(),
                &mut rng,
            )
        })
        .collect();
    let t = DetailTexture {
        width: size,
        height: size,
        pixels: TexturePixels::Bc(BcMips { format, mips }),
    };
    let bytes = blp::write_blp(&t).expect("DXT BLP writes");
    let back = blp::read_blp(&bytes, "test.blp").expect("DXT BLP reads");
    assert_eq!(back, t, "{format:?} BLP round trip keeps the blocks");
    back
}

fn model(name: &str, texture: DetailTexture) -> DetailModel {
    let mut m = elwynn_models().swap_remove(0);
    m.name = name.into();
    m.texture = texture;
    m
}

/// Every texel of every level of `texture`, read by a compute shader with
/// `textureLoad` (linear floats, colour decoded from sRGB by the GPU) and
/// encoded back to RGBA8 (sRGB colour, linear alpha).
fn gpu_texels(gpu: &GpuContext, texture: &wgpu::Texture, texels: u64) -> Vec<u8> {
    let device = &gpu.device;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("test.texels"),
        source: wgpu::ShaderSource::Wgsl(
            r#"
@group(0) @binding(0) var tex: texture_2d<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;

@compute @workgroup_size(1)
fn main() {
    var i = 0u;
    for (var l = 0u; l < textureNumLevels(tex); l++) {
        let d = textureDimensions(tex, l);
        for (var y = 0u; y < d.y; y++) {
            for (var x = 0u; x < d.x; x++) {
                out[i] = textureLoad(tex, vec2<u32>(x, y), l);
                i++;
            }
        }
    }
}
"#
            .into(),
        ),
    });
    let pipeline =
        sward_engine::bind::compute_pipeline_auto(device, "test.texels", &module, "main");
    let out = sward_engine::testing::probe_output(gpu, "test.texels", texels * 16);
    let view = texture.create_view(&Default::default());
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("test.texels"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&view),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: out.as_entire_binding(),
            },
        ],
    });
    // One invocation reads every texel in order.
    let bytes = sward_engine::testing::run_probe(gpu, &pipeline, &[&bind], 1, &out);
    let srgb = |v: f32| {
        let v = v.clamp(0.0, 1.0);
        if v <= 0.003_130_8 {
            12.92 * v
        } else {
            1.055 * v.powf(1.0 / 2.4) - 0.055
        }
    };
    bytes
        .chunks_exact(16)
        .flat_map(|texel| {
            let c = |k: usize| {
                f32::from_le_bytes([
                    texel[4 * k],
                    texel[4 * k + 1],
                    texel[4 * k + 2],
                    texel[4 * k + 3],
                ])
            };
            [srgb(c(0)), srgb(c(1)), srgb(c(2)), c(3).clamp(0.0, 1.0)]
                .map(|v| (v * 255.0).round() as u8)
        })
        .collect()
}

/// The largest per-channel difference between what the GPU samples from
/// `m`'s uploaded texture and the CPU decode of `t`, all levels.
fn worst_difference(gpu: &GpuContext, models: &GrassModels, i: usize, t: &DetailTexture) -> u8 {
    let cpu: Vec<u8> = t.decode_rgba().expect("decodes").concat();
    let got = gpu_texels(gpu, &models.models[i].texture, cpu.len() as u64 / 4);
    assert_eq!(got.len(), cpu.len());
    let (mut worst, mut at) = (0u8, 0usize);
    for (k, (a, b)) in got.iter().zip(&cpu).enumerate() {
        if a.abs_diff(*b) > worst {
            (worst, at) = (a.abs_diff(*b), k);
        }
    }
    if worst > 0 {
        eprintln!(
            "{}: worst channel difference {worst} at texel {} channel {} (gpu {}, cpu {})",
            models.models[i].name,
            at / 4,
            at % 4,
            got[at],
            cpu[at]
        );
    }
    worst
}

#[test]
fn dxt_textures_sample_the_cpu_decode_as_bc_or_decoded() {
    gpu_or_skip!(gpu);
    if !sward_engine::testing::has_capabilities(
        gpu,
        "the texel read-back of dxt_textures_sample_the_cpu_decode_as_bc_or_decoded",
        &[Capability::Compute],
    ) {
        return;
    }
    let formats = [
        BcFormat::Bc1,
        BcFormat::Bc1Opaque,
        BcFormat::Bc2,
        BcFormat::Bc3,
    ];
    let mut textures: Vec<DetailTexture> = formats
        .iter()
        .enumerate()
        .map(|(i, &f)| dxt_texture(f, 0x9E37_79B9u32.wrapping_mul(i as u32 + 1)))
        .collect();
    // A DXT1 texture without alpha whose three-colour block uses index 3
    // (opaque black in the file, transparent on a BC1 texture): decoded.
    let mut black = dxt_texture(BcFormat::Bc1Opaque, 77);
    if let TexturePixels::Bc(bc) = &mut black.pixels {
        bc.mips[0][..8].copy_from_slice(&[0x1F, 0x00, 0x00, 0xF8, 0xFF, 0x00, 0x00, 0x00]);
    }
    textures.push(black);
    // A 2x2 DXT5 texture: below one block, so never a BC texture.
    textures.push(dxt_texture_sized(BcFormat::Bc3, 5, 2));
    // An RGBA8 texture goes as RGBA8 either way.
    textures.push(elwynn_models().swap_remove(1).texture);
    let models: Vec<DetailModel> = textures
        .iter()
        .enumerate()
        .map(|(i, t)| model(&format!("tex{i}"), t.clone()))
        .collect();

    let device_bc = gpu.caps.has(Capability::TextureCompressionBc);
    eprintln!(
        "adapter {}: texture-compression-bc {}",
        gpu.summary.name,
        if device_bc { "present" } else { "absent" }
    );
    // Forced CPU decoding, and the device without BC support: every BC
    // texture decoded, with the reason recorded.
    let mut no_bc = gpu.clone();
    no_bc.caps = Caps {
        present: gpu
            .caps
            .present
            .iter()
            .copied()
            .filter(|&c| c != Capability::TextureCompressionBc)
            .collect(),
        ..gpu.caps.clone()
    };
    for (ctx, mode, reason) in [
        (gpu, TextureUpload::ForceDecode, DecodeReason::Forced),
        (&no_bc, TextureUpload::Auto, DecodeReason::NoBcSupport),
    ] {
        let up = GrassModels::with_upload(ctx, &models, mode).expect("upload");
        let stats = up.texture_stats();
        assert_eq!((stats.bc, stats.decoded, stats.rgba), (0, 6, 1), "{mode}");
        for (i, t) in textures.iter().enumerate() {
            let want = match t.bc_format() {
                Some(f) => UploadedAs::Decoded(f, reason),
                None => UploadedAs::Rgba8,
            };
            assert_eq!(up.models[i].uploaded_as, want, "{mode} texture {i}");
            assert_eq!(
                up.models[i].texture.format(),
                wgpu::TextureFormat::Rgba8UnormSrgb
            );
            let worst = worst_difference(gpu, &up, i, t);
            assert!(
                worst <= RGBA_TOLERANCE,
                "{mode}: decoded texture {i} differs by {worst}"
            );
        }
    }

    if !device_bc {
        eprintln!(
            "skipping the BC upload half: adapter {} lacks texture-compression-bc",
            gpu.summary.name
        );
        return;
    }
    let up = GrassModels::with_upload(gpu, &models, TextureUpload::Auto).expect("upload");
    let stats = up.texture_stats();
    assert_eq!((stats.bc, stats.decoded, stats.rgba), (4, 2, 1));
    let wanted = [
        (
            wgpu::TextureFormat::Bc1RgbaUnormSrgb,
            UploadedAs::Bc(BcFormat::Bc1),
        ),
        (
            wgpu::TextureFormat::Bc1RgbaUnormSrgb,
            UploadedAs::Bc(BcFormat::Bc1Opaque),
        ),
        (
            wgpu::TextureFormat::Bc2RgbaUnormSrgb,
            UploadedAs::Bc(BcFormat::Bc2),
        ),
        (
            wgpu::TextureFormat::Bc3RgbaUnormSrgb,
            UploadedAs::Bc(BcFormat::Bc3),
        ),
        (
            wgpu::TextureFormat::Rgba8UnormSrgb,
            UploadedAs::Decoded(BcFormat::Bc1Opaque, DecodeReason::OpaqueBc1Transparency),
        ),
        (
            wgpu::TextureFormat::Rgba8UnormSrgb,
            UploadedAs::Decoded(BcFormat::Bc3, DecodeReason::NotBlockAligned),
        ),
        (wgpu::TextureFormat::Rgba8UnormSrgb, UploadedAs::Rgba8),
    ];
    for (i, (t, (format, way))) in textures.iter().zip(wanted).enumerate() {
        assert_eq!(up.models[i].uploaded_as, way, "texture {i}");
        assert_eq!(up.models[i].texture.format(), format, "texture {i}");
        assert_eq!(
            up.models[i].texture.mip_level_count() as usize,
            t.mip_count(),
            "texture {i}"
        );
        let tolerance = if t.bc_format().is_some() && format != wgpu::TextureFormat::Rgba8UnormSrgb
        {
            BC_TOLERANCE
        } else {
            RGBA_TOLERANCE
        };
        let worst = worst_difference(gpu, &up, i, t);
        assert!(
            worst <= tolerance,
            "{way:?}: GPU-sampled texels differ from the CPU decode by {worst} (> {tolerance})"
        );
    }
    // BC textures hold a quarter (BC1: an eighth) of the RGBA8 bytes.
    let forced = GrassModels::with_upload(gpu, &models, TextureUpload::ForceDecode).unwrap();
    assert!(up.gpu_memory_bytes() < forced.gpu_memory_bytes());
}
