//! Guest memory: little-endian, sparse, 8 KiB pages with r/w/x permissions.
//!
//! Addresses are physical and virtual at once (a user-mode machine has no
//! page tables of its own). Pages live in a slot vector indexed through a
//! hash map keyed by page number; two small direct-mapped translation caches
//! (one for reads, one for writes) make the hot case a tag compare and an
//! array index.
//!
//! Page bytes are reference-counted and copied on write: a page that was
//! never written shares one zero page, and [`Memory::snapshot`] gives a copy
//! that shares every page with the original until either side writes it
//! (the schedule explorer starts each schedule from such a copy). A store
//! makes its page's bytes unique first ([`Arc::make_mut`]); only unique
//! pages enter the write cache and the [`JitTlb`]'s write half.
//!
//! **Invariants.**
//! - The write cache never holds a page marked as holding predecoded code
//!   (see [`crate::icache`]), so every store into such a page takes the slow
//!   path, which unmarks it, queues it for the instruction cache to drop and
//!   bumps [`Memory::code_generation`]. That is how
//!   self-modifying code and `IMB` stay correct (Handbook §6.6: `IMB` makes
//!   instruction stream writes visible; we are stricter and make every store
//!   visible at once).
//! - The LDx_L/STx_C reservations of every agent live here, beside the data
//!   they guard, because a store by *any* agent must clear *other* agents'
//!   lock flags (Handbook §4.2.4). Checking costs nothing while no
//!   reservation is armed.
//! - Faults are values ([`MemFault`]); nothing here panics on a guest address.
//! - The write cache and the [`JitTlb`]'s write half hold only pages whose
//!   bytes this memory owns alone; [`Memory::snapshot`] empties both before
//!   it shares anything, and a page copied on write leaves the `JitTlb`'s
//!   read half (which may point at the shared copy).

use rustc_hash::FxHashMap;
use std::sync::Arc;

/// Alpha page size used by Linux on every Alpha model (8 KiB).
pub const PAGE_SIZE: u64 = 8192;
/// log2 of [`PAGE_SIZE`].
pub const PAGE_SHIFT: u32 = 13;
const OFF_MASK: u64 = PAGE_SIZE - 1;
const TLB_SIZE: usize = 64;
/// Entries of each half of the [`JitTlb`].
pub const JIT_TLB_SIZE: usize = 256;

/// Host addresses of guest pages for compiled code (see [`crate::jit`]):
/// direct-mapped by page number, tag `u64::MAX` when empty. Compiled code
/// reads it directly, hence `repr(C)`; only [`Memory`] fills and flushes it.
///
/// **Invariants.** An entry's pointer is the start of the page's bytes and
/// stays valid until the next flush: every path that replaces or drops page
/// bytes (`map_zero`, `unmap`, a copy on write) or changes permissions
/// flushes the entries concerned. A read entry may point at bytes shared
/// with a snapshot (or at the zero page); a write entry only ever at bytes
/// this memory owns alone. The write half never holds a page marked as code,
/// and is empty while any LDx_L reservation is armed, so a compiled store
/// that hits it needs neither the self-modifying-code nor the reservation
/// check.
#[repr(C)]
pub struct JitTlb {
    pub rtag: [u64; JIT_TLB_SIZE],
    pub rptr: [usize; JIT_TLB_SIZE],
    pub wtag: [u64; JIT_TLB_SIZE],
    pub wptr: [usize; JIT_TLB_SIZE],
}

impl JitTlb {
    fn empty() -> Box<JitTlb> {
        Box::new(JitTlb {
            rtag: [u64::MAX; JIT_TLB_SIZE],
            rptr: [0; JIT_TLB_SIZE],
            wtag: [u64::MAX; JIT_TLB_SIZE],
            wptr: [0; JIT_TLB_SIZE],
        })
    }
    fn flush_writes(&mut self) {
        self.wtag = [u64::MAX; JIT_TLB_SIZE];
    }
}

/// A copy of memory has its own page bytes: it starts with an empty table.
impl Clone for JitTlb {
    fn clone(&self) -> Self {
        *JitTlb::empty()
    }
}

/// Page permissions (any combination of read, write, execute).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Perm(u8);

impl Perm {
    pub const NONE: Perm = Perm(0);
    pub const R: Perm = Perm(1);
    pub const W: Perm = Perm(2);
    pub const X: Perm = Perm(4);
    pub const RW: Perm = Perm(3);
    pub const RX: Perm = Perm(5);
    pub const RWX: Perm = Perm(7);

    pub fn union(self, o: Perm) -> Perm {
        Perm(self.0 | o.0)
    }
    pub fn contains(self, o: Perm) -> bool {
        self.0 & o.0 == o.0
    }
    pub fn bits(self) -> u8 {
        self.0
    }
    /// From ELF `p_flags` / mmap `PROT_*` bits (both use X=1, W=2, R=4).
    pub fn from_prot(prot: u32) -> Perm {
        let mut p = 0;
        if prot & 4 != 0 {
            p |= 1;
        }
        if prot & 2 != 0 {
            p |= 2;
        }
        if prot & 1 != 0 {
            p |= 4;
        }
        Perm(p)
    }
}

