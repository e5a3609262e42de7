// Rust mirror: sward_passes::terrain::clipmap::cull (CullUniforms, CullKind,
// DrawArgs and the CPU references Part::visible, ZTiles). Parity: clipmap
// tests (gpu_cull_matches_cpu_reference).
//
// GPU culling of clipmap pieces (blocks, fix-ups, trims, centre, seams).
//   ztiles  one invocation per height tile (4 x 4 level quads, 5 x 5 texels)
//           of every level whose texels the fill changed this frame: the
//           lowest and highest texel height, kept toroidally like the texels.
//   main    one invocation per piece of every level places it at its level's
//           min corner (the trims come placed, in the uniforms) and tests each
//           of its parts' boxes (xy from the part's extent, z from the height
//           tiles under it, its own level's and the next coarser one's, the
//           geomorph's target) against the frustum and its horizontal distance
//           against the fog end (beyond it the terrain is the fog colour, i.e.
//           the clear colour), and appends the visible ones to their mesh
//           kind's instance range, counting them in that kind's indexed
//           indirect draw (one multi-draw-indirect of the shared meshes).

//! import frustum, hiz_test

struct CullUniforms {
    frustum: Frustum,
    // Eye position (xyz) and the distance beyond which a piece is culled (w).
    eye: vec4<f32>,
    // Pieces in `pieces`.
    count: u32,
    // Trims in `trims`.
    trim_count: u32,
    // Levels in use.
    levels: u32,
    // Height tiles per level side (T = N / 4).
    tiles: u32,
    // Bit l: the fill changed level l's texels this frame (its height tiles
    // are computed again).
    update: u32,
    // First instance of phase two's ranges after phase one's (occlusion).
    second: u32,
    _pad1: u32,
    _pad2: u32,
    // Per level: its min corner in level units (x, y).
    origins: array<vec4<i32>, 12>,
    // The levels' trims, placed (same layout as `pieces`).
    trims: array<vec4<i32>, 24>,
    // Occlusion: this frame's view-projection; the target size in pixels
    // (xy), the pyramid's levels (z), 1 when it holds last frame's depth (w;
    // the CPU reference's input; phase one reads it as the pipeline
    // constant PREVIOUS).
    view_proj: mat4x4<f32>,
    hiz: vec4<f32>,
    // Local refinement, per level: its rectangle in `refine_index` (first
    // tile x: A, y: B; z: tiles along A in bits 0-15, along B in 16-31; w:
    // first row; z = 0: nothing refines).
    refine: array<vec4<i32>, 12>,
}

// Per mesh kind: quads along I and J of its mesh (x, y; a sub-block for the
// split kinds), first instance of its range, and sub-blocks per side (1: the
// piece whole) in bits 0-7 of `split`, the kind that draws its parts refined
// in bits 8-15 (0xff: none), bit 16 for a seam.
struct CullKind {
    quads: vec2<i32>,
    first_instance: u32,
    split: u32,
}

// wgpu's DrawIndexedIndirectArgs with an atomic instance count.
struct DrawArgs {
    index_count: u32,
    instance_count: atomic<u32>,
    first_index: u32,
    base_vertex: i32,
    first_instance: u32,
}

// World X/Y of the map origin corner and level-0 spacing (half a cell).
const CULL_ORIGIN: f32 = 17066.666666666668;
const CULL_SPACING0: f32 = 2.0833333333333335;

@group(0) @binding(0) var<uniform> cu: CullUniforms;
@group(0) @binding(1) var<storage, read> kinds: array<CullKind>;
// Per piece but the trims: origin in level units relative to its level's
// min corner (x, y), level (z), kind (w bits 0-7) and stitched edges (w bits
// 8-11). Uploaded when a ring block switches resolution, not every frame.
@group(0) @binding(2) var<storage, read> pieces: array<vec4<i32>>;
@group(0) @binding(3) var<storage, read_write> args: array<DrawArgs>;
// Per drawn instance: origin (x, y), level (z), and (w) the stitched edges
// (bits 0-3) and the piece's quads along I (bits 4-13) and J (bits 14-23),
// for the vertex shader (Rust: cull::instance_word).
@group(0) @binding(4) var<storage, read_write> instances: array<vec4<i32>>;
// The level texels (height in x), texel (I mod N, J mod N) of layer `level`.
@group(1) @binding(0) var level_texels: texture_2d_array<f32>;
// Per level, per tile slot (A mod T, B mod T): lowest and highest height of
// level vertices 4A ..= 4A + 4 by 4B ..= 4B + 4.
@group(1) @binding(1) var<storage, read_write> ztiles: array<vec2<f32>>;
// Per refined tile: its pool slot + 1 (x; 0: not refined) and the bits of
// its slack (y): how far its refined heights lie from the level's surface.
@group(1) @binding(2) var refine_index: texture_2d<u32>;

