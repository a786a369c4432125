//! Decode closure (after Spike's check-opcode-overlap): no two instruction
//! rows claim the same word; every row has a positive example that decodes
//! (and, unless reviewed as shadowed, disassembles) to it; every word no row
//! claims decodes to `Op::Illegal` and lists as `.long`.

mod common;

use alpha_isa::decode;
use alpha_isa::disasm::lookup;
use alpha_isa::table::{Kind, ROWS};
use alpha_isa::{disasm, Op};
use common::{example, printable_rows, Rng};
use std::collections::{HashMap, HashSet};

/// Instruction rows objdump never prints because an alias row with the
/// same encoding and no constraints comes first (binutils order):
/// `bis` is printed `or`/`mov`/`nop`/`clr`, `bic` is printed `andnot`,
/// `jsr_coroutine` is printed `jcr`.
const SHADOWED: &[&str] = &["bis", "bic", "jsr_coroutine"];

/// Pairs of instruction rows allowed to overlap. Reviewed: none.
const OVERLAP_OK: &[(&str, &str)] = &[];

#[test]
fn decode_closure_no_two_instruction_rows_overlap() {
    let mut encs = Vec::new();
    for r in ROWS.iter().filter(|r| r.kind == Kind::Insn) {
        for (suffix, bits) in r.variants() {
            encs.push((
                format!("{}{suffix}", r.mnemonic),
                r.mnemonic,
                bits,
                r.mask(),
            ));
        }
    }
    let mut overlaps = Vec::new();
    for (i, a) in encs.iter().enumerate() {
        for b in &encs[i + 1..] {
            if (a.2 ^ b.2) & a.3 & b.3 == 0 && !OVERLAP_OK.contains(&(a.1, b.1)) {
                overlaps.push(format!("{} overlaps {}", a.0, b.0));
            }
        }
    }
    assert!(overlaps.is_empty(), "{overlaps:?}");
    assert!(
        OVERLAP_OK.is_empty(),
        "the reviewed overlap list must only hold pairs that overlap"
    );
}

#[test]
fn decode_closure_every_op_has_exactly_one_instruction_row() {
    let mut seen: HashMap<Op, &str> = HashMap::new();
    for r in ROWS.iter().filter(|r| r.kind == Kind::Insn) {
        if let Some(prev) = seen.insert(r.op, r.mnemonic) {
            panic!(
                "{:?} has two instruction rows: {prev} and {}",
                r.op, r.mnemonic
            );
        }
    }
    // Every Op variant but Illegal (they are numbered 0..=Pal1f).
    assert_eq!(seen.len(), Op::Pal1f as usize);
    assert!(!seen.contains_key(&Op::Illegal));
    for r in ROWS {
        assert!(
            seen.contains_key(&r.op),
            "alias {} names an op without an instruction row",
            r.mnemonic
        );
    }
}

#[test]
fn decode_closure_every_row_has_a_positive_example() {
    let mut rng = Rng(7);
    let mut shadow_used = HashSet::new();
    for (i, row) in printable_rows() {
        for (suffix, bits) in row.variants() {
            // Random fields can fall into an earlier alias (`ldq_u` to R31
            // is `unop`): try a few examples, keep one this row lists.
            let mut w = example(&mut rng, row, bits, 100);
            for _ in 0..64 {
                if lookup(w).is_some_and(|(r, _)| std::ptr::eq(r, &ROWS[i])) {
                    break;
                }
                w = example(&mut rng, row, bits, 100);
            }
            let d = decode(w);
            assert_eq!(
                d.op, row.op,
                "{}{suffix} example {w:#010x} decodes to {:?}",
                row.mnemonic, d.op
            );
            let (shown, shown_suffix) = lookup(w)
                .unwrap_or_else(|| panic!("{}{suffix}: {w:#010x} lists as .long", row.mnemonic));
            if std::ptr::eq(shown, &ROWS[i]) {
                assert_eq!(shown_suffix, suffix);
            } else if SHADOWED.contains(&row.mnemonic) && row.kind == Kind::Insn {
                assert_eq!(shown.op, row.op);
                shadow_used.insert(row.mnemonic);
            } else {
                panic!(
                    "{}{suffix} example {w:#010x} lists as `{}`",
                    row.mnemonic,
                    disasm(0, w)
                );
            }
        }
    }
    assert_eq!(
        shadow_used.len(),
        SHADOWED.len(),
        "reviewed shadow list has unused entries"
    );
}

#[test]
fn decode_closure_unclaimed_encodings_are_illegal_and_list_as_long() {
    // Every opcode with every function-field value (operate: 7 bits, both
    // forms; FP: 11 bits; memory-function: 16 bits), registers R31.
    let mut words = Vec::new();
    for op in 0..64u32 {
        let base = (op << 26) | (31 << 21) | (31 << 16) | 31;
        for f in 0..0x1_0000u32 {
            words.push(base & !0xffff | f);
        }
    }
    let mut by_opcode: Vec<Vec<(u32, u32)>> = vec![Vec::new(); 64];
    for r in ROWS.iter().filter(|r| r.kind == Kind::Insn) {
        for (_, b) in r.variants() {
            by_opcode[r.opcode as usize].push((b, r.mask()));
        }
    }
    let mut illegal = 0;
    for w in words {
        let d = decode(w);
        let claimed = by_opcode[(w >> 26) as usize]
            .iter()
            .any(|&(b, m)| w & m == b);
        assert_eq!(d.op == Op::Illegal, !claimed, "{w:#010x}");
        if d.op == Op::Illegal {
            illegal += 1;
            assert_eq!(disasm(0, w), format!(".long {w:#x}"));
        }
    }
    // Opcodes 0x01-0x07 alone are 7 * 65536 unassigned words.
    assert!(illegal > 7 * 65536);
    for o in 1..8u32 {
        assert_eq!(decode(o << 26 | 0x1234).op, Op::Illegal);
    }
}
