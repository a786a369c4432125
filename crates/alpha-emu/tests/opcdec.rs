//! Extension gating per CPU model: an instruction of an extension the model
//! lacks is OPCDEC (Handbook Appendix D; the 21164 raises OPCDEC for BWX,
//! exactly as Linux's SIGILL on pre-EV56 shows), and runs where it exists.

mod common;
use alpha_emu::Event;
use alpha_isa::{Ext, MODELS};
use common::*;

const CASES: &[(&str, Ext)] = &[
    ("ldbu $1, 0($16)", Ext::Bwx),
    ("ldwu $1, 0($16)", Ext::Bwx),
    ("stb $1, 0($16)", Ext::Bwx),
    ("stw $1, 0($16)", Ext::Bwx),
    ("sextb $2, $1", Ext::Bwx),
    ("sextw $2, $1", Ext::Bwx),
    ("ctpop $2, $1", Ext::Cix),
    ("ctlz $2, $1", Ext::Cix),
    ("cttz $2, $1", Ext::Cix),
    ("minub8 $1, $2, $3", Ext::Mvi),
    ("maxsw4 $1, $2, $3", Ext::Mvi),
    ("perr $1, $2, $3", Ext::Mvi),
    ("pklb $2, $3", Ext::Mvi),
    ("unpkbw $2, $3", Ext::Mvi),
    ("itoft $1, $f1", Ext::Fix),
    ("ftoit $f1, $1", Ext::Fix),
    ("sqrtt $f1, $f2", Ext::Fix),
];

#[test]
fn fault_extension_instruction_is_opcdec_exactly_on_models_without_it() {
    let mut checked = 0;
    for m in MODELS {
        for &(insn, ext) in CASES {
            let mut mach = machine_with(m.name, 1, &format!("{insn}\n halt"));
            mach.cpus[0].r[16] = DATA;
            mach.cpus[0].r[2] = 0x80;
            let ev = mach.run(0, 10);
            if m.has(ext) {
                assert!(
                    !matches!(ev, Event::Opcdec { .. }),
                    "{}: `{insn}` must run, got {ev:?}",
                    m.name
                );
            } else {
                match ev {
                    Event::Opcdec { missing, .. } => {
                        assert_eq!(missing, Some(ext), "{}: {insn}", m.name)
                    }
                    other => panic!("{}: `{insn}` must be OPCDEC, got {other:?}", m.name),
                }
                assert_eq!(mach.cpus[0].pc, CODE, "OPCDEC leaves pc at the instruction");
                assert_eq!(mach.cpus[0].r[1], 0, "and changes nothing");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, MODELS.len() * CASES.len());
    assert_eq!(MODELS.len(), 11, "every model of the contract");
}

#[test]
fn fault_reserved_opcode_is_opcdec_without_extension() {
    // 0x04000000: opcode 0x01, reserved in every model.
    let mut mach = machine_with("ev67", 1, ".long 0x04000000\n halt");
    let ev = mach.run(0, 10);
    assert!(matches!(ev, Event::Opcdec { missing: None, .. }), "{ev:?}");
}

#[test]
fn exec_bwx_results_on_ev56() {
    let src = "ldbu $1, 1($16)\n ldwu $2, 2($16)\n sextb $1, $3\n sextw $2, $4\n halt";
    let mut m = machine_with("ev56", 1, src);
    m.mem.poke(DATA, &[0x11, 0x9a, 0x34, 0x82]).unwrap();
    m.cpus[0].r[16] = DATA;
    run_to_halt(&mut m);
    let r = &m.cpus[0].r;
    assert_eq!((r[1], r[2]), (0x9a, 0x8234));
    assert_eq!(r[3], 0xffff_ffff_ffff_ff9a);
    assert_eq!(r[4], 0xffff_ffff_ffff_8234);
}

#[test]
fn exec_cix_and_mvi_results_on_ev67() {
    let src = "ctpop $1, $2\n ctlz $1, $3\n cttz $1, $4\n cttz $31, $5\n minub8 $6, $7, $8\n halt";
    let mut m = machine_with("ev67", 1, src);
    m.cpus[0].r[1] = 0x00f0_0000_0000_0100;
    m.cpus[0].r[6] = 0x0102_0304_0506_0708;
    m.cpus[0].r[7] = 0x0807_0605_0403_0201;
    run_to_halt(&mut m);
    let r = &m.cpus[0].r;
    assert_eq!((r[2], r[3], r[4], r[5]), (5, 8, 8, 64));
    assert_eq!(r[8], 0x0102_0304_0403_0201);
}
