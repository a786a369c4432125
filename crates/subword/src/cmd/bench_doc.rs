//! The Markdown block a benchmark prints with `--markdown`: the table of
//! its section of `docs/benchmarks.md`, between the markers
//! `.ci/bench-docs NAME COMMAND…` looks for, headed by when and at what
//! load it was measured.

/// `<!-- bench:NAME -->`, the line that opens the block.
pub fn begin(name: &str) -> String {
    format!("<!-- bench:{name} -->")
}

/// `<!-- /bench:NAME -->`, the line that closes it.
pub fn end(name: &str) -> String {
    format!("<!-- /bench:{name} -->")
}

/// The host's 1-minute load average (`/proc/loadavg`), if it has one.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The current time as `YYYY-MM-DD HH:MM UTC`.
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let t = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        t / 3600,
        t % 3600 / 60
    )
}

/// Days since 1970-01-01 to the proleptic Gregorian (year, month, day):
/// Howard Hinnant's `civil_from_days`.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The dated line that heads a table: when, and the load before and after.
pub fn stamp(load_before: Option<f64>) -> String {
    let load = |l: Option<f64>| l.map_or("?".to_string(), |l| format!("{l:.1}"));
    format!(
        "{}, load average {} at the start and {} at the end.",
        now_utc(),
        load(load_before),
        load(load_average())
    )
}

#[cfg(test)]
mod tests {
    use super::civil_from_days;

    #[test]
    fn days_since_the_epoch_are_calendar_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(59), (1970, 3, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_795), (2026, 12, 8));
    }
}
