//! Where the clipmap levels sit for a camera position, and which pieces of
//! static geometry each level draws (the CPU side of Losasso & Hoppe's nested
//! grids, GPU Gems 2 ch. 2).
//!
//! # Coordinates
//!
//! Level `l` is a regular grid with spacing `s_l = s_0 * 2^l`, where
//! `s_0 = UNIT_SIZE / 2` (half an MCVT cell, 2.0833 units): level-0 vertices
//! land on every MCVT outer vertex *and* every cell centre, so with the
//! diagonals drawn towards the centres (see [`super::mesh`]) level 0 is the
//! exact four-triangle fan. Every coarser level's vertices are MCVT outer
//! vertices. Integer level coordinates `(I, J)` count `s_l` steps from the
//! map origin corner: `I` along the columns (world -Y), `J` along the rows
//! (world -X), i.e. `I * 2^l = 2 * gx` and `J * 2^l = 2 * gy` in grid cells.
//!
//! # One level
//!
//! With `t` the block size in quads (even), a level spans `F = 4t + 2` quads
//! per side (`n = F + 1` vertices) starting at its origin `M_l` (always even).
//! Along a side: block `t` | block `t` | fix-up `2` | block `t` | block `t`.
//! The ring of a level `l >= 1` leaves a hole `[t, 3t + 2)` in which the finer
//! level (`2t + 1` level-`l` quads) sits at offset `t + a`, `a` in `{0, 1}`
//! per axis; a one-quad L-shaped trim (a vertical and a horizontal strip)
//! fills the rest. The finest level also fills its own hole (four more
//! blocks, four more fix-ups and a 2x2 centre).

use sward_scenes::world::coords::{ORIGIN, UNIT_SIZE};

/// How far inside the outer boundary the geomorph reaches 1 (level quads):
/// margin for f32 rounding of the camera position.
pub const MORPH_MARGIN: f32 = 0.5;

/// Spacing of level 0 in world units: half an MCVT cell (2.0833).
pub const LEVEL0_SPACING: f64 = UNIT_SIZE / 2.0;

/// Most levels a clipmap may have (the level texture array's layers).
pub const MAX_LEVELS: u32 = 12;

/// Shape of a clipmap: block size and number of levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClipmapConfig {
    /// Block size `t` in quads (even, at least 8).
    pub block: u32,
    /// Number of levels (1..=[`MAX_LEVELS`]).
    pub levels: u32,
}

/// Default block size: 32 quads, so level 0 reaches 135 units around the
/// camera at the exact surface and each ring adds about 25k triangles.
pub const DEFAULT_BLOCK: u32 = 32;

impl ClipmapConfig {
    /// The fewest levels of block size `block` whose outer level reaches at
    /// least `distance` world units from the camera in every direction.
    pub fn for_distance(block: u32, distance: f32) -> Self {
        let block = (block.max(8) + 1) & !1;
        let mut cfg = ClipmapConfig { block, levels: 1 };
        while cfg.levels < MAX_LEVELS && cfg.reach(cfg.levels - 1) < f64::from(distance) {
            cfg.levels += 1;
        }
        cfg
    }

    /// Quads per level side (`F = 4t + 2`).
    pub fn footprint(&self) -> i64 {
        4 * i64::from(self.block) + 2
    }

    /// Side of each level texture (`N = 4t + 4 >= F + 1`), toroidally addressed.
    pub fn texels(&self) -> u32 {
        4 * self.block + 4
    }

    /// Width of the geomorph band in level quads (`t / 2`).
    pub fn transition(&self) -> f32 {
        (self.block / 2) as f32
    }

    /// Guaranteed reach of level `l` from the camera (world units): half the
    /// footprint minus the one quad the camera may sit off centre.
    pub fn reach(&self, level: u32) -> f64 {
        (self.footprint() / 2 - 1) as f64 * level_spacing(level)
    }
}

