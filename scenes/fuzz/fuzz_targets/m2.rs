//! Fuzz target: the M2 reader, version 264 with its `.skin` file included.
//! The input's first two bytes (u16 LE) give the M2's length; the rest after
//! the M2 is its skin file, so one run mutates both together.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sward_scenes::formats::{m2, DataFile};

fuzz_target!(|data: &[u8]| {
    let Some((len, rest)) = data.split_first_chunk::<2>() else { return };
    let cut = (u16::from_le_bytes(*len) as usize).min(rest.len());
    let (model, skin) = rest.split_at(cut);
    let _ = m2::read_m2(model, "fuzz.m2");
    let _ = m2::read_m2_with_skin(model, "fuzz.m2", "World\\fuzz.m2", |p| {
        Ok(Some(DataFile {
            bytes: skin.to_vec(),
            name: p.to_owned(),
        }))
    });
});
