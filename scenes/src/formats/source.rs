//! Where game files come from: a client install's MPQ archives, a tree of
//! loose files, or both ([`DataSource`]).
//!
//! A client install is a directory with a `Data` folder of `*.MPQ` archives
//! and, from 2.x on, a locale folder such as `Data/enUS`. The archives are
//! opened in the order the client opens them, and a file found in a later
//! archive overrides the same path in an earlier one:
//!
//! 1. the base archives of `Data` (1.12: `dbc.MPQ`, `model.MPQ`,
//!    `terrain.MPQ`, `texture.MPQ`, ...; 3.3.5: `common.MPQ`,
//!    `common-2.MPQ`, `expansion.MPQ`, `lichking.MPQ`, in that order);
//! 2. the locale folder's base archives (`locale-enUS.MPQ`,
//!    `speech-enUS.MPQ`, `expansion-locale-enUS.MPQ`, ...);
//! 3. the patches of `Data`: `patch.MPQ`, then `patch-2.MPQ`, `patch-3.MPQ`,
//!    ... (numbered patches in number order, lettered ones after them);
//! 4. the locale patches: `patch-enUS.MPQ`, `patch-enUS-2.MPQ`, ...
//!
//! (The wowdev wiki's "MPQ" page describes this load order.) Loose files
//! under the directory itself (`DIR/World/Maps/...`) override every archive,
//! as the client's own loose-file lookup does.
//!
//! Files are named by their archive path (`World\Maps\Azeroth\Azeroth.wdt`,
//! `/` accepted too). In archives they are looked up through each archive's
//! hash table (case-insensitive by construction of the MPQ name hash), never
//! through the archive's `(listfile)`: Storm encrypts that file and leaves the
//! last bytes of a block that is not a multiple of four in clear, which the
//! MPQ crate used here (wow-mpq 0.7) decrypts too, so listings of archives
//! written by Storm or StormLib can miss names. Loose files are matched
//! case-insensitively component by component.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::client::ClientVersion;
use super::FormatError;

/// One file read from a [`DataSource`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataFile {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Where it came from, for messages: a loose file's path, or
    /// `ARCHIVE:PATH` for a file inside an archive.
    pub name: String,
}

struct MpqArchive {
    path: PathBuf,
    inner: Mutex<wow_mpq::Archive>,
}

impl std::fmt::Debug for MpqArchive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MpqArchive")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// Runs a call into the MPQ crate, turning a panic on malformed input into an
/// error message instead of taking the process down.
fn guarded<T>(f: impl FnOnce() -> Result<T, wow_mpq::Error>) -> Result<T, String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r.map_err(|e| e.to_string()),
        Err(p) => Err(format!(
            "the MPQ reader failed: {}",
            p.downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".into())
        )),
    }
}

impl MpqArchive {
    fn open(path: &Path) -> Result<Self, FormatError> {
        let inner = guarded(|| wow_mpq::Archive::open(path)).map_err(|reason| {
            FormatError::ArchiveOpen {
                archive: path.display().to_string(),
                reason,
            }
        })?;
        Ok(Self {
            path: path.to_path_buf(),
            inner: Mutex::new(inner),
        })
    }

    /// The file at `name` (backslash path), `None` when the hash table has
    /// no entry for it.
    fn read(&self, name: &str) -> Result<Option<Vec<u8>>, FormatError> {
        let mut a = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let err = |reason: String| FormatError::ArchiveRead {
            archive: self.path.display().to_string(),
            file: name.to_owned(),
            reason,
        };
        let found = guarded(|| a.find_file(name)).map_err(err)?;
        let Some(info) = found else {
            return Ok(None);
        };
        // Deletion markers in a patch hide the file of earlier archives.
        if info.file_size == 0 && info.compressed_size == 0 {
            return Ok(Some(Vec::new()));
        }
        let bytes = guarded(|| a.read_file(name)).map_err(err)?;
        if bytes.len() as u64 != info.file_size {
            return Err(err(format!(
                "read {} bytes, the block table says {}",
                bytes.len(),
                info.file_size
            )));
        }
        Ok(Some(bytes))
    }
}

