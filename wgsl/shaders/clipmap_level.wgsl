// Rust mirror: sward_passes::terrain::clipmap::gpu (ClipmapParams) and the CPU
// reference sward_passes::terrain::clipmap::sample (clip_sample, clip_coarse,
// morph_weight in layout.rs). Parity: clipmap tests with probe_clipmap.
//
// Geometry clipmap level data: one toroidally addressed N x N texel layer per
// level of a texture_2d_array<f32> (Rgba32Float: height, normal.xyz), texel
// (I mod N, J mod N) for integer level coordinates (I, J). The sign bit of
// the normal's z (positive on a height field) carries one flag: the next
// coarser level draws this vertex refined (`clip_refine_flagged`). A vertex blends
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
    // Local refinement, per level: its tile rectangle in the refinement
    // index texture: first tile (x: A, y: B), tiles along A and B (z: A in
    // bits 0-15, B in bits 16-31; 0: no tile refines), first row (w).
    refine: array<vec4<i32>, 12>,
}

// Level quads per refinement tile side; finer-lattice vertices per pool
// slot side (the tile's, less its last row and column).
const CLIP_REFINE_TILE: i32 = 4;
const CLIP_REFINE_SLOT: i32 = 8;

fn clip_wrap(v: i32, n: i32) -> i32 {
    return ((v % n) + n) % n;
}

// Stored texel of level `level` at its vertex (i, j), flag included.
fn clip_texel_flagged(levels: texture_2d_array<f32>, level: u32, i: i32, j: i32, n: i32) -> vec4<f32> {
    return textureLoad(levels, vec2<i32>(clip_wrap(i, n), clip_wrap(j, n)), i32(level), 0);
}

// Whether a stored texel carries the flag: the next coarser level draws
// this vertex refined (Rust: fill::flag_texel).
fn clip_refine_flagged(t: vec4<f32>) -> bool {
    return (bitcast<u32>(t.w) & 0x80000000u) != 0u;
}

// A texel with `flag` in the sign bit of its normal's z (the fill).
fn clip_with_flag(t: vec4<f32>, flag: bool) -> vec4<f32> {
    let z = bitcast<u32>(abs(t.w)) | select(0u, 0x80000000u, flag);
    return vec4<f32>(t.xyz, bitcast<f32>(z));
}

// A stored texel without its flag: (height, normal).
fn clip_unflagged(t: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(t.xyz, abs(t.w));
}

