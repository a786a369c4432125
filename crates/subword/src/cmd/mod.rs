//! One module per command. Each returns an exit status or a one-line failure.

pub mod asm;
pub mod bench;
pub mod bench_doc;
pub mod demo;
pub mod demo_chipset;
pub mod demo_explore;
pub mod demo_pto;
pub mod disasm;
pub mod explore;
pub mod explore_json;
pub mod explore_merge;
pub mod explore_svg;
pub mod io;
pub mod machine;
pub mod pto_asm;
pub mod pto_run;
pub mod run;
pub mod scan;

use crate::{AlphaCmd, CmdResult, PtoCmd};

pub fn alpha(c: AlphaCmd) -> CmdResult {
    match c {
        AlphaCmd::Run(a) => run::run(a),
        AlphaCmd::Explore(a) => explore::run(*a),
        AlphaCmd::ExploreMerge(a) => explore_merge::run(a),
        AlphaCmd::Disasm(a) => disasm::run(a),
        AlphaCmd::Asm(a) => asm::run(a),
        AlphaCmd::Scan(a) => scan::run(a),
        AlphaCmd::Io(c) => io::run(c),
        AlphaCmd::Machine(a) => machine::run(a),
        AlphaCmd::Bench(a) => bench::run(a),
    }
}

pub fn pto(c: PtoCmd) -> CmdResult {
    match c {
        PtoCmd::Run(a) => pto_run::run(a),
        PtoCmd::Asm { file } => pto_asm::asm(&file),
        PtoCmd::Disasm { raw, file } => pto_asm::disasm(raw, &file),
        PtoCmd::Footprint {
            scenario,
            svg,
            element_stride,
        } => pto_run::footprint(&scenario, svg.as_deref(), element_stride),
        PtoCmd::Bench { markdown } => pto_run::bench(markdown),
    }
}
