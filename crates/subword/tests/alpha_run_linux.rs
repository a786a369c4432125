//! `subword alpha run` of real glibc programs through the CLI: dynamic
//! loading with `--sysroot`, `--strace` on stderr, `--quantum`, the
//! relaxed-static crash diagnosis and `--max-insns` on a glibc program. (The
//! start-up time of a dynamic hello world is measured by the `vs_qemu`
//! benchmark, not asserted here: timing belongs in benchmarks.)

const SYSROOT: &str = testkit::ALPHA_SYSROOT;
use testkit::{alpha_gcc as gcc, compile_c as build};
mod common;
use common::subword;

const HELLO: &str = "#include <stdio.h>\nint main(int argc, char **argv) { printf(\"hello %s\\n\", argv[1]); return 5; }\n";

#[test]
fn cli_dynamic_glibc_program_runs_with_sysroot_and_strace() {
    let Some(gcc) = gcc("cli_dynamic") else {
        return;
    };
    let dir = testkit::scratch_dir("alpha_run_linux_dynamic");
    let bin = build(&gcc, &dir, "hello", HELLO, &[]);
    let b = bin.to_str().unwrap();
    let o = subword(&["alpha", "run", "--sysroot", SYSROOT, b, "world"]);
    assert_eq!(
        o.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.stdout, b"hello world\n");
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    let o = subword(&["alpha", "run", "--strace", "--sysroot", SYSROOT, b, "x"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.stdout, b"hello x\n");
    // The loader opens libc through the sysroot, maps it, and the program
    // writes and exits; each line is `TID name(args) = result`.
    assert!(
        err.contains("openat(AT_FDCWD,\"/lib/libc.so.6.1\",O_RDONLY|O_CLOEXEC,"),
        "{err}"
    );
    assert!(
        err.contains(",PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,"),
        "{err}"
    );
    assert!(
        err.lines()
            .any(|l| l.contains(" write(1,") && l.ends_with("= 8")),
        "{err}"
    );
    assert!(err.contains("exit_group(5) = ?"), "{err}");
}

#[test]
fn cli_relaxed_static_crash_is_139_with_the_fault_and_a_one_line_explanation() {
    let Some(gcc) = gcc("cli_relaxed") else {
        return;
    };
    let dir = testkit::scratch_dir("alpha_run_linux_relaxed");
    let bin = build(&gcc, &dir, "relaxed", HELLO, &["-static"]);
    let o = subword(&["alpha", "run", bin.to_str().unwrap(), "x"]);
    assert_eq!(o.status.code(), Some(139));
    let err = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].starts_with("subword: SIGSEGV: ldq "), "{err}");
    assert!(lines[0].contains("<__ctype_init+0x"), "{err}");
    assert!(
        lines[1].starts_with("subword: this static program was linked with linker relaxation")
            && lines[1].contains("`__ehdr_start` to 0")
            && lines[1].ends_with("relink it with -Wl,--no-relax"),
        "{err}"
    );
}

#[test]
fn cli_max_insns_stops_a_glibc_loop_and_quantum_zero_is_bad_usage() {
    let Some(gcc) = gcc("cli_max_insns") else {
        return;
    };
    let dir = testkit::scratch_dir("alpha_run_linux_loop");
    let src = "int main(void) { for (volatile long i = 0;; i++) ; }\n";
    let bin = build(&gcc, &dir, "loop", src, &["-static", "-Wl,--no-relax"]);
    let b = bin.to_str().unwrap();
    let o = subword(&["alpha", "run", "--max-insns", "2000000", b]);
    assert_eq!(o.status.code(), Some(124));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--max-insns"));
    let o = subword(&["alpha", "run", "--quantum", "0", b]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("subword: --quantum"));
}
