//! Alpha Linux system calls (numbers from arch/alpha/kernel/syscalls/syscall.tbl).
//!
//! Convention: number in `v0` (r0), arguments in `a0`-`a5` (r16-r21); the
//! result goes to `v0`, and `a3` (r19) is 0 on success or 1 with a positive
//! errno in `v0` on failure (arch/alpha/kernel/entry.S). Errno values are
//! Alpha's ([`super::errno`]). A bad guest pointer is EFAULT, never a crash.
//!
//! Host I/O results reach the guest as Linux delivers them: a short host
//! write is a short write, a host error is its errno, EPIPE also sends the
//! writing thread SIGPIPE. A read or write that would block returns
//! [`Outcome::Block`]: only the calling thread waits (see
//! [`super::ThreadState::Blocked`]). Host streams are polled before they are
//! read, except under `--deterministic`, where a blocking read of a host
//! stream or file completes at the call, as one step of the schedule (the
//! other threads do not run while the host read waits), so when input
//! arrives cannot change the interleaving — only how many bytes one read
//! returns, as for any reader of a pipe. Reads of the guest's own pipes
//! block and wake in both modes, at scheduling points.
//!
//! Every Alpha call is named for `--strace` ([`super::sysnames`]); one not
//! implemented answers ENOSYS, as a kernel without it would.

use super::errno::*;
use super::fs::{self, Fd, Object};
use super::signal::{self, Info};
use super::{procfs, set_result, time, Exit, Host, Process, ThreadState};
use crate::memory::PAGE_SIZE;
use std::io::{Read, Seek, SeekFrom, Write};

pub const SYS_EXIT: u64 = 1;
pub const SYS_READ: u64 = 3;
pub const SYS_WRITE: u64 = 4;
pub const SYS_EXIT_GROUP: u64 = 405;

const AT_FDCWD: u64 = (-100i64) as u64;
const AT_SYMLINK_NOFOLLOW: u64 = 0x100;
const AT_REMOVEDIR: u64 = 0x200;
const AT_EMPTY_PATH: u64 = 0x1000;

/// (number, name, argument kinds) for `--strace`. Kinds: `c` a clock id,
/// `w` an itimer, `T` timer flags, `t` a timespec's contents, `d` decimal,
/// `x` hex, `s` string, `f` fd or AT_FDCWD, `o` octal, `O` open flags,
/// `P` PROT_ bits, `M` MAP_ flags (spelled as qemu's -strace spells them),
/// `C` clone flags, `W` wait options, `S` a signal, `A` a string array.
const TABLE: &[(u64, &str, &str)] = &[
    (1, "exit", "d"),
    (3, "read", "dxd"),
    (4, "write", "dxd"),
    (6, "close", "d"),
    (2, "fork", ""),
    (7, "osf_wait4", "dxWx"),
    (10, "unlink", "s"),
    (12, "chdir", "s"),
    (17, "brk", "x"),
    (19, "lseek", "ddd"),
    (20, "getxpid", ""),
    (24, "getxuid", ""),
    (33, "access", "sd"),
    (37, "kill", "dS"),
    (39, "setpgid", "dd"),
    (59, "execve", "sAA"),
    (66, "vfork", ""),
    (147, "setsid", ""),
    (41, "dup", "d"),
    (42, "pipe", ""),
    (45, "open", "sOo"),
    (47, "getxgid", ""),
    (48, "osf_sigprocmask", "dx"),
    (54, "ioctl", "dxx"),
    (58, "readlink", "sxd"),
    (36, "sync", ""),
    (60, "umask", "o"),
    (63, "getpgrp", ""),
    (64, "getpagesize", ""),
    (67, "stat", "sx"),
    (68, "lstat", "sx"),
    (71, "mmap", "xxPMdx"),
    (73, "munmap", "xx"),
    (74, "mprotect", "xxP"),
    (75, "madvise", "xxd"),
    (90, "dup2", "dd"),
    (91, "fstat", "dx"),
    (79, "getgroups", "dx"),
    (92, "fcntl", "ddx"),
    (94, "poll", "xdd"),
    (95, "fsync", "d"),
    (103, "sigreturn", "x"),
    (116, "osf_gettimeofday", "xx"),
    (120, "readv", "dxd"),
    (121, "writev", "dxd"),
    (128, "rename", "ss"),
    (136, "mkdir", "so"),
    (137, "rmdir", "s"),
    (144, "getrlimit", "dx"),
    (233, "getpgid", "d"),
    (234, "getsid", "d"),
    (235, "sigaltstack", "xx"),
    (256, "osf_getsysinfo", "dxdxx"),
    (257, "osf_setsysinfo", "dxdxx"),
    (312, "clone", "Cxxxx"),
    (334, "sched_yield", ""),
    (339, "uname", "x"),
    (340, "nanosleep", "tx"),
    (323, "times", "x"),
    (364, "getrusage", "dx"),
    (361, "getitimer", "wx"),
    (362, "setitimer", "wxx"),
    (414, "timer_create", "cxx"),
    (415, "timer_settime", "dTxx"),
    (416, "timer_gettime", "dx"),
    (417, "timer_getoverrun", "d"),
    (418, "timer_delete", "d"),
    (341, "mremap", "xxxx"),
    (344, "getresuid", "xxx"),
    (348, "prctl", "dxxxx"),
    (349, "pread64", "dxdd"),
    (351, "rt_sigreturn", "x"),
    (352, "rt_sigaction", "dxxdx"),
    (353, "rt_sigprocmask", "dxxd"),
    (354, "rt_sigpending", "xd"),
    (357, "rt_sigsuspend", "xd"),
    (358, "select", "dxxxx"),
    (359, "gettimeofday", "xx"),
    (365, "wait4", "dxWx"),
    (367, "getcwd", "xd"),
    (377, "getdents64", "dxd"),
    (372, "getresgid", "xxx"),
    (378, "gettid", ""),
    (381, "tkill", "dS"),
    (394, "futex", "xdxxxx"),
    (405, "exit_group", "d"),
    (411, "set_tid_address", "x"),
    (420, "clock_gettime", "cx"),
    (421, "clock_getres", "cx"),
    (422, "clock_nanosleep", "cTtx"),
    (424, "tgkill", "ddS"),
    (425, "stat64", "sx"),
    (426, "lstat64", "sx"),
    (427, "fstat64", "dx"),
    (438, "waitid", "ddxWx"),
    (447, "fdatasync", "d"),
    (450, "openat", "fsOo"),
    (451, "mkdirat", "fso"),
    (455, "fstatat64", "fsxx"),
    (456, "unlinkat", "fsx"),
    (457, "renameat", "fsfs"),
    (460, "readlinkat", "fsxd"),
    (462, "faccessat", "fsd"),
    (463, "pselect6", "dxxxxx"),
    (464, "ppoll", "xdxxd"),
    (466, "set_robust_list", "xd"),
    (487, "dup3", "ddx"),
    (488, "pipe2", "xx"),
    (496, "prlimit64", "ddxx"),
    (511, "getrandom", "xdx"),
    (522, "statx", "fsxxx"),
    (527, "rseq", "xdxx"),
    (530, "getegid", ""),
    (531, "geteuid", ""),
    (532, "getppid", ""),
    (549, "faccessat2", "fsdx"),
    // Sockets and eventfd (net.rs), epoll and timerfd (epoll.rs).
    (97, "socket", "DYd"),
    (98, "connect", "dAd"),
    (99, "accept", "dxx"),
    (101, "send", "dxdx"),
    (102, "recv", "dxdx"),
    (104, "bind", "dAd"),
    (105, "setsockopt", "dLNxd"),
    (106, "listen", "dd"),
    (113, "recvmsg", "dxx"),
    (114, "sendmsg", "dxx"),
    (479, "recvmmsg", "dxdxx"),
    (503, "sendmmsg", "dxdx"),
    (118, "getsockopt", "dLNxx"),
    (125, "recvfrom", "dxdxxx"),
    (133, "sendto", "dxdxAd"),
    (134, "shutdown", "dd"),
    (135, "socketpair", "DYdx"),
    (141, "getpeername", "dxx"),
    (150, "getsockname", "dxx"),
    (502, "accept4", "dxxx"),
    (478, "eventfd", "d"),
    (485, "eventfd2", "dx"),
    (407, "epoll_create", "d"),
    (486, "epoll_create1", "x"),
    (408, "epoll_ctl", "dddx"),
    (409, "epoll_wait", "dxdd"),
    (474, "epoll_pwait", "dxddxd"),
    (551, "epoll_pwait2", "dxdxxd"),
    (481, "timerfd_create", "cx"),
    (482, "timerfd_settime", "dTxx"),
    (483, "timerfd_gettime", "dx"),
];

