//! The reports behind `sward inspect wdt|wdl|dbc|m2|blp FILE`: each file is
//! parsed with the same reader the loader uses, and summarised as JSON (the
//! CLI's `--json` contract) or text. [`read_input`] takes FILE as a file on
//! disk or, failing that, as an archive path inside a [`DataSource`].

use std::fmt::Write as _;

use super::source::{DataFile, DataSource};
use super::{blp, dbc, m2, wdl, wdt, FormatError};
use crate::world::coords::TileCoord;

/// The bytes of `file`: a file on disk when one exists at that path,
/// otherwise the file at that archive path in `data` (loose files and
/// archives). An error names the file when neither has it.
pub fn read_input(data: Option<&DataSource>, file: &str) -> Result<DataFile, FormatError> {
    let p = std::path::Path::new(file);
    if p.is_file() {
        let bytes = std::fs::read(p).map_err(|source| FormatError::Io {
            file: file.to_owned(),
            source,
        })?;
        return Ok(DataFile {
            bytes,
            name: file.to_owned(),
        });
    }
    match data {
        Some(src) => src.require(file),
        None => Err(FormatError::Io {
            file: file.to_owned(),
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no such file (give --data DIR to look inside a client's archives)",
            ),
        }),
    }
}

/// `sward inspect wdt`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WdtReport {
    /// Where the file came from.
    pub file: String,
    /// MPHD flags.
    pub flags: u32,
    /// MPHD flag 0x4: ADT alpha maps are 8-bit.
    pub big_alpha: bool,
    /// Tiles with an ADT, `[x, y]`, sorted by row then column.
    pub tiles: Vec<[u32; 2]>,
}

/// Parses a WDT.
pub fn inspect_wdt(f: &DataFile) -> Result<WdtReport, FormatError> {
    let info = wdt::read_wdt(&f.bytes, &f.name)?;
    Ok(WdtReport {
        file: f.name.clone(),
        flags: info.flags,
        big_alpha: info.flags & wdt::MPHD_BIG_ALPHA != 0,
        tiles: info.tiles.iter().map(|t: &TileCoord| [t.x, t.y]).collect(),
    })
}

impl WdtReport {
    /// A readable summary.
    pub fn text(&self) -> String {
        let mut s = format!(
            "{}: WDT, MPHD flags {:#x} ({}-bit alpha maps), {} ADT tiles\n",
            self.file,
            self.flags,
            if self.big_alpha { 8 } else { 4 },
            self.tiles.len()
        );
        write_tile_range(&mut s, &self.tiles);
        s
    }
}

/// The line naming the range of `tiles` (`[x, y]`), when there are any.
fn write_tile_range(s: &mut String, tiles: &[[u32; 2]]) {
    let xs = tiles.iter().map(|t| t[0]);
    let ys = tiles.iter().map(|t| t[1]);
    if let (Some(x0), Some(x1), Some(y0), Some(y1)) =
        (xs.clone().min(), xs.max(), ys.clone().min(), ys.max())
    {
        let _ = writeln!(s, "  tiles x {x0}..={x1}, y {y0}..={y1}");
    }
}

/// `sward inspect wdl`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WdlReport {
    /// Where the file came from.
    pub file: String,
    /// MVER version (the reader accepts only 18).
    pub version: u32,
    /// Tiles with a MARE, `[x, y]`, sorted by row then column.
    pub tiles: Vec<[u32; 2]>,
    /// Smallest height of any tile (`None` without tiles).
    pub min_height: Option<i16>,
    /// Largest height of any tile.
    pub max_height: Option<i16>,
    /// Tiles followed by a MAHO chunk.
    pub tiles_with_maho: usize,
    /// MCNKs marked as holes in all MAHO chunks together.
    pub holes: u32,
}

