//! ADT v18 tiles: [`write_adt`] turns an [`AdtTile`] into the bytes of a
//! client-style `Map_x_y.adt`, [`read_adt`] parses one back with every offset
//! checked.
//!
//! File order: MVER (18), MHDR (64 bytes of offsets relative to the MHDR data),
//! MCIN (256 x {absolute MCNK offset, MCNK size incl. header, 0, 0}), MTEX,
//! empty MMDX/MMID/MWMO/MWID/MDDF/MODF, then 256 MCNKs row-major. Each MCNK is
//! the 128-byte header ([`hdr`] offsets, sub-chunk offsets relative to the
//! MCNK tag) followed by MCVT (145 f32), MCNR (145 x 3 i8, size field 435 plus
//! 13 uncounted padding bytes as in pre-Cataclysm files), MCLY (16 bytes per
//! layer), an empty MCRF and MCAL (uncompressed 8-bit 64x64 maps, 4096 bytes
//! per layer above 0; the WDT sets the big-alpha flag). The reader also
//! accepts 4-bit (2048-byte) and RLE-compressed alpha maps.

use super::bytes::{u32_of, Chunk, Out, Reader};
use super::FormatError;
use crate::world::coords::{self, ChunkCoord, TileCoord, TILE_CHUNKS};
use crate::world::{
    AdtTile, AlphaMap, Layer, Mcnk, McnkHeader, NoEffectDoodad, PredTex, ALPHA_TEXELS, MAX_LAYERS,
    MCVT_COUNT, TILE_MCNKS,
};

/// ADT/WDT version stored in MVER.
pub const VERSION: u32 = 18;
/// Size of the MCNK header.
pub const MCNK_HEADER_SIZE: usize = 128;
/// MCLY flag: the layer has an MCAL alpha map.
pub const MCLY_USE_ALPHA: u32 = 0x100;
/// MCLY flag: the alpha map is RLE-compressed.
pub const MCLY_ALPHA_COMPRESSED: u32 = 0x200;
/// MCNK flag: 4-bit alpha maps are stored complete (no last row/column fix).
pub const MCNK_DO_NOT_FIX_ALPHA: u32 = 0x8000;
/// Bytes of MCNR data counted in its size field (145 x 3).
const MCNR_SIZE: usize = MCVT_COUNT * 3;
/// Uncounted padding after MCNR data in pre-Cataclysm files.
const MCNR_PAD: usize = 13;

/// Byte offsets inside the 128-byte MCNK header (ADT v18, per wowdev).
pub mod hdr {
    /// u32 flags.
    pub const FLAGS: usize = 0x00;
    /// u32 column of the MCNK in its tile.
    pub const INDEX_X: usize = 0x04;
    /// u32 row of the MCNK in its tile.
    pub const INDEX_Y: usize = 0x08;
    /// u32 number of MCLY layers.
    pub const N_LAYERS: usize = 0x0C;
    /// u32 number of MCRF doodad references.
    pub const N_DOODAD_REFS: usize = 0x10;
    /// u32 offset of MCVT (from the MCNK tag).
    pub const OFS_HEIGHT: usize = 0x14;
    /// u32 offset of MCNR.
    pub const OFS_NORMAL: usize = 0x18;
    /// u32 offset of MCLY.
    pub const OFS_LAYER: usize = 0x1C;
    /// u32 offset of MCRF.
    pub const OFS_REFS: usize = 0x20;
    /// u32 offset of MCAL.
    pub const OFS_ALPHA: usize = 0x24;
    /// u32 size of MCAL including its 8-byte header.
    pub const SIZE_ALPHA: usize = 0x28;
    /// u32 offset of MCSH (0: none).
    pub const OFS_SHADOW: usize = 0x2C;
    /// u32 size of MCSH.
    pub const SIZE_SHADOW: usize = 0x30;
    /// u32 area id.
    pub const AREA_ID: usize = 0x34;
    /// u32 number of WMO references.
    pub const N_MAP_OBJ_REFS: usize = 0x38;
    /// u16 low-resolution hole mask.
    pub const HOLES_LOW_RES: usize = 0x3C;
    /// 16 bytes predTex: one u16 per row, 2 bits per column.
    pub const PRED_TEX: usize = 0x40;
    /// 8 bytes noEffectDoodad: one byte per row, 1 bit per column.
    pub const NO_EFFECT_DOODAD: usize = 0x50;
    /// u32 offset of MCSE.
    pub const OFS_SND_EMITTERS: usize = 0x58;
    /// u32 number of sound emitters.
    pub const N_SND_EMITTERS: usize = 0x5C;
    /// u32 offset of MCLQ.
    pub const OFS_LIQUID: usize = 0x60;
    /// u32 size of MCLQ.
    pub const SIZE_LIQUID: usize = 0x64;
    /// 3 x f32 position (x, y, z as stored).
    pub const POSITION: usize = 0x68;
    /// u32 offset of MCCV.
    pub const OFS_MCCV: usize = 0x74;
}

