//! Guest processes as host processes, the way qemu-user runs them: `fork`,
//! `vfork` and `clone` without `CLONE_VM` fork the host process (the child
//! continues its own copy of the [`Process`]: real pids, pipes and
//! descriptors shared through the host's fork); `wait4`/`waitid` are the
//! host's `wait4`/`waitid` with statuses and `siginfo` in Alpha numbering;
//! `kill` of another pid is the host's `kill` with the signal translated;
//! `execve` loads a new Alpha program into the same host process.
//!
//! `clone(CLONE_VM|CLONE_VFORK, stack)` (glibc's `posix_spawn`, hence
//! `system()` and `popen()`) is a fork whose parent waits until the child
//! has called `execve` or ended, as qemu-user does: the child's writes to
//! memory are not seen by the parent, so a `posix_spawn` whose `execve`
//! fails reports success and the child exits 127 (as under qemu-alpha).
//!
//! Once a process has forked (or is a forked child) it belongs to a
//! *process tree*: host signals the guest handles are caught and queued to
//! the guest (a self-pipe wakes the scheduler's host `poll`), SIGCHLD is
//! always caught (to wake a blocked `wait4`; with the host's `SA_NOCLDWAIT`
//! when the guest ignores SIGCHLD or asked for `SA_NOCLDWAIT`, so the host
//! reaps the children and `wait4` ends in ECHILD, as on Linux), and the
//! guest's ignored signals are ignored on the host too. The signal handler can only reach
//! statics, so the pending host signals and the self-pipe are the two
//! process-wide values here; everything else lives in [`Procs`].
//!
//! `--max-processes N` caps the live processes of a tree (the root not
//! counted) with a counter in the shared anonymous mapping every forked
//! child inherits (the tree's [`super::registry`], where each guest process
//! also publishes its `comm`, executable and command line for the others'
//! guest `/proc`); at the cap `fork` fails with EAGAIN, as at RLIMIT_NPROC. The
//! counter is kept by the processes themselves (an exit gives the slot
//! back, a reaped child killed by a signal gives its slot back); at the cap
//! it is corrected by counting the host's process tree, so children that
//! ended without a reap (killed under SIGCHLD SIG_IGN) hold no slot.

use super::errno::*;
use super::fs::{self, Object};
use super::signal::{self, Info};
use super::syscall::{read_cstr, Outcome};
use super::{host_signal, Exit, Options, Process, Thread, Wait};
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, Ordering};

pub const CLONE_VM: u64 = 0x100;
pub const CLONE_VFORK: u64 = 0x4000;
pub const CLONE_THREAD: u64 = 0x10000;
pub const CLONE_SETTLS: u64 = 0x80000;
pub const CLONE_PARENT_SETTID: u64 = 0x100000;
pub const CLONE_CHILD_CLEARTID: u64 = 0x200000;
pub const CLONE_CHILD_SETTID: u64 = 0x1000000;

/// Exec format error (Alpha's number, as generic Linux's).
pub const ENOEXEC: u64 = 8;

/// Default `--max-processes`: live processes of one tree besides the root.
pub const DEFAULT_MAX_PROCESSES: u32 = 1024;

/// Host signals caught and not yet queued to the guest (bit n: signal n).
static HOST_PENDING: AtomicU64 = AtomicU64::new(0);
/// Write end of the self-pipe the handler writes to (-1: none yet).
static WAKE_WR: AtomicI32 = AtomicI32::new(-1);
/// Read end of the self-pipe.
static WAKE_RD: AtomicI32 = AtomicI32::new(-1);

/// The process-tree state of one guest process.
#[derive(Clone, Debug)]
pub struct Procs {
    /// Live processes allowed in the tree (the root not counted).
    pub max: u32,
    /// The tree's shared mapping: live-process counter and the published
    /// guest processes (None: not forked yet).
    pub registry: Option<super::registry::Registry>,
    /// This process's slot in it.
    slot: Option<usize>,
    /// This host process was forked by a guest `fork`.
    pub forked: bool,
    /// Part of a process tree (forked, or has forked).
    pub tree: bool,
    /// Host signals the guest handles are caught and queued to it (in a
    /// tree, and from the start under `alpha run`: [`forward_signals`]).
    pub forward: bool,
    /// A vfork child's end of the pipe its parent waits on (closed at
    /// `execve` or exit).
    vfork_fd: Option<i32>,
    /// Host pid of the tree's first process (0: no tree yet): the guest
    /// processes `kill(-1, …)` reaches are it and its descendants.
    root: i32,
}

impl Procs {
    pub fn new(max: Option<u32>) -> Procs {
        Procs {
            max: max.unwrap_or(DEFAULT_MAX_PROCESSES),
            registry: None,
            slot: None,
            forked: false,
            tree: false,
            forward: false,
            vfork_fd: None,
            root: 0,
        }
    }

    fn live(&self) -> Option<&'static AtomicU32> {
        self.registry.as_ref().map(|r| r.live())
    }
}

extern "C" fn on_host_signal(sig: libc::c_int) {
    if (1..64).contains(&sig) {
        HOST_PENDING.fetch_or(1 << sig, Ordering::SeqCst);
    }
    let fd = WAKE_WR.load(Ordering::SeqCst);
    if fd >= 0 {
        let b = 1u8;
        // SAFETY: write(2) is async-signal-safe; a full pipe just drops it.
        unsafe { libc::write(fd, (&b as *const u8).cast(), 1) };
    }
}

/// The self-pipe's read end, when this process is in a tree.
pub fn wake_fd() -> Option<i32> {
    let fd = WAKE_RD.load(Ordering::SeqCst);
    (fd >= 0).then_some(fd)
}

/// Empty the self-pipe (its bytes only say "look again").
pub fn drain_wake() {
    if let Some(fd) = wake_fd() {
        let mut b = [0u8; 64];
        // SAFETY: non-blocking read into a local buffer.
        while unsafe { libc::read(fd, b.as_mut_ptr().cast(), b.len()) } > 0 {}
    }
}

