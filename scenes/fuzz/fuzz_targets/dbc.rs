//! Fuzz target: the WDBC reader and both ground-effect table readers. The
//! input is split in two at its first byte (as a fraction) so one run can
//! mutate the GroundEffectTexture and GroundEffectDoodad files together.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sward_scenes::formats::dbc;

fuzz_target!(|data: &[u8]| {
    let Some((&split, rest)) = data.split_first() else { return };
    let cut = rest.len() * split as usize / 256;
    let (texture, doodad) = rest.split_at(cut);
    let _ = dbc::read_dbc(texture, "GroundEffectTexture.dbc");
    let _ = dbc::read_ground_effect_doodad(doodad, "GroundEffectDoodad.dbc");
    let _ = dbc::read_ground_effects(texture, "GroundEffectTexture.dbc", doodad, "GroundEffectDoodad.dbc");
});
