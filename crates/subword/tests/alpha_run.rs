//! `subword alpha run` end to end: a program using `callsys` write/exit,
//! the same BWX program killed by SIGILL on an EV5, and bad input.

use std::path::PathBuf;
use std::process::Output;
mod common;
use common::subword;

const HELLO: &str = "
    .text
    .globl _start
_start:
    lda $16, 1($31)
    lda $17, msg
    lda $18, 6($31)
    lda $0, 4($31)          # write(1, msg, 6)
    call_pal 0x83
    lda $1, -8($30)
    stb $31, 0($1)          # a BWX byte store
    lda $16, 7($31)
    lda $0, 1($31)          # exit(7)
    call_pal 0x83
    .data
msg: .ascii \"hello\\n\"
";

fn program(test: &str, src: &str) -> PathBuf {
    let dir = testkit::scratch_dir(test);
    let path = dir.join("prog");
    let elf = alpha_isa::assemble(src, "prog.s")
        .expect("assemble")
        .to_elf();
    std::fs::write(&path, elf).unwrap();
    path
}

fn stderr_lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn exec_write_and_exit_run_end_to_end_with_guest_status() {
    let p = program("exec_write_and_exit", HELLO);
    let o = subword(&["alpha", "run", p.to_str().unwrap()]);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "hello\n");
    assert_eq!(o.status.code(), Some(7));
    assert!(o.stderr.is_empty(), "{:?}", stderr_lines(&o));
    let o = subword(&["alpha", "run", "--cpu", "21164a", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(7), "ev56 by part number has BWX");
}

#[test]
fn fault_bwx_program_on_ev5_exits_132_naming_insn_and_extension() {
    let p = program("fault_bwx_on_ev5", HELLO);
    let o = subword(&["alpha", "run", "--cpu", "ev5", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(132));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "hello\n",
        "output before the fault"
    );
    let lines = stderr_lines(&o);
    assert_eq!(lines.len(), 1, "{lines:?}");
    let l = &lines[0];
    assert!(l.starts_with("subword: SIGILL: stb"), "{l}");
    assert!(l.contains(" at 0x1200"), "{l}");
    assert!(l.ends_with("needs BWX, which ev5 lacks"), "{l}");
}

/// A counting loop run interpreted, compiled after its first pass, and by
/// default: the same output and status; `--jit-stats` reports what was
/// compiled (nothing when interpreting).
#[test]
fn exec_loop_same_result_interpreted_and_compiled_and_jit_stats_report_it() {
    let src = "
    .globl _start
_start:
    lda $1, 30000($31)
    clr $16
1:  addq $16, 3, $16
    and $16, 0x7f, $16
    subq $1, 1, $1
    bne $1, 1b
    lda $0, 1($31)
    call_pal 0x83
";
    let p = program("exec_loop_tiers", src);
    let p = p.to_str().unwrap();
    let mut statuses = Vec::new();
    for tier in [&["--no-jit"][..], &["--jit-threshold", "1"], &[]] {
        let mut args = vec!["alpha", "run", "--jit-stats"];
        args.extend_from_slice(tier);
        args.push(p);
        let o = subword(&args);
        let lines = stderr_lines(&o);
        assert_eq!(lines.len(), 1, "{tier:?}: {lines:?}");
        let l = &lines[0];
        assert!(l.starts_with("subword: jit: "), "{l}");
        if tier == ["--no-jit"] {
            assert!(l.contains(" 0 regions compiled"), "{l}");
        } else {
            assert!(
                // The loop and the code after it, up to the CALL_PAL.
                l.contains(" 1 regions compiled (5 guest instructions"),
                "{tier:?}: {l}"
            );
        }
        statuses.push(o.status.code());
    }
    // exit(a0): 30000 * 3 mod 128, computed three ways.
    assert_eq!(statuses, vec![Some(30000 * 3 % 128); 3]);
}

