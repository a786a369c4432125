//! The bundle: command words, dimensions, bindings, attributes, executing
//! the bundle's tile operation, and recovering a trap context.

use super::Operation;
use crate::fields::*;
use crate::runner::*;
use pto::CommandExecution;

#[derive(Debug)]
pub struct Dimension {
    index: u32,
    value: u64,
}

impl Operation for Dimension {
    const NAME: &'static str = "dimension";
    const FIELDS: &'static str = "`index` (0..2), `value`";
    const PRIMITIVE: &'static str = "SetBundleDimension";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            index: f.ranged("index", 2)? as u32,
            value: f.num("value")?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { index, value } = self;
        ctx.m.set_bundle_dimension(*index, *value);
    }
}

#[derive(Debug)]
pub struct Command {
    source: CommandSource,
    expect: CommandExpect,
}

impl Operation for Command {
    const NAME: &'static str = "command";
    const FIELDS: &'static str = "`word` or `asm`, `expect`? (`executed` default, or `rejected`)";
    const PRIMITIVE: &'static str = "ExecuteCommandInstruction(word, 32)";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        {
            let word = f.opt_ranged("word", u32::MAX as u64)?;
            let asm = f.opt_string("asm")?;
            let source = match (word, asm) {
                (Some(w), None) => CommandSource::Word(w as u32),
                (None, Some(a)) => {
                    let words =
                        pto::asm::assemble(&a).map_err(|e| format!("`asm` = `{a}`: {e}"))?;
                    if words.is_empty() {
                        return Err(format!("`asm` = `{a}` assembles to no instruction"));
                    }
                    CommandSource::Asm(a, words)
                }
                (None, None) => return Err("missing field: one of `word`, `asm`".into()),
                _ => return Err("give only one of `word`, `asm`".into()),
            };
            let expect = match f.opt_string("expect")?.as_deref() {
                None | Some("executed") => CommandExpect::Executed,
                Some("rejected") => CommandExpect::Rejected,
                Some(s) => return Err(format!("`expect` = `{s}`: want `executed` or `rejected`")),
            };
            Ok(Self { source, expect })
        }
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { source, expect } = self;
        let words: Vec<u32> = match source {
            CommandSource::Word(w) => vec![*w],
            CommandSource::Asm(_, ws) => ws.clone(),
        };
        for w in words {
            let got = ctx.m.execute_command_instruction(w);
            let want = match expect {
                CommandExpect::Executed => CommandExecution::Executed,
                CommandExpect::Rejected => CommandExecution::Rejected,
            };
            if got != want {
                let fault = ctx.m.last_fault();
                let got_s = match got {
                    CommandExecution::Executed => "executed".to_string(),
                    CommandExecution::Rejected => format!("rejected ({fault})"),
                };
                let want_s = match want {
                    CommandExecution::Executed => "executed",
                    CommandExecution::Rejected => "rejected",
                };
                ctx.fail(format!("{} {want_s}", hex(w as u64)), got_s);
            }
        }
    }
}

#[derive(Debug)]
pub struct Execute {
    expect: ExecExpect,
}

impl Operation for Execute {
    const NAME: &'static str = "execute";
    const FIELDS: &'static str = "`expect`? (`completed` default, `fault:<Fault_Name>`, or `any`: run it and check no outcome)";
    const PRIMITIVE: &'static str = "ExecuteBundleTileOperation";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            expect: f.exec_expect()?,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { expect } = self;
        let completed = ctx.m.execute_bundle_tile_operation();
        ctx.check_exec(expect, completed);
        ctx.after_transfer();
    }
}

/// `EnterBundleBody`.
#[derive(Debug)]
pub struct EnterBundleBody;

impl Operation for EnterBundleBody {
    const NAME: &'static str = "enter-bundle-body";
    const FIELDS: &'static str = "";
    const PRIMITIVE: &'static str = "`EnterBundleBody`: the active bundle's header closes, so header commands (`B.DATR`, `B.DIM`, `B.IOS`, `B.IOR`, `B.IOT`, ordinary `B.HINT`) then reject with `Fault_BundleControl`; without an active bundle, `Fault_BundleControl`";

    fn parse(_f: &mut Fields) -> Result<Self, String> {
        Ok(Self)
    }

    fn run(&self, ctx: &mut Runner) {
        ctx.m.enter_bundle_body();
    }
}

