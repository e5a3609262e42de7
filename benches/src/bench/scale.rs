//! `sward scale`: what each grass tier costs as the world's placements grow.
//!
//! For each scale factor, `elwynn-dense` with its placements scaled
//! (`Preset::scaled`: `scale-0.25` .. `scale-16` are the presets of those
//! names) is built once; each grass tier (terrain off, so every figure is
//! grass) is built on it and rendered at the preset's first view (the
//! bench's screenshot view): its GPU memory, in total and per placement
//! (the shared detail models it draws included), the bytes it uploads per frame, its
//! VS and CS invocations per frame (pipeline statistics, where the device
//! has them) and the instances it draws, per-frame medians. Then the tier
//! is built again as a streaming build and one tile of the window is
//! evicted and made resident again: the bytes that tile change uploads
//! (in place, or the whole technique when it rebuilds). A tier that cannot
//! hold the scene or the device is listed as refused with its reason.
//! [`super::scale_text`] writes the table and the chart.

use std::path::PathBuf;
use std::sync::Arc;

use sward_engine::graph::{work_with_prefix, GraphExecutor, PipelineStats};
use sward_engine::{GpuContext, GpuOptions, OffscreenTarget};
use sward_passes::renderer::{SceneData, SceneRenderer};
use sward_passes::technique::{cap_combo, registry, ResidencyChange, Subsystem, TierCombo};
use sward_passes::RenderSettings;
use sward_scenes::presets::{Preset, Scene};
use sward_scenes::world::ValidTile;
use sward_scenes::PlacementStats;

use super::runner::{build_renderer, Frame};
use super::{BenchError, BenchPlan};
use crate::stats::Stats;

/// Schema of `scale.json`.
pub const SCALE_SCHEMA: &str = "sward-scale/1";

/// The default scale factors: the `scale-*` presets.
pub const DEFAULT_SCALES: [f32; 4] = [0.25, 1.0, 4.0, 16.0];

/// What the user asked for (`sward scale` flags).
#[derive(Debug, Clone)]
pub struct ScaleOptions {
    /// Placement scale factors (`--scales`; default [`DEFAULT_SCALES`]).
    pub scales: Vec<f32>,
    /// Grass tiers, comma-separated, with parameters (`--tiers`; default
    /// every registered grass tier); each runs with terrain off.
    pub tiers: Option<String>,
    /// Measured frames per tier and scale.
    pub frames: u32,
    /// Warm-up frames (the GPU tiers' counts are read back a few frames
    /// late).
    pub warmup: u32,
    /// Image size.
    pub size: [u32; 2],
    /// MSAA samples (1 or 4).
    pub msaa: u32,
    /// Report directory.
    pub out: PathBuf,
    /// Adapter selector (`--adapter`).
    pub adapter: Option<String>,
}

impl Default for ScaleOptions {
    fn default() -> Self {
        ScaleOptions {
            scales: DEFAULT_SCALES.to_vec(),
            tiers: None,
            frames: 5,
            warmup: 4,
            size: [960, 540],
            msaa: 4,
            out: PathBuf::from("scale"),
            adapter: None,
        }
    }
}

