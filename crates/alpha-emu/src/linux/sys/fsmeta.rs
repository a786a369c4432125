//! File-system metadata: paths (resolved against the sysroot, the working
//! directory or a directory descriptor), stat, access, rename, mkdir,
//! unlink, readlink, getdents64, chdir, getcwd.

use crate::linux::errno::*;
use crate::linux::fs::{self, Object};
use crate::linux::procfs;
use crate::linux::uaccess::{put, read_cstr};
use crate::linux::{Host, Process};

pub(crate) const AT_FDCWD: u64 = (-100i64) as u64;
pub(crate) const AT_SYMLINK_NOFOLLOW: u64 = 0x100;
pub(crate) const AT_REMOVEDIR: u64 = 0x200;
pub(crate) const AT_EMPTY_PATH: u64 = 0x1000;

/// The host path for a guest `(dirfd, path)`.
pub(crate) fn at_path(p: &Process, dirfd: u64, path: u64) -> Result<std::path::PathBuf, u64> {
    let s = read_cstr(p, path)?;
    if s.is_empty() {
        return Err(ENOENT);
    }
    let base = if s[0] == b'/' {
        None
    } else if dirfd == AT_FDCWD {
        Some(p.cwd.clone())
    } else {
        let f = p.fds.get(dirfd)?;
        let o = f.obj.borrow();
        match &*o {
            Object::Dir { path, .. } => Some(path.clone()),
            Object::File { .. } => return Err(ENOTDIR),
            _ => return Err(ENOTDIR),
        }
    };
    Ok(fs::resolve(p.sysroot.as_deref(), base.as_deref(), &s))
}

pub(crate) fn path_op(
    p: &mut Process,
    dirfd: u64,
    path: u64,
    f: impl FnOnce(&std::path::Path) -> std::io::Result<()>,
) -> Result<u64, u64> {
    let h = at_path(p, dirfd, path)?;
    f(&h).map(|_| 0).map_err(|e| fs::host_errno(&e))
}

pub(crate) fn chdir(p: &mut Process, path: u64) -> Result<u64, u64> {
    let h = at_path(p, AT_FDCWD, path)?;
    let m = std::fs::metadata(&h).map_err(|e| fs::host_errno(&e))?;
    if !m.is_dir() {
        return Err(ENOTDIR);
    }
    p.cwd = h;
    Ok(0)
}

pub(crate) fn rename(p: &mut Process, d1: u64, p1: u64, d2: u64, p2: u64) -> Result<u64, u64> {
    let a = at_path(p, d1, p1)?;
    let b = at_path(p, d2, p2)?;
    std::fs::rename(a, b)
        .map(|_| 0)
        .map_err(|e| fs::host_errno(&e))
}

/// The guest's `/proc` path named by (`dirfd`, `path`), if it names one
/// (see [`crate::linux::procfs`]).
pub(crate) fn proc_path(p: &Process, dirfd: u64, path: u64) -> Result<Option<Vec<u8>>, u64> {
    let s = read_cstr(p, path)?;
    if dirfd != AT_FDCWD && s.first() != Some(&b'/') {
        return Ok(None);
    }
    Ok(procfs::guest_proc_path(p, &s))
}

pub(crate) fn access(p: &mut Process, dirfd: u64, path: u64, _mode: u64) -> Result<u64, u64> {
    if let Some(g) = proc_path(p, dirfd, path)? {
        return procfs::resolve(p, &g).map(|_| 0);
    }
    let h = at_path(p, dirfd, path)?;
    std::fs::metadata(&h)
        .map(|_| 0)
        .map_err(|e| fs::host_errno(&e))
}

pub(crate) fn readlink(
    p: &mut Process,
    dirfd: u64,
    path: u64,
    buf: u64,
    len: u64,
) -> Result<u64, u64> {
    use std::os::unix::ffi::OsStrExt;
    let target = if let Some(g) = proc_path(p, dirfd, path)? {
        use std::os::unix::ffi::OsStringExt;
        std::ffi::OsString::from_vec(procfs::readlink(p, &g)?)
    } else {
        let h = at_path(p, dirfd, path)?;
        std::fs::read_link(&h)
            .map_err(|e| fs::host_errno(&e))?
            .into_os_string()
    };
    let b = target.as_bytes();
    let n = b.len().min(len as usize);
    put(p, buf, &b[..n])?;
    Ok(n as u64)
}

