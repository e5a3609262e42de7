//! `sward soak`: slides the world window back and forth many times and
//! records, after every slide, what the process holds: its resident
//! memory, the live Rust heap, the GPU memory sward itself accounts for
//! (every technique's buffers and textures and the detail models) and
//! wgpu's own count of the objects it holds ([`sample`]); then checks how
//! much each grew per slide after a warm-up ([`summary`]), so that a leak
//! fails the command instead of hiding in a table.

mod sample;
mod summary;
#[cfg(test)]
mod tests;

pub use sample::{rss_bytes, wgpu_objects, ObjectCounts, WgpuObjects};
pub use summary::{
    summarise, summary_markdown, summary_text, Bound, Growth, SoakSummary, TierGrowth,
    DEFAULT_MAX_GROWTH_MIB, DEFAULT_WARMUP, PERIOD,
};

use sward_engine::graph::GraphExecutor;
use sward_engine::{GpuContext, GpuOptions, OffscreenTarget};
use sward_passes::renderer::SceneData;
use sward_passes::technique::ResidencyChange;
use sward_passes::RenderSettings;
use sward_scenes::presets::ViewPose;
use sward_scenes::world::coords;

use super::runner::{build_renderer, choose_combos, Frame};
use super::{BenchError, BenchOptions};
use crate::report::TierPair;

/// What the user asked for (`sward soak` flags).
#[derive(Debug, Clone)]
pub struct SoakOptions {
    /// Preset name; must be larger than its resident window (`continent`).
    pub preset: String,
    /// Window slides per tier combination.
    pub slides: u32,
    /// `--tiers` list (the baseline always runs first).
    pub tiers: Option<String>,
    /// Adapter selector (`--adapter`).
    pub adapter: Option<String>,
    /// Slides before growth is measured (`--warmup`).
    pub warmup: u32,
    /// Bound on RSS and live-heap growth, MiB per slide (`--max-growth`).
    pub max_growth_mib: f64,
}

impl SoakOptions {
    /// A soak of `slides` slides of `tiers` on `continent` with the default
    /// warm-up and bound.
    pub fn new(slides: u32, tiers: Option<String>) -> Self {
        Self {
            preset: "continent".into(),
            slides,
            tiers,
            adapter: None,
            warmup: DEFAULT_WARMUP,
            max_growth_mib: DEFAULT_MAX_GROWTH_MIB,
        }
    }
}

/// The state after one slide.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SoakSample {
    /// The tier combination.
    pub tier: String,
    /// Slide number, from 1.
    pub slide: u32,
    /// The window's centre tile after the slide.
    pub centre: [u32; 2],
    /// Tiles loaded by the slide.
    pub tiles_loaded: usize,
    /// Tiles dropped by the slide.
    pub tiles_evicted: usize,
    /// The process's resident set size (bytes; `None` where the system
    /// does not say, outside Linux).
    pub rss_bytes: Option<u64>,
    /// GPU memory sward holds for the techniques and the models.
    pub gpu_memory_bytes: u64,
    /// Heap bytes live in the process through the counting allocator
    /// (sward's and its Rust dependencies', wgpu's included; the driver's C
    /// allocations are not; `None` without that allocator).
    pub live_heap_bytes: Option<u64>,
    /// wgpu's count of the objects it holds (`None` where wgpu does not
    /// run on wgpu-core).
    pub wgpu: Option<WgpuObjects>,
}

/// Every sample of a soak.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SoakReport {
    /// Preset.
    pub preset: String,
    /// Slides per tier combination.
    pub slides: u32,
    /// One sample per slide and combination.
    pub samples: Vec<SoakSample>,
    /// Growth per slide after the warm-up, per combination, with the
    /// bounds it is checked against.
    pub summary: SoakSummary,
}

/// Tile offsets from the start tile visited by slide `k` (1-based): along
/// +column to 3 tiles out and back, over and over, so tiles are evicted
/// and loaded again.
fn offset(k: u32) -> i32 {
    let p = (k % PERIOD) as i32;
    if p <= 3 {
        p
    } else {
        PERIOD as i32 - p
    }
}