/// The MCLY flags sward stores for layer `index`: `USE_ALPHA` exactly on
/// layers above 0 (which always carry a map) and never `ALPHA_COMPRESSED`
/// (maps are written uncompressed); other bits as given.
pub fn stored_layer_flags(index: usize, flags: u32) -> u32 {
    let base = flags & !(MCLY_USE_ALPHA | MCLY_ALPHA_COMPRESSED);
    if index == 0 {
        base
    } else {
        base | MCLY_USE_ALPHA
    }
}

/// Serialises `tile` as an ADT v18 file. The tile must pass
/// [`AdtTile::validate`].
pub fn write_adt(tile: &AdtTile) -> Result<Vec<u8>, FormatError> {
    let what = format!("ADT tile ({}, {})", tile.coord.x, tile.coord.y);
    tile.validate().map_err(|e| FormatError::Unwritable {
        what: what.clone(),
        reason: e.to_string(),
    })?;
    if let Some(t) = tile.textures.iter().find(|t| t.contains('\0')) {
        return Err(FormatError::Unwritable {
            what,
            reason: format!("texture name {t:?} contains NUL"),
        });
    }
    let mut o = Out::default();
    o.chunk(b"MVER", |o| o.u32(VERSION));
    let mhdr = o.chunk(b"MHDR", |o| o.zeros(64));
    let mhdr_data = mhdr + 8;
    let mcin = o.chunk(b"MCIN", |o| o.zeros(TILE_MCNKS * 16));
    let mtex = o.chunk(b"MTEX", |o| {
        for t in &tile.textures {
            o.bytes(t.as_bytes());
            o.bytes(&[0]);
        }
    });
    let mut rel = vec![mcin - mhdr_data, mtex - mhdr_data];
    for tag in [b"MMDX", b"MMID", b"MWMO", b"MWID", b"MDDF", b"MODF"] {
        rel.push(o.chunk(tag, |_| {}) - mhdr_data);
    }
    for (i, r) in rel.iter().enumerate() {
        o.patch_u32(mhdr_data + 4 + 4 * i, u32_of(*r));
    }
    for (i, m) in tile.mcnks.iter().enumerate() {
        let start = write_mcnk(&mut o, m);
        let size = o.pos() - start;
        o.patch_u32(mcin + 8 + 16 * i, u32_of(start));
        o.patch_u32(mcin + 8 + 16 * i + 4, u32_of(size));
    }
    Ok(o.buf)
}

