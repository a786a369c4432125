//! Code generation: a [`Region`] of micro-ops to Cranelift IR to host code,
//! and the slow-path helpers the code calls (see the module documentation
//! of [`crate::jit`]).

use super::fault::{pack, Sites, TRAP_ACCESS, TRAP_CHECK};
use super::region::{
    branch_target, dest, in_page_index, is_cix_mvi, is_fbranch, is_hint, shape, Region, Shape,
};
use super::{Exit, JitCtx};
use crate::cpu::Cpu;
use crate::exec::fast::{Uop, K};
use crate::exec::{bytes, mem};
use crate::fp::fpcr::{FPCR_DYN_MASK, FPCR_DYN_NORMAL};
use crate::fp::{FCond, Qual, RoundQual, Rounding};
use crate::memory::{JitTlb, GUEST_SPACE, JIT_TLB_SIZE, PAGE_SHIFT, PAGE_SIZE};
use alpha_isa::{Insn, Op};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32, F64, I16, I32, I64, I8};
use cranelift_codegen::ir::{
    AbiParam, Block, BlockArg, InstBuilder, MemFlagsData as MemFlags, Signature, SourceLoc,
    TrapCode, UserFuncName, Value,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Module};
use std::mem::offset_of;

/// [`JitCtx::status`] after a slow-path helper: done; not done (interpret
/// the instruction); done, but code changed (leave after it).
const ST_OK: u64 = 0;
const ST_FAIL: u64 = 1;
const ST_CODE: u64 = 2;

/// A finished region: where its code is and what it cost.
pub(crate) struct Code {
    pub(crate) addr: usize,
    pub(crate) insns: usize,
    pub(crate) bytes: usize,
    pub(crate) nanos: u64,
    /// The guest page it was compiled from.
    pub(crate) page: u64,
    /// Its host instructions that can fault (see [`super::fault`]).
    pub(crate) sites: Sites,
}

/// The Cranelift module regions are compiled into.
pub(crate) struct Backend {
    module: JITModule,
    cl: Context,
    fctx: FunctionBuilderContext,
    /// The instructions helper calls in the code point at (boxed: their
    /// addresses must not move when the vector grows).
    #[allow(clippy::vec_box)]
    insns: Vec<Box<Insn>>,
}

impl Backend {
    pub(crate) fn new() -> Option<Backend> {
        Some(Backend {
            module: new_module()?,
            cl: Context::new(),
            fctx: FunctionBuilderContext::new(),
            insns: Vec::new(),
        })
    }

    /// # Safety
    /// No pointer into code compiled here may be used afterwards.
    pub(crate) unsafe fn free(self) {
        self.module.free_memory();
    }

    /// Compile `region` of the decoded page `uops` at `base` (`nanos`: the
    /// compiling thread's CPU time).
    pub(crate) fn compile(&mut self, region: &Region, uops: &[Uop], base: u64) -> Option<Code> {
        let start = thread_cpu_ns();
        let module = &mut self.module;
        let config = module.target_config();
        let mut sig = module.make_signature();
        sig.params.push(AbiParam::new(I64));
        sig.returns.push(AbiParam::new(I64));
        let id = module.declare_anonymous_function(&sig).ok()?;
        self.cl.clear();
        self.cl.func.signature = sig;
        self.cl.func.name = UserFuncName::user(0, id.as_u32());
        {
            let b = FunctionBuilder::new(&mut self.cl.func, &mut self.fctx);
            Emitter::new(b, region, uops, base, &mut self.insns).emit(config);
        }
        if module.define_function(id, &mut self.cl).is_err() {
            module.clear_context(&mut self.cl);
            return None;
        }
        let (bytes, sites) = self.cl.compiled_code().map_or((0, Sites::default()), |c| {
            (c.code_info().total_size as usize, fault_sites(&c.buffer))
        });
        module.clear_context(&mut self.cl);
        module.finalize_definitions().ok()?;
        let addr = module.get_finalized_function(id) as usize;
        Some(Code {
            addr,
            insns: region.count,
            bytes,
            nanos: thread_cpu_ns().saturating_sub(start),
            page: base,
            sites,
        })
    }
}

/// The host instructions of a compiled region that can fault (every
/// recorded trap site), with the guest instruction each belongs to.
fn fault_sites(buf: &cranelift_codegen::MachBufferFinalized<cranelift_codegen::Final>) -> Sites {
    let locs = buf.get_srclocs_sorted();
    let mut sites = Sites::default();
    let mut traps: Vec<u32> = buf.traps().iter().map(|t| t.offset).collect();
    traps.sort_unstable();
    for off in traps {
        let k = locs.partition_point(|l| l.end <= off);
        if let Some(l) = locs
            .get(k)
            .filter(|l| l.start <= off && !l.loc.is_default())
        {
            sites.offsets.push(off);
            sites.locs.push(l.loc.bits());
        }
    }
    sites
}

/// CPU time of the calling thread (compile cost, unaffected by other
/// processes competing for the host).
fn thread_cpu_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return 0;
    }
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

fn new_module() -> Option<JITModule> {
    let mut flags = settings::builder();
    // Chosen by measurement (docs/benchmarks.md): without Cranelift's
    // optimisations compiling takes half the time and the code is hardly
    // slower (the emitter already writes near-final code); the
    // single-pass register allocator compiles faster still but its code
    // is slower on whole programs.
    flags.set("opt_level", "none").ok()?;
    flags.set("regalloc_algorithm", "backtracking").ok()?;
    flags.set("use_colocated_libcalls", "false").ok()?;
    flags.set("is_pic", "false").ok()?;
    let verify = if cfg!(debug_assertions) {
        "true"
    } else {
        "false"
    };
    flags.set("enable_verifier", verify).ok()?;
    let isa = cranelift_native::builder()
        .ok()?
        .finish(settings::Flags::new(flags))
        .ok()?;
    Some(JITModule::new(JITBuilder::with_isa(
        isa,
        default_libcall_names(),
    )))
}

/// Load `N` bytes through [`Memory`]; on success refill the table.
unsafe extern "C" fn load_slow<const N: usize>(ctx: *mut JitCtx, addr: u64) -> u64 {
    let ctx = &mut *ctx;
    let mem = &mut *ctx.mem;
    match mem.load::<N>(addr) {
        Ok(v) => {
            mem.jit_fill_read(addr);
            ctx.status = ST_OK;
            v
        }
        Err(_) => {
            ctx.status = ST_FAIL;
            0
        }
    }
}

/// Store `N` bytes through [`Memory`] (reservations, code pages); on
/// success refill the table.
unsafe extern "C" fn store_slow<const N: usize>(ctx: *mut JitCtx, addr: u64, value: u64) {
    let ctx = &mut *ctx;
    let mem = &mut *ctx.mem;
    let gen = mem.code_generation();
    ctx.status = match mem.store::<N>(ctx.agent as usize, addr, value) {
        Err(_) => ST_FAIL,
        Ok(()) if mem.code_generation() != gen => ST_CODE,
        Ok(()) => {
            mem.jit_fill_write(addr);
            ST_OK
        }
    };
}

/// Execute `insn` (at `pc`) with the interpreter's own function for it
/// (`exec::float::execute` for floating point, `exec::execute` for
/// CIX/MVI). When it would raise an event (a trap, a fault, a missing
/// extension) everything it changed is put back and the status says
/// "interpret it"; a store that changed code says so.
unsafe extern "C" fn generic(ctx: *mut JitCtx, insn: *const Insn, pc: u64) -> u64 {
    let ctx = &mut *ctx;
    ctx.helpers += 1;
    let cpu = &mut *ctx.cpu;
    let mem = &mut *ctx.mem;
    let insn = *insn;
    if insn.op == alpha_isa::Op::CallPal {
        // `rduniq` (the only CALL_PAL compiled): what the run loop does for
        // it, entering PALcode included (which clears the lock flag).
        rduniq(cpu, mem);
        return ST_OK;
    }
    let rc = (insn.rc & 31) as usize;
    let (f, fpcr, r) = (cpu.f, cpu.fpcr, cpu.r[rc]);
    let gen = mem.code_generation();
    let ok = if is_cix_mvi(insn.op) {
        let mut ev = crate::Event::BudgetExhausted;
        crate::exec::execute(cpu, mem, &insn, pc, 0, &mut ev).is_some()
    } else {
        crate::exec::float::execute(cpu, mem, insn, pc).is_ok()
    };
    cpu.r[31] = 0;
    cpu.f[31] = 0;
    if !ok {
        cpu.f = f;
        cpu.fpcr = fpcr;
        cpu.r[rc] = r;
        cpu.r[31] = 0;
        return ST_FAIL;
    }
    if mem.code_generation() != gen {
        ST_CODE
    } else {
        ST_OK
    }
}

