//! Screenshot comparison between a tier and the baseline.
//!
//! Definitions (alpha is ignored: screenshots are opaque after resolve):
//! - `rmse`: root mean square of the per-channel differences over R, G and B of
//!   every pixel, on the 0..255 scale (0 = identical, 255 = black vs white).
//! - `differing_pixels_fraction`: fraction of pixels whose largest R/G/B difference
//!   exceeds a threshold, [`DEFAULT_THRESHOLD`] (8 of 255, about 3 %) unless given.
//!   Tiers legitimately differ by a few levels (MSAA coverage, LOD, float order),
//!   so only larger differences count as "different".

use std::path::{Path, PathBuf};

use image::RgbaImage;

use crate::report::ImageDiff;

/// Largest per-channel difference (0..255) a pixel may have and still count as equal.
pub const DEFAULT_THRESHOLD: u8 = 8;

/// Why two screenshots could not be compared.
#[derive(Debug, thiserror::Error)]
pub enum ImageDiffError {
    /// The two images do not have the same size.
    #[error("image sizes differ: {a_w}x{a_h} vs {b_w}x{b_h}")]
    SizeMismatch {
        /// First image width.
        a_w: u32,
        /// First image height.
        a_h: u32,
        /// Second image width.
        b_w: u32,
        /// Second image height.
        b_h: u32,
    },
    /// An image has no pixels.
    #[error("image is empty (0 pixels)")]
    Empty,
    /// A screenshot file could not be read or decoded.
    #[error("cannot read image {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The decoder's error.
        source: image::ImageError,
    },
}

/// Compares two images with [`DEFAULT_THRESHOLD`].
pub fn diff_images(a: &RgbaImage, b: &RgbaImage) -> Result<ImageDiff, ImageDiffError> {
    diff_images_with_threshold(a, b, DEFAULT_THRESHOLD)
}

/// Compares two images; a pixel differs when some R/G/B channel differs by more than
/// `threshold` (0..255).
pub fn diff_images_with_threshold(
    a: &RgbaImage,
    b: &RgbaImage,
    threshold: u8,
) -> Result<ImageDiff, ImageDiffError> {
    same_size(a, b)?;
    let pixels = u64::from(a.width()) * u64::from(a.height());
    if pixels == 0 {
        return Err(ImageDiffError::Empty);
    }
    let (rmse, differing_pixels_fraction) =
        sward_engine::targets::rgb_difference(a.as_raw(), b.as_raw(), threshold)
            .ok_or(ImageDiffError::Empty)?;
    Ok(ImageDiff {
        rmse,
        differing_pixels_fraction,
    })
}

/// Loads an image file as RGBA8, naming the file on failure.
pub fn load_rgba(path: &Path) -> Result<RgbaImage, ImageDiffError> {
    image::open(path)
        .map(|img| img.to_rgba8())
        .map_err(|source| ImageDiffError::Read {
            path: path.to_owned(),
            source,
        })
}

/// Compares two image files (PNG) with [`DEFAULT_THRESHOLD`].
pub fn diff_files(a: &Path, b: &Path) -> Result<ImageDiff, ImageDiffError> {
    diff_images(&load_rgba(a)?, &load_rgba(b)?)
}

/// An error naming both sizes unless `a` and `b` have the same.
fn same_size(a: &RgbaImage, b: &RgbaImage) -> Result<(), ImageDiffError> {
    if a.dimensions() != b.dimensions() {
        return Err(ImageDiffError::SizeMismatch {
            a_w: a.width(),
            a_h: a.height(),
            b_w: b.width(),
            b_h: b.height(),
        });
    }
    Ok(())
}

