//! Human-readable renderings of a [`Report`]: `report.md` (Markdown tables, links
//! to charts and screenshots) and a plain-text headline table for the terminal.
//! Every figure shown is read from the report; nothing is recomputed here except
//! looking up a run's comparison.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::charts::Chart;
pub(crate) use crate::numbers::{bytes, count};
use crate::report::{Comparison, Report, Run};
use crate::stats::Stats;

/// Milliseconds with three decimals, `-` when absent.
fn ms(s: Option<&Stats>) -> String {
    s.map_or_else(|| "-".to_owned(), |s| format!("{:.3}", s.median))
}

/// A ratio as `0.42x`, `-` when undefined (no baseline figure).
fn ratio(r: Option<f64>) -> String {
    r.map_or_else(|| "-".to_owned(), |r| format!("{r:.2}x"))
}

/// Escapes text for a Markdown table cell.
pub(crate) fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// A relative file name as a Markdown link target (spaces would end the link).
pub(crate) fn link(file: &str) -> String {
    file.replace(' ', "%20")
}

fn comparison_of<'r>(report: &'r Report, run: &Run) -> Option<&'r Comparison> {
    report.comparisons.iter().find(|c| c.tier == run.tier)
}

fn indirect_validation(report: &Report) -> &'static str {
    match report.indirect_validation() {
        Some(true) => "on (wgpu validates every indirect draw: extra GPU work)",
        Some(false) => "off",
        None => "not recorded",
    }
}

