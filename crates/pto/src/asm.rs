//! Assembler and disassembler for the forms of [`crate::forms`], in the
//! spec's assembly syntax (docs/block/**: `BSTART.TLOAD U8; B.DIM LB0, 64;
//! B.IOR zero, a0; B.IOT mask=1111, ->T<1>; BSTOP`).
//!
//! Both directions read the one form table: the assembler picks the form
//! from the operands, inserts field values through the table's bit pieces
//! and checks the result by decoding it again; the disassembler decodes
//! through the table and prints the fields.
//!
//! Spellings: GPRs `zero sp a0..a7 ra s0..s8 x0..x3` (PTO-FIELD-BLOCK-GPR-SELECTOR);
//! Local tiles `T#1..T#16 U#1.. M#1.. N#1..` (register 0..63); destination
//! hands `->T<size> ->U<..> ->M<..> ->N<..>`; masks as the spec writes them
//! (`mask=1100`, PE0 leftmost); TEPL starts by operation name
//! (`BSTART.TEPL TADDS, U64`) or as `Mode, Function, DataType`. B.IOR's second source is the TLOAD/TSTORE
//! GM row stride in bytes.

use std::fmt;

use crate::forms::{self, Decoded, Form, FormKind, FORMS};
use crate::types::DataType;

/// Assembly error: the 1-based statement and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    pub statement: usize,
    pub message: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "statement {}: {}", self.statement, self.message)
    }
}

impl std::error::Error for AsmError {}

/// An undecodable word: an architectural rejection
/// (`Fault_IllegalInstruction`), with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    pub word: u32,
    pub reason: String,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rejected (Fault_IllegalInstruction): {}", self.reason)
    }
}

impl std::error::Error for Rejection {}

/// GPR selector spellings, by selector value.
pub const GPR_NAMES: [&str; 24] = [
    "zero", "sp", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "ra", "s0", "s1", "s2", "s3",
    "s4", "s5", "s6", "s7", "s8", "x0", "x1", "x2", "x3",
];
const HANDS: [char; 4] = ['T', 'U', 'M', 'N'];
/// B.DATR Layout names by code (unassigned codes are `None`).
fn layout_name(code: u32) -> Option<&'static str> {
    Some(match code {
        0 => "NORM",
        1 => "ND2DN",
        3 => "ND2ZN",
        4 => "ND2NZ",
        6 => "DN2ND",
        8 => "DN2ZN",
        9 => "DN2NZ",
        17 => "ZN2ND",
        18 => "ZN2DN",
        20 => "ZN2NZ",
        21 => "ND2M32",
        22 => "ND2M16",
        23 => "ND2N8",
        24 => "M322ND",
        25 => "M162ND",
        26 => "N82ND",
        27 => "NZ2ND",
        28 => "NZ2DN",
        30 => "NZ2ZN",
        _ => return None,
    })
}
const PAD_NAMES: [&str; 4] = ["Zero", "Max", "Min", "Null"];
const CMODE_NAMES: [&str; 6] = ["EQ", "NE", "LT", "GT", "LE", "GE"];
const RMODE_NAMES: [&str; 8] = ["Default", "RNE", "RTZ", "RTM", "RTP", "RNA", "RTO", "RHB"];

fn gpr_name(v: u32) -> String {
    GPR_NAMES
        .get(v as usize)
        .map_or_else(|| format!("r{v}"), |s| s.to_string())
}

fn tile_name(v: u32) -> String {
    format!("{}#{}", HANDS[(v as usize / 16) % 4], v % 16 + 1)
}

fn data_type_name(code: u32) -> String {
    if code == crate::types::DTYPE_NONE {
        "DTYPE_NONE".into()
    } else {
        DataType::from_code(code).map_or_else(|| format!("{code}"), |t| t.name().to_string())
    }
}

