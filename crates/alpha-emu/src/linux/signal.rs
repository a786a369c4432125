//! Signals: dispositions, masks, pending sets, and delivery with the Alpha
//! frames of arch/alpha/kernel/signal.c (`struct sigframe` = sigcontext +
//! retcode; `struct rt_sigframe` = siginfo + ucontext + retcode, with
//! `uc_mcontext` at offset 176) and the layouts of asm/sigcontext.h and
//! asm/ucontext.h.

use crate::cpu::Cpu;
use crate::memory::Memory;

pub const NSIG: usize = 64;

// Alpha signal numbers (arch/alpha/include/uapi/asm/signal.h).
pub const SIGHUP: u8 = 1;
pub const SIGINT: u8 = 2;
pub const SIGQUIT: u8 = 3;
pub const SIGABRT: u8 = 6;
pub const SIGKILL: u8 = 9;
pub const SIGSEGV: u8 = 11;
pub const SIGPIPE: u8 = 13;
pub const SIGURG: u8 = 16;
pub const SIGSTOP: u8 = 17;
pub const SIGCONT: u8 = 19;
pub const SIGCHLD: u8 = 20;
pub const SIGWINCH: u8 = 28;
pub const SIGINFO: u8 = 29;

// sa_flags (asm/signal.h).
pub const SA_ONSTACK: u64 = 0x1;
pub const SA_RESTART: u64 = 0x2;
pub const SA_NODEFER: u64 = 0x8;
/// Children leave no zombies (asm/signal.h).
pub const SA_NOCLDWAIT: u64 = 0x20;
pub const SA_RESETHAND: u64 = 0x10;
pub const SA_SIGINFO: u64 = 0x40;

pub const SIG_DFL: u64 = 0;
pub const SIG_IGN: u64 = 1;

// si_code values (include/uapi/asm-generic/siginfo.h).
pub const SI_USER: i32 = 0;
pub const SI_TKILL: i32 = -6;
pub const SEGV_MAPERR: i32 = 1;
pub const SEGV_ACCERR: i32 = 2;
pub const BUS_ADRALN: i32 = 1;
pub const ILL_ILLOPC: i32 = 1;
pub const TRAP_BRKPT: i32 = 1;
pub const TRAP_UNK: i32 = 5;
pub use crate::fp::fpcr::{
    FPE_FLTDIV, FPE_FLTINV, FPE_FLTOVF, FPE_FLTRES, FPE_FLTUND, FPE_INTDIV, FPE_INTOVF,
};
pub const FPE_FLTUNK: i32 = 14;

// sigaltstack ss_flags.
pub const SS_ONSTACK: u64 = 1;
pub const SS_DISABLE: u64 = 2;

/// `__NR_sigreturn` and `__NR_rt_sigreturn` (syscall.tbl).
pub const NR_SIGRETURN: u64 = 103;
pub const NR_RT_SIGRETURN: u64 = 351;

const INSN_MOV_R30_R16: u32 = 0x47fe_0410;
const INSN_LDI_R0: u32 = 0x201f_0000;
const INSN_CALLSYS: u32 = 0x0000_0083;

/// Offsets in `struct sigcontext`.
const SC_SIZE: usize = 648;
const SC_ONSTACK: usize = 0;
const SC_MASK: usize = 8;
const SC_PC: usize = 16;
const SC_PS: usize = 24;
const SC_REGS: usize = 32;
const SC_FPREGS: usize = 296;
const SC_FPCR: usize = 552;
const SC_TRAPARG_A0: usize = 600;

/// `struct rt_sigframe`: siginfo (128) + ucontext (uc_flags, uc_link,
/// uc_osf_sigmask, uc_stack[24], uc_mcontext, uc_sigmask) + retcode[3].
const RT_UC: usize = 128;
const UC_OSF_SIGMASK: usize = 16;
const UC_STACK: usize = 24;
const UC_MCONTEXT: usize = 48;
const UC_SIGMASK: usize = UC_MCONTEXT + SC_SIZE;
const RT_RETCODE: usize = RT_UC + UC_SIGMASK + 8;
const RT_SIZE: usize = RT_RETCODE + 12;
const FRAME_RETCODE: usize = SC_SIZE;
const FRAME_SIZE: usize = SC_SIZE + 12;

/// A signal frame could not be written or read (the kernel forces SIGSEGV).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameFault;

/// One signal's disposition (the kernel's `k_sigaction`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Action {
    pub handler: u64,
    pub flags: u64,
    pub mask: u64,
    pub restorer: u64,
}