/// `SetBundleScalarBinding(0, destination, source0, source1, source2, 3)`.
#[derive(Debug)]
pub struct ScalarBinding {
    destination: u32,
    sources: [u32; 3],
}

impl Operation for ScalarBinding {
    const NAME: &'static str = "scalar-binding";
    const FIELDS: &'static str =
        "`destination`?, `source0`?, `source1`?, `source2`? (GPR selectors, default 0)";
    const PRIMITIVE: &'static str = "`SetBundleScalarBinding(0, destination, source0, source1, source2, 3)`; read back with `expect-predicate` names `BundleTileInstructionOperands.scalar0` / `.diagonal` / `.flag0`, `BundleOperationGPRBindingValuesLegal`, `BundleOperationBindingsComplete` and an operation name (`TCI`, `TTRI`, `TSORT`, `TMRGSORT`) as the argument";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            destination: f.opt_ranged("destination", 31)?.unwrap_or(0) as u32,
            sources: [
                f.opt_ranged("source0", 31)?.unwrap_or(0) as u32,
                f.opt_ranged("source1", 31)?.unwrap_or(0) as u32,
                f.opt_ranged("source2", 31)?.unwrap_or(0) as u32,
            ],
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self {
            destination,
            sources,
        } = self;
        ctx.m
            .set_bundle_scalar_binding(*destination, sources[0], sources[1], sources[2]);
    }
}

/// `SetBundleControlAttributeState(trap_enabled, atomic, acquire,
/// release, far, dimension_reduction)`: the B.CATR state.
#[derive(Debug)]
pub struct ControlAttributes(pto::block::ControlAttributes);

impl Operation for ControlAttributes {
    const NAME: &'static str = "control-attributes";
    const FIELDS: &'static str = "`trap_enabled`, `atomic`, `acquire`, `release`, `far`, `dimension_reduction` (all booleans, all required)";
    const PRIMITIVE: &'static str = "`SetBundleControlAttributeState(…)`: the B.CATR state, cleared with the bundle header (`reset`, `reset-bundle`, BSTART/BSTOP); `acquire`/`release` give the order of the events later TLOAD/TSTORE/MGATHER/MSCATTER/MGATHER_CAS capture (`CurrentBundleMemoryOrder`)";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self(pto::block::ControlAttributes {
            present: true,
            trap_enabled: f.bool("trap_enabled")?,
            atomic: f.bool("atomic")?,
            acquire: f.bool("acquire")?,
            release: f.bool("release")?,
            far: f.bool("far")?,
            dimension_reduction: f.bool("dimension_reduction")?,
        }))
    }

    fn run(&self, ctx: &mut Runner) {
        let Self(catr) = self;
        ctx.m.set_bundle_control_attribute_state(*catr);
    }
}

#[derive(Debug)]
pub struct PadValue {
    pad: u8,
}

impl Operation for PadValue {
    const NAME: &'static str = "pad-value";
    const FIELDS: &'static str = "`pad` (0..3)";
    const PRIMITIVE: &'static str = "`_BundleDataAttributes.pad_value` with B.DATR present";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            pad: f.ranged("pad", 3)? as u8,
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { pad } = self;
        if let Err(e) = ext::set_pad_value(&mut ctx.m, *pad) {
            ctx.fail("setting the bundle PadValue", e);
        }
    }
}

#[derive(Debug)]
pub struct RecoverTrap {
    context: u32,
    expect: bool,
}

impl Operation for RecoverTrap {
    const NAME: &'static str = "recover-trap";
    const FIELDS: &'static str = "`context` (ring 0..15), `expect`? (`true`)";
    const PRIMITIVE: &'static str = "`RecoverTrapContext(context)` returns `expect`";

    fn parse(f: &mut Fields) -> Result<Self, String> {
        Ok(Self {
            context: f.ranged("context", 255)? as u32,
            expect: f.opt_bool("expect")?.unwrap_or(true),
        })
    }

    fn run(&self, ctx: &mut Runner) {
        let Self { context, expect } = self;
        match ext::recover_trap_context(&mut ctx.m, *context) {
            Ok(got) => ctx.check(
                &format!("RecoverTrapContext({context}) ="),
                *expect,
                got,
                |b| b.to_string(),
            ),
            Err(e) => ctx.fail("RecoverTrapContext", e),
        }
    }
}
