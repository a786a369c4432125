//! `subword alpha asm`, `alpha disasm` and `alpha scan` end to end, plus the
//! contract's rules every command shares: usage errors are one line with
//! exit 2, commands not built yet say so with exit 2, and a closed stdout
//! pipe ends subword quietly instead of panicking.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
mod common;
use common::{one_stderr_line, subword};

/// Linux's SIGPIPE.
const SIGPIPE: i32 = 13;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A byte store as a pre-BWX compiler writes it: LDQ_U, INSBL, MSKBL, BIS, STQ_U.
const PRE_BWX_STORE: &str = "
    .text
    .globl _start
_start:
    lda   $16, buf
    lda   $17, 0x5a($31)
    ldq_u $1, 0($16)
    insbl $17, $16, $3
    mskbl $1, $16, $1
    bis   $1, $3, $1
    stq_u $1, 0($16)
    lda   $16, 0($31)
    lda   $0, 1($31)
    call_pal 0x83
    .data
buf: .quad 0
";

/// The same store with BWX: one STB.
const BWX_STORE: &str = "
    .text
    .globl _start
_start:
    lda   $16, buf
    lda   $17, 0x5a($31)
    stb   $17, 0($16)
    lda   $16, 0($31)
    lda   $0, 1($31)
    call_pal 0x83
    .data
buf: .quad 0
";

