//! Differential evidence on real compiler output: a static C program built
//! by `alpha-linux-gnu-gcc` (glibc included, ~100k instructions) listed by
//! `alpha-linux-gnu-objdump -d -z` and by subword's ELF reader +
//! symbolised disassembler; every instruction line must agree, branch
//! targets' `<symbol+offset>` included.

use alpha_isa::elf::{read_code, read_symbols};
use alpha_isa::symbols::Symbols;
use alpha_isa::{assemble, disasm_with};
use std::collections::HashMap;
use std::process::Command;

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// objdump's instruction lines: address → "mnemonic operands".
fn objdump_lines(objdump: &std::path::Path, file: &std::path::Path) -> HashMap<u64, String> {
    let out = Command::new(objdump)
        .args(["-d", "-z"])
        .arg(file)
        .output()
        .expect("run objdump");
    assert!(out.status.success());
    let mut m = HashMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let mut parts = line.splitn(3, '\t');
        let (Some(a), Some(_), Some(rest)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        if let Some(Ok(addr)) = a
            .trim()
            .strip_suffix(':')
            .map(|x| u64::from_str_radix(x, 16))
        {
            m.insert(addr, norm(rest));
        }
    }
    m
}

fn compare(objdump: &std::path::Path, file: &std::path::Path) -> (usize, Vec<String>) {
    let data = std::fs::read(file).unwrap();
    let theirs = objdump_lines(objdump, file);
    let all = read_symbols(&data).unwrap();
    let mut n = 0;
    let mut bad = Vec::new();
    for s in read_code(&data).unwrap() {
        let syms = Symbols::for_section(&all, &s.name);
        for (i, c) in s.bytes.chunks_exact(4).enumerate() {
            let a = s.addr + 4 * i as u64;
            let w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            let ours = norm(&disasm_with(a, w, Some(&syms)));
            n += 1;
            match theirs.get(&a) {
                Some(t) if *t == ours => {}
                t => bad.push(format!(
                    "{a:x} {w:08x}: objdump `{}` subword `{ours}`",
                    t.map_or("<missing>", |s| s)
                )),
            }
        }
    }
    assert_eq!(
        theirs.len(),
        n,
        "objdump listed {} instructions, subword {n}",
        theirs.len()
    );
    (n, bad)
}

#[test]
fn objdump_elf_agrees_on_a_static_glibc_program() {
    let Some(objdump) = testkit::require_tool(
        "objdump_elf_agrees",
        "alpha-linux-gnu-objdump",
        "binutils-alpha-linux-gnu",
    ) else {
        return;
    };
    let Some(gcc) = testkit::require_tool(
        "objdump_elf_agrees",
        "alpha-linux-gnu-gcc",
        "gcc-alpha-linux-gnu",
    ) else {
        return;
    };
    let dir = testkit::scratch_dir("objdump_elf_agrees");
    let c = dir.join("p.c");
    std::fs::write(&c, "#include <stdio.h>\nint main(int c, char **v) { printf(\"%d %s\\n\", c, v[0]); return c & 3; }\n").unwrap();
    let exe = dir.join("p");
    let st = Command::new(gcc)
        .args(["-O2", "-static", "-o"])
        .arg(&exe)
        .arg(&c)
        .status()
        .unwrap();
    assert!(st.success(), "gcc failed");
    let (n, bad) = compare(&objdump, &exe);
    testkit::say(&format!(
        "objdump -d agreement on static glibc program: {}/{n} instructions",
        n - bad.len()
    ));
    for b in bad.iter().take(30) {
        testkit::say(b);
    }
    assert!(bad.is_empty(), "{} lines disagree", bad.len());
}

#[test]
fn objdump_elf_agrees_on_subword_assembled_executable() {
    let Some(objdump) = testkit::require_tool(
        "objdump_elf_agrees",
        "alpha-linux-gnu-objdump",
        "binutils-alpha-linux-gnu",
    ) else {
        return;
    };
    let src = "\t.text\n_start:\n\tbsr $26, f\n\tlda $1, msg\n1:\tbr 1b\nf:\tret\n\t.data\nmsg:\t.asciz \"hi\"\n";
    let dir = testkit::scratch_dir("objdump_elf_agrees_own");
    let exe = dir.join("own");
    std::fs::write(&exe, assemble(src, "own.s").unwrap().to_elf()).unwrap();
    let (n, bad) = compare(&objdump, &exe);
    assert_eq!(n, 6);
    assert!(bad.is_empty(), "{bad:#?}");
}
