//! Waiting on descriptors: `poll`, `ppoll`, `select`, `pselect6`, and
//! the readiness of every kind of open object (which epoll shares).

use crate::linux::errno::*;
use crate::linux::fs::{self, Object};
use crate::linux::syscall::Outcome;
use crate::linux::uaccess::{put, read_u64};
use crate::linux::{Host, Process};

pub(crate) const POLLIN: i16 = 0x1;
pub(crate) const POLLOUT: i16 = 0x4;
pub(crate) const POLLERR: i16 = 0x8;
pub(crate) const POLLHUP: i16 = 0x10;
pub(crate) const POLLNVAL: i16 = 0x20;

/// A wait's timeout: `None` forever, `Some(ns)` (0: do not wait).
type Timeout = Option<u64>;

pub(crate) fn ms_timeout(ms: i32) -> Timeout {
    (ms >= 0).then(|| ms as u64 * 1_000_000)
}

/// A `struct timespec *` timeout (NULL: forever).
pub(crate) fn timespec_timeout(p: &Process, ts: u64) -> Result<Timeout, u64> {
    if ts == 0 {
        return Ok(None);
    }
    let (s, ns) = (read_u64(p, ts)? as i64, read_u64(p, ts + 8)? as i64);
    if s < 0 || !(0..1_000_000_000).contains(&ns) {
        return Err(EINVAL);
    }
    Ok(Some((s as u64).saturating_mul(1_000_000_000) + ns as u64))
}

/// A `struct timeval *` timeout (NULL: forever).
pub(crate) fn timeval_timeout(p: &Process, tv: u64) -> Result<Timeout, u64> {
    if tv == 0 {
        return Ok(None);
    }
    let (s, us) = (read_u64(p, tv)? as i64, read_u64(p, tv + 8)? as i64);
    if s < 0 || !(0..1_000_000).contains(&us) {
        return Err(EINVAL);
    }
    Ok(Some(
        (s as u64).saturating_mul(1_000_000_000) + us as u64 * 1000,
    ))
}

/// The `revents` of guest fd `fd` for `events`, now.
pub(crate) fn fd_revents(p: &Process, host: &dyn Host, fd: i32, events: i16) -> i16 {
    if fd < 0 {
        return 0;
    }
    let Ok(f) = p.fds.get(fd as u64) else {
        return POLLNVAL;
    };
    let o = f.obj.borrow();
    if let Object::Epoll(ep) = &*o {
        let r = if crate::linux::epoll::ready(p, host, ep) {
            POLLIN
        } else {
            0
        };
        return r & events;
    }
    object_revents(host, &o, p.clock_ns(), events)
}

/// The `revents` of open object `o` for `events` at guest time `now`
/// (an epoll instance: see [`crate::linux::epoll::ready`]).
pub(crate) fn object_revents(host: &dyn Host, o: &Object, now: u64, events: i16) -> i16 {
    let all = events | POLLERR | POLLHUP;
    let host_poll = |raw: i32| {
        let mut pf = libc::pollfd {
            fd: raw,
            events,
            revents: 0,
        };
        // SAFETY: one valid pollfd, timeout 0 (no waiting).
        unsafe { libc::poll(&mut pf, 1, 0) };
        // Alpha uses the generic POLL* bits, as the host does.
        pf.revents
    };
    let got = match o {
        Object::PipeRead(pb) => {
            let pb = pb.borrow();
            (if pb.data.is_empty() { 0 } else { POLLIN })
                | (if pb.writers == 0 { POLLHUP } else { 0 })
        }
        Object::PipeWrite(pb) => {
            if pb.borrow().readers == 0 {
                POLLOUT | POLLERR
            } else {
                POLLOUT
            }
        }
        Object::Stdio(n) => match host.raw_fd(*n) {
            Some(raw) => host_poll(raw),
            None => POLLIN | POLLOUT,
        },
        Object::File { file, .. } => {
            use std::os::fd::AsRawFd;
            host_poll(file.as_raw_fd())
        }
        Object::Dir { .. } => POLLIN | POLLOUT,
        Object::Host(h) => host_poll(h.raw()),
        Object::TimerFd(t) if t.pending(now) > 0 => POLLIN,
        Object::TimerFd(_) | Object::Epoll(_) => 0,
    };
    got & all
}

/// Finish a wait on `fds` that found `ready` descriptors: return, or block
/// until one of `fds` is ready or the timeout passes.
pub(crate) fn wait_or_return(
    p: &mut Process,
    ready: u64,
    timeout: Timeout,
    fds: &[(i32, i16)],
) -> Option<Outcome> {
    let t = p.cur;
    let now = p.clock_ns();
    let at = p.threads[t]
        .timeout_at
        .or(timeout.map(|ns| now.saturating_add(ns)));
    if ready > 0 || timeout == Some(0) || at.is_some_and(|d| now >= d) {
        p.threads[t].timeout_at = None;
        return None;
    }
    p.threads[t].timeout_at = at;
    let mut waits = Vec::new();
    for &(fd, ev) in fds {
        if fd < 0 {
            continue;
        }
        if ev & POLLIN != 0 {
            waits.push(crate::linux::Wait::Readable(fd as u64));
        }
        if ev & POLLOUT != 0 {
            waits.push(crate::linux::Wait::Writable(fd as u64));
        }
    }
    waits.extend(at.map(crate::linux::Wait::Deadline));
    Some(Outcome::Block(waits))
}

