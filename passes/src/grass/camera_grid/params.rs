//! Grid maths of `camera-grid`: the configuration ([`GridParams`], with the
//! 181 x 181 slots at 2.5 units as default), how many blade candidates
//! a slot needs for a given density ([`candidates_for`]), the camera's world
//! slot ([`camera_slot`]) and the instance -> world slot mapping
//! ([`instance_slot`], the CPU mirror of WGSL `grid_instance_slot`).
//!
//! # Slot frame
//!
//! Slots live on an integer lattice anchored at the map origin corner, in the
//! same grid axes as terrain cells (`world::coords`): `x` along the MCNK
//! columns (world -Y), `y` along the rows (world -X). World slot `(i, j)`
//! covers grid positions `[i, i + 1) x [j, j + 1)` times the spacing in
//! cells. The camera's slot comes from its eye position in `f64`; the grid
//! is centred on it, so moving the camera only changes *which* world slots
//! are evaluated, never what a world slot holds.

use sward_scenes::world::coords::{world_to_grid, UNIT_SIZE};

use crate::error::PassError;

/// Seed default: slots per axis (odd, so one slot is centred on the camera).
pub const DEFAULT_SIDE: u32 = 181;
/// Seed default: slot spacing in world units.
pub const DEFAULT_SPACING: f32 = 2.5;
/// Most candidates per slot the automatic choice takes (denser scenes are
/// thinned, with a warning).
pub const MAX_CANDIDATES: u32 = 16;
/// Largest wind phase offset (radians) the per-blade phase hash adds to the
/// world-position phase.
pub const DEFAULT_PHASE_SPREAD: f32 = 0.5;

/// How the grid draws: every candidate with collapse, or the compaction
/// pre-pass and one indirect draw per model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum GridMode {
    /// One draw of every candidate per model; candidates that are not drawn
    /// or belong to another model collapse in the vertex shader.
    Direct,
    /// A compute pass compacts drawn, in-range, in-frustum candidates per
    /// model and writes indexed indirect args; one indirect draw per model.
    #[default]
    Compact,
}

impl GridMode {
    /// `direct` or `compact`.
    pub fn name(self) -> &'static str {
        match self {
            GridMode::Direct => "direct",
            GridMode::Compact => "compact",
        }
    }
}

/// Configuration of the slot grid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridParams {
    /// Slots per axis (odd).
    pub side: u32,
    /// Slot spacing in world units.
    pub spacing: f32,
    /// Candidates per slot; `None` picks [`candidates_for`] the window's
    /// densest cell.
    pub candidates: Option<u32>,
    /// Largest per-blade wind phase offset (radians).
    pub phase_spread: f32,
    /// Direct or compacted drawing.
    pub mode: GridMode,
    /// Whether compaction also culls by the frustum.
    pub frustum_cull: bool,
    /// Records of the compacted list; `None`: one per candidate, which no
    /// frame can overflow. A test sets fewer to see the overflow counted.
    pub list_capacity: Option<u32>,
}

impl Default for GridParams {
    fn default() -> Self {
        GridParams {
            side: DEFAULT_SIDE,
            spacing: DEFAULT_SPACING,
            candidates: None,
            phase_spread: DEFAULT_PHASE_SPREAD,
            mode: GridMode::default(),
            frustum_cull: true,
            list_capacity: None,
        }
    }
}

impl GridParams {
    /// The smallest odd grid at `spacing` whose half-extent covers
    /// `distance` plus one spacing (camera anywhere in its slot) plus one
    /// spacing of jitter: `side = 2 * ceil((distance + 2 spacing) / spacing) + 1`.
    /// The default 220 units at 2.5 give 181.
    pub fn for_distance(distance: f32, spacing: f32) -> Self {
        let half = ((distance + 2.0 * spacing) / spacing).ceil().max(1.0) as u32;
        GridParams {
            side: 2 * half + 1,
            spacing,
            ..GridParams::default()
        }
    }

    /// Half the side in slots.
    pub fn half(&self) -> u32 {
        self.side / 2
    }

    /// Spacing in terrain cells.
    pub fn spacing_cells(&self) -> f64 {
        f64::from(self.spacing) / UNIT_SIZE
    }

    /// Distance from the eye that every blade of the grid is guaranteed to
    /// cover on both axes: `half * spacing` (the eye may sit anywhere in the
    /// centre slot, blades anywhere in theirs).
    pub fn covered_distance(&self) -> f32 {
        self.half() as f32 * self.spacing
    }

    /// Checks the configuration: odd side >= 1, positive finite spacing,
    /// candidates in `1..=MAX_CANDIDATES * 4`, and an instance count that
    /// fits `u32`.
    pub fn validate(&self) -> Result<(), PassError> {
        let bad = |reason: String| {
            Err(PassError::InvalidInput {
                technique: "grass.camera-grid",
                what: "grid parameters".into(),
                reason,
            })
        };
        if self.side == 0 || self.side % 2 == 0 {
            return bad(format!("side {} must be odd", self.side));
        }
        if !(self.spacing.is_finite() && self.spacing > 0.0) {
            return bad(format!("spacing {} must be positive", self.spacing));
        }
        if let Some(k) = self.candidates {
            if k == 0 || k > 4 * MAX_CANDIDATES {
                return bad(format!(
                    "{k} candidates per slot (1..={})",
                    4 * MAX_CANDIDATES
                ));
            }
        }
        let k = u64::from(self.candidates.unwrap_or(MAX_CANDIDATES));
        if u64::from(self.side) * u64::from(self.side) * k > u64::from(u32::MAX / 2) {
            return bad(format!("{} slots x {k} candidates overflow", self.side));
        }
        Ok(())
    }
}

