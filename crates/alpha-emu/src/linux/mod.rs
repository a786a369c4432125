//! The Linux user-mode personality: loads a static or dynamic (`PT_INTERP`)
//! executable, builds the initial stack, runs its threads (one CPU of the
//! [`Machine`] each) under a round-robin scheduler, performs their system
//! calls ([`syscall`]) and turns every other interpreter event into what
//! Alpha Linux would do: `callsys`/`imb`/`rduniq`/`wruniq` PALcode,
//! unaligned-access fix-ups (counted), signal frames, and signals whose
//! default action ends the process with status 128+N and one diagnostic
//! line. Threads block in system calls without stopping the others; all
//! host I/O goes through [`Host`]. Guest processes are host processes
//! ([`process`]); files and pipes ([`fs`]), sockets ([`net`]), epoll and
//! timerfd ([`epoll`]), clocks and interval timers ([`time`]), the
//! address space ([`mm`]) and the guest's `/proc` ([`procfs`]) are the
//! submodules'.

pub mod epoll;
pub mod errno;
pub mod fs;
pub mod hostexec;
pub mod mm;
pub mod net;
pub mod process;
pub mod procfs;
pub mod registry;
pub mod sched;
pub mod signal;
pub mod stack;
pub mod sys;
pub mod syscall;
pub mod thread;
pub mod time;
pub mod uaccess;

pub use thread::{Thread, ThreadState};

use crate::exec::{self, Event};
use crate::loader::{self, LoadedImage};
use crate::machine::Machine;
use crate::memory::{Access, FaultKind};
use alpha_isa::{pal, Ext, Insn, Model};

/// Signals whose default action ends the process (numbers as on Alpha Linux,
/// arch/alpha/include/uapi/asm/signal.h).
pub const SIGILL: u8 = 4;
pub const SIGTRAP: u8 = 5;
pub const SIGFPE: u8 = 8;
pub const SIGBUS: u8 = 10;
pub const SIGSEGV: u8 = 11;

/// Where guest I/O goes. The CLI uses the host's own descriptors; tests
/// and the demo capture output in memory.
///
/// The `*_fd` methods carry the host's result back to the guest: a count
/// (short counts stay short) or the host's error, which the personality
/// turns into the Alpha errno (EPIPE also raises SIGPIPE in the guest).
/// Their defaults suit an in-memory host: every write succeeds whole and
/// fd 0 reads through [`Host::read_stdin`].
pub trait Host {
    /// Write guest bytes to guest fd 0, 1 or 2.
    fn write(&mut self, fd: u32, bytes: &[u8]);
    /// One diagnostic line from the personality (no trailing newline).
    fn diag(&mut self, line: &str);
    /// Read guest fd 0 (stdin); 0 at end of input.
    fn read_stdin(&mut self, _buf: &mut [u8]) -> usize {
        0
    }
    /// One `--strace` line (no trailing newline).
    fn trace(&mut self, line: &str) {
        self.diag(line)
    }
    /// Whether stream `fd` (0, 1 or 2) was closed when the run started: the
    /// guest then starts without that descriptor, as under Linux.
    fn stream_closed(&self, _fd: u32) -> bool {
        false
    }
    /// Write to stream `fd` (0, 1 or 2): the count written, or the error.
    fn write_fd(&mut self, fd: u32, bytes: &[u8]) -> std::io::Result<usize> {
        self.write(fd, bytes);
        Ok(bytes.len())
    }
    /// Read from stream `fd` (0, 1 or 2): the count read (0 at end of input).
    fn read_fd(&mut self, fd: u32, buf: &mut [u8]) -> std::io::Result<usize> {
        if fd == 0 {
            Ok(self.read_stdin(buf))
        } else {
            Err(std::io::Error::from_raw_os_error(libc::EBADF))
        }
    }
    /// The host descriptor behind stream `fd`, when there is one: the
    /// personality polls it for readiness (so a blocking read blocks only
    /// the calling guest thread) and passes `lseek`/`fstat` to it. `None`:
    /// the stream is always ready and not seekable.
    fn raw_fd(&self, _fd: u32) -> Option<i32> {
        None
    }
}

/// The host's own stdin, stdout and stderr, used through their
/// descriptors (no buffering in subword: a byte the guest was told is
/// written has reached the host's `write`).
#[derive(Clone, Copy, Debug, Default)]
pub struct StdHost {
    /// Streams 0-2 that were closed when subword started: the guest sees
    /// them closed (EBADF), as it would under Linux. Only the binary can
    /// know (it looks before the Rust runtime reopens them on `/dev/null`).
    closed_at_start: [bool; 3],
}

impl StdHost {
    /// The host's streams, those of `closed_at_start` closed to the guest.
    pub fn new(closed_at_start: [bool; 3]) -> StdHost {
        StdHost { closed_at_start }
    }

    fn open(&self, fd: u32) -> bool {
        fd < 3 && !self.closed_at_start[fd as usize]
    }
}

/// The host signals ignored when subword started (bit n: host signal n) in
/// guest numbering ([`signal::bit`]), SIGKILL and SIGSTOP never: a program
/// started with a signal ignored keeps it ignored (`trap '' PIPE` in the
/// parent shell), and `alpha run` passes them to the guest
/// ([`Options::ignored_signals`]). Only the binary can know which they were
/// (it looks before the Rust runtime ignores SIGPIPE for itself).
pub fn guest_ignored(host: u64) -> u64 {
    let mut guest = 0;
    for sig in 1..=signal::NSIG as u8 {
        let h = host_signal(sig) as u32;
        if h < 64 && host & (1 << h) != 0 && !matches!(sig, 9 | 17) {
            guest |= signal::bit(sig);
        }
    }
    guest
}

