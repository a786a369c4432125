//! Every command that reads a file refuses what it cannot read to the end:
//! a device (`/dev/zero`), a FIFO (nobody writes it, so opening it for
//! reading would wait for ever), a directory and a file larger than its
//! kind's limit each give exit 2 and one `subword: FILE: …` line, under a
//! 1 GiB address-space limit and a watchdog. Standard input (`-`) is read
//! up to the same limit whatever it is connected to.

mod common;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// Every command reading a file, `@` where the file goes.
const COMMANDS: &[&[&str]] = &[
    &["alpha", "run", "@"],
    &["alpha", "explore", "@"],
    &["alpha", "explore-merge", "@"],
    &["alpha", "disasm", "@"],
    &["alpha", "disasm", "--raw", "@"],
    &["alpha", "scan", "@"],
    &["alpha", "scan", "--json", "@"],
    &["alpha", "asm", "@", "-o", "/dev/null"],
    &["alpha", "machine", "--chipset", "cia", "@"],
    &["pto", "run", "@"],
    &["pto", "run", "--json", "@"],
    &["pto", "footprint", "@"],
    &["pto", "asm", "@"],
    &["pto", "disasm", "@"],
    &["pto", "disasm", "--raw", "@"],
];

/// The commands whose file argument may be `-` (standard input).
const STDIN_COMMANDS: &[&[&str]] = &[
    &["alpha", "explore-merge", "-"],
    &["alpha", "disasm", "-"],
    &["alpha", "disasm", "--raw", "-"],
    &["alpha", "scan", "-"],
    &["alpha", "asm", "-", "-o", "/dev/null"],
    &["pto", "asm", "-"],
    &["pto", "disasm", "-"],
    &["pto", "disasm", "--raw", "-"],
];

const ADDRESS_SPACE: u64 = 1 << 30;

/// Runs `subword ARGS` with `stdin`, at most 1 GiB of address space and a
/// 60 s watchdog (a hang fails the test, naming the command).
fn bounded(args: &[String], stdin: Stdio) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_subword"));
    c.args(args).stdin(stdin);
    // SAFETY: setrlimit is async-signal-safe and touches no memory of ours.
    unsafe {
        c.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: ADDRESS_SPACE,
                rlim_max: ADDRESS_SPACE,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    testkit::watchdog::output(&args.join(" "), c, Duration::from_secs(60))
}

fn with(cmd: &[&str], file: &Path) -> Vec<String> {
    cmd.iter()
        .map(|a| {
            if *a == "@" {
                file.display().to_string()
            } else {
                a.to_string()
            }
        })
        .collect()
}

fn refused(args: &[String], stdin: Stdio, what: &str) {
    let o = bounded(args, stdin);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let line = common::one_stderr_line(&o);
    assert!(line.contains(what), "{args:?}: {line}");
}

/// A fresh directory of this file's test `name`.
fn scratch(name: &str) -> PathBuf {
    testkit::scratch_dir(&format!("file_inputs_{name}"))
}

#[test]
fn a_device_is_not_a_regular_file() {
    for cmd in COMMANDS {
        refused(
            &with(cmd, Path::new("/dev/zero")),
            Stdio::null(),
            "/dev/zero: not a regular file (a character device)",
        );
    }
}

#[test]
fn a_fifo_nobody_writes_is_refused_without_waiting() {
    let dir = scratch("fifo");
    let fifo = dir.join("in.fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    for cmd in COMMANDS {
        refused(
            &with(cmd, &fifo),
            Stdio::null(),
            "not a regular file (a FIFO)",
        );
    }
}

#[test]
fn a_directory_is_not_a_regular_file() {
    for cmd in COMMANDS {
        refused(
            &with(cmd, Path::new("/")),
            Stdio::null(),
            "/: not a regular file (a directory)",
        );
    }
}

#[test]
fn a_file_over_its_kind_limit_is_refused_before_it_is_read() {
    let dir = scratch("big");
    let big = dir.join("big");
    // Sparse: 300 MiB of size, no disk, more than every kind's limit.
    std::fs::File::create(&big)
        .unwrap()
        .set_len(300 << 20)
        .unwrap();
    for cmd in COMMANDS {
        refused(
            &with(cmd, &big),
            Stdio::null(),
            "314572800 bytes, larger than",
        );
    }
    let o = bounded(&with(&["pto", "run", "@"], &big), Stdio::null());
    assert!(common::one_stderr_line(&o).contains("the 16 MiB allowed for a scenario file"));
}

