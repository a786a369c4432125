//! Host I/O, blocking and identity reach the guest as Linux delivers them:
//! `crates/alpha-emu/tests/c/truth/truth.c` (one probe per argument) is
//! built static (`-Wl,--no-relax`) for `-mcpu=ev67` and `-mcpu=ev4` and run
//! under `subword alpha run --cpu MODEL` and, as the check that each
//! expectation is what Linux does, under `qemu-alpha -cpu MODEL`, with the
//! host side each row needs: stdout on `/dev/full` or closed, a reader
//! that leaves, a pipe nobody drains, a stdin that is a file or a pipe held
//! open; `poll`/`select` over a pipe. Every expectation below is asserted
//! for both (qemu-alpha agrees with Linux on all of these rows); rows only
//! subword has (the fixed identity of `--deterministic`, the `subword:`
//! line) are asserted for it.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

const MODELS: [&str; 2] = ["ev67", "ev4"];

/// The probe binaries, one per model (`None`: no cross compiler, skipped).
fn binaries() -> Option<&'static Vec<(String, PathBuf)>> {
    static BINS: OnceLock<Option<Vec<(String, PathBuf)>>> = OnceLock::new();
    BINS.get_or_init(|| {
        let gcc = testkit::alpha_gcc("alpha_linux_truth")?;
        let dir = testkit::scratch_dir("alpha_linux_truth");
        let src = std::fs::read_to_string(
            testkit::workspace_root().join("crates/alpha-emu/tests/c/truth/truth.c"),
        )
        .expect("truth.c");
        Some(
            MODELS
                .iter()
                .map(|m| {
                    let cpu = format!("-mcpu={m}");
                    let flags = ["-static", "-Wl,--no-relax", "-pthread", cpu.as_str()];
                    let bin = testkit::compile_c(&gcc, &dir, &format!("truth-{m}"), &src, &flags);
                    (m.to_string(), bin)
                })
                .collect(),
        )
    })
    .as_ref()
}

/// One way to run a probe: subword, or qemu-alpha when it is installed.
#[derive(Clone)]
struct Runner {
    name: String,
    prefix: Vec<String>,
    subword: bool,
}

fn runners(model: &str) -> Vec<Runner> {
    let mut v = vec![Runner {
        name: format!("subword --cpu {model}"),
        prefix: vec![
            env!("CARGO_BIN_EXE_subword").into(),
            "alpha".into(),
            "run".into(),
            "--cpu".into(),
            model.into(),
        ],
        subword: true,
    }];
    if let Some(q) = testkit::require_tool("alpha_linux_truth", "qemu-alpha", "qemu-user") {
        v.push(Runner {
            name: format!("qemu-alpha -cpu {model}"),
            prefix: vec![q.display().to_string(), "-cpu".into(), model.into()],
            subword: false,
        });
    }
    v
}

/// Every (runner, binary) pair; empty when the compiler is missing.
fn cases() -> Vec<(Runner, PathBuf)> {
    let Some(bins) = binaries() else {
        return Vec::new();
    };
    bins.iter()
        .flat_map(|(m, b)| runners(m).into_iter().map(move |r| (r, b.clone())))
        .collect()
}

fn command(r: &Runner, extra: &[&str], bin: &Path, probe: &str) -> Command {
    let mut c = Command::new(&r.prefix[0]);
    c.args(&r.prefix[1..]);
    if r.subword {
        c.args(extra);
    }
    c.arg(bin).arg(probe);
    c
}

/// Exit status as a shell reports it (128 + N for a signal).
fn status(o: &std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    o.code().unwrap_or_else(|| 128 + o.signal().unwrap_or(0))
}

