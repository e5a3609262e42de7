//! The test scene end to end: compute-written indirect args consumed by
//! multi-draw-indirect (args and pixels read back), MSAA resolve, GPU
//! timestamps, PNG output and the `sward info` report.

use sward_engine::gpu_or_skip;
use sward_engine::graph::{GraphExecutor, RenderGraph};
use sward_engine::targets::{map_read, write_png, OffscreenTarget};
use sward_engine::test_scene::{render_test_pattern, DrawIndexedArgs, SceneTarget, TestScene};
use sward_engine::Capability;

use crate::readback_buffer;

/// sRGB byte of a linear channel value.
fn srgb_byte(linear: f64) -> u8 {
    let s = if linear <= 0.0031308 {
        linear * 12.92
    } else {
        1.055 * linear.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0).round() as u8
}

fn near(a: &image::Rgba<u8>, b: [u8; 3], tol: i32) -> bool {
    (0..3).all(|i| (i32::from(a[i]) - i32::from(b[i])).abs() <= tol)
}

#[test]
fn compute_args_drive_multi_draw_indirect() {
    let gpu = gpu_or_skip!();
    let (w, h) = (192, 108);
    let target = OffscreenTarget::new(&gpu.device, w, h, 1).unwrap();
    let mut scene = TestScene::new(&gpu).unwrap();
    let camera = TestScene::default_camera();
    let aspect = w as f32 / h as f32;
    let frustum = camera.frustum(aspect);
    // Every instance must be clearly in or out, so GPU and CPU cannot disagree by rounding.
    for i in scene.instances() {
        let m = frustum.sphere_margin(
            glam::Vec3::from(i.position),
            i.scale * sward_engine::test_scene::MESH_BOUNDING_RADIUS,
        );
        assert!(
            m.abs() > 1e-3,
            "instance at {:?} sits on a frustum plane",
            i.position
        );
    }
    let expected = scene.cpu_visible_counts(&frustum);
    let total: u32 = expected.iter().sum();
    assert!(
        total > 0 && (total as usize) < scene.instances().len(),
        "culling must keep some and drop some"
    );

    let mesh_count = scene.mesh_count();
    let args_size = u64::from(mesh_count) * std::mem::size_of::<DrawIndexedArgs>() as u64;
    let readback = readback_buffer(&gpu, "test.args_readback", args_size);
    let mut exec = GraphExecutor::new(&gpu).unwrap();
    let mut g = RenderGraph::new();
    let color = g.import_texture("target.color", &target.color);
    let depth = g.import_texture("target.depth", &target.depth);
    let rb = g.import_buffer("test.args_readback", &readback);
    let st = SceneTarget {
        color,
        resolve: None,
        depth,
        samples: 1,
        aspect,
    };
    let out = scene.record(&gpu, &mut g, st, &camera).unwrap();
    g.add_transfer_pass("test.readback")
        .read(out.args)
        .write(rb)
        .record(move |ctx| {
            ctx.encoder.copy_buffer_to_buffer(
                ctx.res.buffer(out.args),
                0,
                ctx.res.buffer(rb),
                0,
                args_size,
            );
        });
    let report = exec.execute(&gpu, g).unwrap();
    assert_eq!(
        report
            .pass(TestScene::PASS_DRAW)
            .unwrap()
            .counters
            .draw_calls,
        u64::from(mesh_count)
    );

    let bytes = map_read(&gpu.device, &readback).unwrap();
    let args: &[DrawIndexedArgs] = bytemuck::cast_slice(&bytes);
    let got: Vec<u32> = args.iter().map(|a| a.instance_count).collect();
    assert_eq!(got, expected, "GPU cull counts vs CPU reference");
    assert_eq!(args[0].index_count, 36, "cube");
    assert_eq!(args[1].first_index, 36, "pyramid follows the cube");

    let img = target.read_color(&gpu.device, &gpu.queue).unwrap();
    let c = sward_engine::test_scene::CLEAR_COLOR;
    let sky = [srgb_byte(c.r), srgb_byte(c.g), srgb_byte(c.b)];
    assert!(
        near(img.get_pixel(2, 2), sky, 2),
        "top-left is sky: {:?} vs {sky:?}",
        img.get_pixel(2, 2)
    );
    // The ground (drawn by the multi-draw, its args written by the compute pass) fills the bottom.
    let bottom = img.get_pixel(w / 2, h - 3);
    assert!(
        bottom[1] > bottom[0] && bottom[1] > bottom[2],
        "bottom centre is green ground: {bottom:?}"
    );
    let drawn = img.pixels().filter(|p| !near(p, sky, 3)).count();
    assert!(drawn > (w * h / 3) as usize, "only {drawn} pixels drawn");
}

#[test]
fn msaa_resolve_matches_single_sample_with_smoothed_edges() {
    let gpu = gpu_or_skip!();
    if !sward_engine::testing::has_capabilities(&gpu, "msaa resolve", &[Capability::Msaa4x]) {
        return;
    }
    let one = render_test_pattern(&gpu, 160, 90, 1, 1).unwrap();
    let four = render_test_pattern(&gpu, 160, 90, 4, 1).unwrap();
    assert_eq!((one.samples, four.samples), (1, 4));
    let n = (160 * 90) as f64;
    let mut sum = 0.0;
    let mut differing = 0;
    for (a, b) in one.image.pixels().zip(four.image.pixels()) {
        let d: i32 = (0..3)
            .map(|i| (i32::from(a[i]) - i32::from(b[i])).abs())
            .max()
            .unwrap_or(0);
        sum += f64::from(d);
        if d > 8 {
            differing += 1;
        }
    }
    let mean = sum / n;
    assert!(
        mean < 8.0,
        "resolved image is the same scene (mean max-channel diff {mean:.2})"
    );
    assert!(
        differing > 0,
        "4x MSAA changed no edge pixel: resolve did not happen"
    );
    assert!(
        (differing as f64) < 0.25 * n,
        "{differing} pixels differ: not just edges"
    );
    let colors = |img: &image::RgbaImage| {
        img.pixels()
            .map(|p| p.0)
            .collect::<std::collections::HashSet<_>>()
            .len()
    };
    assert!(
        colors(&four.image) > colors(&one.image),
        "edge blending adds colours"
    );
}

