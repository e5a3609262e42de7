//! The static clipmap geometry shared by every level: one vertex buffer of
//! local grid coordinates and one index buffer holding a mesh per
//! [`PieceKind`]. Vertices carry only `(i, j)` (u16); the vertex shader adds
//! the piece origin and reads heights from the level textures.
//!
//! Triangulation: in every quad the diagonal joins the corner whose local
//! coordinates are both even to the one whose coordinates are both odd. With
//! pieces at even origins on level 0 (half-cell spacing) that is the corner
//! and the centre of an MCVT cell, so each fan triangle of the reference is
//! drawn as two coplanar halves: level 0 is the exact surface. Triangles wind
//! counter-clockwise in `(I, J)`, which is clockwise seen from +Z in world
//! space (`x = O - J s`, `y = O - I s` mirrors), like `static-chunks`.
//! [`main_diagonal`] says which way a quad splits and [`quad_height`] is the
//! height the two triangles give inside it (the CPU models of the drawn
//! surface, [`super::refine`] and [`super::accuracy`], read both).

use std::collections::HashMap;
use std::ops::Range;

use super::layout::PieceKind;

/// One vertex: local grid coordinates inside its piece.
pub type LocalVertex = [u16; 2];

/// Where one kind's mesh lives in the shared buffers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeshRange {
    /// Which piece kind.
    pub kind: PieceKind,
    /// Index range in the shared index buffer.
    pub indices: Range<u32>,
    /// Added to every index (first vertex of the mesh).
    pub base_vertex: i32,
}

impl MeshRange {
    /// Triangles of one instance.
    pub fn triangles(&self) -> u64 {
        u64::from(self.indices.end - self.indices.start) / 3
    }
}

/// All meshes of a block size, concatenated.
#[derive(Debug, Clone, Default)]
pub struct ClipmapMeshes {
    /// Shared vertices.
    pub vertices: Vec<LocalVertex>,
    /// Shared indices (relative to each mesh's `base_vertex`).
    pub indices: Vec<u32>,
    /// One range per kind, in [`PieceKind::ALL`] order.
    pub ranges: Vec<MeshRange>,
}

impl ClipmapMeshes {
    /// Builds every mesh for block size `t`.
    pub fn new(t: u32) -> Self {
        let t = i64::from(t);
        let mut out = ClipmapMeshes::default();
        for kind in PieceKind::ALL {
            let (verts, idx) = match kind {
                PieceKind::Seam => seam_mesh(4 * t + 2),
                PieceKind::EdgeSeamI => edge_seam_mesh(t, [1, 0]),
                PieceKind::EdgeSeamJ => edge_seam_mesh(t, [0, 1]),
                PieceKind::Block2 => {
                    let [w, h] = kind.mesh_quads(t);
                    grid_mesh_stride(w / 2, h / 2, 2)
                }
                // Refined kinds: the same extent in the finer level's units.
                refined if refined.is_refined() => {
                    let [w, h] = refined.mesh_quads(t);
                    grid_mesh(2 * w, 2 * h)
                }
                other => {
                    let [w, h] = other.mesh_quads(t);
                    grid_mesh(w, h)
                }
            };
            let base_vertex = out.vertices.len() as i32;
            let start = out.indices.len() as u32;
            out.vertices.extend(verts);
            out.indices.extend(idx);
            out.ranges.push(MeshRange {
                kind,
                indices: start..out.indices.len() as u32,
                base_vertex,
            });
        }
        out
    }

    /// The range of `kind`.
    pub fn range(&self, kind: PieceKind) -> &MeshRange {
        // `new` pushes one range per kind in `ALL` order.
        &self.ranges[PieceKind::ALL.iter().position(|k| *k == kind).unwrap_or(0)]
    }

    /// Distinct vertices `kind`'s indices reference: what a vertex shader
    /// that shades each vertex of an instance once (llvmpipe's) runs per
    /// instance.
    pub fn distinct_vertices(&self, kind: PieceKind) -> u64 {
        let r = self.range(kind);
        let mut seen: Vec<u32> =
            self.indices[r.indices.start as usize..r.indices.end as usize].to_vec();
        seen.sort_unstable();
        seen.dedup();
        seen.len() as u64
    }
}

