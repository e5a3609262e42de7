//! Fuzz target: the BLP2 reader (palettized, DXT1/3/5 and BGRA decoding)
//! must return a texture or an error for any bytes, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sward_scenes::formats::blp;

fuzz_target!(|data: &[u8]| {
    if let Ok(t) = blp::read_blp(data, "fuzz.blp") {
        assert_eq!(t.mips[0].len(), (t.width * t.height * 4) as usize);
    }
});
