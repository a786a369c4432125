//! A two-pass assembler for hand-written Alpha code in GNU `as` syntax,
//! driven by the instruction table (operand syntax, fake operands,
//! qualifier variants), producing a static ELF64 executable or raw words.
//!
//! Supported: labels, numeric local labels (`1:`, `1b`, `1f`), `sym = expr`,
//! `.set sym, expr`, `.equ`, `.text`, `.data`, `.rodata`/`.bss`/`.section`
//! (the last three go to the data segment), `.globl .global .ent .end .frame
//! .prologue .mask .fmask .file .type .size .ident .arch .set noat/at/
//! noreorder/reorder/macro/nomacro/volatile/novolatile` (accepted and
//! ignored), `.align n` (2^n bytes, code padded with `nop`/`unop` as GNU as
//! does), `.p2align`, `.balign`, `.quad .long .int .word .short .hword .byte
//! .ascii .asciz .string .space .skip .zero .double .float .t_floating
//! .s_floating` (data directives auto-align to their size, as Alpha GNU as
//! does), `.comm`/`.lcomm name, size[, align]` (zeroed blocks in the data
//! segment; there is no separate `.bss`).
//! Registers: `$0`–`$31`, `$f0`–`$f31`, and the software names `v0 t0 …
//! ra pv t12 at gp sp zero fp`, with or without `$`.
//!
//! Address loads (a deliberate, documented choice): GNU as turns
//! `lda $r, sym` into a GOT load with relocations for the linker; subword
//! links nothing, so it expands `lda $r, sym` (a symbolic operand without a
//! base register) into the position-independent sequence
//! `br $r, .+4; ldah $r, hi($r); lda $r, lo($r)` that reaches any label
//! within ±2 GiB. `lda $r, CONST` with a constant that fits 16 signed bits
//! is one `lda $r, CONST($31)`; `ldiq $r, CONST` / `ldil $r, CONST` load any
//! 64-bit / 32-bit constant with `lda`, `ldah`, `sll` (1–7 instructions,
//! 7 only when both halves lie in 0x7fff8000..0x7fffffff).
//! `stb`/`stw`/`ldbu`/`ldwu` always assemble to the BWX instructions (GNU as
//! expands them into pre-BWX sequences unless told `-mev56` or later);
//! `.arch` is accepted and ignored.

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use crate::elf;
use crate::insn::Format;
use crate::table::{Kind, Operand, Row, ROWS};

/// Where GNU ld puts the first byte of a static Alpha executable.
pub const TEXT_SEGMENT_BASE: u64 = 0x1_2000_0000;

/// An assembly error, displayed as `file:line: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

impl std::error::Error for AsmError {}

/// An assembled program: text and data images at their final addresses.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub text: Vec<u8>,
    pub data: Vec<u8>,
    pub text_addr: u64,
    pub data_addr: u64,
    /// Address of `_start` (0 when there is none).
    pub entry: u64,
    /// Named labels (numeric local labels excluded) with their addresses.
    pub symbols: Vec<(String, u64)>,
}

impl Program {
    /// The text section as little-endian 32-bit words.
    pub fn text_words(&self) -> Vec<u32> {
        self.text
            .chunks(4)
            .map(|c| {
                let mut b = [0u8; 4];
                b[..c.len()].copy_from_slice(c);
                u32::from_le_bytes(b)
            })
            .collect()
    }

    /// A static ELF64 Alpha executable of this program.
    pub fn to_elf(&self) -> Vec<u8> {
        elf::write_exec(self)
    }
}

/// Assemble `src` (named `file` in messages) into a static executable image
/// laid out the way GNU ld lays one out: text right after the headers at
/// 0x120000000, data in the following 8 KiB-aligned page. Needs `_start`.
pub fn assemble(src: &str, file: &str) -> Result<Program, AsmError> {
    let text_addr = TEXT_SEGMENT_BASE + elf::HEADERS_SIZE;
    let p = assemble_at(src, file, text_addr, None)?;
    if !p.symbols.iter().any(|(n, _)| n == "_start") {
        return Err(AsmError {
            file: file.into(),
            line: 1,
            message: "no `_start` label: the executable needs an entry point".into(),
        });
    }
    Ok(p)
}

/// Assemble a snippet whose text starts at `base` and return its text words
/// (for tests and embedded examples that need no ELF). Data, if any, is
/// placed after the text as in [`assemble`].
pub fn assemble_words(src: &str, base: u64) -> Result<Vec<u32>, AsmError> {
    Ok(assemble_at(src, "<snippet>", base, None)?.text_words())
}

/// Assemble with text at `text_addr`; data at `data_addr` or, if `None`, in
/// the first 8 KiB page boundary after the text segment's file image.
pub fn assemble_at(
    src: &str,
    file: &str,
    text_addr: u64,
    data_addr: Option<u64>,
) -> Result<Program, AsmError> {
    let stmts = parse(src, file)?;
    check_definition_loops(&stmts, file)?;
    let mut a = Asm {
        file: file.to_string(),
        stmts,
        syms: HashMap::new(),
        locals: HashMap::new(),
        defined: Default::default(),
        sizes: Vec::new(),
        pass: 1,
    };
    // Pass 1: sizes and label offsets.
    let (tlen, _) = a.run(text_addr, 0, None)?;
    let data_addr = data_addr.unwrap_or_else(|| elf::data_addr_after(text_addr, tlen));
    // Pass 1 again with real data addresses (sizes do not depend on them
    // unless a constant load names a data label, which is relocatable and
    // therefore has a fixed size).
    a.run(text_addr, data_addr, None)?;
    a.pass = 2;
    let mut out = Out::default();
    a.run(text_addr, data_addr, Some(&mut out))?;
    let mut symbols: Vec<(String, u64)> = a
        .syms
        .iter()
        .filter_map(|(n, s)| match s {
            Sym::Label(v) => Some((n.clone(), *v)),
            Sym::Abs(_) => None,
        })
        .collect();
    symbols.sort_by(|x, y| x.1.cmp(&y.1).then(x.0.cmp(&y.0)));
    let entry = symbols
        .iter()
        .find(|(n, _)| n == "_start")
        .map_or(0, |s| s.1);
    Ok(Program {
        text: out.text,
        data: out.data,
        text_addr,
        data_addr,
        entry,
        symbols,
    })
}

// ---------------------------------------------------------------- parsing

#[derive(Clone, Debug)]
enum StmtKind {
    None,
    Directive(String, String),
    Insn(String, Vec<String>),
    Assign(String, String),
}

#[derive(Clone, Debug)]
struct Stmt {
    line: usize,
    labels: Vec<String>,
    kind: StmtKind,
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '.' || c == '$'
}
fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$'
}

