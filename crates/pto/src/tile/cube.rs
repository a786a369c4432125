//! Local CUBE tile geometry (PTO-CUBE-CELL-STATE-001).
//!
//! ASL: `asl/tile/model/shape/cube-cell.asl`. A CUBE tile is stored in
//! 128-byte cells; its storage rows and columns are the valid shape rounded
//! up to the cell grid.

use super::{tile_capacity_is_legal, PTO_MODEL_TILE_ELEMENTS, PTO_TILE_CELL_BYTES};
use crate::types::{DataType, TileLayout};

/// `TileCubeDataTypeSupported`: everything but HiF4X2 and 64-bit types.
pub fn tile_cube_data_type_supported(data_type: DataType) -> bool {
    data_type != DataType::HiF4X2 && data_type.element_bits() != 64
}

/// `TileCubeCellRows`.
pub fn tile_cube_cell_rows(layout: TileLayout, data_type: DataType) -> u64 {
    if !layout.is_cube() || !tile_cube_data_type_supported(data_type) {
        return 0;
    }
    match layout {
        TileLayout::CubeM16 => 16,
        TileLayout::CubeM32 => 32,
        _ => match data_type.element_bits() {
            32 => 4,
            16 => 8,
            8 => 16,
            4 => 32,
            _ => 0,
        },
    }
}

/// `TileCubeCellColumns`.
pub fn tile_cube_cell_columns(layout: TileLayout, data_type: DataType) -> u64 {
    if !layout.is_cube() || !tile_cube_data_type_supported(data_type) {
        return 0;
    }
    if layout == TileLayout::CubeN8 {
        return 8;
    }
    let m16 = layout == TileLayout::CubeM16;
    match data_type.element_bits() {
        32 => {
            if m16 {
                2
            } else {
                1
            }
        }
        16 => {
            if m16 {
                4
            } else {
                2
            }
        }
        8 => {
            if m16 {
                8
            } else {
                4
            }
        }
        4 => {
            if m16 {
                16
            } else {
                8
            }
        }
        _ => 0,
    }
}

/// `TileCubeAlignedExtent`.
pub fn tile_cube_aligned_extent(value: u64, quantum: u64) -> u64 {
    if value == 0 || quantum == 0 {
        return 0;
    }
    let aligned = value.div_ceil(quantum) * quantum;
    if aligned > 65535 {
        0
    } else {
        aligned
    }
}

/// `TileCubeStorageRows`.
pub fn tile_cube_storage_rows(layout: TileLayout, valid_rows: u64, data_type: DataType) -> u64 {
    let cell_rows = tile_cube_cell_rows(layout, data_type);
    if cell_rows == 0 || valid_rows == 0 {
        return 0;
    }
    if layout == TileLayout::CubeN8 {
        return tile_cube_aligned_extent(valid_rows, cell_rows);
    }
    if valid_rows > cell_rows {
        0
    } else {
        cell_rows
    }
}

/// `TileCubeStorageColumns`.
pub fn tile_cube_storage_columns(
    layout: TileLayout,
    valid_columns: u64,
    data_type: DataType,
) -> u64 {
    let cell_columns = tile_cube_cell_columns(layout, data_type);
    if cell_columns == 0 || valid_columns == 0 {
        return 0;
    }
    tile_cube_aligned_extent(valid_columns, cell_columns)
}

/// `TileCubeCellCount`: storage cells (K repeat × N repeat).
pub fn tile_cube_cell_count(
    layout: TileLayout,
    valid_rows: u64,
    valid_columns: u64,
    data_type: DataType,
) -> u64 {
    let rows = tile_cube_storage_rows(layout, valid_rows, data_type);
    let cols = tile_cube_storage_columns(layout, valid_columns, data_type);
    let (cr, cc) = (
        tile_cube_cell_rows(layout, data_type),
        tile_cube_cell_columns(layout, data_type),
    );
    if rows == 0 || cols == 0 || cr == 0 || cc == 0 {
        return 0;
    }
    let cells = (rows / cr) * (cols / cc);
    if cells > 16384 {
        0
    } else {
        cells
    }
}

