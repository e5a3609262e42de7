// Rust mirror: sward_passes::grass::gpu_cull (GpuCull's cull pass); CPU
// reference: grass::gpu_cull::cull::cpu_cull; parity test
// `grass::gpu_cull::tests::gpu_keeps_the_cpu_reference_entries`.
//
// `grass.cull`, two dispatches in one compute pass:
//   reset         zeroes the counts (and, for the plain multi-draw, the args);
//   cull_entries  one invocation per (patch, model) entry: a visible entry
//                 takes the next slot of its model's region of `args` (atomic
//                 compaction) and writes one indexed draw of its descriptors.
// `counts[m]` ends as the number of draws of model m (the multi-draw count)
// and `counts[model_count + m]` as the instances those draws submit.

//! import grass_cull_entries

@group(0) @binding(3) var<storage, read_write> args: array<DrawIndexedArgs>;
@group(0) @binding(4) var<storage, read_write> counts: array<atomic<u32>>;

@compute @workgroup_size(64)
fn reset(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i < 2u * cull.model_count) {
        atomicStore(&counts[i], 0u);
    }
    if (cull.zero_args != 0u && i < cull.entry_count) {
        args[i] = DrawIndexedArgs(0u, 0u, 0u, 0, 0u);
    }
}

@compute @workgroup_size(64)
fn cull_entries(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = cull_entry(id.x);
    if (!c.kept) {
        return;
    }
    let e = c.entry;
    let m = c.model;
    let slot = atomicAdd(&counts[e.model], 1u);
    atomicAdd(&counts[cull.model_count + e.model], e.count);
    args[m.args_base + slot] = DrawIndexedArgs(m.index_count, e.count, m.first_index, m.base_vertex, e.first);
}
