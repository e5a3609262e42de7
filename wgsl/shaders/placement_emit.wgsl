// Rust mirror: sward_passes::grass::placement_gpu::generator (group 0
// bindings 4..6 of its layout, `Generated` read back); CPU reference:
// sward_scenes::placement (the Sink that collects placements); parity:
// passes/src/grass/placement_gpu/tests/ (every placement test).
//
// Where the readback generation (`grass.place`: inspect --gpu and the
// parity tests) writes a placement: appended to `placed` with an atomic
// counter, and each MCNK's counters to `place_stats`. Grass
// `gpu-cull:placement=gpu` composes the policies with `grass_place_emit`
// in this module's place (same functions, other outputs).

//! import placement_io

@group(0) @binding(4) var<storage, read_write> placed: array<Placed>;
@group(0) @binding(5) var<storage, read_write> place_counts: PlaceCounts;
@group(0) @binding(6) var<storage, read_write> place_stats: array<ChunkStats>;

// Appends one placement (counted; written while there is room).
fn place_emit(p: Placed, st: ptr<function, ChunkStats>) {
    (*st).placements += 1u;
    let i = atomicAdd(&place_counts.count, 1u);
    if (i < place_params.capacity) {
        placed[i] = p;
    }
}
