//! The viewer's state: what is drawn (preset, tier combination, render
//! settings, MSAA), what the user asked for (the panel edits `wanted`; the
//! frame loop applies the difference), the A/B pin, one-shot requests
//! (screenshots, captures, view jumps) and the messages shown in the panel.

use std::collections::VecDeque;
use std::path::PathBuf;

use sward_engine::Caps;
use sward_passes::technique::{cap_combo, TechniqueEntry, TierCombo};
use sward_passes::RenderSettings;

/// Messages kept for the panel.
const MESSAGES: usize = 8;

/// Everything that decides what a frame looks like and costs.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Tier combination.
    pub combo: TierCombo,
    /// Wind, fade, alpha-to-coverage, draw distances.
    pub settings: RenderSettings,
    /// MSAA sample count (1 or 4).
    pub msaa: u32,
}

impl Config {
    /// A short label naming everything that changes the cost (the A/B key).
    pub fn label(&self) -> String {
        let s = &self.settings;
        let mut out = format!("{} msaa{}", self.combo, self.msaa);
        for (on, name) in [
            (s.wind, "wind"),
            (s.fade, "fade"),
            (s.alpha_to_coverage, "atoc"),
        ] {
            if !on {
                out.push_str(&format!(" no-{name}"));
            }
        }
        out.push_str(&format!(
            " grass{:.0} terrain{:.0}",
            s.grass_distance, s.terrain_distance
        ));
        out
    }
}

/// A one-shot request from a key, a button or the script.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// Write the scene image of this frame as PNG (`None`: a default name).
    Screenshot(Option<PathBuf>),
    /// Save the puffin frames held so far (`None`: a default name).
    Capture(Option<PathBuf>),
    /// Jump to the preset's view with this 0-based index.
    View(usize),
    /// Jump to the preset's view with this name.
    ViewName(String),
}

/// Why a technique cannot be chosen on this device, if it cannot.
pub fn tier_blocked(caps: &Caps, entry: &TechniqueEntry) -> Option<String> {
    let missing = caps.missing(entry.requires);
    (!missing.is_empty()).then(|| {
        let names: Vec<&str> = missing.iter().map(|c| c.name()).collect();
        format!("device lacks {}", names.join(", "))
    })
}

/// The viewer's state shared by the frame loop, the panel and the script.
pub struct ViewerState {
    /// Device capabilities (for greying out tiers).
    pub caps: Caps,
    /// The preset on screen.
    pub preset: String,
    /// The preset the user picked (a change rebuilds the scene).
    pub wanted_preset: String,
    /// The scene's client density setting (picks per MCNK; `None` for a
    /// `per-cell` scene).
    pub density: Option<u32>,
    /// The density the user picked (a change rebuilds the scene's
    /// placements, the camera stays).
    pub wanted_density: Option<u32>,
    /// What is drawn now.
    pub config: Config,
    /// What the user asked for (applied at the start of the next frame).
    pub wanted: Config,
    /// Vsync wanted (Fifo) or not.
    pub vsync: bool,
    /// Whether the egui panel is shown.
    pub panel: bool,
    /// Configuration pinned as A.
    pub pinned: Option<Config>,
    /// Pending one-shot requests.
    pub requests: Vec<Request>,
    /// Ground walk on.
    pub walk: bool,
    /// Names of the scene's views (number keys).
    pub views: Vec<String>,
    /// Recent messages (newest last).
    pub messages: VecDeque<String>,
    /// Set to quit after this frame.
    pub quit: bool,
}

impl ViewerState {
    /// Initial state.
    pub fn new(caps: Caps, preset: &str, config: Config, vsync: bool, panel: bool) -> Self {
        ViewerState {
            caps,
            preset: preset.to_owned(),
            wanted_preset: preset.to_owned(),
            density: None,
            wanted_density: None,
            wanted: config.clone(),
            config,
            vsync,
            panel,
            pinned: None,
            requests: Vec::new(),
            walk: false,
            views: Vec::new(),
            messages: VecDeque::new(),
            quit: false,
        }
    }