// Raw sample (height, normal) of level `level` at its vertex (i, j).
fn clip_texel(levels: texture_2d_array<f32>, level: u32, i: i32, j: i32, n: i32) -> vec4<f32> {
    return clip_unflagged(clip_texel_flagged(levels, level, i, j, n));
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

// Refinement index of tile (a, b) of the level whose rectangle in the
// index is `r` (`ClipmapParams::refine`): its pool slot + 1, 0 when the
// tile is not refined (Rust: refine::RefineMask).
fn clip_refine_slot_in(index: texture_2d<u32>, r: vec4<i32>, a: i32, b: i32) -> u32 {
    let size = vec2<i32>(r.z & 0xffff, (r.z >> 16u) & 0xffff);
    let t = vec2<i32>(a, b) - r.xy;
    if (any(t < vec2<i32>(0)) || any(t >= size)) {
        return 0u;
    }
    return textureLoad(index, vec2<i32>(t.x, r.w + t.y), 0).x;
}

// Refinement index of tile (a, b) of `level` (0 beyond the levels).
fn clip_refine_slot(index: texture_2d<u32>, p: ClipmapParams, level: u32, a: i32, b: i32) -> u32 {
    if (level >= p.levels) {
        return 0u;
    }
    return clip_refine_slot_in(index, p.refine[level], a, b);
}

// r(x) of the finer-lattice vertex f (level - 1 units) of the level whose
// index rectangle is `r`: every tile whose closure holds it is refined
// (Rust: RefineMask::weight).
fn clip_refine_weight_in(index: texture_2d<u32>, r: vec4<i32>, f: vec2<i32>) -> bool {
    let w = 2 * CLIP_REFINE_TILE;
    let t = vec2<i32>(f.x >> 3u, f.y >> 3u);
    let edge = (f & vec2<i32>(w - 1)) == vec2<i32>(0);
    var ok = clip_refine_slot_in(index, r, t.x, t.y) != 0u;
    if (edge.x) {
        ok = ok && clip_refine_slot_in(index, r, t.x - 1, t.y) != 0u;
    }
    if (edge.y) {
        ok = ok && clip_refine_slot_in(index, r, t.x, t.y - 1) != 0u;
    }
    if (edge.x && edge.y) {
        ok = ok && clip_refine_slot_in(index, r, t.x - 1, t.y - 1) != 0u;
    }
    return ok;
}

// r(x) of the finer-lattice vertex f of `level` (false beyond the levels).
fn clip_refine_weight(index: texture_2d<u32>, p: ClipmapParams, level: u32, f: vec2<i32>) -> bool {
    if (level >= p.levels) {
        return false;
    }
    return clip_refine_weight_in(index, p.refine[level], f);
}

// Morphed (height, normal) of vertex (i, j) of `level`. Where the coarser
// level draws this vertex refined (the texel's flag, written by the fill),
// its surface there is this level's own texel: the vertex does not morph
// (Rust: refine::morphed).
fn clip_sample(levels: texture_2d_array<f32>, p: ClipmapParams, level: u32, i: i32, j: i32) -> vec4<f32> {
    let n = i32(p.texels);
    let t = clip_texel_flagged(levels, level, i, j, n);
    let fine = clip_unflagged(t);
    let a = clip_morph(p, level, i, j);
    if (a <= 0.0 || clip_refine_flagged(t)) {
        return fine;
    }
    let coarse = clip_coarse(levels, level + 1u, i, j, n);
    return (1.0 - a) * fine + a * coarse;
}

// The surface `level` draws at finer-lattice vertex f from its morphed
// vertices: the vertex, an edge midpoint or the drawn diagonal's midpoint
// (Rust: refine::level_surface).
fn clip_surface(levels: texture_2d_array<f32>, p: ClipmapParams, level: u32, f: vec2<i32>) -> vec4<f32> {
    let c = vec2<i32>(f.x >> 1u, f.y >> 1u);
    let o = f & vec2<i32>(1);
    let a = clip_sample(levels, p, level, c.x, c.y);
    if (o.x == 0 && o.y == 0) {
        return a;
    }
    if (o.y == 0) {
        return 0.5 * (a + clip_sample(levels, p, level, c.x + 1, c.y));
    }
    if (o.x == 0) {
        return 0.5 * (a + clip_sample(levels, p, level, c.x, c.y + 1));
    }
    if (((c.x + c.y) & 1) == 0) {
        return 0.5 * (a + clip_sample(levels, p, level, c.x + 1, c.y + 1));
    }
    return 0.5 * (clip_sample(levels, p, level, c.x + 1, c.y) + clip_sample(levels, p, level, c.x, c.y + 1));
}

// (height, normal) a refined piece of `level` draws at its finer-lattice
// vertex f: the finer level's prefiltered texel (from the refinement pool,
// array layers after the levels') where r(f) = 1, geomorphed towards the
// level's own surface; the surface itself elsewhere (Rust:
// refine::refined_height).
fn clip_refined(levels: texture_2d_array<f32>, index: texture_2d<u32>, p: ClipmapParams, level: u32, f: vec2<i32>) -> vec4<f32> {
    let s = clip_surface(levels, p, level, f);
    if (!clip_refine_weight(index, p, level, f)) {
        return s;
    }
    let slot = clip_refine_slot(index, p, level, f.x >> 3u, f.y >> 3u) - 1u;
    let per_row = p.texels / u32(CLIP_REFINE_SLOT);
    let page = slot / (per_row * per_row);
    let k = slot % (per_row * per_row);
    let xy = vec2<i32>(i32(k % per_row), i32(k / per_row)) * CLIP_REFINE_SLOT + (f & vec2<i32>(CLIP_REFINE_SLOT - 1));
    let finer = textureLoad(levels, xy, i32(p.levels + page), 0);
    let cam = p.cams[level].xy;
    let x = vec2<f32>(f) * 0.5;
    var a = 0.0;
    if (level + 1u < p.levels) {
        let d = max(abs(x.x - cam.x), abs(x.y - cam.y));
        a = clamp((d - (p.morph_end - p.transition)) / p.transition, 0.0, 1.0);
    }
    return (1.0 - a) * finer + a * s;
}
