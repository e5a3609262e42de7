//! CPU mirror of the `fade` WGSL snippet: the grass distance fade every grass
//! tier applies per instance (1 before `start`, smoothstep to 0 at `end`, a
//! hard cut at `end` when smooth fading is off). The GPU parity test lives in
//! [`super::wind`] with the other grass snippets.

/// WGSL `smoothstep(e0, e1, x)`.
pub fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Coverage multiplier of a clump whose origin is `dist` units from the eye.
pub fn distance_fade(dist: f32, start: f32, end: f32, smooth_fade: bool) -> f32 {
    if dist >= end {
        return 0.0;
    }
    if !smooth_fade || dist <= start {
        return 1.0;
    }
    1.0 - smoothstep(start, end, dist)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fade_band_runs_from_start_to_end() {
        assert_eq!(distance_fade(100.0, 160.0, 220.0, true), 1.0);
        assert_eq!(distance_fade(160.0, 160.0, 220.0, true), 1.0);
        assert!((distance_fade(190.0, 160.0, 220.0, true) - 0.5).abs() < 1e-6);
        assert!(distance_fade(219.0, 160.0, 220.0, true) < 0.01);
        assert_eq!(distance_fade(220.0, 160.0, 220.0, true), 0.0);
        // Monotonic inside the band.
        let mut last = 1.0;
        for i in 0..=60 {
            let f = distance_fade(160.0 + i as f32, 160.0, 220.0, true);
            assert!(f <= last);
            last = f;
        }
    }

    #[test]
    fn without_smooth_fade_it_is_a_hard_cut_at_the_draw_distance() {
        assert_eq!(distance_fade(219.9, 160.0, 220.0, false), 1.0);
        assert_eq!(distance_fade(220.0, 160.0, 220.0, false), 0.0);
    }
}