// Instance level field flags (terrain_clipmap.wgsl).
const CULL_INST_REFINED: i32 = 0x100;
const CULL_INST_SEAM: i32 = 0x200;

// The largest slack of the refined tiles holding a quad of the part of
// `level` at `o` with `q` quads; -1 when none does (Rust:
// RefineMask::rect).
fn part_refine(level: u32, o: vec2<i32>, q: vec2<i32>) -> f32 {
    if (level == 0u || level >= cu.levels) {
        return -1.0;
    }
    let r = cu.refine[level];
    let size = vec2<i32>(r.z & 0xffff, (r.z >> 16u) & 0xffff);
    let a0 = o >> vec2<u32>(2u);
    let a1 = max(a0, (o + q - vec2<i32>(1)) >> vec2<u32>(2u));
    var slack = -1.0;
    for (var b = a0.y; b <= a1.y; b++) {
        for (var a = a0.x; a <= a1.x; a++) {
            let t = vec2<i32>(a, b) - r.xy;
            if (any(t < vec2<i32>(0)) || any(t >= size)) {
                continue;
            }
            let e = textureLoad(refine_index, vec2<i32>(t.x, r.w + t.y), 0).xy;
            if (e.x != 0u) {
                slack = max(slack, bitcast<f32>(e.y));
            }
        }
    }
    return slack;
}

// A part as drawn: its kind, its instance's level field (with the flags)
// and its box; a refinable part over refined tiles becomes its refined
// kind, its box grown by their slack (Rust: cull::Part::refine).
struct DrawnPart {
    kind: u32,
    level_field: i32,
    bmin: vec3<f32>,
    bmax: vec3<f32>,
}

fn drawn_part(kind: u32, stitch: u32, level: u32, o: vec2<i32>, q: vec2<i32>) -> DrawnPart {
    let kk = kinds[kind];
    let b = part_box(level, o, q);
    var d = DrawnPart(kind, i32(level), b.bmin, b.bmax);
    if ((kk.split & 0x10000u) != 0u) {
        d.level_field |= CULL_INST_SEAM;
    }
    let refined = (kk.split >> 8u) & 0xffu;
    if (refined != 0xffu && stitch == 0u) {
        let slack = part_refine(level, o, q);
        if (slack >= 0.0) {
            d.kind = refined;
            d.level_field |= CULL_INST_REFINED;
            d.bmin.z -= slack;
            d.bmax.z += slack;
        }
    }
    return d;
}

fn cull_wrap(v: i32, n: i32) -> i32 {
    return ((v % n) + n) % n;
}

// Height range of level `level` over its vertices lo ..= hi (level units):
// the tiles that cover them.
fn tile_range(level: u32, lo: vec2<i32>, hi: vec2<i32>) -> vec2<f32> {
    let t = i32(cu.tiles);
    let a0 = lo >> vec2<u32>(2u);
    let a1 = max(a0, (hi - vec2<i32>(1)) >> vec2<u32>(2u));
    var r = vec2<f32>(3.0e38, -3.0e38);
    for (var b = a0.y; b <= a1.y; b++) {
        for (var a = a0.x; a <= a1.x; a++) {
            let z = ztiles[(level * cu.tiles + u32(cull_wrap(b, t))) * cu.tiles + u32(cull_wrap(a, t))];
            r = vec2<f32>(min(r.x, z.x), max(r.y, z.y));
        }
    }
    return r;
}

// Height range of a part of `level` (min corner `o`, `q` quads): its own
// level's texels, and the next coarser level's under it (what its vertices
// morph towards, and its stitched edges' midpoints lie between).
fn part_range(level: u32, o: vec2<i32>, q: vec2<i32>) -> vec2<f32> {
    var r = tile_range(level, o, o + q);
    if (level + 1u < cu.levels) {
        let c = tile_range(level + 1u, o >> vec2<u32>(1u), (o + q + vec2<i32>(1)) >> vec2<u32>(1u));
        r = vec2<f32>(min(r.x, c.x), max(r.y, c.y));
    }
    return r;
}