#[test]
fn bound_max_insns_exits_124() {
    let p = program("bound_max_insns", ".globl _start\n_start:\n1: br 1b\n");
    let o = subword(&["alpha", "run", "--max-insns", "0x1000", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(124));
    assert_eq!(stderr_lines(&o).len(), 1);
}

#[test]
fn fault_bad_input_exits_2_with_one_line() {
    let p = program("fault_bad_input", HELLO);
    let dir = p.parent().unwrap().to_path_buf();
    let text = dir.join("text");
    std::fs::write(&text, "not an executable\n").unwrap();
    let elf = std::fs::read(&p).unwrap();
    let trunc = dir.join("trunc");
    std::fs::write(&trunc, &elf[..40]).unwrap();
    let p = p.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["alpha", "run", text.to_str().unwrap()],
            "not an ELF file",
        ),
        (
            vec!["alpha", "run", trunc.to_str().unwrap()],
            "truncated or malformed",
        ),
        (
            vec!["alpha", "run", "/nonexistent/prog"],
            "/nonexistent/prog",
        ),
        (
            vec!["alpha", "run", "--cpu", "ev9", p],
            "unknown CPU model `ev9`",
        ),
        (
            vec!["alpha", "run", "--lock-range", "12", p],
            "--lock-range 12",
        ),
        (
            vec!["alpha", "run", "--lock-range", "16384", p],
            "power of two",
        ),
        (vec!["alpha", "run", "--lock-range", "4", p], "power of two"),
        (
            vec!["alpha", "run", "--jit-threshold", "0", p],
            "--jit-threshold 0",
        ),
        (
            vec!["alpha", "run", "--no-jit", "--jit-threshold", "5", p],
            "--no-jit",
        ),
    ];
    for (args, needle) in cases {
        let o = subword(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let lines = stderr_lines(&o);
        assert_eq!(lines.len(), 1, "{args:?}: {lines:?}");
        assert!(
            lines[0].starts_with("subword: ") && lines[0].contains(needle),
            "{args:?}: {lines:?}"
        );
    }
}

#[test]
fn exec_lock_range_accepts_powers_of_two_from_8_to_8192() {
    let p = program("exec_lock_range", HELLO);
    for r in ["8", "128", "0x2000"] {
        let o = subword(&["alpha", "run", "--lock-range", r, p.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(7), "--lock-range {r}");
    }
}

#[test]
fn exec_demo_alpha_examples_show_sigill_same_memory_lost_store_and_amask() {
    let o = subword(&["demo"]);
    assert_eq!(o.status.code(), Some(0), "{:?}", stderr_lines(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("--cpu ev5 (21164): exit status 132"), "{out}");
    assert!(out.contains("needs BWX, which ev5 lacks"), "{out}");
    assert!(out.contains("--cpu ev56 (21164a): exit status 0"), "{out}");
    assert!(out.contains("8/8 offsets identical."), "{out}");
    assert!(out.contains("CPU 1's 0xbb lost"), "{out}");
    assert!(
        out.contains("ev56   21164a   implver 1  amask(0x1307) = 0x1306  has: BWX"),
        "{out}"
    );
}

#[test]
fn exec_demo_explorer_finds_the_pre_bwx_lost_store_and_nothing_with_stb() {
    let o = subword(&["demo"]);
    assert_eq!(o.status.code(), Some(0), "{:?}", stderr_lines(&o));
    // The tour wraps long lines: compare with runs of whitespace as one space.
    let out = String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let start = out.find("== Alpha 6").expect("explorer section");
    let sec = &out[start..];
    let (racy, clean) = sec.split_at(sec.find("with STB").expect("STB part"));
    assert_eq!(racy.matches("==== lost-store at ").count(), 1, "{racy}");
    assert!(racy.contains("stq_u a1,0(a0)"), "{racy}");
    assert!(racy.contains("<store_byte+0x4> ldq_u"), "{racy}");
    assert!(
        racy.contains("replay: subword alpha explore --cpu ev4 --replay S"),
        "{racy}"
    );
    assert!(clean.contains("on ev56: 100 schedule(s)"), "{clean}");
    assert!(clean.contains(", 0 finding(s)"), "{clean}");
    assert!(!clean.contains("===="), "{clean}");
}
