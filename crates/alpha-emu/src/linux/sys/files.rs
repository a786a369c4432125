//! Files and descriptors: open, read, write (vectored and positioned),
//! seek, dup, pipe, fcntl, ioctl, fsync.
//!
//! Host I/O results reach the guest as Linux delivers them: a short host
//! write is a short write, a host error is its errno, EPIPE also sends the
//! writing thread SIGPIPE. A read or write that would block returns
//! [`Outcome::Block`]: only the calling thread waits (see
//! [`crate::linux::ThreadState::Blocked`]). Host streams are polled before
//! they are read, except under `--deterministic`, where a blocking read of
//! a host stream or file completes at the call, as one step of the schedule
//! (the other threads do not run while the host read waits), so when input
//! arrives cannot change the interleaving — only how many bytes one read
//! returns, as for any reader of a pipe. Reads of the guest's own pipes
//! block and wake in both modes, at scheduling points.

use super::fsmeta::{at_path, proc_path};
use crate::linux::errno::*;
use crate::linux::fs::{self, Fd, Object};
use crate::linux::procfs;
use crate::linux::signal::{self, Info};
use crate::linux::syscall::Outcome;
use crate::linux::uaccess::{put, read_u64};
use crate::linux::{Host, Process};
use std::io::{Read, Seek, SeekFrom, Write};

/// Internal result of a read or write that must wait (never reaches the
/// guest: [`io`] turns it into [`Outcome::Block`]).
pub(crate) const MUST_WAIT: u64 = 1 << 40;

/// The outcome of a read (`readable`) or write on `fd`.
pub(crate) fn io(r: Result<u64, u64>, fd: u64, readable: bool) -> Outcome {
    match r {
        Err(MUST_WAIT) if readable => Outcome::Block(vec![crate::linux::Wait::Readable(fd)]),
        Err(MUST_WAIT) => Outcome::Block(vec![crate::linux::Wait::Writable(fd)]),
        r => Outcome::Return(r),
    }
}

/// Whether host descriptor `raw` has `events` (POLLIN/POLLOUT) now, or an
/// error or hang-up to report.
pub(crate) fn host_ready(raw: i32, events: i16) -> bool {
    let mut f = libc::pollfd {
        fd: raw,
        events,
        revents: 0,
    };
    // SAFETY: one valid pollfd, timeout 0 (no waiting).
    unsafe { libc::poll(&mut f, 1, 0) != 0 }
}

pub(crate) fn openat(
    p: &mut Process,
    dirfd: u64,
    path: u64,
    flags: u64,
    mode: u64,
) -> Result<u64, u64> {
    use std::os::unix::fs::OpenOptionsExt;
    let acc = flags & fs::O_ACCMODE;
    if let Some(g) = proc_path(p, dirfd, path)? {
        use std::os::unix::ffi::OsStrExt;
        let (at, node) = procfs::resolve(p, &g)?;
        let guest = std::path::PathBuf::from(std::ffi::OsStr::from_bytes(&at));
        let obj = match node {
            procfs::Node::File(_) if acc != 0 || flags & fs::O_CREAT != 0 => return Err(EACCES),
            procfs::Node::File(_) if flags & fs::O_DIRECTORY != 0 => return Err(ENOTDIR),
            procfs::Node::File(data) => Object::File {
                file: procfs::memfile(&data)?,
                path: guest,
            },
            procfs::Node::Dir => Object::Dir {
                path: guest,
                entries: vec![(b".".to_vec(), 1, 4), (b"..".to_vec(), 1, 4)],
                pos: 0,
            },
            procfs::Node::Link(t) => {
                // A link out of /proc (exe): open its target.
                let h = std::path::PathBuf::from(std::ffi::OsStr::from_bytes(&t));
                let file = std::fs::File::open(&h).map_err(|e| fs::host_errno(&e))?;
                Object::File { file, path: h }
            }
        };
        let fd = Fd {
            obj: std::rc::Rc::new(std::cell::RefCell::new(obj)),
            cloexec: flags & fs::O_CLOEXEC != 0,
            flags,
        };
        return p.fds.install(fd, 0);
    }
    let h = at_path(p, dirfd, path)?;
    let meta = std::fs::metadata(&h);
    if let Ok(m) = &meta {
        if m.is_dir() {
            if acc != 0 || flags & fs::O_CREAT != 0 {
                return Err(EISDIR);
            }
            let entries = fs::dir_entries(&h).map_err(|e| fs::host_errno(&e))?;
            let fd = Fd {
                obj: std::rc::Rc::new(std::cell::RefCell::new(Object::Dir {
                    path: h,
                    entries,
                    pos: 0,
                })),
                cloexec: flags & fs::O_CLOEXEC != 0,
                flags,
            };
            return p.fds.install(fd, 0);
        }
    }
    if flags & fs::O_DIRECTORY != 0 {
        return Err(if meta.is_ok() { ENOTDIR } else { ENOENT });
    }
    let mut o = std::fs::OpenOptions::new();
    o.read(acc == 0 || acc == fs::O_RDWR)
        .write(acc == fs::O_WRONLY || acc == fs::O_RDWR)
        .append(flags & fs::O_APPEND != 0)
        .truncate(flags & fs::O_TRUNC != 0 && acc != 0)
        .mode((mode & 0o7777) as u32);
    if flags & fs::O_CREAT != 0 {
        if flags & fs::O_EXCL != 0 {
            o.create_new(true);
        } else {
            o.create(true);
        }
    }
    let file = o.open(&h).map_err(|e| fs::host_errno(&e))?;
    let fd = Fd {
        obj: std::rc::Rc::new(std::cell::RefCell::new(Object::File { file, path: h })),
        cloexec: flags & fs::O_CLOEXEC != 0,
        flags,
    };
    p.fds.install(fd, 0)
}

