//! WGSL/CPU parity through compute probes (frustum tests, hashes) and the
//! layout guards of every Rust struct shared with WGSL.

use glam::{Vec3, Vec4};
use sward_engine::camera::{Camera, Frustum};
use sward_engine::gpu_or_skip;
use sward_engine::test_scene::{DrawIndexedArgs, SceneInstance, SceneUniforms};
use sward_engine::testing::{buffer_with, probe_output, run_probe};
use sward_wgsl::cpu::hash::{hash2, hash_unit, pcg_hash};
use sward_wgsl::{check_layout, compose_and_validate, modules};

/// Deterministic xorshift for test inputs.
struct Rng(u32);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }
    fn unit(&mut self) -> f32 {
        hash_unit(self.next())
    }
}

/// Runs a probe: binds `uniform` (if any) at 0 and the given storage buffers in
/// order, dispatches one invocation per output element, returns the output.
fn probe(
    gpu: &sward_engine::GpuContext,
    module: sward_wgsl::Module,
    inputs: &[wgpu::Buffer],
    out_words: usize,
) -> Vec<u32> {
    let shader = sward_engine::shader::create_shader(&gpu.device, module).unwrap();
    let pipeline =
        sward_engine::bind::compute_pipeline_auto(&gpu.device, module.name, &shader, "main");
    let out = probe_output(gpu, "probe.out", (out_words * 4) as u64);
    let buffers: Vec<&wgpu::Buffer> = inputs.iter().chain([&out]).collect();
    let bind = sward_engine::bind::buffer_group(
        &gpu.device,
        "probe",
        &pipeline.get_bind_group_layout(0),
        &buffers,
    );
    let workgroups = (out_words as u32).div_ceil(64);
    bytemuck::cast_slice(&run_probe(gpu, &pipeline, &[&bind], workgroups, &out)).to_vec()
}

#[test]
fn frustum_snippet_matches_cpu_frustum() {
    let gpu = gpu_or_skip!();
    let cameras = [
        Camera {
            eye: Vec3::new(3.0, -7.0, 12.0),
            yaw_deg: 30.0,
            pitch_deg: -20.0,
            fov_y_deg: 60.0,
            near: 0.3,
            far: 120.0,
        },
        Camera {
            eye: Vec3::new(-50.0, 10.0, 80.0),
            yaw_deg: 200.0,
            pitch_deg: -75.0,
            fov_y_deg: 40.0,
            near: 1.0,
            far: 300.0,
        },
    ];
    let n = 2048;
    for cam in cameras {
        let f = cam.frustum(1.6);
        let mut rng = Rng(0x1234_5678);
        let mut spheres = Vec::with_capacity(n);
        let mut boxes = Vec::with_capacity(2 * n);
        for _ in 0..n {
            // Points spread around the view cone (some behind, some past far) for a mix of in and out.
            let (fwd, right) = (cam.forward(), cam.forward().cross(Vec3::Z).normalize());
            let up = right.cross(fwd);
            let d = (rng.unit() * 1.3 - 0.1) * cam.far;
            let c = cam.eye
                + fwd * d
                + (right * (rng.unit() - 0.5) + up * (rng.unit() - 0.5)) * 2.4 * d.abs();
            spheres.push(c.extend(rng.unit() * 8.0));
            let half = Vec3::new(rng.unit(), rng.unit(), rng.unit()) * 8.0;
            boxes.push((c - half).extend(0.0));
            boxes.push((c + half).extend(0.0));
        }
        let uniform = buffer_with(
            &gpu,
            "probe.frustum",
            bytemuck::bytes_of(&f),
            wgpu::BufferUsages::UNIFORM,
        );
        let s = buffer_with(
            &gpu,
            "probe.spheres",
            bytemuck::cast_slice(&spheres),
            wgpu::BufferUsages::STORAGE,
        );
        let b = buffer_with(
            &gpu,
            "probe.boxes",
            bytemuck::cast_slice(&boxes),
            wgpu::BufferUsages::STORAGE,
        );
        let gpu_out = probe(&gpu, modules::PROBE_FRUSTUM, &[uniform, s, b], n);
        let (mut compared, mut visible, mut mismatches) = (0, 0, Vec::new());
        for i in 0..n {
            let sp: Vec4 = spheres[i];
            let (bmin, bmax) = (boxes[2 * i].truncate(), boxes[2 * i + 1].truncate());
            // Skip cases within rounding distance of a plane.
            if f.sphere_margin(sp.truncate(), sp.w).abs() < 1e-3
                || f.aabb_margin(bmin, bmax).abs() < 1e-3
            {
                continue;
            }
            compared += 1;
            let cpu = u32::from(f.sphere_visible(sp.truncate(), sp.w))
                | (u32::from(f.aabb_visible(bmin, bmax)) << 1);
            visible += usize::from(cpu != 0);
            if cpu != gpu_out[i] {
                mismatches.push((i, cpu, gpu_out[i]));
            }
        }
        assert!(
            mismatches.is_empty(),
            "{} mismatches, first {:?}",
            mismatches.len(),
            &mismatches[..mismatches.len().min(5)]
        );
        assert!(
            compared > n * 9 / 10 && visible > n / 10 && visible < compared * 9 / 10,
            "{compared} compared, {visible} visible"
        );
    }
}

