//! Scenario file parsing: TOML text to typed steps (format: `PTO-SCENARIO.md`).
//!
//! Every malformed input — bad TOML, unknown op, missing or unknown field,
//! value out of range, unknown dtype/layout/fault — is a [`ScenarioError`]
//! naming the step (1-based) and what is wrong. Nothing here panics.

use std::fmt;

use toml::Value;

/// A malformed scenario: file, optional 1-based step, reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    pub step: Option<usize>,
    pub reason: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.step {
            Some(n) => write!(f, "{}: step {}: {}", self.file, n, self.reason),
            None => write!(f, "{}: {}", self.file, self.reason),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Which tile an expectation reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TileRef {
    /// Destination tile of bundle binding n.
    Binding(u32),
    /// Tile register index.
    Index(u32),
    /// Shared tile S<id>.
    Shared(u8),
}

/// Expected element value: a number, or the architecturally undefined value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementValue {
    Value(u64),
    Undefined,
}

/// What an `execute` (or direct `tload`/`tstore`) step expects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecExpect {
    Completed,
    Fault(String),
    /// `any`: run it and check nothing about the outcome (for points that
    /// assert only operands or state).
    Any,
}

/// Expected result of `command`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandExpect {
    Executed,
    Rejected,
}

/// Source of a `command`: a raw word or assembly text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandSource {
    Word(u32),
    /// Assembly text and the words `pto::asm` assembled it to (at parse time).
    Asm(String, Vec<u32>),
}

/// Descriptor fields an `expect-tile` step may check (each optional).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TileExpect {
    pub allocated: Option<bool>,
    pub capacity: Option<u64>,
    pub rows: Option<u64>,
    pub cols: Option<u64>,
    pub valid_rows: Option<u64>,
    pub valid_cols: Option<u64>,
    pub dtype: Option<String>,
    pub layout: Option<String>,
    pub location: Option<String>,
    pub contents_defined: Option<bool>,
    pub defined_valid_elements: Option<u64>,
    pub allocation_mask: Option<u8>,
    pub initialized_mask: Option<u8>,
    pub descriptor_valid: Option<bool>,
    pub fully_initialized: Option<bool>,
    pub allocated_by_bundle: Option<bool>,
}

/// Tile configuration of `tile` / `cube-tile`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileSpec {
    pub index: u32,
    pub capacity: u64,
    pub rows: u64,
    pub cols: u64,
    pub valid_rows: u64,
    pub valid_cols: u64,
    pub dtype: String,
    pub layout: String,
    pub location: String,
    pub mask: Option<u8>,
}

/// Which `Add*Event` a `candidate-*` op is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CandidateKind {
    InitialWrite,
    Load,
    Store,
    /// `AddAtomicOutcomeEvent`: `value` is the value read, `write_value`
    /// the value written when `write_performed`.
    Atomic {
        write_value: u64,
        write_performed: bool,
    },
}

