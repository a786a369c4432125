//! The schedule explorer: runs a multi-threaded Linux guest under many
//! deterministic schedules and collects what the detectors
//! ([`crate::detect`]) find, plus deadlocks and crashes.
//!
//! - [`replay`]: a schedule is a list of deviations from a default policy,
//!   printed as a replay string; every strategy produces one.
//! - [`run`]: one schedule — where the scheduling points are and why they
//!   lose no schedule a detector could tell apart.
//! - [`strategy`]: random walk and PCT; the exhaustive strategy (all
//!   schedules within a preemption bound, by iterative deepening) is here.
//!
//! Every schedule is a pure function of the program, its input, the
//! options and its replay string: each run starts from the program as
//! loaded with [`Options::deterministic`] on and the compiling tier off
//! (a copy of one loaded process per host thread, [`run::Start`]), schedule `i`
//! of a random or PCT exploration draws from a generator seeded by
//! (`seed`, `i`) alone, and the exhaustive enumeration order is fixed.
//! That is what makes `--jobs` (schedules on host threads, results taken in
//! schedule order) and `--shard I/N` (schedule `i` belongs to shard
//! `i mod N + 1`) change how work is spread and never what is found: a
//! finding is reported once per site with the lowest schedule index that
//! showed it, so merging shards by lowest index gives the unsharded result.
//!
//! Before a finding is reported its schedule is minimised: deviations after
//! the decision where it appeared are dropped (the run is identical up to
//! there); a finding that names its three anchors (a thread's load, another
//! thread's store, the first thread's write-back) is rebuilt as its
//! canonical schedule — run to the load, preempt, run the other thread to
//! its store, resume ([`strategy::Guided`]) — on a base of deviations
//! that delta debugging shrinks; then runs of the remaining deviations are
//! removed while the same site still shows (halves, quarters, … single
//! ones), at most [`MINIMISE_RUNS`] runs in all. A deadlock or crash
//! also tries the minimised schedules of the findings reported before it
//! (the lost store that caused it).

pub mod replay;
pub mod run;
pub mod strategy;

use crate::detect;
use crate::linux::Options;
use replay::{Schedule, Switch};
use run::{Chooser, Outcome, Replay, Spec};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Decisions in a row after which the default policy switches threads.
pub const FAIRNESS: u64 = 1_000;
/// Most runs one finding's minimisation may take.
pub const MINIMISE_RUNS: usize = 300;
/// Default `--max-insns` per schedule.
pub const DEFAULT_MAX_INSNS: u64 = 50_000_000;

/// Something that went wrong in one schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// lost-store, lock-range-contention, forward-progress (thread numbers
    /// are thread indices: 0 is the main thread).
    Detector(detect::Finding),
    /// Every live thread blocked with nothing to wake it: (thread, pc) each.
    Deadlock { blocked: Vec<(u32, u64)> },
    /// The guest was killed by a signal.
    Crash {
        thread: u32,
        pc: u64,
        signal: u8,
        why: String,
    },
}

/// What deduplicates findings: kind and site.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SiteKey {
    pub kind: String,
    pub pcs: Vec<u64>,
}

impl Found {
    pub fn kind(&self) -> &'static str {
        match self {
            Found::Detector(f) => f.kind.as_str(),
            Found::Deadlock { .. } => "deadlock",
            Found::Crash { .. } => "crash",
        }
    }

    pub fn site_key(&self) -> SiteKey {
        let pcs = match self {
            Found::Detector(f) => {
                let (_, by, other) = f.site_key();
                let mut v = vec![by];
                v.extend(other);
                v
            }
            Found::Deadlock { blocked } => blocked.iter().map(|b| b.1).collect(),
            Found::Crash { pc, signal, .. } => vec![*pc, *signal as u64],
        };
        SiteKey {
            kind: self.kind().to_string(),
            pcs,
        }
    }
}

/// Exploration strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    Random,
    Pct,
    Exhaustive,
}

