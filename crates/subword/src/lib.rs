//! The parts of the `subword` front end that are plain functions of their
//! input — bounded file reading and message escaping ([`files`]), number,
//! size and hex-word arguments ([`numarg`]) — kept in a library so the fuzz
//! harnesses (`tests/fuzz_targets.rs`) call exactly what the commands call.

pub mod files;
pub mod numarg;
