// Rust mirror: sward_passes::grass::camera_grid::{gpu (GridUniform, GridEffectGpu),
// grid (grid_blade and the hash streams), control (the control word)}; parity
// and stability tests in passes/src/grass/camera_grid/tests/ via
// probe_camera_grid.wgsl.
//
// The `camera-grid` slot generator. An odd `side` x `side` grid of slots,
// `spacing_cells` (in terrain cells) apart, is centred on the camera's slot;
// every slot holds `candidates` blade candidates. Instance `n` of a draw is
// candidate `n % candidates` of grid slot `n / candidates` (row-major, offset
// by -(side - 1) / 2 on both axes), i.e. of the integer *world* slot
// `camera_slot + offset`. Everything about a candidate is a pure function of
// (world slot i, j, candidate k) and the resident data, never of the camera
// or the instance index, so blades never slide when the camera moves:
//   - jitter: uniform in the slot, `p = (slot + jitter) * spacing_cells`
//     (grid cells from the map origin corner: x along the columns, -Y; y
//     along the rows, -X);
//   - the control texel of the terrain cell under `p` (suppression reason,
//     effect index, expected placements per cell), with an explicit guard for
//     cells outside the control window or MCNKs missing from the atlas;
//   - keep with probability `expected * spacing_cells^2 / candidates`, so the
//     expected blade count of every terrain cell equals the placement
//     policy's expected count;
//   - the model from the effect's four slots by weight (or, for the client
//     policy, by the slot rotation `(n + cellIndex) & 3`);
//   - yaw, scale and a small wind phase offset;
//   - Z from the exact height atlas (`height_atlas` snippet).
// Each quantity has its own hash stream (candidate key ^ salt, then PCG), so
// e.g. yaw and phase are independent.

//! import hash, height_atlas

// World X and Y of the map origin corner (32 ADT tiles of 1600/3 units).
const GRID_MAP_ORIGIN: f32 = 17066.666;
// Side of a terrain cell in world units (1600 / 3 / 16 / 8).
const GRID_UNIT: f32 = 4.1666665;
const GRID_TAU: f32 = 6.2831855;

// Control word: bits 0..3 reason (0 = grows), 4..15 effect index, 16..31
// expected placements per cell in 1/256.
const GRID_REASON_MASK: u32 = 0xfu;
const GRID_EFFECT_SHIFT: u32 = 4u;
const GRID_EFFECT_MASK: u32 = 0xfffu;
const GRID_DENSITY_SHIFT: u32 = 16u;
const GRID_DENSITY_SCALE: f32 = 256.0;

// Blade status (GridBlade.status).
const GRID_DRAWN: u32 = 0u;
// Outside the world, the control window or the resident atlas.
const GRID_OUTSIDE: u32 = 1u;
// The control texel says the cell grows nothing.
const GRID_SUPPRESSED: u32 = 2u;
// The density draw rejected the candidate.
const GRID_THINNED: u32 = 3u;
// The weighted pick hit an empty doodad slot.
const GRID_EMPTY_SLOT: u32 = 4u;

// Model choice rule (GridUniform.policy).
const GRID_POLICY_WEIGHTED: u32 = 0u;
const GRID_POLICY_ROTATION: u32 = 1u;

// Hash stream salts.
const GRID_SALT_CANDIDATE: u32 = 0x9e3779b9u;
const GRID_SALT_JITTER_X: u32 = 0x68e31da4u;
const GRID_SALT_JITTER_Y: u32 = 0xb5297a4du;
const GRID_SALT_KEEP: u32 = 0x1b56c4e9u;
const GRID_SALT_MODEL: u32 = 0x7f4a7c15u;
const GRID_SALT_YAW: u32 = 0x94d049bbu;
const GRID_SALT_SCALE: u32 = 0xbf58476du;
const GRID_SALT_PHASE: u32 = 0x2545f491u;

const GRID_NO_MODEL: u32 = 0xffffffffu;

struct GridUniform {
    // World slot (i, j) of the slot holding the camera.
    camera_slot: vec2<i32>,
    // Global MCNK coordinate of texel (0, 0) of the atlas index texture; the
    // control texture starts at 8x this in cells.
    chunk_origin: vec2<i32>,
    // Slots per axis (odd).
    side: u32,
    // Candidates per slot.
    candidates: u32,
    // Slot spacing in terrain cells.
    spacing_cells: f32,
    // spacing_cells^2 / candidates: keep probability per expected placement.
    keep_scale: f32,
    // Largest wind phase offset (radians) the phase hash adds.
    phase_spread: f32,
    // GRID_POLICY_WEIGHTED or GRID_POLICY_ROTATION.
    policy: u32,
    // Models in the effect table's index space.
    model_count: u32,
    // Compaction culls by the frustum too (1/0).
    frustum_cull: u32,
    // xyz eye, w draw distance.
    eye: vec4<f32>,
    // x largest model radius, y largest sway; zw unused.
    bounds: vec4<f32>,
    // Wind phase per world unit (xy); zw unused.
    wind_phase: vec4<f32>,
    frustum: array<vec4<f32>, 6>,
}

