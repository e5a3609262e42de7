//! The exact CPU height and normal reference: the MCVT diamond fan.
//!
//! Every cell has four outer corners (MCVT outer vertices) and one inner
//! centre vertex. The cell is split into four triangles fanned around the
//! centre; a point's height is the barycentric interpolation on the triangle
//! that contains it. With `u` along the column direction and `v` along the row
//! direction (see [`super::coords`]), corners `tl = (r, c)`, `tr = (r, c+1)`,
//! `bl = (r+1, c)`, `br = (r+1, c+1)` and centre `m`:
//!
//! | triangle | region                 | weights                                   |
//! |----------|------------------------|-------------------------------------------|
//! | top      | `v <= u`, `u + v <= 1` | tl `1-u-v`, tr `u-v`, m `2v`              |
//! | right    | `v <= u`, `u + v > 1`  | tr `u-v`, br `u+v-1`, m `2(1-u)`          |
//! | bottom   | `v > u`, `u + v >= 1`  | bl `v-u`, br `u+v-1`, m `2(1-v)`           |
//! | left     | `v > u`, `u + v < 1`   | tl `1-u-v`, bl `v-u`, m `2u`              |
//!
//! The interpolation is continuous across triangle, cell, MCNK and ADT
//! borders (given matching edge heights), so the tie rule only matters for
//! bit-exact GPU parity; the GPU snippet uses the same comparisons.
//!
//! Holes do not remove the surface from the reference: `height_at` still
//! answers inside a hole (the MCVT values exist), and [`World::is_hole`]
//! tells callers whether the terrain is actually drawn there.

use super::coords::{self, GridLocation, UNIT_SIZE};
use super::{Mcnk, World, MCVT_COUNT};

/// Index in MCVT/MCNR of outer vertex `(row, col)`, both 0..=8.
pub const fn outer_index(row: usize, col: usize) -> usize {
    row * 17 + col
}

/// Index in MCVT/MCNR of inner (centre) vertex `(row, col)`, both 0..8.
pub const fn inner_index(row: usize, col: usize) -> usize {
    row * 17 + 9 + col
}

/// Which fan triangle of a cell contains a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FanTriangle {
    /// Touches the row-`r` edge (corners tl, tr).
    Top,
    /// Touches the column-`c+1` edge (corners tr, br).
    Right,
    /// Touches the row-`r+1` edge (corners bl, br).
    Bottom,
    /// Touches the column-`c` edge (corners tl, bl).
    Left,
}

/// The fan triangle containing in-cell position `(u, v)` and the barycentric
/// weights of `[tl, tr, bl, br, centre]` (two corner weights are zero).
pub fn fan_weights(u: f32, v: f32) -> (FanTriangle, [f32; 5]) {
    if v <= u {
        if u + v <= 1.0 {
            (FanTriangle::Top, [1.0 - u - v, u - v, 0.0, 0.0, 2.0 * v])
        } else {
            (
                FanTriangle::Right,
                [0.0, u - v, 0.0, u + v - 1.0, 2.0 * (1.0 - u)],
            )
        }
    } else if u + v >= 1.0 {
        (
            FanTriangle::Bottom,
            [0.0, 0.0, v - u, u + v - 1.0, 2.0 * (1.0 - v)],
        )
    } else {
        (FanTriangle::Left, [1.0 - u - v, 0.0, v - u, 0.0, 2.0 * u])
    }
}

/// Interpolates `values` (`[tl, tr, bl, br, centre]`) at `(u, v)` on the fan.
pub fn fan_interpolate(values: [f32; 5], u: f32, v: f32) -> f32 {
    let (_, w) = fan_weights(u, v);
    w.iter().zip(values).map(|(w, h)| w * h).sum()
}

/// The five MCVT indices `[tl, tr, bl, br, centre]` of cell `(row, col)`.
pub const fn cell_indices(row: usize, col: usize) -> [usize; 5] {
    [
        outer_index(row, col),
        outer_index(row, col + 1),
        outer_index(row + 1, col),
        outer_index(row + 1, col + 1),
        inner_index(row, col),
    ]
}

