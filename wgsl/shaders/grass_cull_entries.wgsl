// Rust mirror: sward_passes::grass::gpu_cull (the first three bindings of the
// `grass.cull` bind group of both cull modes); CPU reference: grass::gpu_cull::
// cull::cpu_cull (the entry test); parity: grass::gpu_cull::tests.
//
// The (patch, model) entry test both `grass.cull` variants start with
// (`grass_cull` for `cull=patch`, `grass_cull_instances` for `cull=instance`),
// one invocation per entry.

//! import grass_cull_types

@group(0) @binding(0) var<uniform> cull: GrassCull;
@group(0) @binding(1) var<storage, read> entries: array<PatchEntry>;
@group(0) @binding(2) var<storage, read> models: array<CullModel>;

// Entry `i` and its model; `kept` when `i` is in the list, the entry names a
// model of the table and its patch, grown by the model's sway, passes
// `grass_entry_visible`.
struct CulledEntry {
    kept: bool,
    entry: PatchEntry,
    model: CullModel,
}

fn cull_entry(i: u32) -> CulledEntry {
    var out: CulledEntry;
    if (i >= cull.entry_count) {
        return out;
    }
    out.entry = entries[i];
    if (out.entry.model >= cull.model_count) {
        return out;
    }
    out.model = models[out.entry.model];
    out.kept = grass_entry_visible(out.entry, out.model.sway_height * cull.sway_amplitude, cull);
    return out;
}
