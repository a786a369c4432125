//! Guest time: the clocks of `clock_gettime`, sleeping deadlines, and the
//! interval timers (`setitimer`, POSIX `timer_*`).
//!
//! Two modes. By default the guest sees the host's time: REALTIME,
//! MONOTONIC, BOOTTIME and their COARSE/RAW variants read the host clock of
//! the same name, and the CPU-time clocks read the CPU time of the host
//! thread running the guest (all guest threads run on it). With
//! `--deterministic` ([`super::Options::deterministic`]) every clock is
//! virtual: one nanosecond per retired instruction plus the time the guest
//! slept, from a fixed epoch (2023-11-14 22:13:20 UTC), so a run is a pure
//! function of its input; sleeping then advances the virtual clock instead
//! of waiting.
//!
//! Timers are kept as deadlines in one of two domains: wall time (the
//! monotonic clock; REALTIME deadlines are converted to it when armed) and
//! CPU time (ITIMER_VIRTUAL, ITIMER_PROF and the CPU-time clocks). The run
//! loop asks [`Clock::now`] only while something is armed.

use super::errno::EINVAL;

pub const CLOCK_REALTIME: u64 = 0;
pub const CLOCK_MONOTONIC: u64 = 1;
pub const CLOCK_PROCESS_CPUTIME_ID: u64 = 2;
pub const CLOCK_THREAD_CPUTIME_ID: u64 = 3;
pub const CLOCK_MONOTONIC_RAW: u64 = 4;
pub const CLOCK_REALTIME_COARSE: u64 = 5;
pub const CLOCK_MONOTONIC_COARSE: u64 = 6;
pub const CLOCK_BOOTTIME: u64 = 7;
pub const CLOCK_REALTIME_ALARM: u64 = 8;
pub const CLOCK_BOOTTIME_ALARM: u64 = 9;
pub const CLOCK_TAI: u64 = 11;

/// `TIMER_ABSTIME` (include/uapi/linux/time.h).
pub const TIMER_ABSTIME: u64 = 1;

/// Alpha's `USER_HZ` (arch/alpha/include/asm/param.h), the kernel's
/// `AT_CLKTCK`: `times` counts in 1/1024 s.
pub const USER_HZ: u64 = 1024;

/// The fixed epoch of deterministic REALTIME (ns).
pub const DETERMINISTIC_EPOCH_NS: u64 = 1_700_000_000 * 1_000_000_000;

const NS: u64 = 1_000_000_000;

/// Which time a deadline is measured in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Domain {
    /// Elapsed time (the monotonic clock).
    Wall,
    /// CPU time consumed by the guest.
    Cpu,
}

/// The process's clocks.
#[derive(Clone, Debug)]
pub struct Clock {
    pub deterministic: bool,
    /// Deterministic mode: nanoseconds the guest slept (added to the
    /// instruction count).
    pub slept_ns: u64,
}

/// The calling host thread's CPU clock, ns.
pub fn host_thread_cpu_ns() -> u64 {
    host_clock(libc::CLOCK_THREAD_CPUTIME_ID)
}

fn host_clock(id: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; clock_gettime only
    // writes it.
    let r = unsafe { libc::clock_gettime(id, &mut ts) };
    if r != 0 {
        return 0;
    }
    (ts.tv_sec as u64)
        .wrapping_mul(NS)
        .wrapping_add(ts.tv_nsec as u64)
}

impl Clock {
    pub fn new(deterministic: bool) -> Clock {
        Clock {
            deterministic,
            slept_ns: 0,
        }
    }

    /// Is `clk` a clock this personality knows?
    pub fn valid(clk: u64) -> bool {
        matches!(clk, 0..=9 | CLOCK_TAI)
    }