@compute @workgroup_size(64)
fn ztiles_main(@builtin(global_invocation_id) id: vec3<u32>) {
    let level = id.y;
    let t = cu.tiles;
    if (id.x >= t * t || level >= cu.levels || ((cu.update >> level) & 1u) == 0u) {
        return;
    }
    let ti = i32(t);
    let n = 4 * ti;
    let slot = vec2<i32>(i32(id.x % t), i32(id.x / t));
    // The tile this slot holds in the level's current window: the one of
    // A0 ..= A0 + T - 1 congruent to it (A0: the tile of the min corner).
    let a0 = cu.origins[level].xy >> vec2<u32>(2u);
    let a = a0 + vec2<i32>(cull_wrap(slot.x - a0.x, ti), cull_wrap(slot.y - a0.y, ti));
    var r = vec2<f32>(3.0e38, -3.0e38);
    for (var y = 0; y <= 4; y++) {
        for (var x = 0; x <= 4; x++) {
            let v = vec2<i32>(cull_wrap(4 * a.x + x, n), cull_wrap(4 * a.y + y, n));
            let h = textureLoad(level_texels, v, i32(level), 0).x;
            r = vec2<f32>(min(r.x, h), max(r.y, h));
        }
    }
    ztiles[(level * t + u32(slot.y)) * t + u32(slot.x)] = r;
}

// World (x, y) of level vertex (i, j): x = O - j * s, y = O - i * s.
fn cull_vertex_world(level: u32, i: i32, j: i32) -> vec2<f32> {
    let s = CULL_SPACING0 * f32(1u << level);
    return vec2<f32>(CULL_ORIGIN - f32(j) * s, CULL_ORIGIN - f32(i) * s);
}

// Piece `k` placed: origin (x, y), level (z), kind and stitches (w).
fn placed_piece(k: u32) -> vec4<i32> {
    if (k < cu.count) {
        let p = pieces[k];
        return vec4<i32>(p.xy + cu.origins[u32(p.z)].xy, p.zw);
    }
    return cu.trims[min(k - cu.count, 23u)];
}

// Piece `k` decoded: its placed origin, level, kind (w bits 0-7), stitched
// edges (bits 8-11), and its kind's quads and split (sub-blocks per side).
struct Piece {
    origin: vec2<i32>,
    level: u32,
    kind: u32,
    stitch: u32,
    q: vec2<i32>,
    n: i32,
}

fn piece_at(k: u32) -> Piece {
    let p = placed_piece(k);
    let kind = u32(p.w) & 0xffu;
    let kk = kinds[kind];
    return Piece(p.xy, u32(p.z), kind, (u32(p.w) >> 8u) & 0xfu, kk.quads, i32(kk.split & 0xffu));
}

// The box of a part of `level` (min corner `o`, `q` quads): xy from its
// extent, z from the height tiles under it.
struct PartBox {
    bmin: vec3<f32>,
    bmax: vec3<f32>,
}

fn part_box(level: u32, o: vec2<i32>, q: vec2<i32>) -> PartBox {
    let a = cull_vertex_world(level, o.x, o.y);
    let b = cull_vertex_world(level, o.x + q.x, o.y + q.y);
    let z = part_range(level, o, q);
    return PartBox(vec3<f32>(min(a, b), z.x), vec3<f32>(max(a, b), z.y));
}

// The frustum test and the horizontal distance to the fog end.
fn part_in_view(bmin: vec3<f32>, bmax: vec3<f32>) -> bool {
    if (!frustum_aabb_visible(cu.frustum, bmin, bmax)) {
        return false;
    }
    let nearest = clamp(cu.eye.xy, bmin.xy, bmax.xy);
    return distance(nearest, cu.eye.xy) <= cu.eye.w;
}

// The instance word of sub-block (sa, sb) of n x n of a piece with stitched
// edges `stitch`: the piece's stitches on the sub-block's own edges, and its
// quads `q` (Rust: cull::parts, cull::instance_word).
fn part_word(stitch: u32, sa: i32, sb: i32, n: i32, q: vec2<i32>) -> u32 {
    var st = stitch;
    if (sa != 0) {
        st &= ~1u;
    }
    if (sa != n - 1) {
        st &= ~2u;
    }
    if (sb != 0) {
        st &= ~4u;
    }
    if (sb != n - 1) {
        st &= ~8u;
    }
    return st | (u32(q.x) << 4u) | (u32(q.y) << 14u);
}

// Appends an instance to draw `draw` (a kind's, of phase one or two) whose
// instance range starts at `first`.
fn emit(draw: u32, first: u32, inst: vec4<i32>) {
    let slot = atomicAdd(&args[draw].instance_count, 1u);
    instances[first + slot] = inst;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    if (k >= cu.count + cu.trim_count) {
        return;
    }
    let pc = piece_at(k);
    // A split kind: each sub-block is tested and drawn on its own, keeping
    // the stitched edges of the piece that are its own edges (Rust:
    // cull::parts).
    for (var sa = 0; sa < pc.n; sa++) {
        for (var sb = 0; sb < pc.n; sb++) {
            let o = pc.origin + vec2<i32>(sa, sb) * pc.q;
            let word = part_word(pc.stitch, sa, sb, pc.n, pc.q);
            let d = drawn_part(pc.kind, word & 0xfu, pc.level, o, pc.q);
            if (!part_in_view(d.bmin, d.bmax)) {
                continue;
            }
            emit(d.kind, kinds[d.kind].first_instance, vec4<i32>(o.x, o.y, d.level_field, i32(word)));
        }
    }
}

