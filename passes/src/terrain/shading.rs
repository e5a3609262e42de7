//! CPU mirrors of the shared shading snippets `fog.wgsl` and `lighting.wgsl`
//! (same names and argument order), with a GPU parity test that runs the
//! `probe_shading` compute probe.

use glam::Vec3;

/// Ambient light (WGSL `SUN_AMBIENT`): cool.
pub const SUN_AMBIENT: Vec3 = Vec3::new(0.42, 0.45, 0.50);
/// Diffuse sun light (WGSL `SUN_DIFFUSE`): warm, half of WoWee's fallback.
pub const SUN_DIFFUSE: Vec3 = Vec3::new(0.50, 0.475, 0.425);

/// Fog amount in [0, 1] at `dist` (WGSL `fog_factor`).
pub fn fog_factor(dist: f32, start: f32, end: f32) -> f32 {
    ((dist - start) / (end - start).max(1e-4)).clamp(0.0, 1.0)
}

/// `color` fogged towards `fog_color` (WGSL `apply_fog`).
pub fn apply_fog(color: Vec3, fog_color: Vec3, dist: f32, start: f32, end: f32) -> Vec3 {
    color.lerp(fog_color, fog_factor(dist, start, end))
}

/// Ambient + diffuse N.L (WGSL `sun_lighting`).
pub fn sun_lighting(normal: Vec3, sun_dir: Vec3) -> Vec3 {
    let n_dot_l = normal.normalize().dot(sun_dir.normalize()).max(0.0);
    SUN_AMBIENT + SUN_DIFFUSE * n_dot_l
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fog_and_light_bounds() {
        assert_eq!(fog_factor(50.0, 100.0, 300.0), 0.0);
        assert_eq!(fog_factor(200.0, 100.0, 300.0), 0.5);
        assert_eq!(fog_factor(900.0, 100.0, 300.0), 1.0);
        let lit = sun_lighting(Vec3::Z, Vec3::Z);
        assert!(lit.max_element() <= 1.0 && (lit - (SUN_AMBIENT + SUN_DIFFUSE)).length() < 1e-6);
        assert_eq!(sun_lighting(-Vec3::Z, Vec3::Z), SUN_AMBIENT);
        let c = apply_fog(Vec3::ONE, Vec3::ZERO, 200.0, 100.0, 300.0);
        assert!((c - Vec3::splat(0.5)).length() < 1e-6);
    }

    #[test]
    fn gpu_shading_snippets_match_cpu() {
        let Some(gpu) = sward_engine::testing::gpu() else {
            return;
        };
        let gpu: &sward_engine::GpuContext = &gpu;
        let sun = Vec3::new(0.35, 0.25, 0.9);
        let inputs: Vec<[f32; 4]> = (0..256)
            .map(|i| {
                let a = i as f32 * 0.37;
                let b = i as f32 * 0.11;
                [
                    a.cos() * b.sin(),
                    a.sin() * b.sin(),
                    b.cos(),
                    i as f32 * 1.7,
                ]
            })
            .collect();
        let device = &gpu.device;
        let shader =
            sward_engine::shader::create_shader(device, sward_wgsl::modules::PROBE_SHADING)
                .unwrap_or_else(|e| panic!("{e}"));
        let pipeline = sward_engine::bind::compute_pipeline_auto(
            device,
            "terrain.probe_shading",
            &shader,
            "main",
        );
        let [params, input, output] = sward_engine::testing::probe_buffers(
            gpu,
            "terrain.probe_shading",
            bytemuck::cast_slice(&[sun.extend(0.0).to_array()]),
            bytemuck::cast_slice(&inputs),
            (inputs.len() * 16) as u64,
        );
        let bind = sward_engine::bind::buffer_group(
            device,
            "terrain.probe_shading",
            &pipeline.get_bind_group_layout(0),
            &[&params, &input, &output],
        );
        let groups = (inputs.len() as u32).div_ceil(64);
        let bytes = sward_engine::testing::run_probe(gpu, &pipeline, &[&bind], groups, &output);
        let out: &[[f32; 4]] = bytemuck::cast_slice(&bytes);
        for (i, (x, got)) in inputs.iter().zip(out).enumerate() {
            let light = sun_lighting(Vec3::new(x[0], x[1], x[2]), sun);
            let fog = fog_factor(x[3], 100.0, 300.0);
            let want = [light.x, light.y, light.z, fog];
            for k in 0..4 {
                assert!(
                    (got[k] - want[k]).abs() < 1e-5,
                    "input {i} component {k}: GPU {} CPU {}",
                    got[k],
                    want[k]
                );
            }
        }
    }
}
