//! Unit tests of the ground-effect tables: layouts, plausibility, dangling
//! references and resolution.

use super::fixtures::{lettered_doodads, MODEL_PATHS};
use super::*;

fn record(id: u32) -> GroundEffectTexture {
    GroundEffectTexture {
        id,
        doodads: [11, 12, 0, u32::MAX],
        weights: [3, 1, 0, 0],
        density: 16,
        sound: 5,
        terrain_type: 2,
        legacy: [0x3a00_0000 + id, 0, 12, 40],
    }
}

fn raw(layout: GroundEffectLayout, rows: &[u32], n: u32) -> RawTable<'_> {
    RawTable {
        record_count: n,
        field_count: layout.field_count(),
        record_size: layout.record_size(),
        rows,
    }
}

/// 1.12.1 slots hold internal ids and 0 is ElwFlo01's; 0xFFFFFFFF is the
/// only empty value there. In tables without a doodad keyed 0 (3.3.5a
/// keys by record id, from 1), 0 is empty.
#[test]
fn zero_is_a_doodad_when_one_is_keyed_zero() {
    let doodads = |first: u32| {
        vec![
            GroundEffectDoodad {
                id: first,
                model: "ElwFlo01.mdl".into(),
                flags: 0,
            },
            GroundEffectDoodad {
                id: 5,
                model: "ElwGra01.mdl".into(),
                flags: 0,
            },
        ]
    };
    let models = [
        "World\\NoDXT\\Detail\\ElwFlo01.m2",
        "World\\NoDXT\\Detail\\ElwGra01.m2",
    ];
    let rec = GroundEffectTexture {
        id: 9,
        doodads: [0, 5, u32::MAX, 0],
        weights: [1, 1, 0, 1],
        density: 0,
        ..Default::default()
    };
    let classic = GroundEffects::new(
        GroundEffectLayout::Classic1121,
        vec![rec.clone()],
        doodads(0),
    )
    .expect("tables");
    assert!(!classic.slot_is_empty(0) && classic.slot_is_empty(u32::MAX));
    let e = *classic
        .resolve(&models)
        .expect("resolves")
        .get(9)
        .expect("9");
    assert_eq!(e.slots, [Some(0), Some(1), None, Some(0)]);
    assert_eq!(e.weights, [1, 1, 0, 1]);
    assert_eq!(e.doodads, [0, 5, u32::MAX, 0]);
    assert_eq!((e.density, e.client_density()), (8, 8));
    let wotlk =
        GroundEffects::new(GroundEffectLayout::Wotlk335, vec![rec], doodads(1)).expect("tables");
    assert!(wotlk.slot_is_empty(0));
    let e = *wotlk.resolve(&models).expect("resolves").get(9).expect("9");
    assert_eq!(e.slots, [None, Some(1), None, None]);
}

#[test]
fn client_density_has_no_cap() {
    let mut rec = record(1);
    rec.density = 40;
    let fx = GroundEffects::new(
        GroundEffectLayout::Classic1121,
        vec![rec],
        lettered_doodads(2),
    )
    .expect("tables");
    let r = fx.resolve(&MODEL_PATHS[..2]).expect("resolves");
    let e = r.get(1).expect("1");
    assert_eq!((e.density, e.client_density()), (24, 40));
}

#[test]
fn density_rules() {
    assert_eq!(
        [0, 1, 8, 24, 25, 1000].map(effective_density),
        [8, 1, 8, 24, 24, 24]
    );
}

#[test]
fn model_paths_normalise() {
    assert_eq!(
        normalize_model_path("ElwGra01.mdl"),
        "World\\NoDXT\\Detail\\ElwGra01.m2"
    );
    assert_eq!(
        normalize_model_path("ElwFlo02.MDX"),
        "World\\NoDXT\\Detail\\ElwFlo02.m2"
    );
    assert_eq!(
        normalize_model_path("World/NoDXT/Detail/X.m2"),
        "World\\NoDXT\\Detail\\X.m2"
    );
}

#[test]
fn each_layout_round_trips_and_is_detected() {
    let known: HashSet<u32> = [11, 12].into();
    for layout in GroundEffectLayout::ALL {
        let rows: Vec<u32> = (1..=3)
            .flat_map(|id| record(id).to_fields(layout))
            .collect();
        let got = detect_layout(&raw(layout, &rows, 3), Some(&known)).expect("detected");
        assert_eq!(got, layout);
        let back = GroundEffectTexture::from_fields(layout, &rows[..layout.field_count() as usize])
            .expect("ok");
        assert_eq!(back.doodads, [11, 12, 0, u32::MAX]);
        assert_eq!(back.density, 16);
        let want_w = if layout == GroundEffectLayout::Wotlk335 {
            [3, 1, 0, 0]
        } else {
            [1, 1, 0, 0]
        };
        assert_eq!(back.weights, want_w, "{layout:?}");
    }
}

#[test]
fn legacy_is_detected_without_a_doodad_table() {
    let rows: Vec<u32> = (1..=3)
        .flat_map(|id| record(id).to_fields(GroundEffectLayout::Legacy053))
        .collect();
    let got = detect_layout(&raw(GroundEffectLayout::Legacy053, &rows, 3), None);
    assert_eq!(got.ok(), Some(GroundEffectLayout::Legacy053));
}