impl Host for StdHost {
    fn write(&mut self, fd: u32, bytes: &[u8]) {
        let _ = self.write_fd(fd, bytes);
    }
    fn diag(&mut self, line: &str) {
        use std::io::Write;
        // stderr may be gone (closed, or a pipe whose reader left): a
        // diagnostic that cannot be written is dropped, never a panic.
        let _ = writeln!(std::io::stderr(), "subword: {line}");
    }
    fn read_stdin(&mut self, buf: &mut [u8]) -> usize {
        self.read_fd(0, buf).unwrap_or(0)
    }
    fn trace(&mut self, line: &str) {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "{line}");
    }
    fn write_fd(&mut self, fd: u32, bytes: &[u8]) -> std::io::Result<usize> {
        if !self.open(fd) {
            return Err(std::io::Error::from_raw_os_error(libc::EBADF));
        }
        loop {
            // SAFETY: `bytes` is a valid readable buffer of its length.
            let n = unsafe { libc::write(fd as i32, bytes.as_ptr().cast(), bytes.len()) };
            if n >= 0 {
                return Ok(n as usize);
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }
    fn read_fd(&mut self, fd: u32, buf: &mut [u8]) -> std::io::Result<usize> {
        if !self.open(fd) {
            return Err(std::io::Error::from_raw_os_error(libc::EBADF));
        }
        loop {
            // SAFETY: `buf` is a valid writable buffer of its length.
            let n = unsafe { libc::read(fd as i32, buf.as_mut_ptr().cast(), buf.len()) };
            if n >= 0 {
                return Ok(n as usize);
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }
    fn raw_fd(&self, fd: u32) -> Option<i32> {
        self.open(fd).then_some(fd as i32)
    }
    fn stream_closed(&self, fd: u32) -> bool {
        !self.open(fd)
    }
}

/// Guest output kept in memory.
#[derive(Default, Debug, Clone)]
pub struct CaptureHost {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub diags: Vec<String>,
}

impl Host for CaptureHost {
    fn write(&mut self, fd: u32, bytes: &[u8]) {
        if fd == 2 {
            self.stderr.extend_from_slice(bytes)
        } else {
            self.stdout.extend_from_slice(bytes)
        }
    }
    fn diag(&mut self, line: &str) {
        self.diags.push(format!("subword: {line}"));
    }
}

/// Options of one run.
#[derive(Clone, Debug)]
pub struct Options {
    pub model: &'static Model,
    /// LDx_L/STx_C lock range in bytes; the model's default when `None`.
    pub lock_range: Option<u64>,
    /// Stop after this many instructions (status 124).
    pub max_insns: Option<u64>,
    /// Cap on guest memory in bytes.
    pub max_memory: Option<u64>,
    /// Print each system call.
    pub strace: bool,
    pub argv: Vec<String>,
    pub envp: Vec<String>,
    /// Directory holding the guest's dynamic loader and libraries (qemu's `-L`).
    pub sysroot: Option<std::path::PathBuf>,
    /// Instructions a thread runs before the scheduler switches.
    pub quantum: Option<u64>,
    /// Compile a loop to host code after this many arrivals at its head
    /// (see [`crate::jit`]); `None` interprets only.
    pub jit: Option<u32>,
    /// Report what the compiling tier did when the guest ends.
    pub jit_stats: bool,
    /// Run CALL_PAL `rduniq` in line instead of as an event (see
    /// [`crate::icache::ICache::set_inline_rduniq`]); on by default.
    pub inline_rduniq: bool,
    /// Reproducible run: a virtual clock driven by retired instructions and
    /// a fixed identity instead of the host's time, pid and uid
    /// (`alpha run --deterministic`; the explorer always sets it).
    pub deterministic: bool,
    /// Live processes a process tree may hold besides its root
    /// (`--max-processes`); [`process::DEFAULT_MAX_PROCESSES`] when `None`.
    pub max_processes: Option<u32>,
    /// Which guest memory the process gets ([`MemoryKind`]): portable by
    /// default; `alpha run` asks for host-mapped memory.
    pub memory: crate::memory::MemoryKind,
    /// Size of the initial stack mapping in bytes (`--stack-size`, qemu's
    /// `-s`); [`stack::STACK_SIZE`] when `None`.
    pub stack_size: Option<u64>,
    /// `execve` of a program that is not Alpha replaces this host process
    /// with it, as qemu-user does ([`hostexec`]); off, it is ENOEXEC. Only
    /// for a process whose guest descriptors 0-2 are the host's own
    /// (`alpha run`): an embedded run keeps it off.
    pub host_exec: bool,
    /// Signals the program starts with ignored ([`signal::bit`] mask), as
    /// a Linux program inherits them from its parent through `execve`.
    pub ignored_signals: u64,
    /// The guest is the host process (`alpha run`): host signals are
    /// forwarded to it from the start ([`process::forward_signals`]); a
    /// stop signal at its default action stops the host process (SIGCONT
    /// continues it); and, outside `deterministic`, when every thread
    /// waits with nothing else to wake it, the run waits for a host signal
    /// instead of ending as a deadlock. Off, a stop signal is ignored.
    pub host_signals: bool,
    /// `fork`, `vfork` and `clone` without `CLONE_VM` fork the host
    /// process. Off (the schedule explorer, which explores the threads of
    /// one process), such a call ends the run instead and
    /// [`Process::refused`] says why.
    pub may_fork: bool,
}

impl Options {
    pub fn new(model: &'static Model, argv: Vec<String>) -> Options {
        Options {
            model,
            lock_range: None,
            max_insns: None,
            max_memory: None,
            strace: false,
            argv,
            envp: Vec::new(),
            sysroot: None,
            quantum: None,
            jit: Some(crate::icache::DEFAULT_JIT_THRESHOLD),
            jit_stats: false,
            inline_rduniq: true,
            deterministic: false,
            max_processes: None,
            memory: crate::memory::MemoryKind::Portable,
            stack_size: None,
            host_exec: false,
            ignored_signals: 0,
            host_signals: false,
            may_fork: true,
        }
    }

    /// The initial stack's size in bytes (a multiple of the page size).
    pub fn stack_bytes(&self) -> u64 {
        self.stack_size.unwrap_or(stack::STACK_SIZE)
    }
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exit {
    /// The guest called `exit`/`exit_group`.
    Exited(u8),
    /// The guest was killed by a signal; `why` is the diagnostic line.
    Killed { signal: u8, why: String },
    /// `--max-insns` stopped it.
    InsnLimit(u64),
}

impl Exit {
    /// The host exit status (`alpha run`'s contract): 128 + the *host's*
    /// number of the signal, as a shell reports a process the signal
    /// killed (qemu-alpha re-raises the guest's signal on itself likewise):
    /// SIGILL 132, SIGTRAP 133, SIGFPE 136, SIGBUS 135, SIGSEGV 139.
    pub fn status(&self) -> u8 {
        match self {
            Exit::Exited(s) => *s,
            Exit::Killed { signal, .. } => 128 + host_signal(*signal),
            Exit::InsnLimit(_) => 124,
        }
    }
}

/// Alpha Linux signal number (OSF/1 numbering,
/// arch/alpha/include/uapi/asm/signal.h) to the generic Linux number used
/// by x86/arm hosts (include/uapi/asm-generic/signal.h).
pub fn host_signal(alpha: u8) -> u8 {
    match alpha {
        7 => 7,   // SIGEMT: no host twin; reported as 7
        10 => 7,  // SIGBUS
        12 => 31, // SIGSYS
        16 => 23, // SIGURG
        17 => 19, // SIGSTOP
        18 => 20, // SIGTSTP
        19 => 18, // SIGCONT
        20 => 17, // SIGCHLD
        23 => 29, // SIGIO
        29 => 30, // SIGINFO/SIGPWR
        30 => 10, // SIGUSR1
        31 => 12, // SIGUSR2
        n => n,   // 1-6, 8, 9, 11, 13-15, 21, 22, 24-28 agree
    }
}

/// Where the dynamic loader (`PT_INTERP`) is placed: `TASK_UNMAPPED_BASE`,
/// where the kernel's first `mmap` of it lands.
pub const INTERP_BASE: u64 = mm::TASK_UNMAPPED_BASE;
/// The guest's process id (and the main thread's id) under `--deterministic`.
pub const PID: u32 = 1000;

/// Who the guest process is: by default the host process's own ids (its
/// pid, parent pid, real and effective uid and gid, file-creation mask),
/// under `--deterministic` the fixed [`Identity::FIXED`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity {
    pub pid: u32,
    pub ppid: u32,
    pub uid: u32,
    pub euid: u32,
    pub gid: u32,
    pub egid: u32,
    /// The `umask` the guest sees (also applied to the host process, so
    /// the files the guest creates get the modes it asked for).
    pub umask: u32,
}

impl Identity {
    /// pid 1000, parent 1, uid/gid 1000, umask 022.
    pub const FIXED: Identity = Identity {
        pid: PID,
        ppid: 1,
        uid: 1000,
        euid: 1000,
        gid: 1000,
        egid: 1000,
        umask: 0o022,
    };

    /// The host process's identity.
    pub fn host() -> Identity {
        // SAFETY: these calls have no preconditions; umask is read by
        // setting it and putting the old value straight back.
        unsafe {
            let umask = libc::umask(0o022);
            libc::umask(umask);
            Identity {
                pid: libc::getpid() as u32,
                ppid: libc::getppid() as u32,
                uid: libc::getuid(),
                euid: libc::geteuid(),
                gid: libc::getgid(),
                egid: libc::getegid(),
                umask: umask as u32,
            }
        }
    }
}
/// Default scheduler quantum (instructions).
pub const DEFAULT_QUANTUM: u64 = 10_000;

// Per-thread unaligned-access control (osf_setsysinfo SSIN_UACPROC,
// arch/alpha/include/asm/sysinfo.h and thread_info.h).
pub const UAC_NOPRINT: u64 = 1;
pub const UAC_NOFIX: u64 = 2;
pub const UAC_SIGBUS: u64 = 4;

/// What a blocked thread waits for; it becomes runnable when any of its
/// waits is satisfied and then executes its system call again (the
/// kernel's restart: the call is re-issued, so it completes, or blocks
/// again, with the state of that moment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Guest fd has data, end of file or an error to report.
    Readable(u64),
    /// Guest fd accepts a write (or has an error to report).
    Writable(u64),
    /// The guest clock ([`Process::clock_ns`]) reaches this many ns.
    Deadline(u64),
    /// A child (`wait4`'s pid encoding) has a status to report.
    Child(i32),
}

/// The part of a blocking system call done before it waits again. A call
/// that has moved some of its data (a `MSG_WAITALL` receive or a blocking
/// stream send part-way through, `recvmmsg`/`sendmmsg` after a message)
/// is not failed with EINTR or restarted by a signal, as Linux does not:
/// the signal marks it `interrupted`, the call is executed once more
/// before the handler runs, and it returns what it has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Some of the call's work is done: a signal ends it with that count.
    pub partial: bool,
    /// A signal ended the wait: the call returns what it has, at once.
    pub interrupted: bool,
    /// Messages `recvmmsg`/`sendmmsg` have moved.
    pub messages: u64,
    /// When `recvmmsg`'s timeout runs out (guest clock, ns).
    pub deadline: Option<u64>,
}

/// A guest process: a machine plus the personality's own state.
pub struct Process {
    pub machine: Machine,
    pub image: LoadedImage,
    /// The dynamic loader's image, when the program has `PT_INTERP`.
    pub interp: Option<LoadedImage>,
    pub strace: bool,
    pub sysroot: Option<std::path::PathBuf>,
    pub cwd: std::path::PathBuf,
    pub fds: fs::FdTable,
    /// Guest-only objects sent through `SCM_RIGHTS` (see [`net::Passed`]).
    pub passed: Vec<std::rc::Rc<net::Passed>>,
    pub aspace: mm::AddressSpace,
    pub signals: signal::Signals,
    /// Every thread the process has had, in creation order (an index
    /// names a thread for its life; exited threads stay).
    pub threads: Vec<Thread>,
    /// The threads by state ([`Process::set_state`] keeps them).
    queues: thread::Queues,
    /// Index in `threads` of the running thread.
    pub cur: usize,
    pub quantum: u64,
    next_tid: u32,
    /// Instructions retired by all threads.
    pub insns: u64,
    /// Unaligned accesses fixed up, and the distinct sites reported.
    pub unaligned_fixups: u64,
    unaligned_sites: std::collections::BTreeSet<u64>,
    /// Name of the program (`comm`), for the kernel-style messages.
    pub comm: String,
    pub symbols: Option<alpha_isa::symbols::Symbols>,
    /// Every ELF file mapped executable: the program, the dynamic loader,
    /// and the libraries the loader maps (recorded by `mmap`), oldest first.
    pub objects: Vec<crate::symbols::LoadedObject>,
    /// The symbolizer for `objects`, built when a diagnostic first needs
    /// it and dropped when `objects` changes.
    symbolizer: std::sync::Mutex<Option<crate::symbols::Symbolizer>>,
    /// A line explaining a known cause, printed after the fatal signal's.
    hint: Option<String>,
    /// Host path of the executable (`/proc/self/exe`).
    pub exe_path: std::path::PathBuf,
    /// Exit status of the last thread that called `exit`.
    pub last_exit: u8,
    /// The running thread asked to give up the processor (`sched_yield`).
    pub yield_now: bool,
    /// Outside deterministic mode: the guest thread (index) whose turn on
    /// the host thread is running, and the host thread's CPU clock when it
    /// began (see [`sched`]).
    pub turn: Option<(usize, u64)>,
    /// A slice ran since the blocked threads were last looked at.
    poll_due: bool,
    /// Counts the programs `execve` has put in this process.
    pub incarnation: u64,
    /// The guest's clocks (host time, or virtual with `--deterministic`).
    pub clock: time::Clock,
    /// Interval timers (`setitimer`, `timer_create`).
    pub timers: time::Timers,
    /// The auxiliary vector given at start (`/proc/self/auxv`).
    pub auxv: Vec<u8>,
    /// argv, each NUL-terminated (`/proc/self/cmdline`).
    pub cmdline: Vec<u8>,
    /// `Options::deterministic`: fixed identity, and host reads complete
    /// at the call (see [`syscall`]'s module docs).
    pub deterministic: bool,
    /// The process's ids and umask.
    pub id: Identity,
    /// The options it was started with (`execve` starts the new program
    /// with them).
    pub opts: Options,
    /// Its place in the host process tree ([`process`]).
    pub procs: process::Procs,
    /// Why the process got portable memory though it asked for
    /// host-mapped memory (said once, as a warning).
    pub memory_warning: Option<String>,
    /// Processors the guest is told it has ([`guest_cpus`]).
    pub ncpus: u32,
    /// Live threads the process may hold ([`thread::max_threads`]); `clone`
    /// of one more fails with EAGAIN.
    pub max_threads: usize,
    /// Why the run ended before its program did: it asked for what these
    /// options refuse ([`Options::may_fork`]).
    pub refused: Option<String>,
}

/// Processors under `--deterministic`: a fixed count (a four-way
/// AlphaServer ES40), so the answer never depends on the host.
pub const DETERMINISTIC_CPUS: u32 = 4;

/// How many processors the guest sees — in `/proc/cpuinfo`,
/// `/sys/devices/system/cpu/{online,possible,present}` (glibc's `sysconf`
/// and `get_nprocs`) and `sched_getaffinity` alike: the host's processors
/// this process may run on (what qemu-alpha passes through), or
/// [`DETERMINISTIC_CPUS`] under `--deterministic`.
pub fn guest_cpus(deterministic: bool) -> u32 {
    if deterministic {
        return DETERMINISTIC_CPUS;
    }
    // SAFETY: a zeroed cpu_set_t is a valid out-parameter of its size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0 {
            (libc::CPU_COUNT(&set) as u32).clamp(1, 64)
        } else {
            1
        }
    }
}

