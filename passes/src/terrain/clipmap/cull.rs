//! GPU culling of clipmap pieces (`clipmap_cull.wgsl`): the pieces of every
//! level except its trims are kept in a storage buffer relative to the
//! level's min corner (`layout::level_frame`, 16 bytes each, uploaded again
//! only when a ring block switches resolution); each frame the CPU writes
//! the levels' corners and their trims into the uniforms and resets one
//! indexed indirect draw per mesh kind (ten, instance count 0). A compute
//! pass places each piece at its level's corner, tests the box of each of
//! its parts against the frustum and its horizontal distance against the fog
//! end, and appends the visible ones to their kind's instance range; the
//! draw pass issues one multi-draw-indirect of the shared meshes. The
//! triangle and instance counters come from a lagged readback of the
//! per-kind instance counts.
//!
//! A part's box spans the heights it can be drawn at: the lowest and highest
//! texel of the height tiles under it ([`ZTiles`]: 4 x 4 level quads each,
//! computed on the GPU, in the same pass, for the levels the fill changed),
//! of its own level and of the next coarser one (its geomorph target).
//!
//! With `occlusion=on` (or `auto`, while it pays) the cull runs in two
//! phases (`phase_one`, `phase_two`): parts in view that last frame's depth
//! pyramid hides are set aside instead of drawn, the pyramid is rebuilt from
//! what was drawn, and the set-aside parts are tested again against it; the
//! visible ones are drawn by a second pass from a second set of draws
//! ([`SECOND`], [`reset_args`]).
//!
//! [`parts`], [`Part::visible`], [`Part::occluded`] and [`ZTiles`] are the
//! CPU reference of the shader's tests.

use glam::{Vec2, Vec3};
use sward_engine::Frustum;

use super::layout::{vertex_world, ClipmapConfig, Piece, PieceKind, MAX_LEVELS};
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
    /// Pieces in the storage buffer (relative to their level's corner).
    pub count: u32,
    /// Trims in `trims`.
    pub trim_count: u32,
    /// Levels in use.
    pub levels: u32,
    /// Height tiles per level side ([`ZTiles`]).
    pub tiles: u32,
    /// Bit `l`: the fill changed level `l`'s texels this frame (its height
    /// tiles are computed again).
    pub update: u32,
    /// First instance of phase two's ranges ([`SECOND`], occlusion).
    pub second: u32,
    /// Padding.
    pub _pad1: u32,
    /// Padding.
    pub _pad2: u32,
    /// Per level: its min corner in level units (x, y).
    pub origins: [[i32; 4]; MAX_LEVELS as usize],
    /// The levels' trims, placed ([`piece_gpu`]).
    pub trims: [[i32; 4]; 2 * MAX_LEVELS as usize],
    /// Occlusion: this frame's view-projection.
    pub view_proj: [[f32; 4]; 4],
    /// Occlusion: target size in pixels (x, y), pyramid levels (z), 1 when
    /// the pyramid holds last frame's depth (w; phase one hides nothing
    /// otherwise).
    pub hiz: [f32; 4],
    /// Per level: its rectangle in the refinement index
    /// ([`super::refine::RefineGpu::rects`]).
    pub refine: [[i32; 4]; MAX_LEVELS as usize],
}

