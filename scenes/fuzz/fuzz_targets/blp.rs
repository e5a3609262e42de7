//! Fuzz target: the BLP2 reader (palettized, DXT1/3/5 and BGRA; DXT levels
//! decoded on demand)
//! must return a texture or an error for any bytes, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sward_scenes::formats::blp;

fuzz_target!(|data: &[u8]| {
    if let Ok(t) = blp::read_blp(data, "fuzz.blp") {
        t.validate().expect("a texture read is valid");
        let level0 = t.rgba_level(0).expect("level 0 decodes");
        assert_eq!(level0.len(), (t.width * t.height * 4) as usize);
    }
});