/// Runs the soak: for every tier combination, `slides` window slides, each
/// followed by the techniques' residency updates (in place where a
/// technique can, as streaming does) and one rendered frame.
pub fn run_soak(opts: &SoakOptions) -> Result<SoakReport, BenchError> {
    if opts.slides == 0 {
        return Err(BenchError::Usage("--slides must be at least 1".into()));
    }
    if !(opts.max_growth_mib.is_finite() && opts.max_growth_mib >= 0.0) {
        return Err(BenchError::Usage(format!(
            "--max-growth must be a number of MiB per slide, 0 or more (got {})",
            opts.max_growth_mib
        )));
    }
    let plan = BenchOptions {
        preset: Some(opts.preset.clone()),
        tiers: opts.tiers.clone(),
        frames: Some(1),
        warmup: Some(0),
        size: Some("64x48".into()),
        quick: true,
        ..BenchOptions::default()
    }
    .plan()?;
    let mut scene = plan.preset.scene(&Default::default())?;
    if scene.adts <= scene.window.tiles().len() {
        return Err(BenchError::Usage(format!(
            "preset `{}` is resident whole ({} tiles): soak needs a world larger than \
             its window, e.g. continent",
            scene.name, scene.adts
        )));
    }
    let gpu = GpuContext::new(&GpuOptions {
        adapter: opts.adapter.clone(),
        ..GpuOptions::default()
    })?;
    let (combos, _) = choose_combos(&plan, &gpu.caps)?;
    let target = OffscreenTarget::new(&gpu.device, plan.size[0], plan.size[1], plan.msaa)
        .map_err(|e| BenchError::Usage(format!("soak target: {e}")))?;
    let mut executor = GraphExecutor::new(&gpu).map_err(|source| BenchError::Graph {
        tier: "setup".into(),
        source,
    })?;
    let settings = RenderSettings::default().with_grass(scene.grass);
    let start = scene.window.centre();
    let mut samples = Vec::new();
    for combo in &combos {
        let tier = TierPair::of(combo).to_string();
        let (mut renderer, _) = build_renderer(&gpu, &scene, combo, Default::default(), &tier)?;
        for k in 1..=opts.slides {
            let to = start.offset(offset(k), 0).ok_or_else(|| {
                BenchError::Usage(format!("preset `{}` is too small to soak", scene.name))
            })?;
            let [x, y] = coords::tile_centre(to);
            let before = scene.window.tiles();
            let slide = scene
                .follow(x, y)
                .map_err(|e| BenchError::Usage(format!("soak slide {k}: {e}")))?;
            if let Some(slide) = &slide {
                let evicted: Vec<_> = before
                    .into_iter()
                    .filter(|t| !scene.window.is_resident(*t))
                    .collect();
                // Each loaded tile prepared as the streamer's workers would
                // (staging buffers included), so the soak holds what a
                // streamed flight holds.
                let prepared = match renderer.tile_preparer(&gpu) {
                    Some(p) => slide
                        .loaded
                        .iter()
                        .filter_map(|t| {
                            let tile = scene.window.tile(*t)?;
                            let placements = scene.window.tile_placements(*t)?;
                            Some((*t, p.prepare(*t, tile, placements)))
                        })
                        .collect(),
                    None => Vec::new(),
                };
                renderer
                    .residency_changed(
                        &gpu,
                        SceneData::from_scene(&scene),
                        &ResidencyChange::of_tiles(&evicted, &slide.loaded),
                        prepared,
                    )
                    .map_err(|source| BenchError::Pass {
                        tier: tier.clone(),
                        source,
                    })?;
            }
            let z = scene.world().height_at(x, y).unwrap_or(0.0) + 30.0;
            let pose = ViewPose {
                name: "soak".into(),
                eye: [x as f32, y as f32, z],
                yaw_deg: 0.0,
                pitch_deg: -12.0,
            };
            let mut frame = Frame::new(&gpu, &mut executor, &target, settings, &plan);
            frame.render(&mut renderer, &scene, &pose, 0.0, &tier)?;
            executor.flush(&gpu);
            gpu.wait_idle();
            // What the change let go of is freed before the heap is read.
            renderer.release_garbage();
            samples.push(SoakSample {
                tier: tier.clone(),
                slide: k,
                centre: [to.x, to.y],
                tiles_loaded: slide.as_ref().map_or(0, |s| s.loaded.len()),
                tiles_evicted: slide.as_ref().map_or(0, |s| s.dropped),
                rss_bytes: rss_bytes(),
                live_heap_bytes: sward_profiling::alloc::live_bytes(),
                gpu_memory_bytes: renderer.gpu_memory_bytes() + renderer.models_gpu_memory_bytes(),
                wgpu: wgpu_objects(&gpu),
            });
        }
        // Back to the start for the next combination.
        let [x, y] = coords::tile_centre(start);
        scene
            .follow(x, y)
            .map_err(|e| BenchError::Usage(format!("soak: back to the start: {e}")))?;
    }
    let summary = summarise(&samples, opts.warmup, opts.max_growth_mib);
    Ok(SoakReport {
        preset: scene.name.clone(),
        slides: opts.slides,
        samples,
        summary,
    })
}

/// The samples as a text table, then the summary, and the summary again as
/// one markdown table (docs/results.md's soak table, which
/// `scripts/results.sh` takes from this output).
pub fn soak_text(report: &SoakReport) -> String {
    let mib = |b: Option<u64>| {
        b.map_or_else(
            || "-".to_owned(),
            |b| format!("{:.1}", b as f64 / 1048576.0),
        )
    };
    let objects = |w: Option<&ObjectCounts>| {
        w.map_or_else(
            || "-".to_owned(),
            |c| {
                format!(
                    "{}/{}/{}/{}",
                    c.buffers, c.textures, c.texture_views, c.bind_groups
                )
            },
        )
    };
    let mut out = format!(
        "{:<28} {:>5} {:>9} {:>6} {:>7} {:>10} {:>10} {:>10} {:>16} {:>16}\n",
        "tier",
        "slide",
        "centre",
        "loaded",
        "evicted",
        "rss MiB",
        "heap MiB",
        "gpu MiB",
        "wgpu handles",
        "wgpu device"
    );
    for s in &report.samples {
        out.push_str(&format!(
            "{:<28} {:>5} {:>9} {:>6} {:>7} {:>10} {:>10} {:>10.1} {:>16} {:>16}\n",
            s.tier,
            s.slide,
            format!("{},{}", s.centre[0], s.centre[1]),
            s.tiles_loaded,
            s.tiles_evicted,
            mib(s.rss_bytes),
            mib(s.live_heap_bytes),
            s.gpu_memory_bytes as f64 / 1048576.0,
            objects(s.wgpu.as_ref().map(|w| &w.handles)),
            objects(s.wgpu.as_ref().map(|w| &w.device)),
        ));
    }
    out.push_str("(wgpu columns: buffers/textures/views/bind groups)\n");
    out.push_str(&summary_text(&report.summary));
    if !report.summary.tiers.is_empty() {
        out.push_str("\nsummary (markdown):\n\n");
        out.push_str(&summary_markdown(&report.summary));
    }
    out
}
