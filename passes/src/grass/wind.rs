//! CPU mirror of the `wind` WGSL snippet: the [`Wind`]
//! uniform block, [`wind_sway`] and [`wind_offset`] with the same maths and
//! argument order as the shader, and the GPU parity test of every grass
//! snippet (wind, fade, alpha-key coverage, dither) through `probe_grass.wgsl`.
//!
//! Wind is root-anchored and scaled by the model's height; it is phased by
//! the instance's world XY so neighbouring clumps sway out of step while a
//! wave still propagates across the field. Nothing here runs per instance on
//! the CPU at render time: the shader evaluates it per vertex.

use crate::frame::RenderSettings;

/// WGSL `WIND_TAU` (2pi rounded to f32).
const WIND_TAU: f32 = std::f32::consts::TAU;

/// Mirrors WGSL `Wind` (two vec4s).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Wind {
    /// Time (s), speed (rad/s), amplitude (fraction of height), root fraction.
    pub params: [f32; 4],
    /// Phase per world unit along x and y (rad), then the sway direction.
    pub phase_dir: [f32; 4],
}

impl Wind {
    /// The wind of `settings` at `time_s`.
    pub fn new(settings: &RenderSettings, time_s: f32) -> Self {
        Wind {
            params: [
                time_s,
                settings.wind_speed,
                settings.wind_amplitude,
                settings.root_fraction,
            ],
            phase_dir: [
                settings.wind_phase[0],
                settings.wind_phase[1],
                settings.wind_dir[0],
                settings.wind_dir[1],
            ],
        }
    }
}

/// WGSL `wind_wrap`: `x` wrapped into `[0, 2pi)`.
pub fn wind_wrap(x: f32) -> f32 {
    x - WIND_TAU * (x / WIND_TAU).floor()
}

/// WGSL `wind_sway`: signed sway distance of model-space vertex height `z`
/// of a model spanning `z_min ..= z_min + height`, rooted at `world_xy`.
pub fn wind_sway(w: &Wind, world_xy: [f32; 2], z: f32, z_min: f32, height: f32) -> f32 {
    let h = height.max(0.001);
    let top = super::fade::smoothstep(w.params[3], 1.0, ((z - z_min) / h).clamp(0.0, 1.0));
    let phase = wind_wrap(world_xy[0] * w.phase_dir[0]) + wind_wrap(world_xy[1] * w.phase_dir[1]);
    let arg = wind_wrap(w.params[0] * w.params[1]) + phase;
    arg.sin() * w.params[2] * h * top
}

/// WGSL `wind_offset`: the horizontal world-space offset of that vertex.
pub fn wind_offset(w: &Wind, world_xy: [f32; 2], z: f32, z_min: f32, height: f32) -> [f32; 2] {
    let (dx, dy) = (w.phase_dir[2], w.phase_dir[3]);
    let len = (dx * dx + dy * dy).sqrt();
    if len <= 0.0 {
        return [0.0, 0.0];
    }
    let s = wind_sway(w, world_xy, z, z_min, height);
    [dx / len * s, dy / len * s]
}

