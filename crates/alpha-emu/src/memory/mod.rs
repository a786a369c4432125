//! Guest memory: one interface, two implementations chosen when the
//! machine is built ([`MemoryKind`]).
//!
//! [`Memory`] is what the interpreter, the compiling tier, the loader and
//! the personalities use: little-endian loads and stores of 1, 2, 4 and 8
//! bytes with faults as values, the mapping calls (`map_zero`, `unmap`,
//! `protect`), privileged and user byte copies, the predecoded-code marks,
//! every agent's LDx_L/STx_C reservation, and the access trace. None of
//! them knows which implementation is behind it, except through
//! [`Memory::jit_access`], which tells the compiling tier how compiled code
//! reaches guest bytes.
//!
//! - **Portable** ([`MemoryKind::Portable`], `sparse.rs`): sparse 8 KiB
//!   pages in a hash map, bytes reference-counted and copied on write, so
//!   [`Memory::snapshot`] is cheap; every access goes through this code, so
//!   observers see every one of them. The schedule explorer and the bare
//!   machine use it, and so does anything that clones a machine.
//! - **Host-mapped** ([`MemoryKind::HostMapped`], `host.rs`): the guest's
//!   user address space (`[0, TASK_SIZE)`) reserved once in the host
//!   (`PROT_NONE`, `MAP_NORESERVE`) at `guest_base`, guest pages mapped
//!   there with the host's `mmap`/`mprotect`, so the guest byte at `va` is
//!   the host byte at `guest_base + va` and a compiled load or store is
//!   one host access; untouched pages cost the host nothing. The host's
//!   protection of a page is never laxer than the guest's (it is stricter
//!   for pages holding predecoded code and pages holding another agent's
//!   armed lock range), and every host fault in compiled code sends that
//!   instruction to the interpreter, which decides through this interface
//!   (see [`crate::jit`]). `alpha run` uses it.
//!
//! Observers sit beside the interface: with [`Memory::set_trace`] on, every
//! data access the interpreter makes through it is recorded as an
//! [`AccessRecord`]; the interpreter names the instruction each record
//! belongs to ([`Memory::set_trace_site`]) and counts the scheduling
//! points it runs through ([`Memory::pass_point`]). The compiling tier
//! never runs while tracing, so no access goes unrecorded.
//!
//! **Invariants (both implementations).**
//! - Faults are values ([`MemFault`]); nothing here panics on a guest
//!   address.
//! - A store into a page marked as holding predecoded code (see
//!   [`crate::icache`]) unmarks it, queues it for the instruction cache to
//!   drop and bumps [`Memory::code_generation`]: that is how
//!   self-modifying code and `IMB` stay correct (Handbook §6.6: `IMB`
//!   makes instruction-stream writes visible; we are stricter and make
//!   every store visible at once).
//! - The LDx_L/STx_C reservations of every agent live here, beside the
//!   data they guard, because a store by *any* agent must clear *other*
//!   agents' lock flags (Handbook §4.2.4). Checking costs nothing while no
//!   reservation is armed.

mod host;
mod sparse;

pub use sparse::{JitTlb, JIT_TLB_SIZE};

use host::HostMem;
use sparse::Sparse;

/// Alpha page size used by Linux on every Alpha model (8 KiB).
pub const PAGE_SIZE: u64 = 8192;
/// log2 of [`PAGE_SIZE`].
pub const PAGE_SHIFT: u32 = 13;
const OFF_MASK: u64 = PAGE_SIZE - 1;

/// The guest user address space a host-mapped memory reserves:
/// `[0, GUEST_SPACE)`, Alpha Linux's `TASK_SIZE` (43-bit user space).
pub const GUEST_SPACE: u64 = 0x400_0000_0000;

/// Which implementation a [`Memory`] uses (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MemoryKind {
    /// Sparse copy-on-write pages, every access through this code.
    #[default]
    Portable,
    /// The guest address space mapped into the host's.
    HostMapped,
}

