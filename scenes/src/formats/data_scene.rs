//! A [`Scene`] streamed from a data directory instead of a procedural
//! preset: [`DataDirSource`] is the [`TileSource`] that reads ADTs on demand
//! and answers far heights (`coarse_height`) from the map's WDL,
//! and [`load_scene`] builds the same kind of scene a preset builds (3x3
//! window, resolved effects, placements, views and a walk path), so the
//! renderers and the bench can run on exported or extracted files.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::data_dir::{
    load_effects_and_models_with, read_map_tile, read_map_wdl, read_map_wdt, single_map,
};
use super::maps::{centre_tile, WorldSelection};
use super::options::DataOptions;
use super::source::DataSource;
use super::version::{client_version, ClientVersion};
use super::wdl::Wdl;
use super::{wdt, FormatError};
use crate::placement::{Client335Params, Policy};
use crate::presets::{CameraPath, Scene, ViewPose};
use crate::window::{TileSource, WindowError, WorldWindow};
use crate::world::coords::{self, TileCoord, TILE_SIZE};
use crate::world::{AdtTile, TileTexture, World};

/// Tiles of one map of a data directory, read when the window asks.
#[derive(Clone, Debug)]
pub struct DataDirSource {
    src: Arc<DataSource>,
    map: String,
    tiles: BTreeSet<TileCoord>,
    /// Tiles the WDT lists whose ADT the data lacks.
    absent: BTreeSet<TileCoord>,
    big_alpha: bool,
    wdl: Option<Arc<Wdl>>,
    /// Tileset textures read so far, by lower-case archive path: each BLP
    /// is read (and a missing one warned about) once, whatever number of
    /// tiles name it.
    tilesets: Arc<Mutex<HashMap<String, TileTexture>>>,
}

impl DataDirSource {
    /// The source for map `map` of `src` (its WDT says which tiles exist
    /// and whether their alpha maps are 8-bit; its WDL, when present, gives
    /// the far heights).
    pub fn new(src: Arc<DataSource>, map: &str) -> Result<Self, FormatError> {
        let info = read_map_wdt(&src, map)?;
        let wdl = read_map_wdl(&src, map)?.map(Arc::new);
        // A WDT of a whole continent over a folder holding some of its
        // tiles (an extract, a test fixture): the tiles without an ADT are
        // absent, neither loaded nor an error.
        let (tiles, absent): (BTreeSet<_>, BTreeSet<_>) = info
            .tiles
            .into_iter()
            .partition(|&t| src.contains(&super::data_dir::adt_path(map, t)));
        if !absent.is_empty() {
            log::info!(
                "{}: map {map}: {} of the {} tiles its WDT lists have no ADT in the data; they are drawn as absent",
                src.root().display(),
                absent.len(),
                absent.len() + tiles.len()
            );
        }
        Ok(Self {
            src,
            map: map.to_owned(),
            tiles,
            absent,
            big_alpha: info.flags & wdt::MPHD_BIG_ALPHA != 0,
            wdl,
            tilesets: Arc::default(),
        })
    }

    /// The map's WDL, when the data has one.
    pub fn wdl(&self) -> Option<&Arc<Wdl>> {
        self.wdl.as_ref()
    }

    /// The tiles the WDT lists, sorted by (row, column).
    pub fn tiles(&self) -> Vec<TileCoord> {
        let mut v: Vec<_> = self.tiles.iter().copied().collect();
        v.sort_by_key(|t| (t.y, t.x));
        v
    }

    /// The tileset texture MTEX name `name` draws: the BLP the data holds
    /// (read once, shared), or [`TileTexture::Missing`] with one warning
    /// naming it when the data lacks it or it cannot be read.
    pub fn tileset_texture(&self, name: &str) -> TileTexture {
        let key = super::source::archive_path(name).to_ascii_lowercase();
        let mut cache = self.tilesets.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = cache.get(&key) {
            return t.clone();
        }
        let t = match self.src.read(name) {
            Ok(Some(f)) => match super::blp::read_blp(&f.bytes, &f.name) {
                Ok(t) => TileTexture::Loaded(Arc::new(t)),
                Err(e) => {
                    log::warn!(
                        "{}: tileset texture {name}: {e}; drawn as a checker placeholder",
                        self.src.root().display()
                    );
                    TileTexture::Missing(e.to_string().into())
                }
            },
            Ok(None) => {
                log::warn!(
                    "{}: missing tileset texture {name}; drawn as a checker placeholder",
                    self.src.root().display()
                );
                TileTexture::Missing("not in the data".into())
            }
            Err(e) => {
                log::warn!(
                    "{}: tileset texture {name}: {e}; drawn as a checker placeholder",
                    self.src.root().display()
                );
                TileTexture::Missing(e.to_string().into())
            }
        };
        cache.insert(key, t.clone());
        t
    }

