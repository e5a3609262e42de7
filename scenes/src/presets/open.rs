//! One way from a command's options to its scene and view: every command
//! (`bench`, `shot`, `capture`, `run`, `soak`, `scale`, `inspect
//! placements`) names a preset and hands its [`DataOptions`] here, so they
//! accept the same presets, data options and named views, and fail with the
//! same messages.
//!
//! [`open_preset`] finds the preset with the options' density setting;
//! [`Preset::scene`] builds its world or loads the data's; [`Scene::pick_view`]
//! resolves a named view (a data scene has the preset's views placed around
//! its centre tile plus `grass` and `grass-aerial`, see [`super::grass_views`]).

use std::path::PathBuf;

use super::{grass_views, Preset, PresetError, Scene, ViewPose};
use crate::formats::{DataOptions, FormatError};

/// Why a command's scene or view could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// No preset of that name, or `--density` does not apply to it.
    #[error("{0}")]
    Usage(String),
    /// The preset's world could not be built.
    #[error("preset `{preset}`: {source}")]
    Preset {
        /// The preset name.
        preset: String,
        /// Why.
        source: PresetError,
    },
    /// The `--data` directory could not be loaded.
    #[error("--data {dir}: {source}")]
    Data {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: FormatError,
    },
    /// The scene has no view of that name.
    #[error("preset `{scene}` has no view `{view}`; views: {views}")]
    NoView {
        /// The scene's name (the preset's, or the data's map).
        scene: String,
        /// The view asked for.
        view: String,
        /// The views it has, comma-separated.
        views: String,
    },
}

/// The preset `name` with `opts.density` applied (an error naming the
/// preset where the density does not apply to its placement).
pub fn open_preset(name: &str, opts: &DataOptions) -> Result<Preset, SceneError> {
    Preset::by_name(name)
        .map_err(|e| SceneError::Usage(e.to_string()))?
        .with_density_opt(opts.density)
        .map_err(|e| SceneError::Usage(format!("--density: preset `{name}`: {e}")))
}

impl Preset {
    /// The scene a command draws: this preset's generated world, or with
    /// `opts.dir` the data's world chosen, read and placed as `opts` says
    /// ([`Self::load_data_with`]).
    pub fn scene(&self, opts: &DataOptions) -> Result<Scene, SceneError> {
        match &opts.dir {
            None => self.build().map_err(|source| SceneError::Preset {
                preset: self.name.to_owned(),
                source,
            }),
            Some(dir) => self
                .load_data_with(opts)
                .map_err(|source| SceneError::Data {
                    dir: dir.clone(),
                    source,
                }),
        }
    }

    /// The world of the data `opts` names (a client install or a data
    /// directory: `opts.dir`, its map and tile `opts.selection`, read as
    /// `opts.client`, missing models as `opts.placeholders` says), placed
    /// with this preset's policy, with this preset's named views and walk
    /// path placed around the loaded window's centre tile, plus the data's
    /// grass views.
    pub fn load_data_with(&self, opts: &DataOptions) -> Result<Scene, FormatError> {
        let src = opts.open_source()?.ok_or_else(|| FormatError::DataDir {
            dir: String::new(),
            reason: "no --data directory given".into(),
        })?;
        let mut scene = crate::formats::load_scene_with(src.into(), opts, self.policy)?;
        let (mut views, path) = self.views_around(scene.world(), scene.window.centre());
        views.extend(grass_views(&scene));
        scene.views = views;
        scene.path = path;
        Ok(scene)
    }
}

impl Scene {
    /// The named view `name`, or without one the scene's first view.
    pub fn pick_view(&self, name: Option<&str>) -> Result<&ViewPose, SceneError> {
        match name {
            None => self.views.first(),
            Some(n) => self.view(n),
        }
        .ok_or_else(|| SceneError::NoView {
            scene: self.name.clone(),
            view: name.unwrap_or("(any)").to_owned(),
            views: self
                .views
                .iter()
                .map(|v| v.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
    }

    /// The view a viewer opens at: `name` when given; otherwise a data
    /// scene's `grass` view (where its centre tile's grass grows most) when
    /// it has one, else the first view.
    pub fn start_view(&self, name: Option<&str>, data: bool) -> Result<&ViewPose, SceneError> {
        match (name, data) {
            (None, true) => self.view("grass").map_or_else(|| self.pick_view(None), Ok),
            _ => self.pick_view(name),
        }
    }
}
