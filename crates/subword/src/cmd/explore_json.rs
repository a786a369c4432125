//! The one JSON object `alpha explore --json` prints and `alpha
//! explore-merge` reads and prints: a typed model (serde) shared by the
//! writer and the reader, so the reader accepts exactly the shape the
//! writer makes. Every field the merge computes with has a type here
//! (counts are `u64`, pcs and sites strings, a store site an object of
//! its own); a finding's fields that only depend on its kind (the two
//! sides, the lock range, the story of a deadlock) travel unchanged as
//! `extra`. [`Explore::parse`] refuses anything else with one line, and
//! the merge's sums are checked ([`checked_sum`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The options a run was explored with: shards of one exploration must
/// agree on all of them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExploreOptions {
    pub seed: u64,
    pub schedules: u64,
    pub depth: u64,
    pub preemptions: u64,
    pub max_insns: u64,
    pub lock_range: Option<u64>,
    pub time_limit: Option<u64>,
    /// `--max-memory` per guest, in bytes.
    #[serde(default)]
    pub max_memory: Option<u64>,
    pub args: Vec<String>,
}

/// One finding: what the merge deduplicates and orders by, typed; the
/// rest of its fields as they were written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub kind: String,
    /// The model it was found on.
    pub cpu: String,
    /// Kind and the sides' pcs: the dedup key within one model.
    pub site: String,
    /// Kind and the sides' source lines or functions: what matches a
    /// finding across models.
    #[serde(default)]
    pub source_site: Option<String>,
    /// Index of the first schedule that showed it.
    pub schedule: u64,
    /// Schedules that showed it.
    pub hits: u64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One of the program's non-atomic store sites (`alpha scan`'s).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreSite {
    /// The write-back's link-time pc.
    pub pc: String,
    /// Where it ran (the program's load bias added).
    pub runtime_pc: String,
    pub symbol: Option<String>,
    pub line: Option<String>,
    /// Some schedule executed it.
    pub exercised: bool,
    /// The object holding it, when not the program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
}

/// Store sites of one loaded object besides the program (libraries and
/// the loader): counted, not listed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectCoverage {
    pub object: String,
    pub sites: u64,
    pub exercised: u64,
}

/// The whole object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Explore {
    pub schedules_run: u64,
    pub findings: Vec<Finding>,
    pub strategy: String,
    pub options: ExploreOptions,
    pub cpus: Vec<String>,
    pub programs: Vec<String>,
    /// `I/N`.
    pub shard: String,
    pub threads: u64,
    /// Exhaustive: every schedule within the bound ran (`null` otherwise).
    pub covered: Option<bool>,
    pub insn_limited: u64,
    pub timed_out: bool,
    pub store_sites: Vec<String>,
    pub exercised_store_sites: Vec<String>,
    pub unexercised_store_sites: Vec<String>,
    pub store_site_details: Vec<StoreSite>,
    /// Per loaded object other than the program, its store sites counted.
    #[serde(default)]
    pub object_coverage: Vec<ObjectCoverage>,
    pub disappear_with_later_cpus: Vec<String>,
}

impl Explore {
    /// Parse one `alpha explore --json` output; the error is one line
    /// naming what is wrong (control characters escaped).
    pub fn parse(text: &str) -> Result<Explore, String> {
        serde_json::from_str(text).map_err(|e| {
            format!(
                "not `alpha explore --json` output: {}",
                one_line(&e.to_string())
            )
        })
    }

    /// The shard this output is, as (I, N).
    pub fn shard(&self) -> Result<(u64, u64), String> {
        parse_shard(&self.shard)
            .ok_or_else(|| format!("shard `{}` is not I/N", one_line(&self.shard)))
    }
}

/// `I/N` with 1 <= I <= N, each number decimal or `0x` hex as every
/// number subword reads.
pub fn parse_shard(s: &str) -> Option<(u64, u64)> {
    let (i, n) = s.split_once('/')?;
    let i = crate::numarg::parse_u64(i).ok()?;
    let n = crate::numarg::parse_u64(n).ok()?;
    (n != 0 && i != 0 && i <= n).then_some((i, n))
}

/// The sum of `values`, or an error naming `what` when it does not fit in
/// 64 bits.
pub fn checked_sum(what: &str, values: impl IntoIterator<Item = u64>) -> Result<u64, String> {
    values.into_iter().try_fold(0u64, |a, b| {
        a.checked_add(b)
            .ok_or_else(|| format!("the inputs' {what} add up to more than {}", u64::MAX))
    })
}

/// `s` on one line: control characters (a newline, an escape sequence)
/// from an input file escaped rather than copied into an error line.
pub fn one_line(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_numbers_read_like_every_number() {
        assert_eq!(parse_shard("0x1/0x2"), Some((1, 2)));
        assert_eq!(parse_shard("3/4"), Some((3, 4)));
        for bad in ["0/1", "2/1", "1/0", "x/2", "1", "1/2/3", "-1/2"] {
            assert_eq!(parse_shard(bad), None, "{bad}");
        }
    }

    #[test]
    fn sums_that_overflow_are_errors() {
        assert_eq!(checked_sum("x", [1, 2, 3]), Ok(6));
        assert!(checked_sum("schedules_run", [u64::MAX, 1]).is_err());
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(one_line("a\nb\u{1b}[31m"), "a\\nb\\u{1b}[31m");
    }
}
