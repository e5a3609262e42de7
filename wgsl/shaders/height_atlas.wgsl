// Rust mirror: sward_passes::atlas::cpu (height_atlas_cell, height_atlas_local,
// fan_height, normal_atlas_local, atlas_lattice_world) and sward_passes::atlas::layout::AtlasChunkGpu
// (struct AtlasChunk); CPU reference: sward_scenes::world::height (the MCVT
// diamond fan). Parity: passes/src/atlas/tests.rs with probe_height_atlas;
// the `_rounded` forms by the GPU placement parity tests
// (passes/src/grass/placement_gpu/tests.rs).
//
// The exact height/normal atlas: one 17x9 texel tile per resident MCNK holding
// its 145 MCVT samples unchanged (relative to the MCNK base Z):
//   texel (c, r), c in 0..=8:  outer vertex (row r, col c), r in 0..=8;
//   texel (9 + c, r), c < 8:   inner (centre) vertex of cell (r, c), r < 8;
//   texel (9..=16, 8):         unused, zero.
// Tile (tx, ty) starts at texel (17 tx, 9 ty). The normal atlas (RGBA8 snorm,
// MCNR in world axes, w = 0) uses the same texels. Only textureLoad is used.
//
// Local positions (lx, ly) are in cells from the MCNK origin corner: lx along
// the columns (world -Y), ly along the rows (world -X), both in [0, 8].

//! import float_exact

const ATLAS_TILE_W: u32 = 17u;
const ATLAS_TILE_H: u32 = 9u;
// Value of the chunk-index texture where no MCNK is resident.
const ATLAS_NO_CHUNK: u32 = 0xffffffffu;

// Per-MCNK record (storage buffer, indexed by the MCNK's atlas slot).
struct AtlasChunk {
    // Global MCNK coordinate (x: column, y: row).
    chunk: vec2<u32>,
    // Atlas tile coordinate; the tile's first texel is tile * (17, 9).
    tile: vec2<u32>,
    // Conservative bounds of the MCNK's 145 vertices (world units).
    bounds_min: vec3<f32>,
    // MCNK base Z (header position.z): MCVT values are relative to it.
    base_z: f32,
    bounds_max: vec3<f32>,
    // holes_low_res: bit (row / 2) * 4 + col / 2 removes a 2x2-cell block.
    holes: u32,
}

// World (x, y) of the MCVT lattice point at global half-cell coordinates `h`
// (h.x along the columns, h.y along the rows; one cell = 2 half-cells):
// x = ORIGIN - h.y * UNIT / 2, y = ORIGIN - h.x * UNIT / 2. The constants are
// split into a short high part (its products with h < 2^15 and the
// difference are exact in f32) and a small low part, so the result is the
// exact value rounded once (rarely one ulp off), and MCNKs sharing an edge
// get bit-identical edge vertices.
const ATLAS_ORIGIN_HI: f32 = 17066.6640625;
const ATLAS_ORIGIN_LO: f32 = 0.0026041666666666665;
const ATLAS_HALF_UNIT_HI: f32 = 2.0859375;
const ATLAS_HALF_UNIT_LO: f32 = -0.0026041666666666665;

fn atlas_lattice_world(h: vec2<u32>) -> vec2<f32> {
    let g = vec2<f32>(h.yx);
    let hi = vec2<f32>(ATLAS_ORIGIN_HI) - g * ATLAS_HALF_UNIT_HI;
    let lo = vec2<f32>(ATLAS_ORIGIN_LO) - g * ATLAS_HALF_UNIT_LO;
    return hi + lo;
}

// Whether cell (row, col) of an MCNK with hole mask `holes` is a hole.
fn atlas_cell_is_hole(holes: u32, row: u32, col: u32) -> bool {
    return ((holes >> ((row / 2u) * 4u + col / 2u)) & 1u) != 0u;
}

// Texel of outer vertex (row, col) of `tile`, both 0..=8.
fn atlas_outer_texel(tile: vec2<u32>, row: u32, col: u32) -> vec2<i32> {
    return vec2<i32>(tile * vec2<u32>(ATLAS_TILE_W, ATLAS_TILE_H) + vec2<u32>(col, row));
}

// Texel of the inner (centre) vertex of cell (row, col) of `tile`, both 0..8.
fn atlas_inner_texel(tile: vec2<u32>, row: u32, col: u32) -> vec2<i32> {
    return vec2<i32>(tile * vec2<u32>(ATLAS_TILE_W, ATLAS_TILE_H) + vec2<u32>(9u + col, row));
}

// The four-triangle fan: values [tl, tr, bl, br, centre] at in-cell (u, v),
// u along the columns, v along the rows. Same regions, tie rules, weights and
// summation order as the CPU reference `fan_weights` / `fan_interpolate`.
fn fan_weights(u: f32, v: f32) -> array<f32, 5> {
    if (v <= u) {
        if (u + v <= 1.0) {
            return array<f32, 5>(1.0 - u - v, u - v, 0.0, 0.0, 2.0 * v);
        }
        return array<f32, 5>(0.0, u - v, 0.0, u + v - 1.0, 2.0 * (1.0 - u));
    }
    if (u + v >= 1.0) {
        return array<f32, 5>(0.0, 0.0, v - u, u + v - 1.0, 2.0 * (1.0 - v));
    }
    return array<f32, 5>(1.0 - u - v, 0.0, v - u, 0.0, 2.0 * u);
}

