//! Test support shared by the workspace's tests: where the real client files
//! are. They are public test fixtures that are never copied into the
//! repository (docs/real-data.md, "The real-data tests"); a test finds them
//! through [`real_data`].

use std::path::{Path, PathBuf};

/// The folder of real client files that `SWARD_REAL_DATA` names (a relative
/// path is taken from the working directory, then from the workspace root),
/// made absolute and checked to hold `client-335`. When the variable is
/// unset, `test` is named in one printed line and the caller skips (`None`),
/// unless `SWARD_REQUIRE_REAL_DATA=1` (CI), which makes that a failure.
pub fn real_data(test: &str) -> Option<PathBuf> {
    let Some(dir) = std::env::var_os("SWARD_REAL_DATA") else {
        assert!(
            std::env::var("SWARD_REQUIRE_REAL_DATA").as_deref() != Ok("1"),
            "SWARD_REQUIRE_REAL_DATA=1 but SWARD_REAL_DATA does not name the real client files"
        );
        println!("{test}: skipped (set SWARD_REAL_DATA to the real client files' folder)");
        return None;
    };
    let dir = PathBuf::from(dir);
    let found = if dir.is_relative() && !dir.is_dir() {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(&dir)
    } else {
        dir
    };
    assert!(
        found.join("client-335").is_dir(),
        "SWARD_REAL_DATA={} has no client-335 folder",
        found.display()
    );
    Some(
        std::fs::canonicalize(&found)
            .unwrap_or_else(|e| panic!("SWARD_REAL_DATA={}: {e}", found.display())),
    )
}
