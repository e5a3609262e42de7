// Rust mirror: sward_passes::grass::placement_gpu::gpu (PlaceParamsGpu,
// PlaceChunkGpu, PlaceEffectGpu, PlacedGpu, ChunkStatsGpu; layouts checked by
// tests) and ::cpu (coverage_unit, the record's field decoding); CPU
// reference: sward_scenes::placement; parity:
// passes/src/grass/placement_gpu/tests.rs (the probe and every placement
// test).
//
// The GPU placement generator's data (per-MCNK record, effect table,
// parameters, output placement, per-MCNK counters), how a record's fields
// decode, and `coverage_unit` (coverage / 255, a division on the CPU); the
// world axis of an in-cell offset is `placement_axis`. No bindings:
// `placement_io` declares them.

//! import float_exact, placement_axis

// The generator's parameters (one uniform block per generation).
struct PlaceParams {
    // Records to generate (one invocation each).
    record_count: u32,
    // Placements `placed` holds; more are counted, not written.
    capacity: u32,
    // Client routines: picks per MCNK (the density setting as the routine
    // clamps it).
    picks: u32,
    // Always 0: the opaque zero of `float_exact`.
    fence: u32,
    // per-cell: coverage (0..=255) below which a cell grows nothing.
    coverage_min: u32,
    // per-cell: weight of an effect-less layer at which it suppresses.
    road_min: u32,
    // per-cell: density cap before the clump formula.
    density_cap: u32,
    // per-cell: most clumps per cell before scaling.
    max_clumps: u32,
    // per-cell: multiplier on the clump count.
    density_scale: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// One MCNK as the generator reads it (48 bytes).
struct PlaceChunk {
    // Global MCNK coordinate: x (column) in bits 0..16, y (row) in 16..32.
    chunk: u32,
    // Height-atlas slot in bits 0..16, holes_low_res in bits 16..32.
    slot_holes: u32,
    // The MCNK's stored position x, y (its corner with the largest x, y).
    origin: vec2<f32>,
    // predTex: row r's u16 in word r / 2 (low half for even r); the
    // layer of cell (r, c) is (row >> 2c) & 3.
    pred_tex: vec4<u32>,
    // noEffectDoodad: row r's byte in word r / 4 (byte r % 4); bit c.
    no_effect: vec2<u32>,
    // Per texture layer k (0..4), 16 bits in word k / 2 (low half for even
    // k): the index of its effect in the effect table, or a PLACE_LAYER_ code.
    layers: vec2<u32>,
}

// One ground effect (GroundEffectTexture record resolved to models; 64 bytes).
struct PlaceEffect {
    // The slots' GroundEffectDoodad keys as stored.
    doodads: vec4<u32>,
    // Selection weight per slot (0 for an empty slot; per-cell).
    weights: vec4<u32>,
    // The weights as stored (the 3.3.5 bag is dealt by them).
    stored_weights: vec4<u32>,
    // Per slot k, 16 bits in word k / 2: the detail model index, or
    // PLACE_SLOT_EMPTY / PLACE_SLOT_DANGLING.
    models: vec2<u32>,
    // per-cell: density, defaulted and capped at 24.
    density: u32,
    // Client routines: doodads per picked cell (stored density, 0 = 8).
    client_density: u32,
}

// One generated placement (48 bytes).
struct Placed {
    position: vec3<f32>,
    // Rotation about +Z in radians.
    yaw: f32,
    scale: f32,
    // Per-placement seed (wind phase, variation).
    seed: u32,
    // Index of the MCNK's record in this generation.
    record: u32,
    // Client: the pick index; per-cell: the attempt index in the cell.
    pick: u32,
    // Client: the doodad index within the pick; per-cell: 0.
    n: u32,
    // Cell row in bits 0..8, column in 8..16, effect slot in 16..24.
    cell_slot: u32,
    // Detail model index.
    model: u32,
    // The slot's GroundEffectDoodad key.
    doodad: u32,
}

// Per-MCNK counters (the CPU's PlacementStats of that MCNK, plus draws).
struct ChunkStats {
    placements: u32,
    cells_visited: u32,
    cells_no_effect_doodad: u32,
    cells_hole: u32,
    cells_invalid_layer: u32,
    cells_no_effect: u32,
    cells_unknown_effect: u32,
    cells_empty_effect: u32,
    cells_low_coverage: u32,
    cells_road: u32,
    cells_placed: u32,
    empty_slots: u32,
    dangling_slots: u32,
    steep_slopes: u32,
    // Generator outputs consumed (client stream draws; per-cell Rng32 outputs).
    draws: u32,
    _pad: u32,
}

struct PlaceCounts {
    // Placements generated (written while below `capacity`).
    count: atomic<u32>,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// Layer codes of `PlaceChunk.layers`.
const PLACE_LAYER_NONE: u32 = 0xffffu;
const PLACE_LAYER_NO_EFFECT: u32 = 0xfffeu;
const PLACE_LAYER_UNKNOWN: u32 = 0xfffdu;
// Slot codes of `PlaceEffect.models`.
const PLACE_SLOT_EMPTY: u32 = 0xffffu;
const PLACE_SLOT_DANGLING: u32 = 0xfffeu;
// `place_cell_effect`: the cell is skipped.
const PLACE_SKIP: u32 = 0xffffffffu;
// Words of the per-cell coverage block of one record in `place_cover`.
const PLACE_COVER_WORDS: u32 = 34u;

fn place_chunk_coord(rec: PlaceChunk) -> vec2<u32> {
    return vec2<u32>(rec.chunk & 0xffffu, rec.chunk >> 16u);
}

fn place_atlas_slot(rec: PlaceChunk) -> u32 {
    return rec.slot_holes & 0xffffu;
}

// The predTex layer of cell (row, col).
fn place_pred_layer(rec: PlaceChunk, row: u32, col: u32) -> u32 {
    let half = (rec.pred_tex[row / 2u] >> (16u * (row & 1u))) & 0xffffu;
    return (half >> (2u * col)) & 3u;
}

fn place_no_effect(rec: PlaceChunk, row: u32, col: u32) -> bool {
    return ((rec.no_effect[row / 4u] >> (8u * (row & 3u) + col)) & 1u) != 0u;
}

fn place_layer_code(rec: PlaceChunk, layer: u32) -> u32 {
    return (rec.layers[layer / 2u] >> (16u * (layer & 1u))) & 0xffffu;
}

// The model of slot `slot` of `e`, or PLACE_SLOT_EMPTY / PLACE_SLOT_DANGLING.
fn place_slot_model(e: PlaceEffect, slot: u32) -> u32 {
    return (e.models[slot / 2u] >> (16u * (slot & 1u))) & 0xffffu;
}

// coverage / 255 rounded to the nearest f32, from integers: the binary
// expansion of c / 255 is c's 8 bits repeated forever, so the bits past the
// 24 kept are never a tie (c in 1..=254) and rounding is by the first of them.
fn coverage_unit(c: u32) -> f32 {
    if (c == 0u) {
        return 0.0;
    }
    if (c >= 255u) {
        return 1.0;
    }
    let m = c * 0x01010101u;
    let lz = countLeadingZeros(m);
    let top = m << lz;
    let kept = (top >> 8u) + ((top >> 7u) & 1u);
    return ldexp(f32(kept), -24 - i32(lz));
}

fn place_cell_slot(row: u32, col: u32, slot: u32) -> u32 {
    return row | (col << 8u) | (slot << 16u);
}
