//! coreutils' warnings after a manifest, worded by the library.

use hashlab_integrity::Summary;

use crate::cli::CheckArgs;

/// coreutils' warnings after a manifest: lines it could not read, files
/// it could not read, digests that did not match, nothing verified.
pub(super) fn warnings(args: &CheckArgs, shown: &str, summary: &Summary) {
    for problem in summary.problems() {
        errln!("hashlab: WARNING: {}", problem.words());
    }
    if args.ignore_missing && summary.matched == 0 {
        errln!("hashlab: {shown}: no file was verified");
    }
}
