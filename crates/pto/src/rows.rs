//! The row-run fast path of TLOAD/TSTORE (Local and Shared).
//!
//! Same architecture as `memory.rs`, computed per run instead of per
//! element: a run is the columns `c0..c1` of one row that one PE owns (the
//! whole valid row for a Local transfer; for a Shared tile, the part of the
//! row inside one PE's capacity quarter, `SharedTileElementRegion`). Under
//! ADR 0074 a run's elements are contiguous in GM (`row_base + c * size`, or
//! `row_base + c / 2` for nibbles) and, for RowMajor tiles, in the payload.
//!
//! Preflight: a run passes when its first element is naturally aligned
//! (then all are) and its whole byte span is inside GM. When any run fails,
//! the caller falls back to the per-element preflight, which finds the
//! precise first faulting element in the architecture's order. Commit
//! moves each run with one GM slice operation.
//!
//! Used only when no memory-event capture is on, the `--element-stride`
//! what-if and the element-path switch (`Machine::set_element_path`) are
//! off, and the tile is RowMajor.

use crate::addressing::tile_memory_strided_byte_address;
use crate::addressing::PeAddressing;
use crate::forms::pe_selected;
use crate::machine::{Machine, PTO_MODEL_MEMORY_AGENTS};
use crate::tile::TileInfo;
use crate::types::{DataType, TileLayout};

/// Where a store's element values come from when not the tile's payload.
pub(crate) type ElementSource = dyn Fn(&Machine, usize) -> u64;

/// Columns `c0..c1` of row `r`, owned by PE `agent`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    pub r: u64,
    pub c0: u64,
    pub c1: u64,
    pub agent: usize,
}

impl Machine {
    /// Whether the run path applies to `t`.
    pub(crate) fn runs_apply(&self, t: &TileInfo) -> bool {
        self.capture.is_none()
            && !self.element_stride_mode
            && !self.element_path
            && t.layout == TileLayout::RowMajor
    }

    /// The runs of `t`'s valid region: one per row owned by `local` when
    /// `shared_mask` is `None`; else split at capacity-quarter boundaries,
    /// keeping only the selected PEs' runs (unselected quarters are never
    /// address-checked).
    pub(crate) fn runs(t: &TileInfo, shared_mask: Option<u8>, local: usize) -> Vec<Run> {
        let mut out = Vec::with_capacity(t.valid_rows as usize);
        let Some(mask) = shared_mask else {
            for r in 0..t.valid_rows {
                out.push(Run {
                    r,
                    c0: 0,
                    c1: t.valid_columns,
                    agent: local,
                });
            }
            return out;
        };
        let bits = t.data_type.element_bits() as u64;
        let quarter_bits = t.capacity_bytes * 8 / 4;
        for r in 0..t.valid_rows {
            let mut c0 = 0;
            while c0 < t.valid_columns {
                let e0 = r * t.columns + c0;
                let agent = ((e0 * bits / 8) * 4 / t.capacity_bytes.max(1)).min(3) as usize;
                // First element of the next quarter.
                let next_e = ((agent as u64 + 1) * quarter_bits).div_ceil(bits);
                let c1 = if agent == 3 {
                    t.valid_columns
                } else {
                    (next_e.saturating_sub(r * t.columns)).clamp(c0 + 1, t.valid_columns)
                };
                if pe_selected(mask, agent) {
                    out.push(Run { r, c0, c1, agent });
                }
                c0 = c1;
            }
        }
        out
    }

    /// (first byte address, byte span) of a run.
    fn run_span(t: &TileInfo, run: &Run, pe: &PeAddressing) -> (u64, u64) {
        let dt = t.data_type;
        let a0 = tile_memory_strided_byte_address(
            pe.base[run.agent],
            run.r,
            run.c0,
            pe.stride[run.agent],
            dt,
        );
        let span = if dt.is_four_bit() {
            (run.c1 - 1) / 2 - run.c0 / 2 + 1
        } else {
            (run.c1 - run.c0) * dt.element_bytes() as u64
        };
        (a0, span)
    }

