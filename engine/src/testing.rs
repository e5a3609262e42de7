//! Shared headless GPU context for tests, and what every compute probe of a
//! parity test does: [`buffer_with`], [`probe_output`], [`probe_buffers`],
//! [`run_probe`].
//!
//! [`gpu`] returns `None` (the test skips, saying so on stderr) when no adapter
//! exists, unless `SWARD_REQUIRE_GPU=1`, in which case a missing adapter fails
//! the test: CI sets it so GPU tests can never be skipped silently.
//!
//! The returned guard also serialises GPU tests within a test binary: wgpu 27
//! error scopes are device-wide, so concurrent frames on one device could see
//! each other's validation errors.

use std::cell::Cell;
use std::ops::Deref;
use std::sync::{Mutex, MutexGuard, OnceLock};

use crate::context::{GpuContext, GpuOptions};

/// Exclusive access to the shared test context; derefs to [`GpuContext`].
/// Take it once per test and pass `&gpu` down: a second `gpu()` on the same
/// thread while this guard lives panics (it would deadlock).
pub struct GpuLock(MutexGuard<'static, GpuContext>);

thread_local! {
    static HELD: Cell<bool> = const { Cell::new(false) };
}

impl Drop for GpuLock {
    fn drop(&mut self) {
        HELD.with(|h| h.set(false));
    }
}

impl Deref for GpuLock {
    type Target = GpuContext;
    fn deref(&self) -> &GpuContext {
        &self.0
    }
}

/// The process-wide test context, created on first use and locked for the caller.
pub fn gpu() -> Option<GpuLock> {
    static GPU: OnceLock<Option<Mutex<GpuContext>>> = OnceLock::new();
    let ctx = GPU.get_or_init(|| match GpuContext::new(&GpuOptions::default()) {
        Ok(ctx) => Some(Mutex::new(ctx)),
        Err(e) => {
            eprintln!("no GPU context for tests: {e}");
            None
        }
    });
    if HELD.with(Cell::get) {
        panic!("testing::gpu() called again while this thread holds the GPU; pass the first guard down instead");
    }
    match ctx {
        // A test that panicked while holding the lock leaves the context usable.
        Some(m) => Some(GpuLock(
            m.lock().unwrap_or_else(|poisoned| poisoned.into_inner()),
        )),
        None if require_gpu() => {
            panic!("SWARD_REQUIRE_GPU=1 but no GPU context could be created (see stderr for why)")
        }
        None => None,
    }
}

/// Takes the shared test context ([`gpu`]) or returns from the test (the
/// skip `gpu` reports). `let lock = gpu_or_skip!();` gives the lock;
/// `gpu_or_skip!(gpu);` binds `gpu: &GpuContext` for the rest of the
/// enclosing block, holding the lock as long.
#[macro_export]
macro_rules! gpu_or_skip {
    () => {
        match $crate::testing::gpu() {
            Some(lock) => lock,
            None => return,
        }
    };
    ($gpu:ident) => {
        let lock = $crate::gpu_or_skip!();
        let $gpu: &$crate::GpuContext = &lock;
    };
}

/// Whether `SWARD_REQUIRE_GPU` is set to something other than `0` or empty.
pub fn require_gpu() -> bool {
    std::env::var("SWARD_REQUIRE_GPU").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// A fresh, empty scratch directory under the system temp dir, unique to this
/// process and call (`sward-PREFIX-test-PID-NAME-N`); a leftover of a crashed
/// run with the same pid is emptied first.
pub fn scratch_dir(prefix: &str, name: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "sward-{prefix}-test-{}-{name}-{n}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create test dir");
    dir
}

/// Keeps a test's rendered image as `$SWARD_TEST_IMAGES/NAME.png` when that
/// variable names a directory (for a person to look at); does nothing
/// otherwise. A failed write is reported on stderr, never a test failure.
pub fn keep_image(image: &image::RgbaImage, name: &str) {
    if let Some(dir) = std::env::var_os("SWARD_TEST_IMAGES") {
        let path = std::path::Path::new(&dir).join(format!("{name}.png"));
        if let Err(e) = crate::targets::write_png(image, &path) {
            eprintln!("could not keep test image {}: {e}", path.display());
        }
    }
}

/// Whether `gpu` has every capability a test (or one case of it) declares it
/// needs. When it lacks one, the test is skipped with one line naming what is
/// missing, or, under `SWARD_REQUIRE_GPU=1`, fails: CI's device must run every
/// test.
pub fn has_capabilities(gpu: &crate::GpuContext, what: &str, needed: &[crate::Capability]) -> bool {
    let missing = gpu.caps.missing(needed);
    if missing.is_empty() {
        return true;
    }
    let names: Vec<&str> = missing.iter().map(|c| c.name()).collect();
    let line = format!("{what}: the device lacks {}", names.join(", "));
    assert!(!require_gpu(), "{line} (SWARD_REQUIRE_GPU=1)");
    eprintln!("skipping {line}");
    false
}

/// A buffer of `data` with `usage`: a probe's uniform or inputs.
pub fn buffer_with(
    gpu: &crate::GpuContext,
    label: &str,
    data: &[u8],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    use wgpu::util::DeviceExt;
    gpu.device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: data,
            usage,
        })
}

