//! The PTO-TSO candidate-execution checker: a pure function over a list of
//! memory events built by hand, as the AVS ordering points build them.
//!
//! ASL: `asl/arch/memory-model/memory-events.asl` (`MemoryEvent` fields,
//! `MemoryEventIsRead/IsWrite/IsAccess`, `MemoryEventsShareLocation`,
//! `MemoryEventClass`, `AddInitialWriteEvent`, `AddLoadEvent`,
//! `AddStoreEvent`, `AddAtomicOutcomeEvent`, `AddDataFenceEvent`),
//! `asl/arch/memory-model/atomicity.asl` (`SetMemoryReadFrom`) and
//! `asl/arch/memory-model/ordering.asl` (coherence, reads-from, from-read,
//! program-order-location and preserved-program-order relations,
//! `MemoryFenceOrders`, `MemoryCandidateExecutionValid`,
//! `MemoryRelationAcyclic`, `MemoryExecutionAllowedTSO`).
//!
//! A [`Candidate`] is the one event list `_MemoryEvents`: the machine
//! appends the events it captures (`RecordLoadEvent`, `RecordStoreEvent`,
//! `RecordAtomicEvent` of `asl/arch/memory-model/atomicity.asl`, with the
//! memory order of the bundle's B.CATR state) to the same list the
//! `Add*Event` functions build by hand, so the checker judges captured and
//! hand-added events together.

/// `MemoryEventKind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    InitialWrite,
    Load,
    Store,
    Atomic,
    Fence,
}

/// `MemoryOrder`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Relaxed,
    Acquire,
    Release,
    AcquireRelease,
}

impl Order {
    /// By the ASL name (`MemoryOrder_Relaxed` or `Relaxed`).
    pub fn from_name(s: &str) -> Option<Order> {
        Some(match s.strip_prefix("MemoryOrder_").unwrap_or(s) {
            "Relaxed" => Order::Relaxed,
            "Acquire" => Order::Acquire,
            "Release" => Order::Release,
            "AcquireRelease" => Order::AcquireRelease,
            _ => return None,
        })
    }
}

/// `MemoryEvent`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub kind: Kind,
    pub agent: usize,
    pub address: u64,
    pub size_bytes: u32,
    pub read_value: u64,
    pub write_value: u64,
    pub write_performed: bool,
    pub order: Order,
    pub read_from: usize,
    pub coherence_rank: u64,
    pub fence_predecessor: u8,
    pub fence_successor: u8,
}

impl Event {
    fn is_read(&self) -> bool {
        matches!(self.kind, Kind::Load | Kind::Atomic)
    }
    fn is_write(&self) -> bool {
        matches!(self.kind, Kind::InitialWrite | Kind::Store)
            || (self.kind == Kind::Atomic && self.write_performed)
    }
    fn is_access(&self) -> bool {
        self.is_read() || self.is_write()
    }
    fn shares_location(&self, o: &Event) -> bool {
        self.address == o.address && self.size_bytes == o.size_bytes
    }
    /// `MemoryEventClass`: data read 0001, data write 0010.
    fn class(&self) -> u8 {
        match self.kind {
            Kind::Load => 0b0001,
            Kind::Store | Kind::InitialWrite => 0b0010,
            Kind::Atomic => 0b0011,
            Kind::Fence => 0,
        }
    }
}

/// `NormalizeMemoryAccessValue`: the low `size` bytes.
fn normalize(value: u64, size: u32) -> u64 {
    if size >= 8 {
        value
    } else {
        value & ((1u64 << (8 * size)) - 1)
    }
}

/// `RangesOverlap`.
fn ranges_overlap(a: u64, an: u32, b: u64, bn: u32) -> bool {
    (a as u128) < b as u128 + bn as u128 && (b as u128) < a as u128 + an as u128
}

/// A candidate execution: `_MemoryEvents[[0 .. _MemoryEventCount]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Candidate {
    pub events: Vec<Event>,
}

impl Candidate {
    /// `ResetMemoryExecution`.
    pub fn reset(&mut self) {
        self.events.clear();
    }

