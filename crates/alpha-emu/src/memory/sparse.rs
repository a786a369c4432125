//! Portable memory: sparse 8 KiB pages with r/w/x permissions (see the
//! module documentation of [`crate::memory`]).
//!
//! Addresses are physical and virtual at once (a user-mode machine has no
//! page tables of its own). Pages live in a slot vector indexed through a
//! hash map keyed by page number; two small direct-mapped translation caches
//! (one for reads, one for writes) make the hot case a tag compare and an
//! array index.
//!
//! Page bytes are reference-counted and copied on write: a page that was
//! never written shares one zero page, and [`Sparse::snapshot`] gives a copy
//! that shares every page with the original until either side writes it
//! (the schedule explorer starts each schedule from such a copy). A store
//! makes its page's bytes unique first ([`Arc::make_mut`]); only unique
//! pages enter the write cache and the [`JitTlb`]'s write half.
//!
//! **Invariants.**
//! - The write cache never holds a page marked as holding predecoded code
//!   (see [`crate::icache`]), so every store into such a page takes the slow
//!   path, which unmarks it and logs it stale.
//! - The write cache and the [`JitTlb`]'s write half hold only pages whose
//!   bytes this memory owns alone; [`Sparse::snapshot`] empties both before
//!   it shares anything, and a page copied on write leaves the `JitTlb`'s
//!   read half (which may point at the shared copy).
//! - Every access goes through this code, so the access trace sees them
//!   all.

use super::{
    range_pages, Access, CodeLog, FaultKind, MapError, MemFault, Perm, OFF_MASK, PAGE_SHIFT,
    PAGE_SIZE,
};
use rustc_hash::FxHashMap;
use std::sync::Arc;

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

/// Sparse guest pages. `Clone` gives an independent copy of every written
/// page; [`Sparse::snapshot`] an equally independent one that shares pages
/// until they are written.
pub(crate) struct Sparse {
    map: FxHashMap<u64, usize>,
    pages: Vec<Page>,
    /// The bytes of every page never written (all zero, never written in
    /// place: it is always shared).
    zero: Arc<PageBuf>,
    free: Vec<usize>,
    rtlb: [TlbEntry; TLB_SIZE],
    wtlb: [TlbEntry; TLB_SIZE],
    jtlb: Box<JitTlb>,
}

/// A copy that owns its written pages (the zero page stays shared). Its
/// write caches start empty: theirs point at the original's bytes.
impl Clone for Sparse {
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

impl Sparse {
    pub(crate) fn new() -> Self {
        Sparse {
            map: FxHashMap::default(),
            pages: Vec::new(),
            zero: zero_page(),
            free: Vec::new(),
            rtlb: [TLB_EMPTY; TLB_SIZE],
            wtlb: [TLB_EMPTY; TLB_SIZE],
            jtlb: JitTlb::empty(),
        }
    }

    /// A copy sharing every page with this memory until one of the two
    /// writes it. Empties this memory's write caches first, since their
    /// pages stop being its own.
    pub(crate) fn snapshot(&mut self) -> Sparse {
        self.wtlb = [TLB_EMPTY; TLB_SIZE];
        self.jtlb.flush_writes();
        self.share()
    }

    pub(crate) fn shares_page_with(&self, other: &Sparse, addr: u64) -> Option<bool> {
        let pn = addr >> PAGE_SHIFT;
        let a = &self.pages[*self.map.get(&pn)?].data;
        let b = &other.pages[*other.map.get(&pn)?].data;
        Some(Arc::ptr_eq(a, b))
    }

    /// Everything but the page bytes copied, those shared; write caches empty.
    fn share(&self) -> Sparse {
        Sparse {
            map: self.map.clone(),
            pages: self.pages.clone(),
            zero: self.zero.clone(),
            free: self.free.clone(),
            rtlb: self.rtlb,
            wtlb: [TLB_EMPTY; TLB_SIZE],
            jtlb: JitTlb::empty(),
        }
    }