pub(crate) fn fd_stat(p: &Process, host: &dyn Host, fd: u64, wide: bool) -> Result<Vec<u8>, u64> {
    let f = p.fds.get(fd)?;
    let o = f.obj.borrow();
    let m = match &*o {
        Object::File { file, .. } => file.metadata().map_err(|e| fs::host_errno(&e))?,
        Object::Dir { path, .. } => std::fs::metadata(path).map_err(|e| fs::host_errno(&e))?,
        Object::Stdio(n) => match host.raw_fd(*n) {
            Some(raw) => {
                use std::os::fd::FromRawFd;
                // SAFETY: `raw` is the host's open stream; ManuallyDrop
                // keeps this borrowed File from closing it.
                let f = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(raw) });
                f.metadata().map_err(|e| fs::host_errno(&e))?
            }
            None => return Ok(fs::stat64_special(0o20620, 0x8800, p.id.uid, p.id.gid)),
        },
        Object::PipeRead(_) | Object::PipeWrite(_) => {
            return Ok(fs::stat64_special(0o10600, 0, p.id.uid, p.id.gid))
        }
        Object::Host(h) => {
            use std::os::fd::{AsRawFd, FromRawFd};
            // SAFETY: a borrowed File over the object's own descriptor;
            // ManuallyDrop keeps it from closing it.
            let f = std::mem::ManuallyDrop::new(unsafe {
                std::fs::File::from_raw_fd(h.fd.as_raw_fd())
            });
            f.metadata().map_err(|e| fs::host_errno(&e))?
        }
        // anon_inode files: mode 0600, no file type.
        Object::TimerFd(_) | Object::Epoll(_) => {
            return Ok(fs::stat64_special(0o600, 0, p.id.uid, p.id.gid))
        }
    };
    Ok(if wide {
        fs::stat64_bytes(&m)
    } else {
        fs::stat_bytes(&m)
    })
}

pub(crate) fn fstat(
    p: &mut Process,
    host: &dyn Host,
    fd: u64,
    buf: u64,
    wide: bool,
) -> Result<u64, u64> {
    let b = fd_stat(p, host, fd, wide)?;
    put(p, buf, &b).map(|_| 0)
}

pub(crate) fn stat_path(
    p: &mut Process,
    host: &dyn Host,
    dirfd: u64,
    path: u64,
    buf: u64,
    flags: u64,
    wide: bool,
) -> Result<u64, u64> {
    if flags & AT_EMPTY_PATH != 0 && read_cstr(p, path)?.is_empty() {
        if dirfd == AT_FDCWD {
            let m = std::fs::metadata(&p.cwd).map_err(|e| fs::host_errno(&e))?;
            return put(p, buf, &fs::stat64_bytes(&m)).map(|_| 0);
        }
        return fstat(p, host, dirfd, buf, wide);
    }
    if let Some(g) = proc_path(p, dirfd, path)? {
        let m = procfs::metadata(p, &g)?;
        let b = if wide {
            fs::stat64_bytes(&m)
        } else {
            fs::stat_bytes(&m)
        };
        return put(p, buf, &b).map(|_| 0);
    }
    let h = at_path(p, dirfd, path)?;
    let m = if flags & AT_SYMLINK_NOFOLLOW != 0 {
        std::fs::symlink_metadata(&h)
    } else {
        std::fs::metadata(&h)
    }
    .map_err(|e| fs::host_errno(&e))?;
    let b = if wide {
        fs::stat64_bytes(&m)
    } else {
        fs::stat_bytes(&m)
    };
    put(p, buf, &b).map(|_| 0)
}

/// `getdents64(fd, buf, len)`: `struct linux_dirent64` (d_ino, d_off,
/// d_reclen, d_type, d_name).
pub(crate) fn getdents64(p: &mut Process, fd: u64, buf: u64, len: u64) -> Result<u64, u64> {
    read_dir_records(p, fd, buf, len, 19 + 1, |rec, name, ty| {
        rec[18] = ty;
        rec[19..19 + name.len()].copy_from_slice(name);
    })
}

