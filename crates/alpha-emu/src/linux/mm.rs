//! The process address space: `brk`, `mmap`, `munmap`, `mprotect`,
//! `mremap` on top of [`Memory`]'s page mappings (8 KiB pages, as Alpha
//! Linux). Addresses for non-fixed mappings are chosen bottom-up from
//! `TASK_UNMAPPED_BASE` (arch/alpha/include/asm/processor.h: TASK_SIZE / 2),
//! deterministically, so every run of a program sees the same addresses.

use super::errno::*;
use crate::memory::{Memory, Perm, PAGE_SIZE};

/// `TASK_SIZE` of 64-bit Alpha Linux processes (43-bit user space).
pub const TASK_SIZE: u64 = 0x400_0000_0000;
/// Where `mmap` without a fixed address starts looking.
pub const TASK_UNMAPPED_BASE: u64 = TASK_SIZE / 2;

pub const MAP_SHARED: u64 = 0x01;
pub const MAP_PRIVATE: u64 = 0x02;
pub const MAP_FIXED: u64 = 0x100;
pub const MAP_ANONYMOUS: u64 = 0x10;
pub const MAP_FIXED_NOREPLACE: u64 = 0x200000;
/// Largest single mapping subword grants (every guest page is host
/// memory once touched, and bookkeeping is per page): 4 GiB. Larger
/// requests fail with ENOMEM, as they would under a tight RLIMIT_AS.
pub const MAX_MAPPING: u64 = 1 << 32;
pub const MREMAP_MAYMOVE: u64 = 1;
pub const MREMAP_FIXED: u64 = 2;

pub fn page_up(x: u64) -> Option<u64> {
    x.checked_add(PAGE_SIZE - 1).map(|v| v & !(PAGE_SIZE - 1))
}

/// The program break and mmap state.
#[derive(Clone, Debug)]
pub struct AddressSpace {
    pub brk_start: u64,
    pub brk: u64,
    pub mmap_base: u64,
}

impl AddressSpace {
    pub fn new(brk_start: u64) -> AddressSpace {
        AddressSpace {
            brk_start,
            brk: brk_start,
            mmap_base: TASK_UNMAPPED_BASE,
        }
    }

    /// `osf_brk` (arch/alpha/kernel/osf_sys.c): the new break, or ENOMEM
    /// when a non-zero request could not be met.
    pub fn brk(&mut self, mem: &mut Memory, want: u64) -> Result<u64, u64> {
        if want == 0 || want < self.brk_start {
            return if want == 0 { Ok(self.brk) } else { Err(ENOMEM) };
        }
        let old_end = page_up(self.brk).ok_or(ENOMEM)?;
        let new_end = page_up(want).ok_or(ENOMEM)?;
        if new_end > old_end {
            if new_end >= TASK_SIZE
                || new_end - old_end > MAX_MAPPING
                || !free(mem, old_end, new_end - old_end)
            {
                return Err(ENOMEM);
            }
            mem.map_zero(old_end, new_end - old_end, Perm::RW)
                .map_err(|_| ENOMEM)?;
        } else if new_end < old_end {
            let _ = mem.unmap(new_end, old_end - new_end);
        }
        self.brk = want;
        Ok(want)
    }

    /// Pick an address for `len` bytes (page multiple), honouring a hint.
    pub fn pick(&self, mem: &Memory, hint: u64, len: u64) -> Result<u64, u64> {
        if hint != 0 && hint & (PAGE_SIZE - 1) == 0 {
            if let Some(end) = hint.checked_add(len) {
                if end <= TASK_SIZE && free(mem, hint, len) {
                    return Ok(hint);
                }
            }
        }
        match mem.find_free(self.mmap_base, len) {
            Some(a) if a.checked_add(len).is_some_and(|e| e <= TASK_SIZE) => Ok(a),
            _ => Err(ENOMEM),
        }
    }

    /// `mmap`: map `len` bytes with `prot`; `contents` are the file bytes
    /// (already read from `offset`) for a file mapping.
    pub fn mmap(
        &mut self,
        mem: &mut Memory,
        addr: u64,
        len: u64,
        prot: u64,
        flags: u64,
        contents: Option<&[u8]>,
    ) -> Result<u64, u64> {
        if len == 0 {
            return Err(EINVAL);
        }
        let len = page_up(len).ok_or(ENOMEM)?;
        if len > MAX_MAPPING {
            return Err(ENOMEM);
        }
        let at = if flags & (MAP_FIXED | MAP_FIXED_NOREPLACE) != 0 {
            if addr & (PAGE_SIZE - 1) != 0 {
                return Err(EINVAL);
            }
            if addr.checked_add(len).is_none_or(|e| e > TASK_SIZE) {
                return Err(ENOMEM);
            }
            if flags & MAP_FIXED_NOREPLACE != 0 && !free(mem, addr, len) {
                return Err(EEXIST);
            }
            addr
        } else {
            self.pick(mem, addr & !(PAGE_SIZE - 1), len)?
        };
        let perm = prot_perm(prot);
        mem.map_zero(at, len, perm).map_err(|_| ENOMEM)?;
        if let Some(bytes) = contents {
            let n = bytes.len().min(len as usize);
            mem.poke(at, &bytes[..n]).map_err(|_| EFAULT)?;
        }
        Ok(at)
    }

