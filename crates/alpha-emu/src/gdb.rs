//! A GDB remote stub for `alpha run -g PORT` (the `gdbstub` crate).
//!
//! The register layout is GDB's Alpha target (gdb/alpha-tdep.h; GDB has no
//! XML description for Alpha, so the `g` packet is fixed): 67 little-endian
//! 64-bit registers, `r0`-`r31` (r31 reads 0), `f0`-`f30`, `fpcr` in slot
//! 63, `pc` (64), an unused slot (65, GDB's `''`) and `unique` (66).
//!
//! The guest runs one instruction at a time under the stub (the compiling
//! tier is off): after each one the stub checks the software breakpoints
//! (by pc, so guest code is never patched) and the watchpoints: a write
//! watchpoint fires when the watched bytes change; a read watchpoint when
//! the instruction loaded any of them, and an access watchpoint on either
//! (both seen in [`crate::memory::Memory`]'s access trace, which is on
//! while such a watchpoint is set), and every few thousand
//! instructions it looks for a Ctrl-C from GDB. The guest runs in the
//! process's own run loop ([`Process::run_with`]) under [`RoundRobin`]
//! with one instruction per slice, so threads take turns as under `alpha
//! run` (a quantum each), and timers, sleepers, timed waits and host
//! signals behave the same; GDB sees the thread that runs next.

use crate::linux::sched::{Ended, Flow, Pick, Ran, RoundRobin, Scheduler};
use crate::linux::{host_signal, Exit, Host, Process};
use gdbstub::arch::{Arch, RegId, Registers};
use gdbstub::common::Signal;
use gdbstub::conn::ConnectionExt;
use gdbstub::stub::run_blocking::{self, BlockingEventLoop};
use gdbstub::stub::{DisconnectReason, GdbStub, SingleThreadStopReason};
use gdbstub::target::ext::base::singlethread::{
    SingleThreadBase, SingleThreadResume, SingleThreadResumeOps, SingleThreadSingleStep,
    SingleThreadSingleStepOps,
};
use gdbstub::target::ext::base::BaseOps;
use gdbstub::target::ext::breakpoints::{
    Breakpoints, BreakpointsOps, HwWatchpoint, HwWatchpointOps, SwBreakpoint, SwBreakpointOps,
    WatchKind,
};
use gdbstub::target::{Target, TargetError, TargetResult};
use std::num::NonZeroUsize;

/// Registers in GDB's Alpha numbering.
pub const NUM_REGS: usize = 67;
pub const FPCR_REGNUM: usize = 63;
pub const PC_REGNUM: usize = 64;
pub const UNIQUE_REGNUM: usize = 66;

/// GDB's Alpha architecture.
pub enum Alpha {}

/// The 67 registers of GDB's `g` packet.
#[derive(Clone, Debug, PartialEq)]
pub struct AlphaRegs(pub [u64; NUM_REGS]);

impl Default for AlphaRegs {
    fn default() -> Self {
        AlphaRegs([0; NUM_REGS])
    }
}

impl Registers for AlphaRegs {
    type ProgramCounter = u64;
    fn pc(&self) -> u64 {
        self.0[PC_REGNUM]
    }
    fn gdb_serialize(&self, mut write_byte: impl FnMut(Option<u8>)) {
        for r in self.0 {
            for b in r.to_le_bytes() {
                write_byte(Some(b));
            }
        }
    }
    fn gdb_deserialize(&mut self, bytes: &[u8]) -> Result<(), ()> {
        if bytes.len() != NUM_REGS * 8 {
            return Err(());
        }
        for (i, c) in bytes.chunks_exact(8).enumerate() {
            self.0[i] = u64::from_le_bytes(c.try_into().map_err(|_| ())?);
        }
        Ok(())
    }
}

/// One register by GDB number.
#[derive(Clone, Copy, Debug)]
pub struct AlphaRegId(pub usize);

impl RegId for AlphaRegId {
    fn from_raw_id(id: usize) -> Option<(Self, Option<NonZeroUsize>)> {
        (id < NUM_REGS).then(|| (AlphaRegId(id), NonZeroUsize::new(8)))
    }
}

impl Arch for Alpha {
    type Usize = u64;
    type Registers = AlphaRegs;
    type BreakpointKind = usize;
    type RegId = AlphaRegId;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Step,
    Continue,
}

struct Watch {
    addr: u64,
    len: u64,
    kind: WatchKind,
    last: Vec<u8>,
}