/// The directory walk both `getdents` calls share: from the descriptor's
/// position, as many records as fit in `len` bytes (EINVAL when not even
/// one does), each `fixed + name.len()` bytes rounded up to 8, holding
/// d_ino, d_off and d_reclen, then what `fill` writes (the name and the
/// type, where the layout puts them).
fn read_dir_records(
    p: &mut Process,
    fd: u64,
    buf: u64,
    len: u64,
    fixed: usize,
    fill: impl Fn(&mut [u8], &[u8], u8),
) -> Result<u64, u64> {
    let obj = p.fds.get(fd)?.obj.clone();
    let mut out = Vec::new();
    {
        let mut o = obj.borrow_mut();
        let Object::Dir { entries, pos, .. } = &mut *o else {
            return Err(ENOTDIR);
        };
        while *pos < entries.len() {
            let (name, ino, ty) = &entries[*pos];
            let reclen = (fixed + name.len()).div_ceil(8) * 8;
            if out.len() + reclen > len as usize {
                if out.is_empty() {
                    return Err(EINVAL);
                }
                break;
            }
            let start = out.len();
            out.resize(start + reclen, 0);
            let rec = &mut out[start..];
            rec[0..8].copy_from_slice(&ino.to_le_bytes());
            rec[8..16].copy_from_slice(&((*pos + 1) as u64).to_le_bytes());
            rec[16..18].copy_from_slice(&(reclen as u16).to_le_bytes());
            fill(rec, name, *ty);
            *pos += 1;
        }
    }
    put(p, buf, &out)?;
    Ok(out.len() as u64)
}

pub(crate) fn getcwd(p: &mut Process, buf: u64, len: u64) -> Result<u64, u64> {
    use std::os::unix::ffi::OsStrExt;
    let mut b = p.cwd.as_os_str().as_bytes().to_vec();
    b.push(0);
    if b.len() as u64 > len {
        return Err(ERANGE);
    }
    put(p, buf, &b)?;
    Ok(b.len() as u64)
}

/// `unlinkat(dirfd, path, flags)`: a directory with AT_REMOVEDIR.
pub(crate) fn unlinkat(p: &mut Process, dirfd: u64, path: u64, flags: u64) -> Result<u64, u64> {
    if flags & AT_REMOVEDIR != 0 {
        path_op(p, dirfd, path, |f| std::fs::remove_dir(f))
    } else {
        path_op(p, dirfd, path, |f| std::fs::remove_file(f))
    }
}

// ------------------------------------------------- metadata on the host

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

pub(crate) const AT_SYMLINK_FOLLOW: u64 = 0x400;

/// A host path as a C string (the bytes as they are).
pub(crate) fn cstring(h: &Path) -> Result<CString, u64> {
    CString::new(h.as_os_str().as_bytes()).map_err(|_| EINVAL)
}

/// A host call's result: its value, or the host's errno in Alpha's
/// numbering.
pub(crate) fn host_ret(r: i64) -> Result<u64, u64> {
    if r < 0 {
        Err(fs::host_errno(&std::io::Error::last_os_error()))
    } else {
        Ok(r as u64)
    }
}

/// What a descriptor names on the host: a descriptor of its own (a file,
/// host stream or socket) or a directory's path.
pub(crate) enum HostRef {
    Fd(i32),
    Path(PathBuf),
}

/// The host object behind guest `fd`; EINVAL for the guest's own pipes,
/// timers and epoll instances, which have none.
pub(crate) fn host_ref(p: &Process, host: &dyn Host, fd: u64) -> Result<HostRef, u64> {
    use std::os::fd::AsRawFd;
    let f = p.fds.get(fd)?;
    let o = f.obj.borrow();
    match &*o {
        Object::File { file, .. } => Ok(HostRef::Fd(file.as_raw_fd())),
        Object::Dir { path, .. } => Ok(HostRef::Path(path.clone())),
        Object::Stdio(n) => host.raw_fd(*n).map(HostRef::Fd).ok_or(EINVAL),
        Object::Host(h) => Ok(HostRef::Fd(h.raw())),
        _ => Err(EINVAL),
    }
}

/// A path call on the host: `f` gets the resolved path as a C string.
fn on_path(
    p: &Process,
    dirfd: u64,
    path: u64,
    f: impl FnOnce(&CString) -> i64,
) -> Result<u64, u64> {
    let h = at_path(p, dirfd, path)?;
    let c = cstring(&h)?;
    host_ret(f(&c))
}

