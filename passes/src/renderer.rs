//! The scene renderer: a small composer over the technique registry. It
//! builds each requested tier (technique + parameters) once from the resident
//! world through its registry entry, keeps what it built for later switches,
//! and records a frame's passes in order (terrain, then grass) with the right
//! clear/resolve duties. The bench, `sward shot`, `sward capture` and the
//! viewer all draw through this one type, so every tier is measured the same way.

use sward_engine::graph::{RenderGraph, TextureId};
use sward_engine::{GpuContext, OffscreenTarget};
use sward_scenes::placement::Placements;
use sward_scenes::world::coords::TileCoord;

use std::any::Any;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::error::PassError;
use crate::frame::{Frame, FrameView, PassTargets, RenderSettings};
use crate::grass::{GrassModels, TextureUpload, TextureUploadStats};
pub use crate::technique::{PlacementSource, SceneData};

use crate::technique::{
    BuildInputs, PrepareInputs, PreparedTiles, RecordInputs, Residency, ResidencyChange, Resources,
    SetupInputs, SharedPreparer, SharedResources, Technique, Tier, TierCombo,
};

/// Graph handles of an imported [`OffscreenTarget`].
#[derive(Debug, Clone, Copy)]
pub struct TargetIds {
    /// Where passes render colour (multisampled under MSAA).
    pub color: TextureId,
    /// Single-sample resolve target under MSAA.
    pub resolve: Option<TextureId>,
    /// Depth.
    pub depth: TextureId,
}

impl TargetIds {
    /// Imports `target` into `graph`.
    pub fn import(graph: &mut RenderGraph<'_>, target: &OffscreenTarget) -> Self {
        let color = graph.import_texture("target.color", target.render_color());
        let resolve = target
            .resolve_color()
            .map(|t| graph.import_texture("target.resolve", t));
        let depth = graph.import_texture("target.depth", &target.depth);
        TargetIds {
            color,
            resolve,
            depth,
        }
    }
}

/// What [`SceneRenderer::residency_changed`] did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResidencyReport {
    /// Techniques (tier names) that updated in place.
    pub applied: Vec<String>,
    /// Techniques that had to be rebuilt from the new resident world.
    pub rebuilt: Vec<String>,
    /// Milliseconds spent in place (all techniques).
    pub applied_ms: f64,
    /// The same per part: `("atlas", ms)` for the shared height atlas
    /// (when a technique of the combination binds it), then `("terrain",
    /// ms)` and `("grass", ms)` for the techniques that updated in place,
    /// in that order.
    pub applied_ms_by: Vec<(&'static str, f64)>,
    /// Milliseconds spent rebuilding.
    pub rebuild_ms: f64,
    /// Bytes sent to the GPU: what in-place updates uploaded plus the GPU
    /// memory of every rebuilt technique.
    pub bytes_uploaded: u64,
    /// Technique-tiles whose per-tile preparation ran on a worker thread.
    pub prepared_off_thread: u32,
    /// Technique-tiles a technique with a preparer had to prepare on the
    /// render thread (no worker result for them).
    pub prepared_inline: u32,
}

/// The streamer's per-tile work for one tier combination: every built
/// technique's [`crate::technique::TilePreparer`], run on a worker thread.
struct ComboPreparer {
    device: wgpu::Device,
    /// Per technique: its tier (the key its result travels under), a
    /// profiler label, its preparer.
    parts: Vec<(Tier, String, SharedPreparer)>,
    /// Whether the renderer's height atlas follows residency: its
    /// [`crate::atlas::AtlasTile`] is prepared once for all techniques.
    atlas: bool,
}

/// One technique's preparation of one tile.
type PartResult = Result<Box<dyn Any + Send>, PassError>;

/// What a [`ComboPreparer`] made of one tile, per technique.
struct ComboPrepared {
    parts: Vec<(Tier, PartResult)>,
    /// The shared height atlas's tiles (staged), when it follows residency.
    atlas: Option<PartResult>,
}

