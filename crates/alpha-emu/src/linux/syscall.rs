//! Alpha Linux system calls: the `callsys` entry from the run loop, the
//! dispatch through the one table ([`super::sys::TABLE`]), and `--strace`.
//!
//! Convention: number in `v0` (r0), arguments in `a0`-`a5` (r16-r21); the
//! result goes to `v0`, and `a3` (r19) is 0 on success or 1 with a positive
//! errno in `v0` on failure (arch/alpha/kernel/entry.S). Errno values are
//! Alpha's ([`super::errno`]). A bad guest pointer is EFAULT, never a crash.
//!
//! Every Alpha call is named for `--strace`; one without a handler answers
//! ENOSYS, as a kernel without it would.

use super::errno::*;
use super::sys::{self, Req};
use super::{set_result, Exit, Host, Process, ThreadState};

pub(crate) use super::sys::poll::object_revents;
pub(crate) use super::sys::signals::with_wait_mask;
pub use super::uaccess::{put_u32, read_cstr, read_u32 as mem_u32};

pub const SYS_EXIT: u64 = 1;
pub const SYS_READ: u64 = 3;
pub const SYS_WRITE: u64 = 4;
pub const SYS_EXIT_GROUP: u64 = 405;

/// The name of a system call number, for `--strace`: Alpha Linux's name,
/// implemented or not.
pub fn name(nr: u64) -> Option<&'static str> {
    sys::lookup(nr).map(|c| c.name)
}

/// Whether system call `nr` is performed (anything else answers ENOSYS,
/// as a kernel without it would).
pub fn implemented(nr: u64) -> bool {
    sys::lookup(nr).is_some_and(|c| c.run.is_some())
}

/// What a system call asks of the run loop.
pub enum Outcome {
    /// Return to the guest with this result.
    Return(Result<u64, u64>),
    /// Registers were set by the call itself (sigreturn, a blocked thread).
    NoResult,
    /// The whole process exits with this status.
    Exit(u8),
    /// The call would block: run other threads, then execute it again.
    Restart,
    /// The calling thread blocks until one of these holds, then executes
    /// the call again ([`super::ThreadState::Blocked`]).
    Block(Vec<super::Wait>),
}

/// Handle `callsys` on CPU `c` for the running thread.
pub fn callsys(p: &mut Process, host: &mut dyn Host, c: usize) -> Option<Exit> {
    let nr = p.machine.cpus[c].r[0];
    let a = {
        let r = &p.machine.cpus[c].r;
        [r[16], r[17], r[18], r[19], r[20], r[21]]
    };
    let pre = if p.strace {
        let n = name(nr)
            .map(str::to_string)
            .unwrap_or_else(|| format!("syscall_{nr}"));
        Some(format!(
            "{} {n}({})",
            p.threads[p.cur].tid,
            sys::strace::strace_args(p, nr, &a)
        ))
    } else {
        None
    };
    let out = dispatch(p, host, c, nr, a);
    if !matches!(out, Outcome::Block(_) | Outcome::Restart) {
        if let Some(t) = p.threads.get_mut(p.cur) {
            t.progress = None;
        }
    }
    match out {
        Outcome::Exit(s) => {
            if let Some(pre) = pre {
                host.trace(&format!("{pre} = ?"));
            }
            Some(Exit::Exited(s))
        }
        Outcome::Block(waits) => {
            // Back to the CALL_PAL, as for a restart; the thread sleeps
            // until a wait holds (the --strace line comes when it completes).
            let cpu = &mut p.machine.cpus[c];
            cpu.pc = cpu.pc.wrapping_sub(4);
            let t = p.cur;
            p.set_state(t, ThreadState::Blocked);
            p.threads[t].waits = waits;
            None
        }
        Outcome::Restart => {
            // Back to the CALL_PAL with v0/a0-a5 untouched, as the kernel's
            // syscall restart does (pc -= 4), after the other threads ran.
            let cpu = &mut p.machine.cpus[c];
            cpu.pc = cpu.pc.wrapping_sub(4);
            p.yield_now = true;
            None
        }
        Outcome::NoResult => {
            if let Some(pre) = pre {
                host.trace(&format!("{pre} = ?"));
            }
            if p.live_threads() == 0 {
                return Some(Exit::Exited(p.last_exit));
            }
            None
        }
        Outcome::Return(r) => {
            if let Some(pre) = pre {
                let res = match r {
                    Ok(v) if sys::lookup(nr).is_some_and(|c| c.ret == sys::Ret::Addr) => {
                        format!("0x{v:016x}")
                    }
                    Ok(v) => format!("{}", v as i64),
                    Err(e) => match message(e) {
                        Some(m) => format!("-1 errno={e} ({m})"),
                        None => format!("-1 errno={e}"),
                    },
                };
                host.trace(&format!("{pre} = {res}"));
            }
            set_result(&mut p.machine.cpus[c], r);
            None
        }
    }
}

/// Perform system call `nr` for CPU `c`.
pub fn dispatch(p: &mut Process, host: &mut dyn Host, c: usize, nr: u64, a: [u64; 6]) -> Outcome {
    match sys::lookup(nr).and_then(|call| call.run) {
        Some(run) => run(p, host, Req { nr, cpu: c, a }),
        None => Outcome::Return(Err(ENOSYS)),
    }
}
