//! Shared helpers for tests: locating external reference tools (GNU binutils
//! for Alpha, the Alpha cross compiler, qemu-alpha) and the shared/ folder.
//!
//! Reference tools are installed by `.ci/run`. Under CI (`CI` set in the
//! environment) a missing tool is a test failure; elsewhere the test prints a
//! plain `SKIPPED` line on the real stderr (not captured by the test harness)
//! and returns, so a skip is never silent.
//!
//! [`builds`] builds Alpha programs from third-party sources once and
//! caches them under `target/`: a static BusyBox and a shell sysroot around
//! it, BusyBox's full configuration for Alpha and the host with its test
//! suite, the Lua 5.5 interpreter and its test suite's C modules.

use std::io::Write;
use std::path::{Path, PathBuf};

pub mod builds;
pub mod watchdog;
pub use builds::{
    alpha_busybox, alpha_lua, alpha_lua_test_libs, alpha_shell_sysroot, busybox_full,
    busybox_testsuite, lua_source_dir, BuildFor,
};

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

/// The folder of the explorer's C test programs and their `MANIFEST`.
pub fn explore_source_dir() -> PathBuf {
    workspace_root().join("crates/alpha-emu/tests/c/explore")
}

/// The names of the explorer's test programs (the `.c` files of
/// [`explore_source_dir`]), sorted.
pub fn explore_programs() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(explore_source_dir())
        .expect("read tests/c/explore")
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "c").then(|| p.file_stem()?.to_str().map(str::to_string))?
        })
        .collect();
    v.sort();
    v
}

/// The flags every explorer test program is built with (besides `-mcpu`).
pub const EXPLORE_CFLAGS: &[&str] = &["-O2", "-g", "-pthread", "-static", "-Wl,--no-relax"];

/// Build explorer test program `name` (`tests/c/explore/NAME.c`) for
/// processor `cpu` (`ev4`, `ev56`, …) and return the executable, cached in
/// `target/explore-programs/` and rebuilt only when a source in the folder
/// is newer. `None` (after a SKIPPED line) when the cross compiler is
/// absent outside CI.
pub fn explore_program(test: &str, name: &str, cpu: &str) -> Option<PathBuf> {
    let gcc = alpha_gcc(test)?;
    let src_dir = explore_source_dir();
    let src = src_dir.join(format!("{name}.c"));
    assert!(src.is_file(), "no explorer test program {}", src.display());
    let out_dir = workspace_root().join("target").join("explore-programs");
    std::fs::create_dir_all(&out_dir).expect("create target/explore-programs");
    let out = out_dir.join(format!("{name}_{cpu}"));
    let newest_source = std::fs::read_dir(&src_dir)
        .expect("read tests/c/explore")
        .filter_map(|e| e.ok()?.metadata().ok()?.modified().ok())
        .max();
    let built = std::fs::metadata(&out).and_then(|m| m.modified()).ok();
    if built.is_some() && built >= newest_source {
        return Some(out);
    }
    // Build under a unique name and rename, so tests building the same
    // program at once never see a half-written file.
    static BUILDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = out_dir.join(format!("{name}_{cpu}.{}.{n}.tmp", std::process::id()));
    let o = std::process::Command::new(&gcc)
        .args(EXPLORE_CFLAGS)
        .arg(format!("-mcpu={cpu}"))
        .arg(&src)
        .arg("-o")
        .arg(&tmp)
        .output()
        .expect("run alpha-linux-gnu-gcc");
    assert!(
        o.status.success(),
        "building {name} for {cpu}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::rename(&tmp, &out).expect("move built program into place");
    Some(out)
}

/// What the explorer must report for one program on one processor model
/// (one line of `tests/c/explore/MANIFEST`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExploreExpect {
    pub program: String,
    pub cpu: String,
    /// `lost-store`, `lock-range-contention`, `forward-progress`, or
    /// `nothing` (no finding at all).
    pub kind: String,
    /// Per side, the symbols any of which that side may name (empty for
    /// `nothing`; one side for forward-progress, two otherwise).
    pub sides: Vec<Vec<String>>,
}

impl ExploreExpect {
    /// Whether a finding of `kind` naming `symbols` (its sides, in the
    /// finding's order) is one this line expects. Two-sided kinds match in
    /// either order.
    pub fn matches(&self, kind: &str, symbols: &[&str]) -> bool {
        if kind != self.kind || symbols.len() != self.sides.len() {
            return false;
        }
        let fits = |order: &mut dyn Iterator<Item = &&str>| {
            order
                .zip(&self.sides)
                .all(|(s, allowed)| allowed.iter().any(|a| a == s))
        };
        fits(&mut symbols.iter()) || fits(&mut symbols.iter().rev())
    }
}

/// Parse `tests/c/explore/MANIFEST`.
pub fn explore_manifest() -> Vec<ExploreExpect> {
    let path = explore_source_dir().join("MANIFEST");
    let text = std::fs::read_to_string(&path).expect("read tests/c/explore/MANIFEST");
    parse_explore_manifest(&text)
}

/// Parse MANIFEST text (see the file's header for the format).
pub fn parse_explore_manifest(text: &str) -> Vec<ExploreExpect> {
    let mut v = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() {
            continue;
        }
        assert!(f.len() >= 3, "MANIFEST line {}: too few fields", n + 1);
        let sides: Vec<Vec<String>> = f[3..]
            .iter()
            .map(|s| s.split('|').map(str::to_string).collect())
            .collect();
        let want = match f[2] {
            "nothing" => 0,
            "forward-progress" => 1,
            "lost-store" | "lock-range-contention" => 2,
            k => panic!("MANIFEST line {}: unknown kind {k}", n + 1),
        };
        assert_eq!(sides.len(), want, "MANIFEST line {}: sides", n + 1);
        v.push(ExploreExpect {
            program: f[0].to_string(),
            cpu: f[1].to_string(),
            kind: f[2].to_string(),
            sides,
        });
    }
    v
}
