// Rust mirror: sward_passes::terrain::shading::{sun_lighting, SUN_AMBIENT, SUN_DIFFUSE}
// (parity test: terrain::shading tests with the probe_shading compute probe).
//
// Vanilla-style sun: ambient + diffuse * max(N.L, 0). Cool ambient, warm
// diffuse halved so that ambient + diffuse stays <= 1.

const SUN_AMBIENT: vec3<f32> = vec3<f32>(0.42, 0.45, 0.50);
const SUN_DIFFUSE: vec3<f32> = vec3<f32>(0.50, 0.475, 0.425);

// Light reaching a surface with `normal`; `sun_dir` points towards the sun.
// Neither needs to be normalised.
fn sun_lighting(normal: vec3<f32>, sun_dir: vec3<f32>) -> vec3<f32> {
    let n_dot_l = max(dot(normalize(normal), normalize(sun_dir)), 0.0);
    return SUN_AMBIENT + SUN_DIFFUSE * n_dot_l;
}
