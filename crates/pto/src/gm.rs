//! Global memory (GM) of configurable size.
//!
//! ASL: `asl/arch/memory-model/address-space.asl` (`ReadMemoryByte`,
//! `WriteMemoryByte`) with the reference profile's bounded memory
//! (`PTO_MODEL_MEMORY_BYTES`, 4096): an access at or past the size is a
//! bounded-memory failure, reported as `Fault_DataPage`.
//!
//! Small memories are one dense `Vec<u8>`; large ones (gigabytes, for
//! benchmarks and real workloads) are sparse 64 KiB pages allocated on first
//! write, found through a flat page table up to 64 GiB and a hash map
//! beyond. Unwritten bytes read as zero everywhere.

use crate::aligned::AlignedBytes;
use std::collections::HashMap;

/// Copies in pieces of at most this many bytes: long `memmove`s switch to
/// `rep movsb`, which crawls when source and destination are a small
/// distance apart modulo 4 KiB (as GM pages and tile payloads often are).
const COPY_CHUNK: usize = 1024;

/// `dst.copy_from_slice(src)` in `COPY_CHUNK` pieces.
pub fn copy_chunked(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.chunks_mut(COPY_CHUNK).zip(src.chunks(COPY_CHUNK)) {
        d.copy_from_slice(s);
    }
}

/// One row's copy. Rows of up to 512 bytes in whole 64-byte blocks move as
/// inlined 64-byte block copies (a `memcpy` call per 128-byte row cost the
/// strided U4X2 TLOAD about 170 ns of its 1.75 us); other rows go through
/// `memcpy` ([`copy_chunked`] beyond `COPY_CHUNK`).
#[inline]
fn row_copy(dst: &mut [u8], src: &[u8]) {
    if dst.len() <= 512 && dst.len().is_multiple_of(64) {
        copy_blocks::<64>(dst, src);
    } else if dst.len() <= COPY_CHUNK {
        dst.copy_from_slice(src);
    } else {
        copy_chunked(dst, src);
    }
}

/// `dst.copy_from_slice(src)` for lengths that are a multiple of `N`, as
/// fixed-size block moves the compiler inlines (no `memcpy` call per row).
#[inline(always)]
fn copy_blocks<const N: usize>(dst: &mut [u8], src: &[u8]) {
    assert_eq!(dst.len(), src.len());
    for (d, s) in dst.chunks_exact_mut(N).zip(src.chunks_exact(N)) {
        let d: &mut [u8; N] = d.try_into().expect("chunks_exact yields N bytes");
        let s: &[u8; N] = s.try_into().expect("chunks_exact yields N bytes");
        *d = *s;
    }
}

/// `k` rows of `span` bytes, `stride` apart in `src`, to `pitch` apart in
/// `dst` (`pitch >= span`).
fn copy_rows(dst: &mut [u8], pitch: usize, src: &[u8], stride: usize, span: usize, k: usize) {
    if stride >= span && stride > 0 {
        for (d, s) in dst.chunks_mut(pitch).zip(src.chunks(stride)).take(k) {
            row_copy(&mut d[..span], &s[..span]);
        }
    } else {
        for (i, d) in dst.chunks_mut(pitch).take(k).enumerate() {
            row_copy(&mut d[..span], &src[i * stride..i * stride + span]);
        }
    }
}

/// Memories up to this size are dense.
pub const DENSE_LIMIT: u64 = 64 << 20;
const PAGE_BITS: u32 = 16;
const PAGE_BYTES: u64 = 1 << PAGE_BITS;

#[derive(Clone, Debug)]
enum Store {
    Dense(AlignedBytes),
    /// Page table indexed by page number (memories up to `TABLE_LIMIT`).
    Table(Vec<Option<AlignedBytes>>),
    Sparse(HashMap<u64, AlignedBytes>),
}

/// Sparse memories up to this size use a flat page table (16 K entries per
/// GiB); larger ones a hash map of pages.
const TABLE_LIMIT: u64 = 1 << 36;

/// Global memory of `size` bytes.
#[derive(Clone, Debug)]
pub struct GlobalMemory {
    size: u64,
    store: Store,
}