/// `poll(fds, nfds, timeout)` and `ppoll` (its mask: [`with_wait_mask`]).
pub(crate) fn poll(
    p: &mut Process,
    host: &dyn Host,
    addr: u64,
    nfds: u64,
    timeout: Timeout,
) -> Outcome {
    if nfds > fs::MAX_FDS as u64 {
        return Outcome::Return(Err(EINVAL));
    }
    let mut b = vec![0u8; nfds as usize * 8];
    if p.machine.mem.read_user(addr, &mut b).is_err() && nfds > 0 {
        return Outcome::Return(Err(EFAULT));
    }
    let mut fds = Vec::new();
    let mut ready = 0;
    for e in b.chunks_mut(8) {
        let fd = i32::from_le_bytes([e[0], e[1], e[2], e[3]]);
        let ev = i16::from_le_bytes([e[4], e[5]]);
        let r = fd_revents(p, host, fd, ev);
        e[6..8].copy_from_slice(&r.to_le_bytes());
        ready += (r != 0) as u64;
        fds.push((fd, ev));
    }
    if let Some(block) = wait_or_return(p, ready, timeout, &fds) {
        return block;
    }
    if nfds > 0 {
        if let Err(e) = put(p, addr, &b) {
            return Outcome::Return(Err(e));
        }
    }
    Outcome::Return(Ok(ready))
}

/// pselect6's `{ const sigset_t *ss; size_t ss_len; }` at `at` (0: none).
pub(crate) fn pselect_mask(p: &Process, at: u64) -> Result<(u64, u64), u64> {
    if at == 0 {
        return Ok((0, 0));
    }
    Ok((read_u64(p, at)?, read_u64(p, at + 8)?))
}

/// `select`/`pselect6(nfds, readfds, writefds, exceptfds, timeout, …)`:
/// fd_sets are arrays of 64-bit words (Alpha's `long`); the sets are
/// rewritten to the ready descriptors (pselect6's mask: [`with_wait_mask`]).
pub(crate) fn select(p: &mut Process, host: &dyn Host, a: [u64; 6], timeout: Timeout) -> Outcome {
    let n = a[0];
    if n > fs::MAX_FDS as u64 {
        return Outcome::Return(Err(EINVAL));
    }
    let words = n.div_ceil(64) as usize;
    let mut sets = [vec![0u64; words], vec![0u64; words], vec![0u64; words]];
    for (k, set) in sets.iter_mut().enumerate() {
        let at = a[1 + k];
        if at == 0 {
            continue;
        }
        for (w, v) in set.iter_mut().enumerate() {
            match read_u64(p, at + 8 * w as u64) {
                Ok(x) => *v = x,
                Err(e) => return Outcome::Return(Err(e)),
            }
        }
    }
    let bit = |set: &[u64], fd: usize| set[fd / 64] >> (fd % 64) & 1 != 0;
    let mut out = [vec![0u64; words], vec![0u64; words], vec![0u64; words]];
    let mut fds = Vec::new();
    let mut ready = 0;
    for fd in 0..n as usize {
        let (r, w) = (bit(&sets[0], fd), bit(&sets[1], fd));
        if !(r || w || bit(&sets[2], fd)) {
            continue;
        }
        let ev = if r { POLLIN } else { 0 } | if w { POLLOUT } else { 0 };
        let got = fd_revents(p, host, fd as i32, ev);
        if got & POLLNVAL != 0 {
            return Outcome::Return(Err(EBADF));
        }
        if r && got & (POLLIN | POLLHUP | POLLERR) != 0 {
            out[0][fd / 64] |= 1 << (fd % 64);
            ready += 1;
        }
        if w && got & (POLLOUT | POLLERR) != 0 {
            out[1][fd / 64] |= 1 << (fd % 64);
            ready += 1;
        }
        fds.push((fd as i32, ev));
    }
    if let Some(block) = wait_or_return(p, ready, timeout, &fds) {
        return block;
    }
    for (k, set) in out.iter().enumerate() {
        let at = a[1 + k];
        if at == 0 {
            continue;
        }
        let bytes: Vec<u8> = set.iter().flat_map(|w| w.to_le_bytes()).collect();
        if let Err(e) = put(p, at, &bytes) {
            return Outcome::Return(Err(e));
        }
    }
    Outcome::Return(Ok(ready))
}

/// `ppoll(fds, nfds, timeout, sigmask, sigsetsize)`.
pub(crate) fn ppoll(p: &mut Process, host: &dyn Host, a: [u64; 6]) -> Outcome {
    match timespec_timeout(p, a[2]) {
        Ok(t) => crate::linux::sys::signals::with_wait_mask(p, a[3], a[4], |p| {
            poll(p, host, a[0], a[1], t)
        }),
        Err(e) => Outcome::Return(Err(e)),
    }
}

/// `select(nfds, readfds, writefds, exceptfds, timeval)`.
pub(crate) fn select_call(p: &mut Process, host: &dyn Host, a: [u64; 6]) -> Outcome {
    match timeval_timeout(p, a[4]) {
        Ok(t) => select(p, host, a, t),
        Err(e) => Outcome::Return(Err(e)),
    }
}

/// `pselect6(…, timespec, &{ sigset_t *ss; size_t len; })`.
pub(crate) fn pselect6(p: &mut Process, host: &dyn Host, a: [u64; 6]) -> Outcome {
    match (timespec_timeout(p, a[4]), pselect_mask(p, a[5])) {
        (Ok(t), Ok((mask, len))) => {
            crate::linux::sys::signals::with_wait_mask(p, mask, len, |p| select(p, host, a, t))
        }
        (Err(e), _) | (_, Err(e)) => Outcome::Return(Err(e)),
    }
}
