//! Pipelines and graph passes of the test scene, and `render_test_pattern`,
//! which shoots it offscreen (what `sward shot --preset test-pattern` runs).

use glam::Vec3;

use super::{args_desc, SceneError, SceneOutputs, SceneTarget, SceneUniforms, TestScene, REQUIRED};
use crate::bind::{self, Slot};
use crate::camera::Camera;
use crate::caps::Capability;
use crate::context::GpuContext;
use crate::graph::{BufferDesc, FrameReport, GpuFrameTimes, GraphExecutor, RenderGraph};
use crate::shader::create_shader;
use crate::targets::{OffscreenTarget, COLOR_FORMAT, DEPTH_CLEAR, DEPTH_COMPARE, DEPTH_FORMAT};

/// Sky colour the colour target is cleared to (linear).
pub const CLEAR_COLOR: wgpu::Color = wgpu::Color {
    r: 0.45,
    g: 0.62,
    b: 0.85,
    a: 1.0,
};

pub(super) fn cull_pipeline(
    device: &wgpu::Device,
) -> Result<(wgpu::BindGroupLayout, wgpu::ComputePipeline), SceneError> {
    let shader = create_shader(device, sward_wgsl::modules::TEST_SCENE_CULL)?;
    let cs = wgpu::ShaderStages::COMPUTE;
    // Uniforms, instances, draw args, visible list.
    let layout = bind::layout(
        device,
        "test.cull",
        &bind::entries(
            cs,
            &[
                Slot::Uniform,
                Slot::STORAGE_READ,
                Slot::STORAGE_RW,
                Slot::STORAGE_RW,
            ],
        ),
    );
    let pipeline = bind::compute_pipeline(device, "test.cull", &[&layout], &shader, "cull");
    Ok((layout, pipeline))
}

pub(super) fn draw_layout(
    device: &wgpu::Device,
) -> Result<
    (
        wgpu::BindGroupLayout,
        wgpu::PipelineLayout,
        wgpu::ShaderModule,
    ),
    SceneError,
> {
    let shader = create_shader(device, sward_wgsl::modules::TEST_SCENE_DRAW)?;
    let vs = wgpu::ShaderStages::VERTEX;
    // Uniforms, instances, visible list.
    let layout = bind::layout(
        device,
        "test.draw",
        &[
            bind::entry(0, vs | wgpu::ShaderStages::FRAGMENT, Slot::Uniform),
            bind::entry(1, vs, Slot::STORAGE_READ),
            bind::entry(2, vs, Slot::STORAGE_READ),
        ],
    );
    let pipeline_layout = bind::pipeline_layout(device, "test.draw", &[&layout]);
    Ok((layout, pipeline_layout, shader))
}

pub(super) fn draw_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    shader: &wgpu::ShaderModule,
    samples: u32,
) -> wgpu::RenderPipeline {
    let vertices = wgpu::VertexBufferLayout {
        array_stride: std::mem::size_of::<super::MeshVertex>() as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3],
    };
    bind::render_pipeline(
        device,
        "test.draw",
        layout,
        shader,
        ("vs_main", &[vertices]),
        Some("fs_main"),
        bind::Raster {
            primitive: wgpu::PrimitiveState {
                cull_mode: Some(wgpu::Face::Back),
                ..Default::default()
            },
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: true,
                depth_compare: DEPTH_COMPARE,
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: wgpu::MultisampleState {
                count: samples,
                ..Default::default()
            },
            targets: &[Some(COLOR_FORMAT.into())],
            constants: &[],
        },
    )
}