/// `truncate(path, length)`.
pub(crate) fn truncate(p: &mut Process, path: u64, len: u64) -> Result<u64, u64> {
    // SAFETY: a valid C string.
    on_path(p, AT_FDCWD, path, |c| unsafe {
        libc::truncate(c.as_ptr(), len as i64) as i64
    })
}

/// `ftruncate(fd, length)`: EINVAL unless a regular file open for writing
/// (the host checks the mode it was opened with, which is the guest's).
pub(crate) fn ftruncate(p: &mut Process, host: &dyn Host, fd: u64, len: u64) -> Result<u64, u64> {
    match host_ref(p, host, fd)? {
        // SAFETY: ftruncate has no memory preconditions.
        HostRef::Fd(raw) => host_ret(unsafe { libc::ftruncate(raw, len as i64) } as i64),
        HostRef::Path(_) => Err(EINVAL),
    }
}

/// `chmod`/`fchmodat(dirfd, path, mode)` (the kernel's fchmodat has no
/// flags argument).
pub(crate) fn fchmodat(p: &mut Process, dirfd: u64, path: u64, mode: u64) -> Result<u64, u64> {
    // SAFETY: a valid C string.
    on_path(p, dirfd, path, |c| unsafe {
        libc::chmod(c.as_ptr(), (mode & 0o7777) as libc::mode_t) as i64
    })
}

/// `fchmod(fd, mode)`.
pub(crate) fn fchmod(p: &mut Process, host: &dyn Host, fd: u64, mode: u64) -> Result<u64, u64> {
    let m = (mode & 0o7777) as libc::mode_t;
    match host_ref(p, host, fd)? {
        // SAFETY: fchmod has no memory preconditions.
        HostRef::Fd(raw) => host_ret(unsafe { libc::fchmod(raw, m) } as i64),
        HostRef::Path(h) => {
            let c = cstring(&h)?;
            // SAFETY: a valid C string.
            host_ret(unsafe { libc::chmod(c.as_ptr(), m) } as i64)
        }
    }
}

/// `chown`, `lchown`, `fchownat(dirfd, path, uid, gid, flags)` (-1 keeps
/// an id; AT_SYMLINK_NOFOLLOW changes a link itself, AT_EMPTY_PATH the
/// descriptor's file).
#[allow(clippy::too_many_arguments)]
pub(crate) fn fchownat(
    p: &mut Process,
    host: &dyn Host,
    dirfd: u64,
    path: u64,
    uid: u64,
    gid: u64,
    flags: u64,
) -> Result<u64, u64> {
    if flags & !(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH) != 0 {
        return Err(EINVAL);
    }
    if flags & AT_EMPTY_PATH != 0 && read_cstr(p, path)?.is_empty() {
        return fchown(p, host, dirfd, uid, gid);
    }
    let (u, g) = (uid as u32, gid as u32);
    let nofollow = flags & AT_SYMLINK_NOFOLLOW != 0;
    on_path(p, dirfd, path, |c| {
        // SAFETY: a valid C string.
        unsafe {
            if nofollow {
                libc::lchown(c.as_ptr(), u, g) as i64
            } else {
                libc::chown(c.as_ptr(), u, g) as i64
            }
        }
    })
}

/// `fchown(fd, uid, gid)`.
pub(crate) fn fchown(
    p: &mut Process,
    host: &dyn Host,
    fd: u64,
    uid: u64,
    gid: u64,
) -> Result<u64, u64> {
    let (u, g) = (uid as u32, gid as u32);
    match host_ref(p, host, fd)? {
        // SAFETY: fchown has no memory preconditions.
        HostRef::Fd(raw) => host_ret(unsafe { libc::fchown(raw, u, g) } as i64),
        HostRef::Path(h) => {
            let c = cstring(&h)?;
            // SAFETY: a valid C string.
            host_ret(unsafe { libc::chown(c.as_ptr(), u, g) } as i64)
        }
    }
}

/// Two guest `struct timespec` (Alpha's: 64-bit seconds and nanoseconds,
/// as the host's) at `at`, or NULL (both now).
fn timespecs(p: &Process, at: u64) -> Result<Option<[libc::timespec; 2]>, u64> {
    if at == 0 {
        return Ok(None);
    }
    let b = crate::linux::uaccess::read_bytes(p, at, 32)?;
    let w = |i| crate::linux::uaccess::word(&b, i) as i64;
    Ok(Some([
        libc::timespec {
            tv_sec: w(0),
            tv_nsec: w(8),
        },
        libc::timespec {
            tv_sec: w(16),
            tv_nsec: w(24),
        },
    ]))
}