fn write_mcnk(o: &mut Out, m: &Mcnk) -> usize {
    let h = &m.header;
    let start = o.pos();
    let hs = start + 8;
    o.chunk(b"MCNK", |o| {
        o.zeros(MCNK_HEADER_SIZE);
        let put = |o: &mut Out, at: usize, v: u32| o.patch_u32(hs + at, v);
        put(o, hdr::FLAGS, h.flags);
        put(o, hdr::INDEX_X, h.index_x);
        put(o, hdr::INDEX_Y, h.index_y);
        put(o, hdr::N_LAYERS, m.n_layers());
        o.buf[hs + hdr::HOLES_LOW_RES..hs + hdr::HOLES_LOW_RES + 2]
            .copy_from_slice(&h.holes_low_res.to_le_bytes());
        o.buf[hs + hdr::PRED_TEX..hs + hdr::PRED_TEX + 16].copy_from_slice(&h.pred_tex.to_bytes());
        o.buf[hs + hdr::NO_EFFECT_DOODAD..hs + hdr::NO_EFFECT_DOODAD + 8]
            .copy_from_slice(&h.no_effect_doodad.0);
        for (k, p) in h.position.iter().enumerate() {
            put(o, hdr::POSITION + 4 * k, p.to_bits());
        }
        let rel = |o: &Out| u32_of(o.pos() - start);
        let ofs = rel(o);
        put(o, hdr::OFS_HEIGHT, ofs);
        o.chunk(b"MCVT", |o| m.heights.iter().for_each(|v| o.f32(*v)));
        let ofs = rel(o);
        put(o, hdr::OFS_NORMAL, ofs);
        let mcnr = o.chunk(b"MCNR", |o| {
            m.normals.iter().for_each(|n| o.bytes(&n.map(|c| c as u8)))
        });
        debug_assert_eq!(o.pos() - mcnr, 8 + MCNR_SIZE);
        o.zeros(MCNR_PAD);
        let ofs = rel(o);
        put(o, hdr::OFS_LAYER, ofs);
        o.chunk(b"MCLY", |o| {
            for (k, l) in m.layers.iter().enumerate() {
                o.u32(l.texture_id);
                o.u32(stored_layer_flags(k, l.flags));
                o.u32(u32_of(k.saturating_sub(1) * ALPHA_TEXELS));
                o.u32(l.effect_id);
            }
        });
        let ofs = rel(o);
        put(o, hdr::OFS_REFS, ofs);
        o.chunk(b"MCRF", |_| {});
        let ofs = rel(o);
        put(o, hdr::OFS_ALPHA, ofs);
        let mcal = o.chunk(b"MCAL", |o| {
            for a in m.layers.iter().skip(1).filter_map(|l| l.alpha.as_ref()) {
                o.bytes(&a.0[..]);
            }
        });
        let size = u32_of(o.pos() - mcal);
        put(o, hdr::SIZE_ALPHA, size);
    });
    start
}

/// Parses an ADT v18 file named `file`. `coord` is the tile the file is for
/// (from its name or the WDT); `None` derives it from the MCNK positions.
/// Every MCNK position must lie on the grid of that tile (within half a unit).
pub fn read_adt(data: &[u8], file: &str, coord: Option<TileCoord>) -> Result<AdtTile, FormatError> {
    read_adt_with(data, file, coord, None)
}

/// [`read_adt`] with the alpha depth the map's WDT gives: `Some(true)` when
/// MPHD has the big-alpha flag (every uncompressed map is 8-bit, 4096
/// bytes), `Some(false)` when it has not (4-bit, 2048 bytes, unless MCLY
/// flag 0x200 marks a compressed map), `None` to tell them apart by the
/// space each map has in MCAL.
pub fn read_adt_with(
    data: &[u8],
    file: &str,
    coord: Option<TileCoord>,
    big_alpha: Option<bool>,
) -> Result<AdtTile, FormatError> {
    let r = Reader::new(data, file);
    let mver = r.expect_chunk("file", 0, b"MVER")?;
    let version = r.u32("MVER", mver.data)?;
    if version != VERSION {
        return Err(FormatError::Unsupported {
            file: file.to_owned(),
            what: format!("ADT version {version} (only 18 is read)"),
        });
    }
    let mhdr = r.expect_chunk("file", mver.end(), b"MHDR")?;
    if mhdr.size < 0x2C {
        return Err(r.err("MHDR", mhdr.offset, format!("size {} < 44", mhdr.size)));
    }
    let at = |field: usize| -> Result<usize, FormatError> {
        let rel = r.u32("MHDR", mhdr.data + field)? as usize;
        Ok(mhdr.data + rel)
    };
    let mcin = r.expect_chunk("MHDR.ofsMCIN", at(0x04)?, b"MCIN")?;
    if mcin.size < TILE_MCNKS * 16 {
        return Err(r.err("MCIN", mcin.offset, format!("size {} < 4096", mcin.size)));
    }
    let mtex = r.expect_chunk("MHDR.ofsMTEX", at(0x08)?, b"MTEX")?;
    let textures = read_mtex(&r, &mtex)?;
    let mut slots: Vec<Option<Mcnk>> = vec![None; TILE_MCNKS];
    for i in 0..TILE_MCNKS {
        let entry = mcin.data + 16 * i;
        let ofs = r.u32("MCIN", entry)? as usize;
        let c = r.expect_chunk(&format!("MCIN entry {i}"), ofs, b"MCNK")?;
        let m = read_mcnk(&r, &c, textures.len(), big_alpha)?;
        let (ix, iy) = (m.header.index_x, m.header.index_y);
        let slot = (iy * TILE_CHUNKS + ix) as usize;
        if slots[slot].is_some() {
            return Err(r.err(
                "MCNK",
                c.offset,
                format!("index ({ix}, {iy}) appears twice"),
            ));
        }
        slots[slot] = Some(m);
    }
    let mcnks: Vec<Mcnk> = slots.into_iter().flatten().collect();
    let coord = match coord {
        Some(c) => c,
        None => derive_coord(&r, &mcnks)?,
    };
    for m in &mcnks {
        let want = ChunkCoord::from_tile(coord, m.header.index_x, m.header.index_y).origin();
        let p = m.header.position;
        if (p[0] as f64 - want[0]).abs() > 0.5 || (p[1] as f64 - want[1]).abs() > 0.5 {
            return Err(r.err(
                "MCNK.position",
                0,
                format!(
                    "MCNK ({}, {}) position ({}, {}) is not on tile ({}, {}) (expected ({:.3}, {:.3}))",
                    m.header.index_x, m.header.index_y, p[0], p[1], coord.x, coord.y, want[0], want[1]
                ),
            ));
        }
    }
    let tile = AdtTile {
        coord,
        textures,
        mcnks,
    };
    tile.validate().map_err(|source| FormatError::World {
        file: file.to_owned(),
        source,
    })?;
    Ok(tile)
}

