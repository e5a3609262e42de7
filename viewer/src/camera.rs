//! Input and camera: a free-fly camera (WASD + mouse drag, Q/E down/up, Shift
//! faster, Ctrl slower) and a ground-walk mode that keeps the eye at standing
//! height above the exact terrain surface (the scene's `height_at`). Holds the
//! key and drag state fed from winit events; knows nothing about the GPU.

use std::collections::HashSet;

use glam::Vec3;
use sward_engine::Camera;
use sward_scenes::presets::views::EYE_HEIGHT;
use sward_scenes::presets::ViewPose;
use winit::event::{ElementState, MouseButton};
use winit::keyboard::KeyCode;

/// Free-fly speed in world units per second without modifiers.
pub const FLY_SPEED: f32 = 40.0;
/// Walking speed in world units per second without modifiers.
pub const WALK_SPEED: f32 = 7.0;
/// Speed factor while Shift is held.
pub const FAST: f32 = 5.0;
/// Speed factor while Ctrl is held.
pub const SLOW: f32 = 0.2;
/// Degrees of turn per pixel of mouse drag.
pub const DRAG_DEG_PER_PX: f32 = 0.25;
/// Pitch limit in degrees (either way), short of straight up/down.
pub const PITCH_LIMIT: f32 = 89.0;
/// Lowest eye height above the terrain while flying (no flying underground).
pub const MIN_CLEARANCE: f32 = 0.5;

/// Pressed keys and mouse drag state.
#[derive(Debug, Default)]
pub struct InputState {
    held: HashSet<KeyCode>,
    dragging: bool,
    last_cursor: Option<[f64; 2]>,
    /// Drag since the camera last consumed it (pixels).
    drag: [f64; 2],
}

impl InputState {
    /// Records a key press or release.
    pub fn key(&mut self, code: KeyCode, state: ElementState) {
        match state {
            ElementState::Pressed => self.held.insert(code),
            ElementState::Released => self.held.remove(&code),
        };
    }

    /// Whether `code` is held.
    pub fn held(&self, code: KeyCode) -> bool {
        self.held.contains(&code)
    }

    /// Records a mouse button (left or right drag turns the camera).
    pub fn button(&mut self, button: MouseButton, state: ElementState) {
        if matches!(button, MouseButton::Left | MouseButton::Right) {
            self.dragging = state == ElementState::Pressed;
        }
    }

    /// Records the cursor position; accumulates drag while a button is held.
    pub fn cursor(&mut self, pos: [f64; 2]) {
        if let (true, Some(last)) = (self.dragging, self.last_cursor) {
            self.drag[0] += pos[0] - last[0];
            self.drag[1] += pos[1] - last[1];
        }
        self.last_cursor = Some(pos);
    }

    /// Forgets everything held (the window lost focus).
    pub fn release_all(&mut self) {
        self.held.clear();
        self.dragging = false;
    }

    fn take_drag(&mut self) -> [f64; 2] {
        std::mem::take(&mut self.drag)
    }
}

/// Movement mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveMode {
    /// Fly freely along the view direction.
    Fly,
    /// Walk on the terrain at eye height.
    Walk,
}

/// The viewer camera: a pose plus the movement mode.
#[derive(Debug, Clone, Copy)]
pub struct FlyCamera {
    /// Eye position (world units, Z up).
    pub eye: Vec3,
    /// Heading in degrees about +Z (0 = +X).
    pub yaw_deg: f32,
    /// Pitch in degrees (positive looks up).
    pub pitch_deg: f32,
    /// Fly or walk.
    pub mode: MoveMode,
}

impl FlyCamera {
    /// A flying camera at a preset view.
    pub fn from_pose(pose: &ViewPose) -> Self {
        FlyCamera {
            eye: Vec3::from(pose.eye),
            yaw_deg: pose.yaw_deg,
            pitch_deg: pose.pitch_deg,
            mode: MoveMode::Fly,
        }
    }