/// Spacing of level `l` in world units.
pub fn level_spacing(level: u32) -> f64 {
    LEVEL0_SPACING * f64::from(1u32 << level.min(31))
}

/// Camera position in level-0 units `(a, b)` = `(2 gx, 2 gy)` for world `(x, y)`.
pub fn camera_level0(x: f64, y: f64) -> [f64; 2] {
    [(ORIGIN - y) / LEVEL0_SPACING, (ORIGIN - x) / LEVEL0_SPACING]
}

/// World `(x, y)` of level-`l` vertex `(i, j)` (the shader does the same in f32).
pub fn vertex_world(level: u32, i: i64, j: i64) -> (f64, f64) {
    let s = level_spacing(level);
    (ORIGIN - j as f64 * s, ORIGIN - i as f64 * s)
}

/// Where one level sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelPlacement {
    /// Min corner `M_l` in level units (both even).
    pub origin: [i64; 2],
    /// Offset `a` of the finer level inside the hole (0 or 1 per axis);
    /// meaningless for level 0.
    pub inner: [i64; 2],
}

/// Places every level for a camera at level-0 coordinates `cam`: level 0
/// centred on the camera (snapped to even vertices), each coarser level
/// snapped so the finer one sits in its hole. The camera stays within one
/// level quad of each level's centre.
pub fn place_levels(cfg: &ClipmapConfig, cam: [f64; 2]) -> Vec<LevelPlacement> {
    let t = i64::from(cfg.block);
    let half = cfg.footprint() / 2;
    let snap0 = |c: f64| 2 * ((c - half as f64) / 2.0).round() as i64;
    let mut out = vec![LevelPlacement {
        origin: [snap0(cam[0]), snap0(cam[1])],
        inner: [0, 0],
    }];
    for _ in 1..cfg.levels {
        let finer = out[out.len() - 1].origin;
        let axis = |m: i64| {
            let x = m.div_euclid(2) - t;
            let o = x - x.rem_euclid(2);
            (o, x - o)
        };
        let (ox, ax) = axis(finer[0]);
        let (oy, ay) = axis(finer[1]);
        out.push(LevelPlacement {
            origin: [ox, oy],
            inner: [ax, ay],
        });
    }
    out
}

/// Kinds of static geometry (each one mesh in [`super::mesh`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PieceKind {
    /// `t x t` quads.
    Block,
    /// `2 x t` quads (2 along `I`), in the middle of the top/bottom sides.
    FixupV,
    /// `t x 2` quads, in the middle of the left/right sides.
    FixupH,
    /// `2 x 2` quads, the centre of the finest level.
    Centre,
    /// `1 x (2t + 2)` quads: the vertical arm of the L-shaped trim.
    TrimV,
    /// `(2t + 1) x 1` quads: the horizontal arm of the trim.
    TrimH,
    /// Zero-area triangles along a level's outer boundary (against T-junction
    /// cracks with the coarser level).
    Seam,
    /// A [`PieceKind::Block`] drawn at half resolution: `t/2 x t/2` quads of
    /// two level quads each (a ring block within the screen-space error
    /// bound, [`super::lod`]).
    Block2,
    /// Triangles `(2k, 2k + 1, 2k + 2)` along one `t`-quad edge (along `I`)
    /// of a half-resolution block: towards the hole they fill the gap to the
    /// full-resolution trim or finer level; towards a full-resolution piece
    /// of the same level (whose odd edge vertices are snapped onto the
    /// half-resolution edge) they are zero-area sliver fillers.
    EdgeSeamI,
    /// As [`PieceKind::EdgeSeamI`], along `J`.
    EdgeSeamJ,
    /// A [`PieceKind::Block`] sub-block drawn on the finer lattice (local
    /// refinement, [`super::refine`]): twice its quads per side, vertices
    /// in the finer level's units.
    BlockR,
    /// [`PieceKind::FixupV`] on the finer lattice.
    FixupVR,
    /// [`PieceKind::FixupH`] on the finer lattice.
    FixupHR,
    /// [`PieceKind::TrimV`] on the finer lattice.
    TrimVR,
    /// [`PieceKind::TrimH`] on the finer lattice.
    TrimHR,
}

