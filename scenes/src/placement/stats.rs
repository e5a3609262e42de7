//! Counters of what placement did and skipped, per reason.

/// What a placement run did. Cell counters count cells a policy looked at
/// (the client policy can look at the same cell more than once).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PlacementStats {
    /// MCNKs processed.
    pub mcnks: u64,
    /// Cells looked at.
    pub cells_visited: u64,
    /// Skipped: noEffectDoodad bit set.
    pub cells_no_effect_doodad: u64,
    /// Skipped: terrain hole.
    pub cells_hole: u64,
    /// Skipped: predTex layer `>= n_layers` (bad data, reported).
    pub cells_invalid_layer: u64,
    /// Skipped: the layer has no ground effect.
    pub cells_no_effect: u64,
    /// Skipped: the layer's effect id is not in GroundEffectTexture (bad data).
    pub cells_unknown_effect: u64,
    /// Skipped: the effect has no usable doodad slot.
    pub cells_empty_effect: u64,
    /// Skipped (per-cell): layer coverage below the minimum.
    pub cells_low_coverage: u64,
    /// Skipped (per-cell): an effect-less road layer covers the cell.
    pub cells_road: u64,
    /// Cells that received at least one attempt.
    pub cells_placed: u64,
    /// Doodads skipped because their slot was empty (client).
    pub empty_slots: u64,
    /// Doodads whose draws were made but that place nothing because their
    /// slot names no GroundEffectDoodad record (dangling references).
    pub dangling_slots: u64,
    /// Doodads skipped because the terrain triangle under them is too steep
    /// (client-3.3.5: unit normal z below 0.4).
    pub steep_slopes: u64,
    /// Placements made.
    pub placements: u64,
    /// Placements per model index.
    pub per_model: Vec<u64>,
}

impl PlacementStats {
    /// Zeroed stats for `model_count` models.
    pub fn new(model_count: usize) -> Self {
        Self {
            per_model: vec![0; model_count],
            ..Self::default()
        }
    }

    /// Adds another run's counters to these.
    pub fn add(&mut self, o: &Self) {
        self.mcnks += o.mcnks;
        self.cells_visited += o.cells_visited;
        self.cells_no_effect_doodad += o.cells_no_effect_doodad;
        self.cells_hole += o.cells_hole;
        self.cells_invalid_layer += o.cells_invalid_layer;
        self.cells_no_effect += o.cells_no_effect;
        self.cells_unknown_effect += o.cells_unknown_effect;
        self.cells_empty_effect += o.cells_empty_effect;
        self.cells_low_coverage += o.cells_low_coverage;
        self.cells_road += o.cells_road;
        self.cells_placed += o.cells_placed;
        self.empty_slots += o.empty_slots;
        self.dangling_slots += o.dangling_slots;
        self.steep_slopes += o.steep_slopes;
        self.placements += o.placements;
        if self.per_model.len() < o.per_model.len() {
            self.per_model.resize(o.per_model.len(), 0);
        }
        for (a, b) in self.per_model.iter_mut().zip(&o.per_model) {
            *a += b;
        }
    }
}