/// Remove `/* */` comments (keeping newlines) and `#` comments; split `;`.
fn split_statements(src: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut line = 1;
    let mut cur = String::new();
    let mut chars = src.chars().peekable();
    let mut in_str = false;
    let mut in_block = false;
    let mut in_line_comment = false;
    while let Some(c) = chars.next() {
        if c == '\n' {
            out.push((line, std::mem::take(&mut cur)));
            line += 1;
            in_line_comment = false;
            in_str = false;
            continue;
        }
        if in_line_comment {
            continue;
        }
        if in_block {
            if c == '*' && chars.peek() == Some(&'/') {
                chars.next();
                in_block = false;
            }
            continue;
        }
        if in_str {
            cur.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    if n == '\n' {
                        line += 1;
                    }
                    cur.push(n);
                }
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                cur.push(c);
            }
            '#' => in_line_comment = true,
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                in_block = true;
            }
            ';' => out.push((line, std::mem::take(&mut cur))),
            _ => cur.push(c),
        }
    }
    out.push((line, cur));
    out
}

/// Split operands at top-level commas (not inside parentheses or strings).
fn split_operands(s: &str) -> Vec<String> {
    let mut v = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    let mut in_str = false;
    let mut esc = false;
    for c in s.chars() {
        if in_str {
            cur.push(c);
            if esc {
                esc = false;
            } else if c == '\\' {
                esc = true;
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                cur.push(c);
            }
            '(' => {
                depth += 1;
                cur.push(c);
            }
            ')' => {
                depth -= 1;
                cur.push(c);
            }
            ',' if depth == 0 => v.push(std::mem::take(&mut cur).trim().to_string()),
            _ => cur.push(c),
        }
    }
    let last = cur.trim().to_string();
    if !last.is_empty() || !v.is_empty() {
        v.push(last);
    }
    v
}

fn parse(src: &str, file: &str) -> Result<Vec<Stmt>, AsmError> {
    let mut stmts = Vec::new();
    for (line, text) in split_statements(src) {
        let mut rest = text.trim();
        let mut labels = Vec::new();
        // Leading labels: `name:` or `N:`.
        loop {
            let end = rest
                .char_indices()
                .find(|&(i, c)| !(is_ident_char(c) || (i == 0 && is_ident_start(c))))
                .map_or(rest.len(), |(i, _)| i);
            if end > 0 && rest[end..].starts_with(':') {
                let name = &rest[..end];
                let ok =
                    name.chars().all(|c| c.is_ascii_digit()) || name.starts_with(is_ident_start);
                if !ok {
                    return Err(AsmError {
                        file: file.into(),
                        line,
                        message: format!("bad label `{name}`"),
                    });
                }
                labels.push(name.to_string());
                rest = rest[end + 1..].trim_start();
            } else {
                break;
            }
        }
        let kind = if rest.is_empty() {
            StmtKind::None
        } else {
            let end = rest.find(|c: char| c.is_whitespace()).unwrap_or(rest.len());
            let (head, tail) = (&rest[..end], rest[end..].trim());
            if let Some(eq) = rest
                .find('=')
                .filter(|_| !head.starts_with('.') || head.contains('='))
            {
                let name = rest[..eq].trim();
                if !name.is_empty()
                    && name.starts_with(is_ident_start)
                    && name.chars().all(is_ident_char)
                {
                    stmts.push(Stmt {
                        line,
                        labels,
                        kind: StmtKind::Assign(name.to_string(), rest[eq + 1..].trim().to_string()),
                    });
                    continue;
                }
            }
            if head.starts_with('.') {
                StmtKind::Directive(head.to_ascii_lowercase(), tail.to_string())
            } else {
                StmtKind::Insn(head.to_ascii_lowercase(), split_operands(tail))
            }
        };
        stmts.push(Stmt { line, labels, kind });
    }
    Ok(stmts)
}

// ------------------------------------------------------- definition loops