/// Whether quad `(i, j)` (min corner) splits along its main diagonal
/// `(i, j)-(i+1, j+1)`: exactly when that diagonal joins the even-even and
/// odd-odd corners.
pub fn main_diagonal(i: i64, j: i64) -> bool {
    (i + j).rem_euclid(2) == 0
}

/// Height of the triangle containing in-quad `(u, v)` of a quad with corner
/// heights `h00, h10, h01, h11`, split along the main diagonal or not.
pub fn quad_height(h: [f32; 4], main: bool, u: f64, v: f64) -> f64 {
    let [h00, h10, h01, h11] = h.map(f64::from);
    if main {
        if u >= v {
            h00 + u * (h10 - h00) + v * (h11 - h10)
        } else {
            h00 + v * (h01 - h00) + u * (h11 - h01)
        }
    } else if u + v <= 1.0 {
        h00 + u * (h10 - h00) + v * (h01 - h00)
    } else {
        h11 + (1.0 - u) * (h01 - h11) + (1.0 - v) * (h10 - h11)
    }
}

/// A `w x h`-quad grid: vertices row-major (`j * (w + 1) + i`), two
/// counter-clockwise triangles per quad.
fn grid_mesh(w: i64, h: i64) -> (Vec<LocalVertex>, Vec<u32>) {
    grid_mesh_stride(w, h, 1)
}

/// A `w x h`-quad grid whose quads are `stride` level quads wide (vertex
/// `(i, j)` at local `(stride i, stride j)`); the diagonal rule applies to
/// the grid's own `(i, j)`, so a stride-2 grid is triangulated like the
/// next coarser level's meshes.
fn grid_mesh_stride(w: i64, h: i64, stride: i64) -> (Vec<LocalVertex>, Vec<u32>) {
    let mut v = Vec::with_capacity(((w + 1) * (h + 1)) as usize);
    for j in 0..=h {
        for i in 0..=w {
            v.push([(stride * i) as u16, (stride * j) as u16]);
        }
    }
    let at = |i: i64, j: i64| (j * (w + 1) + i) as u32;
    let mut idx = Vec::with_capacity((w * h * 6) as usize);
    for j in 0..h {
        for i in 0..w {
            let (p00, p10, p01, p11) = (at(i, j), at(i + 1, j), at(i, j + 1), at(i + 1, j + 1));
            if main_diagonal(i, j) {
                idx.extend([p00, p10, p11, p00, p11, p01]);
            } else {
                idx.extend([p00, p10, p01, p10, p11, p01]);
            }
        }
    }
    (v, idx)
}

/// Zero-area triangles `(2k, 2k + 1, 2k + 2)` along the four sides of an
/// `f x f` level, both windings (so culling never drops the sliver that
/// rounding may open at a T-junction).
fn seam_mesh(f: i64) -> (Vec<LocalVertex>, Vec<u32>) {
    let mut verts = Vec::new();
    let mut lookup = HashMap::new();
    let mut id = |p: (i64, i64)| {
        *lookup.entry(p).or_insert_with(|| {
            verts.push([p.0 as u16, p.1 as u16]);
            verts.len() as u32 - 1
        })
    };
    let mut idx = Vec::new();
    for side in 0..4 {
        for k in 0..f / 2 {
            let pt = |e: i64| match side {
                0 => (e, 0),
                1 => (e, f),
                2 => (0, e),
                _ => (f, e),
            };
            let (a, b, c) = (id(pt(2 * k)), id(pt(2 * k + 1)), id(pt(2 * k + 2)));
            idx.extend([a, b, c, a, c, b]);
        }
    }
    (verts, idx)
}

