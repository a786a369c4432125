//! Alpha Linux errno values (arch/alpha/include/uapi/asm/errno.h). 1-34
//! are the generic numbers except EDEADLK (11): Alpha's EAGAIN is 35, and
//! the numbers above 34 follow the OSF/1 order, so host errnos must be
//! translated ([`from_host_errno`]). [`ERRNOS`] is every Alpha errno with
//! its host number, name and C-library message (for `--strace`).

pub const EPERM: u64 = 1;
pub const ENOENT: u64 = 2;
pub const ESRCH: u64 = 3;
pub const EINTR: u64 = 4;
pub const EIO: u64 = 5;
pub const ENXIO: u64 = 6;
pub const E2BIG: u64 = 7;
pub const ENOEXEC: u64 = 8;
pub const EBADF: u64 = 9;
pub const ECHILD: u64 = 10;
pub const EDEADLK: u64 = 11;
pub const ENOMEM: u64 = 12;
pub const EACCES: u64 = 13;
pub const EFAULT: u64 = 14;
pub const EBUSY: u64 = 16;
pub const EEXIST: u64 = 17;
pub const EXDEV: u64 = 18;
pub const ENODEV: u64 = 19;
pub const ENOTDIR: u64 = 20;
pub const EISDIR: u64 = 21;
pub const EINVAL: u64 = 22;
pub const EMFILE: u64 = 24;
pub const ENOTTY: u64 = 25;
pub const EFBIG: u64 = 27;
pub const ENOSPC: u64 = 28;
pub const ESPIPE: u64 = 29;
pub const EROFS: u64 = 30;
pub const EMLINK: u64 = 31;
pub const EPIPE: u64 = 32;
pub const EDOM: u64 = 33;
pub const ERANGE: u64 = 34;
pub const EAGAIN: u64 = 35;
pub const EINPROGRESS: u64 = 36;
pub const EALREADY: u64 = 37;
pub const ENOTSOCK: u64 = 38;
pub const EDESTADDRREQ: u64 = 39;
pub const EMSGSIZE: u64 = 40;
pub const EPROTOTYPE: u64 = 41;
pub const ENOPROTOOPT: u64 = 42;
pub const EPROTONOSUPPORT: u64 = 43;
pub const EOPNOTSUPP: u64 = 45;
pub const EAFNOSUPPORT: u64 = 47;
pub const EADDRINUSE: u64 = 48;
pub const EADDRNOTAVAIL: u64 = 49;
pub const ECONNRESET: u64 = 54;
pub const ENOBUFS: u64 = 55;
pub const EISCONN: u64 = 56;
pub const ENOTCONN: u64 = 57;
pub const ETIMEDOUT: u64 = 60;
pub const ECONNREFUSED: u64 = 61;
pub const ELOOP: u64 = 62;
pub const ENAMETOOLONG: u64 = 63;
pub const ENOTEMPTY: u64 = 66;
pub const ENOLCK: u64 = 77;
pub const ENOSYS: u64 = 78;
pub const ENOMSG: u64 = 80;
pub const EIDRM: u64 = 81;
pub const ENODATA: u64 = 86;
pub const EOVERFLOW: u64 = 92;

