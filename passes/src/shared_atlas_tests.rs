//! The renderer's one exact height atlas
//! ([`crate::technique::SharedResources`]): with grass `gpu-cull` and
//! terrain `gpu-cull` together there is one atlas, counted once in GPU
//! memory, and a tile change writes its heights once (the pair uploads
//! exactly one atlas's share less than the two tiers alone); switching
//! tiers at run time (grass off with the terrain still on, and back; both
//! off the atlas, and back) keeps the atlas valid: every frame draws what
//! a fresh build of the same world draws.

use sward_engine::gpu_or_skip;
use sward_engine::GpuContext;
use sward_scenes::Scene;

use crate::atlas::{AtlasTile, HeightAtlas};
use crate::renderer::{SceneData, SceneRenderer};
use crate::streaming_tests::{
    assert_draws_like_a_fresh_build, build_renderer, prepare_off_thread, slide, view_over,
};
use crate::technique::{cap_combo, ResidencyChange, TierCombo};

/// `texts` as combinations, or `None` where the device caps one of them to
/// something else (the comparison would not be of these tiers).
fn combos<const N: usize>(gpu: &GpuContext, texts: [&str; N]) -> Option<[TierCombo; N]> {
    let combos = texts.map(|text| TierCombo::parse_list(text).expect("parses").remove(0));
    let capped = combos.iter().all(|c| cap_combo(&gpu.caps, c).0 == *c);
    capped.then_some(combos)
}

/// `changes` applied to `renderer` with the tiles prepared as the workers
/// would; its bytes uploaded (nothing rebuilt).
fn follow(
    gpu: &GpuContext,
    renderer: &mut SceneRenderer,
    scene: &Scene,
    changes: &[ResidencyChange],
) -> u64 {
    let prepared = prepare_off_thread(gpu, renderer, scene, changes);
    let report = renderer
        .residency_changed(gpu, SceneData::from_scene(scene), changes, prepared)
        .unwrap_or_else(|e| panic!("{:?}: {e}", renderer.tiers()));
    assert!(report.rebuilt.is_empty(), "rebuilt {:?}", report.rebuilt);
    assert_eq!(report.prepared_inline, 0);
    report.bytes_uploaded
}

#[test]
fn gpu_cull_pair_holds_one_height_atlas_and_writes_a_tile_change_once() {
    gpu_or_skip!(gpu);
    let Some([pair, grass, terrain]) =
        combos(gpu, ["gpu-cull+gpu-cull", "gpu-cull+off", "off+gpu-cull"])
    else {
        return;
    };
    let mut scene = crate::testkit::continent();
    let mut both = build_renderer(gpu, &scene, &pair);
    let mut alone = [
        build_renderer(gpu, &scene, &grass),
        build_renderer(gpu, &scene, &terrain),
    ];
    let one = both.height_atlas().expect("the pair binds the atlas");
    let atlas_memory = one.gpu_memory_bytes();
    assert!(atlas_memory > 0);
    // One atlas in the accounting: the pair holds what the two tiers hold
    // alone less one atlas; the grass section still counts the atlas its
    // tier binds, as it would alone.
    let memory = |[g, t]: &[SceneRenderer; 2]| g.gpu_memory_bytes() + t.gpu_memory_bytes();
    assert_eq!(both.shared_gpu_memory_bytes(), atlas_memory);
    assert_eq!(both.gpu_memory_bytes() + atlas_memory, memory(&alone));
    assert_eq!(
        both.grass_gpu_memory_bytes(),
        alone[0].grass_gpu_memory_bytes()
    );
    // What one atlas writes for the same changes, the tiles staged as the
    // workers stage them.
    let data = SceneData::from_scene(&scene);
    let mut reference = HeightAtlas::with_reach(gpu, scene.world(), data.atlas_reach())
        .unwrap_or_else(|e| panic!("{e}"));
    let start = scene.window.centre();
    for to in [start.offset(1, 0).expect("continent is wide"), start] {
        let changes = slide(&mut scene, to);
        let mut atlas_bytes = 0;
        let mut loaded = 0u64;
        for c in &changes {
            let (ResidencyChange::TileResident(t) | ResidencyChange::TileEvicted(t)) = *c else {
                unreachable!("tile changes only")
            };
            let world = scene.world();
            let staged = world
                .tile(t)
                .map(|a| AtlasTile::prepare(a).staged(&gpu.device));
            loaded += u64::from(staged.is_some());
            atlas_bytes += reference
                .set_tile_prepared(gpu, world, t, staged.as_ref())
                .unwrap_or_else(|e| panic!("{e}"))
                .expect("room");
        }
        // At least each loaded MCNK's heights and normals (17 x 9 texels
        // of 4 bytes each).
        assert!(
            atlas_bytes >= loaded * 256 * 17 * 9 * 4 * 2,
            "{atlas_bytes}"
        );
        let pair_bytes = follow(gpu, &mut both, &scene, &changes);
        let [g, t] = &mut alone;
        let alone_bytes = follow(gpu, g, &scene, &changes) + follow(gpu, t, &scene, &changes);
        assert_eq!(
            pair_bytes + atlas_bytes,
            alone_bytes,
            "to {to:?}: the pair writes the tiles' heights once"
        );
        let shared = both.height_atlas().expect("kept");
        assert_eq!(shared.records(), reference.records(), "the same slots");
        assert_eq!(both.gpu_memory_bytes() + atlas_memory, memory(&alone));
    }
}