#[test]
fn gpu_timestamps_arrive_and_are_positive() {
    let gpu = gpu_or_skip!();
    if !sward_engine::testing::has_capabilities(&gpu, "timestamps", &[Capability::TimestampQuery]) {
        return;
    }
    let shot = render_test_pattern(&gpu, 96, 64, 1, 3).unwrap();
    let times = shot.gpu.expect("flush returns the last frame's GPU times");
    assert_eq!(times.frame, shot.frame.frame);
    for name in [TestScene::PASS_CULL, TestScene::PASS_DRAW] {
        let t = times
            .pass(name)
            .unwrap_or_else(|| panic!("{name} has a GPU time"));
        assert!(t.start_ns > 0 && t.end_ns > t.start_ns, "{name}: {t:?}");
    }
    let (cull, draw) = (
        times.pass(TestScene::PASS_CULL).unwrap(),
        times.pass(TestScene::PASS_DRAW).unwrap(),
    );
    assert!(
        cull.end_ns <= draw.start_ns,
        "cull runs before draw on the GPU clock"
    );
    if gpu.caps.has(Capability::TimestampInsideEncoders) {
        assert!(
            times.pass(TestScene::PASS_UPLOAD).is_some(),
            "transfer passes are timed too"
        );
    }
    assert!(times.ms_with_prefix("test.") > 0.0);
    // Pass recording times are parts of the frame's own CPU time.
    let passes_ms: f64 = shot.frame.passes.iter().map(|p| p.cpu_ms).sum();
    assert!(
        passes_ms > 0.0 && passes_ms <= shot.frame.cpu_ms,
        "passes {passes_ms} ms vs frame {} ms",
        shot.frame.cpu_ms
    );
}

#[test]
fn shot_writes_a_png_and_info_describes_the_device() {
    let gpu = gpu_or_skip!();
    let shot = render_test_pattern(&gpu, 64, 48, 4, 1).unwrap();
    let path =
        std::env::temp_dir().join(format!("sward-engine-test-{}/shot.png", std::process::id()));
    write_png(&shot.image, &path).unwrap();
    let back = image::open(&path).unwrap().to_rgba8();
    assert_eq!(back, shot.image);
    let _ = std::fs::remove_dir_all(path.parent().unwrap_or(&path));
    assert!(shot.timing_table().contains(TestScene::PASS_DRAW));

    // The engine does not know the techniques: the caller says which run.
    let support =
        |tier: &str, missing: Vec<sward_engine::Capability>| sward_engine::info::TierSupport {
            tier: tier.to_owned(),
            supported: missing.is_empty(),
            missing,
            capped_to: "baseline-tier".to_owned(),
        };
    let info = sward_engine::info::InfoReport::describe(
        &gpu,
        Vec::new(),
        vec![support(
            "some-grass",
            vec![sward_engine::Capability::Compute],
        )],
        vec![support("some-terrain", Vec::new())],
    );
    let text = info.to_text();
    assert!(
        text.contains(&gpu.summary.name)
            && text.contains("some-grass")
            && text.contains("-> runs baseline-tier")
            && text.contains("some-terrain"),
        "{text}"
    );
    let json = serde_json::to_value(&info).unwrap();
    assert_eq!(json["adapter"]["name"], gpu.summary.name.as_str());
    assert_eq!(json["grass_tiers"].as_array().map(Vec::len), Some(1));
}

#[test]
fn work_counters_are_exact_for_one_frame_and_absent_without_the_capability() {
    let gpu = gpu_or_skip!();
    if !sward_engine::testing::has_capabilities(
        &gpu,
        "GPU work counters",
        &[Capability::PipelineStatistics],
    ) {
        return;
    }
    let work = |gpu: &sward_engine::GpuContext| {
        render_test_pattern(gpu, 192, 108, 4, 3)
            .unwrap()
            .gpu
            .and_then(|t| t.work)
    };
    let first = work(&gpu).expect("counters of the last frame");
    let second = work(&gpu).expect("counters of the last frame");
    assert_eq!(
        first, second,
        "the same frame twice gives the same counters"
    );
    let pass = |name: &str| {
        first
            .iter()
            .find(|w| w.name == name)
            .unwrap_or_else(|| panic!("no counters for {name}: {first:?}"))
            .stats
    };
    let cull = pass(TestScene::PASS_CULL);
    let draw = pass(TestScene::PASS_DRAW);
    // One invocation per lane of every dispatched workgroup of 64.
    let instances = sward_engine::test_scene::scene_instances().len() as u64;
    assert_eq!(cull.cs_invocations, instances.div_ceil(64) * 64);
    assert_eq!(cull.vs_invocations + cull.fs_invocations, 0);
    assert_eq!(draw.cs_invocations, 0);
    assert!(draw.vs_invocations > 0 && draw.clipper_invocations > 0 && draw.fs_invocations > 0);

    // The capability forced off: one warning, and the counters are absent
    // (not zero).
    let mut limited = gpu.clone();
    limited
        .caps
        .present
        .retain(|c| *c != Capability::PipelineStatistics);
    assert!(!GraphExecutor::new(&limited)
        .unwrap()
        .work_counters_enabled());
    assert_eq!(work(&limited), None);
}