/// The name of a system call number, for `--strace`: Alpha Linux's name
/// ([`super::sysnames`]), implemented or not.
pub fn name(nr: u64) -> Option<&'static str> {
    TABLE
        .iter()
        .find(|e| e.0 == nr)
        .map(|e| e.1)
        .or_else(|| super::sysnames::name(nr))
}

/// Calls in [`TABLE`] that still answer ENOSYS (glibc falls back).
const ENOSYS_STILL: &[u64] = &[466, 522, 527];

/// Whether system call `nr` is performed (anything else answers ENOSYS,
/// as a kernel without it would).
pub fn implemented(nr: u64) -> bool {
    TABLE.iter().any(|e| e.0 == nr) && !ENOSYS_STILL.contains(&nr)
}

/// What a system call asks of the run loop.
pub enum Outcome {
    /// Return to the guest with this result.
    Return(Result<u64, u64>),
    /// Registers were set by the call itself (sigreturn, a blocked thread).
    NoResult,
    /// The whole process exits with this status.
    Exit(u8),
    /// The call would block: run other threads, then execute it again.
    Restart,
    /// The calling thread blocks until one of these holds, then executes
    /// the call again ([`super::ThreadState::Blocked`]).
    Block(Vec<super::Wait>),
}

/// Internal result of a read or write that must wait (never reaches the
/// guest: [`io`] turns it into [`Outcome::Block`]).
const MUST_WAIT: u64 = 1 << 40;

/// The outcome of a read (`readable`) or write on `fd`.
fn io(r: Result<u64, u64>, fd: u64, readable: bool) -> Outcome {
    match r {
        Err(MUST_WAIT) if readable => Outcome::Block(vec![super::Wait::Readable(fd)]),
        Err(MUST_WAIT) => Outcome::Block(vec![super::Wait::Writable(fd)]),
        r => Outcome::Return(r),
    }
}

/// Whether host descriptor `raw` has `events` (POLLIN/POLLOUT) now, or an
/// error or hang-up to report.
fn host_ready(raw: i32, events: i16) -> bool {
    let mut f = libc::pollfd {
        fd: raw,
        events,
        revents: 0,
    };
    // SAFETY: one valid pollfd, timeout 0 (no waiting).
    unsafe { libc::poll(&mut f, 1, 0) != 0 }
}

/// Read a NUL-terminated guest string (at most PATH_MAX bytes).
pub fn read_cstr(p: &Process, addr: u64) -> Result<Vec<u8>, u64> {
    let mut out = Vec::new();
    let mut a = addr;
    loop {
        let mut b = [0u8; 1];
        p.machine.mem.read_user(a, &mut b).map_err(|_| EFAULT)?;
        if b[0] == 0 {
            return Ok(out);
        }
        out.push(b[0]);
        if out.len() > 4096 {
            return Err(ENAMETOOLONG);
        }
        a = a.wrapping_add(1);
    }
}

fn read_u64(p: &Process, addr: u64) -> Result<u64, u64> {
    let mut b = [0u8; 8];
    p.machine.mem.read_user(addr, &mut b).map_err(|_| EFAULT)?;
    Ok(u64::from_le_bytes(b))
}

fn read_u32(p: &Process, addr: u64) -> Result<u32, u64> {
    let mut b = [0u8; 4];
    p.machine.mem.read_user(addr, &mut b).map_err(|_| EFAULT)?;
    Ok(u32::from_le_bytes(b))
}

fn put(p: &mut Process, addr: u64, bytes: &[u8]) -> Result<(), u64> {
    p.machine.mem.write_user(addr, bytes).map_err(|_| EFAULT)
}

const OPEN_FLAGS: &[(u64, &str)] = &[
    (fs::O_CREAT, "O_CREAT"),
    (fs::O_EXCL, "O_EXCL"),
    (fs::O_TRUNC, "O_TRUNC"),
    (fs::O_APPEND, "O_APPEND"),
    (fs::O_NONBLOCK, "O_NONBLOCK"),
    (fs::O_DIRECTORY, "O_DIRECTORY"),
    (fs::O_CLOEXEC, "O_CLOEXEC"),
];
const PROT_FLAGS: &[(u64, &str)] = &[(4, "PROT_EXEC"), (1, "PROT_READ"), (2, "PROT_WRITE")];
const MAP_FLAGS: &[(u64, &str)] = &[
    (0x01, "MAP_SHARED"),
    (0x02, "MAP_PRIVATE"),
    (0x10, "MAP_ANONYMOUS"),
    (0x100, "MAP_FIXED"),
    (0x2000, "MAP_DENYWRITE"),
    (0x80000, "MAP_STACK"),
];

/// `A|B|…` for the bits of `v` named in `names`; `base` (< 4) picks a
/// leading access-mode name; bits without a name are printed in hex.
fn flag_names(v: u64, base: u64, names: &[(u64, &str)], modes: [&str; 4]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut rest = v;
    if base < 4 {
        parts.push(modes[base as usize].to_string());
        rest &= !3;
    }
    for (bit, name) in names {
        if rest & bit != 0 {
            parts.push(name.to_string());
            rest &= !bit;
        }
    }
    if rest != 0 || parts.is_empty() {
        parts.push(format!("0x{rest:x}"));
    }
    parts.join("|")
}

