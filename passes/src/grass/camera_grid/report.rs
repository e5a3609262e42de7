//! What `camera-grid` tells the bench report ([`CameraGrid::facts`]): its
//! configuration, the candidates evaluated and, from the CPU mirror at the
//! last recorded view, the blades generated, in range and kept; the
//! compacted list's capacity and the blades that overflowed it; the
//! resident effects; and the placements the per-slot candidate cap drops.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use sward_scenes::World;

use super::compaction::census;
use super::params::GridMode;
use super::tier::CameraGrid;

impl CameraGrid {
    /// Facts for the bench report: configuration, and from the CPU mirror
    /// at the last recorded view the candidates evaluated, blades in range
    /// and (compact mode) blades the compaction keeps.
    pub fn facts(&self, world: &World) -> BTreeMap<String, f64> {
        let mut f = BTreeMap::new();
        f.insert("grid_side".into(), f64::from(self.params.side));
        f.insert("grid_spacing".into(), f64::from(self.params.spacing));
        f.insert(
            "grid_candidates_per_slot".into(),
            f64::from(self.candidates),
        );
        f.insert(
            "grid_compact".into(),
            f64::from(u8::from(self.mode == GridMode::Compact)),
        );
        f.insert("grid_models".into(), self.grid_models.len() as f64);
        f.insert(
            "grid_fallback_models".into(),
            self.fallback_list.len() as f64,
        );
        let total = self.candidates_total();
        f.insert("grid_candidates_per_draw".into(), f64::from(total));
        f.insert(
            "grid_candidates_evaluated".into(),
            f64::from(total)
                * match self.mode {
                    GridMode::Direct => self.grid_models.len() as f64,
                    GridMode::Compact => 1.0,
                },
        );
        let table = &self.res.table;
        f.insert("grid_effects_resident".into(), table.palette().len() as f64);
        f.insert("grid_effects_capacity".into(), table.capacity() as f64);
        if let Some(c) = &self.res.compact {
            f.insert("grid_list_capacity".into(), f64::from(c.capacity));
            f.insert("grid_compaction_bytes".into(), c.bytes() as f64);
            f.insert(
                "grid_overflow_blades".into(),
                self.overflow_max.load(Ordering::Relaxed) as f64,
            );
        }
        let (expected, thinned) = self
            .res
            .control
            .placements_thinned(self.candidates, self.params.spacing_cells());
        f.insert("grid_placements_expected".into(), expected.round());
        f.insert("grid_placements_thinned".into(), thinned.round());
        if let Some(u) = &self.last_uniform {
            let c = census(&self.blade_inputs(world, u), u);
            f.insert("grid_blades_generated".into(), c.generated as f64);
            f.insert("grid_blades_in_range".into(), c.in_range as f64);
            f.insert("grid_blades_in_frustum".into(), c.kept as f64);
        }
        f
    }

    /// A new measured run: the overflow seen starts again.
    pub fn begin_run(&mut self) {
        self.overflow_max.store(0, Ordering::Relaxed);
    }

    /// The largest overflow (blades without room in the compacted list) a
    /// read-back frame had since the run began.
    pub fn overflow_blades(&self) -> u64 {
        self.overflow_max.load(Ordering::Relaxed)
    }
}
