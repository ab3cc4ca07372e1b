pub mod audit;
pub mod bench;
pub mod check;
pub mod cpu;
pub mod docs;
pub mod list;
pub mod quality;
pub mod sum;