impl PieceKind {
    /// Every kind, in mesh order (kinds drawn by one vertex entry point
    /// together, [`Self::vertex_entry`]).
    pub const ALL: [PieceKind; 15] = [
        PieceKind::Block,
        PieceKind::FixupV,
        PieceKind::FixupH,
        PieceKind::Centre,
        PieceKind::TrimV,
        PieceKind::TrimH,
        PieceKind::Block2,
        PieceKind::EdgeSeamI,
        PieceKind::EdgeSeamJ,
        PieceKind::Seam,
        PieceKind::BlockR,
        PieceKind::FixupVR,
        PieceKind::FixupHR,
        PieceKind::TrimVR,
        PieceKind::TrimHR,
    ];

    /// Sub-blocks per side a block of this kind is drawn and culled as
    /// ([`block_split`] for blocks and half-resolution blocks, else 1).
    pub fn split(self, t: i64) -> i64 {
        match self {
            PieceKind::Block | PieceKind::Block2 | PieceKind::BlockR => block_split(t),
            _ => 1,
        }
    }

    /// The kind that draws this one's parts on the finer lattice, for the
    /// kinds that can be refined (full-resolution blocks, fix-ups and trims).
    pub fn refined(self) -> Option<PieceKind> {
        match self {
            PieceKind::Block => Some(PieceKind::BlockR),
            PieceKind::FixupV => Some(PieceKind::FixupVR),
            PieceKind::FixupH => Some(PieceKind::FixupHR),
            PieceKind::TrimV => Some(PieceKind::TrimVR),
            PieceKind::TrimH => Some(PieceKind::TrimHR),
            _ => None,
        }
    }

    /// The vertex entry point that draws the kind: `vs_main`, `vs_seam`
    /// (a level's seam: its slivers collapse where the coarser level is
    /// refined) or `vs_refined` (the finer lattice). [`Self::ALL`] keeps
    /// each entry point's kinds together, so the draw is one
    /// multi-draw-indirect per entry point.
    pub fn vertex_entry(self) -> &'static str {
        if self.is_refined() {
            "vs_refined"
        } else if self == PieceKind::Seam {
            "vs_seam"
        } else {
            "vs_main"
        }
    }

    /// Whether the kind draws on the finer lattice.
    pub fn is_refined(self) -> bool {
        matches!(
            self,
            PieceKind::BlockR
                | PieceKind::FixupVR
                | PieceKind::FixupHR
                | PieceKind::TrimVR
                | PieceKind::TrimHR
        )
    }

    /// Size in level quads of the mesh one instance of this kind draws: a
    /// sub-block for the split kinds, else [`Self::quads`].
    pub fn mesh_quads(self, t: i64) -> [i64; 2] {
        let n = self.split(t);
        self.quads(t).map(|q| q / n)
    }

    /// Size in level quads `(along I, along J)` for block size `t` (the
    /// seam's is the whole level footprint, an edge seam's its edge; the
    /// half-resolution block covers what a block covers).
    pub fn quads(self, t: i64) -> [i64; 2] {
        match self {
            PieceKind::Block | PieceKind::Block2 | PieceKind::BlockR => [t, t],
            PieceKind::FixupV | PieceKind::FixupVR => [2, t],
            PieceKind::FixupH | PieceKind::FixupHR => [t, 2],
            PieceKind::Centre => [2, 2],
            PieceKind::TrimV | PieceKind::TrimVR => [1, 2 * t + 2],
            PieceKind::TrimH | PieceKind::TrimHR => [2 * t + 1, 1],
            PieceKind::Seam => [4 * t + 2, 4 * t + 2],
            PieceKind::EdgeSeamI => [t, 0],
            PieceKind::EdgeSeamJ => [0, t],
        }
    }

    /// Whether the kind only closes T-junctions (zero area in plan view;
    /// not counted as drawn triangles or covered quads).
    pub fn is_seam(self) -> bool {
        matches!(
            self,
            PieceKind::Seam | PieceKind::EdgeSeamI | PieceKind::EdgeSeamJ
        )
    }
}

