//! The bundle machine of the TLOAD/TSTORE path: header commands, bindings
//! and the tile-memory operation at commit. BSTART.TEPL (element-wise)
//! blocks decode and collect their bindings under the same checks; at
//! commit only their operand half runs (`run_tepl`, `crate::operands`),
//! not the element-wise engines.
//!
//! ASL: `asl/block/model/dispatch/top-level.asl` (`ExecuteCommandInstruction`),
//! `asl/block/model/dispatch/commands.asl` (`ExecuteDecodedBundleCommand`),
//! `asl/block/model/dispatch/start.asl`, `asl/block/model/commit/validation.asl`
//! (`CompleteBundleAt`), `asl/block/model/operands/{tile,shared,scalar}-bindings.asl`,
//! `asl/block/model/schema/dimensions.asl`, `asl/block/model/state/*`,
//! `asl/block/model/dispatch/tile-execution.asl`
//! (`ExecuteBundleTileOperation`), `asl/block/model/dispatch/shared-tlsu.asl`,
//! `asl/block/model/dispatch/tlsu-layout-conversion.asl` (CUBE transport),
//! `asl/block/model/dispatch/tlsu-{mgather,mscatter,gmov}.asl` (indexed TLSU
//! and GMOV schemas),
//! `asl/block/model/dispatch/destination-shape.asl`,
//! `asl/block/model/faults/rollback.asl`, `asl/arch/memory-model/global-memory-access.asl`
//! (PTO-ARCH-GM-ACCESS-001).
//!
//! Destinations are allocated only after every schema check, and released
//! again (`RollBackBundleTileDestinations`) when the transfer faults, so a
//! faulting bundle publishes nothing and can be restarted.

use crate::addressing::tile_dense_row_stride_bytes;
use crate::forms::{self, pe_selected, FormKind};
use crate::machine::{
    CommandExecution, Machine, StrideSource, PTO_MODEL_MEMORY_AGENTS, PTO_TILE_REGISTER_COUNT,
};
use crate::memory::{PadValue, PeAddressing};
use crate::operands::TeplOperation;
use crate::tile::{self, cube, TileInfo};
use crate::types::{DataType, Fault, TileLayout, TileLocation, DTYPE_NONE};

/// `PTO_BUNDLE_TILE_BINDING_COUNT`.
pub const PTO_BUNDLE_TILE_BINDING_COUNT: usize = 16;

/// One `_BundleTileBindings` entry (B.IOT).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TileBinding {
    pub valid: bool,
    pub destination_valid: bool,
    pub destination: u32,
    /// 0 T, 1 U, 2 M, 3 N.
    pub destination_hand: u32,
    pub allocated_by_bundle: bool,
    pub destination_size: u32,
    pub pe_mask: u8,
    pub source0_valid: bool,
    pub source1_valid: bool,
    pub source0: u32,
    pub source1: u32,
    pub last: bool,
}

/// One `_BundleSharedBindings` entry (B.IOS).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SharedBinding {
    pub valid: bool,
    pub shared_id: u8,
    pub size_code: u32,
    pub pe_mask: u8,
    pub consumed: bool,
}

/// `_BundleScalarBindings[[0]]` (B.IOR).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScalarBinding {
    pub valid: bool,
    pub destination: u32,
    pub source0: u32,
    pub source1: u32,
    pub source2: u32,
}

/// `_BundleDataAttributes` (B.DATR).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DataAttributes {
    pub present: bool,
    pub data_type: u32,
    pub layout: u32,
    pub pad_value: u32,
    pub comparison_mode: u32,
    pub rounding_mode: u32,
    pub saturating: bool,
    pub canonicalize: bool,
}

/// `_BundleOperation` of a tile-memory or element-wise BSTART.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Operation {
    pub valid: bool,
    /// `operation_class == BundleOperation_TileElement`: a BSTART.TEPL
    /// block, whose `function` is the 7-bit TEPL selector.
    pub tepl: bool,
    /// TLSU selector: 0 TLOAD, 1 TSTORE, 3 TPREFETCH, 4 MGATHER,
    /// 5 MSCATTER, 9..12 Shared TMOV, 13 GMOV, 14 TSTORE.SPART; or the
    /// TEPL selector (Mode:Function) when `tepl`.
    pub function: u32,
    pub data_type: u32,
}

/// `_BundleControlAttributes` (the B.CATR state), set by
/// `SetBundleControlAttributeState` and cleared with the bundle header.
/// Only `acquire`/`release` are read: they give the memory order of the
/// events a transfer captures (`CurrentBundleMemoryOrder`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ControlAttributes {
    pub present: bool,
    pub trap_enabled: bool,
    pub atomic: bool,
    pub acquire: bool,
    pub release: bool,
    pub far: bool,
    pub dimension_reduction: bool,
}

impl ControlAttributes {
    /// `CurrentBundleMemoryOrder`.
    pub fn memory_order(&self) -> crate::memory_model::Order {
        use crate::memory_model::Order;
        match (self.acquire, self.release) {
            (true, true) => Order::AcquireRelease,
            (true, false) => Order::Acquire,
            (false, true) => Order::Release,
            (false, false) => Order::Relaxed,
        }
    }
}

/// `_BundleHint`: the pending B.HINT of the open block (non-functional).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HintState {
    pub present: bool,
    pub trace: bool,
    /// TRACE form: false begin, true end.
    pub trace_end: bool,
    pub branch_valid: bool,
    pub branch_likely: bool,
    /// `temp`: 0 none, 1 cool, 2 warm, 3 hot.
    pub temperature: u32,
    pub prefetch_size: u32,
}

/// Bundle control and header state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bundle {
    pub active: bool,
    /// `_BundleBodyActive`: set by `EnterBundleBody`; header commands are
    /// then rejected with `Fault_BundleControl`.
    pub body_active: bool,
    pub op: Operation,
    pub datr: DataAttributes,
    pub dims: [u64; 3],
    pub dim_present: [bool; 3],
    pub tile_bindings: [TileBinding; PTO_BUNDLE_TILE_BINDING_COUNT],
    pub shared_bindings: [SharedBinding; 4],
    pub scalar: ScalarBinding,
    pub zero_participation_seen: bool,
    pub hint: HintState,
    pub catr: ControlAttributes,
}

impl Bundle {
    /// Resets every member to its `Default` in place (the same state as
    /// `Bundle::default()`, without building a whole temporary and copying
    /// it over the bundle).
    pub(crate) fn clear(&mut self) {
        let Bundle {
            active,
            body_active,
            op,
            datr,
            dims,
            dim_present,
            tile_bindings,
            shared_bindings,
            scalar,
            zero_participation_seen,
            hint,
            catr,
        } = self;
        *active = false;
        *body_active = false;
        *op = Operation::default();
        *datr = DataAttributes::default();
        *dims = [0; 3];
        *dim_present = [false; 3];
        tile_bindings.fill(TileBinding::default());
        shared_bindings.fill(SharedBinding::default());
        *scalar = ScalarBinding::default();
        *zero_participation_seen = false;
        *hint = HintState::default();
        *catr = ControlAttributes::default();
    }

    /// An active bundle still in its header (`_BundleActive && !_BundleBodyActive`),
    /// where the header commands are legal.
    pub fn header_open(&self) -> bool {
        self.active && !self.body_active
    }

    /// `CurrentBundlePadValue`: Null unless B.DATR is present.
    pub fn pad_value(&self) -> PadValue {
        if self.datr.present {
            PadValue::from_code(self.datr.pad_value)
        } else {
            PadValue::Null
        }
    }

    fn tile_binding_count(&self) -> usize {
        self.tile_bindings.iter().filter(|b| b.valid).count()
    }

    fn shared_binding_count(&self) -> usize {
        self.shared_bindings.iter().filter(|b| b.valid).count()
    }

