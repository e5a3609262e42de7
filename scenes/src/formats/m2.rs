//! M2 detail models (magic `MD20`): versions 256..=263 (1.12 writes 256,
//! 2.x 260..=263), whose views are embedded in the file, and version 264
//! (3.3.5), whose header drops the playable-animation lookup, the views and
//! the texture flipbooks and whose views live in `<Model>00.skin` files
//! (magic `SKIN`, the same five arrays plus the bone count, offsets relative
//! to the skin file). See the wowdev wiki's "M2" and "M2/.skin" pages.
//!
//! [`write_m2`] writes a 0x144-byte header of counted arrays (count, offset)
//! and the data blocks it points to, each 16-byte aligned: the name, one
//! "Stand" sequence, one bone without keys, the 48-byte vertices (position,
//! bone weights[4], bone indices[4], normal, tex coords[2]), one view
//! (identity vertex list, triangle indices, bone properties, one submesh,
//! one batch), one texture (type 0, file name), one texture weight, one
//! material (render flags, blend mode), the lookup tables and the bounds.
//! [`read_m2`] reads back what sward models: name, vertices, the first view's
//! triangles, the bone count, the texture names, the first material and the
//! bounding box.

use super::bytes::{u32_of, Out, Reader};
use super::FormatError;
use crate::models::{Aabb, DetailModel, DetailTexture, DetailVertex};

/// Version written (1.12 clients use 256).
pub const VERSION: u32 = 256;
/// Last version with embedded views (WotLK, 264, moved them to .skin files).
pub const LAST_EMBEDDED_VERSION: u32 = 263;
/// The version with external `.skin` views that is read (3.3.5).
pub const SKIN_VERSION: u32 = 264;
const WOTLK_HEADER_SIZE: usize = 0x130;
const WOTLK_BONE_SIZE: usize = 88;
const SKIN_HEADER_SIZE: usize = 0x30;
const HEADER_SIZE: usize = 0x144;
const VERTEX_SIZE: usize = 48;
const VIEW_SIZE: usize = 44;
const BONE_SIZE: usize = 108;
const SEQUENCE_SIZE: usize = 68;
const TEXTURE_SIZE: usize = 16;
const SUBMESH_SIZE: usize = 32;
const BATCH_SIZE: usize = 24;
const TRACK_SIZE: usize = 28;

/// Header offsets of the counted arrays and fields sward writes or reads.
mod h {
    pub const NAME: usize = 0x08;
    pub const SEQUENCES: usize = 0x1C;
    pub const SEQUENCE_LOOKUP: usize = 0x24;
    pub const BONES: usize = 0x34;
    pub const VERTICES: usize = 0x44;
    pub const VIEWS: usize = 0x4C;
    pub const TEXTURES: usize = 0x5C;
    pub const TEXTURE_WEIGHTS: usize = 0x64;
    pub const MATERIALS: usize = 0x84;
    pub const BONE_LOOKUP: usize = 0x8C;
    pub const TEXTURE_LOOKUP: usize = 0x94;
    pub const TEX_UNIT_LOOKUP: usize = 0x9C;
    pub const TRANSPARENCY_LOOKUP: usize = 0xA4;
    pub const TEXTURE_TRANSFORM_LOOKUP: usize = 0xAC;
    pub const BOUNDING_BOX: usize = 0xB4;
    pub const BOUNDING_RADIUS: usize = 0xCC;
    pub const COLLISION_BOX: usize = 0xD0;
    pub const COLLISION_RADIUS: usize = 0xE8;
}

/// Header offsets of version 264 (3.3.5).
mod w {
    pub const BONES: usize = 0x2C;
    pub const VERTICES: usize = 0x3C;
    pub const NUM_SKIN_PROFILES: usize = 0x44;
    pub const TEXTURES: usize = 0x50;
    pub const MATERIALS: usize = 0x70;
    pub const BOUNDING_BOX: usize = 0xA0;
}

/// Where a layout keeps the fields [`read_m2`] reads.
struct Layout {
    header: usize,
    bones: usize,
    bone_size: usize,
    vertices: usize,
    textures: usize,
    materials: usize,
    bounding_box: usize,
}

