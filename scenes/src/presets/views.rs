//! Named camera poses and keyframed camera paths.
//!
//! Convention: the world is Z-up (the MCNK coordinates of
//! [`crate::world::coords`]). `yaw_deg` turns about +Z: yaw 0 looks along
//! +X, yaw 90 along +Y. `pitch_deg` tilts up (positive) or down (negative)
//! from the horizontal. The forward vector is
//! `(cos p cos y, cos p sin y, sin p)`.

use crate::world::World;

/// Eye height above the terrain for ground views (a standing character).
pub const EYE_HEIGHT: f32 = 1.8;

/// A named camera pose.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ViewPose {
    /// View name (`ground-yaw0`, `aerial`, ...).
    pub name: String,
    /// Eye position in world coordinates.
    pub eye: [f32; 3],
    /// Heading in degrees about +Z (0 = +X, 90 = +Y).
    pub yaw_deg: f32,
    /// Pitch in degrees (positive looks up).
    pub pitch_deg: f32,
}

impl ViewPose {
    /// Unit forward vector.
    pub fn forward(&self) -> [f32; 3] {
        let (y, p) = (self.yaw_deg.to_radians(), self.pitch_deg.to_radians());
        [p.cos() * y.cos(), p.cos() * y.sin(), p.sin()]
    }

    /// A pose standing in front of a rise that hides most of the ground
    /// beyond it (the occlusion culling test view): of the poses on a 13x13
    /// grid 60 units apart around `(x, y)` and 8 headings each, the one
    /// whose line of sight to the most ground points 15 to 200 units ahead
    /// (in a 50 degree fan) passes under the terrain. `None` where no pose
    /// hides at least half of them.
    pub fn behind_ridge(world: &World, name: &str, x: f64, y: f64) -> Option<Self> {
        let mut best: Option<(f32, ViewPose)> = None;
        for gy in -6..=6 {
            for gx in -6..=6 {
                let (px, py) = (x + f64::from(gx) * 60.0, y + f64::from(gy) * 60.0);
                for k in 0..8 {
                    let yaw = k as f32 * 45.0;
                    let Some(pose) = Self::on_ground(world, name, px, py, yaw, 2.0) else {
                        continue;
                    };
                    let hidden = hidden_share(world, &pose);
                    if best.as_ref().is_none_or(|(h, _)| hidden > *h) {
                        best = Some((hidden, pose));
                    }
                }
            }
        }
        best.filter(|(h, _)| *h >= 0.5).map(|(_, p)| p)
    }

    /// A pose standing on the terrain at `(x, y)`, `EYE_HEIGHT` above it
    /// (`None` where the world has no height).
    pub fn on_ground(
        world: &World,
        name: &str,
        x: f64,
        y: f64,
        yaw_deg: f32,
        pitch_deg: f32,
    ) -> Option<Self> {
        let z = world.height_at(x, y)?;
        Some(Self {
            name: name.to_owned(),
            eye: [x as f32, y as f32, z + EYE_HEIGHT],
            yaw_deg,
            pitch_deg,
        })
    }

    /// A pose looking along +X (yaw 0) 38 degrees down from `back` units
    /// behind and `up` above the terrain at `(x, y)` (`None` where the
    /// world has no height).
    pub fn aerial(world: &World, name: &str, x: f64, y: f64, back: f64, up: f32) -> Option<Self> {
        let z = world.height_at(x, y)?;
        Some(Self {
            name: name.to_owned(),
            eye: [(x - back) as f32, y as f32, z + up],
            yaw_deg: 0.0,
            pitch_deg: -38.0,
        })
    }

    /// The views every tile scene has at `(x, y)`: `ground-yaw0` and
    /// `ground-yaw90` standing there, `aerial` 160 units behind and 140
    /// above (each where the world has a height).
    pub fn tile_views(world: &World, x: f64, y: f64) -> Vec<Self> {
        let mut views = Vec::new();
        for (name, yaw) in [("ground-yaw0", 0.0), ("ground-yaw90", 90.0)] {
            views.extend(Self::on_ground(world, name, x, y, yaw, -8.0));
        }
        views.extend(Self::aerial(world, "aerial", x, y, 160.0, 140.0));
        views
    }
}

