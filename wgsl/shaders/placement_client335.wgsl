// Rust mirror: sward_passes::grass::placement_gpu (the dispatch and the
// readback of `generate_client335`); CPU reference:
// sward_scenes::placement::client335 (`place`, `deal_bag`, `client_triangle`,
// `triangle_normal_z`, `placement_seed`); parity:
// passes/src/grass/placement_gpu/tests.rs (client335_matches_the_cpu_*).
//
// The `client-3.3.5` policy: the 3.3.5 client's detail-doodad routine for one
// MCNK, draw for draw with the CPU reference. Picks as in 1.12 (a second
// generator positioned past them feeds pass 2). Pass 2, pick k in order: a
// skipped cell draws nothing (an effect with only empty slots is not
// skipped); the effect's slots are dealt into a 16-entry bag by their stored
// weights; `client_density` tries, each two signed draws ja, jb (always),
// bag entry (n + k) & 15: an empty entry stops there; the fan triangle under
// ox = ja * h + h, oy = jb * h + h (h half a cell) is chosen by the client's
// two diagonal tests; a triangle whose unit normal has z < 0.4 stops there;
// otherwise rotation = (s + 1) * pi and scale = s * 0.33 + 1 are drawn, and a
// dangling entry places nothing. Every product is rounded before its sum
// (`float_exact`), so the diagonal tests are bit-exact; the normal's square
// root and division follow the device's precision (see the parity tests'
// slope margins).

//! import client_rng, placement_rng, placement_io, placement_emit

const C335_PI: f32 = 3.1415927f;
const C335_CELL_SIZE: f32 = 4.1666665f;
const C335_CELL_HALF: f32 = 2.0833333f;
const C335_MIN_NORMAL_Z: f32 = 0.4f;
const C335_SCALE_JITTER: f32 = 0.33f;
const C335_SEED_SALT: u32 = 0xc3350001u;
const C335_BAG_STEP: u32 = 13u;

// The effect's slots dealt into the 16-entry bag (CPU `deal_bag`): slot k
// is dealt its stored weight times (read as a signed int; negative deals
// nothing), deal d landing on entry 13 d mod 16; fewer than 16 deals are
// topped up round-robin over all four slots; more overwrite.
fn c335_deal_bag(weights: vec4<u32>) -> array<u32, 16> {
    var bag: array<u32, 16>;
    var dealt = 0u;
    for (var k = 0u; k < 4u; k++) {
        let deals = u32(max(bitcast<i32>(weights[k]), 0));
        for (var d = 0u; d < min(deals, 16u); d++) {
            bag[(dealt * C335_BAG_STEP) & 15u] = k;
            dealt += 1u;
        }
        if (deals > 16u) {
            dealt += deals - 16u;
        }
    }
    for (; dealt < 16u; dealt++) {
        bag[(dealt * C335_BAG_STEP) & 15u] = dealt & 3u;
    }
    return bag;
}

// The fan triangle under in-cell offset (ox, oy) (CPU `client_triangle`):
// 0 top, 1 right, 2 bottom, 3 left.
fn c335_triangle(ox: f32, oy: f32) -> u32 {
    let below = f32_rounded(oy - ox) < 0.0;
    let past = f32_rounded(f32_rounded(ox - C335_CELL_SIZE) + oy) > 0.0;
    if (below) {
        return select(0u, 1u, past);
    }
    return select(3u, 2u, past);
}

fn c335_point(u: f32, v: f32, h: f32) -> vec3<f32> {
    return vec3<f32>(f32_rounded(u * C335_CELL_SIZE), f32_rounded(v * C335_CELL_SIZE), h);
}

