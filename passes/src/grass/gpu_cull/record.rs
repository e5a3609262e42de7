//! The per-frame passes of [`GpuCull`]: `grass.cull` and `grass.draw`, plus
//! `grass.readback` every few frames (see the module docs of [`super`]). The
//! CPU work here is a fixed handful of commands: two uniform writes, two
//! dispatches and at most one multi-draw per model (and now and then one
//! buffer copy).

use sward_engine::graph::{Counters, RenderGraph};
use sward_engine::{Capability, GpuContext};

use super::cull::{GrassCull, GRASS_CULL_BYTES};
use super::draw::{CULL_WORKGROUP, PASS_CULL, PASS_READBACK, READBACK_EVERY};
use super::{GpuCull, MultiDraw, ARGS_BYTES};
use crate::frame::{FrameView, PassTargets};
use crate::grass::draw::add_draw_pass;
use crate::grass::gpu::{GrassFrame, GRASS_FRAME_BYTES};
use crate::grass::models::GrassModels;

impl GpuCull {
    /// Adds `grass.cull` and `grass.draw` for `view` (and, every
    /// [`READBACK_EVERY`] frames, `grass.readback` before them).
    pub fn record<'a>(
        &'a mut self,
        gpu: &'a GpuContext,
        graph: &mut RenderGraph<'a>,
        view: &FrameView,
        targets: PassTargets,
        models: &'a GrassModels,
    ) {
        self.pipelines.prepare(gpu, models, view);
        let frame_no = self.frame;
        // Never on the first frame: no cull has filled the counts yet.
        let readback_now = frame_no % READBACK_EVERY == 1;
        self.frame += 1;
        let this: &'a GpuCull = self;
        let plain = this.multi_draw == MultiDraw::Plain;
        let cull = GrassCull::new(view, this.entry_count, this.model_count, plain);
        let frame = GrassFrame::new(view);
        let args_id = graph.import_buffer("grass.args", &this.args);
        let counts_id = graph.import_buffer("grass.counts", &this.counts);
        if readback_now {
            graph
                .add_transfer_pass(PASS_READBACK)
                .read(counts_id)
                .record(move |ctx| {
                    if let Ok(mut readback) = this.readback.lock() {
                        readback.copy(ctx.encoder, &this.counts, frame_no);
                    }
                });
        }
        let cull_uniform = graph.import_buffer("grass.cull.uniforms", &this.cull_uniform);
        graph
            .add_compute_pass(PASS_CULL)
            .needs(Capability::Compute)
            .read(cull_uniform)
            .read_write(args_id)
            .read_write(counts_id)
            .record(move |ctx| {
                ctx.queue
                    .write_buffer(&this.cull_uniform, 0, bytemuck::bytes_of(&cull));
                ctx.counters.bytes_uploaded += GRASS_CULL_BYTES;
                // Collect finished readbacks, start mapping submitted copies.
                if let Ok(mut readback) = this.readback.lock() {
                    readback.poll(frame_no);
                }
                let p = &this.cull_pipelines;
                ctx.pass.set_bind_group(0, &this.cull_bind_group, &[]);
                // Zero the counts (and the args for the plain multi-draw);
                // wgpu orders the two dispatches' storage accesses.
                let zeroed = if plain {
                    this.entry_count.max(2 * this.model_count)
                } else {
                    2 * this.model_count
                };
                ctx.pass.set_pipeline(&p.reset);
                ctx.pass
                    .dispatch_workgroups(zeroed.div_ceil(CULL_WORKGROUP).max(1), 1, 1);
                if this.entry_count > 0 {
                    ctx.pass.set_pipeline(&p.cull);
                    ctx.pass
                        .dispatch_workgroups(this.entry_count.div_ceil(CULL_WORKGROUP), 1, 1);
                }
            });
        let frame_uniform = graph.import_buffer("grass.uniforms", &this.frame_uniform);
        add_draw_pass(
            graph,
            view,
            targets,
            &[frame_uniform, args_id, counts_id],
            move |ctx| {
                ctx.queue
                    .write_buffer(&this.frame_uniform, 0, bytemuck::bytes_of(&frame));
                ctx.counters.bytes_uploaded += GRASS_FRAME_BYTES;
                let c = this.draw(&mut ctx.pass, models);
                *ctx.counters += c;
            },
        );
    }

    /// Records the multi-draws into the open pass and returns the counters.
    fn draw(&self, pass: &mut wgpu::RenderPass<'_>, models: &GrassModels) -> Counters {
        let mut c = Counters {
            instances_submitted: self.instances,
            ..Counters::default()
        };
        pass.set_bind_group(0, &self.frame_bind_group, &[]);
        pass.set_bind_group(2, &self.draw_bind_group, &[]);
        pass.set_vertex_buffer(0, models.vertex_buffer.slice(..));
        pass.set_index_buffer(models.index_buffer.slice(..), wgpu::IndexFormat::Uint16);
        // Depth-resolved materials first, blended after them (as static-batch).
        let mut order: Vec<usize> = (0..models.len()).collect();
        order.sort_by_key(|&m| !models.models[m].material.blend.is_depth_resolved());
        for m in order {
            let Some(region) = self.model_entries.get(m).filter(|r| !r.is_empty()) else {
                continue;
            };
            let Some(pipeline) = self.pipelines.for_model(m) else {
                log::error!("grass.draw: no gpu-cull pipeline for model {m}");
                continue;
            };
            pass.set_pipeline(pipeline);
            pass.set_bind_group(1, &models.models[m].bind_group, &[]);
            let offset = u64::from(region.start) * ARGS_BYTES;
            let max = region.end - region.start;
            match self.multi_draw {
                MultiDraw::Count => pass.multi_draw_indexed_indirect_count(
                    &self.args,
                    offset,
                    &self.counts,
                    m as u64 * 4,
                    max,
                ),
                MultiDraw::Plain => pass.multi_draw_indexed_indirect(&self.args, offset, max),
            }
            c.draw_calls += u64::from(max);
        }
        // Instances and triangles the GPU drew, as read back a few frames
        // late; before the first readback arrives, all that was submitted.
        let latest = self
            .readback
            .lock()
            .ok()
            .and_then(|r| r.latest().map(<[u32]>::to_vec));
        let n = models.len();
        for (m, model) in models.models.iter().enumerate() {
            let drawn = match &latest {
                Some(counts) => u64::from(counts.get(n + m).copied().unwrap_or(0)),
                None => self.model_instances.get(m).copied().unwrap_or(0),
            };
            c.instances_drawn += drawn;
            c.triangles += drawn * model.triangles;
        }
        c
    }
}