/// How compiled code reaches guest memory (see [`Memory::jit_access`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JitAccess {
    /// Through the [`JitTlb`] (a page lookup) and, on a miss, a call into
    /// this interface.
    Tlb,
    /// Directly at `base + va` for `va < GUEST_SPACE`: any host fault
    /// there sends the instruction to the interpreter.
    Direct { base: u64 },
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
    /// Mapping would exceed the memory cap, or the host refused the memory.
    TooMuchMemory { limit: u64 },
    /// The range lies outside what this memory can map (a host-mapped
    /// memory maps only `[0, GUEST_SPACE)`).
    OutOfSpace { addr: u64, len: u64 },
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
            MapError::OutOfSpace { addr, len } => write!(
                f,
                "memory range 0x{addr:x}+0x{len:x} lies outside the guest address space"
            ),
        }
    }
}

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

    /// The page holding the locked range (ranges are at most a page and
    /// aligned, so one page holds all of it).
    fn page(&self) -> u64 {
        (self.locked_pa & !(self.range.max(1) - 1)) >> PAGE_SHIFT
    }
}

/// Pages whose decoded copies went stale, and the generation counter the
/// instruction cache compares.
#[derive(Clone, Debug, Default)]
pub(crate) struct CodeLog {
    gen: u64,
    dirty: Vec<u64>,
    /// Aligned quadwords of predecoded pages that a store changed (the
    /// page itself stays decoded: only these words are decoded again).
    stored: Vec<u64>,
}

impl CodeLog {
    /// Page `pn` held decoded code and changed.
    fn stale(&mut self, pn: u64) {
        self.dirty.push(pn);
        self.gen += 1;
    }
    /// A store into the quadword at `addr` of a page holding decoded code.
    fn stored(&mut self, addr: u64) {
        self.stored.push(addr & !7);
        self.gen += 1;
    }
    /// Something about mapped code changed (mapping calls).
    fn bump(&mut self) {
        self.gen += 1;
    }
}

/// Host faults taken by compiled code, by reason (see [`crate::jit`]);
/// each sent its instruction to the interpreter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostFaults {
    /// Stores into pages holding predecoded code (self-modifying code).
    pub code: u64,
    /// Stores into pages holding another agent's armed lock range.
    pub lock: u64,
}

// The portable store stays inline (its translation caches are on the
// explorer's hot path); the host-mapped one is boxed.
#[allow(clippy::large_enum_variant)]
enum Store {
    Sparse(Sparse),
    Host(Box<HostMem>),
}

/// Guest memory with the reservations of every agent (see the module
/// documentation). `Clone` and [`Memory::snapshot`] give independent
/// copies; a copy of a host-mapped memory is portable memory with the
/// same contents, permissions and code marks (the host reservation is not
/// duplicated: guest processes are duplicated by the host's `fork`).
pub struct Memory {
    store: Store,
    code: CodeLog,
    reservations: Vec<Reservation>,
    /// The agents whose lock flag is set (few, however many agents there
    /// are: a store or a switch looks at these only).
    armed: Vec<usize>,
    /// The agent whose turn it is ([`Memory::enter_agent`]).
    running: usize,
    limit_pages: u64,
    /// Stores that cleared another agent's lock flag (for reports and tests).
    pub lock_breaks: u64,
    /// Stores the host refused in compiled code that the interpreter then
    /// carried out (host-mapped memory only).
    pub host_faults: HostFaults,
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

impl Clone for Memory {
    fn clone(&self) -> Self {
        let store = match &self.store {
            Store::Sparse(s) => Store::Sparse(s.clone()),
            Store::Host(h) => Store::Sparse(h.to_sparse()),
        };
        self.with_store(store)
    }
}

/// Dispatch to the implementation.
macro_rules! on {
    ($self:expr, $s:ident => $e:expr) => {
        match &mut $self.store {
            Store::Sparse($s) => $e,
            Store::Host($s) => $e,
        }
    };
}
macro_rules! on_ref {
    ($self:expr, $s:ident => $e:expr) => {
        match &$self.store {
            Store::Sparse($s) => $e,
            Store::Host($s) => $e,
        }
    };
}

pub(crate) fn range_pages(addr: u64, len: u64) -> Result<(u64, u64), MapError> {
    if addr & OFF_MASK != 0 || len & OFF_MASK != 0 || addr.checked_add(len).is_none() {
        return Err(MapError::BadRange { addr, len });
    }
    Ok((addr >> PAGE_SHIFT, len >> PAGE_SHIFT))
}

impl Memory {
    /// Portable memory (see the module documentation).
    pub fn new() -> Self {
        Self::from_store(Store::Sparse(Sparse::new()))
    }