impl Strategy {
    pub fn parse(s: &str) -> Result<Strategy, String> {
        match s {
            "random" => Ok(Strategy::Random),
            "pct" => Ok(Strategy::Pct),
            "exhaustive" => Ok(Strategy::Exhaustive),
            _ => Err(format!(
                "unknown strategy `{s}`; known strategies: random, pct, exhaustive"
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Random => "random",
            Strategy::Pct => "pct",
            Strategy::Exhaustive => "exhaustive",
        }
    }
}

/// Everything an exploration needs besides the program.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The run options (model, argv, sysroot, lock range…); the explorer
    /// forces `deterministic` on, the compiling tier off, and refuses a
    /// program that forks ([`Options::may_fork`]).
    pub opts: Options,
    pub strategy: Strategy,
    pub schedules: u64,
    pub seed: u64,
    /// PCT depth.
    pub depth: u32,
    /// Exhaustive preemption bound.
    pub preemptions: u32,
    pub max_insns: u64,
    pub time_limit: Option<Duration>,
    pub jobs: usize,
    /// (I, N): this is shard I (1-based) of N.
    pub shard: (u64, u64),
    /// Record each reported finding's [`Reported::steps`] (for `--svg`): a
    /// further run of its minimised schedule to the end.
    pub record_steps: bool,
}

impl Settings {
    pub fn new(opts: Options) -> Settings {
        Settings {
            opts,
            strategy: Strategy::Pct,
            schedules: 1000,
            seed: 0,
            depth: 3,
            preemptions: 2,
            max_insns: DEFAULT_MAX_INSNS,
            time_limit: None,
            jobs: 1,
            shard: (1, 1),
            record_steps: false,
        }
    }

    fn run_opts(&self) -> Options {
        let mut o = self.opts.clone();
        o.deterministic = true;
        o.may_fork = false;
        o.jit = None;
        o.jit_stats = false;
        o.inline_rduniq = false;
        o.strace = false;
        o.max_insns = None;
        o
    }

    fn lock_range(&self) -> u64 {
        self.opts.lock_range.unwrap_or(self.opts.model.lock_range)
    }

    fn in_shard(&self, index: u64) -> bool {
        index % self.shard.1 == self.shard.0 - 1
    }

    /// The schedule indices from `from` below `schedules` that belong to
    /// this shard, in increasing order, generated as they are taken.
    fn shard_indices(&self, from: u64) -> impl Iterator<Item = u64> {
        let (i, n) = (self.shard.0 - 1, self.shard.1.max(1));
        // The first index ≥ `from` that is `i` mod `n`.
        let delta = (u128::from(i) + u128::from(n) - u128::from(from % n)) % u128::from(n);
        let first = from.saturating_add(delta as u64);
        let step = usize::try_from(n).unwrap_or(usize::MAX);
        (first..self.schedules).step_by(step)
    }
}

/// One reported finding.
#[derive(Clone, Debug)]
pub struct Reported {
    /// As seen in the minimised schedule.
    pub found: Found,
    /// The minimised schedule that shows it.
    pub schedule: Schedule,
    /// Index of the first schedule that showed it.
    pub first_schedule: u64,
    /// Preemptions of that schedule before minimising.
    pub original_preemptions: usize,
    /// How many schedules showed it.
    pub hits: u64,
    /// Accesses to the finding's quadword in the minimised schedule (with
    /// [`Settings::record_steps`], else empty).
    pub steps: Vec<run::Step>,
    /// The ELF files mapped executable when the minimised schedule showed
    /// the finding (at its end with [`Settings::record_steps`]): what names
    /// the finding's pcs (program, libraries).
    pub objects: Vec<crate::symbols::LoadedObject>,
    /// A deadlock's or crash's cause: the lost store its minimised
    /// schedule made before it ([`cause_of`]).
    pub cause: Option<detect::Finding>,
}

/// The lost store that caused `end` (a deadlock or crash) in a run whose
/// findings, in order, are `findings`: of the lost stores before it, the
/// last one whose overwritten store was made by a thread the deadlock
/// left blocked (or, for a crash, by any thread). `None` for any other
/// finding or when the run lost no store.
pub fn cause_of(end: &Found, findings: &[(Found, u64)]) -> Option<detect::Finding> {
    let blocked: Vec<u32> = match end {
        Found::Deadlock { blocked } => blocked.iter().map(|b| b.0).collect(),
        Found::Crash { .. } => Vec::new(),
        Found::Detector(_) => return None,
    };
    let upto = findings
        .iter()
        .position(|(f, _)| f.site_key() == end.site_key())
        .unwrap_or(findings.len());
    let lost = || {
        findings[..upto].iter().rev().filter_map(|(f, _)| match f {
            Found::Detector(d) if d.kind == detect::Kind::LostStore => Some(d),
            _ => None,
        })
    };
    lost()
        .find(|d| d.other.is_some_and(|o| blocked.contains(&o.thread)))
        .or_else(|| lost().next())
        .cloned()
}

/// Progress, for a progress bar.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub done: u64,
    pub total: u64,
    pub findings: usize,
}

