//! Guest processes as host processes: `crates/subword/tests/c/procs/procs.c`
//! (one probe per argument; only the parent prints, after it reaped the
//! child, so every run prints one order) is built for ev4, ev56 and ev67,
//! static (`-Wl,--no-relax`) and dynamic, and run under `subword alpha run`
//! and, as the check that each expectation is what Linux does, under
//! `qemu-alpha` (`-L` the Alpha sysroot for the dynamic builds). Rows that
//! make the guest run a *second Alpha program* (execve, `#!` scripts,
//! posix_spawn, system with an Alpha shell, `/proc/self/exe`) are asserted
//! for subword only: qemu-alpha passes execve to the host kernel, which
//! cannot run an Alpha binary without binfmt_misc, so those rows compare
//! against the expected text instead. Rows that run a *host* program
//! (`system()` and `popen()` through the host's `/bin/sh`, a host ELF, a
//! script for a host interpreter) are compared with qemu-alpha, which
//! hands them to the host as subword does. The fork bomb runs under
//! subword only (under qemu it is a real one).

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

const MODELS: [&str; 3] = ["ev4", "ev56", "ev67"];
const SYSROOT: &str = "/usr/alpha-linux-gnu";

struct Bins {
    /// (model, static?, path)
    procs: Vec<(String, bool, PathBuf)>,
    /// A static stand-in `/bin/sh` (`mini_sh.c`).
    mini_sh: PathBuf,
    dir: PathBuf,
}

fn bins() -> Option<&'static Bins> {
    static BINS: OnceLock<Option<Bins>> = OnceLock::new();
    BINS.get_or_init(|| {
        let gcc = testkit::alpha_gcc("alpha_linux_procs")?;
        let dir = testkit::scratch_dir("alpha_linux_procs");
        let src_dir = testkit::workspace_root().join("crates/subword/tests/c/procs");
        let src = std::fs::read_to_string(src_dir.join("procs.c")).expect("procs.c");
        let mut procs = Vec::new();
        for m in MODELS {
            let cpu = format!("-mcpu={m}");
            for stat in [true, false] {
                let mut flags = vec![cpu.as_str()];
                if stat {
                    flags.extend(["-static", "-Wl,--no-relax"]);
                }
                let name = format!("procs-{m}-{}", if stat { "static" } else { "dynamic" });
                procs.push((
                    m.to_string(),
                    stat,
                    testkit::compile_c(&gcc, &dir, &name, &src, &flags),
                ));
            }
        }
        let sh = std::fs::read_to_string(src_dir.join("mini_sh.c")).expect("mini_sh.c");
        let mini_sh =
            testkit::compile_c(&gcc, &dir, "mini_sh", &sh, &["-static", "-Wl,--no-relax"]);
        Some(Bins {
            procs,
            mini_sh,
            dir,
        })
    })
    .as_ref()
}

fn subword(model: &str, stat: bool, extra: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_subword"));
    c.args(["alpha", "run", "--cpu", model]);
    if !stat {
        c.args(["--sysroot", SYSROOT]);
    }
    c.args(extra);
    c
}

fn qemu(model: &str, stat: bool) -> Option<Command> {
    let q = testkit::require_tool("alpha_linux_procs", "qemu-alpha", "qemu-user")?;
    let mut c = Command::new(q);
    c.args(["-cpu", model]);
    if !stat {
        c.args(["-L", SYSROOT]);
    }
    Some(c)
}

