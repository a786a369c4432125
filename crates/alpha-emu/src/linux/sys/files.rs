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
    let mut buf = vec![0u8; len.min(1 << 20)];
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
    if !p
        .machine
        .mem
        .range_ok(buf, len.min(1 << 20), crate::memory::Perm::W)
    {
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
        7..=9 => Ok(0),
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