// Interpolates `values` ([tl, tr, bl, br, centre]) on the fan at (u, v).
fn fan_height(values: array<f32, 5>, u: f32, v: f32) -> f32 {
    let w = fan_weights(u, v);
    var sum = 0.0;
    for (var i = 0u; i < 5u; i++) {
        sum += w[i] * values[i];
    }
    return sum;
}

// Splits local (lx, ly) in cells into (row, col) and in-cell (u, v), clamping
// to the MCNK like the CPU reference (`split_local`).
struct AtlasCellPos {
    row: u32,
    col: u32,
    u: f32,
    v: f32,
}

fn atlas_split_local(lx: f32, ly: f32) -> AtlasCellPos {
    let x = clamp(lx, 0.0, 8.0);
    let y = clamp(ly, 0.0, 8.0);
    let col = min(u32(floor(x)), 7u);
    let row = min(u32(floor(y)), 7u);
    return AtlasCellPos(row, col, x - f32(col), y - f32(row));
}

// `fan_height` with every product and partial sum rounded to f32 on its own
// (`float_exact`): no fused multiply-add, the CPU reference's summation
// order, so where the device rounds to nearest it is bit-exact with
// `fan_interpolate` (the GPU placement generator's heights).
fn fan_height_rounded(values: array<f32, 5>, u: f32, v: f32) -> f32 {
    let w = fan_weights(u, v);
    var sum = 0.0;
    for (var i = 0u; i < 5u; i++) {
        sum = f32_rounded(sum + f32_rounded(w[i] * values[i]));
    }
    return sum;
}

// The five MCVT values [tl, tr, bl, br, centre] of cell (row, col) of `tile`.
fn height_atlas_cell_values(heights: texture_2d<f32>, tile: vec2<u32>, row: u32, col: u32) -> array<f32, 5> {
    return array<f32, 5>(
        textureLoad(heights, atlas_outer_texel(tile, row, col), 0).r,
        textureLoad(heights, atlas_outer_texel(tile, row, col + 1u), 0).r,
        textureLoad(heights, atlas_outer_texel(tile, row + 1u, col), 0).r,
        textureLoad(heights, atlas_outer_texel(tile, row + 1u, col + 1u), 0).r,
        textureLoad(heights, atlas_inner_texel(tile, row, col), 0).r,
    );
}

// Relative height (to base Z) in cell (row, col) of `tile` at in-cell (u, v).
fn height_atlas_cell(heights: texture_2d<f32>, tile: vec2<u32>, row: u32, col: u32, u: f32, v: f32) -> f32 {
    return fan_height(height_atlas_cell_values(heights, tile, row, col), u, v);
}

// `height_atlas_cell` summed as the CPU reference sums (`fan_height_rounded`).
fn height_atlas_cell_rounded(heights: texture_2d<f32>, tile: vec2<u32>, row: u32, col: u32, u: f32, v: f32) -> f32 {
    return fan_height_rounded(height_atlas_cell_values(heights, tile, row, col), u, v);
}

// Relative height (to base Z) of `tile` at local (lx, ly), clamped to the MCNK.
fn height_atlas_local(heights: texture_2d<f32>, tile: vec2<u32>, lx: f32, ly: f32) -> f32 {
    let p = atlas_split_local(lx, ly);
    return height_atlas_cell(heights, tile, p.row, p.col, p.u, p.v);
}

// MCNR normal of `tile` at local (lx, ly): fan-interpolated like the height,
// then normalised (CPU reference `Mcnk::normal_local`).
fn normal_atlas_local(normals: texture_2d<f32>, tile: vec2<u32>, lx: f32, ly: f32) -> vec3<f32> {
    let p = atlas_split_local(lx, ly);
    let w = fan_weights(p.u, p.v);
    let n = w[0] * textureLoad(normals, atlas_outer_texel(tile, p.row, p.col), 0).xyz
        + w[1] * textureLoad(normals, atlas_outer_texel(tile, p.row, p.col + 1u), 0).xyz
        + w[2] * textureLoad(normals, atlas_outer_texel(tile, p.row + 1u, p.col), 0).xyz
        + w[3] * textureLoad(normals, atlas_outer_texel(tile, p.row + 1u, p.col + 1u), 0).xyz
        + w[4] * textureLoad(normals, atlas_inner_texel(tile, p.row, p.col), 0).xyz;
    let len = length(n);
    return select(vec3<f32>(0.0, 0.0, 1.0), n / len, len > 0.0);
}

// The atlas slot of the MCNK under window-relative grid position `cell`
// (cells from the index window's origin corner; x along the columns, y along
// the rows), or ATLAS_NO_CHUNK outside the window or where nothing is
// resident. `index` is the R32Uint chunk-index texture (one texel per MCNK of
// the window). O(1): one textureLoad.
fn atlas_slot_at(index: texture_2d<u32>, cell: vec2<f32>) -> u32 {
    let size = textureDimensions(index);
    let c = floor(cell / 8.0);
    if (any(c < vec2<f32>(0.0)) || any(c >= vec2<f32>(size))) {
        return ATLAS_NO_CHUNK;
    }
    return textureLoad(index, vec2<i32>(c), 0).r;
}
