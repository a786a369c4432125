//! `subword alpha asm` refuses what GNU as refuses, and what GNU as only
//! warns about while producing something other than what was written (an
//! out-of-range shift count gives 0, an out-of-range value is truncated):
//! each case of the corpus goes through `alpha-linux-gnu-as` — which must
//! report an error or a warning, so the corpus is proven meaningful — and
//! through subword, which must exit 2 with one `subword: FILE:LINE: …` line
//! (the line GNU as names, where it names one). Cases both accept must
//! give the same `.data` bytes.

use std::path::Path;
use std::process::Command;

const HEAD: &str = ".text\n.globl _start\n_start:\n\tnop\n";
/// Lines of HEAD before a case's first line.
const HEAD_LINES: usize = 4;

/// (name, body, subword's expected message part, line of the fault in body)
const REFUSED: &[(&str, &str, &str, usize)] = &[
    (
        "self_loop",
        "x = x + 1\n.data\n.quad x\n",
        "symbol definition loop encountered at `x`",
        1,
    ),
    (
        "two_loop",
        "a = b\nb = a\n.data\n.quad a\n",
        "symbol definition loop encountered at `a`",
        1,
    ),
    (
        "three_loop",
        "a = b + 1\nb = c\nc = a\n.data\n.quad a\n",
        "symbol definition loop",
        1,
    ),
    (
        "set_loop",
        ".set q, q * 2\n.data\n.quad q\n",
        "symbol definition loop encountered at `q`",
        1,
    ),
    (
        "shift_70",
        ".data\n.quad 1<<70\n",
        "shift count out of range (70 is not between 0 and 63)",
        2,
    ),
    (
        "shift_64",
        ".data\n.quad 1<<64\n",
        "shift count out of range (64",
        2,
    ),
    (
        "shift_right_64",
        ".data\n.quad 256>>64\n",
        "shift count out of range (64",
        2,
    ),
    (
        "shift_negative",
        ".data\n.quad 1<<-1\n",
        "shift count out of range (-1",
        2,
    ),
    (
        "byte_256",
        ".data\n.byte 256\n",
        "does not fit in 1 bytes",
        2,
    ),
    (
        "long_2_32",
        ".data\n.long 0x100000000\n",
        "does not fit in 4 bytes",
        2,
    ),
];

/// (name, body) that both accept.
const ACCEPTED: &[(&str, &str)] = &[
    ("reassign", "x = 1\nx = x + 1\n.data\n.quad x\n"),
    ("forward", "a = b\nb = 5\n.data\n.quad a\n"),
    ("shift_63", ".data\n.quad 1<<63\n.quad -1>>63\n"),
    (
        "chain",
        "c = 3\nb = c * 2\na = b + 1\n.data\n.quad a, b, c\n",
    ),
];

fn gnu(as_: &Path, dir: &Path, name: &str, src: &str) -> (bool, String, std::path::PathBuf) {
    let s = dir.join(format!("{name}.s"));
    std::fs::write(&s, src).unwrap();
    let o = dir.join(format!("{name}.o"));
    let out = Command::new(as_)
        .arg(&s)
        .arg("-o")
        .arg(&o)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        o,
    )
}

fn data_bytes(objdump: &Path, file: &Path) -> String {
    let o = Command::new(objdump)
        .args(["-s", "-j", ".data"])
        .arg(file)
        .output()
        .unwrap();
    // Keep the hex words only (addresses differ: object vs executable).
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| l.starts_with(' '))
        .map(|l| {
            l.split_whitespace()
                .skip(1)
                .take(4)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn asm_refuses_what_gnu_as_rejects_or_silently_changes() {
    let Some(as_) = testkit::require_tool(
        "asm_gnu_refusals",
        "alpha-linux-gnu-as",
        "binutils-alpha-linux-gnu",
    ) else {
        return;
    };
    let dir = testkit::scratch_dir("asm_gnu_refusals");
    for (name, body, want, line) in REFUSED {
        let src = format!("{HEAD}{body}");
        let (ok, err, _) = gnu(&as_, &dir, name, &src);
        assert!(
            !ok || err.contains("Warning"),
            "{name}: GNU as accepts it silently, so the case proves nothing"
        );
        let file_line = format!("{name}.s:{}:", HEAD_LINES + line);
        // GNU as names the same line, or none (its loop errors).
        let tag = format!("{name}.s:");
        let gnu_line = err.split(&tag).skip(1).find_map(|rest| {
            let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
            n.parse::<usize>().ok()
        });
        assert!(
            gnu_line.is_none_or(|l| l == HEAD_LINES + line),
            "{name}: GNU as names another line: {err}"
        );
        let s = dir.join(format!("{name}.s"));
        let out = Command::new(env!("CARGO_BIN_EXE_subword"))
            .current_dir(&dir)
            .args(["alpha", "asm", &format!("{name}.s"), "-o", "out.elf"])
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {e}");
        assert!(
            e.starts_with(&format!("subword: {file_line} ")) && e.lines().count() == 1,
            "{name}: {e}"
        );
        assert!(e.contains(want), "{name}: {e}");
        assert!(s.exists());
    }
}

#[test]
fn asm_accepts_what_gnu_as_accepts_with_the_same_data() {
    let Some(as_) = testkit::require_tool(
        "asm_gnu_refusals",
        "alpha-linux-gnu-as",
        "binutils-alpha-linux-gnu",
    ) else {
        return;
    };
    let Some(objdump) = testkit::require_tool(
        "asm_gnu_refusals",
        "alpha-linux-gnu-objdump",
        "binutils-alpha-linux-gnu",
    ) else {
        return;
    };
    let dir = testkit::scratch_dir("asm_gnu_accepts");
    for (name, body) in ACCEPTED {
        let src = format!("{HEAD}{body}");
        let (ok, err, obj) = gnu(&as_, &dir, name, &src);
        assert!(ok && err.is_empty(), "{name}: GNU as: {err}");
        let elf = dir.join(format!("{name}.elf"));
        let out = Command::new(env!("CARGO_BIN_EXE_subword"))
            .args(["alpha", "asm"])
            .arg(dir.join(format!("{name}.s")))
            .arg("-o")
            .arg(&elf)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (a, b) = (data_bytes(&objdump, &obj), data_bytes(&objdump, &elf));
        assert!(!a.is_empty(), "{name}: no .data from GNU as");
        assert_eq!(b, a, "{name}: .data differs from GNU as");
    }
}
