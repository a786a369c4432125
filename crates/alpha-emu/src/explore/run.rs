//! One schedule: load the program, run its threads under a [`Chooser`],
//! feed every traced access to the detectors, and record what happened.
//!
//! **Scheduling points.** While two or more threads can run, each thread
//! runs uninterrupted until just *before* its next data access (any load or
//! store, LDQ_U/STQ_U, LDx_L/STx_C, floating-point memory) or until it takes
//! an event (system call, trap, signal); see
//! [`crate::exec::fast::run_to_point`]. There the chooser decides who runs
//! next. This loses no schedule a detector could tell apart: between two
//! data accesses a thread changes only its own registers and pc, which no
//! other thread can see, so any interleaving of instructions is equivalent
//! (same accesses in the same global order, same values) to one whose
//! switches all fall immediately before accesses or at events. A lost
//! store in particular is the order "A loads, B stores, A writes back",
//! three accesses, each a point. While only one thread can run there is
//! nothing to decide, and it runs at full interpreter speed (still traced).
//!
//! **Cheap points.** A decision at which the chooser would keep the running
//! thread changes nothing, so the chooser says when it must next be asked
//! ([`Chooser::next_ask`]) and the interpreter runs through the points
//! before that without returning here ([`crate::Memory::set_point_passes`]);
//! each is still counted as a decision, and the trace marks where it fell,
//! so findings keep the decision numbers a stop at every point would give,
//! and the write-back windows of a run that records them
//! ([`Spec::record_windows`]) are the decisions a stop at every point
//! would record. Only a run recording every decision
//! ([`Spec::record_taken`]) stops at each.
//!
//! **Shared prefix.** Until the first decision nothing is chosen, so every
//! schedule of a program runs the same instructions there (start-up, `main`
//! until a second thread can run). [`Start`] runs that prefix once and each
//! schedule resumes from a copy of its process (pages shared copy-on-write)
//! and of its detector state.

use super::replay::{Schedule, Switch};
use super::{Found, SiteKey, FAIRNESS};
use crate::detect::{self, CodeView, Detectors, EventKind};
use crate::exec::Event;
use crate::linux::sched::{Ended, Flow, Pick, Ran, Scheduler, Slice};
use crate::linux::{Exit, Host, Options, Process};
use crate::memory::{AccessKind, AccessRecord};
use std::cell::RefCell;

/// The guest's output goes nowhere while exploring.
struct Quiet;

impl Host for Quiet {
    fn write(&mut self, _fd: u32, _bytes: &[u8]) {}
    fn diag(&mut self, _line: &str) {}
    fn trace(&mut self, _line: &str) {}
}

/// What a chooser sees at a decision.
pub struct Decision<'a> {
    /// Decision number (0, 1, …).
    pub k: u64,
    /// The thread the default policy would run.
    pub default: usize,
    /// The thread that ran last (it may have blocked).
    pub current: usize,
    /// The threads that can run (indices, increasing).
    pub runnable: &'a [usize],
    /// The running thread has run [`FAIRNESS`] decisions in a row (a spin
    /// wait, most likely): it must not be chosen now.
    pub starved: bool,
    /// Per thread: is it between a load and the store that may write the
    /// unit back (its last access was a load: LDQ_U, LDx_L, LDL, LDQ…)?
    pub in_window: &'a [bool],
    /// Per thread: the pc of its last data access (0: none yet). What a
    /// chooser steering by a finding's anchors ([`super::strategy::Guided`])
    /// watches for.
    pub last_pc: &'a [u64],
}

/// A scheduling strategy for one schedule.
pub trait Chooser {
    /// Which runnable thread runs next.
    fn choose(&mut self, d: &Decision<'_>) -> usize;

    /// Called right after [`Chooser::choose`] answered decision `k`: the
    /// first later decision at which it must be asked again. Until then,
    /// as long as no thread changes state (an event) and the running
    /// thread is not starved, it promises to answer what it just answered
    /// and to change no state of its own if asked, so [`run`] keeps that
    /// thread running through those scheduling points without stopping.
    /// The default, `k + 1`, asks at every decision.
    fn next_ask(&self, k: u64) -> u64 {
        k + 1
    }
}

/// Replays a [`Schedule`]: its deviations, the default policy elsewhere.
pub struct Replay<'a> {
    pub schedule: &'a Schedule,
    cursor: usize,
}

