//! What a tile becoming resident or evicted changes, in place: its height
//! atlas slots, splat records and alpha tiles ([`splat_tile`]), its
//! chunk-index texels ([`Clipmap::set_tile_shading`]), the cell rectangles
//! the next compute fill re-fills ([`FillState::add_regions`]) and a
//! refinement re-bake ([`Clipmap::apply_residency`]).

use super::state::{Clipmap, FillState, MAX_REGIONS, NO_CHUNK};
use sward_engine::GpuContext;
use sward_scenes::world::coords::{TileCoord, CHUNK_CELLS, TILE_CHUNKS};
use sward_scenes::World;

use crate::atlas::{AtlasReach, HeightAtlas};
use crate::error::PassError;
use crate::technique::{Residency, ResidencyChange};
use crate::terrain::splat_gpu::SplatGpu;

/// Writes (or, when `world` no longer has it, frees) the splat records and
/// alpha tiles of tile `t`, its MCNKs' records at their height-atlas slots;
/// the bytes written, `None` when the splat resources have no room.
pub(super) fn splat_tile(
    splat: &mut SplatGpu,
    gpu: &GpuContext,
    world: &World,
    atlas: &HeightAtlas,
    t: TileCoord,
    prepared: Option<crate::terrain::splat_gpu::SplatTile>,
) -> Result<Option<u64>, PassError> {
    let mut slots = Vec::new();
    if let Some(tile) = world.tile(t) {
        let held = atlas.tile_slots(t);
        for m in &tile.mcnks {
            match held.of(m.chunk_coord(t)) {
                Some(slot) => slots.push(slot),
                None => return Ok(None),
            }
        }
    }
    splat.set_tile_prepared(gpu, world, t, &slots, prepared)
}

impl Clipmap {
    /// Applies tile residency changes in place (the world after them is
    /// `world`, the scene's reach `reach`): per changed tile, the height
    /// atlas ([`HeightAtlas::set_tile`]), the splat slots of its MCNKs (the
    /// same slots), its 16x16 texels of the chunk index and its height range;
    /// the level texels that read the tile are queued for the next frame's
    /// compute fill (they were filled from the far grid, or from the atlas).
    /// Answers [`Residency::Rebuild`] when built without a reach (or for
    /// another one), for MCNK-level changes, or when the atlas has no room.
    pub fn apply_residency(
        &mut self,
        gpu: &GpuContext,
        world: &World,
        reach: Option<AtlasReach>,
        changes: &[ResidencyChange],
        prepared: &mut crate::technique::PreparedTiles,
    ) -> Result<Residency, PassError> {
        if self.reach.is_none() || self.reach != reach {
            return Ok(Residency::Rebuild);
        }
        let mut tiles = Vec::with_capacity(changes.len());
        for change in changes {
            match change {
                ResidencyChange::TileResident(t) | ResidencyChange::TileEvicted(t) => {
                    tiles.push(*t)
                }
                _ => return Ok(Residency::Rebuild),
            }
        }
        let mut bytes = 0;
        for t in tiles {
            let (atlas, splat) =
                crate::terrain::TerrainTile::into_parts(prepared.take_resident(world, t)?);
            let Some(b) = self
                .atlas
                .set_tile_prepared(gpu, world, t, atlas.as_ref())?
            else {
                return Ok(Residency::Rebuild);
            };
            bytes += b;
            let Some(b) = self.set_tile_shading(gpu, world, t, splat)? else {
                return Ok(Residency::Rebuild);
            };
            bytes += b;
            let side = i64::from(TILE_CHUNKS * CHUNK_CELLS);
            let (x, y) = (i64::from(t.x) * side, i64::from(t.y) * side);
            self.fill.add_regions([[x, y, x + side, y + side]]);
        }
        // Which tiles refine depends on the resident world: flagged again
        // (as a fresh build would) on a worker thread.
        if self.refine_bound > 0.0 {
            self.request_rebake(gpu, world);
        }
        Ok(Residency::Applied {
            bytes_uploaded: bytes,
        })
    }

    /// The splat slots, chunk-index texels and height range of tile `t`
    /// after the atlas took it (or dropped it); the bytes written, `None`
    /// when the tile does not fit the chunk index.
    pub(super) fn set_tile_shading(
        &mut self,
        gpu: &GpuContext,
        world: &World,
        t: TileCoord,
        splat: Option<crate::terrain::splat_gpu::SplatTile>,
    ) -> Result<Option<u64>, PassError> {
        let side = TILE_CHUNKS;
        let first = sward_scenes::world::ChunkCoord {
            x: t.x * side,
            y: t.y * side,
        };
        let window = self.atlas.window();
        let Some(at) = window
            .texel(first)
            .filter(|at| at[0] + side <= window.size[0] && at[1] + side <= window.size[1])
        else {
            return Ok(None);
        };
        let Some(bytes) = splat_tile(&mut self.splat, gpu, world, &self.atlas, t, splat)? else {
            return Ok(None);
        };
        let mut texels = vec![[NO_CHUNK, 0u32]; (side * side) as usize];
        if let Some(tile) = world.tile(t) {
            let held = self.atlas.tile_slots(t);
            for m in &tile.mcnks {
                let c = m.chunk_coord(t);
                let Some(slot) = held.of(c) else {
                    return Ok(None);
                };
                let (x, y) = c.index_in_tile();
                texels[(y * side + x) as usize] = [slot, u32::from(m.header.holes_low_res)];
            }
        }
        let data: &[u8] = bytemuck::cast_slice(&texels);
        crate::atlas::write_region_staged(
            gpu,
            "terrain.clipmap.chunks",
            &self.chunk_texture,
            at,
            [side, side],
            8,
            data,
        );
        Ok(Some(bytes + data.len() as u64))
    }
}

impl FillState {
    /// Adds cell rectangles whose texels the next frame re-fills, merged
    /// into their bounding rectangle beyond [`MAX_REGIONS`].
    pub(super) fn add_regions(&mut self, rects: impl IntoIterator<Item = [i64; 4]>) {
        for rect in rects {
            if !self.regions.contains(&rect) {
                self.regions.push(rect);
            }
        }
        if self.regions.len() > MAX_REGIONS {
            let all = self
                .regions
                .iter()
                .fold([i64::MAX, i64::MAX, i64::MIN, i64::MIN], |a, r| {
                    [
                        a[0].min(r[0]),
                        a[1].min(r[1]),
                        a[2].max(r[2]),
                        a[3].max(r[3]),
                    ]
                });
            self.regions = vec![all];
        }
    }
}
