//! File integrity on top of the `hashlab` registry: how files are read, how
//! manifest lines are written so that coreutils, b2sum, b3sum, xxhsum and
//! rhash (SFV) read them, how manifests those tools write are read back and verified,
//! and how known-hash sets (those manifests, NSRL's RDS v3) are held for lookups.
//! Prints nothing; returns data and errors for the caller to present.

pub mod ambiguity;
pub mod audit;
pub mod bounded;
pub mod cancel;
pub mod check;
mod hashed;
pub mod known;
pub mod lines;
pub mod lock;
pub mod manifest;
pub mod many;
#[cfg(unix)]
mod mapped;
pub mod outfile;
#[cfg(unix)]
pub mod pagecache;
pub mod pieces;
pub mod plan;
pub mod read;
pub mod recorded;
pub mod stdin;
pub mod update;
pub mod walk;

pub use ambiguity::{candidates as untagged_candidates, cksum_candidates, Settlement};
pub use audit::{
    audit, audit_with, is_url_name, records_size_or_time, AuditError, AuditReport, AuditScope,
    RemoteHash,
};
pub use audit::{verdict_words, AuditCounts, AuditRow, ManifestAudit, RowStatus};
pub use bounded::{BoundedLines, LineError, TooLong, MAX_LINE_BYTES};
pub use cancel::{is_interrupted, Cancel, Interrupted};
pub use check::{
    algorithm_from_manifest_name, manifest_hint, CheckError, CheckOptions, Checker, LineResult,
    ManifestForm, ManifestHint, Opener, Outcome, Summary, Unsettled,
};
pub use check::{
    manifest_shape, verdict_line, EntryCheckError, EntryChecker, EntryVerdict, ManifestShape,
    ProblemCount,
};
pub use known::{
    load_set, load_set_from, DigestTable, Group, Hit, KnownBuilder, KnownError, KnownHash,
    KnownPlan, KnownSets, Lookup, NsrlBound, NsrlError, SetForm, SetOptions, SetReport,
};
pub use lines::{
    escape_name, escape_name_as, escaping_for, gnu_line, gnu_line_as, hashdeep_line, name_base64,
    name_from_base64, sfv_banner, sfv_comment, sfv_line, tag_line, LineStyle, NameEscaping,
    UnwritableName,
};
pub use lock::{lock_manifest, LockError, ManifestLock};
pub use manifest::{
    display_name, parse_line, parse_record, parse_sfv_line, resolve_tag, sfv_algorithm, Entry,
    Framing, Line, TagHint,
};
pub use many::{
    hash_input, hash_inputs, inode_and_ctime_ns, mtime_ns, Fanout, FileDigests, HashJob,
};
pub use outfile::{io_message, write_file, OutputError, OutputFile, WriteMode};
pub use pieces::{
    audit_pieces, compare_file, hash_inputs_in_pieces, hashdeep_piece_lines, parse_piece_size,
    ChangedPieces, Comparer, Comparison, EntryHasher, JsonPieces, PieceDigests, PieceFault,
    PieceOnly, PieceSizeError, Pieces, Ranges, UnwritablePieces,
};
pub use plan::{Column, DigestForm, PlanError, SumPlan, SumRequest, DEFAULT_ALGORITHM};
pub use read::{hash_file, hash_reader, hash_reader_read_ahead, Hashed, ReadBuffer, ReadStrategy};
pub use recorded::{
    read_manifest, LineFault, LineProblem, Manifest, ManifestError, Place, ReadOptions, Recorded,
    MAX_ALGORITHMS, MAX_DIGEST_BYTES,
};
pub use stdin::StandardInput;
pub use update::{
    sidecar_path, update_tree, JsonRow, Known, Listing, Sidecar, Stamp, TreeUpdate, UpdateError,
    UpdateReport, Updated,
};
pub use walk::{
    exclude_set, expand, first_files, on_rotating_disk, parse_file_list, reads_from_spinning_disk,
    FileSystemLoop, Input, WalkOptions,
};
