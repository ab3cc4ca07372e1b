pub mod bench;
pub mod check;
pub mod cpu;
pub mod list;
pub mod sum;
