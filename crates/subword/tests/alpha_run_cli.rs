//! `alpha run`'s command line parses like qemu-user's: options end at
//! PROGRAM, sizes take K/M/G and KiB/MiB/GiB, bad numbers say what is wrong,
//! usage errors name the subcommand's help; `-` is stdin/stdout for the
//! file tools; `--strace` names every Alpha system call.

use std::io::Write;
use std::process::{Command, Output, Stdio};
mod common;
use common::subword;

/// A static program that exits with `argc`, or after `body` with `$0`.
fn program(name: &str, body: &str) -> String {
    let src = format!(
        "    .text\n    .globl _start\n_start:\n{body}\n    mov $0, $16\n    lda $0, 1($31)\n    call_pal 0x83\n"
    );
    let elf = alpha_isa::assemble(&src, "t.s").unwrap().to_elf();
    let dir = testkit::scratch_dir(name);
    let p = dir.join("prog");
    std::fs::write(&p, elf).unwrap();
    p.display().to_string()
}

fn argc_program(name: &str) -> String {
    program(name, "    ldq $0, 0($30)")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn options_after_program_are_the_guests_arguments() {
    let p = argc_program("cli_options_end_at_program");
    // `--help` after PROGRAM is the guest's: argc 2, no subword help.
    let o = subword(&["alpha", "run", &p, "--help"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    // `--cpu ev4 x` after PROGRAM: argc 4 (subword does not take them).
    let o = subword(&["alpha", "run", "--cpu", "ev67", &p, "--cpu", "ev4", "x"]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    // `--` after PROGRAM is an argument too.
    let o = subword(&["alpha", "run", &p, "--", "-x"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
}

#[test]
fn unknown_option_before_program_is_a_usage_error_naming_run_help() {
    let p = argc_program("cli_unknown_option");
    let o = subword(&["alpha", "run", "--bogus", &p]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.starts_with("subword: ") && e.lines().count() == 1, "{e}");
    assert!(
        e.contains("--bogus") && e.contains("subword alpha run --help"),
        "{e}"
    );
}

#[test]
fn usage_errors_point_to_the_subcommands_help() {
    for (args, help) in [
        (
            &["alpha", "disasm", "--bogus", "x"][..],
            "subword alpha disasm --help",
        ),
        (&["alpha", "run"][..], "subword alpha run --help"),
        (&["alpha", "asm", "x.s"][..], "subword alpha asm --help"),
    ] {
        let o = subword(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = stderr(&o);
        assert!(e.lines().count() == 1 && e.contains(help), "{args:?}: {e}");
    }
}

#[test]
fn max_memory_takes_binary_suffixes() {
    let p = argc_program("cli_sizes");
    for size in ["1G", "1GiB", "64M", "65536K", "0x4000000", "16MiB"] {
        let o = subword(&["alpha", "run", "--max-memory", size, &p]);
        assert_eq!(o.status.code(), Some(1), "{size}: {}", stderr(&o));
    }
}

#[test]
fn bad_sizes_and_numbers_say_what_is_wrong() {
    let p = argc_program("cli_bad_numbers");
    let cases: [(&[&str], &str); 5] = [
        (
            &["--max-memory", "0"],
            "--max-memory 0: the cap must be above 0 bytes",
        ),
        (&["--max-memory", "1T"], "is not a size"),
        (&["--max-memory", "20000000000G"], "out of range"),
        (&["--max-insns", "99999999999999999999"], "out of range"),
        (&["--max-memory", "4096"], "cap of 8192 bytes"),
    ];
    for (opts, want) in cases {
        let mut args = vec!["alpha", "run"];
        args.extend_from_slice(opts);
        args.push(&p);
        let o = subword(&args);
        assert_eq!(o.status.code(), Some(2), "{opts:?}");
        let e = stderr(&o);
        assert!(e.starts_with("subword: ") && e.lines().count() == 1, "{e}");
        assert!(e.contains(want), "{opts:?}: {e}");
        assert!(!e.contains("malformed ELF"), "{opts:?}: {e}");
    }
}

#[test]
fn dash_is_stdin_and_stdout_for_asm_and_disasm() {
    let asm = Command::new(env!("CARGO_BIN_EXE_subword"))
        .args(["alpha", "asm", "-", "-o", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    asm.stdin
        .as_ref()
        .unwrap()
        .write_all(b"    .text\n    .globl _start\n_start:\n    addq $1, $2, $3\n")
        .unwrap();
    let o = asm.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(&o.stdout[..4], b"\x7fELF");
    let dis = Command::new(env!("CARGO_BIN_EXE_subword"))
        .args(["alpha", "disasm", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    dis.stdin.as_ref().unwrap().write_all(&o.stdout).unwrap();
    let d = dis.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&d.stdout);
    assert!(text.contains("addq\tt0,t1,t2"), "{text}");
    // An assembler error read from stdin names `<stdin>` and its line.
    let bad = Command::new(env!("CARGO_BIN_EXE_subword"))
        .args(["alpha", "asm", "-", "-o", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    bad.stdin
        .as_ref()
        .unwrap()
        .write_all(b"_start:\n    bogus $1\n")
        .unwrap();
    let b = bad.wait_with_output().unwrap();
    assert_eq!(b.status.code(), Some(2));
    assert!(
        stderr(&b).starts_with("subword: <stdin>:2:"),
        "{}",
        stderr(&b)
    );
}

#[test]
fn strace_names_a_call_subword_does_not_implement_by_its_alpha_name() {
    // osf_proplist_syscall (244): Alpha Linux has the number, subword (and
    // the kernel) do not implement it: ENOSYS, named in --strace.
    let p = program(
        "cli_strace_names",
        "    lda $0, 244($31)\n    call_pal 0x83\n    mov $19, $1\n    addq $0, $1, $0",
    );
    let o = subword(&["alpha", "run", "--strace", &p]);
    let e = stderr(&o);
    assert!(e.contains(" osf_proplist_syscall("), "{e}");
    assert!(e.contains("= -1 ENOSYS (Function not implemented)"), "{e}");
    assert!(!e.contains("syscall_244"), "{e}");
    assert_eq!(o.status.code(), Some(79), "ENOSYS 78 + error flag 1: {e}");
}
