//! naga validation of WGSL source, with errors rendered against the source.

/// A shader that does not parse or validate.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ShaderError {
    /// Composing the imports failed.
    #[error(transparent)]
    Link(#[from] crate::link::LinkError),
    /// naga's WGSL front end rejected the source.
    #[error("WGSL parse error:\n{0}")]
    Parse(String),
    /// naga's validator rejected the module.
    #[error("WGSL validation error:\n{0}")]
    Invalid(String),
}

/// Parses and validates WGSL (default naga capabilities: what every wgpu device runs).
pub fn validate_source(
    source: &str,
) -> Result<(naga::Module, naga::valid::ModuleInfo), ShaderError> {
    let module = naga::front::wgsl::parse_str(source)
        .map_err(|e| ShaderError::Parse(e.emit_to_string(source)))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .map_err(|e| ShaderError::Invalid(e.emit_to_string(source)))?;
    Ok((module, info))
}
