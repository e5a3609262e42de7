//! Grass `gpu-cull` as a registered technique: its parameters, the
//! registry [`ENTRY`], [`GpuCullTier`] (the cull over the renderer's shared
//! height atlas, whole or streaming), the tile preparer and residency
//! updates.

use std::collections::BTreeMap;

use sward_scenes::{Placements, TileCoord, World};

use super::patches::PatchSet;
use super::pool::Pools;
use super::{
    Capacity, CullMode, DistanceLod, GpuCull, GpuCullOptions, MultiDraw, PatchSize, Placement,
    PreparedPatches,
};
use crate::error::PassError;

/// The `patch` parameter of grass `gpu-cull`.
pub const PATCH_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "patch",
    kind: crate::technique::ParamKind::IntChoice {
        values: &[1, 2, 4],
        default: 2,
    },
    description: "patch side in MCNKs: the cull's unit (1x1, 2x2 or 4x4 MCNKs per patch)",
};

/// The `cull` parameter of grass `gpu-cull`.
pub const CULL_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "cull",
    kind: crate::technique::ParamKind::Choice {
        values: &["instance", "patch"],
        default: "instance",
    },
    description: "instance: test every clump of a visible patch and draw the compacted survivors (one draw per model); patch: draw whole visible patches",
};

/// The `lod-floor` parameter of grass `gpu-cull`.
pub const LOD_FLOOR_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "lod-floor",
    kind: crate::technique::ParamKind::Float {
        min: 0.0,
        max: 1.0,
        default: 1.0,
    },
    description: "distance LOD: share of clumps kept at the draw distance (1 = off); each clump's own hash decides, fading out before it drops (cull=instance)",
};

/// The `lod-start` parameter of grass `gpu-cull`.
pub const LOD_START_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "lod-start",
    kind: crate::technique::ParamKind::Float {
        min: 0.0,
        max: 0.95,
        default: 0.5,
    },
    description: "distance LOD: where thinning starts, as a fraction of the grass draw distance",
};

/// The `occlusion` parameter of grass `gpu-cull`.
pub const OCCLUSION_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "occlusion",
    kind: crate::technique::ParamKind::Choice {
        values: &["off", "on", "auto"],
        default: "off",
    },
    description: "Hi-Z occlusion: drop clumps the terrain drawn before them hides (a farthest-depth pyramid of this frame's terrain; cull=instance); auto runs it only while it hides at least 2% of the clumps it tests",
};

/// The `placement` parameter of grass `gpu-cull`.
pub const PLACEMENT_PARAM: crate::technique::ParamSpec = crate::technique::ParamSpec {
    name: "placement",
    kind: crate::technique::ParamKind::Choice {
        values: &["descriptors", "gpu"],
        default: "descriptors",
    },
    description: "descriptors: a 16-byte descriptor per placement, built per tile on the CPU and stored; gpu: one record per MCNK, the placements generated on the GPU each frame for the MCNKs within the draw distance and the frustum (cull=instance)",
};

/// Registry entry of grass `gpu-cull`.
pub const ENTRY: crate::technique::TechniqueEntry = crate::technique::TechniqueEntry {
    subsystem: crate::technique::Subsystem::Grass,
    name: "gpu-cull",
    summary: "compact per-placement descriptors in patches, compute patch culling, multi-draw-indirect, Z from the height atlas",
    params: &[
        PATCH_PARAM,
        CULL_PARAM,
        LOD_FLOOR_PARAM,
        LOD_START_PARAM,
        OCCLUSION_PARAM,
        PLACEMENT_PARAM,
        crate::technique::MULTI_DRAW,
    ],
    requires: crate::technique::GPU_CULL_CAPABILITIES,
    fallback: Some("static-batch"),
    build: |i, params| Ok(Box::new(GpuCullTier::new(i, params)?)),
};

/// What grass `gpu-cull` derives from one streamed tile on the tile
/// workers: its patch set (the height-atlas tiles are the renderer's, made
/// once for every technique that binds the atlas).
struct GrassCullTile {
    patches: Option<PreparedPatches>,
    /// `placement=gpu`: the tile's record bounds, coverage and placement
    /// bounds (no descriptor is built).
    records: Option<super::generated::PreparedRecords>,
}

/// Grass `gpu-cull` as a registered technique: the cull over the height
/// atlas its placements take Z from. The atlas is the renderer's
/// ([`crate::technique::SharedResources::height_atlas_for`]), shared with the atlas terrain
/// tiers; this tier binds it and never writes it.
///
/// When the world streams (`SceneData::atlas_reach` is some), the atlas
/// reaches over every tile of the source and the cull's pools are sized for
/// `max_resident_tiles` tiles; a residency change then updates the atlas
/// (the renderer, once per tile) and then the cull per tile
/// ([`GpuCull::set_tile`], one [`GpuCull::commit`] per batch). A world
/// resident whole is packed exactly ([`GpuCull::new`]) and never changes.
pub struct GpuCullTier {
    cull: GpuCull,
    /// Whether the tier follows a streaming window (pools with room).
    streaming: bool,
}

