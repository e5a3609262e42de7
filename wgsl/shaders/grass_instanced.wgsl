// Rust mirror: sward_passes::grass::gpu (vertex layouts of DetailVertex and
// the mat4 instance); CPU reference: grass::instance::instance_matrix.
//
// Instanced detail doodads (`static-batch` and `legacy-cpu`): one draw per
// model batch, one column-major mat4 per instance as four vertex attributes.
// Everything else (bindings, fade, wind, lighting, the fragment entry points)
// is the shared `grass_surface`.

//! import grass_surface

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) m0: vec4<f32>,
    @location(4) m1: vec4<f32>,
    @location(5) m2: vec4<f32>,
    @location(6) m3: vec4<f32>,
}

@vertex
fn vs_main(v: VertexIn) -> VertexOut {
    let m = mat4x4<f32>(v.m0, v.m1, v.m2, v.m3);
    return grass_vertex(m, v.m3.xyz, v.position, v.normal, v.uv);
}