fn strace_args(p: &Process, nr: u64, a: &[u64; 6]) -> String {
    let kinds = TABLE.iter().find(|e| e.0 == nr).map_or("xxx", |e| e.2);
    let mut parts = Vec::new();
    for (i, k) in kinds.chars().enumerate() {
        let v = a[i];
        parts.push(match k {
            k if super::net::STRACE_KINDS.contains(k) => super::net::strace_arg(p, k, i, a),
            'd' => format!("{}", v as i64),
            'o' => format!("0{v:o}"),
            'c' => time::clock_name(v).map_or_else(|| format!("{}", v as i64), str::to_string),
            'w' => match v {
                0 => "ITIMER_REAL".to_string(),
                1 => "ITIMER_VIRTUAL".to_string(),
                2 => "ITIMER_PROF".to_string(),
                _ => format!("{}", v as i64),
            },
            'T' if v == time::TIMER_ABSTIME => "TIMER_ABSTIME".to_string(),
            'T' => format!("{}", v as i64),
            't' => match time::read_timespec_raw(p, v) {
                Some((sec, nsec)) => format!("{{tv_sec = {sec},tv_nsec = {nsec}}}"),
                None if v == 0 => "NULL".to_string(),
                None => format!("0x{v:x}"),
            },
            'f' if v == AT_FDCWD => "AT_FDCWD".to_string(),
            'f' => format!("{}", v as i64),
            'O' => flag_names(
                v,
                v & 3,
                OPEN_FLAGS,
                ["O_RDONLY", "O_WRONLY", "O_RDWR", "3"],
            ),
            'P' if v == 0 => "PROT_NONE".to_string(),
            'P' => flag_names(v, 4, PROT_FLAGS, ["", "", "", ""]),
            'M' => flag_names(v, 4, MAP_FLAGS, ["", "", "", ""]),
            'C' => super::process::clone_flag_names(v),
            'W' => super::process::wait_option_names(v),
            'S' if (1..=signal::NSIG as u64).contains(&v) => signal::name(v as u8),
            'A' if v != 0 => super::process::strace_str_array(p, v),
            's' => match read_cstr(p, v) {
                Ok(s) => format!("\"{}\"", String::from_utf8_lossy(&s)),
                Err(_) => format!("0x{v:x}"),
            },
            _ if v == 0 => "NULL".to_string(),
            _ => format!("0x{v:x}"),
        });
    }
    parts.join(",")
}

/// Handle `callsys` on CPU `c` for the running thread.
pub fn callsys(p: &mut Process, host: &mut dyn Host, c: usize) -> Option<Exit> {
    let nr = p.machine.cpus[c].r[0];
    let a = {
        let r = &p.machine.cpus[c].r;
        [r[16], r[17], r[18], r[19], r[20], r[21]]
    };
    let pre = if p.strace {
        let n = name(nr)
            .map(str::to_string)
            .unwrap_or_else(|| format!("syscall_{nr}"));
        Some(format!(
            "{} {n}({})",
            p.threads[p.cur].tid,
            strace_args(p, nr, &a)
        ))
    } else {
        None
    };
    let out = dispatch(p, host, c, nr, a);
    if !matches!(out, Outcome::Block(_) | Outcome::Restart) {
        if let Some(t) = p.threads.get_mut(p.cur) {
            t.progress = None;
        }
    }
    match out {
        Outcome::Exit(s) => {
            if let Some(pre) = pre {
                host.trace(&format!("{pre} = ?"));
            }
            Some(Exit::Exited(s))
        }
        Outcome::Block(waits) => {
            // Back to the CALL_PAL, as for a restart; the thread sleeps
            // until a wait holds (the --strace line comes when it completes).
            let cpu = &mut p.machine.cpus[c];
            cpu.pc = cpu.pc.wrapping_sub(4);
            let t = p.cur;
            p.set_state(t, ThreadState::Blocked);
            p.threads[t].waits = waits;
            None
        }
        Outcome::Restart => {
            // Back to the CALL_PAL with v0/a0-a5 untouched, as the kernel's
            // syscall restart does (pc -= 4), after the other threads ran.
            let cpu = &mut p.machine.cpus[c];
            cpu.pc = cpu.pc.wrapping_sub(4);
            p.yield_now = true;
            None
        }
        Outcome::NoResult => {
            if let Some(pre) = pre {
                host.trace(&format!("{pre} = ?"));
            }
            if p.live_threads() == 0 {
                return Some(Exit::Exited(p.last_exit));
            }
            None
        }
        Outcome::Return(r) => {
            if let Some(pre) = pre {
                let res = match r {
                    Ok(v) if matches!(nr, 17 | 71 | 341) => format!("0x{v:016x}"),
                    Ok(v) => format!("{}", v as i64),
                    Err(e) => match message(e) {
                        Some(m) => format!("-1 errno={e} ({m})"),
                        None => format!("-1 errno={e}"),
                    },
                };
                host.trace(&format!("{pre} = {res}"));
            }
            set_result(&mut p.machine.cpus[c], r);
            None
        }
    }
}

