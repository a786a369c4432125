//! Scenario files: TOML text to a [`Scenario`] of typed steps. Each step
//! names an operation of [`crate::ops::OPS`], whose `parse` reads its
//! fields. Every malformed input — bad TOML, unknown op, missing or unknown
//! field, value out of range, unknown dtype/layout/fault — is a
//! [`ScenarioError`] naming the step (1-based) and what is wrong. Nothing
//! here panics.

use std::fmt;

use crate::fields::{number, Fields};
use crate::ops::{self, Step};
use crate::runner::{FileReport, RunOptions, Runner};
use pto::Machine;

/// A malformed scenario: file, optional 1-based step, reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    pub step: Option<usize>,
    pub reason: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.step {
            Some(n) => write!(f, "{}: step {}: {}", self.file, n, self.reason),
            None => write!(f, "{}: {}", self.file, self.reason),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// A parsed scenario file.
#[derive(Debug)]
pub struct Scenario {
    pub file: String,
    pub name: Option<String>,
    pub description: Option<String>,
    pub memory_bytes: u64,
    /// The steps, each an operation of [`crate::ops::OPS`].
    pub steps: Vec<Box<dyn Step>>,
}

/// The reference profile's PTO_MODEL_MEMORY_BYTES.
pub const DEFAULT_MEMORY_BYTES: u64 = 4096;

/// Parse a scenario's text. `file` is used in error messages only.
pub fn parse(file: &str, text: &str) -> Result<Scenario, ScenarioError> {
    let err = |step: Option<usize>, reason: String| ScenarioError {
        file: file.to_string(),
        step,
        reason,
    };
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        err(None, format!("bad TOML: {}", one_line(&e.to_string())))
    })?;
    let mut name = None;
    let mut description = None;
    let mut memory_bytes = DEFAULT_MEMORY_BYTES;
    let mut steps = Vec::new();
    for (key, value) in &table {
        match key.as_str() {
            "name" => {
                name = Some(
                    as_str(value)
                        .ok_or_else(|| err(None, "`name` must be a string".into()))?
                        .to_string(),
                )
            }
            "description" => {
                description = Some(
                    as_str(value)
                        .ok_or_else(|| err(None, "`description` must be a string".into()))?
                        .to_string(),
                )
            }
            "machine" => {
                let t = value
                    .as_table()
                    .ok_or_else(|| err(None, "`machine` must be a table".into()))?;
                for (k, v) in t {
                    match k.as_str() {
                        "memory_bytes" => {
                            memory_bytes = number(v)
                                .map_err(|r| err(None, format!("machine.memory_bytes: {r}")))?;
                            if memory_bytes == 0 {
                                return Err(err(
                                    None,
                                    "machine.memory_bytes must be nonzero".into(),
                                ));
                            }
                        }
                        other => return Err(err(None, format!("unknown field `machine.{other}`"))),
                    }
                }
            }
            "step" => {
                let arr = value.as_array().ok_or_else(|| {
                    err(None, "`step` must be an array of tables ([[step]])".into())
                })?;
                for (i, s) in arr.iter().enumerate() {
                    let t = s
                        .as_table()
                        .ok_or_else(|| err(Some(i + 1), "a step must be a table".into()))?;
                    steps.push(parse_step(t).map_err(|r| err(Some(i + 1), r))?);
                }
            }
            other => return Err(err(None, format!("unknown top-level key `{other}`"))),
        }
    }
    if steps.is_empty() {
        return Err(err(None, "no steps ([[step]] tables)".into()));
    }
    Ok(Scenario {
        file: file.to_string(),
        name,
        description,
        memory_bytes,
        steps,
    })
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn as_str(v: &toml::Value) -> Option<&str> {
    v.as_str()
}

/// Runs every step of `sc` on a fresh machine; a failed expectation is
/// recorded and the run goes on.
pub fn run(sc: &Scenario, opts: RunOptions) -> FileReport {
    run_on(sc, opts).0
}

/// [`run`], also handing back the machine as the last step left it.
pub fn run_on(sc: &Scenario, opts: RunOptions) -> (FileReport, Machine) {
    let mut r = Runner::new(&sc.file, sc.name.as_deref(), sc.memory_bytes, opts);
    for (i, op) in sc.steps.iter().enumerate() {
        r.begin_step(i + 1, op.name());
        op.exec(&mut r);
        r.end_step();
    }
    r.finish()
}