    /// Host-mapped memory, or why the host cannot give it (no room for
    /// the reservation, an unsupported host).
    pub fn host_mapped() -> Result<Self, String> {
        Ok(Self::from_store(Store::Host(Box::new(HostMem::new()?))))
    }

    /// Memory of `kind`; host-mapped memory falls back to portable memory
    /// when the host cannot give it, with the reason as the second value.
    pub fn of_kind(kind: MemoryKind) -> (Self, Option<String>) {
        match kind {
            MemoryKind::Portable => (Self::new(), None),
            MemoryKind::HostMapped => match Self::host_mapped() {
                Ok(m) => (m, None),
                Err(why) => (Self::new(), Some(why)),
            },
        }
    }

    /// Which implementation this memory uses.
    pub fn kind(&self) -> MemoryKind {
        match self.store {
            Store::Sparse(_) => MemoryKind::Portable,
            Store::Host(_) => MemoryKind::HostMapped,
        }
    }

    fn from_store(store: Store) -> Self {
        Memory {
            store,
            code: CodeLog::default(),
            reservations: Vec::new(),
            armed: Vec::new(),
            running: 0,
            limit_pages: u64::MAX,
            lock_breaks: 0,
            host_faults: HostFaults::default(),
            trace: None,
            trace_site: (0, 0),
            point_passes: 0,
            point_marks: Vec::new(),
        }
    }

    /// Everything but the store copied.
    fn with_store(&self, store: Store) -> Memory {
        Memory {
            store,
            code: self.code.clone(),
            reservations: self.reservations.clone(),
            armed: self.armed.clone(),
            running: self.running,
            limit_pages: self.limit_pages,
            lock_breaks: self.lock_breaks,
            host_faults: self.host_faults,
            trace: self.trace.clone(),
            trace_site: self.trace_site,
            point_passes: self.point_passes,
            point_marks: self.point_marks.clone(),
        }
    }

    /// A copy sharing every page with this memory until one of the two
    /// writes it (then that side copies the page). Costs a reference count
    /// per page, not its bytes. A host-mapped memory gives a portable copy
    /// of its pages instead.
    pub fn snapshot(&mut self) -> Memory {
        let store = match &mut self.store {
            Store::Sparse(s) => Store::Sparse(s.snapshot()),
            Store::Host(h) => Store::Sparse(h.to_sparse()),
        };
        self.with_store(store)
    }

    /// Do `self` and `other` hold the very same bytes for the page of `addr`
    /// (shared, not yet copied on write)? `None` if either lacks the page
    /// or is not portable memory.
    pub fn shares_page_with(&self, other: &Memory, addr: u64) -> Option<bool> {
        match (&self.store, &other.store) {
            (Store::Sparse(a), Store::Sparse(b)) => a.shares_page_with(b, addr),
            _ => None,
        }
    }

    /// Cap guest memory at `bytes` (rounded up to pages).
    pub fn set_limit(&mut self, bytes: u64) {
        self.limit_pages = bytes.div_ceil(PAGE_SIZE);
    }

