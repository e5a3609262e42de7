//! The compact per-placement descriptor of grass `gpu-cull`
//! ([`GrassDescriptor`], 16 bytes) and its CPU pack/unpack reference.
//!
//! A descriptor holds only what varies per placement; everything shared lives
//! elsewhere (the model in the patch entry that draws it, the ground height in
//! the height atlas):
//!
//! | word | bits | content |
//! |---|---|---|
//! | 0 | 0..16 | local x in the patch, unorm16 (`(x - patch.min_x) / extent`) |
//! | 0 | 16..32 | local y in the patch, unorm16 |
//! | 1 | 0..16 | yaw in turns, unorm16 (`yaw / 2pi` wrapped into `[0, 1)`) |
//! | 1 | 16..32 | scale / [`SCALE_MAX`], unorm16 |
//! | 2 | 0..32 | the placement's seed (phase / variation) |
//! | 3 | 0..32 | index of the patch in the patch table |
//!
//! Both 16-bit pairs follow WGSL's `pack2x16unorm` convention (each value
//! clamped to the unit range, times 65535, rounded; first component in the
//! low half), so the shader decodes them with `unpack2x16unorm`. With the
//! largest patch (4x4 MCNKs, 133.3 units) the position step is 2 mm, the yaw
//! step 1e-4 rad and the scale step 1.2e-4. There is no Z: the vertex shader
//! reads the ground under the decoded XY from the exact height atlas.

use std::f32::consts::TAU;

/// Largest scale a descriptor can hold (scale is stored as `scale / SCALE_MAX`).
pub const SCALE_MAX: f32 = 8.0;
/// Bytes of one descriptor.
pub const DESCRIPTOR_BYTES: u64 = std::mem::size_of::<GrassDescriptor>() as u64;

/// One placement, packed (mirrors WGSL `GrassDescriptor`; layout checked).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GrassDescriptor {
    /// Local x (low 16 bits) and y (high 16 bits) in the patch, unorm16.
    pub local: u32,
    /// Yaw in turns (low) and scale / `SCALE_MAX` (high), unorm16.
    pub yaw_scale: u32,
    /// The placement seed.
    pub seed: u32,
    /// Patch index (`patch` is a WGSL keyword).
    pub patch_index: u32,
}

/// The frame a patch's descriptors are relative to: its minimum world XY
/// corner and its side (mirrors one WGSL `vec4` of the patch table:
/// `(min_x, min_y, extent, 0)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PatchFrame {
    /// Smallest world X and Y of the patch square.
    pub min: [f32; 2],
    /// Side of the patch square in world units.
    pub extent: f32,
}

/// A decoded descriptor: what the vertex shader reconstructs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decoded {
    /// World XY of the root.
    pub xy: [f32; 2],
    /// Yaw in radians, in `[0, 2pi]`.
    pub yaw: f32,
    /// Uniform scale.
    pub scale: f32,
    /// Seed.
    pub seed: u32,
    /// Patch index.
    pub patch: u32,
}

/// Why a placement cannot be packed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PackError {
    /// The root lies outside its patch (by more than a rounding margin).
    #[error("position ({x}, {y}) lies outside its patch (min {min:?}, side {extent})")]
    OutsidePatch {
        /// World X.
        x: f32,
        /// World Y.
        y: f32,
        /// Patch minimum corner.
        min: [f32; 2],
        /// Patch side.
        extent: f32,
    },
    /// Scale not finite or outside `(0, SCALE_MAX]`.
    #[error("scale {0} is outside (0, {SCALE_MAX}]")]
    Scale(f32),
    /// Yaw not finite.
    #[error("yaw {0} is not finite")]
    Yaw(f32),
}

/// WGSL `pack2x16unorm`.
pub fn pack2x16unorm(a: f32, b: f32) -> u32 {
    let q = |e: f32| (e.clamp(0.0, 1.0) * 65535.0).round() as u32;
    q(a) | (q(b) << 16)
}

/// WGSL `unpack2x16unorm`.
pub fn unpack2x16unorm(v: u32) -> [f32; 2] {
    [(v & 0xffff) as f32 / 65535.0, (v >> 16) as f32 / 65535.0]
}

/// Margin (fraction of the patch side) by which a root may lie outside its
/// patch and still be packed (clamped onto the edge): f32 rounding of
/// positions on a patch border.
const EDGE_MARGIN: f32 = 1e-4;

/// Packs a placement at world `xy` with `yaw`, `scale` and `seed` into a
/// descriptor of patch `patch` whose frame is `frame`.
pub fn pack(
    frame: &PatchFrame,
    patch: u32,
    xy: [f32; 2],
    yaw: f32,
    scale: f32,
    seed: u32,
) -> Result<GrassDescriptor, PackError> {
    let local = [0, 1].map(|k| (xy[k] - frame.min[k]) / frame.extent);
    if !local
        .iter()
        .all(|l| (-EDGE_MARGIN..=1.0 + EDGE_MARGIN).contains(l))
    {
        return Err(PackError::OutsidePatch {
            x: xy[0],
            y: xy[1],
            min: frame.min,
            extent: frame.extent,
        });
    }
    if !(scale.is_finite() && scale > 0.0 && scale <= SCALE_MAX) {
        return Err(PackError::Scale(scale));
    }
    if !yaw.is_finite() {
        return Err(PackError::Yaw(yaw));
    }
    let turns = (yaw / TAU).rem_euclid(1.0);
    Ok(GrassDescriptor {
        local: pack2x16unorm(local[0], local[1]),
        yaw_scale: pack2x16unorm(turns, scale / SCALE_MAX),
        seed,
        patch_index: patch,
    })
}

