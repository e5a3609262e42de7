// Rust mirror: sward_passes::grass::camera_grid::grid (grid_blade); used by
// the stability, parity and identity tests in
// passes/src/grass/camera_grid/tests/.
//
// Writes the blade of every candidate of the grid (instance order) as 12
// words: status, model, control, cell index, root xyz, yaw, scale, phase,
// world slot i, j (bit patterns).

//! import camera_grid

@group(3) @binding(0) var<storage, read_write> probe_out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let total = grid.side * grid.side * grid.candidates;
    let n = id.x + id.y * 65535u * 64u;
    if (n >= total) {
        return;
    }
    let s = grid_instance_slot(n);
    let b = grid_blade(s.x, s.y, u32(s.z));
    let o = n * 12u;
    probe_out[o] = b.status;
    probe_out[o + 1u] = b.model;
    probe_out[o + 2u] = b.control;
    probe_out[o + 3u] = b.cell_index;
    probe_out[o + 4u] = bitcast<u32>(b.root.x);
    probe_out[o + 5u] = bitcast<u32>(b.root.y);
    probe_out[o + 6u] = bitcast<u32>(b.root.z);
    probe_out[o + 7u] = bitcast<u32>(b.yaw);
    probe_out[o + 8u] = bitcast<u32>(b.scale);
    probe_out[o + 9u] = bitcast<u32>(b.phase);
    probe_out[o + 10u] = bitcast<u32>(s.x);
    probe_out[o + 11u] = bitcast<u32>(s.y);
}
