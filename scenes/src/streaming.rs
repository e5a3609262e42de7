//! Streaming the world window off the render thread.
//!
//! [`Streamer`] keeps a pool of worker threads ([`TileLoader`]) that produce
//! finished tiles: the ADT generated or read from its source, and its
//! placements built, the same pure functions [`WorldWindow::recentre`] runs
//! (so a tile's placements are identical whichever path loaded it). The
//! render thread calls [`Streamer::update`] once per frame with the camera
//! position: it asks the workers for every tile of the resident square
//! (radius [`StreamConfig::radius`], 3x3 by default) that is not resident,
//! then for the ring ahead of the camera's motion (prefetch); it applies
//! finished tiles (terrain and placements together: a tile is resident
//! whole or not at all) until the frame's [`ApplyBudget`] is spent; and with
//! what that budget leaves, it evicts resident tiles farther than `radius +
//! hysteresis` from the camera's tile (at once when the window would
//! otherwise outgrow [`StreamConfig::max_resident_tiles`]).
//!
//! Prefetched tiles wait finished on the CPU until the camera comes near;
//! they cost the render thread nothing until then.
//!
//! A consumer can have its own per-tile work done on the workers too
//! ([`Streamer::set_preparer`] with a [`TilePrepare`]: the renderer's
//! techniques derive meshes, atlas tiles and buffers from each tile there);
//! the results come back with the applied tiles
//! ([`Streamer::take_prepared`]). What the window lets go of (evicted
//! tiles, their placements) is freed on a [`Reaper`] thread. Workers and
//! the reaper run as background threads (Linux `SCHED_IDLE`), so they never
//! preempt the render thread.

use std::any::Any;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::Instant;

use crate::effects::ResolvedEffects;
use crate::placement::{PlacementStats, Placements, Policy};
pub use crate::reaper::Reaper;
use crate::window::{tile_bytes, TileSource, WindowError, WorldWindow};
use crate::world::{coords, AdtTile, TileCoord, ValidTile};

/// How much finished tile data the render thread applies per frame.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ApplyBudget {
    /// Render-thread milliseconds per frame spent applying tiles; once
    /// spent, the rest waits for the next frame.
    pub cpu_ms: f64,
    /// Bytes of tile and placement data applied per frame. A tile is
    /// applied whole, so one tile larger than the budget is applied alone.
    pub bytes: u64,
    /// Tile changes per frame: tiles made resident, then, with what is
    /// left, tiles evicted (farthest first). Each change also costs the
    /// renderer its techniques' per-tile updates (placing prepared data on
    /// the render thread), which happen after this step and which the time
    /// budget cannot see; one change per frame spreads them. Evictions wait
    /// for frames with room, except those that keep the window within
    /// [`StreamConfig::max_resident_tiles`].
    pub tiles: u32,
}

impl Default for ApplyBudget {
    /// 4 ms, 64 MiB and one tile per frame.
    fn default() -> Self {
        Self {
            cpu_ms: 4.0,
            bytes: 64 << 20,
            tiles: 1,
        }
    }
}

/// Streaming parameters.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct StreamConfig {
    /// Resident radius in tiles around the camera's tile (1 = 3x3).
    pub radius: u32,
    /// Extra tiles a resident tile may be away before it is evicted, so
    /// that flying back and forth over a border does not reload tiles.
    pub hysteresis: u32,
    /// Rings of tiles requested ahead of the camera's motion.
    pub prefetch: u32,
    /// Worker threads.
    pub workers: usize,
    /// What the render thread applies per frame.
    pub budget: ApplyBudget,
}

impl StreamConfig {
    /// The most tiles resident at once: the square of `radius +
    /// hysteresis` around the camera's tile (25 with the defaults).
    pub fn max_resident_tiles(&self) -> usize {
        let side = 2 * (self.radius + self.hysteresis) as usize + 1;
        side * side
    }
}

impl Default for StreamConfig {
    /// Radius 1 (3x3), hysteresis 1, one ring of prefetch, 2 workers, the
    /// default budget.
    fn default() -> Self {
        Self {
            radius: 1,
            hysteresis: 1,
            prefetch: 1,
            workers: 2,
            budget: ApplyBudget::default(),
        }
    }
}

