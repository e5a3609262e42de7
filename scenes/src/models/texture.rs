//! Detail textures: procedural RGBA8 blades and blossoms with alpha cut-outs,
//! tinted per model, with a full box-filtered mip chain; and textures read
//! from BLP files, which keep DXT levels as BC blocks ([`TexturePixels::Bc`])
//! so that a GPU with BC support samples them without a CPU decode.

use std::borrow::Cow;

use super::bc::{BcFormat, BcMips};

/// A texture with its full mip chain (level 0 first, down to 1x1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DetailTexture {
    /// Width of level 0 in texels (a power of two).
    pub width: u32,
    /// Height of level 0 in texels (a power of two).
    pub height: u32,
    /// The texels of every level, RGBA8 or BC blocks.
    pub pixels: TexturePixels,
}

/// How a [`DetailTexture`]'s levels are stored: one form only, so a
/// compressed texture is not held twice. [`DetailTexture::decode_rgba`]
/// gives RGBA8 levels either way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TexturePixels {
    /// RGBA8 texels of each level, row-major, top row first.
    Rgba8(Vec<Vec<u8>>),
    /// BC blocks of each level (DXT1/3/5 BLPs).
    Bc(BcMips),
}

/// What a texture shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Motif {
    /// Tapered grass blades.
    Blades,
    /// Blades with round blossoms near the top.
    Blossoms,
    /// A fern frond: a stem with paired leaflets.
    Frond,
}

impl DetailTexture {
    /// Number of mip levels a `w x h` texture has down to 1x1.
    pub fn full_mip_count(width: u32, height: u32) -> u32 {
        32 - width.max(height).max(1).leading_zeros()
    }

    /// Size of mip `level`.
    pub fn mip_size(&self, level: u32) -> (u32, u32) {
        ((self.width >> level).max(1), (self.height >> level).max(1))
    }

    /// An RGBA8 texture of `mips` (level 0 first).
    pub fn rgba(width: u32, height: u32, mips: Vec<Vec<u8>>) -> Self {
        DetailTexture {
            width,
            height,
            pixels: TexturePixels::Rgba8(mips),
        }
    }

    /// Number of stored mip levels.
    pub fn mip_count(&self) -> usize {
        match &self.pixels {
            TexturePixels::Rgba8(m) => m.len(),
            TexturePixels::Bc(bc) => bc.mips.len(),
        }
    }

    /// The block format, when stored as BC blocks.
    pub fn bc_format(&self) -> Option<BcFormat> {
        match &self.pixels {
            TexturePixels::Rgba8(_) => None,
            TexturePixels::Bc(bc) => Some(bc.format),
        }
    }

    /// Bytes of the stored levels (RGBA8 texels or BC blocks).
    pub fn stored_bytes(&self) -> u64 {
        let levels = match &self.pixels {
            TexturePixels::Rgba8(m) => m,
            TexturePixels::Bc(bc) => &bc.mips,
        };
        levels.iter().map(|l| l.len() as u64).sum()
    }

