// Rust mirror: sward_passes::terrain::gpu (TerrainUniforms, TerrainChunkGpu,
// TerrainVertex); CPU references: terrain::mesh (vertex expansion, fan order)
// and scenes' Mcnk::layer_weight (splat blend order).
//
// Terrain `static-chunks`: one expanded triangle list per MCNK (world XYZ,
// MCNR normal, chunk UV), one draw per visible MCNK whose first instance is
// the MCNK's slot in `chunks`. Four layers are splatted in MCLY order with the
// MCAL alphas of the MCNK's alpha-atlas tile, then lit by the sun and fogged.

//! import fog, lighting

struct TerrainUniforms {
    view_proj: mat4x4<f32>,
    eye: vec3<f32>,
    fog_start: f32,
    sun_dir: vec3<f32>,
    fog_end: f32,
    fog_color: vec3<f32>,
    layer_tiling: f32,
}

struct TerrainChunk {
    // Atlas UV of the MCNK's 64x64 alpha tile (top-left corner).
    alpha_origin: vec2<f32>,
    // Atlas UV size of one 64-texel tile.
    alpha_scale: f32,
    // MCLY layers in use (1..=4).
    layer_count: u32,
    // Layer texture array index of each MCLY layer.
    textures: vec4<u32>,
}

@group(0) @binding(0) var<uniform> u: TerrainUniforms;
@group(0) @binding(1) var<storage, read> chunks: array<TerrainChunk>;
@group(0) @binding(2) var alpha_atlas: texture_2d<f32>;
@group(0) @binding(3) var layer_textures: texture_2d_array<f32>;
@group(0) @binding(4) var alpha_sampler: sampler;
@group(0) @binding(5) var layer_sampler: sampler;

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

const ALPHA_TEXELS: f32 = 64.0;

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    let c = chunks[in.chunk];
    // Clamp to the tile's outer texel centres so filtering never reads a
    // neighbouring MCNK's tile.
    let texel = clamp(in.uv * ALPHA_TEXELS, vec2<f32>(0.5), vec2<f32>(ALPHA_TEXELS - 0.5));
    let alpha = textureSample(alpha_atlas, alpha_sampler, c.alpha_origin + texel / ALPHA_TEXELS * c.alpha_scale);
    let tuv = in.uv * u.layer_tiling;
    // Sample every layer unconditionally (uniform control flow), then mask
    // the layers the MCNK does not have.
    let t0 = textureSample(layer_textures, layer_sampler, tuv, c.textures.x).rgb;
    let t1 = textureSample(layer_textures, layer_sampler, tuv, c.textures.y).rgb;
    let t2 = textureSample(layer_textures, layer_sampler, tuv, c.textures.z).rgb;
    let t3 = textureSample(layer_textures, layer_sampler, tuv, c.textures.w).rgb;
    let present = vec3<u32>(1u, 2u, 3u) < vec3<u32>(c.layer_count);
    let a = select(vec3<f32>(0.0), alpha.rgb, present);
    var color = t0;
    color = mix(color, t1, a.x);
    color = mix(color, t2, a.y);
    color = mix(color, t3, a.z);
    color = color * sun_lighting(in.normal, u.sun_dir);
    let dist = distance(in.world, u.eye);
    return vec4<f32>(apply_fog(color, u.fog_color, dist, u.fog_start, u.fog_end), 1.0);
}