    /// Clock `clk` now, in ns. `insns` is the process's retired
    /// instruction count; `thread` the calling thread's retired
    /// instructions (deterministic mode) or host CPU ns (otherwise).
    pub fn read(&self, clk: u64, insns: u64, thread: u64) -> Result<u64, u64> {
        if self.deterministic {
            let mono = insns + self.slept_ns;
            return Ok(match clk {
                CLOCK_REALTIME | CLOCK_REALTIME_COARSE | CLOCK_REALTIME_ALARM | CLOCK_TAI => {
                    DETERMINISTIC_EPOCH_NS + mono
                }
                CLOCK_PROCESS_CPUTIME_ID => insns,
                CLOCK_THREAD_CPUTIME_ID => thread,
                CLOCK_MONOTONIC
                | CLOCK_MONOTONIC_RAW
                | CLOCK_MONOTONIC_COARSE
                | CLOCK_BOOTTIME
                | CLOCK_BOOTTIME_ALARM => mono,
                _ => return Err(EINVAL),
            });
        }
        let id = match clk {
            CLOCK_REALTIME | CLOCK_REALTIME_ALARM => libc::CLOCK_REALTIME,
            CLOCK_REALTIME_COARSE => libc::CLOCK_REALTIME_COARSE,
            CLOCK_TAI => libc::CLOCK_TAI,
            CLOCK_MONOTONIC => libc::CLOCK_MONOTONIC,
            CLOCK_MONOTONIC_RAW => libc::CLOCK_MONOTONIC_RAW,
            CLOCK_MONOTONIC_COARSE => libc::CLOCK_MONOTONIC_COARSE,
            CLOCK_BOOTTIME | CLOCK_BOOTTIME_ALARM => libc::CLOCK_BOOTTIME,
            // Every guest thread runs on the host thread calling us.
            CLOCK_PROCESS_CPUTIME_ID => libc::CLOCK_THREAD_CPUTIME_ID,
            CLOCK_THREAD_CPUTIME_ID => return Ok(thread),
            _ => return Err(EINVAL),
        };
        Ok(host_clock(id))
    }

    /// Resolution of `clk` (`clock_getres`), ns.
    pub fn resolution(&self, clk: u64) -> Result<u64, u64> {
        if !Clock::valid(clk) {
            return Err(EINVAL);
        }
        Ok(match clk {
            // The kernel's coarse clocks tick at HZ (1024 on Alpha).
            CLOCK_REALTIME_COARSE | CLOCK_MONOTONIC_COARSE if !self.deterministic => {
                NS.div_ceil(1024)
            }
            _ => 1,
        })
    }

    /// Now in a timer domain.
    pub fn now(&self, d: Domain, insns: u64) -> u64 {
        match d {
            Domain::Wall => self.read(CLOCK_MONOTONIC, insns, 0).unwrap_or(0),
            Domain::Cpu => self.read(CLOCK_PROCESS_CPUTIME_ID, insns, 0).unwrap_or(0),
        }
    }

    /// Wait until wall deadline `until` (monotonic ns): the host sleeps, or
    /// in deterministic mode the virtual clock jumps there.
    pub fn wait_until(&mut self, until: u64, insns: u64) {
        let now = self.now(Domain::Wall, insns);
        if until <= now {
            return;
        }
        if self.deterministic {
            self.slept_ns += until - now;
        } else {
            std::thread::sleep(std::time::Duration::from_nanos(until - now));
        }
    }

    /// The domain of timers on clock `clk`, and the offset to add to an
    /// absolute time of that clock to get the domain's time.
    pub fn domain_of(&self, clk: u64, insns: u64) -> Result<(Domain, i128), u64> {
        match clk {
            CLOCK_PROCESS_CPUTIME_ID | CLOCK_THREAD_CPUTIME_ID => Ok((Domain::Cpu, 0)),
            c if Clock::valid(c) => {
                let mono = self.read(CLOCK_MONOTONIC, insns, 0)? as i128;
                let this = self.read(c, insns, 0)? as i128;
                Ok((Domain::Wall, mono - this))
            }
            _ => Err(EINVAL),
        }
    }
}

/// A timespec or timeval as 16 guest bytes.
pub fn timespec_bytes(ns: u64) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&(ns / NS).to_le_bytes());
    b[8..].copy_from_slice(&(ns % NS).to_le_bytes());
    b
}