/// `utimensat(dirfd, path, times, flags)`; a NULL path is the descriptor
/// itself (glibc's futimens).
#[allow(clippy::too_many_arguments)]
pub(crate) fn utimensat(
    p: &mut Process,
    host: &dyn Host,
    dirfd: u64,
    path: u64,
    times: u64,
    flags: u64,
) -> Result<u64, u64> {
    let ts = timespecs(p, times)?;
    let tp = ts.as_ref().map_or(std::ptr::null(), |t| t.as_ptr());
    if flags & !(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH) != 0 {
        return Err(EINVAL);
    }
    let empty = path != 0 && flags & AT_EMPTY_PATH != 0 && read_cstr(p, path)?.is_empty();
    if path == 0 || empty {
        if dirfd == AT_FDCWD {
            return Err(EFAULT);
        }
        return match host_ref(p, host, dirfd)? {
            // SAFETY: `tp` is NULL or two timespecs that outlive the call.
            HostRef::Fd(raw) => host_ret(unsafe { libc::futimens(raw, tp) } as i64),
            HostRef::Path(h) => {
                let c = cstring(&h)?;
                // SAFETY: as above, and a valid C string.
                host_ret(unsafe { libc::utimensat(libc::AT_FDCWD, c.as_ptr(), tp, 0) } as i64)
            }
        };
    }
    let hf = if flags & AT_SYMLINK_NOFOLLOW != 0 {
        libc::AT_SYMLINK_NOFOLLOW
    } else {
        0
    };
    // SAFETY: as above.
    on_path(p, dirfd, path, |c| unsafe {
        libc::utimensat(libc::AT_FDCWD, c.as_ptr(), tp, hf) as i64
    })
}

/// `utimes`/`futimesat(dirfd, path, timeval[2])` (Alpha's timeval: 64-bit
/// seconds and microseconds).
pub(crate) fn futimesat(p: &mut Process, dirfd: u64, path: u64, tv: u64) -> Result<u64, u64> {
    let ts = match timespecs(p, tv)? {
        Some(mut t) => {
            for x in t.iter_mut() {
                if !(0..1_000_000).contains(&x.tv_nsec) {
                    return Err(EINVAL);
                }
                x.tv_nsec *= 1000;
            }
            Some(t)
        }
        None => None,
    };
    let tp = ts.as_ref().map_or(std::ptr::null(), |t| t.as_ptr());
    // SAFETY: `tp` is NULL or two timespecs that outlive the call.
    on_path(p, dirfd, path, |c| unsafe {
        libc::utimensat(libc::AT_FDCWD, c.as_ptr(), tp, 0) as i64
    })
}

/// `link`/`linkat(olddirfd, old, newdirfd, new, flags)`.
pub(crate) fn linkat(
    p: &mut Process,
    d1: u64,
    p1: u64,
    d2: u64,
    p2: u64,
    flags: u64,
) -> Result<u64, u64> {
    if flags & !(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH) != 0 {
        return Err(EINVAL);
    }
    let a = cstring(&at_path(p, d1, p1)?)?;
    let b = cstring(&at_path(p, d2, p2)?)?;
    let hf = if flags & AT_SYMLINK_FOLLOW != 0 {
        libc::AT_SYMLINK_FOLLOW
    } else {
        0
    };
    // SAFETY: valid C strings.
    host_ret(
        unsafe { libc::linkat(libc::AT_FDCWD, a.as_ptr(), libc::AT_FDCWD, b.as_ptr(), hf) } as i64,
    )
}

/// `symlink`/`symlinkat(target, newdirfd, linkpath)`: the target is
/// stored as the guest's bytes, unresolved.
pub(crate) fn symlinkat(p: &mut Process, target: u64, dirfd: u64, path: u64) -> Result<u64, u64> {
    let t = read_cstr(p, target)?;
    if t.is_empty() {
        return Err(ENOENT);
    }
    let t = CString::new(t).map_err(|_| EINVAL)?;
    // SAFETY: valid C strings.
    on_path(p, dirfd, path, |c| unsafe {
        libc::symlink(t.as_ptr(), c.as_ptr()) as i64
    })
}

