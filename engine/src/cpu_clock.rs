//! The calling thread's own CPU clock (`CLOCK_THREAD_CPUTIME_ID`): time the
//! thread spent running, not waiting. Beside a wall-clock time it tells work
//! from waiting: a frame slow in wall time but not in thread time waited (for
//! a core, the driver, a lock); one slow in thread time did more work.

/// CPU time the calling thread has used, in nanoseconds; `None` where the
/// platform has no per-thread CPU clock.
pub fn thread_cpu_ns() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        if rc != 0 {
            return None;
        }
        Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// A start point on the calling thread's CPU clock.
#[derive(Debug, Clone, Copy)]
pub struct ThreadTimer(Option<u64>);

impl ThreadTimer {
    /// Starts measuring now.
    pub fn start() -> Self {
        ThreadTimer(thread_cpu_ns())
    }

    /// Thread CPU milliseconds since [`Self::start`] (same thread); `None`
    /// without a thread clock.
    pub fn elapsed_ms(&self) -> Option<f64> {
        let (a, b) = (self.0?, thread_cpu_ns()?);
        Some(b.saturating_sub(a) as f64 / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_thread_uses_more_cpu_time_than_a_sleeping_one() {
        let Some(_) = thread_cpu_ns() else {
            eprintln!("no thread CPU clock on this platform; skipped");
            return;
        };
        let sleeping = std::thread::spawn(|| {
            let t = ThreadTimer::start();
            std::thread::sleep(std::time::Duration::from_millis(60));
            t.elapsed_ms().unwrap()
        });
        let busy = std::thread::spawn(|| {
            let t = ThreadTimer::start();
            let wall = std::time::Instant::now();
            let mut x = 0u64;
            while wall.elapsed() < std::time::Duration::from_millis(60) {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
            t.elapsed_ms().unwrap()
        });
        let (sleeping, busy) = (sleeping.join().unwrap(), busy.join().unwrap());
        // The busy thread ran for (most of) its 60 ms; the sleeping one
        // only woke up. No time bound is asserted, only the order.
        assert!(
            busy > sleeping,
            "busy thread {busy} ms of CPU, sleeping thread {sleeping} ms"
        );
    }
}