/// One typed step. Names follow the op strings of `PTO-SCENARIO.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    Reset,
    ResetBundle,
    /// `EnterBundleBody`.
    EnterBundleBody,
    Gpr {
        pe: Option<usize>,
        reg: u32,
        value: u64,
    },
    Memory {
        addr: u64,
        bytes: Vec<u8>,
    },
    Store {
        addr: u64,
        size: u32,
        value: u64,
    },
    Tile(TileSpec),
    CubeTile(TileSpec),
    TileElement {
        index: u32,
        row: u64,
        col: u64,
        value: u64,
    },
    SharedTile {
        id: u8,
        from_tile: u32,
        mask: u8,
    },
    Dimension {
        index: u32,
        value: u64,
    },
    Command {
        source: CommandSource,
        expect: CommandExpect,
    },
    Execute {
        expect: ExecExpect,
    },
    TLoad {
        index: u32,
        base: u64,
        stride: u64,
        expect: ExecExpect,
    },
    TStore {
        index: u32,
        base: u64,
        stride: u64,
        expect: ExecExpect,
    },
    /// `MGATHER(index, base, indices, pad)`, or `MGATHER_MASK(index, base,
    /// indices, mask, pad)` with `mask`.
    MGather {
        index: u32,
        base: u64,
        indices: u32,
        mask: Option<u32>,
        pad: u8,
        expect: ExecExpect,
    },
    /// `MSCATTER(base, index, indices)`, or `MSCATTER_MASK(base, index,
    /// indices, mask)` with `mask`.
    MScatter {
        index: u32,
        base: u64,
        indices: u32,
        mask: Option<u32>,
        expect: ExecExpect,
    },
    /// `MGATHER_CAS(index, base, indices, expected, replacement, pad)`.
    MGatherCas {
        index: u32,
        base: u64,
        indices: u32,
        expected: u32,
        replacement: u32,
        pad: u8,
        expect: ExecExpect,
    },
    /// `AtomicUpdateSharedTile(id, _Tiles[[from_tile]] with edits, mask) == expect`.
    AtomicUpdateShared {
        id: u8,
        from_tile: u32,
        mask: u8,
        edits: crate::shared::SnapshotEdits,
        expect: bool,
    },
    /// `MaterializeSharedTile(id, mask).payload[[storage]] == value`.
    ExpectMaterialized {
        id: u8,
        mask: u8,
        storage: u64,
        value: ElementValue,
    },
    /// `ResetMemoryExecution`.
    ResetMemoryExecution,
    /// `AddInitialWriteEvent` / `AddLoadEvent` / `AddStoreEvent` into the
    /// hand-built candidate execution.
    CandidateEvent {
        kind: CandidateKind,
        agent: usize,
        addr: u64,
        size: u32,
        value: u64,
        order: crate::memory_model::Order,
        rank: u64,
    },
    /// `SetMemoryReadFrom(read, source)` in the candidate.
    CandidateReadFrom {
        read: usize,
        source: usize,
    },
    /// `SetBundleControlAttributeState(trap_enabled, atomic, acquire,
    /// release, far, dimension_reduction)`: the B.CATR state.
    ControlAttributes(crate::bundle::ControlAttributes),
    /// The direct `TLOADShared` with one base and stride for every PE.
    TLoadShared {
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
    },
    /// `ConfigurePredicateTileForMask(index, capacity, rows, cols,
    /// valid_rows, valid_cols, mask)`.
    PredicateTile {
        index: u32,
        capacity: u64,
        rows: u64,
        cols: u64,
        valid_rows: u64,
        valid_cols: u64,
        mask: u8,
    },
    /// `SetBundleScalarBinding(0, destination, source0, source1, source2, 3)`.
    ScalarBinding {
        destination: u32,
        sources: [u32; 3],
    },
    /// Local `TMOV(index, source)`.
    TMov {
        index: u32,
        source: u32,
        expect: ExecExpect,
    },
    /// `GMOV(index, source, peer_tid)`.
    GMov {
        index: u32,
        source: u32,
        peer_tid: u64,
        expect: ExecExpect,
    },
    /// `TPREFETCHAllPEs(base, row_stride_elements, valid_cols, valid_rows, cols, dtype)`.
    TPrefetch {
        base: u64,
        stride_elements: u64,
        valid_cols: u64,
        valid_rows: u64,
        cols: u64,
        dtype: String,
        expect: ExecExpect,
    },
    Fault {
        code: String,
        addr: Option<u64>,
    },
    ClearFault,
    CaptureEvents {
        pe: Option<usize>,
    },
    StopCapture,
    PadValue {
        pad: u8,
    },
    TileLocation {
        index: u32,
        location: String,
    },
    RecoverTrap {
        context: u32,
        expect: bool,
    },
    ExpectMemory {
        addr: u64,
        bytes: Vec<u8>,
    },
    ExpectMemoryUndefinedShared {
        addr: u64,
        id: u8,
        index: u64,
    },
    ExpectLoad {
        addr: u64,
        size: u32,
        value: u64,
    },
    ExpectTileElement {
        tile: TileRef,
        at: ElementAt,
        value: Option<ElementValue>,
        defined: Option<bool>,
    },
    ExpectTile {
        tile: TileRef,
        expect: Box<TileExpect>,
    },
    ExpectFault {
        code: String,
    },
    ExpectFaultAddress {
        addr: u64,
    },
    ExpectCapacityInUse {
        bytes: u64,
    },
    ExpectEvents {
        count: u64,
    },
    ExpectEvent {
        n: u64,
        kind: Option<String>,
        addr: Option<u64>,
        size: Option<u64>,
        read_value: Option<u64>,
        write_value: Option<u64>,
        agent: Option<u64>,
        order: Option<crate::memory_model::Order>,
        read_from: Option<u64>,
        rank: Option<u64>,
    },
    ExpectBundleActive {
        value: bool,
    },
    ExpectBindingCount {
        count: u64,
    },
    ExpectSharedBindingCount {
        count: u64,
    },
    ExpectBinding {
        n: u32,
        fields: BindingExpect,
    },
    ExpectSharedBinding {
        n: u32,
        fields: BindingExpect,
    },
    ExpectTrapContext {
        context: u32,
        valid: Option<bool>,
        allocated_by_bundle: Option<bool>,
    },
    ExpectPredicate {
        name: String,
        args: Vec<PredArg>,
        value: PredValue,
    },
    /// The resolved operands of the last TLOAD/TSTORE (BundleTileInstructionOperands):
    /// base address, row stride in bytes and where the stride came from.
    ExpectTransfer {
        pe: Option<usize>,
        base: Option<u64>,
        /// TLOAD/TSTORE row stride in bytes.
        stride: Option<u64>,
        /// TPREFETCH row stride in elements.
        stride_elements: Option<u64>,
        source: Option<String>,
    },
    ExpectDisasm {
        word: u32,
        contains: String,
    },
}

/// Fields of `expect-binding` / `expect-shared-binding` (each optional; at
/// least one given): `_BundleTileBindings[[n]]` / `_BundleSharedBindings[[n]]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BindingExpect {
    pub valid: Option<bool>,
    /// Tile bindings only.
    pub destination_valid: Option<bool>,
    /// `destination_size` (tile) or `size_code` (Shared).
    pub size: Option<u64>,
    pub pe_mask: Option<u8>,
    /// Shared bindings only.
    pub consumed: Option<bool>,
    /// Shared bindings only.
    pub shared_id: Option<u64>,
}

/// Where an element expectation reads: logical (row, col) or raw storage index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementAt {
    RowCol(u64, u64),
    Storage(u64),
}

/// Argument of `expect-predicate`: a number, a bit string, or a name (dtype…).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PredArg {
    Num(u64),
    Name(String),
}

/// Expected result of `expect-predicate`: a boolean, a number, or an
/// enumeration value by its ASL name (`TilePad_Null`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PredValue {
    Bool(bool),
    Num(u64),
    Name(String),
}

