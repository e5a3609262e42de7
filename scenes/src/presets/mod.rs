//! Procedural scene presets (deterministic, no files) and their registry.
//!
//! | preset | terrain | tiles | resident | placement |
//! |---|---|---|---|---|
//! | `elwynn-dense` | Elwynn-like | 3x3 | 3x3 | per-cell, tuned to 465,524 (reference count of a 3x3 Elwynn window) |
//! | `elwynn-client` | same | 3x3 | 3x3 | client, frillDensity 16 |
//! | `seams-holes` | cliffs, many holes, sparse flowers | 2x2 | 2x2 | per-cell |
//! | `continent` | Elwynn-like | 16x16 | 3x3 around the centre | per-cell |
//! | `scale-0.25` .. `scale-16` | as `elwynn-dense` | 3x3 | 3x3 | per-cell x N |
//!
//! [`Preset::build`] returns a [`Scene`]: the resident world window, the
//! ground-effect tables, the 14 detail models, the placements, named views
//! and a walk path that crosses an ADT border.

mod noise;
mod open;
mod tables;
pub mod terrain;
pub mod tileset;
pub mod views;

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

pub use open::{open_preset, SceneError};
pub use tables::{doodad_id, preset_effects};
pub use terrain::TerrainParams;
pub use views::{CameraPath, Keyframe, ViewPose};

use crate::effects::{EffectError, GroundEffects, ResolvedEffects};
use crate::models::{elwynn_models, DetailModel, ModelError};
use crate::placement::{
    inspect_placements, ClientParams, DensityError, InspectError, PerCellParams, Placement,
    PlacementRecord, PlacementStats, Placements, Policy,
};
use crate::window::{TileSource, WindowError, WindowSlide, WorldWindow};
use crate::world::coords::{self, TileCoord, TILE_SIZE};
use crate::world::{AdtTile, World, TILE_MCNKS};

/// Per-cell `density_scale` that brings `elwynn-dense` to 465,524
/// placements, the reference count of a 3x3 Elwynn window (measured; see the
/// preset test).
pub const ELWYNN_DENSITY_SCALE: f32 = 0.9604;
/// The reference placement count `elwynn-dense` is tuned to (a 3x3 Elwynn
/// window in the original engine).
pub const ELWYNN_TARGET_PLACEMENTS: u64 = 465_524;

const SEED: u32 = 0x5a4d_0001;
const CENTRE: TileCoord = TileCoord::new(32, 48);