#[test]
fn exec_asm_then_disasm_lists_the_assembled_instructions() {
    let dir = testkit::scratch_dir("cli_asm_disasm");
    let src = write(&dir, "bwx.s", BWX_STORE);
    let out = dir.join("bwx");
    let o = subword(&[
        "alpha",
        "asm",
        src.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = subword(&["alpha", "disasm", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let listing = String::from_utf8_lossy(&o.stdout);
    // ADDR:\tWORD\tMNEMONIC\tOPERANDS, as the contract spells it.
    let stb: Vec<&str> = listing.lines().filter(|l| l.contains("\tstb\t")).collect();
    assert_eq!(stb.len(), 1, "{listing}");
    let fields: Vec<&str> = stb[0].split('\t').collect();
    assert_eq!(fields.len(), 4, "{stb:?}");
    assert!(fields[0].ends_with(':'));
    assert_eq!(fields[1].len(), 8);
    assert_eq!(fields[3], "a1,0(a0)");
    // The guest runs and exits 0.
    let o = subword(&["alpha", "run", "--cpu", "ev56", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn exec_disasm_raw_prints_undecodable_words_as_long() {
    let dir = testkit::scratch_dir("cli_disasm_raw");
    let raw = dir.join("words.bin");
    // 0x47ff041f is `nop` (bis zero,zero,zero); opcode 0x01 is unassigned.
    let words: [u32; 2] = [0x47ff041f, 0x0400_0000];
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&raw, bytes).unwrap();
    let o = subword(&[
        "alpha",
        "disasm",
        "--raw",
        "--base",
        "0x1000",
        raw.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    assert_eq!(
        lines,
        ["1000:\t47ff041f\tnop", "1004:\t04000000\t.long 0x4000000"]
    );
}

#[test]
fn fault_asm_error_names_file_and_line_with_exit_2() {
    let dir = testkit::scratch_dir("cli_asm_error");
    let src = write(
        &dir,
        "bad.s",
        ".text\n_start:\n    addq $1, $2\n    frobnicate $1\n",
    );
    let out = dir.join("bad");
    let o = subword(&[
        "alpha",
        "asm",
        src.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let line = one_stderr_line(&o);
    assert!(
        line.contains("bad.s:3:") || line.contains("bad.s:4:"),
        "{line}"
    );
    assert!(!out.exists(), "no output on error");
}

#[test]
fn exec_scan_finds_the_pre_bwx_store_and_exits_1_but_not_in_bwx_code() {
    let dir = testkit::scratch_dir("cli_scan");
    let mut built = Vec::new();
    for (name, src) in [("prebwx", PRE_BWX_STORE), ("bwx", BWX_STORE)] {
        let s = write(&dir, &format!("{name}.s"), src);
        let out = dir.join(name);
        let o = subword(&[
            "alpha",
            "asm",
            s.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0));
        built.push(out);
    }
    let o = subword(&["alpha", "scan", "--json", built[0].to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a non-atomic byte store is a finding"
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("scan --json is JSON");
    let stores = v["sub_quadword_stores"].as_array().expect("stores");
    assert_eq!(stores.len(), 1, "{v}");
    assert_eq!(stores[0]["width"], "byte");
    assert!(
        v["needs"].as_array().unwrap().is_empty(),
        "no BWX in pre-BWX code: {v}"
    );
    // The same store is the one site a lost-store finding can come from;
    // assembled without DWARF, it has no line.
    let sites = v["sites"].as_array().expect("sites");
    assert_eq!(sites.len(), 1, "{v}");
    assert_eq!(sites[0]["pc"], stores[0]["store"]);
    assert_eq!(sites[0]["load_pc"], stores[0]["load"]);
    assert_eq!(sites[0]["width"], "byte");
    assert!(
        sites[0]["line"].is_null() && stores[0]["line"].is_null(),
        "{v}"
    );

    let o = subword(&["alpha", "scan", "--json", built[1].to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "STB is atomic: nothing found");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["needs"], serde_json::json!(["BWX"]));
    assert!(v["sub_quadword_stores"].as_array().unwrap().is_empty());
}

#[test]
fn fault_usage_errors_and_unbuilt_commands_are_one_line_exit_2() {
    for args in [
        vec!["alpha", "frobnicate"],
        vec!["alpha", "run"],
        vec!["alpha", "run", "--max-insns", "12x", "prog"],
        vec!["pto", "run", "--bogus", "x.toml"],
        vec!["alpha", "explore", "prog"],
        vec!["alpha", "io", "decode", "--chipset", "vax", "0x8580000000"],
        vec!["alpha", "machine", "--chipset", "cia", "image"],
    ] {
        let o = subword(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        one_stderr_line(&o);
    }
}

#[test]
fn exec_closed_stdout_pipe_ends_quietly_without_panic() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_subword"))
        .arg("demo")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Read one byte, then close the pipe as `| head -c1` would.
    let mut out = child.stdout.take().unwrap();
    let mut b = [0u8; 1];
    out.read_exact(&mut b).unwrap();
    drop(out);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(!err.contains("panicked"), "{err}");
    // Either it finished before noticing, or it saw EPIPE (subword ignores
    // SIGPIPE) and ended with 141, the status a shell shows for SIGPIPE.
    assert!(
        status.success() || status.code() == Some(128 + SIGPIPE),
        "{status:?}"
    );
}

/// `alpha bench` runs every embedded loop interpreted and compiled and
/// prints a rate for each (the rates themselves are not judged here).
#[test]
fn exec_alpha_bench_reports_both_tiers_for_every_loop() {
    let o = subword(&["alpha", "bench", "--insns", "200000"]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    for name in [
        "int-alu",
        "mem-quad",
        "byte-copy",
        "byte-copy-prebwx",
        "overall",
    ] {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no {name} line in\n{text}"));
        let rates: Vec<f64> = line
            .split_whitespace()
            .skip(1)
            .take(2)
            .map(|w| w.parse().unwrap_or_else(|_| panic!("{line}")))
            .collect();
        assert!(rates.iter().all(|&r| r > 0.0), "{line}");
    }
    let o = subword(&["alpha", "bench", "--cpu", "ev5", "--insns", "1000"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.lines()
            .any(|l| l.contains("byte-copy") && l.contains("ev5 lacks")),
        "{text}"
    );
}

/// The line of `tests/c/explore/NAME.c` holding `text` (1-based).
fn explore_source_line(name: &str, text: &str) -> usize {
    let src =
        std::fs::read_to_string(testkit::explore_source_dir().join(format!("{name}.c"))).unwrap();
    src.lines()
        .position(|l| l.contains(text))
        .expect("line in source")
        + 1
}

#[test]
fn exec_scan_names_each_store_site_by_symbol_and_source_line_and_lists_the_sites() {
    let Some(ev4) = testkit::explore_program("cli_scan_sites", "adjacent_chars", "ev4") else {
        return;
    };
    let ev56 = testkit::explore_program("cli_scan_sites", "adjacent_chars", "ev56").unwrap();
    let la = explore_source_line("adjacent_chars", "*p = (unsigned char)i;");
    let lb = explore_source_line("adjacent_chars", "*p = (unsigned char)(i + 1);");
    let o = subword(&["alpha", "scan", ev4.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    for (func, line) in [("writer_a", la), ("writer_b", lb)] {
        let l = text
            .lines()
            .find(|l| l.contains(&format!("<{func}+0x")))
            .unwrap_or_else(|| panic!("no {func} site:\n{text}"));
        assert!(l.contains("unaligned-quadword byte store"), "{l}");
        assert!(l.contains(&format!("adjacent_chars.c:{line})")), "{l}");
    }
    let o = subword(&["alpha", "scan", "--json", ev4.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let sites = v["sites"].as_array().unwrap();
    assert_eq!(
        sites.len(),
        v["sub_quadword_stores"].as_array().unwrap().len()
    );
    for (func, line) in [("writer_a", la), ("writer_b", lb)] {
        let mine: Vec<_> = sites
            .iter()
            .filter(|s| {
                s["symbol"]
                    .as_str()
                    .unwrap_or("")
                    .starts_with(&format!("{func}+"))
            })
            .collect();
        assert_eq!(mine.len(), 1, "{func}: {mine:?}");
        let s = mine[0];
        assert_eq!(s["shape"], "unaligned-quadword");
        assert_eq!(s["width"], "byte");
        assert!(
            s["line"]
                .as_str()
                .unwrap()
                .ends_with(&format!("adjacent_chars.c:{line}")),
            "{s}"
        );
        let pc =
            u64::from_str_radix(s["pc"].as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
        let load = u64::from_str_radix(s["load_pc"].as_str().unwrap().trim_start_matches("0x"), 16)
            .unwrap();
        assert!(load < pc && pc - load < 4 * 24, "{s}");
    }
    // With BWX the writers store with STB: no site of theirs remains.
    let o = subword(&["alpha", "scan", "--json", ev56.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        !v["sites"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["symbol"].as_str().unwrap_or("").starts_with("writer_")),
        "{v}"
    );
    // The block copy's LDQ/ZAPNOT/BIS/STQ merge is a site with BWX too.
    let bc = testkit::explore_program("cli_scan_sites", "block_copy", "ev56").unwrap();
    let o = subword(&["alpha", "scan", "--json", bc.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let copy: Vec<_> = v["sites"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["symbol"].as_str().unwrap_or("").starts_with("copy_name+"))
        .collect();
    assert_eq!(copy.len(), 1, "{v}");
    assert_eq!(
        (copy[0]["shape"].as_str(), copy[0]["width"].as_str()),
        (Some("aligned-quadword"), Some("partial"))
    );
}
