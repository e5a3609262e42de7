//! Executing graphs on the device: transient pooling, render passes on
//! transient textures, validation errors before any GPU work, wgpu errors
//! surfaced as `GraphError::Wgpu`.

use std::cell::Cell;

use sward_engine::bind::{self, Slot};
use sward_engine::gpu_or_skip;
use sward_engine::graph::{BufferDesc, GraphError, GraphExecutor, RenderGraph, TextureDesc};
use sward_engine::targets::map_read;
use sward_engine::testing::buffer_with;
use sward_engine::{Capability, Caps};

use crate::readback_buffer;

#[test]
fn transients_round_trip_and_are_pooled_across_frames() {
    let gpu = gpu_or_skip!();
    let mut exec = GraphExecutor::new(&gpu).unwrap();
    let data: Vec<u32> = (0..64).map(|i| i * 3 + 1).collect();
    let src = buffer_with(
        &gpu,
        "test.src",
        bytemuck::cast_slice(&data),
        wgpu::BufferUsages::COPY_SRC,
    );
    let size = (data.len() * 4) as u64;
    let mut created_after_first = 0;
    for frame in 0..3 {
        let dst = readback_buffer(&gpu, "test.dst", size);
        let pixel = readback_buffer(&gpu, "test.pixel", 256);
        let mut g = RenderGraph::new();
        let s = g.import_buffer("test.src", &src);
        let d = g.import_buffer("test.dst", &dst);
        let p = g.import_buffer("test.pixel", &pixel);
        let tmp = g.create_buffer(
            "test.tmp",
            BufferDesc::new(
                size,
                wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
            ),
        );
        // COPY_SRC only: RENDER_ATTACHMENT must be added by the graph.
        let tex = g.create_texture(
            "test.tex",
            TextureDesc::new(
                [4, 4],
                wgpu::TextureFormat::Rgba8Unorm,
                wgpu::TextureUsages::COPY_SRC,
            ),
        );
        g.add_transfer_pass("test.copy_in")
            .read(s)
            .write(tmp)
            .record(move |ctx| {
                ctx.encoder.copy_buffer_to_buffer(
                    ctx.res.buffer(s),
                    0,
                    ctx.res.buffer(tmp),
                    0,
                    size,
                );
            });
        let clear = wgpu::Color {
            r: 1.0,
            g: 0.5,
            b: 0.0,
            a: 1.0,
        };
        g.add_render_pass("test.clear")
            .color(tex, wgpu::LoadOp::Clear(clear), None)
            .record(|_| {});
        g.add_transfer_pass("test.copy_out")
            .read(tmp)
            .read(tex)
            .write(d)
            .write(p)
            .record(move |ctx| {
                ctx.encoder.copy_buffer_to_buffer(
                    ctx.res.buffer(tmp),
                    0,
                    ctx.res.buffer(d),
                    0,
                    size,
                );
                ctx.encoder.copy_texture_to_buffer(
                    ctx.res.texture(tex).as_image_copy(),
                    wgpu::TexelCopyBufferInfo {
                        buffer: ctx.res.buffer(p),
                        layout: wgpu::TexelCopyBufferLayout {
                            offset: 0,
                            bytes_per_row: Some(256),
                            rows_per_image: None,
                        },
                    },
                    wgpu::Extent3d {
                        width: 1,
                        height: 1,
                        depth_or_array_layers: 1,
                    },
                );
            });
        let report = exec.execute(&gpu, g).unwrap();
        assert_eq!(report.frame, frame);
        assert_eq!(
            report
                .passes
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>(),
            ["test.copy_in", "test.clear", "test.copy_out"]
        );
        let back = map_read(&gpu.device, &dst).unwrap();
        assert_eq!(bytemuck::cast_slice::<u8, u32>(&back), &data[..]);
        let px = map_read(&gpu.device, &pixel).unwrap();
        assert!(
            px[0] == 255 && (127..=128).contains(&px[1]) && px[2] == 0 && px[3] == 255,
            "cleared pixel {:?}",
            &px[..4]
        );
        if frame == 0 {
            created_after_first = exec.pool().created();
            assert_eq!(created_after_first, 2);
        }
    }
    assert_eq!(
        exec.pool().created(),
        created_after_first,
        "frames 2 and 3 reuse pooled transients"
    );
}

