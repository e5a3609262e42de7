// Rust mirror: sward_passes::hiz (HiZ: pyramid texture, pipelines, the
// `grass.hiz` pass) and its CPU references `hiz::reduce_level` and
// `hiz::sphere_occluded`; parity tests in `hiz::tests` and
// `grass::gpu_cull::tests::occlusion_*`.
//
// A farthest-depth pyramid (reverse-Z: the farthest depth is the smallest
// value). Level 0 has the depth target's size and holds, per pixel, the
// farthest of its samples; each further level is a mip (half the size,
// rounded down) and holds per texel the farthest of the 3x3 texels of the
// level below starting at twice its coordinates (clamped): a superset of
// the 2x2 it covers that also takes in the column or row an odd size leaves.

@group(0) @binding(0) var hiz_depth: texture_depth_2d;
@group(0) @binding(1) var hiz_depth_ms: texture_depth_multisampled_2d;
@group(0) @binding(2) var hiz_src: texture_2d<f32>;
@group(0) @binding(3) var hiz_dst: texture_storage_2d<r32float, write>;

@compute @workgroup_size(8, 8)
fn hiz_from_depth(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(hiz_dst);
    if (id.x >= size.x || id.y >= size.y) {
        return;
    }
    let d = textureLoad(hiz_depth, vec2<i32>(id.xy), 0);
    textureStore(hiz_dst, vec2<i32>(id.xy), vec4<f32>(d, 0.0, 0.0, 0.0));
}

@compute @workgroup_size(8, 8)
fn hiz_from_depth_ms(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(hiz_dst);
    if (id.x >= size.x || id.y >= size.y) {
        return;
    }
    var far = 1.0;
    let samples = i32(textureNumSamples(hiz_depth_ms));
    for (var s = 0; s < samples; s++) {
        far = min(far, textureLoad(hiz_depth_ms, vec2<i32>(id.xy), s));
    }
    textureStore(hiz_dst, vec2<i32>(id.xy), vec4<f32>(far, 0.0, 0.0, 0.0));
}

@compute @workgroup_size(8, 8)
fn hiz_reduce(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(hiz_dst);
    if (id.x >= size.x || id.y >= size.y) {
        return;
    }
    let src = vec2<i32>(textureDimensions(hiz_src));
    var far = 1.0;
    for (var j = 0; j < 3; j++) {
        for (var i = 0; i < 3; i++) {
            let p = min(vec2<i32>(id.xy) * 2 + vec2<i32>(i, j), src - 1);
            far = min(far, textureLoad(hiz_src, p, 0).r);
        }
    }
    textureStore(hiz_dst, vec2<i32>(id.xy), vec4<f32>(far, 0.0, 0.0, 0.0));
}
