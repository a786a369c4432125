//! The disassembler: one word to `mnemonic\toperands`, spelled the way GNU
//! objdump (`-m alpha`) spells it, driven by the table's operand syntax.

use std::fmt::Write;

use crate::decode::{dis_candidates, fakes_hold};
use crate::symbols::Symbols;
use crate::table::{Operand, Row, ROWS};

/// Integer register names in the OSF/Linux software convention (Handbook
/// v4 appendix E / the calling standard), as objdump prints them.
pub const REG_NAMES: [&str; 32] = [
    "v0", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "s0", "s1", "s2", "s3", "s4", "s5", "fp",
    "a0", "a1", "a2", "a3", "a4", "a5", "t8", "t9", "t10", "t11", "ra", "t12", "at", "gp", "sp",
    "zero",
];

fn sext(v: u32, bits: u32) -> i64 {
    let s = 64 - bits;
    (((v as u64) << s) as i64) >> s
}

/// objdump's `%#x`: `0` for zero, `0x…` otherwise.
fn hash_x(v: u32) -> String {
    if v == 0 {
        "0".to_string()
    } else {
        format!("{v:#x}")
    }
}

/// The row (and qualifier suffix) objdump would print for `word`, if any.
pub fn lookup(word: u32) -> Option<(&'static Row, &'static str)> {
    dis_candidates(word)
        .iter()
        .filter(|e| word & e.mask == e.bits)
        .map(|e| (&ROWS[e.row as usize], e.suffix))
        .find(|(r, _)| fakes_hold(r, word))
}

/// Disassemble one word at address `addr`: `mnemonic\toperands`, or
/// `.long 0x…` for a word no row claims. Branch and jump-hint targets are
/// absolute addresses.
pub fn disasm(addr: u64, word: u32) -> String {
    disasm_with(addr, word, None)
}

/// Like [`disasm`], with branch and hint targets named after `symbols` the
/// way `objdump -d` names them (`120000394 <abort+0x184>`).
pub fn disasm_with(addr: u64, word: u32, symbols: Option<&Symbols>) -> String {
    let target = |t: u64| match symbols {
        Some(s) if !s.is_empty() => s.render(t),
        _ => format!("{t:#x}"),
    };
    let Some((row, suffix)) = lookup(word) else {
        return format!(".long {word:#x}");
    };
    let mut s = String::with_capacity(32);
    s.push_str(row.mnemonic);
    s.push_str(suffix);
    if !row.syntax.is_empty() {
        s.push('\t');
    }
    let ra = (word >> 21) & 31;
    let rb = (word >> 16) & 31;
    let rc = word & 31;
    let mut printed = false;
    for op in row.syntax {
        let text = match *op {
            Operand::Ra => REG_NAMES[ra as usize].to_string(),
            Operand::Rb => REG_NAMES[rb as usize].to_string(),
            Operand::Rc => REG_NAMES[rc as usize].to_string(),
            Operand::Fa => format!("$f{ra}"),
            Operand::Fb => format!("$f{rb}"),
            Operand::Fc => format!("$f{rc}"),
            Operand::RbLit if word & 0x1000 != 0 => hash_x((word >> 13) & 0xff),
            Operand::RbLit => REG_NAMES[rb as usize].to_string(),
            Operand::Lit => hash_x((word >> 13) & 0xff),
            Operand::Mdisp => sext(word & 0xffff, 16).to_string(),
            Operand::Prb => {
                let _ = write!(s, "({})", REG_NAMES[rb as usize]);
                printed = true;
                continue;
            }
            Operand::Cprb => format!("({})", REG_NAMES[rb as usize]),
            Operand::Bdisp => {
                let t = addr
                    .wrapping_add(4)
                    .wrapping_add((sext(word & 0x1f_ffff, 21) * 4) as u64);
                target(t)
            }
            Operand::JmpHint => {
                let t = addr
                    .wrapping_add(4)
                    .wrapping_add((sext(word & 0x3fff, 14) * 4) as u64);
                target(t)
            }
            Operand::PalFn => hash_x(word & 0x03ff_ffff),
            Operand::RetHint => hash_x(word & 0x3fff),
            Operand::Fix { .. } | Operand::Rba | Operand::Rca => continue,
        };
        if printed {
            s.push(',');
        }
        s.push_str(&text);
        printed = true;
    }
    s
}

/// One line of a `subword alpha disasm` listing (the contract's format):
/// `ADDR:\tWORD\tMNEMONIC\tOPERANDS`, address in lowercase hex without
/// `0x`, the word as eight hex digits, then [`disasm_with`].
pub fn listing_line(addr: u64, word: u32, symbols: Option<&Symbols>) -> String {
    format!(
        "{addr:x}:\t{word:08x}\t{}",
        disasm_with(addr, word, symbols)
    )
}

/// A whole listing of little-endian words starting at `addr` (a trailing
/// partial word is ignored), one [`listing_line`] per word, each ending in
/// a newline.
pub fn listing(addr: u64, bytes: &[u8], symbols: Option<&Symbols>) -> String {
    let mut s = String::new();
    for (i, c) in bytes.chunks_exact(4).enumerate() {
        let a = addr.wrapping_add(4 * i as u64);
        s.push_str(&listing_line(
            a,
            u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
            symbols,
        ));
        s.push('\n');
    }
    s
}
