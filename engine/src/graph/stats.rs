//! GPU work counters per pass: one pipeline statistics query around every
//! render and compute pass of a frame, resolved at the end of the frame and
//! read back a few frames later without stalling, like the timestamps.
//!
//! The five counters are the ones Vulkan's pipeline statistics queries
//! (and RenderDoc's and PIX's pipeline statistics views) show: vertex shader
//! invocations, clipper invocations (primitives entering the clipper),
//! clipper primitives out, fragment shader invocations and compute shader
//! invocations. They count work, not time: for one driver they are the same
//! on every run of the same frame, which makes them the figure that decides a
//! comparison where timers on a shared machine cannot. What exactly a driver
//! counts differs (early depth, helper invocations, MSAA): compare counters
//! within one device and driver.
//!
//! Only the queries a frame used are resolved (resolving indices never
//! written can stall a submit for seconds on some drivers). A frame finds
//! a free read-back slot or goes without counters; it never waits for one.

use std::sync::{Arc, Mutex};

/// Counters per query, in the order wgpu writes them (the bit order of
/// [`wgpu::PipelineStatisticsTypes`]).
const COUNTERS: usize = 5;
/// Bytes of one resolved query.
const QUERY_BYTES: u64 = COUNTERS as u64 * 8;
/// Queries per frame slot: passes beyond it in one frame go uncounted.
const QUERIES_PER_FRAME: u32 = 128;
/// Read-back slots: frames whose counters may be in flight at once.
const SLOTS: usize = 6;

/// The pipeline statistics of one pass (or a sum of passes) in one frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PipelineStats {
    /// Vertex shader invocations (RenderDoc, PIX: "VS invocations").
    pub vs_invocations: u64,
    /// Primitives that entered the clipper ("clipper invocations",
    /// "IA primitives" / "clipper in").
    pub clipper_invocations: u64,
    /// Primitives the clipper passed on to rasterisation ("clipper
    /// primitives out", "clipper out").
    pub clipper_primitives: u64,
    /// Fragment shader invocations ("PS invocations").
    pub fs_invocations: u64,
    /// Compute shader invocations ("CS invocations").
    pub cs_invocations: u64,
}

impl PipelineStats {
    /// sward's name and the label RenderDoc and PIX give each counter, in
    /// the order of [`Self::values`].
    pub const NAMES: [(&'static str, &'static str); COUNTERS] = [
        ("vs_invocations", "VS invocations"),
        ("clipper_invocations", "clipper in"),
        ("clipper_primitives", "clipper out"),
        ("fs_invocations", "PS invocations"),
        ("cs_invocations", "CS invocations"),
    ];

    /// The counters in the order of [`Self::NAMES`].
    pub fn values(&self) -> [u64; COUNTERS] {
        [
            self.vs_invocations,
            self.clipper_invocations,
            self.clipper_primitives,
            self.fs_invocations,
            self.cs_invocations,
        ]
    }

    /// Counters from the order of [`Self::NAMES`].
    pub fn from_values(v: [u64; COUNTERS]) -> Self {
        PipelineStats {
            vs_invocations: v[0],
            clipper_invocations: v[1],
            clipper_primitives: v[2],
            fs_invocations: v[3],
            cs_invocations: v[4],
        }
    }
}

impl std::ops::AddAssign for PipelineStats {
    fn add_assign(&mut self, o: Self) {
        let (a, b) = (self.values(), o.values());
        *self = Self::from_values(std::array::from_fn(|i| a[i] + b[i]));
    }
}

impl std::iter::Sum for PipelineStats {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::default(), |mut sum, s| {
            sum += s;
            sum
        })
    }
}

/// The counters of one pass in one frame.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PassWork {
    /// Pass name (`subsystem.name`).
    pub name: String,
    /// What the GPU did for it.
    pub stats: PipelineStats,
}

