//! The egui side panel: preset and view selection, a tier selector per
//! subsystem built from the technique registry (greyed out with the reason
//! when the device lacks a capability) with each tier's typed parameters,
//! render toggles, live counters, the per-pass
//! CPU/GPU table with a small history plot, and the A/B comparison.

use egui::{Color32, RichText, Ui};
use sward_engine::Capability;
use sward_passes::technique::{registry, ParamKind, ParamValue, Subsystem, Tier};

use crate::state::{tier_blocked, Request, ViewerState};
use crate::stats::{FrameStats, Rolling};

/// Read-only facts the panel shows besides the state.
pub struct PanelInfo<'a> {
    /// Adapter name and backend.
    pub adapter: &'a str,
    /// Present mode in use.
    pub present_mode: String,
    /// Every preset name.
    pub presets: &'a [&'static str],
    /// Whether the flamegraph window is open (the panel toggles it).
    pub profiler_open: &'a mut bool,
    /// Frames the profiler holds.
    pub profiler_frames: usize,
}

/// Draws the side panel.
pub fn panel(ctx: &egui::Context, state: &mut ViewerState, stats: &FrameStats, info: PanelInfo) {
    puffin::profile_function!();
    egui::SidePanel::left("sward.panel")
        .default_width(300.0)
        .show(ctx, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                header(ui, stats, &info);
                scene_section(ui, state, info.presets);
                tiers_section(ui, state);
                settings_section(ui, state);
                counters_section(ui, stats);
                passes_section(ui, stats);
                ab_section(ui, state, stats);
                tools_section(ui, state, info.profiler_open, info.profiler_frames);
                ui.separator();
                for m in &state.messages {
                    ui.label(RichText::new(m).small().weak());
                }
            });
        });
}

fn header(ui: &mut Ui, stats: &FrameStats, info: &PanelInfo) {
    ui.heading("sward");
    ui.label(RichText::new(info.adapter).small());
    let ms = stats.interval.median();
    ui.label(format!(
        "{:.2} ms/frame ({:.0} fps), present {}",
        ms,
        if ms > 0.0 { 1e3 / ms } else { 0.0 },
        info.present_mode
    ));
    ui.label(
        RichText::new("F1 panel  F9 capture  F12 screenshot  P profiler  G walk  1-9 views")
            .small()
            .weak(),
    );
}

