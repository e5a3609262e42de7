//! Colours and styles of chart series: every pass and every run gets a
//! colour and a pattern no other series of the same chart shares.
//!
//! Passes: one hue family per subsystem (greens for `grass.*`, oranges and
//! browns for `terrain.*`, blue-greys for `frame.*`, purples for
//! `streaming.*`, blues for anything else). A pass the engine has today has
//! a fixed shade of its family ([`KNOWN_PASSES`]); any other pass takes the
//! shade its name hashes to. A pass's colour depends on its name alone, so
//! `grass.draw` is the same green in every chart of every report, and two
//! reports' charts compare at a glance. Two passes that land on one shade in
//! one chart are told apart by pattern (hatched, then outlined bars).
//!
//! Runs: the grass tier picks the hue (legacy-cpu red, static-batch blue,
//! gpu-cull green, camera-grid purple, off grey), the terrain tier the line
//! pattern (static-chunks solid, atlas-instanced dashed, gpu-cull dotted,
//! clipmap long dashes, off dash-dot) and the shade. Runs that differ only
//! in parameters take the next shade of their hue.

use plotters::style::RGBColor;

/// How a series is drawn besides its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pattern {
    /// A solid line, or a filled bar.
    Solid,
    /// A dashed line.
    Dashed,
    /// A dotted line.
    Dotted,
    /// Long dashes.
    LongDash,
    /// Dash-dot.
    DashDot,
    /// A bar filled with diagonal lines.
    Hatched,
    /// A bar drawn as a thick outline.
    Outlined,
}

/// The patterns a line may take, in order of preference.
pub const LINE_PATTERNS: [Pattern; 5] = [
    Pattern::Solid,
    Pattern::Dashed,
    Pattern::Dotted,
    Pattern::LongDash,
    Pattern::DashDot,
];
/// The patterns a bar may take, in order of preference.
pub const BAR_PATTERNS: [Pattern; 3] = [Pattern::Solid, Pattern::Hatched, Pattern::Outlined];

/// A colour and pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// The colour.
    pub color: RGBColor,
    /// The pattern.
    pub pattern: Pattern,
}

impl Style {
    /// A key for uniqueness checks (`RGBColor` is not `Hash`).
    pub fn key(&self) -> (u8, u8, u8, Pattern) {
        (self.color.0, self.color.1, self.color.2, self.pattern)
    }
}

const fn hex(v: u32) -> RGBColor {
    RGBColor((v >> 16) as u8, (v >> 8) as u8, v as u8)
}

/// Greens: grass passes.
const GRASS: [RGBColor; 10] = [
    hex(0x2e7d32),
    hex(0x9ccc65),
    hex(0x004d40),
    hex(0xc5e1a5),
    hex(0x558b2f),
    hex(0xd4e157),
    hex(0x80cbc4),
    hex(0x827717),
    hex(0x66bb6a),
    hex(0x33691e),
];
/// Oranges and browns: terrain passes.
const TERRAIN: [RGBColor; 10] = [
    hex(0x8d4e1f),
    hex(0xf57c00),
    hex(0xffcc80),
    hex(0xbf360c),
    hex(0xd7a86e),
    hex(0xe65100),
    hex(0xa1887f),
    hex(0xffb74d),
    hex(0x5d4037),
    hex(0xff8a65),
];
/// Blue-greys: the frame's own steps.
const FRAME: [RGBColor; 6] = [
    hex(0x546e7a),
    hex(0x90a4ae),
    hex(0x37474f),
    hex(0xb0bec5),
    hex(0x78909c),
    hex(0x263238),
];
/// Purples: streaming.
const STREAMING: [RGBColor; 6] = [
    hex(0x6a1b9a),
    hex(0xba68c8),
    hex(0x4a148c),
    hex(0xce93d8),
    hex(0x8e24aa),
    hex(0xe1bee7),
];
/// Blues: anything else.
const OTHER: [RGBColor; 6] = [
    hex(0x1565c0),
    hex(0x64b5f6),
    hex(0x0d47a1),
    hex(0x90caf9),
    hex(0x1e88e5),
    hex(0x42a5f5),
];

/// The families: pass-name prefix and shades.
const FAMILIES: [(&str, &[RGBColor]); 4] = [
    ("grass.", &GRASS),
    ("terrain.", &TERRAIN),
    ("frame.", &FRAME),
    ("streaming.", &STREAMING),
];

