//! What the page and charts are drawn with besides the results: its own
//! file for the same reason as error.rs.

use hashlab::Registry;

#[derive(Clone, Copy)]
pub struct Options<'a> {
    /// Algorithm metadata: which panel of the size chart an algorithm goes in,
    /// which algorithms are cryptographic.
    pub registry: &'a Registry,
    /// The message size of the bar, box, backend and scaling charts; `None`:
    /// the largest measured.
    pub size: Option<usize>,
}
