//! The byte and word sequences of the seed (Alpha byte/word access,
//! `shared/seeds/004…`; Handbook §4.6.3), run on a pre-BWX model at every
//! byte offset 0–7 — and across a quadword boundary for the unaligned word
//! cases — and checked against `LDBU`/`LDWU`/`STB`/`STW` on a BWX model.

mod common;
use common::*;

/// Run `src` with `$16` = DATA + `off`, `$17` = `val`, over the pattern,
/// on `model`; return ($0, the first 32 data bytes).
fn go(model_name: &str, src: &str, off: u64, val: u64) -> (u64, Vec<u8>) {
    let mut m = machine_with(model_name, 1, src);
    fill_pattern(&mut m, 32);
    m.cpus[0].r[16] = DATA + off;
    m.cpus[0].r[17] = val;
    run_to_halt(&mut m);
    (m.cpus[0].r[0], data(&m, 0, 32))
}

// ---- the seed's sequences, verbatim (registers as in the seed)

const LOAD_BYTE: &str = "
    ldq_u $0,0($16)
    extbl $0,$16,$0
    halt";

const LOAD_SIGNED_BYTE: &str = "
    ldq_u $0,0($16)
    extbl $0,$16,$0
    sll $0,56,$0
    sra $0,56,$0
    halt";

/// The Handbook's canonical byte store (R6 = address, R5 = byte).
const STORE_BYTE_INSBL: &str = "
    lda   $6, 0($16)
    mov   $17, $5
    ldq_u $1, 0($16)
    insbl $5, $6, $3
    mskbl $1, $6, $1
    or    $1, $3, $1
    stq_u $1, 0($16)
    halt";

/// GCC's form with INSQL.
const STORE_BYTE_INSQL: &str = "
    insql $17,$16,$17
    ldq_u $1,0($16)
    mskbl $1,$16,$1
    bis $17,$1,$17
    stq_u $17,0($16)
    halt";

const LOAD_WORD_ALIGNED: &str = "
    ldq_u $0,0($16)
    extwl $0,$16,$0
    halt";

const LOAD_WORD_UNALIGNED: &str = "
    ldq_u $0,0($16)
    ldq_u $1,1($16)
    extwl $0,$16,$0
    extwh $1,$16,$1
    bis $0,$1,$0
    zapnot $0,3,$0
    halt";

/// The Handbook's ten-instruction unaligned word store; high quadword first.
const STORE_WORD_UNALIGNED: &str = "
    lda    $6, 0($16)
    mov    $17, $5
    ldq_u  $2, 1($16)
    ldq_u  $1, 0($16)
    inswh  $5, $6, $4
    inswl  $5, $6, $3
    mskwh  $2, $6, $2
    mskwl  $1, $6, $1
    or     $2, $4, $2
    or     $1, $3, $1
    stq_u  $2, 1($16)
    stq_u  $1, 0($16)
    halt";

/// The same with the two STQ_U swapped (low quadword stored first).
const STORE_WORD_SWAPPED: &str = "
    lda    $6, 0($16)
    mov    $17, $5
    ldq_u  $2, 1($16)
    ldq_u  $1, 0($16)
    inswh  $5, $6, $4
    inswl  $5, $6, $3
    mskwh  $2, $6, $2
    mskwl  $1, $6, $1
    or     $2, $4, $2
    or     $1, $3, $1
    stq_u  $1, 0($16)
    stq_u  $2, 1($16)
    halt";

// ---- the BWX references

const BWX_LDBU: &str = "ldbu $0,0($16)\n halt";
const BWX_LDBU_SEXT: &str = "ldbu $0,0($16)\n sextb $0,$0\n halt";
const BWX_STB: &str = "stb $17,0($16)\n halt";
const BWX_LDWU: &str = "ldwu $0,0($16)\n halt";
const BWX_STW: &str = "stw $17,0($16)\n halt";

/// Offsets 0-7 in the first quadword, and 8-15 in the second one (so the
/// word cases at 7 and 15 cross a quadword boundary).
const OFFSETS: std::ops::Range<u64> = 0..16;

#[test]
fn exec_byte_load_ldq_u_extbl_equals_ldbu_at_every_offset() {
    for off in OFFSETS {
        let (pre, _) = go("ev4", LOAD_BYTE, off, 0);
        let (bwx, _) = go("ev56", BWX_LDBU, off, 0);
        assert_eq!(pre, bwx, "offset {off}");
    }
}

