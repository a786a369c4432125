//! The Linux user-mode personality (minimal, issue 2): loads a static
//! executable, builds the initial stack, runs CPU 0, performs the system
//! calls `write`, `exit` and `exit_group`, and turns every other interpreter
//! event into what Alpha Linux would do: `callsys`/`imb`/`rduniq`/`wruniq`
//! PALcode, unaligned-access fix-ups (counted), and signals whose default
//! action ends the process with status 128+N and one diagnostic line.
//!
//! Issue 3 grows this into the full personality (dynamic loading through
//! `PT_INTERP`, the whole system-call table, signal frames, threads). The
//! shape is ready for it: the personality owns a [`Machine`] (several CPUs),
//! and all host I/O goes through [`Host`].

pub mod stack;
pub mod syscall;

use crate::exec::{self, Event};
use crate::loader::{self, LoadedImage};
use crate::machine::Machine;
use crate::memory::{Access, FaultKind};
use alpha_isa::{Ext, Insn, Model};

/// Signals whose default action ends the process (numbers as on Alpha Linux,
/// arch/alpha/include/uapi/asm/signal.h).
pub const SIGILL: u8 = 4;
pub const SIGTRAP: u8 = 5;
pub const SIGFPE: u8 = 8;
pub const SIGBUS: u8 = 10;
pub const SIGSEGV: u8 = 11;

// User PALcode functions (arch/alpha/include/uapi/asm/pal.h).
pub const PAL_BPT: u32 = 0x80;
pub const PAL_BUGCHK: u32 = 0x81;
pub const PAL_CALLSYS: u32 = 0x83;
pub const PAL_IMB: u32 = 0x86;
pub const PAL_RDUNIQ: u32 = 0x9e;
pub const PAL_WRUNIQ: u32 = 0x9f;
pub const PAL_GENTRAP: u32 = 0xaa;

/// Where guest output goes. The CLI writes to the host's streams; tests
/// and the demo capture it.
pub trait Host {
    /// Write guest bytes to guest fd 0, 1 or 2.
    fn write(&mut self, fd: u32, bytes: &[u8]);
    /// One diagnostic line from the personality (no trailing newline).
    fn diag(&mut self, line: &str);
}

/// The host's own stdout and stderr.
pub struct StdHost;

impl Host for StdHost {
    fn write(&mut self, fd: u32, bytes: &[u8]) {
        use std::io::Write;
        if fd == 2 {
            let mut e = std::io::stderr().lock();
            let _ = e.write_all(bytes);
        } else {
            let mut o = std::io::stdout().lock();
            let _ = o.write_all(bytes);
            let _ = o.flush();
        }
    }
    fn diag(&mut self, line: &str) {
        eprintln!("subword: {line}");
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
        }
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

/// A guest process: a machine plus the personality's own state.
pub struct Process {
    pub machine: Machine,
    pub image: LoadedImage,
    pub strace: bool,
    /// Unaligned accesses fixed up, and the distinct sites reported.
    pub unaligned_fixups: u64,
    unaligned_sites: std::collections::BTreeSet<u64>,
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

impl Process {
    /// Load `elf` and build the initial stack.
    pub fn new(elf: &[u8], opts: &Options) -> Result<Process, String> {
        let mut machine = Machine::new(opts.model, 1, opts.lock_range);
        if let Some(m) = opts.max_memory {
            machine.mem.set_limit(m);
        }
        let image =
            loader::load(&mut machine.mem, elf, 0x1_2000_0000).map_err(|e| e.to_string())?;
        if let Some(interp) = &image.interp {
            return Err(format!(
                "dynamically linked (interpreter {interp}); this build runs static executables only"
            ));
        }
        let execfn = opts.argv.first().cloned().unwrap_or_default();
        let sp = stack::build(
            &mut machine.mem,
            &stack::StackSpec {
                argv: &opts.argv,
                envp: &opts.envp,
                execfn: &execfn,
                image: &image,
                interp_base: 0,
                model: opts.model,
            },
        )?;
        let cpu = &mut machine.cpus[0];
        cpu.pc = image.entry;
        cpu.r[30] = sp;
        // Linux starts a process with a0 = 0 (no rtld_fini), and the ABI's
        // $27 (pv) holding the entry address.
        cpu.r[27] = image.entry;
        // The kernel's initial FPCR (round to nearest, traps disabled as
        // flush_thread leaves them); FPCR = 0 would mean dynamic "chopped".
        cpu.fpcr = crate::fp::fpcr::linux_initial_fpcr();
        Ok(Process {
            machine,
            image,
            strace: opts.strace,
            unaligned_fixups: 0,
            unaligned_sites: Default::default(),
        })
    }

