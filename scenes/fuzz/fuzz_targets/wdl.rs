//! Fuzz target: the WDL reader must return a WDL or an error for any bytes,
//! never panic, and whatever it accepts must write back to a file that
//! reads to the same WDL and answers far heights at its grid points.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sward_scenes::formats::wdl;

fuzz_target!(|data: &[u8]| {
    if let Ok(w) = wdl::read_wdl(data, "fuzz.wdl") {
        let again = wdl::read_wdl(&wdl::write_wdl(&w), "fuzz.wdl").expect("rewritten WDL reads");
        assert_eq!(again, w);
        for (coord, t) in w.tiles() {
            let (gx, gy) = wdl::Wdl::inner_grid(coord, 7, 9);
            assert_eq!(w.height_at_grid(gx, gy), Some(f32::from(t.inner[7][9])));
        }
    }
});
