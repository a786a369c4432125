//! Global memory (GM) of configurable size.
//!
//! ASL: `asl/arch/memory-model/address-space.asl` (`ReadMemoryByte`,
//! `WriteMemoryByte`) with the reference profile's bounded memory
//! (`PTO_MODEL_MEMORY_BYTES`, 4096): an access at or past the size is a
//! bounded-memory failure, reported as `Fault_DataPage`.
//!
//! Small memories are one dense `Vec<u8>`; large ones (gigabytes, for
//! benchmarks and real workloads) are sparse 64 KiB pages allocated on first
//! write. Unwritten bytes read as zero in both.

use std::collections::HashMap;

/// Memories up to this size are dense.
pub const DENSE_LIMIT: u64 = 64 << 20;
const PAGE_BITS: u32 = 16;
const PAGE_BYTES: u64 = 1 << PAGE_BITS;

#[derive(Clone, Debug)]
enum Store {
    Dense(Vec<u8>),
    Sparse(HashMap<u64, Box<[u8]>>),
}

/// Global memory of `size` bytes.
#[derive(Clone, Debug)]
pub struct GlobalMemory {
    size: u64,
    store: Store,
}

impl GlobalMemory {
    pub fn new(size: u64) -> Self {
        let store = if size <= DENSE_LIMIT {
            Store::Dense(vec![0; size as usize])
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
            Store::Sparse(m) => m
                .get(&(addr >> PAGE_BITS))
                .map_or(0, |p| p[(addr & (PAGE_BYTES - 1)) as usize]),
        }
    }

    /// Writes the byte at `addr`; caller has checked bounds.
    pub fn set_byte(&mut self, addr: u64, value: u8) {
        match &mut self.store {
            Store::Dense(v) => v[addr as usize] = value,
            Store::Sparse(m) => {
                let page = m
                    .entry(addr >> PAGE_BITS)
                    .or_insert_with(|| vec![0u8; PAGE_BYTES as usize].into_boxed_slice());
                page[(addr & (PAGE_BYTES - 1)) as usize] = value;
            }
        }
    }

    /// Copies `dst.len()` bytes from `addr` (bounds checked by the caller).
    pub fn read_slice(&self, addr: u64, dst: &mut [u8]) {
        match &self.store {
            Store::Dense(v) => dst.copy_from_slice(&v[addr as usize..addr as usize + dst.len()]),
            Store::Sparse(m) => {
                let mut done = 0usize;
                while done < dst.len() {
                    let a = addr + done as u64;
                    let off = (a & (PAGE_BYTES - 1)) as usize;
                    let n = (PAGE_BYTES as usize - off).min(dst.len() - done);
                    match m.get(&(a >> PAGE_BITS)) {
                        Some(p) => dst[done..done + n].copy_from_slice(&p[off..off + n]),
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
            Store::Dense(v) => v[addr as usize..addr as usize + src.len()].copy_from_slice(src),
            Store::Sparse(m) => {
                let mut done = 0usize;
                while done < src.len() {
                    let a = addr + done as u64;
                    let off = (a & (PAGE_BYTES - 1)) as usize;
                    let n = (PAGE_BYTES as usize - off).min(src.len() - done);
                    let page = m
                        .entry(a >> PAGE_BITS)
                        .or_insert_with(|| vec![0u8; PAGE_BYTES as usize].into_boxed_slice());
                    page[off..off + n].copy_from_slice(&src[done..done + n]);
                    done += n;
                }
            }
        }
    }

    /// Clears every byte to zero (profile reset).
    pub fn clear(&mut self) {
        match &mut self.store {
            Store::Dense(v) => v.fill(0),
            Store::Sparse(m) => m.clear(),
        }
    }
}