pub fn timeval_bytes(ns: u64) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&(ns / NS).to_le_bytes());
    b[8..].copy_from_slice(&((ns % NS) / 1000).to_le_bytes());
    b
}

/// Nanoseconds of a guest timespec (`sec`, `nsec`); EINVAL when out of
/// range, as the kernel's `timespec64_valid`.
pub fn timespec_ns(sec: u64, nsec: u64) -> Result<u64, u64> {
    if (sec as i64) < 0 || nsec >= NS {
        return Err(EINVAL);
    }
    Ok(sec.saturating_mul(NS).saturating_add(nsec))
}

/// Nanoseconds of a guest timeval; EINVAL when out of range.
pub fn timeval_ns(sec: u64, usec: u64) -> Result<u64, u64> {
    if (sec as i64) < 0 || usec >= 1_000_000 {
        return Err(EINVAL);
    }
    Ok(sec.saturating_mul(NS).saturating_add(usec * 1000))
}

/// What a timer does when it expires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notify {
    /// Send `signo` to the process (0 = any thread) or to thread `tid`.
    Signal { signo: u8, tid: u32 },
    /// SIGEV_NONE: nothing (the timer can still be read).
    None,
}

/// Which interface armed a timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `setitimer(which)`: 0 REAL, 1 VIRTUAL, 2 PROF.
    Itimer(u8),
    /// `timer_create`, with the id returned to the guest.
    Posix(u32),
}

/// One interval timer.
#[derive(Clone, Debug)]
pub struct Timer {
    pub kind: Kind,
    /// The clock it was created on (posix) or its itimer's clock.
    pub clock: u64,
    pub domain: Domain,
    /// Next expiry in its domain (ns); `None` = disarmed.
    pub next: Option<u64>,
    /// Reload interval (ns), 0 = one shot.
    pub interval: u64,
    pub notify: Notify,
    /// `sigev_value`, passed in siginfo's `si_value`.
    pub value: u64,
    /// Expiries missed while its signal was still pending.
    pub overrun: u32,
}

/// Most POSIX timers a process may create (the kernel's limit is the
/// RLIMIT_SIGPENDING-like `max_posix_timers`; EAGAIN beyond it).
pub const MAX_TIMERS: usize = 1024;

/// The process's timers.
#[derive(Clone, Debug, Default)]
pub struct Timers {
    pub list: Vec<Timer>,
    next_id: u32,
}

/// One expiry to deliver: (signal, target tid or 0, si_code, timer id,
/// overrun, value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expiry {
    pub signo: u8,
    pub tid: u32,
    pub posix: Option<u32>,
    pub overrun: u32,
    pub value: u64,
}

impl Timers {
    pub fn armed(&self) -> bool {
        self.list.iter().any(|t| t.next.is_some())
    }

    /// The earliest armed deadline in domain `d`.
    pub fn earliest(&self, d: Domain) -> Option<u64> {
        self.list
            .iter()
            .filter(|t| t.domain == d)
            .filter_map(|t| t.next)
            .min()
    }

    pub fn itimer(&mut self, which: u8) -> &mut Timer {
        let pos = self.list.iter().position(|t| t.kind == Kind::Itimer(which));
        let i = match pos {
            Some(i) => i,
            None => {
                let (clock, domain, signo) = match which {
                    0 => (CLOCK_MONOTONIC, Domain::Wall, 14),         // SIGALRM
                    1 => (CLOCK_PROCESS_CPUTIME_ID, Domain::Cpu, 26), // SIGVTALRM
                    _ => (CLOCK_PROCESS_CPUTIME_ID, Domain::Cpu, 27), // SIGPROF
                };
                self.list.push(Timer {
                    kind: Kind::Itimer(which),
                    clock,
                    domain,
                    next: None,
                    interval: 0,
                    notify: Notify::Signal { signo, tid: 0 },
                    value: 0,
                    overrun: 0,
                });
                self.list.len() - 1
            }
        };
        &mut self.list[i]
    }

