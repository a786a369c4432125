//! The bundle's tile operation at commit: `ExecuteBundleTileOperation`
//! picks the operation by the BSTART function and data layout — Local or
//! Shared TLOAD/TSTORE ([`super::tlsu`]), CUBE transport ([`super::cube_transport`]),
//! TPREFETCH ([`super::prefetch`]), MGATHER/MSCATTER/GMOV
//! ([`super::indexed`]) — or, for a TEPL block, runs its operand half.
//!
//! ASL: `asl/block/model/dispatch/tile-execution.asl`
//! (`ExecuteBundleTileOperation`).

use super::*;

impl Machine {
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

    pub(super) fn run_bundle(&mut self) -> Result<(), Fault> {
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
    pub(super) fn run_tepl(&mut self) -> Result<(), Fault> {
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
}
