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
//! [`piece_visible`] is the CPU reference of the shader's test.

use glam::{Vec2, Vec3};
use sward_engine::Frustum;

use super::layout::{vertex_world, Piece, PieceKind, MAX_LEVELS};
use super::mesh::ClipmapMeshes;

/// Mesh kinds (one indirect draw each).
pub const KINDS: usize = PieceKind::ALL.len();
/// Instances reserved per kind (more than any level set can produce).
pub const INSTANCES_PER_KIND: u32 = MAX_LEVELS * 28;
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
    /// Quads along `I` and `J`.
    pub quads: [i32; 2],
    /// First instance of the kind's range.
    pub first_instance: u32,
    /// Padding.
    pub pad: u32,
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
        let [w, h] = k.quads(i64::from(block));
        CullKind {
            quads: [w as i32, h as i32],
            first_instance: kind_index(k) as u32 * INSTANCES_PER_KIND,
            pad: 0,
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

/// The box the cull tests for `p`: xy from its extent, z `z_range`.
pub fn piece_box(block: u32, z_range: [f32; 2], p: &Piece) -> (Vec3, Vec3) {
    let [w, h] = p.kind.quads(i64::from(block));
    let (x0, y0) = vertex_world(p.level, p.origin[0], p.origin[1]);
    let (x1, y1) = vertex_world(p.level, p.origin[0] + w, p.origin[1] + h);
    (
        Vec3::new(x0.min(x1) as f32, y0.min(y1) as f32, z_range[0]),
        Vec3::new(x0.max(x1) as f32, y0.max(y1) as f32, z_range[1]),
    )
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

/// CPU reference of the shader's test: the box touches the frustum and its
/// nearest point is within `distance` of the eye horizontally.
pub fn piece_visible(
    block: u32,
    z_range: [f32; 2],
    p: &Piece,
    frustum: &Frustum,
    eye: Vec3,
    distance: f32,
) -> bool {
    let (min, max) = piece_box(block, z_range, p);
    frustum.aabb_visible(min, max) && box_distance(min, max, eye) <= distance
}

/// How far `p` is from flipping the test (world units, for tests that skip
/// f32 ties): the smaller of the frustum margin and the distance margin.
pub fn piece_margin(
    block: u32,
    z_range: [f32; 2],
    p: &Piece,
    frustum: &Frustum,
    eye: Vec3,
    distance: f32,
) -> f32 {
    let (min, max) = piece_box(block, z_range, p);
    frustum
        .aabb_margin(min, max)
        .abs()
        .min((box_distance(min, max, eye) - distance).abs())
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
            assert_eq!(table[k].quads[0] as i64, kind.quads(8)[0]);
        }
        for w in table.windows(2) {
            assert_eq!(
                w[1].first_instance - w[0].first_instance,
                INSTANCES_PER_KIND
            );
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
