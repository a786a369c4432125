//! The PTO machine: four PEs, GM, Local and Shared tiles, bundle state.
//!
//! ASL: `asl/arch/programming-model/*` (PEs, GPR files, tile registers),
//! `asl/block/model/**` (bundle machine), `asl/tile/model/memory/load-store.asl`
//! and `asl/block/model/dispatch/shared-tlsu.asl` (TLOAD/TSTORE).

use crate::block::state::{Bundle, PTO_BUNDLE_TILE_BINDING_COUNT};
use crate::forms::{self, DecodeError, Decoded};
use crate::gm::GlobalMemory;
use crate::tile::shared::{self, SharedTileInfo};
use crate::tile::{self, TileInfo};
use crate::trap::{TrapContext, PTO_ACR_COUNT};
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

/// `MemoryEventKind`.
pub type MemoryEventKind = crate::memory_model::Kind;

/// A `MemoryEvent` (asl/arch/data-types/memory-model.asl): the machine
/// captures loads, stores and atomics (for a nibble store, the whole byte
/// written) into the same list the checker of [`crate::memory_model`] reads.
pub type MemoryEvent = crate::memory_model::Event;

/// Where a transfer's row stride came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrideSource {
    /// B.IOR omitted: the dense byte width of the physical row.
    Omitted,
    /// Read from the GPR that B.IOR.RegSrc1 selects (or a direct operand).
    Encoded,
}

/// One PE's part of an attempted TLOAD/TSTORE or TPREFETCH, as the model
/// resolved it (for the stride-unit warning and reports). Recorded before
/// preflight, so faulting transfers appear too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransferInfo {
    pub pe: usize,
    pub store: bool,
    pub data_type: DataType,
    pub physical_columns: u64,
    pub valid_rows: u64,
    pub valid_columns: u64,
    pub base: u64,
    /// TLOAD/TSTORE: the row stride, in bytes (ADR 0074). 0 for TPREFETCH.
    pub row_stride_bytes: u64,
    /// TPREFETCH: the row stride, in logical elements. 0 for TLOAD/TSTORE.
    pub row_stride_elements: u64,
    /// A TPREFETCH (`store` is then false).
    pub prefetch: bool,
    pub stride_source: StrideSource,
    /// Shared register for Shared transfers.
    pub shared: Option<u8>,
}

/// The whole architectural state of one core, as plain data.
#[derive(Clone, Debug)]
pub struct Machine {
    pub(crate) gpr: [[u64; PTO_ABSOLUTE_GPR_COUNT]; PTO_MODEL_MEMORY_AGENTS],
    pub(crate) current_pe: usize,
    pub(crate) gm: GlobalMemory,
    pub(crate) tiles: Vec<TileInfo>,
    /// `_TileAllocationMasks`.
    pub(crate) tile_masks: [u8; PTO_TILE_REGISTER_COUNT],
    pub(crate) shared: Vec<SharedTileInfo>,
    pub(crate) last_fault: Fault,
    pub(crate) last_fault_addr: Option<u64>,
    pub(crate) element_stride_mode: bool,
    pub(crate) access_logging: bool,
    /// Every TLOAD/TSTORE takes the per-element path (the reference the
    /// row and block paths are property-tested against).
    pub(crate) element_path: bool,
    pub(crate) accesses: Vec<GmAccess>,
    pub(crate) transfers: Vec<TransferInfo>,
    /// `_MemoryEventCaptureEnabled` with `_CurrentMemoryAgent`.
    pub(crate) capture: Option<usize>,
    /// Stride source of the transfer the bundle is about to run.
    pub(crate) pending_stride_source: Option<StrideSource>,
    /// The bundle already recorded this transfer's operands.
    pub(crate) transfer_recorded: bool,
    /// `_MemoryEvents[[0.._MemoryEventCount]]`: captured and hand-added events.
    pub(crate) events: crate::memory_model::Candidate,
    pub(crate) bundle: Bundle,
    /// Destinations of the last bundle that committed, kept after BSTOP
    /// clears the header state (for `bundle_destination_tile`).
    pub(crate) last_destinations: [Option<u32>; PTO_BUNDLE_TILE_BINDING_COUNT],
    /// `_CurrentACR`.
    pub(crate) current_acr: u8,
    /// `_BundleHintEpoch` (non-functional: counts recorded hints).
    pub(crate) hint_epoch: u64,
    /// `_LastBundleHintPayload`: the last B.HINT word recorded.
    pub(crate) last_hint_payload: u32,
    /// `_TrapContexts`, one per ring.
    pub(crate) trap_contexts: Vec<TrapContext>,
    /// `SharedTileCapacityInUse`, kept as a running sum: a Shared record
    /// becomes valid only in `atomic_update_shared_tile`, keeps its mask
    /// and capacity, and is invalidated only by reset. Saves scanning all
    /// 256 records on every destination allocation.
    pub(crate) shared_charge: u64,
    /// Words decoded lately (a speed layer: `forms::decode` is a pure
    /// function of the word, so a hit is exactly what it would return).
    pub(crate) decoded: DecodeCache,
}

