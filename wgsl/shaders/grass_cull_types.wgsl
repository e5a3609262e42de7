// Rust mirror: sward_passes::grass::gpu_cull::{descriptor::GrassDescriptor,
// patches::{PatchEntry, GrassPatchGpu}, cull::{CullModel, GrassCull}} (layouts checked by
// tests); CPU references: descriptor::unpack, cull::entry_visible.
//
// What grass `gpu-cull` shares between its cull pass and its vertex stage:
// the 16-byte per-placement descriptor and its decoding, the (patch, model)
// entries with their conservative bounds, the per-model draw constants, the
// per-frame cull uniforms and the patch visibility test.

//! import frustum, hash, draw_indexed_args

// One placement: local xy in its patch (unorm16 pair), yaw in turns and
// scale / GRASS_SCALE_MAX (unorm16 pair), seed, patch index.
struct GrassDescriptor {
    local: u32,
    yaw_scale: u32,
    seed: u32,
    patch_index: u32,
}

const GRASS_SCALE_MAX: f32 = 8.0;
const GRASS_TAU: f32 = 6.2831855;

// A patch as the vertex stage sees it: the frame its descriptors' local
// coordinates are relative to, in world units and in atlas grid cells.
struct GrassPatch {
    // min_x, min_y, extent (world units), 0
    world: vec4<f32>,
    // grid column and row (cells from the atlas index window's origin
    // corner) of the patch corner at local (0, 0), cells per patch side, 0
    grid: vec4<f32>,
}

// World XY of `d`'s root in its patch `p`.
fn grass_descriptor_xy(d: GrassDescriptor, p: GrassPatch) -> vec2<f32> {
    let local = unpack2x16unorm(d.local);
    return p.world.xy + local * p.world.z;
}

// The same root as a window-relative atlas grid position (x along the
// columns = world -Y, y along the rows = world -X), for `atlas_slot_at`.
fn grass_descriptor_cell(d: GrassDescriptor, p: GrassPatch) -> vec2<f32> {
    let local = unpack2x16unorm(d.local);
    return vec2<f32>(p.grid.x - local.y * p.grid.z, p.grid.y - local.x * p.grid.z);
}

// Yaw of `d` in radians, in [0, 2pi].
fn grass_descriptor_yaw(d: GrassDescriptor) -> f32 {
    return unpack2x16unorm(d.yaw_scale).x * GRASS_TAU;
}

// Uniform scale of `d`.
fn grass_descriptor_scale(d: GrassDescriptor) -> f32 {
    return unpack2x16unorm(d.yaw_scale).y * GRASS_SCALE_MAX;
}

// One (patch, model) draw: descriptors first .. first + count, bounds before
// wind sway.
struct PatchEntry {
    bounds_min: vec3<f32>,
    first: u32,
    bounds_max: vec3<f32>,
    count: u32,
    model: u32,
    patch_index: u32,
    _pad: vec2<u32>,
}

// Draw constants of one model: its index range in the shared model buffers,
// where its region of the indirect args starts (patch culling), its wind
// height, its bounding radius at scale 1 and where its region of the visible
// list starts (per-instance culling).
struct CullModel {
    index_count: u32,
    first_index: u32,
    base_vertex: i32,
    args_base: u32,
    sway_height: f32,
    radius: f32,
    visible_base: u32,
    _pad: u32,
}

// Per-frame cull uniforms.
struct GrassCull {
    frustum: Frustum,
    // xyz eye, w grass draw distance
    eye: vec4<f32>,
    // wind amplitude (fraction of model height; 0 with wind off)
    sway_amplitude: f32,
    entry_count: u32,
    model_count: u32,
    // 1: the plain multi-draw consumes the args, so `reset` zeroes them too
    zero_args: u32,
    // per-instance culling: most workgroups one indirect dispatch may have
    max_groups: u32,
    // distance LOD: density 1 up to lod_start, falling linearly to lod_floor
    // at lod_end (world units); off when lod_end <= lod_start
    lod_start: f32,
    lod_end: f32,
    lod_floor: f32,
    // occlusion: the view-projection the Hi-Z pyramid was rendered with
    view_proj: mat4x4<f32>,
    // occlusion: depth target size in pixels (x, y), pyramid mip count (z),
    // 1 = on (w; `cull_instances` reads it as its pipeline constant)
    hiz: vec4<f32>,
}

// Whether entry `e`, its bounds grown by `sway` world units on every side
// (as the per-clump test grows each clump's sphere, so the box holds every
// sphere: the drawn set is the per-clump test's, whatever the patch size),
// is within the draw distance of the eye (box distance) and touches the frustum.
fn grass_entry_visible(e: PatchEntry, sway: f32, c: GrassCull) -> bool {
    let grow = vec3<f32>(sway);
    let bmin = e.bounds_min - grow;
    let bmax = e.bounds_max + grow;
    let eye = c.eye.xyz;
    let d = max(max(bmin - eye, eye - bmax), vec3<f32>(0.0));
    if (dot(d, d) > c.eye.w * c.eye.w) {
        return false;
    }
    return frustum_aabb_visible(c.frustum, bmin, bmax);
}

// Whether one clump is drawn (the per-clump test legacy-cpu runs on the CPU):
// its root within the draw distance of the eye and its sphere (the model's
// radius times the clump's scale, grown by `sway`) touching the frustum.
fn grass_instance_visible(root: vec3<f32>, radius: f32, sway: f32, c: GrassCull) -> bool {
    if (distance(root, c.eye.xyz) > c.eye.w) {
        return false;
    }
    return frustum_sphere_visible(c.frustum, root, radius + sway);
}

// Salt of the LOD threshold hash (independent of the placement's other hashes).
const GRASS_LOD_SALT: u32 = 0x4c4f4421u;

// Density span over which a clump the LOD is about to drop fades out
// through alpha-to-coverage instead of popping.
const GRASS_LOD_FADE_BAND: f32 = 0.1;

// The LOD density level at distance `d`: 1 + GRASS_LOD_FADE_BAND up to
// lod_start (every clump fully drawn), falling linearly to lod_floor at
// lod_end; a clump is drawn while its threshold is below it.
fn grass_lod_density(d: f32, c: GrassCull) -> f32 {
    let t = clamp((d - c.lod_start) / (c.lod_end - c.lod_start), 0.0, 1.0);
    return mix(1.0 + GRASS_LOD_FADE_BAND, c.lod_floor, t);
}

// A clump's fixed LOD threshold in [0, 1): what is drawn depends only on
// its seed and its distance (turning the camera never changes it).
fn grass_lod_threshold(seed: u32) -> f32 {
    return hash_unit(pcg_hash(seed ^ GRASS_LOD_SALT));
}

// How much of a clump the LOD leaves at distance `d`: 1 with LOD off; 0
// once the density level falls below its threshold (the cull drops it),
// fading over the last GRASS_LOD_FADE_BAND before that.
fn grass_lod_fade(seed: u32, d: f32, c: GrassCull) -> f32 {
    // A select, not a branch on the uniform range (see sward_wgsl::uniform_branches).
    let fade = clamp((grass_lod_density(d, c) - grass_lod_threshold(seed)) / GRASS_LOD_FADE_BAND, 0.0, 1.0);
    return select(fade, 1.0, c.lod_end <= c.lod_start);
}