/// Renders `report.md`; `charts` are the chart files written beside it.
pub fn render(report: &Report, charts: &[Chart]) -> String {
    let mut md = String::new();
    let a = &report.adapter;
    let s = &report.scene;
    let _ = writeln!(md, "# sward bench report: {}\n", cell(&report.preset));
    md.push_str("| | |\n|---|---|\n");
    let rows = [
        ("preset", report.preset.clone()),
        (
            "adapter",
            format!(
                "{} ({}, {}, {})",
                a.name, a.backend, a.device_type, a.driver
            ),
        ),
        ("size", format!("{}x{}", report.size[0], report.size[1])),
        ("msaa", format!("{}x", report.msaa)),
        (
            "frames",
            format!("{} measured after {} warm-up", report.frames, report.warmup),
        ),
        (
            "scene",
            format!(
                "{}{} ADTs, {} MCNKs, {} placements, {} models, {} terrain triangles{}{}",
                s.client
                    .as_deref()
                    .map_or(String::new(), |c| format!("client {c}; ")),
                s.adts,
                count(u64::from(s.mcnks)),
                count(s.placements),
                s.models,
                count(s.triangles_terrain),
                if s.missing_models > 0 {
                    format!(
                        ", {} models missing from the data ({} drawn as placeholders at {} placements{})",
                        s.missing_models,
                        s.placeholder_models,
                        count(s.placeholder_placements),
                        if s.placeholder_models < s.missing_models {
                            ", the rest skipped"
                        } else {
                            ""
                        }
                    )
                } else {
                    String::new()
                },
                if s.absent_tiles > 0 {
                    format!(
                        ", {} tiles of the window listed by the map but absent from the data",
                        s.absent_tiles
                    )
                } else {
                    String::new()
                }
            ),
        ),
        (
            "detail textures",
            match s.textures {
                Some(t) => format!(
                    "{} uploaded as BC, {} decoded on the CPU, {} RGBA8 (texture upload {})",
                    t.bc,
                    t.decoded,
                    t.rgba,
                    report
                        .config
                        .get(crate::report::CONFIG_TEXTURE_UPLOAD)
                        .and_then(serde_json::Value::as_str)
                        .unwrap_or("not recorded")
                ),
                None => "not recorded".to_owned(),
            },
        ),
        (
            "indirect validation",
            indirect_validation(report).to_owned(),
        ),
        ("sward", report.sward_version.clone()),
    ];
    for (k, v) in rows {
        let _ = writeln!(md, "| {k} | {} |", cell(&v));
    }
    for r in &report.refused {
        let _ = writeln!(
            md,
            "| refused | {} |",
            cell(&format!("{}: {} (not measured)", r.tier, r.reason))
        );
    }
    if a.device_type.eq_ignore_ascii_case("cpu") {
        md.push_str(
            "\n> The adapter is a CPU (software) rasterizer: absolute times are CPU-emulated \
             GPU work. Compare tiers by their ratios to the baseline, measured in this same run.\n",
        );
    }

    md.push_str("\n## Headline (per-frame medians)\n\n");
    md.push_str(
        "| tier | CPU frame ms | CPU thread ms | CPU grass ms | GPU frame ms | GPU grass ms \
         | fragments (PS invocations) | draw calls | instances drawn | triangles | uploaded \
         | allocations | CPU frame vs base | CPU grass vs base | GPU frame vs base \
         | GPU grass vs base | hitches |\n",
    );
    md.push_str("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for run in &report.runs {
        let c = comparison_of(report, run);
        let base = run.tier.is_baseline();
        let r = |f: fn(&Comparison) -> Option<f64>| {
            if base {
                "baseline".to_owned()
            } else {
                ratio(c.and_then(f))
            }
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            cell(&run.tier.to_string()),
            ms(Some(&run.cpu_frame_ms)),
            ms(run.cpu_frame_thread_ms.as_ref()),
            ms(Some(&run.cpu_grass_ms)),
            ms(run.gpu_frame_ms.as_ref()),
            ms(run.gpu_grass_ms.as_ref()),
            run.gpu_work
                .as_ref()
                .and_then(|w| w.median("frame"))
                .map_or_else(|| "-".to_owned(), |m| count(m.fs_invocations)),
            count(run.draw_calls),
            count(run.instances_drawn),
            count(run.triangles),
            bytes(run.bytes_uploaded),
            run.allocs_per_frame
                .map_or_else(|| "-".to_owned(), |a| count(a.count_median)),
            r(|c| c.cpu_frame_ratio),
            r(|c| c.cpu_grass_ratio),
            r(|c| c.gpu_frame_ratio),
            r(|c| c.gpu_grass_ratio),
            run.hitches,
        );
    }
    let _ = writeln!(
        md,
        "\nRatios are tier / baseline (static-batch+static-chunks) medians from this run; \
         below 1 is faster. CPU thread ms: the render thread's own CPU time per frame (time it \
         ran, not time it waited). Fragments: fragment shader invocations per frame, a GPU work \
         counter (see below). Allocations: heap allocations on the render thread per frame. \
         Hitches: {} (CPU frame, wall clock).",
        crate::stats::hitch_definition()
    );

    render_streaming(&mut md, report);
    crate::memory::render_grass_memory(&mut md, report);
    render_gpu_work(&mut md, report);
    render_clipmap_levels(&mut md, report);
    render_passes(&mut md, report);
    render_cpu_passes(&mut md, report);
    render_cpu_thread_passes(&mut md, report);
    render_thread_tail(&mut md, report);
    render_comparisons(&mut md, report);
    render_links(&mut md, report, charts);
    md
}

