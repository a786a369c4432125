//! The one description of the command and tile forms on the TLOAD/TSTORE
//! path: fields, fixed bits, reserved values. Decoder, disassembler and
//! assembler all read this table.
//!
//! Source: `spec/catalog/command-forms.json` and `tile-operations.json` of
//! PTO-ISA/pto-spec.