/// Why an access failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// No page is mapped at the address.
    Unmapped,
    /// The page is mapped without the permission the access needs.
    Protection,
    /// The access is not naturally aligned (raised by the CPU, never by memory).
    Unaligned,
}

/// What the faulting access was doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    Fetch,
}

/// A memory fault, as a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemFault {
    pub addr: u64,
    pub kind: FaultKind,
    pub access: Access,
}

impl std::fmt::Display for MemFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.access {
            Access::Read => "read",
            Access::Write => "write",
            Access::Fetch => "instruction fetch",
        };
        let why = match self.kind {
            FaultKind::Unmapped => "unmapped address",
            FaultKind::Protection => "protection violation",
            FaultKind::Unaligned => "unaligned address",
        };
        write!(f, "{what} at 0x{:x}: {why}", self.addr)
    }
}

/// The kind of a data access, for observers and for the reservation logic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// An ordinary load or store (LDx, STx, LDBU, STB, …).
    Plain,
    /// LDQ_U / STQ_U: the address has already been rounded down to a quadword.
    UnalignedQuad,
    /// LDx_L.
    LoadLocked,
    /// A STx_C that succeeded: it wrote memory (`is_store` is true).
    StoreConditional,
    /// A STx_C that failed: memory is unchanged (`is_store` is false) and
    /// `value` is what it would have stored.
    StoreConditionalFailed,
}

/// One data access, as recorded when tracing is on (see [`Memory::set_trace`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessRecord {
    /// The agent (CPU index) that made the access.
    pub agent: usize,
    /// Address of the instruction that made the access.
    pub pc: u64,
    /// The agent's retired-instruction count (`Cpu::icount`) before that
    /// instruction: two records of one agent whose `pc` distance is four
    /// times their `icount` distance were reached without a taken branch.
    pub icount: u64,
    /// First byte accessed (LDQ_U/STQ_U: the aligned quadword).
    pub addr: u64,
    pub size: u8,
    pub kind: AccessKind,
    /// Did the access write memory? (A failed STx_C did not.)
    pub is_store: bool,
    /// The value loaded or stored (zero-extended).
    pub value: u64,
}

/// Errors from the mapping API (loader, mmap, brk).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MapError {
    /// Start or length not page aligned, or the range wraps.
    BadRange { addr: u64, len: u64 },
    /// Part of the range is not mapped (for `protect`).
    NotMapped { addr: u64 },
    /// Mapping would exceed the memory cap.
    TooMuchMemory { limit: u64 },
}

impl std::fmt::Display for MapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MapError::BadRange { addr, len } => {
                write!(f, "bad memory range 0x{addr:x}+0x{len:x}")
            }
            MapError::NotMapped { addr } => write!(f, "address 0x{addr:x} is not mapped"),
            MapError::TooMuchMemory { limit } => {
                write!(f, "guest memory would exceed the cap of {limit} bytes")
            }
        }
    }
}

/// The bytes of one page.
type PageBuf = [u8; PAGE_SIZE as usize];

/// `Clone` shares the bytes (copy on write).
#[derive(Clone)]
struct Page {
    /// The bytes, shared until written: a fresh page holds the memory's
    /// zero page, so mapping a large stack or heap allocates nothing until
    /// it is written.
    data: Arc<PageBuf>,
    perm: Perm,
    /// The instruction cache holds a decoded copy of this page.
    code: bool,
}

#[derive(Clone, Copy)]
struct TlbEntry {
    pn: u64,
    slot: usize,
    /// Write cache only: host address of the page's bytes, which this
    /// memory owns alone (see the module invariants).
    ptr: usize,
}

const TLB_EMPTY: TlbEntry = TlbEntry {
    pn: u64::MAX,
    slot: 0,
    ptr: 0,
};

/// One agent's LDx_L reservation (Handbook §4.2.4: lock_flag and
/// locked_physical_address; the locked range is the aligned block of
/// `range` bytes containing it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Reservation {
    pub lock_flag: bool,
    pub locked_pa: u64,
    /// Lock range in bytes (power of two, 8..=8192).
    pub range: u64,
}

impl Reservation {
    /// Does a store of `len` bytes at `addr` touch this reservation's range?
    pub fn covers(&self, addr: u64, len: u64) -> bool {
        let size = self.range.max(1) as u128;
        let base = (self.locked_pa as u128) & !(size - 1);
        let a = addr as u128;
        a < base + size && base < a + len as u128
    }
}

