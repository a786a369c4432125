//! Sockets (AF_UNIX, AF_INET, AF_INET6) on the host's network stack, and
//! eventfd as a host eventfd.
//!
//! Each guest socket or eventfd is one host descriptor ([`HostObj`]),
//! always non-blocking on the host: a guest descriptor without O_NONBLOCK
//! that would block returns [`Outcome::Block`] instead, so only its thread
//! waits and the scheduler polls the host descriptor (`accept`, `connect`,
//! `recv*`, `send*`, `read`/`write`). `SO_RCVTIMEO`/`SO_SNDTIMEO` are kept
//! here and bound that wait (`Thread::timeout_at`), then EAGAIN, as Linux.
//! Socket readiness is the host's, so under `--deterministic` a program that
//! talks to itself over sockets still sees host timing in how data arrives.
//!
//! Alpha's numbers are not x86's and are translated both ways, each from
//! the installed Alpha headers: `SOL_SOCKET` 0xffff and the `SO_*` options
//! (/usr/alpha-linux-gnu/include/asm/socket.h), `SOCK_NONBLOCK` 0x40000000
//! (not O_NONBLOCK, which clashes with the socket types on Alpha) and
//! `SOCK_CLOEXEC` = O_CLOEXEC (bits/socket_type.h), errnos
//! ([`super::errno`], asm/errno.h). The `MSG_*` flags, the address families
//! and the layouts of `sockaddr_*`, `struct msghdr` (56 bytes), `struct
//! cmsghdr` (16-byte header), `struct linger` and `struct timeval` are the
//! same as x86-64's (bits/socket.h: LP64, little-endian), so addresses pass
//! through unchanged except AF_UNIX paths, which are resolved against the
//! guest's working directory. `SCM_RIGHTS` passes host-backed descriptors
//! (files, sockets, eventfds) and pipes (the process's in-memory pipes
//! become host pipes first, as at fork); a timerfd or an epoll instance
//! passes between sockets of one process ([`Passed`]; to another process
//! it is EOPNOTSUPP). A blocking `MSG_WAITALL` receive on a
//! stream socket waits for all its bytes (or end of stream, an error,
//! `SO_RCVTIMEO`, or a signal, which make it return what it has); while it
//! waits, a `read` of the socket does not see the bytes it has taken. A
//! stream send or receive goes to the host 1 MiB at a time: a blocking
//! send sends everything, and a receive returns at most 1 MiB (a short
//! count, which Linux allows) unless it is a `MSG_WAITALL` one.

use std::cell::RefCell;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::rc::Rc;

use super::errno::*;
use super::fs::{self, Fd, Object};
use super::signal::{self, Info};
use super::syscall::Outcome;
use super::{Process, Wait};

// Alpha's socket option level and options (asm/socket.h).
pub const SOL_SOCKET: u64 = 0xffff;
pub const SO_DEBUG: u64 = 0x0001;
pub const SO_REUSEADDR: u64 = 0x0004;
pub const SO_KEEPALIVE: u64 = 0x0008;
pub const SO_DONTROUTE: u64 = 0x0010;
pub const SO_BROADCAST: u64 = 0x0020;
pub const SO_LINGER: u64 = 0x0080;
pub const SO_OOBINLINE: u64 = 0x0100;
pub const SO_REUSEPORT: u64 = 0x0200;
pub const SO_TYPE: u64 = 0x1008;
pub const SO_ERROR: u64 = 0x1007;
pub const SO_SNDBUF: u64 = 0x1001;
pub const SO_RCVBUF: u64 = 0x1002;
pub const SO_SNDBUFFORCE: u64 = 0x100a;
pub const SO_RCVBUFFORCE: u64 = 0x100b;
pub const SO_RCVLOWAT: u64 = 0x1010;
pub const SO_SNDLOWAT: u64 = 0x1011;
pub const SO_RCVTIMEO: u64 = 0x1012;
pub const SO_SNDTIMEO: u64 = 0x1013;
pub const SO_ACCEPTCONN: u64 = 0x1014;
pub const SO_PROTOCOL: u64 = 0x1028;
pub const SO_DOMAIN: u64 = 0x1029;
pub const SO_PRIORITY: u64 = 12;
pub const SO_PASSCRED: u64 = 17;
pub const SO_PEERCRED: u64 = 18;

/// Alpha's `SOCK_NONBLOCK` and `SOCK_CLOEXEC` (bits/socket_type.h).
pub const SOCK_NONBLOCK: u64 = 0x4000_0000;
pub const SOCK_CLOEXEC: u64 = 0o10000000;
const SOCK_TYPE_MASK: u64 = 0xf;

/// Address families (bits/socket.h; the same numbers as the host's).
pub const AF_UNIX: u64 = 1;
pub const AF_INET: u64 = 2;
pub const AF_INET6: u64 = 10;

// MSG_* flags (bits/socket.h; the same values as the host's).
const MSG_DONTWAIT: u64 = 0x40;
const MSG_NOSIGNAL: u64 = 0x4000;
const MSG_WAITALL: u64 = 0x100;
const MSG_CMSG_CLOEXEC: u64 = 0x4000_0000;
/// Flags passed to the host as they are.
const MSG_PASS: u64 = 0x01 | 0x02 | 0x04 | 0x08 | 0x20 | 0x80 | 0x800 | 0x2000 | 0x8000;

/// `SCM_RIGHTS` (bits/socket.h).
const SCM_RIGHTS: u32 = 1;

/// eventfd flags (bits/eventfd.h): EFD_SEMAPHORE, EFD_NONBLOCK =
/// O_NONBLOCK, EFD_CLOEXEC = O_CLOEXEC.
pub const EFD_SEMAPHORE: u64 = 1;

/// Most bytes one send or recv moves (a larger stream call is short).
const IO_CAP: usize = 1 << 20;

/// What a host-backed descriptor is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostKind {
    Socket {
        domain: i32,
        ty: i32,
    },
    EventFd,
    /// A descriptor received through `SCM_RIGHTS` that is neither.
    Other,
}

/// A guest socket or eventfd: a non-blocking host descriptor.
#[derive(Debug)]
pub struct HostObj {
    pub fd: OwnedFd,
    pub kind: HostKind,
    /// `SO_RCVTIMEO`/`SO_SNDTIMEO` in ns (0: none).
    pub rcvtimeo: u64,
    pub sndtimeo: u64,
    /// A blocking `connect` is waiting for the host's connection.
    pub connecting: bool,
    /// A blocking stream send waiting for room: (thread id, bytes sent).
    pub sent: Option<(u32, usize)>,
    /// Bytes a blocking `MSG_WAITALL` receive has taken from the host so
    /// far (the next receive on the socket starts with them).
    pub held: Option<Received>,
}

impl HostObj {
    pub fn new(fd: OwnedFd, kind: HostKind) -> HostObj {
        HostObj {
            fd,
            kind,
            rcvtimeo: 0,
            sndtimeo: 0,
            connecting: false,
            sent: None,
            held: None,
        }
    }

