//! Alpha AXP instruction set: the one instruction table and its readers.
