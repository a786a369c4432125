//! BusyBox under `subword alpha run`, as its own test suite uses it.
//!
//! - The environment limits of `execve`: BusyBox's `testsuite/runtest`
//!   exports `OPTIONFLAGS` (every enabled option, ~15 KiB for a full
//!   configuration) to every command it runs, so a guest shell must pass an
//!   environment string that long through `execve`, as Linux does up to
//!   `MAX_ARG_STRLEN` (32 pages), and fail with E2BIG beyond it.
//! - The full configuration BusyBox's test suite runs against
//!   (`testkit::busybox_full`: defconfig, static) built for Alpha lists
//!   the same applets under subword and qemu-alpha as the host build.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// A bound for one shell run; a run still going after this is a hang.
const SHELL_LIMIT: Duration = Duration::from_secs(120);

fn run_in(mut cmd: Command, dir: &Path) -> Output {
    cmd.current_dir(dir).stdin(Stdio::null());
    testkit::watchdog::output("busybox shell", cmd, SHELL_LIMIT)
}

/// The guest shell exports a variable whose `NAME=value` string is `len`
/// bytes long and runs a child shell (a real `execve` of the sysroot's
/// `/bin/sh`) that prints the value's length, or the shell's message when
/// the `execve` failed.
fn child_sees_variable(root: &Path, dir: &Path, len: usize) -> Output {
    let value = len - "BIG=".len();
    let script = format!(
        "BIG=$(printf '%0{value}d' 0); export BIG; sh -c 'echo ${{#BIG}}' 2>&1; echo status $?"
    );
    let mut c = Command::new(env!("CARGO_BIN_EXE_subword"));
    c.args(["alpha", "run", "--sysroot"])
        .arg(root)
        .args(["--env", "PATH=/bin"])
        .arg(root.join("bin").join("sh"))
        .args(["-c", &script]);
    run_in(c, dir)
}

/// Linux's limit on one `execve` string, its terminating NUL included
/// (`MAX_ARG_STRLEN`, `include/uapi/linux/binfmts.h`).
const MAX_ARG_STRLEN: usize = 32 * 4096;

#[test]
fn execve_passes_environment_strings_up_to_linux_max_arg_strlen() {
    let test = "busybox_execve_env_limit";
    let Some(root) = testkit::alpha_shell_sysroot(test) else {
        return;
    };
    let dir = testkit::scratch_dir(test);
    // 15 KiB (runtest's OPTIONFLAGS) and the longest string Linux takes.
    for len in [15 * 1024, MAX_ARG_STRLEN - 1] {
        let o = child_sees_variable(&root, &dir, len);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(
            out,
            format!("{}\nstatus 0\n", len - 4),
            "a {len}-byte environment string through execve: {o:?}"
        );
    }
    // One byte more (the NUL makes it MAX_ARG_STRLEN + 1): E2BIG, which
    // ash reports with strerror's text and status 126.
    let o = child_sees_variable(&root, &dir, MAX_ARG_STRLEN);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("Argument list too long") && out.ends_with("status 126\n"),
        "a {MAX_ARG_STRLEN}-byte environment string must fail with E2BIG: {o:?}"
    );
}

// ------------------------------------------------------ full build

/// The full configuration's Alpha BusyBox (`testkit::busybox_full`, what
/// BusyBox's own test suite runs against) knows the same applets as the
/// host build of that configuration: under subword its applet list equals
/// the host build's natively and its own under qemu-alpha.
#[test]
fn busybox_full_build_lists_the_host_builds_applets_under_subword_and_qemu() {
    let test = "busybox_full_applets";
    let Some(qemu) = testkit::require_tool(test, "qemu-alpha", "qemu-user") else {
        return;
    };
    let (Some(host), Some(alpha)) = (
        testkit::busybox_full(test, testkit::BuildFor::Host),
        testkit::busybox_full(test, testkit::BuildFor::Alpha),
    ) else {
        return;
    };
    let dir = testkit::scratch_dir(test);
    let mut n = Command::new(host.join("busybox"));
    n.arg("--list");
    let native = run_in(n, &dir);
    let mut q = Command::new(qemu);
    q.arg(alpha.join("busybox")).arg("--list");
    let under_qemu = run_in(q, &dir);
    let mut s = Command::new(env!("CARGO_BIN_EXE_subword"));
    s.args(["alpha", "run"])
        .arg(alpha.join("busybox"))
        .arg("--list");
    let under_subword = run_in(s, &dir);
    let list = String::from_utf8_lossy(&native.stdout);
    assert!(
        native.status.success() && list.lines().count() > 300,
        "the host build's applet list: {native:?}"
    );
    assert_eq!(
        String::from_utf8_lossy(&under_qemu.stdout),
        list,
        "qemu-alpha"
    );
    assert_eq!(
        String::from_utf8_lossy(&under_subword.stdout),
        list,
        "subword"
    );
    assert!(under_subword.status.success(), "subword: {under_subword:?}");
}