/// Per-tile work a consumer of the streamed world (the renderer) wants done
/// on the worker threads, right after a tile is loaded and placed: whatever
/// it derives from the tile alone (meshes, GPU-ready byte blocks, even GPU
/// buffers created with their data), so the render thread only has to
/// apply the result. The result travels with the finished tile and is
/// handed back by [`Streamer::take_prepared`] when the tile is applied.
pub trait TilePrepare: Send + Sync {
    /// Derives what the consumer needs from tile `coord` and its
    /// placements. Errors travel inside the result (the consumer reports
    /// them when it applies the tile).
    fn prepare(
        &self,
        coord: TileCoord,
        tile: &Arc<AdtTile>,
        placements: &Arc<Placements>,
    ) -> Box<dyn Any + Send>;
}

/// What a [`TilePrepare`] made of one tile.
pub type PreparedValue = Box<dyn Any + Send>;

/// Prepared results by tile, as [`Streamer::take_prepared`] hands them over.
pub type PreparedByTile = Vec<(TileCoord, PreparedValue)>;

/// What a [`TilePrepare`] produced for one tile, tagged with the
/// preparer's generation (a result of a replaced preparer is dropped).
pub struct Prepared {
    generation: u64,
    /// The preparer's result.
    pub value: PreparedValue,
    /// Worker milliseconds spent preparing.
    pub ms: f64,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("generation", &self.generation)
            .field("ms", &self.ms)
            .finish_non_exhaustive()
    }
}

/// The current preparer of a loader's workers and its generation.
type SharedPreparer = Arc<RwLock<(u64, Option<Arc<dyn TilePrepare>>)>>;

/// A tile a worker finished: terrain and placements.
#[derive(Debug)]
pub struct LoadedTile {
    /// The tile, validated on the worker (the render thread makes it
    /// resident without checking it again).
    pub tile: ValidTile,
    /// Its placements.
    pub placements: Arc<Placements>,
    /// Their statistics.
    pub stats: PlacementStats,
    /// Bytes of tile and placement data.
    pub bytes: usize,
    /// Worker milliseconds spent producing it.
    pub ms: f64,
    /// What the streamer's [`TilePrepare`] made of it, if one is set.
    pub prepared: Option<Prepared>,
    /// The worker's whole job for this tile (loading, placing, preparing):
    /// wall milliseconds and, with a thread clock ([`set_thread_clock`]),
    /// the worker thread's own CPU milliseconds.
    pub job: WorkerTile,
}

/// One tile's job on a worker thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct WorkerTile {
    /// Wall milliseconds.
    pub wall_ms: f64,
    /// The worker thread's CPU milliseconds (`None` without a thread clock):
    /// below `wall_ms` when the worker waited for a core or the disk.
    pub thread_ms: Option<f64>,
}

static THREAD_CLOCK: std::sync::OnceLock<fn() -> Option<u64>> = std::sync::OnceLock::new();

/// Sets the clock the tile workers time their jobs with: the calling
/// thread's CPU time in nanoseconds (the program passes
/// `sward_engine::cpu_clock::thread_cpu_ns`; this crate has no clock of its
/// own). The first call wins; without one, [`WorkerTile::thread_ms`] is
/// `None`.
pub fn set_thread_clock(clock: fn() -> Option<u64>) {
    let _ = THREAD_CLOCK.set(clock);
}

fn thread_now() -> Option<u64> {
    THREAD_CLOCK.get().and_then(|c| c())
}

type Job = TileCoord;
type Done = (TileCoord, Result<LoadedTile, WindowError>);

/// Worker threads that load and place tiles.
pub struct TileLoader {
    jobs: Option<Sender<Job>>,
    done: Receiver<Done>,
    workers: Vec<JoinHandle<()>>,
    in_flight: BTreeSet<TileCoord>,
    preparer: SharedPreparer,
    reaper: Reaper,
}

impl std::fmt::Debug for TileLoader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TileLoader")
            .field("workers", &self.workers.len())
            .field("in_flight", &self.in_flight)
            .finish()
    }
}

/// Loads and places one tile (what a worker runs).
pub fn load_tile(
    source: &dyn TileSource,
    effects: &ResolvedEffects,
    model_count: usize,
    policy: &Policy,
    coord: TileCoord,
) -> Result<LoadedTile, WindowError> {
    let start = Instant::now();
    let tile = source.load(coord)?;
    if tile.coord != coord {
        return Err(WindowError::Load {
            tile: coord,
            reason: format!(
                "the source produced tile ({}, {}) instead",
                tile.coord.x, tile.coord.y
            ),
        });
    }
    let tile = ValidTile::new(Arc::new(tile))?;
    let (placements, stats) = Placements::build_tile(&tile, effects, model_count, policy);
    let bytes = tile_bytes(&tile) + placements.bytes();
    Ok(LoadedTile {
        tile,
        placements: Arc::new(placements),
        stats,
        bytes,
        ms: start.elapsed().as_secs_f64() * 1e3,
        prepared: None,
        job: WorkerTile::default(),
    })
}

