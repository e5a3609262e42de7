//! [`DataOptions`] are values: two scenes built in one process with
//! different options each get their own behaviour (the world selection,
//! the client version, placeholders and the density setting), and nothing
//! one load chooses leaks into the next.

use crate::formats::{export_data_dir, ClientVersion, DataOptions, WorldSelection};
use crate::presets::{open_preset, Preset};

use super::temp_dir;

#[test]
fn two_scenes_with_different_options_in_one_process_each_get_theirs() {
    let built = Preset::by_name("seams-holes")
        .expect("preset")
        .build()
        .expect("scene");
    let whole = built.world();
    let dir = temp_dir("options");
    export_data_dir(&dir, whole, &built.effects, &built.models, None).expect("export");
    // Without one of the models, so placeholders on and off differ.
    let gone = crate::formats::data_dir::archive_to_path(&dir, &built.models[0].path);
    std::fs::remove_file(&gone).expect("remove a model");

    let tiles = whole.tiles();
    let (first, last) = (tiles[0].coord, tiles[tiles.len() - 1].coord);
    let a = DataOptions {
        selection: WorldSelection {
            tile: Some(first),
            ..WorldSelection::default()
        },
        ..DataOptions::for_dir(&dir)
    };
    let b = DataOptions {
        selection: WorldSelection {
            tile: Some(last),
            ..WorldSelection::default()
        },
        client: Some(ClientVersion::Classic112),
        placeholders: false,
        density: Some(48),
        ..DataOptions::for_dir(&dir)
    };
    let sa = open_preset("elwynn-client", &a)
        .and_then(|p| p.scene(&a))
        .expect("scene a");
    let sb = open_preset("elwynn-client", &b)
        .and_then(|p| p.scene(&b))
        .expect("scene b");
    // Selection: each window centres where its options say.
    assert_eq!(sa.window.centre(), first);
    assert_eq!(sb.window.centre(), last);
    // Client version: read as given, or left to the data's evidence.
    assert_eq!(sb.client.as_deref(), Some("1.12 (--client)"));
    assert_ne!(
        sa.client.as_deref(),
        Some("1.12 (--client)"),
        "{:?}",
        sa.client
    );
    // Placeholders: drawn in one, skipped in the other.
    assert_eq!(sa.missing_models.len(), 1);
    assert_eq!(sb.missing_models.len(), 1);
    assert!(sa.missing_models[0].placeholder.is_some());
    assert_eq!(sb.missing_models[0].placeholder, None);
    assert_eq!(sa.models.len(), sb.models.len() + 1);
    // Density: the client default in one, 48 in the other.
    assert_eq!(sa.policy().density(), Some(16));
    assert_eq!(sb.policy().density(), Some(48));
    // And again in the first order: nothing the second load chose stayed.
    let again = open_preset("elwynn-client", &a)
        .and_then(|p| p.scene(&a))
        .expect("scene a again");
    assert_eq!(again.window.centre(), first);
    assert_eq!(again.client, sa.client);
    assert!(again.missing_models[0].placeholder.is_some());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_named_view_resolves_the_same_for_every_command_and_a_data_scene_opens_at_grass() {
    let scene = Preset::by_name("seams-holes")
        .expect("preset")
        .build()
        .expect("scene");
    let dir = temp_dir("views");
    export_data_dir(&dir, scene.world(), &scene.effects, &scene.models, None).expect("export");
    let opts = DataOptions::for_dir(&dir);
    let data = open_preset("elwynn-client", &opts)
        .and_then(|p| p.scene(&opts))
        .expect("data scene");
    // A data scene has the preset's views plus its grass views.
    for name in ["ground-yaw0", "aerial", "grass", "grass-aerial"] {
        assert_eq!(data.pick_view(Some(name)).expect(name).name, name);
    }
    let e = data.pick_view(Some("nowhere")).expect_err("no such view");
    assert!(e.to_string().contains("views: "), "{e}");
    assert!(e.to_string().contains("grass-aerial"), "{e}");
    // Without a name: the first view; the viewer opens a data scene at `grass`.
    assert_eq!(
        data.pick_view(None).expect("first").name,
        data.views[0].name
    );
    assert_eq!(data.start_view(None, true).expect("grass").name, "grass");
    assert_eq!(
        data.start_view(Some("aerial"), true).expect("named").name,
        "aerial"
    );
    assert_eq!(
        scene.start_view(None, false).expect("first").name,
        scene.views[0].name
    );
    let _ = std::fs::remove_dir_all(&dir);
}
