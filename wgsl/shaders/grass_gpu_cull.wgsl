// Rust mirror: sward_passes::grass::gpu_cull::draw (group 2 layout and the
// pipelines); CPU references: grass::gpu_cull::descriptor::unpack (root XY,
// yaw, scale), sward_scenes World::height_at (root Z), grass::instance::
// instance_matrix (the world matrix); parity: the root probe and the image
// test against static-batch in grass::gpu_cull::tests.
//
// Grass `gpu-cull` draw: instance n is descriptor n (`first_instance` of each
// indirect draw is its entry's first descriptor). The vertex stage decodes
// the root XY, yaw and scale, takes Z from the exact height atlas under that
// XY, builds the same T * Rz * S matrix static-batch stores, and hands over
// to the shared `grass_surface` (fade, wind, lighting, materials).

//! import grass_surface, grass_cull_types, height_atlas

@group(2) @binding(0) var<storage, read> grass_descriptors: array<GrassDescriptor>;
@group(2) @binding(1) var<storage, read> grass_patches: array<GrassPatch>;
@group(2) @binding(2) var<storage, read> atlas_chunks: array<AtlasChunk>;
@group(2) @binding(3) var atlas_heights: texture_2d<f32>;
@group(2) @binding(5) var atlas_index: texture_2d<u32>;

// A decoded root: world position (Z from the atlas), yaw, scale; `found`
// is false where no resident MCNK lies under it.
struct GrassRoot {
    position: vec3<f32>,
    yaw: f32,
    scale: f32,
    found: bool,
}

fn grass_root(instance: u32) -> GrassRoot {
    let d = grass_descriptors[instance];
    let p = grass_patches[d.patch_index];
    var root: GrassRoot;
    let xy = grass_descriptor_xy(d, p);
    root.yaw = grass_descriptor_yaw(d);
    root.scale = grass_descriptor_scale(d);
    let cell = grass_descriptor_cell(d, p);
    let slot = atlas_slot_at(atlas_index, cell);
    root.found = slot != ATLAS_NO_CHUNK;
    if (!root.found) {
        root.position = vec3<f32>(xy, 0.0);
        return root;
    }
    let c = atlas_chunks[slot];
    let local = cell - floor(cell / 8.0) * 8.0;
    root.position = vec3<f32>(xy, c.base_z + height_atlas_local(atlas_heights, c.tile, local.x, local.y));
    return root;
}

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
}

@vertex
fn vs_main(v: VertexIn, @builtin(instance_index) instance: u32) -> VertexOut {
    let root = grass_root(instance);
    if (!root.found) {
        var out: VertexOut;
        out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
        return out;
    }
    let c = cos(root.yaw) * root.scale;
    let s = sin(root.yaw) * root.scale;
    let m = mat4x4<f32>(
        vec4<f32>(c, s, 0.0, 0.0),
        vec4<f32>(-s, c, 0.0, 0.0),
        vec4<f32>(0.0, 0.0, root.scale, 0.0),
        vec4<f32>(root.position, 1.0),
    );
    return grass_vertex(m, root.position, v.position, v.normal, v.uv);
}