#[test]
fn exec_signed_byte_load_sll_sra_equals_ldbu_sextb_at_every_offset() {
    let mut saw_negative = false;
    for off in OFFSETS {
        let (pre, _) = go("ev5", LOAD_SIGNED_BYTE, off, 0);
        let (bwx, _) = go("ev56", BWX_LDBU_SEXT, off, 0);
        assert_eq!(pre, bwx, "offset {off}");
        saw_negative |= (pre as i64) < 0;
    }
    assert!(saw_negative, "the pattern must exercise sign extension");
}

#[test]
fn exec_byte_store_insbl_sequence_equals_stb_at_every_offset() {
    for off in OFFSETS {
        let (_, pre) = go("ev4", STORE_BYTE_INSBL, off, 0x5a);
        let (_, bwx) = go("ev56", BWX_STB, off, 0x5a);
        assert_eq!(pre, bwx, "offset {off}");
        assert_eq!(pre[off as usize], 0x5a);
    }
}

#[test]
fn exec_byte_store_gcc_insql_sequence_equals_stb_at_every_offset() {
    for off in OFFSETS {
        let (_, pre) = go("ev4", STORE_BYTE_INSQL, off, 0xc3);
        let (_, bwx) = go("ev67", BWX_STB, off, 0xc3);
        assert_eq!(pre, bwx, "offset {off}");
    }
}

#[test]
fn exec_aligned_word_load_equals_ldwu_at_even_offsets() {
    for off in OFFSETS.filter(|o| o % 2 == 0) {
        let (pre, _) = go("ev4", LOAD_WORD_ALIGNED, off, 0);
        let (bwx, _) = go("ev56", BWX_LDWU, off, 0);
        assert_eq!(pre, bwx, "offset {off}");
    }
}

#[test]
fn exec_unaligned_word_load_equals_ldwu_at_every_offset_and_across_quadwords() {
    for off in OFFSETS {
        let (pre, _) = go("ev4", LOAD_WORD_UNALIGNED, off, 0);
        // The BWX reference for odd offsets: two LDBU (LDWU itself must be aligned).
        let (lo, _) = go("ev56", BWX_LDBU, off, 0);
        let (hi, _) = go("ev56", BWX_LDBU, off + 1, 0);
        assert_eq!(pre, lo | hi << 8, "offset {off}");
        if off % 2 == 0 {
            let (bwx, _) = go("ev56", BWX_LDWU, off, 0);
            assert_eq!(pre, bwx, "offset {off}");
        }
    }
}

#[test]
fn exec_unaligned_word_store_equals_stw_at_every_offset_and_across_quadwords() {
    for off in OFFSETS {
        let (_, pre) = go("ev4", STORE_WORD_UNALIGNED, off, 0xbeef);
        let reference = if off % 2 == 0 {
            go("ev56", BWX_STW, off, 0xbeef).1
        } else {
            // Two STB for an odd address.
            let mut m = machine_with(
                "ev56",
                1,
                "stb $17,0($16)\n srl $17,8,$17\n stb $17,1($16)\n halt",
            );
            fill_pattern(&mut m, 32);
            m.cpus[0].r[16] = DATA + off;
            m.cpus[0].r[17] = 0xbeef;
            run_to_halt(&mut m);
            data(&m, 0, 32)
        };
        assert_eq!(pre, reference, "offset {off}");
        assert_eq!(&pre[off as usize..off as usize + 2], &[0xef, 0xbe]);
    }
}

#[test]
fn exec_unaligned_word_store_with_stq_u_swapped_loses_the_store_whenever_the_word_fits_one_quadword(
) {
    // When the word lies in one quadword (the degenerate case, e.g. offset
    // 0), both LDQ_U load the same quadword: MSKWH/INSWH leave the high copy
    // unchanged, so storing it last overwrites the new word with the old one.
    for off in OFFSETS {
        let (_, right) = go("ev4", STORE_WORD_UNALIGNED, off, 0xbeef);
        let (_, swapped) = go("ev4", STORE_WORD_SWAPPED, off, 0xbeef);
        let crosses = off % 8 == 7;
        if crosses {
            assert_eq!(
                swapped, right,
                "offset {off}: both orders agree across a boundary"
            );
        } else {
            assert_ne!(
                swapped, right,
                "offset {off}: the swapped order must lose the store"
            );
            let fresh = fill_pattern(&mut machine_with("ev4", 1, "halt"), 32);
            assert_eq!(swapped, fresh, "offset {off}: memory is left unchanged");
        }
    }
}