/// `mknod`/`mknodat(dirfd, path, mode, dev)`: the mode's file type and
/// the device number are the generic encodings on both sides.
pub(crate) fn mknodat(
    p: &mut Process,
    dirfd: u64,
    path: u64,
    mode: u64,
    dev: u64,
) -> Result<u64, u64> {
    // SAFETY: a valid C string.
    on_path(p, dirfd, path, |c| unsafe {
        libc::mknod(c.as_ptr(), mode as libc::mode_t, dev as libc::dev_t) as i64
    })
}

/// `renameat2(olddirfd, old, newdirfd, new, flags)` (RENAME_NOREPLACE,
/// RENAME_EXCHANGE, RENAME_WHITEOUT: the generic values).
pub(crate) fn renameat2(
    p: &mut Process,
    d1: u64,
    p1: u64,
    d2: u64,
    p2: u64,
    flags: u64,
) -> Result<u64, u64> {
    let a = cstring(&at_path(p, d1, p1)?)?;
    let b = cstring(&at_path(p, d2, p2)?)?;
    // SAFETY: valid C strings.
    host_ret(unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            flags as libc::c_uint,
        )
    })
}

/// `fchdir(fd)`: the directory open there becomes the working directory.
pub(crate) fn fchdir(p: &mut Process, fd: u64) -> Result<u64, u64> {
    let f = p.fds.get(fd)?;
    let path = match &*f.obj.borrow() {
        Object::Dir { path, .. } => path.clone(),
        _ => return Err(ENOTDIR),
    };
    p.cwd = path;
    Ok(0)
}

/// `chroot(path)`: EPERM unless the guest runs as root (as Linux without
/// CAP_SYS_CHROOT); as root the directory becomes the guest's sysroot.
pub(crate) fn chroot(p: &mut Process, path: u64) -> Result<u64, u64> {
    let h = at_path(p, AT_FDCWD, path)?;
    let m = std::fs::metadata(&h).map_err(|e| fs::host_errno(&e))?;
    if !m.is_dir() {
        return Err(ENOTDIR);
    }
    if p.id.euid != 0 {
        return Err(EPERM);
    }
    p.sysroot = Some(h);
    Ok(0)
}

/// Alpha's `struct statfs` (32-bit words, 64 bytes) or `struct statfs64`
/// (64-bit counts, 88 bytes) from the host's, field by field; counts that
/// do not fit 32 bits are EOVERFLOW, as the kernel's `do_statfs_native`.
fn statfs_bytes(s: &libc::statfs, wide: bool) -> Result<Vec<u8>, u64> {
    let fsid: [i32; 2] = unsafe { std::mem::transmute(s.f_fsid) };
    let w = |v: i64| v as u64;
    let counts = [
        w(s.f_blocks as i64),
        w(s.f_bfree as i64),
        w(s.f_bavail as i64),
        w(s.f_files as i64),
        w(s.f_ffree as i64),
    ];
    let mut b = Vec::with_capacity(88);
    b.extend((s.f_type as u32).to_le_bytes());
    b.extend((s.f_bsize as u32).to_le_bytes());
    if wide {
        for c in counts {
            b.extend(c.to_le_bytes());
        }
    } else {
        let big = |v: u64| v >> 32 != 0;
        if counts[..3].iter().any(|&c| big(c))
            || (counts[3] != u64::MAX && big(counts[3]))
            || (counts[4] != u64::MAX && big(counts[4]))
            || big(s.f_bsize as u64)
            || big(s.f_frsize as u64)
        {
            return Err(EOVERFLOW);
        }
        for c in counts {
            b.extend((c as u32).to_le_bytes());
        }
    }
    b.extend(fsid[0].to_le_bytes());
    b.extend(fsid[1].to_le_bytes());
    b.extend((s.f_namelen as u32).to_le_bytes());
    b.extend((s.f_frsize as u32).to_le_bytes());
    // f_flags is the word after f_frsize (offset 80 of the host's 120-byte
    // structure), which the libc crate keeps private as spare.
    // SAFETY: offset 80 + 8 is inside `libc::statfs`, an i64 there.
    let flags = unsafe {
        std::ptr::read_unaligned(
            (s as *const libc::statfs)
                .cast::<u8>()
                .add(80)
                .cast::<i64>(),
        )
    };
    b.extend((flags as u32).to_le_bytes());
    b.resize(if wide { 88 } else { 64 }, 0);
    Ok(b)
}

