//! Checks that a `report.json` value follows schema `sward-bench/1` and is
//! internally consistent: required fields with the right types, sane statistics,
//! exactly one comparison per non-baseline run, and every ratio equal to the runs'
//! medians divided (so a copied or stale ratio is caught). Unknown extra fields are
//! allowed. Works on raw JSON so it also judges reports this crate did not write.

use serde_json::{Map, Value};

use crate::assemble::ratio;
use crate::report::{BASELINE_GRASS, BASELINE_TERRAIN, SCHEMA};

/// Relative tolerance for a ratio to match the medians it claims to divide.
pub const RATIO_TOLERANCE: f64 = 1e-6;

/// Collects problems with their JSON path.
struct Checker {
    problems: Vec<String>,
}

impl Checker {
    fn fail(&mut self, path: &str, msg: impl std::fmt::Display) {
        self.problems.push(format!("{path}: {msg}"));
    }

    /// `obj[key]`, or a "missing" problem.
    fn field<'v>(
        &mut self,
        obj: &'v Map<String, Value>,
        path: &str,
        key: &str,
    ) -> Option<&'v Value> {
        let v = obj.get(key);
        if v.is_none() {
            self.fail(&format!("{path}.{key}"), "missing");
        }
        v
    }

    fn object<'v>(&mut self, v: Option<&'v Value>, path: &str) -> Option<&'v Map<String, Value>> {
        let v = v?;
        let o = v.as_object();
        if o.is_none() {
            self.fail(path, format!("expected an object, found {}", kind(v)));
        }
        o
    }

    fn string<'v>(
        &mut self,
        obj: &'v Map<String, Value>,
        path: &str,
        key: &str,
    ) -> Option<&'v str> {
        let v = self.field(obj, path, key)?;
        let s = v.as_str();
        if s.is_none() {
            self.fail(
                &format!("{path}.{key}"),
                format!("expected a string, found {}", kind(v)),
            );
        }
        s
    }

    fn uint(&mut self, obj: &Map<String, Value>, path: &str, key: &str) -> Option<u64> {
        let v = self.field(obj, path, key)?;
        let n = v.as_u64();
        if n.is_none() {
            self.fail(
                &format!("{path}.{key}"),
                format!("expected a non-negative integer, found {v}"),
            );
        }
        n
    }

    /// A `{median, p95, min, max, mean}` object (or `null` when `nullable`).
    /// Returns the median.
    fn stats(&mut self, v: Option<&Value>, path: &str, nullable: bool) -> Option<f64> {
        let v = v?;
        if v.is_null() && nullable {
            return None;
        }
        let o = self.object(Some(v), path)?;
        let mut get = |key: &str| {
            let x = self.field(o, path, key)?;
            match x.as_f64().filter(|f| f.is_finite() && *f >= 0.0) {
                Some(f) => Some(f),
                None => {
                    self.fail(
                        &format!("{path}.{key}"),
                        format!("expected a number >= 0, found {x}"),
                    );
                    None
                }
            }
        };
        let (median, p95, min, max, mean) = (
            get("median"),
            get("p95"),
            get("min"),
            get("max"),
            get("mean"),
        );
        let (median, p95, min, max, mean) = (median?, p95?, min?, max?, mean?);
        let eps = 1e-9 * max.abs().max(1.0);
        for (name, value) in [("median", median), ("p95", p95), ("mean", mean)] {
            if value < min - eps || value > max + eps {
                self.fail(
                    path,
                    format!("{name} {value} lies outside [min {min}, max {max}]"),
                );
            }
        }
        if p95 < median - eps {
            self.fail(path, format!("p95 {p95} is below the median {median}"));
        }
        // Optional: reports written before it was recorded lack it.
        if let Some(x) = o.get("p99") {
            match x.as_f64().filter(|f| f.is_finite()) {
                Some(p99) if p99 >= p95 - eps && p99 <= max + eps => {}
                _ => self.fail(
                    &format!("{path}.p99"),
                    format!("expected a number in [p95 {p95}, max {max}], found {x}"),
                ),
            }
        }
        Some(median)
    }
}

impl Checker {
    /// `obj[key]` checked as a stats object; returns its median.
    fn stats_field(
        &mut self,
        obj: &Map<String, Value>,
        path: &str,
        key: &str,
        nullable: bool,
    ) -> Option<f64> {
        let v = self.field(obj, path, key);
        self.stats(v, &format!("{path}.{key}"), nullable)
    }