    pub fn raw(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    fn is_socket(&self) -> bool {
        matches!(self.kind, HostKind::Socket { .. })
    }
}

/// The last host errno, as an Alpha errno.
fn last_errno() -> u64 {
    from_host_errno(std::io::Error::last_os_error().raw_os_error().unwrap_or(5))
}

fn host_result(r: isize) -> Result<u64, u64> {
    if r < 0 {
        Err(last_errno())
    } else {
        Ok(r as u64)
    }
}

use super::uaccess::{put, read_bytes as read_mem, read_u32, read_u64};

/// Install a new host object as a guest descriptor.
fn install(p: &mut Process, obj: HostObj, nonblock: bool, cloexec: bool) -> Result<u64, u64> {
    let fd = Fd {
        obj: std::rc::Rc::new(std::cell::RefCell::new(Object::Host(obj))),
        cloexec,
        flags: fs::O_RDWR | if nonblock { fs::O_NONBLOCK } else { 0 },
    };
    p.fds.install(fd, 0)
}

/// Guest fd `fd`'s socket: (host descriptor, guest non-blocking), or
/// EBADF / ENOTSOCK.
fn sock(p: &Process, fd: u64) -> Result<(RawFd, bool), u64> {
    let f = p.fds.get(fd)?;
    let nonblock = f.flags & fs::O_NONBLOCK != 0;
    match &*f.obj.borrow() {
        Object::Host(h) if h.is_socket() => Ok((h.raw(), nonblock)),
        _ => Err(ENOTSOCK),
    }
}

fn with_sock<T>(p: &Process, fd: u64, f: impl FnOnce(&mut HostObj) -> T) -> Result<T, u64> {
    let obj = p.fds.get(fd)?.obj.clone();
    let mut o = obj.borrow_mut();
    match &mut *o {
        Object::Host(h) if h.is_socket() => Ok(f(h)),
        _ => Err(ENOTSOCK),
    }
}

/// A guest `struct sockaddr` of `len` bytes as host bytes: AF_UNIX paths
/// are resolved against the guest's cwd.
fn sockaddr_in(p: &Process, addr: u64, len: u64) -> Result<Vec<u8>, u64> {
    if len > 128 || (len as i64) < 0 {
        return Err(EINVAL);
    }
    let mut b = read_mem(p, addr, len as usize)?;
    if b.len() > 2 && u16::from_le_bytes([b[0], b[1]]) as u64 == AF_UNIX && b[2] != 0 {
        let path: Vec<u8> = b[2..].iter().copied().take_while(|&c| c != 0).collect();
        if path.first() != Some(&b'/') {
            use std::os::unix::ffi::OsStrExt;
            let host = p.cwd.join(std::ffi::OsStr::from_bytes(&path));
            let hb = host.as_os_str().as_bytes();
            if hb.len() < 108 {
                b.truncate(2);
                b.extend_from_slice(hb);
                b.push(0);
            }
        }
    }
    Ok(b)
}

/// Write a host address (`len` bytes valid in `sa`) to the guest's
/// (`addr`, `*lenp`): truncated to the guest's buffer, the full length
/// stored in `*lenp`, as the kernel's `move_addr_to_user`.
fn sockaddr_out(p: &mut Process, sa: &[u8], addr: u64, lenp: u64) -> Result<(), u64> {
    if addr == 0 || lenp == 0 {
        return Ok(());
    }
    let glen = read_u32(p, lenp)? as i32;
    if glen < 0 {
        return Err(EINVAL);
    }
    let n = sa.len().min(glen as usize);
    put(p, addr, &sa[..n])?;
    put(p, lenp, &(sa.len() as u32).to_le_bytes())
}

/// Whether a signal has ended the wait of the calling thread's system
/// call after part of its work was done ([`super::Progress`]).
fn interrupted(p: &Process) -> bool {
    p.threads[p.cur].progress.is_some_and(|g| g.interrupted)
}

/// Record that the calling thread's system call, about to wait, has done
/// part of its work, so a signal ends it with that part.
fn mark_partial(p: &mut Process) {
    p.threads[p.cur].progress.get_or_insert_default().partial = true;
}

/// Block the calling thread until `fd` is readable (or writable), bounded
/// by `timeo` ns (0: no bound) counted from the first attempt; at the
/// bound, EAGAIN (the kernel's answer to an expired SO_RCVTIMEO).
fn wait_for(p: &mut Process, fd: u64, readable: bool, timeo: u64) -> Outcome {
    let t = p.cur;
    let now = p.clock_ns();
    let at = p.threads[t]
        .timeout_at
        .or((timeo > 0).then(|| now.saturating_add(timeo)));
    if at.is_some_and(|d| now >= d) {
        p.threads[t].timeout_at = None;
        return Outcome::Return(Err(EAGAIN));
    }
    p.threads[t].timeout_at = at;
    let mut w = vec![if readable {
        Wait::Readable(fd)
    } else {
        Wait::Writable(fd)
    }];
    w.extend(at.map(Wait::Deadline));
    Outcome::Block(w)
}

/// Perform socket/eventfd system call `nr`, if it is one.
pub fn dispatch(p: &mut Process, nr: u64, a: [u64; 6]) -> Option<Outcome> {
    use Outcome::Return as R;
    let out = match nr {
        // write/writev on a socket send everything when blocking.
        4 if is_socket(p, a[0]) => write_socket(p, a[0], &[(a[1], a[2])]),
        121 if is_socket(p, a[0]) => {
            let mut iov = Vec::new();
            if a[2] > UIO_MAXIOV {
                return Some(R(Err(EINVAL)));
            }
            for i in 0..a[2] {
                match (
                    read_u64(p, a[1].wrapping_add(16 * i)),
                    read_u64(p, a[1].wrapping_add(16 * i + 8)),
                ) {
                    (Ok(b), Ok(l)) => iov.push((b, l)),
                    _ => return Some(R(Err(EFAULT))),
                }
            }
            write_socket(p, a[0], &iov)
        }
        97 => R(socket(p, a[0], a[1], a[2])),
        135 => R(socketpair(p, a[0], a[1], a[2], a[3])),
        104 => R(bind(p, a[0], a[1], a[2])),
        106 => R(listen(p, a[0], a[1])),
        99 => accept(p, a[0], a[1], a[2], 0),
        502 => accept(p, a[0], a[1], a[2], a[3]),
        98 => connect(p, a[0], a[1], a[2]),
        101 => sendto(p, a[0], a[1], a[2], a[3], 0, 0),
        133 => sendto(p, a[0], a[1], a[2], a[3], a[4], a[5]),
        102 => recvfrom(p, a[0], a[1], a[2], a[3], 0, 0),
        125 => recvfrom(p, a[0], a[1], a[2], a[3], a[4], a[5]),
        114 => sendmsg(p, a[0], a[1], a[2]),
        113 => recvmsg(p, a[0], a[1], a[2]),
        503 => mmsg(p, a[0], a[1], a[2], a[3], 0, true),
        479 => mmsg(p, a[0], a[1], a[2], a[3], a[4], false),
        105 => R(setsockopt(p, a[0], a[1], a[2], a[3], a[4])),
        118 => R(getsockopt(p, a[0], a[1], a[2], a[3], a[4])),
        134 => R(shutdown(p, a[0], a[1])),
        150 => R(sockname(p, a[0], a[1], a[2], false)),
        141 => R(sockname(p, a[0], a[1], a[2], true)),
        478 => R(eventfd(p, a[0], 0)),
        485 => R(eventfd(p, a[0], a[1])),
        _ => return None,
    };
    if !matches!(out, Outcome::Block(_)) {
        p.threads[p.cur].timeout_at = None;
    }
    Some(out)
}

/// The host's SOCK_NONBLOCK|SOCK_CLOEXEC: every host descriptor has both.
const HOST_SOCK_FLAGS: i32 = libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC;

fn split_type(ty: u64) -> Result<(i32, bool, bool), u64> {
    if ty & !(SOCK_TYPE_MASK | SOCK_NONBLOCK | SOCK_CLOEXEC) != 0 {
        return Err(EINVAL);
    }
    Ok((
        (ty & SOCK_TYPE_MASK) as i32,
        ty & SOCK_NONBLOCK != 0,
        ty & SOCK_CLOEXEC != 0,
    ))
}

fn check_domain(domain: u64) -> Result<i32, u64> {
    match domain {
        AF_UNIX | AF_INET | AF_INET6 => Ok(domain as i32),
        _ => Err(EAFNOSUPPORT),
    }
}

fn socket(p: &mut Process, domain: u64, ty: u64, proto: u64) -> Result<u64, u64> {
    let (t, nonblock, cloexec) = split_type(ty)?;
    let d = check_domain(domain)?;
    // SAFETY: socket has no memory preconditions.
    let raw = unsafe { libc::socket(d, t | HOST_SOCK_FLAGS, proto as i32) };
    if raw < 0 {
        return Err(last_errno());
    }
    // SAFETY: `raw` is a descriptor we just created and own.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    let obj = HostObj::new(fd, HostKind::Socket { domain: d, ty: t });
    install(p, obj, nonblock, cloexec)
}

fn socketpair(p: &mut Process, domain: u64, ty: u64, proto: u64, sv: u64) -> Result<u64, u64> {
    let (t, nonblock, cloexec) = split_type(ty)?;
    let d = check_domain(domain)?;
    let mut raw = [0i32; 2];
    // SAFETY: `raw` has room for the two descriptors socketpair writes.
    let r = unsafe { libc::socketpair(d, t | HOST_SOCK_FLAGS, proto as i32, raw.as_mut_ptr()) };
    if r < 0 {
        return Err(last_errno());
    }
    // SAFETY: both descriptors were just created and are ours.
    let (f0, f1) = unsafe { (OwnedFd::from_raw_fd(raw[0]), OwnedFd::from_raw_fd(raw[1])) };
    let kind = HostKind::Socket { domain: d, ty: t };
    let g0 = install(p, HostObj::new(f0, kind), nonblock, cloexec)?;
    let g1 = match install(p, HostObj::new(f1, kind), nonblock, cloexec) {
        Ok(g) => g,
        Err(e) => {
            let _ = p.fds.close(g0);
            return Err(e);
        }
    };
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&(g0 as u32).to_le_bytes());
    b[4..].copy_from_slice(&(g1 as u32).to_le_bytes());
    if let Err(e) = put(p, sv, &b) {
        let _ = p.fds.close(g0);
        let _ = p.fds.close(g1);
        return Err(e);
    }
    Ok(0)
}

