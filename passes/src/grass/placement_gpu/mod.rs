//! Ground-effect placement on the GPU: every placement policy
//! (`client`, `client-3.3.5`, `per-cell`) as a WGSL module beside its CPU
//! policy in `sward_scenes::placement`, which stays the reference, and the
//! `grass.place` compute pass that generates the placements of a list of
//! MCNKs from small per-MCNK records.
//!
//! Inputs of one generation ([`GenerationInputs`]):
//!
//! - one 48-byte record per MCNK ([`gpu::PlaceChunkGpu`], built by
//!   [`records::place_chunk`]): global MCNK coordinate, height-atlas slot,
//!   `holes_low_res`, the stored position x, y, predTex, noEffectDoodad and
//!   each texture layer's ground effect as an index into the effect table;
//! - the effect table ([`records::EffectTable`]: per slot of the window's
//!   effect palette its four doodad slots' models and keys, resolved and
//!   stored weights, densities);
//! - for `per-cell` only, 136 bytes per MCNK of per-cell coverage
//!   ([`records::cell_cover`]: the MCAL alpha maps stay on the CPU);
//! - the exact height atlas (`crate::atlas::HeightAtlas`, group 1), where
//!   the record's slot finds the MCNK's MCVT heights and base z;
//! - the policy's parameters ([`records::params`]: the pick count that
//!   `--density` sets, or per-cell's constants).
//!
//! Output ([`Generation`]): the placements ([`gpu::PlacedGpu`]: position,
//! yaw, scale, seed, and where it came from: record, pick, draw index, cell,
//! slot, model, doodad key) in any order, and per record the CPU's
//! `PlacementStats` counters ([`gpu::ChunkStatsGpu`]).
//!
//! One invocation generates one MCNK: the client routines are one sequential
//! stream per MCNK (a pick's draws depend on every earlier pick), so MCNKs are
//! the parallel unit. The generator state advances in u32 arithmetic exactly
//! as on the CPU; float steps follow the CPU's order of operations with every
//! product rounded on its own (`float_exact.wgsl`: no fused multiply-add), so
//! decisions and positions are bit-exact with the CPU on a device that rounds
//! to nearest, except where a square root or division enters (the 3.3.5 slope
//! limit), whose margins the parity tests report. See
//! docs/techniques/gpu-placement.md.
//!
//! Files: [`gpu`] (the WGSL structs' Rust mirrors), [`records`] (building
//! records, the effect table, parameters, output bounds), [`cpu`] (CPU
//! mirrors of the generator's own number helpers), [`generator`] (pipeline,
//! bind groups, dispatch, blocking generate-and-read-back), [`inspect`]
//! (`sward inspect placements --gpu`), `tests` (GPU parity).

pub mod cpu;
pub mod generator;
pub mod gpu;
pub mod inspect;
pub mod records;
#[cfg(test)]
mod tests;

pub use generator::{
    entry_point, Generated, Generation, GenerationInputs, PlacementGenerator, PASS_PLACE,
};
pub use inspect::{generation_order, inspect_placements_gpu, sort_generated};
pub use records::{EffectTable, McnkBatch};

/// Why the GPU placement generator could not run.
#[derive(Debug, thiserror::Error)]
pub enum PlacementGpuError {
    /// Building a shader, the atlas or a pipeline failed, or the device
    /// lacks a capability.
    #[error(transparent)]
    Pass(#[from] crate::error::PassError),
    /// The scene's data does not fit the records or the output.
    #[error("GPU placement: {what}: {reason}")]
    Input {
        /// Which object.
        what: String,
        /// What does not fit.
        reason: String,
    },
    /// The resident tiles use more distinct ground effects than a record
    /// can name.
    #[error(transparent)]
    Palette(#[from] crate::grass::palette::PaletteError),
    /// The requested MCNKs or tile are not in the scene.
    #[error(transparent)]
    Inspect(#[from] sward_scenes::placement::InspectError),
    /// The generator made more placements than its output holds (the
    /// capacity is an upper bound, so this is a bug).
    #[error(
        "GPU placement generated {generated} placements, more than the {capacity} it made room for"
    )]
    Capacity {
        /// Placements generated.
        generated: u32,
        /// Room in the output.
        capacity: u32,
    },
    /// Reading the result back failed.
    #[error("GPU placement readback: {0}")]
    Readback(String),
}
