//! Rust mirrors of the GPU placement generator's WGSL structs
//! (`placement_types.wgsl`), bytemuck `#[repr(C)]` with layout tests against
//! naga's reflection: the parameters ([`PlaceParamsGpu`]), the per-MCNK record
//! ([`PlaceChunkGpu`], 48 bytes), the effect table entry ([`PlaceEffectGpu`],
//! 64 bytes), one generated placement ([`PlacedGpu`], 48 bytes) and the
//! per-MCNK counters ([`ChunkStatsGpu`]).

/// `PlaceChunk.layers` code: the MCNK has no such texture layer.
pub const LAYER_NONE: u16 = 0xFFFF;
/// `PlaceChunk.layers` code: the layer has no ground effect.
pub const LAYER_NO_EFFECT: u16 = 0xFFFE;
/// `PlaceChunk.layers` code: the layer's effect id is not in the table.
pub const LAYER_UNKNOWN: u16 = 0xFFFD;
/// Largest effect-table index a record can name.
pub const MAX_EFFECTS: usize = LAYER_UNKNOWN as usize;
/// `PlaceEffect.models` code: an empty slot.
pub const SLOT_EMPTY: u16 = 0xFFFF;
/// `PlaceEffect.models` code: a slot naming a doodad the table lacks.
pub const SLOT_DANGLING: u16 = 0xFFFE;
/// Largest detail model index an effect can name.
pub const MAX_MODELS: usize = SLOT_DANGLING as usize;
/// Largest height-atlas slot a record can name (16 bits).
pub const MAX_ATLAS_SLOT: u32 = 0xFFFF;
/// Words of one record's per-cell coverage block (`PLACE_COVER_WORDS`).
pub const COVER_WORDS: usize = 34;
/// Invocations per workgroup of the generation pass.
pub const WORKGROUP: u32 = 64;

/// The generator's parameters (WGSL `PlaceParams`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PlaceParamsGpu {
    /// Records to generate.
    pub record_count: u32,
    /// Placements the output holds.
    pub capacity: u32,
    /// Client routines: picks per MCNK.
    pub picks: u32,
    /// Always 0 (the opaque zero of `float_exact`).
    pub fence: u32,
    /// per-cell: coverage minimum.
    pub coverage_min: u32,
    /// per-cell: road weight minimum.
    pub road_min: u32,
    /// per-cell: density cap.
    pub density_cap: u32,
    /// per-cell: most clumps per cell.
    pub max_clumps: u32,
    /// per-cell: clump multiplier.
    pub density_scale: f32,
    /// Padding.
    pub _pad0: u32,
    /// Padding.
    pub _pad1: u32,
    /// Padding.
    pub _pad2: u32,
}

/// One MCNK as the generator reads it (WGSL `PlaceChunk`, 48 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PlaceChunkGpu {
    /// Global MCNK x (bits 0..16) and y (bits 16..32).
    pub chunk: u32,
    /// Height-atlas slot (bits 0..16) and `holes_low_res` (bits 16..32).
    pub slot_holes: u32,
    /// The MCNK's stored position x, y.
    pub origin: [f32; 2],
    /// predTex rows, two u16 per word (even row low).
    pub pred_tex: [u32; 4],
    /// noEffectDoodad rows, four bytes per word.
    pub no_effect: [u32; 2],
    /// Per layer, 16 bits: effect-table index or a `LAYER_*` code.
    pub layers: [u32; 2],
}

/// One ground effect (WGSL `PlaceEffect`, 64 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PlaceEffectGpu {
    /// GroundEffectDoodad keys of the four slots.
    pub doodads: [u32; 4],
    /// Resolved selection weights (per-cell).
    pub weights: [u32; 4],
    /// Weights as stored (the 3.3.5 bag).
    pub stored_weights: [u32; 4],
    /// Per slot, 16 bits: model index or a `SLOT_*` code.
    pub models: [u32; 2],
    /// per-cell density (defaulted, capped at 24).
    pub density: u32,
    /// Client routines' density (stored, 0 = 8, uncapped).
    pub client_density: u32,
}

/// One generated placement (WGSL `Placed`, 48 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PlacedGpu {
    /// World position.
    pub position: [f32; 3],
    /// Rotation about +Z in radians.
    pub yaw: f32,
    /// Uniform scale.
    pub scale: f32,
    /// Per-placement seed.
    pub seed: u32,
    /// Index of the MCNK's record in the generation.
    pub record: u32,
    /// Client: pick index; per-cell: attempt index in the cell.
    pub pick: u32,
    /// Client: doodad index within the pick; per-cell: 0.
    pub n: u32,
    /// Cell row (bits 0..8), column (8..16), effect slot (16..24).
    pub cell_slot: u32,
    /// Detail model index.
    pub model: u32,
    /// The slot's GroundEffectDoodad key.
    pub doodad: u32,
}

