//! Setting up state: the profile and bundle resets, GPRs, memory, tiles
//! (Local, cube, predicate, Shared) and injected faults.

use std::str::FromStr;

use super::Operation;
use crate::fields::*;
use crate::runner::*;

#[derive(Debug)]
pub struct Reset;

impl Operation for Reset {
    const NAME: &'static str = "reset";
    const FIELDS: &'static str = "";
    const PRIMITIVE: &'static str = "ResetProfileState";

    fn parse(_f: &mut Fields) -> Result<Self, String> {
        Ok(Self)
    }

    fn run(&self, ctx: &mut Runner) {
        ctx.m.reset_profile_state();
    }
}

#[derive(Debug)]
pub struct ResetBundle;

impl Operation for ResetBundle {
    const NAME: &'static str = "reset-bundle";
    const FIELDS: &'static str = "";
    const PRIMITIVE: &'static str = "ResetBundleControlState";

    fn parse(_f: &mut Fields) -> Result<Self, String> {
        Ok(Self)
    }

    fn run(&self, ctx: &mut Runner) {
        ctx.m.reset_bundle_control_state();
    }
}

#[derive(Debug)]
pub struct Gpr {
    pe: Option<usize>,
    reg: u32,
    value: u64,
}

impl Operation for Gpr {
    const NAME: &'static str = "gpr";
    const FIELDS: &'static str = "`reg`, `value`, `pe`?";
    const PRIMITIVE: &'static str = "WriteGPR / WritePEGPR (writes to GPR 0 are ignored)";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            pe: f.pe()?,
            reg: f.ranged("reg", 31)? as u32,
            value: f.num("value")?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { pe, reg, value } = self;
        let pe = pe.unwrap_or_else(|| ctx.m.current_pe());
        ctx.m.write_pe_gpr(pe, *reg, *value);
    }
}

#[derive(Debug)]
pub struct Memory {
    addr: u64,
    bytes: Vec<u8>,
}

impl Operation for Memory {
    const NAME: &'static str = "memory";
    const FIELDS: &'static str = "`addr`, `bytes`";
    const PRIMITIVE: &'static str = "WriteMemoryByte for each byte";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            addr: f.num("addr")?,
            bytes: f.bytes()?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { addr, bytes } = self;
        for (i, b) in bytes.iter().enumerate() {
            let a = addr.wrapping_add(i as u64);
            let r = ctx.m.write_memory_byte(a, *b);
            if ctx
                .setup(&format!("memory write at {}", hex(a)), r)
                .is_none()
            {
                break;
            }
        }
    }
}

#[derive(Debug)]
pub struct Store {
    addr: u64,
    size: u32,
    value: u64,
}

impl Operation for Store {
    const NAME: &'static str = "store";
    const FIELDS: &'static str = "`addr`, `size` (1,2,4,8), `value`";
    const PRIMITIVE: &'static str = "Store (little-endian). Under `capture-events` it also records a Relaxed store event of the capture agent (`RecordStoreEvent` with `NextMemoryCoherenceRank`), as captured tile events do.";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        {
            let addr = f.num("addr")?;
            let size = f.num("size")?;
            if ![1, 2, 4, 8].contains(&size) {
                return Err(format!("`size` = {size}: want 1, 2, 4 or 8"));
            }
            Ok(Self {
                addr,
                size: size as u32,
                value: f.num("value")?,
            })
        }
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { addr, size, value } = self;
        let r = ctx.m.scalar_store(*addr, *size, *value);
        ctx.setup(&format!("store of {size} bytes at {}", hex(*addr)), r);
    }
}

/// ConfigureTile (or a cube tile's ConfigureCubeTile) from a parsed spec.
fn configure(spec: &TileSpec, ctx: &mut Runner) {
    match tile_config(spec) {
        Ok(cfg) => {
            let r = ctx.m.configure_tile(spec.index, &cfg);
            ctx.setup(&format!("configuring tile {}", spec.index), r);
        }
        Err(e) => ctx.fail("a valid tile configuration", e),
    }
}

#[derive(Debug)]
pub struct Tile(TileSpec);

impl Operation for Tile {
    const NAME: &'static str = "tile";
    const FIELDS: &'static str = "`index`, `capacity`, `rows`, `cols`, `valid_rows`, `valid_cols`, `dtype`, `layout`? (`RowMajor`), `location`? (`Any`), `mask`?";
    const PRIMITIVE: &'static str = "ConfigureTile, or ConfigureTileForMask when `mask` (4 chars of 0/1, bit string as the spec writes it) is given";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self(f.tile_spec(false)?))
    }

    fn run(&self, ctx: &mut Runner) {
        configure(&self.0, ctx)
    }
}

#[derive(Debug)]
pub struct CubeTile(TileSpec);

impl Operation for CubeTile {
    const NAME: &'static str = "cube-tile";
    const FIELDS: &'static str = "`index`, `capacity`, `rows`, `cols`, `dtype`, `layout`? (`CUBE_M16`), `location`? (`Matrix`), `mask`?";
    const PRIMITIVE: &'static str = "ConfigureCubeTile / ConfigureCubeTileForMask";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self(f.tile_spec(true)?))
    }

    fn run(&self, ctx: &mut Runner) {
        configure(&self.0, ctx)
    }
}

