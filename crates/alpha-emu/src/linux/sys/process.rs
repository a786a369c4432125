//! The process: thread exit, identities, umask, groups, uname, resource
//! limits, getrandom, and the OSF/1 getsysinfo/setsysinfo calls.

use crate::linux::errno::*;
use crate::linux::fs;
use crate::linux::signal::{self, Info};
use crate::linux::syscall::Outcome;
use crate::linux::uaccess::{put, read_u32, read_u64};
use crate::linux::Process;

pub(crate) fn exit_thread(p: &mut Process, status: u8) -> Outcome {
    if p.live_threads() <= 1 {
        return Outcome::Exit(status);
    }
    crate::linux::thread::thread_exit(p, p.cur, status);
    Outcome::NoResult
}

/// `umask(mask)`: the old mask; the new one also governs the host
/// process, which creates the guest's files.
pub(crate) fn umask(p: &mut Process, mask: u64) -> u64 {
    let old = p.id.umask;
    p.id.umask = (mask & 0o777) as u32;
    // SAFETY: umask has no preconditions.
    unsafe { libc::umask(p.id.umask as libc::mode_t) };
    old as u64
}

/// `getresuid`/`getresgid`: real, effective, saved (= effective) ids.
pub(crate) fn put_ids(p: &mut Process, at: [u64; 3], ids: [u32; 3]) -> Result<u64, u64> {
    for (a, v) in at.into_iter().zip(ids) {
        put(p, a, &v.to_le_bytes())?;
    }
    Ok(0)
}

/// `getgroups(size, list)`: the host process's supplementary groups
/// (none under `--deterministic`).
pub(crate) fn getgroups(p: &mut Process, size: u64, list: u64) -> Result<u64, u64> {
    let groups: Vec<u32> = if p.deterministic {
        Vec::new()
    } else {
        let mut g = vec![0 as libc::gid_t; 65536];
        // SAFETY: `g` has room for the count passed.
        let n = unsafe { libc::getgroups(g.len() as i32, g.as_mut_ptr()) };
        g.truncate(n.max(0) as usize);
        g
    };
    if (size as i64) < 0 {
        return Err(EINVAL);
    }
    if size == 0 {
        return Ok(groups.len() as u64);
    }
    if (size as usize) < groups.len() {
        return Err(EINVAL);
    }
    let bytes: Vec<u8> = groups.iter().flat_map(|g| g.to_le_bytes()).collect();
    put(p, list, &bytes)?;
    Ok(groups.len() as u64)
}

/// `struct new_utsname`'s fields: sysname, nodename, release, version,
/// machine, domainname.
const UNAME: [&str; 6] = [
    "Linux",
    "subword",
    "6.1.0",
    "#1 SMP subword",
    "alpha",
    "(none)",
];

/// `uname(buf)`: six 65-byte fields.
pub(crate) fn uname(p: &mut Process, buf: u64) -> Result<u64, u64> {
    let mut b = vec![0u8; 65 * 6];
    for (i, f) in UNAME.iter().enumerate() {
        b[65 * i..65 * i + f.len()].copy_from_slice(f.as_bytes());
    }
    put(p, buf, &b).map(|_| 0)
}

