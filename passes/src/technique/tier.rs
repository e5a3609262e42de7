//! Tier names with parameters, the `--tiers` list syntax, and capping a
//! request to what the device can run.
//!
//! Syntax: a list of combinations separated by `,`; a combination is `GRASS`
//! or `GRASS+TERRAIN` (without a terrain tier, `static-chunks`); a tier is its
//! registry name or `off`, followed by `:name=value` parameters
//! (`gpu-cull:patch=1+gpu-cull`, `camera-grid:spacing=2.0:mode=compact`).
//! Parameters not given take their defaults; a tier prints back with only the
//! parameters that differ from their defaults.

use std::fmt;
use std::str::FromStr;

use sward_engine::{Capability, Caps};

use super::params::{ParamValue, Params};
use super::registry::{entry, registry, TechniqueEntry};
pub use super::subsystem::Subsystem;

/// A tier name or `--tiers` list that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TierParseError {
    /// Unknown tier name.
    #[error("unknown {subsystem} tier `{given}`; valid {subsystem} tiers: {valid}")]
    UnknownTier {
        /// Grass or terrain.
        subsystem: Subsystem,
        /// The name that was given.
        given: String,
        /// The valid names.
        valid: String,
    },
    /// A parameter the tier does not declare.
    #[error("{subsystem} tier `{tier}` has no parameter `{given}`; {valid}")]
    UnknownParam {
        /// Grass or terrain.
        subsystem: Subsystem,
        /// The tier.
        tier: String,
        /// The parameter name given.
        given: String,
        /// What the tier accepts.
        valid: String,
    },
    /// A parameter value out of range or of the wrong type.
    #[error("{subsystem} tier `{tier}`: parameter `{param}`: {reason}")]
    BadValue {
        /// Grass or terrain.
        subsystem: Subsystem,
        /// The tier.
        tier: String,
        /// The parameter.
        param: String,
        /// What is wrong, with the valid values.
        reason: String,
    },
    /// Malformed text (`a+b+c`, `+clipmap`, `gpu-cull:patch`).
    #[error("bad tier combination `{given}`: {why}")]
    BadCombo {
        /// The combination that was given.
        given: String,
        /// What is wrong.
        why: String,
    },
}

/// One technique with its full parameter set, or `off`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tier {
    subsystem: Subsystem,
    name: &'static str,
    params: Params,
}

impl Tier {
    /// The subsystem switched off.
    pub fn off(subsystem: Subsystem) -> Self {
        Tier {
            subsystem,
            name: "off",
            params: Params::default(),
        }
    }

    /// The registered technique of `entry` with default parameters.
    pub fn of(entry: &'static TechniqueEntry) -> Self {
        Tier {
            subsystem: entry.subsystem,
            name: entry.name,
            params: Params::defaults(entry.params),
        }
    }

    /// Parses `name(:param=value)*` for `subsystem`.
    pub fn parse(subsystem: Subsystem, text: &str) -> Result<Self, TierParseError> {
        let text = text.trim();
        let mut parts = text.split(':');
        let name = parts.next().unwrap_or("").trim();
        let mut tier = if name == "off" {
            Tier::off(subsystem)
        } else {
            match entry(subsystem, name) {
                Some(e) => Tier::of(e),
                None => {
                    return Err(TierParseError::UnknownTier {
                        subsystem,
                        given: name.to_owned(),
                        valid: valid_names(subsystem),
                    })
                }
            }
        };
        let specs = tier.entry().map_or(&[][..], |e| e.params);
        for part in parts {
            let Some((key, value)) = part.split_once('=') else {
                return Err(TierParseError::BadCombo {
                    given: text.to_owned(),
                    why: format!("parameter `{part}` is not NAME=VALUE"),
                });
            };
            let key = key.trim();
            let Some(spec) = specs.iter().find(|s| s.name == key) else {
                let valid = if specs.is_empty() {
                    "it takes no parameters".to_owned()
                } else {
                    format!(
                        "valid parameters: {}",
                        specs
                            .iter()
                            .map(|s| format!("{} ({})", s.name, s.valid_text()))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                return Err(TierParseError::UnknownParam {
                    subsystem,
                    tier: name.to_owned(),
                    given: key.to_owned(),
                    valid,
                });
            };
            let value = spec
                .parse(value)
                .map_err(|reason| TierParseError::BadValue {
                    subsystem,
                    tier: name.to_owned(),
                    param: key.to_owned(),
                    reason,
                })?;
            tier.params.set(spec.name, value);
        }
        Ok(tier)
    }

    /// This tier with parameter `name` set to `value` (validated like the
    /// CLI's `:name=value`).
    pub fn with_param(&self, name: &str, value: &ParamValue) -> Result<Tier, TierParseError> {
        Tier::parse(self.subsystem, &format!("{self}:{name}={value}"))
    }

    /// Grass or terrain.
    pub fn subsystem(&self) -> Subsystem {
        self.subsystem
    }

    /// The technique's registry name, or `off`.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The full parameter set (defaults included).
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Whether the subsystem is switched off.
    pub fn is_off(&self) -> bool {
        self.name == "off"
    }

    /// The registry entry (`None` for `off`).
    pub fn entry(&self) -> Option<&'static TechniqueEntry> {
        entry(self.subsystem, self.name)
    }

    /// Capabilities the tier needs (none for `off`).
    pub fn required_capabilities(&self) -> &'static [Capability] {
        self.entry().map_or(&[], |e| e.requires)
    }
}