/// Errors of presets.
#[derive(Debug, thiserror::Error)]
pub enum PresetError {
    /// No preset has this name.
    #[error("unknown preset `{name}`; valid presets: {valid}")]
    Unknown {
        /// The name asked for.
        name: String,
        /// Comma-separated valid names.
        valid: String,
    },
    /// The effect tables do not resolve.
    #[error(transparent)]
    Effects(#[from] EffectError),
    /// Loading the window failed.
    #[error(transparent)]
    Window(#[from] WindowError),
    /// A model is invalid.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// `--density` does not apply to the preset's placement (callers name
    /// the preset).
    #[error("{source}")]
    Density {
        /// The preset.
        preset: &'static str,
        /// Why.
        source: DensityError,
    },
}

/// Tiles generated on demand from [`TerrainParams`] over a rectangle.
#[derive(Clone, Debug)]
pub struct ProceduralSource {
    /// The generator.
    pub params: TerrainParams,
    /// Tile columns present.
    pub xs: Range<u32>,
    /// Tile rows present.
    pub ys: Range<u32>,
}

impl TileSource for ProceduralSource {
    fn contains(&self, c: TileCoord) -> bool {
        self.xs.contains(&c.x) && self.ys.contains(&c.y)
    }

    fn load(&self, c: TileCoord) -> Result<AdtTile, WindowError> {
        if !self.contains(c) {
            return Err(WindowError::Load {
                tile: c,
                reason: "outside the preset's tiles".into(),
            });
        }
        Ok(self.params.tile(c))
    }

    fn tile_count(&self) -> usize {
        self.xs.len() * self.ys.len()
    }

    /// The generator's height: the exact MCVT value at vertex positions.
    fn coarse_height(&self, gx: f64, gy: f64) -> Option<f32> {
        let tiles = f64::from(coords::TILE_CHUNKS * coords::CHUNK_CELLS);
        let inside = |g: f64, r: &Range<u32>| {
            g >= f64::from(r.start) * tiles && g <= f64::from(r.end) * tiles
        };
        (inside(gx, &self.xs) && inside(gy, &self.ys)).then(|| self.params.height(gx, gy))
    }
}

/// A named preset.
#[derive(Clone, Debug, PartialEq)]
pub struct Preset {
    /// Registry name.
    pub name: &'static str,
    /// One-line description.
    pub description: &'static str,
    terrain: TerrainParams,
    xs: Range<u32>,
    ys: Range<u32>,
    policy: Policy,
}

/// What `sward presets` lists.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PresetSummary {
    /// Registry name.
    pub name: String,
    /// One-line description.
    pub description: String,
    /// Placement policy name.
    pub policy: String,
    /// ADT tiles in the world.
    pub adts: usize,
    /// MCNKs in the world.
    pub mcnks: usize,
    /// MCNKs in the resident window.
    pub resident_mcnks: usize,
    /// Placements in the resident window.
    pub placements: u64,
    /// Detail models.
    pub models: usize,
}

const NAMES: [&str; 8] = [
    "elwynn-dense",
    "elwynn-client",
    "seams-holes",
    "continent",
    "scale-0.25",
    "scale-1",
    "scale-4",
    "scale-16",
];

fn per_cell(scale: f32) -> Policy {
    Policy::PerCell(PerCellParams {
        density_scale: ELWYNN_DENSITY_SCALE * scale,
        ..Default::default()
    })
}

impl Preset {
    /// Names of every preset, the default (`elwynn-dense`) first.
    pub fn names() -> &'static [&'static str] {
        &NAMES
    }

    /// Every preset.
    pub fn all() -> Vec<Preset> {
        NAMES.iter().filter_map(|n| Self::by_name(n).ok()).collect()
    }

    /// The preset called `name`; the error lists the valid names.
    pub fn by_name(name: &str) -> Result<Preset, PresetError> {
        let elwynn = TerrainParams::elwynn(SEED);
        let window = |r: u32| {
            (
                CENTRE.x - r..CENTRE.x + r + 1,
                CENTRE.y - r..CENTRE.y + r + 1,
            )
        };
        let (xs, ys) = window(1);
        let mk = |name, description, terrain, xs, ys, policy| Preset {
            name,
            description,
            terrain,
            xs,
            ys,
            policy,
        };
        let scaled = |name, scale| Preset {
            name,
            ..Preset::scaled(scale)
        };
        Ok(match name {
            "elwynn-dense" => mk(
                name_of(name),
                "3x3 Elwynn-like ADTs, per-cell placement tuned to 465,524 placements, the reference count of a 3x3 Elwynn window",
                elwynn,
                xs,
                ys,
                per_cell(1.0),
            ),
            "elwynn-client" => mk(
                name_of(name),
                "elwynn-dense terrain with the client's detail-doodad routine (frillDensity 16)",
                elwynn,
                xs,
                ys,
                Policy::Client(ClientParams::default()),
            ),
            "seams-holes" => mk(
                name_of(name),
                "2x2 ADTs: ADT/MCNK seams, many holes, cliffs, sparse flowers (parity scene)",
                TerrainParams::seams(SEED ^ 0x5ea),
                CENTRE.x..CENTRE.x + 2,
                CENTRE.y..CENTRE.y + 2,
                per_cell(1.0),
            ),
            "continent" => {
                let (xs, ys) = (CENTRE.x - 8..CENTRE.x + 8, CENTRE.y - 8..CENTRE.y + 8);
                mk(
                    name_of(name),
                    "16x16 ADTs generated lazily; grass for the resident 3x3 window",
                    elwynn,
                    xs,
                    ys,
                    per_cell(1.0),
                )
            }
            "scale-0.25" => scaled(name_of(name), 0.25),
            "scale-1" => scaled(name_of(name), 1.0),
            "scale-4" => scaled(name_of(name), 4.0),
            "scale-16" => scaled(name_of(name), 16.0),
            _ => {
                return Err(PresetError::Unknown {
                    name: name.to_owned(),
                    valid: NAMES.join(", "),
                })
            }
        })
    }

