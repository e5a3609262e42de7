// Rust mirror: sward_passes::terrain::template (TemplateVertex packing, the
// CPU expansion `expand_template` this vertex stage mirrors) and
// sward_passes::terrain::atlas_instanced::InstanceGpu; shading structs in
// `terrain_shade`, atlas structs in `height_atlas`.
//
// Terrain `atlas-instanced` and `gpu-cull`: one immutable template of the 64
// diamond fans (5 vertices per cell: tl, tr, bl, br, centre; 4 triangles in
// the static-chunks fan order) drawn once per visible MCNK. A template vertex
// carries only its tile texel and cell; world XY comes from the MCNK's global
// coordinate (`atlas_lattice_world`), Z = base Z + the exact MCVT sample and
// the normal the MCNR sample, both fetched with textureLoad. Hole cells are
// collapsed in the vertex stage (all their vertices move to one point
// outside the clip volume, so their triangles have no area).
//
// `vs_instanced` (atlas-instanced) reads the MCNK from per-instance vertex
// attributes; `vs_culled` (gpu-cull) reads the atlas record at
// `instance_index` (the indirect draw's first instance = the MCNK slot).

//! import terrain_mcnk_surface, height_atlas

@group(0) @binding(6) var<storage, read> atlas_chunks: array<AtlasChunk>;
@group(0) @binding(7) var atlas_heights: texture_2d<f32>;
@group(0) @binding(8) var atlas_normals: texture_2d<f32>;

// Where a collapsed (hole) vertex goes: outside the clip volume.
const HOLE_CLIP: vec4<f32> = vec4<f32>(2.0, 2.0, 2.0, 1.0);

// One template vertex of MCNK `slot` at global coordinate `chunk`.
// `packed`: texel column (bits 0..8), texel row (8..16), cell (16..24).
fn terrain_atlas_vertex(packed: u32, slot: u32, chunk: vec2<u32>, tile: vec2<u32>, base_z: f32, holes: u32) -> VertexOut {
    let tc = packed & 0xffu;
    let tr = (packed >> 8u) & 0xffu;
    let cell = (packed >> 16u) & 0xffu;
    // Local lattice position in half-cells: outer texels sit on cell
    // corners, inner texels (columns 9..16) on cell centres.
    let inner = tc >= 9u;
    let lattice = select(vec2<u32>(2u * tc, 2u * tr), vec2<u32>(2u * (tc - 9u) + 1u, 2u * tr + 1u), inner);
    let texel = vec2<i32>(tile * vec2<u32>(ATLAS_TILE_W, ATLAS_TILE_H) + vec2<u32>(tc, tr));
    let xy = atlas_lattice_world(chunk * 16u + lattice);
    let z = base_z + textureLoad(atlas_heights, texel, 0).r;
    var out: VertexOut;
    out.world = vec3<f32>(xy, z);
    out.normal = textureLoad(atlas_normals, texel, 0).xyz;
    out.uv = vec2<f32>(lattice) / 16.0;
    out.chunk = slot;
    out.clip = u.view_proj * vec4<f32>(out.world, 1.0);
    if (atlas_cell_is_hole(holes, cell / 8u, cell % 8u)) {
        out.clip = HOLE_CLIP;
    }
    return out;
}

@vertex
fn vs_instanced(
    @location(0) packed: u32,
    // (slot, chunk x, chunk y, holes)
    @location(1) mcnk: vec4<u32>,
    @location(2) tile: vec2<u32>,
    @location(3) base_z: f32,
) -> VertexOut {
    return terrain_atlas_vertex(packed, mcnk.x, mcnk.yz, tile, base_z, mcnk.w);
}

@vertex
fn vs_culled(
    @location(0) packed: u32,
    @builtin(instance_index) slot: u32,
) -> VertexOut {
    let c = atlas_chunks[slot];
    return terrain_atlas_vertex(packed, slot, c.chunk, c.tile, c.base_z, c.holes);
}
