//! Expectations: each reads state the spec names and records a failure
//! when it differs; none changes the machine.

use super::Operation;
use crate::fields::*;
use crate::runner::*;
use pto::Machine;
use toml::Value;

/// `MaterializeSharedTile(id, mask).payload[[storage]] == value`.
#[derive(Debug)]
pub struct ExpectMaterialized {
    id: u8,
    mask: u8,
    storage: u64,
    value: ElementValue,
}

impl Operation for ExpectMaterialized {
    const NAME: &'static str = "expect-materialized";
    const FIELDS: &'static str = "`id`, `mask`, `storage`, `value` (number or `\"undefined\"` = UndefinedSharedTileWord(id, storage))";
    const PRIMITIVE: &'static str = "`MaterializeSharedTile(id, mask).payload[[storage]]` (fails when `SharedTileDescriptorLegal` does not hold)";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            id: f.ranged("id", 255)? as u8,
            mask: f.mask("mask")?,
            storage: f.num("storage")?,
            value: match f.get("value") {
                None => return Err("missing field `value`".into()),
                Some(Value::String(s)) if s == "undefined" => ElementValue::Undefined,
                Some(v) => ElementValue::Value(number(v).map_err(|e| format!("`value`: {e}"))?),
            },
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self {
            id,
            mask,
            storage,
            value,
        } = self;
        let Some(t) = ctx.m.materialize_shared_tile(*id, *mask) else {
            ctx.fail(
                format!("SharedTileDescriptorLegal(S{id})"),
                "no legal descriptor",
            );
            return;
        };
        if *storage >= t.payload.len() as u64 {
            ctx.fail(format!("storage index {storage} inside S{id}"), "outside");
            return;
        }
        let got = t.payload.get(*storage as usize);
        let want = match value {
            ElementValue::Value(v) => *v,
            ElementValue::Undefined => Machine::undefined_shared_tile_word(*id, *storage),
        };
        if got != want {
            ctx.fail(
                format!(
                    "MaterializeSharedTile(S{id}).payload[{storage}] = {}",
                    hex(want)
                ),
                hex(got),
            );
        }
    }
}

#[derive(Debug)]
pub struct ExpectMemory {
    addr: u64,
    bytes: Vec<u8>,
}

impl Operation for ExpectMemory {
    const NAME: &'static str = "expect-memory";
    const FIELDS: &'static str = "`addr`, `bytes`";
    const PRIMITIVE: &'static str = "every byte equals";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            addr: f.num("addr")?,
            bytes: f.bytes()?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { addr, bytes } = self;
        let mut got = Vec::new();
        for i in 0..bytes.len() {
            match ctx.m.read_memory_byte(addr.wrapping_add(i as u64)) {
                Ok(b) => got.push(b),
                Err(f) => {
                    ctx.fail(
                        format!("bytes {} at {}", bytes_str(bytes), hex(*addr)),
                        f.to_string(),
                    );
                    return;
                }
            }
        }
        if &got != bytes {
            ctx.fail(
                format!("bytes {} at {}", bytes_str(bytes), hex(*addr)),
                bytes_str(&got),
            );
        }
    }
}

#[derive(Debug)]
pub struct ExpectMemoryUndefinedShared {
    addr: u64,
    id: u8,
    index: u64,
}

impl Operation for ExpectMemoryUndefinedShared {
    const NAME: &'static str = "expect-memory-undefined-shared";
    const FIELDS: &'static str = "`addr`, `id`, `index`?";
    const PRIMITIVE: &'static str = "`_Memory[[a]] == UndefinedSharedTileWord(id, index)[7:0]`";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            addr: f.num("addr")?,
            id: f.ranged("id", 255)? as u8,
            index: f.opt_num("index")?.unwrap_or(0),
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { addr, id, index } = self;
        let want = (Machine::undefined_shared_tile_word(*id, *index) & 0xff) as u8;
        match ctx.m.read_memory_byte(*addr) {
            Ok(b) if b == want => {}
            Ok(b) => ctx.fail(
                format!(
                    "byte {want:02x} (UndefinedSharedTileWord({id}, {index})[7:0]) at {}",
                    hex(*addr)
                ),
                format!("{b:02x}"),
            ),
            Err(f) => ctx.fail(format!("byte {want:02x} at {}", hex(*addr)), f.to_string()),
        }
    }
}

