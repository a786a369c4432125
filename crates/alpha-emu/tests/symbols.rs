//! `alpha_emu::symbols` on real glibc programs: after a run, every loaded
//! object (the program, ld.so, libc) is known to the process, and a pc in
//! any of them resolves to the right object, symbol and offset; a pc in a
//! program built with `-g` also resolves to its source file and line.

use alpha_emu::linux::{CaptureHost, Exit, Options, Process};
use alpha_emu::symbols::Symbolizer;
use std::path::Path;

const SRC: &str = r#"#include <stdio.h>

__attribute__((noinline)) int marker(int x)
{
    return x * 3 + 1;
}

int main(int argc, char **argv)
{
    printf("%lx %lx %d\n", (unsigned long)marker, (unsigned long)puts, marker(argc));
    return 0;
}
"#;

/// Run `bin` to its exit; the finished process and the two addresses it
/// printed (`marker` and `puts` as the program sees them).
fn run(bin: &Path) -> (Process, u64, u64) {
    let m = alpha_isa::model_by_name("ev56").unwrap();
    let mut opts = Options::new(m, vec![bin.display().to_string()]);
    opts.sysroot = Some(testkit::ALPHA_SYSROOT.into());
    let elf = std::fs::read(bin).unwrap();
    let mut p = Process::new(&elf, &opts).unwrap();
    let mut host = CaptureHost::default();
    let e = p.run(&mut host, Some(100_000_000));
    assert_eq!(e, Exit::Exited(0), "{:?}", host.diags);
    let out = String::from_utf8(host.stdout).unwrap();
    let f: Vec<u64> = out
        .split_whitespace()
        .take(2)
        .map(|h| u64::from_str_radix(h, 16).unwrap())
        .collect();
    (p, f[0], f[1])
}

/// The names glibc gives the function at `puts`'s address (it has aliases).
const PUTS: &[&str] = &["puts", "_IO_puts"];

fn check_main(s: &Symbolizer, marker: u64) {
    let l = s.lookup(marker).expect("marker resolves");
    assert_eq!(l.symbol.as_deref(), Some("marker"), "{l:?}");
    assert_eq!(l.offset, 0);
    assert_eq!(l.symbol_text(), "marker");
    assert!(l.file.as_deref().unwrap_or("").ends_with("prog.c"), "{l:?}");
    // The function spans lines 3-6; its first instruction belongs to one of them.
    assert!((3..=6).contains(&l.line.unwrap_or(0)), "{l:?}");
    let l = s.lookup(marker + 4).unwrap();
    assert_eq!(l.symbol_text(), "marker+0x4");
}

#[test]
fn static_program_pc_resolves_to_symbol_and_file_line_and_libc_code_inside_it() {
    let Some(gcc) = testkit::alpha_gcc("symbols_static") else {
        return;
    };
    let dir = testkit::scratch_dir("symbols_static");
    let bin = testkit::compile_c(
        &gcc,
        &dir,
        "prog",
        SRC,
        &["-g", "-static", "-Wl,--no-relax"],
    );
    let (p, marker, puts) = run(&bin);
    assert_eq!(p.objects.len(), 1, "{:?}", p.objects);
    let s = Symbolizer::for_process(&p);
    check_main(&s, marker);
    let l = s.lookup(puts + 8).unwrap();
    assert!(PUTS.contains(&l.symbol.as_deref().unwrap_or("")), "{l:?}");
    assert_eq!(l.offset, 8);
    assert_eq!(l.object, p.exe_path);
    // Below the program there is nothing to name.
    assert!(s.lookup(0x1000).is_none());
}

