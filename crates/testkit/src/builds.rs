//! Programs that tests build from third-party sources and cache under
//! `target/`: a static BusyBox (the guest's `/bin/sh` and its applets, from
//! Debian's source tarball, checked against a pinned SHA-256) with a shell
//! sysroot around it; BusyBox's full configuration for Alpha and for the
//! host, with its own test suite; and the Lua 5.5 interpreter and the C
//! modules of its test suite (from `../shared/workloads/lua`).
//!
//! Each build runs once: under an exclusive lock on a file beside its
//! output (so tests of several processes building at once wait for one
//! build), into a temporary name renamed into place (so nobody sees a
//! half-written file). A stamp beside a cached output records what it was
//! built from; a different recipe or a newer source rebuilds it. Missing
//! tools or network give `None` after a `SKIPPED` line outside CI and fail
//! under `CI`.

use crate::{alpha_gcc, in_ci, require_tool, say, shared_dir, workspace_root, ALPHA_SYSROOT};
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The BusyBox release the guest shell is built from.
pub const BUSYBOX_VERSION: &str = "1.35.0";
/// Where Debian publishes its source tarball.
pub const BUSYBOX_URL: &str =
    "http://deb.debian.org/debian/pool/main/b/busybox/busybox_1.35.0.orig.tar.bz2";
/// SHA-256 of that tarball as Debian's `busybox_1.35.0-4.dsc` lists it
/// (`Checksums-Sha256`), so a tampered or truncated download is refused.
pub const BUSYBOX_SHA256: &str = "faeeb244c35a348a334f4a59e44626ee870fb07b6884d68c10ae8bc19f83a694";

/// The configuration: `make allnoconfig`, then these options on. Ash is
/// `sh` (no standalone or no-fork modes: every applet outside ash's
/// builtins is a real `execve` of `/bin/NAME`), plus the applets the Lua
/// suite and the process tests use.
pub const BUSYBOX_OPTIONS: &[&str] = &[
    "STATIC",
    "LFS",
    "SHOW_USAGE",
    "FEATURE_VERBOSE_USAGE",
    "LONG_OPTS",
    "BUSYBOX",
    "SH_IS_ASH",
    "BASH_IS_NONE",
    "SHELL_ASH",
    "ASH",
    "ASH_OPTIMIZE_FOR_SIZE",
    "ASH_INTERNAL_GLOB",
    "ASH_BASH_COMPAT",
    "ASH_JOB_CONTROL",
    "ASH_ALIAS",
    "ASH_ECHO",
    "ASH_PRINTF",
    "ASH_TEST",
    "ASH_GETOPTS",
    "ASH_CMDCMD",
    "FEATURE_SH_MATH",
    "FEATURE_SH_MATH_64",
    "FEATURE_SH_EXTRA_QUIET",
    "CAT",
    "ECHO",
    "FEATURE_FANCY_ECHO",
    "SLEEP",
    "FEATURE_FANCY_SLEEP",
    "KILL",
    "LS",
    "FEATURE_LS_FILETYPES",
    "FEATURE_LS_FOLLOWLINKS",
    "FEATURE_LS_RECURSIVE",
    "FEATURE_LS_WIDTH",
    "FEATURE_LS_SORTFILES",
    "FEATURE_LS_TIMESTAMPS",
    "FEATURE_LS_USERNAME",
    "RM",
    "MKDIR",
    "RMDIR",
    "TEST",
    "TEST1",
    "TEST2",
    "FEATURE_TEST_64",
    "TRUE",
    "FALSE",
    "PRINTF",
    "ENV",
    "CP",
    "MV",
    "LN",
    "PWD",
    "TOUCH",
    "HEAD",
    "TAIL",
    "WC",
    "TR",
    "SED",
    "GREP",
    "EGREP",
    "FGREP",
    "UNAME",
    "BASENAME",
    "DIRNAME",
    "EXPR",
    "EXPR_MATH_SUPPORT_64",
    "CHMOD",
    "DATE",
    "ID",
    "SEQ",
    "YES",
    "CMP",
    "DIFF",
    "XARGS",
    "FIND",
    "SORT",
    "UNIQ",
    "CUT",
    "TEE",
    "PS",
];

