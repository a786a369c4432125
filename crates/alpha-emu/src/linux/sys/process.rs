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

/// The process group (or with `sid` the session) id.
pub(crate) fn uname(p: &mut Process, buf: u64) -> Result<u64, u64> {
    // struct new_utsname: six 65-byte fields.
    let fields = [
        "Linux",
        "subword",
        "6.1.0",
        "#1 SMP subword",
        "alpha",
        "(none)",
    ];
    let mut b = vec![0u8; 65 * 6];
    for (i, f) in fields.iter().enumerate() {
        b[65 * i..65 * i + f.len()].copy_from_slice(f.as_bytes());
    }
    put(p, buf, &b).map(|_| 0)
}

pub(crate) fn prlimit(p: &mut Process, res: u64, new: u64, old: u64) -> Result<u64, u64> {
    let _ = new;
    if old != 0 {
        // RLIMIT_STACK (3): 8 MiB soft, unlimited hard; RLIMIT_NOFILE (6
        // on Alpha): 1024; everything else unlimited.
        let (soft, hard) = match res {
            3 => (8 << 20, u64::MAX),
            6 => (fs::MAX_FDS as u64, fs::MAX_FDS as u64),
            _ => (u64::MAX, u64::MAX),
        };
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&u64::to_le_bytes(soft));
        b[8..].copy_from_slice(&u64::to_le_bytes(hard));
        put(p, old, &b)?;
    }
    Ok(0)
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
