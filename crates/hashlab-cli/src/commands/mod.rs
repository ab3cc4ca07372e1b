pub mod list;
pub mod sum;