/// The stub's scheduler: round robin one instruction at a time, stopping
/// the run loop at a single step's end, a breakpoint, a watchpoint, or
/// every 4096 instructions to look for data from GDB.
struct Stepper<'a> {
    rr: &'a mut RoundRobin,
    mode: Mode,
    breakpoints: &'a [u64],
    watches: &'a mut Vec<Watch>,
    stop: Option<Stop>,
    n: u64,
}

impl Scheduler for Stepper<'_> {
    fn pick(&mut self, p: &mut Process) -> Pick {
        self.rr.pick(p)
    }

    fn ran(&mut self, p: &mut Process, r: &Ran<'_>) -> Flow {
        self.rr.ran(p, r);
        if r.result.is_err() {
            return Flow::Go;
        }
        // GDB sees the thread that runs next.
        self.rr.settle(p);
        let trace = if p.machine.mem.tracing() {
            p.machine.mem.take_trace()
        } else {
            Vec::new()
        };
        for w in self.watches.iter_mut() {
            let now = read_bytes(p, w.addr, w.len);
            let changed = now != w.last;
            w.last = now;
            if changed && w.kind != WatchKind::Read {
                self.stop = Some(Stop::Watch(w.kind, w.addr));
                return Flow::Pause;
            }
            // A load of the watched bytes (for an access watchpoint, a
            // store too, even of the same value). A failed STx_C
            // neither read nor wrote them.
            let hit = trace.iter().find(|r| {
                let seen = match w.kind {
                    WatchKind::Write => false,
                    WatchKind::Read => !r.is_store,
                    WatchKind::ReadWrite => true,
                };
                seen && r.kind != crate::memory::AccessKind::StoreConditionalFailed
                    && overlaps(r.addr, r.size as u64, w.addr, w.len)
            });
            if let Some(r) = hit {
                self.stop = Some(Stop::Watch(w.kind, r.addr.max(w.addr)));
                return Flow::Pause;
            }
        }
        if self.mode == Mode::Step {
            self.stop = Some(Stop::Step);
            return Flow::Pause;
        }
        let pc = p.machine.cpus[p.threads[p.cur].cpu].pc;
        if self.breakpoints.contains(&pc) {
            self.stop = Some(Stop::Break);
            return Flow::Pause;
        }
        self.n += 1;
        if self.n.is_multiple_of(4096) {
            return Flow::Pause;
        }
        Flow::Go
    }
}

/// `len` bytes of guest memory at `addr` (unreadable ones as 0).
fn read_bytes(p: &Process, addr: u64, len: u64) -> Vec<u8> {
    let mut v = vec![0u8; len as usize];
    for (i, b) in v.iter_mut().enumerate() {
        let mut one = [0u8; 1];
        if p.machine
            .mem
            .peek(addr.wrapping_add(i as u64), &mut one)
            .is_ok()
        {
            *b = one[0];
        }
    }
    v
}

/// The guest process under GDB.
pub struct GdbTarget<'a> {
    pub p: &'a mut Process,
    pub host: &'a mut dyn Host,
    breakpoints: Vec<u64>,
    watches: Vec<Watch>,
    mode: Mode,
    /// The threads' turns, one instruction per slice.
    rr: RoundRobin,
    /// How the guest ended, once it has.
    pub exit: Option<Exit>,
}

enum Stop {
    Step,
    Break,
    Watch(WatchKind, u64),
    Ended,
}

/// Whether `[a, a + n)` and `[b, b + m)` share a byte.
fn overlaps(a: u64, n: u64, b: u64, m: u64) -> bool {
    a < b.saturating_add(m) && b < a.saturating_add(n)
}

impl<'a> GdbTarget<'a> {
    pub fn new(p: &'a mut Process, host: &'a mut dyn Host) -> Self {
        let quantum = p.quantum;
        GdbTarget {
            p,
            host,
            breakpoints: Vec::new(),
            watches: Vec::new(),
            mode: Mode::Continue,
            rr: RoundRobin::new(quantum).with_step(1),
            exit: None,
        }
    }

    fn read_mem(&self, addr: u64, len: u64) -> Vec<u8> {
        read_bytes(self.p, addr, len)
    }

