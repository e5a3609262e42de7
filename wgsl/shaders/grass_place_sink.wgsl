// Rust mirror: sward_passes::grass::gpu_cull::generated (PlaceBoundsGpu,
// the group 2 layout, the counts header); CPU references:
// grass::gpu_cull::descriptor::pack (the descriptor), cull::entry_visible
// (the MCNK test); parity: grass::gpu_cull::tests (generated descriptors
// equal the CPU's packing; `placement=gpu` draws what `placement=descriptors`
// draws).
//
// Grass `gpu-cull:placement=gpu`: where the generator's placements go. Per
// frame, one invocation per resident MCNK record tests the MCNK's bounds
// (distance and frustum, as the patch cull tests an entry); a kept MCNK runs
// its policy twice: the first run counts its placements per model, then one
// atomic reserves a contiguous range of descriptors and one entry per model
// (appended to the per-instance cull's survivor list, as `cull_patches`
// appends an entry), and the second run packs each placement into its
// model's range (the 16-byte descriptor of `placement=descriptors`, packed
// as the CPU packs it). `place_regions` then gives each model its region of
// the visible list (prefix sums of the models' generated counts), and the
// per-instance cull runs unchanged over the generated entries.

//! import grass_cull_types, placement_io

// An MCNK's bounds as the cull tests them (its square and terrain Z range
// grown by the largest model reach), its patch-table row and the largest
// sway height of the models (32 bytes). patch_index PLACE_NO_RECORD: a free
// record.
struct PlaceBounds {
    bounds_min: vec3<f32>,
    patch_index: u32,
    bounds_max: vec3<f32>,
    sway_height: f32,
}

// The generation's counts, written by the CPU each frame (header) and by
// the generator.
struct PlaceCullCounts {
    // Entries the generated list holds.
    entry_capacity: u32,
    // Models (per-model counts follow).
    model_count: u32,
    // MCNKs kept and generated this frame.
    mcnks: atomic<u32>,
    // Placements generated this frame.
    placements: atomic<u32>,
    // MCNKs whose placements found no room (never, with the CPU's bound).
    overflow: atomic<u32>,
    // Entries generated this frame.
    entries: atomic<u32>,
    _pad0: u32,
    _pad1: u32,
    // Per model: placements generated this frame.
    per_model: array<atomic<u32>>,
}

const PLACE_NO_RECORD: u32 = 0xffffffffu;
// Most distinct models one MCNK places (4 layers of 4 slots).
const PLACE_MCNK_MODELS: u32 = 16u;
// Word offsets of the per-instance cull's `state` (grass_cull_instances).
const PLACE_STATE_SURVIVORS: u32 = 0u;
const PLACE_STATE_ARGS: u32 = 8u;
const PLACE_ARGS_WORDS: u32 = 5u;

@group(2) @binding(0) var<uniform> place_cull: GrassCull;
@group(2) @binding(1) var<storage, read> place_bounds: array<PlaceBounds>;
@group(2) @binding(2) var<storage, read> place_patches: array<GrassPatch>;
@group(2) @binding(3) var<storage, read_write> place_out: array<GrassDescriptor>;
@group(2) @binding(4) var<storage, read_write> place_entries: array<PatchEntry>;
@group(2) @binding(5) var<storage, read_write> place_state: array<atomic<u32>>;
@group(2) @binding(6) var<storage, read_write> place_dispatch: array<atomic<u32>, 3>;
@group(2) @binding(7) var<storage, read_write> place_cull_counts: PlaceCullCounts;
@group(2) @binding(8) var<storage, read_write> place_models: array<CullModel>;

// The emitter's state for the MCNK this invocation generates: 0 counting, 1
// writing; the distinct models met (in order) and per model its count and,
// while writing, its next descriptor.
var<private> sink_writing: bool;
var<private> sink_kinds: u32;
var<private> sink_models: array<u32, 16>;
var<private> sink_counts: array<u32, 16>;
var<private> sink_next: array<u32, 16>;
var<private> sink_end: array<u32, 16>;
var<private> sink_patch: u32;

// Round to nearest, ties away from zero, of a non-negative value below
// 2^23 (Rust's `f32::round`): v + 0.5 is exact there.
fn sink_round(v: f32) -> u32 {
    return u32(floor(v + 0.5));
}

// The CPU's `pack2x16unorm` (descriptor::pack2x16unorm): each value clamped
// to [0, 1], times 65535 rounded to f32 before the rounding to an integer.
fn sink_pack_unorm(a: f32, b: f32) -> u32 {
    let qa = sink_round(f32_rounded(clamp(a, 0.0, 1.0) * 65535.0));
    let qb = sink_round(f32_rounded(clamp(b, 0.0, 1.0) * 65535.0));
    return qa | (qb << 16u);
}

