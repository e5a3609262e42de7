//! The window surface and the `viewer.present` pass: configures the surface
//! (Fifo by default, a no-vsync mode on request, an sRGB view either way),
//! copies the resolved scene colour onto it with a full-screen triangle and
//! draws the egui overlay on top, inside one render-graph transfer pass so the
//! overlay gets its own puffin scope and GPU timestamp like every other pass.

use std::sync::Arc;
use sward_engine::bind::{self, Slot};

use sward_engine::graph::{RenderGraph, TextureId};
use sward_engine::GpuContext;
use winit::window::Window;

use crate::error::ViewerError;

/// What the overlay draws this frame (tessellated egui output).
pub struct Overlay {
    /// Tessellated shapes.
    pub jobs: Vec<egui::ClippedPrimitive>,
    /// Pixels per point of the window.
    pub pixels_per_point: f32,
}

/// The configured surface plus the present pipeline and the egui renderer.
pub struct Presenter {
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    /// The sRGB view format the scene copy writes through.
    view_format: wgpu::TextureFormat,
    /// The non-sRGB view format egui draws through (egui blends in gamma space).
    ui_format: wgpu::TextureFormat,
    vsync_modes: (wgpu::PresentMode, wgpu::PresentMode),
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    /// egui's wgpu renderer (textures are updated before the frame's graph).
    pub egui: egui_wgpu::Renderer,
}

