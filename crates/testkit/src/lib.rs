//! Shared helpers for tests: locating external reference tools (GNU binutils
//! for Alpha, the Alpha cross compiler, qemu-alpha) and the shared/ folder.
//!
//! Reference tools are installed by `.ci/run`. Under CI (`CI` set in the
//! environment) a missing tool is a test failure; elsewhere the test prints a
//! plain `SKIPPED` line on the real stderr (not captured by the test harness)
//! and returns, so a skip is never silent.

use std::io::Write;
use std::path::{Path, PathBuf};

/// True when running under CI, where every reference tool must be present.
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// Write a line straight to the process's stderr, bypassing test capture.
pub fn say(line: &str) {
    let mut e = std::io::stderr().lock();
    let _ = writeln!(e, "{line}");
}

/// Find `name` on PATH.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Locate a reference tool for test `test`. Returns `None` (after printing a
/// SKIPPED line) when it is absent outside CI; panics when absent under CI.
pub fn require_tool(test: &str, name: &str, package: &str) -> Option<PathBuf> {
    match which(name) {
        Some(p) => Some(p),
        None if in_ci() => panic!("{test}: `{name}` is required in CI (Debian package {package})"),
        None => {
            say(&format!(
                "SKIPPED {test}: `{name}` not found (install Debian package {package}); this check did not run"
            ));
            None
        }
    }
}

/// The workspace root (the directory holding the top-level Cargo.toml).
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .find(|p| p.join("Cargo.toml").is_file() && p.join("crates").is_dir())
        .unwrap_or(here)
        .to_path_buf()
}

/// The shared/ folder that sits beside the repository (`../shared`).
pub fn shared_dir() -> PathBuf {
    workspace_root().join("..").join("shared")
}

/// A fresh scratch directory under the target directory for one test.
pub fn scratch_dir(test: &str) -> PathBuf {
    let dir = workspace_root()
        .join("target")
        .join("test-scratch")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// Debian's Alpha sysroot (package libc6.1-dev-alpha-cross).
pub const ALPHA_SYSROOT: &str = "/usr/alpha-linux-gnu";

/// `alpha-linux-gnu-gcc` and the Alpha sysroot for test `test`: `None` (after
/// a SKIPPED line) when either is absent outside CI; a failure under CI.
pub fn alpha_gcc(test: &str) -> Option<PathBuf> {
    let g = require_tool(test, "alpha-linux-gnu-gcc", "gcc-alpha-linux-gnu")?;
    if !Path::new(ALPHA_SYSROOT).join("lib").is_dir() {
        assert!(!in_ci(), "{ALPHA_SYSROOT} missing in CI");
        say(&format!(
            "SKIPPED {test}: no {ALPHA_SYSROOT} (libc6.1-dev-alpha-cross); this check did not run"
        ));
        return None;
    }
    Some(g)
}

/// Compile the C source `src` with `gcc -O2 FLAGS` into `dir/name`.
pub fn compile_c(gcc: &Path, dir: &Path, name: &str, src: &str, flags: &[&str]) -> PathBuf {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, src).expect("write C source");
    let out = dir.join(name);
    let st = std::process::Command::new(gcc)
        .arg("-O2")
        .args(flags)
        .arg(&c)
        .arg("-o")
        .arg(&out)
        .status()
        .expect("run gcc");
    assert!(st.success(), "gcc {name}");
    out
}