/// `prlimit64(0, res, new, old)` (`struct rlimit64`, infinity all ones)
/// and with `old_abi` `getrlimit`/`setrlimit` (`struct rlimit`, infinity
/// Alpha's RLIM_INFINITY), as the kernel's rlim64_to_rlim converts.
pub(crate) fn prlimit(
    p: &mut Process,
    res: u64,
    new: u64,
    old: u64,
    old_abi: bool,
) -> Result<u64, u64> {
    let from_guest = |v: u64| {
        if old_abi && v >= RLIM_INFINITY {
            u64::MAX
        } else {
            v
        }
    };
    let to_guest = |v: u64| {
        if old_abi && v >= RLIM_INFINITY {
            RLIM_INFINITY
        } else {
            v
        }
    };
    let r = res as usize;
    if r >= RLIM_NLIMITS {
        return Err(EINVAL);
    }
    let want = if new != 0 {
        let soft = from_guest(read_u64(p, new)?);
        let hard = from_guest(read_u64(p, new.wrapping_add(8))?);
        if soft > hard {
            return Err(EINVAL);
        }
        let (_, cur_hard) = p.limits.0[r];
        // Raising the hard limit needs CAP_SYS_RESOURCE.
        if hard > cur_hard && p.id.euid != 0 {
            return Err(EPERM);
        }
        if r == RLIMIT_NOFILE && soft > fs::MAX_FDS as u64 {
            return Err(EPERM);
        }
        Some((soft, hard))
    } else {
        None
    };
    if old != 0 {
        let (soft, hard) = p.limits.0[r];
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&to_guest(soft).to_le_bytes());
        b[8..].copy_from_slice(&to_guest(hard).to_le_bytes());
        put(p, old, &b)?;
    }
    if let Some(l) = want {
        p.limits.0[r] = l;
    }
    Ok(0)
}

/// Alpha's RLIM_INFINITY (asm/resource.h), not the generic all-ones.
pub const RLIM_INFINITY: u64 = 0x7fff_ffff_ffff_ffff;
const RLIM_NLIMITS: usize = 16;
const RLIMIT_STACK: usize = 3;
/// Alpha's RLIMIT_NOFILE (6; the generic number is 7).
const RLIMIT_NOFILE: usize = 6;

/// The guest's resource limits, by Alpha's RLIMIT_ numbers: (soft, hard),
/// unlimited as all ones (`struct rlimit64`'s infinity), and the nice
/// value (`setpriority`).
#[derive(Clone, Debug)]
pub struct Limits(pub [(u64, u64); RLIM_NLIMITS], pub i32);

impl Default for Limits {
    /// An 8 MiB stack, 1024 descriptors, everything else unlimited.
    fn default() -> Limits {
        let mut l = [(u64::MAX, u64::MAX); RLIM_NLIMITS];
        l[RLIMIT_STACK] = (8 << 20, u64::MAX);
        l[RLIMIT_NOFILE] = (fs::MAX_FDS as u64, fs::MAX_FDS as u64);
        Limits(l, 0)
    }
}

pub(crate) fn getrandom(p: &mut Process, buf: u64, len: u64) -> Result<u64, u64> {
    // Deterministic bytes (xorshift from a fixed seed): reproducible runs.
    let n = len.min(1 << 20) as usize;
    let mut b = vec![0u8; n];
    let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ p.insns;
    for v in b.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *v = x as u8;
    }
    put(p, buf, &b)?;
    Ok(n as u64)
}

// -------------------------------------------------------------- OSF calls

pub(crate) const GSI_IEEE_FP_CONTROL: u64 = 45;
pub(crate) const GSI_UACPROC: u64 = 8;
pub(crate) const SSI_NVPAIRS: u64 = 1;
pub(crate) const SSI_IEEE_FP_CONTROL: u64 = 14;
pub(crate) const SSI_IEEE_RAISE_EXCEPTION: u64 = 1001;
pub(crate) const SSIN_UACPROC: u64 = 6;

pub(crate) fn osf_getsysinfo(
    p: &mut Process,
    c: usize,
    op: u64,
    buf: u64,
    _n: u64,
) -> Result<u64, u64> {
    match op {
        GSI_IEEE_FP_CONTROL => {
            let cpu = &p.machine.cpus[c];
            let w = cpu.ieee_ctl | crate::fp::fpcr::swcr_status_from_fpcr(cpu.fpcr);
            put(p, buf, &w.to_le_bytes()).map(|_| 0)
        }
        GSI_UACPROC => {
            let w = p.threads[p.cur].uac;
            put(p, buf, &(w as u32).to_le_bytes()).map(|_| 1)
        }
        _ => Err(EOPNOTSUPP),
    }
}

