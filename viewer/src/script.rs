//! Scripted actions for unattended runs (`sward run --script ...`): the smoke
//! test and figure runs drive the viewer with a list of `ACTION@FRAME` items,
//! e.g. `tier=legacy-cpu@10,capture=/tmp/x.puffin@20,screenshot=/tmp/x.png@30`.
//!
//! | action | effect |
//! |---|---|
//! | `tier=COMBO` | switch tiers (`GRASS` or `GRASS+TERRAIN`, the `--tiers` syntax) |
//! | `grass=TIER`, `terrain=TIER` | switch one subsystem |
//! | `view=NAME` or `view=N` | jump to a named view (N counts from 1, like the number keys) |
//! | `capture=FILE` | save the puffin frames recorded so far as a `.puffin` file |
//! | `screenshot=FILE` | write the scene image of that frame as PNG |
//! | `panel=on\|off`, `profiler=on\|off`, `walk=on\|off` | show/hide the panel, the flamegraph; ground walk |
//! | `msaa=1\|4`, `vsync=on\|off` | render settings |
//! | `pin` | pin the current combination as A for the A/B comparison |
//! | `advance=UNITS` | move the camera this far along its heading (on `continent` the world streams around it) |
//! | `density=N` | the client routines' density setting (16..=256; rebuilds the placements; a `per-cell` scene refuses it) |
//! | `stats` | restart the statistics printed at exit |

use std::path::PathBuf;

use sward_passes::technique::{Subsystem, Tier, TierCombo};

use crate::error::ViewerError;

/// One scripted action.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Switch to a tier combination.
    Tiers(TierCombo),
    /// Switch the grass tier only (with its parameters).
    Grass(Tier),
    /// Switch the terrain tier only (with its parameters).
    Terrain(Tier),
    /// Jump to a view by name.
    ViewName(String),
    /// Jump to a view by 1-based index.
    ViewIndex(usize),
    /// Save a puffin capture.
    Capture(PathBuf),
    /// Save a screenshot of the scene.
    Screenshot(PathBuf),
    /// Show or hide the egui panel.
    Panel(bool),
    /// Show or hide the flamegraph window.
    Profiler(bool),
    /// Ground-walk mode on or off.
    Walk(bool),
    /// MSAA sample count.
    Msaa(u32),
    /// Vsync on or off.
    Vsync(bool),
    /// Pin the current configuration as A.
    Pin,
    /// Move the camera this many world units along its heading.
    Advance(f32),
    /// Restart the exit statistics.
    ResetStats,
    /// Set the client routines' density setting.
    Density(u32),
}

/// An action and the frame it runs on.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Frame number (0 = the first frame drawn).
    pub frame: u64,
    /// What to do.
    pub action: Action,
}

/// A parsed script: steps in frame order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Script {
    steps: Vec<Step>,
}

fn on_off(item: &str, value: &str) -> Result<bool, ViewerError> {
    match value {
        "on" | "true" | "1" => Ok(true),
        "off" | "false" | "0" => Ok(false),
        _ => Err(ViewerError::Usage(format!(
            "--script item `{item}`: expected on or off, got `{value}`"
        ))),
    }
}

fn parse_action(item: &str, body: &str) -> Result<Action, ViewerError> {
    let usage = |msg: String| ViewerError::Usage(format!("--script item `{item}`: {msg}"));
    let (key, value) = match body.split_once('=') {
        Some((k, v)) => (k.trim(), Some(v.trim())),
        None => (body.trim(), None),
    };
    let need = || value.ok_or_else(|| usage(format!("`{key}` needs a value (`{key}=...`)")));
    Ok(match key {
        "tier" | "tiers" => Action::Tiers(need()?.parse().map_err(|e| usage(format!("{e}")))?),
        "grass" => Action::Grass(
            Tier::parse(Subsystem::Grass, need()?).map_err(|e| usage(format!("{e}")))?,
        ),
        "terrain" => Action::Terrain(
            Tier::parse(Subsystem::Terrain, need()?).map_err(|e| usage(format!("{e}")))?,
        ),
        "view" => {
            let v = need()?;
            match v.parse::<usize>() {
                Ok(0) => return Err(usage("view numbers start at 1".into())),
                Ok(n) => Action::ViewIndex(n),
                Err(_) => Action::ViewName(v.to_owned()),
            }
        }
        "capture" => Action::Capture(PathBuf::from(need()?)),
        "screenshot" => Action::Screenshot(PathBuf::from(need()?)),
        "panel" => Action::Panel(on_off(item, need()?)?),
        "profiler" => Action::Profiler(on_off(item, need()?)?),
        "walk" => Action::Walk(on_off(item, need()?)?),
        "vsync" => Action::Vsync(on_off(item, need()?)?),
        "msaa" => match need()? {
            "1" => Action::Msaa(1),
            "4" => Action::Msaa(4),
            other => return Err(usage(format!("MSAA must be 1 or 4, got `{other}`"))),
        },
        "pin" => Action::Pin,
        "advance" => {
            let v = need()?;
            match v.parse::<f32>() {
                Ok(d) if d.is_finite() => Action::Advance(d),
                _ => return Err(usage(format!("`{v}` is not a distance"))),
            }
        }
        "stats" => Action::ResetStats,
        "density" => {
            let v = need()?;
            match v.parse::<u32>() {
                Ok(d) if sward_scenes::placement::DENSITY_RANGE.contains(&d) => Action::Density(d),
                _ => {
                    return Err(usage(format!(
                        "`{v}` is not a density (picks per MCNK, {}..={})",
                        sward_scenes::placement::DENSITY_RANGE.start(),
                        sward_scenes::placement::DENSITY_RANGE.end()
                    )))
                }
            }
        }
        other => {
            return Err(usage(format!(
                "unknown action `{other}` (tier, grass, terrain, view, capture, screenshot, \
                 panel, profiler, walk, msaa, vsync, pin, advance, stats, density)"
            )))
        }
    })
}