    /// `elwynn-dense` with its placements scaled by `scale` (the per-cell
    /// policy's density times `scale`; `scale-0.25` .. `scale-16` are
    /// `scaled(0.25)` .. `scaled(16.0)` under their own names, any other
    /// factor is named `scaled`). A factor that is not a positive number
    /// places nothing.
    pub fn scaled(scale: f32) -> Preset {
        let name = match scale {
            0.25 => "scale-0.25",
            1.0 => "scale-1",
            4.0 => "scale-4",
            16.0 => "scale-16",
            _ => "scaled",
        };
        let scale = if scale.is_finite() {
            scale.max(0.0)
        } else {
            0.0
        };
        Preset {
            name,
            description: "elwynn-dense with placements scaled",
            terrain: TerrainParams::elwynn(SEED),
            xs: CENTRE.x - 1..CENTRE.x + 2,
            ys: CENTRE.y - 1..CENTRE.y + 2,
            policy: per_cell(scale),
        }
    }

    /// The placement policy.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// This preset with the client's density setting `density` (picks per
    /// MCNK, `--density`): every scene built from it, and every tier drawing
    /// that scene, places with it. An error for a value outside
    /// [`crate::placement::DENSITY_RANGE`] or a `per-cell` preset.
    pub fn with_density(mut self, density: u32) -> Result<Self, PresetError> {
        self.policy = self
            .policy
            .with_density(density)
            .map_err(|source| PresetError::Density {
                preset: self.name,
                source,
            })?;
        Ok(self)
    }

    /// [`Self::with_density`] when `density` is given, else the preset as is.
    pub fn with_density_opt(self, density: Option<u32>) -> Result<Self, PresetError> {
        match density {
            Some(d) => self.with_density(d),
            None => Ok(self),
        }
    }

    /// Where this preset's grass fades and ends ([`GrassRange::for_policy`]).
    pub fn grass_range(&self) -> GrassRange {
        GrassRange::for_policy(&self.policy)
    }

    /// The tile source of this preset.
    pub fn source(&self) -> ProceduralSource {
        ProceduralSource {
            params: self.terrain,
            xs: self.xs.clone(),
            ys: self.ys.clone(),
        }
    }

    /// The tile the resident window is centred on.
    pub fn centre(&self) -> TileCoord {
        CENTRE
    }

    /// Builds the scene: resident tiles, tables, models, placements, views.
    pub fn build(&self) -> Result<Scene, PresetError> {
        let models = elwynn_models();
        for m in &models {
            m.validate()?;
        }
        let effects = preset_effects()?;
        let paths: Vec<&str> = models.iter().map(|m| m.path.as_str()).collect();
        let resolved = Arc::new(effects.resolve(&paths)?);
        let source: Arc<dyn TileSource> = Arc::new(self.source());
        let start = Instant::now();
        let (window, first_load) = WorldWindow::new(
            "Azeroth",
            Arc::clone(&source),
            Arc::clone(&resolved),
            models.len(),
            self.policy,
            1,
            CENTRE,
        )?;
        let stats = window.stats();
        let (views, path) = self.views(window.world(), [0.0, 0.0]);
        let flights = self.flights(source.as_ref());
        log::debug!(
            "preset {} built in {:.1} ms",
            self.name,
            start.elapsed().as_secs_f64() * 1e3
        );
        Ok(Scene {
            name: self.name.to_owned(),
            grass: self.grass_range(),
            adts: source.tile_count(),
            max_resident_tiles: max_resident_tiles(source.tile_count(), window.tiles().len()),
            source,
            window,
            effects,
            resolved,
            models,
            stats,
            views,
            path,
            flights,
            first_load,
            missing_models: Vec::new(),
            far_heights: None,
            client: None,
        })
    }

    /// Counts this preset without building placements (generates the
    /// resident tiles and runs the policy in counting mode).
    pub fn summary(&self) -> Result<PresetSummary, PresetError> {
        self.summary_cached(&mut HashMap::new())
    }

