//! GPU tests of `gpu-cull:placement=gpu` against `placement=descriptors`:
//! at every named view of `seams-holes` (per-cell) and `elwynn-client`
//! (the 1.12 routine), the generated tier draws the same clumps (every drawn descriptor equal to
//! one the CPU packed, in the same patch frame, the same model), the same
//! `instances_drawn` and an identical image (and at `scale-16`'s
//! `ground-yaw0`, 12,000 placements per MCNK); a deliberately wrong packing
//! (truncation instead of rounding) is caught; tiles stream out and back as
//! records.

use std::collections::BTreeMap;

use sward_engine::gpu_or_skip;
use sward_engine::GpuContext;
use sward_scenes::Scene;

use super::super::cull::CullModel;
use super::super::descriptor::GrassDescriptor;
use super::super::patches::{GrassPatchGpu, PatchSet, PatchSize};
use super::super::{CullMode, DistanceLod, GpuCull, GpuCullOptions, Placement};
use super::{
    gpu_visible, instance_tier, model_of, reach_of, read_words, render, save, view_at, Drawer,
};
use crate::atlas::HeightAtlas;
use crate::frame::FrameView;
use crate::grass::GrassModels;
use crate::technique::SceneData;
use crate::testkit::preset;

/// A drawn clump: model, descriptor words but the patch index, and its
/// patch frame's bits.
type Clump = (u32, [u32; 3], [u32; 3]);

fn clump(model: u32, d: &GrassDescriptor, frame: &GrassPatchGpu) -> Clump {
    (
        model,
        [d.local, d.yaw_scale, d.seed],
        [
            frame.world[0].to_bits(),
            frame.world[1].to_bits(),
            frame.world[2].to_bits(),
        ],
    )
}

fn count(list: impl IntoIterator<Item = Clump>) -> BTreeMap<Clump, u32> {
    let mut m = BTreeMap::new();
    for c in list {
        *m.entry(c).or_insert(0) += 1;
    }
    m
}

/// What `placement=descriptors` drew: its visible descriptors as clumps.
fn descriptor_clumps(gpu: &GpuContext, t: &GpuCull, set: &PatchSet) -> BTreeMap<Clump, u32> {
    let kept = gpu_visible(gpu, t, set);
    let descs: Vec<GrassDescriptor> = read_words(gpu, t.descriptor_buffer());
    let rows: Vec<GrassPatchGpu> = read_words(gpu, t.patch_buffer());
    let model_of = model_of(set);
    // The whole-window build keeps the set's numbering.
    count(kept.iter().map(|&i| {
        let d = &descs[i as usize];
        clump(model_of[&i], d, &rows[d.patch_index as usize])
    }))
}

/// What `placement=gpu` drew: per model, its region of the visible list
/// (as the GPU laid it out) up to its draw's instance count.
fn generated_clumps(gpu: &GpuContext, t: &GpuCull, models: usize) -> BTreeMap<Clump, u32> {
    let (state, visible, _) = t.instance_output().expect("instance culling");
    let state: Vec<u32> = read_words(gpu, state);
    let visible: Vec<u32> = read_words(gpu, visible);
    let descs: Vec<GrassDescriptor> = read_words(gpu, t.descriptor_buffer());
    let rows: Vec<GrassPatchGpu> = read_words(gpu, t.patch_buffer());
    let table: Vec<CullModel> = read_words(gpu, t.cull_model_buffer());
    let counts = super::State::instances(&state, models);
    let mut out = Vec::new();
    for m in 0..models {
        let base = table[m].visible_base;
        let draw = &state[super::State::ARGS + super::State::ARGS_WORDS * m..];
        assert_eq!(draw[4], base, "model {m}: first instance is its region");
        for &i in &visible[base as usize..(base + counts[m]) as usize] {
            let d = &descs[i as usize];
            out.push(clump(m as u32, d, &rows[d.patch_index as usize]));
        }
    }
    count(out)
}

fn generated_tier(
    gpu: &GpuContext,
    models: &GrassModels,
    scene: &Scene,
    atlas: &HeightAtlas,
    emit: Option<&'static str>,
) -> GpuCull {
    let options = GpuCullOptions {
        patch: PatchSize::Block2,
        cull: CullMode::Instance,
        placement: Placement::Gpu,
        ..GpuCullOptions::default()
    };
    let data = SceneData::from_scene(scene);
    let world = scene.world();
    let tiles = world.tiles();
    let mut t =
        GpuCull::with_generation_emit(gpu, models, &data, atlas, options, tiles.len() as u32, emit)
            .expect("placement=gpu tier");
    for tile in tiles {
        t.set_tile_records(gpu, tile.coord, Some(tile), None, atlas)
            .expect("records");
    }
    t.commit_generation(gpu, models);
    gpu.flush_copies();
    t
}