#[derive(Debug)]
pub struct ExpectLoad {
    addr: u64,
    size: u32,
    value: u64,
}

impl Operation for ExpectLoad {
    const NAME: &'static str = "expect-load";
    const FIELDS: &'static str = "`addr`, `size`, `value`";
    const PRIMITIVE: &'static str = "LoadUnsigned(addr, size) equals `value`. Under `capture-events` it also records a Relaxed load event of the capture agent (`RecordLoadEvent` with `ResolveCapturedReadFrom`), as captured tile events do.";

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
        match ctx.m.scalar_load_unsigned(*addr, *size) {
            Ok(v) => ctx.check(
                &format!("LoadUnsigned({}, {size}) =", hex(*addr)),
                *value,
                v,
                |x| hex(*x),
            ),
            Err(f) => ctx.fail(
                format!("LoadUnsigned({}, {size}) = {}", hex(*addr), hex(*value)),
                f.to_string(),
            ),
        };
    }
}

#[derive(Debug)]
pub struct ExpectTileElement {
    tile: TileRef,
    at: ElementAt,
    value: Option<ElementValue>,
    defined: Option<bool>,
}

impl Operation for ExpectTileElement {
    const NAME: &'static str = "expect-tile-element";
    const FIELDS: &'static str = "one of `binding` (n: destination tile of bundle binding n), `index` (tile), `shared` (id); `row` and `col`, or `storage` (raw payload index, or the packed element index of a `shared` tile, the only way to address a Shared register without a valid descriptor); `value` (a number or `\"undefined\"`) and/or `defined`";
    const PRIMITIVE: &'static str = "ReadTileElement / ReadSharedTileWord (a `shared` tile by TileLogicalLinearIndex(descriptor, row, col): RowMajor, ColumnMajor, ZN, NZ as the ASL has them); `tile.payload[[k]]`, `defined_elements[k]`, UndefinedSharedTileWord";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        {
            let tile = f.tile_ref()?;
            let storage = f.opt_num("storage")?;
            let row = f.opt_num("row")?;
            let col = f.opt_num("col")?;
            let at = match (storage, row, col) {
                (Some(s), None, None) => ElementAt::Storage(s),
                (None, Some(r), Some(c)) => ElementAt::RowCol(r, c),
                (None, _, _) => return Err("missing field `row`/`col` (or give `storage`)".into()),
                _ => return Err("give `row` and `col`, or `storage`, not both".into()),
            };
            let value = match f.get("value") {
                None => None,
                Some(Value::String(s)) if s == "undefined" => Some(ElementValue::Undefined),
                Some(v) => Some(ElementValue::Value(
                    number(v).map_err(|e| format!("`value`: {e}"))?,
                )),
            };
            let defined = f.opt_bool("defined")?;
            if value.is_none() && defined.is_none() {
                return Err("missing field `value` (or `defined`)".into());
            }
            Ok(Self {
                tile,
                at,
                value,
                defined,
            })
        }
    }

    fn run(&self, ctx: &mut Runner) {
        let Self {
            tile,
            at,
            value,
            defined,
        } = self;
        ctx.expect_element(*tile, *at, *value, *defined);
    }
}

#[derive(Debug)]
pub struct ExpectTile {
    tile: TileRef,
    expect: Box<TileExpect>,
}