/// Parses a WDL.
pub fn inspect_wdl(f: &DataFile) -> Result<WdlReport, FormatError> {
    let w = wdl::read_wdl(&f.bytes, &f.name)?;
    let ranges: Vec<(i16, i16)> = w.tiles().map(|(_, t)| t.range()).collect();
    Ok(WdlReport {
        file: f.name.clone(),
        version: wdl::VERSION,
        tiles: w.tiles().map(|(c, _)| [c.x, c.y]).collect(),
        min_height: ranges.iter().map(|r| r.0).min(),
        max_height: ranges.iter().map(|r| r.1).max(),
        tiles_with_maho: w.tiles().filter(|(_, t)| t.holes.is_some()).count(),
        holes: w.tiles().map(|(_, t)| t.hole_count()).sum(),
    })
}

impl WdlReport {
    /// A readable summary.
    pub fn text(&self) -> String {
        let mut s = format!(
            "{}: WDL version {}, {} tiles with heights, {} with MAHO, {} hole MCNKs\n",
            self.file,
            self.version,
            self.tiles.len(),
            self.tiles_with_maho,
            self.holes
        );
        if let (Some(lo), Some(hi)) = (self.min_height, self.max_height) {
            let _ = writeln!(s, "  heights {lo}..={hi}");
        }
        write_tile_range(&mut s, &self.tiles);
        s
    }
}

/// `sward inspect dbc`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DbcReport {
    /// Where the file came from.
    pub file: String,
    /// Records.
    pub records: u32,
    /// 32-bit fields per record.
    pub fields: u32,
    /// String block size in bytes.
    pub string_block: usize,
    /// The first (up to 16) records as u32 fields.
    pub first_records: Vec<Vec<u32>>,
}

/// Parses a WDBC table.
pub fn inspect_dbc(f: &DataFile) -> Result<DbcReport, FormatError> {
    let t = dbc::read_dbc(&f.bytes, &f.name)?;
    let n = t.field_count as usize;
    let first_records = (0..(t.record_count as usize).min(16))
        .map(|r| t.rows[r * n..(r + 1) * n].to_vec())
        .collect();
    Ok(DbcReport {
        file: f.name.clone(),
        records: t.record_count,
        fields: t.field_count,
        string_block: t.strings.len(),
        first_records,
    })
}

impl DbcReport {
    /// A readable summary.
    pub fn text(&self) -> String {
        let mut s = format!(
            "{}: WDBC, {} records x {} fields, {}-byte string block\n",
            self.file, self.records, self.fields, self.string_block
        );
        for r in &self.first_records {
            let f: Vec<String> = r.iter().map(u32::to_string).collect();
            let _ = writeln!(s, "  {}", f.join(" "));
        }
        s
    }
}

/// `sward inspect m2`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct M2Report {
    /// Where the file came from.
    pub file: String,
    /// Where its view came from (the `.skin` file of version 264).
    pub skin: Option<String>,
    /// Header version.
    pub version: u32,
    /// Model name.
    pub name: String,
    /// Vertex count.
    pub vertices: usize,
    /// Triangles of the first view.
    pub triangles: usize,
    /// Bone count.
    pub bones: u32,
    /// Texture file names.
    pub textures: Vec<String>,
    /// First material's render flags.
    pub render_flags: u16,
    /// First material's blend mode.
    pub blend_mode: u16,
    /// Bounding box min.
    pub bounds_min: [f32; 3],
    /// Bounding box max.
    pub bounds_max: [f32; 3],
}

/// Parses an M2; `skin` fetches the `.skin` file of a version-264 model by
/// archive path (or path beside the file).
pub fn inspect_m2(
    f: &DataFile,
    skin: impl FnOnce(&str) -> Result<Option<DataFile>, FormatError>,
) -> Result<M2Report, FormatError> {
    let mut skin_name = None;
    let m = m2::read_m2_with_skin(&f.bytes, &f.name, &f.name, |p| {
        let s = skin(p)?;
        skin_name = s.as_ref().map(|s| s.name.clone());
        Ok(s)
    })?
    .map_err(|skin| FormatError::DataDir {
        dir: f.name.clone(),
        reason: format!("missing skin file {skin}"),
    })?;
    Ok(M2Report {
        file: f.name.clone(),
        skin: skin_name,
        version: m.version,
        name: m.name,
        vertices: m.vertices.len(),
        triangles: m.indices.len() / 3,
        bones: m.bones,
        textures: m.textures,
        render_flags: m.render_flags,
        blend_mode: m.blend_mode,
        bounds_min: m.bounds.min,
        bounds_max: m.bounds.max,
    })
}

