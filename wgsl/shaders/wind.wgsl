// Rust mirror: sward_passes::grass::wind (Wind, wind_sway, wind_offset); parity
// test `grass::wind::tests::gpu_wind_and_fade_match_cpu` via probe_grass.wgsl.
//
// Root-anchored grass wind: a vertex sways along the
// wind direction by
//   sin(time * speed + dot(world_xy, phase)) * amplitude * height
//     * smoothstep(root_fraction, 1, clamp((z - z_min) / height, 0, 1))
// where `world_xy` is the instance origin (so a whole clump sways together and
// neighbouring clumps are phased by position), `z` the model-space vertex
// height and `height` the model's authored height. The sine argument is
// wrapped to [0, 2pi) in two steps so that large world coordinates and long
// run times keep f32 precision on every GPU.

const WIND_TAU: f32 = 6.2831855;

// Wind state shared by every grass tier (two vec4s of a uniform block).
struct Wind {
    // time (s), speed (rad/s), amplitude (fraction of height), root fraction
    params: vec4<f32>,
    // phase per world unit (xy, rad), sway direction (zw, any length)
    phase_dir: vec4<f32>,
}

// `x` wrapped into [0, 2pi).
fn wind_wrap(x: f32) -> f32 {
    return x - WIND_TAU * floor(x / WIND_TAU);
}

// Signed sway distance (world units) of a vertex `z` of a model spanning
// `z_min ..= z_min + height`, for an instance rooted at `world_xy`.
fn wind_sway(w: Wind, world_xy: vec2<f32>, z: f32, z_min: f32, height: f32) -> f32 {
    let h = max(height, 0.001);
    let top = smoothstep(w.params.w, 1.0, clamp((z - z_min) / h, 0.0, 1.0));
    let phase = wind_wrap(world_xy.x * w.phase_dir.x) + wind_wrap(world_xy.y * w.phase_dir.y);
    let arg = wind_wrap(w.params.x * w.params.y) + phase;
    return sin(arg) * w.params.z * h * top;
}

// Horizontal world-space offset of that vertex: the normalised wind
// direction times `wind_sway` (zero for a zero direction).
fn wind_offset(w: Wind, world_xy: vec2<f32>, z: f32, z_min: f32, height: f32) -> vec2<f32> {
    let len = length(w.phase_dir.zw);
    let still = len <= 0.0;
    let dir = w.phase_dir.zw / select(len, 1.0, still);
    return select(dir * wind_sway(w, world_xy, z, z_min, height), vec2<f32>(0.0), still);
}
