//! Game file formats: writers and hardened readers for the files a world is
//! made of, so a preset can be exported as client-style data and loaded back
//! through the same path a user with extracted client files would use.
//!
//! * [`adt`]: ADT v18 tiles (MVER, MHDR, MCIN, MTEX, MCNK with MCVT, MCNR,
//!   MCLY, MCAL), plus the [`inspect`] report of `sward inspect adt`.
//! * [`wdt`]: the WDT (MVER, MPHD, MAIN, MWMO).
//! * [`wdl`]: the WDL (MVER, MAOF, MARE, MAHO): low-resolution far heights.
//! * [`dbc`]: WDBC tables, GroundEffectTexture (three layouts) and
//!   GroundEffectDoodad.
//! * [`m2`]: classic (pre-WotLK, embedded views) M2 detail models.
//! * [`blp`]: BLP2 textures (uncompressed BGRA written; BGRA and palettized read).
//! * [`source`]: a client install's MPQ archives (in the client's patch
//!   order) and/or loose files, read by archive path.
//! * [`data_dir`]: a whole directory laid out like the client archives.
//! * [`data_scene`]: a streamed [`crate::presets::Scene`] from such a directory.
//! * [`version`]: which client (1.12 or 3.3.5) wrote the data; [`client`]
//!   names the versions.
//! * [`options`]: [`DataOptions`], the command line's data options as one
//!   value handed down to scene loading and the renderer.
//!
//! Every reader checks each offset, size and count against the file before
//! using it and reports a [`FormatError`] naming the file, the chunk and the
//! byte offset. Nothing panics on bad input and no partially read world is
//! returned. `docs/formats.md` documents the layouts.

mod adt_alpha;
pub(crate) mod bytes;

pub mod adt;
pub mod blp;
pub mod client;
pub mod data_dir;
pub mod data_scene;
pub mod dbc;
pub mod inspect;
pub mod inspect_files;
pub mod m2;
pub mod maps;
pub mod mpq_export;
pub mod options;
pub mod paths;
pub mod source;
pub mod version;
pub mod wdl;
pub mod wdt;

#[cfg(test)]
mod tests;

pub use adt::{read_adt, write_adt};
pub use data_dir::{
    export_data_dir, load_data_dir, load_map, load_map_from, DataSet, ExportSummary, MissingModel,
};
pub use data_scene::{
    load_scene, load_scene_from, load_scene_with, policy_for_data, DataDirSource,
};
pub use inspect::{inspect_adt, AdtReport};
pub use maps::{list_maps, MapInfo, WorldSelection};
pub use mpq_export::export_mpq;
pub use options::{DataOptions, TextureUpload};
pub use source::{DataFile, DataSource};
pub use version::{client_version, detect_client, ClientDetection, ClientVersion};

use crate::effects::EffectError;
use crate::models::ModelError;
use crate::world::WorldError;

/// Errors of the file formats. Each names the file it concerns.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// The bytes break the format at a known place.
    #[error("{file}: {chunk} at offset {offset:#x}: {reason}")]
    Malformed {
        /// File name.
        file: String,
        /// Chunk (or structure) being read.
        chunk: String,
        /// Byte offset in the file.
        offset: usize,
        /// What is wrong.
        reason: String,
    },
    /// A valid file uses a variant sward does not read.
    #[error("{file}: unsupported {what}")]
    Unsupported {
        /// File name.
        file: String,
        /// What is unsupported.
        what: String,
    },
    /// Reading or writing failed.
    #[error("{file}: {source}")]
    Io {
        /// File path.
        file: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A ground-effect table is inconsistent (layout, ids).
    #[error("{file}: {source}")]
    Effects {
        /// File name.
        file: String,
        /// The table error.
        #[source]
        source: EffectError,
    },
    /// Parsed terrain breaks a world-model invariant.
    #[error("{file}: {source}")]
    World {
        /// File name.
        file: String,
        /// The world error.
        #[source]
        source: WorldError,
    },
    /// A parsed model breaks a model invariant.
    #[error("{file}: {source}")]
    Model {
        /// File name.
        file: String,
        /// The model error.
        #[source]
        source: ModelError,
    },
    /// A data directory is missing something or is inconsistent.
    #[error("{dir}: {reason}")]
    DataDir {
        /// The directory.
        dir: String,
        /// What is wrong.
        reason: String,
    },
    /// A query on a parsed file has no answer (e.g. a point off the tile).
    #[error("{file}: {reason}")]
    Query {
        /// File name.
        file: String,
        /// Why there is no answer.
        reason: String,
    },
    /// An MPQ archive cannot be opened.
    #[error("{archive}: cannot open MPQ archive: {reason}")]
    ArchiveOpen {
        /// The archive file.
        archive: String,
        /// Why.
        reason: String,
    },
    /// A file inside an MPQ archive cannot be read.
    #[error("{archive}: cannot read {file}: {reason}")]
    ArchiveRead {
        /// The archive file.
        archive: String,
        /// The path inside the archive.
        file: String,
        /// Why.
        reason: String,
    },
    /// In-memory data cannot be represented in the file format.
    #[error("cannot write {what}: {reason}")]
    Unwritable {
        /// What was being written.
        what: String,
        /// Why it cannot be.
        reason: String,
    },
}