    fn add(&mut self, e: Event) -> usize {
        self.events.push(e);
        self.events.len() - 1
    }

    fn event(kind: Kind, agent: usize, address: u64, size_bytes: u32) -> Event {
        Event {
            kind,
            agent,
            address,
            size_bytes,
            read_value: 0,
            write_value: 0,
            write_performed: false,
            order: Order::Relaxed,
            read_from: 0,
            coherence_rank: 0,
            fence_predecessor: 0,
            fence_successor: 0,
        }
    }

    /// `AddInitialWriteEvent(address, size, value)`: agent 0, rank 0.
    pub fn add_initial_write(&mut self, address: u64, size: u32, value: u64) -> usize {
        self.add(Event {
            write_value: normalize(value, size),
            write_performed: true,
            ..Self::event(Kind::InitialWrite, 0, address, size)
        })
    }

    /// `AddLoadEvent(agent, address, size, value, order)`.
    pub fn add_load(
        &mut self,
        agent: usize,
        address: u64,
        size: u32,
        value: u64,
        order: Order,
    ) -> usize {
        self.add(Event {
            read_value: normalize(value, size),
            order,
            ..Self::event(Kind::Load, agent, address, size)
        })
    }

    /// `AddStoreEvent(agent, address, size, value, order, rank)`.
    pub fn add_store(
        &mut self,
        agent: usize,
        address: u64,
        size: u32,
        value: u64,
        order: Order,
        rank: u64,
    ) -> usize {
        self.add(Event {
            write_value: normalize(value, size),
            write_performed: true,
            order,
            coherence_rank: rank,
            ..Self::event(Kind::Store, agent, address, size)
        })
    }

    /// `AddAtomicOutcomeEvent(agent, address, size, read, write, order, rank, performed)`.
    #[allow(clippy::too_many_arguments)]
    pub fn add_atomic(
        &mut self,
        agent: usize,
        address: u64,
        size: u32,
        read_value: u64,
        write_value: u64,
        order: Order,
        rank: u64,
        write_performed: bool,
    ) -> usize {
        self.add(Event {
            read_value: normalize(read_value, size),
            write_value: normalize(write_value, size),
            write_performed,
            order,
            coherence_rank: rank,
            ..Self::event(Kind::Atomic, agent, address, size)
        })
    }

    /// `AddDataFenceEvent(agent, predecessor, successor)`.
    pub fn add_fence(&mut self, agent: usize, predecessor: u8, successor: u8) -> usize {
        self.add(Event {
            order: Order::AcquireRelease,
            fence_predecessor: predecessor & 0xf,
            fence_successor: successor & 0xf,
            ..Self::event(Kind::Fence, agent, 0, 1)
        })
    }

    /// `NextMemoryCoherenceRank`: one above the highest rank of a write to
    /// the same address and size (1 when there is none).
    fn next_coherence_rank(&self, address: u64, size: u32) -> u64 {
        self.events
            .iter()
            .filter(|e| e.is_write() && e.address == address && e.size_bytes == size)
            .map(|e| e.coherence_rank + 1)
            .fold(1, u64::max)
    }

    /// `ResolveCapturedReadFrom`: the read reads from the last earlier write
    /// of its location holding the value it read (left at 0 when none does).
    fn resolve_captured_read_from(&mut self, read: usize) {
        let r = self.events[read];
        if let Some(source) = (0..read).rev().find(|&i| {
            let w = &self.events[i];
            w.is_write() && w.shares_location(&r) && w.write_value == r.read_value
        }) {
            self.events[read].read_from = source;
        }
    }

    /// `RecordLoadEventForAgent` under capture: `AddLoadEvent`, then
    /// `ResolveCapturedReadFrom`.
    pub fn record_load(&mut self, agent: usize, address: u64, size: u32, value: u64, order: Order) {
        let i = self.add_load(agent, address, size, value, order);
        self.resolve_captured_read_from(i);
    }

    /// `RecordStoreEventForAgent` under capture: `AddStoreEvent` at
    /// `NextMemoryCoherenceRank`.
    pub fn record_store(
        &mut self,
        agent: usize,
        address: u64,
        size: u32,
        value: u64,
        order: Order,
    ) {
        let rank = self.next_coherence_rank(address, size);
        self.add_store(agent, address, size, value, order, rank);
    }

