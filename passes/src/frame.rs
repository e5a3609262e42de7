//! What every technique gets each frame: the camera-derived view
//! ([`FrameView`]), the user-facing render settings ([`RenderSettings`]),
//! the graph handles of the frame's render targets ([`PassTargets`]), and
//! the three together with the device as one value ([`Frame`]) that every
//! technique's `record` takes.
//!
//! Techniques never own the render targets; the [`crate::renderer`] facade (or a
//! test) imports them into the graph and tells each technique whether it is the
//! pass that clears and the pass that resolves MSAA.

use glam::{Mat4, Vec3};
use sward_engine::graph::TextureId;
use sward_engine::{Camera, Frustum, GpuContext, DEPTH_CLEAR};

/// Grass constants and the scene's look.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RenderSettings {
    /// Wind sway on/off.
    pub wind: bool,
    /// Distance fade on/off (off: hard cut at `grass_distance`).
    pub fade: bool,
    /// Alpha-to-coverage for alpha-key materials under MSAA (off: hard discard).
    pub alpha_to_coverage: bool,
    /// Grass draw distance in world units (default: 220).
    pub grass_distance: f32,
    /// Where the grass fade starts (default: 160).
    pub fade_start: f32,
    /// Wind phase per world unit along X and Y (default: 0.917, 1.481 rad).
    pub wind_phase: [f32; 2],
    /// Wind speed (default: 1.7).
    pub wind_speed: f32,
    /// Sway amplitude as a fraction of model height (default: 0.12).
    pub wind_amplitude: f32,
    /// Fraction of blade height that stays anchored (default: 0.15).
    pub root_fraction: f32,
    /// Horizontal sway direction (normalised in the shader).
    pub wind_dir: [f32; 2],
    /// Fog start and end distances in world units.
    pub fog_range: [f32; 2],
    /// Fog and clear colour (linear RGB).
    pub fog_color: [f32; 3],
    /// Direction towards the sun (normalised in the shader).
    pub sun_dir: [f32; 3],
    /// Terrain draw distance for CPU/GPU culling of MCNKs.
    pub terrain_distance: f32,
}

impl Default for RenderSettings {
    fn default() -> Self {
        RenderSettings {
            wind: true,
            fade: true,
            alpha_to_coverage: true,
            grass_distance: 220.0,
            fade_start: 160.0,
            wind_phase: [0.917, 1.481],
            wind_speed: 1.7,
            wind_amplitude: 0.12,
            root_fraction: 0.15,
            wind_dir: [0.8, 0.6],
            fog_range: [400.0, 1000.0],
            fog_color: [0.55, 0.68, 0.85],
            sun_dir: [0.35, 0.25, 0.9],
            terrain_distance: 1000.0,
        }
    }
}

impl RenderSettings {
    /// These settings with the terrain drawn to `distance` world units and the
    /// fog distances scaled by the same factor from the defaults' (so the
    /// default distance keeps the default fog, and farther terrain stays
    /// visible instead of fogging out).
    pub fn with_view_distance(self, distance: f32) -> Self {
        let k = distance / self.terrain_distance;
        RenderSettings {
            terrain_distance: distance,
            fog_range: self.fog_range.map(|f| f * k),
            ..self
        }
    }
}

impl RenderSettings {
    /// These settings with a scene's grass fade start and draw distance
    /// (`elwynn-client`: the 1.12 client's 70 yards).
    pub fn with_grass(self, grass: sward_scenes::GrassRange) -> Self {
        RenderSettings {
            fade_start: grass.fade_start,
            grass_distance: grass.distance,
            ..self
        }
    }

    /// The clear colour: the fog colour, opaque.
    pub fn clear_color(&self) -> wgpu::Color {
        let [r, g, b] = self.fog_color.map(f64::from);
        wgpu::Color { r, g, b, a: 1.0 }
    }
}