/// The guest's stderr lines (subword's own `subword:` lines removed).
fn guest_err(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| !l.starts_with("subword:"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn output(mut c: Command) -> Output {
    c.stdin(Stdio::null()).output().expect("spawn")
}

#[test]
fn write_to_dev_full_fails_with_enospc() {
    for (r, bin) in cases() {
        let mut c = command(&r, &[], &bin, "write");
        c.stdout(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        );
        let o = output(c);
        assert_eq!(status(&o.status), 5, "{}", r.name);
        assert_eq!(
            guest_err(&o.stderr),
            "write failed: No space left on device (sigpipe handler ran: 0)",
            "{}",
            r.name
        );
    }
}

#[test]
fn write_to_closed_stdout_fails_with_ebadf() {
    for (r, bin) in cases() {
        let mut c = command(&r, &[], &bin, "write");
        // SAFETY: close(1) in the child before exec is async-signal-safe.
        unsafe {
            c.pre_exec(|| {
                libc::close(1);
                Ok(())
            });
        }
        let o = output(c);
        assert_eq!(status(&o.status), 5, "{}", r.name);
        assert_eq!(
            guest_err(&o.stderr),
            "write failed: Bad file descriptor (sigpipe handler ran: 0)",
            "{}",
            r.name
        );
    }
}

/// Run `probe` with stdout a pipe that the test reads one line from and
/// then closes, as `| head -1` does.
fn reader_leaves(r: &Runner, bin: &Path, probe: &str) -> Output {
    reader_leaves_with(r, bin, probe, false)
}

/// [`reader_leaves`], with SIGPIPE ignored by the parent when `ignore`
/// (as after `trap '' PIPE` in a shell).
fn reader_leaves_with(r: &Runner, bin: &Path, probe: &str, ignore: bool) -> Output {
    let mut c = command(r, &[], bin, probe);
    if ignore {
        // SAFETY: signal(2) in the child before exec is async-signal-safe.
        unsafe {
            c.pre_exec(|| {
                libc::signal(libc::SIGPIPE, libc::SIG_IGN);
                Ok(())
            });
        }
    }
    let (mut child, dog) = testkit::watchdog::spawn(
        c.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
        testkit::watchdog::PROBE_LIMIT,
    )
    .expect("spawn");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line, "hello world\n", "{}", r.name);
    drop(out);
    let o = child.wait_with_output().unwrap();
    drop(dog);
    o
}

#[test]
fn write_to_pipe_without_reader_kills_with_sigpipe_status_141() {
    for (r, bin) in cases() {
        let o = reader_leaves(&r, &bin, "write");
        assert_eq!(status(&o.status), 141, "{}", r.name);
        assert_eq!(guest_err(&o.stderr), "", "{}", r.name);
        if r.subword {
            let e = String::from_utf8_lossy(&o.stderr);
            assert!(
                e.starts_with("subword: SIGPIPE: ") && e.contains("pipe with no reader"),
                "{e}"
            );
        }
    }
}

#[test]
fn ignored_sigpipe_gives_epipe_and_the_guest_exits_by_its_own_logic() {
    for (r, bin) in cases() {
        let o = reader_leaves(&r, &bin, "sigpipe-ignored");
        assert_eq!(status(&o.status), 5, "{}", r.name);
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            "write failed: Broken pipe (sigpipe handler ran: 0)\n",
            "{}",
            r.name
        );
    }
}

#[test]
fn sigpipe_ignored_by_the_parent_stays_ignored_and_the_guest_gets_epipe() {
    // `trap '' PIPE; prog | head -1`: the ignored disposition is inherited
    // through execve, so the guest's write fails with EPIPE.
    for (r, bin) in cases() {
        let o = reader_leaves_with(&r, &bin, "write", true);
        assert_eq!(status(&o.status), 5, "{}", r.name);
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            "write failed: Broken pipe (sigpipe handler ran: 0)\n",
            "{}",
            r.name
        );
    }
}

