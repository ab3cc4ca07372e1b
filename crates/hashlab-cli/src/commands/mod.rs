pub mod bench;
pub mod cpu;
pub mod list;
pub mod sum;