/// Relative height in cell `(row, col)` of an MCVT array at `(u, v)`.
pub fn cell_height(heights: &[f32; MCVT_COUNT], row: u32, col: u32, u: f32, v: f32) -> f32 {
    let idx = cell_indices(row.min(7) as usize, col.min(7) as usize);
    fan_interpolate(idx.map(|i| heights[i]), u, v)
}

impl Mcnk {
    /// Absolute height at local grid position `(lx, ly)` in cells from the
    /// MCNK origin corner (`lx` column direction, `ly` row direction); values
    /// are clamped to `[0, 8]`.
    pub fn height_local(&self, lx: f64, ly: f64) -> f32 {
        let (row, col, u, v) = split_local(lx, ly);
        self.header.position[2] + cell_height(&self.heights, row, col, u, v)
    }

    /// Absolute height in cell `(row, col)` at in-cell `(u, v)`.
    pub fn height_in_cell(&self, row: u32, col: u32, u: f32, v: f32) -> f32 {
        self.header.position[2] + cell_height(&self.heights, row, col, u, v)
    }

    /// Local grid position `(lx, ly)` of world `(x, y)` relative to this MCNK's
    /// stored position (not clamped).
    pub fn world_to_local(&self, x: f64, y: f64) -> (f64, f64) {
        let p = self.header.position;
        ((p[1] as f64 - y) / UNIT_SIZE, (p[0] as f64 - x) / UNIT_SIZE)
    }

    /// World `(x, y)` of local grid position `(lx, ly)`.
    pub fn local_to_world(&self, lx: f64, ly: f64) -> (f64, f64) {
        let p = self.header.position;
        (p[0] as f64 - ly * UNIT_SIZE, p[1] as f64 - lx * UNIT_SIZE)
    }

    /// Absolute world height at world `(x, y)`, clamped to this MCNK.
    pub fn height_at_world(&self, x: f64, y: f64) -> f32 {
        let (lx, ly) = self.world_to_local(x, y);
        self.height_local(lx, ly)
    }

    /// MCNR normal at local `(lx, ly)`, interpolated on the fan like the
    /// height and renormalised.
    pub fn normal_local(&self, lx: f64, ly: f64) -> [f32; 3] {
        let (row, col, u, v) = split_local(lx, ly);
        let (_, w) = fan_weights(u, v);
        let idx = cell_indices(row as usize, col as usize);
        let mut n = [0.0f32; 3];
        for (wi, i) in w.iter().zip(idx) {
            for (a, c) in n.iter_mut().zip(self.normals[i]) {
                *a += wi * c as f32 / 127.0;
            }
        }
        normalize(n)
    }

    /// Geometric normal of the fan triangle under local `(lx, ly)` (z up),
    /// computed from the MCVT heights.
    pub fn face_normal_local(&self, lx: f64, ly: f64) -> [f32; 3] {
        let (row, col, u, v) = split_local(lx, ly);
        let (tri, _) = fan_weights(u, v);
        let h = cell_indices(row as usize, col as usize).map(|i| self.heights[i]);
        // Vertex positions in (x, y) world offsets: +u is -y, +v is -x.
        let s = UNIT_SIZE as f32;
        let pos = |u: f32, v: f32, z: f32| [-v * s, -u * s, z];
        let [tl, tr, bl, br, m] = [
            pos(0.0, 0.0, h[0]),
            pos(1.0, 0.0, h[1]),
            pos(0.0, 1.0, h[2]),
            pos(1.0, 1.0, h[3]),
            pos(0.5, 0.5, h[4]),
        ];
        let (a, b) = match tri {
            FanTriangle::Top => (tl, tr),
            FanTriangle::Right => (tr, br),
            FanTriangle::Bottom => (br, bl),
            FanTriangle::Left => (bl, tl),
        };
        let e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let e2 = [m[0] - a[0], m[1] - a[1], m[2] - a[2]];
        let n = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        let n = normalize(n);
        if n[2] < 0.0 {
            [-n[0], -n[1], -n[2]]
        } else {
            n
        }
    }
}

