//! Fuzz target: the ADT reader and the inspect report must return a value or
//! an error for any bytes, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sward_scenes::formats::{inspect_adt, read_adt};
use sward_scenes::TileCoord;

fuzz_target!(|data: &[u8]| {
    let _ = read_adt(data, "fuzz_32_48.adt", Some(TileCoord::new(32, 48)));
    if let Ok(report) = inspect_adt(data, "fuzz.adt") {
        let p = report.mcnks[0].position;
        let _ = report.height_at(p[0] as f64 - 1.0, p[1] as f64 - 1.0);
    }
});