    fn sequence_closed(&self) -> bool {
        self.tile_bindings.iter().any(|b| b.valid && b.last)
    }

    /// `BundleTileMaskCanAppend`.
    fn tile_mask_can_append(&self, mask: u8) -> bool {
        mask != 0
            && self
                .tile_bindings
                .iter()
                .all(|b| !b.valid || b.pe_mask == mask)
    }

    /// `SelectedBundleTileMaskIsZero`.
    fn selected_tile_mask_is_zero(&self) -> bool {
        let mut seen = false;
        for b in self.tile_bindings.iter().filter(|b| b.valid) {
            seen = true;
            if b.pe_mask != 0 {
                return false;
            }
        }
        seen || (self.zero_participation_seen
            && self.tile_binding_count() == 0
            && self.shared_binding_count() == 0)
    }

    /// `TileDataLayoutDestinationLayout(CurrentBundleDataLayout())`.
    fn tile_layout(&self) -> TileLayout {
        match self.datr.layout {
            1 | 18 | 28 => TileLayout::ColumnMajor,
            3 | 8 | 30 => TileLayout::ZN,
            4 | 9 | 20 => TileLayout::NZ,
            _ => TileLayout::RowMajor,
        }
    }

    /// Dimension `i` when it holds 1..=65535 (`BundleDestination*` helpers).
    fn dim_in_range(&self, i: usize) -> Option<u64> {
        (1..=65535).contains(&self.dims[i]).then_some(self.dims[i])
    }
}

/// Layout codes of the CUBE conversions, `TileDataLayoutIsCubeConversion`.
fn is_cube_conversion(code: u32) -> bool {
    (21..=26).contains(&code)
}

impl Machine {
    /// Read-only view of the bundle state (for reports and tests).
    pub fn bundle_state(&self) -> &Bundle {
        &self.bundle
    }

    /// `_BundleHintEpoch`.
    pub fn bundle_hint_epoch(&self) -> u64 {
        self.hint_epoch
    }

    /// `_LastBundleHintPayload`.
    pub fn last_bundle_hint_payload(&self) -> u32 {
        self.last_hint_payload
    }

    /// `ExecuteCommandInstruction(word, 32)`: decode, check operands, apply
    /// the command. An undecodable word or reserved field value is
    /// `Rejected` with `Fault_IllegalInstruction`.
    pub fn execute_command_instruction(&mut self, word: u32) -> CommandExecution {
        // BeginArchitecturalInstructionAttempt.
        self.clear_fault();
        let d = match self.decode_word(word) {
            Ok(d) => d,
            Err(_) => {
                self.set_fault(Fault::IllegalInstruction, None);
                return CommandExecution::Rejected;
            }
        };
        let r = match d.form.kind {
            FormKind::BundleStart { function } => {
                self.bundle_start(function, false, d.fields.data_type);
                Ok(())
            }
            FormKind::TeplStart => {
                // BundleOperationDescriptorLegal: a reserved selector names
                // no operation and is rejected before the open bundle commits.
                let selector = forms::tepl_selector(d.fields.mode, d.fields.function);
                if TeplOperation::from_selector(selector).is_none() {
                    Err(Fault::IllegalInstruction)
                } else {
                    self.bundle_start(selector, true, d.fields.data_type);
                    Ok(())
                }
            }
            FormKind::Stop => {
                self.complete_bundle();
                Ok(())
            }
            FormKind::DataAttributes => self.command_datr(&d),
            FormKind::BundleDimension { lb } => {
                if !self.bundle.header_open() {
                    Err(Fault::BundleControl)
                } else {
                    let pe = self.current_pe;
                    let sum = self
                        .read_pe_gpr(pe, d.fields.reg_src)
                        .wrapping_add(d.fields.uimm17 as u64);
                    self.set_bundle_dimension(lb, sum & 0xffff);
                    Ok(())
                }
            }
            FormKind::SharedIo => self.command_ios(&d),
            FormKind::ScalarIo => {
                if !self.bundle.header_open() || self.bundle.scalar.valid {
                    Err(Fault::BundleControl)
                } else {
                    self.bundle.scalar = ScalarBinding {
                        valid: true,
                        destination: d.fields.reg_dst,
                        source0: d.fields.reg_src0,
                        source1: d.fields.reg_src1,
                        source2: d.fields.reg_src2,
                    };
                    Ok(())
                }
            }
            FormKind::TileIo { src0, src1, dst } => self.command_iot(&d, src0, src1, dst),
            FormKind::Hint { trace } => self.command_hint(&d, trace, word),
        };
        if let Err(f) = r {
            self.set_fault(f, None);
        }
        if self.last_fault != Fault::None {
            CommandExecution::Rejected
        } else {
            CommandExecution::Executed
        }
    }

    /// `EnterBundleBody` (asl/block/model/lifecycle/enter-stop.asl): the
    /// active bundle's header closes (`_BundleBodyActive`); without an
    /// active bundle, `Fault_BundleControl`.
    pub fn enter_bundle_body(&mut self) {
        if !self.bundle.active {
            self.set_fault(Fault::BundleControl, None);
        } else {
            self.bundle.body_active = true;
        }
    }

    /// `ExecuteDecodedBundleStart`: commits an open bundle first, then
    /// begins the new one with its operation descriptor.
    fn bundle_start(&mut self, function: u32, tepl: bool, data_type: u32) {
        if self.bundle.active && !self.complete_bundle() {
            return;
        }
        self.bundle.clear();
        self.bundle.active = true;
        self.bundle.op = Operation {
            valid: true,
            tepl,
            function,
            data_type,
        };
    }

    /// `CompleteBundleAt`: executes the bundle's tile operation, then stops
    /// the bundle (clearing its header state). False on a fault, with the
    /// bundle left open for restart.
    fn complete_bundle(&mut self) -> bool {
        if !self.bundle.active {
            self.set_fault(Fault::BundleControl, None);
            return false;
        }
        if self.bundle.op.valid && !self.execute_bundle_tile_operation() {
            return false;
        }
        for (i, b) in self.bundle.tile_bindings.iter().enumerate() {
            self.last_destinations[i] =
                (b.valid && b.destination_valid && b.allocated_by_bundle).then_some(b.destination);
        }
        self.bundle.clear();
        self.last_fault == Fault::None
    }

    /// `SetBundleHint` (asl/block/lifecycle/B.HINT.asl): the ordinary form is
    /// legal once, in an active block header (else `Fault_BundleControl`
    /// before any hint state changes); TRACE retires an open block like the
    /// next BSTART and opens an empty one. Either records the pending hint,
    /// its payload and bumps the non-functional hint epoch.
    fn command_hint(&mut self, d: &forms::Decoded, trace: bool, word: u32) -> Result<(), Fault> {
        let hint = if trace {
            if self.bundle.active && !self.complete_bundle() {
                return Ok(()); // the predecessor's fault stands
            }
            self.bundle.clear();
            self.bundle.active = true;
            HintState {
                present: true,
                trace: true,
                trace_end: d.fields.b_e == 1,
                ..HintState::default()
            }
        } else {
            if !self.bundle.header_open() || self.bundle.hint.present {
                return Err(Fault::BundleControl);
            }
            HintState {
                present: true,
                trace: false,
                trace_end: false,
                branch_valid: d.fields.v == 1,
                branch_likely: d.fields.l_ul == 1,
                temperature: d.fields.temp,
                prefetch_size: d.fields.prefetch_size,
            }
        };
        self.bundle.hint = hint;
        self.last_hint_payload = word;
        self.hint_epoch += 1;
        Ok(())
    }