fn bind(p: &mut Process, fd: u64, addr: u64, len: u64) -> Result<u64, u64> {
    let (raw, _) = sock(p, fd)?;
    let sa = sockaddr_in(p, addr, len)?;
    // SAFETY: `sa` holds `sa.len()` readable bytes.
    let r = unsafe { libc::bind(raw, sa.as_ptr().cast(), sa.len() as u32) };
    host_result(r as isize)
}

fn listen(p: &mut Process, fd: u64, backlog: u64) -> Result<u64, u64> {
    let (raw, _) = sock(p, fd)?;
    // SAFETY: listen has no memory preconditions.
    host_result(unsafe { libc::listen(raw, backlog as i32) } as isize)
}

fn accept(p: &mut Process, fd: u64, addr: u64, lenp: u64, flags: u64) -> Outcome {
    let r = (|| {
        if flags & !(SOCK_NONBLOCK | SOCK_CLOEXEC) != 0 {
            return Err(EINVAL);
        }
        let (raw, nonblock) = sock(p, fd)?;
        if addr != 0 && lenp != 0 && (read_u32(p, lenp)? as i32) < 0 {
            return Err(EINVAL);
        }
        let mut sa = [0u8; 128];
        let mut len: libc::socklen_t = 128;
        // SAFETY: `sa` has `len` writable bytes.
        let n = unsafe { libc::accept4(raw, sa.as_mut_ptr().cast(), &mut len, HOST_SOCK_FLAGS) };
        if n < 0 {
            let e = last_errno();
            return Err(if e == EAGAIN && !nonblock {
                WOULD_BLOCK
            } else {
                e
            });
        }
        // SAFETY: accept4 returned a new descriptor that we own.
        let nfd = unsafe { OwnedFd::from_raw_fd(n) };
        let kind = with_sock(p, fd, |h| h.kind)?;
        let g = install(
            p,
            HostObj::new(nfd, kind),
            flags & SOCK_NONBLOCK != 0,
            flags & SOCK_CLOEXEC != 0,
        )?;
        if let Err(e) = sockaddr_out(p, &sa[..(len as usize).min(128)], addr, lenp) {
            let _ = p.fds.close(g);
            return Err(e);
        }
        Ok(g)
    })();
    match r {
        Err(WOULD_BLOCK) => {
            let timeo = with_sock(p, fd, |h| h.rcvtimeo).unwrap_or(0);
            wait_for(p, fd, true, timeo)
        }
        r => Outcome::Return(r),
    }
}

/// Internal: the call would block a blocking descriptor.
const WOULD_BLOCK: u64 = 1 << 41;

fn connect(p: &mut Process, fd: u64, addr: u64, len: u64) -> Outcome {
    let (raw, nonblock) = match sock(p, fd) {
        Ok(s) => s,
        Err(e) => return Outcome::Return(Err(e)),
    };
    let pending = with_sock(p, fd, |h| h.connecting).unwrap_or(false);
    if pending {
        // Re-executed after blocking: the host's result is SO_ERROR.
        let mut f = libc::pollfd {
            fd: raw,
            events: libc::POLLOUT,
            revents: 0,
        };
        // SAFETY: one valid pollfd, timeout 0.
        if unsafe { libc::poll(&mut f, 1, 0) } == 0 {
            let timeo = with_sock(p, fd, |h| h.sndtimeo).unwrap_or(0);
            return wait_for(p, fd, false, timeo);
        }
        let _ = with_sock(p, fd, |h| h.connecting = false);
        return Outcome::Return(so_error(raw).and_then(|e| if e == 0 { Ok(0) } else { Err(e) }));
    }
    let sa = match sockaddr_in(p, addr, len) {
        Ok(sa) => sa,
        Err(e) => return Outcome::Return(Err(e)),
    };
    // SAFETY: `sa` holds `sa.len()` readable bytes.
    let r = unsafe { libc::connect(raw, sa.as_ptr().cast(), sa.len() as u32) };
    if r == 0 {
        return Outcome::Return(Ok(0));
    }
    let e = last_errno();
    if (e == EINPROGRESS || e == EAGAIN) && !nonblock {
        let _ = with_sock(p, fd, |h| h.connecting = true);
        let timeo = with_sock(p, fd, |h| h.sndtimeo).unwrap_or(0);
        return wait_for(p, fd, false, timeo);
    }
    Outcome::Return(Err(e))
}

/// The host socket's pending error (SO_ERROR), as an Alpha errno (0: none).
fn so_error(raw: RawFd) -> Result<u64, u64> {
    let mut v: i32 = 0;
    let mut l: libc::socklen_t = 4;
    // SAFETY: `v` has `l` writable bytes.
    let r = unsafe {
        libc::getsockopt(
            raw,
            libc::SOL_SOCKET,
            libc::SO_ERROR,
            (&mut v as *mut i32).cast(),
            &mut l,
        )
    };
    host_result(r as isize)?;
    Ok(if v == 0 { 0 } else { from_host_errno(v) })
}

/// EPIPE from a send: SIGPIPE to the sending thread unless MSG_NOSIGNAL.
fn epipe(p: &mut Process, flags: u64) {
    if flags & MSG_NOSIGNAL != 0 {
        return;
    }
    let info = Info {
        signo: signal::SIGPIPE,
        code: signal::SI_USER,
        pid: p.id.pid,
        uid: p.id.uid,
        target: p.threads[p.cur].tid,
        ..Default::default()
    };
    p.send(info);
}

/// One host `sendmsg` of `data` (to `name`, with host control bytes).
fn host_send(raw: RawFd, data: &[u8], name: &[u8], control: &[u8], flags: u64) -> Result<u64, u64> {
    let mut iov = libc::iovec {
        iov_base: data.as_ptr() as *mut libc::c_void,
        iov_len: data.len(),
    };
    // SAFETY: an all-zero msghdr is valid (no name, no iovecs, no control).
    let mut m: libc::msghdr = unsafe { std::mem::zeroed() };
    m.msg_iov = &mut iov;
    m.msg_iovlen = 1;
    if !name.is_empty() {
        m.msg_name = name.as_ptr() as *mut libc::c_void;
        m.msg_namelen = name.len() as u32;
    }
    if !control.is_empty() {
        m.msg_control = control.as_ptr() as *mut libc::c_void;
        m.msg_controllen = control.len();
    }
    let hf = (flags & MSG_PASS) as i32 | libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT;
    // SAFETY: every pointer in `m` refers to live buffers of the given sizes.
    host_result(unsafe { libc::sendmsg(raw, &m, hf) })
}

/// Up to [`IO_CAP`] bytes of the guest buffers `iov` from `skip` bytes in,
/// and the buffers' whole length.
fn gather(p: &Process, iov: &[(u64, u64)], skip: usize) -> Result<(Vec<u8>, usize), u64> {
    let total = iov
        .iter()
        .fold(0usize, |t, &(_, l)| t.saturating_add(l as usize));
    let mut data = Vec::new();
    let mut skip = skip;
    for &(base, len) in iov {
        let len = len as usize;
        if skip >= len {
            skip -= len;
            continue;
        }
        let take = (len - skip).min(IO_CAP - data.len());
        if take == 0 {
            break;
        }
        data.extend(read_mem(p, base.wrapping_add(skip as u64), take)?);
        skip = 0;
    }
    Ok((data, total))
}

