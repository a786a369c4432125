//! Threads: `clone` with the flags glibc's pthread_create uses (other
//! clones are new processes, [`super::process::fork`]), `futex`, and
//! thread exit. Each guest thread runs on its own CPU of the machine;
//! the run loop in [`super::Process::run`] switches between runnable
//! threads round-robin every `quantum` instructions (`pick_next` is the
//! single scheduling decision, so a schedule explorer can replace it).

use super::errno::*;
use super::syscall::{mem_u32, put_u32, wake, Outcome};
use super::{Process, Thread, ThreadState};
use crate::cpu::Cpu;

pub const CLONE_VM: u64 = 0x100;
pub const CLONE_THREAD: u64 = 0x10000;
pub const CLONE_SETTLS: u64 = 0x80000;
pub const CLONE_PARENT_SETTID: u64 = 0x100000;
pub const CLONE_CHILD_CLEARTID: u64 = 0x200000;
pub const CLONE_CHILD_SETTID: u64 = 0x1000000;

/// Most threads a guest may create.
pub const MAX_THREADS: usize = 256;

/// `clone(flags, newsp, parent_tid, child_tid, tls)` (kernel argument
/// order on Alpha, as glibc's sysdeps/unix/sysv/linux/alpha/clone.S passes it).
pub fn clone(p: &mut Process, c: usize, a: [u64; 6]) -> Outcome {
    let (flags, newsp, ptid, ctid, tls) = (a[0], a[1], a[2], a[3], a[4]);
    if flags & CLONE_VM == 0 || flags & super::process::CLONE_VFORK != 0 {
        // A new process: a host fork (CLONE_VM|CLONE_VFORK, posix_spawn's
        // clone, is a fork whose parent waits for the child's execve).
        return super::process::fork(p, c, flags, a);
    }
    if flags & CLONE_THREAD == 0 {
        // A second thread group sharing the address space.
        return Outcome::Return(Err(ENOSYS));
    }
    if p.threads.len() >= MAX_THREADS {
        return Outcome::Return(Err(EAGAIN));
    }
    let tid = p.next_tid;
    if flags & CLONE_PARENT_SETTID != 0 && put_u32(p, ptid, tid).is_err() {
        return Outcome::Return(Err(EFAULT));
    }
    if flags & CLONE_CHILD_SETTID != 0 && put_u32(p, ctid, tid).is_err() {
        return Outcome::Return(Err(EFAULT));
    }
    p.next_tid += 1;
    let parent = &p.machine.cpus[c];
    let id = p.machine.cpus.len();
    let mut child: Cpu = parent.clone();
    child.id = id;
    child.icount = 0;
    if newsp != 0 {
        child.r[30] = newsp;
    }
    if flags & CLONE_SETTLS != 0 {
        child.uniq = tls;
    }
    child.r[0] = 0;
    child.r[19] = 0;
    p.machine.cpus.push(child);
    let me = &p.threads[p.cur];
    p.threads.push(Thread {
        tid,
        cpu: id,
        sigmask: me.sigmask,
        altstack: super::signal::AltStack {
            flags: super::signal::SS_DISABLE,
            ..Default::default()
        },
        clear_child_tid: if flags & CLONE_CHILD_CLEARTID != 0 {
            ctid
        } else {
            0
        },
        uac: me.uac,
        saved_mask: None,
        cpu_ns: 0,
        state: ThreadState::Runnable,
        waits: Vec::new(),
        timeout_at: None,
        progress: None,
    });
    Outcome::Return(Ok(tid as u64))
}

/// End thread `t` (not the last one): CLONE_CHILD_CLEARTID handling.
pub fn thread_exit(p: &mut Process, t: usize, status: u8) {
    let ct = p.threads[t].clear_child_tid;
    if ct != 0 && put_u32(p, ct, 0).is_ok() {
        wake(p, ct, 1, u32::MAX);
    }
    p.threads[t].state = ThreadState::Exited;
    p.last_exit = status;
}

const FUTEX_WAIT: u64 = 0;
const FUTEX_WAKE: u64 = 1;
const FUTEX_REQUEUE: u64 = 3;
const FUTEX_CMP_REQUEUE: u64 = 4;
const FUTEX_WAKE_OP: u64 = 5;
const FUTEX_WAIT_BITSET: u64 = 9;
const FUTEX_WAKE_BITSET: u64 = 10;