/// Splits clamped local coordinates into (row, col, u, v).
fn split_local(lx: f64, ly: f64) -> (u32, u32, f32, f32) {
    let lx = if lx.is_finite() {
        lx.clamp(0.0, 8.0)
    } else {
        0.0
    };
    let ly = if ly.is_finite() {
        ly.clamp(0.0, 8.0)
    } else {
        0.0
    };
    let col = (lx.floor() as u32).min(7);
    let row = (ly.floor() as u32).min(7);
    (row, col, (lx - col as f64) as f32, (ly - row as f64) as f32)
}

fn normalize(n: [f32; 3]) -> [f32; 3] {
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if len > 0.0 {
        n.map(|c| c / len)
    } else {
        [0.0, 0.0, 1.0]
    }
}

impl World {
    /// Locates world `(x, y)` on the grid and returns the resident MCNK there.
    ///
    /// A point within a few millimetres of the edge of the resident area (on
    /// the border with a tile that is not resident) resolves to the resident
    /// MCNK it touches, so edge vertices of the resident set have a height.
    pub fn locate(&self, x: f64, y: f64) -> Option<(GridLocation, &Mcnk)> {
        const EDGE: f64 = 1e-3; // cells (~4 mm): covers f32 rounding of stored positions
        let loc = coords::locate(x, y)?;
        if let Some(m) = self.mcnk(loc.chunk) {
            return Some((loc, m));
        }
        // Within EDGE of an MCNK border, try the neighbour(s) across it.
        let (gx, gy) = (
            loc.chunk.x as f64 * 8.0 + loc.cell.col as f64 + loc.u,
            loc.chunk.y as f64 * 8.0 + loc.cell.row as f64 + loc.v,
        );
        let near = |g: f64| {
            let k = (g / 8.0).round();
            ((g - k * 8.0).abs() < EDGE).then_some(k)
        };
        let (kx, ky) = (near(gx), near(gy));
        let xs = [Some(loc.chunk.x as f64), kx.map(|k| k - 1.0), kx];
        let ys = [Some(loc.chunk.y as f64), ky.map(|k| k - 1.0), ky];
        for cy in ys.into_iter().flatten() {
            for cx in xs.into_iter().flatten() {
                if cx < 0.0 || cy < 0.0 || (cx == loc.chunk.x as f64 && cy == loc.chunk.y as f64) {
                    continue;
                }
                let chunk = coords::ChunkCoord {
                    x: cx as u32,
                    y: cy as u32,
                };
                if let Some(m) = self.mcnk(chunk) {
                    let lx = (gx - cx * 8.0).clamp(0.0, 8.0 - 1e-9);
                    let ly = (gy - cy * 8.0).clamp(0.0, 8.0 - 1e-9);
                    let cell = coords::CellCoord {
                        row: ly as u32,
                        col: lx as u32,
                    };
                    let (u, v) = (lx - cell.col as f64, ly - cell.row as f64);
                    return Some((
                        GridLocation {
                            tile: chunk.tile(),
                            chunk,
                            cell,
                            u,
                            v,
                        },
                        m,
                    ));
                }
            }
        }
        None
    }

    /// Exact terrain height at world `(x, y)`; `None` outside the world or
    /// where no tile is resident. Defined inside holes too (see
    /// [`World::is_hole`]). O(1): the MCNK is found by grid arithmetic.
    pub fn height_at(&self, x: f64, y: f64) -> Option<f32> {
        let (_, m) = self.locate(x, y)?;
        Some(m.height_at_world(x, y))
    }

    /// Interpolated MCNR normal at world `(x, y)`.
    pub fn normal_at(&self, x: f64, y: f64) -> Option<[f32; 3]> {
        let (_, m) = self.locate(x, y)?;
        let (lx, ly) = m.world_to_local(x, y);
        Some(m.normal_local(lx, ly))
    }

    /// Whether world `(x, y)` lies in a terrain hole; `None` where
    /// `height_at` is `None`.
    pub fn is_hole(&self, x: f64, y: f64) -> Option<bool> {
        let (loc, m) = self.locate(x, y)?;
        Some(m.header.is_hole(loc.cell.row, loc.cell.col))
    }
}
