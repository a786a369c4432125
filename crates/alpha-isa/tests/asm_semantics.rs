//! The assembler's own choices, checked by executing the emitted sequences
//! with a tiny reference evaluator built on `decode`: constant loads
//! (`ldiq`/`ldil`), PC-relative address loads (`lda $r, label`), local
//! labels, layout, `.comm`, and one-line `file:line: message` errors.

use alpha_isa::asm::assemble_at;
use alpha_isa::{assemble, assemble_words, decode, Op};

/// Run straight-line lda/ldah/sll/br code at `base`; return the registers.
fn run(words: &[u32], base: u64) -> [u64; 32] {
    let mut r = [0u64; 32];
    for (i, &w) in words.iter().enumerate() {
        let pc = base + 4 * i as u64;
        let d = decode(w);
        let rb = r[d.rb as usize];
        let v = match d.op {
            Op::Lda => rb.wrapping_add(d.disp as i64 as u64),
            Op::Ldah => rb.wrapping_add(((d.disp as i64) << 16) as u64),
            Op::Sll => r[d.ra as usize] << d.lit.expect("literal shift"),
            Op::Br => pc + 4,
            other => panic!("unexpected {other:?}"),
        };
        let dst = if d.op == Op::Sll { d.rc } else { d.ra };
        if dst != 31 {
            r[dst as usize] = v;
        }
    }
    r
}

#[test]
fn asm_ldiq_loads_every_constant_exactly_in_few_instructions() {
    let mut vals: Vec<i64> = vec![
        0,
        1,
        -1,
        0x7fff,
        -0x8000,
        0x8000,
        0xffff,
        0x7fff_8000,
        0x7fff_ffff,
        -0x8000_0000,
        0x8000_0000,
        0xffff_ffff,
        0x1_2000_0000,
        i64::MAX,
        i64::MIN,
        0x7fff_ffff_8000_0000,
        0x7fff_8000_7fff_8000,
        -0x7fff_8000_0000_0001,
    ];
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..3000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        vals.push(x as i64);
        vals.push((x as i64) >> (x % 63));
    }
    for v in vals {
        let ws = assemble_words(&format!("ldiq $5, {v}"), 0).unwrap();
        assert!(ws.len() <= 7, "{v:#x}: {} instructions", ws.len());
        if v == v as i16 as i64 {
            assert_eq!(ws.len(), 1, "{v:#x}");
        }
        assert_eq!(run(&ws, 0)[5], v as u64, "ldiq {v:#x}: {ws:x?}");
    }
    let ws = assemble_words("ldil $3, 0x7fffffff", 0).unwrap();
    assert_eq!(run(&ws, 0)[3], 0x7fff_ffff);
}

#[test]
fn asm_lda_label_is_a_pc_relative_address_load() {
    let src = "\t.text\n_start:\tnop\n\tlda $4, buf\n\tlda $6, buf+12\n\tlda $7, 100\n\t.data\n\t.quad 0\nbuf:\t.space 16\n";
    let p = assemble(src, "t.s").unwrap();
    let words = p.text_words();
    assert_eq!(
        words.len(),
        1 + 3 + 3 + 1,
        "lda label expands to br/ldah/lda; lda CONST stays one insn"
    );
    let r = run(&words[1..], p.text_addr + 4);
    let buf = p.data_addr + 8;
    assert_eq!(r[4], buf);
    assert_eq!(r[6], buf + 12);
    assert_eq!(r[7], 100);
    assert_eq!(p.symbols.iter().find(|s| s.0 == "buf").unwrap().1, buf);
}

#[test]
fn asm_layout_matches_a_static_gnu_ld_executable() {
    let p = assemble(
        "\t.text\n_start:\tnop\n\t.data\nd:\t.byte 1\n\t.comm blk, 24, 16\n",
        "t.s",
    )
    .unwrap();
    assert_eq!(p.text_addr, 0x1_2000_0100);
    assert_eq!(p.entry, p.text_addr);
    assert_eq!(p.data_addr % 0x2000, 0);
    assert!(p.data_addr > p.text_addr);
    let blk = p.symbols.iter().find(|s| s.0 == "blk").unwrap().1;
    assert_eq!(blk, p.data_addr + 16);
    assert_eq!(p.data.len(), 16 + 24);
    let elf = p.to_elf();
    assert_eq!(&elf[..4], b"\x7fELF");
    assert_eq!(u16::from_le_bytes([elf[18], elf[19]]), 0x9026);
    let code = alpha_isa::elf::read_code(&elf).unwrap();
    assert_eq!((code[0].addr, code[0].bytes.len()), (p.text_addr, 4));
}

