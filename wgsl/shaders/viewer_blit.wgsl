// Rust mirror: none (no shared structs); bound by viewer/src/present.rs.
// Viewer present: copies the resolved scene colour onto the window surface with
// one full-screen triangle. Both sides are sRGB views, so the copy is linear in
// between (sample decodes, the attachment encodes) and colours stay exact.

@group(0) @binding(0) var scene_color: texture_2d<f32>;

struct VsOut {
    @builtin(position) position: vec4<f32>,
}

// Vertices 0, 1, 2 cover clip space with one oversized triangle.
@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> VsOut {
    let uv = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    var out: VsOut;
    out.position = vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
    return out;
}

// One texel per pixel: the scene target has the surface's size.
@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    let size = vec2<i32>(textureDimensions(scene_color));
    let p = clamp(vec2<i32>(in.position.xy), vec2<i32>(0), size - 1);
    return vec4<f32>(textureLoad(scene_color, p, 0).rgb, 1.0);
}
