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
//!
//! The reader finds an MCNK's sub-chunks as the client does: through the
//! MCNK header's offsets (relative to the MCNK's tag) and sizes, never by
//! walking the sub-chunks' own size fields ([`read_adt_layouts`],
//! [`McnkLayout`]). MCAL's extent comes from the header's `sizeAlpha` where
//! MCAL's size field disagrees, and each layer's map ends where the next
//! layer's map begins. MCSH, MCLQ and MCSE are located (and checked) only
//! where the header says the MCNK has them; their contents are not used.

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
/// MCNK flag: the MCNK has an MCSH shadow map.
pub const MCNK_HAS_MCSH: u32 = 0x1;
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
    read_adt_layouts(data, file, coord, big_alpha).map(|(tile, _)| tile)
}

/// [`read_adt_with`], also returning where each MCNK's sub-chunks lie (in
/// the order of the tile's MCNKs, row-major).
///
/// Sub-chunks are found as the client finds them: through the MCNK header's
/// offsets (relative to the MCNK's tag) and sizes, not by walking the
/// sub-chunks' own size fields (MCNR's size field leaves out its 13 padding
/// bytes in pre-Cataclysm files; some files carry an MCAL size field far
/// below the header's `sizeAlpha`). See [`McnkLayout`]. Where the header and
/// the data cannot both be right, the error names the MCNK (file index and
/// `(index_x, index_y)`), the header field and both values.
pub fn read_adt_layouts(
    data: &[u8],
    file: &str,
    coord: Option<TileCoord>,
    big_alpha: Option<bool>,
) -> Result<(AdtTile, Vec<McnkLayout>), FormatError> {
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
    let mut slots: Vec<Option<(Mcnk, McnkLayout)>> = vec![None; TILE_MCNKS];
    for i in 0..TILE_MCNKS {
        let entry = mcin.data + 16 * i;
        let ofs = r.u32("MCIN", entry)? as usize;
        let c = r.expect_chunk(&format!("MCIN entry {i}"), ofs, b"MCNK")?;
        let (m, layout) = read_mcnk(&r, &c, i, textures.len(), big_alpha)?;
        let (ix, iy) = (m.header.index_x, m.header.index_y);
        let slot = (iy * TILE_CHUNKS + ix) as usize;
        if slots[slot].is_some() {
            return Err(r.err(
                "MCNK",
                c.offset,
                format!("index ({ix}, {iy}) appears twice"),
            ));
        }
        slots[slot] = Some((m, layout));
    }
    let (mcnks, layouts): (Vec<Mcnk>, Vec<McnkLayout>) = slots.into_iter().flatten().unzip();
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
        tileset: Vec::new(),
    };
    tile.validate().map_err(|source| FormatError::World {
        file: file.to_owned(),
        source,
    })?;
    Ok((tile, layouts))
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

/// Where one sub-chunk of an MCNK lies: the offset of its tag from the MCNK's
/// tag (the header's offset field) and the bytes of data read from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Span {
    /// Offset of the sub-chunk's tag from the MCNK's tag.
    pub offset: u32,
    /// Bytes of data (after the sub-chunk's 8-byte header) that belong to it.
    pub size: u32,
}

/// The sub-chunks of one MCNK as its header locates them (the client's
/// rule: the header's offsets and sizes, never the sub-chunks' own size
/// fields). `None`: the header says the MCNK has none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct McnkLayout {
    /// MCVT (145 heights, 580 bytes).
    pub mcvt: Span,
    /// MCNR (145 normals, 435 bytes; pre-Cataclysm files pad it with 13
    /// bytes its size field does not count).
    pub mcnr: Span,
    /// MCLY (16 bytes per layer); `None` without layers.
    pub mcly: Option<Span>,
    /// MCAL, its extent reconciled with the header's `sizeAlpha`; `None`
    /// with fewer than two layers.
    pub mcal: Option<Span>,
    /// MCSH (baked shadow), when flag 0x1, `ofsShadow` and `sizeShadow` say
    /// there is one.
    pub mcsh: Option<Span>,
    /// MCLQ (pre-3.x water), when `ofsLiquid` is set and `sizeLiquid`
    /// (which counts MCLQ's 8-byte header) is above 8.
    pub mclq: Option<Span>,
    /// MCSE (sound emitters), when `ofsSndEmitters` and `nSndEmitters` are
    /// set.
    pub mcse: Option<Span>,
}