/// One `[[step]]` table: the operation its `op` names, parsed by that
/// operation; then no field may be left unread.
fn parse_step(t: &toml::Table) -> Result<Box<dyn Step>, String> {
    let name = t
        .get("op")
        .ok_or("missing field `op`")?
        .as_str()
        .ok_or("`op` must be a string")?;
    let def = ops::find(name).ok_or_else(|| format!("unknown op `{name}`"))?;
    let mut f = Fields::new(t);
    let step = (def.parse)(&mut f)?;
    f.finish()?;
    Ok(step)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fields::parse_mask;
    use crate::ops::OPS;
    use toml::Value;

    #[test]
    fn numbers_accept_integers_decimal_and_hex_strings() {
        assert_eq!(number(&Value::Integer(12)).unwrap(), 12);
        assert_eq!(number(&Value::String("0x320".into())).unwrap(), 0x320);
        assert_eq!(
            number(&Value::String("0x8000000000000002".into())).unwrap(),
            0x8000_0000_0000_0002
        );
        assert!(number(&Value::Integer(-1)).is_err());
        assert!(number(&Value::String("0x1_0000_0000_0000_0000".into())).is_err());
    }

    #[test]
    fn masks_read_as_the_spec_writes_them() {
        assert_eq!(parse_mask("1000").unwrap(), 8);
        assert_eq!(parse_mask("0011").unwrap(), 3);
        assert!(parse_mask("10").is_err());
        assert!(parse_mask("10a0").is_err());
    }

    #[test]
    fn every_listed_op_is_one_parse_accepts() {
        for op in OPS.iter().map(|d| d.name) {
            let r = parse("f.toml", &format!("[[step]]\nop = \"{op}\"\n"));
            if let Err(e) = r {
                assert!(!e.to_string().contains("unknown op"), "{op}: {e}");
            }
        }
    }

    #[test]
    fn malformed_steps_name_the_step_and_reason() {
        let e = parse(
            "f.toml",
            "[[step]]\nop = \"reset\"\n[[step]]\nop = \"bogus\"\n",
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "f.toml: step 2: unknown op `bogus`");
        let e = parse("f.toml", "[[step]]\nop = \"gpr\"\nreg = 2\n").unwrap_err();
        assert_eq!(e.to_string(), "f.toml: step 1: missing field `value`");
        let e = parse("f.toml", "[[step]]\nop = \"gpr\"\nreg = 40\nvalue = 1\n").unwrap_err();
        assert!(e.to_string().contains("out of range"), "{e}");
        let e = parse("f.toml", "[[step]]\nop = \"tile\"\nindex=0\ncapacity=128\nrows=1\ncols=1\nvalid_rows=1\nvalid_cols=1\ndtype=\"U3\"\n")
            .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("f.toml: step 1: unknown dtype `U3`"),
            "{e}"
        );
        let e = parse("f.toml", "[[step]\n").unwrap_err();
        assert!(e.to_string().starts_with("f.toml: bad TOML"), "{e}");
        let e = parse("f.toml", "[[step]]\nop = \"reset\"\nextra = 1\n").unwrap_err();
        assert_eq!(e.to_string(), "f.toml: step 1: unknown field `extra`");
    }

    #[test]
    fn the_documented_example_parses() {
        let s = parse(
            "ex.toml",
            "name = \"x\"\n[[step]]\nop = \"memory\"\naddr = \"0x320\"\nbytes = \"21 43\"\n[[step]]\nop = \"command\"\nword = \"0xe0111181\"\n[[step]]\nop = \"execute\"\nexpect = \"fault:Fault_DataPage\"\n",
        )
        .unwrap();
        assert_eq!(s.memory_bytes, 4096);
        let steps: Vec<String> = s.steps.iter().map(|o| format!("{o:?}")).collect();
        assert_eq!(
            steps,
            [
                "Memory { addr: 800, bytes: [33, 67] }",
                "Command { source: Word(3759214977), expect: Executed }",
                "Execute { expect: Fault(\"Fault_DataPage\") }",
            ]
        );
    }
}
