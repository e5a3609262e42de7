//! Small hand-built worlds for the terrain tests (no presets needed).

use std::sync::Arc;

use sward_scenes::world::coords::TileCoord;
use sward_scenes::world::{hole_mask_for_cell, AdtTile, World};

/// The tile of [`cliff_world`].
pub const CLIFF_TILE: TileCoord = TileCoord::new(30, 40);

/// Height of the test worlds at global grid `(gx, gy)`: waves plus a cliff
/// step along the column direction.
pub fn cliff_height(gx: f64, gy: f64) -> f32 {
    (20.0 * (gx * 0.21).sin() * (gy * 0.13).cos() + 35.0 * ((gx - 3900.0) * 0.4).tanh()) as f32
}

/// A one-tile world with waves, a cliff and two hole blocks in MCNK (3, 5)
/// (cells (0..2, 0..2) and (4..6, 6..8)).
pub fn cliff_world() -> World {
    let mut tile = AdtTile::from_height_fn(CLIFF_TILE, vec![], &cliff_height, |_, _| Vec::new());
    let m = &mut tile.mcnks[5 * 16 + 3];
    m.header.holes_low_res = hole_mask_for_cell(0, 0) | hole_mask_for_cell(4, 6);
    let mut world = World::new("test");
    // The tile is built by `from_height_fn`, so it is valid.
    if let Err(e) = world.insert(Arc::new(tile)) {
        panic!("test world: {e}");
    }
    world
}
