//! The compiling tier: hot code of the predecoded micro-ops is compiled
//! to host machine code with Cranelift.
//!
//! **Contract.** Compiled code never raises an [`crate::Event`] and never
//! does anything the interpreter would not: it runs whole instructions, and
//! at the first one it cannot finish on its fast path (a micro-op without a
//! compiled form, a load or store that misses, faults, is unaligned or
//! touches code, a budget too small for the next basic block) it returns
//! the address of the next instruction to *interpret*. The interpreter then
//! executes that instruction itself, so every event, fault and signal keeps
//! exactly one implementation. The instruction budget stays exact: each
//! basic block is paid for on entry and the unexecuted rest refunded on an
//! early exit.
//!
//! **Regions** ([`region`]). A region starts at a hot entry (an address the
//! run loop reached often by a taken branch, from another page, after an
//! instruction only it executes, or by leaving compiled code) and holds
//! what the entry reaches in the same page by fall-through and direct
//! branches, BSR included (a callee in the page is compiled in line):
//! loops, straight-line code and functions alike, up to [`MAX_REGION`]
//! instructions, nearest first. Branches inside a region are host jumps, so
//! a loop runs without leaving compiled code; everything else exits.
//!
//! **Linking.** Every exit says why it left ([`Exit`]). After a control
//! transfer (a branch out of the region, JMP/JSR/RET, falling off the page
//! end) [`enter`] looks the target up in the [`Links`] table and, when a
//! region starts there, calls it at once without returning to the run
//! loop; otherwise the run loop treats the target as an arrival and enters
//! (or counts, or compiles) the region there. Every other exit stops at an
//! instruction the interpreter executes first. The table holds only
//! regions of the current code: it is emptied whenever decoded pages or
//! compiled code are dropped, and compiled code never changes code without
//! leaving ([`Exit::Code`]).
//!
//! **Code** ([`emit`]). Guest registers live in Cranelift variables (host
//! registers) and every write is also stored to the register file at once,
//! off the critical path, so an exit writes nothing back. Loads and stores
//! look the page up in [`JitTlb`] (two loads and a compare) and otherwise
//! call a helper that does the access through [`Memory`] and refills the
//! table; see `JitTlb` for why a hit needs no further checks.
//! Floating point is compiled in line the same way (FP registers in
//! variables, written through to `cpu.f`): FP loads, stores, moves,
//! FCMOVs and branches always, and IEEE S and T add, subtract, multiply
//! and divide, T compares, CVTQT, CVTTQ, SQRTT, CVTTS and CVTST whenever
//! a check as they run shows that host arithmetic gives the
//! interpreter's result and FPCR
//! (`Emitter::ieee_inline` in [`emit`]); every other case, and every
//! other floating, CIX or MVI instruction, calls the interpreter's own
//! function.
//!
//! **When.** [`Jit`] compiles in a background thread by default, so the
//! guest never waits for Cranelift; results carry the decode epoch of their
//! block and the cache generation, and stale ones are dropped. Because
//! compiled code is observationally the interpreter, *when* a region
//! arrives changes speed only, never results.
//!
//! **Invalidation.** Regions belong to the page of their entry and are
//! dropped with its decoded block (store into code, unmap, `IMB`); see
//! [`crate::icache`].

pub mod emit;
pub(crate) mod fault;
pub mod region;

use crate::cpu::Cpu;
use crate::exec::fast::Uop;
use crate::memory::{JitAccess, JitTlb, Memory};
use emit::{Backend, Code};
use fault::{CodeMap, CodeRange};
use region::Region;
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};

pub use region::{Cfg, MAX_REGION};

/// Compiled code kept before the whole code cache is dropped and rebuilt.
const MAX_CODE_BYTES: usize = 64 << 20;

/// A compiled region: takes the context, returns the next guest pc.
pub type RegionFn = unsafe extern "C" fn(*mut JitCtx) -> u64;