/// Sum of the counters of every pass in `work` whose name starts with `prefix`.
pub fn work_with_prefix(work: &[PassWork], prefix: &str) -> PipelineStats {
    work.iter()
        .filter(|w| w.name.starts_with(prefix))
        .map(|w| w.stats)
        .sum()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SlotState {
    /// Free for a new frame.
    Free,
    /// Taken by the frame being recorded.
    Recording,
    /// Submitted; the read-back is mapping.
    Mapping,
    /// Mapped and ready to read (`false`: the map failed).
    Mapped(bool),
}

struct Slot {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    read: wgpu::Buffer,
    state: Arc<Mutex<SlotState>>,
    frame: u64,
    names: Vec<String>,
}

/// The statistics queries of an executor (present only where the device
/// has [`crate::Capability::PipelineStatistics`]).
pub(super) struct StatsQueries {
    slots: Vec<Slot>,
    /// The slot the frame being recorded uses.
    current: Option<usize>,
}

impl StatsQueries {
    pub(super) fn new(device: &wgpu::Device) -> Self {
        let slots = (0..SLOTS)
            .map(|i| Slot {
                set: device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("sward.graph.pipeline-statistics"),
                    ty: wgpu::QueryType::PipelineStatistics(wgpu::PipelineStatisticsTypes::all()),
                    count: QUERIES_PER_FRAME,
                }),
                resolve: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(&format!("sward.graph.stats.resolve.{i}")),
                    size: u64::from(QUERIES_PER_FRAME) * QUERY_BYTES,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                }),
                read: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(&format!("sward.graph.stats.read.{i}")),
                    size: u64::from(QUERIES_PER_FRAME) * QUERY_BYTES,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
                state: Arc::new(Mutex::new(SlotState::Free)),
                frame: 0,
                names: Vec::new(),
            })
            .collect();
        StatsQueries {
            slots,
            current: None,
        }
    }

    fn state(slot: &Slot) -> SlotState {
        *slot.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set_state(slot: &Slot, s: SlotState) {
        *slot.state.lock().unwrap_or_else(|e| e.into_inner()) = s;
    }

    /// Takes a free slot for `frame` (none free: this frame is not counted).
    pub(super) fn begin_frame(&mut self, frame: u64) {
        self.current = self
            .slots
            .iter()
            .position(|s| Self::state(s) == SlotState::Free);
        if let Some(i) = self.current {
            let slot = &mut self.slots[i];
            Self::set_state(slot, SlotState::Recording);
            slot.frame = frame;
            slot.names.clear();
        }
    }

    /// The query set and index for the next pass, named `name` (none when
    /// the frame is not counted or its slot is full).
    pub(super) fn next_query(&mut self, name: &str) -> Option<(&wgpu::QuerySet, u32)> {
        let slot = &mut self.slots[self.current?];
        let index = slot.names.len() as u32;
        if index >= QUERIES_PER_FRAME {
            return None;
        }
        slot.names.push(name.to_owned());
        Some((&slot.set, index))
    }

    /// Starts `pass`'s pipeline-statistics query when this frame is
    /// counted and its slot has room; whether it did (the pass then ends it
    /// with [`StatsPass::end_stats`] before it closes).
    pub(super) fn begin(
        stats: Option<&mut StatsQueries>,
        name: &str,
        pass: &mut impl StatsPass,
    ) -> bool {
        stats
            .and_then(|s| s.next_query(name))
            .map(|(set, index)| pass.begin_stats(set, index))
            .is_some()
    }

    /// Records the resolve of the queries this frame used and their copy
    /// into the read-back buffer.
    pub(super) fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        let Some(slot) = self.current.map(|i| &self.slots[i]) else {
            return;
        };
        let used = slot.names.len() as u32;
        if used == 0 {
            return;
        }
        encoder.resolve_query_set(&slot.set, 0..used, &slot.resolve, 0);
        encoder.copy_buffer_to_buffer(
            &slot.resolve,
            0,
            &slot.read,
            0,
            u64::from(used) * QUERY_BYTES,
        );
    }

    /// The frame was submitted: starts mapping its read-back.
    pub(super) fn submitted(&mut self) {
        let Some(i) = self.current.take() else {
            return;
        };
        let slot = &self.slots[i];
        let used = slot.names.len() as u64;
        if used == 0 {
            Self::set_state(slot, SlotState::Free);
            return;
        }
        Self::set_state(slot, SlotState::Mapping);
        let state = slot.state.clone();
        slot.read
            .slice(..used * QUERY_BYTES)
            .map_async(wgpu::MapMode::Read, move |r| {
                *state.lock().unwrap_or_else(|e| e.into_inner()) = SlotState::Mapped(r.is_ok());
            });
    }

    /// The frame was not submitted: its slot is free again.
    pub(super) fn abandoned(&mut self) {
        if let Some(i) = self.current.take() {
            Self::set_state(&self.slots[i], SlotState::Free);
        }
    }

    /// Whether counters of `frame` are still to come.
    pub(super) fn pending(&self, frame: u64) -> bool {
        self.slots.iter().any(|s| {
            s.frame == frame && matches!(Self::state(s), SlotState::Mapping | SlotState::Recording)
        })
    }

    /// Counters of the frames whose read-back finished, by frame number.
    pub(super) fn collect(&mut self) -> Vec<(u64, Vec<PassWork>)> {
        let mut out = Vec::new();
        for slot in &mut self.slots {
            let SlotState::Mapped(ok) = Self::state(slot) else {
                continue;
            };
            let used = slot.names.len() as u64;
            if ok {
                let work = {
                    let data = slot.read.slice(..used * QUERY_BYTES).get_mapped_range();
                    let values: &[u64] = bytemuck::cast_slice(&data);
                    slot.names
                        .drain(..)
                        .zip(values.chunks_exact(COUNTERS))
                        .map(|(name, v)| PassWork {
                            name,
                            stats: PipelineStats::from_values(std::array::from_fn(|i| v[i])),
                        })
                        .collect()
                };
                slot.read.unmap();
                out.push((slot.frame, work));
            } else {
                log::warn!(
                    "sward: reading back GPU work counters of frame {} failed",
                    slot.frame
                );
            }
            slot.names.clear();
            Self::set_state(slot, SlotState::Free);
        }
        out.sort_by_key(|(f, _)| *f);
        out
    }
}

