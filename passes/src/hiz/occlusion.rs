//! The CPU mirror of the occlusion tests of `hiz_test.wgsl`: a box or a
//! sphere projected to a screen rectangle, the pyramid level whose texels
//! cover it with at most 2x2 reads, and its nearest depth against the
//! farthest occluder depth there; plus [`occlusion_unsure`], which finds
//! the spheres whose answer another ALU may round the other way.

use glam::{Mat4, Vec2, Vec3};

use super::Level;

/// CPU reference of `hiz_sphere_occluded` over `levels` (level 0 first) of
/// the pyramid of a `pixels` target.
pub fn sphere_occluded(
    levels: &[Level],
    pixels: [u32; 2],
    view_proj: Mat4,
    center: Vec3,
    radius: f32,
) -> bool {
    let t = sphere_test(levels, pixels, view_proj, center, radius);
    t[3] > 0.5 && t[0] < t[1]
}

/// CPU reference of `hiz_sphere_test`: (nearest depth of the sphere,
/// farthest occluder depth under it, level read, 1 = tested; all 0 when it
/// reaches the eye plane).
pub fn sphere_test(
    levels: &[Level],
    pixels: [u32; 2],
    view_proj: Mat4,
    center: Vec3,
    radius: f32,
) -> [f32; 4] {
    box_test(
        levels,
        pixels,
        view_proj,
        center - Vec3::splat(radius),
        center + Vec3::splat(radius),
    )
}

/// CPU reference of `hiz_box_occluded`.
pub fn box_occluded(
    levels: &[Level],
    pixels: [u32; 2],
    view_proj: Mat4,
    min: Vec3,
    max: Vec3,
) -> bool {
    let t = box_test(levels, pixels, view_proj, min, max);
    t[3] > 0.5 && t[0] < t[1]
}

/// CPU reference of `hiz_box_test` (see [`sphere_test`]).
pub fn box_test(
    levels: &[Level],
    pixels: [u32; 2],
    view_proj: Mat4,
    min: Vec3,
    max: Vec3,
) -> [f32; 4] {
    if levels.is_empty() {
        return [0.0; 4];
    }
    let size = Vec2::new(pixels[0] as f32, pixels[1] as f32);
    let mut lo = Vec2::splat(1.0e9);
    let mut hi = Vec2::splat(-1.0e9);
    let mut nearest = 0.0f32;
    for i in 0..8u32 {
        let pick = |bit: u32, lo: f32, hi: f32| if i & bit != 0 { hi } else { lo };
        let corner = Vec3::new(
            pick(1, min.x, max.x),
            pick(2, min.y, max.y),
            pick(4, min.z, max.z),
        );
        let clip = view_proj * corner.extend(1.0);
        if clip.w <= 1.0e-3 {
            return [0.0; 4];
        }
        let ndc = clip.truncate() / clip.w;
        lo = lo.min(ndc.truncate());
        hi = hi.max(ndc.truncate());
        nearest = nearest.max(ndc.z);
    }
    let p0 =
        (Vec2::new(lo.x * 0.5 + 0.5, 0.5 - hi.y * 0.5) * size).clamp(Vec2::ZERO, size - Vec2::ONE);
    let p1 =
        (Vec2::new(hi.x * 0.5 + 0.5, 0.5 - lo.y * 0.5) * size).clamp(Vec2::ZERO, size - Vec2::ONE);
    let span = (p1.x - p0.x).max(p1.y - p0.y).max(1.0).ceil() as u32;
    let bits = if span > 1 {
        32 - (span - 1).leading_zeros()
    } else {
        0
    };
    let level = (bits.max(1) - 1).min(levels.len() as u32 - 1);
    let l = &levels[level as usize];
    let scale = (2u32 << level) as f32;
    let t = |p: Vec2| {
        [
            ((p.x / scale).floor() as u32).min(l.width - 1),
            ((p.y / scale).floor() as u32).min(l.height - 1),
        ]
    };
    let (t0, t1) = (t(p0), t(p1));
    let mut far = 1.0f32;
    for y in t0[1]..=t1[1] {
        for x in t0[0]..=t1[0] {
            far = far.min(l.at(x, y));
        }
    }
    [nearest, far, level as f32, 1.0]
}

/// Whether [`sphere_occluded`] is on a boundary for this sphere: its
/// answer changes when the sphere moves by a thousandth of its distance from
/// `eye` along any axis or its radius changes by 2%. Another ALU may round
/// the projection differently there (tests skip such spheres).
pub fn occlusion_unsure(
    levels: &[Level],
    pixels: [u32; 2],
    view_proj: Mat4,
    eye: Vec3,
    center: Vec3,
    radius: f32,
) -> bool {
    let answer = sphere_occluded(levels, pixels, view_proj, center, radius);
    let step = 1.0e-3 * center.distance(eye);
    let moves = [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X, -Vec3::Y, -Vec3::Z];
    moves
        .iter()
        .map(|&m| (center + m * step, radius))
        .chain([(center, radius * 0.98), (center, radius * 1.02)])
        .any(|(c, r)| sphere_occluded(levels, pixels, view_proj, c, r) != answer)
}
