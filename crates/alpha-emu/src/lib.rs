//! Alpha AXP machine: state, memory, interpreter, loader and OS personalities.

pub mod fp;
