//! Device capabilities techniques depend on, detected once per device, and the
//! capping of a requested MSAA count to what the device can run. Techniques
//! declare the capabilities they need (the technique registry in
//! `sward-passes` caps tiers with [`Caps::missing`]); the engine knows devices,
//! not grass.

use std::fmt;

/// One thing a tier or pass may need from the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Capability {
    /// Compute shaders with storage buffers.
    Compute,
    /// Indirect draws, including `multi_draw_*_indirect` (native or emulated).
    MultiDrawIndirect,
    /// `multi_draw_*_indirect_count` (`Features::MULTI_DRAW_INDIRECT_COUNT`).
    MultiDrawIndirectCount,
    /// A non-zero `first_instance` in indirect draw args (`Features::INDIRECT_FIRST_INSTANCE`).
    IndirectFirstInstance,
    /// Timestamp queries at pass boundaries (`Features::TIMESTAMP_QUERY`).
    TimestampQuery,
    /// Timestamp writes on command encoders (`Features::TIMESTAMP_QUERY_INSIDE_ENCODERS`).
    TimestampInsideEncoders,
    /// Timestamp writes inside passes (`Features::TIMESTAMP_QUERY_INSIDE_PASSES`).
    TimestampInsidePasses,
    /// 4x MSAA on `Rgba8UnormSrgb` colour (with resolve) and `Depth32Float` depth,
    /// which alpha-to-coverage rides on.
    Msaa4x,
    /// `R32Float` textures bound for sampling / `textureLoad` (vertex and fragment).
    R32FloatTexture,
    /// `R32Float` filtering (`Features::FLOAT32_FILTERABLE`).
    R32FloatFilterable,
    /// Storage buffers readable from vertex shaders.
    VertexStorage,
    /// BC1-BC7 textures (`Features::TEXTURE_COMPRESSION_BC`): DXT BLP
    /// textures upload as BC blocks; without it they are decoded to RGBA8 on
    /// the CPU first.
    TextureCompressionBc,
    /// Pipeline statistics queries (`Features::PIPELINE_STATISTICS_QUERY`):
    /// the GPU work counters the render graph reads per pass (vertex,
    /// clipper, fragment and compute invocations).
    PipelineStatistics,
}

impl Capability {
    /// Every capability, in declaration order.
    pub const ALL: [Capability; 13] = [
        Capability::Compute,
        Capability::MultiDrawIndirect,
        Capability::MultiDrawIndirectCount,
        Capability::IndirectFirstInstance,
        Capability::TimestampQuery,
        Capability::TimestampInsideEncoders,
        Capability::TimestampInsidePasses,
        Capability::Msaa4x,
        Capability::R32FloatTexture,
        Capability::R32FloatFilterable,
        Capability::VertexStorage,
        Capability::TextureCompressionBc,
        Capability::PipelineStatistics,
    ];

    /// Short kebab-case name used in warnings, `sward info` and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Capability::Compute => "compute",
            Capability::MultiDrawIndirect => "multi-draw-indirect",
            Capability::MultiDrawIndirectCount => "multi-draw-indirect-count",
            Capability::IndirectFirstInstance => "indirect-first-instance",
            Capability::TimestampQuery => "timestamp-query",
            Capability::TimestampInsideEncoders => "timestamp-query-inside-encoders",
            Capability::TimestampInsidePasses => "timestamp-query-inside-passes",
            Capability::Msaa4x => "msaa-4x",
            Capability::R32FloatTexture => "r32float-texture",
            Capability::R32FloatFilterable => "r32float-filterable",
            Capability::VertexStorage => "vertex-storage",
            Capability::TextureCompressionBc => "texture-compression-bc",
            Capability::PipelineStatistics => "pipeline-statistics",
        }
    }
}

