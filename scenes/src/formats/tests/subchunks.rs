//! MCNK sub-chunks as the client reads them: one synthetic tile per quirk
//! of files in the wild (an MCAL size field far below `sizeAlpha`, both
//! conventions of `sizeAlpha`, compressed maps that end where the next
//! layer's map begins, MCNR's uncounted padding, MCSH absent while its
//! offset points elsewhere, MCLQ sized by the header only), and the errors
//! where the header and the data cannot both be right.

use super::sample_tile;
use crate::formats::adt::{hdr, read_adt_layouts, McnkLayout, MCNK_HAS_MCSH};
use crate::formats::{read_adt, write_adt, FormatError};
use crate::world::coords::TileCoord;
use crate::world::{AdtTile, ALPHA_TEXELS};

const COORD: TileCoord = TileCoord::new(31, 49);
const FILE: &str = "Azeroth_31_49.adt";

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"))
}

fn put(b: &mut [u8], o: usize, v: u32) {
    b[o..o + 4].copy_from_slice(&v.to_le_bytes());
}

/// A tile whose last MCNK (15, 15), which ends the file, has three layers
/// with alpha maps and flags `flags`.
fn tile(flags: u32) -> AdtTile {
    let mut t = sample_tile(COORD, 21);
    let three = t
        .mcnks
        .iter()
        .find(|m| m.layers.len() == 3)
        .expect("an MCNK with 3 layers")
        .layers
        .clone();
    let last = t.mcnks.last_mut().expect("256 MCNKs");
    last.layers = three;
    last.header.flags = flags;
    t
}

/// File offset of the last MCNK's tag (it ends the file).
fn last_mcnk(b: &[u8]) -> usize {
    let mcin = 20 + u32_at(b, 20 + 4) as usize;
    let at = u32_at(b, mcin + 8 + 255 * 16) as usize;
    assert_eq!(&b[at..at + 4], b"KNCM");
    assert_eq!(at + 8 + u32_at(b, at + 4) as usize, b.len());
    at
}

fn header(b: &[u8], m: usize, field: usize) -> u32 {
    u32_at(b, m + 8 + field)
}

fn set_header(b: &mut [u8], m: usize, field: usize, v: u32) {
    put(b, m + 8 + field, v);
}

/// Grows the last MCNK (and its size field) by `extra` bytes at the end.
fn append(b: &mut Vec<u8>, m: usize, extra: &[u8]) -> usize {
    let at = b.len();
    b.extend_from_slice(extra);
    let size = (b.len() - m - 8) as u32;
    put(b, m + 4, size);
    at - m
}

fn read(b: &[u8]) -> Result<(AdtTile, Vec<McnkLayout>), FormatError> {
    read_adt_layouts(b, FILE, Some(COORD), None)
}

/// A simple RLE encoder (fill runs for repeats, copy runs otherwise).
fn rle(map: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for run in map.chunks(127) {
        if run.iter().all(|&v| v == run[0]) {
            out.extend_from_slice(&[0x80 | run.len() as u8, run[0]]);
        } else {
            out.push(run.len() as u8);
            out.extend_from_slice(run);
        }
    }
    out
}

#[test]
fn the_written_layout_is_what_the_header_says() {
    let t = tile(0);
    let b = write_adt(&t).expect("write");
    let (back, layouts) = read(&b).expect("read");
    assert_eq!(back, t);
    let l = layouts[255];
    assert_eq!((l.mcvt.offset, l.mcvt.size), (0x88, 580));
    assert_eq!(l.mcnr.size, 435);
    // MCLY follows MCNR's 13 uncounted padding bytes.
    assert_eq!(l.mcly.expect("mcly").offset, l.mcnr.offset + 8 + 435 + 13);
    assert_eq!(l.mcal.expect("mcal").size as usize, 2 * ALPHA_TEXELS);
    assert_eq!((l.mcsh, l.mclq, l.mcse), (None, None, None));
}

#[test]
fn an_mcal_size_field_below_size_alpha_still_reads() {
    let t = tile(0);
    let good = write_adt(&t).expect("write");
    let m = last_mcnk(&good);
    let mcal = m + header(&good, m, hdr::OFS_ALPHA) as usize;
    let size_alpha = header(&good, m, hdr::SIZE_ALPHA);
    assert_eq!(size_alpha as usize, 8 + 2 * ALPHA_TEXELS);
    // sizeAlpha counted with MCAL's header (the usual convention) and
    // without it; the size field far too small, or far too large.
    for (sa, own) in [
        (size_alpha, 512),
        (size_alpha - 8, 512),
        (size_alpha, 0),
        (size_alpha, u32::MAX - 16),
    ] {
        let mut b = good.clone();
        set_header(&mut b, m, hdr::SIZE_ALPHA, sa);
        put(&mut b, mcal + 4, own);
        let (back, layouts) =
            read(&b).unwrap_or_else(|e| panic!("sizeAlpha {sa}, MCAL {own}: {e}"));
        assert_eq!(back, t, "sizeAlpha {sa}, MCAL {own}");
        assert_eq!(
            layouts[255].mcal.expect("mcal").size as usize,
            2 * ALPHA_TEXELS
        );
    }
}

