//! ELF64 Alpha executables into guest memory (System V gABI; Alpha psABI:
//! `EM_ALPHA` = 0x9026, little-endian, ELFCLASS64).
//!
//! Static `ET_EXEC` images load at their link addresses; `ET_DYN` images
//! (PIE, or the dynamic loader itself) at a caller-chosen bias, so issue 3's
//! `PT_INTERP` support is a second call to [`load`]. Every segment is checked
//! against the file before anything is mapped; bad input is a [`LoadError`]
//! whose `Display` is one line, never a panic.

use crate::memory::{Memory, Perm, PAGE_SIZE};
use object::elf;
use object::read::elf::{FileHeader, ProgramHeader};
use object::LittleEndian as LE;

/// Largest total size of loadable segments accepted (guards against a
/// corrupt `p_memsz` asking for terabytes).
const MAX_IMAGE: u64 = 1 << 32;

/// Why an ELF file could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    NotElf,
    WrongClass,
    WrongEndian,
    WrongMachine(u16),
    WrongType(u16),
    Malformed(String),
    NoSegments,
    /// The image does not fit under the guest memory cap (`--max-memory`).
    OverMemoryCap(u64),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::NotElf => write!(f, "not an ELF file"),
            LoadError::WrongClass => {
                write!(f, "32-bit ELF file; Alpha Linux executables are ELF64")
            }
            LoadError::WrongEndian => {
                write!(f, "big-endian ELF file; Alpha is little-endian")
            }
            LoadError::WrongMachine(m) => {
                write!(f, "ELF machine 0x{m:x} is not Alpha (EM_ALPHA 0x9026)")
            }
            LoadError::WrongType(t) => {
                write!(f, "ELF type {t} is not an executable (ET_EXEC or ET_DYN)")
            }
            LoadError::Malformed(m) => write!(f, "truncated or malformed ELF file: {m}"),
            LoadError::NoSegments => write!(f, "ELF file has no loadable segments"),
            LoadError::OverMemoryCap(limit) => write!(
                f,
                "the program's segments do not fit in the guest memory cap of {limit} bytes (--max-memory)"
            ),
        }
    }
}

/// Thread-local storage template (`PT_TLS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TlsTemplate {
    pub vaddr: u64,
    pub filesz: u64,
    pub memsz: u64,
    pub align: u64,
}

/// What the loader learned, for the initial stack (auxv) and the personality.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedImage {
    /// Entry point (bias applied).
    pub entry: u64,
    /// Address added to every link-time address (0 for `ET_EXEC`).
    pub bias: u64,
    /// Where the program headers are in guest memory (`AT_PHDR`), if loaded.
    pub phdr: Option<u64>,
    pub phent: u64,
    pub phnum: u64,
    /// `PT_INTERP` path, if the program wants a dynamic loader.
    pub interp: Option<String>,
    pub tls: Option<TlsTemplate>,
    /// Lowest and one-past-highest address of the loaded segments.
    pub start: u64,
    pub end: u64,
    /// `PT_GNU_STACK` says the stack is executable.
    pub exec_stack: bool,
    /// The page ranges the file itself backs, as the kernel's `elf_map`
    /// maps them: `(start, end, file offset of start)` per segment with
    /// file contents, the page holding its last file byte included (the
    /// rest of its memory size is anonymous).
    pub file_ranges: Vec<(u64, u64, u64)>,
}

struct Seg {
    vaddr: u64,
    memsz: u64,
    offset: u64,
    filesz: u64,
    perm: Perm,
}

fn bad(m: impl Into<String>) -> LoadError {
    LoadError::Malformed(m.into())
}

/// Check the identification bytes and header; cheap, no memory touched.
pub fn check_header(data: &[u8]) -> Result<&elf::FileHeader64<LE>, LoadError> {
    if data.len() < 4 || &data[..4] != b"\x7fELF" {
        return Err(LoadError::NotElf);
    }
    if data.len() < 6 {
        return Err(bad("file ends inside the ELF identification"));
    }
    match data[4] {
        elf::ELFCLASS64 => {}
        elf::ELFCLASS32 => return Err(LoadError::WrongClass),
        c => return Err(bad(format!("unknown ELF class {c}"))),
    }
    match data[5] {
        elf::ELFDATA2LSB => {}
        elf::ELFDATA2MSB => return Err(LoadError::WrongEndian),
        d => return Err(bad(format!("unknown ELF data encoding {d}"))),
    }
    let hdr = elf::FileHeader64::<LE>::parse(data).map_err(|e| bad(e.to_string()))?;
    let machine = hdr.e_machine(LE);
    if machine != elf::EM_ALPHA {
        return Err(LoadError::WrongMachine(machine));
    }
    let ty = hdr.e_type(LE);
    if ty != elf::ET_EXEC && ty != elf::ET_DYN {
        return Err(LoadError::WrongType(ty));
    }
    Ok(hdr)
}