    fn insn_text(&self, pc: u64) -> String {
        match self.machine.mem.word_at(pc) {
            Some(w) => describe(pc, w),
            None => "<unreadable>".to_string(),
        }
    }

    /// Run to the end (or to `max_insns`).
    pub fn run(&mut self, host: &mut dyn Host, max_insns: Option<u64>) -> Exit {
        const SLICE: u64 = 1 << 24;
        loop {
            let left = match max_insns {
                Some(m) => {
                    let done = self.machine.cpus[0].icount;
                    if done >= m {
                        let pc = self.machine.cpus[0].pc;
                        let why = format!(
                            "stopped after {done} instructions (--max-insns) at pc 0x{pc:x}"
                        );
                        host.diag(&why);
                        return Exit::InsnLimit(done);
                    }
                    (m - done).min(SLICE)
                }
                None => SLICE,
            };
            let ev = self.machine.run(0, left);
            if let Some(exit) = self.handle(host, 0, ev) {
                if let Exit::Killed { why, .. } = &exit {
                    host.diag(why);
                }
                return exit;
            }
        }
    }

    fn kill(&self, signal: u8, name: &str, what: String) -> Option<Exit> {
        Some(Exit::Killed {
            signal,
            why: format!("{name}: {what}"),
        })
    }

    /// Handle one event; `Some` when the process is over.
    fn handle(&mut self, host: &mut dyn Host, c: usize, ev: Event) -> Option<Exit> {
        let pc = self.machine.cpus[c].pc;
        if !matches!(ev, Event::BudgetExhausted) {
            // Entering the kernel (PALcode) clears the lock flag (Handbook §4.2.5).
            self.machine.mem.clear_reservation(c);
        }
        match ev {
            Event::BudgetExhausted => None,
            Event::CallPal { func } => self.call_pal(host, c, func, pc.wrapping_sub(4)),
            Event::Opcdec { insn: _, missing } => {
                let text = self.insn_text(pc);
                let model = self.machine.cpus[c].model.name;
                let what = match missing {
                    Some(e) => format!(
                        "{text} at 0x{pc:x}: needs {}, which {model} lacks",
                        ext_name(e)
                    ),
                    None => format!("{text} at 0x{pc:x}: reserved or privileged instruction"),
                };
                self.kill(SIGILL, "SIGILL", what)
            }
            Event::IntegerOverflow { .. } => {
                let at = pc.wrapping_sub(4);
                let text = self.insn_text(at);
                self.kill(
                    SIGFPE,
                    "SIGFPE",
                    format!("{text} at 0x{at:x}: integer overflow"),
                )
            }
            Event::Unaligned { insn, addr, .. } => self.unaligned(c, insn, addr, pc),
            Event::MemFault { fault } => {
                let text = self.insn_text(pc);
                let what = match fault.access {
                    Access::Fetch => format!("instruction fetch at 0x{:x}", fault.addr),
                    Access::Read => format!("{text} at 0x{pc:x}: read of 0x{:x}", fault.addr),
                    Access::Write => {
                        format!("{text} at 0x{pc:x}: write to 0x{:x}", fault.addr)
                    }
                };
                let why = match fault.kind {
                    FaultKind::Unmapped => "unmapped",
                    FaultKind::Protection => "not permitted",
                    FaultKind::Unaligned => "unaligned",
                };
                self.kill(SIGSEGV, "SIGSEGV", format!("{what} ({why})"))
            }
            Event::FpArith { si_code, .. } => {
                let at = pc.wrapping_sub(4);
                let text = self.insn_text(at);
                self.kill(
                    SIGFPE,
                    "SIGFPE",
                    format!("{text} at 0x{at:x}: floating-point trap (si_code {si_code})"),
                )
            }
            Event::Fp { insn: _ } => {
                let text = self.insn_text(pc);
                self.kill(
                    SIGILL,
                    "SIGILL",
                    format!("{text} at 0x{pc:x}: floating-point instruction not implemented"),
                )
            }
        }
    }

