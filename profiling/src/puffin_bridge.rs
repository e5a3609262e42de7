//! GPU timestamp scopes shown in puffin, and `.puffin` capture files.
//!
//! wgpu-profiler's own puffin feature is off (it would pull puffin 0.19), so the
//! bridge is here: [`report_gpu_scopes`] turns a tree of [`GpuScope`]s (seconds on
//! the GPU clock, as wgpu-profiler reports them) into a puffin stream for a thread
//! named [`GPU_THREAD_NAME`], shifted onto puffin's clock by a
//! [`ClockAlignment`]. The scopes land in the puffin frame that is open when they
//! are reported, which is usually a frame or two after the GPU ran them (results
//! are read back late); their times are still the aligned GPU times.
//!
//! [`Capture`] collects puffin frames while it lives and [`write_capture`] saves
//! them as a `.puffin` file for `puffin_viewer`; [`read_capture`] lists the scopes
//! of such a file (used by tests and `sward capture` checks).

use std::collections::{BTreeSet, HashMap};
use std::io::{BufReader, BufWriter, Write as _};
use std::path::{Path, PathBuf};

use puffin::{FrameView, GlobalProfiler, ScopeDetails, ScopeId, Stream, StreamInfo, ThreadInfo};

pub use crate::clock::{monotonic_now_ns, ClockAlignment, ClockError};

/// Name of the puffin thread that carries GPU scopes.
pub const GPU_THREAD_NAME: &str = "GPU";

/// Frames a [`Capture`] keeps (older ones are dropped).
pub const CAPTURE_MAX_FRAMES: usize = 100_000;

/// Why GPU scopes could not be reported or a capture not written/read.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// A scope's times are not finite or end before they start.
    #[error("GPU scope {name:?}: bad time range {start_s} s .. {end_s} s")]
    BadScope {
        /// Scope name.
        name: String,
        /// Start (GPU clock, seconds).
        start_s: f64,
        /// End (GPU clock, seconds).
        end_s: f64,
    },
    /// A capture file could not be written or read.
    #[error("capture file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// puffin could not encode or decode the capture.
    #[error("capture file {path}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// puffin's error.
        message: String,
    },
}

/// One timed GPU scope with its nested scopes (wgpu-profiler's result, decoupled).
#[derive(Debug, Clone, PartialEq)]
pub struct GpuScope {
    /// Scope label, e.g. `grass.cull`.
    pub name: String,
    /// Start on the GPU clock (seconds).
    pub start_s: f64,
    /// End on the GPU clock (seconds).
    pub end_s: f64,
    /// The scope's data as puffin shows it beside the name (the pass's GPU
    /// work counters, where they were read; empty otherwise).
    pub data: String,
    /// Scopes opened while this one was open.
    pub children: Vec<GpuScope>,
}

/// Checks times and collects the distinct names of a scope tree.
fn collect_names<'a>(
    scopes: &'a [GpuScope],
    names: &mut BTreeSet<&'a str>,
) -> Result<(), BridgeError> {
    for s in scopes {
        if !(s.start_s.is_finite() && s.end_s.is_finite() && s.end_s >= s.start_s) {
            return Err(BridgeError::BadScope {
                name: s.name.clone(),
                start_s: s.start_s,
                end_s: s.end_s,
            });
        }
        names.insert(&s.name);
        collect_names(&s.children, names)?;
    }
    Ok(())
}

/// Appends `scopes` (sorted by start) to `info`, recursively.
fn write_scopes(
    info: &mut StreamInfo,
    ids: &HashMap<&str, ScopeId>,
    scopes: &[GpuScope],
    align: &ClockAlignment,
    depth: usize,
) {
    let mut sorted: Vec<&GpuScope> = scopes.iter().collect();
    sorted.sort_by(|a, b| a.start_s.total_cmp(&b.start_s));
    for s in sorted {
        let Some(&id) = ids.get(s.name.as_str()) else {
            continue; // every name was registered; unreachable in practice
        };
        let start = align.to_puffin_ns(s.start_s);
        let end = align.to_puffin_ns(s.end_s).max(start);
        let (offset, _) = info.stream.begin_scope(|| start, id, &s.data);
        write_scopes(info, ids, &s.children, align, depth + 1);
        info.stream.end_scope(offset, end);
        info.num_scopes += 1;
        info.depth = info.depth.max(depth + 1);
        info.range_ns = (info.range_ns.0.min(start), info.range_ns.1.max(end));
    }
}

