//! `sward shot` (one view of one combination to PNG) and `sward capture` (a
//! puffin capture of N frames along the preset's path, CPU scopes plus GPU
//! timestamp scopes on a thread named "GPU", aligned to puffin's clock).

use std::path::{Path, PathBuf};

use sward_engine::graph::GraphExecutor;
use sward_engine::{GpuContext, GpuOptions, OffscreenTarget};
use sward_passes::renderer::{SceneData, SceneRenderer};
use sward_passes::technique::{cap_combo, TierCombo};
use sward_passes::RenderSettings;
use sward_scenes::formats::DataOptions;
use sward_scenes::presets::{open_preset, Scene};

use super::runner::{path_poses, Frame};
use super::{BenchError, BenchPlan};
use sward_profiling::puffin_bridge::{report_gpu_frame, Capture, ClockAlignment};

/// Arguments shared by `shot` and `capture`.
#[derive(Debug, Clone)]
pub struct OneOffOptions {
    /// Preset name.
    pub preset: String,
    /// One combination in the `--tiers` syntax.
    pub tier: String,
    /// Target size.
    pub size: [u32; 2],
    /// 1 or 4.
    pub msaa: u32,
    /// Adapter selector.
    pub adapter: Option<String>,
    /// Where the world comes from and how it is read, the density setting
    /// and how DXT textures reach the GPU (see [`DataOptions`]).
    pub data: DataOptions,
}

struct Setup {
    gpu: GpuContext,
    scene: Scene,
    combo: TierCombo,
    plan: BenchPlan,
    texture_upload: sward_scenes::formats::TextureUpload,
}

fn setup(opts: &OneOffOptions, frames: u32, out: &Path) -> Result<Setup, BenchError> {
    let preset = open_preset(&opts.preset, &opts.data)?;
    let combo: TierCombo = opts
        .tier
        .parse()
        .map_err(|e| BenchError::Usage(format!("--tier `{}`: {e}", opts.tier)))?;
    if opts.msaa != 1 && opts.msaa != 4 {
        return Err(BenchError::Usage(format!(
            "--msaa {} is not supported: use 1 or 4",
            opts.msaa
        )));
    }
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        crate::writer::ensure_writable_dir(dir)?;
    }
    let gpu = GpuContext::new(&GpuOptions {
        adapter: opts.adapter.clone(),
        ..GpuOptions::default()
    })?;
    let (capped, warnings) = cap_combo(&gpu.caps, &combo);
    for w in warnings {
        eprintln!("warning: {w}");
    }
    let scene = preset.scene(&opts.data)?;
    let plan = BenchPlan {
        preset,
        requested: Some(vec![capped.clone()]),
        frames,
        warmup: 0,
        size: opts.size,
        msaa: opts.msaa,
        out: out.to_path_buf(),
        quick: false,
    };
    Ok(Setup {
        gpu,
        scene,
        combo: capped,
        plan,
        texture_upload: opts.data.texture_upload,
    })
}

impl Setup {
    /// Render settings with the scene's grass draw range, and the view
    /// distance and fog of a terrain tier that sets its own
    /// (`clipmap:distance=N`), as the bench renders it.
    fn settings(&self, renderer: &SceneRenderer) -> RenderSettings {
        renderer.settings_for(RenderSettings::default().with_grass(self.scene.grass))
    }

    /// The target, executor and renderer (with its tiers built) for one run.
    fn prepare(&self) -> Result<(OffscreenTarget, GraphExecutor, SceneRenderer), BenchError> {
        let [w, h] = self.plan.size;
        let target = OffscreenTarget::new(&self.gpu.device, w, h, self.plan.msaa)
            .map_err(|e| BenchError::Usage(format!("--size/--msaa: {e}")))?;
        let tier = self.combo.to_string();
        let executor = GraphExecutor::new(&self.gpu).map_err(|source| BenchError::Graph {
            tier: tier.clone(),
            source,
        })?;
        let mut renderer = SceneRenderer::new().with_texture_upload(self.texture_upload);
        renderer
            .set_tiers(&self.gpu, SceneData::from_scene(&self.scene), &self.combo)
            .map_err(|source| BenchError::Pass { tier, source })?;
        Ok((target, executor, renderer))
    }
}

/// Renders the preset's view `view` (default: its first) with one combination
/// and writes the PNG to `out`.
pub fn shot(opts: &OneOffOptions, view: Option<&str>, out: &Path) -> Result<PathBuf, BenchError> {
    let s = setup(opts, 1, out)?;
    let pose = s.scene.pick_view(view)?.clone();
    let (target, mut executor, mut renderer) = s.prepare()?;
    let settings = s.settings(&renderer);
    let mut frame = Frame::new(&s.gpu, &mut executor, &target, settings, &s.plan);
    let image = frame.screenshot(&mut renderer, &s.scene, &pose)?;
    image.save(out).map_err(|e| BenchError::Image {
        what: format!("writing {}", out.display()),
        message: e.to_string(),
    })?;
    Ok(out.to_path_buf())
}

/// Records `frames` frames along the preset's path with CPU and GPU scopes and
/// writes them to `out` as a `.puffin` capture. Returns the number of frames.
pub fn capture(opts: &OneOffOptions, frames: u32, out: &Path) -> Result<usize, BenchError> {
    if frames == 0 {
        return Err(BenchError::Usage("--frames must be at least 1".into()));
    }
    let s = setup(opts, frames, out)?;
    let (target, mut executor, mut renderer) = s.prepare()?;
    let poses = path_poses(&s.scene, &s.scene.path, frames);
    let settings = s.settings(&renderer);
    puffin::set_scopes_on(true);
    // Shader compilation and first uploads land in a warm-up frame that is not captured.
    {
        let mut frame = Frame::new(&s.gpu, &mut executor, &target, settings, &s.plan);
        frame.render(
            &mut renderer,
            &s.scene,
            &poses[0],
            0.0,
            &s.combo.to_string(),
        )?;
    }
    executor.flush(&s.gpu);
    let capture = Capture::start();
    let mut align: Option<ClockAlignment> = ClockAlignment::monotonic_gpu().ok();
    for (i, pose) in poses.iter().enumerate() {
        {
            let mut frame = Frame::new(&s.gpu, &mut executor, &target, settings, &s.plan);
            frame.render(
                &mut renderer,
                &s.scene,
                pose,
                i as f32 / 60.0,
                &s.combo.to_string(),
            )?;
        }
        s.gpu.wait_idle();
        let done_ns = puffin::now_ns();
        for times in executor.poll_gpu_times(&s.gpu) {
            report_gpu_frame(&times, &mut align, done_ns);
        }
    }
    puffin::GlobalProfiler::lock().new_frame();
    for times in executor.flush(&s.gpu) {
        report_gpu_frame(&times, &mut align, puffin::now_ns());
    }
    puffin::GlobalProfiler::lock().new_frame();
    capture.write(out).map_err(|e| BenchError::Image {
        what: "writing the capture".into(),
        message: e.to_string(),
    })?;
    Ok(capture.frames())
}
