//! qemu-user habits of `subword alpha run`: `--cpu help`, `--env`/`-E` and
//! `--unset-env`/`-U`, the default sysroot from `SUBWORD_SYSROOT` or
//! `QEMU_LD_PREFIX`, and `--strace` decoding the time calls' arguments.

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