impl fmt::Display for Tier {
    /// The name followed by the parameters that differ from their defaults.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)?;
        if let Some(e) = self.entry() {
            for spec in e.params {
                match self.params.get(spec.name) {
                    Some(v) if *v != spec.default_value() => write!(f, ":{}={v}", spec.name)?,
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

fn valid_names(subsystem: Subsystem) -> String {
    let mut names: Vec<&str> = registry()
        .iter()
        .filter(|e| e.subsystem == subsystem)
        .map(|e| e.name)
        .collect();
    names.push("off");
    names.join(", ")
}

/// One grass tier and one terrain tier rendered together.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TierCombo {
    /// Grass technique.
    pub grass: Tier,
    /// Terrain technique.
    pub terrain: Tier,
}

impl TierCombo {
    /// The baseline every comparison is measured against:
    /// `static-batch+static-chunks`.
    pub fn baseline() -> Self {
        TierCombo {
            grass: Tier::parse(Subsystem::Grass, Subsystem::Grass.baseline())
                .expect("the grass baseline is registered"),
            terrain: Tier::parse(Subsystem::Terrain, Subsystem::Terrain.baseline())
                .expect("the terrain baseline is registered"),
        }
    }

    /// Parses `GRASS` or `GRASS+TERRAIN`, each with its own parameters.
    pub fn new(grass: Tier, terrain: Tier) -> Self {
        TierCombo { grass, terrain }
    }

    /// Whether this is the static-batch + static-chunks baseline.
    pub fn is_baseline(&self) -> bool {
        *self == Self::baseline()
    }

    /// Whether both subsystems are off (nothing is drawn but the clear).
    pub fn is_empty(&self) -> bool {
        self.grass.is_off() && self.terrain.is_off()
    }

    /// The tier of `subsystem`.
    pub fn tier(&self, subsystem: Subsystem) -> &Tier {
        match subsystem {
            Subsystem::Grass => &self.grass,
            Subsystem::Terrain => &self.terrain,
        }
    }

    /// Parses a comma-separated `--tiers` list. Empty items are ignored;
    /// duplicates (same tiers, same parameters) are kept once, in
    /// first-seen order.
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
        let bad = |why: &str| TierParseError::BadCombo {
            given: s.to_owned(),
            why: why.to_owned(),
        };
        let mut parts = s.split('+');
        let grass = parts
            .next()
            .filter(|g| !g.trim().is_empty())
            .ok_or_else(|| {
                bad("expected GRASS or GRASS+TERRAIN (e.g. `gpu-cull` or `static-batch+clipmap`)")
            })?;
        let terrain = parts.next();
        if parts.next().is_some() {
            return Err(bad(
                "expected GRASS or GRASS+TERRAIN (e.g. `gpu-cull` or `static-batch+clipmap`)",
            ));
        }
        let grass = Tier::parse(Subsystem::Grass, grass)?;
        let terrain = Tier::parse(
            Subsystem::Terrain,
            terrain.unwrap_or(Subsystem::Terrain.baseline()),
        )?;
        Ok(TierCombo { grass, terrain })
    }
}

/// The best tier at or below `tier` the device can run (following each
/// entry's fallback, which starts from default parameters), and one warning
/// naming the missing capabilities when it had to fall back.
pub fn cap_tier(caps: &Caps, tier: &Tier) -> (Tier, Option<String>) {
    let missing = caps.missing(tier.required_capabilities());
    if missing.is_empty() {
        return (tier.clone(), None);
    }
    let mut t = tier.clone();
    while !caps.missing(t.required_capabilities()).is_empty() {
        match t.entry().and_then(|e| e.fallback) {
            Some(next) => {
                t = Tier::parse(t.subsystem, next).expect("fallbacks name registered tiers")
            }
            None => break,
        }
    }
    let names = missing
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(" and ");
    let warning = format!(
        "{} tier `{tier}` needs {names} which this device lacks; running `{t}` instead",
        tier.subsystem
    );
    (t, Some(warning))
}

/// Caps both tiers of `combo` (see [`cap_tier`]); one warning per capped
/// subsystem.
pub fn cap_combo(caps: &Caps, combo: &TierCombo) -> (TierCombo, Vec<String>) {
    let (grass, wg) = cap_tier(caps, &combo.grass);
    let (terrain, wt) = cap_tier(caps, &combo.terrain);
    (
        TierCombo { grass, terrain },
        wg.into_iter().chain(wt).collect(),
    )
}

/// What `sward bench` runs without `--tiers`: every grass x terrain pair the
/// device runs uncapped (default parameters), then each tier alone with the
/// other subsystem off (which isolates its cost).
pub fn default_bench_combos(caps: &Caps) -> Vec<TierCombo> {
    let runs = |e: &&'static TechniqueEntry| caps.missing(e.requires).is_empty();
    let of = |s: Subsystem| -> Vec<Tier> {
        registry()
            .iter()
            .filter(|e| e.subsystem == s)
            .filter(runs)
            .map(Tier::of)
            .collect()
    };
    let (grass, terrain) = (of(Subsystem::Grass), of(Subsystem::Terrain));
    let mut out = Vec::new();
    for g in &grass {
        for t in &terrain {
            out.push(TierCombo::new(g.clone(), t.clone()));
        }
    }
    for g in &grass {
        out.push(TierCombo::new(g.clone(), Tier::off(Subsystem::Terrain)));
    }
    for t in &terrain {
        out.push(TierCombo::new(Tier::off(Subsystem::Grass), t.clone()));
    }
    out
}

/// Which tiers of each subsystem run on a device with `caps` (what
/// `sward info` lists): `(grass, terrain)`, in registry order.
pub fn tier_support(
    caps: &Caps,
) -> (
    Vec<sward_engine::info::TierSupport>,
    Vec<sward_engine::info::TierSupport>,
) {
    let of = |s: Subsystem| {
        registry()
            .iter()
            .filter(|e| e.subsystem == s)
            .map(|e| {
                let tier = Tier::of(e);
                let missing = caps.missing(e.requires);
                sward_engine::info::TierSupport {
                    tier: e.name.to_owned(),
                    supported: missing.is_empty(),
                    missing,
                    capped_to: cap_tier(caps, &tier).0.to_string(),
                }
            })
            .collect()
    };
    (of(Subsystem::Grass), of(Subsystem::Terrain))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn combo(s: &str) -> TierCombo {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn names_round_trip_with_and_without_parameters() {
        for e in registry() {
            let t = Tier::of(e);
            assert_eq!(Tier::parse(e.subsystem, &t.to_string()), Ok(t.clone()));
        }
        for s in [
            "gpu-cull:patch=1+gpu-cull",
            "camera-grid:spacing=2:mode=direct+static-chunks",
            "off+clipmap",
            "static-batch+off",
        ] {
            assert_eq!(combo(s).to_string(), s);
        }
        // Defaults are not printed; the full set is still there.
        let c = combo("gpu-cull:patch=2");
        assert_eq!(c.to_string(), "gpu-cull+static-chunks");
        assert!(c.grass.params().get("patch").is_some());
        let p1 = c.grass.with_param("patch", &ParamValue::Int(1)).unwrap();
        assert_eq!(p1.to_string(), "gpu-cull:patch=1");
        assert!(c.grass.with_param("patch", &ParamValue::Int(3)).is_err());
    }

    #[test]
    fn a_combination_without_terrain_uses_static_chunks() {
        assert_eq!(combo("legacy-cpu").terrain.name(), "static-chunks");
        assert_eq!(combo("gpu-cull+gpu-cull").terrain.name(), "gpu-cull");
        assert!(combo("off+off").is_empty());
        assert!(combo("static-batch").is_baseline());
        assert!(!combo("gpu-cull").is_baseline());
    }

    #[test]
    fn lists_keep_each_distinct_parameter_set_once() {
        let list = TierCombo::parse_list(
            "gpu-cull:patch=1,gpu-cull:patch=2,gpu-cull:patch=4,,gpu-cull:patch=1",
        )
        .unwrap();
        let names: Vec<String> = list.iter().map(ToString::to_string).collect();
        assert_eq!(
            names,
            [
                "gpu-cull:patch=1+static-chunks",
                "gpu-cull+static-chunks",
                "gpu-cull:patch=4+static-chunks"
            ]
        );
    }

    #[test]
    fn errors_name_the_valid_choices() {
        let msg = "grid".parse::<TierCombo>().unwrap_err().to_string();
        assert!(
            msg.contains("`grid`") && msg.contains("camera-grid") && msg.contains("legacy-cpu"),
            "{msg}"
        );
        let msg = "gpu-cull+mesh"
            .parse::<TierCombo>()
            .unwrap_err()
            .to_string();
        assert!(msg.contains("clipmap"), "{msg}");
        let msg = "gpu-cull:patch=3"
            .parse::<TierCombo>()
            .unwrap_err()
            .to_string();
        assert!(msg.contains("patch") && msg.contains("1, 2, 4"), "{msg}");
        let msg = "gpu-cull:nope=1"
            .parse::<TierCombo>()
            .unwrap_err()
            .to_string();
        assert!(msg.contains("`nope`") && msg.contains("patch"), "{msg}");
        let msg = "static-batch:patch=1"
            .parse::<TierCombo>()
            .unwrap_err()
            .to_string();
        assert!(msg.contains("no parameters"), "{msg}");
        for bad in ["a+b+c", "+clipmap", "gpu-cull:patch"] {
            assert!(
                matches!(
                    bad.parse::<TierCombo>(),
                    Err(TierParseError::BadCombo { .. })
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn fallbacks_end_at_a_tier_without_requirements() {
        for e in registry() {
            let mut t = Tier::of(e);
            while let Some(next) = t.entry().and_then(|e| e.fallback) {
                t = Tier::parse(e.subsystem, next).unwrap();
            }
            assert!(
                t.required_capabilities().is_empty(),
                "{} falls back to {t}",
                e.name
            );
        }
    }

    fn caps_without(missing: &[Capability]) -> Caps {
        let mut caps = Caps::everything();
        caps.present.retain(|c| !missing.contains(c));
        caps
    }

    #[test]
    fn capping_walks_fallbacks_and_warns_once_per_subsystem() {
        let caps = caps_without(&[Capability::Compute]);
        let (got, warnings) = cap_combo(&caps, &combo("camera-grid:spacing=3+gpu-cull"));
        assert_eq!(got.grass.to_string(), "camera-grid:spacing=3");
        assert_eq!(got.terrain.to_string(), "atlas-instanced");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("`compute`") && warnings[0].contains("atlas-instanced"));
        let caps = caps_without(&[Capability::VertexStorage, Capability::R32FloatTexture]);
        let (got, warnings) = cap_combo(&caps, &combo("camera-grid+clipmap"));
        assert!(got.is_baseline(), "{got}");
        assert_eq!(warnings.len(), 2);
        let all = Caps::everything();
        let (got, warnings) = cap_combo(&all, &combo("gpu-cull:patch=4+clipmap"));
        assert_eq!(got, combo("gpu-cull:patch=4+clipmap"));
        assert!(warnings.is_empty());
    }

    #[test]
    fn missing_first_instance_caps_both_gpu_cull_tiers_but_not_camera_grid() {
        let caps = caps_without(&[Capability::IndirectFirstInstance]);
        let (got, warnings) = cap_combo(&caps, &combo("gpu-cull+gpu-cull"));
        assert_eq!(got, combo("static-batch+atlas-instanced"));
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings
            .iter()
            .all(|w| w.contains("indirect-first-instance")));
        let (got, warnings) = cap_combo(&caps, &combo("camera-grid"));
        assert_eq!(got.grass.name(), "camera-grid");
        assert!(warnings.is_empty());
        let (grass, terrain) = tier_support(&caps);
        let gpu_cull = grass.iter().find(|t| t.tier == "gpu-cull").unwrap();
        assert!(!gpu_cull.supported && gpu_cull.capped_to == "static-batch");
        assert!(terrain.iter().any(|t| t.tier == "clipmap" && t.supported));
    }

    #[test]
    fn the_default_bench_covers_every_pair_and_each_tier_alone() {
        let all = default_bench_combos(&Caps::everything());
        let grass = registry()
            .iter()
            .filter(|e| e.subsystem == Subsystem::Grass)
            .count();
        let terrain = registry().len() - grass;
        assert_eq!(all.len(), grass * terrain + grass + terrain);
        assert!(all.iter().any(TierCombo::is_baseline));
        assert!(!all.iter().any(TierCombo::is_empty));
        let none = default_bench_combos(&caps_without(&Capability::ALL));
        assert!(none
            .iter()
            .all(|c| c.grass.required_capabilities().is_empty()
                && c.terrain.required_capabilities().is_empty()));
    }
}
