//! The bad-input corpus: deterministic truncations, byte flips and absurd
//! offsets/counts written over the structural fields of valid files, fed to
//! every reader. No reader may panic; truncated ADT and DBC files must be
//! refused; whatever a reader accepts must still be valid.

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::{sample_effects, sample_tile};
use crate::formats::{adt, blp, dbc, m2, wdl, wdt, FormatError};
use crate::rng::Rng32;
use crate::world::coords::TileCoord;

/// Values written over u32 fields: zero, tiny, huge, sign-bit, near the
/// file length, random.
fn absurd(rng: &mut Rng32, len: usize) -> u32 {
    match rng.below(8) {
        0 => 0,
        1 => 1,
        2 => u32::MAX,
        3 => 0x7FFF_FFFF,
        4 => 0x8000_0000,
        5 => len as u32,
        6 => len as u32 + 1 + rng.below(64),
        _ => rng.next_u32(),
    }
}

/// Offsets of reversed chunk tags in `data` (the chunk headers to attack).
fn tag_offsets(data: &[u8]) -> Vec<usize> {
    const TAGS: [&[u8; 4]; 15] = [
        b"REVM", b"RDHM", b"NICM", b"XETM", b"KNCM", b"TVCM", b"RNCM", b"YLCM", b"FRCM", b"LACM",
        b"DHPM", b"NIAM", b"FOAM", b"ERAM", b"OHAM",
    ];
    (0..data.len().saturating_sub(3))
        .filter(|&i| TAGS.iter().any(|t| &data[i..i + 4] == *t))
        .collect()
}

