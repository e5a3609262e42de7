//! Bounds-checked little-endian reading and chunk writing shared by every
//! format: [`Reader`] turns each out-of-range access into a
//! [`FormatError::Malformed`] naming the file, chunk and offset; [`Out`]
//! appends values and IFF-style chunks (reversed tag, u32 size, data).

use super::FormatError;

/// A chunk found in a file: its tag in reading order (`b"MCNK"`), where its
/// 8-byte header starts, where its data starts and how long the data is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// Tag as humans write it (the file stores it reversed).
    pub tag: [u8; 4],
    /// Offset of the chunk header (the tag) in the file.
    pub offset: usize,
    /// Offset of the first data byte.
    pub data: usize,
    /// Data size from the header.
    pub size: usize,
}

impl Chunk {
    /// Offset one past the last data byte.
    pub fn end(&self) -> usize {
        self.data + self.size
    }
}

/// The tag as text, for error messages.
pub(crate) fn tag_name(tag: [u8; 4]) -> String {
    tag.iter()
        .map(|&b| if b.is_ascii_graphic() { b as char } else { '?' })
        .collect()
}

/// A read-only view of a whole file with checked accessors.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    /// The file's bytes.
    pub data: &'a [u8],
    /// The file's name, for errors.
    pub file: &'a str,
}

impl<'a> Reader<'a> {
    /// A reader over `data` named `file`.
    pub fn new(data: &'a [u8], file: &'a str) -> Self {
        Self { data, file }
    }

    /// Length of the file.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// A malformed-data error at `offset` inside `chunk`.
    pub fn err(&self, chunk: &str, offset: usize, reason: impl Into<String>) -> FormatError {
        FormatError::Malformed {
            file: self.file.to_owned(),
            chunk: chunk.to_owned(),
            offset,
            reason: reason.into(),
        }
    }

    /// `len` bytes at `offset`, or an error when they run past the end.
    pub fn bytes(&self, chunk: &str, offset: usize, len: usize) -> Result<&'a [u8], FormatError> {
        offset
            .checked_add(len)
            .and_then(|end| self.data.get(offset..end))
            .ok_or_else(|| {
                self.err(
                    chunk,
                    offset,
                    format!(
                        "{len} bytes needed but the file ends at {:#x}",
                        self.data.len()
                    ),
                )
            })
    }

    /// Fixed-size array at `offset`.
    pub fn array<const N: usize>(
        &self,
        chunk: &str,
        offset: usize,
    ) -> Result<[u8; N], FormatError> {
        let b = self.bytes(chunk, offset, N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    /// Little-endian u32 at `offset`.
    pub fn u32(&self, chunk: &str, offset: usize) -> Result<u32, FormatError> {
        self.array(chunk, offset).map(u32::from_le_bytes)
    }

    /// Little-endian u16 at `offset`.
    pub fn u16(&self, chunk: &str, offset: usize) -> Result<u16, FormatError> {
        self.array(chunk, offset).map(u16::from_le_bytes)
    }

    /// Little-endian f32 at `offset`.
    pub fn f32(&self, chunk: &str, offset: usize) -> Result<f32, FormatError> {
        self.array(chunk, offset).map(f32::from_le_bytes)
    }

    /// Three little-endian f32 at `offset`.
    pub fn vec3(&self, chunk: &str, offset: usize) -> Result<[f32; 3], FormatError> {
        Ok([
            self.f32(chunk, offset)?,
            self.f32(chunk, offset + 4)?,
            self.f32(chunk, offset + 8)?,
        ])
    }

    /// The chunk whose header starts at `offset`; its data must fit in the
    /// file. `parent` names the context for errors.
    pub fn chunk_at(&self, parent: &str, offset: usize) -> Result<Chunk, FormatError> {
        let raw: [u8; 4] = self.array(parent, offset)?;
        let tag = [raw[3], raw[2], raw[1], raw[0]];
        let size = self.u32(parent, offset + 4)? as usize;
        let data = offset + 8;
        if data
            .checked_add(size)
            .is_none_or(|end| end > self.data.len())
        {
            return Err(self.err(
                &tag_name(tag),
                offset,
                format!(
                    "chunk size {size} runs past the end of the file ({:#x})",
                    self.data.len()
                ),
            ));
        }
        Ok(Chunk {
            tag,
            offset,
            data,
            size,
        })
    }

    /// The chunk at `offset`, which must carry `tag`.
    pub fn expect_chunk(
        &self,
        parent: &str,
        offset: usize,
        tag: &[u8; 4],
    ) -> Result<Chunk, FormatError> {
        let c = self.chunk_at(parent, offset)?;
        if &c.tag != tag {
            return Err(self.err(
                parent,
                offset,
                format!(
                    "expected chunk {} but found {}",
                    tag_name(*tag),
                    tag_name(c.tag)
                ),
            ));
        }
        Ok(c)
    }

    /// Every chunk from `start` to the end of the file, in order.
    pub fn chunks(&self, start: usize) -> Result<Vec<Chunk>, FormatError> {
        let mut out = Vec::new();
        let mut at = start;
        while at < self.data.len() {
            let c = self.chunk_at("file", at)?;
            at = c.end();
            out.push(c);
        }
        Ok(out)
    }

    /// A NUL-terminated string starting at `offset` and ending before `limit`.
    pub fn cstr(&self, chunk: &str, offset: usize, limit: usize) -> Result<&'a str, FormatError> {
        let limit = limit.min(self.data.len());
        let slice = self
            .data
            .get(offset..limit)
            .ok_or_else(|| self.err(chunk, offset, "string starts past its block"))?;
        let end = slice
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| self.err(chunk, offset, "string is not NUL-terminated"))?;
        std::str::from_utf8(&slice[..end])
            .map_err(|_| self.err(chunk, offset, "string is not valid UTF-8"))
    }
}

