//! Detectors: observers of the access trace that find what went wrong in
//! one schedule of a multi-CPU run, at byte granularity.
//!
//! The schedule explorer runs guest threads with memory tracing on
//! ([`crate::Memory::set_trace`]) and feeds every [`AccessRecord`], in the
//! global order the accesses happened, to [`Detectors::access`], and every
//! interruption of a thread (system call, signal delivery, trap) to
//! [`Detectors::event`]. The detectors never steer the schedule and never
//! touch the machine; they only read the trace and, through [`CodeView`],
//! the instruction words between two accesses.
//!
//! Three detectors, one file each, with their rules in their docs:
//! [`lost_store`] (a whole-unit write-back restores stale bytes over another
//! thread's partial store), [`contention`] (a STx_C fails because another
//! thread stored elsewhere in its lock range) and [`progress`] (an
//! LDx_L…STx_C sequence breaks the Handbook's forward-progress rules).
//! Each finding site ([`Finding::site_key`]) is reported once per
//! [`Detectors`], i.e. once per schedule.
//!
//! Cost: one global sequence number per access; per quadword an access
//! touches, one lookup of its shadow entry (a small direct-mapped cache of
//! recent quadwords in front of a hash map keyed by the aligned address),
//! with the shadow state in fixed arrays (no allocation per access); the
//! LL/SC detectors look at other accesses only while a reservation or a
//! sequence is open. A finding whose site this schedule already reported
//! is not built again. [`Detectors::reset`] reuses the allocations for the
//! next schedule, and `clone_from` (the explorer restoring a shared
//! prefix's state) copies into them. A store to one quadword runs the
//! byte-by-byte lost-store check only where one of its bytes could be lost. Feeding the trace through [`crate::Memory::swap_trace`]
//! avoids regrowing a trace buffer per drain.

pub mod contention;
pub mod lost_store;
pub mod progress;

use crate::memory::{AccessKind, AccessRecord};
use rustc_hash::FxHashSet;

/// What the detectors need to know about the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Size in bytes of the aligned lock range in force (a power of two, at
    /// least 8): a store anywhere in it clears another CPU's lock flag.
    pub lock_range: u64,
}

/// Side-effect-free access to instruction words.
pub trait CodeView {
    /// The instruction word at `pc`, if it is mapped.
    fn word(&self, pc: u64) -> Option<u32>;
}

impl CodeView for crate::Memory {
    fn word(&self, pc: u64) -> Option<u32> {
        let mut b = [0u8; 4];
        self.peek(pc, &mut b).ok()?;
        Some(u32::from_le_bytes(b))
    }
}

/// Anything that interrupts a thread between two instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// A system call (`CALL_PAL callsys` and the other PAL calls the
    /// personality serves).
    Syscall,
    /// A signal delivered to the thread (asynchronous, like an interrupt).
    Signal,
    /// A trap the thread's own instruction raised: unaligned-access fix-up,
    /// arithmetic trap, memory fault, OPCDEC.
    Exception,
}

/// The kinds of finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A whole-unit write-back erased another thread's partial store.
    LostStore,
    /// A STx_C failed from a store elsewhere in its lock range.
    LockRangeContention,
    /// An LDx_L…STx_C sequence the architecture need not let succeed.
    ForwardProgress,
}

impl Kind {
    /// The name used in reports and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::LostStore => "lost-store",
            Kind::LockRangeContention => "lock-range-contention",
            Kind::ForwardProgress => "forward-progress",
        }
    }
}

/// One side of a finding: a guest thread and an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Site {
    pub thread: u32,
    pub pc: u64,
}

/// One thing that went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub kind: Kind,
    /// lost-store: first lost byte; contention: the failing STx_C address;
    /// forward-progress: the LDx_L address.
    pub address: u64,
    /// lost-store: addresses of every lost byte (empty otherwise).
    pub bytes: Vec<u64>,
    /// lost-store: the write-back; contention: the failing STx_C;
    /// forward-progress: the LDx_L.
    pub by: Site,
    /// lost-store: pc of the load whose stale bytes the write-back restored;
    /// contention: pc of the LDx_L whose reservation the other store broke.
    pub by_load_pc: Option<u64>,
    /// lost-store: the store that vanished; contention: the other CPU's store.
    pub other: Option<Site>,
    /// contention: that store's address.
    pub other_address: Option<u64>,
    /// contention: the lock range in force.
    pub lock_range: Option<u64>,
    /// forward-progress: which rule was broken.
    pub rule: Option<&'static str>,
    /// forward-progress: the offending instruction.
    pub offending_pc: Option<u64>,
}