impl<'a> Replay<'a> {
    pub fn new(schedule: &'a Schedule) -> Replay<'a> {
        Replay {
            schedule,
            cursor: 0,
        }
    }
}

impl Chooser for Replay<'_> {
    fn choose(&mut self, d: &Decision<'_>) -> usize {
        match self.schedule.at(d.k, &mut self.cursor) {
            Some(t) if d.runnable.contains(&(t as usize)) => t as usize,
            _ => d.default,
        }
    }

    /// The next deviation's decision: everywhere else the answer is the
    /// default policy's, which keeps the running thread.
    fn next_ask(&self, k: u64) -> u64 {
        self.schedule.switches[self.cursor.min(self.schedule.switches.len())..]
            .iter()
            .map(|s| s.k)
            .find(|&sk| sk > k)
            .unwrap_or(u64::MAX)
    }
}

/// One decision as recorded for the exhaustive strategy.
#[derive(Clone, Debug)]
pub struct Taken {
    pub k: u64,
    pub runnable: Vec<u32>,
    pub chosen: u32,
    /// The thread that ran before this decision.
    pub current: u32,
    /// Was the thread that ran before this decision inside a window?
    pub in_window: bool,
}

/// One access of a thread, kept for drawing a schedule (`--svg`).
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub thread: u32,
    pub pc: u64,
    pub addr: u64,
    pub size: u8,
    pub store: bool,
    pub kind: AccessKind,
}

/// What running one schedule produced.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Findings in the order they appeared, each with the decision number
    /// in force when it appeared.
    pub findings: Vec<(Found, u64)>,
    /// The deviations this run actually made (its replay string).
    pub schedule: Schedule,
    /// Decisions made (only when asked for).
    pub taken: Vec<Taken>,
    /// Decisions (only when asked for) at which the thread that ran last
    /// was inside a write-back window: it had loaded a quadword (LDQ_U,
    /// LDx, LDx_L) and its next store was to that quadword (STQ_U, STx,
    /// STx_C). A preemption there is what a lost store or a broken
    /// reservation needs; PCT places its change points there.
    pub windows: Vec<u64>,
    pub decisions: u64,
    pub insns: u64,
    /// Most threads alive at once.
    pub threads: usize,
    /// `--max-insns` ended the schedule.
    pub insn_limit: bool,
    /// pcs of the store instructions executed (for coverage).
    pub store_pcs: Vec<u64>,
    /// Accesses to `watch` (for `--svg`).
    pub steps: Vec<Step>,
    /// The ELF files mapped executable when the run ended (program,
    /// loader, libraries), to name its pcs and rebase the program's.
    pub objects: Vec<crate::symbols::LoadedObject>,
}

/// The machine as [`Process::new`] leaves it, with every executable page
/// of the program (and its loader) already decoded: each schedule starts
/// from a copy instead of decoding the same code again (decoding was most
/// of a short schedule's cost). Process::new is deterministic under the
/// explorer's options, so the copy is the machine the schedule's own
/// `Process::new` built, plus decoded pages; memory knows those pages are
/// code (the decoder marked them), so a store into one still drops it.
pub struct Template(std::sync::Mutex<crate::Machine>);

impl Template {
    pub fn new(elf: &[u8], opts: &Options) -> Result<Template, String> {
        let mut p = Process::new(elf, opts)?;
        let m = &mut p.machine;
        let images = std::iter::once(&p.image).chain(p.interp.as_ref());
        for img in images {
            let first = img.start >> crate::memory::PAGE_SHIFT;
            let last = img.end.saturating_sub(1) >> crate::memory::PAGE_SHIFT;
            for pn in first..=last {
                let exec = m
                    .mem
                    .perm(pn << crate::memory::PAGE_SHIFT)
                    .is_some_and(|pr| pr.contains(crate::memory::Perm::X));
                if exec {
                    let _ = m.icache.block_index(&mut m.mem, pn);
                }
            }
        }
        Ok(Template(std::sync::Mutex::new(p.machine)))
    }

