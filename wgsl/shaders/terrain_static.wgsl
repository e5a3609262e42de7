// Rust mirror: sward_passes::terrain::gpu (TerrainUniforms, TerrainChunkGpu,
// TerrainVertex); CPU references: terrain::mesh (vertex expansion, fan order)
// and scenes' Mcnk::layer_weight (splat blend order).
//
// Terrain `static-chunks`: one expanded triangle list per MCNK (world XYZ,
// MCNR normal, chunk UV), one draw per visible MCNK whose first instance is
// the MCNK's slot in `chunks`. Four layers are splatted in MCLY order with the
// MCAL alphas of the MCNK's alpha-atlas tile, then lit by the sun and fogged
// (the fragment stage of `terrain_mcnk_surface`, shared with atlas-instanced).

//! import terrain_mcnk_surface

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