    /// Direct-copy blocks: consecutive runs that are contiguous both in GM
    /// and in the payload (whole physical rows back to back, same PE) merge
    /// into one (GM address, first payload slot, slot count) block.
    fn direct_blocks(t: &TileInfo, runs: &[Run], pe: &PeAddressing) -> Vec<(u64, usize, usize)> {
        let mut out: Vec<(u64, usize, usize)> = Vec::new();
        let mut prev: Option<(Run, u64)> = None; // (run, GM end)
        for run in runs {
            let (a0, span) = Self::run_span(t, run, pe);
            let n = (run.c1 - run.c0) as usize;
            let p0 = (run.r * t.columns + run.c0) as usize;
            let joins = prev.is_some_and(|(q, end)| {
                q.agent == run.agent
                    && q.c1 == t.columns
                    && run.c0 == 0
                    && q.r + 1 == run.r
                    && end == a0
            });
            match out.last_mut() {
                Some(last) if joins => last.2 += n,
                _ => out.push((a0, p0, n)),
            }
            prev = Some((*run, a0 + span));
        }
        out
    }

    /// Fast preflight: true when every run is aligned and inside GM.
    pub(crate) fn runs_preflight_ok(&self, t: &TileInfo, runs: &[Run], pe: &PeAddressing) -> bool {
        let eb = t.data_type.element_bytes() as u64;
        runs.iter().all(|run| {
            let (a0, span) = Self::run_span(t, run, pe);
            a0.is_multiple_of(eb) && a0 as u128 + span as u128 <= self.gm.size() as u128
        })
    }

    /// Log every element access of `run` (when access logging is on).
    fn log_run(&mut self, run: &Run, pe: &PeAddressing, dt: DataType, is_store: bool) {
        for c in run.c0..run.c1 {
            let a = tile_memory_strided_byte_address(
                pe.base[run.agent],
                run.r,
                c,
                pe.stride[run.agent],
                dt,
            );
            self.log_access(run.agent, a, dt, run.r, c, is_store);
        }
    }

    /// Commit of a load: fills `t`'s payload (and definedness) run by run.
    pub(crate) fn runs_load(&mut self, t: &mut TileInfo, runs: &[Run], pe: &PeAddressing) {
        let dt = t.data_type;
        let eb = dt.element_bytes() as usize;
        let four = dt.is_four_bit();
        let sign = dt.sign_extends_on_load() && !t.uses_packed_carrier();
        let direct = t.payload.slot() == eb && !four;
        let mut buf = Vec::new();
        if direct {
            for (a0, p0, n) in Self::direct_blocks(t, runs, pe) {
                self.gm.read_slice(a0, t.payload.slots_mut(p0, n));
            }
        }
        for run in runs {
            let (a0, span) = Self::run_span(t, run, pe);
            let n = (run.c1 - run.c0) as usize;
            let p0 = (run.r * t.columns + run.c0) as usize;
            if direct {
                // Copied above, block by block.
            } else {
                buf.resize(span as usize, 0);
                self.gm.read_slice(a0, &mut buf);
                if four {
                    // Packed-nibble payload: when the run and its payload
                    // slot both start on a byte, whole bytes copy as they are.
                    let first = run.c0 / 2;
                    if run.c0 % 2 == 0 && p0.is_multiple_of(2) {
                        let whole = n / 2;
                        t.payload
                            .slots_mut(p0, whole * 2)
                            .copy_from_slice(&buf[..whole]);
                        if n % 2 == 1 {
                            t.payload.set(p0 + n - 1, (buf[whole] & 0xf) as u64);
                        }
                    } else {
                        for (i, c) in (run.c0..run.c1).enumerate() {
                            let b = buf[(c / 2 - first) as usize];
                            let v = if c % 2 == 1 { b >> 4 } else { b & 0xf };
                            t.payload.set(p0 + i, v as u64);
                        }
                    }
                } else {
                    let dst = t.payload.slots_mut(p0, n);
                    // Word slots (8 bytes): widen each element.
                    match eb {
                        1 => widen::<1>(dst, &buf, sign),
                        2 => widen::<2>(dst, &buf, sign),
                        4 => widen::<4>(dst, &buf, sign),
                        _ => dst.copy_from_slice(&buf),
                    }
                }
            }
            t.defined.set_range(p0, n);
            if self.access_logging {
                self.log_run(run, pe, dt, false);
            }
        }
    }

