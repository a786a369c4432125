//! The PTO machine: four PEs, GM, Local and Shared tiles, bundle state.
//!
//! ASL: `asl/arch/programming-model/*` (PEs, GPR files, tile registers),
//! `asl/block/model/**` (bundle machine), `asl/tile/model/memory/load-store.asl`
//! and `asl/block/model/dispatch/shared-tlsu.asl` (TLOAD/TSTORE).

use crate::gm::GlobalMemory;
use crate::shared::{self, SharedTileInfo};
use crate::tile::TileInfo;
use crate::types::{DataType, Fault, TileLayout, TileLocation};

/// `PTO_ABSOLUTE_GPR_COUNT`: GPRs of one PE (GPR 0 reads zero).
pub const PTO_ABSOLUTE_GPR_COUNT: usize = 24;
/// `PTO_MODEL_MEMORY_AGENTS`: PEs of one core.
pub const PTO_MODEL_MEMORY_AGENTS: usize = 4;
/// `PTO_TILE_REGISTER_COUNT`.
pub const PTO_TILE_REGISTER_COUNT: usize = 64;
/// `PTO_SHARED_TILE_COUNT`.
pub const PTO_SHARED_TILE_COUNT: usize = 256;
/// `PTO_MODEL_MEMORY_BYTES` of the reference profile.
pub const PTO_MODEL_MEMORY_BYTES: u64 = 4096;

/// `CommandExecutionStatus`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandExecution {
    Executed,
    Rejected,
}

/// Arguments of `ConfigureTile` / `ConfigureTileForMask`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileConfig {
    pub capacity: u64,
    pub rows: u64,
    pub cols: u64,
    pub valid_rows: u64,
    pub valid_cols: u64,
    pub dtype: DataType,
    pub layout: TileLayout,
    pub location: TileLocation,
    /// Allocation mask as the spec writes it: bit 3 is the leftmost of
    /// `'1111'`; `None` = `ConfigureTile` (mask `'0001'`).
    pub mask: Option<u8>,
}

/// Which nibble of a byte a packed four-bit access touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Nibble {
    Low,
    High,
}

/// One GM element access of the last executed bundle, by PE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GmAccess {
    pub pe: usize,
    pub addr: u64,
    /// Bytes touched starting at `addr` (element width; 1 for nibbles).
    pub size: u32,
    /// `Some` for packed four-bit elements.
    pub nibble: Option<Nibble>,
    /// Tile row and column of the element.
    pub row: u64,
    pub col: u64,
    pub write: bool,
}

/// The whole architectural state of one core, as plain data.
#[derive(Clone, Debug)]
pub struct Machine {
    pub(crate) gpr: [[u64; PTO_ABSOLUTE_GPR_COUNT]; PTO_MODEL_MEMORY_AGENTS],
    pub(crate) current_pe: usize,
    pub(crate) gm: GlobalMemory,
    pub(crate) tiles: Vec<TileInfo>,
    pub(crate) tile_masks: [u8; PTO_TILE_REGISTER_COUNT],
    pub(crate) shared: Vec<SharedTileInfo>,
    pub(crate) last_fault: Fault,
    pub(crate) last_fault_addr: Option<u64>,
    pub(crate) element_stride_mode: bool,
    pub(crate) accesses: Vec<GmAccess>,
    pub(crate) dims: [Option<u64>; 3],
}

impl Machine {
    /// A machine with `memory_bytes` of GM (4096 = reference profile), after
    /// `ResetProfileState`.
    pub fn new(memory_bytes: u64) -> Self {
        Machine {
            gpr: [[0; PTO_ABSOLUTE_GPR_COUNT]; PTO_MODEL_MEMORY_AGENTS],
            current_pe: 0,
            gm: GlobalMemory::new(memory_bytes),
            tiles: vec![TileInfo::default(); PTO_TILE_REGISTER_COUNT],
            tile_masks: [0; PTO_TILE_REGISTER_COUNT],
            shared: vec![SharedTileInfo::default(); PTO_SHARED_TILE_COUNT],
            last_fault: Fault::None,
            last_fault_addr: None,
            element_stride_mode: false,
            accesses: Vec::new(),
            dims: [None; 3],
        }
    }

    /// GM size in bytes.
    pub fn memory_bytes(&self) -> u64 {
        self.gm.size()
    }

    /// `ResetProfileState`.
    pub fn reset_profile_state(&mut self) {
        let esm = self.element_stride_mode;
        *self = Machine::new(self.gm.size());
        self.element_stride_mode = esm;
    }

    /// `ResetBundleControlState`.
    pub fn reset_bundle_control_state(&mut self) {
        self.dims = [None; 3];
    }

    /// `WritePEGPR`: writes to GPR 0 are ignored; out-of-range PE/reg ignored.
    pub fn write_pe_gpr(&mut self, pe: usize, reg: u32, value: u64) {
        if reg != 0 && pe < PTO_MODEL_MEMORY_AGENTS && (reg as usize) < PTO_ABSOLUTE_GPR_COUNT {
            self.gpr[pe][reg as usize] = value;
        }
    }

    /// `ReadPEGPR`: GPR 0 reads zero.
    pub fn read_pe_gpr(&self, pe: usize, reg: u32) -> u64 {
        if reg == 0 || pe >= PTO_MODEL_MEMORY_AGENTS || reg as usize >= PTO_ABSOLUTE_GPR_COUNT {
            0
        } else {
            self.gpr[pe][reg as usize]
        }
    }

    /// The current PE (`CurrentPE`), 0 after reset.
    pub fn current_pe(&self) -> usize {
        self.current_pe
    }

