//! Running a scenario: each step's operation calls the model primitive it
//! names, every expectation that does not hold becomes a [`StepFailure`]
//! and the run goes on, so one run lists every failure.
//!
//! After each TLOAD/TSTORE (bundle `execute` or a direct primitive) the GM
//! access log of the model is analysed for the beyond-the-spec reports of
//! [`crate::report`] and kept for the footprint.

use std::str::FromStr;

use crate::fields::{
    ElementAt, ElementValue, ExecExpect, PredArg, PredValue, TileExpect, TileRef, TileSpec,
};
use crate::report::{analyse_transfer, StrideInfo, TransferContext, Warning};
use pto::{DataType, Fault, GmAccess, Machine, TileConfig, TileLayout, TileLocation};

/// Options of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// What-if: the superseded pre-ADR-0074 element-unit row stride.
    /// Never the default; for diffing the footprint of an old binary.
    pub element_stride: bool,
}

/// One expectation that did not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepFailure {
    /// 1-based step number.
    pub step: usize,
    pub op: &'static str,
    pub expected: String,
    pub got: String,
}

/// The GM accesses of one TLOAD/TSTORE step, for the footprint picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transfer {
    pub step: usize,
    pub op: &'static str,
    pub accesses: Vec<GmAccess>,
}

/// Result of running one scenario file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileReport {
    pub file: String,
    pub name: Option<String>,
    pub steps_run: usize,
    pub failures: Vec<StepFailure>,
    pub warnings: Vec<Warning>,
    pub transfers: Vec<Transfer>,
}

impl FileReport {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// `FILE: step N (OP): expected …, got …`, one line per failure.
    pub fn failure_lines(&self) -> Vec<String> {
        self.failures
            .iter()
            .map(|f| {
                format!(
                    "{}: step {} ({}): expected {}, got {}",
                    self.file, f.step, f.op, f.expected, f.got
                )
            })
            .collect()
    }

    /// `FILE: step N (OP): message`, one line per warning.
    pub fn warning_lines(&self) -> Vec<String> {
        self.warnings
            .iter()
            .map(|w| format!("{}: step {} ({}): {}", self.file, w.step, w.op, w.message))
            .collect()
    }
}

/// The state of one run: the model, the report so far, and where it is.
/// Operations run against it (`crate::ops::Operation::run`).
pub struct Runner {
    pub(crate) m: Machine,
    pub(crate) report: FileReport,
    pub(crate) step: usize,
    pub(crate) op: &'static str,
    /// Transfer records of the last TLOAD/TSTORE, for `expect-transfer`.
    pub(crate) last_transfers: Vec<pto::machine::TransferInfo>,
}

pub(crate) fn hex(v: u64) -> String {
    format!("{v:#x}")
}

pub(crate) fn mask_str(m: u8) -> String {
    format!("{:04b}", m & 0xf)
}