/// Copy guest bytes in bounded chunks, calling `sink` on each; a fault
/// after some bytes returns the count, as Linux does.
pub(crate) fn copy_from_guest(
    p: &mut Process,
    buf: u64,
    len: u64,
    mut sink: impl FnMut(&mut Process, &[u8]) -> Result<usize, u64>,
) -> Result<u64, u64> {
    if (len as i64) < 0 {
        return Err(EINVAL);
    }
    let mut done = 0u64;
    let mut chunk = vec![0u8; 64 * 1024];
    while done < len {
        let n = (len - done).min(chunk.len() as u64) as usize;
        let mut ok = n;
        if p.machine
            .mem
            .read_user(buf.wrapping_add(done), &mut chunk[..n])
            .is_err()
        {
            ok = 0;
            while ok < n
                && p.machine
                    .mem
                    .read_user(buf.wrapping_add(done + ok as u64), &mut chunk[ok..ok + 1])
                    .is_ok()
            {
                ok += 1;
            }
        }
        if ok > 0 {
            // An error after some bytes were written is a short write
            // (the error comes with the next call), as Linux reports it.
            let w = match sink(p, &chunk[..ok]) {
                Ok(w) => w,
                Err(e) if done == 0 => return Err(e),
                Err(_) => return Ok(done),
            };
            done += w as u64;
            if w < ok {
                return Ok(done);
            }
        }
        if ok < n {
            return if done == 0 { Err(EFAULT) } else { Ok(done) };
        }
    }
    Ok(done)
}

pub(crate) fn write(
    p: &mut Process,
    host: &mut dyn Host,
    fd: u64,
    buf: u64,
    len: u64,
) -> Result<u64, u64> {
    let f = p.fds.get(fd)?;
    let (obj, nonblock) = (f.obj.clone(), f.flags & fs::O_NONBLOCK != 0);
    if f.flags & fs::O_ACCMODE == 0 && !matches!(&*obj.borrow(), Object::Stdio(_)) {
        return Err(EBADF);
    }
    let r = if len == 0 {
        // A zero-length write still reports a bad host stream (EBADF).
        match &*obj.borrow() {
            Object::Stdio(n) => host
                .write_fd(*n, &[])
                .map(|_| 0)
                .map_err(|e| fs::host_errno(&e)),
            _ => Ok(0),
        }
    } else {
        copy_from_guest(p, buf, len, |_, bytes| {
            let mut o = obj.borrow_mut();
            match &mut *o {
                Object::Stdio(n) => host.write_fd(*n, bytes).map_err(|e| fs::host_errno(&e)),
                Object::File { file, .. } => file.write(bytes).map_err(|e| fs::host_errno(&e)),
                Object::PipeWrite(pb) => {
                    let mut pb = pb.borrow_mut();
                    if pb.readers == 0 {
                        return Err(EPIPE);
                    }
                    pb.data.extend(bytes.iter().copied());
                    pb.gen += 1;
                    Ok(bytes.len())
                }
                Object::Dir { .. } => Err(EISDIR),
                Object::PipeRead(_) => Err(EBADF),
                Object::Host(h) => crate::linux::net::host_write(h, bytes),
                Object::TimerFd(_) | Object::Epoll(_) => Err(EINVAL),
            }
        })
    };
    match r {
        // pipe_write's send_sig(SIGPIPE, current): the writing thread gets
        // SIGPIPE (fatal by default), and EPIPE if it survives.
        Err(EPIPE) => {
            let info = Info {
                signo: signal::SIGPIPE,
                code: signal::SI_USER,
                pid: p.id.pid,
                uid: p.id.uid,
                target: p.threads[p.cur].tid,
                ..Default::default()
            };
            p.send(info);
            Err(EPIPE)
        }
        // A host stream that is itself non-blocking: a blocking guest fd
        // waits until it takes bytes.
        Err(EAGAIN) if !nonblock => Err(MUST_WAIT),
        r => r,
    }
}