/// CALL_PAL `rduniq` run in line: `v0` gets the unique value, and entering
/// PALcode clears the CPU's lock flag, as the system-call path does.
pub fn rduniq(cpu: &mut crate::cpu::Cpu, mem: &mut crate::memory::Memory) {
    cpu.r[0] = cpu.uniq;
    mem.clear_reservation(cpu.id);
}

/// Where an exit continues.
#[derive(Clone, Copy)]
enum Pc {
    Const(u64),
    Val(Value),
}

struct Emitter<'a> {
    b: FunctionBuilder<'a>,
    region: &'a Region,
    uops: &'a [Uop],
    base: u64,
    ctx: Value,
    /// Portable memory: the [`JitTlb`]; host-mapped: `guest_base`.
    tlb: Value,
    vars: [Option<Variable>; 32],
    left: Variable,
    blocks: Vec<Option<Block>>,
    regs: Value,
    /// Floating registers used by the region's FP instructions, in
    /// variables like the integer ones (raw 64-bit register images).
    fvars: [Option<Variable>; 32],
    /// `cpu.f` and `cpu` itself (for the FPCR).
    fregs: Value,
    cpu: Value,
    /// Exit blocks still to fill: (block, next pc, budget refund, why).
    exits: Vec<(Block, Pc, usize, Exit)>,
    load_sig: Option<cranelift_codegen::ir::SigRef>,
    store_sig: Option<cranelift_codegen::ir::SigRef>,
    /// Instructions the helper calls point at (kept with the code).
    #[allow(clippy::vec_box)]
    insns: &'a mut Vec<Box<Insn>>,
}

fn trusted() -> MemFlags {
    MemFlags::trusted()
}

/// Guest data: never traps (the table holds valid host pointers) but may be
/// unaligned on the host and aliases anything.
fn guest() -> MemFlags {
    MemFlags::new().with_notrap()
}

/// Guest data at `guest_base + va` (host-mapped memory): may fault, which
/// the fault handler turns into an exit before the instruction.
fn direct() -> MemFlags {
    MemFlags::new().with_trap_code(Some(TrapCode::unwrap_user(TRAP_ACCESS)))
}

impl<'a> Emitter<'a> {
    #[allow(clippy::vec_box)]
    fn new(
        mut b: FunctionBuilder<'a>,
        region: &'a Region,
        uops: &'a [Uop],
        base: u64,
        insns: &'a mut Vec<Box<Insn>>,
    ) -> Self {
        let start = b.create_block();
        b.append_block_params_for_function_params(start);
        b.switch_to_block(start);
        let ctx = b.block_params(start)[0];
        let regs = b
            .ins()
            .load(I64, trusted(), ctx, offset_of!(JitCtx, regs) as i32);
        let tlb_off = if region.cfg.direct {
            offset_of!(JitCtx, base)
        } else {
            offset_of!(JitCtx, tlb)
        };
        let tlb = b.ins().load(I64, trusted(), ctx, tlb_off as i32);
        let mut vars = [None; 32];
        for (r, slot) in vars.iter_mut().enumerate() {
            if region.used[r] || region.written[r] {
                let v = b.declare_var(I64);
                let x = b.ins().load(I64, trusted(), regs, (r * 8) as i32);
                b.def_var(v, x);
                *slot = Some(v);
            }
        }
        let cpu = b
            .ins()
            .load(I64, trusted(), ctx, offset_of!(JitCtx, cpu) as i32);
        let fregs = b.ins().iadd_imm_s(cpu, offset_of!(Cpu, f) as i64);
        let mut fused = [false; 32];
        for (i, u) in uops.iter().enumerate() {
            if region.reached.get(i) == Some(&true) && u.kind == K::Generic && is_fp(u.insn.op) {
                for r in [u.insn.ra, u.insn.rb, u.insn.rc] {
                    fused[(r & 31) as usize] = true;
                }
            }
        }
        let mut fvars = [None; 32];
        for (r, slot) in fvars.iter_mut().enumerate().take(31) {
            if fused[r] {
                let v = b.declare_var(I64);
                let x = b.ins().load(I64, trusted(), fregs, (r * 8) as i32);
                b.def_var(v, x);
                *slot = Some(v);
            }
        }
        let left = b.declare_var(I64);
        let l = b
            .ins()
            .load(I64, trusted(), ctx, offset_of!(JitCtx, left) as i32);
        b.def_var(left, l);
        let mut blocks = vec![None; uops.len()];
        for (i, slot) in blocks.iter_mut().enumerate() {
            if region.block_at(i) {
                *slot = Some(b.create_block());
            }
        }
        let first = blocks[region.entry].expect("entry is a block");
        b.ins().jump(first, &[]);
        Emitter {
            b,
            region,
            uops,
            base,
            ctx,
            tlb,
            vars,
            left,
            blocks,
            regs,
            fvars,
            fregs,
            cpu,
            exits: Vec::new(),
            load_sig: None,
            store_sig: None,
            insns,
        }
    }

    /// A new exit block: it will store the budget and return `pc` (the
    /// registers are already in the register file, see [`Emitter::set`]).
    fn exit_to(&mut self, pc: Pc, refund: usize, why: Exit) -> Block {
        let blk = self.b.create_block();
        self.b.set_cold_block(blk);
        self.exits.push((blk, pc, refund, why));
        blk
    }

    /// Fill the exit blocks: each adds its refund to the budget and jumps
    /// with (pc, budget, why) to one shared block that stores them and
    /// returns, so the region has one epilogue, not one per exit.
    fn fill_exits(&mut self) {
        let exits = std::mem::take(&mut self.exits);
        if exits.is_empty() {
            return;
        }
        let out = self.b.create_block();
        self.b.set_cold_block(out);
        let pc_p = self.b.append_block_param(out, I64);
        let left_p = self.b.append_block_param(out, I64);
        let why_p = self.b.append_block_param(out, I64);
        for (blk, pc, refund, why) in exits {
            let b = &mut self.b;
            b.switch_to_block(blk);
            let l = b.use_var(self.left);
            let l = if refund == 0 {
                l
            } else {
                b.ins().iadd_imm_s(l, refund as i64)
            };
            let w = b.ins().iconst(I64, why as i64);
            let pc = match pc {
                Pc::Const(x) => b.ins().iconst(I64, x as i64),
                Pc::Val(v) => v,
            };
            b.ins().jump(
                out,
                &[BlockArg::Value(pc), BlockArg::Value(l), BlockArg::Value(w)],
            );
        }
        let b = &mut self.b;
        b.switch_to_block(out);
        b.ins()
            .store(trusted(), left_p, self.ctx, offset_of!(JitCtx, left) as i32);
        b.ins()
            .store(trusted(), why_p, self.ctx, offset_of!(JitCtx, exit) as i32);
        b.ins().return_(&[pc_p]);
    }

    fn emit(mut self, config: cranelift_codegen::isa::TargetFrontendConfig) {
        for i in 0..self.uops.len() {
            if self.region.block_at(i) {
                self.emit_block(i);
            }
        }
        self.fill_exits();
        self.b.seal_all_blocks();
        self.b.finalize(config);
    }

    fn pc(&self, i: usize) -> u64 {
        self.base + ((i as u64) << 2)
    }

    fn get(&mut self, r: u8) -> Value {
        match self.vars[r as usize] {
            Some(v) if r != 31 => self.b.use_var(v),
            _ => self.b.ins().iconst(I64, 0),
        }
    }

    /// Write guest register `r`: the variable for later reads, and the
    /// register file at once (a store off the critical path), so that an
    /// exit has nothing to write back and values need not stay live to it.
    fn set(&mut self, r: usize, v: Value) {
        if r != 31 {
            self.b.def_var(self.vars[r].unwrap(), v);
            self.b.ins().store(trusted(), v, self.regs, (r * 8) as i32);
        }
    }

    fn konst(&mut self, x: u64) -> Value {
        self.b.ins().iconst(I64, x as i64)
    }

    /// Leave for the interpreter at `pc`, repaying `refund` instructions.
    fn leave(&mut self, pc: u64, refund: usize, why: Exit) {
        let blk = self.exit_to(Pc::Const(pc), refund, why);
        self.b.ins().jump(blk, &[]);
    }

    /// Continue at guest address `target`: a block of the region, or exit.
    fn goto(&mut self, target: u64) {
        match self.index_of(target).and_then(|t| self.blocks[t]) {
            Some(blk) => {
                self.b.ins().jump(blk, &[]);
            }
            None => self.leave(target, 0, Exit::Branch),
        }
    }