/// One tier on one scale.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScaleRow {
    /// Placement scale factor.
    pub scale: f64,
    /// Preset name (`scale-16`; `scaled` for a factor without one).
    pub preset: String,
    /// Placements in the resident window.
    pub placements: u64,
    /// The grass tier (with its parameters, terrain off).
    pub tier: String,
    /// Why the tier could not run, if it could not.
    pub refused: Option<String>,
    /// GPU memory the tier holds (bytes; the shared detail models it draws
    /// included, as in a bench report).
    pub gpu_memory_bytes: u64,
    /// `gpu_memory_bytes / placements`.
    pub bytes_per_placement: f64,
    /// Bytes uploaded per frame (median over the measured frames).
    pub bytes_uploaded_per_frame: u64,
    /// Bytes one tile change uploads (one tile evicted and made resident
    /// again in a streaming build).
    pub bytes_per_tile_change: Option<u64>,
    /// Whether the tile change updated the tier in place (`false`: it was
    /// rebuilt, and its whole memory counts as uploaded).
    pub tile_change_in_place: Option<bool>,
    /// Why the streaming build the tile change needs was refused, if it was.
    pub tile_change_refused: Option<String>,
    /// Vertex shader invocations of the grass passes per frame (median;
    /// `None` without pipeline statistics).
    pub vs_invocations: Option<u64>,
    /// Compute shader invocations of the grass passes per frame.
    pub cs_invocations: Option<u64>,
    /// Instances drawn per frame (median).
    pub instances_drawn: u64,
    /// What the tier leaves out or runs short of: `camera-grid`'s
    /// placements thinned by its candidate cap and blades overflowing its
    /// list; the largest storage binding of `gpu-cull` (its descriptors).
    pub notes: Vec<(String, f64)>,
}

/// Every row of a `sward scale` run.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScaleReport {
    /// [`SCALE_SCHEMA`].
    pub schema: String,
    /// The adapter, as `sward info` names it.
    pub adapter: String,
    /// The device's largest storage buffer binding (bytes).
    pub max_storage_binding: u64,
    /// Image size.
    pub size: [u32; 2],
    /// MSAA samples.
    pub msaa: u32,
    /// Measured frames per row.
    pub frames: u32,
    /// Warm-up frames per row.
    pub warmup: u32,
    /// The view every row is measured at.
    pub view: String,
    /// Shared detail models' GPU memory (bytes; included in every tier's).
    pub models_gpu_memory_bytes: u64,
    /// One row per scale and tier.
    pub rows: Vec<ScaleRow>,
}

/// Facts a row keeps as notes.
const NOTE_FACTS: [&str; 5] = [
    "grid_placements_thinned",
    "grid_placements_expected",
    "grid_overflow_blades",
    "grid_candidates_per_slot",
    "gpu_cull.descriptor_bytes",
];

/// `--scales`: comma-separated factors (`0.25,1,4,16`); checked by
/// [`run_scale`].
pub fn parse_scales(list: &str) -> Result<Vec<f32>, BenchError> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<f32>()
                .map_err(|e| BenchError::Usage(format!("--scales `{s}`: {e} (e.g. 0.25,1,4,16)")))
        })
        .collect()
}

/// `--size WxH`.
pub fn parse_size_arg(size: &str) -> Result<[u32; 2], BenchError> {
    let (w, h) = sward_engine::targets::parse_size(size)
        .map_err(|e| BenchError::Usage(format!("--size: {e}")))?;
    Ok([w, h])
}

/// The grass tiers to measure: `--tiers` (each with terrain off), or every
/// registered grass tier.
fn grass_combos(tiers: Option<&str>) -> Result<Vec<TierCombo>, BenchError> {
    let list = match tiers {
        Some(t) => t.to_owned(),
        None => registry()
            .iter()
            .filter(|e| e.subsystem == Subsystem::Grass)
            .map(|e| e.name)
            .collect::<Vec<_>>()
            .join(","),
    };
    let mut out = Vec::new();
    for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if item.contains('+') {
            return Err(BenchError::Usage(format!(
                "--tiers `{item}`: name grass tiers only (each runs with terrain off)"
            )));
        }
        let combo: TierCombo = format!("{item}+off")
            .parse()
            .map_err(|e| BenchError::Usage(format!("--tiers `{item}`: {e}")))?;
        if combo.grass.name() == "off" {
            return Err(BenchError::Usage(format!(
                "--tiers `{item}`: a grass tier, not `off`"
            )));
        }
        if !out.contains(&combo) {
            out.push(combo);
        }
    }
    if out.is_empty() {
        return Err(BenchError::Usage(
            "--tiers names no grass tier (e.g. `gpu-cull,camera-grid`)".into(),
        ));
    }
    Ok(out)
}

