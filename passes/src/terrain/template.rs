//! The immutable terrain template of the GPU terrain tiers: the 64 diamond
//! fans of one MCNK as 320 vertices (5 per cell: tl, tr, bl, br, centre) and
//! 768 indices (4 triangles per cell in the static-chunks fan order
//! [`FAN_ORDER`]). A vertex is one `u32`: its texel in the MCNK's atlas tile
//! and its cell, nothing else; the vertex shader (`terrain_atlas.wgsl`)
//! builds the world position and normal from the height/normal atlas.
//!
//! [`expand_template`] is the CPU mirror of that vertex stage; the tests show
//! that it reproduces `mesh::expand_mcnk` (same triangles, same order, same
//! positions, normals and UVs; hole cells collapsed instead of left out).

use sward_scenes::world::coords::ChunkCoord;
use sward_scenes::world::height::cell_indices;
use sward_scenes::world::hole_bit;

use super::mesh::{TerrainVertex, FAN_ORDER, VERTICES_PER_CELL};
use crate::atlas::cpu::{atlas_lattice_world, HeightTile};
use crate::atlas::layout::{texel_of_mcvt, TILE_TEXELS, TILE_W};

/// Cells per MCNK.
pub const CELLS: u32 = 64;
/// Template vertices (5 per cell).
pub const TEMPLATE_VERTICES: u32 = CELLS * 5;
/// Template indices (4 triangles per cell).
pub const TEMPLATE_INDICES: u32 = CELLS * VERTICES_PER_CELL as u32;
/// Triangles of one template instance (holes included).
pub const TEMPLATE_TRIANGLES: u32 = TEMPLATE_INDICES / 3;

/// One template vertex: texel column (bits 0..8), texel row (8..16) and cell
/// `row * 8 + col` (16..24). Vertex format `Uint32`.
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TemplateVertex(pub u32);

impl TemplateVertex {
    /// Packs texel `(col, row)` of a tile and `cell`.
    pub fn new(texel_col: u32, texel_row: u32, cell: u32) -> Self {
        TemplateVertex(texel_col | texel_row << 8 | cell << 16)
    }

    /// Texel column in the tile (0..17).
    pub fn texel_col(self) -> u32 {
        self.0 & 0xff
    }

    /// Texel row in the tile (0..9).
    pub fn texel_row(self) -> u32 {
        (self.0 >> 8) & 0xff
    }

    /// Cell index `row * 8 + col`.
    pub fn cell(self) -> u32 {
        (self.0 >> 16) & 0xff
    }

    /// Local lattice position in half-cells (x along columns, y along rows).
    pub fn lattice(self) -> [u32; 2] {
        let (c, r) = (self.texel_col(), self.texel_row());
        if c >= 9 {
            [2 * (c - 9) + 1, 2 * r + 1]
        } else {
            [2 * c, 2 * r]
        }
    }
}

/// The template: vertices and `u16` indices.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    /// 320 vertices, 5 per cell in row-major cell order.
    pub vertices: Vec<TemplateVertex>,
    /// 768 indices, 12 per cell in [`FAN_ORDER`].
    pub indices: Vec<u16>,
}

/// Builds the template.
pub fn build_template() -> Template {
    let mut vertices = Vec::with_capacity(TEMPLATE_VERTICES as usize);
    let mut indices = Vec::with_capacity(TEMPLATE_INDICES as usize);
    for row in 0..8usize {
        for col in 0..8usize {
            let cell = (row * 8 + col) as u32;
            let base = vertices.len() as u16;
            // [tl, tr, bl, br, centre] as MCVT indices = tile texels.
            for i in cell_indices(row, col) {
                let t = texel_of_mcvt(i) as u32;
                vertices.push(TemplateVertex::new(t % TILE_W, t / TILE_W, cell));
            }
            for (_, tri) in FAN_ORDER {
                indices.extend(tri.map(|k| base + k as u16));
            }
        }
    }
    Template { vertices, indices }
}