// |z| of the unit normal of fan triangle `tri` of cell (row, col), built as
// the CPU builds it (CPU `triangle_normal_z`); 0 for a degenerate one.
fn c335_normal_z(tile: vec2<u32>, row: u32, col: u32, tri: u32) -> f32 {
    let h = height_atlas_cell_values(place_atlas_heights, tile, row, col);
    var a: vec3<f32>;
    var b: vec3<f32>;
    switch tri {
        case 0u: {
            a = c335_point(0.0, 0.0, h[0]);
            b = c335_point(1.0, 0.0, h[1]);
        }
        case 1u: {
            a = c335_point(1.0, 0.0, h[1]);
            b = c335_point(1.0, 1.0, h[3]);
        }
        case 2u: {
            a = c335_point(1.0, 1.0, h[3]);
            b = c335_point(0.0, 1.0, h[2]);
        }
        default: {
            a = c335_point(0.0, 1.0, h[2]);
            b = c335_point(0.0, 0.0, h[0]);
        }
    }
    let c = c335_point(0.5, 0.5, h[4]);
    let e1 = vec3<f32>(f32_rounded(a.x - c.x), f32_rounded(a.y - c.y), f32_rounded(a.z - c.z));
    let e2 = vec3<f32>(f32_rounded(b.x - c.x), f32_rounded(b.y - c.y), f32_rounded(b.z - c.z));
    let n = vec3<f32>(
        f32_rounded(f32_rounded(e1.y * e2.z) - f32_rounded(e1.z * e2.y)),
        f32_rounded(f32_rounded(e1.z * e2.x) - f32_rounded(e1.x * e2.z)),
        f32_rounded(f32_rounded(e1.x * e2.y) - f32_rounded(e1.y * e2.x)),
    );
    let sq = f32_rounded(
        f32_rounded(f32_rounded(n.x * n.x) + f32_rounded(n.y * n.y)) + f32_rounded(n.z * n.z),
    );
    let len = sqrt(sq);
    if (len == 0.0) {
        return 0.0;
    }
    return abs(n.z) / len;
}

fn place_client335(r: u32) -> ChunkStats {
    var st: ChunkStats;
    let rec = place_records[r];
    let chunk = place_chunk_coord(rec);
    let tile = place_atlas_chunks[place_atlas_slot(rec)].tile;
    let seed = client_mcnk_seed(chunk);
    var picks = client_rng_new(seed);
    var draws = client_rng_new(seed);
    client_rng_skip(&draws, 2u * place_params.picks);
    st.draws = 2u * place_params.picks;
    for (var k = 0u; k < place_params.picks; k++) {
        let col = client_rng_next(&picks) & 7u;
        let row = client_rng_next(&picks) & 7u;
        let code = place_cell_effect(rec, row, col, false, &st);
        if (code == PLACE_SKIP) {
            continue;
        }
        st.cells_placed += 1u;
        let e = place_effects[code];
        var bag = c335_deal_bag(e.stored_weights);
        for (var n = 0u; n < e.client_density; n++) {
            let ja = client_rng_signed(&draws);
            let jb = client_rng_signed(&draws);
            st.draws += 2u;
            let slot = bag[(n + k) & 15u];
            let model = place_slot_model(e, slot);
            if (model == PLACE_SLOT_EMPTY) {
                st.empty_slots += 1u;
                continue;
            }
            let ox = f32_rounded(ja * C335_CELL_HALF) + C335_CELL_HALF;
            let oy = f32_rounded(jb * C335_CELL_HALF) + C335_CELL_HALF;
            let nz = c335_normal_z(tile, row, col, c335_triangle(f32_rounded(ox), f32_rounded(oy)));
            if (nz < C335_MIN_NORMAL_Z || nz == 0.0) {
                st.steep_slopes += 1u;
                continue;
            }
            let yaw = (client_rng_signed(&draws) + 1.0) * C335_PI;
            let scale = f32_rounded(client_rng_signed(&draws) * C335_SCALE_JITTER) + 1.0;
            st.draws += 2u;
            if (model == PLACE_SLOT_DANGLING) {
                st.dangling_slots += 1u;
                continue;
            }
            let u = (ja + 1.0) * 0.5;
            let v = (jb + 1.0) * 0.5;
            var p: Placed;
            p.position = place_position(rec, row, col, u, v);
            p.yaw = yaw;
            p.scale = scale;
            p.seed = hash_words5(chunk.x, chunk.y, k, n, C335_SEED_SALT);
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
