//! PALcode function codes: the `func` field of `CALL_PAL` as the OSF/1
//! and Linux PALcode define them (Linux `arch/alpha/include/uapi/asm/pal.h`;
//! Handbook appendix C). The table's PALcode rows are spelled with them,
//! and the personalities (`alpha_emu::linux`, `alpha_emu::bare`) match
//! `Event::CallPal` on them, so no other crate writes a PALcode number.

/// `halt` (privileged): stops the processor.
pub const HALT: u32 = 0x0000;
/// `draina` (privileged): drain aborts, wait for outstanding writes.
pub const DRAINA: u32 = 0x0002;
/// `swpipl` (privileged, OSF/1): swap the interrupt priority level.
pub const SWPIPL: u32 = 0x0035;
/// `rdps` (privileged, OSF/1): read the processor status.
pub const RDPS: u32 = 0x0036;
/// `bpt`: breakpoint trap (SIGTRAP under Linux).
pub const BPT: u32 = 0x0080;
/// `bugchk`: bug check trap.
pub const BUGCHK: u32 = 0x0081;
/// `callsys` (also spelled `chmk`): system call.
pub const CALLSYS: u32 = 0x0083;
/// `imb`: instruction memory barrier (code was written).
pub const IMB: u32 = 0x0086;
/// `rduniq`: read the thread's unique value (glibc's thread pointer).
pub const RDUNIQ: u32 = 0x009e;
/// `wruniq`: write the thread's unique value.
pub const WRUNIQ: u32 = 0x009f;
/// `gentrap`: generate a software trap (SIGFPE/SIGTRAP by `$16`).
pub const GENTRAP: u32 = 0x00aa;
