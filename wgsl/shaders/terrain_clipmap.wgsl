// Rust mirror: sward_passes::terrain::clipmap::gpu (ClipmapUniforms,
// ClipInstance) and terrain::gpu::TerrainChunkGpu; CPU references:
// clipmap::layout (placement, pieces, morph), clipmap::sample (vertex
// heights), clipmap::mesh (static geometry).
//
// Terrain `clipmap`: static local-grid meshes (blocks, fix-ups, trims, seams)
// instanced per visible piece; each vertex reads its level's height/normal
// texture (geomorphed towards the coarser level, `clipmap_level`). The
// fragment finds the resident MCNK under the pixel (chunk index texture),
// drops hole cells and shades with the shared `terrain_shade` splat + sun +
// fog; terrain outside the resident window shades as layer 0.

//! import clipmap_level, terrain_shade

struct ClipmapUniforms {
    terrain: TerrainUniforms,
    clip: ClipmapParams,
    // Global MCNK coordinate of the chunk index texture's texel (0, 0).
    chunk_origin: vec2<i32>,
    // Size of the chunk index texture in MCNKs.
    chunk_count: vec2<i32>,
}

const NO_CHUNK: u32 = 0xffffffffu;

@group(0) @binding(0) var<uniform> u: ClipmapUniforms;
@group(0) @binding(6) var levels: texture_2d_array<f32>;
@group(0) @binding(7) var chunk_index: texture_2d<u32>;
// Local refinement: slot + 1 of each refined tile (0: none), per level
// rectangle (`ClipmapParams::refine`).
@group(0) @binding(8) var refine_index: texture_2d<u32>;

// Instance level field (z): the level in bits 0-7; bit 8: a refined part
// (local coordinates on the finer lattice); bit 9: a seam.
const CLIP_INST_REFINED: i32 = 0x100;
const CLIP_INST_SEAM: i32 = 0x200;

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    // Grid position in cells from the chunk index origin (x: columns, y: rows).
    @location(2) grid: vec2<f32>,
}

// Three entry points, one pipeline each (Rust: PieceKind::vertex_entry),
// so that no vertex pays for another kind's work: lavapipe runs a vertex
// shader's branches for every vertex of a batch.
@vertex
fn vs_main(@location(0) local: vec2<u32>, @location(1) inst: vec4<i32>) -> VertexOut {
    return coarse_vertex(local, inst, false);
}

// A level's seam: as `vs_main`, but an odd vertex where the coarser level is
// refined collapses onto its even neighbour (the outer edge is drawn vertex
// for vertex there, no T-junction, and the sliver would stand up from it).
@vertex
fn vs_seam(@location(0) local: vec2<u32>, @location(1) inst: vec4<i32>) -> VertexOut {
    return coarse_vertex(local, inst, true);
}

// A refined part: local coordinates on the finer lattice.
@vertex
fn vs_refined(@location(0) local: vec2<u32>, @location(1) inst: vec4<i32>) -> VertexOut {
    return refined_vertex(u32(inst.z & 0xff), 2 * inst.xy + vec2<i32>(local));
}

