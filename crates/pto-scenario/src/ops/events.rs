//! The memory-event list: capture of the model's own events, and
//! candidate executions built by hand for the PTO-TSO checker.

use super::Operation;
use crate::fields::*;
use crate::runner::*;

/// `ResetMemoryExecution`.
#[derive(Debug)]
pub struct ResetMemoryExecution;

impl Operation for ResetMemoryExecution {
    const NAME: &'static str = "reset-memory-execution";
    const FIELDS: &'static str = "";
    const PRIMITIVE: &'static str = "ResetMemoryExecution (`_MemoryEventCount = 0`)";

    fn parse(_f: &mut Fields) -> Result<Self, String> {
        Ok(Self)
    }

    fn run(&self, ctx: &mut Runner) {
        ctx.m.reset_memory_execution();
    }
}

/// `AddInitialWriteEvent` / `AddLoadEvent` / `AddStoreEvent` into the
/// hand-built candidate execution.
/// An event added by hand to the candidate execution: the fields the four
/// `candidate-*` operations share.
#[derive(Debug)]
pub struct CandidateEvent {
    kind: CandidateKind,
    agent: usize,
    addr: u64,
    size: u32,
    value: u64,
    order: pto::memory_model::Order,
    rank: u64,
}

impl CandidateEvent {
    /// Reads the fields of an event of `kind` (which `kind` reads first).
    fn parse(
        f: &mut Fields,
        kind: impl FnOnce(&mut Fields) -> Result<CandidateKind, String>,
    ) -> Result<Self, String> {
        let kind = kind(f)?;
        let agent = if kind == CandidateKind::InitialWrite {
            0
        } else {
            f.ranged("agent", 3)? as usize
        };
        let addr = f.num("addr")?;
        let size = f.num("size")?;
        if ![1, 2, 4, 8].contains(&size) {
            return Err(format!("`size` = {size}: want 1, 2, 4 or 8"));
        }
        let value = f.num("value")?;
        let order = match f.opt_string("order")? {
            None => pto::memory_model::Order::Relaxed,
            Some(s) => pto::memory_model::Order::from_name(&s).ok_or_else(|| {
                format!("`order` = `{s}`: want Relaxed, Acquire, Release or AcquireRelease")
            })?,
        };
        let rank = match kind {
            CandidateKind::Store | CandidateKind::Atomic { .. } => f.num("rank")?,
            _ => 0,
        };
        Ok(CandidateEvent {
            kind,
            agent,
            addr,
            size: size as u32,
            value,
            order,
            rank,
        })
    }

    /// `Add*Event` into the machine's candidate execution.
    fn add(&self, ctx: &mut Runner) {
        let CandidateEvent {
            kind,
            agent,
            addr,
            size,
            value,
            order,
            rank,
        } = self;
        let c = ctx.m.memory_candidate_mut();
        match kind {
            CandidateKind::InitialWrite => c.add_initial_write(*addr, *size, *value),
            CandidateKind::Load => c.add_load(*agent, *addr, *size, *value, *order),
            CandidateKind::Store => c.add_store(*agent, *addr, *size, *value, *order, *rank),
            CandidateKind::Atomic {
                write_value,
                write_performed,
            } => c.add_atomic(
                *agent,
                *addr,
                *size,
                *value,
                *write_value,
                *order,
                *rank,
                *write_performed,
            ),
        };
    }
}

#[derive(Debug)]
pub struct CandidateInitialWrite(CandidateEvent);

impl Operation for CandidateInitialWrite {
    const NAME: &'static str = "candidate-initial-write";
    const FIELDS: &'static str = "`addr`, `size` (1,2,4,8), `value` (the value written)";
    const PRIMITIVE: &'static str = "`AddInitialWriteEvent` into the one event list `_MemoryEvents` that capture also appends to (event numbers count from 0 in the order added, captured or by hand; `reset`, `reset-memory-execution` and `capture-events` empty it)";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        CandidateEvent::parse(f, |_| Ok(CandidateKind::InitialWrite)).map(CandidateInitialWrite)
    }

    fn run(&self, ctx: &mut Runner) {
        self.0.add(ctx)
    }
}

#[derive(Debug)]
pub struct CandidateLoad(CandidateEvent);

