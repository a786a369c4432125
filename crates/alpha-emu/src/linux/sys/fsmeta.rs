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

pub(crate) fn getdents64(p: &mut Process, fd: u64, buf: u64, len: u64) -> Result<u64, u64> {
    let obj = p.fds.get(fd)?.obj.clone();
    let mut out = Vec::new();
    {
        let mut o = obj.borrow_mut();
        let Object::Dir { entries, pos, .. } = &mut *o else {
            return Err(ENOTDIR);
        };
        while *pos < entries.len() {
            let (name, ino, ty) = &entries[*pos];
            // struct linux_dirent64: d_ino, d_off, d_reclen, d_type, d_name.
            let reclen = (19 + name.len() + 1).div_ceil(8) * 8;
            if out.len() + reclen > len as usize {
                if out.is_empty() {
                    return Err(EINVAL);
                }
                break;
            }
            let mut rec = vec![0u8; reclen];
            rec[0..8].copy_from_slice(&ino.to_le_bytes());
            rec[8..16].copy_from_slice(&((*pos + 1) as u64).to_le_bytes());
            rec[16..18].copy_from_slice(&(reclen as u16).to_le_bytes());
            rec[18] = *ty;
            rec[19..19 + name.len()].copy_from_slice(name);
            out.extend(rec);
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
