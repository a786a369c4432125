//! `chipset::encode`/`decode` against addresses computed with the Linux
//! headers' own macros (written out here with their source), the refusals,
//! and decode(encode(x)) == x over every chipset, window, size and lane.

// `+ 0x00` is kept where the kernel writes it: it is the byte length code.
#![allow(clippy::identity_op)]

use alpha_emu::chipset::{self, Decoded, Encoding, WindowKind};
use proptest::prelude::*;

/// IDENT_ADDR taken off: physical addresses.
const CIA_IO: u64 = 0x85_8000_0000; // core_cia.h CIA_IO
const CIA_SPARSE_MEM: u64 = 0x80_0000_0000; // core_cia.h CIA_SPARSE_MEM
const CIA_DENSE_MEM: u64 = 0x86_0000_0000; // core_cia.h CIA_DENSE_MEM
const CIA_BW_IO: u64 = 0x89_0000_0000; // core_cia.h CIA_BW_IO
const CIA_BW_MEM: u64 = 0x88_0000_0000; // core_cia.h CIA_BW_MEM
const CIA_MEM_R1_MASK: u64 = 0x1fff_ffff; // core_cia.h
const APECS_IO: u64 = 0x1_C000_0000; // core_apecs.h APECS_IO
const APECS_SPARSE_MEM: u64 = 0x2_0000_0000; // core_apecs.h
const APECS_DENSE_MEM: u64 = 0x3_0000_0000; // core_apecs.h
const LCA_IO: u64 = 0x1_C000_0000; // core_lca.h LCA_IO
const T2_IO: u64 = 0x3_A000_0000; // core_t2.h T2_IO, GAMMA_BIAS 0
const T2_SPARSE_MEM: u64 = 0x2_0000_0000; // core_t2.h
const T2_MEM_R1_MASK: u64 = 0x07ff_ffff; // core_t2.h
const GAMMA_BIAS: u64 = 0x80_0000_0000; // core_t2.h _GAMMA_BIAS
const EISA_VL82C106: u64 = 0x1_C000_0000; // jensen.h
const EISA_IO: u64 = 0x3_0000_0000; // jensen.h
const EISA_MEM: u64 = 0x2_0000_0000; // jensen.h
const JENSEN_HAE_MASK: u64 = 0x1ff_ffff; // jensen.h
/// core_tsunami.h TSUNAMI_IO(0) = IDENT_ADDR + TS_BIAS + 0x1FC000000 with
/// TS_BIAS = 0x10000000000 (VA bit 40), which the 21264 sends as PA bit 43.
const TSUNAMI_IO0: u64 = (1 << 43) + 0x1_FC00_0000;
const IRONGATE_IO: u64 = (1 << 43) + 0x1_FC00_0000; // core_irongate.h
const IRONGATE_MEM: u64 = 1 << 43; // core_irongate.h
const POLARIS_DENSE_IO_BASE: u64 = 0xF9_FC00_0000; // core_polaris.h
const POLARIS_DENSE_MEM_BASE: u64 = 0xF9_0000_0000; // core_polaris.h
/// FreeBSD sys/alpha/pci/ciareg.h: `#define CIA_EV56_BWMEM 0x8800000000UL`,
/// `#define CIA_EV56_BWIO 0x8900000000UL` (the 21171/21172 "EV56
/// Byte/Word PCI MEM/IO Space", used when NetBSD's cia.c finds CNFG_BWEN).
const CIA_EV56_BWMEM: u64 = 0x88_0000_0000;
const CIA_EV56_BWIO: u64 = 0x89_0000_0000;

fn enc(cs: &str, w: &str, bus: u64, size: u64) -> (u64, Option<u8>, Option<u8>, Option<u64>) {
    let e = chipset::encode(
        chipset::by_name(cs).unwrap(),
        WindowKind::by_name(w).unwrap(),
        bus,
        size,
    )
    .unwrap_or_else(|e| panic!("{cs} {w} 0x{bus:x}/{size}: {e}"));
    (e.phys, e.lane, e.length_code, e.hae)
}

