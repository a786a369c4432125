//! The official Lua 5.5 test suite (`../shared/workloads/lua/testes`) on
//! the Lua interpreter built for Alpha from `onelua.c`, under
//! `subword alpha run`:
//!
//! - the user tests (`-e_U=true all.lua`: no process spawning, no long
//!   tests) for an `-mcpu=ev67` build on the EV67 model and an `-mcpu=ev4`
//!   build on the EV4 model (no BWX: every byte access of the interpreter
//!   is an LDQ_U/EXT/INS/MSK sequence), each with the default JIT
//!   threshold and with `--jit-threshold 1` (every loop of Lua and glibc
//!   compiled), must end with `final OK !!!`, and their output must equal
//!   qemu-alpha's run of the same binary line for line apart from the
//!   lines that depend on time or on the run's random seed
//!   ([`VARIES_PER_RUN`]);
//! - the whole suite (`all.lua` without `_U`, so `_port` is false and
//!   `main.lua` and `files.lua` run their `os.execute`/`io.popen` parts)
//!   with the guest's `/bin/sh` the static BusyBox of
//!   `testkit::alpha_shell_sysroot`, must end with `final OK !!!`. It
//!   needs `fork`/`execve`/`wait` in the emulator; [`processes_work`]
//!   probes for them first. One row of `files.lua`'s exit-status table
//!   depends on the shell and expects BusyBox ash's answer
//!   ([`expect_busybox_exec_in_place`]).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// Output lines that legitimately differ between two correct runs, each
/// with why: they are left out of the comparison (every other line must be
/// identical).
const VARIES_PER_RUN: &[(&str, &str)] = &[
    // all.lua seeds math.random from the time and an address.
    (
        "random seeds: ",
        "the seed all.lua draws from time and address",
    ),
    ("testing length for some random tables (seeds ", "that seed"),
    ("float random range in ", "how many draws the seed needs"),
    ("integer random range in ", "how many draws the seed needs"),
    // CPU time between files and in total.
    ("time: ", "CPU time"),
    ("total time: ", "CPU and wall time"),
    // sort.lua times its sorts; the comparison count depends on the seed.
    ("sorting ", "sort timing"),
    ("re-sorting ", "sort timing"),
    ("Invert-sorting ", "sort timing and seeded data"),
    // The collector's pace follows the seeded string hashes and data.
    (
        "    ---- total memory: ",
        "heap size at a moment the seed shapes",
    ),
    ("test done on ", "the date"),
    // constructs.lua picks one of two variants with math.random.
    (
        "testing short-circuit optimizations (",
        "a variant picked at random",
    ),
];

/// `text` without the lines of [`VARIES_PER_RUN`]. Standard error also
/// loses every `.`: `tracegc.lua` writes one per collection, and how many
/// collections happen depends on the seed as the heap sizes do.
fn comparable(text: &[u8], stderr: bool) -> String {
    let text = String::from_utf8_lossy(text);
    let text = if stderr {
        text.replace('.', "")
    } else {
        text.into_owned()
    };
    text.lines()
        .filter(|l| !VARIES_PER_RUN.iter().any(|(p, _)| l.starts_with(p)))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// A fresh copy of the suite's directory (`testes/`) for `test` to run in:
/// the suite writes temporary and result files into its current directory.
fn suite_copy(test: &str) -> PathBuf {
    let dir = testkit::scratch_dir(test).join("testes");
    copy_tree(&testkit::lua_source_dir().join("testes"), &dir);
    dir
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create suite copy");
    for e in std::fs::read_dir(from).expect("read testes/") {
        let e = e.expect("read testes/ entry");
        let dest = to.join(e.file_name());
        if e.file_type().expect("file type").is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).expect("copy suite file");
        }
    }
}

/// The suite forks shells (`os.execute`, `io.popen`); a run still going
/// after this long is a hang, and its whole process group is killed.
const SUITE_LIMIT: Duration = Duration::from_secs(40 * 60);

