//! Bounded runs of programs that may fork: a hang fails the test instead of
//! stalling the whole suite.
//!
//! A guest that forks leaves host processes (under both qemu-alpha and
//! subword) holding the captured stdout and stderr pipes, so killing only
//! the direct child is not enough: reading its output would still wait for
//! the grandchildren. [`spawn`] starts the command as the leader of a new
//! process group and the watchdog kills the whole group when time is up.
//! The new group also keeps a guest's `kill(0, …)` away from the test
//! harness.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The default bound for one probe run.
pub const PROBE_LIMIT: Duration = Duration::from_secs(60);

/// Kills a child's process group once its time limit passes, unless the
/// guard has been dropped (or [`Guard::finish`]ed) by then.
pub struct Guard {
    done: Arc<AtomicBool>,
    fired: Arc<AtomicBool>,
}

impl Guard {
    /// Stop the watchdog; true when it had already killed the group.
    pub fn finish(self) -> bool {
        self.done.store(true, Ordering::SeqCst);
        self.fired.load(Ordering::SeqCst)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
    }
}

/// Spawn `c` as the leader of its own process group, with a watchdog that
/// sends SIGKILL to the whole group after `limit`.
pub fn spawn(c: &mut Command, limit: Duration) -> std::io::Result<(Child, Guard)> {
    let child = c.process_group(0).spawn()?;
    let pgid = child.id() as i32;
    let done = Arc::new(AtomicBool::new(false));
    let fired = Arc::new(AtomicBool::new(false));
    let (d, f) = (done.clone(), fired.clone());
    std::thread::spawn(move || {
        let start = Instant::now();
        while start.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(50));
            if d.load(Ordering::SeqCst) {
                return;
            }
        }
        f.store(true, Ordering::SeqCst);
        // SAFETY: kill has no memory preconditions; a negative pid names
        // the process group this thread's child leads.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
    });
    Ok((child, Guard { done, fired }))
}

/// Run `c` (stdin as the caller set it) with stdout and stderr captured,
/// killing its whole process group after `limit`. Panics naming `what`
/// when the limit was hit, so a hang reads as what it is.
pub fn output(what: &str, mut c: Command, limit: Duration) -> Output {
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    let (child, guard) = spawn(&mut c, limit).unwrap_or_else(|e| panic!("{what}: spawn: {e}"));
    let o = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("{what}: wait: {e}"));
    if guard.finish() {
        panic!(
            "{what}: still running after {} s, its process group was killed; stdout so far:\n{}\nstderr so far:\n{}",
            limit.as_secs(),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    o
}
