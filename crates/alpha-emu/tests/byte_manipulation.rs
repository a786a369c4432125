//! Byte-manipulation semantics (Handbook §4.6) executed by the interpreter,
//! checked against an independent reference model written on byte arrays
//! ("the datum starts at byte `b<2:0>` of the low quadword and continues
//! into the high one"), with random operands (proptest).

mod common;
use common::*;
use proptest::prelude::*;

const OPS: &[&str] = &[
    "extbl", "extwl", "extll", "extql", "extwh", "extlh", "extqh", "insbl", "inswl", "insll",
    "insql", "inswh", "inslh", "insqh", "mskbl", "mskwl", "mskll", "mskql", "mskwh", "msklh",
    "mskqh", "zap", "zapnot", "cmpbge", "sll", "srl", "sra",
];

fn width(op: &str) -> usize {
    match op.as_bytes()[3] {
        b'b' => 1,
        b'w' => 2,
        b'l' => 4,
        _ => 8,
    }
}

/// The reference model (index loops on purpose: positions are the point).
#[allow(clippy::needless_range_loop)]
fn reference(op: &str, a: u64, b: u64) -> u64 {
    let ab = a.to_le_bytes();
    let off = (b & 7) as usize;
    let mut r = [0u8; 8];
    match op {
        "zap" | "zapnot" => {
            for (i, x) in r.iter_mut().enumerate() {
                let sel = (b >> i) & 1 == 1;
                if sel == (op == "zapnot") {
                    *x = ab[i];
                }
            }
        }
        "cmpbge" => {
            let bb = b.to_le_bytes();
            return (0..8).filter(|&i| ab[i] >= bb[i]).map(|i| 1u64 << i).sum();
        }
        "sll" => return a << (b & 63),
        "srl" => return a >> (b & 63),
        "sra" => return ((a as i64) >> (b & 63)) as u64,
        _ => {
            let w = width(op);
            let high = op.ends_with('h');
            // Datum byte i lives at position off+i of the 16-byte pair
            // (low quadword bytes 0-7, high quadword bytes 8-15).
            match &op[..3] {
                "ext" if !high => {
                    for i in 0..w {
                        if off + i < 8 {
                            r[i] = ab[off + i];
                        }
                    }
                }
                "ext" => {
                    for i in 0..w {
                        if off == 0 {
                            // byte_loc = 64 - 0 shifts by 64<5:0> = 0.
                            r[i] = ab[i];
                        } else if off + i >= 8 {
                            r[i] = ab[off + i - 8];
                        }
                    }
                }
                "ins" => {
                    for i in 0..w {
                        let pos = off + i;
                        if !high && pos < 8 {
                            r[pos] = ab[i];
                        }
                        if high && pos >= 8 {
                            r[pos - 8] = ab[i];
                        }
                    }
                }
                _ => {
                    r = ab;
                    for i in 0..w {
                        let pos = off + i;
                        if !high && pos < 8 {
                            r[pos] = 0;
                        }
                        if high && pos >= 8 {
                            r[pos - 8] = 0;
                        }
                    }
                }
            }
        }
    }
    u64::from_le_bytes(r)
}

/// One program: every op on ($1, $2), results stored to consecutive quadwords at $4.
fn program() -> String {
    let mut s = String::new();
    for (k, op) in OPS.iter().enumerate() {
        s += &format!("    {op} $1, $2, $3\n    stq $3, {}($4)\n", k * 8);
    }
    s += "    halt\n";
    s
}

fn run_all(m: &mut alpha_emu::Machine, a: u64, b: u64) -> Vec<u64> {
    let c = &mut m.cpus[0];
    c.pc = CODE;
    c.r[1] = a;
    c.r[2] = b;
    c.r[4] = DATA;
    run_to_halt(m);
    let bytes = data(m, 0, OPS.len() * 8);
    bytes
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn exec_byte_manipulation_matches_reference_on_handpicked_operands() {
    let mut m = machine_with("ev4", 1, &program());
    for a in [0u64, u64::MAX, 0x0123_4567_89ab_cdef, 0x8000_0000_0000_0001] {
        for b in 0..16u64 {
            let got = run_all(&mut m, a, b);
            for (k, op) in OPS.iter().enumerate() {
                assert_eq!(got[k], reference(op, a, b), "{op} a={a:#x} b={b}");
            }
        }
    }
}

proptest! {
    #[test]
    fn exec_byte_manipulation_matches_reference_on_random_operands(a: u64, b: u64) {
        let mut m = machine_with("ev4", 1, &program());
        let got = run_all(&mut m, a, b);
        for (k, op) in OPS.iter().enumerate() {
            prop_assert_eq!(got[k], reference(op, a, b), "{} a={:#x} b={:#x}", op, a, b);
        }
    }
}
