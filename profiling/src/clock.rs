//! Aligning the GPU timestamp clock with puffin's clock.
//!
//! wgpu-profiler reports GPU scopes in seconds on the GPU's own clock (raw
//! timestamp x period). puffin stamps CPU scopes with [`puffin::now_ns`], which is
//! nanoseconds since the Unix epoch (the wall clock read once, then advanced by
//! `std::time::Instant`). A [`ClockAlignment`] is the offset between the two:
//! `puffin_ns = gpu_ns + offset_ns`.
//!
//! Mesa's lavapipe writes `CLOCK_MONOTONIC` nanoseconds as timestamps (period 1).
//! [`ClockAlignment::monotonic_gpu`] aligns such a clock by reading
//! `CLOCK_MONOTONIC` and `puffin::now_ns()` back to back.
//!
//! Reading `CLOCK_MONOTONIC` without `libc`: on Linux, `std::time::Instant` *is*
//! `clock_gettime(CLOCK_MONOTONIC)`, but its value is opaque. Its `Debug` output,
//! however, prints the raw timespec (`Instant { tv_sec: 466, tv_nsec: 704088065 }`).
//! [`monotonic_now_ns`] parses that. The format is not a stable std API, so a
//! change is reported as [`ClockError::UnrecognisedInstant`] instead of guessed
//! around; the unit tests pin the format and check the readings advance exactly
//! with `Instant`. (That `Instant` is `CLOCK_MONOTONIC` on Linux is documented in
//! std's platform table for `Instant`.) Use [`ClockAlignment::is_near_now`] to
//! catch a GPU whose timestamps are on some other clock.

use std::time::Instant;

/// Why the clocks could not be aligned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    /// `Instant`'s debug output no longer shows the raw timespec.
    #[error("cannot read CLOCK_MONOTONIC: unrecognised std::time::Instant format {0:?}")]
    UnrecognisedInstant(String),
    /// Not Linux: `Instant` is not known to be `CLOCK_MONOTONIC` here.
    #[error("reading CLOCK_MONOTONIC is only supported on Linux")]
    Unsupported,
}

/// Current `CLOCK_MONOTONIC` time in nanoseconds (Linux), read through
/// `std::time::Instant` (see the module docs for the method).
pub fn monotonic_now_ns() -> Result<i64, ClockError> {
    if !cfg!(target_os = "linux") {
        return Err(ClockError::Unsupported);
    }
    parse_instant_debug(&format!("{:?}", Instant::now()))
}

/// Parses `Instant { tv_sec: S, tv_nsec: N }` into nanoseconds.
fn parse_instant_debug(text: &str) -> Result<i64, ClockError> {
    let bad = || ClockError::UnrecognisedInstant(text.to_owned());
    let field = |key: &str| -> Option<i64> {
        let rest = &text[text.find(key)? + key.len()..];
        let end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        rest[..end].parse().ok()
    };
    let secs = field("tv_sec: ").ok_or_else(bad)?;
    let nanos = field("tv_nsec: ").ok_or_else(bad)?;
    if !(0..1_000_000_000).contains(&nanos) {
        return Err(bad());
    }
    secs.checked_mul(1_000_000_000)
        .and_then(|s| s.checked_add(nanos))
        .ok_or_else(bad)
}

/// Offset from the GPU timestamp clock to puffin's clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockAlignment {
    offset_ns: i64,
}

impl ClockAlignment {
    /// An alignment with a known offset: `puffin_ns = gpu_ns + offset_ns`.
    pub fn from_offset_ns(offset_ns: i64) -> Self {
        Self { offset_ns }
    }

    /// An alignment from one instant known on both clocks (e.g. a calibrated
    /// timestamp pair): `gpu_s` seconds on the GPU clock is `puffin_ns` for puffin.
    pub fn from_pair(gpu_s: f64, puffin_ns: i64) -> Self {
        Self {
            offset_ns: puffin_ns - (gpu_s * 1e9).round() as i64,
        }
    }