/// Share of the ground points 15 to 200 units ahead of `pose` (a 50 degree
/// fan) whose line of sight from the eye (to half a unit above the ground)
/// passes under the terrain.
fn hidden_share(world: &World, pose: &ViewPose) -> f32 {
    let [ex, ey, ez] = pose.eye.map(f64::from);
    let (mut hidden, mut total) = (0u32, 0u32);
    for a in -2..=2 {
        let heading = f64::from(pose.yaw_deg + a as f32 * 12.5).to_radians();
        let (dx, dy) = (heading.cos(), heading.sin());
        for d in (15..=200).step_by(15) {
            let d = f64::from(d);
            let (tx, ty) = (ex + dx * d, ey + dy * d);
            let Some(tz) = world.height_at(tx, ty) else {
                continue;
            };
            let tz = f64::from(tz) + 0.5;
            total += 1;
            let blocked = (1..24).any(|i| {
                let t = f64::from(i) / 24.0;
                let (sx, sy) = (ex + (tx - ex) * t, ey + (ty - ey) * t);
                let line = ez + (tz - ez) * t;
                world
                    .height_at(sx, sy)
                    .is_some_and(|g| f64::from(g) > line + 0.05)
            });
            hidden += u32::from(blocked);
        }
    }
    if total == 0 {
        0.0
    } else {
        hidden as f32 / total as f32
    }
}

/// One keyframe of a [`CameraPath`].
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Keyframe {
    /// Time in seconds from the start of the path.
    pub t: f32,
    /// Eye position.
    pub eye: [f32; 3],
    /// Heading in degrees.
    pub yaw_deg: f32,
    /// Pitch in degrees.
    pub pitch_deg: f32,
}

/// A camera path: keyframes with increasing times, linearly interpolated.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct CameraPath {
    /// Path name.
    pub name: String,
    /// Keyframes sorted by time.
    pub keyframes: Vec<Keyframe>,
}

impl CameraPath {
    /// Total duration in seconds.
    pub fn duration(&self) -> f32 {
        self.keyframes.last().map_or(0.0, |k| k.t)
    }

