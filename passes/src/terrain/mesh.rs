//! CPU vertex expansion of one MCNK for `static-chunks`: the diamond-fan
//! triangle list (four triangles per cell, holes left out) with world XYZ, the
//! MCNR normal and the chunk UV, plus the MCNK's bounding box.
//!
//! Topology (the CPU reference's, `sward_scenes::world::height`): cells in
//! row-major order (`row * 8 + col`); in each cell the fan triangles Top,
//! Right, Bottom, Left, each written as (corner, corner, centre):
//! `(tl, tr, m)`, `(tr, br, m)`, `(br, bl, m)`, `(bl, tl, m)`. Viewed from
//! above (+Z) these wind clockwise, because rows run towards -X and columns
//! towards -Y.

use glam::Vec3;
use sward_scenes::world::coords::{grid_to_world, ChunkCoord, CHUNK_CELLS};
use sward_scenes::world::height::{cell_indices, FanTriangle};
use sward_scenes::world::{mcvt_vertex_grid, Mcnk, MCVT_COUNT};

use crate::error::PassError;

/// Largest distance (world units) allowed between an MCNK's stored position
/// and the grid corner its coordinate implies.
pub const POSITION_TOLERANCE: f64 = 0.05;

/// One vertex of the expanded terrain mesh (vertex buffer, bytemuck).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TerrainVertex {
    /// World position (x, y horizontal, z up).
    pub position: [f32; 3],
    /// MCNR normal, `i8` per axis with 127 = 1.0 (read as `Snorm8x4`); w = 0.
    pub normal: [i8; 4],
    /// Chunk UV in [0, 1]: x along the columns (Y decreasing), y along the
    /// rows (X decreasing). Indexes the MCAL alpha map and the layer textures.
    pub uv: [f32; 2],
}

/// Vertex attributes of [`TerrainVertex`] (locations 0, 1, 2).
pub const VERTEX_ATTRIBUTES: [wgpu::VertexAttribute; 3] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Snorm8x4, 2 => Float32x2];

/// The fan triangles of a cell in draw order, as indices into the cell's
/// five vertices `[tl, tr, bl, br, centre]`.
pub const FAN_ORDER: [(FanTriangle, [usize; 3]); 4] = [
    (FanTriangle::Top, [0, 1, 4]),
    (FanTriangle::Right, [1, 3, 4]),
    (FanTriangle::Bottom, [3, 2, 4]),
    (FanTriangle::Left, [2, 0, 4]),
];

/// Vertices per cell (four triangles).
pub const VERTICES_PER_CELL: usize = 12;

/// An axis-aligned bounding box in world units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// Smallest corner.
    pub min: Vec3,
    /// Largest corner.
    pub max: Vec3,
}

impl Aabb {
    /// The empty box (union identity).
    pub const EMPTY: Aabb = Aabb {
        min: Vec3::splat(f32::INFINITY),
        max: Vec3::splat(f32::NEG_INFINITY),
    };

    /// The smallest box holding both.
    pub fn union(self, o: Aabb) -> Aabb {
        Aabb {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
        }
    }

    /// The box grown to hold `p`.
    pub fn with_point(self, p: Vec3) -> Aabb {
        Aabb {
            min: self.min.min(p),
            max: self.max.max(p),
        }
    }
}

/// The expanded mesh of one MCNK.
#[derive(Debug, Clone)]
pub struct ChunkMesh {
    /// Global MCNK coordinate.
    pub chunk: ChunkCoord,
    /// Triangle list (no index buffer), hole cells left out.
    pub vertices: Vec<TerrainVertex>,
    /// Bounds of all 145 MCVT vertices (holes included: conservative).
    pub bounds: Aabb,
}

impl ChunkMesh {
    /// Triangles in the list.
    pub fn triangles(&self) -> u64 {
        (self.vertices.len() / 3) as u64
    }
}