    /// A copy of the template machine sharing its pages copy-on-write.
    fn machine(&self) -> crate::Machine {
        self.0.lock().expect("template machine").snapshot()
    }

    /// What one host thread's schedules start from (see [`Start`]).
    pub fn start(&self, elf: &[u8], opts: &Options, lock_range: u64) -> Result<Start, String> {
        let mut p = Process::new(elf, opts)?;
        p.machine = self.machine();
        // Nothing a schedule does reads the ELF symbol table (diagnostics
        // symbolize through `Process::locate`); copying its thousands of
        // names would be most of a copy's allocations.
        p.symbols = None;
        Ok(Start {
            process: RefCell::new(p),
            prefix: RefCell::new(None),
            det: RefCell::new(Detectors::new(detect::Config { lock_range })),
        })
    }
}

/// What one host thread reuses from schedule to schedule: the process
/// every schedule starts from (the program loaded as [`Process::new`]
/// loads it, with the [`Template`]'s decoded machine), which a schedule
/// copies ([`Process::snapshot`]) instead of loading the program again
/// (reading the ELF and its symbols, building the stack); and the
/// detectors, reset per schedule so their tables keep their allocations.
/// A `Process` stays on the host thread that made it, so each worker
/// thread makes its own.
pub struct Start {
    process: RefCell<Process>,
    /// Computed by the first schedule that can use it (`Some(None)`: none
    /// can).
    prefix: RefCell<Option<Option<Prefix>>>,
    det: RefCell<Detectors>,
}

/// How to run one schedule.
pub struct Spec<'a> {
    /// Start from a copy of this process (see [`Template::start`]), or
    /// load `elf` afresh.
    pub start: Option<&'a Start>,
    pub elf: &'a [u8],
    pub opts: &'a Options,
    pub max_insns: u64,
    pub lock_range: u64,
    /// Record every decision ([`Outcome::taken`]).
    pub record_taken: bool,
    /// Record the write-back windows ([`Outcome::windows`]).
    pub record_windows: bool,
    /// Record the accesses to this aligned quadword ([`Outcome::steps`]).
    pub watch: Option<u64>,
    /// End the run once a finding of this site has appeared and the
    /// decision its number names (the first after it) has been made: what
    /// the run has recorded up to then (that finding, its decision number,
    /// the switches up to that decision) is what a whole run records.
    pub until: Option<&'a SiteKey>,
}

/// The state of a schedule's run besides its process and detectors.
#[derive(Clone)]
struct Vars {
    out: Outcome,
    cur: usize,
    run_len: u64,
    in_window: Vec<bool>,
    /// Per thread: the pc of its last data access.
    last_pc: Vec<u64>,
    /// With `record_windows`, per thread: the quadword its open window
    /// loaded and the decisions taken inside it so far.
    open: Vec<(u64, Vec<u64>)>,
    runnable: Vec<usize>,
    seen_findings: usize,
    store_pcs: std::collections::BTreeSet<u64>,
    /// Most stores repeat a recent pc (loops): a direct-mapped filter in
    /// front of the set keeps coverage cheap.
    recent: [u64; 256],
    /// The thread queues' generation `runnable` was taken at.
    seen_generation: Option<u64>,
}

impl Default for Vars {
    fn default() -> Self {
        Vars {
            out: Outcome::default(),
            cur: 0,
            run_len: 0,
            in_window: Vec::new(),
            last_pc: Vec::new(),
            open: Vec::new(),
            runnable: Vec::new(),
            seen_findings: 0,
            store_pcs: std::collections::BTreeSet::new(),
            recent: [u64::MAX; 256],
            seen_generation: None,
        }
    }
}

/// Every schedule's common beginning: the run up to its first decision
/// (until then only one thread can run, so there is nothing to choose and
/// every schedule runs the same instructions: start-up, `main` until its
/// first thread exists). A schedule resumes from a copy of it.
struct Prefix {
    process: Process,
    vars: Vars,
    det: Detectors,
}

