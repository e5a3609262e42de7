//! Finds branches whose condition depends on uniform-buffer values alone.
//!
//! Why: Mesa's lavapipe (the CPU Vulkan driver CI runs on; 22.3 here)
//! "inlines uniforms". When a shader of more than about a hundred SSA
//! values has an `if` (or a loop bound, or a `switch`) computed only from
//! uniform-buffer loads at constant offsets and from constants, the driver
//! marks the pipeline inlinable; then *every* time a bind group holding a
//! uniform buffer is bound to it, it clones the shader's NIR with the
//! current values folded in and compiles a new shader from it on its queue
//! thread (`update_inline_shader_state` in `lvp_execute.c`). Mesa 22.3
//! caches none of these variants and parents each clone to the pipeline's
//! own NIR, so the memory stays until the pipeline is destroyed: a tier
//! that binds a per-model uniform group a hundred times a frame grows by
//! megabytes per frame and pays a shader compile per bind. Later Mesa
//! releases cache variants by value, which still grows with every new
//! value (a camera position). wgpu and sward's own accounting see nothing
//! of it; RSS does (`sward soak`).
//!
//! So sward's shaders do not branch on uniform-only values: they compute
//! both sides and `select` (no branch for the driver to specialise), or
//! branch on a value that also depends on per-vertex or per-fragment data.
//! [`uniform_branches`] lists the offenders of a composed module; the
//! library test runs it on every module.
//!
//! The analysis mirrors the driver's rule on naga's IR: a value is
//! *uniform* when it is computed (arithmetic, comparisons, selects,
//! conversions, calls) only from constants and loads of `var<uniform>`
//! data at constant indices, and at least one such load; function
//! arguments take the class of the call's arguments (the driver inlines
//! every call), local variables the join of everything stored into them.
//! An `if` condition, a `switch` selector or a loop's `break if` that is
//! uniform is reported. It errs towards reporting: a local stored in
//! several branches is a phi the driver would not look through.

use std::collections::{BTreeSet, HashMap};

use naga::{AddressSpace, Block, Expression, Function, Handle, Module, Statement};

/// A branch the driver would specialise on uniform values.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct UniformBranch {
    /// The entry point that reaches it.
    pub entry_point: String,
    /// The function it is in.
    pub function: String,
    /// `if condition`, `switch selector` or `loop break-if`.
    pub what: &'static str,
    /// 1-based line in the composed source (0 when naga kept no span).
    pub line: u32,
    /// That line's text, trimmed.
    pub text: String,
}

impl std::fmt::Display for UniformBranch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (from entry point {}): {} on uniform values only, line {}: `{}`",
            self.function, self.entry_point, self.what, self.line, self.text
        )
    }
}

/// Where a value comes from, ordered for joining.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Class {
    /// Constants only.
    Const,
    /// Constants and uniform-buffer loads at constant indices.
    Uniform,
    /// Anything else (inputs, storage, textures, derivatives, ...).
    Other,
}

/// Every branch of `module` (composed from `source`) whose condition is
/// uniform, one per source position, in source order.
pub fn uniform_branches(module: &Module, source: &str) -> Vec<UniformBranch> {
    let mut found = BTreeSet::new();
    for ep in &module.entry_points {
        let mut a = Analysis {
            module,
            source,
            entry_point: &ep.name,
            memo: HashMap::new(),
            found: &mut found,
        };
        let args = vec![Class::Other; ep.function.arguments.len()];
        a.function(&ep.function, &ep.name, &args);
    }
    let mut out: Vec<UniformBranch> = found.into_iter().collect();
    out.sort_by_key(|b| (b.line, b.entry_point.clone()));
    out.dedup_by_key(|b| b.line);
    out
}

struct Analysis<'m, 'f> {
    module: &'m Module,
    source: &'m str,
    entry_point: &'m str,
    /// Return class of a function called with these argument classes.
    memo: HashMap<(Handle<Function>, Vec<Class>), Class>,
    found: &'f mut BTreeSet<UniformBranch>,
}

/// One function analysed for one set of argument classes.
struct Frame<'a> {
    func: &'a Function,
    args: &'a [Class],
    locals: HashMap<Handle<naga::LocalVariable>, Class>,
    calls: HashMap<Handle<Expression>, Class>,
}

