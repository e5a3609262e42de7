// Rust mirror: sward_passes::grass::placement_gpu (the dispatch and the
// readback of `generate_per_cell`; `cpu::coverage_unit`); CPU reference:
// sward_scenes::placement::per_cell (`place`, `clumps`); parity:
// passes/src/grass/placement_gpu/tests.rs (per_cell_matches_the_cpu_*).
//
// sward's `per-cell` policy for one MCNK: every cell in row-major order; after
// the shared checks, a coverage below the minimum or an effect-less layer
// weighing at least the road minimum skips it (coverages come precomputed
// from MCAL in `place_cover`: the alpha maps are not on the GPU); otherwise
// clumps = min(max(1, ceil(coverage / 255 * min(density, cap))), max) scaled
// by density_scale, its fraction resolved by a per-cell hash, attempts each
// with their own Rng32 stream: u, v, a weighted slot, yaw, scale, seed.
// `coverage / 255` is computed correctly rounded from its bits (a GPU's
// division need not be), the products rounded before their sums, so every
// decision is the CPU's.

//! import placement_rng, placement_io, placement_emit

const PC_PI: f32 = 3.1415927f;
const PC_SCALE_LO: f32 = 0.9f;
const PC_SCALE_HI: f32 = 1.1f;
const PC_SALT_CELL: u32 = 0x5eed0001u;
const PC_SALT_ATTEMPT: u32 = 0x5eed0002u;

// The clump formula for one cell (CPU `clumps`).
fn pc_clumps(coverage: u32, density: u32, cap: u32, max_clumps: u32) -> u32 {
    let want = u32(ceil(f32_rounded(coverage_unit(coverage) * f32(min(density, cap)))));
    return min(max(want, 1u), max_clumps);
}

// The slot a uniform r in [0, total weight) picks (CPU
// `ResolvedEffect::pick_weighted_slot`); 4 when every weight is zero.
fn pc_weighted_slot(w: vec4<u32>, r: u32) -> u32 {
    var acc = 0u;
    for (var i = 0u; i < 4u; i++) {
        acc += w[i];
        if (r < acc) {
            return i;
        }
    }
    return 4u;
}

fn place_per_cell(r: u32) -> ChunkStats {
    var st: ChunkStats;
    let rec = place_records[r];
    let chunk = place_chunk_coord(rec);
    let cover = r * PLACE_COVER_WORDS;
    for (var row = 0u; row < 8u; row++) {
        for (var col = 0u; col < 8u; col++) {
            let code = place_cell_effect(rec, row, col, true, &st);
            if (code == PLACE_SKIP) {
                continue;
            }
            let cell = row * 8u + col;
            let bits = (place_cover[cover + 2u + cell / 2u] >> (16u * (cell & 1u))) & 0xffffu;
            let coverage = bits & 0xffu;
            if (coverage < place_params.coverage_min) {
                st.cells_low_coverage += 1u;
                continue;
            }
            let has_road = ((place_cover[cover + cell / 32u] >> (cell & 31u)) & 1u) != 0u;
            if (has_road && (bits >> 8u) >= place_params.road_min) {
                st.cells_road += 1u;
                continue;
            }
            let e = place_effects[code];
            let base = pc_clumps(coverage, e.density, place_params.density_cap, place_params.max_clumps);
            let scaled = f32_rounded(f32(base) * place_params.density_scale);
            let frac = hash_unit(hash_words4(chunk.x, chunk.y, cell, PC_SALT_CELL));
            let attempts = u32(floor(f32_rounded(scaled + frac)));
            if (attempts == 0u) {
                continue;
            }
            st.cells_placed += 1u;
            let total = e.weights.x + e.weights.y + e.weights.z + e.weights.w;
            for (var a = 0u; a < attempts; a++) {
                var rng = rng32_new(hash_words5(chunk.x, chunk.y, cell, a, PC_SALT_ATTEMPT));
                let u = rng32_next_f32(&rng);
                let v = rng32_next_f32(&rng);
                let pick = rng32_below(&rng, total);
                let yaw = rng32_range_f32(&rng, -PC_PI, PC_PI);
                let scale = rng32_range_f32(&rng, PC_SCALE_LO, PC_SCALE_HI);
                let seed = rng32_next_u32(&rng);
                st.draws += 6u;
                let slot = pc_weighted_slot(e.weights, pick);
                var model = PLACE_SLOT_EMPTY;
                if (slot < 4u) {
                    model = place_slot_model(e, slot);
                }
                if (model == PLACE_SLOT_DANGLING) {
                    st.dangling_slots += 1u;
                    continue;
                }
                if (model == PLACE_SLOT_EMPTY) {
                    st.empty_slots += 1u;
                    continue;
                }
                var p: Placed;
                p.position = place_position(rec, row, col, u, v);
                p.yaw = yaw;
                p.scale = scale;
                p.seed = seed;
                p.record = r;
                p.pick = a;
                p.n = 0u;
                p.cell_slot = place_cell_slot(row, col, slot);
                p.model = model;
                p.doodad = e.doodads[slot];
                place_emit(p, &st);
            }
        }
    }
    return st;
}
