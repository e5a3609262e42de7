//! Block-compressed (BC1/BC2/BC3, the DXT1/DXT3/DXT5 of BLP files) texture
//! levels: sizes, and decoding to RGBA8 with the rules GPUs sample them by.
//!
//! Every level, even one smaller than 4x4, occupies whole 4x4 blocks (a 2x2
//! or 1x1 level is one block). Decoding goes through the `texture2ddecoder`
//! crate, with two rules made explicit so that the CPU-decoded texels match
//! what a GPU samples from the same blocks:
//!
//! - BC2/BC3 colour halves always use the four-colour mode (the D3D10 and
//!   Vulkan rule); `texture2ddecoder` applies BC1's three-colour rule when
//!   `c0 <= c1`, so such a block is first rewritten to the equivalent
//!   four-colour block (endpoints swapped and indices remapped, or all
//!   indices 0 when the endpoints are equal).
//! - BC1 blocks in three-colour mode (`c0 <= c1`) give index 3 as
//!   transparent black, as `Bc1RgbaUnorm*` formats do. A DXT1 BLP without
//!   alpha (alpha depth 0) is [`BcFormat::Bc1Opaque`]: decoded with alpha 255
//!   everywhere, which a GPU BC1 texture only reproduces when no block uses
//!   that transparent index ([`BcFormat::Bc1Opaque`] textures that do are
//!   decoded for upload; see [`BcMips::gpu_samples_exactly`]).

/// Which block compression a texture's levels are stored in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BcFormat {
    /// DXT1 with 1-bit alpha: BC1, three-colour blocks' index 3 is
    /// transparent black (`Bc1RgbaUnormSrgb` on the GPU).
    Bc1,
    /// DXT1 without alpha: BC1 whose alpha is 255 everywhere (index 3 of a
    /// three-colour block is opaque black).
    Bc1Opaque,
    /// DXT3: BC2, explicit 4-bit alpha.
    Bc2,
    /// DXT5: BC3, interpolated 8-bit alpha.
    Bc3,
}

impl BcFormat {
    /// Bytes of one 4x4 block.
    pub fn block_bytes(self) -> usize {
        match self {
            BcFormat::Bc1 | BcFormat::Bc1Opaque => 8,
            BcFormat::Bc2 | BcFormat::Bc3 => 16,
        }
    }

    /// Short name (`BC1`, `BC1 (opaque)`, `BC2`, `BC3`).
    pub fn name(self) -> &'static str {
        match self {
            BcFormat::Bc1 => "BC1",
            BcFormat::Bc1Opaque => "BC1 (opaque)",
            BcFormat::Bc2 => "BC2",
            BcFormat::Bc3 => "BC3",
        }
    }

    /// Bytes of a `w x h` level: whole 4x4 blocks, one at least.
    pub fn level_bytes(self, w: u32, h: u32) -> usize {
        w.div_ceil(4) as usize * h.div_ceil(4) as usize * self.block_bytes()
    }

    /// Decodes one `w x h` level of blocks to RGBA8 (row-major, top row
    /// first). `data` must hold [`Self::level_bytes`] bytes.
    pub fn decode_level(self, data: &[u8], w: u32, h: u32) -> Result<Vec<u8>, String> {
        let need = self.level_bytes(w, h);
        if data.len() != need {
            return Err(format!(
                "{} level {w}x{h} has {} bytes, expected {need}",
                self.name(),
                data.len()
            ));
        }
        let (wu, hu) = (w as usize, h as usize);
        let mut px = vec![0u32; wu * hu];
        let decoded = match self {
            BcFormat::Bc1 => texture2ddecoder::decode_bc1a(data, wu, hu, &mut px),
            BcFormat::Bc1Opaque => texture2ddecoder::decode_bc1(data, wu, hu, &mut px),
            BcFormat::Bc2 | BcFormat::Bc3 => {
                let mut blocks = data.to_vec();
                for b in blocks.chunks_exact_mut(16) {
                    four_colour_mode(&mut b[8..]);
                }
                if self == BcFormat::Bc2 {
                    texture2ddecoder::decode_bc2(&blocks, wu, hu, &mut px)
                } else {
                    texture2ddecoder::decode_bc3(&blocks, wu, hu, &mut px)
                }
            }
        };
        decoded.map_err(|e| format!("{} level {w}x{h}: {e}", self.name()))?;
        let opaque = self == BcFormat::Bc1Opaque;
        Ok(px
            .iter()
            .flat_map(|p| {
                let [b, g, r, a] = p.to_le_bytes();
                [r, g, b, if opaque { 255 } else { a }]
            })
            .collect())
    }
}

