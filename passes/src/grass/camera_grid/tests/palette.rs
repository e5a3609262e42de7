//! Identity through the palette of resident effects: every blade a frame
//! draws (the compacted list, read back) is a doodad of the effect the CPU
//! reference resolves for its cell (the cell under its root, its predTex
//! layer's ground effect id, that id's GroundEffectTexture record), never
//! of whatever record a palette slot held before. Checked on a window whose
//! palette changes tile by tile (effects entering, leaving, freed slots
//! reused) and on the real 3.3.5 tile (a 24,982-record table).

use std::collections::HashMap;
use std::sync::Arc;

use sward_engine::gpu_or_skip;
use sward_engine::GpuContext;
use sward_scenes::effects::{GroundEffects, ResolvedEffects};
use sward_scenes::world::coords::world_to_grid;
use sward_scenes::world::ChunkCoord;
use sward_scenes::{AdtTile, TileCoord, World};

use super::compaction::read_back;
use super::*;
use crate::atlas::{AtlasReach, IndexWindow};
use crate::grass::camera_grid::blade::grid_blade;
use crate::grass::camera_grid::gpu::POLICY_ROTATION;

/// Checks every record the last frame drew against the CPU reference of
/// its cell's effect; returns how many were checked (records within a
/// hundredth of a cell of a cell border are skipped: f32 roots cannot name
/// their cell there).
fn assert_drawn_identity(
    gpu: &GpuContext,
    grid: &CameraGrid,
    model_count: usize,
    world: &World,
    effects: &ResolvedEffects,
) -> usize {
    let rb = read_back(gpu, grid, model_count);
    let rotation = grid.last_uniform.map(|u| u.policy) == Some(POLICY_ROTATION);
    let mut checked = 0;
    for (m, (&offset, &kept)) in rb.offsets.iter().zip(&rb.kept).enumerate() {
        if kept == 0 {
            continue;
        }
        for (root, _) in &rb.records[offset as usize..(offset + kept) as usize] {
            let [x, y, _] = root.map(f32::from_bits);
            let (gx, gy) = world_to_grid(f64::from(x), f64::from(y));
            let near = |g: f64| (g - g.round()).abs() < 0.01;
            if near(gx) || near(gy) {
                continue;
            }
            let (cx, cy) = (gx.floor() as u32, gy.floor() as u32);
            let chunk = ChunkCoord {
                x: cx / 8,
                y: cy / 8,
            };
            let (row, col) = (cy % 8, cx % 8);
            let mcnk = world
                .mcnk(chunk)
                .unwrap_or_else(|| panic!("blade at ({x}, {y}) on MCNK {chunk:?}, not resident"));
            assert!(!mcnk.header.is_hole(row, col), "blade in a hole");
            assert!(!mcnk.header.no_effect_doodad.is_set(row, col));
            let layer = mcnk.header.pred_tex.layer(row, col) as usize;
            let id = mcnk.layers[layer]
                .effect()
                .expect("the cell's layer has an effect");
            let e = effects.get(id).expect("the cell's effect resolves");
            let ok = e
                .slots
                .iter()
                .zip(&e.weights)
                .any(|(s, &w)| *s == Some(m as u16) && (w > 0 || rotation));
            assert!(
                ok,
                "a blade of model {m} at ({x}, {y}) in cell ({cx}, {cy}), whose effect {id} \
                 has models {:?}",
                e.slots
            );
            checked += 1;
        }
    }
    checked
}

/// The GPU's blade of every candidate equals the CPU mirror's (which reads
/// the CPU copies of the control words and the effect records).
fn assert_gpu_equals_mirror(gpu: &GpuContext, grid: &CameraGrid, world: &World) {
    let u = grid.last_uniform.expect("a frame was recorded");
    let inputs = grid.blade_inputs(world, &u);
    for p in probe(gpu, grid, &u) {
        let (i, j, k) = p.slot;
        assert_eq!(
            p.blade,
            grid_blade(&inputs, i, j, k),
            "candidate {:?}",
            p.slot
        );
    }
}

