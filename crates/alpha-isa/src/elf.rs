//! ELF64 Alpha: a small writer for static executables (what the assembler
//! produces) and a reader for the code sections the disassembler lists.
//!
//! Writer layout (as GNU ld lays out a static Alpha executable, Handbook-
//! independent; see the System V gABI and the Alpha psABI): one R+X
//! `PT_LOAD` at 0x120000000 holding the ELF header, program headers and
//! `.text`; one R+W `PT_LOAD` for `.data` in the next 8 KiB page (the Alpha
//! page size); a `PT_GNU_STACK` (non-executable stack). Section headers
//! `.text`, `.data`, `.symtab`, `.strtab`, `.shstrtab` follow the data, so
//! objdump and objcopy can read the file.

use object::elf::{
    EM_ALPHA, ET_EXEC, PF_R, PF_W, PF_X, PT_GNU_STACK, PT_LOAD, PT_NULL, SHF_ALLOC, SHF_EXECINSTR,
    SHF_WRITE, SHT_NOBITS, SHT_PROGBITS, SHT_STRTAB, SHT_SYMTAB, STB_GLOBAL, STB_LOCAL, STT_NOTYPE,
};
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader};
use object::LittleEndian as LE;

use crate::asm::{Program, TEXT_SEGMENT_BASE};

/// Alpha pages are 8 KiB.
pub const PAGE: u64 = 0x2000;
const EHDR: u64 = 64;
const PHDR: u64 = 56;
const SHDR: u64 = 64;
const NPHDR: u64 = 3;
/// Bytes before `.text` in the first segment (headers, rounded up so
/// `.text` starts 256-byte aligned and `.align` matches GNU as up to 2^8).
pub const HEADERS_SIZE: u64 = (EHDR + NPHDR * PHDR).div_ceil(256) * 256;

/// Where the data segment goes after a text segment starting at
/// `text_addr` with `text_len` bytes: the next page boundary.
pub fn data_addr_after(text_addr: u64, text_len: u64) -> u64 {
    text_addr
        .saturating_add(text_len)
        .div_ceil(PAGE)
        .saturating_mul(PAGE)
}

fn put16(b: &mut Vec<u8>, v: u16) {
    b.extend_from_slice(&v.to_le_bytes());
}
fn put32(b: &mut Vec<u8>, v: u32) {
    b.extend_from_slice(&v.to_le_bytes());
}
fn put64(b: &mut Vec<u8>, v: u64) {
    b.extend_from_slice(&v.to_le_bytes());
}

#[allow(clippy::too_many_arguments)] // one argument per Elf64_Phdr field
fn phdr(
    b: &mut Vec<u8>,
    ty: u32,
    flags: u32,
    off: u64,
    vaddr: u64,
    filesz: u64,
    memsz: u64,
    align: u64,
) {
    put32(b, ty);
    put32(b, flags);
    put64(b, off);
    put64(b, vaddr);
    put64(b, vaddr);
    put64(b, filesz);
    put64(b, memsz);
    put64(b, align);
}

#[allow(clippy::too_many_arguments)] // one argument per Elf64_Shdr field
fn shdr(
    b: &mut Vec<u8>,
    name: u32,
    ty: u32,
    flags: u64,
    addr: u64,
    off: u64,
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
) {
    put32(b, name);
    put32(b, ty);
    put64(b, flags);
    put64(b, addr);
    put64(b, off);
    put64(b, size);
    put32(b, link);
    put32(b, info);
    put64(b, align);
    put64(b, entsize);
}