/// How the personality describes an instruction in diagnostics: the
/// disassembly as objdump spells it.
pub fn describe(pc: u64, word: u32) -> String {
    alpha_isa::disasm(pc, word).replace('\t', " ")
}

fn ext_name(e: Ext) -> &'static str {
    match e {
        Ext::Base => "base",
        Ext::Bwx => "BWX",
        Ext::Fix => "FIX",
        Ext::Cix => "CIX",
        Ext::Mvi => "MVI",
    }
}

/// Record the file-backed ranges of a loaded ELF image (read from `path`).
fn note_image_files(
    aspace: &mut mm::AddressSpace,
    img: &loader::LoadedImage,
    path: &std::path::Path,
) {
    let meta = std::fs::metadata(path).ok();
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let name = real.to_string_lossy();
    for &(start, end, offset) in &img.file_ranges {
        aspace.note_file(start, mm::FileMap::of(meta.as_ref(), &name, end, offset));
    }
}

impl Process {
    /// Load `elf` (and its `PT_INTERP` loader through `opts.sysroot`) and
    /// build the initial stack.
    pub fn new(elf: &[u8], opts: &Options) -> Result<Process, String> {
        let (mut machine, memory_warning) =
            Machine::of_kind(opts.model, 1, opts.lock_range, opts.memory);
        machine.set_jit(opts.jit);
        machine.set_inline_rduniq(opts.inline_rduniq);
        if let Some(m) = opts.max_memory {
            machine.mem.set_limit(m);
        }
        // A position-independent executable goes where the kernel puts
        // ELF_ET_DYN_BASE on Alpha (TASK_UNMAPPED_BASE + 0x1000000).
        let image = loader::load(&mut machine.mem, elf, mm::TASK_UNMAPPED_BASE + 0x100_0000)
            .map_err(|e| e.to_string())?;
        let mut entry = image.entry;
        let mut interp_img = None;
        if let Some(interp) = &image.interp {
            let host = fs::resolve(opts.sysroot.as_deref(), None, interp.as_bytes());
            let host = match (&opts.sysroot, host.exists()) {
                (Some(root), false) => root.join(interp.trim_start_matches('/')),
                _ => host,
            };
            let bytes =
                crate::hostfile::read_file(&host, crate::hostfile::MAX_ELF).map_err(|e| {
                    let hint = if opts.sysroot.is_none() {
                        " (dynamically linked: give --sysroot DIR holding the guest's libraries)"
                    } else {
                        ""
                    };
                    format!(
                        "cannot read the program interpreter {}: {e}{hint}",
                        host.display()
                    )
                })?;
            let li = loader::load(&mut machine.mem, &bytes, INTERP_BASE)
                .map_err(|e| format!("program interpreter {}: {e}", host.display()))?;
            entry = li.entry;
            interp_img = Some((li, host));
        }
        let (interp_img, interp_path) = match interp_img {
            Some((li, host)) => (Some(li), Some(host)),
            None => (None, None),
        };
        let execfn = opts.argv.first().cloned().unwrap_or_default();
        let id = if opts.deterministic {
            // SAFETY: no preconditions; the guest's files get its umask.
            unsafe { libc::umask(Identity::FIXED.umask as libc::mode_t) };
            Identity::FIXED
        } else {
            Identity::host()
        };
        let sp = stack::build(
            &mut machine.mem,
            &stack::StackSpec {
                argv: &opts.argv,
                envp: &opts.envp,
                execfn: &execfn,
                image: &image,
                interp_base: interp_img.as_ref().map_or(0, |i| i.bias),
                model: opts.model,
                ids: [id.uid, id.euid, id.gid, id.egid],
                stack_size: opts.stack_bytes(),
            },
        )?;
        let auxv = procfs::saved_auxv(&machine.mem, sp);
        if image.exec_stack {
            let base = stack::STACK_TOP - opts.stack_bytes();
            let _ = machine
                .mem
                .protect(base, opts.stack_bytes(), crate::memory::Perm::RWX);
        }
        let cpu = &mut machine.cpus[0];
        cpu.pc = entry;
        cpu.r[30] = sp;
        // Linux starts a process with a0 = 0 (no rtld_fini), and the ABI's
        // $27 (pv) holding the entry address.
        cpu.r[27] = entry;
        // The kernel's initial FPCR (round to nearest, traps disabled as
        // flush_thread leaves them); FPCR = 0 would mean dynamic "chopped".
        cpu.fpcr = crate::fp::fpcr::linux_initial_fpcr();
        let brk_start = mm::page_up(image.end).unwrap_or(image.end);
        let interp_end = interp_img.as_ref().map_or(0, |i| i.end);
        let mut aspace = mm::AddressSpace::new(brk_start);
        aspace.mmap_base = aspace.mmap_base.max(mm::page_up(interp_end).unwrap_or(0));
        let comm: String = std::path::Path::new(&execfn)
            .file_name()
            .map(|s| s.to_string_lossy().chars().take(15).collect())
            .unwrap_or_default();
        let symbols = alpha_isa::elf::read_symbols(elf)
            .ok()
            .map(|s| alpha_isa::symbols::Symbols::for_section(&s, ".text"));
        let exe_path = std::fs::canonicalize(&execfn).unwrap_or_else(|_| execfn.clone().into());
        note_image_files(&mut aspace, &image, &exe_path);
        if let (Some(li), Some(path)) = (&interp_img, &interp_path) {
            note_image_files(&mut aspace, li, path);
        }
        let mut objects = vec![crate::symbols::LoadedObject {
            path: exe_path.clone(),
            start: image.start,
            end: image.end,
            file_offset: 0,
            bias: Some(image.bias),
        }];
        if let (Some(li), Some(path)) = (&interp_img, interp_path) {
            objects.push(crate::symbols::LoadedObject {
                path,
                start: li.start,
                end: li.end,
                file_offset: 0,
                bias: Some(li.bias),
            });
        }
        let mut p = Process {
            machine,
            image,
            interp: interp_img,
            strace: opts.strace,
            sysroot: opts.sysroot.clone(),
            cwd: std::env::current_dir().unwrap_or_else(|_| "/".into()),
            fds: fs::FdTable::new(),
            passed: Vec::new(),
            aspace,
            signals: {
                let mut s = signal::Signals::default();
                for sig in 1..=signal::NSIG as u8 {
                    if opts.ignored_signals & signal::bit(sig) != 0 && !matches!(sig, 9 | 17) {
                        s.actions[sig as usize].handler = signal::SIG_IGN;
                    }
                }
                s
            },
            threads: Vec::new(),
            queues: thread::Queues::default(),
            cur: 0,
            quantum: opts.quantum.unwrap_or(DEFAULT_QUANTUM).max(1),
            next_tid: id.pid + 1,
            insns: 0,
            unaligned_fixups: 0,
            unaligned_sites: Default::default(),
            comm,
            symbols,
            objects,
            symbolizer: std::sync::Mutex::new(None),
            hint: None,
            exe_path,
            last_exit: 0,
            yield_now: false,
            turn: None,
            poll_due: false,
            incarnation: 0,
            clock: time::Clock::new(opts.deterministic),
            timers: time::Timers::default(),
            auxv,
            cmdline: opts.argv.iter().fold(Vec::new(), |mut v, a| {
                v.extend_from_slice(a.as_bytes());
                v.push(0);
                v
            }),
            deterministic: opts.deterministic,
            id,
            opts: opts.clone(),
            procs: process::Procs::new(opts.max_processes),
            memory_warning,
            ncpus: guest_cpus(opts.deterministic),
            max_threads: thread::max_threads(opts.deterministic),
            refused: None,
        };
        p.add_thread(Thread::new(id.pid, 0, 0));
        if opts.host_signals {
            process::forward_signals(&mut p);
        }
        Ok(p)
    }