/// Slots of [`DecodeCache`].
const DECODE_CACHE_SLOTS: usize = 64;

/// A direct-mapped cache of decoded command words.
#[derive(Clone, Copy)]
pub(crate) struct DecodeCache([Option<Decoded>; DECODE_CACHE_SLOTS]);

impl Default for DecodeCache {
    fn default() -> Self {
        DecodeCache([None; DECODE_CACHE_SLOTS])
    }
}

impl std::fmt::Debug for DecodeCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.iter().flatten().count();
        write!(f, "DecodeCache({n} words)")
    }
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
            access_logging: true,
            element_path: false,
            accesses: Vec::new(),
            transfers: Vec::new(),
            capture: None,
            pending_stride_source: None,
            transfer_recorded: false,
            events: Default::default(),
            bundle: Bundle::default(),
            last_destinations: [None; PTO_BUNDLE_TILE_BINDING_COUNT],
            current_acr: 0,
            hint_epoch: 0,
            last_hint_payload: 0,
            trap_contexts: vec![TrapContext::default(); PTO_ACR_COUNT],
            shared_charge: 0,
            decoded: DecodeCache::default(),
        }
    }

    /// GM size in bytes.
    pub fn memory_bytes(&self) -> u64 {
        self.gm.size()
    }

    /// `ResetProfileState`: GPRs, memory, tiles, Shared tiles, bundle state
    /// and `_LastFault` back to reset values. Keeps the memory size, the
    /// `--element-stride` mode, access logging and the element-path switch.
    pub fn reset_profile_state(&mut self) {
        let (esm, log, ep) = (
            self.element_stride_mode,
            self.access_logging,
            self.element_path,
        );
        let mut gm = std::mem::replace(&mut self.gm, GlobalMemory::new(0));
        gm.clear();
        *self = Machine::new(0);
        self.gm = gm;
        self.element_stride_mode = esm;
        self.access_logging = log;
        self.element_path = ep;
    }

    /// `ResetBundleControlState`: no bundle active, header state cleared.
    pub fn reset_bundle_control_state(&mut self) {
        self.bundle = Bundle::default();
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

    /// Selects the current PE (whose GPRs `WriteGPR` and Local operations use).
    pub fn set_current_pe(&mut self, pe: usize) {
        if pe < PTO_MODEL_MEMORY_AGENTS {
            self.current_pe = pe;
        }
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

    /// `Store` without event capture: little-endian, naturally aligned, bounded.
    pub fn store(&mut self, addr: u64, size: u32, value: u64) -> Result<(), Fault> {
        check_scalar(addr, size)?;
        if !self.gm.in_bounds(addr, size as u64) {
            return Err(Fault::DataPage);
        }
        self.gm
            .write_slice(addr, &value.to_le_bytes()[..size as usize]);
        Ok(())
    }

    /// The ASL `Store` (`StoreWithOrder(.., Relaxed)`): [`Machine::store`],
    /// and under capture a store event of the current agent.
    pub fn scalar_store(&mut self, addr: u64, size: u32, value: u64) -> Result<(), Fault> {
        self.store(addr, size, value)?;
        if let Some(agent) = self.capture {
            let order = crate::memory_model::Order::Relaxed;
            self.events.record_store(agent, addr, size, value, order);
        }
        Ok(())
    }

    /// The ASL `LoadUnsigned` (`LoadWithOrder(.., Relaxed)`):
    /// [`Machine::load_unsigned`], and under capture a load event of the
    /// current agent.
    pub fn scalar_load_unsigned(&mut self, addr: u64, size: u32) -> Result<u64, Fault> {
        let v = self.load_unsigned(addr, size)?;
        if let Some(agent) = self.capture {
            let order = crate::memory_model::Order::Relaxed;
            self.events.record_load(agent, addr, size, v, order);
        }
        Ok(v)
    }

    /// `LoadUnsigned` without event capture: little-endian, zero-extended.
    pub fn load_unsigned(&self, addr: u64, size: u32) -> Result<u64, Fault> {
        check_scalar(addr, size)?;
        if !self.gm.in_bounds(addr, size as u64) {
            return Err(Fault::DataPage);
        }
        let mut b = [0u8; 8];
        self.gm.read_slice(addr, &mut b[..size as usize]);
        Ok(u64::from_le_bytes(b))
    }

    /// Copies GM bytes out (bounds-checked), for reports and benchmarks.
    pub fn read_memory(&self, addr: u64, dst: &mut [u8]) -> Result<(), Fault> {
        if !self.gm.in_bounds(addr, dst.len() as u64) {
            return Err(Fault::DataPage);
        }
        self.gm.read_slice(addr, dst);
        Ok(())
    }

    /// Copies bytes into GM (bounds-checked), for setup and benchmarks.
    pub fn write_memory(&mut self, addr: u64, src: &[u8]) -> Result<(), Fault> {
        if !self.gm.in_bounds(addr, src.len() as u64) {
            return Err(Fault::DataPage);
        }
        self.gm.write_slice(addr, src);
        Ok(())
    }

    /// `ConfigureTile` (cfg.mask `None`, charged as mask `'0001'`) /
    /// `ConfigureTileForMask` (asl/tile/model/state/allocation.asl). The ASL
    /// asserts its preconditions; here a violated one is an `Err` and no
    /// state changes: `TileLegality` for an illegal capacity or shape,
    /// `TileAllocation` when the capacity limit would be exceeded. Rows are
    /// the derived physical rows (`DerivedTileRows`); `cfg.rows` must not
    /// exceed them. CUBE layouts follow `ConfigureCubeTileForMask`.
    pub fn configure_tile(&mut self, index: u32, cfg: &TileConfig) -> Result<(), Fault> {
        let i = index as usize;
        if i >= PTO_TILE_REGISTER_COUNT {
            return Err(Fault::TileLegality);
        }
        let mask = cfg.mask.unwrap_or(0b0001) & 0xf;
        // The ASL's parameter domains: capacity 0..262144, shapes 0..65535.
        let in_domain = cfg.capacity <= tile::PTO_TILE_CAPACITY_BYTES
            && [cfg.rows, cfg.cols, cfg.valid_rows, cfg.valid_cols]
                .iter()
                .all(|&v| v <= 65535);
        if mask == 0 || !in_domain {
            return Err(Fault::TileLegality);
        }
        let (rows, cols) = if cfg.layout.is_cube() {
            // ConfigureCubeTileForMask returns FALSE unless located in Matrix.
            if cfg.location != TileLocation::Matrix
                || !tile::cube::tile_cube_descriptor_shape_legal(
                    cfg.capacity,
                    cfg.valid_rows,
                    cfg.valid_cols,
                    cfg.dtype,
                    cfg.layout,
                )
            {
                return Err(Fault::TileLegality);
            }
            (
                tile::cube::tile_cube_storage_rows(cfg.layout, cfg.valid_rows, cfg.dtype),
                tile::cube::tile_cube_storage_columns(cfg.layout, cfg.valid_cols, cfg.dtype),
            )
        } else {
            if !tile::tile_capacity_is_legal(cfg.capacity)
                || cfg.rows == 0
                || cfg.valid_rows > cfg.rows
                || !tile::tile_descriptor_shape_legal(
                    cfg.capacity,
                    cfg.cols,
                    cfg.valid_rows,
                    cfg.valid_cols,
                    cfg.dtype,
                )
            {
                return Err(Fault::TileLegality);
            }
            let derived = tile::derived_tile_rows(cfg.capacity, cfg.cols, cfg.dtype);
            if cfg.rows > derived {
                return Err(Fault::TileLegality);
            }
            (derived, cfg.cols)
        };
        if self.tile_capacity_in_use_except(Some(i))
            + self.shared_tile_capacity_in_use()
            + tile::tile_core_allocation_bytes(mask, cfg.capacity)
            > tile::PTO_TILE_CAPACITY_BYTES
        {
            return Err(Fault::TileAllocation);
        }
        let tile = TileInfo::allocated_from(
            &mut self.tiles[i],
            cfg.capacity,
            rows,
            cols,
            cfg.valid_rows,
            cfg.valid_cols,
            cfg.dtype,
            cfg.layout,
            cfg.location,
        );
        self.tiles[i] = tile;
        self.tile_masks[i] = mask;
        Ok(())
    }

    /// `ReleaseTile`.
    pub fn release_tile(&mut self, index: u32) {
        if let Some(t) = self.tiles.get_mut(index as usize) {
            // The payload array stays (as in the ASL); the descriptor resets.
            let payload = std::mem::take(&mut t.payload);
            let defined = std::mem::take(&mut t.defined);
            *t = TileInfo {
                payload,
                defined,
                ..TileInfo::default()
            };
            self.tile_masks[index as usize] = 0;
        }
    }

    /// `WriteTileElement`: writes one element and marks it defined. `Err`
    /// (`TileLegality`) for an unallocated tile or a position outside the
    /// physical shape (an ASL assertion).
    pub fn write_tile_element(
        &mut self,
        index: u32,
        row: u64,
        col: u64,
        value: u64,
    ) -> Result<(), Fault> {
        let t = self
            .tiles
            .get_mut(index as usize)
            .filter(|t| t.allocated)
            .ok_or(Fault::TileLegality)?;
        let i = t.element_index(row, col).ok_or(Fault::TileLegality)?;
        let was_defined = t.defined.get(i);
        t.set_element(i, value, true);
        if !was_defined && row < t.valid_rows && col < t.valid_columns {
            t.defined_valid += 1;
        }
        t.contents_defined = t.defined_valid == t.valid_rows * t.valid_columns;
        Ok(())
    }

    /// `ReadTileElement`: `Ok(None)` when the element is undefined (the
    /// ASL asserts definedness), `Err(TileLegality)` when the tile is not
    /// allocated or (row, col) is outside its physical shape.
    pub fn read_tile_element(&self, index: u32, row: u64, col: u64) -> Result<Option<u64>, Fault> {
        let t = self
            .tiles
            .get(index as usize)
            .filter(|t| t.allocated)
            .ok_or(Fault::TileLegality)?;
        let i = t.element_index(row, col).ok_or(Fault::TileLegality)?;
        Ok(t.defined.get(i).then_some(t.payload.get(i)))
    }

    /// Descriptor of Local tile `index` (`_Tiles[[index]]`).
    pub fn tile_record(&self, index: u32) -> Option<&TileInfo> {
        self.tiles.get(index as usize)
    }

    /// `_TileAllocationMasks[[index]]`.
    pub fn tile_allocation_mask(&self, index: u32) -> u8 {
        self.tile_masks.get(index as usize).copied().unwrap_or(0)
    }

    /// `InstallSharedTile(id, _Tiles[[from_tile]], mask)`: an atomic Shared
    /// update (`AtomicUpdateSharedTile`). `Err(TileLegality)` when the ASL
    /// assertion would fail (incompatible descriptor, capacity).
    pub fn install_shared_tile(&mut self, id: u8, from_tile: u32, mask: u8) -> Result<(), Fault> {
        let tile = self
            .tiles
            .get(from_tile as usize)
            .filter(|t| t.allocated)
            .cloned()
            .ok_or(Fault::TileLegality)?;
        if self.atomic_update_shared_tile(id, tile, mask & 0xf, true) {
            Ok(())
        } else {
            Err(Fault::TileLegality)
        }
    }

    /// `SharedTileRecord(id)`.
    pub fn shared_tile_record(&self, id: u8) -> &SharedTileInfo {
        &self.shared[id as usize]
    }

    /// `ReadSharedTileWord(id, element)`: `element` is the logical element
    /// index (row * columns + col for RowMajor). Never faults: an invalid
    /// descriptor or an uninitialized quarter gives `UndefinedSharedTileWord`
    /// (returned as `Some`, as the ASL returns a value). `Err` only for an
    /// element outside the descriptor.
    pub fn read_shared_tile_word(&self, id: u8, index: u64) -> Result<Option<u64>, Fault> {
        Ok(Some(self.shared_word(id, index)?))
    }

    pub(crate) fn shared_word(&self, id: u8, element: u64) -> Result<u64, Fault> {
        let s = &self.shared[id as usize];
        if !s.descriptor_valid {
            return Ok(shared::undefined_shared_tile_word(id, element));
        }
        if element >= s.tile.payload.len() as u64 {
            return Err(Fault::TileLegality);
        }
        let region = tile::shared_tile_element_region(&s.tile, element);
        if !forms::pe_selected(s.initialized_mask, region) {
            return Ok(shared::undefined_shared_tile_word(id, element));
        }
        Ok(s.tile.payload.get(element as usize))
    }

    /// `UndefinedSharedTileWord`.
    pub fn undefined_shared_tile_word(id: u8, index: u64) -> u64 {
        shared::undefined_shared_tile_word(id, index)
    }

    /// `SetBundleDimension(index, value)` (LB0, LB1, LB2): a second write of
    /// one LB register is `Fault_BundleControl` and keeps the first value.
    pub fn set_bundle_dimension(&mut self, index: u32, value: u64) {
        let i = index as usize;
        if i >= 3 {
            return;
        }
        if self.bundle.dim_present[i] {
            self.set_fault(Fault::BundleControl, None);
        } else {
            self.bundle.dim_present[i] = true;
            self.bundle.dims[i] = value;
        }
    }

    /// `_LastFault`.
    pub fn last_fault(&self) -> Fault {
        self.last_fault
    }

    /// Faulting address recorded with `_LastFault`, when there is one.
    pub fn last_fault_address(&self) -> Option<u64> {
        self.last_fault_addr
    }

    /// `SetFault(code, addr)`: a real fault also saves the trap context of
    /// its target ring (`SetFaultWithCause`); `Fault::None` is `ClearFault`.
    pub fn set_fault(&mut self, fault: Fault, addr: Option<u64>) {
        self.trap_on_fault(fault);
        self.last_fault = fault;
        self.last_fault_addr = if fault == Fault::None { None } else { addr };
    }

    /// `forms::decode(word)`, through the cache of recently decoded words
    /// (words that do not decode are not cached).
    pub(crate) fn decode_word(&mut self, word: u32) -> Result<Decoded, DecodeError> {
        let slot = (word.wrapping_mul(0x9e37_79b9) >> 26) as usize % DECODE_CACHE_SLOTS;
        if let Some(d) = self.decoded.0[slot] {
            if d.word == word {
                return Ok(d);
            }
        }
        let d = forms::decode(word)?;
        self.decoded.0[slot] = Some(d);
        Ok(d)
    }

    /// `ClearFault`.
    pub fn clear_fault(&mut self) {
        self.set_fault(Fault::None, None);
    }

    /// `TileCapacityInUseExcept`.
    /// A tile whose mask selects no PE is charged nothing, so the scan
    /// reads the 64 mask bytes eight at a time and only the records of
    /// tiles with PEs.
    pub(crate) fn tile_capacity_in_use_except(&self, excluded: Option<usize>) -> u64 {
        let mut sum = 0;
        const { assert!(PTO_TILE_REGISTER_COUNT.is_multiple_of(8)) };
        let (chunks, _) = self.tile_masks.as_chunks::<8>();
        for (k, chunk) in chunks.iter().enumerate() {
            if u64::from_le_bytes(*chunk) & 0x0f0f_0f0f_0f0f_0f0f == 0 {
                continue;
            }
            for (j, &m) in chunk.iter().enumerate() {
                let i = k * 8 + j;
                let t = &self.tiles[i];
                if m & 0xf != 0 && t.allocated && Some(i) != excluded {
                    sum += tile::tile_core_allocation_bytes(m, t.capacity_bytes);
                }
            }
        }
        sum
    }

    /// `SharedTileCapacityInUse`.
    pub(crate) fn shared_tile_capacity_in_use(&self) -> u64 {
        debug_assert_eq!(
            self.shared_charge,
            self.shared
                .iter()
                .filter(|s| s.descriptor_valid)
                .map(|s| tile::tile_core_allocation_bytes(s.allocation_mask, s.tile.capacity_bytes))
                .sum::<u64>(),
            "running Shared capacity sum"
        );
        self.shared_charge
    }

    /// `CoreTileCapacityInUse`: bytes charged by Local and Shared tiles.
    pub fn core_tile_capacity_in_use(&self) -> u64 {
        self.tile_capacity_in_use_except(None) + self.shared_tile_capacity_in_use()
    }

    /// Local tile bound as destination by bundle binding `binding`: of the
    /// open bundle when it allocated one, else of the last committed bundle.
    pub fn bundle_destination_tile(&self, binding: u32) -> Option<u32> {
        let b = binding as usize;
        if b >= PTO_BUNDLE_TILE_BINDING_COUNT {
            return None;
        }
        let tb = &self.bundle.tile_bindings[b];
        if tb.valid && tb.destination_valid && tb.allocated_by_bundle {
            return Some(tb.destination);
        }
        self.last_destinations[b]
    }

    /// `--element-stride` what-if: reinterpret the B.IOR row stride in the
    /// superseded pre-ADR-0074 element units (ADR 0055/0056). Never the
    /// default; for diffing old binaries' footprints only.
    pub fn set_element_stride_mode(&mut self, on: bool) {
        self.element_stride_mode = on;
    }

    /// Whether the `--element-stride` what-if is on.
    pub fn element_stride_mode(&self) -> bool {
        self.element_stride_mode
    }

    /// Turns the per-element GM access log on (default) or off (benchmarks).
    pub fn set_access_logging(&mut self, on: bool) {
        self.access_logging = on;
    }

    /// Makes every TLOAD/TSTORE take the per-element path, the ASL's own
    /// element loop (off by default). Observably the same as the row and
    /// block paths, only slower: for differential tests and profiling.
    pub fn set_element_path(&mut self, on: bool) {
        self.element_path = on;
    }

    /// TLOAD/TSTORE parts attempted since the last call (one per selected PE).
    pub fn take_transfers(&mut self) -> Vec<TransferInfo> {
        std::mem::take(&mut self.transfers)
    }

    /// `StartMemoryEventCapture(agent)`: clears the event list and records
    /// the events of later TLOAD/TSTOREs, indexed transfers and scalar
    /// `Store`/`LoadUnsigned` (the `scalar_*` methods).
    pub fn start_memory_event_capture(&mut self, agent: usize) {
        self.events.reset();
        self.capture = Some(agent.min(PTO_MODEL_MEMORY_AGENTS - 1));
    }

    /// `StopMemoryEventCapture`.
    pub fn stop_memory_event_capture(&mut self) {
        self.capture = None;
    }

    /// `_MemoryEvents[[0.._MemoryEventCount]]`.
    pub fn memory_events(&self) -> &[MemoryEvent] {
        &self.events.events
    }

    /// The event list as a candidate execution (for the checker).
    pub fn memory_candidate(&self) -> &crate::memory_model::Candidate {
        &self.events
    }

    /// The event list, for `AddInitialWriteEvent`, `AddLoadEvent`, … and
    /// `SetMemoryReadFrom` by hand.
    pub fn memory_candidate_mut(&mut self) -> &mut crate::memory_model::Candidate {
        &mut self.events
    }

    /// `SetBundleControlAttributeState(trap_enabled, atomic, acquire,
    /// release, far, dimension_reduction)`: the B.CATR state, cleared with
    /// the rest of the bundle header.
    pub fn set_bundle_control_attribute_state(
        &mut self,
        catr: crate::block::state::ControlAttributes,
    ) {
        self.bundle.catr = crate::block::state::ControlAttributes {
            present: true,
            ..catr
        };
    }

    /// `CurrentBundleMemoryOrder`.
    pub fn current_bundle_memory_order(&self) -> crate::memory_model::Order {
        self.bundle.catr.memory_order()
    }

    /// `_BundleActive`.
    pub fn bundle_active(&self) -> bool {
        self.bundle.active
    }

    /// `_FaultAddress` (0 when none was recorded).
    pub fn fault_address(&self) -> u64 {
        self.last_fault_addr.unwrap_or(0)
    }

    /// `SharedTileFullyInitialized`.
    pub fn shared_tile_fully_initialized(&self, id: u8) -> bool {
        let s = &self.shared[id as usize];
        s.descriptor_valid && s.initialized_mask == s.allocation_mask && s.tile.contents_defined
    }

    /// Payload index of (row, col) of tile `index` (`TileStorageIndex`).
    pub fn tile_storage_index(&self, index: u32, row: u64, col: u64) -> Option<u64> {
        self.tiles
            .get(index as usize)
            .filter(|t| t.allocated)
            .and_then(|t| t.element_index(row, col))
            .map(|i| i as u64)
    }

    /// Raw payload word and definedness at payload index `storage`.
    pub fn tile_payload(&self, index: u32, storage: u64) -> Option<(u64, bool)> {
        let t = self.tiles.get(index as usize)?;
        let i = storage as usize;
        if i >= t.payload.len() {
            return None;
        }
        Some((t.payload.get(i), t.defined.get(i)))
    }

    /// Latches a B.DATR PadValue (`_BundleDataAttributesPresent = TRUE;
    /// _BundleDataAttributes.pad_value = pad`), as AVS fixtures do.
    pub fn set_bundle_pad_value(&mut self, pad: u32) {
        self.bundle.datr.present = true;
        self.bundle.datr.pad_value = pad & 3;
    }

    /// Overwrites a tile descriptor's location (AVS descriptor-corruption
    /// fixtures).
    pub fn set_tile_location(&mut self, index: u32, location: TileLocation) {
        if let Some(t) = self.tiles.get_mut(index as usize) {
            t.location = location;
        }
    }

    /// GM accesses of the TLOAD/TSTOREs committed since the last call, one
    /// per element, in the architecture's element order per PE.
    pub fn take_accesses(&mut self) -> Vec<GmAccess> {
        std::mem::take(&mut self.accesses)
    }
}

fn check_scalar(addr: u64, size: u32) -> Result<(), Fault> {
    if !matches!(size, 1 | 2 | 4 | 8) {
        return Err(Fault::IllegalInstruction);
    }
    if !addr.is_multiple_of(size as u64) {
        return Err(Fault::DataAlignment);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decode cache returns exactly what `forms::decode` returns, for
    /// every form's own word and for words that collide in one slot and
    /// evict each other, on first and repeated lookups.
    #[test]
    fn cached_decode_equals_forms_decode_through_collisions() {
        let mut m = Machine::new(4096);
        let mut words: Vec<u32> = forms::FORMS.iter().map(|f| f.matches).collect();
        let mut x = 0x1234_5678u32;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            words.push(x);
        }
        for round in 0..3 {
            for &w in &words {
                assert_eq!(
                    m.decode_word(w),
                    forms::decode(w),
                    "{w:#010x} round {round}"
                );
            }
        }
        assert!(m.decoded.0.iter().flatten().count() > 1);
    }

    /// The mask-first capacity scan charges exactly the allocated tiles,
    /// popcount(mask) x capacity each, wherever in the 64 registers they sit,
    /// and excludes only the tile it is asked to.
    #[test]
    fn capacity_in_use_sums_every_allocated_tile_and_skips_the_excluded_one() {
        let mut m = Machine::new(4096);
        let placed = [
            (0u32, 0b0001u8),
            (7, 0b1111),
            (8, 0b0110),
            (40, 0b1000),
            (63, 0b0011),
        ];
        for &(i, mask) in &placed {
            let cfg = TileConfig {
                capacity: 1024,
                rows: 4,
                cols: 4,
                valid_rows: 4,
                valid_cols: 4,
                dtype: DataType::U8,
                layout: TileLayout::RowMajor,
                location: TileLocation::Any,
                mask: Some(mask),
            };
            m.configure_tile(i, &cfg).unwrap();
        }
        let charge = |mask: u8| mask.count_ones() as u64 * 1024;
        let all: u64 = placed.iter().map(|&(_, k)| charge(k)).sum();
        assert_eq!(m.tile_capacity_in_use_except(None), all);
        for &(i, k) in &placed {
            assert_eq!(
                m.tile_capacity_in_use_except(Some(i as usize)),
                all - charge(k)
            );
        }
        m.release_tile(7);
        assert_eq!(m.tile_capacity_in_use_except(None), all - charge(0b1111));
    }
}