    /// `WriteMemoryByte`.
    pub fn write_memory_byte(&mut self, addr: u64, value: u8) -> Result<(), Fault> {
        if !self.gm.in_bounds(addr, 1) {
            return Err(Fault::DataPage);
        }
        self.gm.set_byte(addr, value);
        Ok(())
    }

    /// `ReadMemoryByte`.
    pub fn read_memory_byte(&self, addr: u64) -> Result<u8, Fault> {
        if !self.gm.in_bounds(addr, 1) {
            return Err(Fault::DataPage);
        }
        Ok(self.gm.byte(addr))
    }

    /// `Store`: little-endian, naturally aligned, bounded.
    pub fn store(&mut self, addr: u64, size: u32, value: u64) -> Result<(), Fault> {
        check_scalar(addr, size)?;
        if !self.gm.in_bounds(addr, size as u64) {
            return Err(Fault::DataPage);
        }
        self.gm
            .write_slice(addr, &value.to_le_bytes()[..size as usize]);
        Ok(())
    }

    /// `LoadUnsigned`: little-endian, zero-extended.
    pub fn load_unsigned(&self, addr: u64, size: u32) -> Result<u64, Fault> {
        check_scalar(addr, size)?;
        if !self.gm.in_bounds(addr, size as u64) {
            return Err(Fault::DataPage);
        }
        let mut b = [0u8; 8];
        self.gm.read_slice(addr, &mut b[..size as usize]);
        Ok(u64::from_le_bytes(b))
    }

    /// `ConfigureTile` (cfg.mask `None`) / `ConfigureTileForMask`.
    pub fn configure_tile(&mut self, index: u32, cfg: &TileConfig) -> Result<(), Fault> {
        let _ = (index, cfg);
        Err(Fault::TileLegality)
    }

    /// `WriteTileElement`.
    pub fn write_tile_element(
        &mut self,
        index: u32,
        row: u64,
        col: u64,
        value: u64,
    ) -> Result<(), Fault> {
        let _ = (index, row, col, value);
        Err(Fault::TileLegality)
    }

    /// `ReadTileElement`: `Ok(None)` when the element is undefined.
    pub fn read_tile_element(&self, index: u32, row: u64, col: u64) -> Result<Option<u64>, Fault> {
        let _ = (index, row, col);
        Err(Fault::TileLegality)
    }

    /// Descriptor of Local tile `index` (`_Tiles[[index]]`).
    pub fn tile_record(&self, index: u32) -> Option<&TileInfo> {
        self.tiles.get(index as usize)
    }

    /// `InstallSharedTile(id, _Tiles[[from_tile]], mask)`.
    pub fn install_shared_tile(&mut self, id: u8, from_tile: u32, mask: u8) -> Result<(), Fault> {
        let _ = (id, from_tile, mask);
        Err(Fault::TileLegality)
    }

    /// `SharedTileRecord(id)`.
    pub fn shared_tile_record(&self, id: u8) -> &SharedTileInfo {
        &self.shared[id as usize]
    }

    /// `ReadSharedTileWord(id, element)`: `element` is the row-major packed
    /// element index; undefined elements give `UndefinedSharedTileWord`.
    pub fn read_shared_tile_word(&self, id: u8, index: u64) -> Result<Option<u64>, Fault> {
        Ok(Some(Self::undefined_shared_tile_word(id, index)))
    }

    /// `UndefinedSharedTileWord`.
    pub fn undefined_shared_tile_word(id: u8, index: u64) -> u64 {
        shared::undefined_shared_tile_word(id, index)
    }

    /// `SetBundleDimension(index, value)` (LB0, LB1, LB2).
    pub fn set_bundle_dimension(&mut self, index: u32, value: u64) {
        if let Some(d) = self.dims.get_mut(index as usize) {
            *d = Some(value & 0xffff);
        }
    }

    /// `ExecuteCommandInstruction(word, 32)`.
    pub fn execute_command_instruction(&mut self, word: u32) -> CommandExecution {
        let _ = word;
        self.last_fault = Fault::IllegalInstruction;
        CommandExecution::Rejected
    }

    /// `ExecuteBundleTileOperation`: true when the bundle completed.
    pub fn execute_bundle_tile_operation(&mut self) -> bool {
        false
    }

    /// `_LastFault`.
    pub fn last_fault(&self) -> Fault {
        self.last_fault
    }

    /// Faulting address recorded with `_LastFault`, when there is one.
    pub fn last_fault_address(&self) -> Option<u64> {
        self.last_fault_addr
    }

    /// `SetFault(code, addr)`.
    pub fn set_fault(&mut self, fault: Fault, addr: Option<u64>) {
        self.last_fault = fault;
        self.last_fault_addr = addr;
    }

    /// `CoreTileCapacityInUse`: bytes charged by Local and Shared tiles.
    pub fn core_tile_capacity_in_use(&self) -> u64 {
        0
    }

    /// Local tile bound as destination by bundle binding `binding`, once the
    /// bundle committed.
    pub fn bundle_destination_tile(&self, binding: u32) -> Option<u32> {
        let _ = binding;
        None
    }

    /// `--element-stride` what-if: superseded pre-ADR-0074 element-unit
    /// stride. Never the default.
    pub fn set_element_stride_mode(&mut self, on: bool) {
        self.element_stride_mode = on;
    }

    /// GM accesses of the bundles executed since the last call, per PE.
    pub fn take_accesses(&mut self) -> Vec<GmAccess> {
        std::mem::take(&mut self.accesses)
    }
}

fn check_scalar(addr: u64, size: u32) -> Result<(), Fault> {
    if !matches!(size, 1 | 2 | 4 | 8) {
        return Err(Fault::IllegalInstruction);
    }
    if addr % size as u64 != 0 {
        return Err(Fault::DataAlignment);
    }
    Ok(())
}