#[test]
fn handled_sigpipe_runs_the_handler_then_the_write_fails_with_epipe() {
    for (r, bin) in cases() {
        let o = reader_leaves(&r, &bin, "sigpipe-handled");
        assert_eq!(status(&o.status), 5, "{}", r.name);
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            "write failed: Broken pipe (sigpipe handler ran: 1)\n",
            "{}",
            r.name
        );
    }
}

#[test]
fn short_write_to_a_full_nonblocking_pipe_is_short_and_loses_no_byte() {
    for (r, bin) in cases() {
        let (mut child, dog) = testkit::watchdog::spawn(
            command(&r, &[], &bin, "short-write")
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
            testkit::watchdog::PROBE_LIMIT,
        )
        .expect("spawn");
        // Nobody drains stdout until the guest has written and exited.
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let mut out = Vec::new();
        child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
        let st = child.wait().unwrap();
        drop(dog);
        assert_eq!(status(&st), 0, "{}", r.name);
        let n: usize = err
            .strip_prefix("wrote ")
            .and_then(|s| s.split(' ').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{}: {err}", r.name));
        assert!(n > 0 && n < 1 << 20, "{}: a short count, got {n}", r.name);
        assert!(
            err.ends_with("then -1 (Resource temporarily unavailable)\n"),
            "{}: {err}",
            r.name
        );
        assert_eq!(
            out.len(),
            n,
            "{}: bytes on the pipe = count returned",
            r.name
        );
        assert!(out.iter().all(|&b| b == b'z'), "{}", r.name);
    }
}

#[test]
fn read_of_an_empty_pipe_waits_for_the_writer_thread() {
    for (r, bin) in cases() {
        for extra in [&[][..], &["--deterministic"][..]] {
            let o = output(command(&r, extra, &bin, "pipe-wait"));
            assert_eq!(status(&o.status), 0, "{} {extra:?}", r.name);
            assert_eq!(
                String::from_utf8_lossy(&o.stderr),
                "read 1 'x'\n",
                "{} {extra:?}",
                r.name
            );
        }
    }
}

#[test]
fn a_thread_blocked_reading_stdin_does_not_stall_the_others() {
    for (r, bin) in cases() {
        let (mut child, dog) = testkit::watchdog::spawn(
            command(&r, &[], &bin, "stdin-thread")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
            testkit::watchdog::PROBE_LIMIT,
        )
        .expect("spawn");
        let mut stdin = child.stdin.take().unwrap();
        // The main thread reports while the reader still waits for input
        // (stdin is open and empty): only then does input arrive.
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        assert_eq!(line, "computed\n", "{}: the main thread stalled", r.name);
        stdin.write_all(b"hi\n").unwrap();
        drop(stdin);
        let o = child.wait_with_output().unwrap();
        drop(dog);
        assert_eq!(status(&o.status), 0, "{}", r.name);
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            "reader got 3\n",
            "{}",
            r.name
        );
    }
}

#[test]
fn identity_is_the_host_process_by_default_and_fixed_under_deterministic() {
    // SAFETY: the id getters have no preconditions.
    let (uid, euid, gid, egid) = unsafe {
        (
            libc::getuid(),
            libc::geteuid(),
            libc::getgid(),
            libc::getegid(),
        )
    };
    for (r, bin) in cases() {
        let child = command(&r, &[], &bin, "ident")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let pid = child.id();
        let o = child.wait_with_output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            format!(
                "uid={uid} euid={euid} gid={gid} egid={egid} pid={pid} ppid={}\n",
                std::process::id()
            ),
            "{}",
            r.name
        );
        if r.subword {
            let o = output(command(&r, &["--deterministic"], &bin, "ident"));
            assert_eq!(
                String::from_utf8_lossy(&o.stderr),
                "uid=1000 euid=1000 gid=1000 egid=1000 pid=1000 ppid=1\n"
            );
        }
    }
}