/// Largest horizontal sway of a model of `height` (culling margin).
pub fn max_sway(settings: &RenderSettings, height: f32) -> f32 {
    settings.wind_amplitude.abs() * height.max(0.001)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grass::fade::distance_fade;
    use crate::grass::material::{
        alpha_key_coverage, alpha_mip_level, alpha_mip_scaled, dither_threshold,
    };

    fn wind(time: f32) -> Wind {
        Wind::new(&RenderSettings::default(), time)
    }

    #[test]
    fn roots_stay_anchored_and_tips_sway_by_amplitude_times_height() {
        let w = wind(0.3);
        let xy = [-8533.0, -120.5];
        // Below the root fraction nothing moves.
        assert_eq!(wind_sway(&w, xy, 0.0, 0.0, 0.5), 0.0);
        assert_eq!(wind_sway(&w, xy, 0.07, 0.0, 0.5), 0.0);
        // The tip moves by at most amplitude * height, along the wind direction.
        let mut peak = 0.0f32;
        for i in 0..200 {
            let s = wind_sway(&wind(i as f32 * 0.05), xy, 0.5, 0.0, 0.5);
            peak = peak.max(s.abs());
        }
        assert!(
            peak <= 0.12 * 0.5 + 1e-6 && peak > 0.12 * 0.5 * 0.95,
            "{peak}"
        );
        let o = wind_offset(&w, xy, 0.5, 0.0, 0.5);
        let cross = o[0] * 0.6 - o[1] * 0.8;
        assert!(cross.abs() < 1e-6, "offset {o:?} not along (0.8, 0.6)");
    }

    #[test]
    fn neighbouring_clumps_are_phased_apart() {
        // Default phase: 2.5 units along x differ by 0.917 * 2.5 rad (~131 degrees).
        let w = wind(0.0);
        let a = wind_wrap(0.0 * 0.917);
        let b = wind_wrap(2.5 * 0.917);
        assert!(((b - a).to_degrees() - 131.3).abs() < 0.5);
        let s0 = wind_sway(&w, [0.0, 0.0], 1.0, 0.0, 1.0);
        let s1 = wind_sway(&w, [2.5, 0.0], 1.0, 0.0, 1.0);
        assert!((s0 - s1).abs() > 0.05);
    }

    #[test]
    fn zero_direction_means_no_wind() {
        let mut w = wind(1.0);
        w.phase_dir[2] = 0.0;
        w.phase_dir[3] = 0.0;
        assert_eq!(wind_offset(&w, [1.0, 2.0], 1.0, 0.0, 1.0), [0.0, 0.0]);
    }

    /// One probe input, mirrors `ProbeInput` in probe_grass.wgsl.
    #[repr(C)]
    #[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
    struct ProbeInput {
        a: [f32; 4],
        b: [f32; 4],
        c: [f32; 4],
        d: [f32; 4],
    }

    /// Mirrors `ProbeOutput` in probe_grass.wgsl.
    #[repr(C)]
    #[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
    struct ProbeOutput {
        offset: [f32; 2],
        fade: f32,
        coverage: f32,
        dither: f32,
        mip_alpha: f32,
        _pad1: f32,
        _pad2: f32,
    }

    #[test]
    fn probe_structs_match_wgsl_layout() {
        sward_wgsl::assert_layouts!(
            sward_wgsl::modules::PROBE_GRASS,
            "ProbeInput" => ProbeInput { a, b, c, d },
            "ProbeOutput" => ProbeOutput {
                offset, fade, coverage, dither, mip_alpha, _pad1, _pad2
            },
            "Wind" => Wind { params, phase_dir },
        );
    }

    fn inputs() -> Vec<ProbeInput> {
        let mut rng = 0x1234_5678u32;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 17;
            rng ^= rng << 5;
            (rng >> 8) as f32 / (1u32 << 24) as f32
        };
        (0..4096)
            .map(|i| {
                let height = 0.2 + next() * 1.6;
                let x = -9000.0 + next() * 1100.0;
                let y = -600.0 + next() * 1200.0;
                ProbeInput {
                    a: [x, y, next() * height, next() * 3600.0],
                    b: [0.0, height, 150.0 + next() * 80.0, next()],
                    c: [
                        (i % 97) as f32,
                        (i / 97) as f32,
                        next() * 0.5,
                        (i % 2) as f32,
                    ],
                    d: [
                        next() * 8.0,
                        next() * 2.0 - 1.0,
                        next() * 3.0,
                        next() * 16.0,
                    ],
                }
            })
            .collect()
    }

    #[test]
    fn gpu_wind_and_fade_match_cpu() {
        let Some(gpu) = sward_engine::testing::gpu() else {
            return;
        };
        let inputs = inputs();
        let base = wind(0.0);
        let out_size = (inputs.len() * std::mem::size_of::<ProbeOutput>()) as u64;
        let d = &gpu.device;
        let shader =
            sward_engine::shader::create_shader(d, sward_wgsl::modules::PROBE_GRASS).unwrap();
        let pipeline = sward_engine::bind::compute_pipeline_auto(d, "grass.probe", &shader, "main");
        let [wind_buf, in_buf, out_buf] = sward_engine::testing::probe_buffers(
            &gpu,
            "grass.probe",
            bytemuck::bytes_of(&base),
            bytemuck::cast_slice(&inputs),
            out_size,
        );
        let bind = sward_engine::bind::buffer_group(
            d,
            "grass.probe",
            &pipeline.get_bind_group_layout(0),
            &[&wind_buf, &in_buf, &out_buf],
        );
        let groups = (inputs.len() as u32).div_ceil(64);
        let bytes = sward_engine::testing::run_probe(&gpu, &pipeline, &[&bind], groups, &out_buf);
        let out: Vec<ProbeOutput> = bytemuck::pod_collect_to_vec(&bytes);

        let (mut wind_err, mut fade_err, mut cov_err, mut mip_err) =
            (0.0f32, 0.0f32, 0.0f32, 0.0f32);
        let mut moving = 0;
        for (p, g) in inputs.iter().zip(&out) {
            let mut w = base;
            w.params[0] = p.a[3];
            let cpu = wind_offset(&w, [p.a[0], p.a[1]], p.a[2], p.b[0], p.b[1]);
            wind_err = wind_err.max(
                (cpu[0] - g.offset[0])
                    .abs()
                    .max((cpu[1] - g.offset[1]).abs()),
            );
            moving += usize::from(cpu[0].abs() > 1e-3);
            let fade = distance_fade(p.b[2], 160.0, 220.0, p.c[3] > 0.5);
            fade_err = fade_err.max((fade - g.fade).abs());
            let cov = alpha_key_coverage(p.b[3], 0.5, p.c[2]);
            cov_err = cov_err.max((cov - g.coverage).abs());
            let level = alpha_mip_level([p.d[0], p.d[1]], [p.d[2], p.d[3]]);
            let mip = alpha_mip_scaled(p.b[3], level);
            mip_err = mip_err.max((mip - g.mip_alpha).abs());
            assert_eq!(dither_threshold(p.c[0] as u32, p.c[1] as u32), g.dither);
        }
        eprintln!(
            "grass snippet parity over {} inputs: wind max abs error {wind_err:.3e} units, \
             fade {fade_err:.3e}, coverage {cov_err:.3e}, mip-scaled alpha {mip_err:.3e}",
            inputs.len()
        );
        assert!(
            moving > inputs.len() / 4,
            "probe inputs barely exercise wind"
        );
        // Sways are up to 0.12 * 1.8 units; the tolerance is far below a pixel.
        assert!(wind_err < 2e-4, "wind max abs error {wind_err}");
        assert!(fade_err < 1e-5, "fade max abs error {fade_err}");
        assert!(cov_err < 1e-4, "coverage max abs error {cov_err}");
        assert!(mip_err < 1e-4, "mip-scaled alpha max abs error {mip_err}");
    }
}
