// Rust mirror: sward_passes::terrain::clipmap::fill (FillParams, FillJob and
// the CPU reference FillReference: fill_height, fill_sample, fill_texel,
// far_height). Parity: clipmap tests (gpu_fill_matches_cpu_reference).
//
// Geometry clipmap level update in compute: every texel of the strips that
// entered a level's window (one job per strip) is computed from the exact
// height/normal atlas where an MCNK is resident (the `height_atlas` snippet:
// the MCVT fan, MCNR normal) and from the far-height grid elsewhere
// (bilinear, normal from central differences), and stored toroidally
// (texel (I mod N, J mod N)) in the level's array layer. Level 0 is the
// point sample; levels >= 1 are prefiltered: the point sample plus the
// [1 2 1] x [1 2 1] / 16 average of the interpolation residuals at the eight
// finer-lattice points around the vertex (edge midpoints 2/16, diagonal
// midpoints 1/16; diagonals as the meshes draw them). A level texel also
// carries whether the next coarser level draws its vertex refined (local
// refinement: the refinement index), in the sign bit of its normal's z
// (`clip_with_flag`), so the draw's vertices need no index look-up.

//! import height_atlas, clipmap_level

struct FillParams {
    // Global MCNK coordinate of the chunk index texture's texel (0, 0).
    window_origin: vec2<u32>,
    // Grid position (cells) of far texel (0, 0).
    far_origin: vec2<f32>,
    // Far texels per side.
    far_size: vec2<u32>,
    // Cells between far texels.
    far_step: f32,
    // Texels per level side (N).
    texels: u32,
    // Levels in use.
    levels: u32,
    // Per level: its rectangle in the refinement index
    // (`ClipmapParams::refine`).
    refine: array<vec4<i32>, 12>,
}

// One strip: level vertices origin .. origin + size of `level`, stored
// toroidally in layer `level`; or, when `dest_layer` is not 0, a tile of
// the refinement pool: stored from texel `dest` of layer `dest_layer`.
struct FillJob {
    origin: vec2<i32>,
    size: vec2<u32>,
    level: u32,
    dest_layer: u32,
    dest: vec2<u32>,
}

// World units per cell (UNIT_SIZE = 1600 / 3 / 128).
const FILL_UNIT: f32 = 4.1666666666666667;
// Step (cells) of the central differences of far normals.
const FILL_NORMAL_STEP: f32 = 0.25;

@group(0) @binding(0) var<uniform> fp: FillParams;
@group(0) @binding(1) var<storage, read> jobs: array<FillJob>;
@group(0) @binding(2) var far_heights: texture_2d<f32>;
@group(0) @binding(3) var out_levels: texture_storage_2d_array<rgba32float, write>;
@group(0) @binding(4) var<storage, read> chunks: array<AtlasChunk>;
@group(0) @binding(5) var heights: texture_2d<f32>;
@group(0) @binding(6) var normals: texture_2d<f32>;
@group(0) @binding(7) var chunk_index: texture_2d<u32>;
// Local refinement: slot + 1 of each refined tile (0: none).
@group(0) @binding(8) var refine_index: texture_2d<u32>;

// Bilinear far height at global grid `g` (cells), clamped to the grid.
fn far_height(g: vec2<f32>) -> f32 {
    let last = vec2<f32>(fp.far_size - vec2<u32>(1u));
    let t = clamp((g - fp.far_origin) / fp.far_step, vec2<f32>(0.0), last);
    let c0 = min(floor(t), max(last - 1.0, vec2<f32>(0.0)));
    let f = t - c0;
    let i0 = vec2<i32>(c0);
    let i1 = min(i0 + vec2<i32>(1), vec2<i32>(fp.far_size) - vec2<i32>(1));
    let h00 = textureLoad(far_heights, i0, 0).r;
    let h10 = textureLoad(far_heights, vec2<i32>(i1.x, i0.y), 0).r;
    let h01 = textureLoad(far_heights, vec2<i32>(i0.x, i1.y), 0).r;
    let h11 = textureLoad(far_heights, i1, 0).r;
    let a = h00 * (1.0 - f.x) + h10 * f.x;
    let b = h01 * (1.0 - f.x) + h11 * f.x;
    return a * (1.0 - f.y) + b * f.y;
}

fn fill_slot(g: vec2<f32>) -> u32 {
    return atlas_slot_at(chunk_index, g - vec2<f32>(fp.window_origin) * 8.0);
}

// Height at global grid `g`: the resident MCNK's fan, else the far grid.
fn fill_height(g: vec2<f32>) -> f32 {
    let slot = fill_slot(g);
    if (slot != ATLAS_NO_CHUNK) {
        let rec = chunks[slot];
        let l = g - vec2<f32>(rec.chunk) * 8.0;
        return rec.base_z + height_atlas_local(heights, rec.tile, l.x, l.y);
    }
    return far_height(g);
}

