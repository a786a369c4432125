//! The predecoded-instruction cache: every executable page is decoded once,
//! on first execution, into 2048 micro-ops (see [`crate::exec::fast`]) plus
//! an end-of-page sentinel, and reused until an unmap/protect or `IMB`
//! makes it stale. A store into a decoded page (portable memory) has only
//! the quadword it changed decoded again, and what was compiled from the
//! page dropped; over host-mapped memory it drops the page.
//!
//! **Invariant:** a block is used only after [`ICache::sync`] has seen the
//! current [`Memory::code_generation`]; memory queues every page whose
//! decoded copy went stale (see `Memory::take_dirty_code`).

use crate::exec::fast::{end_of_page, translate, Uop};
use crate::jit::{Compiled, Jit, JitStats, Links, RegionFn, Request};
use crate::memory::{MemFault, Memory, PAGE_SHIFT, PAGE_SIZE};
use alpha_isa::Insn;
use std::cell::Cell;
use std::collections::HashMap;

/// Instructions per 8 KiB page.
pub const INSNS_PER_PAGE: usize = (PAGE_SIZE / 4) as usize;
const FRONT: usize = 256;

/// A decoded page: one micro-op per instruction, then the sentinel.
pub type Block = [Uop; INSNS_PER_PAGE + 1];

/// Per instruction of a decoded page, the compiling tier's state of the
/// region that would start there: a heat count below the threshold,
/// [`PENDING`] (being compiled), [`NEVER`] (nothing to compile there), or
/// [`COMPILED`] plus the region's number. `Cell`s, so the run loop can
/// count while it reads the block.
pub type Heads = [Cell<u32>; INSNS_PER_PAGE];
/// Head state: the region is being compiled in the background.
pub const PENDING: u32 = 0x7fff_fffe;
/// Head state: no region starts here.
pub const NEVER: u32 = 0x7fff_ffff;
/// Largest arrival threshold.
pub const MAX_JIT_THRESHOLD: u32 = 0x7fff_0000;
/// Head states from here on name a compiled region.
pub const COMPILED: u32 = 0x8000_0000;
/// Stores that may drop a page's compiled code before the page stops being
/// compiled (code that keeps writing its own page would otherwise be
/// compiled again after every store).
const SMC_DROPS: u32 = 4;
/// Default number of arrivals at a head before its region is compiled.
pub const DEFAULT_JIT_THRESHOLD: u32 = 1000;

fn cold_heads() -> Box<Heads> {
    Box::new(std::array::from_fn(|_| Cell::new(0)))
}

/// Decoded pages keyed by page number.
pub struct ICache {
    /// Shared, never changed once decoded (a stale page gets a new block),
    /// so a clone of the cache (a machine snapshot) shares them.
    blocks: Vec<std::sync::Arc<Block>>,
    /// Per block, its head states; allocated only while the compiling
    /// tier is on (`jit_threshold != 0`), so a cache that never compiles
    /// (the explorer's) neither allocates nor copies them.
    heads: Vec<Option<Box<Heads>>>,
    /// What [`ICache::heads`] shows for a block without head states: all
    /// zero, and never written (nothing counts arrivals while the
    /// compiling tier is off).
    cold: Box<Heads>,
    /// Per block, when it was decoded (see [`Request`]).
    epochs: Vec<u64>,
    /// Per block, how often a store into it dropped its compiled code since
    /// it was decoded; past [`SMC_DROPS`] the page is left to the
    /// interpreter.
    smc_drops: Vec<u32>,
    next_epoch: u64,
    jit: Jit,
    /// Compiled regions by entry pc, for linking (see [`Links`]).
    links: Links,
    /// Arrivals before compiling (0: the compiling tier is off).
    jit_threshold: u32,
    free: Vec<usize>,
    map: HashMap<u64, usize>,
    front: [(u64, usize); FRONT],
    seen_gen: u64,
    /// Pages decoded so far (a measure of decode work).
    pub decoded_pages: u64,
    /// Run CALL_PAL `rduniq` in line (both tiers) instead of raising its
    /// event (see [`ICache::set_inline_rduniq`]).
    inline_uniq: bool,
    /// Use specialised micro-ops (false: every instruction goes through
    /// the reference `exec::execute`; for differential tests).
    fast: bool,
}