/// Run `cmd` in `dir` with no standard input, capturing its output.
fn run_in(mut cmd: Command, dir: &Path) -> Output {
    cmd.current_dir(dir).stdin(Stdio::null());
    testkit::watchdog::output("the Lua suite", cmd, SUITE_LIMIT)
}

/// Run `cmd` in `dir` with standard input an empty pipe (closed at once),
/// capturing its output: `files.lua` asserts that seeking stdin fails,
/// which it does on a pipe but not on `/dev/null`.
fn run_in_with_pipe_stdin(mut cmd: Command, dir: &Path) -> Output {
    cmd.current_dir(dir).stdin(Stdio::piped());
    testkit::watchdog::output("the Lua suite", cmd, SUITE_LIMIT)
}

fn subword_lua(lua: &Path, dir: &Path, sysroot: &Path, opts: &[&str], args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_subword"));
    c.args(["alpha", "run", "--sysroot"])
        .arg(sysroot)
        .args(opts)
        .arg(lua)
        .args(args);
    run_in(c, dir)
}

/// A run must pass the whole suite: exit status 0 and `final OK !!!`.
fn assert_suite_passed(what: &str, o: &Output) {
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    let tail: Vec<&str> = out.lines().rev().take(15).collect();
    assert!(
        o.status.success() && out.contains("\nfinal OK !!!\n"),
        "{what}: the Lua suite did not pass ({}); end of stdout:\n{}\nstderr:\n{}",
        o.status,
        tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
        err.chars()
            .rev()
            .take(3000)
            .collect::<String>()
            .chars()
            .rev()
            .collect::<String>()
    );
}

/// The first line where two outputs differ, for a readable failure.
fn first_difference(a: &str, b: &str) -> String {
    for (n, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}: {x:?} vs {y:?}", n + 1);
        }
    }
    format!(
        "one output is longer ({} vs {} lines)",
        a.lines().count(),
        b.lines().count()
    )
}

fn assert_same_output(what: &str, reference: &Output, got: &Output) {
    for stderr in [false, true] {
        let (r, g) = if stderr {
            (&reference.stderr, &got.stderr)
        } else {
            (&reference.stdout, &got.stdout)
        };
        let (r, g) = (comparable(r, stderr), comparable(g, stderr));
        let stream = if stderr { "stderr" } else { "stdout" };
        assert!(
            r == g,
            "{what}: {stream} differs from qemu-alpha's: {}",
            first_difference(&r, &g)
        );
    }
}

/// The user tests of the `-mcpu=CPU` build on the CPU model: under subword
/// with the default JIT threshold and with `--jit-threshold 1`, and under
/// qemu-alpha; all three pass, and subword's output is qemu's.
fn user_tests_pass_and_match_qemu(test: &str, cpu: &str) {
    let Some(lua) = testkit::alpha_lua(test, cpu) else {
        return;
    };
    let Some(qemu) = testkit::require_tool(test, "qemu-alpha", "qemu-user") else {
        return;
    };
    let sysroot = Path::new(testkit::ALPHA_SYSROOT);
    let args = ["-e_U=true", "all.lua"];
    let dir = suite_copy(test);

    let mut q = Command::new(qemu);
    q.args(["-cpu", cpu, "-L"])
        .arg(sysroot)
        .arg(&lua)
        .args(args);
    let reference = run_in(q, &dir);
    assert_suite_passed(&format!("qemu-alpha -cpu {cpu}"), &reference);

    for jit in [&[][..], &["--jit-threshold", "1"][..]] {
        let mut opts = vec!["--cpu", cpu];
        opts.extend_from_slice(jit);
        let what = format!("subword alpha run {}", opts.join(" "));
        let o = subword_lua(&lua, &dir, sysroot, &opts, &args);
        assert_suite_passed(&what, &o);
        assert_same_output(&what, &reference, &o);
    }
}

#[test]
fn lua_user_tests_ev67_pass_interpreted_and_compiled_as_under_qemu() {
    user_tests_pass_and_match_qemu("lua_user_tests_ev67", "ev67");
}

