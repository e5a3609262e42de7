//! Techniques as plugins: the interface every grass and terrain technique
//! implements ([`Technique`]), its registry entry ([`TechniqueEntry`]: name,
//! typed parameters, required capabilities, fallback, constructor), and the
//! tier names the CLI, the report and the viewer use ([`Tier`], [`TierCombo`]).
//!
//! Adding a technique is one module that implements [`Technique`] and exports
//! a `const ENTRY: TechniqueEntry`, plus one line in [`registry`]. Everything
//! else (`--tiers` parsing and its errors, `sward tiers`, capping to the
//! device, the report's parameter sets, the viewer's controls) reads the
//! registry.

mod params;
mod prepare;
mod registry;
mod resources;
mod scene;
mod shared;
mod subsystem;
mod tier;

pub use params::{ParamKind, ParamSpec, ParamValue, Params};
pub use prepare::{
    FnPreparer, PrepareInputs, PreparedTiles, SharedPreparer, StagedBytes, TilePreparer,
};
pub use registry::{
    describe, entry, registry, resource_setups, ParamDescription, TechniqueDescription,
    TechniqueEntry,
};
pub use resources::{ResourceSetup, Resources, SetupInputs};
pub use scene::{PlacementSource, SceneData};
pub use shared::SharedResources;
pub use tier::{
    cap_combo, cap_tier, default_bench_combos, tier_support, Subsystem, Tier, TierCombo,
    TierParseError,
};

use std::collections::BTreeMap;

use sward_engine::graph::RenderGraph;
use sward_engine::GpuContext;
use sward_scenes::world::coords::{ChunkCoord, TileCoord};

use crate::error::PassError;
use crate::frame::Frame;

/// What a technique's constructor gets.
#[derive(Clone, Copy)]
pub struct BuildInputs<'a> {
    /// The device.
    pub gpu: &'a GpuContext,
    /// The resident world and its grass.
    pub scene: SceneData<'a>,
    /// What the techniques of a subsystem share (grass: the detail models
    /// on the GPU), set up by the registry's [`ResourceSetup`]s.
    pub resources: &'a Resources,
    /// How DXT tileset textures reach the GPU (the renderer's
    /// [`crate::renderer::SceneRenderer::with_texture_upload`]).
    pub texture_upload: sward_scenes::formats::TextureUpload,
    /// What the renderer owns for several techniques (the exact height
    /// atlas): [`SharedResources::height_atlas_for`] builds or lends it.
    pub shared: &'a SharedResources,
}

/// What a technique's `record` gets besides the graph.
#[derive(Clone, Copy)]
pub struct RecordInputs<'a> {
    /// The device, the view and the targets this technique draws into.
    pub frame: Frame<'a>,
    /// The resident world and its grass.
    pub scene: SceneData<'a>,
    /// The shared resources the technique was built with.
    pub resources: &'a Resources,
    /// What the renderer owns for several techniques (the height atlas,
    /// already up to date with the resident world).
    pub shared: &'a SharedResources,
}

/// A change of the resident world, as streaming reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResidencyChange {
    /// A whole ADT tile became resident.
    TileResident(TileCoord),
    /// A whole ADT tile was evicted.
    TileEvicted(TileCoord),
    /// One MCNK became resident (or was replaced).
    ChunkResident(ChunkCoord),
    /// One MCNK was evicted.
    ChunkEvicted(ChunkCoord),
}

impl ResidencyChange {
    /// One streaming step's changes in the order the hooks expect:
    /// `evicted` tiles first, then the tiles made `resident`.
    pub fn of_tiles(evicted: &[TileCoord], resident: &[TileCoord]) -> Vec<ResidencyChange> {
        evicted
            .iter()
            .map(|t| ResidencyChange::TileEvicted(*t))
            .chain(resident.iter().map(|t| ResidencyChange::TileResident(*t)))
            .collect()
    }
}

/// Applies `changes` tile by tile with `set_tile` (bytes written, or
/// `None`: no room), for techniques whose per-tile update handles eviction
/// and residency alike (the world passed to it tells which). Chunk-level
/// changes and a full pool answer [`Residency::Rebuild`].
pub fn apply_per_tile(
    changes: &[ResidencyChange],
    mut set_tile: impl FnMut(TileCoord) -> Result<Option<u64>, PassError>,
) -> Result<Residency, PassError> {
    let mut bytes_uploaded = 0;
    for change in changes {
        let tile = match *change {
            ResidencyChange::TileEvicted(t) | ResidencyChange::TileResident(t) => t,
            ResidencyChange::ChunkResident(_) | ResidencyChange::ChunkEvicted(_) => {
                return Ok(Residency::Rebuild)
            }
        };
        match set_tile(tile)? {
            Some(b) => bytes_uploaded += b,
            None => return Ok(Residency::Rebuild),
        }
    }
    Ok(Residency::Applied { bytes_uploaded })
}

/// [`apply_per_tile`] for a technique with a [`TilePreparer`]: `set_tile`
/// also gets the tile's prepared result of type `T` from `prepared` (`None`
/// for a tile `world` no longer holds, or one it must prepare itself).
pub fn apply_prepared<T: std::any::Any>(
    changes: &[ResidencyChange],
    prepared: &mut PreparedTiles,
    world: &sward_scenes::World,
    mut set_tile: impl FnMut(TileCoord, Option<T>) -> Result<Option<u64>, PassError>,
) -> Result<Residency, PassError> {
    apply_per_tile(changes, |tile| {
        let p = prepared.take_resident(world, tile)?;
        set_tile(tile, p)
    })
}

