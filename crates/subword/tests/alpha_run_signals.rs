//! Signals from outside the guest: `crates/subword/tests/c/signals/outside.c`
//! (one probe per argument) waits in `pause`, `sigsuspend`, a futex wait
//! (a semaphore, with a second thread blocked too) or `read`, with nothing
//! in the guest able to wake it; the test sends SIGUSR1 from outside, as a
//! shell's `kill` would, and the output and status must be qemu-alpha's.
//! SIGTSTP from outside and the guest's own `kill(getpid(), SIGSTOP)` stop
//! the host process (seen as `T` in `/proc/PID/status`) until SIGCONT, as
//! under qemu-alpha; under `--deterministic` the waiting guest is a
//! deadlock, reported at once. A child whose parent ended sees its new
//! parent in `getppid`. Every run is bounded: the probe waits at
//! most a few seconds for each state, and a watchdog kills what is left.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

fn bin() -> Option<&'static PathBuf> {
    static BIN: OnceLock<Option<PathBuf>> = OnceLock::new();
    BIN.get_or_init(|| {
        let gcc = testkit::alpha_gcc("alpha_run_signals")?;
        let dir = testkit::scratch_dir("alpha_run_signals");
        let p = testkit::workspace_root().join("crates/subword/tests/c/signals/outside.c");
        let src = std::fs::read_to_string(&p).expect("outside.c");
        Some(testkit::compile_c(
            &gcc,
            &dir,
            "outside",
            &src,
            &["-static", "-Wl,--no-relax", "-pthread"],
        ))
    })
    .as_ref()
}

/// The two runners: subword, and qemu-alpha when it is there.
fn runners(bin: &Path, probe: &str) -> Vec<(&'static str, Command)> {
    let mut v = Vec::new();
    let mut c = Command::new(env!("CARGO_BIN_EXE_subword"));
    c.args(["alpha", "run"]).arg(bin).arg(probe);
    v.push(("subword", c));
    if let Some(q) = testkit::require_tool("alpha_run_signals", "qemu-alpha", "qemu-user") {
        let mut c = Command::new(q);
        c.arg(bin).arg(probe);
        v.push(("qemu-alpha", c));
    }
    v
}

/// A started probe: its stdout after "ready", read to the end later.
struct Probe {
    child: Child,
    out: BufReader<std::process::ChildStdout>,
    what: String,
    done: Arc<AtomicBool>,
}

