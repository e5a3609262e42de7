//! The two subsystems a frame draws (grass and terrain) and each one's
//! baseline tier. Both the registry and the tier names build on it.

use std::fmt;

/// The two subsystems a frame draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Subsystem {
    /// Ground-effect grass.
    Grass,
    /// Terrain.
    Terrain,
}

impl Subsystem {
    /// `grass` or `terrain`.
    pub fn name(self) -> &'static str {
        match self {
            Subsystem::Grass => "grass",
            Subsystem::Terrain => "terrain",
        }
    }

    /// The subsystem's baseline tier name.
    pub fn baseline(self) -> &'static str {
        match self {
            Subsystem::Grass => "static-batch",
            Subsystem::Terrain => "static-chunks",
        }
    }
}

impl fmt::Display for Subsystem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
