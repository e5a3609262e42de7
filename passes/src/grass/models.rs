//! The detail models on the GPU ([`GrassModels`]): one shared vertex and
//! index buffer with a sub-range per model, one texture with its full mip
//! chain per model (RGBA8, or BC blocks where the device samples them; see
//! [`super::textures`]), each model's [`Material`], wind height and culling
//! radius, and the shader, layouts and per-model bind groups both instanced
//! grass tiers draw with.
//!
//! Detail models have one bone and no keyed tracks, so the bone palette is
//! "set once" by baking the rest pose: vertices are used as stored.

use sward_engine::bind::{self, Slot};
use wgpu::util::DeviceExt;

use super::gpu::{GrassModelUniform, GRASS_UNFOGGED, GRASS_UNLIT};
use super::material::Material;
use super::textures::{self, DecodeReason, TextureUpload, TextureUploadStats, UploadedAs};
use crate::error::PassError;
use sward_engine::GpuContext;
use sward_scenes::DetailModel;

/// One model on the GPU.
pub struct GpuModel {
    /// Model name (e.g. `ElwGra01`).
    pub name: String,
    /// Its material (pipeline state comes from this).
    pub material: Material,
    /// First index in the shared index buffer.
    pub first_index: u32,
    /// Index count.
    pub index_count: u32,
    /// Added to each index (start of its vertices in the shared buffer).
    pub base_vertex: i32,
    /// Triangles per instance.
    pub triangles: u64,
    /// Radius of the origin-centred sphere holding the model.
    pub radius: f32,
    /// Height span wind scales by.
    pub height: f32,
    /// Texture, model uniform and sampler (group 1).
    pub bind_group: wgpu::BindGroup,
    /// The model's texture.
    pub texture: wgpu::Texture,
    /// What the texture went to the GPU as.
    pub uploaded_as: UploadedAs,
}

/// Every detail model on the GPU plus the grass shader and its layouts.
pub struct GrassModels {
    /// The models, indexed by placement model id.
    pub models: Vec<GpuModel>,
    /// Shared vertex buffer (`DetailVertex`).
    pub vertex_buffer: wgpu::Buffer,
    /// Shared `u16` index buffer.
    pub index_buffer: wgpu::Buffer,
    /// `grass_instanced.wgsl`.
    pub shader: wgpu::ShaderModule,
    /// Group 0: the per-frame `GrassFrame` uniform.
    pub frame_layout: wgpu::BindGroupLayout,
    /// Group 1: one model's uniform, texture and sampler (tiers with their
    /// own pipeline layouts put it at group 1 too).
    pub model_layout: wgpu::BindGroupLayout,
    /// Layout of group 0 + group 1.
    pub pipeline_layout: wgpu::PipelineLayout,
    bytes: u64,
    texture_stats: TextureUploadStats,
}

fn technique_error(what: String, reason: String) -> PassError {
    PassError::InvalidInput {
        technique: "grass",
        what,
        reason,
    }
}

/// Grass's [`crate::technique::ResourceSetup`]: uploads the scene's detail
/// models once (as the renderer's texture-upload choice says), shared by
/// every grass technique through [`GrassModels::shared`].
pub fn set_up_shared(
    resources: &mut crate::technique::Resources,
    inputs: &crate::technique::SetupInputs<'_>,
) -> Result<(), PassError> {
    if !resources.contains::<GrassModels>() {
        resources.insert(GrassModels::with_upload(
            inputs.gpu,
            inputs.scene.models,
            inputs.texture_upload,
        )?);
    }
    Ok(())
}

impl GrassModels {
    /// The detail models shared by the grass techniques ([`set_up_shared`]);
    /// an error when the renderer did not set them up.
    pub fn shared(resources: &crate::technique::Resources) -> Result<&GrassModels, PassError> {
        resources.get().ok_or_else(|| {
            technique_error(
                "the shared detail models".into(),
                "not set up: the registry's resource setups run before a technique is built".into(),
            )
        })
    }

    /// [`Self::shared`] while recording a frame of a technique that was
    /// built, which needed them: they are there, as the renderer never
    /// drops its resources.
    pub fn recorded(resources: &crate::technique::Resources) -> &GrassModels {
        resources
            .get()
            .expect("a built grass technique had the shared detail models")
    }

    /// Uploads `models` (validated first; a bad model is an error naming it)
    /// with [`TextureUpload::Auto`].
    pub fn new(gpu: &GpuContext, models: &[DetailModel]) -> Result<Self, PassError> {
        Self::with_upload(gpu, models, TextureUpload::Auto)
    }

