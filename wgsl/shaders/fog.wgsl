// Rust mirror: sward_passes::terrain::shading::{fog_factor, apply_fog}
// (parity test: terrain::shading tests with the probe_shading compute probe).
//
// Linear distance fog shared by terrain and grass: nothing before `start`,
// fully fog-coloured from `end` on.

// Fog amount in [0, 1] at `dist` world units from the eye.
fn fog_factor(dist: f32, start: f32, end: f32) -> f32 {
    return clamp((dist - start) / max(end - start, 1e-4), 0.0, 1.0);
}

// `color` fogged towards `fog_color` at `dist` world units from the eye.
fn apply_fog(color: vec3<f32>, fog_color: vec3<f32>, dist: f32, start: f32, end: f32) -> vec3<f32> {
    return mix(color, fog_color, fog_factor(dist, start, end));
}