/// `TileCubeRequiredBytes`.
pub fn tile_cube_required_bytes(
    layout: TileLayout,
    valid_rows: u64,
    valid_columns: u64,
    data_type: DataType,
) -> u64 {
    let cells = tile_cube_cell_count(layout, valid_rows, valid_columns, data_type);
    let required = cells * PTO_TILE_CELL_BYTES;
    if required > 262_144 {
        0
    } else {
        required
    }
}

/// `TileCubeDescriptorShapeLegal`.
pub fn tile_cube_descriptor_shape_legal(
    capacity_bytes: u64,
    valid_rows: u64,
    valid_columns: u64,
    data_type: DataType,
    layout: TileLayout,
) -> bool {
    if !layout.is_cube()
        || !tile_cube_data_type_supported(data_type)
        || !tile_capacity_is_legal(capacity_bytes)
        || valid_rows == 0
        || valid_columns == 0
    {
        return false;
    }
    let rows = tile_cube_storage_rows(layout, valid_rows, data_type);
    let cols = tile_cube_storage_columns(layout, valid_columns, data_type);
    let cells = tile_cube_cell_count(layout, valid_rows, valid_columns, data_type);
    let elements =
        cells * tile_cube_cell_rows(layout, data_type) * tile_cube_cell_columns(layout, data_type);
    let required = tile_cube_required_bytes(layout, valid_rows, valid_columns, data_type);
    rows != 0
        && cols != 0
        && elements != 0
        && elements <= PTO_MODEL_TILE_ELEMENTS
        && required != 0
        && valid_rows <= rows
        && valid_columns <= cols
        && required <= capacity_bytes
}

/// `TileCubeKRepeat`.
pub fn tile_cube_k_repeat(
    layout: TileLayout,
    valid_rows: u64,
    valid_columns: u64,
    data_type: DataType,
) -> u64 {
    let (cr, cc) = (
        tile_cube_cell_rows(layout, data_type),
        tile_cube_cell_columns(layout, data_type),
    );
    if cr == 0 || cc == 0 {
        return 0;
    }
    if layout == TileLayout::CubeN8 {
        tile_cube_storage_rows(layout, valid_rows, data_type) / cr
    } else {
        tile_cube_storage_columns(layout, valid_columns, data_type) / cc
    }
}

/// `TileCubeCellElementIndex`: position inside one 128-byte cell; CUBE_N8
/// is column-major in the cell, CUBE_M16 four-bit interleaves column groups
/// 4..7 and 8..11.
pub fn tile_cube_cell_element_index(
    layout: TileLayout,
    data_type: DataType,
    inner_row: u64,
    inner_column: u64,
) -> u64 {
    let cr = tile_cube_cell_rows(layout, data_type);
    let cc = tile_cube_cell_columns(layout, data_type);
    if layout == TileLayout::CubeN8 {
        return inner_column * cr + inner_row;
    }
    let mut mapped = inner_column;
    if layout == TileLayout::CubeM16 && data_type.element_bits() == 4 {
        mapped = match inner_column {
            0..=3 => inner_column,
            4..=7 => inner_column + 4,
            8..=11 => inner_column - 4,
            _ => inner_column,
        };
    }
    inner_row * cc + mapped
}

/// `TileCubePayloadIndex`: payload position of (row, column) of a CUBE tile.
pub fn tile_cube_payload_index(
    layout: TileLayout,
    data_type: DataType,
    valid_rows: u64,
    valid_columns: u64,
    row: u64,
    column: u64,
) -> u64 {
    let cr = tile_cube_cell_rows(layout, data_type).max(1);
    let cc = tile_cube_cell_columns(layout, data_type).max(1);
    let k = tile_cube_k_repeat(layout, valid_rows, valid_columns, data_type);
    let (cell, ir, ic) = if layout == TileLayout::CubeN8 {
        ((column / cc) * k + row / cr, row % cr, column % cc)
    } else {
        (column / cc, row, column % cc)
    };
    cell * cr * cc + tile_cube_cell_element_index(layout, data_type, ir, ic)
}
