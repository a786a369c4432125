//! Per-instruction cost of the IEEE operates: `fp::execute` (host fast path
//! with the reference fallback) against `fp::execute_reference`
//! (`rustc_apfloat` only), on ordinary normal operands in round to nearest.
//!
//! Run with `cargo bench -p alpha-emu --bench fp_ops [FILTER]`; each
//! benchmark is named `OP/host` or `OP/reference`.

use alpha_emu::fp::{self, fpcr, FpTrap};
use alpha_isa::{Insn, Op};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

type Exec = fn(&Insn, &mut [u64; 32], &mut [u64; 32], &mut u64, u64) -> Result<(), FpTrap>;

/// (name, op, fn11, Fa, Fb): fn11 0x80 is round to nearest, 0x5c0 is /SUI
/// dynamic, 0x2f is CVTTQ/C.
fn cases() -> Vec<(&'static str, Op, u32, u64, u64)> {
    let t = |x: f64| x.to_bits();
    let s = |x: f32| fp::lds_to_reg(x.to_bits());
    vec![
        ("addt", Op::Addt, 0x0a0, t(1.25), t(0.1)),
        ("addt_sud", Op::Addt, 0x5e0, t(1.25), t(0.1)),
        ("mult", Op::Mult, 0x0a2, t(1.25), t(0.1)),
        ("divt", Op::Divt, 0x0a3, t(1.0), t(3.0)),
        ("sqrtt", Op::Sqrtt, 0x0ab, 0, t(2.0)),
        ("cmptlt", Op::Cmptlt, 0x0a6, t(1.0), t(2.0)),
        ("cvttq_c", Op::Cvttq, 0x02f, 0, t(-12345.75)),
        ("cvtqt", Op::Cvtqt, 0x0be, 0, 123_456_789),
        ("cvtts", Op::Cvtts, 0x0ac, 0, t(0.1)),
        ("adds", Op::Adds, 0x080, s(1.25), s(0.1)),
        ("muls", Op::Muls, 0x082, s(1.25), s(0.1)),
        ("divs", Op::Divs, 0x083, s(1.0), s(3.0)),
        ("sqrts", Op::Sqrts, 0x08b, 0, s(2.0)),
    ]
}

fn bench(c: &mut Criterion) {
    for (name, op, func, a, b) in cases() {
        let insn = Insn {
            op,
            ra: 1,
            rb: 2,
            rc: 3,
            lit: None,
            disp: 0,
            func,
        };
        let paths: [(&str, Exec); 2] =
            [("host", fp::execute), ("reference", fp::execute_reference)];
        for (path, exec) in paths {
            let mut f = [0u64; 32];
            let mut r = [0u64; 32];
            f[1] = a;
            f[2] = b;
            let mut fpcr = fpcr::linux_initial_fpcr();
            c.bench_function(&format!("{name}/{path}"), |bench| {
                bench.iter(|| {
                    let res = exec(black_box(&insn), &mut f, &mut r, &mut fpcr, 0);
                    black_box((res, f[3]))
                })
            });
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
