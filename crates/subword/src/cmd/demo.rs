//! `subword demo`: the built-in tour.

use crate::CmdResult;

pub fn run() -> CmdResult {
    super::not_built("demo")
}