pub(crate) fn bytes_str(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

pub(crate) fn fault_from(name: &str) -> Fault {
    // Names were validated at parse time.
    Fault::from_str(name).unwrap_or(Fault::None)
}

pub(crate) fn tile_config(spec: &TileSpec) -> Result<TileConfig, String> {
    Ok(TileConfig {
        capacity: spec.capacity,
        rows: spec.rows,
        cols: spec.cols,
        valid_rows: spec.valid_rows,
        valid_cols: spec.valid_cols,
        dtype: DataType::from_str(&spec.dtype).map_err(|e| e.to_string())?,
        layout: TileLayout::from_str(&spec.layout).map_err(|e| e.to_string())?,
        location: TileLocation::from_str(&spec.location).map_err(|e| e.to_string())?,
        mask: spec.mask,
    })
}

impl Runner {
    /// A run of file `file` (scenario `name`) on a fresh machine of
    /// `memory_bytes` of GM.
    pub(crate) fn new(
        file: &str,
        name: Option<&str>,
        memory_bytes: u64,
        opts: RunOptions,
    ) -> Runner {
        let mut m = Machine::new(memory_bytes);
        m.set_element_stride_mode(opts.element_stride);
        Runner {
            m,
            report: FileReport {
                file: file.to_string(),
                name: name.map(str::to_string),
                steps_run: 0,
                failures: Vec::new(),
                warnings: Vec::new(),
                transfers: Vec::new(),
            },
            step: 0,
            last_transfers: Vec::new(),
            op: "",
        }
    }

    /// Step `step` (1-based), of operation `op`, is next.
    pub(crate) fn begin_step(&mut self, step: usize, op: &'static str) {
        self.step = step;
        self.op = op;
    }

    /// The step has run.
    pub(crate) fn end_step(&mut self) {
        self.report.steps_run += 1;
    }

    /// The report, and the machine as the last step left it.
    pub(crate) fn finish(self) -> (FileReport, Machine) {
        (self.report, self.m)
    }

    pub(crate) fn fail(&mut self, expected: impl Into<String>, got: impl Into<String>) {
        self.report.failures.push(StepFailure {
            step: self.step,
            op: self.op,
            expected: expected.into(),
            got: got.into(),
        });
    }

    pub(crate) fn check<T: PartialEq>(
        &mut self,
        what: &str,
        expected: T,
        got: T,
        show: impl Fn(&T) -> String,
    ) {
        if expected != got {
            let (e, g) = (show(&expected), show(&got));
            self.fail(format!("{what} {e}"), g);
        }
    }

    pub(crate) fn setup<T>(&mut self, what: &str, r: Result<T, Fault>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(f) => {
                self.fail(format!("{what} to succeed"), f.to_string());
                None
            }
        }
    }

    pub(crate) fn check_exec(&mut self, expect: &ExecExpect, completed: bool) {
        let fault = self.m.last_fault();
        let got = if completed {
            "completed".to_string()
        } else {
            format!("fault:{fault}")
        };
        match expect {
            ExecExpect::Any => {}
            ExecExpect::Completed if !completed => self.fail("completed", got),
            ExecExpect::Fault(f) if completed || fault != fault_from(f) => {
                self.fail(format!("fault:{f}"), got)
            }
            _ => {}
        }
    }

    /// Analyse the access log and transfer records of the TLOAD/TSTORE that just ran.
    pub(crate) fn after_transfer(&mut self) {
        let accesses = self.m.take_accesses();
        self.last_transfers = self.m.take_transfers();
        let strides: Vec<StrideInfo> = self
            .last_transfers
            .iter()
            .map(|t| StrideInfo {
                pe: t.pe,
                element_bits: t.data_type.element_bits() as u64,
                physical_columns: t.physical_columns,
                valid_rows: t.valid_rows,
                valid_columns: t.valid_columns,
                row_stride_bytes: t.row_stride_bytes,
                prefetch: t.prefetch,
                row_stride_elements: t.row_stride_elements,
                encoded: t.stride_source == pto::machine::StrideSource::Encoded,
            })
            .collect();
        let ctx = TransferContext {
            step: self.step,
            op: self.op,
        };
        self.report
            .warnings
            .extend(analyse_transfer(&ctx, &accesses, &strides));
        if !accesses.is_empty() {
            self.report.transfers.push(Transfer {
                step: self.step,
                op: self.op,
                accesses,
            });
        }
    }

    pub(crate) fn resolve_local(&mut self, tile: TileRef) -> Option<u32> {
        match tile {
            TileRef::Index(i) => Some(i),
            TileRef::Binding(b) => {
                let t = self.m.bundle_destination_tile(b);
                if t.is_none() {
                    self.fail(format!("binding {b} to have a destination tile"), "none");
                }
                t
            }
            TileRef::Shared(_) => None,
        }
    }

    pub(crate) fn expect_element(
        &mut self,
        tile: TileRef,
        at: ElementAt,
        value: Option<ElementValue>,
        defined: Option<bool>,
    ) {
        let got: Result<Option<u64>, String> = match (tile, at) {
            (TileRef::Shared(id), ElementAt::Storage(i)) => {
                self.m
                    .read_shared_tile_word(id, i)
                    .map_err(|f| f.to_string())
                    .map(|v| match v {
                        // The model may spell an undefined word as the UndefinedSharedTileWord value.
                        Some(w) if w == Machine::undefined_shared_tile_word(id, i) => None,
                        o => o,
                    })
            }
            (TileRef::Shared(id), ElementAt::RowCol(r, c)) => {
                // ReadSharedTileWord(id, TileLogicalLinearIndex(shared.tile, row, col)):
                // the mapping needs the Shared descriptor; without one only
                // `storage` (the raw element index) addresses the word.
                let rec = self.m.shared_tile_record(id);
                if !rec.descriptor_valid {
                    Err(format!(
                        "S{id} has no valid descriptor to map (row, col); address it by `storage`"
                    ))
                } else {
                    match rec.tile.element_index(r, c) {
                        None => Err(format!(
                            "({r}, {c}) outside S{id}'s {}x{} descriptor",
                            rec.tile.rows, rec.tile.columns
                        )),
                        Some(e) => self
                            .m
                            .read_shared_tile_word(id, e as u64)
                            .map_err(|f| f.to_string())
                            .map(|v| match v {
                                Some(w)
                                    if w == Machine::undefined_shared_tile_word(id, e as u64) =>
                                {
                                    None
                                }
                                o => o,
                            }),
                    }
                }
            }
            (t, at) => {
                let Some(index) = self.resolve_local(t) else {
                    return;
                };
                match at {
                    ElementAt::RowCol(r, c) => self
                        .m
                        .read_tile_element(index, r, c)
                        .map_err(|f| f.to_string()),
                    ElementAt::Storage(s) => match self.m.tile_payload(index, s) {
                        Some((v, true)) => Ok(Some(v)),
                        Some((_, false)) => Ok(None),
                        None => Err(format!("storage index {s} outside tile {index}")),
                    },
                }
            }
        };
        let place = match at {
            ElementAt::RowCol(r, c) => format!("({r}, {c})"),
            ElementAt::Storage(s) => format!("[{s}]"),
        };
        let got = match got {
            Ok(v) => v,
            Err(e) => {
                self.fail(format!("element {place} readable"), e);
                return;
            }
        };
        let got_s = got.map(hex).unwrap_or_else(|| "undefined".into());
        match value {
            Some(ElementValue::Value(v)) if got != Some(v) => {
                self.fail(format!("element {place} = {}", hex(v)), got_s.clone())
            }
            Some(ElementValue::Undefined) if got.is_some() => {
                self.fail(format!("element {place} undefined"), got_s.clone())
            }
            _ => {}
        }
        if let Some(d) = defined {
            if got.is_some() != d {
                self.fail(
                    format!(
                        "element {place} {}",
                        if d { "defined" } else { "undefined" }
                    ),
                    got_s,
                );
            }
        }
    }

    pub(crate) fn expect_tile(&mut self, tile: TileRef, e: &TileExpect) {
        // destination_allocated_by_bundle is a binding property: it is answered
        // even when the binding published no destination tile.
        if let Some(v) = e.allocated_by_bundle {
            let binding = match tile {
                TileRef::Binding(b) => b,
                _ => 0,
            };
            match ext::destination_allocated_by_bundle(&self.m, binding) {
                Ok(g) => self.check(
                    &format!("binding {binding} destination_allocated_by_bundle ="),
                    v,
                    g,
                    |x| x.to_string(),
                ),
                Err(err) => self.fail(
                    format!("binding {binding} destination_allocated_by_bundle = {v}"),
                    err,
                ),
            }
            let rest = TileExpect {
                allocated_by_bundle: None,
                ..e.clone()
            };
            if rest == TileExpect::default() {
                return;
            }
        }
        let (info, shared) = match tile {
            TileRef::Shared(id) => {
                let s = self.m.shared_tile_record(id).clone();
                (s.tile.clone(), Some((id, s)))
            }
            t => {
                let Some(index) = self.resolve_local(t) else {
                    return;
                };
                match self.m.tile_record(index) {
                    Some(i) => (i.clone(), None),
                    None => {
                        self.fail(format!("tile {index}"), "no such tile");
                        return;
                    }
                }
            }
        };
        let b = |x: &bool| x.to_string();
        let n = |x: &u64| x.to_string();
        if let Some(v) = e.allocated {
            self.check("allocated =", v, info.allocated, b);
        }
        if let Some(v) = e.capacity {
            self.check("capacity_bytes =", v, info.capacity_bytes, n);
        }
        if let Some(v) = e.rows {
            self.check("rows =", v, info.rows, n);
        }
        if let Some(v) = e.cols {
            self.check("columns =", v, info.columns, n);
        }
        if let Some(v) = e.valid_rows {
            self.check("valid_rows =", v, info.valid_rows, n);
        }
        if let Some(v) = e.valid_cols {
            self.check("valid_columns =", v, info.valid_columns, n);
        }
        if let Some(v) = &e.dtype {
            self.check("data type", v.clone(), info.data_type.to_string(), |s| {
                s.clone()
            });
        }
        if let Some(v) = &e.layout {
            self.check("layout", v.clone(), info.layout.name().to_string(), |s| {
                s.clone()
            });
        }
        if let Some(v) = &e.location {
            self.check(
                "location",
                v.clone(),
                info.location.name().to_string(),
                |s| s.clone(),
            );
        }
        if let Some(v) = e.contents_defined {
            self.check("contents_defined =", v, info.contents_defined, b);
        }
        if let Some(v) = e.defined_valid_elements {
            match ext::defined_valid_elements(&info) {
                Ok(got) => self.check("defined_valid_elements =", v, got, n),
                Err(err) => self.fail(format!("defined_valid_elements = {v}"), err),
            }
        }
        if let Some(v) = e.allocation_mask {
            let got = match (&shared, tile) {
                (Some((_, s)), _) => Ok(s.allocation_mask),
                (None, t) => match self.resolve_local(t) {
                    Some(i) => ext::tile_allocation_mask(&self.m, i),
                    None => return,
                },
            };
            match got {
                Ok(g) => self.check("allocation mask", v, g, |x| mask_str(*x)),
                Err(err) => self.fail(format!("allocation mask {}", mask_str(v)), err),
            }
        }
        if let Some(v) = e.initialized_mask {
            match &shared {
                Some((_, s)) => {
                    let g = s.initialized_mask;
                    self.check("initialized mask", v, g, |x| mask_str(*x))
                }
                None => self.fail("initialized_mask on a Shared tile", "a Local tile"),
            }
        }
        if let Some(v) = e.descriptor_valid {
            match &shared {
                Some((_, s)) => {
                    let g = s.descriptor_valid;
                    self.check("descriptor_valid =", v, g, b)
                }
                None => self.fail("descriptor_valid on a Shared tile", "a Local tile"),
            }
        }
        if let Some(v) = e.fully_initialized {
            match &shared {
                Some((id, _)) => {
                    let g = self.m.shared_tile_fully_initialized(*id);
                    self.check("SharedTileFullyInitialized =", v, g, b)
                }
                None => self.fail("fully_initialized on a Shared tile", "a Local tile"),
            }
        }
    }
}

