//! Host-mapped memory: the guest's user address space inside the host's
//! (see the module documentation of [`crate::memory`]).
//!
//! One reservation of [`GUEST_SPACE`] bytes (`PROT_NONE`,
//! `MAP_NORESERVE`) is made when the memory is built; guest address `va`
//! is host address `base + va`. Mapping a guest range maps fresh anonymous
//! host pages over that part of the reservation (`MAP_FIXED`), unmapping
//! puts the reservation back, so the host holds only the pages the guest
//! has touched; the guest's permissions are kept by range, not by page.
//!
//! **Invariants.**
//! - The host protection of every page is never laxer than the guest's:
//!   readable on the host only if the guest may read it, writable only if
//!   the guest may read and write it and the page neither holds predecoded
//!   code nor another agent's armed lock range. Compiled code therefore
//!   never completes an access the interpreter would refuse; whatever the
//!   host refuses it hands to the interpreter, which goes through this
//!   code (see [`crate::jit`]).
//! - Pages marked as code are write-protected in the host until a store
//!   (by any path) unmarks them; the stale page is logged for the
//!   instruction cache at that store, so compiled code is dropped before
//!   it could run stale.
//! - While agent A runs ([`super::Memory::enter_agent`]), exactly the pages
//!   holding the armed lock ranges of agents other than A are
//!   write-protected for locks. Why that keeps LDx_L/STx_C exact: guest
//!   threads take turns on one host thread, so during A's turn only A
//!   stores (compiled or interpreted) and the kernel side stores through
//!   this interface. A lock range is aligned and at most a page, so it
//!   lies in one page. A store by A that touches another agent's armed
//!   range therefore lands in a protected page: from compiled code it
//!   faults and the interpreter carries it out through
//!   [`super::Memory::store`], which, like every interpreted and kernel
//!   store, clears the flags whose ranges it touches; stores elsewhere
//!   cannot touch a range. Reservations of others only disappear during
//!   A's turn (A cannot arm them), and the protection follows at once. At
//!   the next turn the set is recomputed for the new agent. A's own range
//!   is never protected during its turn (its own stores do not clear its
//!   flag). So no store that must clear a flag escapes, and stores that
//!   touch no armed range run at full speed.
//! - The interpreter's two translation caches hold pages it has checked:
//!   the read cache guest-readable pages, the write cache pages writable
//!   in the host (so never code or locked pages); every change of
//!   mapping, protection, code marks or locks drops the entries concerned.
//!
//! The kernel side (this code) reaches pages the host protects more than
//! the guest by lifting the protection for the copy and putting it back.

use super::sparse::Sparse;
use super::{
    range_pages, Access, CodeLog, FaultKind, MapError, MemFault, Perm, Reservation, GUEST_SPACE,
    OFF_MASK, PAGE_SHIFT, PAGE_SIZE,
};
use rustc_hash::FxHashSet;
use std::collections::BTreeMap;

const TLB_SIZE: usize = 64;
const GUEST_PAGES: u64 = GUEST_SPACE >> PAGE_SHIFT;

/// Why a store had to lift the host's protection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The page held predecoded code (now dropped).
    Code,
    /// The page holds another agent's armed lock range.
    Lock,
}

pub(crate) struct HostMem {
    base: *mut u8,
    /// Guest permissions by range: start → (end, permissions). Ranges never
    /// overlap, are never empty, and neighbours of equal permissions are
    /// merged.
    vmas: BTreeMap<u64, (u64, Perm)>,
    mapped: u64,
    /// Pages marked as holding predecoded code.
    code: FxHashSet<u64>,
    /// Pages write-protected for other agents' lock ranges (sorted).
    locked: Vec<u64>,
    rtlb: [u64; TLB_SIZE],
    wtlb: [u64; TLB_SIZE],
    /// A page's bytes for decoding when the host cannot read it in place.
    scratch: Box<[u8; PAGE_SIZE as usize]>,
}

// SAFETY: `base` is the reservation this value owns alone; nothing else
// holds pointers into it, so moving it to another thread moves the only
// owner, and `&self` methods only read through it.
unsafe impl Send for HostMem {}
// SAFETY: as above; shared references only read.
unsafe impl Sync for HostMem {}

