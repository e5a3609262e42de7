// Rust mirror: sward_passes::grass::gpu (GrassFrame, GrassModelUniform);
// CPU references: grass::instance::instance_matrix, grass::wind, grass::fade,
// grass::material.
//
// The surface every instanced grass tier shares: the per-frame and per-model
// bindings (groups 0 and 1), the vertex stage body `grass_vertex` (given the
// instance's world matrix and root origin) and the fragment entry points,
// chosen per material pipeline:
//   fs_coverage  alpha key / opaque under MSAA with alpha-to-coverage,
//   fs_discard   alpha key / opaque without it (hard discard, dithered fade),
//   fs_blend     blend / add / modulate materials (fade multiplies alpha).
// `grass_vertex` fades by the root's distance (collapsing fully faded clumps
// to a point), adds root-anchored wind in world space and passes what the
// fragment stage lights and fogs like terrain. A tier's shader imports this
// and only decides where the world matrix comes from.

//! import wind, fade, alpha_key, fog, lighting

struct GrassFrame {
    view_proj: mat4x4<f32>,
    // xyz eye position; w unused
    eye: vec4<f32>,
    wind: Wind,
    // fade start, fade end (draw distance), smooth fade (1/0), wind on (1/0)
    fade: vec4<f32>,
    // xyz towards the sun; w unused
    sun_dir: vec4<f32>,
    // rgb fog colour (linear); w unused
    fog_color: vec4<f32>,
    // fog start, fog end; zw unused
    fog_range: vec4<f32>,
}

// Model flags (GrassModelUniform.flags).
const GRASS_UNLIT: u32 = 1u;
const GRASS_UNFOGGED: u32 = 2u;

struct GrassModelUniform {
    // Lowest model-space z (the root).
    z_min: f32,
    // Model height span (what wind amplitude scales by).
    height: f32,
    // Alpha cutoff; below -1 keeps every texel (opaque materials).
    alpha_cutoff: f32,
    // GRASS_UNLIT | GRASS_UNFOGGED
    flags: u32,
}

@group(0) @binding(0) var<uniform> frame: GrassFrame;
@group(1) @binding(0) var<uniform> model: GrassModelUniform;
@group(1) @binding(1) var model_texture: texture_2d<f32>;
@group(1) @binding(2) var model_sampler: sampler;

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) fade: f32,
    @location(3) eye_distance: f32,
}

// The vertex stage of every grass tier: model-space `position`/`normal`/`uv`
// of a vertex of an instance whose world matrix is `m` and whose root (the
// point fade and wind phase are measured from) is `origin`.
fn grass_vertex(m: mat4x4<f32>, origin: vec3<f32>, position: vec3<f32>, normal: vec3<f32>, uv: vec2<f32>) -> VertexOut {
    var out: VertexOut;
    let fade = distance_fade(distance(frame.eye.xyz, origin), frame.fade.x, frame.fade.y, frame.fade.z > 0.5);
    if (fade <= 0.0) {
        // Every vertex of the clump on one point outside the clip volume.
        out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
        return out;
    }
    var world = (m * vec4<f32>(position, 1.0)).xyz;
    let sway = wind_offset(frame.wind, origin.xy, position.z, model.z_min, model.height);
    world = vec3<f32>(world.xy + select(vec2<f32>(0.0), sway, frame.fade.w > 0.5), world.z);
    out.clip = frame.view_proj * vec4<f32>(world, 1.0);
    out.uv = uv;
    out.normal = (m * vec4<f32>(normal, 0.0)).xyz;
    out.fade = fade;
    out.eye_distance = distance(frame.eye.xyz, world);
    return out;
}

// Lit and fogged colour of a texel (two-sided: the normal faces the viewer).
fn shade(in: VertexOut, texel: vec3<f32>, front: bool) -> vec3<f32> {
    let n = select(-in.normal, in.normal, front);
    let lit = select(texel, texel * sun_lighting(n, frame.sun_dir.xyz), (model.flags & GRASS_UNLIT) == 0u);
    let fogged = apply_fog(lit, frame.fog_color.rgb, in.eye_distance, frame.fog_range.x, frame.fog_range.y);
    return select(lit, fogged, (model.flags & GRASS_UNFOGGED) == 0u);
}

// Texture alpha scaled by the mip level it is sampled at (keeps distant
// cut-outs from thinning out).
fn keyed_alpha(alpha: f32, uv: vec2<f32>) -> f32 {
    let texels = uv * vec2<f32>(textureDimensions(model_texture));
    return alpha_mip_scaled(alpha, alpha_mip_level(dpdx(texels), dpdy(texels)));
}

@fragment
fn fs_coverage(in: VertexOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let texel = textureSample(model_texture, model_sampler, in.uv);
    let alpha = keyed_alpha(texel.a, in.uv);
    let coverage = alpha_key_coverage(alpha, model.alpha_cutoff, fwidth(alpha));
    return vec4<f32>(shade(in, texel.rgb, front), coverage * in.fade);
}

@fragment
fn fs_discard(in: VertexOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let texel = textureSample(model_texture, model_sampler, in.uv);
    if (keyed_alpha(texel.a, in.uv) < model.alpha_cutoff || in.fade <= dither_threshold(vec2<u32>(in.clip.xy))) {
        discard;
    }
    return vec4<f32>(shade(in, texel.rgb, front), 1.0);
}

@fragment
fn fs_blend(in: VertexOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let texel = textureSample(model_texture, model_sampler, in.uv);
    return vec4<f32>(shade(in, texel.rgb, front), texel.a * in.fade);
}