    fn summary_cached(
        &self,
        cache: &mut HashMap<(String, TileCoord), Arc<AdtTile>>,
    ) -> Result<PresetSummary, PresetError> {
        let models = elwynn_models();
        let paths: Vec<&str> = models.iter().map(|m| m.path.as_str()).collect();
        let resolved = preset_effects()?.resolve(&paths)?;
        let source = self.source();
        let key = format!("{:?}", self.terrain);
        let mut stats = PlacementStats::new(models.len());
        let mut resident = 0;
        for dy in -1..=1 {
            for dx in -1..=1 {
                let Some(t) = CENTRE.offset(dx, dy).filter(|t| source.contains(*t)) else {
                    continue;
                };
                let tile = match cache.get(&(key.clone(), t)) {
                    Some(tile) => Arc::clone(tile),
                    None => {
                        let tile = Arc::new(source.load(t)?);
                        cache.insert((key.clone(), t), Arc::clone(&tile));
                        tile
                    }
                };
                resident += tile.mcnks.len();
                stats.add(&Placements::count_tile(
                    &tile,
                    &resolved,
                    models.len(),
                    &self.policy,
                ));
            }
        }
        Ok(PresetSummary {
            name: self.name.to_owned(),
            description: self.description.to_owned(),
            policy: self.policy.name().to_owned(),
            adts: source.tile_count(),
            mcnks: source.tile_count() * TILE_MCNKS,
            resident_mcnks: resident,
            placements: stats.placements,
            models: models.len(),
        })
    }

    /// Summaries of every preset, sharing generated terrain between presets.
    pub fn summaries() -> Result<Vec<PresetSummary>, PresetError> {
        let mut cache = HashMap::new();
        Self::all()
            .iter()
            .map(|p| p.summary_cached(&mut cache))
            .collect()
    }

    /// The world of a client install or data directory (`--data`), placed
    /// with this preset's policy, every data option at its default
    /// ([`Self::load_data_with`]).
    pub fn load_data(&self, dir: &std::path::Path) -> Result<Scene, crate::formats::FormatError> {
        self.load_data_with(&crate::formats::DataOptions::for_dir(dir))
    }

    /// The preset's named views and walk path placed around `centre` instead
    /// of the preset's own centre tile (moved by whole tiles), on `world`'s
    /// terrain: how a preset's views apply to a world loaded with `--data`.
    /// For an export of the preset itself the views are the preset's.
    pub fn views_around(&self, world: &World, centre: TileCoord) -> (Vec<ViewPose>, CameraPath) {
        let [cx, cy] = centre.origin();
        let [px, py] = self.centre().origin();
        self.views(world, [cx - px, cy - py])
    }

    /// Named views and the walk path for the resident world, focus moved by
    /// `offset` world units.
    fn views(&self, world: &World, offset: [f64; 2]) -> (Vec<ViewPose>, CameraPath) {
        // Focus: the centre tile's centre, or for the 2x2 seams scene the
        // corner where its four tiles meet.
        let seams = self.xs.len() == 2;
        let [fx, fy] = if seams {
            TileCoord::new(self.xs.start + 1, self.ys.start + 1).origin()
        } else {
            coords::tile_centre(CENTRE)
        };
        let (fx, fy) = if seams {
            (fx + 6.0, fy + 6.0)
        } else {
            (fx, fy)
        };
        let (fx, fy) = (fx + offset[0], fy + offset[1]);
        let mut views = ViewPose::tile_views(world, fx, fy);
        if seams {
            // Look back across the tile corner from the other side.
            views.extend(ViewPose::on_ground(
                world,
                "seam-corner",
                fx - 30.0,
                fy - 30.0,
                45.0,
                -12.0,
            ));
        }
        // Standing before a rise that hides most of the grass in range
        // (the occlusion culling view).
        views.extend(ViewPose::behind_ridge(world, "behind-ridge", fx, fy));
        // Walk +X from 150 units inside the focus tile across its +X border.
        let border_x = if seams {
            fx - 6.0
        } else {
            fx + TILE_SIZE * 0.5
        };
        let from = [border_x - 150.0, fy - 40.0];
        let to = [border_x + 120.0, fy - 40.0];
        let path = CameraPath::walk(world, "walk", from, to, 7.0, 8.0);
        (views, path)
    }
}

