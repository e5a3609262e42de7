//! WDT files: which of the 64x64 ADT tiles of a map exist.
//!
//! Written: MVER (18), MPHD (32 bytes: flags, then seven zero u32s), MAIN
//! (64 x 64 entries of {u32 flags, u32 async id}, row-major `[y][x]`, flag 1
//! = the ADT exists), and an empty MWMO (no global WMO). sward writes MPHD
//! flag [`MPHD_BIG_ALPHA`] because its ADTs carry 8-bit 4096-byte alpha maps.

use super::bytes::{Out, Reader};
use super::FormatError;
use crate::world::coords::{TileCoord, WORLD_TILES};

/// MPHD flag: ADT alpha maps are 8-bit (4096 bytes) rather than 4-bit.
pub const MPHD_BIG_ALPHA: u32 = 0x4;
/// MAIN flag: the tile has an ADT file.
pub const MAIN_HAS_ADT: u32 = 0x1;
const MAIN_ENTRIES: usize = (WORLD_TILES * WORLD_TILES) as usize;

/// What a WDT says about a map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WdtInfo {
    /// MPHD flags.
    pub flags: u32,
    /// Tiles whose MAIN entry has [`MAIN_HAS_ADT`], sorted by (row, column).
    pub tiles: Vec<TileCoord>,
}

/// Serialises a WDT listing `tiles` (any order; each must be on the grid).
pub fn write_wdt(tiles: &[TileCoord], flags: u32) -> Result<Vec<u8>, FormatError> {
    let mut main = vec![0u32; MAIN_ENTRIES];
    for t in tiles {
        if !t.is_valid() {
            return Err(FormatError::Unwritable {
                what: "WDT".into(),
                reason: format!("tile ({}, {}) is outside the 64x64 grid", t.x, t.y),
            });
        }
        main[t.index()] = MAIN_HAS_ADT;
    }
    let mut o = Out::default();
    o.chunk(b"MVER", |o| o.u32(super::adt::VERSION));
    o.chunk(b"MPHD", |o| {
        o.u32(flags);
        o.zeros(28);
    });
    o.chunk(b"MAIN", |o| {
        for f in &main {
            o.u32(*f);
            o.u32(0);
        }
    });
    o.chunk(b"MWMO", |_| {});
    Ok(o.buf)
}

/// Parses a WDT: MVER 18, then MPHD and MAIN (found by tag; other chunks
/// are skipped).
pub fn read_wdt(data: &[u8], file: &str) -> Result<WdtInfo, FormatError> {
    let r = Reader::new(data, file);
    let mver = r.expect_chunk("file", 0, b"MVER")?;
    let version = r.u32("MVER", mver.data)?;
    if version != super::adt::VERSION {
        return Err(FormatError::Unsupported {
            file: file.to_owned(),
            what: format!("WDT version {version} (only 18 is read)"),
        });
    }
    let chunks = r.chunks(mver.end())?;
    let find = |tag: &[u8; 4]| {
        chunks.iter().find(|c| &c.tag == tag).ok_or_else(|| {
            r.err(
                "file",
                0,
                format!("no {} chunk", super::bytes::tag_name(*tag)),
            )
        })
    };
    let mphd = find(b"MPHD")?;
    let flags = r.u32("MPHD", mphd.data)?;
    let main = find(b"MAIN")?;
    if main.size < MAIN_ENTRIES * 8 {
        return Err(r.err(
            "MAIN",
            main.offset,
            format!(
                "size {} < {} (64 x 64 entries)",
                main.size,
                MAIN_ENTRIES * 8
            ),
        ));
    }
    let mut tiles = Vec::new();
    for i in 0..MAIN_ENTRIES {
        if r.u32("MAIN", main.data + 8 * i)? & MAIN_HAS_ADT != 0 {
            tiles.push(TileCoord::new(
                i as u32 % WORLD_TILES,
                i as u32 / WORLD_TILES,
            ));
        }
    }
    Ok(WdtInfo { flags, tiles })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_flags_round_trip_in_row_major_order() {
        let tiles = [
            TileCoord::new(31, 49),
            TileCoord::new(32, 48),
            TileCoord::new(0, 63),
        ];
        let bytes = write_wdt(&tiles, MPHD_BIG_ALPHA).expect("write");
        // Entry (x=31, y=49) sits at row 49, column 31.
        let main_data = 12 + 40 + 8;
        let at = main_data + 8 * (49 * 64 + 31);
        assert_eq!(bytes[at], 1);
        let info = read_wdt(&bytes, "t.wdt").expect("read");
        assert_eq!(info.flags, MPHD_BIG_ALPHA);
        assert_eq!(
            info.tiles,
            vec![
                TileCoord::new(32, 48),
                TileCoord::new(31, 49),
                TileCoord::new(0, 63)
            ]
        );
        assert_eq!(write_wdt(&info.tiles, info.flags).expect("again"), bytes);
        assert!(write_wdt(&[TileCoord::new(64, 0)], 0).is_err());
        let e = read_wdt(&bytes[..bytes.len() - 9000], "t.wdt").expect_err("truncated");
        assert!(e.to_string().contains("t.wdt"), "{e}");
    }
}
