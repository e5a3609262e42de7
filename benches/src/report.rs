//! The `report.json` data model, schema `sward-bench/1` (described in
//! `docs/`): plain serde types, no behaviour beyond a few lookups.
//!
//! Fields beyond the contract are allowed where they make a report more honest:
//! a top-level `config` map (e.g. whether wgpu's injected indirect-draw validation
//! was on), per-run `gpu_grass_ms`/`gpu_terrain_ms` (the figures behind
//! `gpu_grass_ratio`), per-run `frame_series` (the per-frame times behind the
//! charts) and a per-run `extra` map. Readers must ignore fields they don't know.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sward_passes::technique::{ParamValue, TierCombo};

pub use crate::stats::Hitch;
use crate::stats::Stats;
use crate::work::{AllocStats, GpuWork};

/// The schema tag written into every report.
pub const SCHEMA: &str = "sward-bench/1";
/// Grass tier of the baseline run.
pub const BASELINE_GRASS: &str = "static-batch";
/// Terrain tier of the baseline run.
pub const BASELINE_TERRAIN: &str = "static-chunks";
/// Well-known key of [`Report::config`]: whether wgpu's injected indirect-draw
/// validation was enabled (it adds GPU work to every indirect draw).
pub const CONFIG_INDIRECT_VALIDATION: &str = "indirect_validation";
/// Well-known key of [`Report::config`]: the `--texture-upload` choice
/// (`auto` or `decode`); [`SceneInfo::textures`] counts what it did.
pub const CONFIG_TEXTURE_UPLOAD: &str = "texture_upload";

/// A whole bench report (`DIR/report.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// Version of the `sward` binary that measured this.
    pub sward_version: String,
    /// Preset name the world was built from.
    pub preset: String,
    /// The adapter every run used.
    pub adapter: AdapterInfo,
    /// Render target size `[width, height]` in pixels.
    pub size: [u32; 2],
    /// MSAA sample count (1 or 4).
    pub msaa: u32,
    /// Measured frames per run.
    pub frames: u32,
    /// Unmeasured warm-up frames per run.
    pub warmup: u32,
    /// Size of the world that was rendered.
    pub scene: SceneInfo,
    /// Settings that shape the figures (indirect validation, patch size, ...).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub config: BTreeMap<String, serde_json::Value>,
    /// One entry per tier combination measured.
    pub runs: Vec<Run>,
    /// One entry per non-baseline run: ratios against the baseline run.
    pub comparisons: Vec<Comparison>,
    /// Tier combinations that refused the scene or the device (an input
    /// they cannot hold, a device limit, a missing capability), with the
    /// reason: not measured, the others were.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<Refusal>,
}

/// A tier combination the bench could not build, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    /// The tier combination.
    pub tier: TierPair,
    /// The technique's error.
    pub reason: String,
}

impl Report {
    /// The baseline run (`static-batch` + `static-chunks`), if present.
    pub fn baseline(&self) -> Option<&Run> {
        self.runs.iter().find(|r| r.tier.is_baseline())
    }

    /// The run measured for `tier`, if any.
    pub fn run(&self, tier: &TierPair) -> Option<&Run> {
        self.runs.iter().find(|r| &r.tier == tier)
    }

    /// Whether wgpu's indirect-draw validation was on, when the runner recorded it.
    pub fn indirect_validation(&self) -> Option<bool> {
        self.config
            .get(CONFIG_INDIRECT_VALIDATION)
            .and_then(serde_json::Value::as_bool)
    }
}

/// The adapter the bench ran on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdapterInfo {
    /// Adapter name as wgpu reports it (e.g. `llvmpipe (LLVM 19.1.7, 256 bits)`).
    pub name: String,
    /// Backend (`vulkan`, `metal`, `dx12`, `gl`).
    pub backend: String,
    /// Device type (`Cpu`, `DiscreteGpu`, ...).
    pub device_type: String,
    /// Driver name and version.
    pub driver: String,
}

/// Size of the rendered world.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SceneInfo {
    /// ADT tiles loaded.
    pub adts: u32,
    /// MCNK chunks loaded.
    pub mcnks: u32,
    /// Ground-effect placements (grass clumps).
    pub placements: u64,
    /// Distinct detail models.
    pub models: u32,
    /// Terrain triangles at full resolution.
    pub triangles_terrain: u64,
    /// Detail models a ground effect names that the data lacks (drawn as
    /// placeholders, or skipped with `--placeholders off`; see the warning).
    /// Always 0 for presets.
    #[serde(default)]
    pub missing_models: u32,
    /// Of those, the ones drawn as placeholders (yellow checkered crosses).
    #[serde(default)]
    pub placeholder_models: u32,
    /// Placements of the resident window drawn with a placeholder.
    #[serde(default)]
    pub placeholder_placements: u64,
    /// Tiles of the resident window that the map lists but the data lacks
    /// (drawn as nothing).
    #[serde(default)]
    pub absent_tiles: u32,
    /// The client version the data was read as (`1.12`, `3.3.5`), with the
    /// evidence; absent for presets and data that does not tell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    /// How the detail textures went to the GPU (absent in reports written
    /// before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub textures: Option<TextureCounts>,
}