    /// Logs `text` and keeps it for the panel.
    pub fn message(&mut self, text: impl Into<String>) {
        let text = text.into();
        log::info!("viewer: {text}");
        eprintln!("sward run: {text}");
        if self.messages.len() == MESSAGES {
            self.messages.pop_front();
        }
        self.messages.push_back(text);
    }

    /// Asks for a tier combination, capped to the device (with a message per
    /// capped subsystem).
    pub fn want_tiers(&mut self, combo: TierCombo) {
        let (capped, warnings) = cap_combo(&self.caps, &combo);
        for w in warnings {
            self.message(w);
        }
        self.wanted.combo = capped;
    }

    /// Asks for the client routines' density setting `density` (the scene's
    /// placements are rebuilt); a `per-cell` scene has none and says so.
    pub fn want_density(&mut self, density: u32) {
        if self.density.is_none() {
            self.message(format!(
                "density {density} ignored: the scene places per-cell (the density setting belongs to the client routines)"
            ));
            return;
        }
        self.wanted_density = Some(density);
    }

    /// Pins the current configuration as A.
    pub fn pin(&mut self) {
        self.pinned = Some(self.config.clone());
        self.message(format!("pinned A = {}", self.config.label()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sward_engine::Capability;
    use sward_passes::technique::{entry, Subsystem};

    fn config() -> Config {
        Config {
            combo: TierCombo::baseline(),
            settings: RenderSettings::default(),
            msaa: 4,
        }
    }

    fn combo(s: &str) -> TierCombo {
        s.parse().unwrap()
    }

    #[test]
    fn blocked_tiers_name_the_missing_capability() {
        let none = Caps::with(&[]);
        let gpu_cull = entry(Subsystem::Grass, "gpu-cull").unwrap();
        let why = tier_blocked(&none, gpu_cull).unwrap();
        assert!(why.contains(Capability::MultiDrawIndirect.name()), "{why}");
        let baseline = entry(Subsystem::Grass, "static-batch").unwrap();
        assert_eq!(tier_blocked(&none, baseline), None);
        assert_eq!(tier_blocked(&Caps::everything(), gpu_cull), None);
    }

    #[test]
    fn want_tiers_caps_to_the_device() {
        let mut s = ViewerState::new(Caps::with(&[]), "elwynn-dense", config(), true, true);
        s.want_tiers(combo("gpu-cull:patch=4"));
        // gpu-cull needs capabilities this device lacks: capped to static-batch.
        assert_eq!(s.wanted.combo.grass.name(), "static-batch");
        assert!(s.messages.iter().any(|m| m.contains("gpu-cull")));
        s.want_tiers(combo("legacy-cpu+off"));
        assert_eq!(s.wanted.combo, combo("legacy-cpu+off"));
        let mut full = ViewerState::new(Caps::everything(), "elwynn-dense", config(), true, true);
        full.want_tiers(combo("gpu-cull:patch=4"));
        assert_eq!(
            full.wanted.combo.to_string(),
            "gpu-cull:patch=4+static-chunks"
        );
    }

    #[test]
    fn density_is_wanted_only_for_a_client_scene() {
        let mut s = ViewerState::new(Caps::with(&[]), "elwynn-dense", config(), true, true);
        s.want_density(48);
        assert_eq!(s.wanted_density, None);
        assert!(s.messages.iter().any(|m| m.contains("per-cell")));
        s.density = Some(16);
        s.wanted_density = Some(16);
        s.want_density(48);
        assert_eq!(s.wanted_density, Some(48));
    }

    #[test]
    fn labels_tell_configurations_apart() {
        let a = config();
        let mut b = a.clone();
        b.settings.wind = false;
        let mut c = a.clone();
        c.msaa = 1;
        let mut d = a.clone();
        d.combo = combo("camera-grid:spacing=3");
        assert_ne!(a.label(), b.label());
        assert_ne!(a.label(), c.label());
        assert!(b.label().contains("no-wind"));
        assert!(a.label().starts_with("static-batch+static-chunks msaa4"));
        assert!(d.label().starts_with("camera-grid:spacing=3+static-chunks"));
    }
}