    /// Run the guest until a stop GDB must hear of (`Some`), or until GDB
    /// has sent something (`None`, looked at every 4096 instructions).
    fn run(&mut self, mut incoming: impl FnMut() -> bool) -> Option<Stop> {
        loop {
            let mut s = Stepper {
                rr: &mut self.rr,
                mode: self.mode,
                breakpoints: &self.breakpoints,
                watches: &mut self.watches,
                stop: None,
                n: 0,
            };
            match self.p.run_with(self.host, &mut s, None) {
                Ended::Exit(e) => {
                    self.exit = Some(e);
                    return Some(Stop::Ended);
                }
                Ended::Paused => {
                    if let Some(stop) = s.stop {
                        return Some(stop);
                    }
                    if incoming() {
                        return None;
                    }
                }
            }
        }
    }

    /// The access trace is on exactly while a read or access watchpoint
    /// needs it.
    fn trace_for_watches(&mut self) {
        let need = self.watches.iter().any(|w| w.kind != WatchKind::Write);
        let mem = &mut self.p.machine.mem;
        if need != mem.tracing() {
            mem.set_trace(need);
            let _ = mem.take_trace();
        }
    }
}

impl Target for GdbTarget<'_> {
    type Arch = Alpha;
    type Error = String;

    fn base_ops(&mut self) -> BaseOps<'_, Alpha, String> {
        BaseOps::SingleThread(self)
    }

    fn support_breakpoints(&mut self) -> Option<BreakpointsOps<'_, Self>> {
        Some(self)
    }
}

impl SingleThreadBase for GdbTarget<'_> {
    fn read_registers(&mut self, regs: &mut AlphaRegs) -> TargetResult<(), Self> {
        let cpu = &self.p.machine.cpus[self.p.threads[self.p.cur].cpu];
        regs.0[..31].copy_from_slice(&cpu.r[..31]);
        regs.0[31] = 0;
        regs.0[32..63].copy_from_slice(&cpu.f[..31]);
        regs.0[FPCR_REGNUM] = cpu.fpcr;
        regs.0[PC_REGNUM] = cpu.pc;
        regs.0[65] = 0;
        regs.0[UNIQUE_REGNUM] = cpu.uniq;
        Ok(())
    }

    fn write_registers(&mut self, regs: &AlphaRegs) -> TargetResult<(), Self> {
        let c = self.p.threads[self.p.cur].cpu;
        let cpu = &mut self.p.machine.cpus[c];
        cpu.r[..31].copy_from_slice(&regs.0[..31]);
        cpu.f[..31].copy_from_slice(&regs.0[32..63]);
        cpu.fpcr = regs.0[FPCR_REGNUM];
        cpu.pc = regs.0[PC_REGNUM];
        cpu.uniq = regs.0[UNIQUE_REGNUM];
        Ok(())
    }

    fn read_addrs(&mut self, start: u64, data: &mut [u8]) -> TargetResult<usize, Self> {
        for (i, b) in data.iter_mut().enumerate() {
            let mut one = [0u8; 1];
            if self
                .p
                .machine
                .mem
                .peek(start.wrapping_add(i as u64), &mut one)
                .is_err()
            {
                return if i == 0 {
                    Err(TargetError::Errno(14))
                } else {
                    Ok(i)
                };
            }
            *b = one[0];
        }
        Ok(data.len())
    }

    fn write_addrs(&mut self, start: u64, data: &[u8]) -> TargetResult<(), Self> {
        self.p
            .machine
            .mem
            .poke(start, data)
            .map_err(|_| TargetError::Errno(14))?;
        // The bytes may be code: drop its decoded and compiled forms.
        self.p.machine.flush_icache();
        Ok(())
    }

    fn support_resume(&mut self) -> Option<SingleThreadResumeOps<'_, Self>> {
        Some(self)
    }
}

impl SingleThreadResume for GdbTarget<'_> {
    fn resume(&mut self, _signal: Option<Signal>) -> Result<(), String> {
        self.mode = Mode::Continue;
        Ok(())
    }

    fn support_single_step(&mut self) -> Option<SingleThreadSingleStepOps<'_, Self>> {
        Some(self)
    }
}

impl SingleThreadSingleStep for GdbTarget<'_> {
    fn step(&mut self, _signal: Option<Signal>) -> Result<(), String> {
        self.mode = Mode::Step;
        Ok(())
    }
}

impl Breakpoints for GdbTarget<'_> {
    fn support_sw_breakpoint(&mut self) -> Option<SwBreakpointOps<'_, Self>> {
        Some(self)
    }
    fn support_hw_watchpoint(&mut self) -> Option<HwWatchpointOps<'_, Self>> {
        Some(self)
    }
}

