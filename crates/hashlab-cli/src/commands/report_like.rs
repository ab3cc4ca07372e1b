//! `hashlab report LIKE.json`: a `bench --like` report is a page of its own
//! (the shape's histogram and the projected time per algorithm), made in
//! hashlab-report; bench results go on the usual page.

use std::path::{Path, PathBuf};

use hashlab_bench::like::LikeReport;
use hashlab_report::parse_like;

use crate::failure::Failure;

/// The like report among `paths`, if one is: it is shown alone, so another
/// input beside it, or `--chart`, is a usage error naming the file.
pub fn like_input(paths: &[PathBuf], chart: bool) -> Result<Option<LikeReport>, Failure> {
    let mut found = None;
    for path in paths {
        if let Some(report) = read_like(path)? {
            found = Some((path, report));
            break;
        }
    }
    let Some((path, report)) = found else {
        return Ok(None);
    };
    if paths.len() > 1 {
        return Err(Failure::Usage(format!(
            "{}: a bench --like report is shown alone, and {} other inputs were given",
            path.display(),
            paths.len() - 1
        )));
    }
    if chart {
        return Err(Failure::Usage(format!(
            "{}: --chart draws bench results; a bench --like report is a whole page (leave --chart out)",
            path.display()
        )));
    }
    Ok(Some(report))
}

fn read_like(path: &Path) -> Result<Option<LikeReport>, Failure> {
    let bytes = hashlab_integrity::bounded::read_json(path)
        .map_err(|e| Failure::Runtime(format!("{}: {e}", path.display())))?;
    parse_like(&bytes).map_err(|e| Failure::Runtime(format!("{}: {e}", path.display())))
}