/// The symbols an expression names (not `.`, numbers, local labels `1b`).
fn expr_symbols(e: &str) -> Vec<String> {
    let b = e.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_ascii_digit() {
            while i < b.len() && (b[i] as char).is_ascii_alphanumeric() {
                i += 1;
            }
        } else if c == '\'' {
            i += 3;
        } else if is_ident_start(c) {
            let start = i;
            while i < b.len() && is_ident_char(b[i] as char) {
                i += 1;
            }
            let name = &e[start..i];
            if name != "." {
                out.push(name.to_string());
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Refuse symbol definitions that can never be resolved because they
/// depend on themselves, as GNU as does ("symbol definition loop
/// encountered"): `x = x + 1` with no earlier `x`, or `a = b` / `b = a`.
///
/// Assignments are taken in source order with GNU as's rule: an
/// assignment whose expression can be evaluated now (every symbol in it a
/// label or already resolved) gives the symbol a value, so `x = 1` then
/// `x = x + 1` is 2; otherwise the symbol stands for its expression until
/// the end, when a symbol that reaches itself through such expressions is
/// a loop, reported at the line that defined it.
fn check_definition_loops(stmts: &[Stmt], file: &str) -> Result<(), AsmError> {
    use std::collections::{HashMap, HashSet};
    enum St {
        Resolved,
        Lazy(Vec<String>, usize),
    }
    let labels: HashSet<&str> = stmts
        .iter()
        .flat_map(|s| s.labels.iter().map(String::as_str))
        .collect();
    let mut table: HashMap<String, St> = HashMap::new();
    // Whether `n` resolves now: Some(true) yes, Some(false) not yet (a
    // symbol not defined so far), None a loop through `n`.
    fn resolves(
        n: &str,
        labels: &HashSet<&str>,
        table: &HashMap<String, St>,
        path: &mut Vec<String>,
    ) -> Option<bool> {
        if labels.contains(n) {
            return Some(true);
        }
        match table.get(n) {
            None => Some(false),
            Some(St::Resolved) => Some(true),
            Some(St::Lazy(deps, _)) => {
                if path.iter().any(|p| p == n) {
                    return None;
                }
                path.push(n.to_string());
                let mut all = true;
                for d in deps {
                    match resolves(d, labels, table, path) {
                        None => return None,
                        Some(ok) => all &= ok,
                    }
                }
                path.pop();
                Some(all)
            }
        }
    }
    let mut order: Vec<String> = Vec::new();
    for st in stmts {
        let (name, expr) = match &st.kind {
            StmtKind::Assign(n, e) => (n.clone(), e.clone()),
            StmtKind::Directive(d, args) if d == ".set" || d == ".equ" => {
                let ops = split_operands(args);
                if ops.len() != 2 {
                    continue;
                }
                (ops[0].trim().to_string(), ops[1].clone())
            }
            _ => continue,
        };
        let deps = expr_symbols(&expr);
        let mut now = true;
        for d in &deps {
            // A loop met while evaluating now is left for the final check.
            now &= resolves(d, &labels, &table, &mut Vec::new()) == Some(true);
        }
        let state = if now {
            St::Resolved
        } else {
            St::Lazy(deps, st.line)
        };
        if !order.contains(&name) {
            order.push(name.clone());
        }
        table.insert(name, state);
    }
    for n in &order {
        if let Some(St::Lazy(_, line)) = table.get(n) {
            if resolves(n, &labels, &table, &mut Vec::new()).is_none() {
                return Err(AsmError {
                    file: file.into(),
                    line: *line,
                    message: format!("symbol definition loop encountered at `{n}`"),
                });
            }
        }
    }
    Ok(())
}

// ------------------------------------------------------------- expressions

#[derive(Clone, Copy, Debug)]
enum Sym {
    /// A label: an address (relocatable in GNU as terms).
    Label(u64),
    /// An absolute value from `=`, `.set` or `.equ`.
    Abs(i64),
}

/// A value and whether it is an address (depends on a label).
#[derive(Clone, Copy, Debug)]
struct Val {
    v: i64,
    addr: bool,
}

struct Expr<'a> {
    s: &'a [u8],
    i: usize,
    asm: &'a Asm,
    stmt: usize,
    dot: u64,
}

impl Expr<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && (self.s[self.i] as char).is_whitespace() {
            self.i += 1;
        }
    }
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }
    fn eat(&mut self, t: &str) -> bool {
        self.ws();
        if self.s[self.i..].starts_with(t.as_bytes()) {
            self.i += t.len();
            true
        } else {
            false
        }
    }
    fn expr(&mut self) -> Result<Val, String> {
        self.or()
    }
    fn or(&mut self) -> Result<Val, String> {
        let mut a = self.xor()?;
        while self.peek() == Some(b'|') && !self.s[self.i..].starts_with(b"||") {
            self.i += 1;
            let b = self.xor()?;
            a = Val {
                v: a.v | b.v,
                addr: false,
            };
        }
        Ok(a)
    }
    fn xor(&mut self) -> Result<Val, String> {
        let mut a = self.and()?;
        while self.eat("^") {
            let b = self.and()?;
            a = Val {
                v: a.v ^ b.v,
                addr: false,
            };
        }
        Ok(a)
    }
    fn and(&mut self) -> Result<Val, String> {
        let mut a = self.shift()?;
        while self.peek() == Some(b'&') && !self.s[self.i..].starts_with(b"&&") {
            self.i += 1;
            let b = self.shift()?;
            a = Val {
                v: a.v & b.v,
                addr: false,
            };
        }
        Ok(a)
    }
    fn shift(&mut self) -> Result<Val, String> {
        let mut a = self.add()?;
        loop {
            if self.eat("<<") {
                let b = self.add()?;
                a = Val {
                    v: a.v << shift_count(b.v)?,
                    addr: false,
                };
            } else if self.eat(">>") {
                let b = self.add()?;
                a = Val {
                    // Logical, as GNU as shifts its (unsigned) valueT.
                    v: ((a.v as u64) >> shift_count(b.v)?) as i64,
                    addr: false,
                };
            } else {
                return Ok(a);
            }
        }
    }
    fn add(&mut self) -> Result<Val, String> {
        let mut a = self.mul()?;
        loop {
            if self.eat("+") {
                let b = self.mul()?;
                a = Val {
                    v: a.v.wrapping_add(b.v),
                    addr: a.addr || b.addr,
                };
            } else if self.eat("-") {
                let b = self.mul()?;
                a = Val {
                    v: a.v.wrapping_sub(b.v),
                    addr: a.addr != b.addr,
                };
            } else {
                return Ok(a);
            }
        }
    }
    fn mul(&mut self) -> Result<Val, String> {
        let mut a = self.unary()?;
        loop {
            if self.eat("*") {
                let b = self.unary()?;
                a = Val {
                    v: a.v.wrapping_mul(b.v),
                    addr: false,
                };
            } else if self.peek() == Some(b'/') {
                self.i += 1;
                let b = self.unary()?;
                if b.v == 0 {
                    return Err("division by zero".into());
                }
                a = Val {
                    v: a.v.wrapping_div(b.v),
                    addr: false,
                };
            } else if self.eat("%") {
                let b = self.unary()?;
                if b.v == 0 {
                    return Err("division by zero".into());
                }
                a = Val {
                    v: a.v.wrapping_rem(b.v),
                    addr: false,
                };
            } else {
                return Ok(a);
            }
        }
    }
    fn unary(&mut self) -> Result<Val, String> {
        if self.eat("-") {
            let a = self.unary()?;
            return Ok(Val {
                v: a.v.wrapping_neg(),
                addr: false,
            });
        }
        if self.eat("~") {
            let a = self.unary()?;
            return Ok(Val {
                v: !a.v,
                addr: false,
            });
        }
        if self.eat("+") {
            return self.unary();
        }
        self.atom()
    }
    fn atom(&mut self) -> Result<Val, String> {
        let Some(c) = self.peek() else {
            return Err("missing expression".into());
        };
        if c == b'(' {
            self.i += 1;
            let v = self.expr()?;
            if !self.eat(")") {
                return Err("missing `)`".into());
            }
            return Ok(v);
        }
        if c == b'\'' {
            let b = *self.s.get(self.i + 1).ok_or("bad character constant")?;
            self.i += 2;
            if self.s.get(self.i) == Some(&b'\'') {
                self.i += 1;
            }
            return Ok(Val {
                v: b as i64,
                addr: false,
            });
        }
        if c.is_ascii_digit() {
            let start = self.i;
            while self.i < self.s.len() && (self.s[self.i] as char).is_ascii_alphanumeric() {
                self.i += 1;
            }
            let tok = std::str::from_utf8(&self.s[start..self.i]).map_err(|_| "bad number")?;
            // Local label reference `Nb` / `Nf`.
            if let Some(n) = tok
                .strip_suffix('b')
                .filter(|n| n.chars().all(|c| c.is_ascii_digit()))
            {
                return self.asm.local(n, self.stmt, false).map(|v| Val {
                    v: v as i64,
                    addr: true,
                });
            }
            if let Some(n) = tok
                .strip_suffix('f')
                .filter(|n| n.chars().all(|c| c.is_ascii_digit()))
            {
                return self.asm.local(n, self.stmt, true).map(|v| Val {
                    v: v as i64,
                    addr: true,
                });
            }
            return parse_int(tok)
                .map(|v| Val { v, addr: false })
                .ok_or_else(|| format!("bad number `{tok}`"));
        }
        if is_ident_start(c as char) {
            let start = self.i;
            self.i += 1;
            while self.i < self.s.len() && is_ident_char(self.s[self.i] as char) {
                self.i += 1;
            }
            let name = std::str::from_utf8(&self.s[start..self.i]).map_err(|_| "bad symbol")?;
            if name == "." {
                return Ok(Val {
                    v: self.dot as i64,
                    addr: true,
                });
            }
            return match self.asm.syms.get(name) {
                Some(Sym::Label(v)) => Ok(Val {
                    v: *v as i64,
                    addr: true,
                }),
                Some(Sym::Abs(v)) => Ok(Val { v: *v, addr: false }),
                None if self.asm.pass == 1 => Ok(Val { v: 0, addr: true }),
                None => Err(format!("undefined symbol `{name}`")),
            };
        }
        Err(format!("unexpected `{}` in expression", c as char))
    }
}