/// One mutated copy of `base`: `structural` are offsets of u32 fields that
/// matter most (chunk sizes, header offsets and counts).
fn mutate(base: &[u8], structural: &[usize], rng: &mut Rng32) -> (Vec<u8>, String) {
    let mut d = base.to_vec();
    let len = d.len();
    match rng.below(4) {
        0 => {
            let cut = if rng.below(2) == 0 && !structural.is_empty() {
                structural[rng.below(structural.len() as u32) as usize] + rng.below(8) as usize
            } else {
                rng.below(len as u32) as usize
            };
            d.truncate(cut.min(len - 1));
            (d, format!("truncate to {cut}"))
        }
        1 => {
            let n = 1 + rng.below(8);
            for _ in 0..n {
                let at = rng.below(len as u32) as usize;
                d[at] ^= 1 << rng.below(8);
            }
            (d, format!("{n} bit flips"))
        }
        _ => {
            let at = structural[rng.below(structural.len() as u32) as usize];
            let v = absurd(rng, len);
            if at + 4 <= len {
                d[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
            (d, format!("u32 {v:#x} at {at:#x}"))
        }
    }
}

/// Runs `read` on `cases` mutations of `base`; returns how many were refused.
fn run(
    name: &str,
    base: &[u8],
    structural: &[usize],
    cases: u32,
    seed: u32,
    read: impl Fn(&[u8]) -> Result<(), FormatError>,
) -> (u32, u32) {
    let mut rng = Rng32::new(seed);
    let (mut refused, mut truncations) = (0, 0);
    for i in 0..cases {
        let (data, what) = mutate(base, structural, &mut rng);
        let truncated = data.len() < base.len();
        let res = catch_unwind(AssertUnwindSafe(|| read(&data)));
        match res {
            Err(_) => panic!("{name} case {i} ({what}) panicked"),
            Ok(Err(e)) => {
                refused += 1;
                let msg = e.to_string();
                assert!(
                    msg.contains(name),
                    "{name} case {i} ({what}): error does not name the file: {msg}"
                );
            }
            Ok(Ok(())) => {}
        }
        truncations += u32::from(truncated);
    }
    (refused, truncations)
}

#[test]
fn readers_survive_a_mutation_corpus() {
    // ADT: a tile with layers in its first MCNKs only, to keep it small.
    let mut tile = sample_tile(TileCoord::new(20, 30), 11);
    for m in tile.mcnks.iter_mut().skip(6) {
        m.layers.clear();
    }
    let adt_bytes = adt::write_adt(&tile).expect("adt");
    let mut structural: Vec<usize> = tag_offsets(&adt_bytes).iter().map(|t| t + 4).collect();
    structural.extend((20..84).step_by(4)); // MHDR fields
    structural.extend((0..64).map(|i| 0x60 + 8 * i)); // MCIN entries
    for t in tag_offsets(&adt_bytes)
        .into_iter()
        .filter(|&t| &adt_bytes[t..t + 4] == b"KNCM")
        .take(8)
    {
        structural.extend((t + 8..t + 8 + 0x40).step_by(4));
        structural.push(t + 8 + 0x68);
    }
    let (refused, truncations) = run("Map_20_30.adt", &adt_bytes, &structural, 1500, 1, |d| {
        adt::read_adt(d, "Map_20_30.adt", Some(TileCoord::new(20, 30))).map(drop)
    });
    assert!(
        refused >= truncations && truncations > 100,
        "{refused} refused, {truncations} truncated"
    );

    // DBC: both ground-effect tables.
    let fx = sample_effects();
    let doodad = dbc::write_ground_effect_doodad(&fx.doodads).expect("doodad");
    let texture = dbc::write_ground_effect_texture(&fx, fx.layout);
    let fields: Vec<usize> = (0..texture.len().min(120)).step_by(4).collect();
    let (refused, _) = run("GroundEffectTexture.dbc", &texture, &fields, 800, 2, |d| {
        dbc::read_ground_effects(
            d,
            "GroundEffectTexture.dbc",
            &doodad,
            "GroundEffectDoodad.dbc",
        )
        .map(drop)
    });
    assert!(refused > 200, "{refused}");
    let fields: Vec<usize> = (0..doodad.len().min(80)).step_by(4).collect();
    run("GroundEffectDoodad.dbc", &doodad, &fields, 800, 3, |d| {
        dbc::read_ground_effects(
            &texture,
            "GroundEffectTexture.dbc",
            d,
            "GroundEffectDoodad.dbc",
        )
        .map(drop)
    });

    // WDT.
    let wdt_bytes = wdt::write_wdt(&[TileCoord::new(1, 2)], wdt::MPHD_BIG_ALPHA).expect("wdt");
    let mut structural: Vec<usize> = tag_offsets(&wdt_bytes).iter().map(|t| t + 4).collect();
    structural.push(8);
    run("Map.wdt", &wdt_bytes, &structural, 300, 4, |d| {
        wdt::read_wdt(d, "Map.wdt").map(drop)
    });

    // WDL: chunk sizes, the MAOF entries in use and around them.
    for (i, bytes) in fuzz_seeds("wdl").into_iter().enumerate() {
        let mut structural: Vec<usize> = tag_offsets(&bytes).iter().map(|t| t + 4).collect();
        let maof = tag_offsets(&bytes)
            .into_iter()
            .find(|&t| &bytes[t..t + 4] == b"FOAM")
            .expect("MAOF")
            + 8;
        structural.extend(
            (0..4096)
                .map(|k| maof + 4 * k)
                .filter(|&at| bytes[at..at + 4] != [0; 4])
                .flat_map(|at| [at, at + 4]),
        );
        let (refused, truncations) = run("Map.wdl", &bytes, &structural, 600, 30 + i as u32, |d| {
            wdl::read_wdl(d, "Map.wdl").map(drop)
        });
        assert!(
            refused >= truncations && truncations > 50,
            "{refused} refused, {truncations} truncated"
        );
    }

    // M2 and BLP.
    let model = &crate::models::elwynn_models()[3];
    let m2_bytes = m2::write_m2(model, "x.blp").expect("m2");
    let header: Vec<usize> = (4..0x144).step_by(4).collect();
    run("ElwGra04.m2", &m2_bytes, &header, 1000, 5, |d| {
        let m = m2::read_m2(d, "ElwGra04.m2")?;
        m.into_detail_model("ElwGra04.m2", model.path.clone(), model.texture.clone())
            .map(drop)
    });
    let blp_bytes = blp::write_blp(&model.texture).expect("blp");
    let header: Vec<usize> = (4..0x94).step_by(4).collect();
    run("ElwGra04.blp", &blp_bytes, &header, 500, 6, |d| {
        blp::read_blp(d, "ElwGra04.blp").map(drop)
    });

    // BLP DXT5 and palettized, M2 v264 with its skin.
    for (i, bytes) in fuzz_seeds("blp").into_iter().enumerate() {
        let header: Vec<usize> = (4..0x94).step_by(4).collect();
        run("seed.blp", &bytes, &header, 300, 7 + i as u32, |d| {
            blp::read_blp(d, "seed.blp").map(drop)
        });
    }
    let (m2_264, skin) = m2::write_m2_v264_fixture(model, "x.blp").expect("v264");
    let header: Vec<usize> = (4..0x130).step_by(4).collect();
    run("W.m2", &m2_264, &header, 600, 20, |d| {
        m2::read_m2_v264(d, "W.m2", &skin, "W00.skin").map(drop)
    });
    let header: Vec<usize> = (4..0x30).step_by(4).collect();
    run("W00.skin", &skin, &header, 400, 21, |d| {
        m2::read_m2_v264(&m2_264, "W.m2", d, "W00.skin").map(drop)
    });
}

/// The seed inputs of fuzz target `target` (see `scenes/fuzz`), as built:
/// BLPs (DXT1, DXT3, DXT5, palettized with 4-bit alpha, BGRA) and M2 v264
/// inputs (the M2's length as u16 LE, the M2, its skin), and WDLs (one
/// tile with MAHO after the empty WMO chunks sward writes; two tiles, one
/// without MAHO, with MAOF right after MVER).
fn fuzz_seeds(target: &str) -> Vec<Vec<u8>> {
    let model = &crate::models::elwynn_models()[3];
    match target {
        "wdl" => {
            let tile = |base: i16, holes: Option<[u16; 16]>| {
                let mut t = wdl::WdlTile::flat(base);
                for (k, v) in t.outer.iter_mut().flatten().enumerate() {
                    *v = base + (k as i16 % 37) * 3;
                }
                for (k, v) in t.inner.iter_mut().flatten().enumerate() {
                    *v = base - (k as i16 % 29);
                }
                t.holes = holes;
                t
            };
            let mut one = wdl::Wdl::new();
            let mut holes = [0u16; 16];
            holes[4] = 0x0810;
            one.set(TileCoord::new(1, 0), Some(tile(120, Some(holes))));
            let mut two = wdl::Wdl::new();
            two.set(TileCoord::new(0, 0), Some(tile(-40, None)));
            two.set(TileCoord::new(63, 63), Some(tile(900, Some([0; 16]))));
            // Drop MWMO/MWID/MODF (24 bytes) and move the offsets with them.
            let full = wdl::write_wdl(&two);
            let mut bare = [&full[..12], &full[36..]].concat();
            for k in 0..4096 {
                let at = 20 + 4 * k;
                let off = u32::from_le_bytes(bare[at..at + 4].try_into().expect("4"));
                if off != 0 {
                    bare[at..at + 4].copy_from_slice(&(off - 24).to_le_bytes());
                }
            }
            assert_eq!(wdl::read_wdl(&bare, "bare.wdl").expect("bare"), two);
            vec![wdl::write_wdl(&one), bare]
        }
        "blp" => {
            let small = crate::models::DetailTexture::rgba(
                4,
                4,
                [16usize, 4, 1]
                    .iter()
                    .map(|n| (0..4 * n).map(|i| (i * 37) as u8).collect())
                    .collect(),
            );
            let bgra = blp::write_blp(&small).expect("blp");
            let dxt = |alpha_depth: u8, enc: u8, block: &[u8]| {
                let mut o = crate::formats::bytes::Out::default();
                o.bytes(b"BLP2");
                o.u32(1);
                o.bytes(&[2, alpha_depth, enc, 1]);
                o.u32(8);
                o.u32(8);
                o.zeros(0x94 + 1024 - o.pos());
                for (l, blocks) in [4usize, 1, 1, 1].iter().enumerate() {
                    o.patch_u32(0x14 + 4 * l, o.pos() as u32);
                    o.patch_u32(0x54 + 4 * l, (blocks * block.len()) as u32);
                    (0..*blocks).for_each(|_| o.bytes(block));
                }
                o.buf
            };
            let colour = [0x00, 0xF8, 0x1F, 0x00, 0xE4, 0x1B, 0x4E, 0x93];
            let mut dxt3 = vec![0x8F; 8];
            dxt3.extend_from_slice(&colour);
            let mut dxt5 = vec![255, 0, 0x49, 0x92, 0x24, 0x49, 0x92, 0x24];
            dxt5.extend_from_slice(&colour);
            let mut pal = crate::formats::bytes::Out::default();
            pal.bytes(b"BLP2");
            pal.u32(1);
            pal.bytes(&[1, 4, 0, 0]);
            pal.u32(4);
            pal.u32(4);
            pal.zeros(0x94 + 1024 - pal.pos());
            pal.patch_u32(0x14, pal.pos() as u32);
            pal.patch_u32(0x54, 16 + 8);
            pal.bytes(&(0..16).collect::<Vec<u8>>());
            pal.bytes(&[0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE]);
            vec![
                dxt(1, 0, &colour),
                dxt(8, 1, &dxt3),
                dxt(8, 7, &dxt5),
                pal.buf,
                bgra,
            ]
        }
        _ => {
            let (m, skin) = m2::write_m2_v264_fixture(model, "x.blp").expect("v264");
            let mut input = u16::try_from(m.len())
                .expect("small")
                .to_le_bytes()
                .to_vec();
            input.extend_from_slice(&m);
            input.extend_from_slice(&skin);
            vec![input]
        }
    }
}

/// Path of the committed seed corpus of fuzz target `target` (the corpus
/// that fuzzing grows, `scenes/fuzz/corpus`, is not committed).
fn corpus_dir(target: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target)
}

/// Rewrites the seed corpora (`cargo test -p sward-scenes write_fuzz_seeds
/// -- --ignored`).
#[test]
#[ignore = "writes scenes/fuzz/seeds; run by hand when the seeds change"]
fn write_fuzz_seeds() {
    for target in ["blp", "m2", "wdl"] {
        let dir = corpus_dir(target);
        std::fs::create_dir_all(&dir).expect("mkdir");
        for (i, bytes) in fuzz_seeds(target).iter().enumerate() {
            std::fs::write(dir.join(format!("seed-{i}")), bytes).expect("write");
        }
    }
}

/// Every committed corpus file (the seeds, and any input fuzzing found
/// worth keeping) goes through the fuzz targets' reader calls without a
/// panic, and the seeds read successfully.
#[test]
fn fuzz_corpus_replays_without_panics() {
    let mut n = 0;
    for target in ["blp", "m2", "wdl"] {
        let mut files: Vec<_> = std::fs::read_dir(corpus_dir(target))
            .expect("corpus dir")
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        for f in files {
            let data = std::fs::read(&f).expect("read");
            let seed = f
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("seed-"));
            let ok = catch_unwind(AssertUnwindSafe(|| match target {
                "blp" => blp::read_blp(&data, "fuzz.blp").is_ok(),
                "wdl" => wdl::read_wdl(&data, "fuzz.wdl").is_ok_and(|w| {
                    w.tile_count() > 0
                        && wdl::read_wdl(&wdl::write_wdl(&w), "fuzz.wdl").is_ok_and(|a| a == w)
                }),
                _ => {
                    let Some((len, rest)) = data.split_first_chunk::<2>() else {
                        return false;
                    };
                    let cut = (u16::from_le_bytes(*len) as usize).min(rest.len());
                    let (model, skin) = rest.split_at(cut);
                    let _ = m2::read_m2(model, "fuzz.m2");
                    matches!(
                        m2::read_m2_with_skin(model, "fuzz.m2", "World\\fuzz.m2", |p| {
                            Ok(Some(crate::formats::DataFile {
                                bytes: skin.to_vec(),
                                name: p.to_owned(),
                            }))
                        }),
                        Ok(Ok(_))
                    )
                }
            }))
            .unwrap_or_else(|_| panic!("{} panicked", f.display()));
            assert!(ok || !seed, "seed {} does not read", f.display());
            n += 1;
        }
    }
    assert!(n >= 8, "{n} corpus files");
}
