//! CPU mirror of the `camera_grid` WGSL snippet: the hash streams
//! ([`candidate_key`], [`stream`]) and the blade a candidate becomes
//! ([`grid_blade`]), computed with the same `f32` operations in the same
//! order, with heights from the exact CPU reference (`Mcnk::height_in_cell`)
//! instead of the atlas (the atlas has its own parity test). Tests compare
//! the GPU probe with this, and use it to reason about the grid without a GPU.

use sward_scenes::world::{ChunkCoord, World};
use sward_wgsl::cpu::hash::{hash2, hash_unit, pcg_hash};

use super::control::ControlData;
use super::gpu::{GridEffectGpu, NO_MODEL, POLICY_ROTATION};
use super::word::{word_effect, word_expected, Reason};

/// WGSL `GRID_MAP_ORIGIN` (the f32 nearest to 32 * 1600 / 3).
pub const MAP_ORIGIN: f32 = 17066.666;
/// WGSL `GRID_UNIT` (the f32 nearest to 1600 / 3 / 128).
pub const UNIT: f32 = 4.166_666_5;
const TAU: f32 = 6.283_185_5;

/// Hash stream salts (WGSL `GRID_SALT_*`).
pub mod salt {
    /// Candidate index.
    pub const CANDIDATE: u32 = 0x9e37_79b9;
    /// Jitter along the columns.
    pub const JITTER_X: u32 = 0x68e3_1da4;
    /// Jitter along the rows.
    pub const JITTER_Y: u32 = 0xb529_7a4d;
    /// Density keep draw.
    pub const KEEP: u32 = 0x1b56_c4e9;
    /// Model pick.
    pub const MODEL: u32 = 0x7f4a_7c15;
    /// Yaw.
    pub const YAW: u32 = 0x94d0_49bb;
    /// Scale.
    pub const SCALE: u32 = 0xbf58_476d;
    /// Wind phase offset.
    pub const PHASE: u32 = 0x2545_f491;
}

/// Why a candidate draws nothing (WGSL `GRID_*` status values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Status {
    /// Drawn.
    Drawn = 0,
    /// Outside the world, the control window or the resident atlas.
    Outside = 1,
    /// The control word suppresses the cell.
    Suppressed = 2,
    /// Thinned out by the density draw.
    Thinned = 3,
    /// The pick hit an empty doodad slot.
    EmptySlot = 4,
}

impl Status {
    /// The status of a WGSL status value (unknown values read as outside).
    pub fn from_u32(v: u32) -> Status {
        match v {
            0 => Status::Drawn,
            2 => Status::Suppressed,
            3 => Status::Thinned,
            4 => Status::EmptySlot,
            _ => Status::Outside,
        }
    }
}

/// The blade of one candidate (WGSL `GridBlade`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Blade {
    /// Drawn or why not.
    pub status: Status,
    /// Model index, [`NO_MODEL`] unless picked.
    pub model: u32,
    /// Control word under the root (`u32::MAX` when not read).
    pub control: u32,
    /// Row-major cell index inside its MCNK.
    pub cell_index: u32,
    /// World-space root.
    pub root: [f32; 3],
    /// Yaw (radians).
    pub yaw: f32,
    /// Scale.
    pub scale: f32,
    /// Wind phase offset (radians).
    pub phase: f32,
}

/// What [`grid_blade`] reads: the grid constants and the resident data.
pub struct BladeInputs<'a> {
    /// Slot spacing in terrain cells (as the uniform holds it).
    pub spacing_cells: f32,
    /// `spacing_cells^2 / candidates`.
    pub keep_scale: f32,
    /// Largest phase offset.
    pub phase_spread: f32,
    /// [`super::gpu::POLICY_WEIGHTED`] or [`POLICY_ROTATION`].
    pub policy: u32,
    /// Models drawable by index.
    pub model_count: u32,
    /// Control words.
    pub control: &'a ControlData,
    /// Effect table.
    pub effects: &'a [GridEffectGpu],
    /// Resident world (heights).
    pub world: &'a World,
}

/// WGSL `grid_candidate_key`.
pub fn candidate_key(i: i32, j: i32, k: u32) -> u32 {
    pcg_hash(hash2(i as u32, j as u32) ^ pcg_hash(k ^ salt::CANDIDATE))
}

/// WGSL `grid_stream`.
pub fn stream(key: u32, salt: u32) -> f32 {
    hash_unit(pcg_hash(key ^ salt))
}

/// WGSL `grid_slot_weights`.
pub fn slot_weights(e: &GridEffectGpu, cell_index: u32, policy: u32) -> [u32; 4] {
    if policy == POLICY_ROTATION {
        return std::array::from_fn(|s| {
            let first = (s as u32 + 4 - (cell_index & 3)) & 3;
            if e.density > first {
                (e.density - first).div_ceil(4)
            } else {
                0
            }
        });
    }
    e.weights
}

