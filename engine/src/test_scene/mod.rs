//! The built-in test scene ("test-pattern"): a ground quad and a grid of cubes
//! and pyramids, plus a few objects behind the camera that culling must drop.
//! It exercises the whole engine path: an upload (transfer) pass, a compute
//! pass that frustum-culls instances and writes indirect draw args, and a render
//! pass that consumes them with `multi_draw_indexed_indirect`.

mod mesh;
mod render;

pub use mesh::{MeshRange, MeshVertex, CUBE, GROUND, PYRAMID};
pub use render::{render_test_pattern, ShotResult, CLEAR_COLOR};

use std::collections::HashMap;

use glam::Vec3;
use sward_wgsl::cpu::hash::{hash2, hash_unit};
use wgpu::util::DeviceExt;

use crate::camera::{Camera, Frustum};
use crate::caps::Capability;
use crate::context::GpuContext;
use crate::graph::{BufferDesc, BufferId, GraphError, RenderGraph, TextureId};

/// Per-frame uniforms; mirrors `SceneUniforms` in `test_scene_types.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SceneUniforms {
    /// Reverse-Z `projection * view`, column-major.
    pub view_proj: [[f32; 4]; 4],
    /// Culling frustum.
    pub frustum: Frustum,
    /// Direction the light travels (xyz), w unused.
    pub light_dir: [f32; 4],
    /// Number of instances.
    pub instance_count: u32,
    /// Number of meshes (draws in the multi-draw).
    pub mesh_count: u32,
    /// Padding.
    pub _pad0: u32,
    /// Padding.
    pub _pad1: u32,
}

/// One placed object; mirrors `SceneInstance` in `test_scene_types.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SceneInstance {
    /// World position of the mesh origin.
    pub position: [f32; 3],
    /// Uniform scale.
    pub scale: f32,
    /// Linear RGBA colour.
    pub color: [f32; 4],
    /// Mesh id ([`CUBE`], [`PYRAMID`], [`GROUND`]).
    pub mesh: u32,
    /// Padding.
    pub _pad0: u32,
    /// Padding.
    pub _pad1: u32,
    /// Padding.
    pub _pad2: u32,
}

/// Indexed indirect draw args; mirrors `DrawIndexedArgs` in WGSL and wgpu's
/// `DrawIndexedIndirectArgs`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrawIndexedArgs {
    /// Indices per instance.
    pub index_count: u32,
    /// Instances to draw (written by culling).
    pub instance_count: u32,
    /// First index.
    pub first_index: u32,
    /// Added to each index.
    pub base_vertex: i32,
    /// First instance (start of the mesh's region of the visible list).
    pub first_instance: u32,
}

/// Bounding radius of every test mesh per unit of scale (half a unit cube's diagonal).
pub const MESH_BOUNDING_RADIUS: f32 = 0.866_025_4;

