//! Static analysis of Alpha code for `subword alpha scan`: which ISA
//! extensions the code needs (from each instruction's table row), and the
//! non-atomic sub-quadword store sequences it holds.
//!
//! A sub-quadword store on a machine without BWX is a read-modify-write of
//! the containing quadword (Handbook v4, 4.6 "Byte Manipulation
//! Instructions", the canonical sequences): `LDQ_U` (or `LDQ` when aligned),
//! `MSKxL`/`MSKxH` to clear the bytes, `INSxx` + `BIS` to merge, and `STQ_U`
//! (or `STQ`) to the same address. A `ZAP`/`ZAPNOT` with a literal mask that
//! keeps some bytes of the loaded quadword counts as the mask too (width
//! `partial`): the `LDQ`/`ZAPNOT`/`BIS`/`STQ` merge block copies use for the
//! ragged ends of objects, which clobbers the neighbouring bytes it keeps
//! with or without BWX. Another processor's store to any other
//! byte of that quadword between the load and the store is lost. The
//! scanner finds, within one straight-line run of code, a store whose
//! address (base register and displacement) equals an earlier load's, with
//! a mask instruction applied to the loaded value in between, the base
//! register unchanged and no branch — the shape compilers and the Handbook
//! emit. `LDx_L`/`STx_C` sequences are atomic and are not reported.

use crate::decode::decode;
use crate::insn::{Ext, Format, Insn, Op};

/// How many instructions back a store may be from its load.
pub const WINDOW: usize = 24;

/// Instruction words at an address (one code section).
#[derive(Clone, Copy, Debug)]
pub struct Code<'a> {
    pub addr: u64,
    pub bytes: &'a [u8],
}

/// Uses of one extension.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExtUse {
    pub count: u64,
    /// The first few (address, word) pairs, in address order.
    pub first: Vec<(u64, u32)>,
}

/// Width of a read-modify-write store, from its mask instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    Byte,
    Word,
    Longword,
    /// `MSKQL`/`MSKQH`: part of a quadword (unaligned quadword store).
    Quadword,
    /// `ZAP`/`ZAPNOT` with a literal byte mask keeping some bytes and
    /// clearing others: a merge of a few bytes into the quadword, as block
    /// copies do for the ends of objects not ending on a quadword boundary.
    Partial,
}

impl Width {
    pub fn name(self) -> &'static str {
        match self {
            Width::Byte => "byte",
            Width::Word => "word",
            Width::Longword => "longword",
            Width::Quadword => "quadword",
            Width::Partial => "partial",
        }
    }
}

/// One non-atomic read-modify-write store sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RmwStore {
    pub width: Width,
    /// Address of the load (`LDQ_U`/`LDQ`) and of the store (`STQ_U`/`STQ`).
    pub load: u64,
    pub store: u64,
    /// Address of the mask instruction that clears the stored bytes.
    pub mask: u64,
    /// Base register and displacement of the quadword address.
    pub base: u8,
    pub disp: i32,
    /// True for the unaligned form (`LDQ_U`/`STQ_U`).
    pub unaligned: bool,
}

/// What a scan found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub insns: u64,
    pub bwx: ExtUse,
    pub fix: ExtUse,
    pub cix: ExtUse,
    pub mvi: ExtUse,
    pub stores: Vec<RmwStore>,
}

impl Report {
    /// The uses of `ext` (`None` for `Ext::Base`).
    pub fn ext(&self, ext: Ext) -> Option<&ExtUse> {
        match ext {
            Ext::Base => None,
            Ext::Bwx => Some(&self.bwx),
            Ext::Fix => Some(&self.fix),
            Ext::Cix => Some(&self.cix),
            Ext::Mvi => Some(&self.mvi),
        }
    }
}

/// How many first addresses [`ExtUse::first`] keeps.
pub const FIRST: usize = 5;

fn mask_width(i: &Insn) -> Option<Width> {
    Some(match i.op {
        Op::Zap | Op::Zapnot => match i.lit {
            Some(m) if m != 0 && m != 0xff => Width::Partial,
            _ => return None,
        },
        Op::Mskbl => Width::Byte,
        Op::Mskwl | Op::Mskwh => Width::Word,
        Op::Mskll | Op::Msklh => Width::Longword,
        Op::Mskql | Op::Mskqh => Width::Quadword,
        _ => return None,
    })
}

