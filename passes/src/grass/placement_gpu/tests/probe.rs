//! The generator's number helpers on the GPU against their CPU references
//! (`probe_placement.wgsl`), and the constants the WGSL spells out against
//! the CPU's.

use super::*;
use sward_engine::gpu_or_skip;

/// Probe input (WGSL `ProbeIn`).
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct ProbeIn {
    seed: u32,
    a: u32,
    b: u32,
    cover: u32,
    p0: f32,
    cell: u32,
    t: f32,
    _pad: u32,
}

/// Probe output (WGSL `ProbeOut`).
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct ProbeOut {
    client: [u32; 4],
    client_far: u32,
    client_signed: f32,
    rng: [u32; 2],
    rng_f: f32,
    rng_range: f32,
    rng_below: u32,
    hash5: u32,
    mul_hi: u32,
    coverage: f32,
    axis: f32,
    _pad: u32,
}

fn run_probe(gpu: &GpuContext, input: &[ProbeIn]) -> Vec<ProbeOut> {
    let device = &gpu.device;
    let shader = sward_engine::shader::create_shader(device, modules::PROBE_PLACEMENT)
        .unwrap_or_else(|e| panic!("{e}"));
    let pipeline =
        sward_engine::bind::compute_pipeline_auto(device, "probe.placement", &shader, "main");
    let size = (input.len() * std::mem::size_of::<ProbeOut>()) as u64;
    // The uniform is the float fence the probe sets (`float_fence_set`), 0.
    let fence = bytemuck::cast_slice(&[0u32; 4]);
    let [fence, inputs, output] = sward_engine::testing::probe_buffers(
        gpu,
        "probe.placement",
        fence,
        bytemuck::cast_slice(input),
        size,
    );
    let group = sward_engine::bind::group(
        device,
        "probe.placement",
        &pipeline.get_bind_group_layout(0),
        &[
            fence.as_entire_binding(),
            inputs.as_entire_binding(),
            output.as_entire_binding(),
        ],
    );
    let workgroups = (input.len() as u32).div_ceil(64);
    let bytes = sward_engine::testing::run_probe(gpu, &pipeline, &[&group], workgroups, &output);
    bytemuck::pod_collect_to_vec(&bytes)
}

/// The generator's number helpers on the GPU equal their CPU references:
/// the client generator's draws (also after a 1,000-draw skip) and signed
/// floats, sward's Rng32 stream and hashes, the 64-bit product's high word,
/// coverage / 255 for every byte and the world axis (bit-identical with
/// the f64 expression, rounding ties near the map's middle included).
#[test]
fn probe_matches_the_cpu_helpers() {
    use sward_scenes::placement::client_rng::ClientRng;
    use sward_scenes::rng::{hash_words, Rng32};
    let gpu = gpu_or_skip!();
    let mut rng = Rng32::new(0x9b0e);
    // Half the world axes near the map's middle (origins within a few MCNKs
    // of 0, where f32 steps are fine and an exact result on a rounding
    // midpoint, a tie, is common), half anywhere.
    let input: Vec<ProbeIn> = (0..4096u32)
        .map(|i| {
            let g = if i % 2 == 0 {
                510 + rng.below(4)
            } else {
                rng.below(1024)
            };
            ProbeIn {
                seed: if i < 16 { i } else { rng.next_u32() },
                a: rng.next_u32(),
                b: if i % 3 == 0 {
                    rng.below(200)
                } else {
                    rng.next_u32()
                },
                cover: i,
                p0: ChunkCoord { x: g, y: g }.origin()[0] as f32,
                cell: rng.below(8),
                t: match i % 4 {
                    0 => (rng.next_u32() >> 8) as f32 / 16_777_216.0,
                    1 => [0.0, 1.0, 0.5][rng.below(3) as usize],
                    _ => {
                        (sward_scenes::placement::client_rng::signed_unit(rng.next_u32()) + 1.0)
                            * 0.5
                    }
                },
                _pad: 0,
            }
        })
        .collect();
    let out = run_probe(&gpu, &input);
    for (p, o) in input.iter().zip(&out) {
        let mut c = ClientRng::new(p.seed);
        let first: [u32; 4] = std::array::from_fn(|_| c.next_u32());
        assert_eq!(o.client, first, "seed {}", p.seed);
        for _ in 0..996 {
            c.next_u32();
        }
        assert_eq!(o.client_far, c.next_u32(), "seed {}: draw 1001", p.seed);
        assert_eq!(o.client_signed.to_bits(), c.next_signed().to_bits());
        let mut r = Rng32::new(p.seed);
        assert_eq!(o.rng, [r.next_u32(), r.next_u32()], "Rng32({})", p.seed);
        assert_eq!(o.rng_f.to_bits(), r.next_f32().to_bits());
        let pi = std::f32::consts::PI;
        assert_eq!(o.rng_range.to_bits(), r.range_f32(-pi, pi).to_bits());
        assert_eq!(o.rng_below, r.below(p.b), "below({})", p.b);
        assert_eq!(o.hash5, hash_words(&[p.seed, p.a, p.b, p.cover, 7]));
        assert_eq!(o.mul_hi, cpu::mul_hi(p.a, p.b));
        assert_eq!(
            o.coverage.to_bits(),
            ((p.cover & 255) as f32 / 255.0).to_bits(),
            "coverage {}",
            p.cover & 255
        );
        // Bit-exact with the f64 expression, ties included.
        let want = cpu::place_axis(p.p0, p.cell, p.t);
        assert_eq!(
            o.axis.to_bits(),
            want.to_bits(),
            "place_axis({}, {}, {}): {} vs {want}",
            p.p0,
            p.cell,
            p.t,
            o.axis
        );
    }
}