    /// A portable copy of pages read from elsewhere (a host-mapped
    /// memory): `pages` gives each mapped page's address, permissions,
    /// code mark and bytes (`None`: all zero).
    pub(crate) fn from_pages<'a>(
        pages: impl Iterator<Item = (u64, Perm, bool, Option<&'a [u8]>)>,
    ) -> Sparse {
        let mut s = Sparse::new();
        for (addr, perm, code, bytes) in pages {
            let data = match bytes {
                Some(b) => {
                    let mut d = zero_page();
                    Arc::get_mut(&mut d).expect("fresh").copy_from_slice(b);
                    d
                }
                None => s.zero.clone(),
            };
            s.pages.push(Page { data, perm, code });
            s.map.insert(addr >> PAGE_SHIFT, s.pages.len() - 1);
        }
        s
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

    pub(crate) fn mapped_bytes(&self) -> u64 {
        self.map.len() as u64 * PAGE_SIZE
    }

    fn flush_tlbs(&mut self) {
        self.rtlb = [TLB_EMPTY; TLB_SIZE];
        self.wtlb = [TLB_EMPTY; TLB_SIZE];
        self.jtlb.rtag = [u64::MAX; JIT_TLB_SIZE];
        self.jtlb.flush_writes();
    }

    /// Compiled stores must take the checking path (a reservation was armed).
    pub(crate) fn flush_jit_writes(&mut self) {
        self.jtlb.flush_writes();
    }

    pub(crate) fn jit_tlb(&mut self) -> *mut JitTlb {
        &mut *self.jtlb
    }

    pub(crate) fn jit_fill_read(&mut self, addr: u64) {
        if let Ok(slot) = self.rslot(addr) {
            let pn = addr >> PAGE_SHIFT;
            let i = (pn as usize) & (JIT_TLB_SIZE - 1);
            self.jtlb.rtag[i] = pn;
            self.jtlb.rptr[i] = self.pages[slot].data.as_ptr() as usize;
        }
    }

    pub(crate) fn jit_fill_write(&mut self, addr: u64, armed: bool) {
        let pn = addr >> PAGE_SHIFT;
        // The interpreter's write cache, which the store just went through,
        // holds only writable pages without code whose bytes this memory
        // owns alone: copy its entry.
        let e = self.wtlb[(pn as usize) & (TLB_SIZE - 1)];
        if armed || e.pn != pn {
            return;
        }
        let i = (pn as usize) & (JIT_TLB_SIZE - 1);
        self.jtlb.wtag[i] = pn;
        self.jtlb.wptr[i] = e.ptr;
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
        let (first, n) = range_pages(addr, len)?;
        let new_pages = (first..first + n)
            .filter(|pn| !self.map.contains_key(pn))
            .count() as u64;
        if self.map.len() as u64 + new_pages > limit_pages {
            return Err(MapError::TooMuchMemory {
                limit: limit_pages.saturating_mul(PAGE_SIZE),
            });
        }
        for pn in first..first + n {
            if let Some(&slot) = self.map.get(&pn) {
                let p = &mut self.pages[slot];
                p.data = self.zero.clone();
                p.perm = perm;
                if std::mem::take(&mut p.code) {
                    code.dirty.push(pn);
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
        code.bump();
        Ok(())
    }

    pub(crate) fn unmap(
        &mut self,
        addr: u64,
        len: u64,
        code: &mut CodeLog,
    ) -> Result<(), MapError> {
        let (first, n) = range_pages(addr, len)?;
        if n > self.map.len() as u64 {
            // A huge range over few pages: walk the pages, not the range.
            let hit: Vec<u64> = self
                .map
                .keys()
                .copied()
                .filter(|pn| (first..first + n).contains(pn))
                .collect();
            for pn in hit {
                self.unmap_page(pn, code);
            }
        } else {
            for pn in first..first + n {
                self.unmap_page(pn, code);
            }
        }
        self.flush_tlbs();
        code.bump();
        Ok(())
    }

    fn unmap_page(&mut self, pn: u64, code: &mut CodeLog) {
        if let Some(slot) = self.map.remove(&pn) {
            let p = &mut self.pages[slot];
            p.data = self.zero.clone();
            if std::mem::take(&mut p.code) {
                code.dirty.push(pn);
            }
            p.perm = Perm::NONE;
            self.free.push(slot);
        }
    }

    pub(crate) fn alias(
        &mut self,
        alias: u64,
        addr: u64,
        len: u64,
        code: &mut CodeLog,
    ) -> Result<(), MapError> {
        let (first, n) = range_pages(addr, len)?;
        let (afirst, _) = range_pages(alias, len)?;
        for i in 0..n {
            let slot = *self.map.get(&(first + i)).ok_or(MapError::NotMapped {
                addr: (first + i) << PAGE_SHIFT,
            })?;
            self.map.insert(afirst + i, slot);
        }
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
                code.dirty.push(pn);
            }
        }
        self.flush_tlbs();
        code.bump();
        Ok(())
    }

    pub(crate) fn mapped_ranges(&self) -> Vec<(u64, u64, Perm)> {
        let mut v: Vec<(u64, Perm)> = self
            .map
            .iter()
            .map(|(&pn, &s)| (pn << PAGE_SHIFT, self.pages[s].perm))
            .collect();
        v.sort_unstable_by_key(|e| e.0);
        let mut out: Vec<(u64, u64, Perm)> = Vec::new();
        for (a, p) in v {
            match out.last_mut() {
                Some(last) if last.1 == a && last.2 == p => last.1 = a + PAGE_SIZE,
                _ => out.push((a, a.wrapping_add(PAGE_SIZE), p)),
            }
        }
        out
    }

    pub(crate) fn perm(&self, addr: u64) -> Option<Perm> {
        self.map
            .get(&(addr >> PAGE_SHIFT))
            .map(|&s| self.pages[s].perm)
    }

    pub(crate) fn range_ok(&self, addr: u64, last: u64, need: Perm) -> bool {
        (addr >> PAGE_SHIFT..=last >> PAGE_SHIFT)
            .all(|pn| matches!(self.map.get(&pn), Some(&s) if self.pages[s].perm.contains(need)))
    }

    pub(crate) fn range_free(&self, addr: u64, last: u64) -> bool {
        let (first, end) = (addr >> PAGE_SHIFT, last >> PAGE_SHIFT);
        if end - first >= self.map.len() as u64 {
            return !self.map.keys().any(|pn| (first..=end).contains(pn));
        }
        (first..=end).all(|pn| !self.map.contains_key(&pn))
    }

    pub(crate) fn find_free(&self, hint: u64, len: u64) -> Option<u64> {
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

    // ------------------------------------------------------- byte copies

    pub(crate) fn copy_out(
        &self,
        addr: u64,
        out: &mut [u8],
        need: Option<Perm>,
    ) -> Result<(), MemFault> {
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

    pub(crate) fn copy_in(
        &mut self,
        addr: u64,
        bytes: &[u8],
        need: Option<Perm>,
        code: &mut CodeLog,
    ) -> Result<(), MemFault> {
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
                    code.stale(a >> PAGE_SHIFT);
                }
            }
            done += n;
        }
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
    fn wptr(&mut self, addr: u64, code: &mut CodeLog) -> Result<usize, MemFault> {
        let pn = addr >> PAGE_SHIFT;
        let e = self.wtlb[(pn as usize) & (TLB_SIZE - 1)];
        if e.pn == pn {
            return Ok(e.ptr);
        }
        self.wptr_slow(addr, code)
    }

    #[cold]
    fn wptr_slow(&mut self, addr: u64, code: &mut CodeLog) -> Result<usize, MemFault> {
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
        if self.pages[slot].code {
            // A store into predecoded code: the instruction cache decodes
            // the quadword it changes again (and drops what was compiled
            // from the page), keeping the rest of the page. The page stays
            // marked and out of the write cache, so every store into it
            // comes here.
            code.stored(addr);
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

    #[inline(always)]
    pub(crate) fn load<const N: usize>(&mut self, addr: u64) -> Result<u64, MemFault> {
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

    #[inline(always)]
    pub(crate) fn store<const N: usize>(
        &mut self,
        addr: u64,
        value: u64,
        code: &mut CodeLog,
    ) -> Result<(), MemFault> {
        let off = (addr & OFF_MASK) as usize;
        if off + N > PAGE_SIZE as usize {
            return self.store_split(addr, N, value, code);
        }
        let ptr = self.wptr(addr, code)?;
        let bytes = value.to_le_bytes();
        Self::write_at(ptr, off, &bytes[..N]);
        Ok(())
    }

    #[cold]
    fn store_split(
        &mut self,
        addr: u64,
        n: usize,
        value: u64,
        code: &mut CodeLog,
    ) -> Result<(), MemFault> {
        // Preflight both pages before writing anything.
        self.wptr(addr, code)?;
        self.wptr(addr.wrapping_add(n as u64 - 1), code)?;
        let bytes = value.to_le_bytes();
        for (i, &b) in bytes.iter().enumerate().take(n) {
            let a = addr.wrapping_add(i as u64);
            let ptr = self.wptr(a, code)?;
            Self::write_at(ptr, (a & OFF_MASK) as usize, &[b]);
        }
        Ok(())
    }

    pub(crate) fn probe_write(&mut self, addr: u64, n: u64) -> Result<(), MemFault> {
        for a in [addr, addr.wrapping_add(n.max(1) - 1)] {
            let pn = a >> PAGE_SHIFT;
            let fault = |kind| MemFault {
                addr: a,
                kind,
                access: Access::Write,
            };
            let slot = *self.map.get(&pn).ok_or(fault(FaultKind::Unmapped))?;
            if !self.pages[slot].perm.contains(Perm::W) {
                return Err(fault(FaultKind::Protection));
            }
        }
        Ok(())
    }

    // ------------------------------------------------------ instruction fetch

    pub(crate) fn unmark_all_code(&mut self) {
        for p in &mut self.pages {
            p.code = false;
        }
    }

    pub(crate) fn mark_code(&mut self, pn: u64) -> Result<&[u8], MemFault> {
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
}