    fn command_datr(&mut self, d: &forms::Decoded) -> Result<(), Fault> {
        if !self.bundle.header_open() || self.bundle.datr.present {
            return Err(Fault::BundleControl);
        }
        // SetBundleDataAttributeState: the catalog constraints have already
        // rejected reserved DataType and unassigned Layout codes.
        self.bundle.datr = DataAttributes {
            present: true,
            data_type: d.fields.data_type,
            layout: d.fields.layout,
            pad_value: d.fields.pad_value_or_byte_id,
            comparison_mode: d.fields.cmode,
            rounding_mode: d.fields.rmode,
            saturating: d.fields.sat != 0,
            canonicalize: d.fields.canonicalize != 0,
        };
        Ok(())
    }

    fn command_ios(&mut self, d: &forms::Decoded) -> Result<(), Fault> {
        let mask = forms::pe_mask_of_pe_mode(d.fields.pe_mode);
        let size = d.fields.size_code;
        if mask == 0 {
            // Strict no-op before placement and every later check.
            if self.bundle.header_open() {
                self.bundle.zero_participation_seen = true;
            }
            return Ok(());
        }
        if !self.bundle.header_open() {
            return Err(Fault::BundleControl);
        }
        // BindBundleSharedIO.
        if !self.bundle.tile_mask_can_append(mask)
            || self
                .bundle
                .shared_bindings
                .iter()
                .any(|b| b.valid && b.pe_mask != mask)
        {
            return Err(Fault::TileLegality);
        }
        let id = d.fields.shared_tid as u8;
        if self
            .bundle
            .shared_bindings
            .iter()
            .any(|b| b.valid && b.shared_id == id)
        {
            return Err(Fault::BundleControl);
        }
        let slot = self
            .bundle
            .shared_bindings
            .iter_mut()
            .find(|b| !b.valid)
            .ok_or(Fault::BundleControl)?;
        *slot = SharedBinding {
            valid: true,
            shared_id: id,
            size_code: size,
            pe_mask: mask,
            consumed: false,
        };
        Ok(())
    }

    fn command_iot(
        &mut self,
        d: &forms::Decoded,
        src0: bool,
        src1: bool,
        dst: bool,
    ) -> Result<(), Fault> {
        let mask = forms::pe_mask_of_pe_mode(d.fields.pe_mode);
        if mask == 0 {
            if self.bundle.header_open() {
                self.bundle.zero_participation_seen = true;
            }
            return Ok(());
        }
        if !self.bundle.header_open() || self.bundle.sequence_closed() {
            return Err(Fault::BundleControl);
        }
        // TMOV Local-to-Shared (Functions 9, 10): the B.IOT is source-only
        // (the Shared TSize belongs to the destination B.IOS), so a local
        // destination is a schema error.
        let op = self.bundle.op;
        let local_to_shared = op.valid && !op.tepl && matches!(op.function, 9 | 10);
        if !self.bundle.tile_mask_can_append(mask) || (local_to_shared && dst) {
            return Err(Fault::TileLegality);
        }
        let binding = TileBinding {
            valid: true,
            destination_valid: dst,
            destination: if dst { d.fields.dst_tile } else { 0 },
            destination_hand: if dst { d.fields.dst_tile % 4 } else { 0 },
            allocated_by_bundle: false,
            destination_size: if dst { d.fields.size_code } else { 0 },
            pe_mask: mask,
            source0_valid: src0,
            source1_valid: src1,
            source0: if src0 { d.fields.src_tile0 } else { 0 },
            source1: if src1 { d.fields.src_tile1 } else { 0 },
            last: d.fields.l != 0,
        };
        let slot = self
            .bundle
            .tile_bindings
            .iter_mut()
            .find(|b| !b.valid)
            .ok_or(Fault::TileLegality)?;
        *slot = binding;
        Ok(())
    }

    /// `ExecuteBundleTileOperation`: runs the open bundle's TLOAD/TSTORE.
    /// True when it completed (or was a PE_MASK 0000 no-op); false with
    /// `_LastFault` set otherwise, leaving every architectural state as
    /// before.
    pub fn execute_bundle_tile_operation(&mut self) -> bool {
        let r = self.run_bundle();
        self.transfer_recorded = false;
        self.pending_stride_source = None;
        match r {
            Ok(()) => true,
            Err(f) => {
                if self.last_fault == Fault::None || self.last_fault != f {
                    self.set_fault(f, self.last_fault_addr.filter(|_| self.last_fault == f));
                }
                false
            }
        }
    }

    fn run_bundle(&mut self) -> Result<(), Fault> {
        let b = &self.bundle;
        if !b.op.valid {
            return Err(Fault::BundleControl);
        }
        if b.zero_participation_seen && b.tile_binding_count() == 0 && b.shared_binding_count() == 0
        {
            return Ok(());
        }
        if b.op.tepl {
            return self.run_tepl();
        }
        if b.op.function == crate::prefetch::TPREFETCH_FUNCTION {
            return self.run_tprefetch();
        }
        match b.op.function {
            crate::gather::MGATHER_FUNCTION => return self.run_mgather(),
            crate::gather::MSCATTER_FUNCTION => return self.run_mscatter(),
            crate::gather::GMOV_FUNCTION => return self.run_gmov(),
            _ => {}
        }
        if b.datr.present && is_cube_conversion(b.datr.layout) {
            return self.run_cube_transport();
        }
        let f = b.op.function;
        if b.shared_binding_count() > 0 || (9..=12).contains(&f) || f == 14 {
            return self.run_shared_tlsu();
        }
        if forms::tlsu_operation_name(f).is_none() {
            return Err(Fault::IllegalInstruction);
        }
        if b.selected_tile_mask_is_zero() {
            return Ok(());
        }
        self.run_local_tlsu()
    }

    /// `ExecuteBundleTileOperationLocally` for a TEPL (element-wise) block,
    /// its operand half in the ASL's order: unconsumed Shared bindings are
    /// `Fault_TileLegality`; a PE_MASK 0000 block is a no-op; incomplete
    /// bindings for the operation's schema (`BundleOperationBindingsComplete`)
    /// are `Fault_BundleControl`; illegal B.IOR values
    /// (`BundleOperationGPRBindingValuesLegal`: flag, diagonal, TQUANT and
    /// TDEQUANT scale and zero point) are `Fault_TileLegality`. A common PE
    /// mask across the B.IOT bindings is enforced when each binds
    /// (`SelectedBundleTileMasksLegal` then holds).
    ///
    /// Not modelled: the per-operation B.DATR and closed-schema checks, and
    /// the engines.
    /// A TEPL block that passes the operand checks therefore stops at the
    /// model's boundary with `Fault_IllegalInstruction` (as an unmodelled
    /// Shared TMOV does), publishing nothing.
    fn run_tepl(&mut self) -> Result<(), Fault> {
        let b = &self.bundle;
        if b.shared_binding_count() != 0 {
            return Err(Fault::TileLegality);
        }
        let op = TeplOperation::from_selector(b.op.function).ok_or(Fault::IllegalInstruction)?;
        if b.selected_tile_mask_is_zero() {
            return Ok(());
        }
        if !self.bundle_operation_bindings_complete(op) {
            return Err(Fault::BundleControl);
        }
        if !self.bundle_operation_gpr_binding_values_legal(op) {
            return Err(Fault::TileLegality);
        }
        Err(Fault::IllegalInstruction)
    }

