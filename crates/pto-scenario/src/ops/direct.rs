//! The ASL's direct primitives that AVS points call without a bundle:
//! TLOAD/TSTORE, Shared TLOAD, TPREFETCH, the indexed transfers, GMOV, TMOV
//! and the atomic Shared update.

use super::Operation;
use crate::fields::*;
use crate::runner::*;
use pto::DataType;
use std::str::FromStr;

/// The fields of the direct `tload` and `tstore`.
#[derive(Debug)]
pub struct TileTransfer {
    index: u32,
    base: u64,
    stride: u64,
    expect: ExecExpect,
}

impl TileTransfer {
    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(TileTransfer {
            index: f.ranged("index", u32::MAX as u64)? as u32,
            base: f.num("base")?,
            stride: f.num("stride")?,
            expect: f.exec_expect()?,
        })
    }
}

#[derive(Debug)]
pub struct Tload(TileTransfer);

impl Operation for Tload {
    const NAME: &'static str = "tload";
    const FIELDS: &'static str = "`index`, `base`, `stride`, `expect`?";
    const PRIMITIVE: &'static str = "the direct Tile `TLOAD(tile, base, row_stride_bytes)`";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        TileTransfer::parse(f).map(Tload)
    }

    fn run(&self, ctx: &mut Runner) {
        let TileTransfer {
            index,
            base,
            stride,
            expect,
        } = &self.0;
        match ext::tload(&mut ctx.m, *index, *base, *stride) {
            Ok(completed) => {
                ctx.check_exec(expect, completed);
                ctx.after_transfer();
            }
            Err(e) => ctx.fail("the direct TLOAD handler", e),
        }
    }
}

#[derive(Debug)]
pub struct Tstore(TileTransfer);

impl Operation for Tstore {
    const NAME: &'static str = "tstore";
    const FIELDS: &'static str = "`index`, `base`, `stride`, `expect`?";
    const PRIMITIVE: &'static str = "the direct Tile `TSTORE(base, row_stride_bytes, tile)`";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        TileTransfer::parse(f).map(Tstore)
    }

    fn run(&self, ctx: &mut Runner) {
        let TileTransfer {
            index,
            base,
            stride,
            expect,
        } = &self.0;
        match ext::tstore(&mut ctx.m, *index, *base, *stride) {
            Ok(completed) => {
                ctx.check_exec(expect, completed);
                ctx.after_transfer();
            }
            Err(e) => ctx.fail("the direct TSTORE handler", e),
        }
    }
}

/// The direct `TLOADShared` with one base and stride for every PE.
#[derive(Debug)]
pub struct TloadShared {
    id: u8,
    base: u64,
    stride: u64,
    size_code: u32,
    rows: u64,
    cols: u64,
    valid_rows: u64,
    valid_cols: u64,
    dtype: String,
    layout: String,
    mask: u8,
    expect: ExecExpect,
}

impl Operation for TloadShared {
    const NAME: &'static str = "tload-shared";
    const FIELDS: &'static str = "`id`, `base`, `stride` (bytes, every PE), `size_code`, `rows`, `cols`, `valid_rows`, `valid_cols`, `dtype`, `layout`? (`RowMajor`), `mask`, `expect`?";
    const PRIMITIVE: &'static str = "the direct `TLOADShared(id, bases, strides, size_code, rows, cols, valid_rows, valid_cols, dtype, layout, mask)`";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            id: f.ranged("id", 255)? as u8,
            base: f.num("base")?,
            stride: f.num("stride")?,
            size_code: f.ranged("size_code", 12)? as u32,
            rows: f.ranged("rows", 65535)?,
            cols: f.ranged("cols", 65535)?,
            valid_rows: f.ranged("valid_rows", 65535)?,
            valid_cols: f.ranged("valid_cols", 65535)?,
            dtype: f.dtype("dtype")?,
            layout: f.named("layout", LAYOUTS, "RowMajor")?,
            mask: f.mask("mask")?,
            expect: f.exec_expect()?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self {
            id,
            base,
            stride,
            size_code,
            rows,
            cols,
            valid_rows,
            valid_cols,
            dtype,
            layout,
            mask,
            expect,
        } = self;
        let (Ok(dt), Ok(layout)) = (
            dtype.parse::<pto::DataType>(),
            layout.parse::<pto::TileLayout>(),
        ) else {
            ctx.fail("a data type and layout", format!("{dtype}, {layout}"));
            return;
        };
        let r = ctx.m.tload_shared_direct(
            *id,
            *base,
            *stride,
            *size_code,
            *rows,
            *cols,
            *valid_rows,
            *valid_cols,
            dt,
            layout,
            *mask,
        );
        ctx.check_exec(expect, r.is_ok());
        ctx.after_transfer();
    }
}

/// `TPREFETCHAllPEs(base, row_stride_elements, valid_cols, valid_rows, cols, dtype)`.
#[derive(Debug)]
pub struct Tprefetch {
    base: u64,
    stride_elements: u64,
    valid_cols: u64,
    valid_rows: u64,
    cols: u64,
    dtype: String,
    expect: ExecExpect,
}