/// Reports GPU scopes into `profiler`'s current frame as thread [`GPU_THREAD_NAME`].
/// Returns the number of scopes reported.
pub fn report_gpu_scopes_to(
    profiler: &mut GlobalProfiler,
    scopes: &[GpuScope],
    align: &ClockAlignment,
) -> Result<usize, BridgeError> {
    let mut names = BTreeSet::new();
    collect_names(scopes, &mut names)?;
    if names.is_empty() {
        return Ok(0);
    }
    let names: Vec<&str> = names.into_iter().collect();
    let details: Vec<ScopeDetails> = names
        .iter()
        .map(|n| ScopeDetails::from_scope_name((*n).to_owned()))
        .collect();
    let ids: HashMap<&str, ScopeId> = names
        .iter()
        .copied()
        .zip(profiler.register_user_scopes(&details))
        .collect();
    let mut info = StreamInfo {
        stream: Stream::default(),
        ..StreamInfo::default()
    };
    write_scopes(&mut info, &ids, scopes, align, 0);
    let thread = ThreadInfo {
        start_time_ns: None,
        name: GPU_THREAD_NAME.to_owned(),
    };
    profiler.report_user_scopes(thread, &info.as_stream_into_ref());
    Ok(info.num_scopes)
}

/// [`report_gpu_scopes_to`] on puffin's global profiler (does nothing while puffin
/// scopes are off).
pub fn report_gpu_scopes(
    scopes: &[GpuScope],
    align: &ClockAlignment,
) -> Result<usize, BridgeError> {
    if !puffin::are_scopes_on() {
        return Ok(0);
    }
    report_gpu_scopes_to(&mut GlobalProfiler::lock(), scopes, align)
}

/// Collects every puffin frame finished while it lives (turns puffin scopes on).
pub struct Capture {
    view: puffin::GlobalFrameView,
}

impl Capture {
    /// Starts collecting frames from the global profiler.
    pub fn start() -> Self {
        puffin::set_scopes_on(true);
        let view = puffin::GlobalFrameView::default();
        view.lock().set_max_recent(CAPTURE_MAX_FRAMES);
        Self { view }
    }

    /// Frames collected so far.
    pub fn frames(&self) -> usize {
        self.view.lock().recent_frames().count()
    }

    /// Writes the frames collected so far to a `.puffin` file.
    pub fn write(&self, path: &Path) -> Result<(), BridgeError> {
        write_capture(&self.view.lock(), path)
    }
}

/// Writes `view`'s frames as a `.puffin` file (written beside, then renamed into
/// place). The first frame carries every scope name so the file stands alone.
pub fn write_capture(view: &FrameView, path: &Path) -> Result<(), BridgeError> {
    let tmp = path.with_extension("puffin.partial");
    let io = |source| BridgeError::Io {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::File::create(&tmp).map_err(io)?;
    let mut w = BufWriter::new(file);
    w.write_all(b"PUF0").map_err(io)?;
    for (i, frame) in view.all_uniq().enumerate() {
        let scopes = (i == 0).then(|| view.scope_collection());
        frame
            .write_into(scopes, &mut w)
            .map_err(|e| BridgeError::Format {
                path: path.to_owned(),
                message: format!("{e:#}"),
            })?;
    }
    w.flush().map_err(io)?;
    drop(w);
    std::fs::rename(&tmp, path).map_err(io)
}

/// One scope found in a capture file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturedScope {
    /// puffin frame index.
    pub frame_index: u64,
    /// Thread name.
    pub thread: String,
    /// Scope name.
    pub name: String,
    /// Nesting depth (0 = top level).
    pub depth: usize,
    /// Start, puffin clock (ns since the Unix epoch).
    pub start_ns: i64,
    /// End, puffin clock.
    pub end_ns: i64,
}

/// The contents of a `.puffin` file, flattened.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CaptureSummary {
    /// Frames in the file.
    pub frames: usize,
    /// Every scope of every frame and thread, depth first.
    pub scopes: Vec<CapturedScope>,
}

impl CaptureSummary {
    /// Distinct scope names recorded on `thread`.
    pub fn scope_names(&self, thread: &str) -> BTreeSet<&str> {
        self.scopes
            .iter()
            .filter(|s| s.thread == thread)
            .map(|s| s.name.as_str())
            .collect()
    }
}