// One ground effect: four doodad slots (model index or GRID_NO_MODEL) and
// their weights.
struct GridEffect {
    models: vec4<u32>,
    weights: vec4<u32>,
    // Sum of the weights.
    total: u32,
    // Effective density (doodads per picked cell, client policy).
    density: u32,
    pad0: u32,
    pad1: u32,
}

// What the generator makes of one candidate.
struct GridBlade {
    // GRID_DRAWN or why not.
    status: u32,
    // Model index (GRID_NO_MODEL unless a model was picked).
    model: u32,
    // The control word of the cell under the root (0xffffffff outside).
    control: u32,
    // Row-major cell index inside its MCNK.
    cell_index: u32,
    // Root in world space (z on the exact terrain surface).
    root: vec3<f32>,
    // Yaw about +Z (radians, -pi..pi).
    yaw: f32,
    // Uniform scale (0.9..1.1).
    scale: f32,
    // Wind phase offset (radians, 0..phase_spread).
    phase: f32,
}

@group(2) @binding(0) var<uniform> grid: GridUniform;
@group(2) @binding(2) var grid_control: texture_2d<u32>;
@group(2) @binding(3) var<storage, read> grid_effects: array<GridEffect>;
@group(2) @binding(6) var<storage, read> grid_chunks: array<AtlasChunk>;
@group(2) @binding(7) var grid_heights: texture_2d<f32>;
@group(2) @binding(9) var grid_chunk_index: texture_2d<u32>;

// Key of candidate `k` of world slot (i, j).
fn grid_candidate_key(i: i32, j: i32, k: u32) -> u32 {
    return pcg_hash(hash2(bitcast<u32>(i), bitcast<u32>(j)) ^ pcg_hash(k ^ GRID_SALT_CANDIDATE));
}

// Uniform [0, 1) of stream `salt` of a candidate.
fn grid_stream(key: u32, salt: u32) -> f32 {
    return hash_unit(pcg_hash(key ^ salt));
}

// World slot and candidate of instance `n`.
fn grid_instance_slot(n: u32) -> vec3<i32> {
    let slot = n / grid.candidates;
    let half = i32(grid.side / 2u);
    let gx = i32(slot % grid.side) - half;
    let gy = i32(slot / grid.side) - half;
    return vec3<i32>(grid.camera_slot + vec2<i32>(gx, gy), i32(n % grid.candidates));
}

// Doodad-slot weights of `e` in cell `cell_index` under the grid's policy.
fn grid_slot_weights(e: GridEffect, cell_index: u32) -> vec4<u32> {
    // Doodad n of a picked cell uses slot (n + cellIndex) & 3. Computed for
    // both policies and selected: no branch on the uniform policy (see
    // sward_wgsl::uniform_branches).
    var w = vec4<u32>(0u);
    for (var s = 0u; s < 4u; s++) {
        let first = (s + 4u - (cell_index & 3u)) & 3u;
        w[s] = select(0u, (e.density - first + 3u) / 4u, e.density > first);
    }
    return select(e.weights, w, grid.policy == GRID_POLICY_ROTATION);
}

