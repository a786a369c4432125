//! `subword alpha asm INPUT.s -o OUTPUT`: GNU-as syntax to a static Alpha
//! ELF executable (entry `_start`); `-` for INPUT reads stdin, for OUTPUT
//! writes stdout.

use crate::{files, AsmArgs, CmdResult, Failure, Outcome};

pub fn run(a: AsmArgs) -> CmdResult {
    let name = files::display(&a.input, false);
    let src = files::read_text(&a.input, files::Input::Source).map_err(Failure)?;
    let prog = alpha_isa::assemble(&src, &name).map_err(|e| Failure(e.to_string()))?;
    let elf = prog.to_elf();
    let out = files::display(&a.output, true);
    files::write(&a.output, &elf).map_err(|e| Failure(format!("{out}: {e}")))?;
    #[cfg(unix)]
    if !files::is_std(&a.output) {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&a.output, std::fs::Permissions::from_mode(0o755));
    }
    Ok(Outcome::Status(0))
}
