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

mod data;
mod parity;
mod probe;

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
            table: EffectTable::for_tiles(world.tiles().into_iter().map(|t| &**t), resolved)
                .unwrap_or_else(|e| panic!("table: {e}"))
                .1,
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