#[test]
fn asm_local_labels_resolve_backward_and_forward() {
    let src = "1:\tbr 1f\n1:\tbr 1b\n\tbr 1b\n1:\tnop\n";
    let ws = assemble_words(src, 0x1000).unwrap();
    let disp = |w: u32| ((w << 11) as i32 >> 11) as i64;
    assert_eq!(disp(ws[0]), 0); // to 0x1004
    assert_eq!(disp(ws[1]), -1); // to itself
    assert_eq!(disp(ws[2]), -2); // to 0x1004
}

#[test]
fn asm_errors_name_file_and_line() {
    let e = assemble("\t.text\n_start:\n\tbr nowhere\n", "prog.s").unwrap_err();
    assert_eq!(e.to_string(), "prog.s:3: undefined symbol `nowhere`");
    let e = assemble("_start:\nx:\nx:\n", "d.s").unwrap_err();
    assert_eq!((e.line, e.message.as_str()), (3, "label `x` defined twice"));
    let e = assemble("\tnop\n", "n.s").unwrap_err();
    assert!(e.message.contains("_start"));
    let e = assemble("_start:\taddq $1, 256, $2\n", "l.s").unwrap_err();
    assert!(e.message.contains("out of range"), "{e}");
    let e = assemble("_start:\tldq $1, 40000($2)\n", "m.s").unwrap_err();
    assert!(e.message.contains("displacement"), "{e}");
    let e = assemble("_start:\tfrobnicate $1\n", "u.s").unwrap_err();
    assert_eq!(e.to_string(), "u.s:1: unknown instruction `frobnicate`");
    assert!(assemble_at("\t.data\n\taddq $1,$2,$3\n", "s.s", 0, None).is_err());
}

#[test]
fn asm_constant_defined_later_still_loads_exactly() {
    // A second first pass sees `big`; the sizes of both passes must agree
    // (the assembler checks, and reports a line if they ever do not).
    let p = assemble(
        "_start:\tldiq $1, big\n1:\tbr 1b\nbig = 0x123456789\n",
        "f.s",
    )
    .unwrap();
    let words = p.text_words();
    let n = words.len() - 1;
    assert_eq!(run(&words[..n], p.text_addr)[1], 0x1_2345_6789);
    assert_eq!(words[n], 0xc3ff_ffff, "br 1b still branches to itself");
}

#[test]
fn asm_label_before_auto_aligned_data_moves_to_the_aligned_address() {
    // GNU as for Alpha auto-aligns `.quad` to 8 bytes and moves the label
    // defined just before it (on its line or alone on the line before), so
    // `counter` names the quadword itself, not the padding in front of it.
    let src = "
        .text
        .globl _start
_start: ret
        .data
msg:    .ascii \"abc\"
counter: .quad 0x1122334455667788
        .byte 1
word_alone:
        .long 7
2:      .word 9
";
    let p = alpha_isa::assemble(src, "t.s").expect("assemble");
    let sym = |n: &str| {
        p.symbols
            .iter()
            .find(|(s, _)| s == n)
            .map(|(_, a)| *a)
            .unwrap()
    };
    let at = |a: u64| (a - p.data_addr) as usize;
    assert_eq!(sym("msg"), p.data_addr);
    assert_eq!(sym("counter"), p.data_addr + 8);
    assert_eq!(
        p.data[at(sym("counter"))..at(sym("counter")) + 8],
        0x1122334455667788u64.to_le_bytes()
    );
    assert_eq!(sym("word_alone"), p.data_addr + 20);
    assert_eq!(p.data[at(sym("word_alone"))], 7);
}