    /// `obj[key]` checked as an object.
    fn object_field<'v>(
        &mut self,
        obj: &'v Map<String, Value>,
        path: &str,
        key: &str,
    ) -> Option<&'v Map<String, Value>> {
        let v = self.field(obj, path, key);
        self.object(v, &format!("{path}.{key}"))
    }

    /// `obj[key]` checked as a `{grass, terrain, params?}` tier.
    fn tier_field(&mut self, obj: &Map<String, Value>, path: &str, key: &str) -> Option<TierKey> {
        let v = self.field(obj, path, key);
        let path = format!("{path}.{key}");
        let o = self.object(v, &path)?;
        let grass = self.string(o, &path, "grass")?.to_owned();
        let terrain = self.string(o, &path, "terrain")?.to_owned();
        let params = match o.get("params") {
            None | Some(Value::Null) => None,
            Some(p @ Value::Object(_)) => Some(p.to_string()),
            Some(other) => {
                self.fail(
                    &format!("{path}.params"),
                    format!("expected an object, found {}", kind(other)),
                );
                None
            }
        };
        Some(TierKey {
            grass,
            terrain,
            params,
        })
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Which combination a run or comparison is: runs of one technique with
/// different parameters are different combinations.
#[derive(Default, Clone, PartialEq)]
struct TierKey {
    grass: String,
    terrain: String,
    /// The `params` object as JSON text, when present.
    params: Option<String>,
}

impl TierKey {
    fn is_baseline(&self) -> bool {
        self.grass == BASELINE_GRASS && self.terrain == BASELINE_TERRAIN && self.params.is_none()
    }
}

impl std::fmt::Display for TierKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}+{}", self.grass, self.terrain)?;
        match &self.params {
            Some(p) => write!(f, " {p}"),
            None => Ok(()),
        }
    }
}

/// Medians of one run that comparisons divide.
#[derive(Default)]
struct RunMedians {
    tier: TierKey,
    cpu_frame: Option<f64>,
    cpu_grass: Option<f64>,
    gpu_frame: Option<f64>,
    gpu_grass: Option<f64>,
}

/// Validates a parsed `report.json`; `Err` lists every problem found, each with
/// its JSON path.
pub fn validate_report(report: &Value) -> Result<(), Vec<String>> {
    let mut c = Checker {
        problems: Vec::new(),
    };
    let Some(top) = c.object(Some(report), "$") else {
        return Err(c.problems);
    };
    if let Some(schema) = c.string(top, "$", "schema") {
        if schema != SCHEMA {
            c.fail("$.schema", format!("expected {SCHEMA:?}, found {schema:?}"));
        }
    }
    c.string(top, "$", "sward_version");
    c.string(top, "$", "preset");
    if let Some(adapter) = c.object_field(top, "$", "adapter") {
        for key in ["name", "backend", "device_type", "driver"] {
            c.string(adapter, "$.adapter", key);
        }
    }
    match c.field(top, "$", "size").map(|v| (v, v.as_array())) {
        Some((_, Some(a)))
            if a.len() == 2 && a.iter().all(|x| x.as_u64().is_some_and(|n| n > 0)) => {}
        Some((v, _)) => c.fail(
            "$.size",
            format!("expected [width, height] of positive integers, found {v}"),
        ),
        None => {}
    }
    if let Some(msaa) = c.uint(top, "$", "msaa") {
        if msaa != 1 && msaa != 4 {
            c.fail("$.msaa", format!("expected 1 or 4, found {msaa}"));
        }
    }
    let frames = c.uint(top, "$", "frames");
    if frames == Some(0) {
        c.fail("$.frames", "no measured frames");
    }
    c.uint(top, "$", "warmup");
    if let Some(scene) = c.object_field(top, "$", "scene") {
        for key in ["adts", "mcnks", "placements", "models", "triangles_terrain"] {
            c.uint(scene, "$.scene", key);
        }
        // Optional: every detail model's texture went one of three ways.
        if scene.contains_key("textures") {
            if let Some(t) = c.object_field(scene, "$.scene", "textures") {
                let ways: Vec<Option<u64>> = ["bc", "decoded", "rgba"]
                    .iter()
                    .map(|k| c.uint(t, "$.scene.textures", k))
                    .collect();
                let models = scene.get("models").and_then(Value::as_u64);
                if let (Some(sum), Some(models)) = (ways.into_iter().sum::<Option<u64>>(), models) {
                    if sum != models {
                        c.fail(
                            "$.scene.textures",
                            format!("bc + decoded + rgba = {sum}, but there are {models} models"),
                        );
                    }
                }
            }
        }
    }
    if let Some(config) = top.get("config") {
        c.object(Some(config), "$.config");
    }

    let runs = check_runs(&mut c, top, frames);
    check_comparisons(&mut c, top, &runs);
    if c.problems.is_empty() {
        Ok(())
    } else {
        Err(c.problems)
    }
}

