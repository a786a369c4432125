//! qemu-user habits of `subword alpha run`: `--cpu help`, `--env`/`-E` and
//! `--unset-env`/`-U`, the default sysroot from `SUBWORD_SYSROOT` or
//! `QEMU_LD_PREFIX`, qemu's own spellings (`-L`, `-cpu`, `-strace`, `-s`)
//! and environment variables (`QEMU_CPU`, `QEMU_SET_ENV`, …) run side by
//! side with qemu-alpha, and `--strace` decoding the time calls' arguments.

use std::process::{Command, Output};

const SYSROOT: &str = testkit::ALPHA_SYSROOT;
use testkit::{alpha_gcc as gcc, compile_c as build};

fn subword(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_subword"));
    c.args(args)
        .env_remove("SUBWORD_SYSROOT")
        .env_remove("QEMU_LD_PREFIX");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run subword")
}

#[test]
fn cpu_help_lists_every_model_with_its_part_number() {
    let o = subword(&["alpha", "run", "--cpu", "help"], &[]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    for m in alpha_isa::MODELS {
        assert!(
            out.lines()
                .any(|l| l.split_whitespace().take(2).eq([m.name, m.part])),
            "{} missing:\n{out}",
            m.name
        );
    }
    assert!(out.contains("ev67   21264a   BWX FIX CIX MVI"), "{out}");
}

const ENV: &str = "#include <stdio.h>\n#include <stdlib.h>\nint main(void){ const char *f = getenv(\"FOO\"), *g = getenv(\"GONE\"); printf(\"FOO=%s GONE=%s\\n\", f ? f : \"(unset)\", g ? g : \"(unset)\"); return 0; }\n";

#[test]
fn env_and_unset_env_edit_the_guest_environment_and_the_sysroot_comes_from_qemu_ld_prefix() {
    let Some(gcc) = gcc("env_habits") else {
        return;
    };
    let dir = testkit::scratch_dir("alpha_run_habits_env");
    let bin = build(&gcc, &dir, "env", ENV, &[]);
    let b = bin.to_str().unwrap();
    // No --sysroot: QEMU_LD_PREFIX names it, as for qemu-alpha.
    let o = subword(
        &[
            "alpha",
            "run",
            "-E",
            "FOO=bar=baz",
            "--unset-env",
            "GONE",
            b,
        ],
        &[("QEMU_LD_PREFIX", SYSROOT), ("GONE", "here")],
    );
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "FOO=bar=baz GONE=(unset)\n",
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // SUBWORD_SYSROOT works too, and without -U the host's variable passes.
    let o = subword(
        &["alpha", "run", "--env", "FOO=1", b],
        &[("SUBWORD_SYSROOT", SYSROOT), ("GONE", "here")],
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout), "FOO=1 GONE=here\n");
    // A malformed --env is bad usage: exit 2, one line.
    let o = subword(&["alpha", "run", "--env", "NOVALUE", b], &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("subword: --env NOVALUE"), "{err}");
}

#[test]
fn strace_decodes_clock_ids_timespecs_and_itimers() {
    let Some(gcc) = gcc("strace_time") else {
        return;
    };
    let dir = testkit::scratch_dir("alpha_run_habits_strace");
    let src = "#include <time.h>\n#include <sys/time.h>\nint main(void){ struct timespec d = {0, 1000}; clock_nanosleep(CLOCK_MONOTONIC, 0, &d, 0); struct itimerval v = {{0,0},{0,0}}; setitimer(ITIMER_REAL, &v, 0); struct timespec t; clock_gettime(CLOCK_BOOTTIME, &t); return 0; }\n";
    let bin = build(&gcc, &dir, "st", src, &[]);
    let o = subword(
        &[
            "alpha",
            "run",
            "--strace",
            "--sysroot",
            SYSROOT,
            bin.to_str().unwrap(),
        ],
        &[],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("clock_nanosleep(CLOCK_MONOTONIC,0,{tv_sec = 0,tv_nsec = 1000},NULL) = "),
        "{err}"
    );
    assert!(err.contains("setitimer(ITIMER_REAL,0x"), "{err}");
    assert!(err.contains("clock_gettime(CLOCK_BOOTTIME,0x"), "{err}");
}

