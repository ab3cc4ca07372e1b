pub mod fnv;