    /// Uploads `models`, their BC textures as `upload` says (the way each
    /// went is in [`GpuModel::uploaded_as`] and [`Self::texture_stats`], and
    /// logged).
    pub fn with_upload(
        gpu: &GpuContext,
        models: &[DetailModel],
        upload: TextureUpload,
    ) -> Result<Self, PassError> {
        let device = &gpu.device;
        let shader =
            crate::error::create_shader(device, sward_wgsl::modules::GRASS_INSTANCED, "grass")?;
        let vs_fs = wgpu::ShaderStages::VERTEX_FRAGMENT;
        let fs = wgpu::ShaderStages::FRAGMENT;
        // Group 0: the frame's uniforms.
        let frame_layout = bind::layout(
            device,
            "grass.frame",
            &[bind::entry(0, vs_fs, Slot::Uniform)],
        );
        // Group 1, per model: its uniforms, its texture and the sampler.
        let model_layout = bind::layout(
            device,
            "grass.model",
            &[
                bind::entry(0, vs_fs, Slot::Uniform),
                bind::entry(1, fs, Slot::texture_2d()),
                bind::entry(2, fs, Slot::SAMPLER),
            ],
        );
        let pipeline_layout =
            bind::pipeline_layout(device, "grass.draw", &[&frame_layout, &model_layout]);
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("grass.sampler"),
            address_mode_u: wgpu::AddressMode::ClampToEdge,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });

        let mut vertices = Vec::new();
        let mut indices: Vec<u16> = Vec::new();
        let mut gpu_models = Vec::with_capacity(models.len());
        let mut bytes = 0u64;
        let mut texture_stats = TextureUploadStats::default();
        let mut decode_reasons: Vec<DecodeReason> = Vec::new();
        for (i, m) in models.iter().enumerate() {
            m.validate().map_err(|e| {
                technique_error(format!("detail model {i} ({})", m.name), e.to_string())
            })?;
            let material = Material::from_m2(&m.name, m.render_flags, m.blend_mode)?;
            let base_vertex = i32::try_from(vertices.len()).map_err(|_| {
                technique_error(
                    format!("detail model {i} ({})", m.name),
                    "too many vertices".into(),
                )
            })?;
            let first_index = indices.len() as u32;
            vertices.extend_from_slice(&m.vertices);
            indices.extend_from_slice(&m.indices);
            let (texture, uploaded_as, texture_bytes) =
                textures::upload(gpu, "grass.texture", &m.texture, upload).map_err(|e| {
                    technique_error(format!("detail model {i} ({}) texture", m.name), e)
                })?;
            bytes += texture_bytes;
            texture_stats.add(uploaded_as);
            if let UploadedAs::Decoded(format, reason) = uploaded_as {
                log::debug!(
                    "grass: {} texture ({}) decoded to RGBA8 on the CPU: {}",
                    m.name,
                    format.name(),
                    reason.text()
                );
                if !decode_reasons.contains(&reason) {
                    decode_reasons.push(reason);
                }
            }
            let z_min = m.bounds.min[2];
            let uniform = GrassModelUniform {
                z_min,
                height: (m.bounds.max[2] - z_min).max(0.001),
                alpha_cutoff: material.alpha_cutoff(),
                flags: if material.unlit { GRASS_UNLIT } else { 0 }
                    | if material.unfogged { GRASS_UNFOGGED } else { 0 },
            };
            let uniform_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("grass.model"),
                contents: bytemuck::bytes_of(&uniform),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            bytes += std::mem::size_of::<GrassModelUniform>() as u64;
            let view = texture.create_view(&Default::default());
            let bind_group = bind::group(
                device,
                "grass.model",
                &model_layout,
                &[
                    uniform_buffer.as_entire_binding(),
                    wgpu::BindingResource::TextureView(&view),
                    wgpu::BindingResource::Sampler(&sampler),
                ],
            );
            gpu_models.push(GpuModel {
                name: m.name.clone(),
                material,
                first_index,
                index_count: m.indices.len() as u32,
                base_vertex,
                triangles: m.triangles() as u64,
                radius: m.bounds.radius_from_origin(),
                height: uniform.height,
                bind_group,
                texture,
                uploaded_as,
            });
        }
        // Keep buffers non-empty so an empty model list still binds.
        if vertices.is_empty() {
            vertices.push(sward_scenes::DetailVertex::default());
        }
        indices.resize(indices.len().next_multiple_of(2).max(2), 0);
        let vertex_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("grass.vertices"),
            contents: bytemuck::cast_slice(&vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let index_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("grass.indices"),
            contents: bytemuck::cast_slice(&indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        bytes += vertex_buffer.size() + index_buffer.size();
        if texture_stats.bc + texture_stats.decoded > 0 {
            let why: Vec<&str> = decode_reasons.iter().map(|r| r.text()).collect();
            log::info!(
                "grass: detail textures: {} uploaded as BC, {} decoded to RGBA8 on the CPU{}, {} RGBA8",
                texture_stats.bc,
                texture_stats.decoded,
                if why.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", why.join("; "))
                },
                texture_stats.rgba
            );
        }
        Ok(GrassModels {
            models: gpu_models,
            vertex_buffer,
            index_buffer,
            shader,
            frame_layout,
            model_layout,
            pipeline_layout,
            bytes,
            texture_stats,
        })
    }

    /// Number of models.
    pub fn len(&self) -> usize {
        self.models.len()
    }

    /// Whether there are no models.
    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }

    /// GPU memory of the shared geometry, textures and model uniforms.
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.bytes
    }

    /// How many detail textures went to the GPU as BC blocks, decoded on
    /// the CPU, or as stored RGBA8.
    pub fn texture_stats(&self) -> TextureUploadStats {
        self.texture_stats
    }

    /// A bind group of `buffer` (a `GrassFrame` uniform) for group 0.
    pub fn frame_bind_group(
        &self,
        device: &wgpu::Device,
        buffer: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        bind::buffer_group(device, "grass.frame", &self.frame_layout, &[buffer])
    }
}