/// World position and chunk UV of MCVT vertex `i` of `chunk` whose base
/// height is `base`: xy from the ideal grid (so MCNKs sharing an edge get
/// bit-identical edge vertices), z = base + MCVT height.
fn vertex_at(chunk: ChunkCoord, m: &Mcnk, i: usize) -> ([f32; 3], [f32; 2]) {
    let (gx, gy) = mcvt_vertex_grid(chunk, i);
    let (x, y) = grid_to_world(gx, gy);
    let cells = CHUNK_CELLS as f64;
    let uv = [
        ((gx - chunk.x as f64 * cells) / cells) as f32,
        ((gy - chunk.y as f64 * cells) / cells) as f32,
    ];
    (
        [x as f32, y as f32, m.header.position[2] + m.heights[i]],
        uv,
    )
}

/// Expands MCNK `m` (global coordinate `chunk`) into its triangle list.
/// Fails when the stored position does not match the coordinate (beyond
/// [`POSITION_TOLERANCE`]) or a height is not finite.
pub fn expand_mcnk(chunk: ChunkCoord, m: &Mcnk) -> Result<ChunkMesh, PassError> {
    let what = || format!("MCNK ({}, {})", chunk.x, chunk.y);
    let [ox, oy] = chunk.origin();
    let p = m.header.position;
    let off = (p[0] as f64 - ox).abs().max((p[1] as f64 - oy).abs());
    if off.is_nan() || off > POSITION_TOLERANCE {
        return Err(PassError::InvalidInput {
            technique: super::TECHNIQUE,
            what: what(),
            reason: format!(
                "stored position ({}, {}) is {off:.3} units from its grid corner ({ox:.3}, {oy:.3})",
                p[0], p[1]
            ),
        });
    }
    if !p[2].is_finite() || !m.heights.iter().all(|h| h.is_finite()) {
        return Err(PassError::InvalidInput {
            technique: super::TECHNIQUE,
            what: what(),
            reason: "non-finite base height or MCVT height".into(),
        });
    }
    let verts: [([f32; 3], [f32; 2]); MCVT_COUNT] = std::array::from_fn(|i| vertex_at(chunk, m, i));
    let bounds = verts
        .iter()
        .fold(Aabb::EMPTY, |b, (pos, _)| b.with_point(Vec3::from(*pos)));
    let mut vertices = Vec::with_capacity(64 * VERTICES_PER_CELL);
    for row in 0..CHUNK_CELLS {
        for col in 0..CHUNK_CELLS {
            if m.header.is_hole(row, col) {
                continue;
            }
            let cell = cell_indices(row as usize, col as usize);
            for (_, tri) in FAN_ORDER {
                for k in tri {
                    let i = cell[k];
                    let (position, uv) = verts[i];
                    let [nx, ny, nz] = m.normals[i];
                    vertices.push(TerrainVertex {
                        position,
                        normal: [nx, ny, nz, 0],
                        uv,
                    });
                }
            }
        }
    }
    Ok(ChunkMesh {
        chunk,
        vertices,
        bounds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::testutil::cliff_world;
    use sward_scenes::world::coords::{world_to_grid, TileCoord, UNIT_SIZE};
    use sward_scenes::world::height::fan_weights;

    #[test]
    fn every_vertex_sits_on_the_height_reference() {
        let world = cliff_world();
        let mut checked = 0;
        for (chunk, m) in world.mcnks() {
            let mesh = expand_mcnk(chunk, m).expect("valid MCNK");
            for v in &mesh.vertices {
                let (gx, gy) = world_to_grid(v.position[0] as f64, v.position[1] as f64);
                // Vertices sit on the half-cell lattice (corners and centres).
                let (sx, sy) = ((gx * 2.0).round() / 2.0, (gy * 2.0).round() / 2.0);
                assert!((gx - sx).abs() * UNIT_SIZE < 1e-3 && (gy - sy).abs() * UNIT_SIZE < 1e-3);
                let (lx, ly) = (sx - chunk.x as f64 * 8.0, sy - chunk.y as f64 * 8.0);
                // Exactly the MCNK's reference at the lattice point...
                let exact = m.height_local(lx, ly);
                assert!(
                    (v.position[2] - exact).abs() <= 1e-5 * exact.abs().max(1.0),
                    "MCNK {chunk:?} ({lx}, {ly}): z {} vs height_local {exact}",
                    v.position[2]
                );
                // ...and the world query at the vertex's xy, which resolves
                // shared edges to the neighbour MCNK and measures from the
                // f32 stored positions (rounding up to ~2.5e-4 units, times
                // the slope of the cliff: hence the looser bound).
                let (x, y) = grid_to_world(sx, sy);
                let reference = world.height_at(x, y).expect("resident");
                assert!(
                    (v.position[2] - reference).abs() <= 2e-3,
                    "MCNK {chunk:?}: z {} vs height_at {reference}",
                    v.position[2]
                );
                assert!(
                    (v.uv[0] as f64 - lx / 8.0).abs() < 1e-6
                        && (v.uv[1] as f64 - ly / 8.0).abs() < 1e-6
                );
                checked += 1;
            }
        }
        assert_eq!(checked, (256 * 64 - 8) * VERTICES_PER_CELL);
    }

    #[test]
    fn triangles_follow_the_fan_order_and_skip_holes() {
        let world = cliff_world();
        let chunk = ChunkCoord::from_tile(TileCoord::new(30, 40), 3, 5);
        let m = world.mcnk(chunk).expect("resident");
        let mesh = expand_mcnk(chunk, m).expect("valid MCNK");
        assert_eq!(mesh.triangles(), 4 * (64 - 8));
        let mut cells = Vec::new();
        for (t, tri) in mesh.vertices.chunks_exact(3).enumerate() {
            let centroid = tri.iter().fold([0.0f64; 2], |a, v| {
                let (gx, gy) = world_to_grid(v.position[0] as f64, v.position[1] as f64);
                [a[0] + gx / 3.0, a[1] + gy / 3.0]
            });
            let (lx, ly) = (
                centroid[0] - chunk.x as f64 * 8.0,
                centroid[1] - chunk.y as f64 * 8.0,
            );
            let (col, row) = (lx.floor() as u32, ly.floor() as u32);
            assert!(
                !m.header.is_hole(row, col),
                "triangle {t} lies in hole cell ({row}, {col})"
            );
            let (region, _) = fan_weights((lx - col as f64) as f32, (ly - row as f64) as f32);
            assert_eq!(
                region,
                FAN_ORDER[t % 4].0,
                "triangle {t} of cell ({row}, {col})"
            );
            // Same winding everywhere: clockwise seen from +Z.
            let p: Vec<_> = tri.iter().map(|v| Vec3::from(v.position)).collect();
            assert!(
                (p[1] - p[0]).cross(p[2] - p[0]).z < 0.0,
                "triangle {t} winds the other way"
            );
            if t % 4 == 0 {
                cells.push(row * 8 + col);
            }
        }
        let mut sorted = cells.clone();
        sorted.sort_unstable();
        assert_eq!(cells, sorted, "cells are emitted in row-major order");
        assert_eq!(cells.len(), 56);
    }

    #[test]
    fn bounds_hold_every_vertex_and_bad_positions_are_rejected() {
        let world = cliff_world();
        let (chunk, m) = world.mcnks().nth(37).expect("MCNK 37");
        let mesh = expand_mcnk(chunk, m).expect("valid");
        for v in &mesh.vertices {
            let p = Vec3::from(v.position);
            assert!(p.cmpge(mesh.bounds.min).all() && p.cmple(mesh.bounds.max).all());
        }
        let mut bad = m.clone();
        bad.header.position[0] += 3.0;
        let err = expand_mcnk(chunk, &bad).unwrap_err().to_string();
        assert!(
            err.contains(&format!("MCNK ({}, {})", chunk.x, chunk.y)),
            "{err}"
        );
        bad = m.clone();
        bad.heights[17] = f32::NAN;
        assert!(expand_mcnk(chunk, &bad).is_err());
    }
}