impl Start {
    /// A copy of the prefix to run a schedule under `spec` from (and the
    /// detectors set to the prefix's), computed on first use; `None` when
    /// such a schedule cannot start from it: it records what the prefix
    /// did not (write-back windows, accesses to a watched quadword), the
    /// prefix ended the program or hit `--max-insns`, or it left state a
    /// copy would share with the original (a descriptor opened or closed,
    /// a host process forked).
    fn resume(&self, spec: &Spec<'_>, det: &mut Detectors) -> Option<(Process, Vars)> {
        if spec.record_windows || spec.watch.is_some() {
            return None;
        }
        let mut cell = self.prefix.borrow_mut();
        if cell.is_none() {
            *cell = Some(self.make_prefix(spec));
        }
        let pre = cell.as_mut()?.as_mut()?;
        det.clone_from(&pre.det);
        Some((pre.process.snapshot(), pre.vars.clone()))
    }

    fn make_prefix(&self, spec: &Spec<'_>) -> Option<Prefix> {
        let mut process = self.process.borrow_mut().snapshot();
        process.machine.mem.set_trace(true);
        let mut det = Detectors::new(detect::Config {
            lock_range: spec.lock_range,
        });
        let mut vars = Vars::default();
        let paused = drive(&mut process, &mut det, &mut vars, spec, None);
        let start = self.process.borrow();
        let same_fds = process.fds.fds.len() == start.fds.fds.len()
            && process
                .fds
                .fds
                .iter()
                .zip(&start.fds.fds)
                .all(|(a, b)| match (a, b) {
                    (Some(a), Some(b)) => std::rc::Rc::ptr_eq(&a.obj, &b.obj),
                    (None, None) => true,
                    _ => false,
                });
        let forked = process.procs.tree || process.procs.forked;
        (paused && same_fds && !forked).then_some(Prefix { process, vars, det })
    }
}

/// Run one schedule. `Err` when the program cannot be loaded, or when it
/// forks ([`Options::may_fork`] is off under the explorer).
pub fn run(spec: &Spec<'_>, chooser: &mut dyn Chooser) -> Result<Outcome, String> {
    let mut own;
    let mut reused;
    let (mut p, det, mut vars): (Process, &mut Detectors, Vars) = match spec.start {
        Some(s) => {
            reused = s.det.borrow_mut();
            match s.resume(spec, &mut reused) {
                Some((p, vars)) => (p, &mut reused, vars),
                None => {
                    reused.reset();
                    let mut p = s.process.borrow_mut().snapshot();
                    p.machine.mem.set_trace(true);
                    (p, &mut reused, Vars::default())
                }
            }
        }
        None => {
            own = Detectors::new(detect::Config {
                lock_range: spec.lock_range,
            });
            let mut p = Process::new(spec.elf, spec.opts)?;
            p.machine.mem.set_trace(true);
            (p, &mut own, Vars::default())
        }
    };
    drive(&mut p, det, &mut vars, spec, Some(chooser));
    if let Some(why) = p.refused.take() {
        return Err(why);
    }
    let Vars {
        mut out,
        mut seen_findings,
        store_pcs,
        ..
    } = vars;
    collect(det, &p, &mut out, &mut seen_findings, None);
    out.insns = p.insns;
    out.store_pcs = store_pcs.into_iter().collect();
    out.objects = p.objects.clone();
    Ok(out)
}