impl Finding {
    /// The deduplication key: (kind, by.pc, other.pc).
    pub fn site_key(&self) -> (Kind, u64, Option<u64>) {
        (self.kind, self.by.pc, self.other.map(|s| s.pc))
    }
}

/// All detectors of one schedule.
/// `Clone` snapshots the detectors with a machine, so an explorer that
/// restarts schedules from a shared prefix can restart their state too;
/// `clone_from` does so into the tables a previous schedule grew, keeping
/// their allocations.
pub struct Detectors {
    cfg: Config,
    /// Global sequence number of the last access (the first is 1).
    seq: u64,
    lost: lost_store::LostStore,
    contention: contention::Contention,
    progress: progress::Progress,
    findings: Vec<Finding>,
    seen: FxHashSet<(Kind, u64, Option<u64>)>,
    scratch: Vec<Finding>,
}

impl Clone for Detectors {
    fn clone(&self) -> Detectors {
        Detectors {
            cfg: self.cfg,
            seq: self.seq,
            lost: self.lost.clone(),
            contention: self.contention.clone(),
            progress: self.progress.clone(),
            findings: self.findings.clone(),
            seen: self.seen.clone(),
            scratch: self.scratch.clone(),
        }
    }

    fn clone_from(&mut self, src: &Detectors) {
        self.cfg = src.cfg;
        self.seq = src.seq;
        self.lost.clone_from(&src.lost);
        self.contention.clone_from(&src.contention);
        self.progress.clone_from(&src.progress);
        self.findings.clone_from(&src.findings);
        self.seen.clone_from(&src.seen);
        self.scratch.clone_from(&src.scratch);
    }
}

impl Detectors {
    pub fn new(cfg: Config) -> Detectors {
        Detectors {
            cfg,
            seq: 0,
            lost: lost_store::LostStore::default(),
            contention: contention::Contention::new(cfg.lock_range),
            progress: progress::Progress::default(),
            findings: Vec::new(),
            seen: FxHashSet::default(),
            scratch: Vec::new(),
        }
    }

    /// Start a new schedule: forget all state and findings, keep the
    /// allocations (cheaper than [`Detectors::new`] per schedule).
    pub fn reset(&mut self) {
        self.seq = 0;
        self.lost.reset();
        self.contention.reset();
        self.progress.reset();
        self.findings.clear();
        self.seen.clear();
    }

    /// The configuration in force.
    pub fn config(&self) -> Config {
        self.cfg
    }

    /// Every traced access in the global order it happened. `thread` is the
    /// guest thread id (the caller maps `AccessRecord::agent` to it).
    /// `true` when the access added a finding to [`Detectors::findings`].
    #[inline]
    pub fn access(&mut self, thread: u32, rec: &AccessRecord, code: &dyn CodeView) -> bool {
        self.seq += 1;
        self.lost
            .access(thread, rec, self.seq, &self.seen, &mut self.scratch);
        // The other two look only at LDx_L/STx_C and, while one of them
        // has something open, at the other accesses.
        let llsc = matches!(
            rec.kind,
            AccessKind::LoadLocked
                | AccessKind::StoreConditional
                | AccessKind::StoreConditionalFailed
        );
        if llsc || self.contention.watching() {
            self.contention.access(thread, rec, &mut self.scratch);
        }
        if llsc || self.progress.watching() {
            self.progress.access(thread, rec, code, &mut self.scratch);
        }
        !self.scratch.is_empty() && self.keep()
    }

    /// Keep the new findings of sites not seen yet; `true` if any.
    #[cold]
    fn keep(&mut self) -> bool {
        let before = self.findings.len();
        for f in self.scratch.drain(..) {
            if self.seen.insert(f.site_key()) {
                self.findings.push(f);
            }
        }
        self.findings.len() > before
    }

    /// The thread took an event at `pc` (system call, signal delivery, trap).
    pub fn event(&mut self, thread: u32, pc: u64, what: EventKind) {
        self.progress.event(thread, pc, what);
    }

    /// What was found so far, each site once.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }
}