/// Send the guest buffers `iov` on guest socket `fd`, blocking or failing
/// as the guest's descriptor and `flags` say. A stream send moves the
/// buffers [`IO_CAP`] bytes at a time, and a blocking one sends all of
/// them, as Linux's does: a short host send is kept as the thread's
/// progress ([`HostObj::sent`]) while it waits for room, and the
/// re-executed call goes on from there (SO_SNDTIMEO, a signal, or an error
/// after some bytes returns the count so far). A datagram of more than
/// `IO_CAP` bytes is EMSGSIZE, as it is on Linux at any buffer size.
fn send_common(
    p: &mut Process,
    fd: u64,
    iov: &[(u64, u64)],
    name: &[u8],
    control: &[u8],
    flags: u64,
) -> Outcome {
    use Outcome::Return as R;
    let (raw, nonblock) = match sock(p, fd) {
        Ok(s) => s,
        Err(e) => return R(Err(e)),
    };
    let tid = p.threads[p.cur].tid;
    let (mut prev, stream, timeo) = with_sock(p, fd, |h| {
        let prev = match h.sent {
            Some((t, n)) if t == tid => n,
            _ => 0,
        };
        let stream = matches!(h.kind, HostKind::Socket { ty, .. } if ty == libc::SOCK_STREAM);
        (prev, stream, h.sndtimeo)
    })
    .unwrap_or((0, false, 0));
    let blocking = !nonblock && flags & MSG_DONTWAIT == 0;
    let keep = |p: &mut Process, v: Option<(u32, usize)>| {
        let _ = with_sock(p, fd, |h| h.sent = v);
    };
    if prev > 0 && interrupted(p) {
        // A signal ended the wait of a send part-way through: its count.
        keep(p, None);
        return R(Ok(prev as u64));
    }
    let wait = |p: &mut Process, done: usize| {
        keep(p, Some((tid, done)));
        if done > 0 {
            mark_partial(p);
        }
        match wait_for(p, fd, false, timeo) {
            R(Err(EAGAIN)) if done > 0 => {
                keep(p, None);
                R(Ok(done as u64))
            }
            R(r) => {
                keep(p, None);
                R(r)
            }
            o => o,
        }
    };
    let mut control = if prev == 0 { control } else { &[] };
    loop {
        let (data, total) = match gather(p, iov, prev) {
            Ok((_, total)) if !stream && total > IO_CAP => {
                keep(p, None);
                return R(Err(EMSGSIZE));
            }
            Ok(w) => w,
            Err(e) => {
                keep(p, None);
                return R(if prev > 0 { Ok(prev as u64) } else { Err(e) });
            }
        };
        let r = host_send(raw, &data, name, control, flags);
        control = &[];
        match r {
            Ok(n) => {
                let done = prev + n as usize;
                if stream && done < total {
                    if n as usize == data.len() {
                        // This window went whole: on to the next.
                        prev = done;
                        continue;
                    }
                    if blocking {
                        return wait(p, done);
                    }
                }
                keep(p, None);
                return R(Ok(done as u64));
            }
            Err(EAGAIN) if blocking => return wait(p, prev),
            Err(_) if prev > 0 => {
                keep(p, None);
                return R(Ok(prev as u64));
            }
            Err(EPIPE) => {
                keep(p, None);
                epipe(p, flags);
                return R(Err(EPIPE));
            }
            Err(e) => {
                keep(p, None);
                return R(Err(e));
            }
        }
    }
}

/// `write`/`writev` on a socket: a send with no flags (SIGPIPE included).
fn write_socket(p: &mut Process, fd: u64, iov: &[(u64, u64)]) -> Outcome {
    if iov.iter().any(|&(_, len)| (len as i64) < 0) {
        return Outcome::Return(Err(EINVAL));
    }
    send_common(p, fd, iov, &[], &[], 0)
}

/// Whether guest fd `fd` is a socket.
fn is_socket(p: &Process, fd: u64) -> bool {
    sock(p, fd).is_ok()
}

fn sendto(
    p: &mut Process,
    fd: u64,
    buf: u64,
    len: u64,
    flags: u64,
    to: u64,
    tolen: u64,
) -> Outcome {
    let r = (|| {
        sock(p, fd)?;
        if (len as i64) < 0 {
            return Err(EINVAL);
        }
        if to != 0 {
            sockaddr_in(p, to, tolen)
        } else {
            Ok(Vec::new())
        }
    })();
    match r {
        Ok(name) => send_common(p, fd, &[(buf, len)], &name, &[], flags),
        Err(e) => Outcome::Return(Err(e)),
    }
}

/// A host `recvmsg` into one buffer of `len` bytes with room for `clen`
/// control bytes: (count, data, name, control, msg_flags).
#[derive(Debug)]
pub struct Received {
    n: usize,
    data: Vec<u8>,
    name: Vec<u8>,
    control: Vec<u8>,
    flags: i32,
}

fn host_recv(raw: RawFd, len: usize, clen: usize, flags: u64) -> Result<Received, u64> {
    let mut data = vec![0u8; len.min(IO_CAP)];
    let mut name = vec![0u8; 128];
    let mut control = vec![0u8; clen.min(4096)];
    let mut iov = libc::iovec {
        iov_base: data.as_mut_ptr().cast(),
        iov_len: data.len(),
    };
    // SAFETY: an all-zero msghdr is valid.
    let mut m: libc::msghdr = unsafe { std::mem::zeroed() };
    m.msg_iov = &mut iov;
    m.msg_iovlen = 1;
    m.msg_name = name.as_mut_ptr().cast();
    m.msg_namelen = 128;
    if !control.is_empty() {
        m.msg_control = control.as_mut_ptr().cast();
        m.msg_controllen = control.len();
    }
    let hf = (flags & MSG_PASS) as i32 | libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC;
    // SAFETY: every pointer in `m` refers to live, writable buffers.
    let n = host_result(unsafe { libc::recvmsg(raw, &mut m, hf) })? as usize;
    name.truncate((m.msg_namelen as usize).min(128));
    control.truncate(m.msg_controllen);
    Ok(Received {
        n,
        data,
        name,
        control,
        flags: m.msg_flags,
    })
}

/// Receive on guest socket `fd`, blocking as its descriptor and `flags` say.
/// A blocking `MSG_WAITALL` receive on a stream socket goes on until it
/// has `len` bytes, the peer has shut down, an error comes, or
/// `SO_RCVTIMEO` runs out or a signal comes (then it returns what it has,
/// as Linux does); while it waits, what it has is kept in
/// [`HostObj::held`].
fn recv_common(
    p: &mut Process,
    fd: u64,
    len: usize,
    clen: usize,
    flags: u64,
) -> Result<Received, Outcome> {
    let (raw, nonblock) = sock(p, fd).map_err(|e| Outcome::Return(Err(e)))?;
    let blocking = !nonblock && flags & MSG_DONTWAIT == 0;
    let peek = flags & 0x02 != 0;
    let (stream, timeo, held) = with_sock(p, fd, |h| {
        let stream = matches!(h.kind, HostKind::Socket { ty, .. } if ty == libc::SOCK_STREAM);
        (stream, h.rcvtimeo, h.held.take())
    })
    .map_err(|e| Outcome::Return(Err(e)))?;
    let waitall = flags & MSG_WAITALL != 0 && blocking && stream && !peek;
    let mut acc = held;
    if peek {
        if let Some(a) = acc.take() {
            let copy = Received {
                n: a.n.min(len),
                data: a.data[..a.n.min(len)].to_vec(),
                name: a.name.clone(),
                control: Vec::new(),
                flags: 0,
            };
            let _ = with_sock(p, fd, |h| h.held = Some(a));
            return Ok(copy);
        }
    }
    let interrupted = interrupted(p);
    loop {
        let have = acc.as_ref().map_or(0, |r| r.n);
        if acc.is_some() && (have >= len || !waitall || interrupted) {
            break;
        }
        let ctl = if have == 0 { clen } else { 0 };
        match host_recv(raw, len - have, ctl, flags & !MSG_WAITALL) {
            Ok(r) if have == 0 && (r.n == 0 || !waitall) => return Ok(r),
            Ok(r) if r.n == 0 => break,
            Ok(mut r) => match acc.as_mut() {
                None => {
                    r.data.truncate(r.n);
                    acc = Some(r);
                }
                Some(a) => {
                    a.data.extend_from_slice(&r.data[..r.n.min(r.data.len())]);
                    a.n = a.data.len();
                }
            },
            Err(EAGAIN) if blocking => {
                if have == 0 {
                    return Err(wait_for(p, fd, true, timeo));
                }
                let _ = with_sock(p, fd, |h| h.held = acc.take());
                mark_partial(p);
                match wait_for(p, fd, true, timeo) {
                    // SO_RCVTIMEO ran out: what has come is the result.
                    Outcome::Return(Err(EAGAIN)) => {
                        acc = with_sock(p, fd, |h| h.held.take()).ok().flatten();
                        break;
                    }
                    o => return Err(o),
                }
            }
            Err(_) if have > 0 => break,
            Err(e) => return Err(Outcome::Return(Err(e))),
        }
    }
    let mut a = acc.ok_or(Outcome::Return(Err(EAGAIN)))?;
    if a.n > len {
        // Held bytes of a receive whose thread never came back for them
        // (another thread's execve ended it), more than this call asks
        // for: the rest stays for the next receive.
        let rest = a.data.split_off(len);
        a.n = len;
        let _ = with_sock(p, fd, |h| {
            h.held = Some(Received {
                n: rest.len(),
                data: rest,
                name: Vec::new(),
                control: Vec::new(),
                flags: 0,
            })
        });
    }
    Ok(a)
}