const CLASSIC: Layout = Layout {
    header: HEADER_SIZE,
    bones: h::BONES,
    bone_size: BONE_SIZE,
    vertices: h::VERTICES,
    textures: h::TEXTURES,
    materials: h::MATERIALS,
    bounding_box: h::BOUNDING_BOX,
};

const WOTLK: Layout = Layout {
    header: WOTLK_HEADER_SIZE,
    bones: w::BONES,
    bone_size: WOTLK_BONE_SIZE,
    vertices: w::VERTICES,
    textures: w::TEXTURES,
    materials: w::MATERIALS,
    bounding_box: w::BOUNDING_BOX,
};

/// The skin file of the model at archive path `model` (`X.m2` -> `X00.skin`).
pub fn skin_path(model: &str) -> String {
    let stem = model
        .len()
        .checked_sub(3)
        .filter(|&n| model.is_char_boundary(n) && model[n..].eq_ignore_ascii_case(".m2"))
        .map_or(model, |n| &model[..n]);
    format!("{stem}00.skin")
}

/// The version field of an M2 file, checked for the `MD20` magic.
pub fn m2_version(data: &[u8], file: &str) -> Result<u32, FormatError> {
    let r = Reader::new(data, file);
    let magic: [u8; 4] = r.array("M2 header", 0)?;
    if &magic != b"MD20" {
        return Err(r.err("M2 header", 0, "magic is not MD20"));
    }
    r.u32("M2 header", 4)
}

/// What [`read_m2`] returns: the model without its texture pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct M2Model {
    /// Version from the header.
    pub version: u32,
    /// Model name stored in the file.
    pub name: String,
    /// Vertices (bone = the index with the largest weight).
    pub vertices: Vec<DetailVertex>,
    /// Triangle-list indices of the first view, into `vertices`.
    pub indices: Vec<u16>,
    /// Bone count.
    pub bones: u32,
    /// Render flags of the first material.
    pub render_flags: u16,
    /// Blend mode of the first material.
    pub blend_mode: u16,
    /// Bounding box.
    pub bounds: Aabb,
    /// File names of the textures.
    pub textures: Vec<String>,
}

impl M2Model {
    /// The detail model at archive path `path` with texture `texture`,
    /// validated.
    pub fn into_detail_model(
        self,
        file: &str,
        path: String,
        texture: DetailTexture,
    ) -> Result<DetailModel, FormatError> {
        let m = DetailModel {
            name: self.name,
            path,
            vertices: self.vertices,
            indices: self.indices,
            texture,
            render_flags: self.render_flags,
            blend_mode: self.blend_mode,
            bones: self.bones,
            height: self.bounds.max[2],
            bounds: self.bounds,
        };
        m.validate().map_err(|source| FormatError::Model {
            file: file.to_owned(),
            source,
        })?;
        Ok(m)
    }
}

/// Writes a counted array's data at the next 16-byte boundary and patches
/// its (count, offset) pair at header field `field`.
fn array(o: &mut Out, field: usize, count: usize, body: impl FnOnce(&mut Out)) {
    o.align(16);
    let at = o.pos();
    body(o);
    o.patch_u32(field, u32_of(count));
    o.patch_u32(field + 4, if count == 0 { 0 } else { u32_of(at) });
}

/// An empty M2Track (no interpolation, no global sequence, no keys).
fn empty_track(o: &mut Out) {
    o.u16(0);
    o.u16(0xFFFF);
    o.zeros(24);
}

