//! The options that choose and shape a scene, as one value
//! ([`DataOptions`]): where the world comes from (`--data`), which map and
//! tile of it (`--map`, `--at`, `--tile`), which client it is read as
//! (`--client`), whether missing models are drawn as placeholders
//! (`--placeholders`), the client routines' density setting (`--density`)
//! and how DXT textures reach the GPU (`--texture-upload`).
//!
//! The command line builds one and hands it down: to
//! [`crate::presets::Preset::scene`] (scene loading), and its
//! [`DataOptions::texture_upload`] to the renderer. Nothing here is global:
//! two scenes built with different options in one process each get their
//! own behaviour.

use std::path::PathBuf;

use super::client::ClientVersion;
use super::maps::WorldSelection;
use super::source::DataSource;
use super::FormatError;

/// How textures stored as BC blocks (DXT BLPs: detail and tileset
/// textures) reach the GPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TextureUpload {
    /// As BC blocks where the device has `texture-compression-bc` and the
    /// texture allows it; decoded to RGBA8 on the CPU otherwise.
    #[default]
    Auto,
    /// Always decoded to RGBA8 on the CPU.
    ForceDecode,
}

impl TextureUpload {
    /// Every choice, in CLI order.
    pub const ALL: [TextureUpload; 2] = [TextureUpload::Auto, TextureUpload::ForceDecode];

    /// The CLI spelling: `auto` or `decode`.
    pub fn name(self) -> &'static str {
        match self {
            TextureUpload::Auto => "auto",
            TextureUpload::ForceDecode => "decode",
        }
    }

    /// Parses [`Self::name`].
    pub fn parse(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| format!("texture upload `{s}`: expected `auto` or `decode`"))
    }
}

impl std::fmt::Display for TextureUpload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Everything that chooses a scene's world and how it is read, built once
/// from the command line and passed down (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct DataOptions {
    /// Game data to load the world from (`--data`); `None`: the preset's
    /// generated world.
    pub dir: Option<PathBuf>,
    /// Which map of the data and where the window centres (`--map`,
    /// `--at`, `--tile`).
    pub selection: WorldSelection,
    /// The client version the data is read as (`--client`); `None`: the
    /// data's evidence decides.
    pub client: Option<ClientVersion>,
    /// Draw a detail model the data lacks as a placeholder (`true`, the
    /// default) or skip its doodads (`--placeholders off`).
    pub placeholders: bool,
    /// The client routines' density setting (`--density`); `None` keeps
    /// the preset's.
    pub density: Option<u32>,
    /// How DXT detail and tileset textures reach the GPU
    /// (`--texture-upload`; the renderer takes it).
    pub texture_upload: TextureUpload,
}

impl Default for DataOptions {
    fn default() -> Self {
        DataOptions {
            dir: None,
            selection: WorldSelection::default(),
            client: None,
            placeholders: true,
            density: None,
            texture_upload: TextureUpload::Auto,
        }
    }
}

impl DataOptions {
    /// The options for data at `dir`, every other option at its default.
    pub fn for_dir(dir: impl Into<PathBuf>) -> Self {
        DataOptions {
            dir: Some(dir.into()),
            ..DataOptions::default()
        }
    }

    /// Opens [`Self::dir`] read as [`Self::client`]; `None` without a
    /// directory.
    pub fn open_source(&self) -> Result<Option<DataSource>, FormatError> {
        self.dir
            .as_deref()
            .map(|dir| Ok(DataSource::open(dir)?.read_as(self.client)))
            .transpose()
    }
}
