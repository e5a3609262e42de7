// Rust mirror: sward_scenes::placement::client_rng (ClientRng::new, next_u32,
// next_signed, signed_unit, NOISE) and sward_scenes::placement::client::mcnk_seed;
// CPU reference: that module (checked against typhoon's generator); parity:
// passes/src/grass/placement_gpu/tests.rs (the probe's draws for many seeds,
// the constant table against NOISE, and every client placement test).
//
// The client's random generator (`CRandom::uint32` over a `CRndSeed`), as the
// 1.12 and 3.3.5 detail-doodad routines draw from it, in u32 arithmetic only.
// State: an accumulator (the seed at first) and four byte lanes seeded
// 4 * (seed % 61), 4 * (seed % 59), 4 * (seed % 53), 4 * (seed % 47). A draw
// steps each lane down by 28, 24, 12, 4, wrapping by its period (244, 236,
// 212, 188), reads the little-endian word of the 256-byte noise table at each
// lane's byte offset, and adds n0 ^ rotl(n1, 3) ^ rotl(n2, 2) ^ rotl(n3, 1) to
// the accumulator, which it returns. See docs/techniques/client-placement.md.

// The noise table as 64 little-endian words (the CPU's NOISE bytes). A
// private variable, not a `const`: naga's SPIR-V indexes a constant array
// with a run-time index by copying the whole array into a local variable at
// every access, and lavapipe's LLVM then took 100 to 150 s to compile the
// 1.12 routine (about 1 s this way).
var<private> CLIENT_NOISE: array<u32, 64> = array<u32, 64>(
    0x9927148eu, 0x08c7aafdu, 0x1f3ee6d5u, 0xda55bbf6u,
    0x6a4aa075u, 0xff97bde8u, 0x9fbc9bdeu, 0x46a18a81u,
    0x63e30b6eu, 0x5d6c7a76u, 0xca69d388u, 0x25b947c3u,
    0x3fa2ab83u, 0xba7c41a6u, 0x0195ace5u, 0xc109cf7eu,
    0x717062d9u, 0x0205db8du, 0x54ef8724u, 0x3037d4c6u,
    0x7bcb1bd0u, 0xecd8e4b8u, 0xdcadce49u, 0xc494a913u,
    0x0dae398fu, 0x0edd5218u, 0x85f5fa78u, 0x6dafd258u,
    0x3b53b2a4u, 0xbe50a551u, 0x11f42dfcu, 0xf1169848u,
    0x663ddf86u, 0x2f2e445eu, 0x176b0736u, 0xb64c298bu,
    0xe75f89e2u, 0xe121a7cdu, 0xed65c94du, 0x239ceefeu,
    0x04b77d33u, 0x402a9a9eu, 0xf35b10b3u, 0x921c7782u,
    0x571e4e20u, 0x8c067222u, 0xfb732c67u, 0xbf0ac259u,
    0x0cf95c79u, 0x68121a28u, 0x42193474u, 0xf884c0b1u,
    0x9d15f038u, 0x6f3af260u, 0x91eb90b4u, 0x61357f1du,
    0x5603325au, 0x932bc5a3u, 0x434b0f80u, 0x3ce0a8f7u,
    0x2664d196u, 0x4fcc45d7u, 0xb5e9b0c8u, 0xea31d600u,
);

struct ClientRng {
    acc: u32,
    // Lane byte offsets, lane k in bits 8k..8k+8.
    lanes: u32,
}

// The generator seed of a global MCNK (x: column, y: row): (y << 16) | x.
fn client_mcnk_seed(chunk: vec2<u32>) -> u32 {
    return (chunk.y << 16u) | (chunk.x & 0xffffu);
}

fn client_rng_new(seed: u32) -> ClientRng {
    return ClientRng(
        seed,
        (4u * (seed % 61u)) | ((seed % 59u) << 10u) | ((seed % 53u) << 18u) | ((seed % 47u) << 26u),
    );
}

// The little-endian word at byte offset i of the table (i < 256; wraps like
// the CPU's byte mask, which lane offsets below 252 never need).
fn client_noise_word(i: u32) -> u32 {
    let w = i >> 2u;
    let shift = (i & 3u) * 8u;
    let lo = CLIENT_NOISE[w & 63u];
    if (shift == 0u) {
        return lo;
    }
    return (lo >> shift) | (CLIENT_NOISE[(w + 1u) & 63u] << (32u - shift));
}

fn client_rotl(x: u32, r: u32) -> u32 {
    if (r == 0u) {
        return x;
    }
    return (x << r) | (x >> (32u - r));
}

// One lane's step: returns the new byte offset.
fn client_lane_step(b: u32, step: u32, period: u32) -> u32 {
    if (b >= step) {
        return b - step;
    }
    return b + period - step;
}

// The next 32-bit value (`CRandom::uint32`).
fn client_rng_next(rng: ptr<function, ClientRng>) -> u32 {
    let lanes = (*rng).lanes;
    let i0 = client_lane_step(lanes & 0xffu, 0x1cu, 0xf4u);
    let i1 = client_lane_step((lanes >> 8u) & 0xffu, 0x18u, 0xecu);
    let i2 = client_lane_step((lanes >> 16u) & 0xffu, 0x0cu, 0xd4u);
    let i3 = client_lane_step((lanes >> 24u) & 0xffu, 0x04u, 0xbcu);
    (*rng).lanes = i0 | (i1 << 8u) | (i2 << 16u) | (i3 << 24u);
    let mix = client_noise_word(i0)
        ^ client_rotl(client_noise_word(i1), 3u)
        ^ client_rotl(client_noise_word(i2), 2u)
        ^ client_rotl(client_noise_word(i3), 1u);
    (*rng).acc = (*rng).acc + mix;
    return (*rng).acc;
}

// Advances the generator by `n` draws.
fn client_rng_skip(rng: ptr<function, ClientRng>, n: u32) {
    for (var k = 0u; k < n; k++) {
        client_rng_next(rng);
    }
}

// The routine's float of one draw: the low 23 bits as the mantissa of f in
// [1, 2); sign bit set: 2 - f (in (0, 1]), clear: f - 2 (in [-1, 0)). Both
// subtractions are exact.
fn client_signed_unit(draw: u32) -> f32 {
    let f = bitcast<f32>((draw & 0x007fffffu) | 0x3f800000u);
    if ((draw & 0x80000000u) != 0u) {
        return 2.0 - f;
    }
    return f - 2.0;
}

// The next draw as the routine's signed float.
fn client_rng_signed(rng: ptr<function, ClientRng>) -> f32 {
    return client_signed_unit(client_rng_next(rng));
}