/// A `STORAGE | COPY_SRC` buffer of `size` bytes that a compute probe
/// writes and [`run_probe`] reads back.
pub fn probe_output(gpu: &crate::GpuContext, label: &str, size: u64) -> wgpu::Buffer {
    gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

/// The buffers of a compute probe that reads a uniform and an array and
/// writes an array: `uniform` (`LABEL.uniform`), `inputs` (storage,
/// `LABEL.in`) and `out_size` bytes of output ([`probe_output`],
/// `LABEL.out`), in that order.
pub fn probe_buffers(
    gpu: &crate::GpuContext,
    label: &str,
    uniform: &[u8],
    inputs: &[u8],
    out_size: u64,
) -> [wgpu::Buffer; 3] {
    let uniform_label = format!("{label}.uniform");
    let input_label = format!("{label}.in");
    [
        buffer_with(gpu, &uniform_label, uniform, wgpu::BufferUsages::UNIFORM),
        buffer_with(gpu, &input_label, inputs, wgpu::BufferUsages::STORAGE),
        probe_output(gpu, &format!("{label}.out"), out_size),
    ]
}

/// Runs a parity test's compute probe: dispatches `pipeline` over
/// `workgroups` (along x) with `groups` bound at 0, 1, ..., waits, and
/// returns the bytes of `output` ([`probe_output`]). A failed read-back
/// fails the test with its message.
pub fn run_probe(
    gpu: &crate::GpuContext,
    pipeline: &wgpu::ComputePipeline,
    groups: &[&wgpu::BindGroup],
    workgroups: u32,
    output: &wgpu::Buffer,
) -> Vec<u8> {
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(pipeline);
        for (i, group) in groups.iter().enumerate() {
            pass.set_bind_group(i as u32, *group, &[]);
        }
        pass.dispatch_workgroups(workgroups, 1, 1);
    }
    gpu.queue.submit([encoder.finish()]);
    crate::targets::read_buffer(&gpu.device, &gpu.queue, output, output.size())
        .unwrap_or_else(|e| panic!("reading the probe's output back: {e}"))
}

/// Whether `gpu`'s driver is one of `drivers` (each a case-insensitive
/// substring of the adapter's name, driver or driver info, such as
/// `"llvmpipe"`), for a test that asserts what those drivers count: how
/// many vertex invocations an indexed draw makes, say, which a hardware
/// GPU's vertex reuse changes. Elsewhere the test is skipped with one line
/// naming the drivers it holds for and the device's, also under
/// `SWARD_REQUIRE_GPU=1`: the test does not apply there, nothing is missing.
pub fn requires_driver(gpu: &crate::GpuContext, what: &str, drivers: &[&str]) -> bool {
    let s = &gpu.summary;
    if driver_matches(&[&s.name, &s.driver, &s.driver_info], drivers) {
        return true;
    }
    eprintln!(
        "skipping {what}: it holds for the {} driver(s), and this device is {} ({} {})",
        drivers.join(", "),
        s.name,
        s.driver,
        s.driver_info
    );
    false
}

/// Whether any of `names` contains any of `drivers`, ignoring case.
fn driver_matches(names: &[&str], drivers: &[&str]) -> bool {
    names.iter().any(|n| {
        let n = n.to_lowercase();
        drivers.iter().any(|d| n.contains(&d.to_lowercase()))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn drivers_match_by_case_insensitive_substring() {
        let lavapipe = [
            "llvmpipe (LLVM 15.0.6, 256 bits)",
            "llvmpipe",
            "Mesa 22.3.6",
        ];
        assert!(super::driver_matches(&lavapipe, &["LLVMpipe"]));
        assert!(super::driver_matches(&lavapipe, &["radv", "mesa 22.3"]));
        let nvidia = ["NVIDIA H100", "NVIDIA", "550.54"];
        assert!(!super::driver_matches(&nvidia, &["llvmpipe"]));
        assert!(!super::driver_matches(&nvidia, &[]));
    }
}
