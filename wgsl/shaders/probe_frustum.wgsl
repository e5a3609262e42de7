// Rust mirror: the frustum parity test in engine/tests/it/probes.rs (inputs are
// vec4 spheres and box pairs, output one u32 per case: bit 0 sphere, bit 1 box).

//! import frustum

@group(0) @binding(0) var<uniform> frustum: Frustum;
@group(0) @binding(1) var<storage, read> spheres: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> boxes: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> results: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&results)) {
        return;
    }
    let s = spheres[i];
    var r = select(0u, 1u, frustum_sphere_visible(frustum, s.xyz, s.w));
    if (frustum_aabb_visible(frustum, boxes[2u * i].xyz, boxes[2u * i + 1u].xyz)) {
        r |= 2u;
    }
    results[i] = r;
}
