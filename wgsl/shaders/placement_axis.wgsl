// Rust mirror: sward_passes::grass::placement_gpu::cpu::place_axis (the f64
// expression itself); CPU reference: sward_scenes Mcnk::local_to_world
// rounded to f32, as the policies store positions; parity:
// passes/src/grass/placement_gpu/tests.rs (probe_matches_the_cpu_helpers,
// bit-exact over ties included, and every placement test).
//
// World x or y of an in-cell offset exactly as the CPU rounds it:
// f32(p0 - (cell + t) * UNIT) evaluated in f64, that is
// fl32(fl64(p0 - fl64((cell + t) * UNIT64))) with UNIT64 the f64 cell size.
// WGSL has no f64, so the two f64 roundings and the final f32 one are done
// on 96-bit integers (three u32 limbs, x the lowest) at a fixed scale of
// 2^-74 world units: (cell + t) is K * 2^-24 for an integer K (every
// policy's offset t is a multiple of 2^-24), UNIT64 is M_U * 2^-50, and an
// MCNK origin p0 is an f32, an integer multiple of 2^-74 when |p0| >= 2^-51.
// Rounding is to nearest, ties to even, as the CPU's. The result is the
// CPU's to the bit, ties included.

//! import placement_rng

// UNIT64 = 25/6 rounded to f64: mantissa M_U (53 bits) split into limbs.
const AXIS_UNIT_HI: u32 = 0x0010aaaau;
const AXIS_UNIT_LO: u32 = 0xaaaaaaabu;

fn wide_clz(x: vec3<u32>) -> u32 {
    if (x.z != 0u) {
        return countLeadingZeros(x.z);
    }
    if (x.y != 0u) {
        return 32u + countLeadingZeros(x.y);
    }
    return 64u + countLeadingZeros(x.x);
}

fn wide_shl(x: vec3<u32>, d: u32) -> vec3<u32> {
    var v = x;
    var s = d;
    if (s >= 64u) {
        v = vec3<u32>(0u, 0u, v.x);
        s -= 64u;
    } else if (s >= 32u) {
        v = vec3<u32>(0u, v.x, v.y);
        s -= 32u;
    }
    if (s == 0u) {
        return v;
    }
    return vec3<u32>(v.x << s, (v.y << s) | (v.x >> (32u - s)), (v.z << s) | (v.y >> (32u - s)));
}

fn wide_shr(x: vec3<u32>, d: u32) -> vec3<u32> {
    var v = x;
    var s = d;
    if (s >= 64u) {
        v = vec3<u32>(v.z, 0u, 0u);
        s -= 64u;
    } else if (s >= 32u) {
        v = vec3<u32>(v.y, v.z, 0u);
        s -= 32u;
    }
    if (s == 0u) {
        return v;
    }
    return vec3<u32>((v.x >> s) | (v.y << (32u - s)), (v.y >> s) | (v.z << (32u - s)), v.z >> s);
}

fn wide_add(a: vec3<u32>, b: vec3<u32>) -> vec3<u32> {
    let x = a.x + b.x;
    let c0 = select(0u, 1u, x < a.x);
    let y1 = a.y + b.y;
    let c1 = select(0u, 1u, y1 < a.y);
    let y = y1 + c0;
    let c2 = select(0u, 1u, y < y1);
    return vec3<u32>(x, y, a.z + b.z + c1 + c2);
}

// a - b for a >= b.
fn wide_sub(a: vec3<u32>, b: vec3<u32>) -> vec3<u32> {
    let x = a.x - b.x;
    let b0 = select(0u, 1u, a.x < b.x);
    let y1 = a.y - b.y;
    let b1 = select(0u, 1u, a.y < b.y);
    let y = y1 - b0;
    let b2 = select(0u, 1u, y1 < b0);
    return vec3<u32>(x, y, a.z - b.z - b1 - b2);
}

fn wide_lt(a: vec3<u32>, b: vec3<u32>) -> bool {
    if (a.z != b.z) {
        return a.z < b.z;
    }
    if (a.y != b.y) {
        return a.y < b.y;
    }
    return a.x < b.x;
}

// x rounded to `keep` significant bits, to nearest, ties to even.
fn wide_round(x: vec3<u32>, keep: u32) -> vec3<u32> {
    let len = 96u - wide_clz(x);
    if (len <= keep) {
        return x;
    }
    let drop = len - keep;
    let kept = wide_shl(wide_shr(x, drop), drop);
    let rest = wide_sub(x, kept);
    let half = wide_shl(vec3<u32>(1u, 0u, 0u), drop - 1u);
    let odd = (wide_shr(x, drop).x & 1u) != 0u;
    if (wide_lt(half, rest) || (all(rest == half) && odd)) {
        return wide_add(kept, wide_shl(vec3<u32>(1u, 0u, 0u), drop));
    }
    return kept;
}

// The f32 of magnitude m * 2^-74 (m already rounded to 24 bits), signed.
fn wide_to_f32(m: vec3<u32>, negative: bool) -> f32 {
    if (all(m == vec3<u32>(0u))) {
        return 0.0;
    }
    let len = 96u - wide_clz(m);
    var mant: u32;
    if (len >= 24u) {
        mant = wide_shr(m, len - 24u).x;
    } else {
        mant = m.x << (24u - len);
    }
    // Value 1.f * 2^(len - 1 - 74): biased exponent len - 75 + 127.
    let bits = ((len + 52u) << 23u) | (mant & 0x007fffffu) | select(0u, 0x80000000u, negative);
    return bitcast<f32>(bits);
}

// f32(p0 - (cell + t) * UNIT64) computed in f64, for t in [0, 1] a multiple
// of 2^-24 and an MCNK origin p0 (|p0| < 2^22 and either 0 or at least
// 2^-51, as every MCNK origin is).
fn place_axis(p0: f32, cell: u32, t: f32) -> f32 {
    let k = cell * 16777216u + u32(t * 16777216.0);
    // The product K * M_U (scale 2^-74), rounded as f64 rounds it.
    let lo = vec3<u32>(k * AXIS_UNIT_LO, mul_hi(k, AXIS_UNIT_LO), 0u);
    let hi = vec3<u32>(0u, k * AXIS_UNIT_HI, mul_hi(k, AXIS_UNIT_HI));
    let product = wide_round(wide_add(lo, hi), 53u);
    // p0 at scale 2^-74.
    let bits = bitcast<u32>(p0);
    let exponent = (bits >> 23u) & 0xffu;
    var origin = vec3<u32>(0u);
    if ((bits & 0x7fffffffu) != 0u) {
        if (exponent < 76u) {
            // 0 < |p0| < 2^-51: an origin no world has (f32 steps).
            return p0 - (f32(cell) + t) * 4.1666665;
        }
        origin = wide_shl(vec3<u32>((bits & 0x007fffffu) | 0x00800000u, 0u, 0u), exponent - 76u);
    }
    var diff: vec3<u32>;
    var negative: bool;
    if ((bits & 0x80000000u) != 0u) {
        diff = wide_add(origin, product);
        negative = true;
    } else if (wide_lt(origin, product)) {
        diff = wide_sub(product, origin);
        negative = true;
    } else {
        diff = wide_sub(origin, product);
        negative = false;
    }
    return wide_to_f32(wide_round(wide_round(diff, 53u), 24u), negative);
}