/// Speed of the `flight` camera path in world units (yards) per second.
pub const FLIGHT_SPEED: f32 = 120.0;
/// Height of the `flight` camera path above the terrain below it.
pub const FLIGHT_ALTITUDE: f32 = 30.0;
/// The `flight` path's waypoints as tile offsets from the preset's centre
/// tile (each one the centre of that tile): 3 tiles along +column, 2 along
/// +row, 1 back (re-crossing the last border: the back-and-forth), then 3
/// along -column; 9 tile borders in all.
pub const FLIGHT_WAYPOINTS: [(i32, i32); 5] = [(0, 0), (3, 0), (3, 2), (3, 1), (0, 1)];

impl Preset {
    /// Named camera paths beyond the walk: `continent` has `flight`, a
    /// fly-over at [`FLIGHT_SPEED`] and [`FLIGHT_ALTITUDE`] above the
    /// terrain along [`FLIGHT_WAYPOINTS`], heights from the tile source
    /// (no tile needs to be resident). Other presets have none.
    pub fn flights(&self, source: &dyn TileSource) -> Vec<CameraPath> {
        if self.name != "continent" {
            return Vec::new();
        }
        let points: Vec<[f64; 2]> = FLIGHT_WAYPOINTS
            .iter()
            .filter_map(|&(dx, dy)| CENTRE.offset(dx, dy).map(coords::tile_centre))
            .collect();
        let height = |x: f64, y: f64| {
            let (gx, gy) = coords::world_to_grid(x, y);
            source.coarse_height(gx, gy)
        };
        vec![CameraPath::fly(
            "flight",
            &points,
            FLIGHT_SPEED,
            FLIGHT_ALTITUDE,
            16.0,
            height,
        )]
    }
}

fn name_of(name: &str) -> &'static str {
    NAMES
        .iter()
        .find(|n| **n == name)
        .copied()
        .unwrap_or("unknown")
}

/// Views of where the grass of a data scene's centre tile grows most (the
/// MCNK with the most placements, at the mean of its placements; the
/// tile's centre when it has none): `grass` on the ground looking along +X,
/// and `grass-aerial`, 45 units back and 35 up looking down at it, inside
/// the client's 70-yard grass distance (the preset's `aerial` is far above
/// it and shows the terrain only).
pub fn grass_views(scene: &Scene) -> Vec<ViewPose> {
    let centre = scene.window.centre();
    let spot = scene.window.tile_placements(centre).and_then(|p| {
        let (_, groups) = p.by_chunk().max_by_key(|(c, g)| {
            (
                g.iter().map(|g| g.count).sum::<u32>(),
                std::cmp::Reverse((c.y, c.x)),
            )
        })?;
        let items: Vec<&Placement> = groups.iter().flat_map(|g| p.group_items(g)).collect();
        let n = items.len() as f64;
        (n > 0.0).then(|| {
            [
                items.iter().map(|i| f64::from(i.position[0])).sum::<f64>() / n,
                items.iter().map(|i| f64::from(i.position[1])).sum::<f64>() / n,
            ]
        })
    });
    let [x, y] = spot.unwrap_or_else(|| coords::tile_centre(centre));
    let world = scene.world();
    let mut views: Vec<ViewPose> = ViewPose::on_ground(world, "grass", x - 6.0, y, 0.0, -12.0)
        .into_iter()
        .collect();
    views.extend(ViewPose::aerial(world, "grass-aerial", x, y, 45.0, 35.0));
    views
}