/// WGSL `grid_blade`: candidate `k` of world slot `(i, j)`.
pub fn grid_blade(inp: &BladeInputs<'_>, i: i32, j: i32, k: u32) -> Blade {
    let key = candidate_key(i, j, k);
    let jitter = [stream(key, salt::JITTER_X), stream(key, salt::JITTER_Y)];
    let p = [
        (i as f32 + jitter[0]) * inp.spacing_cells,
        (j as f32 + jitter[1]) * inp.spacing_cells,
    ];
    let mut b = Blade {
        status: Status::Outside,
        model: NO_MODEL,
        control: u32::MAX,
        cell_index: 0,
        root: [MAP_ORIGIN - p[1] * UNIT, MAP_ORIGIN - p[0] * UNIT, 0.0],
        yaw: stream(key, salt::YAW) * TAU - std::f32::consts::PI,
        scale: 0.9 + 0.2 * stream(key, salt::SCALE),
        phase: stream(key, salt::PHASE) * inp.phase_spread,
    };
    if p[0] < 0.0 || p[1] < 0.0 {
        return b;
    }
    let cell = [p[0].floor() as i64, p[1].floor() as i64];
    let word = inp.control.word_at(cell[0], cell[1]);
    let chunk = ChunkCoord {
        x: (cell[0] / 8) as u32,
        y: (cell[1] / 8) as u32,
    };
    let in_window = inp.control.window.texel(chunk).is_some();
    let Some(mcnk) = inp.world.mcnk(chunk).filter(|_| in_window) else {
        return b;
    };
    let (row, col) = ((cell[1] & 7) as u32, (cell[0] & 7) as u32);
    b.cell_index = row * 8 + col;
    b.control = word;
    let (u, v) = (p[0] - cell[0] as f32, p[1] - cell[1] as f32);
    b.root[2] = mcnk.height_in_cell(row, col, u, v);
    if Reason::of(word) != Reason::Grows {
        b.status = Status::Suppressed;
        return b;
    }
    let Some(e) = inp.effects.get(word_effect(word) as usize) else {
        b.status = Status::Suppressed;
        return b;
    };
    if stream(key, salt::KEEP) >= word_expected(word) * inp.keep_scale {
        b.status = Status::Thinned;
        return b;
    }
    let w = slot_weights(e, b.cell_index, inp.policy);
    let total: u32 = w.iter().sum();
    if total == 0 {
        b.status = Status::EmptySlot;
        return b;
    }
    let pick = ((stream(key, salt::MODEL) * total as f32) as u32).min(total - 1);
    let mut acc = 0;
    let mut model = NO_MODEL;
    for (weight, slot_model) in w.iter().zip(e.models) {
        acc += weight;
        if pick < acc {
            model = slot_model;
            break;
        }
    }
    if model == NO_MODEL || model >= inp.model_count {
        b.status = Status::EmptySlot;
        return b;
    }
    b.model = model;
    b.status = Status::Drawn;
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_independent_of_each_other() {
        // Correlation between yaw and phase (synchronised sway)
        // and between jitter and model choice stays near zero.
        let n = 20_000;
        let corr = |a: u32, b: u32| {
            let (mut sa, mut sb, mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0, 0.0, 0.0);
            for s in 0..n {
                let key = candidate_key((s % 200) as i32, (s / 200) as i32, s % 3);
                let (x, y) = (f64::from(stream(key, a)), f64::from(stream(key, b)));
                sa += x;
                sb += y;
                sab += x * y;
                saa += x * x;
                sbb += y * y;
            }
            let n = f64::from(n);
            let cov = sab / n - sa / n * sb / n;
            cov / ((saa / n - (sa / n).powi(2)) * (sbb / n - (sb / n).powi(2))).sqrt()
        };
        for (a, b) in [
            (salt::YAW, salt::PHASE),
            (salt::JITTER_X, salt::MODEL),
            (salt::KEEP, salt::MODEL),
            (salt::JITTER_X, salt::JITTER_Y),
        ] {
            let c = corr(a, b);
            assert!(c.abs() < 0.03, "streams {a:#x}/{b:#x} correlate: {c}");
        }
    }

    #[test]
    fn neighbouring_candidates_differ() {
        let a = candidate_key(100, 200, 0);
        assert_ne!(a, candidate_key(101, 200, 0));
        assert_ne!(a, candidate_key(100, 201, 0));
        assert_ne!(a, candidate_key(100, 200, 1));
        assert_ne!(candidate_key(1, 2, 0), candidate_key(2, 1, 0));
    }

    #[test]
    fn rotation_weights_count_the_slot_sequence() {
        let e = GridEffectGpu {
            models: [0, 1, 2, 3],
            weights: [9, 9, 9, 9],
            total: 36,
            density: 6,
            pad0: 0,
            pad1: 0,
        };
        for cell in 0..64 {
            let mut want = [0u32; 4];
            for n in 0..e.density {
                want[((n + cell) & 3) as usize] += 1;
            }
            assert_eq!(slot_weights(&e, cell, POLICY_ROTATION), want, "cell {cell}");
        }
        assert_eq!(slot_weights(&e, 5, 0), e.weights);
    }
}
