//! The 14 procedural Elwynn-like detail models: crossed-quad grass clumps,
//! star clusters, flowers and ferns, sized like the Elwynn detail models of the client
//! (mostly 0.288..0.620 units tall, ElwGra02 a 1.593-unit outlier).

use super::texture::{box_mips, rounded_average, DetailTexture, Motif};
use super::{Aabb, DetailModel, DetailVertex, BLEND_ALPHA_KEY, RENDER_FLAG_TWO_SIDED};
use crate::effects::DETAIL_DIR;

/// Level-0 size of every detail texture.
const TEXTURE_SIZE: u32 = 64;

/// Geometry kinds.
#[derive(Clone, Copy)]
enum Shape {
    /// `n` full-width quads through the root at even angles (2 = a cross).
    Star(u32),
    /// A centre star of `n` quads plus three smaller offset crossed pairs.
    Cluster(u32),
}

struct Spec {
    name: &'static str,
    shape: Shape,
    motif: Motif,
    height: f32,
    width: f32,
    tint: [f32; 3],
}

const SPECS: [Spec; 14] = [
    Spec {
        name: "ElwGra01",
        shape: Shape::Star(2),
        motif: Motif::Blades,
        height: 0.412,
        width: 0.70,
        tint: [0.36, 0.62, 0.20],
    },
    Spec {
        name: "ElwGra02",
        shape: Shape::Star(3),
        motif: Motif::Blades,
        height: 1.593,
        width: 1.10,
        tint: [0.45, 0.58, 0.22],
    },
    Spec {
        name: "ElwGra03",
        shape: Shape::Star(3),
        motif: Motif::Blades,
        height: 0.520,
        width: 0.80,
        tint: [0.30, 0.55, 0.18],
    },
    Spec {
        name: "ElwGra04",
        shape: Shape::Cluster(2),
        motif: Motif::Blades,
        height: 0.380,
        width: 0.55,
        tint: [0.42, 0.66, 0.25],
    },
    Spec {
        name: "ElwGra05",
        shape: Shape::Star(4),
        motif: Motif::Blades,
        height: 0.620,
        width: 0.90,
        tint: [0.33, 0.50, 0.16],
    },
    Spec {
        name: "ElwGra06",
        shape: Shape::Star(2),
        motif: Motif::Blades,
        height: 0.288,
        width: 0.60,
        tint: [0.50, 0.68, 0.28],
    },
    Spec {
        name: "ElwGra07",
        shape: Shape::Cluster(3),
        motif: Motif::Blades,
        height: 0.455,
        width: 0.75,
        tint: [0.27, 0.47, 0.15],
    },
    Spec {
        name: "ElwGra08",
        shape: Shape::Star(3),
        motif: Motif::Blades,
        height: 0.335,
        width: 0.65,
        tint: [0.55, 0.60, 0.24],
    },
    Spec {
        name: "ElwFlo01",
        shape: Shape::Star(3),
        motif: Motif::Blossoms,
        height: 0.402,
        width: 0.50,
        tint: [0.85, 0.80, 0.20],
    },
    Spec {
        name: "ElwFlo02",
        shape: Shape::Star(2),
        motif: Motif::Blossoms,
        height: 0.360,
        width: 0.45,
        tint: [0.80, 0.35, 0.60],
    },
    Spec {
        name: "ElwFlo03",
        shape: Shape::Cluster(2),
        motif: Motif::Blossoms,
        height: 0.470,
        width: 0.55,
        tint: [0.55, 0.60, 0.95],
    },
    Spec {
        name: "ElwFlo04",
        shape: Shape::Star(3),
        motif: Motif::Blossoms,
        height: 0.310,
        width: 0.40,
        tint: [0.95, 0.95, 0.90],
    },
    Spec {
        name: "ElwFern01",
        shape: Shape::Star(3),
        motif: Motif::Frond,
        height: 0.580,
        width: 0.85,
        tint: [0.25, 0.52, 0.22],
    },
    Spec {
        name: "ElwFern02",
        shape: Shape::Star(4),
        motif: Motif::Frond,
        height: 0.495,
        width: 0.70,
        tint: [0.38, 0.56, 0.30],
    },
];

/// Names of the 14 procedural models, in model-index order.
pub const ELWYNN_MODEL_NAMES: [&str; 14] = {
    let mut names = [""; 14];
    let mut i = 0;
    while i < 14 {
        names[i] = SPECS[i].name;
        i += 1;
    }
    names
};

