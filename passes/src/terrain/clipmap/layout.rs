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
}

impl PieceKind {
    /// Every kind, in mesh order.
    pub const ALL: [PieceKind; 7] = [
        PieceKind::Block,
        PieceKind::FixupV,
        PieceKind::FixupH,
        PieceKind::Centre,
        PieceKind::TrimV,
        PieceKind::TrimH,
        PieceKind::Seam,
    ];

    /// Size in quads `(along I, along J)` for block size `t` (the seam's is
    /// the whole level footprint).
    pub fn quads(self, t: i64) -> [i64; 2] {
        match self {
            PieceKind::Block => [t, t],
            PieceKind::FixupV => [2, t],
            PieceKind::FixupH => [t, 2],
            PieceKind::Centre => [2, 2],
            PieceKind::TrimV => [1, 2 * t + 2],
            PieceKind::TrimH => [2 * t + 1, 1],
            PieceKind::Seam => [4 * t + 2, 4 * t + 2],
        }
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
}

/// The pieces of level `level` placed at `p` (the finest level is filled, the
/// others are rings with a trim; all but the coarsest get a seam).
pub fn level_pieces(cfg: &ClipmapConfig, level: u32, p: &LevelPlacement) -> Vec<Piece> {
    let t = i64::from(cfg.block);
    let mut out = Vec::new();
    let mut add = |kind, dx: i64, dy: i64| {
        out.push(Piece {
            kind,
            level,
            origin: [p.origin[0] + dx, p.origin[1] + dy],
        })
    };
    let stops = [0, t, 2 * t + 2, 3 * t + 2];
    let inner = |v: i64| v == t || v == 2 * t + 2;
    let finest = level == 0;
    for &y in &stops {
        for &x in &stops {
            if finest || !(inner(x) && inner(y)) {
                add(PieceKind::Block, x, y);
            }
        }
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
    } else {
        let [ax, ay] = p.inner;
        add(PieceKind::TrimV, if ax == 1 { t } else { 3 * t + 1 }, t);
        add(
            PieceKind::TrimH,
            t + ax,
            if ay == 1 { t } else { 3 * t + 1 },
        );
    }
    if level + 1 < cfg.levels {
        add(PieceKind::Seam, 0, 0);
    }
    out
}

/// Geomorph weight of a level-`l` vertex `(i, j)` for a camera at `cam_l`
/// (level units): 0 inside, rising over [`ClipmapConfig::transition`] quads
/// to exactly 1 at distance `2t - 1/2` (L-infinity); every outer-boundary
/// vertex is at least `2t` away, every hole-boundary vertex at most `t + 2`. The coarsest level never morphs. WGSL mirror:
/// `clip_morph` in `clipmap_level.wgsl`.
pub fn morph_weight(cfg: &ClipmapConfig, level: u32, cam_l: [f32; 2], i: i64, j: i64) -> f32 {
    if level + 1 >= cfg.levels {
        return 0.0;
    }
    let d = (i as f32 - cam_l[0]).abs().max((j as f32 - cam_l[1]).abs());
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
        for p in pieces.iter().filter(|p| p.kind != PieceKind::Seam) {
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