/// One MCNK being read: the reader, the chunk, its place in the file and
/// its indices, for errors that name it.
struct McnkCtx<'r, 'a> {
    r: &'r Reader<'a>,
    c: Chunk,
    /// Position in the MCIN (file order).
    index: usize,
    x: u32,
    y: u32,
}

impl McnkCtx<'_, '_> {
    fn err(&self, offset: usize, reason: impl Into<String>) -> FormatError {
        self.r.err(
            &format!("MCNK {} ({}, {})", self.index, self.x, self.y),
            offset,
            reason,
        )
    }

    fn header_u32(&self, field: usize) -> Result<u32, FormatError> {
        self.r.u32("MCNK", self.c.data + field)
    }

    /// Bytes from `data` to the end of the MCNK (0 when `data` is past it).
    fn room(&self, data: usize) -> usize {
        self.c.end().saturating_sub(data)
    }

    /// The sub-chunk at header offset field `field` (named `name`): its tag
    /// must be `tag` and its 8-byte header must lie inside the MCNK. Returns
    /// the file offset of the tag and the sub-chunk's own size field (which
    /// the caller reconciles with the header, or ignores as the client does).
    fn locate(&self, field: usize, name: &str, tag: &[u8; 4]) -> Result<(usize, u32), FormatError> {
        let ofs = self.header_u32(field)? as usize;
        let at = self.c.offset.saturating_add(ofs);
        let first = 8 + MCNK_HEADER_SIZE;
        if ofs < first || at.saturating_add(8) > self.c.end() {
            return Err(self.err(
                self.c.data + field,
                format!(
                    "{name} {ofs:#x} but the MCNK's sub-chunks lie at {first:#x}..{:#x} (MCNK size {:#x})",
                    8 + self.c.size,
                    self.c.size
                ),
            ));
        }
        let raw: [u8; 4] = self.r.array("MCNK", at)?;
        let found = [raw[3], raw[2], raw[1], raw[0]];
        if &found != tag {
            return Err(self.err(
                at,
                format!(
                    "{name} {ofs:#x} points at {}, not {}",
                    super::bytes::tag_name(found),
                    super::bytes::tag_name(*tag)
                ),
            ));
        }
        Ok((at, self.r.u32("MCNK", at + 4)?))
    }

    /// Checks that `want` bytes of data after the sub-chunk header at `at`
    /// lie inside the MCNK (`what` names the claim for the error).
    fn fits(&self, at: usize, want: usize, what: &str) -> Result<Span, FormatError> {
        let room = self.room(at + 8);
        if want > room {
            return Err(self.err(
                at,
                format!(
                    "{what} is {want} bytes but the MCNK ends {room} bytes after the sub-chunk's header"
                ),
            ));
        }
        Ok(self.span(at, want))
    }

    fn span(&self, at: usize, size: usize) -> Span {
        Span {
            offset: u32_of(at - self.c.offset),
            size: u32_of(size),
        }
    }

    /// A sub-chunk the reader needs: located through the header, with a
    /// fixed extent `want` (the sub-chunk's own size field is not used).
    fn fixed(
        &self,
        field: usize,
        name: &str,
        tag: &[u8; 4],
        want: usize,
    ) -> Result<Span, FormatError> {
        let (at, _) = self.locate(field, name, tag)?;
        self.fits(
            at,
            want,
            &format!(
                "{} (at {name} {:#x})",
                super::bytes::tag_name(*tag),
                at - self.c.offset
            ),
        )
    }

