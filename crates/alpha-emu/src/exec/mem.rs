//! Integer loads and stores (Handbook §4.2), including the unaligned
//! quadword forms and LDx_L/STx_C.
//!
//! Alignment (§4.2): LDL/STL/LDL_L/STL_C need longword alignment,
//! LDQ/STQ/LDQ_L/STQ_C quadword, LDWU/STW word; LDQ_U/STQ_U ignore
//! `va<2:0>`; LDBU/STB have no constraint. A misaligned access raises
//! [`Event::Unaligned`] before any effect, so the OS personality can fix it
//! up with [`complete_unaligned`] (as Linux's `do_entUna` does) or signal.

use super::Event;
use crate::cpu::Cpu;
use crate::memory::{AccessKind, AccessRecord, MemFault, Memory};
use alpha_isa::{Insn, Op};

/// Width in bytes of an integer memory instruction, and whether it stores.
pub fn shape(op: Op) -> Option<(u8, bool)> {
    Some(match op {
        Op::Ldbu => (1, false),
        Op::Ldwu => (2, false),
        Op::Ldl | Op::LdlL => (4, false),
        Op::Ldq | Op::LdqL | Op::LdqU => (8, false),
        Op::Stb => (1, true),
        Op::Stw => (2, true),
        Op::Stl | Op::StlC => (4, true),
        Op::Stq | Op::StqC | Op::StqU => (8, true),
        _ => return None,
    })
}

/// The low address bits that must be zero for an integer memory
/// instruction (§4.2): none for LDQ_U/STQ_U, which ignore them, and for
/// byte accesses; `size - 1` otherwise.
pub fn align_mask(op: Op) -> u64 {
    match (op, shape(op)) {
        (Op::LdqU | Op::StqU, _) | (_, None) => 0,
        (_, Some((n, _))) => n as u64 - 1,
    }
}

#[inline(always)]
fn mf(e: MemFault) -> Event {
    Event::MemFault { fault: e }
}

#[inline(always)]
fn ea(cpu: &Cpu, insn: &Insn) -> u64 {
    cpu.r[(insn.rb & 31) as usize].wrapping_add(insn.disp as i64 as u64)
}

#[inline(always)]
fn check_align(insn: &Insn, va: u64, n: u64, is_store: bool) -> Result<(), Event> {
    if va & (n - 1) != 0 {
        return Err(Event::Unaligned {
            insn: *insn,
            addr: va,
            size: n as u8,
            is_store,
        });
    }
    Ok(())
}

/// Record an access when memory tracing is on. The hot functions take a
/// `const T: bool`: the interpreter's loop is compiled twice, and the
/// version that runs while tracing is off contains no tracing code at all.
#[inline(always)]
pub(crate) fn trace(
    mem: &mut Memory,
    agent: usize,
    addr: u64,
    size: u8,
    kind: AccessKind,
    is_store: bool,
    value: u64,
) {
    if mem.tracing() {
        let value = if size >= 8 {
            value
        } else {
            value & ((1u64 << (size * 8)) - 1)
        };
        let (pc, icount) = mem.trace_site();
        mem.record(AccessRecord {
            agent,
            pc,
            icount,
            addr,
            size,
            kind,
            is_store,
            value,
        });
    }
}

