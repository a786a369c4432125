//! Signal system calls: kill, tkill, tgkill, sigaction, masks, sigsuspend,
//! sigpending, sigaltstack, sigreturn, and the temporary mask of the
//! waits that take one (ppoll, pselect6, epoll_pwait).

use crate::linux::errno::*;
use crate::linux::signal::{self, Info};
use crate::linux::syscall::Outcome;
use crate::linux::uaccess::{put, read_u32, read_u64};
use crate::linux::Process;

pub(crate) fn kill(p: &mut Process, target: i64, sig: u64, thread: bool) -> Result<u64, u64> {
    if sig > signal::NSIG as u64 {
        return Err(EINVAL);
    }
    let own_group = target == 0 && p.procs.tree;
    if !thread && target == -1 {
        return crate::linux::process::kill_all(p, sig);
    }
    if !thread && (own_group || (target != p.id.pid as i64 && target != 0)) {
        return crate::linux::process::kill_other(target, sig);
    }
    let ok = if thread {
        p.threads
            .iter()
            .any(|t| t.tid as i64 == target && !t.exited())
    } else {
        target == p.id.pid as i64 || target == 0
    };
    if !ok {
        return Err(ESRCH);
    }
    if sig == 0 {
        return Ok(0);
    }
    p.send(Info {
        signo: sig as u8,
        code: if thread {
            signal::SI_TKILL
        } else {
            signal::SI_USER
        },
        pid: p.id.pid,
        uid: p.id.uid,
        is_kill: true,
        addr: 0,
        target: if thread { target as u32 } else { 0 },
        ..Default::default()
    });
    Ok(0)
}

pub(crate) fn rt_sigaction(
    p: &mut Process,
    sig: u64,
    act: u64,
    oact: u64,
    size: u64,
    restorer: u64,
) -> Result<u64, u64> {
    if size != 8 {
        return Err(EINVAL);
    }
    if sig == 0 || sig > signal::NSIG as u64 {
        return Err(EINVAL);
    }
    let new = if act != 0 {
        // Kernel struct sigaction on Alpha: handler, flags (8), mask (8).
        let h = read_u64(p, act)?;
        let f = read_u64(p, act.wrapping_add(8))?;
        let m = read_u64(p, act.wrapping_add(16))?;
        if sig as u8 == signal::SIGKILL || sig as u8 == signal::SIGSTOP {
            return Err(EINVAL);
        }
        Some(signal::Action {
            handler: h,
            flags: f,
            mask: m,
            restorer,
        })
    } else {
        None
    };
    let old = p.signals.actions[sig as usize];
    if oact != 0 {
        let mut b = [0u8; 24];
        b[..8].copy_from_slice(&old.handler.to_le_bytes());
        b[8..16].copy_from_slice(&old.flags.to_le_bytes());
        b[16..].copy_from_slice(&old.mask.to_le_bytes());
        put(p, oact, &b)?;
    }
    if let Some(n) = new {
        p.signals.actions[sig as usize] = n;
        if n.handler == signal::SIG_IGN
            || (n.handler == signal::SIG_DFL && signal::default_ignored(sig as u8))
        {
            p.signals.pending.retain(|i| i.signo as u64 != sig);
        }
        crate::linux::process::sync_host_action(p, sig as u8);
    }
    Ok(0)
}

pub(crate) const UNBLOCKABLE: u64 = (1 << 8) | (1 << 16); // SIGKILL (9), SIGSTOP (17)

pub(crate) fn apply_mask(p: &mut Process, how: u64, set: u64) -> Result<u64, u64> {
    let t = p.cur;
    let old = p.threads[t].sigmask;
    let new = match how {
        1 => old | set,
        2 => old & !set,
        3 => set,
        _ => return Err(EINVAL),
    };
    p.threads[t].sigmask = new & !UNBLOCKABLE;
    Ok(old)
}

pub(crate) fn rt_sigprocmask(
    p: &mut Process,
    how: u64,
    set: u64,
    oset: u64,
    size: u64,
) -> Result<u64, u64> {
    if size != 8 {
        return Err(EINVAL);
    }
    let old = p.threads[p.cur].sigmask;
    if set != 0 {
        let s = read_u64(p, set)?;
        apply_mask(p, how, s)?;
    }
    if oset != 0 {
        put(p, oset, &old.to_le_bytes())?;
    }
    Ok(0)
}

pub(crate) fn osf_sigprocmask(p: &mut Process, how: u64, set: u64) -> Result<u64, u64> {
    apply_mask(p, how, set)
}

/// `rt_sigsuspend(mask)`: wait with `mask` until a signal is delivered,
/// then return EINTR; the handler's frame records the caller's own mask.
pub(crate) fn rt_sigsuspend(p: &mut Process, set: u64, size: u64) -> Outcome {
    if size != 8 {
        return Outcome::Return(Err(EINVAL));
    }
    let new = match read_u64(p, set) {
        Ok(v) => v & !UNBLOCKABLE,
        Err(e) => return Outcome::Return(Err(e)),
    };
    if deliverable(p, new) {
        let t = p.cur;
        p.threads[t].saved_mask = Some(p.threads[t].sigmask);
        p.threads[t].sigmask = new;
        return Outcome::Return(Err(EINTR));
    }
    // Wait with the new mask (the kernel's saved_sigmask keeps the old one
    // for the handler's frame): blocked with nothing to poll, only a
    // signal this mask lets through wakes the thread (`Process::send`),
    // and the call then fails EINTR — it is never restarted. If no thread
    // can ever send one, the scheduler reports the deadlock.
    let t = p.cur;
    p.threads[t].saved_mask = Some(p.threads[t].sigmask);
    p.threads[t].sigmask = new;
    Outcome::Block(Vec::new())
}