/// Entries a tile's placements make at most: one per (patch, model) and
/// one more per descriptor page end.
fn entry_estimate(p: &Placements, pools: &Pools, patch: PatchSize) -> usize {
    let n = patch.chunks();
    let pairs: std::collections::HashSet<(u32, u32, u16)> = p
        .groups
        .iter()
        .map(|g| (g.chunk.x / n, g.chunk.y / n, g.model))
        .collect();
    pairs.len() + pools.desc_pages(p.len()) as usize
}

impl GpuCullTier {
    fn new(
        i: &crate::technique::BuildInputs<'_>,
        params: &crate::technique::Params,
    ) -> Result<Self, PassError> {
        let patch = match params.int(&PATCH_PARAM) {
            1 => PatchSize::Mcnk,
            4 => PatchSize::Block4,
            _ => PatchSize::Block2,
        };
        let multi_draw = Some(
            if crate::technique::count_variant(i.gpu, "grass.gpu-cull", params)? {
                MultiDraw::Count
            } else {
                MultiDraw::Plain
            },
        );
        let cull = match params.text(&CULL_PARAM) {
            "patch" => CullMode::Patch,
            _ => CullMode::Instance,
        };
        let lod = DistanceLod {
            start: params.float(&LOD_START_PARAM) as f32,
            floor: params.float(&LOD_FLOOR_PARAM) as f32,
        };
        let options = GpuCullOptions {
            patch,
            multi_draw,
            cull,
            lod,
            occlusion: params.text(&OCCLUSION_PARAM) != "off",
            occlusion_auto: params.text(&OCCLUSION_PARAM) == "auto",
            placement: match params.text(&PLACEMENT_PARAM) {
                "gpu" => Placement::Gpu,
                _ => Placement::Descriptors,
            },
        };
        let world = i.scene.world;
        let models = crate::grass::GrassModels::shared(i.resources)?;
        let reach = i.scene.atlas_reach();
        let atlas = i.shared.height_atlas_for(i.gpu, &i.scene)?;
        if options.placement == Placement::Gpu {
            // Records per tile, whole or streaming alike.
            let tiles = world.tiles();
            let slots = i.scene.max_resident_tiles.max(tiles.len()) as u32;
            let mut cull =
                GpuCull::with_generation(i.gpu, models, &i.scene, atlas, options, slots)?;
            for t in tiles {
                cull.set_tile_records(i.gpu, t.coord, Some(t), None, atlas)?;
            }
            cull.commit_generation(i.gpu, models);
            i.gpu.flush_copies();
            return Ok(GpuCullTier {
                cull,
                streaming: reach.is_some(),
            });
        }
        if reach.is_none() {
            let cull = GpuCull::new(
                i.gpu,
                models,
                world,
                i.scene.placements.all(),
                atlas,
                options,
            )?;
            return Ok(GpuCullTier {
                cull,
                streaming: false,
            });
        }
        // Streaming: pools for `max_resident_tiles` tiles as large as the
        // largest resident one (they grow if a larger one comes), filled
        // tile by tile in window order.
        let pools = GpuCull::streaming_pools(patch);
        let tiles: Vec<TileCoord> = world.tiles().iter().map(|t| t.coord).collect();
        let mut per_tile = (1u32, 1u32);
        for &t in &tiles {
            if let Some(p) = i.scene.placements.tile(t) {
                per_tile.0 = per_tile.0.max(pools.desc_pages(p.len()));
                per_tile.1 = per_tile
                    .1
                    .max(pools.entry_pages(entry_estimate(&p, &pools, patch)));
            }
        }
        let max_tiles = i.scene.max_resident_tiles.max(tiles.len()) as u32;
        let capacity = Capacity {
            desc_pages: max_tiles * per_tile.0,
            entry_pages: max_tiles * per_tile.1,
            slots: max_tiles,
        };
        let mut cull = GpuCull::empty(i.gpu, models, atlas, options, pools, capacity)?;
        for t in tiles {
            let p = i.scene.placements.tile(t);
            cull.set_tile(i.gpu, world, t, p.as_deref(), atlas)?;
        }
        cull.commit(i.gpu, models);
        // Staged writes of the tiles placed above: sent with the build.
        i.gpu.flush_copies();
        Ok(GpuCullTier {
            cull,
            streaming: true,
        })
    }
}