fn recvfrom(
    p: &mut Process,
    fd: u64,
    buf: u64,
    len: u64,
    flags: u64,
    from: u64,
    fromlen: u64,
) -> Outcome {
    if let Err(e) = sock(p, fd) {
        return Outcome::Return(Err(e));
    }
    if (len as i64) < 0 {
        return Outcome::Return(Err(EINVAL));
    }
    let cap = (len as usize).min(IO_CAP);
    if !p
        .machine
        .mem
        .range_ok(buf, cap as u64, crate::memory::Perm::W)
    {
        return Outcome::Return(Err(EFAULT));
    }
    // One host receive moves at most IO_CAP bytes; a MSG_WAITALL receive
    // gathers up to `len`.
    let r = match recv_common(p, fd, len as usize, 0, flags) {
        Ok(r) => r,
        Err(o) => return o,
    };
    let res = (|| {
        put(p, buf, &r.data[..r.n.min(r.data.len())])?;
        sockaddr_out(p, &r.name, from, fromlen)?;
        Ok(r.n as u64)
    })();
    Outcome::Return(res)
}

/// A guest `struct msghdr` (bits/socket.h: 56 bytes on Alpha).
struct MsgHdr {
    name: u64,
    namelen: u32,
    iov: Vec<(u64, u64)>,
    control: u64,
    controllen: u64,
}

/// `UIO_MAXIOV`.
const UIO_MAXIOV: u64 = 1024;

fn read_msghdr(p: &Process, msg: u64) -> Result<MsgHdr, u64> {
    let b = read_mem(p, msg, 56)?;
    let q = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap_or([0; 8]));
    let iovlen = q(24);
    if iovlen > UIO_MAXIOV {
        return Err(EMSGSIZE);
    }
    let mut iov = Vec::new();
    for i in 0..iovlen {
        let base = read_u64(p, q(16).wrapping_add(16 * i))?;
        let len = read_u64(p, q(16).wrapping_add(16 * i + 8))?;
        if (len as i64) < 0 {
            return Err(EINVAL);
        }
        iov.push((base, len));
    }
    Ok(MsgHdr {
        name: q(0),
        namelen: u32::from_le_bytes(b[8..12].try_into().unwrap_or([0; 4])),
        iov,
        control: q(32),
        controllen: q(40),
    })
}

const CMSG_HDR: usize = 16;

fn cmsg_align(n: usize) -> usize {
    (n + 7) & !7
}

/// Guest control messages as host ones: SCM_RIGHTS fds become the host
/// descriptors behind them (level SOL_SOCKET translated).
/// Whether guest control messages `c` pass an in-memory pipe end.
fn names_a_pipe(p: &Process, c: &[u8]) -> bool {
    let mut off = 0;
    while off + CMSG_HDR <= c.len() {
        let len = u64::from_le_bytes(c[off..off + 8].try_into().unwrap_or([0; 8])) as usize;
        if len < CMSG_HDR || off + len > c.len() {
            return false;
        }
        for k in (off + CMSG_HDR..off + len - 3).step_by(4) {
            let g = u32::from_le_bytes(c[k..k + 4].try_into().unwrap_or([0; 4]));
            if let Ok(f) = p.fds.get(g as u64) {
                if matches!(&*f.obj.borrow(), Object::PipeRead(_) | Object::PipeWrite(_)) {
                    return true;
                }
            }
        }
        off += cmsg_align(len);
    }
    false
}

/// A guest-only object (a timerfd or an epoll instance: state subword keeps,
/// not the host) on its way through `SCM_RIGHTS` between two sockets of
/// this process: the host message carries a placeholder, a memfd whose
/// device and inode name the object, and the receiving end installs the
/// object itself, so both descriptors are one open file as on Linux.
#[derive(Debug)]
pub struct Passed {
    key: (u64, u64),
    obj: Rc<RefCell<Object>>,
    placeholder: OwnedFd,
}

/// `(st_dev, st_ino)` of host descriptor `fd`.
fn file_key(fd: RawFd) -> Option<(u64, u64)> {
    // SAFETY: an all-zero stat is valid output space for fstat.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is writable.
    (unsafe { libc::fstat(fd, &mut st) } == 0).then_some((st.st_dev, st.st_ino))
}

