// Rust mirror: sward_passes::grass::gpu_cull::instances (state layout, bind
// groups, dispatches); CPU reference: grass::gpu_cull::instances::
// cpu_cull_instances; parity test
// `grass::gpu_cull::tests::gpu_instance_cull_keeps_the_cpu_reference_clumps`.
//
// Grass `gpu-cull` with `cull=instance`: `grass.cull`, two dispatches.
//   cull_patches    one invocation per (patch, model) entry (the patch test
//                   of `cull=patch`); a surviving entry is appended to the
//                   survivor list and adds one workgroup to the indirect
//                   dispatch of the next step (capped at `max_groups`; the
//                   workgroups then stride over the list).
//   cull_instances  one workgroup per surviving entry: each clump's root
//                   (the atlas height under its descriptor) is tested like
//                   legacy-cpu tests a clump (distance from the root, sphere
//                   against the frustum), thinned by the distance LOD, and
//                   the survivors' descriptor indices are compacted into
//                   their model's region of `visible` (one global atomic per
//                   64 clumps). The model's instance count in `state` is the
//                   `instance_count` of its indirect draw.
// With occlusion on, a clump whose sphere the terrain already drawn this
// frame hides (`hiz_test`) is dropped and counted. Whether the frame tests
// is the pipeline constant OCCLUSION (the Rust side builds cull_instances
// with each value and picks per frame), not the uniform `cull.hiz.w`: see
// sward_wgsl::uniform_branches.
// `state` and `dispatch` start each frame as written by the CPU (queue
// writes, no reset dispatch): no survivors, none occluded, per model the
// indexed draw with zero instances, and dispatch (0, 1, 1).

//! import grass_cull_entries, grass_root, hiz_test

// Whether this frame tests clumps against the Hi-Z pyramid (cull.hiz.w,
// the CPU reference's input, says the same).
override OCCLUSION: bool = false;

@group(0) @binding(3) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> visible: array<u32>;
// The indirect dispatch of `cull_instances` (x, y, z), its own buffer: a
// buffer read as dispatch args may not be bound for writing in that dispatch.
@group(0) @binding(5) var<storage, read_write> dispatch: array<atomic<u32>, 3>;
// The farthest-depth pyramid of this frame's terrain (occlusion on).
@group(1) @binding(0) var hiz_pyramid: texture_2d<f32>;

// Word offsets in `state`.
const STATE_SURVIVORS: u32 = 0u;
const STATE_OCCLUDED: u32 = 1u;
const STATE_ARGS: u32 = 8u;
const ARGS_WORDS: u32 = 5u;

fn survivor_word(s: u32) -> u32 {
    return STATE_ARGS + ARGS_WORDS * cull.model_count + s;
}

@compute @workgroup_size(64)
fn cull_patches(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (!cull_entry(i).kept) {
        return;
    }
    let s = atomicAdd(&state[STATE_SURVIVORS], 1u);
    atomicStore(&state[survivor_word(s)], i);
    if (s < cull.max_groups) {
        atomicAdd(&dispatch[0], 1u);
    }
}

// A clump before the occlusion test: whether distance, frustum and LOD
// keep it, and its bounding sphere.
struct Clump {
    kept: bool,
    sphere: vec4<f32>,
}

// Descriptor `di` of model `m`: distance and frustum, then LOD.
fn clump_test(di: u32, m: CullModel, sway: f32) -> Clump {
    var c = Clump(false, vec4<f32>(0.0));
    let r = grass_root(di);
    if (!r.found) {
        return c;
    }
    let radius = m.radius * r.scale;
    c.sphere = vec4<f32>(r.position, radius + sway);
    if (!grass_instance_visible(r.position, radius, sway, cull)) {
        return c;
    }
    let d = distance(r.position, cull.eye.xyz);
    c.kept = grass_lod_fade(grass_descriptors[di].seed, d, cull) > 0.0;
    return c;
}

var<workgroup> wg_value: u32;
var<workgroup> wg_kept: atomic<u32>;
var<workgroup> wg_base: u32;

@compute @workgroup_size(64)
fn cull_instances(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    if (lid == 0u) {
        wg_value = atomicLoad(&state[STATE_SURVIVORS]);
    }
    let survivors = workgroupUniformLoad(&wg_value);
    for (var s = group.x; s < survivors; s += groups.x) {
        if (lid == 0u) {
            wg_value = atomicLoad(&state[survivor_word(s)]);
        }
        let ei = workgroupUniformLoad(&wg_value);
        let e = entries[ei];
        let m = models[e.model];
        let sway = m.sway_height * cull.sway_amplitude;
        let count_word = STATE_ARGS + ARGS_WORDS * e.model + 1u;
        for (var start = 0u; start < e.count; start += 64u) {
            let k = start + lid;
            var clump = Clump(false, vec4<f32>(0.0));
            var slot = 0u;
            if (k < e.count) {
                clump = clump_test(e.first + k, m, sway);
            }
            // Occlusion runs in every invocation (outside the branch above):
            // lavapipe (Mesa 22.3) mis-reads mip levels in textureLoad under
            // a partial invocation mask.
            var keep = clump.kept;
            if (OCCLUSION) {
                let hidden = hiz_sphere_occluded(hiz_pyramid, cull.view_proj, cull.hiz.xy, u32(cull.hiz.z), clump.sphere.xyz, clump.sphere.w);
                if (keep && hidden) {
                    atomicAdd(&state[STATE_OCCLUDED], 1u);
                    keep = false;
                }
            }
            if (keep) {
                slot = atomicAdd(&wg_kept, 1u);
            }
            workgroupBarrier();
            if (lid == 0u) {
                wg_base = atomicAdd(&state[count_word], atomicLoad(&wg_kept));
                atomicStore(&wg_kept, 0u);
            }
            workgroupBarrier();
            if (keep) {
                visible[m.visible_base + wg_base + slot] = e.first + k;
            }
            workgroupBarrier();
        }
    }
}