#[test]
fn lua_user_tests_ev4_pass_without_bwx_interpreted_and_compiled_as_under_qemu() {
    user_tests_pass_and_match_qemu("lua_user_tests_ev4", "ev4");
}

/// The shell sysroot's BusyBox runs ash's builtins (echo, printf, test,
/// arithmetic, a loop, a function, a failing command's status) the same
/// under qemu-alpha and subword, and as Linux's ash prints them.
#[test]
fn busybox_sh_builtins_run_under_qemu_and_subword_alike() {
    let test = "busybox_sh_builtins";
    let Some(root) = testkit::alpha_shell_sysroot(test) else {
        return;
    };
    let Some(qemu) = testkit::require_tool(test, "qemu-alpha", "qemu-user") else {
        return;
    };
    let busybox = root.join("bin").join("busybox");
    let script = "echo hi; printf '%s-%03d\\n' x 5; test 1 = 1 && echo t; \
                  [ a != a ] || echo f; echo $((6*7)); \
                  for i in 1 2 3; do echo -n $i; done; echo; \
                  f() { return 3; }; f; echo status $?; x=abc; echo ${x#a}${#x}";
    let dir = testkit::scratch_dir(test);
    let want = "hi\nx-005\nt\nf\n42\n123\nstatus 3\nbc3\n";
    let mut q = Command::new(qemu);
    q.arg(&busybox).args(["sh", "-c", script]);
    let qo = run_in(q, &dir);
    assert!(qo.status.success(), "qemu-alpha busybox sh: {qo:?}");
    assert_eq!(
        String::from_utf8_lossy(&qo.stdout),
        want,
        "qemu-alpha busybox sh"
    );
    let mut s = Command::new(env!("CARGO_BIN_EXE_subword"));
    s.args(["alpha", "run"])
        .arg(&busybox)
        .args(["sh", "-c", script]);
    let so = run_in(s, &dir);
    assert!(so.status.success(), "subword busybox sh: {so:?}");
    assert_eq!(
        String::from_utf8_lossy(&so.stdout),
        want,
        "subword alpha run busybox sh"
    );
    // Run through its applet link, as a guest exec'ing /bin/sh would.
    let mut s = Command::new(env!("CARGO_BIN_EXE_subword"));
    s.args(["alpha", "run"])
        .arg(root.join("bin").join("sh"))
        .args(["-c", "echo ${0##*/}"]);
    let so = run_in(s, &dir);
    assert_eq!(
        String::from_utf8_lossy(&so.stdout),
        "sh\n",
        "applet link {so:?}"
    );
}

/// The row of `files.lua`'s exit-status table that depends on the shell.
const SHELL_ROW: &str = r#"{"sh -c 'kill -s HUP $$'", "exit"},"#;
/// The same row as BusyBox's ash answers it.
const SHELL_ROW_ASH: &str = r#"{"sh -c 'kill -s HUP $$'", "signal", 1},"#;

/// Make the suite copy in `dir` expect BusyBox ash's answer for
/// [`SHELL_ROW`]. `popen("sh -c 'kill -s HUP $$'")` runs
/// `/bin/sh -c "sh -c 'kill -s HUP $$'"`: dash forks for the inner `sh`,
/// which kills itself, so the outer shell exits 129 (`"exit"`), which is
/// what the suite expects. BusyBox 1.35's ash (as bash) execs the last
/// command of `-c` in place instead (shell/ash.c, evalcommand: it forks only
/// `if (!(flags & EV_EXIT) || may_have_traps)`, and `-c` is evaluated with
/// EV_EXIT), so the process popen started is the one that kills itself and
/// pclose reports `"signal", 1`, under any emulator and on an Alpha. (Under
/// qemu-alpha the suite passes unchanged only because qemu's `execve`
/// of "/bin/sh" runs the host's dash.)
/// [`busybox_sh_c_execs_its_last_command_in_place_under_qemu_and_subword`]
/// checks that behaviour on both. Every other line of the suite runs as
/// shipped.
fn expect_busybox_exec_in_place(dir: &Path) {
    let path = dir.join("files.lua");
    let text = std::fs::read_to_string(&path).expect("read files.lua");
    assert_eq!(
        text.matches(SHELL_ROW).count(),
        1,
        "files.lua no longer has the row {SHELL_ROW}"
    );
    std::fs::write(&path, text.replace(SHELL_ROW, SHELL_ROW_ASH)).expect("write files.lua");
}

