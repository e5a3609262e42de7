// Rust mirror: sward_passes::grass::gpu_cull::draw (group 2 layout and the
// pipelines); CPU references: grass::gpu_cull::descriptor::unpack (root XY,
// yaw, scale), sward_scenes World::height_at (root Z), grass::instance::
// instance_matrix (the world matrix); parity: the root probe and the image
// test against static-batch in grass::gpu_cull::tests.
//
// Grass `gpu-cull` draw. With patch culling instance n is descriptor n
// (`first_instance` of each indirect draw is its entry's first descriptor);
// with per-instance culling it is the n-th entry of `grass_visible` (each
// model's draw starts at its region). The vertex stage decodes
// the root XY, yaw and scale, takes Z from the exact height atlas under that
// XY, builds the same T * Rz * S matrix static-batch stores, and hands over
// to the shared `grass_surface` (fade, wind, lighting, materials).

//! import grass_surface, grass_root

// The per-instance cull's output: descriptor indices of the visible clumps,
// model after model (`vs_visible` only).
@group(2) @binding(6) var<storage, read> grass_visible: array<u32>;
// The cull's uniforms: the distance LOD the cull thinned by (`vs_visible`).
@group(2) @binding(7) var<uniform> grass_cull: GrassCull;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
}

// Patch culling: instance n is descriptor n.
@vertex
fn vs_main(v: VertexIn, @builtin(instance_index) instance: u32) -> VertexOut {
    return grass_vs(v, instance, false);
}

// Per-instance culling: instance n is the n-th visible descriptor.
@vertex
fn vs_visible(v: VertexIn, @builtin(instance_index) instance: u32) -> VertexOut {
    return grass_vs(v, grass_visible[instance], true);
}

fn grass_vs(v: VertexIn, descriptor: u32, lod: bool) -> VertexOut {
    let root = grass_root(descriptor);
    if (!root.found) {
        var out: VertexOut;
        out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
        return out;
    }
    let c = cos(root.yaw) * root.scale;
    let s = sin(root.yaw) * root.scale;
    let m = mat4x4<f32>(
        vec4<f32>(c, s, 0.0, 0.0),
        vec4<f32>(-s, c, 0.0, 0.0),
        vec4<f32>(0.0, 0.0, root.scale, 0.0),
        vec4<f32>(root.position, 1.0),
    );
    var out = grass_vertex(m, root.position, v.position, v.normal, v.uv);
    if (lod) {
        // The distance LOD the cull thinned by fades a clump out before
        // it drops it.
        let d = distance(root.position, grass_cull.eye.xyz);
        out.fade = out.fade * grass_lod_fade(grass_descriptors[descriptor].seed, d, grass_cull);
    }
    return out;
}
