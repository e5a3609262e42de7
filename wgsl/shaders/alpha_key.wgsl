// Rust mirror: sward_passes::grass::material::{alpha_key_coverage,
// alpha_mip_level, alpha_mip_scaled, dither_threshold}; parity test `grass::wind::tests::gpu_wind_and_fade_match_cpu`
// via probe_grass.wgsl.
//
// Alpha-key ("cut-out") coverage. Under 4x MSAA with alpha-to-coverage the
// texture alpha is remapped around the cutoff and sharpened by its screen
// derivative, so the edge spans about one pixel and turns into 0..4 covered
// samples (Ben Golus, "Anti-Aliased Alpha Test: The Esoteric Alpha To
// Coverage"). Without MSAA the caller discards below the cutoff instead, and
// fades by discarding against an ordered-dither threshold (screen-door), so
// fade always modulates coverage, never blending.

// Coverage in [0, 1] for texture `alpha` with cutoff `cutoff`; `alpha_fwidth`
// is `fwidth(alpha)` of the same sample.
fn alpha_key_coverage(alpha: f32, cutoff: f32, alpha_fwidth: f32) -> f32 {
    return clamp((alpha - cutoff) / max(alpha_fwidth, 0.0001) + 0.5, 0.0, 1.0);
}

// Alpha gained per mip level (Golus: box-filtered mips shrink cut-outs, so
// distant grass would thin out without it).
const ALPHA_MIP_SCALE: f32 = 0.25;

// Mip level the sampler picks for texel-space screen derivatives `dx`, `dy`
// (derivatives of `uv * texture size`).
fn alpha_mip_level(dx: vec2<f32>, dy: vec2<f32>) -> f32 {
    let d = max(max(dot(dx, dx), dot(dy, dy)), 1e-12);
    return max(0.0, 0.5 * log2(d));
}

// Texture alpha scaled up with the mip level it was sampled at.
fn alpha_mip_scaled(alpha: f32, level: f32) -> f32 {
    return alpha * (1.0 + level * ALPHA_MIP_SCALE);
}

// 4x4 Bayer threshold in (0, 1) for pixel `pixel`: keep a fragment with
// coverage `c` when `c > dither_threshold(pixel)`.
fn dither_threshold(pixel: vec2<u32>) -> f32 {
    let lo = 2u * ((pixel.x ^ pixel.y) & 1u) + (pixel.y & 1u);
    let hi = 2u * (((pixel.x ^ pixel.y) >> 1u) & 1u) + ((pixel.y >> 1u) & 1u);
    return (f32(4u * lo + hi) + 0.5) / 16.0;
}