/// A fresh non-blocking, close-on-exec self-pipe (a forked child must not
/// share its parent's: one would drain the other's wake-ups).
fn new_wake_pipe() {
    let mut fds = [0i32; 2];
    // SAFETY: `fds` has room for the two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK | libc::O_CLOEXEC) } != 0 {
        return;
    }
    for old in [
        WAKE_RD.swap(fds[0], Ordering::SeqCst),
        WAKE_WR.swap(fds[1], Ordering::SeqCst),
    ] {
        if old >= 0 {
            // SAFETY: the old self-pipe end is ours and no longer published.
            unsafe { libc::close(old) };
        }
    }
}

fn set_host_action(host_sig: i32, handler: libc::sighandler_t) {
    set_host_action_flags(host_sig, handler, 0);
}

/// [`set_host_action`] with extra host `SA_*` flags.
fn set_host_action_flags(host_sig: i32, handler: libc::sighandler_t, flags: i32) {
    // SAFETY: a zeroed sigaction with an empty mask is valid; the handler
    // only touches atomics and write(2).
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = handler;
        sa.sa_flags = libc::SA_RESTART | flags;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(host_sig, &sa, std::ptr::null_mut());
    }
}

/// Host signals never forwarded: synchronous faults (the emulator's own),
/// SIGKILL/SIGSTOP, and SIGPIPE (subword ignores it; the guest's SIGPIPE
/// comes from its own writes).
fn forwardable(host_sig: i32) -> bool {
    !matches!(
        host_sig,
        libc::SIGKILL
            | libc::SIGSTOP
            | libc::SIGSEGV
            | libc::SIGBUS
            | libc::SIGILL
            | libc::SIGFPE
            | libc::SIGTRAP
            | libc::SIGPIPE
    ) && (1..32).contains(&host_sig)
}

/// Make the host's disposition of Alpha signal `sig` follow the guest's
/// (while host signals are forwarded): ignored stays ignored, a handler is caught and queued
/// to the guest, default is the host's default (which ends subword as the
/// signal would end the guest). SIGCHLD is always caught.
pub fn sync_host_action(p: &Process, sig: u8) {
    if !p.procs.forward || sig == 0 || sig as usize > signal::NSIG {
        return;
    }
    let h = host_signal(sig) as i32;
    if h == libc::SIGCHLD {
        // A guest SIGCHLD ignored or with SA_NOCLDWAIT leaves no zombies:
        // the host reaps the children itself (and still raises SIGCHLD,
        // which wakes a blocked wait4 to find ECHILD), as Linux does.
        let act = p.signals.actions[sig as usize];
        let no_zombies = act.handler == signal::SIG_IGN || act.flags & signal::SA_NOCLDWAIT != 0;
        let flags = if no_zombies { libc::SA_NOCLDWAIT } else { 0 };
        set_host_action_flags(h, on_host_signal as *const () as libc::sighandler_t, flags);
        return;
    }
    if !forwardable(h) {
        return;
    }
    let act = p.signals.actions[sig as usize];
    let disp = match act.handler {
        signal::SIG_DFL => libc::SIG_DFL,
        signal::SIG_IGN => libc::SIG_IGN,
        _ => on_host_signal as *const () as libc::sighandler_t,
    };
    set_host_action(h, disp);
}

/// Enter the process tree: host signals forwarded ([`forward_signals`]).
fn enter_tree(p: &mut Process) {
    if !p.procs.tree {
        p.procs.tree = true;
        if !p.procs.forked && p.procs.root == 0 {
            // SAFETY: getpid has no preconditions.
            p.procs.root = unsafe { libc::getpid() };
        }
    }
    forward_signals(p);
}

/// Forward host signals to the guest from now on: the self-pipe, SIGCHLD
/// caught, and every guest disposition mirrored on the host (a signal the
/// guest handles is caught and queued to it; one it ignores is ignored;
/// one at its default acts on the host process as it would on the guest).
/// `alpha run` does this from the start ([`super::Options::host_signals`]),
/// as qemu-user does; any process does it once it forks.
pub fn forward_signals(p: &mut Process) {
    p.procs.forward = true;
    if wake_fd().is_none() {
        new_wake_pipe();
    }
    for sig in 1..=31u8 {
        sync_host_action(p, sig);
    }
}

/// Alpha signal number of host signal `h` (the inverse of [`host_signal`]).
pub fn guest_signal(h: u8) -> u8 {
    match h {
        7 => 10,  // SIGBUS
        31 => 12, // SIGSYS
        23 => 16, // SIGURG
        19 => 17, // SIGSTOP
        20 => 18, // SIGTSTP
        18 => 19, // SIGCONT
        17 => 20, // SIGCHLD
        29 => 23, // SIGIO
        30 => 29, // SIGPWR
        10 => 30, // SIGUSR1
        12 => 31, // SIGUSR2
        n => n,
    }
}

/// At a host `execve` of a forked guest: give its slot in the tree's
/// live count back (the host program is no guest process). Whether it did.
pub(super) fn give_back_slot(p: &Process) -> bool {
    if !p.procs.forked {
        return false;
    }
    p.procs.live().is_some_and(|live| {
        live.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
    })
}

/// The host `execve` failed: the slot given back is taken again.
pub(super) fn take_back_slot(p: &Process) {
    if let Some(live) = p.procs.live() {
        live.fetch_add(1, Ordering::SeqCst);
    }
}

impl Process {
    /// Queue the host signals caught since the last look (called by the
    /// run loop each turn, a relaxed load when there are none).
    pub fn forward_host_signals(&mut self) {
        if HOST_PENDING.load(Ordering::Relaxed) == 0 {
            return;
        }
        drain_wake();
        let bits = HOST_PENDING.swap(0, Ordering::SeqCst);
        for h in 1..64u8 {
            if bits & (1 << h) == 0 {
                continue;
            }
            let sig = guest_signal(h);
            if sig as usize > signal::NSIG {
                continue;
            }
            self.send(Info {
                signo: sig,
                code: if sig == signal::SIGCHLD {
                    1
                } else {
                    signal::SI_USER
                },
                is_kill: true,
                ..Default::default()
            });
        }
    }

