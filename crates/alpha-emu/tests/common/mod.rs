//! Helpers shared by the interpreter tests: assemble a snippet with
//! alpha-isa's assembler, place it in a fresh machine, run it to its `halt`.
#![allow(dead_code)]

use alpha_emu::memory::{MemoryKind, Perm};
use alpha_emu::{Event, Machine};
use alpha_isa::Model;

/// Where snippets' code goes.
pub const CODE: u64 = 0x10000;
/// A read-write data area of 64 KiB for snippets.
pub const DATA: u64 = 0x100000;
pub const DATA_LEN: u64 = 0x10000;

pub fn model(name: &str) -> &'static Model {
    alpha_isa::model_by_name(name).unwrap_or_else(|| panic!("model {name} missing"))
}

/// A machine of `ncpus` CPUs of `model` with `src` assembled at [`CODE`] and
/// the data area mapped. Every CPU starts at `CODE`.
pub fn machine_with(model_name: &str, ncpus: usize, src: &str) -> Machine {
    machine_with_kind(model_name, ncpus, src, MemoryKind::Portable)
}

/// [`machine_with`] over memory of `kind`; host-mapped memory must be
/// available (an x86-64 Linux host with room for the reservation).
pub fn machine_with_kind(model_name: &str, ncpus: usize, src: &str, kind: MemoryKind) -> Machine {
    let words = alpha_isa::assemble_words(src, CODE)
        .unwrap_or_else(|e| panic!("assembling test snippet: {e}\n{src}"));
    let (mut m, why) = Machine::of_kind(model(model_name), ncpus, None, kind);
    assert!(why.is_none(), "no host-mapped memory: {why:?}");
    let len = ((words.len() as u64 * 4) + 0x1fff) & !0x1fff;
    m.mem.map_zero(CODE, len.max(0x2000), Perm::RX).unwrap();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    m.mem.poke(CODE, &bytes).unwrap();
    m.mem.map_zero(DATA, DATA_LEN, Perm::RW).unwrap();
    for c in &mut m.cpus {
        c.pc = CODE;
    }
    m
}

/// Run CPU `cpu` until it stops; panics on a runaway.
pub fn run(m: &mut Machine, cpu: usize) -> Event {
    m.run(cpu, 1_000_000)
}

/// Run CPU 0 of a one-CPU machine to its final `halt` (CALL_PAL 0) and
/// return the machine; panics on any other event.
pub fn run_to_halt(m: &mut Machine) {
    let ev = run(m, 0);
    assert_eq!(ev, Event::CallPal { func: 0 }, "snippet did not reach halt");
}

/// Read `n` bytes of the data area at `off`.
pub fn data(m: &Machine, off: u64, n: usize) -> Vec<u8> {
    let mut v = vec![0; n];
    m.mem.peek(DATA + off, &mut v).unwrap();
    v
}

/// Fill the data area's first `n` bytes with a recognisable pattern.
pub fn fill_pattern(m: &mut Machine, n: usize) -> Vec<u8> {
    let v: Vec<u8> = (0..n)
        .map(|i| (i as u8).wrapping_mul(37).wrapping_add(0x81))
        .collect();
    m.mem.poke(DATA, &v).unwrap();
    v
}

// ---- random programs (fast_path.rs, jit.rs)

