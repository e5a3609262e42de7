//! The choices a [`GpuCull`](super::GpuCull) is built with: which
//! multi-draw call consumes the cull ([`MultiDraw`]), patch or per-instance
//! culling ([`CullMode`]), the construction options ([`GpuCullOptions`])
//! and the pool capacities of a new tier ([`Capacity`]).

use super::{DistanceLod, PatchSize};

/// Which multi-draw call consumes the cull's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MultiDraw {
    /// `multi_draw_indexed_indirect_count`: the GPU count bounds the draws.
    Count,
    /// `multi_draw_indexed_indirect`: every slot of a model's region is
    /// drawn; slots past the survivors hold zeroed args.
    Plain,
}

impl MultiDraw {
    /// The wgpu call's name (reported in the bench's per-run facts).
    pub fn name(self) -> &'static str {
        match self {
            MultiDraw::Count => "multi_draw_indexed_indirect_count",
            MultiDraw::Plain => "multi_draw_indexed_indirect",
        }
    }
}

/// What the cull tests and draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CullMode {
    /// Whole (patch, model) entries: one indirect draw per visible entry.
    Patch,
    /// Every clump of a visible entry ([`instances`](super::instances)):
    /// one indirect draw per model over the compacted visible list.
    #[default]
    Instance,
}

impl CullMode {
    /// The `cull` parameter's value.
    pub fn name(self) -> &'static str {
        match self {
            CullMode::Patch => "patch",
            CullMode::Instance => "instance",
        }
    }
}

/// Where the placements the cull draws come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Placement {
    /// Descriptors built on the CPU per resident tile and stored.
    #[default]
    Descriptors,
    /// Generated on the GPU every frame from per-MCNK records
    /// ([`generated`](super::generated)); per-instance culling only.
    Gpu,
}

impl Placement {
    /// The `placement` parameter's value.
    pub fn name(self) -> &'static str {
        match self {
            Placement::Descriptors => "descriptors",
            Placement::Gpu => "gpu",
        }
    }
}

/// Construction options of [`GpuCull`](super::GpuCull).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GpuCullOptions {
    /// Patch size.
    pub patch: PatchSize,
    /// Force a multi-draw variant (`None`: the count variant where the
    /// device has `Capability::MultiDrawIndirectCount`); patch culling only.
    pub multi_draw: Option<MultiDraw>,
    /// Patch or per-instance culling.
    pub cull: CullMode,
    /// Distance LOD (per-instance culling only).
    pub lod: DistanceLod,
    /// Hi-Z occlusion of clumps by the terrain drawn before them
    /// (per-instance culling only).
    pub occlusion: bool,
    /// With `occlusion`: run the test only while it hides clumps
    /// (`occlusion=auto`, [`gate`](super::gate)).
    pub occlusion_auto: bool,
    /// Where the placements come from.
    pub placement: Placement,
}

/// Pool capacities of a new [`GpuCull`](super::GpuCull).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    /// Descriptor pages.
    pub desc_pages: u32,
    /// Entry pages.
    pub entry_pages: u32,
    /// Tile slots (patch table blocks).
    pub slots: u32,
}