/// The case of a real Northrend tile: three layers, two compressed maps at
/// MCAL offsets 0 and N, `sizeAlpha` right and the MCAL size field 512.
#[test]
fn compressed_maps_read_through_size_alpha_and_end_at_the_next_map() {
    let t = tile(0);
    let mut b = write_adt(&t).expect("write");
    let m = last_mcnk(&b);
    let mcal = m + header(&b, m, hdr::OFS_ALPHA) as usize;
    let mcly = m + header(&b, m, hdr::OFS_LAYER) as usize + 8;
    let maps: Vec<&[u8]> = t.mcnks[255].layers[1..]
        .iter()
        .map(|l| &l.alpha.as_ref().expect("map").0[..])
        .collect();
    let (a, c) = (rle(maps[0]), rle(maps[1]));
    assert!(a.len() > 512);
    b.truncate(mcal);
    let mut body = b"LACM".to_vec();
    body.extend(512u32.to_le_bytes());
    body.extend_from_slice(&a);
    body.extend_from_slice(&c);
    append(&mut b, m, &body);
    set_header(&mut b, m, hdr::SIZE_ALPHA, (8 + a.len() + c.len()) as u32);
    for (k, ofs) in [(1, 0), (2, a.len() as u32)] {
        let flags = u32_at(&b, mcly + 16 * k + 4);
        put(&mut b, mcly + 16 * k + 4, flags | 0x200);
        put(&mut b, mcly + 16 * k + 8, ofs);
    }
    let (back, _) = read(&b).expect("compressed maps through sizeAlpha");
    for k in 1..3 {
        assert_eq!(
            back.mcnks[255].layers[k].alpha,
            t.mcnks[255].layers[k].alpha
        );
        assert_eq!(back.mcnks[255].layers[k].flags & 0x200, 0x200);
    }
    // The first map cut short: its runs end where the second map begins,
    // so it cannot borrow the second map's bytes.
    let short = a.len() - 200;
    put(&mut b, mcly + 16 * 2 + 8, short as u32);
    let e = read(&b).expect_err("first map runs into the second");
    assert!(
        e.to_string().contains("MCAL") && e.to_string().contains("compressed"),
        "{e}"
    );
}

#[test]
fn size_alpha_past_the_mcnk_with_a_disagreeing_size_field_is_a_named_error() {
    let t = tile(0);
    let mut b = write_adt(&t).expect("write");
    let m = last_mcnk(&b);
    let mcal = m + header(&b, m, hdr::OFS_ALPHA) as usize;
    put(&mut b, mcal + 4, 512);
    let sa = (8 + 2 * ALPHA_TEXELS + 100) as u32;
    set_header(&mut b, m, hdr::SIZE_ALPHA, sa);
    let e = read(&b).expect_err("sizeAlpha past the MCNK").to_string();
    for want in [
        FILE,
        "MCNK 255 (15, 15)",
        "sizeAlpha 8300",
        "size field 512",
        "8192 bytes",
    ] {
        assert!(e.contains(want), "{want:?} missing from: {e}");
    }
}

#[test]
fn mcnr_padding_is_skipped_through_the_header() {
    let t = tile(0);
    let mut b = write_adt(&t).expect("write");
    let m = last_mcnk(&b);
    let mcnr = m + header(&b, m, hdr::OFS_NORMAL) as usize;
    // Padding that is not zeros, and a size field that counts it (448) or
    // is absurd: the header's offsets still find MCLY, and MCNR is read as
    // its 435 bytes.
    for pad in &mut b[mcnr + 8 + 435..mcnr + 8 + 448] {
        *pad = 0xAB;
    }
    for own in [435, 448, 0, 9999] {
        put(&mut b, mcnr + 4, own);
        let (back, _) = read(&b).unwrap_or_else(|e| panic!("MCNR size {own}: {e}"));
        assert_eq!(back, t, "MCNR size {own}");
    }
    // A walk by size fields would land in the padding; the header does not.
    let walked = mcnr + 8 + 435;
    assert_ne!(&b[walked..walked + 4], b"YLCM");
}

