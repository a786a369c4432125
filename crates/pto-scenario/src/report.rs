//! Beyond-the-spec reports on one TLOAD/TSTORE's GM accesses.
//!
//! - **Conflict report.** The architecture defines no order among the PEs of
//!   one TSTORE and requires programmers not to write the same GM from two
//!   selected PEs (ADR 0074, "cross-PE conflict obligations are unchanged").
//!   Two PEs writing the same byte — including different nibbles of one
//!   byte, which a byte-granular memory cannot merge — is reported with the
//!   PEs, the byte range and the rows/columns involved.
//! - **Stride-unit warning.** ADR 0074 changed the TLOAD/TSTORE row stride
//!   from elements to bytes without changing the instruction bits, so an old
//!   binary silently addresses the wrong bytes. A non-zero row stride smaller
//!   than the row's byte width (rows overlap), or equal to the physical
//!   column count for an element wider than a byte, is most likely such an
//!   element-count stride; the warning names the byte stride it probably
//!   meant (stride × element size).
//!
//! Invariant: reports never change the outcome of a run (warnings only).

use std::collections::BTreeMap;

use pto::{GmAccess, Nibble};

/// Which report a warning comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarningKind {
    Conflict,
    StrideUnit,
}

impl WarningKind {
    pub fn name(self) -> &'static str {
        match self {
            WarningKind::Conflict => "conflict",
            WarningKind::StrideUnit => "stride-unit",
        }
    }
}

/// A beyond-the-spec warning on one step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub step: usize,
    pub op: &'static str,
    pub kind: WarningKind,
    pub message: String,
}

/// Which step a transfer belongs to.
#[derive(Debug, Clone)]
pub struct TransferContext {
    pub step: usize,
    pub op: &'static str,
}

/// Conflict and stride-unit warnings for one transfer.
pub fn analyse_transfer(
    ctx: &TransferContext,
    accesses: &[GmAccess],
    strides: &[StrideInfo],
) -> Vec<Warning> {
    let mut out = conflicts(ctx, accesses);
    out.extend(stride_units(ctx, strides));
    out
}

/// Bytes of GM one access covers.
fn bytes_of(a: &GmAccess) -> std::ops::Range<u64> {
    let n = if a.nibble.is_some() {
        1
    } else {
        a.size.max(1) as u64
    };
    a.addr..a.addr.saturating_add(n)
}