/// Sparse guest memory with the reservations of every agent. `Clone` gives
/// an independent copy of every written page; [`Memory::snapshot`] an
/// equally independent one that shares pages until they are written.
pub struct Memory {
    map: FxHashMap<u64, usize>,
    pages: Vec<Page>,
    /// The bytes of every page never written (all zero, never written in
    /// place: it is always shared).
    zero: Arc<PageBuf>,
    free: Vec<usize>,
    rtlb: [TlbEntry; TLB_SIZE],
    wtlb: [TlbEntry; TLB_SIZE],
    code_gen: u64,
    dirty_code: Vec<u64>,
    reservations: Vec<Reservation>,
    armed: usize,
    limit_pages: u64,
    jtlb: Box<JitTlb>,
    /// Stores that cleared another agent's lock flag (for reports and tests).
    pub lock_breaks: u64,
    trace: Option<Vec<AccessRecord>>,
    /// pc and icount of the instruction now executing, while tracing.
    trace_site: (u64, u64),
    /// Scheduling points the interpreter may still run through before it
    /// stops at one (see [`Memory::set_point_passes`]).
    point_passes: u64,
    /// Per point run through: the trace's length just before it.
    point_marks: Vec<usize>,
}

impl Default for Memory {
    fn default() -> Self {
        Self::new()
    }
}

/// A copy that owns its written pages (the zero page stays shared). Its
/// write caches start empty: theirs point at the original's bytes.
impl Clone for Memory {
    fn clone(&self) -> Self {
        let mut m = self.share();
        for p in &mut m.pages {
            if !Arc::ptr_eq(&p.data, &self.zero) {
                p.data = Arc::new(*p.data);
            }
        }
        m
    }
}

/// Fresh zero bytes for a page, on the heap.
fn zero_page() -> Arc<PageBuf> {
    let v: Box<[u8]> = vec![0u8; PAGE_SIZE as usize].into_boxed_slice();
    let b: Box<PageBuf> = v.try_into().expect("one page");
    Arc::from(b)
}

fn range_pages(addr: u64, len: u64) -> Result<(u64, u64), MapError> {
    if addr & OFF_MASK != 0 || len & OFF_MASK != 0 || addr.checked_add(len).is_none() {
        return Err(MapError::BadRange { addr, len });
    }
    Ok((addr >> PAGE_SHIFT, len >> PAGE_SHIFT))
}

impl Memory {
    pub fn new() -> Self {
        Memory {
            map: FxHashMap::default(),
            pages: Vec::new(),
            zero: zero_page(),
            free: Vec::new(),
            rtlb: [TLB_EMPTY; TLB_SIZE],
            wtlb: [TLB_EMPTY; TLB_SIZE],
            code_gen: 0,
            dirty_code: Vec::new(),
            reservations: Vec::new(),
            armed: 0,
            limit_pages: u64::MAX,
            jtlb: JitTlb::empty(),
            lock_breaks: 0,
            trace: None,
            trace_site: (0, 0),
            point_passes: 0,
            point_marks: Vec::new(),
        }
    }

    /// A copy sharing every page with this memory until one of the two
    /// writes it (then that side copies the page). Costs a reference count
    /// per page, not its bytes. Empties this memory's write caches first,
    /// since their pages stop being its own.
    pub fn snapshot(&mut self) -> Memory {
        self.wtlb = [TLB_EMPTY; TLB_SIZE];
        self.jtlb.flush_writes();
        self.share()
    }

    /// Do `self` and `other` hold the very same bytes for the page of `addr`
    /// (shared, not yet copied on write)? `None` if either lacks the page.
    pub fn shares_page_with(&self, other: &Memory, addr: u64) -> Option<bool> {
        let pn = addr >> PAGE_SHIFT;
        let a = &self.pages[*self.map.get(&pn)?].data;
        let b = &other.pages[*other.map.get(&pn)?].data;
        Some(Arc::ptr_eq(a, b))
    }

    /// Everything but the page bytes copied, those shared; write caches empty.
    fn share(&self) -> Memory {
        Memory {
            map: self.map.clone(),
            pages: self.pages.clone(),
            zero: self.zero.clone(),
            free: self.free.clone(),
            rtlb: self.rtlb,
            wtlb: [TLB_EMPTY; TLB_SIZE],
            code_gen: self.code_gen,
            dirty_code: self.dirty_code.clone(),
            reservations: self.reservations.clone(),
            armed: self.armed,
            limit_pages: self.limit_pages,
            jtlb: JitTlb::empty(),
            lock_breaks: self.lock_breaks,
            trace: self.trace.clone(),
            trace_site: self.trace_site,
            point_passes: self.point_passes,
            point_marks: self.point_marks.clone(),
        }
    }

    /// The bytes of the page in `slot` (number `pn`), made this memory's own
    /// (copied if shared). A copy leaves the compiled code's read table,
    /// which may point at the shared bytes.
    #[inline]
    fn page_mut(&mut self, slot: usize, pn: u64) -> &mut PageBuf {
        let d = &mut self.pages[slot].data;
        if Arc::get_mut(d).is_none() {
            // Shared: copy (the zero page, a snapshot's page).
            *d = Arc::new(**d);
            let i = (pn as usize) & (JIT_TLB_SIZE - 1);
            if self.jtlb.rtag[i] == pn {
                self.jtlb.rtag[i] = u64::MAX;
            }
        }
        Arc::get_mut(&mut self.pages[slot].data).expect("unique after copy")
    }

