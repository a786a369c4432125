//! The initial process stack, laid out as Linux's `create_elf_tables`
//! (fs/binfmt_elf.c) builds it for Alpha, from the stack pointer upwards:
//!
//! ```text
//! sp -> argc
//!       argv[0..argc], NULL
//!       envp[..], NULL
//!       auxv (type, value) pairs ending with AT_NULL, in the kernel's
//!       order: ARCH_DLINFO's four cache shapes, then AT_HWCAP … AT_PLATFORM
//!       ... padding ...
//!       AT_RANDOM bytes (16), AT_PLATFORM string
//!       argument and environment strings, the executable's file name
//! top (STACK_TOP = 0x120000000, arch/alpha/include/asm/processor.h)
//! ```

use crate::loader::LoadedImage;
use crate::memory::{Memory, Perm, PAGE_SIZE};
use alpha_isa::Model;

/// `STACK_TOP` for 64-bit Alpha Linux processes.
pub const STACK_TOP: u64 = 0x1_2000_0000;
/// Default size of the initial stack mapping (qemu-user's too).
pub const STACK_SIZE: u64 = 8 << 20;

// Auxiliary vector tags (include/uapi/linux/auxvec.h).
pub const AT_NULL: u64 = 0;
pub const AT_PHDR: u64 = 3;
pub const AT_PHENT: u64 = 4;
pub const AT_PHNUM: u64 = 5;
pub const AT_PAGESZ: u64 = 6;
pub const AT_BASE: u64 = 7;
pub const AT_FLAGS: u64 = 8;
pub const AT_ENTRY: u64 = 9;
pub const AT_UID: u64 = 11;
pub const AT_EUID: u64 = 12;
pub const AT_GID: u64 = 13;
pub const AT_EGID: u64 = 14;
pub const AT_PLATFORM: u64 = 15;
pub const AT_HWCAP: u64 = 16;
pub const AT_CLKTCK: u64 = 17;
pub const AT_SECURE: u64 = 23;
pub const AT_RANDOM: u64 = 25;
pub const AT_EXECFN: u64 = 31;
pub const AT_L1I_CACHESHAPE: u64 = 34;
pub const AT_L1D_CACHESHAPE: u64 = 35;
pub const AT_L2_CACHESHAPE: u64 = 36;
pub const AT_L3_CACHESHAPE: u64 = 37;

/// `CSHAPE(totalsize, log2 linesize, associativity)` of arch/alpha/kernel/setup.c.
const fn cshape(total: u64, line: u64, assoc: u64) -> u64 {
    (total & !0xff) | (line << 4) | assoc
}

/// The cache shapes Alpha Linux puts first in the auxv (asm/elf.h
/// ARCH_DLINFO), as `determine_cpu_caches` (arch/alpha/kernel/setup.c)
/// sets them: (L1I, L1D, L2, L3). Board caches the kernel finds by timing
/// loads (`external_cache_probe`) are reported as its "none found", -1:
/// there is no board to time.
pub fn cache_shapes(m: &Model) -> [u64; 4] {
    const NONE: u64 = u64::MAX;
    match m.name {
        "ev4" => [cshape(8 << 10, 5, 1), cshape(8 << 10, 5, 1), NONE, NONE],
        "ev45" => [cshape(16 << 10, 5, 1), cshape(16 << 10, 5, 1), NONE, NONE],
        "lca4" | "lca45" => [cshape(8 << 10, 5, 1), cshape(8 << 10, 5, 1), NONE, NONE],
        "ev5" | "ev56" => [
            cshape(8 << 10, 5, 1),
            cshape(8 << 10, 5, 1),
            cshape(96 << 10, 6, 3),
            NONE,
        ],
        "pca56" => [cshape(16 << 10, 6, 1), cshape(8 << 10, 5, 1), NONE, NONE],
        "ev7" => [
            cshape(64 << 10, 6, 2),
            cshape(64 << 10, 6, 2),
            cshape(7 * 1024 * 1024 / 4, 6, 7),
            NONE,
        ],
        _ => [cshape(64 << 10, 6, 2), cshape(64 << 10, 6, 2), NONE, NONE],
    }
}

/// `ELF_PLATFORM` of arch/alpha/include/asm/elf.h: chosen from IMPLVER and
/// AMASK, so e.g. a PCA56 reports "ev56" and an EV68 "ev67".
pub fn elf_platform(m: &Model) -> &'static str {
    let bwx = m.amask & 1 != 0;
    let cix = m.amask & 4 != 0;
    match m.implver {
        0 => "ev4",
        1 if !bwx => "ev5",
        1 => "ev56",
        _ if !cix => "ev6",
        _ => "ev67",
    }
}

