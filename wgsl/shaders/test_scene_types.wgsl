// Rust mirror: sward_engine::test_scene::{SceneUniforms, SceneInstance,
// DrawIndexedArgs} (layout tests in engine/tests/it/probes.rs).

//! import frustum

struct SceneUniforms {
    view_proj: mat4x4<f32>,
    frustum: Frustum,
    light_dir: vec4<f32>,
    instance_count: u32,
    mesh_count: u32,
    _pad0: u32,
    _pad1: u32,
}

struct SceneInstance {
    position: vec3<f32>,
    scale: f32,
    color: vec4<f32>,
    mesh: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// Same layout as wgpu's DrawIndexedIndirectArgs; instance_count is bumped by culling.
struct DrawIndexedArgs {
    index_count: u32,
    instance_count: atomic<u32>,
    first_index: u32,
    base_vertex: i32,
    first_instance: u32,
}

// Every test-scene mesh fits in a unit cube centred on its origin.
const MESH_BOUNDING_RADIUS: f32 = 0.8660254;
