//! Reading a budget file: every table and key checked, every mistake an
//! error naming where it is and what is valid.

use std::path::Path;

use sward_passes::technique::TierCombo;
use sward_scenes::presets::Preset;
use toml::{Table, Value};

use super::{At, Bound, Budget, BudgetError, Expr, RunName};
use crate::figures::Figure;
use crate::report::TierPair;

/// The settings table.
const SETTINGS: &str = "budget";
/// Keys of the settings table.
const SETTING_KEYS: [&str; 5] = ["driver", "size", "frames", "warmup", "msaa"];
/// Keys of a bound.
const BOUND_KEYS: [&str; 3] = ["max", "min", "vs"];

/// A TOML value as an error message shows it.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => format!("the string {s:?}"),
        Value::Integer(n) => n.to_string(),
        Value::Float(x) => x.to_string(),
        Value::Boolean(b) => b.to_string(),
        other => format!("a {}", other.type_str()),
    }
}

/// Collects the errors of one file with their place.
struct Reader<'p> {
    path: &'p Path,
}

impl Reader<'_> {
    fn err(&self, at: impl Into<String>, message: impl Into<String>) -> BudgetError {
        BudgetError::Invalid {
            path: self.path.to_owned(),
            at: at.into(),
            message: message.into(),
        }
    }

    fn settings(&self, t: &Table) -> Result<(String, [u32; 2], u32, u32, u32), BudgetError> {
        let at = |k: &str| format!("[{SETTINGS}].{k}");
        if let Some(k) = t.keys().find(|k| !SETTING_KEYS.contains(&k.as_str())) {
            return Err(self.err(
                at(k),
                format!("unknown setting; valid: {}", SETTING_KEYS.join(", ")),
            ));
        }
        let text = |k: &str| -> Result<String, BudgetError> {
            match t.get(k) {
                Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_owned()),
                Some(v) => Err(self.err(
                    at(k),
                    format!("expected a non-empty string, found {}", shown(v)),
                )),
                None => Err(self.err(at(k), "missing")),
            }
        };
        let count = |k: &str, default: Option<u32>| -> Result<u32, BudgetError> {
            match (t.get(k), default) {
                (Some(Value::Integer(n)), _) => {
                    u32::try_from(*n).map_err(|_| self.err(at(k), format!("{n} is out of range")))
                }
                (Some(v), _) => Err(self.err(
                    at(k),
                    format!("expected a whole number, found {}", shown(v)),
                )),
                (None, Some(d)) => Ok(d),
                (None, None) => Err(self.err(at(k), "missing")),
            }
        };
        let driver = text("driver")?;
        let size_text = text("size")?;
        let (w, h) = sward_engine::targets::parse_size(&size_text)
            .map_err(|e| self.err(at("size"), e.to_string()))?;
        let frames = count("frames", None)?;
        if frames == 0 {
            return Err(self.err(at("frames"), "at least 1 measured frame"));
        }
        let warmup = count("warmup", Some(2))?;
        let msaa = count("msaa", Some(4))?;
        if msaa != 1 && msaa != 4 {
            return Err(self.err(at("msaa"), format!("{msaa}: use 1 or 4")));
        }
        Ok((driver, [w, h], frames, warmup, msaa))
    }

    /// `PRESET/WHERE/TIERS`, or with `within` a bare `TIERS` of that run's
    /// preset and place.
    fn run_name(
        &self,
        at: &str,
        text: &str,
        within: Option<&RunName>,
    ) -> Result<RunName, BudgetError> {
        let parts: Vec<&str> = text.split('/').map(str::trim).collect();
        let (preset, place, tiers) = match (parts.as_slice(), within) {
            ([p, w, t], _) => (*p, *w, *t),
            ([t], Some(run)) => return Ok(RunName { tier: self.tiers(at, t)?, ..run.clone() }),
            _ => {
                return Err(self.err(
                    at,
                    format!("`{text}` is not a run name: PRESET/WHERE/TIERS (WHERE: default, a view name or path:NAME), e.g. elwynn-dense/default/gpu-cull+gpu-cull{}", if within.is_some() { ", or TIERS of the same preset and place" } else { "" }),
                ))
            }
        };
        Preset::by_name(preset).map_err(|e| self.err(at, e.to_string()))?;
        let place = match place {
            "" => {
                return Err(self.err(
                    at,
                    format!("`{text}`: WHERE is empty (default, a view name or path:NAME)"),
                ))
            }
            "default" => At::Default,
            w => match w.strip_prefix("path:") {
                Some("") => return Err(self.err(at, format!("`{text}`: path: names no path"))),
                Some(p) => At::Path(p.to_owned()),
                None => At::View(w.to_owned()),
            },
        };
        Ok(RunName {
            preset: preset.to_owned(),
            at: place,
            tier: self.tiers(at, tiers)?,
        })
    }

    fn tiers(&self, at: &str, text: &str) -> Result<TierPair, BudgetError> {
        let combo: TierCombo = text
            .parse()
            .map_err(|e| self.err(at, format!("tiers `{text}`: {e}")))?;
        if combo.is_empty() {
            return Err(self.err(
                at,
                format!("tiers `{text}` draw nothing (both subsystems off)"),
            ));
        }
        Ok(TierPair::of(&combo))
    }

    fn expr(&self, at: &str, key: &str) -> Result<Expr, BudgetError> {
        let figure = |s: &str| Figure::parse(s).map_err(|e| self.err(at, e.to_string()));
        match key.split_once('/') {
            None => Ok(Expr {
                figure: figure(key)?,
                per: None,
            }),
            Some((a, b)) => Ok(Expr {
                figure: figure(a)?,
                per: Some(figure(b)?),
            }),
        }
    }

    fn bound(&self, run: &RunName, key: &str, v: &Value) -> Result<Bound, BudgetError> {
        let at = format!("[\"{run}\"].\"{key}\"");
        let Value::Table(t) = v else {
            return Err(self.err(
                &at,
                format!(
                    "expected a table such as {{ max = 100 }}, found {}",
                    shown(v)
                ),
            ));
        };
        if let Some(k) = t.keys().find(|k| !BOUND_KEYS.contains(&k.as_str())) {
            return Err(self.err(
                &at,
                format!("unknown key `{k}`; valid: {}", BOUND_KEYS.join(", ")),
            ));
        }
        let number = |k: &str| -> Result<Option<f64>, BudgetError> {
            match t.get(k) {
                None => Ok(None),
                Some(Value::Integer(n)) => Ok(Some(*n as f64)),
                Some(Value::Float(x)) if x.is_finite() => Ok(Some(*x)),
                Some(v) => {
                    Err(self.err(&at, format!("{k}: expected a number, found {}", shown(v))))
                }
            }
        };
        let (min, max) = (number("min")?, number("max")?);
        if min.is_none() && max.is_none() {
            return Err(self.err(&at, "no bound: give max, min or both"));
        }
        if let (Some(lo), Some(hi)) = (min, max) {
            if lo > hi {
                return Err(self.err(&at, format!("min {lo} is above max {hi}")));
            }
        }
        let vs = match t.get("vs") {
            None => None,
            Some(Value::String(s)) => Some(self.run_name(&format!("{at}.vs"), s, Some(run))?),
            Some(v) => Err(self.err(&at, format!("vs: expected a run name, found {}", shown(v))))?,
        };
        Ok(Bound {
            run: run.clone(),
            expr: self.expr(&at, key)?,
            vs,
            min,
            max,
        })
    }
}