impl Operation for ExpectTile {
    const NAME: &'static str = "expect-tile";
    const FIELDS: &'static str = "`binding` / `index` / `shared`, then any of `allocated`, `capacity`, `rows`, `cols`, `valid_rows`, `valid_cols`, `dtype`, `layout`, `location`, `contents_defined`, `defined_valid_elements`, `allocation_mask`, `initialized_mask`, `descriptor_valid`, `fully_initialized`, `allocated_by_bundle`";
    const PRIMITIVE: &'static str =
        "`_Tiles[[i]]`, `SharedTileRecord(id)`, `_TileAllocationMasks`, `_BundleTileBindings[[n]]`";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        {
            let tile = f.tile_ref()?;
            let e = TileExpect {
                allocated: f.opt_bool("allocated")?,
                capacity: f.opt_num("capacity")?,
                rows: f.opt_num("rows")?,
                cols: f.opt_num("cols")?,
                valid_rows: f.opt_num("valid_rows")?,
                valid_cols: f.opt_num("valid_cols")?,
                dtype: match f.opt_string("dtype")? {
                    Some(d) => {
                        check_name(&d, DTYPES, "dtype")?;
                        Some(d)
                    }
                    None => None,
                },
                layout: match f.opt_string("layout")? {
                    Some(d) => {
                        check_name(&d, LAYOUTS, "layout")?;
                        Some(d)
                    }
                    None => None,
                },
                location: match f.opt_string("location")? {
                    Some(d) => {
                        check_name(&d, LOCATIONS, "location")?;
                        Some(d)
                    }
                    None => None,
                },
                contents_defined: f.opt_bool("contents_defined")?,
                defined_valid_elements: f.opt_num("defined_valid_elements")?,
                allocation_mask: f.opt_mask("allocation_mask")?,
                initialized_mask: f.opt_mask("initialized_mask")?,
                descriptor_valid: f.opt_bool("descriptor_valid")?,
                fully_initialized: f.opt_bool("fully_initialized")?,
                allocated_by_bundle: f.opt_bool("allocated_by_bundle")?,
            };
            if e == TileExpect::default() {
                return Err(
                    "`expect-tile` checks nothing: give at least one descriptor field".into(),
                );
            }
            Ok(Self {
                tile,
                expect: Box::new(e),
            })
        }
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { tile, expect } = self;
        ctx.expect_tile(*tile, expect);
    }
}

#[derive(Debug)]
pub struct ExpectFault {
    code: String,
}

impl Operation for ExpectFault {
    const NAME: &'static str = "expect-fault";
    const FIELDS: &'static str = "`code`";
    const PRIMITIVE: &'static str = "`_LastFault` equals (`Fault_None` when none)";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            code: fault_name(f.string("code")?)?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { code } = self;
        let got = ctx.m.last_fault();
        ctx.check("_LastFault", fault_from(code), got, |f| f.to_string());
    }
}

#[derive(Debug)]
pub struct ExpectFaultAddress {
    addr: u64,
}

impl Operation for ExpectFaultAddress {
    const NAME: &'static str = "expect-fault-address";
    const FIELDS: &'static str = "`addr`";
    const PRIMITIVE: &'static str = "`_FaultAddress`";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            addr: f.num("addr")?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { addr } = self;
        let got = ctx.m.fault_address();
        ctx.check("_FaultAddress", *addr, got, |x| hex(*x));
    }
}

#[derive(Debug)]
pub struct ExpectCapacityInUse {
    bytes: u64,
}

impl Operation for ExpectCapacityInUse {
    const NAME: &'static str = "expect-capacity-in-use";
    const FIELDS: &'static str = "`bytes`";
    const PRIMITIVE: &'static str = "CoreTileCapacityInUse equals";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            bytes: f.num("bytes")?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { bytes } = self;
        let got = ctx.m.core_tile_capacity_in_use();
        ctx.check("CoreTileCapacityInUse", *bytes, got, |x| x.to_string());
    }
}

#[derive(Debug)]
pub struct ExpectEvents {
    count: u64,
}

