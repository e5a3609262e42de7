//! Grass GPU memory per placement in a bench report: the facts every run
//! carries (`grass.gpu_memory_bytes`, the grass technique's own GPU memory
//! with the shared detail models it draws; `grass.bytes_per_placement`,
//! that over the scene's placements) and the `report.md` section listing
//! them per grass tier. `sward scale` tabulates the same figure across
//! scales.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::numbers::{bytes, count};
use crate::report::Report;

/// Fact: the grass technique's GPU memory (bytes).
pub const GRASS_MEMORY: &str = "grass.gpu_memory_bytes";
/// Fact: [`GRASS_MEMORY`] per placement of the scene (bytes).
pub const GRASS_BYTES_PER_PLACEMENT: &str = "grass.bytes_per_placement";

/// The grass memory facts of a run whose grass technique holds `bytes`
/// on a scene of `placements` placements.
pub fn grass_memory_facts(bytes: u64, placements: u64) -> BTreeMap<String, f64> {
    let mut f = BTreeMap::new();
    f.insert(GRASS_MEMORY.to_owned(), bytes as f64);
    f.insert(
        GRASS_BYTES_PER_PLACEMENT.to_owned(),
        bytes as f64 / placements.max(1) as f64,
    );
    f
}

/// The "Grass GPU memory" section: per run with a grass tier, its grass
/// GPU memory and that per placement (nothing when no run carries the
/// facts, as in reports written before them).
pub fn render_grass_memory(md: &mut String, report: &Report) {
    let fact = |run: &crate::report::Run, key: &str| {
        run.extra.get(key).and_then(serde_json::Value::as_f64)
    };
    let rows: Vec<_> = report
        .runs
        .iter()
        .filter(|r| r.tier.grass != "off")
        .filter_map(|r| {
            Some((
                r.tier.to_string(),
                fact(r, GRASS_MEMORY)?,
                fact(r, GRASS_BYTES_PER_PLACEMENT)?,
            ))
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    md.push_str("\n## Grass GPU memory\n\n");
    let _ = writeln!(
        md,
        "The grass technique's own GPU memory (the shared detail models it draws included) \
         and that per placement of the scene ({} placements); `sward scale` measures it \
         across scales.\n",
        count(report.scene.placements)
    );
    md.push_str("| tier | grass GPU memory | per placement |\n|---|--:|--:|\n");
    for (tier, total, per) in rows {
        let _ = writeln!(md, "| {tier} | {} | {per:.1} B |", bytes(total as u64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_lists_each_grass_tier_per_placement() {
        let mut report = crate::testutil::sample_report();
        let mut md = String::new();
        render_grass_memory(&mut md, &report);
        assert!(md.is_empty(), "no facts, no section: {md}");
        let placements = report.scene.placements;
        for (i, run) in report.runs.iter_mut().enumerate() {
            let bytes = 1_000_000 * (i as u64 + 1);
            for (k, v) in grass_memory_facts(bytes, placements) {
                run.extra.insert(k, v.into());
            }
        }
        render_grass_memory(&mut md, &report);
        let first = &report.runs[0];
        let per = 1_000_000.0 / placements as f64;
        assert!(
            md.contains(&format!("| {} | 976.6 KiB | {per:.1} B |", first.tier)),
            "{md}"
        );
        assert_eq!(md.matches("\n| ").count(), report.runs.len() + 1);
    }
}