/// Parses the budget file `path` holding `text`.
pub fn parse_budget(path: &Path, text: &str) -> Result<Budget, BudgetError> {
    let table: Table = text
        .parse()
        .map_err(|e: toml::de::Error| BudgetError::Toml {
            path: path.to_owned(),
            message: e.to_string().trim().to_owned(),
        })?;
    let r = Reader { path };
    let settings = match table.get(SETTINGS) {
        Some(Value::Table(t)) => t,
        Some(v) => {
            return Err(r.err(
                format!("[{SETTINGS}]"),
                format!("expected a table, found {}", shown(v)),
            ))
        }
        None => {
            return Err(r.err(
                format!("[{SETTINGS}]"),
                format!(
                    "missing: the table of {} that the bounds hold for",
                    SETTING_KEYS.join(", ")
                ),
            ))
        }
    };
    let (driver, size, frames, warmup, msaa) = r.settings(settings)?;
    let mut bounds = Vec::new();
    for (name, v) in table.iter().filter(|(k, _)| *k != SETTINGS) {
        let at = format!("[\"{name}\"]");
        let run = r.run_name(&at, name, None)?;
        let Value::Table(t) = v else {
            return Err(r.err(
                &at,
                format!("expected a table of bounds, found {}", shown(v)),
            ));
        };
        if t.is_empty() {
            return Err(r.err(&at, "no bounds"));
        }
        for (key, v) in t {
            bounds.push(r.bound(&run, key, v)?);
        }
    }
    if bounds.is_empty() {
        return Err(r.err("the file", "no run tables: nothing to check"));
    }
    Ok(Budget {
        path: path.to_owned(),
        driver,
        size,
        frames,
        warmup,
        msaa,
        bounds,
    })
}
