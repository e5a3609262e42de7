//! A counting global allocator: the system allocator, plus the number of
//! allocations and bytes allocated on each thread and the bytes live in the
//! whole process. The `sward` binary installs it; the bench reads the render
//! thread's counts around every frame and the live heap after every soak
//! slide. Where it is not installed every reading is `None`, never zero.
//!
//! The counters are plain relaxed atomics and const-initialised
//! thread-locals (no allocation, no destructor), so counting costs a few
//! instructions per call and cannot recurse into the allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

/// The system allocator with counters (install with `#[global_allocator]`).
pub struct CountingAlloc;

static INSTALLED: AtomicBool = AtomicBool::new(false);
static LIVE_BYTES: AtomicI64 = AtomicI64::new(0);

thread_local! {
    static THREAD_COUNT: Cell<u64> = const { Cell::new(0) };
    static THREAD_BYTES: Cell<u64> = const { Cell::new(0) };
}

#[inline]
fn counted(size: usize) {
    INSTALLED.store(true, Ordering::Relaxed);
    LIVE_BYTES.fetch_add(size as i64, Ordering::Relaxed);
    // `try_with`: a thread being torn down has no locals left; its last
    // allocations go uncounted per thread (the live total still sees them).
    let _ = THREAD_COUNT.try_with(|c| c.set(c.get() + 1));
    let _ = THREAD_BYTES.try_with(|b| b.set(b.get() + size as u64));
}

// SAFETY: every call is forwarded unchanged to `System`; the counters never
// allocate.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        counted(layout.size());
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        counted(layout.size());
        // SAFETY: forwarded with the caller's layout.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size() as i64, Ordering::Relaxed);
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // A reallocation counts as one allocation of the new size.
        counted(new_size);
        LIVE_BYTES.fetch_sub(layout.size() as i64, Ordering::Relaxed);
        // SAFETY: forwarded with the caller's pointer, layout and size.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Allocations made on one thread so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct AllocCounts {
    /// Calls that allocated (`alloc`, `alloc_zeroed`, `realloc`).
    pub count: u64,
    /// Bytes those calls asked for.
    pub bytes: u64,
}

impl AllocCounts {
    /// What was allocated between `earlier` and `self` (same thread).
    pub fn since(self, earlier: AllocCounts) -> AllocCounts {
        AllocCounts {
            count: self.count.saturating_sub(earlier.count),
            bytes: self.bytes.saturating_sub(earlier.bytes),
        }
    }
}

/// Whether the counting allocator is the process's global allocator.
pub fn installed() -> bool {
    INSTALLED.load(Ordering::Relaxed)
}

/// The calling thread's allocations so far (`None` without the counting
/// allocator).
pub fn thread_counts() -> Option<AllocCounts> {
    installed().then(|| AllocCounts {
        count: THREAD_COUNT.with(Cell::get),
        bytes: THREAD_BYTES.with(Cell::get),
    })
}

/// Bytes allocated through this allocator and not yet freed, on every
/// thread (`None` without it): the Rust side of the process (sward, wgpu,
/// puffin, egui). A C library's own `malloc` (the Vulkan driver's) does
/// not pass through a Rust global allocator and is not counted.
pub fn live_bytes() -> Option<u64> {
    installed().then(|| LIVE_BYTES.load(Ordering::Relaxed).max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[global_allocator]
    static ALLOC: CountingAlloc = CountingAlloc;

    #[test]
    fn a_known_allocation_is_counted_on_its_thread_and_in_the_live_heap() {
        let before = thread_counts().expect("installed in this test binary");
        let v: Vec<u8> = Vec::with_capacity(1 << 20);
        let after = thread_counts().unwrap().since(before);
        assert_eq!(after.count, 1, "one allocation");
        assert_eq!(after.bytes, 1 << 20);
        // Another thread's allocations are not this thread's.
        let mine = thread_counts().unwrap();
        std::thread::spawn(|| std::hint::black_box(vec![0u8; 4096]))
            .join()
            .unwrap();
        let since = thread_counts().unwrap().since(mine);
        assert!(
            since.bytes < 4096,
            "another thread's bytes counted here: {since:?}"
        );
        // Live bytes include the vector while it lives (other threads of
        // the test harness allocate too, so no exact figure is asserted).
        assert!(live_bytes().unwrap() >= 1 << 20);
        drop(v);
    }
}