    /// MCAL: located through `ofsAlpha`; its extent reconciled with
    /// `sizeAlpha`. Files in the wild count `sizeAlpha` with MCAL's 8-byte
    /// header (the usual case) or without it, and some carry an MCAL size
    /// field that disagrees with both (too small). The client reads each map
    /// at its layer's offset and checks neither, so: when the size field
    /// agrees with `sizeAlpha` (either convention) it is the extent;
    /// otherwise `sizeAlpha` is (taken without the header, cut at the MCNK's
    /// end, which only the 8 bytes of the other convention may reach). A
    /// `sizeAlpha` whose smaller reading still runs past the MCNK's end, with
    /// a size field that disagrees, cannot be right together with the data:
    /// an error naming both.
    fn mcal(&self) -> Result<Span, FormatError> {
        let (at, own) = self.locate(hdr::OFS_ALPHA, "ofsAlpha", b"MCAL")?;
        let own = own as usize;
        let size_alpha = self.header_u32(hdr::SIZE_ALPHA)? as usize;
        let room = self.room(at + 8);
        let agrees = own + 8 == size_alpha || own == size_alpha;
        if agrees && own <= room {
            return Ok(self.span(at, own));
        }
        let smallest = size_alpha.saturating_sub(8);
        if smallest > room || (size_alpha < 8 && own > room) {
            return Err(self.err(
                self.c.data + hdr::SIZE_ALPHA,
                format!(
                    "sizeAlpha {size_alpha} and the MCAL size field {own} disagree, and the MCNK ends {room} bytes after MCAL's header (at ofsAlpha {:#x})",
                    at - self.c.offset
                ),
            ));
        }
        // The size field is the one that disagrees: sizeAlpha decides, or
        // the size field where sizeAlpha is below MCAL's own header.
        let extent = if size_alpha < 8 {
            own
        } else {
            size_alpha.min(room)
        };
        Ok(self.span(at, extent))
    }

    /// An optional sub-chunk: located only when `present`; its extent `want`
    /// comes from the header.
    fn optional(
        &self,
        present: bool,
        field: usize,
        name: &str,
        tag: &[u8; 4],
        want: impl FnOnce(u32) -> usize,
        what: &str,
    ) -> Result<Option<Span>, FormatError> {
        if !present {
            return Ok(None);
        }
        let (at, own) = self.locate(field, name, tag)?;
        self.fits(at, want(own), what).map(Some)
    }

    /// The MCNK's layout (see [`McnkLayout`]).
    fn layout(&self, n_layers: usize, flags: u32) -> Result<McnkLayout, FormatError> {
        let mcvt = self.fixed(hdr::OFS_HEIGHT, "ofsHeight", b"MCVT", MCVT_COUNT * 4)?;
        let mcnr = self.fixed(hdr::OFS_NORMAL, "ofsNormal", b"MCNR", MCNR_SIZE)?;
        let mcly = if n_layers > 0 {
            Some(self.fixed(hdr::OFS_LAYER, "ofsLayer", b"MCLY", n_layers * 16)?)
        } else {
            None
        };
        let mcal = if n_layers > 1 {
            Some(self.mcal()?)
        } else {
            None
        };
        let size_shadow = self.header_u32(hdr::SIZE_SHADOW)?;
        let mcsh = self.optional(
            flags & MCNK_HAS_MCSH != 0
                && self.header_u32(hdr::OFS_SHADOW)? != 0
                && size_shadow != 0,
            hdr::OFS_SHADOW,
            "ofsShadow",
            b"MCSH",
            |_| size_shadow as usize,
            &format!("sizeShadow {size_shadow}"),
        )?;
        let size_liquid = self.header_u32(hdr::SIZE_LIQUID)?;
        let mclq = self.optional(
            self.header_u32(hdr::OFS_LIQUID)? != 0 && size_liquid > 8,
            hdr::OFS_LIQUID,
            "ofsLiquid",
            b"MCLQ",
            |_| size_liquid as usize - 8,
            &format!("sizeLiquid {size_liquid} (less MCLQ's header)"),
        )?;
        let n_sound = self.header_u32(hdr::N_SND_EMITTERS)?;
        let mcse = self.optional(
            self.header_u32(hdr::OFS_SND_EMITTERS)? != 0 && n_sound != 0,
            hdr::OFS_SND_EMITTERS,
            "ofsSndEmitters",
            b"MCSE",
            |own| own as usize,
            &format!("MCSE's data ({n_sound} emitters)"),
        )?;
        Ok(McnkLayout {
            mcvt,
            mcnr,
            mcly,
            mcal,
            mcsh,
            mclq,
            mcse,
        })
    }
}