    fn index_of(&self, target: u64) -> Option<usize> {
        in_page_index(self.base, target)
    }

    fn emit_block(&mut self, start: usize) {
        let blk = self.blocks[start].unwrap();
        self.b.switch_to_block(blk);
        let n = self.region.block_len(self.uops, start);
        // Pay for the block, or leave before it if the budget is short.
        let left = self.b.use_var(self.left);
        let short = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, left, n as i64);
        let body = self.b.create_block();
        let out = self.exit_to(Pc::Const(self.pc(start)), 0, Exit::Budget);
        self.b.ins().brif(short, out, &[], body, &[]);
        self.b.switch_to_block(body);
        let paid = self.b.ins().iadd_imm_s(left, -(n as i64));
        self.b.def_var(self.left, paid);
        if self.region.cfg.direct {
            // Where a host fault in this block finds the budget.
            self.b
                .ins()
                .store(trusted(), paid, self.ctx, offset_of!(JitCtx, left) as i32);
        }
        let mut i = start;
        loop {
            let u = self.uops[i];
            let here = i - start;
            // Every host instruction of this guest instruction says which
            // it is and what its block has left to run (see `fault`).
            self.b.set_srcloc(SourceLoc::new(pack(i, n - here)));
            match shape(&u, self.region.cfg) {
                Shape::Interpret => {
                    self.leave(self.pc(i), 0, Exit::Interpret);
                    return;
                }
                Shape::Straight | Shape::Helper => {
                    if u.kind == K::Generic {
                        // A barrier or hint compiles to nothing.
                        if !is_hint(u.insn.op) && !self.fp_inline(&u, i, n - here) {
                            self.helper(&u, i, n - here);
                        }
                    } else {
                        self.straight(&u, i, n - here);
                    }
                    i += 1;
                    if here + 1 == n {
                        // The block ends without a branch: next block, or exit.
                        if self.region.block_at(i) {
                            let next = self.blocks[i].unwrap();
                            self.b.ins().jump(next, &[]);
                        } else {
                            // Falling off the page end is entering the next page.
                            let why = if self.uops[i].kind != K::EndOfPage
                                && shape(&self.uops[i], self.region.cfg) == Shape::Interpret
                            {
                                Exit::Interpret
                            } else {
                                Exit::Branch
                            };
                            self.leave(self.pc(i), 0, why);
                        }
                        return;
                    }
                }
                Shape::Cond | Shape::FCond => {
                    let c = if u.kind == K::Generic {
                        let fa = self.fget(u.insn.ra);
                        let c = FCond::of(u.insn.op).expect("a floating branch");
                        self.fcond(c, fa)
                    } else {
                        let a = self.get(u.ra);
                        self.condition(u.kind, a)
                    };
                    let taken = self.b.create_block();
                    let fall = self.b.create_block();
                    self.b.ins().brif(c, taken, &[], fall, &[]);
                    self.b.switch_to_block(taken);
                    self.goto(branch_target(&u, self.base, i));
                    self.b.switch_to_block(fall);
                    self.goto(self.pc(i + 1));
                    return;
                }
                Shape::Direct => {
                    if u.kind == K::Br {
                        let link = self.konst(self.pc(i + 1));
                        self.set(u.ra as usize, link);
                    }
                    self.goto(u.imm);
                    return;
                }
                Shape::Indirect => {
                    let rb = self.get(u.rb);
                    let target = self.b.ins().band_imm_s(rb, !3i64);
                    if u.kind == K::Jump {
                        let link = self.konst(self.pc(i + 1));
                        self.set(u.ra as usize, link);
                    }
                    let out = self.exit_to(Pc::Val(target), 0, Exit::Indirect);
                    self.b.ins().jump(out, &[]);
                    return;
                }
            }
        }
    }

    fn condition(&mut self, k: K, a: Value) -> Value {
        let ins = self.b.ins();
        match k {
            K::Beq => ins.icmp_imm_s(IntCC::Equal, a, 0),
            K::Bne => ins.icmp_imm_s(IntCC::NotEqual, a, 0),
            K::Blt => ins.icmp_imm_s(IntCC::SignedLessThan, a, 0),
            K::Bge => ins.icmp_imm_s(IntCC::SignedGreaterThanOrEqual, a, 0),
            K::Ble => ins.icmp_imm_s(IntCC::SignedLessThanOrEqual, a, 0),
            K::Bgt => ins.icmp_imm_s(IntCC::SignedGreaterThan, a, 0),
            K::Blbc => {
                let bit = ins.band_imm_s(a, 1);
                self.b.ins().icmp_imm_s(IntCC::Equal, bit, 0)
            }
            _ => {
                let bit = ins.band_imm_s(a, 1);
                self.b.ins().icmp_imm_s(IntCC::NotEqual, bit, 0)
            }
        }
    }

    fn bool64(&mut self, c: Value) -> Value {
        self.b.ins().uextend(I64, c)
    }

    fn sext32(&mut self, v: Value) -> Value {
        let t = self.b.ins().ireduce(I32, v);
        self.b.ins().sextend(I64, t)
    }

    /// One computing instruction (operate, LDA/LDAH, load, store) at index
    /// `i`; `rest` is how many instructions of the block, this one
    /// included, an early exit here refunds.
    fn straight(&mut self, u: &Uop, i: usize, rest: usize) {
        use K::*;
        let k = u.kind;
        match k {
            Nop => return,
            Lda | Ldah => {
                let b = self.get(u.rb);
                let v = self.b.ins().iadd_imm_s(b, u.imm as i64);
                self.set(u.ra as usize, v);
                return;
            }
            Ldq | Ldl | LdqU | Ldbu | Ldwu => {
                self.load(u, i, rest);
                return;
            }
            Stq | Stl | StqU | Stb | Stw => {
                self.store(u, i, rest);
                return;
            }
            SextbR | SextwR => {
                let b = self.get(u.rb);
                let t = self.b.ins().ireduce(if k == SextbR { I8 } else { I16 }, b);
                let v = self.b.ins().sextend(I64, t);
                self.set(u.rc as usize, v);
                return;
            }
            _ => {}
        }
        let a = self.get(u.ra);
        let lit = u.insn.lit.is_some();
        let bv = if lit {
            self.konst(u.imm)
        } else {
            self.get(u.rb)
        };
        let imm = u.imm;
        let v = match k {
            AddqR | AddqL => self.b.ins().iadd(a, bv),
            SubqR | SubqL => self.b.ins().isub(a, bv),
            AddlR | AddlL => {
                let s = self.b.ins().iadd(a, bv);
                self.sext32(s)
            }
            SublR | SublL => {
                let s = self.b.ins().isub(a, bv);
                self.sext32(s)
            }
            S4addlR | S4addlL | S8addlR | S8addlL | S4sublR | S4sublL | S8sublR | S8sublL => {
                let sh = if matches!(k, S4addlR | S4addlL | S4sublR | S4sublL) {
                    2
                } else {
                    3
                };
                let sa = self.b.ins().ishl_imm_s(a, sh);
                let s = if matches!(k, S4addlR | S4addlL | S8addlR | S8addlL) {
                    self.b.ins().iadd(sa, bv)
                } else {
                    self.b.ins().isub(sa, bv)
                };
                self.sext32(s)
            }
            S4addqR | S4addqL | S8addqR | S8addqL | S4subqR | S4subqL | S8subqR | S8subqL => {
                let sh = if matches!(k, S4addqR | S4addqL | S4subqR | S4subqL) {
                    2
                } else {
                    3
                };
                let sa = self.b.ins().ishl_imm_s(a, sh);
                if matches!(k, S4addqR | S4addqL | S8addqR | S8addqL) {
                    self.b.ins().iadd(sa, bv)
                } else {
                    self.b.ins().isub(sa, bv)
                }
            }
            AndR | AndL => self.b.ins().band(a, bv),
            BicR | BicL => self.b.ins().band_not(a, bv),
            BisR | BisL => self.b.ins().bor(a, bv),
            OrnotR | OrnotL => self.b.ins().bor_not(a, bv),
            XorR | XorL => self.b.ins().bxor(a, bv),
            EqvR | EqvL => self.b.ins().bxor_not(a, bv),
            SllR | SllL => {
                let s = self.b.ins().band_imm_s(bv, 63);
                self.b.ins().ishl(a, s)
            }
            SrlR | SrlL => {
                let s = self.b.ins().band_imm_s(bv, 63);
                self.b.ins().ushr(a, s)
            }
            SraR | SraL => {
                let s = self.b.ins().band_imm_s(bv, 63);
                self.b.ins().sshr(a, s)
            }
            CmpeqR | CmpeqL => self.cmp(IntCC::Equal, a, bv),
            CmpultR | CmpultL => self.cmp(IntCC::UnsignedLessThan, a, bv),
            CmpuleR | CmpuleL => self.cmp(IntCC::UnsignedLessThanOrEqual, a, bv),
            CmpltR | CmpltL => self.cmp(IntCC::SignedLessThan, a, bv),
            CmpleR | CmpleL => self.cmp(IntCC::SignedLessThanOrEqual, a, bv),
            CmpbgeR | CmpbgeL => self.cmpbge(a, bv),
            MullR | MullL => {
                let m = self.b.ins().imul(a, bv);
                self.sext32(m)
            }
            MulqR | MulqL => self.b.ins().imul(a, bv),
            UmulhR | UmulhL => self.b.ins().umulhi(a, bv),
            ZapR | ZapL | ZapnotR | ZapnotL => {
                let keep = if lit {
                    let m = byte_mask(imm);
                    self.konst(if matches!(k, ZapL) { !m } else { m })
                } else {
                    let m = self.byte_mask_of(bv);
                    if k == ZapR {
                        self.b.ins().bnot(m)
                    } else {
                        m
                    }
                };
                self.b.ins().band(a, keep)
            }
            ExtblR | ExtblL | ExtwlR | ExtwlL | ExtllR | ExtllL | ExtqlR | ExtqlL => {
                let sh = self.byte_shift(bv);
                let x = self.b.ins().ushr(a, sh);
                self.b.ins().band_imm_s(x, width_mask(k) as i64)
            }
            ExtwhR | ExtwhL | ExtlhR | ExtlhL | ExtqhR | ExtqhL => {
                // (64 - 8*b<2:0>) mod 64 = (-8*b<2:0>) mod 64
                let sh = self.byte_shift(bv);
                let neg = self.b.ins().ineg(sh);
                let loc = self.b.ins().band_imm_s(neg, 63);
                let x = self.b.ins().ishl(a, loc);
                self.b.ins().band_imm_s(x, width_mask(k) as i64)
            }
            InsblR | InsblL | InswlR | InswlL | InsllR | InsllL | InsqlR | InsqlL => {
                let sh = self.byte_shift(bv);
                let x = self.b.ins().band_imm_s(a, width_mask(k) as i64);
                self.b.ins().ishl(x, sh)
            }
            InswhR | InswhL | InslhR | InslhL | InsqhR | InsqhL => {
                let x = self.b.ins().band_imm_s(a, width_mask(k) as i64);
                self.high_part(x, bv)
            }
            MskblR | MskblL | MskwlR | MskwlL | MskllR | MskllL | MskqlR | MskqlL => {
                let sh = self.byte_shift(bv);
                let m = self.konst(width_mask(k));
                let m = self.b.ins().ishl(m, sh);
                self.b.ins().band_not(a, m)
            }
            MskwhR | MskwhL | MsklhR | MsklhL | MskqhR | MskqhL => {
                let m = self.konst(width_mask(k));
                let hi = self.high_part(m, bv);
                self.b.ins().band_not(a, hi)
            }
            CmoveqR | CmoveqL | CmovneR | CmovneL | CmovltR | CmovltL | CmovgeR | CmovgeL
            | CmovleR | CmovleL | CmovgtR | CmovgtL | CmovlbsR | CmovlbsL | CmovlbcR | CmovlbcL => {
                let branch_kind = match k {
                    CmoveqR | CmoveqL => Beq,
                    CmovneR | CmovneL => Bne,
                    CmovltR | CmovltL => Blt,
                    CmovgeR | CmovgeL => Bge,
                    CmovleR | CmovleL => Ble,
                    CmovgtR | CmovgtL => Bgt,
                    CmovlbsR | CmovlbsL => Blbs,
                    _ => Blbc,
                };
                let c = self.condition(branch_kind, a);
                let old = self.get(u.rc);
                self.b.ins().select(c, bv, old)
            }
            _ => unreachable!("micro-op {k:?} has no compiled form"),
        };
        self.set(u.rc as usize, v);
    }

    /// A stable pointer to a copy of `u`'s instruction, for a helper.
    fn insn_ptr(&mut self, u: &Uop) -> Value {
        let boxed = Box::new(u.insn);
        let p = &*boxed as *const Insn as u64;
        self.insns.push(boxed);
        self.konst(p)
    }

    /// An instruction run by [`generic`]: on "would trap" exit before it
    /// (the interpreter executes it), after a store into code exit after it.
    fn helper(&mut self, u: &Uop, i: usize, rest: usize) {
        self.call_generic(u, i, rest);
        // It wrote the register file directly: read the result back.
        if let Some(r) = dest(u) {
            let v = self.b.ins().load(I64, trusted(), self.regs, (r * 8) as i32);
            self.b.def_var(self.vars[r].unwrap(), v);
        }
        if is_fp(u.insn.op) {
            // Fa (loads, MF_FPCR) or Fc (operates) may have been written.
            for r in [u.insn.ra & 31, u.insn.rc & 31] {
                self.freload(r);
            }
        }
    }

    /// Call [`generic`] for `u`; the builder is left in the block where it
    /// succeeded (the failures exit).
    fn call_generic(&mut self, u: &Uop, i: usize, rest: usize) {
        let sig = self.helper_sig(3);
        let f = self.konst(generic as *const () as u64);
        let ip = self.insn_ptr(u);
        let pc = self.konst(self.pc(i));
        let call = self.b.ins().call_indirect(sig, f, &[self.ctx, ip, pc]);
        let st = self.b.inst_results(call)[0];
        let not_ok = self.b.create_block();
        let join = self.b.create_block();
        self.b.set_cold_block(not_ok);
        self.b.ins().brif(st, not_ok, &[], join, &[]);
        self.b.switch_to_block(not_ok);
        let failed = self.b.ins().icmp_imm_s(IntCC::Equal, st, ST_FAIL as i64);
        let fail = self.exit_to(Pc::Const(self.pc(i)), rest, Exit::Interpret);
        let done = self.exit_to(Pc::Const(self.pc(i + 1)), rest - 1, Exit::Code);
        self.b.ins().brif(failed, fail, &[], done, &[]);
        self.b.switch_to_block(join);
    }

    /// A helper signature: `params` words in, one word out.
    fn helper_sig(&mut self, params: usize) -> cranelift_codegen::ir::SigRef {
        let mut sig = Signature::new(self.b.func.signature.call_conv);
        for _ in 0..params {
            sig.params.push(AbiParam::new(I64));
        }
        sig.returns.push(AbiParam::new(I64));
        self.b.import_signature(sig)
    }

    fn cmp(&mut self, cc: IntCC, a: Value, b: Value) -> Value {
        let c = self.b.ins().icmp(cc, a, b);
        self.bool64(c)
    }

    /// `8 * (b & 7)`
    fn byte_shift(&mut self, b: Value) -> Value {
        let s = self.b.ins().band_imm_s(b, 7);
        self.b.ins().ishl_imm_s(s, 3)
    }

    /// The part of `x << 8*(b & 7)` that spills past bit 63, i.e. the high
    /// quadword of the 128-bit shift (0 when the shift is 0).
    fn high_part(&mut self, x: Value, b: Value) -> Value {
        let sh = self.byte_shift(b);
        let neg = self.b.ins().ineg(sh);
        let loc = self.b.ins().band_imm_s(neg, 63);
        let hi = self.b.ins().ushr(x, loc);
        let zero = self.konst(0);
        let none = self.b.ins().icmp_imm_s(IntCC::Equal, sh, 0);
        self.b.ins().select(none, zero, hi)
    }

    /// The 64-bit mask with byte i all ones where bit i of `b` is set: the
    /// interpreter's own table, indexed by `b<7:0>`.
    fn byte_mask_of(&mut self, b: Value) -> Value {
        let m = self.b.ins().band_imm_s(b, 0xff);
        let off = self.b.ins().ishl_imm_s(m, 3);
        let table = self.konst(bytes::BYTE_MASKS.as_ptr() as u64);
        let at = self.b.ins().iadd(table, off);
        self.b
            .ins()
            .load(I64, MemFlags::trusted().with_readonly(), at, 0)
    }

    /// CMPBGE without a loop (see [`cmpbge_swar`]).
    fn cmpbge(&mut self, a: Value, b: Value) -> Value {
        const H: i64 = 0x8080_8080_8080_8080u64 as i64;
        let ah = self.b.ins().bor_imm_s(a, H);
        let bl = self.b.ins().band_imm_s(b, !H);
        let d = self.b.ins().isub(ah, bl);
        let anb = self.b.ins().band_not(a, b);
        let eq = self.b.ins().bxor_not(a, b);
        let low = self.b.ins().band(eq, d);
        let ge = self.b.ins().bor(anb, low);
        let ge = self.b.ins().band_imm_s(ge, H);
        let ge = self.b.ins().ushr_imm_s(ge, 7);
        let g = self.b.ins().imul_imm_s(ge, GATHER as i64);
        self.b.ins().ushr_imm_s(g, 56)
    }

    fn load(&mut self, u: &Uop, i: usize, rest: usize) {
        let size = access_size(u);
        let addr = self.address(u);
        self.check_access(addr, mem::align_mask(u.insn.op), i, rest);
        let raw = self.load_value(addr, size, i, rest);
        let v = if u.kind == K::Ldl {
            self.sext32(raw)
        } else {
            raw
        };
        self.set(u.ra as usize, v);
    }

    /// Load `size` bytes at `addr` (zero-extended) through the table, or
    /// the slow path; leave before instruction `i` when memory refuses.
    fn load_value(&mut self, addr: Value, size: u8, i: usize, rest: usize) -> Value {
        if self.region.cfg.direct {
            let host = self.b.ins().iadd(self.tlb, addr);
            let f = direct();
            return match size {
                8 => self.b.ins().load(I64, f, host, 0),
                4 => self.b.ins().uload32(f, host, 0),
                2 => self.b.ins().uload16(I64, f, host, 0),
                _ => self.b.ins().uload8(I64, f, host, 0),
            };
        }
        let (hit, miss, join, entry) = self.lookup(addr, false);
        let raw = self.b.append_block_param(join, I64);
        // Hit: read the host page.
        self.b.switch_to_block(hit);
        let host = self.host_address(addr, entry, false);
        let v = match size {
            8 => self.b.ins().load(I64, guest(), host, 0),
            4 => self.b.ins().uload32(guest(), host, 0),
            2 => self.b.ins().uload16(I64, guest(), host, 0),
            _ => self.b.ins().uload8(I64, guest(), host, 0),
        };
        self.b.ins().jump(join, &[BlockArg::Value(v)]);
        // Miss: ask memory.
        self.b.switch_to_block(miss);
        self.b.set_cold_block(miss);
        let sig = self.load_sig();
        let f = self.konst(slow_path(size, false));
        let call = self.b.ins().call_indirect(sig, f, &[self.ctx, addr]);
        let v = self.b.inst_results(call)[0];
        let st = self
            .b
            .ins()
            .load(I64, trusted(), self.ctx, offset_of!(JitCtx, status) as i32);
        let out = self.exit_to(Pc::Const(self.pc(i)), rest, Exit::Memory);
        self.b.ins().brif(st, out, &[], join, &[BlockArg::Value(v)]);
        self.b.switch_to_block(join);
        raw
    }

    fn store(&mut self, u: &Uop, i: usize, rest: usize) {
        let size = access_size(u);
        let addr = self.address(u);
        self.check_access(addr, mem::align_mask(u.insn.op), i, rest);
        let value = self.get(u.ra);
        self.store_value(addr, size, value, i, rest);
    }

    /// Store the low `size` bytes of `value` at `addr` through the table,
    /// or the slow path; leave before instruction `i` when memory refuses,
    /// after it when the store changed code.
    fn store_value(&mut self, addr: Value, size: u8, value: Value, i: usize, rest: usize) {
        if self.region.cfg.direct {
            let host = self.b.ins().iadd(self.tlb, addr);
            let f = direct();
            match size {
                8 => self.b.ins().store(f, value, host, 0),
                4 => self.b.ins().istore32(f, value, host, 0),
                2 => self.b.ins().istore16(f, value, host, 0),
                _ => self.b.ins().istore8(f, value, host, 0),
            };
            return;
        }
        let (hit, miss, join, entry) = self.lookup(addr, true);
        self.b.switch_to_block(hit);
        let host = self.host_address(addr, entry, true);
        match size {
            8 => self.b.ins().store(guest(), value, host, 0),
            4 => self.b.ins().istore32(guest(), value, host, 0),
            2 => self.b.ins().istore16(guest(), value, host, 0),
            _ => self.b.ins().istore8(guest(), value, host, 0),
        };
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(miss);
        self.b.set_cold_block(miss);
        let sig = self.store_sig();
        let f = self.konst(slow_path(size, true));
        self.b.ins().call_indirect(sig, f, &[self.ctx, addr, value]);
        let st = self
            .b
            .ins()
            .load(I64, trusted(), self.ctx, offset_of!(JitCtx, status) as i32);
        let not_ok = self.b.create_block();
        self.b.set_cold_block(not_ok);
        self.b.ins().brif(st, not_ok, &[], join, &[]);
        self.b.switch_to_block(not_ok);
        // ST_FAIL: interpret this store; ST_CODE: it is done, leave after it.
        let failed = self.b.ins().icmp_imm_s(IntCC::Equal, st, ST_FAIL as i64);
        let fail = self.exit_to(Pc::Const(self.pc(i)), rest, Exit::Memory);
        let done = self.exit_to(Pc::Const(self.pc(i + 1)), rest - 1, Exit::Code);
        self.b.ins().brif(failed, fail, &[], done, &[]);
        self.b.switch_to_block(join);
    }

    fn address(&mut self, u: &Uop) -> Value {
        let b = self.get(u.rb);
        let a = self.b.ins().iadd_imm_s(b, u.insn.disp as i64);
        if matches!(u.kind, K::LdqU | K::StqU) {
            self.b.ins().band_imm_s(a, !7i64)
        } else {
            a
        }
    }

    /// Before an access at `addr` whose low `mask` bits must be zero: with
    /// portable memory leave when they are not (the interpreter raises the
    /// unaligned-access event); host-mapped, also when `addr` lies beyond
    /// the guest space, by a trap the fault handler turns into the same
    /// exit (see [`super::fault`]).
    fn check_access(&mut self, addr: Value, mask: u64, i: usize, rest: usize) {
        if self.region.cfg.direct {
            let bad = self
                .b
                .ins()
                .band_imm_s(addr, (!(GUEST_SPACE - 1) | mask) as i64);
            self.b.ins().trapnz(bad, TrapCode::unwrap_user(TRAP_CHECK));
            return;
        }
        self.check_align(addr, mask, i, rest);
    }

    /// Leave before the access when `addr & mask != 0` (the interpreter
    /// raises the unaligned-access event).
    fn check_align(&mut self, addr: Value, mask: u64, i: usize, rest: usize) {
        if mask == 0 {
            return;
        }
        let low = self.b.ins().band_imm_s(addr, mask as i64);
        let ok = self.b.create_block();
        let out = self.exit_to(Pc::Const(self.pc(i)), rest, Exit::Memory);
        self.b.ins().brif(low, out, &[], ok, &[]);
        self.b.switch_to_block(ok);
    }

    /// Compare the table tag of `addr`'s page; returns (hit, miss, join)
    /// blocks with the builder left at the end of the current block.
    fn lookup(&mut self, addr: Value, write: bool) -> (Block, Block, Block, Value) {
        let pn = self.b.ins().ushr_imm_s(addr, PAGE_SHIFT as i64);
        let slot = self.b.ins().band_imm_s(pn, (JIT_TLB_SIZE - 1) as i64);
        let off = self.b.ins().ishl_imm_s(slot, 3);
        let entry = self.b.ins().iadd(self.tlb, off);
        let tag_off = if write {
            offset_of!(JitTlb, wtag)
        } else {
            offset_of!(JitTlb, rtag)
        };
        let tag = self.b.ins().load(I64, trusted(), entry, tag_off as i32);
        let same = self.b.ins().icmp(IntCC::Equal, tag, pn);
        let hit = self.b.create_block();
        let miss = self.b.create_block();
        let join = self.b.create_block();
        self.b.ins().brif(same, hit, &[], miss, &[]);
        (hit, miss, join, entry)
    }

    /// Host address of `addr` once its table `entry` is known to match.
    fn host_address(&mut self, addr: Value, entry: Value, write: bool) -> Value {
        let ptr_off = if write {
            offset_of!(JitTlb, wptr)
        } else {
            offset_of!(JitTlb, rptr)
        };
        let page = self.b.ins().load(I64, trusted(), entry, ptr_off as i32);
        let in_page = self.b.ins().band_imm_s(addr, (PAGE_SIZE - 1) as i64);
        self.b.ins().iadd(page, in_page)
    }

    fn load_sig(&mut self) -> cranelift_codegen::ir::SigRef {
        if let Some(s) = self.load_sig {
            return s;
        }
        let mut sig = Signature::new(self.b.func.signature.call_conv);
        sig.params.push(AbiParam::new(I64));
        sig.params.push(AbiParam::new(I64));
        sig.returns.push(AbiParam::new(I64));
        let s = self.b.import_signature(sig);
        self.load_sig = Some(s);
        s
    }

    fn store_sig(&mut self) -> cranelift_codegen::ir::SigRef {
        if let Some(s) = self.store_sig {
            return s;
        }
        let mut sig = Signature::new(self.b.func.signature.call_conv);
        for _ in 0..3 {
            sig.params.push(AbiParam::new(I64));
        }
        let s = self.b.import_signature(sig);
        self.store_sig = Some(s);
        s
    }
}

