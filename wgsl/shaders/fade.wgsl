// Rust mirror: sward_passes::grass::fade::distance_fade; parity test
// `grass::wind::tests::gpu_wind_and_fade_match_cpu` via probe_grass.wgsl.
//
// Grass distance fade (default: fade from 160 to 220 units). Returns the
// coverage multiplier of a clump whose origin is `dist` units from the eye:
// 1 before `start`, a smoothstep down to 0 at `end`, and 0 from `end` on.
// With `smooth_fade` off it is a hard cut at `end`. Every grass tier calls
// this with the eye-to-instance-origin distance, so they cut identically.

fn distance_fade(dist: f32, start: f32, end: f32, smooth_fade: bool) -> f32 {
    if (dist >= end) {
        return 0.0;
    }
    if (!smooth_fade || dist <= start) {
        return 1.0;
    }
    return 1.0 - smoothstep(start, end, dist);
}