fn check_runs(c: &mut Checker, top: &Map<String, Value>, frames: Option<u64>) -> Vec<RunMedians> {
    let mut out = Vec::new();
    let Some(runs) = c.field(top, "$", "runs") else {
        return out;
    };
    let Some(runs) = runs.as_array() else {
        c.fail("$.runs", format!("expected an array, found {}", kind(runs)));
        return out;
    };
    if runs.is_empty() {
        c.fail("$.runs", "no runs");
    }
    for (i, run) in runs.iter().enumerate() {
        let path = format!("$.runs[{i}]");
        let Some(o) = c.object(Some(run), &path) else {
            continue;
        };
        let tier = c.tier_field(o, &path, "tier");
        let mut m = RunMedians::default();
        let p = |k: &str| format!("{path}.{k}");
        m.cpu_frame = c.stats_field(o, &path, "cpu_frame_ms", false);
        m.cpu_grass = c.stats_field(o, &path, "cpu_grass_ms", false);
        c.stats_field(o, &path, "cpu_terrain_ms", false);
        m.gpu_frame = c.stats_field(o, &path, "gpu_frame_ms", true);
        // Optional extension fields behind gpu_grass_ratio.
        m.gpu_grass = c.stats(o.get("gpu_grass_ms"), &p("gpu_grass_ms"), true);
        c.stats(o.get("gpu_terrain_ms"), &p("gpu_terrain_ms"), true);
        if let Some(passes) = c.object_field(o, &path, "gpu_pass_ms") {
            for (name, s) in passes {
                c.stats(Some(s), &format!("{path}.gpu_pass_ms.{name}"), false);
            }
        }
        for key in [
            "draw_calls",
            "instances_submitted",
            "instances_drawn",
            "triangles",
            "bytes_uploaded",
            "gpu_memory_bytes",
        ] {
            c.uint(o, &path, key);
        }
        if let (Some(h), Some(f)) = (c.uint(o, &path, "hitches"), frames) {
            if h > f {
                c.fail(&p("hitches"), format!("{h} hitches in {f} frames"));
            }
        }
        if let Some(image) = c.field(o, &path, "image") {
            match image {
                Value::Null => {}
                Value::String(s) if !s.is_empty() && !s.contains(['/', '\\']) => {}
                other => c.fail(
                    &p("image"),
                    format!("expected a file name or null, found {other}"),
                ),
            }
        }
        if let Some(series) = o.get("frame_series") {
            check_series(c, series, &p("frame_series"), frames);
        }
        if let Some(list) = o.get("hitch_list") {
            check_hitch_list(c, list, &p("hitch_list"), frames);
        }
        if let Some(list) = o.get("thread_tail") {
            check_thread_tail(c, list, &p("thread_tail"), frames);
        }
        if let Some(streaming) = o.get("streaming") {
            check_streaming(c, streaming, &p("streaming"), frames);
        }
        if let Some(tier) = tier {
            if out.iter().any(|r: &RunMedians| r.tier == tier) {
                c.fail(&path, format!("tier {tier} appears more than once"));
            }
            m.tier = tier;
            out.push(m);
        }
    }
    out
}

/// A list of per-frame entries (`hitch_list`, `thread_tail`): an array of
/// objects, each naming a measured frame (`frame` below `frames`), then
/// checked by `entry` (its object and path).
fn check_frame_entries(
    c: &mut Checker,
    list: &Value,
    path: &str,
    frames: Option<u64>,
    mut entry: impl FnMut(&mut Checker, &Map<String, Value>, &str),
) {
    let Some(list) = list.as_array() else {
        c.fail(path, format!("expected an array, found {}", kind(list)));
        return;
    };
    for (i, e) in list.iter().enumerate() {
        let path = format!("{path}[{i}]");
        let Some(o) = c.object(Some(e), &path) else {
            continue;
        };
        if let (Some(f), Some(n)) = (c.uint(o, &path, "frame"), frames) {
            if f >= n {
                c.fail(&format!("{path}.frame"), format!("frame {f} of {n}"));
            }
        }
        entry(c, o, &path);
    }
}