pub(crate) fn osf_setsysinfo(
    p: &mut Process,
    c: usize,
    op: u64,
    buf: u64,
    n: u64,
) -> Result<u64, u64> {
    match op {
        SSI_IEEE_FP_CONTROL => {
            use crate::fp::fpcr;
            let swcr = read_u64(p, buf)?;
            let cpu = &mut p.machine.cpus[c];
            cpu.ieee_ctl = swcr
                & (fpcr::IEEE_TRAP_ENABLE_MASK
                    | fpcr::IEEE_STATUS_MASK
                    | fpcr::IEEE_MAP_DMZ
                    | fpcr::IEEE_MAP_UMZ);
            cpu.fpcr = (cpu.fpcr & fpcr::FPCR_DYN_MASK) | fpcr::fpcr_from_swcr(cpu.ieee_ctl);
            Ok(0)
        }
        SSI_IEEE_RAISE_EXCEPTION => {
            // arch/alpha/kernel/osf_sys.c: the status bits join ieee_state
            // and the FPCR; those whose trap is enabled (status >> 16 =
            // enable bit) send SIGFPE with the kernel's si_code choice
            // (the last matching test wins, INV over DZE over OVF …).
            // glibc's feraiseexcept is this call.
            use crate::fp::fpcr;
            let exc = read_u64(p, buf)? & fpcr::IEEE_STATUS_MASK;
            let cpu = &mut p.machine.cpus[c];
            let swcr = cpu.ieee_ctl | exc;
            cpu.ieee_ctl = swcr;
            cpu.fpcr |= fpcr::fpcr_from_swcr(swcr);
            let fex = (exc >> 16) & swcr;
            if fex != 0 {
                let mut code = signal::FPE_FLTUNK;
                for (bit, c) in [
                    (fpcr::IEEE_TRAP_ENABLE_DNO, signal::FPE_FLTUND),
                    (fpcr::IEEE_TRAP_ENABLE_INE, signal::FPE_FLTRES),
                    (fpcr::IEEE_TRAP_ENABLE_UNF, signal::FPE_FLTUND),
                    (fpcr::IEEE_TRAP_ENABLE_OVF, signal::FPE_FLTOVF),
                    (fpcr::IEEE_TRAP_ENABLE_DZE, signal::FPE_FLTDIV),
                    (fpcr::IEEE_TRAP_ENABLE_INV, signal::FPE_FLTINV),
                ] {
                    if fex & bit != 0 {
                        code = c;
                    }
                }
                let tid = p.threads[p.cur].tid;
                p.send(Info {
                    signo: crate::linux::SIGFPE,
                    code,
                    target: tid,
                    ..Default::default()
                });
            }
            Ok(0)
        }
        SSI_NVPAIRS => {
            for i in 0..n.min(64) {
                let name = read_u32(p, buf.wrapping_add(8 * i))? as u64;
                let val = read_u32(p, buf.wrapping_add(8 * i + 4))? as u64;
                match name {
                    SSIN_UACPROC => {
                        p.threads[p.cur].uac = val
                            & (crate::linux::UAC_NOPRINT
                                | crate::linux::UAC_NOFIX
                                | crate::linux::UAC_SIGBUS);
                    }
                    _ => return Err(EOPNOTSUPP),
                }
            }
            Ok(0)
        }
        _ => Err(EOPNOTSUPP),
    }
}

/// getxpid, getxuid, getxgid: the second value in a4 (r20), the OSF
/// convention (parent pid, euid, egid).
pub(crate) fn getxpid(p: &mut Process, c: usize) -> Result<u64, u64> {
    p.machine.cpus[c].r[20] = crate::linux::process::parent_pid(p) as u64;
    Ok(p.id.pid as u64)
}

pub(crate) fn getxuid(p: &mut Process, c: usize) -> Result<u64, u64> {
    p.machine.cpus[c].r[20] = p.id.euid as u64;
    Ok(p.id.uid as u64)
}

pub(crate) fn getxgid(p: &mut Process, c: usize) -> Result<u64, u64> {
    p.machine.cpus[c].r[20] = p.id.egid as u64;
    Ok(p.id.gid as u64)
}