/// `statfs`/`statfs64(path, buf)`.
pub(crate) fn statfs(p: &mut Process, path: u64, buf: u64, wide: bool) -> Result<u64, u64> {
    let h = at_path(p, AT_FDCWD, path)?;
    let c = cstring(&h)?;
    // SAFETY: a valid C string and a zeroed statfs to fill.
    let mut s: libc::statfs = unsafe { std::mem::zeroed() };
    host_ret(unsafe { libc::statfs(c.as_ptr(), &mut s) } as i64)?;
    put(p, buf, &statfs_bytes(&s, wide)?).map(|_| 0)
}

/// `fstatfs`/`fstatfs64(fd, buf)`.
pub(crate) fn fstatfs(
    p: &mut Process,
    host: &dyn Host,
    fd: u64,
    buf: u64,
    wide: bool,
) -> Result<u64, u64> {
    // SAFETY: a zeroed statfs to fill.
    let mut s: libc::statfs = unsafe { std::mem::zeroed() };
    match host_ref(p, host, fd)? {
        // SAFETY: `s` is a statfs to fill.
        HostRef::Fd(raw) => host_ret(unsafe { libc::fstatfs(raw, &mut s) } as i64)?,
        HostRef::Path(h) => {
            let c = cstring(&h)?;
            // SAFETY: a valid C string, `s` to fill.
            host_ret(unsafe { libc::statfs(c.as_ptr(), &mut s) } as i64)?
        }
    };
    put(p, buf, &statfs_bytes(&s, wide)?).map(|_| 0)
}

/// `statx(dirfd, path, flags, mask, buf)`: `struct statx` has one layout
/// on every architecture, so the host's is the guest's, field for field.
#[allow(clippy::too_many_arguments)]
pub(crate) fn statx(
    p: &mut Process,
    host: &dyn Host,
    dirfd: u64,
    path: u64,
    flags: u64,
    mask: u64,
    buf: u64,
) -> Result<u64, u64> {
    let s = read_cstr(p, path)?;
    // SAFETY: a zeroed statx to fill.
    let mut st: libc::statx = unsafe { std::mem::zeroed() };
    let hflags = (flags & 0x7f00) as i32; // AT_* and AT_STATX_SYNC_* bits
    if s.is_empty() && flags & AT_EMPTY_PATH != 0 {
        let (fd, c) = match host_ref(p, host, dirfd)? {
            HostRef::Fd(raw) => (raw, CString::default()),
            HostRef::Path(h) => (libc::AT_FDCWD, cstring(&h)?),
        };
        // SAFETY: a valid C string and `st` to fill.
        host_ret(unsafe { libc::statx(fd, c.as_ptr(), hflags, mask as u32, &mut st) } as i64)?;
    } else {
        if proc_path(p, dirfd, path)?.is_some() {
            // The guest's /proc has no host file: the fields stat gives.
            return Err(ENOSYS);
        }
        let c = cstring(&at_path(p, dirfd, path)?)?;
        // SAFETY: as above.
        host_ret(unsafe {
            libc::statx(
                libc::AT_FDCWD,
                c.as_ptr(),
                hflags & !libc::AT_EMPTY_PATH,
                mask as u32,
                &mut st,
            )
        } as i64)?;
    }
    // SAFETY: statx is plain old data; its bytes are the structure.
    let bytes = unsafe {
        std::slice::from_raw_parts(
            (&st as *const libc::statx).cast::<u8>(),
            std::mem::size_of::<libc::statx>(),
        )
    };
    put(p, buf, bytes).map(|_| 0)
}

/// `getdents(fd, buf, len)`: the old `struct linux_dirent` (d_ino, d_off,
/// d_reclen, d_name, then the type in the record's last byte).
pub(crate) fn getdents(p: &mut Process, fd: u64, buf: u64, len: u64) -> Result<u64, u64> {
    read_dir_records(p, fd, buf, len, 18 + 2, |rec, name, ty| {
        rec[18..18 + name.len()].copy_from_slice(name);
        let last = rec.len() - 1;
        rec[last] = ty;
    })
}