fn coarse_vertex(local: vec2<u32>, inst: vec4<i32>, seam: bool) -> VertexOut {
    let level = u32(inst.z & 0xff);
    var i = inst.x + i32(local.x);
    var j = inst.y + i32(local.y);
    if (seam && clip_refine_flagged(clip_texel_flagged(levels, level, i, j, i32(u.clip.texels)))) {
        if ((local.x & 1u) == 1u) {
            i -= 1;
        } else if ((local.y & 1u) == 1u) {
            j -= 1;
        }
    }
    let s = u.clip.cams[level].z;
    // Stitched edges (next to a half-resolution block of the same level):
    // an odd vertex along such an edge lies on the midpoint of its even
    // neighbours, i.e. on the half-resolution block's edge.
    let word = u32(inst.w);
    let lx = i32(local.x);
    let ly = i32(local.y);
    let w = i32((word >> 4u) & 0x3ffu);
    let hq = i32((word >> 14u) & 0x3ffu);
    let along_j = ((word & 1u) != 0u && lx == 0) || ((word & 2u) != 0u && lx == w);
    let along_i = ((word & 4u) != 0u && ly == 0) || ((word & 8u) != 0u && ly == hq);
    var h: vec4<f32>;
    if (along_j && (ly & 1) == 1) {
        h = 0.5 * (clip_sample(levels, u.clip, level, i, j - 1) + clip_sample(levels, u.clip, level, i, j + 1));
    } else if (along_i && (lx & 1) == 1) {
        h = 0.5 * (clip_sample(levels, u.clip, level, i - 1, j) + clip_sample(levels, u.clip, level, i + 1, j));
    } else {
        h = clip_sample(levels, u.clip, level, i, j);
    }
    let world = vec3<f32>(CLIP_WORLD_ORIGIN - f32(j) * s, CLIP_WORLD_ORIGIN - f32(i) * s, h.x);
    var out: VertexOut;
    out.clip = u.terrain.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    out.normal = h.yzw;
    // Half cells relative to the index origin: exact integers.
    let scale = 1 << level;
    let half_cells = vec2<i32>(i, j) * scale - 16 * u.chunk_origin;
    out.grid = vec2<f32>(half_cells) * 0.5;
    return out;
}

// A vertex of a refined part of `level` (>= 1) at finer-lattice vertex f
// (level - 1 units): positions computed as the finer level's, so shared
// vertices are bit-identical.
fn refined_vertex(level: u32, f: vec2<i32>) -> VertexOut {
    let h = clip_refined(levels, refine_index, u.clip, level, f);
    let s = u.clip.cams[level - 1u].z;
    let world = vec3<f32>(CLIP_WORLD_ORIGIN - f32(f.y) * s, CLIP_WORLD_ORIGIN - f32(f.x) * s, h.x);
    var out: VertexOut;
    out.clip = u.terrain.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    out.normal = h.yzw;
    let half_cells = f * (1 << (level - 1u)) - 16 * u.chunk_origin;
    out.grid = vec2<f32>(half_cells) * 0.5;
    return out;
}

// (slot, holes) of the chunk at window-relative chunk coordinate `c`.
fn chunk_at(c: vec2<f32>) -> vec2<u32> {
    let k = vec2<i32>(c);
    if (any(c < vec2<f32>(0.0)) || any(k >= u.chunk_count)) {
        return vec2<u32>(NO_CHUNK, 0u);
    }
    return textureLoad(chunk_index, k, 0).xy;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    let g = in.grid;
    // One chunk per 2x2 pixel quad (the grid position of the quad's first
    // pixel), so layer-texture derivatives stay continuous across MCNK borders.
    let quad_offset = floor(in.clip.xy * 0.5) * 2.0 + vec2<f32>(0.5) - in.clip.xy;
    let g_quad = g + dpdxFine(g) * quad_offset.x + dpdyFine(g) * quad_offset.y;
    let cq = floor(g_quad / 8.0);
    let rq = chunk_at(cq);
    var rec = TerrainChunk(vec2<f32>(0.0), 0.0, 1u, vec4<u32>(0u));
    if (rq.x != NO_CHUNK) {
        rec = chunks[rq.x];
    }
    let shaded = terrain_shade(u.terrain, rec, g / 8.0 - cq, in.normal, in.world);
    // Holes: the pixel's own cell.
    let cp = floor(g / 8.0);
    let rp = chunk_at(cp);
    let cell = min(vec2<u32>(g - cp * 8.0), vec2<u32>(7u));
    let bit = (cell.y / 2u) * 4u + cell.x / 2u;
    if (rp.x != NO_CHUNK && ((rp.y >> bit) & 1u) != 0u) {
        discard;
    }
    return shaded;
}
