// Rust mirror: sward_passes::grass::camera_grid::compact (argument layout,
// regions); CPU reference: grass::camera_grid::grid::grid_blade and the
// distance/frustum test in grass::camera_grid::compact::cpu_visible.
//
// The `camera-grid` compaction pre-pass: one invocation per grid candidate
// evaluates the blade (`camera_grid` snippet), drops it unless it is drawn,
// within the draw distance and (optionally) inside the frustum with a
// conservative sphere, and appends the blade's instance record (root, scale,
// rotation, wind origin: everything the vertex stage needs, derived once
// here) to its model's region of the compacted list, counting in that
// model's indexed indirect arguments
// (instance_count, the second word of each 5-word record). The regions are
// `candidates_total` long, so no model can overflow into another.

//! import camera_grid, frustum

@group(2) @binding(4) var<storage, read_write> grid_compacted: array<GridInstance>;
@group(2) @binding(5) var<storage, read_write> grid_args: array<atomic<u32>>;

fn grid_visible(b: GridBlade) -> bool {
    if (distance(b.root, grid.eye.xyz) >= grid.eye.w) {
        return false;
    }
    if (grid.frustum_cull == 0u) {
        return true;
    }
    var f: Frustum;
    for (var p = 0u; p < 6u; p++) {
        f.planes[p] = grid.frustum[p];
    }
    let radius = grid.bounds.x * b.scale + grid.bounds.y;
    return frustum_sphere_visible(f, b.root, radius);
}

@compute @workgroup_size(64)
fn compact(@builtin(global_invocation_id) id: vec3<u32>) {
    let total = grid.side * grid.side * grid.candidates;
    let n = id.x + id.y * 65535u * 64u;
    if (n >= total) {
        return;
    }
    let s = grid_instance_slot(n);
    let b = grid_blade(s.x, s.y, u32(s.z));
    if (b.status != GRID_DRAWN || !grid_visible(b)) {
        return;
    }
    let at = atomicAdd(&grid_args[b.model * 5u + 1u], 1u);
    grid_compacted[b.model * total + at] = grid_instance(b);
}