/// Disassembles one word into the spec's assembly syntax.
pub fn disassemble(word: u32) -> Result<String, Rejection> {
    let d = forms::decode(word).map_err(|e| Rejection {
        word,
        reason: e.to_string(),
    })?;
    Ok(render(&d))
}

fn render(d: &Decoded) -> String {
    match d.form.kind {
        FormKind::BundleStart { .. } => {
            let mut s = format!("{} {}", d.form.mnemonic, data_type_name(d.get("DataType")));
            if let Some(v) = d.form.variant {
                s.push_str(&format!(" [{v} form]"));
            }
            s
        }
        FormKind::TeplStart => {
            let (mode, function) = (d.get("Mode"), d.get("Function"));
            let dt = data_type_name(d.get("DataType"));
            match forms::tepl_operation(forms::tepl_selector(mode, function)) {
                Some(op) => format!("BSTART.TEPL {}, {dt}", op.name),
                None => format!("BSTART.TEPL {mode}, {function}, {dt}"),
            }
        }
        FormKind::Stop => "BSTOP".into(),
        FormKind::Hint { trace: true } => format!(
            "B.HINT TRACE.{}",
            if d.get("B/E") == 1 { "end" } else { "begin" }
        ),
        FormKind::Hint { trace: false } => {
            let mut items = Vec::new();
            match (d.get("V"), d.get("L/UL")) {
                (1, 1) => items.push("BR.likely".to_string()),
                (1, _) => items.push("BR.unlikely".to_string()),
                (_, 1) => items.push("L/UL=1".to_string()),
                _ => {}
            }
            items.push(format!(
                "TEMP.{}",
                ["none", "cool", "warm", "hot"][d.get("temp") as usize & 3]
            ));
            items.push(d.get("prefetch_size").to_string());
            format!("B.HINT {{{}}}", items.join(", "))
        }
        FormKind::BundleDimension { lb } => {
            let reg = d.get("RegSrc");
            let imm = d.get("uimm17");
            if reg == 0 {
                format!("B.DIM LB{lb}, {imm}")
            } else {
                format!("B.DIM {}, {imm}, ->LB{lb}", gpr_name(reg))
            }
        }
        FormKind::ScalarIo => {
            let mut s = format!(
                "B.IOR {}, {}",
                gpr_name(d.get("RegSrc0")),
                gpr_name(d.get("RegSrc1"))
            );
            if d.get("RegSrc2") != 0 {
                s.push_str(&format!(", {}", gpr_name(d.get("RegSrc2"))));
            }
            if d.get("RegDst") != 0 {
                s.push_str(&format!(", ->{}", gpr_name(d.get("RegDst"))));
            }
            s
        }
        FormKind::TileIo { src0, src1, dst } => {
            let mut parts = Vec::new();
            if src0 {
                parts.push(tile_name(d.get("SrcTile0")));
            }
            if src1 {
                parts.push(tile_name(d.get("SrcTile1")));
            }
            parts.push(format!(
                "mask={}",
                forms::mask_string(forms::pe_mask_of_pe_mode(d.get("PEMode")))
            ));
            if d.get("L") != 0 {
                parts.push("last".into());
            }
            if dst {
                parts.push(format!(
                    "->{}<{}>",
                    HANDS[d.get("DstTile") as usize % 4],
                    d.get("SizeCode")
                ));
            }
            format!("B.IOT {}", parts.join(", "))
        }
        FormKind::SharedIo => {
            let mask = forms::mask_string(forms::pe_mask_of_pe_mode(d.get("PEMode")));
            let size = d.get("SizeCode");
            if size == 0 {
                format!("B.IOS S{}, mask={mask}", d.get("SharedTID"))
            } else {
                format!("B.IOS mask={mask}, ->S{}<{size}>", d.get("SharedTID"))
            }
        }
        FormKind::DataAttributes => format!(
            "B.DATR {{{}, {}, {}, {}, {}, {}, {}}}",
            layout_name(d.get("Layout")).unwrap_or("?"),
            data_type_name(d.get("DataType")),
            PAD_NAMES[d.get("PadValueOrByteId") as usize % 4],
            CMODE_NAMES
                .get(d.get("CMode") as usize)
                .copied()
                .unwrap_or("?"),
            RMODE_NAMES[d.get("RMode") as usize % 8],
            d.get("Sat"),
            d.get("Canonicalize")
        ),
    }
}