/// Sign bit, smallest normal and infinity of T bits.
const T_SIGN: u64 = 1 << 63;
const T_MIN_NORMAL: u64 = 0x0010_0000_0000_0000;
const T_INF: u64 = 0x7ff0_0000_0000_0000;
/// 2^63 as T bits: CVTTQ of a smaller magnitude cannot overflow.
const T_TWO_63: u64 = 0x43e0_0000_0000_0000;
/// CMPTxx true (2.0).
const T_TRUE: u64 = 0x4000_0000_0000_0000;

/// Does the region compile `op` as a floating-point instruction (FP
/// registers in variables)?
pub(crate) fn is_fp(op: Op) -> bool {
    use Op::*;
    is_fbranch(op)
        || matches!(op, Ldt | Lds | Ldg | Ldf | Stt | Sts | Stg | Stf)
        || crate::fp::is_fp_operate(op)
}

/// What the in-line IEEE path computes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FOp {
    Add,
    Sub,
    Mul,
    Div,
    Cmp(FloatCC),
    Cmpun,
    Cvtqt,
    Cvttq,
    Sqrt,
    Cvtts,
    Cvtst,
}

/// Where an IEEE format's magnitudes (sign cleared) start being normal and
/// infinite, and the mask that clears the sign.
#[derive(Clone, Copy)]
struct Geom {
    abs: u64,
    min: u64,
    inf: u64,
}