/// Read up to `len` bytes from `fd` into a host buffer; `MUST_WAIT` when
/// a blocking read finds nothing yet.
///
/// Host streams and files are polled first, so a read that would block
/// blocks only the calling guest thread — except in deterministic mode,
/// where the host read happens at the call (the other threads do not run
/// meanwhile), so when input arrives cannot change the schedule.
pub(crate) fn read_host(
    p: &mut Process,
    host: &mut dyn Host,
    fd: u64,
    len: usize,
) -> Result<Vec<u8>, u64> {
    let f = p.fds.get(fd)?;
    let (obj, nonblock) = (f.obj.clone(), f.flags & fs::O_NONBLOCK != 0);
    let mut o = obj.borrow_mut();
    let mut buf = vec![0u8; len];
    let must_wait = |raw: Option<i32>| match raw {
        Some(raw) if (nonblock || !p.deterministic) && !host_ready(raw, libc::POLLIN) => {
            Err(if nonblock { EAGAIN } else { MUST_WAIT })
        }
        _ => Ok(()),
    };
    let n = match &mut *o {
        Object::Stdio(n) => {
            must_wait(host.raw_fd(*n))?;
            host.read_fd(*n, &mut buf).map_err(|e| fs::host_errno(&e))?
        }
        Object::File { file, .. } => {
            use std::os::fd::AsRawFd;
            must_wait(Some(file.as_raw_fd()))?;
            file.read(&mut buf).map_err(|e| fs::host_errno(&e))?
        }
        Object::PipeRead(pb) => {
            let mut pb = pb.borrow_mut();
            if pb.data.is_empty() && pb.writers > 0 {
                return Err(if nonblock { EAGAIN } else { MUST_WAIT });
            }
            let n = buf.len().min(pb.data.len());
            for (i, b) in pb.data.drain(..n).enumerate() {
                buf[i] = b;
            }
            pb.gen += 1;
            n
        }
        Object::Dir { .. } => return Err(EISDIR),
        Object::PipeWrite(_) => return Err(EBADF),
        // Sockets and eventfds: the host descriptor is non-blocking.
        Object::Host(h) => match crate::linux::net::host_read(h, &mut buf) {
            Err(EAGAIN) if !nonblock => return Err(MUST_WAIT),
            r => r?,
        },
        Object::TimerFd(t) => match crate::linux::epoll::timerfd_read(t, p.clock_ns(), len)? {
            Some(b) => return Ok(b),
            None => return Err(if nonblock { EAGAIN } else { MUST_WAIT }),
        },
        Object::Epoll(_) => return Err(EINVAL),
    };
    buf.truncate(n);
    Ok(buf)
}

pub(crate) fn read(
    p: &mut Process,
    host: &mut dyn Host,
    fd: u64,
    buf: u64,
    len: u64,
) -> Result<u64, u64> {
    if (len as i64) < 0 {
        return Err(EINVAL);
    }
    if len == 0 {
        p.fds.get(fd)?;
        return Ok(0);
    }
    let len = read_cap(p, fd, len);
    if !p.machine.mem.range_ok(buf, len, crate::memory::Perm::W) {
        return Err(EFAULT);
    }
    let data = read_host(p, host, fd, len as usize)?;
    put(p, buf, &data)?;
    Ok(data.len() as u64)
}

pub(crate) fn readv_writev(
    p: &mut Process,
    host: &mut dyn Host,
    fd: u64,
    iov: u64,
    cnt: u64,
    is_write: bool,
) -> Result<u64, u64> {
    if cnt > 1024 {
        return Err(EINVAL);
    }
    let mut total = 0u64;
    for i in 0..cnt {
        let base = read_u64(p, iov.wrapping_add(16 * i))?;
        let len = read_u64(p, iov.wrapping_add(16 * i + 8))?;
        if len == 0 {
            continue;
        }
        let r = if is_write {
            write(p, host, fd, base, len)
        } else {
            read(p, host, fd, base, len)
        };
        match r {
            Ok(n) => {
                total += n;
                if n < len {
                    break;
                }
            }
            Err(e) if total == 0 => return Err(e),
            Err(_) => break,
        }
    }
    Ok(total)
}

pub(crate) fn pread(p: &mut Process, fd: u64, buf: u64, len: u64, off: u64) -> Result<u64, u64> {
    use std::os::unix::fs::FileExt;
    let obj = p.fds.get(fd)?.obj.clone();
    let o = obj.borrow();
    let Object::File { file, .. } = &*o else {
        return Err(ESPIPE);
    };
    let mut b = vec![0u8; (len as usize).min(1 << 24)];
    let n = file.read_at(&mut b, off).map_err(|e| fs::host_errno(&e))?;
    drop(o);
    put(p, buf, &b[..n])?;
    Ok(n as u64)
}

pub(crate) fn lseek(
    p: &mut Process,
    host: &dyn Host,
    fd: u64,
    off: i64,
    whence: u64,
) -> Result<u64, u64> {
    let obj = p.fds.get(fd)?.obj.clone();
    let mut o = obj.borrow_mut();
    match &mut *o {
        Object::File { file, .. } => {
            let pos = match whence {
                0 if off >= 0 => SeekFrom::Start(off as u64),
                0 => return Err(EINVAL),
                1 => SeekFrom::Current(off),
                2 => SeekFrom::End(off),
                _ => return Err(EINVAL),
            };
            file.seek(pos).map_err(|e| fs::host_errno(&e))
        }
        Object::Dir { pos, .. } if whence == 0 && off >= 0 => {
            *pos = off as usize;
            Ok(off as u64)
        }
        // A host stream seeks when the host's descriptor does (a regular
        // file on stdin); a pipe or terminal answers ESPIPE itself.
        Object::Stdio(n) => match host.raw_fd(*n) {
            Some(raw) if whence <= 2 => {
                // SAFETY: lseek on a descriptor has no memory preconditions.
                let r = unsafe { libc::lseek(raw, off, whence as i32) };
                if r < 0 {
                    Err(fs::host_errno(&std::io::Error::last_os_error()))
                } else {
                    Ok(r as u64)
                }
            }
            Some(_) => Err(EINVAL),
            None => Err(ESPIPE),
        },
        _ => Err(ESPIPE),
    }
}