/// `sched_yield`: the other runnable threads run first.
pub(crate) fn sched_yield(p: &mut Process) -> Outcome {
    p.yield_now = true;
    Outcome::Return(Ok(0))
}

/// `set_tid_address(tidptr)`: cleared (and futex-woken) when the thread
/// exits; returns the caller's tid.
pub(crate) fn set_tid_address(p: &mut Process, at: u64) -> Result<u64, u64> {
    p.threads[p.cur].clear_child_tid = at;
    Ok(p.threads[p.cur].tid as u64)
}

// ------------------------------------------------ scheduling and identity

/// `sched_getaffinity(pid, len, mask)`: the guest's processors (the count
/// `/proc/cpuinfo` and `/sys` show), EINVAL for a mask too small for them
/// or not a whole number of longs, as the kernel; returns the bytes
/// written (one long).
pub(crate) fn sched_getaffinity(
    p: &mut Process,
    pid: u64,
    len: u64,
    mask: u64,
) -> Result<u64, u64> {
    check_pid(p, pid)?;
    let n = p.ncpus.clamp(1, 64) as u64;
    if len * 8 < n || len & 7 != 0 {
        return Err(EINVAL);
    }
    let bits = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    put(p, mask, &bits.to_le_bytes())?;
    Ok(8)
}

/// `sched_setaffinity(pid, len, mask)`: accepted when the mask names one
/// of the guest's processors (EINVAL otherwise); every guest thread runs
/// on every processor.
pub(crate) fn sched_setaffinity(
    p: &mut Process,
    pid: u64,
    len: u64,
    mask: u64,
) -> Result<u64, u64> {
    check_pid(p, pid)?;
    let n = p.ncpus.clamp(1, 64) as u64;
    let b = crate::linux::uaccess::read_bytes(p, mask, len.min(128) as usize)?;
    let first = if b.len() >= 8 {
        crate::linux::uaccess::word(&b, 0)
    } else {
        b.iter().rev().fold(0u64, |a, &x| a << 8 | x as u64)
    };
    let ours = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    if first & ours == 0 {
        return Err(EINVAL);
    }
    Ok(0)
}

/// ESRCH unless `pid` is 0, the process or one of its threads.
fn check_pid(p: &Process, pid: u64) -> Result<(), u64> {
    let pid = pid as u32;
    if pid == 0 || pid == p.id.pid || p.threads.iter().any(|t| t.tid == pid && !t.exited()) {
        Ok(())
    } else {
        Err(ESRCH)
    }
}

/// `sched_getscheduler(pid)`: SCHED_OTHER (0).
pub(crate) fn sched_getscheduler(p: &mut Process, pid: u64) -> Result<u64, u64> {
    if (pid as i64) < 0 {
        return Err(EINVAL);
    }
    check_pid(p, pid).map(|_| 0)
}

/// `sched_setscheduler(pid, policy, param)`: SCHED_OTHER/BATCH/IDLE with
/// priority 0 are accepted; the real-time policies need privilege (EPERM),
/// as for an unprivileged Linux process.
pub(crate) fn sched_setscheduler(
    p: &mut Process,
    pid: u64,
    policy: u64,
    param: u64,
) -> Result<u64, u64> {
    if (pid as i64) < 0 || param == 0 {
        return Err(EINVAL);
    }
    check_pid(p, pid)?;
    let prio = read_u32(p, param)? as i32;
    match policy & !0x4000_0000 {
        0 | 3 | 5 if prio == 0 => Ok(0),
        0 | 3 | 5 => Err(EINVAL),
        1 | 2 if (1..=99).contains(&prio) => Err(EPERM),
        _ => Err(EINVAL),
    }
}

/// `sched_getparam(pid, param)`: priority 0.
pub(crate) fn sched_getparam(p: &mut Process, pid: u64, param: u64) -> Result<u64, u64> {
    if (pid as i64) < 0 || param == 0 {
        return Err(EINVAL);
    }
    check_pid(p, pid)?;
    put(p, param, &0u32.to_le_bytes()).map(|_| 0)
}

