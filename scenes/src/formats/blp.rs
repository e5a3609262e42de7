//! BLP2 textures. sward writes RGBA8 detail textures as uncompressed BLP2
//! (encoding 3, BGRA8 texels, alpha depth 8) and BC textures as DXT BLP2
//! (encoding 2), each with the whole mip chain; the reader takes every BLP2
//! the 1.12 and 3.3.5 clients ship: palettized (encoding 1 with alpha depth
//! 0, 1, 4 or 8), DXT-compressed (encoding 2; alpha encoding 0 = DXT1, with
//! 1-bit alpha when the alpha depth is not 0, 1 = DXT3, 7 = DXT5) and raw
//! BGRA (encoding 3). See the wowdev wiki's "BLP" page.
//!
//! Palettized and BGRA files are decoded to RGBA8. A DXT file with its whole
//! mip chain keeps its blocks ([`TexturePixels::Bc`]: DXT1 -> BC1, DXT3 ->
//! BC2, DXT5 -> BC3), which the renderer uploads as a BC texture when the
//! device has BC support and decodes on the CPU otherwise. A DXT file with
//! missing levels is decoded to RGBA8 here (logged) so that the missing
//! levels can be rebuilt; sward has no BC encoder.
//!
//! Header (1172 bytes): `BLP2`, u32 type (1), u8 encoding, u8 alpha depth, u8
//! alpha encoding, u8 has-mips, u32 width, u32 height, u32 mip offsets[16],
//! u32 mip sizes[16], then a 256-entry BGRA palette (zeros when unused).

use super::bytes::{u32_of, Out, Reader};
use super::FormatError;
use crate::models::{BcFormat, BcMips, DetailTexture, TexturePixels};

const PALETTE: usize = 0x94;
const HEADER_SIZE: usize = PALETTE + 1024;
const ENC_PALETTE: u8 = 1;
const ENC_DXT: u8 = 2;
const ENC_BGRA: u8 = 3;
/// Alpha encodings of DXT BLPs.
const DXT1: u8 = 0;
const DXT3: u8 = 1;
const DXT5: u8 = 7;
/// Largest texture side read.
const MAX_SIDE: u32 = 4096;

/// Serialises `tex` with all its mips (at most 16): RGBA8 textures as
/// uncompressed BLP2, BC textures as DXT BLP2 (BC1 -> DXT1 with alpha depth
/// 1, BC1 opaque -> DXT1 with alpha depth 0, BC2 -> DXT3, BC3 -> DXT5).
pub fn write_blp(tex: &DetailTexture) -> Result<Vec<u8>, FormatError> {
    tex.validate().map_err(|reason| FormatError::Unwritable {
        what: "BLP texture".into(),
        reason,
    })?;
    if tex.mip_count() > 16 {
        return Err(FormatError::Unwritable {
            what: "BLP texture".into(),
            reason: format!("{} mip levels (at most 16)", tex.mip_count()),
        });
    }
    let mut o = Out::default();
    o.bytes(b"BLP2");
    o.u32(1);
    let (mips, header) = match &tex.pixels {
        TexturePixels::Rgba8(m) => (m, [ENC_BGRA, 8, 8, 1]),
        TexturePixels::Bc(bc) => (
            &bc.mips,
            match bc.format {
                BcFormat::Bc1 => [ENC_DXT, 1, DXT1, 1],
                BcFormat::Bc1Opaque => [ENC_DXT, 0, DXT1, 1],
                BcFormat::Bc2 => [ENC_DXT, 8, DXT3, 1],
                BcFormat::Bc3 => [ENC_DXT, 8, DXT5, 1],
            },
        ),
    };
    o.bytes(&header);
    o.u32(tex.width);
    o.u32(tex.height);
    o.zeros(HEADER_SIZE - o.pos());
    for (l, m) in mips.iter().enumerate() {
        let at = o.pos();
        o.patch_u32(0x14 + 4 * l, u32_of(at));
        o.patch_u32(0x54 + 4 * l, u32_of(m.len()));
        if header[0] == ENC_BGRA {
            for px in m.chunks_exact(4) {
                o.bytes(&[px[2], px[1], px[0], px[3]]);
            }
        } else {
            o.bytes(m);
        }
    }
    Ok(o.buf)
}