impl Operation for ExpectEvents {
    const NAME: &'static str = "expect-events";
    const FIELDS: &'static str = "`count`";
    const PRIMITIVE: &'static str = "`_MemoryEventCount`";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            count: f.num("count")?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { count } = self;
        match ext::memory_event_count(&ctx.m) {
            Ok(n) => ctx.check("_MemoryEventCount", *count, n, |x| x.to_string()),
            Err(e) => ctx.fail(format!("_MemoryEventCount {count}"), e),
        };
    }
}

#[derive(Debug)]
pub struct ExpectEvent {
    n: u64,
    kind: Option<String>,
    addr: Option<u64>,
    size: Option<u64>,
    read_value: Option<u64>,
    write_value: Option<u64>,
    agent: Option<u64>,
    order: Option<pto::memory_model::Order>,
    read_from: Option<u64>,
    rank: Option<u64>,
}

impl Operation for ExpectEvent {
    const NAME: &'static str = "expect-event";
    const FIELDS: &'static str = "`n`, `kind`? (`load`, `store`, `atomic`), `addr`?, `size`?, `read_value`?, `write_value`?, `agent`?, `order`? (`Relaxed`…), `read_from`?, `rank`? (coherence rank)";
    const PRIMITIVE: &'static str = "`_MemoryEvents[[n]]`";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        {
            let n = f.num("n")?;
            let kind = f.opt_string("kind")?;
            if let Some(k) = &kind {
                if k != "load" && k != "store" && k != "atomic" {
                    return Err(format!("`kind` = `{k}`: want `load`, `store` or `atomic`"));
                }
            }
            Ok(Self {
                n,
                kind,
                addr: f.opt_num("addr")?,
                size: f.opt_num("size")?,
                read_value: f.opt_num("read_value")?,
                write_value: f.opt_num("write_value")?,
                agent: f.opt_num("agent")?,
                order: match f.opt_string("order")? {
                    None => None,
                    Some(s) => Some(pto::memory_model::Order::from_name(&s).ok_or_else(|| {
                        format!("`order` = `{s}`: want Relaxed, Acquire, Release or AcquireRelease")
                    })?),
                },
                read_from: f.opt_num("read_from")?,
                rank: f.opt_num("rank")?,
            })
        }
    }

    fn run(&self, ctx: &mut Runner) {
        let Self {
            n,
            kind,
            addr,
            size,
            read_value,
            write_value,
            agent,
            order,
            read_from,
            rank,
        } = self;
        match ext::memory_event(&ctx.m, *n) {
            Ok(Some(ev)) => {
                if let Some(a) = agent {
                    ctx.check(&format!("event {n} agent"), *a, ev.agent, |x| x.to_string());
                }
                if let Some(k) = kind {
                    ctx.check(
                        &format!("event {n} kind"),
                        k.clone(),
                        ev.kind.to_string(),
                        |s| s.clone(),
                    );
                }
                if let Some(a) = addr {
                    ctx.check(&format!("event {n} address"), *a, ev.address, |x| hex(*x));
                }
                if let Some(s) = size {
                    ctx.check(&format!("event {n} size"), *s, ev.size_bytes, |x| {
                        x.to_string()
                    });
                }
                if let Some(v) = read_value {
                    ctx.check(&format!("event {n} read value"), *v, ev.read_value, |x| {
                        hex(*x)
                    });
                }
                if let Some(v) = write_value {
                    ctx.check(&format!("event {n} write value"), *v, ev.write_value, |x| {
                        hex(*x)
                    });
                }
                if let Some(o) = order {
                    ctx.check(&format!("event {n} order"), *o, ev.order, |x| {
                        format!("MemoryOrder_{x:?}")
                    });
                }
                if let Some(r) = read_from {
                    ctx.check(&format!("event {n} read_from"), *r, ev.read_from, |x| {
                        x.to_string()
                    });
                }
                if let Some(r) = rank {
                    ctx.check(&format!("event {n} coherence_rank"), *r, ev.rank, |x| {
                        x.to_string()
                    });
                }
            }
            Ok(None) => ctx.fail(format!("memory event {n}"), "no such event"),
            Err(e) => ctx.fail(format!("memory event {n}"), e),
        };
    }
}