    /// Commit of a store, run by run, in row order (a zero stride leaves the
    /// last row written). `value(p)` gives the element at payload index `p`
    /// when the source is not `t`'s own payload (Shared reads).
    pub(crate) fn runs_store(
        &mut self,
        t: &TileInfo,
        runs: &[Run],
        pe: &PeAddressing,
        value: Option<&ElementSource>,
    ) {
        let dt = t.data_type;
        let eb = dt.element_bytes() as usize;
        let four = dt.is_four_bit();
        let direct = value.is_none() && t.payload.slot() == eb && !four;
        let mut buf = Vec::new();
        if direct {
            // Whole blocks at once: rows are disjoint here or, when a small
            // stride aliases them, later rows still land last.
            for (a0, p0, n) in Self::direct_blocks(t, runs, pe) {
                self.gm.write_slice(a0, t.payload.slots(p0, n));
            }
        }
        for run in runs {
            let (a0, span) = Self::run_span(t, run, pe);
            let n = (run.c1 - run.c0) as usize;
            let p0 = (run.r * t.columns + run.c0) as usize;
            if direct {
                // Written above, block by block.
            } else {
                buf.resize(span as usize, 0);
                let get = |m: &Machine, p: usize| match value {
                    Some(f) => f(m, p),
                    None => t.payload.get(p),
                };
                if four {
                    let first = run.c0 / 2;
                    if value.is_none() && run.c0 % 2 == 0 && p0.is_multiple_of(2) {
                        // Whole bytes as they are; only an odd run's last
                        // byte keeps its high (sibling) nibble.
                        let whole = n / 2;
                        buf[..whole].copy_from_slice(t.payload.slots(p0, whole * 2));
                        if n % 2 == 1 {
                            let old = self.gm.byte(a0.wrapping_add(span - 1));
                            buf[whole] = (t.payload.get(p0 + n - 1) as u8 & 0xf) | (old & 0xf0);
                        }
                    } else {
                        // Read-modify-write: sibling nibbles outside the run stay.
                        self.gm.read_slice(a0, &mut buf);
                        for c in run.c0..run.c1 {
                            let v = (get(self, p0 + (c - run.c0) as usize) & 0xf) as u8;
                            let b = &mut buf[(c / 2 - first) as usize];
                            *b = if c % 2 == 1 {
                                (*b & 0x0f) | (v << 4)
                            } else {
                                (*b & 0xf0) | v
                            };
                        }
                    }
                } else if value.is_none() && t.payload.slot() == 8 {
                    let src = t.payload.slots(p0, n);
                    match eb {
                        1 => narrow::<1>(&mut buf, src),
                        2 => narrow::<2>(&mut buf, src),
                        4 => narrow::<4>(&mut buf, src),
                        _ => buf.copy_from_slice(src),
                    }
                } else {
                    for (i, d) in buf.chunks_exact_mut(eb).enumerate() {
                        let v = get(self, p0 + i);
                        for (k, x) in d.iter_mut().enumerate() {
                            *x = (v >> (8 * k)) as u8;
                        }
                    }
                }
                self.gm.write_slice(a0, &buf);
            }
            if self.access_logging {
                self.log_run(run, pe, dt, true);
            }
        }
    }
}

/// `PeAddressing` with every PE using one base and stride (Local transfers).
pub(crate) fn uniform(base: u64, stride: u64) -> PeAddressing {
    PeAddressing {
        base: [base; PTO_MODEL_MEMORY_AGENTS],
        stride: [stride; PTO_MODEL_MEMORY_AGENTS],
    }
}

/// Widens `EB`-byte little-endian elements into 8-byte word slots,
/// sign-extending when `sign` (S8/S16/S32 in word-slot tiles).
fn widen<const EB: usize>(dst: &mut [u8], src: &[u8], sign: bool) {
    let sh = 64 - 8 * EB as u32;
    for (d, ch) in dst.chunks_exact_mut(8).zip(src.chunks_exact(EB)) {
        let mut w = [0u8; 8];
        w[..EB].copy_from_slice(ch);
        let v = u64::from_le_bytes(w);
        let v = if sign {
            (((v << sh) as i64) >> sh) as u64
        } else {
            v
        };
        d.copy_from_slice(&v.to_le_bytes());
    }
}

/// Keeps the low `EB` bytes of each 8-byte word slot.
fn narrow<const EB: usize>(dst: &mut [u8], src: &[u8]) {
    for (d, w) in dst.chunks_exact_mut(EB).zip(src.chunks_exact(8)) {
        d.copy_from_slice(&w[..EB]);
    }
}
