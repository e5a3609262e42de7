//! CPU references of the shared WGSL snippets, with the same names and
//! argument order as their WGSL versions; GPU parity tests compare the two.

/// Mirrors `hash.wgsl`.
pub mod hash {
    /// PCG output-permutation hash of one `u32` (WGSL `pcg_hash`).
    pub fn pcg_hash(v: u32) -> u32 {
        let state = v.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
        let word = ((state >> ((state >> 28) + 4)) ^ state).wrapping_mul(277_803_737);
        (word >> 22) ^ word
    }

    /// Hash of two integers (WGSL `hash2`).
    pub fn hash2(x: u32, y: u32) -> u32 {
        pcg_hash(x ^ pcg_hash(y))
    }

    /// Uniform float in `[0, 1)` from the top 24 bits of a hash (WGSL `hash_unit`).
    pub fn hash_unit(h: u32) -> f32 {
        (h >> 8) as f32 * (1.0 / 16_777_216.0)
    }
}

#[cfg(test)]
mod tests {
    use super::hash::*;

    #[test]
    fn hash_is_spread_and_unit_is_in_range() {
        let values: std::collections::HashSet<u32> = (0..10_000).map(pcg_hash).collect();
        assert_eq!(
            values.len(),
            10_000,
            "pcg_hash is a permutation on small inputs"
        );
        let mean = (0..10_000)
            .map(|i| hash_unit(pcg_hash(i)) as f64)
            .sum::<f64>()
            / 10_000.0;
        assert!((mean - 0.5).abs() < 0.02, "mean {mean}");
        assert!(hash_unit(u32::MAX) < 1.0 && hash_unit(0) == 0.0);
        assert_ne!(hash2(1, 2), hash2(2, 1));
    }
}
