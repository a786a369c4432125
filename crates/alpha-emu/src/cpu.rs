//! The architectural state of one Alpha processor (Handbook chapter 3).
//!
//! Plain data: a `Cpu` can be cloned, compared and snapshotted. It knows no
//! operating system. The LDx_L/STx_C reservation (lock_flag and
//! locked_physical_address, Handbook §4.2.4) is kept by [`crate::Memory`],
//! because stores by *other* agents must clear it; [`Cpu::lock_range`] is
//! this processor's lock-range size.

use alpha_isa::{Ext, Model};

/// One processor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cpu {
    /// Agent number of this CPU in its machine (indexes the reservations).
    pub id: usize,
    /// Integer registers; `r[31]` reads as zero (the interpreter re-zeroes
    /// it before each instruction, so writes to it vanish).
    pub r: [u64; 32],
    /// Floating registers, raw 64-bit register images; `f[31]` reads as zero.
    pub f: [u64; 32],
    /// Address of the next instruction to execute.
    pub pc: u64,
    /// Floating-point control register (Handbook §4.7.8).
    pub fpcr: u64,
    /// The operating system's IEEE software-completion control word
    /// (Linux: `osf_setsysinfo(SSI_IEEE_FP_CONTROL)`), read only by `/S`
    /// floating instructions; 0 on a bare machine.
    pub ieee_ctl: u64,
    /// The process unique value (thread pointer; `rduniq`/`wruniq`).
    pub uniq: u64,
    /// The interrupt flag read and written by `RC`/`RS` (Handbook §4.11.9).
    pub intr_flag: bool,
    /// Processor model: gates extensions, answers `AMASK` and `IMPLVER`.
    pub model: &'static Model,
    /// Size in bytes of the aligned locked range (power of two, 8..=8192).
    pub lock_range: u64,
    /// Instructions retired; `RPCC` reads its low 32 bits as the cycle counter.
    pub icount: u64,
}

impl Cpu {
    /// A reset CPU of `model`, agent `id`, with the model's default lock range.
    pub fn new(id: usize, model: &'static Model) -> Cpu {
        Cpu {
            id,
            r: [0; 32],
            f: [0; 32],
            pc: 0,
            fpcr: 0,
            ieee_ctl: 0,
            uniq: 0,
            intr_flag: false,
            model,
            lock_range: model.lock_range.clamp(8, 8192),
            icount: 0,
        }
    }

    /// Does this CPU implement `ext`?
    #[inline(always)]
    pub fn has(&self, ext: Ext) -> bool {
        self.model.has(ext)
    }
}

/// Is `n` a valid lock range (a power of two from 8 to the 8 KiB page)?
pub fn valid_lock_range(n: u64) -> bool {
    n.is_power_of_two() && (8..=8192).contains(&n)
}
