//! Number arguments: decimal or `0x` hexadecimal, as the contract requires;
//! and the text files of hex words `pto disasm` reads.

/// Parse a decimal or `0x`-prefixed hexadecimal unsigned number.
pub fn parse_u64(s: &str) -> Result<u64, String> {
    let t = s.trim().replace('_', "");
    let r = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16)
    } else {
        t.parse::<u64>()
    };
    r.map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => {
            format!("`{s}` is out of range (at most {})", u64::MAX)
        }
        _ => format!("`{s}` is not a number (decimal or 0x hex)"),
    })
}

/// Parse a size: a number (as [`parse_u64`]) with an optional suffix
/// `K`/`M`/`G` or `KiB`/`MiB`/`GiB` (both powers of 1024, as qemu reads
/// them), or `B`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    let units: [(&str, u32); 7] = [
        ("kib", 10),
        ("mib", 20),
        ("gib", 30),
        ("k", 10),
        ("m", 20),
        ("g", 30),
        ("b", 0),
    ];
    let is_hex = lower.starts_with("0x");
    for (u, shift) in units {
        // In hex, a trailing b is a digit, not a unit.
        if is_hex && u == "b" {
            continue;
        }
        if let Some(num) = lower.strip_suffix(u) {
            let n = parse_u64(&t[..num.len()]).map_err(|_| {
                format!("`{s}` is not a size (a number with an optional K, M, G, KiB, MiB or GiB)")
            })?;
            return n
                .checked_mul(1u64 << shift)
                .ok_or_else(|| format!("`{s}` is out of range (at most {} bytes)", u64::MAX));
        }
    }
    parse_u64(t).map_err(|e| {
        if e.contains("out of range") {
            e
        } else {
            format!("`{s}` is not a size (a number with an optional K, M, G, KiB, MiB or GiB)")
        }
    })
}

/// Parses a text file of 32-bit hex words (whitespace or comma separated,
/// `0x` optional, `_` between digits ignored, `#` starts a comment); the
/// error names `name`, the line and the token.
pub fn parse_hex_words(text: &str, name: &str) -> Result<Vec<u32>, String> {
    let mut words = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        for tok in line.split(|c: char| c.is_whitespace() || c == ',') {
            if tok.is_empty() {
                continue;
            }
            let h = tok
                .strip_prefix("0x")
                .or_else(|| tok.strip_prefix("0X"))
                .unwrap_or(tok)
                .replace('_', "");
            // Only hex digits: `from_str_radix` alone would take a sign.
            let w = (!h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
                .then(|| u32::from_str_radix(&h, 16).ok())
                .flatten()
                .ok_or_else(|| format!("{name}:{}: `{tok}` is not a 32-bit hex word", i + 1))?;
            words.push(w);
        }
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::{parse_hex_words, parse_size, parse_u64};

    #[test]
    fn hex_word_files_accept_prefixes_comments_and_name_bad_tokens() {
        let w = parse_hex_words("0xe0111181 00085e13 # comment\n0X0031_0013,1\n", "f").unwrap();
        assert_eq!(w, [0xe011_1181, 0x0008_5e13, 0x0031_0013, 1]);
        let e = parse_hex_words("1\n0x1g\n", "words.txt").unwrap_err();
        assert_eq!(e, "words.txt:2: `0x1g` is not a 32-bit hex word");
        assert!(
            parse_hex_words("123456789", "f").is_err(),
            "more than 32 bits"
        );
        assert!(
            parse_hex_words("+1f", "f").is_err(),
            "a sign is not a digit"
        );
        assert!(parse_hex_words("0x_", "f").is_err());
    }
    #[test]
    fn sizes_take_binary_suffixes_and_overflow_is_out_of_range() {
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("64k"), Ok(64 << 10));
        assert_eq!(parse_size("3MiB"), Ok(3 << 20));
        assert_eq!(parse_size("0x10M"), Ok(16 << 20));
        assert_eq!(parse_size("0x1b"), Ok(27));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("1T").is_err());
        assert!(parse_size("G").is_err());
        assert!(parse_size("17179869184G")
            .unwrap_err()
            .contains("out of range"));
        assert!(parse_u64("99999999999999999999")
            .unwrap_err()
            .contains("out of range"));
    }
    #[test]
    fn accepts_decimal_and_hex_rejects_junk() {
        assert_eq!(parse_u64("4096"), Ok(4096));
        assert_eq!(parse_u64("0x1000"), Ok(4096));
        assert_eq!(parse_u64("0XfF"), Ok(255));
        assert!(parse_u64("12a").is_err());
        assert!(parse_u64("").is_err());
        assert!(parse_u64("-1").is_err());
    }
}