pub(crate) fn args_str(args: &[PredArg]) -> String {
    args.iter()
        .map(|a| match a {
            PredArg::Num(n) => n.to_string(),
            PredArg::Name(s) => s.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

pub(crate) fn pred_str(v: &PredValue) -> String {
    match v {
        PredValue::Bool(b) => b.to_string(),
        PredValue::Num(n) => hex(*n),
        PredValue::Name(s) => s.clone(),
    }
}

/// The model primitives beyond the core table of `PTO-SCENARIO.md`. Each
/// returns `Err(reason)` when the model cannot answer, which the runner
/// reports as a failed expectation (never a panic).
pub(crate) mod ext {
    use super::*;
    use pto::machine::MemoryEventKind;

    pub struct Event {
        pub kind: &'static str,
        pub agent: u64,
        pub address: u64,
        pub size_bytes: u64,
        pub read_value: u64,
        pub write_value: u64,
        pub order: pto::memory_model::Order,
        pub read_from: u64,
        pub rank: u64,
    }

    fn unsupported(what: &str) -> String {
        format!("no model primitive for {what}")
    }

    /// Direct `TLOAD(tile, base, stride)`; `Ok(false)` when it faulted (see `_LastFault`).
    pub fn tload(m: &mut Machine, tile: u32, base: u64, stride: u64) -> Result<bool, String> {
        Ok(m.tload(tile, base, stride).is_ok())
    }

    /// Direct `TSTORE(base, stride, tile)`.
    pub fn tstore(m: &mut Machine, tile: u32, base: u64, stride: u64) -> Result<bool, String> {
        Ok(m.tstore(base, stride, tile).is_ok())
    }

    pub fn start_capture(m: &mut Machine, pe: usize) -> Result<(), String> {
        m.start_memory_event_capture(pe);
        Ok(())
    }

    pub fn stop_capture(m: &mut Machine) {
        m.stop_memory_event_capture();
    }

    pub fn memory_event_count(m: &Machine) -> Result<u64, String> {
        Ok(m.memory_events().len() as u64)
    }

    pub fn memory_event(m: &Machine, n: u64) -> Result<Option<Event>, String> {
        Ok(m.memory_events().get(n as usize).map(|e| Event {
            kind: match e.kind {
                MemoryEventKind::Load => "load",
                MemoryEventKind::Store => "store",
                MemoryEventKind::Atomic => "atomic",
                MemoryEventKind::InitialWrite => "initial-write",
                MemoryEventKind::Fence => "fence",
            },
            agent: e.agent as u64,
            address: e.address,
            size_bytes: e.size_bytes as u64,
            read_value: e.read_value,
            write_value: e.write_value,
            order: e.order,
            read_from: e.read_from as u64,
            rank: e.coherence_rank,
        }))
    }

    pub fn set_pad_value(m: &mut Machine, pad: u8) -> Result<(), String> {
        m.set_bundle_pad_value(pad as u32);
        Ok(())
    }

    pub fn set_tile_location(m: &mut Machine, index: u32, loc: TileLocation) -> Result<(), String> {
        m.set_tile_location(index, loc);
        Ok(())
    }

    /// `RecoverTrapContext(n)`.
    pub fn recover_trap_context(m: &mut Machine, n: u32) -> Result<bool, String> {
        if n as usize >= pto::trap::PTO_ACR_COUNT {
            return Err(format!("no trap context {n} (rings 0..15)"));
        }
        Ok(m.recover_trap_context(n))
    }

    /// `_TrapContexts[[n]].valid` and
    /// `_TrapContexts[[n]].bundle_tile_bindings[[0]].destination_allocated_by_bundle`.
    pub fn trap_context(m: &Machine, n: u32) -> Result<(bool, bool), String> {
        let c = m
            .trap_context(n)
            .ok_or_else(|| format!("no trap context {n} (rings 0..15)"))?;
        Ok((c.valid, c.bundle.tile_bindings[0].allocated_by_bundle))
    }

    pub fn bundle_active(m: &Machine) -> Result<bool, String> {
        Ok(m.bundle_state().active)
    }

    pub fn bundle_tile_binding_count(m: &Machine) -> Result<u64, String> {
        Ok(m.bundle_state()
            .tile_bindings
            .iter()
            .filter(|b| b.valid)
            .count() as u64)
    }

    pub fn destination_allocated_by_bundle(m: &Machine, binding: u32) -> Result<bool, String> {
        m.bundle_state()
            .tile_bindings
            .get(binding as usize)
            .map(|b| b.allocated_by_bundle)
            .ok_or_else(|| format!("no tile binding {binding}"))
    }

    pub fn tile_allocation_mask(m: &Machine, index: u32) -> Result<u8, String> {
        Ok(m.tile_allocation_mask(index))
    }

    pub fn defined_valid_elements(info: &pto::tile::TileInfo) -> Result<u64, String> {
        Ok(info.defined_valid_elements())
    }

    fn arg_num(args: &[PredArg], i: usize) -> Result<u64, String> {
        match args.get(i) {
            Some(PredArg::Num(n)) => Ok(*n),
            Some(PredArg::Name(s)) => Err(format!("argument {} `{s}` must be a number", i + 1)),
            None => Err(format!("missing argument {}", i + 1)),
        }
    }

    fn arg_tepl(args: &[PredArg], i: usize) -> Result<pto::block::operands::TeplOperation, String> {
        match args.get(i) {
            Some(PredArg::Name(s)) => {
                pto::block::operands::TeplOperation::from_name(s).ok_or_else(|| {
                    format!("unknown operation `{s}` (want a TEPL operation name such as TADDS)")
                })
            }
            Some(PredArg::Num(n)) => {
                Err(format!("argument {} = {n}: want an operation name", i + 1))
            }
            None => Err(format!("missing argument {}", i + 1)),
        }
    }

    fn arg_dtype(args: &[PredArg], i: usize) -> Result<DataType, String> {
        match args.get(i) {
            Some(PredArg::Name(s)) => DataType::from_str(s).map_err(|e| e.to_string()),
            Some(PredArg::Num(n)) => {
                DataType::from_code(*n as u32).ok_or_else(|| format!("reserved DataType code {n}"))
            }
            None => Err(format!("missing argument {}", i + 1)),
        }
    }

    /// The contract predicates and pure functions the AVS points assert, by
    /// their ASL names, answered by the model's own functions.
    pub fn predicate(m: &Machine, name: &str, args: &[PredArg]) -> Result<PredValue, String> {
        match name {
            "BundleCubeTransportDataAttributesLegal" => Ok(PredValue::Bool(
                m.bundle_cube_transport_data_attributes_legal(),
            )),
            "DecodeTileMemoryElementRaw" => {
                let raw = arg_num(args, 0)?;
                let dt = arg_dtype(args, 1)?;
                let high = arg_num(args, 2)? != 0;
                Ok(PredValue::Num(pto::memory::decode_tile_memory_element_raw(
                    raw, dt, high,
                )))
            }
            "BundleTileInstructionOperands.scalar0"
            | "BundleTileInstructionOperands.scalar1"
            | "BundleTileInstructionOperands.diagonal"
            | "BundleTileInstructionOperands.flag0" => {
                let o = m.bundle_tile_instruction_operands(arg_tepl(args, 0)?);
                Ok(match name.rsplit('.').next() {
                    Some("scalar0") => PredValue::Num(o.scalar0),
                    Some("scalar1") => PredValue::Num(o.scalar1),
                    Some("diagonal") => PredValue::Num(o.diagonal as u64),
                    _ => PredValue::Bool(o.flag0),
                })
            }
            "BundleOperationGPRBindingValuesLegal" => Ok(PredValue::Bool(
                m.bundle_operation_gpr_binding_values_legal(arg_tepl(args, 0)?),
            )),
            "BundleOperationBindingsComplete" => Ok(PredValue::Bool(
                m.bundle_operation_bindings_complete(arg_tepl(args, 0)?),
            )),
            "IndexedTLSUTransferDataTypeLegal" => Ok(PredValue::Bool(
                pto::gather::indexed_tlsu_transfer_data_type_legal(arg_dtype(args, 0)?),
            )),
            "IndexedTLSUIndexDataTypeLegal" => Ok(PredValue::Bool(
                pto::gather::indexed_tlsu_index_data_type_legal(arg_dtype(args, 0)?),
            )),
            "SharedStorePEMaskLegal" | "InstructionContractSharedMaskLegal_TSTORE" => {
                let function = arg_num(args, 0)? as u32;
                let mask = arg_num(args, 1)? as u8;
                Ok(PredValue::Bool(pto::block::shared_store_pe_mask_legal(
                    function, mask,
                )))
            }
            // `CurrentBundlePadValue`: TilePad_Null unless B.DATR is present.
            "CurrentBundlePadValue" => Ok(PredValue::Name(
                match m.bundle_state().pad_value() {
                    pto::types::PadValue::Zero => "TilePad_Zero",
                    pto::types::PadValue::Max => "TilePad_Max",
                    pto::types::PadValue::Min => "TilePad_Min",
                    pto::types::PadValue::Null => "TilePad_Null",
                }
                .into(),
            )),
            // `CurrentBundleDataTypeCode`: B.DATR's concrete type, else BSTART's.
            "CurrentBundleDataTypeCode" => {
                let b = m.bundle_state();
                Ok(PredValue::Num(
                    if b.datr.present && b.datr.data_type != pto::types::DTYPE_NONE {
                        b.datr.data_type as u64
                    } else {
                        b.op.data_type as u64
                    },
                ))
            }
            "_BundleScalarBindings[[0]].valid" => {
                Ok(PredValue::Bool(m.bundle_state().scalar.valid))
            }
            "_BundleScalarBindings[[0]].destination" => {
                Ok(PredValue::Num(m.bundle_state().scalar.destination as u64))
            }
            "_BundleScalarBindings[[0]].source0" => {
                Ok(PredValue::Num(m.bundle_state().scalar.source0 as u64))
            }
            "_BundleScalarBindings[[0]].source1" => {
                Ok(PredValue::Num(m.bundle_state().scalar.source1 as u64))
            }
            "_BundleScalarBindings[[0]].source2" => {
                Ok(PredValue::Num(m.bundle_state().scalar.source2 as u64))
            }
            "_BundleOperation.selector" => Ok(PredValue::Num(m.bundle_state().op.function as u64)),
            "_BundleBodyActive" => Ok(PredValue::Bool(m.bundle_state().body_active)),
            "_BundleDataAttributesPresent" => Ok(PredValue::Bool(m.bundle_state().datr.present)),
            // `_BundleHint` fields, `_BundleHintEpoch`, `_LastBundleHintPayload`.
            "_BundleHint.present" => Ok(PredValue::Bool(m.bundle_state().hint.present)),
            "_BundleHint.trace" => Ok(PredValue::Bool(m.bundle_state().hint.trace)),
            "_BundleHint.branch_valid" => Ok(PredValue::Bool(m.bundle_state().hint.branch_valid)),
            "_BundleHint.branch_likely" => Ok(PredValue::Bool(m.bundle_state().hint.branch_likely)),
            "_BundleHint.temperature" => {
                Ok(PredValue::Num(m.bundle_state().hint.temperature as u64))
            }
            "_BundleHint.prefetch_size" => {
                Ok(PredValue::Num(m.bundle_state().hint.prefetch_size as u64))
            }
            "_BundleHintEpoch" => Ok(PredValue::Num(m.bundle_hint_epoch())),
            "_LastBundleHintPayload" => Ok(PredValue::Num(m.last_bundle_hint_payload() as u64)),
            // `InstructionContractDataTypeLegal_<OP>` (pto::contract): TLOAD,
            // TSTORE and TPREFETCH take a DataType encoding, the other families
            // a TileDataType (by name or code).
            _ if name.starts_with("InstructionContractDataTypeLegal_") => {
                let op = &name["InstructionContractDataTypeLegal_".len()..];
                let by_code = match args.first() {
                    Some(PredArg::Num(n)) => {
                        pto::contract::instruction_contract_data_type_code_legal(op, *n as u32)
                    }
                    _ => None,
                };
                match by_code {
                    Some(b) => Ok(PredValue::Bool(b)),
                    None if pto::contract::instruction_contract_data_type_code_legal(op, 0)
                        .is_some() =>
                    {
                        Err(format!("{name} takes a DataType encoding (a number)"))
                    }
                    None => {
                        pto::contract::instruction_contract_data_type_legal(op, arg_dtype(args, 0)?)
                            .map(PredValue::Bool)
                            .ok_or_else(|| unsupported(name))
                    }
                }
            }
            // asl/tile/memory-and-data-movement/regular/TSTORE.asl:
            // InstructionContractDenseStride_TSTORE(columns, dt) = TileDenseRowStrideBytes.
            "InstructionContractDenseStride_TSTORE" => Ok(PredValue::Num(
                pto::addressing::tile_dense_row_stride_bytes(
                    arg_num(args, 0)?,
                    arg_dtype(args, 1)?,
                ),
            )),
            // Same file: InstructionContractZeroMaskNoEffect_TSTORE(mask) = (mask == '0000'),
            // the PE_MASK 0000 strict no-op contract.
            "InstructionContractZeroMaskNoEffect_TSTORE" => {
                Ok(PredValue::Bool(arg_num(args, 0)? == 0))
            }
            "PTO_MODEL_TILE_ELEMENTS" => Ok(PredValue::Num(pto::tile::PTO_MODEL_TILE_ELEMENTS)),
            // asl/tile/model/definedness/packed-boundary.asl: logical elements a
            // capacity holds (two per byte for the four-bit types).
            "PackedTileLogicalCapacity" => Ok(PredValue::Num(
                pto::tile::tile_logical_element_capacity(arg_num(args, 0)?, arg_dtype(args, 1)?),
            )),
            "MinimumTileCapacityBytesForShape" => Ok(PredValue::Num(
                pto::tile::minimum_tile_capacity_bytes_for_shape(
                    arg_num(args, 0)?,
                    arg_num(args, 1)?,
                    arg_num(args, 2)?,
                    arg_dtype(args, 3)?,
                ),
            )),
            _ => Err(unsupported(name)),
        }
    }
}