/// Builds the 14 procedural detail models (deterministic; model index =
/// position in [`ELWYNN_MODEL_NAMES`]).
pub fn elwynn_models() -> Vec<DetailModel> {
    SPECS
        .iter()
        .enumerate()
        .map(|(i, s)| build(i as u32, s))
        .collect()
}

fn build(index: u32, spec: &Spec) -> DetailModel {
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    // Rotate every model a little differently so clumps do not align.
    let base_angle = index as f32 * 0.37;
    // Both shapes start with the centre star; a cluster adds three smaller
    // offset crossed pairs around it.
    let (Shape::Star(n) | Shape::Cluster(n)) = spec.shape;
    star(
        &mut vertices,
        &mut indices,
        n,
        base_angle,
        [0.0, 0.0],
        spec.width,
        spec.height,
    );
    if let Shape::Cluster(_) = spec.shape {
        for k in 0..3 {
            let a = base_angle + k as f32 * std::f32::consts::TAU / 3.0;
            let off = [a.cos() * spec.width * 0.35, a.sin() * spec.width * 0.35];
            star(
                &mut vertices,
                &mut indices,
                2,
                a + 0.6,
                off,
                spec.width * 0.6,
                spec.height * 0.75,
            );
        }
    }
    quad_model(
        spec.name.to_owned(),
        format!("{DETAIL_DIR}{}.m2", spec.name),
        DetailTexture::draw(TEXTURE_SIZE, spec.motif, spec.tint, index + 1),
        vertices,
        indices,
    )
}

/// A procedural detail model of upright quads: two-sided, alpha-keyed, one
/// bone, its bounds those of its vertices and its height their top.
fn quad_model(
    name: String,
    path: String,
    texture: DetailTexture,
    vertices: Vec<DetailVertex>,
    indices: Vec<u16>,
) -> DetailModel {
    let bounds = Aabb::from_points(vertices.iter().map(|v| v.position));
    DetailModel {
        name,
        path,
        texture,
        vertices,
        indices,
        render_flags: RENDER_FLAG_TWO_SIDED,
        blend_mode: BLEND_ALPHA_KEY,
        bones: 1,
        height: bounds.max[2],
        bounds,
    }
}

/// Height of a placeholder when nothing tells how tall its doodad is
/// (about the middle of the client's detail models, 0.29..0.62 yards).
pub const PLACEHOLDER_HEIGHT: f32 = 0.5;

/// The stand-in for a detail model the data lacks: a crossed pair of
/// upright quads `height` tall and as wide, textured with an opaque
/// yellow and black checker (4x4 squares on 16x16 texels) that no real
/// ground effect looks like (the terrain's missing-texture checker is
/// magenta and black, so the two stay apart). It keeps `path`, so the effects that name the
/// missing model resolve to it.
pub fn placeholder_model(path: &str, height: f32) -> DetailModel {
    let height = if height.is_finite() && height > 0.0 {
        height
    } else {
        PLACEHOLDER_HEIGHT
    };
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    star(
        &mut vertices,
        &mut indices,
        2,
        0.0,
        [0.0, 0.0],
        height,
        height,
    );
    let name = path
        .rsplit(['\\', '/'])
        .next()
        .unwrap_or(path)
        .trim_end_matches(".m2")
        .to_owned();
    quad_model(name, path.to_owned(), checker_texture(), vertices, indices)
}

/// The placeholder checker with its full mip chain (each level the box
/// average of the one above; from 2x2 down the squares blend to one colour).
pub fn checker_texture() -> DetailTexture {
    const SIDE: u32 = 16;
    let mut level0 = Vec::with_capacity((SIDE * SIDE * 4) as usize);
    for y in 0..SIDE {
        for x in 0..SIDE {
            let on = ((x / 4) + (y / 4)) % 2 == 0;
            level0.extend_from_slice(if on {
                &[255, 220, 0, 255]
            } else {
                &[0, 0, 0, 255]
            });
        }
    }
    DetailTexture::rgba(SIDE, SIDE, box_mips(level0, SIDE, rounded_average))
}

