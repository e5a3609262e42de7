//! criterion benches live in src/cpu.rs