    /// For GPUs whose timestamps are `CLOCK_MONOTONIC` nanoseconds (lavapipe).
    ///
    /// Takes the best of several `monotonic, puffin, monotonic` sandwiches (the
    /// narrowest one) and pairs puffin's reading with the midpoint of the two
    /// monotonic readings, so the error is at most half that gap.
    pub fn monotonic_gpu() -> Result<Self, ClockError> {
        let mut best: Option<(i64, i64)> = None; // (gap, offset)
        for _ in 0..16 {
            let before = monotonic_now_ns()?;
            let puffin = puffin::now_ns();
            let after = monotonic_now_ns()?;
            let gap = after - before;
            let offset = puffin - (before + gap / 2);
            if best.is_none_or(|(g, _)| gap < g) {
                best = Some((gap, offset));
            }
        }
        let (_, offset_ns) = best.ok_or(ClockError::Unsupported)?;
        Ok(Self { offset_ns })
    }

    /// The offset in nanoseconds (`puffin_ns - gpu_ns`).
    pub fn offset_ns(&self) -> i64 {
        self.offset_ns
    }

    /// Whether a GPU time that was just measured lands within `tolerance_s` of
    /// puffin's "now" once aligned. A `false` means the GPU clock is not the one
    /// assumed (e.g. [`Self::monotonic_gpu`] on a GPU with its own time base); the
    /// caller should warn and skip the GPU thread rather than draw it misplaced.
    pub fn is_near_now(&self, gpu_s: f64, tolerance_s: f64) -> bool {
        let delta_ns = (self.to_puffin_ns(gpu_s) - puffin::now_ns()).abs();
        (delta_ns as f64) <= tolerance_s * 1e9
    }

    /// A GPU time in seconds on puffin's clock (nanoseconds since the Unix epoch).
    pub fn to_puffin_ns(&self, gpu_s: f64) -> i64 {
        (gpu_s * 1e9).round() as i64 + self.offset_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_instant_debug_format_and_rejects_others() {
        assert_eq!(
            parse_instant_debug("Instant { tv_sec: 466, tv_nsec: 704088065 }"),
            Ok(466_704_088_065)
        );
        assert!(parse_instant_debug("Instant(12345)").is_err());
        assert!(parse_instant_debug("Instant { tv_sec: 1, tv_nsec: 2000000000 }").is_err());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn monotonic_clock_advances_with_instant() {
        // Ordered reads make both bounds hold however the thread is scheduled.
        let t0 = Instant::now();
        let a = monotonic_now_ns().unwrap();
        let t1 = Instant::now();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let inner = t1.elapsed().as_nanos() as i64;
        let b = monotonic_now_ns().unwrap();
        let outer = t0.elapsed().as_nanos() as i64;
        assert!(b - a >= inner, "{} < {inner}", b - a);
        assert!(b - a <= outer, "{} > {outer}", b - a);
    }

    #[test]
    fn alignment_maps_gpu_seconds_onto_puffin_time() {
        let align = ClockAlignment::from_pair(2.5, 10_000_000_000);
        assert_eq!(align.offset_ns(), 7_500_000_000);
        assert_eq!(align.to_puffin_ns(2.5), 10_000_000_000);
        assert_eq!(align.to_puffin_ns(2.501), 10_001_000_000);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn monotonic_alignment_puts_now_at_now() {
        let align = ClockAlignment::monotonic_gpu().unwrap();
        let before = puffin::now_ns();
        let gpu_now_s = monotonic_now_ns().unwrap() as f64 / 1e9;
        let after = puffin::now_ns();
        let aligned = align.to_puffin_ns(gpu_now_s);
        // 1 ms slack covers the alignment's own sandwich error and f64 rounding.
        assert!(
            aligned >= before - 1_000_000 && aligned <= after + 1_000_000,
            "aligned {aligned} outside [{before}, {after}]"
        );
        assert!(align.is_near_now(gpu_now_s, 1.0));
        assert!(!align.is_near_now(gpu_now_s - 3600.0, 1.0));
    }
}