/// Appends `n` vertical quads through `centre` at even angles from `angle`.
fn star(
    vertices: &mut Vec<DetailVertex>,
    indices: &mut Vec<u16>,
    n: u32,
    angle: f32,
    centre: [f32; 2],
    width: f32,
    height: f32,
) {
    for q in 0..n {
        let a = angle + q as f32 * std::f32::consts::PI / n as f32;
        let (dx, dy) = (a.cos() * width * 0.5, a.sin() * width * 0.5);
        // Normals lean up (grass art convention): horizontal perpendicular + up.
        let (nx, ny, nz) = (-a.sin() * 0.5, a.cos() * 0.5, 1.0);
        let len = (nx * nx + ny * ny + nz * nz).sqrt();
        let normal = [nx / len, ny / len, nz / len];
        let first = vertices.len() as u16;
        for (s, z, u, v) in [
            (-1.0, 0.0, 0.0, 1.0),
            (1.0, 0.0, 1.0, 1.0),
            (1.0, height, 1.0, 0.0),
            (-1.0, height, 0.0, 0.0),
        ] {
            vertices.push(DetailVertex {
                position: [centre[0] + s * dx, centre[1] + s * dy, z],
                normal,
                uv: [u, v],
                bone: 0,
            });
        }
        indices.extend_from_slice(&[first, first + 1, first + 2, first, first + 2, first + 3]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholder_is_a_valid_checkered_cross_of_the_asked_height() {
        let m = placeholder_model("World\\NoDXT\\Detail\\ZDgra03.m2", 0.8);
        m.validate().expect("valid model");
        assert_eq!(m.name, "ZDgra03");
        assert_eq!(m.path, "World\\NoDXT\\Detail\\ZDgra03.m2");
        assert_eq!(m.triangles(), 4);
        assert!((m.height - 0.8).abs() < 1e-6);
        let level0 = m.texture.rgba_level(0).expect("rgba");
        assert_eq!(&level0[0..4], &[255, 220, 0, 255]);
        assert_eq!(&level0[16..20], &[0, 0, 0, 255]);
        assert_eq!(m.texture.mip_count(), 5);
        assert!((m.texture.opaque_fraction() - 1.0).abs() < 1e-6);
        let fallback = placeholder_model("x.m2", f32::NAN);
        assert_eq!(fallback.height, PLACEHOLDER_HEIGHT);
    }

    #[test]
    fn elwynn_set_matches_the_reference_facts() {
        let models = elwynn_models();
        assert_eq!(models.len(), 14);
        for m in &models {
            m.validate().expect("valid model");
            assert_eq!((m.render_flags, m.blend_mode, m.bones), (4, 1, 1));
            assert!(m.path.starts_with("World\\NoDXT\\Detail\\") && m.path.ends_with(".m2"));
            if m.name != "ElwGra02" {
                assert!(
                    (0.288..=0.620).contains(&m.height),
                    "{} is {} tall",
                    m.name,
                    m.height
                );
            }
            let cut = m.texture.opaque_fraction();
            assert!(
                cut > 0.05 && cut < 0.9,
                "{} texture has no cut-outs ({cut})",
                m.name
            );
            let crate::models::TexturePixels::Rgba8(mips) = &m.texture.pixels else {
                panic!("{} texture is not RGBA8", m.name)
            };
            assert_eq!(mips.len(), 7);
            assert_eq!(mips.last().map(Vec::len), Some(4));
        }
        let gra01 = &models[0];
        assert_eq!(
            (
                gra01.name.as_str(),
                gra01.vertices.len(),
                gra01.indices.len()
            ),
            ("ElwGra01", 8, 12)
        );
        let gra02 = models
            .iter()
            .find(|m| m.name == "ElwGra02")
            .expect("ElwGra02");
        assert!((gra02.height - 1.593).abs() < 1e-4);
    }

    #[test]
    fn every_model_has_its_own_tint() {
        let models = elwynn_models();
        let tints: Vec<[f32; 3]> = models.iter().map(|m| m.texture.mean_opaque_rgb()).collect();
        for i in 0..tints.len() {
            for j in i + 1..tints.len() {
                let d: f32 = (0..3).map(|k| (tints[i][k] - tints[j][k]).abs()).sum();
                assert!(
                    d > 0.01,
                    "{} and {} look alike",
                    models[i].name,
                    models[j].name
                );
            }
        }
    }

    #[test]
    fn generation_is_deterministic() {
        assert_eq!(elwynn_models(), elwynn_models());
    }
}