/// `hitch_list`: frames (each measured) with a CPU time and their largest
/// named section, which cannot exceed the frame.
fn check_hitch_list(c: &mut Checker, list: &Value, path: &str, frames: Option<u64>) {
    check_frame_entries(c, list, path, frames, |c, o, path| {
        c.string(o, path, "section");
        let num = |c: &mut Checker, key: &str| {
            let v = c.field(o, path, key)?;
            let f = v.as_f64().filter(|f| f.is_finite() && *f >= 0.0);
            if f.is_none() {
                c.fail(
                    &format!("{path}.{key}"),
                    format!("expected a number >= 0, found {v}"),
                );
            }
            f
        };
        if let (Some(t), Some(s)) = (num(c, "cpu_frame_ms"), num(c, "section_ms")) {
            if s > t * (1.0 + 1e-9) + 1e-9 {
                c.fail(path, format!("section {s} ms exceeds the frame's {t} ms"));
            }
        }
    });
}

/// `thread_tail`: measured frames over 1.5 medians of thread time, each
/// with its time, its ratio to the median (over 1.5) and its sections'
/// excess times (numbers).
fn check_thread_tail(c: &mut Checker, list: &Value, path: &str, frames: Option<u64>) {
    check_frame_entries(c, list, path, frames, |c, o, path| {
        for (key, min) in [("thread_ms", 0.0), ("of_median", crate::tail::TAIL_FACTOR)] {
            if let Some(v) = c.field(o, path, key) {
                if !v.as_f64().is_some_and(|f| f.is_finite() && f >= min) {
                    c.fail(
                        &format!("{path}.{key}"),
                        format!("expected a number >= {min}, found {v}"),
                    );
                }
            }
        }
        if let Some(excess) = c.object_field(o, path, "excess_ms") {
            if excess
                .values()
                .any(|v| !v.as_f64().is_some_and(f64::is_finite))
            {
                c.fail(&format!("{path}.excess_ms"), "expected numbers".to_owned());
            }
        }
    });
}

/// `streaming`: counts, bytes and the frames where the window slid.
fn check_streaming(c: &mut Checker, v: &Value, path: &str, frames: Option<u64>) {
    let Some(o) = c.object(Some(v), path) else {
        return;
    };
    c.string(o, path, "mode");
    let slides = c.uint(o, path, "slides");
    for key in [
        "tiles_loaded",
        "tiles_evicted",
        "tile_bytes",
        "bytes_uploaded",
        "max_queue_depth",
    ] {
        c.uint(o, path, key);
    }
    if let Some(v) = c.field(o, path, "max_frame_ms") {
        if !v.as_f64().is_some_and(|f| f.is_finite() && f >= 0.0) {
            c.fail(
                &format!("{path}.max_frame_ms"),
                format!("expected a number >= 0, found {v}"),
            );
        }
    }
    // Recorded since the pace existed: optional, checked when present.
    if let Some(v) = o.get("pace") {
        if !matches!(v.as_str(), Some("" | "keep-up" | "free")) {
            c.fail(
                &format!("{path}.pace"),
                format!("expected \"keep-up\", \"free\" or \"\", found {v}"),
            );
        }
    }
    for key in ["worker_wait_ms", "max_worker_wait_ms"] {
        if let Some(v) = o.get(key) {
            if !v.as_f64().is_some_and(|f| f.is_finite() && f >= 0.0) {
                c.fail(
                    &format!("{path}.{key}"),
                    format!("expected a number >= 0, found {v}"),
                );
            }
        }
    }
    if let Some(v) = o.get("frames_missing_tiles") {
        if v.as_u64().is_none_or(|n| frames.is_some_and(|f| n > f)) {
            c.fail(
                &format!("{path}.frames_missing_tiles"),
                format!("expected a count of measured frames, found {v}"),
            );
        }
    }
    if let Some(v) = c.field(o, path, "slide_frames") {
        let ok = v.as_array().is_some_and(|a| {
            a.iter()
                .all(|x| x.as_u64().is_some_and(|f| frames.is_none_or(|n| f < n)))
                && slides.is_none_or(|s| a.len() as u64 == s)
        });
        if !ok {
            c.fail(
                &format!("{path}.slide_frames"),
                "expected one measured-frame index per slide",
            );
        }
    }
}