/// Tail latency, what streaming the world cost, and the hitches, for runs
/// whose camera path moved the world window (`--path flight`); nothing
/// for other reports.
fn render_streaming(md: &mut String, report: &Report) {
    if report.runs.iter().all(|r| r.streaming.is_none()) {
        return;
    }
    md.push_str("\n## Streaming (the camera path moved the world window)\n\n");
    md.push_str(
        "| tier | mode | CPU frame p99 ms | CPU frame max ms | slides | tiles loaded \
         | tiles evicted | tile data | uploaded by streaming | largest streaming ms in a frame \
         | same, render-thread CPU ms | of it load/apply | of it techniques | techniques in place / rebuilt \
         | tiles prepared on workers / inline | worker queue depth | workers waited for (all / longest ms) \
         | frames missing tiles | worker ms per tile (wall / thread, median / max) | hitches |\n",
    );
    md.push_str(
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
    );
    for run in &report.runs {
        let Some(s) = &run.streaming else { continue };
        let p99 = run
            .cpu_frame_ms
            .p99
            .map_or_else(|| "-".to_owned(), |p| format!("{p:.1}"));
        let _ = writeln!(
            md,
            "| {} | {} | {} | {:.1} | {} | {} | {} | {} | {} | {:.1} | {} | {:.1} | {:.1} | {} / {} | {} / {} | {} | {} | {} | {} | {} |",
            cell(&run.tier.to_string()),
            if s.pace.is_empty() {
                s.mode.clone()
            } else {
                format!("{} ({})", s.mode, s.pace)
            },
            p99,
            run.cpu_frame_ms.max,
            s.slides,
            s.tiles_loaded,
            s.tiles_evicted,
            bytes(s.tile_bytes),
            bytes(s.bytes_uploaded),
            s.max_frame_ms,
            s.max_frame_thread_ms
                .map_or_else(|| "-".to_owned(), |t| format!("{t:.1}")),
            s.max_load_ms,
            s.max_technique_ms,
            s.techniques_applied,
            s.techniques_rebuilt,
            s.prepared_off_thread,
            s.prepared_inline,
            s.max_queue_depth,
            if s.pace == "keep-up" {
                format!("{:.0} / {:.0}", s.worker_wait_ms, s.max_worker_wait_ms)
            } else {
                "-".to_owned()
            },
            s.frames_missing_tiles,
            match (&s.worker_tile_ms, &s.worker_tile_thread_ms) {
                (Some(w), Some(t)) => format!(
                    "{:.1} / {:.1}, {:.1} / {:.1}",
                    w.median, t.median, w.max, t.max
                ),
                (Some(w), None) => format!("{:.1} / -, {:.1} / -", w.median, w.max),
                _ => "-".to_owned(),
            },
            run.hitch_list.len(),
        );
    }
    let _ = write!(
        md,
        "\nHitches: {}, \
         each with its largest named CPU section (`frame.other` is time outside every named \
         section). Clock: `wall` hitches are over the bound in wall time (kind `work` when the \
         render thread's own CPU time is over it too, `wait` when only the wall time is); \
         `thread` hitches are over the bound in the render thread's CPU time, named by its \
         largest section in thread time.\n\n| tier | clock | kind | frame | CPU ms | largest section \
         | section ms |\n|---|---|---|--:|--:|---|--:|\n",
        crate::stats::hitch_definition()
    );
    for run in &report.runs {
        let lists = [
            ("wall", &run.hitch_list),
            ("thread", &run.thread_hitch_list),
        ];
        for (clock, list) in lists {
            for h in list {
                let _ = writeln!(
                    md,
                    "| {} | {clock} | {} | {} | {:.1} | `{}` | {:.1} |",
                    cell(&run.tier.to_string()),
                    h.kind.as_deref().unwrap_or("-"),
                    h.frame,
                    h.cpu_frame_ms,
                    cell(&h.section),
                    h.section_ms
                );
            }
        }
    }
}

/// The frames over 1.5 medians of render-thread CPU time, per run (at most
/// five), with the sections that took longest beyond their median.
fn render_thread_tail(md: &mut String, report: &Report) {
    if report.runs.iter().all(|r| r.thread_tail.is_empty()) {
        return;
    }
    md.push_str(
        "\n## Render-thread tail\n\nFrames over 1.5 times the run's median render-thread CPU \
         time (the bound a p99 target holds the tail to), slowest first, with what each named \
         section took beyond its median over the run (`frame.other`: time outside every named \
         section). A window change shows up as `streaming.*` and the `frame.submit` that \
         carried its copies; a busier view as the draw passes.\n\n| tier | frame | thread ms \
         | x median | beyond the median (ms) |\n|---|--:|--:|--:|---|\n",
    );
    for run in &report.runs {
        for t in run.thread_tail.iter().take(5) {
            let mut excess: Vec<(&String, &f64)> = t.excess_ms.iter().collect();
            excess.sort_by(|a, b| b.1.total_cmp(a.1));
            let parts: Vec<String> = excess
                .iter()
                .take(4)
                .map(|(n, e)| format!("`{}` +{e:.3}", cell(n)))
                .collect();
            let _ = writeln!(
                md,
                "| {} | {} | {:.3} | {:.2} | {} |",
                cell(&run.tier.to_string()),
                t.frame,
                t.thread_ms,
                t.of_median,
                parts.join(", ")
            );
        }
    }
}