impl sward_scenes::streaming::TilePrepare for ComboPreparer {
    fn prepare(
        &self,
        coord: TileCoord,
        tile: &Arc<sward_scenes::AdtTile>,
        placements: &Arc<Placements>,
    ) -> Box<dyn Any + Send> {
        let inputs = PrepareInputs {
            device: &self.device,
            coord,
            tile,
            placements,
        };
        let parts = self
            .parts
            .iter()
            .map(|(tier, label, p)| {
                puffin::profile_scope!("prepare", label.as_str());
                (tier.clone(), p.prepare(&inputs))
            })
            .collect();
        let atlas = self.atlas.then(|| {
            puffin::profile_scope!("prepare", "atlas");
            let tile = crate::atlas::AtlasTile::prepare(tile).staged(&self.device);
            Ok(Box::new(tile) as Box<dyn Any + Send>)
        });
        Box::new(ComboPrepared { parts, atlas })
    }
}

/// Draws a [`SceneData`] with any tier combination the device runs. It
/// holds no borrow of the scene: every call that needs the world gets it,
/// so the scene can change between frames (streaming) while the built
/// techniques live on and update through [`Self::residency_changed`].
pub struct SceneRenderer {
    combo: TierCombo,
    texture_upload: TextureUpload,
    /// What techniques share (grass: the detail models), filled by the
    /// registry's resource setups before the first technique is built.
    resources: Resources,
    /// Whether every setup has run.
    resources_ready: bool,
    grass: HashMap<Tier, Box<dyn Technique>>,
    terrain: HashMap<Tier, Box<dyn Technique>>,
    /// What the techniques share (the exact height atlas), owned here and
    /// handed to each through its inputs.
    shared: SharedResources,
    /// Frees evicted tiles' resources off the render thread (started on
    /// the first residency change).
    reaper: Option<sward_scenes::streaming::Reaper>,
}

impl Default for SceneRenderer {
    fn default() -> Self {
        Self::new()
    }
}

impl SceneRenderer {
    /// A renderer that draws nothing until [`Self::set_tiers`].
    pub fn new() -> Self {
        SceneRenderer {
            combo: TierCombo::new(
                Tier::off(crate::technique::Subsystem::Grass),
                Tier::off(crate::technique::Subsystem::Terrain),
            ),
            texture_upload: TextureUpload::Auto,
            resources: Resources::default(),
            resources_ready: false,
            grass: HashMap::new(),
            terrain: HashMap::new(),
            shared: SharedResources::new(),
            reaper: None,
        }
    }

    /// Uploads DXT detail and tileset textures as `upload` says (default
    /// [`TextureUpload::Auto`]; the command line's `--texture-upload`, one
    /// of its [`sward_scenes::formats::DataOptions`]): the only way the
    /// choice reaches the techniques, through [`BuildInputs`] and the
    /// resource setups ([`SetupInputs`]). Takes effect when the shared
    /// resources are set up and the tiers built, by the first
    /// [`Self::set_tiers`].
    pub fn with_texture_upload(mut self, upload: TextureUpload) -> Self {
        self.texture_upload = upload;
        self
    }

    /// How many detail textures went to the GPU each way (`None` before the
    /// first [`Self::set_tiers`] uploads them).
    pub fn texture_stats(&self) -> Option<TextureUploadStats> {
        self.resources
            .get::<GrassModels>()
            .map(GrassModels::texture_stats)
    }

    /// The combination in use.
    pub fn tiers(&self) -> &TierCombo {
        &self.combo
    }

    /// Runs the registry's resource setups once (again after one failed).
    fn set_up_resources(
        &mut self,
        gpu: &GpuContext,
        scene: SceneData<'_>,
    ) -> Result<(), PassError> {
        if !self.resources_ready {
            let inputs = SetupInputs {
                gpu,
                scene,
                texture_upload: self.texture_upload,
            };
            for setup in crate::technique::resource_setups() {
                setup(&mut self.resources, &inputs)?;
            }
            self.resources_ready = true;
        }
        Ok(())
    }