/// Serialises `model` as a classic M2 whose one texture is `texture_path`.
pub fn write_m2(model: &DetailModel, texture_path: &str) -> Result<Vec<u8>, FormatError> {
    model.validate().map_err(|e| FormatError::Unwritable {
        what: format!("M2 {}", model.path),
        reason: e.to_string(),
    })?;
    if model.vertices.len() > u16::MAX as usize || model.bones > 255 {
        return Err(FormatError::Unwritable {
            what: format!("M2 {}", model.path),
            reason: "more than 65535 vertices or 255 bones".into(),
        });
    }
    let n = model.vertices.len();
    let mut o = Out::default();
    o.bytes(b"MD20");
    o.u32(VERSION);
    o.zeros(HEADER_SIZE - 8);
    array(&mut o, h::NAME, model.name.len() + 1, |o| {
        o.bytes(model.name.as_bytes());
        o.bytes(&[0]);
    });
    array(&mut o, h::SEQUENCES, 1, |o| {
        let start = o.pos();
        o.u16(0); // Stand
        o.u16(0);
        o.u32(0);
        o.u32(1000);
        o.f32(0.0);
        o.u32(0x20); // looped
        o.u16(0x7FFF);
        o.u16(0);
        o.zeros(8 + 4);
        bounds_block(o, &model.bounds);
        o.u16(0xFFFF);
        o.u16(0);
        debug_assert_eq!(o.pos() - start, SEQUENCE_SIZE);
    });
    array(&mut o, h::SEQUENCE_LOOKUP, 1, |o| o.u16(0));
    array(&mut o, h::BONES, model.bones as usize, |o| {
        for _ in 0..model.bones {
            o.u32(u32::MAX); // no key bone
            o.u32(0);
            o.u16(0xFFFF); // no parent
            o.u16(0);
            for _ in 0..3 {
                empty_track(o);
            }
            o.zeros(12);
        }
    });
    array(&mut o, h::VERTICES, n, |o| {
        for v in &model.vertices {
            v.position.iter().for_each(|c| o.f32(*c));
            o.bytes(&[255, 0, 0, 0, v.bone as u8, 0, 0, 0]);
            v.normal.iter().for_each(|c| o.f32(*c));
            v.uv.iter().for_each(|c| o.f32(*c));
            o.zeros(8);
        }
    });
    array(&mut o, h::VIEWS, 1, |o| o.zeros(VIEW_SIZE));
    let view = u32_from(&o.buf, h::VIEWS + 4);
    let sub = |o: &mut Out, k: usize, count: usize, body: &dyn Fn(&mut Out)| {
        array(o, view + 8 * k, count, body);
    };
    sub(&mut o, 0, n, &|o| (0..n).for_each(|i| o.u16(i as u16)));
    sub(&mut o, 1, model.indices.len(), &|o| {
        model.indices.iter().for_each(|i| o.u16(*i))
    });
    sub(&mut o, 2, n, &|o| o.zeros(4 * n));
    sub(&mut o, 3, 1, &|o| {
        let start = o.pos();
        o.u16(0);
        o.u16(0);
        o.u16(0);
        o.u16(n as u16);
        o.u16(0);
        o.u16(model.indices.len().min(u16::MAX as usize) as u16);
        o.u16(model.bones as u16);
        o.u16(0);
        o.u16(1);
        o.u16(0);
        o.zeros(12);
        debug_assert_eq!(o.pos() - start, SUBMESH_SIZE);
    });
    sub(&mut o, 4, 1, &|o| {
        let start = o.pos();
        o.bytes(&[0, 0]);
        o.u16(0); // shader
        o.u16(0); // submesh
        o.u16(0); // geoset
        o.u16(0xFFFF); // no colour
        o.u16(0); // material
        o.u16(0); // material layer
        o.u16(1); // texture count
        o.u16(0); // texture combo
        o.u16(0); // tex coord combo
        o.u16(0); // weight combo
        o.u16(0); // transform combo
        debug_assert_eq!(o.pos() - start, BATCH_SIZE);
    });
    o.patch_u32(view + 40, model.bones);
    let tex_entry = {
        array(&mut o, h::TEXTURES, 1, |o| o.zeros(TEXTURE_SIZE));
        u32_from(&o.buf, h::TEXTURES + 4)
    };
    array(&mut o, tex_entry + 8, texture_path.len() + 1, |o| {
        o.bytes(texture_path.as_bytes());
        o.bytes(&[0]);
    });
    array(&mut o, h::TEXTURE_WEIGHTS, 1, |o| o.zeros(TRACK_SIZE));
    let track = u32_from(&o.buf, h::TEXTURE_WEIGHTS + 4);
    o.patch_u32(track, 0xFFFF_0000); // no interpolation, global sequence -1
    array(&mut o, track + 4, 1, |o| o.zeros(8));
    array(&mut o, track + 12, 1, |o| o.u32(0));
    array(&mut o, track + 20, 1, |o| o.u16(0x7FFF));
    array(&mut o, h::MATERIALS, 1, |o| {
        o.u16(model.render_flags);
        o.u16(model.blend_mode);
    });
    array(&mut o, h::BONE_LOOKUP, 1, |o| o.u16(0));
    array(&mut o, h::TEXTURE_LOOKUP, 1, |o| o.u16(0));
    array(&mut o, h::TEX_UNIT_LOOKUP, 1, |o| o.u16(0));
    array(&mut o, h::TRANSPARENCY_LOOKUP, 1, |o| o.u16(0));
    array(&mut o, h::TEXTURE_TRANSFORM_LOOKUP, 1, |o| o.u16(0xFFFF));
    let mut bounds = Out::default();
    bounds_block(&mut bounds, &model.bounds);
    o.buf[h::BOUNDING_BOX..h::BOUNDING_BOX + 28].copy_from_slice(&bounds.buf);
    o.buf[h::COLLISION_BOX..h::COLLISION_BOX + 28].copy_from_slice(&bounds.buf);
    debug_assert_eq!(h::BOUNDING_RADIUS, h::BOUNDING_BOX + 24);
    debug_assert_eq!(h::COLLISION_RADIUS, h::COLLISION_BOX + 24);
    Ok(o.buf)
}

