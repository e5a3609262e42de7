//! The draw of the parts the cull kept ([`DrawParts`]): one render pass
//! per cull phase, one multi-draw-indirect of the shared meshes per vertex
//! entry point (or one indirect draw per kind where the device takes no
//! non-zero first instance in indirect args).

use std::collections::HashMap;

use sward_engine::graph::{BufferId, RenderGraph};

use super::cull::{DrawArgs, INSTANCES_PER_KIND, KINDS, SECOND};
use super::layout::PieceKind;
use super::state::VERTEX_ENTRIES;
use super::{PASS, PASS_TWO};
use crate::frame::{FrameView, PassTargets};

/// What a clipmap draw pass reaches: the cull's outputs, the draw uniforms
/// and group, the shared meshes and the pipelines.
#[derive(Clone, Copy)]
pub(super) struct DrawParts<'a> {
    pub(super) args: BufferId,
    pub(super) instances: BufferId,
    pub(super) levels: sward_engine::graph::TextureId,
    pub(super) uniforms: BufferId,
    pub(super) group: sward_engine::graph::BindGroupId,
    pub(super) vertices: &'a wgpu::Buffer,
    pub(super) indices: &'a wgpu::Buffer,
    pub(super) pipelines: &'a HashMap<u32, Vec<wgpu::RenderPipeline>>,
    pub(super) multi: bool,
    /// Whether any tile refines (else the refined kinds' draws, always
    /// empty, are not issued).
    pub(super) refined: bool,
}

impl<'a> DrawParts<'a> {
    /// Adds the draw of phase `phase` (0: [`PASS`], writing the draw
    /// uniforms `uniform_bytes`; 1: [`PASS_TWO`], the parts the occlusion
    /// cull's second phase found visible): one multi-draw-indirect of the
    /// kinds' draws of that phase (or one indirect draw per kind). `count`
    /// then updates the frame's counters.
    pub(super) fn record(
        self,
        graph: &mut RenderGraph<'a>,
        view: &FrameView,
        targets: PassTargets,
        phase: u32,
        uniform_bytes: Option<Vec<u8>>,
        count: impl FnOnce(&mut sward_engine::graph::Counters) + 'a,
    ) {
        let name = if phase == 0 { PASS } else { PASS_TWO };
        let (color_load, depth_load) = targets.load_ops(&view.settings);
        let mut draw = graph
            .add_render_pass(name)
            .read(self.args)
            .read(self.instances)
            .read(self.levels)
            .read(self.uniforms)
            .needs(sward_engine::Capability::MultiDrawIndirect);
        if self.multi {
            draw = draw.needs(sward_engine::Capability::IndirectFirstInstance);
        }
        draw.color(targets.color, color_load, targets.resolve)
            .depth(targets.depth, depth_load, wgpu::StoreOp::Store)
            .record(move |ctx| {
                let Some(pipelines) = self.pipelines.get(&ctx.sample_count) else {
                    log::error!("{name}: no pipeline for {} samples", ctx.sample_count);
                    return;
                };
                if let Some(bytes) = &uniform_bytes {
                    ctx.queue
                        .write_buffer(ctx.res.buffer(self.uniforms), 0, bytes);
                    ctx.counters.bytes_uploaded += bytes.len() as u64;
                }
                ctx.pass
                    .set_bind_group(0, ctx.res.bind_group(self.group), &[]);
                let (args, instances) = (ctx.res.buffer(self.args), ctx.res.buffer(self.instances));
                ctx.pass.set_vertex_buffer(0, self.vertices.slice(..));
                ctx.pass
                    .set_index_buffer(self.indices.slice(..), wgpu::IndexFormat::Uint32);
                let first_draw = u64::from(phase) * KINDS as u64;
                let arg_size = std::mem::size_of::<DrawArgs>() as u64;
                // One multi-draw per vertex entry point (its kinds are
                // consecutive in `PieceKind::ALL`).
                let group = |k: usize| {
                    let entry = PieceKind::ALL[k].vertex_entry();
                    VERTEX_ENTRIES.iter().position(|e| *e == entry).unwrap_or(0)
                };
                // The refined kinds come last.
                let kinds = if self.refined {
                    KINDS
                } else {
                    PieceKind::ALL
                        .iter()
                        .position(|k| k.is_refined())
                        .unwrap_or(KINDS)
                };
                if self.multi {
                    ctx.pass.set_vertex_buffer(1, instances.slice(..));
                    let mut k = 0;
                    while k < kinds {
                        let g = group(k);
                        let end = (k..kinds).find(|&e| group(e) != g).unwrap_or(kinds);
                        ctx.pass.set_pipeline(&pipelines[g]);
                        ctx.pass.multi_draw_indexed_indirect(
                            args,
                            (first_draw + k as u64) * arg_size,
                            (end - k) as u32,
                        );
                        k = end;
                    }
                } else {
                    let range = u64::from(INSTANCES_PER_KIND) * 16;
                    let base = u64::from(phase) * u64::from(SECOND) * 16;
                    for k in 0..kinds {
                        ctx.pass.set_pipeline(&pipelines[group(k)]);
                        let start = base + k as u64 * range;
                        ctx.pass
                            .set_vertex_buffer(1, instances.slice(start..start + range));
                        ctx.pass
                            .draw_indexed_indirect(args, (first_draw + k as u64) * arg_size);
                    }
                }
                ctx.counters.draw_calls += kinds as u64;
                count(ctx.counters);
            });
    }
}