/// What compiled code reads and writes besides guest memory.
#[repr(C)]
pub struct JitCtx {
    /// `cpu.r` (32 registers; `r[31]` is never written).
    pub regs: *mut u64,
    /// The whole CPU: compiled code reads and writes its FP registers and
    /// reads its FPCR here; the helpers run interpreter functions on it.
    pub cpu: *mut Cpu,
    /// The instruction budget left; updated on exit.
    pub left: u64,
    pub mem: *mut Memory,
    /// Portable memory: the table of guest pages compiled code reads.
    pub tlb: *mut JitTlb,
    /// Host-mapped memory: guest address `va` is host address `base + va`.
    pub base: u64,
    /// The CPU's agent number (for reservations).
    pub agent: u64,
    /// Set by the slow-path helpers: 0 done, 1 not done (interpret it),
    /// 2 done but code changed (leave after it).
    pub status: u64,
    /// Why the region returned: an [`Exit`] as a number.
    pub exit: u64,
    /// Calls of the interpreter's own functions (`emit::generic`) so far.
    pub helpers: u64,
    /// The host stack pointer inside [`fault::jit_call`] (for leaving a
    /// region from the fault handler).
    pub host_sp: u64,
    /// The compiled regions' fault sites (see [`fault`]).
    pub(crate) code: *const CodeMap,
    /// The last host fault: its signal number and address.
    pub fault_sig: u64,
    pub fault_addr: u64,
}

/// Why compiled code returned to the run loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Exit {
    /// A direct branch or fall-through to code outside the region: the
    /// run loop may enter compiled code at the target at once.
    Branch = 0,
    /// JMP/JSR/RET: likewise.
    Indirect = 1,
    /// The budget is too short for the next basic block: interpret.
    Budget = 2,
    /// An instruction without a compiled form: interpret it.
    Interpret = 3,
    /// A load or store the fast path cannot finish (miss refused,
    /// unaligned, fault): interpret it.
    Memory = 4,
    /// A store changed code: resynchronise the decoded pages.
    Code = 5,
    /// The host refused an access (or the compiled alignment or range
    /// test failed; host-mapped memory): interpret it.
    Fault = 6,
}

impl Exit {
    /// Every reason, in the order of [`JitStats::exits`].
    pub const ALL: [Exit; 7] = [
        Exit::Branch,
        Exit::Indirect,
        Exit::Budget,
        Exit::Interpret,
        Exit::Memory,
        Exit::Code,
        Exit::Fault,
    ];

    fn from_u64(x: u64) -> Exit {
        Exit::ALL
            .get(x as usize)
            .copied()
            .unwrap_or(Exit::Interpret)
    }

    /// May the run loop enter compiled code at the exit's pc straight
    /// away? Only after a control transfer: the other exits stop *at* an
    /// instruction the interpreter must execute first.
    #[inline(always)]
    pub fn chains(self) -> bool {
        matches!(self, Exit::Branch | Exit::Indirect)
    }

    pub fn name(self) -> &'static str {
        match self {
            Exit::Branch => "branch",
            Exit::Indirect => "indirect",
            Exit::Budget => "budget",
            Exit::Interpret => "interpret",
            Exit::Memory => "memory",
            Exit::Code => "code-store",
            Exit::Fault => "fault",
        }
    }
}

/// Counters for reports and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JitStats {
    /// Regions compiled and installed.
    pub regions: u64,
    /// Guest instructions in them.
    pub insns: u64,
    /// Host code bytes produced.
    pub code_bytes: u64,
    /// CPU nanoseconds spent compiling them (on whichever thread compiled).
    pub compile_ns: u64,
    /// Times the code cache was dropped because it grew too large.
    pub resets: u64,
    /// Entries into compiled code.
    pub entries: u64,
    /// Guest instructions retired in compiled code.
    pub retired: u64,
    /// Returns from compiled code, by [`Exit`] reason.
    pub exits: [u64; 7],
    /// Host faults in compiled code ([`Exit::Fault`]), by signal: SIGSEGV
    /// or SIGBUS (the host refused the page), SIGILL (the compiled
    /// alignment or range test failed).
    pub faults_page: u64,
    pub faults_check: u64,
    /// Of the stores memory carried out after the host refused them: into
    /// a page holding code, into a page holding another agent's lock range
    /// (filled in by [`crate::Machine::jit_stats`]).
    pub code_faults: u64,
    pub lock_faults: u64,
    /// Branches and jumps out of a region that went straight on into the
    /// next compiled region through the [`Links`] table (no return to
    /// the run loop).
    pub links: u64,
    /// Calls from compiled code of the interpreter's own function for an
    /// instruction (floating point the in-line path declines, CIX, MVI,
    /// `rduniq`).
    pub helper_calls: u64,
    /// Times the [`Links`] table was emptied (code dropped).
    pub link_flushes: u64,
    /// Wall time from request to installation, summed and the largest
    /// (background compiling: how late code arrives).
    pub wait_ns: u64,
    pub max_wait_ns: u64,
}