/// Per-pass GPU medians: one row per pass, one column per run.
fn render_passes(md: &mut String, report: &Report) {
    if !pass_table(
        md,
        report,
        |r| &r.gpu_pass_ms,
        "GPU time per pass",
        "",
        "pass",
    ) {
        md.push_str("\n## GPU time per pass\n\nNo GPU timestamps were recorded.\n");
    }
}

/// Per-pass and per-step CPU medians: one row per pass closure or named
/// frame step, one column per run (nothing for old reports without them).
fn render_cpu_passes(md: &mut String, report: &Report) {
    pass_table(
        md,
        report,
        |r| &r.cpu_pass_ms,
        "CPU time per pass and frame step",
        "Pass closures by pass name; `frame.record` builds the graph (the techniques' `record`), \
         `frame.setup`, `frame.submit` and `frame.finish` are the executor's own steps. \
         A median is over the frames in which the pass or step ran.\n\n",
        "pass or step",
    );
}

/// The render thread's own CPU time per pass closure and frame step.
fn render_cpu_thread_passes(md: &mut String, report: &Report) {
    pass_table(
        md,
        report,
        |r| &r.cpu_pass_thread_ms,
        "Render-thread CPU time per pass and frame step",
        "The same sections in the render thread's own CPU clock (`CLOCK_THREAD_CPUTIME_ID`): \
         where the wall-clock figure above is much larger, the thread was waiting (for a core, \
         the driver, a lock), not working.\n\n",
        "pass or step",
    );
}

/// The GPU work counters (pipeline statistics): per run, the per-frame
/// medians summed per subsystem and per pass, and each counter's ratio
/// against the baseline.
fn render_gpu_work(md: &mut String, report: &Report) {
    md.push_str("\n## GPU work (pipeline statistics, per-frame medians)\n\n");
    if report.runs.iter().all(|r| r.gpu_work.is_none()) {
        md.push_str("Not recorded: the device has no pipeline statistics queries.\n");
        return;
    }
    let a = &report.adapter;
    let _ = writeln!(
        md,
        "Counted by {} (driver {}). Counters are exact for one driver: the same frame gives the \
         same counts on every run, so their ratios decide a comparison where timers are noisy. \
         What a driver counts differs (early depth, helper invocations, MSAA): compare within \
         one report. RenderDoc and PIX label them as in brackets.\n",
        cell(&a.name),
        cell(&a.driver)
    );
    md.push_str("| tier | passes | frames |");
    for (name, label) in sward_engine::graph::PipelineStats::NAMES {
        let _ = write!(md, " {label} (`{name}`) |");
    }
    md.push_str("\n|---|---|--:|--:|--:|--:|--:|--:|\n");
    for run in &report.runs {
        let Some(w) = &run.gpu_work else { continue };
        let rows = crate::work::SUBSYSTEMS
            .iter()
            .map(|(sub, _)| ((*sub).to_owned(), w.per_subsystem.get(*sub)))
            .chain(w.per_pass.iter().map(|(n, s)| (format!("`{n}`"), Some(s))));
        for (name, stats) in rows {
            let Some(stats) = stats else { continue };
            let _ = write!(
                md,
                "| {} | {} | {} |",
                cell(&run.tier.to_string()),
                cell(&name),
                w.frames
            );
            for v in stats.median.values() {
                let _ = write!(md, " {} |", count(v));
            }
            md.push('\n');
        }
    }
    let with_ratios: Vec<_> = report
        .comparisons
        .iter()
        .filter(|c| !c.gpu_work_ratios.is_empty())
        .collect();
    if with_ratios.is_empty() {
        return;
    }
    md.push_str("\nAgainst the baseline (tier / baseline medians of this run):\n\n| tier |");
    let keys = [
        "grass.vs_invocations",
        "grass.clipper_primitives",
        "grass.fs_invocations",
        "terrain.vs_invocations",
        "terrain.clipper_primitives",
        "frame.fs_invocations",
        "frame.cs_invocations",
    ];
    for k in keys {
        let _ = write!(md, " `{k}` |");
    }
    md.push_str("\n|---|");
    md.push_str(&"--:|".repeat(keys.len()));
    md.push('\n');
    for c in with_ratios {
        let _ = write!(md, "| {} |", cell(&c.tier.to_string()));
        for k in keys {
            let _ = write!(md, " {} |", ratio(c.gpu_work_ratios.get(k).copied()));
        }
        md.push('\n');
    }
}