/// A built scene.
#[derive(Debug)]
pub struct Scene {
    /// Preset name.
    pub name: String,
    /// Grass fade start and draw distance for this scene.
    pub grass: GrassRange,
    /// ADT tiles in the whole world (the source), not only resident ones.
    pub adts: usize,
    /// Where tiles come from (for sliding the window).
    pub source: Arc<dyn TileSource>,
    /// The resident window (its world is [`Scene::world`]).
    pub window: WorldWindow,
    /// Ground-effect tables.
    pub effects: GroundEffects,
    /// The tables resolved to model indices.
    pub resolved: Arc<ResolvedEffects>,
    /// The 14 detail models (placement model index = index here).
    pub models: Vec<DetailModel>,
    /// Placement statistics of the resident window.
    pub stats: PlacementStats,
    /// Named views.
    pub views: Vec<ViewPose>,
    /// The walk path (crosses an ADT border).
    pub path: CameraPath,
    /// Further named camera paths (`continent`'s `flight`); `--path NAME`
    /// picks one (see [`Scene::camera_path`]).
    pub flights: Vec<CameraPath>,
    /// The initial window load (cost of building the resident tiles).
    pub first_load: WindowSlide,
    /// The most tiles resident at once: the resident tiles for a world that
    /// is resident whole; while streaming, what the streaming configuration
    /// allows (the default [`crate::streaming::StreamConfig`]'s 25 unless
    /// the caller sets its own). Techniques that update in place size their
    /// pools for it.
    pub max_resident_tiles: usize,
    /// Models a ground effect names that the data lacks (drawn as
    /// placeholders or skipped as [`crate::formats::DataOptions::placeholders`] says;
    /// always empty for procedural presets).
    pub missing_models: Vec<crate::formats::MissingModel>,
    /// The map's WDL when the scene was loaded from data that has one (the
    /// source's `coarse_height` answers from it); `None` for procedural
    /// presets, whose generator is their far source.
    pub far_heights: Option<Arc<crate::formats::wdl::Wdl>>,
    /// The client version the data was read as, with its evidence
    /// (`3.3.5 (Map.dbc has 66 fields)`); `None` for presets and for data
    /// that does not tell.
    pub client: Option<String>,
}

impl Scene {
    /// The resident world.
    pub fn world(&self) -> &World {
        self.window.world()
    }

    /// Doodad slots of the scene's GroundEffectTexture that name no
    /// GroundEffectDoodad record ([`GroundEffects::dangling_doodads`]): as
    /// in the client, their draws happen and they place nothing.
    pub fn dangling_doodads(&self) -> usize {
        self.effects.dangling_doodads().len()
    }

    /// Texture layers of the resident tiles whose ground-effect id names no
    /// GroundEffectTexture record, and those ids (sorted, each once): such a
    /// layer grows nothing, as in the client.
    pub fn dangling_effects(&self) -> (usize, Vec<u32>) {
        let mut ids = Vec::new();
        let mut layers = 0;
        for tile in self.world().tiles() {
            for l in tile.mcnks.iter().flat_map(|m| &m.layers) {
                if let Some(id) = l.effect().filter(|&id| self.effects.texture(id).is_none()) {
                    layers += 1;
                    ids.push(id);
                }
            }
        }
        ids.sort_unstable();
        ids.dedup();
        (layers, ids)
    }

    /// Facts about the scene's data for reports: `scene.dangling_doodads`
    /// ([`Self::dangling_doodads`]), `scene.dangling_effects` (layers,
    /// [`Self::dangling_effects`]) and `scene.missing_models`.
    pub fn facts(&self) -> std::collections::BTreeMap<String, f64> {
        std::collections::BTreeMap::from([
            (
                "scene.dangling_doodads".to_owned(),
                self.dangling_doodads() as f64,
            ),
            (
                "scene.dangling_effects".to_owned(),
                self.dangling_effects().0 as f64,
            ),
            (
                "scene.missing_models".to_owned(),
                self.missing_models.len() as f64,
            ),
            (
                "scene.absent_tiles".to_owned(),
                self.absent_tiles().len() as f64,
            ),
            (
                "scene.placeholder_models".to_owned(),
                self.placeholder_models().len() as f64,
            ),
            (
                "scene.placeholder_placements".to_owned(),
                self.placeholder_placements() as f64,
            ),
            (
                "scene.tileset_textures".to_owned(),
                self.tileset_counts().0 as f64,
            ),
            (
                "scene.tileset_placeholders".to_owned(),
                self.tileset_counts().1 as f64,
            ),
        ])
    }