const T_GEOM: Geom = Geom {
    abs: !T_SIGN,
    min: T_MIN_NORMAL,
    inf: T_INF,
};
const S_GEOM: Geom = Geom {
    abs: 0x7fff_ffff,
    min: 0x0080_0000,
    inf: 0x7f80_0000,
};

/// The rounding an in-line IEEE operate needs: fixed by the instruction,
/// or the FPCR's dynamic field, checked when it runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FRound {
    Fixed(Rounding),
    Dynamic,
}

impl<'a> Emitter<'a> {
    /// Floating register `r` (F31 reads as zero).
    fn fget(&mut self, r: u8) -> Value {
        match self.fvars[(r & 31) as usize] {
            Some(v) => self.b.use_var(v),
            None => self.b.ins().iconst(I64, 0),
        }
    }

    /// Write floating register `r`, to its variable and to `cpu.f` at once
    /// (like [`Emitter::set`]); writes to F31 are dropped.
    fn fset(&mut self, r: u8, v: Value) {
        let r = (r & 31) as usize;
        if let Some(var) = self.fvars[r] {
            self.b.def_var(var, v);
            self.b.ins().store(trusted(), v, self.fregs, (r * 8) as i32);
        }
    }

    /// Read floating register `r` back from `cpu.f` (after a helper).
    fn freload(&mut self, r: u8) {
        let r = (r & 31) as usize;
        if let Some(var) = self.fvars[r] {
            let v = self
                .b
                .ins()
                .load(I64, trusted(), self.fregs, (r * 8) as i32);
            self.b.def_var(var, v);
        }
    }

