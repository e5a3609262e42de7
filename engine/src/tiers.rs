//! Technique tiers: the names the CLI accepts for each subsystem, the `--tiers`
//! list syntax, and the capabilities each tier needs from the device.
//!
//! Tier names are part of the CLI contract (documented in `docs/`); `Display` and
//! `FromStr` round-trip them exactly.

use std::fmt;
use std::str::FromStr;

use crate::caps::Capability;

/// How grass ("ground-effect doodads") is rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GrassTier {
    /// No grass at all.
    Off,
    /// The "before" path: per-frame CPU culling and instance upload.
    LegacyCpu,
    /// The baseline: immutable per-model instance buffers, one draw per batch.
    StaticBatch,
    /// Compute patch culling writing indirect args, multi-draw-indirect.
    GpuCull,
    /// Camera-centred slot grid driven by a grass-control texture.
    CameraGrid,
}

/// How terrain is rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TerrainTier {
    /// No terrain at all.
    Off,
    /// The baseline: one vertex buffer per MCNK, CPU culling, one draw per chunk.
    StaticChunks,
    /// One instanced template, heights fetched from the height atlas.
    AtlasInstanced,
    /// Compute culling of MCNKs plus multi-draw-indirect of the template.
    GpuCull,
    /// Nested camera-centred geometry clipmap rings.
    Clipmap,
}

impl GrassTier {
    /// Every grass tier, in order from least to most GPU-driven.
    pub const ALL: [GrassTier; 5] = [
        GrassTier::Off,
        GrassTier::LegacyCpu,
        GrassTier::StaticBatch,
        GrassTier::GpuCull,
        GrassTier::CameraGrid,
    ];

    /// The CLI name of this tier.
    pub fn name(self) -> &'static str {
        match self {
            GrassTier::Off => "off",
            GrassTier::LegacyCpu => "legacy-cpu",
            GrassTier::StaticBatch => "static-batch",
            GrassTier::GpuCull => "gpu-cull",
            GrassTier::CameraGrid => "camera-grid",
        }
    }

    /// Device capabilities this tier cannot run without.
    pub fn required_capabilities(self) -> &'static [Capability] {
        match self {
            GrassTier::Off | GrassTier::LegacyCpu | GrassTier::StaticBatch => &[],
            GrassTier::GpuCull => &[
                Capability::Compute,
                Capability::MultiDrawIndirect,
                Capability::IndirectFirstInstance,
                Capability::VertexStorage,
                Capability::R32FloatTexture,
            ],
            GrassTier::CameraGrid => &[Capability::VertexStorage, Capability::R32FloatTexture],
        }
    }

    /// The tier to try next when this one cannot run (`None` for tiers that
    /// always run). Falls back towards the static-batch baseline.
    pub fn fallback(self) -> Option<GrassTier> {
        match self {
            GrassTier::Off | GrassTier::LegacyCpu | GrassTier::StaticBatch => None,
            GrassTier::GpuCull => Some(GrassTier::StaticBatch),
            GrassTier::CameraGrid => Some(GrassTier::GpuCull),
        }
    }
}

impl TerrainTier {
    /// Every terrain tier, in order from least to most GPU-driven.
    pub const ALL: [TerrainTier; 5] = [
        TerrainTier::Off,
        TerrainTier::StaticChunks,
        TerrainTier::AtlasInstanced,
        TerrainTier::GpuCull,
        TerrainTier::Clipmap,
    ];