#[test]
fn endless_standard_input_is_read_up_to_the_limit() {
    for cmd in STDIN_COMMANDS {
        let args: Vec<String> = cmd.iter().map(|a| a.to_string()).collect();
        let zero = std::fs::File::open("/dev/zero").unwrap();
        refused(&args, Stdio::from(zero), "<stdin>: more than");
    }
}

#[test]
fn control_characters_from_an_input_are_escaped_in_the_error_line() {
    let dir = scratch("ctl");
    let words = dir.join("words.txt");
    std::fs::write(&words, "0x1\n\u{1b}[2J\u{7}zap\n").unwrap();
    let o = bounded(&with(&["pto", "disasm", "@"], &words), Stdio::null());
    assert_eq!(o.status.code(), Some(2));
    let line = common::one_stderr_line(&o);
    assert!(
        line.ends_with(":2: `\\u{1b}[2J\\u{7}zap` is not a 32-bit hex word"),
        "{line}"
    );
    let src = dir.join("bad.s");
    std::fs::write(&src, "\t.text\n_start:\n\tfrob\u{7}\u{1b}]0;x\u{7} $1\n").unwrap();
    let o = bounded(
        &with(&["alpha", "asm", "@", "-o", "/dev/null"], &src),
        Stdio::null(),
    );
    assert_eq!(o.status.code(), Some(2));
    let line = common::one_stderr_line(&o);
    assert!(!line.chars().any(|c| c.is_control()), "{line:?}");
}

/// GNU objdump lists words past 2^64 at addresses wrapped to 0 and then
/// stops ("Address 0x0 is out of bounds"); `disasm` refuses them instead,
/// and lists the last words below 2^64 as they are.
#[test]
fn disasm_refuses_words_past_the_top_of_the_address_space() {
    let dir = scratch("top");
    let raw = dir.join("w.bin");
    std::fs::write(&raw, [0x00, 0x00, 0xfe, 0x2f].repeat(3)).unwrap();
    let f = raw.display().to_string();
    let o = bounded(
        &[
            "alpha",
            "disasm",
            "--raw",
            "--base",
            "0xfffffffffffffff8",
            &f,
        ]
        .map(String::from),
        Stdio::null(),
    );
    assert_eq!(o.status.code(), Some(2));
    let line = common::one_stderr_line(&o);
    assert!(
        line.contains("--base 0xfffffffffffffff8: its 12 bytes would run past the top"),
        "{line}"
    );
    let o = bounded(
        &[
            "alpha",
            "disasm",
            "--raw",
            "--base",
            "0xfffffffffffffff4",
            &f,
        ]
        .map(String::from),
        Stdio::null(),
    );
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8(o.stdout).unwrap();
    let addrs: Vec<&str> = text
        .lines()
        .map(|l| l.split(':').next().unwrap().trim())
        .collect();
    assert_eq!(
        addrs,
        ["fffffffffffffff4", "fffffffffffffff8", "fffffffffffffffc"]
    );
}

/// The program interpreter a dynamic ELF names is read the same way: one
/// naming `/dev/zero` is refused at once instead of read for ever.
#[test]
fn an_interpreter_that_is_a_device_is_refused() {
    let Some(gcc) = testkit::alpha_gcc("an_interpreter_that_is_a_device_is_refused") else {
        return;
    };
    let dir = scratch("interp");
    let prog = testkit::compile_c(&gcc, &dir, "dyn", "int main(void) { return 0; }\n", &[]);
    let mut elf = std::fs::read(&prog).unwrap();
    let at = elf
        .windows(5)
        .position(|w| w == b"/lib/")
        .expect("a PT_INTERP path");
    let end = at + elf[at..].iter().position(|&b| b == 0).unwrap();
    assert!(end - at >= "/dev/zero".len());
    elf[at..end].fill(0);
    elf[at..at + 9].copy_from_slice(b"/dev/zero");
    let patched = dir.join("dyn-zero");
    std::fs::write(&patched, &elf).unwrap();
    let o = bounded(
        &["alpha", "run", &patched.display().to_string()].map(String::from),
        Stdio::null(),
    );
    assert_eq!(o.status.code(), Some(2));
    let line = common::one_stderr_line(&o);
    assert!(
        line.contains("program interpreter /dev/zero: not a regular file (a character device)"),
        "{line}"
    );
}
