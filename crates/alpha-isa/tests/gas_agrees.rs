//! Differential evidence against GNU as: the corpus in `tests/corpus/*.s`
//! (hand-written: byte-access sequences, operand forms, directives) and a
//! corpus generated from the table (every printable row and qualifier
//! variant, twice) are assembled by `alpha-linux-gnu-as -mev67` and by
//! subword; the `.text` bytes must be identical.

mod common;

use alpha_isa::asm::assemble_at;
use alpha_isa::disasm;
use alpha_isa::disasm::REG_NAMES;
use alpha_isa::table::Operand;
use common::{example, printable_rows, Rng};
use std::path::Path;
use std::process::Command;

/// Rewrite objdump's register names (`t0`, `sp`) as GNU as numbers (`$1`).
fn gas_regs(operands: &str) -> String {
    let mut out = String::new();
    let b: Vec<char> = operands.chars().collect();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphabetic()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == '$' || b[i - 1] == '.'))
        {
            let st = i;
            while i < b.len() && b[i].is_ascii_alphanumeric() {
                i += 1;
            }
            let tok: String = b[st..i].iter().collect();
            match REG_NAMES.iter().position(|r| *r == tok) {
                Some(n) => out.push_str(&format!("${n}")),
                None => out.push_str(&tok),
            }
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

fn generated_corpus() -> String {
    let mut rng = Rng(0x6a5a_6a5a);
    let mut lines = Vec::new();
    for (_, row) in printable_rows() {
        for (_, bits) in row.variants() {
            for _ in 0..2 {
                let pos = lines.len() as i64;
                let mut w = example(&mut rng, row, bits, 0);
                let text = disasm(4 * pos as u64, w);
                if text.starts_with(".long") {
                    continue;
                }
                let (m, ops) = text.split_once('\t').unwrap_or((&text, ""));
                let mut ops = gas_regs(ops);
                let target = row
                    .syntax
                    .iter()
                    .any(|o| matches!(o, Operand::Bdisp | Operand::JmpHint));
                if target && !ops.is_empty() && lines.len() > 2 {
                    // Point the branch or hint at a line two back, by label.
                    let disp = -3i32;
                    w = if row.syntax.contains(&Operand::Bdisp) {
                        (w & !0x1f_ffff) | (disp as u32 & 0x1f_ffff)
                    } else {
                        (w & !0x3fff) | (disp as u32 & 0x3fff)
                    };
                    let _ = w;
                    let mut parts: Vec<&str> = ops.rsplitn(2, ',').collect();
                    parts.reverse();
                    let label = format!(".L{}", pos - 2);
                    ops = if parts.len() == 2 {
                        format!("{},{label}", parts[0])
                    } else {
                        label
                    };
                } else if target {
                    continue;
                }
                lines.push(format!(".L{pos}:\t{m}\t{ops}"));
            }
        }
    }
    let mut s = String::from("\t.set noat\n\t.text\n");
    for l in lines {
        s.push_str(&l);
        s.push('\n');
    }
    s
}

/// GNU as's `.text` bytes for `src`, or an error text.
fn gas_text(dir: &Path, name: &str, src: &str) -> Result<Vec<u8>, String> {
    let s = dir.join(format!("{name}.s"));
    let o = dir.join(format!("{name}.o"));
    let bin = dir.join(format!("{name}.bin"));
    std::fs::write(&s, src).unwrap();
    let r = Command::new("alpha-linux-gnu-as")
        .arg("-mev67")
        .arg("-o")
        .arg(&o)
        .arg(&s)
        .output()
        .unwrap();
    if !r.status.success() {
        return Err(String::from_utf8_lossy(&r.stderr).into_owned());
    }
    let r = Command::new("alpha-linux-gnu-objdump")
        .arg("-r")
        .arg("-j")
        .arg(".text")
        .arg(&o)
        .output()
        .unwrap();
    let relocs = String::from_utf8_lossy(&r.stdout);
    if relocs.lines().any(|l| l.contains("R_ALPHA")) {
        return Err(format!("GNU as left relocations in .text:\n{relocs}"));
    }
    let r = Command::new("alpha-linux-gnu-objcopy")
        .args(["-O", "binary", "-j", ".text"])
        .arg(&o)
        .arg(&bin)
        .output()
        .unwrap();
    if !r.status.success() {
        return Err(String::from_utf8_lossy(&r.stderr).into_owned());
    }
    Ok(std::fs::read(&bin).unwrap())
}

fn compare(dir: &Path, name: &str, src: &str) -> Result<usize, String> {
    let theirs = gas_text(dir, name, src)?;
    let ours = assemble_at(src, name, 0, Some(0x100_0000))
        .map_err(|e| e.to_string())?
        .text;
    // GNU as pads the end of .text to 16 bytes with nop/unop.
    if theirs.len() < ours.len() || theirs[..ours.len()] != ours[..] {
        let mut first = None;
        for i in (0..ours.len().min(theirs.len())).step_by(4) {
            if ours[i..i + 4] != theirs[i..i + 4] {
                first = Some(i);
                break;
            }
        }
        let at = first.unwrap_or(ours.len().min(theirs.len()));
        let word = |b: &[u8]| {
            b.get(at..at + 4)
                .map(|x| u32::from_le_bytes([x[0], x[1], x[2], x[3]]))
        };
        let line = src.lines().filter(|l| !l.trim().is_empty()).count();
        return Err(format!(
            "{name}: .text differs at offset {at:#x}: GNU as {:x?} ({}), subword {:x?} ({}); sizes {} vs {} ({line} lines)",
            word(&theirs),
            word(&theirs).map(|w| disasm(at as u64, w)).unwrap_or_default(),
            word(&ours),
            word(&ours).map(|w| disasm(at as u64, w)).unwrap_or_default(),
            theirs.len(),
            ours.len()
        ));
    }
    let tail = &theirs[ours.len()..];
    let fill_ok = tail.len() < 16
        && tail
            .chunks(4)
            .all(|c| c == 0x47ff_041fu32.to_le_bytes() || c == 0x2ffe_0000u32.to_le_bytes());
    if !fill_ok {
        return Err(format!(
            "{name}: GNU as has {} more bytes than subword",
            tail.len()
        ));
    }
    Ok(ours.len() / 4)
}

#[test]
fn gas_agrees_on_corpus_and_every_table_row() {
    if testkit::require_tool(
        "gas_agrees",
        "alpha-linux-gnu-as",
        "binutils-alpha-linux-gnu",
    )
    .is_none()
        || testkit::require_tool(
            "gas_agrees",
            "alpha-linux-gnu-objcopy",
            "binutils-alpha-linux-gnu",
        )
        .is_none()
    {
        return;
    }
    let dir = testkit::scratch_dir("gas_agrees");
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<_> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut errors = Vec::new();
    let mut words = 0;
    for f in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "s"))
    {
        let name = f.file_stem().unwrap().to_string_lossy().into_owned();
        match compare(&dir, &name, &std::fs::read_to_string(f).unwrap()) {
            Ok(n) => words += n,
            Err(e) => errors.push(e),
        }
    }
    assert!(files.len() >= 2, "corpus is missing");
    match compare(&dir, "table_rows", &generated_corpus()) {
        Ok(n) => words += n,
        Err(e) => errors.push(e),
    }
    testkit::say(&format!(
        "gas agreement: {words} words, {} mismatching file(s)",
        errors.len()
    ));
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}