    /// The CLI name of this tier.
    pub fn name(self) -> &'static str {
        match self {
            TerrainTier::Off => "off",
            TerrainTier::StaticChunks => "static-chunks",
            TerrainTier::AtlasInstanced => "atlas-instanced",
            TerrainTier::GpuCull => "gpu-cull",
            TerrainTier::Clipmap => "clipmap",
        }
    }

    /// Device capabilities this tier cannot run without.
    pub fn required_capabilities(self) -> &'static [Capability] {
        match self {
            TerrainTier::Off | TerrainTier::StaticChunks => &[],
            TerrainTier::AtlasInstanced => &[Capability::R32FloatTexture],
            TerrainTier::GpuCull => &[
                Capability::Compute,
                Capability::MultiDrawIndirect,
                Capability::IndirectFirstInstance,
                Capability::VertexStorage,
                Capability::R32FloatTexture,
            ],
            TerrainTier::Clipmap => &[Capability::R32FloatTexture, Capability::VertexStorage],
        }
    }

    /// The tier to try next when this one cannot run (`None` for tiers that
    /// always run). Falls back towards the static-chunks baseline.
    pub fn fallback(self) -> Option<TerrainTier> {
        match self {
            TerrainTier::Off | TerrainTier::StaticChunks => None,
            TerrainTier::AtlasInstanced => Some(TerrainTier::StaticChunks),
            TerrainTier::GpuCull => Some(TerrainTier::AtlasInstanced),
            TerrainTier::Clipmap => Some(TerrainTier::GpuCull),
        }
    }
}

/// A tier name or `--tiers` list that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TierParseError {
    /// Unknown grass tier name.
    #[error("unknown grass tier `{given}`; valid grass tiers: {}", names(&GrassTier::ALL.map(GrassTier::name)))]
    UnknownGrass {
        /// The name that was given.
        given: String,
    },
    /// Unknown terrain tier name.
    #[error("unknown terrain tier `{given}`; valid terrain tiers: {}", names(&TerrainTier::ALL.map(TerrainTier::name)))]
    UnknownTerrain {
        /// The name that was given.
        given: String,
    },
    /// A combination with more than one `+`, or an empty one.
    #[error("bad tier combination `{given}`: expected GRASS or GRASS+TERRAIN (e.g. `gpu-cull` or `static-batch+clipmap`)")]
    BadCombo {
        /// The combination that was given.
        given: String,
    },
}

fn names(list: &[&str]) -> String {
    list.join(", ")
}

impl fmt::Display for GrassTier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for TerrainTier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for GrassTier {
    type Err = TierParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        GrassTier::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| TierParseError::UnknownGrass {
                given: s.to_owned(),
            })
    }
}

impl FromStr for TerrainTier {
    type Err = TierParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        TerrainTier::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| TierParseError::UnknownTerrain {
                given: s.to_owned(),
            })
    }
}

/// Tiers serialise as their CLI names (`"gpu-cull"`), as in report JSON.
macro_rules! serde_by_name {
    ($t:ty) => {
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let name = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
                name.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

serde_by_name!(GrassTier);
serde_by_name!(TerrainTier);

/// One grass tier and one terrain tier rendered together.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct TierCombo {
    /// Grass technique.
    pub grass: GrassTier,
    /// Terrain technique.
    pub terrain: TerrainTier,
}

impl TierCombo {
    /// The baseline every comparison is measured against:
    /// `static-batch+static-chunks`.
    pub const BASELINE: TierCombo = TierCombo {
        grass: GrassTier::StaticBatch,
        terrain: TerrainTier::StaticChunks,
    };

    /// A combination of the two tiers.
    pub fn new(grass: GrassTier, terrain: TerrainTier) -> Self {
        TierCombo { grass, terrain }
    }

    /// Whether this is the static-batch + static-chunks baseline.
    pub fn is_baseline(self) -> bool {
        self == Self::BASELINE
    }

    /// Parses a comma-separated `--tiers` list (`gpu-cull,static-batch+clipmap`).
    /// Empty items are ignored; duplicates are kept once, in first-seen order.
    pub fn parse_list(list: &str) -> Result<Vec<TierCombo>, TierParseError> {
        let mut out: Vec<TierCombo> = Vec::new();
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let combo: TierCombo = item.parse()?;
            if !out.contains(&combo) {
                out.push(combo);
            }
        }
        Ok(out)
    }

    /// Every combination of grass and terrain tiers, `off` excluded.
    pub fn all_on() -> Vec<TierCombo> {
        let mut out = Vec::new();
        for grass in GrassTier::ALL.into_iter().filter(|g| *g != GrassTier::Off) {
            for terrain in TerrainTier::ALL
                .into_iter()
                .filter(|t| *t != TerrainTier::Off)
            {
                out.push(TierCombo { grass, terrain });
            }
        }
        out
    }
}