/// Run the schedule in `p` on from `vars` until it ends; or, without a
/// chooser, until its first decision (then `true`: `vars` and `p` are
/// exactly as a run with a chooser would have them there). The process's
/// own run loop drives it ([`Process::run_with`]); [`Explorer`] is its
/// scheduler.
fn drive(
    p: &mut Process,
    det: &mut Detectors,
    vars: &mut Vars,
    spec: &Spec<'_>,
    chooser: Option<&mut dyn Chooser>,
) -> bool {
    let mut ex = Explorer {
        v: std::mem::take(vars),
        det,
        spec,
        chooser,
        trace: Vec::new(),
        paused: false,
        exit_seen: false,
        until_seen: 0,
        until_k: None,
    };
    let end = p.run_with(&mut Quiet, &mut ex, Some(spec.max_insns));
    match end {
        Ended::Paused => {}
        Ended::Exit(Exit::InsnLimit(_)) => ex.v.out.insn_limit = true,
        // Every thread waits and nothing can wake them (the loop found it
        // between slices).
        Ended::Exit(Exit::Killed { why, .. }) if !ex.exit_seen && why.contains("(deadlock)") => {
            let blocked = blocked_sites(p);
            ex.v.out
                .findings
                .push((Found::Deadlock { blocked }, ex.v.out.decisions));
        }
        Ended::Exit(_) => {}
    }
    *vars = ex.v;
    ex.paused
}

/// The explorer's scheduler: while two or more threads can run it asks
/// the chooser at every scheduling point (or runs through the points the
/// chooser promises to keep the running thread at, [`Chooser::next_ask`]),
/// and after each slice feeds the access trace to the detectors.
struct Explorer<'a, 'c> {
    v: Vars,
    det: &'a mut Detectors,
    spec: &'a Spec<'a>,
    /// None: run the prefix, pausing at the first decision.
    chooser: Option<&'c mut dyn Chooser>,
    trace: Vec<AccessRecord>,
    /// Paused at the first decision (the prefix).
    paused: bool,
    /// The end of the process came from a slice (and was recorded).
    exit_seen: bool,
    /// For `spec.until`: findings already looked at, and the decision
    /// number of the site's first finding once it has appeared.
    until_seen: usize,
    until_k: Option<u64>,
}

impl Scheduler for Explorer<'_, '_> {
    fn pick(&mut self, p: &mut Process) -> Pick {
        let v = &mut self.v;
        // Thread states change only at events and time events, which
        // change the queues' generation: only then are these looked at.
        let generation = p.queues().generation();
        if v.seen_generation != Some(generation) {
            v.seen_generation = Some(generation);
            v.in_window.resize(p.threads.len(), false);
            v.last_pc.resize(p.threads.len(), 0);
            v.out.threads = v.out.threads.max(p.live_threads());
            v.runnable.clear();
            v.runnable.extend(p.queues().runnable().iter().copied());
        }
        let runnable = &v.runnable;
        let cur = v.cur;
        // Scheduling points the next step may run through (decisions that
        // would keep the same thread running).
        let mut passes = 0u64;
        let next = if runnable.len() >= 2 {
            let Some(chooser) = self.chooser.as_deref_mut() else {
                // The first decision: the prefix ends here.
                self.paused = true;
                return Pick::Pause;
            };
            let starved = runnable.contains(&cur) && v.run_len >= FAIRNESS;
            let default = if runnable.contains(&cur) && !starved {
                cur
            } else {
                let n = p.threads.len();
                (1..=n)
                    .map(|i| (cur + i) % n)
                    .find(|i| runnable.contains(i))
                    .unwrap_or(runnable[0])
            };
            let k = v.out.decisions;
            let d = Decision {
                k,
                default,
                current: cur,
                runnable,
                starved,
                in_window: &v.in_window,
                last_pc: &v.last_pc,
            };
            if self.spec.record_windows {
                open_window_decision(&mut v.open, &v.in_window, cur, k);
            }
            let mut t = chooser.choose(&d);
            let overridden = !runnable.contains(&t) || (starved && t == cur);
            if overridden {
                t = default;
            }
            // Decisions the chooser promises to answer with `t` again (see
            // `Chooser::next_ask`), while the run stays below FAIRNESS and
            // the decisions are not being recorded one by one (write-back
            // windows are recorded from the trace's point marks below).
            if !overridden && !self.spec.record_taken {
                let run_after = if t == cur { v.run_len + 1 } else { 0 };
                passes = (chooser.next_ask(k).saturating_sub(k + 1))
                    .min(FAIRNESS.saturating_sub(run_after));
            }
            if self.spec.record_taken {
                v.out.taken.push(Taken {
                    k,
                    runnable: runnable.iter().map(|&r| r as u32).collect(),
                    chosen: t as u32,
                    current: cur as u32,
                    in_window: v.in_window.get(cur).copied().unwrap_or(false),
                });
            }
            if t != default {
                v.out.schedule.switches.push(Switch {
                    k,
                    thread: t as u32,
                });
            }
            v.out.decisions += 1;
            t
        } else {
            runnable[0]
        };
        if next == cur {
            v.run_len += 1;
        } else {
            v.run_len = 0;
        }
        v.cur = next;
        Pick::Run(Slice {
            thread: next,
            budget: u64::MAX,
            points: runnable.len() >= 2,
            passes,
        })
    }

