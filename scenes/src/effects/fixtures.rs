//! Test fixtures shared by the effect and placement tests: a small
//! GroundEffectDoodad table and the detail model paths it resolves to.

use super::GroundEffectDoodad;

/// The detail model paths of [`lettered_doodads`]' models, in their order.
pub(crate) const MODEL_PATHS: [&str; 3] = [
    "World\\NoDXT\\Detail\\A.m2",
    "World\\NoDXT\\Detail\\B.m2",
    "World\\NoDXT\\Detail\\C.m2",
];

/// The first `n` (at most 3) of the detail doodads 11, 12 and 13, naming
/// `A.mdl`, `B.mdl` and `C.mdl`.
pub(crate) fn lettered_doodads(n: usize) -> Vec<GroundEffectDoodad> {
    [(11, "A"), (12, "B"), (13, "C")][..n]
        .iter()
        .map(|&(id, m)| GroundEffectDoodad {
            id,
            model: format!("{m}.mdl"),
            flags: 0,
        })
        .collect()
}