// descriptor::pack: local xy in the patch frame, yaw in turns
// (rem_euclid 1), scale / GRASS_SCALE_MAX.
fn sink_descriptor(p: Placed, patch_index: u32) -> GrassDescriptor {
    let f = place_patches[patch_index].world;
    let local = (p.position.xy - f.xy) / f.z;
    let t = p.yaw / GRASS_TAU;
    let r = t - trunc(t);
    let turns = select(r, r + 1.0, r < 0.0);
    return GrassDescriptor(
        sink_pack_unorm(local.x, local.y),
        sink_pack_unorm(turns, p.scale / GRASS_SCALE_MAX),
        p.seed,
        patch_index,
    );
}

// The index of `model` among the MCNK's models (added while counting), or
// PLACE_MCNK_MODELS when there is no room. The per-kind arrays are only
// indexed by loop counters, never by a per-invocation value: lavapipe
// (Mesa 22.3) miscounted `sink_counts[k] += 1u` with a dynamic `k` in
// divergent invocations (scale-16: an MCNK's count run counted more
// placements of a model than its write run wrote).
fn sink_kind(model: u32) -> u32 {
    var found = PLACE_MCNK_MODELS;
    for (var k = 0u; k < PLACE_MCNK_MODELS; k++) {
        found = select(found, k, found == PLACE_MCNK_MODELS && k < sink_kinds && sink_models[k] == model);
    }
    if (found < PLACE_MCNK_MODELS || sink_writing || sink_kinds >= PLACE_MCNK_MODELS) {
        return found;
    }
    for (var k = 0u; k < PLACE_MCNK_MODELS; k++) {
        let here = k == sink_kinds;
        sink_models[k] = select(sink_models[k], model, here);
        sink_counts[k] = select(sink_counts[k], 0u, here);
    }
    sink_kinds += 1u;
    return sink_kinds - 1u;
}

// One more placement of kind `k` (counting).
fn sink_count(k: u32) {
    for (var i = 0u; i < PLACE_MCNK_MODELS; i++) {
        sink_counts[i] += select(0u, 1u, i == k);
    }
}

// The next descriptor slot of kind `k` (writing), advanced.
fn sink_take(k: u32) -> u32 {
    var at = 0u;
    for (var i = 0u; i < PLACE_MCNK_MODELS; i++) {
        let here = i == k;
        at = select(at, sink_next[i], here);
        sink_next[i] += select(0u, 1u, here);
    }
    return at;
}

// Whether record `r` is live and its MCNK within the draw distance and the
// frustum; when it is, the emitter is reset for it (counting).
fn sink_begin(r: u32) -> bool {
    let b = place_bounds[r];
    if (b.patch_index == PLACE_NO_RECORD) {
        return false;
    }
    let e = PatchEntry(b.bounds_min, 0u, b.bounds_max, 0u, 0u, b.patch_index, vec2<u32>(0u));
    if (!grass_entry_visible(e, b.sway_height * place_cull.sway_amplitude, place_cull)) {
        return false;
    }
    sink_writing = false;
    sink_kinds = 0u;
    sink_patch = b.patch_index;
    return true;
}

// After the counting run of record `r`: reserves the MCNK's descriptors and
// entries, writes the entries and appends them to the cull's survivors;
// false when the MCNK places nothing (or finds no room: counted).
fn sink_reserve(r: u32) -> bool {
    var total = 0u;
    for (var k = 0u; k < sink_kinds; k++) {
        total += sink_counts[k];
    }
    if (total == 0u) {
        return false;
    }
    let first = atomicAdd(&place_cull_counts.placements, total);
    let entry = atomicAdd(&place_cull_counts.entries, sink_kinds);
    if (first + total > place_params.capacity || entry + sink_kinds > place_cull_counts.entry_capacity) {
        atomicAdd(&place_cull_counts.overflow, 1u);
        return false;
    }
    atomicAdd(&place_cull_counts.mcnks, 1u);
    let b = place_bounds[r];
    var next = first;
    let survivors_at = PLACE_STATE_ARGS + PLACE_ARGS_WORDS * place_cull.model_count;
    for (var k = 0u; k < sink_kinds; k++) {
        let model = sink_models[k];
        sink_next[k] = next;
        sink_end[k] = next + sink_counts[k];
        place_entries[entry + k] = PatchEntry(b.bounds_min, next, b.bounds_max, sink_counts[k], model, b.patch_index, vec2<u32>(0u));
        next += sink_counts[k];
        atomicAdd(&place_cull_counts.per_model[model], sink_counts[k]);
        let s = atomicAdd(&place_state[PLACE_STATE_SURVIVORS], 1u);
        atomicStore(&place_state[survivors_at + s], entry + k);
        if (s < place_cull.max_groups) {
            atomicAdd(&place_dispatch[0], 1u);
        }
    }
    sink_writing = true;
    return true;
}

// After the write run: a kind whose writes did not fill its range exactly
// (the two runs disagreeing: never, counted as an overflow).
fn sink_finish() {
    var wrong = false;
    for (var k = 0u; k < PLACE_MCNK_MODELS; k++) {
        wrong = wrong || (k < sink_kinds && sink_next[k] != sink_end[k]);
    }
    if (wrong) {
        atomicAdd(&place_cull_counts.overflow, 1u);
    }
}