/// How a process ended: `exit N` or `signal N`.
fn ending(o: &Output) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (o.status.code(), o.status.signal()) {
        (Some(c), _) => format!("exit {c}"),
        (None, Some(s)) => format!("signal {s}"),
        _ => "unknown".into(),
    }
}

/// BusyBox's `sh -c "CMD"` execs its last simple command in place, so a
/// `sh` run as that command and killing itself with SIGHUP ends the outer
/// shell's process by SIGHUP; with a command after it, the outer shell
/// forks and exits 129 (128 + SIGHUP). The same under qemu-alpha (whose
/// inner `sh` is the host's, found on the host PATH: the pid, and so what
/// `$$` kills, is the one process either way) and under subword (the
/// sysroot's BusyBox; subword exits 128+N for a guest killed by signal N,
/// as the CLI contract says).
#[test]
fn busybox_sh_c_execs_its_last_command_in_place_under_qemu_and_subword() {
    let test = "busybox_sh_c_exec_in_place";
    let Some(root) = testkit::alpha_shell_sysroot(test) else {
        return;
    };
    let Some(qemu) = testkit::require_tool(test, "qemu-alpha", "qemu-user") else {
        return;
    };
    let busybox = root.join("bin").join("busybox");
    let dir = testkit::scratch_dir(test);
    let last = "sh -c 'kill -s HUP $$'";
    let not_last = "sh -c 'kill -s HUP $$'; exit $?";
    for (script, qemu_end, subword_end) in [
        (last, "signal 1", "exit 129"),
        (not_last, "exit 129", "exit 129"),
    ] {
        let mut q = Command::new(&qemu);
        q.env("PATH", "/usr/bin:/bin")
            .arg(&busybox)
            .args(["sh", "-c", script]);
        let qo = run_in(q, &dir);
        assert_eq!(ending(&qo), qemu_end, "qemu-alpha busybox sh -c {script:?}");
        let mut s = Command::new(env!("CARGO_BIN_EXE_subword"));
        s.args(["alpha", "run", "--sysroot"])
            .arg(&root)
            .args(["--env", "PATH=/bin"])
            .arg(&busybox)
            .args(["sh", "-c", script]);
        let so = run_in(s, &dir);
        assert_eq!(ending(&so), subword_end, "subword busybox sh -c {script:?}");
        // Which process died says which shell forked: subword's message
        // names a guest killed by SIGHUP only when that is the outer shell.
        let err = String::from_utf8_lossy(&so.stderr);
        assert_eq!(
            err.contains("Hangup"),
            script == not_last,
            "the outer shell reports its child's SIGHUP only when it forked: {err}"
        );
    }
}

/// What the guest shell prints for a command line that needs a child
/// process (`cat` is not an ash builtin, and with two commands ash forks
/// instead of exec'ing in place), or why it could not run.
fn processes_work(sysroot: &Path, dir: &Path) -> Result<(), String> {
    let mut c = Command::new(env!("CARGO_BIN_EXE_subword"));
    c.args(["alpha", "run", "--sysroot"])
        .arg(sysroot)
        .args(["--env", "PATH=/bin"])
        // The program itself is a host path (as for qemu-alpha); the
        // guest's own execs of /bin/... go through the sysroot.
        .arg(sysroot.join("bin/sh"))
        .args(["-c", "echo spawned | cat; echo status $?"]);
    let o = run_in(c, dir);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    if o.status.success() && out == "spawned\nstatus 0\n" {
        return Ok(());
    }
    // glibc's system() and popen() exec "/bin/sh" itself, so the sysroot
    // must supply /bin as qemu's -L does.
    let hint = if err.contains("is not Alpha") {
        " (a host /bin/sh was run: the guest's execve must try --sysroot first)"
    } else {
        ""
    };
    Err(format!(
        "{} stdout {out:?} stderr {:?}{hint}",
        o.status,
        err.trim()
    ))
}