/// Reads a `.puffin` file and lists its scopes.
pub fn read_capture(path: &Path) -> Result<CaptureSummary, BridgeError> {
    let format = |message: String| BridgeError::Format {
        path: path.to_owned(),
        message,
    };
    let file = std::fs::File::open(path).map_err(|source| BridgeError::Io {
        path: path.to_owned(),
        source,
    })?;
    let view = FrameView::read(&mut BufReader::new(file)).map_err(|e| format(format!("{e:#}")))?;
    let mut summary = CaptureSummary::default();
    for frame in view.all_uniq() {
        summary.frames += 1;
        let unpacked = frame.unpacked().map_err(|e| format(format!("{e:#}")))?;
        for (thread, stream) in &unpacked.thread_streams {
            let ctx = ScopeWalk {
                view: &view,
                frame_index: frame.frame_index(),
                thread: &thread.name,
                stream: &stream.stream,
            };
            ctx.walk(0, 0, &mut summary.scopes)
                .map_err(|e| format(format!("{e:?}")))?;
        }
    }
    Ok(summary)
}

/// Walks one thread stream of one frame.
struct ScopeWalk<'a> {
    view: &'a FrameView,
    frame_index: u64,
    thread: &'a str,
    stream: &'a Stream,
}

impl ScopeWalk<'_> {
    fn walk(
        &self,
        offset: u64,
        depth: usize,
        out: &mut Vec<CapturedScope>,
    ) -> Result<(), puffin::Error> {
        for scope in puffin::Reader::with_offset(self.stream, offset)? {
            let scope = scope?;
            let name = self
                .view
                .scope_collection()
                .fetch_by_id(&scope.id)
                .map_or_else(
                    || format!("<unknown scope {}>", scope.id.0),
                    |d| d.name().to_string(),
                );
            out.push(CapturedScope {
                frame_index: self.frame_index,
                thread: self.thread.to_owned(),
                name,
                depth,
                start_ns: scope.record.start_ns,
                end_ns: scope.record.stop_ns(),
            });
            self.walk(scope.child_begin_position, depth + 1, out)?;
        }
        Ok(())
    }
}