    /// The pose at time `t` (clamped to the path); `None` for an empty path.
    pub fn sample(&self, t: f32) -> Option<ViewPose> {
        let k = &self.keyframes;
        let first = k.first()?;
        let i = k.partition_point(|f| f.t <= t);
        let (a, b) = match i {
            0 => (first, first),
            i if i >= k.len() => (&k[k.len() - 1], &k[k.len() - 1]),
            i => (&k[i - 1], &k[i]),
        };
        let s = if b.t > a.t {
            ((t - a.t) / (b.t - a.t)).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let lerp = |x: f32, y: f32| x + (y - x) * s;
        // Interpolate yaw along the short way round.
        let dyaw = (b.yaw_deg - a.yaw_deg + 540.0).rem_euclid(360.0) - 180.0;
        Some(ViewPose {
            name: self.name.clone(),
            eye: std::array::from_fn(|j| lerp(a.eye[j], b.eye[j])),
            yaw_deg: a.yaw_deg + dyaw * s,
            pitch_deg: lerp(a.pitch_deg, b.pitch_deg),
        })
    }

    /// A walk on the terrain from `from` to `to` at `speed` units/s, with a
    /// keyframe every `step` units following the ground at `EYE_HEIGHT`.
    pub fn walk(
        world: &World,
        name: &str,
        from: [f64; 2],
        to: [f64; 2],
        speed: f32,
        step: f64,
    ) -> Self {
        let (dx, dy) = (to[0] - from[0], to[1] - from[1]);
        let len = (dx * dx + dy * dy).sqrt();
        let yaw = dy.atan2(dx).to_degrees() as f32;
        let n = (len / step).ceil().max(1.0) as usize;
        let keyframes = (0..=n)
            .filter_map(|i| {
                let s = i as f64 / n as f64;
                let (x, y) = (from[0] + dx * s, from[1] + dy * s);
                let z = world.height_at(x, y)?;
                let eye = [x as f32, y as f32, z + EYE_HEIGHT];
                Some(Keyframe {
                    t: (len * s) as f32 / speed,
                    eye,
                    yaw_deg: yaw,
                    pitch_deg: -5.0,
                })
            })
            .collect();
        Self {
            name: name.to_owned(),
            keyframes,
        }
    }
}

impl CameraPath {
    /// A flight through `points` (at least two) at `speed` units/s,
    /// `altitude` units above `height(x, y)` (the terrain, from a source
    /// that needs no resident tile), with a keyframe every `step` units,
    /// looking along each leg and 12 degrees down. A point where `height`
    /// answers nothing keeps the previous keyframe's height.
    pub fn fly(
        name: &str,
        points: &[[f64; 2]],
        speed: f32,
        altitude: f32,
        step: f64,
        height: impl Fn(f64, f64) -> Option<f32>,
    ) -> Self {
        let mut keyframes: Vec<Keyframe> = Vec::new();
        let mut travelled = 0.0f64;
        let mut z = 0.0f32;
        for leg in points.windows(2) {
            let ([x0, y0], [x1, y1]) = (leg[0], leg[1]);
            let (dx, dy) = (x1 - x0, y1 - y0);
            let len = (dx * dx + dy * dy).sqrt();
            if len == 0.0 {
                continue;
            }
            let yaw = dy.atan2(dx).to_degrees() as f32;
            let n = (len / step).ceil().max(1.0) as usize;
            // The first leg starts at its first point; later legs start one
            // step in (their first point ends the previous leg).
            let first = usize::from(!keyframes.is_empty());
            for i in first..=n {
                let s = i as f64 / n as f64;
                let (x, y) = (x0 + dx * s, y0 + dy * s);
                z = height(x, y).map_or(z, |h| h + altitude);
                keyframes.push(Keyframe {
                    t: ((travelled + len * s) / f64::from(speed)) as f32,
                    eye: [x as f32, y as f32, z],
                    yaw_deg: yaw,
                    pitch_deg: -12.0,
                });
            }
            travelled += len;
        }
        Self {
            name: name.to_owned(),
            keyframes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_follows_the_convention() {
        let v = |yaw, pitch| ViewPose {
            name: String::new(),
            eye: [0.0; 3],
            yaw_deg: yaw,
            pitch_deg: pitch,
        };
        let f = v(0.0, 0.0).forward();
        assert!((f[0] - 1.0).abs() < 1e-6 && f[1].abs() < 1e-6);
        let f = v(90.0, 0.0).forward();
        assert!((f[1] - 1.0).abs() < 1e-6 && f[0].abs() < 1e-6);
        assert!(v(0.0, -30.0).forward()[2] < -0.49);
    }

    #[test]
    fn path_interpolates_and_clamps() {
        let kf = |t, x, yaw| Keyframe {
            t,
            eye: [x, 0.0, 0.0],
            yaw_deg: yaw,
            pitch_deg: 0.0,
        };
        let p = CameraPath {
            name: "p".into(),
            keyframes: vec![kf(0.0, 0.0, 350.0), kf(2.0, 10.0, 10.0)],
        };
        let mid = p.sample(1.0).expect("pose");
        assert!((mid.eye[0] - 5.0).abs() < 1e-5);
        assert!(
            (mid.yaw_deg - 360.0).abs() < 1e-4,
            "short way round: {}",
            mid.yaw_deg
        );
        assert_eq!(p.sample(-1.0).map(|v| v.eye[0]), Some(0.0));
        assert_eq!(p.sample(9.0).map(|v| v.eye[0]), Some(10.0));
        assert_eq!(p.duration(), 2.0);
        assert!(CameraPath::default().sample(0.0).is_none());
    }
}