#[test]
fn hash_snippet_matches_cpu_hash() {
    let gpu = gpu_or_skip!();
    let mut rng = Rng(0xdead_beef);
    let mut inputs: Vec<u32> = (0..1024).collect();
    inputs.extend([u32::MAX, 0x8000_0000, 0x7fff_ffff]);
    inputs.extend((0..1024).map(|_| rng.next()));
    let input = buffer_with(
        &gpu,
        "probe.inputs",
        bytemuck::cast_slice(&inputs),
        wgpu::BufferUsages::STORAGE,
    );
    let out = probe(&gpu, modules::PROBE_HASH, &[input], inputs.len() * 3);
    for (i, &x) in inputs.iter().enumerate() {
        let cpu = [
            pcg_hash(x),
            hash2(x, x.wrapping_mul(7).wrapping_add(3)),
            hash_unit(pcg_hash(x)).to_bits(),
        ];
        assert_eq!(&out[3 * i..3 * i + 3], &cpu, "input {x}");
    }
}

#[test]
fn shared_structs_match_naga_layouts() {
    let (_, frustum) = compose_and_validate(modules::FRUSTUM).unwrap();
    check_layout!(&frustum, "Frustum", Frustum { planes }).unwrap();
    let (_, types) = compose_and_validate(modules::TEST_SCENE_TYPES).unwrap();
    check_layout!(
        &types,
        "SceneUniforms",
        SceneUniforms {
            view_proj,
            frustum,
            light_dir,
            instance_count,
            mesh_count,
            _pad0,
            _pad1
        }
    )
    .unwrap();
    check_layout!(
        &types,
        "SceneInstance",
        SceneInstance {
            position,
            scale,
            color,
            mesh,
            _pad0,
            _pad1,
            _pad2
        }
    )
    .unwrap();
    check_layout!(
        &types,
        "DrawIndexedArgs",
        DrawIndexedArgs {
            index_count,
            instance_count,
            first_index,
            base_vertex,
            first_instance
        }
    )
    .unwrap();
    assert_eq!(
        std::mem::size_of::<DrawIndexedArgs>(),
        wgpu::util::DrawIndexedIndirectArgs::default()
            .as_bytes()
            .len()
    );
    // The guard is not vacuous: a wrong Rust mirror fails.
    assert!(check_layout!(&types, "SceneInstance", DrawIndexedArgs { index_count }).is_err());
}

#[test]
fn frustum_probe_module_validates() {
    // Non-GPU sanity: the probe composes with its import and validates.
    let (src, _) = compose_and_validate(modules::PROBE_FRUSTUM).unwrap();
    assert!(src.contains("fn frustum_sphere_visible"));
}