pub(crate) fn dup(p: &mut Process, fd: u64, min: u64, cloexec: bool) -> Result<u64, u64> {
    let nfd = p.fds.dup_of(fd, cloexec)?;
    p.fds.install(nfd, min as usize)
}

pub(crate) fn dup2(p: &mut Process, old: u64, new: u64, flags: u64) -> Result<u64, u64> {
    p.fds.get(old)?;
    if new as usize >= fs::MAX_FDS {
        return Err(EBADF);
    }
    if old == new {
        return Ok(new);
    }
    let nfd = p.fds.dup_of(old, flags & fs::O_CLOEXEC != 0)?;
    p.fds.install_at(nfd, new as usize);
    Ok(new)
}

/// Alpha's `pipe` returns the two descriptors in v0 and a4 (r20).
pub(crate) fn pipe_alpha(p: &mut Process, c: usize) -> Outcome {
    let (r, w) = fs::pipe(0);
    let rfd = match p.fds.install(r, 0) {
        Ok(n) => n,
        Err(e) => return Outcome::Return(Err(e)),
    };
    let wfd = match p.fds.install(w, 0) {
        Ok(n) => n,
        Err(e) => {
            let _ = p.fds.close(rfd);
            return Outcome::Return(Err(e));
        }
    };
    p.machine.cpus[c].r[20] = wfd;
    Outcome::Return(Ok(rfd))
}

pub(crate) fn pipe2(p: &mut Process, fds: u64, flags: u64) -> Result<u64, u64> {
    if !p.machine.mem.range_ok(fds, 8, crate::memory::Perm::W) {
        return Err(EFAULT);
    }
    let (r, w) = fs::pipe(flags);
    let rfd = p.fds.install(r, 0)?;
    let wfd = p.fds.install(w, 0)?;
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&(rfd as u32).to_le_bytes());
    b[4..].copy_from_slice(&(wfd as u32).to_le_bytes());
    put(p, fds, &b)?;
    Ok(0)
}

pub(crate) fn fcntl(
    p: &mut Process,
    host: &dyn Host,
    fd: u64,
    cmd: u64,
    arg: u64,
) -> Result<u64, u64> {
    // Alpha's F_ numbers (asm/fcntl.h): F_DUPFD 0, F_GETFD 1, F_SETFD 2,
    // F_GETFL 3, F_SETFL 4, F_GETLK 7, F_SETLK 8, F_SETLKW 9,
    // F_DUPFD_CLOEXEC 1030.
    p.fds.get(fd)?;
    match cmd {
        0 => dup(p, fd, arg, false),
        1030 => dup(p, fd, arg, true),
        1 => Ok(p.fds.get(fd)?.cloexec as u64),
        2 => {
            if let Some(Some(f)) = p.fds.fds.get_mut(fd as usize) {
                f.cloexec = arg & 1 != 0;
            }
            Ok(0)
        }
        3 => Ok(p.fds.get(fd)?.flags & !fs::O_CLOEXEC),
        4 => {
            if let Some(Some(f)) = p.fds.fds.get_mut(fd as usize) {
                let keep = fs::O_ACCMODE | fs::O_CREAT | fs::O_EXCL | fs::O_TRUNC;
                f.flags = (f.flags & keep) | (arg & (fs::O_APPEND | fs::O_NONBLOCK));
                // A host stream's open file is shared with the host, as a
                // Linux process shares it with its shell: the flags go to
                // the host descriptor too (so a non-blocking stdout gives
                // short writes and EAGAIN, as it would natively).
                let n = match &*f.obj.borrow() {
                    Object::Stdio(n) => Some(*n),
                    _ => None,
                };
                if let Some(raw) = n.and_then(|n| host.raw_fd(n)) {
                    // SAFETY: F_GETFL/F_SETFL on a descriptor have no
                    // memory preconditions.
                    unsafe {
                        let cur = libc::fcntl(raw, libc::F_GETFL);
                        if cur >= 0 {
                            let mut new = cur & !(libc::O_NONBLOCK | libc::O_APPEND);
                            if arg & fs::O_NONBLOCK != 0 {
                                new |= libc::O_NONBLOCK;
                            }
                            if arg & fs::O_APPEND != 0 {
                                new |= libc::O_APPEND;
                            }
                            libc::fcntl(raw, libc::F_SETFL, new);
                        }
                    }
                }
            }
            Ok(0)
        }
        _ => Err(EINVAL),
    }
}