impl Script {
    /// Parses `ACTION@FRAME,ACTION@FRAME,...` (spaces around items are ignored).
    pub fn parse(text: &str) -> Result<Self, ViewerError> {
        let mut steps = Vec::new();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (body, frame) = item.rsplit_once('@').ok_or_else(|| {
                ViewerError::Usage(format!(
                    "--script item `{item}`: expected ACTION@FRAME (e.g. tier=legacy-cpu@10)"
                ))
            })?;
            let frame = frame.trim().parse::<u64>().map_err(|_| {
                ViewerError::Usage(format!(
                    "--script item `{item}`: `{frame}` is not a frame number"
                ))
            })?;
            steps.push(Step {
                frame,
                action: parse_action(item, body)?,
            });
        }
        // Stable: actions on one frame keep their written order.
        steps.sort_by_key(|s| s.frame);
        Ok(Script { steps })
    }

    /// The actions due on `frame`, in order.
    pub fn due(&self, frame: u64) -> impl Iterator<Item = &Action> {
        self.steps
            .iter()
            .filter(move |s| s.frame == frame)
            .map(|s| &s.action)
    }

    /// The last frame that has an action (`None` for an empty script).
    pub fn last_frame(&self) -> Option<u64> {
        self.steps.last().map(|s| s.frame)
    }

    /// Every step, in frame order.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_example_in_frame_order() {
        let s = Script::parse(
            "capture=/tmp/x.puffin@20, tier=legacy-cpu@10,view=2@20,screenshot=/tmp/a.png@20",
        )
        .unwrap();
        let frames: Vec<u64> = s.steps().iter().map(|s| s.frame).collect();
        assert_eq!(frames, [10, 20, 20, 20]);
        assert_eq!(
            s.steps()[0].action,
            Action::Tiers("legacy-cpu+static-chunks".parse().unwrap())
        );
        let at20: Vec<&Action> = s.due(20).collect();
        assert_eq!(
            at20,
            [
                &Action::Capture("/tmp/x.puffin".into()),
                &Action::ViewIndex(2),
                &Action::Screenshot("/tmp/a.png".into())
            ]
        );
        assert_eq!(s.due(11).count(), 0);
        assert_eq!(s.last_frame(), Some(20));
    }

    #[test]
    fn parses_every_action_kind() {
        let s = Script::parse(
            "grass=gpu-cull@1,terrain=clipmap@2,view=aerial@3,panel=off@4,profiler=on@5,\
             walk=on@6,msaa=1@7,vsync=off@8,pin@9,stats@10,tier=off+static-chunks@11,advance=-600@12,\
             density=48@13",
        )
        .unwrap();
        let actions: Vec<&Action> = s.steps().iter().map(|s| &s.action).collect();
        assert_eq!(
            actions[0],
            &Action::Grass(Tier::parse(Subsystem::Grass, "gpu-cull").unwrap())
        );
        assert_eq!(
            actions[1],
            &Action::Terrain(Tier::parse(Subsystem::Terrain, "clipmap").unwrap())
        );
        assert_eq!(actions[2], &Action::ViewName("aerial".into()));
        assert_eq!(actions[3], &Action::Panel(false));
        assert_eq!(actions[4], &Action::Profiler(true));
        assert_eq!(actions[5], &Action::Walk(true));
        assert_eq!(actions[6], &Action::Msaa(1));
        assert_eq!(actions[7], &Action::Vsync(false));
        assert_eq!(actions[8], &Action::Pin);
        assert_eq!(actions[9], &Action::ResetStats);
        assert_eq!(
            actions[10],
            &Action::Tiers(TierCombo::new(
                Tier::off(Subsystem::Grass),
                Tier::parse(Subsystem::Terrain, "static-chunks").unwrap()
            ))
        );
        assert_eq!(actions[11], &Action::Advance(-600.0));
        assert_eq!(actions[12], &Action::Density(48));
        assert!(Script::parse("").unwrap().steps().is_empty());
    }

    #[test]
    fn bad_items_are_rejected_naming_the_item() {
        for (text, needle) in [
            ("tier=legacy-cpu", "ACTION@FRAME"),
            ("tier=legacy-cpu@ten", "not a frame number"),
            ("tier=bogus@1", "tier=bogus@1"),
            ("explode@3", "unknown action `explode`"),
            ("msaa=2@1", "MSAA must be 1 or 4"),
            ("panel=maybe@1", "expected on or off"),
            ("capture@4", "needs a value"),
            ("view=0@1", "start at 1"),
            ("advance=far@1", "not a distance"),
            ("density=8@1", "16..=256"),
            ("density=lots@1", "not a density"),
        ] {
            let err = Script::parse(text).unwrap_err().to_string();
            assert!(err.contains(needle), "{text}: {err}");
        }
    }
}
