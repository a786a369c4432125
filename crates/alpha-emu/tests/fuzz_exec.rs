//! The interpreter never panics on guest input: pages of random instruction
//! words (every opcode, every function code, FP included) with random
//! registers run on every model until an event or the budget; whatever
//! happens must come back as an `Event` value with a consistent state.

use alpha_emu::memory::Perm;
use alpha_emu::{Event, Machine};
use proptest::prelude::*;

const CODE: u64 = 0x10000;
const DATA: u64 = 0x20000;

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn fault_random_words_never_panic_the_interpreter(
        words in proptest::collection::vec(any::<u32>(), 1..64),
        regs in any::<[u64; 8]>(),
        model in 0usize..11,
        fast in any::<bool>(),
    ) {
        let m = &alpha_isa::MODELS[model % alpha_isa::MODELS.len()];
        let mut mach = Machine::new(m, 1, None);
        mach.set_fast_path(fast);
        mach.mem.map_zero(CODE, 0x2000, Perm::RWX).unwrap();
        mach.mem.map_zero(DATA, 0x2000, Perm::RW).unwrap();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        mach.mem.poke(CODE, &bytes).unwrap();
        let c = &mut mach.cpus[0];
        c.pc = CODE;
        for (i, r) in regs.iter().enumerate() {
            // Half the registers point into the data page, so memory ops run.
            c.r[1 + i] = if i % 2 == 0 { DATA + (r & 0x1ff8) } else { *r };
        }
        for _ in 0..20 {
            let before = mach.cpus[0].icount;
            let ev = mach.run(0, 500);
            prop_assert!(mach.cpus[0].icount >= before);
            prop_assert_eq!(mach.cpus[0].r[31], 0);
            prop_assert_eq!(mach.cpus[0].f[31], 0);
            match ev {
                Event::BudgetExhausted | Event::CallPal { .. } | Event::IntegerOverflow { .. }
                | Event::FpArith { .. } => continue,
                _ => break,
            }
        }
    }
}