#[test]
fn decode_encode_matches_the_kernel_headers_macros() {
    // cia_iowrite8: (addr << 5) + CIA_IO + 0x00, w = __kernel_insbl(b, addr & 3).
    assert_eq!(
        enc("cia", "sparse-io", 0x3f8, 1),
        (CIA_IO + (0x3f8 << 5) + 0x00, Some(0), Some(0), Some(0))
    );
    assert_eq!(
        enc("cia", "sparse-io", 0x3fb, 1).0,
        CIA_IO + (0x3fb << 5) + 0x00
    );
    assert_eq!(enc("cia", "sparse-io", 0x3fb, 1).1, Some(3));
    // cia_iowrite16: + 0x08; cia_iowrite32: ((addr - CIA_IO) << 5) + CIA_IO + 0x18.
    assert_eq!(
        enc("cia", "sparse-io", 0x1f2, 2).0,
        CIA_IO + (0x1f2 << 5) + 0x08
    );
    assert_eq!(
        enc("cia", "sparse-io", 0xcf8, 4).0,
        (0xcf8 << 5) + CIA_IO + 0x18
    );
    // cia_iowrite8 to memory: (addr & CIA_MEM_R1_MASK) << 5 + CIA_SPARSE_MEM.
    assert_eq!(
        enc("cia", "sparse-mem", 0x0800_0001, 1),
        (
            ((0x0800_0001 & CIA_MEM_R1_MASK) << 5) + CIA_SPARSE_MEM,
            Some(1),
            Some(0),
            Some(0)
        )
    );
    assert_eq!(
        enc("cia", "dense-mem", 0x0800_0000, 4).0,
        CIA_DENSE_MEM + 0x0800_0000
    );
    // cia_bwx_ioportmap / cia_bwx_ioremap: addr + CIA_BW_IO / CIA_BW_MEM.
    assert_eq!(enc("pyxis", "bwx-io", 0x3f8, 1).0, CIA_BW_IO + 0x3f8);
    assert_eq!(
        enc("pyxis", "bwx-mem", 0x0800_0002, 2).0,
        CIA_BW_MEM + 0x0800_0002
    );
    // apecs_iowrite8: (addr << 5) + APECS_IO + 0x00.
    assert_eq!(
        enc("apecs", "sparse-io", 0x3f8, 1).0,
        APECS_IO + (0x3f8 << 5)
    );
    // APECS_SET_HAE: msb = addr & 0xf8000000; addr -= msb; set_hae(msb).
    let a = 0x0900_0012u64;
    let msb = a & 0xf800_0000;
    assert_eq!(
        enc("apecs", "sparse-mem", a, 1),
        (
            ((a - msb) << 5) + APECS_SPARSE_MEM + 0x00,
            Some(2),
            Some(0),
            Some(msb)
        )
    );
    // Below 16 MiB no HAE applies.
    assert_eq!(
        enc("apecs", "sparse-mem", 0xa_0000, 1),
        ((0xa_0000 << 5) + APECS_SPARSE_MEM, Some(0), Some(0), None)
    );
    assert_eq!(
        enc("apecs", "dense-mem", 0x0900_0010, 4).0,
        APECS_DENSE_MEM + 0x0900_0010
    );
    // lca_iowrite8.
    assert_eq!(enc("lca", "sparse-io", 0x80, 1).0, LCA_IO + (0x80 << 5));
    // t2_outb: (addr << 5) + T2_IO + 0x00; t2_set_hae: msb = addr >> 27, addr &= T2_MEM_R1_MASK.
    assert_eq!(enc("t2", "sparse-io", 0x3f8, 1).0, T2_IO + (0x3f8 << 5));
    assert_eq!(
        enc("t2-gamma", "sparse-io", 0x3f8, 1).0,
        GAMMA_BIAS + T2_IO + (0x3f8 << 5)
    );
    let a = 0x0800_0004u64;
    assert_eq!(
        enc("t2", "sparse-mem", a, 4),
        (
            ((a & T2_MEM_R1_MASK) << 5) + T2_SPARSE_MEM + 0x18,
            Some(0),
            Some(3),
            Some(a >> 27)
        )
    );
    // jensen_local_outb: (addr << 9) + EISA_VL82C106.
    assert_eq!(
        enc("jensen", "local-io", 0x3f8, 1),
        ((0x3f8 << 9) + EISA_VL82C106, None, None, None)
    );
    // jensen_bus_outb/outw/outl: (addr << 7) + EISA_IO + 0x00 / 0x20 / 0x60.
    assert_eq!(
        enc("jensen", "sparse-io", 0x80, 1).0,
        (0x80 << 7) + EISA_IO + 0x00
    );
    assert_eq!(
        enc("jensen", "sparse-io", 0x1f0, 2).0,
        (0x1f0 << 7) + EISA_IO + 0x20
    );
    assert_eq!(
        enc("jensen", "sparse-io", 0x1f0, 4).0,
        (0x1f0 << 7) + EISA_IO + 0x60
    );
    // jensen_writeb: jensen_set_hae(addr) (addr >> 25); addr &= JENSEN_HAE_MASK.
    let a = 0x0800_0003u64;
    assert_eq!(
        enc("jensen", "sparse-mem", a, 1),
        (
            ((a & JENSEN_HAE_MASK) << 7) + EISA_MEM + 0x00,
            Some(3),
            Some(0),
            Some(a >> 25)
        )
    );
    assert_eq!(enc("tsunami", "bwx-io", 0x3f8, 1).0, TSUNAMI_IO0 + 0x3f8);
    assert_eq!(enc("irongate", "bwx-io", 0x80, 1).0, IRONGATE_IO + 0x80);
    assert_eq!(
        enc("irongate", "bwx-mem", 0x0800_0000, 8).0,
        IRONGATE_MEM + 0x0800_0000
    );
    assert_eq!(
        enc("polaris", "bwx-io", 0x3f8, 1).0,
        POLARIS_DENSE_IO_BASE + 0x3f8
    );
}

