//! GPU parity of the placement generator: the placements the GPU generates
//! for a set of MCNKs, read back and compared MCNK by MCNK with the CPU
//! policy (`sward_scenes::placement::trace_mcnk`): the same count, the same
//! (cell, slot, doodad, model, seed) for each (pick, draw index), positions
//! within [`POSITION_TOLERANCE`], yaw and scale within [`ANGLE_TOLERANCE`],
//! and every per-MCNK counter of the CPU's `PlacementStats` equal (a float
//! decision the GPU took the other way, such as the 3.3.5 slope limit,
//! changes them: the test counts such MCNKs as flips). Each test also runs a
//! deliberately wrong generator (an off-by-one in the client generator's
//! skip, a one-step-late `Rng32` seed) on six of its MCNKs that place
//! something and checks the comparison catches it.
//!
//! Covered: every preset with its own policy (the client preset at densities
//! 16, 48 and 256), both client routines at 16, 48 and 256 on the Elwynn and
//! the seams-and-holes terrain, a stress tile whose MCNKs hit every skip
//! reason (noEffectDoodad, holes, missing layers, effect-less layers, unknown
//! effects, empty effects), dangling and empty slots, negative and zero
//! weights and cliffs, and the real 3.3.5 tile Azeroth 42,29 (with
//! `SWARD_REAL_DATA`). MCNKs are sampled (every ninth of a tile, plus those
//! with holes, noEffectDoodad cells and the steepest cells) to keep lavapipe's
//! time down. Run with `--nocapture` for the measured errors and margins.

use std::sync::Arc;

use sward_engine::GpuContext;
use sward_scenes::effects::{
    GroundEffectDoodad, GroundEffectLayout, GroundEffectTexture, GroundEffects, ResolvedEffects,
};
use sward_scenes::models::elwynn_models;
use sward_scenes::placement::{trace_mcnk, Margins, Traced};
use sward_scenes::presets::{preset_effects, Preset};
use sward_scenes::world::height::outer_index;
use sward_scenes::{AdtTile, ChunkCoord, Mcnk, Policy, TileCoord, TileSource, World};
use sward_wgsl::{modules, Module};

use super::cpu;
use super::generator::{Generated, GenerationInputs, PlacementGenerator};
use super::gpu::{ChunkStatsGpu, PlacedGpu};
use super::inspect::sort_generated;
use super::records::{EffectTable, McnkBatch};
use crate::atlas::HeightAtlas;

/// Largest allowed |GPU - CPU| of a position coordinate (world units).
const POSITION_TOLERANCE: f32 = 1e-3;
/// Largest allowed |GPU - CPU| of yaw (radians) and scale.
const ANGLE_TOLERANCE: f32 = 1e-5;

/// What one comparison found.
#[derive(Debug, Default)]
struct Parity {
    mcnks: usize,
    placements: usize,
    /// Largest position, yaw and scale differences.
    max_position: f32,
    max_yaw: f32,
    max_scale: f32,
    /// Position coordinates (x, y, z) that are not bit-identical.
    inexact: [usize; 3],
    /// MCNKs whose counters differ (a decision went the other way).
    flips: usize,
    /// Placements or MCNKs that break the tolerances (first few described).
    failures: usize,
    messages: Vec<String>,
    /// The CPU's decision margins over the compared MCNKs.
    margins: Margins,
    /// Totals of the GPU's counters (what the MCNKs exercised).
    totals: ChunkStatsGpu,
    /// MCNKs with CPU placements (where a wrong generator must show).
    placing: Vec<ChunkCoord>,
}

impl Parity {
    fn fail(&mut self, what: String) {
        self.failures += 1;
        if self.messages.len() < 8 {
            self.messages.push(what);
        }
    }

    fn ok(&self) -> bool {
        self.failures == 0 && self.flips == 0
    }

