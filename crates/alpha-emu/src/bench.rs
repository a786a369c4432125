//! Embedded integer loops for measuring execution speed (`subword alpha
//! bench`). Each is Alpha assembly, assembled at run time by alpha-isa's
//! assembler, run on a bare [`Machine`] (no OS) for a fixed number of
//! guest instructions, interpreted or with the compiling tier.

use crate::memory::Perm;
use crate::{Event, Machine};
use alpha_isa::{Ext, Model};

const CODE: u64 = 0x10000;
const DATA: u64 = 0x200000;
const DATA_LEN: u64 = 0x10000;

/// One benchmark loop.
pub struct Loop {
    pub name: &'static str,
    pub what: &'static str,
    /// Extension the loop needs (it is skipped on models without it).
    pub needs: Ext,
    pub src: &'static str,
}

/// The loops. Each runs forever; the budget stops it. `$16` = data area.
pub const LOOPS: &[Loop] = &[
    Loop {
        name: "int-alu",
        what: "add, xor, shift, scaled add, byte extract/zap, compare, branch",
        needs: Ext::Base,
        src: "
        lda $1, 1($31)
        lda $2, 0x55($31)
    1:  addq $1, $2, $1
        xor $1, $3, $3
        sll $3, 3, $4
        s4addq $4, $1, $5
        extbl $5, $1, $6
        zapnot $5, 0x0f, $7
        cmpult $6, $7, $8
        addq $2, $8, $2
        subq $9, 1, $9
        bne $31, 1b
        br $31, 1b",
    },
    Loop {
        name: "mem-quad",
        what: "LDQ/STQ walking an 8 KiB array",
        needs: Ext::Base,
        src: "
    0:  mov $16, $10
        lda $11, 1024($31)
    1:  ldq $1, 0($10)
        addq $1, $11, $1
        stq $1, 0($10)
        lda $10, 8($10)
        subq $11, 1, $11
        bne $11, 1b
        br $31, 0b",
    },
    Loop {
        name: "byte-copy",
        what: "LDBU/STB copying 4 KiB byte by byte",
        needs: Ext::Bwx,
        src: "
    0:  mov $16, $10
        lda $11, 4096($16)
        lda $12, 4096($31)
    1:  ldbu $1, 0($10)
        stb $1, 0($11)
        addq $10, 1, $10
        addq $11, 1, $11
        subq $12, 1, $12
        bne $12, 1b
        br $31, 0b",
    },
    Loop {
        name: "byte-copy-prebwx",
        what: "the pre-BWX byte copy: LDQ_U/EXTBL load, LDQ_U/INSBL/MSKBL/BIS/STQ_U store",
        needs: Ext::Base,
        src: "
    0:  mov $16, $10
        lda $11, 4096($16)
        lda $12, 4096($31)
    1:  ldq_u $1, 0($10)
        extbl $1, $10, $1
        ldq_u $2, 0($11)
        insbl $1, $11, $3
        mskbl $2, $11, $2
        bis $2, $3, $2
        stq_u $2, 0($11)
        addq $10, 1, $10
        addq $11, 1, $11
        subq $12, 1, $12
        bne $12, 1b
        br $31, 0b",
    },
];

/// The result of one loop.
pub struct Measurement {
    pub insns: u64,
    /// Wall-clock time.
    pub seconds: f64,
    /// Time this thread actually ran (Linux `/proc/thread-self/schedstat`),
    /// which a busy machine disturbs far less than wall-clock time.
    pub cpu_seconds: Option<f64>,
}

impl Measurement {
    /// Instructions per second of CPU time when known, else of wall time.
    pub fn per_second(&self) -> f64 {
        self.insns as f64 / self.cpu_seconds.unwrap_or(self.seconds).max(1e-9)
    }
}

/// Nanoseconds this thread has run on a CPU, where Linux tells.
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Assemble and run `l` on `model` for `insns` guest instructions.
/// `Ok(None)` when the model lacks the extension the loop needs.
pub fn run(
    l: &Loop,
    model: &'static Model,
    insns: u64,
    jit: bool,
) -> Result<Option<Measurement>, String> {
    if !model.has(l.needs) {
        return Ok(None);
    }
    let words = alpha_isa::assemble_words(l.src, CODE).map_err(|e| format!("{}: {e}", l.name))?;
    let mut m = Machine::new(model, 1, None);
    if jit {
        // Compile in this thread, so that its CPU time counts too.
        m.set_jit_background(false);
    } else {
        m.set_jit(None);
    }
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let code_len = (bytes.len() as u64).div_ceil(0x2000) * 0x2000;
    m.mem
        .map_zero(CODE, code_len, Perm::RX)
        .map_err(|e| e.to_string())?;
    m.mem.poke(CODE, &bytes).map_err(|e| e.to_string())?;
    m.mem
        .map_zero(DATA, DATA_LEN, Perm::RW)
        .map_err(|e| e.to_string())?;
    m.cpus[0].pc = CODE;
    m.cpus[0].r[16] = DATA;
    let c0 = thread_cpu_ns();
    let t = std::time::Instant::now();
    let ev = m.run(0, insns);
    let seconds = t.elapsed().as_secs_f64();
    let cpu_seconds = match (c0, thread_cpu_ns()) {
        (Some(a), Some(b)) if b > a => Some((b - a) as f64 / 1e9),
        _ => None,
    };
    if ev != Event::BudgetExhausted {
        return Err(format!("{}: stopped early with {ev:?}", l.name));
    }
    Ok(Some(Measurement {
        insns: m.cpus[0].icount,
        seconds,
        cpu_seconds,
    }))
}
