//! Every Alpha system call has its name, and docs/run.md lists exactly the
//! ones the personality does not implement (they answer ENOSYS).

use alpha_emu::linux::{sys, syscall};
use std::collections::BTreeSet;

#[test]
fn every_alpha_call_is_named_in_number_order() {
    // One row per call, ascending (so each number has exactly one row).
    assert!(sys::TABLE.windows(2).all(|w| w[0].nr < w[1].nr));
    assert_eq!(sys::TABLE.len(), 477);
    // Every row's argument kinds fit the six argument registers.
    assert!(sys::TABLE.iter().all(|c| c.args.len() <= 6));
    assert_eq!(syscall::name(362), Some("setitimer"));
    assert_eq!(syscall::name(244), Some("osf_proplist_syscall"));
    assert_eq!(syscall::name(4), Some("write"));
    assert_eq!(syscall::name(9999), None);
}

#[test]
fn readme_lists_exactly_the_unimplemented_calls() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("docs/run.md")).unwrap();
    let start = readme
        .find("Every Alpha system call has its name in `--strace`")
        .expect("docs/run.md paragraph on system calls");
    let para = &readme[start..];
    let para = &para[..para.find("\n\n").unwrap_or(para.len())];
    let listed: BTreeSet<&str> = para
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| *s != "--strace" && *s != "syscall.tbl")
        .collect();
    let missing: BTreeSet<&str> = sys::TABLE
        .iter()
        .filter(|c| !syscall::implemented(c.nr as u64))
        .map(|c| c.name)
        .collect();
    assert_eq!(listed, missing);
    let count = format!("{} of the {} calls", missing.len(), sys::TABLE.len());
    assert!(para.contains(&count), "docs/run.md should say {count}");
}
