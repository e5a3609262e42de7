//! Small deterministic random numbers and hashes (no external crate), so
//! placement output is byte-identical on every machine and in every order.
//!
//! [`Rng32`] is a 32-bit PCG-style generator (LCG state, permuted output), good
//! in its low bits too, which the client routine's `rng & 7` relies on.
//! [`hash32`] is a 32-bit integer finaliser (`lowbias32`) for stateless seeds.

/// 32-bit integer hash with good avalanche (Wellons' `lowbias32`).
pub const fn hash32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// Hashes a list of words into one (order-sensitive).
pub fn hash_words(words: &[u32]) -> u32 {
    words
        .iter()
        .fold(0x9e37_79b9, |h, &w| hash32(h ^ w.wrapping_add(0x632b_e5ab)))
}

/// Maps a hash to `[0, 1)` using its top 24 bits.
pub fn unit_f32(h: u32) -> f32 {
    (h >> 8) as f32 * (1.0 / (1u32 << 24) as f32)
}

/// A small PCG-style generator: 32-bit LCG state, RXS-M-XS output.
#[derive(Clone, Debug)]
pub struct Rng32 {
    state: u32,
}

impl Rng32 {
    /// A generator seeded with `seed` (any value, 0 included).
    pub fn new(seed: u32) -> Self {
        let mut r = Self { state: seed };
        r.step();
        r
    }

    fn step(&mut self) {
        self.state = self
            .state
            .wrapping_mul(747_796_405)
            .wrapping_add(2_891_336_453);
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        let s = self.state;
        self.step();
        let word = ((s >> ((s >> 28) + 4)) ^ s).wrapping_mul(277_803_737);
        (word >> 22) ^ word
    }

    /// Uniform in `[0, 1)`.
    pub fn next_f32(&mut self) -> f32 {
        unit_f32(self.next_u32())
    }

    /// Uniform in `[lo, hi)`.
    pub fn range_f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next_f32()
    }

    /// Uniform integer in `[0, n)` (`n > 0`; 0 gives 0).
    pub fn below(&mut self, n: u32) -> u32 {
        ((self.next_u32() as u64 * n as u64) >> 32) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn low_bits_are_uniform() {
        let mut r = Rng32::new(0);
        let mut counts = [0u32; 8];
        for _ in 0..80_000 {
            counts[(r.next_u32() & 7) as usize] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn seeds_give_distinct_streams_and_repeat() {
        let a: Vec<u32> = (0..4)
            .map({
                let mut r = Rng32::new(7);
                move |_| r.next_u32()
            })
            .collect();
        let b: Vec<u32> = (0..4)
            .map({
                let mut r = Rng32::new(8);
                move |_| r.next_u32()
            })
            .collect();
        let a2: Vec<u32> = (0..4)
            .map({
                let mut r = Rng32::new(7);
                move |_| r.next_u32()
            })
            .collect();
        assert_ne!(a, b);
        assert_eq!(a, a2);
        assert_ne!(hash_words(&[1, 2]), hash_words(&[2, 1]));
        let f = Rng32::new(3).range_f32(0.9, 1.1);
        assert!((0.9..1.1).contains(&f));
    }
}