/// Instruction templates: `A`/`B`/`C` are registers $1-$8, `L` a literal,
/// `D` a quadword-aligned displacement into the data area (base $9).
pub const TEMPLATES: &[&str] = &[
    "lda A, L(B)",
    "ldah A, L(B)",
    "addq A, B, C",
    "addq A, L, C",
    "subq A, B, C",
    "subq A, L, C",
    "addl A, B, C",
    "addl A, L, C",
    "subl A, B, C",
    "subl A, L, C",
    "and A, B, C",
    "and A, L, C",
    "bic A, B, C",
    "bic A, L, C",
    "bis A, B, C",
    "bis A, L, C",
    "xor A, B, C",
    "xor A, L, C",
    "sll A, B, C",
    "sll A, L, C",
    "srl A, B, C",
    "srl A, L, C",
    "sra A, B, C",
    "sra A, L, C",
    "cmpeq A, B, C",
    "cmpeq A, L, C",
    "cmpult A, B, C",
    "cmpult A, L, C",
    "cmplt A, B, C",
    "cmplt A, L, C",
    "cmple A, B, C",
    "cmple A, L, C",
    "zapnot A, B, C",
    "zapnot A, L, C",
    "ldq A, D($9)",
    "ldl A, D($9)",
    "ldq_u A, D($9)",
    "stq A, D($9)",
    "stl A, D($9)",
    "stq_u A, D($9)",
    "ldbu A, D($9)",
    "stb A, D($9)",
    "ldwu A, D($9)",
    "stw A, D($9)",
    "sextw B, C",
    "beq A, 1f",
    "bne A, 1f",
    "blt A, 1f",
    "bge A, 1f",
    "ble A, 1f",
    "bgt A, 1f",
    "blbc A, 1f",
    "blbs A, 1f",
    "br 1f",
    "bsr A, 1f",
    "s4addl A, B, C",
    "s4addl A, L, C",
    "s8addl A, B, C",
    "s8addl A, L, C",
    "s4subl A, B, C",
    "s4subl A, L, C",
    "s8subl A, B, C",
    "s8subl A, L, C",
    "s4addq A, B, C",
    "s4addq A, L, C",
    "s8addq A, B, C",
    "s8addq A, L, C",
    "s4subq A, B, C",
    "s4subq A, L, C",
    "s8subq A, B, C",
    "s8subq A, L, C",
    "ornot A, B, C",
    "ornot A, L, C",
    "eqv A, B, C",
    "eqv A, L, C",
    "cmpule A, B, C",
    "cmpule A, L, C",
    "cmpbge A, B, C",
    "cmpbge A, L, C",
    "mull A, B, C",
    "mull A, L, C",
    "mulq A, B, C",
    "mulq A, L, C",
    "umulh A, B, C",
    "umulh A, L, C",
    "zap A, B, C",
    "zap A, L, C",
    "extbl A, B, C",
    "extbl A, L, C",
    "extwl A, B, C",
    "extwl A, L, C",
    "extll A, B, C",
    "extll A, L, C",
    "extql A, B, C",
    "extql A, L, C",
    "extwh A, B, C",
    "extwh A, L, C",
    "extlh A, B, C",
    "extlh A, L, C",
    "extqh A, B, C",
    "extqh A, L, C",
    "insbl A, B, C",
    "insbl A, L, C",
    "inswl A, B, C",
    "inswl A, L, C",
    "insll A, B, C",
    "insll A, L, C",
    "insql A, B, C",
    "insql A, L, C",
    "inswh A, B, C",
    "inswh A, L, C",
    "inslh A, B, C",
    "inslh A, L, C",
    "insqh A, B, C",
    "insqh A, L, C",
    "mskbl A, B, C",
    "mskbl A, L, C",
    "mskwl A, B, C",
    "mskwl A, L, C",
    "mskll A, B, C",
    "mskll A, L, C",
    "mskql A, B, C",
    "mskql A, L, C",
    "mskwh A, B, C",
    "mskwh A, L, C",
    "msklh A, B, C",
    "msklh A, L, C",
    "mskqh A, B, C",
    "mskqh A, L, C",
    "cmoveq A, B, C",
    "cmoveq A, L, C",
    "cmovne A, B, C",
    "cmovne A, L, C",
    "cmovlt A, B, C",
    "cmovlt A, L, C",
    "cmovge A, B, C",
    "cmovge A, L, C",
    "cmovle A, B, C",
    "cmovle A, L, C",
    "cmovgt A, B, C",
    "cmovgt A, L, C",
    "cmovlbs A, B, C",
    "cmovlbs A, L, C",
    "cmovlbc A, B, C",
    "cmovlbc A, L, C",
    // R31 as source and as destination (the latter must be a no-op).
    "addq $31, L, C",
    "mulq A, B, $31",
    "cmovne A, L, $31",
    "s8addl $31, B, C",
    "mskqh A, $31, C",
    "ctpop A, C",
    "sextb A, C",
    // Misaligned (`U`: any byte offset) and wild (`0(B)`: a random
    // register, almost never mapped) accesses stop with an event.
    "ldl A, U($9)",
    "ldq A, U($9)",
    "ldwu A, U($9)",
    "stl A, U($9)",
    "stq A, U($9)",
    "stw A, U($9)",
    "ldq A, 0(B)",
    "stb A, 0(B)",
];

pub fn render(choices: &[(usize, u8, u8, u8, u8, u16)]) -> String {
    let mut s = String::new();
    for &(t, a, b, c, l, d) in choices {
        let t = TEMPLATES[t % TEMPLATES.len()];
        let line = t
            .replace('A', &format!("${}", 1 + a % 8))
            .replace('B', &format!("${}", 1 + b % 8))
            .replace('C', &format!("${}", 1 + c % 8))
            .replace('L', &format!("{}", l))
            .replace('D', &format!("{}", (d % 512) * 8))
            .replace('U', &format!("{}", (d % 512) * 8 + (d >> 9) % 8));
        s += &format!("    {line}\n    addq $10, 1, $10\n1:\n");
    }
    s += "    halt\n";
    s
}
