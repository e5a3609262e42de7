//! Tests of the pyramid: level sizes, the GPU build of an MSAA target
//! against the CPU reduction, odd edges, and the sphere test.

use glam::Vec3;
use sward_engine::gpu_or_skip;

use super::*;

#[test]
fn levels_are_mips_down_to_one_texel() {
    assert_eq!(level_count([1, 1]), 1);
    assert_eq!(level_count([256, 160]), 9);
    assert_eq!(level_count(base_size([160, 100])), 7);
    assert_eq!(base_size([1, 5]), [1, 2]);
    assert_eq!(level_size([5, 3], 1), [2, 1]);
    assert_eq!(level_size([5, 3], 3), [1, 1]);
}

/// Depth of pixel `(x, y)` written by the probe below (exact in f32).
fn probe_depth(x: u32, y: u32) -> f32 {
    let mut h = x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663);
    h ^= h >> 13;
    h = h.wrapping_mul(0x5bd1_e995);
    h ^= h >> 15;
    (h & 0xffff) as f32 / 65_536.0
}

/// The GPU pyramid of a 4x MSAA depth target whose every sample holds
/// its pixel's known depth equals the CPU reduction of those depths,
/// level by level, for an even-sized target (every level-0 texel takes
/// the unrolled 2x2 path) and an odd-sized one (the last column and row
/// take the general loop).
#[test]
fn msaa_pyramid_matches_the_cpu_reduction() {
    gpu_or_skip!(gpu);
    let shader = gpu
        .device
        .create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("hiz.test.depth"),
            source: wgpu::ShaderSource::Wgsl(
                r#"
struct Out { @builtin(position) pos: vec4<f32>, }
@vertex fn vs(@builtin(vertex_index) i: u32) -> Out {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return Out(vec4<f32>(uv * 2.0 - 1.0, 0.5, 1.0));
}
struct Frag { @location(0) color: vec4<f32>, @builtin(frag_depth) depth: f32, }
@fragment fn fs(in: Out) -> Frag {
    let x = u32(in.pos.x);
    let y = u32(in.pos.y);
    var h = (x * 73856093u) ^ (y * 19349663u);
    h = h ^ (h >> 13u);
    h = h * 0x5bd1e995u;
    h = h ^ (h >> 15u);
    return Frag(vec4<f32>(0.0), f32(h & 0xffffu) / 65536.0);
}
"#
                .into(),
            ),
        });
    let pipeline = gpu
        .device
        .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("hiz.test.depth"),
            layout: None,
            vertex: wgpu::VertexState {
                module: &shader,
                entry_point: Some("vs"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some("fs"),
                compilation_options: Default::default(),
                targets: &[Some(sward_engine::targets::COLOR_FORMAT.into())],
            }),
            primitive: Default::default(),
            depth_stencil: Some(wgpu::DepthStencilState {
                format: sward_engine::targets::DEPTH_FORMAT,
                depth_write_enabled: true,
                depth_compare: wgpu::CompareFunction::Always,
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: wgpu::MultisampleState {
                count: 4,
                ..Default::default()
            },
            multiview: None,
            cache: None,
        });
    for size in [[38u32, 22], [37, 23]] {
        let mut off = crate::testkit::Offscreen::new(gpu, size, 4);
        let mut hiz = HiZ::new(&gpu.device, "hiz.test").expect("pipelines");
        hiz.ensure(&gpu.device, size);
        let (pipeline, hiz) = (&pipeline, &hiz);
        off.frame(gpu, |g, t| {
            g.add_render_pass("hiz.test.depth")
                .color(t.color, wgpu::LoadOp::Clear(wgpu::Color::BLACK), t.resolve)
                .depth(t.depth, wgpu::LoadOp::Clear(0.0), wgpu::StoreOp::Store)
                .record(move |ctx| {
                    ctx.pass.set_pipeline(pipeline);
                    ctx.pass.draw(0..3, 0..1);
                });
            hiz.record(g, t.depth, 4).expect("pyramid made");
        });
        let (_, base, count) = hiz.shape().expect("shape");
        let got = read_levels(
            &gpu.device,
            &gpu.queue,
            hiz.texture().expect("texture"),
            base,
        );
        let mut want = vec![reduce_level(&Level {
            depth: (0..size[1])
                .flat_map(|y| (0..size[0]).map(move |x| probe_depth(x, y)))
                .collect(),
            width: size[0],
            height: size[1],
        })];
        while want.len() < count as usize {
            let next = reduce_level(want.last().expect("one"));
            want.push(next);
        }
        assert_eq!(got.len(), want.len(), "{size:?}");
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{size:?} level {k}");
        }
    }
}

#[test]
fn reduction_keeps_the_farthest_including_odd_edges() {
    // 5 x 1: the last texel also takes the column an odd size leaves
    // (columns 2..=4).
    let l0 = Level {
        depth: vec![0.9, 0.8, 0.7, 0.6, 0.1],
        width: 5,
        height: 1,
    };
    let l1 = reduce_level(&l0);
    assert_eq!((l1.width, l1.height), (2, 1));
    assert_eq!(l1.depth, vec![0.8, 0.1]);
    assert_eq!(footprint(0, 2, 5), (0, 1));
    assert_eq!(footprint(1, 2, 5), (2, 4));
    assert_eq!(footprint(0, 1, 1), (0, 0));
}

/// `level0` and its reductions down to one texel across.
fn reduced_to_one(level0: Level) -> Vec<Level> {
    let mut levels = vec![level0];
    while levels.last().unwrap().width > 1 {
        let next = reduce_level(levels.last().unwrap());
        levels.push(next);
    }
    levels
}

#[test]
fn a_sphere_behind_a_near_wall_is_occluded_and_one_in_front_is_not() {
    let camera = sward_engine::Camera {
        eye: Vec3::ZERO,
        yaw_deg: 0.0,
        pitch_deg: 0.0,
        ..sward_engine::Camera::default()
    };
    let view_proj = camera.view_proj(1.0);
    // A wall filling the screen at 20 units ahead.
    let wall = (view_proj * Vec3::new(20.0, 0.0, 0.0).extend(1.0)).z
        / (view_proj * Vec3::new(20.0, 0.0, 0.0).extend(1.0)).w;
    // A 128 x 128 target: level 0 is 64 x 64.
    let px = [128, 128];
    // A sphere of `radius` at `x` units straight ahead.
    let occluded = |levels: &[Level], x: f32, radius: f32| {
        sphere_occluded(levels, px, view_proj, Vec3::new(x, 0.0, 0.0), radius)
    };
    let mut levels = reduced_to_one(Level {
        depth: vec![wall; 64 * 64],
        width: 64,
        height: 64,
    });
    assert!(occluded(&levels, 40.0, 1.0), "behind the wall");
    assert!(!occluded(&levels, 10.0, 1.0), "in front of the wall");
    // Straddling the wall: its near side is in front.
    assert!(!occluded(&levels, 20.5, 1.0), "straddling the wall");
    // A hole in the wall over the sphere's rectangle lets it through.
    for y in 28..36 {
        for x in 28..36 {
            levels[0].depth[y * 64 + x] = 0.0;
        }
    }
    let levels = reduced_to_one(levels.swap_remove(0));
    assert!(!occluded(&levels, 40.0, 0.5), "behind a hole in the wall");
    // Reaching behind the eye: visible.
    assert!(!occluded(&levels, 0.2, 1.0), "reaching behind the eye");
}
