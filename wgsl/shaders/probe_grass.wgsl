// Rust mirror: sward_passes::grass::wind (wind_offset), grass::fade
// (distance_fade), grass::material (alpha_key_coverage, alpha_mip_level, alpha_mip_scaled,
// dither_threshold);
// parity test `grass::wind::tests::gpu_wind_and_fade_match_cpu`.
//
// One probe input per invocation; writes the GPU results of the grass
// snippets so the test can compare them with the CPU mirrors.

//! import wind, fade, alpha_key

struct ProbeInput {
    // world xy of the instance, vertex z, time
    a: vec4<f32>,
    // z_min, height, fade distance, alpha
    b: vec4<f32>,
    // pixel x, pixel y (as f32), alpha fwidth, smooth fade (1/0)
    c: vec4<f32>,
    // texel-space screen derivatives: dx (xy), dy (zw)
    d: vec4<f32>,
}

struct ProbeOutput {
    offset: vec2<f32>,
    fade: f32,
    coverage: f32,
    dither: f32,
    mip_alpha: f32,
    _pad1: f32,
    _pad2: f32,
}

@group(0) @binding(0) var<uniform> wind: Wind;
@group(0) @binding(1) var<storage, read> inputs: array<ProbeInput>;
@group(0) @binding(2) var<storage, read_write> outputs: array<ProbeOutput>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&inputs)) {
        return;
    }
    let p = inputs[i];
    var w = wind;
    w.params.x = p.a.w;
    var o: ProbeOutput;
    o.offset = wind_offset(w, p.a.xy, p.a.z, p.b.x, p.b.y);
    o.fade = distance_fade(p.b.z, 160.0, 220.0, p.c.w > 0.5);
    o.coverage = alpha_key_coverage(p.b.w, 0.5, p.c.z);
    o.mip_alpha = alpha_mip_scaled(p.b.w, alpha_mip_level(p.d.xy, p.d.zw));
    o.dither = dither_threshold(vec2<u32>(u32(p.c.x), u32(p.c.y)));
    outputs[i] = o;
}