    /// `RecordAtomicEvent` under capture: ranked only when it wrote, then
    /// `ResolveCapturedReadFrom`.
    #[allow(clippy::too_many_arguments)]
    pub fn record_atomic(
        &mut self,
        agent: usize,
        address: u64,
        size: u32,
        read_value: u64,
        write_value: u64,
        order: Order,
        write_performed: bool,
    ) {
        let rank = if write_performed {
            self.next_coherence_rank(address, size)
        } else {
            0
        };
        let i = self.add_atomic(
            agent,
            address,
            size,
            read_value,
            write_value,
            order,
            rank,
            write_performed,
        );
        self.resolve_captured_read_from(i);
    }

    /// `SetMemoryReadFrom(read, source)`; false where the ASL asserts
    /// (either index outside the candidate).
    pub fn set_read_from(&mut self, read: usize, source: usize) -> bool {
        if read >= self.events.len() || source >= self.events.len() {
            return false;
        }
        self.events[read].read_from = source;
        true
    }

    fn coherence_before(&self, l: usize, r: usize) -> bool {
        let (a, b) = (&self.events[l], &self.events[r]);
        a.is_write() && b.is_write() && a.shares_location(b) && a.coherence_rank < b.coherence_rank
    }

    fn reads_from_before(&self, w: usize, r: usize) -> bool {
        self.events[w].is_write() && self.events[r].is_read() && self.events[r].read_from == w
    }

    fn external_reads_from_before(&self, w: usize, r: usize) -> bool {
        self.reads_from_before(w, r)
            && (self.events[w].kind == Kind::InitialWrite
                || self.events[w].agent != self.events[r].agent)
    }

    /// `MemoryFromReadBefore`.
    fn fr_before(&self, r: usize, w: usize) -> bool {
        let read = &self.events[r];
        if r == w || !read.is_read() || read.read_from >= self.events.len() {
            return false;
        }
        self.coherence_before(read.read_from, w)
    }

    fn same_agent_accesses(&self, l: usize, r: usize) -> bool {
        let (a, b) = (&self.events[l], &self.events[r]);
        l < r
            && a.agent == b.agent
            && a.kind != Kind::InitialWrite
            && b.kind != Kind::InitialWrite
            && a.is_access()
            && b.is_access()
    }

    fn program_order_location_before(&self, l: usize, r: usize) -> bool {
        self.same_agent_accesses(l, r) && self.events[l].shares_location(&self.events[r])
    }

    fn fence_orders(&self, l: usize, r: usize) -> bool {
        let (a, b) = (&self.events[l], &self.events[r]);
        (l + 1..r).any(|f| {
            let f = &self.events[f];
            f.kind == Kind::Fence
                && f.agent == a.agent
                && f.agent == b.agent
                && a.class() & f.fence_predecessor != 0
                && b.class() & f.fence_successor != 0
        })
    }

    /// `MemoryPreservedProgramOrderBefore`: R→M and M→W are kept; W→R is
    /// kept only by an atomic, acquire/release ordering or a matching fence.
    fn preserved_program_order_before(&self, l: usize, r: usize) -> bool {
        if !self.same_agent_accesses(l, r) {
            return false;
        }
        let (a, b) = (&self.events[l], &self.events[r]);
        if a.is_read() || b.is_write() || a.kind == Kind::Atomic || b.kind == Kind::Atomic {
            return true;
        }
        if matches!(a.order, Order::Acquire | Order::AcquireRelease)
            || matches!(b.order, Order::Release | Order::AcquireRelease)
        {
            return true;
        }
        self.fence_orders(l, r)
    }