/// Runs `preparer` (generation `generation`) on a loaded tile.
fn prepare_tile(loaded: &mut LoadedTile, generation: u64, preparer: &dyn TilePrepare) {
    let start = Instant::now();
    let value = preparer.prepare(loaded.tile.coord, &loaded.tile, &loaded.placements);
    loaded.prepared = Some(Prepared {
        generation,
        value,
        ms: start.elapsed().as_secs_f64() * 1e3,
    });
}

impl TileLoader {
    /// `workers` threads (at least one) loading from `source`.
    pub fn new(
        workers: usize,
        source: Arc<dyn TileSource>,
        effects: Arc<ResolvedEffects>,
        model_count: usize,
        policy: Policy,
    ) -> Self {
        let (jobs, job_rx) = mpsc::channel::<Job>();
        let (done_tx, done) = mpsc::channel::<Done>();
        let job_rx = Arc::new(Mutex::new(job_rx));
        let preparer: SharedPreparer = Arc::new(RwLock::new((0, None)));
        let workers = (0..workers.max(1))
            .map(|i| {
                let (job_rx, done_tx) = (Arc::clone(&job_rx), done_tx.clone());
                let (source, effects) = (Arc::clone(&source), Arc::clone(&effects));
                let preparer = Arc::clone(&preparer);
                std::thread::Builder::new()
                    .name(format!("sward-tiles-{i}"))
                    .spawn(move || {
                        crate::reaper::background_priority();
                        loop {
                            let job = match job_rx.lock() {
                                Ok(rx) => rx.recv(),
                                Err(_) => return,
                            };
                            let Ok(coord) = job else { return };
                            let (wall, thread) = (Instant::now(), thread_now());
                            let mut r =
                                load_tile(source.as_ref(), &effects, model_count, &policy, coord);
                            if let Ok(loaded) = r.as_mut() {
                                let current = preparer.read().map(|p| p.clone()).ok();
                                if let Some((generation, Some(p))) = current {
                                    prepare_tile(loaded, generation, p.as_ref());
                                }
                                loaded.job = WorkerTile {
                                    wall_ms: wall.elapsed().as_secs_f64() * 1e3,
                                    thread_ms: thread
                                        .zip(thread_now())
                                        .map(|(a, b)| b.saturating_sub(a) as f64 / 1e6),
                                };
                            }
                            if done_tx.send((coord, r)).is_err() {
                                return;
                            }
                        }
                    })
                    .expect("spawning a tile worker thread")
            })
            .collect();
        Self {
            jobs: Some(jobs),
            done,
            workers,
            in_flight: BTreeSet::new(),
            preparer,
            reaper: Reaper::new(),
        }
    }

    /// Frees `garbage` on the reaper thread.
    pub fn discard(&self, garbage: Vec<Box<dyn Any + Send>>) {
        self.reaper.discard(garbage);
    }

    /// Sets (or clears) the per-tile work the workers run after loading a
    /// tile; returns the new generation. Tiles prepared by an earlier
    /// preparer carry an older generation.
    pub fn set_preparer(&self, preparer: Option<Arc<dyn TilePrepare>>) -> u64 {
        let mut guard = match self.preparer.write() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        guard.0 += 1;
        guard.1 = preparer;
        guard.0
    }

    /// Queues tile `t` unless it is queued already.
    pub fn request(&mut self, t: TileCoord) -> Result<(), WindowError> {
        if self.in_flight.contains(&t) {
            return Ok(());
        }
        let sent = self.jobs.as_ref().is_some_and(|j| j.send(t).is_ok());
        if !sent {
            return Err(WindowError::Load {
                tile: t,
                reason: "the tile worker threads stopped".into(),
            });
        }
        self.in_flight.insert(t);
        Ok(())
    }

    /// Whether `t` is queued or being loaded.
    pub fn is_in_flight(&self, t: TileCoord) -> bool {
        self.in_flight.contains(&t)
    }