/// Serialises as [`Capability::name`], the same string text output uses.
impl serde::Serialize for Capability {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl fmt::Display for Capability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Limits that matter to sward's techniques, copied from the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct KeyLimits {
    /// `max_storage_buffer_binding_size` in bytes.
    pub max_storage_buffer_binding_size: u32,
    /// `max_buffer_size` in bytes.
    pub max_buffer_size: u64,
    /// `max_storage_buffers_per_shader_stage`.
    pub max_storage_buffers_per_shader_stage: u32,
    /// `max_texture_dimension_2d` in texels.
    pub max_texture_dimension_2d: u32,
    /// `max_texture_array_layers`.
    pub max_texture_array_layers: u32,
    /// `max_compute_workgroup_size_x`.
    pub max_compute_workgroup_size_x: u32,
    /// `max_compute_invocations_per_workgroup`.
    pub max_compute_invocations_per_workgroup: u32,
    /// `max_compute_workgroups_per_dimension`.
    pub max_compute_workgroups_per_dimension: u32,
}

impl KeyLimits {
    /// Picks the limits sward cares about out of a full `wgpu::Limits`.
    pub fn from_limits(l: &wgpu::Limits) -> Self {
        KeyLimits {
            max_storage_buffer_binding_size: l.max_storage_buffer_binding_size,
            max_buffer_size: l.max_buffer_size,
            max_storage_buffers_per_shader_stage: l.max_storage_buffers_per_shader_stage,
            max_texture_dimension_2d: l.max_texture_dimension_2d,
            max_texture_array_layers: l.max_texture_array_layers,
            max_compute_workgroup_size_x: l.max_compute_workgroup_size_x,
            max_compute_invocations_per_workgroup: l.max_compute_invocations_per_workgroup,
            max_compute_workgroups_per_dimension: l.max_compute_workgroups_per_dimension,
        }
    }
}

/// What the device can do, as far as sward's tiers are concerned.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Caps {
    /// Capabilities present on the device, in [`Capability::ALL`] order.
    pub present: Vec<Capability>,
    /// Limits that matter.
    pub limits: KeyLimits,
}

/// Minimum storage buffer binding the GPU-driven tiers assume (16 MiB holds the
/// per-placement descriptors of the reference 3x3 ADT window several times).
pub const MIN_STORAGE_BINDING: u32 = 16 << 20;