/// (Alpha number, host number, name, message), ascending by Alpha number.
pub const ERRNOS: &[(u16, u16, &str, &str)] = &[
    (1, 1, "EPERM", "Operation not permitted"),
    (2, 2, "ENOENT", "No such file or directory"),
    (3, 3, "ESRCH", "No such process"),
    (4, 4, "EINTR", "Interrupted system call"),
    (5, 5, "EIO", "Input/output error"),
    (6, 6, "ENXIO", "No such device or address"),
    (7, 7, "E2BIG", "Argument list too long"),
    (8, 8, "ENOEXEC", "Exec format error"),
    (9, 9, "EBADF", "Bad file descriptor"),
    (10, 10, "ECHILD", "No child processes"),
    (11, 35, "EDEADLK", "Resource deadlock avoided"),
    (12, 12, "ENOMEM", "Cannot allocate memory"),
    (13, 13, "EACCES", "Permission denied"),
    (14, 14, "EFAULT", "Bad address"),
    (15, 15, "ENOTBLK", "Block device required"),
    (16, 16, "EBUSY", "Device or resource busy"),
    (17, 17, "EEXIST", "File exists"),
    (18, 18, "EXDEV", "Invalid cross-device link"),
    (19, 19, "ENODEV", "No such device"),
    (20, 20, "ENOTDIR", "Not a directory"),
    (21, 21, "EISDIR", "Is a directory"),
    (22, 22, "EINVAL", "Invalid argument"),
    (23, 23, "ENFILE", "Too many open files in system"),
    (24, 24, "EMFILE", "Too many open files"),
    (25, 25, "ENOTTY", "Inappropriate ioctl for device"),
    (26, 26, "ETXTBSY", "Text file busy"),
    (27, 27, "EFBIG", "File too large"),
    (28, 28, "ENOSPC", "No space left on device"),
    (29, 29, "ESPIPE", "Illegal seek"),
    (30, 30, "EROFS", "Read-only file system"),
    (31, 31, "EMLINK", "Too many links"),
    (32, 32, "EPIPE", "Broken pipe"),
    (33, 33, "EDOM", "Numerical argument out of domain"),
    (34, 34, "ERANGE", "Numerical result out of range"),
    (35, 11, "EAGAIN", "Resource temporarily unavailable"),
    (36, 115, "EINPROGRESS", "Operation now in progress"),
    (37, 114, "EALREADY", "Operation already in progress"),
    (38, 88, "ENOTSOCK", "Socket operation on non-socket"),
    (39, 89, "EDESTADDRREQ", "Destination address required"),
    (40, 90, "EMSGSIZE", "Message too long"),
    (41, 91, "EPROTOTYPE", "Protocol wrong type for socket"),
    (42, 92, "ENOPROTOOPT", "Protocol not available"),
    (43, 93, "EPROTONOSUPPORT", "Protocol not supported"),
    (44, 94, "ESOCKTNOSUPPORT", "Socket type not supported"),
    (45, 95, "EOPNOTSUPP", "Operation not supported"),
    (46, 96, "EPFNOSUPPORT", "Protocol family not supported"),
    (
        47,
        97,
        "EAFNOSUPPORT",
        "Address family not supported by protocol",
    ),
    (48, 98, "EADDRINUSE", "Address already in use"),
    (49, 99, "EADDRNOTAVAIL", "Cannot assign requested address"),
    (50, 100, "ENETDOWN", "Network is down"),
    (51, 101, "ENETUNREACH", "Network is unreachable"),
    (52, 102, "ENETRESET", "Network dropped connection on reset"),
    (53, 103, "ECONNABORTED", "Software caused connection abort"),
    (54, 104, "ECONNRESET", "Connection reset by peer"),
    (55, 105, "ENOBUFS", "No buffer space available"),
    (
        56,
        106,
        "EISCONN",
        "Transport endpoint is already connected",
    ),
    (57, 107, "ENOTCONN", "Transport endpoint is not connected"),
    (
        58,
        108,
        "ESHUTDOWN",
        "Cannot send after transport endpoint shutdown",
    ),
    (
        59,
        109,
        "ETOOMANYREFS",
        "Too many references: cannot splice",
    ),
    (60, 110, "ETIMEDOUT", "Connection timed out"),
    (61, 111, "ECONNREFUSED", "Connection refused"),
    (62, 40, "ELOOP", "Too many levels of symbolic links"),
    (63, 36, "ENAMETOOLONG", "File name too long"),
    (64, 112, "EHOSTDOWN", "Host is down"),
    (65, 113, "EHOSTUNREACH", "No route to host"),
    (66, 39, "ENOTEMPTY", "Directory not empty"),
    (68, 87, "EUSERS", "Too many users"),
    (69, 122, "EDQUOT", "Disk quota exceeded"),
    (70, 116, "ESTALE", "Stale file handle"),
    (71, 66, "EREMOTE", "Object is remote"),
    (77, 37, "ENOLCK", "No locks available"),
    (78, 38, "ENOSYS", "Function not implemented"),
    (80, 42, "ENOMSG", "No message of desired type"),
    (81, 43, "EIDRM", "Identifier removed"),
    (82, 63, "ENOSR", "Out of streams resources"),
    (83, 62, "ETIME", "Timer expired"),
    (84, 74, "EBADMSG", "Bad message"),
    (85, 71, "EPROTO", "Protocol error"),
    (86, 61, "ENODATA", "No data available"),
    (87, 60, "ENOSTR", "Device not a stream"),
    (88, 44, "ECHRNG", "Channel number out of range"),
    (89, 45, "EL2NSYNC", "Level 2 not synchronized"),
    (90, 46, "EL3HLT", "Level 3 halted"),
    (91, 47, "EL3RST", "Level 3 reset"),
    (92, 65, "ENOPKG", "Package not installed"),
    (93, 48, "ELNRNG", "Link number out of range"),
    (94, 49, "EUNATCH", "Protocol driver not attached"),
    (95, 50, "ENOCSI", "No CSI structure available"),
    (96, 51, "EL2HLT", "Level 2 halted"),
    (97, 52, "EBADE", "Invalid exchange"),
    (98, 53, "EBADR", "Invalid request descriptor"),
    (99, 54, "EXFULL", "Exchange full"),
    (100, 55, "ENOANO", "No anode"),
    (101, 56, "EBADRQC", "Invalid request code"),
    (102, 57, "EBADSLT", "Invalid slot"),
    (104, 59, "EBFONT", "Bad font file format"),
    (105, 64, "ENONET", "Machine is not on the network"),
    (106, 67, "ENOLINK", "Link has been severed"),
    (107, 68, "EADV", "Advertise error"),
    (108, 69, "ESRMNT", "Srmount error"),
    (109, 70, "ECOMM", "Communication error on send"),
    (110, 72, "EMULTIHOP", "Multihop attempted"),
    (111, 73, "EDOTDOT", "RFS specific error"),
    (
        112,
        75,
        "EOVERFLOW",
        "Value too large for defined data type",
    ),
    (113, 76, "ENOTUNIQ", "Name not unique on network"),
    (114, 77, "EBADFD", "File descriptor in bad state"),
    (115, 78, "EREMCHG", "Remote address changed"),
    (
        116,
        84,
        "EILSEQ",
        "Invalid or incomplete multibyte or wide character",
    ),
    (117, 117, "EUCLEAN", "Structure needs cleaning"),
    (118, 118, "ENOTNAM", "Not a XENIX named type file"),
    (119, 119, "ENAVAIL", "No XENIX semaphores available"),
    (120, 120, "EISNAM", "Is a named type file"),
    (121, 121, "EREMOTEIO", "Remote I/O error"),
    (122, 79, "ELIBACC", "Can not access a needed shared library"),
    (123, 80, "ELIBBAD", "Accessing a corrupted shared library"),
    (124, 81, "ELIBSCN", ".lib section in a.out corrupted"),
    (
        125,
        82,
        "ELIBMAX",
        "Attempting to link in too many shared libraries",
    ),
    (126, 83, "ELIBEXEC", "Cannot exec a shared library directly"),
    (
        127,
        85,
        "ERESTART",
        "Interrupted system call should be restarted",
    ),
    (128, 86, "ESTRPIPE", "Streams pipe error"),
    (129, 123, "ENOMEDIUM", "No medium found"),
    (130, 124, "EMEDIUMTYPE", "Wrong medium type"),
    (131, 125, "ECANCELED", "Operation canceled"),
    (132, 126, "ENOKEY", "Required key not available"),
    (133, 127, "EKEYEXPIRED", "Key has expired"),
    (134, 128, "EKEYREVOKED", "Key has been revoked"),
    (135, 129, "EKEYREJECTED", "Key was rejected by service"),
    (136, 130, "EOWNERDEAD", "Owner died"),
    (137, 131, "ENOTRECOVERABLE", "State not recoverable"),
    (138, 132, "ERFKILL", "Operation not possible due to RF-kill"),
    (139, 133, "EHWPOISON", "Memory page has hardware error"),
];

/// Translate a host (x86-64 and generic Linux) errno to Alpha's numbering
/// (EIO for a number Alpha does not have).
pub fn from_host_errno(n: i32) -> u64 {
    ERRNOS
        .iter()
        .find(|e| i32::from(e.1) == n)
        .map_or(EIO, |e| u64::from(e.0))
}

/// The host's number for Alpha errno `e`, if it has one.
pub fn to_host_errno(e: u64) -> Option<i32> {
    let i = ERRNOS.binary_search_by_key(&e, |r| u64::from(r.0)).ok()?;
    Some(i32::from(ERRNOS[i].1))
}

fn row(e: u64) -> Option<&'static (u16, u16, &'static str, &'static str)> {
    let i = ERRNOS.binary_search_by_key(&e, |r| u64::from(r.0)).ok()?;
    Some(&ERRNOS[i])
}

/// The name of an Alpha errno (`ENOSYS`), for `--strace`.
pub fn name(e: u64) -> Option<&'static str> {
    row(e).map(|r| r.2)
}

/// The C library's message for an Alpha errno, for `--strace` (as strace
/// and qemu-alpha's -strace print it).
pub fn message(e: u64) -> Option<&'static str> {
    row(e).map(|r| r.3)
}
