//! Helpers shared by the alpha-isa integration tests: a seeded generator and
//! "clean" example words for every table row.

#![allow(dead_code)]

use alpha_isa::table::{Kind, Operand, Row, ROWS};
use alpha_isa::Format;

/// xorshift64* — deterministic, seeded.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
    }
}

/// Zero the bits a written instruction cannot express (should-be-zero
/// fields, registers a row does not name) so that assembling its listing
/// gives the same word back.
pub fn clean(row: &Row, mut w: u32) -> u32 {
    let has = |f: &dyn Fn(&Operand) -> bool| row.syntax.iter().any(f);
    let names_ra = has(&|o| {
        matches!(o, Operand::Ra | Operand::Fa | Operand::Rba | Operand::Rca) || is_fix(o, 21)
    });
    let names_rb = has(&|o| {
        matches!(
            o,
            Operand::Rb
                | Operand::Fb
                | Operand::Prb
                | Operand::Cprb
                | Operand::RbLit
                | Operand::Lit
                | Operand::Rba
        ) || is_fix(o, 16)
            || is_fix(o, 12)
    });
    let names_rc = has(&|o| matches!(o, Operand::Rc | Operand::Fc | Operand::Rca) || is_fix(o, 0));
    if row.exact {
        return w;
    }
    if row.format == Format::Operate && w & 0x1000 == 0 {
        w &= !0xe000;
    }
    if matches!(
        row.format,
        Format::MemoryFunc | Format::FpOperate | Format::Memory | Format::Jump
    ) {
        if !names_ra {
            w &= !(31 << 21);
        }
        if !names_rb {
            w &= !(31 << 16);
        }
        if row.format == Format::FpOperate && !names_rc {
            w &= !31;
        }
    }
    if row.mnemonic == "unop" {
        w = (w & 0xffe0_0000) | (30 << 16);
    }
    if row.format == Format::Memory && !has(&|o| *o == Operand::Mdisp) {
        w &= !0xffff;
    }
    if row.mnemonic == "jmp" && row.syntax.len() == 3 && row.syntax[2] != Operand::JmpHint {
        w &= !0x3fff;
    }
    w
}

fn is_fix(o: &Operand, s: u8) -> bool {
    matches!(o, Operand::Fix { shift, .. } if *shift == s)
}

/// Rows that can be printed (instruction rows and aliases).
pub fn printable_rows() -> impl Iterator<Item = (usize, &'static Row)> {
    ROWS.iter()
        .enumerate()
        .filter(|(_, r)| r.kind != Kind::AsmOnly)
}

/// A random example word of `row` variant `bits`, fake operands satisfied,
/// cleaned; branch displacements kept small and backwards-or-forward within
/// `±span` instructions.
pub fn example(rng: &mut Rng, row: &Row, bits: u32, span: u32) -> u32 {
    let mut w = bits | (rng.next() & !row.mask());
    if row.format == Format::Branch {
        let d = (rng.next() % (2 * span + 1)) as i32 - span as i32;
        w = (w & !0x1f_ffff) | (d as u32 & 0x1f_ffff);
    }
    if row.format == Format::Jump && row.syntax.contains(&Operand::JmpHint) {
        let d = (rng.next() % (2 * span + 1)) as i32 - span as i32;
        w = (w & !0x3fff) | (d as u32 & 0x3fff);
    }
    clean(row, row.apply_fakes(w))
}