impl Frame<'_> {
    fn class(&self, module: &Module, e: Handle<Expression>) -> Class {
        let join = |hs: &[Handle<Expression>]| {
            hs.iter()
                .map(|h| self.class(module, *h))
                .max()
                .unwrap_or(Class::Const)
        };
        match &self.func.expressions[e] {
            Expression::Literal(_)
            | Expression::Constant(_)
            | Expression::Override(_)
            | Expression::ZeroValue(_) => Class::Const,
            Expression::FunctionArgument(i) => {
                self.args.get(*i as usize).copied().unwrap_or(Class::Other)
            }
            Expression::Load { pointer } => self.load(module, *pointer),
            Expression::Compose { components, .. } => join(components),
            Expression::Access { base, index } => join(&[*base, *index]),
            Expression::AccessIndex { base, .. }
            | Expression::Splat { value: base, .. }
            | Expression::Swizzle { vector: base, .. }
            | Expression::Unary { expr: base, .. }
            | Expression::Relational { argument: base, .. }
            | Expression::As { expr: base, .. } => self.class(module, *base),
            Expression::Binary { left, right, .. } => join(&[*left, *right]),
            Expression::Select {
                condition,
                accept,
                reject,
            } => join(&[*condition, *accept, *reject]),
            Expression::Math {
                arg,
                arg1,
                arg2,
                arg3,
                ..
            } => {
                let mut hs = vec![*arg];
                hs.extend([arg1, arg2, arg3].into_iter().flatten());
                join(&hs)
            }
            Expression::CallResult(_) => self.calls.get(&e).copied().unwrap_or(Class::Other),
            _ => Class::Other,
        }
    }

    /// The class of what a load through `pointer` reads.
    fn load(&self, module: &Module, pointer: Handle<Expression>) -> Class {
        let mut p = pointer;
        let mut index = Class::Const;
        loop {
            match &self.func.expressions[p] {
                Expression::AccessIndex { base, .. } => p = *base,
                Expression::Access { base, index: i } => {
                    index = index.max(self.class(module, *i));
                    p = *base;
                }
                Expression::GlobalVariable(g) => {
                    // The driver folds loads at constant offsets only.
                    let uniform = module.global_variables[*g].space == AddressSpace::Uniform;
                    return if uniform && index == Class::Const {
                        Class::Uniform
                    } else {
                        Class::Other
                    };
                }
                Expression::LocalVariable(l) => {
                    let stored = self.locals.get(l).copied().unwrap_or(Class::Const);
                    return stored.max(index);
                }
                _ => return Class::Other,
            }
        }
    }

    /// The local variable a store through `pointer` writes, if any.
    fn local_of(&self, pointer: Handle<Expression>) -> Option<Handle<naga::LocalVariable>> {
        let mut p = pointer;
        loop {
            match &self.func.expressions[p] {
                Expression::AccessIndex { base, .. } | Expression::Access { base, .. } => p = *base,
                Expression::LocalVariable(l) => return Some(*l),
                _ => return None,
            }
        }
    }
}

impl Analysis<'_, '_> {
    /// Analyses `func` called with `args`; returns the class of its result.
    fn function(&mut self, func: &Function, name: &str, args: &[Class]) -> Class {
        let mut frame = Frame {
            func,
            args,
            locals: HashMap::new(),
            calls: HashMap::new(),
        };
        for (h, local) in func.local_variables.iter() {
            let init = local
                .init
                .map_or(Class::Const, |i| frame.class(self.module, i));
            frame.locals.insert(h, init);
        }
        // Stores and calls to a fixed point: classes only rise, and there
        // are three of them, so this ends within a few passes.
        let mut ret = Class::Const;
        loop {
            let before = (frame.locals.clone(), frame.calls.clone());
            ret = self.flow(&mut frame, &func.body, ret);
            if (frame.locals.clone(), frame.calls.clone()) == before {
                break;
            }
        }
        self.report(&frame, &func.body, name);
        ret
    }

    /// One pass over `block`: joins stores into locals, analyses calls,
    /// joins returned values into `ret`.
    fn flow(&mut self, frame: &mut Frame<'_>, block: &Block, mut ret: Class) -> Class {
        for stmt in block.iter() {
            match stmt {
                Statement::Block(b) => ret = self.flow(frame, b, ret),
                Statement::If { accept, reject, .. } => {
                    ret = self.flow(frame, accept, ret);
                    ret = self.flow(frame, reject, ret);
                }
                Statement::Switch { cases, .. } => {
                    for c in cases {
                        ret = self.flow(frame, &c.body, ret);
                    }
                }
                Statement::Loop {
                    body, continuing, ..
                } => {
                    ret = self.flow(frame, body, ret);
                    ret = self.flow(frame, continuing, ret);
                }
                Statement::Store { pointer, value } => {
                    if let Some(l) = frame.local_of(*pointer) {
                        let v = frame.class(self.module, *value);
                        let slot = frame.locals.entry(l).or_insert(Class::Const);
                        *slot = (*slot).max(v);
                    }
                }
                Statement::Call {
                    function,
                    arguments,
                    result,
                } => {
                    let args: Vec<Class> = arguments
                        .iter()
                        .map(|a| frame.class(self.module, *a))
                        .collect();
                    let class = self.call(*function, args);
                    if let Some(r) = result {
                        frame.calls.insert(*r, class);
                    }
                }
                Statement::Return { value: Some(v) } => {
                    ret = ret.max(frame.class(self.module, *v));
                }
                _ => {}
            }
        }
        ret
    }

