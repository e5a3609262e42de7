// Rust mirror: sward_passes::hiz::sphere_occluded (CPU reference); parity
// test `grass::gpu_cull::tests::occlusion_keeps_the_cpu_reference_clumps`.
//
// Occlusion test of a bounding sphere against a farthest-depth pyramid
// (`hiz.wgsl`, reverse-Z, half resolution). The sphere's box is projected;
// its nearest depth is compared with the farthest depth under its screen
// rectangle, read at the level where the rectangle spans at most 2x2
// texels. Anything that reaches the eye plane counts as visible.

// `size`: the depth target in pixels (pyramid level 0 is half of it);
// `levels`: mip count.
fn hiz_sphere_occluded(
    pyramid: texture_2d<f32>,
    view_proj: mat4x4<f32>,
    size: vec2<f32>,
    levels: u32,
    center: vec3<f32>,
    radius: f32,
) -> bool {
    return hiz_box_occluded(pyramid, view_proj, size, levels, center - vec3<f32>(radius), center + vec3<f32>(radius));
}

// The test's inputs to its verdict: (the sphere's nearest depth, the
// farthest occluder depth under it, the level read, 1 = on screen in front
// of the eye plane; 0 = visible whatever the pyramid holds).
fn hiz_sphere_test(
    pyramid: texture_2d<f32>,
    view_proj: mat4x4<f32>,
    size: vec2<f32>,
    levels: u32,
    center: vec3<f32>,
    radius: f32,
) -> vec4<f32> {
    return hiz_box_test(pyramid, view_proj, size, levels, center - vec3<f32>(radius), center + vec3<f32>(radius));
}

// Whether an axis-aligned box is hidden (terrain MCNK bounds; a sphere's
// cube for `hiz_sphere_occluded`).
fn hiz_box_occluded(
    pyramid: texture_2d<f32>,
    view_proj: mat4x4<f32>,
    size: vec2<f32>,
    levels: u32,
    bmin: vec3<f32>,
    bmax: vec3<f32>,
) -> bool {
    let t = hiz_box_test(pyramid, view_proj, size, levels, bmin, bmax);
    return t.w > 0.5 && t.x < t.y;
}

// `hiz_sphere_test` for an axis-aligned box (the sphere's is its cube).
fn hiz_box_test(
    pyramid: texture_2d<f32>,
    view_proj: mat4x4<f32>,
    size: vec2<f32>,
    levels: u32,
    bmin: vec3<f32>,
    bmax: vec3<f32>,
) -> vec4<f32> {
    var lo = vec2<f32>(1.0e9, 1.0e9);
    var hi = vec2<f32>(-1.0e9, -1.0e9);
    var nearest = 0.0;
    for (var i = 0u; i < 8u; i++) {
        let corner = vec3<f32>(
            select(bmin.x, bmax.x, (i & 1u) != 0u),
            select(bmin.y, bmax.y, (i & 2u) != 0u),
            select(bmin.z, bmax.z, (i & 4u) != 0u),
        );
        let clip = view_proj * vec4<f32>(corner, 1.0);
        if (clip.w <= 1.0e-3) {
            return vec4<f32>(0.0);
        }
        let ndc = clip.xyz / clip.w;
        lo = min(lo, ndc.xy);
        hi = max(hi, ndc.xy);
        nearest = max(nearest, ndc.z);
    }
    // Pixel rectangle (texture y runs down).
    let p0 = clamp(vec2<f32>(lo.x * 0.5 + 0.5, 0.5 - hi.y * 0.5) * size, vec2<f32>(0.0), size - 1.0);
    let p1 = clamp(vec2<f32>(hi.x * 0.5 + 0.5, 0.5 - lo.y * 0.5) * size, vec2<f32>(0.0), size - 1.0);
    // The level where the rectangle spans at most 2x2 texels (a level L
    // texel covers 2^(L+1) pixels): ceil(log2(span)) - 1, on integers so
    // every ALU picks the same one.
    let span = u32(ceil(max(p1.x - p0.x, max(p1.y - p0.y, 1.0))));
    let bits = select(0u, 32u - countLeadingZeros(span - 1u), span > 1u);
    let level = min(max(bits, 1u) - 1u, levels - 1u);
    // The level goes to textureLoad as a loop counter, the same in every
    // invocation: lavapipe (Mesa 22.3) reads a wrong level when invocations
    // of one SIMD batch pass different levels (a probe of this function
    // disagreed with its CPU mirror on ~1% of spheres until this loop).
    // Bounded by the pyramid's own level count too, so the loop bound is
    // not a uniform value alone (see sward_wgsl::uniform_branches).
    let loop_levels = min(levels, textureNumLevels(pyramid));
    var far = 1.0;
    for (var l = 0u; l < loop_levels; l++) {
        if (l == level) {
            let dims = vec2<i32>(textureDimensions(pyramid, l));
            let t0 = min(vec2<i32>(floor(p0 / f32(2u << l))), dims - 1);
            let t1 = min(vec2<i32>(floor(p1 / f32(2u << l))), dims - 1);
            for (var y = t0.y; y <= t1.y; y++) {
                for (var x = t0.x; x <= t1.x; x++) {
                    far = min(far, textureLoad(pyramid, vec2<i32>(x, y), i32(l)).r);
                }
            }
        }
    }
    return vec4<f32>(nearest, far, f32(level), 1.0);
}
