//! Runs a [`RenderGraph`]: validates it, resolves handles (pooled transients,
//! imports), records every pass inside a puffin scope and a GPU timestamp scope
//! named after the pass, submits one command buffer per frame, and collects GPU
//! pass times a few frames later without stalling (or blocking, via `flush`).

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use wgpu_profiler::{GpuProfiler, GpuProfilerSettings, GpuTimerQueryResult};

use super::context::{view_of, Misuse, StandIns};
use super::stats::{PassWork, StatsPass, StatsQueries};
use super::{
    BufferId, BufferSource, ComputeCtx, Counters, GraphError, PassKind, RenderCtx, RenderGraph,
    ResourceId, ResourcePool, Resources, TextureId, TextureSource, TransferCtx,
};
use crate::caps::Capability;
use crate::context::GpuContext;
use crate::cpu_clock::ThreadTimer;

/// CPU time and counters of one pass in one frame.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PassReport {
    /// Pass name (`subsystem.name`).
    pub name: String,
    /// CPU milliseconds spent recording the pass.
    pub cpu_ms: f64,
    /// The render thread's own CPU milliseconds recording the pass (its
    /// thread clock; `None` where the platform has none).
    pub cpu_thread_ms: Option<f64>,
    /// What the pass reported.
    pub counters: Counters,
}

/// What executing one frame's graph produced on the CPU side.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FrameReport {
    /// Frame number of this executor (matches [`GpuFrameTimes::frame`]).
    pub frame: u64,
    /// Passes in declaration order.
    pub passes: Vec<PassReport>,
    /// CPU milliseconds for the whole `execute` (resolve, record, submit).
    pub cpu_ms: f64,
    /// The render thread's own CPU milliseconds for the whole `execute`
    /// (`None` where the platform has no thread clock).
    pub cpu_thread_ms: Option<f64>,
    /// Where `execute`'s time outside the passes went, as named sections:
    /// `frame.setup` (validation, resolving handles, the encoder),
    /// `frame.submit` (finishing the encoder, wgpu's validation, the
    /// queue submit) and `frame.finish` (closing the profiler frame,
    /// polling the device, which frees what finished GPU work released).
    pub overhead: [(&'static str, f64); 3],
    /// The same three sections in the render thread's own CPU time (ms;
    /// `None` where the platform has no thread clock).
    pub overhead_thread_ms: [Option<f64>; 3],
    /// Sum of all pass counters.
    pub counters: Counters,
}

impl FrameReport {
    /// Sum of CPU ms over passes whose name starts with `prefix` (e.g. `"grass."`).
    pub fn cpu_ms_with_prefix(&self, prefix: &str) -> f64 {
        self.passes
            .iter()
            .filter(|p| p.name.starts_with(prefix))
            .map(|p| p.cpu_ms)
            .sum()
    }

    /// The report of the pass called `name`.
    pub fn pass(&self, name: &str) -> Option<&PassReport> {
        self.passes.iter().find(|p| p.name == name)
    }
}

/// GPU interval of one pass, in nanoseconds on the GPU timestamp clock
/// (tick * timestamp period). On lavapipe the clock is `CLOCK_MONOTONIC`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GpuPassTime {
    /// Pass name.
    pub name: String,
    /// Start timestamp in ns.
    pub start_ns: u64,
    /// End timestamp in ns.
    pub end_ns: u64,
}

impl GpuPassTime {
    /// Duration in milliseconds.
    pub fn ms(&self) -> f64 {
        self.end_ns.saturating_sub(self.start_ns) as f64 / 1e6
    }
}

/// GPU pass times of one frame (only passes that got timestamps).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GpuFrameTimes {
    /// The frame they belong to (see [`FrameReport::frame`]).
    pub frame: u64,
    /// Timed passes in recording order.
    pub passes: Vec<GpuPassTime>,
    /// GPU work counters of every render and compute pass, in recording
    /// order; `None` where the device has no pipeline statistics or the
    /// frame found no free read-back slot.
    pub work: Option<Vec<PassWork>>,
}

