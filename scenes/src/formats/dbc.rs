//! WDBC client tables and the two ground-effect tables stored in them.
//!
//! A WDBC file is a 20-byte header (`WDBC`, record count, field count,
//! record size, string block size), the records (every field a u32 here),
//! then the string block (NUL-terminated strings, offset 0 = the empty
//! string). sward writes:
//!
//! * GroundEffectTexture in any of the three layouts of
//!   [`GroundEffectLayout`] (3.3.5a by default); the reader detects the layout
//!   with [`GroundEffects::from_raw`] and refuses ambiguous or unknown ones.
//! * GroundEffectDoodad as the 3.3.5a layout: id, model path (string
//!   offset), flags (12 bytes). The reader also takes the 2-field form (id,
//!   path) and the 1.12.1 3-field form (id, internal id, path), telling the
//!   3-field forms apart by which column holds valid model-path strings. The
//!   1.12.1 form is keyed by internal id, the value its GroundEffectTexture
//!   slots hold (see [`crate::effects`]).

use super::bytes::{u32_of, Out, Reader};
use super::FormatError;
use crate::effects::{GroundEffectDoodad, GroundEffectLayout, GroundEffects, RawTable};

const HEADER: usize = 20;
/// A cap on record and field counts far above any real table, so absurd
/// headers fail before any allocation.
const MAX_FIELDS: u32 = 1024;

/// A parsed WDBC table whose fields are all 32-bit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DbcTable {
    /// Record count.
    pub record_count: u32,
    /// Fields per record.
    pub field_count: u32,
    /// Records as u32 fields, `record_count * field_count` long.
    pub rows: Vec<u32>,
    /// The string block.
    pub strings: Vec<u8>,
}

impl DbcTable {
    /// Builds a table from rows and a string block.
    fn write(field_count: u32, rows: &[u32], strings: &[u8]) -> Vec<u8> {
        let record_count = if field_count == 0 {
            0
        } else {
            rows.len() / field_count as usize
        };
        let mut o = Out::default();
        o.bytes(b"WDBC");
        o.u32(u32_of(record_count));
        o.u32(field_count);
        o.u32(field_count * 4);
        o.u32(u32_of(strings.len()));
        rows.iter().for_each(|v| o.u32(*v));
        o.bytes(strings);
        o.buf
    }

    /// The raw view the ground-effect layout detection takes.
    pub fn raw(&self) -> RawTable<'_> {
        RawTable {
            record_count: self.record_count,
            field_count: self.field_count,
            record_size: self.field_count * 4,
            rows: &self.rows,
        }
    }

    /// Field `field` of record `record`.
    pub fn field(&self, record: usize, field: usize) -> u32 {
        self.rows[record * self.field_count as usize + field]
    }

    /// The string at `offset` in the string block, if it is a valid
    /// NUL-terminated UTF-8 string.
    pub fn string(&self, offset: u32) -> Option<&str> {
        let tail = self.strings.get(offset as usize..)?;
        let end = tail.iter().position(|&b| b == 0)?;
        std::str::from_utf8(&tail[..end]).ok()
    }
}

/// Parses a WDBC file. The header must agree exactly with the file length,
/// the record size must be `4 * field_count`, and the string block must
/// start with NUL.
pub fn read_dbc(data: &[u8], file: &str) -> Result<DbcTable, FormatError> {
    let r = Reader::new(data, file);
    let magic: [u8; 4] = r.array("WDBC header", 0)?;
    if &magic != b"WDBC" {
        return Err(r.err(
            "WDBC header",
            0,
            format!("magic {:?} is not WDBC", super::bytes::tag_name(magic)),
        ));
    }
    let record_count = r.u32("WDBC header", 4)?;
    let field_count = r.u32("WDBC header", 8)?;
    let record_size = r.u32("WDBC header", 12)?;
    let string_size = r.u32("WDBC header", 16)?;
    if field_count > MAX_FIELDS || record_size != field_count * 4 {
        return Err(r.err(
            "WDBC header",
            8,
            format!(
                "{field_count} fields with {record_size}-byte records (all-u32 records expected)"
            ),
        ));
    }
    let records_len = (record_count as u64) * (record_size as u64);
    let want = HEADER as u64 + records_len + string_size as u64;
    if want != data.len() as u64 {
        return Err(r.err(
            "WDBC header",
            4,
            format!(
                "{record_count} records of {record_size} bytes and {string_size} string bytes need {want} bytes, file has {}",
                data.len()
            ),
        ));
    }
    let records = r.bytes("records", HEADER, records_len as usize)?;
    let rows = records
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let strings = r
        .bytes(
            "string block",
            HEADER + records_len as usize,
            string_size as usize,
        )?
        .to_vec();
    if strings.first().is_some_and(|&b| b != 0) {
        return Err(r.err(
            "string block",
            HEADER + records_len as usize,
            "does not start with NUL",
        ));
    }
    Ok(DbcTable {
        record_count,
        field_count,
        rows,
        strings,
    })
}