    /// Switches to `combo`, building (through the registry, from `scene`)
    /// each tier it names that was not built before. The combo must already
    /// be capped to the device (see [`crate::technique::cap_combo`]); a
    /// technique that cannot be built is an error, never a silent swap.
    pub fn set_tiers(
        &mut self,
        gpu: &GpuContext,
        scene: SceneData<'_>,
        combo: &TierCombo,
    ) -> Result<(), PassError> {
        self.set_up_resources(gpu, scene)?;
        let texture_upload = self.texture_upload;
        let SceneRenderer {
            resources,
            grass,
            terrain,
            shared,
            ..
        } = self;
        let inputs = BuildInputs {
            gpu,
            scene,
            resources,
            texture_upload,
            shared,
        };
        for (tier, built) in [(&combo.terrain, terrain), (&combo.grass, grass)] {
            if let (Some(entry), false) = (tier.entry(), built.contains_key(tier)) {
                built.insert(tier.clone(), (entry.build)(&inputs, tier.params())?);
            }
        }
        self.combo = combo.clone();
        Ok(())
    }

    /// Waits for the current combination's techniques' background work
    /// after a residency change (see [`Technique::settle`]).
    pub fn settle(&mut self, gpu: &GpuContext) {
        for t in self.current_mut() {
            t.settle(gpu);
        }
    }

    /// Waits until what residency changes handed to the reaper so far is
    /// freed (figures such as the soak's live heap then do not depend on
    /// when the reaper last ran).
    pub fn release_garbage(&self) {
        if let Some(r) = &self.reaper {
            r.wait_idle();
        }
    }

    /// A measured run of the current combination starts: its techniques'
    /// per-run counters start again (see [`Technique::begin_run`]).
    pub fn begin_run(&mut self) {
        for t in self.current_mut() {
            t.begin_run();
        }
    }

    /// The current combination's built techniques (terrain, then grass).
    fn current_mut(&mut self) -> impl Iterator<Item = &mut Box<dyn Technique>> {
        let SceneRenderer {
            combo,
            grass,
            terrain,
            ..
        } = self;
        [terrain.get_mut(&combo.terrain), grass.get_mut(&combo.grass)]
            .into_iter()
            .flatten()
    }

    /// The per-tile work of the current combination's techniques, for the
    /// streamer's worker threads (`None` when no technique has any). Set it
    /// after [`Self::set_tiers`]; results of another combination's preparer
    /// are ignored by [`Self::residency_changed`].
    pub fn tile_preparer(
        &self,
        gpu: &GpuContext,
    ) -> Option<Arc<dyn sward_scenes::streaming::TilePrepare>> {
        let parts: Vec<(Tier, String, SharedPreparer)> = [
            (&self.combo.terrain, &self.terrain),
            (&self.combo.grass, &self.grass),
        ]
        .into_iter()
        .filter_map(|(tier, built)| {
            let p = built.get(tier)?.tile_preparer()?;
            let label = format!("{}/{tier}", tier.subsystem().name());
            Some((tier.clone(), label, p))
        })
        .collect();
        if parts.is_empty() {
            return None;
        }
        let atlas = self.shares_height_atlas() && self.shared.height_atlas().is_some();
        Some(Arc::new(ComboPreparer {
            device: gpu.device.clone(),
            parts,
            atlas,
        }))
    }