    /// `ExecuteBundleTPREFETCHOperation`: no tile or Shared binding, every
    /// PE takes part with its own B.IOR base and element row stride.
    fn run_tprefetch(&mut self) -> Result<(), Fault> {
        let dt = self.effective_data_type().ok_or(Fault::TileLegality)?;
        let b = &self.bundle;
        let dims_legal = (0..3).all(|i| !b.dim_present[i] || (1..=65535).contains(&b.dims[i]));
        if b.tile_binding_count() != 0
            || b.shared_binding_count() != 0
            || !self.scalar_schema_legal()
            || !dims_legal
            || !self.datr_legal_for_tlsu()
        {
            return Err(Fault::TileLegality);
        }
        // The destination-free TLOAD defaults: LB0 = 1, LB1 = 1, LB2 = LB0.
        let vc = b.dim_in_range(0).unwrap_or(1);
        let vr = b.dim_in_range(1).unwrap_or(1);
        let columns = b.dim_in_range(2).unwrap_or(vc);
        let shape = crate::prefetch::PrefetchShape {
            valid_columns: vc,
            valid_rows: vr,
            columns,
        };
        let s = b.scalar;
        let mut bases = [0u64; PTO_MODEL_MEMORY_AGENTS];
        let mut strides = [columns; PTO_MODEL_MEMORY_AGENTS];
        let source = if s.valid {
            StrideSource::Encoded
        } else {
            StrideSource::Omitted
        };
        for pe in 0..PTO_MODEL_MEMORY_AGENTS {
            if s.valid {
                bases[pe] = self.read_pe_gpr(pe, s.source0);
                strides[pe] = self.read_pe_gpr(pe, s.source1);
            }
            self.record_prefetch_operands(pe, dt, shape, bases[pe], strides[pe], source);
        }
        self.tprefetch_core(bases, strides, shape, dt)
    }

    /// `BundleMGATHERDimensionsLegal` (MSCATTER uses it too): LB0 present,
    /// every present dimension 1..=65535, ValidCol <= Col, Col a power of
    /// two, ValidRow * ValidCol within the model's tile elements. Returns
    /// (valid columns, valid rows, columns) with LB1 = 1 and LB2 = LB0 when
    /// omitted.
    fn indexed_dimensions(&self) -> Option<(u64, u64, u64)> {
        let b = &self.bundle;
        if !b.dim_present[0]
            || (0..3).any(|i| b.dim_present[i] && !(1..=65535).contains(&b.dims[i]))
        {
            return None;
        }
        let vc = b.dims[0];
        let vr = if b.dim_present[1] { b.dims[1] } else { 1 };
        let columns = if b.dim_present[2] { b.dims[2] } else { vc };
        (vc <= columns
            && columns.is_power_of_two()
            && vr * vc <= crate::tile::PTO_MODEL_TILE_ELEMENTS)
            .then_some((vc, vr, columns))
    }

    /// `SelectedBundleTileDataAttributesLegal` of the indexed and GMOV
    /// schemas: B.DATR may carry Layout (and, for MGATHER only, PadValue);
    /// comparison, rounding, saturation and canonicalization must be zero.
    fn datr_legal_for_indexed(&self, pad_allowed: bool) -> bool {
        let d = &self.bundle.datr;
        !d.present
            || (d.comparison_mode == 0
                && d.rounding_mode == 0
                && !d.saturating
                && !d.canonicalize
                && (pad_allowed || d.pad_value == 0)
                && !is_cube_conversion(d.layout))
    }

    /// `BundleOperationGPRBindingValuesLegal` for `B.IOR BaseGPR, zero,
    /// zero, ->zero` (MGATHER, MSCATTER; the B.IOR is required) and `B.IOR
    /// peer_tid` (GMOV; optional).
    fn single_gpr_schema_legal(&self, required: bool) -> bool {
        let s = &self.bundle.scalar;
        if !s.valid {
            return !required;
        }
        s.source1 == 0 && s.source2 == 0 && s.destination == 0
    }

    /// `ExecuteBundleMGATHEROperation` (asl/block/model/dispatch/tlsu-mgather.asl):
    /// PE_MASK 0000 is a no-op; one Local B.IOT with IndexTile and a
    /// destination; the base from the current PE's B.IOR RegSrc0; the
    /// destination is allocated after every schema check and rolled back on
    /// a fault.
    fn run_mgather(&mut self) -> Result<(), Fault> {
        if self.bundle.selected_tile_mask_is_zero() {
            return Ok(());
        }
        let dims = self.indexed_dimensions();
        let b = &self.bundle;
        if b.shared_binding_count() != 0
            || b.tile_binding_count() != 1
            || !self.single_gpr_schema_legal(true)
            || dims.is_none()
        {
            return Err(Fault::TileLegality);
        }
        if !self.datr_legal_for_indexed(true) {
            return Err(Fault::TileLegality);
        }
        let (vc, vr, columns) = dims.unwrap_or((1, 1, 1));
        let slot = b.tile_bindings.iter().position(|t| t.valid).unwrap_or(0);
        let binding = b.tile_bindings[slot];
        let dt = self.effective_data_type().ok_or(Fault::TileLegality)?;
        if !binding.destination_valid
            || !binding.source0_valid
            || binding.source1_valid
            || !binding.last
            || !self.tile_source_contents_defined(binding.source0)
            || !crate::gather::indexed_tlsu_index_data_type_legal(
                self.tiles[binding.source0 as usize].data_type,
            )
            || !crate::gather::indexed_tlsu_transfer_data_type_legal(dt)
        {
            return Err(Fault::TileLegality);
        }
        let it = &self.tiles[binding.source0 as usize];
        if it.valid_rows != vr || it.valid_columns != vc {
            return Err(Fault::TileLegality);
        }
        let layout = self.bundle.tile_layout();
        let dest = if binding.allocated_by_bundle {
            binding.destination
        } else {
            self.resolve_destination(slot, vr, vc, columns, dt, layout)?
        };
        if !self.tile_operands_legal_mgather(dest, binding.source0) {
            self.roll_back_destinations();
            return Err(Fault::TileLegality);
        }
        let base = self.read_pe_gpr(self.current_pe, self.bundle.scalar.source0);
        let pad = self.bundle.pad_value();
        if let Err(f) = self.mgather(dest, base, binding.source0, pad) {
            self.roll_back_destinations();
            return Err(f);
        }
        Ok(())
    }

    /// `ExecuteBundleMSCATTEROperation` (asl/block/model/dispatch/tlsu-mscatter.asl):
    /// PE_MASK 0000 is a no-op; one Local B.IOT `DataTile, IndexTile` with
    /// no destination; source and index tiles must match the LB shape, the
    /// BSTART type and the bundle layout.
    fn run_mscatter(&mut self) -> Result<(), Fault> {
        if self.bundle.selected_tile_mask_is_zero() {
            return Ok(());
        }
        let dims = self.indexed_dimensions();
        let b = &self.bundle;
        let slot = b.tile_bindings.iter().position(|t| t.valid).unwrap_or(0);
        let binding = b.tile_bindings[slot];
        let bindings_legal = b.tile_binding_count() == 1
            && !binding.destination_valid
            && binding.destination_size == 0
            && binding.source0_valid
            && binding.source1_valid
            && binding.last;
        if b.shared_binding_count() != 0
            || !self.single_gpr_schema_legal(true)
            || dims.is_none()
            || !bindings_legal
        {
            return Err(Fault::TileLegality);
        }
        if !self.datr_legal_for_indexed(false) {
            return Err(Fault::TileLegality);
        }
        let (vc, vr, columns) = dims.unwrap_or((1, 1, 1));
        let dt = self.effective_data_type().ok_or(Fault::TileLegality)?;
        let layout = self.bundle.tile_layout();
        let (src, idx) = (binding.source0, binding.source1);
        if !self.tile_source_contents_defined(src) || !self.tile_source_contents_defined(idx) {
            return Err(Fault::TileLegality);
        }
        let (s, i) = (&self.tiles[src as usize], &self.tiles[idx as usize]);
        if s.data_type != dt
            || !crate::gather::indexed_tlsu_index_data_type_legal(i.data_type)
            || !crate::gather::indexed_tlsu_transfer_data_type_legal(dt)
            || s.valid_rows != vr
            || s.valid_columns != vc
            || s.columns != columns
            || i.valid_rows != vr
            || i.valid_columns != vc
            || s.layout != layout
            || i.layout != layout
        {
            return Err(Fault::TileLegality);
        }
        let base = self.read_pe_gpr(self.current_pe, self.bundle.scalar.source0);
        self.mscatter(base, src, idx)
    }

