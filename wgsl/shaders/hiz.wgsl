// Rust mirror: sward_passes::hiz (HiZ: pyramid texture, pipelines, the
// `grass.hiz` pass) and its CPU references `hiz::reduce_level` and
// `hiz::sphere_occluded`; parity tests in `hiz::tests` and
// `grass::gpu_cull::tests::occlusion_*`.
//
// A farthest-depth pyramid (reverse-Z: the farthest depth is the smallest
// value) at half the target's resolution. Level 0 texel (x, y) holds the
// farthest sample of pixels 2x..2x+1 by 2y..2y+1; each further level is a
// mip (half the size, rounded down) and holds the farthest of the 2x2
// texels below it. The last column (row) of a level also takes the column
// (row) an odd size leaves over, so every pixel lies under a texel of every
// level.

@group(0) @binding(0) var hiz_depth: texture_depth_2d;
@group(0) @binding(1) var hiz_depth_ms: texture_depth_multisampled_2d;
@group(0) @binding(2) var hiz_src: texture_2d<f32>;
@group(0) @binding(3) var hiz_dst: texture_storage_2d<r32float, write>;

// The source texels texel `id` of a level of size `dst` covers in a level
// (or target) of size `src`: [first, last], both inclusive.
fn hiz_footprint(id: vec2<u32>, dst: vec2<u32>, src: vec2<u32>) -> vec4<u32> {
    let first = min(id * 2u, src - 1u);
    let last = select(min(id * 2u + 1u, src - 1u), src - 1u, id == dst - 1u);
    return vec4<u32>(first, last);
}

@compute @workgroup_size(8, 8)
fn hiz_from_depth(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(hiz_dst);
    if (id.x >= size.x || id.y >= size.y) {
        return;
    }
    let f = hiz_footprint(id.xy, size, textureDimensions(hiz_depth));
    var far = 1.0;
    for (var y = f.y; y <= f.w; y++) {
        for (var x = f.x; x <= f.z; x++) {
            far = min(far, textureLoad(hiz_depth, vec2<u32>(x, y), 0));
        }
    }
    textureStore(hiz_dst, vec2<i32>(id.xy), vec4<f32>(far, 0.0, 0.0, 0.0));
}

// The farthest of the four samples of pixel `p` of the 4x MSAA depth.
fn hiz_ms4(p: vec2<u32>) -> f32 {
    return min(
        min(textureLoad(hiz_depth_ms, p, 0), textureLoad(hiz_depth_ms, p, 1)),
        min(textureLoad(hiz_depth_ms, p, 2), textureLoad(hiz_depth_ms, p, 3)),
    );
}

@compute @workgroup_size(8, 8)
fn hiz_from_depth_ms(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(hiz_dst);
    if (id.x >= size.x || id.y >= size.y) {
        return;
    }
    let f = hiz_footprint(id.xy, size, textureDimensions(hiz_depth_ms));
    let samples = i32(textureNumSamples(hiz_depth_ms));
    var far = 1.0;
    if (samples == 4 && f.z == f.x + 1u && f.w == f.y + 1u) {
        // Every texel of an even-sized target: 2x2 pixels of 4 samples,
        // unrolled.
        far = min(
            min(hiz_ms4(f.xy), hiz_ms4(vec2<u32>(f.z, f.y))),
            min(hiz_ms4(vec2<u32>(f.x, f.w)), hiz_ms4(f.zw)),
        );
    } else {
        for (var y = f.y; y <= f.w; y++) {
            for (var x = f.x; x <= f.z; x++) {
                for (var s = 0; s < samples; s++) {
                    far = min(far, textureLoad(hiz_depth_ms, vec2<u32>(x, y), s));
                }
            }
        }
    }
    textureStore(hiz_dst, vec2<i32>(id.xy), vec4<f32>(far, 0.0, 0.0, 0.0));
}

@compute @workgroup_size(8, 8)
fn hiz_reduce(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(hiz_dst);
    if (id.x >= size.x || id.y >= size.y) {
        return;
    }
    let f = hiz_footprint(id.xy, size, textureDimensions(hiz_src));
    var far = 1.0;
    if (f.z == f.x + 1u && f.w == f.y + 1u) {
        // 2x2 texels, unrolled (all but the leftover column and row of an
        // odd-sized level).
        far = min(
            min(textureLoad(hiz_src, f.xy, 0).r, textureLoad(hiz_src, vec2<u32>(f.z, f.y), 0).r),
            min(textureLoad(hiz_src, vec2<u32>(f.x, f.w), 0).r, textureLoad(hiz_src, f.zw, 0).r),
        );
    } else {
        for (var y = f.y; y <= f.w; y++) {
            for (var x = f.x; x <= f.z; x++) {
                far = min(far, textureLoad(hiz_src, vec2<u32>(x, y), 0).r);
            }
        }
    }
    textureStore(hiz_dst, vec2<i32>(id.xy), vec4<f32>(far, 0.0, 0.0, 0.0));
}