    /// The resident world changed by `changes` (already applied to `scene`,
    /// evictions first): every technique of the current combination updates
    /// in place through [`Technique::residency_changed`], or is rebuilt from
    /// `scene` when it answers [`Residency::Rebuild`]. `prepared` is what
    /// the streamer's workers made of the resident tiles with
    /// [`Self::tile_preparer`] (by tile; empty when streaming synchronously).
    /// Techniques built for other combinations are dropped (a later switch
    /// builds them again from the world of that time).
    pub fn residency_changed(
        &mut self,
        gpu: &GpuContext,
        scene: SceneData<'_>,
        changes: &[ResidencyChange],
        prepared: sward_scenes::streaming::PreparedByTile,
    ) -> Result<ResidencyReport, PassError> {
        let mut report = ResidencyReport::default();
        if changes.is_empty() {
            return Ok(report);
        }
        let mut parts: HashMap<Tier, PreparedTiles> = HashMap::new();
        let mut atlas_tiles = PreparedTiles::none();
        for (tile, value) in prepared {
            let Ok(combo) = value.downcast::<ComboPrepared>() else {
                continue;
            };
            for (key, result) in combo.parts {
                parts.entry(key).or_default().insert(tile, result);
            }
            if let Some(result) = combo.atlas {
                atlas_tiles.insert(tile, result);
            }
        }
        self.set_up_resources(gpu, scene)?;
        let texture_upload = self.texture_upload;
        // Techniques built for other combinations go (see above).
        self.grass.retain(|t, _| *t == self.combo.grass);
        self.terrain.retain(|t, _| *t == self.combo.terrain);
        // What the techniques let go of, freed on the reaper thread in one
        // hand-over per change.
        let mut garbage: Vec<Box<dyn Any + Send>> = Vec::new();
        // The shared height atlas first, each change once: the techniques
        // then read the slots it gave the tiles' MCNKs. It goes when no
        // technique of the combination binds it.
        let mut atlas_rebuilt = false;
        if !self.shares_height_atlas() {
            if let Some(atlas) = self.shared.take_height_atlas() {
                garbage.push(Box::new(atlas));
            }
        } else {
            let started = std::time::Instant::now();
            let answer = self
                .shared
                .apply_residency(gpu, &scene, changes, &mut atlas_tiles)?;
            let ms = started.elapsed().as_secs_f64() * 1e3;
            garbage.append(&mut atlas_tiles.take_garbage());
            match answer {
                Some(Residency::Applied { bytes_uploaded }) => {
                    report.applied_ms += ms;
                    report.applied_ms_by.push(("atlas", ms));
                    report.bytes_uploaded += bytes_uploaded;
                }
                Some(Residency::Rebuild) => {
                    atlas_rebuilt = true;
                    report.bytes_uploaded += self.shared.gpu_memory_bytes();
                    report.rebuild_ms += ms;
                }
                None => {}
            }
        }
        let SceneRenderer {
            combo,
            resources,
            grass,
            terrain,
            shared,
            reaper,
            ..
        } = self;
        let inputs = BuildInputs {
            gpu,
            scene,
            resources,
            texture_upload,
            shared,
        };
        for (subsystem, tier, built) in [
            ("terrain", &combo.terrain, terrain),
            ("grass", &combo.grass, grass),
        ] {
            let Some(technique) = built.get_mut(tier) else {
                continue;
            };
            let started = std::time::Instant::now();
            if atlas_rebuilt && technique.shares_height_atlas() {
                // Its bind groups hold the atlas that was replaced.
                let entry = tier.entry().expect("a built tier has an entry");
                *technique = (entry.build)(&inputs, tier.params())?;
                report.bytes_uploaded += technique.gpu_memory_bytes();
                report.rebuilt.push(tier.to_string());
                report.rebuild_ms += started.elapsed().as_secs_f64() * 1e3;
                continue;
            }
            let mut mine = parts.remove(tier).unwrap_or_default();
            let answer = technique.residency_changed(&inputs, changes, &mut mine)?;
            let ms = started.elapsed().as_secs_f64() * 1e3;
            garbage.append(&mut mine.take_garbage());
            report.prepared_off_thread += mine.taken();
            report.prepared_inline += mine.missed();
            match answer {
                Residency::Applied { bytes_uploaded } => {
                    report.applied.push(tier.to_string());
                    report.applied_ms += ms;
                    report.applied_ms_by.push((subsystem, ms));
                    report.bytes_uploaded += bytes_uploaded;
                }
                Residency::Rebuild => {
                    let entry = tier.entry().expect("a built tier has an entry");
                    *technique = (entry.build)(&inputs, tier.params())?;
                    report.bytes_uploaded += technique.gpu_memory_bytes();
                    report.rebuilt.push(tier.to_string());
                    report.rebuild_ms += started.elapsed().as_secs_f64() * 1e3;
                }
            }
        }
        reaper
            .get_or_insert_with(sward_scenes::streaming::Reaper::new)
            .discard(garbage);
        Ok(report)
    }

