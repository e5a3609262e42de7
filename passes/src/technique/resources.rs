//! Resources that several techniques of a subsystem share, owned by the
//! renderer and typed by their owner: the same idea as Bevy's resources,
//! which a plugin inserts and its systems read by type.
//!
//! The technique interface names no technique's types. A subsystem that
//! shares something between its techniques (grass: the detail models on
//! the GPU) registers a [`ResourceSetup`] in the registry; the renderer runs
//! every setup once, before it builds the first technique, and hands the
//! filled [`Resources`] to every technique it builds or records. A
//! technique reads its subsystem's resource by type
//! ([`Resources::get`]); nothing else knows what is stored.

use std::any::{Any, TypeId};
use std::collections::HashMap;

use sward_engine::GpuContext;
use sward_scenes::formats::TextureUpload;

use super::SceneData;
use crate::error::PassError;

/// Shared resources by type (at most one value of each type).
#[derive(Default)]
pub struct Resources {
    values: HashMap<TypeId, Box<dyn Any>>,
}

impl std::fmt::Debug for Resources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resources")
            .field("count", &self.values.len())
            .finish()
    }
}

impl Resources {
    /// The value of type `T`, if one was inserted.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.values.get(&TypeId::of::<T>())?.downcast_ref()
    }

    /// Whether a value of type `T` is held.
    pub fn contains<T: Any>(&self) -> bool {
        self.values.contains_key(&TypeId::of::<T>())
    }

    /// Holds `value`, replacing any earlier value of its type.
    pub fn insert<T: Any>(&mut self, value: T) {
        self.values.insert(TypeId::of::<T>(), Box::new(value));
    }
}

/// What a [`ResourceSetup`] gets: the device, the scene the first
/// techniques are built from, and how DXT textures reach the GPU.
#[derive(Clone, Copy)]
pub struct SetupInputs<'a> {
    /// The device.
    pub gpu: &'a GpuContext,
    /// The resident world and its grass.
    pub scene: SceneData<'a>,
    /// How DXT textures reach the GPU (the command line's
    /// `--texture-upload`).
    pub texture_upload: TextureUpload,
}

/// One subsystem's setup of its shared resources: inserts what is missing
/// (it may run again after a failed setup, so it keeps what it finds).
pub type ResourceSetup = fn(&mut Resources, &SetupInputs<'_>) -> Result<(), PassError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_found_by_its_type_and_replaced_by_one_of_the_same_type() {
        let mut r = Resources::default();
        assert!(r.get::<u32>().is_none());
        assert!(!r.contains::<u32>());
        r.insert(7u32);
        r.insert(String::from("grass"));
        assert_eq!(r.get::<u32>(), Some(&7));
        assert_eq!(r.get::<String>().map(String::as_str), Some("grass"));
        assert!(r.get::<u64>().is_none());
        r.insert(9u32);
        assert_eq!(r.get::<u32>(), Some(&9));
    }
}
