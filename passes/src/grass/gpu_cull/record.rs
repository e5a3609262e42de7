//! The per-frame passes of [`GpuCull`]: `grass.cull` and `grass.draw`, plus
//! `grass.readback` every few frames (see the module docs of [`super`]). The
//! CPU work here is a fixed handful of commands: two uniform writes and one
//! small state write, two dispatches and at most one (multi-)draw per model
//! (and now and then one buffer copy).

use sward_engine::graph::{BindGroupId, BufferId, Counters, RenderGraph, Resources};
use sward_engine::lagged::add_copy_pass;
use sward_engine::{Capability, GpuContext};

use super::cull::{GrassCull, GRASS_CULL_BYTES};
use super::draw::{CULL_WORKGROUP, PASS_CULL, PASS_READBACK, READBACK_EVERY};
use super::generated::PASS_PLACE;
use super::instances::State;
use super::{Compaction, GpuCull, MultiDraw, ARGS_BYTES};
use crate::frame::Frame;
use crate::grass::draw::add_draw_pass;
use crate::grass::gpu::{GrassFrame, GRASS_FRAME_BYTES};
use crate::grass::models::GrassModels;

/// The cull's bind groups (and the per-instance dispatch buffer) as this
/// frame's graph declared them.
#[derive(Clone, Copy)]
enum CullGroups {
    Patches {
        group: BindGroupId,
    },
    Instances {
        dispatch: BufferId,
        patches: BindGroupId,
        instances: BindGroupId,
        roots: BindGroupId,
        pyramid: BindGroupId,
        /// This frame tests clumps against the pyramid.
        occlusion: bool,
    },
}