impl Op {
    /// The op string as written in the file.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Reset => "reset",
            Op::ResetBundle => "reset-bundle",
            Op::EnterBundleBody => "enter-bundle-body",
            Op::Gpr { .. } => "gpr",
            Op::Memory { .. } => "memory",
            Op::Store { .. } => "store",
            Op::Tile(_) => "tile",
            Op::CubeTile(_) => "cube-tile",
            Op::TileElement { .. } => "tile-element",
            Op::SharedTile { .. } => "shared-tile",
            Op::Dimension { .. } => "dimension",
            Op::Command { .. } => "command",
            Op::Execute { .. } => "execute",
            Op::TLoad { .. } => "tload",
            Op::TPrefetch { .. } => "tprefetch",
            Op::MGather { .. } => "mgather",
            Op::MScatter { .. } => "mscatter",
            Op::MGatherCas { .. } => "mgather-cas",
            Op::PredicateTile { .. } => "predicate-tile",
            Op::AtomicUpdateShared { .. } => "atomic-update-shared",
            Op::ExpectMaterialized { .. } => "expect-materialized",
            Op::ResetMemoryExecution => "reset-memory-execution",
            Op::CandidateEvent {
                kind: CandidateKind::InitialWrite,
                ..
            } => "candidate-initial-write",
            Op::CandidateEvent {
                kind: CandidateKind::Load,
                ..
            } => "candidate-load",
            Op::CandidateEvent {
                kind: CandidateKind::Store,
                ..
            } => "candidate-store",
            Op::CandidateEvent {
                kind: CandidateKind::Atomic { .. },
                ..
            } => "candidate-atomic",
            Op::CandidateReadFrom { .. } => "candidate-read-from",
            Op::ControlAttributes(_) => "control-attributes",
            Op::TLoadShared { .. } => "tload-shared",
            Op::GMov { .. } => "gmov",
            Op::TMov { .. } => "tmov",
            Op::ScalarBinding { .. } => "scalar-binding",
            Op::TStore { .. } => "tstore",
            Op::Fault { .. } => "fault",
            Op::ClearFault => "clear-fault",
            Op::CaptureEvents { .. } => "capture-events",
            Op::StopCapture => "stop-capture",
            Op::PadValue { .. } => "pad-value",
            Op::TileLocation { .. } => "tile-location",
            Op::RecoverTrap { .. } => "recover-trap",
            Op::ExpectMemory { .. } => "expect-memory",
            Op::ExpectMemoryUndefinedShared { .. } => "expect-memory-undefined-shared",
            Op::ExpectLoad { .. } => "expect-load",
            Op::ExpectTileElement { .. } => "expect-tile-element",
            Op::ExpectTile { .. } => "expect-tile",
            Op::ExpectFault { .. } => "expect-fault",
            Op::ExpectFaultAddress { .. } => "expect-fault-address",
            Op::ExpectCapacityInUse { .. } => "expect-capacity-in-use",
            Op::ExpectEvents { .. } => "expect-events",
            Op::ExpectEvent { .. } => "expect-event",
            Op::ExpectBundleActive { .. } => "expect-bundle-active",
            Op::ExpectBindingCount { .. } => "expect-binding-count",
            Op::ExpectSharedBinding { .. } => "expect-shared-binding",
            Op::ExpectSharedBindingCount { .. } => "expect-shared-binding-count",
            Op::ExpectBinding { .. } => "expect-binding",
            Op::ExpectTrapContext { .. } => "expect-trap-context",
            Op::ExpectPredicate { .. } => "expect-predicate",
            Op::ExpectTransfer { .. } => "expect-transfer",
            Op::ExpectDisasm { .. } => "expect-disasm",
        }
    }
}

/// A parsed scenario file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    pub file: String,
    pub name: Option<String>,
    pub description: Option<String>,
    pub memory_bytes: u64,
    pub steps: Vec<Op>,
}

/// The reference profile's PTO_MODEL_MEMORY_BYTES.
pub const DEFAULT_MEMORY_BYTES: u64 = 4096;

/// The spec's data type names (PTO-SCENARIO.md).
pub const DTYPES: &[&str] = &[
    "FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "HiF8", "E4M3", "E5M2", "E3M2", "E2M3",
    "E2M1X2", "E1M2X2", "E8M0", "HiF4X2", "S64", "S32", "S16", "S8", "S4X2", "U64", "U32", "U16",
    "U8", "U4X2",
];

/// Tile layouts the scenario format accepts (spec spelling without the `TileLayout_` prefix).
pub const LAYOUTS: &[&str] = &[
    "RowMajor",
    "ColumnMajor",
    "ZN",
    "NZ",
    "CUBE_M16",
    "CUBE_M32",
    "CUBE_N8",
];

/// Tile locations (spec spelling without the `TileLocation_` prefix).
pub const LOCATIONS: &[&str] = &["Vector", "Matrix", "Memory", "Any"];

/// Every step `op` a scenario may use, in the order `parse_step` matches
/// them (the scenario fuzz test generates each).
pub const OPS: &[&str] = &[
    "reset",
    "reset-bundle",
    "enter-bundle-body",
    "gpr",
    "memory",
    "store",
    "tile",
    "cube-tile",
    "tile-element",
    "shared-tile",
    "dimension",
    "command",
    "execute",
    "tload",
    "tstore",
    "mgather",
    "mscatter",
    "mgather-cas",
    "atomic-update-shared",
    "expect-materialized",
    "reset-memory-execution",
    "candidate-initial-write",
    "candidate-load",
    "candidate-store",
    "candidate-atomic",
    "candidate-read-from",
    "control-attributes",
    "tload-shared",
    "predicate-tile",
    "scalar-binding",
    "tmov",
    "gmov",
    "tprefetch",
    "fault",
    "clear-fault",
    "capture-events",
    "stop-capture",
    "pad-value",
    "tile-location",
    "recover-trap",
    "expect-memory",
    "expect-memory-undefined-shared",
    "expect-load",
    "expect-tile-element",
    "expect-tile",
    "expect-fault",
    "expect-fault-address",
    "expect-capacity-in-use",
    "expect-events",
    "expect-event",
    "expect-bundle-active",
    "expect-binding-count",
    "expect-shared-binding-count",
    "expect-shared-binding",
    "expect-binding",
    "expect-trap-context",
    "expect-predicate",
    "expect-transfer",
    "expect-disasm",
];

