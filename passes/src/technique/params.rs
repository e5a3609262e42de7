//! Typed tier parameters: what a technique declares ([`ParamSpec`]) and what a
//! run uses ([`Params`], always the full set, defaults included).
//!
//! Values parse from the `--tiers` syntax (`gpu-cull:patch=1`), print back the
//! same way, and serialise into the report as JSON numbers or strings.

use std::collections::BTreeMap;
use std::fmt;

/// The type and the valid values of one parameter.
#[derive(Debug, Clone, Copy)]
pub enum ParamKind {
    /// One of a fixed set of integers.
    IntChoice {
        /// Valid values, ascending.
        values: &'static [i64],
        /// The default (one of `values`).
        default: i64,
    },
    /// A number in `[min, max]`.
    Float {
        /// Smallest valid value.
        min: f64,
        /// Largest valid value.
        max: f64,
        /// The default.
        default: f64,
    },
    /// One of a fixed set of names.
    Choice {
        /// Valid names.
        values: &'static [&'static str],
        /// The default (one of `values`).
        default: &'static str,
    },
}

/// One parameter a technique accepts.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    /// Name in `--tiers` (`patch`), kebab-case.
    pub name: &'static str,
    /// Type, range and default.
    pub kind: ParamKind,
    /// One line for `sward tiers` and the viewer's tooltip.
    pub description: &'static str,
}

impl ParamSpec {
    /// The default value.
    pub fn default_value(&self) -> ParamValue {
        match self.kind {
            ParamKind::IntChoice { default, .. } => ParamValue::Int(default),
            ParamKind::Float { default, .. } => ParamValue::Float(default),
            ParamKind::Choice { default, .. } => ParamValue::Text(default.to_owned()),
        }
    }

    /// `int`, `float` or `choice`.
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            ParamKind::IntChoice { .. } => "int",
            ParamKind::Float { .. } => "float",
            ParamKind::Choice { .. } => "choice",
        }
    }

    /// The valid values as text: `1, 2, 4`, `1 to 10`, `compact, direct`.
    pub fn valid_text(&self) -> String {
        match self.kind {
            ParamKind::IntChoice { values, .. } => values
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            ParamKind::Float { min, max, .. } => format!("{min} to {max}"),
            ParamKind::Choice { values, .. } => values.join(", "),
        }
    }

    /// Parses and range-checks `raw`; the error says what is valid.
    pub fn parse(&self, raw: &str) -> Result<ParamValue, String> {
        let raw = raw.trim();
        let bad = || format!("`{raw}` is not valid (valid: {})", self.valid_text());
        match self.kind {
            ParamKind::IntChoice { values, .. } => {
                let v: i64 = raw.parse().map_err(|_| bad())?;
                values
                    .contains(&v)
                    .then_some(ParamValue::Int(v))
                    .ok_or_else(bad)
            }
            ParamKind::Float { min, max, .. } => {
                let v: f64 = raw.parse().map_err(|_| bad())?;
                (v.is_finite() && v >= min && v <= max)
                    .then_some(ParamValue::Float(v))
                    .ok_or_else(bad)
            }
            ParamKind::Choice { values, .. } => values
                .iter()
                .find(|v| v.eq_ignore_ascii_case(raw))
                .map(|v| ParamValue::Text((*v).to_owned()))
                .ok_or_else(bad),
        }
    }
}

/// One parameter's value.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    /// An integer.
    Int(i64),
    /// A number.
    Float(f64),
    /// A name.
    Text(String),
}

impl ParamValue {
    fn rank(&self) -> u8 {
        match self {
            ParamValue::Int(_) => 0,
            ParamValue::Float(_) => 1,
            ParamValue::Text(_) => 2,
        }
    }
}

// Floats compare by their total order so that parameter sets can key maps
// (every value comes out of `ParamSpec::parse`, which refuses NaN).
impl PartialEq for ParamValue {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}
impl Eq for ParamValue {}
impl PartialOrd for ParamValue {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for ParamValue {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        match (self, other) {
            (ParamValue::Int(a), ParamValue::Int(b)) => a.cmp(b),
            (ParamValue::Float(a), ParamValue::Float(b)) => a.total_cmp(b),
            (ParamValue::Text(a), ParamValue::Text(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}
impl std::hash::Hash for ParamValue {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        match self {
            ParamValue::Int(v) => (0u8, *v).hash(state),
            ParamValue::Float(v) => (1u8, v.to_bits()).hash(state),
            ParamValue::Text(v) => (2u8, v).hash(state),
        }
    }
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Int(v) => write!(f, "{v}"),
            ParamValue::Float(v) => write!(f, "{v}"),
            ParamValue::Text(v) => f.write_str(v),
        }
    }
}

/// The full parameter set of one tier (every declared parameter, defaults
/// included), by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Params(BTreeMap<&'static str, ParamValue>);

impl Params {
    /// Every parameter of `specs` at its default.
    pub fn defaults(specs: &[ParamSpec]) -> Self {
        Params(specs.iter().map(|s| (s.name, s.default_value())).collect())
    }