/// Passes with a fixed shade of their family (the index into it): those
/// the engine has today, spread so that passes of one tier differ most.
pub const KNOWN_PASSES: [(&str, usize); 31] = [
    ("grass.draw", 0),
    ("grass.cull", 1),
    ("grass.upload", 2),
    ("grass.readback", 3),
    ("grass.grid.compact", 4),
    ("grass.grid.readback", 5),
    ("grass.hiz", 6),
    ("grass.grid.draw", 7),
    ("grass.cull.readback", 8),
    ("terrain.draw", 0),
    ("terrain.cull", 1),
    ("terrain.cull.clear", 2),
    ("terrain.cull.readback", 3),
    ("terrain.clipmap", 4),
    ("terrain.clipmap.compute", 5),
    ("terrain.clipmap.cull", 6),
    ("terrain.clipmap.cull.readback", 7),
    ("terrain.hiz", 8),
    ("terrain.clipmap.fill", 9),
    ("frame.clear", 0),
    ("frame.record", 1),
    ("frame.setup", 2),
    ("frame.submit", 3),
    ("frame.finish", 4),
    ("frame.other", 5),
    ("streaming.load", 0),
    ("streaming.apply", 1),
    ("streaming.techniques", 2),
    ("streaming.techniques.grass", 3),
    ("streaming.techniques.terrain", 4),
    ("streaming.rebuild", 5),
];

/// FNV-1a, for the shade of a pass not in [`KNOWN_PASSES`].
fn hash(name: &str) -> usize {
    name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    }) as usize
}

/// The hue family of a pass.
pub fn family(pass: &str) -> &'static [RGBColor] {
    FAMILIES
        .iter()
        .find(|(prefix, _)| pass.starts_with(prefix))
        .map_or(&OTHER[..], |(_, f)| *f)
}

/// A pass's own colour: a function of its name only.
pub fn pass_color(pass: &str) -> RGBColor {
    let shades = family(pass);
    let i = KNOWN_PASSES
        .iter()
        .find(|(n, _)| *n == pass)
        .map_or_else(|| hash(pass), |(_, i)| *i);
    shades[i % shades.len()]
}

/// Hands out styles within one chart: the preferred colour with the first
/// pattern no earlier series of this colour took; when every pattern of a
/// colour is taken, the next shade of its family.
#[derive(Debug, Default)]
pub struct Palette {
    taken: Vec<(u8, u8, u8, Pattern)>,
}

impl Palette {
    /// A fresh palette for one chart.
    pub fn new() -> Self {
        Self::default()
    }

    /// The first free style of `shades` starting at `start`, trying the
    /// patterns in order for each shade.
    fn take(&mut self, shades: &[RGBColor], start: usize, patterns: &[Pattern]) -> Style {
        for step in 0..shades.len() {
            let color = shades[(start + step) % shades.len()];
            for &pattern in patterns {
                let style = Style { color, pattern };
                if !self.taken.contains(&style.key()) {
                    self.taken.push(style.key());
                    return style;
                }
            }
        }
        // Every shade and pattern of the family is taken (more series than
        // shades x patterns): a shade outside the family, still unique.
        let mut n = self.taken.len() as u32;
        loop {
            let color = RGBColor(
                (37 * n % 200) as u8,
                (91 * n % 200) as u8,
                (53 * n % 200) as u8,
            );
            let style = Style {
                color,
                pattern: patterns[0],
            };
            if !self.taken.contains(&style.key()) {
                self.taken.push(style.key());
                return style;
            }
            n += 1;
        }
    }

    /// The style of a pass's bar: its own colour, solid where free.
    pub fn pass_bar(&mut self, pass: &str) -> Style {
        let shades = family(pass);
        let own = pass_color(pass);
        let start = shades.iter().position(|c| *c == own).unwrap_or(0);
        self.take(shades, start, &BAR_PATTERNS)
    }

    /// The style of a run's line: hue from the grass tier, shade and pattern
    /// from the terrain tier.
    pub fn run_line(&mut self, grass: &str, terrain: &str) -> Style {
        let shades = run_hue(grass);
        let (shade, pattern) = terrain_pattern(terrain);
        let mut order = vec![pattern];
        order.extend(LINE_PATTERNS.iter().copied().filter(|p| *p != pattern));
        self.take(shades, shade, &order)
    }

    /// A fixed style for a series outside the pass and run families (CPU
    /// and GPU bars, reference lines): taken as given, so a later request
    /// does not reuse it.
    pub fn fixed(&mut self, color: RGBColor, pattern: Pattern) -> Style {
        let style = Style { color, pattern };
        self.taken.push(style.key());
        style
    }
}

