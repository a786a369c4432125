//! Number arguments: decimal or `0x` hexadecimal, as the contract requires.

/// Parse a decimal or `0x`-prefixed hexadecimal unsigned number.
pub fn parse_u64(s: &str) -> Result<u64, String> {
    let t = s.trim().replace('_', "");
    let r = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16)
    } else {
        t.parse::<u64>()
    };
    r.map_err(|_| format!("`{s}` is not a number (decimal or 0x hex)"))
}

#[cfg(test)]
mod tests {
    use super::parse_u64;
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
