//! RFC 4180 CSV with a header row.

use crate::failure::Failure;

pub fn render(headers: &[&str], rows: &[Vec<String>]) -> Result<Vec<u8>, Failure> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let fail = |e: csv::Error| Failure::Runtime(format!("writing CSV: {e}"));
    writer.write_record(headers).map_err(fail)?;
    for row in rows {
        writer.write_record(row).map_err(fail)?;
    }
    writer
        .into_inner()
        .map_err(|e| Failure::Runtime(format!("writing CSV: {e}")))
}