/// AlphaPC164LX Motherboard TRM, Table A–6 (PCI memory sparse-space
/// read/write encodings) and Table A–8 (sparse I/O): "Quadword | addr_h<4:3>
/// 11 | addr_h<6:5> 11 | LDQ,STQ | ad<2:0> 000"; AlphaPC164 TRM Table A–3
/// ("addr<7> assumed to be zero by the CIA hardware"). So a quadword at an
/// 8-aligned bus address is `(bus << 5) + base + 0x78`, not the longword's
/// `+ 0x18`.
#[test]
fn decode_sparse_quadword_is_length_code_3_in_lane_field_3_on_cia_and_pyxis() {
    for cs in ["cia", "cia2", "pyxis"] {
        let e = chipset::encode(
            chipset::by_name(cs).unwrap(),
            WindowKind::SparseMem,
            0x0800_0008,
            8,
        )
        .unwrap();
        assert_eq!(
            e.phys,
            ((0x0800_0008 & CIA_MEM_R1_MASK) << 5) + CIA_SPARSE_MEM + 0x78,
            "{cs}"
        );
        assert_eq!((e.length_code, e.lane, e.size), (Some(3), None, 8));
        assert_eq!(
            enc(cs, "sparse-io", 0x3f0, 8).0,
            (0x3f0 << 5) + CIA_IO + 0x78
        );
        // A longword stays + 0x18 (cia_iowrite32), lane 0.
        assert_eq!(
            enc(cs, "sparse-io", 0x3f0, 4).0,
            (0x3f0 << 5) + CIA_IO + 0x18
        );
    }
    // decode: 0x78 is the quadword, not "lane 3 crossing the longword".
    let cia = chipset::by_name("cia").unwrap();
    let Decoded::Window { enc: d } =
        chipset::decode(cia, CIA_IO + (0x3f0 << 5) + 0x78, &|_| 0).unwrap()
    else {
        panic!("region")
    };
    assert_eq!((d.bus, d.size, d.length_code), (0x3f0, 8, Some(3)));
    // ... and 0x18 is a longword only.
    let Decoded::Window { enc: d } =
        chipset::decode(cia, CIA_IO + (0x3f0 << 5) + 0x18, &|_| 0).unwrap()
    else {
        panic!("region")
    };
    assert_eq!((d.bus, d.size, d.lane), (0x3f0, 4, Some(0)));
    // addr<7> is taken as zero: bus bit 2 does not reach the bus.
    let Decoded::Window { enc: d } =
        chipset::decode(cia, CIA_IO + (0x3f4 << 5) + 0x78, &|_| 0).unwrap()
    else {
        panic!("region")
    };
    assert_eq!((d.bus, d.size), (0x3f0, 8));
    // Lanes 1 and 2 with code 3 are still no transfer.
    assert!(chipset::decode(cia, CIA_IO + (0x3f1 << 5) + 0x18, &|_| 0).is_err());
    // An unaligned quadword is refused.
    assert!(refused("cia", "sparse-io", 0x3f4, 8).contains("8-aligned"));
}

