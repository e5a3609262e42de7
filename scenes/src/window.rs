//! The streaming world window: the resident 3x3 ADT tiles around the camera
//! and their placements.
//!
//! When the camera enters another tile the window slides: tiles that stay
//! resident are reused as they are (same `Arc`s, same placements), new ones
//! are loaded from the [`TileSource`] and placed, and the rest are dropped.
//! The window holds each placement once, per tile: every resident tile owns
//! its placements ([`WorldWindow::tile_placements`]), so making a tile
//! resident or evicting it moves one `Arc` and copies nothing. The merged
//! store in tile order ([`WorldWindow::placements`]), which a technique built
//! from scratch reads, is assembled on first use after a change and cached.
//!
//! Placement is a pure function of each MCNK, so a tile's placements are the
//! same whichever window it is loaded in. Every slide is reported as a
//! [`WindowSlide`] (tiles loaded/reused/dropped, milliseconds, bytes) so the
//! bench can count hitches.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use crate::effects::ResolvedEffects;
use crate::placement::{PlacementStats, Placements, Policy};
use crate::world::{coords, AdtTile, Mcnk, TileCoord, ValidTile, World, WorldError, ALPHA_TEXELS};

/// Where tiles come from (a generator or a file reader).
pub trait TileSource: Send + Sync + std::fmt::Debug {
    /// Whether the source has tile `coord`.
    fn contains(&self, coord: TileCoord) -> bool;
    /// Produces tile `coord`.
    fn load(&self, coord: TileCoord) -> Result<AdtTile, WindowError>;
    /// Number of tiles the source has.
    fn tile_count(&self) -> usize;
    /// Whether tile `coord` should exist but the source lacks it (a tile
    /// the map's WDT lists whose ADT the data does not hold). The window
    /// never asks for such a tile; reports count them. Default: none.
    fn is_absent(&self, coord: TileCoord) -> bool {
        let _ = coord;
        false
    }
    /// Absolute terrain height at global grid coordinates `(gx, gy)` (cells)
    /// without loading the tile, for distant level-of-detail (clipmaps);
    /// `None` where the source cannot tell cheaply (the default).
    fn coarse_height(&self, gx: f64, gy: f64) -> Option<f32> {
        let _ = (gx, gy);
        None
    }
}

/// Errors of the world window.
#[derive(Debug, thiserror::Error)]
pub enum WindowError {
    /// The source could not produce a tile.
    #[error("cannot load ADT tile ({}, {}): {reason}", tile.x, tile.y)]
    Load {
        /// The tile.
        tile: TileCoord,
        /// Why.
        reason: String,
    },
    /// A loaded tile is invalid.
    #[error(transparent)]
    World(#[from] WorldError),
    /// The requested centre is outside the world.
    #[error("position ({x}, {y}) is outside the world")]
    OutsideWorld {
        /// World x.
        x: f64,
        /// World y.
        y: f64,
    },
}

/// What one window change did and cost.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct WindowSlide {
    /// Centre before (`None` for the first load).
    pub from: Option<TileCoord>,
    /// Centre after.
    pub to: TileCoord,
    /// Tiles loaded and placed.
    pub loaded: Vec<TileCoord>,
    /// Tiles kept from the previous window.
    pub reused: usize,
    /// Tiles dropped.
    pub dropped: usize,
    /// Wall time of the change in milliseconds.
    pub ms: f64,
    /// Bytes of tile and placement data produced.
    pub bytes: usize,
}

#[derive(Clone, Debug)]
struct Resident {
    tile: Arc<AdtTile>,
    stats: PlacementStats,
    /// This tile's placements (group starts count from 0).
    placements: Arc<Placements>,
}

/// Approximate heap + inline bytes of a tile.
pub fn tile_bytes(tile: &AdtTile) -> usize {
    let alpha: usize = tile
        .mcnks
        .iter()
        .map(|m| m.layers.iter().filter(|l| l.alpha.is_some()).count())
        .sum();
    tile.mcnks.len() * std::mem::size_of::<Mcnk>() + alpha * ALPHA_TEXELS
}

/// The resident (2r+1)x(2r+1) tiles around a centre tile (r = 1: 3x3).
#[derive(Debug)]
pub struct WorldWindow {
    source: Arc<dyn TileSource>,
    effects: Arc<ResolvedEffects>,
    model_count: usize,
    policy: Policy,
    radius: u32,
    centre: TileCoord,
    resident: BTreeMap<(u32, u32), Resident>,
    /// The merged store, assembled on first use after a change.
    merged: OnceLock<Arc<Placements>>,
    world: World,
}