    /// `MemoryCandidateExecutionValid`: nonempty; every access has exactly
    /// one initial write of its location and no partially overlapping
    /// (mixed-size) access; initial writes rank 0; every other write has a
    /// unique nonzero rank with its predecessor rank present; every read
    /// reads from a write of its location with its value (an atomic that
    /// wrote directly follows its source in coherence).
    pub fn valid(&self) -> bool {
        let ev = &self.events;
        if ev.is_empty() {
            return false;
        }
        for (i, e) in ev.iter().enumerate() {
            if e.is_access() {
                let mut initial = 0;
                for (j, c) in ev.iter().enumerate() {
                    if c.kind == Kind::InitialWrite && e.shares_location(c) {
                        initial += 1;
                    }
                    if j != i
                        && c.is_access()
                        && ranges_overlap(e.address, e.size_bytes, c.address, c.size_bytes)
                        && !e.shares_location(c)
                    {
                        return false;
                    }
                }
                if initial != 1 {
                    return false;
                }
            }
            if e.kind == Kind::InitialWrite && e.coherence_rank != 0 {
                return false;
            }
            if e.is_write() && e.kind != Kind::InitialWrite {
                if e.coherence_rank == 0 {
                    return false;
                }
                let mut predecessor = false;
                for (j, c) in ev.iter().enumerate() {
                    if j != i && c.is_write() && e.shares_location(c) {
                        if c.coherence_rank == e.coherence_rank {
                            return false;
                        }
                        if c.coherence_rank + 1 == e.coherence_rank {
                            predecessor = true;
                        }
                    }
                }
                if !predecessor {
                    return false;
                }
            }
            if e.is_read() {
                let Some(src) = ev.get(e.read_from) else {
                    return false;
                };
                if !src.is_write() || !e.shares_location(src) || e.read_value != src.write_value {
                    return false;
                }
                if e.kind == Kind::Atomic
                    && e.write_performed
                    && src.coherence_rank + 1 != e.coherence_rank
                {
                    return false;
                }
            }
        }
        true
    }

    /// `MemoryRelationAcyclic(uniproc)`: co ∪ fr ∪ (po-loc ∪ rf) when
    /// `uniproc`, else co ∪ fr ∪ ppo ∪ rfe, has no cycle.
    pub fn relation_acyclic(&self, uniproc: bool) -> bool {
        let n = self.events.len();
        let mut reach = vec![vec![false; n]; n];
        for (l, row) in reach.iter_mut().enumerate() {
            for (r, cell) in row.iter_mut().enumerate() {
                let mut edge = self.coherence_before(l, r) || self.fr_before(l, r);
                edge = edge
                    || if uniproc {
                        self.program_order_location_before(l, r) || self.reads_from_before(l, r)
                    } else {
                        self.preserved_program_order_before(l, r)
                            || self.external_reads_from_before(l, r)
                    };
                *cell = edge;
            }
        }
        // Transitive closure, via each event in turn (as the ASL).
        for via in 0..n {
            for source in 0..n {
                if reach[source][via] {
                    let via_row = reach[via].clone();
                    for (c, v) in reach[source].iter_mut().zip(via_row) {
                        *c |= v;
                    }
                }
            }
        }
        (0..n).all(|e| !reach[e][e])
    }