#[test]
fn ambiguous_unknown_and_bad_shapes_are_errors() {
    // All slots valid in both 11-field readings: ids small, no date stamp.
    let rows = vec![1, 11, 12, 11, 12, 11, 12, 11, 12, 8, 1];
    let known: HashSet<u32> = [1, 11, 12].into();
    let e = detect_layout(&raw(GroundEffectLayout::Wotlk335, &rows, 1), Some(&known));
    assert!(matches!(e, Err(EffectError::Ambiguous { .. })), "{e:?}");
    // Only empty slots: nothing proves either layout.
    let empty = vec![1, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0];
    let e = detect_layout(&raw(GroundEffectLayout::Wotlk335, &empty, 1), None);
    assert!(matches!(e, Err(EffectError::Implausible { .. })), "{e:?}");
    let nine = vec![0u32; 9];
    let e = detect_layout(
        &RawTable {
            record_count: 1,
            field_count: 9,
            record_size: 36,
            rows: &nine,
        },
        None,
    );
    assert!(
        matches!(e, Err(EffectError::UnknownLayout { field_count: 9, .. })),
        "{e:?}"
    );
    let e = detect_layout(
        &RawTable {
            record_count: 2,
            field_count: 7,
            record_size: 28,
            rows: &nine,
        },
        None,
    );
    assert!(matches!(e, Err(EffectError::BadShape { .. })), "{e:?}");
    // Unknown doodad ids in the only candidate layout.
    let rows = record(1).to_fields(GroundEffectLayout::Classic1121);
    let e = detect_layout(
        &raw(GroundEffectLayout::Classic1121, &rows, 1),
        Some(&[99].into()),
    );
    assert!(matches!(e, Err(EffectError::Implausible { .. })), "{e:?}");
}

/// Slots naming doodads the table lacks do not refuse a table: the
/// only layout of its shape is taken, and of two, the one with fewer
/// dangling slots. A table whose slots name no known doodad at all, or
/// whose values fit no layout, is still refused.
#[test]
fn dangling_slots_do_not_refuse_a_table() {
    let rows = record(1).to_fields(GroundEffectLayout::Classic1121);
    let raw7 = raw(GroundEffectLayout::Classic1121, &rows, 1);
    let known: HashSet<u32> = [11].into();
    assert!(matches!(
        detect_layout(&raw7, Some(&known)),
        Err(EffectError::Implausible { .. })
    ));
    assert_eq!(
        choose_layout(&raw7, Some(&known)).ok(),
        Some(GroundEffectLayout::Classic1121)
    );
    assert!(matches!(
        choose_layout(&raw7, Some(&[99].into())),
        Err(EffectError::Implausible { .. })
    ));
    let mut dense = rows.clone();
    dense[5] = 5000;
    assert!(choose_layout(
        &raw(GroundEffectLayout::Classic1121, &dense, 1),
        Some(&known)
    )
    .is_err());
    // 11 fields: read as 3.3.5a, slots 11, 12 (12 dangling); read as
    // 0.5.3, slots are the weights 3, 1, 0, 0 (3 and 1 dangling).
    let rows = record(1).to_fields(GroundEffectLayout::Wotlk335);
    let raw11 = raw(GroundEffectLayout::Wotlk335, &rows, 1);
    assert_eq!(
        choose_layout(&raw11, Some(&known)).ok(),
        Some(GroundEffectLayout::Wotlk335)
    );
    // Tied: ambiguous.
    let tie: HashSet<u32> = [11, 3].into();
    assert!(matches!(
        choose_layout(&raw11, Some(&tie)),
        Err(EffectError::Ambiguous { .. })
    ));
    // The whole table: the dangling slot is reported.
    let doodads = vec![GroundEffectDoodad {
        id: 11,
        model: "A.mdl".into(),
        flags: 0,
    }];
    let fx = GroundEffects::from_raw(&raw7, doodads).expect("loads");
    assert_eq!(fx.dangling_doodads(), vec![(1, 12)]);
}

#[test]
fn resolve_maps_slots_to_models_and_picks_by_weight() {
    let doodads = vec![
        GroundEffectDoodad {
            id: 11,
            model: "ElwGra01.mdl".into(),
            flags: 0,
        },
        GroundEffectDoodad {
            id: 12,
            model: "ElwFlo01.mdl".into(),
            flags: 0,
        },
    ];
    let rows: Vec<u32> = record(7).to_fields(GroundEffectLayout::Wotlk335);
    let fx =
        GroundEffects::from_raw(&raw(GroundEffectLayout::Wotlk335, &rows, 1), doodads).expect("ok");
    let models = [
        "World\\NoDXT\\Detail\\ElwFlo01.m2",
        "World\\NoDXT\\Detail\\ElwGra01.m2",
    ];
    let resolved = fx.resolve(&models).expect("resolved");
    let e = resolved.get(7).expect("effect 7");
    assert_eq!(e.slots, [Some(1), Some(0), None, None]);
    assert_eq!(e.total_weight(), 4);
    let picks: Vec<_> = (0..4).map(|r| e.pick_weighted(r)).collect();
    assert_eq!(picks, [Some(1), Some(1), Some(1), Some(0)]);
    assert!(matches!(
        fx.resolve(&models[..1]),
        Err(EffectError::UnknownModel { doodad: 11, .. })
    ));
}