impl CullUniforms {
    /// Uniforms for `count` stored pieces of the levels of `cfg` whose min
    /// corners are `origins` plus `trims`, seen through `frustum` from `eye`,
    /// culled beyond `distance` (horizontal); the height tiles of the levels
    /// in the bit mask `update` are computed again. Levels and trims beyond
    /// [`MAX_LEVELS`] are dropped (a configuration never has more).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        frustum: &Frustum,
        eye: Vec3,
        distance: f32,
        cfg: &ClipmapConfig,
        update: u32,
        count: u32,
        origins: impl IntoIterator<Item = [i64; 2]>,
        trims: &[Piece],
    ) -> Self {
        let mut u = CullUniforms {
            frustum: frustum.planes.map(|p| p.to_array()),
            eye: [eye.x, eye.y, eye.z, distance],
            count,
            trim_count: trims.len().min(2 * MAX_LEVELS as usize) as u32,
            levels: cfg.levels,
            tiles: ZTiles::side(cfg) as u32,
            update,
            second: SECOND,
            _pad1: 0,
            _pad2: 0,
            origins: [[0; 4]; MAX_LEVELS as usize],
            trims: [[0; 4]; 2 * MAX_LEVELS as usize],
            view_proj: [[0.0; 4]; 4],
            hiz: [0.0; 4],
            refine: [[0; 4]; MAX_LEVELS as usize],
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

/// First instance of phase two's instance ranges (after phase one's, one
/// range per kind each).
pub const SECOND: u32 = KINDS as u32 * INSTANCES_PER_KIND;

/// Entries of the args buffer: phase one's draws (one per kind), phase
/// two's, and two counters (instance counts of draws that are never issued:
/// the parts phase one rejected, the parts phase two found hidden).
pub const ARGS: usize = 2 * KINDS + 2;

/// Index in the args buffer of the rejected-parts counter.
pub const REJECTED: usize = 2 * KINDS;

/// Index in the args buffer of the still-hidden-parts counter.
pub const HIDDEN: usize = 2 * KINDS + 1;

/// Most parts phase one can reject (every instance range full).
pub const MAX_REJECTED: u64 = KINDS as u64 * INSTANCES_PER_KIND as u64;

/// Per mesh kind (WGSL `CullKind`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CullKind {
    /// Quads along `I` and `J` of the kind's mesh (a sub-block for the split
    /// kinds).
    pub quads: [i32; 2],
    /// First instance of the kind's range.
    pub first_instance: u32,
    /// Sub-blocks per side ([`PieceKind::split`]; 1: the piece whole) in
    /// bits 0-7; the index of the kind that draws its parts refined in bits
    /// 8-15 (`0xff`: none, [`PieceKind::refined`]); bit 16: a seam.
    pub split: u32,
}

/// Instance level field flag: a refined part (its mesh on the finer
/// lattice; WGSL `CLIP_INST_REFINED`).
pub const INST_REFINED: i32 = 0x100;
/// Instance level field flag: a level's seam (WGSL `CLIP_INST_SEAM`).
pub const INST_SEAM: i32 = 0x200;

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
        let refined = k.refined().map_or(0xff, |r| kind_index(r) as u32);
        CullKind {
            quads: [w as i32, h as i32],
            first_instance: kind_index(k) as u32 * INSTANCES_PER_KIND,
            split: k.split(i64::from(block)) as u32
                | refined << 8
                | u32::from(k == PieceKind::Seam) << 16,
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

/// The whole args buffer reset ([`ARGS`] entries): phase one's draws, phase
/// two's (their ranges from [`SECOND`]) and the zeroed counters. With
/// `multi` off every first instance is 0 (the draw binds its range).
pub fn reset_args(meshes: &ClipmapMeshes, multi: bool) -> Vec<DrawArgs> {
    let one = empty_args(meshes);
    let two = one.map(|a| DrawArgs {
        first_instance: a.first_instance + SECOND,
        ..a
    });
    let mut out: Vec<DrawArgs> = one.into_iter().chain(two).collect();
    out.extend(
        [DrawArgs {
            index_count: 0,
            instance_count: 0,
            first_index: 0,
            base_vertex: 0,
            first_instance: 0,
        }; 2],
    );
    if !multi {
        for a in &mut out {
            a.first_instance = 0;
        }
    }
    out
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
    /// The instance the cull writes for this part (origin, level and its
    /// flags, word).
    pub fn instance(&self) -> [i32; 4] {
        let mut level = self.level as i32;
        if self.kind.is_refined() {
            level |= INST_REFINED;
        }
        if self.kind == PieceKind::Seam {
            level |= INST_SEAM;
        }
        [
            self.origin[0] as i32,
            self.origin[1] as i32,
            level,
            instance_word(self.stitch, self.quads),
        ]
    }

    /// The part as the cull draws it under the refinement `mask`: a part of
    /// a refinable kind on a level >= 1 with no stitched edge that holds a
    /// quad of a refined tile becomes its kind's refined variant, with the
    /// largest slack of those tiles (its height range grows by it); any
    /// other part stays as it is (slack 0).
    pub fn refine(&self, mask: &super::refine::RefineMask) -> (Part, f32) {
        let refined = self
            .kind
            .refined()
            .filter(|_| self.level > 0 && self.stitch == 0);
        let lo = self.origin;
        let hi = [lo[0] + self.quads[0], lo[1] + self.quads[1]];
        match refined.and_then(|k| mask.rect(self.level, lo, hi).map(|s| (k, s))) {
            Some((kind, slack)) => (Part { kind, ..*self }, slack),
            None => (*self, 0.0),
        }
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

    /// CPU reference of the occlusion test of `phase_one` / `phase_two`:
    /// the part's box (z `z_range`) against the pyramid `levels` of a
    /// `pixels` target seen with `view_proj`.
    pub fn occluded(
        &self,
        z_range: [f32; 2],
        levels: &[crate::hiz::Level],
        pixels: [u32; 2],
        view_proj: glam::Mat4,
    ) -> bool {
        let (min, max) = self.bounds(z_range);
        crate::hiz::box_occluded(levels, pixels, view_proj, min, max)
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

/// Level quads per side of a height tile.
pub const ZTILE: i64 = 4;

/// Height tiles of every level (the shader's `ztiles`): per level, per
/// 4 x 4 quads of level vertices `4A ..= 4A + 4` by `4B ..= 4B + 4`, the
/// lowest and highest texel height, kept at slot `(A mod T, B mod T)`
/// (`T = N / 4` tiles a side, `N` the texels a side: a level's window of
/// `F + 1 < N` vertices lies in `T` consecutive tiles).
#[derive(Debug, Clone, PartialEq)]
pub struct ZTiles {
    side: i64,
    levels: u32,
    /// `[level][B mod T][A mod T]`: lowest, highest.
    ranges: Vec<[f32; 2]>,
}

impl ZTiles {
    /// Tiles per level side.
    pub fn side(cfg: &ClipmapConfig) -> i64 {
        i64::from(cfg.texels()) / ZTILE
    }

    /// CPU reference of the shader's `ztiles_main` for every level:
    /// `origins` are the levels' min corners, `height(level, x, y)` the
    /// height of texel `(x, y)` (slots, `0..N`) of layer `level`.
    pub fn compute(
        cfg: &ClipmapConfig,
        origins: &[[i64; 2]],
        height: impl Fn(u32, i64, i64) -> f32,
    ) -> Self {
        let t = Self::side(cfg);
        let n = i64::from(cfg.texels());
        let mut ranges = vec![[f32::MAX, f32::MIN]; (t * t) as usize * cfg.levels as usize];
        for (l, o) in origins.iter().enumerate().take(cfg.levels as usize) {
            let a0 = [o[0].div_euclid(ZTILE), o[1].div_euclid(ZTILE)];
            for sb in 0..t {
                for sa in 0..t {
                    let a = a0[0] + (sa - a0[0]).rem_euclid(t);
                    let b = a0[1] + (sb - a0[1]).rem_euclid(t);
                    let mut r = [f32::MAX, f32::MIN];
                    for y in 0..=ZTILE {
                        for x in 0..=ZTILE {
                            let h = height(
                                l as u32,
                                (ZTILE * a + x).rem_euclid(n),
                                (ZTILE * b + y).rem_euclid(n),
                            );
                            r = [r[0].min(h), r[1].max(h)];
                        }
                    }
                    ranges[((l as i64 * t + sb) * t + sa) as usize] = r;
                }
            }
        }
        ZTiles {
            side: t,
            levels: cfg.levels,
            ranges,
        }
    }

    /// The tiles as the GPU holds them (`[level][slot]`, read back).
    pub fn from_gpu(cfg: &ClipmapConfig, ranges: &[[f32; 2]]) -> Self {
        let t = Self::side(cfg);
        ZTiles {
            side: t,
            levels: cfg.levels,
            ranges: ranges[..(t * t) as usize * cfg.levels as usize].to_vec(),
        }
    }

    /// Height range of level `level` over its vertices `lo ..= hi`: the
    /// tiles that cover them (the shader's `tile_range`).
    pub fn range(&self, level: u32, lo: [i64; 2], hi: [i64; 2]) -> [f32; 2] {
        let t = self.side;
        let a0 = lo.map(|v| v.div_euclid(ZTILE));
        let a1 = [0, 1].map(|k| a0[k].max((hi[k] - 1).div_euclid(ZTILE)));
        let mut r = [f32::MAX, f32::MIN];
        for b in a0[1]..=a1[1] {
            for a in a0[0]..=a1[0] {
                let z = self.ranges
                    [((i64::from(level) * t + b.rem_euclid(t)) * t + a.rem_euclid(t)) as usize];
                r = [r[0].min(z[0]), r[1].max(z[1])];
            }
        }
        r
    }

    /// Height range the cull gives `part`: its level's tiles under it and
    /// the next coarser level's (the shader's `part_range`).
    pub fn part_range(&self, part: &Part) -> [f32; 2] {
        let (o, q) = (part.origin, part.quads);
        let mut r = self.range(part.level, o, [o[0] + q[0], o[1] + q[1]]);
        if part.level + 1 < self.levels {
            let c = self.range(
                part.level + 1,
                o.map(|v| v.div_euclid(2)),
                [0, 1].map(|k| (o[k] + q[k] + 1).div_euclid(2)),
            );
            r = [r[0].min(c[0]), r[1].max(c[1])];
        }
        r
    }
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
            assert_eq!(i64::from(table[k].split & 0xff), kind.split(8));
            let refined = kind.refined().map_or(0xff, |r| kind_index(r) as u32);
            assert_eq!(table[k].split >> 8 & 0xff, refined, "{kind:?}");
            assert_eq!(table[k].split >> 16 == 1, *kind == PieceKind::Seam);
        }
        for w in table.windows(2) {
            assert_eq!(
                w[1].first_instance - w[0].first_instance,
                INSTANCES_PER_KIND
            );
        }
        // The draw issues one multi-draw per vertex entry point (each
        // one's kinds consecutive) and leaves out the refined kinds (last)
        // when nothing refines.
        let entries: Vec<_> = PieceKind::ALL.iter().map(|k| k.vertex_entry()).collect();
        for e in ["vs_main", "vs_seam", "vs_refined"] {
            let at: Vec<_> = (0..KINDS).filter(|&k| entries[k] == e).collect();
            assert_eq!(at.last().map(|l| l - at[0] + 1), Some(at.len()), "{e}");
        }
        assert!(PieceKind::ALL
            .iter()
            .skip_while(|k| !k.is_refined())
            .all(|k| k.is_refined()));
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

    /// The reset args: phase one's draws, phase two's with their ranges
    /// after phase one's, and the two counters (no draw).
    #[test]
    fn reset_args_hold_both_phases_and_the_counters() {
        let meshes = ClipmapMeshes::new(8);
        let one = empty_args(&meshes);
        let args = reset_args(&meshes, true);
        assert_eq!(args.len(), ARGS);
        for k in 0..KINDS {
            assert_eq!(args[k], one[k]);
            assert_eq!(
                args[KINDS + k].first_instance,
                one[k].first_instance + SECOND
            );
            assert_eq!(args[KINDS + k].index_count, one[k].index_count);
        }
        for c in [REJECTED, HIDDEN] {
            assert_eq!((args[c].index_count, args[c].instance_count), (0, 0));
        }
        assert!(reset_args(&meshes, false)
            .iter()
            .all(|a| a.first_instance == 0));
    }

    /// Every height a part can be drawn at lies in the range the cull gives
    /// it: its level's texels under it and the next coarser level's (the
    /// geomorph target), for parts anywhere in the windows, tiles computed
    /// from arbitrary heights and window corners off the tile grid.
    #[test]
    fn part_ranges_hold_every_height_the_part_draws() {
        let cfg = ClipmapConfig {
            block: 8,
            levels: 3,
        };
        let n = i64::from(cfg.texels());
        let f = cfg.footprint();
        // Absolute vertex heights (a texel holds its vertex's height).
        let h = |l: u32, i: i64, j: i64| {
            let x = (i * 7919 + j * 104_729 + i64::from(l) * 31) as f32;
            (x * 0.618).sin() * 50.0 + (i + 3 * j) as f32 * 0.1
        };
        for origins in [
            [[10i64, 6], [2, 2], [-2, 0]],
            [[-14, 22], [-10, 8], [-6, 2]],
        ] {
            // The texture slot of absolute vertex v of a window at o: the
            // window's vertices only (others hold something else).
            let tiles = ZTiles::compute(&cfg, &origins, |l, x, y| {
                let o = origins[l as usize];
                let i = o[0] + (x - o[0]).rem_euclid(n);
                let j = o[1] + (y - o[1]).rem_euclid(n);
                h(l, i, j)
            });
            for (l, o) in origins.iter().enumerate() {
                let l = l as u32;
                for (dx, dy, q) in [
                    (0, 0, [8, 8]),
                    (4, 12, [2, 8]),
                    (1, 31, [17, 1]),
                    (0, 9, [0, 6]),
                ] {
                    let part = Part {
                        kind: PieceKind::Block,
                        level: l,
                        origin: [o[0] + dx, o[1] + dy],
                        stitch: 0,
                        quads: q,
                    };
                    assert!(part.origin[0] + q[0] <= o[0] + f && part.origin[1] + q[1] <= o[1] + f);
                    let r = tiles.part_range(&part);
                    for j in part.origin[1]..=part.origin[1] + q[1] {
                        for i in part.origin[0]..=part.origin[0] + q[0] {
                            let v = h(l, i, j);
                            assert!(r[0] <= v && v <= r[1], "{part:?} ({i}, {j})");
                            if l + 1 < cfg.levels {
                                for (ci, cj) in [(i >> 1, j >> 1), ((i + 1) >> 1, (j + 1) >> 1)] {
                                    let c = h(l + 1, ci, cj);
                                    assert!(r[0] <= c && c <= r[1], "{part:?} coarse ({ci}, {cj})");
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn uniforms_match_wgsl() {
        sward_wgsl::assert_layouts!(
            sward_wgsl::modules::CLIPMAP_CULL,
            "CullUniforms" => CullUniforms {
                frustum, eye, count, trim_count, levels, tiles, update, second, _pad1, _pad2,
                origins, trims, view_proj, hiz, refine
            },
        );
    }
}
