// Rust mirror: sward_passes::grass::placement_gpu::generator (the bind group
// layouts: group 0 the generator's buffers, group 1 the height atlas);
// CPU reference: sward_scenes::placement (cell_effect_with,
// Mcnk::height_in_cell, the Sink that collects placements); parity:
// passes/src/grass/placement_gpu/tests.rs.
//
// The generator's bindings and what needs them: the shared cell checks, where
// a placement stands (world x, y from the MCNK's stored position, z from the
// exact height atlas). One invocation generates one MCNK. How a placement
// is written out is `place_emit`, in `placement_emit` (the readback
// generation) or `grass_place_emit` (grass `gpu-cull:placement=gpu`, which
// composes the policies with that module in its place).

//! import height_atlas, placement_types

// A read-only storage buffer, not a uniform: the client routines' pick count
// bounds their loops, and Mesa 22.3's lavapipe compiles and keeps one more
// shader variant each time a bind group holding a uniform that decides a
// branch or a loop bound is bound (sward_wgsl::uniform_branches finds them;
// the library test requires none). Storage loads are never inlined.
@group(0) @binding(0) var<storage, read> place_params: PlaceParams;
@group(0) @binding(1) var<storage, read> place_records: array<PlaceChunk>;
@group(0) @binding(2) var<storage, read> place_effects: array<PlaceEffect>;
// per-cell: per record, words 0..2 a 64-bit mask (bit row * 8 + col: the
// cell has an effect-less layer besides its own), then per cell 16 bits
// (cell c in word 2 + c / 2, low half for even c): the coverage of its
// predTex layer at the cell centre (bits 0..8) and the largest weight of an
// effect-less other layer there (bits 8..16).
@group(0) @binding(3) var<storage, read> place_cover: array<u32>;
@group(1) @binding(0) var<storage, read> place_atlas_chunks: array<AtlasChunk>;
@group(1) @binding(1) var place_atlas_heights: texture_2d<f32>;

// The shared cell checks (CPU `cell_effect_with`), in its order: a
// noEffectDoodad cell, a hole, a predTex layer the MCNK lacks, a layer
// without an effect, an effect the table lacks, and (with `skip_empty`) an
// effect with no usable slot and no weight are skipped and counted. Returns
// the effect's index in the table, or PLACE_SKIP.
fn place_cell_effect(rec: PlaceChunk, row: u32, col: u32, skip_empty: bool, st: ptr<function, ChunkStats>) -> u32 {
    (*st).cells_visited += 1u;
    if (place_no_effect(rec, row, col)) {
        (*st).cells_no_effect_doodad += 1u;
        return PLACE_SKIP;
    }
    if (atlas_cell_is_hole(rec.slot_holes >> 16u, row, col)) {
        (*st).cells_hole += 1u;
        return PLACE_SKIP;
    }
    let code = place_layer_code(rec, place_pred_layer(rec, row, col));
    if (code == PLACE_LAYER_NONE) {
        (*st).cells_invalid_layer += 1u;
        return PLACE_SKIP;
    }
    if (code == PLACE_LAYER_NO_EFFECT) {
        (*st).cells_no_effect += 1u;
        return PLACE_SKIP;
    }
    if (code == PLACE_LAYER_UNKNOWN) {
        (*st).cells_unknown_effect += 1u;
        return PLACE_SKIP;
    }
    if (skip_empty) {
        let e = place_effects[code];
        let w = e.weights;
        var usable = false;
        for (var k = 0u; k < 4u; k++) {
            usable = usable || place_slot_model(e, k) < PLACE_SLOT_DANGLING;
        }
        if (w.x + w.y + w.z + w.w == 0u && !usable) {
            (*st).cells_empty_effect += 1u;
            return PLACE_SKIP;
        }
    }
    return code;
}

// World position of in-cell (u, v) of cell (row, col): x from the rows, y
// from the columns (CPU `Mcnk::local_to_world`), z the exact fan height
// (CPU `Mcnk::height_in_cell`: base z plus the fan summed as it sums).
fn place_position(rec: PlaceChunk, row: u32, col: u32, u: f32, v: f32) -> vec3<f32> {
    let atlas = place_atlas_chunks[place_atlas_slot(rec)];
    let z = atlas.base_z + height_atlas_cell_rounded(place_atlas_heights, atlas.tile, row, col, u, v);
    return vec3<f32>(place_axis(rec.origin.x, row, v), place_axis(rec.origin.y, col, u), z);
}
