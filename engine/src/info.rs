//! `sward info`: adapter, backend, driver, features, key limits, capabilities
//! and tier caps, as text or JSON.

use serde::Serialize;

use crate::caps::Capability;
use crate::context::{
    list_adapters, AdapterEntry, AdapterSummary, ContextError, GpuContext, GpuOptions,
};

/// Whether one tier runs on the device, and what it lacks if not.
#[derive(Debug, Clone, Serialize)]
pub struct TierSupport {
    /// Tier name.
    pub tier: String,
    /// Whether it runs uncapped.
    pub supported: bool,
    /// Missing capabilities (empty when supported).
    pub missing: Vec<Capability>,
    /// What a request for it runs instead.
    pub capped_to: String,
}

/// Everything `sward info` prints.
#[derive(Debug, Clone, Serialize)]
pub struct InfoReport {
    /// All adapters on the selected backends (index usable with `--adapter`).
    pub adapters: Vec<AdapterEntry>,
    /// The adapter/device in use.
    pub adapter: AdapterSummary,
    /// Capabilities present.
    pub capabilities: Vec<Capability>,
    /// Capabilities absent.
    pub missing_capabilities: Vec<Capability>,
    /// Grass tiers.
    pub grass_tiers: Vec<TierSupport>,
    /// Terrain tiers.
    pub terrain_tiers: Vec<TierSupport>,
    /// MSAA sample counts usable for offscreen targets.
    pub msaa: Vec<u32>,
    /// How DXT (BC) BLP textures reach this device by default: `bc` (as
    /// BC1/BC2/BC3 blocks) or `cpu-decode` (decoded to RGBA8 first).
    pub dxt_textures: String,
}

/// How DXT BLP textures reach a device by default, as a tag (`bc`,
/// `cpu-decode`) and a sentence: as BC blocks when it has
/// [`Capability::TextureCompressionBc`], decoded on the CPU otherwise.
pub fn dxt_texture_path(has_bc: bool) -> (&'static str, &'static str) {
    if has_bc {
        (
            "bc",
            "uploaded as BC1/BC2/BC3 blocks (texture-compression-bc)",
        )
    } else {
        (
            "cpu-decode",
            "decoded to RGBA8 on the CPU (the device lacks texture-compression-bc)",
        )
    }
}

impl InfoReport {
    /// Creates a context with `opts` and describes it; `tiers` says, from the
    /// device's capabilities, which grass and terrain tiers run (the engine
    /// does not know the techniques: the caller's registry does).
    pub fn gather(
        opts: &GpuOptions,
        tiers: impl Fn(&crate::Caps) -> (Vec<TierSupport>, Vec<TierSupport>),
    ) -> Result<Self, ContextError> {
        let gpu = GpuContext::new(opts)?;
        let (grass_tiers, terrain_tiers) = tiers(&gpu.caps);
        Ok(Self::describe(
            &gpu,
            list_adapters(opts),
            grass_tiers,
            terrain_tiers,
        ))
    }

    /// Describes an existing context with the tier support the caller computed.
    pub fn describe(
        gpu: &GpuContext,
        adapters: Vec<AdapterEntry>,
        grass_tiers: Vec<TierSupport>,
        terrain_tiers: Vec<TierSupport>,
    ) -> Self {
        let caps = &gpu.caps;
        InfoReport {
            adapters,
            adapter: gpu.summary.clone(),
            capabilities: caps.present.clone(),
            missing_capabilities: caps.missing(&Capability::ALL),
            grass_tiers,
            terrain_tiers,
            msaa: if caps.has(Capability::Msaa4x) {
                vec![1, 4]
            } else {
                vec![1]
            },
            dxt_textures: dxt_texture_path(caps.has(Capability::TextureCompressionBc))
                .0
                .to_owned(),
        }
    }

    /// Human-readable report.
    pub fn to_text(&self) -> String {
        let a = &self.adapter;
        let mut s = String::new();
        let mut line = |l: String| {
            s.push_str(&l);
            s.push('\n');
        };
        line(format!(
            "adapter:   {} ({}, {})",
            a.name, a.backend, a.device_type
        ));
        line(format!("driver:    {} {}", a.driver, a.driver_info));
        line(format!(
            "indirect-call validation (wgpu): {}",
            if a.validate_indirect_calls {
                "on"
            } else {
                "off"
            }
        ));
        line(format!("features:  {}", a.features.join(", ")));
        let l = &a.limits;
        line(format!(
            "limits:    storage binding {} MiB, buffer {} MiB, {} storage buffers/stage, texture 2D {}, workgroup {} invocations",
            l.max_storage_buffer_binding_size >> 20,
            l.max_buffer_size >> 20,
            l.max_storage_buffers_per_shader_stage,
            l.max_texture_dimension_2d,
            l.max_compute_invocations_per_workgroup
        ));
        let names = |c: &[Capability]| c.iter().map(|c| c.name()).collect::<Vec<_>>().join(", ");
        line(format!("capabilities: {}", names(&self.capabilities)));
        if !self.missing_capabilities.is_empty() {
            line(format!(
                "missing:      {}",
                names(&self.missing_capabilities)
            ));
        }
        line(format!("msaa:      {:?}", self.msaa));
        line(format!(
            "dxt textures: {}",
            dxt_texture_path(self.dxt_textures == "bc").1
        ));
        for (label, tiers) in [
            ("grass", &self.grass_tiers),
            ("terrain", &self.terrain_tiers),
        ] {
            line(format!("{label} tiers:"));
            for t in tiers {
                if t.supported {
                    line(format!("  {:<16} yes", t.tier));
                } else {
                    line(format!(
                        "  {:<16} no (missing {}) -> runs {}",
                        t.tier,
                        names(&t.missing),
                        t.capped_to
                    ));
                }
            }
        }
        if self.adapters.len() > 1 {
            line("adapters (--adapter INDEX or name):".to_owned());
            for e in &self.adapters {
                line(format!(
                    "  {}: {} ({}, {})",
                    e.index, e.name, e.backend, e.device_type
                ));
            }
        }
        s
    }
}