    /// The end of a forked child's guest: its slot in the tree's count is
    /// given back (a child that dies by a signal leaves that to the parent
    /// that reaps it, which sees the signal).
    pub fn leave_tree(&mut self, exit: &Exit) {
        if !self.procs.forked || matches!(exit, Exit::Killed { .. }) {
            return;
        }
        if let Some(live) = self.procs.live() {
            let _ = live.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        }
    }
}

/// In a forked child whose guest was killed by a signal: die by that
/// host signal (no core file), so the parent's `wait4` sees it, as qemu-user
/// re-raises a guest's fatal signal. Returns only if the host survives it.
pub fn die_by_signal(p: &Process, exit: &Exit) {
    let Exit::Killed { signal: sig, .. } = exit else {
        return;
    };
    if !p.procs.forked {
        return;
    }
    let h = host_signal(*sig) as i32;
    // SAFETY: resetting a disposition, dropping the core limit and
    // raising a signal on ourselves have no memory-safety preconditions.
    unsafe {
        let rl = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &rl);
        libc::signal(h, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, h);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::kill(libc::getpid(), h);
    }
}

/// Turn every in-process pipe into a host pipe before a fork, so parent
/// and child share it through the host (what is buffered moves along).
pub(super) fn hostify_pipes(p: &mut Process) -> Result<(), u64> {
    use std::collections::HashMap;
    use std::os::fd::FromRawFd;
    let mut made: HashMap<*const std::cell::RefCell<fs::PipeBuf>, (i32, i32, u64)> = HashMap::new();
    for f in p.fds.fds.iter().flatten() {
        let mut obj = f.obj.borrow_mut();
        let (buf, read_end) = match &*obj {
            Object::PipeRead(b) => (b.clone(), true),
            Object::PipeWrite(b) => (b.clone(), false),
            _ => continue,
        };
        let key = std::rc::Rc::as_ptr(&buf);
        let (rd, wr, ino) = match made.get(&key) {
            Some(&e) => e,
            None => {
                let mut fds = [0i32; 2];
                // SAFETY: `fds` has room for the two descriptors.
                if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
                    return Err(fs::host_errno(&std::io::Error::last_os_error()));
                }
                let data: Vec<u8> = buf.borrow().data.iter().copied().collect();
                // SAFETY: fcntl/write on the pipe just made; `data` is valid.
                unsafe {
                    if data.len() > 65536 {
                        libc::fcntl(fds[1], libc::F_SETPIPE_SZ, data.len().min(1 << 20) as i32);
                    }
                    let fl = libc::fcntl(fds[1], libc::F_GETFL);
                    libc::fcntl(fds[1], libc::F_SETFL, fl | libc::O_NONBLOCK);
                    if !data.is_empty() {
                        libc::write(fds[1], data.as_ptr().cast(), data.len());
                    }
                    libc::fcntl(fds[1], libc::F_SETFL, fl);
                }
                let mut st: libc::stat = unsafe { std::mem::zeroed() };
                // SAFETY: fstat into a local struct.
                unsafe { libc::fstat(fds[0], &mut st) };
                let e = (fds[0], fds[1], st.st_ino);
                made.insert(key, e);
                e
            }
        };
        let raw = if read_end { rd } else { wr };
        // SAFETY: dup of a descriptor we own; the File owns the copy.
        let dup = unsafe { libc::fcntl(raw, libc::F_DUPFD_CLOEXEC, 0) };
        if dup < 0 {
            return Err(fs::host_errno(&std::io::Error::last_os_error()));
        }
        *obj = Object::File {
            // SAFETY: `dup` is a fresh descriptor nothing else owns.
            file: unsafe { std::fs::File::from_raw_fd(dup) },
            path: format!("pipe:[{ino}]").into(),
        };
    }
    for (rd, wr, _) in made.into_values() {
        // SAFETY: the originals; every guest end holds its own dup.
        unsafe {
            libc::close(rd);
            libc::close(wr);
        }
    }
    Ok(())
}

/// The tree's live-process counter, mapped (with the registry, where
/// this first process publishes itself) at the first fork.
fn counter(p: &mut Process) -> Result<&'static AtomicU32, u64> {
    if p.procs.registry.is_none() {
        p.procs.registry = Some(super::registry::Registry::map(p.procs.max).ok_or(ENOMEM)?);
        publish(p);
    }
    Ok(p.procs.live().expect("mapped above"))
}

/// Publish this process's `comm`, executable and command line in the
/// tree's registry (a no-op outside a tree).
pub(super) fn publish(p: &mut Process) {
    use std::os::unix::ffi::OsStrExt;
    let Some(r) = p.procs.registry else { return };
    let e = super::registry::Entry {
        // SAFETY: getpid has no preconditions (the host pid, which is the
        // guest's but under --deterministic).
        pid: unsafe { libc::getpid() },
        comm: p.comm.as_bytes().to_vec(),
        exe: p.exe_path.as_os_str().as_bytes().to_vec(),
        cmdline: p.cmdline.clone(),
    };
    p.procs.slot = r.publish(p.procs.slot, &e);
}

/// Leave the registry (a host `execve`: the process stops being a guest
/// one). Whether there was a slot to leave.
pub(super) fn unpublish(p: &mut Process) -> bool {
    match (p.procs.registry, p.procs.slot.take()) {
        (Some(r), Some(i)) => {
            // SAFETY: getpid has no preconditions.
            r.withdraw(i, unsafe { libc::getpid() });
            true
        }
        _ => false,
    }
}