/// Candidates per slot needed so that a cell expecting `max_expected`
/// placements keeps its density: the keep probability
/// `expected * spacing_cells^2 / candidates` must not exceed 1, so
/// `candidates = ceil(max_expected * spacing_cells^2)` (at least 1).
pub fn candidates_for(max_expected: f64, spacing_cells: f64) -> u32 {
    let need = (max_expected * spacing_cells * spacing_cells - 1e-9).ceil();
    need.clamp(1.0, f64::from(u32::MAX)) as u32
}

/// World slot `(i, j)` holding the eye at world `(x, y)`.
pub fn camera_slot(x: f64, y: f64, spacing_cells: f64) -> [i32; 2] {
    let (gx, gy) = world_to_grid(x, y);
    let clamp = |v: f64| (v / spacing_cells).floor().clamp(-1e9, 1e9) as i32;
    [clamp(gx), clamp(gy)]
}

/// World slot and candidate of instance `n` (WGSL `grid_instance_slot`).
pub fn instance_slot(n: u32, camera: [i32; 2], side: u32, candidates: u32) -> (i32, i32, u32) {
    let slot = n / candidates;
    let half = (side / 2) as i32;
    let gx = (slot % side) as i32 - half;
    let gy = (slot / side) as i32 - half;
    (camera[0] + gx, camera[1] + gy, n % candidates)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_distance_gives_the_default_grid() {
        let p = GridParams::for_distance(220.0, 2.5);
        assert_eq!(p.side, DEFAULT_SIDE);
        assert!(p.covered_distance() >= 220.0 + 2.5);
        p.validate().unwrap();
        // One slot less would not cover the draw distance plus margins.
        let smaller = GridParams {
            side: p.side - 2,
            ..p
        };
        assert!(smaller.covered_distance() < 220.0 + 2.0 * 2.5);
    }

    #[test]
    fn bad_parameters_are_named() {
        let even = GridParams {
            side: 180,
            ..GridParams::default()
        };
        assert!(even.validate().unwrap_err().to_string().contains("odd"));
        let zero = GridParams {
            spacing: 0.0,
            ..GridParams::default()
        };
        assert!(zero.validate().is_err());
        let none = GridParams {
            candidates: Some(0),
            ..GridParams::default()
        };
        assert!(none.validate().is_err());
    }

    #[test]
    fn candidates_keep_probability_at_most_one() {
        let s = 2.5 / UNIT_SIZE;
        // elwynn-dense: at most 4 * 0.9604 placements per cell.
        assert_eq!(candidates_for(4.0 * 0.9604, s), 2);
        assert_eq!(candidates_for(0.0, s), 1);
        for e in [0.5, 1.0, 2.77, 2.78, 12.0, 61.0] {
            let k = candidates_for(e, s);
            assert!(e * s * s / f64::from(k) <= 1.0 + 1e-9, "{e}");
            assert!(
                k == 1 || e * s * s / f64::from(k - 1) > 1.0,
                "{e}: {k} not minimal"
            );
        }
    }

    #[test]
    fn camera_slot_contains_the_eye_and_instances_centre_on_it() {
        let s = 0.6;
        for (x, y) in [(-8500.3, 120.7), (1000.0, -2000.0), (16000.0, 16000.0)] {
            let [i, j] = camera_slot(x, y, s);
            let (gx, gy) = world_to_grid(x, y);
            assert!(f64::from(i) * s <= gx && gx < f64::from(i + 1) * s);
            assert!(f64::from(j) * s <= gy && gy < f64::from(j + 1) * s);
            // The centre instance (all candidates) is the camera's slot.
            let side = 181;
            let centre = (side * side / 2) * 3;
            for k in 0..3 {
                assert_eq!(instance_slot(centre + k, [i, j], side, 3), (i, j, k));
            }
            // Corners are +-half slots away.
            assert_eq!(instance_slot(0, [i, j], side, 3), (i - 90, j - 90, 0));
            let last = side * side * 3 - 1;
            assert_eq!(instance_slot(last, [i, j], side, 3), (i + 90, j + 90, 2));
        }
    }

    #[test]
    fn moving_one_slot_shifts_instances_by_one_slot() {
        let (side, k) = (5, 2);
        let a = [100, 200];
        let b = [101, 200];
        // Instance of world slot (101 + dx, ...) under camera b equals the
        // instance one column further right under camera a.
        for n in 0..side * side * k {
            let (i, j, c) = instance_slot(n, b, side, k);
            let found = (0..side * side * k).find(|&m| instance_slot(m, a, side, k) == (i, j, c));
            let col = (n / k) % side;
            assert_eq!(found.is_some(), col < side - 1, "instance {n}");
        }
    }
}