    /// `ExecuteBundleGMOVOperation` (asl/block/model/dispatch/tlsu-gmov.asl):
    /// one Local B.IOT with a source and a destination of the source's
    /// capacity; no B.DIM; the source fully allocated in all four PEs
    /// (`BundleGMOVCore4SourceReady`) and defined; every PE's `peer_tid`
    /// (B.IOR RegSrc0, or zero when B.IOR is omitted) below 4, checked for
    /// all four PEs before the destination is allocated.
    fn run_gmov(&mut self) -> Result<(), Fault> {
        let b = &self.bundle;
        if b.shared_binding_count() != 0
            || !self.single_gpr_schema_legal(false)
            || b.tile_binding_count() != 1
        {
            return Err(Fault::TileLegality);
        }
        if !self.datr_legal_for_indexed(false) {
            return Err(Fault::TileLegality);
        }
        let dt = self.effective_data_type().ok_or(Fault::TileLegality)?;
        let layout = b.tile_layout();
        let slot = b.tile_bindings.iter().position(|t| t.valid).unwrap_or(0);
        let binding = b.tile_bindings[slot];
        let src = binding.source0;
        let ready = self.tile_source_contents_defined(src)
            && self.tile_masks.get(src as usize) == Some(&0b1111);
        let size = forms::tile_size_code_bytes(binding.destination_size);
        let src_ok = ready && {
            let s = &self.tiles[src as usize];
            size == Some(s.capacity_bytes) && s.data_type == dt && s.layout == layout
        };
        if !binding.destination_valid
            || !binding.source0_valid
            || binding.source1_valid
            || !binding.last
            || !src_ok
            || !crate::gather::tile_carrier_or_packed_baseline_data_type_supported(dt)
        {
            return Err(Fault::TileLegality);
        }
        if self.bundle.dim_present.iter().any(|&p| p) {
            return Err(Fault::TileLegality);
        }
        let s = self.bundle.scalar;
        let mut peer = [0u64; PTO_MODEL_MEMORY_AGENTS];
        for (pe, p) in peer.iter_mut().enumerate() {
            *p = if s.valid {
                self.read_pe_gpr(pe, s.source0)
            } else {
                0
            };
            if *p >= PTO_MODEL_MEMORY_AGENTS as u64 {
                return Err(Fault::TileLegality);
            }
        }
        let (vr, vc, columns) = {
            let t = &self.tiles[src as usize];
            (t.valid_rows, t.valid_columns, t.columns)
        };
        let dest = if binding.allocated_by_bundle {
            binding.destination
        } else {
            self.resolve_destination(slot, vr, vc, columns, dt, layout)?
        };
        if !self.tile_operands_legal_gmov(dest, src, 0) {
            self.roll_back_destinations();
            return Err(Fault::TileLegality);
        }
        self.gmov(dest, src, 0)
    }

    /// `ResolveBundleEffectiveDataType`: a concrete B.DATR type wins over
    /// the BSTART type.
    fn effective_data_type(&self) -> Option<DataType> {
        let b = &self.bundle;
        if b.datr.present && b.datr.data_type != DTYPE_NONE {
            if let Some(t) = DataType::from_code(b.datr.data_type) {
                return Some(t);
            }
        }
        DataType::from_code(b.op.data_type)
    }

    /// `TileOperationDATRFieldsLegal` for ordinary (non-CUBE) TLOAD/TSTORE:
    /// only Layout may be nonzero; PadValue belongs to the CUBE conversion
    /// form (handled before this check) and must be zero here.
    fn datr_legal_for_tlsu(&self) -> bool {
        let d = &self.bundle.datr;
        !d.present
            || (d.comparison_mode == 0
                && d.rounding_mode == 0
                && !d.saturating
                && !d.canonicalize
                && d.pad_value == 0)
    }

    /// `BundleOperationScalarBindingSchemaLegal` for TLOAD/TSTORE: two GPR
    /// inputs (base, row stride); RegSrc2 and RegDst must encode zero.
    fn scalar_schema_legal(&self) -> bool {
        let s = &self.bundle.scalar;
        !s.valid || (s.source2 == 0 && s.destination == 0)
    }

    /// Base and row stride of PE `pe`: B.IOR RegSrc0/RegSrc1 read from that
    /// PE's private GPR file, or (B.IOR omitted) base 0 and the dense
    /// stride of `dense_columns`. An encoded zero selector reads GPR 0: a
    /// real zero, never the default.
    fn pe_base_stride(&mut self, pe: usize, dense_columns: u64, dt: DataType) -> (u64, u64) {
        let s = self.bundle.scalar;
        self.pending_stride_source = Some(if s.valid {
            StrideSource::Encoded
        } else {
            StrideSource::Omitted
        });
        if s.valid {
            (
                self.read_pe_gpr(pe, s.source0),
                self.read_pe_gpr(pe, s.source1),
            )
        } else {
            (0, tile_dense_row_stride_bytes(dense_columns, dt))
        }
    }

    /// Records the resolved TLOAD/TSTORE operands (`BundleTileInstructionOperands`)
    /// of the current PE as a `TransferInfo`, before destination allocation;
    /// the direct operation then does not record them again.
    #[allow(clippy::too_many_arguments)]
    fn record_operands(
        &mut self,
        pe: usize,
        store: bool,
        dt: DataType,
        columns: u64,
        vr: u64,
        vc: u64,
        base: u64,
        stride: u64,
    ) {
        let source = self
            .pending_stride_source
            .take()
            .unwrap_or(StrideSource::Encoded);
        if self.access_logging {
            self.transfers.push(crate::machine::TransferInfo {
                pe: self.capture.unwrap_or(pe),
                store,
                data_type: dt,
                physical_columns: columns,
                valid_rows: vr,
                valid_columns: vc,
                base,
                row_stride_bytes: stride,
                row_stride_elements: 0,
                prefetch: false,
                stride_source: source,
                shared: None,
            });
        }
        self.transfer_recorded = true;
    }