/// Serialise `p` as a static ELF64 Alpha executable. The text must start
/// at `TEXT_SEGMENT_BASE + HEADERS_SIZE` (what [`crate::asm::assemble`]
/// produces); other layouts are written with the text segment starting
/// `HEADERS_SIZE` bytes before `p.text_addr`.
pub fn write_exec(p: &Program) -> Vec<u8> {
    let seg_base = p.text_addr.saturating_sub(HEADERS_SIZE);
    let text_off = HEADERS_SIZE;
    let text_end = text_off + p.text.len() as u64;
    let has_data = !p.data.is_empty();
    // The data's file offset is congruent to its address modulo the page
    // (what loaders need); with the default layout it equals data_addr - base.
    let data_off = if has_data {
        text_end.div_ceil(PAGE) * PAGE + p.data_addr % PAGE
    } else {
        text_end
    };
    let data_end = data_off + if has_data { p.data.len() as u64 } else { 0 };

    // Symbol and string tables.
    let mut strtab = vec![0u8];
    let mut syms = Vec::new();
    let mut locals: Vec<&(String, u64)> = p.symbols.iter().filter(|s| s.0 != "_start").collect();
    locals.sort_by_key(|s| s.1);
    let globals: Vec<&(String, u64)> = p.symbols.iter().filter(|s| s.0 == "_start").collect();
    syms.extend_from_slice(&[0u8; 24]);
    let sect_of = |a: u64| -> u16 {
        if a >= p.text_addr && a <= p.text_addr + p.text.len() as u64 {
            1
        } else if has_data && a >= p.data_addr && a <= p.data_addr + p.data.len() as u64 {
            2
        } else {
            0xfff1 // SHN_ABS
        }
    };
    for (i, (name, addr)) in locals
        .iter()
        .chain(globals.iter())
        .map(|s| (&s.0, s.1))
        .enumerate()
    {
        let bind = if i < locals.len() {
            STB_LOCAL
        } else {
            STB_GLOBAL
        };
        put32(&mut syms, strtab.len() as u32);
        strtab.extend_from_slice(name.as_bytes());
        strtab.push(0);
        syms.push((bind << 4) | STT_NOTYPE);
        syms.push(0);
        put16(&mut syms, sect_of(addr));
        put64(&mut syms, addr);
        put64(&mut syms, 0);
    }
    let first_global = 1 + locals.len() as u32;

    let mut shstr = vec![0u8];
    let mut name = |s: &str| {
        let o = shstr.len() as u32;
        shstr.extend_from_slice(s.as_bytes());
        shstr.push(0);
        o
    };
    let n_text = name(".text");
    let n_data = name(".data");
    let n_symtab = name(".symtab");
    let n_strtab = name(".strtab");
    let n_shstr = name(".shstrtab");

    let symtab_off = data_end.div_ceil(8) * 8;
    let strtab_off = symtab_off + syms.len() as u64;
    let shstr_off = strtab_off + strtab.len() as u64;
    let shoff = (shstr_off + shstr.len() as u64).div_ceil(8) * 8;
    let nsect: u16 = if has_data { 6 } else { 5 };

    let mut b = Vec::new();
    // e_ident
    b.extend_from_slice(&[0x7f, b'E', b'L', b'F', 2, 1, 1, 0]);
    b.extend_from_slice(&[0u8; 8]);
    put16(&mut b, ET_EXEC);
    put16(&mut b, EM_ALPHA);
    put32(&mut b, 1);
    put64(&mut b, p.entry);
    put64(&mut b, EHDR);
    put64(&mut b, shoff);
    put32(&mut b, 0);
    put16(&mut b, EHDR as u16);
    put16(&mut b, PHDR as u16);
    put16(&mut b, NPHDR as u16);
    put16(&mut b, SHDR as u16);
    put16(&mut b, nsect);
    put16(&mut b, nsect - 1);
    phdr(
        &mut b,
        PT_LOAD,
        PF_R | PF_X,
        0,
        seg_base,
        text_end,
        text_end,
        PAGE,
    );
    if has_data {
        let len = p.data.len() as u64;
        phdr(
            &mut b,
            PT_LOAD,
            PF_R | PF_W,
            data_off,
            p.data_addr,
            len,
            len,
            PAGE,
        );
    } else {
        phdr(&mut b, PT_NULL, 0, 0, 0, 0, 0, 0);
    }
    phdr(&mut b, PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 16);
    b.resize(text_off as usize, 0);
    b.extend_from_slice(&p.text);
    if has_data {
        b.resize(data_off as usize, 0);
        b.extend_from_slice(&p.data);
    }
    b.resize(symtab_off as usize, 0);
    b.extend_from_slice(&syms);
    b.extend_from_slice(&strtab);
    b.extend_from_slice(&shstr);
    b.resize(shoff as usize, 0);
    shdr(&mut b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    let alloc_x = (SHF_ALLOC | SHF_EXECINSTR) as u64;
    shdr(
        &mut b,
        n_text,
        SHT_PROGBITS,
        alloc_x,
        p.text_addr,
        text_off,
        p.text.len() as u64,
        0,
        0,
        16,
        0,
    );
    if has_data {
        let wa = (SHF_ALLOC | SHF_WRITE) as u64;
        shdr(
            &mut b,
            n_data,
            SHT_PROGBITS,
            wa,
            p.data_addr,
            data_off,
            p.data.len() as u64,
            0,
            0,
            16,
            0,
        );
    }
    let strtab_index = nsect as u32 - 2;
    shdr(
        &mut b,
        n_symtab,
        SHT_SYMTAB,
        0,
        0,
        symtab_off,
        syms.len() as u64,
        strtab_index,
        first_global,
        8,
        24,
    );
    shdr(
        &mut b,
        n_strtab,
        SHT_STRTAB,
        0,
        0,
        strtab_off,
        strtab.len() as u64,
        0,
        0,
        1,
        0,
    );
    shdr(
        &mut b,
        n_shstr,
        SHT_STRTAB,
        0,
        0,
        shstr_off,
        shstr.len() as u64,
        0,
        0,
        1,
        0,
    );
    debug_assert_eq!(TEXT_SEGMENT_BASE % PAGE, 0);
    b
}

/// A bad ELF file: one line naming what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElfError(pub String);

impl std::fmt::Display for ElfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for ElfError {}

/// Executable code found in an ELF file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeSection {
    /// Section name (`.text`), or `LOAD[n]` when the file has no sections.
    pub name: String,
    pub addr: u64,
    pub bytes: Vec<u8>,
}