/// The host placeholder standing for guest-only object `obj` in a message
/// sent on host socket `via`. Only a peer in this process can take the
/// object back out (another process has its own objects), so the send is
/// EOPNOTSUPP when the peer may be elsewhere: its socket was made by
/// another process (`SO_PEERCRED`), or this process forked or was forked
/// (a child may hold either end).
fn placeholder(p: &mut Process, via: RawFd, obj: &Rc<RefCell<Object>>) -> Result<RawFd, u64> {
    if p.procs.tree {
        return Err(EOPNOTSUPP);
    }
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` has `len` writable bytes.
    let r = unsafe {
        libc::getsockopt(
            via,
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    // SAFETY: no preconditions.
    if r != 0 || cred.pid != unsafe { libc::getpid() } {
        return Err(EOPNOTSUPP);
    }
    if let Some(pass) = p.passed.iter().find(|x| Rc::ptr_eq(&x.obj, obj)) {
        return Ok(pass.placeholder.as_raw_fd());
    }
    // SAFETY: a NUL-terminated name; the new descriptor is owned at once.
    let raw = unsafe { libc::memfd_create(c"subword-scm-rights".as_ptr(), libc::MFD_CLOEXEC) };
    if raw < 0 {
        return Err(ENOMEM);
    }
    // SAFETY: `raw` was just created and is ours.
    let placeholder = unsafe { OwnedFd::from_raw_fd(raw) };
    let key = file_key(raw).ok_or(ENOMEM)?;
    p.passed.push(Rc::new(Passed {
        key,
        obj: obj.clone(),
        placeholder,
    }));
    Ok(raw)
}

fn control_to_host(p: &mut Process, via: RawFd, c: &[u8]) -> Result<Vec<u8>, u64> {
    let mut out = Vec::new();
    let mut off = 0;
    while off + CMSG_HDR <= c.len() {
        let len = u64::from_le_bytes(c[off..off + 8].try_into().unwrap_or([0; 8])) as usize;
        let level = u32::from_le_bytes(c[off + 8..off + 12].try_into().unwrap_or([0; 4]));
        let ty = u32::from_le_bytes(c[off + 12..off + 16].try_into().unwrap_or([0; 4]));
        if len < CMSG_HDR || off + len > c.len() {
            return Err(EINVAL);
        }
        if level as u64 != SOL_SOCKET || ty != SCM_RIGHTS {
            return Err(EINVAL);
        }
        let mut body = Vec::new();
        for k in (off + CMSG_HDR..off + len).step_by(4) {
            if k + 4 > off + len {
                break;
            }
            let g = u32::from_le_bytes(c[k..k + 4].try_into().unwrap_or([0; 4]));
            let obj = p.fds.get(g as u64)?.obj.clone();
            let raw = match &*obj.borrow() {
                Object::Host(h) => Some(h.raw()),
                Object::File { file, .. } => Some(file.as_raw_fd()),
                Object::TimerFd(_) | Object::Epoll(_) => None,
                _ => return Err(EOPNOTSUPP),
            };
            let raw = match raw {
                Some(raw) => raw,
                None => placeholder(p, via, &obj)?,
            };
            body.extend_from_slice(&raw.to_le_bytes());
        }
        let hl = CMSG_HDR + body.len();
        out.extend_from_slice(&(hl as u64).to_le_bytes());
        out.extend_from_slice(&(libc::SOL_SOCKET as u32).to_le_bytes());
        out.extend_from_slice(&SCM_RIGHTS.to_le_bytes());
        out.extend_from_slice(&body);
        out.resize(cmsg_align(out.len()), 0);
        off += cmsg_align(len);
    }
    Ok(out)
}

/// A descriptor received from the host as a guest object.
fn adopt(fd: OwnedFd) -> Object {
    let raw = fd.as_raw_fd();
    // SAFETY: an all-zero stat is valid output space for fstat.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is writable; `raw` is open.
    let ok = unsafe { libc::fstat(raw, &mut st) } == 0;
    let fmt = st.st_mode & libc::S_IFMT;
    if ok && fmt == libc::S_IFREG {
        let file = std::fs::File::from(fd);
        let path = std::fs::read_link(format!("/proc/self/fd/{raw}")).unwrap_or_default();
        return Object::File { file, path };
    }
    let int_opt = |opt: i32| {
        let mut v: i32 = 0;
        let mut l: libc::socklen_t = 4;
        // SAFETY: `v` has `l` writable bytes.
        unsafe {
            libc::getsockopt(
                raw,
                libc::SOL_SOCKET,
                opt,
                (&mut v as *mut i32).cast(),
                &mut l,
            )
        };
        v
    };
    let kind = if ok && fmt == libc::S_IFSOCK {
        HostKind::Socket {
            domain: int_opt(libc::SO_DOMAIN),
            ty: int_opt(libc::SO_TYPE),
        }
    } else {
        HostKind::Other
    };
    // SAFETY: F_GETFL/F_SETFL have no memory preconditions.
    unsafe {
        let fl = libc::fcntl(raw, libc::F_GETFL);
        if fl >= 0 {
            libc::fcntl(raw, libc::F_SETFL, fl | libc::O_NONBLOCK);
        }
    }
    Object::Host(HostObj::new(fd, kind))
}

/// Host control messages as guest ones, installing received descriptors;
/// at most `room` bytes (MSG_CTRUNC beyond).
fn control_to_guest(p: &mut Process, c: &[u8], room: usize, cloexec: bool) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    let mut trunc = false;
    let mut off = 0;
    while off + CMSG_HDR <= c.len() {
        let len = u64::from_le_bytes(c[off..off + 8].try_into().unwrap_or([0; 8])) as usize;
        let level = u32::from_le_bytes(c[off + 8..off + 12].try_into().unwrap_or([0; 4]));
        let ty = u32::from_le_bytes(c[off + 12..off + 16].try_into().unwrap_or([0; 4]));
        if len < CMSG_HDR || off + len > c.len() {
            break;
        }
        let mut body = Vec::new();
        if level == libc::SOL_SOCKET as u32 && ty == SCM_RIGHTS {
            for k in (off + CMSG_HDR..off + len).step_by(4) {
                if k + 4 > off + len {
                    break;
                }
                let raw = i32::from_le_bytes(c[k..k + 4].try_into().unwrap_or([0; 4]));
                // SAFETY: the kernel installed `raw` for us in SCM_RIGHTS.
                let fd = unsafe { OwnedFd::from_raw_fd(raw) };
                if out.len() + CMSG_HDR + body.len() + 4 > room {
                    trunc = true;
                    continue; // dropped: closed, as the kernel's scm_detach_fds
                }
                // A placeholder of ours comes back as the object it
                // stands for (the placeholder itself closes here).
                let key = file_key(fd.as_raw_fd());
                let obj = match p.passed.iter().find(|x| Some(x.key) == key) {
                    Some(pass) => pass.obj.clone(),
                    None => Rc::new(RefCell::new(adopt(fd))),
                };
                let g = p.fds.install(
                    Fd {
                        obj,
                        cloexec,
                        flags: fs::O_RDWR,
                    },
                    0,
                );
                match g {
                    Ok(g) => body.extend_from_slice(&(g as u32).to_le_bytes()),
                    Err(_) => trunc = true,
                }
            }
            if !body.is_empty() {
                out.extend_from_slice(&((CMSG_HDR + body.len()) as u64).to_le_bytes());
                out.extend_from_slice(&(SOL_SOCKET as u32).to_le_bytes());
                out.extend_from_slice(&SCM_RIGHTS.to_le_bytes());
                out.extend_from_slice(&body);
                if cmsg_align(out.len()) <= room {
                    out.resize(cmsg_align(out.len()), 0);
                }
            }
        }
        off += cmsg_align(len);
    }
    (out, trunc)
}

fn sendmsg(p: &mut Process, fd: u64, msg: u64, flags: u64) -> Outcome {
    let r = (|| {
        sock(p, fd)?;
        let m = read_msghdr(p, msg)?;
        let name = if m.name != 0 && m.namelen != 0 {
            sockaddr_in(p, m.name, m.namelen as u64)?
        } else {
            Vec::new()
        };
        let control = if m.control != 0 && m.controllen >= CMSG_HDR as u64 {
            if m.controllen > 4096 {
                return Err(ENOBUFS);
            }
            let c = read_mem(p, m.control, m.controllen as usize)?;
            if names_a_pipe(p, &c) {
                // A pipe travels as a host pipe: every guest pipe becomes
                // one, as at fork.
                super::process::hostify_pipes(p)?;
            }
            let (via, _) = sock(p, fd)?;
            control_to_host(p, via, &c)?
        } else {
            Vec::new()
        };
        Ok((m.iov, name, control))
    })();
    match r {
        Ok((iov, name, control)) => send_common(p, fd, &iov, &name, &control, flags),
        Err(e) => Outcome::Return(Err(e)),
    }
}

/// `MSG_WAITFORONE` (bits/socket.h).
const MSG_WAITFORONE: u64 = 0x10000;

/// `sendmmsg(fd, vec, vlen, flags)` (`send`) or `recvmmsg(fd, vec, vlen,
/// flags, timeout)`: `sendmsg`/`recvmsg` of each 64-byte `struct mmsghdr`
/// (a `struct msghdr`, then `msg_len` at 56) in turn, at most
/// `UIO_MAXIOV` of them, each waiting as that one call would, except that
/// with `MSG_WAITFORONE` the receives after the first do not wait. The
/// call returns how many went through, or the first one's error; an error
/// or a signal after the first ends it with the count (Linux also keeps
/// such an error for the socket's next call, which this does not). As in
/// Linux, recvmmsg's `timeout` is looked at only after a message has come
/// (a receive still waits for the next one however long it takes): once
/// it has run out the call returns, and the time left is written back.
fn mmsg(
    p: &mut Process,
    fd: u64,
    vec: u64,
    vlen: u64,
    flags: u64,
    timeout: u64,
    send: bool,
) -> Outcome {
    use Outcome::Return as R;
    let t = p.cur;
    let first = p.threads[t].progress.is_none();
    let g = p.threads[t].progress.unwrap_or_default();
    let mut done = g.messages;
    let mut deadline = g.deadline;
    if first && !send && timeout != 0 {
        let (sec, nsec) = match (read_u64(p, timeout), read_u64(p, timeout.wrapping_add(8))) {
            (Ok(s), Ok(n)) => (s as i64, n as i64),
            _ => return R(Err(EFAULT)),
        };
        if sec < 0 || !(0..1_000_000_000).contains(&nsec) {
            return R(Err(EINVAL));
        }
        let span = (sec as u64).saturating_mul(1_000_000_000) + nsec as u64;
        deadline = Some(p.clock_ns().saturating_add(span));
    }
    if let Err(e) = sock(p, fd) {
        return R(Err(e));
    }
    while done < vlen.min(UIO_MAXIOV) {
        if done > 0 && interrupted(p) {
            break;
        }
        let m = vec.wrapping_add(64 * done);
        let f = if !send && done > 0 && flags & MSG_WAITFORONE != 0 {
            flags | MSG_DONTWAIT
        } else {
            flags
        } & !MSG_WAITFORONE;
        let o = if send {
            sendmsg(p, fd, m, f)
        } else {
            recvmsg(p, fd, m, f)
        };
        match o {
            R(Ok(n)) => {
                if put(p, m.wrapping_add(56), &(n as u32).to_le_bytes()).is_err() {
                    return R(if done > 0 { Ok(done) } else { Err(EFAULT) });
                }
                done += 1;
                if deadline.is_some_and(|d| p.clock_ns() >= d) {
                    break;
                }
            }
            R(Err(e)) => return R(if done > 0 { Ok(done) } else { Err(e) }),
            Outcome::Block(w) => {
                let g = p.threads[t].progress.get_or_insert_default();
                g.messages = done;
                g.deadline = deadline;
                g.partial |= done > 0;
                return Outcome::Block(w);
            }
            o if done == 0 => return o,
            _ => break,
        }
    }
    if let Some(d) = deadline.filter(|_| done > 0) {
        let left = d.saturating_sub(p.clock_ns());
        let mut ts = [0u8; 16];
        ts[..8].copy_from_slice(&(left / 1_000_000_000).to_le_bytes());
        ts[8..].copy_from_slice(&(left % 1_000_000_000).to_le_bytes());
        if put(p, timeout, &ts).is_err() {
            return R(Err(EFAULT));
        }
    }
    R(Ok(done))
}

fn recvmsg(p: &mut Process, fd: u64, msg: u64, flags: u64) -> Outcome {
    let m = match sock(p, fd).and_then(|_| read_msghdr(p, msg)) {
        Ok(m) => m,
        Err(e) => return Outcome::Return(Err(e)),
    };
    let total = m
        .iov
        .iter()
        .fold(0usize, |t, &(_, l)| t.saturating_add(l as usize));
    for &(base, len) in &m.iov {
        let len = (len as usize).min(IO_CAP) as u64;
        if !p.machine.mem.range_ok(base, len, crate::memory::Perm::W) {
            return Outcome::Return(Err(EFAULT));
        }
    }
    let clen = if m.control != 0 {
        m.controllen as usize
    } else {
        0
    };
    let r = match recv_common(p, fd, total, clen, flags) {
        Ok(r) => r,
        Err(o) => return o,
    };
    let res = (|| {
        let mut off = 0usize;
        let got = r.n.min(r.data.len());
        for &(base, len) in &m.iov {
            if off >= got {
                break;
            }
            let k = (len as usize).min(got - off);
            put(p, base, &r.data[off..off + k])?;
            off += k;
        }
        // The kernel starts msg_flags from the call's MSG_CMSG_CLOEXEC.
        let mut mflags = (r.flags as u32 as u64 & !MSG_CMSG_CLOEXEC) | (flags & MSG_CMSG_CLOEXEC);
        // move_addr_to_user: only with a name buffer; msg_namelen gets the
        // full length.
        if m.name != 0 {
            let n = r.name.len().min(m.namelen as usize);
            put(p, m.name, &r.name[..n])?;
            put(p, msg + 8, &(r.name.len() as u32).to_le_bytes())?;
        }
        let (ctl, trunc) = control_to_guest(p, &r.control, clen, flags & MSG_CMSG_CLOEXEC != 0);
        if trunc {
            mflags |= 0x08; // MSG_CTRUNC
        }
        if m.control != 0 {
            put(p, m.control, &ctl)?;
        }
        put(p, msg + 40, &(ctl.len() as u64).to_le_bytes())?;
        put(p, msg + 48, &(mflags as u32).to_le_bytes())?;
        Ok(r.n as u64)
    })();
    Outcome::Return(res)
}

/// Alpha SOL_SOCKET option → host option.
fn host_sockopt(opt: u64) -> Option<i32> {
    Some(match opt {
        SO_DEBUG => libc::SO_DEBUG,
        SO_REUSEADDR => libc::SO_REUSEADDR,
        SO_KEEPALIVE => libc::SO_KEEPALIVE,
        SO_DONTROUTE => libc::SO_DONTROUTE,
        SO_BROADCAST => libc::SO_BROADCAST,
        SO_LINGER => libc::SO_LINGER,
        SO_OOBINLINE => libc::SO_OOBINLINE,
        SO_REUSEPORT => libc::SO_REUSEPORT,
        SO_TYPE => libc::SO_TYPE,
        SO_ERROR => libc::SO_ERROR,
        SO_SNDBUF => libc::SO_SNDBUF,
        SO_RCVBUF => libc::SO_RCVBUF,
        SO_SNDBUFFORCE => libc::SO_SNDBUFFORCE,
        SO_RCVBUFFORCE => libc::SO_RCVBUFFORCE,
        SO_RCVLOWAT => libc::SO_RCVLOWAT,
        SO_SNDLOWAT => libc::SO_SNDLOWAT,
        SO_ACCEPTCONN => libc::SO_ACCEPTCONN,
        SO_PROTOCOL => libc::SO_PROTOCOL,
        SO_DOMAIN => libc::SO_DOMAIN,
        SO_PRIORITY => libc::SO_PRIORITY,
        SO_PASSCRED => libc::SO_PASSCRED,
        SO_PEERCRED => libc::SO_PEERCRED,
        _ => return None,
    })
}

fn setsockopt(
    p: &mut Process,
    fd: u64,
    level: u64,
    opt: u64,
    val: u64,
    len: u64,
) -> Result<u64, u64> {
    let (raw, _) = sock(p, fd)?;
    if (len as i32) < 0 {
        return Err(EINVAL);
    }
    let len = (len as u32 as usize).min(256);
    if level == SOL_SOCKET && (opt == SO_RCVTIMEO || opt == SO_SNDTIMEO) {
        if len < 16 {
            return Err(EINVAL);
        }
        let (s, us) = (read_u64(p, val)? as i64, read_u64(p, val + 8)? as i64);
        if !(0..1_000_000).contains(&us) {
            return Err(EDOM);
        }
        // sock_set_timeout: a negative time is "no wait" (0 jiffies) and
        // 0:0 is "forever"; the kernel keeps jiffies, we keep ns.
        let ns = if s < 0 {
            1
        } else {
            (s as u64).saturating_mul(1_000_000_000) + us as u64 * 1000
        };
        with_sock(p, fd, |h| {
            if opt == SO_RCVTIMEO {
                h.rcvtimeo = ns
            } else {
                h.sndtimeo = ns
            }
        })?;
        return Ok(0);
    }
    let (hl, ho) = if level == SOL_SOCKET {
        (libc::SOL_SOCKET, host_sockopt(opt).ok_or(ENOPROTOOPT)?)
    } else {
        (level as i32, opt as i32)
    };
    let b = read_mem(p, val, len)?;
    // SAFETY: `b` holds `len` readable bytes.
    let r = unsafe { libc::setsockopt(raw, hl, ho, b.as_ptr().cast(), len as u32) };
    host_result(r as isize)
}

fn getsockopt(
    p: &mut Process,
    fd: u64,
    level: u64,
    opt: u64,
    val: u64,
    lenp: u64,
) -> Result<u64, u64> {
    let (raw, _) = sock(p, fd)?;
    let glen = read_u32(p, lenp)? as i32;
    if glen < 0 {
        return Err(EINVAL);
    }
    if level == SOL_SOCKET && (opt == SO_RCVTIMEO || opt == SO_SNDTIMEO) {
        let ns = with_sock(p, fd, |h| {
            if opt == SO_RCVTIMEO {
                h.rcvtimeo
            } else {
                h.sndtimeo
            }
        })?;
        let b = super::time::timeval_bytes(ns);
        let n = (glen as usize).min(16);
        put(p, val, &b[..n])?;
        put(p, lenp, &(n as u32).to_le_bytes())?;
        return Ok(0);
    }
    let (hl, ho) = if level == SOL_SOCKET {
        (libc::SOL_SOCKET, host_sockopt(opt).ok_or(ENOPROTOOPT)?)
    } else {
        (level as i32, opt as i32)
    };
    let mut b = vec![0u8; (glen as usize).min(256)];
    let mut l = b.len() as libc::socklen_t;
    // SAFETY: `b` has `l` writable bytes.
    let r = unsafe { libc::getsockopt(raw, hl, ho, b.as_mut_ptr().cast(), &mut l) };
    host_result(r as isize)?;
    let l = (l as usize).min(b.len());
    if level == SOL_SOCKET && opt == SO_ERROR && l >= 4 {
        let e = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let a = if e == 0 { 0 } else { from_host_errno(e) as i32 };
        b[..4].copy_from_slice(&a.to_le_bytes());
    }
    put(p, val, &b[..l])?;
    put(p, lenp, &(l as u32).to_le_bytes())?;
    Ok(0)
}

fn shutdown(p: &mut Process, fd: u64, how: u64) -> Result<u64, u64> {
    let (raw, _) = sock(p, fd)?;
    if how > 2 {
        return Err(EINVAL);
    }
    // SAFETY: shutdown has no memory preconditions; SHUT_* are 0, 1, 2.
    host_result(unsafe { libc::shutdown(raw, how as i32) } as isize)
}

fn sockname(p: &mut Process, fd: u64, addr: u64, lenp: u64, peer: bool) -> Result<u64, u64> {
    let (raw, _) = sock(p, fd)?;
    if (read_u32(p, lenp)? as i32) < 0 {
        return Err(EINVAL);
    }
    let mut sa = [0u8; 128];
    let mut len: libc::socklen_t = 128;
    // SAFETY: `sa` has `len` writable bytes.
    let r = unsafe {
        if peer {
            libc::getpeername(raw, sa.as_mut_ptr().cast(), &mut len)
        } else {
            libc::getsockname(raw, sa.as_mut_ptr().cast(), &mut len)
        }
    };
    host_result(r as isize)?;
    sockaddr_out(p, &sa[..(len as usize).min(128)], addr, lenp)?;
    Ok(0)
}

fn eventfd(p: &mut Process, init: u64, flags: u64) -> Result<u64, u64> {
    if flags & !(EFD_SEMAPHORE | fs::O_NONBLOCK | fs::O_CLOEXEC) != 0 {
        return Err(EINVAL);
    }
    let mut hf = libc::EFD_NONBLOCK | libc::EFD_CLOEXEC;
    if flags & EFD_SEMAPHORE != 0 {
        hf |= libc::EFD_SEMAPHORE;
    }
    // SAFETY: eventfd has no memory preconditions.
    let raw = unsafe { libc::eventfd(init as u32, hf) };
    if raw < 0 {
        return Err(last_errno());
    }
    // SAFETY: a descriptor we just created.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    install(
        p,
        HostObj::new(fd, HostKind::EventFd),
        flags & fs::O_NONBLOCK != 0,
        flags & fs::O_CLOEXEC != 0,
    )
}

/// `FIONBIO` and `FIONREAD` (asm/ioctls.h: `_IOW('f', 126, int)` and
/// `_IOR('f', 127, int)` in Alpha's `_IOC` encoding): FIONBIO sets any
/// descriptor's O_NONBLOCK; FIONREAD counts a socket's, eventfd's or
/// pipe's unread bytes. `None`: another request.
pub fn ioctl(p: &mut Process, fd: u64, req: u64, arg: u64) -> Option<Result<u64, u64>> {
    const FIONBIO: u64 = 0x8004_667e;
    const FIONREAD: u64 = 0x4004_667f;
    match req {
        FIONBIO => Some((|| {
            p.fds.get(fd)?;
            let on = read_u32(p, arg)? != 0;
            if let Some(Some(f)) = p.fds.fds.get_mut(fd as usize) {
                f.flags = (f.flags & !fs::O_NONBLOCK) | if on { fs::O_NONBLOCK } else { 0 };
            }
            Ok(0)
        })()),
        FIONREAD => {
            let obj = match p.fds.get(fd) {
                Ok(f) => f.obj.clone(),
                Err(e) => return Some(Err(e)),
            };
            let n = match &*obj.borrow() {
                Object::Host(h) => {
                    let mut v: libc::c_int = 0;
                    // SAFETY: FIONREAD writes one int to `v`.
                    let r = unsafe { libc::ioctl(h.raw(), libc::FIONREAD, &mut v) };
                    if r < 0 {
                        return Some(Err(last_errno()));
                    }
                    v as u32
                }
                Object::PipeRead(pb) => pb.borrow().data.len() as u32,
                _ => return None,
            };
            Some(put(p, arg, &n.to_le_bytes()).map(|_| 0))
        }
        _ => None,
    }
}

/// `read` on a host object (EAGAIN when nothing is there).
pub fn host_read(h: &HostObj, buf: &mut [u8]) -> Result<usize, u64> {
    // SAFETY: `buf` is writable for its length.
    host_result(unsafe { libc::read(h.raw(), buf.as_mut_ptr().cast(), buf.len()) })
        .map(|n| n as usize)
}

/// `write` on a host object: a socket never raises the host's SIGPIPE
/// (the caller turns EPIPE into the guest's).
pub fn host_write(h: &HostObj, buf: &[u8]) -> Result<usize, u64> {
    // SAFETY: `buf` is readable for its length.
    let r = unsafe {
        if h.is_socket() {
            libc::send(h.raw(), buf.as_ptr().cast(), buf.len(), libc::MSG_NOSIGNAL)
        } else {
            libc::write(h.raw(), buf.as_ptr().cast(), buf.len())
        }
    };
    host_result(r).map(|n| n as usize)
}

// ---------------------------------------------------------------- strace

/// Argument kinds of the socket calls' `--strace` lines: `D` a domain,
/// `Y` a socket type, `A` a sockaddr (its length is the next argument),
/// `L` a socket level, `N` an option name (of the level before it).
pub const STRACE_KINDS: &str = "DYALN";

fn domain_name(v: u64) -> String {
    match v {
        AF_UNIX => "AF_UNIX".into(),
        AF_INET => "AF_INET".into(),
        AF_INET6 => "AF_INET6".into(),
        _ => format!("{}", v as i64),
    }
}

fn type_name(v: u64) -> String {
    let mut s = match v & SOCK_TYPE_MASK {
        1 => "SOCK_STREAM".to_string(),
        2 => "SOCK_DGRAM".to_string(),
        3 => "SOCK_RAW".to_string(),
        5 => "SOCK_SEQPACKET".to_string(),
        t => format!("{t}"),
    };
    if v & SOCK_NONBLOCK != 0 {
        s.push_str("|SOCK_NONBLOCK");
    }
    if v & SOCK_CLOEXEC != 0 {
        s.push_str("|SOCK_CLOEXEC");
    }
    let rest = v & !(SOCK_TYPE_MASK | SOCK_NONBLOCK | SOCK_CLOEXEC);
    if rest != 0 {
        s.push_str(&format!("|0x{rest:x}"));
    }
    s
}

fn level_name(v: u64) -> String {
    match v {
        SOL_SOCKET => "SOL_SOCKET".into(),
        0 => "SOL_IP".into(),
        6 => "SOL_TCP".into(),
        17 => "SOL_UDP".into(),
        41 => "SOL_IPV6".into(),
        _ => format!("{}", v as i64),
    }
}

const SO_NAMES: &[(u64, &str)] = &[
    (SO_DEBUG, "SO_DEBUG"),
    (SO_REUSEADDR, "SO_REUSEADDR"),
    (SO_KEEPALIVE, "SO_KEEPALIVE"),
    (SO_DONTROUTE, "SO_DONTROUTE"),
    (SO_BROADCAST, "SO_BROADCAST"),
    (SO_LINGER, "SO_LINGER"),
    (SO_OOBINLINE, "SO_OOBINLINE"),
    (SO_REUSEPORT, "SO_REUSEPORT"),
    (SO_TYPE, "SO_TYPE"),
    (SO_ERROR, "SO_ERROR"),
    (SO_SNDBUF, "SO_SNDBUF"),
    (SO_RCVBUF, "SO_RCVBUF"),
    (SO_SNDBUFFORCE, "SO_SNDBUFFORCE"),
    (SO_RCVBUFFORCE, "SO_RCVBUFFORCE"),
    (SO_RCVLOWAT, "SO_RCVLOWAT"),
    (SO_SNDLOWAT, "SO_SNDLOWAT"),
    (SO_RCVTIMEO, "SO_RCVTIMEO"),
    (SO_SNDTIMEO, "SO_SNDTIMEO"),
    (SO_ACCEPTCONN, "SO_ACCEPTCONN"),
    (SO_PROTOCOL, "SO_PROTOCOL"),
    (SO_DOMAIN, "SO_DOMAIN"),
    (SO_PRIORITY, "SO_PRIORITY"),
    (SO_PASSCRED, "SO_PASSCRED"),
    (SO_PEERCRED, "SO_PEERCRED"),
];

fn optname(level: u64, v: u64) -> String {
    let named = match level {
        SOL_SOCKET => SO_NAMES.iter().find(|e| e.0 == v).map(|e| e.1),
        6 if v == 1 => Some("TCP_NODELAY"),
        41 if v == 26 => Some("IPV6_V6ONLY"),
        _ => None,
    };
    named.map_or_else(|| format!("{}", v as i64), str::to_string)
}

/// A sockaddr as strace prints it.
pub fn sockaddr_text(b: &[u8]) -> String {
    if b.len() < 2 {
        return "{}".into();
    }
    let fam = u16::from_le_bytes([b[0], b[1]]) as u64;
    match fam {
        AF_INET if b.len() >= 8 => format!(
            "{{sa_family=AF_INET, sin_port=htons({}), sin_addr=inet_addr(\"{}\")}}",
            u16::from_be_bytes([b[2], b[3]]),
            std::net::Ipv4Addr::new(b[4], b[5], b[6], b[7])
        ),
        AF_INET6 if b.len() >= 24 => {
            let mut a = [0u8; 16];
            a.copy_from_slice(&b[8..24]);
            format!(
                "{{sa_family=AF_INET6, sin6_port=htons({}), sin6_addr=inet_pton(AF_INET6, \"{}\")}}",
                u16::from_be_bytes([b[2], b[3]]),
                std::net::Ipv6Addr::from(a)
            )
        }
        AF_UNIX => {
            let path = &b[2..];
            if path.first() == Some(&0) && path.len() > 1 {
                let name: Vec<u8> = path[1..].iter().copied().take_while(|&c| c != 0).collect();
                format!(
                    "{{sa_family=AF_UNIX, sun_path=@\"{}\"}}",
                    String::from_utf8_lossy(&name)
                )
            } else {
                let name: Vec<u8> = path.iter().copied().take_while(|&c| c != 0).collect();
                format!(
                    "{{sa_family=AF_UNIX, sun_path=\"{}\"}}",
                    String::from_utf8_lossy(&name)
                )
            }
        }
        f => format!("{{sa_family={}}}", domain_name(f)),
    }
}

/// The `--strace` text of argument `i` (kind `k`, one of [`STRACE_KINDS`]).
pub fn strace_arg(p: &Process, k: char, i: usize, a: &[u64; 6]) -> String {
    let v = a[i];
    match k {
        'D' => domain_name(v),
        'Y' => type_name(v),
        'L' => level_name(v),
        'N' => optname(a[i.saturating_sub(1)], v),
        _ if v == 0 => "NULL".into(),
        _ => {
            let len = a.get(i + 1).copied().unwrap_or(0).min(128) as usize;
            match read_mem(p, v, len) {
                Ok(b) => sockaddr_text(&b),
                Err(_) => format!("0x{v:x}"),
            }
        }
    }
}