/// Edges of a piece in [`Piece::stitch`]: the vertices of a set edge whose
/// coordinate along the edge is odd are drawn at the midpoint of their two
/// even neighbours, i.e. on the edge of a half-resolution neighbour.
pub mod stitch {
    /// The edge at local `i = 0`.
    pub const I_MIN: u8 = 1;
    /// The edge at local `i = w`.
    pub const I_MAX: u8 = 2;
    /// The edge at local `j = 0`.
    pub const J_MIN: u8 = 4;
    /// The edge at local `j = h`.
    pub const J_MAX: u8 = 8;
}

/// Offsets (level quads from a level's origin, along either axis) at which
/// its blocks start: block `t` | block `t` | 2-quad fix-up | block `t` |
/// block `t`.
pub fn block_stops(t: i64) -> [i64; 4] {
    [0, t, 2 * t + 2, 3 * t + 2]
}

/// Sub-blocks per side of a ring block of size `t` for culling and drawing:
/// 4 or 2 when a sub-block keeps the block's triangulation (its offset
/// inside the block is a multiple of 4 quads, so both the full-resolution
/// diagonal rule and the half-resolution one, on even double quads, carry
/// over), else 1 (the block whole). `t` = 32: 4 x 4 sub-blocks of 8 quads.
pub fn block_split(t: i64) -> i64 {
    if t % 16 == 0 {
        4
    } else if t % 8 == 0 {
        2
    } else {
        1
    }
}

/// One piece to draw: a mesh at a level and an absolute origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    /// Which mesh.
    pub kind: PieceKind,
    /// Level.
    pub level: u32,
    /// Min corner in level units.
    pub origin: [i64; 2],
    /// Edges snapped onto a half-resolution neighbour ([`stitch`] bits).
    pub stitch: u8,
}

/// The pieces of level `level` placed at `p` (the finest level is filled, the
/// others are rings with a trim; all but the coarsest get a seam).
pub fn level_pieces(cfg: &ClipmapConfig, level: u32, p: &LevelPlacement) -> Vec<Piece> {
    level_pieces_lod(cfg, level, p, |_| false)
}

/// As [`level_pieces`], drawing at half resolution every ring block (never
/// one of the finest level) for whose offset `(dx, dy)` inside the level
/// `half` answers true. Every even vertex of a level is a vertex of the next
/// coarser one, so a half-resolution block meets the coarser level without
/// anything more; towards a full-resolution piece of its own level that
/// piece's edge is stitched ([`Piece::stitch`]) and an edge seam fills
/// rounding slivers; towards the hole (the trim or the finer level, both
/// following this level's full-resolution edge) an edge seam fills the gap.
pub fn level_pieces_lod(
    cfg: &ClipmapConfig,
    level: u32,
    p: &LevelPlacement,
    half: impl Fn([i64; 2]) -> bool,
) -> Vec<Piece> {
    let mut out = level_frame(cfg, level, half);
    for q in &mut out {
        q.origin = [p.origin[0] + q.origin[0], p.origin[1] + q.origin[1]];
    }
    out.extend(level_trims(cfg, level, p));
    out
}

