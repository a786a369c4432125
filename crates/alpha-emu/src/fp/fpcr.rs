//! The floating-point control register (Handbook §4.7.8) and the Linux
//! software IEEE control word (`ieee_fp_control`, set by
//! `osf_setsysinfo(SSI_IEEE_FP_CONTROL)`; bit layout of the Linux uapi header
//! `arch/alpha/include/uapi/asm/fpu.h`).

/// FPCR<47> DNOD: denormal operand trap disable (21264 and later).
pub const FPCR_DNOD: u64 = 1 << 47;
/// FPCR<48> DNZ: denormal operands are treated as zero (with `/S`).
pub const FPCR_DNZ: u64 = 1 << 48;
/// FPCR<49> INVD: invalid operation trap disable.
pub const FPCR_INVD: u64 = 1 << 49;
/// FPCR<50> DZED: division-by-zero trap disable.
pub const FPCR_DZED: u64 = 1 << 50;
/// FPCR<51> OVFD: overflow trap disable.
pub const FPCR_OVFD: u64 = 1 << 51;
/// FPCR<52> INV: invalid operation status (sticky).
pub const FPCR_INV: u64 = 1 << 52;
/// FPCR<53> DZE: division by zero status.
pub const FPCR_DZE: u64 = 1 << 53;
/// FPCR<54> OVF: overflow status.
pub const FPCR_OVF: u64 = 1 << 54;
/// FPCR<55> UNF: underflow status.
pub const FPCR_UNF: u64 = 1 << 55;
/// FPCR<56> INE: inexact status.
pub const FPCR_INE: u64 = 1 << 56;
/// FPCR<57> IOV: integer overflow status.
pub const FPCR_IOV: u64 = 1 << 57;
/// FPCR<59:58> DYN: dynamic rounding mode.
pub const FPCR_DYN_MASK: u64 = 3 << 58;
/// FPCR<59:58> = 10: round to nearest.
pub const FPCR_DYN_NORMAL: u64 = 2 << 58;
/// FPCR<60> UNDZ: underflow to zero.
pub const FPCR_UNDZ: u64 = 1 << 60;
/// FPCR<61> UNFD: underflow trap disable.
pub const FPCR_UNFD: u64 = 1 << 61;
/// FPCR<62> INED: inexact trap disable.
pub const FPCR_INED: u64 = 1 << 62;
/// FPCR<63> SUM: summary, the OR of the status bits <57:52>.
pub const FPCR_SUM: u64 = 1 << 63;
/// The status bits <57:52>.
pub const FPCR_STATUS_MASK: u64 = 0x3f << 52;
/// Bits of the FPCR that exist; <46:0> are reserved and read as zero.
pub const FPCR_IMPLEMENTED: u64 = 0xffff_8000_0000_0000;

/// Software control word: trap enables (`IEEE_TRAP_ENABLE_*`).
pub const IEEE_TRAP_ENABLE_INV: u64 = 1 << 1;
pub const IEEE_TRAP_ENABLE_DZE: u64 = 1 << 2;
pub const IEEE_TRAP_ENABLE_OVF: u64 = 1 << 3;
pub const IEEE_TRAP_ENABLE_UNF: u64 = 1 << 4;
pub const IEEE_TRAP_ENABLE_INE: u64 = 1 << 5;
pub const IEEE_TRAP_ENABLE_DNO: u64 = 1 << 6;
pub const IEEE_TRAP_ENABLE_MASK: u64 = 0x7e;
/// Map denormal operands to zero (`IEEE_MAP_DMZ`).
pub const IEEE_MAP_DMZ: u64 = 1 << 12;
/// Map underflowed results to zero (`IEEE_MAP_UMZ`).
pub const IEEE_MAP_UMZ: u64 = 1 << 13;
/// Software control word: status bits (`IEEE_STATUS_*`), trap enables << 16.
pub const IEEE_STATUS_INV: u64 = 1 << 17;
pub const IEEE_STATUS_MASK: u64 = 0x7e << 16;

/// A set of IEEE exceptions. Bit `i` is FPCR bit `52 + i`, so the set
/// shifted left by 52 is the FPCR status field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Exc(pub u8);