/// `fork`, `vfork`, or `clone(flags, newsp, parent_tid, child_tid, tls)`
/// without `CLONE_VM` (or with `CLONE_VM|CLONE_VFORK`): a host fork.
pub fn fork(p: &mut Process, c: usize, flags: u64, a: [u64; 6]) -> Outcome {
    let (newsp, ptid, ctid, tls) = (a[1], a[2], a[3], a[4]);
    if !p.opts.may_fork {
        let pc = p.machine.cpus[c].pc.wrapping_sub(4);
        p.refused = Some(format!(
            "the program forks (a new process at pc 0x{pc:x}); alpha explore explores the threads of one process: run it with alpha run"
        ));
        return Outcome::Exit(0);
    }
    let max = p.procs.max;
    let live = match counter(p) {
        Ok(l) => l,
        Err(e) => return Outcome::Return(Err(e)),
    };
    let take = |live: &AtomicU32| {
        live.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
            (n < max).then_some(n + 1)
        })
        .is_ok()
    };
    if !take(live) {
        // The count can be high: a child killed by a signal gives its slot
        // back only when reaped, and with SIGCHLD ignored nobody reaps.
        // At the cap, the host's process tree (zombies included, as
        // RLIMIT_NPROC counts them) is the truth; count it and retry.
        if p.procs.root != 0 {
            let now = tree_pids(p.procs.root).len().saturating_sub(1) as u32;
            let _ = live.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (now < n).then_some(now)
            });
        }
        if !take(live) {
            return Outcome::Return(Err(EAGAIN));
        }
    }
    if let Err(e) = hostify_pipes(p) {
        live.fetch_sub(1, Ordering::SeqCst);
        return Outcome::Return(Err(e));
    }
    enter_tree(p);
    let vfork = flags & CLONE_VFORK != 0;
    let mut vpipe = [-1i32; 2];
    // SAFETY: `vpipe` has room for the two descriptors.
    if vfork && unsafe { libc::pipe2(vpipe.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        vpipe = [-1, -1];
    }
    // SAFETY: fork has no memory-safety preconditions; the child touches
    // no lock another thread (the compiler's) may hold: it forgets that
    // thread's channel (`Machine::after_fork`) and starts its own.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        let e = std::io::Error::last_os_error();
        live.fetch_sub(1, Ordering::SeqCst);
        for fd in vpipe.into_iter().filter(|&f| f >= 0) {
            // SAFETY: our own pipe ends.
            unsafe { libc::close(fd) };
        }
        return Outcome::Return(Err(fs::host_errno(&e)));
    }
    if pid > 0 {
        // Parent.
        if flags & CLONE_PARENT_SETTID != 0 {
            let _ = super::syscall::put_u32(p, ptid, pid as u32);
        }
        p.machine.cpus[c].r[20] = 0;
        if vpipe[0] >= 0 {
            // SAFETY: our pipe ends; read blocks until the child's end
            // closes (its execve or exit).
            unsafe {
                libc::close(vpipe[1]);
                let mut b = [0u8; 1];
                while libc::read(vpipe[0], b.as_mut_ptr().cast(), 1) < 0
                    && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
                {
                }
                libc::close(vpipe[0]);
            }
        }
        return Outcome::Return(Ok(pid as u64));
    }
    // Child.
    if vpipe[0] >= 0 {
        // SAFETY: our pipe end.
        unsafe { libc::close(vpipe[0]) };
        p.procs.vfork_fd = Some(vpipe[1]);
    }
    p.procs.forked = true;
    new_wake_pipe();
    HOST_PENDING.store(0, Ordering::SeqCst);
    p.machine.after_fork();
    // SAFETY: no preconditions. (The parent's real pid even when it shows
    // the fixed one under --deterministic: kill(getppid()) must reach it.)
    let (me, parent) = unsafe { (libc::getpid() as u32, libc::getppid() as u32) };
    p.id.pid = me;
    p.id.ppid = parent;
    p.procs.slot = None;
    publish(p);
    // Only the calling thread lives on (as under Linux); its CPU stays.
    let t = p.cur;
    let mut keep: Thread = p.threads[t].clone();
    keep.tid = me;
    keep.clear_child_tid = if flags & CLONE_CHILD_CLEARTID != 0 {
        ctid
    } else {
        0
    };
    keep.waits = Vec::new();
    keep.timeout_at = None;
    keep.progress = None;
    p.only_thread(keep);
    p.cur = 0;
    // The child's one thread starts its CPU clock afresh, as the host
    // thread that now runs it does.
    p.threads[0].cpu_ns = 0;
    p.turn = Some((0, super::time::host_thread_cpu_ns()));
    p.signals.pending.clear();
    p.timers = Default::default();
    let cpu = &mut p.machine.cpus[c];
    if newsp != 0 {
        cpu.r[30] = newsp;
    }
    if flags & CLONE_SETTLS != 0 {
        cpu.uniq = tls;
    }
    // arch/alpha/kernel/process.c copy_thread: v0 = 0, a3 = 0, and the
    // OSF/1 convention a4 = 1 in the child.
    cpu.r[20] = 1;
    if flags & CLONE_CHILD_SETTID != 0 {
        let _ = super::syscall::put_u32(p, ctid, me);
    }
    Outcome::Return(Ok(0))
}

/// `getppid`: the host's parent pid, read at the call, so a process whose
/// parent ended sees its new parent (1, or the nearest subreaper), as on
/// Linux; the root process under `--deterministic` keeps its fixed parent.
pub fn parent_pid(p: &Process) -> u32 {
    if p.deterministic && !p.procs.forked {
        return p.id.ppid;
    }
    // SAFETY: getppid has no preconditions.
    unsafe { libc::getppid() as u32 }
}

// ------------------------------------------------------------------ wait