    /// Jumps to a preset view, keeping the movement mode.
    pub fn set_pose(&mut self, pose: &ViewPose) {
        self.eye = Vec3::from(pose.eye);
        self.yaw_deg = pose.yaw_deg;
        self.pitch_deg = pose.pitch_deg;
    }

    /// Moves `distance` world units along the heading (horizontally).
    pub fn advance(&mut self, distance: f32) {
        self.eye += self.ground_axes().0 * distance;
    }

    /// Horizontal unit vectors (forward, right) of the heading.
    fn ground_axes(&self) -> (Vec3, Vec3) {
        let y = self.yaw_deg.to_radians();
        let forward = Vec3::new(y.cos(), y.sin(), 0.0);
        let right = Vec3::new(y.sin(), -y.cos(), 0.0);
        (forward, right)
    }

    /// View direction (unit).
    pub fn forward(&self) -> Vec3 {
        let (y, p) = (self.yaw_deg.to_radians(), self.pitch_deg.to_radians());
        Vec3::new(y.cos() * p.cos(), y.sin() * p.cos(), p.sin())
    }

    /// Advances by `dt` seconds of input. `height_at(x, y)` is the terrain
    /// surface (`None` outside the resident world); in walk mode the eye snaps
    /// to `EYE_HEIGHT` above it, in fly mode it stays at least `MIN_CLEARANCE`
    /// above it, and where there is no terrain it keeps its height.
    pub fn update(
        &mut self,
        input: &mut InputState,
        dt: f32,
        height_at: impl Fn(f64, f64) -> Option<f32>,
    ) {
        let [dx, dy] = input.take_drag();
        self.yaw_deg = (self.yaw_deg - dx as f32 * DRAG_DEG_PER_PX).rem_euclid(360.0);
        self.pitch_deg =
            (self.pitch_deg - dy as f32 * DRAG_DEG_PER_PX).clamp(-PITCH_LIMIT, PITCH_LIMIT);

        let axis = |pos: KeyCode, neg: KeyCode| {
            f32::from(u8::from(input.held(pos))) - f32::from(u8::from(input.held(neg)))
        };
        let ahead = axis(KeyCode::KeyW, KeyCode::KeyS);
        let side = axis(KeyCode::KeyD, KeyCode::KeyA);
        let up = axis(KeyCode::KeyE, KeyCode::KeyQ);
        let mut speed = match self.mode {
            MoveMode::Fly => FLY_SPEED,
            MoveMode::Walk => WALK_SPEED,
        };
        if input.held(KeyCode::ShiftLeft) || input.held(KeyCode::ShiftRight) {
            speed *= FAST;
        }
        if input.held(KeyCode::ControlLeft) || input.held(KeyCode::ControlRight) {
            speed *= SLOW;
        }
        let (ground_fwd, right) = self.ground_axes();
        let step = match self.mode {
            MoveMode::Fly => self.forward() * ahead + right * side + Vec3::Z * up,
            MoveMode::Walk => ground_fwd * ahead + right * side,
        };
        if step != Vec3::ZERO {
            self.eye += step.normalize() * speed * dt;
        }
        if let Some(z) = height_at(f64::from(self.eye.x), f64::from(self.eye.y)) {
            self.eye.z = match self.mode {
                MoveMode::Walk => z + EYE_HEIGHT,
                MoveMode::Fly => self.eye.z.max(z + MIN_CLEARANCE),
            };
        }
    }