/// A copy decodes the same pages but starts with no compiled code (host
/// code is not duplicated; the copy compiles its own when it gets hot).
impl Clone for ICache {
    fn clone(&self) -> Self {
        ICache {
            blocks: self.blocks.clone(),
            heads: self
                .heads
                .iter()
                .map(|h| h.as_ref().map(|_| cold_heads()))
                .collect(),
            cold: cold_heads(),
            epochs: self.epochs.clone(),
            smc_drops: self.smc_drops.clone(),
            next_epoch: self.next_epoch,
            jit: {
                let mut j = Jit::new();
                j.set_background(self.jit.background());
                j
            },
            links: Links::default(),
            jit_threshold: self.jit_threshold,
            free: self.free.clone(),
            map: self.map.clone(),
            front: self.front,
            seen_gen: self.seen_gen,
            decoded_pages: self.decoded_pages,
            inline_uniq: self.inline_uniq,
            fast: self.fast,
        }
    }
}

impl Default for ICache {
    fn default() -> Self {
        Self::new()
    }
}

impl ICache {
    pub fn new() -> ICache {
        ICache {
            blocks: Vec::new(),
            heads: Vec::new(),
            cold: cold_heads(),
            epochs: Vec::new(),
            smc_drops: Vec::new(),
            next_epoch: 0,
            jit: Jit::new(),
            links: Links::default(),
            jit_threshold: DEFAULT_JIT_THRESHOLD,
            free: Vec::new(),
            map: HashMap::new(),
            front: [(u64::MAX, 0); FRONT],
            seen_gen: u64::MAX,
            decoded_pages: 0,
            inline_uniq: false,
            fast: true,
        }
    }

    /// Choose specialised micro-ops (the default) or the reference path only
    /// (which also turns the compiling tier off).
    pub fn set_fast_path(&mut self, fast: bool) {
        self.fast = fast;
        self.clear();
    }

    /// Compile a region after `threshold` arrivals at its entry, or never
    /// (`None`: interpret only). Default [`DEFAULT_JIT_THRESHOLD`].
    pub fn set_jit(&mut self, threshold: Option<u32>) {
        self.jit_threshold = threshold.map_or(0, |t| t.clamp(1, MAX_JIT_THRESHOLD));
        if self.jit_threshold != 0 {
            for h in self.heads.iter_mut().filter(|h| h.is_none()) {
                *h = Some(cold_heads());
            }
        }
    }

    /// Compile in a background thread (the default: the guest never waits
    /// for the compiler) or at once, in the thread that runs the guest
    /// (tests that must know when code is compiled).
    pub fn set_jit_background(&mut self, on: bool) {
        self.jit.set_background(on);
    }

    /// Run CALL_PAL `rduniq` in line, in the interpreter and in compiled
    /// code alike: `v0` gets `cpu.uniq` and the CPU's reservation is
    /// cleared (entering PALcode), and no [`crate::Event::CallPal`] is
    /// raised. For environments whose PALcode defines `rduniq` so (OSF/1
    /// and Linux); off by default, so the event stays visible.
    pub fn set_inline_rduniq(&mut self, on: bool) {
        self.inline_uniq = on;
    }

    /// Is CALL_PAL `rduniq` run in line?
    #[inline(always)]
    pub fn inline_rduniq(&self) -> bool {
        self.inline_uniq
    }

    /// Arrivals before compiling; 0 when the compiling tier is off.
    #[inline(always)]
    pub fn jit_threshold(&self) -> u32 {
        if self.fast {
            self.jit_threshold
        } else {
            0
        }
    }

    /// What the compiling tier has done so far.
    pub fn jit_stats(&self) -> JitStats {
        self.jit.stats
    }

    /// Count one run of compiled code (see [`Jit::note`]).
    #[inline(always)]
    pub fn jit_note(&mut self, insns: u64, e: &crate::jit::Entered) {
        self.jit.note(insns, e);
    }

    /// The fault sites of the compiled code (see [`crate::jit::enter`]).
    #[inline(always)]
    pub(crate) fn jit_code(&self) -> *const crate::jit::fault::CodeMap {
        self.jit.code_map()
    }

    /// The link table compiled code goes on through (see [`Links`]).
    #[inline(always)]
    pub fn links(&self) -> &Links {
        &self.links
    }

    /// Enter region `f`, compiled from the current code at `pc`, in the
    /// link table.
    #[inline(always)]
    pub fn link(&mut self, pc: u64, f: RegionFn) {
        self.links.set(pc, f);
    }