/// APECS: the AlphaPC64 User's Guide §4.1.8 gives sparse memory quadword
/// granularity with the 21164 boards' sysBus<7:3> layout (its Table 4–7 was
/// not available; the table says so). LCA, T2 and Jensen: no manual was
/// available and Linux never sends a quadword to their sparse space
/// (core_t2.h `t2_readq`: two `vuip` reads at `work` and `work + (4 << 5)`;
/// jensen.h `jensen_readq` likewise; core_lca.h `lca_readq` reads dense), so
/// a quadword is refused there.
#[test]
fn fault_sparse_quadword_only_where_a_manual_gives_its_encoding() {
    assert_eq!(
        enc("apecs", "sparse-mem", 0x10_0000, 8).0,
        (0x10_0000 << 5) + APECS_SPARSE_MEM + 0x78
    );
    for cs in ["lca", "t2", "t2-gamma", "jensen"] {
        for w in ["sparse-io", "sparse-mem"] {
            assert!(refused(cs, w, 0x80, 8).contains("no quadword"), "{cs} {w}");
        }
    }
    // Decoding the 0x78 offset on T2 is lane 3 with a longword code: no
    // transfer, and the reason names the missing quadword encoding.
    let t2 = chipset::by_name("t2").unwrap();
    let e = chipset::decode(t2, T2_IO + (0x80 << 5) + 0x78, &|_| 0).unwrap_err();
    assert!(e.0.contains("no quadword encoding"), "{e}");
}

/// The 21172's byte/word windows at FreeBSD ciareg.h's CIA_EV56_BWMEM and
/// CIA_EV56_BWIO, with the seed's remark kept as the window's note.
#[test]
fn decode_cia2_byte_word_windows_from_the_bsd_headers_carry_the_note() {
    let e = chipset::encode(
        chipset::by_name("cia2").unwrap(),
        WindowKind::BwxIo,
        0x3f8,
        1,
    )
    .unwrap();
    assert_eq!(e.phys, CIA_EV56_BWIO + 0x3f8);
    let note = e.note.expect("cia2 byte/word windows carry a note");
    assert!(
        note.contains("never to have worked") && note.contains("FreeBSD"),
        "{note}"
    );
    assert!(note.contains("CNFG.BWEN"), "{note}");
    assert_eq!(
        enc("cia2", "bwx-mem", 0x0800_0002, 2).0,
        CIA_EV56_BWMEM + 0x0800_0002
    );
    // Pyxis has the same windows, without the remark; the 21171 has none.
    let p = chipset::encode(
        chipset::by_name("pyxis").unwrap(),
        WindowKind::BwxIo,
        0x3f8,
        1,
    )
    .unwrap();
    assert_eq!((p.phys, p.note), (CIA_EV56_BWIO + 0x3f8, None));
    assert!(refused("cia", "bwx-io", 0x3f8, 1).contains("21171"));
}

/// core_polaris.h: POLARIS_DENSE_MEM_BASE, "Polaris allows all accesses
/// (byte/word as well as long/quad) to be done through dense space": the
/// dense memory window carries bytes and words, and `dense-mem` (the
/// header's name) and `bwx-mem` both name it; likewise the one PCI memory
/// window of Tsunami and Irongate.
#[test]
fn decode_polaris_dense_window_answers_to_both_names_and_carries_bytes() {
    for w in ["dense-mem", "bwx-mem"] {
        assert_eq!(
            enc("polaris", w, 0x0800_0001, 1).0,
            POLARIS_DENSE_MEM_BASE + 0x0800_0001,
            "{w}"
        );
    }
    let e = chipset::encode(
        chipset::by_name("polaris").unwrap(),
        WindowKind::BwxMem,
        0x10,
        2,
    )
    .unwrap();
    assert_eq!(e.window, WindowKind::DenseMem);
    for cs in ["tsunami", "irongate"] {
        assert_eq!(
            enc(cs, "dense-mem", 0x0800_0001, 1),
            enc(cs, "bwx-mem", 0x0800_0001, 1),
            "{cs}"
        );
    }
}

