//! The one adapter from the streaming terrain techniques (`static-chunks`,
//! `atlas-instanced`, `gpu-cull`) to [`Technique`]: each records with the
//! device alone, updates in place one tile at a time from what its tile
//! preparer made, and reports its splat figures. A technique implements
//! [`TiledTerrain`] (what differs: its draw, its memory, its facts, how it
//! places a tile, its preparer) and gets the whole [`Technique`].

use std::collections::BTreeMap;

use sward_engine::graph::RenderGraph;
use sward_engine::GpuContext;
use sward_scenes::world::coords::TileCoord;
use sward_scenes::World;

use crate::error::PassError;
use crate::frame::Frame;
use crate::technique::{
    BuildInputs, PreparedTiles, RecordInputs, Residency, ResidencyChange, SceneData,
    SharedPreparer, SharedResources, Technique,
};

/// A terrain technique that draws with the device alone and follows the
/// resident world tile by tile.
pub(crate) trait TiledTerrain: 'static {
    /// What its preparer makes of one tile.
    type Tile: std::any::Any;

    /// Adds the frame's passes.
    fn draw<'a>(&'a mut self, frame: Frame<'a>, graph: &mut RenderGraph<'a>);

    /// GPU memory of its buffers and textures (bytes).
    fn memory_bytes(&self) -> u64;

    /// Its report figures.
    fn report_facts(&self) -> BTreeMap<String, f64>;

    /// Places (or, for a tile `world` no longer holds, frees) `tile`, with
    /// its prepared data when a worker made it: bytes uploaded, or `None`
    /// when its pools have no room. `shared` is what the renderer owns for
    /// several techniques (the exact height atlas, already updated for this
    /// change).
    fn place_tile(
        &mut self,
        gpu: &GpuContext,
        shared: &SharedResources,
        world: &World,
        tile: TileCoord,
        prepared: Option<Self::Tile>,
    ) -> Result<Option<u64>, PassError>;

    /// Its per-tile preparation, when it streams.
    fn preparer(&self) -> Option<SharedPreparer>;

    /// After a residency change's tiles are placed (hand what they let go
    /// of to `prepared`).
    fn tiles_placed(&mut self, _prepared: &mut PreparedTiles) {}

    /// Whether it binds the renderer's shared height atlas.
    fn binds_height_atlas(&self) -> bool {
        false
    }

    /// Resident triangles, where it knows them exactly.
    fn triangles(&self) -> Option<u64> {
        None
    }
}

impl<T: TiledTerrain> Technique for T {
    fn record<'a>(&'a mut self, inputs: RecordInputs<'a>, graph: &mut RenderGraph<'a>) {
        self.draw(inputs.frame, graph);
    }

    fn gpu_memory_bytes(&self) -> u64 {
        self.memory_bytes()
    }

    fn facts(&self, _scene: &SceneData<'_>) -> BTreeMap<String, f64> {
        self.report_facts()
    }

    fn terrain_triangles(&self) -> Option<u64> {
        self.triangles()
    }

    fn tile_preparer(&self) -> Option<SharedPreparer> {
        self.preparer()
    }

    fn shares_height_atlas(&self) -> bool {
        self.binds_height_atlas()
    }

    fn residency_changed(
        &mut self,
        inputs: &BuildInputs<'_>,
        changes: &[ResidencyChange],
        prepared: &mut PreparedTiles,
    ) -> Result<Residency, PassError> {
        let world = inputs.scene.world;
        let answer = crate::technique::apply_prepared(changes, prepared, world, |tile, p| {
            self.place_tile(inputs.gpu, inputs.shared, world, tile, p)
        });
        self.tiles_placed(prepared);
        answer
    }
}