/// A pass that takes a pipeline-statistics query: compute and render passes
/// alike, so the executor starts and ends the query the same way for both.
pub(super) trait StatsPass {
    /// Starts the query at `index` of `set`.
    fn begin_stats(&mut self, set: &wgpu::QuerySet, index: u32);
    /// Ends the query started last.
    fn end_stats(&mut self);
}

impl StatsPass for wgpu::ComputePass<'_> {
    fn begin_stats(&mut self, set: &wgpu::QuerySet, index: u32) {
        self.begin_pipeline_statistics_query(set, index);
    }

    fn end_stats(&mut self) {
        self.end_pipeline_statistics_query();
    }
}

impl StatsPass for wgpu::RenderPass<'_> {
    fn begin_stats(&mut self, set: &wgpu::QuerySet, index: u32) {
        self.begin_pipeline_statistics_query(set, index);
    }

    fn end_stats(&mut self) {
        self.end_pipeline_statistics_query();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_keep_their_order_and_add_per_field() {
        let a = PipelineStats::from_values([1, 2, 3, 4, 5]);
        assert_eq!(a.fs_invocations, 4);
        assert_eq!(a.values(), [1, 2, 3, 4, 5]);
        let mut s = a;
        s += PipelineStats::from_values([10, 20, 30, 40, 50]);
        assert_eq!(s.values(), [11, 22, 33, 44, 55]);
        let work = vec![
            PassWork {
                name: "grass.draw".into(),
                stats: a,
            },
            PassWork {
                name: "terrain.draw".into(),
                stats: PipelineStats::from_values([7, 0, 0, 0, 0]),
            },
            PassWork {
                name: "grass.cull".into(),
                stats: PipelineStats::from_values([0, 0, 0, 0, 64]),
            },
        ];
        let grass = work_with_prefix(&work, "grass.");
        assert_eq!(grass.values(), [1, 2, 3, 4, 69]);
        assert_eq!(work_with_prefix(&work, "").vs_invocations, 8);
    }
}
