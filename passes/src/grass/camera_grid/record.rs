//! What a `camera-grid` frame records ([`CameraGrid::record`]): in compact
//! mode the three compaction dispatches (`grass.grid.compact` evaluates and
//! tags every candidate, `grass.grid.offsets` lays the models' regions out
//! from the counts, `grass.grid.scatter` writes the kept blades' records),
//! the lagged readback of the drawn counts and the overflow, then
//! `grass.draw` (one draw per grid model, plus the fallback's batches).

use std::sync::atomic::Ordering;

use sward_engine::graph::RenderGraph;
use sward_engine::lagged::add_copy_pass;
use sward_engine::GpuContext;

use super::gpu::DRAW_STRIDE;
use super::params::GridMode;
use super::pipelines::{PASS_COMPACT, PASS_OFFSETS, PASS_READBACK, PASS_SCATTER};
use super::resources::{ARGS_WORDS, UNIFORM_BYTES};
use super::tier::{CameraGrid, READBACK_EVERY};
use crate::frame::{Frame, FrameView};
use crate::grass::draw::add_draw_pass;
use crate::grass::gpu::{GrassFrame, GRASS_FRAME_BYTES};
use crate::grass::material::{material_pipeline_desc, MaterialState};
use crate::grass::models::GrassModels;

/// Workgroups of 64 covering `total` invocations (x at most 65,535).
fn dispatch_size(total: u32) -> (u32, u32) {
    let groups = total.div_ceil(64);
    if groups > 65_535 {
        (65_535, groups.div_ceil(65_535))
    } else {
        (groups, 1)
    }
}

impl CameraGrid {
    fn prepare(&mut self, gpu: &GpuContext, models: &GrassModels, view: &FrameView) {
        let key = (view.sample_count, view.settings.alpha_to_coverage);
        self.fallback.prepare(gpu, models, view);
        if self.state_key == Some(key) {
            return;
        }
        self.states.clear();
        for &m in &self.grid_models {
            let state = material_pipeline_desc(&models.models[m].material, key.0, key.1);
            let entry = match self.mode {
                GridMode::Direct => "vs_direct",
                GridMode::Compact => "vs_compact",
            };
            let (shader, layout) = (&self.shader, &self.pipeline_layout);
            self.pipelines
                .entry((state, self.mode))
                .or_insert_with(|| build_pipeline(&gpu.device, layout, shader, &state, entry));
            self.states.push((m, state));
        }
        // Depth-resolved materials first, blended after (stable).
        self.states
            .sort_by_key(|(m, _)| !models.models[*m].material.blend.is_depth_resolved());
        self.state_key = Some(key);
    }