/// Run `c` with no stdin under a one-minute watchdog that kills the whole
/// process group (forked guests included): a hang fails the test.
fn run(mut c: Command) -> Output {
    c.stdin(Stdio::null());
    // The expectations are those of a program started in the foreground:
    // a shell's background job (`cargo test &`) inherits SIGINT and SIGQUIT
    // ignored, which the guest would see (as it does under Linux).
    // SAFETY: signal(2) is async-signal-safe, as pre_exec requires.
    unsafe {
        c.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGQUIT, libc::SIG_DFL);
            Ok(())
        });
    }
    let what = format!("{c:?}");
    testkit::watchdog::output(&what, c, testkit::watchdog::PROBE_LIMIT)
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Run `args` under subword (and qemu-alpha with `qemu_too`) for every
/// build; each must print `expect` (with `{bin}` the binary's path) and
/// exit with `status`.
fn check(args: &[&str], extra: &[&str], qemu_too: bool, expect: &str, status: i32) {
    let Some(b) = bins() else { return };
    for (m, stat, bin) in &b.procs {
        let want = expect.replace("{bin}", &bin.display().to_string());
        let mut runs = vec![("subword", subword(m, *stat, extra))];
        if qemu_too {
            if let Some(q) = qemu(m, *stat) {
                runs.push(("qemu-alpha", q));
            }
        }
        for (who, mut c) in runs {
            c.arg(bin).args(args);
            let o = run(c);
            let what = format!("{who} {m} static={stat} {args:?}");
            assert_eq!(
                text(&o),
                want,
                "{what}\nstderr: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            assert_eq!(o.status.code(), Some(status), "{what}");
        }
    }
}

#[test]
fn fork_child_exit_codes_reach_waitpid() {
    check(
        &["fork-exit"],
        &[],
        true,
        "child: exited 7\nsecond child: exited 0\n",
        0,
    );
}

#[test]
fn fork_child_killed_by_a_signal_reports_the_alpha_signal_number() {
    check(
        &["fork-signal"],
        &[],
        true,
        "raise SIGUSR1: killed by signal 30\nnull store: killed by signal 11\nabort: killed by signal 6\n",
        0,
    );
}

#[test]
fn pipe_carries_bytes_both_ways_across_fork_including_those_buffered_before() {
    check(
        &["pipe"],
        &[],
        true,
        "child: exited 0\nparent read 41 bytes:\nwritten before fork\nhello from the child\n\
         after the child's exit read gives 0\n",
        0,
    );
}

#[test]
fn getppid_in_the_child_is_the_parents_pid() {
    check(
        &["getppid"],
        &[],
        true,
        "fork returned a pid other than ours: 1\nchild (0: getppid is the parent, getpid is new): exited 0\n",
        0,
    );
}

#[test]
fn setsid_setpgid_getpgid_getsid_follow_the_host() {
    check(
        &["pgrp"],
        &[],
        true,
        "child (15: setsid, getpgid, getsid, setpgid agree): exited 15\ngetpgid(-5): -1 ESRCH\n",
        0,
    );
}

#[test]
fn wait4_waitid_wnohang_wnowait_echild_and_efault() {
    check(
        &["wait"],
        &[],
        true,
        "waitpid with no child: -1 ECHILD\n\
         WNOHANG while it runs: 0\n\
         waitid WNOWAIT: 0 signo SIGCHLD code CLD_EXITED status 3 pid ok 1\n\
         waitid: 0 status 3 pid ok 1\n\
         then waitpid: -1 ECHILD\n\
         waitid of a killed child: code CLD_KILLED status 15\n\
         wait4 into a bad status pointer: -1 EFAULT\n\
         then: -1 ECHILD\n",
        0,
    );
}

#[test]
fn sigchld_handler_runs_when_a_child_exits() {
    check(
        &["sigchld"],
        &[],
        true,
        "SIGCHLD handler ran with signal 20\nchild: exited 4\n",
        0,
    );
}

#[test]
fn kill_reaches_a_child_handler_default_and_ignore() {
    check(
        &["kill"],
        &[],
        true,
        "kill SIGUSR1: 0\nchild with a SIGUSR1 handler: exited 42\nkill SIGTERM: 0\n\
         pausing child: killed by signal 15\nchild ignoring SIGTERM: exited 6\n\
         kill of a reaped pid: -1 ESRCH\n",
        0,
    );
}

#[test]
fn sigchld_ignored_leaves_no_zombies_and_wait_gets_echild() {
    check(
        &["nocldwait"],
        &[],
        true,
        "SIG_IGN: waitpid(-1) after the child ended: -1 ECHILD\n\
         SIG_IGN: kill(child, 0), no zombie left: -1 ESRCH\n\
         SIG_DFL: kill(zombie, 0): 0 \n\
         SIG_DFL child: exited 7\n",
        0,
    );
}

/// Under subword only: qemu-alpha (7.2) builds the host `sigaction` from
/// the guest's SA_SIGINFO and SA_RESTART alone (linux-user/signal.c,
/// `do_sigaction`), so it drops SA_NOCLDWAIT and its `waitpid` returns the
/// zombie child, where Linux's returns ECHILD (kernel/signal.c
/// `do_notify_parent`: SA_NOCLDWAIT makes the child autoreap).
#[test]
fn sa_nocldwait_leaves_no_zombies_and_the_sigchld_handler_still_runs() {
    check(
        &["sa-nocldwait"],
        &[],
        false,
        "SA_NOCLDWAIT: waitpid(child): -1 ECHILD\n\
         SA_NOCLDWAIT: handler ran with signal 20\n",
        0,
    );
}

/// Under subword only: qemu-alpha passes `kill(-1, …)` to the host, which
/// would signal every process of the user on the machine; subword limits
/// it to the guest's own process tree (and spares the caller, as Linux).
#[test]
fn kill_minus_one_reaches_every_other_guest_process_but_not_the_caller() {
    check(
        &["kill-all"],
        &[],
        false,
        "kill(-1, SIGUSR1): 0 \n\
         caller's own handler ran: 0\n\
         child (42: it and its child were signalled): exited 42\n\
         kill(-1, 0) with no other process: -1 ESRCH\n",
        0,
    );
}

#[test]
fn vfork_child_exit_reaches_the_parent() {
    check(&["vfork"], &[], true, "vfork child: exited 5\n", 0);
}

#[test]
fn execve_runs_the_new_program_in_the_same_pid_with_fds_and_ignored_signals_kept() {
    // subword only: qemu-alpha hands execve to the host kernel (see above).
    let Some(b) = bins() else { return };
    for (m, stat, bin) in &b.procs {
        let mut c = subword(m, *stat, &[]);
        c.arg(bin).arg("exec").arg(bin);
        let o = run(c);
        let want = format!(
            "argv[0] = {}\nargv[1] = show-args\nargv[2] = two words\nsame pid after execve: 1\n\
             PROCS_X = from execve\nfd 5 open: 1, fd 6 open: 0\n\
             SIGINT ignored: 1, SIGUSR1 default: 1\nexec'd child: exited 11\n",
            bin.display()
        );
        assert_eq!(
            text(&o),
            want,
            "{m} static={stat}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(o.status.code(), Some(0));
    }
}

#[test]
fn execve_of_a_script_runs_its_interpreter_with_the_optional_argument() {
    let Some(b) = bins() else { return };
    for (m, stat, bin) in &b.procs {
        let script = b.dir.join(format!("script-{m}-{stat}"));
        std::fs::write(
            &script,
            format!("#!{} show-args\necho not a shell\n", bin.display()),
        )
        .unwrap();
        set_mode(&script, 0o755);
        let mut c = subword(m, *stat, &[]);
        c.arg(bin).arg("exec").arg(&script);
        let o = run(c);
        let want = format!(
            "argv[0] = {}\nargv[1] = show-args\nargv[2] = {}\nargv[3] = show-args\n\
             argv[4] = two words\nsame pid after execve: 1\nPROCS_X = from execve\n\
             fd 5 open: 1, fd 6 open: 0\nSIGINT ignored: 1, SIGUSR1 default: 1\n\
             exec'd child: exited 11\n",
            bin.display(),
            script.display()
        );
        assert_eq!(
            text(&o),
            want,
            "{m} static={stat}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn execve_errors_are_enoent_eacces_enoexec_efault_and_the_caller_goes_on() {
    let Some(b) = bins() else { return };
    let noexec = b.dir.join("not-executable");
    std::fs::write(&noexec, "data\n").unwrap();
    set_mode(&noexec, 0o644);
    let garbage = b.dir.join("garbage");
    std::fs::write(&garbage, "\x01\x02 no format at all\n").unwrap();
    set_mode(&garbage, 0o755);
    let dir = b.dir.display().to_string();
    let (ne, ga) = (noexec.display().to_string(), garbage.display().to_string());
    let common =
        "execve #0: -1 ENOENT\nexecve #1: -1 EACCES\nexecve #2: -1 ENOEXEC\nexecve #3: -1 EACCES\n";
    let tail = "execve of a bad pointer: -1 EFAULT\nexecve with a bad argv string: -1 EFAULT\nstill running\n";
    // Under qemu-alpha and Linux alike.
    check(
        &["exec-errors", &ne, &ga, &dir],
        &[],
        true,
        &format!("{common}{tail}"),
        0,
    );
    // Neither Alpha nor runnable on the host (a host ELF header and
    // nothing else): the host's execve says ENOEXEC, and the caller goes
    // on with its descriptors and signals as they were (the "still
    // running" line goes to the same stdout).
    let header = b.dir.join("host-elf-header-only");
    let exe = std::fs::read(std::env::current_exe().unwrap()).unwrap();
    std::fs::write(&header, &exe[..64]).unwrap();
    set_mode(&header, 0o755);
    check(
        &["exec-errors", &ne, &ga, &dir, header.to_str().unwrap()],
        &[],
        true,
        &format!("{common}execve #4: -1 ENOEXEC\n{tail}"),
        0,
    );
}

#[test]
fn execve_of_a_host_program_or_host_script_hands_it_to_the_host_as_qemu_does() {
    let Some(b) = bins() else { return };
    // A host ELF: the child becomes the host's echo.
    check(
        &["exec", "/bin/echo"],
        &[],
        true,
        "show-args two words\nexec'd child: exited 0\n",
        0,
    );
    // A script for the host's /bin/sh: same pid, the environment given,
    // fd 5 passed and fd 6 (close-on-exec) not, SIGINT still ignored and
    // the handled SIGUSR1 back to default (the host's SigIgn/SigCgt).
    let script = b.dir.join("host-script");
    std::fs::write(
        &script,
        r#"#!/bin/sh
echo "argv[1] = $1"; echo "argv[2] = $2"
[ "$PROCS_PID" = $$ ] && echo 'same pid after execve: 1'
echo "PROCS_X = $PROCS_X"
f5=0; f6=0; (: >&5) 2>/dev/null && f5=1; (: >&6) 2>/dev/null && f6=1
echo "fd 5 open: $f5, fd 6 open: $f6"
ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status)
echo "SIGINT ignored: $(( (0x$ign >> 1) & 1 )), SIGUSR1 ignored: $(( (0x$ign >> 9) & 1 ))"
exit 11
"#,
    )
    .unwrap();
    set_mode(&script, 0o755);
    check(
        &["exec", script.to_str().unwrap()],
        &[],
        true,
        "argv[1] = show-args\nargv[2] = two words\nsame pid after execve: 1\n\
         PROCS_X = from execve\nfd 5 open: 1, fd 6 open: 0\n\
         SIGINT ignored: 1, SIGUSR1 ignored: 0\nexec'd child: exited 11\n",
        0,
    );
}

#[test]
fn proc_pid_of_another_guest_process_shows_its_guest_comm_cmdline_and_exe() {
    // subword only: qemu-alpha shows the host's view (qemu's own command line).
    check(
        &["proc-other"],
        &[],
        false,
        "cmdline: 1\ncomm is exe: 1\nstat: pid 1 comm exe ppid is us 1\nexe is ours: 1\n\
         sleeper: exited 0\ngone after reaping: 1\n",
        0,
    );
}

#[test]
fn proc_self_exe_names_the_guest_program_and_execv_of_it_runs_it_again() {
    // subword only: qemu-alpha hands /proc/self/exe to the host (ENOEXEC).
    check(
        &["exec-self"],
        &[],
        false,
        "argv[0] = self\nargv[1] = show-args\nargv[2] = via /proc/self/exe\nPROCS_X = (unset)\n\
         fd 5 open: 0, fd 6 open: 0\nSIGINT ignored: 0, SIGUSR1 default: 1\n\
         exec'd /proc/self/exe: exited 11\n\
         argv[0] = fd\nargv[1] = show-args\nargv[2] = via fexecve\nPROCS_X = (unset)\n\
         fd 5 open: 0, fd 6 open: 0\nSIGINT ignored: 0, SIGUSR1 default: 1\n\
         fexecve'd: exited 11\n",
        0,
    );
}

#[test]
fn posix_spawn_runs_a_second_program_and_reports_a_missing_one() {
    let Some(b) = bins() else { return };
    for (m, stat, bin) in &b.procs {
        let mut c = subword(m, *stat, &[]);
        c.arg(bin).arg("posix_spawn").arg(bin);
        let o = run(c);
        let want = format!(
            "argv[0] = {}\nargv[1] = show-args\nargv[2] = spawned\nPROCS_X = spawned\n\
             fd 5 open: 0, fd 6 open: 0\nSIGINT ignored: 0, SIGUSR1 default: 1\n\
             posix_spawn: 0\nspawned: exited 11\nposix_spawn of a missing program fails: 1\n",
            bin.display()
        );
        assert_eq!(
            text(&o),
            want,
            "{m} static={stat}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// A sysroot holding the Alpha libraries and, with `sh`, `/bin/sh`.
fn sysroot(b: &Bins, name: &str, sh: bool) -> PathBuf {
    let root = b.dir.join(name);
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("bin")).unwrap();
    std::os::unix::fs::symlink(Path::new(SYSROOT).join("lib"), root.join("lib")).unwrap();
    if sh {
        std::fs::copy(&b.mini_sh, root.join("bin/sh")).unwrap();
        set_mode(&root.join("bin/sh"), 0o755);
    }
    root
}

#[test]
fn system_and_popen_without_an_alpha_shell_run_the_hosts_sh_as_qemu_does() {
    // Debian's Alpha sysroot has no bin/sh: /bin/sh is the host's.
    check(
        &["system", "echo hi; exit 4"],
        &[],
        true,
        "hi\nsystem: exited 4\n",
        0,
    );
    check(
        &["popen", "echo one; echo two; exit 5"],
        &[],
        true,
        "read: one\nread: two\npclose: exited 5\npclose of a writer: exited 3\n",
        0,
    );
}

#[test]
fn system_runs_the_sysroots_bin_sh_which_runs_the_command() {
    let Some(b) = bins() else { return };
    let root = sysroot(b, "root-sh", true);
    for (m, _, bin) in &b.procs {
        let mut c = subword(m, true, &["--sysroot", root.to_str().unwrap()]);
        let cmd = format!("{} show-args", bin.display());
        c.arg(bin).arg("system").arg(&cmd);
        let o = run(c);
        let out = text(&o);
        assert!(
            out.starts_with(&format!(
                "argv[0] = {}\nargv[1] = show-args\n",
                bin.display()
            )),
            "{m}: {out} {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(out.ends_with("system: exited 11\n"), "{m}: {out}");
    }
}

#[test]
fn fork_bomb_is_capped_by_max_processes_with_eagain() {
    let Some(b) = bins() else { return };
    for (m, stat, bin) in &b.procs {
        let mut c = subword(m, *stat, &["--max-processes", "5"]);
        c.arg(bin).arg("forkbomb");
        let o = run(c);
        assert_eq!(
            text(&o),
            "fork 6 failed: EAGAIN\nreaped 5 of 5\nfork after reaping: ok\n",
            "{m} static={stat}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(o.status.code(), Some(0));
    }
}

/// Children that end without their parent reaping them (SIGCHLD ignored,
/// killed or exited) and killed children that are reaped all give their
/// `--max-processes` slot back: thirty forks, one at a time, under a cap of 2.
#[test]
fn max_processes_slots_return_when_children_end_unreaped_or_killed() {
    let Some(b) = bins() else { return };
    for (m, stat, bin) in &b.procs {
        let mut c = subword(m, *stat, &["--max-processes", "2"]);
        c.arg(bin).arg("cap-churn");
        let o = run(c);
        assert_eq!(
            text(&o),
            "30 forks under a cap of 2\n",
            "{m} static={stat}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(o.status.code(), Some(0));
    }
}

#[test]
fn strace_names_fork_wait_and_kill_arguments() {
    let Some(b) = bins() else { return };
    let (m, stat, bin) = &b.procs[0];
    let mut c = subword(m, *stat, &["--strace"]);
    c.arg(bin).arg("kill");
    let o = run(c);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(" clone(CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD,"),
        "{err}"
    );
    assert!(err.contains(",SIGUSR1) = 0"), "{err}");
    assert!(err.contains(",SIGTERM) = 0"), "{err}");
    assert!(err.contains(" wait4("), "{err}");
}

#[test]
fn max_processes_out_of_range_is_one_line_and_status_2() {
    let o = Command::new(env!("CARGO_BIN_EXE_subword"))
        .args([
            "alpha",
            "run",
            "--max-processes",
            "99999999999",
            "/bin/true",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.starts_with("subword: --max-processes"), "{e}");
}