impl crate::technique::Technique for GpuCullTier {
    fn record<'a>(
        &'a mut self,
        inputs: crate::technique::RecordInputs<'a>,
        graph: &mut sward_engine::graph::RenderGraph<'a>,
    ) {
        if self.cull.generates() {
            let s = &inputs.frame.view.settings;
            let amplitude = if s.wind { s.wind_amplitude } else { 0.0 };
            let grown = inputs
                .shared
                .bound_height_atlas("grass.gpu-cull")
                .and_then(|atlas| {
                    self.cull.reserve_generation(
                        inputs.frame.gpu,
                        atlas,
                        s.grass_distance,
                        amplitude,
                    )
                });
            if let Err(e) = grown {
                log::error!("grass.gpu-cull: placement=gpu cannot grow its buffers: {e}");
            }
        }
        let models = crate::grass::GrassModels::recorded(inputs.resources);
        self.cull.record(inputs.frame, graph, models);
    }

    /// The cull's own memory (the shared height atlas is the renderer's).
    fn gpu_memory_bytes(&self) -> u64 {
        self.cull.gpu_memory_bytes()
    }

    fn shares_height_atlas(&self) -> bool {
        true
    }

    fn facts(&self, _scene: &crate::technique::SceneData<'_>) -> BTreeMap<String, f64> {
        self.cull.facts()
    }

    fn begin_run(&mut self) {
        self.cull.begin_run();
    }

    fn tile_preparer(&self) -> Option<crate::technique::SharedPreparer> {
        if !self.streaming {
            return None;
        }
        let (reach, patch) = self.cull.patch_config();
        let (pools, slots) = self.cull.staging_config();
        // placement=gpu: the records' costly parts (coverage from MCAL,
        // bounds) are prepared here; no descriptor is built.
        let records = self.cull.record_config();
        let generates = records.is_some();
        Some(std::sync::Arc::new(crate::technique::FnPreparer(
            move |i: &crate::technique::PrepareInputs<'_>| {
                let patches = if generates || i.placements.is_empty() {
                    None
                } else {
                    let mut world = World::new("prepare");
                    world.insert(std::sync::Arc::clone(i.tile)).map_err(|e| {
                        PassError::InvalidInput {
                            technique: "grass.gpu-cull",
                            what: format!("tile ({}, {})", i.coord.x, i.coord.y),
                            reason: e.to_string(),
                        }
                    })?;
                    let set = PatchSet::build(&world, i.placements, &reach, patch)?;
                    Some(PreparedPatches::staged(
                        i.device, i.coord, set, &pools, slots,
                    ))
                };
                Ok(GrassCullTile {
                    patches,
                    records: records
                        .as_ref()
                        .map(|c| c.prepare(i.coord, i.tile))
                        .transpose()?,
                })
            },
        )))
    }

    /// Per tile (the renderer's atlas already holds the tile's MCNKs, or
    /// has evicted them): the cull writes its patches into free pool pages
    /// (or frees them); one commit per batch publishes the per-model
    /// regions. A world resident whole (no pools with room) and
    /// chunk-level changes ask for a rebuild.
    fn residency_changed(
        &mut self,
        inputs: &crate::technique::BuildInputs<'_>,
        changes: &[crate::technique::ResidencyChange],
        prepared: &mut crate::technique::PreparedTiles,
    ) -> Result<crate::technique::Residency, PassError> {
        use crate::technique::Residency;
        if !self.streaming {
            return Ok(Residency::Rebuild);
        }
        let (gpu, world) = (inputs.gpu, inputs.scene.world);
        let atlas = inputs.shared.bound_height_atlas("grass.gpu-cull")?;
        let answer = crate::technique::apply_prepared(changes, prepared, world, |t, p| {
            let (set, records) = match p {
                Some(GrassCullTile { patches, records }) => (patches, records),
                None => (None, None),
            };
            if self.cull.generates() {
                puffin::profile_scope!("grass.tile.records");
                let tile = world.tile(t).map(|a| &**a);
                let cull_bytes = self.cull.set_tile_records(gpu, t, tile, records, atlas)?;
                return Ok(Some(cull_bytes));
            }
            puffin::profile_scope!("grass.tile.descriptors");
            let p = inputs.scene.placements.tile(t);
            let cull_bytes =
                self.cull
                    .set_tile_prepared(gpu, world, t, p.as_deref(), atlas, set)?;
            Ok(Some(cull_bytes))
        })?;
        puffin::profile_scope!("grass.commit");
        let models = crate::grass::GrassModels::shared(inputs.resources)?;
        let committed = if self.cull.generates() {
            self.cull.commit_generation(gpu, models)
        } else {
            self.cull.commit(gpu, models)
        };
        Ok(match answer {
            Residency::Applied { bytes_uploaded } => Residency::Applied {
                bytes_uploaded: bytes_uploaded + committed,
            },
            Residency::Rebuild => Residency::Rebuild,
        })
    }
}
