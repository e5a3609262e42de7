// Rust mirror: sward_passes::grass::gpu_cull::draw (the group 2 layout);
// CPU references: grass::gpu_cull::descriptor::unpack (root XY, yaw, scale)
// and sward_scenes World::height_at (root Z); parity: the root probe in
// grass::gpu_cull::tests.
//
// Where a grass `gpu-cull` descriptor puts its clump: the descriptor and
// patch tables and the exact height atlas (group 2), shared by the draw's
// vertex stage and the per-instance cull.

//! import grass_cull_types, height_atlas

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