    /// Empty the link table: decoded code or compiled code was dropped.
    fn unlink_all(&mut self) {
        self.links.clear();
        self.jit.stats.link_flushes += 1;
    }

    /// The head states of decoded block `index`.
    #[inline(always)]
    pub fn heads(&self, index: usize) -> &Heads {
        self.heads[index].as_deref().unwrap_or(&self.cold)
    }

    /// The compiled region named by head state `h` (`h >= COMPILED`).
    #[inline(always)]
    pub fn region(&self, h: u32) -> RegionFn {
        self.jit.region(h - COMPILED)
    }

    /// Compile the region entered at instruction `idx` of block `index`
    /// (page base `base`); record the outcome in its head. Returns the
    /// region when it is ready now.
    pub fn compile(
        &mut self,
        index: usize,
        idx: usize,
        base: u64,
        bwx: bool,
        fix: bool,
        direct: bool,
    ) -> Option<RegionFn> {
        if self.jit.wants_reset() {
            self.jit.reset();
            self.unlink_all();
            for h in self.heads.iter().flatten().flat_map(|h| h.iter()) {
                h.set(0);
            }
        }
        let req = Request {
            block: index,
            epoch: self.epochs[index],
            idx,
        };
        let head = &self.heads[index].as_deref().unwrap_or(&self.cold)[idx];
        let cfg = crate::jit::Cfg {
            bwx,
            fix,
            uniq: self.inline_uniq,
            direct,
        };
        match self.jit.compile(req, &self.blocks[index][..], base, cfg) {
            Compiled::Ready(n) => {
                head.set(COMPILED + n);
                Some(self.jit.region(n))
            }
            Compiled::Pending => {
                head.set(PENDING);
                None
            }
            Compiled::Nothing => {
                head.set(NEVER);
                None
            }
        }
    }

    /// Are compile requests outstanding?
    #[inline(always)]
    pub fn jit_pending(&self) -> bool {
        self.jit.pending() != 0
    }

    /// In the child of a host `fork`: a fresh compiler thread; regions that
    /// were being compiled are asked for again when they get hot.
    pub fn after_fork(&mut self) {
        self.jit.after_fork();
        for h in self.heads.iter().flatten().flat_map(|h| h.iter()) {
            if h.get() == PENDING {
                h.set(0);
            }
        }
    }

    /// Install the regions the background compiler has finished.
    pub fn jit_poll(&mut self) {
        self.jit_collect(false);
    }

    /// Wait for the background compiler and install everything it was
    /// asked for.
    pub fn jit_wait(&mut self) {
        self.jit_collect(true);
    }

    fn jit_collect(&mut self, wait: bool) {
        let (heads, epochs) = (&self.heads, &self.epochs);
        if !self
            .jit
            .poll(wait, |req, n| Self::settle(heads, epochs, req, n))
        {
            // The compiler is gone: what it was asked for stays interpreted.
            for h in self.heads.iter().flatten().flat_map(|h| h.iter()) {
                if h.get() == PENDING {
                    h.set(NEVER);
                }
            }
        }
    }

    fn settle(heads: &[Option<Box<Heads>>], epochs: &[u64], req: Request, n: Option<u32>) {
        // A block decoded since the request belongs to other code.
        if epochs.get(req.block) != Some(&req.epoch) {
            return;
        }
        let Some(head) = heads[req.block].as_ref().map(|h| &h[req.idx]) else {
            return;
        };
        if head.get() == PENDING {
            head.set(n.map_or(NEVER, |n| COMPILED + n));
        }
    }

    /// Drop every block (`IMB`).
    pub fn clear(&mut self) {
        self.unlink_all();
        for (_, i) in self.map.drain() {
            self.free.push(i);
        }
        self.front = [(u64::MAX, 0); FRONT];
    }

    /// Drop the blocks that memory reports stale.
    #[inline(always)]
    pub fn sync(&mut self, mem: &mut Memory) {
        if mem.code_generation() != self.seen_gen {
            self.sync_slow(mem);
        }
    }

    #[cold]
    fn sync_slow(&mut self, mem: &mut Memory) {
        let dirty = mem.take_dirty_code();
        let stored = mem.take_stored_code();
        // Links lead to compiled code: they go whenever any may have gone
        // (a mapping change, a stale page, a patched page that had some).
        let mut unlink = stored.is_empty() || !dirty.is_empty();
        for pn in dirty {
            if let Some(i) = self.map.remove(&pn) {
                self.free.push(i);
            }
            let f = &mut self.front[(pn as usize) % FRONT];
            if f.0 == pn {
                *f = (u64::MAX, 0);
            }
        }
        for q in stored {
            unlink |= self.patch(mem, q);
        }
        if unlink {
            self.unlink_all();
        }
        self.seen_gen = mem.code_generation();
    }