    /// Cap guest memory at `bytes` (rounded up to pages).
    pub fn set_limit(&mut self, bytes: u64) {
        self.limit_pages = bytes.div_ceil(PAGE_SIZE);
    }

    /// Bytes currently mapped.
    pub fn mapped_bytes(&self) -> u64 {
        self.map.len() as u64 * PAGE_SIZE
    }

    fn flush_tlbs(&mut self) {
        self.rtlb = [TLB_EMPTY; TLB_SIZE];
        self.wtlb = [TLB_EMPTY; TLB_SIZE];
        self.jtlb.rtag = [u64::MAX; JIT_TLB_SIZE];
        self.jtlb.flush_writes();
    }

    /// The table compiled code reads (valid while this memory lives).
    pub fn jit_tlb(&mut self) -> *mut JitTlb {
        &mut *self.jtlb
    }

    /// After a successful load at `addr`: enter its page in the compiled
    /// code's read table.
    pub fn jit_fill_read(&mut self, addr: u64) {
        if let Ok(slot) = self.rslot(addr) {
            let pn = addr >> PAGE_SHIFT;
            let i = (pn as usize) & (JIT_TLB_SIZE - 1);
            self.jtlb.rtag[i] = pn;
            self.jtlb.rptr[i] = self.pages[slot].data.as_ptr() as usize;
        }
    }

    /// After a successful store at `addr`: enter its page in the compiled
    /// code's write table, unless it holds code or a reservation is armed.
    pub fn jit_fill_write(&mut self, addr: u64) {
        let pn = addr >> PAGE_SHIFT;
        // The interpreter's write cache, which the store just went through,
        // holds only writable pages without code whose bytes this memory
        // owns alone: copy its entry.
        let e = self.wtlb[(pn as usize) & (TLB_SIZE - 1)];
        if self.armed != 0 || e.pn != pn {
            return;
        }
        let i = (pn as usize) & (JIT_TLB_SIZE - 1);
        self.jtlb.wtag[i] = pn;
        self.jtlb.wptr[i] = e.ptr;
    }

    // ---------------------------------------------------------------- mapping

    /// Map `[addr, addr+len)` as fresh zero pages with `perm`, replacing
    /// whatever was there (like `mmap(MAP_FIXED|MAP_ANONYMOUS)`).
    pub fn map_zero(&mut self, addr: u64, len: u64, perm: Perm) -> Result<(), MapError> {
        let (first, n) = range_pages(addr, len)?;
        let new_pages = (first..first + n)
            .filter(|pn| !self.map.contains_key(pn))
            .count() as u64;
        if self.map.len() as u64 + new_pages > self.limit_pages {
            return Err(MapError::TooMuchMemory {
                limit: self.limit_pages.saturating_mul(PAGE_SIZE),
            });
        }
        for pn in first..first + n {
            if let Some(&slot) = self.map.get(&pn) {
                let p = &mut self.pages[slot];
                p.data = self.zero.clone();
                p.perm = perm;
                if std::mem::take(&mut p.code) {
                    self.dirty_code.push(pn);
                }
            } else {
                let page = Page {
                    data: self.zero.clone(),
                    perm,
                    code: false,
                };
                let slot = if let Some(s) = self.free.pop() {
                    self.pages[s] = page;
                    s
                } else {
                    self.pages.push(page);
                    self.pages.len() - 1
                };
                self.map.insert(pn, slot);
            }
        }
        self.flush_tlbs();
        self.code_gen += 1;
        Ok(())
    }

    /// Unmap `[addr, addr+len)`; unmapped holes are fine (like `munmap`).
    pub fn unmap(&mut self, addr: u64, len: u64) -> Result<(), MapError> {
        let (first, n) = range_pages(addr, len)?;
        for pn in first..first + n {
            if let Some(slot) = self.map.remove(&pn) {
                let p = &mut self.pages[slot];
                p.data = self.zero.clone();
                if std::mem::take(&mut p.code) {
                    self.dirty_code.push(pn);
                }
                p.perm = Perm::NONE;
                self.free.push(slot);
            }
        }
        self.flush_tlbs();
        self.code_gen += 1;
        Ok(())
    }

