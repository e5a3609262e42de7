//! The CPU mirror of the pyramid build (`hiz_reduce`, `hiz_from_depth`):
//! which texels of a level one texel of the next covers, and the next
//! level of a [`Level`].

use super::{level_size, Level};

/// The source texels (first, last; inclusive) that texel `x` of a level of
/// `dst` texels covers in a level of `src` (mirrors WGSL `hiz_footprint`).
pub fn footprint(x: u32, dst: u32, src: u32) -> (u32, u32) {
    let first = (2 * x).min(src - 1);
    let last = if x == dst - 1 {
        src - 1
    } else {
        (2 * x + 1).min(src - 1)
    };
    (first, last)
}

/// CPU reference of `hiz_reduce` (and of `hiz_from_depth` with one sample):
/// the next level of `src`.
pub fn reduce_level(src: &Level) -> Level {
    let [width, height] = level_size([src.width, src.height], 1);
    let mut depth = Vec::with_capacity((width * height) as usize);
    for y in 0..height {
        let (y0, y1) = footprint(y, height, src.height);
        for x in 0..width {
            let (x0, x1) = footprint(x, width, src.width);
            let mut far = 1.0f32;
            for sy in y0..=y1 {
                for sx in x0..=x1 {
                    far = far.min(src.at(sx, sy));
                }
            }
            depth.push(far);
        }
    }
    Level {
        depth,
        width,
        height,
    }
}