    fn summary(&self, label: &str) -> String {
        let t = &self.totals;
        format!(
            "{label}: {} MCNKs, {} placements; max |d| position {:.2e}, yaw {:.2e}, scale {:.2e}; \
             coordinates not bit-identical: x {}, y {}, z {}; {} flips, {} failures; margins: slope {:.3e}, \
             diagonal {:.3e}, anti-diagonal {:.3e}, attempts {:.3e} ({} decisions); \
             steep {}, empty {}, dangling {}, skipped: no-effect-doodad {}, hole {}, layer {}, \
             no effect {}, unknown {}, empty effect {}, coverage {}, road {}",
            self.mcnks,
            self.placements,
            self.max_position,
            self.max_yaw,
            self.max_scale,
            self.inexact[0],
            self.inexact[1],
            self.inexact[2],
            self.flips,
            self.failures,
            self.margins.slope,
            self.margins.diagonal,
            self.margins.anti_diagonal,
            self.margins.attempts,
            self.margins.decisions,
            t.steep_slopes,
            t.empty_slots,
            t.dangling_slots,
            t.cells_no_effect_doodad,
            t.cells_hole,
            t.cells_invalid_layer,
            t.cells_no_effect,
            t.cells_unknown_effect,
            t.cells_empty_effect,
            t.cells_low_coverage,
            t.cells_road,
        )
    }
}

fn add_totals(t: &mut ChunkStatsGpu, s: &ChunkStatsGpu) {
    let a: &mut [u32; 16] = bytemuck::cast_mut(t);
    let b: &[u32; 16] = bytemuck::cast_ref(s);
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// One world's GPU side: its height atlas and effect table.
struct Bench<'w> {
    world: &'w World,
    atlas: HeightAtlas,
    table: EffectTable,
    resolved: &'w ResolvedEffects,
    model_count: usize,
}

impl<'w> Bench<'w> {
    fn new(
        gpu: &GpuContext,
        world: &'w World,
        resolved: &'w ResolvedEffects,
        model_count: usize,
    ) -> Self {
        Self {
            world,
            atlas: HeightAtlas::new(gpu, world).unwrap_or_else(|e| panic!("atlas: {e}")),
            table: EffectTable::from_resolved(resolved).unwrap_or_else(|e| panic!("table: {e}")),
            resolved,
            model_count,
        }
    }

    /// Generates `mcnks` with `policy` on `generator` and reads them back.
    fn generate(
        &self,
        gpu: &GpuContext,
        generator: &PlacementGenerator,
        policy: &Policy,
        mcnks: &[ChunkCoord],
    ) -> Generated {
        let list = mcnks.iter().map(|&c| (c, self.mcnk(c)));
        let batch = McnkBatch::new(policy, list, &self.atlas, &self.table)
            .unwrap_or_else(|e| panic!("records: {e}"));
        let mut generated = generator
            .generate(
                gpu,
                &self.atlas,
                &GenerationInputs {
                    policy,
                    records: &batch.records,
                    cover: &batch.cover,
                    effects: &self.table,
                    capacity: u32::try_from(batch.capacity).expect("capacity fits u32"),
                },
            )
            .unwrap_or_else(|e| panic!("generate: {e}"));
        sort_generated(policy, &mut generated);
        generated
    }