/// Alpha `wait4` status word of a host status.
fn alpha_status(st: i32) -> u32 {
    if libc::WIFEXITED(st) {
        ((libc::WEXITSTATUS(st) as u32) & 0xff) << 8
    } else if libc::WIFSIGNALED(st) {
        guest_signal(libc::WTERMSIG(st) as u8) as u32 | if libc::WCOREDUMP(st) { 0x80 } else { 0 }
    } else if libc::WIFSTOPPED(st) {
        ((guest_signal(libc::WSTOPSIG(st) as u8) as u32) << 8) | 0x7f
    } else if libc::WIFCONTINUED(st) {
        0xffff
    } else {
        st as u32
    }
}

const WNOHANG: u64 = 1;
const WAIT_OPTIONS: u64 =
    0x1 | 0x2 | 0x4 | 0x8 | 0x0100_0000 | 0x2000_0000 | 0x4000_0000 | 0x8000_0000;

/// A reaped child that died by a signal gives its slot in the tree back.
fn reaped(p: &Process, st: i32) {
    if libc::WIFSIGNALED(st) {
        if let Some(live) = p.procs.live() {
            let _ = live.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        }
    }
}

/// `wait4(pid, status, options, rusage)` (`osf_wait4` too).
pub fn wait4(p: &mut Process, pid: i64, status: u64, options: u64, rusage: u64) -> Outcome {
    if options & !WAIT_OPTIONS != 0 {
        return Outcome::Return(Err(EINVAL));
    }
    if !p.procs.tree {
        // Never forked: no guest children (and the host process's own
        // children, when subword is embedded, are not the guest's).
        return Outcome::Return(Err(ECHILD));
    }
    let mut st = 0i32;
    // SAFETY: a zeroed rusage is a valid out-parameter.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid out-pointers.
    let r = unsafe {
        libc::wait4(
            pid as i32,
            &mut st,
            (options | WNOHANG) as i32 & !0x0100_0000,
            &mut ru,
        )
    };
    if r < 0 {
        return Outcome::Return(Err(fs::host_errno(&std::io::Error::last_os_error())));
    }
    if r == 0 {
        if options & WNOHANG != 0 {
            return Outcome::Return(Ok(0));
        }
        return Outcome::Block(vec![Wait::Child(pid as i32)]);
    }
    reaped(p, st);
    if status != 0 && super::syscall::put_u32(p, status, alpha_status(st)).is_err() {
        return Outcome::Return(Err(EFAULT));
    }
    if rusage != 0 {
        // struct rusage: two timevals of two longs, then 14 longs — the
        // same 144 bytes on Alpha as on a 64-bit host.
        // SAFETY: `ru` is plain data of its size.
        let bytes =
            unsafe { std::slice::from_raw_parts((&ru as *const libc::rusage).cast::<u8>(), 144) };
        if p.machine.mem.write_user(rusage, bytes).is_err() {
            return Outcome::Return(Err(EFAULT));
        }
    }
    Outcome::Return(Ok(r as u64))
}

/// `waitid(idtype, id, infop, options, rusage)`.
pub fn waitid(p: &mut Process, idtype: u64, id: u64, infop: u64, options: u64) -> Outcome {
    if options & !WAIT_OPTIONS != 0 || options & (0x2 | 0x4 | 0x8) == 0 || idtype > 3 {
        return Outcome::Return(Err(EINVAL));
    }
    if !p.procs.tree {
        return Outcome::Return(Err(ECHILD));
    }
    // SAFETY: a zeroed siginfo is a valid out-parameter.
    let mut si: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: a valid out-pointer.
    let r = unsafe {
        libc::waitid(
            idtype as libc::idtype_t,
            id as libc::id_t,
            &mut si,
            (options | WNOHANG) as i32,
        )
    };
    if r < 0 {
        return Outcome::Return(Err(fs::host_errno(&std::io::Error::last_os_error())));
    }
    // SAFETY: the accessors read the union as waitid filled it.
    let (cpid, uid, status) = unsafe { (si.si_pid(), si.si_uid(), si.si_status()) };
    if cpid == 0 && options & WNOHANG == 0 {
        let pid = match idtype {
            1 => id as i32,
            2 => -(id as i32),
            _ => -1,
        };
        return Outcome::Block(vec![Wait::Child(pid)]);
    }
    let code = si.si_code;
    if cpid != 0 && options & 0x0100_0000 == 0 {
        let st = match code {
            1 => status << 8,       // CLD_EXITED
            2 | 3 => status & 0x7f, // CLD_KILLED, CLD_DUMPED
            _ => 0x7f,
        };
        reaped(p, st);
    }
    if infop != 0 {
        // Alpha siginfo: si_signo, si_errno, si_code, then at 16 si_pid,
        // si_uid, si_status (all zero when WNOHANG found nothing).
        let mut b = [0u8; 128];
        if cpid != 0 {
            let st = if code == 1 {
                status
            } else {
                guest_signal(status as u8) as i32
            };
            b[0..4].copy_from_slice(&(signal::SIGCHLD as i32).to_le_bytes());
            b[8..12].copy_from_slice(&code.to_le_bytes());
            b[16..20].copy_from_slice(&cpid.to_le_bytes());
            b[20..24].copy_from_slice(&uid.to_le_bytes());
            b[24..28].copy_from_slice(&st.to_le_bytes());
        }
        if p.machine.mem.write_user(infop, &b).is_err() {
            return Outcome::Return(Err(EFAULT));
        }
    }
    Outcome::Return(Ok(0))
}

/// Has a child `pid` (wait4's encoding) something to report? Empties the
/// self-pipe first, so an exit after this look still wakes the `poll`.
pub fn child_ready(pid: i32) -> bool {
    drain_wake();
    let (idtype, id) = match pid {
        -1 => (libc::P_ALL, 0),
        0 => (libc::P_PGID, 0),
        n if n < 0 => (libc::P_PGID, (-n) as libc::id_t),
        n => (libc::P_PID, n as libc::id_t),
    };
    // SAFETY: a zeroed siginfo is a valid out-parameter.
    let mut si: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: a valid out-pointer; WNOWAIT leaves the child waitable.
    let r = unsafe {
        libc::waitid(
            idtype,
            id,
            &mut si,
            libc::WEXITED | libc::WSTOPPED | libc::WNOHANG | libc::WNOWAIT,
        )
    };
    // An error (no such child any more) is ready too: the call reports it.
    // SAFETY: as above.
    r < 0 || unsafe { si.si_pid() } != 0
}

