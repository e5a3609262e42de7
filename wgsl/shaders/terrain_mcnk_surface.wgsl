// Rust mirror: sward_passes::terrain::gpu (TerrainUniforms, the uniforms of
// static-chunks and atlas-instanced / gpu-cull at binding 0); CPU references
// and parity as `terrain_shade`.
//
// What the two per-MCNK terrain tiers (`terrain_static`, `terrain_atlas`)
// share: their uniforms, the vertex output (clip and world position, normal,
// chunk UV, the MCNK's record index) and the fragment entry, which shades the
// MCNK's record with `terrain_shade`. Each tier writes its own vertex stage.

//! import terrain_shade

@group(0) @binding(0) var<uniform> u: TerrainUniforms;

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) @interpolate(flat) chunk: u32,
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    return terrain_shade(u, chunks[in.chunk], in.uv, in.normal, in.world);
}