    fn mcnk(&self, c: ChunkCoord) -> &'w Mcnk {
        self.world.mcnk(c).expect("a resident MCNK")
    }

    /// Generates `mcnks` on the GPU and compares them with the CPU.
    fn parity(
        &self,
        gpu: &GpuContext,
        generator: &PlacementGenerator,
        policy: &Policy,
        mcnks: &[ChunkCoord],
    ) -> Parity {
        let generated = self.generate(gpu, generator, policy, mcnks);
        let mut out = Parity {
            margins: Margins::default(),
            ..Default::default()
        };
        let mut at = 0;
        for (r, &chunk) in mcnks.iter().enumerate() {
            let (cpu, stats, margins) = trace_mcnk(
                chunk,
                self.mcnk(chunk),
                self.resolved,
                self.model_count,
                policy,
            );
            out.margins = out.margins.min(margins);
            out.mcnks += 1;
            if !cpu.is_empty() {
                out.placing.push(chunk);
            }
            let end = generated.placements[at..]
                .iter()
                .position(|p| p.record as usize != r)
                .map_or(generated.placements.len(), |n| at + n);
            let gpu_list = &generated.placements[at..end];
            at = end;
            let gpu_stats = &generated.stats[r];
            add_totals(&mut out.totals, gpu_stats);
            if gpu_stats.cpu_counters() != ChunkStatsGpu::of_cpu(&stats) {
                out.flips += 1;
                out.fail(format!(
                    "MCNK ({}, {}): counters GPU {:?} vs CPU {:?}",
                    chunk.x,
                    chunk.y,
                    gpu_stats.cpu_counters(),
                    ChunkStatsGpu::of_cpu(&stats)
                ));
            }
            if gpu_list.len() != cpu.len() {
                out.fail(format!(
                    "MCNK ({}, {}): {} placements on the GPU, {} on the CPU",
                    chunk.x,
                    chunk.y,
                    gpu_list.len(),
                    cpu.len()
                ));
                continue;
            }
            for (g, c) in gpu_list.iter().zip(&cpu) {
                out.placements += 1;
                compare(&mut out, chunk, g, c);
            }
        }
        assert_eq!(at, generated.placements.len(), "placements of no record");
        out
    }
}

fn compare(out: &mut Parity, chunk: ChunkCoord, g: &PlacedGpu, c: &Traced) {
    let o = &c.origin;
    let id = (
        o.pick,
        o.n,
        o.row,
        o.col,
        o.slot,
        o.doodad,
        u32::from(c.model),
    );
    let got = (g.pick, g.n, g.row(), g.col(), g.slot(), g.doodad, g.model);
    if id != got {
        out.fail(format!(
            "MCNK ({}, {}): (pick, n, row, col, slot, doodad, model) GPU {got:?} vs CPU {id:?}",
            chunk.x, chunk.y
        ));
        return;
    }
    let p = &c.placement;
    let dpos = (0..3)
        .map(|k| (g.position[k] - p.position[k]).abs())
        .fold(0.0f32, f32::max);
    let dyaw = (g.yaw - p.yaw).abs();
    let dscale = (g.scale - p.scale).abs();
    out.max_position = out.max_position.max(dpos);
    out.max_yaw = out.max_yaw.max(dyaw);
    out.max_scale = out.max_scale.max(dscale);
    for k in 0..3 {
        if g.position[k] != p.position[k] {
            out.inexact[k] += 1;
        }
    }
    if !(dpos <= POSITION_TOLERANCE && dyaw <= ANGLE_TOLERANCE && dscale <= ANGLE_TOLERANCE)
        || g.seed != p.seed
    {
        out.fail(format!(
            "MCNK ({}, {}) pick {} n {}: GPU {:?} yaw {} scale {} seed {} vs CPU {:?} yaw {} scale {} seed {}",
            chunk.x, chunk.y, o.pick, o.n, g.position, g.yaw, g.scale, g.seed, p.position, p.yaw,
            p.scale, p.seed
        ));
    }
}

/// A sample of `tile`'s MCNKs: every ninth, the first four with holes, with
/// noEffectDoodad cells and the four with the steepest cell.
fn sample(tile: &AdtTile) -> Vec<ChunkCoord> {
    let mut out: Vec<ChunkCoord> = tile
        .mcnks
        .iter()
        .step_by(9)
        .map(|m| m.chunk_coord(tile.coord))
        .collect();
    let mut add = |m: &Mcnk| {
        let c = m.chunk_coord(tile.coord);
        if !out.contains(&c) {
            out.push(c);
        }
    };
    for m in tile
        .mcnks
        .iter()
        .filter(|m| m.header.holes_low_res != 0)
        .take(4)
    {
        add(m);
    }
    for m in tile
        .mcnks
        .iter()
        .filter(|m| m.header.no_effect_doodad.to_u64() != 0)
        .take(4)
    {
        add(m);
    }
    let relief = |m: &Mcnk| {
        let (lo, hi) = m
            .heights
            .iter()
            .fold((f32::MAX, f32::MIN), |(lo, hi), h| (lo.min(*h), hi.max(*h)));
        hi - lo
    };
    let mut steep: Vec<&Mcnk> = tile.mcnks.iter().collect();
    steep.sort_by(|a, b| relief(b).total_cmp(&relief(a)));
    for m in steep.into_iter().take(4) {
        add(m);
    }
    out
}

