//! Memory ↔ register layouts of the floating formats (Handbook §2.2.6 and
//! the LDF/LDG/LDS/STF/STG/STS descriptions in §4.8), and the floating
//! branch and FCMOV conditions (§4.9, §4.10).
//!
//! S_floating and F_floating values are held in registers in the 64-bit
//! T/G layout: sign <63>, an 11-bit exponent <62:52> widened from the 8-bit
//! one, the 23-bit fraction in <51:29>, zeros in <28:0>. G_floating is the
//! VAX quadword with its four 16-bit words in reverse order.

/// LDS: an S_floating longword from memory to its register image.
/// Exponent 0xFF becomes 0x7FF (infinity/NaN), 0 stays 0 (zero/denormal),
/// any other 8-bit exponent `e` becomes `e - 127 + 1023`.
pub fn lds_to_reg(m: u32) -> u64 {
    let m = u64::from(m);
    let sign = m >> 31;
    let msb = (m >> 30) & 1;
    let low = (m >> 23) & 0x7f;
    let exp = if msb == 1 {
        if low == 0x7f {
            0x7ff
        } else {
            0x400 | low
        }
    } else if low != 0 {
        0x380 | low
    } else {
        0
    };
    (sign << 63) | (exp << 52) | ((m & 0x7f_ffff) << 29)
}

/// STS: the register image's S_floating longword: bits <63:62> and <58:29>.
pub fn sts_from_reg(r: u64) -> u32 {
    (((r >> 32) & 0xc000_0000) | ((r >> 29) & 0x3fff_ffff)) as u32
}

/// LDF: a VAX F_floating longword (words swapped: <15:0> hold sign,
/// exponent and the high fraction, <31:16> the low fraction) to its register
/// image. A nonzero 8-bit exponent `e` becomes `e + 1024 - 128`.
pub fn ldf_to_reg(m: u32) -> u64 {
    let m = u64::from(m);
    let sign = (m >> 15) & 1;
    let exp8 = (m >> 7) & 0xff;
    let exp = if exp8 == 0 { 0 } else { exp8 + 0x380 };
    let frac = ((m & 0x7f) << 16) | (m >> 16);
    (sign << 63) | (exp << 52) | (frac << 29)
}

/// STF: the register image's F_floating longword in VAX memory order.
pub fn stf_from_reg(r: u64) -> u32 {
    let sign = (r >> 63) & 1;
    let exp_hi = (r >> 62) & 1;
    let exp_lo = (r >> 52) & 0x7f;
    let frac = (r >> 29) & 0x7f_ffff;
    let low_word = (sign << 15) | (exp_hi << 14) | (exp_lo << 7) | (frac >> 16);
    ((frac & 0xffff) << 16 | low_word) as u32
}

/// LDG: a VAX G_floating quadword to its register image (word order
/// reversed).
pub fn ldg_to_reg(m: u64) -> u64 {
    swap_words(m)
}

/// STG: the register image of a G_floating value to memory order.
pub fn stg_from_reg(r: u64) -> u64 {
    swap_words(r)
}

fn swap_words(x: u64) -> u64 {
    ((x & 0xffff) << 48) | (((x >> 16) & 0xffff) << 32) | (((x >> 32) & 0xffff) << 16) | (x >> 48)
}

/// Floating conditions tested by FBxx and FCMOVxx. They look at the
/// register as a sign and magnitude: +0 and -0 are both zero (Handbook
/// §4.9: "the test is based on the sign bit and whether the rest of the
/// register is all zero bits").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FCond {
    Eq,
    Ne,
    Lt,
    Ge,
    Le,
    Gt,
}

impl FCond {
    /// Does a register holding `bits` satisfy the condition?
    pub fn holds(self, bits: u64) -> bool {
        let zero = bits << 1 == 0;
        let neg = bits >> 63 == 1;
        match self {
            FCond::Eq => zero,
            FCond::Ne => !zero,
            FCond::Lt => neg && !zero,
            FCond::Ge => !neg || zero,
            FCond::Le => neg || zero,
            FCond::Gt => !neg && !zero,
        }
    }

    /// The condition of a floating branch or FCMOV, `None` for other ops.
    pub fn of(op: alpha_isa::Op) -> Option<FCond> {
        use alpha_isa::Op;
        Some(match op {
            Op::Fbeq | Op::Fcmoveq => FCond::Eq,
            Op::Fbne | Op::Fcmovne => FCond::Ne,
            Op::Fblt | Op::Fcmovlt => FCond::Lt,
            Op::Fbge | Op::Fcmovge => FCond::Ge,
            Op::Fble | Op::Fcmovle => FCond::Le,
            Op::Fbgt | Op::Fcmovgt => FCond::Gt,
            _ => return None,
        })
    }
}