    fn unaligned(&mut self, c: usize, insn: Insn, addr: u64, pc: u64) -> Option<Exit> {
        let m = &mut self.machine;
        match exec::mem::complete_unaligned(&mut m.cpus[c], &mut m.mem, insn, pc) {
            Ok(next) => {
                m.cpus[c].pc = next;
                m.cpus[c].icount += 1;
                self.unaligned_fixups += 1;
                self.unaligned_sites.insert(pc);
                None
            }
            Err(Event::MemFault { fault }) => {
                let text = self.insn_text(pc);
                self.kill(
                    SIGSEGV,
                    "SIGSEGV",
                    format!(
                        "{text} at 0x{pc:x}: unaligned access to 0x{:x} faulted",
                        fault.addr
                    ),
                )
            }
            Err(_) => {
                let text = self.insn_text(pc);
                self.kill(
                    SIGBUS,
                    "SIGBUS",
                    format!("{text} at 0x{pc:x}: unaligned address 0x{addr:x}"),
                )
            }
        }
    }

    fn call_pal(&mut self, host: &mut dyn Host, c: usize, func: u32, at: u64) -> Option<Exit> {
        match func {
            PAL_CALLSYS => {
                let nr = self.machine.cpus[c].r[0];
                let args: Vec<u64> = self.machine.cpus[c].r[16..22].to_vec();
                let out = syscall::dispatch(self, host, c, nr);
                match out {
                    syscall::Outcome::Exit(s) => {
                        if self.strace {
                            host.diag(&format!(
                                "strace: {}({}) = ?",
                                syscall::name(nr).unwrap_or("?"),
                                args[0]
                            ));
                        }
                        Some(Exit::Exited(s))
                    }
                    syscall::Outcome::Return(r) => {
                        if self.strace {
                            let name = syscall::name(nr)
                                .map(str::to_string)
                                .unwrap_or_else(|| format!("syscall_{nr}"));
                            let res = match r {
                                Ok(v) => format!("{v}"),
                                Err(e) => format!("-1 errno={e}"),
                            };
                            host.diag(&format!(
                                "strace: {name}(0x{:x}, 0x{:x}, 0x{:x}) = {res}",
                                args[0], args[1], args[2]
                            ));
                        }
                        let cpu = &mut self.machine.cpus[c];
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
                        None
                    }
                }
            }
            PAL_IMB => {
                self.machine.flush_icache();
                None
            }
            PAL_RDUNIQ => {
                let cpu = &mut self.machine.cpus[c];
                cpu.r[0] = cpu.uniq;
                None
            }
            PAL_WRUNIQ => {
                let cpu = &mut self.machine.cpus[c];
                cpu.uniq = cpu.r[16];
                None
            }
            PAL_BPT | PAL_BUGCHK => {
                self.kill(SIGTRAP, "SIGTRAP", format!("breakpoint at 0x{at:x}"))
            }
            PAL_GENTRAP => {
                let code = self.machine.cpus[c].r[16] as i64;
                self.kill(SIGFPE, "SIGFPE", format!("gentrap {code} at 0x{at:x}"))
            }
            _ => {
                let text = self.insn_text(at);
                self.kill(
                    SIGILL,
                    "SIGILL",
                    format!(
                        "{text} at 0x{at:x}: PALcode function 0x{func:x} is privileged or unknown"
                    ),
                )
            }
        }
    }
}

/// Load and run `elf` to the end: the whole of `subword alpha run`.
pub fn run_program(elf: &[u8], opts: &Options, host: &mut dyn Host) -> Result<Exit, String> {
    let mut p = Process::new(elf, opts)?;
    Ok(p.run(host, opts.max_insns))
}