    /// Make `[alias, alias+len)` a second name for the pages already mapped
    /// at `[addr, addr+len)`: both page numbers share one page, so a store
    /// through either is seen through both (the bare machine's KSEG
    /// superpage over its RAM). The alias counts against no limit and must
    /// not be unmapped separately. Code marking is per page, so the
    /// decoded-code cache drops a block only under the name it was stored
    /// through; `IMB` (flush) covers the rest.
    pub fn alias(&mut self, alias: u64, addr: u64, len: u64) -> Result<(), MapError> {
        let (first, n) = range_pages(addr, len)?;
        let (afirst, _) = range_pages(alias, len)?;
        for i in 0..n {
            let slot = *self.map.get(&(first + i)).ok_or(MapError::NotMapped {
                addr: (first + i) << PAGE_SHIFT,
            })?;
            self.map.insert(afirst + i, slot);
        }
        self.flush_tlbs();
        self.code_gen += 1;
        Ok(())
    }

    /// Change permissions of mapped pages (like `mprotect`).
    pub fn protect(&mut self, addr: u64, len: u64, perm: Perm) -> Result<(), MapError> {
        let (first, n) = range_pages(addr, len)?;
        for pn in first..first + n {
            if !self.map.contains_key(&pn) {
                return Err(MapError::NotMapped {
                    addr: pn << PAGE_SHIFT,
                });
            }
        }
        for pn in first..first + n {
            let slot = self.map[&pn];
            let p = &mut self.pages[slot];
            p.perm = perm;
            if !perm.contains(Perm::X) && std::mem::take(&mut p.code) {
                self.dirty_code.push(pn);
            }
        }
        self.flush_tlbs();
        self.code_gen += 1;
        Ok(())
    }

    /// Every mapped page (page-aligned address, permissions), in address
    /// order (for the guest's `/proc/self/maps`).
    pub fn mapped_pages(&self) -> Vec<(u64, Perm)> {
        let mut v: Vec<(u64, Perm)> = self
            .map
            .iter()
            .map(|(&pn, &s)| (pn << PAGE_SHIFT, self.pages[s].perm))
            .collect();
        v.sort_unstable_by_key(|e| e.0);
        v
    }

    /// Permissions of the page holding `addr`, or `None` when unmapped.
    pub fn perm(&self, addr: u64) -> Option<Perm> {
        self.map
            .get(&(addr >> PAGE_SHIFT))
            .map(|&s| self.pages[s].perm)
    }

    /// Is the whole range mapped with at least `need`?
    pub fn range_ok(&self, addr: u64, len: u64, need: Perm) -> bool {
        if len == 0 {
            return true;
        }
        let Some(last) = addr.checked_add(len - 1) else {
            return false;
        };
        (addr >> PAGE_SHIFT..=last >> PAGE_SHIFT)
            .all(|pn| matches!(self.map.get(&pn), Some(&s) if self.pages[s].perm.contains(need)))
    }

    /// Lowest page-aligned address `>= hint` where `len` bytes are unmapped.
    pub fn find_free(&self, hint: u64, len: u64) -> Option<u64> {
        let pages = len.div_ceil(PAGE_SIZE);
        let mut pn = hint.div_ceil(PAGE_SIZE);
        loop {
            let end = pn.checked_add(pages)?;
            if end > (1u64 << (64 - PAGE_SHIFT)) {
                return None;
            }
            match (pn..end).find(|p| self.map.contains_key(p)) {
                Some(used) => pn = used + 1,
                None => return Some(pn << PAGE_SHIFT),
            }
        }
    }

    // ------------------------------------------------- privileged byte access

    /// Write bytes ignoring permissions (loader, kernel-side writes such as
    /// the initial stack). Fails on unmapped pages.
    pub fn poke(&mut self, addr: u64, bytes: &[u8]) -> Result<(), MemFault> {
        self.copy_in(addr, bytes, None)
    }

    /// Read bytes ignoring permissions. Fails on unmapped pages.
    pub fn peek(&self, addr: u64, out: &mut [u8]) -> Result<(), MemFault> {
        self.copy_out(addr, out, None)
    }

    /// Read bytes as the guest would (needs read permission): for syscalls
    /// such as `write`, which must fail with EFAULT rather than read
    /// protected memory.
    pub fn read_user(&self, addr: u64, out: &mut [u8]) -> Result<(), MemFault> {
        self.copy_out(addr, out, Some(Perm::R))
    }

    /// Write bytes as the guest would (needs write permission), e.g. `read`.
    pub fn write_user(&mut self, addr: u64, bytes: &[u8]) -> Result<(), MemFault> {
        self.copy_in(addr, bytes, Some(Perm::W))
    }

    fn copy_out(&self, addr: u64, out: &mut [u8], need: Option<Perm>) -> Result<(), MemFault> {
        let mut done = 0usize;
        while done < out.len() {
            let a = addr.wrapping_add(done as u64);
            let fault = |kind| MemFault {
                addr: a,
                kind,
                access: Access::Read,
            };
            let slot = *self
                .map
                .get(&(a >> PAGE_SHIFT))
                .ok_or(fault(FaultKind::Unmapped))?;
            let page = &self.pages[slot];
            if need.is_some_and(|n| !page.perm.contains(n)) {
                return Err(fault(FaultKind::Protection));
            }
            let off = (a & OFF_MASK) as usize;
            let n = (PAGE_SIZE as usize - off).min(out.len() - done);
            out[done..done + n].copy_from_slice(&page.data[off..off + n]);
            done += n;
        }
        Ok(())
    }

