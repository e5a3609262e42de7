//! [`SharedResources`]: GPU resources the renderer owns on behalf of several
//! techniques and hands to each of them through [`super::BuildInputs`] and
//! [`super::RecordInputs`], so a combination that needs one of them twice
//! holds, uploads and updates it once.
//!
//! Today that is the exact height atlas ([`HeightAtlas`]): grass `gpu-cull`
//! and the atlas terrain tiers (`atlas-instanced`, terrain `gpu-cull`) read
//! the same MCVT tiles, records and chunk index. The first technique that
//! asks for it ([`SharedResources::height_atlas_for`]) builds it for the
//! scene (whole, or with the scene's streaming reach); the renderer then
//! makes each residency change in it once, before the techniques follow it
//! ([`SharedResources::apply_residency`]), and lets it go when no technique
//! of the current combination uses it. Slot assignment therefore happens in
//! one place: the techniques only read which slots a tile's MCNKs hold.

use std::cell::OnceCell;

use sward_engine::GpuContext;

use super::{apply_prepared, PreparedTiles, Residency, ResidencyChange, SceneData};
use crate::atlas::{AtlasTile, HeightAtlas};
use crate::error::PassError;

/// What the renderer owns for its techniques (see the module docs).
#[derive(Default)]
pub struct SharedResources {
    height_atlas: OnceCell<Built>,
}

/// The atlas and how it was built.
struct Built {
    atlas: HeightAtlas,
    /// Built with a streaming reach (tiles change in place); a whole-world
    /// atlas is rebuilt on any change.
    streaming: bool,
}

impl Built {
    fn new(gpu: &GpuContext, scene: &SceneData<'_>) -> Result<Self, PassError> {
        let reach = scene.atlas_reach();
        Ok(Built {
            atlas: HeightAtlas::with_reach(gpu, scene.world, reach)?,
            streaming: reach.is_some(),
        })
    }
}

impl std::fmt::Debug for SharedResources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedResources")
            .field("height_atlas", &self.height_atlas.get().is_some())
            .finish()
    }
}

impl SharedResources {
    /// Nothing built yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The exact height atlas, if a technique asked for it.
    pub fn height_atlas(&self) -> Option<&HeightAtlas> {
        self.height_atlas.get().map(|b| &b.atlas)
    }

    /// The height atlas `technique` was built on (at record time and on a
    /// residency change); an error, not a panic, when there is none (inputs
    /// from another renderer).
    pub fn bound_height_atlas(&self, technique: &'static str) -> Result<&HeightAtlas, PassError> {
        self.height_atlas().ok_or_else(|| PassError::InvalidInput {
            technique,
            what: "the renderer's shared resources".into(),
            reason: "no height atlas, though the technique was built on one".into(),
        })
    }

    /// The exact height atlas of `scene`'s resident world, built on the
    /// first request (with the scene's streaming reach when it streams, so
    /// residency changes update it in place) and shared from then on.
    pub fn height_atlas_for(
        &self,
        gpu: &GpuContext,
        scene: &SceneData<'_>,
    ) -> Result<&HeightAtlas, PassError> {
        if let Some(b) = self.height_atlas.get() {
            return Ok(&b.atlas);
        }
        let built = Built::new(gpu, scene)?;
        Ok(&self.height_atlas.get_or_init(|| built).atlas)
    }

    /// Lets the atlas go (no technique of the current combination uses it);
    /// the caller frees it off the render thread.
    pub(crate) fn take_height_atlas(&mut self) -> Option<HeightAtlas> {
        self.height_atlas.take().map(|b| b.atlas)
    }

    /// Bytes of GPU memory held (the atlas, when built).
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.height_atlas
            .get()
            .map_or(0, |b| b.atlas.gpu_memory_bytes())
    }

    /// Makes `changes` (already applied to `scene`, evictions first) in the
    /// height atlas, each tile once, from the tiles the streamer's workers
    /// prepared (`prepared`, [`AtlasTile`] by tile). Without an atlas,
    /// nothing. When the atlas cannot follow in place (built whole, no
    /// room, a chunk-level change), it is rebuilt from `scene` and the
    /// answer is [`Residency::Rebuild`]: every technique that binds it must
    /// be rebuilt too. Bytes: what the in-place update wrote.
    pub(crate) fn apply_residency(
        &mut self,
        gpu: &GpuContext,
        scene: &SceneData<'_>,
        changes: &[ResidencyChange],
        prepared: &mut PreparedTiles,
    ) -> Result<Option<Residency>, PassError> {
        let Some(built) = self.height_atlas.get_mut() else {
            return Ok(None);
        };
        let answer = if built.streaming {
            let atlas = &mut built.atlas;
            let world = scene.world;
            let mut used = Vec::new();
            let answer = apply_prepared(changes, prepared, world, |t, p: Option<AtlasTile>| {
                let bytes = atlas.set_tile_prepared(gpu, world, t, p.as_ref())?;
                used.extend(p);
                Ok(bytes)
            })?;
            // The staging buffers of the placed tiles: freed off the thread.
            for p in used {
                prepared.discard(p);
            }
            answer
        } else {
            Residency::Rebuild
        };
        if answer == Residency::Rebuild {
            *built = Built::new(gpu, scene)?;
        }
        Ok(Some(answer))
    }
}