    /// Tiles queued or being loaded.
    pub fn queue_depth(&self) -> usize {
        self.in_flight.len()
    }

    /// Finished tiles so far, without waiting.
    pub fn poll(&mut self) -> Vec<Done> {
        let out: Vec<Done> = self.done.try_iter().collect();
        for (t, _) in &out {
            self.in_flight.remove(t);
        }
        out
    }

    /// Waits for the next finished tile (`None` when nothing is in flight).
    pub fn wait(&mut self) -> Option<Done> {
        if self.in_flight.is_empty() {
            return None;
        }
        let done = self.done.recv().ok()?;
        self.in_flight.remove(&done.0);
        Some(done)
    }
}

impl Drop for TileLoader {
    fn drop(&mut self) {
        self.jobs = None;
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// What one [`Streamer::update`] did.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct StreamStep {
    /// Tiles made resident this frame.
    pub applied: Vec<TileCoord>,
    /// Tiles evicted this frame.
    pub evicted: Vec<TileCoord>,
    /// Bytes of tile and placement data applied.
    pub bytes: u64,
    /// Render-thread milliseconds spent in `update`.
    pub ms: f64,
    /// Tiles queued for or being loaded by the workers after this frame.
    pub queue_depth: usize,
    /// Tiles of the resident square around the camera still missing.
    pub missing: usize,
    /// The worker jobs of the tiles applied this frame, in `applied` order.
    pub worker_tiles: Vec<WorkerTile>,
}

impl StreamStep {
    /// Whether the resident world changed.
    pub fn changed(&self) -> bool {
        !self.applied.is_empty() || !self.evicted.is_empty()
    }
}

/// Drives a [`WorldWindow`] from worker threads (see the module docs).
#[derive(Debug)]
pub struct Streamer {
    config: StreamConfig,
    loader: TileLoader,
    ready: BTreeMap<TileCoord, LoadedTile>,
    last: Option<[f64; 2]>,
    heading: [f64; 2],
    generation: u64,
    applied_prepared: PreparedByTile,
    prepared_ms: f64,
}

/// Chebyshev distance between two tiles.
fn distance(a: TileCoord, b: TileCoord) -> u32 {
    a.x.abs_diff(b.x).max(a.y.abs_diff(b.y))
}

impl Streamer {
    /// A streamer for `window`'s source, effects and policy.
    pub fn new(window: &WorldWindow, config: StreamConfig) -> Self {
        Self {
            config,
            loader: TileLoader::new(
                config.workers,
                Arc::clone(window.source()),
                Arc::clone(window.effects()),
                window.model_count(),
                *window.policy(),
            ),
            ready: BTreeMap::new(),
            last: None,
            heading: [0.0, 0.0],
            generation: 0,
            applied_prepared: Vec::new(),
            prepared_ms: 0.0,
        }
    }

    /// Sets (or clears) the per-tile work the workers do after loading a
    /// tile (see [`TilePrepare`]). Finished tiles waiting to be applied
    /// lose what an earlier preparer made of them (their consumer then
    /// does that work itself when they are applied), as do results handed
    /// over by [`Self::update`] and not yet taken.
    pub fn set_preparer(&mut self, preparer: Option<Arc<dyn TilePrepare>>) {
        self.generation = self.loader.set_preparer(preparer);
        for loaded in self.ready.values_mut() {
            loaded.prepared = None;
        }
        self.applied_prepared.clear();
    }

    /// What the preparer made of the tiles applied since the last call,
    /// by tile (tiles prepared by an earlier preparer, or before one was
    /// set, are missing), with the worker milliseconds spent on them.
    pub fn take_prepared(&mut self) -> (PreparedByTile, f64) {
        let ms = std::mem::take(&mut self.prepared_ms);
        (std::mem::take(&mut self.applied_prepared), ms)
    }

    /// The configuration.
    pub fn config(&self) -> &StreamConfig {
        &self.config
    }

    /// Tiles of the square of `radius` around `centre` that the source has,
    /// nearest first.
    fn square(window: &WorldWindow, centre: TileCoord, radius: u32) -> Vec<TileCoord> {
        let r = radius as i32;
        let mut out: Vec<TileCoord> = (-r..=r)
            .flat_map(|dy| (-r..=r).map(move |dx| (dx, dy)))
            .filter_map(|(dx, dy)| centre.offset(dx, dy))
            .filter(|t| window.source().contains(*t))
            .collect();
        out.sort_by_key(|t| distance(*t, centre));
        out
    }