#[derive(Debug)]
pub struct ExpectBundleActive {
    value: bool,
}

impl Operation for ExpectBundleActive {
    const NAME: &'static str = "expect-bundle-active";
    const FIELDS: &'static str = "`value`";
    const PRIMITIVE: &'static str = "`_BundleActive`";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            value: f.bool("value")?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { value } = self;
        match ext::bundle_active(&ctx.m) {
            Ok(b) => ctx.check("_BundleActive", *value, b, |x| x.to_string()),
            Err(e) => ctx.fail(format!("_BundleActive {value}"), e),
        };
    }
}

#[derive(Debug)]
pub struct ExpectBindingCount {
    count: u64,
}

impl Operation for ExpectBindingCount {
    const NAME: &'static str = "expect-binding-count";
    const FIELDS: &'static str = "`count`";
    const PRIMITIVE: &'static str = "BundleTileBindingCount";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            count: f.num("count")?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { count } = self;
        match ext::bundle_tile_binding_count(&ctx.m) {
            Ok(n) => ctx.check("BundleTileBindingCount", *count, n, |x| x.to_string()),
            Err(e) => ctx.fail(format!("BundleTileBindingCount {count}"), e),
        };
    }
}

#[derive(Debug)]
pub struct ExpectSharedBindingCount {
    count: u64,
}

impl Operation for ExpectSharedBindingCount {
    const NAME: &'static str = "expect-shared-binding-count";
    const FIELDS: &'static str = "`count`";
    const PRIMITIVE: &'static str = "BundleSharedBindingCount";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            count: f.num("count")?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { count } = self;
        let n = ctx
            .m
            .bundle_state()
            .shared_bindings
            .iter()
            .filter(|b| b.valid)
            .count() as u64;
        ctx.check("BundleSharedBindingCount", *count, n, |x| x.to_string());
    }
}

#[derive(Debug)]
pub struct ExpectSharedBinding {
    n: u32,
    fields: BindingExpect,
}

impl Operation for ExpectSharedBinding {
    const NAME: &'static str = "expect-shared-binding";
    const FIELDS: &'static str =
        "`n` (0..3), any of `valid`, `size_code`, `pe_mask`, `consumed`, `shared_id`";
    const PRIMITIVE: &'static str = "`_BundleSharedBindings[[n]]`";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        {
            let n = f.ranged("n", 3)? as u32;
            let fields = BindingExpect {
                valid: f.opt_bool("valid")?,
                destination_valid: None,
                size: f.opt_ranged("size_code", 15)?,
                pe_mask: f.opt_mask("pe_mask")?,
                consumed: f.opt_bool("consumed")?,
                shared_id: f.opt_ranged("shared_id", 255)?,
            };
            if fields == BindingExpect::default() {
                return Err("missing field: one of `valid`, `size_code`, `pe_mask`, `consumed`, `shared_id`".into());
            }
            Ok(Self { n, fields })
        }
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { n, fields } = self;
        let b = ctx.m.bundle_state().shared_bindings[*n as usize];
        let mask = |m: &u8| format!("{m:04b}");
        let what = |f: &str| format!("_BundleSharedBindings[[{n}]].{f} =");
        if let Some(v) = fields.valid {
            ctx.check(&what("valid"), v, b.valid, |x| x.to_string());
        }
        if let Some(v) = fields.size {
            ctx.check(&what("size_code"), v, b.size_code as u64, |x| x.to_string());
        }
        if let Some(v) = fields.pe_mask {
            ctx.check(&what("pe_mask"), v, b.pe_mask, mask);
        }
        if let Some(v) = fields.consumed {
            ctx.check(&what("consumed"), v, b.consumed, |x| x.to_string());
        }
        if let Some(v) = fields.shared_id {
            ctx.check(&what("shared_id"), v, b.shared_id as u64, |x| x.to_string());
        }
    }
}