/// The result of an exploration.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub schedules_run: u64,
    pub findings: Vec<Reported>,
    /// Exhaustive: every schedule within the bound was run.
    pub covered: Option<bool>,
    /// Exhaustive: schedules per preemption count that were run.
    pub per_level: Vec<u64>,
    /// Most threads alive at once in any schedule.
    pub threads: usize,
    pub insns: u64,
    /// Schedules `--max-insns` ended.
    pub insn_limited: u64,
    /// Store pcs some schedule executed.
    pub store_pcs: BTreeSet<u64>,
    /// The time limit stopped the exploration early.
    pub timed_out: bool,
    /// The ELF files mapped executable at the end of the default schedule
    /// (the program first): for rebasing the program's pcs.
    pub objects: Vec<crate::symbols::LoadedObject>,
    pub elapsed: Duration,
}

impl Report {
    /// Only one thread ever existed: nothing could interleave.
    pub fn single_threaded(&self) -> bool {
        self.threads <= 1 && self.schedules_run > 0
    }
}

/// Run `elf` under exactly `schedule`.
pub fn replay_one(
    elf: &[u8],
    s: &Settings,
    schedule: &Schedule,
    watch: Option<u64>,
) -> Result<Outcome, String> {
    let opts = s.run_opts();
    let spec = Spec {
        start: None,
        elf,
        opts: &opts,
        max_insns: s.max_insns,
        lock_range: s.lock_range(),
        record_taken: false,
        record_windows: false,
        watch,
        until: None,
    };
    run::run(&spec, &mut Replay::new(schedule))
}

/// The quadword a finding is about (for `--svg`).
pub fn watch_of(f: &Found) -> Option<u64> {
    match f {
        Found::Detector(d) => Some(d.address & !7),
        _ => None,
    }
}

struct Job<'a> {
    template: run::Template,
    elf: &'a [u8],
    s: &'a Settings,
    opts: Options,
    start: Instant,
    stop: AtomicBool,
}