/// Zero-area triangles `(2k, 2k + 1, 2k + 2)` along one `len`-quad edge
/// starting at the local origin in direction `dir`, both windings.
fn edge_seam_mesh(len: i64, dir: [i64; 2]) -> (Vec<LocalVertex>, Vec<u32>) {
    let verts = (0..=len)
        .map(|k| [(k * dir[0]) as u16, (k * dir[1]) as u16])
        .collect();
    let mut idx = Vec::new();
    for k in 0..(len / 2) as u32 {
        let (a, b, c) = (2 * k, 2 * k + 1, 2 * k + 2);
        idx.extend([a, b, c, a, c, b]);
    }
    (verts, idx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_cover_their_quads_with_ccw_triangles_towards_centres() {
        let m = ClipmapMeshes::new(8);
        for r in &m.ranges {
            let tri = &m.indices[r.indices.start as usize..r.indices.end as usize];
            // Half-resolution kinds: every vertex even, checked in units of
            // their double quads.
            let stride = if r.kind == PieceKind::Block2 { 2 } else { 1 };
            let pos = |k: u32| {
                let v = m.vertices[(r.base_vertex + k as i32) as usize];
                let p = [i64::from(v[0]), i64::from(v[1])];
                assert_eq!(p.map(|c| c % stride), [0, 0], "{:?} vertex {p:?}", r.kind);
                p.map(|c| c / stride)
            };
            let mut area = 0;
            for t in tri.chunks_exact(3) {
                let [a, b, c] = [pos(t[0]), pos(t[1]), pos(t[2])];
                let cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
                if r.kind.is_seam() {
                    assert_eq!(cross, 0, "seam triangles have zero area");
                    continue;
                }
                assert_eq!(cross, 1, "{:?}: twice the area of a half quad, CCW", r.kind);
                area += cross * stride * stride;
                // The triangle's hypotenuse joins an even-even and an odd-odd corner.
                let odd = [a, b, c]
                    .iter()
                    .filter(|p| p[0] % 2 == 1 && p[1] % 2 == 1)
                    .count();
                let even = [a, b, c]
                    .iter()
                    .filter(|p| p[0] % 2 == 0 && p[1] % 2 == 0)
                    .count();
                assert_eq!(
                    (odd, even),
                    (1, 1),
                    "{:?} triangle {a:?} {b:?} {c:?}",
                    r.kind
                );
            }
            match r.kind {
                PieceKind::Seam => assert_eq!(r.triangles(), 2 * 4 * 17),
                PieceKind::EdgeSeamI | PieceKind::EdgeSeamJ => assert_eq!(r.triangles(), 2 * 4),
                kind if kind.is_refined() => {
                    let [w, h] = kind.mesh_quads(8);
                    assert_eq!(area, 2 * (2 * w) * (2 * h), "{kind:?}");
                }
                kind => {
                    let [w, h] = kind.mesh_quads(8);
                    assert_eq!(area, 2 * w * h, "{kind:?}");
                }
            }
        }
        // Block 8: blocks are drawn as 2 x 2 sub-blocks of 4 quads.
        assert_eq!(m.range(PieceKind::Block).triangles(), 2 * 16);
        assert_eq!(m.range(PieceKind::Block2).triangles(), 2 * 4);
    }

    #[test]
    fn quad_height_reproduces_corners_and_planes() {
        let h = [1.0, 3.0, 5.0, 7.0];
        for main in [true, false] {
            assert_eq!(quad_height(h, main, 0.0, 0.0), 1.0);
            assert_eq!(quad_height(h, main, 1.0, 0.0), 3.0);
            assert_eq!(quad_height(h, main, 0.0, 1.0), 5.0);
            assert_eq!(quad_height(h, main, 1.0, 1.0), 7.0);
            // A plane (h = 1 + 2u + 4v) is reproduced by either split.
            assert!((quad_height(h, main, 0.3, 0.6) - (1.0 + 0.6 + 2.4)).abs() < 1e-12);
        }
        // A saddle differs between the two splits at the centre.
        let s = [0.0, 1.0, 1.0, 0.0];
        assert_eq!(quad_height(s, true, 0.5, 0.5), 0.0);
        assert_eq!(quad_height(s, false, 0.5, 0.5), 1.0);
    }
}
