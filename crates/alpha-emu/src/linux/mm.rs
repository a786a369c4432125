//! The process address space: `brk`, `mmap`, `munmap`, `mprotect`,
//! `mremap` on top of [`Memory`]'s page mappings (8 KiB pages, as Alpha
//! Linux). Addresses for non-fixed mappings are chosen bottom-up from
//! `TASK_UNMAPPED_BASE` (arch/alpha/include/asm/processor.h: TASK_SIZE / 2),
//! deterministically, so every run of a program sees the same addresses.
//! The address space also remembers which ranges map which file (the
//! program's and its interpreter's segments, file `mmap`s), followed
//! through `munmap`, `mremap` and fixed mappings over them, for
//! `/proc/self/maps`.

use super::errno::*;
use crate::memory::{Memory, MemoryKind, Perm, PAGE_SIZE};
use std::collections::BTreeMap;
use std::sync::Arc;

/// `TASK_SIZE` of 64-bit Alpha Linux processes (43-bit user space).
pub const TASK_SIZE: u64 = 0x400_0000_0000;
/// Where `mmap` without a fixed address starts looking.
pub const TASK_UNMAPPED_BASE: u64 = TASK_SIZE / 2;

pub const MAP_SHARED: u64 = 0x01;
pub const MAP_PRIVATE: u64 = 0x02;
pub const MAP_FIXED: u64 = 0x100;
pub const MAP_ANONYMOUS: u64 = 0x10;
pub const MAP_FIXED_NOREPLACE: u64 = 0x200000;
/// Largest single mapping subword grants over portable memory (its
/// bookkeeping is per page): 4 GiB. Larger requests fail with ENOMEM, as
/// they would under a tight RLIMIT_AS.
pub const MAX_MAPPING: u64 = 1 << 32;

/// The largest single mapping `mem` grants: [`MAX_MAPPING`] for portable
/// memory; host-mapped memory keeps ranges, not pages, and leaves the
/// decision to the host (its overcommit policy answers ENOMEM as Linux
/// would for the guest).
pub fn max_mapping(mem: &Memory) -> u64 {
    match mem.kind() {
        MemoryKind::Portable => MAX_MAPPING,
        MemoryKind::HostMapped => TASK_SIZE,
    }
}
pub const MREMAP_MAYMOVE: u64 = 1;
pub const MREMAP_FIXED: u64 = 2;

pub fn page_up(x: u64) -> Option<u64> {
    x.checked_add(PAGE_SIZE - 1).map(|v| v & !(PAGE_SIZE - 1))
}

/// The file a range of pages maps, as `/proc/PID/maps` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileMap {
    /// One past the range's last byte (page aligned).
    pub end: u64,
    /// File offset of the range's first byte.
    pub offset: u64,
    /// The file's device (`st_dev`, the host's encoding) and inode.
    pub dev: u64,
    pub ino: u64,
    pub path: Arc<str>,
}

impl FileMap {
    /// A range ending at `end` of the file at `path` with metadata `meta`,
    /// from file offset `offset`.
    pub fn of(meta: Option<&std::fs::Metadata>, path: &str, end: u64, offset: u64) -> FileMap {
        use std::os::unix::fs::MetadataExt;
        let (dev, ino) = meta.map_or((0, 0), |m| (m.dev(), m.ino()));
        FileMap {
            end,
            offset,
            dev,
            ino,
            path: path.into(),
        }
    }
}

/// The program break and mmap state.
#[derive(Clone, Debug)]
pub struct AddressSpace {
    pub brk_start: u64,
    pub brk: u64,
    pub mmap_base: u64,
    /// File-backed ranges by start address; they never overlap.
    files: BTreeMap<u64, FileMap>,
}

impl AddressSpace {
    pub fn new(brk_start: u64) -> AddressSpace {
        AddressSpace {
            brk_start,
            brk: brk_start,
            mmap_base: TASK_UNMAPPED_BASE,
            files: BTreeMap::new(),
        }
    }

    /// Record that `[start, map.end)` maps a file (replacing whatever the
    /// range mapped before).
    pub fn note_file(&mut self, start: u64, map: FileMap) {
        self.forget(start, map.end);
        if map.end > start {
            self.files.insert(start, map);
        }
    }

    /// `[start, end)` no longer maps a file: ranges overlapping it are cut
    /// (a range split in two keeps its file offsets).
    pub fn forget(&mut self, start: u64, end: u64) {
        let hit: Vec<u64> = self
            .files
            .range(..end)
            .rev()
            .take_while(|(_, m)| m.end > start)
            .map(|(&s, _)| s)
            .collect();
        for s in hit {
            let m = self.files.remove(&s).expect("listed");
            if s < start {
                self.files.insert(
                    s,
                    FileMap {
                        end: start,
                        ..m.clone()
                    },
                );
            }
            if m.end > end {
                let offset = m.offset + (end - s);
                self.files.insert(end, FileMap { offset, ..m });
            }
        }
    }

    /// The file mapped at `addr` and the file offset of that byte.
    pub fn file_at(&self, addr: u64) -> Option<(&FileMap, u64)> {
        let (&s, m) = self.files.range(..=addr).next_back()?;
        (addr < m.end).then(|| (m, m.offset + (addr - s)))
    }

