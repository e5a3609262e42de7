// Rust mirror: sward_engine::camera::Frustum (struct and the sphere/AABB tests);
// layout and parity tests in engine/tests/it/probes.rs.
//
// Six normalised planes (n, d): a point p is inside when dot(n, p) + d >= 0 for
// all planes. Order: left, right, bottom, top, near, far (reverse-Z).

struct Frustum {
    planes: array<vec4<f32>, 6>,
}

// Whether a sphere touches the frustum (conservative near corners).
fn frustum_sphere_visible(f: Frustum, center: vec3<f32>, radius: f32) -> bool {
    for (var i = 0u; i < 6u; i++) {
        let p = f.planes[i];
        if (dot(p.xyz, center) + p.w < -radius) {
            return false;
        }
    }
    return true;
}

// Whether an axis-aligned box touches the frustum (conservative).
fn frustum_aabb_visible(f: Frustum, bmin: vec3<f32>, bmax: vec3<f32>) -> bool {
    for (var i = 0u; i < 6u; i++) {
        let p = f.planes[i];
        // The box corner furthest along the plane normal.
        let corner = select(bmin, bmax, p.xyz >= vec3<f32>(0.0));
        if (dot(p.xyz, corner) + p.w < 0.0) {
            return false;
        }
    }
    return true;
}