// (height, normal) at global grid `g`.
fn fill_sample(g: vec2<f32>) -> vec4<f32> {
    let slot = fill_slot(g);
    if (slot != ATLAS_NO_CHUNK) {
        let rec = chunks[slot];
        let l = g - vec2<f32>(rec.chunk) * 8.0;
        let h = rec.base_z + height_atlas_local(heights, rec.tile, l.x, l.y);
        return vec4<f32>(h, normal_atlas_local(normals, rec.tile, l.x, l.y));
    }
    let h = far_height(g);
    let e = FILL_NORMAL_STEP;
    let hgx = (far_height(g + vec2<f32>(e, 0.0)) - far_height(g - vec2<f32>(e, 0.0))) / (2.0 * e * FILL_UNIT);
    let hgy = (far_height(g + vec2<f32>(0.0, e)) - far_height(g - vec2<f32>(0.0, e))) / (2.0 * e * FILL_UNIT);
    // x = O - gy * unit, y = O - gx * unit: the normal is (hgy, hgx, 1).
    let len = sqrt(hgx * hgx + hgy * hgy + 1.0);
    return vec4<f32>(h, hgy / len, hgx / len, 1.0 / len);
}

// Point sample of level vertex (i + di, j + dj) (`scale`: cells per level unit).
fn fill_point(i: i32, j: i32, di: i32, dj: i32, scale: f32) -> f32 {
    return fill_height(vec2<f32>(f32(i + di), f32(j + dj)) * scale);
}

// Texel of vertex (i, j) of `level`.
fn fill_texel(level: u32, i: i32, j: i32) -> vec4<f32> {
    let scale = f32(1u << level) * 0.5;
    let centre = fill_sample(vec2<f32>(f32(i), f32(j)) * scale);
    if (level == 0u) {
        return centre;
    }
    let half = scale * 0.5;
    let p0 = centre.x;
    var corr = 0.0;
    let edges = array<vec2<i32>, 4>(vec2<i32>(-1, 0), vec2<i32>(1, 0), vec2<i32>(0, -1), vec2<i32>(0, 1));
    for (var k = 0u; k < 4u; k++) {
        let d = edges[k];
        let drawn = 0.5 * (p0 + fill_point(i, j, d.x, d.y, scale));
        let f = fill_height(vec2<f32>(f32(2 * i + d.x), f32(2 * j + d.y)) * half);
        corr += 2.0 * (f - drawn);
    }
    let diags = array<vec2<i32>, 4>(vec2<i32>(-1, -1), vec2<i32>(1, -1), vec2<i32>(-1, 1), vec2<i32>(1, 1));
    for (var k = 0u; k < 4u; k++) {
        let d = diags[k];
        let a = min(d.x, 0);
        let b = min(d.y, 0);
        let q = vec2<i32>(i + a, j + b);
        // The centre's point sample is fill_point(i, j, 0, 0, scale) == p0.
        var drawn: f32;
        if (((q.x + q.y) & 1) == 0) {
            drawn = 0.5 * (fill_point(i, j, a, b, scale) + fill_point(i, j, a + 1, b + 1, scale));
        } else {
            drawn = 0.5 * (fill_point(i, j, a + 1, b, scale) + fill_point(i, j, a, b + 1, scale));
        }
        let f = fill_height(vec2<f32>(f32(2 * i + d.x), f32(2 * j + d.y)) * half);
        corr += f - drawn;
    }
    return vec4<f32>(p0 + corr / 16.0, centre.yzw);
}

// Workgroup x: 64 texels of a job; workgroup y: the job.
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let job = jobs[wg.y];
    let k = wg.x * 64u + li;
    if (k >= job.size.x * job.size.y) {
        return;
    }
    let i = job.origin.x + i32(k % job.size.x);
    let j = job.origin.y + i32(k / job.size.x);
    let v = fill_texel(job.level, i, j);
    if (job.dest_layer != 0u) {
        let d = vec2<i32>(job.dest + vec2<u32>(k % job.size.x, k / job.size.x));
        textureStore(out_levels, d, i32(job.dest_layer), v);
        return;
    }
    let n = i32(fp.texels);
    let next = job.level + 1u;
    let refined = next < fp.levels && clip_refine_weight_in(refine_index, fp.refine[next], vec2<i32>(i, j));
    textureStore(out_levels, vec2<i32>(clip_wrap(i, n), clip_wrap(j, n)), i32(job.level), clip_with_flag(v, refined));
}