/// The pieces of [`level_pieces_lod`] that only depend on the level and on
/// which ring blocks are at half resolution, not on where the level is
/// placed: every piece but the trims, with origins relative to the level's
/// min corner. The GPU cull adds the corner each frame, so this list is
/// uploaded again only when a half-resolution decision changes.
pub fn level_frame(cfg: &ClipmapConfig, level: u32, half: impl Fn([i64; 2]) -> bool) -> Vec<Piece> {
    let t = i64::from(cfg.block);
    let mut out = Vec::new();
    let mut add = |kind: PieceKind, dx: i64, dy: i64| {
        let kind = if kind == PieceKind::Block && level > 0 && half([dx, dy]) {
            PieceKind::Block2
        } else {
            kind
        };
        out.push(Piece {
            kind,
            level,
            origin: [dx, dy],
            stitch: 0,
        })
    };
    let finest = level == 0;
    for [x, y] in ring_block_offsets(t, finest) {
        add(PieceKind::Block, x, y);
    }
    for y in [0, 3 * t + 2] {
        add(PieceKind::FixupV, 2 * t, y);
    }
    for x in [0, 3 * t + 2] {
        add(PieceKind::FixupH, x, 2 * t);
    }
    if finest {
        for y in [t, 2 * t + 2] {
            add(PieceKind::FixupV, 2 * t, y);
        }
        for x in [t, 2 * t + 2] {
            add(PieceKind::FixupH, x, 2 * t);
        }
        add(PieceKind::Centre, 2 * t, 2 * t);
    }
    if level + 1 < cfg.levels {
        add(PieceKind::Seam, 0, 0);
    }
    if out.iter().any(|q| q.kind == PieceKind::Block2) {
        stitch_half_blocks(&mut out, t);
    }
    out
}

/// Offsets of a level's blocks from its min corner, row by row: all 16 for
/// the finest level, the 12 of the ring around the hole for the others.
pub fn ring_block_offsets(t: i64, finest: bool) -> impl Iterator<Item = [i64; 2]> {
    let stops = block_stops(t);
    let inner = move |v: i64| v == t || v == 2 * t + 2;
    stops
        .into_iter()
        .flat_map(move |y| stops.into_iter().map(move |x| [x, y]))
        .filter(move |&[x, y]| finest || !(inner(x) && inner(y)))
}

/// The trims of level `level` placed at `p` (none for the finest level):
/// where they go follows the finer level's offset inside the hole.
pub fn level_trims(cfg: &ClipmapConfig, level: u32, p: &LevelPlacement) -> Vec<Piece> {
    if level == 0 {
        return Vec::new();
    }
    let t = i64::from(cfg.block);
    let [ax, ay] = p.inner;
    let at = |kind, dx: i64, dy: i64| Piece {
        kind,
        level,
        origin: [p.origin[0] + dx, p.origin[1] + dy],
        stitch: 0,
    };
    vec![
        at(PieceKind::TrimV, if ax == 1 { t } else { 3 * t + 1 }, t),
        at(
            PieceKind::TrimH,
            t + ax,
            if ay == 1 { t } else { 3 * t + 1 },
        ),
    ]
}

/// An axis-aligned edge of a piece: fixed coordinate on `axis` (0: `I`),
/// span on the other axis, and the [`stitch`] bit it is for its piece.
fn piece_edges(t: i64, q: &Piece) -> [(usize, i64, [i64; 2], u8); 4] {
    let [w, h] = q.kind.quads(t);
    let [x, y] = q.origin;
    [
        (0, x, [y, y + h], stitch::I_MIN),
        (0, x + w, [y, y + h], stitch::I_MAX),
        (1, y, [x, x + w], stitch::J_MIN),
        (1, y + h, [x, x + w], stitch::J_MAX),
    ]
}