/// The clipmap's work per level (facts `clipmap_level{L}_parts`,
/// `_triangles`, `_vertices`), read back from each run's screenshot frame:
/// a row per run and level, where any run has them.
fn render_clipmap_levels(md: &mut String, report: &Report) {
    let fact = |run: &crate::report::Run, l: usize, what: &str| {
        run.extra
            .get(&format!("clipmap_level{l}_{what}"))
            .and_then(serde_json::Value::as_f64)
            .map(|v| v as u64)
    };
    let runs: Vec<_> = report
        .runs
        .iter()
        .filter(|r| fact(r, 0, "parts").is_some())
        .collect();
    if runs.is_empty() {
        return;
    }
    md.push_str(
        "\n## Clipmap work per level (the screenshot view's frame)\n\n\
         What the GPU cull drew on each level in the frame of the screenshot view (the same \
         view for every run), read back after the run: parts drawn, the triangles they send to \
         the clipper (clipper in, seams' zero-area triangles included) and their distinct mesh \
         vertices (VS invocations where a driver shades each vertex of an instance once, as \
         llvmpipe does). Over all levels they are that frame's `terrain.clipmap` clipper \
         invocations and, on such a driver, its vertex invocations (a test checks both).\n\n\
         | tier | level | parts | triangles (clipper in) | vertices (VS invocations) |\n\
         |---|--:|--:|--:|--:|\n",
    );
    for run in runs {
        let mut total = [0u64; 3];
        let mut l = 0;
        while let (Some(p), Some(t), Some(v)) = (
            fact(run, l, "parts"),
            fact(run, l, "triangles"),
            fact(run, l, "vertices"),
        ) {
            let _ = writeln!(
                md,
                "| {} | {l} | {} | {} | {} |",
                cell(&run.tier.to_string()),
                count(p),
                count(t),
                count(v)
            );
            for (sum, x) in total.iter_mut().zip([p, t, v]) {
                *sum += x;
            }
            l += 1;
        }
        let _ = writeln!(
            md,
            "| {} | all | {} | {} | {} |",
            cell(&run.tier.to_string()),
            count(total[0]),
            count(total[1]),
            count(total[2])
        );
    }
}

/// One table of per-name medians (p95 in brackets): a row per name any run
/// has in `figures`, a column per run. Returns false (and writes nothing)
/// when no run has any.
fn pass_table(
    md: &mut String,
    report: &Report,
    figures: fn(&Run) -> &BTreeMap<String, Stats>,
    title: &str,
    intro: &str,
    first_column: &str,
) -> bool {
    let mut names: Vec<&str> = report
        .runs
        .iter()
        .flat_map(|r| figures(r).keys().map(String::as_str))
        .collect();
    names.sort_unstable();
    names.dedup();
    if names.is_empty() {
        return false;
    }
    let _ = write!(
        md,
        "\n## {title} (median ms, p95 in brackets)\n\n{intro}| {first_column} |"
    );
    for run in &report.runs {
        let _ = write!(md, " {} |", cell(&run.tier.to_string()));
    }
    md.push_str("\n|---|");
    md.push_str(&"--:|".repeat(report.runs.len()));
    md.push('\n');
    for name in names {
        let _ = write!(md, "| {} |", cell(name));
        for run in &report.runs {
            match figures(run).get(name) {
                Some(s) => {
                    let _ = write!(md, " {:.3} ({:.3}) |", s.median, s.p95);
                }
                None => md.push_str(" - |"),
            }
        }
        md.push('\n');
    }
    true
}