impl PlacedGpu {
    /// Cell row (0..8).
    pub fn row(&self) -> u32 {
        self.cell_slot & 0xFF
    }
    /// Cell column (0..8).
    pub fn col(&self) -> u32 {
        (self.cell_slot >> 8) & 0xFF
    }
    /// Effect slot (0..4).
    pub fn slot(&self) -> u32 {
        (self.cell_slot >> 16) & 0xFF
    }
}

/// Per-MCNK counters (WGSL `ChunkStats`): the CPU's `PlacementStats` of one
/// MCNK, plus the generator outputs it consumed.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ChunkStatsGpu {
    /// Placements made.
    pub placements: u32,
    /// Cells looked at.
    pub cells_visited: u32,
    /// Skipped: noEffectDoodad.
    pub cells_no_effect_doodad: u32,
    /// Skipped: hole.
    pub cells_hole: u32,
    /// Skipped: predTex layer the MCNK lacks.
    pub cells_invalid_layer: u32,
    /// Skipped: layer without an effect.
    pub cells_no_effect: u32,
    /// Skipped: effect id not in the table.
    pub cells_unknown_effect: u32,
    /// Skipped: effect without a usable slot.
    pub cells_empty_effect: u32,
    /// Skipped (per-cell): low coverage.
    pub cells_low_coverage: u32,
    /// Skipped (per-cell): road.
    pub cells_road: u32,
    /// Cells that got at least one attempt.
    pub cells_placed: u32,
    /// Doodads skipped for an empty slot.
    pub empty_slots: u32,
    /// Doodads whose slot names a doodad the table lacks.
    pub dangling_slots: u32,
    /// Doodads skipped on a too steep triangle (client-3.3.5).
    pub steep_slopes: u32,
    /// Generator outputs consumed (client stream draws; per-cell Rng32 outputs).
    pub draws: u32,
    /// Padding.
    pub _pad: u32,
}

impl ChunkStatsGpu {
    /// The counters the CPU's `PlacementStats` also has, in its field
    /// order (for comparisons): placements, cells visited, the eight skip
    /// reasons, cells placed, empty, dangling, steep.
    pub fn cpu_counters(&self) -> [u64; 14] {
        [
            self.placements,
            self.cells_visited,
            self.cells_no_effect_doodad,
            self.cells_hole,
            self.cells_invalid_layer,
            self.cells_no_effect,
            self.cells_unknown_effect,
            self.cells_empty_effect,
            self.cells_low_coverage,
            self.cells_road,
            self.cells_placed,
            self.empty_slots,
            self.dangling_slots,
            self.steep_slopes,
        ]
        .map(u64::from)
    }

    /// [`Self::cpu_counters`] of a CPU `PlacementStats`.
    pub fn of_cpu(s: &sward_scenes::PlacementStats) -> [u64; 14] {
        [
            s.placements,
            s.cells_visited,
            s.cells_no_effect_doodad,
            s.cells_hole,
            s.cells_invalid_layer,
            s.cells_no_effect,
            s.cells_unknown_effect,
            s.cells_empty_effect,
            s.cells_low_coverage,
            s.cells_road,
            s.cells_placed,
            s.empty_slots,
            s.dangling_slots,
            s.steep_slopes,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structs_match_wgsl() {
        sward_wgsl::assert_layouts!(
            sward_wgsl::modules::PLACEMENT_GENERATE,
            "PlaceParams" => PlaceParamsGpu {
                record_count, capacity, picks, fence, coverage_min, road_min, density_cap,
                max_clumps, density_scale, _pad0, _pad1, _pad2
            },
            "PlaceChunk" => PlaceChunkGpu {
                chunk, slot_holes, origin, pred_tex, no_effect, layers
            },
            "PlaceEffect" => PlaceEffectGpu {
                doodads, weights, stored_weights, models, density, client_density
            },
            "Placed" => PlacedGpu {
                position, yaw, scale, seed, record, pick, n, cell_slot, model, doodad
            },
            "ChunkStats" => ChunkStatsGpu {
                placements, cells_visited, cells_no_effect_doodad, cells_hole, cells_invalid_layer,
                cells_no_effect, cells_unknown_effect, cells_empty_effect, cells_low_coverage,
                cells_road, cells_placed, empty_slots, dangling_slots, steep_slopes, draws, _pad
            },
        );
        assert_eq!(std::mem::size_of::<PlaceChunkGpu>(), 48);
        assert_eq!(std::mem::size_of::<PlaceEffectGpu>(), 64);
        assert_eq!(std::mem::size_of::<PlacedGpu>(), 48);
    }
}
