//! The block (bundle) machine of the TLOAD/TSTORE path, organised as the
//! ASL's `asl/block/model/` is: the bundle's state ([`state`]), the command
//! words that fill it in (`commands`), the operation at commit (`dispatch`)
//! and its per-operation halves — Local and Shared TLOAD/TSTORE (`tlsu`),
//! CUBE transport (`cube_transport`), TPREFETCH (`prefetch`), MGATHER/MSCATTER/GMOV
//! (`indexed`) — the schema checks they share (`schema`) and the TEPL
//! operand half ([`operands`]). BSTART.TEPL (element-wise) blocks decode and
//! collect their bindings under the same checks; at commit only their
//! operand half runs, not the element-wise engines.
//!
//! Keeps: destinations are allocated only after every schema check, and
//! released again (`RollBackBundleTileDestinations`) when the transfer
//! faults, so a faulting bundle publishes nothing and can be restarted; once
//! the body is entered the header commands reject with `Fault_BundleControl`.

mod commands;
mod cube_transport;
mod dispatch;
mod indexed;
pub mod operands;
mod prefetch;
mod schema;
pub mod state;
#[cfg(test)]
mod tests;
mod tlsu;

pub use state::*;

use crate::addressing::tile_dense_row_stride_bytes;
use crate::addressing::PeAddressing;
use crate::forms::{self, pe_selected, FormKind};
use crate::machine::{
    CommandExecution, Machine, StrideSource, PTO_MODEL_MEMORY_AGENTS, PTO_TILE_REGISTER_COUNT,
};
use crate::tile::{self, cube, TileInfo};
use crate::types::{DataType, Fault, TileLayout, TileLocation, DTYPE_NONE};
use operands::TeplOperation;
