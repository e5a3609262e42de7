//! The import linker: a line `//! import NAME` (or `//! import a, b`) pulls the
//! module NAME in before the importing module, once per composed shader,
//! recursively. Unknown modules and import cycles are errors that name the
//! module and line.

use std::collections::HashSet;

use crate::Module;

/// Prefix of an import line (after leading whitespace).
pub const IMPORT_PREFIX: &str = "//! import ";

/// Why composing a shader failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// An import names no module of the library.
    #[error("{module}.wgsl line {line}: imports unknown module `{import}`")]
    UnknownModule {
        /// The importing module.
        module: String,
        /// 1-based line of the import.
        line: usize,
        /// The name that was not found.
        import: String,
    },
    /// Modules import each other in a cycle.
    #[error("import cycle: {}", chain.join(" -> "))]
    Cycle {
        /// The cycle, starting and ending with the same module.
        chain: Vec<String>,
    },
    /// An import line with no module name.
    #[error("{module}.wgsl line {line}: empty import")]
    EmptyImport {
        /// The importing module.
        module: String,
        /// 1-based line.
        line: usize,
    },
}

/// The module names imported by `source`, with their 1-based line numbers.
pub fn imports_of(source: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in source.lines().enumerate() {
        if let Some(rest) = line.trim_start().strip_prefix(IMPORT_PREFIX.trim_end()) {
            if rest.is_empty() || rest.starts_with(char::is_whitespace) {
                for name in rest.split(',') {
                    out.push((i + 1, name.trim().to_owned()));
                }
            }
        }
    }
    out
}

fn is_import_line(line: &str) -> bool {
    line.trim_start()
        .strip_prefix(IMPORT_PREFIX.trim_end())
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
}

/// Composes `root` and its transitive imports from `library` into one WGSL
/// source: dependencies first, each module once, import lines removed.
pub fn compose_with(root: Module, library: &[Module]) -> Result<String, LinkError> {
    let mut out = String::new();
    let mut done = HashSet::new();
    let mut stack = Vec::new();
    visit(root, library, &mut stack, &mut done, &mut out)?;
    Ok(out)
}

fn visit(
    module: Module,
    library: &[Module],
    stack: &mut Vec<&'static str>,
    done: &mut HashSet<&'static str>,
    out: &mut String,
) -> Result<(), LinkError> {
    if done.contains(module.name) {
        return Ok(());
    }
    if let Some(pos) = stack.iter().position(|m| *m == module.name) {
        let mut chain: Vec<String> = stack[pos..].iter().map(|s| (*s).to_owned()).collect();
        chain.push(module.name.to_owned());
        return Err(LinkError::Cycle { chain });
    }
    stack.push(module.name);
    for (line, name) in imports_of(module.source) {
        if name.is_empty() {
            return Err(LinkError::EmptyImport {
                module: module.name.to_owned(),
                line,
            });
        }
        let dep =
            library
                .iter()
                .find(|m| m.name == name)
                .ok_or_else(|| LinkError::UnknownModule {
                    module: module.name.to_owned(),
                    line,
                    import: name.clone(),
                })?;
        visit(*dep, library, stack, done, out)?;
    }
    stack.pop();
    out.push_str(&format!("// ---- module {} ----\n", module.name));
    for line in module.source.lines() {
        // Keep line count stable inside a module: imports become blank lines.
        if !is_import_line(line) {
            out.push_str(line);
        }
        out.push('\n');
    }
    done.insert(module.name);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Module = Module {
        name: "a",
        source: "//! import b, c\nfn a() -> u32 { return b() + c(); }\n",
    };
    const B: Module = Module {
        name: "b",
        source: "//! import c\nfn b() -> u32 { return c(); }\n",
    };
    const C: Module = Module {
        name: "c",
        source: "fn c() -> u32 { return 1u; }\n",
    };

    #[test]
    fn dependencies_come_first_and_once() {
        let out = compose_with(A, &[A, B, C]).unwrap();
        let pos = |s: &str| out.find(s).unwrap();
        assert!(pos("fn c()") < pos("fn b()") && pos("fn b()") < pos("fn a()"));
        assert_eq!(out.matches("fn c()").count(), 1);
        assert!(!out.contains("//! import"));
        crate::validate::validate_source(&out).unwrap();
    }

    #[test]
    fn unknown_module_names_the_line() {
        let bad = Module {
            name: "bad",
            source: "fn x() {}\n//! import nowhere\n",
        };
        let err = compose_with(bad, &[bad]).unwrap_err();
        assert_eq!(
            err,
            LinkError::UnknownModule {
                module: "bad".into(),
                line: 2,
                import: "nowhere".into()
            }
        );
        assert!(err.to_string().contains("bad.wgsl line 2"));
    }

    #[test]
    fn cycles_are_reported_with_their_chain() {
        let x = Module {
            name: "x",
            source: "//! import y\n",
        };
        let y = Module {
            name: "y",
            source: "//! import z\n",
        };
        let z = Module {
            name: "z",
            source: "//! import x\n",
        };
        let err = compose_with(x, &[x, y, z]).unwrap_err();
        assert_eq!(
            err,
            LinkError::Cycle {
                chain: vec!["x".into(), "y".into(), "z".into(), "x".into()]
            }
        );
    }

    #[test]
    fn lookalike_lines_are_not_imports() {
        assert!(imports_of("//! imports are great\n// import x\n").is_empty());
        assert_eq!(
            imports_of("  //! import hash\n"),
            vec![(1, "hash".to_owned())]
        );
    }
}