/// Parse a scenario's text. `file` is used in error messages only.
pub fn parse(file: &str, text: &str) -> Result<Scenario, ScenarioError> {
    let err = |step: Option<usize>, reason: String| ScenarioError {
        file: file.to_string(),
        step,
        reason,
    };
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        err(None, format!("bad TOML: {}", one_line(&e.to_string())))
    })?;
    let mut name = None;
    let mut description = None;
    let mut memory_bytes = DEFAULT_MEMORY_BYTES;
    let mut steps = Vec::new();
    for (key, value) in &table {
        match key.as_str() {
            "name" => {
                name = Some(
                    as_str(value)
                        .ok_or_else(|| err(None, "`name` must be a string".into()))?
                        .to_string(),
                )
            }
            "description" => {
                description = Some(
                    as_str(value)
                        .ok_or_else(|| err(None, "`description` must be a string".into()))?
                        .to_string(),
                )
            }
            "machine" => {
                let t = value
                    .as_table()
                    .ok_or_else(|| err(None, "`machine` must be a table".into()))?;
                for (k, v) in t {
                    match k.as_str() {
                        "memory_bytes" => {
                            memory_bytes = number(v)
                                .map_err(|r| err(None, format!("machine.memory_bytes: {r}")))?;
                            if memory_bytes == 0 {
                                return Err(err(
                                    None,
                                    "machine.memory_bytes must be nonzero".into(),
                                ));
                            }
                        }
                        other => return Err(err(None, format!("unknown field `machine.{other}`"))),
                    }
                }
            }
            "step" => {
                let arr = value.as_array().ok_or_else(|| {
                    err(None, "`step` must be an array of tables ([[step]])".into())
                })?;
                for (i, s) in arr.iter().enumerate() {
                    let t = s
                        .as_table()
                        .ok_or_else(|| err(Some(i + 1), "a step must be a table".into()))?;
                    steps.push(parse_step(t).map_err(|r| err(Some(i + 1), r))?);
                }
            }
            other => return Err(err(None, format!("unknown top-level key `{other}`"))),
        }
    }
    if steps.is_empty() {
        return Err(err(None, "no steps ([[step]] tables)".into()));
    }
    Ok(Scenario {
        file: file.to_string(),
        name,
        description,
        memory_bytes,
        steps,
    })
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn as_str(v: &Value) -> Option<&str> {
    v.as_str()
}

/// A number: TOML integer (non-negative) or string, decimal or `0x` hex.
pub fn number(v: &Value) -> Result<u64, String> {
    match v {
        Value::Integer(i) => {
            u64::try_from(*i).map_err(|_| format!("{i} is negative (values are unsigned)"))
        }
        Value::String(s) => parse_number_str(s),
        other => Err(format!("expected a number, got {}", other.type_str())),
    }
}

/// Parse decimal or `0x` hex text (underscores allowed) into u64.
pub fn parse_number_str(s: &str) -> Result<u64, String> {
    let t = s.trim().replace('_', "");
    let r = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16)
    } else {
        t.parse::<u64>()
    };
    r.map_err(|_| format!("`{s}` is not a number that fits in 64 bits"))
}

/// Hex byte pairs separated by spaces ("21 43").
pub fn parse_bytes(s: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for tok in s.split_whitespace() {
        if tok.len() != 2 {
            return Err(format!("`{tok}` is not a hex byte pair"));
        }
        out.push(
            u8::from_str_radix(tok, 16).map_err(|_| format!("`{tok}` is not a hex byte pair"))?,
        );
    }
    if out.is_empty() {
        return Err("`bytes` is empty".into());
    }
    Ok(out)
}

/// A 4-character PE mask bit string as the spec writes it ('1000' -> 0b1000).
pub fn parse_mask(s: &str) -> Result<u8, String> {
    if s.len() != 4 || !s.chars().all(|c| c == '0' || c == '1') {
        return Err(format!("mask `{s}` must be 4 characters of 0/1"));
    }
    u8::from_str_radix(s, 2).map_err(|_| format!("bad mask `{s}`"))
}

struct Fields<'a> {
    t: &'a toml::Table,
    used: Vec<&'static str>,
}