fn derive_coord(r: &Reader<'_>, mcnks: &[Mcnk]) -> Result<TileCoord, FormatError> {
    let m = mcnks.first().ok_or_else(|| r.err("MCIN", 0, "no MCNK"))?;
    let p = m.header.position;
    let tx =
        ((coords::ORIGIN - p[1] as f64) / coords::CHUNK_SIZE).round() - m.header.index_x as f64;
    let ty =
        ((coords::ORIGIN - p[0] as f64) / coords::CHUNK_SIZE).round() - m.header.index_y as f64;
    let (tx, ty) = (tx / TILE_CHUNKS as f64, ty / TILE_CHUNKS as f64);
    let c = TileCoord::new(tx as u32, ty as u32);
    if !(tx >= 0.0 && ty >= 0.0 && tx.fract() == 0.0 && ty.fract() == 0.0 && c.is_valid()) {
        return Err(r.err(
            "MCNK.position",
            0,
            format!("position ({}, {}) is not on the world grid", p[0], p[1]),
        ));
    }
    Ok(c)
}

fn read_mtex(r: &Reader<'_>, c: &Chunk) -> Result<Vec<String>, FormatError> {
    let block = r.bytes("MTEX", c.data, c.size)?;
    let mut out = Vec::new();
    let mut at = 0;
    while at < block.len() {
        let s = r.cstr("MTEX", c.data + at, c.end())?;
        at += s.len() + 1;
        out.push(s.to_owned());
    }
    Ok(out)
}

/// A sub-chunk of `mcnk` at header offset field `field`, with its tag checked
/// and at least `min_size` bytes of data.
fn sub_chunk(
    r: &Reader<'_>,
    mcnk: &Chunk,
    field: usize,
    tag: &[u8; 4],
    min_size: usize,
) -> Result<Chunk, FormatError> {
    let ofs = r.u32("MCNK", mcnk.data + field)? as usize;
    let at = mcnk.offset + ofs;
    if ofs < 8 + MCNK_HEADER_SIZE || at >= mcnk.end() {
        return Err(r.err(
            "MCNK",
            mcnk.data + field,
            format!(
                "{} offset {ofs:#x} is outside the MCNK (size {:#x})",
                super::bytes::tag_name(*tag),
                mcnk.size
            ),
        ));
    }
    let c = r.expect_chunk("MCNK", at, tag)?;
    if c.size < min_size {
        return Err(r.err(
            &super::bytes::tag_name(*tag),
            c.offset,
            format!("size {} < {min_size}", c.size),
        ));
    }
    // MCNR's padding is not counted in its size, so only the counted data must fit.
    if c.end() > mcnk.end() {
        return Err(r.err(
            &super::bytes::tag_name(*tag),
            c.offset,
            "runs past the end of its MCNK",
        ));
    }
    Ok(c)
}