fn conflicts(ctx: &TransferContext, accesses: &[GmAccess]) -> Vec<Warning> {
    // byte address -> (pe -> first access writing it)
    let mut writers: BTreeMap<u64, BTreeMap<usize, &GmAccess>> = BTreeMap::new();
    for a in accesses.iter().filter(|a| a.write) {
        for b in bytes_of(a) {
            writers.entry(b).or_default().entry(a.pe).or_insert(a);
        }
    }
    // (pe_a, pe_b) -> (first byte, last byte, elements of a, elements of b, nibble-only?)
    struct Pair<'a> {
        lo: u64,
        hi: u64,
        count: u64,
        a: Vec<&'a GmAccess>,
        b: Vec<&'a GmAccess>,
        nibbles_only: bool,
    }
    let mut pairs: BTreeMap<(usize, usize), Pair> = BTreeMap::new();
    for (byte, pes) in &writers {
        let list: Vec<(&usize, &&GmAccess)> = pes.iter().collect();
        for i in 0..list.len() {
            for j in i + 1..list.len() {
                let (pa, aa) = list[i];
                let (pb, ab) = list[j];
                let different_nibbles =
                    matches!((aa.nibble, ab.nibble), (Some(x), Some(y)) if x != y);
                let p = pairs.entry((*pa, *pb)).or_insert(Pair {
                    lo: *byte,
                    hi: *byte,
                    count: 0,
                    a: Vec::new(),
                    b: Vec::new(),
                    nibbles_only: true,
                });
                p.lo = p.lo.min(*byte);
                p.hi = p.hi.max(*byte);
                p.count += 1;
                p.nibbles_only &= different_nibbles;
                if p.a.len() < 3 && !p.a.contains(aa) {
                    p.a.push(aa);
                }
                if p.b.len() < 3 && !p.b.contains(ab) {
                    p.b.push(ab);
                }
            }
        }
    }
    pairs
        .into_iter()
        .map(|((pa, pb), p)| {
            let els = |v: &[&GmAccess]| {
                v.iter()
                    .map(|a| match a.nibble {
                        Some(Nibble::Low) => format!("({}, {}) low nibble", a.row, a.col),
                        Some(Nibble::High) => format!("({}, {}) high nibble", a.row, a.col),
                        None => format!("({}, {})", a.row, a.col),
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let what = if p.nibbles_only { "different nibbles of the same bytes" } else { "the same bytes" };
            Warning {
                step: ctx.step,
                op: ctx.op,
                kind: WarningKind::Conflict,
                message: format!(
                    "conflict: PE{pa} and PE{pb} both write {what} {:#x}..={:#x} ({} byte{}; PE{pa} rows/cols {}; PE{pb} rows/cols {}); \
                     the architecture defines no order among PEs, so the result is unpredictable",
                    p.lo,
                    p.hi,
                    p.count,
                    if p.count == 1 { "" } else { "s" },
                    els(&p.a),
                    els(&p.b)
                ),
            }
        })
        .collect()
}

/// One PE's resolved row geometry of a TLOAD/TSTORE (from the model's
/// transfer record), what the stride-unit warning looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StrideInfo {
    pub pe: usize,
    pub element_bits: u64,
    pub physical_columns: u64,
    pub valid_rows: u64,
    pub valid_columns: u64,
    pub row_stride_bytes: u64,
    /// TPREFETCH: its row stride counts elements (`row_stride_elements`),
    /// and `row_stride_bytes` is unused.
    pub prefetch: bool,
    pub row_stride_elements: u64,
    /// False when B.IOR was omitted (the dense default cannot be wrong).
    pub encoded: bool,
}

/// Stride-unit warnings for the resolved strides of one transfer.
pub fn stride_units(ctx: &TransferContext, infos: &[StrideInfo]) -> Vec<Warning> {
    let mut out = Vec::new();
    for i in infos {
        if i.prefetch {
            out.extend(prefetch_stride_unit(ctx, i));
            continue;
        }
        let stride = i.row_stride_bytes;
        if !i.encoded || i.valid_rows < 2 || stride == 0 || stride > (1u64 << 48) {
            // Omitted: dense by construction. Zero: a legal aliasing stride.
            // Huge: a wrapped (negative) pitch, not a unit mistake.
            continue;
        }
        let bits = i.element_bits;
        let row_bytes = (i.valid_columns * bits).div_ceil(8);
        let kind = if bits < 8 {
            "packed 4-bit".to_string()
        } else {
            format!("{bits}-bit")
        };
        let meant = (stride * bits).div_ceil(8);
        if stride < row_bytes {
            let hint = if bits > 8 {
                format!(
                    "; if {stride} is an element count (the superseded pre-ADR-0074 unit), the byte stride it probably meant is {meant}"
                )
            } else {
                String::new()
            };
            out.push(Warning {
                step: ctx.step,
                op: ctx.op,
                kind: WarningKind::StrideUnit,
                message: format!(
                    "stride-unit: PE{} row stride {stride} bytes is smaller than the {row_bytes}-byte row of {} {kind} elements, so rows overlap{hint}",
                    i.pe, i.valid_columns
                ),
            });
        } else if bits > 8 && stride == i.physical_columns {
            out.push(Warning {
                step: ctx.step,
                op: ctx.op,
                kind: WarningKind::StrideUnit,
                message: format!(
                    "stride-unit: PE{} row stride {stride} bytes equals the physical column count of {kind} elements; \
                     it looks like an element-count stride (the superseded pre-ADR-0074 unit): {stride} elements = {meant} bytes",
                    i.pe
                ),
            });
        }
    }
    out
}

/// The TPREFETCH half of the stride-unit warning: TPREFETCH kept its
/// element-unit row stride when ADR 0074 made TLOAD/TSTORE's a byte count,
/// so a TPREFETCH stride equal to the row's byte width is most likely a
/// byte count carried over from a TLOAD of the same rows.
fn prefetch_stride_unit(ctx: &TransferContext, i: &StrideInfo) -> Option<Warning> {
    let stride = i.row_stride_elements;
    if !i.encoded || i.valid_rows < 2 || stride == 0 || stride > (1u64 << 48) {
        return None;
    }
    let bits = i.element_bits;
    let eb = bits / 8;
    let message = if stride < i.valid_columns {
        format!(
            "stride-unit: PE{} TPREFETCH row stride {stride} elements is smaller than the row of {} elements, so rows overlap \
             (TPREFETCH counts its row stride in elements; only TLOAD/TSTORE count bytes)",
            i.pe, i.valid_columns
        )
    } else if eb > 1 && stride == i.physical_columns * eb {
        format!(
            "stride-unit: PE{} TPREFETCH row stride {stride} elements equals the {stride}-byte width of a physical row of {} {bits}-bit elements; \
             TPREFETCH counts its row stride in elements (ADR 0074 changed only TLOAD/TSTORE to bytes), so if {stride} is a byte count \
             the element stride it probably meant is {}",
            i.pe,
            i.physical_columns,
            stride / eb
        )
    } else {
        return None;
    };
    Some(Warning {
        step: ctx.step,
        op: ctx.op,
        kind: WarningKind::StrideUnit,
        message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(
        pe: usize,
        addr: u64,
        size: u32,
        row: u64,
        col: u64,
        nibble: Option<Nibble>,
    ) -> GmAccess {
        GmAccess {
            pe,
            addr,
            size,
            nibble,
            row,
            col,
            write: true,
        }
    }
    fn ctx() -> TransferContext {
        TransferContext {
            step: 3,
            op: "execute",
        }
    }
    fn geo(bits: u64, phys: u64, rows: u64, cols: u64, stride: u64, encoded: bool) -> StrideInfo {
        StrideInfo {
            pe: 0,
            element_bits: bits,
            physical_columns: phys,
            valid_rows: rows,
            valid_columns: cols,
            row_stride_bytes: stride,
            encoded,
            prefetch: false,
            row_stride_elements: 0,
        }
    }

    #[test]
    fn two_pes_writing_one_byte_is_a_conflict_naming_both() {
        let a = [acc(0, 0x10, 4, 0, 0, None), acc(1, 0x12, 2, 0, 0, None)];
        let w = analyse_transfer(&ctx(), &a, &[]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].kind, WarningKind::Conflict);
        assert!(w[0].message.contains("PE0 and PE1"), "{}", w[0].message);
        assert!(w[0].message.contains("0x12..=0x13"), "{}", w[0].message);
    }

    #[test]
    fn sibling_nibbles_from_two_pes_are_a_conflict() {
        let a = [
            acc(2, 0x20, 1, 0, 0, Some(Nibble::Low)),
            acc(3, 0x20, 1, 0, 1, Some(Nibble::High)),
        ];
        let w = analyse_transfer(&ctx(), &a, &[]);
        assert_eq!(w.len(), 1);
        assert!(
            w[0].message.contains("different nibbles"),
            "{}",
            w[0].message
        );
    }

    #[test]
    fn disjoint_pes_and_one_pe_aliasing_itself_are_not_conflicts() {
        let a = [
            acc(0, 0, 4, 0, 0, None),
            acc(0, 0, 4, 1, 0, None),
            acc(1, 4, 4, 0, 0, None),
        ];
        assert!(conflicts(&ctx(), &a).is_empty());
    }

    #[test]
    fn overlapping_rows_give_the_likely_byte_stride() {
        // FP32, 4 columns, stride 4: rows overlap; 4 elements = 16 bytes.
        let w = stride_units(&ctx(), &[geo(32, 4, 2, 4, 4, true)]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].message.contains("row stride 4 bytes"),
            "{}",
            w[0].message
        );
        assert!(
            w[0].message.contains("probably meant is 16"),
            "{}",
            w[0].message
        );
    }

    #[test]
    fn stride_equal_to_physical_columns_of_wide_elements_is_flagged() {
        // FP16, 2 valid of 8 physical columns, stride 8 >= the 4-byte row.
        let w = stride_units(&ctx(), &[geo(16, 8, 2, 2, 8, true)]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].message.contains("8 elements = 16 bytes"),
            "{}",
            w[0].message
        );
        assert!(
            stride_units(&ctx(), &[geo(16, 8, 2, 2, 6, true)]).is_empty(),
            "a plain byte stride"
        );
        assert!(
            stride_units(&ctx(), &[geo(8, 8, 2, 2, 8, true)]).is_empty(),
            "bytes: units agree"
        );
    }

    #[test]
    fn dense_omitted_zero_and_single_row_strides_are_quiet() {
        assert!(stride_units(&ctx(), &[geo(32, 2, 2, 2, 8, true)]).is_empty());
        assert!(
            stride_units(&ctx(), &[geo(32, 4, 2, 4, 4, false)]).is_empty(),
            "omitted B.IOR"
        );
        assert!(
            stride_units(&ctx(), &[geo(32, 4, 2, 4, 0, true)]).is_empty(),
            "zero aliases rows legally"
        );
        assert!(
            stride_units(&ctx(), &[geo(32, 4, 1, 4, 4, true)]).is_empty(),
            "one row cannot overlap"
        );
    }
}