/// The integer register an instruction writes, if any (R31 writes nothing).
fn int_dest(i: &Insn) -> Option<u8> {
    let op = i.op;
    let r = match op.format()? {
        Format::Operate => i.rc,
        Format::Memory => match op {
            Op::Lda
            | Op::Ldah
            | Op::Ldbu
            | Op::LdqU
            | Op::Ldwu
            | Op::Ldl
            | Op::Ldq
            | Op::LdlL
            | Op::LdqL => i.ra,
            Op::StlC | Op::StqC => i.ra,
            _ => return None,
        },
        Format::Jump | Format::Branch => match op {
            Op::Br | Op::Bsr | Op::Jmp | Op::Jsr | Op::Ret | Op::JsrCoroutine => i.ra,
            _ => return None,
        },
        Format::MemoryFunc => match op {
            Op::Rpcc | Op::Rc | Op::Rs => i.ra,
            _ => return None,
        },
        Format::FpOperate => match op {
            Op::Ftoit | Op::Ftois => i.rc,
            _ => return None,
        },
        Format::Pal => return None,
    };
    (r != 31).then_some(r)
}

/// Does the instruction end straight-line code (branch, jump, PALcode call)?
fn ends_block(i: &Insn) -> bool {
    matches!(
        i.op.format(),
        Some(Format::Branch | Format::Jump | Format::Pal)
    )
}

/// Scan code sections.
pub fn scan(sections: &[Code<'_>]) -> Report {
    let mut rep = Report::default();
    for s in sections {
        let insns: Vec<(u64, u32, Insn)> = s
            .bytes
            .chunks_exact(4)
            .enumerate()
            .map(|(k, c)| {
                let w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                (s.addr.wrapping_add(4 * k as u64), w, decode(w))
            })
            .collect();
        for &(a, w, i) in &insns {
            rep.insns += 1;
            let u = match i.op.ext() {
                Ext::Base => continue,
                Ext::Bwx => &mut rep.bwx,
                Ext::Fix => &mut rep.fix,
                Ext::Cix => &mut rep.cix,
                Ext::Mvi => &mut rep.mvi,
            };
            u.count += 1;
            if u.first.len() < FIRST {
                u.first.push((a, w));
            }
        }
        find_rmw(&insns, &mut rep.stores);
    }
    rep
}

fn find_rmw(insns: &[(u64, u32, Insn)], out: &mut Vec<RmwStore>) {
    for (j, &(sa, _, st)) in insns.iter().enumerate() {
        let unaligned = match st.op {
            Op::StqU => true,
            Op::Stq => false,
            _ => continue,
        };
        // Walk back through straight-line code.
        let lo = j.saturating_sub(WINDOW);
        let mut mask: Option<(u64, Width, u8)> = None; // (addr, width, register it reads)
        let mut stored = vec![st.ra];
        for k in (lo..j).rev() {
            let (a, _, i) = insns[k];
            if ends_block(&i) {
                break;
            }
            let want_load = if unaligned { Op::LdqU } else { Op::Ldq };
            if i.op == want_load && i.rb == st.rb && i.disp == st.disp && i.ra != 31 {
                if let Some((ma, width, reads)) = mask {
                    if reads == i.ra {
                        out.push(RmwStore {
                            width,
                            load: a,
                            store: sa,
                            mask: ma,
                            base: st.rb,
                            disp: st.disp,
                            unaligned,
                        });
                    }
                }
                break;
            }
            let dest = int_dest(&i);
            // The base register must hold the same address throughout.
            if dest == Some(st.rb) {
                break;
            }
            // Follow the stored value back through BIS merges to the mask.
            if let Some(d) = dest {
                if stored.contains(&d) {
                    if let Some(width) = mask_width(&i) {
                        if mask.is_none() {
                            mask = Some((a, width, i.ra));
                        }
                    } else if i.op == Op::Bis {
                        stored.push(i.ra);
                        if i.lit.is_none() {
                            stored.push(i.rb);
                        }
                    }
                }
            }
        }
    }
}