fn read_mcnk(
    r: &Reader<'_>,
    c: &Chunk,
    n_textures: usize,
    big_alpha: Option<bool>,
) -> Result<Mcnk, FormatError> {
    if c.size < MCNK_HEADER_SIZE {
        return Err(r.err("MCNK", c.offset, format!("size {} < 128", c.size)));
    }
    let h = c.data;
    let index_x = r.u32("MCNK", h + hdr::INDEX_X)?;
    let index_y = r.u32("MCNK", h + hdr::INDEX_Y)?;
    if index_x >= TILE_CHUNKS || index_y >= TILE_CHUNKS {
        return Err(r.err(
            "MCNK",
            h + hdr::INDEX_X,
            format!("index ({index_x}, {index_y}) out of range"),
        ));
    }
    let n_layers = r.u32("MCNK", h + hdr::N_LAYERS)? as usize;
    if n_layers > MAX_LAYERS {
        return Err(r.err(
            "MCNK",
            h + hdr::N_LAYERS,
            format!("{n_layers} layers (at most {MAX_LAYERS})"),
        ));
    }
    let header = McnkHeader {
        flags: r.u32("MCNK", h + hdr::FLAGS)?,
        index_x,
        index_y,
        position: r.vec3("MCNK", h + hdr::POSITION)?,
        holes_low_res: r.u16("MCNK", h + hdr::HOLES_LOW_RES)?,
        pred_tex: PredTex::from_bytes(r.array("MCNK", h + hdr::PRED_TEX)?),
        no_effect_doodad: NoEffectDoodad(r.array("MCNK", h + hdr::NO_EFFECT_DOODAD)?),
    };
    let mcvt = sub_chunk(r, c, hdr::OFS_HEIGHT, b"MCVT", MCVT_COUNT * 4)?;
    let mut heights = [0f32; MCVT_COUNT];
    for (i, v) in heights.iter_mut().enumerate() {
        *v = r.f32("MCVT", mcvt.data + 4 * i)?;
    }
    let mcnr = sub_chunk(r, c, hdr::OFS_NORMAL, b"MCNR", MCNR_SIZE)?;
    let raw = r.bytes("MCNR", mcnr.data, MCNR_SIZE)?;
    let mut normals = [[0i8; 3]; MCVT_COUNT];
    for (n, b) in normals.iter_mut().zip(raw.chunks_exact(3)) {
        *n = [b[0] as i8, b[1] as i8, b[2] as i8];
    }
    let mut layers = Vec::with_capacity(n_layers);
    if n_layers > 0 {
        let mcly = sub_chunk(r, c, hdr::OFS_LAYER, b"MCLY", n_layers * 16)?;
        let entries: Vec<[u32; 4]> = (0..n_layers)
            .map(|k| {
                let e = mcly.data + 16 * k;
                Ok([
                    r.u32("MCLY", e)?,
                    r.u32("MCLY", e + 4)?,
                    r.u32("MCLY", e + 8)?,
                    r.u32("MCLY", e + 12)?,
                ])
            })
            .collect::<Result<_, FormatError>>()?;
        let mcal = if n_layers > 1 {
            Some(sub_chunk(r, c, hdr::OFS_ALPHA, b"MCAL", 0)?)
        } else {
            None
        };
        for (k, e) in entries.iter().enumerate() {
            let [texture_id, flags, ofs_alpha, effect_id] = *e;
            if texture_id as usize >= n_textures {
                return Err(r.err(
                    "MCLY",
                    mcly.data + 16 * k,
                    format!("layer {k} texture {texture_id} but MTEX has {n_textures} names"),
                ));
            }
            let alpha = match (&mcal, k) {
                (_, 0) => None,
                (Some(mcal), _) => {
                    if flags & MCLY_USE_ALPHA == 0 {
                        return Err(r.err(
                            "MCLY",
                            mcly.data + 16 * k + 4,
                            format!("layer {k} has no alpha map (flag 0x100 clear)"),
                        ));
                    }
                    let next = entries
                        .get(k + 1)
                        .map_or(mcal.size, |n| (n[2] as usize).min(mcal.size));
                    Some(super::adt_alpha::read_alpha(
                        r,
                        mcal,
                        ofs_alpha as usize,
                        next,
                        big_alpha,
                        flags & MCLY_ALPHA_COMPRESSED != 0,
                        header.flags & MCNK_DO_NOT_FIX_ALPHA != 0,
                    )?)
                }
                (None, _) => None,
            };
            layers.push(Layer {
                texture_id,
                flags,
                effect_id,
                alpha: alpha.map(AlphaMap),
            });
        }
    }
    Ok(Mcnk {
        header,
        heights,
        normals,
        layers,
    })
}