/// `tile` with every layer's ground effect id raised by `by`.
fn shifted(tile: &AdtTile, by: u32) -> Arc<AdtTile> {
    let mut t = tile.clone();
    for m in &mut t.mcnks {
        for l in &mut m.layers {
            if l.effect().is_some() {
                l.effect_id += by;
            }
        }
    }
    Arc::new(t)
}

/// The scene's effects plus `copies` copies at ids raised by 20,000 per
/// copy, copy `c`'s models moved `c` places along the list of the models
/// the effects use (so a blade drawn from the wrong copy's record shows as
/// a model its cell's effect cannot have).
fn effect_copies(scene: &sward_scenes::Scene, copies: u32) -> ResolvedEffects {
    let mut key_of_model: HashMap<u16, u32> = HashMap::new();
    for e in &scene.resolved.effects {
        for (s, &d) in e.slots.iter().zip(&e.doodads) {
            if let Some(m) = s {
                key_of_model.entry(*m).or_insert(d);
            }
        }
    }
    let mut used: Vec<u16> = key_of_model.keys().copied().collect();
    used.sort_unstable();
    assert!(used.len() > 4, "{} models", used.len());
    let mut textures = scene.effects.textures.clone();
    for c in 1..=copies {
        for (t, e) in scene.effects.textures.iter().zip(&scene.resolved.effects) {
            let mut t = t.clone();
            t.id += 20_000 * c;
            for (d, s) in t.doodads.iter_mut().zip(&e.slots) {
                if let Some(m) = s {
                    let at = used.iter().position(|u| u == m).expect("a used model");
                    *d = key_of_model[&used[(at + c as usize) % used.len()]];
                }
            }
            textures.push(t);
        }
    }
    let effects = GroundEffects::new(
        scene.effects.layout,
        textures,
        scene.effects.doodads.clone(),
    )
    .unwrap();
    let paths: Vec<&str> = scene.models.iter().map(|m| m.path.as_str()).collect();
    effects.resolve(&paths).unwrap()
}

#[test]
fn identity_holds_while_the_palette_changes() {
    gpu_or_skip!(gpu);
    let (scene, models) = crate::grass::tests::scene_and_models(gpu);
    let effects = effect_copies(scene, 3);
    let mut world = scene.world().clone();
    let tiles: Vec<TileCoord> = world.tiles().iter().map(|t| t.coord).collect();
    assert_eq!(tiles.len(), 4);
    let reach = AtlasReach {
        window: IndexWindow::covering(world.mcnks().map(|(c, _)| c)),
        capacity: 5 * 256,
    };
    fn scene_of<'a>(
        world: &'a World,
        effects: &'a ResolvedEffects,
        scene: &'a sward_scenes::Scene,
    ) -> GridScene<'a> {
        GridScene {
            world,
            effects,
            ..grid_scene(scene)
        }
    }
    let params = GridParams {
        side: 121,
        ..GridParams::default()
    };
    let mut grid = CameraGrid::with_reach(
        gpu,
        &models,
        scene_of(&world, &effects, scene),
        params,
        Some(reach),
    )
    .unwrap();
    let view = ground_view(scene, [128, 80], 1);
    let base = grid.resources().table.palette().len();
    assert!(base > 0);
    let slots_of = |grid: &CameraGrid, add: u32| -> Vec<u32> {
        let mut s: Vec<u32> = (0..20_000u32)
            .filter_map(|id| grid.resources().table.palette().slot(id + add))
            .collect();
        s.sort_unstable();
        s
    };
    let first_slots = slots_of(&grid, 0);
    // Each step replaces tiles by copies naming other effects: (tile, copy).
    let steps: [&[(usize, u32)]; 3] = [&[(0, 1)], &[(1, 2), (2, 2), (3, 2)], &[(0, 3)]];
    for (n, step) in steps.iter().enumerate() {
        for &(t, copy) in *step {
            let coord = tiles[t];
            let old = world.remove(coord).expect("resident");
            let gs = scene_of(&world, &effects, scene);
            grid.set_tile(gpu, &models, gs, coord, None, None)
                .unwrap()
                .expect("room in the atlas");
            let original = scene.world().tile(coord).unwrap();
            assert_eq!(old.coord, original.coord);
            world.insert(shifted(original, 20_000 * copy)).unwrap();
            let gs = scene_of(&world, &effects, scene);
            grid.set_tile(gpu, &models, gs, coord, None, None)
                .unwrap()
                .expect("room in the atlas");
        }
        render_frames(gpu, &models, &mut grid, &view, 1);
        let checked = assert_drawn_identity(gpu, &grid, models.len(), &world, &effects);
        assert_gpu_equals_mirror(gpu, &grid, &world);
        let palette = grid.resources().table.palette();
        eprintln!(
            "step {n}: {} effects resident in {} slots, {checked} drawn blades checked",
            palette.len(),
            palette.slots_used()
        );
        assert!(checked > 1_000, "{checked}");
    }
    // After the last step the first effects and copy 1 are gone, and copy 3
    // took freed slots of the first effects (the lowest free first).
    assert!(slots_of(&grid, 0).is_empty());
    assert!(slots_of(&grid, 20_000).is_empty());
    let third = slots_of(&grid, 60_000);
    assert!(!third.is_empty());
    assert!(
        third.iter().all(|s| first_slots.contains(s)),
        "{third:?} not in {first_slots:?}"
    );
}

