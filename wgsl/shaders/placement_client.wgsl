// Rust mirror: sward_passes::grass::placement_gpu (the dispatch and the
// readback of `generate_client`); CPU reference:
// sward_scenes::placement::client (`place`, `placement_seed`); parity:
// passes/src/grass/placement_gpu/tests.rs (client_matches_the_cpu_*).
//
// The `client` policy: the 1.12 client's detail-doodad routine for one MCNK,
// draw for draw with the CPU reference. Two generators start from the MCNK's
// seed: `picks` deals the cell picks (two draws each: column, then row) and
// `draws`, advanced past all of them first, feeds pass 2, so no pick list is
// stored. Pass 2, pick k in order: a skipped cell draws nothing; otherwise
// `client_density` doodads, each two signed draws rx, ry (always), slot
// (n + k) & 3; an empty slot stops there, a dangling one draws scale and yaw
// and places nothing, a model draws scale = s * 0.1 + 1 (product rounded
// before the sum) and yaw = s * pi and stands at u = (rx + 1) / 2, v =
// (ry + 1) / 2 of its cell (both exact).

//! import client_rng, placement_rng, placement_io, placement_emit

const CLIENT_PI: f32 = 3.1415927f;
const CLIENT_SCALE_STEP: f32 = 0.1f;
const CLIENT_SEED_SALT: u32 = 0xc11e0001u;

fn place_client(r: u32) -> ChunkStats {
    var st: ChunkStats;
    let rec = place_records[r];
    let chunk = place_chunk_coord(rec);
    let seed = client_mcnk_seed(chunk);
    var picks = client_rng_new(seed);
    var draws = client_rng_new(seed);
    client_rng_skip(&draws, 2u * place_params.picks);
    st.draws = 2u * place_params.picks;
    for (var k = 0u; k < place_params.picks; k++) {
        let col = client_rng_next(&picks) & 7u;
        let row = client_rng_next(&picks) & 7u;
        let code = place_cell_effect(rec, row, col, true, &st);
        if (code == PLACE_SKIP) {
            continue;
        }
        st.cells_placed += 1u;
        let e = place_effects[code];
        for (var n = 0u; n < e.client_density; n++) {
            let rx = client_rng_signed(&draws);
            let ry = client_rng_signed(&draws);
            st.draws += 2u;
            let slot = (n + k) & 3u;
            let model = place_slot_model(e, slot);
            if (model == PLACE_SLOT_EMPTY) {
                st.empty_slots += 1u;
                continue;
            }
            let scale = f32_rounded(client_rng_signed(&draws) * CLIENT_SCALE_STEP) + 1.0;
            let yaw = client_rng_signed(&draws) * CLIENT_PI;
            st.draws += 2u;
            if (model == PLACE_SLOT_DANGLING) {
                st.dangling_slots += 1u;
                continue;
            }
            let u = (rx + 1.0) * 0.5;
            let v = (ry + 1.0) * 0.5;
            var p: Placed;
            p.position = place_position(rec, row, col, u, v);
            p.yaw = yaw;
            p.scale = scale;
            p.seed = hash_words5(chunk.x, chunk.y, k, n, CLIENT_SEED_SALT);
            p.record = r;
            p.pick = k;
            p.n = n;
            p.cell_slot = place_cell_slot(row, col, slot);
            p.model = model;
            p.doodad = e.doodads[slot];
            place_emit(p, &st);
        }
    }
    return st;
}
