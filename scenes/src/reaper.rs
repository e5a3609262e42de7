//! [`Reaper`]: a background thread that frees what the render thread lets
//! go of (evicted tiles, their placements, GPU buffers of evicted tiles).
//! Freeing tens of megabytes costs milliseconds (unmapping pages), which a
//! frame should not pay.
//!
//! Handing garbage over costs the render thread one uncontended lock: the
//! reaper is never woken for it (waking a thread is a system call, which
//! cost a residency change more than its own bookkeeping). It looks for
//! garbage every [`PERIOD`] instead, so memory is given back at most that
//! much later.
//!
//! [`background_priority`] is the priority of sward's background threads
//! (this reaper and the tile workers of [`crate::streaming`], which hands
//! its garbage here).

use std::any::Any;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the reaper looks for garbage.
pub const PERIOD: Duration = Duration::from_millis(50);

/// Garbage handed over and not freed yet.
type Garbage = Vec<Box<dyn Any + Send>>;

/// What the render thread and the reaper share.
#[derive(Default)]
struct State {
    /// Handed over, not taken by the reaper yet.
    garbage: Garbage,
    /// The reaper is to free what is left and end.
    stop: bool,
    /// Hand-overs so far.
    handed: u64,
    /// Hand-overs freed so far.
    freed: u64,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    /// Wakes the reaper (to stop, or for [`Reaper::wait_idle`]).
    wake: Condvar,
    /// Signalled when the reaper has freed a batch.
    done: Condvar,
}

impl Shared {
    /// The shared state, locked.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Frees garbage on a background thread (`SCHED_IDLE` on Linux). Dropping
/// the reaper frees what it was given before returning.
pub struct Reaper {
    shared: Arc<Shared>,
    handle: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Reaper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reaper")
            .field("running", &self.handle.is_some())
            .finish()
    }
}

impl Default for Reaper {
    fn default() -> Self {
        Self::new()
    }
}

impl Reaper {
    /// Starts the thread (when the system refuses one, [`Self::discard`]
    /// frees on the caller's thread).
    pub fn new() -> Self {
        let shared = Arc::new(Shared::default());
        let mine = Arc::clone(&shared);
        let handle = std::thread::Builder::new()
            .name("sward-reaper".into())
            .spawn(move || {
                background_priority();
                loop {
                    let mut state = mine.lock();
                    if !state.stop {
                        state = mine
                            .wake
                            .wait_timeout(state, PERIOD)
                            .unwrap_or_else(PoisonError::into_inner)
                            .0;
                    }
                    let batch = std::mem::take(&mut state.garbage);
                    let (handed, stopping) = (state.handed, state.stop);
                    drop(state);
                    drop(batch);
                    mine.lock().freed = handed;
                    mine.done.notify_all();
                    if stopping {
                        break;
                    }
                }
            })
            .ok();
        Self { shared, handle }
    }

    /// Hands `garbage` to the reaper thread (freed within [`PERIOD`]).
    pub fn discard(&self, mut garbage: Vec<Box<dyn Any + Send>>) {
        if garbage.is_empty() {
            return;
        }
        if self.handle.is_none() {
            // No thread: freed here.
            return drop(garbage);
        }
        let mut state = self.shared.lock();
        state.garbage.append(&mut garbage);
        state.handed += 1;
    }

    /// Waits until everything handed over so far is freed (wakes the
    /// reaper for it): for figures such as the live heap that must not
    /// depend on when the reaper last ran. Not for a measured frame.
    pub fn wait_idle(&self) {
        if self.handle.is_none() {
            return;
        }
        let mut state = self.shared.lock();
        let target = state.handed;
        while state.freed < target {
            self.shared.wake.notify_one();
            state = self
                .shared
                .done
                .wait_timeout(state, PERIOD)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.wake.notify_one();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// Makes the calling thread background work (Linux: the `SCHED_IDLE`
/// policy, which applies per thread), so that waking it never preempts the
/// render thread and it runs on CPU time nothing else wants. A sleeping
/// worker of normal priority woken by a tile request otherwise took the
/// render thread's CPU for 3-4 ms on a 2-core machine. Elsewhere, or when
/// refused, nothing changes.
pub(crate) fn background_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: `sched_setscheduler` only reads `param`, which lives for the
    // call; pid 0 is the calling thread. Failure leaves the policy as it was.
    unsafe {
        let param = libc::sched_param { sched_priority: 0 };
        let _ = libc::sched_setscheduler(0, libc::SCHED_IDLE, &param);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Counts its drops.
    struct Tracked(Arc<AtomicUsize>);

    impl Drop for Tracked {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn garbage_is_freed_on_the_reaper_thread_and_all_of_it_by_drop() {
        let dropped = Arc::new(AtomicUsize::new(0));
        let reaper = Reaper::new();
        let on = Arc::new(Mutex::new(Vec::new()));
        /// Records the thread that drops it.
        struct Where(Arc<Mutex<Vec<std::thread::ThreadId>>>);
        impl Drop for Where {
            fn drop(&mut self) {
                self.0.lock().unwrap().push(std::thread::current().id());
            }
        }
        for _ in 0..3 {
            reaper.discard(vec![
                Box::new(Tracked(Arc::clone(&dropped))),
                Box::new(Where(Arc::clone(&on))),
            ]);
        }
        reaper.discard(Vec::new());
        // Freed before `wait_idle` returns, not only by the drop.
        reaper.wait_idle();
        assert_eq!(dropped.load(Ordering::SeqCst), 3);
        reaper.discard(vec![Box::new(Tracked(Arc::clone(&dropped)))]);
        drop(reaper);
        assert_eq!(dropped.load(Ordering::SeqCst), 4);
        let threads = on.lock().unwrap();
        assert_eq!(threads.len(), 3);
        assert!(threads.iter().all(|t| *t != std::thread::current().id()));
    }
}