/// Game files from loose files under a directory and/or the MPQ archives of
/// a client install there. See the module documentation for the order.
#[derive(Debug)]
pub struct DataSource {
    root: PathBuf,
    archives: Vec<MpqArchive>,
    locale: Option<String>,
    /// The client version the data is read as (`--client`); `None`: the
    /// data's own evidence decides ([`super::version::client_version`]).
    client: Option<ClientVersion>,
}

/// The path with `/` turned into `\` and empty components dropped.
pub fn archive_path(rel: &str) -> String {
    rel.split(['\\', '/'])
        .filter(|c| !c.is_empty())
        .collect::<Vec<_>>()
        .join("\\")
}

fn is_mpq(p: &Path) -> bool {
    p.is_file()
        && p.extension()
            .is_some_and(|e| e.to_string_lossy().eq_ignore_ascii_case("mpq"))
}

fn mpqs_in(dir: &Path) -> Result<Vec<PathBuf>, FormatError> {
    let rd = std::fs::read_dir(dir).map_err(|source| FormatError::Io {
        file: dir.display().to_string(),
        source,
    })?;
    Ok(rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| is_mpq(p))
        .collect())
}

fn stem_lower(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// Sort key of a patch name's suffix: `""` (plain `patch`) is 1, `-N` is N,
/// anything else comes after every number, alphabetically.
fn patch_rank(suffix: &str) -> (u32, String) {
    match suffix.strip_prefix('-') {
        None if suffix.is_empty() => (1, String::new()),
        Some(n) => match n.parse::<u32>() {
            Ok(k) => (k, String::new()),
            Err(_) => (u32::MAX, n.to_owned()),
        },
        None => (u32::MAX, suffix.to_owned()),
    }
}

/// The client's archive order (lowest priority first) for the archives of
/// `data` (the `Data` folder) and, when given, of its locale folder `locale`
/// (`Data/<locale>`).
pub fn archive_order(data: &[PathBuf], locale: Option<(&str, &[PathBuf])>) -> Vec<PathBuf> {
    const BASE: [&str; 4] = ["common", "common-2", "expansion", "lichking"];
    let mut keyed: Vec<((u8, u32, String), PathBuf)> = Vec::new();
    for p in data {
        let s = stem_lower(p);
        let key = if let Some(rest) = s.strip_prefix("patch") {
            let (n, tail) = patch_rank(rest);
            (3, n, tail)
        } else if let Some(i) = BASE.iter().position(|b| *b == s) {
            (1, i as u32, String::new())
        } else {
            (0, 0, s)
        };
        keyed.push((key, p.clone()));
    }
    if let Some((loc, files)) = locale {
        let loc = loc.to_ascii_lowercase();
        let base = [
            format!("locale-{loc}"),
            format!("speech-{loc}"),
            format!("expansion-locale-{loc}"),
            format!("lichking-locale-{loc}"),
            format!("expansion-speech-{loc}"),
            format!("lichking-speech-{loc}"),
        ];
        for p in files {
            let s = stem_lower(p);
            let key = if let Some(rest) = s.strip_prefix(&format!("patch-{loc}")) {
                let (n, tail) = patch_rank(rest);
                (4, n, tail)
            } else if let Some(rest) = s.strip_prefix("patch") {
                let (n, tail) = patch_rank(rest);
                (4, n, tail)
            } else if let Some(i) = base.iter().position(|b| *b == s) {
                (2, i as u32, String::new())
            } else {
                (2, u32::MAX, s)
            };
            keyed.push((key, p.clone()));
        }
    }
    keyed.sort();
    keyed.into_iter().map(|(_, p)| p).collect()
}

/// `dir`'s child named `name`, matched case-insensitively.
fn child_ci(dir: &Path, name: &str) -> Option<PathBuf> {
    let exact = dir.join(name);
    if exact.exists() {
        return Some(exact);
    }
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .find(|e| e.file_name().to_string_lossy().eq_ignore_ascii_case(name))
        .map(|e| e.path())
}

fn is_locale_name(n: &str) -> bool {
    let b = n.as_bytes();
    b.len() == 4
        && b[..2].iter().all(u8::is_ascii_lowercase)
        && b[2..].iter().all(u8::is_ascii_uppercase)
}

impl DataSource {
    /// Opens `root`: loose files under it, plus the archives of `root/Data`
    /// (or of `root` itself when it holds `*.MPQ` files) and of one locale
    /// folder in it (`enUS` when present, else the first by name).
    pub fn open(root: &Path) -> Result<Self, FormatError> {
        if !root.is_dir() {
            return Err(FormatError::DataDir {
                dir: root.display().to_string(),
                reason: "not a directory".into(),
            });
        }
        let data_dir = child_ci(root, "Data")
            .filter(|d| d.is_dir())
            .unwrap_or_else(|| root.to_path_buf());
        let data = mpqs_in(&data_dir)?;
        let mut locales: Vec<(String, PathBuf)> = std::fs::read_dir(&data_dir)
            .map_err(|source| FormatError::Io {
                file: data_dir.display().to_string(),
                source,
            })?
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
            .filter(|(n, p)| is_locale_name(n) && mpqs_in(p).is_ok_and(|v| !v.is_empty()))
            .collect();
        locales.sort_by_key(|(n, _)| (n != "enUS", n.clone()));
        if locales.len() > 1 {
            log::warn!(
                "{}: several locale folders ({}); reading {}",
                data_dir.display(),
                locales
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                locales[0].0
            );
        }
        let locale = locales.into_iter().next();
        let loc_files = match &locale {
            Some((_, p)) => mpqs_in(p)?,
            None => Vec::new(),
        };
        let order = archive_order(
            &data,
            locale
                .as_ref()
                .map(|(n, _)| (n.as_str(), loc_files.as_slice())),
        );
        let archives = order
            .iter()
            .map(|p| MpqArchive::open(p))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            root: root.to_path_buf(),
            archives,
            locale: locale.map(|(n, _)| n),
            client: None,
        })
    }

    /// This source read as client `client`'s data whatever the data's own
    /// evidence says (the command line's `--client`); `None` leaves the
    /// version to the evidence ([`super::version::detect_client`]).
    pub fn read_as(mut self, client: Option<ClientVersion>) -> Self {
        self.client = client;
        self
    }

    /// The version given by [`Self::read_as`].
    pub fn client(&self) -> Option<ClientVersion> {
        self.client
    }

    /// The directory given.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The archives read, lowest priority first.
    pub fn archives(&self) -> Vec<&Path> {
        self.archives.iter().map(|a| a.path.as_path()).collect()
    }

    /// The locale folder whose archives are read, if any.
    pub fn locale(&self) -> Option<&str> {
        self.locale.as_deref()
    }

    /// The loose file for `rel` under the root, matched case-insensitively.
    pub fn loose_path(&self, rel: &str) -> Option<PathBuf> {
        let mut at = self.root.clone();
        for comp in rel.split(['\\', '/']).filter(|c| !c.is_empty()) {
            at = child_ci(&at, comp)?;
        }
        at.is_file().then_some(at)
    }

    /// Reads `rel`: the loose file when there is one, otherwise the file of
    /// the last archive that has it. `Ok(None)` when nothing has it; an
    /// error when the file exists but cannot be read.
    pub fn read(&self, rel: &str) -> Result<Option<DataFile>, FormatError> {
        if let Some(p) = self.loose_path(rel) {
            let bytes = std::fs::read(&p).map_err(|source| FormatError::Io {
                file: p.display().to_string(),
                source,
            })?;
            return Ok(Some(DataFile {
                bytes,
                name: p.display().to_string(),
            }));
        }
        let name = archive_path(rel);
        for a in self.archives.iter().rev() {
            if let Some(bytes) = a.read(&name)? {
                if bytes.is_empty() {
                    return Ok(None);
                }
                return Ok(Some(DataFile {
                    bytes,
                    name: format!("{}:{name}", a.path.display()),
                }));
            }
        }
        Ok(None)
    }

    /// Whether `rel` is present (without reading it).
    pub fn contains(&self, rel: &str) -> bool {
        if self.loose_path(rel).is_some() {
            return true;
        }
        let name = archive_path(rel);
        self.archives.iter().any(|a| {
            let a = a.inner.lock().unwrap_or_else(|e| e.into_inner());
            matches!(guarded(|| a.find_file(&name)), Ok(Some(_)))
        })
    }

    /// Reads `rel`, failing with an error that names it when it is absent.
    pub fn require(&self, rel: &str) -> Result<DataFile, FormatError> {
        self.read(rel)?.ok_or_else(|| self.missing(rel))
    }

    /// The error for a file that is in neither the loose files nor an archive.
    pub fn missing(&self, rel: &str) -> FormatError {
        let where_ = if self.archives.is_empty() {
            String::new()
        } else {
            format!(" (nor in any of {} archives)", self.archives.len())
        };
        FormatError::DataDir {
            dir: self.root.display().to_string(),
            reason: format!("missing file {}{where_}", archive_path(rel)),
        }
    }

    /// Archive paths named by the `(listfile)` of every archive that has a
    /// readable one (best effort: see the module documentation).
    pub fn listed_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        for a in &self.archives {
            if let Ok(Some(bytes)) = a.read("(listfile)") {
                let text = String::from_utf8_lossy(&bytes);
                out.extend(
                    text.split(['\r', '\n', ';'])
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .map(archive_path),
                );
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[PathBuf]) -> Vec<String> {
        v.iter()
            .map(|p| {
                p.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    }

    #[test]
    fn archives_are_ordered_as_the_client_opens_them() {
        let p = |n: &str| PathBuf::from(format!("Data/{n}"));
        // 1.12: base archives (no overlap between them), then numbered patches.
        let v112: Vec<PathBuf> = ["patch-2.MPQ", "terrain.MPQ", "patch.MPQ", "dbc.MPQ"]
            .map(p)
            .to_vec();
        assert_eq!(
            names(&archive_order(&v112, None)),
            ["dbc.MPQ", "terrain.MPQ", "patch.MPQ", "patch-2.MPQ"]
        );
        // 3.3.5: common, common-2, expansion, lichking, the locale's base
        // archives, Data's patches, then the locale patches.
        let data: Vec<PathBuf> = [
            "patch-3.MPQ",
            "lichking.MPQ",
            "patch.MPQ",
            "common-2.MPQ",
            "expansion.MPQ",
            "patch-2.MPQ",
            "common.MPQ",
            "patch-10.MPQ",
        ]
        .map(p)
        .to_vec();
        let loc: Vec<PathBuf> = [
            "patch-enUS-2.MPQ",
            "lichking-locale-enUS.MPQ",
            "locale-enUS.MPQ",
            "patch-enUS.MPQ",
            "expansion-locale-enUS.MPQ",
        ]
        .map(p)
        .to_vec();
        assert_eq!(
            names(&archive_order(&data, Some(("enUS", &loc)))),
            [
                "common.MPQ",
                "common-2.MPQ",
                "expansion.MPQ",
                "lichking.MPQ",
                "locale-enUS.MPQ",
                "expansion-locale-enUS.MPQ",
                "lichking-locale-enUS.MPQ",
                "patch.MPQ",
                "patch-2.MPQ",
                "patch-3.MPQ",
                "patch-10.MPQ",
                "patch-enUS.MPQ",
                "patch-enUS-2.MPQ",
            ]
        );
        assert_eq!(
            archive_path("World/Maps//A\\b.adt"),
            "World\\Maps\\A\\b.adt"
        );
    }
}
