//! Guest memory under `alpha run`: host-mapped by default, portable with
//! `SUBWORD_MEMORY=portable` (see `alpha_emu::memory`).
//!
//! - Faults in hot, compiled loops (`tests/c/memory/faults.c`: reads and
//!   writes walking into read-only, PROT_NONE and unmapped pages, byte
//!   stores, loads beyond the user address space, kernel-fixed unaligned
//!   loads) give the guest's SIGSEGV handler the same signal, `si_code`,
//!   `si_addr`, pc and every integer register under both memories, with
//!   and without compiling, and the summary agrees with qemu-alpha; the
//!   host-mapped run really took host faults in compiled code.
//! - Mappings Linux refuses get ENOMEM (`mapping.c`; qemu-alpha 7.2 maps a
//!   fixed address beyond `TASK_SIZE`, which Linux refuses).
//! - A loop of `sbrk` to 4 GiB costs the host next to nothing when the
//!   memory is not touched (`sbrk.c`), measured as the child's peak RSS.
//! - A host without room for the reservation (an address-space limit)
//!   falls back to portable memory with one warning line.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const SYSROOT: &str = "/usr/alpha-linux-gnu";

fn source(name: &str) -> String {
    std::fs::read_to_string(
        testkit::workspace_root()
            .join("crates/subword/tests/c/memory")
            .join(format!("{name}.c")),
    )
    .expect("C source")
}

/// The test programs, dynamic, for ev67 and ev4 (`None`: no toolchain).
fn binaries() -> Option<&'static Vec<(String, PathBuf)>> {
    static BINS: OnceLock<Option<Vec<(String, PathBuf)>>> = OnceLock::new();
    BINS.get_or_init(|| {
        let gcc = testkit::alpha_gcc("alpha_memory")?;
        let dir = testkit::scratch_dir("alpha_memory");
        let mut v = Vec::new();
        for name in ["faults", "mapping", "sbrk"] {
            let src = source(name);
            for cpu in ["ev67", "ev4"] {
                let flag = format!("-mcpu={cpu}");
                let bin = testkit::compile_c(&gcc, &dir, &format!("{name}-{cpu}"), &src, &[&flag]);
                v.push((format!("{name}-{cpu}"), bin));
            }
        }
        Some(v)
    })
    .as_ref()
}

fn bin(name: &str) -> Option<&'static Path> {
    binaries().map(|v| {
        v.iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p.as_path())
            .expect("built")
    })
}

