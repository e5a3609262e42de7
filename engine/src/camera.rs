//! Camera maths: Z-up right-handed world, eye + yaw/pitch, reverse-Z perspective
//! (depth 1 at the near plane, 0 at the far plane), frustum planes and the CPU
//! sphere/AABB tests that the WGSL `frustum` module mirrors.

use glam::{Mat4, Vec3, Vec4};

/// A perspective camera. Yaw is measured in degrees around +Z from +X towards
/// +Y; pitch in degrees up from the XY plane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// Eye position in world units.
    pub eye: Vec3,
    /// Heading in degrees (0 = looking along +X, 90 = along +Y).
    pub yaw_deg: f32,
    /// Elevation in degrees (positive looks up).
    pub pitch_deg: f32,
    /// Vertical field of view in degrees.
    pub fov_y_deg: f32,
    /// Near plane distance (> 0).
    pub near: f32,
    /// Far plane distance (> near).
    pub far: f32,
}

impl Default for Camera {
    fn default() -> Self {
        Camera {
            eye: Vec3::new(0.0, 0.0, 2.0),
            yaw_deg: 0.0,
            pitch_deg: 0.0,
            fov_y_deg: 60.0,
            near: 0.1,
            far: 1000.0,
        }
    }
}

impl Camera {
    /// Unit view direction.
    pub fn forward(&self) -> Vec3 {
        let (yaw, pitch) = (self.yaw_deg.to_radians(), self.pitch_deg.to_radians());
        Vec3::new(
            pitch.cos() * yaw.cos(),
            pitch.cos() * yaw.sin(),
            pitch.sin(),
        )
    }

    /// World-to-view matrix (right-handed, Z-up world).
    pub fn view(&self) -> Mat4 {
        // Keep the up vector valid when looking straight up or down.
        let up = if self.forward().cross(Vec3::Z).length_squared() < 1e-8 {
            Vec3::Y
        } else {
            Vec3::Z
        };
        look_to_rh(self.eye, self.forward(), up)
    }

    /// Reverse-Z perspective projection (near -> depth 1, far -> depth 0).
    pub fn projection(&self, aspect: f32) -> Mat4 {
        perspective_reverse_z(self.fov_y_deg.to_radians(), aspect, self.near, self.far)
    }

    /// `projection * view`.
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        self.projection(aspect) * self.view()
    }

    /// The frustum of this camera at `aspect`.
    pub fn frustum(&self, aspect: f32) -> Frustum {
        Frustum::from_view_proj(self.view_proj(aspect))
    }
}

/// Right-handed view matrix: view space is Y-up, looking down -Z.
pub fn look_to_rh(eye: Vec3, dir: Vec3, up: Vec3) -> Mat4 {
    let f = dir.normalize();
    let s = f.cross(up).normalize();
    let u = s.cross(f);
    Mat4::from_cols(
        Vec4::new(s.x, u.x, -f.x, 0.0),
        Vec4::new(s.y, u.y, -f.y, 0.0),
        Vec4::new(s.z, u.z, -f.z, 0.0),
        Vec4::new(-s.dot(eye), -u.dot(eye), f.dot(eye), 1.0),
    )
}

/// Right-handed perspective with reverse-Z depth in 0..1: view-space `z = -near`
/// maps to depth 1 and `z = -far` to depth 0.
pub fn perspective_reverse_z(fov_y_rad: f32, aspect: f32, near: f32, far: f32) -> Mat4 {
    let sy = 1.0 / (0.5 * fov_y_rad).tan();
    let sx = sy / aspect;
    let a = near / (far - near);
    let b = near * far / (far - near);
    Mat4::from_cols(
        Vec4::new(sx, 0.0, 0.0, 0.0),
        Vec4::new(0.0, sy, 0.0, 0.0),
        Vec4::new(0.0, 0.0, a, -1.0),
        Vec4::new(0.0, 0.0, b, 0.0),
    )
}

/// Six normalised planes `(n, d)`; a point `p` is inside when `n·p + d >= 0`
/// for all of them. Order: left, right, bottom, top, near, far.
///
/// Mirrors the WGSL struct `Frustum` in `wgsl/src/shaders/frustum.wgsl`
/// (layout checked by a test).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Frustum {
    /// The planes.
    pub planes: [Vec4; 6],
}

impl Frustum {
    /// Extracts planes from a reverse-Z `view_proj` (clip z in 0..w, near at w).
    pub fn from_view_proj(m: Mat4) -> Self {
        let (r0, r1, r2, r3) = (m.row(0), m.row(1), m.row(2), m.row(3));
        let raw = [r3 + r0, r3 - r0, r3 + r1, r3 - r1, r3 - r2, r2];
        let planes = raw.map(|p| {
            let len = p.truncate().length();
            if len > 0.0 {
                p / len
            } else {
                p
            }
        });
        Frustum { planes }
    }

