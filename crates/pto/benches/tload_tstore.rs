//! Criterion benchmark of the model's TLOAD/TSTORE data path: a 64 KiB
//! Local tile (the largest allocation) of FP32, U8 and U4X2, dense and with
//! 64-byte row gaps, through the direct Tile operations, next to `memcpy`
//! of the same bytes. `subword pto bench` measures the full path through
//! decoded bundle words; this isolates the element mover.
//!
//! Run: `cargo bench -p pto --bench tload_tstore`.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use pto::{DataType, Machine, TileConfig, TileLayout, TileLocation};

const COLS: u64 = 256;
const TILE_BYTES: u64 = 65_536;
const SRC: u64 = 0;
const DST: u64 = 16 << 20;

fn setup(dtype: DataType, gap: u64) -> (Machine, u64, u64) {
    let row_bytes = (COLS * dtype.element_bits() as u64).div_ceil(8);
    let rows = TILE_BYTES / row_bytes;
    let stride = row_bytes + gap;
    let mut m = Machine::new(1 << 30);
    m.set_access_logging(false);
    let fill: Vec<u8> = (0..stride).map(|i| (i * 13 + 5) as u8).collect();
    for r in 0..rows {
        m.write_memory(SRC + r * stride, &fill).expect("GM fill");
    }
    let cfg = TileConfig {
        capacity: TILE_BYTES,
        rows,
        cols: COLS,
        valid_rows: rows,
        valid_cols: COLS,
        dtype,
        layout: TileLayout::RowMajor,
        location: TileLocation::Any,
        mask: None,
    };
    m.configure_tile(0, &cfg).expect("64 KiB tile");
    m.tload(0, SRC, stride).expect("first TLOAD");
    (m, stride, rows * row_bytes)
}

fn bench(c: &mut Criterion) {
    for (name, dtype) in [
        ("FP32", DataType::FP32),
        ("U8", DataType::U8),
        ("U4X2", DataType::U4X2),
    ] {
        for (layout, gap) in [("dense", 0), ("strided", 64)] {
            let (mut m, stride, bytes) = setup(dtype, gap);
            let mut g = c.benchmark_group(format!("{name}-{layout}"));
            g.throughput(Throughput::Bytes(bytes));
            g.bench_function(BenchmarkId::new("TLOAD", bytes), |b| {
                b.iter(|| m.tload(0, black_box(SRC), stride).expect("TLOAD"))
            });
            g.bench_function(BenchmarkId::new("TSTORE", bytes), |b| {
                b.iter(|| m.tstore(black_box(DST), stride, 0).expect("TSTORE"))
            });
            let n = bytes as usize;
            let mut buf = vec![0x5au8; 2 * n + 4096];
            let (src, dst) = buf.split_at_mut(n + 2048);
            let (src, dst) = (&src[..n], &mut dst[..n]);
            g.bench_function(BenchmarkId::new("memcpy", bytes), |b| {
                b.iter(|| dst.copy_from_slice(black_box(src)))
            });
            g.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
