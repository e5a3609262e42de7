// Rust mirror: sward_passes::terrain::gpu (TerrainUniforms, TerrainChunkGpu,
// TerrainVertex); CPU references: terrain::mesh (vertex expansion, fan order)
// and scenes' Mcnk::layer_weight (splat blend order).
//
// Terrain `static-chunks`: one expanded triangle list per MCNK (world XYZ,
// MCNR normal, chunk UV), one draw per visible MCNK whose first instance is
// the MCNK's slot in `chunks`. Four layers are splatted in MCLY order with the
// MCAL alphas of the MCNK's alpha-atlas tile, then lit by the sun and fogged
// (the shared `terrain_shade` snippet).

//! import terrain_shade

@group(0) @binding(0) var<uniform> u: TerrainUniforms;
@group(0) @binding(1) var<storage, read> chunks: array<TerrainChunk>;
@group(0) @binding(2) var alpha_atlas: texture_2d<f32>;
@group(0) @binding(3) var layer_textures: texture_2d_array<f32>;
@group(0) @binding(4) var alpha_sampler: sampler;
@group(0) @binding(5) var layer_sampler: sampler;
@group(0) @binding(20) var tileset_bc1: texture_2d_array<f32>;
@group(0) @binding(21) var tileset_bc2: texture_2d_array<f32>;
@group(0) @binding(22) var tileset_bc3: texture_2d_array<f32>;

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) @interpolate(flat) chunk: u32,
}

@vertex
fn vs_main(
    @location(0) position: vec3<f32>,
    @location(1) normal: vec4<f32>,
    @location(2) uv: vec2<f32>,
    @builtin(instance_index) chunk: u32,
) -> VertexOut {
    var out: VertexOut;
    out.clip = u.view_proj * vec4<f32>(position, 1.0);
    out.world = position;
    out.normal = normal.xyz;
    out.uv = uv;
    out.chunk = chunk;
    return out;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    return terrain_shade(u, chunks[in.chunk], alpha_atlas, layer_textures, tileset_bc1, tileset_bc2, tileset_bc3, alpha_sampler, layer_sampler, in.uv, in.normal, in.world);
}