pub(crate) fn ioctl(p: &mut Process, fd: u64, req: u64, arg: u64) -> Result<u64, u64> {
    if let Some(r) = crate::linux::net::ioctl(p, fd, req, arg) {
        return r;
    }
    // TCGETS / TIOCGWINSZ (Alpha's _IOR encodings, asm/ioctls.h):
    // TCGETS = 0x402c7413, TIOCGWINSZ = 0x40087468.
    let obj = p.fds.get(fd)?.obj.clone();
    let tty = match &*obj.borrow() {
        Object::Stdio(n) => {
            use std::io::IsTerminal;
            match n {
                0 => std::io::stdin().is_terminal(),
                1 => std::io::stdout().is_terminal(),
                _ => std::io::stderr().is_terminal(),
            }
        }
        _ => false,
    };
    match req {
        0x402c_7413 | 0x4008_7468 if !tty => Err(ENOTTY),
        0x402c_7413 => {
            // A plausible cooked terminal: c_iflag ICRNL, c_oflag OPOST|ONLCR,
            // c_cflag B38400|CS8|CREAD, c_lflag ISIG|ICANON|ECHO.
            let mut b = [0u8; 44];
            b[0..4].copy_from_slice(&0x100u32.to_le_bytes());
            b[4..8].copy_from_slice(&0x3u32.to_le_bytes());
            b[8..12].copy_from_slice(&0xbfu32.to_le_bytes());
            b[12..16].copy_from_slice(&0x8bu32.to_le_bytes());
            put(p, arg, &b).map(|_| 0)
        }
        0x4008_7468 => {
            let mut b = [0u8; 8];
            b[0..2].copy_from_slice(&24u16.to_le_bytes());
            b[2..4].copy_from_slice(&80u16.to_le_bytes());
            put(p, arg, &b).map(|_| 0)
        }
        _ => Err(ENOTTY),
    }
}

/// `fsync`/`fdatasync(fd)`: the host file's, EINVAL for pipes and streams
/// that cannot be synced, as Linux answers.
pub(crate) fn fsync(p: &mut Process, host: &dyn Host, fd: u64) -> Result<u64, u64> {
    match &*p.fds.get(fd)?.obj.borrow() {
        Object::File { file, .. } => file.sync_all().map(|_| 0).map_err(|e| fs::host_errno(&e)),
        Object::Dir { .. } => Ok(0),
        Object::Stdio(n) if host.raw_fd(*n).is_some() => {
            let raw = host.raw_fd(*n).unwrap_or(-1);
            // SAFETY: fsync on a descriptor has no memory preconditions.
            if unsafe { libc::fsync(raw) } == 0 {
                Ok(0)
            } else {
                Err(fs::host_errno(&std::io::Error::last_os_error()))
            }
        }
        _ => Err(EINVAL),
    }
}

// ------------------------------------------- positioned and vectored I/O

use super::fsmeta::{host_ref, host_ret, HostRef};

/// The most one read or write moves (Linux's MAX_RW_COUNT, INT_MAX rounded
/// down to a page).
const MAX_RW_COUNT: u64 = 0x7fff_e000;

/// How many bytes one read of `len` from `fd` may take at once: a regular
/// file gives everything up to its end (as Linux does), a stream or device
/// at most 1 MiB (a short read, as a pipe gives).
pub(crate) fn read_cap(p: &Process, fd: u64, len: u64) -> u64 {
    let cap = p.fds.get(fd).ok().and_then(|f| match &*f.obj.borrow() {
        Object::File { file, .. } => {
            let m = file.metadata().ok()?;
            if !m.is_file() {
                return None;
            }
            let mut h: &std::fs::File = file;
            let pos = h.stream_position().ok()?;
            Some(m.len().saturating_sub(pos).max(1 << 20))
        }
        _ => None,
    });
    len.min(cap.unwrap_or(1 << 20)).min(MAX_RW_COUNT)
}

/// `pwrite64(fd, buf, len, offset)`.
pub(crate) fn pwrite(p: &mut Process, fd: u64, buf: u64, len: u64, off: u64) -> Result<u64, u64> {
    use std::os::unix::fs::FileExt;
    if (off as i64) < 0 {
        return Err(EINVAL);
    }
    let obj = p.fds.get(fd)?.obj.clone();
    if !matches!(&*obj.borrow(), Object::File { .. }) {
        return Err(ESPIPE);
    }
    let mut at = off;
    copy_from_guest(p, buf, len.min(MAX_RW_COUNT), |_, bytes| {
        let o = obj.borrow();
        let Object::File { file, .. } = &*o else {
            return Err(ESPIPE);
        };
        let n = file.write_at(bytes, at).map_err(|e| fs::host_errno(&e))?;
        at += n as u64;
        Ok(n)
    })
}