/// Perform system call `nr` for CPU `c`.
pub fn dispatch(p: &mut Process, host: &mut dyn Host, c: usize, nr: u64, a: [u64; 6]) -> Outcome {
    use Outcome::Return as R;
    if let Some(out) = super::net::dispatch(p, nr, a) {
        return out;
    }
    if let Some(out) = super::epoll::dispatch(p, host, nr, a) {
        return out;
    }
    match nr {
        SYS_EXIT => exit_thread(p, a[0] as u8),
        SYS_EXIT_GROUP => Outcome::Exit(a[0] as u8),
        SYS_READ => io(read(p, host, a[0], a[1], a[2]), a[0], true),
        SYS_WRITE => io(write(p, host, a[0], a[1], a[2]), a[0], false),
        6 => R(p.fds.close(a[0]).map(|_| 0)),
        10 => R(path_op(p, AT_FDCWD, a[0], |h| std::fs::remove_file(h))),
        12 => R(chdir(p, a[0])),
        17 => R(p.aspace.brk(&mut p.machine.mem, a[0])),
        19 => R(lseek(p, host, a[0], a[1] as i64, a[2])),
        // getxpid, getxuid, getxgid: the second value in a4 (r20), the
        // OSF convention (parent pid, euid, egid).
        20 => {
            p.machine.cpus[c].r[20] = super::process::parent_pid(p) as u64;
            R(Ok(p.id.pid as u64))
        }
        24 => {
            p.machine.cpus[c].r[20] = p.id.euid as u64;
            R(Ok(p.id.uid as u64))
        }
        47 => {
            p.machine.cpus[c].r[20] = p.id.egid as u64;
            R(Ok(p.id.gid as u64))
        }
        530 => R(Ok(p.id.egid as u64)),
        531 => R(Ok(p.id.euid as u64)),
        532 => R(Ok(super::process::parent_pid(p) as u64)),
        60 => R(Ok(umask(p, a[0]))),
        344 => R(put_ids(
            p,
            [a[0], a[1], a[2]],
            [p.id.uid, p.id.euid, p.id.euid],
        )),
        372 => R(put_ids(
            p,
            [a[0], a[1], a[2]],
            [p.id.gid, p.id.egid, p.id.egid],
        )),
        79 => R(getgroups(p, a[0], a[1])),
        // sync, fsync, fdatasync: the host's files are written through.
        36 => R(Ok(0)),
        95 | 447 => R(fsync(p, host, a[0])),
        94 => poll(p, host, a[0], a[1], ms_timeout(a[2] as i32)),
        464 => match timespec_timeout(p, a[2]) {
            Ok(t) => with_wait_mask(p, a[3], a[4], |p| poll(p, host, a[0], a[1], t)),
            Err(e) => R(Err(e)),
        },
        358 => match timeval_timeout(p, a[4]) {
            Ok(t) => select(p, host, a, t),
            Err(e) => R(Err(e)),
        },
        // pselect6's sixth argument points at { sigset_t *ss; size_t len; }.
        463 => match (timespec_timeout(p, a[4]), pselect_mask(p, a[5])) {
            (Ok(t), Ok((mask, len))) => with_wait_mask(p, mask, len, |p| select(p, host, a, t)),
            (Err(e), _) | (_, Err(e)) => R(Err(e)),
        },
        // getpgrp, getpgid(0), getsid(0): the host's process group and
        // session (the pid under --deterministic); other pids are not ours.
        39 | 63 | 147 | 233 | 234 => R(super::process::pgrp_call(p, nr, a)),
        // wait4/waitid: the guest has no child processes (no fork).
        2 => super::process::fork(p, c, 0, [0; 6]),
        66 => super::process::fork(p, c, super::process::CLONE_VFORK, [0; 6]),
        59 => super::process::execve(p, a[0], a[1], a[2]),
        7 => super::process::wait4(p, a[0] as i64, a[1], a[2], 0),
        365 => super::process::wait4(p, a[0] as i64, a[1], a[2], a[3]),
        438 => super::process::waitid(p, a[0], a[1], a[2], a[3]),
        33 => R(access(p, AT_FDCWD, a[0], a[1])),
        462 | 549 => R(access(p, a[0], a[1], a[2])),
        37 => R(kill(p, a[0] as i64, a[1], false)),
        381 => R(kill(p, a[0] as i64, a[1], true)),
        424 => R(kill(p, a[1] as i64, a[2], true)),
        41 => R(dup(p, a[0], 0, false)),
        90 => R(dup2(p, a[0], a[1], 0)),
        487 => R(dup2(p, a[0], a[1], a[2])),
        42 => pipe_alpha(p, c),
        488 => R(pipe2(p, a[0], a[1])),
        45 => R(openat(p, AT_FDCWD, a[0], a[1], a[2])),
        450 => R(openat(p, a[0], a[1], a[2], a[3])),
        48 => R(osf_sigprocmask(p, a[0], a[1])),
        54 => R(ioctl(p, a[0], a[1], a[2])),
        58 => R(readlink(p, AT_FDCWD, a[0], a[1], a[2])),
        460 => R(readlink(p, a[0], a[1], a[2], a[3])),
        64 => R(Ok(PAGE_SIZE)),
        67 | 425 => R(stat_path(p, host, AT_FDCWD, a[0], a[1], 0, nr == 425)),
        68 | 426 => R(stat_path(
            p,
            host,
            AT_FDCWD,
            a[0],
            a[1],
            AT_SYMLINK_NOFOLLOW,
            nr == 426,
        )),
        91 | 427 => R(fstat(p, host, a[0], a[1], nr == 427)),
        455 => R(stat_path(p, host, a[0], a[1], a[2], a[3], true)),
        71 => R(mmap(p, a)),
        73 => R({
            let r = p.aspace.munmap(&mut p.machine.mem, a[0], a[1]);
            if r.is_ok() {
                p.note_unmap(a[0], a[1]);
            }
            r
        }),
        74 => {
            let r = p.aspace.mprotect(&mut p.machine.mem, a[0], a[1], a[2]);
            R(r)
        }
        75 => R(Ok(0)),
        341 => R(p.aspace.mremap(&mut p.machine.mem, a[0], a[1], a[2], a[3])),
        92 => R(fcntl(p, host, a[0], a[1], a[2])),
        103 => sigreturn(p, c, a[0], false),
        351 => sigreturn(p, c, a[0], true),
        116 | 359 => R(time::gettimeofday(p, a[0], a[1])),
        323 => R(time::times(p, a[0])),
        364 => R(time::getrusage(p, a[0], a[1])),
        361 => R(time::getitimer(p, a[0], a[1])),
        362 => R(time::setitimer(p, a[0], a[1], a[2])),
        414 => R(time::timer_create(p, a[0], a[1], a[2])),
        415 => R(time::timer_settime(p, a[0], a[1], a[2], a[3])),
        416 => R(time::timer_gettime(p, a[0], a[1])),
        417 => R(time::timer_getoverrun(p, a[0])),
        418 => R(time::timer_delete(p, a[0])),
        120 => io(readv_writev(p, host, a[0], a[1], a[2], false), a[0], true),
        121 => io(readv_writev(p, host, a[0], a[1], a[2], true), a[0], false),
        128 => R(rename(p, AT_FDCWD, a[0], AT_FDCWD, a[1])),
        457 => R(rename(p, a[0], a[1], a[2], a[3])),
        136 => R(path_op(p, AT_FDCWD, a[0], |h| std::fs::create_dir(h))),
        451 => R(path_op(p, a[0], a[1], |h| std::fs::create_dir(h))),
        137 => R(path_op(p, AT_FDCWD, a[0], |h| std::fs::remove_dir(h))),
        456 => {
            if a[2] & AT_REMOVEDIR != 0 {
                R(path_op(p, a[0], a[1], |h| std::fs::remove_dir(h)))
            } else {
                R(path_op(p, a[0], a[1], |h| std::fs::remove_file(h)))
            }
        }
        144 => R(prlimit(p, a[0], 0, a[1])),
        496 => R(prlimit(p, a[1], a[2], a[3])),
        235 => R(sigaltstack(p, a[0], a[1])),
        256 => R(osf_getsysinfo(p, c, a[0], a[1], a[2])),
        257 => R(osf_setsysinfo(p, c, a[0], a[1], a[2])),
        312 => super::thread::clone(p, c, a),
        334 => {
            p.yield_now = true;
            R(Ok(0))
        }
        340 => time::sleep(p, time::CLOCK_MONOTONIC, 0, a[0], a[1]),
        422 => time::sleep(p, a[0], a[1], a[2], a[3]),
        339 => R(uname(p, a[0])),
        348 => R(Err(EINVAL)),
        349 => R(pread(p, a[0], a[1], a[2], a[3])),
        352 => R(rt_sigaction(p, a[0], a[1], a[2], a[3], a[4])),
        353 => R(rt_sigprocmask(p, a[0], a[1], a[2], a[3])),
        354 => R(rt_sigpending(p, a[0])),
        357 => rt_sigsuspend(p, a[0], a[1]),
        367 => R(getcwd(p, a[0], a[1])),
        377 => R(getdents64(p, a[0], a[1], a[2])),
        378 => R(Ok(p.threads[p.cur].tid as u64)),
        394 => super::thread::futex(p, a),
        411 => {
            p.threads[p.cur].clear_child_tid = a[0];
            R(Ok(p.threads[p.cur].tid as u64))
        }
        420 => R(time::clock_gettime(p, a[0], a[1])),
        421 => R(time::clock_getres(p, a[0], a[1])),
        466 => R(Err(ENOSYS)),
        511 => R(getrandom(p, a[0], a[1])),
        522 | 527 => R(Err(ENOSYS)),
        _ => R(Err(ENOSYS)),
    }
}

// ------------------------------------------------------------ poll/select