    /// Ordinary Local TLOAD/TSTORE (`ExecuteBundleTileOperationLocally…`):
    /// the current PE's fragment, its base and stride from its GPRs.
    fn run_local_tlsu(&mut self) -> Result<(), Fault> {
        let tstore = self.bundle.op.function == 1;
        let count = self.bundle.tile_binding_count();
        let first = self
            .bundle
            .tile_bindings
            .iter()
            .copied()
            .find(|b| b.valid)
            .unwrap_or_default();
        // BundleOperationBindingsComplete: TLOAD one destination, TSTORE one source.
        let complete = count == 1
            && if tstore {
                first.source0_valid && !first.source1_valid && !first.destination_valid
            } else {
                first.destination_valid && !first.source0_valid && !first.source1_valid
            };
        if !complete || !self.scalar_schema_legal() {
            return Err(Fault::BundleControl);
        }
        if !self.datr_legal_for_tlsu() {
            return Err(Fault::TileLegality);
        }
        let dt = self.effective_data_type().ok_or(Fault::TileLegality)?;
        let layout = self.bundle.tile_layout();
        let pe = self.current_pe;
        if tstore {
            let src = first.source0;
            let Some(t) = self.tiles.get(src as usize) else {
                return Err(Fault::TileLegality);
            };
            if !t.allocated
                || !t.contents_defined
                || t.data_type != dt
                || t.layout.is_cube()
                || t.layout == TileLayout::ImplementationDefined
            {
                return Err(Fault::TileLegality);
            }
            // Omitted B.IOR: the dense pitch of LB2 when present, else the
            // source's physical columns (BundleDestinationPhysicalColumns).
            let columns = self.bundle.dim_in_range(2).unwrap_or(t.columns);
            let (vr, vc) = (t.valid_rows, t.valid_columns);
            let (base, stride) = self.pe_base_stride(pe, columns, dt);
            self.record_operands(pe, true, dt, columns, vr, vc, base, stride);
            return self.tstore(base, stride, src);
        }
        // TLOAD: shape from LB0/LB1/LB2 (defaults 1, 1, ValidCol).
        let valid_columns = self.bundle.dim_in_range(0).unwrap_or(1);
        let valid_rows = self.bundle.dim_in_range(1).unwrap_or(1);
        let columns = self.bundle.dim_in_range(2).unwrap_or(valid_columns);
        let (base, stride) = self.pe_base_stride(pe, columns, dt);
        // The operands are resolved (and reported) before any allocation.
        self.record_operands(
            pe,
            false,
            dt,
            columns,
            valid_rows,
            valid_columns,
            base,
            stride,
        );
        // A binding whose destination is already allocated (a re-executed
        // bundle) reloads it; ResolveBundleTileDestinations skips it.
        let slot = self
            .bundle
            .tile_bindings
            .iter()
            .position(|b| b.valid)
            .unwrap_or(0);
        let dest = if self.bundle.tile_bindings[slot].allocated_by_bundle {
            self.bundle.tile_bindings[slot].destination
        } else {
            self.resolve_destination(slot, valid_rows, valid_columns, columns, dt, layout)?
        };
        let pad = self.bundle.pad_value();
        if let Err(f) = self.tload_with_pad(dest, base, stride, pad) {
            self.roll_back_destinations();
            return Err(f);
        }
        Ok(())
    }

    /// `ResolveBundleTileDestinationsWithShapeAndType` for the single
    /// destination of binding `binding`: first free register of its hand,
    /// capacity check, descriptor check, then allocation.
    fn resolve_destination(
        &mut self,
        binding: usize,
        valid_rows: u64,
        valid_columns: u64,
        columns: u64,
        dt: DataType,
        layout: TileLayout,
    ) -> Result<u32, Fault> {
        let b = self.bundle.tile_bindings[binding];
        let capacity =
            forms::tile_size_code_bytes(b.destination_size).ok_or(Fault::TileLegality)?;
        let hand = b.destination_hand as usize;
        let index = (hand * 16..hand * 16 + 16)
            .find(|&i| i < PTO_TILE_REGISTER_COUNT && !self.tiles[i].allocated)
            .ok_or(Fault::TileAllocation)?;
        if self.core_tile_capacity_in_use() + tile::tile_core_allocation_bytes(b.pe_mask, capacity)
            > tile::PTO_TILE_CAPACITY_BYTES
        {
            return Err(Fault::TileAllocation);
        }
        let rows = tile::derived_tile_rows(capacity, columns, dt);
        if !tile::tile_descriptor_shape_legal(capacity, columns, valid_rows, valid_columns, dt)
            || rows * columns > tile::tile_logical_element_capacity(capacity, dt)
        {
            return Err(Fault::TileAllocation);
        }
        self.tiles[index] = TileInfo::allocated_from(
            &mut self.tiles[index],
            capacity,
            rows,
            columns,
            valid_rows,
            valid_columns,
            dt,
            layout,
            TileLocation::Any,
        );
        self.tile_masks[index] = b.pe_mask;
        let tb = &mut self.bundle.tile_bindings[binding];
        tb.destination = index as u32;
        tb.allocated_by_bundle = true;
        Ok(index as u32)
    }

    /// `RollBackBundleTileDestinations`.
    fn roll_back_destinations(&mut self) {
        for i in 0..PTO_BUNDLE_TILE_BINDING_COUNT {
            let b = self.bundle.tile_bindings[i];
            if b.valid && b.allocated_by_bundle {
                self.release_tile(b.destination);
                let tb = &mut self.bundle.tile_bindings[i];
                tb.destination = tb.destination_hand;
                tb.allocated_by_bundle = false;
            }
        }
        self.trap_context_follow_rollback();
    }

    /// Per-PE base/stride of every PE (only selected ones are used).
    fn all_pe_addressing(&mut self, dense_columns: u64, dt: DataType) -> PeAddressing {
        let mut a = PeAddressing::default();
        for pe in 0..PTO_MODEL_MEMORY_AGENTS {
            let (b, s) = self.pe_base_stride(pe, dense_columns, dt);
            a.base[pe] = b;
            a.stride[pe] = s;
        }
        a
    }

    /// `ExecuteBundleSharedTLSUOperation`: Shared TLOAD (function 0),
    /// TSTORE Function 1 (all four PEs) and Function 14 (TSTORE.SPART, any
    /// nonzero subset).
    fn run_shared_tlsu(&mut self) -> Result<(), Fault> {
        let function = self.bundle.op.function;
        if self.bundle.shared_binding_count() != 1 {
            return Err(Fault::TileLegality);
        }
        let sb = self.bundle.shared_bindings[0];
        if sb.pe_mask == 0 {
            return Ok(());
        }
        if forms::tlsu_operation_name(function).is_none() {
            return Err(Fault::IllegalInstruction);
        }
        let dt = DataType::from_code(self.bundle.op.data_type).ok_or(Fault::TileLegality)?;
        if !self.scalar_schema_legal() {
            return Err(Fault::BundleControl);
        }
        if !self.datr_legal_for_tlsu() {
            return Err(Fault::TileLegality);
        }
        let layout = self.bundle.tile_layout();
        let id = sb.shared_id;
        let tile_bindings = self.bundle.tile_binding_count();
        if function == 0 {
            if sb.size_code == 0
                || forms::tile_size_code_bytes(sb.size_code).is_none()
                || tile_bindings != 0
            {
                return Err(Fault::TileLegality);
            }
            // Shared TLOAD takes LB0/LB1/LB2 as they are: no Local defaults.
            let (vc, vr, cols) = (
                self.bundle.dims[0],
                self.bundle.dims[1],
                self.bundle.dims[2],
            );
            if !(1..=65535).contains(&vc)
                || !(1..=65535).contains(&vr)
                || !(1..=65535).contains(&cols)
                || vc > cols
            {
                return Err(Fault::TileLegality);
            }
            let a = self.all_pe_addressing(cols, dt);
            self.tload_shared(id, &a, sb.size_code, cols, vr, vc, dt, layout, sb.pe_mask)?;
        } else {
            let mask_legal = match function {
                1 => sb.pe_mask == 0b1111,
                _ => function == 14,
            };
            if !mask_legal || sb.size_code != 0 || tile_bindings != 0 {
                return Err(Fault::TileLegality);
            }
            let rec = self.shared[id as usize].clone();
            let vc = if self.bundle.dim_present[0] {
                self.bundle.dims[0].min(65536) % 65536
            } else if rec.descriptor_valid {
                rec.tile.valid_columns
            } else {
                1
            };
            let vr = if self.bundle.dim_present[1] {
                self.bundle.dims[1].min(65536) % 65536
            } else if rec.descriptor_valid {
                rec.tile.valid_rows
            } else {
                1
            };
            let cols = if self.bundle.dim_present[2] {
                self.bundle.dims[2].min(65536) % 65536
            } else if rec.descriptor_valid {
                rec.tile.columns
            } else {
                vc
            };
            if vc < 1 || vr < 1 || cols < 1 || vc > cols {
                return Err(Fault::TileLegality);
            }
            let t = self
                .materialize_shared_for_read(id, vr, vc, cols, dt, layout)
                .ok_or(Fault::TileLegality)?;
            let a = self.all_pe_addressing(cols, dt);
            self.tstore_shared(&a, id, &t, sb.pe_mask)?;
        }
        self.bundle.shared_bindings[0].consumed = true;
        Ok(())
    }

