//! Helpers shared by the interpreter tests: assemble a snippet with
//! alpha-isa's assembler, place it in a fresh machine, run it to its `halt`.
#![allow(dead_code)]

use alpha_emu::memory::Perm;
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
    let words = alpha_isa::assemble_words(src, CODE)
        .unwrap_or_else(|e| panic!("assembling test snippet: {e}\n{src}"));
    let mut m = Machine::new(model(model_name), ncpus, None);
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