#[test]
fn identity_holds_on_the_real_335_tile() {
    let Some(scene) = crate::testkit::real_335_tile("identity_holds_on_the_real_335_tile") else {
        return;
    };
    gpu_or_skip!(gpu);
    assert!(scene.resolved.effects.len() > 20_000);
    let models = GrassModels::new(gpu, &scene.models).unwrap();
    // Without the frustum test every blade within the draw distance is
    // drawn: a large sample of the tile.
    let params = GridParams {
        frustum_cull: false,
        ..GridParams::default()
    };
    let mut grid = CameraGrid::new(gpu, &models, grid_scene(&scene), params).unwrap();
    let table = &grid.resources().table;
    assert!(!table.palette().is_empty() && table.palette().len() <= 20);
    // Above the MCNK with the most placements.
    let per_chunk =
        scene
            .placements()
            .items
            .iter()
            .fold(HashMap::<(i64, i64), u32>::new(), |mut m, p| {
                let key = (
                    (p.position[0] / 33.333_332).floor() as i64,
                    (p.position[1] / 33.333_332).floor() as i64,
                );
                *m.entry(key).or_default() += 1;
                m
            });
    let (&(kx, ky), _) = per_chunk.iter().max_by_key(|(k, n)| (**n, **k)).unwrap();
    let (x, y) = (
        (kx as f32 + 0.5) * 33.333_332,
        (ky as f32 + 0.5) * 33.333_332,
    );
    let z = scene
        .world()
        .height_at(f64::from(x), f64::from(y))
        .unwrap_or(0.0);
    let camera = sward_engine::Camera {
        eye: glam::Vec3::new(x, y, z + 90.0),
        yaw_deg: 0.0,
        pitch_deg: -70.0,
        ..sward_engine::Camera::default()
    };
    let view = FrameView::new(camera, [128, 80], 1, 0.5, settings());
    render_frames(gpu, &models, &mut grid, &view, 1);
    let checked = assert_drawn_identity(gpu, &grid, models.len(), scene.world(), &scene.resolved);
    eprintln!(
        "real tile: {} effects resident, {checked} drawn blades checked",
        grid.resources().table.palette().len()
    );
    assert!(checked > 2_000, "{checked}");
}