    /// An independent copy of this process, for a schedule explorer that
    /// starts every schedule from one loaded program instead of loading it
    /// again. The machine is copied by [`Machine::snapshot`] (its pages
    /// shared copy-on-write, so this process's own write caches restart); the
    /// descriptor table shares its open files (as `fork` would), so this is
    /// meant for a process that has only just been loaded (its three stdio
    /// descriptors, which hold no state). The symbolizer is rebuilt on
    /// demand.
    pub fn snapshot(&mut self) -> Process {
        let fds = fs::FdTable {
            fds: self
                .fds
                .fds
                .iter()
                .map(|f| {
                    f.as_ref().map(|f| fs::Fd {
                        obj: f.obj.clone(),
                        cloexec: f.cloexec,
                        flags: f.flags,
                    })
                })
                .collect(),
        };
        Process {
            machine: self.machine.snapshot(),
            image: self.image.clone(),
            interp: self.interp.clone(),
            strace: self.strace,
            sysroot: self.sysroot.clone(),
            cwd: self.cwd.clone(),
            fds,
            passed: self.passed.clone(),
            aspace: self.aspace.clone(),
            signals: self.signals.clone(),
            threads: self.threads.clone(),
            queues: self.queues.clone(),
            cur: self.cur,
            quantum: self.quantum,
            next_tid: self.next_tid,
            insns: self.insns,
            unaligned_fixups: self.unaligned_fixups,
            unaligned_sites: self.unaligned_sites.clone(),
            comm: self.comm.clone(),
            symbols: self.symbols.clone(),
            objects: self.objects.clone(),
            symbolizer: std::sync::Mutex::new(None),
            hint: self.hint.clone(),
            exe_path: self.exe_path.clone(),
            last_exit: self.last_exit,
            yield_now: self.yield_now,
            turn: self.turn,
            poll_due: self.poll_due,
            incarnation: self.incarnation,
            clock: self.clock.clone(),
            timers: self.timers.clone(),
            auxv: self.auxv.clone(),
            cmdline: self.cmdline.clone(),
            deterministic: self.deterministic,
            id: self.id,
            opts: self.opts.clone(),
            procs: self.procs.clone(),
            memory_warning: None,
            ncpus: self.ncpus,
            max_threads: self.max_threads,
            refused: self.refused.clone(),
        }
    }