impl JitStats {
    /// The `--jit-stats` report (one line) for a run of `total` guest
    /// instructions.
    pub fn report(&self, total: u64) -> String {
        let pct = |x: u64| 100.0 * x as f64 / total.max(1) as f64;
        let exits = Exit::ALL
            .iter()
            .map(|e| format!("{} {}", e.name(), self.exits[*e as usize]))
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "jit: {} regions compiled ({} guest instructions, {} KiB of host code, {:.1} ms compiling, {:.1} µs per guest instruction); \
             {} of {} guest instructions retired compiled ({:.1}%); \
             {} entries ({:.1} instructions each), {} links taken ({:.1} instructions per region run), exits: {exits}; \
             {} interpreter-function calls; \
             host faults: {} page ({} into code, {} into another thread's lock range), {} alignment or range; \
             code arrived {:.2} ms after asked on average (at most {:.1} ms); {} cache resets, {} link-table flushes",
            self.regions,
            self.insns,
            self.code_bytes.div_ceil(1024),
            self.compile_ns as f64 / 1e6,
            self.compile_ns as f64 / 1e3 / self.insns.max(1) as f64,
            self.retired,
            total,
            pct(self.retired),
            self.entries,
            self.retired as f64 / self.entries.max(1) as f64,
            self.links,
            self.retired as f64 / (self.entries + self.links).max(1) as f64,
            self.helper_calls,
            self.faults_page,
            self.code_faults,
            self.lock_faults,
            self.faults_check,
            self.wait_ns as f64 / 1e6 / self.regions.max(1) as f64,
            self.max_wait_ns as f64 / 1e6,
            self.resets,
            self.link_flushes,
        )
    }
}

/// Which region a compile request is for: head `idx` of decoded block
/// `block`, as decoded in `epoch` (a block slot is reused for other pages;
/// a result for an older epoch is dropped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub block: usize,
    pub epoch: u64,
    pub idx: usize,
}

/// What [`Jit::compile`] did.
pub enum Compiled {
    /// Installed as region number `n`.
    Ready(u32),
    /// Handed to the background compiler; [`Jit::poll`] delivers it.
    Pending,
    /// Nothing to compile there (or the host cannot compile).
    Nothing,
}

// `Reset` is rare: the size of `Compile` costs nothing.
#[allow(clippy::large_enum_variant)]
enum Job {
    Compile {
        req: Request,
        gen: u64,
        region: Region,
        uops: Box<[Uop]>,
        base: u64,
        asked: std::time::Instant,
    },
    /// Free all code compiled so far (the owner has forgotten it).
    Reset,
}

struct Done {
    req: Request,
    gen: u64,
    out: Option<Code>,
    asked: std::time::Instant,
}

/// The background compiler thread's ends of the channels.
struct Worker {
    jobs: Sender<Job>,
    done: Receiver<Done>,
}

/// The compiled regions, and the compiler: in this thread, or (the
/// default) in a background thread, so that compiling never stalls the
/// guest. Compiled code is observationally the interpreter, so *when* a
/// region arrives changes speed only, never results: runs stay
/// deterministic.
pub struct Jit {
    background: bool,
    backend: Option<Backend>,
    /// The host has no Cranelift back end: never try again (this thread).
    unavailable: bool,
    worker: Option<Worker>,
    fns: Vec<RegionFn>,
    /// Where each compiled region's faulting instructions are.
    code: Box<CodeMap>,
    live_bytes: usize,
    /// Bumped by [`Jit::reset`]; results of older generations are dropped.
    gen: u64,
    pending: usize,
    pub stats: JitStats,
}

