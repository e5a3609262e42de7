//! MCAL alpha-map decoding: uncompressed 8-bit (4096 bytes), uncompressed
//! 4-bit (2048 bytes, low nibble first, with the client's last row/column
//! fix unless the MCNK says not to) and RLE-compressed 8-bit maps.

use super::bytes::{Chunk, Reader};
use super::FormatError;
use crate::world::{ALPHA_SIZE, ALPHA_TEXELS};

/// Decodes the alpha map of one layer. `ofs` is the layer's offset in the
/// MCAL data; `big` is the WDT's big-alpha flag (8-bit maps when set, 4-bit
/// when clear). When `big` is `None`, `next` (where the next map starts, or
/// the MCAL size) tells an 8-bit map (4096 bytes available) from a 4-bit
/// one (2048).
pub(crate) fn read_alpha(
    r: &Reader<'_>,
    mcal: &Chunk,
    ofs: usize,
    next: usize,
    big: Option<bool>,
    compressed: bool,
    do_not_fix: bool,
) -> Result<Box<[u8; ALPHA_TEXELS]>, FormatError> {
    if ofs >= mcal.size {
        return Err(r.err(
            "MCAL",
            mcal.data,
            format!(
                "alpha offset {ofs:#x} is past the MCAL data ({:#x} bytes)",
                mcal.size
            ),
        ));
    }
    let start = mcal.data + ofs;
    let mut out = Box::new([0u8; ALPHA_TEXELS]);
    if compressed {
        decode_rle(r, start, mcal.end(), &mut out)?;
        return Ok(out);
    }
    let span = match big {
        Some(true) => ALPHA_TEXELS,
        Some(false) => ALPHA_TEXELS / 2,
        None => next.saturating_sub(ofs),
    };
    if span >= ALPHA_TEXELS {
        out.copy_from_slice(r.bytes("MCAL", start, ALPHA_TEXELS)?);
    } else if span >= ALPHA_TEXELS / 2 {
        let packed = r.bytes("MCAL", start, ALPHA_TEXELS / 2)?;
        for (i, b) in packed.iter().enumerate() {
            out[2 * i] = (b & 0x0F) * 17;
            out[2 * i + 1] = (b >> 4) * 17;
        }
        if !do_not_fix {
            for row in 0..ALPHA_SIZE {
                out[row * ALPHA_SIZE + 63] = out[row * ALPHA_SIZE + 62];
            }
            let (head, last) = out.split_at_mut(63 * ALPHA_SIZE);
            last.copy_from_slice(&head[62 * ALPHA_SIZE..]);
        }
    } else {
        return Err(r.err(
            "MCAL",
            start,
            format!("alpha map has {span} bytes (4096 or 2048 expected)"),
        ));
    }
    Ok(out)
}

/// RLE: a control byte `c` gives `c & 0x7F` texels; with bit 7 set the next
/// byte is repeated, otherwise that many bytes are copied. Stops at 4096.
fn decode_rle(
    r: &Reader<'_>,
    mut at: usize,
    end: usize,
    out: &mut [u8; ALPHA_TEXELS],
) -> Result<(), FormatError> {
    let mut n = 0;
    while n < ALPHA_TEXELS {
        if at >= end {
            return Err(r.err(
                "MCAL",
                at,
                format!("compressed alpha map ends after {n} of 4096 texels"),
            ));
        }
        let c = r.bytes("MCAL", at, 1)?[0];
        let count = (c & 0x7F) as usize;
        let take = count.min(ALPHA_TEXELS - n);
        if c & 0x80 != 0 {
            let v = r.bytes("MCAL", at + 1, 1)?[0];
            out[n..n + take].fill(v);
            at += 2;
        } else {
            if at + 1 + count > end {
                return Err(r.err("MCAL", at, "compressed run past the MCAL data"));
            }
            out[n..n + take].copy_from_slice(r.bytes("MCAL", at + 1, take)?);
            at += 1 + count;
        }
        n += take;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::bytes::Out;

    fn mcal(body: &[u8]) -> Vec<u8> {
        let mut o = Out::default();
        o.chunk(b"MCAL", |o| o.bytes(body));
        o.buf
    }

    #[test]
    fn four_bit_maps_expand_and_get_the_edge_fix() {
        let packed: Vec<u8> = (0..2048).map(|i| ((i % 16) as u8) | 0xF0).collect();
        let file = mcal(&packed);
        let r = Reader::new(&file, "a.adt");
        let c = r.chunk_at("t", 0).expect("chunk");
        let fixed = read_alpha(&r, &c, 0, 2048, None, false, false).expect("4-bit");
        assert_eq!(fixed[0], 0);
        assert_eq!(fixed[1], 255);
        assert_eq!(fixed[2], 17);
        assert_eq!(fixed[63], fixed[62]);
        assert_eq!(fixed[63 * 64 + 5], fixed[62 * 64 + 5]);
        let raw = read_alpha(&r, &c, 0, 2048, None, false, true).expect("4-bit");
        assert_eq!(raw[63], 255);
        assert!(read_alpha(&r, &c, 0, 1000, None, false, true).is_err());
        assert!(read_alpha(&r, &c, 4000, 9000, None, false, true).is_err());
    }

    #[test]
    fn the_wdt_big_alpha_flag_decides_the_depth() {
        let body: Vec<u8> = (0..4096).map(|i| (i % 251) as u8).collect();
        let file = mcal(&body);
        let r = Reader::new(&file, "a.adt");
        let c = r.chunk_at("t", 0).expect("chunk");
        // Big alpha: 8-bit even where the next map starts after 2048 bytes.
        let big = read_alpha(&r, &c, 0, 2048, Some(true), false, false).expect("8-bit");
        assert_eq!(big[2047], (2047 % 251) as u8);
        assert_eq!(big[4095], (4095 % 251) as u8);
        // No big alpha: 4-bit even where 4096 bytes are there.
        let small = read_alpha(&r, &c, 0, 4096, Some(false), false, true).expect("4-bit");
        assert_eq!(small[0], (body[0] & 0xF) * 17);
        assert_eq!(small[1], (body[0] >> 4) * 17);
        // A big-alpha map that does not fit is a named error.
        let e = read_alpha(&r, &c, 2048, 4096, Some(true), false, false).expect_err("short");
        assert!(e.to_string().contains("a.adt"), "{e}");
    }

    #[test]
    fn rle_fill_and_copy_runs_decode() {
        let mut body = Vec::new();
        for _ in 0..32 {
            body.extend_from_slice(&[0x80 | 127, 9]);
        }
        body.extend_from_slice(&[32]);
        body.extend((0..32).map(|i| i as u8));
        let file = mcal(&body);
        let r = Reader::new(&file, "a.adt");
        let c = r.chunk_at("t", 0).expect("chunk");
        let a = read_alpha(&r, &c, 0, 0, None, true, true).expect("rle");
        assert_eq!(a[0], 9);
        assert_eq!(a[32 * 127 - 1], 9);
        assert_eq!(a[32 * 127 + 5], 5);
        let short = mcal(&body[..40]);
        let r = Reader::new(&short, "a.adt");
        let c = r.chunk_at("t", 0).expect("chunk");
        assert!(read_alpha(&r, &c, 0, 0, None, true, true).is_err());
    }
}