    fn copy_in(&mut self, addr: u64, bytes: &[u8], need: Option<Perm>) -> Result<(), MemFault> {
        // Preflight every page before the first byte is written (the range
        // may wrap around the top of the address space: walk it by chunks).
        let mut done = 0usize;
        while done < bytes.len() {
            let a = addr.wrapping_add(done as u64);
            let fault = |kind| MemFault {
                addr: a,
                kind,
                access: Access::Write,
            };
            let slot = *self
                .map
                .get(&(a >> PAGE_SHIFT))
                .ok_or(fault(FaultKind::Unmapped))?;
            if need.is_some_and(|n| !self.pages[slot].perm.contains(n)) {
                return Err(fault(FaultKind::Protection));
            }
            done += (PAGE_SIZE - (a & OFF_MASK)) as usize;
        }
        let mut done = 0usize;
        while done < bytes.len() {
            let a = addr.wrapping_add(done as u64);
            let off = (a & OFF_MASK) as usize;
            let n = (PAGE_SIZE as usize - off).min(bytes.len() - done);
            if let Some(&slot) = self.map.get(&(a >> PAGE_SHIFT)) {
                self.page_mut(slot, a >> PAGE_SHIFT)[off..off + n]
                    .copy_from_slice(&bytes[done..done + n]);
                let page = &mut self.pages[slot];
                if std::mem::take(&mut page.code) {
                    self.dirty_code.push(a >> PAGE_SHIFT);
                    self.code_gen += 1;
                }
            }
            done += n;
        }
        self.clear_reservations_hit(usize::MAX, addr, bytes.len() as u64);
        Ok(())
    }

    // ------------------------------------------------------------ data access

    #[inline(always)]
    fn rslot(&mut self, addr: u64) -> Result<usize, MemFault> {
        let pn = addr >> PAGE_SHIFT;
        let e = self.rtlb[(pn as usize) & (TLB_SIZE - 1)];
        if e.pn == pn {
            return Ok(e.slot);
        }
        self.rslot_slow(addr)
    }

    #[cold]
    fn rslot_slow(&mut self, addr: u64) -> Result<usize, MemFault> {
        let pn = addr >> PAGE_SHIFT;
        let fault = |kind| MemFault {
            addr,
            kind,
            access: Access::Read,
        };
        let slot = *self.map.get(&pn).ok_or(fault(FaultKind::Unmapped))?;
        if !self.pages[slot].perm.contains(Perm::R) {
            return Err(fault(FaultKind::Protection));
        }
        self.rtlb[(pn as usize) & (TLB_SIZE - 1)] = TlbEntry { pn, slot, ptr: 0 };
        Ok(slot)
    }

    /// Host address of the bytes of the page of `addr`, owned by this
    /// memory alone, for a store.
    #[inline(always)]
    fn wptr(&mut self, addr: u64) -> Result<usize, MemFault> {
        let pn = addr >> PAGE_SHIFT;
        let e = self.wtlb[(pn as usize) & (TLB_SIZE - 1)];
        if e.pn == pn {
            return Ok(e.ptr);
        }
        self.wptr_slow(addr)
    }

    #[cold]
    fn wptr_slow(&mut self, addr: u64) -> Result<usize, MemFault> {
        let pn = addr >> PAGE_SHIFT;
        let fault = |kind| MemFault {
            addr,
            kind,
            access: Access::Write,
        };
        let slot = *self.map.get(&pn).ok_or(fault(FaultKind::Unmapped))?;
        if !self.pages[slot].perm.contains(Perm::W) {
            return Err(fault(FaultKind::Protection));
        }
        let ptr = self.page_mut(slot, pn).as_mut_ptr() as usize;
        if std::mem::take(&mut self.pages[slot].code) {
            // A store into predecoded code: have the instruction cache drop
            // the block. The page is not cached for writes this time; the
            // next store finds it unmarked and caches it.
            self.dirty_code.push(pn);
            self.code_gen += 1;
            return Ok(ptr);
        }
        self.wtlb[(pn as usize) & (TLB_SIZE - 1)] = TlbEntry { pn, slot, ptr };
        Ok(ptr)
    }

