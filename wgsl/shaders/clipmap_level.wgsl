// Rust mirror: sward_passes::terrain::clipmap::gpu (ClipmapParams) and the CPU
// reference sward_passes::terrain::clipmap::sample (clip_sample, clip_coarse,
// morph_weight in layout.rs). Parity: clipmap tests with probe_clipmap.
//
// Geometry clipmap level data: one toroidally addressed N x N texel layer per
// level of a texture_2d_array<f32> (Rgba32Float: height, normal.xyz), texel
// (I mod N, J mod N) for integer level coordinates (I, J). A vertex blends
// its level's sample towards the next coarser level (geomorph) over a band
// ending inside the level's outer boundary, where it equals the coarse
// surface exactly (no cracks, no popping).

// Most levels (size of `cams`).
const CLIP_MAX_LEVELS: u32 = 12u;
// World X/Y of the map origin corner (32 ADT tiles of 1600/3 units).
const CLIP_WORLD_ORIGIN: f32 = 17066.666;

struct ClipmapParams {
    // Per level: camera in level units (x: I, y: J), spacing in world units (z).
    cams: array<vec4<f32>, 12>,
    // Levels in use.
    levels: u32,
    // Texels per level side (N).
    texels: u32,
    // Width of the geomorph band (level quads).
    transition: f32,
    // L-infinity distance (level quads) at which the morph reaches 1.
    morph_end: f32,
}

fn clip_wrap(v: i32, n: i32) -> i32 {
    return ((v % n) + n) % n;
}

// Raw sample (height, normal) of level `level` at its vertex (i, j).
fn clip_texel(levels: texture_2d_array<f32>, level: u32, i: i32, j: i32, n: i32) -> vec4<f32> {
    return textureLoad(levels, vec2<i32>(clip_wrap(i, n), clip_wrap(j, n)), i32(level), 0);
}

// The coarse level `level`'s surface at the finer vertex (i, j) (finer
// units): its vertex, the middle of its edge, or the middle of its quad
// diagonal (the diagonal the meshes draw: main where ci + cj is even).
fn clip_coarse(levels: texture_2d_array<f32>, level: u32, i: i32, j: i32, n: i32) -> vec4<f32> {
    let ci = i >> 1u;
    let cj = j >> 1u;
    let oi = i & 1;
    let oj = j & 1;
    let a = clip_texel(levels, level, ci, cj, n);
    if (oi == 0 && oj == 0) {
        return a;
    }
    if (oj == 0) {
        return 0.5 * (a + clip_texel(levels, level, ci + 1, cj, n));
    }
    if (oi == 0) {
        return 0.5 * (a + clip_texel(levels, level, ci, cj + 1, n));
    }
    if (((ci + cj) & 1) == 0) {
        return 0.5 * (a + clip_texel(levels, level, ci + 1, cj + 1, n));
    }
    return 0.5 * (clip_texel(levels, level, ci + 1, cj, n) + clip_texel(levels, level, ci, cj + 1, n));
}

// Geomorph weight of vertex (i, j) of `level`: 0 inside, 1 from `morph_end`
// on (L-infinity distance to the camera in level quads); never for the
// coarsest level.
fn clip_morph(p: ClipmapParams, level: u32, i: i32, j: i32) -> f32 {
    if (level + 1u >= p.levels) {
        return 0.0;
    }
    let cam = p.cams[level].xy;
    let d = max(abs(f32(i) - cam.x), abs(f32(j) - cam.y));
    return clamp((d - (p.morph_end - p.transition)) / p.transition, 0.0, 1.0);
}

// Morphed (height, normal) of vertex (i, j) of `level`.
fn clip_sample(levels: texture_2d_array<f32>, p: ClipmapParams, level: u32, i: i32, j: i32) -> vec4<f32> {
    let n = i32(p.texels);
    let fine = clip_texel(levels, level, i, j, n);
    let a = clip_morph(p, level, i, j);
    if (a <= 0.0) {
        return fine;
    }
    let coarse = clip_coarse(levels, level + 1u, i, j, n);
    return (1.0 - a) * fine + a * coarse;
}
