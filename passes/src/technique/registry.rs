//! The registry: one [`TechniqueEntry`] per technique, in the order the CLI,
//! `sward tiers`, the default bench and the viewer list them (least to most
//! GPU-driven within each subsystem).

use sward_engine::Capability;

use super::params::{ParamSpec, Params};
use super::resources::ResourceSetup;
use super::subsystem::Subsystem;
use super::{BuildInputs, Technique};
use crate::error::PassError;

/// A technique's constructor: the resident world and a full parameter set in,
/// the built technique out.
pub type BuildFn = fn(&BuildInputs<'_>, &Params) -> Result<Box<dyn Technique>, PassError>;

/// How a technique is listed, checked against the device and built.
#[derive(Clone, Copy)]
pub struct TechniqueEntry {
    /// Grass or terrain.
    pub subsystem: Subsystem,
    /// The tier name (CLI, report, viewer).
    pub name: &'static str,
    /// One line: what it is.
    pub summary: &'static str,
    /// Typed parameters, in the order `sward tiers` lists them.
    pub params: &'static [ParamSpec],
    /// Device capabilities it cannot run without.
    pub requires: &'static [Capability],
    /// The tier a request for it runs when the device lacks `requires`
    /// (`None`: it needs nothing).
    pub fallback: Option<&'static str>,
    /// Builds it from the resident world with a full parameter set.
    pub build: BuildFn,
}

impl std::fmt::Debug for TechniqueEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TechniqueEntry")
            .field("subsystem", &self.subsystem)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

static REGISTRY: [TechniqueEntry; 8] = [
    crate::grass::legacy::ENTRY,
    crate::grass::static_batch::ENTRY,
    crate::grass::gpu_cull::ENTRY,
    crate::grass::camera_grid::ENTRY,
    crate::terrain::static_chunks::ENTRY,
    crate::terrain::atlas_instanced::ENTRY,
    crate::terrain::gpu_cull::ENTRY,
    crate::terrain::clipmap::ENTRY,
];

/// The setups of what techniques share, one per subsystem that shares
/// anything; the renderer runs them all before it builds a technique.
static RESOURCE_SETUPS: [ResourceSetup; 1] = [crate::grass::models::set_up_shared];

/// Every registered [`ResourceSetup`].
pub fn resource_setups() -> &'static [ResourceSetup] {
    &RESOURCE_SETUPS
}

/// Every registered technique.
pub fn registry() -> &'static [TechniqueEntry] {
    &REGISTRY
}

/// The technique `name` of `subsystem`.
pub fn entry(subsystem: Subsystem, name: &str) -> Option<&'static TechniqueEntry> {
    REGISTRY
        .iter()
        .find(|e| e.subsystem == subsystem && e.name == name)
}

/// One parameter as `sward tiers` lists it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ParamDescription {
    /// Name.
    pub name: &'static str,
    /// `int`, `float` or `choice`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Default value.
    pub default: super::ParamValue,
    /// Valid values (`1, 2, 4`, `1 to 10`, `compact, direct`).
    pub valid: String,
    /// One line.
    pub description: &'static str,
}

/// One technique as `sward tiers` lists it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TechniqueDescription {
    /// `grass` or `terrain`.
    pub subsystem: Subsystem,
    /// Tier name.
    pub name: &'static str,
    /// One line.
    pub summary: &'static str,
    /// Parameters.
    pub params: Vec<ParamDescription>,
    /// Required device capabilities.
    pub requires: &'static [Capability],
    /// What it falls back to on a device without them.
    pub fallback: Option<&'static str>,
}

/// The whole registry, ready to print.
pub fn describe() -> Vec<TechniqueDescription> {
    REGISTRY
        .iter()
        .map(|e| TechniqueDescription {
            subsystem: e.subsystem,
            name: e.name,
            summary: e.summary,
            params: e
                .params
                .iter()
                .map(|p| ParamDescription {
                    name: p.name,
                    kind: p.type_name(),
                    default: p.default_value(),
                    valid: p.valid_text(),
                    description: p.description,
                })
                .collect(),
            requires: e.requires,
            fallback: e.fallback,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::technique::{ParamKind, Tier};

    #[test]
    fn names_are_unique_per_subsystem_and_not_off() {
        for (i, a) in REGISTRY.iter().enumerate() {
            assert_ne!(a.name, "off");
            for b in &REGISTRY[i + 1..] {
                assert!(a.subsystem != b.subsystem || a.name != b.name, "{}", a.name);
            }
        }
    }

    #[test]
    fn parameters_are_well_formed() {
        for e in &REGISTRY {
            for (i, p) in e.params.iter().enumerate() {
                assert!(
                    !p.name.is_empty() && !p.description.is_empty(),
                    "{}",
                    e.name
                );
                assert!(e.params[i + 1..].iter().all(|q| q.name != p.name));
                // The default is a valid value, and every value parses back.
                let d = p.default_value();
                assert_eq!(p.parse(&d.to_string()), Ok(d), "{}:{}", e.name, p.name);
                match p.kind {
                    ParamKind::IntChoice { values, .. } => {
                        for v in values {
                            assert!(p.parse(&v.to_string()).is_ok());
                        }
                    }
                    ParamKind::Float { min, max, .. } => assert!(min < max),
                    ParamKind::Choice { values, .. } => {
                        for v in values {
                            assert!(p.parse(v).is_ok());
                        }
                    }
                }
            }
            assert_eq!(Tier::of(e).params().iter().count(), e.params.len());
        }
    }

    #[test]
    fn fallbacks_name_registered_tiers_of_the_same_subsystem() {
        for e in &REGISTRY {
            if let Some(f) = e.fallback {
                assert!(entry(e.subsystem, f).is_some(), "{} -> {f}", e.name);
            } else {
                assert!(
                    e.requires.is_empty(),
                    "{} needs capabilities but has no fallback",
                    e.name
                );
            }
        }
    }
}