/// How many detail textures went to the GPU each way (the
/// `--texture-upload` choice is `config.texture_upload`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextureCounts {
    /// DXT textures uploaded as BC1/BC2/BC3 blocks.
    pub bc: u32,
    /// DXT textures decoded to RGBA8 on the CPU (forced, no device support,
    /// or a texture BC cannot show as the file means; the log says which).
    pub decoded: u32,
    /// Textures stored as RGBA8 (procedural, BGRA or palettized BLPs, DXT
    /// BLPs with missing mip levels).
    pub rgba: u32,
}

/// A tier combination: one grass tier and one terrain tier (`off` disables
/// one), each with its full parameter set.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TierPair {
    /// Grass tier name (`legacy-cpu`, `static-batch`, `gpu-cull`, `camera-grid`, `off`).
    pub grass: String,
    /// Terrain tier name (`static-chunks`, `atlas-instanced`, `gpu-cull`, `clipmap`, `off`).
    pub terrain: String,
    /// Every parameter of both tiers, defaults included (absent when neither
    /// tier has parameters, as for the baseline).
    #[serde(default, skip_serializing_if = "TierParams::is_empty")]
    pub params: TierParams,
    /// The `--tiers` spelling (parameters that differ from their defaults
    /// only), e.g. `gpu-cull:patch=1+static-chunks`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub label: String,
}

/// The parameter sets of a [`TierPair`].
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TierParams {
    /// The grass tier's parameters by name.
    #[serde(default)]
    pub grass: BTreeMap<String, ParamValue>,
    /// The terrain tier's parameters by name.
    #[serde(default)]
    pub terrain: BTreeMap<String, ParamValue>,
}

impl TierParams {
    /// Whether neither tier has parameters.
    pub fn is_empty(&self) -> bool {
        self.grass.is_empty() && self.terrain.is_empty()
    }
}

impl TierPair {
    /// A combination from its two tier names, without parameters.
    pub fn new(grass: impl Into<String>, terrain: impl Into<String>) -> Self {
        Self {
            grass: grass.into(),
            terrain: terrain.into(),
            params: TierParams::default(),
            label: String::new(),
        }
    }

    /// The report's record of a tier combination, parameters included.
    pub fn of(combo: &TierCombo) -> Self {
        let params = TierParams {
            grass: combo.grass.params().to_map(),
            terrain: combo.terrain.params().to_map(),
        };
        // Without parameters the label is the two names; leaving it empty
        // keeps one spelling (and one map key) per combination.
        let label = if params.is_empty() {
            String::new()
        } else {
            combo.to_string()
        };
        Self {
            grass: combo.grass.name().to_owned(),
            terrain: combo.terrain.name().to_owned(),
            params,
            label,
        }
    }

    /// The baseline combination, `static-batch` + `static-chunks`.
    pub fn baseline() -> Self {
        Self::new(BASELINE_GRASS, BASELINE_TERRAIN)
    }

    /// Whether this is the baseline combination.
    pub fn is_baseline(&self) -> bool {
        self.grass == BASELINE_GRASS && self.terrain == BASELINE_TERRAIN && self.params.is_empty()
    }

    /// A file name stem for this combination's screenshot (`:` and `=` of
    /// parameters become `_` and `-`, which every file system accepts).
    pub fn file_stem(&self) -> String {
        self.to_string().replace(':', "_").replace('=', "-")
    }
}

impl std::fmt::Display for TierPair {
    /// The `--tiers` spelling: `GRASS+TERRAIN`, with non-default parameters.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.label.is_empty() {
            write!(f, "{}+{}", self.grass, self.terrain)
        } else {
            f.write_str(&self.label)
        }
    }
}

