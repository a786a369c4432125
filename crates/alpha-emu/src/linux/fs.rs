//! Guest file descriptors, path resolution through `--sysroot`, and the
//! Alpha `struct stat` layouts (arch/alpha/include/uapi/asm/stat.h).
//!
//! Guest fds 0, 1 and 2 start as the [`super::Host`]'s streams; files and
//! directories opened by the guest are host files; pipes are in-memory
//! buffers inside the process until it forks, when they become host pipes
//! ([`super::process`]); sockets and eventfds are host descriptors
//! ([`super::net`]); timerfds and epoll instances are guest objects
//! ([`super::epoll`]).

use std::collections::VecDeque;
use std::fs::{File, Metadata};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::{cell::RefCell, os::unix::fs::MetadataExt};

use super::errno::*;

/// Open flags as Alpha spells them (arch/alpha/include/uapi/asm/fcntl.h).
pub const O_ACCMODE: u64 = 3;
pub const O_WRONLY: u64 = 1;
pub const O_RDWR: u64 = 2;
pub const O_NONBLOCK: u64 = 0o4;
pub const O_APPEND: u64 = 0o10;
pub const O_CREAT: u64 = 0o1000;
pub const O_TRUNC: u64 = 0o2000;
pub const O_EXCL: u64 = 0o4000;
pub const O_DIRECTORY: u64 = 0o100000;
pub const O_CLOEXEC: u64 = 0o10000000;

/// A pipe's shared buffer.
#[derive(Default, Debug)]
pub struct PipeBuf {
    pub data: VecDeque<u8>,
    pub writers: usize,
    pub readers: usize,
    /// Counts writes, reads and closes of either end (epoll's edge
    /// triggering reports a pipe again when it moved).
    pub gen: u64,
}

/// What a guest fd refers to.
#[derive(Debug)]
pub enum Object {
    /// The host's stdin/stdout/stderr (through `Host`).
    Stdio(u32),
    File {
        file: File,
        path: PathBuf,
    },
    Dir {
        path: PathBuf,
        /// Entries (name, inode, d_type) read at open; `pos` is the next index.
        entries: Vec<(Vec<u8>, u64, u8)>,
        pos: usize,
    },
    PipeRead(Rc<RefCell<PipeBuf>>),
    PipeWrite(Rc<RefCell<PipeBuf>>),
    /// A socket or eventfd: a host descriptor ([`super::net`]).
    Host(super::net::HostObj),
    TimerFd(super::epoll::TimerFd),
    Epoll(super::epoll::Epoll),
}

#[derive(Debug)]
pub struct Fd {
    pub obj: Rc<RefCell<Object>>,
    pub cloexec: bool,
    pub flags: u64,
}

/// The process's descriptor table.
#[derive(Debug)]
pub struct FdTable {
    pub fds: Vec<Option<Fd>>,
}

/// Most descriptors a guest may hold (RLIMIT_NOFILE soft limit).
pub const MAX_FDS: usize = 1024;

impl Default for FdTable {
    fn default() -> Self {
        Self::new()
    }
}

impl FdTable {
    pub fn new() -> FdTable {
        let mut t = FdTable { fds: Vec::new() };
        for i in 0..3 {
            t.fds.push(Some(Fd {
                obj: Rc::new(RefCell::new(Object::Stdio(i))),
                cloexec: false,
                flags: if i == 0 { 0 } else { O_WRONLY },
            }));
        }
        t
    }

    pub fn get(&self, fd: u64) -> Result<&Fd, u64> {
        self.fds
            .get(fd as usize)
            .and_then(|f| f.as_ref())
            .ok_or(EBADF)
    }

    /// Install at the lowest free number `>= min`.
    pub fn install(&mut self, fd: Fd, min: usize) -> Result<u64, u64> {
        let n = (min..MAX_FDS)
            .find(|&i| self.fds.get(i).is_none_or(|f| f.is_none()))
            .ok_or(EMFILE)?;
        self.install_at(fd, n);
        Ok(n as u64)
    }

    pub fn install_at(&mut self, fd: Fd, n: usize) {
        if self.fds.len() <= n {
            self.fds.resize_with(n + 1, || None);
        }
        if let Some(old) = self.fds[n].take() {
            release(old);
        }
        self.fds[n] = Some(fd);
    }

