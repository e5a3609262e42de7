//! Struct layout guard: compares a Rust struct's size and field offsets with
//! the layout naga reflects for the WGSL struct of the same role.
//!
//! Use [`check_layout!`](crate::check_layout) (or, for the structs of one
//! library module together, [`assert_layouts!`](crate::assert_layouts)) in a
//! test for every struct shared with WGSL, so a change on either side fails
//! the build's tests instead of corrupting GPU data.

/// Size and member offsets of a WGSL struct as naga lays it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructLayout {
    /// WGSL struct name.
    pub name: String,
    /// Size in bytes (array stride rounding included).
    pub size: u32,
    /// Members as (name, byte offset), in declaration order.
    pub members: Vec<(String, u32)>,
}

/// A layout that could not be reflected or does not match.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// No struct of that name in the module.
    #[error("no WGSL struct named `{0}`")]
    NoStruct(String),
    /// naga could not lay the module's types out.
    #[error("naga layouter: {0}")]
    Layouter(String),
    /// Sizes or offsets differ.
    #[error("layout of `{name}` differs from its Rust mirror:\n{}", problems.join("\n"))]
    Mismatch {
        /// WGSL struct name.
        name: String,
        /// One line per difference.
        problems: Vec<String>,
    },
}

/// Reflects the layout of the WGSL struct `name` in `module`.
pub fn struct_layout(module: &naga::Module, name: &str) -> Result<StructLayout, LayoutError> {
    let mut layouter = naga::proc::Layouter::default();
    layouter
        .update(module.to_ctx())
        .map_err(|e| LayoutError::Layouter(e.to_string()))?;
    let (handle, ty) = module
        .types
        .iter()
        .find(|(_, t)| {
            t.name.as_deref() == Some(name) && matches!(t.inner, naga::TypeInner::Struct { .. })
        })
        .ok_or_else(|| LayoutError::NoStruct(name.to_owned()))?;
    let naga::TypeInner::Struct { members, .. } = &ty.inner else {
        return Err(LayoutError::NoStruct(name.to_owned()));
    };
    Ok(StructLayout {
        name: name.to_owned(),
        size: layouter[handle].size,
        members: members
            .iter()
            .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
            .collect(),
    })
}