/// `sched_setparam(pid, param)`: priority 0 only (SCHED_OTHER).
pub(crate) fn sched_setparam(p: &mut Process, pid: u64, param: u64) -> Result<u64, u64> {
    if (pid as i64) < 0 || param == 0 {
        return Err(EINVAL);
    }
    check_pid(p, pid)?;
    match read_u32(p, param)? {
        0 => Ok(0),
        _ => Err(EINVAL),
    }
}

/// `sched_get_priority_max`/`min(policy)`: 99/1 for FIFO and RR, 0 for
/// the others.
pub(crate) fn sched_priority(policy: u64, max: bool) -> Result<u64, u64> {
    match policy {
        1 | 2 => Ok(if max { 99 } else { 1 }),
        0 | 3 | 5 => Ok(0),
        _ => Err(EINVAL),
    }
}

/// `sched_rr_get_interval(pid, tp)`: 0 for SCHED_OTHER (as Linux's CFS
/// reports for a non-RR task).
pub(crate) fn sched_rr_get_interval(p: &mut Process, pid: u64, tp: u64) -> Result<u64, u64> {
    check_pid(p, pid)?;
    put(p, tp, &[0u8; 16]).map(|_| 0)
}

/// `getpriority(which, who)` for the process itself, its group or its
/// user: Alpha's `osf_getpriority` returns the nice value itself (its
/// negative values are successes, a3 = 0), not the generic 20 - nice.
pub(crate) fn getpriority(p: &mut Process, which: u64, who: u64) -> Result<u64, u64> {
    priority_target(p, which, who)?;
    Ok(p.limits_nice() as i64 as u64)
}

/// `setpriority(which, who, nice)`: lowering the priority (a higher nice)
/// is allowed, raising it needs privilege (EACCES), as RLIMIT_NICE 0 gives.
pub(crate) fn setpriority(p: &mut Process, which: u64, who: u64, nice: u64) -> Result<u64, u64> {
    priority_target(p, which, who)?;
    let n = (nice as i64 as i32).clamp(-20, 19);
    if n < p.limits_nice() && p.id.euid != 0 {
        return Err(EACCES);
    }
    p.set_nice(n);
    Ok(0)
}

fn priority_target(p: &Process, which: u64, who: u64) -> Result<(), u64> {
    let who = who as u32;
    match which {
        0 if who == 0 || who == p.id.pid || p.threads.iter().any(|t| t.tid == who) => Ok(()),
        1 if who == 0 || who == p.id.pid => Ok(()),
        2 if who == 0 || who == p.id.uid => Ok(()),
        0..=2 => Err(ESRCH),
        _ => Err(EINVAL),
    }
}

impl Process {
    /// The process's nice value.
    pub(crate) fn limits_nice(&self) -> i32 {
        self.limits.1
    }

    fn set_nice(&mut self, n: i32) {
        self.limits.1 = n;
    }
}

/// `setuid`, `setgid`, `setreuid`, `setregid`, `setresuid`, `setresgid`:
/// the guest's ids (the host process keeps its own). As Linux for a
/// process without CAP_SETUID: each new id must be the real or effective
/// one (-1 keeps an id), otherwise EPERM; root may set any.
pub(crate) fn setresid(p: &mut Process, gid: bool, r: u64, e: u64, s: u64) -> Result<u64, u64> {
    let (cur_r, cur_e) = if gid {
        (p.id.gid, p.id.egid)
    } else {
        (p.id.uid, p.id.euid)
    };
    let root = p.id.euid == 0;
    for v in [r, e, s] {
        let v = v as u32;
        if v != u32::MAX && !root && v != cur_r && v != cur_e {
            return Err(EPERM);
        }
    }
    let pick = |v: u64, old: u32| if v as u32 == u32::MAX { old } else { v as u32 };
    let (nr, ne) = (pick(r, cur_r), pick(e, cur_e));
    if gid {
        p.id.gid = nr;
        p.id.egid = ne;
    } else {
        p.id.uid = nr;
        p.id.euid = ne;
    }
    Ok(0)
}