/// Options set to a string value after the switches: the cross compiler,
/// and `--no-relax` because Debian's Alpha binutils relax static glibc
/// programs into a crash in `__ctype_init` (see the README).
const BUSYBOX_STRINGS: &[(&str, &str)] = &[
    ("CROSS_COMPILER_PREFIX", "alpha-linux-gnu-"),
    ("EXTRA_LDFLAGS", "-Wl,--no-relax"),
];

/// The folder under `target/` that holds one kind of cached build.
fn cache_dir(name: &str) -> PathBuf {
    let d = workspace_root().join("target").join(name);
    fs::create_dir_all(&d).unwrap_or_else(|e| panic!("create {}: {e}", d.display()));
    d
}

/// Run `f` holding an exclusive lock on `dir/.lock` (other processes'
/// builds of the same thing wait here).
fn locked<T>(dir: &Path, f: impl FnOnce() -> T) -> T {
    let lock = File::create(dir.join(".lock")).expect("create build lock file");
    lock.lock().expect("lock build lock file");
    let r = f();
    let _ = lock.unlock();
    r
}

/// Whether `out` exists and its stamp file says `recipe`.
fn is_current(out: &Path, recipe: &str) -> bool {
    out.is_file() && fs::read_to_string(stamp_of(out)).is_ok_and(|s| s == recipe)
}

fn stamp_of(out: &Path) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(".stamp");
    PathBuf::from(s)
}

/// Move `tmp` to `out` and record `recipe` beside it.
fn install(tmp: &Path, out: &Path, recipe: &str) {
    fs::rename(tmp, out).unwrap_or_else(|e| panic!("move {} into place: {e}", out.display()));
    fs::write(stamp_of(out), recipe).expect("write build stamp");
}

/// Run `cmd`, its output appended to `log`; panic with the log's tail
/// when it fails.
fn run_logged(cmd: &mut Command, log: &Path, what: &str) {
    let mut f = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .expect("open build log");
    let _ = writeln!(f, "$ {cmd:?}");
    let st = cmd
        .stdout(f.try_clone().expect("dup log"))
        .stderr(f)
        .status()
        .unwrap_or_else(|e| panic!("{what}: cannot run: {e}"));
    if !st.success() {
        let text = fs::read_to_string(log).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(30).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        panic!(
            "{what} failed ({st}); end of {}:\n{}",
            log.display(),
            tail.join("\n")
        );
    }
}

/// The SHA-256 of `file`, through coreutils' `sha256sum`.
fn sha256(file: &Path) -> String {
    let o = Command::new("sha256sum")
        .arg(file)
        .output()
        .expect("run sha256sum");
    assert!(o.status.success(), "sha256sum {}", file.display());
    String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_string()
}

/// Fetch the BusyBox tarball into `target/busybox-source/` (once, under
/// that folder's lock) and check its checksum. `None` (after a SKIPPED
/// line) when the download fails outside CI.
fn busybox_tarball(test: &str) -> Option<PathBuf> {
    let dir = cache_dir("busybox-source");
    locked(&dir, || {
        fetch_checked(test, &dir, BUSYBOX_URL, BUSYBOX_SHA256)
    })
}

/// Fetch `url` into `dir` (once) and check its SHA-256 against `want`.
/// `None` (after a SKIPPED line) when the download fails outside CI.
fn fetch_checked(test: &str, dir: &Path, url: &str, want: &str) -> Option<PathBuf> {
    let name = url.rsplit('/').next().unwrap_or("download");
    let tarball = dir.join(name);
    if tarball.is_file() && sha256(&tarball) == want {
        return Some(tarball);
    }
    let tmp = dir.join(format!("download.{}.tmp", std::process::id()));
    let o = Command::new("curl")
        .args(["-fsSL", "--retry", "3", "--connect-timeout", "30", "-o"])
        .arg(&tmp)
        .arg(url)
        .output()
        .expect("run curl");
    if !o.status.success() {
        let _ = fs::remove_file(&tmp);
        let why = String::from_utf8_lossy(&o.stderr).trim().to_string();
        assert!(!in_ci(), "{test}: downloading {url} failed in CI: {why}");
        say(&format!(
            "SKIPPED {test}: cannot download {url} ({why}); this check did not run"
        ));
        return None;
    }
    let got = sha256(&tmp);
    if got != want {
        let _ = fs::remove_file(&tmp);
        panic!("{url}: sha256 {got}, expected {want} (Debian's .dsc)");
    }
    fs::rename(&tmp, &tarball).expect("move tarball into place");
    Some(tarball)
}