/// A growing output buffer with little-endian writers and chunk framing.
#[derive(Default)]
pub(crate) struct Out {
    /// The bytes written so far.
    pub buf: Vec<u8>,
}

impl Out {
    /// Current length (the offset the next write lands at).
    pub fn pos(&self) -> usize {
        self.buf.len()
    }

    /// Appends a u32.
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    /// Appends a u16.
    pub fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    /// Appends an f32.
    pub fn f32(&mut self, v: f32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    /// Appends raw bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// Appends `n` zero bytes.
    pub fn zeros(&mut self, n: usize) {
        self.buf.resize(self.buf.len() + n, 0);
    }

    /// Pads with zeros to a multiple of `align`.
    pub fn align(&mut self, align: usize) {
        let rem = self.buf.len() % align;
        if rem != 0 {
            self.zeros(align - rem);
        }
    }

    /// Overwrites the u32 at `offset` (which must already be written).
    pub fn patch_u32(&mut self, offset: usize, v: u32) {
        self.buf[offset..offset + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// Writes a chunk: reversed `tag`, its data size, then what `body`
    /// writes. Returns the offset of the chunk header.
    pub fn chunk(&mut self, tag: &[u8; 4], body: impl FnOnce(&mut Self)) -> usize {
        let start = self.pos();
        self.bytes(&[tag[3], tag[2], tag[1], tag[0]]);
        self.u32(0);
        body(self);
        let size = (self.pos() - start - 8) as u32;
        self.patch_u32(start + 4, size);
        start
    }
}

/// A u32 from a usize known to be small (sizes of data sward writes).
pub(crate) fn u32_of(v: usize) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_round_trip_and_bad_sizes_are_reported() {
        let mut out = Out::default();
        out.chunk(b"MVER", |o| o.u32(18));
        out.chunk(b"MTEX", |o| o.bytes(b"a\0bc\0"));
        assert_eq!(&out.buf[..4], b"REVM");
        let r = Reader::new(&out.buf, "t.adt");
        let cs = r.chunks(0).expect("chunks");
        assert_eq!(cs.len(), 2);
        assert_eq!(&cs[1].tag, b"MTEX");
        assert_eq!(
            r.cstr("MTEX", cs[1].data + 2, cs[1].end()).expect("s"),
            "bc"
        );
        let mut bad = out.buf.clone();
        bad[16..20].copy_from_slice(&1000u32.to_le_bytes());
        let e = Reader::new(&bad, "t.adt").chunks(0).expect_err("too long");
        let msg = e.to_string();
        assert!(
            msg.contains("t.adt") && msg.contains("MTEX") && msg.contains("0xc"),
            "{msg}"
        );
        assert!(r.u32("x", usize::MAX - 2).is_err());
        assert!(r.expect_chunk("file", 0, b"MHDR").is_err());
    }
}
