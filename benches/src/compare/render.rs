//! A comparison as text: the terminal headline and `compare.md`.

use std::fmt::Write as _;

use crate::charts::Chart;
use crate::markdown::{cell, count, link};

use super::{BuildComparison, CounterChange, RunChange, TimerChange, Verdict};

/// Changed counters the terminal lists before pointing to `compare.md`.
const TERMINAL_CHANGES: usize = 30;

/// The short names of the three timers, in [`super::TimerChange`] order.
fn timer_title(figure: &str) -> &'static str {
    match figure {
        "cpu_frame_ms" => "cpu frame",
        "cpu_frame_thread_ms" => "thread",
        _ => "gpu frame",
    }
}

/// `0.93 [0.84, 1.04] no change`, or the medians without an interval.
fn timer_cell(t: &TimerChange) -> String {
    match &t.interval {
        Some(i) => format!(
            "{:.2} [{:.2}, {:.2}] {}",
            i.ratio,
            i.low,
            i.high,
            i.verdict.word()
        ),
        None => format!(
            "{:.3} -> {:.3} ms (no per-frame samples)",
            t.before_ms, t.after_ms
        ),
    }
}

fn counters_cell(r: &RunChange) -> String {
    match r.changed().count() {
        0 => "no change".to_owned(),
        1 => "1 changed".to_owned(),
        n => format!("{n} changed"),
    }
}

fn image_cell(r: &RunChange) -> String {
    match (&r.image, &r.image_note) {
        (Some(i), _) if i.pixels_changed == 0 => "identical".to_owned(),
        (Some(i), _) => format!("{} px, rmse {:.2}", count(i.pixels_changed), i.rmse),
        (None, _) => "-".to_owned(),
    }
}

fn value(v: Option<u64>) -> String {
    v.map_or_else(|| "absent".to_owned(), count)
}

/// `93,748 -> 187,496 (2.00x)`.
fn change_text(c: &CounterChange) -> String {
    let ratio = match (c.before, c.after) {
        (Some(b), Some(a)) if b > 0 => format!(" ({:.2}x)", a as f64 / b as f64),
        _ => String::new(),
    };
    format!("{} -> {}{ratio}", value(c.before), value(c.after))
}

/// The counter's name within its pass (`vs_invocations` of `grass.draw`).
fn counter_name(c: &CounterChange) -> &str {
    match &c.pass {
        Some(p) => c
            .figure
            .strip_prefix(p.as_str())
            .map_or(c.figure.as_str(), |s| s.trim_start_matches('.')),
        None => &c.figure,
    }
}

fn header(c: &BuildComparison) -> String {
    let mut s = String::new();
    for (side, r) in [("before", &c.before), ("after", &c.after)] {
        let _ = writeln!(
            s,
            "{side:<7} {} (sward {}, {}, {})",
            r.dir, r.sward_version, r.adapter.name, r.adapter.driver
        );
    }
    let _ = writeln!(
        s,
        "{}, {}x{}, msaa {}, {} frames; timers: after/before, {:.0}% interval (paired bootstrap of the median ratio, {} resamples), no change within +-{:.0}%",
        c.preset,
        c.size[0],
        c.size[1],
        c.msaa,
        c.frames,
        100.0 * c.method.confidence,
        c.method.resamples,
        100.0 * c.method.noise
    );
    s
}

fn totals_text(c: &BuildComparison) -> String {
    let t = &c.totals;
    let counters = if t.counters_changed == 0 {
        format!("counters: no change in {} runs", t.runs)
    } else {
        format!(
            "counters: {} changed in {} of {} runs",
            t.counters_changed, t.runs_with_counter_changes, t.runs
        )
    };
    let images = if t.images_changed == 0 {
        "images: identical".to_owned()
    } else {
        format!("images: {} of {} runs differ", t.images_changed, t.runs)
    };
    format!(
        "{counters}; timers: {} faster, {} slower, {} no change; {images}\n",
        t.timers_faster, t.timers_slower, t.timers_no_change
    )
}

/// The terminal's view: header, one row per run, the changed counters, the
/// warnings and the totals.
pub fn headline_text(c: &BuildComparison) -> String {
    let mut out = header(c);
    out.push('\n');
    let titles = [
        "run",
        "counters",
        "cpu frame",
        "thread",
        "gpu frame",
        "image",
    ];
    let mut rows: Vec<Vec<String>> = vec![titles.iter().map(|s| (*s).to_owned()).collect()];
    for r in &c.runs {
        let mut row = vec![format!("{}", r.tier), counters_cell(r)];
        for fig in ["cpu_frame_ms", "cpu_frame_thread_ms", "gpu_frame_ms"] {
            row.push(
                r.timers
                    .iter()
                    .find(|t| t.figure == fig)
                    .map_or("-".to_owned(), timer_cell),
            );
        }
        row.push(image_cell(r));
        rows.push(row);
    }
    let widths: Vec<usize> = (0..titles.len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    for row in &rows {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, v)| format!("{v:<w$}", w = widths[i]))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    let changes: Vec<String> = c
        .runs
        .iter()
        .flat_map(|r| {
            r.changed().map(move |ch| {
                let pass = ch.pass.as_deref().unwrap_or("run");
                format!(
                    "  {} [{pass}] {}: {}",
                    r.tier,
                    counter_name(ch),
                    change_text(ch)
                )
            })
        })
        .collect();
    if !changes.is_empty() {
        out.push_str("\nchanged counters (run [pass] counter: before -> after):\n");
        for line in changes.iter().take(TERMINAL_CHANGES) {
            out.push_str(line);
            out.push('\n');
        }
        if changes.len() > TERMINAL_CHANGES {
            let _ = writeln!(
                out,
                "  ... {} more in compare.md",
                changes.len() - TERMINAL_CHANGES
            );
        }
    }
    for r in &c.only_before {
        let _ = writeln!(out, "only in before: {r}");
    }
    for r in &c.only_after {
        let _ = writeln!(out, "only in after: {r}");
    }
    for w in &c.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out.push_str(&totals_text(c));
    out
}

