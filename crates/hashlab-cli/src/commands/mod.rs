pub mod bench;
pub mod list;
pub mod sum;
