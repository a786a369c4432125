//! BusyBox under `subword alpha run`, as its own test suite uses it.
//!
//! - The environment limits of `execve`: BusyBox's `testsuite/runtest`
//!   exports `OPTIONFLAGS` (every enabled option, ~15 KiB for a full
//!   configuration) to every command it runs, so a guest shell must pass an
//!   environment string that long through `execve`, as Linux does up to
//!   `MAX_ARG_STRLEN` (32 pages), and fail with E2BIG beyond it.

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
