//! GPU culling of clipmap pieces (`clipmap_cull.wgsl`): the pieces of every
//! level except its trims are kept in a storage buffer relative to the
//! level's min corner (`layout::level_frame`, 16 bytes each, uploaded again
//! only when a ring block switches resolution); each frame the CPU writes
//! the levels' corners and their trims into the uniforms and resets one
//! indexed indirect draw per mesh kind (ten, instance count 0). A compute
//! pass places each piece at its level's corner, tests its box against the
//! frustum and its horizontal distance against the fog end, and appends the
//! visible ones to their kind's instance range; the draw pass issues one
//! multi-draw-indirect of the shared meshes. The triangle and instance
//! counters come from a lagged readback of the per-kind instance counts.
//!
//! [`parts`] and [`Part::visible`] are the CPU reference of the shader's test.

use glam::{Vec2, Vec3};
use sward_engine::Frustum;

use super::layout::{vertex_world, Piece, PieceKind, MAX_LEVELS};
use super::mesh::ClipmapMeshes;

/// Mesh kinds (one indirect draw each).
pub const KINDS: usize = PieceKind::ALL.len();
/// Instances reserved per kind (more than any level set can produce: at
/// most 16 blocks per level, each up to 4 x 4 sub-blocks).
pub const INSTANCES_PER_KIND: u32 = MAX_LEVELS * 16 * 16;
/// Most pieces one level lists without its trims: 12 ring blocks, 4
/// fix-ups, its seam and up to 4 edge seams per half-resolution block (the
/// finest level: 16 blocks, 8 fix-ups, the centre and its seam).
pub const MAX_FRAME_PIECES_PER_LEVEL: u32 = 12 + 4 + 1 + 4 * 12;

/// Uniforms of the cull pass (WGSL `CullUniforms`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CullUniforms {
    /// Frustum planes (left, right, bottom, top, near, far).
    pub frustum: [[f32; 4]; 6],
    /// Eye (xyz) and cull distance (w).
    pub eye: [f32; 4],
    /// Lowest and highest height of any level.
    pub z_range: [f32; 2],
    /// Pieces in the storage buffer (relative to their level's corner).
    pub count: u32,
    /// Trims in `trims`.
    pub trim_count: u32,
    /// Per level: its min corner in level units (x, y).
    pub origins: [[i32; 4]; MAX_LEVELS as usize],
    /// The levels' trims, placed ([`piece_gpu`]).
    pub trims: [[i32; 4]; 2 * MAX_LEVELS as usize],
}

impl CullUniforms {
    /// Uniforms for `count` stored pieces of levels whose min corners are
    /// `origins` plus `trims`, seen through `frustum` from `eye`, culled
    /// beyond `distance` (horizontal), heights within `z_range`. Levels and
    /// trims beyond [`MAX_LEVELS`] are dropped (a configuration never has
    /// more).
    pub fn new(
        frustum: &Frustum,
        eye: Vec3,
        distance: f32,
        z_range: [f32; 2],
        count: u32,
        origins: impl IntoIterator<Item = [i64; 2]>,
        trims: &[Piece],
    ) -> Self {
        let mut u = CullUniforms {
            frustum: frustum.planes.map(|p| p.to_array()),
            eye: [eye.x, eye.y, eye.z, distance],
            z_range,
            count,
            trim_count: trims.len().min(2 * MAX_LEVELS as usize) as u32,
            origins: [[0; 4]; MAX_LEVELS as usize],
            trims: [[0; 4]; 2 * MAX_LEVELS as usize],
        };
        for (slot, o) in u.origins.iter_mut().zip(origins) {
            *slot = [o[0] as i32, o[1] as i32, 0, 0];
        }
        for (slot, p) in u.trims.iter_mut().zip(trims) {
            *slot = piece_gpu(p);
        }
        u
    }
}

/// Per mesh kind (WGSL `CullKind`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CullKind {
    /// Quads along `I` and `J` of the kind's mesh (a sub-block for the split
    /// kinds).
    pub quads: [i32; 2],
    /// First instance of the kind's range.
    pub first_instance: u32,
    /// Sub-blocks per side ([`PieceKind::split`]; 1: the piece whole).
    pub split: u32,
}

/// wgpu's `DrawIndexedIndirectArgs` (WGSL `DrawArgs`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrawArgs {
    /// Indices per instance.
    pub index_count: u32,
    /// Instances (the cull counts them).
    pub instance_count: u32,
    /// First index in the shared index buffer.
    pub first_index: u32,
    /// Added to every index.
    pub base_vertex: i32,
    /// First instance (the kind's range).
    pub first_instance: u32,
}

/// The kind table for block size `block`.
pub fn kinds(block: u32) -> [CullKind; KINDS] {
    PieceKind::ALL.map(|k| {
        let [w, h] = k.mesh_quads(i64::from(block));
        CullKind {
            quads: [w as i32, h as i32],
            first_instance: kind_index(k) as u32 * INSTANCES_PER_KIND,
            split: k.split(i64::from(block)) as u32,
        }
    })
}

