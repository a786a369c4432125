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

use crate::memory::AccessRecord;

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
    findings: Vec<Finding>,
}

impl Detectors {
    pub fn new(cfg: Config) -> Detectors {
        Detectors {
            cfg,
            findings: Vec::new(),
        }
    }

    /// The configuration in force.
    pub fn config(&self) -> Config {
        self.cfg
    }

    /// Every traced access in the global order it happened. `thread` is the
    /// guest thread id (the caller maps `AccessRecord::agent` to it).
    pub fn access(&mut self, thread: u32, rec: &AccessRecord, code: &dyn CodeView) {
        let _ = (thread, rec, code);
    }

    /// The thread took an event at `pc` (system call, signal delivery, trap).
    pub fn event(&mut self, thread: u32, pc: u64, what: EventKind) {
        let _ = (thread, pc, what);
    }

    /// What was found so far, each site once.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }
}