impl Operation for CandidateLoad {
    const NAME: &'static str = "candidate-load";
    const FIELDS: &'static str = "`agent` (0..3), `addr`, `size` (1,2,4,8), `value` (the value read), `order`? (`Relaxed`, `Acquire`, `Release`, `AcquireRelease`; default `Relaxed`)";
    const PRIMITIVE: &'static str = "`AddLoadEvent` into the one event list `_MemoryEvents` that capture also appends to (event numbers count from 0 in the order added, captured or by hand; `reset`, `reset-memory-execution` and `capture-events` empty it)";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        CandidateEvent::parse(f, |_| Ok(CandidateKind::Load)).map(CandidateLoad)
    }

    fn run(&self, ctx: &mut Runner) {
        self.0.add(ctx)
    }
}

#[derive(Debug)]
pub struct CandidateStore(CandidateEvent);

impl Operation for CandidateStore {
    const NAME: &'static str = "candidate-store";
    const FIELDS: &'static str = "`agent` (0..3), `addr`, `size` (1,2,4,8), `value` (the value written), `order`? (`Relaxed`, `Acquire`, `Release`, `AcquireRelease`; default `Relaxed`), `rank` (coherence rank)";
    const PRIMITIVE: &'static str = "`AddStoreEvent` into the one event list `_MemoryEvents` that capture also appends to (event numbers count from 0 in the order added, captured or by hand; `reset`, `reset-memory-execution` and `capture-events` empty it)";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        CandidateEvent::parse(f, |_| Ok(CandidateKind::Store)).map(CandidateStore)
    }

    fn run(&self, ctx: &mut Runner) {
        self.0.add(ctx)
    }
}

#[derive(Debug)]
pub struct CandidateAtomic(CandidateEvent);

impl Operation for CandidateAtomic {
    const NAME: &'static str = "candidate-atomic";
    const FIELDS: &'static str = "`agent` (0..3), `addr`, `size` (1,2,4,8), `value` (the value read), `write_value`, `write_performed`, `order`? (`Relaxed`, `Acquire`, `Release`, `AcquireRelease`; default `Relaxed`), `rank`";
    const PRIMITIVE: &'static str = "`AddAtomicOutcomeEvent` into the one event list `_MemoryEvents` that capture also appends to (event numbers count from 0 in the order added, captured or by hand; `reset`, `reset-memory-execution` and `capture-events` empty it)";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        CandidateEvent::parse(f, |f| {
            Ok(CandidateKind::Atomic {
                write_value: f.num("write_value")?,
                write_performed: f.bool("write_performed")?,
            })
        })
        .map(CandidateAtomic)
    }

    fn run(&self, ctx: &mut Runner) {
        self.0.add(ctx)
    }
}

/// `SetMemoryReadFrom(read, source)` in the candidate.
#[derive(Debug)]
pub struct CandidateReadFrom {
    read: usize,
    source: usize,
}

impl Operation for CandidateReadFrom {
    const NAME: &'static str = "candidate-read-from";
    const FIELDS: &'static str = "`read`, `source` (event numbers)";
    const PRIMITIVE: &'static str = "`SetMemoryReadFrom(read, source)`";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            read: f.ranged("read", u32::MAX as u64)? as usize,
            source: f.ranged("source", u32::MAX as u64)? as usize,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { read, source } = self;
        if !ctx.m.memory_candidate_mut().set_read_from(*read, *source) {
            ctx.fail(
                format!("events {read} and {source} in the candidate"),
                format!("{} events", ctx.m.memory_events().len()),
            );
        }
    }
}

#[derive(Debug)]
pub struct CaptureEvents {
    pe: Option<usize>,
}

impl Operation for CaptureEvents {
    const NAME: &'static str = "capture-events";
    const FIELDS: &'static str = "`pe`?";
    const PRIMITIVE: &'static str = "StartMemoryEventCapture";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self { pe: f.pe()? })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { pe } = self;
        let pe = pe.unwrap_or_else(|| ctx.m.current_pe());
        if let Err(e) = ext::start_capture(&mut ctx.m, pe) {
            ctx.fail("memory event capture", e);
        }
    }
}

#[derive(Debug)]
pub struct StopCapture;

impl Operation for StopCapture {
    const NAME: &'static str = "stop-capture";
    const FIELDS: &'static str = "";
    const PRIMITIVE: &'static str = "StopMemoryEventCapture";

    fn parse(_f: &mut Fields) -> Result<Self, String> {
        Ok(Self)
    }

    fn run(&self, ctx: &mut Runner) {
        ext::stop_capture(&mut ctx.m);
    }
}