/// Stitches the full-resolution blocks and fix-ups that share an edge with
/// a half-resolution block, and adds the half blocks' edge seams (towards
/// those pieces and towards the hole `[t, 3t + 2]`; origins relative to
/// the level's min corner).
fn stitch_half_blocks(out: &mut Vec<Piece>, t: i64) {
    // Edges of the full-resolution blocks and fix-ups: (edge, piece, bit).
    let mut full = Vec::with_capacity(4 * out.len());
    for (k, q) in out.iter().enumerate() {
        if matches!(
            q.kind,
            PieceKind::Block | PieceKind::FixupV | PieceKind::FixupH
        ) {
            for (axis, at, span, bit) in piece_edges(t, q) {
                full.push(((axis, at, span), k, bit));
            }
        }
    }
    let mut seams = Vec::new();
    for k in 0..out.len() {
        let b = out[k];
        if b.kind != PieceKind::Block2 {
            continue;
        }
        for (axis, at, span, _) in piece_edges(t, &b) {
            // A full-resolution piece on the other side of this edge.
            let mut shared = false;
            for &(edge, q, bit) in &full {
                if edge == (axis, at, span) {
                    out[q].stitch |= bit;
                    shared = true;
                }
            }
            let towards_hole = (at == t || at == 3 * t + 2) && span[0] >= t && span[1] <= 3 * t + 2;
            if shared || towards_hole {
                let (kind, o, snap) = if axis == 0 {
                    (PieceKind::EdgeSeamJ, [at, span[0]], stitch::I_MIN)
                } else {
                    (PieceKind::EdgeSeamI, [span[0], at], stitch::J_MIN)
                };
                seams.push(Piece {
                    kind,
                    level: b.level,
                    origin: o,
                    stitch: if shared { snap } else { 0 },
                });
            }
        }
    }
    out.extend(seams);
}

/// Geomorph weight of a level-`l` vertex `(i, j)` for a camera at `cam_l`
/// (level units): 0 inside, rising over [`ClipmapConfig::transition`] quads
/// to exactly 1 at distance `2t - 1/2` (L-infinity); every outer-boundary
/// vertex is at least `2t` away, every hole-boundary vertex at most `t + 2`. The coarsest level never morphs. WGSL mirror:
/// `clip_morph` in `clipmap_level.wgsl`.
pub fn morph_weight(cfg: &ClipmapConfig, level: u32, cam_l: [f32; 2], i: i64, j: i64) -> f32 {
    morph_weight_at(cfg, level, cam_l, i as f32, j as f32)
}