/// Shades of each grass tier's hue (darkest first).
const RUN_HUES: [(&str, [RGBColor; 4]); 5] = [
    (
        "legacy-cpu",
        [hex(0xc62828), hex(0xef5350), hex(0x8e0000), hex(0xff8a80)],
    ),
    (
        "static-batch",
        [hex(0x1565c0), hex(0x42a5f5), hex(0x003c8f), hex(0x82b1ff)],
    ),
    (
        "gpu-cull",
        [hex(0x2e7d32), hex(0x66bb6a), hex(0x005005), hex(0xa5d6a7)],
    ),
    (
        "camera-grid",
        [hex(0x6a1b9a), hex(0xab47bc), hex(0x38006b), hex(0xce93d8)],
    ),
    (
        "off",
        [hex(0x455a64), hex(0x78909c), hex(0x263238), hex(0x90a4ae)],
    ),
];
/// Shades for grass tiers not in [`RUN_HUES`].
const RUN_OTHER: [RGBColor; 4] = [hex(0x00838f), hex(0x26c6da), hex(0x005662), hex(0x80deea)];

fn run_hue(grass: &str) -> &'static [RGBColor] {
    // A label with parameters (`gpu-cull:occlusion=on`) takes its tier's hue.
    let grass = grass.split(':').next().unwrap_or(grass);
    RUN_HUES
        .iter()
        .find(|(n, _)| *n == grass)
        .map_or(&RUN_OTHER[..], |(_, s)| &s[..])
}

/// The shade index and line pattern of a terrain tier.
fn terrain_pattern(terrain: &str) -> (usize, Pattern) {
    match terrain.split(':').next().unwrap_or(terrain) {
        "static-chunks" => (0, Pattern::Solid),
        "atlas-instanced" => (1, Pattern::Dashed),
        "gpu-cull" => (2, Pattern::Dotted),
        "clipmap" => (3, Pattern::LongDash),
        "off" => (0, Pattern::DashDot),
        _ => (hash(terrain) % 4, Pattern::Solid),
    }
}

/// `#RRGGBB`, as the SVG files spell a colour.
pub fn css(color: RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", color.0, color.1, color.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_keeps_its_colour_whatever_else_the_chart_holds() {
        let mut a = Palette::new();
        let mut b = Palette::new();
        b.pass_bar("terrain.draw");
        b.pass_bar("grass.cull");
        assert_eq!(a.pass_bar("grass.draw"), b.pass_bar("grass.draw"));
        assert_eq!(a.pass_bar("grass.draw").color, pass_color("grass.draw"));
    }

    #[test]
    fn passes_take_their_subsystems_hue_family() {
        for (pass, _) in KNOWN_PASSES {
            assert!(family(pass).contains(&pass_color(pass)), "{pass}");
        }
        assert!(GRASS.contains(&pass_color("grass.some.new.pass")));
        assert!(TERRAIN.contains(&pass_color("terrain.some.new.pass")));
        // Families do not share shades.
        let all: Vec<&RGBColor> = GRASS
            .iter()
            .chain(&TERRAIN)
            .chain(&FRAME)
            .chain(&STREAMING)
            .chain(&OTHER)
            .collect();
        for (i, c) in all.iter().enumerate() {
            assert!(!all[i + 1..].contains(c), "{c:?} twice");
        }
        // Known passes of one family have distinct shades.
        for (i, (p, s)) in KNOWN_PASSES.iter().enumerate() {
            for (q, t) in &KNOWN_PASSES[i + 1..] {
                assert!(
                    family(p) != family(q) || s != t,
                    "{p} and {q} share a shade"
                );
            }
        }
    }

    #[test]
    fn colliding_series_are_told_apart_by_pattern_then_shade() {
        let mut p = Palette::new();
        let styles: Vec<Style> = (0..40)
            .map(|i| p.pass_bar(&format!("grass.x{i}")))
            .collect();
        for (i, s) in styles.iter().enumerate() {
            assert!(
                !styles[i + 1..].iter().any(|t| t.key() == s.key()),
                "{s:?} twice"
            );
        }
        let mut p = Palette::new();
        let runs: Vec<Style> = (0..30)
            .map(|_| p.run_line("gpu-cull", "gpu-cull"))
            .collect();
        for (i, s) in runs.iter().enumerate() {
            assert!(
                !runs[i + 1..].iter().any(|t| t.key() == s.key()),
                "{s:?} twice"
            );
        }
        assert_eq!(runs[0].pattern, Pattern::Dotted);
    }
}