/// CPU mirror of the vertex stage for one MCNK: the template's triangles with
/// world position, normal and UV; `None` for vertices of hole cells (the
/// shader moves those to `HOLE_CLIP`, outside the clip volume).
pub fn expand_template(
    template: &Template,
    chunk: ChunkCoord,
    base_z: f32,
    holes: u16,
    heights: &HeightTile,
    normals: &[u8; TILE_TEXELS * 4],
) -> Vec<Option<TerrainVertex>> {
    template
        .indices
        .iter()
        .map(|&i| {
            let v = template.vertices[i as usize];
            let cell = v.cell();
            if hole_bit(holes, cell / 8, cell % 8) {
                return None;
            }
            let lattice = v.lattice();
            let texel = (v.texel_row() * TILE_W + v.texel_col()) as usize;
            let [x, y] =
                atlas_lattice_world([chunk.x * 16 + lattice[0], chunk.y * 16 + lattice[1]]);
            let n = &normals[texel * 4..texel * 4 + 4];
            Some(TerrainVertex {
                position: [x, y, base_z + heights[texel]],
                normal: [n[0] as i8, n[1] as i8, n[2] as i8, 0],
                uv: [lattice[0] as f32 / 16.0, lattice[1] as f32 / 16.0],
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atlas::layout::{height_tile, normal_tile};
    use crate::terrain::mesh::expand_mcnk;
    use crate::terrain::testutil::cliff_world;

    #[test]
    fn template_shape_and_packing() {
        let t = build_template();
        assert_eq!(t.vertices.len() as u32, TEMPLATE_VERTICES);
        assert_eq!(t.indices.len() as u32, TEMPLATE_INDICES);
        for (k, v) in t.vertices.iter().enumerate() {
            assert_eq!(v.cell(), k as u32 / 5);
            assert!(v.texel_col() < 17 && v.texel_row() < 9);
            let [lx, ly] = v.lattice();
            assert!(lx <= 16 && ly <= 16);
        }
        // The centre of cell (2, 5) is inner texel (9 + 5, 2) at half-cells (11, 5).
        let m = t.vertices[(2 * 8 + 5) * 5 + 4];
        assert_eq!(
            (m.texel_col(), m.texel_row(), m.lattice()),
            (14, 2, [11, 5])
        );
    }

    /// The template expanded on the CPU gives exactly the static-chunks
    /// triangle list (positions to one f32 ulp, normals and UVs equal), with
    /// the hole cells' triangles collapsed instead of left out.
    #[test]
    fn template_reproduces_the_static_mesh() {
        let world = cliff_world();
        let template = build_template();
        let mut max_ulps = 0u32;
        let mut holed = 0;
        for (chunk, m) in world.mcnks() {
            let mesh = expand_mcnk(chunk, m).expect("valid MCNK");
            let got = expand_template(
                &template,
                chunk,
                m.header.position[2],
                m.header.holes_low_res,
                &height_tile(m),
                &normal_tile(m),
            );
            let kept: Vec<TerrainVertex> = got.iter().flatten().copied().collect();
            assert_eq!(kept.len(), mesh.vertices.len(), "MCNK {chunk:?}");
            // Collapse is per whole triangle (all of a cell's vertices).
            for tri in got.chunks_exact(3) {
                assert!(tri.iter().all(Option::is_some) || tri.iter().all(Option::is_none));
            }
            holed += got.iter().filter(|v| v.is_none()).count() / 3;
            for (a, b) in kept.iter().zip(&mesh.vertices) {
                assert_eq!(a.normal, b.normal);
                assert_eq!(a.uv, b.uv);
                assert_eq!(a.position[2], b.position[2]);
                for k in 0..2 {
                    let ulp = b.position[k].abs().max(1.0) * f32::EPSILON;
                    let d = ((a.position[k] - b.position[k]).abs() / ulp).ceil() as u32;
                    max_ulps = max_ulps.max(d);
                }
            }
        }
        assert!(max_ulps <= 1, "positions differ by {max_ulps} ulp");
        assert_eq!(
            holed,
            8 * 4,
            "the two hole blocks (8 cells) collapse 32 triangles"
        );
    }
}
