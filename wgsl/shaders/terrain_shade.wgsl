// Rust mirror: sward_passes::terrain::gpu (TerrainUniforms, TerrainChunkGpu)
// and terrain::splat_gpu::SplatGpu::layout_entries (the splat bindings);
// CPU references: scenes' Mcnk::layer_weight (splat blend order) and
// terrain::shading (sun, fog). Parity: terrain::tests splat/lighting probe.
//
// Terrain surface shading shared by every terrain tier: four layers splatted
// in MCLY order with the MCAL alphas of the MCNK's alpha-atlas tile, then lit
// by the sun and fogged. The splat resources sit at the same bindings of
// every tier's group 0 (declared here); each tier declares its own uniforms
// at binding 0 and whatever else it reads.

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
    // Layer code of each MCLY layer (array and layer, see TILESET_BC).
    textures: vec4<u32>,
}

// The splat resources (SplatGpu::layout_entries): MCNK records, the MCAL
// alpha atlas, the RGBA8 layer array, two samplers, the BC tileset arrays.
@group(0) @binding(1) var<storage, read> chunks: array<TerrainChunk>;
@group(0) @binding(2) var alpha_atlas: texture_2d<f32>;
@group(0) @binding(3) var layer_textures: texture_2d_array<f32>;
@group(0) @binding(4) var alpha_sampler: sampler;
@group(0) @binding(5) var layer_sampler: sampler;
@group(0) @binding(20) var tileset_bc1: texture_2d_array<f32>;
@group(0) @binding(21) var tileset_bc2: texture_2d_array<f32>;
@group(0) @binding(22) var tileset_bc3: texture_2d_array<f32>;

const ALPHA_TEXELS: f32 = 64.0;

// Whether the tiles' own tileset textures may sit in the BC arrays (a
// pipeline constant the terrain tiers set from their splat resources;
// false for procedural presets, which keep the plain four-sample path).
override TILESET_BC: bool = false;
// A layer code: bits 30-31 the array (0 RGBA8, 1 BC1, 2 BC2, 3 BC3), the
// rest the layer in it. Rust mirror: terrain::tileset_gpu::TilesetCode.
const TILESET_ARRAY_SHIFT: u32 = 30u;
const TILESET_LAYER_MASK: u32 = 0x3fffffffu;

// One layer texel of `code` with explicit gradients (callable where the
// array differs between neighbouring pixels).
fn tileset_sample(
    rgba: texture_2d_array<f32>,
    bc1: texture_2d_array<f32>,
    bc2: texture_2d_array<f32>,
    bc3: texture_2d_array<f32>,
    s: sampler,
    uv: vec2<f32>,
    code: u32,
    gx: vec2<f32>,
    gy: vec2<f32>,
) -> vec3<f32> {
    let layer = code & TILESET_LAYER_MASK;
    switch (code >> TILESET_ARRAY_SHIFT) {
        case 1u: { return textureSampleGrad(bc1, s, uv, layer, gx, gy).rgb; }
        case 2u: { return textureSampleGrad(bc2, s, uv, layer, gx, gy).rgb; }
        case 3u: { return textureSampleGrad(bc3, s, uv, layer, gx, gy).rgb; }
        default: { return textureSampleGrad(rgba, s, uv, layer, gx, gy).rgb; }
    }
}

// The lit, fogged colour of terrain at `world` with chunk UV `uv` and
// `normal`, for MCNK record `c`, from the splat bindings above.
fn terrain_shade(u: TerrainUniforms, c: TerrainChunk, uv: vec2<f32>, normal: vec3<f32>, world: vec3<f32>) -> vec4<f32> {
    // Clamp to the tile's outer texel centres so filtering never reads a
    // neighbouring MCNK's tile.
    let texel = clamp(uv * ALPHA_TEXELS, vec2<f32>(0.5), vec2<f32>(ALPHA_TEXELS - 0.5));
    let alpha = textureSample(alpha_atlas, alpha_sampler, c.alpha_origin + texel / ALPHA_TEXELS * c.alpha_scale);
    let tuv = uv * u.layer_tiling;
    // Sample every layer unconditionally (uniform control flow), then mask
    // the layers the MCNK does not have.
    var t0: vec3<f32>;
    var t1: vec3<f32>;
    var t2: vec3<f32>;
    var t3: vec3<f32>;
    if (TILESET_BC) {
        let gx = dpdx(tuv);
        let gy = dpdy(tuv);
        t0 = tileset_sample(layer_textures, tileset_bc1, tileset_bc2, tileset_bc3, layer_sampler, tuv, c.textures.x, gx, gy);
        t1 = tileset_sample(layer_textures, tileset_bc1, tileset_bc2, tileset_bc3, layer_sampler, tuv, c.textures.y, gx, gy);
        t2 = tileset_sample(layer_textures, tileset_bc1, tileset_bc2, tileset_bc3, layer_sampler, tuv, c.textures.z, gx, gy);
        t3 = tileset_sample(layer_textures, tileset_bc1, tileset_bc2, tileset_bc3, layer_sampler, tuv, c.textures.w, gx, gy);
    } else {
        t0 = textureSample(layer_textures, layer_sampler, tuv, c.textures.x).rgb;
        t1 = textureSample(layer_textures, layer_sampler, tuv, c.textures.y).rgb;
        t2 = textureSample(layer_textures, layer_sampler, tuv, c.textures.z).rgb;
        t3 = textureSample(layer_textures, layer_sampler, tuv, c.textures.w).rgb;
    }
    let present = vec3<u32>(1u, 2u, 3u) < vec3<u32>(c.layer_count);
    let a = select(vec3<f32>(0.0), alpha.rgb, present);
    var color = t0;
    color = mix(color, t1, a.x);
    color = mix(color, t2, a.y);
    color = mix(color, t3, a.z);
    color = color * sun_lighting(normal, u.sun_dir);
    let dist = distance(world, u.eye);
    return vec4<f32>(apply_fog(color, u.fog_color, dist, u.fog_start, u.fog_end), 1.0);
}