    /// Adds the frame's passes: the compaction (compact mode:
    /// `grass.grid.compact`, `grass.grid.offsets`, `grass.grid.scatter`)
    /// and `grass.draw` (one draw per grid model, plus fallback batches).
    pub fn record<'a>(
        &'a mut self,
        frame: Frame<'a>,
        graph: &mut RenderGraph<'a>,
        models: &'a GrassModels,
    ) {
        let Frame { gpu, view, targets } = frame;
        self.prepare(gpu, models, view);
        let uniform = self.uniform(view, models.len());
        self.last_uniform = Some(uniform);
        let frame_no = self.frame;
        self.frame += 1;
        // Never on the first frame: no compaction has filled the args yet.
        let readback_now = frame_no % READBACK_EVERY == 1;
        let this: &'a CameraGrid = self;
        let frame = GrassFrame::new(view);
        let frame_id = graph.import_buffer("grass.uniforms", &this.frame_uniform);
        let grid_id = graph.import_buffer("grass.grid.uniform", &this.res.uniform);
        let frame_group =
            graph.import_bind_group("grass.frame", &this.frame_bind_group, &[frame_id.into()]);
        let mut reads = vec![frame_id, grid_id];
        let mut render_binds = vec![grid_id.into()];
        let mut compacted = None;
        let total = this.candidates_total();
        let model_words = models.len() as u64 * ARGS_WORDS;
        if let (Some(p), Some(c), Some(group)) =
            (&this.compute, &this.res.compact, &this.res.compute_group)
        {
            let args = graph.import_buffer("grass.grid.args", &c.args);
            let list = graph.import_buffer("grass.grid.compacted", &c.list);
            let regions = graph.import_buffer("grass.grid.regions", &c.regions);
            let tags = graph.import_buffer("grass.grid.tags", &c.tags);
            let group = graph.import_bind_group(
                "grass.grid.compute",
                group,
                &[
                    grid_id.into(),
                    list.into(),
                    args.into(),
                    regions.into(),
                    tags.into(),
                ],
            );
            let empty = graph.import_bind_group("grass.grid.empty", &p.empty, &[]);
            // Each pass binds the whole group, so each declares all of it.
            for (name, pipeline) in [
                (PASS_COMPACT, &p.compact),
                (PASS_OFFSETS, &p.offsets),
                (PASS_SCATTER, &p.scatter),
            ] {
                graph
                    .add_compute_pass(name)
                    .needs(sward_engine::Capability::Compute)
                    .read(grid_id)
                    .write(args)
                    .write(list)
                    .write(regions)
                    .write(tags)
                    .record(move |ctx| {
                        if name == PASS_COMPACT {
                            ctx.queue.write_buffer(
                                ctx.res.buffer(grid_id),
                                0,
                                bytemuck::bytes_of(&uniform),
                            );
                            // Collect finished readbacks, start mapping
                            // submitted copies.
                            if let Ok(mut readback) = this.readback.lock() {
                                readback.poll(frame_no);
                            }
                            ctx.counters.bytes_uploaded += UNIFORM_BYTES;
                            ctx.counters.instances_submitted += u64::from(total);
                        }
                        ctx.pass.set_pipeline(pipeline);
                        let empty = ctx.res.bind_group(empty);
                        ctx.pass.set_bind_group(0, empty, &[]);
                        ctx.pass.set_bind_group(1, empty, &[]);
                        ctx.pass.set_bind_group(2, ctx.res.bind_group(group), &[]);
                        let (x, y) = if name == PASS_OFFSETS {
                            (1, 1)
                        } else {
                            dispatch_size(total)
                        };
                        ctx.pass.dispatch_workgroups(x, y, 1);
                    });
            }
            if readback_now {
                add_copy_pass(graph, PASS_READBACK, &this.readback, args, frame_no);
            }
            reads.extend([args, list, regions]);
            render_binds.push(list.into());
            render_binds.push(regions.into());
            compacted = Some(args);
        }
        let render_group =
            graph.import_bind_group("grass.grid.render", &this.res.render_group, &render_binds);
        add_draw_pass(graph, view, targets, &reads, move |ctx| {
            ctx.queue
                .write_buffer(ctx.res.buffer(frame_id), 0, bytemuck::bytes_of(&frame));
            ctx.counters.bytes_uploaded += GRASS_FRAME_BYTES;
            if this.mode == GridMode::Direct {
                ctx.queue
                    .write_buffer(ctx.res.buffer(grid_id), 0, bytemuck::bytes_of(&uniform));
                ctx.counters.bytes_uploaded += UNIFORM_BYTES;
            }
            let frame_group = ctx.res.bind_group(frame_group);
            let render_group = ctx.res.bind_group(render_group);
            let args = compacted.map(|id| ctx.res.buffer(id));
            let c = this.fallback.draw(&mut ctx.pass, models, frame_group);
            *ctx.counters += c;
            ctx.counters.instances_submitted += this.fallback.instances();
            // Instances the compacted draws drew, read back a few frames late
            // (nothing is known before the first readback arrives), and the
            // blades the list had no room for.
            let latest = this
                .readback
                .lock()
                .ok()
                .and_then(|r| r.latest().map(<[u32]>::to_vec));
            if let Some(&overflow) = latest.as_ref().and_then(|a| a.get(model_words as usize)) {
                this.note_overflow(overflow);
            }
            let pass = &mut ctx.pass;
            pass.set_bind_group(0, frame_group, &[]);
            pass.set_vertex_buffer(0, models.vertex_buffer.slice(..));
            pass.set_index_buffer(models.index_buffer.slice(..), wgpu::IndexFormat::Uint16);
            for (m, state) in &this.states {
                let Some(pipeline) = this.pipelines.get(&(*state, this.mode)) else {
                    continue;
                };
                let model = &models.models[*m];
                pass.set_pipeline(pipeline);
                pass.set_bind_group(1, &model.bind_group, &[]);
                pass.set_bind_group(2, render_group, &[(*m as u64 * DRAW_STRIDE) as u32]);
                match (args, this.mode) {
                    (Some(args), GridMode::Compact) => {
                        pass.draw_indexed_indirect(args, *m as u64 * ARGS_WORDS * 4);
                        let drawn = latest
                            .as_ref()
                            .and_then(|a| a.get(*m * ARGS_WORDS as usize + 1))
                            .map_or(0, |&n| u64::from(n));
                        ctx.counters.instances_drawn += drawn;
                        ctx.counters.triangles += drawn * model.triangles;
                    }
                    _ => {
                        let first = model.first_index;
                        pass.draw_indexed(
                            first..first + model.index_count,
                            model.base_vertex,
                            0..total,
                        );
                        ctx.counters.instances_submitted += u64::from(total);
                        ctx.counters.instances_drawn += u64::from(total);
                        ctx.counters.triangles += u64::from(total) * model.triangles;
                    }
                }
                ctx.counters.draw_calls += 1;
            }
        });
    }

    /// Records a read-back overflow: the run's largest, and one warning the
    /// first time a frame's blades did not fit the list.
    fn note_overflow(&self, overflow: u32) {
        let seen = self
            .overflow_max
            .fetch_max(u64::from(overflow), Ordering::Relaxed);
        if overflow > 0 && seen == 0 && !self.overflow_warned.swap(true, Ordering::Relaxed) {
            log::warn!(
                "grass.camera-grid: {overflow} blades of a frame found no room in the compacted \
                 list ({} records); they are not drawn (counted as grid_overflow_blades)",
                self.res.compact.as_ref().map_or(0, |c| c.capacity)
            );
        }
    }
}

fn build_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    shader: &wgpu::ShaderModule,
    state: &MaterialState,
    vertex_entry: &str,
) -> wgpu::RenderPipeline {
    let [vertices, _] = crate::grass::gpu::vertex_layouts();
    crate::grass::gpu::material_pipeline(
        device,
        "grass.grid.draw",
        layout,
        shader,
        vertex_entry,
        &[vertices],
        state,
    )
}