// ------------------------------------------------------------------ kill

/// The live host processes of the tree rooted at `root`: it and its
/// descendants (the host's `/proc/PID/task/TID/children`).
fn tree_pids(root: i32) -> Vec<i32> {
    let mut all = vec![root];
    let mut i = 0;
    while i < all.len() {
        let pid = all[i];
        i += 1;
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            continue;
        };
        for t in tasks.flatten() {
            let Ok(text) = std::fs::read_to_string(t.path().join("children")) else {
                continue;
            };
            for c in text
                .split_whitespace()
                .filter_map(|w| w.parse::<i32>().ok())
            {
                if !all.contains(&c) {
                    all.push(c);
                }
            }
        }
    }
    all
}

/// The host pids above `pid`: its parent, grandparent… up to init.
fn ancestors(pid: i32) -> Vec<i32> {
    let mut out = Vec::new();
    let mut cur = pid;
    while cur > 1 && out.len() < 4096 {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{cur}/stat")) else {
            break;
        };
        // "pid (comm) state ppid …": comm may hold spaces and parentheses.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|w| w.parse::<i32>().ok());
        match ppid {
            Some(pp) if pp > 0 => {
                out.push(pp);
                cur = pp;
            }
            _ => break,
        }
    }
    out
}

/// `kill(-1, sig)`: every guest process of the caller's tree but the
/// caller (Linux spares the caller too), never a process outside the
/// guest's tree (subword does not signal every process of the user).
/// ESRCH when there is no other, as on Linux (and when the tree's first
/// process has ended: its orphans are no longer found).
pub fn kill_all(p: &Process, sig: u64) -> Result<u64, u64> {
    if !p.procs.tree || p.procs.root == 0 {
        return Err(ESRCH);
    }
    // SAFETY: getpid has no preconditions.
    let me = unsafe { libc::getpid() };
    // The root counts only while it is still this process's ancestor (an
    // ended root's pid may since name another program).
    if p.procs.root != me && !ancestors(me).contains(&p.procs.root) {
        return Err(ESRCH);
    }
    let mut reached = false;
    for pid in tree_pids(p.procs.root).into_iter().filter(|&q| q != me) {
        reached |= kill_other(pid as i64, sig).is_ok();
    }
    if reached {
        Ok(0)
    } else {
        Err(ESRCH)
    }
}

/// `kill(pid, sig)` aimed at another process or a process group: the
/// host's `kill` with the host's number (`kill(-1, …)`: [`kill_all`]).
pub fn kill_other(pid: i64, sig: u64) -> Result<u64, u64> {
    let h = if sig == 0 {
        0
    } else {
        host_signal(sig as u8) as i32
    };
    // SAFETY: kill has no memory-safety preconditions.
    if unsafe { libc::kill(pid as i32, h) } != 0 {
        return Err(fs::host_errno(&std::io::Error::last_os_error()));
    }
    Ok(0)
}

/// `setpgid(pid, pgid)`, `getpgid(pid)`, `setsid()`, `getsid(pid)`,
/// `getpgrp()`: the host's (the fixed pid stands for subword's own under
/// `--deterministic`).
pub fn pgrp_call(p: &Process, nr: u64, a: [u64; 6]) -> Result<u64, u64> {
    let own = |x: u64| {
        if x as u32 == p.id.pid {
            0
        } else {
            x as i32
        }
    };
    // SAFETY: these calls have no memory-safety preconditions.
    let r = unsafe {
        match nr {
            39 => libc::setpgid(own(a[0]), own(a[1])),
            233 => libc::getpgid(own(a[0])),
            234 => libc::getsid(own(a[0])),
            147 => libc::setsid(),
            _ => libc::getpgrp(),
        }
    };
    if r < 0 {
        return Err(fs::host_errno(&std::io::Error::last_os_error()));
    }
    let r = r as u32;
    // Under --deterministic the fixed pid names subword's own group.
    // SAFETY: no preconditions.
    if p.deterministic && r == unsafe { libc::getpid() } as u32 {
        return Ok(p.id.pid as u64);
    }
    Ok(r as u64)
}

// ---------------------------------------------------------------- execve

/// `#!` nesting Linux allows (binfmt_script recursion depth).
const MAX_SCRIPT_DEPTH: usize = 4;

fn read_str_array(p: &Process, addr: u64) -> Result<Vec<String>, u64> {
    let mut v = Vec::new();
    if addr == 0 {
        return Ok(v);
    }
    for i in 0..0x20000u64 {
        let mut b = [0u8; 8];
        p.machine
            .mem
            .read_user(addr.wrapping_add(8 * i), &mut b)
            .map_err(|_| EFAULT)?;
        let ptr = u64::from_le_bytes(b);
        if ptr == 0 {
            return Ok(v);
        }
        v.push(String::from_utf8_lossy(&read_arg(p, ptr)?).into_owned());
    }
    Err(E2BIG)
}

/// Linux's `MAX_ARG_STRLEN`: one argument or environment string, its
/// terminator included, may be 32 pages long (`include/uapi/linux/binfmts.h`);
/// a longer one makes `execve` fail with E2BIG.
const MAX_ARG_STRLEN: usize = 32 * 4096;