fn check_series(c: &mut Checker, series: &Value, path: &str, frames: Option<u64>) {
    let Some(o) = c.object(Some(series), path) else {
        return;
    };
    for (key, nullable, required) in [
        ("cpu_frame_ms", false, true),
        ("gpu_frame_ms", true, true),
        ("cpu_frame_thread_ms", false, false),
    ] {
        let v = if required {
            c.field(o, path, key)
        } else {
            o.get(key)
        };
        let Some(v) = v else {
            continue;
        };
        let ok = v.as_array().is_some_and(|a| {
            a.iter()
                .all(|x| x.as_f64().is_some_and(|f| f >= 0.0) || (nullable && x.is_null()))
                && frames.is_none_or(|n| a.len() as u64 == n)
        });
        if !ok {
            c.fail(
                &format!("{path}.{key}"),
                format!("expected one time >= 0 per measured frame ({frames:?})"),
            );
        }
    }
}

fn check_comparisons(c: &mut Checker, top: &Map<String, Value>, runs: &[RunMedians]) {
    let Some(comps) = c.field(top, "$", "comparisons") else {
        return;
    };
    let Some(comps) = comps.as_array() else {
        c.fail(
            "$.comparisons",
            format!("expected an array, found {}", kind(comps)),
        );
        return;
    };
    let base = runs.iter().find(|r| r.tier.is_baseline());
    if base.is_none() && !runs.is_empty() {
        c.fail(
            "$.runs",
            format!("no baseline run ({BASELINE_GRASS}+{BASELINE_TERRAIN})"),
        );
    }
    let mut compared: Vec<TierKey> = Vec::new();
    for (i, comp) in comps.iter().enumerate() {
        let path = format!("$.comparisons[{i}]");
        let Some(o) = c.object(Some(comp), &path) else {
            continue;
        };
        let tier = c.tier_field(o, &path, "tier");
        if let Some(b) = c.tier_field(o, &path, "baseline") {
            if !b.is_baseline() {
                c.fail(
                    &format!("{path}.baseline"),
                    format!("expected {BASELINE_GRASS}+{BASELINE_TERRAIN}, found {b}"),
                );
            }
        }
        check_image_diff(c, o, &path);
        let Some(tier) = tier else {
            continue;
        };
        if compared.contains(&tier) {
            c.fail(&path, format!("second comparison for {tier}"));
        }
        compared.push(tier.clone());
        let Some(run) = runs.iter().find(|r| r.tier == tier) else {
            c.fail(&format!("{path}.tier"), format!("{tier} has no run"));
            continue;
        };
        let Some(base) = base else {
            continue;
        };
        let pairs = [
            ("cpu_frame_ratio", run.cpu_frame, base.cpu_frame),
            ("cpu_grass_ratio", run.cpu_grass, base.cpu_grass),
            ("gpu_frame_ratio", run.gpu_frame, base.gpu_frame),
            ("gpu_grass_ratio", run.gpu_grass, base.gpu_grass),
        ];
        for (key, t, b) in pairs {
            check_ratio(c, o, &format!("{path}.{key}"), key, ratio(t, b));
        }
    }
    for run in runs {
        if !run.tier.is_baseline() && !compared.contains(&run.tier) {
            c.fail(
                "$.comparisons",
                format!("no comparison for run {}", run.tier),
            );
        }
    }
}

fn check_ratio(
    c: &mut Checker,
    o: &Map<String, Value>,
    path: &str,
    key: &str,
    expected: Option<f64>,
) {
    let Some(v) = o.get(key) else {
        c.fail(path, "missing");
        return;
    };
    match (v.as_f64(), expected) {
        (None, None) if v.is_null() => {}
        (Some(got), Some(want))
            if (got - want).abs() <= RATIO_TOLERANCE * want.abs().max(1e-12) => {}
        (_, Some(want)) => c.fail(path, format!("is {v}, but the runs' medians give {want}")),
        (_, None) => c.fail(
            path,
            format!("is {v}, but the runs' medians give no ratio (null)"),
        ),
    }
}