    /// A store changed the quadword at `q` of a decoded page: decode its
    /// two instructions again in place, and drop what was compiled from the
    /// page (compiled regions do not record which words they read). The
    /// rest of the page stays decoded, so a store near code costs a
    /// quadword's decode, not the page's.
    /// True when it dropped compiled code.
    fn patch(&mut self, mem: &Memory, q: u64) -> bool {
        let pn = q >> PAGE_SHIFT;
        let Some(&i) = self.map.get(&pn) else {
            return false;
        };
        let mut bytes = [0u8; 8];
        if mem.peek(q, &mut bytes).is_err() {
            return false;
        }
        let first = ((q & (PAGE_SIZE - 1)) >> 2) as usize;
        let block = std::sync::Arc::make_mut(&mut self.blocks[i]);
        for (k, w) in bytes.chunks_exact(4).enumerate() {
            let insn = alpha_isa::decode(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
            block[first + k] = translate(insn, q + 4 * k as u64, self.fast);
        }
        if self.smc_drops[i] > SMC_DROPS {
            return false; // nothing compiled here any more
        }
        if let Some(h) = &self.heads[i] {
            if h.iter().any(|c| c.get() == PENDING || c.get() >= COMPILED) {
                self.smc_drops[i] += 1;
                let again = if self.smc_drops[i] > SMC_DROPS {
                    NEVER
                } else {
                    0
                };
                for c in h.iter() {
                    c.set(again);
                }
                // Requests still being compiled belong to the old code.
                self.next_epoch += 1;
                self.epochs[i] = self.next_epoch;
                return true;
            }
        }
        false
    }

    /// The index of the decoded block of page `pn`, decoding it if needed.
    /// Call [`ICache::sync`] first.
    #[inline(always)]
    pub fn block_index(&mut self, mem: &mut Memory, pn: u64) -> Result<usize, MemFault> {
        let f = self.front[(pn as usize) % FRONT];
        if f.0 == pn {
            return Ok(f.1);
        }
        self.block_index_slow(mem, pn)
    }

    #[cold]
    fn block_index_slow(&mut self, mem: &mut Memory, pn: u64) -> Result<usize, MemFault> {
        let i = match self.map.get(&pn) {
            Some(&i) => i,
            None => {
                let bytes = mem.mark_code(pn)?;
                let base = pn << PAGE_SHIFT;
                let mut block: Box<Block> = Box::new([end_of_page(); INSNS_PER_PAGE + 1]);
                for (i, (d, w)) in block.iter_mut().zip(bytes.chunks_exact(4)).enumerate() {
                    let insn = alpha_isa::decode(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
                    *d = translate(insn, base + 4 * i as u64, self.fast);
                }
                self.decoded_pages += 1;
                let block = std::sync::Arc::<Block>::from(block);
                let i = match self.free.pop() {
                    Some(i) => {
                        self.blocks[i] = block;
                        for h in self.heads[i].iter().flat_map(|h| h.iter()) {
                            h.set(0);
                        }
                        i
                    }
                    None => {
                        self.blocks.push(block);
                        self.heads.push((self.jit_threshold != 0).then(cold_heads));
                        self.epochs.push(0);
                        self.smc_drops.push(0);
                        self.blocks.len() - 1
                    }
                };
                self.next_epoch += 1;
                self.epochs[i] = self.next_epoch;
                self.smc_drops[i] = 0;
                self.map.insert(pn, i);
                // Marking may have bumped nothing, but keep our view current.
                i
            }
        };
        self.front[(pn as usize) % FRONT] = (pn, i);
        Ok(i)
    }

    /// The decoded block at `index`.
    #[inline(always)]
    pub fn block(&self, index: usize) -> &Block {
        &self.blocks[index]
    }

    /// The decoded instruction at `pc` (decoding its page if needed).
    pub fn insn_at(&mut self, mem: &mut Memory, pc: u64) -> Result<Insn, MemFault> {
        self.sync(mem);
        let i = self.block_index(mem, pc >> PAGE_SHIFT)?;
        Ok(self.blocks[i][((pc >> 2) as usize) % INSNS_PER_PAGE].insn)
    }
}