fn subword(memory: &str, opts: &[&str], prog: &Path, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_subword"));
    // The guest's environment must not differ with the memory (its stack
    // addresses would).
    c.env("SUBWORD_MEMORY", memory)
        .args([
            "alpha",
            "run",
            "--sysroot",
            SYSROOT,
            "--unset-env",
            "SUBWORD_MEMORY",
        ])
        .args(opts)
        .arg(prog)
        .args(args);
    testkit::watchdog::output("subword", c, std::time::Duration::from_secs(300))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The number after `label` in a `--jit-stats` report.
fn stat(report: &str, label: &str) -> u64 {
    let at = report
        .find(label)
        .unwrap_or_else(|| panic!("no `{label}` in {report}"));
    report[..at]
        .split_whitespace()
        .last()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count before `{label}` in {report}"))
}

#[test]
fn faults_in_compiled_code_reach_the_guest_as_the_interpreter_delivers_them() {
    if binaries().is_none() {
        return;
    }
    let qemu = testkit::require_tool("alpha_memory", "qemu-alpha", "qemu-user");
    for cpu in ["ev67", "ev4"] {
        let prog = bin(&format!("faults-{cpu}")).expect("built");
        let cpu_opt = ["--cpu", cpu];
        // The summary: every way of running it agrees (and with qemu).
        let mut summaries = Vec::new();
        for memory in ["host", "portable"] {
            for jit in [&[][..], &["--no-jit"], &["--jit-threshold", "1"]] {
                let opts: Vec<&str> = cpu_opt.iter().chain(jit).copied().collect();
                let out = subword(memory, &opts, prog, &[]);
                assert!(
                    out.status.success(),
                    "{memory} {jit:?}: {}",
                    text(&out.stderr)
                );
                summaries.push((format!("{memory} {jit:?}"), text(&out.stdout)));
                let regs = subword(memory, &opts, prog, &["regs"]);
                summaries.push((format!("{memory} {jit:?} regs"), text(&regs.stdout)));
            }
        }
        let want = &summaries[0].1;
        assert!(want.contains("faults 16"), "{want}");
        for (how, got) in summaries.iter().filter(|(h, _)| !h.ends_with("regs")) {
            assert_eq!(got, want, "{cpu} {how}");
        }
        let want_regs = &summaries[1].1;
        assert!(want_regs.contains("$31=0"), "{want_regs}");
        for (how, got) in summaries.iter().filter(|(h, _)| h.ends_with("regs")) {
            assert_eq!(got, want_regs, "{cpu} {how}");
        }
        if let Some(q) = &qemu {
            let out = Command::new(q)
                .args(["-cpu", cpu, "-L", SYSROOT])
                .arg(prog)
                .output()
                .expect("qemu-alpha");
            assert_eq!(&text(&out.stdout), want, "{cpu}: qemu-alpha");
        }
        // The host-mapped, compiled run took faults in compiled code (how
        // many depends on when the background compiler delivers each loop).
        let out = subword(
            "host",
            &[&cpu_opt[..], &["--jit-stats"]].concat(),
            prog,
            &[],
        );
        let report = text(&out.stderr);
        let faults = stat(&report, "page (") + stat(&report, "alignment or range");
        assert!(faults >= 1, "{report}");
    }
}

#[test]
fn mappings_linux_refuses_get_enomem_under_both_memories() {
    let Some(prog) = bin("mapping-ev67") else {
        return;
    };
    let want = "fixed beyond TASK_SIZE: Cannot allocate memory\n\
                fixed across TASK_SIZE: Cannot allocate memory\n\
                1 PiB anonymous: Cannot allocate memory\n\
                1 GiB touched every 16 MiB: 2016\n";
    for memory in ["host", "portable"] {
        let out = subword(memory, &[], prog, &[]);
        assert!(out.status.success(), "{memory}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), want, "{memory}");
    }
}

/// Run `prog` under subword and return (stdout, peak RSS in KiB of the
/// child, as the kernel accounts it).
fn peak_rss(memory: &str, prog: &Path, args: &[&str]) -> (String, u64) {
    let dir = testkit::scratch_dir(&format!("alpha_memory_rss_{memory}_{}", args.len()));
    let out_file = dir.join("out");
    let mut c = Command::new(env!("CARGO_BIN_EXE_subword"));
    c.env("SUBWORD_MEMORY", memory)
        .args(["alpha", "run", "--sysroot", SYSROOT])
        .arg(prog)
        .args(args)
        .stdout(std::fs::File::create(&out_file).expect("out file"));
    // Reaped by wait4 below, which also gives the peak RSS.
    #[allow(clippy::zombie_processes)]
    let child = c.spawn().expect("spawn subword");
    let mut status = 0;
    // SAFETY: a zeroed rusage is valid; we wait for our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut ru) };
    assert_eq!(pid, child.id() as i32);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
    let out = std::fs::read_to_string(&out_file).expect("output");
    (out, ru.ru_maxrss as u64)
}

#[test]
fn a_loop_of_sbrk_to_4_gib_costs_the_host_almost_nothing() {
    let Some(prog) = bin("sbrk-ev67") else {
        return;
    };
    let (out, rss) = peak_rss("host", prog, &[]);
    assert_eq!(out, "grew 4096 MiB\n");
    assert!(rss < 100 * 1024, "untouched: peak RSS {rss} KiB");
    // One page written per MiB: 4096 pages of 8 KiB.
    let (out, touched) = peak_rss("host", prog, &["touch"]);
    assert_eq!(out, "grew 4096 MiB\n");
    assert!(touched < 150 * 1024, "touched: peak RSS {touched} KiB");
}

#[test]
fn no_room_for_the_reservation_falls_back_to_portable_memory_with_one_warning() {
    let Some(prog) = bin("mapping-ev67") else {
        return;
    };
    // An address-space limit far below the reservation.
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 2000000 && exec \"$0\" alpha run --sysroot \"$1\" \"$2\"")
        .arg(env!("CARGO_BIN_EXE_subword"))
        .arg(SYSROOT)
        .arg(prog)
        .output()
        .expect("sh");
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("subword: warning: "))
        .collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(warnings[0].contains("portable memory"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(text(&out.stdout).ends_with("1 GiB touched every 16 MiB: 2016\n"));
}

#[test]
fn an_unknown_subword_memory_is_one_line_and_exit_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_subword"))
        .env("SUBWORD_MEMORY", "fast")
        .args(["alpha", "run", "/nonexistent"])
        .output()
        .expect("subword");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "subword: SUBWORD_MEMORY=fast: must be `host` or `portable`\n"
    );
}