    /// Create a POSIX timer; returns its id.
    pub fn create(
        &mut self,
        clock: u64,
        domain: Domain,
        notify: Notify,
        value: u64,
    ) -> Option<u32> {
        let posix = self
            .list
            .iter()
            .filter(|t| matches!(t.kind, Kind::Posix(_)))
            .count();
        if posix >= MAX_TIMERS {
            return None;
        }
        let id = self.next_id;
        self.next_id += 1;
        self.list.push(Timer {
            kind: Kind::Posix(id),
            clock,
            domain,
            next: None,
            interval: 0,
            notify,
            value,
            overrun: 0,
        });
        Some(id)
    }

    pub fn posix(&mut self, id: u64) -> Option<&mut Timer> {
        self.list
            .iter_mut()
            .find(|t| id <= u32::MAX as u64 && t.kind == Kind::Posix(id as u32))
    }

    pub fn delete(&mut self, id: u64) -> bool {
        let before = self.list.len();
        self.list
            .retain(|t| !(id <= u32::MAX as u64 && t.kind == Kind::Posix(id as u32)));
        self.list.len() != before
    }

    /// Expire every timer due at `wall`/`cpu`: reload periodic ones (counting
    /// the periods skipped as overruns) and return what to signal.
    pub fn expire(&mut self, wall: u64, cpu: u64) -> Vec<Expiry> {
        let mut out = Vec::new();
        for t in self.list.iter_mut() {
            let now = match t.domain {
                Domain::Wall => wall,
                Domain::Cpu => cpu,
            };
            let Some(next) = t.next else { continue };
            if next > now {
                continue;
            }
            let missed = (now - next).checked_div(t.interval);
            t.next = missed.map(|m| next + (m + 1) * t.interval);
            let missed = missed.unwrap_or(0);
            t.overrun = missed.min(i32::MAX as u64) as u32;
            if let Notify::Signal { signo, tid } = t.notify {
                out.push(Expiry {
                    signo,
                    tid,
                    posix: match t.kind {
                        Kind::Posix(id) => Some(id),
                        Kind::Itimer(_) => None,
                    },
                    overrun: missed.min(i32::MAX as u64) as u32,
                    value: t.value,
                });
            }
        }
        out
    }
}

// ------------------------------------------------------------ the process

use super::errno::{EAGAIN, EINTR};
use super::signal::{self, Info};
use super::syscall::Outcome;
use super::{Process, ThreadState};

/// `si_code` of a POSIX timer's signal (include/uapi/asm-generic/siginfo.h).
pub const SI_TIMER: i32 = -2;
/// `si_code` of the kernel's own signals (itimers send SEND_SIG_PRIV).
pub const SI_KERNEL: i32 = 0x80;

const SIGEV_SIGNAL: u32 = 0;
const SIGEV_NONE: u32 = 1;
const SIGEV_THREAD: u32 = 2;
const SIGEV_THREAD_ID: u32 = 4;

use super::uaccess::{put, read_bytes as get, word};

/// A guest timespec's raw fields, for `--strace`.
pub fn read_timespec_raw(p: &Process, addr: u64) -> Option<(i64, i64)> {
    let b = get(p, addr, 16).ok()?;
    Some((word(&b, 0) as i64, word(&b, 8) as i64))
}

/// A clock id as `<time.h>` spells it (for `--strace`).
pub fn clock_name(clk: u64) -> Option<&'static str> {
    Some(match clk {
        CLOCK_REALTIME => "CLOCK_REALTIME",
        CLOCK_MONOTONIC => "CLOCK_MONOTONIC",
        CLOCK_PROCESS_CPUTIME_ID => "CLOCK_PROCESS_CPUTIME_ID",
        CLOCK_THREAD_CPUTIME_ID => "CLOCK_THREAD_CPUTIME_ID",
        CLOCK_MONOTONIC_RAW => "CLOCK_MONOTONIC_RAW",
        CLOCK_REALTIME_COARSE => "CLOCK_REALTIME_COARSE",
        CLOCK_MONOTONIC_COARSE => "CLOCK_MONOTONIC_COARSE",
        CLOCK_BOOTTIME => "CLOCK_BOOTTIME",
        CLOCK_REALTIME_ALARM => "CLOCK_REALTIME_ALARM",
        CLOCK_BOOTTIME_ALARM => "CLOCK_BOOTTIME_ALARM",
        CLOCK_TAI => "CLOCK_TAI",
        _ => return None,
    })
}