#[test]
fn invalid_graphs_are_rejected_before_recording() {
    let gpu = gpu_or_skip!();
    let mut exec = GraphExecutor::new(&gpu).unwrap();
    let ran = Cell::new(false);

    let mut g = RenderGraph::new();
    let a = g.create_buffer("test.a", BufferDesc::new(16, wgpu::BufferUsages::STORAGE));
    g.add_compute_pass("test.read")
        .read(a)
        .record(|_| ran.set(true));
    let err = exec.execute(&gpu, g).unwrap_err();
    assert!(
        matches!(&err, GraphError::ReadBeforeWrite { pass, resource } if pass == "test.read" && resource == "test.a"),
        "{err}"
    );

    // The same device with fewer capabilities rejects a pass that needs one.
    let mut limited = (*gpu).clone();
    limited.caps = Caps::with(&[Capability::Compute]);
    let mut g = RenderGraph::new();
    let a = g.create_buffer("test.a", BufferDesc::new(16, wgpu::BufferUsages::STORAGE));
    g.add_compute_pass("grass.cull")
        .write(a)
        .needs(Capability::MultiDrawIndirectCount)
        .record(|_| ran.set(true));
    let err = exec.execute(&limited, g).unwrap_err();
    assert!(
        matches!(
            err,
            GraphError::MissingCapability {
                capability: Capability::MultiDrawIndirectCount,
                ..
            }
        ),
        "{err}"
    );
    assert!(!ran.get(), "no pass closure runs for a rejected graph");
    assert_eq!(exec.pool().created(), 0, "nothing was allocated");
}

#[test]
fn wgpu_validation_errors_become_graph_errors() {
    let gpu = gpu_or_skip!();
    let mut exec = GraphExecutor::new(&gpu).unwrap();
    let mut g = RenderGraph::new();
    let a = g.create_buffer("test.a", BufferDesc::new(16, wgpu::BufferUsages::STORAGE));
    // Dispatch without a pipeline: wgpu rejects the command buffer.
    g.add_compute_pass("test.bad")
        .write(a)
        .record(|ctx| ctx.pass.dispatch_workgroups(1, 1, 1));
    let err = exec.execute(&gpu, g).unwrap_err();
    assert!(matches!(err, GraphError::Wgpu(_)), "{err}");
    // The executor keeps working afterwards.
    let mut g = RenderGraph::new();
    let a = g.create_buffer(
        "test.a",
        BufferDesc::new(
            16,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        ),
    );
    g.add_transfer_pass("test.ok")
        .write(a)
        .record(move |ctx| ctx.encoder.clear_buffer(ctx.res.buffer(a), 0, None));
    exec.execute(&gpu, g).unwrap();
    exec.flush(&gpu);
}

#[test]
fn gpu_times_belong_to_the_frame_that_recorded_them() {
    let gpu = gpu_or_skip!();
    if !sward_engine::testing::has_capabilities(&gpu, "GPU times", &[Capability::TimestampQuery]) {
        return;
    }
    let mut exec = GraphExecutor::new(&gpu).unwrap();
    let mut times = Vec::new();
    // More frames than the profiler keeps pending, without waiting in between.
    let frames = 10u64;
    for n in 0..frames {
        let mut g = RenderGraph::new();
        let a = g.create_buffer("test.a", BufferDesc::new(256, wgpu::BufferUsages::STORAGE));
        let name = format!("test.frame{n}");
        g.add_compute_pass(&name).write(a).record(|_| {});
        let report = exec.execute(&gpu, g).unwrap();
        assert_eq!(report.frame, n);
        // The executor's own sections and the passes are disjoint parts of
        // the frame's CPU time.
        let names: Vec<&str> = report.overhead.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["frame.setup", "frame.submit", "frame.finish"]);
        let parts: f64 = report.overhead.iter().map(|(_, ms)| ms).sum::<f64>()
            + report.passes.iter().map(|p| p.cpu_ms).sum::<f64>();
        assert!(parts <= report.cpu_ms + 1e-6, "{parts} > {}", report.cpu_ms);
        times.extend(exec.poll_gpu_times(&gpu));
    }
    times.extend(exec.flush(&gpu));
    assert!(!times.is_empty());
    assert_eq!(
        times.last().map(|t| t.frame),
        Some(frames - 1),
        "the newest frame is never dropped"
    );
    for pair in times.windows(2) {
        assert!(
            pair[0].frame < pair[1].frame,
            "frames come back in order, once"
        );
    }
    for t in &times {
        assert_eq!(t.passes.len(), 1);
        assert_eq!(
            t.passes[0].name,
            format!("test.frame{}", t.frame),
            "GPU times attributed to the wrong frame"
        );
    }
}