/// What a technique did with a [`ResidencyChange`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Residency {
    /// The technique updated itself in place, uploading `bytes_uploaded`
    /// bytes to the GPU (buffers created with data, queue writes).
    Applied {
        /// Bytes sent to the GPU for the update.
        bytes_uploaded: u64,
    },
    /// The technique cannot update in place: the composer rebuilds it from
    /// the new resident world.
    Rebuild,
}

/// One rendering technique of one subsystem (grass or terrain), built from
/// the resident world by its [`TechniqueEntry::build`].
pub trait Technique {
    /// Adds this frame's passes to `graph`, drawing into
    /// `inputs.frame.targets`.
    fn record<'a>(&'a mut self, inputs: RecordInputs<'a>, graph: &mut RenderGraph<'a>);

    /// GPU memory held by the technique's own buffers and textures (bytes).
    fn gpu_memory_bytes(&self) -> u64;

    /// Technique-specific figures for the bench report (`gpu_cull.patches`, ...).
    fn facts(&self, _scene: &SceneData<'_>) -> BTreeMap<String, f64> {
        BTreeMap::new()
    }

    /// Report figures that need a blocking GPU readback of what the last
    /// submitted frame computed (the clipmap's work per level): read once
    /// after a run's measured frames, never during them.
    fn read_back_facts(&self, _gpu: &GpuContext) -> BTreeMap<String, f64> {
        BTreeMap::new()
    }

    /// A measured run starts: counters that [`Self::facts`] reports over a
    /// run start again from zero. A renderer keeps a technique across
    /// combinations that share its tier, so without this a second run's
    /// counts would include the first's.
    fn begin_run(&mut self) {}

    /// Waits for work the technique started in the background after a
    /// residency change (a bake on a worker thread) and puts its result in
    /// place, so the next frame draws what a fresh build would. The render
    /// loop never needs it (results land by themselves a few frames later);
    /// comparisons with a fresh build do.
    fn settle(&mut self, _gpu: &GpuContext) {}

    /// Resident terrain triangles with holes excluded, where the technique
    /// knows them exactly.
    fn terrain_triangles(&self) -> Option<u64> {
        None
    }

    /// The terrain view distance this technique was configured with (a tier
    /// parameter such as `clipmap:distance=8000`), when it overrides the
    /// frame's `RenderSettings::terrain_distance`. The bench then renders the
    /// tier with `RenderSettings::with_view_distance` of it (fog scaled).
    fn view_distance(&self) -> Option<f32> {
        None
    }

    /// Whether this technique binds the renderer's exact height atlas
    /// ([`SharedResources::height_atlas`]): the renderer keeps the atlas
    /// while a technique of the current combination says so, and rebuilds
    /// such a technique when it has to rebuild the atlas.
    fn shares_height_atlas(&self) -> bool {
        false
    }

    /// The per-tile work this technique can have done off the render
    /// thread before a tile is applied (see [`TilePreparer`]); its results
    /// reach [`Self::residency_changed`] through `prepared`.
    fn tile_preparer(&self) -> Option<SharedPreparer> {
        None
    }

    /// The resident world changed: `changes` (evictions first, then tiles
    /// made resident; a tile resident again is replaced) have been applied
    /// to `inputs.scene`, which is the world after them. `prepared` holds
    /// what [`Self::tile_preparer`] made of the resident tiles on the
    /// workers (tiles missing from it are prepared here). A technique that
    /// updates in place answers [`Residency::Applied`]; the default asks the
    /// composer to rebuild it from the new world.
    fn residency_changed(
        &mut self,
        _inputs: &BuildInputs<'_>,
        _changes: &[ResidencyChange],
        _prepared: &mut crate::technique::PreparedTiles,
    ) -> Result<Residency, PassError> {
        Ok(Residency::Rebuild)
    }
}

/// What the GPU-culled tiers (grass and terrain `gpu-cull`) need: a compute
/// cull writing indirect args, multi-draw-indirect with a first instance,
/// storage buffers in the vertex stage and the R32Float height atlas.
pub const GPU_CULL_CAPABILITIES: &[sward_engine::Capability] = &[
    sward_engine::Capability::Compute,
    sward_engine::Capability::MultiDrawIndirect,
    sward_engine::Capability::IndirectFirstInstance,
    sward_engine::Capability::VertexStorage,
    sward_engine::Capability::R32FloatTexture,
];

/// The `multi-draw` parameter shared by the GPU-culled tiers.
pub const MULTI_DRAW: ParamSpec = ParamSpec {
    name: "multi-draw",
    kind: ParamKind::Choice {
        values: &["auto", "count", "plain"],
        default: "auto",
    },
    description: "multi-draw-indirect call: the count variant where the device has it (auto), count, or plain with zeroed args",
};

/// Whether `params`' `multi-draw` asks for the count variant; `count` on a
/// device without it is an error naming the capability.
pub fn count_variant(
    gpu: &GpuContext,
    technique: &'static str,
    params: &Params,
) -> Result<bool, PassError> {
    let has = gpu
        .caps
        .has(sward_engine::Capability::MultiDrawIndirectCount);
    match params.text(&MULTI_DRAW) {
        "count" if !has => Err(PassError::MissingCapability {
            technique,
            what: "multi-draw=count".into(),
            capability: sward_engine::Capability::MultiDrawIndirectCount,
        }),
        "count" => Ok(true),
        "plain" => Ok(false),
        _ => Ok(has),
    }
}
