//! `sward soak`: slides the world window back and forth many times and
//! records, after every slide, the process's resident memory and the GPU
//! memory sward itself accounts for (every technique's buffers and textures
//! and the detail models), so that a leak shows as a trend.

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
}

/// The process's resident set size from `/proc/self/status` (Linux).
pub fn rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Tile offsets from the start tile visited by slide `k` (1-based): along
/// +column to 3 tiles out and back, over and over, so tiles are evicted
/// and loaded again.
fn offset(k: u32) -> i32 {
    let p = (k % 6) as i32;
    if p <= 3 {
        p
    } else {
        6 - p
    }
}

/// Runs the soak: for every tier combination, `slides` window slides, each
/// followed by the techniques' residency updates (in place where a
/// technique can, as streaming does) and one rendered frame.
pub fn run_soak(opts: &SoakOptions) -> Result<SoakReport, BenchError> {
    if opts.slides == 0 {
        return Err(BenchError::Usage("--slides must be at least 1".into()));
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
    let mut scene = super::build_scene(&plan.preset, None)?;
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
            });
        }
        // Back to the start for the next combination.
        let [x, y] = coords::tile_centre(start);
        scene
            .follow(x, y)
            .map_err(|e| BenchError::Usage(format!("soak: back to the start: {e}")))?;
    }
    Ok(SoakReport {
        preset: scene.name.clone(),
        slides: opts.slides,
        samples,
    })
}

/// The samples as a text table.
pub fn soak_text(report: &SoakReport) -> String {
    let mut out = format!(
        "{:<28} {:>5} {:>9} {:>6} {:>7} {:>10} {:>10} {:>10}\n",
        "tier", "slide", "centre", "loaded", "evicted", "rss MiB", "heap MiB", "gpu MiB"
    );
    for s in &report.samples {
        let rss = s.rss_bytes.map_or_else(
            || "-".to_owned(),
            |b| format!("{:.1}", b as f64 / 1048576.0),
        );
        let heap = s.live_heap_bytes.map_or_else(
            || "-".to_owned(),
            |b| format!("{:.1}", b as f64 / 1048576.0),
        );
        out.push_str(&format!(
            "{:<28} {:>5} {:>9} {:>6} {:>7} {:>10} {:>10} {:>10.1}\n",
            s.tier,
            s.slide,
            format!("{},{}", s.centre[0], s.centre[1]),
            s.tiles_loaded,
            s.tiles_evicted,
            rss,
            heap,
            s.gpu_memory_bytes as f64 / 1048576.0
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_soak_reports_memory_after_every_slide() {
        let Some(_gpu) = sward_engine::testing::gpu() else {
            return;
        };
        let report = run_soak(&SoakOptions {
            preset: "continent".into(),
            slides: 3,
            tiers: Some("static-batch".into()),
            adapter: None,
        })
        .expect("soak runs");
        assert_eq!(report.samples.len(), 3, "one tier, three slides");
        for (k, s) in report.samples.iter().enumerate() {
            assert_eq!(s.slide, k as u32 + 1);
            assert_eq!((s.tiles_loaded, s.tiles_evicted), (3, 3), "{s:?}");
            assert!(s.gpu_memory_bytes > 0);
            if cfg!(target_os = "linux") {
                assert!(s.rss_bytes.is_some_and(|b| b > 0));
            }
        }
        // The same window size after every slide holds the same GPU memory
        // within the placement count's variation: no slide adds a window.
        let first = report.samples[0].gpu_memory_bytes as f64;
        for s in &report.samples {
            let r = s.gpu_memory_bytes as f64 / first;
            assert!((0.5..2.0).contains(&r), "{r}");
        }
        assert!(soak_text(&report).contains("rss MiB"));
    }

    #[test]
    fn soak_refuses_worlds_resident_whole_and_zero_slides() {
        let o = |preset: &str, slides| SoakOptions {
            preset: preset.into(),
            slides,
            tiers: None,
            adapter: None,
        };
        let e = run_soak(&o("continent", 0)).expect_err("zero slides");
        assert!(e.to_string().contains("--slides"), "{e}");
        let e = run_soak(&o("seams-holes", 3)).expect_err("resident whole");
        assert!(e.to_string().contains("larger than"), "{e}");
    }

    #[test]
    fn slides_go_out_and_back() {
        let v: Vec<i32> = (1..=7).map(offset).collect();
        assert_eq!(v, [1, 2, 3, 2, 1, 0, 1]);
    }
}
