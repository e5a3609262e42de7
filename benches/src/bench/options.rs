//! Bench arguments and their validation: everything a user can get wrong is
//! rejected here, with the valid choices listed, before any GPU work starts.

use std::path::PathBuf;

use sward_passes::technique::TierCombo;
use sward_scenes::formats::DataOptions;
use sward_scenes::presets::{open_preset, Preset};
use sward_scenes::streaming::StreamConfig;

use super::BenchError;

/// What the user asked for (`sward bench` flags); `None` means "default".
#[derive(Debug, Clone, Default)]
pub struct BenchOptions {
    /// Preset name (default `elwynn-dense`).
    pub preset: Option<String>,
    /// `--tiers` list: combinations with per-tier parameters.
    pub tiers: Option<String>,
    /// Measured frames per combination.
    pub frames: Option<u32>,
    /// Warm-up frames per combination (shader compilation, caches).
    pub warmup: Option<u32>,
    /// `WxH`.
    pub size: Option<String>,
    /// 1 or 4.
    pub msaa: Option<u32>,
    /// The reduced CI configuration.
    pub quick: bool,
    /// Report directory.
    pub out: PathBuf,
    /// Adapter selector (`--adapter`).
    pub adapter: Option<String>,
    /// Keep wgpu's injected validation of indirect draws on.
    pub indirect_validation: bool,
    /// Where the world comes from and how it is read (`--data`, `--map`,
    /// `--at`, `--tile`, `--client`, `--placeholders`), the client
    /// routines' density setting for every tier (`--density`) and how DXT
    /// textures reach the GPU (`--texture-upload`).
    pub data: DataOptions,
    /// Terrain view distance in world units (`--view-distance`); fog scales
    /// with it (see `RenderSettings::with_view_distance`). Default 1000.
    pub view_distance: Option<f32>,
    /// Measure every frame at this named view of the preset instead of
    /// along its camera path (`--view`).
    pub view: Option<String>,
    /// Fly this named camera path of the preset (`--path`; default: the
    /// preset's walk).
    pub path: Option<String>,
    /// How a camera path named by `--path` streams the world (`--stream`).
    pub stream: StreamMode,
    /// Whether the bench lets the tile workers keep up with the camera
    /// (`--stream-pace`).
    pub stream_pace: StreamPace,
    /// Resident radius, per-frame budget and the rest of the worker
    /// streaming configuration (`--stream-radius`, `--stream-budget-ms`,
    /// `--stream-tiles-per-frame`).
    pub stream_config: StreamConfig,
}

/// How the bench streams the world along a camera path (`--stream`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StreamMode {
    /// Tiles load on worker threads ([`sward_scenes::streaming::Streamer`],
    /// default configuration); the render thread applies finished tiles
    /// within the frame budget, then rebuilds every technique.
    #[default]
    Workers,
    /// Entering another tile slides the window on the render thread
    /// (`Scene::follow`: loads and places the new tiles there), then every
    /// technique is rebuilt: what the viewer did before streaming.
    RenderThread,
}

impl StreamMode {
    /// The `--stream` spelling.
    pub fn name(self) -> &'static str {
        match self {
            StreamMode::Workers => "workers",
            StreamMode::RenderThread => "render-thread",
        }
    }

    /// Parses `workers` or `render-thread`; the error lists both.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "workers" => Ok(StreamMode::Workers),
            "render-thread" => Ok(StreamMode::RenderThread),
            _ => Err(format!(
                "unknown streaming mode `{s}`; valid: workers, render-thread"
            )),
        }
    }
}

/// How much wall time the tile workers get along a path (`--stream-pace`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StreamPace {
    /// Before each measured frame the bench waits, outside the frame's
    /// time, until the workers have finished every tile of the resident
    /// square (the wait is reported): every run streams the same tiles,
    /// whatever its frame rate, so runs compare like for like.
    #[default]
    KeepUp,
    /// The workers only get the wall time the frames take: a fast tier
    /// outruns them and flies over tiles that are not resident yet (absent
    /// whole), a slow one does not; the report counts those frames.
    Free,
}

