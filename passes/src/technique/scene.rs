//! What a technique is built from: the resident world, its models and
//! placements, the resolved ground effects and where terrain beyond the
//! window comes from. The renderer hands one [`SceneData`] to every
//! technique it builds; it lives here, below both, so techniques never reach
//! up into the renderer for it.

use std::borrow::Cow;

use sward_scenes::effects::ResolvedEffects;
use sward_scenes::placement::{PlacementGroup, Placements, Policy};
use sward_scenes::window::WorldWindow;
use sward_scenes::world::coords::TileCoord;
use sward_scenes::{DetailModel, TileSource, World};

use crate::atlas::layout::IndexWindow;
use crate::atlas::AtlasReach;

/// What the renderer draws: the resident world window and its grass.
#[derive(Clone, Copy)]
pub struct SceneData<'s> {
    /// The resident world (the 3x3 ADT window, or the whole preset when smaller).
    pub world: &'s World,
    /// Detail doodad models, indexed by placement model id.
    pub models: &'s [DetailModel],
    /// Grass placements of the resident window (merged, or per tile).
    pub placements: PlacementSource<'s>,
    /// Resolved ground effects (`camera-grid` resolves models from them).
    pub effects: &'s ResolvedEffects,
    /// The placement policy (`camera-grid` encodes its per-cell rules).
    pub policy: &'s Policy,
    /// Where terrain beyond the resident window comes from (`clipmap`'s
    /// distant levels use its `coarse_height`).
    pub far: Option<&'s dyn TileSource>,
    /// The most tiles resident at once while the world streams (the
    /// resident tiles when it does not): what techniques that update in
    /// place size their pools for.
    pub max_resident_tiles: usize,
}

impl<'s> SceneData<'s> {
    /// The resident window of a built scene (preset or data directory).
    pub fn from_scene(scene: &'s sward_scenes::presets::Scene) -> Self {
        SceneData {
            world: scene.world(),
            models: &scene.models,
            placements: PlacementSource::Window(&scene.window),
            effects: &scene.resolved,
            policy: scene.policy(),
            far: Some(scene.source.as_ref()),
            max_resident_tiles: scene.max_resident_tiles,
        }
    }

    /// How far a streaming height atlas must reach: every tile the source
    /// has (its bounding box) and [`Self::max_resident_tiles`] tiles at
    /// once. `None` when the world is resident whole (the atlas covers the
    /// resident tiles exactly).
    pub fn atlas_reach(&self) -> Option<AtlasReach> {
        let far = self.far?;
        if self.max_resident_tiles <= self.world.tile_count() {
            return None;
        }
        let (mut lo, mut hi) = (TileCoord::new(u32::MAX, u32::MAX), TileCoord::new(0, 0));
        for y in 0..64 {
            for x in 0..64 {
                let t = TileCoord::new(x, y);
                if far.contains(t) {
                    lo = TileCoord::new(lo.x.min(x), lo.y.min(y));
                    hi = TileCoord::new(hi.x.max(x), hi.y.max(y));
                }
            }
        }
        (lo.x <= hi.x).then(|| AtlasReach {
            window: IndexWindow::of_tiles(lo, hi),
            capacity: self.max_resident_tiles * 256,
        })
    }
}

/// Where a [`SceneData`]'s placements come from: one merged store, or a
/// streaming window that keeps them per tile (and merges them only when a
/// technique built from scratch asks for all of them).
#[derive(Clone, Copy)]
pub enum PlacementSource<'s> {
    /// One store of every resident placement.
    Merged(&'s Placements),
    /// The world window's per-tile placements.
    Window(&'s WorldWindow),
}

impl<'s> PlacementSource<'s> {
    /// Every resident placement, in tile order (a window merges its tiles
    /// on the first call after a change).
    pub fn all(&self) -> &'s Placements {
        match *self {
            PlacementSource::Merged(p) => p,
            PlacementSource::Window(w) => w.placements(),
        }
    }

    /// The placements of resident tile `tile` (group starts from 0), or
    /// `None` when it is not resident or has none.
    pub fn tile(&self, tile: TileCoord) -> Option<Cow<'s, Placements>> {
        match *self {
            PlacementSource::Window(w) => w.tile_placements(tile).map(|p| Cow::Borrowed(&**p)),
            PlacementSource::Merged(p) => {
                let mut out = Placements::default();
                for g in p.groups.iter().filter(|g| g.chunk.tile() == tile) {
                    let start = out.items.len() as u32;
                    out.items.extend_from_slice(p.group_items(g));
                    out.groups.push(PlacementGroup { start, ..*g });
                }
                (!out.groups.is_empty()).then_some(Cow::Owned(out))
            }
        }
    }
}

impl<'s> From<&'s Placements> for PlacementSource<'s> {
    fn from(p: &'s Placements) -> Self {
        PlacementSource::Merged(p)
    }
}