/// A shift count must be 0..=63: GNU as warns "shift count out of range"
/// and substitutes 0 for the result, which is never what was meant, so
/// this assembler refuses it.
fn shift_count(n: i64) -> Result<u32, String> {
    if (0..64).contains(&n) {
        Ok(n as u32)
    } else {
        Err(format!(
            "shift count out of range ({n} is not between 0 and 63)"
        ))
    }
}

fn parse_int(t: &str) -> Option<i64> {
    let t = t.trim();
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        u64::from_str_radix(b, 2).ok()?
    } else if t.len() > 1 && t.starts_with('0') {
        u64::from_str_radix(&t[1..], 8).ok()?
    } else {
        t.parse::<u64>().ok()?
    };
    Some(if neg {
        (v as i64).wrapping_neg()
    } else {
        v as i64
    })
}

/// Does the expression text mention a symbol that is not an absolute
/// constant known so far (so its value is an address)?
fn names_address(asm: &Asm, s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_ascii_digit() {
            let st = i;
            while i < b.len() && (b[i] as char).is_ascii_alphanumeric() {
                i += 1;
            }
            let t = &s[st..i];
            if (t.ends_with('b') || t.ends_with('f'))
                && t[..t.len() - 1].chars().all(|c| c.is_ascii_digit())
            {
                return true;
            }
            continue;
        }
        if is_ident_start(c) {
            let st = i;
            while i < b.len() && is_ident_char(b[i] as char) {
                i += 1;
            }
            let name = &s[st..i];
            if !matches!(asm.syms.get(name), Some(Sym::Abs(_))) {
                return true;
            }
            continue;
        }
        if c == '\'' {
            i += 3;
            continue;
        }
        i += 1;
    }
    false
}

// ---------------------------------------------------------------- registers

fn int_reg(s: &str) -> Option<u32> {
    let s = s.trim();
    let n = s.strip_prefix('$').unwrap_or(s);
    if let Ok(v) = n.parse::<u32>() {
        return (s.starts_with('$') && v < 32).then_some(v);
    }
    let n = n.to_ascii_lowercase();
    if n == "pv" {
        return Some(27);
    }
    if n == "s6" {
        return Some(15);
    }
    crate::disasm::REG_NAMES
        .iter()
        .position(|r| *r == n)
        .map(|p| p as u32)
}

fn fp_reg(s: &str) -> Option<u32> {
    let s = s.trim();
    let n = s.strip_prefix('$').unwrap_or(s);
    let n = n.strip_prefix('f').or_else(|| n.strip_prefix('F'))?;
    let v = n.parse::<u32>().ok()?;
    (v < 32).then_some(v)
}

/// `disp(reg)`, `(reg)`: the displacement text (possibly empty) and the register.
fn mem_operand(s: &str) -> Option<(&str, u32)> {
    let s = s.trim();
    if !s.ends_with(')') {
        return None;
    }
    let open = s.rfind('(')?;
    let reg = int_reg(&s[open + 1..s.len() - 1])?;
    Some((s[..open].trim(), reg))
}

// ------------------------------------------------------------------ tables

fn by_mnemonic() -> &'static HashMap<&'static str, Vec<u16>> {
    static M: OnceLock<HashMap<&'static str, Vec<u16>>> = OnceLock::new();
    M.get_or_init(|| {
        let mut m: HashMap<&'static str, Vec<u16>> = HashMap::new();
        for (i, r) in ROWS.iter().enumerate() {
            m.entry(r.mnemonic).or_default().push(i as u16);
        }
        m
    })
}

/// Candidate (row, fixed bits) pairs for a written mnemonic, in table order.
fn candidates(m: &str) -> Vec<(&'static Row, u32)> {
    let mut v = Vec::new();
    let idx = by_mnemonic();
    if let Some(rows) = idx.get(m) {
        for &i in rows {
            let r = &ROWS[i as usize];
            if r.quals.0.is_empty() {
                v.push((r, r.bits(None)));
            } else if let Some(&(_, q)) = r.quals.0.iter().find(|(s, _)| s.is_empty()) {
                v.push((r, r.bits(Some(q))));
            }
        }
    }
    if let Some(slash) = m.find('/') {
        let (base, suffix) = m.split_at(slash);
        if let Some(rows) = idx.get(base) {
            for &i in rows {
                let r = &ROWS[i as usize];
                if let Some(&(_, q)) = r.quals.0.iter().find(|(s, _)| *s == suffix) {
                    v.push((r, r.bits(Some(q))));
                }
            }
        }
    }
    v
}

// -------------------------------------------------------------- the passes

#[derive(Default)]
struct Out {
    text: Vec<u8>,
    data: Vec<u8>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sect {
    Text,
    Data,
}

struct Asm {
    file: String,
    stmts: Vec<Stmt>,
    syms: HashMap<String, Sym>,
    /// Numeric local label → (statement index, address) definitions in order.
    locals: HashMap<String, Vec<(usize, u64)>>,
    /// Bytes each statement produced in the last first-pass run.
    sizes: Vec<usize>,
    /// Named labels defined so far in this pass (duplicates are errors).
    defined: std::collections::HashSet<String>,
    pass: u8,
}

const NOP: u32 = 0x47ff_041f;
const UNOP: u32 = 0x2ffe_0000;

impl Asm {
    fn err(&self, line: usize, m: impl Into<String>) -> AsmError {
        AsmError {
            file: self.file.clone(),
            line,
            message: m.into(),
        }
    }

    fn local(&self, n: &str, stmt: usize, forward: bool) -> Result<u64, String> {
        let defs = self.locals.get(n);
        let found = match defs {
            None => None,
            Some(d) if forward => d.iter().find(|(s, _)| *s > stmt).map(|x| x.1),
            Some(d) => d.iter().rev().find(|(s, _)| *s <= stmt).map(|x| x.1),
        };
        match found {
            Some(v) => Ok(v),
            None if self.pass == 1 => Ok(0),
            None => Err(format!(
                "local label `{n}{}` is not defined",
                if forward { "f" } else { "b" }
            )),
        }
    }