/// The recipe a cached BusyBox was built from.
fn busybox_recipe() -> String {
    let mut r = format!("busybox {BUSYBOX_VERSION} {BUSYBOX_SHA256}\n");
    for o in BUSYBOX_OPTIONS {
        r.push_str(&format!("CONFIG_{o}=y\n"));
    }
    for (k, v) in BUSYBOX_STRINGS {
        r.push_str(&format!("CONFIG_{k}=\"{v}\"\n"));
    }
    r
}

/// A static Alpha BusyBox (`target/alpha-busybox/busybox`), built once
/// from Debian's tarball with [`BUSYBOX_OPTIONS`]. `None` (after a SKIPPED
/// line) outside CI when the cross compiler, `make`, `curl`, `bzip2` or the
/// network is missing; a failure under CI.
pub fn alpha_busybox(test: &str) -> Option<PathBuf> {
    let dir = cache_dir("alpha-busybox");
    let out = dir.join("busybox");
    let recipe = busybox_recipe();
    if is_current(&out, &recipe) {
        return Some(out);
    }
    alpha_gcc(test)?;
    busybox_build_tools(test)?;
    locked(&dir, || {
        if is_current(&out, &recipe) {
            return Some(out.clone());
        }
        let tarball = busybox_tarball(test)?;
        say(&format!(
            "{test}: building BusyBox {BUSYBOX_VERSION} for Alpha (once, cached in {})",
            dir.display()
        ));
        let obj = build_busybox(
            &dir,
            &tarball,
            "allnoconfig",
            BUSYBOX_OPTIONS,
            BUSYBOX_STRINGS,
        );
        let tmp = dir.join(format!("busybox.{}.tmp", std::process::id()));
        fs::copy(obj.join("busybox"), &tmp).expect("copy busybox");
        install(&tmp, &out, &recipe);
        let _ = fs::remove_dir_all(&obj);
        Some(out.clone())
    })
}

/// The host tools a BusyBox build needs (its config tools are built with
/// the host's gcc); `None` after a SKIPPED line when one is missing.
fn busybox_build_tools(test: &str) -> Option<()> {
    for (tool, pkg) in [
        ("make", "make"),
        ("gcc", "gcc"),
        ("curl", "curl"),
        ("bzip2", "bzip2"),
        ("tar", "tar"),
        ("sha256sum", "coreutils"),
    ] {
        require_tool(test, tool, pkg)?;
    }
    Some(())
}