fn bad(e: impl std::fmt::Display) -> ElfError {
    ElfError(format!("not a valid ELF file: {e}"))
}

/// The executable sections (`SHF_EXECINSTR`) of an ELF64 little-endian
/// Alpha file, or its executable `PT_LOAD` segments when it has no section
/// headers. Never panics on malformed input.
pub fn read_code(data: &[u8]) -> Result<Vec<CodeSection>, ElfError> {
    if data.len() < 16 || &data[..4] != b"\x7fELF" {
        return Err(ElfError("not an ELF file (bad magic)".into()));
    }
    if data[4] != 2 {
        return Err(ElfError(format!(
            "ELF class {} is not ELF64 (Alpha is 64-bit)",
            data[4]
        )));
    }
    if data[5] != 1 {
        return Err(ElfError(
            "ELF data encoding is not little-endian (Alpha is little-endian)".into(),
        ));
    }
    let hdr = object::elf::FileHeader64::<LE>::parse(data).map_err(bad)?;
    let e = hdr.endian().map_err(bad)?;
    let machine = hdr.e_machine(e);
    if machine != EM_ALPHA {
        return Err(ElfError(format!(
            "ELF machine {machine:#x} is not Alpha (0x9026)"
        )));
    }
    let mut out = Vec::new();
    let sections = hdr.sections(e, data).map_err(bad)?;
    for s in sections.iter() {
        if s.sh_flags(e) & SHF_EXECINSTR as u64 == 0 || s.sh_type(e) == SHT_NOBITS {
            continue;
        }
        let name = sections.section_name(e, s).map_err(bad)?;
        let bytes = s
            .data(e, data)
            .map_err(|_| bad("section data lies outside the file"))?;
        out.push(CodeSection {
            name: String::from_utf8_lossy(name).into_owned(),
            addr: s.sh_addr(e),
            bytes: bytes.to_vec(),
        });
    }
    if sections.is_empty() {
        for (i, ph) in hdr
            .program_headers(e, data)
            .map_err(bad)?
            .iter()
            .enumerate()
        {
            if ph.p_type(e) == PT_LOAD && ph.p_flags(e) & PF_X != 0 {
                let bytes = ph
                    .data(e, data)
                    .map_err(|_| bad("segment data lies outside the file"))?;
                out.push(CodeSection {
                    name: format!("LOAD[{i}]"),
                    addr: ph.p_vaddr(e),
                    bytes: bytes.to_vec(),
                });
            }
        }
    }
    if out.is_empty() {
        return Err(ElfError("ELF file has no executable sections".into()));
    }
    Ok(out)
}

/// The defined symbols of an ELF file (`.symtab`, or `.dynsym` when there
/// is no `.symtab`), without section and file symbols — the set objdump
/// chooses branch-target names from. A file without symbols gives an empty
/// list.
pub fn read_symbols(data: &[u8]) -> Result<Vec<crate::symbols::Symbol>, ElfError> {
    use object::elf::{
        SHN_ABS, SHN_COMMON, SHN_UNDEF, SHT_DYNSYM, STB_WEAK, STT_FILE, STT_FUNC, STT_GNU_IFUNC,
        STT_OBJECT, STT_SECTION,
    };
    use object::read::elf::Sym;
    read_code(data)?;
    let hdr = object::elf::FileHeader64::<LE>::parse(data).map_err(bad)?;
    let e = hdr.endian().map_err(bad)?;
    let sections = hdr.sections(e, data).map_err(bad)?;
    let mut table = sections.symbols(e, data, SHT_SYMTAB).map_err(bad)?;
    if table.is_empty() {
        table = sections.symbols(e, data, SHT_DYNSYM).map_err(bad)?;
    }
    let mut out = Vec::new();
    for s in table.iter().skip(1) {
        let shndx = s.st_shndx(e);
        let ty = s.st_type();
        if shndx == SHN_UNDEF || shndx == SHN_COMMON || ty == STT_SECTION || ty == STT_FILE {
            continue;
        }
        let section = if shndx == SHN_ABS {
            "*ABS*".to_string()
        } else {
            match sections.section(object::SectionIndex(shndx as usize)) {
                Ok(sh) => String::from_utf8_lossy(sections.section_name(e, sh).unwrap_or(b""))
                    .into_owned(),
                Err(_) => continue,
            }
        };
        let name = String::from_utf8_lossy(table.symbol_name(e, s).map_err(bad)?).into_owned();
        let bind = s.st_bind();
        out.push(crate::symbols::Symbol {
            name,
            value: s.st_value(e),
            size: s.st_size(e),
            section,
            func: ty == STT_FUNC || ty == STT_GNU_IFUNC,
            object: ty == STT_OBJECT,
            global: bind != STB_LOCAL && bind != STB_WEAK,
            local: bind == STB_LOCAL,
        });
    }
    Ok(out)
}