    fn eval(&self, s: &str, stmt: usize, dot: u64) -> Result<Val, String> {
        let mut e = Expr {
            s: s.as_bytes(),
            i: 0,
            asm: self,
            stmt,
            dot,
        };
        let v = e.expr()?;
        e.ws();
        if e.i != s.len() {
            // A character constant takes one byte, so `e.i` may sit inside
            // a multi-byte character: quote the rest as bytes.
            return Err(format!(
                "junk `{}` after expression",
                String::from_utf8_lossy(&e.s[e.i..])
            ));
        }
        Ok(v)
    }

    /// One pass over the statements; returns (text length, data length).
    fn run(
        &mut self,
        text_addr: u64,
        data_addr: u64,
        mut out: Option<&mut Out>,
    ) -> Result<(u64, u64), AsmError> {
        let mut sect = Sect::Text;
        let mut tlen = 0u64;
        let mut dlen = 0u64;
        if self.pass == 1 {
            self.locals.clear();
        }
        self.defined.clear();
        let stmts = std::mem::take(&mut self.stmts);
        // Labels defined since the last byte was emitted in this section. GNU
        // as for Alpha moves them along when a data directive auto-aligns
        // (`msg: .ascii "abc"` then `n: .quad 0` puts `n` on the aligned quadword).
        let mut pending: Vec<String> = Vec::new();
        let result = (|| {
            for (si, st) in stmts.iter().enumerate() {
                let line = st.line;
                let dot = match sect {
                    Sect::Text => text_addr.wrapping_add(tlen),
                    Sect::Data => data_addr.wrapping_add(dlen),
                };
                for l in &st.labels {
                    if l.chars().all(|c| c.is_ascii_digit()) {
                        if self.pass == 1 {
                            self.locals.entry(l.clone()).or_default().push((si, dot));
                        }
                    } else {
                        if !self.defined.insert(l.clone()) {
                            return Err(self.err(line, format!("label `{l}` defined twice")));
                        }
                        self.syms.insert(l.clone(), Sym::Label(dot));
                    }
                    pending.push(l.clone());
                }
                let mut bytes: Vec<u8> = Vec::new();
                match &st.kind {
                    StmtKind::None => {}
                    StmtKind::Assign(name, e) => {
                        let v = self.eval(e, si, dot).map_err(|m| self.err(line, m))?;
                        let s = if v.addr {
                            Sym::Label(v.v as u64)
                        } else {
                            Sym::Abs(v.v)
                        };
                        self.syms.insert(name.clone(), s);
                    }
                    StmtKind::Directive(d, args) => {
                        let dir = self.directive(d, args, si, dot, line)?;
                        match &dir {
                            Dir::Switch(s) => {
                                sect = *s;
                                pending.clear();
                            }
                            Dir::Bytes(b) => bytes = b.clone(),
                            Dir::Common(name, size, align) => {
                                let end = data_addr.wrapping_add(dlen);
                                let grow = end.wrapping_neg() % align + size;
                                let at = end.wrapping_add(grow - size);
                                if !self.defined.insert(name.clone()) {
                                    return Err(
                                        self.err(line, format!("label `{name}` defined twice"))
                                    );
                                }
                                self.syms.insert(name.clone(), Sym::Label(at));
                                dlen += grow;
                                if let Some(o) = out.as_deref_mut() {
                                    o.data.resize(o.data.len() + grow as usize, 0);
                                }
                            }
                            Dir::Align(n) | Dir::AlignedBytes(n, _) => {
                                let cur = match sect {
                                    Sect::Text => text_addr.wrapping_add(tlen),
                                    Sect::Data => data_addr.wrapping_add(dlen),
                                };
                                let target = cur.div_ceil(*n) * n;
                                let mut a = cur;
                                while a < target {
                                    if sect == Sect::Text && a % 4 == 0 && target - a >= 4 {
                                        let w = if a % 8 == 0 { NOP } else { UNOP };
                                        bytes.extend_from_slice(&w.to_le_bytes());
                                        a += 4;
                                    } else {
                                        bytes.push(0);
                                        a += 1;
                                    }
                                }
                                if let Dir::AlignedBytes(_, b) = dir {
                                    if target != cur {
                                        self.move_labels(&pending, cur, target);
                                    }
                                    bytes.extend_from_slice(&b);
                                }
                            }
                            Dir::Nothing => {}
                        }
                    }
                    StmtKind::Insn(m, ops) => {
                        if sect != Sect::Text {
                            return Err(self.err(line, "instructions must be in .text"));
                        }
                        if dot % 4 != 0 {
                            return Err(
                                self.err(line, "instruction is not 4-byte aligned (add .align 2)")
                            );
                        }
                        let words = self
                            .insn(m, ops, si, dot)
                            .map_err(|msg| self.err(line, msg))?;
                        for w in words {
                            bytes.extend_from_slice(&w.to_le_bytes());
                        }
                    }
                }
                // Sizes must not change between passes, or labels would be wrong.
                if self.pass == 1 {
                    self.sizes.resize(stmts.len(), 0);
                    self.sizes[si] = bytes.len();
                } else if self.sizes.get(si) != Some(&bytes.len()) {
                    return Err(self.err(
                        line,
                        "size depends on a symbol defined later (define it before this line)",
                    ));
                }
                if !bytes.is_empty() {
                    pending.clear();
                }
                match sect {
                    Sect::Text => tlen += bytes.len() as u64,
                    Sect::Data => dlen += bytes.len() as u64,
                }
                if let Some(o) = out.as_deref_mut() {
                    match sect {
                        Sect::Text => o.text.extend_from_slice(&bytes),
                        Sect::Data => o.data.extend_from_slice(&bytes),
                    }
                }
            }
            Ok((tlen, dlen))
        })();
        self.stmts = stmts;
        result
    }

    /// Re-point labels defined at `from` (none emitted since) to `to`, the
    /// address an auto-aligning data directive moved its data to.
    fn move_labels(&mut self, labels: &[String], from: u64, to: u64) {
        for l in labels {
            if l.chars().all(|c| c.is_ascii_digit()) {
                // Local labels are recorded in pass 1 only; so is their move.
                if self.pass != 1 {
                    continue;
                }
                if let Some(last) = self.locals.get_mut(l).and_then(|v| v.last_mut()) {
                    if last.1 == from {
                        last.1 = to;
                    }
                }
            } else if let Some(Sym::Label(a)) = self.syms.get(l) {
                if *a == from {
                    self.syms.insert(l.clone(), Sym::Label(to));
                }
            }
        }
    }

