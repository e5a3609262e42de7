//! criterion benches of sward's CPU work: placement build for the presets
//! (target: elwynn-dense per-cell under 150 ms, release, single thread), the
//! client policy, exact height queries and procedural tile generation.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use sward_scenes::placement::{ClientParams, Placements, Policy};
use sward_scenes::rng::Rng32;
use sward_scenes::world::coords;
use sward_scenes::{Preset, TileCoord};

fn placement(c: &mut Criterion) {
    let preset = Preset::by_name("elwynn-dense").expect("preset exists");
    let scene = preset.build().expect("elwynn-dense builds");
    let world = scene.world();
    let models = scene.models.len();
    let mut g = c.benchmark_group("placement");
    g.sample_size(20);
    g.bench_function("elwynn-dense/per-cell", |b| {
        b.iter(|| Placements::build_world(world, &scene.resolved, models, scene.policy()))
    });
    let client = Policy::Client(ClientParams::default());
    g.bench_function("elwynn-dense/client", |b| {
        b.iter(|| Placements::build_world(world, &scene.resolved, models, &client))
    });
    g.bench_function("elwynn-dense/count-only", |b| {
        b.iter(|| {
            world
                .tiles()
                .iter()
                .map(|t| {
                    Placements::count_tile(t, &scene.resolved, models, scene.policy()).placements
                })
                .sum::<u64>()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("height");
    let [cx, cy] = coords::tile_centre(preset.centre());
    let mut rng = Rng32::new(1);
    let points: Vec<(f64, f64)> = (0..100_000)
        .map(|_| {
            (
                cx + rng.range_f32(-700.0, 700.0) as f64,
                cy + rng.range_f32(-700.0, 700.0) as f64,
            )
        })
        .collect();
    g.bench_function("height_at/100k", |b| {
        b.iter(|| {
            points
                .iter()
                .filter_map(|&(x, y)| world.height_at(x, y))
                .sum::<f32>()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("terrain");
    g.sample_size(10);
    let source = preset.source();
    g.bench_function("generate-tile", |b| {
        b.iter(|| black_box(source.params.tile(TileCoord::new(32, 48))))
    });
    g.finish();
}

criterion_group!(benches, placement);
criterion_main!(benches);
