//! Rust mirrors of `grass_instanced.wgsl`: the per-frame uniform block
//! ([`GrassFrame`]), the per-model uniform ([`GrassModelUniform`]), the vertex
//! layouts (shared `DetailVertex` buffer + one mat4 per instance), and the
//! render pipelines built from a [`MaterialState`] ([`GrassPipelines`]).

use std::collections::HashMap;

use glam::{Mat4, Vec4};

use super::material::MaterialState;
use super::wind::Wind;
use crate::frame::FrameView;

/// Model flag: no lighting (WGSL `GRASS_UNLIT`).
pub const GRASS_UNLIT: u32 = 1;
/// Model flag: no fog (WGSL `GRASS_UNFOGGED`).
pub const GRASS_UNFOGGED: u32 = 2;

/// Per-frame uniforms; mirrors WGSL `GrassFrame` (every member a vec4 or
/// mat4, so the `#[repr(C)]` layout equals the WGSL uniform layout; checked).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GrassFrame {
    /// Reverse-Z `projection * view`.
    pub view_proj: Mat4,
    /// Eye position (xyz).
    pub eye: Vec4,
    /// Wind state.
    pub wind: Wind,
    /// Fade start, fade end (draw distance), smooth fade (1/0), wind on (1/0).
    pub fade: Vec4,
    /// Towards the sun (xyz).
    pub sun_dir: Vec4,
    /// Fog colour, linear RGB.
    pub fog_color: Vec4,
    /// Fog start and end (xy).
    pub fog_range: Vec4,
}

/// Bytes of [`GrassFrame`]: what a static-batch frame uploads.
pub const GRASS_FRAME_BYTES: u64 = std::mem::size_of::<GrassFrame>() as u64;

impl GrassFrame {
    /// The uniforms of `view` (its camera, time and settings).
    pub fn new(view: &FrameView) -> Self {
        let s = &view.settings;
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        GrassFrame {
            view_proj: view.view_proj,
            eye: view.eye().extend(1.0),
            wind: Wind::new(s, view.time_s),
            fade: Vec4::new(s.fade_start, s.grass_distance, flag(s.fade), flag(s.wind)),
            sun_dir: glam::Vec3::from_array(s.sun_dir).extend(0.0),
            fog_color: glam::Vec3::from_array(s.fog_color).extend(1.0),
            fog_range: Vec4::new(s.fog_range[0], s.fog_range[1], 0.0, 0.0),
        }
    }
}

/// Per-model uniforms; mirrors WGSL `GrassModelUniform`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GrassModelUniform {
    /// Lowest model-space z.
    pub z_min: f32,
    /// Height span wind scales by.
    pub height: f32,
    /// Alpha cutoff (see `Material::alpha_cutoff`).
    pub alpha_cutoff: f32,
    /// [`GRASS_UNLIT`] | [`GRASS_UNFOGGED`].
    pub flags: u32,
}

/// Vertex attributes of the shared model buffer (`DetailVertex`, 36 bytes;
/// the bone index is not read: one bone, rest pose baked).
const VERTEX_ATTRS: [wgpu::VertexAttribute; 3] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x2];
/// The four columns of the instance mat4.
const INSTANCE_ATTRS: [wgpu::VertexAttribute; 4] =
    wgpu::vertex_attr_array![3 => Float32x4, 4 => Float32x4, 5 => Float32x4, 6 => Float32x4];

/// The two vertex buffer layouts: slot 0 model vertices, slot 1 instances.
pub fn vertex_layouts() -> [wgpu::VertexBufferLayout<'static>; 2] {
    [
        wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<sward_scenes::DetailVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &VERTEX_ATTRS,
        },
        wgpu::VertexBufferLayout {
            array_stride: super::instance::INSTANCE_BYTES,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &INSTANCE_ATTRS,
        },
    ]
}

/// Render pipelines of the grass shader, one per [`MaterialState`], built on
/// first use.
#[derive(Default)]
pub struct GrassPipelines {
    pipelines: HashMap<MaterialState, wgpu::RenderPipeline>,
}

impl GrassPipelines {
    /// The pipeline for `state`, building it if needed.
    pub fn ensure(
        &mut self,
        device: &wgpu::Device,
        layout: &wgpu::PipelineLayout,
        shader: &wgpu::ShaderModule,
        state: MaterialState,
    ) {
        self.pipelines
            .entry(state)
            .or_insert_with(|| build_pipeline(device, layout, shader, &state));
    }

    /// The pipeline built for `state`, if any.
    pub fn get(&self, state: &MaterialState) -> Option<&wgpu::RenderPipeline> {
        self.pipelines.get(state)
    }

    /// Number of pipelines built.
    pub fn len(&self) -> usize {
        self.pipelines.len()
    }

    /// Whether none were built.
    pub fn is_empty(&self) -> bool {
        self.pipelines.is_empty()
    }
}

/// Builds the render pipeline of `state` for the instanced (mat4) grass shader:
/// every piece of state comes from it.
pub fn build_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    shader: &wgpu::ShaderModule,
    state: &MaterialState,
) -> wgpu::RenderPipeline {
    let buffers = vertex_layouts();
    material_pipeline(
        device,
        "grass.draw",
        layout,
        shader,
        "vs_main",
        &buffers,
        state,
    )
}

/// A grass pipeline: all fixed-function state and the fragment entry from the
/// material, `vs_entry` with `buffers` for vertex input. Every grass tier builds
/// its pipelines here, so their material states cannot drift apart.
pub(crate) fn material_pipeline(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::PipelineLayout,
    shader: &wgpu::ShaderModule,
    vs_entry: &str,
    buffers: &[wgpu::VertexBufferLayout<'_>],
    state: &MaterialState,
) -> wgpu::RenderPipeline {
    sward_engine::bind::render_pipeline(
        device,
        label,
        layout,
        shader,
        (vs_entry, buffers),
        Some(state.fragment_entry),
        sward_engine::bind::Raster {
            primitive: state.primitive(),
            depth_stencil: Some(state.depth_stencil()),
            multisample: state.multisample(),
            targets: &[Some(wgpu::ColorTargetState {
                format: sward_engine::COLOR_FORMAT,
                blend: state.blend,
                write_mask: wgpu::ColorWrites::ALL,
            })],
            constants: &[],
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_structs_match_wgsl_layout() {
        sward_wgsl::assert_layouts!(
            sward_wgsl::modules::GRASS_INSTANCED,
            "GrassFrame" => GrassFrame {
                view_proj, eye, wind, fade, sun_dir, fog_color, fog_range
            },
            "GrassModelUniform" => GrassModelUniform { z_min, height, alpha_cutoff, flags },
        );
    }

    #[test]
    fn vertex_layout_matches_detail_vertex() {
        let [v, i] = vertex_layouts();
        assert_eq!(v.array_stride, 36);
        let offsets: Vec<u64> = v.attributes.iter().map(|a| a.offset).collect();
        assert_eq!(
            offsets,
            vec![
                std::mem::offset_of!(sward_scenes::DetailVertex, position) as u64,
                std::mem::offset_of!(sward_scenes::DetailVertex, normal) as u64,
                std::mem::offset_of!(sward_scenes::DetailVertex, uv) as u64,
            ]
        );
        assert_eq!(i.array_stride, 64);
        assert_eq!(i.attributes.last().map(|a| a.offset), Some(48));
    }
}