/// Read a guest timespec.
pub fn read_timespec(p: &Process, addr: u64) -> Result<u64, u64> {
    let b = get(p, addr, 16)?;
    timespec_ns(word(&b, 0), word(&b, 8))
}

impl Process {
    /// The running thread's own clock: its retired instructions in
    /// deterministic mode, else the host CPU time of its turns so far
    /// (this one included).
    fn thread_clock(&self) -> u64 {
        let th = &self.threads[self.cur];
        if self.clock.deterministic {
            return self.machine.cpus[th.cpu].icount;
        }
        match self.turn {
            Some((t, start)) if t == self.cur => {
                th.cpu_ns + host_thread_cpu_ns().saturating_sub(start)
            }
            _ => th.cpu_ns,
        }
    }

    /// Clock `clk` now, for the running thread.
    pub fn clock_now(&self, clk: u64) -> Result<u64, u64> {
        self.clock.read(clk, self.insns, self.thread_clock())
    }

    pub fn has_sleepers(&self) -> bool {
        self.queues.next_sleeper().is_some()
    }

    /// Expire due timers (queueing their signals) and wake the sleepers
    /// whose deadline passed. Costs nothing while nothing is armed.
    pub fn tick(&mut self) {
        let sleepers = self.has_sleepers();
        if !sleepers && !self.timers.armed() {
            return;
        }
        let wall = self.clock.now(Domain::Wall, self.insns);
        let cpu = if self.timers.earliest(Domain::Cpu).is_some() {
            self.clock.now(Domain::Cpu, self.insns)
        } else {
            0
        };
        for e in self.timers.expire(wall, cpu) {
            self.send(Info {
                signo: e.signo,
                code: if e.posix.is_some() {
                    SI_TIMER
                } else {
                    SI_KERNEL
                },
                pid: e.posix.unwrap_or(0),
                uid: e.overrun,
                value: e.value,
                timer: true,
                target: e.tid,
                ..Default::default()
            });
        }
        while let Some((u, t)) = self.queues.next_sleeper() {
            if u > wall {
                break;
            }
            self.wake_thread(t, Ok(0));
        }
    }