    fn call(&mut self, f: Handle<Function>, args: Vec<Class>) -> Class {
        if let Some(c) = self.memo.get(&(f, args.clone())) {
            return *c;
        }
        // A recursive call (WGSL has none) would read this provisional class.
        self.memo.insert((f, args.clone()), Class::Other);
        let func = &self.module.functions[f];
        let name = func.name.clone().unwrap_or_else(|| format!("{f:?}"));
        let class = self.function(func, &name, &args);
        self.memo.insert((f, args), class);
        class
    }

    /// Records every uniform condition of `block` (final classes).
    fn report(&mut self, frame: &Frame<'_>, block: &Block, name: &str) {
        for stmt in block.iter() {
            let mut check = |e: Handle<Expression>, what: &'static str| {
                if frame.class(self.module, e) == Class::Uniform {
                    let span = frame.func.expressions.get_span(e);
                    let line = span
                        .location(self.source)
                        .line_number
                        .min(self.source.lines().count() as u32);
                    let text = if span.is_defined() {
                        self.source
                            .lines()
                            .nth(line.saturating_sub(1) as usize)
                            .unwrap_or("")
                            .trim()
                            .to_owned()
                    } else {
                        String::new()
                    };
                    self.found.insert(UniformBranch {
                        entry_point: self.entry_point.to_owned(),
                        function: name.to_owned(),
                        what,
                        line: if span.is_defined() { line } else { 0 },
                        text,
                    });
                }
            };
            match stmt {
                Statement::If { condition, .. } => check(*condition, "if condition"),
                Statement::Switch { selector, .. } => check(*selector, "switch selector"),
                Statement::Loop {
                    break_if: Some(b), ..
                } => check(*b, "loop break-if"),
                _ => {}
            }
            match stmt {
                Statement::Block(b) => self.report(frame, b, name),
                Statement::If { accept, reject, .. } => {
                    self.report(frame, accept, name);
                    self.report(frame, reject, name);
                }
                Statement::Switch { cases, .. } => {
                    for c in cases {
                        self.report(frame, &c.body, name);
                    }
                }
                Statement::Loop {
                    body, continuing, ..
                } => {
                    self.report(frame, body, name);
                    self.report(frame, continuing, name);
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn branches(src: &str) -> Vec<UniformBranch> {
        let (module, _) = crate::validate_source(src).expect("valid test shader");
        uniform_branches(&module, src)
    }

    const HEAD: &str = "struct U { flags: u32, scale: f32, count: u32 }\n\
                        @group(0) @binding(0) var<uniform> u: U;\n\
                        @group(0) @binding(1) var<storage, read> s: array<f32>;\n";

    #[test]
    fn a_branch_on_a_uniform_flag_is_found_through_calls_and_locals() {
        let src = format!(
            "{HEAD}fn lit(flags: u32, c: vec3<f32>) -> vec3<f32> {{\n\
             var out = c;\n\
             if ((flags & 1u) == 0u) {{ out = out * 0.5; }}\n\
             return out;\n}}\n\
             @fragment fn fs(@location(0) c: vec3<f32>) -> @location(0) vec4<f32> {{\n\
             let k = u.scale * 2.0;\n\
             var n = 0.0;\n\
             if (k > 1.0) {{ n = 1.0; }}\n\
             return vec4<f32>(lit(u.flags, c), n);\n}}\n"
        );
        let found = branches(&src);
        let lines: Vec<u32> = found.iter().map(|b| b.line).collect();
        assert_eq!(lines, [6, 12], "{found:#?}");
        assert_eq!(found[0].function, "lit");
        assert!(found[0].text.contains("flags & 1u"), "{}", found[0]);
        assert_eq!(found[1].function, "fs");
    }

    #[test]
    fn a_loop_bound_from_uniforms_and_a_switch_are_found() {
        let src = format!(
            "{HEAD}@compute @workgroup_size(1) fn cs() {{\n\
             var acc = 0.0;\n\
             for (var i = 0u; i < u.count; i++) {{ acc += s[i]; }}\n\
             switch u.flags {{ case 1u: {{ acc = 1.0; }} default: {{ }} }}\n\
             _ = acc;\n}}\n"
        );
        let whats: Vec<&str> = branches(&src).iter().map(|b| b.what).collect();
        assert_eq!(whats, ["if condition", "switch selector"], "{whats:?}");
    }

    #[test]
    fn selects_and_branches_on_varying_or_storage_data_are_not() {
        let src = format!(
            "{HEAD}@fragment fn fs(@location(0) c: vec3<f32>, @location(1) d: f32) -> @location(0) vec4<f32> {{\n\
             let lit = select(c, c * 0.5, (u.flags & 1u) == 0u);\n\
             var a = 0.0;\n\
             if (d > u.scale) {{ a = 1.0; }}\n\
             if (s[u.count] > 0.0) {{ a = 2.0; }}\n\
             if (s[0] > u.scale) {{ a = 3.0; }}\n\
             return vec4<f32>(lit, a);\n}}\n"
        );
        assert_eq!(branches(&src), [], "select, varying, storage");
    }
}
