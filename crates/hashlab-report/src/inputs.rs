//! The files a report is made of, read through the caller's `read` (this
//! crate opens no file): bench results, each checked and labelled, or a
//! `bench --like` report, which is a page of its own. Every error is one
//! line naming the file.

use std::path::{Path, PathBuf};

use hashlab_bench::comparison::labels;
use hashlab_bench::like::LikeReport;
use hashlab_bench::usable::check_usable;

use crate::{parse_like, parse_results, Input};

/// The bench results at `paths`, in order, each labelled by its file name
/// (its path where two share a name) and checked usable.
pub fn read_inputs(
    paths: &[PathBuf],
    read: impl Fn(&Path) -> Result<Vec<u8>, String>,
) -> Result<Vec<Input>, String> {
    paths
        .iter()
        .zip(labels(paths, &[]))
        .map(|(path, label)| {
            let named = |e: String| format!("{}: {e}", path.display());
            let report = parse_results(&read(path).map_err(named)?).map_err(named)?;
            check_usable(&report).map_err(|e| named(e.to_string()))?;
            Ok(Input { label, report })
        })
        .collect()
}

/// The first of `paths` that is a `bench --like` report, with its path.
pub fn like_among(
    paths: &[PathBuf],
    read: impl Fn(&Path) -> Result<Vec<u8>, String>,
) -> Result<Option<(&Path, LikeReport)>, String> {
    for path in paths {
        let named = |e: String| format!("{}: {e}", path.display());
        if let Some(report) = parse_like(&read(path).map_err(named)?).map_err(named)? {
            return Ok(Some((path, report)));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_is_named_in_its_error() {
        let paths = vec![PathBuf::from("dir/a.json")];
        let unreadable = |_: &Path| Err("No such file or directory".to_string());
        assert_eq!(
            read_inputs(&paths, unreadable).map(|_| ()).unwrap_err(),
            "dir/a.json: No such file or directory"
        );
        let not_json = |_: &Path| Ok(b"[1".to_vec());
        assert!(read_inputs(&paths, not_json)
            .map(|_| ())
            .unwrap_err()
            .starts_with("dir/a.json: not valid JSON"));
        let results = |_: &Path| Ok(br#"{"schema_version": 1}"#.to_vec());
        assert_eq!(like_among(&paths, results).unwrap().map(|(p, _)| p), None);
    }
}