    fn directive(
        &mut self,
        d: &str,
        args: &str,
        si: usize,
        dot: u64,
        line: usize,
    ) -> Result<Dir, AsmError> {
        let ev = |s: &str| self.eval(s.trim(), si, dot).map_err(|m| self.err(line, m));
        let ops = split_operands(args);
        let ints = |size: usize| -> Result<Dir, AsmError> {
            let mut b = Vec::new();
            for o in &ops {
                let v = ev(o)?.v;
                if size < 8 {
                    let bits = size * 8;
                    let lo = -(1i64 << (bits - 1));
                    let hi = (1i64 << bits) - 1;
                    if v < lo || v > hi {
                        return Err(
                            self.err(line, format!("value {v:#x} does not fit in {size} bytes"))
                        );
                    }
                }
                b.extend_from_slice(&v.to_le_bytes()[..size]);
            }
            // GNU as for Alpha aligns data directives to their size (auto-align).
            Ok(Dir::AlignedBytes(size as u64, b))
        };
        Ok(match d {
            ".text" => Dir::Switch(Sect::Text),
            ".data" | ".rodata" | ".bss" | ".sdata" | ".sbss" => Dir::Switch(Sect::Data),
            ".section" => {
                let name = ops.first().map(|s| s.trim()).unwrap_or("");
                if name.starts_with(".text") {
                    Dir::Switch(Sect::Text)
                } else {
                    Dir::Switch(Sect::Data)
                }
            }
            ".globl" | ".global" | ".ent" | ".end" | ".frame" | ".prologue" | ".mask"
            | ".fmask" | ".file" | ".type" | ".size" | ".ident" | ".arch" | ".loc" | ".local"
            | ".weak" | ".hidden" | ".usepv" | ".gprel32" => Dir::Nothing,
            d if d.starts_with(".cfi_") => Dir::Nothing,
            ".set" | ".equ" => {
                let first = ops
                    .first()
                    .map(|s| s.trim().to_ascii_lowercase())
                    .unwrap_or_default();
                if ops.len() == 1
                    && matches!(
                        first.as_str(),
                        "noat"
                            | "at"
                            | "noreorder"
                            | "reorder"
                            | "macro"
                            | "nomacro"
                            | "volatile"
                            | "novolatile"
                            | "nomove"
                            | "move"
                    )
                {
                    Dir::Nothing
                } else if ops.len() == 2 {
                    let v = ev(&ops[1])?;
                    let s = if v.addr {
                        Sym::Label(v.v as u64)
                    } else {
                        Sym::Abs(v.v)
                    };
                    self.syms.insert(ops[0].trim().to_string(), s);
                    Dir::Nothing
                } else {
                    return Err(self.err(line, format!("unsupported `{d} {args}`")));
                }
            }
            ".align" | ".p2align" => {
                let n = ev(ops.first().map(String::as_str).unwrap_or("0"))?.v;
                if !(0..=16).contains(&n) {
                    return Err(self.err(line, format!("alignment 2^{n} out of range")));
                }
                Dir::Align(1 << n)
            }
            ".balign" => {
                let n = ev(ops.first().map(String::as_str).unwrap_or("1"))?.v;
                if n <= 0 || n & (n - 1) != 0 || n > 65536 {
                    return Err(self.err(line, format!("alignment {n} is not a power of two")));
                }
                Dir::Align(n as u64)
            }
            ".quad" | ".8byte" => ints(8)?,
            ".long" | ".int" | ".4byte" => ints(4)?,
            ".word" | ".short" | ".hword" | ".2byte" => ints(2)?,
            ".byte" => ints(1)?,
            ".double" | ".t_floating" | ".float" | ".single" | ".s_floating" => {
                let double = matches!(d, ".double" | ".t_floating");
                let mut b = Vec::new();
                for o in &ops {
                    let t = o.trim();
                    let t = ["0d", "0f", "0t", "0s", "0D", "0F", "0T", "0S"]
                        .iter()
                        .find_map(|p| t.strip_prefix(p))
                        .unwrap_or(t);
                    let v: f64 = t
                        .parse()
                        .map_err(|_| self.err(line, format!("bad floating-point number `{o}`")))?;
                    if double {
                        b.extend_from_slice(&v.to_le_bytes());
                    } else {
                        b.extend_from_slice(&(v as f32).to_le_bytes());
                    }
                }
                Dir::AlignedBytes(if double { 8 } else { 4 }, b)
            }
            ".comm" | ".lcomm" => {
                // Common/local-common block: zeros in the data segment (no .bss here).
                let name = ops
                    .first()
                    .map(|s| s.trim().to_string())
                    .unwrap_or_default();
                if name.is_empty()
                    || !name.starts_with(is_ident_start)
                    || !name.chars().all(is_ident_char)
                {
                    return Err(self.err(line, format!("`{d}` needs a symbol name")));
                }
                let size = ev(ops.get(1).map(String::as_str).unwrap_or(""))?.v;
                let align = match ops.get(2) {
                    Some(a) => ev(a)?.v,
                    None => 8,
                };
                if !(0..=1 << 26).contains(&size)
                    || align <= 0
                    || align & (align - 1) != 0
                    || align > 65536
                {
                    return Err(self.err(line, format!("bad size or alignment in `{d} {args}`")));
                }
                Dir::Common(name, size as u64, align as u64)
            }
            ".ascii" | ".asciz" | ".string" => {
                let mut b = Vec::new();
                for o in &ops {
                    b.extend(unquote(o).map_err(|m| self.err(line, m))?);
                    if d != ".ascii" {
                        b.push(0);
                    }
                }
                Dir::Bytes(b)
            }
            ".space" | ".skip" | ".zero" => {
                let n = ev(ops.first().map(String::as_str).unwrap_or(""))?.v;
                let fill = match ops.get(1) {
                    Some(f) => ev(f)?.v as u8,
                    None => 0,
                };
                if !(0..=1 << 26).contains(&n) {
                    return Err(self.err(line, format!("bad size {n}")));
                }
                Dir::Bytes(vec![fill; n as usize])
            }
            _ => return Err(self.err(line, format!("unknown directive `{d}`"))),
        })
    }