/// Checks the options before the GPU is touched.
fn check(opts: &ScaleOptions) -> Result<Vec<TierCombo>, BenchError> {
    if opts.scales.is_empty() {
        return Err(BenchError::Usage("--scales names no factor".into()));
    }
    if let Some(s) = opts
        .scales
        .iter()
        .find(|s| !(s.is_finite() && **s > 0.0 && **s <= 256.0))
    {
        return Err(BenchError::Usage(format!(
            "--scales {s}: a factor must be a number above 0 and at most 256"
        )));
    }
    if opts.frames == 0 {
        return Err(BenchError::Usage("--frames must be at least 1".into()));
    }
    if opts.msaa != 1 && opts.msaa != 4 {
        return Err(BenchError::Usage(format!(
            "--msaa {} is not supported: use 1 or 4",
            opts.msaa
        )));
    }
    grass_combos(opts.tiers.as_deref())
}

/// Runs every tier on every scale (see the module docs).
pub fn run_scale(opts: &ScaleOptions) -> Result<ScaleReport, BenchError> {
    let combos = check(opts)?;
    let gpu = GpuContext::new(&GpuOptions {
        adapter: opts.adapter.clone(),
        ..GpuOptions::default()
    })?;
    let target = OffscreenTarget::new(&gpu.device, opts.size[0], opts.size[1], opts.msaa)
        .map_err(|e| BenchError::Usage(format!("--size/--msaa: {e}")))?;
    let mut executor = GraphExecutor::new(&gpu).map_err(|source| BenchError::Graph {
        tier: "setup".into(),
        source,
    })?;
    let mut rows = Vec::new();
    let mut view_name = String::new();
    let mut models_bytes = 0;
    for &scale in &opts.scales {
        let preset = Preset::scaled(scale);
        let mut scene = preset.scene(&Default::default())?;
        let view = scene.views.first().cloned().ok_or_else(|| {
            BenchError::Usage(format!("preset `{}` has no named view", scene.name))
        })?;
        view_name.clone_from(&view.name);
        let plan = BenchPlan {
            preset,
            requested: None,
            frames: opts.frames,
            warmup: opts.warmup,
            size: opts.size,
            msaa: opts.msaa,
            out: opts.out.clone(),
            quick: false,
        };
        let settings = RenderSettings::default().with_grass(scene.grass);
        for combo in &combos {
            let tier = combo.grass.to_string();
            eprintln!("scale {scale}: {tier}");
            let mut row = ScaleRow {
                scale: f64::from(scale),
                preset: scene.name.clone(),
                placements: scene.stats.placements,
                tier: tier.clone(),
                refused: None,
                gpu_memory_bytes: 0,
                bytes_per_placement: 0.0,
                bytes_uploaded_per_frame: 0,
                bytes_per_tile_change: None,
                tile_change_in_place: None,
                tile_change_refused: None,
                vs_invocations: None,
                cs_invocations: None,
                instances_drawn: 0,
                notes: Vec::new(),
            };
            let (_, capped) = cap_combo(&gpu.caps, combo);
            if !capped.is_empty() {
                row.refused = Some(capped.join("; "));
                rows.push(row);
                continue;
            }
            let mut renderer = match build_renderer(&gpu, &scene, combo, Default::default(), &tier)
            {
                Ok((r, _)) => r,
                Err(BenchError::Refused { source, .. }) => {
                    row.refused = Some(source.to_string());
                    rows.push(row);
                    continue;
                }
                Err(e) => return Err(e),
            };
            renderer.begin_run();
            let mut frame = Frame::new(&gpu, &mut executor, &target, settings, &plan);
            measure_frames(&mut frame, &mut renderer, &scene, &view, &mut row, &tier)?;
            row.gpu_memory_bytes = renderer.gpu_memory_bytes();
            models_bytes = renderer.models_gpu_memory_bytes();
            row.bytes_per_placement = row.gpu_memory_bytes as f64 / row.placements.max(1) as f64;
            let facts = renderer.facts(&SceneData::from_scene(&scene));
            row.notes = NOTE_FACTS
                .iter()
                .filter_map(|k| Some(((*k).to_owned(), *facts.get(*k)?)))
                .collect();
            drop(renderer);
            gpu.wait_idle();
            match tile_change(&gpu, &mut scene, combo, &tier) {
                Ok((bytes, in_place)) => {
                    row.bytes_per_tile_change = Some(bytes);
                    row.tile_change_in_place = Some(in_place);
                }
                // The streaming build (pools for one tile more) may not fit
                // where the whole-window build does.
                Err(BenchError::Refused { source, .. }) => {
                    row.tile_change_refused = Some(source.to_string());
                }
                Err(e) => return Err(e),
            }
            rows.push(row);
        }
    }
    Ok(ScaleReport {
        schema: SCALE_SCHEMA.to_owned(),
        adapter: format!(
            "{} ({}, {})",
            gpu.summary.name, gpu.summary.backend, gpu.summary.driver
        ),
        max_storage_binding: u64::from(gpu.device.limits().max_storage_buffer_binding_size),
        size: opts.size,
        msaa: opts.msaa,
        frames: opts.frames,
        warmup: opts.warmup,
        view: view_name,
        models_gpu_memory_bytes: models_bytes,
        rows,
    })
}