    /// The engine camera for this pose, with the lens of preset cameras.
    pub fn camera(&self, settings: &sward_passes::RenderSettings) -> Camera {
        let pose = ViewPose {
            name: String::new(),
            eye: self.eye.to_array(),
            yaw_deg: self.yaw_deg,
            pitch_deg: self.pitch_deg,
        };
        sward_passes::camera_from_pose(&pose, settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cam(yaw: f32, pitch: f32, mode: MoveMode) -> FlyCamera {
        FlyCamera {
            eye: Vec3::new(100.0, 200.0, 50.0),
            yaw_deg: yaw,
            pitch_deg: pitch,
            mode,
        }
    }

    #[test]
    fn forward_matches_the_engine_camera() {
        for (yaw, pitch) in [(0.0, 0.0), (90.0, -20.0), (215.0, 35.0)] {
            let c = cam(yaw, pitch, MoveMode::Fly);
            let engine = c.camera(&Default::default()).forward();
            assert!((c.forward() - engine).length() < 1e-5, "{yaw} {pitch}");
        }
    }

    #[test]
    fn wasd_moves_along_the_view_and_shift_ctrl_scale_speed() {
        let mut input = InputState::default();
        input.key(KeyCode::KeyW, ElementState::Pressed);
        let mut c = cam(90.0, 0.0, MoveMode::Fly);
        c.update(&mut input, 0.5, |_, _| None);
        assert!((c.eye - Vec3::new(100.0, 200.0 + FLY_SPEED * 0.5, 50.0)).length() < 1e-3);

        input.key(KeyCode::ShiftLeft, ElementState::Pressed);
        let before = c.eye;
        c.update(&mut input, 0.1, |_, _| None);
        assert!(((c.eye - before).length() - FLY_SPEED * FAST * 0.1).abs() < 1e-3);

        input.key(KeyCode::ShiftLeft, ElementState::Released);
        input.key(KeyCode::ControlLeft, ElementState::Pressed);
        input.key(KeyCode::KeyW, ElementState::Released);
        input.key(KeyCode::KeyD, ElementState::Pressed);
        let before = c.eye;
        c.update(&mut input, 1.0, |_, _| None);
        // Facing +Y, right is +X.
        let moved = c.eye - before;
        assert!(
            (moved - Vec3::X * FLY_SPEED * SLOW).length() < 1e-3,
            "{moved}"
        );
    }

    #[test]
    fn flying_never_goes_underground() {
        let mut input = InputState::default();
        let mut c = cam(0.0, 0.0, MoveMode::Fly);
        c.update(&mut input, 0.1, |_, _| Some(80.0));
        assert_eq!(c.eye.z, 80.0 + MIN_CLEARANCE);
        c.update(&mut input, 0.1, |_, _| Some(10.0));
        assert_eq!(
            c.eye.z,
            80.0 + MIN_CLEARANCE,
            "flying above ground keeps its height"
        );
    }

    #[test]
    fn drag_turns_and_pitch_is_clamped() {
        let mut input = InputState::default();
        input.cursor([10.0, 10.0]);
        input.cursor([50.0, 10.0]); // not dragging: ignored
        input.button(MouseButton::Left, ElementState::Pressed);
        input.cursor([90.0, -1000.0]);
        let mut c = cam(0.0, 0.0, MoveMode::Fly);
        c.update(&mut input, 0.0, |_, _| None);
        assert!((c.yaw_deg - (360.0 - 40.0 * DRAG_DEG_PER_PX)).abs() < 1e-3);
        assert_eq!(c.pitch_deg, PITCH_LIMIT);
        // The drag is consumed once.
        c.update(&mut input, 0.0, |_, _| None);
        assert!((c.yaw_deg - (360.0 - 40.0 * DRAG_DEG_PER_PX)).abs() < 1e-3);
    }

    #[test]
    fn walk_mode_follows_the_terrain_and_ignores_pitch() {
        let slope = |x: f64, _y: f64| Some((x * 0.5) as f32);
        let mut input = InputState::default();
        input.key(KeyCode::KeyW, ElementState::Pressed);
        let mut c = cam(0.0, -60.0, MoveMode::Walk);
        c.update(&mut input, 2.0, slope);
        let x = 100.0 + WALK_SPEED * 2.0;
        assert!((c.eye.x - x).abs() < 1e-3, "pitch must not slow walking");
        assert!((c.eye.z - (x * 0.5 + EYE_HEIGHT)).abs() < 1e-3);
        c.advance(-10.0);
        assert!((c.eye.x - (x - 10.0)).abs() < 1e-3);
        // Off the resident world the eye keeps its height.
        let z = c.eye.z;
        c.update(&mut input, 1.0, |_, _| None);
        assert_eq!(c.eye.z, z);
    }
}