/// Position of `kind` in [`PieceKind::ALL`].
pub fn kind_index(kind: PieceKind) -> usize {
    PieceKind::ALL.iter().position(|k| *k == kind).unwrap_or(0)
}

/// The per-kind draws with no instance (reset every frame).
pub fn empty_args(meshes: &ClipmapMeshes) -> [DrawArgs; KINDS] {
    PieceKind::ALL.map(|k| {
        let r = meshes.range(k);
        DrawArgs {
            index_count: r.indices.end - r.indices.start,
            instance_count: 0,
            first_index: r.indices.start,
            base_vertex: r.base_vertex,
            first_instance: kind_index(k) as u32 * INSTANCES_PER_KIND,
        }
    })
}

/// A piece as the shader reads it: origin, level, kind (bits 0-7) and
/// stitched edges (bits 8-11).
pub fn piece_gpu(p: &Piece) -> [i32; 4] {
    [
        p.origin[0] as i32,
        p.origin[1] as i32,
        p.level as i32,
        kind_index(p.kind) as i32 | (i32::from(p.stitch) << 8),
    ]
}

/// The fourth word of a drawn instance (written by the cull, read by the
/// vertex shader): stitched edges (bits 0-3), the piece's quads along `I`
/// (bits 4-13) and along `J` (bits 14-23).
pub fn instance_word(stitch: u8, quads: [i64; 2]) -> i32 {
    i32::from(stitch & 0xf) | ((quads[0] as i32) << 4) | ((quads[1] as i32) << 14)
}

/// The box of `quads` level quads of level `level` from `origin`: xy from
/// that extent, z `z_range`.
fn box_of(level: u32, origin: [i64; 2], quads: [i64; 2], z_range: [f32; 2]) -> (Vec3, Vec3) {
    let (x0, y0) = vertex_world(level, origin[0], origin[1]);
    let (x1, y1) = vertex_world(level, origin[0] + quads[0], origin[1] + quads[1]);
    (
        Vec3::new(x0.min(x1) as f32, y0.min(y1) as f32, z_range[0]),
        Vec3::new(x0.max(x1) as f32, y0.max(y1) as f32, z_range[1]),
    )
}

/// The box of the whole piece `p`: xy from its extent, z `z_range`.
pub fn piece_box(block: u32, z_range: [f32; 2], p: &Piece) -> (Vec3, Vec3) {
    box_of(p.level, p.origin, p.kind.quads(i64::from(block)), z_range)
}

/// What one instance of the cull draws: a piece whole, or one sub-block of
/// a split block ([`PieceKind::split`]), with the piece's stitched edges
/// that lie on the sub-block's own edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    /// The piece's kind.
    pub kind: PieceKind,
    /// Level.
    pub level: u32,
    /// Min corner in level units.
    pub origin: [i64; 2],
    /// Stitched edges ([`super::layout::stitch`] bits).
    pub stitch: u8,
    /// Quads along `I` and `J`.
    pub quads: [i64; 2],
}

impl Part {
    /// The instance the cull writes for this part (origin, level, word).
    pub fn instance(&self) -> [i32; 4] {
        [
            self.origin[0] as i32,
            self.origin[1] as i32,
            self.level as i32,
            instance_word(self.stitch, self.quads),
        ]
    }

    /// The box the cull tests: xy from the part's extent, z `z_range`.
    pub fn bounds(&self, z_range: [f32; 2]) -> (Vec3, Vec3) {
        box_of(self.level, self.origin, self.quads, z_range)
    }

    /// CPU reference of the shader's test: the box touches the frustum and
    /// its nearest point is within `distance` of the eye horizontally.
    pub fn visible(&self, z_range: [f32; 2], frustum: &Frustum, eye: Vec3, distance: f32) -> bool {
        let (min, max) = self.bounds(z_range);
        frustum.aabb_visible(min, max) && box_distance(min, max, eye) <= distance
    }

    /// How far the part is from flipping the test (world units, for tests
    /// that skip f32 ties): the smaller of the frustum and distance margins.
    pub fn margin(&self, z_range: [f32; 2], frustum: &Frustum, eye: Vec3, distance: f32) -> f32 {
        let (min, max) = self.bounds(z_range);
        frustum
            .aabb_margin(min, max)
            .abs()
            .min((box_distance(min, max, eye) - distance).abs())
    }
}