    /// Distinct tileset textures (by name, case-insensitive) the resident
    /// tiles name: `(loaded from the data, missing and drawn as a checker)`;
    /// `(0, 0)` for procedural tiles.
    pub fn tileset_counts(&self) -> (usize, usize) {
        let mut loaded = std::collections::BTreeSet::new();
        let mut missing = std::collections::BTreeSet::new();
        for tile in self.world().tiles() {
            for (name, t) in tile.textures.iter().zip(&tile.tileset) {
                let key = name.to_ascii_lowercase().replace('/', "\\");
                match t {
                    crate::world::TileTexture::Loaded(_) => loaded.insert(key),
                    crate::world::TileTexture::Missing(_) => missing.insert(key),
                    crate::world::TileTexture::Procedural => false,
                };
            }
        }
        (loaded.len(), missing.len())
    }

    /// Model indices of the placeholders drawn for missing models.
    pub fn placeholder_models(&self) -> Vec<u16> {
        self.missing_models
            .iter()
            .filter_map(|m| m.placeholder)
            .collect()
    }

    /// Placements of the resident window drawn with a placeholder model.
    pub fn placeholder_placements(&self) -> u64 {
        let ids = self.placeholder_models();
        if ids.is_empty() {
            return 0;
        }
        let counts = self.placements().per_model_counts(self.models.len());
        ids.iter().filter_map(|&i| counts.get(usize::from(i))).sum()
    }

    /// Tiles of the resident window's square (around its centre) that the
    /// map lists but the data lacks ([`TileSource::is_absent`]): drawn as
    /// nothing, counted in `scene.absent_tiles`.
    pub fn absent_tiles(&self) -> Vec<TileCoord> {
        let r = self.window.radius() as i32;
        let c = self.window.centre();
        (-r..=r)
            .flat_map(|dy| (-r..=r).map(move |dx| (dx, dy)))
            .filter_map(|(dx, dy)| c.offset(dx, dy))
            .filter(|t| self.source.is_absent(*t))
            .collect()
    }

    /// Placements of the resident window, merged in tile order (see
    /// [`WorldWindow::placements`]: assembled on first use after a change;
    /// each tile keeps its own, so each placement is held once besides).
    pub fn placements(&self) -> &Arc<Placements> {
        self.window.placements()
    }

    /// The view called `name`.
    pub fn view(&self, name: &str) -> Option<&ViewPose> {
        self.views.iter().find(|v| v.name == name)
    }

    /// Every named camera path: the walk, then the flights.
    pub fn camera_paths(&self) -> impl Iterator<Item = &CameraPath> {
        std::iter::once(&self.path)
            .chain(&self.flights)
            .filter(|p| !p.keyframes.is_empty())
    }

    /// The camera path called `name`.
    pub fn camera_path(&self, name: &str) -> Option<&CameraPath> {
        self.camera_paths().find(|p| p.name == name)
    }

    /// The placement policy.
    pub fn policy(&self) -> &Policy {
        self.window.policy()
    }

    /// The placements of MCNKs `mcnks` (`(index_x, index_y)`, all when empty)
    /// of tile `tile` under the scene's policy, in generation order. The
    /// tile may be any tile of the scene's source, resident or not.
    pub fn inspect_placements(
        &self,
        tile: TileCoord,
        mcnks: &[(u32, u32)],
    ) -> Result<Vec<PlacementRecord>, InspectError> {
        let t = self.inspect_tile(tile)?;
        inspect_placements(
            &t,
            &self.resolved,
            &self.model_paths(),
            self.policy(),
            mcnks,
        )
    }

    /// Tile `tile` of the scene's source, resident or not (a tile that is
    /// not resident is loaded): what `inspect placements` lists.
    pub fn inspect_tile(&self, tile: TileCoord) -> Result<Arc<AdtTile>, InspectError> {
        match self.world().tile(tile) {
            Some(t) => Ok(Arc::clone(t)),
            None if self.source.contains(tile) => {
                self.source
                    .load(tile)
                    .map(Arc::new)
                    .map_err(|e| InspectError::Tile {
                        tile,
                        reason: e.to_string(),
                    })
            }
            None => Err(InspectError::Tile {
                tile,
                reason: format!("not in scene {} ({})", self.name, self.tile_extent()),
            }),
        }
    }

