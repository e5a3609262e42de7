//! Which client wrote the data: 1.12 or 3.3.5, decided from the data itself
//! ([`detect_client`]) or given on the command line (`--client`, carried by
//! the [`DataSource`] as [`DataSource::read_as`]). The version picks the GroundEffectTexture
//! layout where the table's shape alone does not (3.3.5a and 0.5.3 both
//! have 11 fields; the 0.5.3 layout is read only when asked for).
//!
//! Evidence, strongest first:
//!
//! * `DBFilesClient\Map.dbc`'s field count: 42 in 1.12, 66 in 3.3.5 (wowdev
//!   wiki "Map.dbc").
//! * The archives' names: 3.3.5 installs have `common.MPQ`, `common-2.MPQ`,
//!   `expansion.MPQ` and `lichking.MPQ`; 1.12 installs have `dbc.MPQ`,
//!   `terrain.MPQ`, `model.MPQ`, `texture.MPQ` (and no `common.MPQ`).
//! * GroundEffectTexture's shape: 7 fields only in 1.12; GroundEffectDoodad
//!   with an internal-id column (3 fields, the path third) only in 1.x.
//!
//! The first of these that the data has decides; the others are listed as
//! evidence, and one that disagrees is named in the reason (tables from
//! another build are common in patched and repacked installs).

pub use super::client::ClientVersion;
use super::paths::{DOODAD_DBC, MAP_DBC, TEXTURE_DBC};
use super::source::DataSource;
use super::{dbc, FormatError};

/// The client version of some data and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ClientDetection {
    /// The version (`None`: nothing in the data tells).
    pub version: Option<ClientVersion>,
    /// Where it came from: `--client`, or the data's evidence.
    pub reason: String,
}

impl std::fmt::Display for ClientDetection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.version {
            Some(v) => write!(f, "{v} ({})", self.reason),
            None => write!(f, "unknown ({})", self.reason),
        }
    }
}

/// The version of `src`'s data: the one it is read as
/// ([`DataSource::read_as`], the command line's `--client`) when given,
/// otherwise [`detect_client`].
pub fn client_version(src: &DataSource) -> Result<ClientDetection, FormatError> {
    if let Some(v) = src.client() {
        return Ok(ClientDetection {
            version: Some(v),
            reason: "--client".into(),
        });
    }
    detect_client(src)
}

/// One piece of evidence: the version it points to and what it is.
fn evidence(src: &DataSource) -> Result<Vec<(ClientVersion, String)>, FormatError> {
    let mut out = Vec::new();
    // A table that does not parse is no evidence (its reader reports it).
    let fields = |rel: &str| -> Result<Option<(u32, dbc::DbcTable)>, FormatError> {
        Ok(src
            .read(rel)?
            .and_then(|f| dbc::read_dbc(&f.bytes, &f.name).ok())
            .map(|t| (t.field_count, t)))
    };
    if let Some((n, _)) = fields(MAP_DBC)? {
        match n {
            42 => out.push((ClientVersion::Classic112, "Map.dbc has 42 fields".into())),
            66 => out.push((ClientVersion::Wotlk335, "Map.dbc has 66 fields".into())),
            _ => {}
        }
    }
    let names: Vec<String> = src
        .archives()
        .iter()
        .filter_map(|p| p.file_name())
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .collect();
    let has = |n: &str| names.iter().any(|a| a == n);
    if has("lichking.mpq") || has("common-2.mpq") {
        out.push((
            ClientVersion::Wotlk335,
            "archives lichking.MPQ / common-2.MPQ".into(),
        ));
    } else if !has("common.mpq") && (has("dbc.mpq") || has("terrain.mpq")) {
        out.push((
            ClientVersion::Classic112,
            "archives dbc.MPQ / terrain.MPQ".into(),
        ));
    }
    if let Some((7, _)) = fields(TEXTURE_DBC)? {
        out.push((
            ClientVersion::Classic112,
            "GroundEffectTexture has 7 fields".into(),
        ));
    }
    if let Some((3, t)) = fields(DOODAD_DBC)? {
        let column_is_path = |f: usize| {
            t.record_count > 0
                && (0..t.record_count as usize)
                    .all(|i| dbc::looks_like_model(t.string(t.field(i, f))))
        };
        if column_is_path(2) && !column_is_path(1) {
            out.push((
                ClientVersion::Classic112,
                "GroundEffectDoodad has an internal-id column".into(),
            ));
        }
    }
    Ok(out)
}