/// Serialises GroundEffectTexture in `layout`.
pub fn write_ground_effect_texture(effects: &GroundEffects, layout: GroundEffectLayout) -> Vec<u8> {
    DbcTable::write(layout.field_count(), &effects.texture_rows(layout), b"\0")
}

/// Serialises GroundEffectDoodad (id, path, flags).
pub fn write_ground_effect_doodad(doodads: &[GroundEffectDoodad]) -> Result<Vec<u8>, FormatError> {
    let mut strings = vec![0u8];
    let mut rows = Vec::with_capacity(doodads.len() * 3);
    for d in doodads {
        if d.model.contains('\0') || d.model.is_empty() {
            return Err(FormatError::Unwritable {
                what: format!("GroundEffectDoodad {}", d.id),
                reason: format!("model name {:?} is empty or contains NUL", d.model),
            });
        }
        rows.extend([d.id, u32_of(strings.len()), d.flags]);
        strings.extend_from_slice(d.model.as_bytes());
        strings.push(0);
    }
    Ok(DbcTable::write(3, &rows, &strings))
}

/// Serialises a Map.dbc of `(id, directory)` records with the first five
/// fields of 1.12's layout (ID, Directory, InstanceType 0, PVP 0, MapName =
/// the directory): enough for `sward maps` and [`super::maps`] to name the
/// maps of an export.
pub fn write_map_dbc(maps: &[(u32, &str)]) -> Result<Vec<u8>, FormatError> {
    let mut strings = vec![0u8];
    let mut rows = Vec::with_capacity(maps.len() * 5);
    for (id, dir) in maps {
        if dir.contains('\0') || dir.is_empty() {
            return Err(FormatError::Unwritable {
                what: format!("Map {id}"),
                reason: format!("directory {dir:?} is empty or contains NUL"),
            });
        }
        let at = u32_of(strings.len());
        rows.extend([*id, at, 0, 0, at]);
        strings.extend_from_slice(dir.as_bytes());
        strings.push(0);
    }
    Ok(DbcTable::write(5, &rows, &strings))
}

/// Whether a string field holds a model path (`.mdl`, `.mdx` or `.m2`).
pub(crate) fn looks_like_model(s: Option<&str>) -> bool {
    s.is_some_and(|s| {
        let l = s.to_ascii_lowercase();
        [".mdl", ".mdx", ".m2"].iter().any(|e| l.ends_with(e))
    })
}

/// Parses GroundEffectDoodad (2 or 3 fields, see the module doc).
pub fn read_ground_effect_doodad(
    data: &[u8],
    file: &str,
) -> Result<Vec<GroundEffectDoodad>, FormatError> {
    let t = read_dbc(data, file)?;
    let n = t.record_count as usize;
    let column_is_path =
        |f: usize| n > 0 && (0..n).all(|i| looks_like_model(t.string(t.field(i, f))));
    // (key field, path field, flags field). The 1.12.1 form keys doodads by
    // internal id: GroundEffectTexture slots hold internal ids.
    let (key_field, path_field, flags_field) = match t.field_count {
        2 if column_is_path(1) => (0, 1, None),
        3 if column_is_path(1) => (0, 1, Some(2)),
        3 if column_is_path(2) => (1, 2, None),
        _ if n == 0 && (2..=3).contains(&t.field_count) => (0, 1, None),
        fc => {
            return Err(FormatError::Unsupported {
                file: file.to_owned(),
                what: format!(
                    "GroundEffectDoodad layout: {fc} fields without a column of model paths (.mdl/.mdx/.m2)"
                ),
            })
        }
    };
    Ok((0..n)
        .map(|i| GroundEffectDoodad {
            id: t.field(i, key_field),
            model: t
                .string(t.field(i, path_field))
                .unwrap_or_default()
                .to_owned(),
            flags: flags_field.map_or(0, |f| t.field(i, f)),
        })
        .collect())
}

/// Parses both ground-effect tables: the doodads first (their ids are the
/// oracle that detects the GroundEffectTexture layout).
pub fn read_ground_effects(
    texture: &[u8],
    texture_file: &str,
    doodad: &[u8],
    doodad_file: &str,
) -> Result<GroundEffects, FormatError> {
    read_ground_effects_as(texture, texture_file, doodad, doodad_file, None)
}

/// [`read_ground_effects`] with GroundEffectTexture read in layout `prefer`
/// (the client version's) when the table has its shape
/// ([`GroundEffects::from_raw_as`]).
pub fn read_ground_effects_as(
    texture: &[u8],
    texture_file: &str,
    doodad: &[u8],
    doodad_file: &str,
    prefer: Option<GroundEffectLayout>,
) -> Result<GroundEffects, FormatError> {
    let doodads = read_ground_effect_doodad(doodad, doodad_file)?;
    let t = read_dbc(texture, texture_file)?;
    GroundEffects::from_raw_as(&t.raw(), doodads, prefer).map_err(|source| FormatError::Effects {
        file: format!("{texture_file} (doodad ids from {doodad_file})"),
        source,
    })
}