/// `futex(uaddr, op, val, timeout|val2, uaddr2, val3)`.
pub fn futex(p: &mut Process, a: [u64; 6]) -> Outcome {
    let (addr, op, val, timeout, addr2, val3) = (a[0], a[1], a[2], a[3], a[4], a[5]);
    let cmd = op & 0x7f;
    if addr & 3 != 0 {
        return Outcome::Return(Err(EINVAL));
    }
    match cmd {
        FUTEX_WAIT | FUTEX_WAIT_BITSET => {
            let bitset = if cmd == FUTEX_WAIT {
                u32::MAX
            } else {
                val3 as u32
            };
            if bitset == 0 {
                return Outcome::Return(Err(EINVAL));
            }
            match mem_u32(p, addr) {
                Err(e) => Outcome::Return(Err(e)),
                Ok(v) if v != val as u32 => Outcome::Return(Err(EAGAIN)),
                Ok(_) => {
                    let t = p.cur;
                    p.threads[t].state = ThreadState::FutexWait {
                        addr,
                        bitset,
                        timed: timeout != 0,
                    };
                    Outcome::NoResult
                }
            }
        }
        FUTEX_WAKE | FUTEX_WAKE_BITSET => {
            let bitset = if cmd == FUTEX_WAKE {
                u32::MAX
            } else {
                val3 as u32
            };
            if bitset == 0 {
                return Outcome::Return(Err(EINVAL));
            }
            Outcome::Return(Ok(wake(p, addr, val, bitset)))
        }
        FUTEX_REQUEUE | FUTEX_CMP_REQUEUE => {
            if cmd == FUTEX_CMP_REQUEUE {
                match mem_u32(p, addr) {
                    Err(e) => return Outcome::Return(Err(e)),
                    Ok(v) if v != val3 as u32 => return Outcome::Return(Err(EAGAIN)),
                    Ok(_) => {}
                }
            }
            let woken = wake(p, addr, val, u32::MAX);
            let mut moved = 0;
            let limit = timeout; // val2
            for th in p.threads.iter_mut() {
                if moved >= limit {
                    break;
                }
                if let ThreadState::FutexWait {
                    addr: w,
                    bitset,
                    timed,
                } = th.state
                {
                    if w == addr {
                        th.state = ThreadState::FutexWait {
                            addr: addr2,
                            bitset,
                            timed,
                        };
                        moved += 1;
                    }
                }
            }
            Outcome::Return(Ok(woken + moved))
        }
        FUTEX_WAKE_OP => {
            // *addr2 = op(*addr2, oparg); wake val on addr, and val2 on
            // addr2 when cmp(oldval, cmparg) holds (kernel futex_atomic_op).
            let encoded = val3 as u32;
            let fop = (encoded >> 28) & 7;
            let shift = (encoded >> 31) & 1 != 0;
            let fcmp = (encoded >> 24) & 15;
            let mut oparg = ((encoded << 8) as i32 >> 20) as u32;
            let cmparg = ((encoded << 20) as i32 >> 20) as u32;
            if shift {
                oparg = 1u32.wrapping_shl(oparg & 31);
            }
            let old = match mem_u32(p, addr2) {
                Ok(v) => v,
                Err(e) => return Outcome::Return(Err(e)),
            };
            let new = match fop {
                0 => oparg,
                1 => old.wrapping_add(oparg),
                2 => old | oparg,
                3 => old & !oparg,
                4 => old ^ oparg,
                _ => return Outcome::Return(Err(ENOSYS)),
            };
            if let Err(e) = put_u32(p, addr2, new) {
                return Outcome::Return(Err(e));
            }
            let (o, c) = (old as i32, cmparg as i32);
            let cond = match fcmp {
                0 => o == c,
                1 => o != c,
                2 => o < c,
                3 => o <= c,
                4 => o > c,
                5 => o >= c,
                _ => return Outcome::Return(Err(ENOSYS)),
            };
            let mut n = wake(p, addr, val, u32::MAX);
            if cond {
                n += wake(p, addr2, timeout, u32::MAX);
            }
            Outcome::Return(Ok(n))
        }
        _ => Outcome::Return(Err(ENOSYS)),
    }
}
