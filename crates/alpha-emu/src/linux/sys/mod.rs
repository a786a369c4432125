//! The one Alpha Linux system-call table: a row per call of the kernel's
//! `arch/alpha/kernel/syscalls/syscall.tbl` (number and name as it spells
//! them, as installed in `asm/unistd_32.h` of `linux-libc-dev-alpha-cross`),
//! with the argument kinds `--strace` prints and the handler that performs
//! it. A row without a handler answers ENOSYS, as a kernel without the call
//! would. `--strace`, `docs/run.md`'s list and the dispatcher all read this
//! table; the handlers live by subject in this module's files (files, fs
//! metadata, memory, process, signals, poll) and in `time`, `net` and
//! `epoll`.
//!
//! Argument kinds: `d` decimal, `x` hex (NULL when 0), `o` octal, `s` a
//! string, `f` a directory fd or AT_FDCWD, `O` open flags, `P` PROT_ bits,
//! `M` MAP_ flags, `C` clone flags, `W` wait options, `S` a signal, `A` a
//! string array, `c` a clock id, `w` an itimer, `T` timer flags, `t` a
//! timespec's contents, and the socket kinds of [`crate::linux::net`].

pub(crate) mod files;
pub(crate) mod fsmeta;
pub(crate) mod memory;
pub(crate) mod poll;
pub(crate) mod process;
pub(crate) mod signals;
pub(crate) mod strace;

use crate::linux::errno::*;
use crate::linux::syscall::Outcome::{self, Return as R};
use crate::linux::{epoll, net, time, Host, Process};
use crate::memory::PAGE_SIZE;
use fsmeta::{AT_FDCWD, AT_SYMLINK_NOFOLLOW};

/// One system call's request: its number, the CPU that made it, and its
/// six argument registers (`a0`-`a5`; `r[i]` is argument `i`).
#[derive(Clone, Copy, Debug)]
pub struct Req {
    pub nr: u64,
    pub cpu: usize,
    pub a: [u64; 6],
}

impl std::ops::Index<usize> for Req {
    type Output = u64;
    fn index(&self, i: usize) -> &u64 {
        &self.a[i]
    }
}

/// Performs one call for the running thread.
pub type Handler = fn(&mut Process, &mut dyn Host, Req) -> Outcome;

/// How `--strace` prints a successful result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ret {
    /// A signed decimal number.
    Dec,
    /// An address, in 16-digit hex (brk, mmap, mremap).
    Addr,
}

/// One system call.
#[derive(Clone, Copy)]
pub struct Call {
    pub nr: u16,
    /// The name in `syscall.tbl`.
    pub name: &'static str,
    /// One kind letter per argument (see the module doc).
    pub args: &'static str,
    pub ret: Ret,
    /// `None`: the call answers ENOSYS.
    pub run: Option<Handler>,
}

const fn call(nr: u16, name: &'static str, args: &'static str, run: Handler) -> Call {
    Call {
        nr,
        name,
        args,
        ret: Ret::Dec,
        run: Some(run),
    }
}

const fn hex(nr: u16, name: &'static str, args: &'static str, run: Handler) -> Call {
    Call {
        nr,
        name,
        args,
        ret: Ret::Addr,
        run: Some(run),
    }
}

const fn enosys(nr: u16, name: &'static str, args: &'static str) -> Call {
    Call {
        nr,
        name,
        args,
        ret: Ret::Dec,
        run: None,
    }
}

/// The call numbered `nr`, if Alpha Linux has one.
pub fn lookup(nr: u64) -> Option<&'static Call> {
    let n = u16::try_from(nr).ok()?;
    TABLE
        .binary_search_by_key(&n, |c| c.nr)
        .ok()
        .map(|i| &TABLE[i])
}

/// Socket and eventfd calls ([`crate::linux::net`]).
fn net(p: &mut Process, _: &mut dyn Host, r: Req) -> Outcome {
    net::dispatch(p, r.nr, r.a).unwrap_or(R(Err(ENOSYS)))
}

/// epoll and timerfd calls ([`crate::linux::epoll`]).
fn epoll(p: &mut Process, h: &mut dyn Host, r: Req) -> Outcome {
    epoll::dispatch(p, h, r.nr, r.a).unwrap_or(R(Err(ENOSYS)))
}