/// `setuid(id)`/`setgid(id)`: root sets every id; others only the
/// effective one, to the real one (EPERM otherwise).
pub(crate) fn setid(p: &mut Process, gid: bool, id: u64) -> Result<u64, u64> {
    if id as u32 == u32::MAX {
        return Err(EINVAL);
    }
    if p.id.euid == 0 {
        setresid(p, gid, id, id, id)
    } else {
        setresid(p, gid, u64::MAX, id, u64::MAX)
    }
}

/// `setgroups(size, list)`: EPERM without privilege; root's list is
/// accepted (the guest has no other use for it).
pub(crate) fn setgroups(p: &mut Process, size: u64, _list: u64) -> Result<u64, u64> {
    if size > 65536 {
        return Err(EINVAL);
    }
    if p.id.euid != 0 {
        return Err(EPERM);
    }
    Ok(0)
}

/// `set_robust_list(head, len)`: the list the kernel would walk at thread
/// exit; recorded (the length must be the 24 bytes of Alpha's
/// `struct robust_list_head`).
pub(crate) fn set_robust_list(p: &mut Process, head: u64, len: u64) -> Result<u64, u64> {
    if len != 24 {
        return Err(EINVAL);
    }
    let _ = (p, head);
    Ok(0)
}

/// `gethostname(name, len)`: the node name `uname` gives, cut to `len`
/// bytes (with its NUL when it fits), as the kernel's.
pub(crate) fn gethostname(p: &mut Process, name: u64, len: u64) -> Result<u64, u64> {
    if (len as i64) < 0 {
        return Err(EINVAL);
    }
    let mut b = UNAME[1].as_bytes().to_vec();
    b.push(0);
    b.truncate(len as usize);
    put(p, name, &b).map(|_| 0)
}

/// `sysinfo(info)`: the host's `struct sysinfo` (Alpha's has the same
/// 64-bit layout: uptime, loads[3], totalram … mem_unit), with the guest's
/// own process count.
pub(crate) fn sysinfo(p: &mut Process, info: u64) -> Result<u64, u64> {
    // SAFETY: a zeroed sysinfo for the host to fill.
    let mut s: libc::sysinfo = unsafe { std::mem::zeroed() };
    // SAFETY: `s` is a sysinfo to fill.
    if unsafe { libc::sysinfo(&mut s) } < 0 {
        return Err(fs::host_errno(&std::io::Error::last_os_error()));
    }
    let mut b = vec![0u8; 112];
    let mut w = |at: usize, v: u64| b[at..at + 8].copy_from_slice(&v.to_le_bytes());
    w(0, s.uptime as u64);
    for i in 0..3 {
        w(8 + 8 * i, s.loads[i]);
    }
    w(32, s.totalram);
    w(40, s.freeram);
    w(48, s.sharedram);
    w(56, s.bufferram);
    w(64, s.totalswap);
    w(72, s.freeswap);
    w(88, s.totalhigh);
    w(96, s.freehigh);
    b[80..82].copy_from_slice(&s.procs.to_le_bytes());
    b[104..108].copy_from_slice(&s.mem_unit.to_le_bytes());
    put(p, info, &b).map(|_| 0)
}

/// `membarrier(cmd, flags, cpu_id)`: MEMBARRIER_CMD_QUERY lists the
/// commands; the others are barriers, which an emulator whose threads
/// interleave on one host thread has already kept.
pub(crate) fn membarrier(cmd: u64, flags: u64) -> Result<u64, u64> {
    // QUERY 0, GLOBAL 1, GLOBAL_EXPEDITED 2, REGISTER_GLOBAL_EXPEDITED 4,
    // PRIVATE_EXPEDITED 8, REGISTER_PRIVATE_EXPEDITED 16.
    const SUPPORTED: u64 = 1 | 2 | 4 | 8 | 16;
    if flags != 0 {
        return Err(EINVAL);
    }
    match cmd {
        0 => Ok(SUPPORTED),
        c if c.is_power_of_two() && c & SUPPORTED != 0 => Ok(0),
        _ => Err(EINVAL),
    }
}