/// What is known about a signal being delivered (siginfo).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Info {
    pub signo: u8,
    pub code: i32,
    /// si_addr for faults, or (si_pid, si_uid) packed for kill.
    pub addr: u64,
    pub pid: u32,
    pub uid: u32,
    pub is_kill: bool,
    /// Thread the signal was sent to (`tkill`/`tgkill`), 0 for the process.
    pub target: u32,
    /// Sent by a timer: `pid` holds the POSIX timer id (si_tid), `uid`
    /// the overrun count, `value` the sigev_value (si_value).
    pub timer: bool,
    pub value: u64,
}

/// The alternate signal stack (`stack_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AltStack {
    pub sp: u64,
    pub flags: u64,
    pub size: u64,
}

/// Signal state of the process (one thread group; masks per thread are
/// kept by the caller in the thread).
#[derive(Clone, Debug)]
pub struct Signals {
    pub actions: [Action; NSIG + 1],
    /// Pending signals with their info (lowest number delivered first).
    pub pending: Vec<Info>,
}

impl Default for Signals {
    fn default() -> Self {
        Signals {
            actions: [Action::default(); NSIG + 1],
            pending: Vec::new(),
        }
    }
}

pub fn bit(sig: u8) -> u64 {
    1u64 << (sig as u32 - 1)
}

/// Signals whose default action is to do nothing.
pub fn default_ignored(sig: u8) -> bool {
    matches!(sig, SIGURG | SIGCONT | SIGCHLD | SIGWINCH | SIGINFO)
}

/// Signals whose default action stops the process (SIGSTOP, SIGTSTP,
/// SIGTTIN, SIGTTOU in Alpha numbering).
pub fn default_stop(sig: u8) -> bool {
    matches!(sig, SIGSTOP | 18 | 21 | 22)
}

/// Name for diagnostics.
pub fn name(sig: u8) -> String {
    let n = match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGEMT",
        8 => "SIGFPE",
        9 => "SIGKILL",
        10 => "SIGBUS",
        11 => "SIGSEGV",
        12 => "SIGSYS",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        16 => "SIGURG",
        17 => "SIGSTOP",
        18 => "SIGTSTP",
        19 => "SIGCONT",
        20 => "SIGCHLD",
        21 => "SIGTTIN",
        22 => "SIGTTOU",
        23 => "SIGIO",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        26 => "SIGVTALRM",
        27 => "SIGPROF",
        28 => "SIGWINCH",
        29 => "SIGINFO",
        30 => "SIGUSR1",
        31 => "SIGUSR2",
        n => return format!("SIG{n}"),
    };
    n.to_string()
}

fn put8(b: &mut [u8], off: usize, v: u64) {
    b[off..off + 8].copy_from_slice(&v.to_le_bytes());
}
fn put4(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_le_bytes());
}
fn get8(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap_or([0; 8]))
}

fn on_stack(alt: &AltStack, sp: u64) -> bool {
    alt.flags & SS_DISABLE == 0 && sp > alt.sp && sp - alt.sp <= alt.size
}

/// Fill a sigcontext at `b[at..]` from the CPU (setup_sigcontext).
fn write_sigcontext(b: &mut [u8], at: usize, cpu: &Cpu, mask: u64, sp: u64, onstack: bool) {
    put8(b, at + SC_ONSTACK, onstack as u64);
    put8(b, at + SC_MASK, mask);
    put8(b, at + SC_PC, cpu.pc);
    put8(b, at + SC_PS, 8);
    for i in 0..31 {
        put8(b, at + SC_REGS + 8 * i, cpu.r[i]);
        put8(b, at + SC_FPREGS + 8 * i, cpu.f[i]);
    }
    put8(b, at + SC_REGS + 8 * 30, sp);
    put8(b, at + SC_FPCR, cpu.fpcr);
    put8(b, at + SC_TRAPARG_A0, 0);
}