impl Presenter {
    /// Creates and configures the surface of `window` at its current size.
    pub fn new(gpu: &GpuContext, window: Arc<Window>, vsync: bool) -> Result<Self, ViewerError> {
        let surface = gpu
            .instance
            .create_surface(window.clone())
            .map_err(|e| ViewerError::Surface(e.to_string()))?;
        let caps = surface.get_capabilities(&gpu.adapter);
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| f.is_srgb())
            .or_else(|| caps.formats.first().copied())
            .ok_or_else(|| {
                ViewerError::Surface(format!(
                    "adapter {} cannot present to this window",
                    gpu.summary.name
                ))
            })?;
        let view_format = format.add_srgb_suffix();
        let ui_format = format.remove_srgb_suffix();
        let no_vsync = [wgpu::PresentMode::Immediate, wgpu::PresentMode::Mailbox]
            .into_iter()
            .find(|m| caps.present_modes.contains(m))
            .unwrap_or(wgpu::PresentMode::AutoNoVsync);
        let size = window.inner_size();
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: wgpu::PresentMode::Fifo,
            desired_maximum_frame_latency: 2,
            alpha_mode: caps
                .alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto),
            view_formats: [view_format, ui_format]
                .into_iter()
                .filter(|f| *f != format)
                .collect(),
        };
        let module =
            sward_engine::shader::create_shader(&gpu.device, sward_wgsl::modules::VIEWER_BLIT)
                .map_err(|e| ViewerError::Shader(e.to_string()))?;
        // The scene's resolved colour, read texel by texel.
        let scene_texture = Slot::float_texture(wgpu::TextureViewDimension::D2, false);
        let layout = bind::layout(
            &gpu.device,
            "viewer.present",
            &[bind::entry(0, wgpu::ShaderStages::FRAGMENT, scene_texture)],
        );
        let pipeline_layout = bind::pipeline_layout(&gpu.device, "viewer.present", &[&layout]);
        let pipeline = bind::render_pipeline(
            &gpu.device,
            "viewer.present",
            &pipeline_layout,
            &module,
            ("vs_main", &[]),
            Some("fs_main"),
            bind::Raster {
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: None,
                multisample: wgpu::MultisampleState::default(),
                targets: &[Some(view_format.into())],
                constants: &[],
            },
        );
        let egui = egui_wgpu::Renderer::new(
            &gpu.device,
            ui_format,
            egui_wgpu::RendererOptions::default(),
        );
        let mut p = Presenter {
            surface,
            config,
            view_format,
            ui_format,
            vsync_modes: (wgpu::PresentMode::Fifo, no_vsync),
            pipeline,
            layout,
            egui,
        };
        p.set_vsync(gpu, vsync);
        Ok(p)
    }

    /// Surface size in pixels.
    pub fn size(&self) -> [u32; 2] {
        [self.config.width, self.config.height]
    }

    /// Whether presentation waits for vertical blank (Fifo).
    pub fn vsync(&self) -> bool {
        self.config.present_mode == wgpu::PresentMode::Fifo
    }

    /// The present mode in use.
    pub fn present_mode(&self) -> wgpu::PresentMode {
        self.config.present_mode
    }

    /// Switches between Fifo and the no-vsync mode, reconfiguring the surface.
    pub fn set_vsync(&mut self, gpu: &GpuContext, vsync: bool) {
        self.config.present_mode = if vsync {
            self.vsync_modes.0
        } else {
            self.vsync_modes.1
        };
        self.surface.configure(&gpu.device, &self.config);
    }

    /// Resizes the surface (ignores a zero size, e.g. a minimised window).
    pub fn resize(&mut self, gpu: &GpuContext, size: [u32; 2]) {
        if size[0] == 0 || size[1] == 0 || size == self.size() {
            return;
        }
        self.config.width = size[0];
        self.config.height = size[1];
        self.surface.configure(&gpu.device, &self.config);
    }

    /// The next surface texture, reconfiguring once when the surface is
    /// outdated or lost; `None` when no frame can be drawn now (timeout,
    /// occluded window).
    pub fn acquire(&mut self, gpu: &GpuContext) -> Option<wgpu::SurfaceTexture> {
        match self.surface.get_current_texture() {
            Ok(t) if !t.suboptimal => Some(t),
            Ok(t) => {
                drop(t);
                self.surface.configure(&gpu.device, &self.config);
                self.surface.get_current_texture().ok()
            }
            Err(wgpu::SurfaceError::Outdated | wgpu::SurfaceError::Lost) => {
                self.surface.configure(&gpu.device, &self.config);
                self.surface.get_current_texture().ok()
            }
            Err(e) => {
                log::warn!("viewer: no surface texture this frame: {e}");
                None
            }
        }
    }

    /// Uploads egui texture changes (before the frame's graph runs).
    pub fn update_textures(&mut self, gpu: &GpuContext, delta: &egui::TexturesDelta) {
        for (id, image) in &delta.set {
            self.egui
                .update_texture(&gpu.device, &gpu.queue, *id, image);
        }
    }

    /// Frees egui textures egui no longer needs (after the frame).
    pub fn free_textures(&mut self, delta: &egui::TexturesDelta) {
        for id in &delta.free {
            self.egui.free_texture(id);
        }
    }

    /// Adds the `viewer.present` pass: `scene` (single-sample sRGB colour) is
    /// copied onto `surface`, then the overlay (if any) is drawn over it.
    pub fn record<'a>(
        &'a mut self,
        graph: &mut RenderGraph<'a>,
        scene: TextureId,
        surface: TextureId,
        overlay: Option<&'a Overlay>,
    ) {
        let Presenter {
            pipeline,
            layout,
            egui,
            view_format,
            ui_format,
            config,
            ..
        } = self;
        let size = [config.width, config.height];
        let (view_format, ui_format) = (*view_format, *ui_format);
        graph
            .add_transfer_pass("viewer.present")
            .read(scene)
            .write(surface)
            .record(move |ctx| {
                let surface_view = |format| {
                    ctx.res
                        .texture(surface)
                        .create_view(&wgpu::TextureViewDescriptor {
                            label: Some("viewer.surface"),
                            format: Some(format),
                            ..Default::default()
                        })
                };
                let bind = bind::group(
                    ctx.device,
                    "viewer.present",
                    layout,
                    &[wgpu::BindingResource::TextureView(ctx.res.view(scene))],
                );
                {
                    let target = surface_view(view_format);
                    let mut pass = begin(
                        ctx.encoder,
                        &target,
                        wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                    );
                    pass.set_pipeline(pipeline);
                    pass.set_bind_group(0, &bind, &[]);
                    pass.draw(0..3, 0..1);
                }
                // The overlay's draws stay out of the counters, which describe the scene.
                let Some(o) = overlay else {
                    return;
                };
                let screen = egui_wgpu::ScreenDescriptor {
                    size_in_pixels: size,
                    pixels_per_point: o.pixels_per_point,
                };
                let extra =
                    egui.update_buffers(ctx.device, ctx.queue, ctx.encoder, &o.jobs, &screen);
                // egui-wgpu only returns command buffers for paint callbacks; the viewer has none.
                debug_assert!(extra.is_empty());
                let target = surface_view(ui_format);
                let mut pass = begin(ctx.encoder, &target, wgpu::LoadOp::Load).forget_lifetime();
                egui.render(&mut pass, &o.jobs, &screen);
            });
    }
}

/// A colour-only render pass on `view`.
fn begin<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    view: &wgpu::TextureView,
    load: wgpu::LoadOp<wgpu::Color>,
) -> wgpu::RenderPass<'e> {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("viewer.present"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load,
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
    })
}
