//! Shift and byte-manipulation instructions (Handbook §4.6), as pure
//! functions of the operand values. The `*H` ("high") forms exist for
//! unaligned data: together with the `*L` forms they extract or insert a
//! datum that straddles two quadwords.

/// `BYTE_ZAP(x, mask)`: clear byte i of `x` where bit i of `mask` is set.
#[inline(always)]
pub fn byte_zap(x: u64, mask: u64) -> u64 {
    x & !BYTE_MASKS[(mask & 0xff) as usize]
}

/// `BYTE_MASKS[m]` has byte i all ones where bit i of `m` is set.
pub(crate) static BYTE_MASKS: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let mut i = 0;
        while i < 8 {
            if m & (1 << i) != 0 {
                t[m] |= 0xff << (i * 8);
            }
            i += 1;
        }
        m += 1;
    }
    t
};

/// ZAP: clear the bytes selected by `b<7:0>`.
#[inline(always)]
pub fn zap(a: u64, b: u64) -> u64 {
    byte_zap(a, b)
}

/// ZAPNOT: keep only the bytes selected by `b<7:0>`.
#[inline(always)]
pub fn zapnot(a: u64, b: u64) -> u64 {
    byte_zap(a, !b)
}

/// CMPBGE: bit i of the result is set when byte i of `a` >= byte i of `b` (unsigned).
#[inline(always)]
pub fn cmpbge(a: u64, b: u64) -> u64 {
    let mut r = 0;
    for i in 0..8 {
        let x = (a >> (i * 8)) as u8;
        let y = (b >> (i * 8)) as u8;
        if x >= y {
            r |= 1 << i;
        }
    }
    r
}

/// Width masks of the B, W, L, Q forms (bytes selected by ZAPNOT).
pub const MASK_B: u64 = 0x01;
pub const MASK_W: u64 = 0x03;
pub const MASK_L: u64 = 0x0f;
pub const MASK_Q: u64 = 0xff;

/// EXTxL: `BYTE_ZAP(a >> 8*b<2:0>, NOT mask)`.
#[inline(always)]
pub fn ext_low(a: u64, b: u64, mask: u64) -> u64 {
    zapnot(a >> ((b & 7) * 8), mask)
}

/// EXTxH: `BYTE_ZAP(a << (64 - 8*b<2:0>)<5:0>, NOT mask)`.
#[inline(always)]
pub fn ext_high(a: u64, b: u64, mask: u64) -> u64 {
    let loc = (64 - (b & 7) * 8) & 63;
    zapnot(a << loc, mask)
}

/// INSxL: the datum shifted into place, other bytes zero.
#[inline(always)]
pub fn ins_low(a: u64, b: u64, mask: u64) -> u64 {
    let byte_mask = mask << (b & 7);
    zapnot(a << ((b & 7) * 8), byte_mask & 0xff)
}

/// INSxH: the part of the datum that spills into the next quadword.
#[inline(always)]
pub fn ins_high(a: u64, b: u64, mask: u64) -> u64 {
    let byte_mask = mask << (b & 7);
    let hi = (byte_mask >> 8) & 0xff;
    if hi == 0 {
        // Nothing spills; also avoids the undefined 64-bit shift when b<2:0> = 0.
        return 0;
    }
    let loc = 64 - (b & 7) * 8;
    zapnot(a >> loc, hi)
}

/// MSKxL: clear the bytes the datum would occupy in the low quadword.
#[inline(always)]
pub fn msk_low(a: u64, b: u64, mask: u64) -> u64 {
    let byte_mask = mask << (b & 7);
    zap(a, byte_mask & 0xff)
}

/// MSKxH: clear the bytes the datum would occupy in the high quadword.
#[inline(always)]
pub fn msk_high(a: u64, b: u64, mask: u64) -> u64 {
    let byte_mask = mask << (b & 7);
    zap(a, (byte_mask >> 8) & 0xff)
}

/// SLL, SRL, SRA: shift by `b<5:0>`.
#[inline(always)]
pub fn sll(a: u64, b: u64) -> u64 {
    a << (b & 63)
}
#[inline(always)]
pub fn srl(a: u64, b: u64) -> u64 {
    a >> (b & 63)
}
#[inline(always)]
pub fn sra(a: u64, b: u64) -> u64 {
    ((a as i64) >> (b & 63)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handbook_byte_store_example_values() {
        // Handbook §4.6.3 example: R6<2:0> = 5, R1 = yyAx xxxx style.
        let r1 = 0x1122_3344_5566_7788u64;
        assert_eq!(ins_low(0xab, 5, MASK_B), 0x0000_ab00_0000_0000);
        assert_eq!(msk_low(r1, 5, MASK_B), 0x1122_0044_5566_7788);
        assert_eq!(ext_low(r1, 5, MASK_B), 0x33);
    }

    #[test]
    fn high_forms_at_offset_zero() {
        let a = 0x0102_0304_0506_0708u64;
        assert_eq!(ext_high(a, 0, MASK_Q), a);
        assert_eq!(ins_high(a, 0, MASK_Q), 0);
        assert_eq!(msk_high(a, 0, MASK_Q), a);
        assert_eq!(ext_high(a, 0, MASK_W), 0x0708);
    }

    #[test]
    fn word_straddling_quadwords() {
        // A word at offset 7: low byte in quad 0 byte 7, high byte in quad 1 byte 0.
        let lo = 0xAA00_0000_0000_0000u64;
        let hi = 0x0000_0000_0000_00BBu64;
        assert_eq!(ext_low(lo, 7, MASK_W) | ext_high(hi, 7, MASK_W), 0xBBAA);
        assert_eq!(ins_low(0xBBAA, 7, MASK_W), 0xAA00_0000_0000_0000);
        assert_eq!(ins_high(0xBBAA, 7, MASK_W), 0xBB);
        assert_eq!(msk_high(u64::MAX, 7, MASK_W), !0xffu64);
    }

    #[test]
    fn cmpbge_finds_zero_bytes() {
        assert_eq!(cmpbge(0, 0x0001_0000_0000_0100), 0b1011_1101);
    }
}