#[test]
fn resuid_resgid_and_groups_are_the_host_processs() {
    // SAFETY: the id getters have no preconditions; getgroups(0, NULL)
    // only counts.
    let (uid, euid, gid, egid, groups) = unsafe {
        (
            libc::getuid(),
            libc::geteuid(),
            libc::getgid(),
            libc::getegid(),
            libc::getgroups(0, std::ptr::null_mut()),
        )
    };
    for (r, bin) in cases() {
        let o = output(command(&r, &[], &bin, "resids"));
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            format!("resuid={uid},{euid},{euid} resgid={gid},{egid},{egid} groups={groups}\n"),
            "{}",
            r.name
        );
        if r.subword {
            let o = output(command(&r, &["--deterministic"], &bin, "resids"));
            assert_eq!(
                String::from_utf8_lossy(&o.stderr),
                "resuid=1000,1000,1000 resgid=1000,1000,1000 groups=0\n"
            );
        }
    }
}

#[test]
fn umask_returns_the_old_mask_the_host_gave() {
    for (r, bin) in cases() {
        for (extra, old) in [(&[][..], "027"), (&["--deterministic"][..], "022")] {
            if !r.subword && !extra.is_empty() {
                continue;
            }
            let inner = command(&r, extra, &bin, "umask");
            let mut c = Command::new("sh");
            c.arg("-c")
                .arg("umask 027; exec \"$@\"")
                .arg("sh")
                .arg(inner.get_program())
                .args(inner.get_args());
            let o = output(c);
            assert_eq!(
                String::from_utf8_lossy(&o.stderr),
                format!("umask old={old} again=077\n"),
                "{} {extra:?}",
                r.name
            );
        }
    }
}

#[test]
fn waitpid_without_children_fails_with_echild() {
    for (r, bin) in cases() {
        let o = output(command(&r, &[], &bin, "waitpid"));
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            "waitpid=-1 (No child processes)\n",
            "{}",
            r.name
        );
    }
}

#[test]
fn lseek_on_a_regular_file_stdin_moves_the_read_position() {
    let dir = testkit::scratch_dir("alpha_linux_truth_lseek");
    let input = dir.join("in.txt");
    std::fs::write(&input, "0123456789\n").unwrap();
    for (r, bin) in cases() {
        let mut c = command(&r, &[], &bin, "lseek-stdin");
        let o = c
            .stdin(std::fs::File::open(&input).unwrap())
            .output()
            .expect("spawn");
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            "lseek=4 read=5 '45678'\n",
            "{}",
            r.name
        );
    }
}

#[test]
fn poll_and_select_wait_for_a_pipe_and_time_out() {
    for (r, bin) in cases() {
        for extra in [&[][..], &["--deterministic"][..]] {
            let mut c = command(&r, extra, &bin, "poll");
            let (child, dog) = testkit::watchdog::spawn(
                c.stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped()),
                testkit::watchdog::PROBE_LIMIT,
            )
            .expect("spawn");
            let o = child.wait_with_output().unwrap();
            drop(dog);
            assert_eq!(status(&o.status), 0, "{} {extra:?}", r.name);
            assert_eq!(
                String::from_utf8_lossy(&o.stderr),
                "poll 0, 1 rev=0x1, 0; select 1 set=1; hup 1 rev=0x10\n",
                "{} {extra:?}",
                r.name
            );
        }
    }
}

#[test]
fn sigsuspend_waits_while_another_thread_waits_for_input() {
    for (r, bin) in cases() {
        let (mut child, dog) = testkit::watchdog::spawn(
            command(&r, &[], &bin, "sigsuspend")
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::piped()),
            testkit::watchdog::PROBE_LIMIT,
        )
        .expect("spawn");
        child.stdin.take().unwrap().write_all(b"go\n").unwrap();
        let o = child.wait_with_output().unwrap();
        drop(dog);
        assert_eq!(status(&o.status), 0, "{}", r.name);
        // SIGUSR1 is 30 on Alpha.
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            "sigsuspend -1 (Interrupted system call) handler saw 30\n",
            "{}",
            r.name
        );
    }
}