    /// Move the file ranges in `[old, old + len)` to start at `new`.
    fn relocate(&mut self, old: u64, len: u64, new: u64) {
        let end = old + len;
        // Split at both ends first, so every range inside starts inside.
        self.forget(end, end);
        self.forget(old, old);
        let moved: Vec<(u64, FileMap)> = self
            .files
            .range(old..end)
            .map(|(&s, m)| (s, m.clone()))
            .collect();
        self.forget(old, end);
        for (s, m) in moved {
            let to = new + (m.end - old);
            self.note_file(new + (s - old), FileMap { end: to, ..m });
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
                || new_end - old_end > max_mapping(mem)
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
        if len > max_mapping(mem) {
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
        self.forget(at, at + len);
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
        self.forget(addr, addr + len);
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
        if new_len > max_mapping(mem) {
            return Err(ENOMEM);
        }
        if !mem.range_ok(old, old_len.max(PAGE_SIZE), Perm::NONE) {
            return Err(EFAULT);
        }
        if new_len <= old_len {
            if new_len < old_len {
                let _ = mem.unmap(old + new_len, old_len - new_len);
                self.forget(old + new_len, old + old_len);
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
            self.grow_file(old + old_len, grow);
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
        self.relocate(old, old_len, at);
        self.grow_file(at + old_len, new_len - old_len);
        Ok(at)
    }

    /// A mapping that ended at `end` grew by `by` bytes: a file range
    /// ending there goes on into the file, as the kernel's vma does.
    fn grow_file(&mut self, end: u64, by: u64) {
        if let Some((_, m)) = self.files.range_mut(..end).next_back() {
            if m.end == end {
                m.end = end + by;
            }
        }
    }
}

/// Is `[addr, addr+len)` entirely unmapped?
pub fn free(mem: &Memory, addr: u64, len: u64) -> bool {
    mem.range_free(addr, len)
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

#[cfg(test)]
mod tests {
    use super::*;

    const P: u64 = PAGE_SIZE;

    fn file(end: u64, offset: u64) -> FileMap {
        FileMap {
            end,
            offset,
            dev: 1,
            ino: 7,
            path: "/lib/x.so".into(),
        }
    }

    fn ranges(a: &AddressSpace) -> Vec<(u64, u64, u64)> {
        a.files.iter().map(|(&s, m)| (s, m.end, m.offset)).collect()
    }

    #[test]
    fn forgetting_the_middle_of_a_file_range_keeps_both_ends_offsets() {
        let mut a = AddressSpace::new(0x1000_0000);
        a.note_file(10 * P, file(14 * P, 0x4000));
        a.forget(11 * P, 12 * P);
        assert_eq!(
            ranges(&a),
            vec![(10 * P, 11 * P, 0x4000), (12 * P, 14 * P, 0x4000 + 2 * P)]
        );
        assert_eq!(
            a.file_at(13 * P + 5).map(|(_, o)| o),
            Some(0x4000 + 3 * P + 5)
        );
        assert!(a.file_at(11 * P).is_none());
    }

    #[test]
    fn a_new_file_range_replaces_the_overlapped_parts_of_older_ones() {
        let mut a = AddressSpace::new(0x1000_0000);
        a.note_file(0, file(4 * P, 0));
        a.note_file(3 * P, file(6 * P, 0x10_0000));
        assert_eq!(ranges(&a), vec![(0, 3 * P, 0), (3 * P, 6 * P, 0x10_0000)]);
    }

    #[test]
    fn mremap_moves_a_file_range_with_its_offsets_and_grows_it_into_the_file() {
        let mut mem = Memory::new();
        let mut a = AddressSpace::new(0x1000_0000);
        let at = a
            .mmap(&mut mem, 0, 2 * P, 1, MAP_PRIVATE, Some(&[1; 16]))
            .unwrap();
        a.note_file(at, file(at + 2 * P, 3 * P));
        // Block growth in place so the mapping has to move.
        a.mmap(&mut mem, at + 2 * P, P, 1, MAP_PRIVATE | MAP_FIXED, None)
            .unwrap();
        let to = a
            .mremap(&mut mem, at, 2 * P, 4 * P, MREMAP_MAYMOVE)
            .unwrap();
        assert_ne!(to, at);
        assert!(a.file_at(at).is_none());
        assert_eq!(ranges(&a), vec![(to, to + 4 * P, 3 * P)]);
        let shrunk = a.mremap(&mut mem, to, 4 * P, P, 0).unwrap();
        assert_eq!(shrunk, to);
        assert_eq!(ranges(&a), vec![(to, to + P, 3 * P)]);
    }

    #[test]
    fn munmap_and_anonymous_fixed_mappings_forget_the_file() {
        let mut mem = Memory::new();
        let mut a = AddressSpace::new(0x1000_0000);
        let at = a
            .mmap(&mut mem, 0, 3 * P, 1, MAP_PRIVATE, Some(&[1; 16]))
            .unwrap();
        a.note_file(at, file(at + 3 * P, 0));
        a.mmap(
            &mut mem,
            at + 2 * P,
            P,
            3,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
            None,
        )
        .unwrap();
        a.munmap(&mut mem, at, P).unwrap();
        assert_eq!(ranges(&a), vec![(at + P, at + 2 * P, P)]);
    }
}