/// Errors of the test scene.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The device lacks what the scene's passes need.
    #[error("the test scene needs {} which this device lacks", .0.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", "))]
    Unsupported(Vec<Capability>),
    /// A shader failed to compose or validate.
    #[error("shader: {0}")]
    Shader(#[from] sward_wgsl::ShaderError),
    /// The frame graph was rejected.
    #[error(transparent)]
    Graph(#[from] GraphError),
    /// Target creation or readback failed.
    #[error(transparent)]
    Target(#[from] crate::targets::TargetError),
}

/// Graph handles of the render target the scene draws into.
#[derive(Debug, Clone, Copy)]
pub struct SceneTarget {
    /// Colour attachment (multisampled when `samples > 1`).
    pub color: TextureId,
    /// Resolve target when multisampled.
    pub resolve: Option<TextureId>,
    /// Depth attachment.
    pub depth: TextureId,
    /// Sample count of `color` and `depth`.
    pub samples: u32,
    /// Width / height.
    pub aspect: f32,
}

/// What the scene's passes produced this frame (transient, readable by later passes).
#[derive(Debug, Clone, Copy)]
pub struct SceneOutputs {
    /// One [`DrawIndexedArgs`] per mesh.
    pub args: BufferId,
    /// Visible instance indices, grouped by mesh.
    pub visible: BufferId,
}

/// GPU state of the test scene.
pub struct TestScene {
    instances: Vec<SceneInstance>,
    meshes: Vec<MeshRange>,
    vertex_buffer: wgpu::Buffer,
    index_buffer: wgpu::Buffer,
    instance_buffer: wgpu::Buffer,
    args_template: wgpu::Buffer,
    uniform_buffer: wgpu::Buffer,
    cull_layout: wgpu::BindGroupLayout,
    cull_pipeline: wgpu::ComputePipeline,
    draw_layout: wgpu::BindGroupLayout,
    draw_pipeline_layout: wgpu::PipelineLayout,
    draw_shader: wgpu::ShaderModule,
    draw_pipelines: HashMap<u32, wgpu::RenderPipeline>,
}

/// Capabilities the scene's passes need.
pub const REQUIRED: [Capability; 4] = [
    Capability::Compute,
    Capability::MultiDrawIndirect,
    Capability::IndirectFirstInstance,
    Capability::VertexStorage,
];

/// The placed objects of the scene (deterministic).
pub fn scene_instances() -> Vec<SceneInstance> {
    let inst = |position: Vec3, scale: f32, color: [f32; 3], mesh: u32| SceneInstance {
        position: position.to_array(),
        scale,
        color: [color[0], color[1], color[2], 1.0],
        mesh,
        _pad0: 0,
        _pad1: 0,
        _pad2: 0,
    };
    let mut out = vec![inst(Vec3::ZERO, 40.0, [0.18, 0.36, 0.12], GROUND)];
    for iy in -3i32..=3 {
        for ix in -3i32..=3 {
            let h = hash2(ix as u32, iy as u32);
            let scale = 1.2 + 0.8 * hash_unit(h);
            let hue = hash_unit(h.rotate_left(11)) * 6.0;
            // HSV (hue, saturation 0.7, value 0.9) to RGB.
            let channel = |n: f32| {
                let k = (n + hue) % 6.0;
                0.9 - 0.9 * 0.7 * k.min(4.0 - k).clamp(0.0, 1.0)
            };
            let color = [channel(5.0), channel(3.0), channel(1.0)];
            let mesh = if (ix + iy).rem_euclid(2) == 0 {
                CUBE
            } else {
                PYRAMID
            };
            out.push(inst(
                Vec3::new(ix as f32 * 4.0, iy as f32 * 4.0, scale * 0.5),
                scale,
                color,
                mesh,
            ));
        }
    }
    // Behind the default camera: culling must drop these.
    for k in 0..6 {
        out.push(inst(
            Vec3::new(-40.0 - 3.0 * k as f32, -38.0, 1.0),
            2.0,
            [1.0, 0.0, 1.0],
            k % 2,
        ));
    }
    out
}

impl TestScene {
    /// Name of the upload/reset transfer pass.
    pub const PASS_UPLOAD: &'static str = "test.upload";
    /// Name of the culling compute pass.
    pub const PASS_CULL: &'static str = "test.cull";
    /// Name of the multi-draw render pass.
    pub const PASS_DRAW: &'static str = "test.draw";

    /// The camera the test pattern is shot from.
    pub fn default_camera() -> Camera {
        Camera {
            eye: Vec3::new(-22.0, -22.0, 14.0),
            yaw_deg: 45.0,
            pitch_deg: -24.0,
            fov_y_deg: 50.0,
            near: 0.5,
            far: 200.0,
        }
    }

    /// Creates buffers and pipelines; fails if the device lacks [`REQUIRED`].
    pub fn new(gpu: &GpuContext) -> Result<Self, SceneError> {
        let missing = gpu.caps.missing(&REQUIRED);
        if !missing.is_empty() {
            return Err(SceneError::Unsupported(missing));
        }
        let device = &gpu.device;
        let (vertices, indices, meshes) = mesh::build();
        let instances = scene_instances();
        let init = |label, contents: &[u8], usage| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        let vertex_buffer = init(
            "test.vertices",
            bytemuck::cast_slice(&vertices),
            wgpu::BufferUsages::VERTEX,
        );
        let index_buffer = init(
            "test.indices",
            bytemuck::cast_slice(&indices),
            wgpu::BufferUsages::INDEX,
        );
        let instance_buffer = init(
            "test.instances",
            bytemuck::cast_slice(&instances),
            wgpu::BufferUsages::STORAGE,
        );
        let template = args_template(&meshes, &instances);
        let args_template = init(
            "test.args_template",
            bytemuck::cast_slice(&template),
            wgpu::BufferUsages::COPY_SRC,
        );
        let uniform_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("test.uniforms"),
            size: std::mem::size_of::<SceneUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let (cull_layout, cull_pipeline) = render::cull_pipeline(device)?;
        let (draw_layout, draw_pipeline_layout, draw_shader) = render::draw_layout(device)?;
        Ok(TestScene {
            instances,
            meshes,
            vertex_buffer,
            index_buffer,
            instance_buffer,
            args_template,
            uniform_buffer,
            cull_layout,
            cull_pipeline,
            draw_layout,
            draw_pipeline_layout,
            draw_shader,
            draw_pipelines: HashMap::new(),
        })
    }

    /// The scene's instances.
    pub fn instances(&self) -> &[SceneInstance] {
        &self.instances
    }

    /// CPU reference of the cull pass: visible instances per mesh.
    pub fn cpu_visible_counts(&self, frustum: &Frustum) -> Vec<u32> {
        let mut counts = vec![0u32; self.meshes.len()];
        for i in &self.instances {
            if frustum.sphere_visible(Vec3::from(i.position), i.scale * MESH_BOUNDING_RADIUS) {
                counts[i.mesh as usize] += 1;
            }
        }
        counts
    }

    /// Number of meshes (draws per multi-draw).
    pub fn mesh_count(&self) -> u32 {
        self.meshes.len() as u32
    }

    /// Adds the scene's passes (upload, cull, draw) to `g`, drawing into `target`.
    pub fn record<'a>(
        &'a mut self,
        gpu: &GpuContext,
        g: &mut RenderGraph<'a>,
        target: SceneTarget,
        camera: &Camera,
    ) -> Result<SceneOutputs, SceneError> {
        if !self.draw_pipelines.contains_key(&target.samples) {
            let p = render::draw_pipeline(
                &gpu.device,
                &self.draw_pipeline_layout,
                &self.draw_shader,
                target.samples,
            );
            self.draw_pipelines.insert(target.samples, p);
        }
        let this: &'a TestScene = self;
        Ok(render::record_passes(this, g, target, camera))
    }
}

/// Indirect args with zero instances and each mesh's region of the visible list.
fn args_template(meshes: &[MeshRange], instances: &[SceneInstance]) -> Vec<DrawIndexedArgs> {
    let mut first_instance = 0;
    meshes
        .iter()
        .enumerate()
        .map(|(m, r)| {
            let args = DrawIndexedArgs {
                index_count: r.index_count,
                instance_count: 0,
                first_index: r.first_index,
                base_vertex: r.base_vertex,
                first_instance,
            };
            first_instance += instances.iter().filter(|i| i.mesh == m as u32).count() as u32;
            args
        })
        .collect()
}

/// Size of the args buffer for `mesh_count` meshes.
pub fn args_desc(mesh_count: u32) -> BufferDesc {
    BufferDesc::new(
        u64::from(mesh_count) * std::mem::size_of::<DrawIndexedArgs>() as u64,
        wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::INDIRECT
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC,
    )
}