fn resolved_presets() -> (ResolvedEffects, usize) {
    let models = elwynn_models();
    let paths: Vec<&str> = models.iter().map(|m| m.path.as_str()).collect();
    let resolved = preset_effects()
        .and_then(|e| e.resolve(&paths))
        .expect("preset effects resolve");
    (resolved, models.len())
}

/// The world of `preset`'s centre tile alone.
fn preset_tile(preset: &Preset) -> World {
    let tile = preset
        .source()
        .load(preset.centre())
        .expect("the centre tile generates");
    let mut world = World::new("placement-parity");
    world.insert(Arc::new(tile)).expect("a valid tile");
    world
}

/// `library` with module `name`'s source edited by `edit` (leaked: modules
/// hold static sources), for a deliberately wrong generator.
fn variant(name: &str, edit: impl Fn(&str) -> String) -> Vec<Module> {
    modules::ALL
        .iter()
        .map(|m| {
            if m.name == name {
                let source = edit(m.source);
                assert_ne!(source, m.source, "the variant of {name} changes nothing");
                Module {
                    name: m.name,
                    source: Box::leak(source.into_boxed_str()),
                }
            } else {
                *m
            }
        })
        .collect()
}

/// The client generator skipping one draw too many before pass 2 (an
/// off-by-one in the generator).
fn skip_off_by_one() -> Vec<Module> {
    variant("client_rng", |s| {
        s.replace(
            "for (var k = 0u; k < n; k++)",
            "for (var k = 0u; k <= n; k++)",
        )
    })
}

/// sward's Rng32 seeded one LCG step late (the CPU's state convention
/// taken for the GPU's).
fn rng_one_step_late() -> Vec<Module> {
    variant("placement_rng", |s| {
        s.replace(
            "return Rng32(seed);",
            "return Rng32(seed * 747796405u + 2891336453u);",
        )
    })
}

/// The wrong variant of `policy`'s generator.
fn wrong_generator(gpu: &GpuContext, policy: &Policy) -> PlacementGenerator {
    let library = match policy {
        Policy::PerCell(_) => rng_one_step_late(),
        _ => skip_off_by_one(),
    };
    PlacementGenerator::with_library(gpu, policy, &library)
        .unwrap_or_else(|e| panic!("wrong variant: {e}"))
}

fn generator(gpu: &GpuContext, policy: &Policy) -> PlacementGenerator {
    PlacementGenerator::new(gpu, policy).unwrap_or_else(|e| panic!("generator: {e}"))
}

/// Runs `policy` on `mcnks` of `bench`, prints the summary, asserts parity,
/// and checks that the wrong variant fails on the first few MCNKs that
/// place anything.
fn check(
    gpu: &GpuContext,
    bench: &Bench<'_>,
    right: &PlacementGenerator,
    wrong: &PlacementGenerator,
    label: &str,
    policy: &Policy,
    mcnks: &[ChunkCoord],
) -> Parity {
    let p = bench.parity(gpu, right, policy, mcnks);
    println!("{}", p.summary(label));
    assert!(
        p.ok(),
        "{label}: GPU and CPU placements differ:\n{}",
        p.messages.join("\n")
    );
    assert!(
        p.placements > 0,
        "{label}: nothing placed, nothing compared"
    );
    let few = &p.placing[..p.placing.len().min(6)];
    let bad = bench.parity(gpu, wrong, policy, few);
    assert!(
        !bad.ok(),
        "{label}: the deliberately wrong generator passed the comparison"
    );
    p
}

