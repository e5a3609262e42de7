//! Errors of the rendering techniques: one enum for every pass module, each
//! variant naming the technique and the input it rejected.

/// Why a technique could not be built or could not record its passes.
#[derive(Debug, thiserror::Error)]
pub enum PassError {
    /// A composed shader failed to link or validate.
    #[error("shader for `{technique}`: {source}")]
    Shader {
        /// The technique (pass name prefix), e.g. `terrain.static-chunks`.
        technique: &'static str,
        /// What naga or the linker said.
        source: sward_wgsl::ShaderError,
    },
    /// The world has more MCNKs than the technique's GPU storage can hold.
    #[error("{technique}: {what} needs {needed} but the device allows {limit}")]
    DeviceLimit {
        /// The technique.
        technique: &'static str,
        /// Which resource hit the limit.
        what: String,
        /// How much was needed.
        needed: u64,
        /// The device limit.
        limit: u64,
    },
    /// Input world data the technique cannot use (names the MCNK and the field).
    #[error("{technique}: invalid input {what}: {reason}")]
    InvalidInput {
        /// The technique.
        technique: &'static str,
        /// Which object (e.g. `MCNK (512, 771)`).
        what: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A parameter asks for something the device lacks.
    #[error("{technique}: {what} needs `{capability}`, which this device lacks")]
    MissingCapability {
        /// The technique.
        technique: &'static str,
        /// What asked for it (e.g. `multi-draw=count`).
        what: String,
        /// The missing capability.
        capability: sward_engine::Capability,
    },
    /// Parameters that cannot be used together.
    #[error("{technique}: {reason}")]
    InvalidParams {
        /// The technique.
        technique: &'static str,
        /// Which parameters conflict and why.
        reason: String,
    },
}

impl PassError {
    /// A [`PassError::Shader`] of `technique`, for `map_err`.
    pub fn shader(technique: &'static str) -> impl Fn(sward_wgsl::ShaderError) -> PassError {
        move |source| PassError::Shader { technique, source }
    }
}

/// `technique`'s shader `module` composed, validated and created on
/// `device`; a failure is a [`PassError::Shader`] naming the technique.
pub fn create_shader(
    device: &wgpu::Device,
    module: sward_wgsl::Module,
    technique: &'static str,
) -> Result<wgpu::ShaderModule, PassError> {
    sward_engine::shader::create_shader(device, module).map_err(PassError::shader(technique))
}