impl Exc {
    pub const NONE: Exc = Exc(0);
    /// Invalid operation.
    pub const INV: Exc = Exc(1);
    /// Division by zero.
    pub const DZE: Exc = Exc(2);
    /// Overflow.
    pub const OVF: Exc = Exc(4);
    /// Underflow.
    pub const UNF: Exc = Exc(8);
    /// Inexact result.
    pub const INE: Exc = Exc(16);
    /// Integer overflow (CVTTQ, CVTQL).
    pub const IOV: Exc = Exc(32);

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn contains(self, other: Exc) -> bool {
        self.0 & other.0 == other.0
    }
    pub fn intersects(self, other: Exc) -> bool {
        self.0 & other.0 != 0
    }
    /// The FPCR status bits for this set.
    pub fn fpcr_bits(self) -> u64 {
        u64::from(self.0) << 52
    }
    /// The set recorded in FPCR status bits <57:52>.
    pub fn from_fpcr(fpcr: u64) -> Exc {
        Exc(((fpcr >> 52) & 0x3f) as u8)
    }
    /// The exceptions as the Linux kernel's software completion reports them
    /// (soft-fp has no integer-overflow flag: an overflowing conversion is
    /// an invalid operation).
    pub fn as_kernel(self) -> Exc {
        let mut e = Exc(self.0 & 0x1f);
        if self.intersects(Exc::IOV) {
            e |= Exc::INV;
        }
        e
    }
    /// Software-control-word trap-enable bits for this set (`IEEE_TRAP_ENABLE_*`).
    pub fn swcr_enable_bits(self) -> u64 {
        u64::from(self.as_kernel().0) << 1
    }
    /// The Linux `si_code` the kernel gives SIGFPE for these exceptions
    /// (priority of `alpha_fp_emul`: INV over DZE over OVF over UNF over INE).
    pub fn si_code(self) -> i32 {
        let k = self.as_kernel();
        if k.intersects(Exc::INV) {
            FPE_FLTINV
        } else if k.intersects(Exc::DZE) {
            FPE_FLTDIV
        } else if k.intersects(Exc::OVF) {
            FPE_FLTOVF
        } else if k.intersects(Exc::UNF) {
            FPE_FLTUND
        } else if k.intersects(Exc::INE) {
            FPE_FLTRES
        } else {
            FPE_FLTINV
        }
    }
}

impl std::ops::BitOr for Exc {
    type Output = Exc;
    fn bitor(self, rhs: Exc) -> Exc {
        Exc(self.0 | rhs.0)
    }
}
impl std::ops::BitOrAssign for Exc {
    fn bitor_assign(&mut self, rhs: Exc) {
        self.0 |= rhs.0;
    }
}
impl std::ops::BitAnd for Exc {
    type Output = Exc;
    fn bitand(self, rhs: Exc) -> Exc {
        Exc(self.0 & rhs.0)
    }
}

/// Linux `si_code` values for SIGFPE (`include/uapi/asm-generic/siginfo.h`).
pub const FPE_INTDIV: i32 = 1;
pub const FPE_INTOVF: i32 = 2;
pub const FPE_FLTDIV: i32 = 3;
pub const FPE_FLTOVF: i32 = 4;
pub const FPE_FLTUND: i32 = 5;
pub const FPE_FLTRES: i32 = 6;
pub const FPE_FLTINV: i32 = 7;

/// Record `exc` in the FPCR's sticky status bits and keep SUM consistent.
pub fn record(fpcr: u64, exc: Exc) -> u64 {
    with_summary(fpcr | exc.fpcr_bits())
}

/// Set SUM when any status bit is set (Handbook §4.7.8: SUM is the OR of
/// the exception bits).
pub fn with_summary(fpcr: u64) -> u64 {
    if fpcr & FPCR_STATUS_MASK != 0 {
        fpcr | FPCR_SUM
    } else {
        fpcr
    }
}

/// The FPCR value an `MT_FPCR` of `value` leaves: reserved bits <46:0>
/// read as zero, SUM follows the status bits.
pub fn mt_fpcr(value: u64) -> u64 {
    with_summary(value & FPCR_IMPLEMENTED)
}

/// The FPCR the Linux kernel derives from a software control word
/// (`ieee_swcr_to_fpcr` in `arch/alpha/include/asm/fpu.h`, written by
/// `osf_setsysinfo(SSI_IEEE_FP_CONTROL)`); the caller keeps FPCR<59:58>.
pub fn fpcr_from_swcr(sw: u64) -> u64 {
    let mut fp = (sw & IEEE_STATUS_MASK) << 35;
    fp |= (sw & IEEE_MAP_DMZ) << 36;
    if sw & IEEE_STATUS_MASK != 0 {
        fp |= FPCR_SUM;
    }
    fp |= (!sw & (IEEE_TRAP_ENABLE_INV | IEEE_TRAP_ENABLE_DZE | IEEE_TRAP_ENABLE_OVF)) << 48;
    fp |= (!sw & (IEEE_TRAP_ENABLE_UNF | IEEE_TRAP_ENABLE_INE)) << 57;
    if sw & IEEE_MAP_UMZ != 0 {
        fp |= FPCR_UNDZ | FPCR_UNFD;
    }
    fp |= (!sw & IEEE_TRAP_ENABLE_DNO) << 41;
    fp
}

/// The software-control-word status bits the kernel reads back from the
/// FPCR (`ieee_fpcr_to_swcr`, status part): what `GSI_IEEE_FP_CONTROL`
/// ORs into the process's `ieee_state`.
pub fn swcr_status_from_fpcr(fpcr: u64) -> u64 {
    (fpcr >> 35) & IEEE_STATUS_MASK
}

/// The FPCR a new Linux process starts with (`flush_thread`:
/// `FPCR_DYN_NORMAL | ieee_swcr_to_fpcr(0)`): round to nearest, every trap
/// disabled in the software control word.
pub fn linux_initial_fpcr() -> u64 {
    FPCR_DYN_NORMAL | fpcr_from_swcr(0)
}