/// One `execve` argument or environment string (E2BIG past
/// [`MAX_ARG_STRLEN`], EFAULT on a bad address).
fn read_arg(p: &Process, addr: u64) -> Result<Vec<u8>, u64> {
    let mut out = Vec::new();
    let mut a = addr;
    loop {
        let mut b = [0u8; 1];
        p.machine.mem.read_user(a, &mut b).map_err(|_| EFAULT)?;
        if b[0] == 0 {
            return Ok(out);
        }
        out.push(b[0]);
        if out.len() >= MAX_ARG_STRLEN {
            return Err(E2BIG);
        }
        a = a.wrapping_add(1);
    }
}

/// Where guest path `path` is on the host: a guest `/proc` link is
/// followed (`/proc/self/exe` is the running program, `/proc/self/fd/N`
/// the file open there); otherwise in the sysroot first (like qemu's
/// `-L`), then as given; relative to the guest's cwd.
fn exec_host_path(p: &Process, path: &str) -> Result<std::path::PathBuf, u64> {
    if let Some(full) = super::procfs::guest_proc_path(p, path.as_bytes()) {
        return super::procfs::exec_target(p, &full);
    }
    Ok(exec_sysroot_path(p, path))
}

fn exec_sysroot_path(p: &Process, path: &str) -> std::path::PathBuf {
    if let (Some(root), true) = (&p.sysroot, path.starts_with('/')) {
        let cand = root.join(path.trim_start_matches('/'));
        if cand.symlink_metadata().is_ok() {
            return cand;
        }
    }
    p.cwd.join(path)
}

/// Read an executable for `execve`: ENOENT when missing, EACCES when not
/// a regular file or not executable.
fn read_executable(host: &std::path::Path) -> Result<Vec<u8>, u64> {
    use std::os::unix::ffi::OsStrExt;
    let m = std::fs::metadata(host).map_err(|e| fs::host_errno(&e))?;
    if !m.is_file() {
        return Err(EACCES);
    }
    let c = std::ffi::CString::new(host.as_os_str().as_bytes()).map_err(|_| ENOENT)?;
    // SAFETY: a valid C string.
    if unsafe { libc::access(c.as_ptr(), libc::X_OK) } != 0 {
        return Err(EACCES);
    }
    crate::hostfile::read_file(host, crate::hostfile::MAX_ELF).map_err(|e| match e {
        crate::hostfile::ReadError::Io(e) => fs::host_errno(&e),
        crate::hostfile::ReadError::NotRegular(_) => EACCES,
        crate::hostfile::ReadError::TooBig { .. } => ENOMEM,
    })
}

/// `#!interp [arg]` of a script, as binfmt_script splits it.
fn script_interp(bytes: &[u8]) -> Option<(String, Option<String>)> {
    let line = bytes.strip_prefix(b"#!")?;
    let end = line.iter().position(|&b| b == b'\n').unwrap_or(line.len());
    let line = String::from_utf8_lossy(&line[..end.min(254)]).into_owned();
    let line = line.trim_matches(|c| c == ' ' || c == '\t');
    if line.is_empty() {
        return Some((String::new(), None));
    }
    let (interp, rest) = match line.find([' ', '\t']) {
        Some(i) => (
            &line[..i],
            line[i..].trim_matches(|c| c == ' ' || c == '\t'),
        ),
        None => (line, ""),
    };
    Some((
        interp.to_string(),
        (!rest.is_empty()).then(|| rest.to_string()),
    ))
}

/// `execve(path, argv, envp)`: load the Alpha program (or `#!` script's
/// interpreter) into this process; a program that is not Alpha (a host
/// ELF, a script whose interpreter is one, or anything else) goes to the
/// host's `execve` when [`Options::host_exec`] is on ([`super::hostexec`]),
/// and is ENOEXEC otherwise. On failure the caller goes on with the Linux
/// errno; on success the process is the new program.
pub fn execve(p: &mut Process, path: u64, argv: u64, envp: u64) -> Outcome {
    let r = (|| {
        let path = String::from_utf8_lossy(&read_cstr(p, path)?).into_owned();
        if path.is_empty() {
            return Err(ENOENT);
        }
        // As Linux: the file is opened first (ENOENT, EACCES), then the
        // strings copied (EFAULT), then its format looked at (ENOEXEC).
        let mut host = exec_host_path(p, &path)?;
        let mut bytes = read_executable(&host)?;
        let mut args = read_str_array(p, argv)?;
        let env = read_str_array(p, envp)?;
        let (first_host, first_args) = (host.clone(), args.clone());
        let comm = std::path::Path::new(&path)
            .file_name()
            .map(|s| s.to_string_lossy().chars().take(15).collect::<String>())
            .unwrap_or_default();
        let mut guest_path = path;
        let mut depth = 0;
        loop {
            if depth > 0 {
                host = exec_host_path(p, &guest_path)?;
                bytes = read_executable(&host)?;
            }
            if let Some((interp, arg)) = script_interp(&bytes) {
                depth += 1;
                if depth > MAX_SCRIPT_DEPTH {
                    return Err(ELOOP);
                }
                if interp.is_empty() {
                    return Err(ENOEXEC);
                }
                // argv[0] is replaced by interp [arg] path.
                let mut na = vec![interp.clone()];
                na.extend(arg);
                na.push(guest_path.clone());
                na.extend(args.iter().skip(1).cloned());
                args = na;
                guest_path = interp;
                continue;
            }
            if crate::loader::check_header(&bytes).is_ok() {
                replace_image(p, &bytes, &host, args, env)?;
                // The kernel names the process after the file executed
                // (a script's own name, not its interpreter's).
                p.comm = comm;
                publish(p);
                return Ok(());
            }
            if !p.opts.host_exec {
                return Err(ENOEXEC);
            }
            // Not Alpha: the host runs it, a script through the host's own
            // `#!` handling (the chain ends in a host program).
            use std::os::unix::ffi::OsStrExt;
            return Err(if depth == 0 {
                super::hostexec::exec(p, host.as_os_str().as_bytes(), &args, &env)
            } else {
                super::hostexec::exec(p, first_host.as_os_str().as_bytes(), &first_args, &env)
            });
        }
    })();
    match r {
        Ok(()) => Outcome::NoResult,
        Err(e) => Outcome::Return(Err(e)),
    }
}

