// Rust mirror: sward_passes::grass::camera_grid::resources (CompactBuffers:
// tags, regions, argument layout); CPU reference: grass::camera_grid::blade
// (grid_blade and the distance/frustum test) and
// grass::camera_grid::compaction (regions, the prefix sum with its overflow);
// parity tests in passes/src/grass/camera_grid/tests/compaction.rs.
//
// The `camera-grid` compaction, three dispatches a frame:
//   compact  one invocation per grid candidate evaluates the blade
//            (`camera_grid` snippet), keeps it if it is drawn, within the
//            draw distance and (optionally) inside the frustum with a
//            conservative sphere, tags the candidate with its model and
//            counts it in that model's count;
//   offsets  one workgroup lays the models' regions out one after another
//            from the counts (an exclusive prefix sum), clamps each to the
//            list's capacity, writes each model's drawn count into its
//            indexed indirect arguments (the second word of each 5-word
//            record) and the blades that found no room into the overflow
//            word after the last record, and zeroes the counts for the next
//            frame;
//   scatter  each tagged candidate takes the next record of its model's
//            region and stores the blade's instance record there (root,
//            scale, rotation, wind origin: everything the vertex stage
//            needs, derived once here).
// The list holds one record per kept blade (at most one per candidate), so
// its size does not grow with the number of models.

//! import camera_grid, frustum

@group(2) @binding(4) var<storage, read_write> grid_compacted: array<GridInstance>;
@group(2) @binding(5) var<storage, read_write> grid_args: array<u32>;
// counts[model_count], offsets[model_count], cursors[model_count].
@group(2) @binding(10) var<storage, read_write> grid_regions: array<atomic<u32>>;
@group(2) @binding(11) var<storage, read_write> grid_tags: array<u32>;

// A candidate that draws nothing.
const GRID_NO_TAG: u32 = 0xffffffffu;
const GRID_SCAN_SIZE: u32 = 256u;

var<workgroup> grid_sums: array<u32, 256>;

fn grid_visible(b: GridBlade) -> bool {
    if (distance(b.root, grid.eye.xyz) >= grid.eye.w) {
        return false;
    }
    var f: Frustum;
    for (var p = 0u; p < 6u; p++) {
        f.planes[p] = grid.frustum[p];
    }
    let radius = grid.bounds.x * b.scale + grid.bounds.y;
    // Tested either way and combined: no branch on the uniform switch
    // (see sward_wgsl::uniform_branches).
    return grid.frustum_cull == 0u || frustum_sphere_visible(f, b.root, radius);
}

fn grid_candidate(id: vec3<u32>) -> u32 {
    return id.x + id.y * 65535u * 64u;
}

@compute @workgroup_size(64)
fn compact(@builtin(global_invocation_id) id: vec3<u32>) {
    let total = grid.side * grid.side * grid.candidates;
    let n = grid_candidate(id);
    if (n >= total) {
        return;
    }
    let s = grid_instance_slot(n);
    let b = grid_blade(s.x, s.y, u32(s.z));
    if (b.status != GRID_DRAWN || !grid_visible(b)) {
        grid_tags[n] = GRID_NO_TAG;
        return;
    }
    grid_tags[n] = b.model;
    atomicAdd(&grid_regions[b.model], 1u);
}

@compute @workgroup_size(256)
fn offsets(@builtin(local_invocation_index) t: u32) {
    let models = grid.model_count;
    // Each invocation owns a run of consecutive models.
    let run = (models + GRID_SCAN_SIZE - 1u) / GRID_SCAN_SIZE;
    let first = min(t * run, models);
    let last = min(first + run, models);
    var sum = 0u;
    for (var m = first; m < last; m++) {
        sum += atomicLoad(&grid_regions[m]);
    }
    grid_sums[t] = sum;
    workgroupBarrier();
    // Inclusive scan of the runs' sums (Hillis-Steele).
    for (var d = 1u; d < GRID_SCAN_SIZE; d *= 2u) {
        var v = grid_sums[t];
        if (t >= d) {
            v += grid_sums[t - d];
        }
        workgroupBarrier();
        grid_sums[t] = v;
        workgroupBarrier();
    }
    let capacity = arrayLength(&grid_compacted);
    var offset = grid_sums[t] - sum;
    for (var m = first; m < last; m++) {
        let count = atomicLoad(&grid_regions[m]);
        let room = select(0u, capacity - offset, offset < capacity);
        atomicStore(&grid_regions[models + m], offset);
        atomicStore(&grid_regions[2u * models + m], offset);
        atomicStore(&grid_regions[m], 0u);
        grid_args[m * 5u + 1u] = min(count, room);
        offset += count;
    }
    if (t == GRID_SCAN_SIZE - 1u) {
        let kept = grid_sums[t];
        grid_args[models * 5u] = select(0u, kept - capacity, kept > capacity);
    }
}

@compute @workgroup_size(64)
fn scatter(@builtin(global_invocation_id) id: vec3<u32>) {
    let total = grid.side * grid.side * grid.candidates;
    let n = grid_candidate(id);
    if (n >= total) {
        return;
    }
    let model = grid_tags[n];
    if (model == GRID_NO_TAG) {
        return;
    }
    let models = grid.model_count;
    let at = atomicAdd(&grid_regions[2u * models + model], 1u);
    // The region's end: its first record plus the count the offsets pass
    // kept (fewer than tagged where the list overflowed).
    if (at >= atomicLoad(&grid_regions[models + model]) + grid_args[model * 5u + 1u]) {
        return;
    }
    let s = grid_instance_slot(n);
    grid_compacted[at] = grid_instance(grid_blade(s.x, s.y, u32(s.z)));
}