    /// [`FCond::holds`] on register bits `x` (sign and magnitude).
    fn fcond(&mut self, c: FCond, x: Value) -> Value {
        let ins = self.b.ins();
        match c {
            FCond::Eq | FCond::Ne => {
                let m = ins.ishl_imm_s(x, 1);
                let cc = if c == FCond::Eq {
                    IntCC::Equal
                } else {
                    IntCC::NotEqual
                };
                self.b.ins().icmp_imm_s(cc, m, 0)
            }
            // Negative and not zero: above the bits of -0.
            FCond::Lt => ins.icmp_imm_s(IntCC::UnsignedGreaterThan, x, T_SIGN as i64),
            FCond::Ge => ins.icmp_imm_s(IntCC::UnsignedLessThanOrEqual, x, T_SIGN as i64),
            // Positive and not zero: a positive signed quadword.
            FCond::Gt => ins.icmp_imm_s(IntCC::SignedGreaterThan, x, 0),
            FCond::Le => ins.icmp_imm_s(IntCC::SignedLessThanOrEqual, x, 0),
        }
    }

    /// Is `|x|` (T bits, sign cleared) in `lo..hi`?
    fn in_range(&mut self, abs: Value, lo: u64, hi: u64) -> Value {
        let t = self.b.ins().iadd_imm_s(abs, lo.wrapping_neg() as i64);
        self.b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, t, (hi - lo) as i64)
    }

    fn abs_bits(&mut self, x: Value) -> Value {
        self.b.ins().band_imm_s(x, !T_SIGN as i64)
    }

    fn is_zero(&mut self, abs: Value) -> Value {
        self.b.ins().icmp_imm_s(IntCC::Equal, abs, 0)
    }

    fn as_f64(&mut self, x: Value) -> Value {
        self.b.ins().bitcast(F64, MemFlags::new(), x)
    }

    /// Format bits `x` (S bits zero-extended when `single`) as a float.
    fn as_float(&mut self, x: Value, single: bool) -> Value {
        if single {
            let w = self.b.ins().ireduce(I32, x);
            self.b.ins().bitcast(F32, MemFlags::new(), w)
        } else {
            self.as_f64(x)
        }
    }

    /// The format bits of float `r` (zero-extended for S).
    fn float_bits(&mut self, r: Value, single: bool) -> Value {
        if single {
            let w = self.b.ins().bitcast(I32, MemFlags::new(), r);
            self.b.ins().uextend(I64, w)
        } else {
            self.as_bits(r)
        }
    }

    fn as_bits(&mut self, x: Value) -> Value {
        self.b.ins().bitcast(I64, MemFlags::new(), x)
    }

    /// LDS's register image of the S_floating longword `m` (zero-extended),
    /// as [`crate::fp::lds_to_reg`] builds it.
    fn lds_to_reg(&mut self, m: Value) -> Value {
        let sign = self.b.ins().ushr_imm_s(m, 31);
        let sign = self.b.ins().ishl_imm_s(sign, 63);
        let e8 = self.b.ins().ushr_imm_s(m, 23);
        let e8 = self.b.ins().band_imm_s(e8, 0xff);
        // 0 stays 0, 0xff becomes 0x7ff, others e - 127 + 1023.
        let biased = self.b.ins().iadd_imm_s(e8, 1023 - 127);
        let zero = self.konst(0);
        let inf = self.konst(0x7ff);
        let is0 = self.b.ins().icmp_imm_s(IntCC::Equal, e8, 0);
        let is_max = self.b.ins().icmp_imm_s(IntCC::Equal, e8, 0xff);
        let e = self.b.ins().select(is_max, inf, biased);
        let e = self.b.ins().select(is0, zero, e);
        let e = self.b.ins().ishl_imm_s(e, 52);
        let frac = self.b.ins().band_imm_s(m, 0x7f_ffff);
        let frac = self.b.ins().ishl_imm_s(frac, 29);
        let v = self.b.ins().bor(sign, e);
        self.b.ins().bor(v, frac)
    }

    /// STS's longword of register image `r` ([`crate::fp::sts_from_reg`]).
    fn sts_from_reg(&mut self, r: Value) -> Value {
        let hi = self.b.ins().ushr_imm_s(r, 32);
        let hi = self.b.ins().band_imm_s(hi, 0xc000_0000);
        let lo = self.b.ins().ushr_imm_s(r, 29);
        let lo = self.b.ins().band_imm_s(lo, 0x3fff_ffff);
        self.b.ins().bor(hi, lo)
    }

    /// A floating-point instruction compiled in line, exactly as
    /// `exec::float::execute` computes it; `false` when `u` has no in-line
    /// form (the caller emits the helper call).
    fn fp_inline(&mut self, u: &Uop, i: usize, rest: usize) -> bool {
        use Op::*;
        let insn = u.insn;
        let (ra, rb, rc) = (insn.ra & 31, insn.rb & 31, insn.rc & 31);
        match insn.op {
            Ldt | Lds => {
                let size = if insn.op == Ldt { 8 } else { 4 };
                let base = self.get(rb);
                let addr = self.b.ins().iadd_imm_s(base, insn.disp as i64);
                self.check_access(addr, size as u64 - 1, i, rest);
                let raw = self.load_value(addr, size, i, rest);
                let v = if insn.op == Ldt {
                    raw
                } else {
                    self.lds_to_reg(raw)
                };
                self.fset(ra, v);
            }
            Stt | Sts => {
                let size = if insn.op == Stt { 8 } else { 4 };
                let base = self.get(rb);
                let addr = self.b.ins().iadd_imm_s(base, insn.disp as i64);
                self.check_access(addr, size as u64 - 1, i, rest);
                let fa = self.fget(ra);
                let v = if insn.op == Stt {
                    fa
                } else {
                    self.sts_from_reg(fa)
                };
                self.store_value(addr, size, v, i, rest);
            }
            Cpys | Cpysn | Cpyse => {
                let fa = self.fget(ra);
                let fb = self.fget(rb);
                let keep: u64 = if insn.op == Cpyse {
                    0xfff0_0000_0000_0000
                } else {
                    T_SIGN
                };
                let fa = if insn.op == Cpysn {
                    self.b.ins().bnot(fa)
                } else {
                    fa
                };
                let hi = self.b.ins().band_imm_s(fa, keep as i64);
                let lo = self.b.ins().band_imm_s(fb, !keep as i64);
                let v = self.b.ins().bor(hi, lo);
                self.fset(rc, v);
            }
            Fcmoveq | Fcmovne | Fcmovlt | Fcmovge | Fcmovle | Fcmovgt => {
                let c = FCond::of(insn.op).expect("an FCMOV");
                let fa = self.fget(ra);
                let cond = self.fcond(c, fa);
                let fb = self.fget(rb);
                let old = self.fget(rc);
                let v = self.b.ins().select(cond, fb, old);
                self.fset(rc, v);
            }
            // The FIX moves (without FIX the interpreter raises OPCDEC).
            Itoft | Itofs | Ftoit | Ftois if self.region.cfg.fix => match insn.op {
                Itoft => {
                    let v = self.get(ra);
                    self.fset(rc, v);
                }
                Itofs => {
                    let v = self.get(ra);
                    let v = self.b.ins().band_imm_s(v, 0xffff_ffff);
                    let v = self.lds_to_reg(v);
                    self.fset(rc, v);
                }
                Ftoit => {
                    let v = self.fget(ra);
                    self.set(rc as usize, v);
                }
                _ => {
                    let v = self.fget(ra);
                    let v = self.sts_from_reg(v);
                    let v = self.sext32(v);
                    self.set(rc as usize, v);
                }
            },
            // SQRTT is FIX (without it the interpreter raises OPCDEC).
            Sqrtt if !self.region.cfg.fix => return false,
            Addt | Subt | Mult | Divt | Adds | Subs | Muls | Divs | Cmpteq | Cmptlt | Cmptle
            | Cmptun | Cvtqt | Cvttq | Sqrtt | Cvtts | Cvtst => {
                return self.ieee_inline(u, i, rest);
            }
            _ => return false,
        }
        true
    }

    /// An IEEE operate in line where host `f64`/`f32` arithmetic provably
    /// gives the interpreter's result and leaves the FPCR as it does;
    /// every other case (checked when it runs) calls [`generic`]. Compiled:
    /// ADDx/SUBx/MULx/DIVx in S and T, CMPTxx, CVTQT, CVTTQ, SQRTT (with
    /// FIX), CVTTS, CVTST.
    ///
    /// Decided statically: no `/I` (so inexact is neither recorded nor
    /// trapped; compares and CVTST never raise it), and round to nearest
    /// (fixed, or `/D` with the FPCR's DYN field checked for nearest when
    /// it runs; CVTTQ also `/C`). Checked when it runs: operands zero or
    /// normal (compares: not NaN or denormal, infinities are ordered; S
    /// operands judged on their S bits, as the interpreter does), results
    /// normal and above the smallest normal (so neither overflow nor
    /// underflow is possible; a zero only where it is exact: a sum, or a
    /// product or quotient of a zero), divisors not zero, square roots of
    /// +0 or positive values, CVTTQ operands below 2^63. Then the
    /// exceptions are at most inexact, which without `/I` the interpreter
    /// neither records nor reports, so the FPCR stays as it is, and the
    /// value is the correctly rounded host result, which is the
    /// interpreter's (a zero or normal S value's register image is its
    /// value as T bits).
    fn ieee_inline(&mut self, u: &Uop, i: usize, rest: usize) -> bool {
        use Op::*;
        let insn = u.insn;
        let q = Qual::of(insn.op, insn.func);
        let single = matches!(insn.op, Adds | Subs | Muls | Divs);
        let op = match insn.op {
            Addt | Adds => FOp::Add,
            Subt | Subs => FOp::Sub,
            Mult | Muls => FOp::Mul,
            Divt | Divs => FOp::Div,
            Cmpteq => FOp::Cmp(FloatCC::Equal),
            Cmptlt => FOp::Cmp(FloatCC::LessThan),
            Cmptle => FOp::Cmp(FloatCC::LessThanOrEqual),
            Cmptun => FOp::Cmpun,
            Cvtqt => FOp::Cvtqt,
            Sqrtt => FOp::Sqrt,
            Cvtts => FOp::Cvtts,
            Cvtst => FOp::Cvtst,
            _ => FOp::Cvttq,
        };
        // Exact whatever the rounding, raising nothing on the operands
        // accepted: qualifiers do not matter.
        let exact = matches!(op, FOp::Cmp(_) | FOp::Cmpun | FOp::Cvtst);
        if q.inexact && !exact {
            return false;
        }
        let round = match q.round {
            _ if exact => FRound::Fixed(Rounding::Normal),
            RoundQual::Normal => FRound::Fixed(Rounding::Normal),
            RoundQual::Chopped if op == FOp::Cvttq => FRound::Fixed(Rounding::Chopped),
            RoundQual::Dynamic => FRound::Dynamic,
            _ => return false,
        };
        let (ra, rb, rc) = (insn.ra & 31, insn.rb & 31, insn.rc & 31);
        let a = self.fget(ra);
        let b = self.fget(rb);
        let (value, ok) = match op {
            FOp::Add | FOp::Sub | FOp::Mul | FOp::Div => {
                // S operands are the S bits of the register images.
                let (g, a, b) = if single {
                    let sa = self.sts_from_reg(a);
                    let sb = self.sts_from_reg(b);
                    (S_GEOM, sa, sb)
                } else {
                    (T_GEOM, a, b)
                };
                let aa = self.b.ins().band_imm_s(a, g.abs as i64);
                let ab = self.b.ins().band_imm_s(b, g.abs as i64);
                let (za, zb) = (self.is_zero(aa), self.is_zero(ab));
                let na = self.in_range(aa, g.min, g.inf);
                let nb = self.in_range(ab, g.min, g.inf);
                let pa = self.b.ins().bor(za, na);
                let pb = self.b.ins().bor(zb, nb);
                let plain = self.b.ins().band(pa, pb);
                let (x, y) = (self.as_float(a, single), self.as_float(b, single));
                let r = match op {
                    FOp::Add => self.b.ins().fadd(x, y),
                    FOp::Sub => self.b.ins().fsub(x, y),
                    FOp::Mul => self.b.ins().fmul(x, y),
                    _ => self.b.ins().fdiv(x, y),
                };
                let bits = self.float_bits(r, single);
                let ar = self.b.ins().band_imm_s(bits, g.abs as i64);
                let normal = self.in_range(ar, g.min + 1, g.inf);
                let fine = match op {
                    // A zero sum is exact.
                    FOp::Add | FOp::Sub => {
                        let zr = self.is_zero(ar);
                        self.b.ins().bor(normal, zr)
                    }
                    FOp::Mul => {
                        let z = self.b.ins().bor(za, zb);
                        self.b.ins().bor(normal, z)
                    }
                    _ => {
                        let f = self.b.ins().bor(normal, za);
                        self.b.ins().band_not(f, zb)
                    }
                };
                // A zero or normal S value's register image is its T bits.
                let value = if single {
                    let w = self.b.ins().fpromote(F64, r);
                    self.as_bits(w)
                } else {
                    bits
                };
                (value, self.b.ins().band(plain, fine))
            }
            FOp::Sqrt => {
                // Zero or normal and the sign clear (-0 declined): the
                // root is +0 or normal.
                let ab = self.abs_bits(b);
                let zb = self.is_zero(ab);
                let nb = self.in_range(ab, T_MIN_NORMAL, T_INF);
                let plain = self.b.ins().bor(zb, nb);
                let pos = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, b, 0);
                let ok = self.b.ins().band(plain, pos);
                let x = self.as_f64(b);
                let r = self.b.ins().sqrt(x);
                (self.as_bits(r), ok)
            }
            FOp::Cvtts => {
                let ab = self.abs_bits(b);
                let zb = self.is_zero(ab);
                let nb = self.in_range(ab, T_MIN_NORMAL, T_INF);
                let x = self.as_f64(b);
                let r = self.b.ins().fdemote(F32, x);
                let bits = self.float_bits(r, true);
                let ar = self.b.ins().band_imm_s(bits, S_GEOM.abs as i64);
                let normal = self.in_range(ar, S_GEOM.min + 1, S_GEOM.inf);
                // A normal operand with a normal result, or a zero.
                let fine = self.b.ins().band(nb, normal);
                let ok = self.b.ins().bor(fine, zb);
                let w = self.b.ins().fpromote(F64, r);
                (self.as_bits(w), ok)
            }
            FOp::Cvtst => {
                // Exact for zero and normal S operands.
                let sb = self.sts_from_reg(b);
                let ab = self.b.ins().band_imm_s(sb, S_GEOM.abs as i64);
                let zb = self.is_zero(ab);
                let nb = self.in_range(ab, S_GEOM.min, S_GEOM.inf);
                let ok = self.b.ins().bor(zb, nb);
                let x = self.as_float(sb, true);
                let w = self.b.ins().fpromote(F64, x);
                (self.as_bits(w), ok)
            }
            FOp::Cmp(_) | FOp::Cmpun => {
                // Not NaN, not denormal: the compare raises nothing.
                let (aa, ab) = (self.abs_bits(a), self.abs_bits(b));
                let (za, zb) = (self.is_zero(aa), self.is_zero(ab));
                let na = self.in_range(aa, T_MIN_NORMAL, T_INF + 1);
                let nb = self.in_range(ab, T_MIN_NORMAL, T_INF + 1);
                let pa = self.b.ins().bor(za, na);
                let pb = self.b.ins().bor(zb, nb);
                let ok = self.b.ins().band(pa, pb);
                let v = match op {
                    FOp::Cmp(cc) => {
                        let (x, y) = (self.as_f64(a), self.as_f64(b));
                        let c = self.b.ins().fcmp(cc, x, y);
                        let t = self.konst(T_TRUE);
                        let f = self.konst(0);
                        self.b.ins().select(c, t, f)
                    }
                    _ => self.konst(0), // ordered
                };
                (v, ok)
            }
            FOp::Cvtqt => {
                let r = self.b.ins().fcvt_from_sint(F64, b);
                let r = self.as_bits(r);
                let ok = self.b.ins().iconst(I8, 1);
                (r, ok)
            }
            FOp::Cvttq => {
                let ab = self.abs_bits(b);
                let zb = self.is_zero(ab);
                let nb = self.in_range(ab, T_MIN_NORMAL, T_TWO_63);
                let ok = self.b.ins().bor(zb, nb);
                let x = self.as_f64(b);
                let x = if round == FRound::Fixed(Rounding::Chopped) {
                    x
                } else {
                    self.b.ins().nearest(x)
                };
                let r = self.b.ins().fcvt_to_sint_sat(I64, x);
                (r, ok)
            }
        };
        let ok = if round == FRound::Dynamic {
            let fpcr = self
                .b
                .ins()
                .load(I64, trusted(), self.cpu, offset_of!(Cpu, fpcr) as i32);
            let dynr = self.b.ins().band_imm_s(fpcr, FPCR_DYN_MASK as i64);
            let nearest = self
                .b
                .ins()
                .icmp_imm_s(IntCC::Equal, dynr, FPCR_DYN_NORMAL as i64);
            self.b.ins().band(ok, nearest)
        } else {
            ok
        };
        // Slow: the interpreter's function, then its result.
        let slow = self.b.create_block();
        let join = self.b.create_block();
        let res = self.b.append_block_param(join, I64);
        self.b.set_cold_block(slow);
        self.b
            .ins()
            .brif(ok, join, &[BlockArg::Value(value)], slow, &[]);
        self.b.switch_to_block(slow);
        self.call_generic(u, i, rest);
        let v = self
            .b
            .ins()
            .load(I64, trusted(), self.fregs, (rc as usize * 8) as i32);
        self.b.ins().jump(join, &[BlockArg::Value(v)]);
        self.b.switch_to_block(join);
        self.fset(rc, res);
        true
    }
}