impl GlobalMemory {
    pub fn new(size: u64) -> Self {
        let store = if size <= DENSE_LIMIT {
            Store::Dense(AlignedBytes::zeroed(size as usize))
        } else if size <= TABLE_LIMIT {
            Store::Table(vec![None; size.div_ceil(PAGE_BYTES) as usize])
        } else {
            Store::Sparse(HashMap::new())
        };
        GlobalMemory { size, store }
    }

    /// Size in bytes (`PTO_MODEL_MEMORY_BYTES` of this configuration).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Whether `[addr, addr+len)` lies inside the modelled memory.
    pub fn in_bounds(&self, addr: u64, len: u64) -> bool {
        addr < self.size && len <= self.size - addr
    }

    /// Byte at `addr`; caller has checked bounds.
    pub fn byte(&self, addr: u64) -> u8 {
        match &self.store {
            Store::Dense(v) => v[addr as usize],
            Store::Table(t) => t[(addr >> PAGE_BITS) as usize]
                .as_ref()
                .map_or(0, |p| p[(addr & (PAGE_BYTES - 1)) as usize]),
            Store::Sparse(m) => m
                .get(&(addr >> PAGE_BITS))
                .map_or(0, |p| p[(addr & (PAGE_BYTES - 1)) as usize]),
        }
    }

    /// Writes the byte at `addr`; caller has checked bounds.
    pub fn set_byte(&mut self, addr: u64, value: u8) {
        match &mut self.store {
            Store::Dense(v) => v[addr as usize] = value,
            Store::Table(t) => {
                let page = t[(addr >> PAGE_BITS) as usize]
                    .get_or_insert_with(|| AlignedBytes::zeroed(PAGE_BYTES as usize));
                page[(addr & (PAGE_BYTES - 1)) as usize] = value;
            }
            Store::Sparse(m) => {
                let page = m
                    .entry(addr >> PAGE_BITS)
                    .or_insert_with(|| AlignedBytes::zeroed(PAGE_BYTES as usize));
                page[(addr & (PAGE_BYTES - 1)) as usize] = value;
            }
        }
    }

    /// `[addr, addr + len)` as one slice when it lies in one backing
    /// allocation (dense memory, or one present page); bounds checked by
    /// the caller. Lets a many-row copy look the memory up once.
    pub fn contiguous(&self, addr: u64, len: u64) -> Option<&[u8]> {
        if len == 0 {
            return None;
        }
        match &self.store {
            Store::Dense(v) => v.get(addr as usize..(addr + len) as usize),
            Store::Table(t) => {
                let last = addr + len - 1;
                if addr >> PAGE_BITS != last >> PAGE_BITS {
                    return None;
                }
                let off = (addr & (PAGE_BYTES - 1)) as usize;
                t[(addr >> PAGE_BITS) as usize]
                    .as_ref()
                    .map(|p| &p[off..off + len as usize])
            }
            Store::Sparse(_) => None,
        }
    }

    /// Mutable [`GlobalMemory::contiguous`] (`None` also when the page was
    /// never written: the caller then writes through `write_slice`).
    pub fn contiguous_mut(&mut self, addr: u64, len: u64) -> Option<&mut [u8]> {
        if len == 0 {
            return None;
        }
        match &mut self.store {
            Store::Dense(v) => v.get_mut(addr as usize..(addr + len) as usize),
            Store::Table(t) => {
                let last = addr + len - 1;
                if addr >> PAGE_BITS != last >> PAGE_BITS {
                    return None;
                }
                let off = (addr & (PAGE_BYTES - 1)) as usize;
                t[(addr >> PAGE_BITS) as usize]
                    .as_mut()
                    .map(|p| &mut p[off..off + len as usize])
            }
            Store::Sparse(_) => None,
        }
    }

