use super::*;

#[cfg(test)]
mod clear_tests {
    use super::*;

    /// A bundle with every member changed clears to exactly `Bundle::default()`.
    #[test]
    fn clear_leaves_the_default_bundle() {
        let mut b = Bundle {
            active: true,
            body_active: true,
            op: Operation {
                valid: true,
                tepl: true,
                function: 1,
                data_type: 3,
            },
            datr: DataAttributes {
                present: true,
                layout: 4,
                ..DataAttributes::default()
            },
            dims: [1, 2, 3],
            dim_present: [true; 3],
            tile_bindings: [TileBinding {
                valid: true,
                last: true,
                pe_mask: 8,
                ..TileBinding::default()
            }; PTO_BUNDLE_TILE_BINDING_COUNT],
            shared_bindings: [SharedBinding {
                valid: true,
                shared_id: 5,
                ..SharedBinding::default()
            }; 4],
            scalar: ScalarBinding {
                valid: true,
                source0: 2,
                ..ScalarBinding::default()
            },
            zero_participation_seen: true,
            hint: HintState {
                present: true,
                temperature: 2,
                ..HintState::default()
            },
            catr: ControlAttributes {
                present: true,
                acquire: true,
                ..ControlAttributes::default()
            },
        };
        assert_ne!(b, Bundle::default());
        b.clear();
        assert_eq!(b, Bundle::default());
    }
}

#[cfg(test)]
mod tepl_tests {
    use super::*;

    fn machine() -> Machine {
        Machine::new(4096)
    }

    /// Runs each assembled statement; the outcome of the last.
    fn run(m: &mut Machine, text: &str) -> CommandExecution {
        let mut last = CommandExecution::Executed;
        for w in crate::asm::assemble(text).expect("assembles") {
            last = m.execute_command_instruction(w);
        }
        last
    }

    fn op(name: &str) -> TeplOperation {
        TeplOperation::from_name(name).unwrap()
    }

    #[test]
    fn tepl_start_installs_the_element_wise_selector() {
        let mut m = machine();
        assert_eq!(
            run(&mut m, "BSTART.TEPL TQUANT, U64"),
            CommandExecution::Executed
        );
        let o = m.bundle_state().op;
        assert!(o.valid && o.tepl);
        assert_eq!(o.function, 0x06a);
    }

    #[test]
    fn reserved_tepl_selector_is_illegal_before_the_open_bundle_commits() {
        let mut m = machine();
        run(&mut m, "BSTART.TLOAD U64");
        // 0x005 is a reserved TEPL selector.
        assert_eq!(
            run(&mut m, "BSTART.TEPL 0, 5, U64"),
            CommandExecution::Rejected
        );
        assert_eq!(m.last_fault(), Fault::IllegalInstruction);
        let o = m.bundle_state().op;
        assert!(m.bundle_state().active && !o.tepl && o.function == 0);
    }

    #[test]
    fn tepl_bindings_share_one_participant_mask() {
        let mut m = machine();
        run(&mut m, "BSTART.TEPL TADD, U64; B.IOT T#1, mask=1100");
        assert_eq!(
            run(&mut m, "B.IOT T#2, mask=1111, last"),
            CommandExecution::Rejected
        );
        assert_eq!(m.last_fault(), Fault::TileLegality);
        assert!(m.bundle_state().tile_bindings[0].valid);
        assert!(!m.bundle_state().tile_bindings[1].valid);
    }

    #[test]
    fn a_second_ior_in_a_tepl_bundle_is_bundle_control() {
        let mut m = machine();
        run(&mut m, "BSTART.TEPL TADDS, U64; B.IOR a0, zero");
        assert_eq!(run(&mut m, "B.IOR a1, zero"), CommandExecution::Rejected);
        assert_eq!(m.last_fault(), Fault::BundleControl);
        assert_eq!(m.bundle_state().scalar.source0, 2);
    }

    /// TSHL is TEPL selector 9, TMOV.L2S.INSERT's TLSU function number: the
    /// Local-to-Shared source-only rule must not apply to it.
    #[test]
    fn tepl_selector_nine_takes_a_destination() {
        let mut m = machine();
        run(&mut m, "BSTART.TEPL TSHL, U64");
        assert_eq!(
            run(&mut m, "B.IOT T#1, T#2, mask=1111, last, ->T<1>"),
            CommandExecution::Executed
        );
    }

    #[test]
    fn bindings_complete_counts_destinations_sources_and_the_last_binding() {
        let mut m = machine();
        run(
            &mut m,
            "BSTART.TEPL TADDS, U64; B.IOT T#1, mask=1111, last, ->T<1>",
        );
        assert!(m.bundle_operation_bindings_complete(op("TADDS")));
        // TADD wants two sources, TSORT two destinations.
        assert!(!m.bundle_operation_bindings_complete(op("TADD")));
        assert!(!m.bundle_operation_bindings_complete(op("TSORT")));
        let mut open = machine();
        run(
            &mut open,
            "BSTART.TEPL TADDS, U64; B.IOT T#1, mask=1111, ->T<1>",
        );
        assert!(
            !open.bundle_operation_bindings_complete(op("TADDS")),
            "no last binding"
        );
        // A surplus B.IOR source.
        run(&mut m, "B.IOR a0, a1");
        assert!(!m.bundle_operation_bindings_complete(op("TADDS")));
        assert!(m.bundle_operation_bindings_complete(op("TQUANT")));
    }

    #[test]
    fn tepl_commit_with_incomplete_bindings_is_bundle_control() {
        let mut m = machine();
        run(
            &mut m,
            "BSTART.TEPL TADDS, U64; B.IOT mask=1111, last, ->T<1>",
        );
        assert_eq!(run(&mut m, "BSTOP"), CommandExecution::Rejected);
        assert_eq!(m.last_fault(), Fault::BundleControl);
        assert!(m.bundle_state().active, "left open for restart");
    }

    #[test]
    fn tepl_commit_with_a_non_boolean_flag_is_tile_legality() {
        let mut m = machine();
        m.write_pe_gpr(0, 2, 2);
        // TCI: scalar0 from RegSrc0, flag0 from RegSrc1 (a0 = GPR 2 holds 2).
        run(
            &mut m,
            "BSTART.TEPL TCI, S32; B.IOT mask=1111, last, ->T<1>; B.IOR zero, a0",
        );
        assert_eq!(run(&mut m, "BSTOP"), CommandExecution::Rejected);
        assert_eq!(m.last_fault(), Fault::TileLegality);
    }

    #[test]
    fn a_complete_tepl_bundle_stops_at_the_unmodelled_engine() {
        let mut m = machine();
        run(
            &mut m,
            "BSTART.TEPL TCI, S32; B.IOT mask=1111, last, ->T<1>; B.IOR zero, zero",
        );
        assert_eq!(run(&mut m, "BSTOP"), CommandExecution::Rejected);
        assert_eq!(m.last_fault(), Fault::IllegalInstruction);
        assert_eq!(m.tile_allocation_mask(0), 0, "nothing published");
    }

    #[test]
    fn a_zero_mask_tepl_bundle_commits_as_a_no_op() {
        let mut m = machine();
        run(
            &mut m,
            "BSTART.TEPL TADDS, U64; B.IOT mask=0000, last, ->T<1>",
        );
        assert_eq!(run(&mut m, "BSTOP"), CommandExecution::Executed);
        assert!(!m.bundle_state().active);
    }
}