    /// Bytes currently mapped.
    pub fn mapped_bytes(&self) -> u64 {
        on_ref!(self, s => s.mapped_bytes())
    }

    /// How compiled code reaches this memory.
    pub fn jit_access(&self) -> JitAccess {
        match &self.store {
            Store::Sparse(_) => JitAccess::Tlb,
            Store::Host(h) => JitAccess::Direct { base: h.base() },
        }
    }

    /// The table compiled code reads (portable memory; valid while this
    /// memory lives). A host-mapped memory has none (null).
    pub fn jit_tlb(&mut self) -> *mut JitTlb {
        match &mut self.store {
            Store::Sparse(s) => s.jit_tlb(),
            Store::Host(_) => std::ptr::null_mut(),
        }
    }

    /// After a successful load at `addr`: enter its page in the compiled
    /// code's read table.
    pub fn jit_fill_read(&mut self, addr: u64) {
        if let Store::Sparse(s) = &mut self.store {
            s.jit_fill_read(addr);
        }
    }

    /// After a successful store at `addr`: enter its page in the compiled
    /// code's write table, unless it holds code or a reservation is armed.
    pub fn jit_fill_write(&mut self, addr: u64) {
        let armed = !self.armed.is_empty();
        if let Store::Sparse(s) = &mut self.store {
            s.jit_fill_write(addr, armed);
        }
    }

    // ---------------------------------------------------------------- mapping

    /// Map `[addr, addr+len)` as fresh zero pages with `perm`, replacing
    /// whatever was there (like `mmap(MAP_FIXED|MAP_ANONYMOUS)`).
    pub fn map_zero(&mut self, addr: u64, len: u64, perm: Perm) -> Result<(), MapError> {
        let limit = self.limit_pages;
        let r = on!(self, s => s.map_zero(addr, len, perm, limit, &mut self.code));
        self.after_mapping();
        r
    }

    /// Unmap `[addr, addr+len)`; unmapped holes are fine (like `munmap`).
    pub fn unmap(&mut self, addr: u64, len: u64) -> Result<(), MapError> {
        let r = on!(self, s => s.unmap(addr, len, &mut self.code));
        self.after_mapping();
        r
    }

    /// Make `[alias, alias+len)` a second name for the pages already mapped
    /// at `[addr, addr+len)`: both page numbers share one page, so a store
    /// through either is seen through both (the bare machine's KSEG
    /// superpage over its RAM). Portable memory only. The alias counts
    /// against no limit and must not be unmapped separately. Code marking
    /// is per page, so the decoded-code cache drops a block only under the
    /// name it was stored through; `IMB` (flush) covers the rest.
    pub fn alias(&mut self, alias: u64, addr: u64, len: u64) -> Result<(), MapError> {
        match &mut self.store {
            Store::Sparse(s) => s.alias(alias, addr, len, &mut self.code),
            Store::Host(_) => Err(MapError::OutOfSpace { addr: alias, len }),
        }
    }

    /// Change permissions of mapped pages (like `mprotect`).
    pub fn protect(&mut self, addr: u64, len: u64, perm: Perm) -> Result<(), MapError> {
        let r = on!(self, s => s.protect(addr, len, perm, &mut self.code));
        self.after_mapping();
        r
    }

    /// A mapping call may have replaced pages holding locked ranges.
    fn after_mapping(&mut self) {
        if let Store::Host(h) = &mut self.store {
            h.sync_locks(&self.reservations, &self.armed, self.running);
        }
    }

    /// Every mapped page (page-aligned address, permissions), in address
    /// order.
    pub fn mapped_pages(&self) -> Vec<(u64, Perm)> {
        self.mapped_ranges()
            .into_iter()
            .flat_map(|(s, e, p)| (s..e).step_by(PAGE_SIZE as usize).map(move |a| (a, p)))
            .collect()
    }

