//! One module per chart. Each takes the data the page's table beside it is
//! built from and returns a `Chart`; every mark carries its exact value in
//! `data-` attributes and a `<title>` a person can read.

pub mod backends;
pub mod bars;
pub mod boxes;
pub mod scaling;
pub mod size;

/// The key that ties a chart mark to its table cell (`data-key` on both):
/// `metric:input:algorithm:backend:size`.
pub fn key(metric: &str, input: &str, algorithm: &str, backend: &str, size: usize) -> String {
    format!("{metric}:{input}:{algorithm}:{backend}:{size}")
}