/// `preadv`/`pwritev` and their `2` forms: `pos` -1 (the `2` forms only)
/// is the file position, as readv/writev.
#[allow(clippy::too_many_arguments)]
pub(crate) fn preadv_pwritev(
    p: &mut Process,
    host: &mut dyn Host,
    fd: u64,
    iov: u64,
    cnt: u64,
    pos: u64,
    flags: u64,
    is_write: bool,
) -> Result<u64, u64> {
    // RWF_HIPRI, RWF_DSYNC, RWF_SYNC change nothing here; others are
    // EOPNOTSUPP, as for a file system without them.
    if flags & !0x7 != 0 {
        return Err(EOPNOTSUPP);
    }
    if pos == u64::MAX {
        return readv_writev(p, host, fd, iov, cnt, is_write);
    }
    if (pos as i64) < 0 {
        return Err(EINVAL);
    }
    if cnt > 1024 {
        return Err(EINVAL);
    }
    let mut total = 0u64;
    for i in 0..cnt {
        let base = read_u64(p, iov.wrapping_add(16 * i))?;
        let len = read_u64(p, iov.wrapping_add(16 * i + 8))?;
        if len == 0 {
            continue;
        }
        let r = if is_write {
            pwrite(p, fd, base, len, pos + total)
        } else {
            pread(p, fd, base, len, pos + total)
        };
        match r {
            Ok(n) => {
                total += n;
                if n < len {
                    break;
                }
            }
            Err(e) if total == 0 => return Err(e),
            Err(_) => break,
        }
    }
    Ok(total)
}

/// `fallocate(fd, mode, offset, len)` (the generic FALLOC_FL_ bits).
pub(crate) fn fallocate(
    p: &mut Process,
    host: &dyn Host,
    fd: u64,
    mode: u64,
    off: u64,
    len: u64,
) -> Result<u64, u64> {
    match host_ref(p, host, fd)? {
        // SAFETY: fallocate has no memory preconditions.
        HostRef::Fd(raw) => {
            host_ret(unsafe { libc::fallocate(raw, mode as i32, off as i64, len as i64) } as i64)
        }
        HostRef::Path(_) => Err(EISDIR),
    }
}

/// `fadvise64(fd, offset, len, advice)`: ESPIPE on a pipe, otherwise the
/// host's answer (POSIX_FADV_* have the generic values on Alpha).
pub(crate) fn fadvise64(
    p: &mut Process,
    host: &dyn Host,
    fd: u64,
    off: u64,
    len: u64,
    advice: u64,
) -> Result<u64, u64> {
    if matches!(
        &*p.fds.get(fd)?.obj.borrow(),
        Object::PipeRead(_) | Object::PipeWrite(_)
    ) {
        return Err(ESPIPE);
    }
    match host_ref(p, host, fd) {
        Ok(HostRef::Fd(raw)) => {
            // SAFETY: posix_fadvise has no memory preconditions.
            let r = unsafe { libc::posix_fadvise(raw, off as i64, len as i64, advice as i32) };
            if r == 0 {
                Ok(0)
            } else {
                Err(from_host_errno(r))
            }
        }
        Ok(HostRef::Path(_)) | Err(EINVAL) => {
            if advice > 5 {
                Err(EINVAL)
            } else {
                Ok(0)
            }
        }
        Err(e) => Err(e),
    }
}

