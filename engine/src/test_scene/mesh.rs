//! Meshes of the built-in test scene: a cube, a square pyramid and a ground
//! quad, each fitting in a unit cube centred on its origin, flat-shaded.

use glam::Vec3;

/// Vertex of the test-scene meshes (`@location(0)` position, `@location(1)` normal).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MeshVertex {
    /// Object-space position.
    pub position: [f32; 3],
    /// Unit normal.
    pub normal: [f32; 3],
}

/// Where one mesh lives in the shared vertex/index buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshRange {
    /// First index in the index buffer.
    pub first_index: u32,
    /// Number of indices.
    pub index_count: u32,
    /// Added to every index.
    pub base_vertex: i32,
}

/// Mesh ids of the test scene.
pub const CUBE: u32 = 0;
/// Square pyramid.
pub const PYRAMID: u32 = 1;
/// Ground quad in the z = 0 plane.
pub const GROUND: u32 = 2;

#[derive(Default)]
struct Builder {
    vertices: Vec<MeshVertex>,
    indices: Vec<u32>,
}

impl Builder {
    /// Adds a flat triangle, wound counter-clockwise seen from `outward`.
    fn tri(&mut self, a: Vec3, b: Vec3, c: Vec3, outward: Vec3) {
        let (b, c) = if (b - a).cross(c - a).dot(outward) < 0.0 {
            (c, b)
        } else {
            (b, c)
        };
        let n = (b - a).cross(c - a).normalize_or_zero();
        let base = self.vertices.len() as u32;
        for p in [a, b, c] {
            self.vertices.push(MeshVertex {
                position: p.to_array(),
                normal: n.to_array(),
            });
        }
        self.indices.extend([base, base + 1, base + 2]);
    }

    /// Adds a flat quad a-b-c-d (in order around its edge).
    fn quad(&mut self, a: Vec3, b: Vec3, c: Vec3, d: Vec3, outward: Vec3) {
        self.tri(a, b, c, outward);
        self.tri(a, c, d, outward);
    }
}

/// Builds the three meshes into one vertex and one index list.
pub fn build() -> (Vec<MeshVertex>, Vec<u32>, Vec<MeshRange>) {
    let mut b = Builder::default();
    let mut ranges = Vec::new();
    // Indices are absolute into the shared vertex list, so base_vertex stays 0.
    let start = |b: &Builder| b.indices.len() as u32;
    let finish = |b: &Builder, first_index: u32| MeshRange {
        first_index,
        index_count: b.indices.len() as u32 - first_index,
        base_vertex: 0,
    };

    // Cube: six faces, half extent 0.5.
    let s = start(&b);
    for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
        for sign in [1.0f32, -1.0] {
            let n = axis * sign;
            let (u, v) = (
                n.any_orthonormal_vector(),
                n.cross(n.any_orthonormal_vector()),
            );
            let c = n * 0.5;
            let (u, v) = (u * 0.5, v * 0.5);
            b.quad(c - u - v, c + u - v, c + u + v, c - u + v, n);
        }
    }
    ranges.push(finish(&b, s));

    // Pyramid: base at z = -0.5, apex at z = +0.5.
    let s = start(&b);
    let corners = [
        Vec3::new(-0.5, -0.5, -0.5),
        Vec3::new(0.5, -0.5, -0.5),
        Vec3::new(0.5, 0.5, -0.5),
        Vec3::new(-0.5, 0.5, -0.5),
    ];
    let apex = Vec3::new(0.0, 0.0, 0.5);
    for i in 0..4 {
        let (a, c) = (corners[i], corners[(i + 1) % 4]);
        b.tri(a, c, apex, (a + c + apex) / 3.0);
    }
    b.quad(corners[0], corners[1], corners[2], corners[3], -Vec3::Z);
    ranges.push(finish(&b, s));

    // Ground quad facing +Z.
    let s = start(&b);
    b.quad(
        Vec3::new(-0.5, -0.5, 0.0),
        Vec3::new(0.5, -0.5, 0.0),
        Vec3::new(0.5, 0.5, 0.0),
        Vec3::new(-0.5, 0.5, 0.0),
        Vec3::Z,
    );
    ranges.push(finish(&b, s));
    (b.vertices, b.indices, ranges)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meshes_fit_the_unit_cube_and_face_outwards() {
        let (v, i, ranges) = build();
        assert_eq!(ranges.len(), 3);
        assert_eq!(ranges[CUBE as usize].index_count, 36);
        assert_eq!(ranges[PYRAMID as usize].index_count, 18);
        assert_eq!(ranges[GROUND as usize].index_count, 6);
        assert!(v
            .iter()
            .all(|v| v.position.iter().all(|c| c.abs() <= 0.5 + 1e-6)));
        for r in &ranges[..2] {
            for t in i[r.first_index as usize..(r.first_index + r.index_count) as usize].chunks(3) {
                let p: Vec<Vec3> = t
                    .iter()
                    .map(|&k| Vec3::from(v[k as usize].position))
                    .collect();
                let n = (p[1] - p[0]).cross(p[2] - p[0]);
                assert!(n.dot((p[0] + p[1] + p[2]) / 3.0) > 0.0, "inward triangle");
            }
        }
    }
}