/// `compare.md`: the same as tables, with the diff images and charts linked.
pub fn markdown(c: &BuildComparison, charts: &[Chart]) -> String {
    let mut md = String::from("# Before and after\n\n");
    md.push_str("| | before | after |\n|---|---|---|\n");
    let _ = writeln!(
        md,
        "| report | `{}` | `{}` |",
        cell(&c.before.dir),
        cell(&c.after.dir)
    );
    let _ = writeln!(
        md,
        "| sward | {} | {} |",
        c.before.sward_version, c.after.sward_version
    );
    let _ = writeln!(
        md,
        "| adapter | {} | {} |",
        cell(&c.before.adapter.name),
        cell(&c.after.adapter.name)
    );
    let _ = writeln!(
        md,
        "| driver | {} | {} |",
        cell(&c.before.adapter.driver),
        cell(&c.after.adapter.driver)
    );
    let _ = writeln!(
        md,
        "\nPreset `{}`, {}x{}, MSAA {}, {} measured frames per run. Timers are after/before ratios of the medians with a {:.0}% interval from a paired bootstrap over the per-frame samples ({} resamples); a verdict is \"no change\" when the interval holds 1 or lies within 1 +- {}. Counters are exact on one driver: any difference is a change.\n",
        c.preset,
        c.size[0],
        c.size[1],
        c.msaa,
        c.frames,
        100.0 * c.method.confidence,
        c.method.resamples,
        c.method.noise
    );
    let _ = writeln!(md, "**{}**", totals_text(c).trim_end());
    if !c.warnings.is_empty() {
        md.push_str("\n## Warnings\n\n");
        for w in &c.warnings {
            let _ = writeln!(md, "- {}", cell(w));
        }
    }
    md.push_str("\n## Runs\n\n| run | at | counters | cpu frame | thread | gpu frame | image |\n|---|---|---|---|---|---|---|\n");
    for r in &c.runs {
        let timers: Vec<String> = ["cpu_frame_ms", "cpu_frame_thread_ms", "gpu_frame_ms"]
            .iter()
            .map(|f| {
                r.timers
                    .iter()
                    .find(|t| t.figure == *f)
                    .map_or("-".to_owned(), timer_cell)
            })
            .collect();
        let image = match r.image.as_ref().and_then(|i| i.diff_image.as_ref()) {
            Some(file) => format!("[{}]({})", image_cell(r), link(file)),
            None => image_cell(r),
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} |",
            cell(&r.tier.to_string()),
            cell(&r.at),
            counters_cell(r),
            timers[0],
            timers[1],
            timers[2],
            cell(&image)
        );
    }
    let changed: Vec<(&RunChange, &CounterChange)> = c
        .runs
        .iter()
        .flat_map(|r| r.changed().map(move |ch| (r, ch)))
        .collect();
    if !changed.is_empty() {
        md.push_str("\n## Changed counters\n\n| run | pass | counter | before | after | after/before |\n|---|---|---|--:|--:|--:|\n");
        for (r, ch) in changed {
            let ratio = match (ch.before, ch.after) {
                (Some(b), Some(a)) if b > 0 => format!("{:.3}x", a as f64 / b as f64),
                _ => "-".to_owned(),
            };
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {ratio} |",
                cell(&r.tier.to_string()),
                ch.pass.as_deref().unwrap_or("(run)"),
                counter_name(ch),
                value(ch.before),
                value(ch.after)
            );
        }
    }
    md.push_str("\n## Timers\n\n| run | timer | before ms | after ms | after/before | interval | verdict |\n|---|---|--:|--:|--:|---|---|\n");
    for r in &c.runs {
        for t in &r.timers {
            let (ratio, interval, verdict) = match &t.interval {
                Some(i) => (
                    format!("{:.3}", i.ratio),
                    format!("[{:.3}, {:.3}]", i.low, i.high),
                    i.verdict,
                ),
                None => ("-".to_owned(), "-".to_owned(), Verdict::Undecided),
            };
            let _ = writeln!(
                md,
                "| {} | {} | {:.3} | {:.3} | {ratio} | {interval} | {} |",
                cell(&r.tier.to_string()),
                timer_title(&t.figure),
                t.before_ms,
                t.after_ms,
                verdict.word()
            );
        }
    }
    let notes: Vec<&RunChange> = c.runs.iter().filter(|r| r.image_note.is_some()).collect();
    if !notes.is_empty() {
        md.push_str("\n## Screenshots not compared\n\n");
        for r in notes {
            let _ = writeln!(
                md,
                "- {}: {}",
                cell(&r.tier.to_string()),
                cell(r.image_note.as_deref().unwrap_or(""))
            );
        }
    }
    if !c.only_before.is_empty() || !c.only_after.is_empty() {
        md.push_str("\n## Unmatched runs\n\n");
        for r in &c.only_before {
            let _ = writeln!(md, "- only in before: {}", cell(r));
        }
        for r in &c.only_after {
            let _ = writeln!(md, "- only in after: {}", cell(r));
        }
    }
    if !charts.is_empty() {
        md.push_str("\n## Charts\n\n");
        for ch in charts {
            let _ = writeln!(md, "![{}]({})\n", ch.title, link(&ch.file));
        }
    }
    md
}
