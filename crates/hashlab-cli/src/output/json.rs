//! Pretty JSON of the full serde structure.

use serde::Serialize;

use crate::failure::Failure;

pub fn render<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, Failure> {
    let mut out = serde_json::to_vec_pretty(value)
        .map_err(|e| Failure::Runtime(format!("writing JSON: {e}")))?;
    out.push(b'\n');
    Ok(out)
}