impl WorldWindow {
    /// A window of `radius` (1 = 3x3) centred on `centre`, loaded at once.
    pub fn new(
        name: &str,
        source: Arc<dyn TileSource>,
        effects: Arc<ResolvedEffects>,
        model_count: usize,
        policy: Policy,
        radius: u32,
        centre: TileCoord,
    ) -> Result<(Self, WindowSlide), WindowError> {
        let mut w = Self {
            source,
            effects,
            model_count,
            policy,
            radius,
            centre,
            resident: BTreeMap::new(),
            merged: OnceLock::new(),
            world: World::new(name),
        };
        let mut slide = w.recentre(centre)?;
        slide.from = None;
        Ok((w, slide))
    }

    /// Tiles the window wants around `centre` (present in the source).
    fn wanted(&self, centre: TileCoord) -> Vec<TileCoord> {
        let r = self.radius as i32;
        let mut out = Vec::new();
        for dy in -r..=r {
            for dx in -r..=r {
                if let Some(t) = centre.offset(dx, dy).filter(|t| self.source.contains(*t)) {
                    out.push(t);
                }
            }
        }
        out
    }

    /// Moves the window to `centre`, reusing overlapping tiles.
    pub fn recentre(&mut self, centre: TileCoord) -> Result<WindowSlide, WindowError> {
        let start = Instant::now();
        let wanted = self.wanted(centre);
        let keys: Vec<(u32, u32)> = wanted.iter().map(|t| (t.y, t.x)).collect();
        let drop: Vec<(u32, u32)> = self
            .resident
            .keys()
            .filter(|k| !keys.contains(k))
            .copied()
            .collect();
        for k in &drop {
            self.resident.remove(k);
            self.world.remove(TileCoord::new(k.1, k.0));
        }
        self.merged = OnceLock::new();
        let mut loaded = Vec::new();
        let mut bytes = 0;
        let mut reused = 0;
        let load = || -> Result<(), WindowError> {
            for t in wanted {
                if self.resident.contains_key(&(t.y, t.x)) {
                    reused += 1;
                    continue;
                }
                let tile = Arc::new(self.source.load(t)?);
                let (placements, stats) =
                    Placements::build_tile(&tile, &self.effects, self.model_count, &self.policy);
                bytes += tile_bytes(&tile) + placements.bytes();
                self.world.insert(Arc::clone(&tile))?;
                self.resident.insert(
                    (t.y, t.x),
                    Resident {
                        tile,
                        stats,
                        placements: Arc::new(placements),
                    },
                );
                loaded.push(t);
            }
            Ok(())
        };
        load()?;
        let from = Some(self.centre);
        self.centre = centre;
        Ok(WindowSlide {
            from,
            to: centre,
            loaded,
            reused,
            dropped: drop.len(),
            ms: start.elapsed().as_secs_f64() * 1e3,
            bytes,
        })
    }

    /// Follows the camera: slides when `(x, y)` is in another tile than the
    /// centre; `Ok(None)` when nothing changed.
    pub fn update(&mut self, x: f64, y: f64) -> Result<Option<WindowSlide>, WindowError> {
        let tile = coords::tile_at(x, y).ok_or(WindowError::OutsideWorld { x, y })?;
        if tile == self.centre {
            return Ok(None);
        }
        self.recentre(tile).map(Some)
    }

    /// The centre tile.
    pub fn centre(&self) -> TileCoord {
        self.centre
    }

    /// The resident world.
    pub fn world(&self) -> &World {
        &self.world
    }

    /// Resident tile coordinates in (row, column) order.
    pub fn tiles(&self) -> Vec<TileCoord> {
        self.resident
            .keys()
            .map(|&(y, x)| TileCoord::new(x, y))
            .collect()
    }

    /// The placements of one resident tile (group starts from 0).
    pub fn tile_placements(&self, t: TileCoord) -> Option<&Arc<Placements>> {
        self.resident.get(&(t.y, t.x)).map(|r| &r.placements)
    }

    /// The resident tile `t`.
    pub fn tile(&self, t: TileCoord) -> Option<&Arc<AdtTile>> {
        self.resident.get(&(t.y, t.x)).map(|r| &r.tile)
    }

    /// All resident placements merged in tile order (the same order
    /// [`Placements::build_world`] uses). Assembled from the tiles' own
    /// placements on the first call after the resident set changed, then
    /// cached until the next change.
    pub fn placements(&self) -> &Arc<Placements> {
        self.merged.get_or_init(|| {
            Arc::new(Placements::concat(
                self.resident.values().map(|r| r.placements.as_ref()),
            ))
        })
    }

