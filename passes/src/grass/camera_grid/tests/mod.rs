//! GPU tests of `camera-grid`. Shared helpers here: scene caches, the
//! compute probe that reads back every candidate's blade
//! (`probe_camera_grid.wgsl`, run with the tier's own resources), and a
//! one-frame renderer.
//!
//! - [`stability`]: GPU blades equal the CPU mirror; identical transforms
//!   and models for every world slot under camera moves and a window slide.
//! - [`identity`]: per-model shares follow the per-cell policy; each model
//!   draws with its own texture; direct and compact modes agree.
//! - [`suppression`]: no blade (and no grass pixel) in holes, noEffectDoodad
//!   cells or outside the window.
//! - [`compaction`]: the compacted list's regions against the CPU
//!   reference; a list too small overflows and reports it.
//! - [`palette`]: every drawn blade is of its cell's effect while the
//!   palette of resident effects changes, and on the real 3.3.5 tile.

mod compaction;
mod identity;
mod palette;
mod stability;
mod suppression;

use glam::Vec3;
use sward_engine::bind::{self, Slot};
use sward_engine::graph::FrameReport;
use sward_engine::{Camera, GpuContext};
use sward_scenes::Scene;

use super::blade::{Blade, Status};
use super::gpu::GridUniform;
use super::{CameraGrid, GridParams, GridScene};
use crate::frame::{Frame, FrameView, RenderSettings};
use crate::grass::GrassModels;

pub(super) fn elwynn() -> &'static Scene {
    crate::testkit::preset("elwynn-dense")
}

pub(super) fn grid_scene(scene: &Scene) -> GridScene<'_> {
    GridScene {
        world: scene.world(),
        models: &scene.models,
        effects: &scene.resolved,
        policy: scene.policy(),
        placements: scene.placements(),
    }
}

/// A camera at the scene's view `name`.
pub(super) fn camera_at(scene: &Scene, name: &str) -> Camera {
    let v = scene.view(name).expect("view exists");
    Camera {
        eye: Vec3::from_array(v.eye),
        yaw_deg: v.yaw_deg,
        pitch_deg: v.pitch_deg,
        ..Camera::default()
    }
}

/// A probed candidate: its world slot and candidate index and its blade.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Probed {
    pub slot: (i32, i32, u32),
    pub blade: Blade,
}

/// Evaluates every candidate of `grid` for uniform `u` on the GPU.
pub(super) fn probe(gpu: &GpuContext, grid: &CameraGrid, u: &GridUniform) -> Vec<Probed> {
    let d = &gpu.device;
    let (layout, group) = grid
        .compute_group()
        .expect("compact mode has a compute group");
    let module =
        sward_engine::shader::create_shader(d, sward_wgsl::modules::PROBE_CAMERA_GRID).unwrap();
    let cs = wgpu::ShaderStages::COMPUTE;
    let empty = bind::layout(d, "grass.grid.probe.empty", &[]);
    let out_layout = bind::layout(
        d,
        "grass.grid.probe",
        &bind::entries(cs, &[Slot::STORAGE_RW]),
    );
    let pipeline = bind::compute_pipeline(
        d,
        "grass.grid.probe",
        &[&empty, &empty, layout, &out_layout],
        &module,
        "main",
    );
    let total = u.side * u.side * u.candidates;
    let size = u64::from(total) * 48;
    let out = sward_engine::testing::probe_output(gpu, "grass.grid.probe", size);
    let empty_group = bind::group(d, "grass.grid.probe.empty", &empty, &[]);
    let out_group = bind::group(
        d,
        "grass.grid.probe",
        &out_layout,
        &[out.as_entire_binding()],
    );
    gpu.queue
        .write_buffer(&grid.resources().uniform, 0, bytemuck::bytes_of(u));
    let groups = [&empty_group, &empty_group, group, &out_group];
    let bytes = sward_engine::testing::run_probe(gpu, &pipeline, &groups, total.div_ceil(64), &out);
    let words: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes);
    words
        .chunks_exact(12)
        .map(|w| {
            let f = |i: usize| f32::from_bits(w[i]);
            Probed {
                slot: (w[10] as i32, w[11] as i32, 0),
                blade: Blade {
                    status: Status::from_u32(w[0]),
                    model: w[1],
                    control: w[2],
                    cell_index: w[3],
                    root: [f(4), f(5), f(6)],
                    yaw: f(7),
                    scale: f(8),
                    phase: f(9),
                },
            }
        })
        .enumerate()
        .map(|(n, mut p)| {
            p.slot.2 = n as u32 % u.candidates;
            p
        })
        .collect()
}

/// A one-frame render of `grid` (terrain off) at the view's size and samples.
pub(super) fn render(
    gpu: &GpuContext,
    models: &GrassModels,
    grid: &mut CameraGrid,
    view: &FrameView,
) -> (image::RgbaImage, FrameReport) {
    render_frames(gpu, models, grid, view, 1)
}

/// Renders `frames` frames (at least one) with one executor, waiting for the
/// device after each, and reads the last back.
pub(super) fn render_frames(
    gpu: &GpuContext,
    models: &GrassModels,
    grid: &mut CameraGrid,
    view: &FrameView,
    frames: u32,
) -> (image::RgbaImage, FrameReport) {
    let mut off = crate::testkit::Offscreen::for_view(gpu, view);
    let mut report = None;
    for _ in 0..frames.max(1) {
        report = Some(off.frame(gpu, |g, targets| {
            grid.record(Frame::new(gpu, view, targets), g, models)
        }));
    }
    (off.image(gpu), report.expect("at least one frame"))
}

/// Black fog and clear, wind off (every lit pixel is grass).
pub(super) fn settings() -> RenderSettings {
    RenderSettings {
        wind: false,
        fog_color: [0.0, 0.0, 0.0],
        ..RenderSettings::default()
    }
}

/// The `ground-yaw0` view of the grass tests' `scene` at `size` with
/// `samples`, half a second in, under [`settings`].
pub(super) fn ground_view(scene: &Scene, size: [u32; 2], samples: u32) -> FrameView {
    let camera = crate::grass::tests::ground_camera(scene);
    FrameView::new(camera, size, samples, 0.5, settings())
}

/// The compact-mode grid of `scene` with default parameters.
pub(super) fn build_grid(gpu: &GpuContext, models: &GrassModels, scene: &Scene) -> CameraGrid {
    CameraGrid::new(gpu, models, grid_scene(scene), GridParams::default()).unwrap()
}

/// A smaller grid (`side` slots per axis) in `mode`, for render tests that
/// keep lavapipe's vertex work small.
pub(super) fn small_grid(
    gpu: &GpuContext,
    models: &GrassModels,
    scene: &Scene,
    side: u32,
    mode: super::GridMode,
) -> CameraGrid {
    let params = GridParams {
        side,
        mode,
        ..GridParams::default()
    };
    CameraGrid::new(gpu, models, grid_scene(scene), params).unwrap()
}
