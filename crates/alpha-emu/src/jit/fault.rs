//! Host faults inside compiled code (host-mapped memory only).
//!
//! Compiled code over a host-mapped memory ([`crate::memory::JitAccess::Direct`])
//! accesses guest bytes with one host instruction. When the host refuses
//! the access (an unmapped or protected page, a page holding code or
//! another agent's lock range), or the compiled alignment or range test
//! fails (a `ud2`), the host raises SIGSEGV, SIGBUS or SIGILL in the middle
//! of a region. The handler here turns that into an ordinary exit: it
//! finds the faulting host instruction in the table the compiler wrote
//! ([`Sites`]: host offset → guest instruction and the budget its block
//! had not yet spent), makes the region return that instruction's pc with
//! [`super::Exit::Fault`], and the run loop interprets the instruction —
//! which then raises exactly the guest fault the interpreter raises (or,
//! for a page the host protects more than the guest, carries the access
//! out). Nothing is lost by stopping there: guest registers are written
//! through to the CPU state as compiled code computes them, and the
//! faulting instruction has had no effect.
//!
//! Leaving a region from a signal handler: every region is entered through
//! [`jit_call`], a small assembly trampoline that saves the host's
//! callee-saved registers and stack pointer in the [`JitCtx`]; the handler
//! points the interrupted context at `subword_jit_resume`, which restores
//! them and returns from `jit_call` as if the region had returned.
//!
//! **Statics.** A signal handler can reach only statics. There are two:
//! `CURRENT`, a thread-local pointer to the [`JitCtx`] of the compiled code
//! this thread is running (null outside compiled code), and `PREVIOUS`,
//! the dispositions the handler replaced. A fault whose thread is not in
//! compiled code, or whose instruction is not a recorded site of the
//! current code, is not ours: it goes to the previous handler (Rust's
//! stack-overflow handler, or the default action), so it stays a real
//! crash.

use super::{Exit, JitCtx, RegionFn};
use std::cell::Cell;
use std::sync::OnceLock;

/// Trap code of the compiled alignment and range test (see
/// `Emitter::check_access`).
pub(crate) const TRAP_CHECK: u8 = 1;
/// Trap code of a compiled guest load or store.
pub(crate) const TRAP_ACCESS: u8 = 2;

thread_local! {
    static CURRENT: Cell<*mut JitCtx> = const { Cell::new(std::ptr::null_mut()) };
}

/// The host signals a compiled access can raise.
const SIGNALS: [libc::c_int; 3] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL];

struct Previous([libc::sigaction; 3]);
// SAFETY: plain data (handler addresses, masks, flags), never mutated
// after it is set.
unsafe impl Sync for Previous {}
unsafe impl Send for Previous {}

static PREVIOUS: OnceLock<Previous> = OnceLock::new();

/// Where faulting host instructions of one compiled region are: sorted
/// by host offset, each with the guest instruction index in its page and
/// the instructions of its basic block from it on (the budget to refund).
#[derive(Default)]
pub(crate) struct Sites {
    pub(crate) offsets: Vec<u32>,
    pub(crate) locs: Vec<u32>,
}

/// Pack a guest instruction index and its refund into a source location.
pub(crate) fn pack(index: usize, refund: usize) -> u32 {
    (index as u32) | ((refund as u32) << 12)
}

fn unpack(loc: u32) -> (u64, u64) {
    ((loc & 0xfff) as u64, (loc >> 12) as u64)
}

/// One compiled region's place in host memory.
pub(crate) struct CodeRange {
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// The guest page the region was compiled from.
    pub(crate) page: u64,
    pub(crate) sites: Sites,
}

/// Every compiled region of one [`super::Jit`], by host address.
#[derive(Default)]
pub(crate) struct CodeMap {
    ranges: Vec<CodeRange>,
}

impl CodeMap {
    pub(crate) fn insert(&mut self, r: CodeRange) {
        let at = self.ranges.partition_point(|x| x.start < r.start);
        self.ranges.insert(at, r);
    }

    pub(crate) fn clear(&mut self) {
        self.ranges.clear();
    }

    /// The guest pc and refund of the faulting host instruction at `pc`.
    fn lookup(&self, pc: usize) -> Option<(u64, u64)> {
        let i = self
            .ranges
            .partition_point(|x| x.start <= pc)
            .checked_sub(1)?;
        let r = &self.ranges[i];
        if pc >= r.end {
            return None;
        }
        let off = (pc - r.start) as u32;
        let k = r.sites.offsets.binary_search(&off).ok()?;
        let (index, refund) = unpack(r.sites.locs[k]);
        Some((r.page + 4 * index, refund))
    }
}