/// Decides the client version from `src`'s data (see the module doc).
pub fn detect_client(src: &DataSource) -> Result<ClientDetection, FormatError> {
    let ev = evidence(src)?;
    let Some(&(version, ref first)) = ev.first() else {
        return Ok(ClientDetection {
            version: None,
            reason: "no Map.dbc of 42 or 66 fields, no client archives, no version-specific table"
                .into(),
        });
    };
    let mut reason = first.clone();
    let others: Vec<&str> = ev[1..]
        .iter()
        .filter(|(v, _)| *v != version)
        .map(|(_, what)| what.as_str())
        .collect();
    if !others.is_empty() {
        reason.push_str(&format!(
            "; but {} (tables of another build?)",
            others.join(", ")
        ));
    }
    Ok(ClientDetection {
        version: Some(version),
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::GroundEffectLayout;

    /// A WDBC table of `fields` u32 fields with one zero record.
    fn table(fields: u32) -> Vec<u8> {
        let mut b = b"WDBC".to_vec();
        for v in [1, fields, fields * 4, 1] {
            b.extend(u32::to_le_bytes(v));
        }
        b.extend(vec![0u8; fields as usize * 4 + 1]);
        b
    }

    fn folder(name: &str, files: &[(&str, Vec<u8>)]) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("sward-version-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        for (rel, bytes) in files {
            let p = d.join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("dir");
            std::fs::write(p, bytes).expect("write");
        }
        std::fs::create_dir_all(&d).expect("dir");
        d
    }

    #[test]
    fn the_version_comes_from_the_data_and_names_its_evidence() {
        let map = "DBFilesClient/Map.dbc";
        let d = folder("335", &[(map, table(66))]);
        let c = detect_client(&DataSource::open(&d).expect("open")).expect("detect");
        assert_eq!(c.version, Some(ClientVersion::Wotlk335));
        assert_eq!(c.to_string(), "3.3.5 (Map.dbc has 66 fields)");
        // Map.dbc decides; a 7-field GroundEffectTexture disagrees and is
        // named.
        let d = folder("mixed", &[(map, table(66)), (TEXTURE_DBC, table(7))]);
        let c = detect_client(&DataSource::open(&d).expect("open")).expect("detect");
        assert_eq!(c.version, Some(ClientVersion::Wotlk335));
        assert!(c.reason.contains("GroundEffectTexture has 7 fields"), "{c}");
        let d = folder("112", &[(map, table(42))]);
        let c = detect_client(&DataSource::open(&d).expect("open")).expect("detect");
        assert_eq!(c.version, Some(ClientVersion::Classic112));
        // sward's own exports (a 5-field Map.dbc) say nothing.
        let d = folder("none", &[(map, table(5))]);
        let c = detect_client(&DataSource::open(&d).expect("open")).expect("detect");
        assert_eq!(c.version, None);
        assert_eq!(
            ClientVersion::ALL.map(|v| ClientVersion::parse(v.name())),
            ClientVersion::ALL.map(Ok)
        );
        assert_eq!(ClientVersion::parse("3.3.5a"), Ok(ClientVersion::Wotlk335));
        assert!(ClientVersion::parse("2.4.3").is_err());
        assert_eq!(
            ClientVersion::Wotlk335.ground_effect_layout(),
            GroundEffectLayout::Wotlk335
        );
    }

    /// A scene of 3.3.5 data placed with the client policy runs the 3.3.5
    /// routine (with the 1.12 routine's pick count); 1.12 data and sward's
    /// own exports keep the 1.12 routine; other policies are kept.
    #[test]
    fn the_client_policy_on_335_data_is_the_335_routine() {
        use crate::formats::policy_for_data;
        use crate::placement::{Client335Params, ClientParams, PerCellParams, Policy};
        let map = "DBFilesClient/Map.dbc";
        let src = |name: &str, fields| {
            DataSource::open(&folder(name, &[(map, table(fields))])).expect("open")
        };
        let client = Policy::Client(ClientParams { frill_density: 48 });
        let p = policy_for_data(&src("policy-335", 66), client).expect("policy");
        assert_eq!(
            p,
            Policy::Client335(Client335Params {
                ground_effect_density: 48
            })
        );
        assert_eq!(p.name(), "client-3.3.5");
        for (name, fields) in [("policy-112", 42), ("policy-none", 5)] {
            assert_eq!(
                policy_for_data(&src(name, fields), client).expect("p"),
                client
            );
        }
        let per_cell = Policy::PerCell(PerCellParams::default());
        let p = policy_for_data(&src("policy-335-pc", 66), per_cell).expect("policy");
        assert_eq!(p, per_cell);
        assert_eq!(
            crate::presets::GrassRange::for_policy(&Policy::Client335(Default::default())),
            crate::presets::GrassRange {
                fade_start: 59.5,
                distance: 70.0
            }
        );
    }
}
