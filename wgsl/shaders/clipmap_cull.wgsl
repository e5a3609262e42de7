// Rust mirror: sward_passes::terrain::clipmap::cull (CullUniforms, CullKind,
// DrawArgs and the CPU reference piece_visible). Parity: clipmap tests
// (gpu_cull_matches_cpu_reference).
//
// GPU culling of clipmap pieces (blocks, fix-ups, trims, centre, seams): one
// invocation per piece of every level places it at its level's min corner
// (the trims come placed, in the uniforms) and tests the piece's box (xy from its
// extent, z from the levels' conservative height range) against the frustum
// and its horizontal distance against the fog end (beyond it the terrain is
// the fog colour, i.e. the clear colour), and appends the visible ones to
// their mesh kind's instance range, counting them in that kind's indexed
// indirect draw (one multi-draw-indirect of the shared meshes).

//! import frustum

struct CullUniforms {
    frustum: Frustum,
    // Eye position (xyz) and the distance beyond which a piece is culled (w).
    eye: vec4<f32>,
    // Lowest and highest height of any level.
    z_range: vec2<f32>,
    // Pieces in `pieces`.
    count: u32,
    // Trims in `trims`.
    trim_count: u32,
    // Per level: its min corner in level units (x, y).
    origins: array<vec4<i32>, 12>,
    // The levels' trims, placed (same layout as `pieces`).
    trims: array<vec4<i32>, 24>,
}

// Per mesh kind: quads along I and J of its mesh (x, y; a sub-block for the
// split kinds), first instance of its range, and sub-blocks per side (1: the
// piece whole).
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

// World (x, y) of level vertex (i, j): x = O - j * s, y = O - i * s.
fn cull_vertex_world(level: u32, i: i32, j: i32) -> vec2<f32> {
    let s = CULL_SPACING0 * f32(1u << level);
    return vec2<f32>(CULL_ORIGIN - f32(j) * s, CULL_ORIGIN - f32(i) * s);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.x;
    var p: vec4<i32>;
    if (k < cu.count) {
        p = pieces[k];
        p = vec4<i32>(p.xy + cu.origins[u32(p.z)].xy, p.zw);
    } else if (k < cu.count + cu.trim_count) {
        p = cu.trims[k - cu.count];
    } else {
        return;
    }
    let level = u32(p.z);
    let kind = u32(p.w) & 0xffu;
    let stitch = (u32(p.w) >> 8u) & 0xfu;
    let kk = kinds[kind];
    let q = kk.quads;
    let n = i32(kk.split);
    // A split kind: each sub-block is tested and drawn on its own, keeping
    // the stitched edges of the piece that are its own edges (Rust:
    // cull::parts).
    for (var sa = 0; sa < n; sa++) {
        for (var sb = 0; sb < n; sb++) {
            let o = p.xy + vec2<i32>(sa, sb) * q;
            let a = cull_vertex_world(level, o.x, o.y);
            let b = cull_vertex_world(level, o.x + q.x, o.y + q.y);
            let bmin = vec3<f32>(min(a, b), cu.z_range.x);
            let bmax = vec3<f32>(max(a, b), cu.z_range.y);
            if (!frustum_aabb_visible(cu.frustum, bmin, bmax)) {
                continue;
            }
            let nearest = clamp(cu.eye.xy, bmin.xy, bmax.xy);
            if (distance(nearest, cu.eye.xy) > cu.eye.w) {
                continue;
            }
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
            let slot = atomicAdd(&args[kind].instance_count, 1u);
            let word = st | (u32(q.x) << 4u) | (u32(q.y) << 14u);
            instances[kk.first_instance + slot] = vec4<i32>(o.x, o.y, p.z, i32(word));
        }
    }
}