    /// Whether a technique of the current combination binds the shared
    /// height atlas ([`Technique::shares_height_atlas`]).
    fn shares_height_atlas(&self) -> bool {
        self.current().any(|t| t.shares_height_atlas())
    }

    /// The exact height atlas the renderer holds for its techniques (built
    /// when the first technique that binds it was; see
    /// [`SharedResources`]).
    pub fn height_atlas(&self) -> Option<&crate::atlas::HeightAtlas> {
        self.shared.height_atlas()
    }

    /// GPU memory of what the renderer holds for the current combination's
    /// techniques together (the shared height atlas, counted once, while a
    /// current technique binds it).
    pub fn shared_gpu_memory_bytes(&self) -> u64 {
        if self.shares_height_atlas() {
            self.shared.gpu_memory_bytes()
        } else {
            0
        }
    }

    fn current(&self) -> impl Iterator<Item = &dyn Technique> {
        [
            self.terrain.get(&self.combo.terrain),
            self.grass.get(&self.combo.grass),
        ]
        .into_iter()
        .flatten()
        .map(|t| t.as_ref())
    }

    /// GPU memory held by the shared detail models (bytes; 0 before the
    /// first [`Self::set_tiers`] uploads them).
    pub fn models_gpu_memory_bytes(&self) -> u64 {
        self.resources
            .get::<GrassModels>()
            .map_or(0, GrassModels::gpu_memory_bytes)
    }

