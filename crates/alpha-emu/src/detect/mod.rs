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
//! Cost: one global sequence number per access, one hash-map lookup per
//! quadword an access touches (keyed by the aligned quadword address, no
//! per-byte allocation), and a scan of the open reservations (one per
//! thread at most) per store.

pub mod contention;
pub mod lost_store;
pub mod progress;

use crate::memory::AccessRecord;
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
    Syscall,
    Signal,
    Exception,
}

/// The kinds of finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    LostStore,
    LockRangeContention,
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
    /// lost-store: pc of the load whose stale bytes the write-back restored.
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

    /// The configuration in force.
    pub fn config(&self) -> Config {
        self.cfg
    }

    /// Every traced access in the global order it happened. `thread` is the
    /// guest thread id (the caller maps `AccessRecord::agent` to it).
    pub fn access(&mut self, thread: u32, rec: &AccessRecord, code: &dyn CodeView) {
        self.seq += 1;
        let mut out = std::mem::take(&mut self.scratch);
        self.lost.access(thread, rec, self.seq, &mut out);
        self.contention.access(thread, rec, &mut out);
        self.progress.access(thread, rec, code, &mut out);
        self.keep(&mut out);
        self.scratch = out;
    }

    fn keep(&mut self, out: &mut Vec<Finding>) {
        for f in out.drain(..) {
            if self.seen.insert(f.site_key()) {
                self.findings.push(f);
            }
        }
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