fn refused(cs: &str, w: &str, bus: u64, size: u64) -> String {
    let Ok(c) = chipset::by_name(cs) else {
        return chipset::by_name(cs).unwrap_err().0;
    };
    chipset::encode(c, WindowKind::by_name(w).unwrap(), bus, size)
        .expect_err("must be refused")
        .0
}

#[test]
fn fault_encode_refuses_what_the_chipset_cannot_carry() {
    assert!(refused("cia", "sparse-io", 0x3fb, 2).contains("lane 3"));
    assert!(refused("cia", "dense-mem", 0x1000, 1).contains("longwords and quadwords only"));
    assert!(refused("cia", "bwx-io", 0x3f8, 1).contains("21171"));
    assert!(refused("apecs", "bwx-io", 0x3f8, 1).contains("no byte/word window"));
    assert!(refused("t2", "bwx-io", 0x3f8, 1).contains("must use sparse"));
    assert!(refused("tsunami", "sparse-io", 0x3f8, 1).contains("linear"));
    assert!(refused("polaris", "sparse-io", 0x3f8, 1).contains("refused rather than guessed"));
    assert!(refused("jensen", "dense-mem", 0, 4).contains("no dense space"));
    assert!(refused("jensen", "sparse-io", 0x80, 3).contains("tribyte"));
    assert!(refused("jensen", "sparse-io", 0x80, 8).contains("quadword"));
    assert!(refused("jensen", "local-io", 0x3f8, 2).contains("bytes only"));
    assert!(refused("apecs", "sparse-mem", 0x0800_0000, 1).contains("unreachable"));
    assert!(refused("cia", "sparse-io", 0x3f8, 5).contains("size 5"));
    assert!(refused("vax", "sparse-io", 0, 1).contains("unknown chipset"));
}

#[test]
fn state_every_chipset_has_its_trivial_flags_and_sourced_windows() {
    assert_eq!(chipset::tables::ALL.len(), 11);
    for cs in chipset::tables::ALL {
        for w in cs.windows {
            assert!(!w.source.is_empty());
            assert!(w.reach() > 0x3ff, "{} {}", cs.name, w.kind.name());
        }
        // Every window kind is either a window (by one of its names) or a
        // refusal with a reason.
        for k in WindowKind::ALL {
            let has = cs.windows.iter().any(|w| w.is(k));
            let why = cs.refused.iter().any(|r| r.kind == k);
            assert!(has ^ why, "{} {}", cs.name, k.name());
        }
    }
    let t = |n: &str| {
        let t = chipset::by_name(n).unwrap().trivial;
        (t.rw_bw, t.io_bw, t.rw_lq, t.io_lq)
    };
    assert_eq!(t("t2"), (0, 0, 0, 0));
    assert_eq!(t("cia"), (2, 0, 1, 0));
    assert_eq!(t("pyxis"), (1, 1, 1, 1));
    assert_eq!(t("jensen"), (0, 0, 0, 0));
}

fn sizes() -> [u64; 5] {
    [1, 2, 3, 4, 8]
}

/// Does the window's encoding carry `size` at all?
fn carries(e: Encoding, size: u64) -> bool {
    match e {
        Encoding::Sparse { codes, quad, .. } => {
            if size == 8 {
                quad.is_some()
            } else {
                codes[size as usize - 1].is_some()
            }
        }
        Encoding::Linear { bytes_words } => size == 4 || size == 8 || (bytes_words && size != 3),
        Encoding::Local { .. } => size == 1,
    }
}

fn roundtrip(cs: &'static chipset::Chipset, kind: WindowKind, bus: u64, size: u64) -> bool {
    let Ok(e) = chipset::encode(cs, kind, bus, size) else {
        return false;
    };
    let hae = e.hae.unwrap_or(0);
    let d = chipset::decode(cs, e.phys, &|_| hae).unwrap();
    let Decoded::Window { enc: d } = d else {
        panic!("{} 0x{:x} decoded to a region", cs.name, e.phys)
    };
    assert_eq!(
        (d.window, d.bus, d.phys, d.lane, d.length_code, d.hae),
        (e.window, e.bus, e.phys, e.lane, e.length_code, e.hae),
        "{} {}",
        cs.name,
        kind.name()
    );
    match d.size {
        0 => {} // linear: the instruction gives the width
        s => assert_eq!(s as u64, size),
    }
    true
}

