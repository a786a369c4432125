//! Command words into the bundle: `ExecuteCommandInstruction` decodes a
//! word through [`crate::forms`] and applies it — BSTART opens a bundle
//! (committing an open one first), the header commands B.DATR, B.DIM, B.IOS,
//! B.IOR, B.IOT and B.HINT fill in its attributes and bindings, BSTOP
//! commits it — and `EnterBundleBody` closes the header.
//!
//! ASL: `asl/block/model/dispatch/top-level.asl` (`ExecuteCommandInstruction`),
//! `asl/block/model/dispatch/commands.asl` (`ExecuteDecodedBundleCommand`),
//! `asl/block/model/dispatch/start.asl`, `asl/block/model/lifecycle/enter-stop.asl`,
//! `asl/block/model/commit/validation.asl` (`CompleteBundleAt`),
//! `asl/block/model/operands/{tile,shared,scalar}-bindings.asl`.

use super::*;

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
    pub(super) fn bundle_start(&mut self, function: u32, tepl: bool, data_type: u32) {
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
    pub(super) fn complete_bundle(&mut self) -> bool {
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
    pub(super) fn command_hint(
        &mut self,
        d: &forms::Decoded,
        trace: bool,
        word: u32,
    ) -> Result<(), Fault> {
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

    pub(super) fn command_datr(&mut self, d: &forms::Decoded) -> Result<(), Fault> {
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

    pub(super) fn command_ios(&mut self, d: &forms::Decoded) -> Result<(), Fault> {
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

    pub(super) fn command_iot(
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
}