impl Job<'_> {
    fn out_of_time(&self) -> bool {
        if let Some(t) = self.s.time_limit {
            if self.start.elapsed() >= t {
                self.stop.store(true, Ordering::Relaxed);
            }
        }
        self.stop.load(Ordering::Relaxed)
    }

    fn spec<'b>(&'b self, start: &'b run::Start, record_taken: bool) -> Spec<'b> {
        Spec {
            start: Some(start),
            elf: self.elf,
            opts: &self.opts,
            max_insns: self.s.max_insns,
            lock_range: self.s.lock_range(),
            record_taken,
            record_windows: false,
            watch: None,
            until: None,
        }
    }

    /// Run `n` schedules (by index) on `jobs` host threads, each starting
    /// its schedules from its own copy of the loaded program; results in
    /// index order, `None` for those the time limit skipped.
    fn par<F>(&self, items: &[u64], f: F) -> Result<Vec<Option<Outcome>>, String>
    where
        F: Fn(&run::Start, u64) -> Result<Outcome, String> + Sync,
    {
        let results: Mutex<Vec<Option<Result<Outcome, String>>>> =
            Mutex::new((0..items.len()).map(|_| None).collect());
        let next = AtomicUsize::new(0);
        let jobs = self.s.jobs.max(1).min(items.len().max(1));
        std::thread::scope(|sc| {
            for _ in 0..jobs {
                sc.spawn(|| {
                    let mut start = None;
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= items.len() || self.out_of_time() {
                            break;
                        }
                        let r = match &start {
                            Some(p) => f(p, items[i]),
                            None => {
                                match self
                                    .template
                                    .start(self.elf, &self.opts, self.s.lock_range())
                                {
                                    Ok(p) => f(start.insert(p), items[i]),
                                    Err(e) => Err(e),
                                }
                            }
                        };
                        let failed = r.is_err();
                        results.lock().expect("results")[i] = Some(r);
                        if failed {
                            self.stop.store(true, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        let mut out = Vec::with_capacity(items.len());
        let mut gap = false;
        for r in results.into_inner().expect("results") {
            match r {
                Some(Err(e)) => return Err(e),
                // After the first skipped schedule keep none, so a time
                // limit leaves a prefix of the schedule order.
                Some(Ok(o)) if !gap => out.push(Some(o)),
                _ => {
                    gap = true;
                    out.push(None);
                }
            }
        }
        Ok(out)
    }
}

/// Explore `elf` under `s`. `progress` is called after each batch.
pub fn explore(
    elf: &[u8],
    s: &Settings,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Report, String> {
    let job = Job {
        template: run::Template::new(elf, &s.run_opts())?,
        elf,
        s,
        opts: s.run_opts(),
        start: Instant::now(),
        stop: AtomicBool::new(false),
    };
    // The process this (the calling) thread's schedules start from.
    let start = job.template.start(elf, &job.opts, s.lock_range())?;
    let mut rep = Report::default();
    let mut col = Collector::default();
    // Schedule 0 is the default schedule: it tells whether anything can
    // interleave and how many decisions a schedule makes.
    let mut spec0 = job.spec(&start, s.strategy == Strategy::Exhaustive);
    spec0.record_windows = s.strategy == Strategy::Pct;
    let first = run::run(&spec0, &mut Replay::new(&Schedule::default()))?;
    let length = first.decisions;
    let single = first.threads <= 1;
    let total = if single { 1 } else { s.schedules.max(1) };
    rep.objects = first.objects.clone();
    if s.in_shard(0) {
        col.absorb(&mut rep, 0, &first);
    }
    progress(Progress {
        done: rep.schedules_run,
        total,
        findings: col.order.len(),
    });
    if !single {
        match s.strategy {
            Strategy::Random | Strategy::Pct => {
                // This shard's schedule indices, made a batch at a time:
                // memory stays bounded whatever `--schedules` says, and a
                // time limit ends the sequence where it stops.
                let mut items = s.shard_indices(1);
                let batch_len = 64.max(s.jobs * 8);
                loop {
                    let batch: Vec<u64> = items.by_ref().take(batch_len).collect();
                    if batch.is_empty() {
                        break;
                    }
                    let batch = &batch[..];
                    let outs = job.par(batch, |p, i| {
                        let rng = strategy::Rng::for_schedule(s.seed, i);
                        let mut ch: Box<dyn Chooser> = match s.strategy {
                            Strategy::Random => Box::new(strategy::Random::new(rng)),
                            _ => Box::new(strategy::Pct::new(rng, s.depth, length, &first.windows)),
                        };
                        run::run(&job.spec(p, false), ch.as_mut())
                    })?;
                    for (i, o) in batch.iter().zip(outs) {
                        match o {
                            Some(o) => col.absorb(&mut rep, *i, &o),
                            None => rep.timed_out = true,
                        }
                    }
                    progress(Progress {
                        done: rep.schedules_run,
                        total,
                        findings: col.order.len(),
                    });
                    if rep.timed_out {
                        break;
                    }
                }
            }
            Strategy::Exhaustive => {
                exhaustive(&job, &first, &mut rep, &mut col, progress, total)?;
            }
        }
    }
    // Minimise each new site's schedule, in the order sites were found.
    for key in &col.order {
        let (f, sched, first_schedule, hits) = col.found[key].clone();
        let original = sched.preemptions();
        let hints: Vec<Schedule> = rep.findings.iter().map(|r| r.schedule.clone()).collect();
        let (found_min, sched_min, objects) = minimise(&job, &start, key, f, sched, &hints);
        // A deadlock's or crash's story begins with the lost store its
        // schedule made: one more run of that schedule finds it.
        let cause = match found_min {
            Found::Detector(_) => None,
            _ => replay_one(elf, s, &sched_min, None)
                .ok()
                .and_then(|o| cause_of(&found_min, &o.findings)),
        };
        let (steps, objects) = match objects {
            Some(objects) if !s.record_steps => (Vec::new(), objects),
            // Without a watched quadword the replay records no steps.
            _ => replay_one(
                elf,
                s,
                &sched_min,
                watch_of(&found_min).filter(|_| s.record_steps),
            )
            .map(|o| (o.steps, o.objects))
            .unwrap_or_default(),
        };
        rep.findings.push(Reported {
            found: found_min,
            schedule: sched_min,
            first_schedule,
            original_preemptions: original,
            hits,
            steps,
            objects,
            cause,
        });
    }
    rep.findings.sort_by_key(|r| r.first_schedule);
    rep.elapsed = job.start.elapsed();
    Ok(rep)
}

/// The sites found so far: per site its first finding, that schedule
/// (cut after the decision where it appeared), its index and the hits.
#[derive(Default)]
struct Collector {
    found: BTreeMap<SiteKey, (Found, Schedule, u64, u64)>,
    order: Vec<SiteKey>,
}

impl Collector {
    fn absorb(&mut self, rep: &mut Report, index: u64, o: &Outcome) {
        rep.schedules_run += 1;
        rep.threads = rep.threads.max(o.threads);
        rep.insns += o.insns;
        rep.insn_limited += o.insn_limit as u64;
        rep.store_pcs.extend(o.store_pcs.iter().copied());
        for (f, k) in &o.findings {
            let key = f.site_key();
            match self.found.get_mut(&key) {
                Some(e) => e.3 += 1,
                None => {
                    let mut sched = o.schedule.clone();
                    sched.switches.retain(|sw| sw.k <= *k);
                    self.found.insert(key.clone(), (f.clone(), sched, index, 1));
                    self.order.push(key);
                }
            }
        }
    }
}

/// All schedules with at most `s.preemptions` deviations, by level.
fn exhaustive(
    job: &Job<'_>,
    first: &Outcome,
    rep: &mut Report,
    col: &mut Collector,
    progress: &(dyn Fn(Progress) + Sync),
    total: u64,
) -> Result<(), String> {
    let s = job.s;
    let budget = s.schedules.max(1);
    let mut index = 1u64;
    rep.per_level = vec![1];
    // Parents of the next level: a schedule and its recorded decisions.
    let mut parents: Vec<(Schedule, Vec<run::Taken>)> =
        vec![(Schedule::default(), first.taken.clone())];
    let mut covered = true;
    for level in 1..=s.preemptions {
        let mut children: Vec<Schedule> = Vec::new();
        let mut truncated = false;
        for (sched, taken) in &parents {
            let last = sched.switches.last().map(|w| w.k);
            // Decisions inside a window first: that is where races are.
            let mut cands: Vec<&run::Taken> = taken
                .iter()
                .filter(|t| last.is_none_or(|l| t.k > l))
                .collect();
            cands.sort_by_key(|t| (!t.in_window, t.k));
            for t in cands {
                for &alt in &t.runnable {
                    if alt == t.chosen {
                        continue;
                    }
                    if index + children.len() as u64 >= budget {
                        truncated = true;
                        break;
                    }
                    let mut c = sched.clone();
                    c.switches.push(Switch {
                        k: t.k,
                        thread: alt,
                    });
                    children.push(c);
                }
            }
        }
        if truncated {
            covered = false;
        }
        let last_level = level == s.preemptions;
        let base = index;
        index += children.len() as u64;
        // Run every child this shard owns; a parent of the next level runs
        // in every shard (its decisions are needed) but counts in one.
        let items: Vec<u64> = (0..children.len() as u64)
            .filter(|&c| !last_level || s.in_shard(base + c))
            .collect();
        let outs = job.par(&items, |p, c| {
            let sched = &children[c as usize];
            run::run(&job.spec(p, !last_level), &mut Replay::new(sched))
        })?;
        let mut next = Vec::new();
        let mut ran = 0;
        for (c, o) in items.iter().zip(outs) {
            let Some(o) = o else {
                rep.timed_out = true;
                covered = false;
                continue;
            };
            ran += 1;
            if s.in_shard(base + c) {
                col.absorb(rep, base + c, &o);
            }
            if !last_level {
                next.push((children[*c as usize].clone(), o.taken));
            }
        }
        rep.per_level.push(ran);
        progress(Progress {
            done: rep.schedules_run,
            total,
            findings: col.order.len(),
        });
        parents = next;
        if rep.timed_out || index >= budget {
            if level < s.preemptions {
                covered = false;
            }
            break;
        }
    }
    rep.covered = Some(covered && !rep.timed_out);
    Ok(())
}

/// What a run that shows a finding's site saw: the finding, the schedule
/// cut after the decision where it appeared, and the loaded objects then.
type Shown = (Found, Schedule, Vec<crate::symbols::LoadedObject>);

/// Does the run of `sched` show `key`? Then what it saw. The run ends as
/// soon as the site appears ([`Spec::until`]).
fn shows(job: &Job<'_>, start: &run::Start, key: &SiteKey, sched: &Schedule) -> Option<Shown> {
    shows_under(job, start, key, &mut Replay::new(sched))
}

/// Most one-preemption schedules [`minimise`] tries for a two-sided finding.
pub const ONE_PREEMPTION_TRIES: usize = 64;

/// A one-preemption schedule that shows `key`, if a short search finds
/// one: from the default schedule, switch from one of the finding's two
/// threads to the other at a decision where it is inside a window (the
/// shape of a lost store or a broken reservation), earliest first.
fn one_preemption(job: &Job<'_>, start: &run::Start, key: &SiteKey, f: &Found) -> Option<Shown> {
    let Found::Detector(d) = f else { return None };
    let other = d.other?;
    if other.thread == d.by.thread {
        return None;
    }
    let o = run::run(
        &job.spec(start, true),
        &mut Replay::new(&Schedule::default()),
    )
    .ok()?;
    o.taken
        .iter()
        .filter_map(|t| {
            // Either side may be the one preempted: when both run the same
            // code the site does not say which thread's window it was.
            let to = if t.current == d.by.thread {
                other.thread
            } else if t.current == other.thread {
                d.by.thread
            } else {
                return None;
            };
            (t.in_window && t.runnable.contains(&to) && t.chosen != to).then_some((t.k, to))
        })
        .take(ONE_PREEMPTION_TRIES)
        .find_map(|(k, thread)| {
            let cand = Schedule {
                switches: vec![Switch { k, thread }],
            };
            shows(job, start, key, &cand)
        })
}

/// Does the run of `sched` under `chooser` show `key`? Then what it saw
/// (as [`shows`]; the schedule is the deviations the chooser made).
fn shows_under(
    job: &Job<'_>,
    start: &run::Start,
    key: &SiteKey,
    chooser: &mut dyn Chooser,
) -> Option<Shown> {
    let mut spec = job.spec(start, false);
    spec.until = Some(key);
    let o = run::run(&spec, chooser).ok()?;
    o.findings
        .into_iter()
        .find(|(f, _)| &f.site_key() == key)
        .map(|(f, k)| {
            let mut s = o.schedule;
            s.switches.retain(|w| w.k <= k);
            (f, s, o.objects)
        })
}

/// A finding's anchors, when it names all three: the load and the write-back
/// (or store-conditional) of one thread, the store of another between them.
pub fn anchors_of(f: &Found) -> Option<strategy::Anchors> {
    let Found::Detector(d) = f else { return None };
    let other = d.other?;
    let load = d.by_load_pc?;
    (other.thread != d.by.thread).then_some(strategy::Anchors {
        by: d.by.thread as usize,
        load,
        other: other.thread as usize,
        store: other.pc,
    })
}

/// Delta debugging over a list of deviations: drop runs of them (halves,
/// quarters, … single ones) while `accept` takes the shorter list; `accept`
/// answers the list to go on from (what the run it made actually needed).
/// Each call costs one run of `budget`.
fn shrink(
    items: Vec<Switch>,
    budget: &mut usize,
    mut accept: impl FnMut(&[Switch]) -> Option<Vec<Switch>>,
) -> Vec<Switch> {
    let mut best = items;
    let mut chunk = best.len().div_ceil(2).max(1);
    while !best.is_empty() && *budget > 0 {
        let mut i = 0;
        let mut changed = false;
        while i < best.len() && *budget > 0 {
            let mut cand = best.clone();
            let end = (i + chunk).min(cand.len());
            cand.drain(i..end);
            *budget -= 1;
            match accept(&cand) {
                Some(b) => {
                    best = b;
                    changed = true;
                }
                None => i += chunk,
            }
        }
        if chunk == 1 && !changed {
            break;
        }
        if !changed {
            chunk = chunk.div_ceil(2).max(1);
        }
    }
    best
}

/// Fewest deviations that still show `key`, with the loaded objects when
/// it showed (`None` if the final run did not show it).
///
/// For a finding with anchors ([`anchors_of`]) the canonical schedule comes
/// first: the [`strategy::Guided`] chooser on an empty base, then on the
/// finding's own schedule, then on one switch to the loading thread where
/// the default schedule could have run it (a thread its creator outruns
/// loads too late otherwise), then on the finding's own deviations before
/// the load shrunk by delta debugging (a deviation the load does not need
/// goes).
/// Then `hints` (the minimised schedules of findings already reported: a
/// deadlock's lost store), a short search for one preemption, and delta
/// debugging over the best schedule so far. At most [`MINIMISE_RUNS`] runs.
fn minimise(
    job: &Job<'_>,
    start: &run::Start,
    key: &SiteKey,
    f: Found,
    sched: Schedule,
    hints: &[Schedule],
) -> (Found, Schedule, Option<Vec<crate::symbols::LoadedObject>>) {
    let mut budget = MINIMISE_RUNS;
    type Best = (Found, Schedule, Option<Vec<crate::symbols::LoadedObject>>);
    let mut best: Best = (f.clone(), sched.clone(), None);
    let better =
        |best: &Best, s: &Schedule| best.2.is_none() || s.preemptions() < best.1.preemptions();
    if let Some(a) = anchors_of(&f) {
        for base in [Schedule::default(), sched.clone()] {
            if budget == 0 || (best.2.is_some() && best.1.preemptions() <= 1) {
                break;
            }
            budget -= 1;
            if let Some((f, s, o)) =
                shows_under(job, start, key, &mut strategy::Guided::new(&base, a))
            {
                if better(&best, &s) {
                    best = (f, s, Some(o));
                }
            }
        }
        // The anchors' thread may need to run before the default policy
        // would run it (a new thread the creator outruns): one switch to it
        // as the base, at the decisions where it could run and did not.
        if best.2.is_none() || best.1.preemptions() > 2 {
            let default = run::run(
                &job.spec(start, true),
                &mut Replay::new(&Schedule::default()),
            );
            let by = a.by as u32;
            let cands: Vec<u64> = default
                .map(|o| {
                    o.taken
                        .iter()
                        .filter(|t| t.runnable.contains(&by) && t.chosen != by)
                        .map(|t| t.k)
                        .take(ONE_PREEMPTION_TRIES)
                        .collect()
                })
                .unwrap_or_default();
            for k in cands {
                if budget == 0 || (best.2.is_some() && best.1.preemptions() <= 2) {
                    break;
                }
                budget -= 1;
                let base = Schedule {
                    switches: vec![Switch { k, thread: by }],
                };
                let mut g = strategy::Guided::new(&base, a);
                if let Some((f, s, o)) = shows_under(job, start, key, &mut g) {
                    if better(&best, &s) {
                        best = (f, s, Some(o));
                    }
                }
            }
        }
        if best.1.preemptions() > 1 && !sched.switches.is_empty() {
            let mut accept = |base: &[Switch]| {
                let base = Schedule {
                    switches: base.to_vec(),
                };
                let mut g = strategy::Guided::new(&base, a);
                let (f, s, o) = shows_under(job, start, key, &mut g)?;
                if !better(&best, &s) {
                    return None;
                }
                let next = g.base_used(&s);
                best = (f, s, Some(o));
                Some(next)
            };
            shrink(sched.switches.clone(), &mut budget, &mut accept);
        }
    }
    for h in hints {
        if budget == 0 || h.preemptions() >= best.1.preemptions() {
            continue;
        }
        budget -= 1;
        if let Some((f, s, o)) = shows(job, start, key, h) {
            if better(&best, &s) {
                best = (f, s, Some(o));
            }
        }
    }
    if best.1.preemptions() > 1 {
        if let Some((f, s, o)) = one_preemption(job, start, key, &f) {
            if better(&best, &s) {
                best = (f, s, Some(o));
            }
        }
    }
    let cur = best.1.switches.clone();
    shrink(cur, &mut budget, |cand| {
        let cand = Schedule {
            switches: cand.to_vec(),
        };
        let (f, s, o) = shows(job, start, key, &cand)?;
        if s.preemptions() >= best.1.preemptions() {
            return None;
        }
        let next = s.switches.clone();
        best = (f, s, Some(o));
        Some(next)
    });
    // Report what the final schedule shows, so `--replay` prints the same.
    match shows(job, start, key, &best.1) {
        Some((f, _, objects)) => (f, best.1, Some(objects)),
        None => (best.0, best.1, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(schedules: u64, shard: (u64, u64)) -> Settings {
        let mut s = Settings::new(Options::new(
            alpha_isa::model_by_name("ev4").expect("ev4"),
            vec!["prog".into()],
        ));
        s.schedules = schedules;
        s.shard = shard;
        s
    }

    /// The lazily made indices are exactly the shard's.
    #[test]
    fn shard_indices_are_the_indices_in_the_shard() {
        for n in 1..7u64 {
            for i in 1..=n {
                for schedules in [0u64, 1, 2, 5, 30, 31] {
                    let s = settings(schedules, (i, n));
                    let want: Vec<u64> = (1..schedules).filter(|&x| s.in_shard(x)).collect();
                    let got: Vec<u64> = s.shard_indices(1).collect();
                    assert_eq!(got, want, "shard {i}/{n}, {schedules} schedules");
                }
            }
        }
    }

    /// `--schedules 2^64-1` (and a shard of as many) costs nothing until
    /// taken, and the arithmetic never wraps.
    #[test]
    fn shard_indices_of_huge_counts_are_generated_as_taken() {
        let s = settings(u64::MAX, (1, 1));
        assert_eq!(s.shard_indices(1).take(3).collect::<Vec<_>>(), [1, 2, 3]);
        let s = settings(u64::MAX, (u64::MAX, u64::MAX));
        assert_eq!(
            s.shard_indices(1).take(3).collect::<Vec<_>>(),
            [u64::MAX - 1]
        );
        let s = settings(u64::MAX, (2, u64::MAX));
        assert_eq!(s.shard_indices(1).take(3).collect::<Vec<_>>(), [1]);
    }
}