    /// Tiles the WDT lists whose ADT the data lacks, sorted by (row, column).
    pub fn absent_tiles(&self) -> Vec<TileCoord> {
        let mut v: Vec<_> = self.absent.iter().copied().collect();
        v.sort_by_key(|t| (t.y, t.x));
        v
    }

    /// The present tile nearest the middle of the present tiles' bounds.
    pub fn centre(&self) -> Option<TileCoord> {
        let xs = self.tiles.iter().map(|t| t.x);
        let ys = self.tiles.iter().map(|t| t.y);
        let (x0, x1) = (xs.clone().min()?, xs.max()?);
        let (y0, y1) = (ys.clone().min()?, ys.max()?);
        let (cx, cy) = ((x0 + x1) as i64, (y0 + y1) as i64);
        self.tiles.iter().copied().min_by_key(|t| {
            (
                (2 * t.x as i64 - cx).pow(2) + (2 * t.y as i64 - cy).pow(2),
                t.y,
                t.x,
            )
        })
    }
}

impl TileSource for DataDirSource {
    fn contains(&self, coord: TileCoord) -> bool {
        self.tiles.contains(&coord)
    }

    fn is_absent(&self, coord: TileCoord) -> bool {
        self.absent.contains(&coord)
    }

    fn load(&self, coord: TileCoord) -> Result<AdtTile, WindowError> {
        if !self.contains(coord) {
            let reason = if self.is_absent(coord) {
                format!(
                    "map {}'s WDT lists this tile but the data has no {}",
                    self.map,
                    super::data_dir::adt_path(&self.map, coord)
                )
            } else {
                format!("map {} has no such tile", self.map)
            };
            return Err(WindowError::Load {
                tile: coord,
                reason,
            });
        }
        let mut tile =
            read_map_tile(&self.src, &self.map, coord, Some(self.big_alpha)).map_err(|e| {
                WindowError::Load {
                    tile: coord,
                    reason: e.to_string(),
                }
            })?;
        tile.tileset = tile
            .textures
            .iter()
            .map(|name| self.tileset_texture(name))
            .collect();
        Ok(tile)
    }

    fn tile_count(&self) -> usize {
        self.tiles.len()
    }

    /// The WDL's far height ([`Wdl::height_at_grid`]); `None` without a
    /// WDL or where it has no data.
    fn coarse_height(&self, gx: f64, gy: f64) -> Option<f32> {
        self.wdl.as_ref()?.height_at_grid(gx, gy)
    }
}

fn window_err(dir: &Path) -> impl FnOnce(WindowError) -> FormatError + '_ {
    move |e| FormatError::DataDir {
        dir: dir.display().to_string(),
        reason: e.to_string(),
    }
}

/// A scene from map `map` (the only map when `None`) of the data at `dir`
/// (loose files and/or a client install's archives), placed with `policy`,
/// every other option at its default. See [`load_scene_with`].
pub fn load_scene(dir: &Path, map: Option<&str>, policy: Policy) -> Result<Scene, FormatError> {
    let opts = DataOptions {
        selection: WorldSelection {
            map: map.map(str::to_owned),
            ..WorldSelection::default()
        },
        ..DataOptions::for_dir(dir)
    };
    load_scene_with(Arc::new(DataSource::open(dir)?), &opts, policy)
}

/// The routine a scene of `src`'s data is placed with: for the client's
/// routine ([`Policy::Client`]) on 3.3.5 data ([`client_version`], which
/// honours `--client`) the 3.3.5 client's own ([`Policy::Client335`], its
/// `groundEffectDensity` taken from the 1.12 routine's `frillDensity`: both
/// are cell picks per MCNK); `policy` otherwise.
pub fn policy_for_data(src: &DataSource, policy: Policy) -> Result<Policy, FormatError> {
    let Policy::Client(p) = policy else {
        return Ok(policy);
    };
    let detection = client_version(src)?;
    let policy = match detection.version {
        Some(ClientVersion::Wotlk335) => Policy::Client335(Client335Params {
            ground_effect_density: p.frill_density,
        }),
        _ => policy,
    };
    log::info!(
        "{}: client {detection}: placing with the {} routine",
        src.root().display(),
        match policy {
            Policy::Client335(_) => "3.3.5 client's",
            _ => "1.12 client's",
        }
    );
    Ok(policy)
}