impl GpuCull {
    /// Adds `grass.cull` and `grass.draw` for `view` (and, every
    /// [`READBACK_EVERY`] frames, `grass.readback` after them).
    pub fn record<'a>(
        &'a mut self,
        frame: Frame<'a>,
        graph: &mut RenderGraph<'a>,
        models: &'a GrassModels,
    ) {
        let Frame { gpu, view, targets } = frame;
        self.pipelines.prepare(gpu, models, view);
        let frame_no = self.frame;
        let readback_now = frame_no % READBACK_EVERY == 0;
        self.frame += 1;
        // Occlusion needs the terrain's depth of this frame: only when the
        // terrain drew first (grass does not clear the targets).
        if targets.clear && self.occlusion_on() && !self.warned_no_occluder {
            self.warned_no_occluder = true;
            log::warn!(
                "grass.gpu-cull: occlusion without a terrain tier has no occluder; clumps are not occlusion-tested"
            );
        }
        // `occlusion=auto`: the gate reads the lagged counts of frames in
        // which the test ran and rests it while it hides next to nothing.
        let gate_open = match self.gate.as_mut() {
            Some(gate) => {
                let latest = self.readback.lock().ok().and_then(|r| {
                    let words = r.latest()?;
                    Some((
                        r.latest_frame()?,
                        *words.get(State::SURVIVORS)?,
                        *words.get(State::OCCLUDED)?,
                    ))
                });
                gate.decide(frame_no, latest)
            }
            None => true,
        };
        let wanted = !targets.clear && gate_open;
        // The terrain's pyramid of this frame when it published one, else
        // our own.
        let shared = if wanted {
            self.prepare_shared_hiz(gpu, graph, view.size)
        } else {
            None
        };
        self.terrain_pyramid_frames += u64::from(shared.is_some());
        let occlude = wanted && shared.is_none() && self.prepare_hiz(gpu, view.size);
        let this: &'a GpuCull = self;
        let plain = this.multi_draw == MultiDraw::Plain;
        let mut cull = GrassCull::new(view, this.entry_slots, this.model_count, plain)
            .with_instances(this.max_groups, this.lod.at(view.settings.grass_distance));
        let mut hiz_id = None;
        if let Some((id, levels)) = shared {
            hiz_id = Some(id);
            cull = cull.with_occlusion(view.size, levels);
        } else if occlude {
            if let Some(hiz) = this.hiz() {
                hiz_id = hiz.record(graph, targets.depth, view.sample_count);
                if let Some((pixels, _, levels)) = hiz.shape() {
                    cull = cull.with_occlusion(pixels, levels);
                }
            }
        }
        let occlude = hiz_id.is_some();
        let frame = GrassFrame::new(view);
        let cull_uniform = graph.import_buffer("grass.cull.uniforms", &this.cull_uniform);
        // The buffers the cull writes and the draw reads (the first is the
        // one the readback copies), and the cull's bind groups over them.
        let (first_id, second_id, groups) = match &this.compaction {
            Compaction::Patches {
                args,
                counts,
                bind_group,
                ..
            } => {
                let counts = graph.import_buffer("grass.counts", counts);
                let args = graph.import_buffer("grass.args", args);
                let group = graph.import_bind_group(
                    "grass.cull.group",
                    bind_group,
                    &[cull_uniform.into(), args.into(), counts.into()],
                );
                (counts, args, CullGroups::Patches { group })
            }
            Compaction::Instances {
                state,
                visible,
                dispatch,
                patch_group,
                bind_group,
                roots_group,
                no_hiz_group,
                hiz,
                shared_hiz,
                ..
            } => {
                let state = graph.import_buffer("grass.cull.state", state);
                let visible = graph.import_buffer("grass.visible", visible);
                let dispatch = graph.import_buffer("grass.cull.dispatch", dispatch);
                let patches = graph.import_bind_group(
                    "grass.cull.patch-group",
                    patch_group,
                    &[cull_uniform.into(), state.into(), dispatch.into()],
                );
                let instances = graph.import_bind_group(
                    "grass.cull.group",
                    bind_group,
                    &[cull_uniform.into(), state.into(), visible.into()],
                );
                let roots = graph.import_bind_group("grass.cull.roots", roots_group, &[]);
                let pyramid = match (shared, shared_hiz, hiz, hiz_id) {
                    (Some((id, _)), Some((_, group)), ..) => {
                        graph.import_bind_group("grass.cull.hiz", group, &[id.into()])
                    }
                    (None, _, Some((_, Some(group))), Some(id)) if occlude => {
                        graph.import_bind_group("grass.cull.hiz", group, &[id.into()])
                    }
                    _ => graph.import_bind_group("grass.cull.no-hiz", no_hiz_group, &[]),
                };
                let groups = CullGroups::Instances {
                    dispatch,
                    patches,
                    instances,
                    roots,
                    pyramid,
                    occlusion: cull.occlusion(),
                };
                (state, visible, groups)
            }
        };
        if let (true, CullGroups::Instances { dispatch, .. }) = (this.generates(), groups) {
            // placement=gpu: the frame's state header and dispatch, then the
            // generation (appending the survivors `cull_instances` reads).
            graph
                .add_compute_pass(PASS_PLACE)
                .needs(Capability::Compute)
                .read(cull_uniform)
                .read_write(first_id)
                .read_write(dispatch)
                .record(move |ctx| {
                    ctx.counters.bytes_uploaded += this.write_state(
                        ctx.queue,
                        ctx.res.buffer(first_id),
                        ctx.res.buffer(dispatch),
                    );
                    ctx.counters.bytes_uploaded += this.record_generation(ctx.queue, &mut ctx.pass);
                });
        }
        let mut pass = graph
            .add_compute_pass(PASS_CULL)
            .needs(Capability::Compute)
            .read(cull_uniform)
            .read_write(first_id)
            .read_write(second_id);
        if let CullGroups::Instances { dispatch, .. } = groups {
            pass = pass.read_write(dispatch);
        }
        if let Some(id) = hiz_id {
            pass = pass.read(id);
        }
        pass.record(move |ctx| {
            ctx.queue
                .write_buffer(ctx.res.buffer(cull_uniform), 0, bytemuck::bytes_of(&cull));
            ctx.counters.bytes_uploaded += GRASS_CULL_BYTES;
            // Collect finished readbacks, start mapping submitted copies.
            if let Ok(mut readback) = this.readback.lock() {
                readback.poll(frame_no);
            }
            ctx.counters.bytes_uploaded +=
                this.record_cull(ctx.queue, &mut ctx.pass, &ctx.res, first_id, groups);
        });
        let frame_uniform = graph.import_buffer("grass.uniforms", &this.frame_uniform);
        let frame_group = graph.import_bind_group(
            "grass.frame",
            &this.frame_bind_group,
            &[frame_uniform.into()],
        );
        let mut draw_binds = vec![cull_uniform.into()];
        if let CullGroups::Instances { .. } = groups {
            draw_binds.push(second_id.into());
        }
        let draw_group =
            graph.import_bind_group("grass.draw.group", &this.draw_bind_group, &draw_binds);
        add_draw_pass(
            graph,
            view,
            targets,
            &[frame_uniform, cull_uniform, first_id, second_id],
            move |ctx| {
                ctx.queue.write_buffer(
                    ctx.res.buffer(frame_uniform),
                    0,
                    bytemuck::bytes_of(&frame),
                );
                ctx.counters.bytes_uploaded += GRASS_FRAME_BYTES;
                let groups = [
                    ctx.res.bind_group(frame_group),
                    ctx.res.bind_group(draw_group),
                ];
                let outputs = [ctx.res.buffer(first_id), ctx.res.buffer(second_id)];
                let c = this.draw(&mut ctx.pass, models, groups, outputs);
                *ctx.counters += c;
            },
        );
        if readback_now {
            add_copy_pass(graph, PASS_READBACK, &this.readback, first_id, frame_no);
        }
    }

    /// Records the cull's dispatches into the open compute pass; returns the
    /// bytes written to the queue besides the uniforms. The counts (and, per
    /// instance, the dispatch and draw headers) start each frame from a
    /// queue write, not a reset dispatch; only the plain multi-draw over
    /// per-entry args still zeroes them with `reset`. `first` is the counts
    /// (patches) or the state (instances).
    fn record_cull(
        &self,
        queue: &wgpu::Queue,
        pass: &mut wgpu::ComputePass<'_>,
        res: &Resources<'_>,
        first: BufferId,
        groups: CullGroups,
    ) -> u64 {
        let wg = |n: u32| n.div_ceil(CULL_WORKGROUP);
        match (&self.compaction, groups) {
            (Compaction::Patches { pipelines, .. }, CullGroups::Patches { group }) => {
                pass.set_bind_group(0, res.bind_group(group), &[]);
                let mut written = 0;
                if self.multi_draw == MultiDraw::Plain {
                    // Zero the counts and the args; wgpu orders the two
                    // dispatches' storage accesses.
                    let zeroed = self.entry_slots.max(2 * self.model_count);
                    pass.set_pipeline(&pipelines.reset);
                    pass.dispatch_workgroups(wg(zeroed).max(1), 1, 1);
                } else {
                    let zeros = vec![0u8; 8 * self.model_count as usize];
                    if !zeros.is_empty() {
                        queue.write_buffer(res.buffer(first), 0, &zeros);
                    }
                    written = zeros.len() as u64;
                }
                if self.entry_slots > 0 {
                    pass.set_pipeline(&pipelines.cull);
                    pass.dispatch_workgroups(wg(self.entry_slots), 1, 1);
                }
                written
            }
            (
                Compaction::Instances { pipelines, .. },
                CullGroups::Instances {
                    dispatch,
                    patches,
                    instances,
                    roots,
                    pyramid,
                    occlusion,
                },
            ) => {
                let dispatch = res.buffer(dispatch);
                // The per-instance cull over the survivors, sized by the
                // dispatch header written before it.
                let cull_instances = |pass: &mut wgpu::ComputePass<'_>| {
                    pass.set_pipeline(if occlusion {
                        &pipelines.instances_occluded
                    } else {
                        &pipelines.instances
                    });
                    pass.set_bind_group(0, res.bind_group(instances), &[]);
                    pass.set_bind_group(1, res.bind_group(pyramid), &[]);
                    pass.set_bind_group(2, res.bind_group(roots), &[]);
                    pass.dispatch_workgroups_indirect(dispatch, 0);
                };
                if self.generates() {
                    // grass.place wrote the header and filled the survivors.
                    cull_instances(pass);
                    return 0;
                }
                let header = self.write_state(queue, res.buffer(first), dispatch);
                if self.entry_slots > 0 {
                    pass.set_pipeline(&pipelines.patches);
                    pass.set_bind_group(0, res.bind_group(patches), &[]);
                    pass.dispatch_workgroups(wg(self.entry_slots), 1, 1);
                    cull_instances(pass);
                }
                header
            }
            _ => {
                log::error!("grass.cull: bind groups of the other compaction");
                0
            }
        }
    }

    /// Writes the per-instance state header (no survivors, per model its
    /// draw with zero instances) and the empty indirect dispatch as the
    /// frame starts; the bytes written.
    fn write_state(
        &self,
        queue: &wgpu::Queue,
        state: &wgpu::Buffer,
        dispatch: &wgpu::Buffer,
    ) -> u64 {
        let Compaction::Instances { initial, .. } = &self.compaction else {
            return 0;
        };
        let header: &[u8] = bytemuck::cast_slice(initial);
        queue.write_buffer(state, 0, header);
        queue.write_buffer(dispatch, 0, bytemuck::cast_slice(&State::DISPATCH));
        header.len() as u64 + 12
    }

    /// With occlusion on: the depth pyramid the terrain published in
    /// `graph` for a target of `size` (its id and level count), with the
    /// cull's group 1 over it made when the texture is new; `None` when the
    /// terrain published none (or one of another size), so grass builds its
    /// own.
    fn prepare_shared_hiz(
        &mut self,
        gpu: &GpuContext,
        graph: &RenderGraph<'_>,
        size: [u32; 2],
    ) -> Option<(sward_engine::graph::TextureId, u32)> {
        let Compaction::Instances {
            hiz: Some(_),
            pipelines,
            shared_hiz,
            ..
        } = &mut self.compaction
        else {
            return None;
        };
        let base = crate::hiz::base_size(size).map(|s| s.max(1));
        let published = graph
            .published_texture(crate::hiz::TERRAIN_PYRAMID)
            .and_then(|id| Some((id, graph.imported_texture(id)?)))
            .filter(|(_, t)| {
                let extent = t.size();
                [extent.width, extent.height] == base && t.format() == crate::hiz::HIZ_FORMAT
            });
        let Some((id, texture)) = published else {
            // Do not keep a pyramid the terrain no longer offers alive.
            *shared_hiz = None;
            return None;
        };
        if shared_hiz.as_ref().is_none_or(|(t, _)| t != texture) {
            let view = texture.create_view(&Default::default());
            let group = crate::hiz::pyramid_group(&gpu.device, &pipelines.hiz, &view);
            *shared_hiz = Some((texture.clone(), group));
        }
        Some((id, texture.mip_level_count()))
    }

    /// With occlusion on: makes the pyramid for a target of `size` (and the
    /// cull's group 1 over it); returns whether occlusion can run.
    fn prepare_hiz(&mut self, gpu: &GpuContext, size: [u32; 2]) -> bool {
        let Compaction::Instances {
            hiz: Some((hiz, group)),
            pipelines,
            ..
        } = &mut self.compaction
        else {
            return false;
        };
        hiz.ensure_group(&gpu.device, size, &pipelines.hiz, group);
        group.is_some()
    }

    /// Clumps the occlusion test dropped in the last frame read back.
    pub fn occluded_lately(&self) -> Option<u64> {
        if !self.occlusion_on() {
            return None;
        }
        let readback = self.readback.lock().ok()?;
        readback
            .latest()
            .and_then(|w| w.get(State::OCCLUDED))
            .map(|&n| u64::from(n))
    }

    /// Records the draws into the open pass and returns the counters.
    /// `groups` are the frame and draw groups (0 and 2), `outputs` the
    /// cull's outputs (counts and args, or state and visible list).
    fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        models: &GrassModels,
        [frame_group, draw_group]: [&wgpu::BindGroup; 2],
        [first, second]: [&wgpu::Buffer; 2],
    ) -> Counters {
        let mut c = Counters {
            instances_submitted: self.instances,
            ..Counters::default()
        };
        pass.set_bind_group(0, frame_group, &[]);
        pass.set_bind_group(2, draw_group, &[]);
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
            match &self.compaction {
                Compaction::Patches { .. } => {
                    let (counts, args) = (first, second);
                    let offset = u64::from(region.start) * ARGS_BYTES;
                    let max = region.end - region.start;
                    match self.multi_draw {
                        MultiDraw::Count => pass.multi_draw_indexed_indirect_count(
                            args,
                            offset,
                            counts,
                            m as u64 * 4,
                            max,
                        ),
                        MultiDraw::Plain => pass.multi_draw_indexed_indirect(args, offset, max),
                    }
                    c.draw_calls += u64::from(max);
                }
                Compaction::Instances { .. } => {
                    pass.draw_indexed_indirect(first, State::args_offset(m));
                    c.draw_calls += 1;
                }
            }
        }
        // Instances and triangles the GPU drew, as read back a few frames
        // late; before the first readback arrives, all that was submitted.
        let latest = self
            .readback
            .lock()
            .ok()
            .and_then(|r| r.latest().map(<[u32]>::to_vec));
        if self.generates() {
            // placement=gpu: the placements generated for the cull (the
            // stored path counts the descriptors it holds), as read back
            // with the drawn counts; 0 before the first readback.
            c.instances_submitted = latest
                .as_ref()
                .and_then(|w| w.get(super::generated::STATE_PLACEMENTS))
                .map_or(0, |&placed| u64::from(placed));
        }
        let n = models.len();
        let drawn_per_model: Option<Vec<u32>> = latest.map(|words| match self.compaction {
            Compaction::Patches { .. } => (0..n)
                .map(|m| words.get(n + m).copied().unwrap_or(0))
                .collect(),
            Compaction::Instances { .. } => State::instances(&words, n),
        });
        for (m, model) in models.models.iter().enumerate() {
            let drawn = match &drawn_per_model {
                Some(counts) => u64::from(counts.get(m).copied().unwrap_or(0)),
                None => self.model_instances.get(m).copied().unwrap_or(0),
            };
            c.instances_drawn += drawn;
            c.triangles += drawn * model.triangles;
        }
        c
    }
}
