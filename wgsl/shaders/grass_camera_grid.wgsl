// Rust mirror: sward_passes::grass::camera_grid::gpu (GridDraw and the
// pipelines); CPU reference of the blade: grass::camera_grid::grid.
//
// Grass `camera-grid`: the instance index names a blade candidate of the
// camera-centred slot grid (`camera_grid` snippet); no instance data is
// uploaded. One draw per model, with that model's geometry (its sub-range of
// the shared GrassModels buffers) and its material bind group (group 1).
//   vs_direct   instance n = candidate n of the whole grid; a candidate that
//               is not drawn, or resolves to another model, collapses to a
//               point outside the clip volume (no fragments);
//   vs_compact  instance n = record n of this model's region of the list
//               the compaction (grass_camera_grid_compact.wgsl) wrote this
//               frame, the region starting where the regions buffer says:
//               one fetch gives the matrix and the wind origin, as
//               static-batch's instance matrix does.
// Fade, alpha-to-coverage / discard and wind are the shared `grass_surface`
// (same snippets as static-batch); wind is phased by the blade's world position.

//! import grass_surface, camera_grid

// Per-draw record (dynamic uniform offset, one per model).
struct GridDraw {
    // Model drawn.
    model: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(2) @binding(1) var<uniform> grid_draw: GridDraw;
@group(2) @binding(4) var<storage, read> grid_compacted: array<GridInstance>;
// counts, then each model's first record (offsets), then cursors.
@group(2) @binding(10) var<storage, read> grid_regions: array<u32>;

struct GridVertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
}

fn collapsed() -> VertexOut {
    var out: VertexOut;
    out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
    out.uv = vec2<f32>(0.0);
    out.normal = vec3<f32>(0.0, 0.0, 1.0);
    out.fade = 0.0;
    out.eye_distance = 0.0;
    return out;
}

fn candidate_vertex(n: u32, v: GridVertexIn) -> VertexOut {
    let s = grid_instance_slot(n);
    let b = grid_blade(s.x, s.y, u32(s.z));
    if (b.status != GRID_DRAWN || b.model != grid_draw.model) {
        return collapsed();
    }
    return grass_vertex(grid_blade_matrix(b), grid_wind_origin(b), v.position, v.normal, v.uv);
}

@vertex
fn vs_direct(v: GridVertexIn, @builtin(instance_index) n: u32) -> VertexOut {
    return candidate_vertex(n, v);
}

@vertex
fn vs_compact(v: GridVertexIn, @builtin(instance_index) n: u32) -> VertexOut {
    let i = grid_compacted[grid_regions[grid.model_count + grid_draw.model] + n];
    let origin = vec3<f32>(i.rot_origin.zw, i.root_scale.z);
    return grass_vertex(grid_instance_matrix(i), origin, v.position, v.normal, v.uv);
}
