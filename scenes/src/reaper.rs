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

use std::any::Any;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the reaper looks for garbage.
pub const PERIOD: Duration = Duration::from_millis(50);

/// Garbage handed over and not freed yet.
type Garbage = Vec<Box<dyn Any + Send>>;

#[derive(Default)]
struct Shared {
    garbage: Mutex<(Garbage, bool)>,
    stop: Condvar,
}

impl Shared {
    /// The garbage and the stop flag, locked.
    fn lock(&self) -> MutexGuard<'_, (Garbage, bool)> {
        self.garbage.lock().unwrap_or_else(PoisonError::into_inner)
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
                crate::streaming::background_priority();
                loop {
                    let mut state = mine.lock();
                    if !state.1 {
                        state = mine
                            .stop
                            .wait_timeout(state, PERIOD)
                            .unwrap_or_else(PoisonError::into_inner)
                            .0;
                    }
                    let batch = std::mem::take(&mut state.0);
                    let stopping = state.1;
                    drop(state);
                    drop(batch);
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
        self.shared.lock().0.append(&mut garbage);
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        self.shared.lock().1 = true;
        self.shared.stop.notify_one();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
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
        drop(reaper);
        assert_eq!(dropped.load(Ordering::SeqCst), 3);
        let threads = on.lock().unwrap();
        assert_eq!(threads.len(), 3);
        assert!(threads.iter().all(|t| *t != std::thread::current().id()));
    }
}