/// Prints FOO, BAR and GONE, the model's AMASK and IMPLVER, and with
/// `stack` the size of its `[stack]` mapping.
const HAB: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    const char *names[] = {"FOO", "BAR", "GONE"};
    for (int i = 0; i < 3; i++) { const char *v = getenv(names[i]); printf("%s=%s\n", names[i], v ? v : "(unset)"); }
    long amask, implver;
    __asm__("amask %1,%0" : "=r"(amask) : "r"(-1L));
    __asm__("implver %0" : "=r"(implver));
    printf("amask %lx implver %ld\n", ~amask & 0xfff, implver);
    if (argc > 1 && !strcmp(argv[1], "stack")) {
        FILE *f = fopen("/proc/self/maps", "r"); char l[512];
        while (f && fgets(l, sizeof l, f)) { unsigned long a, b; if (strstr(l, "[stack]") && sscanf(l, "%lx-%lx", &a, &b) == 2) printf("stack %lu KiB\n", (b - a) >> 10); }
    }
    return 0;
}
"#;

#[test]
fn qemu_options_and_variables_mean_under_subword_what_they_mean_to_qemu_alpha() {
    let Some(gcc) = gcc("qemu_habits") else {
        return;
    };
    let Some(qemu) = testkit::require_tool("qemu_habits", "qemu-alpha", "qemu-user") else {
        return;
    };
    let dir = testkit::scratch_dir("alpha_run_habits_qemu");
    let bin = build(&gcc, &dir, "hab", HAB, &[]);
    let b = bin.to_str().unwrap();
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)]);
    let cases: &[Case] = &[
        // qemu's spellings on the command line.
        (
            &[
                "-L",
                SYSROOT,
                "-cpu",
                "ev56-alpha-cpu",
                "-s",
                "16M",
                "-E",
                "FOO=1,BAR=2",
                "-U",
                "GONE",
                b,
                "stack",
            ],
            &[("GONE", "here")],
        ),
        (
            &[
                "-L", SYSROOT, "-cpu", "ev4", "-E", "FOO=a", "-E", "BAR=b", b,
            ],
            &[],
        ),
        // The same through qemu's variables.
        (
            &[b, "stack"],
            &[
                ("QEMU_LD_PREFIX", SYSROOT),
                ("QEMU_CPU", "21164a"),
                ("QEMU_STACK_SIZE", "1M"),
                ("QEMU_SET_ENV", "FOO=3,BAR=4"),
                ("QEMU_UNSET_ENV", "GONE,FOO"),
                ("GONE", "here"),
            ],
        ),
        // The command line wins over the variable.
        (
            &["-cpu", "ev67", "-U", "BAR", b],
            &[
                ("QEMU_LD_PREFIX", SYSROOT),
                ("QEMU_CPU", "ev4"),
                ("BAR", "x"),
            ],
        ),
    ];
    for (args, env) in cases {
        let mut q = Command::new(&qemu);
        q.args(*args).env_remove("QEMU_LD_PREFIX");
        let mut sw = vec!["alpha", "run"];
        sw.extend(*args);
        let o = subword(&sw, env);
        for (k, v) in *env {
            q.env(k, v);
        }
        let qo = q.output().expect("run qemu-alpha");
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&qo.stdout),
            "{args:?} {env:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(o.status.success() && qo.status.success(), "{args:?}");
    }
    // -strace and QEMU_STRACE (set to anything, even 0) trace every call,
    // in qemu's `PID name(args) = result` lines.
    for (args, env) in [
        (vec!["alpha", "run", "-strace", "-L", SYSROOT, b], vec![]),
        (
            vec!["alpha", "run", "-L", SYSROOT, b],
            vec![("QEMU_STRACE", "0")],
        ),
    ] {
        let o = subword(&args, &env);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.lines()
                .any(|l| l.split_once(' ').is_some_and(|(pid, rest)| {
                    pid.parse::<u32>().is_ok() && rest.starts_with("write(1,")
                })),
            "{args:?} {env:?}: {err}"
        );
    }
    // A bad value in a variable is refused as the option's would be: exit
    // 2 and one line naming the variable.
    for (var, val) in [
        ("QEMU_CPU", "bogus"),
        ("QEMU_STACK_SIZE", "1z"),
        ("QEMU_STACK_SIZE", "1"),
        ("QEMU_GDB", "port"),
        ("QEMU_SET_ENV", "NOVALUE"),
    ] {
        let o = subword(&["alpha", "run", "-L", SYSROOT, b], &[(var, val)]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{var}={val}: {err}");
        assert_eq!(err.lines().count(), 1, "{var}={val}: {err}");
        assert!(err.starts_with(&format!("subword: {var}")), "{err}");
    }
    // --help names the variables.
    let o = subword(&["alpha", "run", "--help"], &[]);
    let help = String::from_utf8_lossy(&o.stdout);
    for var in [
        "QEMU_LD_PREFIX",
        "QEMU_CPU",
        "QEMU_STRACE",
        "QEMU_STACK_SIZE",
        "QEMU_GDB",
        "QEMU_SET_ENV",
        "QEMU_UNSET_ENV",
    ] {
        assert!(help.contains(var), "{var} missing from --help:\n{help}");
    }
}