impl GpuFrameTimes {
    /// Sum of GPU ms over passes whose name starts with `prefix`.
    pub fn ms_with_prefix(&self, prefix: &str) -> f64 {
        self.passes
            .iter()
            .filter(|p| p.name.starts_with(prefix))
            .map(GpuPassTime::ms)
            .sum()
    }

    /// Sum of GPU ms over all passes.
    pub fn total_ms(&self) -> f64 {
        self.passes.iter().map(GpuPassTime::ms).sum()
    }

    /// The time of the pass called `name`.
    pub fn pass(&self, name: &str) -> Option<&GpuPassTime> {
        self.passes.iter().find(|p| p.name == name)
    }
}

/// Executes graphs frame after frame, owning the transient pool and the GPU profiler.
pub struct GraphExecutor {
    pool: ResourcePool,
    profiler: GpuProfiler,
    timestamps: bool,
    frame: u64,
    /// Frames handed to the profiler whose results have not come back, oldest first.
    pending: VecDeque<u64>,
    /// Timed frames waiting for their work counters.
    waiting: VecDeque<GpuFrameTimes>,
    /// Work counters that came back before their frame's times.
    ready_work: HashMap<u64, Vec<PassWork>>,
    finished: Vec<GpuFrameTimes>,
    stand_ins: StandIns,
    stats: Option<StatsQueries>,
}

const MAX_PENDING_FRAMES: usize = 4;

/// A puffin scope whose name is the (dynamic) pass name. `puffin::profile_scope!`
/// registers one name per call site, so pass names are registered here once each.
fn pass_scope(name: &str) -> Option<puffin::ProfilerScope> {
    if !puffin::are_scopes_on() {
        return None;
    }
    static IDS: OnceLock<Mutex<HashMap<String, puffin::ScopeId>>> = OnceLock::new();
    let mut ids = IDS.get_or_init(Default::default).lock().ok()?;
    let id = *ids.entry(name.to_owned()).or_insert_with(|| {
        puffin::ThreadProfiler::call(|tp| {
            tp.register_named_scope(name.to_owned(), "sward_engine::graph", file!(), line!())
        })
    });
    drop(ids);
    Some(puffin::ProfilerScope::new(id, ""))
}

impl GraphExecutor {
    /// An executor for `gpu`. GPU timing is on where the device has timestamp queries.
    pub fn new(gpu: &GpuContext) -> Result<Self, GraphError> {
        Self::with_timestamps(gpu, true)
    }

    /// An executor with GPU timing switched on (where supported) or off.
    pub fn with_timestamps(gpu: &GpuContext, timestamps: bool) -> Result<Self, GraphError> {
        let timestamps = timestamps && gpu.caps.has(Capability::TimestampQuery);
        let settings = GpuProfilerSettings {
            enable_timer_queries: timestamps,
            enable_debug_groups: true,
            max_num_pending_frames: MAX_PENDING_FRAMES,
        };
        let profiler = GpuProfiler::new(&gpu.device, settings)
            .map_err(|e| GraphError::Profiler(e.to_string()))?;
        let stats = if gpu.caps.has(Capability::PipelineStatistics) {
            Some(StatsQueries::new(&gpu.device))
        } else {
            static WARNED: std::sync::Once = std::sync::Once::new();
            WARNED.call_once(|| {
                log::warn!(
                    "sward: {} has no pipeline statistics queries; GPU work counters are absent",
                    gpu.summary.name
                )
            });
            None
        };
        Ok(GraphExecutor {
            pool: ResourcePool::default(),
            profiler,
            timestamps,
            frame: 0,
            pending: VecDeque::new(),
            waiting: VecDeque::new(),
            ready_work: HashMap::new(),
            finished: Vec::new(),
            stand_ins: StandIns::new(&gpu.device),
            stats,
        })
    }

