// Rust mirror: the probe test in sward_passes::grass::placement_gpu::tests
// (ProbeIn / ProbeOut there); CPU references: sward_scenes::placement::client_rng,
// sward_scenes::rng, sward_passes::grass::placement_gpu::cpu (mul_hi,
// coverage_unit, place_axis) and Mcnk::local_to_world.
//
// Evaluates the placement generator's number helpers on given inputs: the
// client generator's draws (also after a long skip), sward's Rng32 stream and
// hashes, the 64-bit product's high word, coverage / 255 and the world axis.

//! import client_rng, placement_rng, placement_types

struct ProbeIn {
    seed: u32,
    a: u32,
    b: u32,
    cover: u32,
    p0: f32,
    cell: u32,
    t: f32,
    _pad: u32,
}

struct ProbeOut {
    // The client generator's first four draws from `seed`.
    client: vec4<u32>,
    // Its draw 1001 (after skipping 1000).
    client_far: u32,
    // Draw 1002 as the routine's signed float.
    client_signed: f32,
    // Rng32(seed): outputs 0 and 1, then next_f32, range_f32(-pi, pi) and below(b).
    rng: vec2<u32>,
    rng_f: f32,
    rng_range: f32,
    rng_below: u32,
    // hash_words5(seed, a, b, cover, 7).
    hash5: u32,
    // mul_hi(a, b).
    mul_hi: u32,
    // coverage_unit(cover & 255).
    coverage: f32,
    // place_axis(p0, cell, t).
    axis: f32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> probe_fence: vec4<u32>;
@group(0) @binding(1) var<storage, read> probe_in: array<ProbeIn>;
@group(0) @binding(2) var<storage, read_write> probe_out: array<ProbeOut>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&probe_out)) {
        return;
    }
    float_fence_set(probe_fence.x);
    let p = probe_in[i];
    var out: ProbeOut;
    var c = client_rng_new(p.seed);
    out.client = vec4<u32>(client_rng_next(&c), client_rng_next(&c), client_rng_next(&c), client_rng_next(&c));
    client_rng_skip(&c, 996u);
    out.client_far = client_rng_next(&c);
    out.client_signed = client_rng_signed(&c);
    var r = rng32_new(p.seed);
    let r0 = rng32_next_u32(&r);
    let r1 = rng32_next_u32(&r);
    out.rng = vec2<u32>(r0, r1);
    out.rng_f = rng32_next_f32(&r);
    out.rng_range = rng32_range_f32(&r, -3.1415927f, 3.1415927f);
    out.rng_below = rng32_below(&r, p.b);
    out.hash5 = hash_words5(p.seed, p.a, p.b, p.cover, 7u);
    out.mul_hi = mul_hi(p.a, p.b);
    out.coverage = coverage_unit(p.cover & 255u);
    out.axis = place_axis(p.p0, p.cell, p.t);
    probe_out[i] = out;
}