impl M2Report {
    /// A readable summary.
    pub fn text(&self) -> String {
        let mut s = format!(
            "{}: M2 version {} \"{}\", {} vertices, {} triangles, {} bones, render flags {:#x}, blend {}\n",
            self.file,
            self.version,
            self.name,
            self.vertices,
            self.triangles,
            self.bones,
            self.render_flags,
            self.blend_mode
        );
        if let Some(skin) = &self.skin {
            let _ = writeln!(s, "  view from {skin}");
        }
        for t in &self.textures {
            let _ = writeln!(s, "  texture {t}");
        }
        let _ = writeln!(s, "  bounds {:?} .. {:?}", self.bounds_min, self.bounds_max);
        s
    }
}

/// `sward inspect blp`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BlpReport {
    /// Where the file came from.
    pub file: String,
    /// Header encoding (1 palette, 2 DXT, 3 BGRA).
    pub encoding: u8,
    /// Alpha bits per texel.
    pub alpha_depth: u8,
    /// Alpha encoding (DXT: 0 DXT1, 1 DXT3, 7 DXT5).
    pub alpha_encoding: u8,
    /// A readable name of the pixel format.
    pub format: String,
    /// Level-0 width.
    pub width: u32,
    /// Level-0 height.
    pub height: u32,
    /// Mip levels after reading (missing ones rebuilt).
    pub mips: usize,
    /// How sward holds the texels: `BC1`/`BC1 (opaque)`/`BC2`/`BC3 blocks`
    /// (a DXT file with its whole mip chain, uploaded as a BC texture where
    /// the device has `texture-compression-bc`) or `RGBA8`.
    pub stored: String,
    /// Mean RGBA of level 0 after decoding (`levels[0].mean_rgba`).
    pub mean_rgba: [f32; 4],
    /// Statistics of every mip level after decoding (rebuilt levels
    /// included), level 0 first.
    pub levels: Vec<BlpLevelStats>,
}

/// Statistics of one decoded mip level of a BLP (`sward inspect blp`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BlpLevelStats {
    /// Mip level (0 = full size).
    pub level: usize,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Mean of each channel over the level's texels, 0..=255.
    pub mean_rgba: [f32; 4],
    /// Smallest alpha in the level.
    pub min_alpha: u8,
    /// Largest alpha in the level.
    pub max_alpha: u8,
}

impl BlpLevelStats {
    /// The statistics of one RGBA8 level. Channel sums are exact integers
    /// (a sum of f32 values loses the low bits past 2^24 and drifts: a
    /// 512x512 level of alpha 255 summed in f32 averaged 255.7).
    fn of(level: usize, width: u32, height: u32, rgba: &[u8]) -> Self {
        let mut sum = [0u64; 4];
        let (mut lo, mut hi) = (u8::MAX, 0u8);
        for px in rgba.chunks_exact(4) {
            for (s, &v) in sum.iter_mut().zip(px) {
                *s += u64::from(v);
            }
            lo = lo.min(px[3]);
            hi = hi.max(px[3]);
        }
        let n = (rgba.len() / 4).max(1) as f64;
        Self {
            level,
            width,
            height,
            mean_rgba: sum.map(|s| (s as f64 / n) as f32),
            min_alpha: if rgba.is_empty() { 0 } else { lo },
            max_alpha: hi,
        }
    }
}