    /// Whether passes get GPU work counters (pipeline statistics) on this device.
    pub fn work_counters_enabled(&self) -> bool {
        self.stats.is_some()
    }

    /// Whether passes get GPU timestamps on this device.
    pub fn timestamps_enabled(&self) -> bool {
        self.timestamps
    }

    /// The transient resource pool.
    pub fn pool(&self) -> &ResourcePool {
        &self.pool
    }

    /// Validates and runs one frame's graph; returns CPU times and counters.
    /// GPU times for this frame arrive later through [`Self::poll_gpu_times`].
    ///
    /// In steps: validate, take the graph's resources ([`Self::bind`]),
    /// record every pass in order ([`Self::record_pass`]), submit unless
    /// wgpu or the graph refused the frame ([`Self::submit`]), then end the
    /// frame ([`Self::end_frame`]).
    pub fn execute(
        &mut self,
        gpu: &GpuContext,
        graph: RenderGraph<'_>,
    ) -> Result<FrameReport, GraphError> {
        let started = Instant::now();
        let started_thread = ThreadTimer::start();
        graph.validate(&gpu.caps)?;
        let device = &gpu.device;
        let bound = self.bind(device, &graph);
        device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("sward.frame"),
        });
        if let Some(s) = &mut self.stats {
            s.begin_frame(self.frame);
        }
        let setup_ms = started.elapsed().as_secs_f64() * 1e3;
        let setup_thread_ms = started_thread.elapsed_ms();
        let RenderGraph {
            id,
            textures: texture_decls,
            buffers: buffer_decls,
            bind_groups,
            passes: nodes,
            ..
        } = graph;
        let frame = FrameResources {
            graph: id,
            bound: &bound,
            bind_groups: &bind_groups,
        };
        let mut passes = Vec::with_capacity(nodes.len());
        let mut total = Counters::default();
        let mut undeclared_access: Option<GraphError> = None;
        for node in nodes {
            let (report, misuse) = self.record_pass(gpu, &mut encoder, &frame, node);
            if undeclared_access.is_none() {
                undeclared_access =
                    misuse_error(misuse, &report.name, &texture_decls, &buffer_decls);
            }
            total += report.counters;
            passes.push(report);
        }
        let submit_start = Instant::now();
        let submit_thread = ThreadTimer::start();
        self.submit(gpu, encoder, undeclared_access)?;
        let submit_ms = submit_start.elapsed().as_secs_f64() * 1e3;
        let submit_thread_ms = submit_thread.elapsed_ms();
        let finish_start = Instant::now();
        let finish_thread = ThreadTimer::start();
        let frame = self.end_frame(gpu)?;
        let finish_ms = finish_start.elapsed().as_secs_f64() * 1e3;
        let finish_thread_ms = finish_thread.elapsed_ms();
        Ok(FrameReport {
            frame,
            passes,
            cpu_ms: started.elapsed().as_secs_f64() * 1e3,
            cpu_thread_ms: started_thread.elapsed_ms(),
            overhead: [
                ("frame.setup", setup_ms),
                ("frame.submit", submit_ms),
                ("frame.finish", finish_ms),
            ],
            overhead_thread_ms: [setup_thread_ms, submit_thread_ms, finish_thread_ms],
            counters: total,
        })
    }

    /// The graph's textures (with their views: a transient's now, an
    /// imported one's when a pass first asks) and buffers, transient ones
    /// taken from the pool.
    fn bind(&mut self, device: &wgpu::Device, graph: &RenderGraph<'_>) -> Bound {
        let mut textures = Vec::with_capacity(graph.textures.len());
        let mut views = Vec::with_capacity(graph.textures.len());
        for decl in &graph.textures {
            match &decl.source {
                TextureSource::Imported(t) => {
                    // Made when a pass first asks (attachments, `ctx.res.view`):
                    // most imported textures are only bound through groups.
                    views.push(std::cell::OnceCell::new());
                    textures.push(t.clone());
                }
                TextureSource::Transient(desc) => {
                    let mut desc = *desc;
                    desc.usage |= decl.extra_usage;
                    let (t, v) = self.pool.take_texture(device, &decl.name, desc);
                    textures.push(t);
                    views.push(std::cell::OnceCell::from(v));
                }
            }
        }
        let buffers = graph
            .buffers
            .iter()
            .map(|decl| match &decl.source {
                BufferSource::Imported(b) => b.clone(),
                BufferSource::Transient(desc) => self.pool.take_buffer(device, &decl.name, *desc),
            })
            .collect();
        Bound {
            textures,
            views,
            buffers,
        }
    }

    /// Records one pass (compute, render or transfer) into `encoder` with
    /// its timestamp and pipeline-statistics queries; returns its report and
    /// the first resource it used without declaring it, if any.
    fn record_pass(
        &mut self,
        gpu: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        frame: &FrameResources<'_>,
        node: super::PassNode<'_>,
    ) -> (PassReport, Option<Misuse>) {
        let (device, queue) = (&gpu.device, &gpu.queue);
        let _scope = pass_scope(&node.name);
        let t0 = Instant::now();
        let t0_thread = ThreadTimer::start();
        let mut counters = Counters::default();
        let mut declared: Vec<ResourceId> = node.reads.clone();
        declared.extend(&node.writes);
        if let PassKind::Render { colors, depth, .. } = &node.kind {
            for c in colors {
                declared.push(c.texture.into());
                declared.extend(c.resolve.map(ResourceId::from));
            }
            declared.extend(depth.map(|d| ResourceId::from(d.texture)));
        }
        let misuse = std::cell::Cell::new(None);
        let stand_ins = &self.stand_ins;
        let (textures, views) = (&frame.bound.textures, &frame.bound.views);
        let res = || Resources {
            graph: frame.graph,
            textures,
            views,
            buffers: &frame.bound.buffers,
            bind_groups: frame.bind_groups,
            declared: &declared,
            misuse: &misuse,
            stand_ins,
        };
        match node.kind {
            PassKind::Compute(record) => {
                let query = self.profiler.begin_pass_query(node.name.as_str(), encoder);
                {
                    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some(&node.name),
                        timestamp_writes: query.compute_pass_timestamp_writes(),
                    });
                    let counted = StatsQueries::begin(self.stats.as_mut(), &node.name, &mut pass);
                    let mut ctx = ComputeCtx {
                        pass,
                        device,
                        queue,
                        res: res(),
                        counters: &mut counters,
                    };
                    record(&mut ctx);
                    if counted {
                        ctx.pass.end_stats();
                    }
                }
                self.profiler.end_query(encoder, query);
            }
            PassKind::Render {
                colors,
                depth,
                record,
            } => {
                let query = self.profiler.begin_pass_query(node.name.as_str(), encoder);
                let color_attachments: Vec<_> = colors
                    .iter()
                    .map(|c| {
                        Some(wgpu::RenderPassColorAttachment {
                            view: view_of(textures, views, c.texture.1),
                            depth_slice: None,
                            resolve_target: c.resolve.map(|r| view_of(textures, views, r.1)),
                            ops: wgpu::Operations {
                                load: c.load,
                                store: wgpu::StoreOp::Store,
                            },
                        })
                    })
                    .collect();
                let depth_attachment = depth.map(|d| wgpu::RenderPassDepthStencilAttachment {
                    view: view_of(textures, views, d.texture.1),
                    depth_ops: Some(wgpu::Operations {
                        load: d.load,
                        store: d.store,
                    }),
                    stencil_ops: None,
                });
                let sample_count = colors
                    .first()
                    .map(|c| textures[c.texture.1].sample_count())
                    .or(depth.map(|d| textures[d.texture.1].sample_count()))
                    .unwrap_or(1);
                {
                    let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                        label: Some(&node.name),
                        color_attachments: &color_attachments,
                        depth_stencil_attachment: depth_attachment,
                        timestamp_writes: query.render_pass_timestamp_writes(),
                        occlusion_query_set: None,
                    });
                    let counted = StatsQueries::begin(self.stats.as_mut(), &node.name, &mut pass);
                    let mut ctx = RenderCtx {
                        pass,
                        device,
                        queue,
                        res: res(),
                        counters: &mut counters,
                        sample_count,
                    };
                    record(&mut ctx);
                    if counted {
                        ctx.pass.end_stats();
                    }
                }
                self.profiler.end_query(encoder, query);
            }
            PassKind::Transfer(record) => {
                let query = self.profiler.begin_query(node.name.as_str(), encoder);
                {
                    let mut ctx = TransferCtx {
                        encoder,
                        device,
                        queue,
                        res: res(),
                        counters: &mut counters,
                    };
                    record(&mut ctx);
                }
                self.profiler.end_query(encoder, query);
            }
        }
        let report = PassReport {
            name: node.name,
            cpu_ms: t0.elapsed().as_secs_f64() * 1e3,
            cpu_thread_ms: t0_thread.elapsed_ms(),
            counters,
        };
        (report, misuse.get())
    }

    /// Resolves the queries and finishes the frame's commands; submits them
    /// unless wgpu rejected a pass or a pass used a resource it did not
    /// declare (`undeclared`), in which case the frame is abandoned and the
    /// error returned.
    fn submit(
        &mut self,
        gpu: &GpuContext,
        mut encoder: wgpu::CommandEncoder,
        undeclared: Option<GraphError>,
    ) -> Result<(), GraphError> {
        let device = &gpu.device;
        self.profiler.resolve_queries(&mut encoder);
        if let Some(s) = &self.stats {
            s.resolve(&mut encoder);
        }
        let commands = encoder.finish();
        // Pass recording errors surface at `finish`; never submit a rejected frame.
        let error = pollster::block_on(device.pop_error_scope());
        if let Some(e) = undeclared {
            drop(commands);
            self.abandon_frame(device)?;
            return Err(e);
        }
        if error.is_none() {
            device.push_error_scope(wgpu::ErrorFilter::Validation);
            // Copies recorded since the last frame (residency changes) first.
            gpu.submit([commands]);
            if let Some(s) = &mut self.stats {
                s.submitted();
            }
        }
        let error = match error {
            Some(e) => Some(e),
            None => pollster::block_on(device.pop_error_scope()),
        };
        if let Some(e) = error {
            self.abandon_frame(device)?;
            return Err(GraphError::Wgpu(e.to_string()));
        }
        Ok(())
    }

    /// Ends a submitted frame: the profiler's frame, the pending GPU times,
    /// the pool's frame; collects finished GPU work. Returns the frame's
    /// number.
    fn end_frame(&mut self, gpu: &GpuContext) -> Result<u64, GraphError> {
        self.profiler
            .end_frame()
            .map_err(|e| GraphError::Profiler(e.to_string()))?;
        if self.pending.len() == MAX_PENDING_FRAMES {
            // The profiler drops its newest pending frame when full; mirror that.
            self.pending.pop_back();
        }
        self.pending.push_back(self.frame);
        self.pool.end_frame();
        let frame = self.frame;
        self.frame += 1;
        let _ = gpu.device.poll(wgpu::PollType::Poll);
        self.collect(gpu);
        Ok(frame)
    }

    /// After wgpu rejected a frame (nothing was submitted): its reserved
    /// timestamp queries will never be written. Destroying such a query set
    /// crashed lavapipe (Mesa 22.3) on later submissions, so the profiler is
    /// replaced and the old one deliberately leaked; this is an error path only.
    fn abandon_frame(&mut self, device: &wgpu::Device) -> Result<(), GraphError> {
        let fresh = GpuProfiler::new(device, self.profiler.settings().clone())
            .map_err(|e| GraphError::Profiler(e.to_string()))?;
        std::mem::forget(std::mem::replace(&mut self.profiler, fresh));
        if let Some(s) = &mut self.stats {
            s.abandoned();
        }
        self.pending.clear();
        self.pool.end_frame();
        self.frame += 1;
        Ok(())
    }

    fn collect(&mut self, gpu: &GpuContext) {
        let period = gpu.timestamp_period();
        while let Some(results) = self.profiler.process_finished_frame(period) {
            let Some(frame) = self.pending.pop_front() else {
                break;
            };
            let mut passes = Vec::new();
            flatten(&results, &mut passes);
            self.waiting.push_back(GpuFrameTimes {
                frame,
                passes,
                work: None,
            });
        }
        let Some(stats) = &mut self.stats else {
            self.finished.extend(self.waiting.drain(..));
            return;
        };
        self.ready_work.extend(stats.collect());
        // A frame's times wait for its counters while they are in flight.
        while let Some(front) = self.waiting.front() {
            let work = self.ready_work.remove(&front.frame);
            if work.is_none() && stats.pending(front.frame) {
                break;
            }
            if let Some(mut times) = self.waiting.pop_front() {
                times.work = work;
                self.finished.push(times);
            }
        }
        // Counters whose frame's times were dropped by the profiler.
        let horizon = self.frame.saturating_sub(4 * MAX_PENDING_FRAMES as u64);
        self.ready_work.retain(|&f, _| f >= horizon);
    }

    /// GPU times of frames that finished since the last call (non-blocking).
    pub fn poll_gpu_times(&mut self, gpu: &GpuContext) -> Vec<GpuFrameTimes> {
        let _ = gpu.device.poll(wgpu::PollType::Poll);
        self.collect(gpu);
        std::mem::take(&mut self.finished)
    }

    /// Waits for the GPU and returns the times of every frame still outstanding.
    pub fn flush(&mut self, gpu: &GpuContext) -> Vec<GpuFrameTimes> {
        gpu.wait_idle();
        self.collect(gpu);
        std::mem::take(&mut self.finished)
    }
}

