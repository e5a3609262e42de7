// Rust mirror: sward_engine::test_scene (CPU reference: TestScene::cpu_visible_counts).
//
// One invocation per instance: frustum-test its bounding sphere and append the
// visible ones to their mesh's region of `visible`, counting them in the
// mesh's indirect draw args.

//! import test_scene_types

@group(0) @binding(0) var<uniform> scene: SceneUniforms;
@group(0) @binding(1) var<storage, read> instances: array<SceneInstance>;
@group(0) @binding(2) var<storage, read_write> args: array<DrawIndexedArgs>;
@group(0) @binding(3) var<storage, read_write> visible: array<u32>;

@compute @workgroup_size(64)
fn cull(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= scene.instance_count) {
        return;
    }
    let inst = instances[i];
    if (inst.mesh >= scene.mesh_count) {
        return;
    }
    if (!frustum_sphere_visible(scene.frustum, inst.position, inst.scale * MESH_BOUNDING_RADIUS)) {
        return;
    }
    let slot = atomicAdd(&args[inst.mesh].instance_count, 1u);
    visible[args[inst.mesh].first_instance + slot] = i;
}