/// Parses and decodes a BLP2.
pub fn inspect_blp(f: &DataFile) -> Result<BlpReport, FormatError> {
    let t = blp::read_blp(&f.bytes, &f.name)?;
    let [enc, depth, aenc, _] = [f.bytes[8], f.bytes[9], f.bytes[10], f.bytes[11]];
    let format = match (enc, aenc) {
        (1, _) => format!("palettized, {depth}-bit alpha"),
        (2, 0) if depth == 0 => "DXT1".to_owned(),
        (2, 0) => "DXT1 with 1-bit alpha".to_owned(),
        (2, 1) => "DXT3".to_owned(),
        (2, 7) => "DXT5".to_owned(),
        _ => "BGRA".to_owned(),
    };
    let levels = (0..t.mip_count())
        .map(|l| {
            let rgba = t.rgba_level(l).map_err(|e| FormatError::Malformed {
                file: f.name.clone(),
                chunk: format!("BLP mip {l}"),
                offset: 0,
                reason: e,
            })?;
            let (w, h) = ((t.width >> l).max(1), (t.height >> l).max(1));
            Ok(BlpLevelStats::of(l, w, h, &rgba))
        })
        .collect::<Result<Vec<_>, FormatError>>()?;
    Ok(BlpReport {
        file: f.name.clone(),
        encoding: enc,
        alpha_depth: depth,
        alpha_encoding: aenc,
        format,
        width: t.width,
        height: t.height,
        mips: t.mip_count(),
        stored: match t.bc_format() {
            Some(bc) => format!("{} blocks", bc.name()),
            None => "RGBA8".into(),
        },
        mean_rgba: levels.first().map_or([0.0; 4], |l| l.mean_rgba),
        levels,
    })
}

