//! Decode: hand-picked words (from the Handbook's encodings and objdump)
//! decode to the right `Op` and fields.

use alpha_isa::{decode, disasm, Ext, Format, Op};

#[test]
fn decode_known_words_give_the_handbook_op_and_fields() {
    // ldq v0,16(t1)
    let i = decode(0xa402_0010);
    assert_eq!((i.op, i.ra, i.rb, i.disp), (Op::Ldq, 0, 2, 16));
    // lda t1,-32768
    let i = decode(0x205f_8000);
    assert_eq!((i.op, i.ra, i.rb, i.disp), (Op::Lda, 2, 31, -32768));
    // xor v0,0x5,v0 (literal form)
    let i = decode(0x4400_b800);
    assert_eq!((i.op, i.lit, i.rc), (Op::Xor, Some(5), 0));
    // bsr ra,. (displacement -1)
    let i = decode(0xd35f_ffff);
    assert_eq!((i.op, i.ra, i.disp), (Op::Bsr, 26, -1));
    // stb / ldbu / sextb are BWX
    assert_eq!(decode(0x3800_0000).op, Op::Stb);
    assert_eq!(decode(0x3800_0000).op.ext(), Ext::Bwx);
    assert_eq!(decode(0x73e1_0000).op, Op::Sextb);
    // adds/sud: full 11-bit function kept
    let i = decode(0x5800_0000 | (0x5c0 << 5));
    assert_eq!((i.op, i.func), (Op::Adds, 0x5c0));
    // ret zero,(ra),1
    let i = decode(0x6bfa_8001);
    assert_eq!((i.op, i.ra, i.rb, i.disp), (Op::Ret, 31, 26, 1));
    // callsys
    let i = decode(0x0000_0083);
    assert_eq!((i.op, i.func), (Op::CallPal, 0x83));
    // mb
    assert_eq!(decode(0x6000_4000).op, Op::Mb);
    // ctpop (CIX), perr (MVI), ftoit (FIX)
    assert_eq!(decode(0x73e1_0600).op.ext(), Ext::Cix);
    assert_eq!(decode(0x7022_0623).op, Op::Perr);
    assert_eq!(decode(0x701f_0e01).op, Op::Ftoit);
    assert_eq!(Op::Ftoit.ext(), Ext::Fix);
    assert_eq!(Op::Ldq.format(), Some(Format::Memory));
    assert_eq!(Op::LdqU.mnemonic(), "ldq_u");
}

#[test]
fn decode_unassigned_words_are_illegal() {
    for w in [
        0x0400_0000u32,
        0x1c00_0000 | (0x02 << 5),
        0x5c00_0000,
        0x6000_8001,
        0x4000_d200,
    ] {
        assert_eq!(decode(w).op, Op::Illegal, "{w:#x}");
    }
    // Reserved opcodes 0x01-0x07.
    for o in 1..8u32 {
        assert_eq!(decode(o << 26).op, Op::Illegal);
    }
}

#[test]
fn disasm_known_words_match_objdump_spelling() {
    assert_eq!(disasm(0, 0x47ff_041f), "nop\t");
    assert_eq!(disasm(0, 0x47e1_0402), "mov\tt0,t1");
    assert_eq!(disasm(0x10, 0x6bfa_8001), "ret");
    assert_eq!(disasm(0x14, 0xd35f_ffff), "bsr\tra,0x14");
    assert_eq!(disasm(0, 0x5c00_0000), ".long 0x5c000000");
    assert_eq!(disasm(0, 0x585f_0400), "addt/c\t$f2,$f31,$f0");
    assert_eq!(disasm(0, 0xa402_0010), "ldq\tv0,16(t1)");
    assert_eq!(disasm(0, 0x0000_0083), "callsys");
}