/// Draws `renderer` at a view over `scene`'s centre and compares it with a
/// fresh build of its combination on the same world: images and counters.
fn draws_like_a_fresh_build(gpu: &GpuContext, renderer: &mut SceneRenderer, scene: &Scene) {
    let case = renderer.tiers().to_string();
    let view = view_over(scene, scene.window.centre());
    assert_draws_like_a_fresh_build(gpu, renderer, scene, &view, &case);
}

#[test]
fn switching_tiers_at_run_time_keeps_the_shared_atlas_valid() {
    gpu_or_skip!(gpu);
    let Some([pair, terrain, neither]) = combos(
        gpu,
        ["gpu-cull+gpu-cull", "off+gpu-cull", "off+static-chunks"],
    ) else {
        return;
    };
    let mut scene = crate::testkit::continent();
    let start = scene.window.centre();
    let east = start.offset(1, 0).expect("continent is wide");
    let mut r = build_renderer(gpu, &scene, &pair);
    let switch = |r: &mut SceneRenderer, scene: &Scene, combo: &TierCombo| {
        r.set_tiers(gpu, SceneData::from_scene(scene), combo)
            .unwrap_or_else(|e| panic!("{combo}: {e}"));
    };
    // Grass off, the terrain still on the atlas: the atlas follows a slide.
    switch(&mut r, &scene, &terrain);
    let changes = slide(&mut scene, east);
    follow(gpu, &mut r, &scene, &changes);
    assert!(r.height_atlas().is_some(), "the terrain still binds it");
    draws_like_a_fresh_build(gpu, &mut r, &scene);
    // Grass back on: built over the atlas as it is now (slots reused).
    switch(&mut r, &scene, &pair);
    draws_like_a_fresh_build(gpu, &mut r, &scene);
    let changes = slide(&mut scene, start);
    follow(gpu, &mut r, &scene, &changes);
    draws_like_a_fresh_build(gpu, &mut r, &scene);
    // Neither binds it: the next change lets it go; back on, a new one.
    switch(&mut r, &scene, &neither);
    let changes = slide(&mut scene, east);
    follow(gpu, &mut r, &scene, &changes);
    assert!(r.height_atlas().is_none(), "no technique binds it");
    assert_eq!(r.shared_gpu_memory_bytes(), 0);
    switch(&mut r, &scene, &pair);
    assert!(r.height_atlas().is_some());
    draws_like_a_fresh_build(gpu, &mut r, &scene);
    let changes = slide(&mut scene, start);
    follow(gpu, &mut r, &scene, &changes);
    draws_like_a_fresh_build(gpu, &mut r, &scene);
}