/// A box (min, max) followed by the radius of its origin-centred sphere.
fn bounds_block(o: &mut Out, b: &Aabb) {
    b.min.iter().chain(&b.max).for_each(|c| o.f32(*c));
    o.f32(b.radius_from_origin());
}

fn u32_from(buf: &[u8], at: usize) -> usize {
    u32::from_le_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]]) as usize
}

/// Reads the (count, offset) pair at `field` and checks that `count`
/// elements of `elem` bytes fit in the file. Returns (count, offset).
fn counted(
    r: &Reader<'_>,
    what: &str,
    field: usize,
    elem: usize,
) -> Result<(usize, usize), FormatError> {
    let count = r.u32(what, field)? as usize;
    let ofs = r.u32(what, field + 4)? as usize;
    if count == 0 {
        return Ok((0, ofs));
    }
    let fits = count
        .checked_mul(elem)
        .and_then(|b| b.checked_add(ofs))
        .is_some_and(|end| end <= r.len());
    if !fits {
        return Err(r.err(
            what,
            field,
            format!(
                "{count} x {elem} bytes at {ofs:#x} run past the end of the file ({:#x})",
                r.len()
            ),
        ));
    }
    Ok((count, ofs))
}

fn counted_string(r: &Reader<'_>, what: &str, field: usize) -> Result<String, FormatError> {
    let (n, ofs) = counted(r, what, field, 1)?;
    let b = r.bytes(what, ofs, n)?;
    let b = b.split(|&c| c == 0).next().unwrap_or_default();
    std::str::from_utf8(b)
        .map(str::to_owned)
        .map_err(|_| r.err(what, ofs, "string is not valid UTF-8"))
}

/// Parses an M2 with embedded views (versions 256..=263). Version 264
/// needs its skin file: see [`read_m2_with_skin`].
pub fn read_m2(data: &[u8], file: &str) -> Result<M2Model, FormatError> {
    let version = m2_version(data, file)?;
    if !(VERSION..=LAST_EMBEDDED_VERSION).contains(&version) {
        return Err(FormatError::Unsupported {
            file: file.to_owned(),
            what: format!(
                "M2 version {version} (256..=263 are read alone, 264 with its .skin file)"
            ),
        });
    }
    let r = Reader::new(data, file);
    r.bytes("M2 header", 0, HEADER_SIZE)?;
    let (views, view) = counted(&r, "M2 views", h::VIEWS, VIEW_SIZE)?;
    if views == 0 {
        return Err(r.err("M2 views", h::VIEWS, "no view"));
    }
    read_body(&r, version, &CLASSIC, &r, view)
}