/// Install the handler (once per process).
pub(crate) fn install() {
    PREVIOUS.get_or_init(|| {
        // SAFETY: zeroed sigactions are valid; the handler only reads the
        // thread's `CURRENT` context and the code map it points at, and
        // edits the interrupted context.
        unsafe {
            let mut prev: [libc::sigaction; 3] = std::mem::zeroed();
            for (k, &sig) in SIGNALS.iter().enumerate() {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = on_fault as *const () as libc::sighandler_t;
                sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut sa.sa_mask);
                libc::sigaction(sig, &sa, &mut prev[k]);
            }
            Previous(prev)
        }
    });
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
extern "C" fn on_fault(sig: libc::c_int, info: *mut libc::siginfo_t, uctx: *mut libc::c_void) {
    let ctx = CURRENT.with(|c| c.get());
    if !ctx.is_null() && !uctx.is_null() {
        // SAFETY: the kernel passes a valid ucontext; `ctx` is this
        // thread's live context while `CURRENT` is set, and its code map
        // is not changed while compiled code runs.
        unsafe {
            let uc = &mut *(uctx as *mut libc::ucontext_t);
            let rip = uc.uc_mcontext.gregs[libc::REG_RIP as usize] as usize;
            let c = &mut *ctx;
            if let Some((pc, refund)) = (*c.code).lookup(rip) {
                c.left += refund;
                c.exit = Exit::Fault as u64;
                c.fault_sig = sig as u64;
                c.fault_addr = if info.is_null() {
                    0
                } else {
                    (*info).si_addr() as u64
                };
                let g = &mut uc.uc_mcontext.gregs;
                g[libc::REG_RIP as usize] = subword_jit_resume as *const () as i64;
                g[libc::REG_RDI as usize] = ctx as i64;
                g[libc::REG_RAX as usize] = pc as i64;
                return;
            }
        }
    }
    chain(sig, info, uctx);
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
extern "C" fn on_fault(sig: libc::c_int, info: *mut libc::siginfo_t, uctx: *mut libc::c_void) {
    chain(sig, info, uctx);
}

/// Not ours: what the previous disposition would have done.
fn chain(sig: libc::c_int, info: *mut libc::siginfo_t, uctx: *mut libc::c_void) {
    let k = SIGNALS.iter().position(|&s| s == sig).unwrap_or(0);
    let prev = PREVIOUS.get().map(|p| p.0[k]);
    // SAFETY: calling the handler that was installed for this signal with
    // the arguments the kernel gave us, or resetting to the default so the
    // faulting instruction, executed again on return, ends the process.
    unsafe {
        match prev {
            Some(p) if p.sa_sigaction != libc::SIG_DFL && p.sa_sigaction != libc::SIG_IGN => {
                if p.sa_flags & libc::SA_SIGINFO != 0 {
                    let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                        std::mem::transmute(p.sa_sigaction);
                    f(sig, info, uctx);
                } else {
                    let f: extern "C" fn(libc::c_int) = std::mem::transmute(p.sa_sigaction);
                    f(sig);
                }
            }
            _ => {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(sig, &sa, std::ptr::null_mut());
            }
        }
    }
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
std::arch::global_asm!(
    ".text",
    ".p2align 4",
    ".globl subword_jit_call",
    ".type subword_jit_call,@function",
    // rdi = ctx, rsi = region: save the callee-saved registers, keep the
    // stack pointer in ctx, call the region with ctx.
    "subword_jit_call:",
    "push rbp",
    "push rbx",
    "push r12",
    "push r13",
    "push r14",
    "push r15",
    "sub rsp, 8",
    "mov [rdi + {sp}], rsp",
    "call rsi",
    "add rsp, 8",
    "pop r15",
    "pop r14",
    "pop r13",
    "pop r12",
    "pop rbx",
    "pop rbp",
    "ret",
    ".size subword_jit_call, .-subword_jit_call",
    ".p2align 4",
    ".globl subword_jit_resume",
    ".type subword_jit_resume,@function",
    // Entered from the fault handler with rdi = ctx and rax = the pc to
    // return: unwind to jit_call's frame and return from it.
    "subword_jit_resume:",
    "mov rsp, [rdi + {sp}]",
    "add rsp, 8",
    "pop r15",
    "pop r14",
    "pop r13",
    "pop r12",
    "pop rbx",
    "pop rbp",
    "ret",
    ".size subword_jit_resume, .-subword_jit_resume",
    sp = const std::mem::offset_of!(JitCtx, host_sp),
);

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
extern "C" {
    /// `ctx` is a `*mut JitCtx`, `f` a [`RegionFn`].
    fn subword_jit_call(ctx: *mut libc::c_void, f: *const libc::c_void) -> u64;
    fn subword_jit_resume();
}

/// Run region `f` with `ctx` so that a host fault inside it returns from
/// here (see the module documentation).
///
/// # Safety
/// As for calling `f` itself; `ctx.code` must map every region this call
/// can reach.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[inline(always)]
pub(crate) unsafe fn jit_call(ctx: *mut JitCtx, f: RegionFn) -> u64 {
    subword_jit_call(ctx.cast(), f as *const libc::c_void)
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
#[inline(always)]
pub(crate) unsafe fn jit_call(ctx: *mut JitCtx, f: RegionFn) -> u64 {
    f(ctx)
}

/// Mark this thread as running compiled code with `ctx` (null: not).
#[inline(always)]
pub(crate) fn set_current(ctx: *mut JitCtx) {
    CURRENT.with(|c| c.set(ctx));
}