    fn ran(&mut self, p: &mut Process, r: &Ran<'_>) -> Flow {
        let next = r.slice.thread;
        let v = &mut self.v;
        let out = &mut v.out;
        // Each point run through was a decision that kept `next` running.
        let base = out.decisions;
        out.decisions += r.passed;
        v.run_len += r.passed;
        // Feed what the step did to the detectors, in global order.
        let trace = &mut self.trace;
        trace.clear();
        p.machine.mem.swap_trace(trace);
        let marks = p.machine.mem.point_marks();
        // Points run through before the record at hand: its decision is
        // `base + mark`, as if the step had stopped at each of them.
        let mut mark = 0usize;
        // The trace index of the next mark not yet passed.
        let mut next_mark = marks.first().copied().unwrap_or(usize::MAX);
        let (record_windows, watch) = (self.spec.record_windows, self.spec.watch);
        // A step's records are all its thread's: look the thread up once
        // per agent seen, not once per record.
        let mut agent = (usize::MAX, 0usize, 0u32);
        for (i, rec) in trace.iter().enumerate() {
            if next_mark <= i {
                while mark < marks.len() && marks[mark] <= i {
                    if record_windows {
                        open_window_decision(&mut v.open, &v.in_window, next, base + mark as u64);
                    }
                    mark += 1;
                }
                next_mark = marks.get(mark).copied().unwrap_or(usize::MAX);
            }
            if agent.0 != rec.agent {
                let t = agent_thread(p, rec);
                agent = (rec.agent, t, p.threads[t].tid);
            }
            let (_, t, tid) = agent;
            if record_windows {
                if v.open.len() <= t {
                    v.open.resize_with(t + 1, || (u64::MAX, Vec::new()));
                }
                let (q, ks) = &mut v.open[t];
                let unit = rec.addr & !7;
                if rec.is_store || rec.kind == AccessKind::StoreConditionalFailed {
                    if *q == unit {
                        v.out.windows.append(ks);
                    }
                    ks.clear();
                    *q = u64::MAX;
                } else if *q != unit {
                    ks.clear();
                    *q = unit;
                }
            }
            if let Some(l) = v.last_pc.get_mut(t) {
                *l = rec.pc;
            }
            if rec.is_store {
                let slot = &mut v.recent[(rec.pc >> 2) as usize & 255];
                if *slot != rec.pc {
                    *slot = rec.pc;
                    v.store_pcs.insert(rec.pc);
                }
                if let Some(w) = v.in_window.get_mut(t) {
                    *w = false;
                }
            } else if let Some(w) = v.in_window.get_mut(t) {
                // Any load opens a window: LDQ_U…STQ_U, LDx_L…STx_C, and
                // the aligned LDL/LDQ…STL/STQ merges of the same shape.
                *w = true;
            }
            if watch.is_some() && watch == Some(rec.addr & !7) {
                v.out.steps.push(Step {
                    thread: t as u32,
                    pc: rec.pc,
                    addr: rec.addr,
                    size: rec.size,
                    store: rec.is_store,
                    kind: rec.kind,
                });
            }
            if self.det.access(tid, rec, &p.machine.mem as &dyn CodeView) {
                collect(
                    self.det,
                    p,
                    &mut v.out,
                    &mut v.seen_findings,
                    Some(base + mark as u64),
                );
            }
        }
        if record_windows {
            // Points run through after the step's last access.
            for j in mark..marks.len() {
                open_window_decision(&mut v.open, &v.in_window, next, base + j as u64);
            }
        }
        let out = &mut v.out;
        if r.replaced {
            // execve: the thread indices start again.
            v.cur = 0;
            v.seen_generation = None;
            return Flow::Go;
        }
        let tid = p.threads[next].tid;
        let pc = p.machine.cpus[p.threads[next].cpu].pc;
        match r.result {
            Ok(Event::BudgetExhausted) => {}
            Ok(Event::CallPal { .. }) => {
                self.det.event(tid, pc.wrapping_sub(4), EventKind::Syscall)
            }
            Ok(_) => self.det.event(tid, pc, EventKind::Exception),
            Err(exit) => {
                self.exit_seen = true;
                collect(self.det, p, out, &mut v.seen_findings, None);
                if let Exit::Killed { signal, why } = exit {
                    if why.contains("(deadlock)") {
                        let blocked = blocked_sites(p);
                        out.findings
                            .push((Found::Deadlock { blocked }, out.decisions));
                    } else {
                        out.findings.push((
                            Found::Crash {
                                thread: next as u32,
                                pc,
                                signal: *signal,
                                why: why.clone(),
                            },
                            out.decisions,
                        ));
                    }
                }
                return Flow::Go;
            }
        }
        if self.det.findings().len() > v.seen_findings {
            collect(self.det, p, out, &mut v.seen_findings, None);
        }
        // The prefix (no chooser) always runs to its first decision.
        if let Some(key) = self.spec.until.filter(|_| self.chooser.is_some()) {
            if self.until_k.is_none() {
                self.until_k = out.findings[self.until_seen..]
                    .iter()
                    .find(|(f, _)| f.site_key() == *key)
                    .map(|&(_, k)| k);
                self.until_seen = out.findings.len();
            }
            if self.until_k.is_some_and(|k| out.decisions > k) {
                return Flow::Pause;
            }
        }
        Flow::Go
    }
}

