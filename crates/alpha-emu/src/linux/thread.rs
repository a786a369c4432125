//! Threads: `clone` with the flags glibc's pthread_create uses (other
//! clones are new processes, [`super::process::fork`]), `futex`, thread
//! exit, and each thread's scheduling state. Each guest thread runs on its
//! own CPU of the machine; the run loop ([`super::sched`]) asks a
//! [`super::sched::Scheduler`] which runnable thread runs next.
//!
//! A thread's [`ThreadState`] changes only through [`Process::set_state`],
//! which keeps the [`Queues`] the run loop reads: the runnable threads in
//! index order, futex waiters by address, sleepers by deadline, threads
//! blocked in a system call, and the count of live threads. So choosing,
//! waking a futex waiter or finding the next deadline costs the same
//! however many threads are blocked (ordered sets: O(log n)).

use super::errno::*;
use super::syscall::{mem_u32, put_u32, Outcome};
use super::{signal, Process, Progress, Wait};
use crate::cpu::Cpu;
use std::collections::{BTreeMap, BTreeSet};

/// Why a thread is not running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadState {
    Runnable,
    /// Blocked in `futex` wait on `addr` for waker bits `bitset`.
    FutexWait {
        addr: u64,
        bitset: u32,
        timed: bool,
    },
    /// Asleep (`nanosleep`, `clock_nanosleep`) until the monotonic time
    /// `until` (ns, [`super::time::Domain::Wall`]), writing the time left
    /// to `rem` if a signal cuts it short; with `until` `None`, until a
    /// signal.
    Sleep {
        until: Option<u64>,
        rem: u64,
    },
    /// Blocked in a system call until one of [`Thread::waits`] holds; its
    /// pc is back on the `callsys`, so waking it re-executes the call.
    Blocked,
    Exited,
}

/// One guest thread: a CPU of the machine plus kernel-side state.
#[derive(Clone, Debug)]
pub struct Thread {
    pub tid: u32,
    /// Index of its CPU in `machine.cpus`.
    pub cpu: usize,
    pub sigmask: u64,
    pub altstack: signal::AltStack,
    /// `set_tid_address` / CLONE_CHILD_CLEARTID: cleared and woken at exit.
    pub clear_child_tid: u64,
    /// Unaligned-access control bits (UAC_*).
    pub uac: u64,
    /// The caller's own mask while a wait with a temporary one
    /// (`rt_sigsuspend`, `ppoll`, `pselect6`, `epoll_pwait`) is in force:
    /// the handler's frame restores it (the kernel's saved_sigmask).
    pub saved_mask: Option<u64>,
    /// Host CPU time the thread's turns have taken, ns (its
    /// CLOCK_THREAD_CPUTIME_ID outside deterministic mode; see
    /// [`super::sched`]).
    pub cpu_ns: u64,
    /// Changed only by [`Process::set_state`] (it keeps the queues).
    state: ThreadState,
    /// What the thread waits for while [`ThreadState::Blocked`].
    pub waits: Vec<Wait>,
    /// The guest-clock time at which the timed call it is blocked in
    /// (`poll`, `select`, …) gives up; kept across its re-executions, and
    /// set to 0 when the scheduler has waited that long on the host.
    pub timeout_at: Option<u64>,
    /// What the system call it is blocked in has done so far, kept across
    /// its re-executions and dropped when the call returns.
    pub progress: Option<Progress>,
}

impl Thread {
    /// A runnable thread `tid` on CPU `cpu` with signal mask `sigmask`,
    /// no alternate signal stack and nothing pending.
    pub fn new(tid: u32, cpu: usize, sigmask: u64) -> Thread {
        Thread {
            tid,
            cpu,
            sigmask,
            altstack: signal::AltStack {
                flags: signal::SS_DISABLE,
                ..Default::default()
            },
            clear_child_tid: 0,
            uac: 0,
            saved_mask: None,
            cpu_ns: 0,
            state: ThreadState::Runnable,
            waits: Vec::new(),
            timeout_at: None,
            progress: None,
        }
    }

    pub fn state(&self) -> ThreadState {
        self.state
    }