    /// The detail models' paths (placement model index = index here).
    pub fn model_paths(&self) -> Vec<&str> {
        self.models.iter().map(|m| m.path.as_str()).collect()
    }

    /// A description of the tiles the source holds (for error messages).
    fn tile_extent(&self) -> String {
        let all: Vec<TileCoord> = (0..coords::WORLD_TILES)
            .flat_map(|y| (0..coords::WORLD_TILES).map(move |x| TileCoord::new(x, y)))
            .filter(|t| self.source.contains(*t))
            .collect();
        match (all.iter().map(|t| t.x).min(), all.iter().map(|t| t.x).max()) {
            (Some(x0), Some(x1)) => {
                let y0 = all.iter().map(|t| t.y).min().unwrap_or(0);
                let y1 = all.iter().map(|t| t.y).max().unwrap_or(0);
                format!("{} tiles, x {x0}..={x1}, y {y0}..={y1}", all.len())
            }
            _ => "no tiles".to_owned(),
        }
    }
}

/// Where grass fades and ends, in world units (1 yard = 1 unit).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct GrassRange {
    /// Distance where the fade starts.
    pub fade_start: f32,
    /// Distance where grass ends.
    pub distance: f32,
}

impl GrassRange {
    /// sward's default: fade from 160 to 220.
    pub const DEFAULT: Self = Self {
        fade_start: 160.0,
        distance: 220.0,
    };
    /// The 1.12 client: detail doodads end at 70 yards; fading over the last
    /// quarter (from 52.5) is sward's choice, as in Benilla's renderer.
    pub const CLIENT: Self = Self {
        fade_start: 52.5,
        distance: crate::placement::client::CLIENT_GRASS_DISTANCE,
    };

    /// The 3.3.5 client: `groundEffectDist` 70 yards, the distance fade
    /// from 85% of it (its shader constants and fade texture).
    pub const CLIENT_335: Self = Self {
        fade_start: crate::placement::client335::CLIENT_335_FADE_START,
        distance: crate::placement::client335::CLIENT_335_GRASS_DISTANCE,
    };

    /// The range that goes with a placement policy: the client's for a
    /// client routine, sward's default otherwise.
    pub fn for_policy(policy: &Policy) -> Self {
        match policy {
            Policy::Client(_) => Self::CLIENT,
            Policy::Client335(_) => Self::CLIENT_335,
            Policy::PerCell(_) => Self::DEFAULT,
        }
    }
}

/// [`Scene::max_resident_tiles`] for a world of `tiles` tiles with
/// `resident` resident now, under the default streaming configuration.
pub fn max_resident_tiles(tiles: usize, resident: usize) -> usize {
    if tiles > resident {
        crate::streaming::StreamConfig::default()
            .max_resident_tiles()
            .min(tiles)
    } else {
        resident
    }
}

impl Scene {
    /// One streaming frame with the camera at `(x, y)` (see
    /// [`crate::streaming::Streamer::update`]); refreshes `stats` when the resident world changed (that time is part of the
    /// step's `ms`).
    pub fn stream(
        &mut self,
        streamer: &mut crate::streaming::Streamer,
        x: f64,
        y: f64,
        block: bool,
    ) -> Result<crate::streaming::StreamStep, WindowError> {
        let start = Instant::now();
        let mut step = streamer.update(&mut self.window, x, y, block)?;
        if step.changed() {
            self.stats = self.window.stats();
        }
        step.ms = start.elapsed().as_secs_f64() * 1e3;
        Ok(step)
    }

    /// Moves the window with the camera; refreshes `stats` when it slides.
    pub fn follow(&mut self, x: f64, y: f64) -> Result<Option<WindowSlide>, WindowError> {
        let slide = self.window.update(x, y)?;
        if slide.is_some() {
            self.stats = self.window.stats();
        }
        Ok(slide)
    }
}

#[cfg(test)]
mod tests;