    /// The prefetch ring: tiles `radius + 1 ..= radius + prefetch` away
    /// from `centre` on the side the camera is heading to.
    fn ahead(&self, window: &WorldWindow, centre: TileCoord) -> Vec<TileCoord> {
        let [hx, hy] = self.heading;
        if self.config.prefetch == 0 || (hx == 0.0 && hy == 0.0) {
            return Vec::new();
        }
        let r = self.config.radius;
        let outer = Self::square(window, centre, r + self.config.prefetch);
        let [cx, cy] = coords::tile_centre(centre);
        outer
            .into_iter()
            .filter(|t| distance(*t, centre) > r)
            .filter(|t| {
                let [x, y] = coords::tile_centre(*t);
                (x - cx) * hx + (y - cy) * hy > 0.0
            })
            .collect()
    }

    fn track(&mut self, x: f64, y: f64) -> Result<TileCoord, WindowError> {
        let centre = coords::tile_at(x, y).ok_or(WindowError::OutsideWorld { x, y })?;
        if let Some([lx, ly]) = self.last {
            let (dx, dy) = (x - lx, y - ly);
            if dx != 0.0 || dy != 0.0 {
                self.heading = [dx, dy];
            }
        }
        self.last = Some([x, y]);
        Ok(centre)
    }

    /// Queues every tile of the resident square that is neither resident,
    /// finished nor queued, then the prefetch ring.
    fn request(&mut self, window: &WorldWindow, centre: TileCoord) -> Result<(), WindowError> {
        let wanted = Self::square(window, centre, self.config.radius);
        for t in wanted.iter().chain(self.ahead(window, centre).iter()) {
            if !window.is_resident(*t)
                && !self.ready.contains_key(t)
                && !self.loader.is_in_flight(*t)
            {
                self.loader.request(*t)?;
            }
        }
        let done = self.loader.poll();
        self.collect(done)
    }

    /// The read-only half of a frame, for a caller that must not touch the
    /// window while something borrows it: with the camera at `(x, y)`,
    /// queues missing and prefetch tiles, collects finished ones, and
    /// answers whether [`Self::update`] would change the resident world now
    /// (a tile to evict or a finished tile to apply).
    pub fn pending(&mut self, window: &WorldWindow, x: f64, y: f64) -> Result<bool, WindowError> {
        let centre = self.track(x, y)?;
        self.request(window, centre)?;
        let keep = self.config.radius + self.config.hysteresis;
        let evict = window.tiles().iter().any(|t| distance(*t, centre) > keep);
        let apply = Self::square(window, centre, self.config.radius)
            .iter()
            .any(|t| !window.is_resident(*t) && self.ready.contains_key(t));
        Ok(evict || apply)
    }

    /// With the camera at `(x, y)`: queues missing and prefetch tiles and
    /// blocks until every tile of the resident square is resident or
    /// finished (waiting to be applied), without applying any. Returns the
    /// milliseconds waited. A bench calls this before a measured frame so
    /// every run streams the same tiles whatever its frame rate (the
    /// workers "keep up"); [`Self::update`] then applies them within its
    /// budget as usual.
    pub fn wait_ready(&mut self, window: &WorldWindow, x: f64, y: f64) -> Result<f64, WindowError> {
        let start = Instant::now();
        let centre = self.track(x, y)?;
        self.request(window, centre)?;
        let wanted = Self::square(window, centre, self.config.radius);
        self.wait_for(window, &wanted)?;
        Ok(start.elapsed().as_secs_f64() * 1e3)
    }

    /// Blocks until every tile of `wanted` is resident or finished (or
    /// nothing is left in flight).
    fn wait_for(&mut self, window: &WorldWindow, wanted: &[TileCoord]) -> Result<(), WindowError> {
        while wanted
            .iter()
            .any(|t| !window.is_resident(*t) && !self.ready.contains_key(t))
        {
            match self.loader.wait() {
                Some(done) => self.collect(vec![done])?,
                None => break,
            }
        }
        Ok(())
    }

    /// Tiles queued for or being loaded by the workers.
    pub fn queue_depth(&self) -> usize {
        self.loader.queue_depth()
    }