    pub fn runnable(&self) -> bool {
        self.state == ThreadState::Runnable
    }

    pub fn exited(&self) -> bool {
        self.state == ThreadState::Exited
    }
}

/// The threads of a process sorted by what they wait for, kept by
/// [`Process::set_state`]. Sets are ordered by thread index, so every
/// choice made from them (the next runnable thread, which futex waiter
/// wakes first) is the one a scan of the thread list in index order makes.
#[derive(Clone, Debug, Default)]
pub struct Queues {
    runnable: BTreeSet<usize>,
    /// Futex waiters by address.
    futex: BTreeMap<u64, BTreeSet<usize>>,
    /// Futex waiters that gave a timeout.
    timed: BTreeSet<usize>,
    /// Sleepers with a deadline, by deadline.
    sleepers: BTreeSet<(u64, usize)>,
    /// Threads blocked in a system call ([`ThreadState::Blocked`]).
    blocked: BTreeSet<usize>,
    /// Threads not exited.
    live: usize,
    /// Changes whenever a thread changes state or appears.
    generation: u64,
}

impl Queues {
    fn remove(&mut self, t: usize, s: ThreadState) {
        match s {
            ThreadState::Runnable => {
                self.runnable.remove(&t);
            }
            ThreadState::FutexWait { addr, timed, .. } => {
                if let Some(q) = self.futex.get_mut(&addr) {
                    q.remove(&t);
                    if q.is_empty() {
                        self.futex.remove(&addr);
                    }
                }
                if timed {
                    self.timed.remove(&t);
                }
            }
            ThreadState::Sleep { until, .. } => {
                if let Some(u) = until {
                    self.sleepers.remove(&(u, t));
                }
            }
            ThreadState::Blocked => {
                self.blocked.remove(&t);
            }
            ThreadState::Exited => {}
        }
    }

    fn insert(&mut self, t: usize, s: ThreadState) {
        match s {
            ThreadState::Runnable => {
                self.runnable.insert(t);
            }
            ThreadState::FutexWait { addr, timed, .. } => {
                self.futex.entry(addr).or_default().insert(t);
                if timed {
                    self.timed.insert(t);
                }
            }
            ThreadState::Sleep { until, .. } => {
                if let Some(u) = until {
                    self.sleepers.insert((u, t));
                }
            }
            ThreadState::Blocked => {
                self.blocked.insert(t);
            }
            ThreadState::Exited => {}
        }
    }

    /// The runnable threads, by index.
    pub fn runnable(&self) -> &BTreeSet<usize> {
        &self.runnable
    }

    /// Threads blocked in a system call, by index.
    pub fn blocked(&self) -> &BTreeSet<usize> {
        &self.blocked
    }

    /// Futex waiters on `addr`, by index.
    pub fn futex_waiters(&self, addr: u64) -> impl Iterator<Item = usize> + '_ {
        self.futex.get(&addr).into_iter().flatten().copied()
    }

    /// The lowest-index futex waiter that gave a timeout.
    pub fn first_timed(&self) -> Option<usize> {
        self.timed.first().copied()
    }

    /// The earliest sleeper deadline and its thread.
    pub fn next_sleeper(&self) -> Option<(u64, usize)> {
        self.sleepers.first().copied()
    }

    /// Threads not exited.
    pub fn live(&self) -> usize {
        self.live
    }

    /// Changes whenever a thread changes state or appears.
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

impl Process {
    /// Change thread `t`'s state, keeping [`Process::queues`].
    pub fn set_state(&mut self, t: usize, s: ThreadState) {
        let old = self.threads[t].state;
        if old == s {
            return;
        }
        self.queues.remove(t, old);
        self.queues.insert(t, s);
        if old == ThreadState::Exited {
            self.queues.live += 1;
        } else if s == ThreadState::Exited {
            self.queues.live -= 1;
        }
        self.queues.generation += 1;
        self.threads[t].state = s;
    }

    /// Add `th` (whose CPU exists) as the last thread; returns its index.
    pub fn add_thread(&mut self, th: Thread) -> usize {
        let t = self.threads.len();
        let s = th.state;
        self.threads.push(th);
        self.queues.insert(t, s);
        if s != ThreadState::Exited {
            self.queues.live += 1;
        }
        self.queues.generation += 1;
        t
    }