    /// Sets `name` (which must be one of the declared names).
    pub(crate) fn set(&mut self, name: &'static str, value: ParamValue) {
        self.0.insert(name, value);
    }

    /// The value of `name`, if declared.
    pub fn get(&self, name: &str) -> Option<&ParamValue> {
        self.0.get(name)
    }

    /// An integer parameter (its default when the set lacks it).
    pub fn int(&self, spec: &ParamSpec) -> i64 {
        match (self.get(spec.name), spec.default_value()) {
            (Some(ParamValue::Int(v)), _) => *v,
            (None, ParamValue::Int(v)) => v,
            _ => unreachable_kind(spec),
        }
    }

    /// A float parameter (its default when the set lacks it).
    pub fn float(&self, spec: &ParamSpec) -> f64 {
        match (self.get(spec.name), spec.default_value()) {
            (Some(ParamValue::Float(v)), _) => *v,
            (None, ParamValue::Float(v)) => v,
            _ => unreachable_kind(spec),
        }
    }

    /// A choice parameter (its default when the set lacks it).
    pub fn text<'p>(&'p self, spec: &ParamSpec) -> &'p str {
        match (self.get(spec.name), spec.kind) {
            (Some(ParamValue::Text(v)), _) => v,
            (None, ParamKind::Choice { default, .. }) => default,
            _ => unreachable_kind(spec),
        }
    }

    /// `(name, value)` pairs in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &ParamValue)> {
        self.0.iter().map(|(k, v)| (*k, v))
    }

    /// Whether no parameter is declared.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The set as a JSON-ready map (name -> number or string).
    pub fn to_map(&self) -> BTreeMap<String, ParamValue> {
        self.0
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }
}

/// A parameter read with the wrong accessor is a bug in the technique that
/// declared it (the spec fixes the type), caught by the registry tests.
#[track_caller]
fn unreachable_kind(spec: &ParamSpec) -> ! {
    panic!(
        "parameter `{}` is declared as {} and read as another type",
        spec.name,
        spec.type_name()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: ParamSpec = ParamSpec {
        name: "patch",
        kind: ParamKind::IntChoice {
            values: &[1, 2, 4],
            default: 2,
        },
        description: "",
    };
    const SPACING: ParamSpec = ParamSpec {
        name: "spacing",
        kind: ParamKind::Float {
            min: 1.0,
            max: 10.0,
            default: 2.5,
        },
        description: "",
    };
    const MODE: ParamSpec = ParamSpec {
        name: "mode",
        kind: ParamKind::Choice {
            values: &["compact", "direct"],
            default: "compact",
        },
        description: "",
    };

    #[test]
    fn values_parse_within_their_range_only() {
        assert_eq!(PATCH.parse("4"), Ok(ParamValue::Int(4)));
        let e = PATCH.parse("3").unwrap_err();
        assert!(e.contains("`3`") && e.contains("1, 2, 4"), "{e}");
        assert!(PATCH.parse("two").is_err());
        assert_eq!(SPACING.parse("2.0"), Ok(ParamValue::Float(2.0)));
        assert!(SPACING.parse("0.5").unwrap_err().contains("1 to 10"));
        assert!(SPACING.parse("NaN").is_err());
        assert_eq!(MODE.parse("Direct"), Ok(ParamValue::Text("direct".into())));
        assert!(MODE.parse("fast").unwrap_err().contains("compact, direct"));
    }

    #[test]
    fn a_full_set_reads_back_typed_values() {
        let mut p = Params::defaults(&[PATCH, SPACING, MODE]);
        assert_eq!(p.int(&PATCH), 2);
        assert_eq!(p.float(&SPACING), 2.5);
        assert_eq!(p.text(&MODE), "compact");
        p.set("patch", PATCH.parse("1").unwrap());
        assert_eq!(p.int(&PATCH), 1);
        let json = serde_json::to_string(&p.to_map()).unwrap();
        assert_eq!(json, r#"{"mode":"compact","patch":1,"spacing":2.5}"#);
        assert_ne!(p, Params::defaults(&[PATCH, SPACING, MODE]));
    }
}