/// Decodes `d` in `frame` exactly as the vertex shader does
/// (`grass_descriptor_xy` and friends in `grass_cull_types.wgsl`).
pub fn unpack(d: &GrassDescriptor, frame: &PatchFrame) -> Decoded {
    let local = unpack2x16unorm(d.local);
    let ys = unpack2x16unorm(d.yaw_scale);
    Decoded {
        xy: [
            frame.min[0] + local[0] * frame.extent,
            frame.min[1] + local[1] * frame.extent,
        ],
        yaw: ys[0] * TAU,
        scale: ys[1] * SCALE_MAX,
        seed: d.seed,
        patch: d.patch_index,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAME: PatchFrame = PatchFrame {
        min: [-9100.0, -1066.6666],
        extent: 133.33333,
    };

    #[test]
    fn layout_matches_wgsl() {
        assert_eq!(DESCRIPTOR_BYTES, 16);
        sward_wgsl::assert_layouts!(
            sward_wgsl::modules::GRASS_CULL_TYPES,
            "GrassDescriptor" => GrassDescriptor { local, yaw_scale, seed, patch_index },
        );
    }

    #[test]
    fn round_trip_stays_within_the_quantisation_step() {
        let mut worst = [0.0f32; 3];
        for i in 0..2000u32 {
            let t = i as f32 / 1999.0;
            let xy = [
                FRAME.min[0] + t * FRAME.extent,
                FRAME.min[1] + ((i * 7919) % 2000) as f32 / 1999.0 * FRAME.extent,
            ];
            let yaw = -std::f32::consts::PI + t * TAU * 0.9999;
            let scale = 0.9 + 0.2 * ((i * 31) % 100) as f32 / 99.0;
            let d = pack(&FRAME, 17, xy, yaw, scale, i * 3).unwrap();
            let u = unpack(&d, &FRAME);
            assert_eq!((u.seed, u.patch), (i * 3, 17));
            let dxy = (u.xy[0] - xy[0]).abs().max((u.xy[1] - xy[1]).abs());
            // Same rotation: compare sin and cos, not the angle itself.
            let dyaw = (u.yaw.sin() - yaw.sin())
                .abs()
                .max((u.yaw.cos() - yaw.cos()).abs());
            let dscale = (u.scale - scale).abs();
            worst = [worst[0].max(dxy), worst[1].max(dyaw), worst[2].max(dscale)];
        }
        // Half a step each, plus f32 rounding of large world coordinates.
        let step_xy = FRAME.extent / 65535.0;
        assert!(worst[0] <= 0.5 * step_xy + 2e-3, "xy error {}", worst[0]);
        assert!(
            worst[1] <= 0.5 * TAU / 65535.0 + 1e-5,
            "yaw error {}",
            worst[1]
        );
        assert!(
            worst[2] <= 0.5 * SCALE_MAX / 65535.0 + 1e-6,
            "scale error {}",
            worst[2]
        );
        assert!(worst[0] > 0.0, "positions are really quantised");
    }

    #[test]
    fn bit_layout_is_as_documented() {
        let d = pack(
            &FRAME,
            5,
            [FRAME.min[0] + FRAME.extent, FRAME.min[1]],
            0.0,
            SCALE_MAX,
            9,
        )
        .unwrap();
        assert_eq!(d.local, 0x0000_ffff, "x = 1 in the low half, y = 0");
        assert_eq!(d.yaw_scale, 0xffff_0000, "yaw 0 low, scale max high");
        let half_turn = pack(&FRAME, 5, FRAME.min, std::f32::consts::PI, 1.0, 0).unwrap();
        assert_eq!(half_turn.yaw_scale & 0xffff, 32768);
        // A negative yaw wraps to the same rotation.
        let neg = pack(&FRAME, 5, FRAME.min, -std::f32::consts::FRAC_PI_2, 1.0, 0).unwrap();
        assert_eq!(neg.yaw_scale & 0xffff, 49151);
    }

    #[test]
    fn bad_placements_are_rejected_with_what_is_wrong() {
        let outside = pack(&FRAME, 0, [FRAME.min[0] - 1.0, FRAME.min[1]], 0.0, 1.0, 0);
        assert!(matches!(outside, Err(PackError::OutsidePatch { .. })));
        for s in [0.0, -1.0, f32::NAN, SCALE_MAX * 1.01] {
            assert!(matches!(
                pack(&FRAME, 0, FRAME.min, 0.0, s, 0),
                Err(PackError::Scale(_))
            ));
        }
        assert!(matches!(
            pack(&FRAME, 0, FRAME.min, f32::INFINITY, 1.0, 0),
            Err(PackError::Yaw(_))
        ));
        // Just over the edge by rounding: clamped onto it.
        let edge = pack(&FRAME, 0, [FRAME.min[0] - 1e-3, FRAME.min[1]], 0.0, 1.0, 0).unwrap();
        assert_eq!(edge.local & 0xffff, 0);
    }
}