/// Build BusyBox from `tarball` in `dir`: `make BASE` (`allnoconfig` or
/// `defconfig`), then `switches` turned on and `strings` set, then
/// `oldconfig` taking the default for every question the switches opened
/// up, then `make busybox`. Every switch must survive `oldconfig` (none
/// may depend on an option left off). Returns the object folder holding
/// `busybox` and its `.config`; the log is `dir/build.log`.
fn build_busybox(
    dir: &Path,
    tarball: &Path,
    base: &str,
    switches: &[&str],
    strings: &[(&str, &str)],
) -> PathBuf {
    let src = dir.join("src");
    let obj = dir.join("obj");
    let log = dir.join("build.log");
    let _ = fs::remove_dir_all(&src);
    let _ = fs::remove_dir_all(&obj);
    let _ = fs::remove_file(&log);
    fs::create_dir_all(&src).expect("create busybox src dir");
    fs::create_dir_all(&obj).expect("create busybox obj dir");
    run_logged(
        Command::new("tar")
            .arg("-xjf")
            .arg(tarball)
            .arg("--strip-components=1")
            .arg("-C")
            .arg(&src),
        &log,
        "unpacking BusyBox",
    );
    let make = |args: &[&str]| {
        let mut c = Command::new("make");
        c.current_dir(&src).arg(format!("O={}", obj.display()));
        c.args(args);
        c
    };
    run_logged(
        make(&[base]).stdin(Stdio::null()),
        &log,
        &format!("busybox {base}"),
    );
    let config = obj.join(".config");
    let mut text = fs::read_to_string(&config).expect("read busybox .config");
    for o in switches {
        text = text.replace(
            &format!("# CONFIG_{o} is not set\n"),
            &format!("CONFIG_{o}=y\n"),
        );
    }
    for (k, v) in strings {
        text = text.replace(
            &format!("CONFIG_{k}=\"\"\n"),
            &format!("CONFIG_{k}=\"{v}\"\n"),
        );
    }
    fs::write(&config, text).expect("write busybox .config");
    // oldconfig asks about every option the switches opened up; an
    // empty answer takes the default.
    let mut c = make(&["oldconfig"]);
    c.stdin(Stdio::piped());
    let mut f = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .expect("open build log");
    let mut child = c
        .stdout(f.try_clone().expect("dup log"))
        .stderr(f.try_clone().expect("dup log"))
        .spawn()
        .expect("run make oldconfig");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(&[b'\n'; 65536]);
    }
    let st = child.wait().expect("wait for make oldconfig");
    assert!(
        st.success(),
        "busybox oldconfig failed; see {}",
        log.display()
    );
    let _ = writeln!(f);
    let written = fs::read_to_string(&config).expect("read busybox .config");
    for o in switches {
        assert!(
            written.lines().any(|l| l == format!("CONFIG_{o}=y")),
            "busybox config lost CONFIG_{o} (a dependency is off); see {}",
            config.display()
        );
    }
    for (k, v) in strings {
        assert!(
            written.lines().any(|l| l == format!("CONFIG_{k}=\"{v}\"")),
            "busybox config lost CONFIG_{k}=\"{v}\"; see {}",
            config.display()
        );
    }
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    run_logged(
        &mut make(&[&format!("-j{jobs}"), "busybox"]),
        &log,
        "building BusyBox",
    );
    let _ = fs::remove_dir_all(&src);
    obj
}

/// Which machine a build is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildFor {
    /// Alpha, with `alpha-linux-gnu-gcc` (static, `-Wl,--no-relax`).
    Alpha,
    /// The host, with its `gcc`: the native reference.
    Host,
}

impl BuildFor {
    /// A short name for folders and messages (`alpha`, `host`).
    pub fn name(self) -> &'static str {
        match self {
            BuildFor::Alpha => "alpha",
            BuildFor::Host => "host",
        }
    }
}

/// The full configuration BusyBox's own test suite runs against: `make
/// defconfig` (every applet and feature BusyBox enables by default), and
/// static. Nothing is taken out: the whole defconfig builds for Alpha with
/// Debian's cross gcc 12 and glibc 2.36. The Alpha build adds the cross
/// prefix and `--no-relax` (as [`alpha_busybox`] does); the host build is
/// the same configuration for the native reference run.
pub const BUSYBOX_FULL_SWITCHES: &[&str] = &["STATIC"];

/// The string options and the recipe of the full BusyBox for `target`.
fn busybox_full_recipe(target: BuildFor) -> (Vec<(&'static str, &'static str)>, String) {
    let strings = match target {
        BuildFor::Alpha => BUSYBOX_STRINGS.to_vec(),
        BuildFor::Host => Vec::new(),
    };
    let mut r = format!(
        "busybox {BUSYBOX_VERSION} {BUSYBOX_SHA256} defconfig {}\n",
        target.name()
    );
    for o in BUSYBOX_FULL_SWITCHES {
        r.push_str(&format!("CONFIG_{o}=y\n"));
    }
    for (k, v) in &strings {
        r.push_str(&format!("CONFIG_{k}=\"{v}\"\n"));
    }
    (strings, r)
}