    /// The mapped ranges `(start, end, permissions)` in address order,
    /// adjacent pages of equal permissions merged (for the guest's
    /// `/proc/self/maps`).
    pub fn mapped_ranges(&self) -> Vec<(u64, u64, Perm)> {
        on_ref!(self, s => s.mapped_ranges())
    }

    /// Permissions of the page holding `addr`, or `None` when unmapped.
    pub fn perm(&self, addr: u64) -> Option<Perm> {
        on_ref!(self, s => s.perm(addr))
    }

    /// Is the whole range mapped with at least `need`?
    pub fn range_ok(&self, addr: u64, len: u64, need: Perm) -> bool {
        if len == 0 {
            return true;
        }
        let Some(last) = addr.checked_add(len - 1) else {
            return false;
        };
        on_ref!(self, s => s.range_ok(addr, last, need))
    }

    /// Is `[addr, addr+len)` entirely unmapped?
    pub fn range_free(&self, addr: u64, len: u64) -> bool {
        if len == 0 {
            return true;
        }
        let Some(last) = addr.checked_add(len - 1) else {
            return false;
        };
        on_ref!(self, s => s.range_free(addr, last))
    }

    /// Lowest page-aligned address `>= hint` where `len` bytes are unmapped.
    pub fn find_free(&self, hint: u64, len: u64) -> Option<u64> {
        on_ref!(self, s => s.find_free(hint, len))
    }

    // ------------------------------------------------- privileged byte access

    /// Write bytes ignoring permissions (loader, kernel-side writes such as
    /// the initial stack). Fails on unmapped pages.
    pub fn poke(&mut self, addr: u64, bytes: &[u8]) -> Result<(), MemFault> {
        on!(self, s => s.copy_in(addr, bytes, None, &mut self.code))?;
        self.clear_reservations_hit(usize::MAX, addr, bytes.len() as u64);
        Ok(())
    }

    /// Read bytes ignoring permissions. Fails on unmapped pages.
    pub fn peek(&self, addr: u64, out: &mut [u8]) -> Result<(), MemFault> {
        on_ref!(self, s => s.copy_out(addr, out, None))
    }

    /// Read bytes as the guest would (needs read permission): for syscalls
    /// such as `write`, which must fail with EFAULT rather than read
    /// protected memory.
    pub fn read_user(&self, addr: u64, out: &mut [u8]) -> Result<(), MemFault> {
        on_ref!(self, s => s.copy_out(addr, out, Some(Perm::R)))
    }

    /// Write bytes as the guest would (needs write permission), e.g. `read`.
    pub fn write_user(&mut self, addr: u64, bytes: &[u8]) -> Result<(), MemFault> {
        on!(self, s => s.copy_in(addr, bytes, Some(Perm::W), &mut self.code))?;
        self.clear_reservations_hit(usize::MAX, addr, bytes.len() as u64);
        Ok(())
    }

    // ------------------------------------------------------------ data access

    /// Load `N` bytes (1, 2, 4 or 8) little-endian, zero-extended. The CPU
    /// has already checked alignment; an access that crosses a page (only
    /// possible on the unaligned fix-up path) is split.
    #[inline(always)]
    pub fn load<const N: usize>(&mut self, addr: u64) -> Result<u64, MemFault> {
        on!(self, s => s.load::<N>(addr))
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
        match &mut self.store {
            Store::Sparse(s) => s.store::<N>(addr, value, &mut self.code)?,
            Store::Host(h) => {
                if let Some(why) = h.store::<N>(addr, value, &mut self.code)? {
                    match why {
                        host::Refused::Code => self.host_faults.code += 1,
                        host::Refused::Lock => self.host_faults.lock += 1,
                    }
                }
            }
        }
        if !self.armed.is_empty() {
            self.clear_reservations_hit(agent, addr, N as u64);
        }
        Ok(())
    }