/// The parts the cull considers for `p`, in the shader's order (`I` outer):
/// `n x n` sub-blocks for a split kind, else the piece whole.
pub fn parts(block: u32, p: &Piece) -> Vec<Part> {
    let t = i64::from(block);
    let n = p.kind.split(t);
    let quads = p.kind.mesh_quads(t);
    let mut out = Vec::with_capacity((n * n) as usize);
    for a in 0..n {
        for b in 0..n {
            let mut stitch = p.stitch;
            if a != 0 {
                stitch &= !super::layout::stitch::I_MIN;
            }
            if a != n - 1 {
                stitch &= !super::layout::stitch::I_MAX;
            }
            if b != 0 {
                stitch &= !super::layout::stitch::J_MIN;
            }
            if b != n - 1 {
                stitch &= !super::layout::stitch::J_MAX;
            }
            out.push(Part {
                kind: p.kind,
                level: p.level,
                origin: [p.origin[0] + a * quads[0], p.origin[1] + b * quads[1]],
                stitch,
                quads,
            });
        }
    }
    out
}

/// Horizontal distance from `eye` to the nearest point of `p`'s box: a
/// lower bound of the 3D distance to any point of the piece.
pub fn piece_distance(block: u32, p: &Piece, eye: Vec3) -> f32 {
    let (min, max) = piece_box(block, [0.0, 0.0], p);
    box_distance(min, max, eye)
}

/// Horizontal distance from `eye` to the nearest point of the box.
fn box_distance(min: Vec3, max: Vec3, eye: Vec3) -> f32 {
    let e = eye.truncate();
    Vec2::distance(e.clamp(min.truncate(), max.truncate()), e)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind's draw points at its mesh and its own instance range, and
    /// the ranges do not overlap.
    #[test]
    fn draws_point_at_their_meshes_and_ranges() {
        let meshes = ClipmapMeshes::new(8);
        let args = empty_args(&meshes);
        let table = kinds(8);
        for (k, kind) in PieceKind::ALL.iter().enumerate() {
            let r = meshes.range(*kind);
            assert_eq!(args[k].first_index, r.indices.start);
            assert_eq!(u64::from(args[k].index_count) / 3, r.triangles());
            assert_eq!(args[k].instance_count, 0);
            assert_eq!(args[k].first_instance, table[k].first_instance);
            assert_eq!(table[k].quads[0] as i64, kind.mesh_quads(8)[0]);
            assert_eq!(i64::from(table[k].split), kind.split(8));
        }
        for w in table.windows(2) {
            assert_eq!(
                w[1].first_instance - w[0].first_instance,
                INSTANCES_PER_KIND
            );
        }
    }
    #[test]
    fn parts_tile_their_piece_and_keep_only_outer_stitches() {
        use crate::terrain::clipmap::layout::stitch;
        for t in [8u32, 16, 32, 10] {
            let ti = i64::from(t);
            for kind in PieceKind::ALL {
                let p = Piece {
                    kind,
                    level: 3,
                    origin: [40, -6],
                    stitch: stitch::I_MIN | stitch::J_MAX,
                };
                let parts = parts(t, &p);
                let n = kind.split(ti);
                assert_eq!(parts.len() as i64, n * n, "{kind:?} t {t}");
                let [w, h] = kind.quads(ti);
                if n > 1 {
                    // Sub-block offsets keep the triangulation: multiples of 4.
                    assert_eq!((w / n) % 4, 0, "{kind:?} t {t}");
                }
                // Together the parts cover the piece's quads exactly once.
                let mut covered = std::collections::HashSet::new();
                for q in &parts {
                    assert_eq!(q.level, 3);
                    for x in q.origin[0]..q.origin[0] + q.quads[0].max(1) {
                        for y in q.origin[1]..q.origin[1] + q.quads[1].max(1) {
                            assert!(covered.insert((x, y)), "{kind:?}: ({x}, {y}) twice");
                        }
                    }
                    // A stitch survives only on an edge of the piece.
                    if q.stitch & stitch::I_MIN != 0 {
                        assert_eq!(q.origin[0], p.origin[0]);
                    }
                    if q.stitch & stitch::J_MAX != 0 {
                        assert_eq!(q.origin[1] + q.quads[1], p.origin[1] + h);
                    }
                    assert_eq!(q.stitch & (stitch::I_MAX | stitch::J_MIN), 0);
                }
                assert_eq!(covered.len() as i64, w.max(1) * h.max(1), "{kind:?} t {t}");
                let stitched_min = parts
                    .iter()
                    .filter(|q| q.stitch & stitch::I_MIN != 0)
                    .count();
                assert_eq!(
                    stitched_min as i64, n,
                    "{kind:?}: every part on the I_MIN edge"
                );
            }
        }
    }

    #[test]
    fn uniforms_match_wgsl() {
        let (_, module) =
            sward_wgsl::compose_and_validate(sward_wgsl::modules::CLIPMAP_CULL).unwrap();
        sward_wgsl::check_layout!(
            &module,
            "CullUniforms",
            CullUniforms {
                frustum,
                eye,
                z_range,
                count,
                trim_count,
                origins,
                trims
            }
        )
        .unwrap();
    }
}