/// Rewrites a BC1-layout colour block so that `texture2ddecoder`'s BC1 rule
/// decodes it the way BC2/BC3 colour is decoded (four-colour mode whatever
/// the endpoint order).
fn four_colour_mode(colour: &mut [u8]) {
    let c0 = u16::from_le_bytes([colour[0], colour[1]]);
    let c1 = u16::from_le_bytes([colour[2], colour[3]]);
    if c0 > c1 {
        return;
    }
    let idx = u32::from_le_bytes([colour[4], colour[5], colour[6], colour[7]]);
    let idx = if c0 == c1 {
        // All four palette entries equal c0.
        0
    } else {
        // Swapping the endpoints swaps entries 0<->1 and 2<->3.
        colour[..2].copy_from_slice(&c1.to_le_bytes());
        colour[2..4].copy_from_slice(&c0.to_le_bytes());
        idx ^ 0x5555_5555
    };
    colour[4..8].copy_from_slice(&idx.to_le_bytes());
}

/// A mip chain of BC blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BcMips {
    /// The block format.
    pub format: BcFormat,
    /// Blocks of each level (level 0 first), row-major block rows.
    pub mips: Vec<Vec<u8>>,
}

impl BcMips {
    /// Whether a GPU `Bc*RgbaUnorm*` texture of these blocks samples the
    /// same texels as [`BcFormat::decode_level`]: always, except for
    /// [`BcFormat::Bc1Opaque`] with a three-colour block that uses index 3
    /// (the GPU would make those texels transparent).
    pub fn gpu_samples_exactly(&self) -> bool {
        if self.format != BcFormat::Bc1Opaque {
            return true;
        }
        !self.mips.iter().any(|level| {
            level.chunks_exact(8).any(|b| {
                let c0 = u16::from_le_bytes([b[0], b[1]]);
                let c1 = u16::from_le_bytes([b[2], b[3]]);
                let idx = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
                c0 <= c1 && (0..16).any(|i| (idx >> (2 * i)) & 3 == 3)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_sizes_round_up_to_whole_blocks() {
        assert_eq!(BcFormat::Bc1.level_bytes(1, 1), 8);
        assert_eq!(BcFormat::Bc1.level_bytes(2, 8), 16);
        assert_eq!(BcFormat::Bc3.level_bytes(8, 8), 64);
        assert_eq!(BcFormat::Bc2.level_bytes(4, 1), 16);
        assert!(BcFormat::Bc1.decode_level(&[0; 16], 4, 4).is_err());
    }

    #[test]
    fn bc3_colour_uses_four_colour_mode_whatever_the_endpoint_order() {
        // Opaque alpha half (a0 = a1 = 255, indices 0), colour c0 = blue <
        // c1 = red, indices 0, 1, 2, 3 in the first row.
        let mut block = vec![255, 255, 0, 0, 0, 0, 0, 0];
        block.extend_from_slice(&[0x1F, 0x00, 0x00, 0xF8, 0b1110_0100, 0, 0, 0]);
        let px = BcFormat::Bc3.decode_level(&block, 4, 4).expect("bc3");
        assert_eq!(&px[0..4], &[0, 0, 255, 255]);
        assert_eq!(&px[4..8], &[255, 0, 0, 255]);
        // Entry 2 is 2/3 c0 + 1/3 c1 (not the three-colour midpoint), entry
        // 3 is 1/3 c0 + 2/3 c1 (not black).
        assert_eq!(&px[8..12], &[85, 0, 170, 255]);
        assert_eq!(&px[12..16], &[170, 0, 85, 255]);
        // The same colour half as BC1 keeps the three-colour rule.
        let px = BcFormat::Bc1.decode_level(&block[8..], 4, 4).expect("bc1");
        assert_eq!(&px[8..12], &[127, 0, 127, 255]);
        assert_eq!(&px[12..16], &[0, 0, 0, 0]);
        // Equal endpoints: every texel is c0.
        let mut flat = vec![0xFF; 8]; // BC2 alpha: 15 (255) everywhere
        flat.extend_from_slice(&[0xE0, 0x07, 0xE0, 0x07, 0xFF, 0xFF, 0xFF, 0xFF]);
        let px = BcFormat::Bc2.decode_level(&flat, 4, 4).expect("bc2");
        assert!(px.chunks_exact(4).all(|p| p == [0, 255, 0, 255]), "{px:?}");
    }

    #[test]
    fn opaque_bc1_with_transparent_index_is_not_gpu_exact() {
        let four = vec![0x00, 0xF8, 0x1F, 0x00, 0xFF, 0xFF, 0xFF, 0xFF];
        let three_no_3 = vec![0x1F, 0x00, 0x00, 0xF8, 0xAA, 0xAA, 0xAA, 0xAA];
        let three_3 = vec![0x1F, 0x00, 0x00, 0xF8, 0xFF, 0x00, 0x00, 0x00];
        let mips = |b: &Vec<u8>| BcMips {
            format: BcFormat::Bc1Opaque,
            mips: vec![b.clone()],
        };
        assert!(mips(&four).gpu_samples_exactly());
        assert!(mips(&three_no_3).gpu_samples_exactly());
        assert!(!mips(&three_3).gpu_samples_exactly());
        let px = BcFormat::Bc1Opaque.decode_level(&three_3, 4, 4).unwrap();
        assert_eq!(&px[..4], &[0, 0, 0, 255]);
        let with_alpha = BcMips {
            format: BcFormat::Bc1,
            mips: vec![three_3],
        };
        assert!(with_alpha.gpu_samples_exactly());
    }
}