/// The two tiers a parity test compares: `placement=descriptors` (per
/// instance culled, 2x2 patches), the packed set it draws from, and
/// `placement=gpu` with the same options (its sink shader `emit`, when
/// given, instead of the shipped one).
fn both_tiers(
    gpu: &GpuContext,
    models: &GrassModels,
    scene: &Scene,
    atlas: &HeightAtlas,
    emit: Option<&'static str>,
) -> (GpuCull, PatchSet, GpuCull) {
    let stored = instance_tier(
        gpu,
        models,
        scene,
        atlas,
        PatchSize::Block2,
        DistanceLod::default(),
    );
    let set = PatchSet::build(
        scene.world(),
        scene.placements(),
        &reach_of(models),
        PatchSize::Block2,
    )
    .unwrap();
    let generated = generated_tier(gpu, models, scene, atlas, emit);
    (stored, set, generated)
}

/// What the technique does before each frame: room for what `v` can keep.
fn reserve(gpu: &GpuContext, t: &mut GpuCull, atlas: &HeightAtlas, v: &FrameView) {
    let s = &v.settings;
    let amplitude = if s.wind { s.wind_amplitude } else { 0.0 };
    t.reserve_generation(gpu, atlas, s.grass_distance, amplitude)
        .expect("room");
}

/// Renders `views` of `scene` with both placement values; asserts equal
/// clumps, counters and images. Returns the clumps drawn.
fn assert_same(gpu: &GpuContext, name: &str, scene: &Scene, views: &[&str]) -> u64 {
    let models = GrassModels::new(gpu, &scene.models).unwrap();
    let atlas = HeightAtlas::new(gpu, scene.world()).unwrap();
    let (mut stored, set, mut generated) = both_tiers(gpu, &models, scene, &atlas, None);
    let mut drawn = 0;
    for view in views {
        let v = view_at(scene, view, [192, 128], 4);
        reserve(gpu, &mut generated, &atlas, &v);
        let (a, ra) = render(gpu, &models, &mut Drawer::Cull(&mut stored), &v, 4);
        let (b, rb) = render(gpu, &models, &mut Drawer::Cull(&mut generated), &v, 4);
        let want = descriptor_clumps(gpu, &stored, &set);
        let got = generated_clumps(gpu, &generated, models.len());
        let n: u32 = want.values().sum();
        let [mcnks, placements, overflow] = generated.generated_lately().expect("read back");
        eprintln!(
            "{name} {view}: generated {mcnks} MCNKs, {placements} placements, overflow {overflow}"
        );
        let missing = want.iter().filter(|(c, k)| got.get(c) != Some(k)).count();
        let extra = got.iter().filter(|(c, k)| want.get(c) != Some(k)).count();
        assert!(
            missing == 0 && extra == 0,
            "{name} {view}: {n} clumps drawn with descriptors, {} generated; {missing} missing, {extra} extra; first missing {:?}, first extra {:?}",
            got.values().sum::<u32>(),
            want.iter().find(|(c, k)| got.get(c) != Some(k)),
            got.iter().find(|(c, k)| want.get(c) != Some(k)),
        );
        let (da, db) = (
            ra.pass("grass.draw").unwrap().counters,
            rb.pass("grass.draw").unwrap().counters,
        );
        assert_eq!(da.instances_drawn, db.instances_drawn, "{name} {view}");
        assert_eq!(da.instances_drawn, u64::from(n), "{name} {view}");
        save(&b, &format!("placement-gpu-{name}-{view}"));
        let (_, differing) = crate::grass::tests::image_diff(&a, &b);
        eprintln!("{name} {view}: {n} clumps drawn, differing pixels {differing}");
        assert_eq!(differing, 0.0, "{name} {view}: images differ");
        assert_eq!(overflow, 0);
        // Submitted: the stored path's resident descriptors, the
        // generated path's placements generated this frame.
        assert_eq!(
            db.instances_submitted,
            u64::from(placements),
            "{name} {view}"
        );
        assert!(
            da.instances_submitted >= db.instances_submitted,
            "{name} {view}"
        );
        assert!(u64::from(placements) >= u64::from(n));
        drawn += u64::from(n);
    }
    drawn
}