impl Default for Jit {
    fn default() -> Self {
        Self::new()
    }
}

impl Jit {
    pub fn new() -> Jit {
        Jit {
            background: true,
            backend: None,
            unavailable: false,
            worker: None,
            fns: Vec::new(),
            code: Box::default(),
            live_bytes: 0,
            gen: 0,
            pending: 0,
            stats: JitStats::default(),
        }
    }

    /// Compile in a background thread (the default) or in the caller's.
    pub fn set_background(&mut self, on: bool) {
        self.background = on;
    }

    pub fn background(&self) -> bool {
        self.background
    }

    /// The fault sites of every region compiled so far.
    pub(crate) fn code_map(&self) -> *const CodeMap {
        &*self.code
    }

    /// The compiled region number `i`.
    #[inline(always)]
    pub fn region(&self, i: u32) -> RegionFn {
        self.fns[i as usize]
    }

    /// Requests handed to the background compiler and not yet polled.
    #[inline(always)]
    pub fn pending(&self) -> usize {
        self.pending
    }

    /// Has so much code been compiled that the cache should be dropped?
    /// (Regions of dropped pages are never freed one by one.)
    pub fn wants_reset(&self) -> bool {
        self.live_bytes > MAX_CODE_BYTES
    }

    /// Drop every compiled region; the caller has forgotten their numbers
    /// (and the heads of pending requests: their results will be dropped).
    pub fn reset(&mut self) {
        if let Some(b) = self.backend.take() {
            // SAFETY: the caller holds no pointer into this code any more.
            unsafe { b.free() };
        }
        if let Some(w) = &self.worker {
            let _ = w.jobs.send(Job::Reset);
        }
        self.fns.clear();
        self.code.clear();
        self.live_bytes = 0;
        self.gen += 1;
        self.stats.resets += 1;
    }

    /// Compile the region entered at instruction `req.idx` of the decoded
    /// page `uops` (page base address `base`), for `cfg`.
    pub fn compile(&mut self, req: Request, uops: &[Uop], base: u64, cfg: Cfg) -> Compiled {
        let Some(region) = Region::scan(uops, base, req.idx, cfg) else {
            return Compiled::Nothing;
        };
        if self.background {
            return self.send(req, region, uops, base);
        }
        if self.backend.is_none() && !self.unavailable {
            self.backend = Backend::new();
            self.unavailable = self.backend.is_none();
        }
        let out = self
            .backend
            .as_mut()
            .and_then(|b| b.compile(&region, uops, base));
        match self.install(out) {
            Some(n) => Compiled::Ready(n),
            None => Compiled::Nothing,
        }
    }

    /// In the child of a host `fork`: the compiler thread did not survive
    /// it, so forget its channel without touching it (its locks may have
    /// been held by the thread that is gone) and start a fresh one on the
    /// next request. Compiled code stays mapped in the child and usable.
    pub fn after_fork(&mut self) {
        if let Some(w) = self.worker.take() {
            std::mem::forget(w);
        }
        self.pending = 0;
        self.gen += 1;
    }

    fn send(&mut self, req: Request, region: Region, uops: &[Uop], base: u64) -> Compiled {
        let worker = self.worker.get_or_insert_with(spawn_worker);
        let job = Job::Compile {
            req,
            gen: self.gen,
            region,
            uops: uops.into(),
            base,
            asked: std::time::Instant::now(),
        };
        if worker.jobs.send(job).is_err() {
            return Compiled::Nothing;
        }
        self.pending += 1;
        Compiled::Pending
    }

    /// Count one run of compiled code: `insns` retired, and what
    /// [`enter`] reports.
    #[inline(always)]
    pub fn note(&mut self, insns: u64, e: &Entered) {
        self.stats.entries += 1;
        self.stats.links += e.links;
        self.stats.helper_calls += e.helpers;
        self.stats.retired += insns;
        self.stats.exits[e.why as usize] += 1;
        match e.fault {
            Some(true) => self.stats.faults_page += 1,
            Some(false) => self.stats.faults_check += 1,
            None => {}
        }
    }