/// BusyBox with the full configuration ([`BUSYBOX_FULL_SWITCHES`]) for
/// `target`, built once into `target/busybox-full-{alpha,host}/`: the
/// folder holding `busybox` and the `.config` it was built with (what
/// `testsuite/runtest` calls `bindir`). `None` (after a SKIPPED line)
/// outside CI when a tool or the network is missing; a failure under CI.
pub fn busybox_full(test: &str, target: BuildFor) -> Option<PathBuf> {
    let dir = cache_dir(&format!("busybox-full-{}", target.name()));
    let out = dir.join("busybox");
    let (strings, recipe) = busybox_full_recipe(target);
    if is_current(&out, &recipe) && dir.join(".config").is_file() {
        return Some(dir);
    }
    if target == BuildFor::Alpha {
        alpha_gcc(test)?;
    }
    busybox_build_tools(test)?;
    locked(&dir, || {
        if is_current(&out, &recipe) && dir.join(".config").is_file() {
            return Some(dir.clone());
        }
        let tarball = busybox_tarball(test)?;
        say(&format!(
            "{test}: building BusyBox {BUSYBOX_VERSION} (defconfig, static) for {} (once, cached in {})",
            target.name(),
            dir.display()
        ));
        let obj = build_busybox(&dir, &tarball, "defconfig", BUSYBOX_FULL_SWITCHES, &strings);
        fs::copy(obj.join(".config"), dir.join(".config")).expect("copy busybox .config");
        let tmp = dir.join(format!("busybox.{}.tmp", std::process::id()));
        fs::copy(obj.join("busybox"), &tmp).expect("copy busybox");
        install(&tmp, &out, &recipe);
        let _ = fs::remove_dir_all(&obj);
        Some(dir.clone())
    })
}

/// BusyBox's own test suite (`testsuite/` of the same tarball), unpacked
/// once into `target/busybox-testsuite/testsuite`. Tests run copies of it:
/// `runtest` writes into its folder. `None` as for [`busybox_full`].
pub fn busybox_testsuite(test: &str) -> Option<PathBuf> {
    let dir = cache_dir("busybox-testsuite");
    let out = dir.join("testsuite");
    // The stamp sits beside the folder, not in it: tests copy the folder.
    let stamp = dir.join("unpacked");
    let recipe = format!("busybox {BUSYBOX_VERSION} {BUSYBOX_SHA256} testsuite\n");
    if is_current(&stamp, &recipe) {
        return Some(out);
    }
    busybox_build_tools(test)?;
    locked(&dir, || {
        if is_current(&stamp, &recipe) {
            return Some(out.clone());
        }
        let tarball = busybox_tarball(test)?;
        let _ = fs::remove_dir_all(&out);
        let log = dir.join("unpack.log");
        let _ = fs::remove_file(&log);
        run_logged(
            Command::new("tar")
                .arg("-xjf")
                .arg(&tarball)
                .arg("--strip-components=1")
                .arg("-C")
                .arg(&dir)
                .arg(format!("busybox-{BUSYBOX_VERSION}/testsuite")),
            &log,
            "unpacking BusyBox's testsuite",
        );
        fs::write(&stamp, "").expect("write unpack mark");
        fs::write(stamp_of(&stamp), &recipe).expect("write build stamp");
        Some(out.clone())
    })
}

/// The applets the shell sysroot links to BusyBox: `sh` and every applet
/// [`BUSYBOX_OPTIONS`] builds.
pub const BUSYBOX_APPLETS: &[&str] = &[
    "sh", "ash", "[", "[[", "basename", "cat", "chmod", "cmp", "cp", "cut", "date", "diff",
    "dirname", "echo", "egrep", "env", "expr", "false", "fgrep", "find", "grep", "head", "id",
    "kill", "ln", "ls", "mkdir", "mv", "printf", "ps", "pwd", "rm", "rmdir", "sed", "seq", "sleep",
    "sort", "tail", "tee", "test", "touch", "tr", "true", "uname", "uniq", "wc", "xargs", "yes",
];