#[test]
fn decode_roundtrip_every_chipset_window_size_and_lane_at_low_addresses() {
    let mut n = 0;
    for cs in chipset::tables::ALL {
        for w in cs.windows {
            for size in sizes() {
                if !carries(w.encoding, size) {
                    assert!(chipset::encode(cs, w.kind, 0, size).is_err());
                    continue;
                }
                for lane in 0..4u64 {
                    let bus = 0x3f0 + lane;
                    let fits = match w.encoding {
                        Encoding::Sparse { .. } => {
                            if size >= 4 {
                                lane == 0
                            } else {
                                lane + size <= 4
                            }
                        }
                        Encoding::Linear { .. } => bus % size == 0,
                        Encoding::Local { .. } => true,
                    };
                    assert_eq!(
                        roundtrip(cs, w.kind, bus, size),
                        fits && !(size == 8 && bus % 8 != 0),
                        "{} {} {size} lane {lane}",
                        cs.name,
                        w.kind.name()
                    );
                    n += 1;
                }
            }
        }
    }
    assert!(n > 300);
}

proptest! {
    #[test]
    fn decode_roundtrip_property(ci in 0usize..11, wi in 0usize..6, si in 0usize..5, bus in 0u64..0x1_0000_0000) {
        let cs = chipset::tables::ALL[ci];
        let kind = WindowKind::ALL[wi];
        roundtrip(cs, kind, bus, sizes()[si]);
    }
}

/// The devices are the chipset table's: COM1 at ISA port 0x3f8 (Linux
/// arch/alpha/include/asm/serial.h, ttyS0 0x3F8) and the POST port 0x80 on
/// every PCI/ISA chipset; on the Jensen, COM1 is a VL82C106 local device
/// (jensen.h `jensen_is_local`: 0x3f8-0x3ff) and not on EISA.
#[test]
fn state_devices_sit_where_the_tables_put_them() {
    use chipset::{BusSpace, DeviceKind};
    let cia = chipset::by_name("cia").unwrap();
    let lsr = cia.device_at(BusSpace::Io, 0x3fd, 1).unwrap();
    assert_eq!((lsr.kind, lsr.base), (DeviceKind::Uart16550, 0x3f8));
    assert!(
        cia.device_at(BusSpace::Io, 0x3fe, 4).is_none(),
        "crosses 0x400"
    );
    assert_eq!(
        cia.device_at(BusSpace::Io, 0x80, 1).unwrap().kind,
        DeviceKind::PostLatch
    );
    let j = chipset::by_name("jensen").unwrap();
    assert!(j.device_at(BusSpace::Io, 0x3f8, 1).is_none());
    assert_eq!(
        j.device_at(BusSpace::Local, 0x3f8, 1).unwrap().kind,
        DeviceKind::Uart16550
    );
    assert_eq!(
        j.device_at(BusSpace::Local, 0x2f8, 1).unwrap().kind,
        DeviceKind::Inert
    );
    for cs in chipset::tables::ALL {
        assert!(cs.device(DeviceKind::Uart16550).is_some(), "{}", cs.name);
        assert!(cs.devices.iter().all(|d| !d.source.is_empty()));
    }
}

/// Architecture invariant: nothing outside `chipset::tables` knows an I/O
/// address. The bare machine and the commands that drive it must not write
/// the device ports or window bases out.
#[test]
fn state_no_io_address_outside_the_chipset_tables() {
    let root = env!("CARGO_MANIFEST_DIR");
    let files = [
        format!("{root}/src/bare/mod.rs"),
        format!("{root}/src/chipset/mod.rs"),
        format!("{root}/../subword/src/cmd/io.rs"),
        format!("{root}/../subword/src/cmd/machine.rs"),
        format!("{root}/../subword/src/cmd/demo_chipset.rs"),
    ];
    let addresses = [
        "0x3f8",
        "0x3fd",
        "0x3fb",
        "0x2f8",
        "0x3bc",
        "0x170",
        "0x80,",
        "0x80 ",
        "0x80)",
        "0x0800_0000",
        "0x8000000",
        "0x85_8000",
        "0x8580",
        "0x1_c000",
        "0x1c000",
    ];
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap().to_ascii_lowercase();
            for a in addresses {
                assert!(
                    !code.contains(a),
                    "{f}:{}: I/O address {a} outside chipset::tables: {line}",
                    n + 1
                );
            }
        }
    }
}