    pub fn close(&mut self, fd: u64) -> Result<(), u64> {
        let slot = self.fds.get_mut(fd as usize).ok_or(EBADF)?;
        let old = slot.take().ok_or(EBADF)?;
        release(old);
        Ok(())
    }

    /// A new descriptor sharing `fd`'s open file (dup).
    pub fn dup_of(&self, fd: u64, cloexec: bool) -> Result<Fd, u64> {
        let f = self.get(fd)?;
        let obj = f.obj.clone();
        match &*obj.borrow() {
            Object::PipeRead(p) => p.borrow_mut().readers += 1,
            Object::PipeWrite(p) => p.borrow_mut().writers += 1,
            _ => {}
        }
        Ok(Fd {
            obj,
            cloexec,
            flags: f.flags,
        })
    }
}

/// Drop one descriptor: pipe ends count their descriptors (each `dup`
/// added one), so a reader sees end-of-file once every writer is closed.
fn release(fd: Fd) {
    match &*fd.obj.borrow() {
        Object::PipeRead(p) => {
            let mut p = p.borrow_mut();
            p.readers -= 1;
            p.gen += 1;
        }
        Object::PipeWrite(p) => {
            let mut p = p.borrow_mut();
            p.writers -= 1;
            p.gen += 1;
        }
        _ => {}
    }
}

/// A new pipe: (read end, write end).
pub fn pipe(flags: u64) -> (Fd, Fd) {
    let buf = Rc::new(RefCell::new(PipeBuf {
        data: VecDeque::new(),
        writers: 1,
        readers: 1,
        gen: 0,
    }));
    let cloexec = flags & O_CLOEXEC != 0;
    (
        Fd {
            obj: Rc::new(RefCell::new(Object::PipeRead(buf.clone()))),
            cloexec,
            flags: flags & O_NONBLOCK,
        },
        Fd {
            obj: Rc::new(RefCell::new(Object::PipeWrite(buf))),
            cloexec,
            flags: O_WRONLY | (flags & O_NONBLOCK),
        },
    )
}

/// Map a host I/O error to an Alpha errno.
pub fn host_errno(e: &std::io::Error) -> u64 {
    match e.raw_os_error() {
        Some(n) => from_host_errno(n),
        None => match e.kind() {
            std::io::ErrorKind::NotFound => ENOENT,
            std::io::ErrorKind::PermissionDenied => EACCES,
            std::io::ErrorKind::AlreadyExists => EEXIST,
            _ => EIO,
        },
    }
}

/// Paths the sysroot overrides, like qemu's `-L` (which tries the prefix
/// for every absolute path): the loader's and libraries' directories.
fn sysroot_applies(p: &str) -> bool {
    ["/lib", "/usr/lib", "/lib64", "/usr/lib64", "/etc/ld.so"]
        .iter()
        .any(|pre| p.starts_with(pre))
}

/// Resolve a guest path to a host path: absolute library paths are tried
/// in the sysroot first; relative paths are relative to `base` (the cwd or
/// a directory fd's path).
pub fn resolve(sysroot: Option<&Path>, base: Option<&Path>, guest: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    // A file name is bytes: the guest's, not text.
    let s = Path::new(std::ffi::OsStr::from_bytes(guest));
    if guest.first() == Some(&b'/') {
        if let Some(root) = sysroot {
            if sysroot_applies(&String::from_utf8_lossy(guest)) {
                let cand = root.join(s.strip_prefix("/").unwrap_or(s));
                if cand.symlink_metadata().is_ok() {
                    return cand;
                }
            }
        }
        s.to_path_buf()
    } else {
        match base {
            Some(b) => b.join(s),
            None => s.to_path_buf(),
        }
    }
}

