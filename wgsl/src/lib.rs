//! sward's WGSL shaders: the module library ([`modules`]), the import linker
//! ([`link`]), naga validation ([`validate`]), the Rust/WGSL struct layout
//! guard ([`layout`], [`check_layout!`]), the check that no shader branches
//! on uniform values alone ([`uniform_branches`]) and CPU mirrors of shared
//! snippets ([`cpu`]).
//!
//! A shader file pulls shared snippets in with `//! import NAME` lines; every
//! file starts with a comment naming its Rust mirror.

pub mod cpu;
pub mod layout;
pub mod link;
pub mod modules;
pub mod uniform_branches;
pub mod validate;

pub use layout::{check_layout, struct_layout, LayoutError, StructLayout};
pub use link::LinkError;
pub use uniform_branches::{uniform_branches, UniformBranch};
pub use validate::{validate_source, ShaderError};

/// One WGSL file of the library.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Module {
    /// Module name (the file stem, and the name used by `//! import`).
    pub name: &'static str,
    /// WGSL source, import lines included.
    pub source: &'static str,
}

/// Composes `module` with its imports from the library [`modules::ALL`].
pub fn compose(module: Module) -> Result<String, LinkError> {
    link::compose_with(module, modules::ALL)
}

/// Composes and validates `module`, returning the naga module (for layout checks).
pub fn compose_and_validate(module: Module) -> Result<(String, naga::Module), ShaderError> {
    let source = compose(module)?;
    let (naga_module, _) = validate_source(&source)?;
    Ok((source, naga_module))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_library_module_composes_and_validates() {
        let mut failures = Vec::new();
        for m in modules::ALL {
            if let Err(e) = compose_and_validate(*m) {
                failures.push(format!("{}: {e}", m.name));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
        // Every shader file is registered (and so validated above): a file
        // added without a registry line would escape this test.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .expect("wgsl/shaders is readable")
            .filter_map(|e| {
                let name = e.ok()?.file_name().into_string().ok()?;
                name.strip_suffix(".wgsl").map(str::to_owned)
            })
            .collect();
        on_disk.sort();
        let mut registered: Vec<String> = modules::ALL.iter().map(|m| m.name.to_owned()).collect();
        registered.sort();
        assert_eq!(on_disk, registered, "wgsl/shaders and modules::ALL differ");
    }

    #[test]
    fn every_module_names_its_rust_mirror_first() {
        for m in modules::ALL {
            let first = m.source.lines().next().unwrap_or("");
            assert!(
                first.starts_with("// Rust mirror:"),
                "{}.wgsl starts with `{first}`",
                m.name
            );
        }
    }

    /// See [`uniform_branches`] for why: lavapipe compiles and keeps a new
    /// shader variant per bind of a uniform group to such a pipeline.
    #[test]
    fn no_shader_branches_on_uniform_values_alone() {
        let mut found = Vec::new();
        for m in modules::ALL {
            let Ok((source, module)) = compose_and_validate(*m) else {
                continue; // reported by every_library_module_composes_and_validates
            };
            for b in uniform_branches(&module, &source) {
                found.push(format!("{}.wgsl (composed): {b}", m.name));
            }
        }
        assert!(
            found.is_empty(),
            "branches on uniform values alone (compute both sides and `select`, \
             see sward_wgsl::uniform_branches):\n{}",
            found.join("\n")
        );
    }

    #[test]
    fn module_names_are_unique() {
        let names: std::collections::HashSet<_> = modules::ALL.iter().map(|m| m.name).collect();
        assert_eq!(names.len(), modules::ALL.len());
    }

    #[test]
    fn broken_shader_fails_validation() {
        // Parses, but returns a vec3 from a function declared to return f32.
        let type_error = "fn f() -> f32 { return vec3<f32>(1.0); }";
        assert!(matches!(
            validate_source(type_error),
            Err(ShaderError::Parse(_) | ShaderError::Invalid(_))
        ));
        // Valid syntax and types, but writes to a read-only storage buffer.
        let invalid = "@group(0) @binding(0) var<storage, read> b: array<u32>;\n\
                       @compute @workgroup_size(1) fn main() { b[0] = 1u; }";
        let err = validate_source(invalid).unwrap_err().to_string();
        assert!(!err.is_empty());
        // Composing a broken module through the linker fails too.
        let broken = Module {
            name: "broken",
            source: "//! import frustum\nfn g() -> u32 { return frustum_sphere_visible(); }\n",
        };
        let src = link::compose_with(broken, &[broken, modules::FRUSTUM]).unwrap();
        assert!(validate_source(&src).is_err());
    }
}
