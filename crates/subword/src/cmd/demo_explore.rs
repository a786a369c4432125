//! `subword demo`, the explorer's part: a two-thread Linux program written
//! in assembly (assembled at run time by subword's own assembler, so
//! nothing else needs to be installed) explored by `alpha explore` exactly
//! as a user would run it — once storing its two neighbouring bytes with
//! the pre-BWX LDQ_U…STQ_U sequence, once with `STB`.

use crate::{CmdResult, ExploreArgs, Failure};
use clap::Parser;

/// The program (`tests/c/explore_cli/byte_pair.s`, which the explorer's
/// tests assemble too): `_start` clones a thread (CLONE_VM|CLONE_FS|
/// CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, as pthread_create
/// asks); the parent stores 0xaa into byte 0 of `pair`, the thread 0xbb into
/// byte 1 and then sets `done`, which the parent waits for before
/// exit_group. `store_byte` (`*(char *)$16 = $17`) is the file's pre-BWX
/// body, or `STORE_BYTE` in its place.
fn program(store_byte: &str) -> String {
    SOURCE.replace(PRE_BWX, store_byte)
}

const SOURCE: &str = include_str!("../../tests/c/explore_cli/byte_pair.s");

const PRE_BWX: &str = "        insbl   $17, $16, $17
        ldq_u   $1, 0($16)
        mskbl   $1, $16, $1
        bis     $17, $1, $17
        stq_u   $17, 0($16)";

const BWX: &str = "        stb     $17, 0($16)";

#[derive(Parser)]
struct Explore {
    #[command(flatten)]
    args: ExploreArgs,
}

/// Write the program, then run `alpha explore` on it with these options.
fn explore(dir: &std::path::Path, name: &str, body: &str, options: &[&str]) -> CmdResult {
    let elf = alpha_isa::assemble(&program(body), name)
        .map_err(|e| Failure(e.to_string()))?
        .to_elf();
    let path = dir.join(name);
    std::fs::write(&path, elf).map_err(|e| Failure(format!("{}: {e}", path.display())))?;
    let mut argv = vec!["explore"];
    argv.extend_from_slice(options);
    let p = path.display().to_string();
    argv.push(&p);
    println!("    $ subword alpha explore {} {name}", options.join(" "));
    let e = Explore::try_parse_from(argv).map_err(|e| Failure(e.to_string()))?;
    super::explore::run(e.args)
}

pub fn demo_explore() -> Result<(), String> {
    println!("== Alpha 6: the schedule explorer finds the lost store in a real program ==");
    println!(
        "A two-thread Alpha Linux program: the main thread stores 0xaa into byte 0 of a\n\
         quadword, a cloned thread stores 0xbb into byte 1. `alpha explore` runs it under\n\
         many deterministic schedules, watches every byte, and reports the schedule in which\n\
         one thread's STQ_U writes back a stale neighbour, with a replay string."
    );
    let dir = std::env::temp_dir().join(format!("subword-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let opts = ["--cpu", "ev4", "--strategy", "pct", "--schedules", "100"];
    let racy = explore(&dir, "byte_pair_prebwx", PRE_BWX, &opts);
    println!("\nThe same program with STB (one byte written, nothing else):");
    let clean = explore(
        &dir,
        "byte_pair_stb",
        BWX,
        &["--cpu", "ev56", "--strategy", "pct", "--schedules", "100"],
    );
    let _ = std::fs::remove_dir_all(&dir);
    match (racy, clean) {
        (Ok(crate::Outcome::Status(1)), Ok(crate::Outcome::Status(0))) => {
            println!();
            Ok(())
        }
        (Err(Failure(e)), _) | (_, Err(Failure(e))) => Err(e),
        _ => Err("the explorer demo did not find exactly the pre-BWX lost store".into()),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_stb_variant_replaces_the_pre_bwx_body() {
        let stb = super::program(super::BWX);
        assert!(stb.contains(super::BWX) && !stb.contains("stq_u"));
    }
}