/// A pass's GPU work counters as a scope's data: RenderDoc's and PIX's
/// labels with their values (`VS invocations 12288, clipper in 4096, ...`).
pub fn work_data(stats: &sward_engine::graph::PipelineStats) -> String {
    sward_engine::graph::PipelineStats::NAMES
        .iter()
        .zip(stats.values())
        .map(|((_, label), v)| format!("{label} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reports one frame's GPU passes into puffin. Timestamps on the CPU's
/// monotonic clock (lavapipe) are used as they are; any other clock is aligned
/// by pinning the frame's last GPU end to the moment the CPU saw it finish.
pub fn report_gpu_frame(
    times: &sward_engine::graph::GpuFrameTimes,
    align: &mut Option<ClockAlignment>,
    done_ns: i64,
) {
    let scopes: Vec<GpuScope> = times
        .passes
        .iter()
        .map(|p| GpuScope {
            name: p.name.clone(),
            start_s: p.start_ns as f64 * 1e-9,
            end_s: p.end_ns as f64 * 1e-9,
            data: times
                .work
                .iter()
                .flatten()
                .find(|w| w.name == p.name)
                .map(|w| work_data(&w.stats))
                .unwrap_or_default(),
            children: Vec::new(),
        })
        .collect();
    let Some(last_end) = scopes.iter().map(|s| s.end_s).reduce(f64::max) else {
        return;
    };
    let aligned = match *align {
        Some(a) if a.is_near_now(last_end, 5.0) => a,
        _ => {
            let a = ClockAlignment::from_pair(last_end, done_ns);
            *align = Some(a);
            a
        }
    };
    if let Err(e) = report_gpu_scopes(&scopes, &aligned) {
        log::warn!("GPU scopes of frame {} not reported: {e}", times.frame);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    fn scope(name: &str, start_s: f64, end_s: f64, children: Vec<GpuScope>) -> GpuScope {
        GpuScope {
            name: name.to_owned(),
            start_s,
            end_s,
            data: String::new(),
            children,
        }
    }

    /// A private profiler whose frames land in a private view (tests run in parallel;
    /// the global profiler is left alone).
    fn private_profiler() -> (GlobalProfiler, Arc<Mutex<FrameView>>) {
        let view = Arc::new(Mutex::new(FrameView::default()));
        let sink_view = Arc::clone(&view);
        let mut profiler = GlobalProfiler::default();
        profiler.add_sink(Box::new(move |frame| {
            if let Ok(mut v) = sink_view.lock() {
                v.add_frame(frame);
            }
        }));
        (profiler, view)
    }

    #[test]
    fn gpu_scopes_round_trip_through_a_puffin_file_under_thread_gpu() {
        let (mut profiler, view) = private_profiler();
        let align = ClockAlignment::from_offset_ns(1_700_000_000_000_000_000);
        let frame0 = vec![scope(
            "frame",
            100.0,
            100.004,
            vec![
                scope("terrain.draw", 100.0025, 100.0035, vec![]),
                scope("grass.cull", 100.0005, 100.001, vec![]),
            ],
        )];
        assert_eq!(
            report_gpu_scopes_to(&mut profiler, &frame0, &align).unwrap(),
            3
        );
        profiler.new_frame();
        let frame1 = vec![scope("grass.draw", 100.02, 100.021, vec![])];
        report_gpu_scopes_to(&mut profiler, &frame1, &align).unwrap();
        profiler.new_frame();

        let path = crate::test_dir("puffin").join("gpu.puffin");
        write_capture(&view.lock().unwrap(), &path).unwrap();
        let summary = read_capture(&path).unwrap();
        assert_eq!(summary.frames, 2);
        let names = summary.scope_names(GPU_THREAD_NAME);
        assert_eq!(
            names,
            BTreeSet::from(["frame", "grass.cull", "grass.draw", "terrain.draw"])
        );

        let find = |n: &str| summary.scopes.iter().find(|s| s.name == n).unwrap();
        let cull = find("grass.cull");
        assert_eq!(cull.depth, 1);
        assert_eq!(cull.start_ns, align.to_puffin_ns(100.0005));
        assert_eq!(cull.end_ns - cull.start_ns, 500_000);
        assert_eq!(find("frame").depth, 0);
        assert_eq!(find("grass.draw").frame_index, cull.frame_index + 1);
        // Children are stored in time order, whatever order they were given in.
        let order: Vec<&str> = summary.scopes.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(order[..3], ["frame", "grass.cull", "terrain.draw"]);
    }

    /// The only test that touches puffin's global profiler.
    #[test]
    fn capture_collects_global_frames_with_cpu_and_gpu_threads() {
        let capture = Capture::start();
        let align = ClockAlignment::from_offset_ns(0);
        std::thread::Builder::new()
            .name("bench".to_owned())
            .spawn(|| {
                puffin::profile_scope!("grass.legacy_build");
            })
            .unwrap()
            .join()
            .unwrap();
        let gpu = [scope("grass.draw", 5.0, 5.002, vec![])];
        assert_eq!(report_gpu_scopes(&gpu, &align).unwrap(), 1);
        GlobalProfiler::lock().new_frame();
        assert_eq!(capture.frames(), 1);

        let path = crate::test_dir("puffin-global").join("capture.puffin");
        capture.write(&path).unwrap();
        let summary = read_capture(&path).unwrap();
        assert_eq!(
            summary.scope_names(GPU_THREAD_NAME),
            BTreeSet::from(["grass.draw"])
        );
        assert_eq!(
            summary.scope_names("bench"),
            BTreeSet::from(["grass.legacy_build"])
        );
        let draw = summary
            .scopes
            .iter()
            .find(|s| s.name == "grass.draw")
            .unwrap();
        assert_eq!((draw.start_ns, draw.end_ns), (5_000_000_000, 5_002_000_000));
    }

    #[test]
    fn bad_scopes_are_rejected_before_anything_is_reported() {
        let (mut profiler, _view) = private_profiler();
        let align = ClockAlignment::from_offset_ns(0);
        let bad = vec![scope(
            "ok",
            1.0,
            2.0,
            vec![scope("grass.cull", 3.0, 2.5, vec![])],
        )];
        let err = report_gpu_scopes_to(&mut profiler, &bad, &align).unwrap_err();
        assert!(err.to_string().contains("grass.cull"), "{err}");
        assert_eq!(report_gpu_scopes_to(&mut profiler, &[], &align).unwrap(), 0);
    }

    #[test]
    fn reading_a_missing_or_foreign_file_fails_with_its_path() {
        let dir = crate::test_dir("puffin-bad");
        let err = read_capture(&dir.join("none.puffin")).unwrap_err();
        assert!(err.to_string().contains("none.puffin"), "{err}");
        let junk = dir.join("junk.puffin");
        std::fs::write(&junk, b"NOPE....").unwrap();
        assert!(matches!(
            read_capture(&junk),
            Err(BridgeError::Format { .. })
        ));
    }
}