/// Deliver `info` to the handler `act` on `cpu`: build the frame on the
/// user (or alternate) stack and redirect the CPU (setup_frame /
/// setup_rt_frame). `mask` is the thread's mask to restore on return.
/// Err when the frame cannot be written (the kernel then forces SIGSEGV).
pub fn setup_frame(
    mem: &mut Memory,
    cpu: &mut Cpu,
    act: &Action,
    info: &Info,
    mask: u64,
    alt: &AltStack,
) -> Result<(), FrameFault> {
    let oldsp = cpu.r[30];
    let use_alt = act.flags & SA_ONSTACK != 0
        && alt.flags & SS_DISABLE == 0
        && alt.size != 0
        && !on_stack(alt, oldsp);
    let base = if use_alt {
        alt.sp.wrapping_add(alt.size)
    } else {
        oldsp
    };
    let onstack = use_alt || on_stack(alt, oldsp);
    let rt = act.flags & SA_SIGINFO != 0;
    let size = if rt { RT_SIZE } else { FRAME_SIZE };
    let frame = base.wrapping_sub(size as u64) & !31u64;
    let mut b = vec![0u8; size];
    let (sc_at, retcode_at, nr) = if rt {
        // siginfo: si_signo, si_errno, si_code, then the union at 16.
        put4(&mut b, 0, info.signo as u32);
        put4(&mut b, 8, info.code as u32);
        if info.is_kill {
            put4(&mut b, 16, info.pid);
            put4(&mut b, 20, info.uid);
        } else if info.timer {
            // _timer: si_tid, si_overrun, si_sigval.
            put4(&mut b, 16, info.pid);
            put4(&mut b, 20, info.uid);
            put8(&mut b, 24, info.value);
        } else {
            put8(&mut b, 16, info.addr);
        }
        put8(&mut b, RT_UC + UC_OSF_SIGMASK, mask);
        put8(&mut b, RT_UC + UC_STACK, alt.sp);
        put4(
            &mut b,
            RT_UC + UC_STACK + 8,
            if alt.size == 0 || alt.flags & SS_DISABLE != 0 {
                SS_DISABLE as u32
            } else if onstack {
                SS_ONSTACK as u32
            } else {
                0
            },
        );
        put8(&mut b, RT_UC + UC_STACK + 16, alt.size);
        put8(&mut b, RT_UC + UC_SIGMASK, mask);
        (RT_UC + UC_MCONTEXT, RT_RETCODE, NR_RT_SIGRETURN)
    } else {
        (0, FRAME_RETCODE, NR_SIGRETURN)
    };
    write_sigcontext(&mut b, sc_at, cpu, mask, oldsp, onstack);
    let mut r26 = act.restorer;
    if r26 == 0 {
        put4(&mut b, retcode_at, INSN_MOV_R30_R16);
        put4(&mut b, retcode_at + 4, INSN_LDI_R0 + nr as u32);
        put4(&mut b, retcode_at + 8, INSN_CALLSYS);
        r26 = frame.wrapping_add(retcode_at as u64);
    }
    mem.write_user(frame, &b).map_err(|_| FrameFault)?;
    cpu.r[26] = r26;
    cpu.r[27] = act.handler;
    cpu.pc = act.handler;
    cpu.r[16] = info.signo as u64;
    if rt {
        cpu.r[17] = frame;
        cpu.r[18] = frame.wrapping_add(RT_UC as u64);
    } else {
        cpu.r[17] = 0;
        cpu.r[18] = frame.wrapping_add(sc_at as u64);
    }
    cpu.r[30] = frame;
    Ok(())
}

/// Restore registers from the sigcontext at `sc` (restore_sigcontext);
/// returns the signal mask saved in it (`sc_mask`).
pub fn restore_sigcontext(mem: &Memory, cpu: &mut Cpu, sc: u64) -> Result<u64, FrameFault> {
    let mut b = vec![0u8; SC_SIZE];
    mem.read_user(sc, &mut b).map_err(|_| FrameFault)?;
    cpu.pc = get8(&b, SC_PC);
    for i in 0..31 {
        cpu.r[i] = get8(&b, SC_REGS + 8 * i);
        cpu.f[i] = get8(&b, SC_FPREGS + 8 * i);
    }
    cpu.fpcr = get8(&b, SC_FPCR);
    Ok(get8(&b, SC_MASK))
}

/// `rt_sigreturn(frame)`: the mask comes from `uc_sigmask`.
pub fn rt_sigreturn(mem: &Memory, cpu: &mut Cpu, frame: u64) -> Result<u64, FrameFault> {
    let mut m = [0u8; 8];
    mem.read_user(frame.wrapping_add((RT_UC + UC_SIGMASK) as u64), &mut m)
        .map_err(|_| FrameFault)?;
    restore_sigcontext(mem, cpu, frame.wrapping_add((RT_UC + UC_MCONTEXT) as u64))?;
    Ok(u64::from_le_bytes(m))
}

/// The kernel's gentrap si_code mapping (arch/alpha/kernel/traps.c,
/// do_entIF case 2): (signal, si_code).
pub fn gentrap(code: i64) -> (u8, i32) {
    match code {
        -1 => (8, FPE_INTOVF),
        -2 => (8, FPE_INTDIV),
        -3 => (8, FPE_FLTOVF),
        -4 => (8, FPE_FLTDIV),
        -5 => (8, FPE_FLTUND),
        -6 => (8, FPE_FLTINV),
        -7 => (8, FPE_FLTRES),
        -8 => (8, FPE_FLTUNK),
        _ => (5, TRAP_UNK),
    }
}
