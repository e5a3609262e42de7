//! The client's density setting as a scene option (`--density N`): the
//! pick count of the client routines, 1.12's `frillDensity` and 3.3.5's
//! `groundEffectDensity`, set once for every tier of a run.
//!
//! The 1.12 client's settings write 16, 32 or 48 (its setter accepts 1 to
//! 256); the 3.3.5 client's setter accepts 16 to 256 and refuses anything
//! else. sward takes 16..=256 for both, so one value means the same world
//! whichever client's data is loaded. `per-cell` placement has no such
//! setting: asking for one there is an error, not a silent no-op.

use std::ops::RangeInclusive;

use super::client335::{MAX_GROUND_EFFECT_DENSITY, MIN_GROUND_EFFECT_DENSITY};
use super::Policy;

/// The density values `--density` accepts (the 3.3.5 setter's range, which
/// holds every value the 1.12 settings write).
pub const DENSITY_RANGE: RangeInclusive<u32> =
    MIN_GROUND_EFFECT_DENSITY..=MAX_GROUND_EFFECT_DENSITY;

/// Why a density setting cannot be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DensityError {
    /// The value is outside [`DENSITY_RANGE`].
    #[error(
        "density {density} is out of range: the client routines take {}..={} picks per MCNK \
         (1.12 frillDensity: the client's settings write 16, 32 or 48; 3.3.5 \
         groundEffectDensity: 16 to 256)",
        DENSITY_RANGE.start(),
        DENSITY_RANGE.end()
    )]
    OutOfRange {
        /// The value asked for.
        density: u32,
    },
    /// The policy has no density setting.
    #[error(
        "density {density} does not apply to `{policy}` placement: it sets the pick count of \
         the client routines (`client`, `client-3.3.5`; e.g. preset elwynn-client)"
    )]
    NotClient {
        /// The value asked for.
        density: u32,
        /// The policy's name.
        policy: &'static str,
    },
}

impl Policy {
    /// This policy with the client's density setting `density` (picks per
    /// MCNK); an error for a value outside [`DENSITY_RANGE`] or for
    /// `per-cell` placement.
    pub fn with_density(self, density: u32) -> Result<Self, DensityError> {
        if !DENSITY_RANGE.contains(&density) {
            return Err(DensityError::OutOfRange { density });
        }
        match self {
            Policy::Client(mut p) => {
                p.frill_density = density;
                Ok(Policy::Client(p))
            }
            Policy::Client335(mut p) => {
                p.ground_effect_density = density;
                Ok(Policy::Client335(p))
            }
            Policy::PerCell(_) => Err(DensityError::NotClient {
                density,
                policy: self.name(),
            }),
        }
    }

    /// The density setting (picks per MCNK) of a client routine; `None` for
    /// `per-cell`.
    pub fn density(&self) -> Option<u32> {
        match self {
            Policy::Client(p) => Some(p.frill_density),
            Policy::Client335(p) => Some(p.ground_effect_density),
            Policy::PerCell(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::{Client335Params, ClientParams, PerCellParams};

    #[test]
    fn density_sets_the_client_picks_and_refuses_the_rest() {
        let client = Policy::Client(ClientParams::default());
        let p = client.with_density(48).expect("in range");
        assert_eq!(p.density(), Some(48));
        let Policy::Client(c) = p else {
            panic!("{p:?}")
        };
        assert_eq!(c.picks(), 48);
        let p335 = Policy::Client335(Client335Params::default())
            .with_density(256)
            .expect("in range");
        let Policy::Client335(c) = p335 else {
            panic!("{p335:?}")
        };
        assert_eq!(c.picks(), 256);
        for bad in [0, 15, 257, 1000] {
            let err = client.with_density(bad).unwrap_err();
            assert_eq!(err, DensityError::OutOfRange { density: bad });
            assert!(err.to_string().contains("16..=256"), "{err}");
        }
        let per_cell = Policy::PerCell(PerCellParams::default());
        let err = per_cell.with_density(32).unwrap_err();
        assert!(err.to_string().contains("per-cell"), "{err}");
        assert_eq!(per_cell.density(), None);
    }
}