impl fmt::Display for TierCombo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{}", self.grass, self.terrain)
    }
}

impl FromStr for TierCombo {
    type Err = TierParseError;
    /// `GRASS` or `GRASS+TERRAIN`; without a terrain tier, `static-chunks`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let bad = || TierParseError::BadCombo {
            given: s.to_owned(),
        };
        let mut parts = s.split('+');
        let grass = parts
            .next()
            .filter(|g| !g.trim().is_empty())
            .ok_or_else(bad)?;
        let terrain = parts.next();
        if parts.next().is_some() {
            return Err(bad());
        }
        let grass: GrassTier = grass.parse()?;
        let terrain = match terrain {
            Some(t) => t.parse()?,
            None => TerrainTier::StaticChunks,
        };
        Ok(TierCombo { grass, terrain })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for g in GrassTier::ALL {
            assert_eq!(g.to_string().parse::<GrassTier>(), Ok(g));
        }
        for t in TerrainTier::ALL {
            assert_eq!(t.to_string().parse::<TerrainTier>(), Ok(t));
        }
        for c in TierCombo::all_on() {
            assert_eq!(c.to_string().parse::<TierCombo>(), Ok(c));
        }
    }

    #[test]
    fn combos_serialise_with_cli_names() {
        let c = TierCombo::new(GrassTier::CameraGrid, TerrainTier::AtlasInstanced);
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(
            json,
            r#"{"grass":"camera-grid","terrain":"atlas-instanced"}"#
        );
        assert_eq!(serde_json::from_str::<TierCombo>(&json).unwrap(), c);
        assert!(serde_json::from_str::<TierCombo>(r#"{"grass":"nope","terrain":"off"}"#).is_err());
    }

    #[test]
    fn combo_without_terrain_uses_static_chunks() {
        let c: TierCombo = "legacy-cpu".parse().unwrap();
        assert_eq!(
            c,
            TierCombo::new(GrassTier::LegacyCpu, TerrainTier::StaticChunks)
        );
        let c: TierCombo = "gpu-cull+gpu-cull".parse().unwrap();
        assert_eq!(c, TierCombo::new(GrassTier::GpuCull, TerrainTier::GpuCull));
        let c: TierCombo = "off+clipmap".parse().unwrap();
        assert_eq!(c, TierCombo::new(GrassTier::Off, TerrainTier::Clipmap));
    }

    #[test]
    fn list_parses_and_dedups() {
        let list = TierCombo::parse_list("legacy-cpu, static-batch+clipmap,,legacy-cpu").unwrap();
        assert_eq!(
            list,
            vec![
                TierCombo::new(GrassTier::LegacyCpu, TerrainTier::StaticChunks),
                TierCombo::new(GrassTier::StaticBatch, TerrainTier::Clipmap),
            ]
        );
    }

    #[test]
    fn errors_list_valid_choices() {
        let err = "grid".parse::<TierCombo>().unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("`grid`") && msg.contains("camera-grid") && msg.contains("legacy-cpu"),
            "{msg}"
        );
        let err = "gpu-cull+mesh".parse::<TierCombo>().unwrap_err();
        assert!(err.to_string().contains("clipmap"), "{err}");
        assert!(matches!(
            "a+b+c".parse::<TierCombo>(),
            Err(TierParseError::BadCombo { .. })
        ));
        assert!(matches!(
            "+clipmap".parse::<TierCombo>(),
            Err(TierParseError::BadCombo { .. })
        ));
    }

    #[test]
    fn fallbacks_end_at_a_tier_without_requirements() {
        for g in GrassTier::ALL {
            let mut t = g;
            while let Some(next) = t.fallback() {
                t = next;
            }
            assert!(
                t.required_capabilities().is_empty(),
                "{g} falls back to {t}"
            );
        }
        for g in TerrainTier::ALL {
            let mut t = g;
            while let Some(next) = t.fallback() {
                t = next;
            }
            assert!(
                t.required_capabilities().is_empty(),
                "{g} falls back to {t}"
            );
        }
    }
}
