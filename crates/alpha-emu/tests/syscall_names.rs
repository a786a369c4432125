//! Every Alpha system call has its name, and docs/run.md lists exactly the
//! ones the personality does not implement (they answer ENOSYS).

use alpha_emu::linux::{syscall, sysnames};
use std::collections::BTreeSet;

#[test]
fn every_alpha_call_is_named_in_number_order() {
    assert!(sysnames::NAMES.windows(2).all(|w| w[0].0 < w[1].0));
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
    let missing: BTreeSet<&str> = sysnames::NAMES
        .iter()
        .filter(|(nr, _)| !syscall::implemented(*nr as u64))
        .map(|(_, n)| *n)
        .collect();
    assert_eq!(listed, missing);
    let count = format!("{} of the {} calls", missing.len(), sysnames::NAMES.len());
    assert!(para.contains(&count), "docs/run.md should say {count}");
}