impl StreamPace {
    /// The `--stream-pace` spelling.
    pub fn name(self) -> &'static str {
        match self {
            StreamPace::KeepUp => "keep-up",
            StreamPace::Free => "free",
        }
    }

    /// Parses `keep-up` or `free`; the error lists both.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "keep-up" => Ok(StreamPace::KeepUp),
            "free" => Ok(StreamPace::Free),
            _ => Err(format!(
                "unknown streaming pace `{s}`; valid: keep-up, free"
            )),
        }
    }
}

/// Defaults of a full bench: a few minutes on lavapipe for every combination.
pub const FULL: (u32, u32, [u32; 2]) = (24, 4, [960, 540]);
/// Defaults of `--quick`: under a minute on lavapipe.
pub const QUICK: (u32, u32, [u32; 2]) = (6, 2, [320, 180]);
/// Measured frames along a camera path named by `--path` (full, `--quick`)
/// when `--frames` is not given: enough for several frames per tile of
/// `continent`'s `flight`.
pub const PATH_FRAMES: (u32, u32) = (160, 60);
/// The default preset.
pub const DEFAULT_PRESET: &str = "elwynn-dense";

/// Validated, resolved bench parameters.
#[derive(Debug, Clone)]
pub struct BenchPlan {
    /// The preset.
    pub preset: Preset,
    /// Combinations the user asked for (baseline not yet added), or `None` for
    /// "every combination the device supports".
    pub requested: Option<Vec<TierCombo>>,
    /// Measured frames per combination.
    pub frames: u32,
    /// Warm-up frames per combination.
    pub warmup: u32,
    /// Target size.
    pub size: [u32; 2],
    /// MSAA samples.
    pub msaa: u32,
    /// Report directory.
    pub out: PathBuf,
    /// Whether `--quick` chose the defaults.
    pub quick: bool,
}

impl BenchOptions {
    /// Checks every argument and fills in defaults.
    pub fn plan(&self) -> Result<BenchPlan, BenchError> {
        let name = self.preset.as_deref().unwrap_or(DEFAULT_PRESET);
        let preset = open_preset(name, &self.data)?;
        let requested = match &self.tiers {
            None => None,
            Some(list) => {
                let combos = TierCombo::parse_list(list)
                    .map_err(|e| BenchError::Usage(format!("--tiers `{list}`: {e}")))?;
                if let Some(empty) = combos.iter().find(|c| c.is_empty()) {
                    return Err(BenchError::Usage(format!(
                        "--tiers `{list}`: `{empty}` draws nothing (both subsystems off); \
                         name a grass or a terrain tier"
                    )));
                }
                if combos.is_empty() {
                    return Err(BenchError::Usage(format!(
                        "--tiers `{list}` names no combination (e.g. `legacy-cpu,static-batch+static-chunks`)"
                    )));
                }
                Some(combos)
            }
        };
        check_stream_config(&self.stream_config)?;
        if self.view.is_some() && self.path.is_some() {
            return Err(BenchError::Usage(
                "--view and --path exclude each other: bench one fixed view or one camera path"
                    .into(),
            ));
        }
        let (frames, warmup, size) = if self.quick { QUICK } else { FULL };
        let frames = match (self.frames, &self.path) {
            (Some(n), _) => n,
            (None, Some(_)) if self.quick => PATH_FRAMES.1,
            (None, Some(_)) => PATH_FRAMES.0,
            (None, None) => frames,
        };
        if frames == 0 {
            return Err(BenchError::Usage("--frames must be at least 1".into()));
        }
        let warmup = self.warmup.unwrap_or(warmup);
        let size = match &self.size {
            None => size,
            Some(s) => {
                let (w, h) = sward_engine::targets::parse_size(s)
                    .map_err(|e| BenchError::Usage(format!("--size: {e}")))?;
                [w, h]
            }
        };
        let msaa = self.msaa.unwrap_or(4);
        if msaa != 1 && msaa != 4 {
            return Err(BenchError::Usage(format!(
                "--msaa {msaa} is not supported: use 1 or 4"
            )));
        }
        Ok(BenchPlan {
            preset,
            requested,
            frames,
            warmup,
            size,
            msaa,
            out: self.out.clone(),
            quick: self.quick,
        })
    }
}

/// Largest `--stream-radius`: 9x9 resident tiles (with the hysteresis ring,
/// 11x11 at most), far more than a 3x3 window's draw distance needs.
pub const MAX_STREAM_RADIUS: u32 = 4;