/// Whether a pending signal the running thread could take under `mask`
/// exists.
pub(crate) fn deliverable(p: &Process, mask: u64) -> bool {
    let me = p.threads[p.cur].tid;
    p.signals.pending.iter().any(|i| {
        (i.target == 0 || i.target == me)
            && (i.signo == signal::SIGKILL || mask & signal::bit(i.signo) == 0)
    })
}

/// A wait with a temporary signal mask (`ppoll`, `pselect6`,
/// `epoll_pwait`, `epoll_pwait2`; `mask` is the guest's `sigset_t *`, 0
/// for none): the mask is in force while `wait` runs and while the thread
/// is blocked in it, with the caller's own mask kept as the kernel's
/// saved_sigmask. The wait ends with EINTR when nothing is ready and a
/// signal the temporary mask lets through is pending; the handler then
/// runs with the temporary mask and its frame restores the caller's. Any
/// other result restores the caller's mask at once, leaving such a signal
/// pending (Linux's `restore_saved_sigmask_unless(ret == -ERESTARTNOHAND)`).
pub(crate) fn with_wait_mask(
    p: &mut Process,
    mask: u64,
    size: u64,
    wait: impl FnOnce(&mut Process) -> Outcome,
) -> Outcome {
    if mask == 0 {
        return wait(p);
    }
    if size != 8 {
        return Outcome::Return(Err(EINVAL));
    }
    let temp = match read_u64(p, mask) {
        Ok(v) => v & !UNBLOCKABLE,
        Err(e) => return Outcome::Return(Err(e)),
    };
    let t = p.cur;
    let th = &mut p.threads[t];
    let own = *th.saved_mask.get_or_insert(th.sigmask);
    p.threads[t].sigmask = temp;
    let out = wait(p);
    let interrupted = match out {
        Outcome::Block(_) | Outcome::Return(Ok(0)) => deliverable(p, temp),
        Outcome::Return(Err(e)) => e == EINTR,
        _ => false,
    };
    if interrupted {
        p.threads[t].timeout_at = None;
        return Outcome::Return(Err(EINTR));
    }
    if !matches!(out, Outcome::Block(_)) {
        p.threads[t].saved_mask = None;
        p.threads[t].sigmask = own;
    }
    out
}

pub(crate) fn rt_sigpending(p: &mut Process, set: u64) -> Result<u64, u64> {
    let mut bits = 0u64;
    let me = p.threads[p.cur].tid;
    for i in p
        .signals
        .pending
        .iter()
        .filter(|i| i.target == 0 || i.target == me)
    {
        bits |= signal::bit(i.signo);
    }
    bits &= p.threads[p.cur].sigmask;
    put(p, set, &bits.to_le_bytes()).map(|_| 0)
}

pub(crate) fn sigaltstack(p: &mut Process, ss: u64, oss: u64) -> Result<u64, u64> {
    let t = p.cur;
    let cur = p.threads[t].altstack;
    let sp = p.machine.cpus[p.threads[t].cpu].r[30];
    let on = cur.flags & signal::SS_DISABLE == 0 && sp > cur.sp && sp - cur.sp <= cur.size;
    if oss != 0 {
        let mut b = [0u8; 24];
        b[..8].copy_from_slice(&cur.sp.to_le_bytes());
        let fl = if on {
            signal::SS_ONSTACK
        } else {
            cur.flags & signal::SS_DISABLE
        };
        b[8..12].copy_from_slice(&(fl as u32).to_le_bytes());
        b[16..].copy_from_slice(&cur.size.to_le_bytes());
        put(p, oss, &b)?;
    }
    if ss != 0 {
        if on {
            return Err(EPERM);
        }
        let sp = read_u64(p, ss)?;
        let flags = read_u32(p, ss.wrapping_add(8))? as u64;
        let size = read_u64(p, ss.wrapping_add(16))?;
        if flags & !(signal::SS_DISABLE | signal::SS_ONSTACK) != 0 {
            return Err(EINVAL);
        }
        if flags & signal::SS_DISABLE != 0 {
            p.threads[t].altstack = signal::AltStack {
                sp: 0,
                flags: signal::SS_DISABLE,
                size: 0,
            };
        } else {
            if size < 4096 {
                return Err(ENOMEM);
            }
            p.threads[t].altstack = signal::AltStack { sp, flags: 0, size };
        }
    }
    Ok(0)
}

pub(crate) fn sigreturn(p: &mut Process, c: usize, frame: u64, rt: bool) -> Outcome {
    let r = if rt {
        signal::rt_sigreturn(&p.machine.mem, &mut p.machine.cpus[c], frame)
    } else {
        signal::restore_sigcontext(&p.machine.mem, &mut p.machine.cpus[c], frame)
    };
    match r {
        Ok(mask) => {
            p.threads[p.cur].sigmask = mask & !UNBLOCKABLE;
            Outcome::NoResult
        }
        Err(signal::FrameFault) => {
            // do_sigreturn's give_sigsegv: force_sig(SIGSEGV).
            p.send(Info {
                signo: signal::SIGSEGV,
                code: 0x80, // SI_KERNEL
                ..Default::default()
            });
            Outcome::NoResult
        }
    }
}
