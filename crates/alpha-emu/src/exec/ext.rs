//! Extension instructions on integer registers: BWX sign extension, CIX
//! counts and MVI multimedia (Handbook §4.12-§4.13 and Appendix D).

/// SEXTB (BWX).
#[inline(always)]
pub fn sextb(b: u64) -> u64 {
    b as u8 as i8 as i64 as u64
}

/// SEXTW (BWX).
#[inline(always)]
pub fn sextw(b: u64) -> u64 {
    b as u16 as i16 as i64 as u64
}

/// CTPOP (CIX).
#[inline(always)]
pub fn ctpop(b: u64) -> u64 {
    b.count_ones() as u64
}

/// CTLZ (CIX): 64 for zero.
#[inline(always)]
pub fn ctlz(b: u64) -> u64 {
    b.leading_zeros() as u64
}

/// CTTZ (CIX): 64 for zero.
#[inline(always)]
pub fn cttz(b: u64) -> u64 {
    b.trailing_zeros() as u64
}

fn lanes8(a: u64, b: u64, f: impl Fn(u8, u8) -> u8) -> u64 {
    let mut r = 0u64;
    for i in 0..8 {
        let x = (a >> (i * 8)) as u8;
        let y = (b >> (i * 8)) as u8;
        r |= (f(x, y) as u64) << (i * 8);
    }
    r
}

fn lanes16(a: u64, b: u64, f: impl Fn(u16, u16) -> u16) -> u64 {
    let mut r = 0u64;
    for i in 0..4 {
        let x = (a >> (i * 16)) as u16;
        let y = (b >> (i * 16)) as u16;
        r |= (f(x, y) as u64) << (i * 16);
    }
    r
}

/// MINUB8 (MVI).
pub fn minub8(a: u64, b: u64) -> u64 {
    lanes8(a, b, |x, y| x.min(y))
}
/// MINSB8 (MVI).
pub fn minsb8(a: u64, b: u64) -> u64 {
    lanes8(a, b, |x, y| (x as i8).min(y as i8) as u8)
}
/// MAXUB8 (MVI).
pub fn maxub8(a: u64, b: u64) -> u64 {
    lanes8(a, b, |x, y| x.max(y))
}
/// MAXSB8 (MVI).
pub fn maxsb8(a: u64, b: u64) -> u64 {
    lanes8(a, b, |x, y| (x as i8).max(y as i8) as u8)
}
/// MINUW4 (MVI).
pub fn minuw4(a: u64, b: u64) -> u64 {
    lanes16(a, b, |x, y| x.min(y))
}
/// MINSW4 (MVI).
pub fn minsw4(a: u64, b: u64) -> u64 {
    lanes16(a, b, |x, y| (x as i16).min(y as i16) as u16)
}
/// MAXUW4 (MVI).
pub fn maxuw4(a: u64, b: u64) -> u64 {
    lanes16(a, b, |x, y| x.max(y))
}
/// MAXSW4 (MVI).
pub fn maxsw4(a: u64, b: u64) -> u64 {
    lanes16(a, b, |x, y| (x as i16).max(y as i16) as u16)
}

/// PERR (MVI): sum of the absolute differences of the eight byte pairs.
pub fn perr(a: u64, b: u64) -> u64 {
    (0..8)
        .map(|i| {
            let x = (a >> (i * 8)) as u8;
            let y = (b >> (i * 8)) as u8;
            x.abs_diff(y) as u64
        })
        .sum()
}

/// PKLB (MVI): bytes 0 and 4 of `b` packed into bytes 0 and 1.
pub fn pklb(b: u64) -> u64 {
    (b & 0xff) | ((b >> 24) & 0xff00)
}

/// PKWB (MVI): bytes 0, 2, 4, 6 of `b` packed into bytes 0-3.
pub fn pkwb(b: u64) -> u64 {
    (b & 0xff) | ((b >> 8) & 0xff00) | ((b >> 16) & 0xff_0000) | ((b >> 24) & 0xff00_0000)
}

/// UNPKBL (MVI): bytes 0 and 1 of `b` into bytes 0 and 4.
pub fn unpkbl(b: u64) -> u64 {
    (b & 0xff) | ((b & 0xff00) << 24)
}

/// UNPKBW (MVI): bytes 0-3 of `b` into bytes 0, 2, 4, 6.
pub fn unpkbw(b: u64) -> u64 {
    (b & 0xff) | ((b & 0xff00) << 8) | ((b & 0xff_0000) << 16) | ((b & 0xff00_0000) << 24)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_and_unpack_are_inverse_on_their_lanes() {
        let b = 0x0000_0000_4433_2211u64;
        assert_eq!(unpkbw(b), 0x0044_0033_0022_0011);
        assert_eq!(pkwb(unpkbw(b)), b);
        assert_eq!(unpkbl(0x2211), 0x0000_0022_0000_0011);
        assert_eq!(pklb(unpkbl(0x2211)), 0x2211);
    }

    #[test]
    fn signed_and_unsigned_lanes_differ() {
        assert_eq!(minub8(0x80, 0x01), 0x01);
        assert_eq!(minsb8(0x80, 0x01), 0x80);
        assert_eq!(maxsw4(0xffff, 0x0001), 0x0001);
        assert_eq!(perr(0x0a00_0001, 0x0000_0a03), 10 + 10 + 2);
    }
}