const POLLIN: i16 = 0x1;
const POLLOUT: i16 = 0x4;
const POLLERR: i16 = 0x8;
const POLLHUP: i16 = 0x10;
const POLLNVAL: i16 = 0x20;

/// A wait's timeout: `None` forever, `Some(ns)` (0: do not wait).
type Timeout = Option<u64>;

fn ms_timeout(ms: i32) -> Timeout {
    (ms >= 0).then(|| ms as u64 * 1_000_000)
}

/// A `struct timespec *` timeout (NULL: forever).
fn timespec_timeout(p: &Process, ts: u64) -> Result<Timeout, u64> {
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
fn timeval_timeout(p: &Process, tv: u64) -> Result<Timeout, u64> {
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
fn fd_revents(p: &Process, host: &dyn Host, fd: i32, events: i16) -> i16 {
    if fd < 0 {
        return 0;
    }
    let Ok(f) = p.fds.get(fd as u64) else {
        return POLLNVAL;
    };
    let o = f.obj.borrow();
    if let Object::Epoll(ep) = &*o {
        let r = if super::epoll::ready(p, host, ep) {
            POLLIN
        } else {
            0
        };
        return r & events;
    }
    object_revents(host, &o, p.clock_ns(), events)
}

/// The `revents` of open object `o` for `events` at guest time `now`
/// (an epoll instance: see [`super::epoll::ready`]).
pub(super) fn object_revents(host: &dyn Host, o: &Object, now: u64, events: i16) -> i16 {
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
fn wait_or_return(
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
            waits.push(super::Wait::Readable(fd as u64));
        }
        if ev & POLLOUT != 0 {
            waits.push(super::Wait::Writable(fd as u64));
        }
    }
    waits.extend(at.map(super::Wait::Deadline));
    Some(Outcome::Block(waits))
}

/// `poll(fds, nfds, timeout)` and `ppoll` (its mask: [`with_wait_mask`]).
fn poll(p: &mut Process, host: &dyn Host, addr: u64, nfds: u64, timeout: Timeout) -> Outcome {
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
fn pselect_mask(p: &Process, at: u64) -> Result<(u64, u64), u64> {
    if at == 0 {
        return Ok((0, 0));
    }
    Ok((read_u64(p, at)?, read_u64(p, at + 8)?))
}

/// `select`/`pselect6(nfds, readfds, writefds, exceptfds, timeout, …)`:
/// fd_sets are arrays of 64-bit words (Alpha's `long`); the sets are
/// rewritten to the ready descriptors (pselect6's mask: [`with_wait_mask`]).
fn select(p: &mut Process, host: &dyn Host, a: [u64; 6], timeout: Timeout) -> Outcome {
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

fn exit_thread(p: &mut Process, status: u8) -> Outcome {
    if p.live_threads() <= 1 {
        return Outcome::Exit(status);
    }
    super::thread::thread_exit(p, p.cur, status);
    Outcome::NoResult
}

// ------------------------------------------------------------------ files

/// The host path for a guest `(dirfd, path)`.
fn at_path(p: &Process, dirfd: u64, path: u64) -> Result<std::path::PathBuf, u64> {
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

fn path_op(
    p: &mut Process,
    dirfd: u64,
    path: u64,
    f: impl FnOnce(&std::path::Path) -> std::io::Result<()>,
) -> Result<u64, u64> {
    let h = at_path(p, dirfd, path)?;
    f(&h).map(|_| 0).map_err(|e| fs::host_errno(&e))
}

fn chdir(p: &mut Process, path: u64) -> Result<u64, u64> {
    let h = at_path(p, AT_FDCWD, path)?;
    let m = std::fs::metadata(&h).map_err(|e| fs::host_errno(&e))?;
    if !m.is_dir() {
        return Err(ENOTDIR);
    }
    p.cwd = h;
    Ok(0)
}

fn rename(p: &mut Process, d1: u64, p1: u64, d2: u64, p2: u64) -> Result<u64, u64> {
    let a = at_path(p, d1, p1)?;
    let b = at_path(p, d2, p2)?;
    std::fs::rename(a, b)
        .map(|_| 0)
        .map_err(|e| fs::host_errno(&e))
}

/// The guest's `/proc` path named by (`dirfd`, `path`), if it names one
/// (see [`super::procfs`]).
fn proc_path(p: &Process, dirfd: u64, path: u64) -> Result<Option<Vec<u8>>, u64> {
    let s = read_cstr(p, path)?;
    if dirfd != AT_FDCWD && s.first() != Some(&b'/') {
        return Ok(None);
    }
    Ok(procfs::guest_proc_path(p, &s))
}

fn access(p: &mut Process, dirfd: u64, path: u64, _mode: u64) -> Result<u64, u64> {
    if let Some(g) = proc_path(p, dirfd, path)? {
        return procfs::resolve(p, &g).map(|_| 0);
    }
    let h = at_path(p, dirfd, path)?;
    std::fs::metadata(&h)
        .map(|_| 0)
        .map_err(|e| fs::host_errno(&e))
}

fn openat(p: &mut Process, dirfd: u64, path: u64, flags: u64, mode: u64) -> Result<u64, u64> {
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
fn copy_from_guest(
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

fn write(p: &mut Process, host: &mut dyn Host, fd: u64, buf: u64, len: u64) -> Result<u64, u64> {
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
                Object::Host(h) => super::net::host_write(h, bytes),
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
fn read_host(p: &mut Process, host: &mut dyn Host, fd: u64, len: usize) -> Result<Vec<u8>, u64> {
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
        Object::Host(h) => match super::net::host_read(h, &mut buf) {
            Err(EAGAIN) if !nonblock => return Err(MUST_WAIT),
            r => r?,
        },
        Object::TimerFd(t) => match super::epoll::timerfd_read(t, p.clock_ns(), len)? {
            Some(b) => return Ok(b),
            None => return Err(if nonblock { EAGAIN } else { MUST_WAIT }),
        },
        Object::Epoll(_) => return Err(EINVAL),
    };
    buf.truncate(n);
    Ok(buf)
}

fn read(p: &mut Process, host: &mut dyn Host, fd: u64, buf: u64, len: u64) -> Result<u64, u64> {
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

fn readv_writev(
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

fn pread(p: &mut Process, fd: u64, buf: u64, len: u64, off: u64) -> Result<u64, u64> {
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

fn lseek(p: &mut Process, host: &dyn Host, fd: u64, off: i64, whence: u64) -> Result<u64, u64> {
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

fn dup(p: &mut Process, fd: u64, min: u64, cloexec: bool) -> Result<u64, u64> {
    let nfd = p.fds.dup_of(fd, cloexec)?;
    p.fds.install(nfd, min as usize)
}

fn dup2(p: &mut Process, old: u64, new: u64, flags: u64) -> Result<u64, u64> {
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
fn pipe_alpha(p: &mut Process, c: usize) -> Outcome {
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

fn pipe2(p: &mut Process, fds: u64, flags: u64) -> Result<u64, u64> {
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

fn fcntl(p: &mut Process, host: &dyn Host, fd: u64, cmd: u64, arg: u64) -> Result<u64, u64> {
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

fn ioctl(p: &mut Process, fd: u64, req: u64, arg: u64) -> Result<u64, u64> {
    if let Some(r) = super::net::ioctl(p, fd, req, arg) {
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

fn readlink(p: &mut Process, dirfd: u64, path: u64, buf: u64, len: u64) -> Result<u64, u64> {
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

fn fd_stat(p: &Process, host: &dyn Host, fd: u64, wide: bool) -> Result<Vec<u8>, u64> {
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

fn fstat(p: &mut Process, host: &dyn Host, fd: u64, buf: u64, wide: bool) -> Result<u64, u64> {
    let b = fd_stat(p, host, fd, wide)?;
    put(p, buf, &b).map(|_| 0)
}

fn stat_path(
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

fn getdents64(p: &mut Process, fd: u64, buf: u64, len: u64) -> Result<u64, u64> {
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

fn getcwd(p: &mut Process, buf: u64, len: u64) -> Result<u64, u64> {
    use std::os::unix::ffi::OsStrExt;
    let mut b = p.cwd.as_os_str().as_bytes().to_vec();
    b.push(0);
    if b.len() as u64 > len {
        return Err(ERANGE);
    }
    put(p, buf, &b)?;
    Ok(b.len() as u64)
}

// ----------------------------------------------------------------- memory

fn mmap(p: &mut Process, a: [u64; 6]) -> Result<u64, u64> {
    let (addr, len, prot, flags, fd, off) = (a[0], a[1], a[2], a[3], a[4], a[5]);
    let mut backing = None;
    let contents = if flags & super::mm::MAP_ANONYMOUS == 0 {
        if off & (PAGE_SIZE - 1) != 0 {
            return Err(EINVAL);
        }
        if len > 1 << 32 {
            return Err(ENOMEM);
        }
        let obj = p.fds.get(fd)?.obj.clone();
        let o = obj.borrow();
        let Object::File { file, path } = &*o else {
            return Err(if matches!(&*o, Object::Dir { .. }) {
                ENODEV_
            } else {
                EACCES
            });
        };
        use std::os::unix::fs::FileExt;
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        let want = len.min(size.saturating_sub(off)) as usize;
        let mut b = vec![0u8; want];
        let mut got = 0;
        while got < want {
            match file.read_at(&mut b[got..], off + got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) => return Err(fs::host_errno(&e)),
            }
        }
        b.truncate(got);
        backing = Some((path.clone(), file.metadata().ok()));
        Some(b)
    } else {
        None
    };
    let at = p.aspace.mmap(
        &mut p.machine.mem,
        addr,
        len,
        prot,
        flags,
        contents.as_deref(),
    )?;
    let Some((path, meta)) = backing else {
        return Ok(at);
    };
    let end = at.saturating_add(super::mm::page_up(len).unwrap_or(len));
    // The kernel names the file it maps, symbolic links resolved.
    let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
    let name = real.to_string_lossy();
    p.aspace
        .note_file(at, super::mm::FileMap::of(meta.as_ref(), &name, end, off));
    // A file mapped executable is code a diagnostic may need to name
    // (the libraries ld.so maps).
    if prot & super::mm::PROT_EXEC != 0 {
        p.note_mapping(crate::symbols::LoadedObject {
            path,
            start: at,
            end: at.saturating_add(len),
            file_offset: off,
            bias: None,
        });
    }
    Ok(at)
}

const ENODEV_: u64 = 19;

// ------------------------------------------------------------- process

/// `umask(mask)`: the old mask; the new one also governs the host
/// process, which creates the guest's files.
fn umask(p: &mut Process, mask: u64) -> u64 {
    let old = p.id.umask;
    p.id.umask = (mask & 0o777) as u32;
    // SAFETY: umask has no preconditions.
    unsafe { libc::umask(p.id.umask as libc::mode_t) };
    old as u64
}

/// `getresuid`/`getresgid`: real, effective, saved (= effective) ids.
fn put_ids(p: &mut Process, at: [u64; 3], ids: [u32; 3]) -> Result<u64, u64> {
    for (a, v) in at.into_iter().zip(ids) {
        put(p, a, &v.to_le_bytes())?;
    }
    Ok(0)
}

/// `getgroups(size, list)`: the host process's supplementary groups
/// (none under `--deterministic`).
fn getgroups(p: &mut Process, size: u64, list: u64) -> Result<u64, u64> {
    let groups: Vec<u32> = if p.deterministic {
        Vec::new()
    } else {
        let mut g = vec![0 as libc::gid_t; 65536];
        // SAFETY: `g` has room for the count passed.
        let n = unsafe { libc::getgroups(g.len() as i32, g.as_mut_ptr()) };
        g.truncate(n.max(0) as usize);
        g
    };
    if (size as i64) < 0 {
        return Err(EINVAL);
    }
    if size == 0 {
        return Ok(groups.len() as u64);
    }
    if (size as usize) < groups.len() {
        return Err(EINVAL);
    }
    let bytes: Vec<u8> = groups.iter().flat_map(|g| g.to_le_bytes()).collect();
    put(p, list, &bytes)?;
    Ok(groups.len() as u64)
}

/// `fsync`/`fdatasync(fd)`: the host file's, EINVAL for pipes and streams
/// that cannot be synced, as Linux answers.
fn fsync(p: &mut Process, host: &dyn Host, fd: u64) -> Result<u64, u64> {
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

/// The process group (or with `sid` the session) id.
fn uname(p: &mut Process, buf: u64) -> Result<u64, u64> {
    // struct new_utsname: six 65-byte fields.
    let fields = [
        "Linux",
        "subword",
        "6.1.0",
        "#1 SMP subword",
        "alpha",
        "(none)",
    ];
    let mut b = vec![0u8; 65 * 6];
    for (i, f) in fields.iter().enumerate() {
        b[65 * i..65 * i + f.len()].copy_from_slice(f.as_bytes());
    }
    put(p, buf, &b).map(|_| 0)
}

fn prlimit(p: &mut Process, res: u64, new: u64, old: u64) -> Result<u64, u64> {
    let _ = new;
    if old != 0 {
        // RLIMIT_STACK (3): 8 MiB soft, unlimited hard; RLIMIT_NOFILE (6
        // on Alpha): 1024; everything else unlimited.
        let (soft, hard) = match res {
            3 => (8 << 20, u64::MAX),
            6 => (fs::MAX_FDS as u64, fs::MAX_FDS as u64),
            _ => (u64::MAX, u64::MAX),
        };
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&u64::to_le_bytes(soft));
        b[8..].copy_from_slice(&u64::to_le_bytes(hard));
        put(p, old, &b)?;
    }
    Ok(0)
}

fn getrandom(p: &mut Process, buf: u64, len: u64) -> Result<u64, u64> {
    // Deterministic bytes (xorshift from a fixed seed): reproducible runs.
    let n = len.min(1 << 20) as usize;
    let mut b = vec![0u8; n];
    let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ p.insns;
    for v in b.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *v = x as u8;
    }
    put(p, buf, &b)?;
    Ok(n as u64)
}

// ---------------------------------------------------------------- signals

fn kill(p: &mut Process, target: i64, sig: u64, thread: bool) -> Result<u64, u64> {
    if sig > signal::NSIG as u64 {
        return Err(EINVAL);
    }
    let own_group = target == 0 && p.procs.tree;
    if !thread && target == -1 {
        return super::process::kill_all(p, sig);
    }
    if !thread && (own_group || (target != p.id.pid as i64 && target != 0)) {
        return super::process::kill_other(target, sig);
    }
    let ok = if thread {
        p.threads
            .iter()
            .any(|t| t.tid as i64 == target && !t.exited())
    } else {
        target == p.id.pid as i64 || target == 0
    };
    if !ok {
        return Err(ESRCH);
    }
    if sig == 0 {
        return Ok(0);
    }
    p.send(Info {
        signo: sig as u8,
        code: if thread {
            signal::SI_TKILL
        } else {
            signal::SI_USER
        },
        pid: p.id.pid,
        uid: p.id.uid,
        is_kill: true,
        addr: 0,
        target: if thread { target as u32 } else { 0 },
        ..Default::default()
    });
    Ok(0)
}

fn rt_sigaction(
    p: &mut Process,
    sig: u64,
    act: u64,
    oact: u64,
    size: u64,
    restorer: u64,
) -> Result<u64, u64> {
    if size != 8 {
        return Err(EINVAL);
    }
    if sig == 0 || sig > signal::NSIG as u64 {
        return Err(EINVAL);
    }
    let new = if act != 0 {
        // Kernel struct sigaction on Alpha: handler, flags (8), mask (8).
        let h = read_u64(p, act)?;
        let f = read_u64(p, act.wrapping_add(8))?;
        let m = read_u64(p, act.wrapping_add(16))?;
        if sig as u8 == signal::SIGKILL || sig as u8 == signal::SIGSTOP {
            return Err(EINVAL);
        }
        Some(signal::Action {
            handler: h,
            flags: f,
            mask: m,
            restorer,
        })
    } else {
        None
    };
    let old = p.signals.actions[sig as usize];
    if oact != 0 {
        let mut b = [0u8; 24];
        b[..8].copy_from_slice(&old.handler.to_le_bytes());
        b[8..16].copy_from_slice(&old.flags.to_le_bytes());
        b[16..].copy_from_slice(&old.mask.to_le_bytes());
        put(p, oact, &b)?;
    }
    if let Some(n) = new {
        p.signals.actions[sig as usize] = n;
        if n.handler == signal::SIG_IGN
            || (n.handler == signal::SIG_DFL && signal::default_ignored(sig as u8))
        {
            p.signals.pending.retain(|i| i.signo as u64 != sig);
        }
        super::process::sync_host_action(p, sig as u8);
    }
    Ok(0)
}

const UNBLOCKABLE: u64 = (1 << 8) | (1 << 16); // SIGKILL (9), SIGSTOP (17)

fn apply_mask(p: &mut Process, how: u64, set: u64) -> Result<u64, u64> {
    let t = p.cur;
    let old = p.threads[t].sigmask;
    let new = match how {
        1 => old | set,
        2 => old & !set,
        3 => set,
        _ => return Err(EINVAL),
    };
    p.threads[t].sigmask = new & !UNBLOCKABLE;
    Ok(old)
}

fn rt_sigprocmask(p: &mut Process, how: u64, set: u64, oset: u64, size: u64) -> Result<u64, u64> {
    if size != 8 {
        return Err(EINVAL);
    }
    let old = p.threads[p.cur].sigmask;
    if set != 0 {
        let s = read_u64(p, set)?;
        apply_mask(p, how, s)?;
    }
    if oset != 0 {
        put(p, oset, &old.to_le_bytes())?;
    }
    Ok(0)
}

fn osf_sigprocmask(p: &mut Process, how: u64, set: u64) -> Result<u64, u64> {
    apply_mask(p, how, set)
}

/// `rt_sigsuspend(mask)`: wait with `mask` until a signal is delivered,
/// then return EINTR; the handler's frame records the caller's own mask.
fn rt_sigsuspend(p: &mut Process, set: u64, size: u64) -> Outcome {
    if size != 8 {
        return Outcome::Return(Err(EINVAL));
    }
    let new = match read_u64(p, set) {
        Ok(v) => v & !UNBLOCKABLE,
        Err(e) => return Outcome::Return(Err(e)),
    };
    if deliverable(p, new) {
        let t = p.cur;
        p.threads[t].saved_mask = Some(p.threads[t].sigmask);
        p.threads[t].sigmask = new;
        return Outcome::Return(Err(EINTR));
    }
    // Wait with the new mask (the kernel's saved_sigmask keeps the old one
    // for the handler's frame): blocked with nothing to poll, only a
    // signal this mask lets through wakes the thread (`Process::send`),
    // and the call then fails EINTR — it is never restarted. If no thread
    // can ever send one, the scheduler reports the deadlock.
    let t = p.cur;
    p.threads[t].saved_mask = Some(p.threads[t].sigmask);
    p.threads[t].sigmask = new;
    Outcome::Block(Vec::new())
}

/// Whether a pending signal the running thread could take under `mask`
/// exists.
fn deliverable(p: &Process, mask: u64) -> bool {
    let me = p.threads[p.cur].tid;
    p.signals.pending.iter().any(|i| {
        (i.target == 0 || i.target == me)
            && (i.signo == signal::SIGKILL || mask & signal::bit(i.signo) == 0)
    })
}

/// A wait with a temporary signal mask (`ppoll`, `pselect6`,
/// `epoll_pwait`, `epoll_pwait2`; `mask` is the guest's `sigset_t *`, 0
/// for none): the mask is in force while `wait` runs and while the thread
/// is blocked in it, with the caller's own mask kept as the kernel's
/// saved_sigmask. The wait ends with EINTR when nothing is ready and a
/// signal the temporary mask lets through is pending; the handler then
/// runs with the temporary mask and its frame restores the caller's. Any
/// other result restores the caller's mask at once, leaving such a signal
/// pending (Linux's `restore_saved_sigmask_unless(ret == -ERESTARTNOHAND)`).
pub(super) fn with_wait_mask(
    p: &mut Process,
    mask: u64,
    size: u64,
    wait: impl FnOnce(&mut Process) -> Outcome,
) -> Outcome {
    if mask == 0 {
        return wait(p);
    }
    if size != 8 {
        return Outcome::Return(Err(EINVAL));
    }
    let temp = match read_u64(p, mask) {
        Ok(v) => v & !UNBLOCKABLE,
        Err(e) => return Outcome::Return(Err(e)),
    };
    let t = p.cur;
    let th = &mut p.threads[t];
    let own = *th.saved_mask.get_or_insert(th.sigmask);
    p.threads[t].sigmask = temp;
    let out = wait(p);
    let interrupted = match out {
        Outcome::Block(_) | Outcome::Return(Ok(0)) => deliverable(p, temp),
        Outcome::Return(Err(e)) => e == EINTR,
        _ => false,
    };
    if interrupted {
        p.threads[t].timeout_at = None;
        return Outcome::Return(Err(EINTR));
    }
    if !matches!(out, Outcome::Block(_)) {
        p.threads[t].saved_mask = None;
        p.threads[t].sigmask = own;
    }
    out
}

fn rt_sigpending(p: &mut Process, set: u64) -> Result<u64, u64> {
    let mut bits = 0u64;
    let me = p.threads[p.cur].tid;
    for i in p
        .signals
        .pending
        .iter()
        .filter(|i| i.target == 0 || i.target == me)
    {
        bits |= signal::bit(i.signo);
    }
    bits &= p.threads[p.cur].sigmask;
    put(p, set, &bits.to_le_bytes()).map(|_| 0)
}

fn sigaltstack(p: &mut Process, ss: u64, oss: u64) -> Result<u64, u64> {
    let t = p.cur;
    let cur = p.threads[t].altstack;
    let sp = p.machine.cpus[p.threads[t].cpu].r[30];
    let on = cur.flags & signal::SS_DISABLE == 0 && sp > cur.sp && sp - cur.sp <= cur.size;
    if oss != 0 {
        let mut b = [0u8; 24];
        b[..8].copy_from_slice(&cur.sp.to_le_bytes());
        let fl = if on {
            signal::SS_ONSTACK
        } else {
            cur.flags & signal::SS_DISABLE
        };
        b[8..12].copy_from_slice(&(fl as u32).to_le_bytes());
        b[16..].copy_from_slice(&cur.size.to_le_bytes());
        put(p, oss, &b)?;
    }
    if ss != 0 {
        if on {
            return Err(EPERM);
        }
        let sp = read_u64(p, ss)?;
        let flags = read_u32(p, ss.wrapping_add(8))? as u64;
        let size = read_u64(p, ss.wrapping_add(16))?;
        if flags & !(signal::SS_DISABLE | signal::SS_ONSTACK) != 0 {
            return Err(EINVAL);
        }
        if flags & signal::SS_DISABLE != 0 {
            p.threads[t].altstack = signal::AltStack {
                sp: 0,
                flags: signal::SS_DISABLE,
                size: 0,
            };
        } else {
            if size < 4096 {
                return Err(ENOMEM);
            }
            p.threads[t].altstack = signal::AltStack { sp, flags: 0, size };
        }
    }
    Ok(0)
}

fn sigreturn(p: &mut Process, c: usize, frame: u64, rt: bool) -> Outcome {
    let r = if rt {
        signal::rt_sigreturn(&p.machine.mem, &mut p.machine.cpus[c], frame)
    } else {
        signal::restore_sigcontext(&p.machine.mem, &mut p.machine.cpus[c], frame)
    };
    match r {
        Ok(mask) => {
            p.threads[p.cur].sigmask = mask & !UNBLOCKABLE;
            Outcome::NoResult
        }
        Err(signal::FrameFault) => {
            // do_sigreturn's give_sigsegv: force_sig(SIGSEGV).
            p.send(Info {
                signo: signal::SIGSEGV,
                code: 0x80, // SI_KERNEL
                ..Default::default()
            });
            Outcome::NoResult
        }
    }
}

// -------------------------------------------------------------- OSF calls

const GSI_IEEE_FP_CONTROL: u64 = 45;
const GSI_UACPROC: u64 = 8;
const SSI_NVPAIRS: u64 = 1;
const SSI_IEEE_FP_CONTROL: u64 = 14;
const SSI_IEEE_RAISE_EXCEPTION: u64 = 1001;
const SSIN_UACPROC: u64 = 6;

fn osf_getsysinfo(p: &mut Process, c: usize, op: u64, buf: u64, _n: u64) -> Result<u64, u64> {
    match op {
        GSI_IEEE_FP_CONTROL => {
            let cpu = &p.machine.cpus[c];
            let w = cpu.ieee_ctl | crate::fp::fpcr::swcr_status_from_fpcr(cpu.fpcr);
            put(p, buf, &w.to_le_bytes()).map(|_| 0)
        }
        GSI_UACPROC => {
            let w = p.threads[p.cur].uac;
            put(p, buf, &(w as u32).to_le_bytes()).map(|_| 1)
        }
        _ => Err(EOPNOTSUPP),
    }
}

fn osf_setsysinfo(p: &mut Process, c: usize, op: u64, buf: u64, n: u64) -> Result<u64, u64> {
    match op {
        SSI_IEEE_FP_CONTROL => {
            use crate::fp::fpcr;
            let swcr = read_u64(p, buf)?;
            let cpu = &mut p.machine.cpus[c];
            cpu.ieee_ctl = swcr
                & (fpcr::IEEE_TRAP_ENABLE_MASK
                    | fpcr::IEEE_STATUS_MASK
                    | fpcr::IEEE_MAP_DMZ
                    | fpcr::IEEE_MAP_UMZ);
            cpu.fpcr = (cpu.fpcr & fpcr::FPCR_DYN_MASK) | fpcr::fpcr_from_swcr(cpu.ieee_ctl);
            Ok(0)
        }
        SSI_IEEE_RAISE_EXCEPTION => {
            // arch/alpha/kernel/osf_sys.c: the status bits join ieee_state
            // and the FPCR; those whose trap is enabled (status >> 16 =
            // enable bit) send SIGFPE with the kernel's si_code choice
            // (the last matching test wins, INV over DZE over OVF …).
            // glibc's feraiseexcept is this call.
            use crate::fp::fpcr;
            let exc = read_u64(p, buf)? & fpcr::IEEE_STATUS_MASK;
            let cpu = &mut p.machine.cpus[c];
            let swcr = cpu.ieee_ctl | exc;
            cpu.ieee_ctl = swcr;
            cpu.fpcr |= fpcr::fpcr_from_swcr(swcr);
            let fex = (exc >> 16) & swcr;
            if fex != 0 {
                let mut code = signal::FPE_FLTUNK;
                for (bit, c) in [
                    (fpcr::IEEE_TRAP_ENABLE_DNO, signal::FPE_FLTUND),
                    (fpcr::IEEE_TRAP_ENABLE_INE, signal::FPE_FLTRES),
                    (fpcr::IEEE_TRAP_ENABLE_UNF, signal::FPE_FLTUND),
                    (fpcr::IEEE_TRAP_ENABLE_OVF, signal::FPE_FLTOVF),
                    (fpcr::IEEE_TRAP_ENABLE_DZE, signal::FPE_FLTDIV),
                    (fpcr::IEEE_TRAP_ENABLE_INV, signal::FPE_FLTINV),
                ] {
                    if fex & bit != 0 {
                        code = c;
                    }
                }
                let tid = p.threads[p.cur].tid;
                p.send(Info {
                    signo: super::SIGFPE,
                    code,
                    target: tid,
                    ..Default::default()
                });
            }
            Ok(0)
        }
        SSI_NVPAIRS => {
            for i in 0..n.min(64) {
                let name = read_u32(p, buf.wrapping_add(8 * i))? as u64;
                let val = read_u32(p, buf.wrapping_add(8 * i + 4))? as u64;
                match name {
                    SSIN_UACPROC => {
                        p.threads[p.cur].uac =
                            val & (super::UAC_NOPRINT | super::UAC_NOFIX | super::UAC_SIGBUS);
                    }
                    _ => return Err(EOPNOTSUPP),
                }
            }
            Ok(0)
        }
        _ => Err(EOPNOTSUPP),
    }
}

pub(super) fn mem_u32(p: &Process, addr: u64) -> Result<u32, u64> {
    read_u32(p, addr)
}

pub(super) fn put_u32(p: &mut Process, addr: u64, v: u32) -> Result<(), u64> {
    put(p, addr, &v.to_le_bytes())
}
