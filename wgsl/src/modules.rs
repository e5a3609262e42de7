//! The shader library: one constant per WGSL file in `wgsl/shaders/`, embedded
//! with `include_str!`. Call sites name these constants, never file paths.
//!
//! To add a shader: put `NAME.wgsl` in `shaders/` and add one line below; it is
//! then composed and naga-validated by the registry test automatically.

use crate::Module;

macro_rules! shader_modules {
    ($($(#[$doc:meta])* $ident:ident = $name:literal;)*) => {
        $(
            $(#[$doc])*
            pub const $ident: Module = Module {
                name: $name,
                source: include_str!(concat!("../shaders/", $name, ".wgsl")),
            };
        )*
        /// Every module of the library (the import namespace and the test registry).
        pub const ALL: &[Module] = &[$($ident),*];
    };
}

shader_modules! {
    /// Integer hashes (`pcg_hash`, `hash2`, `hash_unit`).
    HASH = "hash";
    /// The `Frustum` struct and sphere/AABB visibility tests.
    FRUSTUM = "frustum";
    /// Compute probe comparing `frustum` with the CPU camera (tests).
    PROBE_FRUSTUM = "probe_frustum";
    /// Compute probe comparing `hash` with its CPU mirror (tests).
    PROBE_HASH = "probe_hash";
    /// Structs shared by the built-in test scene's shaders.
    TEST_SCENE_TYPES = "test_scene_types";
    /// Test scene: per-instance frustum culling writing indirect args.
    TEST_SCENE_CULL = "test_scene_cull";
    /// Test scene: instanced lit draw of the culled instances.
    TEST_SCENE_DRAW = "test_scene_draw";
    /// Linear distance fog (`fog_factor`, `apply_fog`), shared by terrain and grass.
    FOG = "fog";
    /// Sun lighting: ambient + diffuse N.L (`sun_lighting`).
    LIGHTING = "lighting";
    /// Compute probe comparing `fog` and `lighting` with their CPU mirrors (tests).
    PROBE_SHADING = "probe_shading";
    /// Terrain shading shared by every terrain tier (`TerrainUniforms`, `TerrainChunk`, `terrain_shade`).
    TERRAIN_SHADE = "terrain_shade";
    /// The per-MCNK terrain tiers' uniforms, vertex output and fragment entry (`static-chunks`, `atlas-instanced`).
    TERRAIN_MCNK_SURFACE = "terrain_mcnk_surface";
    /// Terrain `static-chunks`: per-MCNK vertex buffers, four-layer splat, sun, fog.
    TERRAIN_STATIC = "terrain_static";
    /// Terrain `atlas-instanced` / `gpu-cull`: the template drawn from the height/normal atlas.
    TERRAIN_ATLAS = "terrain_atlas";
    /// Terrain `gpu-cull`: the `terrain.cull` compute pass (MCNK bounds -> compacted indirect draws).
    TERRAIN_CULL = "terrain_cull";
    /// One indexed indirect draw (`DrawIndexedArgs`, wgpu's layout), written by the terrain and grass culls.
    DRAW_INDEXED_ARGS = "draw_indexed_args";
    /// Terrain culls: `TerrainCullUniforms`, their first three bindings and the box distance.
    TERRAIN_CULL_TYPES = "terrain_cull_types";
    /// Root-anchored grass wind (`Wind`, `wind_sway`, `wind_offset`).
    WIND = "wind";
    /// Grass distance fade (`distance_fade`), shared by every grass tier.
    FADE = "fade";
    /// Alpha-key coverage: sharpened alpha-to-coverage and dithered discard.
    ALPHA_KEY = "alpha_key";
    /// Shared grass surface: bindings, `grass_vertex`, fragment entry points.
    GRASS_SURFACE = "grass_surface";
    /// Grass `static-batch` / `legacy-cpu`: mat4-instanced detail doodads.
    GRASS_INSTANCED = "grass_instanced";
    /// Grass `gpu-cull`: descriptors, patch entries, cull uniforms, visibility test.
    GRASS_CULL_TYPES = "grass_cull_types";
    /// Grass `gpu-cull`: the `grass.cull` pass's entry bindings and the (patch, model) entry test of both cull modes.
    GRASS_CULL_ENTRIES = "grass_cull_entries";
    /// Grass `gpu-cull`: the `grass.cull` compute pass (entries -> indirect args).
    GRASS_CULL = "grass_cull";
    /// Farthest-depth pyramid (Hi-Z) build: level 0 from the depth target, then 2x reductions.
    HIZ = "hiz";
    /// Bounding-sphere occlusion test against the Hi-Z pyramid.
    HIZ_TEST = "hiz_test";
    /// Terrain `gpu-cull`, `occlusion=on`: two-phase Hi-Z culling of MCNKs.
    TERRAIN_CULL_OCCLUSION = "terrain_cull_occlusion";
    /// Compute probe of `hiz_test` against its CPU mirror (tests).
    PROBE_HIZ = "probe_hiz";
    /// Grass `gpu-cull`: a descriptor's root with Z from the height atlas (group 2).
    GRASS_ROOT = "grass_root";
    /// Grass `gpu-cull`, `cull=instance`: patch test, then per-clump test and compaction.
    GRASS_CULL_INSTANCES = "grass_cull_instances";
    /// Grass `gpu-cull` draw: descriptor roots with Z from the height atlas.
    GRASS_GPU_CULL = "grass_gpu_cull";
    /// Compute probe writing every `gpu-cull` descriptor's root (parity tests).
    PROBE_GRASS_ROOT = "probe_grass_root";
    /// Compute probe comparing `wind`, `fade` and `alpha_key` with their CPU mirrors (tests).
    PROBE_GRASS = "probe_grass";
    /// Viewer present: full-screen copy of the scene colour onto the window surface.
    VIEWER_BLIT = "viewer_blit";
    /// Exact height/normal atlas sampling (the MCVT four-triangle fan via `textureLoad`).
    HEIGHT_ATLAS = "height_atlas";
    /// Compute probe comparing `height_atlas` with the CPU height reference (tests).
    PROBE_HEIGHT_ATLAS = "probe_height_atlas";
    /// Grass `camera-grid` slot generator: world slots, hash streams, control lookups, blade transform.
    CAMERA_GRID = "camera_grid";
    /// Grass `camera-grid` draw: blades from the instance index (direct) or the compacted lists.
    GRASS_CAMERA_GRID = "grass_camera_grid";
    /// Grass `camera-grid` compaction pre-pass: per-model candidate lists + indirect args.
    GRASS_CAMERA_GRID_COMPACT = "grass_camera_grid_compact";
    /// Compute probe writing every `camera-grid` blade (stability, parity and identity tests).
    PROBE_CAMERA_GRID = "probe_camera_grid";
    /// Geometry clipmap level sampling: toroidal texel fetch, coarse-level value, geomorph.
    CLIPMAP_LEVEL = "clipmap_level";
    /// Geometry clipmap level update in compute: strips from the height atlas and the far grid, prefiltered.
    CLIPMAP_FILL = "clipmap_fill";
    /// Geometry clipmap piece culling in compute (frustum + fog distance) into a multi-draw-indirect.
    CLIPMAP_CULL = "clipmap_cull";
    /// Compute probe comparing `clipmap_level` with its CPU reference (tests).
    PROBE_CLIPMAP = "probe_clipmap";
    /// Terrain `clipmap`: instanced level pieces, per-pixel MCNK lookup, holes, shared shading.
    TERRAIN_CLIPMAP = "terrain_clipmap";
    /// Float steps in the CPU's rounding and order (`f32_rounded`: no fused multiply-add).
    FLOAT_EXACT = "float_exact";
    /// The client's random generator (`CRandom::uint32` over a `CRndSeed`) in u32 arithmetic.
    CLIENT_RNG = "client_rng";
    /// sward's hashes and `Rng32` stream (`hash_words`, `Rng32`, `mul_hi`).
    PLACEMENT_RNG = "placement_rng";
    /// GPU placement: world x or y of an in-cell offset, the CPU's f64 expression on 96-bit integers.
    PLACEMENT_AXIS = "placement_axis";
    /// GPU placement: the per-MCNK record, effect table, parameters, output, decoding, world axis.
    PLACEMENT_TYPES = "placement_types";
    /// GPU placement: the generator's bindings, shared cell checks, positions and output.
    PLACEMENT_IO = "placement_io";
    /// GPU placement: the readback generation's output (`placed`, counts, per-MCNK stats).
    PLACEMENT_EMIT = "placement_emit";
    /// Grass `gpu-cull:placement=gpu`: the generator's cull-side bindings, MCNK test and descriptor packing.
    GRASS_PLACE_SINK = "grass_place_sink";
    /// Grass `gpu-cull:placement=gpu`: `place_emit` writing descriptors (composed in `placement_emit`'s place).
    GRASS_PLACE_EMIT = "grass_place_emit";
    /// Grass `gpu-cull:placement=gpu`: the `grass.place` entry points (generation per kept MCNK, model regions).
    GRASS_PLACE = "grass_place";
    /// GPU placement: the 1.12 client routine (`client`) for one MCNK.
    PLACEMENT_CLIENT = "placement_client";
    /// GPU placement: the 3.3.5 client routine (`client-3.3.5`) for one MCNK.
    PLACEMENT_CLIENT335 = "placement_client335";
    /// GPU placement: sward's `per-cell` policy for one MCNK.
    PLACEMENT_PER_CELL = "placement_per_cell";
    /// GPU placement: the `grass.place` compute pass, one entry point per policy.
    PLACEMENT_GENERATE = "placement_generate";
    /// Compute probe of the placement generator's number helpers against their CPU mirrors (tests).
    PROBE_PLACEMENT = "probe_placement";
}