/// Read a directory's entries (with `.` and `..`) for getdents64.
pub fn dir_entries(path: &Path) -> std::io::Result<Vec<(Vec<u8>, u64, u8)>> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::DirEntryExt;
    use std::os::unix::fs::FileTypeExt;
    let mut v = vec![
        (b".".to_vec(), std::fs::metadata(path)?.ino(), 4u8),
        (
            b"..".to_vec(),
            std::fs::metadata(path.join(".."))
                .map(|m| m.ino())
                .unwrap_or(1),
            4u8,
        ),
    ];
    let mut rest: Vec<_> = std::fs::read_dir(path)?
        .filter_map(|e| e.ok())
        .map(|e| {
            let t = match e.file_type() {
                Ok(t) if t.is_dir() => 4,
                Ok(t) if t.is_symlink() => 10,
                Ok(t) if t.is_file() => 8,
                Ok(t) if t.is_fifo() => 1,
                Ok(t) if t.is_char_device() => 2,
                Ok(t) if t.is_block_device() => 6,
                Ok(t) if t.is_socket() => 12,
                _ => 0,
            };
            (e.file_name().as_bytes().to_vec(), e.ino(), t)
        })
        .collect();
    rest.sort();
    v.extend(rest);
    Ok(v)
}

/// Alpha `struct stat64` (136 bytes; used by fstatat64/fstat64/stat64).
pub fn stat64_bytes(m: &Metadata) -> Vec<u8> {
    let mut b = vec![0u8; 136];
    let put8 =
        |b: &mut Vec<u8>, off: usize, v: u64| b[off..off + 8].copy_from_slice(&v.to_le_bytes());
    let put4 =
        |b: &mut Vec<u8>, off: usize, v: u32| b[off..off + 4].copy_from_slice(&v.to_le_bytes());
    put8(&mut b, 0, m.dev());
    put8(&mut b, 8, m.ino());
    put8(&mut b, 16, m.rdev());
    put8(&mut b, 24, m.size());
    put8(&mut b, 32, m.blocks());
    put4(&mut b, 40, m.mode());
    put4(&mut b, 44, m.uid());
    put4(&mut b, 48, m.gid());
    put4(&mut b, 52, m.blksize() as u32);
    put4(&mut b, 56, m.nlink() as u32);
    put8(&mut b, 64, m.atime() as u64);
    put8(&mut b, 72, m.atime_nsec() as u64);
    put8(&mut b, 80, m.mtime() as u64);
    put8(&mut b, 88, m.mtime_nsec() as u64);
    put8(&mut b, 96, m.ctime() as u64);
    put8(&mut b, 104, m.ctime_nsec() as u64);
    b
}

/// Alpha `struct stat` (80 bytes; the old stat/lstat/fstat calls).
pub fn stat_bytes(m: &Metadata) -> Vec<u8> {
    let mut b = vec![0u8; 80];
    let put8 =
        |b: &mut Vec<u8>, off: usize, v: u64| b[off..off + 8].copy_from_slice(&v.to_le_bytes());
    let put4 =
        |b: &mut Vec<u8>, off: usize, v: u32| b[off..off + 4].copy_from_slice(&v.to_le_bytes());
    put4(&mut b, 0, m.dev() as u32);
    put4(&mut b, 4, m.ino() as u32);
    put4(&mut b, 8, m.mode());
    put4(&mut b, 12, m.nlink() as u32);
    put4(&mut b, 16, m.uid());
    put4(&mut b, 20, m.gid());
    put4(&mut b, 24, m.rdev() as u32);
    put8(&mut b, 32, m.size());
    put8(&mut b, 40, m.atime() as u64);
    put8(&mut b, 48, m.mtime() as u64);
    put8(&mut b, 56, m.ctime() as u64);
    put4(&mut b, 64, m.blksize() as u32);
    put4(&mut b, 68, m.blocks() as u32);
    b
}

/// A stat64 image for a host stream or pipe (character device / FIFO).
pub fn stat64_special(mode: u32, dev_rdev: u64, uid: u32, gid: u32) -> Vec<u8> {
    let mut b = vec![0u8; 136];
    b[16..24].copy_from_slice(&dev_rdev.to_le_bytes());
    b[40..44].copy_from_slice(&mode.to_le_bytes());
    b[44..48].copy_from_slice(&uid.to_le_bytes());
    b[48..52].copy_from_slice(&gid.to_le_bytes());
    b[52..56].copy_from_slice(&4096u32.to_le_bytes());
    b[56..60].copy_from_slice(&1u32.to_le_bytes());
    b
}