impl<'a> Fields<'a> {
    fn get(&mut self, k: &'static str) -> Option<&'a Value> {
        self.used.push(k);
        self.t.get(k)
    }
    fn req(&mut self, k: &'static str) -> Result<&'a Value, String> {
        self.get(k).ok_or_else(|| format!("missing field `{k}`"))
    }
    fn num(&mut self, k: &'static str) -> Result<u64, String> {
        number(self.req(k)?).map_err(|e| format!("`{k}`: {e}"))
    }
    fn opt_num(&mut self, k: &'static str) -> Result<Option<u64>, String> {
        match self.get(k) {
            None => Ok(None),
            Some(v) => number(v).map(Some).map_err(|e| format!("`{k}`: {e}")),
        }
    }
    fn ranged(&mut self, k: &'static str, max: u64) -> Result<u64, String> {
        let v = self.num(k)?;
        if v > max {
            return Err(format!("`{k}` = {v} is out of range (0..={max})"));
        }
        Ok(v)
    }
    fn opt_ranged(&mut self, k: &'static str, max: u64) -> Result<Option<u64>, String> {
        match self.opt_num(k)? {
            Some(v) if v > max => Err(format!("`{k}` = {v} is out of range (0..={max})")),
            o => Ok(o),
        }
    }
    fn string(&mut self, k: &'static str) -> Result<String, String> {
        self.req(k)?
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("`{k}` must be a string"))
    }
    fn opt_string(&mut self, k: &'static str) -> Result<Option<String>, String> {
        match self.get(k) {
            None => Ok(None),
            Some(v) => v
                .as_str()
                .map(|s| Some(s.to_string()))
                .ok_or_else(|| format!("`{k}` must be a string")),
        }
    }
    fn opt_bool(&mut self, k: &'static str) -> Result<Option<bool>, String> {
        match self.get(k) {
            None => Ok(None),
            Some(v) => v
                .as_bool()
                .map(Some)
                .ok_or_else(|| format!("`{k}` must be true or false")),
        }
    }
    fn bool(&mut self, k: &'static str) -> Result<bool, String> {
        self.opt_bool(k)?
            .ok_or_else(|| format!("missing field `{k}`"))
    }
    fn mask(&mut self, k: &'static str) -> Result<u8, String> {
        parse_mask(&self.string(k)?).map_err(|e| format!("`{k}`: {e}"))
    }
    fn opt_mask(&mut self, k: &'static str) -> Result<Option<u8>, String> {
        match self.opt_string(k)? {
            None => Ok(None),
            Some(s) => parse_mask(&s).map(Some).map_err(|e| format!("`{k}`: {e}")),
        }
    }
    fn pe(&mut self) -> Result<Option<usize>, String> {
        Ok(self.opt_ranged("pe", 3)?.map(|v| v as usize))
    }
    fn bytes(&mut self) -> Result<Vec<u8>, String> {
        parse_bytes(&self.string("bytes")?).map_err(|e| format!("`bytes`: {e}"))
    }
    fn dtype(&mut self, k: &'static str) -> Result<String, String> {
        let d = self.string(k)?;
        check_name(&d, DTYPES, "dtype")?;
        Ok(d)
    }
    fn named(&mut self, k: &'static str, list: &[&str], default: &str) -> Result<String, String> {
        let v = self.opt_string(k)?.unwrap_or_else(|| default.to_string());
        check_name(&v, list, k)?;
        Ok(v)
    }
    fn exec_expect(&mut self) -> Result<ExecExpect, String> {
        match self.opt_string("expect")?.as_deref() {
            None | Some("completed") => Ok(ExecExpect::Completed),
            Some("any") => Ok(ExecExpect::Any),
            Some(s) => match s.strip_prefix("fault:") {
                Some(f) => fault_name(f.to_string()).map(ExecExpect::Fault),
                None => Err(format!(
                    "`expect` = `{s}`: want `completed` or `fault:Fault_<Name>`"
                )),
            },
        }
    }
    fn tile_ref(&mut self) -> Result<TileRef, String> {
        let b = self.opt_ranged("binding", u32::MAX as u64)?;
        let i = self.opt_ranged("index", u32::MAX as u64)?;
        let s = self.opt_ranged("shared", 255)?;
        match (b, i, s) {
            (Some(b), None, None) => Ok(TileRef::Binding(b as u32)),
            (None, Some(i), None) => Ok(TileRef::Index(i as u32)),
            (None, None, Some(s)) => Ok(TileRef::Shared(s as u8)),
            (None, None, None) => Err("missing field: one of `binding`, `index`, `shared`".into()),
            _ => Err("give only one of `binding`, `index`, `shared`".into()),
        }
    }
    /// `pad` (`Zero`/`Max`/`Min`/`Null`, default `Null`) as its code.
    fn pad_field(&mut self) -> Result<u8, String> {
        Ok(match self.named("pad", PAD_VALUES, "Null")?.as_str() {
            "Zero" => 0,
            "Max" => 1,
            "Min" => 2,
            _ => 3,
        })
    }

    fn tile_spec(&mut self, cube: bool) -> Result<TileSpec, String> {
        let index = self.ranged("index", u32::MAX as u64)? as u32;
        let capacity = self.num("capacity")?;
        let rows = self.num("rows")?;
        let cols = self.num("cols")?;
        // ConfigureCubeTile takes the valid shape as rows/cols of the CUBE descriptor.
        let (valid_rows, valid_cols) = if cube {
            (rows, cols)
        } else {
            (self.num("valid_rows")?, self.num("valid_cols")?)
        };
        let dtype = self.dtype("dtype")?;
        let layout = self.named(
            "layout",
            LAYOUTS,
            if cube { "CUBE_M16" } else { "RowMajor" },
        )?;
        let location = self.named("location", LOCATIONS, if cube { "Matrix" } else { "Any" })?;
        let mask = self.opt_mask("mask")?;
        Ok(TileSpec {
            index,
            capacity,
            rows,
            cols,
            valid_rows,
            valid_cols,
            dtype,
            layout,
            location,
            mask,
        })
    }
    fn finish(self) -> Result<(), String> {
        for k in self.t.keys() {
            if k != "op" && !self.used.contains(&k.as_str()) {
                return Err(format!("unknown field `{k}`"));
            }
        }
        Ok(())
    }
}

/// `TilePadValue` names of the `mgather` op (B.DATR PadValue codes 0..3).
const PAD_VALUES: &[&str] = &["Zero", "Max", "Min", "Null"];

fn check_name(v: &str, list: &[&str], what: &str) -> Result<(), String> {
    if list.contains(&v) {
        Ok(())
    } else {
        Err(format!("unknown {what} `{v}` (one of: {})", list.join(" ")))
    }
}

fn parse_step(t: &toml::Table) -> Result<Op, String> {
    let op = t
        .get("op")
        .ok_or("missing field `op`")?
        .as_str()
        .ok_or("`op` must be a string")?;
    let mut f = Fields {
        t,
        used: Vec::new(),
    };
    let op = match op {
        "reset" => Op::Reset,
        "reset-bundle" => Op::ResetBundle,
        "enter-bundle-body" => Op::EnterBundleBody,
        "gpr" => Op::Gpr {
            pe: f.pe()?,
            reg: f.ranged("reg", 31)? as u32,
            value: f.num("value")?,
        },
        "memory" => Op::Memory {
            addr: f.num("addr")?,
            bytes: f.bytes()?,
        },
        "store" => {
            let addr = f.num("addr")?;
            let size = f.num("size")?;
            if ![1, 2, 4, 8].contains(&size) {
                return Err(format!("`size` = {size}: want 1, 2, 4 or 8"));
            }
            Op::Store {
                addr,
                size: size as u32,
                value: f.num("value")?,
            }
        }
        "tile" => Op::Tile(f.tile_spec(false)?),
        "cube-tile" => Op::CubeTile(f.tile_spec(true)?),
        "tile-element" => Op::TileElement {
            index: f.ranged("index", u32::MAX as u64)? as u32,
            row: f.num("row")?,
            col: f.num("col")?,
            value: f.num("value")?,
        },
        "shared-tile" => Op::SharedTile {
            id: f.ranged("id", 255)? as u8,
            from_tile: f.ranged("from_tile", u32::MAX as u64)? as u32,
            mask: f.mask("mask")?,
        },
        "dimension" => Op::Dimension {
            index: f.ranged("index", 2)? as u32,
            value: f.num("value")?,
        },
        "command" => {
            let word = f.opt_ranged("word", u32::MAX as u64)?;
            let asm = f.opt_string("asm")?;
            let source = match (word, asm) {
                (Some(w), None) => CommandSource::Word(w as u32),
                (None, Some(a)) => {
                    let words =
                        crate::asm::assemble(&a).map_err(|e| format!("`asm` = `{a}`: {e}"))?;
                    if words.is_empty() {
                        return Err(format!("`asm` = `{a}` assembles to no instruction"));
                    }
                    CommandSource::Asm(a, words)
                }
                (None, None) => return Err("missing field: one of `word`, `asm`".into()),
                _ => return Err("give only one of `word`, `asm`".into()),
            };
            let expect = match f.opt_string("expect")?.as_deref() {
                None | Some("executed") => CommandExpect::Executed,
                Some("rejected") => CommandExpect::Rejected,
                Some(s) => return Err(format!("`expect` = `{s}`: want `executed` or `rejected`")),
            };
            Op::Command { source, expect }
        }
        "execute" => Op::Execute {
            expect: f.exec_expect()?,
        },
        "tload" | "tstore" => {
            let index = f.ranged("index", u32::MAX as u64)? as u32;
            let base = f.num("base")?;
            let stride = f.num("stride")?;
            let expect = f.exec_expect()?;
            if op == "tload" {
                Op::TLoad {
                    index,
                    base,
                    stride,
                    expect,
                }
            } else {
                Op::TStore {
                    index,
                    base,
                    stride,
                    expect,
                }
            }
        }
        "mgather" => Op::MGather {
            index: f.ranged("index", u32::MAX as u64)? as u32,
            base: f.num("base")?,
            indices: f.ranged("indices", u32::MAX as u64)? as u32,
            mask: f.opt_ranged("mask", u32::MAX as u64)?.map(|m| m as u32),
            pad: f.pad_field()?,
            expect: f.exec_expect()?,
        },
        "mscatter" => Op::MScatter {
            index: f.ranged("index", u32::MAX as u64)? as u32,
            base: f.num("base")?,
            indices: f.ranged("indices", u32::MAX as u64)? as u32,
            mask: f.opt_ranged("mask", u32::MAX as u64)?.map(|m| m as u32),
            expect: f.exec_expect()?,
        },
        "mgather-cas" => Op::MGatherCas {
            index: f.ranged("index", u32::MAX as u64)? as u32,
            base: f.num("base")?,
            indices: f.ranged("indices", u32::MAX as u64)? as u32,
            expected: f.ranged("expected", u32::MAX as u64)? as u32,
            replacement: f.ranged("replacement", u32::MAX as u64)? as u32,
            pad: f.pad_field()?,
            expect: f.exec_expect()?,
        },
        "atomic-update-shared" => Op::AtomicUpdateShared {
            id: f.ranged("id", 255)? as u8,
            from_tile: f.ranged("from_tile", u32::MAX as u64)? as u32,
            mask: f.mask("mask")?,
            edits: crate::shared::SnapshotEdits {
                columns: f.opt_num("cols")?,
                valid_columns: f.opt_num("valid_cols")?,
                contents_defined: f.opt_bool("contents_defined")?,
                defined_valid_elements: f.opt_num("defined_valid_elements")?,
            },
            expect: f.opt_bool("expect")?.unwrap_or(true),
        },
        "expect-materialized" => Op::ExpectMaterialized {
            id: f.ranged("id", 255)? as u8,
            mask: f.mask("mask")?,
            storage: f.num("storage")?,
            value: match f.get("value") {
                None => return Err("missing field `value`".into()),
                Some(Value::String(s)) if s == "undefined" => ElementValue::Undefined,
                Some(v) => ElementValue::Value(number(v).map_err(|e| format!("`value`: {e}"))?),
            },
        },
        "reset-memory-execution" => Op::ResetMemoryExecution,
        "candidate-initial-write" | "candidate-load" | "candidate-store" | "candidate-atomic" => {
            let kind = match op {
                "candidate-initial-write" => CandidateKind::InitialWrite,
                "candidate-load" => CandidateKind::Load,
                "candidate-store" => CandidateKind::Store,
                _ => CandidateKind::Atomic {
                    write_value: f.num("write_value")?,
                    write_performed: f.bool("write_performed")?,
                },
            };
            let agent = if kind == CandidateKind::InitialWrite {
                0
            } else {
                f.ranged("agent", 3)? as usize
            };
            let addr = f.num("addr")?;
            let size = f.num("size")?;
            if ![1, 2, 4, 8].contains(&size) {
                return Err(format!("`size` = {size}: want 1, 2, 4 or 8"));
            }
            let value = f.num("value")?;
            let order = match f.opt_string("order")? {
                None => crate::memory_model::Order::Relaxed,
                Some(s) => crate::memory_model::Order::from_name(&s).ok_or_else(|| {
                    format!("`order` = `{s}`: want Relaxed, Acquire, Release or AcquireRelease")
                })?,
            };
            let rank = match kind {
                CandidateKind::Store | CandidateKind::Atomic { .. } => f.num("rank")?,
                _ => 0,
            };
            Op::CandidateEvent {
                kind,
                agent,
                addr,
                size: size as u32,
                value,
                order,
                rank,
            }
        }
        "candidate-read-from" => Op::CandidateReadFrom {
            read: f.ranged("read", u32::MAX as u64)? as usize,
            source: f.ranged("source", u32::MAX as u64)? as usize,
        },
        "control-attributes" => Op::ControlAttributes(crate::bundle::ControlAttributes {
            present: true,
            trap_enabled: f.bool("trap_enabled")?,
            atomic: f.bool("atomic")?,
            acquire: f.bool("acquire")?,
            release: f.bool("release")?,
            far: f.bool("far")?,
            dimension_reduction: f.bool("dimension_reduction")?,
        }),
        "tload-shared" => Op::TLoadShared {
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
        },
        "predicate-tile" => Op::PredicateTile {
            index: f.ranged("index", u32::MAX as u64)? as u32,
            capacity: f.num("capacity")?,
            rows: f.num("rows")?,
            cols: f.num("cols")?,
            valid_rows: f.num("valid_rows")?,
            valid_cols: f.num("valid_cols")?,
            mask: f.opt_mask("mask")?.unwrap_or(0b0001),
        },
        "scalar-binding" => Op::ScalarBinding {
            destination: f.opt_ranged("destination", 31)?.unwrap_or(0) as u32,
            sources: [
                f.opt_ranged("source0", 31)?.unwrap_or(0) as u32,
                f.opt_ranged("source1", 31)?.unwrap_or(0) as u32,
                f.opt_ranged("source2", 31)?.unwrap_or(0) as u32,
            ],
        },
        "tmov" => Op::TMov {
            index: f.ranged("index", u32::MAX as u64)? as u32,
            source: f.ranged("source", u32::MAX as u64)? as u32,
            expect: f.exec_expect()?,
        },
        "gmov" => Op::GMov {
            index: f.ranged("index", u32::MAX as u64)? as u32,
            source: f.ranged("source", u32::MAX as u64)? as u32,
            peer_tid: f.opt_num("peer_tid")?.unwrap_or(0),
            expect: f.exec_expect()?,
        },
        "tprefetch" => Op::TPrefetch {
            base: f.num("base")?,
            stride_elements: f.num("stride_elements")?,
            valid_cols: f.ranged("valid_cols", 65535)?,
            valid_rows: f.ranged("valid_rows", 65535)?,
            cols: f.ranged("cols", 65535)?,
            dtype: f.dtype("dtype")?,
            expect: f.exec_expect()?,
        },
        "fault" => Op::Fault {
            code: fault_name(f.string("code")?)?,
            addr: f.opt_num("addr")?,
        },
        "clear-fault" => Op::ClearFault,
        "capture-events" => Op::CaptureEvents { pe: f.pe()? },
        "stop-capture" => Op::StopCapture,
        "pad-value" => Op::PadValue {
            pad: f.ranged("pad", 3)? as u8,
        },
        "tile-location" => Op::TileLocation {
            index: f.ranged("index", u32::MAX as u64)? as u32,
            location: f.named("location", LOCATIONS, "Any")?,
        },
        "recover-trap" => Op::RecoverTrap {
            context: f.ranged("context", 255)? as u32,
            expect: f.opt_bool("expect")?.unwrap_or(true),
        },
        "expect-memory" => Op::ExpectMemory {
            addr: f.num("addr")?,
            bytes: f.bytes()?,
        },
        "expect-memory-undefined-shared" => Op::ExpectMemoryUndefinedShared {
            addr: f.num("addr")?,
            id: f.ranged("id", 255)? as u8,
            index: f.opt_num("index")?.unwrap_or(0),
        },
        "expect-load" => {
            let addr = f.num("addr")?;
            let size = f.num("size")?;
            if ![1, 2, 4, 8].contains(&size) {
                return Err(format!("`size` = {size}: want 1, 2, 4 or 8"));
            }
            Op::ExpectLoad {
                addr,
                size: size as u32,
                value: f.num("value")?,
            }
        }
        "expect-tile-element" => {
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
            Op::ExpectTileElement {
                tile,
                at,
                value,
                defined,
            }
        }
        "expect-tile" => {
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
            Op::ExpectTile {
                tile,
                expect: Box::new(e),
            }
        }
        "expect-fault" => Op::ExpectFault {
            code: fault_name(f.string("code")?)?,
        },
        "expect-fault-address" => Op::ExpectFaultAddress {
            addr: f.num("addr")?,
        },
        "expect-capacity-in-use" => Op::ExpectCapacityInUse {
            bytes: f.num("bytes")?,
        },
        "expect-events" => Op::ExpectEvents {
            count: f.num("count")?,
        },
        "expect-event" => {
            let n = f.num("n")?;
            let kind = f.opt_string("kind")?;
            if let Some(k) = &kind {
                if k != "load" && k != "store" && k != "atomic" {
                    return Err(format!("`kind` = `{k}`: want `load`, `store` or `atomic`"));
                }
            }
            Op::ExpectEvent {
                n,
                kind,
                addr: f.opt_num("addr")?,
                size: f.opt_num("size")?,
                read_value: f.opt_num("read_value")?,
                write_value: f.opt_num("write_value")?,
                agent: f.opt_num("agent")?,
                order: match f.opt_string("order")? {
                    None => None,
                    Some(s) => {
                        Some(crate::memory_model::Order::from_name(&s).ok_or_else(|| {
                            format!(
                                "`order` = `{s}`: want Relaxed, Acquire, Release or AcquireRelease"
                            )
                        })?)
                    }
                },
                read_from: f.opt_num("read_from")?,
                rank: f.opt_num("rank")?,
            }
        }
        "expect-bundle-active" => Op::ExpectBundleActive {
            value: f.bool("value")?,
        },
        "expect-binding-count" => Op::ExpectBindingCount {
            count: f.num("count")?,
        },
        "expect-shared-binding-count" => Op::ExpectSharedBindingCount {
            count: f.num("count")?,
        },
        "expect-shared-binding" => {
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
            Op::ExpectSharedBinding { n, fields }
        }
        "expect-binding" => {
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
            Op::ExpectBinding { n, fields }
        }
        "expect-trap-context" => Op::ExpectTrapContext {
            context: f.ranged("context", 255)? as u32,
            valid: f.opt_bool("valid")?,
            allocated_by_bundle: f.opt_bool("allocated_by_bundle")?,
        },
        "expect-predicate" => {
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
            Op::ExpectPredicate { name, args, value }
        }
        "expect-transfer" => {
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
            Op::ExpectTransfer {
                pe,
                base,
                stride,
                stride_elements,
                source,
            }
        }
        "expect-disasm" => Op::ExpectDisasm {
            word: f.ranged("word", u32::MAX as u64)? as u32,
            contains: f.string("contains")?,
        },
        other => return Err(format!("unknown op `{other}`")),
    };
    f.finish()?;
    Ok(op)
}

fn fault_name(s: String) -> Result<String, String> {
    match (s.starts_with("Fault_"), s.parse::<crate::Fault>()) {
        (true, Ok(_)) => Ok(s),
        _ => Err(format!(
            "unknown fault `{s}` (spec names such as `Fault_DataPage`)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_accept_integers_decimal_and_hex_strings() {
        assert_eq!(number(&Value::Integer(12)).unwrap(), 12);
        assert_eq!(number(&Value::String("0x320".into())).unwrap(), 0x320);
        assert_eq!(
            number(&Value::String("0x8000000000000002".into())).unwrap(),
            0x8000_0000_0000_0002
        );
        assert!(number(&Value::Integer(-1)).is_err());
        assert!(number(&Value::String("0x1_0000_0000_0000_0000".into())).is_err());
    }

    #[test]
    fn masks_read_as_the_spec_writes_them() {
        assert_eq!(parse_mask("1000").unwrap(), 8);
        assert_eq!(parse_mask("0011").unwrap(), 3);
        assert!(parse_mask("10").is_err());
        assert!(parse_mask("10a0").is_err());
    }

    #[test]
    fn every_listed_op_is_one_parse_accepts() {
        for op in OPS {
            let r = parse("f.toml", &format!("[[step]]\nop = \"{op}\"\n"));
            if let Err(e) = r {
                assert!(!e.to_string().contains("unknown op"), "{op}: {e}");
            }
        }
    }

    #[test]
    fn malformed_steps_name_the_step_and_reason() {
        let e = parse(
            "f.toml",
            "[[step]]\nop = \"reset\"\n[[step]]\nop = \"bogus\"\n",
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "f.toml: step 2: unknown op `bogus`");
        let e = parse("f.toml", "[[step]]\nop = \"gpr\"\nreg = 2\n").unwrap_err();
        assert_eq!(e.to_string(), "f.toml: step 1: missing field `value`");
        let e = parse("f.toml", "[[step]]\nop = \"gpr\"\nreg = 40\nvalue = 1\n").unwrap_err();
        assert!(e.to_string().contains("out of range"), "{e}");
        let e = parse("f.toml", "[[step]]\nop = \"tile\"\nindex=0\ncapacity=128\nrows=1\ncols=1\nvalid_rows=1\nvalid_cols=1\ndtype=\"U3\"\n")
            .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("f.toml: step 1: unknown dtype `U3`"),
            "{e}"
        );
        let e = parse("f.toml", "[[step]\n").unwrap_err();
        assert!(e.to_string().starts_with("f.toml: bad TOML"), "{e}");
        let e = parse("f.toml", "[[step]]\nop = \"reset\"\nextra = 1\n").unwrap_err();
        assert_eq!(e.to_string(), "f.toml: step 1: unknown field `extra`");
    }

    #[test]
    fn the_documented_example_parses() {
        let s = parse(
            "ex.toml",
            "name = \"x\"\n[[step]]\nop = \"memory\"\naddr = \"0x320\"\nbytes = \"21 43\"\n[[step]]\nop = \"command\"\nword = \"0xe0111181\"\n[[step]]\nop = \"execute\"\nexpect = \"fault:Fault_DataPage\"\n",
        )
        .unwrap();
        assert_eq!(s.memory_bytes, 4096);
        assert_eq!(
            s.steps[0],
            Op::Memory {
                addr: 0x320,
                bytes: vec![0x21, 0x43]
            }
        );
        assert_eq!(
            s.steps[1],
            Op::Command {
                source: CommandSource::Word(0xe011_1181),
                expect: CommandExpect::Executed
            }
        );
        assert_eq!(
            s.steps[2],
            Op::Execute {
                expect: ExecExpect::Fault("Fault_DataPage".into())
            }
        );
    }
}