/// [`load_scene_with`] with selection `sel` and every other option at its
/// default.
pub fn load_scene_from(
    src: Arc<DataSource>,
    sel: &WorldSelection,
    policy: Policy,
) -> Result<Scene, FormatError> {
    let opts = DataOptions {
        selection: sel.clone(),
        ..DataOptions::default()
    };
    load_scene_with(src, &opts, policy)
}

/// A scene from `src` (opened as `opts` says: [`DataOptions::open_source`]):
/// map `opts.selection.map` (the only map when `None`), the 3x3 window
/// around the selection's tile (default: the present tile nearest the
/// middle of the map), views on the ground there and from above, and a walk
/// across that tile's +X border. Models an effect names that the data lacks
/// are in [`Scene::missing_models`], drawn as placeholders or skipped as
/// `opts.placeholders` says. A client policy is the data's client's routine
/// ([`policy_for_data`]).
pub fn load_scene_with(
    src: Arc<DataSource>,
    opts: &DataOptions,
    policy: Policy,
) -> Result<Scene, FormatError> {
    let sel = &opts.selection;
    let dir: PathBuf = src.root().to_path_buf();
    let dir = dir.as_path();
    let policy = policy_for_data(&src, policy)?;
    let map = match &sel.map {
        Some(m) => m.clone(),
        None => single_map(&src)?,
    };
    let source = DataDirSource::new(Arc::clone(&src), &map)?;
    let default = source.centre().ok_or_else(|| FormatError::DataDir {
        dir: dir.display().to_string(),
        reason: format!("map {map} lists no tiles"),
    })?;
    let centre = centre_tile(sel, &map, &source.tiles(), default).map_err(|reason| {
        FormatError::DataDir {
            dir: dir.display().to_string(),
            reason,
        }
    })?;
    let (effects, models, missing_models) = load_effects_and_models_with(&src, opts.placeholders)?;
    let paths: Vec<&str> = models.iter().map(|m| m.path.as_str()).collect();
    let resolved = Arc::new(
        effects
            .resolve(&paths)
            .map_err(|source| FormatError::Effects {
                file: dir.display().to_string(),
                source,
            })?,
    );
    let adts = source.tile_count();
    let far_heights = source.wdl().cloned();
    let source: Arc<dyn TileSource> = Arc::new(source);
    let (window, first_load) = WorldWindow::new(
        &map,
        Arc::clone(&source),
        Arc::clone(&resolved),
        models.len(),
        policy,
        1,
        centre,
    )
    .map_err(window_err(dir))?;
    let (views, path) = views(window.world(), centre);
    let scene = Scene {
        grass: crate::presets::GrassRange::for_policy(&policy),
        name: map,
        adts,
        source,
        stats: window.stats(),
        max_resident_tiles: crate::presets::max_resident_tiles(adts, window.tiles().len()),
        window,
        effects,
        resolved,
        models,
        missing_models,
        far_heights,
        client: {
            let c = super::version::client_version(&src)?;
            c.version.map(|_| c.to_string())
        },
        views,
        path,
        flights: Vec::new(),
        first_load,
    };
    let (layers, ids) = scene.dangling_effects();
    if layers > 0 {
        let shown: Vec<String> = ids.iter().take(8).map(u32::to_string).collect();
        log::warn!(
            "{}: {layers} texture layers of the resident tiles name ground effects GroundEffectTexture lacks ({} ids: {}{}); as in the client they grow nothing",
            dir.display(),
            ids.len(),
            shown.join(", "),
            if ids.len() > shown.len() { ", ..." } else { "" }
        );
    }
    Ok(scene)
}

fn views(world: &World, centre: TileCoord) -> (Vec<ViewPose>, CameraPath) {
    let [fx, fy] = coords::tile_centre(centre);
    let views = ViewPose::tile_views(world, fx, fy);
    let border_x = fx + TILE_SIZE * 0.5;
    let path = CameraPath::walk(
        world,
        "walk",
        [border_x - 150.0, fy - 40.0],
        [border_x + 120.0, fy - 40.0],
        7.0,
        8.0,
    );
    (views, path)
}