#[test]
fn placement_gpu_draws_what_descriptors_draw() {
    gpu_or_skip!(gpu);
    let views = ["ground-yaw0", "ground-yaw90", "aerial"];
    let mut total = 0;
    for name in ["seams-holes", "elwynn-client"] {
        let scene = preset(name);
        let names: Vec<&str> = views
            .iter()
            .copied()
            .filter(|v| scene.view(v).is_some())
            .collect();
        assert!(!names.is_empty(), "{name} has none of {views:?}");
        total += assert_same(gpu, name, scene, &names);
    }
    // Up to 12,352 placements per MCNK: long, divergent generator loops
    // (lavapipe once miscounted a model's placements here).
    total += assert_same(gpu, "scale-16", preset("scale-16"), &["ground-yaw0"]);
    assert!(total > 0, "something was drawn");
}

#[test]
fn a_wrong_packing_is_caught() {
    gpu_or_skip!(gpu);
    let (scene, models) = crate::grass::tests::scene_and_models(gpu);
    let atlas = HeightAtlas::new(gpu, scene.world()).unwrap();
    let wrong: &'static str = Box::leak(
        sward_wgsl::modules::GRASS_PLACE_SINK
            .source
            .replace("return u32(floor(v + 0.5));", "return u32(v);")
            .into_boxed_str(),
    );
    assert_ne!(wrong, sward_wgsl::modules::GRASS_PLACE_SINK.source);
    let (mut stored, set, mut broken) = both_tiers(gpu, &models, scene, &atlas, Some(wrong));
    let v = view_at(scene, "ground-yaw0", [192, 128], 4);
    reserve(gpu, &mut broken, &atlas, &v);
    render(gpu, &models, &mut Drawer::Cull(&mut stored), &v, 4);
    render(gpu, &models, &mut Drawer::Cull(&mut broken), &v, 4);
    let want = descriptor_clumps(gpu, &stored, &set);
    let got = generated_clumps(gpu, &broken, models.len());
    assert!(!want.is_empty());
    assert_ne!(got, want, "truncating the packing must change the clumps");
}

/// Tiles leave and come back as records (the streaming path): a tile out
/// draws less and writes no descriptor, one back draws exactly what the
/// tier drew before; the records' memory does not grow.
#[test]
fn records_stream_out_and_back() {
    gpu_or_skip!(gpu);
    let scene = preset("seams-holes");
    let world = scene.world();
    let models = GrassModels::new(gpu, &scene.models).unwrap();
    let atlas = HeightAtlas::new(gpu, world).unwrap();
    let mut t = generated_tier(gpu, &models, scene, &atlas, None);
    let v = view_at(scene, "aerial", [192, 128], 4);
    reserve(gpu, &mut t, &atlas, &v);
    let (before, _) = render(gpu, &models, &mut Drawer::Cull(&mut t), &v, 4);
    let all = generated_clumps(gpu, &t, models.len());
    let tiles = world.tiles();
    let (first, memory) = (tiles[0], t.gpu_memory_bytes());
    for _ in 0..2 {
        let bytes = t
            .set_tile_records(gpu, first.coord, None, None, &atlas)
            .unwrap();
        t.commit_generation(gpu, &models);
        // 256 freed bounds records (and palette slots the tile alone used).
        assert!((256 * 32..64 * 1024).contains(&bytes), "{bytes} bytes");
        render(gpu, &models, &mut Drawer::Cull(&mut t), &v, 4);
        let fewer = generated_clumps(gpu, &t, models.len());
        assert!(
            fewer.values().sum::<u32>() < all.values().sum::<u32>(),
            "the evicted tile's grass is gone"
        );
        let bytes = t
            .set_tile_records(gpu, first.coord, Some(first), None, &atlas)
            .unwrap();
        t.commit_generation(gpu, &models);
        // Records, bounds, patch rows (and palette entries): no descriptor.
        assert!(bytes < 64 * 1024, "{bytes} bytes");
        reserve(gpu, &mut t, &atlas, &v);
        let (after, _) = render(gpu, &models, &mut Drawer::Cull(&mut t), &v, 4);
        assert_eq!(generated_clumps(gpu, &t, models.len()), all);
        let (_, differing) = crate::grass::tests::image_diff(&before, &after);
        assert_eq!(differing, 0.0);
        assert_eq!(t.gpu_memory_bytes(), memory);
    }
}