/// A sysroot for guests that need a shell (`target/alpha-shell-sysroot`):
/// `bin/busybox` with `bin/sh`, `bin/cat`, … ([`BUSYBOX_APPLETS`]) linked
/// to it, and `lib`, `lib64`, `usr/lib` linked to Debian's Alpha libraries
/// in [`ALPHA_SYSROOT`] so dynamic programs still load. `usr/bin` links to
/// `bin`. `None` when [`alpha_busybox`] is.
pub fn alpha_shell_sysroot(test: &str) -> Option<PathBuf> {
    let busybox = alpha_busybox(test)?;
    let root = workspace_root().join("target").join("alpha-shell-sysroot");
    let recipe = format!("{}\n{}", busybox_recipe(), BUSYBOX_APPLETS.join(" "));
    let done = root.join("bin").join("busybox");
    if is_current(&done, &recipe) {
        return Some(root);
    }
    let parent = cache_dir("alpha-busybox");
    locked(&parent, || {
        if is_current(&done, &recipe) {
            return Some(root.clone());
        }
        let _ = fs::remove_dir_all(&root);
        let bin = root.join("bin");
        fs::create_dir_all(&bin).expect("create shell sysroot bin/");
        fs::create_dir_all(root.join("usr")).expect("create shell sysroot usr/");
        let lib = Path::new(ALPHA_SYSROOT).join("lib");
        let link = |target: &Path, at: PathBuf| {
            std::os::unix::fs::symlink(target, &at)
                .unwrap_or_else(|e| panic!("link {}: {e}", at.display()));
        };
        link(&lib, root.join("lib"));
        link(&lib, root.join("lib64"));
        link(&lib, root.join("usr").join("lib"));
        link(Path::new("../bin"), root.join("usr").join("bin"));
        for a in BUSYBOX_APPLETS {
            link(Path::new("busybox"), bin.join(a));
        }
        let tmp = bin.join(format!("busybox.{}.tmp", std::process::id()));
        fs::copy(&busybox, &tmp).expect("copy busybox into the shell sysroot");
        install(&tmp, &done, &recipe);
        Some(root.clone())
    })
}

/// A hash of `text` for build stamps (SipHash with fixed keys).
fn text_hash(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// The source of the guest's minimal `libreadline.so`.
const READLINE_C: &str = include_str!("readline.c");

/// The folder of the Lua 5.5 sources (`../shared/workloads/lua`).
pub fn lua_source_dir() -> PathBuf {
    shared_dir().join("workloads").join("lua")
}

/// The newest modification time of the files directly in `dir`, as
/// seconds and nanoseconds (for build stamps).
fn newest_mtime(dir: &Path) -> String {
    let newest = fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok()?.metadata().ok()?.modified().ok())
                .max()
        })
        .ok()
        .flatten()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .unwrap_or_default();
    format!("{}.{:09}", newest.as_secs(), newest.subsec_nanos())
}

/// `None` (after a SKIPPED line) when the Lua sources are missing outside
/// CI; a failure under CI.
fn lua_sources(test: &str) -> Option<PathBuf> {
    let dir = lua_source_dir();
    if dir.join("onelua.c").is_file() {
        return Some(dir);
    }
    assert!(!in_ci(), "{test}: {} missing in CI", dir.display());
    say(&format!(
        "SKIPPED {test}: {} missing (the shared/ folder beside the repository); this check did not run",
        dir.display()
    ));
    None
}

/// The flags every Lua build uses besides `-mcpu` (dynamic, against
/// Debian's Alpha glibc; `-w` because Lua's one-file build warns a lot;
/// `-Wl,-E` as Lua's makefile links on Linux, so C modules loaded with
/// `require` find the interpreter's `lua_*` functions).
pub const LUA_CFLAGS: &[&str] = &["-O2", "-std=c99", "-DLUA_USE_LINUX", "-w", "-Wl,-E"];