impl Caps {
    /// Features sward asks the device for when the adapter has them.
    pub const WANTED_FEATURES: wgpu::Features = wgpu::Features::TIMESTAMP_QUERY
        .union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
        .union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES)
        .union(wgpu::Features::MULTI_DRAW_INDIRECT_COUNT)
        .union(wgpu::Features::INDIRECT_FIRST_INSTANCE)
        .union(wgpu::Features::FLOAT32_FILTERABLE)
        .union(wgpu::Features::TEXTURE_COMPRESSION_BC)
        .union(wgpu::Features::PIPELINE_STATISTICS_QUERY);

    /// Detects capabilities from an adapter and the features/limits its device got.
    pub fn detect(
        adapter: &wgpu::Adapter,
        features: wgpu::Features,
        limits: &wgpu::Limits,
    ) -> Self {
        let down = adapter.get_downlevel_capabilities().flags;
        let color = adapter.get_texture_format_features(wgpu::TextureFormat::Rgba8UnormSrgb);
        let depth = adapter.get_texture_format_features(crate::targets::DEPTH_FORMAT);
        let r32 = adapter.get_texture_format_features(wgpu::TextureFormat::R32Float);
        use wgpu::TextureFormatFeatureFlags as F;
        let msaa4 = color.flags.sample_count_supported(4)
            && color.flags.contains(F::MULTISAMPLE_RESOLVE)
            && depth.flags.sample_count_supported(4);
        let has = |c: Capability| -> bool {
            match c {
                Capability::Compute => {
                    down.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
                        && limits.max_storage_buffers_per_shader_stage >= 4
                        && limits.max_storage_buffer_binding_size >= MIN_STORAGE_BINDING
                }
                Capability::MultiDrawIndirect => {
                    down.contains(wgpu::DownlevelFlags::INDIRECT_EXECUTION)
                }
                Capability::MultiDrawIndirectCount => {
                    features.contains(wgpu::Features::MULTI_DRAW_INDIRECT_COUNT)
                }
                Capability::IndirectFirstInstance => {
                    features.contains(wgpu::Features::INDIRECT_FIRST_INSTANCE)
                }
                Capability::TimestampQuery => features.contains(wgpu::Features::TIMESTAMP_QUERY),
                Capability::TimestampInsideEncoders => {
                    features.contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
                }
                Capability::TimestampInsidePasses => {
                    features.contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES)
                }
                Capability::Msaa4x => msaa4,
                Capability::R32FloatTexture => {
                    r32.allowed_usages
                        .contains(wgpu::TextureUsages::TEXTURE_BINDING)
                        && limits.max_sampled_textures_per_shader_stage > 0
                }
                Capability::R32FloatFilterable => {
                    features.contains(wgpu::Features::FLOAT32_FILTERABLE)
                }
                Capability::VertexStorage => {
                    down.contains(wgpu::DownlevelFlags::VERTEX_STORAGE)
                        && limits.max_storage_buffers_per_shader_stage >= 4
                }
                Capability::TextureCompressionBc => {
                    features.contains(wgpu::Features::TEXTURE_COMPRESSION_BC)
                }
                Capability::PipelineStatistics => {
                    features.contains(wgpu::Features::PIPELINE_STATISTICS_QUERY)
                }
            }
        };
        Caps {
            present: Capability::ALL.into_iter().filter(|c| has(*c)).collect(),
            limits: KeyLimits::from_limits(limits),
        }
    }

    /// Caps with every capability present (for CPU-only tests of graph logic).
    pub fn everything() -> Self {
        Caps {
            present: Capability::ALL.to_vec(),
            limits: KeyLimits::from_limits(&wgpu::Limits::default()),
        }
    }

    /// Caps with the given capabilities only.
    pub fn with(present: &[Capability]) -> Self {
        Caps {
            present: Capability::ALL
                .into_iter()
                .filter(|c| present.contains(c))
                .collect(),
            limits: KeyLimits::from_limits(&wgpu::Limits::default()),
        }
    }

    /// Whether the device has `cap`.
    pub fn has(&self, cap: Capability) -> bool {
        self.present.contains(&cap)
    }

    /// The capabilities in `needed` the device lacks.
    pub fn missing(&self, needed: &[Capability]) -> Vec<Capability> {
        needed.iter().copied().filter(|c| !self.has(*c)).collect()
    }

    /// Caps an MSAA sample count (1 or 4) to what the device supports.
    /// Counts other than 1 and 4 are rejected with a warning and run at 1.
    pub fn cap_msaa(&self, requested: u32) -> (u32, Option<String>) {
        match requested {
            1 => (1, None),
            4 if self.has(Capability::Msaa4x) => (4, None),
            4 => (
                1,
                Some(format!(
                    "4x MSAA needs {} which this device lacks; rendering at 1x",
                    Capability::Msaa4x
                )),
            ),
            n => (
                1,
                Some(format!(
                    "MSAA {n}x is not supported (use 1 or 4); rendering at 1x"
                )),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn msaa_is_capped_with_a_named_warning() {
        assert_eq!(Caps::everything().cap_msaa(4), (4, None));
        let caps = Caps::with(&[]);
        let (n, w) = caps.cap_msaa(4);
        assert_eq!(n, 1);
        assert!(w.is_some_and(|w| w.contains("msaa-4x")));
        let (n, w) = Caps::everything().cap_msaa(2);
        assert_eq!(n, 1);
        assert!(w.is_some_and(|w| w.contains("use 1 or 4")));
    }

    #[test]
    fn missing_lists_exactly_what_is_absent() {
        let caps = Caps::with(&[Capability::Compute, Capability::Msaa4x]);
        assert_eq!(
            caps.missing(&[Capability::Compute, Capability::VertexStorage]),
            vec![Capability::VertexStorage]
        );
        assert!(Caps::everything().missing(&Capability::ALL).is_empty());
    }
}