    /// `SharedTileReadSchemaLegal` + `MaterializeSharedTileForReadSchema`:
    /// the read-only view of Shared register `id` in the bundle's schema
    /// (an unallocated register gets the smallest capacity that holds it).
    fn materialize_shared_for_read(
        &self,
        id: u8,
        vr: u64,
        vc: u64,
        cols: u64,
        dt: DataType,
        layout: TileLayout,
    ) -> Option<TileInfo> {
        if layout.is_cube() {
            return None;
        }
        let rec = &self.shared[id as usize];
        let capacity = if rec.descriptor_valid {
            rec.tile.capacity_bytes
        } else {
            tile::minimum_tile_capacity_bytes_for_shape(cols, vr, vc, dt)
        };
        if capacity == 0 {
            return None;
        }
        let legal = if rec.descriptor_valid {
            rec.allocation_mask != 0
                && rec.tile.columns == cols
                && vr <= rec.tile.valid_rows
                && vc <= rec.tile.valid_columns
                && rec.tile.data_type == dt
                && rec.tile.layout == layout
        } else {
            tile::shared_tile_capacity_is_legal(capacity)
                && tile::tile_descriptor_shape_legal(capacity, cols, vr, vc, dt)
                && tile::derived_tile_rows(capacity, cols, dt) * cols
                    <= tile::tile_logical_element_capacity(capacity, dt)
        };
        if !legal {
            return None;
        }
        let rows = tile::derived_tile_rows(capacity, cols, dt);
        // The payload comes from ReadSharedTileWord; only the geometry counts.
        Some(TileInfo {
            allocated: true,
            contents_defined: false,
            capacity_bytes: capacity,
            rows,
            columns: cols,
            valid_rows: vr,
            valid_columns: vc,
            data_type: dt,
            layout,
            location: TileLocation::Any,
            payload: Default::default(),
            defined: Default::default(),
            defined_valid: 0,
            predicate: false,
        })
    }

    /// `ExecuteBundleCubeTransportOperation`: ND2M32/ND2M16/ND2N8 TLOAD into
    /// a new CUBE tile, M322ND/M162ND/N82ND TSTORE from one.
    fn run_cube_transport(&mut self) -> Result<(), Fault> {
        if self.bundle.selected_tile_mask_is_zero() {
            return Ok(());
        }
        let function = self.bundle.op.function;
        if forms::tlsu_operation_name(function).is_none() {
            return Err(Fault::IllegalInstruction);
        }
        let b = &self.bundle;
        let dims_legal = b.dim_present[0]
            && b.dim_present[1]
            && !b.dim_present[2]
            && (1..=65535).contains(&b.dims[0])
            && (1..=65535).contains(&b.dims[1]);
        let d = &b.datr;
        let attrs_legal = d.present
            && d.data_type == DTYPE_NONE
            && d.comparison_mode == 0
            && d.rounding_mode == 0
            && !d.saturating
            && !d.canonicalize
            && match function {
                0 => (21..=23).contains(&d.layout),
                1 => (24..=26).contains(&d.layout),
                _ => false,
            };
        let bindings: Vec<TileBinding> = b
            .tile_bindings
            .iter()
            .copied()
            .filter(|x| x.valid)
            .collect();
        let bindings_legal = b.shared_binding_count() == 0
            && bindings.len() == 1
            && self.scalar_schema_legal()
            && bindings[0].last
            && match function {
                0 => {
                    bindings[0].destination_valid
                        && (1..=10).contains(&bindings[0].destination_size)
                        && !bindings[0].source0_valid
                        && !bindings[0].source1_valid
                }
                _ => {
                    !bindings[0].destination_valid
                        && bindings[0].source0_valid
                        && !bindings[0].source1_valid
                }
            };
        if !dims_legal || !attrs_legal || !bindings_legal {
            return Err(Fault::TileLegality);
        }
        let layout = match d.layout {
            21 | 24 => TileLayout::CubeM32,
            22 | 25 => TileLayout::CubeM16,
            _ => TileLayout::CubeN8,
        };
        let dt = self.effective_data_type().ok_or(Fault::TileLegality)?;
        if !cube::tile_cube_data_type_supported(dt) {
            return Err(Fault::TileLegality);
        }
        let (vc, vr) = (b.dims[0], b.dims[1]);
        let pad = b.pad_value();
        let pe = self.current_pe;
        let (base, stride) = self.pe_base_stride(pe, vc, dt);
        if function == 0 {
            let bd = bindings[0];
            let capacity = forms::tile_size_code_bytes(bd.destination_size).unwrap_or(0);
            if !cube::tile_cube_descriptor_shape_legal(capacity, vr, vc, dt, layout)
                || self.core_tile_capacity_in_use()
                    + tile::tile_core_allocation_bytes(bd.pe_mask, capacity)
                    > tile::PTO_TILE_CAPACITY_BYTES
            {
                return Err(Fault::TileAllocation);
            }
            let hand = bd.destination_hand as usize;
            let index = (hand * 16..hand * 16 + 16)
                .find(|&i| !self.tiles[i].allocated)
                .ok_or(Fault::TileAllocation)?;
            self.tiles[index] = TileInfo::allocated_from(
                &mut self.tiles[index],
                capacity,
                cube::tile_cube_storage_rows(layout, vr, dt),
                cube::tile_cube_storage_columns(layout, vc, dt),
                vr,
                vc,
                dt,
                layout,
                TileLocation::Matrix,
            );
            self.tile_masks[index] = bd.pe_mask;
            let tb = self
                .bundle
                .tile_bindings
                .iter_mut()
                .find(|x| x.valid)
                .expect("one binding checked above");
            tb.destination = index as u32;
            tb.allocated_by_bundle = true;
            if let Err(f) = self.tload_with_pad(index as u32, base, stride, pad) {
                self.roll_back_destinations();
                return Err(f);
            }
        } else {
            let bd = bindings[0];
            let src = bd.source0 as usize;
            let Some(t) = self.tiles.get(src) else {
                return Err(Fault::TileLegality);
            };
            let legal = t.cube_descriptor_legal()
                && t.contents_defined
                && t.data_type == dt
                && t.layout == layout
                && t.valid_rows == vr
                && t.valid_columns == vc
                && self.tile_masks[src] & bd.pe_mask == bd.pe_mask;
            if !legal {
                return Err(Fault::TileLegality);
            }
            self.tstore(base, stride, src as u32)?;
        }
        Ok(())
    }

    /// `BundleCubeTransportDataAttributesLegal` on the open bundle: B.DATR
    /// present with DTYPE_NONE, a CUBE conversion layout matching the
    /// direction (ND2* for TLOAD, *2ND for TSTORE) and zero CMode, RMode,
    /// Sat, Canonicalize.
    pub fn bundle_cube_transport_data_attributes_legal(&self) -> bool {
        let b = &self.bundle;
        let d = &b.datr;
        d.present
            && d.data_type == DTYPE_NONE
            && is_cube_conversion(d.layout)
            && d.comparison_mode == 0
            && d.rounding_mode == 0
            && !d.saturating
            && !d.canonicalize
            && b.op.valid
            && !b.op.tepl
            && match b.op.function {
                0 => (21..=23).contains(&d.layout),
                1 => (24..=26).contains(&d.layout),
                _ => false,
            }
    }

    /// Whether PE `pe` takes part in the open bundle's Shared binding.
    pub fn bundle_pe_selected(&self, pe: usize) -> bool {
        let b = &self.bundle;
        b.shared_bindings
            .iter()
            .any(|s| s.valid && pe_selected(s.pe_mask, pe))
            || b.tile_bindings
                .iter()
                .any(|t| t.valid && pe_selected(t.pe_mask, pe))
    }
}