/// Build the new program's process and put it in place of `p`.
fn replace_image(
    p: &mut Process,
    elf: &[u8],
    host: &std::path::Path,
    argv: Vec<String>,
    envp: Vec<String>,
) -> Result<(), u64> {
    if crate::loader::check_header(elf).is_err() {
        return Err(ENOEXEC);
    }
    let mut opts: Options = p.opts.clone();
    opts.argv = argv;
    opts.envp = envp;
    let mut new = Process::new_with_path(elf, &opts, host).map_err(|e| {
        if e.contains("cannot read the program interpreter") {
            ENOENT
        } else if e.contains("memory") {
            ENOMEM
        } else {
            ENOEXEC
        }
    })?;
    // What survives execve: identity, cwd, descriptors without
    // close-on-exec, ignored signals, the thread's mask, pending signals.
    new.id = p.id;
    new.threads[0].tid = p.id.pid;
    new.threads[0].sigmask = p.threads[p.cur].sigmask;
    // Descriptors survive execve, and so do those still in flight.
    new.passed = std::mem::take(&mut p.passed);
    new.next_tid = p.id.pid + 1;
    new.cwd = p.cwd.clone();
    new.procs = p.procs.clone();
    new.fds = std::mem::take(&mut p.fds);
    for fd in 0..new.fds.fds.len() {
        if new.fds.fds[fd].as_ref().is_some_and(|f| f.cloexec) {
            let _ = new.fds.close(fd as u64);
        }
    }
    for (i, a) in p.signals.actions.iter().enumerate() {
        if a.handler == signal::SIG_IGN {
            new.signals.actions[i].handler = signal::SIG_IGN;
        }
    }
    new.signals.pending = std::mem::take(&mut p.signals.pending);
    if let Some(fd) = new.procs.vfork_fd.take() {
        // SAFETY: our end of the vfork pipe: the parent goes on.
        unsafe { libc::close(fd) };
    }
    new.incarnation = p.incarnation + 1;
    *p = new;
    for sig in 1..=31u8 {
        sync_host_action(p, sig);
    }
    Ok(())
}

/// The `--strace` spelling of `clone` flags (the low byte is the exit signal).
pub fn clone_flag_names(v: u64) -> String {
    const NAMES: &[(u64, &str)] = &[
        (0x100, "CLONE_VM"),
        (0x200, "CLONE_FS"),
        (0x400, "CLONE_FILES"),
        (0x800, "CLONE_SIGHAND"),
        (0x1000, "CLONE_PIDFD"),
        (0x2000, "CLONE_PTRACE"),
        (0x4000, "CLONE_VFORK"),
        (0x8000, "CLONE_PARENT"),
        (0x10000, "CLONE_THREAD"),
        (0x20000, "CLONE_NEWNS"),
        (0x40000, "CLONE_SYSVSEM"),
        (0x80000, "CLONE_SETTLS"),
        (0x100000, "CLONE_PARENT_SETTID"),
        (0x200000, "CLONE_CHILD_CLEARTID"),
        (0x400000, "CLONE_DETACHED"),
        (0x800000, "CLONE_UNTRACED"),
        (0x1000000, "CLONE_CHILD_SETTID"),
    ];
    let mut parts: Vec<String> = NAMES
        .iter()
        .filter(|(b, _)| v & b != 0)
        .map(|(_, n)| n.to_string())
        .collect();
    let rest = v & !0xff & !NAMES.iter().fold(0, |m, (b, _)| m | b);
    if rest != 0 {
        parts.push(format!("0x{rest:x}"));
    }
    let sig = (v & 0xff) as u8;
    if sig != 0 {
        parts.push(signal::name(sig));
    }
    if parts.is_empty() {
        "0".into()
    } else {
        parts.join("|")
    }
}

/// The `--strace` spelling of a string array (`execve`'s argv, envp):
/// `{"a","b",NULL}`, the first 8 strings then `...`.
pub fn strace_str_array(p: &Process, addr: u64) -> String {
    let mut parts = Vec::new();
    for i in 0..9u64 {
        let mut b = [0u8; 8];
        if p.machine
            .mem
            .read_user(addr.wrapping_add(8 * i), &mut b)
            .is_err()
        {
            return format!("0x{addr:x}");
        }
        let ptr = u64::from_le_bytes(b);
        if ptr == 0 {
            parts.push("NULL".to_string());
            break;
        }
        if i == 8 {
            parts.push("...".to_string());
            break;
        }
        match read_cstr(p, ptr) {
            Ok(s) => parts.push(format!("\"{}\"", String::from_utf8_lossy(&s))),
            Err(_) => parts.push(format!("0x{ptr:x}")),
        }
    }
    format!("{{{}}}", parts.join(","))
}

/// The `--strace` spelling of `wait4`/`waitid` options.
pub fn wait_option_names(v: u64) -> String {
    const NAMES: &[(u64, &str)] = &[
        (0x1, "WNOHANG"),
        (0x2, "WUNTRACED"),
        (0x4, "WEXITED"),
        (0x8, "WCONTINUED"),
        (0x0100_0000, "WNOWAIT"),
        (0x2000_0000, "__WNOTHREAD"),
        (0x4000_0000, "__WALL"),
        (0x8000_0000, "__WCLONE"),
    ];
    let mut parts: Vec<String> = NAMES
        .iter()
        .filter(|(b, _)| v & b != 0)
        .map(|(_, n)| n.to_string())
        .collect();
    let rest = v & !NAMES.iter().fold(0, |m, (b, _)| m | b);
    if rest != 0 {
        parts.push(format!("0x{rest:x}"));
    }
    if parts.is_empty() {
        "0".into()
    } else {
        parts.join("|")
    }
}