impl SwBreakpoint for GdbTarget<'_> {
    fn add_sw_breakpoint(&mut self, addr: u64, _kind: usize) -> TargetResult<bool, Self> {
        if !self.breakpoints.contains(&addr) {
            self.breakpoints.push(addr);
        }
        Ok(true)
    }
    fn remove_sw_breakpoint(&mut self, addr: u64, _kind: usize) -> TargetResult<bool, Self> {
        let before = self.breakpoints.len();
        self.breakpoints.retain(|&a| a != addr);
        Ok(before != self.breakpoints.len())
    }
}

impl HwWatchpoint for GdbTarget<'_> {
    fn add_hw_watchpoint(
        &mut self,
        addr: u64,
        len: u64,
        kind: WatchKind,
    ) -> TargetResult<bool, Self> {
        if len == 0 || len > 4096 {
            return Ok(false);
        }
        let last = self.read_mem(addr, len);
        self.watches.push(Watch {
            addr,
            len,
            kind,
            last,
        });
        self.trace_for_watches();
        Ok(true)
    }
    fn remove_hw_watchpoint(
        &mut self,
        addr: u64,
        len: u64,
        kind: WatchKind,
    ) -> TargetResult<bool, Self> {
        let before = self.watches.len();
        self.watches
            .retain(|w| !(w.addr == addr && w.len == len && w.kind == kind));
        self.trace_for_watches();
        Ok(before != self.watches.len())
    }
}

struct EventLoop<'a>(std::marker::PhantomData<&'a ()>);

impl<'a> BlockingEventLoop for EventLoop<'a> {
    type Target = GdbTarget<'a>;
    type Connection = std::net::TcpStream;
    type StopReason = SingleThreadStopReason<u64>;

    #[allow(clippy::type_complexity)]
    fn wait_for_stop_reason(
        target: &mut GdbTarget<'a>,
        conn: &mut std::net::TcpStream,
    ) -> Result<
        run_blocking::Event<SingleThreadStopReason<u64>>,
        run_blocking::WaitForStopReasonError<String, std::io::Error>,
    > {
        let stop = {
            let c = &mut *conn;
            target.run(|| c.peek().map(|b| b.is_some()).unwrap_or(true))
        };
        let reason = match stop {
            None => {
                let b = conn
                    .read()
                    .map_err(run_blocking::WaitForStopReasonError::Connection)?;
                return Ok(run_blocking::Event::IncomingData(b));
            }
            Some(Stop::Step) => SingleThreadStopReason::DoneStep,
            Some(Stop::Break) => SingleThreadStopReason::SwBreak(()),
            Some(Stop::Watch(kind, addr)) => SingleThreadStopReason::Watch {
                tid: (),
                kind,
                addr,
            },
            Some(Stop::Ended) => match &target.exit {
                Some(Exit::Killed { signal, .. }) => {
                    SingleThreadStopReason::Terminated(Signal(host_signal(*signal)))
                }
                Some(e) => SingleThreadStopReason::Exited(e.status()),
                None => SingleThreadStopReason::Exited(0),
            },
        };
        Ok(run_blocking::Event::TargetStopped(reason))
    }

    fn on_interrupt(_t: &mut GdbTarget<'a>) -> Result<Option<SingleThreadStopReason<u64>>, String> {
        Ok(Some(SingleThreadStopReason::Signal(Signal::SIGINT)))
    }
}

/// Serve GDB on `conn` until the guest ends or GDB detaches (then the
/// guest runs on to its end without the stub). Returns how the guest ended.
pub fn serve(
    p: &mut Process,
    host: &mut dyn Host,
    conn: std::net::TcpStream,
    max_insns: Option<u64>,
) -> Result<Exit, String> {
    let _ = conn.set_nodelay(true);
    let exit = {
        let mut t = GdbTarget::new(p, host);
        let r = GdbStub::new(conn).run_blocking::<EventLoop<'_>>(&mut t);
        match r {
            Ok(DisconnectReason::TargetExited(_)) | Ok(DisconnectReason::TargetTerminated(_)) => {
                t.exit.take()
            }
            Ok(DisconnectReason::Kill) => Some(Exit::Killed {
                signal: crate::linux::signal::SIGKILL,
                why: "killed by GDB".into(),
            }),
            Ok(DisconnectReason::Disconnect) => t.exit.take(),
            Err(e) => return Err(format!("gdb stub: {e}")),
        }
    };
    Ok(match exit {
        Some(e) => e,
        None => p.run(host, max_insns),
    })
}
