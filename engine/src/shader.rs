//! Turning library WGSL modules into wgpu shader modules: compose the imports,
//! validate with naga (so errors are readable and never a wgpu panic), create.

use sward_wgsl::{Module, ShaderError};

/// Composes `module` with its imports, validates it and creates the wgpu
/// shader module (labelled with the module name).
pub fn create_shader(
    device: &wgpu::Device,
    module: Module,
) -> Result<wgpu::ShaderModule, ShaderError> {
    let (source, _) = sward_wgsl::compose_and_validate(module)?;
    Ok(device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(module.name),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    }))
}
