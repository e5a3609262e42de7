//! The client versions sward reads the data of ([`ClientVersion`]), as
//! `--client` names them. Which one wrote some data is decided in
//! [`super::version`]; this file is the name alone, so the data source can
//! carry a version it is read as without reaching into the detection.

use crate::effects::GroundEffectLayout;

/// A client version sward reads the data of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum ClientVersion {
    /// The 0.5.3 alpha client (only when asked for: its 11-field
    /// GroundEffectTexture has the shape of 3.3.5a's).
    #[serde(rename = "0.5.3")]
    Alpha053,
    /// 1.12.x (vanilla).
    #[serde(rename = "1.12")]
    Classic112,
    /// 3.3.5a (Wrath of the Lich King).
    #[serde(rename = "3.3.5")]
    Wotlk335,
}

impl ClientVersion {
    /// Every version, in release order.
    pub const ALL: [Self; 3] = [Self::Alpha053, Self::Classic112, Self::Wotlk335];

    /// The version as `--client` takes it (`0.5.3`, `1.12`, `3.3.5`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Alpha053 => "0.5.3",
            Self::Classic112 => "1.12",
            Self::Wotlk335 => "3.3.5",
        }
    }

    /// Parses `--client`: `0.5.3`, `1.12` (or `1.12.1`) or `3.3.5` (or
    /// `3.3.5a`).
    pub fn parse(s: &str) -> Result<Self, String> {
        match s.trim() {
            "0.5.3" => Ok(Self::Alpha053),
            "1.12" | "1.12.1" => Ok(Self::Classic112),
            "3.3.5" | "3.3.5a" => Ok(Self::Wotlk335),
            other => Err(format!(
                "unknown client version {other:?} (expected 1.12 or 3.3.5; 0.5.3 for the alpha's tables)"
            )),
        }
    }

    /// This version's GroundEffectTexture layout.
    pub fn ground_effect_layout(self) -> GroundEffectLayout {
        match self {
            Self::Alpha053 => GroundEffectLayout::Legacy053,
            Self::Classic112 => GroundEffectLayout::Classic1121,
            Self::Wotlk335 => GroundEffectLayout::Wotlk335,
        }
    }
}

impl std::fmt::Display for ClientVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