    fn install(&mut self, out: Option<Code>) -> Option<u32> {
        let code = out?;
        // SAFETY: the backend built the function with signature `RegionFn`.
        let f: RegionFn = unsafe { std::mem::transmute::<usize, RegionFn>(code.addr) };
        self.fns.push(f);
        self.code.insert(CodeRange {
            start: code.addr,
            end: code.addr + code.bytes,
            page: code.page,
            sites: code.sites,
        });
        self.live_bytes += code.bytes;
        self.stats.regions += 1;
        self.stats.insns += code.insns as u64;
        self.stats.code_bytes += code.bytes as u64;
        self.stats.compile_ns += code.nanos;
        Some((self.fns.len() - 1) as u32)
    }

    /// Install what the background compiler has finished: `done` is told,
    /// for each request, the region number or `None` (nothing compiled).
    /// With `wait`, first wait until nothing is pending. Returns `false`
    /// when the compiler thread is gone (it can only be lost to a bug): its
    /// pending requests will never be answered.
    pub fn poll(&mut self, wait: bool, mut done: impl FnMut(Request, Option<u32>)) -> bool {
        while self.pending > 0 {
            let Some(w) = &self.worker else {
                return false;
            };
            let d = if wait {
                w.done.recv().map_err(|_| TryRecvError::Disconnected)
            } else {
                w.done.try_recv()
            };
            let d = match d {
                Ok(d) => d,
                Err(TryRecvError::Empty) => return true,
                Err(TryRecvError::Disconnected) => {
                    self.pending = 0;
                    return false;
                }
            };
            self.pending -= 1;
            if d.gen == self.gen {
                let waited = d.asked.elapsed().as_nanos() as u64;
                self.stats.wait_ns += waited;
                self.stats.max_wait_ns = self.stats.max_wait_ns.max(waited);
                let n = self.install(d.out);
                done(d.req, n);
            }
        }
        true
    }
}

impl Drop for Jit {
    fn drop(&mut self) {
        if let Some(b) = self.backend.take() {
            // SAFETY: the owner (the instruction cache) drops its heads
            // with us; nothing can be running compiled code now.
            unsafe { b.free() };
        }
    }
}

fn spawn_worker() -> Worker {
    let (jobs, job_rx) = channel::<Job>();
    let (done_tx, done) = channel::<Done>();
    let spawned = std::thread::Builder::new()
        .name("subword-jit".into())
        .spawn(move || {
            let mut backend: Option<Backend> = None;
            let mut unavailable = false;
            while let Ok(job) = job_rx.recv() {
                match job {
                    Job::Reset => {
                        if let Some(b) = backend.take() {
                            // SAFETY: the owner dropped every pointer into
                            // this code before sending Reset, and results
                            // compiled before it carry an old generation.
                            unsafe { b.free() };
                        }
                    }
                    Job::Compile {
                        req,
                        gen,
                        region,
                        uops,
                        base,
                        asked,
                    } => {
                        if backend.is_none() && !unavailable {
                            backend = Backend::new();
                            unavailable = backend.is_none();
                        }
                        let out = backend
                            .as_mut()
                            .and_then(|b| b.compile(&region, &uops, base));
                        let done = Done {
                            req,
                            gen,
                            out,
                            asked,
                        };
                        if done_tx.send(done).is_err() {
                            break;
                        }
                    }
                }
            }
            // The owner is gone, and with it every pointer into our code.
            if let Some(b) = backend {
                // SAFETY: as above; the owner cannot be running a region
                // while it is being dropped.
                unsafe { b.free() };
            }
        });
    if spawned.is_err() {
        // No thread: a closed channel makes every request come back empty.
        let (jobs, _) = channel();
        let (_, done) = channel();
        return Worker { jobs, done };
    }
    Worker { jobs, done }
}

/// Entries of the [`Links`] table.
pub const LINKS: usize = 4096;