/// The whole suite, process-spawning parts included, with BusyBox as the
/// guest's `/bin/sh` and applets (`PATH=/bin` in the shell sysroot).
#[test]
fn lua_full_suite_with_busybox_shell_spawns_processes_and_passes() {
    let test = "lua_full_suite";
    let Some(lua) = testkit::alpha_lua(test, "ev67") else {
        return;
    };
    let Some(libs) = testkit::alpha_lua_test_libs(test, "ev67") else {
        return;
    };
    let Some(sysroot) = testkit::alpha_shell_sysroot(test) else {
        return;
    };
    let dir = suite_copy(test);
    expect_busybox_exec_in_place(&dir);
    for e in std::fs::read_dir(&libs).expect("read Lua test libs") {
        let p = e.expect("lib entry").path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with("lib") && name.ends_with(".so") && name != "libreadline.so" {
            std::fs::copy(&p, dir.join("libs").join(p.file_name().expect("name")))
                .expect("copy Lua test module");
        }
    }
    // Without fork/execve/wait the suite stops at main.lua's first
    // `assert(os.execute())`; say so instead of a confusing failure. In CI
    // that is a failure all the same: the suite must run whole there.
    if let Err(why) = processes_work(&sysroot, &dir) {
        let msg = format!(
            "{test}: the guest shell cannot run a child process, so the suite's \
             process-spawning parts cannot run: {why}"
        );
        assert!(!testkit::in_ci(), "{msg}");
        testkit::say(&format!("SKIPPED {msg}; this check did not run"));
        return;
    }
    // `main.lua` runs the interpreter by the name it was started with
    // (arg[0]) through the shell, so it must be a path the guest can exec;
    // LD_LIBRARY_PATH gives its `dlopen("libreadline.so")` the minimal
    // readline testkit builds beside the suite's C modules.
    let ld_path = format!("LD_LIBRARY_PATH={}", libs.display());
    let opts = ["--env", "PATH=/bin", "--env", &ld_path];
    let mut c = Command::new(env!("CARGO_BIN_EXE_subword"));
    c.args(["alpha", "run", "--sysroot"])
        .arg(&sysroot)
        .args(opts)
        .arg(&lua)
        .arg("all.lua");
    let o = run_in_with_pipe_stdin(c, &dir);
    let out = String::from_utf8_lossy(&o.stdout);
    // Both process-spawning parts ran (main.lua: the stand-alone
    // interpreter through the shell; files.lua: popen/os.execute statuses).
    for part in [
        "testing stand-alone interpreter",
        "testing popen/pclose and execute",
    ] {
        assert!(out.contains(part), "the run skipped {part:?}: {out}");
    }
    assert_suite_passed("subword alpha run (whole suite, BusyBox shell)", &o);
}

#[test]
fn lua_suite_output_filter_keeps_everything_but_time_and_seed_lines() {
    let a = b"random seeds: 1, 2\nOK\ntime: 0.5 (+0.5)\nsorting 5000 random elements in 1.00 msec.\nfinal OK !!!\n";
    let b = b"random seeds: 3, 4\nOK\ntime: 9.1 (+0.2)\nsorting 5000 random elements in 7.00 msec.\nfinal OK !!!\n";
    assert_eq!(comparable(a, false), comparable(b, false));
    assert_eq!(comparable(a, false), "OK\nfinal OK !!!\n");
    // A line the suite prints identically in every correct run is kept.
    assert_ne!(comparable(b"OK\n", false), comparable(b"0K\n", false));
    // GC progress dots on stderr go; a warning stays.
    assert_eq!(
        comparable(b"...Lua warning: #This is an expected warning\n..", true),
        "Lua warning: #This is an expected warning\n"
    );
}