/// Warm-up and measured frames at `view`; fills the row's per-frame
/// medians (uploads, instances drawn, VS and CS invocations of `grass.*`).
fn measure_frames(
    frame: &mut Frame<'_>,
    renderer: &mut SceneRenderer,
    scene: &Scene,
    view: &sward_scenes::presets::ViewPose,
    row: &mut ScaleRow,
    tier: &str,
) -> Result<(), BenchError> {
    let (warmup, frames) = (frame.plan().warmup, frame.plan().frames);
    for _ in 0..warmup {
        frame.render(renderer, scene, view, 0.0, tier)?;
        frame.gpu().wait_idle();
    }
    let (mut uploads, mut drawn) = (Vec::new(), Vec::new());
    let mut work: Vec<PipelineStats> = Vec::new();
    for _ in 0..frames {
        let report = frame.render(renderer, scene, view, 0.0, tier)?;
        frame.gpu().wait_idle();
        let grass = report
            .passes
            .iter()
            .filter(|p| p.name.starts_with("grass."));
        let (u, d) = grass.fold((0, 0), |(u, d), p| {
            (
                u + p.counters.bytes_uploaded,
                d + p.counters.instances_drawn,
            )
        });
        uploads.push(u as f64);
        drawn.push(d as f64);
        for times in frame.poll_gpu_times() {
            if let Some(w) = &times.work {
                work.push(work_with_prefix(w, "grass."));
            }
        }
    }
    for times in frame.flush() {
        if let Some(w) = &times.work {
            work.push(work_with_prefix(w, "grass."));
        }
    }
    let median = |v: &[f64]| Stats::from_samples(v).map_or(0, |s| s.median.round() as u64);
    row.bytes_uploaded_per_frame = median(&uploads);
    row.instances_drawn = median(&drawn);
    if !work.is_empty() {
        let vs: Vec<f64> = work.iter().map(|w| w.vs_invocations as f64).collect();
        let cs: Vec<f64> = work.iter().map(|w| w.cs_invocations as f64).collect();
        row.vs_invocations = Some(median(&vs));
        row.cs_invocations = Some(median(&cs));
    }
    Ok(())
}