fn scene_section(ui: &mut Ui, state: &mut ViewerState, presets: &[&'static str]) {
    ui.separator();
    egui::ComboBox::from_label("preset")
        .selected_text(state.wanted_preset.clone())
        .show_ui(ui, |ui| {
            for p in presets {
                ui.selectable_value(&mut state.wanted_preset, (*p).to_owned(), *p);
            }
        });
    ui.horizontal_wrapped(|ui| {
        let mut jump = None;
        for (i, v) in state.views.iter().enumerate() {
            if ui.small_button(format!("{} {v}", i + 1)).clicked() {
                jump = Some(i);
            }
        }
        if let Some(i) = jump {
            state.requests.push(Request::View(i));
        }
    });
    ui.checkbox(&mut state.walk, "ground walk (G)");
    density_control(ui, state);
}

/// The client routines' density setting (picks per MCNK), for a scene
/// placed by a client routine: a slider that applies when released (each
/// change rebuilds the scene's placements).
fn density_control(ui: &mut Ui, state: &mut ViewerState) {
    let Some(now) = state.wanted_density else {
        return;
    };
    let range = sward_scenes::placement::DENSITY_RANGE;
    let id = ui.make_persistent_id("sward.density");
    // The slider's value with the setting it started from: a change made
    // elsewhere (a script) restarts it from the new setting.
    let mut v = ui
        .data(|d| d.get_temp::<(u32, u32)>(id))
        .filter(|(from, _)| *from == now)
        .map_or(now, |(_, v)| v);
    let r = ui
        .add(egui::Slider::new(&mut v, *range.start()..=*range.end()).text("density"))
        .on_hover_text(
            "the client routine's picks per MCNK (1.12 frillDensity: 16, 32 or 48 in the \
             client's settings; 3.3.5 groundEffectDensity: 16 to 256); every tier draws it",
        );
    ui.data_mut(|d| d.insert_temp(id, (now, v)));
    if !r.dragged() && !r.has_focus() && v != now {
        state.want_density(v);
    }
}

fn tiers_section(ui: &mut Ui, state: &mut ViewerState) {
    ui.separator();
    for subsystem in [Subsystem::Grass, Subsystem::Terrain] {
        ui.label(RichText::new(subsystem.name()).strong());
        let current = state.wanted.combo.tier(subsystem).clone();
        let mut chosen: Option<Tier> = None;
        let off = Tier::off(subsystem);
        if tier_row(ui, current.is_off(), "off", None) {
            chosen = Some(off);
        }
        for entry in registry().iter().filter(|e| e.subsystem == subsystem) {
            let selected = current.name() == entry.name;
            if tier_row(ui, selected, entry.name, tier_blocked(&state.caps, entry)) {
                chosen = Some(Tier::of(entry));
            }
            if selected {
                chosen = param_controls(ui, &current).or(chosen);
            }
        }
        if let Some(tier) = chosen.filter(|t| *t != current) {
            let mut combo = state.wanted.combo.clone();
            match subsystem {
                Subsystem::Grass => combo.grass = tier,
                Subsystem::Terrain => combo.terrain = tier,
            }
            state.want_tiers(combo);
        }
    }
}

/// One tier's radio button; true when clicked.
fn tier_row(ui: &mut Ui, selected: bool, name: &str, blocked: Option<String>) -> bool {
    ui.horizontal(|ui| {
        let r = ui.add_enabled(blocked.is_none(), egui::RadioButton::new(selected, name));
        if let Some(why) = blocked {
            ui.label(RichText::new(why).small().weak());
        }
        r.clicked()
    })
    .inner
}

/// Controls for the selected tier's parameters, from its registry entry;
/// returns the tier with a changed parameter. A slider applies when released
/// (each change rebuilds the technique).
fn param_controls(ui: &mut Ui, tier: &Tier) -> Option<Tier> {
    let entry = tier.entry()?;
    let mut changed = None;
    for spec in entry.params {
        let current = tier
            .params()
            .get(spec.name)
            .cloned()
            .unwrap_or_else(|| spec.default_value());
        ui.horizontal(|ui| {
            ui.add_space(18.0);
            ui.label(RichText::new(spec.name).small())
                .on_hover_text(spec.description);
            let mut pick = |ui: &mut Ui, value: ParamValue| {
                if ui
                    .selectable_label(value == current, value.to_string())
                    .clicked()
                {
                    changed = Some((spec.name, value));
                }
            };
            match spec.kind {
                ParamKind::IntChoice { values, .. } => {
                    for v in values {
                        pick(ui, ParamValue::Int(*v));
                    }
                }
                ParamKind::Choice { values, .. } => {
                    for v in values {
                        pick(ui, ParamValue::Text((*v).to_owned()));
                    }
                }
                ParamKind::Float { min, max, .. } => {
                    let ParamValue::Float(now) = current else {
                        return;
                    };
                    let id = ui.make_persistent_id(("sward.param", entry.name, spec.name));
                    let mut v = ui.data(|d| d.get_temp::<f64>(id)).unwrap_or(now);
                    let r = ui.add(egui::Slider::new(&mut v, min..=max));
                    ui.data_mut(|d| d.insert_temp(id, v));
                    if !r.dragged() && !r.has_focus() && v != now {
                        changed = Some((spec.name, ParamValue::Float(v)));
                    }
                }
            }
        });
    }
    let (name, value) = changed?;
    tier.with_param(name, &value).ok()
}

fn settings_section(ui: &mut Ui, state: &mut ViewerState) {
    ui.separator();
    let s = &mut state.wanted.settings;
    ui.horizontal(|ui| {
        ui.checkbox(&mut s.wind, "wind");
        ui.checkbox(&mut s.fade, "fade");
        ui.checkbox(&mut s.alpha_to_coverage, "alpha-to-coverage");
    });
    ui.horizontal(|ui| {
        ui.label("MSAA");
        ui.radio_value(&mut state.wanted.msaa, 1, "1x");
        let four = state.caps.has(Capability::Msaa4x);
        ui.add_enabled_ui(four, |ui| ui.radio_value(&mut state.wanted.msaa, 4, "4x"));
        ui.checkbox(&mut state.vsync, "vsync");
    });
    ui.add(egui::Slider::new(&mut s.grass_distance, 20.0..=400.0).text("grass distance"));
    s.fade_start = s.fade_start.min(s.grass_distance);
    // Up to the clipmap's longest `distance` parameter (a tier may set it).
    ui.add(
        egui::Slider::new(&mut s.terrain_distance, 100.0..=50_000.0)
            .logarithmic(true)
            .text("terrain distance"),
    );
}

fn counters_section(ui: &mut Ui, stats: &FrameStats) {
    ui.separator();
    let c = &stats.counters;
    egui::Grid::new("sward.counters")
        .num_columns(2)
        .show(ui, |ui| {
            for (name, v) in [
                ("draw calls", c.draw_calls),
                ("instances submitted", c.instances_submitted),
                ("instances drawn", c.instances_drawn),
                ("triangles", c.triangles),
                ("bytes uploaded", c.bytes_uploaded),
            ] {
                ui.label(name);
                ui.label(RichText::new(v.to_string()).monospace());
                ui.end_row();
            }
            match stats.work {
                Some((frame, w)) => {
                    ui.label(RichText::new(format!("GPU work (frame {frame})")).strong());
                    ui.end_row();
                    for ((_, label), v) in sward_engine::graph::PipelineStats::NAMES
                        .iter()
                        .zip(w.values())
                    {
                        ui.label(*label);
                        ui.label(RichText::new(v.to_string()).monospace());
                        ui.end_row();
                    }
                }
                None => {
                    ui.label("GPU work");
                    ui.label("not counted on this device");
                    ui.end_row();
                }
            }
        });
}

fn passes_section(ui: &mut Ui, stats: &FrameStats) {
    ui.separator();
    egui::Grid::new("sward.passes")
        .num_columns(3)
        .striped(true)
        .show(ui, |ui| {
            ui.label(RichText::new("pass (median ms)").strong());
            ui.label(RichText::new("CPU").strong());
            ui.label(RichText::new("GPU").strong());
            ui.end_row();
            for (name, t) in &stats.passes {
                ui.label(name);
                ui.label(RichText::new(format!("{:.3}", t.cpu.median())).monospace());
                ui.label(RichText::new(format!("{:.3}", t.gpu.median())).monospace());
                ui.end_row();
            }
            for (name, cpu, gpu) in [
                ("scene", &stats.cpu_scene, &stats.gpu_scene),
                ("overlay", &stats.cpu_ui, &stats.gpu_ui),
            ] {
                ui.label(RichText::new(name).strong());
                ui.label(RichText::new(format!("{:.3}", cpu.median())).monospace());
                ui.label(RichText::new(format!("{:.3}", gpu.median())).monospace());
                ui.end_row();
            }
        });
    history_plot(
        ui,
        &[
            (
                &stats.cpu_scene,
                Color32::from_rgb(90, 170, 255),
                "scene CPU",
            ),
            (
                &stats.gpu_scene,
                Color32::from_rgb(255, 150, 60),
                "scene GPU",
            ),
            (&stats.interval, Color32::from_gray(160), "frame"),
        ],
    );
}

/// A line plot of recent samples drawn with egui's painter (no plot crate).
fn history_plot(ui: &mut Ui, series: &[(&Rolling, Color32, &str)]) {
    let (rect, _) =
        ui.allocate_exact_size(egui::vec2(ui.available_width(), 90.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, Color32::from_black_alpha(90));
    let top = series
        .iter()
        .flat_map(|(r, _, _)| r.iter())
        .fold(1.0_f64, f64::max)
        * 1.1;
    for (rolling, color, _) in series {
        let n = rolling.len().max(2) as f32 - 1.0;
        let points: Vec<egui::Pos2> = rolling
            .iter()
            .enumerate()
            .map(|(i, v)| {
                egui::pos2(
                    rect.left() + rect.width() * i as f32 / n,
                    rect.bottom() - rect.height() * (v / top) as f32,
                )
            })
            .collect();
        painter.add(egui::Shape::line(points, egui::Stroke::new(1.5, *color)));
    }
    painter.text(
        rect.left_top() + egui::vec2(4.0, 2.0),
        egui::Align2::LEFT_TOP,
        format!("{top:.1} ms"),
        egui::FontId::proportional(10.0),
        Color32::WHITE,
    );
    ui.horizontal(|ui| {
        for (_, color, name) in series {
            ui.label(RichText::new(*name).small().color(*color));
        }
    });
}

fn ab_section(ui: &mut Ui, state: &mut ViewerState, stats: &FrameStats) {
    ui.separator();
    ui.horizontal(|ui| {
        ui.label(RichText::new("A/B").strong());
        if ui.button("pin current as A").clicked() {
            state.pin();
        }
    });
    let Some(a) = state.pinned.clone() else {
        ui.label(
            RichText::new("pin a combination, then switch to B")
                .small()
                .weak(),
        );
        return;
    };
    let b = state.config.clone();
    let (la, lb) = (a.label(), b.label());
    let side = |label: &str| {
        stats
            .ab
            .get(label)
            .map(|s| (s.cpu.median(), s.gpu.median()))
    };
    let (sa, sb) = (side(&la), side(&lb));
    egui::Grid::new("sward.ab").num_columns(3).show(ui, |ui| {
        ui.label("");
        ui.label("CPU ms");
        ui.label("GPU ms");
        ui.end_row();
        for (name, s) in [("A", sa), ("B", sb)] {
            ui.label(name);
            let (c, g) = s.unwrap_or_default();
            ui.label(RichText::new(format!("{c:.3}")).monospace());
            ui.label(RichText::new(format!("{g:.3}")).monospace());
            ui.end_row();
        }
        let ratio = |x: f64, y: f64| {
            if y > 0.0 {
                format!("{:.2}x", x / y)
            } else {
                "-".into()
            }
        };
        if let (Some(a), Some(b)) = (sa, sb) {
            ui.label("B/A");
            ui.label(RichText::new(ratio(b.0, a.0)).monospace().strong());
            ui.label(RichText::new(ratio(b.1, a.1)).monospace().strong());
            ui.end_row();
        }
    });
    ui.label(RichText::new(format!("A: {la}\nB: {lb}")).small().weak());
    if a != b && ui.button("switch back to A").clicked() {
        state.wanted = a;
    }
}

fn tools_section(ui: &mut Ui, state: &mut ViewerState, profiler: &mut bool, frames: usize) {
    ui.separator();
    ui.horizontal(|ui| {
        ui.toggle_value(profiler, "flamegraph (P)");
        if ui.button("save capture (F9)").clicked() {
            state.requests.push(Request::Capture(None));
        }
        if ui.button("screenshot (F12)").clicked() {
            state.requests.push(Request::Screenshot(None));
        }
    });
    ui.label(
        RichText::new(format!("{frames} puffin frames held"))
            .small()
            .weak(),
    );
}