/// The constants the WGSL modules spell out equal the CPU's: the noise
/// table, pi, the jitter and cell constants, the per-cell scale range.
#[test]
fn wgsl_constants_equal_the_cpu_constants() {
    let (_, module) = sward_wgsl::compose_and_validate(modules::PLACEMENT_GENERATE)
        .unwrap_or_else(|e| panic!("{e}"));
    let value = |name: &str| -> naga::Expression {
        let c = module
            .constants
            .iter()
            .find(|(_, c)| c.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no WGSL constant {name}"))
            .1;
        module.global_expressions[c.init].clone()
    };
    let f32_of = |name: &str| match value(name) {
        naga::Expression::Literal(naga::Literal::F32(v)) => v,
        e => panic!("{name} is {e:?}"),
    };
    let pi = std::f32::consts::PI;
    for (name, want) in [
        ("CLIENT_PI", pi),
        ("C335_PI", pi),
        ("PC_PI", pi),
        ("CLIENT_SCALE_STEP", 0.1),
        ("C335_SCALE_JITTER", 0.33),
        (
            "C335_MIN_NORMAL_Z",
            sward_scenes::placement::client335::MIN_NORMAL_Z,
        ),
        ("C335_CELL_SIZE", f32::from_bits(0x4085_5555)),
        ("C335_CELL_HALF", f32::from_bits(0x4005_5555)),
        ("PC_SCALE_LO", 0.9),
        ("PC_SCALE_HI", 1.1),
    ] {
        assert_eq!(f32_of(name).to_bits(), want.to_bits(), "{name}");
    }
    let u32_of = |name: &str| match value(name) {
        naga::Expression::Literal(naga::Literal::U32(v)) => v,
        e => panic!("{name} is {e:?}"),
    };
    let unit = sward_scenes::world::coords::UNIT_SIZE.to_bits();
    let mantissa = (unit & ((1 << 52) - 1)) | (1 << 52);
    assert_eq!(
        unit >> 52,
        1023 + 2,
        "the cell size is in [4, 8): M_U * 2^-50"
    );
    assert_eq!(
        (u64::from(u32_of("AXIS_UNIT_HI")) << 32) | u64::from(u32_of("AXIS_UNIT_LO")),
        mantissa,
        "AXIS_UNIT_HI/LO"
    );
    let noise = module
        .global_variables
        .iter()
        .find(|(_, v)| v.name.as_deref() == Some("CLIENT_NOISE"))
        .and_then(|(_, v)| v.init)
        .expect("the private CLIENT_NOISE table with its initializer");
    let naga::Expression::Compose { components, .. } = &module.global_expressions[noise] else {
        panic!("CLIENT_NOISE is not an array")
    };
    let words: Vec<u32> = components
        .iter()
        .map(|h| match module.global_expressions[*h] {
            naga::Expression::Literal(naga::Literal::U32(v)) => v,
            ref e => panic!("CLIENT_NOISE holds {e:?}"),
        })
        .collect();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    assert_eq!(bytes, sward_scenes::placement::client_rng::NOISE);
}
