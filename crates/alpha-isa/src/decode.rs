//! Table-driven decoding: an index over [`ROWS`], built
//! once on first use, gives `decode` a per-opcode binary search instead of a
//! scan over the table. The index is immutable data derived from the
//! constant table (not machine state), so one process-wide copy is safe.

use std::sync::OnceLock;

use crate::insn::{Format, Insn, Op};
use crate::table::{Kind, Operand, Row, ROWS};

/// One concrete encoding of one row (a row with qualifiers has several).
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    /// `bits & key_mask[opcode]`: the sort key within the opcode.
    pub key: u32,
    /// Bits the encoding fixes.
    pub mask: u32,
    /// Their values.
    pub bits: u32,
    /// Index into `ROWS`.
    pub row: u16,
    /// Qualifier suffix of this variant ("" for none).
    pub suffix: &'static str,
}

pub(crate) struct Index {
    /// Per opcode: the function bits every row of that opcode fixes.
    pub key_mask: [u32; 64],
    /// `Kind::Insn` encodings, sorted by (opcode, key).
    pub insns: Vec<Entry>,
    pub insn_start: [u32; 65],
    /// Every printable (`Insn` and `Alias`) encoding, sorted by (opcode,
    /// key), table order kept within one key (first match wins).
    pub dis: Vec<Entry>,
    pub dis_start: [u32; 65],
    /// `Op as usize` → its `Kind::Insn` row.
    pub by_op: Vec<u16>,
    /// Dense first-entry table: for opcode `o`, slot
    /// `dense_base[o] + ((word & key_mask[o]) >> dense_shift[o])` holds
    /// 1 + the index in `insns` of the first entry with that key (0: none).
    pub dense: Vec<u16>,
    pub dense_base: [u32; 64],
    pub dense_shift: [u8; 64],
}

const OP_MASK: u32 = 0xfc00_0000;

fn build() -> Index {
    let mut key_mask = [0u32; 64];
    let mut seen = [false; 64];
    for r in ROWS.iter().filter(|r| r.kind == Kind::Insn) {
        let o = r.opcode as usize;
        let m = r.mask() & !OP_MASK;
        key_mask[o] = if seen[o] { key_mask[o] & m } else { m };
        seen[o] = true;
    }
    let mut insns = Vec::new();
    let mut dis = Vec::new();
    for (i, r) in ROWS.iter().enumerate() {
        let o = r.opcode as usize;
        for (suffix, bits) in r.variants() {
            let e = Entry {
                key: bits & key_mask[o],
                mask: r.mask(),
                bits,
                row: i as u16,
                suffix,
            };
            if r.kind == Kind::Insn {
                insns.push(e.clone());
            }
            if r.kind != Kind::AsmOnly {
                dis.push(e);
            }
        }
    }
    // Stable sorts keep table order within one (opcode, key).
    insns.sort_by_key(|e| (e.bits >> 26, e.key));
    dis.sort_by_key(|e| (e.bits >> 26, e.key));
    let starts = |v: &[Entry]| {
        let mut s = [0u32; 65];
        for o in 0..=64u32 {
            s[o as usize] = v.partition_point(|e| (e.bits >> 26) < o) as u32;
        }
        s
    };
    let insn_start = starts(&insns);
    let dis_start = starts(&dis);
    let n_ops = Op::Pal1f as usize + 1;
    let mut by_op = vec![u16::MAX; n_ops];
    for (i, r) in ROWS.iter().enumerate() {
        if r.kind == Kind::Insn && by_op[r.op as usize] == u16::MAX {
            by_op[r.op as usize] = i as u16;
        }
    }
    let mut dense = Vec::new();
    let mut dense_base = [0u32; 64];
    let mut dense_shift = [0u8; 64];
    for o in 0..64 {
        let m = key_mask[o];
        let shift = if m == 0 { 0 } else { m.trailing_zeros() };
        let width = if m == 0 {
            0
        } else {
            32 - m.leading_zeros() - shift
        };
        debug_assert_eq!(m >> shift, (1u32 << width) - 1, "key masks are contiguous");
        dense_base[o] = dense.len() as u32;
        dense_shift[o] = shift as u8;
        let start = dense.len();
        dense.resize(start + (1usize << width), 0u16);
        for i in (insn_start[o]..insn_start[o + 1]).rev() {
            let k = (insns[i as usize].key >> shift) as usize;
            dense[start + k] = i as u16 + 1;
        }
    }
    Index {
        key_mask,
        insns,
        insn_start,
        dis,
        dis_start,
        by_op,
        dense,
        dense_base,
        dense_shift,
    }
}