#[test]
fn passes_get_puffin_scopes_named_after_them() {
    let gpu = gpu_or_skip!();
    puffin::set_scopes_on(true);
    let view = puffin::GlobalFrameView::default();
    puffin::GlobalProfiler::lock().new_frame();
    let mut exec = GraphExecutor::new(&gpu).unwrap();
    let mut g = RenderGraph::new();
    let a = g.create_buffer("test.a", BufferDesc::new(16, wgpu::BufferUsages::STORAGE));
    g.add_compute_pass("test.puffin_one")
        .write(a)
        .record(|_| {});
    g.add_compute_pass("test.puffin_two").read(a).record(|_| {});
    exec.execute(&gpu, g).unwrap();
    puffin::GlobalProfiler::lock().new_frame();
    puffin::set_scopes_on(false);

    let v = view.lock();
    let frame = v.latest_frame().expect("a puffin frame");
    let Ok(unpacked) = frame.unpacked() else {
        panic!("puffin frame does not unpack")
    };
    let mut names = Vec::new();
    for stream in unpacked.thread_streams.values() {
        for scope in puffin::Reader::from_start(&stream.stream)
            .read_top_scopes()
            .unwrap()
        {
            if let Some(name) = v
                .scope_collection()
                .fetch_by_id(&scope.id)
                .and_then(|d| d.scope_name.clone())
            {
                names.push(name.to_string());
            }
        }
    }
    assert!(names.iter().any(|n| n == "test.puffin_one"), "{names:?}");
    assert!(names.iter().any(|n| n == "test.puffin_two"), "{names:?}");
}

#[test]
fn a_pass_that_reaches_an_undeclared_resource_is_rejected_by_name() {
    let gpu = gpu_or_skip!();
    let mut exec = GraphExecutor::new(&gpu).unwrap();
    let desc = BufferDesc::new(
        16,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
    );
    let mut g = RenderGraph::new();
    let declared = g.create_buffer("test.declared", desc);
    let hidden = g.create_buffer("test.hidden", desc);
    g.add_transfer_pass("test.fill")
        .write(declared)
        .record(move |ctx| {
            ctx.encoder.clear_buffer(ctx.res.buffer(declared), 0, None);
            // Not declared by this pass: the frame must be refused.
            ctx.encoder.clear_buffer(ctx.res.buffer(hidden), 0, None);
        });
    g.add_transfer_pass("test.other")
        .write(hidden)
        .record(|_| {});
    let what = "a frame with an undeclared access";
    assert_undeclared(exec.execute(&gpu, g), "test.fill", "test.hidden", what);
    // The executor stays usable: the same graph with the access declared runs.
    let mut g = RenderGraph::new();
    let declared = g.create_buffer("test.declared", desc);
    let hidden = g.create_buffer("test.hidden", desc);
    g.add_transfer_pass("test.fill")
        .write(declared)
        .write(hidden)
        .record(move |ctx| {
            ctx.encoder.clear_buffer(ctx.res.buffer(declared), 0, None);
            ctx.encoder.clear_buffer(ctx.res.buffer(hidden), 0, None);
        });
    exec.execute(&gpu, g).unwrap();
}

/// The error a frame that had to be refused was refused with; `what` names
/// that frame where it ran.
fn refused<T>(result: Result<T, GraphError>, what: &str) -> GraphError {
    match result {
        Err(e) => e,
        Ok(_) => panic!("{what} was accepted"),
    }
}

/// Asserts that `result` is the undeclared-access error of `pass` reaching
/// `resource` (see [`refused`] for `what`).
fn assert_undeclared<T>(result: Result<T, GraphError>, pass: &str, resource: &str, what: &str) {
    match refused(result, what) {
        GraphError::UndeclaredAccess {
            pass: got_pass,
            resource: got_resource,
        } => assert_eq!((got_pass.as_str(), got_resource.as_str()), (pass, resource)),
        other => panic!("unexpected error {other}"),
    }
}