impl Operation for Tprefetch {
    const NAME: &'static str = "tprefetch";
    const FIELDS: &'static str =
        "`base`, `stride_elements`, `valid_cols`, `valid_rows`, `cols`, `dtype`, `expect`?";
    const PRIMITIVE: &'static str = "`TPREFETCHAllPEs(base, row_stride_elements, …)`: all four PEs, element row stride, load events only";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            base: f.num("base")?,
            stride_elements: f.num("stride_elements")?,
            valid_cols: f.ranged("valid_cols", 65535)?,
            valid_rows: f.ranged("valid_rows", 65535)?,
            cols: f.ranged("cols", 65535)?,
            dtype: f.dtype("dtype")?,
            expect: f.exec_expect()?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self {
            base,
            stride_elements,
            valid_cols,
            valid_rows,
            cols,
            dtype,
            expect,
        } = self;
        let dt = DataType::from_str(dtype).unwrap_or(DataType::U8);
        let shape = pto::prefetch::PrefetchShape {
            valid_columns: *valid_cols,
            valid_rows: *valid_rows,
            columns: *cols,
        };
        let r = ctx.m.tprefetch_all_pes(*base, *stride_elements, shape, dt);
        if let Err(f) = r {
            if ctx.m.last_fault() != f {
                ctx.m.set_fault(f, None);
            }
        }
        ctx.check_exec(expect, r.is_ok());
        ctx.after_transfer();
    }
}

/// `MGATHER(index, base, indices, pad)`, or `MGATHER_MASK(index, base,
/// indices, mask, pad)` with `mask`.
#[derive(Debug)]
pub struct Mgather {
    index: u32,
    base: u64,
    indices: u32,
    mask: Option<u32>,
    pad: u8,
    expect: ExecExpect,
}

impl Operation for Mgather {
    const NAME: &'static str = "mgather";
    const FIELDS: &'static str = "`index` (destination), `base`, `indices` (index tile), `mask`? (a predicate tile), `pad`? (`Zero`/`Max`/`Min`/`Null`, default `Null`), `expect`?";
    const PRIMITIVE: &'static str = "the direct Tile `MGATHER(destination, base, indices, pad)`: byte displacements (`TileMemoryByteDisplacementAddress`), complete preflight, load events; with `mask`, `MGATHER_MASK(destination, base, indices, mask, pad)`: only lanes whose predicate bit is set are probed and moved, masked-off lanes take the pad value";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            index: f.ranged("index", u32::MAX as u64)? as u32,
            base: f.num("base")?,
            indices: f.ranged("indices", u32::MAX as u64)? as u32,
            mask: f.opt_ranged("mask", u32::MAX as u64)?.map(|m| m as u32),
            pad: f.pad_field()?,
            expect: f.exec_expect()?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self {
            index,
            base,
            indices,
            mask,
            pad,
            expect,
        } = self;
        let pad = pto::types::PadValue::from_code(*pad as u32);
        let r = match mask {
            None => ctx.m.mgather(*index, *base, *indices, pad),
            Some(k) => ctx.m.mgather_mask(*index, *base, *indices, *k, pad),
        };
        ctx.check_exec(expect, r.is_ok());
        ctx.after_transfer();
    }
}

/// `MSCATTER(base, index, indices)`, or `MSCATTER_MASK(base, index,
/// indices, mask)` with `mask`.
#[derive(Debug)]
pub struct Mscatter {
    index: u32,
    base: u64,
    indices: u32,
    mask: Option<u32>,
    expect: ExecExpect,
}

impl Operation for Mscatter {
    const NAME: &'static str = "mscatter";
    const FIELDS: &'static str =
        "`index` (data tile), `base`, `indices`, `mask`? (a predicate tile), `expect`?";
    const PRIMITIVE: &'static str = "the direct Tile `MSCATTER(base, source, indices)`: complete preflight, then lanes in row-major order (the model's choice of the implementation-defined duplicate winner: the last lane); with `mask`, `MSCATTER_MASK(base, source, indices, mask)`: only lanes whose predicate bit is set are probed and moved";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            index: f.ranged("index", u32::MAX as u64)? as u32,
            base: f.num("base")?,
            indices: f.ranged("indices", u32::MAX as u64)? as u32,
            mask: f.opt_ranged("mask", u32::MAX as u64)?.map(|m| m as u32),
            expect: f.exec_expect()?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self {
            index,
            base,
            indices,
            mask,
            expect,
        } = self;
        let r = match mask {
            None => ctx.m.mscatter(*base, *index, *indices),
            Some(k) => ctx.m.mscatter_mask(*base, *index, *indices, *k),
        };
        ctx.check_exec(expect, r.is_ok());
        ctx.after_transfer();
    }
}

/// `MGATHER_CAS(index, base, indices, expected, replacement, pad)`.
#[derive(Debug)]
pub struct MgatherCas {
    index: u32,
    base: u64,
    indices: u32,
    expected: u32,
    replacement: u32,
    pad: u8,
    expect: ExecExpect,
}

