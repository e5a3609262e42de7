//! CPU-only tests of graph declaration and validation (no device needed).

use super::*;

fn buf(g: &mut RenderGraph<'_>, name: &str) -> BufferId {
    g.create_buffer(name, BufferDesc::new(64, wgpu::BufferUsages::STORAGE))
}

#[test]
fn read_after_write_is_accepted() {
    let mut g = RenderGraph::new();
    let a = buf(&mut g, "test.a");
    g.add_compute_pass("test.write").write(a).record(|_| {});
    g.add_compute_pass("test.read").read(a).record(|_| {});
    assert_eq!(g.pass_names(), ["test.write", "test.read"]);
    g.validate(&Caps::everything()).unwrap();
}

#[test]
fn read_before_write_is_rejected_with_names() {
    let mut g = RenderGraph::new();
    let a = buf(&mut g, "test.a");
    g.add_compute_pass("test.read").read(a).record(|_| {});
    g.add_compute_pass("test.write").write(a).record(|_| {});
    let err = g.validate(&Caps::everything()).unwrap_err();
    match &err {
        GraphError::ReadBeforeWrite { pass, resource } => {
            assert_eq!((pass.as_str(), resource.as_str()), ("test.read", "test.a"));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.to_string().contains("test.a"));
}

#[test]
fn render_attachment_load_is_a_read_and_clear_is_a_write() {
    let desc = TextureDesc::new(
        [4, 4],
        wgpu::TextureFormat::Rgba8UnormSrgb,
        wgpu::TextureUsages::empty(),
    );
    let mut g = RenderGraph::new();
    let t = g.create_texture("test.color", desc);
    g.add_render_pass("test.load")
        .color(t, wgpu::LoadOp::Load, None)
        .record(|_| {});
    assert!(matches!(
        g.validate(&Caps::everything()),
        Err(GraphError::ReadBeforeWrite { .. })
    ));

    let mut g = RenderGraph::new();
    let t = g.create_texture("test.color", desc);
    g.add_render_pass("test.clear")
        .color(t, wgpu::LoadOp::Clear(wgpu::Color::BLACK), None)
        .record(|_| {});
    g.add_render_pass("test.load")
        .color(t, wgpu::LoadOp::Load, None)
        .record(|_| {});
    g.validate(&Caps::everything()).unwrap();
    assert!(g.textures[0]
        .extra_usage
        .contains(wgpu::TextureUsages::RENDER_ATTACHMENT));
}

#[test]
fn missing_capability_is_rejected() {
    let mut g = RenderGraph::new();
    let a = buf(&mut g, "test.a");
    g.add_compute_pass("grass.cull")
        .write(a)
        .needs(Capability::MultiDrawIndirectCount)
        .record(|_| {});
    g.validate(&Caps::everything()).unwrap();
    let caps = Caps::with(&[Capability::Compute]);
    match g.validate(&caps) {
        Err(GraphError::MissingCapability { pass, capability }) => {
            assert_eq!(pass, "grass.cull");
            assert_eq!(capability, Capability::MultiDrawIndirectCount);
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn duplicate_names_and_foreign_handles_are_rejected() {
    let mut g = RenderGraph::new();
    let _ = buf(&mut g, "test.a");
    let _ = buf(&mut g, "test.a");
    assert!(
        matches!(g.validate(&Caps::everything()), Err(GraphError::DuplicateName(n)) if n == "test.a")
    );

    // A real handle of another graph whose index also exists in this one:
    // only the graph identity tells them apart.
    let mut other = RenderGraph::new();
    let foreign = buf(&mut other, "x.0");
    let mut g = RenderGraph::new();
    let own = buf(&mut g, "test.own");
    g.add_compute_pass("test.p")
        .write(own)
        .write(foreign)
        .record(|_| {});
    assert_eq!(g.resource_name(own.into()), Some("test.own"));
    assert_eq!(g.resource_name(foreign.into()), None);
    assert!(matches!(
        g.validate(&Caps::everything()),
        Err(GraphError::UnknownResource { pass }) if pass == "test.p"
    ));
}

#[test]
fn closures_may_borrow_technique_state() {
    struct Technique {
        calls: u32,
    }
    impl Technique {
        fn record<'a>(&'a mut self, g: &mut RenderGraph<'a>, input: BufferId) -> BufferId {
            let out = buf(g, "tech.out");
            g.add_compute_pass("tech.run")
                .read(input)
                .write(out)
                .record(move |_| self.calls += 1);
            out
        }
    }
    let mut tech = Technique { calls: 0 };
    let mut g = RenderGraph::new();
    let input = buf(&mut g, "tech.in");
    g.add_transfer_pass("tech.upload")
        .write(input)
        .record(|_| {});
    let out = tech.record(&mut g, input);
    assert_eq!(g.resource_name(out.into()), Some("tech.out"));
    g.validate(&Caps::everything()).unwrap();
    drop(g);
    assert_eq!(tech.calls, 0, "closures only run when executed");
}

#[test]
fn published_textures_are_found_by_key_and_replaced() {
    let desc = TextureDesc::new(
        [4, 4],
        wgpu::TextureFormat::R32Float,
        wgpu::TextureUsages::empty(),
    );
    let mut g = RenderGraph::new();
    let a = g.create_texture("test.a", desc);
    let b = g.create_texture("test.b", desc);
    assert_eq!(g.published_texture("test.pyramid"), None);
    g.publish_texture("test.pyramid", a);
    g.publish_texture("test.other", b);
    assert_eq!(g.published_texture("test.pyramid"), Some(a));
    g.publish_texture("test.pyramid", b);
    assert_eq!(g.published_texture("test.pyramid"), Some(b));
    assert_eq!(g.published_texture("test.other"), Some(b));
    // A transient texture has no wgpu texture before execution, and a
    // handle of another graph is nobody's here.
    assert!(g.imported_texture(a).is_none());
    let mut other = RenderGraph::new();
    let foreign = other.create_texture("test.a", desc);
    assert!(g.imported_texture(foreign).is_none());
}