/// Bytes moved by a load or store micro-op (the interpreter's own table,
/// `exec::mem::shape`, which knows every kind the emitter compiles).
fn access_size(u: &Uop) -> u8 {
    mem::shape(u.insn.op).map_or(8, |(n, _)| n)
}

/// Address of the slow-path helper for a `size`-byte load or store.
fn slow_path(size: u8, store: bool) -> u64 {
    let f = match (size, store) {
        (8, false) => load_slow::<8> as *const (),
        (4, false) => load_slow::<4> as *const (),
        (2, false) => load_slow::<2> as *const (),
        (_, false) => load_slow::<1> as *const (),
        (8, true) => store_slow::<8> as *const (),
        (4, true) => store_slow::<4> as *const (),
        (2, true) => store_slow::<2> as *const (),
        (_, true) => store_slow::<1> as *const (),
    };
    f as u64
}

/// Value mask of the B/W/L/Q forms of EXT/INS/MSK.
fn width_mask(k: K) -> u64 {
    use K::*;
    match k {
        ExtblR | ExtblL | InsblR | InsblL | MskblR | MskblL => 0xff,
        ExtwlR | ExtwlL | ExtwhR | ExtwhL | InswlR | InswlL | InswhR | InswhL | MskwlR | MskwlL
        | MskwhR | MskwhL => 0xffff,
        ExtllR | ExtllL | ExtlhR | ExtlhL | InsllR | InsllL | InslhR | InslhL | MskllR | MskllL
        | MsklhR | MsklhL => 0xffff_ffff,
        _ => u64::MAX,
    }
}