    /// Check that a store of `n` bytes at `addr` would succeed, without storing.
    pub fn probe_write(&mut self, addr: u64, n: u64) -> Result<(), MemFault> {
        on!(self, s => s.probe_write(addr, n))
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
            self.armed.push(agent);
        }
        match &mut self.store {
            // Compiled stores must now take the checking path.
            Store::Sparse(s) => s.flush_jit_writes(),
            Store::Host(h) => {
                if agent != self.running {
                    h.sync_locks(&self.reservations, &self.armed, self.running);
                }
            }
        }
    }

    /// Clear `agent`'s lock flag (STx_C, exceptions, context switch); returns
    /// the reservation as it was.
    pub fn clear_reservation(&mut self, agent: usize) -> Reservation {
        let r = self.res_mut(agent);
        let old = *r;
        if r.lock_flag {
            r.lock_flag = false;
            self.armed.retain(|&a| a != agent);
            if agent != self.running {
                if let Store::Host(h) = &mut self.store {
                    h.sync_locks(&self.reservations, &self.armed, self.running);
                }
            }
        }
        old
    }

    fn clear_reservations_hit(&mut self, agent: usize, addr: u64, len: u64) {
        if self.armed.is_empty() {
            return;
        }
        let mut cleared = false;
        let reservations = &mut self.reservations;
        let lock_breaks = &mut self.lock_breaks;
        self.armed.retain(|&i| {
            let r = &mut reservations[i];
            if i != agent && r.lock_flag && r.covers(addr, len) {
                r.lock_flag = false;
                *lock_breaks += 1;
                cleared = true;
                return false;
            }
            true
        });
        if cleared {
            if let Store::Host(h) = &mut self.store {
                h.sync_locks(&self.reservations, &self.armed, self.running);
            }
        }
    }

    /// Agent `agent` runs from now on until the next call (the machine
    /// calls this before each turn). A host-mapped memory write-protects
    /// in the host exactly the pages holding the armed lock ranges of the
    /// *other* agents, so a compiled store by `agent` into one of them
    /// faults and is carried out by the interpreter, which clears the
    /// flags the store hits (see `host.rs` for why that is exact).
    #[inline]
    pub fn enter_agent(&mut self, agent: usize) {
        if self.running != agent {
            self.running = agent;
            if let Store::Host(h) = &mut self.store {
                if !self.armed.is_empty() || h.has_locks() {
                    h.sync_locks(&self.reservations, &self.armed, agent);
                }
            }
        }
    }

    // ------------------------------------------------------ instruction fetch

    /// Generation counter of predecoded code; changes whenever any decoded
    /// block may have become stale.
    #[inline(always)]
    pub fn code_generation(&self) -> u64 {
        self.code.gen
    }

    /// Unmark every code page (`IMB`; the instruction cache drops everything).
    pub fn unmark_all_code(&mut self) {
        on!(self, s => s.unmark_all_code());
        self.code.bump();
    }

    /// Pages whose decoded copies became stale since the last call.
    pub fn take_dirty_code(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.code.dirty)
    }

    /// Aligned quadwords of still-decoded pages that stores changed since
    /// the last call (portable memory: a store into a code page leaves the
    /// page decoded and reports the quadword, so only the instructions it
    /// holds are decoded again).
    pub fn take_stored_code(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.code.stored)
    }

    /// Mark the executable page `pn` as holding decoded code and return its
    /// bytes for decoding; fails like an instruction fetch would.
    pub fn mark_code(&mut self, pn: u64) -> Result<&[u8], MemFault> {
        on!(self, s => s.mark_code(pn))
    }

    /// The raw instruction word at `pc` (for diagnostics), ignoring permissions.
    pub fn word_at(&self, pc: u64) -> Option<u32> {
        let mut b = [0u8; 4];
        self.peek(pc, &mut b).ok()?;
        Some(u32::from_le_bytes(b))
    }
}