/// Everything measured for one tier combination.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// Which combination this is.
    pub tier: TierPair,
    /// CPU time per frame (ms).
    pub cpu_frame_ms: Stats,
    /// CPU time per frame in passes named `grass.*` (ms, summed per frame).
    pub cpu_grass_ms: Stats,
    /// CPU time per frame in passes named `terrain.*` (ms, summed per frame).
    pub cpu_terrain_ms: Stats,
    /// GPU time per frame (ms); `null` when the device gave no timestamps.
    pub gpu_frame_ms: Option<Stats>,
    /// GPU time per frame in passes named `grass.*` (ms, summed per frame).
    #[serde(default)]
    pub gpu_grass_ms: Option<Stats>,
    /// GPU time per frame in passes named `terrain.*` (ms, summed per frame).
    #[serde(default)]
    pub gpu_terrain_ms: Option<Stats>,
    /// GPU time per pass (ms), over the frames where that pass was timed.
    pub gpu_pass_ms: BTreeMap<String, Stats>,
    /// CPU time per pass closure and per named step of the frame outside
    /// the passes (`frame.record`: building the graph, `frame.setup`,
    /// `frame.submit`, `frame.finish`; streaming sections where they ran),
    /// over the frames where it ran (ms).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub cpu_pass_ms: BTreeMap<String, Stats>,
    /// Draw calls per frame (median), indirect draws counted as submitted.
    pub draw_calls: u64,
    /// Instances submitted per frame (median), before any GPU culling.
    pub instances_submitted: u64,
    /// Instances actually drawn per frame (median), after culling.
    pub instances_drawn: u64,
    /// Triangles drawn per frame (median).
    pub triangles: u64,
    /// Bytes uploaded CPU -> GPU per frame (median).
    pub bytes_uploaded: u64,
    /// GPU memory held by the run's buffers and textures (bytes).
    pub gpu_memory_bytes: u64,
    /// Frames whose CPU frame time exceeded [`crate::stats::hitch_limit`]
    /// of the median: `hitch_list`'s length.
    pub hitches: u32,
    /// File name of the run's screenshot, relative to the report directory.
    pub image: Option<String>,
    /// Per-frame times in camera-path order (drives the frame-time chart).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_series: Option<FrameSeries>,
    /// Run-specific settings and notes (e.g. `multi_draw_count_used`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, serde_json::Value>,
    /// Frames over [`crate::stats::hitch_limit`] of the median CPU frame,
    /// each with its largest named CPU section (absent in reports written
    /// before it was recorded).
    #[serde(default)]
    pub hitch_list: Vec<Hitch>,
    /// What moving the world window cost, for runs along a camera path
    /// that slides it (`--path flight`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streaming: Option<Streaming>,
    /// The render thread's own CPU time per frame (its thread clock: time
    /// it ran, not time it waited; ms). Absent where the platform has no
    /// thread clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_frame_thread_ms: Option<Stats>,
    /// The render thread's CPU time per pass closure and named step, as
    /// `cpu_pass_ms` (ms).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub cpu_pass_thread_ms: BTreeMap<String, Stats>,
    /// Frames over the hitch bound in the render thread's CPU time, each
    /// named by its largest section in thread time: work, not waiting.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thread_hitch_list: Vec<Hitch>,
    /// The frames over 1.5 times the median render-thread CPU time (the
    /// flight's p99 bound), slowest first, each with what its sections took
    /// beyond their median ([`crate::tail`]); empty without a thread clock.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thread_tail: Vec<crate::tail::TailFrame>,
    /// GPU work counters (pipeline statistics) per pass and subsystem;
    /// absent where the device has no pipeline statistics queries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_work: Option<GpuWork>,
    /// Heap allocations on the render thread per frame; absent without the
    /// counting allocator (it is installed in the `sward` binary).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allocs_per_frame: Option<AllocStats>,
}