/// Write host `bytes` to guest descriptor `fd` (sendfile's destination):
/// the count written, EPIPE with SIGPIPE as `write`.
fn write_bytes(p: &mut Process, host: &mut dyn Host, fd: u64, bytes: &[u8]) -> Result<u64, u64> {
    let f = p.fds.get(fd)?;
    if f.flags & fs::O_ACCMODE == 0 && !matches!(&*f.obj.borrow(), Object::Stdio(_)) {
        return Err(EBADF);
    }
    let obj = f.obj.clone();
    let r = match &mut *obj.borrow_mut() {
        Object::Stdio(n) => host.write_fd(*n, bytes).map_err(|e| fs::host_errno(&e)),
        Object::File { file, .. } => file.write(bytes).map_err(|e| fs::host_errno(&e)),
        Object::PipeWrite(pb) => {
            let mut pb = pb.borrow_mut();
            if pb.readers == 0 {
                Err(EPIPE)
            } else {
                pb.data.extend(bytes.iter().copied());
                pb.gen += 1;
                Ok(bytes.len())
            }
        }
        Object::Host(h) => crate::linux::net::host_write(h, bytes),
        _ => Err(EINVAL),
    };
    if r == Err(EPIPE) {
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
    r.map(|n| n as u64)
}

/// `sendfile(out_fd, in_fd, offset, count)`: from a regular file (at
/// `*offset`, which advances, or at its position) to any descriptor.
pub(crate) fn sendfile(
    p: &mut Process,
    host: &mut dyn Host,
    out: u64,
    inn: u64,
    offp: u64,
    count: u64,
) -> Result<u64, u64> {
    use std::os::unix::fs::FileExt;
    let obj = p.fds.get(inn)?.obj.clone();
    p.fds.get(out)?;
    let off = if offp != 0 {
        let v = read_u64(p, offp)?;
        if (v as i64) < 0 {
            return Err(EINVAL);
        }
        Some(v)
    } else {
        None
    };
    let n = count.min(1 << 24) as usize;
    let data = {
        let o = obj.borrow();
        let Object::File { file, .. } = &*o else {
            return Err(EINVAL);
        };
        let mut b = vec![0u8; n];
        let got = match off {
            Some(at) => file.read_at(&mut b, at),
            None => (&*file).read(&mut b),
        }
        .map_err(|e| fs::host_errno(&e))?;
        b.truncate(got);
        b
    };
    let written = if data.is_empty() {
        0
    } else {
        match write_bytes(p, host, out, &data) {
            Ok(w) => w,
            Err(e) => {
                if off.is_none() {
                    if let Object::File { file, .. } = &mut *obj.borrow_mut() {
                        let _ = file.seek(SeekFrom::Current(-(data.len() as i64)));
                    }
                }
                return Err(e);
            }
        }
    };
    match off {
        Some(at) => crate::linux::uaccess::put_u64(p, offp, at + written)?,
        None if (written as usize) < data.len() => {
            if let Object::File { file, .. } = &mut *obj.borrow_mut() {
                let _ = file.seek(SeekFrom::Current(written as i64 - data.len() as i64));
            }
        }
        None => {}
    }
    Ok(written)
}

/// `copy_file_range(fd_in, off_in, fd_out, off_out, len, flags)` between
/// two regular files, on the host.
#[allow(clippy::too_many_arguments)]
pub(crate) fn copy_file_range(
    p: &mut Process,
    host: &dyn Host,
    fin: u64,
    pin: u64,
    fout: u64,
    pout: u64,
    len: u64,
    flags: u64,
) -> Result<u64, u64> {
    if flags != 0 {
        return Err(EINVAL);
    }
    let (HostRef::Fd(a), HostRef::Fd(b)) = (host_ref(p, host, fin)?, host_ref(p, host, fout)?)
    else {
        return Err(EISDIR);
    };
    let mut oi = if pin != 0 {
        Some(read_u64(p, pin)? as i64)
    } else {
        None
    };
    let mut oo = if pout != 0 {
        Some(read_u64(p, pout)? as i64)
    } else {
        None
    };
    let ptr = |o: &mut Option<i64>| o.as_mut().map_or(std::ptr::null_mut(), |v| v as *mut i64);
    // SAFETY: the offsets are NULL or locals that outlive the call.
    let n =
        host_ret(
            unsafe { libc::copy_file_range(a, ptr(&mut oi), b, ptr(&mut oo), len as usize, 0) }
                as i64,
        )?;
    if let Some(v) = oi {
        crate::linux::uaccess::put_u64(p, pin, v as u64)?;
    }
    if let Some(v) = oo {
        crate::linux::uaccess::put_u64(p, pout, v as u64)?;
    }
    Ok(n)
}

/// `close_range(first, last, flags)`: close (or with CLOSE_RANGE_CLOEXEC
/// mark close-on-exec) every open descriptor in the range.
pub(crate) fn close_range(p: &mut Process, first: u64, last: u64, flags: u64) -> Result<u64, u64> {
    const UNSHARE: u64 = 1 << 1;
    const CLOEXEC: u64 = 1 << 2;
    if flags & !(UNSHARE | CLOEXEC) != 0 || first as u32 > last as u32 {
        return Err(EINVAL);
    }
    let end = (last as u32 as usize).min(fs::MAX_FDS - 1);
    for fd in first as u32 as usize..=end {
        if flags & CLOEXEC != 0 {
            if let Some(Some(f)) = p.fds.fds.get_mut(fd) {
                f.cloexec = true;
            }
        } else if p.fds.get(fd as u64).is_ok() {
            let _ = p.fds.close(fd as u64);
        }
    }
    Ok(0)
}

/// `memfd_create(name, flags)`: a host memfd, shared with forked guest
/// processes as any open file is; its name as `/proc` shows it.
pub(crate) fn memfd_create(p: &mut Process, name: u64, flags: u64) -> Result<u64, u64> {
    use std::os::fd::FromRawFd;
    const MFD_CLOEXEC: u64 = 1;
    const MFD_ALLOW_SEALING: u64 = 2;
    if flags & !(MFD_CLOEXEC | MFD_ALLOW_SEALING) != 0 {
        return Err(EINVAL);
    }
    let n = crate::linux::uaccess::read_cstr_max(p, name, 250).map_err(|e| {
        if e == 0 {
            EINVAL
        } else {
            e
        }
    })?;
    let c = std::ffi::CString::new(n.clone()).map_err(|_| EINVAL)?;
    // SAFETY: a valid C string.
    let raw = unsafe {
        libc::memfd_create(
            c.as_ptr(),
            (flags & MFD_ALLOW_SEALING) as u32 | libc::MFD_CLOEXEC,
        )
    };
    host_ret(raw as i64)?;
    // SAFETY: a descriptor we just created and own.
    let file = unsafe { std::fs::File::from_raw_fd(raw) };
    let mut shown = b"/memfd:".to_vec();
    shown.extend(&n);
    shown.extend(b" (deleted)");
    use std::os::unix::ffi::OsStrExt;
    let path = std::path::PathBuf::from(std::ffi::OsStr::from_bytes(&shown));
    let fd = Fd {
        obj: std::rc::Rc::new(std::cell::RefCell::new(Object::File { file, path })),
        cloexec: flags & MFD_CLOEXEC != 0,
        flags: fs::O_RDWR,
    };
    p.fds.install(fd, 0)
}

// ------------------------------------------------------------ file locks

/// Alpha's `l_type` values (asm/fcntl.h: F_RDLCK 1, F_WRLCK 2, F_UNLCK 8)
/// to the host's (0, 1, 2).
fn lock_type_to_host(t: i16) -> Result<i16, u64> {
    match t {
        1 => Ok(libc::F_RDLCK as i16),
        2 => Ok(libc::F_WRLCK as i16),
        8 => Ok(libc::F_UNLCK as i16),
        _ => Err(EINVAL),
    }
}

fn lock_type_from_host(t: i16) -> i16 {
    match t as i32 {
        libc::F_RDLCK => 1,
        libc::F_WRLCK => 2,
        _ => 8,
    }
}

/// `fcntl(fd, F_GETLK/F_SETLK/F_SETLKW/F_OFD_*, struct flock *)` on the
/// host's file, the structure translated field by field (Alpha's and the
/// host's `struct flock` share offsets: type 0, whence 2, start 8, len 16,
/// pid 24; only the type values differ). A lock that must wait polls
/// every millisecond, so the other guest threads run meanwhile.
pub(crate) fn lock(p: &mut Process, host: &dyn Host, fd: u64, cmd: u64, arg: u64) -> Outcome {
    let raw = match host_ref(p, host, fd) {
        Ok(HostRef::Fd(raw)) => raw,
        Ok(HostRef::Path(_)) | Err(EINVAL) => return Outcome::Return(Err(EBADF)),
        Err(e) => return Outcome::Return(Err(e)),
    };
    let b = match crate::linux::uaccess::read_bytes(p, arg, 32) {
        Ok(b) => b,
        Err(e) => return Outcome::Return(Err(e)),
    };
    let ty = match lock_type_to_host(i16::from_le_bytes([b[0], b[1]])) {
        Ok(t) => t,
        Err(e) => return Outcome::Return(Err(e)),
    };
    // SAFETY: a zeroed flock is a valid value.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = ty;
    fl.l_whence = i16::from_le_bytes([b[2], b[3]]);
    fl.l_start = crate::linux::uaccess::word(&b, 8) as i64;
    fl.l_len = crate::linux::uaccess::word(&b, 16) as i64;
    fl.l_pid = i32::from_le_bytes([b[24], b[25], b[26], b[27]]);
    let (hcmd, wait) = match cmd {
        7 => (libc::F_GETLK, false),
        8 => (libc::F_SETLK, false),
        9 => (libc::F_SETLK, true),
        36 => (libc::F_OFD_GETLK, false),
        37 => (libc::F_OFD_SETLK, false),
        _ => (libc::F_OFD_SETLK, true),
    };
    // SAFETY: `fl` is a flock the host fills or reads.
    let r = unsafe { libc::fcntl(raw, hcmd, &mut fl) };
    if r < 0 {
        let e = fs::host_errno(&std::io::Error::last_os_error());
        if wait && (e == EAGAIN || e == EACCES) {
            let at = p.clock_ns().saturating_add(1_000_000);
            return Outcome::Block(vec![crate::linux::Wait::Deadline(at)]);
        }
        return Outcome::Return(Err(e));
    }
    if matches!(hcmd, libc::F_GETLK | libc::F_OFD_GETLK) {
        let mut out = b.clone();
        out[0..2].copy_from_slice(&lock_type_from_host(fl.l_type).to_le_bytes());
        out[2..4].copy_from_slice(&fl.l_whence.to_le_bytes());
        out[8..16].copy_from_slice(&fl.l_start.to_le_bytes());
        out[16..24].copy_from_slice(&fl.l_len.to_le_bytes());
        out[24..28].copy_from_slice(&fl.l_pid.to_le_bytes());
        if let Err(e) = put(p, arg, &out) {
            return Outcome::Return(Err(e));
        }
    }
    Outcome::Return(Ok(0))
}

/// `flock(fd, operation)` on the host's open file (LOCK_SH 1, LOCK_EX 2,
/// LOCK_NB 4, LOCK_UN 8: the generic values); a lock that must wait polls
/// as [`lock`] does.
pub(crate) fn flock(p: &mut Process, host: &dyn Host, fd: u64, op: u64) -> Outcome {
    let raw = match host_ref(p, host, fd) {
        Ok(HostRef::Fd(raw)) => raw,
        Ok(HostRef::Path(_)) | Err(EINVAL) => return Outcome::Return(Err(EBADF)),
        Err(e) => return Outcome::Return(Err(e)),
    };
    // SAFETY: flock has no memory preconditions.
    let r = unsafe { libc::flock(raw, (op | 4) as i32) };
    if r < 0 {
        let e = fs::host_errno(&std::io::Error::last_os_error());
        if e == EAGAIN && op & 4 == 0 {
            let at = p.clock_ns().saturating_add(1_000_000);
            return Outcome::Block(vec![crate::linux::Wait::Deadline(at)]);
        }
        return Outcome::Return(Err(e));
    }
    Outcome::Return(Ok(0))
}

/// The `fcntl` row: the lock commands wait as [`lock`]; the rest answer
/// at once.
pub(crate) fn fcntl_call(p: &mut Process, host: &mut dyn Host, r: super::Req) -> Outcome {
    match r[1] {
        7..=9 | 36..=38 => lock(p, host, r[0], r[1], r[2]),
        _ => Outcome::Return(fcntl(p, host, r[0], r[1], r[2])),
    }
}