/// Every Alpha Linux system call, ascending by number.
pub const TABLE: &[Call] = &[
    enosys(0, "osf_syscall", "xxx"),
    call(1, "exit", "d", |p, _, r| {
        process::exit_thread(p, r[0] as u8)
    }),
    call(2, "fork", "", |p, _, r| {
        crate::linux::process::fork(p, r.cpu, 0, [0; 6])
    }),
    call(3, "read", "dxd", |p, h, r| {
        files::io(files::read(p, h, r[0], r[1], r[2]), r[0], true)
    }),
    call(4, "write", "dxd", |p, h, r| {
        net::dispatch(p, r.nr, r.a)
            .unwrap_or_else(|| files::io(files::write(p, h, r[0], r[1], r[2]), r[0], false))
    }),
    enosys(5, "osf_old_open", "xxx"),
    call(6, "close", "d", |p, _, r| R(p.fds.close(r[0]).map(|_| 0))),
    call(7, "osf_wait4", "dxWx", |p, _, r| {
        crate::linux::process::wait4(p, r[0] as i64, r[1], r[2], 0)
    }),
    enosys(8, "osf_old_creat", "xxx"),
    enosys(9, "link", "xxx"),
    call(10, "unlink", "s", |p, _, r| {
        R(fsmeta::path_op(p, AT_FDCWD, r[0], |f| {
            std::fs::remove_file(f)
        }))
    }),
    enosys(11, "osf_execve", "xxx"),
    call(12, "chdir", "s", |p, _, r| R(fsmeta::chdir(p, r[0]))),
    enosys(13, "fchdir", "xxx"),
    enosys(14, "mknod", "xxx"),
    enosys(15, "chmod", "xxx"),
    enosys(16, "chown", "xxx"),
    hex(17, "brk", "x", |p, _, r| {
        R(p.aspace.brk(&mut p.machine.mem, r[0]))
    }),
    enosys(18, "osf_getfsstat", "xxx"),
    call(19, "lseek", "ddd", |p, h, r| {
        R(files::lseek(p, h, r[0], r[1] as i64, r[2]))
    }),
    call(20, "getxpid", "", |p, _, r| R(process::getxpid(p, r.cpu))),
    enosys(21, "osf_mount", "xxx"),
    enosys(22, "umount2", "xxx"),
    enosys(23, "setuid", "xxx"),
    call(24, "getxuid", "", |p, _, r| R(process::getxuid(p, r.cpu))),
    enosys(25, "exec_with_loader", "xxx"),
    enosys(26, "ptrace", "xxx"),
    enosys(27, "osf_nrecvmsg", "xxx"),
    enosys(28, "osf_nsendmsg", "xxx"),
    enosys(29, "osf_nrecvfrom", "xxx"),
    enosys(30, "osf_naccept", "xxx"),
    enosys(31, "osf_ngetpeername", "xxx"),
    enosys(32, "osf_ngetsockname", "xxx"),
    call(33, "access", "sd", |p, _, r| {
        R(fsmeta::access(p, AT_FDCWD, r[0], r[1]))
    }),
    enosys(34, "osf_chflags", "xxx"),
    enosys(35, "osf_fchflags", "xxx"),
    call(36, "sync", "", |_, _, _| R(Ok(0))),
    call(37, "kill", "dS", |p, _, r| {
        R(signals::kill(p, r[0] as i64, r[1], false))
    }),
    enosys(38, "osf_old_stat", "xxx"),
    call(39, "setpgid", "dd", |p, _, r| {
        R(crate::linux::process::pgrp_call(p, r.nr, r.a))
    }),
    enosys(40, "osf_old_lstat", "xxx"),
    call(41, "dup", "d", |p, _, r| R(files::dup(p, r[0], 0, false))),
    call(42, "pipe", "", |p, _, r| files::pipe_alpha(p, r.cpu)),
    enosys(43, "osf_set_program_attributes", "xxx"),
    enosys(44, "osf_profil", "xxx"),
    call(45, "open", "sOo", |p, _, r| {
        R(files::openat(p, AT_FDCWD, r[0], r[1], r[2]))
    }),
    enosys(46, "osf_old_sigaction", "xxx"),
    call(47, "getxgid", "", |p, _, r| R(process::getxgid(p, r.cpu))),
    call(48, "osf_sigprocmask", "dx", |p, _, r| {
        R(signals::osf_sigprocmask(p, r[0], r[1]))
    }),
    enosys(49, "osf_getlogin", "xxx"),
    enosys(50, "osf_setlogin", "xxx"),
    enosys(51, "acct", "xxx"),
    enosys(52, "sigpending", "xxx"),
    call(54, "ioctl", "dxx", |p, _, r| {
        R(files::ioctl(p, r[0], r[1], r[2]))
    }),
    enosys(55, "osf_reboot", "xxx"),
    enosys(56, "osf_revoke", "xxx"),
    enosys(57, "symlink", "xxx"),
    call(58, "readlink", "sxd", |p, _, r| {
        R(fsmeta::readlink(p, AT_FDCWD, r[0], r[1], r[2]))
    }),
    call(59, "execve", "sAA", |p, _, r| {
        crate::linux::process::execve(p, r[0], r[1], r[2])
    }),
    call(60, "umask", "o", |p, _, r| R(Ok(process::umask(p, r[0])))),
    enosys(61, "chroot", "xxx"),
    enosys(62, "osf_old_fstat", "xxx"),
    call(63, "getpgrp", "", |p, _, r| {
        R(crate::linux::process::pgrp_call(p, r.nr, r.a))
    }),
    call(64, "getpagesize", "", |_, _, _| R(Ok(PAGE_SIZE))),
    enosys(65, "osf_mremap", "xxx"),
    call(66, "vfork", "", |p, _, r| {
        crate::linux::process::fork(p, r.cpu, crate::linux::process::CLONE_VFORK, [0; 6])
    }),
    call(67, "stat", "sx", |p, h, r| {
        R(fsmeta::stat_path(p, h, AT_FDCWD, r[0], r[1], 0, false))
    }),
    call(68, "lstat", "sx", |p, h, r| {
        R(fsmeta::stat_path(
            p,
            h,
            AT_FDCWD,
            r[0],
            r[1],
            AT_SYMLINK_NOFOLLOW,
            false,
        ))
    }),
    enosys(69, "osf_sbrk", "xxx"),
    enosys(70, "osf_sstk", "xxx"),
    hex(71, "mmap", "xxPMdx", |p, _, r| R(memory::mmap(p, r.a))),
    enosys(72, "osf_old_vadvise", "xxx"),
    call(73, "munmap", "xx", |p, _, r| {
        R(memory::munmap(p, r[0], r[1]))
    }),
    call(74, "mprotect", "xxP", |p, _, r| {
        R(p.aspace.mprotect(&mut p.machine.mem, r[0], r[1], r[2]))
    }),
    call(75, "madvise", "xxd", |_, _, _| R(Ok(0))),
    enosys(76, "vhangup", "xxx"),
    enosys(77, "osf_kmodcall", "xxx"),
    enosys(78, "osf_mincore", "xxx"),
    call(79, "getgroups", "dx", |p, _, r| {
        R(process::getgroups(p, r[0], r[1]))
    }),
    enosys(80, "setgroups", "xxx"),
    enosys(81, "osf_old_getpgrp", "xxx"),
    enosys(82, "setpgrp", "xxx"),
    enosys(83, "osf_setitimer", "xxx"),
    enosys(84, "osf_old_wait", "xxx"),
    enosys(85, "osf_table", "xxx"),
    enosys(86, "osf_getitimer", "xxx"),
    enosys(87, "gethostname", "xxx"),
    enosys(88, "sethostname", "xxx"),
    enosys(89, "getdtablesize", "xxx"),
    call(90, "dup2", "dd", |p, _, r| R(files::dup2(p, r[0], r[1], 0))),
    call(91, "fstat", "dx", |p, h, r| {
        R(fsmeta::fstat(p, h, r[0], r[1], false))
    }),
    call(92, "fcntl", "ddx", |p, h, r| {
        R(files::fcntl(p, h, r[0], r[1], r[2]))
    }),
    enosys(93, "osf_select", "xxx"),
    call(94, "poll", "xdd", |p, h, r| {
        poll::poll(p, h, r[0], r[1], poll::ms_timeout(r[2] as i32))
    }),
    call(95, "fsync", "d", |p, h, r| R(files::fsync(p, h, r[0]))),
    enosys(96, "setpriority", "xxx"),
    call(97, "socket", "DYd", net),
    call(98, "connect", "dAd", net),
    call(99, "accept", "dxx", net),
    enosys(100, "getpriority", "xxx"),
    call(101, "send", "dxdx", net),
    call(102, "recv", "dxdx", net),
    call(103, "sigreturn", "x", |p, _, r| {
        signals::sigreturn(p, r.cpu, r[0], false)
    }),
    call(104, "bind", "dAd", net),
    call(105, "setsockopt", "dLNxd", net),
    call(106, "listen", "dd", net),
    enosys(107, "osf_plock", "xxx"),
    enosys(108, "osf_old_sigvec", "xxx"),
    enosys(109, "osf_old_sigblock", "xxx"),
    enosys(110, "osf_old_sigsetmask", "xxx"),
    enosys(111, "sigsuspend", "xxx"),
    enosys(112, "osf_sigstack", "xxx"),
    call(113, "recvmsg", "dxx", net),
    call(114, "sendmsg", "dxx", net),
    enosys(115, "osf_old_vtrace", "xxx"),
    call(116, "osf_gettimeofday", "xx", |p, _, r| {
        R(time::gettimeofday(p, r[0], r[1]))
    }),
    enosys(117, "osf_getrusage", "xxx"),
    call(118, "getsockopt", "dLNxx", net),
    call(120, "readv", "dxd", |p, h, r| {
        files::io(
            files::readv_writev(p, h, r[0], r[1], r[2], false),
            r[0],
            true,
        )
    }),
    call(121, "writev", "dxd", |p, h, r| {
        net::dispatch(p, r.nr, r.a).unwrap_or_else(|| {
            files::io(
                files::readv_writev(p, h, r[0], r[1], r[2], true),
                r[0],
                false,
            )
        })
    }),
    enosys(122, "osf_settimeofday", "xxx"),
    enosys(123, "fchown", "xxx"),
    enosys(124, "fchmod", "xxx"),
    call(125, "recvfrom", "dxdxxx", net),
    enosys(126, "setreuid", "xxx"),
    enosys(127, "setregid", "xxx"),
    call(128, "rename", "ss", |p, _, r| {
        R(fsmeta::rename(p, AT_FDCWD, r[0], AT_FDCWD, r[1]))
    }),
    enosys(129, "truncate", "xxx"),
    enosys(130, "ftruncate", "xxx"),
    enosys(131, "flock", "xxx"),
    enosys(132, "setgid", "xxx"),
    call(133, "sendto", "dxdxAd", net),
    call(134, "shutdown", "dd", net),
    call(135, "socketpair", "DYdx", net),
    call(136, "mkdir", "so", |p, _, r| {
        R(fsmeta::path_op(p, AT_FDCWD, r[0], |f| {
            std::fs::create_dir(f)
        }))
    }),
    call(137, "rmdir", "s", |p, _, r| {
        R(fsmeta::path_op(p, AT_FDCWD, r[0], |f| {
            std::fs::remove_dir(f)
        }))
    }),
    enosys(138, "osf_utimes", "xxx"),
    enosys(139, "osf_old_sigreturn", "xxx"),
    enosys(140, "osf_adjtime", "xxx"),
    call(141, "getpeername", "dxx", net),
    enosys(142, "osf_gethostid", "xxx"),
    enosys(143, "osf_sethostid", "xxx"),
    call(144, "getrlimit", "dx", |p, _, r| {
        R(process::prlimit(p, r[0], 0, r[1]))
    }),
    enosys(145, "setrlimit", "xxx"),
    enosys(146, "osf_old_killpg", "xxx"),
    call(147, "setsid", "", |p, _, r| {
        R(crate::linux::process::pgrp_call(p, r.nr, r.a))
    }),
    enosys(148, "quotactl", "xxx"),
    enosys(149, "osf_oldquota", "xxx"),
    call(150, "getsockname", "dxx", net),
    enosys(153, "osf_pid_block", "xxx"),
    enosys(154, "osf_pid_unblock", "xxx"),
    enosys(156, "sigaction", "xxx"),
    enosys(157, "osf_sigwaitprim", "xxx"),
    enosys(158, "osf_nfssvc", "xxx"),
    enosys(159, "osf_getdirentries", "xxx"),
    enosys(160, "osf_statfs", "xxx"),
    enosys(161, "osf_fstatfs", "xxx"),
    enosys(163, "osf_asynch_daemon", "xxx"),
    enosys(164, "osf_getfh", "xxx"),
    enosys(165, "osf_getdomainname", "xxx"),
    enosys(166, "setdomainname", "xxx"),
    enosys(169, "osf_exportfs", "xxx"),
    enosys(181, "osf_alt_plock", "xxx"),
    enosys(184, "osf_getmnt", "xxx"),
    enosys(187, "osf_alt_sigpending", "xxx"),
    enosys(188, "osf_alt_setsid", "xxx"),
    enosys(199, "osf_swapon", "xxx"),
    enosys(200, "msgctl", "xxx"),
    enosys(201, "msgget", "xxx"),
    enosys(202, "msgrcv", "xxx"),
    enosys(203, "msgsnd", "xxx"),
    enosys(204, "semctl", "xxx"),
    enosys(205, "semget", "xxx"),
    enosys(206, "semop", "xxx"),
    enosys(207, "osf_utsname", "xxx"),
    enosys(208, "lchown", "xxx"),
    enosys(209, "shmat", "xxx"),
    enosys(210, "shmctl", "xxx"),
    enosys(211, "shmdt", "xxx"),
    enosys(212, "shmget", "xxx"),
    enosys(213, "osf_mvalid", "xxx"),
    enosys(214, "osf_getaddressconf", "xxx"),
    enosys(215, "osf_msleep", "xxx"),
    enosys(216, "osf_mwakeup", "xxx"),
    enosys(217, "msync", "xxx"),
    enosys(218, "osf_signal", "xxx"),
    enosys(219, "osf_utc_gettime", "xxx"),
    enosys(220, "osf_utc_adjtime", "xxx"),
    enosys(222, "osf_security", "xxx"),
    enosys(223, "osf_kloadcall", "xxx"),
    enosys(224, "osf_stat", "xxx"),
    enosys(225, "osf_lstat", "xxx"),
    enosys(226, "osf_fstat", "xxx"),
    enosys(227, "osf_statfs64", "xxx"),
    enosys(228, "osf_fstatfs64", "xxx"),
    call(233, "getpgid", "d", |p, _, r| {
        R(crate::linux::process::pgrp_call(p, r.nr, r.a))
    }),
    call(234, "getsid", "d", |p, _, r| {
        R(crate::linux::process::pgrp_call(p, r.nr, r.a))
    }),
    call(235, "sigaltstack", "xx", |p, _, r| {
        R(signals::sigaltstack(p, r[0], r[1]))
    }),
    enosys(236, "osf_waitid", "xxx"),
    enosys(237, "osf_priocntlset", "xxx"),
    enosys(238, "osf_sigsendset", "xxx"),
    enosys(239, "osf_set_speculative", "xxx"),
    enosys(240, "osf_msfs_syscall", "xxx"),
    enosys(241, "osf_sysinfo", "xxx"),
    enosys(242, "osf_uadmin", "xxx"),
    enosys(243, "osf_fuser", "xxx"),
    enosys(244, "osf_proplist_syscall", "xxx"),
    enosys(245, "osf_ntp_adjtime", "xxx"),
    enosys(246, "osf_ntp_gettime", "xxx"),
    enosys(247, "osf_pathconf", "xxx"),
    enosys(248, "osf_fpathconf", "xxx"),
    enosys(250, "osf_uswitch", "xxx"),
    enosys(251, "osf_usleep_thread", "xxx"),
    enosys(252, "osf_audcntl", "xxx"),
    enosys(253, "osf_audgen", "xxx"),
    enosys(254, "sysfs", "xxx"),
    enosys(255, "osf_subsys_info", "xxx"),
    call(256, "osf_getsysinfo", "dxdxx", |p, _, r| {
        R(process::osf_getsysinfo(p, r.cpu, r[0], r[1], r[2]))
    }),
    call(257, "osf_setsysinfo", "dxdxx", |p, _, r| {
        R(process::osf_setsysinfo(p, r.cpu, r[0], r[1], r[2]))
    }),
    enosys(258, "osf_afs_syscall", "xxx"),
    enosys(259, "osf_swapctl", "xxx"),
    enosys(260, "osf_memcntl", "xxx"),
    enosys(261, "osf_fdatasync", "xxx"),
    enosys(300, "bdflush", "xxx"),
    enosys(301, "sethae", "xxx"),
    enosys(302, "mount", "xxx"),
    enosys(303, "old_adjtimex", "xxx"),
    enosys(304, "swapoff", "xxx"),
    enosys(305, "getdents", "xxx"),
    enosys(306, "create_module", "xxx"),
    enosys(307, "init_module", "xxx"),
    enosys(308, "delete_module", "xxx"),
    enosys(309, "get_kernel_syms", "xxx"),
    enosys(310, "syslog", "xxx"),
    enosys(311, "reboot", "xxx"),
    call(312, "clone", "Cxxxx", |p, _, r| {
        crate::linux::thread::clone(p, r.cpu, r.a)
    }),
    enosys(313, "uselib", "xxx"),
    enosys(314, "mlock", "xxx"),
    enosys(315, "munlock", "xxx"),
    enosys(316, "mlockall", "xxx"),
    enosys(317, "munlockall", "xxx"),
    enosys(318, "sysinfo", "xxx"),
    enosys(319, "_sysctl", "xxx"),
    enosys(321, "oldumount", "xxx"),
    enosys(322, "swapon", "xxx"),
    call(323, "times", "x", |p, _, r| R(time::times(p, r[0]))),
    enosys(324, "personality", "xxx"),
    enosys(325, "setfsuid", "xxx"),
    enosys(326, "setfsgid", "xxx"),
    enosys(327, "ustat", "xxx"),
    enosys(328, "statfs", "xxx"),
    enosys(329, "fstatfs", "xxx"),
    enosys(330, "sched_setparam", "xxx"),
    enosys(331, "sched_getparam", "xxx"),
    enosys(332, "sched_setscheduler", "xxx"),
    enosys(333, "sched_getscheduler", "xxx"),
    call(334, "sched_yield", "", |p, _, _| process::sched_yield(p)),
    enosys(335, "sched_get_priority_max", "xxx"),
    enosys(336, "sched_get_priority_min", "xxx"),
    enosys(337, "sched_rr_get_interval", "xxx"),
    enosys(338, "afs_syscall", "xxx"),
    call(339, "uname", "x", |p, _, r| R(process::uname(p, r[0]))),
    call(340, "nanosleep", "tx", |p, _, r| {
        time::sleep(p, time::CLOCK_MONOTONIC, 0, r[0], r[1])
    }),
    hex(341, "mremap", "xxxx", |p, _, r| {
        R(p.aspace.mremap(&mut p.machine.mem, r[0], r[1], r[2], r[3]))
    }),
    enosys(342, "nfsservctl", "xxx"),
    enosys(343, "setresuid", "xxx"),
    call(344, "getresuid", "xxx", |p, _, r| {
        R(process::put_ids(
            p,
            [r[0], r[1], r[2]],
            [p.id.uid, p.id.euid, p.id.euid],
        ))
    }),
    enosys(345, "pciconfig_read", "xxx"),
    enosys(346, "pciconfig_write", "xxx"),
    enosys(347, "query_module", "xxx"),
    call(348, "prctl", "dxxxx", |_, _, _| R(Err(EINVAL))),
    call(349, "pread64", "dxdd", |p, _, r| {
        R(files::pread(p, r[0], r[1], r[2], r[3]))
    }),
    enosys(350, "pwrite64", "xxx"),
    call(351, "rt_sigreturn", "x", |p, _, r| {
        signals::sigreturn(p, r.cpu, r[0], true)
    }),
    call(352, "rt_sigaction", "dxxdx", |p, _, r| {
        R(signals::rt_sigaction(p, r[0], r[1], r[2], r[3], r[4]))
    }),
    call(353, "rt_sigprocmask", "dxxd", |p, _, r| {
        R(signals::rt_sigprocmask(p, r[0], r[1], r[2], r[3]))
    }),
    call(354, "rt_sigpending", "xd", |p, _, r| {
        R(signals::rt_sigpending(p, r[0]))
    }),
    enosys(355, "rt_sigtimedwait", "xxx"),
    enosys(356, "rt_sigqueueinfo", "xxx"),
    call(357, "rt_sigsuspend", "xd", |p, _, r| {
        signals::rt_sigsuspend(p, r[0], r[1])
    }),
    call(358, "select", "dxxxx", |p, h, r| {
        poll::select_call(p, h, r.a)
    }),
    call(359, "gettimeofday", "xx", |p, _, r| {
        R(time::gettimeofday(p, r[0], r[1]))
    }),
    enosys(360, "settimeofday", "xxx"),
    call(361, "getitimer", "wx", |p, _, r| {
        R(time::getitimer(p, r[0], r[1]))
    }),
    call(362, "setitimer", "wxx", |p, _, r| {
        R(time::setitimer(p, r[0], r[1], r[2]))
    }),
    enosys(363, "utimes", "xxx"),
    call(364, "getrusage", "dx", |p, _, r| {
        R(time::getrusage(p, r[0], r[1]))
    }),
    call(365, "wait4", "dxWx", |p, _, r| {
        crate::linux::process::wait4(p, r[0] as i64, r[1], r[2], r[3])
    }),
    enosys(366, "adjtimex", "xxx"),
    call(367, "getcwd", "xd", |p, _, r| {
        R(fsmeta::getcwd(p, r[0], r[1]))
    }),
    enosys(368, "capget", "xxx"),
    enosys(369, "capset", "xxx"),
    enosys(370, "sendfile", "xxx"),
    enosys(371, "setresgid", "xxx"),
    call(372, "getresgid", "xxx", |p, _, r| {
        R(process::put_ids(
            p,
            [r[0], r[1], r[2]],
            [p.id.gid, p.id.egid, p.id.egid],
        ))
    }),
    enosys(373, "dipc", "xxx"),
    enosys(374, "pivot_root", "xxx"),
    enosys(375, "mincore", "xxx"),
    enosys(376, "pciconfig_iobase", "xxx"),
    call(377, "getdents64", "dxd", |p, _, r| {
        R(fsmeta::getdents64(p, r[0], r[1], r[2]))
    }),
    call(378, "gettid", "", |p, _, _| {
        R(Ok(p.threads[p.cur].tid as u64))
    }),
    enosys(379, "readahead", "xxx"),
    call(381, "tkill", "dS", |p, _, r| {
        R(signals::kill(p, r[0] as i64, r[1], true))
    }),
    enosys(382, "setxattr", "xxx"),
    enosys(383, "lsetxattr", "xxx"),
    enosys(384, "fsetxattr", "xxx"),
    enosys(385, "getxattr", "xxx"),
    enosys(386, "lgetxattr", "xxx"),
    enosys(387, "fgetxattr", "xxx"),
    enosys(388, "listxattr", "xxx"),
    enosys(389, "llistxattr", "xxx"),
    enosys(390, "flistxattr", "xxx"),
    enosys(391, "removexattr", "xxx"),
    enosys(392, "lremovexattr", "xxx"),
    enosys(393, "fremovexattr", "xxx"),
    call(394, "futex", "xdxxxx", |p, _, r| {
        crate::linux::thread::futex(p, r.a)
    }),
    enosys(395, "sched_setaffinity", "xxx"),
    enosys(396, "sched_getaffinity", "xxx"),
    enosys(397, "tuxcall", "xxx"),
    enosys(398, "io_setup", "xxx"),
    enosys(399, "io_destroy", "xxx"),
    enosys(400, "io_getevents", "xxx"),
    enosys(401, "io_submit", "xxx"),
    enosys(402, "io_cancel", "xxx"),
    call(405, "exit_group", "d", |_, _, r| Outcome::Exit(r[0] as u8)),
    enosys(406, "lookup_dcookie", "xxx"),
    call(407, "epoll_create", "d", epoll),
    call(408, "epoll_ctl", "dddx", epoll),
    call(409, "epoll_wait", "dxdd", epoll),
    enosys(410, "remap_file_pages", "xxx"),
    call(411, "set_tid_address", "x", |p, _, r| {
        R(process::set_tid_address(p, r[0]))
    }),
    enosys(412, "restart_syscall", "xxx"),
    enosys(413, "fadvise64", "xxx"),
    call(414, "timer_create", "cxx", |p, _, r| {
        R(time::timer_create(p, r[0], r[1], r[2]))
    }),
    call(415, "timer_settime", "dTxx", |p, _, r| {
        R(time::timer_settime(p, r[0], r[1], r[2], r[3]))
    }),
    call(416, "timer_gettime", "dx", |p, _, r| {
        R(time::timer_gettime(p, r[0], r[1]))
    }),
    call(417, "timer_getoverrun", "d", |p, _, r| {
        R(time::timer_getoverrun(p, r[0]))
    }),
    call(418, "timer_delete", "d", |p, _, r| {
        R(time::timer_delete(p, r[0]))
    }),
    enosys(419, "clock_settime", "xxx"),
    call(420, "clock_gettime", "cx", |p, _, r| {
        R(time::clock_gettime(p, r[0], r[1]))
    }),
    call(421, "clock_getres", "cx", |p, _, r| {
        R(time::clock_getres(p, r[0], r[1]))
    }),
    call(422, "clock_nanosleep", "cTtx", |p, _, r| {
        time::sleep(p, r[0], r[1], r[2], r[3])
    }),
    enosys(423, "semtimedop", "xxx"),
    call(424, "tgkill", "ddS", |p, _, r| {
        R(signals::kill(p, r[1] as i64, r[2], true))
    }),
    call(425, "stat64", "sx", |p, h, r| {
        R(fsmeta::stat_path(p, h, AT_FDCWD, r[0], r[1], 0, true))
    }),
    call(426, "lstat64", "sx", |p, h, r| {
        R(fsmeta::stat_path(
            p,
            h,
            AT_FDCWD,
            r[0],
            r[1],
            AT_SYMLINK_NOFOLLOW,
            true,
        ))
    }),
    call(427, "fstat64", "dx", |p, h, r| {
        R(fsmeta::fstat(p, h, r[0], r[1], true))
    }),
    enosys(428, "vserver", "xxx"),
    enosys(429, "mbind", "xxx"),
    enosys(430, "get_mempolicy", "xxx"),
    enosys(431, "set_mempolicy", "xxx"),
    enosys(432, "mq_open", "xxx"),
    enosys(433, "mq_unlink", "xxx"),
    enosys(434, "mq_timedsend", "xxx"),
    enosys(435, "mq_timedreceive", "xxx"),
    enosys(436, "mq_notify", "xxx"),
    enosys(437, "mq_getsetattr", "xxx"),
    call(438, "waitid", "ddxWx", |p, _, r| {
        crate::linux::process::waitid(p, r[0], r[1], r[2], r[3])
    }),
    enosys(439, "add_key", "xxx"),
    enosys(440, "request_key", "xxx"),
    enosys(441, "keyctl", "xxx"),
    enosys(442, "ioprio_set", "xxx"),
    enosys(443, "ioprio_get", "xxx"),
    enosys(444, "inotify_init", "xxx"),
    enosys(445, "inotify_add_watch", "xxx"),
    enosys(446, "inotify_rm_watch", "xxx"),
    call(447, "fdatasync", "d", |p, h, r| R(files::fsync(p, h, r[0]))),
    enosys(448, "kexec_load", "xxx"),
    enosys(449, "migrate_pages", "xxx"),
    call(450, "openat", "fsOo", |p, _, r| {
        R(files::openat(p, r[0], r[1], r[2], r[3]))
    }),
    call(451, "mkdirat", "fso", |p, _, r| {
        R(fsmeta::path_op(p, r[0], r[1], |f| std::fs::create_dir(f)))
    }),
    enosys(452, "mknodat", "xxx"),
    enosys(453, "fchownat", "xxx"),
    enosys(454, "futimesat", "xxx"),
    call(455, "fstatat64", "fsxx", |p, h, r| {
        R(fsmeta::stat_path(p, h, r[0], r[1], r[2], r[3], true))
    }),
    call(456, "unlinkat", "fsx", |p, _, r| {
        R(fsmeta::unlinkat(p, r[0], r[1], r[2]))
    }),
    call(457, "renameat", "fsfs", |p, _, r| {
        R(fsmeta::rename(p, r[0], r[1], r[2], r[3]))
    }),
    enosys(458, "linkat", "xxx"),
    enosys(459, "symlinkat", "xxx"),
    call(460, "readlinkat", "fsxd", |p, _, r| {
        R(fsmeta::readlink(p, r[0], r[1], r[2], r[3]))
    }),
    enosys(461, "fchmodat", "xxx"),
    call(462, "faccessat", "fsd", |p, _, r| {
        R(fsmeta::access(p, r[0], r[1], r[2]))
    }),
    call(463, "pselect6", "dxxxxx", |p, h, r| {
        poll::pselect6(p, h, r.a)
    }),
    call(464, "ppoll", "xdxxd", |p, h, r| poll::ppoll(p, h, r.a)),
    enosys(465, "unshare", "xxx"),
    enosys(466, "set_robust_list", "xd"),
    enosys(467, "get_robust_list", "xxx"),
    enosys(468, "splice", "xxx"),
    enosys(469, "sync_file_range", "xxx"),
    enosys(470, "tee", "xxx"),
    enosys(471, "vmsplice", "xxx"),
    enosys(472, "move_pages", "xxx"),
    enosys(473, "getcpu", "xxx"),
    call(474, "epoll_pwait", "dxddxd", epoll),
    enosys(475, "utimensat", "xxx"),
    enosys(476, "signalfd", "xxx"),
    enosys(477, "timerfd", "xxx"),
    call(478, "eventfd", "d", net),
    call(479, "recvmmsg", "dxdxx", net),
    enosys(480, "fallocate", "xxx"),
    call(481, "timerfd_create", "cx", epoll),
    call(482, "timerfd_settime", "dTxx", epoll),
    call(483, "timerfd_gettime", "dx", epoll),
    enosys(484, "signalfd4", "xxx"),
    call(485, "eventfd2", "dx", net),
    call(486, "epoll_create1", "x", epoll),
    call(487, "dup3", "ddx", |p, _, r| {
        R(files::dup2(p, r[0], r[1], r[2]))
    }),
    call(488, "pipe2", "xx", |p, _, r| R(files::pipe2(p, r[0], r[1]))),
    enosys(489, "inotify_init1", "xxx"),
    enosys(490, "preadv", "xxx"),
    enosys(491, "pwritev", "xxx"),
    enosys(492, "rt_tgsigqueueinfo", "xxx"),
    enosys(493, "perf_event_open", "xxx"),
    enosys(494, "fanotify_init", "xxx"),
    enosys(495, "fanotify_mark", "xxx"),
    call(496, "prlimit64", "ddxx", |p, _, r| {
        R(process::prlimit(p, r[1], r[2], r[3]))
    }),
    enosys(497, "name_to_handle_at", "xxx"),
    enosys(498, "open_by_handle_at", "xxx"),
    enosys(499, "clock_adjtime", "xxx"),
    enosys(500, "syncfs", "xxx"),
    enosys(501, "setns", "xxx"),
    call(502, "accept4", "dxxx", net),
    call(503, "sendmmsg", "dxdx", net),
    enosys(504, "process_vm_readv", "xxx"),
    enosys(505, "process_vm_writev", "xxx"),
    enosys(506, "kcmp", "xxx"),
    enosys(507, "finit_module", "xxx"),
    enosys(508, "sched_setattr", "xxx"),
    enosys(509, "sched_getattr", "xxx"),
    enosys(510, "renameat2", "xxx"),
    call(511, "getrandom", "xdx", |p, _, r| {
        R(process::getrandom(p, r[0], r[1]))
    }),
    enosys(512, "memfd_create", "xxx"),
    enosys(513, "execveat", "xxx"),
    enosys(514, "seccomp", "xxx"),
    enosys(515, "bpf", "xxx"),
    enosys(516, "userfaultfd", "xxx"),
    enosys(517, "membarrier", "xxx"),
    enosys(518, "mlock2", "xxx"),
    enosys(519, "copy_file_range", "xxx"),
    enosys(520, "preadv2", "xxx"),
    enosys(521, "pwritev2", "xxx"),
    enosys(522, "statx", "fsxxx"),
    enosys(523, "io_pgetevents", "xxx"),
    enosys(524, "pkey_mprotect", "xxx"),
    enosys(525, "pkey_alloc", "xxx"),
    enosys(526, "pkey_free", "xxx"),
    enosys(527, "rseq", "xdxx"),
    enosys(528, "statfs64", "xxx"),
    enosys(529, "fstatfs64", "xxx"),
    call(530, "getegid", "", |p, _, _| R(Ok(p.id.egid as u64))),
    call(531, "geteuid", "", |p, _, _| R(Ok(p.id.euid as u64))),
    call(532, "getppid", "", |p, _, _| {
        R(Ok(crate::linux::process::parent_pid(p) as u64))
    }),
    enosys(534, "pidfd_send_signal", "xxx"),
    enosys(535, "io_uring_setup", "xxx"),
    enosys(536, "io_uring_enter", "xxx"),
    enosys(537, "io_uring_register", "xxx"),
    enosys(538, "open_tree", "xxx"),
    enosys(539, "move_mount", "xxx"),
    enosys(540, "fsopen", "xxx"),
    enosys(541, "fsconfig", "xxx"),
    enosys(542, "fsmount", "xxx"),
    enosys(543, "fspick", "xxx"),
    enosys(544, "pidfd_open", "xxx"),
    enosys(546, "close_range", "xxx"),
    enosys(547, "openat2", "xxx"),
    enosys(548, "pidfd_getfd", "xxx"),
    call(549, "faccessat2", "fsdx", |p, _, r| {
        R(fsmeta::access(p, r[0], r[1], r[2]))
    }),
    enosys(550, "process_madvise", "xxx"),
    call(551, "epoll_pwait2", "dxdxxd", epoll),
    enosys(552, "mount_setattr", "xxx"),
    enosys(553, "quotactl_fd", "xxx"),
    enosys(554, "landlock_create_ruleset", "xxx"),
    enosys(555, "landlock_add_rule", "xxx"),
    enosys(556, "landlock_restrict_self", "xxx"),
    enosys(558, "process_mrelease", "xxx"),
    enosys(559, "futex_waitv", "xxx"),
    enosys(560, "set_mempolicy_home_node", "xxx"),
];