/// `SharedStorePEMaskLegal` (PTO-ARCH-GM-ACCESS-001): Function 1 needs all
/// four PEs, Function 14 (TSTORE.SPART) any subset; mask 0000 is always a
/// legal no-op.
pub fn shared_store_pe_mask_legal(function: u32, pe_mask: u8) -> bool {
    if pe_mask & 0xf == 0 {
        true
    } else if function == 1 {
        pe_mask & 0xf == 0b1111
    } else {
        function == 14
    }
}

#[cfg(test)]
mod clear_tests {
    use super::*;

    /// A bundle with every member changed clears to exactly `Bundle::default()`.
    #[test]
    fn clear_leaves_the_default_bundle() {
        let mut b = Bundle {
            active: true,
            body_active: true,
            op: Operation {
                valid: true,
                tepl: true,
                function: 1,
                data_type: 3,
            },
            datr: DataAttributes {
                present: true,
                layout: 4,
                ..DataAttributes::default()
            },
            dims: [1, 2, 3],
            dim_present: [true; 3],
            tile_bindings: [TileBinding {
                valid: true,
                last: true,
                pe_mask: 8,
                ..TileBinding::default()
            }; PTO_BUNDLE_TILE_BINDING_COUNT],
            shared_bindings: [SharedBinding {
                valid: true,
                shared_id: 5,
                ..SharedBinding::default()
            }; 4],
            scalar: ScalarBinding {
                valid: true,
                source0: 2,
                ..ScalarBinding::default()
            },
            zero_participation_seen: true,
            hint: HintState {
                present: true,
                temperature: 2,
                ..HintState::default()
            },
            catr: ControlAttributes {
                present: true,
                acquire: true,
                ..ControlAttributes::default()
            },
        };
        assert_ne!(b, Bundle::default());
        b.clear();
        assert_eq!(b, Bundle::default());
    }
}

#[cfg(test)]
mod tepl_tests {
    use super::*;

    fn machine() -> Machine {
        Machine::new(4096)
    }

    /// Runs each assembled statement; the outcome of the last.
    fn run(m: &mut Machine, text: &str) -> CommandExecution {
        let mut last = CommandExecution::Executed;
        for w in crate::asm::assemble(text).expect("assembles") {
            last = m.execute_command_instruction(w);
        }
        last
    }

    fn op(name: &str) -> TeplOperation {
        TeplOperation::from_name(name).unwrap()
    }

    #[test]
    fn tepl_start_installs_the_element_wise_selector() {
        let mut m = machine();
        assert_eq!(
            run(&mut m, "BSTART.TEPL TQUANT, U64"),
            CommandExecution::Executed
        );
        let o = m.bundle_state().op;
        assert!(o.valid && o.tepl);
        assert_eq!(o.function, 0x06a);
    }

    #[test]
    fn reserved_tepl_selector_is_illegal_before_the_open_bundle_commits() {
        let mut m = machine();
        run(&mut m, "BSTART.TLOAD U64");
        // 0x005 is a reserved TEPL selector.
        assert_eq!(
            run(&mut m, "BSTART.TEPL 0, 5, U64"),
            CommandExecution::Rejected
        );
        assert_eq!(m.last_fault(), Fault::IllegalInstruction);
        let o = m.bundle_state().op;
        assert!(m.bundle_state().active && !o.tepl && o.function == 0);
    }

    #[test]
    fn tepl_bindings_share_one_participant_mask() {
        let mut m = machine();
        run(&mut m, "BSTART.TEPL TADD, U64; B.IOT T#1, mask=1100");
        assert_eq!(
            run(&mut m, "B.IOT T#2, mask=1111, last"),
            CommandExecution::Rejected
        );
        assert_eq!(m.last_fault(), Fault::TileLegality);
        assert!(m.bundle_state().tile_bindings[0].valid);
        assert!(!m.bundle_state().tile_bindings[1].valid);
    }

    #[test]
    fn a_second_ior_in_a_tepl_bundle_is_bundle_control() {
        let mut m = machine();
        run(&mut m, "BSTART.TEPL TADDS, U64; B.IOR a0, zero");
        assert_eq!(run(&mut m, "B.IOR a1, zero"), CommandExecution::Rejected);
        assert_eq!(m.last_fault(), Fault::BundleControl);
        assert_eq!(m.bundle_state().scalar.source0, 2);
    }

    /// TSHL is TEPL selector 9, TMOV.L2S.INSERT's TLSU function number: the
    /// Local-to-Shared source-only rule must not apply to it.
    #[test]
    fn tepl_selector_nine_takes_a_destination() {
        let mut m = machine();
        run(&mut m, "BSTART.TEPL TSHL, U64");
        assert_eq!(
            run(&mut m, "B.IOT T#1, T#2, mask=1111, last, ->T<1>"),
            CommandExecution::Executed
        );
    }

    #[test]
    fn bindings_complete_counts_destinations_sources_and_the_last_binding() {
        let mut m = machine();
        run(
            &mut m,
            "BSTART.TEPL TADDS, U64; B.IOT T#1, mask=1111, last, ->T<1>",
        );
        assert!(m.bundle_operation_bindings_complete(op("TADDS")));
        // TADD wants two sources, TSORT two destinations.
        assert!(!m.bundle_operation_bindings_complete(op("TADD")));
        assert!(!m.bundle_operation_bindings_complete(op("TSORT")));
        let mut open = machine();
        run(
            &mut open,
            "BSTART.TEPL TADDS, U64; B.IOT T#1, mask=1111, ->T<1>",
        );
        assert!(
            !open.bundle_operation_bindings_complete(op("TADDS")),
            "no last binding"
        );
        // A surplus B.IOR source.
        run(&mut m, "B.IOR a0, a1");
        assert!(!m.bundle_operation_bindings_complete(op("TADDS")));
        assert!(m.bundle_operation_bindings_complete(op("TQUANT")));
    }

    #[test]
    fn tepl_commit_with_incomplete_bindings_is_bundle_control() {
        let mut m = machine();
        run(
            &mut m,
            "BSTART.TEPL TADDS, U64; B.IOT mask=1111, last, ->T<1>",
        );
        assert_eq!(run(&mut m, "BSTOP"), CommandExecution::Rejected);
        assert_eq!(m.last_fault(), Fault::BundleControl);
        assert!(m.bundle_state().active, "left open for restart");
    }

    #[test]
    fn tepl_commit_with_a_non_boolean_flag_is_tile_legality() {
        let mut m = machine();
        m.write_pe_gpr(0, 2, 2);
        // TCI: scalar0 from RegSrc0, flag0 from RegSrc1 (a0 = GPR 2 holds 2).
        run(
            &mut m,
            "BSTART.TEPL TCI, S32; B.IOT mask=1111, last, ->T<1>; B.IOR zero, a0",
        );
        assert_eq!(run(&mut m, "BSTOP"), CommandExecution::Rejected);
        assert_eq!(m.last_fault(), Fault::TileLegality);
    }

    #[test]
    fn a_complete_tepl_bundle_stops_at_the_unmodelled_engine() {
        let mut m = machine();
        run(
            &mut m,
            "BSTART.TEPL TCI, S32; B.IOT mask=1111, last, ->T<1>; B.IOR zero, zero",
        );
        assert_eq!(run(&mut m, "BSTOP"), CommandExecution::Rejected);
        assert_eq!(m.last_fault(), Fault::IllegalInstruction);
        assert_eq!(m.tile_allocation_mask(0), 0, "nothing published");
    }

    #[test]
    fn a_zero_mask_tepl_bundle_commits_as_a_no_op() {
        let mut m = machine();
        run(
            &mut m,
            "BSTART.TEPL TADDS, U64; B.IOT mask=0000, last, ->T<1>",
        );
        assert_eq!(run(&mut m, "BSTOP"), CommandExecution::Executed);
        assert!(!m.bundle_state().active);
    }
}