/// Parses a BLP2 file: DXT files with every mip level keep their BC blocks,
/// everything else becomes RGBA8 levels. Missing mip levels (files without
/// mips, or short chains) are rebuilt with a 2x2 box filter (DXT files with
/// missing levels are decoded first).
pub fn read_blp(data: &[u8], file: &str) -> Result<DetailTexture, FormatError> {
    let r = Reader::new(data, file);
    let magic: [u8; 4] = r.array("BLP header", 0)?;
    if &magic != b"BLP2" {
        return Err(r.err("BLP header", 0, "magic is not BLP2"));
    }
    let [encoding, alpha_depth, alpha_enc, has_mips]: [u8; 4] = r.array("BLP header", 8)?;
    let width = r.u32("BLP header", 0x0C)?;
    let height = r.u32("BLP header", 0x10)?;
    if !(1..=MAX_SIDE).contains(&width)
        || !(1..=MAX_SIDE).contains(&height)
        || !width.is_power_of_two()
        || !height.is_power_of_two()
    {
        return Err(r.err(
            "BLP header",
            0x0C,
            format!("size {width}x{height} (powers of two up to {MAX_SIDE} expected)"),
        ));
    }
    if ![ENC_BGRA, ENC_PALETTE, ENC_DXT].contains(&encoding) {
        return Err(FormatError::Unsupported {
            file: file.to_owned(),
            what: format!("BLP encoding {encoding} (1 palette, 2 DXT and 3 BGRA are read)"),
        });
    }
    if encoding == ENC_DXT && ![DXT1, DXT3, DXT5].contains(&alpha_enc) {
        return Err(FormatError::Unsupported {
            file: file.to_owned(),
            what: format!("BLP DXT alpha encoding {alpha_enc} (0 DXT1, 1 DXT3, 7 DXT5 are read)"),
        });
    }
    if encoding == ENC_PALETTE && ![0, 1, 4, 8].contains(&alpha_depth) {
        return Err(r.err("BLP header", 9, format!("alpha depth {alpha_depth}")));
    }
    let bc = (encoding == ENC_DXT).then_some(match alpha_enc {
        DXT1 if alpha_depth == 0 => BcFormat::Bc1Opaque,
        DXT1 => BcFormat::Bc1,
        DXT3 => BcFormat::Bc2,
        _ => BcFormat::Bc3,
    });
    let full = DetailTexture::full_mip_count(width, height) as usize;
    let stored = if has_mips != 0 { full.min(16) } else { 1 };
    let mut mips = Vec::with_capacity(full);
    for l in 0..stored {
        let ofs = r.u32("BLP header", 0x14 + 4 * l)? as usize;
        let size = r.u32("BLP header", 0x54 + 4 * l)? as usize;
        if ofs == 0 || size == 0 {
            break;
        }
        let (w, h) = ((width >> l).max(1) as usize, (height >> l).max(1) as usize);
        let chunk = format!("BLP mip {l}");
        let texels = w * h;
        let level = if let Some(format) = bc {
            let data = r.bytes(&chunk, ofs, format.level_bytes(w as u32, h as u32))?;
            data.to_vec()
        } else if encoding == ENC_BGRA {
            let b = r.bytes(&chunk, ofs, texels * 4)?;
            b.chunks_exact(4)
                .flat_map(|p| [p[2], p[1], p[0], p[3]])
                .collect()
        } else {
            let alpha_bytes = (texels * alpha_depth as usize).div_ceil(8);
            let idx = r.bytes(&chunk, ofs, texels)?;
            let alpha = r.bytes(&chunk, ofs + texels, alpha_bytes)?;
            let pal = r.bytes("BLP palette", PALETTE, 1024)?;
            let mut out = Vec::with_capacity(texels * 4);
            for (i, &ix) in idx.iter().enumerate() {
                let p = &pal[ix as usize * 4..ix as usize * 4 + 4];
                let a = match alpha_depth {
                    0 => 255,
                    1 => ((alpha[i / 8] >> (i % 8)) & 1) * 255,
                    4 => ((alpha[i / 2] >> (4 * (i % 2))) & 0xF) * 17,
                    _ => alpha[i],
                };
                out.extend_from_slice(&[p[2], p[1], p[0], a]);
            }
            out
        };
        mips.push(level);
    }
    if mips.is_empty() {
        return Err(r.err("BLP header", 0x14, "no mip level 0"));
    }
    if let Some(format) = bc {
        let bc = BcMips { format, mips };
        if bc.mips.len() == full {
            return Ok(DetailTexture {
                width,
                height,
                pixels: TexturePixels::Bc(bc),
            });
        }
        log::info!(
            "{file}: {} with {} of {full} mip levels; decoded to RGBA8 to rebuild the missing levels",
            format.name(),
            bc.mips.len()
        );
        let partial = DetailTexture {
            width,
            height,
            pixels: TexturePixels::Bc(bc),
        };
        mips = (0..partial.mip_count())
            .map(|l| partial.rgba_level(l).map(|c| c.into_owned()))
            .collect::<Result<_, _>>()
            .map_err(|e| r.err("BLP mip", 0x14, e))?;
    }
    while mips.len() < full {
        let l = mips.len() as u32;
        let (pw, ph) = ((width >> (l - 1)).max(1), (height >> (l - 1)).max(1));
        let prev = &mips[mips.len() - 1];
        let (w, h) = ((pw / 2).max(1), (ph / 2).max(1));
        let mut next = vec![0u8; (w * h * 4) as usize];
        for y in 0..h {
            for x in 0..w {
                for ch in 0..4 {
                    let mut sum = 0u32;
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let (sx, sy) = ((2 * x + dx).min(pw - 1), (2 * y + dy).min(ph - 1));
                        sum += prev[((sy * pw + sx) * 4 + ch) as usize] as u32;
                    }
                    next[((y * w + x) * 4 + ch) as usize] = ((sum + 2) / 4) as u8;
                }
            }
        }
        mips.push(next);
    }
    Ok(DetailTexture::rgba(width, height, mips))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bgra_round_trips_and_palette_decodes() {
        let tex = crate::models::elwynn_models().swap_remove(3).texture;
        let bytes = write_blp(&tex).expect("write");
        assert_eq!(&bytes[..4], b"BLP2");
        let back = read_blp(&bytes, "t.blp").expect("read");
        assert_eq!(back, tex);
        assert_eq!(write_blp(&back).expect("again"), bytes);

        // A 2x2 palettized texture with 1-bit alpha and no mips.
        let mut o = Out::default();
        o.bytes(b"BLP2");
        o.u32(1);
        o.bytes(&[ENC_PALETTE, 1, 0, 0]);
        o.u32(2);
        o.u32(2);
        o.zeros(128 + 1024);
        o.patch_u32(0x14, u32_of(o.pos()));
        o.patch_u32(0x54, 5);
        o.buf[PALETTE + 4..PALETTE + 8].copy_from_slice(&[10, 20, 30, 0]);
        o.bytes(&[1, 0, 1, 0, 0b0101]);
        let t = read_blp(&o.buf, "p.blp").expect("palette");
        let TexturePixels::Rgba8(mips) = &t.pixels else {
            panic!("palettized BLP is not RGBA8: {t:?}")
        };
        assert_eq!(mips.len(), 2);
        assert_eq!(&mips[0][..8], &[30, 20, 10, 255, 0, 0, 0, 0]);
        assert_eq!(mips[1], vec![15, 10, 5, 128]);
        let mut bad = o.buf.clone();
        bad[8] = 4;
        assert!(matches!(
            read_blp(&bad, "d.blp"),
            Err(FormatError::Unsupported { .. })
        ));
    }

    /// A 4x4 DXT BLP with the given alpha depth and encoding whose three mip
    /// levels (4x4, 2x2, 1x1) are each the one block `block`.
    fn dxt_blp(alpha_depth: u8, alpha_enc: u8, block: &[u8]) -> Vec<u8> {
        let mut o = Out::default();
        o.bytes(b"BLP2");
        o.u32(1);
        o.bytes(&[ENC_DXT, alpha_depth, alpha_enc, 1]);
        o.u32(4);
        o.u32(4);
        o.zeros(HEADER_SIZE - o.pos());
        for l in 0..3 {
            o.patch_u32(0x14 + 4 * l, u32_of(o.pos()));
            o.patch_u32(0x54 + 4 * l, u32_of(block.len()));
            o.bytes(block);
        }
        o.buf
    }

    #[test]
    fn dxt1_dxt3_and_dxt5_decode_to_rgba() {
        // Colour block: c0 = pure red (0xF800) > c1 = pure blue (0x001F),
        // texel indices 0 (c0) for the first row, 1 (c1) for the rest.
        let colour = [0x00, 0xF8, 0x1F, 0x00, 0x00, 0x55, 0x55, 0x55];
        let read = |bytes: Vec<u8>, name: &str, format: BcFormat| {
            let t = read_blp(&bytes, name).expect(name);
            // The blocks are kept, and written back unchanged.
            assert_eq!(t.bc_format(), Some(format), "{name}");
            assert_eq!(write_blp(&t).expect(name), bytes, "{name}");
            t.decode_rgba().expect(name)
        };
        let t = read(dxt_blp(0, DXT1, &colour), "dxt1.blp", BcFormat::Bc1Opaque);
        assert_eq!(t.len(), 3);
        assert_eq!(&t[0][..4], &[255, 0, 0, 255]);
        assert_eq!(&t[0][16..20], &[0, 0, 255, 255]);
        assert_eq!(t[2], vec![255, 0, 0, 255]);
        // DXT1 with 1-bit alpha: c0 <= c1 selects the 3-colour mode, whose
        // index 3 is transparent black.
        let punch = [0x1F, 0x00, 0x00, 0xF8, 0xFF, 0x00, 0x00, 0x00];
        let t = read(dxt_blp(1, DXT1, &punch), "dxt1a.blp", BcFormat::Bc1);
        assert_eq!(&t[0][..4], &[0, 0, 0, 0]);
        assert_eq!(&t[0][16..20], &[0, 0, 255, 255]);
        // DXT3: explicit 4-bit alpha 0x8 (136) everywhere.
        let mut dxt3 = vec![0x88; 8];
        dxt3.extend_from_slice(&colour);
        let t = read(dxt_blp(8, DXT3, &dxt3), "dxt3.blp", BcFormat::Bc2);
        assert_eq!(&t[0][..4], &[255, 0, 0, 136]);
        // DXT5: a0 = 255, a1 = 0, every alpha index 1 (= a1 = 0).
        let mut dxt5 = vec![255, 0, 0x49, 0x92, 0x24, 0x49, 0x92, 0x24];
        dxt5.extend_from_slice(&colour);
        let t = read(dxt_blp(8, DXT5, &dxt5), "dxt5.blp", BcFormat::Bc3);
        assert_eq!(&t[0][..4], &[255, 0, 0, 0]);
        assert_eq!(&t[0][60..64], &[0, 0, 255, 0]);
        // A DXT file without its mip chain is decoded, and the missing
        // levels rebuilt.
        let mut one = dxt_blp(8, DXT5, &dxt5);
        one[11] = 0;
        let t = read_blp(&one, "one.blp").expect("one level");
        let TexturePixels::Rgba8(mips) = &t.pixels else {
            panic!("short DXT chain kept as BC: {t:?}")
        };
        assert_eq!(mips.len(), 3);
        assert_eq!(&mips[0][..4], &[255, 0, 0, 0]);
        // A short block and an unknown alpha encoding are named errors.
        let short = dxt_blp(8, DXT5, &dxt5[..10]);
        let e = read_blp(&short, "short.blp").expect_err("short");
        assert!(e.to_string().contains("short.blp"), "{e}");
        let e = read_blp(&dxt_blp(8, 5, &dxt5), "bc.blp").expect_err("enc 5");
        assert!(matches!(e, FormatError::Unsupported { .. }), "{e}");
    }
}