/// Parses a version-264 M2 (`data`, named `file`) with its first view read
/// from `skin` (the `<Model>00.skin` file, named `skin_file`).
pub fn read_m2_v264(
    data: &[u8],
    file: &str,
    skin: &[u8],
    skin_file: &str,
) -> Result<M2Model, FormatError> {
    let version = m2_version(data, file)?;
    if version != SKIN_VERSION {
        return Err(FormatError::Unsupported {
            file: file.to_owned(),
            what: format!("M2 version {version} with a skin file (264 is read)"),
        });
    }
    let r = Reader::new(data, file);
    r.bytes("M2 header", 0, WOTLK_HEADER_SIZE)?;
    if r.u32("M2 header", w::NUM_SKIN_PROFILES)? == 0 {
        return Err(r.err("M2 header", w::NUM_SKIN_PROFILES, "no skin profile"));
    }
    let s = Reader::new(skin, skin_file);
    let magic: [u8; 4] = s.array("SKIN header", 0)?;
    if &magic != b"SKIN" {
        return Err(s.err("SKIN header", 0, "magic is not SKIN"));
    }
    s.bytes("SKIN header", 0, SKIN_HEADER_SIZE)?;
    read_body(&r, version, &WOTLK, &s, 4)
}

/// Reads the model at archive path `path` whatever its version: `data` is
/// the M2 (named `file`), and `read` fetches the `.skin` file a version-264
/// model needs. `Ok(Err(skin path))` when that skin file is absent.
pub fn read_m2_with_skin(
    data: &[u8],
    file: &str,
    path: &str,
    read: impl FnOnce(&str) -> Result<Option<super::DataFile>, FormatError>,
) -> Result<Result<M2Model, String>, FormatError> {
    if m2_version(data, file)? != SKIN_VERSION {
        return read_m2(data, file).map(Ok);
    }
    let skin = skin_path(path);
    let Some(s) = read(&skin)? else {
        return Ok(Err(skin));
    };
    read_m2_v264(data, file, &s.bytes, &s.name).map(Ok)
}

/// The fields every version shares; the view (vertex remap and triangle
/// arrays, offsets relative to `vr`'s file) is at `view` in `vr`.
fn read_body(
    r: &Reader<'_>,
    version: u32,
    l: &Layout,
    vr: &Reader<'_>,
    view: usize,
) -> Result<M2Model, FormatError> {
    r.bytes("M2 header", 0, l.header)?;
    let name = counted_string(r, "M2 name", h::NAME)?;
    let (nv, vofs) = counted(r, "M2 vertices", l.vertices, VERTEX_SIZE)?;
    if nv > u16::MAX as usize + 1 {
        return Err(r.err("M2 vertices", l.vertices, format!("{nv} vertices")));
    }
    let mut vertices = Vec::with_capacity(nv);
    for i in 0..nv {
        let at = vofs + VERTEX_SIZE * i;
        let w: [u8; 4] = r.array("M2 vertices", at + 12)?;
        let b: [u8; 4] = r.array("M2 vertices", at + 16)?;
        let heaviest = (0..4)
            .max_by_key(|&k| (w[k], std::cmp::Reverse(k)))
            .unwrap_or(0);
        vertices.push(DetailVertex {
            position: r.vec3("M2 vertices", at)?,
            normal: r.vec3("M2 vertices", at + 20)?,
            uv: [
                r.f32("M2 vertices", at + 32)?,
                r.f32("M2 vertices", at + 36)?,
            ],
            bone: b[heaviest] as u32,
        });
    }
    let (ns, sofs) = counted(vr, "M2 view vertices", view, 2)?;
    let mut remap = Vec::with_capacity(ns);
    for i in 0..ns {
        let v = vr.u16("M2 view vertices", sofs + 2 * i)?;
        if v as usize >= nv {
            let of = if vr.file == r.file {
                String::new()
            } else {
                format!(" (the vertex count of {})", r.file)
            };
            return Err(vr.err(
                "M2 view vertices",
                sofs + 2 * i,
                format!("vertex {v} >= {nv}{of}"),
            ));
        }
        remap.push(v);
    }
    let (ni, iofs) = counted(vr, "M2 view indices", view + 8, 2)?;
    if ni % 3 != 0 {
        return Err(vr.err(
            "M2 view indices",
            view + 8,
            format!("{ni} indices is not a triangle list"),
        ));
    }
    let mut indices = Vec::with_capacity(ni);
    for i in 0..ni {
        let t = vr.u16("M2 view indices", iofs + 2 * i)? as usize;
        let v = remap.get(t).ok_or_else(|| {
            vr.err(
                "M2 view indices",
                iofs + 2 * i,
                format!("index {t} >= {ns} view vertices"),
            )
        })?;
        indices.push(*v);
    }
    let (bones, _) = counted(r, "M2 bones", l.bones, l.bone_size)?;
    let (nt, tofs) = counted(r, "M2 textures", l.textures, TEXTURE_SIZE)?;
    let textures = (0..nt)
        .map(|i| counted_string(r, "M2 texture name", tofs + TEXTURE_SIZE * i + 8))
        .collect::<Result<Vec<_>, _>>()?;
    let (nm, mofs) = counted(r, "M2 materials", l.materials, 4)?;
    if nm == 0 {
        return Err(r.err("M2 materials", l.materials, "no material"));
    }
    let b = r.vec3("M2 header", l.bounding_box)?;
    let t = r.vec3("M2 header", l.bounding_box + 12)?;
    Ok(M2Model {
        version,
        name,
        vertices,
        indices,
        bones: bones as u32,
        render_flags: r.u16("M2 materials", mofs)?,
        blend_mode: r.u16("M2 materials", mofs + 2)?,
        bounds: Aabb { min: b, max: t },
        textures,
    })
}

