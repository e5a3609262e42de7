// Rust mirror: the parity tests in sward_passes::atlas::tests (ProbeIn /
// ProbeOut there); CPU reference: sward_scenes::world::height.
//
// Evaluates the `height_atlas` snippet at given (slot, local) points and, for
// each point, also looks its window-relative grid position up through the
// chunk-index texture.

//! import height_atlas

struct ProbeWindow {
    // Global MCNK coordinate of the index window's origin corner.
    origin: vec2<u32>,
    _pad: vec2<u32>,
}

struct ProbeIn {
    // Local position in cells inside MCNK `slot` (x: columns, y: rows).
    local: vec2<f32>,
    // The same point in cells from the index window's origin corner.
    window_cell: vec2<f32>,
    slot: u32,
    _p0: u32,
    // A global lattice point (half-cells) for `atlas_lattice_world`.
    lattice: vec2<u32>,
}

struct ProbeOut {
    // Interpolated MCNR normal at `local`.
    normal: vec3<f32>,
    // Height relative to the MCNK base Z at `local`.
    height: f32,
    // Slot found through the chunk-index texture at `window_cell`.
    found_slot: u32,
    // Absolute height (base Z + relative) at `window_cell` via the lookup.
    found_height: f32,
    // atlas_lattice_world(lattice).
    lattice_world: vec2<f32>,
}

@group(0) @binding(0) var<uniform> window: ProbeWindow;
@group(0) @binding(1) var<storage, read> chunks: array<AtlasChunk>;
@group(0) @binding(2) var heights: texture_2d<f32>;
@group(0) @binding(3) var normals: texture_2d<f32>;
@group(0) @binding(4) var chunk_index: texture_2d<u32>;
@group(0) @binding(5) var<storage, read> points: array<ProbeIn>;
@group(0) @binding(6) var<storage, read_write> results: array<ProbeOut>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&results)) {
        return;
    }
    let p = points[i];
    let tile = chunks[p.slot].tile;
    var out: ProbeOut;
    out.height = height_atlas_local(heights, tile, p.local.x, p.local.y);
    out.normal = normal_atlas_local(normals, tile, p.local.x, p.local.y);
    let slot = atlas_slot_at(chunk_index, p.window_cell);
    out.found_slot = slot;
    out.found_height = 0.0;
    if (slot != ATLAS_NO_CHUNK) {
        let c = chunks[slot];
        let local = p.window_cell - vec2<f32>((c.chunk - window.origin) * 8u);
        out.found_height = c.base_z + height_atlas_local(heights, c.tile, local.x, local.y);
    }
    out.lattice_world = atlas_lattice_world(p.lattice);
    results[i] = out;
}
