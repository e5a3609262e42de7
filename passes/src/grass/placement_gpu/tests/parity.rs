//! The parity tests on the presets: every preset with its own policy, and
//! both client routines at densities 16, 48 and 256 on the Elwynn and the
//! seams-and-holes terrain.

use super::*;
use sward_engine::gpu_or_skip;

#[test]
fn every_preset_matches_the_cpu_with_its_own_policy() {
    let gpu = gpu_or_skip!();
    let (resolved, model_count) = resolved_presets();
    let mut generators = Generators::default();
    // Presets of one terrain share its centre tile (and its atlas).
    let mut worlds: Vec<(String, World)> = Vec::new();
    for name in Preset::names() {
        let preset = Preset::by_name(name).expect("preset");
        let key = format!("{:?}", preset.source().params);
        if !worlds.iter().any(|(k, _)| *k == key) {
            worlds.push((key.clone(), preset_tile(&preset)));
        }
    }
    let benches: Vec<(String, Bench<'_>)> = worlds
        .iter()
        .map(|(k, w)| (k.clone(), Bench::new(&gpu, w, &resolved, model_count)))
        .collect();
    for name in Preset::names() {
        let preset = Preset::by_name(name).expect("preset");
        let key = format!("{:?}", preset.source().params);
        let bench = &benches.iter().find(|(k, _)| *k == key).expect("bench").1;
        let mcnks = sample(bench.world.tiles()[0]);
        let policy = *preset.policy();
        let (right, wrong) = generators.get(&gpu, &policy);
        let densities: &[Option<u32>] = match policy.density() {
            Some(_) => &[Some(16), Some(48), Some(256)],
            None => &[None],
        };
        for &d in densities {
            let p = d.map_or(policy, |d| policy.with_density(d).expect("density"));
            let label = match d {
                Some(d) => format!("{name} ({}, density {d})", p.name()),
                None => format!("{name} ({})", p.name()),
            };
            check(&gpu, bench, right, wrong, &label, &p, &mcnks);
        }
    }
}

#[test]
fn client_routines_match_the_cpu_at_16_48_and_256() {
    let gpu = gpu_or_skip!();
    let (resolved, model_count) = resolved_presets();
    let mut generators = Generators::default();
    for name in ["elwynn-client", "seams-holes"] {
        let preset = Preset::by_name(name).expect("preset");
        let world = preset_tile(&preset);
        let bench = Bench::new(&gpu, &world, &resolved, model_count);
        let mcnks = sample(world.tiles()[0]);
        for policy in [
            Policy::Client(Default::default()),
            Policy::Client335(Default::default()),
        ] {
            let (right, wrong) = generators.get(&gpu, &policy);
            for d in [16, 48, 256] {
                let p = policy.with_density(d).expect("density");
                let label = format!("{name} terrain, {} at density {d}", p.name());
                let parity = check(&gpu, &bench, right, wrong, &label, &p, &mcnks);
                if matches!(p, Policy::Client335(_)) && name == "seams-holes" {
                    assert!(
                        parity.totals.steep_slopes > 0,
                        "{label}: no steep triangle tested"
                    );
                    if d == 256 {
                        without_the_fence(&gpu, &bench, &p, &mcnks);
                    }
                }
            }
        }
    }
}

/// What the float fence buys on this device: the same generation with the
/// fence's zero a constant the compiler sees (so it may fuse and reorder),
/// compared with the CPU. Printed, not asserted: whether a driver fuses is
/// its choice.
fn without_the_fence(gpu: &GpuContext, bench: &Bench<'_>, policy: &Policy, mcnks: &[ChunkCoord]) {
    let library = variant("float_exact", |s| {
        s.replace("float_fence = zero;", "float_fence = 0u;")
    });
    let generator = PlacementGenerator::with_library(gpu, policy, &library)
        .unwrap_or_else(|e| panic!("no-fence variant: {e}"));
    let p = bench.parity(gpu, &generator, policy, mcnks);
    println!("{}", p.summary("without the float fence"));
}