/// The right and the wrong generator of each policy kind, built once per
/// test (a pipeline takes about a second to build on lavapipe).
#[derive(Default)]
struct Generators(Vec<(&'static str, PlacementGenerator, PlacementGenerator)>);

impl Generators {
    fn get(
        &mut self,
        gpu: &GpuContext,
        policy: &Policy,
    ) -> (&PlacementGenerator, &PlacementGenerator) {
        let entry = super::generator::entry_point(policy);
        if !self.0.iter().any(|(e, _, _)| *e == entry) {
            self.0
                .push((entry, generator(gpu, policy), wrong_generator(gpu, policy)));
        }
        let (_, right, wrong) = self
            .0
            .iter()
            .find(|(e, _, _)| *e == entry)
            .expect("just built");
        (right, wrong)
    }
}

#[test]
fn every_preset_matches_the_cpu_with_its_own_policy() {
    let Some(gpu) = sward_engine::testing::gpu() else {
        return;
    };
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
        let mcnks = sample(&bench.world.tiles()[0]);
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
    let Some(gpu) = sward_engine::testing::gpu() else {
        return;
    };
    let (resolved, model_count) = resolved_presets();
    let mut generators = Generators::default();
    for name in ["elwynn-client", "seams-holes"] {
        let preset = Preset::by_name(name).expect("preset");
        let world = preset_tile(&preset);
        let bench = Bench::new(&gpu, &world, &resolved, model_count);
        let mcnks = sample(&world.tiles()[0]);
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
                }
            }
        }
    }
}

/// Ground effects that exercise what the preset tables do not: a dangling
/// slot (a doodad id the doodad table lacks), empty slots (one with a stored
/// weight, which the 3.3.5 bag deals), an effect with no slot and no weight,
/// zero weights, weights summing below and above 16, density 0 (8) and a
/// density above the per-cell cap.
fn stress_effects() -> (ResolvedEffects, usize) {
    let models = elwynn_models();
    let paths: Vec<&str> = models.iter().map(|m| m.path.as_str()).collect();
    let doodads = models
        .iter()
        .enumerate()
        .map(|(i, m)| GroundEffectDoodad {
            id: i as u32 + 1,
            model: m.path.clone(),
            flags: 0,
        })
        .collect();
    let rec = |id, doodads, weights, density| GroundEffectTexture {
        id,
        doodads,
        weights,
        density,
        ..Default::default()
    };
    let textures = vec![
        rec(1, [1, 999, 3, 0], [6, 5, 0, 5], 6),
        rec(2, [4, 5, 6, 7], [3, 1, 0, 0], 0),
        rec(3, [0, 0, 0, 0], [0, 0, 0, 0], 5),
        rec(4, [8, 9, 998, 10], [40, 30, 20, 10], 30),
        rec(5, [11, 0, 12, 0], [1, 0, 1, 0], 3),
    ];
    let effects =
        GroundEffects::new(GroundEffectLayout::Wotlk335, textures, doodads).expect("stress tables");
    (effects.resolve(&paths).expect("resolve"), models.len())
}

/// A tile derived from the Elwynn centre tile whose MCNKs hit every skip
/// reason and carry cliffs: each MCNK's layers name the stress effects, some
/// an unknown id or none; noEffectDoodad bits, holes and predTex layers past
/// the MCNK's layers vary with the MCNK; every third MCNK has a cliff.
fn stress_tile() -> World {
    let preset = Preset::by_name("elwynn-client").expect("preset");
    let mut tile = preset
        .source()
        .load(preset.centre())
        .expect("the centre tile generates");
    for (i, m) in tile.mcnks.iter_mut().enumerate() {
        let k = i as u32;
        let ids = [1, 2, 3, 4, 5, 77_777, 0];
        for (j, l) in m.layers.iter_mut().enumerate() {
            l.effect_id = ids[(i + j * 3) % ids.len()];
        }
        for row in 0..8 {
            for col in 0..8 {
                let h = sward_scenes::rng::hash32(k * 64 + row * 8 + col);
                m.header.pred_tex.set(row, col, h & 3);
                m.header.no_effect_doodad.set(row, col, h % 11 == 0);
            }
        }
        m.header.holes_low_res = if i % 5 == 0 { 0x0421 } else { 0 };
        if i % 3 == 0 {
            for row in 0..9 {
                for col in 4..9 {
                    m.heights[outer_index(row, col)] += 40.0 + (row * col) as f32;
                }
            }
        }
    }
    let mut world = World::new("placement-stress");
    world.insert(Arc::new(tile)).expect("a valid tile");
    world
}

