//! `sward inspect placements --gpu`: the placements the GPU generates for
//! chosen MCNKs of one tile, read back and listed as the CPU lists them
//! (`sward_scenes::placement::PlacementRecord`, in generation order), so the
//! two outputs compare line by line.

use std::sync::Arc;

use sward_engine::GpuContext;
use sward_scenes::placement::{InspectError, PlacementRecord};
use sward_scenes::world::coords::TILE_CHUNKS;
use sward_scenes::{Policy, Scene, TileCoord, World};

use super::generator::{Generated, GenerationInputs, PlacementGenerator};
use super::gpu::PlacedGpu;
use super::records::{EffectTable, McnkBatch};
use super::PlacementGpuError;
use crate::atlas::HeightAtlas;

/// The order a policy generates an MCNK's placements in: client routines by
/// pick then doodad index; `per-cell` by cell (row-major) then attempt.
pub fn generation_order(policy: &Policy, p: &PlacedGpu) -> (u32, u32, u32, u32) {
    match policy {
        Policy::PerCell(_) => (p.record, p.row() * 8 + p.col(), p.pick, p.n),
        _ => (p.record, p.pick, p.n, 0),
    }
}

/// Sorts generated placements into `policy`'s generation order, record by
/// record.
pub fn sort_generated(policy: &Policy, generated: &mut Generated) {
    generated
        .placements
        .sort_by_key(|p| generation_order(policy, p));
}

/// The placements of MCNKs `mcnks` (`(index_x, index_y)`; every MCNK of the
/// tile, row by row, when empty) of `tile` of `scene` under the scene's
/// policy, generated on `gpu` and listed as `Scene::inspect_placements`
/// lists them.
pub fn inspect_placements_gpu(
    gpu: &GpuContext,
    scene: &Scene,
    tile: TileCoord,
    mcnks: &[(u32, u32)],
) -> Result<Vec<PlacementRecord>, PlacementGpuError> {
    let t = scene.inspect_tile(tile)?;
    let list: Vec<(u32, u32)> = if mcnks.is_empty() {
        (0..TILE_CHUNKS)
            .flat_map(|y| (0..TILE_CHUNKS).map(move |x| (x, y)))
            .collect()
    } else {
        mcnks.to_vec()
    };
    let mut chosen = Vec::with_capacity(list.len());
    for &(x, y) in &list {
        if x >= TILE_CHUNKS || y >= TILE_CHUNKS {
            return Err(InspectError::McnkOutOfRange {
                x,
                y,
                n: TILE_CHUNKS,
            }
            .into());
        }
        let m = t.mcnk(x, y).ok_or(InspectError::MissingMcnk {
            tile: t.coord,
            x,
            y,
        })?;
        chosen.push((m.chunk_coord(t.coord), m));
    }
    let mut world = World::new("inspect");
    world
        .insert(Arc::clone(&t))
        .map_err(|e| PlacementGpuError::Input {
            what: format!("tile {},{}", tile.x, tile.y),
            reason: e.to_string(),
        })?;
    let atlas = HeightAtlas::new(gpu, &world)?;
    let policy = scene.policy();
    let (_, table) = EffectTable::for_tiles([&*t], &scene.resolved)?;
    let batch = McnkBatch::new(policy, chosen.iter().copied(), &atlas, &table)?;
    let generator = PlacementGenerator::new(gpu, policy)?;
    let capacity = u32::try_from(batch.capacity).map_err(|_| PlacementGpuError::Input {
        what: "generation".into(),
        reason: format!("room for {} placements needed", batch.capacity),
    })?;
    let mut generated = generator.generate(
        gpu,
        &atlas,
        &GenerationInputs {
            policy,
            records: &batch.records,
            cover: &batch.cover,
            effects: &table,
            capacity,
        },
    )?;
    sort_generated(policy, &mut generated);
    let paths = scene.model_paths();
    Ok(generated
        .placements
        .iter()
        .map(|p| {
            let (x, y) = list[p.record as usize];
            PlacementRecord {
                mcnk: [x, y],
                pick: p.pick,
                n: p.n,
                cell: [p.col(), p.row()],
                slot: p.slot(),
                doodad: p.doodad,
                model: paths
                    .get(p.model as usize)
                    .map_or_else(|| format!("model #{}", p.model), |m| (*m).to_owned()),
                position: p.position,
                yaw: p.yaw,
                scale: p.scale,
            }
        })
        .collect())
}