/// The camera-derived state of one frame, computed once and shared by passes.
#[derive(Debug, Clone, Copy)]
pub struct FrameView {
    /// The camera.
    pub camera: Camera,
    /// Target size in pixels.
    pub size: [u32; 2],
    /// MSAA sample count of the colour/depth targets (1 or 4).
    pub sample_count: u32,
    /// `camera.view_proj(aspect)`.
    pub view_proj: Mat4,
    /// Frustum planes of `view_proj`.
    pub frustum: Frustum,
    /// Animation time in seconds (wind).
    pub time_s: f32,
    /// Render settings.
    pub settings: RenderSettings,
}

impl FrameView {
    /// Derives the view for `camera` at `size` pixels.
    pub fn new(
        camera: Camera,
        size: [u32; 2],
        sample_count: u32,
        time_s: f32,
        settings: RenderSettings,
    ) -> Self {
        let aspect = size[0].max(1) as f32 / size[1].max(1) as f32;
        let view_proj = camera.view_proj(aspect);
        FrameView {
            camera,
            size,
            sample_count,
            view_proj,
            frustum: Frustum::from_view_proj(view_proj),
            time_s,
            settings,
        }
    }

    /// Eye position.
    pub fn eye(&self) -> Vec3 {
        self.camera.eye
    }
}

/// Graph handles of the frame's targets, and this pass's duties towards them.
#[derive(Debug, Clone, Copy)]
pub struct PassTargets {
    /// Colour target (multisampled when `sample_count` is 4).
    pub color: TextureId,
    /// Depth target (reverse-Z, same sample count as `color`).
    pub depth: TextureId,
    /// Single-sample texture to resolve `color` into, when this is the last
    /// pass of the frame and `color` is multisampled.
    pub resolve: Option<TextureId>,
    /// Whether this pass is the first to touch the targets (clears them).
    pub clear: bool,
}

/// What recording one frame hands a technique: the device, the view and the
/// targets it draws into (with its duties towards them). Every technique's
/// `record` takes it whole, beside the graph.
#[derive(Clone, Copy)]
pub struct Frame<'a> {
    /// The device.
    pub gpu: &'a GpuContext,
    /// The camera-derived view of the frame.
    pub view: &'a FrameView,
    /// The frame's targets and this technique's duties towards them.
    pub targets: PassTargets,
}

impl<'a> Frame<'a> {
    /// The frame on `gpu` seen as `view`, drawing into `targets`.
    pub fn new(gpu: &'a GpuContext, view: &'a FrameView, targets: PassTargets) -> Self {
        Frame { gpu, view, targets }
    }
}

/// Vertical field of view of every preset camera (degrees).
pub const FOV_Y_DEG: f32 = 60.0;
/// Near plane of preset cameras (world units): close enough for ankle-high grass.
pub const NEAR: f32 = 0.25;

/// The camera for a preset's named view or path sample. The far plane sits just
/// past the fog end, where nothing is visible any more.
pub fn camera_from_pose(
    pose: &sward_scenes::presets::ViewPose,
    settings: &RenderSettings,
) -> Camera {
    Camera {
        eye: Vec3::from(pose.eye),
        yaw_deg: pose.yaw_deg,
        pitch_deg: pose.pitch_deg,
        fov_y_deg: FOV_Y_DEG,
        near: NEAR,
        far: settings.fog_range[1].max(settings.terrain_distance) + 50.0,
    }
}

impl PassTargets {
    /// Load ops for this pass's colour and depth attachments: clear to the fog
    /// colour and [`DEPTH_CLEAR`] when the pass is the first, else load.
    pub fn load_ops(
        &self,
        settings: &RenderSettings,
    ) -> (wgpu::LoadOp<wgpu::Color>, wgpu::LoadOp<f32>) {
        if self.clear {
            (
                wgpu::LoadOp::Clear(settings.clear_color()),
                wgpu::LoadOp::Clear(DEPTH_CLEAR),
            )
        } else {
            (wgpu::LoadOp::Load, wgpu::LoadOp::Load)
        }
    }
}