    /// Copies `dst.len()` bytes from `addr` (bounds checked by the caller).
    pub fn read_slice(&self, addr: u64, dst: &mut [u8]) {
        match &self.store {
            Store::Dense(v) => dst.copy_from_slice(&v[addr as usize..addr as usize + dst.len()]),
            Store::Table(t) => {
                let mut done = 0usize;
                while done < dst.len() {
                    let a = addr + done as u64;
                    let off = (a & (PAGE_BYTES - 1)) as usize;
                    let n = (PAGE_BYTES as usize - off).min(dst.len() - done);
                    match &t[(a >> PAGE_BITS) as usize] {
                        Some(p) => copy_chunked(&mut dst[done..done + n], &p[off..off + n]),
                        None => dst[done..done + n].fill(0),
                    }
                    done += n;
                }
            }
            Store::Sparse(m) => {
                let mut done = 0usize;
                while done < dst.len() {
                    let a = addr + done as u64;
                    let off = (a & (PAGE_BYTES - 1)) as usize;
                    let n = (PAGE_BYTES as usize - off).min(dst.len() - done);
                    match m.get(&(a >> PAGE_BITS)) {
                        Some(p) => copy_chunked(&mut dst[done..done + n], &p[off..off + n]),
                        None => dst[done..done + n].fill(0),
                    }
                    done += n;
                }
            }
        }
    }

    /// Copies `src` to `addr` (bounds checked by the caller).
    pub fn write_slice(&mut self, addr: u64, src: &[u8]) {
        match &mut self.store {
            Store::Dense(v) => copy_chunked(&mut v[addr as usize..addr as usize + src.len()], src),
            Store::Table(t) => {
                let mut done = 0usize;
                while done < src.len() {
                    let a = addr + done as u64;
                    let off = (a & (PAGE_BYTES - 1)) as usize;
                    let n = (PAGE_BYTES as usize - off).min(src.len() - done);
                    let page = t[(a >> PAGE_BITS) as usize]
                        .get_or_insert_with(|| AlignedBytes::zeroed(PAGE_BYTES as usize));
                    copy_chunked(&mut page[off..off + n], &src[done..done + n]);
                    done += n;
                }
            }
            Store::Sparse(m) => {
                let mut done = 0usize;
                while done < src.len() {
                    let a = addr + done as u64;
                    let off = (a & (PAGE_BYTES - 1)) as usize;
                    let n = (PAGE_BYTES as usize - off).min(src.len() - done);
                    let page = m
                        .entry(a >> PAGE_BITS)
                        .or_insert_with(|| AlignedBytes::zeroed(PAGE_BYTES as usize));
                    copy_chunked(&mut page[off..off + n], &src[done..done + n]);
                    done += n;
                }
            }
        }
    }

    /// The backing bytes of page `page` (`None`: never written, reads as
    /// zero), for a paged memory.
    fn page(&self, page: u64) -> Option<&[u8]> {
        match &self.store {
            Store::Dense(_) => None,
            Store::Table(t) => t[page as usize].as_deref(),
            Store::Sparse(m) => m.get(&page).map(|p| &p[..]),
        }
    }

    /// Mutable [`GlobalMemory::page`], allocating a never-written page.
    fn page_mut(&mut self, page: u64) -> &mut [u8] {
        let fresh = || AlignedBytes::zeroed(PAGE_BYTES as usize);
        match &mut self.store {
            Store::Dense(v) => v,
            Store::Table(t) => t[page as usize].get_or_insert_with(fresh),
            Store::Sparse(m) => m.entry(page).or_insert_with(fresh),
        }
    }

    /// How many rows from `r` on lie wholly in the page (or dense memory)
    /// holding row `r`'s start, and that page's number and first address.
    fn rows_in_page(
        &self,
        base: u64,
        stride: u64,
        span: usize,
        r: usize,
        rows: usize,
    ) -> (usize, u64, u64) {
        let a = base + r as u64 * stride;
        let (pn, start, end) = match self.store {
            Store::Dense(_) => (0, 0, self.size),
            _ => {
                let pn = a >> PAGE_BITS;
                (pn, pn << PAGE_BITS, (pn + 1) << PAGE_BITS)
            }
        };
        let span = span as u64;
        let k = if a + span > end {
            0
        } else {
            // A zero stride keeps every row at `a`.
            (end - span - a)
                .checked_div(stride)
                .map_or(rows - r, |q| (q as usize).saturating_add(1).min(rows - r))
        };
        (k, pn, start)
    }