impl BlpReport {
    /// A readable summary.
    pub fn text(&self) -> String {
        let m = self.mean_rgba;
        let mut s = format!(
            "{}: BLP2 {}x{} {} (encoding {}, alpha depth {}, alpha encoding {}), {} mips, held as {}, mean RGBA ({:.1}, {:.1}, {:.1}, {:.1})\n",
            self.file,
            self.width,
            self.height,
            self.format,
            self.encoding,
            self.alpha_depth,
            self.alpha_encoding,
            self.mips,
            self.stored,
            m[0],
            m[1],
            m[2],
            m[3]
        );
        for l in &self.levels {
            let m = l.mean_rgba;
            let _ = writeln!(
                s,
                "  mip {:2} {:4}x{:<4} mean RGBA ({:.1}, {:.1}, {:.1}, {:.1}), alpha {}..={}",
                l.level, l.width, l.height, m[0], m[1], m[2], m[3], l.min_alpha, l.max_alpha
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn df(bytes: Vec<u8>, name: &str) -> DataFile {
        DataFile {
            bytes,
            name: name.to_owned(),
        }
    }

    #[test]
    fn every_report_reads_what_sward_writes() {
        let tiles = [TileCoord::new(32, 48), TileCoord::new(33, 48)];
        let w = inspect_wdt(&df(
            wdt::write_wdt(&tiles, wdt::MPHD_BIG_ALPHA).expect("wdt"),
            "A.wdt",
        ))
        .expect("wdt");
        assert_eq!(w.tiles, vec![[32, 48], [33, 48]]);
        assert!(w.big_alpha);
        assert!(w.text().contains("2 ADT tiles"), "{}", w.text());

        let mut far = wdl::Wdl::new();
        let mut t = wdl::WdlTile::flat(-12);
        t.inner[3][4] = 300;
        t.holes = Some([0, 0b101, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 << 15]);
        far.set(TileCoord::new(33, 48), Some(t));
        far.set(TileCoord::new(32, 49), Some(wdl::WdlTile::flat(7)));
        let r = inspect_wdl(&df(wdl::write_wdl(&far), "A.wdl")).expect("wdl");
        assert_eq!(r.tiles, vec![[33, 48], [32, 49]]);
        assert_eq!((r.min_height, r.max_height), (Some(-12), Some(300)));
        assert_eq!((r.tiles_with_maho, r.holes, r.version), (1, 3, 18));
        assert!(r.text().contains("2 tiles with heights"), "{}", r.text());
        assert!(r.text().contains("heights -12..=300"), "{}", r.text());
        let e = inspect_wdl(&df(b"REVM".to_vec(), "B.wdl")).expect_err("short");
        assert!(e.to_string().contains("B.wdl"), "{e}");

        let d = inspect_dbc(&df(
            dbc::write_map_dbc(&[(0, "Azeroth"), (1, "Kalimdor")]).expect("dbc"),
            "Map.dbc",
        ))
        .expect("dbc");
        assert_eq!((d.records, d.fields), (2, 5));
        assert_eq!(d.first_records[1][0], 1);

        let model = crate::models::elwynn_models().swap_remove(0);
        let (m2b, skin) = m2::write_m2_v264_fixture(&model, "x.blp").expect("m2");
        let r = inspect_m2(&df(m2b.clone(), "W\\X.m2"), |p| {
            assert_eq!(p, "W\\X00.skin");
            Ok(Some(df(skin.clone(), p)))
        })
        .expect("m2");
        assert_eq!(r.version, 264);
        assert_eq!(r.triangles, model.indices.len() / 3);
        assert_eq!(r.skin.as_deref(), Some("W\\X00.skin"));
        let e = inspect_m2(&df(m2b, "W\\X.m2"), |_| Ok(None)).expect_err("no skin");
        assert!(e.to_string().contains("X00.skin"), "{e}");

        let b =
            inspect_blp(&df(blp::write_blp(&model.texture).expect("blp"), "x.blp")).expect("blp");
        assert_eq!(
            (b.width, b.height),
            (model.texture.width, model.texture.height)
        );
        assert_eq!(b.format, "BGRA");
        assert_eq!(b.stored, "RGBA8");
        assert_eq!(b.levels.len(), model.texture.mip_count());
        assert_eq!(b.levels[0].mean_rgba, b.mean_rgba);
        assert_eq!((b.levels.last().map(|l| (l.width, l.height))), Some((1, 1)));
        assert!(b.text().contains("mip  0"), "{}", b.text());

        let e = read_input(None, "/nonexistent/World\\x.adt").expect_err("absent");
        assert!(e.to_string().contains("--data"), "{e}");
    }

    /// A 512x512 palettized texture without alpha (as pala0.blp): every
    /// level's mean alpha is exactly 255 (a float running sum drifted to
    /// 255.7 at level 0).
    #[test]
    fn blp_statistics_are_exact_per_level() {
        let (w, h) = (512usize, 512usize);
        let mut b = b"BLP2".to_vec();
        b.extend(1u32.to_le_bytes());
        b.extend([1u8, 0, 0, 0]);
        b.extend((w as u32).to_le_bytes());
        b.extend((h as u32).to_le_bytes());
        let header = 0x94 + 1024;
        b.resize(header, 0);
        b[0x14..0x18].copy_from_slice(&(header as u32).to_le_bytes());
        b[0x54..0x58].copy_from_slice(&((w * h) as u32).to_le_bytes());
        for (i, c) in [[200u8, 100, 50, 0], [10, 20, 30, 0]].iter().enumerate() {
            b[0x94 + 4 * i..0x94 + 4 * i + 4].copy_from_slice(c);
        }
        b.extend((0..w * h).map(|i| (i % 2) as u8));
        let r = inspect_blp(&df(b, "pala0.blp")).expect("blp");
        assert_eq!(r.levels.len(), 10);
        for l in &r.levels {
            assert_eq!(l.mean_rgba[3], 255.0, "level {}", l.level);
            assert_eq!((l.min_alpha, l.max_alpha), (255, 255));
            assert!(l.mean_rgba.iter().all(|&m| m <= 255.0));
        }
        // Half the texels are BGR (200, 100, 50), half (10, 20, 30).
        assert_eq!(r.levels[0].mean_rgba, [40.0, 60.0, 105.0, 255.0]);
        assert_eq!((r.levels[9].width, r.levels[9].height), (1, 1));
    }
}