/// The compiled regions a branch out of a region may go straight on to:
/// direct-mapped by guest pc (`(pc >> 2) % LINKS`), tag `u64::MAX` when
/// empty. The run loop enters an entry each time it enters a region from
/// its head; [`enter`] consults it after every branch or jump out of a
/// region and calls the next region itself.
///
/// **Invariant.** Every entry names a region compiled from the decoded
/// code that is current: the owner (the instruction cache) empties the
/// table whenever it drops any decoded page or compiled code, and compiled
/// code cannot change code without leaving for the run loop
/// ([`Exit::Code`]), which syncs before it enters anything again.
pub struct Links {
    pc: Box<[u64; LINKS]>,
    f: Box<[Option<RegionFn>; LINKS]>,
}

impl Default for Links {
    fn default() -> Self {
        Links {
            pc: Box::new([u64::MAX; LINKS]),
            f: Box::new([None; LINKS]),
        }
    }
}

impl Links {
    #[inline(always)]
    fn slot(pc: u64) -> usize {
        ((pc >> 2) as usize) & (LINKS - 1)
    }

    /// The region whose entry is guest address `pc`, if the table has it.
    #[inline(always)]
    pub fn get(&self, pc: u64) -> Option<RegionFn> {
        let i = Self::slot(pc);
        if self.pc[i] == pc {
            self.f[i]
        } else {
            None
        }
    }

    /// Remember that region `f` starts at `pc`.
    #[inline(always)]
    pub fn set(&mut self, pc: u64, f: RegionFn) {
        let i = Self::slot(pc);
        self.pc[i] = pc;
        self.f[i] = Some(f);
    }

    /// Forget every entry.
    pub fn clear(&mut self) {
        self.pc.fill(u64::MAX);
    }
}

/// What one [`enter`] did: the next pc, why the last region left, links
/// taken, interpreter functions called, and host faults by signal (page,
/// check).
pub struct Entered {
    pub pc: u64,
    pub why: Exit,
    pub links: u64,
    pub helpers: u64,
    pub fault: Option<bool>,
}

/// Run compiled region `f` for `cpu`, and after each branch or jump out of
/// it the region `links` has for the target, as long as there is one.
/// Each region checks the budget before every basic block itself, so the
/// budget stays exact across links; `left` is updated.
///
/// # Safety
/// `f` and every region in `links` must be compiled from the current
/// decoded code (the caller has synced the instruction cache) for `mem`'s
/// [`JitAccess`], `code` must be the map of the cache that compiled them,
/// and `cpu.r[31]` must be zero.
#[inline(never)]
pub(crate) unsafe fn enter(
    f: RegionFn,
    links: &Links,
    code: *const CodeMap,
    cpu: &mut Cpu,
    mem: &mut Memory,
    left: &mut u64,
) -> Entered {
    let (tlb, base) = match mem.jit_access() {
        JitAccess::Tlb => (mem.jit_tlb(), 0),
        JitAccess::Direct { base } => (std::ptr::null_mut(), base),
    };
    let agent = cpu.id;
    let mut ctx = JitCtx {
        regs: cpu.r.as_mut_ptr(),
        cpu: cpu as *mut Cpu,
        left: *left,
        mem: mem as *mut Memory,
        tlb,
        base,
        agent: agent as u64,
        status: 0,
        exit: Exit::Interpret as u64,
        helpers: 0,
        host_sp: 0,
        code,
        fault_sig: 0,
        fault_addr: 0,
    };
    let mut f = f;
    let mut taken = 0u64;
    fault::set_current(&mut ctx);
    let pc = loop {
        let pc = fault::jit_call(&mut ctx, f);
        if ctx.exit > Exit::Indirect as u64 || ctx.left == 0 {
            break pc;
        }
        match links.get(pc) {
            Some(next) => {
                f = next;
                taken += 1;
            }
            None => break pc,
        }
    };
    fault::set_current(std::ptr::null_mut());
    *left = ctx.left;
    let why = Exit::from_u64(ctx.exit);
    Entered {
        pc,
        why,
        links: taken,
        helpers: ctx.helpers,
        fault: (why == Exit::Fault).then_some(ctx.fault_sig != libc::SIGILL as u64),
    }
}
