//! BLP2 textures. sward writes detail textures as uncompressed BLP2
//! (encoding 3, BGRA8 texels, alpha depth 8) with the whole mip chain; the
//! reader takes that and palettized BLP2 (encoding 1 with alpha depth 0, 1,
//! 4 or 8). DXT-compressed BLPs are refused with a clear error.
//!
//! Header (1172 bytes): `BLP2`, u32 type (1), u8 encoding, u8 alpha depth, u8
//! alpha encoding, u8 has-mips, u32 width, u32 height, u32 mip offsets[16],
//! u32 mip sizes[16], then a 256-entry BGRA palette (zeros when unused).

use super::bytes::{u32_of, Out, Reader};
use super::FormatError;
use crate::models::DetailTexture;

const PALETTE: usize = 0x94;
const HEADER_SIZE: usize = PALETTE + 1024;
const ENC_PALETTE: u8 = 1;
const ENC_BGRA: u8 = 3;
/// Largest texture side read.
const MAX_SIDE: u32 = 4096;

/// Serialises `tex` as uncompressed BLP2 with all its mips (at most 16).
pub fn write_blp(tex: &DetailTexture) -> Result<Vec<u8>, FormatError> {
    tex.validate().map_err(|reason| FormatError::Unwritable {
        what: "BLP texture".into(),
        reason,
    })?;
    if tex.mips.len() > 16 {
        return Err(FormatError::Unwritable {
            what: "BLP texture".into(),
            reason: format!("{} mip levels (at most 16)", tex.mips.len()),
        });
    }
    let mut o = Out::default();
    o.bytes(b"BLP2");
    o.u32(1);
    o.bytes(&[ENC_BGRA, 8, 8, 1]);
    o.u32(tex.width);
    o.u32(tex.height);
    o.zeros(HEADER_SIZE - o.pos());
    for (l, m) in tex.mips.iter().enumerate() {
        let at = o.pos();
        o.patch_u32(0x14 + 4 * l, u32_of(at));
        o.patch_u32(0x54 + 4 * l, u32_of(m.len()));
        for px in m.chunks_exact(4) {
            o.bytes(&[px[2], px[1], px[0], px[3]]);
        }
    }
    Ok(o.buf)
}

/// Parses a BLP2 file into RGBA8 levels. Missing mip levels (files without
/// mips, or short chains) are rebuilt with a 2x2 box filter.
pub fn read_blp(data: &[u8], file: &str) -> Result<DetailTexture, FormatError> {
    let r = Reader::new(data, file);
    let magic: [u8; 4] = r.array("BLP header", 0)?;
    if &magic != b"BLP2" {
        return Err(r.err("BLP header", 0, "magic is not BLP2"));
    }
    let [encoding, alpha_depth, _alpha_enc, has_mips]: [u8; 4] = r.array("BLP header", 8)?;
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
    if encoding != ENC_BGRA && encoding != ENC_PALETTE {
        return Err(FormatError::Unsupported {
            file: file.to_owned(),
            what: format!("BLP encoding {encoding} (1 palette and 3 BGRA are read; DXT is not)"),
        });
    }
    if encoding == ENC_PALETTE && ![0, 1, 4, 8].contains(&alpha_depth) {
        return Err(r.err("BLP header", 9, format!("alpha depth {alpha_depth}")));
    }
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
        let level = if encoding == ENC_BGRA {
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
    Ok(DetailTexture {
        width,
        height,
        mips,
    })
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
        assert_eq!(t.mips.len(), 2);
        assert_eq!(&t.mips[0][..8], &[30, 20, 10, 255, 0, 0, 0, 0]);
        assert_eq!(t.mips[1], vec![15, 10, 5, 128]);
        let mut dxt = o.buf.clone();
        dxt[8] = 2;
        assert!(matches!(
            read_blp(&dxt, "d.blp"),
            Err(FormatError::Unsupported { .. })
        ));
    }
}
