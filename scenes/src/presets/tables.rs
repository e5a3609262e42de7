//! The ground-effect tables of the procedural presets: 14 GroundEffectDoodad
//! records (one per detail model, stored with `.mdl` names as old archives
//! do) and four weighted GroundEffectTexture records.

use super::terrain::effect_ids;
use crate::effects::{
    EffectError, GroundEffectDoodad, GroundEffectLayout, GroundEffectTexture, GroundEffects,
};
use crate::models::ELWYNN_MODEL_NAMES;

/// GroundEffectDoodad id of model index `i` (ids start at 1).
pub fn doodad_id(model_index: usize) -> u32 {
    model_index as u32 + 1
}

fn id_of(name: &str) -> u32 {
    ELWYNN_MODEL_NAMES
        .iter()
        .position(|n| *n == name)
        .map_or(u32::MAX, doodad_id)
}

/// The presets' ground-effect tables (3.3.5a layout, weighted slots).
pub fn preset_effects() -> Result<GroundEffects, EffectError> {
    let doodads = ELWYNN_MODEL_NAMES
        .iter()
        .enumerate()
        .map(|(i, name)| GroundEffectDoodad {
            id: doodad_id(i),
            model: format!("{name}.mdl"),
            flags: 0,
        })
        .collect();
    let rec = |id, names: [&str; 4], weights, density| GroundEffectTexture {
        id,
        doodads: names.map(id_of),
        weights,
        density,
        terrain_type: 1,
        ..Default::default()
    };
    let textures = vec![
        rec(
            effect_ids::GRASS_MEADOW,
            ["ElwGra01", "ElwGra03", "ElwGra05", "ElwGra02"],
            [40, 30, 25, 5],
            4,
        ),
        rec(
            effect_ids::GRASS_FOREST,
            ["ElwGra04", "ElwGra06", "ElwGra07", "ElwGra08"],
            [30, 30, 25, 15],
            3,
        ),
        rec(
            effect_ids::FLOWERS,
            ["ElwFlo01", "ElwFlo02", "ElwFlo03", "ElwFlo04"],
            [30, 30, 20, 20],
            2,
        ),
        rec(
            effect_ids::FERNS,
            ["ElwFern01", "ElwFern02", "ElwGra03", "ElwFlo02"],
            [35, 35, 20, 10],
            3,
        ),
    ];
    GroundEffects::new(GroundEffectLayout::Wotlk335, textures, doodads)
}