/// A picture of where two images differ, for a reader to look at beside
/// the figures: `b` in dimmed grey, and every pixel whose R, G or B differs
/// at all in magenta, brighter the larger its largest channel difference
/// (a one-level change is still clearly visible).
pub fn diff_visual(a: &RgbaImage, b: &RgbaImage) -> Result<RgbaImage, ImageDiffError> {
    same_size(a, b)?;
    Ok(RgbaImage::from_fn(a.width(), a.height(), |x, y| {
        let (pa, pb) = (a.get_pixel(x, y).0, b.get_pixel(x, y).0);
        let worst = (0..3).map(|c| pa[c].abs_diff(pb[c])).max().unwrap_or(0);
        if worst == 0 {
            let luma = (u32::from(pb[0]) * 3 + u32::from(pb[1]) * 6 + u32::from(pb[2])) / 10;
            let grey = (64 + luma / 3) as u8;
            image::Rgba([grey, grey, grey, 255])
        } else {
            let v = (128 + u32::from(worst) / 2).min(255) as u8;
            image::Rgba([v, 0, v, 255])
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgba;

    fn solid(w: u32, h: u32, rgba: [u8; 4]) -> RgbaImage {
        RgbaImage::from_pixel(w, h, Rgba(rgba))
    }

    #[test]
    fn identical_images_have_zero_difference() {
        let a = RgbaImage::from_fn(8, 4, |x, y| Rgba([x as u8 * 30, y as u8 * 60, 7, 255]));
        let d = diff_images(&a, &a.clone()).unwrap();
        assert_eq!(d.rmse, 0.0);
        assert_eq!(d.differing_pixels_fraction, 0.0);
    }

    #[test]
    fn black_vs_white_is_full_scale() {
        let d = diff_images(&solid(4, 4, [0, 0, 0, 255]), &solid(4, 4, [255; 4])).unwrap();
        assert!((d.rmse - 255.0).abs() < 1e-9);
        assert_eq!(d.differing_pixels_fraction, 1.0);
    }

    #[test]
    fn rmse_and_fraction_follow_the_definitions() {
        // 4 pixels; one pixel differs by 40 in red only, one by 4 in all channels.
        let a = solid(2, 2, [100, 100, 100, 255]);
        let mut b = a.clone();
        b.put_pixel(0, 0, Rgba([140, 100, 100, 255]));
        b.put_pixel(1, 1, Rgba([104, 104, 104, 0])); // alpha is ignored
        let d = diff_images(&a, &b).unwrap();
        let expect = ((40.0f64 * 40.0 + 3.0 * 16.0) / 12.0).sqrt();
        assert!((d.rmse - expect).abs() < 1e-9, "{} vs {expect}", d.rmse);
        // Only the 40-level pixel exceeds the default threshold of 8.
        assert_eq!(d.differing_pixels_fraction, 0.25);
        // With a threshold of 3 the 4-level pixel counts too.
        let d = diff_images_with_threshold(&a, &b, 3).unwrap();
        assert_eq!(d.differing_pixels_fraction, 0.5);
    }

    #[test]
    fn size_mismatch_and_empty_images_are_errors() {
        let err = diff_images(&solid(4, 4, [0; 4]), &solid(4, 5, [0; 4])).unwrap_err();
        assert!(err.to_string().contains("4x4 vs 4x5"), "{err}");
        assert!(matches!(
            diff_images(&solid(0, 0, [0; 4]), &solid(0, 0, [0; 4])),
            Err(ImageDiffError::Empty)
        ));
    }

    #[test]
    fn files_round_trip_through_png() {
        let dir = crate::test_dir("imagediff");
        let (pa, pb) = (dir.join("a.png"), dir.join("b.png"));
        solid(3, 3, [10, 20, 30, 255]).save(&pa).unwrap();
        solid(3, 3, [10, 20, 130, 255]).save(&pb).unwrap();
        let d = diff_files(&pa, &pb).unwrap();
        assert!((d.rmse - (10000.0f64 / 3.0).sqrt()).abs() < 1e-9);
        let missing = diff_files(&dir.join("nope.png"), &pb).unwrap_err();
        assert!(missing.to_string().contains("nope.png"), "{missing}");
    }

    #[test]
    fn the_diff_picture_marks_every_changed_pixel_and_only_those() {
        let a = solid(3, 2, [100, 100, 100, 255]);
        let mut b = a.clone();
        b.put_pixel(2, 1, Rgba([101, 100, 100, 255]));
        let v = diff_visual(&a, &b).unwrap();
        let marked: Vec<(u32, u32)> = v
            .enumerate_pixels()
            .filter(|(_, _, p)| p.0[1] == 0 && p.0[0] > 0)
            .map(|(x, y, _)| (x, y))
            .collect();
        assert_eq!(marked, [(2, 1)]);
        assert!(diff_visual(&a, &solid(2, 2, [0; 4])).is_err());
    }
}