#[test]
fn mcsh_is_read_only_where_the_header_says_there_is_one() {
    let base = tile(0);
    let b0 = write_adt(&base).expect("write");
    let m = last_mcnk(&b0);
    let ofs_alpha = header(&b0, m, hdr::OFS_ALPHA);
    // Flag 0x1 set but ofsShadow 0: no MCSH.
    let with_flag = tile(MCNK_HAS_MCSH);
    let b = write_adt(&with_flag).expect("write");
    let (back, layouts) = read(&b).expect("flag without offset");
    assert_eq!(back, with_flag);
    assert_eq!(layouts[255].mcsh, None);
    // Flag clear, ofsShadow pointing at MCAL and sizeShadow 512: not a
    // shadow map, never followed.
    let mut b = b0.clone();
    set_header(&mut b, m, hdr::OFS_SHADOW, ofs_alpha);
    set_header(&mut b, m, hdr::SIZE_SHADOW, 512);
    let (back, layouts) = read(&b).expect("stale offset");
    assert_eq!(back, base);
    assert_eq!(layouts[255].mcsh, None);
    // Flag set with that offset: the header says MCSH where MCAL is.
    set_header(&mut b, m, hdr::FLAGS, MCNK_HAS_MCSH);
    let e = read(&b).expect_err("flagged MCSH at MCAL").to_string();
    for want in ["MCNK 255 (15, 15)", "ofsShadow", "points at MCAL, not MCSH"] {
        assert!(e.contains(want), "{want:?} missing from: {e}");
    }
    // A real MCSH at the end of the MCNK, found through the header.
    let mut body = b"HSCM".to_vec();
    body.extend(512u32.to_le_bytes());
    body.extend([0x55u8; 512]);
    let at = append(&mut b, m, &body);
    set_header(&mut b, m, hdr::OFS_SHADOW, at as u32);
    let (_, layouts) = read(&b).expect("MCSH");
    assert_eq!(
        layouts[255].mcsh.map(|s| (s.offset as usize, s.size)),
        Some((at, 512))
    );
    // sizeShadow past the MCNK's end: both values named.
    set_header(&mut b, m, hdr::SIZE_SHADOW, 4096);
    let e = read(&b).expect_err("sizeShadow too big").to_string();
    assert!(
        e.contains("sizeShadow 4096") && e.contains("512 bytes"),
        "{e}"
    );
}

#[test]
fn mclq_is_sized_by_the_header_and_mcse_follows_it() {
    let t = tile(0);
    let mut b = write_adt(&t).expect("write");
    let m = last_mcnk(&b);
    // As in 3.3.5's Alterac Valley: MCLQ's size field 0, sizeLiquid 812
    // (804 bytes of liquid after MCLQ's header), MCSE right after.
    let mut body = b"QLCM".to_vec();
    body.extend(0u32.to_le_bytes());
    body.extend([7u8; 804]);
    let lq = append(&mut b, m, &body);
    let se = append(&mut b, m, b"ESCM\0\0\0\0");
    set_header(&mut b, m, hdr::OFS_LIQUID, lq as u32);
    set_header(&mut b, m, hdr::SIZE_LIQUID, 812);
    set_header(&mut b, m, hdr::OFS_SND_EMITTERS, se as u32);
    let (back, layouts) = read(&b).expect("MCLQ");
    assert_eq!(back, t);
    let l = layouts[255];
    assert_eq!(l.mclq.map(|s| (s.offset as usize, s.size)), Some((lq, 804)));
    // No emitters: MCSE is not looked at.
    assert_eq!(l.mcse, None);
    // sizeLiquid 8 (no liquid) with the offset set: none.
    set_header(&mut b, m, hdr::SIZE_LIQUID, 8);
    assert_eq!(read(&b).expect("no liquid").1[255].mclq, None);
}

#[test]
fn an_offset_to_the_wrong_sub_chunk_names_the_mcnk_field_and_tags() {
    let t = tile(0);
    let mut b = write_adt(&t).expect("write");
    let m = last_mcnk(&b);
    let ofs_normal = header(&b, m, hdr::OFS_NORMAL);
    set_header(&mut b, m, hdr::OFS_HEIGHT, ofs_normal);
    let e = read(&b).expect_err("MCVT at MCNR").to_string();
    for want in ["MCNK 255 (15, 15)", "ofsHeight", "points at MCNR, not MCVT"] {
        assert!(e.contains(want), "{want:?} missing from: {e}");
    }
    set_header(&mut b, m, hdr::OFS_HEIGHT, 0x10_0000);
    let e = read(&b).expect_err("outside").to_string();
    assert!(e.contains("ofsHeight 0x100000"), "{e}");
    // The plain reader gives the same errors.
    assert!(read_adt(&b, FILE, Some(COORD)).is_err());
}