/// The Lua 5.5 interpreter built from `onelua.c` for processor `cpu`
/// (`target/alpha-lua/lua.CPU`, dynamic, [`LUA_CFLAGS`]), rebuilt when a
/// source is newer. `None` (after a SKIPPED line) when the cross compiler
/// or the sources are missing outside CI.
pub fn alpha_lua(test: &str, cpu: &str) -> Option<PathBuf> {
    let gcc = alpha_gcc(test)?;
    let src = lua_sources(test)?;
    let dir = cache_dir("alpha-lua");
    let out = dir.join(format!("lua.{cpu}"));
    let recipe = format!("{LUA_CFLAGS:?} -mcpu={cpu} {}", newest_mtime(&src));
    if is_current(&out, &recipe) {
        return Some(out);
    }
    locked(&dir, || {
        if !is_current(&out, &recipe) {
            let tmp = dir.join(format!("lua.{cpu}.{}.tmp", std::process::id()));
            let log = dir.join(format!("lua.{cpu}.log"));
            let _ = fs::remove_file(&log);
            run_logged(
                Command::new(&gcc)
                    .args(LUA_CFLAGS)
                    .arg(format!("-mcpu={cpu}"))
                    .arg("-o")
                    .arg(&tmp)
                    .arg(src.join("onelua.c"))
                    .arg("-lm"),
                &log,
                &format!("building Lua for {cpu}"),
            );
            install(&tmp, &out, &recipe);
        }
        Some(out.clone())
    })
}

/// The C modules of the Lua test suite (`testes/libs/*.c`, as its makefile
/// builds them: `lib1.so lib11.so lib2.so lib21.so lib2-v2.so`), built for
/// `cpu` into `target/alpha-lua/libs-CPU/`, with `libreadline.so`: a
/// minimal line reader with readline's entry points (`src/readline.c`),
/// for `LD_LIBRARY_PATH`, because Debian's Alpha sysroot has no readline
/// and `main.lua` expects `lua.c` to load one. `None` as for
/// [`alpha_lua`].
pub fn alpha_lua_test_libs(test: &str, cpu: &str) -> Option<PathBuf> {
    let gcc = alpha_gcc(test)?;
    let src = lua_sources(test)?;
    let libs_src = src.join("testes").join("libs");
    let dir = cache_dir("alpha-lua");
    let out = dir.join(format!("libs-{cpu}"));
    let stamp = out.join("lib2-v2.so");
    let recipe = format!(
        "-mcpu={cpu} {} {:016x}",
        newest_mtime(&libs_src),
        text_hash(READLINE_C)
    );
    if is_current(&stamp, &recipe) {
        return Some(out);
    }
    locked(&dir, || {
        if !is_current(&stamp, &recipe) {
            let _ = fs::remove_dir_all(&out);
            fs::create_dir_all(&out).expect("create Lua test libs dir");
            let log = dir.join(format!("libs-{cpu}.log"));
            let _ = fs::remove_file(&log);
            let rl_c = out.join("readline.c");
            fs::write(&rl_c, READLINE_C).expect("write readline.c");
            run_logged(
                Command::new(&gcc)
                    .args(["-Wall", "-O2", "-fPIC", "-shared"])
                    .arg(format!("-mcpu={cpu}"))
                    .arg("-o")
                    .arg(out.join("libreadline.so"))
                    .arg(&rl_c),
                &log,
                &format!("building libreadline.so for {cpu}"),
            );
            // The makefile's list: lib2-v2.so is built from lib22.c.
            for (so, c) in [
                ("lib1.so", "lib1.c"),
                ("lib11.so", "lib11.c"),
                ("lib2.so", "lib2.c"),
                ("lib21.so", "lib21.c"),
                ("lib2-v2.so", "lib22.c"),
            ] {
                let tmp = out.join(format!("{so}.tmp"));
                run_logged(
                    Command::new(&gcc)
                        .args(["-Wall", "-O2", "-fPIC", "-shared"])
                        .arg(format!("-mcpu={cpu}"))
                        .arg(format!("-I{}", src.display()))
                        .arg("-o")
                        .arg(&tmp)
                        .arg(libs_src.join(c)),
                    &log,
                    &format!("building Lua test module {so} for {cpu}"),
                );
                if so == "lib2-v2.so" {
                    install(&tmp, &out.join(so), &recipe);
                } else {
                    fs::rename(&tmp, out.join(so)).expect("move Lua test module into place");
                }
            }
        }
        Some(out.clone())
    })
}
