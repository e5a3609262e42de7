//! The compute pipelines of `camera-grid`'s compaction (entry points of
//! `grass_camera_grid_compact.wgsl`), the names of the passes a compacting
//! frame records ([`super::record`]), and the tier's shader errors. Built by
//! the tier ([`super::tier`]), used by its frames.

use sward_engine::bind;

use crate::error::PassError;

/// Name of the evaluation pass: every candidate evaluated, tagged and
/// counted per model.
pub const PASS_COMPACT: &str = "grass.grid.compact";
/// Name of the pass laying the models' regions out from the counts.
pub const PASS_OFFSETS: &str = "grass.grid.offsets";
/// Name of the pass writing the kept blades into their regions.
pub const PASS_SCATTER: &str = "grass.grid.scatter";
/// Name of the transfer pass copying the indirect args for readback.
pub const PASS_READBACK: &str = "grass.grid.readback";

/// The compaction's pipelines (entry points of
/// `grass_camera_grid_compact.wgsl`) and the empty groups 0 and 1.
pub struct CompactPipelines {
    pub(super) compact: wgpu::ComputePipeline,
    pub(super) offsets: wgpu::ComputePipeline,
    pub(super) scatter: wgpu::ComputePipeline,
    pub(super) empty: wgpu::BindGroup,
}

impl CompactPipelines {
    /// Builds the three pipelines over group 2's compute flavour.
    pub fn new(
        device: &wgpu::Device,
        compute_layout: &wgpu::BindGroupLayout,
    ) -> Result<Self, PassError> {
        let module = crate::error::create_shader(
            device,
            sward_wgsl::modules::GRASS_CAMERA_GRID_COMPACT,
            "grass.camera-grid",
        )?;
        // The compaction reads only group 2; groups 0 and 1 stay empty.
        let empty = bind::layout(device, "grass.grid.empty", &[]);
        let layout = bind::pipeline_layout(
            device,
            "grass.grid.compact",
            &[&empty, &empty, compute_layout],
        );
        let pipeline =
            |name, entry| bind::compute_pipeline_with(device, name, &layout, &module, entry);
        Ok(CompactPipelines {
            compact: pipeline(PASS_COMPACT, "compact"),
            offsets: pipeline(PASS_OFFSETS, "offsets"),
            scatter: pipeline(PASS_SCATTER, "scatter"),
            empty: bind::group(device, "grass.grid.empty", &empty, &[]),
        })
    }
}