/// Rejects a streaming configuration no run can use, naming the flag.
pub fn check_stream_config(c: &StreamConfig) -> Result<(), BenchError> {
    if c.radius == 0 || c.radius > MAX_STREAM_RADIUS {
        return Err(BenchError::Usage(format!(
            "--stream-radius {}: must be 1 to {MAX_STREAM_RADIUS} (1 = 3x3 resident tiles)",
            c.radius
        )));
    }
    if !(c.budget.cpu_ms.is_finite() && c.budget.cpu_ms > 0.0) {
        return Err(BenchError::Usage(format!(
            "--stream-budget-ms {}: must be a positive number of milliseconds",
            c.budget.cpu_ms
        )));
    }
    if c.budget.tiles == 0 {
        return Err(BenchError::Usage(
            "--stream-tiles-per-frame 0: at least one tile per frame, or streaming never progresses"
                .into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> BenchOptions {
        BenchOptions {
            out: PathBuf::from("/tmp/x"),
            ..BenchOptions::default()
        }
    }

    #[test]
    fn defaults_and_quick() {
        let p = opts().plan().unwrap();
        assert_eq!(p.preset.name, DEFAULT_PRESET);
        assert_eq!((p.frames, p.warmup, p.size), FULL);
        let q = BenchOptions {
            quick: true,
            ..opts()
        }
        .plan()
        .unwrap();
        assert_eq!((q.frames, q.warmup, q.size), QUICK);
        assert!(p.requested.is_none());
    }

    #[test]
    fn bad_arguments_name_the_valid_choices() {
        let e = BenchOptions {
            preset: Some("nope".into()),
            ..opts()
        }
        .plan()
        .unwrap_err();
        assert!(e.to_string().contains("elwynn-dense"), "{e}");
        let e = BenchOptions {
            tiers: Some("static-batch+warp".into()),
            ..opts()
        }
        .plan()
        .unwrap_err();
        assert!(e.to_string().contains("clipmap"), "{e}");
        let e = BenchOptions {
            size: Some("12x".into()),
            ..opts()
        }
        .plan()
        .unwrap_err();
        assert!(e.to_string().contains("--size"), "{e}");
        let e = BenchOptions {
            msaa: Some(2),
            ..opts()
        }
        .plan()
        .unwrap_err();
        assert!(e.to_string().contains("1 or 4"), "{e}");
        let e = BenchOptions {
            frames: Some(0),
            ..opts()
        }
        .plan()
        .unwrap_err();
        assert!(e.to_string().contains("--frames"), "{e}");
        let e = BenchOptions {
            tiers: Some(" , ".into()),
            ..opts()
        }
        .plan()
        .unwrap_err();
        assert!(e.to_string().contains("no combination"), "{e}");
    }

    #[test]
    fn stream_flags_out_of_range_name_the_flag_and_the_range() {
        let with = |f: fn(&mut StreamConfig)| {
            let mut c = StreamConfig::default();
            f(&mut c);
            BenchOptions {
                stream_config: c,
                ..opts()
            }
            .plan()
        };
        assert!(with(|_| {}).is_ok());
        assert!(with(|c| c.radius = 2).is_ok());
        for (f, flag, range) in [
            (
                (|c: &mut StreamConfig| c.radius = 0) as fn(&mut StreamConfig),
                "--stream-radius 0",
                "1 to 4",
            ),
            (|c| c.radius = 5, "--stream-radius 5", "1 to 4"),
            (
                |c| c.budget.cpu_ms = 0.0,
                "--stream-budget-ms 0",
                "positive",
            ),
            (
                |c| c.budget.cpu_ms = f64::NAN,
                "--stream-budget-ms NaN",
                "positive",
            ),
            (
                |c| c.budget.tiles = 0,
                "--stream-tiles-per-frame 0",
                "at least one",
            ),
        ] {
            let e = with(f).unwrap_err().to_string();
            assert!(e.contains(flag) && e.contains(range), "{e}");
        }
    }

    #[test]
    fn explicit_tiers_are_kept_in_order() {
        let p = BenchOptions {
            tiers: Some("legacy-cpu,static-batch+off".into()),
            ..opts()
        }
        .plan()
        .unwrap();
        let names: Vec<String> = p.requested.unwrap().iter().map(|c| c.to_string()).collect();
        assert_eq!(names, ["legacy-cpu+static-chunks", "static-batch+off"]);
    }
}
