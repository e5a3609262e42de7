//! GPU work counters of the grass draw: the same frame twice gives the same
//! counters, and one more clump adds exactly its model's shaded vertices.
//! Those are llvmpipe's (lavapipe's) counts: it shades each distinct vertex
//! of an instance once and clips every triangle it is given; a hardware
//! GPU's vertex cache re-shades some vertices and may cull triangles before
//! the clipper, so the test skips elsewhere with one line.

use sward_engine::gpu_or_skip;
use sward_engine::graph::{work_with_prefix, PipelineStats};
use sward_engine::Capability;
use sward_scenes::placement::{PlacementGroup, Placements};

use super::suppressed::suppressed_probes;
use super::*;

/// The drivers whose counts the test asserts.
const LLVMPIPE: &[&str] = &["llvmpipe"];

/// The grass passes' summed counters of the last of `frames` frames of a
/// static batch of `placements`.
fn grass_work(
    gpu: &GpuContext,
    models: &GrassModels,
    placements: &Placements,
    view: &FrameView,
) -> PipelineStats {
    let mut tier = StaticBatch::new(gpu, models, placements).unwrap();
    let mut off = Offscreen::for_view(gpu, view);
    let mut last = 0;
    for _ in 0..2 {
        last = off
            .frame(gpu, |g, targets| {
                tier.record(Frame::new(gpu, view, targets), g, models)
            })
            .frame;
    }
    let times = off.executor().flush(gpu);
    let work = times
        .into_iter()
        .find(|t| t.frame == last)
        .and_then(|t| t.work)
        .expect("the last frame's counters");
    work_with_prefix(&work, "grass.")
}

#[test]
fn one_more_clump_adds_its_models_vertices_and_nothing_else_moves() {
    gpu_or_skip!(gpu);
    if !sward_engine::testing::has_capabilities(
        gpu,
        "GPU work counters",
        &[Capability::PipelineStatistics],
    ) || !sward_engine::testing::requires_driver(
        gpu,
        "one more clump's vertex invocations",
        LLVMPIPE,
    ) {
        return;
    }
    let (scene, models) = scene_and_models(gpu);
    let (camera, probes) = suppressed_probes(scene);
    let view = view(camera, 4, settings(), 0.5);
    let base = (**scene.placements()).clone();

    let first = grass_work(gpu, &models, &base, &view);
    let again = grass_work(gpu, &models, &base, &view);
    assert_eq!(first, again, "the same frame twice, the same counters");
    assert!(first.vs_invocations > 0, "the view shows grass: {first:?}");

    // One clump of the largest model, standing in view, in a group of its own.
    let model = (0..scene.models.len())
        .max_by_key(|&m| scene.models[m].vertices.len())
        .unwrap_or(0);
    let mut more = base.clone();
    more.items.push(sward_scenes::Placement {
        position: probes[0].point.to_array(),
        yaw: 0.3,
        scale: 1.0,
        seed: 1,
    });
    more.groups.push(PlacementGroup {
        chunk: base.groups[0].chunk,
        model: model as u16,
        start: more.items.len() as u32 - 1,
        count: 1,
    });
    let added = grass_work(gpu, &models, &more, &view);
    let m = &scene.models[model];
    let (vertices, indices) = (m.vertices.len() as u64, m.indices.len() as u64);
    let vs = added.vs_invocations - first.vs_invocations;
    // llvmpipe shades each distinct vertex of an instance once (its vertex
    // cache de-duplicates the indices of a draw chunk), so one more instance
    // adds the model's vertex count, not its index count.
    assert_eq!(
        vs, vertices,
        "one clump added {vs} vertex invocations; the model has {vertices} vertices and {indices} indices"
    );
    assert_eq!(
        added.clipper_invocations - first.clipper_invocations,
        indices / 3,
        "one clump enters the clipper with its triangles"
    );
    assert_eq!(added.cs_invocations, first.cs_invocations);
}