#[derive(Debug)]
pub struct ExpectBinding {
    n: u32,
    fields: BindingExpect,
}

impl Operation for ExpectBinding {
    const NAME: &'static str = "expect-binding";
    const FIELDS: &'static str =
        "`n` (0..15), any of `valid`, `destination_valid`, `destination_size`, `pe_mask`";
    const PRIMITIVE: &'static str = "`_BundleTileBindings[[n]]`";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        {
            let n = f.ranged("n", 15)? as u32;
            let fields = BindingExpect {
                valid: f.opt_bool("valid")?,
                destination_valid: f.opt_bool("destination_valid")?,
                size: f.opt_ranged("destination_size", 15)?,
                pe_mask: f.opt_mask("pe_mask")?,
                consumed: None,
                shared_id: None,
            };
            if fields == BindingExpect::default() {
                return Err("missing field: one of `valid`, `destination_valid`, `destination_size`, `pe_mask`".into());
            }
            Ok(Self { n, fields })
        }
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { n, fields } = self;
        let b = ctx.m.bundle_state().tile_bindings[*n as usize];
        let mask = |m: &u8| format!("{m:04b}");
        let what = |f: &str| format!("_BundleTileBindings[[{n}]].{f} =");
        if let Some(v) = fields.valid {
            ctx.check(&what("valid"), v, b.valid, |x| x.to_string());
        }
        if let Some(v) = fields.destination_valid {
            ctx.check(&what("destination_valid"), v, b.destination_valid, |x| {
                x.to_string()
            });
        }
        if let Some(v) = fields.size {
            ctx.check(
                &what("destination_size"),
                v,
                b.destination_size as u64,
                |x| x.to_string(),
            );
        }
        if let Some(v) = fields.pe_mask {
            ctx.check(&what("pe_mask"), v, b.pe_mask, mask);
        }
    }
}

#[derive(Debug)]
pub struct ExpectTrapContext {
    context: u32,
    valid: Option<bool>,
    allocated_by_bundle: Option<bool>,
}

impl Operation for ExpectTrapContext {
    const NAME: &'static str = "expect-trap-context";
    const FIELDS: &'static str = "`context`, `valid`?, `allocated_by_bundle`?";
    const PRIMITIVE: &'static str = "`_TrapContexts[[context]].valid`, `.bundle_tile_bindings[[0]].destination_allocated_by_bundle`";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            context: f.ranged("context", 255)? as u32,
            valid: f.opt_bool("valid")?,
            allocated_by_bundle: f.opt_bool("allocated_by_bundle")?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self {
            context,
            valid,
            allocated_by_bundle,
        } = self;
        match ext::trap_context(&ctx.m, *context) {
            Ok((v, a)) => {
                if let Some(want) = valid {
                    ctx.check(&format!("trap context {context} valid ="), *want, v, |x| {
                        x.to_string()
                    });
                }
                if let Some(want) = allocated_by_bundle {
                    ctx.check(
                        &format!(
                            "trap context {context} binding 0 destination_allocated_by_bundle ="
                        ),
                        *want,
                        a,
                        |x| x.to_string(),
                    );
                }
            }
            Err(e) => ctx.fail(format!("trap context {context}"), e),
        };
    }
}

#[derive(Debug)]
pub struct ExpectPredicate {
    name: String,
    args: Vec<PredArg>,
    value: PredValue,
}