/// `ELF_HWCAP` on Alpha is `~amask(-1)`: the AMASK bits of the features present.
pub fn elf_hwcap(m: &Model) -> u64 {
    m.amask
}

/// What the initial stack needs to know.
pub struct StackSpec<'a> {
    pub argv: &'a [String],
    pub envp: &'a [String],
    pub execfn: &'a str,
    pub image: &'a LoadedImage,
    /// Load address of the dynamic loader (`AT_BASE`), 0 without one.
    pub interp_base: u64,
    pub model: &'static Model,
    /// `AT_UID`, `AT_EUID`, `AT_GID`, `AT_EGID`.
    pub ids: [u32; 4],
    /// Size of the stack mapping below [`STACK_TOP`] (a page multiple).
    pub stack_size: u64,
}

/// Map the stack and write the initial frame; returns the initial `sp`.
pub fn build(mem: &mut Memory, spec: &StackSpec) -> Result<u64, String> {
    let base = STACK_TOP - spec.stack_size;
    mem.map_zero(base, spec.stack_size, Perm::RW)
        .map_err(|e| e.to_string())?;
    let mut sp = STACK_TOP;
    let push_bytes = |mem: &mut Memory, b: &[u8], sp: &mut u64| -> Result<u64, String> {
        *sp -= b.len() as u64;
        mem.poke(*sp, b).map_err(|e| e.to_string())?;
        Ok(*sp)
    };
    let cstr = |s: &str| {
        let mut v = s.as_bytes().to_vec();
        v.push(0);
        v
    };
    // Strings at the top, in the kernel's order: file name, env, args.
    sp -= 8; // a NULL end marker below STACK_TOP, as the kernel leaves
    let execfn = push_bytes(mem, &cstr(spec.execfn), &mut sp)?;
    let mut env_ptrs = Vec::new();
    for e in spec.envp.iter().rev() {
        env_ptrs.push(push_bytes(mem, &cstr(e), &mut sp)?);
    }
    env_ptrs.reverse();
    let mut arg_ptrs = Vec::new();
    for a in spec.argv.iter().rev() {
        arg_ptrs.push(push_bytes(mem, &cstr(a), &mut sp)?);
    }
    arg_ptrs.reverse();
    let platform = push_bytes(mem, &cstr(elf_platform(spec.model)), &mut sp)?;
    // AT_RANDOM: 16 bytes. Fixed, so every run is reproducible.
    let random = push_bytes(mem, b"subword-alpha-rn", &mut sp)?;
    sp &= !15;

    let img = spec.image;
    let shapes = cache_shapes(spec.model);
    let auxv: Vec<(u64, u64)> = vec![
        (AT_L1I_CACHESHAPE, shapes[0]),
        (AT_L1D_CACHESHAPE, shapes[1]),
        (AT_L2_CACHESHAPE, shapes[2]),
        (AT_L3_CACHESHAPE, shapes[3]),
        (AT_HWCAP, elf_hwcap(spec.model)),
        (AT_PAGESZ, PAGE_SIZE),
        (AT_CLKTCK, super::time::USER_HZ),
        (AT_PHDR, img.phdr.unwrap_or(0)),
        (AT_PHENT, img.phent),
        (AT_PHNUM, img.phnum),
        (AT_BASE, spec.interp_base),
        (AT_FLAGS, 0),
        (AT_ENTRY, img.entry),
        (AT_UID, spec.ids[0] as u64),
        (AT_EUID, spec.ids[1] as u64),
        (AT_GID, spec.ids[2] as u64),
        (AT_EGID, spec.ids[3] as u64),
        (AT_SECURE, 0),
        (AT_RANDOM, random),
        (AT_EXECFN, execfn),
        (AT_PLATFORM, platform),
        (AT_NULL, 0),
    ];
    let words = 1 + arg_ptrs.len() + 1 + env_ptrs.len() + 1 + auxv.len() * 2;
    sp -= words as u64 * 8;
    sp &= !15;
    let mut frame: Vec<u64> = Vec::with_capacity(words);
    frame.push(arg_ptrs.len() as u64);
    frame.extend(&arg_ptrs);
    frame.push(0);
    frame.extend(&env_ptrs);
    frame.push(0);
    for (k, v) in auxv {
        frame.push(k);
        frame.push(v);
    }
    let bytes: Vec<u8> = frame.iter().flat_map(|w| w.to_le_bytes()).collect();
    if sp < base {
        return Err("arguments and environment do not fit in the initial stack".into());
    }
    mem.poke(sp, &bytes).map_err(|e| e.to_string())?;
    Ok(sp)
}