#[derive(Debug)]
pub struct TileElement {
    index: u32,
    row: u64,
    col: u64,
    value: u64,
}

impl Operation for TileElement {
    const NAME: &'static str = "tile-element";
    const FIELDS: &'static str = "`index`, `row`, `col`, `value`";
    const PRIMITIVE: &'static str = "WriteTileElement";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            index: f.ranged("index", u32::MAX as u64)? as u32,
            row: f.num("row")?,
            col: f.num("col")?,
            value: f.num("value")?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self {
            index,
            row,
            col,
            value,
        } = self;
        let r = ctx.m.write_tile_element(*index, *row, *col, *value);
        ctx.setup(&format!("writing tile {index} element ({row}, {col})"), r);
    }
}

#[derive(Debug)]
pub struct SharedTile {
    id: u8,
    from_tile: u32,
    mask: u8,
}

impl Operation for SharedTile {
    const NAME: &'static str = "shared-tile";
    const FIELDS: &'static str = "`id` (0..255), `from_tile`, `mask`";
    const PRIMITIVE: &'static str = "InstallSharedTile(id, tile `from_tile`, mask)";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            id: f.ranged("id", 255)? as u8,
            from_tile: f.ranged("from_tile", u32::MAX as u64)? as u32,
            mask: f.mask("mask")?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self {
            id,
            from_tile,
            mask,
        } = self;
        let r = ctx.m.install_shared_tile(*id, *from_tile, *mask);
        ctx.setup(&format!("installing S{id} from tile {from_tile}"), r);
    }
}

/// `ConfigurePredicateTileForMask(index, capacity, rows, cols,
/// valid_rows, valid_cols, mask)`.
#[derive(Debug)]
pub struct PredicateTile {
    index: u32,
    capacity: u64,
    rows: u64,
    cols: u64,
    valid_rows: u64,
    valid_cols: u64,
    mask: u8,
}

impl Operation for PredicateTile {
    const NAME: &'static str = "predicate-tile";
    const FIELDS: &'static str =
        "`index`, `capacity`, `rows`, `cols`, `valid_rows`, `valid_cols`, `mask`?";
    const PRIMITIVE: &'static str = "`ConfigurePredicateTile(ForMask)`: a RowMajor U8-carrier tile whose elements are bits (bit `l MOD 8` of byte `l DIV 8`); `tile-element` writes its bytes";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            index: f.ranged("index", u32::MAX as u64)? as u32,
            capacity: f.num("capacity")?,
            rows: f.num("rows")?,
            cols: f.num("cols")?,
            valid_rows: f.num("valid_rows")?,
            valid_cols: f.num("valid_cols")?,
            mask: f.opt_mask("mask")?.unwrap_or(0b0001),
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self {
            index,
            capacity,
            rows,
            cols,
            valid_rows,
            valid_cols,
            mask,
        } = self;
        let r = ctx.m.configure_predicate_tile(
            *index,
            *capacity,
            *rows,
            *cols,
            *valid_rows,
            *valid_cols,
            *mask,
        );
        ctx.setup(&format!("configuring predicate tile {index}"), r);
    }
}

#[derive(Debug)]
pub struct TileLocation {
    index: u32,
    location: String,
}

impl Operation for TileLocation {
    const NAME: &'static str = "tile-location";
    const FIELDS: &'static str = "`index`, `location`";
    const PRIMITIVE: &'static str = "`_Tiles[[i]].location = …` (descriptor corruption tests)";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            index: f.ranged("index", u32::MAX as u64)? as u32,
            location: f.named("location", LOCATIONS, "Any")?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { index, location } = self;
        let loc = pto::TileLocation::from_str(location).unwrap_or(pto::TileLocation::Any);
        if let Err(e) = ext::set_tile_location(&mut ctx.m, *index, loc) {
            ctx.fail("setting the tile location", e);
        }
    }
}

#[derive(Debug)]
pub struct Fault {
    code: String,
    addr: Option<u64>,
}

impl Operation for Fault {
    const NAME: &'static str = "fault";
    const FIELDS: &'static str = "`code`, `addr`?";
    const PRIMITIVE: &'static str =
        "SetFault (inject a pending fault state for tests that need one)";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            code: fault_name(f.string("code")?)?,
            addr: f.opt_num("addr")?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { code, addr } = self;
        ctx.m.set_fault(fault_from(code), *addr);
    }
}

#[derive(Debug)]
pub struct ClearFault;

impl Operation for ClearFault {
    const NAME: &'static str = "clear-fault";
    const FIELDS: &'static str = "";
    const PRIMITIVE: &'static str = "ClearFault";

    fn parse(_f: &mut Fields) -> Result<Self, String> {
        Ok(Self)
    }

    fn run(&self, ctx: &mut Runner) {
        ctx.m.clear_fault();
    }
}