    /// Whether the merged store is assembled now (it is after a call to
    /// [`Self::placements`] and until the resident set changes).
    pub fn placements_merged(&self) -> bool {
        self.merged.get().is_some()
    }

    /// Placement statistics of the resident tiles.
    pub fn stats(&self) -> PlacementStats {
        self.resident
            .values()
            .fold(PlacementStats::new(self.model_count), |mut s, r| {
                s.add(&r.stats);
                s
            })
    }

    /// The placement policy.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Where tiles come from.
    pub fn source(&self) -> &Arc<dyn TileSource> {
        &self.source
    }

    /// The resolved ground effects placement uses.
    pub fn effects(&self) -> &Arc<ResolvedEffects> {
        &self.effects
    }

    /// Number of detail models placement indexes.
    pub fn model_count(&self) -> usize {
        self.model_count
    }

    /// The resident radius in tiles (1 = 3x3).
    pub fn radius(&self) -> u32 {
        self.radius
    }

    /// Whether tile `t` is resident.
    pub fn is_resident(&self, t: TileCoord) -> bool {
        self.resident.contains_key(&(t.y, t.x))
    }

    /// Makes tiles that were loaded and placed elsewhere (a streaming
    /// worker) resident, each whole: its terrain and its placements
    /// together, and evicts `evict` (terrain and placements). The tiles
    /// were validated where they were loaded ([`ValidTile`]). Nothing is
    /// copied: each tile keeps its own placements. A tile that was resident
    /// is replaced.
    pub fn apply(
        &mut self,
        insert: Vec<(ValidTile, Arc<Placements>, PlacementStats)>,
        evict: &[TileCoord],
    ) -> Result<(), WindowError> {
        self.apply_collect(insert, evict, &mut Vec::new())
    }

    /// [`Self::apply`], handing what it lets go of (evicted tiles and
    /// their placements, a replaced merged store) to `garbage` instead of
    /// freeing it here: the caller frees it where the time does not count
    /// (a streamer drops it on another thread).
    pub fn apply_collect(
        &mut self,
        insert: Vec<(ValidTile, Arc<Placements>, PlacementStats)>,
        evict: &[TileCoord],
        garbage: &mut Vec<Box<dyn std::any::Any + Send>>,
    ) -> Result<(), WindowError> {
        if let Some(merged) = std::mem::take(&mut self.merged).into_inner() {
            garbage.push(Box::new(merged));
        }
        for t in evict {
            if let Some(tile) = self.world.remove(*t) {
                garbage.push(Box::new(tile));
            }
            if let Some(r) = self.resident.remove(&(t.y, t.x)) {
                garbage.push(Box::new(r.placements));
                garbage.push(Box::new(r.tile));
            }
        }
        let mut result = Ok(());
        for (tile, placements, stats) in insert {
            let t = tile.coord;
            if let Some(old) = self.world.remove(t) {
                garbage.push(Box::new(old));
            }
            if let Err(e) = self.world.insert_valid(tile.clone()) {
                self.resident.remove(&(t.y, t.x));
                result = Err(e.into());
                break;
            }
            let replaced = self.resident.insert(
                (t.y, t.x),
                Resident {
                    tile: tile.into_tile(),
                    stats,
                    placements,
                },
            );
            if let Some(old) = replaced {
                garbage.push(Box::new(old.placements));
                garbage.push(Box::new(old.tile));
            }
        }
        result
    }

    /// Makes one tile loaded elsewhere resident (see [`Self::apply`]).
    pub fn insert_loaded(
        &mut self,
        tile: Arc<AdtTile>,
        placements: Placements,
        stats: PlacementStats,
    ) -> Result<(), WindowError> {
        let tile = ValidTile::new(tile)?;
        self.apply(vec![(tile, Arc::new(placements), stats)], &[])
    }

    /// Evicts tile `t` (terrain and placements); whether it was resident.
    pub fn evict(&mut self, t: TileCoord) -> bool {
        let was = self.is_resident(t);
        if was {
            // Nothing to insert cannot fail.
            let _ = self.apply(Vec::new(), &[t]);
        }
        was
    }

    /// Moves the centre to `centre` without loading or dropping anything
    /// (a streamer decides what is resident).
    pub fn set_centre(&mut self, centre: TileCoord) {
        self.centre = centre;
    }
}