/// One tile change in a streaming build of `combo`: the window's first
/// tile evicted, then made resident again (prepared as the streamer's
/// workers prepare it). Answers the bytes both changes uploaded and whether
/// the technique updated in place. `scene` is left as it was.
fn tile_change(
    gpu: &GpuContext,
    scene: &mut Scene,
    combo: &TierCombo,
    tier: &str,
) -> Result<(u64, bool), BenchError> {
    let err = |e: String| BenchError::Usage(format!("scale: tile change of {tier}: {e}"));
    let resident = scene.max_resident_tiles;
    // One tile more than the window: the techniques build as they do for a
    // streaming window (in place where they can).
    scene.max_resident_tiles = scene.window.tiles().len() + 1;
    let built = build_renderer(gpu, scene, combo, Default::default(), tier);
    let mut renderer = match built {
        Ok((r, _)) => r,
        Err(e) => {
            scene.max_resident_tiles = resident;
            return Err(e);
        }
    };
    let t = *scene
        .window
        .tiles()
        .first()
        .ok_or_else(|| err("no resident tile".into()))?;
    let tile = Arc::clone(scene.window.tile(t).ok_or_else(|| err("no tile".into()))?);
    let placements = Arc::clone(
        scene
            .window
            .tile_placements(t)
            .ok_or_else(|| err("no placements".into()))?,
    );
    let pass = |source| BenchError::Pass {
        tier: tier.to_owned(),
        source,
    };
    scene.window.evict(t);
    let out = renderer
        .residency_changed(
            gpu,
            SceneData::from_scene(scene),
            &ResidencyChange::of_tiles(&[t], &[]),
            Vec::new(),
        )
        .map_err(pass)?;
    let valid = ValidTile::new(Arc::clone(&tile)).map_err(|e| err(e.to_string()))?;
    let stats = PlacementStats::new(scene.models.len());
    scene
        .window
        .apply(vec![(valid, Arc::clone(&placements), stats)], &[])
        .map_err(|e| err(e.to_string()))?;
    let prepared = match renderer.tile_preparer(gpu) {
        Some(p) => vec![(t, p.prepare(t, &tile, &placements))],
        None => Vec::new(),
    };
    let back = renderer
        .residency_changed(
            gpu,
            SceneData::from_scene(scene),
            &ResidencyChange::of_tiles(&[], &[t]),
            prepared,
        )
        .map_err(pass)?;
    gpu.flush_copies();
    gpu.wait_idle();
    scene.max_resident_tiles = resident;
    let in_place = out.rebuilt.is_empty() && back.rebuilt.is_empty();
    Ok((out.bytes_uploaded + back.bytes_uploaded, in_place))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_and_sizes_parse_or_name_the_flag() {
        assert_eq!(parse_scales("0.25, 1,16").unwrap(), vec![0.25, 1.0, 16.0]);
        assert!(parse_scales("1,x")
            .unwrap_err()
            .to_string()
            .contains("--scales `x`"));
        assert_eq!(parse_size_arg("960x540").unwrap(), [960, 540]);
        assert!(parse_size_arg("big")
            .unwrap_err()
            .to_string()
            .contains("--size"));
    }

    #[test]
    fn bad_options_are_named_before_the_gpu() {
        let base = ScaleOptions::default;
        let cases = [
            (
                ScaleOptions {
                    scales: vec![0.0],
                    ..base()
                },
                "--scales 0",
            ),
            (
                ScaleOptions {
                    scales: vec![],
                    ..base()
                },
                "no factor",
            ),
            (
                ScaleOptions {
                    tiers: Some("gpu-cull+clipmap".into()),
                    ..base()
                },
                "grass tiers only",
            ),
            (
                ScaleOptions {
                    tiers: Some("nope".into()),
                    ..base()
                },
                "nope",
            ),
            (
                ScaleOptions {
                    tiers: Some("off".into()),
                    ..base()
                },
                "not `off`",
            ),
            (
                ScaleOptions {
                    frames: 0,
                    ..base()
                },
                "--frames",
            ),
        ];
        for (options, says) in cases {
            let err = check(&options).unwrap_err().to_string();
            assert!(
                err.contains(says),
                "{options:?}: `{err}` should say `{says}`"
            );
        }
        // Every registered grass tier by default, each with terrain off.
        let all = check(&base()).unwrap();
        let names: Vec<String> = all.iter().map(ToString::to_string).collect();
        assert_eq!(
            names,
            [
                "legacy-cpu+off",
                "static-batch+off",
                "gpu-cull+off",
                "camera-grid+off"
            ]
        );
    }
}