    /// Replace every thread by `th` alone (a forked child keeps only the
    /// thread that forked), runnable.
    pub fn only_thread(&mut self, mut th: Thread) {
        th.state = ThreadState::Runnable;
        let generation = self.queues.generation + 1;
        self.threads.clear();
        self.queues = Queues {
            generation,
            ..Queues::default()
        };
        self.add_thread(th);
    }

    /// Threads not exited.
    pub fn live_threads(&self) -> usize {
        self.queues.live
    }
}

pub const CLONE_VM: u64 = 0x100;
pub const CLONE_THREAD: u64 = 0x10000;
pub const CLONE_SETTLS: u64 = 0x80000;
pub const CLONE_PARENT_SETTID: u64 = 0x100000;
pub const CLONE_CHILD_CLEARTID: u64 = 0x200000;
pub const CLONE_CHILD_SETTID: u64 = 0x1000000;

/// Live threads a process may hold under `--deterministic` (and when
/// the host's `threads-max` cannot be read): a fixed number, so the
/// answer never depends on the host.
pub const DETERMINISTIC_MAX_THREADS: usize = 32_768;

/// Live threads a process may hold: the host's
/// `/proc/sys/kernel/threads-max` (Linux's own system-wide limit, which the
/// guest's threads count against as qemu-alpha's do), or
/// [`DETERMINISTIC_MAX_THREADS`] under `--deterministic`. A guest thread
/// costs the host about a kilobyte; its stack is guest memory, which
/// `mmap` bounds (glibc's `pthread_create` then fails with EAGAIN).
pub fn max_threads(deterministic: bool) -> usize {
    if deterministic {
        return DETERMINISTIC_MAX_THREADS;
    }
    std::fs::read_to_string("/proc/sys/kernel/threads-max")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(DETERMINISTIC_MAX_THREADS)
}

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
    if p.live_threads() >= p.max_threads {
        // RLIMIT_NPROC / threads-max reached: clone fails, as on Linux.
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
    let mut th = Thread::new(tid, id, me.sigmask);
    th.uac = me.uac;
    if flags & CLONE_CHILD_CLEARTID != 0 {
        th.clear_child_tid = ctid;
    }
    p.add_thread(th);
    Outcome::Return(Ok(tid as u64))
}

/// End thread `t` (not the last one): CLONE_CHILD_CLEARTID handling.
pub fn thread_exit(p: &mut Process, t: usize, status: u8) {
    let ct = p.threads[t].clear_child_tid;
    if ct != 0 && put_u32(p, ct, 0).is_ok() {
        wake(p, ct, 1, u32::MAX);
    }
    p.set_state(t, ThreadState::Exited);
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
                    p.set_state(
                        t,
                        ThreadState::FutexWait {
                            addr,
                            bitset,
                            timed: timeout != 0,
                        },
                    );
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
            let limit = timeout; // val2
            let movers: Vec<usize> = p
                .queues
                .futex_waiters(addr)
                .take(usize::try_from(limit).unwrap_or(usize::MAX))
                .collect();
            let moved = movers.len() as u64;
            for t in movers {
                if let ThreadState::FutexWait { bitset, timed, .. } = p.threads[t].state() {
                    p.set_state(
                        t,
                        ThreadState::FutexWait {
                            addr: addr2,
                            bitset,
                            timed,
                        },
                    );
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

/// Wake up to `n` futex waiters on `addr` matching `bitset`, lowest
/// thread index first.
pub fn wake(p: &mut Process, addr: u64, n: u64, bitset: u32) -> u64 {
    let mut woken = Vec::new();
    for t in p.queues.futex_waiters(addr) {
        if woken.len() as u64 >= n {
            break;
        }
        if let ThreadState::FutexWait { bitset: b, .. } = p.threads[t].state() {
            if b & bitset != 0 {
                woken.push(t);
            }
        }
    }
    for &t in &woken {
        p.wake_thread(t, Ok(0));
    }
    woken.len() as u64
}
