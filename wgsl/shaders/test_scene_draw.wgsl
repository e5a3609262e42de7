// Rust mirror: sward_engine::test_scene (vertex layout MeshVertex, uniforms and
// instances as in test_scene_types.wgsl).
//
// Draws the culled instances: `instance_index` (which includes the mesh's
// first_instance from the indirect args) indexes the visible list.

//! import test_scene_types

@group(0) @binding(0) var<uniform> scene: SceneUniforms;
@group(0) @binding(1) var<storage, read> instances: array<SceneInstance>;
@group(0) @binding(2) var<storage, read> visible: array<u32>;

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) color: vec3<f32>,
}

@vertex
fn vs_main(
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @builtin(instance_index) instance: u32,
) -> VertexOut {
    let inst = instances[visible[instance]];
    var out: VertexOut;
    out.clip = scene.view_proj * vec4<f32>(inst.position + position * inst.scale, 1.0);
    out.normal = normal;
    out.color = inst.color.rgb;
    return out;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    let lambert = max(dot(normalize(in.normal), -scene.light_dir.xyz), 0.0);
    return vec4<f32>(in.color * (0.25 + 0.75 * lambert), 1.0);
}