impl Drop for HostMem {
    fn drop(&mut self) {
        // SAFETY: the reservation is ours and nothing points into it any
        // more (compiled code belongs to a cache dropped with the machine,
        // and never runs outside `Machine::run`).
        unsafe { libc::munmap(self.base.cast(), GUEST_SPACE as usize) };
    }
}

fn prot_of(perm: Perm, protected: bool) -> libc::c_int {
    if !perm.contains(Perm::R) {
        libc::PROT_NONE
    } else if perm.contains(Perm::W) && !protected {
        libc::PROT_READ | libc::PROT_WRITE
    } else {
        libc::PROT_READ
    }
}

impl HostMem {
    /// Reserve the guest address space in the host.
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    pub(crate) fn new() -> Result<HostMem, String> {
        // SAFETY: a fresh anonymous reservation; no existing mapping moves.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                GUEST_SPACE as usize,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            let e = std::io::Error::last_os_error();
            return Err(format!(
                "cannot reserve {} GiB of host address space for guest memory ({e}); using portable memory",
                GUEST_SPACE >> 30
            ));
        }
        crate::jit::fault::install();
        Ok(HostMem {
            base: p.cast(),
            vmas: BTreeMap::new(),
            mapped: 0,
            code: FxHashSet::default(),
            locked: Vec::new(),
            rtlb: [u64::MAX; TLB_SIZE],
            wtlb: [u64::MAX; TLB_SIZE],
            scratch: Box::new([0; PAGE_SIZE as usize]),
        })
    }

    #[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
    pub(crate) fn new() -> Result<HostMem, String> {
        Err("host-mapped guest memory needs an x86-64 Linux host; using portable memory".into())
    }

    /// `guest_base`: guest address `va` is host address `base + va`.
    pub(crate) fn base(&self) -> u64 {
        self.base as u64
    }

    #[inline(always)]
    fn host(&self, va: u64) -> *mut u8 {
        self.base.wrapping_add(va as usize)
    }

    pub(crate) fn mapped_bytes(&self) -> u64 {
        self.mapped
    }

    pub(crate) fn has_locks(&self) -> bool {
        !self.locked.is_empty()
    }

    fn flush_tlbs(&mut self) {
        self.rtlb = [u64::MAX; TLB_SIZE];
        self.wtlb = [u64::MAX; TLB_SIZE];
    }

    fn forget_write(&mut self, pn: u64) {
        let e = &mut self.wtlb[(pn as usize) & (TLB_SIZE - 1)];
        if *e == pn {
            *e = u64::MAX;
        }
    }

    // ------------------------------------------------------------ ranges

    /// The range holding page address `a`.
    fn vma(&self, a: u64) -> Option<(u64, u64, Perm)> {
        let (&s, &(e, p)) = self.vmas.range(..=a).next_back()?;
        (a < e).then_some((s, e, p))
    }

    /// Make `[start, end)` have `perm` (or be unmapped), splitting and
    /// merging ranges. Returns how many bytes of it were mapped before.
    fn set_range(&mut self, start: u64, end: u64, perm: Option<Perm>) -> u64 {
        let mut before = 0;
        let hit: Vec<(u64, u64, Perm)> = self
            .vmas
            .range(..end)
            .rev()
            .take_while(|(_, &(e, _))| e > start)
            .map(|(&s, &(e, p))| (s, e, p))
            .collect();
        for (s, e, p) in hit {
            self.vmas.remove(&s);
            before += e.min(end) - s.max(start);
            if s < start {
                self.vmas.insert(s, (start, p));
            }
            if e > end {
                self.vmas.insert(end, (e, p));
            }
        }
        self.mapped -= before;
        if let Some(p) = perm {
            let (mut s, mut e) = (start, end);
            if let Some((ls, le, lp)) = s.checked_sub(1).and_then(|a| self.vma(a)) {
                if le == s && lp == p {
                    self.vmas.remove(&ls);
                    s = ls;
                }
            }
            if let Some(&(ne, np)) = self.vmas.get(&e) {
                if np == p {
                    self.vmas.remove(&e);
                    e = ne;
                }
            }
            self.vmas.insert(s, (e, p));
            self.mapped += end - start;
        }
        before
    }

    /// The guest permissions of page `pn`, if mapped.
    fn page_perm(&self, pn: u64) -> Option<Perm> {
        self.vma(pn << PAGE_SHIFT).map(|v| v.2)
    }

    fn protected(&self, pn: u64) -> bool {
        self.code.contains(&pn) || self.locked.binary_search(&pn).is_ok()
    }

    /// Give page `pn` the host protection its guest permissions, code mark
    /// and locks call for.
    fn reprotect(&mut self, pn: u64) {
        if let Some(perm) = self.page_perm(pn) {
            let prot = prot_of(perm, self.protected(pn));
            // SAFETY: one page inside our reservation, mapped by us.
            unsafe { libc::mprotect(self.host(pn << PAGE_SHIFT).cast(), PAGE_SIZE as usize, prot) };
        }
        let i = (pn as usize) & (TLB_SIZE - 1);
        if self.rtlb[i] == pn {
            self.rtlb[i] = u64::MAX;
        }
        self.forget_write(pn);
    }

    /// Give every mapped page of `[first, first + n)` its host protection.
    fn restore_range(&mut self, first: u64, n: u64) {
        let (start, end) = (first << PAGE_SHIFT, (first + n) << PAGE_SHIFT);
        let pieces: Vec<(u64, u64, Perm)> = self
            .vmas
            .range(..end)
            .rev()
            .take_while(|(_, &(e, _))| e > start)
            .map(|(&s, &(e, p))| (s.max(start), e.min(end), p))
            .collect();
        for (s, e, p) in pieces {
            // SAFETY: a mapped range inside our reservation.
            unsafe { libc::mprotect(self.host(s).cast(), (e - s) as usize, prot_of(p, false)) };
        }
        self.fix_marked(first, n);
        self.flush_tlbs();
    }

    /// Re-protect the code and locked pages of `[first, first + n)`.
    fn fix_marked(&mut self, first: u64, n: u64) {
        let range = first..first + n;
        let mut marked: Vec<u64> = if n as usize > self.code.len() {
            self.code
                .iter()
                .copied()
                .filter(|p| range.contains(p))
                .collect()
        } else {
            range.clone().filter(|p| self.code.contains(p)).collect()
        };
        marked.extend(self.locked.iter().copied().filter(|p| range.contains(p)));
        for pn in marked {
            self.reprotect(pn);
        }
    }

    /// Forget the code marks of `[first, first + n)` (their pages change).
    fn unmark_range(&mut self, first: u64, n: u64, code: &mut CodeLog) {
        let range = first..first + n;
        let hit: Vec<u64> = if n as usize > self.code.len() {
            self.code
                .iter()
                .copied()
                .filter(|p| range.contains(p))
                .collect()
        } else {
            range.filter(|p| self.code.contains(p)).collect()
        };
        for pn in hit {
            self.code.remove(&pn);
            code.dirty.push(pn);
        }
    }

    fn check_space(addr: u64, len: u64) -> Result<(u64, u64), MapError> {
        let (first, n) = range_pages(addr, len)?;
        if first + n > GUEST_PAGES {
            return Err(MapError::OutOfSpace { addr, len });
        }
        Ok((first, n))
    }

    /// Put the reservation back over `[addr, addr + len)` (dropping the
    /// host pages).
    fn reserve(&mut self, addr: u64, len: u64) -> bool {
        // SAFETY: a range inside our reservation; MAP_FIXED replaces only
        // our own pages there.
        let p = unsafe {
            libc::mmap(
                self.host(addr).cast(),
                len as usize,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        p != libc::MAP_FAILED
    }

    // ---------------------------------------------------------------- mapping

    pub(crate) fn map_zero(
        &mut self,
        addr: u64,
        len: u64,
        perm: Perm,
        limit_pages: u64,
        code: &mut CodeLog,
    ) -> Result<(), MapError> {
        let (first, n) = Self::check_space(addr, len)?;
        let overlap = self.overlap(addr, addr + len);
        let limit = limit_pages.saturating_mul(PAGE_SIZE);
        if self.mapped - overlap + len > limit {
            return Err(MapError::TooMuchMemory { limit });
        }
        if n == 0 {
            return Ok(());
        }
        // SAFETY: a range inside our reservation; MAP_FIXED replaces only
        // our own pages there.
        let p = unsafe {
            libc::mmap(
                self.host(addr).cast(),
                len as usize,
                prot_of(perm, false),
                // Without MAP_NORESERVE: the host's overcommit policy judges
                // a guest mapping as Linux would judge it for the guest.
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        self.unmark_range(first, n, code);
        self.flush_tlbs();
        code.bump();
        if p == libc::MAP_FAILED {
            // The host refused the memory; whatever was there may be gone:
            // the range is reserved and unmapped again.
            self.reserve(addr, len);
            self.set_range(addr, addr + len, None);
            self.fix_marked(first, n);
            return Err(MapError::TooMuchMemory { limit: self.mapped });
        }
        self.set_range(addr, addr + len, Some(perm));
        self.fix_marked(first, n);
        Ok(())
    }

    /// Bytes of `[start, end)` mapped now.
    fn overlap(&self, start: u64, end: u64) -> u64 {
        self.vmas
            .range(..end)
            .rev()
            .take_while(|(_, &(e, _))| e > start)
            .map(|(&s, &(e, _))| e.min(end) - s.max(start))
            .sum()
    }

    pub(crate) fn unmap(
        &mut self,
        addr: u64,
        len: u64,
        code: &mut CodeLog,
    ) -> Result<(), MapError> {
        let (first, n) = range_pages(addr, len)?;
        // Nothing is mapped beyond the guest space.
        let n = n.min(GUEST_PAGES.saturating_sub(first));
        if n == 0 {
            return Ok(());
        }
        let (start, end) = (first << PAGE_SHIFT, (first + n) << PAGE_SHIFT);
        if self.overlap(start, end) != 0 {
            self.reserve(start, end - start);
        }
        self.set_range(start, end, None);
        self.unmark_range(first, n, code);
        self.flush_tlbs();
        code.bump();
        Ok(())
    }

    pub(crate) fn protect(
        &mut self,
        addr: u64,
        len: u64,
        perm: Perm,
        code: &mut CodeLog,
    ) -> Result<(), MapError> {
        let (first, n) = range_pages(addr, len)?;
        if n == 0 {
            return Ok(());
        }
        if first + n > GUEST_PAGES || self.overlap(addr, addr + len) != len {
            let mut a = addr;
            while self.vma(a).is_some() {
                a += PAGE_SIZE;
            }
            return Err(MapError::NotMapped { addr: a });
        }
        if !perm.contains(Perm::X) {
            self.unmark_range(first, n, code);
        }
        self.set_range(addr, addr + len, Some(perm));
        self.restore_range(first, n);
        code.bump();
        Ok(())
    }

    pub(crate) fn mapped_ranges(&self) -> Vec<(u64, u64, Perm)> {
        self.vmas.iter().map(|(&s, &(e, p))| (s, e, p)).collect()
    }

    pub(crate) fn perm(&self, addr: u64) -> Option<Perm> {
        self.vma(addr & !OFF_MASK).map(|v| v.2)
    }

    pub(crate) fn range_ok(&self, addr: u64, last: u64, need: Perm) -> bool {
        let mut a = addr & !OFF_MASK;
        loop {
            match self.vma(a) {
                Some((_, e, p)) if p.contains(need) => {
                    if e > last {
                        return true;
                    }
                    a = e;
                }
                _ => return false,
            }
        }
    }

    pub(crate) fn range_free(&self, addr: u64, last: u64) -> bool {
        let end = (last | OFF_MASK).saturating_add(1);
        self.overlap(addr & !OFF_MASK, end) == 0
    }

    pub(crate) fn find_free(&self, hint: u64, len: u64) -> Option<u64> {
        let len = len.div_ceil(PAGE_SIZE) * PAGE_SIZE;
        let mut at = hint.div_ceil(PAGE_SIZE) * PAGE_SIZE;
        if let Some((_, e, _)) = self.vma(at) {
            at = e;
        }
        for (&s, &(e, _)) in self.vmas.range(at..) {
            if s >= at.checked_add(len)? {
                break;
            }
            at = at.max(e);
        }
        (at.checked_add(len)? <= GUEST_SPACE).then_some(at)
    }

    // ------------------------------------------------------- byte copies

    /// Run `f` with `[first, first + n)` (all mapped) readable, or readable
    /// and writable, in the host, putting the protection back after.
    fn lifted<R>(&mut self, first: u64, n: u64, write: bool, f: impl FnOnce(&mut Self) -> R) -> R {
        let ok = (first..first + n).all(|pn| match self.page_perm(pn) {
            Some(p) if write => p.contains(Perm::RW) && !self.protected(pn),
            Some(p) => p.contains(Perm::R),
            None => false,
        });
        if ok {
            return f(self);
        }
        let prot = if write {
            libc::PROT_READ | libc::PROT_WRITE
        } else {
            libc::PROT_READ
        };
        // SAFETY: mapped pages inside our reservation (the callers checked).
        unsafe {
            libc::mprotect(
                self.host(first << PAGE_SHIFT).cast(),
                (n << PAGE_SHIFT) as usize,
                prot,
            )
        };
        let r = f(self);
        self.restore_range(first, n);
        r
    }

    /// Check that every byte of `[addr, addr + len)` is mapped with `need`.
    fn check(
        &self,
        addr: u64,
        len: usize,
        need: Option<Perm>,
        access: Access,
    ) -> Result<(), MemFault> {
        let mut done = 0usize;
        while done < len {
            let a = addr.wrapping_add(done as u64);
            let fault = |kind| MemFault {
                addr: a,
                kind,
                access,
            };
            match self.vma(a & !OFF_MASK) {
                None => return Err(fault(FaultKind::Unmapped)),
                Some((_, e, p)) => {
                    if need.is_some_and(|n| !p.contains(n)) {
                        return Err(fault(FaultKind::Protection));
                    }
                    done = done.saturating_add((e - a) as usize);
                }
            }
        }
        Ok(())
    }

    pub(crate) fn copy_out(
        &self,
        addr: u64,
        out: &mut [u8],
        need: Option<Perm>,
    ) -> Result<(), MemFault> {
        if out.is_empty() {
            return Ok(());
        }
        self.check(addr, out.len(), need, Access::Read)?;
        let first = addr >> PAGE_SHIFT;
        let last = (addr + out.len() as u64 - 1) >> PAGE_SHIFT;
        let readable =
            (first..=last).all(|pn| self.page_perm(pn).is_some_and(|p| p.contains(Perm::R)));
        if readable {
            // SAFETY: every page is mapped and readable in the host.
            unsafe { std::ptr::copy_nonoverlapping(self.host(addr), out.as_mut_ptr(), out.len()) };
            return Ok(());
        }
        // A privileged read of pages the host keeps unreadable: page by
        // page through a copy of each (this is `&self`: no protection
        // changes; such pages are rare — write- or execute-only).
        for (i, b) in out.iter_mut().enumerate() {
            let a = addr + i as u64;
            *b = self.read_unreadable(a);
        }
        Ok(())
    }

    /// One byte of a mapped page whatever its host protection, without
    /// changing it: through `/proc/self/mem`, which the kernel lets a
    /// process read regardless of its own page protections.
    fn read_unreadable(&self, a: u64) -> u8 {
        use std::os::unix::fs::FileExt;
        let mut b = [0u8; 1];
        if let Ok(f) = std::fs::File::open("/proc/self/mem") {
            let _ = f.read_at(&mut b, self.host(a) as u64);
        }
        b[0]
    }

    pub(crate) fn copy_in(
        &mut self,
        addr: u64,
        bytes: &[u8],
        need: Option<Perm>,
        code: &mut CodeLog,
    ) -> Result<(), MemFault> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.check(addr, bytes.len(), need, Access::Write)?;
        let first = addr >> PAGE_SHIFT;
        let last = (addr + bytes.len() as u64 - 1) >> PAGE_SHIFT;
        for pn in first..=last {
            if self.code.remove(&pn) {
                code.stale(pn);
                self.reprotect(pn);
            }
        }
        self.lifted(first, last - first + 1, true, |h| {
            // SAFETY: every page is mapped and writable in the host now.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), h.host(addr), bytes.len()) }
        });
        Ok(())
    }

    // ------------------------------------------------------------ data access

    #[inline(always)]
    pub(crate) fn load<const N: usize>(&mut self, addr: u64) -> Result<u64, MemFault> {
        let pn = addr >> PAGE_SHIFT;
        if (addr & OFF_MASK) as usize + N > PAGE_SIZE as usize
            || self.rtlb[(pn as usize) & (TLB_SIZE - 1)] != pn
        {
            return self.load_slow::<N>(addr);
        }
        // SAFETY: the read cache holds only guest-readable pages, which the
        // host maps readable, and the access stays inside the page.
        Ok(unsafe { read::<N>(self.host(addr)) })
    }

    #[cold]
    fn load_slow<const N: usize>(&mut self, addr: u64) -> Result<u64, MemFault> {
        let mut v = 0u64;
        for pn in [
            addr >> PAGE_SHIFT,
            addr.wrapping_add(N as u64 - 1) >> PAGE_SHIFT,
        ] {
            let a = if pn == addr >> PAGE_SHIFT {
                addr
            } else {
                pn << PAGE_SHIFT
            };
            match self.page_perm(pn) {
                None => {
                    return Err(MemFault {
                        addr: a,
                        kind: FaultKind::Unmapped,
                        access: Access::Read,
                    })
                }
                Some(p) if !p.contains(Perm::R) => {
                    return Err(MemFault {
                        addr: a,
                        kind: FaultKind::Protection,
                        access: Access::Read,
                    })
                }
                _ => self.rtlb[(pn as usize) & (TLB_SIZE - 1)] = pn,
            }
        }
        for i in 0..N {
            // SAFETY: both pages are guest- and host-readable.
            let b = unsafe { *self.host(addr.wrapping_add(i as u64)) };
            v |= (b as u64) << (8 * i);
        }
        Ok(v)
    }

    #[inline(always)]
    pub(crate) fn store<const N: usize>(
        &mut self,
        addr: u64,
        value: u64,
        code: &mut CodeLog,
    ) -> Result<Option<Refused>, MemFault> {
        let pn = addr >> PAGE_SHIFT;
        if (addr & OFF_MASK) as usize + N > PAGE_SIZE as usize
            || self.wtlb[(pn as usize) & (TLB_SIZE - 1)] != pn
        {
            return self.store_slow::<N>(addr, value, code);
        }
        // SAFETY: the write cache holds only pages the host maps writable,
        // and the access stays inside the page.
        unsafe { write::<N>(self.host(addr), value) };
        Ok(None)
    }

    #[cold]
    fn store_slow<const N: usize>(
        &mut self,
        addr: u64,
        value: u64,
        code: &mut CodeLog,
    ) -> Result<Option<Refused>, MemFault> {
        self.probe_write(addr, N as u64)?;
        let (first, last) = (
            addr >> PAGE_SHIFT,
            addr.wrapping_add(N as u64 - 1) >> PAGE_SHIFT,
        );
        let mut why = None;
        for pn in [first, last] {
            if self.code.remove(&pn) {
                code.stale(pn);
                self.reprotect(pn);
                why = Some(Refused::Code);
            }
        }
        if first == last && self.page_perm(first).is_some_and(|p| p.contains(Perm::RW)) {
            if !self.protected(first) {
                self.wtlb[(first as usize) & (TLB_SIZE - 1)] = first;
                // SAFETY: guest-writable, unprotected: writable in the host.
                unsafe { write::<N>(self.host(addr), value) };
                return Ok(why);
            }
            why = why.or(Some(Refused::Lock));
        }
        let bytes = value.to_le_bytes();
        let n = last.wrapping_sub(first) + 1;
        self.lifted(first, n, true, |h| {
            for (i, &b) in bytes.iter().enumerate().take(N) {
                // SAFETY: the pages are writable in the host now.
                unsafe { *h.host(addr.wrapping_add(i as u64)) = b };
            }
        });
        Ok(why)
    }

    pub(crate) fn probe_write(&mut self, addr: u64, n: u64) -> Result<(), MemFault> {
        for a in [addr, addr.wrapping_add(n.max(1) - 1)] {
            let fault = |kind| MemFault {
                addr: a,
                kind,
                access: Access::Write,
            };
            match self.page_perm(a >> PAGE_SHIFT) {
                None => return Err(fault(FaultKind::Unmapped)),
                Some(p) if !p.contains(Perm::W) => return Err(fault(FaultKind::Protection)),
                _ => {}
            }
        }
        Ok(())
    }

    // ------------------------------------------------------------ locks

    /// Write-protect exactly the pages of the armed reservations (those
    /// of the agents `armed`) of agents other than `running` (see the
    /// module invariants).
    pub(crate) fn sync_locks(
        &mut self,
        reservations: &[Reservation],
        armed: &[usize],
        running: usize,
    ) {
        let mut want: Vec<u64> = armed
            .iter()
            .map(|&i| (i, &reservations[i]))
            .filter(|&(i, r)| i != running && r.lock_flag)
            .map(|(_, r)| r.page())
            .filter(|&pn| pn < GUEST_PAGES)
            .collect();
        want.sort_unstable();
        want.dedup();
        if want == self.locked {
            return;
        }
        let old = std::mem::replace(&mut self.locked, want);
        let mut changed: Vec<u64> = old
            .iter()
            .filter(|p| self.locked.binary_search(p).is_err())
            .copied()
            .collect();
        changed.extend(self.locked.iter().filter(|p| old.binary_search(p).is_err()));
        for pn in changed {
            self.reprotect(pn);
        }
    }

    // ------------------------------------------------------ instruction fetch

    pub(crate) fn unmark_all_code(&mut self) {
        let pages: Vec<u64> = self.code.drain().collect();
        for pn in pages {
            self.reprotect(pn);
        }
    }

    pub(crate) fn mark_code(&mut self, pn: u64) -> Result<&[u8], MemFault> {
        let fault = |kind| MemFault {
            addr: pn << PAGE_SHIFT,
            kind,
            access: Access::Fetch,
        };
        let perm = self.page_perm(pn).ok_or(fault(FaultKind::Unmapped))?;
        if !perm.contains(Perm::X) {
            return Err(fault(FaultKind::Protection));
        }
        if self.code.insert(pn) && perm.contains(Perm::W) {
            self.reprotect(pn);
        }
        let a = pn << PAGE_SHIFT;
        if perm.contains(Perm::R) {
            // SAFETY: a whole guest-readable page, readable in the host; the
            // borrow of `self` keeps it mapped while the slice lives.
            return Ok(unsafe { std::slice::from_raw_parts(self.host(a), PAGE_SIZE as usize) });
        }
        let mut buf = [0u8; PAGE_SIZE as usize];
        self.copy_out(a, &mut buf, None)?;
        *self.scratch = buf;
        Ok(&self.scratch[..])
    }

    // ------------------------------------------------------------ copies

    /// A portable copy of every mapped page (bytes, permissions, code
    /// marks). Reads every mapped page.
    pub(crate) fn to_sparse(&self) -> Sparse {
        let mut pages = Vec::new();
        let mut buf = vec![0u8; PAGE_SIZE as usize];
        for (&s, &(e, p)) in &self.vmas {
            let mut a = s;
            while a < e {
                let _ = self.copy_out(a, &mut buf, None);
                let bytes = buf.iter().any(|&b| b != 0).then(|| buf.clone());
                pages.push((a, p, self.code.contains(&(a >> PAGE_SHIFT)), bytes));
                a += PAGE_SIZE;
            }
        }
        Sparse::from_pages(pages.iter().map(|(a, p, c, b)| (*a, *p, *c, b.as_deref())))
    }
}

/// Read `N` bytes little-endian at `p`.
///
/// # Safety
/// `p..p+N` must be readable.
#[inline(always)]
unsafe fn read<const N: usize>(p: *const u8) -> u64 {
    match N {
        1 => *p as u64,
        2 => u16::from_le(std::ptr::read_unaligned(p.cast::<u16>())) as u64,
        4 => u32::from_le(std::ptr::read_unaligned(p.cast::<u32>())) as u64,
        _ => u64::from_le(std::ptr::read_unaligned(p.cast::<u64>())),
    }
}

/// Write the low `N` bytes of `v` little-endian at `p`.
///
/// # Safety
/// `p..p+N` must be writable.
#[inline(always)]
unsafe fn write<const N: usize>(p: *mut u8, v: u64) {
    match N {
        1 => *p = v as u8,
        2 => std::ptr::write_unaligned(p.cast::<u16>(), (v as u16).to_le()),
        4 => std::ptr::write_unaligned(p.cast::<u32>(), (v as u32).to_le()),
        _ => std::ptr::write_unaligned(p.cast::<u64>(), v.to_le()),
    }
}