    /// GPU memory held by the current combination's resources (bytes; the
    /// shared height atlas once: [`Self::shared_gpu_memory_bytes`]).
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.current().map(|t| t.gpu_memory_bytes()).sum::<u64>() + self.shared_gpu_memory_bytes()
    }

    /// GPU memory held by the current grass technique (bytes; the shared
    /// height atlas included when it binds it, as it would own one alone;
    /// 0 with grass off).
    pub fn grass_gpu_memory_bytes(&self) -> u64 {
        self.grass.get(&self.combo.grass).map_or(0, |t| {
            let atlas = if t.shares_height_atlas() {
                self.shared.gpu_memory_bytes()
            } else {
                0
            };
            t.gpu_memory_bytes() + atlas
        })
    }

    /// Technique-specific facts of the current combination for the bench
    /// report (`camera-grid`: grid configuration, candidates, blades; grass
    /// `gpu-cull`: patch size, patches, entries, which multi-draw ran;
    /// terrain `gpu-cull`: which multi-draw ran, MCNKs kept lately; clipmap:
    /// levels and pieces).
    pub fn facts(&self, scene: &SceneData<'_>) -> BTreeMap<String, f64> {
        let mut facts = BTreeMap::new();
        for t in self.current() {
            facts.extend(t.facts(scene));
        }
        facts
    }

    /// [`Technique::read_back_facts`] of the current combination: blocking
    /// readbacks of the last submitted frame (after a run's frames).
    pub fn read_back_facts(&self, gpu: &GpuContext) -> BTreeMap<String, f64> {
        let mut facts = BTreeMap::new();
        for t in self.current() {
            facts.extend(t.read_back_facts(gpu));
        }
        facts
    }

    /// Resident terrain triangles (holes excluded) from any built technique
    /// that knows them exactly (the static-chunk path).
    pub fn terrain_triangles(&self) -> Option<u64> {
        self.terrain.values().find_map(|t| t.terrain_triangles())
    }

    /// The view distance the active terrain tier asks for (see
    /// [`Technique::view_distance`]), if any.
    pub fn view_distance(&self) -> Option<f32> {
        self.terrain
            .get(&self.combo.terrain)
            .and_then(|t| t.view_distance())
    }

    /// `settings` for a frame of the active tiers: a terrain tier with its
    /// own view distance ([`Self::view_distance`], e.g.
    /// `clipmap:distance=8000`) moves the terrain distance there and scales
    /// the fog with it ([`RenderSettings::with_view_distance`]), so the far
    /// terrain it draws is seen; otherwise `settings` unchanged.
    pub fn settings_for(&self, settings: RenderSettings) -> RenderSettings {
        self.view_distance()
            .map_or(settings, |d| settings.with_view_distance(d))
    }

    /// Adds this frame's passes: terrain first (it clears), grass last (it
    /// resolves MSAA). With both subsystems off a `frame.clear` pass clears.
    pub fn record<'a>(
        &'a mut self,
        gpu: &'a GpuContext,
        scene: SceneData<'a>,
        graph: &mut RenderGraph<'a>,
        view: &'a FrameView,
        targets: TargetIds,
    ) {
        let duty = |clear: bool, last: bool| PassTargets {
            color: targets.color,
            depth: targets.depth,
            resolve: if last { targets.resolve } else { None },
            clear,
        };
        let SceneRenderer {
            combo,
            resources,
            resources_ready,
            grass,
            terrain,
            shared,
            ..
        } = self;
        let terrain = terrain.get_mut(&combo.terrain);
        let grass = grass.get_mut(&combo.grass);
        if !*resources_ready || (terrain.is_none() && grass.is_none()) {
            let (color_load, depth_load) = duty(true, true).load_ops(&view.settings);
            graph
                .add_render_pass("frame.clear")
                .color(targets.color, color_load, targets.resolve)
                .depth(targets.depth, depth_load, wgpu::StoreOp::Store)
                .record(|_| {});
            return;
        }
        let inputs = |targets| RecordInputs {
            frame: Frame { gpu, view, targets },
            scene,
            resources,
            shared,
        };
        let grass_on = grass.is_some();
        let terrain_on = terrain.is_some();
        if let Some(t) = terrain {
            t.record(inputs(duty(true, !grass_on)), graph);
        }
        if let Some(g) = grass {
            g.record(inputs(duty(!terrain_on, true)), graph);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::technique::TierCombo;

    /// `clipmap:distance=N` moves the frame's terrain distance to `N` and
    /// scales the fog with it; a tier without a distance of its own leaves
    /// the settings alone.
    #[test]
    fn a_terrain_tier_with_its_own_distance_sets_the_frame_settings() {
        let Some(gpu) = sward_engine::testing::gpu() else {
            return;
        };
        let scene = crate::testkit::preset("seams-holes");
        let base = RenderSettings::default();
        let mut renderer = SceneRenderer::new();
        let mut switch = |text: &str| {
            let combo = &TierCombo::parse_list(text).expect("tiers")[0];
            renderer
                .set_tiers(&gpu, SceneData::from_scene(scene), combo)
                .expect("builds");
            renderer.settings_for(base)
        };
        let far = switch("off+clipmap:distance=8000");
        assert_eq!(far.terrain_distance, 8000.0);
        assert_eq!(far.fog_range, base.fog_range.map(|f| f * 8.0));
        assert_eq!(
            RenderSettings {
                terrain_distance: base.terrain_distance,
                fog_range: base.fog_range,
                ..far
            },
            base,
            "nothing else changes"
        );
        assert_eq!(switch("off+clipmap"), base);
        assert_eq!(switch("off+atlas-instanced"), base);
    }
}