/// Comparison table with image differences.
fn render_comparisons(md: &mut String, report: &Report) {
    md.push_str("\n## Comparisons with the baseline\n\n");
    if report.comparisons.is_empty() {
        md.push_str("Only the baseline was run.\n");
        return;
    }
    md.push_str(
        "| tier | baseline | CPU frame | CPU grass | GPU frame | GPU grass | image RMSE (0-255) \
         | differing pixels |\n|---|---|--:|--:|--:|--:|--:|--:|\n",
    );
    for c in &report.comparisons {
        let (rmse, frac) = c.image_diff.map_or(("-".to_owned(), "-".to_owned()), |d| {
            (
                format!("{:.2}", d.rmse),
                format!("{:.2} %", 100.0 * d.differing_pixels_fraction),
            )
        });
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {rmse} | {frac} |",
            cell(&c.tier.to_string()),
            cell(&c.baseline.to_string()),
            ratio(c.cpu_frame_ratio),
            ratio(c.cpu_grass_ratio),
            ratio(c.gpu_frame_ratio),
            ratio(c.gpu_grass_ratio),
        );
    }
}

/// Links to charts, screenshots and configuration notes.
fn render_links(md: &mut String, report: &Report, charts: &[Chart]) {
    if !charts.is_empty() {
        md.push_str("\n## Charts\n\n");
        for c in charts {
            let _ = writeln!(md, "![{}]({})\n", cell(&c.title), link(&c.file));
        }
    }
    let shots: Vec<_> = report
        .runs
        .iter()
        .filter_map(|r| r.image.as_ref().map(|i| (r, i)))
        .collect();
    if !shots.is_empty() {
        md.push_str("\n## Screenshots\n\n| tier | screenshot |\n|---|---|\n");
        for (run, image) in shots {
            let _ = writeln!(
                md,
                "| {} | [{}]({}) |",
                cell(&run.tier.to_string()),
                cell(image),
                link(image)
            );
        }
    }
    let extras: Vec<_> = report.runs.iter().filter(|r| !r.extra.is_empty()).collect();
    if !report.config.is_empty() || !extras.is_empty() {
        md.push_str("\n## Configuration\n\n");
        for (k, v) in &report.config {
            let _ = writeln!(md, "- `{k}`: {}", cell(&v.to_string()));
        }
        for run in extras {
            for (k, v) in &run.extra {
                let _ = writeln!(
                    md,
                    "- {} `{k}`: {}",
                    cell(&run.tier.to_string()),
                    cell(&v.to_string())
                );
            }
        }
    }
}

