//! The 1.12 client's random generator (`CRandom::uint32` over a `CRndSeed`),
//! the stream its detail-doodad routine draws from.
//!
//! State is two words: an accumulator (the seed itself at first) and four
//! byte-wide lane counters. Seeding expands the seed into the lanes as
//! `4 * (seed % 61)`, `4 * (seed % 59)`, `4 * (seed % 53)` and
//! `4 * (seed % 47)` (bytes 0..3). Each draw steps every lane down by its own
//! amount, wrapping by its own period (lane 0: -28 mod 244, lane 1: -24 mod
//! 236, lane 2: -12 mod 212, lane 3: -4 mod 188), reads a little-endian word
//! of a fixed 256-byte noise table at each lane's byte offset, and adds
//! `n0 ^ rotl(n1, 3) ^ rotl(n2, 2) ^ rotl(n3, 1)` to the accumulator, which
//! is the value returned.
//!
//! The detail-doodad routine turns a draw into a float in `[-1, 1]`: the low
//! 23 bits become the mantissa of a float `f` in `[1, 2)`; with the sign bit
//! set the value is `2 - f` (in `(0, 1]`), otherwise `f - 2` (in `[-1, 0)`).
//!
//! Sources: the generator and the table as whoa's typhoon library
//! re-implements them (`whoahq/typhoon`, `tempest/random/CRandom.cpp`,
//! `tempest/random/CRndSeed.cpp`); the float conversion as Benilla's port of
//! `CMapChunk::CreateDetailDoodads` (`crates/benilla-formats/src/ground_effects.rs`)
//! and noggit-red's `ChunkAddDetailDoodads.cpp` (`genCoord`) write it. See
//! docs/techniques/client-placement.md.

/// The noise table as 64 little-endian words (256 bytes).
const NOISE_WORDS: [u32; 64] = [
    0x9927_148E,
    0x08C7_AAFD,
    0x1F3E_E6D5,
    0xDA55_BBF6,
    0x6A4A_A075,
    0xFF97_BDE8,
    0x9FBC_9BDE,
    0x46A1_8A81,
    0x63E3_0B6E,
    0x5D6C_7A76,
    0xCA69_D388,
    0x25B9_47C3,
    0x3FA2_AB83,
    0xBA7C_41A6,
    0x0195_ACE5,
    0xC109_CF7E,
    0x7170_62D9,
    0x0205_DB8D,
    0x54EF_8724,
    0x3037_D4C6,
    0x7BCB_1BD0,
    0xECD8_E4B8,
    0xDCAD_CE49,
    0xC494_A913,
    0x0DAE_398F,
    0x0EDD_5218,
    0x85F5_FA78,
    0x6DAF_D258,
    0x3B53_B2A4,
    0xBE50_A551,
    0x11F4_2DFC,
    0xF116_9848,
    0x663D_DF86,
    0x2F2E_445E,
    0x176B_0736,
    0xB64C_298B,
    0xE75F_89E2,
    0xE121_A7CD,
    0xED65_C94D,
    0x239C_EEFE,
    0x04B7_7D33,
    0x402A_9A9E,
    0xF35B_10B3,
    0x921C_7782,
    0x571E_4E20,
    0x8C06_7222,
    0xFB73_2C67,
    0xBF0A_C259,
    0x0CF9_5C79,
    0x6812_1A28,
    0x4219_3474,
    0xF884_C0B1,
    0x9D15_F038,
    0x6F3A_F260,
    0x91EB_90B4,
    0x6135_7F1D,
    0x5603_325A,
    0x932B_C5A3,
    0x434B_0F80,
    0x3CE0_A8F7,
    0x2664_D196,
    0x4FCC_45D7,
    0xB5E9_B0C8,
    0xEA31_D600,
];

/// The noise table as bytes.
pub const NOISE: [u8; 256] = {
    let mut out = [0u8; 256];
    let mut i = 0;
    while i < 64 {
        let b = NOISE_WORDS[i].to_le_bytes();
        out[i * 4] = b[0];
        out[i * 4 + 1] = b[1];
        out[i * 4 + 2] = b[2];
        out[i * 4 + 3] = b[3];
        i += 1;
    }
    out
};

/// Per lane (byte 0..3 of the lane word): the step subtracted each draw,
/// the lane's period (added back when the step goes below zero) and the
/// rotation applied to the noise word read at the lane's offset.
const LANES: [(u32, u32, u32); 4] = [
    (0x1C, 0xF4, 0),
    (0x18, 0xEC, 3),
    (0x0C, 0xD4, 2),
    (0x04, 0xBC, 1),
];

/// The little-endian word at byte offset `i` of [`NOISE`]. Lane offsets stay
/// below 252 from any seed, so the read never leaves the table; the mask only
/// keeps a hand-made state total.
fn noise_word(i: u32) -> u32 {
    let b = |k: u32| NOISE[((i + k) & 0xFF) as usize];
    u32::from_le_bytes([b(0), b(1), b(2), b(3)])
}

/// The client's generator (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientRng {
    acc: u32,
    lanes: u32,
}

impl ClientRng {
    /// Seeds the generator (`CRndSeed::SetSeed`).
    pub fn new(seed: u32) -> Self {
        Self {
            acc: seed,
            lanes: (4 * (seed % 61))
                | ((seed % 59) << 10)
                | ((seed % 53) << 18)
                | ((seed % 47) << 26),
        }
    }

    /// The next 32-bit value (`CRandom::uint32`).
    pub fn next_u32(&mut self) -> u32 {
        let mut lanes = 0;
        let mut mix = 0;
        for (k, &(step, period, rot)) in LANES.iter().enumerate() {
            let shift = 8 * k as u32;
            let b = (self.lanes >> shift) & 0xFF;
            let i = if b >= step {
                b - step
            } else {
                b + period - step
            };
            lanes |= i << shift;
            mix ^= noise_word(i).rotate_left(rot);
        }
        self.lanes = lanes;
        self.acc = self.acc.wrapping_add(mix);
        self.acc
    }

    /// The next value as the detail-doodad routine's signed float in
    /// `[-1, 1]` (never 0).
    pub fn next_signed(&mut self) -> f32 {
        signed_unit(self.next_u32())
    }
}

/// The routine's float of one draw: mantissa bits give `f` in `[1, 2)`;
/// sign bit set: `2 - f`, clear: `f - 2`.
pub fn signed_unit(draw: u32) -> f32 {
    let f = f32::from_bits((draw & 0x007F_FFFF) | 0x3F80_0000);
    if draw & 0x8000_0000 != 0 {
        2.0 - f
    } else {
        f - 2.0
    }
}