/// With `record_windows`: decision `k`, where thread `cur` ran last, is
/// one of the decisions inside `cur`'s open window if it has one.
fn open_window_decision(open: &mut Vec<(u64, Vec<u64>)>, in_window: &[bool], cur: usize, k: u64) {
    if in_window.get(cur).copied().unwrap_or(false) {
        if open.len() <= cur {
            open.resize_with(cur + 1, || (u64::MAX, Vec::new()));
        }
        open[cur].1.push(k);
    }
}

/// The thread (index) whose CPU made `rec`.
fn agent_thread(p: &Process, rec: &AccessRecord) -> usize {
    // Each thread has its own CPU, created together (clone), so the index
    // is the same; the search keeps this right should that ever change.
    if p.threads.get(rec.agent).is_some_and(|t| t.cpu == rec.agent) {
        return rec.agent;
    }
    p.threads
        .iter()
        .position(|t| t.cpu == rec.agent)
        .unwrap_or(0)
}

fn blocked_sites(p: &Process) -> Vec<(u32, u64)> {
    p.threads
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.exited())
        .map(|(i, t)| (i as u32, p.machine.cpus[t.cpu].pc.wrapping_sub(4)))
        .collect()
}

/// Move the detectors' new findings into `out`, with thread ids turned
/// into thread indices, each with the decision number in force (`None`:
/// the current one).
fn collect(
    det: &Detectors,
    p: &Process,
    out: &mut Outcome,
    seen: &mut usize,
    decision: Option<u64>,
) {
    let decision = decision.unwrap_or(out.decisions);
    let all = det.findings();
    for f in &all[*seen..] {
        let mut f = f.clone();
        let index = |tid: u32| {
            p.threads
                .iter()
                .position(|t| t.tid == tid)
                .map_or(tid, |i| i as u32)
        };
        f.by.thread = index(f.by.thread);
        if let Some(o) = &mut f.other {
            o.thread = index(o.thread);
        }
        out.findings.push((Found::Detector(f), decision));
    }
    *seen = all.len();
}