/// What streaming the world did during one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Streaming {
    /// How tiles reach the renderer (`--stream`): `workers` (loaded and
    /// placed on worker threads, applied within a per-frame budget) or
    /// `render-thread` (loaded when the camera enters a tile). Either way
    /// every technique then updates through its residency hook (in place,
    /// or rebuilt where it cannot).
    pub mode: String,
    /// Resident radius in tiles (1 = 3x3).
    pub radius: u32,
    /// Times the camera entered another tile during the measured frames.
    pub slides: u32,
    /// Frames in which the resident world changed (tiles applied or evicted).
    pub changes: u32,
    /// Tiles loaded (and placed).
    pub tiles_loaded: u32,
    /// Tiles evicted.
    pub tiles_evicted: u32,
    /// CPU bytes of tile and placement data produced.
    pub tile_bytes: u64,
    /// Bytes uploaded to the GPU by streaming: what in-place technique
    /// updates sent plus every buffer and texture of a rebuilt technique.
    pub bytes_uploaded: u64,
    /// Largest render-thread streaming time in one frame (ms): loading or
    /// applying tiles plus updating the techniques.
    pub max_frame_ms: f64,
    /// Largest render-thread time in one frame spent loading (render
    /// thread) or applying (workers) tiles, the techniques not included (ms).
    #[serde(default)]
    pub max_load_ms: f64,
    /// Largest number of tiles queued for workers at once (0 without workers).
    pub max_queue_depth: u32,
    /// Technique updates done in place through the residency hooks (one
    /// per technique and frame that changed the world).
    #[serde(default)]
    pub techniques_applied: u32,
    /// Techniques rebuilt from scratch because they cannot update in place.
    #[serde(default)]
    pub techniques_rebuilt: u32,
    /// Largest render-thread time in one frame spent updating techniques
    /// (in place and rebuilt; ms).
    #[serde(default)]
    pub max_technique_ms: f64,
    /// Technique-tiles whose per-tile preparation (meshes, height tiles,
    /// patch sets, buffers created with their data) ran on the tile
    /// workers, leaving the render thread only the placing.
    #[serde(default)]
    pub prepared_off_thread: u32,
    /// Technique-tiles that techniques with a preparer had to prepare on
    /// the render thread (no worker result: synchronous slides, tiles
    /// loaded before the preparer was set).
    #[serde(default)]
    pub prepared_inline: u32,
    /// Worker milliseconds spent on that preparation (not on the render
    /// thread; summed over workers).
    #[serde(default)]
    pub prepare_worker_ms: f64,
    /// Measured-frame index of every slide: the frame in which the camera
    /// entered another tile (the frame-series charts mark them).
    pub slide_frames: Vec<u32>,
    /// `keep-up` (before each measured frame the bench waited, outside the
    /// frame's time, until the workers had finished every tile of the
    /// resident square) or `free` (the workers only had the frames' wall
    /// time); empty in reports written before it was recorded.
    #[serde(default)]
    pub pace: String,
    /// With `keep-up`: milliseconds waited for the workers, in all and in
    /// the longest single wait (how far behind the camera they were).
    #[serde(default)]
    pub worker_wait_ms: f64,
    /// The longest single wait (ms).
    #[serde(default)]
    pub max_worker_wait_ms: f64,
    /// Measured frames drawn while some tile of the resident square was not
    /// resident (absent whole): the per-frame budget staggers a slide's
    /// tiles, and with `free` the workers may fall behind.
    #[serde(default)]
    pub frames_missing_tiles: u32,
    /// Largest streaming work in one frame in the render thread's own CPU
    /// time (loading or applying tiles plus updating the techniques; ms);
    /// absent without a thread clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_frame_thread_ms: Option<f64>,
    /// Per tile applied during the run, the tile workers' whole job for it
    /// (loading, placing, the techniques' preparation) in wall
    /// milliseconds; absent when no tile came from the workers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker_tile_ms: Option<Stats>,
    /// The same jobs in the worker threads' own CPU time (below the wall
    /// time when a worker waited for a core: the render thread and the
    /// rasteriser share them); absent without a thread clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker_tile_thread_ms: Option<Stats>,
}

/// Per-frame times of one run, in the order the camera path visited them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrameSeries {
    /// CPU frame time per measured frame (ms).
    pub cpu_frame_ms: Vec<f64>,
    /// GPU frame time per measured frame (ms), `null` where not timed.
    pub gpu_frame_ms: Vec<Option<f64>>,
    /// Render-thread CPU time per measured frame (ms), beside the wall time
    /// of `cpu_frame_ms`: which frames carry a run's p99 in work rather
    /// than waiting. Absent without a thread clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_frame_thread_ms: Option<Vec<f64>>,
}

/// One tier measured against the baseline in the same process run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The combination being compared.
    pub tier: TierPair,
    /// The baseline combination (`static-batch` + `static-chunks`).
    pub baseline: TierPair,
    /// `tier.cpu_frame_ms.median / baseline.cpu_frame_ms.median`.
    pub cpu_frame_ratio: Option<f64>,
    /// `tier.cpu_grass_ms.median / baseline.cpu_grass_ms.median`.
    pub cpu_grass_ratio: Option<f64>,
    /// `tier.gpu_frame_ms.median / baseline.gpu_frame_ms.median`.
    pub gpu_frame_ratio: Option<f64>,
    /// `tier.gpu_grass_ms.median / baseline.gpu_grass_ms.median`.
    pub gpu_grass_ratio: Option<f64>,
    /// `tier.cpu_frame_thread_ms.median / baseline.cpu_frame_thread_ms.median`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_frame_thread_ratio: Option<f64>,
    /// Each median GPU work counter over the baseline's, keyed
    /// `subsystem.counter` (`grass.vs_invocations`, `frame.fs_invocations`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub gpu_work_ratios: BTreeMap<String, f64>,
    /// Screenshot difference against the baseline's, `null` without screenshots.
    pub image_diff: Option<ImageDiff>,
}

/// How different two screenshots are (see `imagediff` for the definitions).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ImageDiff {
    /// Root mean square difference over the R, G and B channels, 0..255 scale.
    pub rmse: f64,
    /// Fraction (0..1) of pixels whose largest channel difference exceeds the threshold.
    pub differing_pixels_fraction: f64,
}
