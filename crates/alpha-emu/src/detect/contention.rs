//! lock-range-contention: a STx_C fails because another thread stored to a
//! *different* address inside this thread's lock range.
//!
//! The Handbook (§4.2.4, "LDx_L"; quoted in the BWX seed): a processor's
//! locked range is the aligned block of 2^N bytes containing the LDx_L's
//! address, at least a quadword and at most a page; a successful store by
//! another processor anywhere in it clears the lock flag, so that
//! processor's STx_C fails. A store to the locked longword/quadword itself
//! is genuine contention (the two threads update one variable) and is not
//! reported. A store elsewhere in the range is *false* sharing of the lock
//! range: two independently updated variables too close together, which
//! makes each other's STx_C fail and retry.
//!
//! The rule. Per thread, the open reservation (from its LDx_L: the locked
//! unit and its aligned block of [`super::Config::lock_range`] bytes) and
//! the first store by another thread that landed in the block since — the
//! one that cleared the lock flag. When the thread's STx_C fails and that
//! first store did not overlap the locked unit, report both addresses,
//! both pcs and the lock range. A STx_C that succeeds, or fails with no
//! such store (the lock flag was lost some other way), reports nothing.

use super::{Finding, Kind, Site};
use crate::memory::{AccessKind, AccessRecord};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Breaker {
    /// A store overlapping the locked unit: genuine contention.
    Own,
    /// A store elsewhere in the lock range.
    Neighbour { site: Site, addr: u64 },
}

#[derive(Clone)]
struct Reservation {
    thread: u32,
    /// The LDx_L's pc.
    pc: u64,
    addr: u64,
    size: u64,
    block: u64,
    broke: Option<Breaker>,
}

#[inline(always)]
fn overlaps(a: u64, an: u64, b: u64, bn: u64) -> bool {
    a < b.wrapping_add(bn) && b < a.wrapping_add(an)
}

#[derive(Clone)]
pub(super) struct Contention {
    lock_range: u64,
    res: Vec<Reservation>,
}

impl Contention {
    pub(super) fn new(lock_range: u64) -> Contention {
        Contention {
            lock_range: lock_range.max(8).next_power_of_two(),
            res: Vec::new(),
        }
    }

    pub(super) fn reset(&mut self) {
        self.res.clear();
    }

    /// Is a reservation open (so that any store may matter)?
    #[inline(always)]
    pub(super) fn watching(&self) -> bool {
        !self.res.is_empty()
    }

    pub(super) fn access(&mut self, thread: u32, rec: &AccessRecord, out: &mut Vec<Finding>) {
        match rec.kind {
            AccessKind::LoadLocked => {
                self.res.retain(|r| r.thread != thread);
                self.res.push(Reservation {
                    thread,
                    pc: rec.pc,
                    addr: rec.addr,
                    size: rec.size as u64,
                    block: rec.addr & !(self.lock_range - 1),
                    broke: None,
                });
            }
            AccessKind::StoreConditional | AccessKind::StoreConditionalFailed => {
                if let Some(i) = self.res.iter().position(|r| r.thread == thread) {
                    let r = self.res.swap_remove(i);
                    if let (
                        AccessKind::StoreConditionalFailed,
                        Some(Breaker::Neighbour { site, addr }),
                    ) = (rec.kind, r.broke)
                    {
                        out.push(Finding {
                            kind: Kind::LockRangeContention,
                            address: rec.addr,
                            bytes: Vec::new(),
                            by: Site { thread, pc: rec.pc },
                            by_load_pc: Some(r.pc),
                            other: Some(site),
                            other_address: Some(addr),
                            lock_range: Some(self.lock_range),
                            rule: None,
                            offending_pc: None,
                        });
                    }
                }
            }
            _ => {}
        }
        if rec.is_store {
            let n = rec.size as u64;
            for r in &mut self.res {
                if r.thread == thread
                    || r.broke.is_some()
                    || !overlaps(rec.addr, n, r.block, self.lock_range)
                {
                    continue;
                }
                r.broke = Some(if overlaps(rec.addr, n, r.addr, r.size) {
                    Breaker::Own
                } else {
                    Breaker::Neighbour {
                        site: Site { thread, pc: rec.pc },
                        addr: rec.addr,
                    }
                });
            }
        }
    }
}