fn check_image_diff(c: &mut Checker, o: &Map<String, Value>, path: &str) {
    let path = format!("{path}.image_diff");
    let Some(v) = o.get("image_diff") else {
        c.fail(&path, "missing");
        return;
    };
    if v.is_null() {
        return;
    }
    let Some(d) = c.object(Some(v), &path) else {
        return;
    };
    let rmse = c.field(d, &path, "rmse").map(|x| x.as_f64());
    if let Some(r) = rmse {
        if !r.is_some_and(|r| (0.0..=255.0).contains(&r)) {
            c.fail(&format!("{path}.rmse"), "expected a number in 0..=255");
        }
    }
    let frac = c
        .field(d, &path, "differing_pixels_fraction")
        .map(|x| x.as_f64());
    if let Some(f) = frac {
        if !f.is_some_and(|f| (0.0..=1.0).contains(&f)) {
            c.fail(
                &format!("{path}.differing_pixels_fraction"),
                "expected a number in 0..=1",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::sample_report;

    fn value() -> Value {
        serde_json::to_value(sample_report()).unwrap()
    }

    fn problems(v: &Value) -> Vec<String> {
        validate_report(v).expect_err("expected validation problems")
    }

    #[test]
    fn a_report_built_by_this_crate_is_valid() {
        assert_eq!(validate_report(&value()), Ok(()));
    }

    #[test]
    fn texture_counts_must_cover_every_model() {
        let mut v = value();
        let models = v["scene"]["models"].as_u64().unwrap();
        v["scene"]["textures"] = serde_json::json!({"bc": models - 2, "decoded": 1, "rgba": 1});
        assert_eq!(validate_report(&v), Ok(()));
        v["scene"]["textures"]["rgba"] = 5.into();
        let p = problems(&v);
        assert!(
            p.iter()
                .any(|m| m.starts_with("$.scene.textures: bc + decoded + rgba")),
            "{p:?}"
        );
        v["scene"]["textures"] = serde_json::json!({"bc": 1});
        let p = problems(&v);
        assert!(
            p.iter().any(|m| m == "$.scene.textures.decoded: missing"),
            "{p:?}"
        );
    }

    #[test]
    fn missing_fields_are_named_with_their_path() {
        let mut v = value();
        v.as_object_mut().unwrap().remove("preset");
        v["runs"][1].as_object_mut().unwrap().remove("draw_calls");
        v["adapter"].as_object_mut().unwrap().remove("driver");
        v["runs"][0]["cpu_frame_ms"]
            .as_object_mut()
            .unwrap()
            .remove("p95");
        let p = problems(&v);
        for needle in [
            "$.preset: missing",
            "$.runs[1].draw_calls: missing",
            "$.adapter.driver: missing",
            "$.runs[0].cpu_frame_ms.p95: missing",
        ] {
            assert!(p.iter().any(|m| m == needle), "{needle} not in {p:?}");
        }
    }

    #[test]
    fn wrong_types_and_values_are_caught() {
        let mut v = value();
        v["schema"] = "sward-bench/2".into();
        v["msaa"] = 2.into();
        v["size"] = serde_json::json!([640]);
        v["runs"][0]["triangles"] = (-3).into();
        v["runs"][0]["cpu_frame_ms"]["median"] = 1e9.into(); // above max
        let p = problems(&v);
        for needle in [
            "$.schema",
            "$.msaa",
            "$.size",
            "$.runs[0].triangles",
            "$.runs[0].cpu_frame_ms: median",
        ] {
            assert!(
                p.iter().any(|m| m.starts_with(needle)),
                "{needle} not in {p:?}"
            );
        }
    }

    #[test]
    fn copied_or_wrong_ratios_are_caught() {
        let mut v = value();
        // A ratio copied from another field instead of divided.
        let copied = v["runs"][1]["cpu_frame_ms"]["median"].clone();
        v["comparisons"][0]["cpu_frame_ratio"] = copied;
        // A ratio of 1.0 where the medians differ.
        v["comparisons"][0]["gpu_grass_ratio"] = 1.0.into();
        let p = problems(&v);
        assert!(
            p.iter()
                .any(|m| m.starts_with("$.comparisons[0].cpu_frame_ratio")),
            "{p:?}"
        );
        assert!(
            p.iter()
                .any(|m| m.starts_with("$.comparisons[0].gpu_grass_ratio")),
            "{p:?}"
        );
        assert_eq!(p.len(), 2, "{p:?}");
    }

    #[test]
    fn ratios_must_be_null_exactly_when_undefined() {
        let mut v = value();
        v["comparisons"][0]["gpu_frame_ratio"] = Value::Null;
        let p = problems(&v);
        assert!(
            p.iter()
                .any(|m| m.starts_with("$.comparisons[0].gpu_frame_ratio")),
            "{p:?}"
        );
        // Baseline GPU figures absent: every GPU ratio must then be null.
        let mut v = value();
        let base = v["runs"]
            .as_array()
            .unwrap()
            .iter()
            .position(|r| r["tier"]["grass"] == "static-batch")
            .unwrap();
        v["runs"][base]["gpu_frame_ms"] = Value::Null;
        let p = problems(&v);
        assert!(
            p.iter()
                .any(|m| m.contains("gpu_frame_ratio") && m.contains("null")),
            "{p:?}"
        );
    }

    #[test]
    fn each_non_baseline_run_needs_exactly_one_comparison() {
        let mut v = value();
        v["comparisons"].as_array_mut().unwrap().clear();
        let p = problems(&v);
        assert!(
            p.iter()
                .any(|m| m.starts_with("$.comparisons: no comparison for run")),
            "{p:?}"
        );
        let mut v = value();
        let dup = v["comparisons"][0].clone();
        v["comparisons"].as_array_mut().unwrap().push(dup);
        assert!(problems(&v).iter().any(|m| m.contains("second comparison")));
        let mut v = value();
        v["comparisons"][0]["baseline"]["terrain"] = "clipmap".into();
        assert!(problems(&v)
            .iter()
            .any(|m| m.starts_with("$.comparisons[0].baseline")));
    }

    #[test]
    fn image_diff_ranges_are_checked() {
        let mut v = value();
        v["comparisons"][0]["image_diff"]["differing_pixels_fraction"] = 1.5.into();
        let p = problems(&v);
        assert!(
            p.iter().any(|m| m.contains("differing_pixels_fraction")),
            "{p:?}"
        );
    }

    #[test]
    fn a_thread_tail_names_measured_frames_over_the_bound() {
        let mut v = value();
        let tail = |frame: u64, of_median: f64| {
            serde_json::json!([{
                "frame": frame,
                "thread_ms": 0.9,
                "of_median": of_median,
                "excess_ms": {"frame.submit": 0.2}
            }])
        };
        v["runs"][0]["thread_tail"] = tail(1, 2.0);
        assert_eq!(validate_report(&v), Ok(()));
        v["runs"][0]["thread_tail"] = tail(1, 1.2);
        assert!(problems(&v).iter().any(|m| m.contains("of_median")));
        v["runs"][0]["thread_tail"] = tail(10_000, 2.0);
        assert!(problems(&v)
            .iter()
            .any(|m| m.contains("thread_tail[0].frame")));
        v["runs"][0]["thread_tail"] =
            serde_json::json!([{"frame": 1, "thread_ms": 0.9, "of_median": 2.0}]);
        assert!(problems(&v).iter().any(|m| m.contains("excess_ms")));
    }

    #[test]
    fn frame_series_must_cover_every_measured_frame() {
        let mut v = value();
        v["runs"][0]["frame_series"]["cpu_frame_ms"]
            .as_array_mut()
            .unwrap()
            .pop();
        let p = problems(&v);
        assert!(
            p.iter()
                .any(|m| m.starts_with("$.runs[0].frame_series.cpu_frame_ms")),
            "{p:?}"
        );
        // The thread series is optional, but when present it covers every
        // frame too.
        let mut v = value();
        let n = v["runs"][0]["frame_series"]["cpu_frame_ms"]
            .as_array()
            .unwrap()
            .len();
        v["runs"][0]["frame_series"]["cpu_frame_thread_ms"] = serde_json::json!(vec![0.5; n]);
        assert_eq!(validate_report(&v), Ok(()));
        v["runs"][0]["frame_series"]["cpu_frame_thread_ms"] = serde_json::json!(vec![0.5; n + 1]);
        let p = problems(&v);
        assert!(
            p.iter()
                .any(|m| m.starts_with("$.runs[0].frame_series.cpu_frame_thread_ms")),
            "{p:?}"
        );
    }

    #[test]
    fn a_non_object_report_is_rejected() {
        assert!(validate_report(&Value::Array(vec![])).is_err());
    }
}