impl Operation for ExpectPredicate {
    const NAME: &'static str = "expect-predicate";
    const FIELDS: &'static str =
        "`name`, `args`, `value` (bool, number, or an enumeration name such as `TilePad_Null`)";
    const PRIMITIVE: &'static str = "a contract predicate or state read of the ASL by name (`SharedStorePEMaskLegal`, `BundleCubeTransportDataAttributesLegal`, `CurrentBundlePadValue`, `CurrentBundleDataTypeCode`, `PackedTileLogicalCapacity`, `InstructionContractDataTypeLegal_<OP>` for TLOAD/TSTORE/TPREFETCH (a DataType code) and TAND/TOR/TXOR/TANDS/TORS/TXORS/TSEL/TSELS/TROWEXPAND/TCOLEXPAND/TEXPANDS/TFILLPAD/TEXTRACT/TINSERT/TTRANS/TIMG2COL/GMOV (a DataType name or code), `_BundleScalarBindings[[0]].valid`, `_BundleBodyActive`, `_BundleOperation.selector`, …; over the hand-built candidate, `MemoryCandidateExecutionValid`, `MemoryExecutionAllowedTSO`, `CandidateEventCount`, `CandidateFenceCount` run the PTO-TSO checker (asl/arch/memory-model/ordering.asl); captured TLOAD/TSTORE events are not fed to it)";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        {
            let name = f.string("name")?;
            let args = match f.get("args") {
                None => Vec::new(),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|v| match v {
                        Value::String(s)
                            if s.chars().all(|c| c == '0' || c == '1') && !s.is_empty() =>
                        {
                            u64::from_str_radix(s, 2)
                                .map(PredArg::Num)
                                .map_err(|_| format!("bad bit string `{s}`"))
                        }
                        Value::String(s) if s.starts_with(|c: char| c.is_ascii_digit()) => {
                            parse_number_str(s).map(PredArg::Num)
                        }
                        Value::String(s) => Ok(PredArg::Name(s.clone())),
                        Value::Boolean(b) => Ok(PredArg::Num(*b as u64)),
                        other => number(other).map(PredArg::Num),
                    })
                    .collect::<Result<_, _>>()
                    .map_err(|e| format!("`args`: {e}"))?,
                Some(_) => return Err("`args` must be an array".into()),
            };
            let value = match f.req("value")? {
                Value::Boolean(b) => PredValue::Bool(*b),
                Value::String(s) if !s.starts_with(|c: char| c.is_ascii_digit()) => {
                    PredValue::Name(s.clone())
                }
                v => PredValue::Num(number(v).map_err(|e| format!("`value`: {e}"))?),
            };
            Ok(Self { name, args, value })
        }
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { name, args, value } = self;
        let c = ctx.m.memory_candidate();
        let candidate = match name.as_str() {
            "MemoryCandidateExecutionValid" => Some(Ok(PredValue::Bool(c.valid()))),
            "MemoryExecutionAllowedTSO" => Some(Ok(PredValue::Bool(c.allowed_tso()))),
            "CandidateEventCount" => Some(Ok(PredValue::Num(c.events.len() as u64))),
            "CandidateFenceCount" => Some(Ok(PredValue::Num(
                c.events
                    .iter()
                    .filter(|e| e.kind == pto::memory_model::Kind::Fence)
                    .count() as u64,
            ))),
            _ => None,
        };
        match candidate.unwrap_or_else(|| ext::predicate(&ctx.m, name, args)) {
            Ok(got) => {
                if got != *value {
                    ctx.fail(
                        format!("{name}({}) = {}", args_str(args), pred_str(value)),
                        pred_str(&got),
                    );
                }
            }
            Err(e) => ctx.fail(
                format!("{name}({}) = {}", args_str(args), pred_str(value)),
                e,
            ),
        }
    }
}

/// The resolved operands of the last TLOAD/TSTORE (BundleTileInstructionOperands):
/// base address, row stride in bytes and where the stride came from.
#[derive(Debug)]
pub struct ExpectTransfer {
    pe: Option<usize>,
    base: Option<u64>,
    /// TLOAD/TSTORE row stride in bytes.
    stride: Option<u64>,
    /// TPREFETCH row stride in elements.
    stride_elements: Option<u64>,
    source: Option<String>,
}