fn err(statement: usize, message: impl Into<String>) -> AsmError {
    AsmError {
        statement,
        message: message.into(),
    }
}

fn parse_number(s: &str) -> Option<u64> {
    let s = s.trim();
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(&h.replace('_', ""), 16).ok()
    } else {
        s.replace('_', "").parse().ok()
    }
}

fn parse_gpr(s: &str) -> Option<u32> {
    let s = s.trim();
    if let Some(i) = GPR_NAMES.iter().position(|n| *n == s) {
        return Some(i as u32);
    }
    // Numeric selectors: r5, x5 is a name above, so only r-prefix or bare.
    s.strip_prefix('r')
        .and_then(|n| n.parse::<u32>().ok())
        .filter(|&v| v < 32)
}

fn parse_tile(s: &str) -> Option<u32> {
    let s = s.trim();
    let mut ch = s.chars();
    let first = ch.next()?;
    let hand = HANDS.iter().position(|&h| h == first)? as u32;
    let n: u32 = ch.as_str().strip_prefix('#')?.parse().ok()?;
    if (1..=16).contains(&n) {
        Some(hand * 16 + n - 1)
    } else {
        None
    }
}

fn parse_data_type(s: &str) -> Option<u32> {
    let s = s.trim();
    if s == "DTYPE_NONE" {
        return Some(crate::types::DTYPE_NONE);
    }
    s.parse::<DataType>().ok().map(|t| t.code())
}

fn form_where(pred: impl Fn(&Form) -> bool) -> &'static Form {
    FORMS
        .iter()
        .find(|f| pred(f))
        .expect("form table holds every kind")
}

/// Builds a word from a form and field values, then proves it by decoding.
fn encode(statement: usize, form: &'static Form, values: &[(&str, u64)]) -> Result<u32, AsmError> {
    let mut w = form.matches;
    for (name, v) in values {
        let f = form
            .field(name)
            .ok_or_else(|| err(statement, format!("{} has no field {name}", form.mnemonic)))?;
        if *v > f.max() as u64 {
            return Err(err(
                statement,
                format!("{} {name}={v} does not fit {} bits", form.mnemonic, f.width),
            ));
        }
        w = f.insert(w, *v as u32);
    }
    match forms::decode(w) {
        Ok(d) if std::ptr::eq(d.form, form) => Ok(w),
        Ok(d) => Err(err(
            statement,
            format!(
                "operands select the {} form {}",
                d.form.mnemonic, d.form.form_id
            ),
        )),
        Err(e) => Err(err(statement, e.to_string())),
    }
}

/// Splits on commas outside braces.
fn split_operands(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '{' => {
                depth += 1;
                cur.push(c)
            }
            '}' => {
                depth -= 1;
                cur.push(c)
            }
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
            }
            _ => cur.push(c),
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// Assembles `;`- or newline-separated statements into 32-bit words.
/// `//` starts a comment; so does `#` at the start of a line or after
/// whitespace (a `#` inside a tile name such as `T#1` does not).
pub fn assemble(text: &str) -> Result<Vec<u32>, AsmError> {
    let mut words = Vec::new();
    let mut n = 0;
    for line in text.lines() {
        for stmt in strip_comment(line).split(';') {
            let stmt = stmt.trim();
            if stmt.is_empty() {
                continue;
            }
            n += 1;
            words.push(assemble_statement(n, stmt)?);
        }
    }
    Ok(words)
}