/// A frame's textures, their views and buffers, in declaration order.
struct Bound {
    textures: Vec<wgpu::Texture>,
    views: Vec<std::cell::OnceCell<wgpu::TextureView>>,
    buffers: Vec<wgpu::Buffer>,
}

/// What every pass of a frame records with: its graph's id, resources and
/// bind groups.
struct FrameResources<'f> {
    graph: u32,
    bound: &'f Bound,
    bind_groups: &'f [super::BindGroupDecl],
}

/// The error of pass `pass`'s misuse of a resource: one it did not declare
/// (named from the graph's declarations), or one of another graph.
fn misuse_error(
    misuse: Option<Misuse>,
    pass: &str,
    textures: &[super::TextureDecl],
    buffers: &[super::BufferDecl],
) -> Option<GraphError> {
    match misuse? {
        Misuse::Undeclared(id) => {
            let resource = match id {
                ResourceId::Texture(TextureId(_, i)) => textures.get(i).map(|t| &t.name),
                ResourceId::Buffer(BufferId(_, i)) => buffers.get(i).map(|b| &b.name),
            }
            .map_or("?", String::as_str);
            Some(GraphError::UndeclaredAccess {
                pass: pass.to_owned(),
                resource: resource.to_owned(),
            })
        }
        Misuse::Foreign => Some(GraphError::UnknownResource {
            pass: pass.to_owned(),
        }),
    }
}

fn flatten(results: &[GpuTimerQueryResult], out: &mut Vec<GpuPassTime>) {
    for r in results {
        if let Some(t) = &r.time {
            out.push(GpuPassTime {
                name: r.label.clone(),
                start_ns: (t.start * 1e9).round() as u64,
                end_ns: (t.end * 1e9).round() as u64,
            });
        }
        flatten(&r.nested_queries, out);
    }
}
