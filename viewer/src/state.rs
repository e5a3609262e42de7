//! The viewer's state: what is drawn (preset, tier combination, render
//! settings, MSAA), what the user asked for (the panel edits `wanted`; the
//! frame loop applies the difference), the A/B pin, one-shot requests
//! (screenshots, captures, view jumps) and the messages shown in the panel.

use std::collections::VecDeque;
use std::path::PathBuf;

use sward_engine::{Caps, GrassTier, TerrainTier, TierCombo};
use sward_passes::RenderSettings;

/// Messages kept for the panel.
const MESSAGES: usize = 8;

/// Everything that decides what a frame looks like and costs.
#[derive(Debug, Clone, Copy, PartialEq)]
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

/// Why a tier cannot be chosen, if it cannot.
pub fn grass_blocked(caps: &Caps, tier: GrassTier) -> Option<String> {
    let missing = caps.missing(tier.required_capabilities());
    if !missing.is_empty() {
        let names: Vec<&str> = missing.iter().map(|c| c.name()).collect();
        return Some(format!("device lacks {}", names.join(", ")));
    }
    (!sward_passes::renderer::implemented(TierCombo::new(tier, TerrainTier::StaticChunks)))
        .then(|| "not built yet".to_owned())
}

/// Why a tier cannot be chosen, if it cannot.
pub fn terrain_blocked(caps: &Caps, tier: TerrainTier) -> Option<String> {
    let missing = caps.missing(tier.required_capabilities());
    if !missing.is_empty() {
        let names: Vec<&str> = missing.iter().map(|c| c.name()).collect();
        return Some(format!("device lacks {}", names.join(", ")));
    }
    (!sward_passes::renderer::implemented(TierCombo::new(GrassTier::StaticBatch, tier)))
        .then(|| "not built yet".to_owned())
}

/// The viewer's state shared by the frame loop, the panel and the script.
pub struct ViewerState {
    /// Device capabilities (for greying out tiers).
    pub caps: Caps,
    /// The preset on screen.
    pub preset: String,
    /// The preset the user picked (a change rebuilds the scene).
    pub wanted_preset: String,
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
            config,
            wanted: config,
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
    /// capped subsystem) and refused with a message when not built yet.
    pub fn want_tiers(&mut self, combo: TierCombo) {
        let (capped, warnings) = self.caps.cap_combo(combo);
        for w in warnings {
            self.message(w);
        }
        let blocked = grass_blocked(&self.caps, capped.grass)
            .map(|why| format!("grass `{}`: {why}", capped.grass))
            .or_else(|| {
                terrain_blocked(&self.caps, capped.terrain)
                    .map(|why| format!("terrain `{}`: {why}", capped.terrain))
            });
        match blocked {
            Some(why) => self.message(format!("cannot switch to `{capped}`: {why}")),
            None => self.wanted.combo = capped,
        }
    }

    /// Pins the current configuration as A.
    pub fn pin(&mut self) {
        self.pinned = Some(self.config);
        self.message(format!("pinned A = {}", self.config.label()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sward_engine::Capability;

    fn config() -> Config {
        Config {
            combo: TierCombo::BASELINE,
            settings: RenderSettings::default(),
            msaa: 4,
        }
    }

    #[test]
    fn blocked_tiers_name_the_missing_capability_before_the_build_state() {
        let none = Caps::with(&[]);
        let why = grass_blocked(&none, GrassTier::GpuCull).unwrap();
        assert!(why.contains(Capability::MultiDrawIndirect.name()), "{why}");
        assert_eq!(grass_blocked(&none, GrassTier::StaticBatch), None);
        assert_eq!(terrain_blocked(&none, TerrainTier::StaticChunks), None);
        // With every capability present, the only reason left is the build.
        let all = Caps::everything();
        for t in GrassTier::ALL {
            let built =
                sward_passes::renderer::implemented(TierCombo::new(t, TerrainTier::StaticChunks));
            assert_eq!(grass_blocked(&all, t).is_none(), built, "{t}");
        }
    }

    #[test]
    fn want_tiers_caps_to_the_device_and_keeps_refused_combos_out() {
        let mut s = ViewerState::new(Caps::with(&[]), "elwynn-dense", config(), true, true);
        s.want_tiers(TierCombo::new(
            GrassTier::GpuCull,
            TerrainTier::StaticChunks,
        ));
        // gpu-cull needs capabilities this device lacks: capped to static-batch.
        assert_eq!(s.wanted.combo.grass, GrassTier::StaticBatch);
        assert!(s.messages.iter().any(|m| m.contains("gpu-cull")));
        s.want_tiers(TierCombo::new(GrassTier::LegacyCpu, TerrainTier::Off));
        assert_eq!(
            s.wanted.combo,
            TierCombo::new(GrassTier::LegacyCpu, TerrainTier::Off)
        );
    }

    #[test]
    fn labels_tell_configurations_apart() {
        let a = config();
        let mut b = a;
        b.settings.wind = false;
        let mut c = a;
        c.msaa = 1;
        assert_ne!(a.label(), b.label());
        assert_ne!(a.label(), c.label());
        assert!(b.label().contains("no-wind"));
        assert!(a.label().starts_with("static-batch+static-chunks msaa4"));
    }
}