fn strip_comment(line: &str) -> &str {
    let line = line.split("//").next().unwrap_or("");
    let mut prev_ws = true;
    for (i, c) in line.char_indices() {
        if c == '#' && prev_ws {
            return &line[..i];
        }
        prev_ws = c.is_whitespace();
    }
    line
}

fn assemble_statement(n: usize, stmt: &str) -> Result<u32, AsmError> {
    let (mn, rest) = match stmt.find(char::is_whitespace) {
        Some(i) => (&stmt[..i], stmt[i..].trim()),
        None => (stmt, ""),
    };
    let mn_upper = mn.to_ascii_uppercase();
    let ops = split_operands(rest);
    match mn_upper.as_str() {
        "BSTOP" => {
            if !ops.is_empty() {
                return Err(err(n, "BSTOP takes no operands"));
            }
            encode(n, form_where(|f| f.kind == FormKind::Stop), &[])
        }
        "B.HINT" => {
            let body = rest.trim();
            if let Some(kind) = body.strip_prefix("TRACE.") {
                let be = match kind.trim() {
                    "begin" => 0,
                    "end" => 1,
                    k => return Err(err(n, format!("B.HINT TRACE.{k}: want begin or end"))),
                };
                let form = form_where(|f| f.kind == FormKind::Hint { trace: true });
                return encode(n, form, &[("B/E", be)]);
            }
            let inner = body
                .strip_prefix('{')
                .and_then(|b| b.strip_suffix('}'))
                .ok_or_else(|| {
                    err(
                        n,
                        "B.HINT takes `{BR.…, TEMP.…, PRFSIZE}` or `TRACE.begin/end`",
                    )
                })?;
            let (mut v, mut l, mut temp, mut size) = (0u64, 0u64, 0u64, 0u64);
            for item in inner.split(',').map(str::trim).filter(|i| !i.is_empty()) {
                match item {
                    "BR.likely" => (v, l) = (1, 1),
                    "BR.unlikely" => (v, l) = (1, 0),
                    "L/UL=1" => l = 1,
                    t if t.starts_with("TEMP.") => {
                        temp = match &t[5..] {
                            "none" => 0,
                            "cool" => 1,
                            "warm" => 2,
                            "hot" => 3,
                            x => return Err(err(n, format!("unknown temperature `TEMP.{x}`"))),
                        }
                    }
                    num => {
                        size = parse_number(num)
                            .ok_or_else(|| err(n, format!("unknown B.HINT item `{num}`")))?
                    }
                }
            }
            let form = form_where(|f| f.kind == FormKind::Hint { trace: false });
            encode(
                n,
                form,
                &[
                    ("V", v),
                    ("L/UL", l),
                    ("temp", temp),
                    ("prefetch_size", size),
                ],
            )
        }
        "BSTART.TPREFETCH" | "BSTART.MGATHER" | "BSTART.MSCATTER" | "BSTART.GMOV" => {
            let dt = parse_data_type(rest.trim())
                .ok_or_else(|| err(n, format!("unknown data type `{}`", rest.trim())))?;
            let form = FORMS
                .iter()
                .find(|f| f.mnemonic == mn_upper && f.variant.is_none())
                .ok_or_else(|| err(n, format!("unknown mnemonic `{mn_upper}`")))?;
            encode(n, form, &[("DataType", dt as u64)])
        }
        "BSTART.TEPL" | "BSTART.VEC" | "BSTART.SFU" => {
            // `BSTART.TEPL TADDS, U64` or the catalog's `Mode, Function, DataType`.
            let (mode, function, dt) = match ops.as_slice() {
                [name, dt] => {
                    let op = forms::tepl_operation_named(&name.to_ascii_uppercase())
                        .ok_or_else(|| err(n, format!("unknown TEPL operation `{name}`")))?;
                    (op.selector >> 5, op.selector & 31, dt)
                }
                [mode, function, dt] => {
                    let num = |s: &str| {
                        parse_number(s).ok_or_else(|| err(n, format!("bad number `{s}`")))
                    };
                    (num(mode)? as u32, num(function)? as u32, dt)
                }
                _ => {
                    return Err(err(
                        n,
                        "BSTART.TEPL takes `Operation, DataType` or `Mode, Function, DataType`",
                    ))
                }
            };
            let dt = parse_data_type(dt.trim())
                .ok_or_else(|| err(n, format!("unknown data type `{}`", dt.trim())))?;
            let form = form_where(|f| f.kind == FormKind::TeplStart);
            encode(
                n,
                form,
                &[
                    ("Mode", mode as u64),
                    ("Function", function as u64),
                    ("DataType", dt as u64),
                ],
            )
        }
        "BSTART.TMOV" => {
            // Only the Shared TMOV variants (Functions 9–12) are in the table.
            let text = rest.to_string();
            let Some(i) = text.find('[') else {
                return Err(err(
                    n,
                    "BSTART.TMOV needs its variant, e.g. `[TMOV.L2S.PUBLISH form]`",
                ));
            };
            let variant = text[i..]
                .trim()
                .strip_prefix('[')
                .and_then(|v| v.strip_suffix(" form]"))
                .unwrap_or("");
            let dt = parse_data_type(text[..i].trim())
                .ok_or_else(|| err(n, format!("unknown data type `{}`", text[..i].trim())))?;
            let form = FORMS
                .iter()
                .find(|f| f.mnemonic == "BSTART.TMOV" && f.variant == Some(variant))
                .ok_or_else(|| err(n, format!("unknown form variant `{}`", text[i..].trim())))?;
            encode(n, form, &[("DataType", dt as u64)])
        }
        "BSTART.TLOAD" | "BSTART.TSTORE" | "BSTART.TSTORE.SPART" => {
            let mut text = rest.to_string();
            let mut spart = mn_upper == "BSTART.TSTORE.SPART";
            if let Some(i) = text.find('[') {
                let variant = text[i..].trim();
                if variant != "[TSTORE.SPART form]" || mn_upper != "BSTART.TSTORE" {
                    return Err(err(n, format!("unknown form variant `{variant}`")));
                }
                spart = true;
                text.truncate(i);
            }
            let dt = parse_data_type(text.trim())
                .ok_or_else(|| err(n, format!("unknown data type `{}`", text.trim())))?;
            let function = match (mn_upper.as_str(), spart) {
                ("BSTART.TLOAD", _) => 0,
                (_, false) => 1,
                (_, true) => 14,
            };
            let form = form_where(|f| f.kind == FormKind::BundleStart { function });
            encode(n, form, &[("DataType", dt as u64)])
        }
        "B.DIM" => {
            // `B.DIM LB0, 64`, `B.DIM LB0=64`, or `B.DIM a0, 4, ->LB1`.
            let (lb, reg, imm) = if let Some(first) = ops.first().filter(|o| o.starts_with("LB")) {
                let (lbs, imm) = match first.split_once('=') {
                    Some((l, v)) if ops.len() == 1 => (l.trim(), v.trim().to_string()),
                    None if ops.len() == 2 => (first.as_str(), ops[1].clone()),
                    _ => return Err(err(n, "expected `B.DIM LBn, value`")),
                };
                (lbs.to_string(), 0u32, imm)
            } else if ops.len() == 3 {
                let lb = ops[2]
                    .strip_prefix("->")
                    .ok_or_else(|| err(n, "expected `->LBn` as third operand"))?;
                let reg = parse_gpr(&ops[0])
                    .ok_or_else(|| err(n, format!("unknown GPR `{}`", ops[0])))?;
                (lb.trim().to_string(), reg, ops[1].clone())
            } else {
                return Err(err(
                    n,
                    "expected `B.DIM LBn, value` or `B.DIM gpr, value, ->LBn`",
                ));
            };
            let lb: u32 = match lb.as_str() {
                "LB0" => 0,
                "LB1" => 1,
                "LB2" => 2,
                other => return Err(err(n, format!("unknown dimension `{other}`"))),
            };
            let imm = parse_number(&imm).ok_or_else(|| err(n, format!("bad number `{imm}`")))?;
            let form = form_where(|f| f.kind == FormKind::BundleDimension { lb });
            encode(n, form, &[("RegSrc", reg as u64), ("uimm17", imm)])
        }
        "B.IOR" => {
            let mut srcs = Vec::new();
            let mut dst = 0u32;
            for o in &ops {
                if let Some(d) = o.strip_prefix("->") {
                    dst = parse_gpr(d).ok_or_else(|| err(n, format!("unknown GPR `{d}`")))?;
                } else {
                    srcs.push(parse_gpr(o).ok_or_else(|| err(n, format!("unknown GPR `{o}`")))?);
                }
            }
            if srcs.len() > 3 {
                return Err(err(n, "B.IOR takes at most three sources"));
            }
            srcs.resize(3, 0);
            let form = form_where(|f| f.kind == FormKind::ScalarIo);
            encode(
                n,
                form,
                &[
                    ("RegSrc0", srcs[0] as u64),
                    ("RegSrc1", srcs[1] as u64),
                    ("RegSrc2", srcs[2] as u64),
                    ("RegDst", dst as u64),
                ],
            )
        }
        "B.IOT" => {
            let mut tiles = Vec::new();
            let mut mask = None;
            let mut last = false;
            let mut dst = None;
            for o in &ops {
                if let Some(m) = o.strip_prefix("mask=") {
                    mask = Some(
                        forms::parse_mask_string(m.trim())
                            .ok_or_else(|| err(n, format!("bad mask `{m}`")))?,
                    );
                } else if o == "last" || o == "<last>" {
                    last = true;
                } else if let Some(d) = o.strip_prefix("->") {
                    let d = d.trim();
                    let hand = HANDS
                        .iter()
                        .position(|&h| d.starts_with(h))
                        .ok_or_else(|| err(n, format!("bad destination `{d}`")))?;
                    let size = d[1..]
                        .strip_prefix('<')
                        .and_then(|s| s.strip_suffix('>'))
                        .and_then(parse_number)
                        .ok_or_else(|| {
                            err(n, format!("bad destination `{d}` (expected ->T<size>)"))
                        })?;
                    dst = Some((hand as u64, size));
                } else {
                    tiles.push(
                        parse_tile(o).ok_or_else(|| {
                            err(n, format!("bad tile `{o}` (expected T#1..N#16)"))
                        })?,
                    );
                }
            }
            let mask = mask.ok_or_else(|| err(n, "B.IOT needs mask=XXXX"))?;
            let mode = forms::pe_mode_of_pe_mask(mask).ok_or_else(|| {
                err(
                    n,
                    format!("mask={} has no PEMode encoding", forms::mask_string(mask)),
                )
            })?;
            if tiles.len() > 2 {
                return Err(err(n, "B.IOT takes at most two source tiles"));
            }
            let kind = FormKind::TileIo {
                src0: !tiles.is_empty(),
                src1: tiles.len() == 2,
                dst: dst.is_some(),
            };
            if tiles.is_empty() && dst.is_none() {
                return Err(err(n, "B.IOT needs a source tile or a destination"));
            }
            let form = form_where(|f| f.kind == kind);
            let mut vals: Vec<(&str, u64)> = vec![("PEMode", mode as u64), ("L", last as u64)];
            if let Some(&t) = tiles.first() {
                vals.push(("SrcTile0", t as u64));
            }
            if let Some(&t) = tiles.get(1) {
                vals.push(("SrcTile1", t as u64));
            }
            if let Some((h, s)) = dst {
                vals.push(("DstTile", h));
                vals.push(("SizeCode", s));
            }
            encode(n, form, &vals)
        }
        "B.IOS" => {
            let mut mask = None;
            let mut id = None;
            let mut size = 0u64;
            for o in &ops {
                if let Some(m) = o.strip_prefix("mask=") {
                    mask = Some(
                        forms::parse_mask_string(m.trim())
                            .ok_or_else(|| err(n, format!("bad mask `{m}`")))?,
                    );
                } else if let Some(d) = o.strip_prefix("->S") {
                    let (i, s) = d
                        .split_once('<')
                        .and_then(|(i, s)| {
                            Some((parse_number(i)?, parse_number(s.strip_suffix('>')?)?))
                        })
                        .ok_or_else(|| {
                            err(n, format!("bad destination `{o}` (expected ->S<id><size>)"))
                        })?;
                    id = Some(i);
                    size = s;
                    if size == 0 {
                        return Err(err(n, "a Shared destination needs a nonzero size code"));
                    }
                } else if let Some(i) = o.strip_prefix('S') {
                    id = Some(
                        parse_number(i)
                            .ok_or_else(|| err(n, format!("bad Shared register `{o}`")))?,
                    );
                } else {
                    return Err(err(n, format!("unexpected operand `{o}`")));
                }
            }
            let mask = mask.ok_or_else(|| err(n, "B.IOS needs mask=XXXX"))?;
            let id = id.ok_or_else(|| err(n, "B.IOS needs a Shared register S0..S255"))?;
            let mode = forms::pe_mode_of_pe_mask(mask).ok_or_else(|| {
                err(
                    n,
                    format!("mask={} has no PEMode encoding", forms::mask_string(mask)),
                )
            })?;
            let form = form_where(|f| f.kind == FormKind::SharedIo);
            encode(
                n,
                form,
                &[
                    ("SharedTID", id),
                    ("SizeCode", size),
                    ("PEMode", mode as u64),
                ],
            )
        }
        "B.DATR" => {
            let inner = rest
                .trim()
                .strip_prefix('{')
                .and_then(|s| s.strip_suffix('}'))
                .ok_or_else(|| err(n, "expected `B.DATR {layout, datatype, pad, cmode, rmode, sat, canonicalize}`"))?;
            let f: Vec<&str> = inner.split(',').map(str::trim).collect();
            if f.len() != 7 {
                return Err(err(n, "B.DATR takes seven fields"));
            }
            let layout = (0..32)
                .find(|&c| layout_name(c) == Some(f[0]))
                .ok_or_else(|| err(n, format!("unknown layout `{}`", f[0])))?;
            let dt = parse_data_type(f[1])
                .ok_or_else(|| err(n, format!("unknown data type `{}`", f[1])))?;
            let pad = PAD_NAMES
                .iter()
                .position(|p| *p == f[2])
                .ok_or_else(|| err(n, format!("unknown pad value `{}`", f[2])))?;
            let cmode = if f[3] == "None" {
                0
            } else {
                CMODE_NAMES
                    .iter()
                    .position(|p| *p == f[3])
                    .ok_or_else(|| err(n, format!("unknown comparison mode `{}`", f[3])))?
            };
            let rmode = RMODE_NAMES
                .iter()
                .position(|p| *p == f[4])
                .ok_or_else(|| err(n, format!("unknown rounding mode `{}`", f[4])))?;
            let sat = parse_number(f[5]).ok_or_else(|| err(n, format!("bad sat `{}`", f[5])))?;
            let canon =
                parse_number(f[6]).ok_or_else(|| err(n, format!("bad canonicalize `{}`", f[6])))?;
            let form = form_where(|f| f.kind == FormKind::DataAttributes);
            encode(
                n,
                form,
                &[
                    ("Layout", layout as u64),
                    ("DataType", dt as u64),
                    ("PadValueOrByteId", pad as u64),
                    ("CMode", cmode as u64),
                    ("RMode", rmode as u64),
                    ("Sat", sat),
                    ("Canonicalize", canon),
                ],
            )
        }
        _ => Err(err(n, format!("unknown mnemonic `{mn}`"))),
    }
}