    /// Copies `rows` rows of `span` bytes, row `r` from `base + r * stride`,
    /// into `dst[r * pitch..][..span]` (bounds checked by the caller: the
    /// last row ends inside the memory). Each page is looked up once for all
    /// the rows inside it; a row crossing a page boundary is copied in two.
    pub fn read_rows(
        &self,
        base: u64,
        stride: u64,
        span: usize,
        rows: usize,
        dst: &mut [u8],
        pitch: usize,
    ) {
        let mut r = 0;
        while r < rows {
            let (k, pn, start) = self.rows_in_page(base, stride, span, r, rows);
            let a = base + r as u64 * stride;
            if k == 0 {
                self.read_slice(a, &mut dst[r * pitch..r * pitch + span]);
                r += 1;
                continue;
            }
            let src = match &self.store {
                Store::Dense(v) => Some(&v[..]),
                _ => self.page(pn),
            };
            let off = (a - start) as usize;
            let (stride, d) = (stride as usize, &mut dst[r * pitch..]);
            match src {
                Some(p) => copy_rows(d, pitch, &p[off..], stride, span, k),
                None => {
                    for out in d.chunks_mut(pitch).take(k) {
                        out[..span].fill(0);
                    }
                }
            }
            r += k;
        }
    }

    /// Writes `src[r * pitch..][..span]` to `base + r * stride` for each of
    /// `rows` rows, in row order (a later row overwrites an earlier one it
    /// overlaps); bounds checked by the caller. One page lookup per page.
    pub fn write_rows(
        &mut self,
        base: u64,
        stride: u64,
        span: usize,
        rows: usize,
        src: &[u8],
        pitch: usize,
    ) {
        let mut r = 0;
        while r < rows {
            let (k, pn, start) = self.rows_in_page(base, stride, span, r, rows);
            let a = base + r as u64 * stride;
            if k == 0 {
                self.write_slice(a, &src[r * pitch..r * pitch + span]);
                r += 1;
                continue;
            }
            let page: &mut [u8] = match &mut self.store {
                Store::Dense(v) => &mut v[..],
                _ => self.page_mut(pn),
            };
            let off = (a - start) as usize;
            let (stride, s) = (stride as usize, &src[r * pitch..]);
            if stride >= span {
                // Disjoint rows: one pass over both sides' row chunks.
                for (d, s) in page[off..].chunks_mut(stride).zip(s.chunks(pitch)).take(k) {
                    row_copy(&mut d[..span], &s[..span]);
                }
            } else {
                // Overlapping rows, in row order: later rows land last.
                for i in 0..k {
                    let o = off + i * stride;
                    row_copy(&mut page[o..o + span], &s[i * pitch..i * pitch + span]);
                }
            }
            r += k;
        }
    }

    /// Clears every byte to zero (profile reset).
    pub fn clear(&mut self) {
        match &mut self.store {
            Store::Dense(v) => v.fill(0),
            Store::Table(t) => t.fill(None),
            Store::Sparse(m) => m.clear(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dense, page-table and hash-map memories behave the same, across a
    /// page boundary and for never-written bytes.
    #[test]
    fn every_store_kind_reads_back_across_page_boundaries() {
        for size in [4096u64, 1 << 30, 1 << 40] {
            let mut m = GlobalMemory::new(size);
            let a = if size > PAGE_BYTES {
                PAGE_BYTES * 3 - 5
            } else {
                100
            };
            let data: Vec<u8> = (0..11u8).map(|i| i * 3 + 1).collect();
            m.write_slice(a, &data);
            let mut back = vec![0u8; 13];
            m.read_slice(a - 1, &mut back);
            assert_eq!(back[0], 0, "size {size}: unwritten byte reads zero");
            assert_eq!(&back[1..12], &data[..], "size {size}");
            assert_eq!(back[12], 0);
            m.set_byte(a + 20, 0xaa);
            assert_eq!(m.byte(a + 20), 0xaa);
            assert!(m.in_bounds(size - 1, 1) && !m.in_bounds(size - 1, 2) && !m.in_bounds(size, 1));
            m.clear();
            assert_eq!(m.byte(a), 0);
        }
    }
}