/// Byte i all ones where bit i of `m` is set.
fn byte_mask(m: u64) -> u64 {
    (0..8)
        .filter(|i| m & (1 << i) != 0)
        .fold(0, |acc, i| acc | (0xff << (8 * i)))
}

/// Multiplier that gathers bit 8i of a word into bit 56+i (bits
/// 7, 14, …, 56: the partial products land on distinct bits).
const GATHER: u64 = {
    let mut m = 0u64;
    let mut j = 1;
    while j <= 8 {
        m |= 1 << (7 * j);
        j += 1;
    }
    m
};

/// CMPBGE as the compiled code computes it: per byte, compare the low seven
/// bits by a borrow-free subtraction, then decide by the high bits; gather
/// the eight verdicts with one multiply. Tested against the reference.
pub fn cmpbge_swar(a: u64, b: u64) -> u64 {
    const H: u64 = 0x8080_8080_8080_8080;
    let d = (a | H).wrapping_sub(b & !H);
    let ge = ((a & !b) | (!(a ^ b) & d)) & H;
    ((ge >> 7).wrapping_mul(GATHER)) >> 56
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmpbge_without_a_loop_matches_the_reference() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let special = [
            0u64,
            u64::MAX,
            0x8080_8080_8080_8080,
            0x7f7f_7f7f_7f7f_7f7f,
            1,
        ];
        for &a in &special {
            for &b in &special {
                assert_eq!(cmpbge_swar(a, b), bytes::cmpbge(a, b), "{a:x} {b:x}");
            }
        }
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let a = x;
            let b = x.rotate_left(29) ^ (x >> 3);
            // Make equal bytes common too.
            let b2 = (a & 0x00ff_00ff_00ff_00ff) | (b & 0xff00_ff00_ff00_ff00);
            assert_eq!(cmpbge_swar(a, b), bytes::cmpbge(a, b));
            assert_eq!(cmpbge_swar(a, b2), bytes::cmpbge(a, b2));
        }
    }

    #[test]
    fn literal_byte_masks_match_zapnot() {
        for m in 0..256u64 {
            assert_eq!(byte_mask(m), bytes::zapnot(u64::MAX, m), "{m:x}");
        }
    }
}