    /// Encode one instruction or macro into words.
    fn insn(&self, m: &str, ops: &[String], si: usize, dot: u64) -> Result<Vec<u32>, String> {
        match m {
            "ldiq" | "ldil" => {
                if ops.len() != 2 {
                    return Err(format!("`{m}` takes a register and a constant"));
                }
                let r = int_reg(&ops[0])
                    .ok_or_else(|| format!("`{}` is not an integer register", ops[0]))?;
                let v = self.eval(&ops[1], si, dot)?.v;
                let v = if m == "ldil" { v as i32 as i64 } else { v };
                return Ok(load_const(r, v));
            }
            "lda"
                if ops.len() == 2
                    && mem_operand(&ops[1]).is_none()
                    && int_reg(&ops[1]).is_none() =>
            {
                let r = int_reg(&ops[0])
                    .ok_or_else(|| format!("`{}` is not an integer register", ops[0]))?;
                if names_address(self, &ops[1]) {
                    // PC-relative address load: br r,.+4 ; ldah r,hi(r) ; lda r,lo(r).
                    let (br, ldah, lo) = self.pc_rel(r, &ops[1], si, dot)?;
                    return Ok(vec![br, ldah, (0x08 << 26) | (r << 21) | (r << 16) | lo]);
                }
            }
            // `jsr [ra,] sym` / `jmp sym`: the calling standard's form, with the
            // procedure value in $27 (pv): br/ldah/lda $27, then jsr ra,($27),sym.
            "jsr" | "jmp"
                if !ops.is_empty()
                    && ops.len() <= 2
                    && mem_operand(ops.last().unwrap()).is_none()
                    && int_reg(ops.last().unwrap()).is_none() =>
            {
                let ra = match (m, ops.len()) {
                    (_, 2) => int_reg(&ops[0])
                        .ok_or_else(|| format!("`{}` is not an integer register", ops[0]))?,
                    ("jsr", _) => 26,
                    _ => 31,
                };
                let target_text = ops.last().unwrap();
                let (br, ldah, lo) = self.pc_rel(27, target_text, si, dot)?;
                let target = self.eval(target_text, si, dot)?.v;
                let after_jsr = (dot as i64).wrapping_add(16);
                let hint = (target.wrapping_sub(after_jsr) >> 2) as u32 & 0x3fff;
                let kind = if m == "jsr" { 1 } else { 0 };
                return Ok(vec![
                    br,
                    ldah,
                    (0x08 << 26) | (27 << 21) | (27 << 16) | lo,
                    (0x1a << 26) | (ra << 21) | (27 << 16) | (kind << 14) | hint,
                ]);
            }
            // `ldq $r, sym` (any load or store without a base register): the
            // address goes through $at, as GNU as's macros do.
            _ if ops.len() == 2
                && mem_operand(&ops[1]).is_none()
                && names_address(self, &ops[1]) =>
            {
                if let Some(row) = ROWS.iter().find(|r| {
                    r.mnemonic == m
                        && r.kind == Kind::Insn
                        && r.format == Format::Memory
                        && r.syntax.contains(&Operand::Prb)
                        && m != "lda"
                        && m != "ldah"
                }) {
                    let reg = if row.syntax[0] == Operand::Fa {
                        fp_reg(&ops[0])
                    } else {
                        int_reg(&ops[0])
                    }
                    .ok_or_else(|| format!("`{}` is not a register for `{m}`", ops[0]))?;
                    let (br, ldah, lo) = self.pc_rel(28, &ops[1], si, dot)?;
                    return Ok(vec![
                        br,
                        ldah,
                        row.bits(None) | (reg << 21) | (28 << 16) | lo,
                    ]);
                }
            }
            _ => {}
        }
        let cands = candidates(m);
        if cands.is_empty() {
            return Err(format!("unknown instruction `{m}`"));
        }
        let mut first_err = None;
        for (row, bits) in cands {
            match self.encode(row, bits, ops, si, dot) {
                Ok(mut w) => {
                    if row.mnemonic == "unop" {
                        // GNU as encodes UNOP as LDQ_U $31,0($30) (Handbook A.4.1 suggests this form).
                        w |= 30 << 16;
                    }
                    return Ok(vec![w]);
                }
                Err(e) => {
                    first_err.get_or_insert(e);
                }
            }
        }
        Err(first_err.unwrap_or_else(|| format!("bad operands for `{m}`")))
    }

    /// `br t,.+4 ; ldah t,hi(t)` and the low 16 bits that reach `target`
    /// from the address after the `br` (a ±2 GiB PC-relative address).
    fn pc_rel(&self, t: u32, target: &str, si: usize, dot: u64) -> Result<(u32, u32, u32), String> {
        let target_v = self.eval(target, si, dot)?.v;
        let off = target_v.wrapping_sub((dot as i64).wrapping_add(4));
        if self.pass == 2 && !(-(1i64 << 31)..(1i64 << 31) - 0x8000).contains(&off) {
            return Err(format!("`{target}` is more than 2 GiB away"));
        }
        let lo = off as i16 as i64;
        let hi = (off.wrapping_sub(lo) >> 16) as i16;
        Ok((
            (0x30 << 26) | (t << 21),
            (0x09 << 26) | (t << 21) | (t << 16) | (hi as u16 as u32),
            lo as u16 as u32,
        ))
    }