    /// Whether a sphere touches the frustum (conservative: may keep a sphere
    /// just outside a corner).
    pub fn sphere_visible(&self, center: Vec3, radius: f32) -> bool {
        self.planes
            .iter()
            .all(|p| p.truncate().dot(center) + p.w >= -radius)
    }

    /// Whether an axis-aligned box touches the frustum (conservative).
    pub fn aabb_visible(&self, min: Vec3, max: Vec3) -> bool {
        self.planes.iter().all(|p| {
            let n = p.truncate();
            // The box corner furthest along the plane normal.
            let far_corner = Vec3::select(n.cmpge(Vec3::ZERO), max, min);
            n.dot(far_corner) + p.w >= 0.0
        })
    }

    /// Smallest signed margin of a sphere over all planes (`>= 0` means visible).
    /// Tests use it to skip cases too close to a boundary for f32 parity.
    pub fn sphere_margin(&self, center: Vec3, radius: f32) -> f32 {
        self.planes
            .iter()
            .map(|p| p.truncate().dot(center) + p.w + radius)
            .fold(f32::INFINITY, f32::min)
    }

    /// Smallest signed margin of a box over all planes (`>= 0` means visible).
    pub fn aabb_margin(&self, min: Vec3, max: Vec3) -> f32 {
        self.planes
            .iter()
            .map(|p| {
                let n = p.truncate();
                n.dot(Vec3::select(n.cmpge(Vec3::ZERO), max, min)) + p.w
            })
            .fold(f32::INFINITY, f32::min)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cam() -> Camera {
        Camera {
            eye: Vec3::new(10.0, 20.0, 5.0),
            yaw_deg: 90.0,
            pitch_deg: 0.0,
            fov_y_deg: 60.0,
            near: 0.5,
            far: 100.0,
        }
    }

    #[test]
    fn yaw_zero_looks_along_x_and_ninety_along_y() {
        let mut c = Camera::default();
        assert!((c.forward() - Vec3::X).length() < 1e-6);
        c.yaw_deg = 90.0;
        assert!((c.forward() - Vec3::Y).length() < 1e-6);
        c.pitch_deg = 90.0;
        assert!((c.forward() - Vec3::Z).length() < 1e-6);
        assert!(c.view().is_finite());
    }

    #[test]
    fn reverse_z_maps_near_to_one_and_far_to_zero() {
        let c = cam();
        let vp = c.view_proj(16.0 / 9.0);
        let depth = |d: f32| {
            let p = vp * (c.eye + c.forward() * d).extend(1.0);
            p.z / p.w
        };
        assert!((depth(c.near) - 1.0).abs() < 1e-5, "{}", depth(c.near));
        assert!(depth(c.far).abs() < 1e-5, "{}", depth(c.far));
        assert!(depth(10.0) > depth(20.0), "nearer must be greater");
    }

    #[test]
    fn world_up_is_screen_up() {
        let c = cam();
        let vp = c.view_proj(1.0);
        let p = vp * (c.eye + c.forward() * 10.0 + Vec3::Z).extend(1.0);
        assert!(p.y / p.w > 0.0);
        // Right-handed, Z up, looking along +Y: +X world is screen right.
        let p = vp * (c.eye + c.forward() * 10.0 + Vec3::X).extend(1.0);
        assert!(p.x / p.w > 0.0);
    }

    #[test]
    fn frustum_planes_are_normalised_and_classify_points() {
        let c = cam();
        let f = c.frustum(1.5);
        for p in f.planes {
            assert!((p.truncate().length() - 1.0).abs() < 1e-4);
        }
        let ahead = c.eye + c.forward() * 50.0;
        assert!(f.sphere_visible(ahead, 0.1));
        assert!(!f.sphere_visible(c.eye - c.forward() * 5.0, 1.0), "behind");
        assert!(
            !f.sphere_visible(c.eye + c.forward() * 150.0, 1.0),
            "beyond far"
        );
        assert!(
            f.sphere_visible(c.eye + c.forward() * 101.0, 2.0),
            "sphere straddling far"
        );
        // Near plane is 0.5 units ahead: a point at 0.25 is outside.
        assert!(!f.sphere_visible(c.eye + c.forward() * 0.25, 0.0));
        assert!(f.aabb_visible(ahead - Vec3::ONE, ahead + Vec3::ONE));
        let side = c.eye + Vec3::new(200.0, 10.0, 0.0);
        assert!(!f.aabb_visible(side - Vec3::ONE, side + Vec3::ONE));
        // A huge box containing the camera is visible.
        assert!(f.aabb_visible(Vec3::splat(-1000.0), Vec3::splat(1000.0)));
        assert!(
            f.sphere_margin(ahead, 0.1) > 0.0
                && f.aabb_margin(side - Vec3::ONE, side + Vec3::ONE) < 0.0
        );
    }
}