#[test]
fn dynamic_program_pcs_resolve_in_the_program_ld_so_and_libc() {
    let Some(gcc) = testkit::alpha_gcc("symbols_dynamic") else {
        return;
    };
    let dir = testkit::scratch_dir("symbols_dynamic");
    let bin = testkit::compile_c(&gcc, &dir, "prog", SRC, &["-g"]);
    let (p, marker, puts) = run(&bin);
    let names: Vec<String> = p
        .objects
        .iter()
        .map(|o| o.path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().any(|n| n.starts_with("ld-linux")), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("libc.so")), "{names:?}");
    let s = Symbolizer::for_process(&p);
    check_main(&s, marker);
    // `puts` as the program sees it is libc's own, mapped at the bias ld.so
    // chose: it resolves in libc (from its dynamic symbol table) at offset 0.
    let l = s.lookup(puts).unwrap();
    assert!(l.object_name().starts_with("libc.so"), "{l:?}");
    assert!(PUTS.contains(&l.symbol.as_deref().unwrap_or("")), "{l:?}");
    assert_eq!(l.offset, 0, "{l:?}");
    let l = s.lookup(puts + 0x10).unwrap();
    assert_eq!(l.offset, 0x10);
    assert!(l.symbol_text().ends_with("puts+0x10"), "{l:?}");
    // The loader's entry point lies in ld.so. Debian's ld.so is stripped
    // and `_start` is not exported: it is named by object and link-time
    // address.
    let ld = p.interp.as_ref().unwrap();
    let l = s.lookup(ld.entry).unwrap();
    assert!(l.object_name().starts_with("ld-linux"), "{l:?}");
    assert_eq!(
        (l.symbol.as_deref(), l.offset),
        (None, ld.entry - ld.bias),
        "{l:?}"
    );
    assert_eq!(
        l.symbol_text(),
        format!("{}+{:#x}", l.object_name(), ld.entry - ld.bias)
    );
    // The process's own lookup agrees.
    assert_eq!(p.locate(puts), s.lookup(puts));
    // Unmapping the first page of libc's mapping (as ld.so trims an
    // over-aligned mapping) leaves the rest named at the same bias.
    let mut p = p;
    let libc = p
        .objects
        .iter()
        .find(|o| o.path.to_string_lossy().contains("libc.so"))
        .unwrap()
        .clone();
    p.note_unmap(libc.start, 0x2000);
    assert!(p
        .locate(libc.start)
        .is_none_or(|l| !l.object_name().starts_with("libc")));
    let l = p.locate(puts).unwrap();
    assert!(
        PUTS.contains(&l.symbol.as_deref().unwrap_or("")) && l.offset == 0,
        "{l:?}"
    );
    // Unmapping all of it forgets it.
    p.note_unmap(libc.start, libc.end - libc.start);
    assert!(p.locate(puts).is_none());
}

const MEMCPY_NULL: &str = r#"#include <string.h>
char buf[256];
char *volatile target;
int main(int argc, char **argv)
{
    memcpy(target, buf, 8 * argc);
    return target[0];
}
"#;

#[test]
fn fatal_signal_in_libc_names_the_libc_function_from_its_dynamic_symbols() {
    let Some(gcc) = testkit::alpha_gcc("symbols_memcpy_crash") else {
        return;
    };
    let dir = testkit::scratch_dir("symbols_memcpy_crash");
    let bin = testkit::compile_c(&gcc, &dir, "memcpy_null", MEMCPY_NULL, &["-g"]);
    let m = alpha_isa::model_by_name("ev56").unwrap();
    let mut opts = Options::new(m, vec![bin.display().to_string()]);
    opts.sysroot = Some(testkit::ALPHA_SYSROOT.into());
    let mut host = CaptureHost::default();
    let e = alpha_emu::linux::run_program(&std::fs::read(&bin).unwrap(), &opts, &mut host).unwrap();
    assert_eq!(e.status(), 139, "{:?}", host.diags);
    let d = host.diags.join("\n");
    // Named in libc's own dynamic symbols, not as an offset from the
    // program's last symbol.
    assert!(d.contains("SIGSEGV: ") && d.contains(" <memcpy+0x"), "{d}");
    assert!(!d.contains("_end+"), "{d}");
    assert_eq!(host.diags.len(), 1, "{d}");
    // 100 bytes go through glibc's unexported word-copy helper: past the
    // end of every exported function, so it is named by object and offset.
    let big = MEMCPY_NULL.replace("8 * argc", "100 * argc");
    let bin = testkit::compile_c(&gcc, &dir, "memcpy_big", &big, &["-g"]);
    let mut host = CaptureHost::default();
    let e = alpha_emu::linux::run_program(&std::fs::read(&bin).unwrap(), &opts, &mut host).unwrap();
    assert_eq!(e.status(), 139, "{:?}", host.diags);
    let d = host.diags.join("\n");
    assert!(d.contains(" <libc.so.6.1+0x"), "{d}");
}