    /// RGBA8 texels of mip `level` (decoded when stored as BC blocks).
    pub fn rgba_level(&self, level: usize) -> Result<Cow<'_, [u8]>, String> {
        let (w, h) = self.mip_size(level as u32);
        match &self.pixels {
            TexturePixels::Rgba8(m) => m
                .get(level)
                .map(|l| Cow::Borrowed(l.as_slice()))
                .ok_or_else(|| format!("no mip level {level}")),
            TexturePixels::Bc(bc) => {
                let data = bc
                    .mips
                    .get(level)
                    .ok_or_else(|| format!("no mip level {level}"))?;
                bc.format.decode_level(data, w, h).map(Cow::Owned)
            }
        }
    }

    /// Every level as RGBA8 (the CPU path of BC textures: decoded here).
    pub fn decode_rgba(&self) -> Result<Vec<Vec<u8>>, String> {
        (0..self.mip_count())
            .map(|l| self.rgba_level(l).map(Cow::into_owned))
            .collect()
    }

    /// Checks sizes and that the mip chain is complete.
    pub fn validate(&self) -> Result<(), String> {
        if !self.width.is_power_of_two() || !self.height.is_power_of_two() {
            return Err(format!(
                "texture {}x{} is not a power of two",
                self.width, self.height
            ));
        }
        let levels = Self::full_mip_count(self.width, self.height);
        if self.mip_count() as u32 != levels {
            return Err(format!(
                "{} mip levels, expected {levels}",
                self.mip_count()
            ));
        }
        let (mips, bc) = match &self.pixels {
            TexturePixels::Rgba8(m) => (m, None),
            TexturePixels::Bc(bc) => (&bc.mips, Some(bc.format)),
        };
        for (l, m) in mips.iter().enumerate() {
            let (w, h) = self.mip_size(l as u32);
            let expected = match bc {
                None => (w * h * 4) as usize,
                Some(f) => f.level_bytes(w, h),
            };
            if m.len() != expected {
                return Err(format!(
                    "mip {l} has {} bytes, expected {expected}",
                    m.len()
                ));
            }
        }
        Ok(())
    }

    /// Draws a `size x size` texture of `motif` in `tint` (RGB, 0..1),
    /// varied by `seed`, and builds its mip chain.
    pub(crate) fn draw(size: u32, motif: Motif, tint: [f32; 3], seed: u32) -> Self {
        let n = size as usize;
        let mut base = vec![0u8; n * n * 4];
        let mut rng = seed.wrapping_mul(0x9E37_79B9) | 1;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 17;
            rng ^= rng << 5;
            (rng >> 8) as f32 / (1u32 << 24) as f32
        };
        // A list of (centre x at the root, lean, half width at the root, top y).
        let blades: Vec<[f32; 4]> = (0..7)
            .map(|i| {
                let cx = (i as f32 + 0.5 + (next() - 0.5) * 0.6) / 7.0;
                [
                    cx,
                    (next() - 0.5) * 0.35,
                    0.03 + next() * 0.03,
                    0.05 + next() * 0.3,
                ]
            })
            .collect();
        let blossoms: Vec<[f32; 3]> = (0..4)
            .map(|i| {
                [
                    (i as f32 + 0.5) / 4.0 + (next() - 0.5) * 0.1,
                    0.12 + next() * 0.2,
                    0.07,
                ]
            })
            .collect();
        for y in 0..n {
            for x in 0..n {
                let fx = (x as f32 + 0.5) / n as f32;
                let fy = (y as f32 + 0.5) / n as f32; // 0 at top, 1 at the root
                let mut a = 0.0f32;
                let mut c = tint.map(|t| t * (0.45 + 0.55 * (1.0 - fy)));
                match motif {
                    Motif::Blades | Motif::Blossoms => {
                        for b in &blades {
                            if fy < b[3] {
                                continue;
                            }
                            let t = (1.0 - fy) / (1.0 - b[3]); // 0 root .. 1 tip
                            let centre = b[0] + b[1] * t * t;
                            let half = b[2] * (1.0 - t);
                            let d = (fx - centre).abs();
                            if d < half {
                                a = 1.0;
                            }
                        }
                        if motif == Motif::Blossoms {
                            for bl in &blossoms {
                                let d = ((fx - bl[0]).powi(2) + (fy - bl[1]).powi(2)).sqrt();
                                if d < bl[2] {
                                    a = 1.0;
                                    let petal = 1.0 - d / bl[2] * 0.4;
                                    c = [
                                        1.0 * petal,
                                        (0.55 + tint[1] * 0.4) * petal,
                                        tint[2] * petal,
                                    ];
                                }
                            }
                        }
                    }
                    Motif::Frond => {
                        let stem = (fx - 0.5).abs() < 0.02 && fy > 0.08;
                        let t = 1.0 - fy;
                        let leaf_half = 0.42
                            * (1.0 - t).max(0.0)
                            * (0.6 + 0.4 * ((fy * 40.0).sin() * 0.5 + 0.5));
                        let leaf = (fx - 0.5).abs() < leaf_half
                            && fy > 0.08
                            && ((fy * 20.0).fract() < 0.7);
                        if stem || leaf {
                            a = 1.0;
                        }
                    }
                }
                let px = &mut base[(y * n + x) * 4..(y * n + x) * 4 + 4];
                for (o, v) in px.iter_mut().zip(c) {
                    *o = (v.clamp(0.0, 1.0) * 255.0).round() as u8;
                }
                px[3] = (a * 255.0) as u8;
            }
        }
        Self::rgba(size, size, box_mips(base, size, rounded_average))
    }

    /// Level 0 as RGBA8 (empty when it cannot be decoded; [`Self::validate`]
    /// names the problem).
    fn rgba_base(&self) -> Cow<'_, [u8]> {
        self.rgba_level(0).unwrap_or_default()
    }

    /// Fraction of level-0 texels with alpha >= 128.
    pub fn opaque_fraction(&self) -> f32 {
        let base = self.rgba_base();
        let opaque = base.chunks_exact(4).filter(|p| p[3] >= 128).count();
        opaque as f32 / (base.len() / 4).max(1) as f32
    }

    /// Mean RGB of level-0 texels with alpha >= 128 (0..1).
    pub fn mean_opaque_rgb(&self) -> [f32; 3] {
        let mut sum = [0.0f64; 3];
        let mut n = 0u32;
        for p in self.rgba_base().chunks_exact(4).filter(|p| p[3] >= 128) {
            for (s, v) in sum.iter_mut().zip(p) {
                *s += *v as f64 / 255.0;
            }
            n += 1;
        }
        sum.map(|s| (s / n.max(1) as f64) as f32)
    }
}

/// The mip chain of a square RGBA8 image `side` texels wide (level 0 first,
/// down to 1x1): each texel of a level is `average(channel, [top-left,
/// top-right, bottom-left, bottom-right])` of the 2x2 texels it covers in
/// the level above.
pub(crate) fn box_mips(
    level0: Vec<u8>,
    side: u32,
    average: impl Fn(usize, [u8; 4]) -> u8,
) -> Vec<Vec<u8>> {
    let mut mips = vec![level0];
    let mut s = side;
    while s > 1 {
        let prev = &mips[mips.len() - 1];
        let n = s / 2;
        let mut next = Vec::with_capacity((n * n * 4) as usize);
        for y in 0..n {
            for x in 0..n {
                for ch in 0..4 {
                    let at = |dx: u32, dy: u32| {
                        prev[(((2 * y + dy) * s + 2 * x + dx) * 4 + ch) as usize]
                    };
                    next.push(average(
                        ch as usize,
                        [at(0, 0), at(1, 0), at(0, 1), at(1, 1)],
                    ));
                }
            }
        }
        mips.push(next);
        s = n;
    }
    mips
}

/// The plain box filter of [`box_mips`]: the four bytes' mean, rounded to
/// nearest (every channel alike).
pub(crate) fn rounded_average(_channel: usize, t: [u8; 4]) -> u8 {
    ((t.iter().map(|&v| u32::from(v)).sum::<u32>() + 2) / 4) as u8
}