/// A uniform buffer and a compute bind group over it (for the bind-group tests).
fn uniform_group(device: &wgpu::Device) -> (wgpu::Buffer, wgpu::BindGroup) {
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test.uniform"),
        size: 16,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let entries = bind::entries(wgpu::ShaderStages::COMPUTE, &[Slot::Uniform]);
    let layout = bind::layout(device, "test.uniform", &entries);
    let group = bind::group(
        device,
        "test.uniform",
        &layout,
        &[buffer.as_entire_binding()],
    );
    (buffer, group)
}

#[test]
fn a_bind_group_counts_as_reaching_what_it_binds() {
    let gpu = gpu_or_skip!();
    let mut exec = GraphExecutor::new(&gpu).unwrap();
    let (buffer, group) = uniform_group(&gpu.device);
    // The pass resolves the group but does not declare the buffer it binds.
    let mut g = RenderGraph::new();
    let uniform = g.import_buffer("test.uniform", &buffer);
    let bound = g.import_bind_group("test.group", &group, &[uniform.into()]);
    g.add_compute_pass("test.use").record(move |ctx| {
        ctx.pass.set_bind_group(0, ctx.res.bind_group(bound), &[]);
    });
    let what = "a bind group over an undeclared buffer";
    assert_undeclared(exec.execute(&gpu, g), "test.use", "test.uniform", what);
    // Declared: the same frame runs, and the group is the one imported.
    let mut g = RenderGraph::new();
    let uniform = g.import_buffer("test.uniform", &buffer);
    let bound = g.import_bind_group("test.group", &group, &[uniform.into()]);
    let same = Cell::new(false);
    let same_ref = &same;
    let group_ref = &group;
    g.add_compute_pass("test.use")
        .read(uniform)
        .record(move |ctx| {
            let resolved = ctx.res.bind_group(bound);
            same_ref.set(resolved == group_ref);
            ctx.pass.set_bind_group(0, resolved, &[]);
        });
    exec.execute(&gpu, g).unwrap();
    assert!(same.get(), "the resolved bind group is the imported one");
}

#[test]
fn handles_of_another_graph_are_refused_in_closures_and_bind_groups() {
    let gpu = gpu_or_skip!();
    let mut exec = GraphExecutor::new(&gpu).unwrap();
    let (buffer, group) = uniform_group(&gpu.device);
    let desc = BufferDesc::new(16, wgpu::BufferUsages::COPY_DST);
    // A real handle of another graph, past the end of this graph's buffers:
    // resolving it in a closure is an error naming the pass, not a panic.
    let mut other = RenderGraph::new();
    let _ = other.create_buffer("other.a", desc);
    let _ = other.create_buffer("other.b", desc);
    let foreign = other.create_buffer("other.c", desc);
    let mut g = RenderGraph::new();
    let own = g.create_buffer("test.own", desc);
    g.add_transfer_pass("test.fill")
        .write(own)
        .record(move |ctx| {
            ctx.encoder.clear_buffer(ctx.res.buffer(own), 0, None);
            ctx.encoder.clear_buffer(ctx.res.buffer(foreign), 0, None);
        });
    match refused(
        exec.execute(&gpu, g),
        "a frame that used another graph's handle",
    ) {
        GraphError::UnknownResource { pass } => assert_eq!(pass, "test.fill"),
        other => panic!("unexpected error {other}"),
    }
    // A bind group imported over another graph's handle fails validation.
    let mut g = RenderGraph::new();
    let _ = g.import_buffer("test.uniform", &buffer);
    let _ = g.import_bind_group("test.group", &group, &[foreign.into()]);
    match refused(
        exec.execute(&gpu, g),
        "a bind group over another graph's handle",
    ) {
        GraphError::ForeignBinding { group } => assert_eq!(group, "test.group"),
        other => panic!("unexpected error {other}"),
    }
    // The executor stays usable.
    let mut g = RenderGraph::new();
    let own = g.create_buffer("test.own", desc);
    g.add_transfer_pass("test.fill")
        .write(own)
        .record(move |ctx| ctx.encoder.clear_buffer(ctx.res.buffer(own), 0, None));
    exec.execute(&gpu, g).unwrap();
}