pub(crate) fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(build)
}

/// The `Kind::Insn` encodings that match `word` (at most one: see the
/// decode-closure test).
pub(crate) fn find(word: u32) -> Option<&'static Entry> {
    let ix = index();
    let o = (word >> 26) as usize;
    let key = word & ix.key_mask[o];
    let slot = ix.dense_base[o] as usize + (key >> ix.dense_shift[o]) as usize;
    let first = *ix.dense.get(slot)? as usize;
    if first == 0 {
        return None;
    }
    let end = ix.insn_start[o + 1] as usize;
    ix.insns[first - 1..end]
        .iter()
        .take_while(|e| e.key == key)
        .find(|e| word & e.mask == e.bits)
}

/// The printable encodings of `word`'s opcode that share its key, in table order.
pub(crate) fn dis_candidates(word: u32) -> &'static [Entry] {
    let ix = index();
    let o = (word >> 26) as usize;
    let slice = &ix.dis[ix.dis_start[o] as usize..ix.dis_start[o + 1] as usize];
    let key = word & ix.key_mask[o];
    let lo = slice.partition_point(|e| e.key < key);
    let hi = slice.partition_point(|e| e.key <= key);
    &slice[lo..hi]
}

/// The `Kind::Insn` row of `op` (`None` for `Op::Illegal`).
pub fn row_of(op: Op) -> Option<&'static Row> {
    let i = *index().by_op.get(op as usize)?;
    ROWS.get(i as usize)
}

fn sext(v: u32, bits: u32) -> i32 {
    let s = 32 - bits;
    ((v << s) as i32) >> s
}

/// The primary opcode of `word` (bits 31:26), as the kernel's
/// unaligned-trap message prints it.
pub const fn opcode(word: u32) -> u32 {
    word >> 26
}

/// Decode one instruction word. Total: a word no instruction row claims
/// decodes to `Op::Illegal` (OPCDEC on the hardware). Allocation-free.
///
/// Decoding matches opcode and function code only. Register fields that
/// objdump requires to be R31 (Ra of SEXTB, Rb of ITOFT, …) are not checked
/// here: the hardware ignores them; the disassembler prints such words as
/// `.long` the way objdump does.
pub fn decode(word: u32) -> Insn {
    let ra = ((word >> 21) & 31) as u8;
    let rb = ((word >> 16) & 31) as u8;
    let rc = (word & 31) as u8;
    let Some(e) = find(word) else {
        return Insn {
            op: Op::Illegal,
            ra,
            rb,
            rc,
            lit: None,
            disp: 0,
            func: 0,
        };
    };
    let r = &ROWS[e.row as usize];
    let (lit, disp, func) = match r.format {
        Format::Pal => (None, 0, word & 0x03ff_ffff),
        Format::Memory => (None, sext(word & 0xffff, 16), 0),
        Format::MemoryFunc => (None, (word & 0xffff) as i32, word & 0xffff),
        Format::Jump => (None, (word & 0x3fff) as i32, (word >> 14) & 3),
        Format::Branch => (None, sext(word & 0x1f_ffff, 21), 0),
        Format::Operate => {
            let lit = (word & 0x1000 != 0).then_some(((word >> 13) & 0xff) as u8);
            (lit, 0, (word >> 5) & 0x7f)
        }
        Format::FpOperate => (None, 0, (word >> 5) & 0x7ff),
    };
    Insn {
        op: r.op,
        ra,
        rb,
        rc,
        lit,
        disp,
        func,
    }
}

/// Does `word` satisfy the fake-operand rules of `row` (fields that must be
/// R31, RB = RA, the operate register/literal form)?
pub(crate) fn fakes_hold(row: &Row, word: u32) -> bool {
    let ra = (word >> 21) & 31;
    let lit_form = word & 0x1000 != 0;
    row.syntax.iter().all(|op| match *op {
        Operand::Fix {
            shift,
            width,
            value,
        } => {
            let m = (1u32 << width) - 1;
            let ok = (word >> shift) & m == value as u32;
            // In Operate format a register-valued Rb also means the register form.
            ok && !(row.format == Format::Operate && shift == 16 && lit_form)
        }
        Operand::Rba => (word >> 16) & 31 == ra && !(row.format == Format::Operate && lit_form),
        Operand::Rca => word & 31 == ra,
        Operand::Rb => !(row.format == Format::Operate && lit_form),
        Operand::Lit => lit_form,
        _ => true,
    })
}
