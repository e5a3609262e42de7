//! The bad-input corpus: deterministic truncations, byte flips and absurd
//! offsets/counts written over the structural fields of valid files, fed to
//! every reader. No reader may panic; truncated ADT and DBC files must be
//! refused; whatever a reader accepts must still be valid.

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::{sample_effects, sample_tile};
use crate::formats::{adt, blp, dbc, m2, wdt, FormatError};
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
    const TAGS: [&[u8; 4]; 12] = [
        b"REVM", b"RDHM", b"NICM", b"XETM", b"KNCM", b"TVCM", b"RNCM", b"YLCM", b"FRCM", b"LACM",
        b"DHPM", b"NIAM",
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
}