    /// Write `bytes` at offset `off` of the page whose bytes start at `ptr`.
    #[inline(always)]
    fn write_at(ptr: usize, off: usize, bytes: &[u8]) {
        debug_assert!(off + bytes.len() <= PAGE_SIZE as usize);
        // SAFETY: `ptr` came from `wptr` just now: the start of a page's
        // bytes that this memory owns alone (the write cache holds no
        // other), alive as long as the page, which nothing between that
        // call and this one can replace; `off + len` stays inside the page.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), (ptr as *mut u8).add(off), bytes.len())
        }
    }

    /// Load `N` bytes (1, 2, 4 or 8) little-endian, zero-extended. The CPU
    /// has already checked alignment; an access that crosses a page (only
    /// possible on the unaligned fix-up path) is split.
    #[inline(always)]
    pub fn load<const N: usize>(&mut self, addr: u64) -> Result<u64, MemFault> {
        let off = (addr & OFF_MASK) as usize;
        if off + N > PAGE_SIZE as usize {
            return self.load_split(addr, N);
        }
        let slot = self.rslot(addr)?;
        let bytes = &self.pages[slot].data[off..off + N];
        let mut buf = [0u8; 8];
        buf[..N].copy_from_slice(bytes);
        Ok(u64::from_le_bytes(buf))
    }

    #[cold]
    fn load_split(&mut self, addr: u64, n: usize) -> Result<u64, MemFault> {
        let mut buf = [0u8; 8];
        for (i, b) in buf.iter_mut().enumerate().take(n) {
            let a = addr.wrapping_add(i as u64);
            let slot = self.rslot(a)?;
            *b = self.pages[slot].data[(a & OFF_MASK) as usize];
        }
        Ok(u64::from_le_bytes(buf))
    }

    /// Store the low `N` bytes of `value` little-endian on behalf of `agent`
    /// (a CPU index, or `usize::MAX` for a device). Clears the lock flag of
    /// every *other* agent whose locked range the store touches.
    #[inline(always)]
    pub fn store<const N: usize>(
        &mut self,
        agent: usize,
        addr: u64,
        value: u64,
    ) -> Result<(), MemFault> {
        let off = (addr & OFF_MASK) as usize;
        if off + N > PAGE_SIZE as usize {
            return self.store_split(agent, addr, N, value);
        }
        let ptr = self.wptr(addr)?;
        let bytes = value.to_le_bytes();
        Self::write_at(ptr, off, &bytes[..N]);
        if self.armed != 0 {
            self.clear_reservations_hit(agent, addr, N as u64);
        }
        Ok(())
    }

    #[cold]
    fn store_split(
        &mut self,
        agent: usize,
        addr: u64,
        n: usize,
        value: u64,
    ) -> Result<(), MemFault> {
        // Preflight both pages before writing anything.
        self.wptr(addr)?;
        self.wptr(addr.wrapping_add(n as u64 - 1))?;
        let bytes = value.to_le_bytes();
        for (i, &b) in bytes.iter().enumerate().take(n) {
            let a = addr.wrapping_add(i as u64);
            let ptr = self.wptr(a)?;
            Self::write_at(ptr, (a & OFF_MASK) as usize, &[b]);
        }
        if self.armed != 0 {
            self.clear_reservations_hit(agent, addr, n as u64);
        }
        Ok(())
    }

    /// Check that a store of `n` bytes at `addr` would succeed, without storing.
    pub fn probe_write(&mut self, addr: u64, n: u64) -> Result<(), MemFault> {
        self.wptr(addr)?;
        self.wptr(addr.wrapping_add(n.max(1) - 1))?;
        Ok(())
    }

    // ----------------------------------------------------------------- tracing

    /// Record every data access the interpreter makes from now on (`true`),
    /// or stop (`false`). Observers — a lost-store detector, a schedule
    /// explorer — read the record instead of patching the CPU.
    pub fn set_trace(&mut self, on: bool) {
        self.trace = if on { Some(Vec::new()) } else { None };
    }

    /// Is tracing on?
    #[inline(always)]
    pub fn tracing(&self) -> bool {
        self.trace.is_some()
    }

    /// Name the instruction whose accesses are recorded next (its pc and
    /// its agent's retired-instruction count before it). The interpreter
    /// calls this only while tracing, before each memory instruction.
    #[inline(always)]
    pub fn set_trace_site(&mut self, pc: u64, icount: u64) {
        self.trace_site = (pc, icount);
    }

    /// The instruction named by the last [`Memory::set_trace_site`].
    #[inline(always)]
    pub fn trace_site(&self) -> (u64, u64) {
        self.trace_site
    }

    /// Append one access to the trace (no-op when tracing is off).
    #[inline]
    pub fn record(&mut self, r: AccessRecord) {
        if let Some(t) = &mut self.trace {
            t.push(r);
        }
    }

    /// Let [`crate::exec::fast::run_to_point`] run through the next `n`
    /// scheduling points instead of stopping before the first of them (a
    /// scheduler that knows it would keep the same thread running at those
    /// points saves leaving and re-entering the interpreter). Forgets the
    /// marks of the previous run ([`Memory::point_marks`]).
    pub fn set_point_passes(&mut self, n: u64) {
        self.point_passes = n;
        self.point_marks.clear();
    }

    /// Passes left of those [`Memory::set_point_passes`] allowed.
    #[inline(always)]
    pub fn point_passes(&self) -> u64 {
        self.point_passes
    }

    /// The interpreter runs through a scheduling point: one pass fewer,
    /// and mark where in the trace it was.
    #[inline(always)]
    pub fn pass_point(&mut self) {
        self.point_passes -= 1;
        let at = self.trace.as_ref().map_or(0, |t| t.len());
        self.point_marks.push(at);
    }

    /// For each point run through since [`Memory::set_point_passes`], in
    /// order, the number of access records traced before it: record `i`
    /// of the trace was made after `marks.partition_point(|&m| m <= i)`
    /// of those points.
    pub fn point_marks(&self) -> &[usize] {
        &self.point_marks
    }

    /// The accesses recorded since the last call.
    pub fn take_trace(&mut self) -> Vec<AccessRecord> {
        self.trace.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Move the accesses recorded since the last call into `buf` (cleared
    /// first), handing `buf`'s allocation to the trace: a caller that drains
    /// often reuses two buffers instead of growing a new one each time.
    pub fn swap_trace(&mut self, buf: &mut Vec<AccessRecord>) {
        buf.clear();
        if let Some(t) = &mut self.trace {
            std::mem::swap(t, buf);
        }
    }

    // ---------------------------------------------------------- reservations

    fn res_mut(&mut self, agent: usize) -> &mut Reservation {
        if self.reservations.len() <= agent {
            self.reservations.resize(
                agent + 1,
                Reservation {
                    range: 8,
                    ..Default::default()
                },
            );
        }
        &mut self.reservations[agent]
    }

    /// The reservation of `agent`.
    pub fn reservation(&self, agent: usize) -> Reservation {
        self.reservations
            .get(agent)
            .copied()
            .unwrap_or(Reservation {
                range: 8,
                ..Default::default()
            })
    }

    /// Set `agent`'s lock flag for `pa` with a lock range of `range` bytes (LDx_L).
    pub fn arm_reservation(&mut self, agent: usize, pa: u64, range: u64) {
        let r = self.res_mut(agent);
        let was = r.lock_flag;
        *r = Reservation {
            lock_flag: true,
            locked_pa: pa,
            range,
        };
        if !was {
            self.armed += 1;
        }
        // Compiled stores must now take the checking path.
        self.jtlb.flush_writes();
    }

    /// Clear `agent`'s lock flag (STx_C, exceptions, context switch); returns
    /// the reservation as it was.
    pub fn clear_reservation(&mut self, agent: usize) -> Reservation {
        let r = self.res_mut(agent);
        let old = *r;
        if r.lock_flag {
            r.lock_flag = false;
            self.armed -= 1;
        }
        old
    }

    fn clear_reservations_hit(&mut self, agent: usize, addr: u64, len: u64) {
        if self.armed == 0 {
            return;
        }
        for (i, r) in self.reservations.iter_mut().enumerate() {
            if i != agent && r.lock_flag && r.covers(addr, len) {
                r.lock_flag = false;
                self.armed -= 1;
                self.lock_breaks += 1;
            }
        }
    }

    // ------------------------------------------------------ instruction fetch

    /// Generation counter of predecoded code; changes whenever any decoded
    /// block may have become stale.
    #[inline(always)]
    pub fn code_generation(&self) -> u64 {
        self.code_gen
    }

    /// Unmark every code page (`IMB`; the instruction cache drops everything).
    pub fn unmark_all_code(&mut self) {
        for p in &mut self.pages {
            p.code = false;
        }
        self.code_gen += 1;
    }

    /// Pages whose decoded copies became stale since the last call.
    pub fn take_dirty_code(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.dirty_code)
    }

    /// Mark the executable page `pn` as holding decoded code and return its
    /// bytes for decoding; fails like an instruction fetch would.
    pub fn mark_code(&mut self, pn: u64) -> Result<&[u8], MemFault> {
        let fault = |kind| MemFault {
            addr: pn << PAGE_SHIFT,
            kind,
            access: Access::Fetch,
        };
        let slot = *self.map.get(&pn).ok_or(fault(FaultKind::Unmapped))?;
        if !self.pages[slot].perm.contains(Perm::X) {
            return Err(fault(FaultKind::Protection));
        }
        // The page is code now: it must leave the write cache.
        let e = &mut self.wtlb[(pn as usize) & (TLB_SIZE - 1)];
        if e.pn == pn {
            *e = TLB_EMPTY;
        }
        let j = (pn as usize) & (JIT_TLB_SIZE - 1);
        if self.jtlb.wtag[j] == pn {
            self.jtlb.wtag[j] = u64::MAX;
        }
        let page = &mut self.pages[slot];
        page.code = true;
        Ok(&page.data[..])
    }

    /// The raw instruction word at `pc` (for diagnostics), ignoring permissions.
    pub fn word_at(&self, pc: u64) -> Option<u32> {
        let mut b = [0u8; 4];
        self.peek(pc, &mut b).ok()?;
        Some(u32::from_le_bytes(b))
    }
}
