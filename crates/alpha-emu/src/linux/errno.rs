//! Alpha Linux errno values (arch/alpha/include/uapi/asm/errno.h). 1-34
//! are the generic numbers except EDEADLK (11): Alpha's EAGAIN is 35, and
//! the numbers above 34 follow the OSF/1 order, so host errnos must be
//! translated ([`from_host_errno`]).

pub const EPERM: u64 = 1;
pub const ENOENT: u64 = 2;
pub const ESRCH: u64 = 3;
pub const EINTR: u64 = 4;
pub const EIO: u64 = 5;
pub const E2BIG: u64 = 7;
pub const EBADF: u64 = 9;
pub const ECHILD: u64 = 10;
pub const EDEADLK: u64 = 11;
pub const ENOMEM: u64 = 12;
pub const EACCES: u64 = 13;
pub const EFAULT: u64 = 14;
pub const EBUSY: u64 = 16;
pub const EEXIST: u64 = 17;
pub const EXDEV: u64 = 18;
pub const ENOTDIR: u64 = 20;
pub const EISDIR: u64 = 21;
pub const EINVAL: u64 = 22;
pub const EMFILE: u64 = 24;
pub const ENOTTY: u64 = 25;
pub const EFBIG: u64 = 27;
pub const ENOSPC: u64 = 28;
pub const ESPIPE: u64 = 29;
pub const EROFS: u64 = 30;
pub const EPIPE: u64 = 32;
pub const ERANGE: u64 = 34;
pub const EAGAIN: u64 = 35;
pub const EOPNOTSUPP: u64 = 45;
pub const ELOOP: u64 = 62;
pub const ENAMETOOLONG: u64 = 63;
pub const ENOTEMPTY: u64 = 66;
pub const ENOLCK: u64 = 77;
pub const ENOSYS: u64 = 78;
pub const ETIMEDOUT: u64 = 60;

/// Translate an x86-64/generic Linux host errno to Alpha's numbering.
pub fn from_host_errno(n: i32) -> u64 {
    match n {
        11 => EAGAIN,
        35 => EDEADLK,
        36 => ENAMETOOLONG,
        37 => ENOLCK,
        38 => ENOSYS,
        39 => ENOTEMPTY,
        40 => ELOOP,
        95 => EOPNOTSUPP,
        110 => ETIMEDOUT,
        n if (1..=34).contains(&n) => n as u64,
        _ => EIO,
    }
}

/// The C library's message for an Alpha errno, for `--strace` (as
/// qemu-alpha's -strace prints it).
pub fn message(e: u64) -> Option<&'static str> {
    Some(match e {
        EPERM => "Operation not permitted",
        ENOENT => "No such file or directory",
        ESRCH => "No such process",
        EINTR => "Interrupted system call",
        EIO => "Input/output error",
        EBADF => "Bad file descriptor",
        EDEADLK => "Resource deadlock avoided",
        ENOMEM => "Cannot allocate memory",
        EACCES => "Permission denied",
        EFAULT => "Bad address",
        EEXIST => "File exists",
        ENOTDIR => "Not a directory",
        EISDIR => "Is a directory",
        EINVAL => "Invalid argument",
        EMFILE => "Too many open files",
        ENOTTY => "Inappropriate ioctl for device",
        ESPIPE => "Illegal seek",
        EPIPE => "Broken pipe",
        ERANGE => "Numerical result out of range",
        EAGAIN => "Resource temporarily unavailable",
        EOPNOTSUPP => "Operation not supported",
        ETIMEDOUT => "Connection timed out",
        ENAMETOOLONG => "File name too long",
        ENOTEMPTY => "Directory not empty",
        ENOSYS => "Function not implemented",
        _ => return None,
    })
}