/// Load `data` into `mem`. `dyn_bias` is where an `ET_DYN` image goes
/// (ignored for `ET_EXEC`). Nothing is mapped unless every check passes
/// (mapping itself can still fail on the memory cap).
pub fn load(mem: &mut Memory, data: &[u8], dyn_bias: u64) -> Result<LoadedImage, LoadError> {
    let hdr = check_header(data)?;
    let bias = if hdr.e_type(LE) == elf::ET_DYN {
        dyn_bias
    } else {
        0
    };
    let phdrs = hdr
        .program_headers(LE, data)
        .map_err(|e| bad(e.to_string()))?;
    let phoff = hdr.e_phoff(LE);
    let mut segs = Vec::new();
    let mut img = LoadedImage {
        entry: hdr.e_entry(LE).wrapping_add(bias),
        bias,
        phdr: None,
        phent: hdr.e_phentsize(LE) as u64,
        phnum: phdrs.len() as u64,
        interp: None,
        tls: None,
        start: u64::MAX,
        end: 0,
        exec_stack: false,
        file_ranges: Vec::new(),
    };
    let mut total = 0u64;
    for ph in phdrs {
        let (ty, off, va, fsz, msz) = (
            ph.p_type(LE),
            ph.p_offset(LE),
            ph.p_vaddr(LE),
            ph.p_filesz(LE),
            ph.p_memsz(LE),
        );
        let in_file = off.checked_add(fsz).is_some_and(|e| e <= data.len() as u64);
        match ty {
            elf::PT_LOAD => {
                if !in_file {
                    return Err(bad(format!(
                        "segment at offset 0x{off:x} size 0x{fsz:x} runs past the end of the file"
                    )));
                }
                if fsz > msz {
                    return Err(bad(format!(
                        "segment at 0x{va:x} has file size 0x{fsz:x} > memory size 0x{msz:x}"
                    )));
                }
                let va = va.wrapping_add(bias);
                va.checked_add(msz)
                    .and_then(|e| e.checked_add(PAGE_SIZE))
                    .ok_or_else(|| bad(format!("segment at 0x{va:x} wraps the address space")))?;
                total = total.saturating_add(msz);
                if total > MAX_IMAGE {
                    return Err(bad("loadable segments exceed 4 GiB"));
                }
                if msz == 0 {
                    continue;
                }
                if off <= phoff && phoff < off + fsz && img.phdr.is_none() {
                    img.phdr = Some(va + (phoff - off));
                }
                segs.push(Seg {
                    vaddr: va,
                    memsz: msz,
                    offset: off,
                    filesz: fsz,
                    perm: Perm::from_prot(ph.p_flags(LE)),
                });
            }
            elf::PT_INTERP => {
                if !in_file {
                    return Err(bad("PT_INTERP runs past the end of the file"));
                }
                let raw = &data[off as usize..(off + fsz) as usize];
                let s = raw.split(|&b| b == 0).next().unwrap_or(&[]);
                img.interp = Some(String::from_utf8_lossy(s).into_owned());
            }
            elf::PT_PHDR => img.phdr = Some(va.wrapping_add(bias)),
            elf::PT_TLS => {
                img.tls = Some(TlsTemplate {
                    vaddr: va.wrapping_add(bias),
                    filesz: fsz,
                    memsz: msz,
                    align: ph.p_align(LE),
                })
            }
            elf::PT_GNU_STACK => img.exec_stack = ph.p_flags(LE) & elf::PF_X != 0,
            _ => {}
        }
    }
    if segs.is_empty() {
        return Err(LoadError::NoSegments);
    }
    // Pages may be shared by two segments: map each page once with the
    // union of the permissions of the segments touching it.
    let mut pages: std::collections::BTreeMap<u64, Perm> = Default::default();
    for s in &segs {
        let first = s.vaddr & !(PAGE_SIZE - 1);
        let last = (s.vaddr + s.memsz - 1) & !(PAGE_SIZE - 1);
        let mut p = first;
        loop {
            let e = pages.entry(p).or_insert(Perm::NONE);
            *e = e.union(s.perm);
            if p == last {
                break;
            }
            p += PAGE_SIZE;
        }
        img.start = img.start.min(s.vaddr);
        img.end = img.end.max(s.vaddr + s.memsz);
    }
    for (&p, &perm) in &pages {
        mem.map_zero(p, PAGE_SIZE, perm).map_err(|e| match e {
            crate::memory::MapError::TooMuchMemory { limit } => LoadError::OverMemoryCap(limit),
            e => bad(e.to_string()),
        })?;
    }
    for s in &segs {
        let bytes = &data[s.offset as usize..(s.offset + s.filesz) as usize];
        mem.poke(s.vaddr, bytes).map_err(|e| bad(e.to_string()))?;
        if s.filesz > 0 {
            let lead = s.vaddr & (PAGE_SIZE - 1);
            let end = (s.vaddr + s.filesz).next_multiple_of(PAGE_SIZE);
            img.file_ranges
                .push((s.vaddr - lead, end, s.offset.saturating_sub(lead)));
        }
    }
    Ok(img)
}
