//! Robustness: random words never make decode or disasm panic; random or
//! corrupted bytes never make the ELF reader or the assembler panic.

use alpha_isa::elf::read_code;
use alpha_isa::{assemble, decode, disasm};
use proptest::prelude::*;

/// Pieces of assembly, glued at random: directives, macros, edge numbers,
/// operators and punctuation.
const TOKENS: &[&str] = &[
    "\n",
    " ",
    ",",
    ":",
    "(",
    ")",
    "\"",
    "'",
    "=",
    ".",
    "+",
    "-",
    "*",
    "/",
    "%",
    "<<",
    ">>",
    "~",
    "|",
    "&",
    "^",
    "_start",
    "x",
    "1",
    "1b",
    "1f",
    "0",
    "0x7fffffffffffffff",
    "-9223372036854775808",
    "65536",
    "255",
    "256",
    "$1",
    "$31",
    "$f2",
    "$sp",
    "t0",
    "zero",
    ".text",
    ".data",
    ".align",
    ".p2align",
    ".balign",
    ".space",
    ".quad",
    ".long",
    ".word",
    ".byte",
    ".ascii",
    ".asciz",
    ".double",
    ".comm",
    ".set",
    "noat",
    ".equ",
    "lda",
    "ldah",
    "ldiq",
    "ldil",
    "ldq",
    "stb",
    "jsr",
    "jmp",
    "br",
    "bsr",
    "beq",
    "ret",
    "addq",
    "mov",
    "nop",
    "unop",
    "call_pal",
    "adds/sud",
    "cvttq/svic",
    "mt_fpcr",
    "fetch",
    "\\",
    "#",
    "/*",
    "*/",
    ";",
];

fn hello_elf() -> Vec<u8> {
    let src = "\t.text\n_start:\n\tlda $0, 1\n\tcallsys\n\t.data\nx:\t.quad 1\n";
    assemble(src, "t.s").unwrap().to_elf()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn fuzz_decode_and_disasm_never_panic(w in any::<u32>(), addr in any::<u64>()) {
        let i = decode(w);
        let text = disasm(addr, w);
        prop_assert!(!text.is_empty());
        // An illegal word always lists as `.long`.
        let long = format!(".long {:#x}", w);
        prop_assert!(i.op != alpha_isa::Op::Illegal || text == long);
    }

    #[test]
    fn fuzz_elf_reader_rejects_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        prop_assert!(read_code(&bytes).is_err());
    }

    #[test]
    fn fuzz_elf_reader_never_panics_on_corrupted_files(at in 0usize..400, v in any::<u8>(), cut in 0usize..2000) {
        let mut e = hello_elf();
        let at = at % e.len();
        e[at] = v;
        e.truncate(cut.max(1));
        let _ = read_code(&e);
    }

    #[test]
    fn fuzz_assembler_never_panics_on_token_soup(toks in proptest::collection::vec(proptest::sample::select(TOKENS.to_vec()), 0..40)) {
        let src: String = toks.concat();
        let _ = assemble(&src, "soup.s");
        let _ = alpha_isa::assemble_words(&src, u64::MAX - 8);
    }

    #[test]
    fn fuzz_assembler_never_panics(s in "[a-z$0-9,()._: \\n/-]{0,80}") {
        let _ = assemble(&s, "fuzz.s");
    }
}

#[test]
fn elf_reader_names_what_is_wrong() {
    let good = hello_elf();
    let code = read_code(&good).unwrap();
    assert_eq!(code.len(), 1);
    assert_eq!(code[0].name, ".text");
    assert_eq!(code[0].bytes.len(), 8);
    let mut class32 = good.clone();
    class32[4] = 1;
    assert!(read_code(&class32).unwrap_err().0.contains("ELF64"));
    let mut x86 = good.clone();
    x86[18] = 0x3e;
    x86[19] = 0;
    assert!(read_code(&x86).unwrap_err().0.contains("not Alpha"));
    assert!(read_code(b"#!/bin/sh\n").unwrap_err().0.contains("magic"));
    assert!(read_code(&good[..100]).is_err());
}

/// Found by `fuzz_asm_source` (docs/fuzzing.md): a character constant is
/// one byte, as GNU as reads it, so `'é` leaves the rest of `é` as junk;
/// quoting that junk sliced the line inside the character and panicked.
#[test]
fn a_character_constant_before_a_multibyte_character_is_an_error_not_a_panic() {
    for src in ["\t.quad 'é\n", "\t.long '€'\n", "\tlda $1, 'ü($2)\n"] {
        let e = assemble(src, "t.s").unwrap_err().to_string();
        assert!(e.contains("junk"), "{src:?}: {e}");
    }
}
