//! Reading a step's fields: the [`Fields`] reader every operation's
//! `parse` uses (numbers in decimal or `0x` hex, byte strings, PE masks,
//! names checked against the spec's lists), and the small value types that
//! several operations share. A field no operation read is refused.

use toml::Value;

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

/// The fields of one `[[step]]` table, read by name; every field read is
/// remembered, so [`Fields::finish`] can refuse the ones no operation knows.
pub struct Fields<'a> {
    t: &'a toml::Table,
    used: Vec<&'static str>,
}

impl<'a> Fields<'a> {
    /// The fields of step table `t`.
    pub fn new(t: &'a toml::Table) -> Self {
        Fields {
            t,
            used: Vec::new(),
        }
    }

    pub fn get(&mut self, k: &'static str) -> Option<&'a Value> {
        self.used.push(k);
        self.t.get(k)
    }
    pub fn req(&mut self, k: &'static str) -> Result<&'a Value, String> {
        self.get(k).ok_or_else(|| format!("missing field `{k}`"))
    }
    pub fn num(&mut self, k: &'static str) -> Result<u64, String> {
        number(self.req(k)?).map_err(|e| format!("`{k}`: {e}"))
    }
    pub fn opt_num(&mut self, k: &'static str) -> Result<Option<u64>, String> {
        match self.get(k) {
            None => Ok(None),
            Some(v) => number(v).map(Some).map_err(|e| format!("`{k}`: {e}")),
        }
    }
    pub fn ranged(&mut self, k: &'static str, max: u64) -> Result<u64, String> {
        let v = self.num(k)?;
        if v > max {
            return Err(format!("`{k}` = {v} is out of range (0..={max})"));
        }
        Ok(v)
    }
    pub fn opt_ranged(&mut self, k: &'static str, max: u64) -> Result<Option<u64>, String> {
        match self.opt_num(k)? {
            Some(v) if v > max => Err(format!("`{k}` = {v} is out of range (0..={max})")),
            o => Ok(o),
        }
    }
    pub fn string(&mut self, k: &'static str) -> Result<String, String> {
        self.req(k)?
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("`{k}` must be a string"))
    }
    pub fn opt_string(&mut self, k: &'static str) -> Result<Option<String>, String> {
        match self.get(k) {
            None => Ok(None),
            Some(v) => v
                .as_str()
                .map(|s| Some(s.to_string()))
                .ok_or_else(|| format!("`{k}` must be a string")),
        }
    }
    pub fn opt_bool(&mut self, k: &'static str) -> Result<Option<bool>, String> {
        match self.get(k) {
            None => Ok(None),
            Some(v) => v
                .as_bool()
                .map(Some)
                .ok_or_else(|| format!("`{k}` must be true or false")),
        }
    }
    pub fn bool(&mut self, k: &'static str) -> Result<bool, String> {
        self.opt_bool(k)?
            .ok_or_else(|| format!("missing field `{k}`"))
    }
    pub fn mask(&mut self, k: &'static str) -> Result<u8, String> {
        parse_mask(&self.string(k)?).map_err(|e| format!("`{k}`: {e}"))
    }
    pub fn opt_mask(&mut self, k: &'static str) -> Result<Option<u8>, String> {
        match self.opt_string(k)? {
            None => Ok(None),
            Some(s) => parse_mask(&s).map(Some).map_err(|e| format!("`{k}`: {e}")),
        }
    }
    pub fn pe(&mut self) -> Result<Option<usize>, String> {
        Ok(self.opt_ranged("pe", 3)?.map(|v| v as usize))
    }
    pub fn bytes(&mut self) -> Result<Vec<u8>, String> {
        parse_bytes(&self.string("bytes")?).map_err(|e| format!("`bytes`: {e}"))
    }
    pub fn dtype(&mut self, k: &'static str) -> Result<String, String> {
        let d = self.string(k)?;
        check_name(&d, DTYPES, "dtype")?;
        Ok(d)
    }
    pub fn named(
        &mut self,
        k: &'static str,
        list: &[&str],
        default: &str,
    ) -> Result<String, String> {
        let v = self.opt_string(k)?.unwrap_or_else(|| default.to_string());
        check_name(&v, list, k)?;
        Ok(v)
    }
    pub fn exec_expect(&mut self) -> Result<ExecExpect, String> {
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
    pub fn tile_ref(&mut self) -> Result<TileRef, String> {
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
    pub fn pad_field(&mut self) -> Result<u8, String> {
        Ok(match self.named("pad", PAD_VALUES, "Null")?.as_str() {
            "Zero" => 0,
            "Max" => 1,
            "Min" => 2,
            _ => 3,
        })
    }

    pub fn tile_spec(&mut self, cube: bool) -> Result<TileSpec, String> {
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
    pub fn finish(self) -> Result<(), String> {
        for k in self.t.keys() {
            if k != "op" && !self.used.contains(&k.as_str()) {
                return Err(format!("unknown field `{k}`"));
            }
        }
        Ok(())
    }
}

/// `TilePadValue` names of the `mgather` op (B.DATR PadValue codes 0..3).
pub const PAD_VALUES: &[&str] = &["Zero", "Max", "Min", "Null"];

pub fn check_name(v: &str, list: &[&str], what: &str) -> Result<(), String> {
    if list.contains(&v) {
        Ok(())
    } else {
        Err(format!("unknown {what} `{v}` (one of: {})", list.join(" ")))
    }
}

/// A fault name as the spec spells it (`Fault_DataPage`), checked.
pub fn fault_name(s: String) -> Result<String, String> {
    match (s.starts_with("Fault_"), s.parse::<pto::Fault>()) {
        (true, Ok(_)) => Ok(s),
        _ => Err(format!(
            "unknown fault `{s}` (spec names such as `Fault_DataPage`)"
        )),
    }
}
