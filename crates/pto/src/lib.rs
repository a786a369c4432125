//! PTO tile ISA: executable model of TLOAD/TSTORE (ADR 0074).