macro_rules! load_fn {
    ($(#[$m:meta])* $name:ident, $n:literal, $align:literal, $conv:expr) => {
        $(#[$m])*
        #[inline(always)]
        pub fn $name<const T: bool>(cpu: &mut Cpu, mem: &mut Memory, insn: &Insn) -> Result<(), Event> {
            let va = ea(cpu, insn);
            if $align {
                check_align(insn, va, $n, false)?;
            }
            let v = mem.load::<$n>(va).map_err(mf)?;
            if T {
                trace(mem, cpu.id, va, $n, AccessKind::Plain, false, v);
            }
            cpu.r[(insn.ra & 31) as usize] = $conv(v);
            Ok(())
        }
    };
}

macro_rules! store_fn {
    ($(#[$m:meta])* $name:ident, $n:literal, $align:literal) => {
        $(#[$m])*
        #[inline(always)]
        pub fn $name<const T: bool>(cpu: &mut Cpu, mem: &mut Memory, insn: &Insn) -> Result<(), Event> {
            let va = ea(cpu, insn);
            if $align {
                check_align(insn, va, $n, true)?;
            }
            let v = cpu.r[(insn.ra & 31) as usize];
            mem.store::<$n>(cpu.id, va, v).map_err(mf)?;
            if T {
                trace(mem, cpu.id, va, $n, AccessKind::Plain, true, v);
            }
            Ok(())
        }
    };
}

#[inline(always)]
fn zext(v: u64) -> u64 {
    v
}

#[inline(always)]
fn sext32(v: u64) -> u64 {
    v as u32 as i32 as i64 as u64
}

load_fn!(/// LDBU (BWX): byte, zero-extended.
    ldbu, 1, false, zext);
load_fn!(/// LDWU (BWX): word, zero-extended.
    ldwu, 2, true, zext);
load_fn!(/// LDL: longword, sign-extended.
    ldl, 4, true, sext32);
load_fn!(/// LDQ.
    ldq, 8, true, zext);
store_fn!(/// STB (BWX).
    stb, 1, false);
store_fn!(/// STW (BWX).
    stw, 2, true);
store_fn!(/// STL.
    stl, 4, true);
store_fn!(/// STQ.
    stq, 8, true);

/// LDQ_U: the aligned quadword containing the address (`va<2:0>` ignored).
#[inline(always)]
pub fn ldq_u<const T: bool>(cpu: &mut Cpu, mem: &mut Memory, insn: &Insn) -> Result<(), Event> {
    let va = ea(cpu, insn) & !7;
    let v = mem.load::<8>(va).map_err(mf)?;
    if T {
        trace(mem, cpu.id, va, 8, AccessKind::UnalignedQuad, false, v);
    }
    cpu.r[(insn.ra & 31) as usize] = v;
    Ok(())
}

/// STQ_U: store to the aligned quadword containing the address.
#[inline(always)]
pub fn stq_u<const T: bool>(cpu: &mut Cpu, mem: &mut Memory, insn: &Insn) -> Result<(), Event> {
    let va = ea(cpu, insn) & !7;
    let v = cpu.r[(insn.ra & 31) as usize];
    mem.store::<8>(cpu.id, va, v).map_err(mf)?;
    if T {
        trace(mem, cpu.id, va, 8, AccessKind::UnalignedQuad, true, v);
    }
    Ok(())
}

/// LDL_L / LDQ_L: load, then record locked_physical_address and set the
/// lock flag (§4.2.4). The reservation is armed only if the load succeeded.
pub fn load_locked(cpu: &mut Cpu, mem: &mut Memory, insn: &Insn) -> Result<(), Event> {
    let va = ea(cpu, insn);
    let quad = insn.op == Op::LdqL;
    let v = if quad {
        check_align(insn, va, 8, false)?;
        mem.load::<8>(va).map_err(mf)?
    } else {
        check_align(insn, va, 4, false)?;
        sext32(mem.load::<4>(va).map_err(mf)?)
    };
    cpu.r[(insn.ra & 31) as usize] = v;
    mem.arm_reservation(cpu.id, va, cpu.lock_range);
    trace(
        mem,
        cpu.id,
        va,
        if quad { 8 } else { 4 },
        AccessKind::LoadLocked,
        false,
        v,
    );
    Ok(())
}

/// STL_C / STQ_C.
pub fn store_cond(cpu: &mut Cpu, mem: &mut Memory, insn: &Insn) -> Result<(), Event> {
    let va = ea(cpu, insn);
    let n: u64 = if insn.op == Op::StlC { 4 } else { 8 };
    check_align(insn, va, n, true)?;
    store_conditional(cpu, mem, va, n, (insn.ra & 31) as usize)
}

/// Execute any integer load or store (dispatching on the opcode).
pub fn access(cpu: &mut Cpu, mem: &mut Memory, insn: &Insn) -> Result<(), Event> {
    match insn.op {
        Op::Ldbu => ldbu::<true>(cpu, mem, insn),
        Op::Ldwu => ldwu::<true>(cpu, mem, insn),
        Op::Ldl => ldl::<true>(cpu, mem, insn),
        Op::Ldq => ldq::<true>(cpu, mem, insn),
        Op::LdqU => ldq_u::<true>(cpu, mem, insn),
        Op::Stb => stb::<true>(cpu, mem, insn),
        Op::Stw => stw::<true>(cpu, mem, insn),
        Op::Stl => stl::<true>(cpu, mem, insn),
        Op::Stq => stq::<true>(cpu, mem, insn),
        Op::StqU => stq_u::<true>(cpu, mem, insn),
        Op::LdlL | Op::LdqL => load_locked(cpu, mem, insn),
        Op::StlC | Op::StqC => store_cond(cpu, mem, insn),
        _ => Err(Event::Opcdec {
            insn: *insn,
            missing: None,
        }),
    }
}

/// STx_C (§4.2.5): stores and writes 1 to Ra iff this CPU's lock flag is
/// set and (a conservative reading of "UNPREDICTABLE" for a different
/// address) the address lies in the same locked range as the LDx_L's;
/// otherwise writes 0 and stores nothing. The lock flag is cleared in every
/// case. A fault is raised before any effect (flag kept, Ra unchanged).
fn store_conditional(
    cpu: &mut Cpu,
    mem: &mut Memory,
    va: u64,
    n: u64,
    ra: usize,
) -> Result<(), Event> {
    let agent = cpu.id;
    let res = mem.reservation(agent);
    let ok = res.lock_flag && res.covers(va, n);
    let v = cpu.r[ra];
    if ok {
        mem.probe_write(va, n).map_err(mf)?;
        if n == 4 {
            mem.store::<4>(agent, va, v).map_err(mf)?;
        } else {
            mem.store::<8>(agent, va, v).map_err(mf)?;
        }
    }
    let kind = if ok {
        AccessKind::StoreConditional
    } else {
        AccessKind::StoreConditionalFailed
    };
    trace(mem, agent, va, n as u8, kind, ok, v);
    mem.clear_reservation(agent);
    cpu.r[ra] = ok as u64;
    Ok(())
}

/// Finish an access that raised [`Event::Unaligned`], byte-exactly as if
/// the hardware allowed it (the Linux kernel's `do_entUna` fix-up: LDWU,
/// LDL, LDQ, STW, STL, STQ and LDS, LDT, STS, STT), and return the next pc.
/// LDx_L/STx_C are not fixed up (Linux does not either): they return the
/// event back.
pub fn complete_unaligned(
    cpu: &mut Cpu,
    mem: &mut Memory,
    insn: Insn,
    pc: u64,
) -> Result<u64, Event> {
    let ra = (insn.ra & 31) as usize;
    let rb = (insn.rb & 31) as usize;
    let va = cpu.r[rb].wrapping_add(insn.disp as i64 as u64);
    let agent = cpu.id;
    if mem.tracing() {
        mem.set_trace_site(pc, cpu.icount);
    }
    let split = |mem: &mut Memory, n: u64| -> Result<u64, Event> {
        let mut v = 0u64;
        for i in 0..n {
            let b = mem.load::<1>(va.wrapping_add(i)).map_err(mf)?;
            v |= b << (8 * i);
        }
        Ok(v)
    };
    let store = |mem: &mut Memory, n: u64, v: u64| -> Result<(), Event> {
        mem.probe_write(va, n).map_err(mf)?;
        for i in 0..n {
            mem.store::<1>(agent, va.wrapping_add(i), v >> (8 * i))
                .map_err(mf)?;
        }
        Ok(())
    };
    match insn.op {
        Op::Ldwu => cpu.r[ra] = split(mem, 2)?,
        Op::Ldl => cpu.r[ra] = split(mem, 4)? as u32 as i32 as i64 as u64,
        Op::Ldq => cpu.r[ra] = split(mem, 8)?,
        Op::Stw => store(mem, 2, cpu.r[ra])?,
        Op::Stl => store(mem, 4, cpu.r[ra])?,
        Op::Stq => store(mem, 8, cpu.r[ra])?,
        // The floating forms Linux's do_entUna also completes.
        Op::Lds => cpu.f[ra] = crate::fp::lds_to_reg(split(mem, 4)? as u32),
        Op::Ldt => cpu.f[ra] = split(mem, 8)?,
        Op::Sts => store(mem, 4, crate::fp::sts_from_reg(cpu.f[ra]) as u64)?,
        Op::Stt => store(mem, 8, cpu.f[ra])?,
        _ => {
            let (size, is_store) = shape(insn.op).unwrap_or((8, false));
            return Err(Event::Unaligned {
                insn,
                addr: va,
                size,
                is_store,
            });
        }
    }
    if let Some((size, is_store)) = shape(insn.op) {
        trace(mem, agent, va, size, AccessKind::Plain, is_store, cpu.r[ra]);
    }
    cpu.r[31] = 0;
    cpu.f[31] = 0;
    Ok(pc.wrapping_add(4))
}