impl Operation for MgatherCas {
    const NAME: &'static str = "mgather-cas";
    const FIELDS: &'static str =
        "`index` (destination), `base`, `indices`, `expected`, `replacement`, `pad`?, `expect`?";
    const PRIMITIVE: &'static str = "the direct Tile `MGATHER_CAS(destination, base, indices, expected, replacement, pad)`: every lane probed first, then per lane (row-major, the model's choice of the implementation-defined order) the old value into the destination and the replacement stored where old = expected; one `atomic` event per lane (`expect-event` `kind = \"atomic\"`, `read_value` old, `write_value` replacement)";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            index: f.ranged("index", u32::MAX as u64)? as u32,
            base: f.num("base")?,
            indices: f.ranged("indices", u32::MAX as u64)? as u32,
            expected: f.ranged("expected", u32::MAX as u64)? as u32,
            replacement: f.ranged("replacement", u32::MAX as u64)? as u32,
            pad: f.pad_field()?,
            expect: f.exec_expect()?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self {
            index,
            base,
            indices,
            expected,
            replacement,
            pad,
            expect,
        } = self;
        let pad = pto::types::PadValue::from_code(*pad as u32);
        let r = ctx
            .m
            .mgather_cas(*index, *base, *indices, *expected, *replacement, pad);
        ctx.check_exec(expect, r.is_ok());
        ctx.after_transfer();
    }
}

/// `GMOV(index, source, peer_tid)`.
#[derive(Debug)]
pub struct Gmov {
    index: u32,
    source: u32,
    peer_tid: u64,
    expect: ExecExpect,
}

impl Operation for Gmov {
    const NAME: &'static str = "gmov";
    const FIELDS: &'static str = "`index` (destination), `source`, `peer_tid`? (0), `expect`?";
    const PRIMITIVE: &'static str = "the direct Tile `GMOV(destination, source, peer_tid)` (the Core4 source snapshot copied; `peer_tid` must be 0..3)";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            index: f.ranged("index", u32::MAX as u64)? as u32,
            source: f.ranged("source", u32::MAX as u64)? as u32,
            peer_tid: f.opt_num("peer_tid")?.unwrap_or(0),
            expect: f.exec_expect()?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self {
            index,
            source,
            peer_tid,
            expect,
        } = self;
        let r = ctx.m.gmov(*index, *source, *peer_tid);
        ctx.check_exec(expect, r.is_ok());
        ctx.after_transfer();
    }
}

/// Local `TMOV(index, source)`.
#[derive(Debug)]
pub struct Tmov {
    index: u32,
    source: u32,
    expect: ExecExpect,
}

impl Operation for Tmov {
    const NAME: &'static str = "tmov";
    const FIELDS: &'static str = "`index` (destination), `source`, `expect`?";
    const PRIMITIVE: &'static str =
        "the direct Local `TMOV(destination, source)` (same shape, type and layout)";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            index: f.ranged("index", u32::MAX as u64)? as u32,
            source: f.ranged("source", u32::MAX as u64)? as u32,
            expect: f.exec_expect()?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self {
            index,
            source,
            expect,
        } = self;
        let r = ctx.m.tmov(*index, *source);
        ctx.check_exec(expect, r.is_ok());
        ctx.after_transfer();
    }
}

/// `AtomicUpdateSharedTile(id, _Tiles[[from_tile]] with edits, mask) == expect`.
#[derive(Debug)]
pub struct AtomicUpdateShared {
    id: u8,
    from_tile: u32,
    mask: u8,
    edits: pto::tile::shared::SnapshotEdits,
    expect: bool,
}

impl Operation for AtomicUpdateShared {
    const NAME: &'static str = "atomic-update-shared";
    const FIELDS: &'static str = "`id`, `from_tile`, `mask`, `expect`? (`true`), and edits of the copied descriptor: `cols`?, `valid_cols`?, `contents_defined`?, `defined_valid_elements`?";
    const PRIMITIVE: &'static str = "`AtomicUpdateSharedTile(id, tile, mask) == expect`, `tile` a copy of `_Tiles[[from_tile]]` with the edits (the hand-built TileInfo values of the AVS points)";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            id: f.ranged("id", 255)? as u8,
            from_tile: f.ranged("from_tile", u32::MAX as u64)? as u32,
            mask: f.mask("mask")?,
            edits: pto::tile::shared::SnapshotEdits {
                columns: f.opt_num("cols")?,
                valid_columns: f.opt_num("valid_cols")?,
                contents_defined: f.opt_bool("contents_defined")?,
                defined_valid_elements: f.opt_num("defined_valid_elements")?,
            },
            expect: f.opt_bool("expect")?.unwrap_or(true),
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self {
            id,
            from_tile,
            mask,
            edits,
            expect,
        } = self;
        match ctx
            .m
            .atomic_update_shared_tile_snapshot(*id, *from_tile, *mask, edits)
        {
            Some(got) => ctx.check(
                &format!("AtomicUpdateSharedTile(S{id}, T{from_tile}) ="),
                *expect,
                got,
                |b| b.to_string(),
            ),
            None => ctx.fail(format!("tile {from_tile} to exist"), "no such tile"),
        };
    }
}
