//! Symbolic addresses the way GNU objdump prints them: `120000394
//! <abort+0x184>`. Also the `func+0xNN` names reports use.
//!
//! Symbol choice follows objdump's documented ordering (binutils
//! `objdump.c`, `compare_symbols` / `find_symbol_for_address`, read for the
//! facts): among symbols at the greatest address ≤ the target, prefer one in
//! the section being listed, then names that are not compiler markers or
//! file names, functions, then objects, then global, then weak, then local
//! symbols, larger sizes, names not starting with `.`, and finally by name.

use std::cmp::Ordering;

/// One ELF symbol, as much of it as the choice needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub value: u64,
    pub size: u64,
    /// Name of the section it is defined in (`*ABS*` for absolute symbols).
    pub section: String,
    pub func: bool,
    pub object: bool,
    pub global: bool,
    pub local: bool,
}

/// Symbols sorted for lookups while listing one section.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    sorted: Vec<Symbol>,
}

fn file_like(n: &str) -> bool {
    n.len() > 2 && (n.ends_with(".o") || n.ends_with(".a"))
}
fn compiled_marker(n: &str) -> bool {
    n.contains("gnu_compiled") || n.contains("gcc2_compiled")
}

impl Symbols {
    /// Order `syms` for listing the section named `section`.
    pub fn for_section(syms: &[Symbol], section: &str) -> Symbols {
        let mut sorted = syms.to_vec();
        sorted.sort_by(|a, b| {
            a.value
                .cmp(&b.value)
                .then_with(|| (b.section == section).cmp(&(a.section == section)))
                .then_with(|| compiled_marker(&a.name).cmp(&compiled_marker(&b.name)))
                .then_with(|| file_like(&a.name).cmp(&file_like(&b.name)))
                .then_with(|| b.func.cmp(&a.func))
                .then_with(|| b.object.cmp(&a.object))
                .then_with(|| a.local.cmp(&b.local))
                .then_with(|| b.global.cmp(&a.global))
                .then_with(|| b.size.cmp(&a.size))
                .then_with(|| a.name.starts_with('.').cmp(&b.name.starts_with('.')))
                .then_with(|| a.name.as_bytes().cmp(b.name.as_bytes()))
        });
        Symbols { sorted }
    }

    /// No symbols at all (objdump then prints bare `0x…` addresses).
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    /// The symbol objdump names `vma` after: the first (in the order above)
    /// of those at the greatest address ≤ `vma`, or the very first symbol
    /// when `vma` lies below all of them.
    pub fn lookup(&self, vma: u64) -> Option<&Symbol> {
        if self.sorted.is_empty() {
            return None;
        }
        let n = self.sorted.partition_point(|s| s.value <= vma);
        let at = if n == 0 { 0 } else { n - 1 };
        let v = self.sorted[at].value;
        let first = self.sorted[..=at].partition_point(|s| s.value < v);
        self.sorted.get(first)
    }

    /// `name`, `name+0xoff` or `name-0xoff` for `vma`.
    pub fn describe(&self, vma: u64) -> Option<String> {
        let s = self.lookup(vma)?;
        Some(match vma.cmp(&s.value) {
            Ordering::Equal => s.name.clone(),
            Ordering::Greater => format!("{}+{:#x}", s.name, vma - s.value),
            Ordering::Less => format!("{}-{:#x}", s.name, s.value - vma),
        })
    }

    /// A branch target as objdump prints it: `120000394 <abort+0x184>`,
    /// or `0x…` when there are no symbols.
    pub fn render(&self, vma: u64) -> String {
        match self.describe(vma) {
            Some(d) => format!("{vma:x} <{d}>"),
            None => format!("{vma:#x}"),
        }
    }
}