/// Test fixture: `model` as a version-264 M2 and its `00.skin` file. Only the
/// fields [`read_m2_v264`] reads are in the 3.3.5 layout (sequences, bones
/// and animation tracks keep the classic layout), so the client would not
/// load it.
#[cfg(test)]
pub fn write_m2_v264_fixture(
    model: &DetailModel,
    texture_path: &str,
) -> Result<(Vec<u8>, Vec<u8>), FormatError> {
    let classic = write_m2(model, texture_path)?;
    let view = u32_from(&classic, h::VIEWS + 4);
    // The skin: magic, the view's five arrays re-pointed into the skin, the
    // bone count.
    let mut skin = Out::default();
    skin.bytes(b"SKIN");
    skin.zeros(SKIN_HEADER_SIZE - 4);
    let elem = [2, 2, 4, SUBMESH_SIZE, BATCH_SIZE];
    for (k, size) in elem.iter().enumerate() {
        let n = u32_from(&classic, view + 8 * k);
        let ofs = u32_from(&classic, view + 8 * k + 4);
        array(&mut skin, 4 + 8 * k, n, |o| {
            o.bytes(&classic[ofs..ofs + n * size]);
        });
    }
    skin.patch_u32(4 + 40, model.bones);
    // The M2: the classic data blocks stay where they are (the header is
    // padded to the classic size), the header fields move.
    let mut m = classic.clone();
    m[4..8].copy_from_slice(&SKIN_VERSION.to_le_bytes());
    m[8..HEADER_SIZE].fill(0);
    let moves: [(usize, usize, usize); 22] = [
        (h::NAME, 0x08, 8),
        (0x10, 0x10, 4),
        (0x14, 0x14, 8),
        (h::SEQUENCES, 0x1C, 8),
        (h::SEQUENCE_LOOKUP, 0x24, 8),
        (h::BONES, w::BONES, 8),
        (0x3C, 0x34, 8),
        (h::VERTICES, w::VERTICES, 8),
        (0x54, 0x48, 8),
        (h::TEXTURES, w::TEXTURES, 8),
        (h::TEXTURE_WEIGHTS, 0x58, 8),
        (0x74, 0x60, 8),
        (0x7C, 0x68, 8),
        (h::MATERIALS, w::MATERIALS, 8),
        (h::BONE_LOOKUP, 0x78, 8),
        (h::TEXTURE_LOOKUP, 0x80, 8),
        (h::TEX_UNIT_LOOKUP, 0x88, 8),
        (h::TRANSPARENCY_LOOKUP, 0x90, 8),
        (h::TEXTURE_TRANSFORM_LOOKUP, 0x98, 8),
        (h::BOUNDING_BOX, w::BOUNDING_BOX, 28),
        (h::COLLISION_BOX, 0xBC, 28),
        (0xEC, 0xD8, HEADER_SIZE - 0xEC),
    ];
    for (from, to, n) in moves {
        m[to..to + n].copy_from_slice(&classic[from..from + n]);
    }
    m[w::NUM_SKIN_PROFILES..w::NUM_SKIN_PROFILES + 4].copy_from_slice(&1u32.to_le_bytes());
    Ok((m, skin.buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elwynn_models_round_trip() {
        for m in crate::models::elwynn_models() {
            let tex_path = m.path.replace(".m2", ".blp");
            let bytes = write_m2(&m, &tex_path).expect("write");
            assert_eq!(&bytes[..4], b"MD20");
            let back = read_m2(&bytes, &m.path).expect("read");
            assert_eq!(back.textures, vec![tex_path.clone()]);
            assert_eq!(back.version, VERSION);
            let model = back
                .into_detail_model(&m.path, m.path.clone(), m.texture.clone())
                .expect("valid");
            assert_eq!(model, m);
            assert_eq!(write_m2(&model, &tex_path).expect("again"), bytes);
        }
    }

    #[test]
    fn v264_models_read_their_view_from_the_skin_file() {
        assert_eq!(
            skin_path("World\\NoDXT\\Detail\\ElwGra01.M2"),
            "World\\NoDXT\\Detail\\ElwGra0100.skin"
        );
        for m in crate::models::elwynn_models().into_iter().take(3) {
            let tex = m.path.replace(".m2", ".blp");
            let classic = read_m2(&write_m2(&m, &tex).expect("write"), "c.m2").expect("read");
            let (bytes, skin) = write_m2_v264_fixture(&m, &tex).expect("v264");
            assert_eq!(m2_version(&bytes, "w.m2").expect("version"), SKIN_VERSION);
            let e = read_m2(&bytes, "w.m2").expect_err("needs skin");
            assert!(matches!(e, FormatError::Unsupported { .. }), "{e}");
            let got = read_m2_v264(&bytes, "w.m2", &skin, "w00.skin").expect("read");
            assert_eq!(
                got,
                M2Model {
                    version: SKIN_VERSION,
                    ..classic.clone()
                }
            );
            // Through the data-source path: the skin is fetched by name.
            let mut asked = String::new();
            let via = read_m2_with_skin(&bytes, "w.m2", &m.path, |p| {
                asked = p.to_owned();
                Ok(Some(crate::formats::DataFile {
                    bytes: skin.clone(),
                    name: p.to_owned(),
                }))
            })
            .expect("read")
            .expect("skin present");
            assert_eq!(asked, skin_path(&m.path));
            assert_eq!(via, got);
            // A missing skin is reported by name; a bad one is an error.
            let missing = read_m2_with_skin(&bytes, "w.m2", &m.path, |_| Ok(None)).expect("ok");
            assert_eq!(missing, Err(skin_path(&m.path)));
            let mut bad = skin.clone();
            bad[0] = b'X';
            let e = read_m2_v264(&bytes, "w.m2", &bad, "w00.skin").expect_err("magic");
            assert!(e.to_string().contains("w00.skin"), "{e}");
            let e = read_m2_v264(&bytes, "w.m2", &skin[..40], "w00.skin").expect_err("short");
            assert!(e.to_string().contains("w00.skin"), "{e}");
        }
    }

    #[test]
    fn vertex_layout_is_48_bytes_with_bone_indices_at_16() {
        let m = &crate::models::elwynn_models()[0];
        let bytes = write_m2(m, "x.blp").expect("write");
        let r = Reader::new(&bytes, "m");
        let (n, ofs) = counted(&r, "v", h::VERTICES, VERTEX_SIZE).expect("vertices");
        assert_eq!(n, m.vertices.len());
        let second = ofs + VERTEX_SIZE;
        assert_eq!(r.vec3("v", second).expect("pos"), m.vertices[1].position);
        assert_eq!(bytes[second + 12], 255);
        assert_eq!(
            r.vec3("v", second + 20).expect("normal"),
            m.vertices[1].normal
        );
        let (_, mat) = counted(&r, "m", h::MATERIALS, 4).expect("materials");
        assert_eq!(r.u16("m", mat).expect("flags"), 4);
        assert_eq!(r.u16("m", mat + 2).expect("blend"), 1);
    }
}