/// A plain-text headline table for the terminal (fixed-width columns).
pub fn headline_text(report: &Report) -> String {
    let header = [
        "tier",
        "cpu ms",
        "grass ms",
        "gpu ms",
        "gpu grass",
        "thread ms",
        "fragments",
        "allocs",
        "draws",
        "drawn",
        "tris",
        "upload",
        "cpu x",
        "gpu x",
    ];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|s| (*s).to_owned()).collect()];
    for run in &report.runs {
        let c = comparison_of(report, run);
        let (cpu_x, gpu_x) = if run.tier.is_baseline() {
            ("base".to_owned(), "base".to_owned())
        } else {
            (
                ratio(c.and_then(|c| c.cpu_frame_ratio)),
                ratio(c.and_then(|c| c.gpu_frame_ratio)),
            )
        };
        rows.push(vec![
            run.tier.to_string(),
            ms(Some(&run.cpu_frame_ms)),
            ms(Some(&run.cpu_grass_ms)),
            ms(run.gpu_frame_ms.as_ref()),
            ms(run.gpu_grass_ms.as_ref()),
            ms(run.cpu_frame_thread_ms.as_ref()),
            run.gpu_work
                .as_ref()
                .and_then(|w| w.median("frame"))
                .map_or_else(|| "-".to_owned(), |m| count(m.fs_invocations)),
            run.allocs_per_frame
                .map_or_else(|| "-".to_owned(), |a| count(a.count_median)),
            count(run.draw_calls),
            count(run.instances_drawn),
            count(run.triangles),
            bytes(run.bytes_uploaded),
            cpu_x,
            gpu_x,
        ]);
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in &rows {
        let mut line = String::new();
        for (i, v) in row.iter().enumerate() {
            if i == 0 {
                let _ = write!(line, "{v:<w$}", w = widths[i]);
            } else {
                let _ = write!(line, "  {v:>w$}", w = widths[i]);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    for r in &report.refused {
        let _ = writeln!(out, "{} refused (not measured): {}", r.tier, r.reason);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::sample_report;

    #[test]
    fn helpers_format_as_documented() {
        assert_eq!(count(465_524), "465,524");
        assert_eq!(count(999), "999");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(3 * 1024 * 1024 / 2), "1.5 MiB");
        assert_eq!(ratio(None), "-");
        assert_eq!(ratio(Some(0.4)), "0.40x");
    }

    #[test]
    fn report_md_has_a_row_per_run_with_its_figures() {
        let report = sample_report();
        let charts = [Chart {
            file: "frame_times.svg".to_owned(),
            title: "Frame time".to_owned(),
        }];
        let md = render(&report, &charts);
        assert!(md.contains("| msaa | 4x |"), "{md}");
        assert!(md.contains("| indirect validation | off |"));
        for run in &report.runs {
            let row_start = format!("| {} | {:.3} |", run.tier, run.cpu_frame_ms.median);
            assert!(md.contains(&row_start), "missing {row_start} in\n{md}");
        }
        let fast = &report.comparisons[0];
        assert!(md.contains(&format!("{:.2}x", fast.cpu_frame_ratio.unwrap())));
        assert!(md.contains("| grass.cull |"));
        assert!(md.contains("![Frame time](frame_times.svg)"));
        assert!(md.contains("(gpu-cull+gpu-cull.png)"));
        assert!(
            md.contains("| 2.00 | 0.30 % |"),
            "image diff row missing:\n{md}"
        );
        assert!(md.contains("CPU (software) rasterizer"));
    }

    #[test]
    fn the_thread_tail_is_rendered_only_where_a_run_has_one() {
        let mut report = sample_report();
        assert!(!render(&report, &[]).contains("## Render-thread tail"));
        report.runs[0].thread_tail = vec![crate::tail::TailFrame {
            frame: 17,
            thread_ms: 0.9,
            of_median: 2.25,
            excess_ms: [
                ("frame.submit".to_owned(), 0.18),
                ("streaming.techniques".to_owned(), 0.31),
            ]
            .into(),
        }];
        let md = render(&report, &[]);
        assert!(md.contains("## Render-thread tail"), "{md}");
        let row = format!(
            "| {} | 17 | 0.900 | 2.25 | `streaming.techniques` +0.310, `frame.submit` +0.180 |",
            report.runs[0].tier
        );
        assert!(md.contains(&row), "missing {row} in\n{md}");
    }

    #[test]
    fn terminal_table_aligns_columns() {
        let report = sample_report();
        let text = headline_text(&report);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + report.runs.len());
        assert!(lines[0].starts_with("tier"));
        assert!(text.contains("base"));
        // Right-aligned numeric columns: every row ends at the same width.
        let widths: Vec<usize> = lines.iter().map(|l| l.chars().count()).collect();
        assert!(widths.iter().all(|&w| w == widths[0]), "{text}");
    }
}