    /// The next wall deadline of a sleeper or a timer.
    pub fn next_time_event(&self) -> Option<u64> {
        let sleep = self.queues.next_sleeper().map(|(u, _)| u);
        match (sleep, self.timers.earliest(Domain::Wall)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Nothing can run: wait for the next wall deadline (a sleeper's or a
    /// timer's), then expire what is due. False when there is none (the
    /// caller reports a deadlock). CPU-time timers cannot fire while every
    /// thread waits, as on Linux.
    pub fn idle_wait(&mut self) -> bool {
        let Some(next) = self.next_time_event() else {
            return false;
        };
        self.clock.wait_until(next, self.insns);
        self.tick();
        true
    }

    /// A signal cuts thread `t`'s sleep short: EINTR, and `nanosleep`'s
    /// `rem` gets the time left.
    pub fn interrupt_sleep(&mut self, t: usize) {
        if let ThreadState::Sleep { until, rem } = self.threads[t].state() {
            if let (Some(u), true) = (until, rem != 0) {
                let now = self.clock.now(Domain::Wall, self.insns);
                let left = timespec_bytes(u.saturating_sub(now));
                let _ = put(self, rem, &left);
            }
            self.wake_thread(t, Err(EINTR));
        }
    }
}

/// `gettimeofday(tv, tz)`.
pub fn gettimeofday(p: &mut Process, tv: u64, tz: u64) -> Result<u64, u64> {
    if tv != 0 {
        let ns = p.clock_now(CLOCK_REALTIME)?;
        put(p, tv, &timeval_bytes(ns))?;
    }
    if tz != 0 {
        // struct timezone: minutes west of Greenwich, DST type (both 0: UTC).
        put(p, tz, &[0u8; 8])?;
    }
    Ok(0)
}

pub fn clock_gettime(p: &mut Process, clk: u64, ts: u64) -> Result<u64, u64> {
    let ns = p.clock_now(clk)?;
    put(p, ts, &timespec_bytes(ns)).map(|_| 0)
}

pub fn clock_getres(p: &mut Process, clk: u64, ts: u64) -> Result<u64, u64> {
    let r = p.clock.resolution(clk)?;
    if ts != 0 {
        put(p, ts, &timespec_bytes(r))?;
    }
    Ok(0)
}

/// `nanosleep(req, rem)` and `clock_nanosleep(clk, flags, req, rem)`: the
/// thread sleeps (other threads run meanwhile) until the deadline or a
/// signal (EINTR, with `rem` for relative sleeps).
pub fn sleep(p: &mut Process, clk: u64, flags: u64, req: u64, rem: u64) -> Outcome {
    let r = (|| {
        let ns = read_timespec(p, req)?;
        if matches!(clk, CLOCK_THREAD_CPUTIME_ID) {
            return Err(EINVAL);
        }
        let (domain, offset) = p.clock.domain_of(clk, p.insns)?;
        if domain == Domain::Cpu {
            // Sleeping on the process CPU clock: the kernel allows it, but
            // the guest uses no CPU while asleep; treat it as done.
            return Ok(None);
        }
        let now = p.clock.now(Domain::Wall, p.insns);
        let until = if flags & TIMER_ABSTIME != 0 {
            (ns as i128 + offset).max(0) as u64
        } else {
            now.saturating_add(ns)
        };
        Ok(Some((
            until,
            if flags & TIMER_ABSTIME != 0 { 0 } else { rem },
        )))
    })();
    match r {
        Err(e) => Outcome::Return(Err(e)),
        Ok(None) => Outcome::Return(Ok(0)),
        Ok(Some((until, rem))) => {
            let t = p.cur;
            p.set_state(
                t,
                ThreadState::Sleep {
                    until: Some(until),
                    rem,
                },
            );
            p.yield_now = true;
            Outcome::NoResult
        }
    }
}

/// `times(buf)`: user time = the guest's CPU time, system time 0, in
/// USER_HZ ticks; returns ticks of the monotonic clock.
pub fn times(p: &mut Process, buf: u64) -> Result<u64, u64> {
    let ticks = |ns: u64| ns / (NS / USER_HZ);
    if buf != 0 {
        let cpu = p.clock_now(CLOCK_PROCESS_CPUTIME_ID)?;
        let mut b = [0u8; 32];
        b[..8].copy_from_slice(&ticks(cpu).to_le_bytes());
        put(p, buf, &b)?;
    }
    Ok(ticks(p.clock_now(CLOCK_MONOTONIC)?))
}

/// `getrusage(who, ru)`: RUSAGE_SELF (0) and RUSAGE_THREAD (1) report the
/// guest's CPU time as user time; RUSAGE_CHILDREN (-1) is all zero.
pub fn getrusage(p: &mut Process, who: u64, ru: u64) -> Result<u64, u64> {
    let user = match who as i64 {
        0 => p.clock_now(CLOCK_PROCESS_CPUTIME_ID)?,
        1 => p.clock_now(CLOCK_THREAD_CPUTIME_ID)?,
        -1 => 0,
        _ => return Err(EINVAL),
    };
    // struct rusage: ru_utime, ru_stime (timeval), then 14 longs.
    let mut b = vec![0u8; 32 + 14 * 8];
    b[..16].copy_from_slice(&timeval_bytes(user));
    put(p, ru, &b).map(|_| 0)
}

fn itimer_bytes(interval: u64, value: u64) -> [u8; 32] {
    let mut b = [0u8; 32];
    b[..16].copy_from_slice(&timeval_bytes(interval));
    b[16..].copy_from_slice(&timeval_bytes(value));
    b
}

fn itimerspec_bytes(interval: u64, value: u64) -> [u8; 32] {
    let mut b = [0u8; 32];
    b[..16].copy_from_slice(&timespec_bytes(interval));
    b[16..].copy_from_slice(&timespec_bytes(value));
    b
}

/// Time left on a timer and its interval.
fn remaining(p: &Process, t: &Timer) -> (u64, u64) {
    let left = t
        .next
        .map(|n| {
            let now = p.clock.now(t.domain, p.insns);
            // An armed timer that is due reads as 1 ns left, never 0
            // (0 would mean disarmed).
            n.saturating_sub(now).max(1)
        })
        .unwrap_or(0);
    (t.interval, left)
}

/// `getitimer(which, curr)`.
pub fn getitimer(p: &mut Process, which: u64, curr: u64) -> Result<u64, u64> {
    if which > 2 {
        return Err(EINVAL);
    }
    let t = p.timers.itimer(which as u8).clone();
    let (iv, left) = remaining(p, &t);
    put(p, curr, &itimer_bytes(iv, left)).map(|_| 0)
}

/// `setitimer(which, new, old)`; glibc's `alarm` is `setitimer(REAL)`.
pub fn setitimer(p: &mut Process, which: u64, new: u64, old: u64) -> Result<u64, u64> {
    if which > 2 {
        return Err(EINVAL);
    }
    let want = if new != 0 {
        let b = get(p, new, 32)?;
        Some((
            timeval_ns(word(&b, 0), word(&b, 8))?,
            timeval_ns(word(&b, 16), word(&b, 24))?,
        ))
    } else {
        None
    };
    let t = p.timers.itimer(which as u8).clone();
    let (iv, left) = remaining(p, &t);
    if old != 0 {
        put(p, old, &itimer_bytes(iv, left))?;
    }
    if let Some((interval, value)) = want {
        let now = p.clock.now(t.domain, p.insns);
        let tm = p.timers.itimer(which as u8);
        tm.interval = if value == 0 { 0 } else { interval };
        tm.next = (value != 0).then(|| now.saturating_add(value));
    }
    Ok(0)
}

/// `timer_create(clk, sevp, id)`.
pub fn timer_create(p: &mut Process, clk: u64, sevp: u64, idp: u64) -> Result<u64, u64> {
    let (domain, _) = p.clock.domain_of(clk, p.insns)?;
    let (notify, value) = if sevp == 0 {
        (
            Notify::Signal {
                signo: 14, // SIGALRM
                tid: 0,
            },
            0,
        )
    } else {
        // struct sigevent: sigev_value (8), sigev_signo (4),
        // sigev_notify (4), then the union (_tid first).
        let b = get(p, sevp, 24)?;
        let value = word(&b, 0);
        let signo = u32::from_le_bytes(b[8..12].try_into().unwrap_or([0; 4]));
        let how = u32::from_le_bytes(b[12..16].try_into().unwrap_or([0; 4]));
        let tid = u32::from_le_bytes(b[16..20].try_into().unwrap_or([0; 4]));
        let valid_sig = (1..=signal::NSIG as u32).contains(&signo);
        let notify = match how {
            SIGEV_NONE => Notify::None,
            SIGEV_SIGNAL | SIGEV_THREAD if valid_sig => Notify::Signal {
                signo: signo as u8,
                tid: 0,
            },
            SIGEV_THREAD_ID if valid_sig => {
                if !p.threads.iter().any(|t| t.tid == tid && !t.exited()) {
                    return Err(EINVAL);
                }
                Notify::Signal {
                    signo: signo as u8,
                    tid,
                }
            }
            _ => return Err(EINVAL),
        };
        (notify, value)
    };
    let id = p.timers.create(clk, domain, notify, value).ok_or(EAGAIN)?;
    // With no sigevent, si_value is the timer id (the kernel's default).
    if sevp == 0 {
        if let Some(t) = p.timers.posix(id as u64) {
            t.value = id as u64;
        }
    }
    if let Err(e) = put(p, idp, &id.to_le_bytes()) {
        p.timers.delete(id as u64);
        return Err(e);
    }
    Ok(0)
}

/// `timer_settime(id, flags, new, old)`.
pub fn timer_settime(p: &mut Process, id: u64, flags: u64, new: u64, old: u64) -> Result<u64, u64> {
    let t = p.timers.posix(id).ok_or(EINVAL)?.clone();
    let b = get(p, new, 32)?;
    let interval = timespec_ns(word(&b, 0), word(&b, 8))?;
    let value = timespec_ns(word(&b, 16), word(&b, 24))?;
    if old != 0 {
        let (iv, left) = remaining(p, &t);
        put(p, old, &itimerspec_bytes(iv, left))?;
    }
    let (domain, offset) = p.clock.domain_of(t.clock, p.insns)?;
    let now = p.clock.now(domain, p.insns);
    let next = if value == 0 {
        None
    } else if flags & TIMER_ABSTIME != 0 {
        Some((value as i128 + offset).max(0) as u64)
    } else {
        Some(now.saturating_add(value))
    };
    let tm = p.timers.posix(id).ok_or(EINVAL)?;
    tm.next = next;
    tm.interval = if next.is_some() { interval } else { 0 };
    tm.overrun = 0;
    Ok(0)
}

/// `timer_gettime(id, curr)`.
pub fn timer_gettime(p: &mut Process, id: u64, curr: u64) -> Result<u64, u64> {
    let t = p.timers.posix(id).ok_or(EINVAL)?.clone();
    let (iv, left) = remaining(p, &t);
    put(p, curr, &itimerspec_bytes(iv, left)).map(|_| 0)
}

pub fn timer_getoverrun(p: &mut Process, id: u64) -> Result<u64, u64> {
    Ok(p.timers.posix(id).ok_or(EINVAL)?.overrun as u64)
}

pub fn timer_delete(p: &mut Process, id: u64) -> Result<u64, u64> {
    if p.timers.delete(id) {
        Ok(0)
    } else {
        Err(EINVAL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_clocks_advance_with_instructions_and_sleep() {
        let mut c = Clock::new(true);
        assert_eq!(
            c.read(CLOCK_REALTIME, 5, 2).unwrap(),
            DETERMINISTIC_EPOCH_NS + 5
        );
        assert_eq!(c.read(CLOCK_THREAD_CPUTIME_ID, 5, 2).unwrap(), 2);
        c.wait_until(1000, 5);
        assert_eq!(c.read(CLOCK_MONOTONIC, 5, 2).unwrap(), 1000);
        // Sleep does not count as CPU time.
        assert_eq!(c.read(CLOCK_PROCESS_CPUTIME_ID, 5, 2).unwrap(), 5);
        assert_eq!(c.read(10, 5, 2), Err(EINVAL));
    }

    #[test]
    fn host_monotonic_clock_moves_forward() {
        let c = Clock::new(false);
        let a = c.read(CLOCK_MONOTONIC, 0, 0).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = c.read(CLOCK_MONOTONIC, 0, 0).unwrap();
        assert!(b > a);
        let real = c.read(CLOCK_REALTIME, 0, 0).unwrap();
        assert!(real > DETERMINISTIC_EPOCH_NS);
    }

    #[test]
    fn periodic_timer_reloads_and_counts_overruns() {
        let mut t = Timers::default();
        let it = t.itimer(0);
        it.next = Some(100);
        it.interval = 50;
        assert!(t.expire(99, 0).is_empty());
        let e = t.expire(260, 0);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].signo, 14);
        // 100 fired; 150, 200, 250 were missed: 3 overruns, next at 300.
        assert_eq!(e[0].overrun, 3);
        assert_eq!(t.itimer(0).next, Some(300));
    }

    #[test]
    fn one_shot_timer_disarms() {
        let mut t = Timers::default();
        let id = t
            .create(
                CLOCK_MONOTONIC,
                Domain::Wall,
                Notify::Signal { signo: 30, tid: 7 },
                42,
            )
            .unwrap();
        t.posix(id as u64).unwrap().next = Some(10);
        let e = t.expire(10, 0);
        assert_eq!(e[0].posix, Some(id));
        assert_eq!(e[0].value, 42);
        assert_eq!(e[0].tid, 7);
        assert!(!t.armed());
        assert!(t.delete(id as u64));
        assert!(!t.delete(id as u64));
    }
}