    pub fn munmap(&mut self, mem: &mut Memory, addr: u64, len: u64) -> Result<u64, u64> {
        if addr & (PAGE_SIZE - 1) != 0 || len == 0 {
            return Err(EINVAL);
        }
        let len = page_up(len).ok_or(EINVAL)?;
        if addr.checked_add(len).is_none_or(|e| e > TASK_SIZE) {
            return Err(EINVAL);
        }
        mem.unmap(addr, len).map_err(|_| EINVAL)?;
        Ok(0)
    }

    pub fn mprotect(
        &mut self,
        mem: &mut Memory,
        addr: u64,
        len: u64,
        prot: u64,
    ) -> Result<u64, u64> {
        if addr & (PAGE_SIZE - 1) != 0 {
            return Err(EINVAL);
        }
        if len == 0 {
            return Ok(0);
        }
        let len = page_up(len).ok_or(ENOMEM)?;
        let perm = prot_perm(prot);
        mem.protect(addr, len, perm).map_err(|_| ENOMEM)?;
        Ok(0)
    }

    /// `mremap` (mm/mremap.c): shrink in place, grow in place when the
    /// pages after are free, otherwise move when MREMAP_MAYMOVE.
    pub fn mremap(
        &mut self,
        mem: &mut Memory,
        old: u64,
        old_len: u64,
        new_len: u64,
        flags: u64,
    ) -> Result<u64, u64> {
        if old & (PAGE_SIZE - 1) != 0 || new_len == 0 || flags & MREMAP_FIXED != 0 {
            return Err(EINVAL);
        }
        let old_len = page_up(old_len).ok_or(EINVAL)?;
        let new_len = page_up(new_len).ok_or(ENOMEM)?;
        if new_len > MAX_MAPPING {
            return Err(ENOMEM);
        }
        if !mem.range_ok(old, old_len.max(PAGE_SIZE), Perm::NONE) {
            return Err(EFAULT);
        }
        if new_len <= old_len {
            if new_len < old_len {
                let _ = mem.unmap(old + new_len, old_len - new_len);
            }
            return Ok(old);
        }
        let perm = mem.perm(old).unwrap_or(Perm::RW);
        let grow = new_len - old_len;
        if old
            .checked_add(new_len)
            .is_some_and(|e| e <= TASK_SIZE && free(mem, old + old_len, grow))
        {
            mem.map_zero(old + old_len, grow, perm)
                .map_err(|_| ENOMEM)?;
            return Ok(old);
        }
        if flags & MREMAP_MAYMOVE == 0 {
            return Err(ENOMEM);
        }
        let at = self.pick(mem, 0, new_len)?;
        mem.map_zero(at, new_len, perm).map_err(|_| ENOMEM)?;
        let mut page = vec![0u8; PAGE_SIZE as usize];
        let mut off = 0;
        while off < old_len {
            if mem.peek(old + off, &mut page).is_ok() {
                let _ = mem.poke(at + off, &page);
            }
            off += PAGE_SIZE;
        }
        let _ = mem.unmap(old, old_len);
        Ok(at)
    }
}

/// Is `[addr, addr+len)` entirely unmapped?
pub fn free(mem: &Memory, addr: u64, len: u64) -> bool {
    let mut a = addr & !(PAGE_SIZE - 1);
    let end = addr.saturating_add(len);
    while a < end {
        if mem.perm(a).is_some() {
            return false;
        }
        a += PAGE_SIZE;
    }
    true
}

/// `PROT_EXEC`: the mapping may hold code.
pub const PROT_EXEC: u64 = 4;

/// `PROT_READ`/`PROT_WRITE`/`PROT_EXEC` (1/2/4) as page permissions.
pub fn prot_perm(prot: u64) -> Perm {
    let mut p = Perm::NONE;
    if prot & 1 != 0 {
        p = p.union(Perm::R);
    }
    if prot & 2 != 0 {
        p = p.union(Perm::W);
    }
    if prot & 4 != 0 {
        p = p.union(Perm::X);
    }
    p
}