#[test]
fn stress_records_cover_every_skip_reason_and_dangling_slots() {
    let Some(gpu) = sward_engine::testing::gpu() else {
        return;
    };
    let (resolved, model_count) = stress_effects();
    let world = stress_tile();
    let bench = Bench::new(&gpu, &world, &resolved, model_count);
    let mcnks: Vec<ChunkCoord> = world.tiles()[0]
        .mcnks
        .iter()
        .step_by(5)
        .map(|m| m.chunk_coord(world.tiles()[0].coord))
        .collect();
    let per_cell = *Preset::by_name("elwynn-dense").expect("preset").policy();
    let mut totals = ChunkStatsGpu::default();
    for policy in [
        per_cell,
        Policy::Client(Default::default()),
        Policy::Client335(Default::default()),
    ] {
        let right = generator(&gpu, &policy);
        let wrong = wrong_generator(&gpu, &policy);
        let densities: &[Option<u32>] = match policy.density() {
            Some(_) => &[Some(16), Some(48), Some(256)],
            None => &[None],
        };
        for &d in densities {
            let p = d.map_or(policy, |d| policy.with_density(d).expect("density"));
            let label = format!("stress tile, {} density {d:?}", p.name());
            let parity = check(&gpu, &bench, &right, &wrong, &label, &p, &mcnks);
            add_totals(&mut totals, &parity.totals);
        }
    }
    let t = totals;
    for (what, n) in [
        ("noEffectDoodad", t.cells_no_effect_doodad),
        ("hole", t.cells_hole),
        ("missing layer", t.cells_invalid_layer),
        ("effect-less layer", t.cells_no_effect),
        ("unknown effect", t.cells_unknown_effect),
        ("empty effect", t.cells_empty_effect),
        ("empty slot", t.empty_slots),
        ("dangling slot", t.dangling_slots),
        ("steep triangle", t.steep_slopes),
        ("low coverage", t.cells_low_coverage),
    ] {
        assert!(n > 0, "the stress tile never hit: {what}");
    }
}

#[test]
fn real_335_tile_matches_the_cpu_at_16_48_and_256() {
    let Some(gpu) = sward_engine::testing::gpu() else {
        return;
    };
    let Some(scene) = real_335_scene() else {
        return;
    };
    assert_eq!(scene.policy().name(), "client-3.3.5");
    let world = scene.world();
    let tile = world.tile(TileCoord::new(42, 29)).expect("tile 42,29");
    let bench = Bench::new(&gpu, world, &scene.resolved, scene.models.len());
    let mcnks: Vec<ChunkCoord> = tile
        .mcnks
        .iter()
        .map(|m| m.chunk_coord(tile.coord))
        .collect();
    let policy = *scene.policy();
    let right = generator(&gpu, &policy);
    let wrong = wrong_generator(&gpu, &policy);
    for d in [16, 48, 256] {
        let p = policy.with_density(d).expect("density");
        let label = format!("real 3.3.5 Azeroth 42,29, density {d}");
        let parity = check(&gpu, &bench, &right, &wrong, &label, &p, &mcnks);
        if d == 16 {
            assert_eq!(parity.placements as u64, scene.stats.placements);
        }
    }
}