    /// One frame: the camera is at world `(x, y)`. Requests missing and
    /// prefetch tiles, evicts far ones, applies finished ones within the
    /// budget. With `block`, waits for every tile of the resident square
    /// first (a first load, a teleport, or a test's fully loaded reference).
    pub fn update(
        &mut self,
        window: &mut WorldWindow,
        x: f64,
        y: f64,
        block: bool,
    ) -> Result<StreamStep, WindowError> {
        let start = Instant::now();
        let centre = self.track(x, y)?;
        window.set_centre(centre);
        let wanted = Self::square(window, centre, self.config.radius);
        let mut step = StreamStep::default();

        // Tiles beyond the hysteresis, farthest first (how many go this
        // frame is decided below); drop finished tiles nobody will want soon.
        let keep = self.config.radius + self.config.hysteresis;
        let mut stale: Vec<TileCoord> = window
            .tiles()
            .into_iter()
            .filter(|t| distance(*t, centre) > keep)
            .collect();
        stale.sort_by_key(|t| std::cmp::Reverse(distance(*t, centre)));
        let far = keep + self.config.prefetch;
        let mut garbage: Vec<Box<dyn Any + Send>> = Vec::new();
        let gone: Vec<TileCoord> = self
            .ready
            .keys()
            .filter(|t| distance(**t, centre) > far)
            .copied()
            .collect();
        for t in gone {
            if let Some(loaded) = self.ready.remove(&t) {
                garbage.push(Box::new(loaded));
            }
        }

        // Requests: the resident square first (nearest first), then ahead.
        self.request(window, centre)?;
        if block {
            self.wait_for(window, &wanted)?;
        }

        // Take finished tiles of the resident square, nearest first,
        // within the budget (at least one per frame, so streaming always
        // progresses; everything when blocking), then apply them and the
        // evictions in one step.
        let budget = self.config.budget;
        let mut insert = Vec::new();
        for t in &wanted {
            if window.is_resident(*t) {
                continue;
            }
            let spent_ms = start.elapsed().as_secs_f64() * 1e3;
            let over = step.bytes >= budget.bytes
                || spent_ms >= budget.cpu_ms
                || step.applied.len() >= budget.tiles.max(1) as usize;
            if over && !block && !step.applied.is_empty() {
                break;
            }
            let Some(done) = self.ready.remove(t) else {
                continue;
            };
            if !block && !step.applied.is_empty() && step.bytes + done.bytes as u64 > budget.bytes {
                self.ready.insert(*t, done);
                break;
            }
            step.bytes += done.bytes as u64;
            if let Some(p) = done.prepared {
                // Workers prepare only with a preparer set, under its
                // generation: an older or cleared one never matches.
                if p.generation == self.generation {
                    self.applied_prepared.push((*t, p.value));
                    self.prepared_ms += p.ms;
                }
            }
            step.worker_tiles.push(done.job);
            insert.push((done.tile, done.placements, done.stats));
            step.applied.push(*t);
        }
        // Evictions share the frame's tile budget with the tiles made
        // resident: each costs the techniques a per-tile update too, and
        // none is urgent (a stale tile only lies beyond the window), so they
        // go in frames that made fewer tiles resident, one budget's worth at
        // a time. Two exceptions: the window never holds more than the
        // square of radius + hysteresis (what the techniques size their
        // pools for), and a blocking update evicts everything stale.
        let budget_tiles = budget.tiles.max(1) as usize;
        let room = budget_tiles.saturating_sub(step.applied.len());
        let over =
            (window.tiles().len() + insert.len()).saturating_sub(self.config.max_resident_tiles());
        let evict = if block {
            stale.len()
        } else {
            stale.len().min(room.max(over))
        };
        stale.truncate(evict);
        step.evicted = stale;
        let applied = if !insert.is_empty() || !step.evicted.is_empty() {
            window.apply_collect(insert, &step.evicted, &mut garbage)
        } else {
            Ok(())
        };
        // Freeing evicted tiles (tens of MB at a time) is the reaper's job.
        self.loader.discard(garbage);
        applied?;
        step.missing = wanted.iter().filter(|t| !window.is_resident(**t)).count();
        step.queue_depth = self.loader.queue_depth();
        step.ms = start.elapsed().as_secs_f64() * 1e3;
        Ok(step)
    }

    fn collect(&mut self, done: Vec<Done>) -> Result<(), WindowError> {
        for (t, r) in done {
            self.ready.insert(t, r?);
        }
        Ok(())
    }
}