    fn encode(
        &self,
        row: &Row,
        bits: u32,
        ops: &[String],
        si: usize,
        dot: u64,
    ) -> Result<u32, String> {
        // The written operands, in order, skipping fake ones; memory
        // `disp(rb)` is one written operand.
        let written: Vec<Operand> = row
            .syntax
            .iter()
            .copied()
            .filter(|o| !matches!(o, Operand::Fix { .. } | Operand::Rba | Operand::Rca))
            .collect();
        let mut slots: Vec<Vec<Operand>> = Vec::new();
        let mut i = 0;
        while i < written.len() {
            if written[i] == Operand::Mdisp && written.get(i + 1) == Some(&Operand::Prb) {
                slots.push(vec![Operand::Mdisp, Operand::Prb]);
                i += 2;
            } else {
                slots.push(vec![written[i]]);
                i += 1;
            }
        }
        let mut ops: Vec<String> = ops.to_vec();
        if ops.len() + 1 == slots.len() {
            let last = slots.last().map(|s| s[0]);
            let first = slots.first().map(|s| s[0]);
            match (first, last) {
                // Rc / Fc default to the first written operand (binutils DRC1/DFC1).
                (Some(Operand::Ra | Operand::Rb | Operand::RbLit), Some(Operand::Rc))
                | (Some(Operand::Fa | Operand::Fb), Some(Operand::Fc))
                    if slots.len() >= 2 && !ops.is_empty() =>
                {
                    ops.push(ops[0].clone())
                }
                (_, Some(Operand::JmpHint)) => ops.push(format!("{}", dot.wrapping_add(4))),
                (_, Some(Operand::RetHint)) => ops.push("0".into()),
                _ => {}
            }
        }
        if ops.len() != slots.len() {
            return Err(format!(
                "`{}` takes {} operand(s), got {}",
                row.mnemonic,
                slots.len(),
                ops.len()
            ));
        }
        let mut w = bits;
        let reg = |s: &str| int_reg(s).ok_or_else(|| format!("`{s}` is not an integer register"));
        let freg =
            |s: &str| fp_reg(s).ok_or_else(|| format!("`{s}` is not a floating-point register"));
        for (slot, text) in slots.iter().zip(&ops) {
            let text = text.trim();
            match slot[0] {
                Operand::Ra => w |= reg(text)? << 21,
                Operand::Rb => w |= reg(text)? << 16,
                Operand::Rc => w |= reg(text)?,
                Operand::Fa => w |= freg(text)? << 21,
                Operand::Fb => w |= freg(text)? << 16,
                Operand::Fc => w |= freg(text)?,
                Operand::RbLit | Operand::Lit => {
                    if let (Operand::RbLit, Some(r)) = (slot[0], int_reg(text)) {
                        w |= r << 16;
                    } else {
                        if int_reg(text).is_some()
                            || fp_reg(text).is_some() && text.starts_with('$')
                        {
                            return Err(format!("`{text}`: a literal is needed here"));
                        }
                        let v = self.eval(text, si, dot)?.v;
                        if !(0..=255).contains(&v) {
                            return Err(format!("literal {v} is out of range 0..255"));
                        }
                        w |= 0x1000 | ((v as u32) << 13);
                    }
                }
                Operand::Mdisp => {
                    let (d, base) = if slot.len() == 2 {
                        match mem_operand(text) {
                            Some((d, b)) => (d, Some(b)),
                            None => (text, None),
                        }
                    } else {
                        (text, None)
                    };
                    if slot.len() == 2 && base.is_none() {
                        return Err(format!("`{text}`: expected `disp(register)`"));
                    }
                    let v = if d.is_empty() {
                        0
                    } else {
                        self.eval(d, si, dot)?.v
                    };
                    if !(-32768..=32767).contains(&v) {
                        return Err(format!("displacement {v} is out of range -32768..32767"));
                    }
                    w |= v as u16 as u32;
                    if let Some(b) = base {
                        w |= b << 16;
                    }
                }
                Operand::Prb | Operand::Cprb => {
                    let (d, b) = mem_operand(text)
                        .ok_or_else(|| format!("`{text}`: expected `(register)`"))?;
                    if !d.is_empty() && self.eval(d, si, dot)?.v != 0 {
                        return Err(format!("`{text}`: no displacement allowed here"));
                    }
                    w |= b << 16;
                }
                Operand::Bdisp => {
                    let t = self.eval(text, si, dot)?.v;
                    let off = t.wrapping_sub((dot as i64).wrapping_add(4));
                    if self.pass == 2 {
                        if off % 4 != 0 {
                            return Err(format!("branch target {t:#x} is not 4-byte aligned"));
                        }
                        if !(-(1i64 << 22)..(1i64 << 22)).contains(&off) {
                            return Err(format!("branch target {t:#x} is out of range"));
                        }
                    }
                    w |= ((off >> 2) as u32) & 0x1f_ffff;
                }
                Operand::JmpHint => {
                    let t = self.eval(text, si, dot)?.v;
                    let off = t.wrapping_sub((dot as i64).wrapping_add(4));
                    w |= ((off >> 2) as u32) & 0x3fff;
                }
                Operand::RetHint => {
                    let v = self.eval(text, si, dot)?.v;
                    if !(0..=0x3fff).contains(&v) {
                        return Err(format!("hint {v} is out of range 0..0x3fff"));
                    }
                    w |= v as u32;
                }
                Operand::PalFn => {
                    let v = self.eval(text, si, dot)?.v;
                    if !(0..=0x03ff_ffff).contains(&v) {
                        return Err(format!("PALcode function {v:#x} is out of range"));
                    }
                    w |= v as u32;
                }
                Operand::Fix { .. } | Operand::Rba | Operand::Rca => {}
            }
        }
        let w = row.apply_fakes(w);
        Ok(w)
    }
}

enum Dir {
    Switch(Sect),
    Bytes(Vec<u8>),
    Align(u64),
    /// Align to the first field, then emit the bytes.
    AlignedBytes(u64, Vec<u8>),
    /// `.comm name, size, align`: a zeroed block at the end of the data so far.
    Common(String, u64, u64),
    Nothing,
}

fn unquote(s: &str) -> Result<Vec<u8>, String> {
    let s = s.trim();
    let inner = s
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .ok_or_else(|| format!("expected a string, got `{s}`"))?;
    let mut out = Vec::new();
    let mut it = inner.bytes().peekable();
    while let Some(c) = it.next() {
        if c != b'\\' {
            out.push(c);
            continue;
        }
        let e = it.next().ok_or("bad escape at end of string")?;
        out.push(match e {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'0'..=b'7' => {
                let mut v = (e - b'0') as u32;
                for _ in 0..2 {
                    match it.peek() {
                        Some(d @ b'0'..=b'7') => {
                            v = v * 8 + (d - b'0') as u32;
                            it.next();
                        }
                        _ => break,
                    }
                }
                v as u8
            }
            b'\\' => b'\\',
            b'"' => b'"',
            b'\'' => b'\'',
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            other => other,
        });
    }
    Ok(out)
}

/// Emit `r = rb + v` for a signed 32-bit `v` (and the edge values up to
/// 2^31) with `ldah`/`lda`; at least one instruction.
fn add32(out: &mut Vec<u32>, r: u32, rb: u32, v: i64) {
    let lda = |base: u32, d: i64| (0x08 << 26) | (r << 21) | (base << 16) | (d as u16 as u32);
    let ldah = |base: u32, d: i64| (0x09 << 26) | (r << 21) | (base << 16) | (d as u16 as u32);
    let l = v as i16 as i64;
    let h = (v - l) >> 16;
    let mut base = rb;
    if h == 0x8000 {
        // LDAH sign-extends: 0x8000 << 16 takes two steps of 0x4000 << 16.
        out.push(ldah(base, 0x4000));
        out.push(ldah(r, 0x4000));
        base = r;
    } else if h != 0 {
        out.push(ldah(base, h));
        base = r;
    }
    if l != 0 || out.is_empty() {
        out.push(lda(base, l));
    }
}

/// Load a 64-bit constant into register `r` with `lda`/`ldah`/`sll`
/// (1 to 7 instructions, fewest for small values).
fn load_const(r: u32, v: i64) -> Vec<u32> {
    let mut out = Vec::new();
    if v == v as i32 as i64 {
        add32(&mut out, r, 31, v);
        return out;
    }
    let lo = v as i32 as i64;
    let hi = ((v as i128 - lo as i128) >> 32) as i64;
    add32(&mut out, r, 31, hi);
    // sll r, 32, r
    out.push((0x12 << 26) | (r << 21) | (32 << 13) | 0x1000 | (0x39 << 5) | r);
    if lo != 0 {
        let mut tail = Vec::new();
        add32(&mut tail, r, r, lo);
        out.extend(tail);
    }
    out
}