impl Probe {
    /// Start `c` in its own process group (stdin a pipe kept open) and
    /// wait (bounded) for its "ready" line.
    fn start(what: &str, mut c: Command) -> Probe {
        c.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0);
        let mut child = c.spawn().expect("spawn");
        let stdout = child.stdout.take().expect("stdout");
        // The watchdog: the whole probe is over well within a minute; past
        // that its process group is killed (a hang fails the test).
        let pid = child.id() as i32;
        let done = Arc::new(AtomicBool::new(false));
        let d = done.clone();
        std::thread::spawn(move || {
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(60) {
                if d.load(Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            // SAFETY: kill has no memory preconditions; the probe leads
            // its own process group.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        });
        let mut p = Probe {
            child,
            out: BufReader::new(stdout),
            what: what.to_string(),
            done,
        };
        let mut line = String::new();
        p.out.read_line(&mut line).expect("read ready");
        assert_eq!(line, "ready\n", "{what}");
        p
    }

    fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    fn signal(&self, sig: i32) {
        // SAFETY: kill has no memory preconditions.
        unsafe { libc::kill(self.pid(), sig) };
    }

    /// The process's state letter in /proc/PID/status.
    fn state(&self) -> char {
        let s = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap_or_default();
        s.lines()
            .find_map(|l| l.strip_prefix("State:"))
            .and_then(|v| v.trim().chars().next())
            .unwrap_or('?')
    }

    /// Wait (at most 10 s) until the state is `want`.
    fn wait_state(&self, want: char) {
        let start = Instant::now();
        while self.state() != want {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "{}: state {} never became {want}",
                self.what,
                self.state()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Wait until the probe sleeps in the host (it is waiting), then a
    /// little more: the guest is in its wait.
    fn settle(&self) {
        self.wait_state('S');
        std::thread::sleep(Duration::from_millis(200));
    }

    /// Close stdin, read the rest of stdout and the status.
    fn finish(self) -> (String, Option<i32>, Option<i32>) {
        self.finish_with(true)
    }

    /// Read the rest of stdout and the status, closing stdin first only
    /// with `close_first` (else after: the probe must end by itself).
    fn finish_with(mut self, close_first: bool) -> (String, Option<i32>, Option<i32>) {
        if close_first {
            drop(self.child.stdin.take());
        }
        let mut rest = String::new();
        let _ = self.out.read_to_string(&mut rest);
        drop(self.child.stdin.take());
        let st = self.child.wait().expect("wait");
        self.done.store(true, Ordering::SeqCst);
        use std::os::unix::process::ExitStatusExt;
        (rest, st.code(), st.signal())
    }
}

impl Drop for Probe {
    /// A probe dropped unfinished (a failed assertion) is killed at once.
    fn drop(&mut self) {
        if !self.done.swap(true, Ordering::SeqCst) {
            // SAFETY: kill has no memory preconditions; the probe leads
            // its own process group and has not been reaped yet.
            unsafe { libc::kill(-self.pid(), libc::SIGKILL) };
            let _ = self.child.wait();
        }
    }
}

/// Each runner: start the probe, let it wait, send SIGUSR1, collect
/// (stdin stays open until the probe has ended by itself).
fn usr1(probe: &str, expect: &str) {
    let Some(b) = bin() else { return };
    for (who, c) in runners(b, probe) {
        let p = Probe::start(&format!("{who} {probe}"), c);
        p.settle();
        p.signal(libc::SIGUSR1);
        let (out, code, _) = p.finish_with(false);
        assert_eq!(out, expect, "{who} {probe}");
        assert_eq!(code, Some(0), "{who} {probe}");
    }
}

#[test]
fn pause_waits_for_a_signal_from_outside_and_runs_its_handler() {
    usr1(
        "pause",
        "pause: -1 (Interrupted system call), handler ran: 1\n",
    );
}

#[test]
fn sigsuspend_waits_for_a_signal_from_outside() {
    usr1(
        "sigsuspend",
        "sigsuspend: -1 (Interrupted system call), handler ran: 1\n",
    );
}

#[test]
fn two_threads_in_futex_waits_wait_for_the_handler_that_posts_the_semaphore() {
    usr1("futex", "sem_wait: 0, handler ran: 1\n");
}

#[test]
fn a_read_of_an_open_empty_pipe_is_interrupted_by_a_signal_from_outside() {
    usr1(
        "read",
        "read: -1 (Interrupted system call), handler ran: 1\n",
    );
}

#[test]
fn a_signal_from_outside_at_its_default_action_ends_the_waiting_guest() {
    let Some(b) = bin() else { return };
    for (who, c) in runners(b, "default") {
        let p = Probe::start(&format!("{who} default"), c);
        p.settle();
        p.signal(libc::SIGUSR1);
        let (out, code, sig) = p.finish();
        assert_eq!(out, "", "{who}");
        // Killed by SIGUSR1 (qemu-alpha re-raises it; so does subword).
        assert_eq!((code, sig), (None, Some(libc::SIGUSR1)), "{who}");
    }
}

#[test]
fn under_deterministic_a_guest_that_only_a_signal_can_wake_is_a_deadlock() {
    let Some(b) = bin() else { return };
    let mut c = Command::new(env!("CARGO_BIN_EXE_subword"));
    c.args(["alpha", "run", "--deterministic"])
        .arg(b)
        .arg("pause")
        .stdin(Stdio::null());
    let o = testkit::watchdog::output("deterministic pause", c, Duration::from_secs(60));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "ready\n");
    assert_eq!(o.status.code(), Some(137));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("every guest thread is blocked (deadlock)"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn kill_getpid_sigstop_stops_the_process_until_sigcont() {
    let Some(b) = bin() else { return };
    for (who, c) in runners(b, "stop") {
        let p = Probe::start(&format!("{who} stop"), c);
        p.wait_state('T');
        p.signal(libc::SIGCONT);
        let (out, code, _) = p.finish();
        assert_eq!(out, "continued after SIGSTOP\n", "{who}");
        assert_eq!(code, Some(0), "{who}");
    }
}

#[test]
fn sigtstp_from_outside_stops_the_process_and_sigcont_continues_its_read() {
    let Some(b) = bin() else { return };
    for (who, c) in runners(b, "tstp") {
        let p = Probe::start(&format!("{who} tstp"), c);
        p.settle();
        p.signal(libc::SIGTSTP);
        p.wait_state('T');
        p.signal(libc::SIGCONT);
        p.wait_state('S');
        let (out, code, _) = p.finish();
        assert_eq!(out, "read after the stop: 0\n", "{who}");
        assert_eq!(code, Some(0), "{who}");
    }
}

#[test]
fn getppid_after_the_parent_ended_names_the_new_parent() {
    let Some(b) = bin() else { return };
    for (who, mut c) in runners(b, "getppid") {
        c.stdin(Stdio::null());
        let o = testkit::watchdog::output(who, c, Duration::from_secs(60));
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            "child: getppid changed from the dead parent: 1\n",
            "{who}"
        );
        assert_eq!(o.status.code(), Some(0), "{who}");
    }
}