// Two-phase Hi-Z occlusion (`clipmap:occlusion=on`; Rust mirror:
// clipmap::cull::Part::occluded).
//   phase_one  `main`, then each part in view is tested against LAST frame's
//              pyramid (projected with this frame's view): the visible ones
//              become phase-one draws, the hidden ones go to `rejected`
//              (their instance, the kind in w bits 24-31). The terrain drawn
//              in phase one builds this frame's pyramid.
//   phase_two  one invocation per rejected part: its box against THIS
//              frame's pyramid; the visible ones become phase-two draws (the
//              draws and instance ranges after phase one's), the rest are
//              counted as occluded.
// The draws after both phases' (2 K, K kinds) are counters, not draws: the
// instance count of 2 K counts the rejected parts, that of 2 K + 1 the
// parts still hidden in phase two. The occlusion test runs in every
// invocation, over a 4 x 4 loop of sub-blocks whatever the kind: lavapipe
// (Mesa 22.3) mis-reads pyramid levels in textureLoad under a partial
// invocation mask.
@group(0) @binding(5) var<storage, read_write> rejected: array<vec4<i32>>;
@group(2) @binding(0) var pyramid: texture_2d<f32>;

// Whether the pyramid holds last frame's depth (phase one hides nothing
// otherwise): one phase_one pipeline per value rather than a branch on the
// uniform flag (see sward_wgsl::uniform_branches).
override PREVIOUS: bool = true;

fn part_hidden(bmin: vec3<f32>, bmax: vec3<f32>) -> bool {
    return hiz_box_occluded(pyramid, cu.view_proj, cu.hiz.xy, u32(cu.hiz.z), bmin, bmax);
}

@compute @workgroup_size(64)
fn phase_one(@builtin(global_invocation_id) id: vec3<u32>) {
    let total = cu.count + cu.trim_count;
    let pc = piece_at(min(id.x, max(total, 1u) - 1u));
    let counters = 2u * arrayLength(&kinds);
    for (var sa = 0; sa < 4; sa++) {
        for (var sb = 0; sb < 4; sb++) {
            let o = pc.origin + vec2<i32>(min(sa, pc.n - 1), min(sb, pc.n - 1)) * pc.q;
            let word = part_word(pc.stitch, min(sa, pc.n - 1), min(sb, pc.n - 1), pc.n, pc.q);
            let d = drawn_part(pc.kind, word & 0xfu, pc.level, o, pc.q);
            var hidden = false;
            if (PREVIOUS) {
                hidden = part_hidden(d.bmin, d.bmax);
            }
            if (id.x >= total || sa >= pc.n || sb >= pc.n || !part_in_view(d.bmin, d.bmax)) {
                continue;
            }
            if (hidden) {
                let r = atomicAdd(&args[counters].instance_count, 1u);
                if (r < arrayLength(&rejected)) {
                    rejected[r] = vec4<i32>(o.x, o.y, d.level_field, i32(word | (d.kind << 24u)));
                }
                continue;
            }
            emit(d.kind, kinds[d.kind].first_instance, vec4<i32>(o.x, o.y, d.level_field, i32(word)));
        }
    }
}

@compute @workgroup_size(64)
fn phase_two(@builtin(global_invocation_id) id: vec3<u32>) {
    let kinds_n = arrayLength(&kinds);
    let counters = 2u * kinds_n;
    let n = min(atomicLoad(&args[counters].instance_count), arrayLength(&rejected));
    let r = rejected[min(id.x, max(n, 1u) - 1u)];
    let level = u32(r.z & 0xff);
    let word = u32(r.w);
    let q = vec2<i32>(i32((word >> 4u) & 0x3ffu), i32((word >> 14u) & 0x3ffu));
    var b = part_box(level, r.xy, q);
    if ((r.z & CULL_INST_REFINED) != 0) {
        let slack = max(part_refine(level, r.xy, q), 0.0);
        b.bmin.z -= slack;
        b.bmax.z += slack;
    }
    let hidden = part_hidden(b.bmin, b.bmax);
    if (id.x >= n) {
        return;
    }
    if (hidden) {
        atomicAdd(&args[counters + 1u].instance_count, 1u);
        return;
    }
    let kind = min(word >> 24u, kinds_n - 1u);
    emit(kinds_n + kind, kinds[kind].first_instance + cu.second, vec4<i32>(r.xyz, i32(word & 0xffffffu)));
}