/// Compares a Rust struct (its `size_of` and `(field, offset_of)` list) with the
/// WGSL struct `wgsl_name`. Every WGSL member must be listed on the Rust side
/// under the same name, and every listed field must exist in WGSL.
pub fn check_layout(
    module: &naga::Module,
    wgsl_name: &str,
    rust_size: usize,
    rust_fields: &[(&str, usize)],
) -> Result<(), LayoutError> {
    let layout = struct_layout(module, wgsl_name)?;
    let mut problems = Vec::new();
    if layout.size as usize != rust_size {
        problems.push(format!(
            "size: WGSL {} bytes, Rust {} bytes",
            layout.size, rust_size
        ));
    }
    for (name, offset) in &layout.members {
        match rust_fields.iter().find(|(n, _)| n == name) {
            Some((_, rust)) if *rust == *offset as usize => {}
            Some((_, rust)) => problems.push(format!(
                "field `{name}`: WGSL offset {offset}, Rust offset {rust}"
            )),
            None => problems.push(format!(
                "field `{name}` (WGSL offset {offset}) has no Rust counterpart"
            )),
        }
    }
    for (name, rust) in rust_fields {
        if !layout.members.iter().any(|(n, _)| n == name) {
            problems.push(format!(
                "Rust field `{name}` (offset {rust}) is not in WGSL"
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(LayoutError::Mismatch {
            name: wgsl_name.to_owned(),
            problems,
        })
    }
}

/// `check_layout!(module, "WgslName", RustType { field_a, field_b })` compares
/// `RustType`'s size and the offsets of the listed fields with naga's layout of
/// `WgslName`; evaluates to `Result<(), LayoutError>`.
#[macro_export]
macro_rules! check_layout {
    ($module:expr, $wgsl:expr, $ty:ty { $($field:ident),* $(,)? }) => {
        $crate::layout::check_layout(
            $module,
            $wgsl,
            ::core::mem::size_of::<$ty>(),
            &[$((stringify!($field), ::core::mem::offset_of!($ty, $field))),*],
        )
    };
}

/// `assert_layouts!(modules::NAME, "WgslA" => RustA { a, b }, "WgslB" =>
/// RustB { c })` composes and validates the library module `NAME`, then
/// compares every listed Rust struct with its WGSL struct as
/// [`check_layout!`](crate::check_layout) does. For tests: it panics with
/// every mismatch at once (or the composition error), naming the shader file.
#[macro_export]
macro_rules! assert_layouts {
    ($module:expr, $($wgsl:literal => $ty:ty { $($field:ident),* $(,)? }),+ $(,)?) => {{
        let module: $crate::Module = $module;
        let (_, naga) = $crate::compose_and_validate(module)
            .unwrap_or_else(|e| panic!("{}.wgsl: {e}", module.name));
        let problems: ::std::vec::Vec<::std::string::String> = [
            $($crate::check_layout!(&naga, $wgsl, $ty { $($field),* })),+
        ]
        .into_iter()
        .filter_map(|checked| checked.err().map(|e| e.to_string()))
        .collect();
        assert!(
            problems.is_empty(),
            "{}.wgsl: {}",
            module.name,
            problems.join("\n")
        );
    }};
}

#[cfg(test)]
mod tests {
    use crate::validate::validate_source;

    const SRC: &str = "struct Probe { a: vec3<f32>, b: f32, c: vec2<u32>, }\n\
                       @group(0) @binding(0) var<storage> p: array<Probe>;\n";

    #[repr(C)]
    struct Good {
        a: [f32; 3],
        b: f32,
        c: [u32; 2],
        _pad: [u32; 2],
    }

    #[repr(C)]
    struct Bad {
        a: [f32; 3],
        c: [u32; 2],
        b: f32,
    }

    #[test]
    fn matching_struct_passes() {
        let (module, _) = validate_source(SRC).unwrap();
        let layout = crate::layout::struct_layout(&module, "Probe").unwrap();
        assert_eq!(layout.size, 32);
        crate::check_layout!(&module, "Probe", Good { a, b, c }).unwrap();
    }

    #[test]
    fn mismatched_struct_fails_and_says_where() {
        let (module, _) = validate_source(SRC).unwrap();
        let err = crate::check_layout!(&module, "Probe", Bad { a, b, c })
            .unwrap_err()
            .to_string();
        assert!(err.contains("size: WGSL 32 bytes, Rust 24 bytes"), "{err}");
        assert!(
            err.contains("field `b`: WGSL offset 12, Rust offset 20"),
            "{err}"
        );
        assert!(
            err.contains("field `c`: WGSL offset 16, Rust offset 12"),
            "{err}"
        );
        let missing = crate::check_layout!(&module, "Probe", Good { a, b })
            .unwrap_err()
            .to_string();
        assert!(
            missing.contains("`c` (WGSL offset 16) has no Rust counterpart"),
            "{missing}"
        );
        assert!(crate::check_layout!(&module, "Nope", Good { a }).is_err());
    }

    /// [`SRC`] as a library module: `assert_layouts!` composes it itself.
    const PROBE: crate::Module = crate::Module {
        name: "probe",
        source: SRC,
    };

    #[test]
    fn assert_layouts_passes_matching_structs() {
        crate::assert_layouts!(PROBE, "Probe" => Good { a, b, c });
    }

    #[test]
    #[should_panic(expected = "probe.wgsl: layout of `Probe` differs")]
    fn assert_layouts_names_the_file_and_the_struct() {
        crate::assert_layouts!(PROBE, "Probe" => Good { a, b, c }, "Probe" => Bad { a, b, c });
    }

    #[test]
    #[should_panic(expected = "probe.wgsl: no WGSL struct named `Nope`")]
    fn assert_layouts_reports_a_missing_struct() {
        crate::assert_layouts!(PROBE, "Nope" => Good { a });
    }
}