fn read_mcnk(
    r: &Reader<'_>,
    c: &Chunk,
    index: usize,
    n_textures: usize,
    big_alpha: Option<bool>,
) -> Result<(Mcnk, McnkLayout), FormatError> {
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
    let ctx = McnkCtx {
        r,
        c: *c,
        index,
        x: index_x,
        y: index_y,
    };
    let layout = ctx.layout(n_layers, header.flags)?;
    let data_of = |s: Span| c.offset + s.offset as usize + 8;
    let mut heights = [0f32; MCVT_COUNT];
    let mcvt = data_of(layout.mcvt);
    for (i, v) in heights.iter_mut().enumerate() {
        *v = r.f32("MCVT", mcvt + 4 * i)?;
    }
    let raw = r.bytes("MCNR", data_of(layout.mcnr), MCNR_SIZE)?;
    let mut normals = [[0i8; 3]; MCVT_COUNT];
    for (n, b) in normals.iter_mut().zip(raw.chunks_exact(3)) {
        *n = [b[0] as i8, b[1] as i8, b[2] as i8];
    }
    let mut layers = Vec::with_capacity(n_layers);
    if let Some(mcly) = layout.mcly {
        let mcly = data_of(mcly);
        let entries: Vec<[u32; 4]> = (0..n_layers)
            .map(|k| {
                let e = mcly + 16 * k;
                Ok([
                    r.u32("MCLY", e)?,
                    r.u32("MCLY", e + 4)?,
                    r.u32("MCLY", e + 8)?,
                    r.u32("MCLY", e + 12)?,
                ])
            })
            .collect::<Result<_, FormatError>>()?;
        let mcal = layout.mcal.map(|s| Chunk {
            tag: *b"MCAL",
            offset: c.offset + s.offset as usize,
            data: data_of(s),
            size: s.size as usize,
        });
        for (k, e) in entries.iter().enumerate() {
            let [texture_id, flags, ofs_alpha, effect_id] = *e;
            if texture_id as usize >= n_textures {
                return Err(r.err(
                    "MCLY",
                    mcly + 16 * k,
                    format!("layer {k} texture {texture_id} but MTEX has {n_textures} names"),
                ));
            }
            let alpha = match (&mcal, k) {
                (_, 0) => None,
                (Some(mcal), _) => {
                    if flags & MCLY_USE_ALPHA == 0 {
                        return Err(r.err(
                            "MCLY",
                            mcly + 16 * k + 4,
                            format!("layer {k} has no alpha map (flag 0x100 clear)"),
                        ));
                    }
                    // A map ends where the next layer's map begins (or at
                    // the end of MCAL).
                    let next = entries
                        .get(k + 1)
                        .map_or(mcal.size, |n| (n[2] as usize).min(mcal.size));
                    let end = if next > ofs_alpha as usize {
                        next
                    } else {
                        mcal.size
                    };
                    let view = Chunk { size: end, ..*mcal };
                    Some(super::adt_alpha::read_alpha(
                        r,
                        &view,
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
    Ok((
        Mcnk {
            header,
            heights,
            normals,
            layers,
        },
        layout,
    ))
}