    /// `MemoryExecutionAllowedTSO`.
    pub fn allowed_tso(&self) -> bool {
        self.valid() && self.relation_acyclic(true) && self.relation_acyclic(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Store buffering: each agent stores 1 to its location, then reads the
    /// other location's initial 0.
    fn store_buffering(fence: bool) -> Candidate {
        let mut c = Candidate::default();
        let ix = c.add_initial_write(0, 8, 0);
        let iy = c.add_initial_write(8, 8, 0);
        c.add_store(0, 0, 8, 1, Order::Relaxed, 1);
        if fence {
            c.add_fence(0, 0b0010, 0b0001);
        }
        c.add_store(1, 8, 8, 1, Order::Relaxed, 1);
        let ry = c.add_load(0, 8, 8, 0, Order::Relaxed);
        let rx = c.add_load(1, 0, 8, 0, Order::Relaxed);
        assert!(c.set_read_from(ry, iy) && c.set_read_from(rx, ix));
        c
    }

    #[test]
    fn recorded_stores_rank_after_the_last_write_of_their_location_only() {
        let mut c = Candidate::default();
        c.add_initial_write(0, 8, 0);
        c.record_store(0, 0, 8, 1, Order::Relaxed);
        c.record_store(0, 0, 8, 2, Order::Release);
        c.record_store(0, 0, 4, 3, Order::Relaxed);
        let ranks: Vec<u64> = c.events.iter().map(|e| e.coherence_rank).collect();
        assert_eq!(ranks, [0, 1, 2, 1], "another size is another location");
        assert_eq!(c.events[2].order, Order::Release);
        c.record_atomic(0, 0, 8, 2, 9, Order::Acquire, false);
        assert_eq!(c.events[4].coherence_rank, 0, "a failed atomic is unranked");
        assert_eq!(c.events[4].read_from, 2, "it read the rank-2 store");
    }

    #[test]
    fn recorded_load_reads_from_the_last_matching_write_or_stays_at_zero() {
        let mut c = Candidate::default();
        c.add_initial_write(0, 8, 7);
        c.record_store(1, 0, 8, 8, Order::Relaxed);
        c.record_store(1, 0, 8, 7, Order::Relaxed);
        c.record_load(1, 0, 8, 7, Order::Relaxed);
        assert_eq!(c.events[3].read_from, 2, "the last write of value 7");
        c.record_load(1, 0, 8, 5, Order::Relaxed);
        assert_eq!(c.events[4].read_from, 0, "no write of 5: left at 0");
        assert!(!c.valid(), "a read of a value never written is not valid");
    }

    #[test]
    fn store_buffering_is_allowed_under_tso() {
        let c = store_buffering(false);
        assert!(c.valid());
        assert!(c.allowed_tso(), "W->R to another location is relaxed");
    }

    #[test]
    fn message_passing_stale_read_is_forbidden() {
        // Agent 0: x = 1; y = 1. Agent 1: reads y == 1, then x == 0.
        let mut c = Candidate::default();
        let ix = c.add_initial_write(0, 8, 0);
        c.add_initial_write(8, 8, 0);
        c.add_store(0, 0, 8, 1, Order::Relaxed, 1);
        let wy = c.add_store(0, 8, 8, 1, Order::Relaxed, 1);
        let ry = c.add_load(1, 8, 8, 1, Order::Relaxed);
        let rx = c.add_load(1, 0, 8, 0, Order::Relaxed);
        c.set_read_from(ry, wy);
        c.set_read_from(rx, ix);
        assert!(c.valid());
        assert!(c.relation_acyclic(true));
        assert!(!c.relation_acyclic(false), "W->W and R->R are preserved");
        assert!(!c.allowed_tso());
    }

    #[test]
    fn invalid_candidates_fail_closed() {
        let mut c = Candidate::default();
        assert!(!c.valid(), "an empty candidate is not valid");
        c.add_initial_write(0, 8, 0);
        let r = c.add_load(0, 0, 8, 5, Order::Relaxed);
        c.set_read_from(r, 0);
        assert!(!c.valid(), "the read value must be the source's");
        let mut c = Candidate::default();
        c.add_initial_write(0, 8, 0);
        c.add_store(0, 0, 8, 1, Order::Relaxed, 2);
        assert!(!c.valid(), "rank 2 without a rank-1 predecessor");
        let mut c = Candidate::default();
        c.add_initial_write(0, 8, 0);
        c.add_initial_write(0, 4, 0);
        c.add_store(0, 0, 4, 1, Order::Relaxed, 1);
        assert!(!c.valid(), "mixed-size overlap fails closed");
        let mut c = Candidate::default();
        c.add_store(0, 0, 8, 1, Order::Relaxed, 1);
        assert!(!c.valid(), "no initial write for the location");
        assert!(!c.set_read_from(3, 0));
    }

    #[test]
    fn a_fence_or_release_order_restores_write_to_read() {
        let mut c = store_buffering(true);
        assert!(c.valid());
        // The fence orders agent 0's W->R only; agent 1's pair stays relaxed.
        assert!(c.allowed_tso());
        // Agent 1's store AcquireRelease orders its W->R pair too.
        c.events[4].order = Order::AcquireRelease;
        assert!(!c.allowed_tso(), "both W->R pairs ordered: SB forbidden");
    }
}
