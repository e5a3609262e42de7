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
//! around; the unit test pins the format and checks the value against
//! `/proc/uptime` (boot time, never behind the monotonic clock).

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
    fn monotonic_clock_tracks_instant_and_trails_boot_time() {
        let a = monotonic_now_ns().unwrap();
        let t = Instant::now();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let elapsed = t.elapsed().as_nanos() as i64;
        let b = monotonic_now_ns().unwrap();
        assert!(b - a >= elapsed, "{} < {elapsed}", b - a);
        assert!(
            b - a < elapsed + 50_000_000,
            "clock ran {} ns for {elapsed}",
            b - a
        );
        // CLOCK_BOOTTIME (/proc/uptime, 10 ms resolution) never trails CLOCK_MONOTONIC.
        if let Ok(uptime) = std::fs::read_to_string("/proc/uptime") {
            let boot_s: f64 = uptime.split_whitespace().next().unwrap().parse().unwrap();
            assert!(
                b as f64 / 1e9 <= boot_s + 0.02,
                "monotonic {b} ns > uptime {boot_s} s"
            );
        }
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
        let gpu_now_s = monotonic_now_ns().unwrap() as f64 / 1e9;
        let puffin_now = puffin::now_ns();
        let err = (align.to_puffin_ns(gpu_now_s) - puffin_now).abs();
        assert!(err < 5_000_000, "aligned clock off by {err} ns");
    }
}