/// Adds upload, cull and draw passes reading the scene's persistent buffers.
pub(super) fn record_passes<'a>(
    scene: &'a TestScene,
    g: &mut RenderGraph<'a>,
    target: SceneTarget,
    camera: &Camera,
) -> SceneOutputs {
    let frustum = camera.frustum(target.aspect);
    let uniforms = SceneUniforms {
        view_proj: camera.view_proj(target.aspect).to_cols_array_2d(),
        frustum,
        light_dir: Vec3::new(0.45, 0.3, -0.84)
            .normalize()
            .extend(0.0)
            .to_array(),
        instance_count: scene.instances.len() as u32,
        mesh_count: scene.mesh_count(),
        _pad0: 0,
        _pad1: 0,
    };
    let uniform_buf = g.import_buffer("test.uniforms", &scene.uniform_buffer);
    let instances = g.import_buffer("test.instances", &scene.instance_buffer);
    let args = g.create_buffer("test.args", args_desc(scene.mesh_count()));
    let visible_size = (scene.instances.len().max(1) * 4) as u64;
    let visible = g.create_buffer(
        "test.visible",
        BufferDesc::new(visible_size, wgpu::BufferUsages::STORAGE),
    );

    g.add_transfer_pass(TestScene::PASS_UPLOAD)
        .write(uniform_buf)
        .write(args)
        .record(move |ctx| {
            let bytes = bytemuck::bytes_of(&uniforms);
            ctx.queue
                .write_buffer(ctx.res.buffer(uniform_buf), 0, bytes);
            ctx.counters.bytes_uploaded += bytes.len() as u64;
            let size = args_desc(scene.mesh_count()).size;
            ctx.encoder.copy_buffer_to_buffer(
                &scene.args_template,
                0,
                ctx.res.buffer(args),
                0,
                size,
            );
        });

    g.add_compute_pass(TestScene::PASS_CULL)
        .read(uniform_buf)
        .read(instances)
        .read_write(args)
        .write(visible)
        .needs(Capability::Compute)
        .record(move |ctx| {
            let bind = bind::group(
                ctx.device,
                "test.cull",
                &scene.cull_layout,
                &[
                    ctx.res.buffer(uniform_buf).as_entire_binding(),
                    ctx.res.buffer(instances).as_entire_binding(),
                    ctx.res.buffer(args).as_entire_binding(),
                    ctx.res.buffer(visible).as_entire_binding(),
                ],
            );
            ctx.pass.set_pipeline(&scene.cull_pipeline);
            ctx.pass.set_bind_group(0, &bind, &[]);
            ctx.pass
                .dispatch_workgroups((scene.instances.len() as u32).div_ceil(64), 1, 1);
            ctx.counters.instances_submitted += scene.instances.len() as u64;
        });

    let mut draw = g.add_render_pass(TestScene::PASS_DRAW);
    for cap in REQUIRED {
        draw = draw.needs(cap);
    }
    draw.read(uniform_buf)
        .read(instances)
        .read(args)
        .read(visible)
        .color(
            target.color,
            wgpu::LoadOp::Clear(CLEAR_COLOR),
            target.resolve,
        )
        .depth(
            target.depth,
            wgpu::LoadOp::Clear(DEPTH_CLEAR),
            wgpu::StoreOp::Discard,
        )
        .record(move |ctx| {
            let Some(pipeline) = scene.draw_pipelines.get(&ctx.sample_count) else {
                log::error!("test.draw: no pipeline for {} samples", ctx.sample_count);
                return;
            };
            let bind = bind::group(
                ctx.device,
                "test.draw",
                &scene.draw_layout,
                &[
                    ctx.res.buffer(uniform_buf).as_entire_binding(),
                    ctx.res.buffer(instances).as_entire_binding(),
                    ctx.res.buffer(visible).as_entire_binding(),
                ],
            );
            ctx.pass.set_pipeline(pipeline);
            ctx.pass.set_bind_group(0, &bind, &[]);
            ctx.pass.set_vertex_buffer(0, scene.vertex_buffer.slice(..));
            ctx.pass
                .set_index_buffer(scene.index_buffer.slice(..), wgpu::IndexFormat::Uint32);
            ctx.pass
                .multi_draw_indexed_indirect(ctx.res.buffer(args), 0, scene.mesh_count());
            ctx.counters.draw_calls += u64::from(scene.mesh_count());
        });
    SceneOutputs { args, visible }
}

/// Result of [`render_test_pattern`].
pub struct ShotResult {
    /// The resolved image.
    pub image: image::RgbaImage,
    /// CPU side of the last frame.
    pub frame: FrameReport,
    /// GPU pass times of the last frame (absent without timestamp queries).
    pub gpu: Option<GpuFrameTimes>,
    /// MSAA samples actually used.
    pub samples: u32,
    /// Capping warnings (e.g. MSAA unavailable).
    pub warnings: Vec<String>,
}

impl ShotResult {
    /// Per-pass CPU and GPU milliseconds and counters of the last frame, as a table.
    pub fn timing_table(&self) -> String {
        let mut s = format!("{:<16} {:>9} {:>9}  counters\n", "pass", "cpu ms", "gpu ms");
        for p in &self.frame.passes {
            let gpu = self
                .gpu
                .as_ref()
                .and_then(|g| g.pass(&p.name))
                .map_or("-".to_owned(), |t| format!("{:.3}", t.ms()));
            let c = &p.counters;
            s.push_str(&format!(
                "{:<16} {:>9.3} {:>9}  draws {} instances {} uploaded {} B\n",
                p.name, p.cpu_ms, gpu, c.draw_calls, c.instances_submitted, c.bytes_uploaded
            ));
        }
        let gpu_total = self
            .gpu
            .as_ref()
            .map_or("-".to_owned(), |g| format!("{:.3}", g.total_ms()));
        s.push_str(&format!(
            "{:<16} {:>9.3} {:>9}  ({}x MSAA)\n",
            "frame", self.frame.cpu_ms, gpu_total, self.samples
        ));
        s
    }
}

/// Renders the test scene `frames` times (at least once) offscreen at
/// `width` x `height` with `msaa` (capped to the device) and reads it back.
pub fn render_test_pattern(
    gpu: &GpuContext,
    width: u32,
    height: u32,
    msaa: u32,
    frames: u32,
) -> Result<ShotResult, SceneError> {
    let (samples, warning) = gpu.caps.cap_msaa(msaa);
    let target = OffscreenTarget::new(&gpu.device, width, height, samples)?;
    let mut scene = TestScene::new(gpu)?;
    let mut executor = GraphExecutor::new(gpu)?;
    let camera = TestScene::default_camera();
    let mut draw_frame = || -> Result<FrameReport, SceneError> {
        let mut g = RenderGraph::new();
        let color = g.import_texture("target.color", target.render_color());
        let resolve = target
            .resolve_color()
            .map(|t| g.import_texture("target.resolve", t));
        let depth = g.import_texture("target.depth", &target.depth);
        let st = SceneTarget {
            color,
            resolve,
            depth,
            samples,
            aspect: width as f32 / height as f32,
        };
        scene.record(gpu, &mut g, st, &camera)?;
        Ok(executor.execute(gpu, g)?)
    };
    let mut frame = draw_frame()?;
    for _ in 1..frames {
        frame = draw_frame()?;
    }
    let times = executor.flush(gpu);
    let gpu_times = times.into_iter().find(|t| t.frame == frame.frame);
    let image = target.read_color(&gpu.device, &gpu.queue)?;
    Ok(ShotResult {
        image,
        frame,
        gpu: gpu_times,
        samples,
        warnings: warning.into_iter().collect(),
    })
}