    /// [`Process::new`] for a program read from host path `host` (`execve`):
    /// `/proc/self/exe` and the diagnostics name that file.
    pub fn new_with_path(
        elf: &[u8],
        opts: &Options,
        host: &std::path::Path,
    ) -> Result<Process, String> {
        let mut p = Process::new(elf, opts)?;
        let exe = std::fs::canonicalize(host).unwrap_or_else(|_| host.to_path_buf());
        p.exe_path = exe.clone();
        note_image_files(&mut p.aspace, &p.image, &exe);
        p.objects[0].path = exe;
        p.comm = host
            .file_name()
            .map(|s| s.to_string_lossy().chars().take(15).collect())
            .unwrap_or_default();
        Ok(p)
    }

    fn insn_text(&self, pc: u64) -> String {
        match self.machine.mem.word_at(pc) {
            Some(w) => describe(pc, w),
            None => "<unreadable>".to_string(),
        }
    }

    /// Where `pc` is in the loaded objects (program, loader, libraries).
    pub fn locate(&self, pc: u64) -> Option<crate::symbols::Location> {
        let mut cache = self.symbolizer.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .get_or_insert_with(|| crate::symbols::Symbolizer::for_process(self))
            .lookup(pc)
    }

    /// Record an executable file mapping (`mmap` with `PROT_EXEC`).
    pub fn note_mapping(&mut self, o: crate::symbols::LoadedObject) {
        self.objects.push(o);
        *self.symbolizer.get_mut().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// Forget what `munmap(addr, len)` removed of the executable mappings:
    /// a mapping inside the range goes, one partly inside keeps what is
    /// left (ld.so unmaps the slack of an over-sized mapping it aligned).
    pub fn note_unmap(&mut self, addr: u64, len: u64) {
        let end = addr.saturating_add(len);
        if !self.objects.iter().any(|o| o.start < end && addr < o.end) {
            return;
        }
        let mut kept = Vec::with_capacity(self.objects.len() + 1);
        for o in std::mem::take(&mut self.objects) {
            if o.end <= addr || o.start >= end {
                kept.push(o);
                continue;
            }
            // The pieces left no longer start where the file offset says,
            // so fix the bias from the mapping as it was.
            let bias = o.bias.or_else(|| crate::symbols::mapping_bias(&o));
            for (s, e) in [(o.start, addr.min(o.end)), (end.max(o.start), o.end)] {
                if s < e {
                    kept.push(crate::symbols::LoadedObject {
                        start: s,
                        end: e,
                        bias,
                        ..o.clone()
                    });
                }
            }
        }
        self.objects = kept;
        *self.symbolizer.get_mut().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// `insn at 0x… <func+0xNN> (file.c:12)` for diagnostics; the symbol
    /// comes from whichever loaded object holds the pc.
    fn where_(&self, pc: u64) -> String {
        let (sym, line) = match self.locate(pc) {
            Some(l) => (
                format!(" <{}>", l.symbol_text()),
                l.file_line().map(|f| format!(" ({f})")).unwrap_or_default(),
            ),
            None => (String::new(), String::new()),
        };
        format!("{} at 0x{pc:x}{sym}{line}", self.insn_text(pc))
    }

    fn finish(&self, host: &mut dyn Host, exit: Exit) -> Exit {
        if let Exit::Killed { why, .. } = &exit {
            host.diag(why);
            if let Some(h) = &self.hint {
                host.diag(h);
            }
        }
        exit
    }

    /// The known cause of a memory fault at `pc`, if there is one: a static
    /// glibc program linked with relaxation faults in `__ctype_init`
    /// because the linker resolved glibc's weak `__ehdr_start` to 0, so
    /// startup found no `PT_TLS` and the thread pointer stayed 0.
    fn fault_hint(&self, pc: u64) -> Option<String> {
        let l = self.locate(pc)?;
        (self.interp.is_none() && l.symbol.as_deref() == Some("__ctype_init")).then(|| {
            "this static program was linked with linker relaxation, which resolved glibc's weak \
             `__ehdr_start` to 0, so TLS was never set up; relink it with -Wl,--no-relax"
                .to_string()
        })
    }

    fn kill(&self, signal: u8, name: &str, what: String) -> Option<Exit> {
        Some(Exit::Killed {
            signal,
            why: format!("{name}: {what}"),
        })
    }

    /// Make thread `t` runnable again with syscall result `r`.
    pub fn wake_thread(&mut self, t: usize, r: Result<u64, u64>) {
        self.set_state(t, ThreadState::Runnable);
        let cpu = &mut self.machine.cpus[self.threads[t].cpu];
        set_result(cpu, r);
    }

    /// A signal raised by the hardware or PALcode in the running thread
    /// (force_sig_fault): delivered to its handler, or the process dies
    /// with `why` when it is blocked, ignored or defaulted.
    fn force(&mut self, info: signal::Info, why: String) -> Option<Exit> {
        let t = self.cur;
        let sig = info.signo;
        let act = self.signals.actions[sig as usize];
        let blocked = self.threads[t].sigmask & signal::bit(sig) != 0;
        if act.handler == signal::SIG_DFL || act.handler == signal::SIG_IGN || blocked {
            return self.kill(sig, &signal::name(sig), why);
        }
        if self.enter_handler(t, &act, &info).is_err() {
            return self.kill(
                SIGSEGV,
                "SIGSEGV",
                format!(
                    "cannot write the signal frame for {} ({why})",
                    signal::name(sig)
                ),
            );
        }
        None
    }

    fn enter_handler(
        &mut self,
        t: usize,
        act: &signal::Action,
        info: &signal::Info,
    ) -> Result<(), signal::FrameFault> {
        let saved = self.threads[t].saved_mask.take();
        let th = &self.threads[t];
        let old_mask = saved.unwrap_or(th.sigmask);
        let alt = th.altstack;
        let c = th.cpu;
        signal::setup_frame(
            &mut self.machine.mem,
            &mut self.machine.cpus[c],
            act,
            info,
            old_mask,
            &alt,
        )?;
        // After a wait with a temporary mask (sigsuspend, ppoll, …) the
        // handler runs with that mask, and its frame restores the caller's
        // own (Linux's signal_delivered, sigmask_to_save).
        let mut mask = self.threads[t].sigmask | act.mask;
        if act.flags & signal::SA_NODEFER == 0 {
            mask |= signal::bit(info.signo);
        }
        self.threads[t].sigmask =
            mask & !(signal::bit(signal::SIGKILL) | signal::bit(signal::SIGSTOP));
        if act.flags & signal::SA_RESETHAND != 0 {
            self.signals.actions[info.signo as usize] = signal::Action::default();
        }
        Ok(())
    }

    /// Queue a signal sent by `kill`/`tgkill`.
    pub fn send(&mut self, info: signal::Info) {
        let sig = info.signo;
        let act = self.signals.actions[sig as usize];
        if sig != signal::SIGKILL
            && (act.handler == signal::SIG_IGN
                || (act.handler == signal::SIG_DFL && signal::default_ignored(sig)))
        {
            return;
        }
        if !self
            .signals
            .pending
            .iter()
            .any(|p| p.signo == sig && p.target == info.target)
        {
            self.signals.pending.push(info);
        }
        // A thread blocked in futex wait that can take the signal is woken
        // with EINTR, or restarted after the handler with SA_RESTART —
        // unless a runnable thread can take a process-directed signal.
        let can_take = |t: &Thread| {
            (info.target == 0 || info.target == t.tid)
                && (sig == signal::SIGKILL || t.sigmask & signal::bit(sig) == 0)
        };
        let runnable_taker = self.threads.iter().any(|t| t.runnable() && can_take(t));
        if !runnable_taker {
            if let Some(i) = self.threads.iter().position(|t| {
                matches!(
                    t.state(),
                    ThreadState::FutexWait { .. } | ThreadState::Blocked
                ) && can_take(t)
            }) {
                if self.threads[i].state() == ThreadState::Blocked
                    && self.threads[i].progress.is_some_and(|g| g.partial)
                {
                    // A call with part of its work done returns that part
                    // (step_thread re-executes it before the handler).
                    self.unblock(i);
                    if let Some(g) = self.threads[i].progress.as_mut() {
                        g.interrupted = true;
                    }
                } else if self.threads[i].state() == ThreadState::Blocked {
                    // Its pc is on the callsys already: with SA_RESTART the
                    // call runs again after the handler, else it fails EINTR
                    // (a timed wait — poll, select — and rt_sigsuspend always
                    // fail EINTR, as those calls are never restarted).
                    self.unblock(i);
                    // poll, ppoll (pause), select, pselect6 and the
                    // epoll waits are never restarted after a handler,
                    // timed or not (signal(7); v0 still holds the call's
                    // number: the pc is on the callsys).
                    let nr = self.machine.cpus[self.threads[i].cpu].r[0];
                    let never_restarted = matches!(nr, 94 | 358 | 463 | 464 | 409 | 474 | 551);
                    let timed = self.threads[i].timeout_at.take().is_some() || never_restarted;
                    let suspended = self.threads[i].saved_mask.is_some();
                    if act.flags & signal::SA_RESTART == 0 || timed || suspended {
                        let cpu = &mut self.machine.cpus[self.threads[i].cpu];
                        cpu.pc = cpu.pc.wrapping_add(4);
                        set_result(cpu, Err(errno::EINTR));
                    }
                } else if act.flags & signal::SA_RESTART != 0 {
                    // SA_RESTART: after the handler the wait starts again
                    // (futex_wait's -ERESTARTSYS): back to the CALL_PAL
                    // with v0 and a0-a5 as they were.
                    self.set_state(i, ThreadState::Runnable);
                    let cpu = &mut self.machine.cpus[self.threads[i].cpu];
                    cpu.pc = cpu.pc.wrapping_sub(4);
                } else {
                    self.wake_thread(i, Err(errno::EINTR));
                }
            } else if let Some(i) = self
                .threads
                .iter()
                .position(|t| matches!(t.state(), ThreadState::Sleep { .. }) && can_take(t))
            {
                self.interrupt_sleep(i);
            }
        }
    }

    /// Deliver the lowest unblocked pending signal to the running thread.
    /// A temporary mask still in force once no handler took a signal (the
    /// signal went to another thread, or the interrupted wait is about to
    /// run again) gives way to the thread's own: a wait that runs again
    /// installs its mask again.
    fn deliver_pending(&mut self, host: &mut dyn Host) -> Option<Exit> {
        let exit = self.deliver_one(host);
        let th = &mut self.threads[self.cur];
        if let Some(own) = th.saved_mask.take() {
            th.sigmask = own;
        }
        exit
    }

    fn deliver_one(&mut self, _host: &mut dyn Host) -> Option<Exit> {
        if self.signals.pending.is_empty() {
            return None;
        }
        let t = self.cur;
        let mask = self.threads[t].sigmask;
        let pos = self
            .signals
            .pending
            .iter()
            .enumerate()
            .filter(|(_, i)| i.target == 0 || i.target == self.threads[t].tid)
            .filter(|(_, i)| i.signo == signal::SIGKILL || mask & signal::bit(i.signo) == 0)
            .min_by_key(|(_, i)| i.signo)
            .map(|(k, _)| k)?;
        let info = self.signals.pending.remove(pos);
        let sig = info.signo;
        let act = self.signals.actions[sig as usize];
        if act.handler == signal::SIG_IGN {
            return None;
        }
        if act.handler == signal::SIG_DFL || sig == signal::SIGKILL {
            if signal::default_ignored(sig) {
                return None;
            }
            if signal::default_stop(sig) {
                // The process stops: the host process does, when the guest
                // is it, until a SIGCONT continues it (a shell's job control
                // sees it stopped, as under qemu-user); an embedded run
                // goes on at once.
                if self.opts.host_signals {
                    // The host's disposition of a stop signal follows the
                    // guest's (default here, see `process::sync_host_action`).
                    // SAFETY: raising a signal on ourselves has no
                    // memory-safety preconditions.
                    unsafe { libc::raise(host_signal(sig) as i32) };
                }
                return None;
            }
            let pc = self.machine.cpus[self.threads[t].cpu].pc;
            let tid = self.threads[t].tid;
            let what = if info.timer {
                format!("a timer expired, thread {tid} at pc 0x{pc:x}")
            } else if sig == SIGFPE {
                format!("thread {tid} at pc 0x{pc:x}: floating-point exception raised (osf_setsysinfo SSI_IEEE_RAISE_EXCEPTION) with its trap enabled")
            } else if info.is_kill {
                format!("sent by the guest (kill/tgkill), thread {tid} at pc 0x{pc:x}")
            } else if sig == signal::SIGPIPE {
                format!("thread {tid} at pc 0x{pc:x} wrote to a pipe with no reader")
            } else if sig != signal::SIGKILL {
                format!("thread {tid} at pc 0x{pc:x}: sigreturn found no readable signal frame")
            } else {
                format!("thread {tid} at pc 0x{pc:x} waits for a signal that nothing can send (deadlock)")
            };
            return self.kill(sig, &signal::name(sig), what);
        }
        if self.enter_handler(t, &act, &info).is_err() {
            return self.kill(
                SIGSEGV,
                "SIGSEGV",
                format!("cannot write the signal frame for {}", signal::name(sig)),
            );
        }
        None
    }

    /// Handle one event; `Some` when the process is over.
    fn handle(&mut self, host: &mut dyn Host, c: usize, ev: Event) -> Option<Exit> {
        let pc = self.machine.cpus[c].pc;
        if !matches!(ev, Event::BudgetExhausted) {
            // Entering the kernel (PALcode) clears the lock flag (Handbook §4.2.5).
            self.machine.mem.clear_reservation(c);
        }
        let fault = |signo: u8, code: i32, addr: u64| signal::Info {
            signo,
            code,
            addr,
            ..Default::default()
        };
        match ev {
            Event::BudgetExhausted => None,
            Event::CallPal { func } => self.call_pal(host, c, func, pc.wrapping_sub(4)),
            Event::Opcdec { insn: _, missing } => {
                let model = self.machine.cpus[c].model.name;
                let w = self.where_(pc);
                let what = match missing {
                    Some(e) => format!("{w}: needs {}, which {model} lacks", ext_name(e)),
                    None => format!("{w}: reserved or privileged instruction"),
                };
                self.force(fault(SIGILL, signal::ILL_ILLOPC, pc), what)
            }
            Event::IntegerOverflow { .. } => {
                let at = pc.wrapping_sub(4);
                let w = self.where_(at);
                self.force(
                    fault(SIGFPE, signal::FPE_INTOVF, at),
                    format!("{w}: integer overflow"),
                )
            }
            Event::Unaligned { insn, addr, .. } => self.unaligned(host, c, insn, addr, pc),
            Event::MemFault { fault: f } => {
                if f.access != Access::Fetch {
                    self.hint = self.fault_hint(pc);
                }
                let what = match f.access {
                    Access::Fetch => format!("instruction fetch at 0x{:x}", f.addr),
                    Access::Read => format!("{}: read of 0x{:x}", self.where_(pc), f.addr),
                    Access::Write => format!("{}: write to 0x{:x}", self.where_(pc), f.addr),
                };
                let (why, code) = match f.kind {
                    FaultKind::Unmapped => ("unmapped", signal::SEGV_MAPERR),
                    FaultKind::Protection => ("not permitted", signal::SEGV_ACCERR),
                    FaultKind::Unaligned => ("unaligned", signal::SEGV_ACCERR),
                };
                self.force(fault(SIGSEGV, code, f.addr), format!("{what} ({why})"))
            }
            Event::FpArith { si_code, .. } => {
                let at = pc.wrapping_sub(4);
                let w = self.where_(at);
                self.force(
                    fault(SIGFPE, si_code, at),
                    format!("{w}: floating-point trap (si_code {si_code})"),
                )
            }
            Event::Fp { insn: _ } => {
                let w = self.where_(pc);
                self.force(
                    fault(SIGILL, signal::ILL_ILLOPC, pc),
                    format!("{w}: floating-point instruction not implemented"),
                )
            }
        }
    }

    fn unaligned(
        &mut self,
        host: &mut dyn Host,
        c: usize,
        insn: Insn,
        addr: u64,
        pc: u64,
    ) -> Option<Exit> {
        let uac = self.threads[self.cur].uac;
        let is_llsc = matches!(
            insn.op,
            alpha_isa::Op::LdlL | alpha_isa::Op::LdqL | alpha_isa::Op::StlC | alpha_isa::Op::StqC
        );
        if uac & UAC_SIGBUS != 0 && !is_llsc {
            let w = self.where_(pc);
            return self.force(
                signal::Info {
                    signo: SIGBUS,
                    code: signal::BUS_ADRALN,
                    addr,
                    ..Default::default()
                },
                format!("{w}: unaligned address 0x{addr:x} (UAC_SIGBUS)"),
            );
        }
        let m = &mut self.machine;
        match exec::mem::complete_unaligned(&mut m.cpus[c], &mut m.mem, insn, pc) {
            Ok(next) => {
                m.cpus[c].pc = next;
                m.cpus[c].icount += 1;
                self.insns += 1;
                self.unaligned_fixups += 1;
                if self.unaligned_sites.insert(pc) && uac & UAC_NOPRINT == 0 {
                    // arch/alpha/kernel/traps.c do_entUna's message.
                    let word = self.machine.mem.word_at(pc).unwrap_or(0);
                    host.diag(&format!(
                        "{}({}): unaligned trap at {pc:016x}: {addr:x} {:x} {:x}",
                        self.comm,
                        self.threads[self.cur].tid,
                        alpha_isa::opcode(word),
                        alpha_isa::decode(word).ra
                    ));
                }
                None
            }
            Err(Event::MemFault { fault }) => {
                let w = self.where_(pc);
                self.force(
                    signal::Info {
                        signo: SIGSEGV,
                        code: signal::SEGV_MAPERR,
                        addr: fault.addr,
                        ..Default::default()
                    },
                    format!("{w}: unaligned access to 0x{:x} faulted", fault.addr),
                )
            }
            Err(_) => {
                let w = self.where_(pc);
                self.force(
                    signal::Info {
                        signo: SIGBUS,
                        code: signal::BUS_ADRALN,
                        addr,
                        ..Default::default()
                    },
                    format!("{w}: unaligned address 0x{addr:x}"),
                )
            }
        }
    }

    fn call_pal(&mut self, host: &mut dyn Host, c: usize, func: u32, at: u64) -> Option<Exit> {
        match func {
            pal::CALLSYS => syscall::callsys(self, host, c),
            pal::IMB => {
                self.machine.flush_icache();
                None
            }
            pal::RDUNIQ => {
                let cpu = &mut self.machine.cpus[c];
                cpu.r[0] = cpu.uniq;
                None
            }
            pal::WRUNIQ => {
                let cpu = &mut self.machine.cpus[c];
                cpu.uniq = cpu.r[16];
                None
            }
            pal::BPT | pal::BUGCHK => {
                let w = self.where_(at);
                let code = if func == pal::BPT {
                    signal::TRAP_BRKPT
                } else {
                    signal::TRAP_UNK
                };
                self.force(
                    signal::Info {
                        signo: SIGTRAP,
                        code,
                        addr: at,
                        ..Default::default()
                    },
                    format!("{w}: breakpoint"),
                )
            }
            pal::GENTRAP => {
                let code = self.machine.cpus[c].r[16] as i64;
                let (sig, si_code) = signal::gentrap(code);
                let w = self.where_(at);
                self.force(
                    signal::Info {
                        signo: sig,
                        code: si_code,
                        addr: at.wrapping_add(4),
                        ..Default::default()
                    },
                    format!("{w}: gentrap {code}"),
                )
            }
            _ => {
                let w = self.where_(at);
                self.force(
                    signal::Info {
                        signo: SIGILL,
                        code: signal::ILL_ILLOPC,
                        addr: at,
                        ..Default::default()
                    },
                    format!("{w}: PALcode function 0x{func:x} is privileged or unknown"),
                )
            }
        }
    }
}

/// Write a system-call result with the Alpha convention (v0, a3).
pub fn set_result(cpu: &mut crate::cpu::Cpu, r: Result<u64, u64>) {
    match r {
        Ok(v) => {
            cpu.r[0] = v;
            cpu.r[19] = 0;
        }
        Err(e) => {
            cpu.r[0] = e;
            cpu.r[19] = 1;
        }
    }
}

impl Process {
    /// The guest starts without descriptors 0-2 that `host` has closed, as
    /// under Linux; so a `Stdio(n)` object in the table is always a stream
    /// the host has open.
    pub fn close_streams_closed_in(&mut self, host: &dyn Host) {
        for fd in 0..3 {
            if host.stream_closed(fd) {
                let _ = self.fds.close(fd as u64);
            }
        }
    }
}

/// Load and run `elf` to the end: the whole of `subword alpha run`.
pub fn run_program(elf: &[u8], opts: &Options, host: &mut dyn Host) -> Result<Exit, String> {
    let mut p = Process::new(elf, opts)?;
    if let Some(why) = p.memory_warning.take() {
        host.diag(&format!("warning: {why}"));
    }
    p.close_streams_closed_in(host);
    let exit = p.run(host, opts.max_insns);
    p.leave_tree(&exit);
    if opts.jit_stats {
        // Count what was still being compiled when the guest ended, too.
        p.machine.jit_wait();
        host.diag(&p.machine.jit_stats().report(p.insns));
    }
    // A forked child dies by its guest's fatal signal, so that the guest
    // parent's wait4 sees the signal (only ever in a forked child).
    process::die_by_signal(&p, &exit);
    Ok(exit)
}