/// The real 3.3.5 tile 42,29 placed with the client policy (the 3.3.5
/// routine), models as placeholders; `None` (the test passes, saying so)
/// without `SWARD_REAL_DATA`, a failure under `SWARD_REQUIRE_REAL_DATA=1`.
fn real_335_scene() -> Option<sward_scenes::Scene> {
    let Some(dir) = std::env::var_os("SWARD_REAL_DATA") else {
        assert!(
            std::env::var("SWARD_REQUIRE_REAL_DATA").as_deref() != Ok("1"),
            "SWARD_REQUIRE_REAL_DATA=1 but SWARD_REAL_DATA does not name the real client files"
        );
        println!("real-data placement parity: skipped (set SWARD_REAL_DATA)");
        return None;
    };
    let mut root = std::path::PathBuf::from(dir);
    if root.is_relative() && !root.is_dir() {
        root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(root);
    }
    let client = root.join("client-335");
    assert!(
        client.is_dir(),
        "{} has no client-335 folder",
        root.display()
    );
    let src = Arc::new(
        sward_scenes::formats::DataSource::open(&client).unwrap_or_else(|e| panic!("{e}")),
    );
    let sel = sward_scenes::formats::maps::WorldSelection {
        map: Some("Azeroth".into()),
        tile: Some(TileCoord::new(42, 29)),
        ..Default::default()
    };
    Some(
        sward_scenes::formats::load_scene_from(src, &sel, Policy::Client(Default::default()))
            .unwrap_or_else(|e| panic!("the real 3.3.5 tile loads: {e}")),
    )
}

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
    use wgpu::util::DeviceExt;
    let device = &gpu.device;
    let shader = sward_engine::shader::create_shader(device, modules::PROBE_PLACEMENT)
        .unwrap_or_else(|e| panic!("{e}"));
    let pipeline =
        sward_engine::bind::compute_pipeline_auto(device, "probe.placement", &shader, "main");
    let fence = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("probe.placement.fence"),
        contents: bytemuck::cast_slice(&[0u32; 4]),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let inputs = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("probe.placement.in"),
        contents: bytemuck::cast_slice(input),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let size = (input.len() * std::mem::size_of::<ProbeOut>()) as u64;
    let output = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("probe.placement.out"),
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
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
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups((input.len() as u32).div_ceil(64), 1, 1);
    }
    gpu.queue.submit([encoder.finish()]);
    let bytes = sward_engine::targets::read_buffer(device, &gpu.queue, &output, size)
        .unwrap_or_else(|e| panic!("{e}"));
    bytemuck::pod_collect_to_vec(&bytes)
}

/// The generator's number helpers on the GPU equal their CPU references:
/// the client generator's draws (also after a 1,000-draw skip) and signed
/// floats, sward's Rng32 stream and hashes, the 64-bit product's high word,
/// coverage / 255 for every byte and the world axis (bit-identical in all
/// but a counted few, within one ulp).
#[test]
fn probe_matches_the_cpu_helpers() {
    use sward_scenes::placement::client_rng::ClientRng;
    use sward_scenes::rng::{hash_words, Rng32};
    let Some(gpu) = sward_engine::testing::gpu() else {
        return;
    };
    let mut rng = Rng32::new(0x9b0e);
    let input: Vec<ProbeIn> = (0..4096u32)
        .map(|i| {
            let g = rng.below(1024);
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
                t: (sward_scenes::placement::client_rng::signed_unit(rng.next_u32()) + 1.0) * 0.5,
                _pad: 0,
            }
        })
        .collect();
    let out = run_probe(&gpu, &input);
    let mut axis_off = 0;
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
        assert_eq!(
            o.axis.to_bits(),
            cpu::place_axis(p.p0, p.cell, p.t).to_bits()
        );
        let exact = (p.p0 as f64
            - (p.cell as f64 + p.t as f64) * sward_scenes::world::coords::UNIT_SIZE)
            as f32;
        if o.axis != exact {
            axis_off += 1;
            assert!((o.axis - exact).abs() <= exact.abs() * f32::EPSILON);
        }
    }
    println!(
        "probe: {} inputs, world axis off the f64 reference in {axis_off}",
        input.len()
    );
    assert!(axis_off <= 2, "{axis_off} axes off the f64 reference");
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
        ("PLACE_UNIT_HI", cpu::PLACE_UNIT_HI),
        ("PLACE_UNIT_LO", cpu::PLACE_UNIT_LO),
        ("PLACE_UNIT_LO2", cpu::PLACE_UNIT_LO2),
    ] {
        assert_eq!(f32_of(name).to_bits(), want.to_bits(), "{name}");
    }
    let naga::Expression::Compose { components, .. } = value("CLIENT_NOISE") else {
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
