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
pub const EDOM: u64 = 33;
pub const EINPROGRESS: u64 = 36;
pub const EALREADY: u64 = 37;
pub const ENOTSOCK: u64 = 38;
pub const EDESTADDRREQ: u64 = 39;
pub const EMSGSIZE: u64 = 40;
pub const EPROTOTYPE: u64 = 41;
pub const ENOPROTOOPT: u64 = 42;
pub const EPROTONOSUPPORT: u64 = 43;
pub const EAFNOSUPPORT: u64 = 47;
pub const EADDRINUSE: u64 = 48;
pub const EADDRNOTAVAIL: u64 = 49;
pub const ECONNRESET: u64 = 54;
pub const ENOBUFS: u64 = 55;
pub const EISCONN: u64 = 56;
pub const ENOTCONN: u64 = 57;
pub const ECONNREFUSED: u64 = 61;

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
        // The socket errnos: host 88-108 are Alpha's 38-58 (asm/errno.h).
        88..=108 => n as u64 - 50,
        109 => 59,
        110 => ETIMEDOUT,
        111 => ECONNREFUSED,
        112 => 64,
        113 => 65,
        114 => EALREADY,
        115 => EINPROGRESS,
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
        EDOM => "Numerical argument out of domain",
        EINPROGRESS => "Operation now in progress",
        EALREADY => "Operation already in progress",
        ENOTSOCK => "Socket operation on non-socket",
        EDESTADDRREQ => "Destination address required",
        EMSGSIZE => "Message too long",
        EPROTOTYPE => "Protocol wrong type for socket",
        ENOPROTOOPT => "Protocol not available",
        EPROTONOSUPPORT => "Protocol not supported",
        EAFNOSUPPORT => "Address family not supported by protocol",
        EADDRINUSE => "Address already in use",
        EADDRNOTAVAIL => "Cannot assign requested address",
        ECONNRESET => "Connection reset by peer",
        ENOBUFS => "No buffer space available",
        EISCONN => "Transport endpoint is already connected",
        ENOTCONN => "Transport endpoint is not connected",
        ECONNREFUSED => "Connection refused",
        _ => return None,
    })
}
