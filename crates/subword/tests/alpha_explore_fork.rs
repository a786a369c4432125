//! A forking guest under `alpha explore`: the explorer explores the threads
//! of one process, so a program that forks (`fork`, `vfork`, `posix_spawn`,
//! `system`) is refused with one line and exit 2 — no forked copy of the
//! explorer runs on, prints a report of its own or outlives it.

use std::process::{Command, Stdio};
use std::time::Duration;

const FORKER: &str = r#"#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void)
{
    for (int i = 0; i < 3; i++) {
        pid_t p = fork();
        if (p == 0)
            _exit(i);
        int st;
        waitpid(p, &st, 0);
        printf("child %d: %d\n", i, WEXITSTATUS(st));
    }
    return 0;
}
"#;

#[test]
fn a_forking_guest_is_refused_with_one_line_and_no_copy_outlives_the_explorer() {
    let Some(gcc) = testkit::alpha_gcc("alpha_explore_fork") else {
        return;
    };
    let dir = testkit::scratch_dir("alpha_explore_fork");
    let bin = testkit::compile_c(&gcc, &dir, "forker", FORKER, &["-static", "-Wl,--no-relax"]);
    for extra in [&["--json"][..], &[][..]] {
        let mut c = Command::new(env!("CARGO_BIN_EXE_subword"));
        c.args(["alpha", "explore", "--schedules", "20"])
            .args(extra)
            .arg(&bin)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let (child, guard) =
            testkit::watchdog::spawn(&mut c, Duration::from_secs(120)).expect("spawn");
        let pgid = child.id() as i32;
        let o = child.wait_with_output().expect("wait");
        assert!(!guard.finish(), "alpha explore {extra:?} hung");
        let (out, err) = (
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr),
        );
        assert_eq!(o.status.code(), Some(2), "{extra:?}\n{out}{err}");
        assert_eq!(out, "", "{extra:?}: no report, JSON or otherwise");
        assert_eq!(err.lines().count(), 1, "{extra:?}: {err}");
        assert!(
            err.starts_with("subword: ") && err.contains("the program forks"),
            "{err}"
        );
        // Nothing of its process group is left (a forked explorer would be).
        // SAFETY: kill with signal 0 only asks whether the group exists.
        let alive = unsafe { libc::kill(-pgid, 0) } == 0;
        assert!(
            !alive,
            "{extra:?}: a process of the explorer's group outlived it"
        );
    }
    // alpha run still runs it, as qemu-alpha does.
    let o = Command::new(env!("CARGO_BIN_EXE_subword"))
        .args(["alpha", "run"])
        .arg(&bin)
        .output()
        .expect("run");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "child 0: 0\nchild 1: 1\nchild 2: 2\n"
    );
}