impl Operation for ExpectTransfer {
    const NAME: &'static str = "expect-transfer";
    const FIELDS: &'static str = "`pe`?, `base`?, `stride`? (bytes, TLOAD/TSTORE), `stride_elements`? (TPREFETCH), `source`? (`omitted`/`encoded`)";
    const PRIMITIVE: &'static str =
        "the resolved operands (BundleTileInstructionOperands) of the last TLOAD/TSTORE/TPREFETCH";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        {
            let pe = f.pe()?;
            let base = f.opt_num("base")?;
            let stride = f.opt_num("stride")?;
            let stride_elements = f.opt_num("stride_elements")?;
            let source = f.opt_string("source")?;
            if let Some(src) = &source {
                if src != "omitted" && src != "encoded" {
                    return Err(format!("`source` = `{src}`: want `omitted` or `encoded`"));
                }
            }
            if base.is_none() && stride.is_none() && stride_elements.is_none() && source.is_none() {
                return Err(
                    "`expect-transfer` checks nothing: give `base`, `stride`, `stride_elements` or `source`"
                        .into(),
                );
            }
            Ok(Self {
                pe,
                base,
                stride,
                stride_elements,
                source,
            })
        }
    }

    fn run(&self, ctx: &mut Runner) {
        let Self {
            pe,
            base,
            stride,
            stride_elements,
            source,
        } = self;
        let pe = pe.unwrap_or_else(|| ctx.m.current_pe());
        let Some(t) = ctx.last_transfers.iter().find(|t| t.pe == pe).cloned() else {
            ctx.fail(
                format!("a TLOAD/TSTORE transfer of PE{pe}"),
                "none recorded",
            );
            return;
        };
        if let Some(b) = base {
            ctx.check(&format!("PE{pe} base address"), *b, t.base, |x| hex(*x));
        }
        if let Some(st) = stride {
            if t.prefetch {
                ctx.fail(
                    format!("PE{pe} row_stride_bytes = {st}"),
                    "a TPREFETCH, whose row stride counts elements (`stride_elements`)",
                );
            } else {
                ctx.check(
                    &format!("PE{pe} row_stride_bytes"),
                    *st,
                    t.row_stride_bytes,
                    |x| x.to_string(),
                );
            }
        }
        if let Some(st) = stride_elements {
            if t.prefetch {
                ctx.check(
                    &format!("PE{pe} TPREFETCH row_stride_elements"),
                    *st,
                    t.row_stride_elements,
                    |x| x.to_string(),
                );
            } else {
                ctx.fail(
                    format!("PE{pe} row_stride_elements = {st}"),
                    "a TLOAD/TSTORE, whose row stride counts bytes (`stride`)",
                );
            }
        }
        if let Some(src) = source {
            let got = match t.stride_source {
                pto::machine::StrideSource::Omitted => "omitted",
                pto::machine::StrideSource::Encoded => "encoded",
            };
            ctx.check(
                &format!("PE{pe} stride source"),
                src.clone(),
                got.to_string(),
                |x| x.clone(),
            );
        }
    }
}

#[derive(Debug)]
pub struct ExpectDisasm {
    word: u32,
    contains: String,
}

impl Operation for ExpectDisasm {
    const NAME: &'static str = "expect-disasm";
    const FIELDS: &'static str = "`word`, `contains`";
    const PRIMITIVE: &'static str = "DecodeCommandForm, through `pto::asm::disassemble`";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            word: f.ranged("word", u32::MAX as u64)? as u32,
            contains: f.string("contains")?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { word, contains } = self;
        match pto::asm::disassemble(*word) {
            Ok(text) if text.contains(contains.as_str()) => {}
            Ok(text) => ctx.fail(
                format!(
                    "disassembly of {} to contain `{contains}`",
                    hex(*word as u64)
                ),
                format!("`{text}`"),
            ),
            Err(r) => ctx.fail(
                format!(
                    "disassembly of {} to contain `{contains}`",
                    hex(*word as u64)
                ),
                r.to_string(),
            ),
        };
    }
}