/// [`morph_weight`] at a point `(x, y)` of level `level` (level units, not
/// necessarily a vertex: the finer-lattice vertices of a refined tile).
pub fn morph_weight_at(cfg: &ClipmapConfig, level: u32, cam_l: [f32; 2], x: f32, y: f32) -> f32 {
    if level + 1 >= cfg.levels {
        return 0.0;
    }
    let d = (x - cam_l[0]).abs().max((y - cam_l[1]).abs());
    let w = cfg.transition();
    let end = (2 * cfg.block) as f32 - MORPH_MARGIN;
    ((d - (end - w)) / w).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn cells(pieces: &[Piece], t: i64) -> HashMap<(i64, i64), usize> {
        let mut m = HashMap::new();
        for p in pieces.iter().filter(|p| !p.kind.is_seam()) {
            let [w, h] = p.kind.quads(t);
            for y in 0..h {
                for x in 0..w {
                    *m.entry((p.origin[0] + x, p.origin[1] + y)).or_insert(0) += 1;
                }
            }
        }
        m
    }

    /// For many camera positions: each level is a ring whose hole is exactly
    /// the finer level's square, every quad is covered once, origins are even
    /// and the camera stays within one quad of each level's centre.
    #[test]
    fn levels_nest_without_gaps_or_overlaps() {
        for block in [8u32, 12] {
            let cfg = ClipmapConfig { block, levels: 4 };
            let t = i64::from(block);
            let f = cfg.footprint();
            for k in 0..97 {
                let cam = [1000.3 + k as f64 * 1.37, 2000.9 - k as f64 * 0.71];
                let places = place_levels(&cfg, cam);
                for (l, p) in places.iter().enumerate() {
                    let l = l as u32;
                    assert!(p.origin.iter().all(|o| o % 2 == 0), "odd origin {p:?}");
                    let centre = [
                        p.origin[0] as f64 + f as f64 / 2.0,
                        p.origin[1] as f64 + f as f64 / 2.0,
                    ];
                    let scale = f64::from(1u32 << l);
                    for a in 0..2 {
                        assert!(
                            (cam[a] / scale - centre[a]).abs() <= 1.0 + 1e-9,
                            "level {l} off centre"
                        );
                    }
                    let c = cells(&level_pieces(&cfg, l, p), t);
                    assert!(c.values().all(|&n| n == 1), "overlap at level {l}");
                    // Half-resolution blocks cover exactly the same quads.
                    let lod =
                        level_pieces_lod(&cfg, l, p, |o| (o[0] + 3 * o[1] + k as i64) % 3 != 0);
                    assert_eq!(cells(&lod, t), c, "decimated level {l}");
                    assert_eq!(
                        lod.iter().any(|q| q.kind == PieceKind::Block2),
                        l > 0,
                        "level {l}: only rings are decimated"
                    );
                    let mut expected = 0;
                    for y in 0..f {
                        for x in 0..f {
                            let q = (p.origin[0] + x, p.origin[1] + y);
                            let in_finer = l > 0 && {
                                let fo = places[l as usize - 1].origin;
                                let (fx, fy) = (2 * q.0 - fo[0], 2 * q.1 - fo[1]);
                                (0..f).contains(&fx) && (0..f).contains(&fy)
                            };
                            assert_eq!(c.contains_key(&q), !in_finer, "level {l} quad {q:?}");
                            expected += usize::from(!in_finer);
                        }
                    }
                    assert_eq!(c.len(), expected);
                    if l > 0 {
                        // The finer level's square lies on this level's grid.
                        let fo = places[l as usize - 1].origin;
                        assert_eq!(fo[0] / 2 - p.origin[0], t + p.inner[0]);
                        assert_eq!(fo[1] / 2 - p.origin[1], t + p.inner[1]);
                    }
                }
            }
        }
    }

    /// Half-resolution blocks: every edge they share with a full-resolution
    /// block or fix-up of their level is stitched on that piece and gets a
    /// snapped edge seam; every edge towards the hole gets an unsnapped edge
    /// seam; edges on the outer boundary or between two half blocks get
    /// nothing; no full-resolution piece is stitched anywhere else.
    #[test]
    fn half_blocks_stitch_their_full_resolution_neighbours() {
        let cfg = ClipmapConfig {
            block: 8,
            levels: 3,
        };
        let t = i64::from(cfg.block);
        let place = place_levels(&cfg, [300.7, 411.2])[1];
        for pattern in 0..16u32 {
            let pieces = level_pieces_lod(&cfg, 1, &place, |o| {
                let k = (o[0] / t + 5 * (o[1] / t)) as u32;
                (pattern >> (k % 4)) & 1 == 1 || pattern == 15
            });
            let half: Vec<_> = pieces
                .iter()
                .filter(|q| q.kind == PieceKind::Block2)
                .collect();
            let seams: Vec<_> = pieces
                .iter()
                .filter(|q| matches!(q.kind, PieceKind::EdgeSeamI | PieceKind::EdgeSeamJ))
                .collect();
            let mut expected_seams = 0;
            let mut stitched_edges = 0;
            for b in &half {
                for (axis, at, span, _) in piece_edges(t, b) {
                    let neighbour = pieces.iter().find(|q| {
                        **q != **b
                            && !q.kind.is_seam()
                            && piece_edges(t, q)
                                .iter()
                                .any(|e| e.0 == axis && e.1 == at && e.2 == span)
                    });
                    let seam = seams.iter().find(|q| {
                        let [w, h] = q.kind.quads(t);
                        let (e_axis, e_at, e_span) = if w == 0 {
                            (0, q.origin[0], [q.origin[1], q.origin[1] + h])
                        } else {
                            (1, q.origin[1], [q.origin[0], q.origin[0] + w])
                        };
                        e_axis == axis && e_at == at && e_span == span
                    });
                    let rel = at - place.origin[axis];
                    let on_outer = rel == 0 || rel == cfg.footprint();
                    match neighbour.map(|q| q.kind) {
                        Some(PieceKind::Block2) => assert!(seam.is_none()),
                        Some(PieceKind::Block | PieceKind::FixupV | PieceKind::FixupH) => {
                            let q = neighbour.expect("some");
                            assert!(
                                piece_edges(t, q)
                                    .iter()
                                    .any(|e| e.0 == axis && e.1 == at && q.stitch & e.3 != 0),
                                "{q:?} not stitched towards {b:?}"
                            );
                            let seam = seam.expect("snapped seam");
                            assert_ne!(seam.stitch, 0, "snapped");
                            expected_seams += 1;
                            stitched_edges += 1;
                        }
                        None if on_outer => assert!(seam.is_none()),
                        other => {
                            // Towards the hole: the trim, or nothing (finer level).
                            assert!(
                                matches!(other, None | Some(PieceKind::TrimV | PieceKind::TrimH)),
                                "{other:?}"
                            );
                            assert!(!on_outer);
                            let seam = seam.expect("hole seam");
                            assert_eq!(seam.stitch, 0, "not snapped");
                            expected_seams += 1;
                        }
                    }
                }
            }
            assert_eq!(seams.len(), expected_seams, "pattern {pattern}");
            let stitched: u32 = pieces.iter().map(|q| q.stitch.count_ones()).sum();
            let snapped_seams = seams.iter().filter(|q| q.stitch != 0).count() as u32;
            assert_eq!(
                stitched,
                stitched_edges + snapped_seams,
                "pattern {pattern}"
            );
            if pattern == 15 {
                assert_eq!(half.len(), 12);
            }
        }
    }

    /// Morph is 0 next to the finer level and exactly 1 on the outer boundary.
    #[test]
    fn morph_reaches_one_on_the_boundary_and_zero_at_the_hole() {
        let cfg = ClipmapConfig {
            block: 8,
            levels: 3,
        };
        let f = cfg.footprint();
        let t = i64::from(cfg.block);
        for k in 0..41 {
            let cam = [500.0 + k as f64 * 0.93, 800.0 + k as f64 * 1.71];
            for (l, p) in place_levels(&cfg, cam).iter().enumerate() {
                let l = l as u32;
                let s = f64::from(1u32 << l);
                let cl = [(cam[0] / s) as f32, (cam[1] / s) as f32];
                for e in 0..=f {
                    for (i, j) in [(0, e), (f, e), (e, 0), (e, f)] {
                        let w = morph_weight(&cfg, l, cl, p.origin[0] + i, p.origin[1] + j);
                        let want = if l + 1 < cfg.levels { 1.0 } else { 0.0 };
                        assert_eq!(w, want, "level {l} boundary vertex ({i}, {j})");
                    }
                    if l > 0 {
                        // Hole boundary: [t, 3t + 2].
                        let (lo, hi) = (t, 3 * t + 2);
                        let e = lo + e % (hi - lo + 1);
                        for (i, j) in [(lo, e), (hi, e), (e, lo), (e, hi)] {
                            let w = morph_weight(&cfg, l, cl, p.origin[0] + i, p.origin[1] + j);
                            assert_eq!(w, 0.0, "level {l} hole vertex ({i}, {j})");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn distance_picks_enough_levels() {
        let cfg = ClipmapConfig::for_distance(32, 4000.0);
        assert!(cfg.reach(cfg.levels - 1) >= 4000.0);
        assert!(cfg.reach(cfg.levels - 2) < 4000.0);
        assert_eq!(ClipmapConfig::for_distance(7, 10.0).block, 8);
        let (x, y) = vertex_world(3, 100, 40);
        let [a, b] = camera_level0(x, y);
        assert!((a - 800.0).abs() < 1e-6 && (b - 320.0).abs() < 1e-6);
    }
}