// The candidate `k` of world slot (i, j).
fn grid_blade(i: i32, j: i32, k: u32) -> GridBlade {
    var b: GridBlade;
    b.status = GRID_OUTSIDE;
    b.model = GRID_NO_MODEL;
    b.control = 0xffffffffu;
    b.cell_index = 0u;
    b.root = vec3<f32>(0.0);
    b.yaw = 0.0;
    b.scale = 1.0;
    b.phase = 0.0;
    let key = grid_candidate_key(i, j, k);
    let jitter = vec2<f32>(grid_stream(key, GRID_SALT_JITTER_X), grid_stream(key, GRID_SALT_JITTER_Y));
    let p = (vec2<f32>(f32(i), f32(j)) + jitter) * grid.spacing_cells;
    b.root = vec3<f32>(GRID_MAP_ORIGIN - p.y * GRID_UNIT, GRID_MAP_ORIGIN - p.x * GRID_UNIT, 0.0);
    b.yaw = grid_stream(key, GRID_SALT_YAW) * GRID_TAU - 3.1415927;
    b.scale = 0.9 + 0.2 * grid_stream(key, GRID_SALT_SCALE);
    b.phase = grid_stream(key, GRID_SALT_PHASE) * grid.phase_spread;
    // Out-of-bounds guard: outside the world, the control window or the atlas.
    if (any(p < vec2<f32>(0.0))) {
        return b;
    }
    let cell = vec2<i32>(floor(p));
    let texel = cell - grid.chunk_origin * 8;
    let size = vec2<i32>(textureDimensions(grid_control));
    if (any(texel < vec2<i32>(0)) || any(texel >= size)) {
        return b;
    }
    let chunk_texel = texel / 8;
    let slot = textureLoad(grid_chunk_index, chunk_texel, 0).r;
    if (slot == ATLAS_NO_CHUNK || slot >= arrayLength(&grid_chunks)) {
        return b;
    }
    let row = u32(cell.y & 7);
    let col = u32(cell.x & 7);
    b.cell_index = row * 8u + col;
    let control = textureLoad(grid_control, texel, 0).r;
    b.control = control;
    let rec = grid_chunks[slot];
    let uv = p - vec2<f32>(cell);
    b.root.z = rec.base_z + height_atlas_cell(grid_heights, rec.tile, row, col, uv.x, uv.y);
    if ((control & GRID_REASON_MASK) != 0u) {
        b.status = GRID_SUPPRESSED;
        return b;
    }
    let effect_index = (control >> GRID_EFFECT_SHIFT) & GRID_EFFECT_MASK;
    if (effect_index >= arrayLength(&grid_effects)) {
        b.status = GRID_SUPPRESSED;
        return b;
    }
    let expected = f32(control >> GRID_DENSITY_SHIFT) / GRID_DENSITY_SCALE;
    if (grid_stream(key, GRID_SALT_KEEP) >= expected * grid.keep_scale) {
        b.status = GRID_THINNED;
        return b;
    }
    let e = grid_effects[effect_index];
    let w = grid_slot_weights(e, b.cell_index);
    let total = w.x + w.y + w.z + w.w;
    if (total == 0u) {
        b.status = GRID_EMPTY_SLOT;
        return b;
    }
    let pick = min(u32(grid_stream(key, GRID_SALT_MODEL) * f32(total)), total - 1u);
    var acc = 0u;
    var model = GRID_NO_MODEL;
    for (var s = 0u; s < 4u; s++) {
        acc += w[s];
        if (pick < acc) {
            model = e.models[s];
            break;
        }
    }
    if (model == GRID_NO_MODEL || model >= grid.model_count) {
        b.status = GRID_EMPTY_SLOT;
        return b;
    }
    b.model = model;
    b.status = GRID_DRAWN;
    return b;
}

// The root-to-world matrix of a blade: T(root) * Rz(yaw) * S(scale), as the
// instanced tiers build it (grass::instance::instance_matrix).
fn grid_blade_matrix(b: GridBlade) -> mat4x4<f32> {
    let c = cos(b.yaw) * b.scale;
    let s = sin(b.yaw) * b.scale;
    return mat4x4<f32>(
        vec4<f32>(c, s, 0.0, 0.0),
        vec4<f32>(-s, c, 0.0, 0.0),
        vec4<f32>(0.0, 0.0, b.scale, 0.0),
        vec4<f32>(b.root, 1.0),
    );
}

// The point whose position phases the blade's wind: the root shifted along
// the wind phase gradient so that `dot(shift, wind_phase) = b.phase`.
fn grid_wind_origin(b: GridBlade) -> vec3<f32> {
    let g = grid.wind_phase.xy;
    let len2 = dot(g, g);
    // Selected, not branched on the uniform phase (sward_wgsl::uniform_branches).
    let still = len2 <= 0.0;
    let moved = vec3<f32>(b.root.xy + g * (b.phase / select(len2, 1.0, still)), b.root.z);
    return select(moved, b.root, still);
}

// A drawn blade as the compaction pre-pass stores it, so the vertex stage
// builds its matrix from one fetch instead of re-deriving the blade:
// (root xyz, scale) and (cos(yaw) * scale, sin(yaw) * scale, wind origin xy).
struct GridInstance {
    root_scale: vec4<f32>,
    rot_origin: vec4<f32>,
}

fn grid_instance(b: GridBlade) -> GridInstance {
    let o = grid_wind_origin(b);
    return GridInstance(
        vec4<f32>(b.root, b.scale),
        vec4<f32>(cos(b.yaw) * b.scale, sin(b.yaw) * b.scale, o.xy),
    );
}

// The blade matrix of `i` (equals `grid_blade_matrix` of its blade).
fn grid_instance_matrix(i: GridInstance) -> mat4x4<f32> {
    let c = i.rot_origin.x;
    let s = i.rot_origin.y;
    let k = i.root_scale.w;
    return mat4x4<f32>(
        vec4<f32>(c, s, 0.0, 0.0),
        vec4<f32>(-s, c, 0.0, 0.0),
        vec4<f32>(0.0, 0.0, k, 0.0),
        vec4<f32>(i.root_scale.xyz, 1.0),
    );
}
